//! The event queue: a min-heap ordered by (time, insertion sequence). Ties break FIFO, so a run
//! is bit-for-bit repeatable. Time never goes back; cancellation is lazy (events carry a
//! generation or are checked against the state they wake).

use std::cmp::Ordering;
use std::collections::BinaryHeap;

use crate::time::SimTime;

struct Entry<E> {
    time: SimTime,
    seq: u64,
    event: E,
}

impl<E> PartialEq for Entry<E> {
    fn eq(&self, other: &Self) -> bool {
        self.time == other.time && self.seq == other.seq
    }
}
impl<E> Eq for Entry<E> {}
impl<E> PartialOrd for Entry<E> {
    fn partial_cmp(&self, other: &Self) -> Option<Ordering> {
        Some(self.cmp(other))
    }
}
impl<E> Ord for Entry<E> {
    /// Reversed so that `BinaryHeap` (a max-heap) pops the earliest (time, seq) first.
    fn cmp(&self, other: &Self) -> Ordering {
        other.time.cmp(&self.time).then_with(|| other.seq.cmp(&self.seq))
    }
}

pub struct EventQueue<E> {
    heap: BinaryHeap<Entry<E>>,
    next_seq: u64,
    now: SimTime,
    popped: u64,
    /// The first event ever scheduled in the past: (its time, the time it was scheduled at).
    past: Option<(SimTime, SimTime)>,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue { heap: BinaryHeap::new(), next_seq: 0, now: SimTime::ZERO, popped: 0, past: None }
    }
}

impl<E> EventQueue<E> {
    /// Schedule `event` at `time`. Scheduling in the past is a bug in the caller: the event
    /// runs now, and `past_event` reports it so the run can stop with an error.
    #[inline]
    pub fn schedule(&mut self, time: SimTime, event: E) {
        let seq = self.take_seq();
        self.schedule_keyed(time, seq, event);
    }

    /// A place in the order of events at one instant, taken now: an event scheduled later with
    /// `schedule_keyed(time, seq, …)` runs exactly where one scheduled now at `time` would.
    /// This lets a component keep its own time-ordered FIFO of pending items (packets in flight
    /// on a link) and put only its head in the queue.
    #[inline]
    pub fn take_seq(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq - 1
    }

    /// Schedule `event` at `time` with an order key from `take_seq`.
    #[inline]
    pub fn schedule_keyed(&mut self, time: SimTime, seq: u64, event: E) {
        if time < self.now && self.past.is_none() {
            self.past = Some((time, self.now));
        }
        let time = time.max(self.now);
        self.heap.push(Entry { time, seq, event });
    }

    /// The first event scheduled in the past, as (its time, when it was scheduled), if any.
    pub fn past_event(&self) -> Option<(SimTime, SimTime)> {
        self.past
    }

    /// The next event, advancing the clock to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let e = self.heap.pop()?;
        assert!(e.time >= self.now, "time went backwards");
        self.now = e.time;
        self.popped += 1;
        Some((e.time, e.event))
    }

    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.peek().map(|e| e.time)
    }
    pub fn now(&self) -> SimTime {
        self.now
    }
    pub fn len(&self) -> usize {
        self.heap.len()
    }
    pub fn is_empty(&self) -> bool {
        self.heap.is_empty()
    }
    /// Events popped so far.
    pub fn processed(&self) -> u64 {
        self.popped
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn events_pop_in_time_order_and_ties_in_insertion_order() {
        let mut q = EventQueue::default();
        q.schedule(SimTime(20), "c");
        q.schedule(SimTime(10), "a");
        q.schedule(SimTime(10), "b");
        q.schedule(SimTime(30), "d");
        let order: Vec<_> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!["a", "b", "c", "d"]);
        assert_eq!(q.now(), SimTime(30));
        assert_eq!(q.processed(), 4);
    }

    #[test]
    fn a_keyed_event_runs_where_it_would_have_if_scheduled_when_its_key_was_taken() {
        let mut q = EventQueue::default();
        let k = q.take_seq(); // reserved first
        q.schedule(SimTime(10), "b");
        q.schedule_keyed(SimTime(10), k, "a");
        q.schedule(SimTime(5), "first");
        let order: Vec<_> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!["first", "a", "b"]);
    }

    #[test]
    fn an_event_scheduled_in_the_past_runs_now_and_is_reported() {
        let mut q = EventQueue::default();
        q.schedule(SimTime(10), "a");
        q.pop();
        assert_eq!(q.past_event(), None);
        q.schedule(SimTime(4), "late");
        assert_eq!(q.past_event(), Some((SimTime(4), SimTime(10))));
        assert_eq!(q.pop(), Some((SimTime(10), "late")));
    }
}
