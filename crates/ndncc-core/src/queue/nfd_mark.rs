//! Queue-length congestion marking, as NFD's link service does it: a FIFO that never drops
//! early, but marks packets while more than `threshold` bytes wait.
//!
//! While the backlog exceeds the threshold the face is in a congestion episode:
//!
//! ```text
//!   episode starts at T0 (first check with backlog > threshold)
//!   rule nfd-0.7: marks at T0 + I, then each next = previous + I/√(n+1) after the n-th mark
//!   rule nfd-0.6: marks at T0, then each next = previous + I/√n after the n-th mark, and an
//!                 episode's first mark waits until I after the previous episode's last mark
//!   (a mark goes on the first packet checked at or after that time)
//!   episode ends on the first check with backlog <= threshold
//! ```
//!
//! Both rules give the gaps I, I/√2, I/√3, ... from T0. `nfd-0.7` is NFD's "face: Make congestion
//! marking less aggressive" (NFD 0.7.0, 2019; ndnSIM 2.8) with a fixed 65,536-byte threshold;
//! `nfd-0.6` is the earlier rule (NFD 0.6.x; ndnSIM 2.6 and 2.7), whose threshold was
//! min(65,536 B, send-queue capacity / 2) — give that capacity as `capacity_bytes`.
//!
//! Where the check happens (`decide_at`):
//!
//! - `enqueue` is NFD's own place: `GenericLinkService::sendLpPacket` looks at the bytes already
//!   waiting in the device's send queue before handing it the packet, and marks *that* packet —
//!   the one joining the tail. If the queue is full the packet is dropped and its mark with it.
//! - `dequeue` (the default) decides when a packet leaves, from the bytes still waiting behind
//!   it, and marks the departing head packet: the mark reaches the receiver one queue sojourn
//!   earlier, the way a dequeue-time AQM (CoDel) signals.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::{AnyQueue, Dequeued, DropTail, DropTailConfig, Limit, QueueDisc, Verdict, MAX_QUEUE_BYTES};
use crate::packet::Packet;
use crate::plugin::{check, Check, Invalid, Plugin};
use crate::time::{SimDuration, SimTime};
use crate::units::{Bytes, Duration};

/// NFD's default congestion threshold [bytes].
pub const DEFAULT_THRESHOLD: u64 = 65_536;

/// Which NFD marking rule: when an episode's first mark comes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub enum NfdRule {
    /// NFD ≥ 0.7 (ndnSIM 2.8): the first mark after one interval above the threshold.
    #[default]
    #[serde(rename = "nfd-0.7")]
    Nfd07,
    /// NFD 0.6 (ndnSIM 2.6, 2.7): the first congested packet marked at once, at most one
    /// episode-opening mark per interval.
    #[serde(rename = "nfd-0.6")]
    Nfd06,
}

/// Where the queue length is checked and which packet carries the mark.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum DecideAt {
    /// When a packet leaves: the bytes behind it decide, the departing head packet is marked.
    #[default]
    Dequeue,
    /// When a packet arrives (NFD's `sendLpPacket`): the bytes already waiting decide, the
    /// arriving tail packet is marked, and a tail drop loses the mark.
    Enqueue,
}

/// `queue = { type = "nfd-mark", ... }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NfdMarkConfig {
    /// Backlog above which packets are marked [bytes]. Default: unset, which means 65,536 B, or
    /// min(65,536 B, `capacity_bytes` / 2) when `capacity_bytes` is given (NFD 0.6).
    pub threshold: Option<Bytes>,
    /// The send-queue capacity NFD 0.6 derived the threshold from [bytes] (default unset;
    /// ndnSIM 2.6/2.7 took a 100-packet queue as 100 × 1,500 B = 150,000 B, giving 65,536 B).
    pub capacity_bytes: Option<Bytes>,
    /// Base marking interval (default 100 ms).
    pub interval: Duration,
    /// `"nfd-0.7"` (default) or `"nfd-0.6"`: see [`NfdRule`].
    pub rule: NfdRule,
    /// `"dequeue"` (default) or `"enqueue"` (NFD's own): see [`DecideAt`].
    pub decide_at: DecideAt,
    /// Hard limit [packets] (default 100 when neither `packets` nor `bytes` is given).
    pub packets: Option<usize>,
    /// Hard limit [bytes]; use instead of `packets`.
    pub bytes: Option<Bytes>,
}

