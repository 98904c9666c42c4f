//! CoDel (RFC 8289): sojourn-time AQM, in two modes sharing one state machine.
//!
//! * `drop` (`type = "codel"`): the classic algorithm. Packets are dropped at the head while
//!   dequeuing; dropped packets are handed back through the `dropped` vector.
//! * `mark` (`type = "codel-mark"`, PCON): the same schedule, but the chosen packet leaves
//!   with `mark: true` instead of being dropped. The only drops are tail drops at the hard limit.
//!
//! Every packet is timestamped on enqueue; its sojourn time is measured when it reaches the
//! head. Once the sojourn time has stayed at or above `target` for a whole `interval`, the
//! queue enters the dropping (marking) state and acts on one packet; it then acts again at
//! the times given by the control law
//!
//! ```text
//!   next = t + spacing_factor · interval / √count          (RFC 8289 §5.5, factor 1)
//! ```
//!
//! and leaves the state as soon as a head packet's sojourn time is below `target` (or the
//! queue holds fewer than `min_bytes` behind it, or it is empty). When the state is entered
//! again soon after it was left, `count` resumes near where it stopped (the count-reuse rule).
//!
//! Which packet carries a mark (`mark_on`): RFC 8289 acts on the head packet it judged
//! (`"head"`). The original PCON code (CoDelQueue2 under its forwarding strategy) only notes at
//! the dequeue that the next packet should be marked, and the strategy asks the queue when it
//! next sends a packet on the face (`isOkToMark`): the packet joining the tail carries the mark,
//! if the queue was still over target at its last dequeue (`"next-arrival"`). The mark then
//! waits a whole queue's sojourn before it leaves.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::{AnyQueue, MAX_QUEUE_BYTES, MAX_QUEUE_PACKETS};
use crate::plugin::{check, Check, Plugin};

use super::{Dequeued, DropTail, Limit, QueueDisc, Verdict};
use crate::packet::Packet;
use crate::time::{SimDuration, SimTime};
use crate::units::{Bytes, Duration};

/// `count` is reused on re-entry only if the state was left less than this many intervals
/// after the last scheduled action (RFC 8289 §5.5).
const REUSE_INTERVALS: u64 = 16;

/// What CoDel does to the packet its schedule picks.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CodelMode {
    /// Drop it (RFC 8289).
    Drop,
    /// Send it with a congestion mark (PCON); never drop below the hard limit.
    Mark,
}

/// Which packet carries a mark the schedule decides on (see the module documentation).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum MarkOn {
    /// The head packet judged at the dequeue (RFC 8289).
    #[default]
    Head,
    /// The next packet to join the queue, if the queue is still over target (the original
    /// PCON code).
    NextArrival,
}

/// `queue = { type = "codel", ... }`: dropping CoDel.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CodelConfig {
    /// Acceptable standing sojourn time (default 5 ms).
    pub target: Duration,
    /// Time the sojourn must stay above `target` before the first drop; base of the control
    /// law (default 100 ms).
    pub interval: Duration,
    /// Hard limit [packets]; tail drop beyond it (default 1000).
    pub limit: usize,
    /// The sojourn check is skipped (counts as "below target") while fewer than this many bytes
    /// wait behind the head packet [bytes] (default 1500, one MTU).
    pub min_bytes: Bytes,
    /// Factor on the control-law spacing `interval / √count` (default 1.0, RFC 8289).
    pub spacing_factor: f64,
    /// Re-entering the state soon after leaving it resumes `count` (RFC 8289 §5.5; default
    /// true). False starts every entry at count 1.
    #[serde(skip_serializing_if = "is_true")]
    pub count_reuse: bool,
}

impl Default for CodelConfig {
    fn default() -> Self {
        CodelConfig {
            target: Duration::from_millis(5),
            interval: Duration::from_millis(100),
            limit: 1000,
            min_bytes: Bytes(1500),
            spacing_factor: 1.0,
            count_reuse: true,
        }
    }
}

