//! The consumer's table of Interests in flight: one slot per outstanding segment in a short
//! sliding window, with the retransmission timers kept as a lazily cleaned FIFO (or min-heap
//! when each Interest keeps its own RTO) instead of one event per Interest.
//!
//! Memory follows the Interests in flight, not the span of segment numbers between the oldest
//! and the newest: a segment lost again and again (each resend waiting out a backed-off RTO)
//! would otherwise hold the window's start while the window runs on, and the window would grow
//! with rate × time. Such stragglers move to an ordered side table once the window gets sparse,
//! and stale timer items are swept out once they outnumber the live ones.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};

use crate::ring::Ring;
use crate::time::{SimDuration, SimTime};

/// One outstanding Interest transmission.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Outstanding {
    pub sent_at: SimTime,
    /// How many times this segment had been sent before this transmission.
    pub retx: u32,
    /// Global send order of this transmission (for hole detection and stale-timer checks).
    pub order: u64,
    /// The RTO when it was sent (used when timers are per Interest).
    pub rto: SimDuration,
    /// This transmission was already reported as a sequence hole.
    pub hole_reported: bool,
}

pub struct InFlight {
    /// Outstanding transmissions by segment: slot `i` holds segment `base + i`. Segments are
    /// requested in order and answered mostly in order, so the window stays short.
    slots: VecDeque<Option<Outstanding>>,
    base: u64,
    /// Outstanding segments left far behind the window, all below `base` while the window is
    /// not empty. Usually empty.
    stragglers: BTreeMap<u64, Outstanding>,
    /// Outstanding transmissions, window and stragglers together.
    len: usize,
    /// `WINDOW_SLACK`, smaller in tests so that they reach the side tables.
    slack: usize,
    timers: Timers,
    per_interest_rto: bool,
}

/// Retransmission timers, as (key, order, seq): key = send time, or deadline when each Interest
/// keeps its own RTO. Stale items (answered, or superseded by a resend) are skipped lazily.
enum Timers {
    /// Keys are send times, which never decrease: a FIFO is already in key order.
    Fifo(Ring<(SimTime, u64, u64)>),
    /// Keys are deadlines, in any order.
    Heap(BinaryHeap<Reverse<(SimTime, u64, u64)>>),
}

impl Timers {
    fn push(&mut self, item: (SimTime, u64, u64)) {
        match self {
            Timers::Fifo(q) => q.push_back(item),
            Timers::Heap(h) => h.push(Reverse(item)),
        }
    }
    fn peek(&self) -> Option<(SimTime, u64, u64)> {
        match self {
            Timers::Fifo(q) => q.front().copied(),
            Timers::Heap(h) => h.peek().map(|Reverse(x)| *x),
        }
    }
    fn pop(&mut self) -> Option<(SimTime, u64, u64)> {
        match self {
            Timers::Fifo(q) => q.pop_front(),
            Timers::Heap(h) => h.pop().map(|Reverse(x)| x),
        }
    }
    fn len(&self) -> usize {
        match self {
            Timers::Fifo(q) => q.len(),
            Timers::Heap(h) => h.len(),
        }
    }
    /// Keep only the items `live` accepts. Items are unique (by send order), so the heap pops
    /// the survivors in the same order as before.
    fn retain(&mut self, mut live: impl FnMut(&(SimTime, u64, u64)) -> bool) {
        match self {
            Timers::Fifo(q) => q.retain(|x| live(x)),
            Timers::Heap(h) => h.retain(|Reverse(x)| live(x)),
        }
    }
}

/// A window this much longer than twice what it holds is sparse: its oldest entries move to the
/// straggler table. The slack keeps small windows (and the common case) away from the side table.
/// Where entries lie changes no result, only memory and speed: with 1,024, each of the 1,000
/// consumers of `tree-1111` (window 4, many timeouts) held a window of up to a thousand mostly
/// empty slots behind a segment lost again and again, 19 MB in all, and each Data touched a
/// scattered slot of it.
const WINDOW_SLACK: usize = 64;

/// The transmission of segment `seq`, in the window or among the stragglers.
fn find<'a>(
    slots: &'a VecDeque<Option<Outstanding>>,
    base: u64,
    stragglers: &'a BTreeMap<u64, Outstanding>,
    seq: u64,
) -> Option<&'a Outstanding> {
    let in_window = seq.checked_sub(base).and_then(|i| usize::try_from(i).ok()).and_then(|i| slots.get(i));
    match in_window {
        Some(slot) => slot.as_ref(),
        None => stragglers.get(&seq),
    }
}