impl Default for NfdMarkConfig {
    fn default() -> Self {
        NfdMarkConfig {
            threshold: None,
            capacity_bytes: None,
            interval: Duration::from_millis(100),
            rule: NfdRule::Nfd07,
            decide_at: DecideAt::Dequeue,
            packets: None,
            bytes: None,
        }
    }
}

impl Plugin for NfdMarkConfig {
    type Built = AnyQueue;
    fn validate(&self) -> Check {
        if self.threshold.is_some() && self.capacity_bytes.is_some() {
            return Err(Invalid::new("capacity_bytes", "give threshold or capacity_bytes, not both"));
        }
        if let Some(t) = self.threshold {
            check::count("threshold", t.0, 1, MAX_QUEUE_BYTES)?;
        }
        if let Some(c) = self.capacity_bytes {
            check::count("capacity_bytes", c.0, 1, MAX_QUEUE_BYTES)?;
        }
        check::time("interval", self.interval.get(), false)?;
        self.limit().map(|_| ())
    }
    fn build(&self) -> AnyQueue {
        AnyQueue::NfdMark(Box::new(NfdMark::new(self)))
    }
}

impl NfdMarkConfig {
    /// The hard limit, with the same rules as `droptail`.
    pub fn limit(&self) -> Result<Limit, Invalid> {
        DropTailConfig { packets: self.packets, bytes: self.bytes }.limit()
    }

    /// The marking threshold in force [bytes].
    pub fn threshold_bytes(&self) -> u64 {
        match (self.threshold, self.capacity_bytes) {
            (Some(t), _) => t.0,
            (None, Some(c)) => DEFAULT_THRESHOLD.min(c.0 / 2),
            (None, None) => DEFAULT_THRESHOLD,
        }
    }
}

/// The marking schedule of one congestion episode.
#[derive(Clone, Copy, Debug)]
struct Episode {
    /// The next mark goes on the first packet checked at or after this time.
    next_mark: SimTime,
    /// The gap after the next mark is `interval / √(steps + 1)`. nfd-0.7 episodes start at 1,
    /// nfd-0.6 episodes at 0 (the opening mark is still to come).
    steps: u64,
}

/// A FIFO with NFD-style queue-length marking.
#[derive(Debug)]
pub struct NfdMark {
    fifo: DropTail,
    threshold: u64,
    interval: SimDuration,
    rule: NfdRule,
    decide_at: DecideAt,
    episode: Option<Episode>,
    /// The time of the last mark (`nfd-0.6` spaces episode-opening marks by one interval).
    last_mark: Option<SimTime>,
    /// With `decide_at = enqueue`: whether each waiting packet, head first, was marked here.
    marked_here: VecDeque<bool>,
    marks: u64,
}

impl NfdMark {
    /// Build from a config; an invalid limit falls back to 100 packets (`validate` reports it).
    pub fn new(cfg: &NfdMarkConfig) -> NfdMark {
        NfdMark {
            fifo: DropTail::new(cfg.limit().unwrap_or(Limit::Packets(100))),
            threshold: cfg.threshold_bytes(),
            interval: cfg.interval.get(),
            rule: cfg.rule,
            decide_at: cfg.decide_at,
            episode: None,
            last_mark: None,
            marked_here: VecDeque::new(),
            marks: 0,
        }
    }

    pub fn threshold(&self) -> u64 {
        self.threshold
    }

    /// Marks decided since the queue was built (with `decide_at = enqueue`, also those lost
    /// with a tail-dropped packet).
    pub fn marks(&self) -> u64 {
        self.marks
    }

