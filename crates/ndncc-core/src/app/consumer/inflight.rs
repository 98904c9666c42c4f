//! The consumer's table of Interests in flight: one entry per outstanding segment, with the
//! retransmission timers kept as a lazily cleaned min-heap instead of one event per Interest.

use std::cmp::Reverse;
use std::collections::{BTreeMap, BinaryHeap};

use rustc_hash::FxHashMap;

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
    map: FxHashMap<u64, Outstanding>,
    /// (key, order, seq): key = send time, or deadline when each Interest keeps its own RTO.
    timers: BinaryHeap<Reverse<(SimTime, u64, u64)>>,
    /// seq → order, kept only when holes are detected.
    by_seq: Option<BTreeMap<u64, u64>>,
    per_interest_rto: bool,
}

impl InFlight {
    pub fn new(per_interest_rto: bool, track_holes: bool) -> InFlight {
        InFlight {
            map: FxHashMap::default(),
            timers: BinaryHeap::new(),
            by_seq: track_holes.then(BTreeMap::new),
            per_interest_rto,
        }
    }

    pub fn len(&self) -> usize {
        self.map.len()
    }
    pub fn is_empty(&self) -> bool {
        self.map.is_empty()
    }
    pub fn contains(&self, seq: u64) -> bool {
        self.map.contains_key(&seq)
    }

    pub fn insert(&mut self, seq: u64, o: Outstanding) {
        let key = if self.per_interest_rto { o.sent_at + o.rto } else { o.sent_at };
        self.timers.push(Reverse((key, o.order, seq)));
        if let Some(b) = &mut self.by_seq {
            b.insert(seq, o.order);
        }
        self.map.insert(seq, o);
    }

    pub fn remove(&mut self, seq: u64) -> Option<Outstanding> {
        let o = self.map.remove(&seq)?;
        if let Some(b) = &mut self.by_seq {
            b.remove(&seq);
        }
        Some(o)
    }

    /// Drop heap items whose transmission is gone (answered, or superseded by a resend).
    fn clean_top(&mut self) {
        while let Some(Reverse((_, order, seq))) = self.timers.peek().copied() {
            match self.map.get(&seq) {
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
        self.timers.peek().map(|Reverse((key, _, _))| if self.per_interest_rto { *key } else { *key + rto })
    }

    /// Remove and return one transmission whose deadline is at or before `now`.
    pub fn pop_expired(&mut self, now: SimTime, rto: SimDuration) -> Option<(u64, Outstanding)> {
        let deadline = self.next_deadline(rto)?;
        if deadline > now {
            return None;
        }
        let Reverse((_, _, seq)) = self.timers.pop()?;
        self.remove(seq).map(|o| (seq, o))
    }

    /// Segments below `seq`, sent before transmission `order`, still missing and not yet
    /// reported: each is a new hole. They are marked reported.
    pub fn new_holes_below(&mut self, seq: u64, order: u64, out: &mut Vec<u64>) {
        let Some(b) = &self.by_seq else { return };
        for (&s, &o) in b.range(..seq) {
            if o < order {
                if let Some(e) = self.map.get_mut(&s) {
                    if !e.hole_reported {
                        e.hole_reported = true;
                        out.push(s);
                    }
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
