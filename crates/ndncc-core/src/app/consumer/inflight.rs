//! The consumer's table of Interests in flight: one slot per outstanding segment in a short
//! sliding window, with the retransmission timers kept as a lazily cleaned FIFO (or min-heap
//! when each Interest keeps its own RTO) instead of one event per Interest.

use std::cmp::Reverse;
use std::collections::{BinaryHeap, VecDeque};

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
    len: usize,
    timers: Timers,
    per_interest_rto: bool,
}

/// Retransmission timers, as (key, order, seq): key = send time, or deadline when each Interest
/// keeps its own RTO. Stale items (answered, or superseded by a resend) are skipped lazily.
enum Timers {
    /// Keys are send times, which never decrease: a FIFO is already in key order.
    Fifo(VecDeque<(SimTime, u64, u64)>),
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
}

impl InFlight {
    /// `track_holes` is kept for the callers' sake: holes are found from the slots directly.
    pub fn new(per_interest_rto: bool, _track_holes: bool) -> InFlight {
        InFlight {
            slots: VecDeque::new(),
            base: 0,
            len: 0,
            timers: if per_interest_rto { Timers::Heap(BinaryHeap::new()) } else { Timers::Fifo(VecDeque::new()) },
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
        let i = usize::try_from(seq.checked_sub(self.base)?).ok()?;
        self.slots.get(i)?.as_ref()
    }
    pub fn contains(&self, seq: u64) -> bool {
        self.slot(seq).is_some()
    }

    pub fn insert(&mut self, seq: u64, o: Outstanding) {
        let key = if self.per_interest_rto { o.sent_at + o.rto } else { o.sent_at };
        self.timers.push((key, o.order, seq));
        if self.slots.is_empty() {
            self.base = seq;
        }
        while seq < self.base {
            self.slots.push_front(None);
            self.base -= 1;
        }
        let i = (seq - self.base) as usize;
        if i >= self.slots.len() {
            self.slots.resize(i + 1, None);
        }
        if self.slots[i].replace(o).is_none() {
            self.len += 1;
        }
    }

    pub fn remove(&mut self, seq: u64) -> Option<Outstanding> {
        let i = usize::try_from(seq.checked_sub(self.base)?).ok()?;
        let o = self.slots.get_mut(i)?.take()?;
        self.len -= 1;
        // Keep the window short: drop empty slots at both ends.
        while matches!(self.slots.front(), Some(None)) {
            self.slots.pop_front();
            self.base += 1;
        }
        while matches!(self.slots.back(), Some(None)) {
            self.slots.pop_back();
        }
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
        let mut f = InFlight::new(false, false);
        f.insert(1, out(0, 0));
        f.insert(2, out(10, 1));
        assert_eq!(f.next_deadline(SimDuration(50)), Some(SimTime(50)));
        assert_eq!(f.pop_expired(SimTime(55), SimDuration(50)).map(|x| x.0), Some(1));
        assert_eq!(f.pop_expired(SimTime(55), SimDuration(50)), None);
        assert_eq!(f.pop_expired(SimTime(60), SimDuration(50)).map(|x| x.0), Some(2));
    }

    #[test]
    fn a_resent_segment_leaves_its_old_timer_stale() {
        let mut f = InFlight::new(false, false);
        f.insert(1, out(0, 0));
        f.remove(1);
        f.insert(1, out(500, 1));
        assert_eq!(f.next_deadline(SimDuration(50)), Some(SimTime(550)));
    }

    #[test]
    fn per_interest_timers_use_the_rto_each_was_sent_with() {
        let mut f = InFlight::new(true, false);
        f.insert(1, Outstanding { rto: SimDuration(300), ..out(0, 0) });
        f.insert(2, Outstanding { rto: SimDuration(100), ..out(10, 1) });
        assert_eq!(f.next_deadline(SimDuration(1)), Some(SimTime(110)));
    }

    #[test]
    fn holes_are_lower_segments_sent_earlier_and_reported_once() {
        let mut f = InFlight::new(false, true);
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
}