    /// Decide whether the packet checked at `now`, with `backlog` bytes waiting, is marked.
    fn judge(&mut self, backlog: u64, now: SimTime) -> bool {
        if backlog <= self.threshold {
            self.episode = None;
            return false;
        }
        let mark = match (&mut self.episode, self.rule) {
            (None, NfdRule::Nfd07) => {
                self.episode = Some(Episode { next_mark: now + self.interval, steps: 1 });
                false
            }
            (None, NfdRule::Nfd06) => {
                // At once, unless the previous episode marked less than one interval ago:
                // then the opening mark waits until one interval after that mark.
                let open_at = self.last_mark.map_or(now, |t| (t + self.interval).max(now));
                self.episode = Some(Episode { next_mark: open_at, steps: 0 });
                self.mark_if_due(now)
            }
            (Some(_), _) => self.mark_if_due(now),
        };
        if mark {
            self.last_mark = Some(now);
            self.marks += 1;
        }
        mark
    }

    /// Within an episode: mark if the next mark is due, and schedule the one after.
    fn mark_if_due(&mut self, now: SimTime) -> bool {
        let Some(e) = self.episode.as_mut() else { return false };
        if now < e.next_mark {
            return false;
        }
        if e.steps == 0 {
            // nfd-0.6's opening mark: the schedule starts from it.
            e.next_mark = now;
        }
        // nfd-0.7 counts from 1 at the episode's start (the n-th mark is followed by I/√(n+1));
        // nfd-0.6 from 0 (the n-th mark is followed by I/√n).
        e.steps = e.steps.saturating_add(1);
        e.next_mark += self.interval.mul_f64(1.0 / (e.steps as f64).sqrt());
        true
    }
}