/// `queue = { type = "codel-mark", ... }`: PCON's marking CoDel. Same keys as `codel`, with
/// defaults from the PCON scenarios.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CodelMarkConfig {
    /// Acceptable standing sojourn time (default 5 ms).
    pub target: Duration,
    /// Time the sojourn must stay above `target` before the first mark; base of the control
    /// law (default 100 ms).
    pub interval: Duration,
    /// Hard limit [packets]; the only place this queue drops (default 200).
    pub limit: usize,
    /// Sojourn check skipped while fewer bytes than this wait behind the head [bytes]
    /// (default 0: marking looks at sojourn time alone).
    pub min_bytes: Bytes,
    /// Factor on the spacing `interval / √count` between marks (default 1.1, as in the
    /// original PCON code; 1.0 gives RFC 8289 spacing).
    pub spacing_factor: f64,
    /// Resume `count` on a re-entry soon after leaving (RFC 8289; default true). The original
    /// PCON queue (CoDelQueue2) restarts at count 1 whenever a packet is below target.
    #[serde(skip_serializing_if = "is_true")]
    pub count_reuse: bool,
    /// Which packet carries a mark: `"head"` (RFC 8289; default) or `"next-arrival"` (the
    /// original PCON code: the next packet to join the queue).
    #[serde(skip_serializing_if = "is_head")]
    pub mark_on: MarkOn,
}

impl Default for CodelMarkConfig {
    fn default() -> Self {
        CodelMarkConfig {
            target: Duration::from_millis(5),
            interval: Duration::from_millis(100),
            limit: 200,
            min_bytes: Bytes(0),
            spacing_factor: 1.1,
            count_reuse: true,
            mark_on: MarkOn::Head,
        }
    }
}

impl Plugin for CodelConfig {
    type Built = AnyQueue;
    fn validate(&self) -> Check {
        check_codel(self)
    }
    fn build(&self) -> AnyQueue {
        AnyQueue::Codel(Box::new(Codel::new(self, CodelMode::Drop)))
    }
}

impl Plugin for CodelMarkConfig {
    type Built = AnyQueue;
    fn validate(&self) -> Check {
        check_codel(&self.as_codel())
    }
    fn build(&self) -> AnyQueue {
        AnyQueue::Codel(Box::new(Codel::new(&self.as_codel(), CodelMode::Mark).marking_on(self.mark_on)))
    }
}

impl CodelMarkConfig {
    /// The same parameters as a `CodelConfig` (the state machine is shared).
    pub fn as_codel(&self) -> CodelConfig {
        CodelConfig {
            target: self.target,
            interval: self.interval,
            limit: self.limit,
            min_bytes: self.min_bytes,
            spacing_factor: self.spacing_factor,
            count_reuse: self.count_reuse,
        }
    }
}

/// The default of `count_reuse` is left out of echoed configurations, which stay as they were
/// before the key existed.
fn is_true(b: &bool) -> bool {
    *b
}

/// Likewise the default of `mark_on`.
fn is_head(m: &MarkOn) -> bool {
    *m == MarkOn::Head
}

fn check_codel(c: &CodelConfig) -> Check {
    check::time("target", c.target.get(), false)?;
    check::time("interval", c.interval.get(), false)?;
    check::count("limit", c.limit as u64, 1, MAX_QUEUE_PACKETS)?;
    check::count("min_bytes", c.min_bytes.0, 0, MAX_QUEUE_BYTES)?;
    check::positive_at_most("spacing_factor", c.spacing_factor, 1e6)
}

/// CoDel over a packet-limited FIFO.
#[derive(Debug)]
pub struct Codel {
    mode: CodelMode,
    fifo: DropTail,
    target: SimDuration,
    interval: SimDuration,
    min_bytes: u64,
    spacing_factor: f64,
    count_reuse: bool,
    /// When the sojourn time will have been above target for a whole interval; `None` while
    /// it is below target.
    first_above: Option<SimTime>,
    /// In the dropping (marking) state.
    dropping: bool,
    /// When the next drop (mark) is due while in the state.
    drop_next: SimTime,
    /// Drops (marks) since entering the state, seeded by the reuse rule.
    count: u64,
    /// `count` right after the last entry into the state.
    lastcount: u64,
    mark_on: MarkOn,
    /// With `mark_on = next-arrival`: a mark decided at a dequeue waits for the next arrival.
    pending_mark: bool,
    /// Whether the last packet judged at a dequeue had been over target for an interval.
    over_target: bool,
    /// With `mark_on = next-arrival`: whether each waiting packet, head first, carries a mark.
    carries_mark: VecDeque<bool>,
}

