//! The event queue: a min-heap ordered by (time, insertion sequence). Ties break FIFO, so a run
//! is bit-for-bit repeatable. Time never goes back; cancellation is lazy (events carry a
//! generation or are checked against the state they wake).

use crate::time::SimTime;

/// One scheduled event with its order key: time in the high 64 bits, insertion sequence in
/// the low, so that one integer compare orders by (time, seq).
#[derive(Clone, Copy)]
struct Entry<E> {
    key: u128,
    event: E,
}

impl<E> Entry<E> {
    #[inline(always)]
    fn time(&self) -> SimTime {
        SimTime((self.key >> 64) as u64)
    }
}

/// A binary min-heap on (time, seq) in a `Vec`, written out here rather than taken from
/// `std::collections::BinaryHeap` so that push and pop are inline and compile into the event
/// loop whatever codegen unit the loop lands in (std's heap methods are not `#[inline]`, and
/// when they land in another unit every event pays two calls). The sifts are std's, so the
/// order is the same.
pub struct EventQueue<E> {
    heap: Vec<Entry<E>>,
    next_seq: u64,
    now: SimTime,
    popped: u64,
    /// The first event ever scheduled in the past: (its time, the time it was scheduled at).
    past: Option<(SimTime, SimTime)>,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue { heap: Vec::new(), next_seq: 0, now: SimTime::ZERO, popped: 0, past: None }
    }
}

impl<E: Copy> EventQueue<E> {
    /// Schedule `event` at `time`. Scheduling in the past is a bug in the caller: the event
    /// runs now, and `past_event` reports it so the run can stop with an error.
    #[inline]
    pub fn schedule(&mut self, time: SimTime, event: E) {
        let seq = self.take_seq();
        self.schedule_keyed(time, seq, event);
    }

    /// Schedule `event` at `time` with an order key from `take_seq`. Always inline: a push is
    /// a few compares, on the path of every packet.
    #[inline(always)]
    pub fn schedule_keyed(&mut self, time: SimTime, seq: u64, event: E) {
        if time < self.now && self.past.is_none() {
            self.past = Some((time, self.now));
        }
        let time = time.max(self.now);
        let entry = Entry { key: (u128::from(time.0) << 64) | u128::from(seq), event };
        self.heap.push(entry);
        let last = self.heap.len() - 1;
        sift_up(&mut self.heap, last, entry);
    }

    /// The next event, advancing the clock to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let last = self.heap.pop()?;
        let e = match self.heap.first().copied() {
            Some(first) => {
                sift_down_to_bottom(&mut self.heap, last);
                first
            }
            None => last,
        };
        let time = e.time();
        assert!(time >= self.now, "time went backwards");
        self.now = time;
        self.popped += 1;
        Some((time, e.event))
    }
}

/// Put `entry` at `pos` or above: move it up past every parent that runs after it.
#[inline(always)]
fn sift_up<E: Copy>(heap: &mut [Entry<E>], mut pos: usize, entry: Entry<E>) {
    while pos > 0 {
        let parent = (pos - 1) / 2;
        if entry.key >= heap[parent].key {
            break;
        }
        heap[pos] = heap[parent];
        pos = parent;
    }
    heap[pos] = entry;
}

/// Fill the root's place with `entry`: move the earlier child up all the way down to a leaf,
/// then sift `entry` up from there (fewer compares than a plain sift-down: `entry` came from
/// the bottom and likely belongs there).
#[inline(always)]
fn sift_down_to_bottom<E: Copy>(heap: &mut [Entry<E>], entry: Entry<E>) {
    let end = heap.len();
    let mut pos = 0;
    let mut child = 1;
    while child < end.saturating_sub(1) {
        // Of two children with equal keys the right one, as std's heap takes.
        child += usize::from(heap[child].key >= heap[child + 1].key);
        heap[pos] = heap[child];
        pos = child;
        child = 2 * pos + 1;
    }
    if child == end - 1 {
        heap[pos] = heap[child];
        pos = child;
    }
    sift_up(heap, pos, entry);
}

impl<E> EventQueue<E> {
    /// A place in the order of events at one instant, taken now: an event scheduled later with
    /// `schedule_keyed(time, seq, …)` runs exactly where one scheduled now at `time` would.
    /// This lets a component keep its own time-ordered FIFO of pending items (packets in flight
    /// on a link) and put only its head in the queue.
    #[inline]
    pub fn take_seq(&mut self) -> u64 {
        self.next_seq += 1;
        self.next_seq - 1
    }

    /// The first event scheduled in the past, as (its time, when it was scheduled), if any.
    pub fn past_event(&self) -> Option<(SimTime, SimTime)> {
        self.past
    }

    pub fn peek_time(&self) -> Option<SimTime> {
        self.heap.first().map(Entry::time)
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

    proptest::proptest! {
        /// Whatever the mix of schedules and pops, each pop yields the earliest pending event
        /// by (time, insertion order). `Some(d)` schedules `d` ns from now, `None` pops.
        #[test]
        fn every_pop_yields_the_earliest_pending_event(
            ops in proptest::collection::vec(proptest::option::weighted(0.6, 0u64..50), 0..400),
        ) {
            let mut q = EventQueue::default();
            let mut pending = std::collections::BTreeSet::new();
            for (i, op) in ops.into_iter().enumerate() {
                match op {
                    Some(d) => {
                        let t = SimTime(q.now().0 + d);
                        q.schedule(t, i);
                        pending.insert((t, i));
                    }
                    None => proptest::prop_assert_eq!(q.pop(), pending.pop_first()),
                }
            }
            while let Some(expected) = pending.pop_first() {
                proptest::prop_assert_eq!(q.pop(), Some(expected));
            }
            proptest::prop_assert_eq!(q.pop(), None);
        }
    }
}