impl QueueDisc for NfdMark {
    fn enqueue(&mut self, packet: Packet, now: SimTime) -> Verdict {
        if self.decide_at == DecideAt::Dequeue {
            return self.fifo.enqueue(packet, now);
        }
        let mark = self.judge(self.fifo.len_bytes(), now);
        let verdict = self.fifo.enqueue(packet, now);
        if verdict == Verdict::Queued {
            self.marked_here.push_back(mark);
        }
        verdict
    }
    fn dequeue(&mut self, now: SimTime, _dropped: &mut Vec<Packet>) -> Option<Dequeued> {
        let Some(packet) = self.fifo.pop() else {
            if self.decide_at == DecideAt::Dequeue {
                self.episode = None;
            }
            return None;
        };
        let mark = match self.decide_at {
            DecideAt::Dequeue => self.judge(self.fifo.len_bytes(), now),
            DecideAt::Enqueue => self.marked_here.pop_front().unwrap_or(false),
        };
        Some(Dequeued { packet, mark })
    }
    fn len_packets(&self) -> usize {
        self.fifo.len_packets()
    }
    fn len_bytes(&self) -> u64 {
        self.fifo.len_bytes()
    }
    /// True from the start of an episode (also before its first mark) until it ends.
    fn is_congested(&self) -> bool {
        self.episode.is_some()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::NameId;
    use crate::packet::Name;

    const MS: u64 = 1_000_000;

    fn pkt(seg: u64) -> Packet {
        Packet::interest(Name { prefix: NameId(0), seg }, 1000, 0, 0)
    }

    fn big_queue(rule: NfdRule) -> NfdMark {
        NfdMark::new(&NfdMarkConfig { packets: Some(1000), rule, ..NfdMarkConfig::default() })
    }

    /// Enqueue 500 packets of 1000 B at t = 0 and dequeue one per millisecond from t = 0;
    /// return the dequeue times [ms] that carried a mark.
    fn mark_times(q: &mut NfdMark) -> Vec<u64> {
        for s in 0..500 {
            assert_eq!(q.enqueue(pkt(s), SimTime::ZERO), Verdict::Queued);
        }
        let mut dropped = Vec::new();
        (0..500).filter(|ms| q.dequeue(SimTime(ms * MS), &mut dropped).unwrap().mark).collect()
    }

    // The dequeue at k ms leaves (499 - k) × 1000 B behind: above 65,536 B for k <= 433, so the
    // episode runs from T0 = 0 to the dequeue at 434 ms. Marks are due at 100 ms, then
    // + 100/√2 = 70.710678 -> 170.710678 (dequeue 171), + 100/√3 = 57.735027 -> 228.445705
    // (229), + 50 -> 278.445705 (279), + 100/√5 = 44.721360 -> 323.167065 (324),
    // + 100/√6 = 40.824829 -> 363.991894 (364), + 100/√7 = 37.796447 -> 401.788341 (402),
    // + 100/√8 = 35.355339 -> 437.143680: after the episode ended.

    #[test]
    fn the_first_mark_waits_one_interval_by_default() {
        let mut q = big_queue(NfdRule::Nfd07);
        assert_eq!(mark_times(&mut q), vec![100, 171, 229, 279, 324, 364, 402]);
        assert_eq!(q.marks(), 7);
        assert!(!q.is_congested());
    }

    #[test]
    fn the_older_rule_also_marks_the_first_packet_of_the_episode() {
        let mut q = big_queue(NfdRule::Nfd06);
        assert_eq!(mark_times(&mut q), vec![0, 100, 171, 229, 279, 324, 364, 402]);
    }

    #[test]
    fn an_episode_starts_before_its_first_mark_and_a_new_one_restarts_the_schedule() {
        let mut q = big_queue(NfdRule::Nfd07);
        let mut dropped = Vec::new();
        for s in 0..100 {
            q.enqueue(pkt(s), SimTime::ZERO);
        }
        // 99,000 B behind: congested, but no mark yet.
        assert!(!q.dequeue(SimTime::ZERO, &mut dropped).unwrap().mark);
        assert!(q.is_congested());
        // Drain to 65,000 B behind (34 more dequeues leave 99 - 34 = 65 packets): episode over.
        for _ in 0..34 {
            q.dequeue(SimTime(MS), &mut dropped);
        }
        assert!(!q.is_congested());
        // A new burst at 500 ms: the new episode's first mark is one interval after it starts.
        for s in 0..100 {
            q.enqueue(pkt(s), SimTime(500 * MS));
        }
        assert!(!q.dequeue(SimTime(500 * MS), &mut dropped).unwrap().mark);
        assert!(!q.dequeue(SimTime(599 * MS), &mut dropped).unwrap().mark);
        assert!(q.dequeue(SimTime(600 * MS), &mut dropped).unwrap().mark);
        assert!(dropped.is_empty());
    }

    #[test]
    fn the_older_rule_opens_an_episode_at_most_one_interval_after_the_last_mark() {
        let mut q = big_queue(NfdRule::Nfd06);
        let mut dropped = Vec::new();
        let burst = |q: &mut NfdMark, at: u64| {
            for s in 0..100 {
                q.enqueue(pkt(s), SimTime(at * MS));
            }
        };
        burst(&mut q, 0);
        assert!(q.dequeue(SimTime::ZERO, &mut dropped).unwrap().mark);
        while q.len_packets() > 0 {
            q.dequeue(SimTime(MS), &mut dropped);
        }
        // A new episode 50 ms after the mark at 0: its opening mark waits until 100 ms.
        burst(&mut q, 50);
        assert!(!q.dequeue(SimTime(50 * MS), &mut dropped).unwrap().mark);
        assert!(q.is_congested());
        assert!(!q.dequeue(SimTime(99 * MS), &mut dropped).unwrap().mark);
        assert!(q.dequeue(SimTime(100 * MS), &mut dropped).unwrap().mark);
        // ... and the schedule runs from that mark: the next one is due at 200 ms.
        assert!(!q.dequeue(SimTime(199 * MS), &mut dropped).unwrap().mark);
        assert!(q.dequeue(SimTime(200 * MS), &mut dropped).unwrap().mark);
    }

    /// NFD's place: the check sees the bytes already waiting when a packet arrives and marks the
    /// arriving packet, which leaves the queue behind everything that was waiting.
    #[test]
    fn deciding_at_enqueue_marks_the_arriving_packet_from_the_bytes_already_waiting() {
        let mut q = NfdMark::new(&NfdMarkConfig {
            packets: Some(100),
            decide_at: DecideAt::Enqueue,
            ..NfdMarkConfig::default()
        });
        let mut dropped = Vec::new();
        // 66 packets of 1000 B: the 67th arrival sees 66,000 B > 65,536 B and opens the episode.
        for s in 0..66 {
            assert_eq!(q.enqueue(pkt(s), SimTime::ZERO), Verdict::Queued);
        }
        assert!(!q.is_congested());
        q.enqueue(pkt(66), SimTime::ZERO);
        assert!(q.is_congested());
        // One interval later, the next arrival is marked; the departures before it are not.
        q.enqueue(pkt(67), SimTime(100 * MS));
        let marks: Vec<bool> = (0..68).map(|_| q.dequeue(SimTime(100 * MS), &mut dropped).unwrap().mark).collect();
        assert_eq!(marks.iter().position(|&m| m), Some(67));
        assert_eq!(marks.iter().filter(|&&m| m).count(), 1);
        assert_eq!(q.marks(), 1);
    }

    #[test]
    fn a_mark_decided_at_enqueue_is_lost_with_a_tail_dropped_packet() {
        let mut q = NfdMark::new(&NfdMarkConfig {
            packets: Some(70),
            decide_at: DecideAt::Enqueue,
            ..NfdMarkConfig::default()
        });
        for s in 0..70 {
            q.enqueue(pkt(s), SimTime::ZERO);
        }
        // Full: the arrival at 100 ms is due a mark but is dropped, and the mark with it.
        assert_eq!(q.enqueue(pkt(70), SimTime(100 * MS)), Verdict::Dropped);
        assert_eq!(q.marks(), 1);
        let mut dropped = Vec::new();
        assert!((0..70).all(|_| !q.dequeue(SimTime(100 * MS), &mut dropped).unwrap().mark));
    }

    #[test]
    fn a_backlog_exactly_at_the_threshold_is_not_congested() {
        let mut q = NfdMark::new(&NfdMarkConfig { threshold: Some(Bytes(2000)), ..NfdMarkConfig::default() });
        for s in 0..3 {
            q.enqueue(pkt(s), SimTime::ZERO);
        }
        // 2000 B behind the first packet: not more than 2000.
        q.dequeue(SimTime::ZERO, &mut Vec::new());
        assert!(!q.is_congested());
    }

    #[test]
    fn the_threshold_is_derived_from_the_capacity_when_not_given() {
        let cfg = |threshold: Option<u64>, capacity: Option<u64>| NfdMarkConfig {
            threshold: threshold.map(Bytes),
            capacity_bytes: capacity.map(Bytes),
            ..NfdMarkConfig::default()
        };
        assert_eq!(cfg(None, None).threshold_bytes(), 65_536);
        // ndnSIM 2.6 and 2.7: 100 × 1500 = 150,000 B; half is 75,000 > 65,536.
        assert_eq!(cfg(None, Some(150_000)).threshold_bytes(), 65_536);
        assert_eq!(cfg(None, Some(100_000)).threshold_bytes(), 50_000);
        assert_eq!(cfg(Some(10_000), None).threshold_bytes(), 10_000);
        assert!(cfg(Some(10_000), Some(100_000)).validate().unwrap_err().key == "capacity_bytes");
    }

    #[test]
    fn the_hard_limit_tail_drops_in_packets_or_bytes() {
        let mut q = NfdMark::new(&NfdMarkConfig::default());
        for s in 0..100 {
            assert_eq!(q.enqueue(pkt(s), SimTime::ZERO), Verdict::Queued);
        }
        assert_eq!(q.enqueue(pkt(100), SimTime::ZERO), Verdict::Dropped);
        let mut q = NfdMark::new(&NfdMarkConfig { bytes: Some(Bytes(2500)), ..NfdMarkConfig::default() });
        assert_eq!(q.enqueue(pkt(0), SimTime::ZERO), Verdict::Queued);
        assert_eq!(q.enqueue(pkt(1), SimTime::ZERO), Verdict::Queued);
        assert_eq!(q.enqueue(pkt(2), SimTime::ZERO), Verdict::Dropped);
    }

    #[test]
    fn validation_names_the_offending_key() {
        let bad = NfdMarkConfig { interval: Duration::from_millis(0), ..NfdMarkConfig::default() };
        assert!(bad.validate().unwrap_err().key == "interval");
        let both = NfdMarkConfig { packets: Some(10), bytes: Some(Bytes(10)), ..NfdMarkConfig::default() };
        assert!(both.validate().unwrap_err().message.contains("`packets` or `bytes`"));
        assert!(NfdMarkConfig::default().validate().is_ok());
    }
}