impl Codel {
    pub fn new(cfg: &CodelConfig, mode: CodelMode) -> Codel {
        Codel {
            mode,
            fifo: DropTail::new(Limit::Packets(cfg.limit)),
            target: cfg.target.get(),
            interval: cfg.interval.get(),
            min_bytes: cfg.min_bytes.0,
            spacing_factor: cfg.spacing_factor,
            count_reuse: cfg.count_reuse,
            first_above: None,
            dropping: false,
            drop_next: SimTime::ZERO,
            count: 0,
            lastcount: 0,
            mark_on: MarkOn::Head,
            pending_mark: false,
            over_target: false,
            carries_mark: VecDeque::new(),
        }
    }

    /// Put marks on the packets `mark_on` says (marking mode only).
    pub fn marking_on(mut self, mark_on: MarkOn) -> Codel {
        self.mark_on = mark_on;
        self
    }

    fn marks_next_arrival(&self) -> bool {
        self.mode == CodelMode::Mark && self.mark_on == MarkOn::NextArrival
    }

    /// In the dropping (or marking) state.
    pub fn in_drop_state(&self) -> bool {
        self.dropping
    }
    pub fn mode(&self) -> CodelMode {
        self.mode
    }

    /// The number of drops (marks) in the current or last dropping state.
    pub fn count(&self) -> u64 {
        self.count
    }

    /// Control law: `t + spacing_factor · interval / √count`, rounded to whole nanoseconds.
    fn control_law(&self, t: SimTime, count: u64) -> SimTime {
        let spacing = self.interval.as_secs_f64() * self.spacing_factor / (count.max(1) as f64).sqrt();
        t + SimDuration::from_secs_f64(spacing)
    }

    /// Has the head packet `p`, just removed, been late for long enough to act on?
    /// Also keeps `first_above` up to date.
    fn ok_to_drop(&mut self, p: &Packet, now: SimTime) -> bool {
        let sojourn = now.saturating_since(p.enqueued_at);
        if sojourn < self.target || self.fifo.len_bytes() < self.min_bytes {
            self.first_above = None;
            return false;
        }
        match self.first_above {
            None => {
                self.first_above = Some(now + self.interval);
                false
            }
            Some(t) => now >= t,
        }
    }

    /// Take the head packet and judge it; an empty queue forgets `first_above`.
    fn take(&mut self, now: SimTime) -> Option<(Packet, bool)> {
        match self.fifo.pop() {
            Some(p) => {
                let ok = self.ok_to_drop(&p, now);
                self.over_target = ok;
                Some((p, ok))
            }
            None => {
                self.first_above = None;
                self.over_target = false;
                None
            }
        }
    }

    /// Enter the dropping state at `now`, choosing `count` by the reuse rule.
    fn enter(&mut self, now: SimTime) {
        self.dropping = true;
        let delta = self.count.saturating_sub(self.lastcount);
        let recent = now.saturating_since(self.drop_next) < self.interval.saturating_mul(REUSE_INTERVALS);
        self.count = if self.count_reuse && delta > 1 && recent { delta } else { 1 };
        self.lastcount = self.count;
        self.drop_next = self.control_law(now, self.count);
    }

    fn dequeue_marking(&mut self, now: SimTime) -> Option<Dequeued> {
        let Some((packet, ok)) = self.take(now) else {
            self.dropping = false;
            return None;
        };
        let mut mark = false;
        if self.dropping {
            if !ok {
                self.dropping = false;
            } else if now >= self.drop_next {
                self.count = self.count.saturating_add(1);
                mark = true;
                self.drop_next = self.control_law(self.drop_next, self.count);
            }
        } else if ok {
            mark = true;
            self.enter(now);
        }
        if self.mark_on == MarkOn::NextArrival {
            // The decision waits for the next arrival; this packet carries what it was given
            // when it joined.
            self.pending_mark |= mark;
            mark = self.carries_mark.pop_front().unwrap_or(false);
        }
        Some(Dequeued { packet, mark })
    }