/// How a consumer keeps the retransmission timers of its Interests.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum RtoTimers {
    /// Every Interest waits out the consumer's current RTO: timers fall due in the order the
    /// Interests were sent (a FIFO).
    Shared,
    /// Each Interest waits out the RTO it was sent with (a heap).
    PerInterest,
}

impl InFlight {
    pub fn new(timers: RtoTimers) -> InFlight {
        let per_interest_rto = timers == RtoTimers::PerInterest;
        InFlight {
            slots: VecDeque::new(),
            base: 0,
            stragglers: BTreeMap::new(),
            len: 0,
            slack: WINDOW_SLACK,
            timers: if per_interest_rto { Timers::Heap(BinaryHeap::new()) } else { Timers::Fifo(Ring::new()) },
            per_interest_rto,
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    fn slot(&self, seq: u64) -> Option<&Outstanding> {
        find(&self.slots, self.base, &self.stragglers, seq)
    }
    pub fn contains(&self, seq: u64) -> bool {
        self.slot(seq).is_some()
    }

    pub fn insert(&mut self, seq: u64, o: Outstanding) {
        let key = if self.per_interest_rto { o.sent_at + o.rto } else { o.sent_at };
        self.timers.push((key, o.order, seq));
        self.place(seq, o);
        self.sweep_timers_if_sparse();
    }

    /// Put `o` in the window, or among the stragglers when it belongs below them or far below
    /// the window.
    fn place(&mut self, seq: u64, o: Outstanding) {
        // Above the last straggler (nearly every new Interest) `seq` is none of them, and the
        // search for it is skipped.
        let above_stragglers = self.stragglers.last_key_value().is_none_or(|(&last, _)| seq > last);
        if !above_stragglers {
            if let Some(old) = self.stragglers.get_mut(&seq) {
                *old = o;
                return;
            }
        }
        if self.slots.is_empty() {
            if !above_stragglers {
                self.stragglers.insert(seq, o);
                self.len += 1;
                return;
            }
            self.base = seq;
        }
        if seq < self.base {
            let near = self.base - seq <= (self.slots.len() + self.slack) as u64;
            if !(near && above_stragglers) {
                self.stragglers.insert(seq, o);
                self.len += 1;
                return;
            }
            while seq < self.base {
                self.slots.push_front(None);
                self.base -= 1;
            }
        }
        let i = (seq - self.base) as usize;
        if i >= self.slots.len() {
            self.slots.resize(i + 1, None);
        }
        if self.slots[i].replace(o).is_none() {
            self.len += 1;
        }
        self.spill_if_sparse();
    }

    /// A window much longer than what it holds moves its oldest entries to the stragglers.
    fn spill_if_sparse(&mut self) {
        let in_window = self.len - self.stragglers.len();
        while self.slots.len() > 2 * in_window + self.slack {
            if let Some(Some(o)) = self.slots.pop_front() {
                self.stragglers.insert(self.base, o);
            }
            self.base += 1;
            self.trim_window();
        }
    }

    /// Drop empty slots at both ends of the window.
    fn trim_window(&mut self) {
        while matches!(self.slots.front(), Some(None)) {
            self.slots.pop_front();
            self.base += 1;
        }
        while matches!(self.slots.back(), Some(None)) {
            self.slots.pop_back();
        }
    }

    /// Stale timer items (answered, or superseded by a resend) are skipped when they reach the
    /// front; behind a long-lived one they pile up, so sweep them once they outnumber the live.
    fn sweep_timers_if_sparse(&mut self) {
        if self.timers.len() <= 2 * self.len + self.slack {
            return;
        }
        let (slots, base, stragglers) = (&self.slots, self.base, &self.stragglers);
        self.timers.retain(|&(_, order, seq)| find(slots, base, stragglers, seq).is_some_and(|o| o.order == order));
    }

    pub fn remove(&mut self, seq: u64) -> Option<Outstanding> {
        let in_window =
            seq.checked_sub(self.base).and_then(|i| usize::try_from(i).ok()).filter(|&i| i < self.slots.len());
        let o = match in_window {
            Some(i) => {
                let o = self.slots[i].take()?;
                // Keep the window short.
                self.trim_window();
                o
            }
            None => self.stragglers.remove(&seq)?,
        };
        self.len -= 1;
        Some(o)
    }

    /// Drop timer items whose transmission is gone (answered, or superseded by a resend).
    fn clean_top(&mut self) {
        while let Some((_, order, seq)) = self.timers.peek() {
            match self.slot(seq) {
                Some(o) if o.order == order => return,
                _ => {
                    self.timers.pop();
                }
            }
        }
    }

    /// When the oldest transmission times out, given the current RTO.
    pub fn next_deadline(&mut self, rto: SimDuration) -> Option<SimTime> {
        self.clean_top();
        self.deadline_bound(rto)
    }

    /// No transmission times out before this, given the current RTO: the deadline of the
    /// oldest timer item, answered or not. Answered items leave the queue lazily, so this may
    /// come before the first live one; after `clean_top` it is that one.
    pub fn deadline_bound(&self, rto: SimDuration) -> Option<SimTime> {
        self.timers.peek().map(|(key, _, _)| if self.per_interest_rto { key } else { key + rto })
    }

    /// Remove and return one transmission whose deadline is at or before `now`.
    pub fn pop_expired(&mut self, now: SimTime, rto: SimDuration) -> Option<(u64, Outstanding)> {
        let deadline = self.next_deadline(rto)?;
        if deadline > now {
            return None;
        }
        let (_, _, seq) = self.timers.pop()?;
        self.remove(seq).map(|o| (seq, o))
    }

    /// Segments below `seq`, sent before transmission `order`, still missing and not yet
    /// reported: each is a new hole. They are marked reported.
    pub fn new_holes_below(&mut self, seq: u64, order: u64, out: &mut Vec<u64>) {
        // Stragglers lie below the window, so reporting them first keeps `out` in segment order.
        for (&s, e) in self.stragglers.range_mut(..seq) {
            if e.order < order && !e.hole_reported {
                e.hole_reported = true;
                out.push(s);
            }
        }
        let end = seq.saturating_sub(self.base).min(self.slots.len() as u64) as usize;
        for (i, slot) in self.slots.iter_mut().take(end).enumerate() {
            if let Some(e) = slot {
                if e.order < order && !e.hole_reported {
                    e.hole_reported = true;
                    out.push(self.base + i as u64);
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn out(sent: u64, order: u64) -> Outstanding {
        Outstanding { sent_at: SimTime(sent), retx: 0, order, rto: SimDuration(100), hole_reported: false }
    }

    #[test]
    fn the_oldest_transmission_expires_first_with_the_current_rto() {
        let mut f = InFlight::new(RtoTimers::Shared);
        f.insert(1, out(0, 0));
        f.insert(2, out(10, 1));
        assert_eq!(f.next_deadline(SimDuration(50)), Some(SimTime(50)));
        assert_eq!(f.pop_expired(SimTime(55), SimDuration(50)).map(|x| x.0), Some(1));
        assert_eq!(f.pop_expired(SimTime(55), SimDuration(50)), None);
        assert_eq!(f.pop_expired(SimTime(60), SimDuration(50)).map(|x| x.0), Some(2));
    }

    #[test]
    fn a_resent_segment_leaves_its_old_timer_stale() {
        let mut f = InFlight::new(RtoTimers::Shared);
        f.insert(1, out(0, 0));
        f.remove(1);
        f.insert(1, out(500, 1));
        assert_eq!(f.next_deadline(SimDuration(50)), Some(SimTime(550)));
    }

    #[test]
    fn per_interest_timers_use_the_rto_each_was_sent_with() {
        let mut f = InFlight::new(RtoTimers::PerInterest);
        f.insert(1, Outstanding { rto: SimDuration(300), ..out(0, 0) });
        f.insert(2, Outstanding { rto: SimDuration(100), ..out(10, 1) });
        assert_eq!(f.next_deadline(SimDuration(1)), Some(SimTime(110)));
    }

    #[test]
    fn holes_are_lower_segments_sent_earlier_and_reported_once() {
        let mut f = InFlight::new(RtoTimers::Shared);
        f.insert(3, out(0, 0));
        f.insert(4, out(0, 1));
        f.insert(5, out(0, 2));
        f.remove(5); // Data for 5 (order 2) arrives
        let mut holes = Vec::new();
        f.new_holes_below(5, 2, &mut holes);
        assert_eq!(holes, vec![3, 4]);
        holes.clear();
        f.new_holes_below(6, 9, &mut holes);
        assert!(holes.is_empty());
    }

    #[test]
    fn a_segment_lost_again_and_again_does_not_stretch_the_window() {
        // Segment 0 stays outstanding while 200,000 later segments come and go, 50 at a time.
        let mut f = InFlight::new(RtoTimers::Shared);
        f.insert(0, out(0, 0));
        for seq in 1..200_000u64 {
            f.insert(seq, out(seq, seq));
            if seq > 50 {
                f.remove(seq - 50);
            }
        }
        assert!(f.slots.len() <= 2 * 51 + WINDOW_SLACK, "window of {} slots", f.slots.len());
        assert!(f.timers.len() <= 2 * 51 + WINDOW_SLACK, "{} timer items", f.timers.len());
        assert_eq!(f.len(), 51);
        assert!(f.contains(0));
        let mut holes = Vec::new();
        f.new_holes_below(199_999, 199_999, &mut holes);
        assert_eq!(holes, (0..1).chain(199_950..199_999).collect::<Vec<_>>());
        assert_eq!(f.pop_expired(SimTime(10), SimDuration(5)).map(|x| x.0), Some(0));
        assert!(!f.contains(0));
    }

    /// A plain ordered map of the same transmissions: what the window and its side tables must
    /// answer.
    #[derive(Default)]
    struct Reference {
        live: BTreeMap<u64, Outstanding>,
        reported: std::collections::BTreeSet<(u64, u64)>,
    }

    impl Reference {
        fn pop_expired(&mut self, now: SimTime, rto: SimDuration, per_interest: bool) -> Option<u64> {
            let key = |o: &Outstanding| if per_interest { (o.sent_at + o.rto, o.order) } else { (o.sent_at, o.order) };
            let (&seq, o) = self.live.iter().min_by_key(|(_, o)| key(o))?;
            let deadline = if per_interest { o.sent_at + o.rto } else { o.sent_at + rto };
            (deadline <= now).then(|| {
                self.live.remove(&seq);
                seq
            })
        }
        fn holes(&mut self, seq: u64, order: u64) -> Vec<u64> {
            let mut out = Vec::new();
            for (&s, o) in self.live.range(..seq) {
                if o.order < order && self.reported.insert((s, o.order)) {
                    out.push(s);
                }
            }
            out
        }
    }

    proptest::proptest! {
        #[test]
        fn the_table_answers_like_an_ordered_map(
            per_interest in proptest::bool::ANY,
            slack in 0usize..8,
            ops in proptest::collection::vec((0u8..4, 0u64..3000, 1u64..400), 1..400),
        ) {
            let mut f = InFlight::new(if per_interest { RtoTimers::PerInterest } else { RtoTimers::Shared });
            f.slack = slack;
            let mut r = Reference::default();
            let (mut now, mut order) = (0u64, 0u64);
            for (op, a, b) in ops {
                now += b;
                match op {
                    0 | 1 => {
                        // Mostly new segments near the front, sometimes old ones far behind.
                        let seq = if op == 0 { r.live.keys().next_back().map_or(0, |k| k + 1) + a % 5 } else { a };
                        let o = Outstanding { sent_at: SimTime(now), retx: 0, order, rto: SimDuration(b * 7), hole_reported: false };
                        order += 1;
                        f.insert(seq, o);
                        r.live.insert(seq, o);
                    }
                    2 => {
                        let seq = r.live.keys().nth(a as usize % r.live.len().max(1)).copied().unwrap_or(a);
                        proptest::prop_assert_eq!(f.remove(seq).map(|o| o.order), r.live.remove(&seq).map(|o| o.order));
                    }
                    _ => {
                        let rto = SimDuration(b * 5);
                        proptest::prop_assert_eq!(f.pop_expired(SimTime(now), rto).map(|x| x.0), r.pop_expired(SimTime(now), rto, per_interest));
                        let mut holes = Vec::new();
                        f.new_holes_below(a, order.saturating_sub(b), &mut holes);
                        proptest::prop_assert_eq!(holes, r.holes(a, order.saturating_sub(b)));
                    }
                }
                proptest::prop_assert_eq!(f.len(), r.live.len());
                for (&seq, o) in &r.live {
                    proptest::prop_assert_eq!(f.slot(seq).map(|x| (x.order, x.sent_at)), Some((o.order, o.sent_at)));
                }
            }
        }
    }
}
