//! Queue-length congestion marking, as NFD's link service does it: a FIFO that never drops
//! early, but marks packets leaving it while more than `threshold` bytes wait.
//!
//! On every dequeue the discipline looks at the bytes still waiting *behind* the departing
//! packet (the packet itself is not counted, as in NFD, where the packet being sent is not yet
//! in the send queue it measures). While that backlog exceeds the threshold the face is in a
//! congestion episode:
//!
//! ```text
//!   episode starts at T0 (first dequeue with backlog > threshold)
//!   marks at  [T0 if mark_first_immediately],  T0 + I,  then each next = previous + I/√k
//!             for k = 2, 3, 4, ... (a mark goes on the first dequeue at or after that time)
//!   episode ends on the first dequeue with backlog <= threshold (or an empty queue)
//! ```
//!
//! With `mark_first_immediately = false` this is the rule of NFD ≥ 0.7 and ndnSIM ≥ 2.6 (wait one
//! base interval, then marks spaced I/√(n+1) after the n-th); with `true` it is the older rule
//! (mark at once, then I/√n after the n-th). Both share the gaps I, I/√2, I/√3, ... from T0.

use serde::{Deserialize, Serialize};

use super::{AnyQueue, Dequeued, DropTail, DropTailConfig, Limit, QueueDisc, Verdict, MAX_QUEUE_BYTES};
use crate::packet::Packet;
use crate::plugin::{check, Check, Invalid, Plugin};
use crate::time::{SimDuration, SimTime};
use crate::units::{Bytes, Duration};

/// NFD's default congestion threshold [bytes].
pub const DEFAULT_THRESHOLD: u64 = 65_536;

/// `queue = { type = "nfd-mark", ... }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NfdMarkConfig {
    /// Backlog above which packets are marked [bytes]. Default: unset, which means
    /// min(65,536 B, `capacity_bytes` / 2), or 65,536 B without `capacity_bytes`.
    pub threshold: Option<Bytes>,
    /// The send-queue capacity the threshold is derived from when `threshold` is unset [bytes]
    /// (default unset; ndnSIM 2.8 used 100 × 1500 B = 150,000 B, giving 65,536 B).
    pub capacity_bytes: Option<Bytes>,
    /// Base marking interval (default 100 ms).
    pub interval: Duration,
    /// Mark the first packet of an episode at once (older NFD) instead of after one `interval`
    /// of congestion (default false: NFD ≥ 0.7, ndnSIM ≥ 2.6).
    pub mark_first_immediately: bool,
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
            mark_first_immediately: false,
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
        AnyQueue::NfdMark(NfdMark::new(self))
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
    /// The next mark goes on the first dequeue at or after this time.
    next_mark: SimTime,
    /// Gaps scheduled so far; the next gap is `interval / √(steps + 1)`.
    steps: u64,
}

/// A FIFO with NFD-style queue-length marking.
#[derive(Debug)]
pub struct NfdMark {
    fifo: DropTail,
    threshold: u64,
    interval: SimDuration,
    mark_first_immediately: bool,
    episode: Option<Episode>,
    marks: u64,
}

impl NfdMark {
    /// Build from a config; an invalid limit falls back to 100 packets (`validate` reports it).
    pub fn new(cfg: &NfdMarkConfig) -> NfdMark {
        NfdMark {
            fifo: DropTail::new(cfg.limit().unwrap_or(Limit::Packets(100))),
            threshold: cfg.threshold_bytes(),
            interval: cfg.interval.get(),
            mark_first_immediately: cfg.mark_first_immediately,
            episode: None,
            marks: 0,
        }
    }

    pub fn threshold(&self) -> u64 {
        self.threshold
    }

    /// Packets marked since the queue was built.
    pub fn marks(&self) -> u64 {
        self.marks
    }

    /// Decide whether the packet leaving at `now`, with `backlog` bytes behind it, is marked.
    fn judge(&mut self, backlog: u64, now: SimTime) -> bool {
        if backlog <= self.threshold {
            self.episode = None;
            return false;
        }
        match &mut self.episode {
            None => {
                self.episode = Some(Episode { next_mark: now + self.interval, steps: 1 });
                self.mark_first_immediately
            }
            Some(e) if now >= e.next_mark => {
                e.steps = e.steps.saturating_add(1);
                e.next_mark += self.interval.mul_f64(1.0 / (e.steps as f64).sqrt());
                true
            }
            Some(_) => false,
        }
    }
}

impl QueueDisc for NfdMark {
    fn enqueue(&mut self, packet: Packet, now: SimTime) -> Verdict {
        self.fifo.enqueue(packet, now)
    }
    fn dequeue(&mut self, now: SimTime, _dropped: &mut Vec<Packet>) -> Option<Dequeued> {
        let Some(packet) = self.fifo.pop() else {
            self.episode = None;
            return None;
        };
        let mark = self.judge(self.fifo.len_bytes(), now);
        self.marks += mark as u64;
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

    fn big_queue(mark_first_immediately: bool) -> NfdMark {
        NfdMark::new(&NfdMarkConfig { packets: Some(1000), mark_first_immediately, ..NfdMarkConfig::default() })
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
        let mut q = big_queue(false);
        assert_eq!(mark_times(&mut q), vec![100, 171, 229, 279, 324, 364, 402]);
        assert_eq!(q.marks(), 7);
        assert!(!q.is_congested());
    }

    #[test]
    fn the_older_rule_also_marks_the_first_packet_of_the_episode() {
        let mut q = big_queue(true);
        assert_eq!(mark_times(&mut q), vec![0, 100, 171, 229, 279, 324, 364, 402]);
    }

    #[test]
    fn an_episode_starts_before_its_first_mark_and_a_new_one_restarts_the_schedule() {
        let mut q = big_queue(false);
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
        // ndnSIM 2.8: 100 × 1500 = 150,000 B; half is 75,000 > 65,536.
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