    fn dequeue_dropping(&mut self, now: SimTime, dropped: &mut Vec<Packet>) -> Option<Dequeued> {
        let Some((mut packet, mut ok)) = self.take(now) else {
            self.dropping = false;
            return None;
        };
        if self.dropping {
            if !ok {
                self.dropping = false;
            }
            while self.dropping && now >= self.drop_next {
                self.count = self.count.saturating_add(1);
                dropped.push(packet);
                match self.take(now) {
                    None => {
                        self.dropping = false;
                        return None;
                    }
                    Some((p, o)) => {
                        packet = p;
                        ok = o;
                    }
                }
                if ok {
                    self.drop_next = self.control_law(self.drop_next, self.count);
                } else {
                    self.dropping = false;
                }
            }
        } else if ok {
            dropped.push(packet);
            // The packet after a first drop goes out whatever its sojourn time; judging it
            // still updates `first_above`.
            let next = self.take(now);
            self.enter(now);
            return next.map(|(packet, _)| Dequeued { packet, mark: false });
        }
        Some(Dequeued { packet, mark: false })
    }
}

impl QueueDisc for Codel {
    fn enqueue(&mut self, packet: Packet, now: SimTime) -> Verdict {
        if !self.marks_next_arrival() {
            return self.fifo.enqueue(packet, now);
        }
        // The arrival takes a pending mark (asking consumes it) if the queue was still over
        // target at its last dequeue. (The dequeue that decided freed a slot, so the first
        // arrival after it is never tail-dropped.)
        let carries = std::mem::take(&mut self.pending_mark) && self.over_target;
        let verdict = self.fifo.enqueue(packet, now);
        if verdict == Verdict::Queued {
            self.carries_mark.push_back(carries);
        }
        verdict
    }
    fn dequeue(&mut self, now: SimTime, dropped: &mut Vec<Packet>) -> Option<Dequeued> {
        match self.mode {
            CodelMode::Drop => self.dequeue_dropping(now, dropped),
            CodelMode::Mark => self.dequeue_marking(now),
        }
    }
    fn len_packets(&self) -> usize {
        self.fifo.len_packets()
    }
    fn len_bytes(&self) -> u64 {
        self.fifo.len_bytes()
    }
    /// Only the marking mode signals congestion to the forwarder (PCON's both-direction rule);
    /// a dropping CoDel's signal is the drop itself.
    fn is_congested(&self) -> bool {
        self.dropping && self.mode == CodelMode::Mark
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

    fn at_ms(ms: u64) -> SimTime {
        SimTime(ms * MS)
    }

    fn mark_cfg(factor: f64) -> CodelConfig {
        CodelConfig { limit: 1000, min_bytes: Bytes(0), spacing_factor: factor, ..CodelConfig::default() }
    }

    /// Fill with `n` packets at t = 0, dequeue one per millisecond from t = 0, and return the
    /// times [ms] of the dequeues that acted (marked, or pushed a packet to `dropped`).
    fn act_times(q: &mut Codel, n: u64, until_ms: u64) -> Vec<u64> {
        for s in 0..n {
            assert_eq!(q.enqueue(pkt(s), SimTime::ZERO), Verdict::Queued);
        }
        let mut times = Vec::new();
        let mut dropped = Vec::new();
        for ms in 0..until_ms {
            let before = dropped.len();
            let d = q.dequeue(at_ms(ms), &mut dropped);
            if d.is_some_and(|d| d.mark) || dropped.len() > before {
                times.push(ms);
            }
        }
        times
    }

    #[test]
    fn a_queue_kept_above_target_marks_on_the_rfc_schedule() {
        // Sojourn = now. At 5 ms it reaches target: first_above = 105 ms. First mark at 105 ms,
        // count 1, next = 105 + 100/√1 = 205 ms. Mark at 205 ms, count 2: next = 205 + 100/√2
        // = 205 + 70.710678 = 275.710678 ms, first dequeue after it is at 276 ms. Count 3:
        // + 100/√3 = 57.735027 -> 333.445705 ms (dequeue 334). Count 4: + 100/√4 = 50
        // -> 383.445705 (dequeue 384), where the fifth mark makes count 5.
        let mut q = Codel::new(&mark_cfg(1.0), CodelMode::Mark);
        assert_eq!(act_times(&mut q, 450, 400), vec![105, 205, 276, 334, 384]);
        assert!(q.is_congested());
        assert_eq!(q.count(), 5);
    }

    #[test]
    fn pcon_spacing_stretches_every_gap_by_the_factor() {
        // Factor 1.1: 105; 105 + 110 = 215; + 110/√2 = 77.781746 -> 292.781746 (293);
        // + 110/√3 = 63.508530 -> 356.290276 (357); + 110/√4 = 55 -> 411.290276 (412).
        let mut q = Codel::new(&mark_cfg(1.1), CodelMode::Mark);
        assert_eq!(act_times(&mut q, 450, 420), vec![105, 215, 293, 357, 412]);
    }

    #[test]
    fn drop_mode_drops_on_the_same_schedule_and_sends_the_next_packet() {
        // Same schedule as the marking test with factor 1; each action drops one packet and
        // the dequeue still returns the packet behind it, unmarked.
        let mut q = Codel::new(&CodelConfig { min_bytes: Bytes(0), ..CodelConfig::default() }, CodelMode::Drop);
        for s in 0..450 {
            q.enqueue(pkt(s), SimTime::ZERO);
        }
        let mut dropped = Vec::new();
        for ms in 0..105 {
            assert_eq!(q.dequeue(at_ms(ms), &mut dropped).unwrap().packet.name().unwrap().seg, ms);
        }
        assert!(dropped.is_empty() && !q.is_congested());
        // At 105 ms seg 105 is dropped and seg 106 sent.
        let d = q.dequeue(at_ms(105), &mut dropped).unwrap();
        assert_eq!((d.packet.name().unwrap().seg, d.mark), (106, false));
        assert_eq!(dropped.iter().map(|p| p.name().unwrap().seg).collect::<Vec<_>>(), vec![105]);
        // Dropping, but a dropping CoDel does not ask the forwarder to mark.
        assert!(q.in_drop_state() && !q.is_congested());
        // Dequeues at 106..=204 send segs 107..=205; at 205 ms seg 206 is dropped, 207 sent.
        for ms in 106..205 {
            q.dequeue(at_ms(ms), &mut dropped);
        }
        assert_eq!(dropped.len(), 1);
        assert_eq!(q.dequeue(at_ms(205), &mut dropped).unwrap().packet.name().unwrap().seg, 207);
        assert_eq!(dropped.last().unwrap().name().unwrap().seg, 206);
    }

    #[test]
    fn drop_mode_drops_several_packets_in_one_dequeue_when_far_behind_schedule() {
        // Enter at 105 ms (drop_next = 205 ms), then the transmitter is silent until 400 ms.
        // At 400 ms: count 2 drop, drop_next = 205 + 70.710678 = 275.710678 <= 400: count 3
        // drop, drop_next = 333.445705 <= 400: count 4 drop, drop_next = 383.445705 <= 400:
        // count 5 drop, drop_next = 383.445705 + 100/√5 (44.721360) = 428.167065 > 400: stop.
        // Four drops in that one call.
        let mut q = Codel::new(&CodelConfig { min_bytes: Bytes(0), ..CodelConfig::default() }, CodelMode::Drop);
        for s in 0..100 {
            q.enqueue(pkt(s), SimTime::ZERO);
        }
        let mut dropped = Vec::new();
        q.dequeue(at_ms(5), &mut dropped);
        q.dequeue(at_ms(105), &mut dropped);
        assert_eq!(dropped.len(), 1);
        q.dequeue(at_ms(400), &mut dropped);
        assert_eq!(dropped.len(), 5);
        assert_eq!(q.count(), 5);
    }

    #[test]
    fn the_state_is_left_when_a_packet_waited_less_than_target() {
        let mut q = Codel::new(&mark_cfg(1.0), CodelMode::Mark);
        act_times(&mut q, 200, 110); // marked at 105 ms; 90 old packets still queued
        assert!(q.is_congested());
        let mut dropped = Vec::new();
        while q.len_packets() > 0 {
            q.dequeue(at_ms(110), &mut dropped);
        }
        // A fresh packet dequeued 1 ms after arrival: sojourn 1 ms < 5 ms.
        q.enqueue(pkt(999), at_ms(120));
        let d = q.dequeue(at_ms(121), &mut dropped).unwrap();
        assert!(!d.mark);
        assert!(!q.is_congested());
    }

    #[test]
    fn an_empty_queue_leaves_the_state() {
        let mut q = Codel::new(&mark_cfg(1.0), CodelMode::Mark);
        act_times(&mut q, 106, 106); // the last packet leaves (marked) at 105 ms
        assert!(q.is_congested());
        assert!(q.dequeue(at_ms(106), &mut Vec::new()).is_none());
        assert!(!q.is_congested());
    }

    #[test]
    fn reentering_soon_after_leaving_reuses_the_count() {
        // First episode: marks at 105, 205, 276, 334 ms -> count 4, lastcount 1, drop_next
        // = 383.445705 ms. Leave at 340 ms (a fresh packet). A new backlog arrives at 340 ms;
        // its sojourn reaches 5 ms at 345 ms (first_above = 445 ms) so it re-enters at 445 ms:
        // delta = 4 - 1 = 3 > 1 and 445 - 383.4 ms < 1.6 s, so count = 3 and the next mark is
        // due at 445 + 100/√3 = 445 + 57.735027 = 502.735027 ms (dequeue at 503 ms); count 4
        // then puts the one after at 502.735027 + 50 = 552.735027 ms, past this window.
        let mut q = Codel::new(&mark_cfg(1.0), CodelMode::Mark);
        assert_eq!(act_times(&mut q, 340, 340), vec![105, 205, 276, 334]);
        let mut dropped = Vec::new();
        q.enqueue(pkt(0), at_ms(340));
        assert!(!q.dequeue(at_ms(340), &mut dropped).unwrap().mark);
        assert!(!q.is_congested());
        for s in 0..300 {
            q.enqueue(pkt(s), at_ms(340));
        }
        let mut marks = Vec::new();
        for ms in 341..550 {
            if q.dequeue(at_ms(ms), &mut dropped).unwrap().mark {
                marks.push(ms);
            }
        }
        assert_eq!(marks, vec![445, 503]);
        assert_eq!(q.count(), 4);
    }

    #[test]
    fn without_count_reuse_a_soon_reentry_starts_at_one() {
        // The same two episodes as above, but the re-entry at 445 ms takes count = 1, so the
        // next mark is due 100 ms later, at 545 ms (count 2 then puts the one after at
        // 545 + 100/√2 = 615.7 ms, past this window).
        let cfg = CodelConfig { count_reuse: false, ..mark_cfg(1.0) };
        let mut q = Codel::new(&cfg, CodelMode::Mark);
        assert_eq!(act_times(&mut q, 340, 340), vec![105, 205, 276, 334]);
        let mut dropped = Vec::new();
        q.enqueue(pkt(0), at_ms(340));
        q.dequeue(at_ms(340), &mut dropped);
        for s in 0..300 {
            q.enqueue(pkt(s), at_ms(340));
        }
        let mut marks = Vec::new();
        for ms in 341..600 {
            if q.dequeue(at_ms(ms), &mut dropped).unwrap().mark {
                marks.push(ms);
            }
        }
        assert_eq!(marks, vec![445, 545]);
        assert_eq!(q.count(), 2);
    }

    #[test]
    fn reentering_long_after_leaving_starts_the_count_at_one() {
        // Same first episode (count 4, drop_next 383.445705 ms). Re-entry at 2,105 ms is
        // 1.72 s after drop_next, not < 16 x 100 ms, so count = 1: next mark 100 ms later.
        let mut q = Codel::new(&mark_cfg(1.0), CodelMode::Mark);
        act_times(&mut q, 340, 340);
        let mut dropped = Vec::new();
        q.enqueue(pkt(0), at_ms(340));
        q.dequeue(at_ms(340), &mut dropped);
        for s in 0..300 {
            q.enqueue(pkt(s), at_ms(2000));
        }
        let mut marks = Vec::new();
        for ms in 2001..2220 {
            if q.dequeue(at_ms(ms), &mut dropped).unwrap().mark {
                marks.push(ms);
            }
        }
        assert_eq!(marks, vec![2105, 2205]);
    }

    #[test]
    fn mark_mode_never_drops_below_the_limit() {
        let mut q = Codel::new(&CodelMarkConfig::default().as_codel(), CodelMode::Mark);
        for s in 0..200 {
            assert_eq!(q.enqueue(pkt(s), SimTime::ZERO), Verdict::Queued);
        }
        assert_eq!(q.enqueue(pkt(200), SimTime::ZERO), Verdict::Dropped);
        // Drain slowly (one packet per 5 ms, 1 s of sojourn at the end): all 200 come out.
        let mut dropped = Vec::new();
        let mut out = 0;
        let mut marks = 0;
        for i in 0..200 {
            let d = q.dequeue(at_ms(5 * i), &mut dropped).unwrap();
            out += 1;
            marks += d.mark as u32;
        }
        assert!(dropped.is_empty());
        assert_eq!(out, 200);
        assert!(marks > 0);
    }

    #[test]
    fn drop_mode_ignores_sojourn_while_less_than_min_bytes_wait() {
        // One 1000-byte packet at a time, each waiting 50 ms: the queue behind the head is
        // empty (0 < 1500 bytes), so CoDel never acts.
        let mut q = Codel::new(&CodelConfig::default(), CodelMode::Drop);
        let mut dropped = Vec::new();
        for i in 0..20 {
            q.enqueue(pkt(i), at_ms(50 * i));
            assert!(q.dequeue(at_ms(50 * i + 50), &mut dropped).is_some());
        }
        assert!(dropped.is_empty());
        assert!(!q.is_congested());
        // With min_bytes = 0 the same pattern drops: the 50 ms dequeue sets first_above
        // = 50 + 100 = 150 ms, and the dequeue at 150 ms drops its packet.
        let mut q = Codel::new(&CodelConfig { min_bytes: Bytes(0), ..CodelConfig::default() }, CodelMode::Drop);
        for i in 0..20 {
            q.enqueue(pkt(i), at_ms(50 * i));
            q.dequeue(at_ms(50 * i + 50), &mut dropped);
        }
        assert!(!dropped.is_empty());
    }

    fn next_arrival(limit: usize) -> Codel {
        Codel::new(&CodelConfig { limit, ..mark_cfg(1.0) }, CodelMode::Mark).marking_on(MarkOn::NextArrival)
    }

    #[test]
    fn with_next_arrival_the_packet_joining_after_a_decision_carries_the_mark() {
        // 300 packets at t = 0, one dequeue per ms: the schedule decides at 105 ms, as in the
        // head-marking test, but the packet judged then leaves unmarked.
        let mut q = next_arrival(1000);
        for s in 0..300 {
            q.enqueue(pkt(s), SimTime::ZERO);
        }
        let mut dropped = Vec::new();
        for ms in 0..=105 {
            assert!(!q.dequeue(at_ms(ms), &mut dropped).unwrap().mark);
        }
        // The next arrival (segment 1000, at 106 ms) takes the mark; the one after it does not.
        assert_eq!(q.enqueue(pkt(1000), at_ms(106)), Verdict::Queued);
        assert_eq!(q.enqueue(pkt(1001), at_ms(106)), Verdict::Queued);
        // It leaves behind the 194 packets still ahead of it, marked.
        let marked: Vec<u64> = (106..=301)
            .filter_map(|ms| q.dequeue(at_ms(ms), &mut dropped))
            .filter(|d| d.mark)
            .map(|d| d.packet.name().unwrap().seg)
            .collect();
        assert_eq!(marked, vec![1000]);
        assert!(dropped.is_empty());
    }

    #[test]
    fn a_pending_mark_is_lost_when_the_queue_fell_below_target_before_the_next_arrival() {
        let mut dropped = Vec::new();
        // Decided at 105 ms; the queue then drains below target before anything arrives: the
        // next arrival is asked, and is not marked (nor is any later one).
        let mut q = next_arrival(1000);
        for s in 0..106 {
            q.enqueue(pkt(s), SimTime::ZERO);
        }
        for ms in 0..=105 {
            q.dequeue(at_ms(ms), &mut dropped);
        }
        assert!(q.dequeue(at_ms(106), &mut dropped).is_none());
        q.enqueue(pkt(500), at_ms(107));
        q.enqueue(pkt(501), at_ms(107));
        assert!(!q.dequeue(at_ms(107), &mut dropped).unwrap().mark);
        assert!(!q.dequeue(at_ms(108), &mut dropped).unwrap().mark);
    }

    #[test]
    fn validation_names_the_offending_key() {
        let zero = CodelConfig { interval: Duration::from_millis(0), ..CodelConfig::default() };
        assert!(zero.validate().unwrap_err().key == "interval");
        let bad = CodelMarkConfig { spacing_factor: f64::NAN, ..CodelMarkConfig::default() };
        assert!(bad.validate().unwrap_err().key == "spacing_factor");
        let empty = CodelMarkConfig { limit: 0, ..CodelMarkConfig::default() };
        assert!(empty.validate().unwrap_err().key == "limit");
        assert!(CodelConfig::default().validate().is_ok());
        assert!(CodelMarkConfig::default().validate().is_ok());
    }
}
