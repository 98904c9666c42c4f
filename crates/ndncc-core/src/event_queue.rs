//! The event queue: a min-heap ordered by (time, insertion sequence). Ties break FIFO, so a run
//! is bit-for-bit repeatable. Time never goes back; cancellation is lazy (events carry a
//! generation or are checked against the state they wake).
//!
//! Beside the heap sit a few FIFO lanes, each for events scheduled one fixed delay ahead (a
//! consumer's 50 ms timer poll, a link's propagation delay): such events are scheduled in the
//! order they fall due, so a FIFO keeps them in order at O(1) a push and a pop, and the heap
//! stays small. An event goes to a lane only when its key is above the lane's last one, so
//! every lane is sorted, and a pop takes the smaller of the heap's top and the lanes' smallest
//! front: the order of events is exactly that of one heap.

use crate::ring::Ring;
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

/// Lanes beside the heap; a delay's lane is picked by a hash of the delay.
const LANES: usize = 8;

/// No key: an empty lane's or heap's. (A real key would need 2^64 - 1 events taken.)
const NO_KEY: u128 = u128::MAX;

/// Events scheduled `delay` ahead, in key order.
struct Lane<E> {
    delay: u64,
    fifo: Ring<Entry<E>>,
}

/// A binary min-heap on (time, seq) in a `Vec`, written out here rather than taken from
/// `std::collections::BinaryHeap` so that push and pop are inline and compile into the event
/// loop whatever codegen unit the loop lands in (std's heap methods are not `#[inline]`, and
/// when they land in another unit every event pays two calls). The sifts are std's, so the
/// order is the same.
pub struct EventQueue<E> {
    heap: Vec<Entry<E>>,
    lanes: [Lane<E>; LANES],
    /// The key at the front of each lane, `NO_KEY` for an empty one (kept here so that finding
    /// the smallest is a scan of one small array).
    fronts: [u128; LANES],
    /// The smallest of `fronts`, and its lane.
    lane_min: u128,
    lane_min_at: usize,
    next_seq: u64,
    now: SimTime,
    popped: u64,
    /// The first event ever scheduled in the past: (its time, the time it was scheduled at).
    past: Option<(SimTime, SimTime)>,
}

impl<E> Default for EventQueue<E> {
    fn default() -> Self {
        EventQueue {
            heap: Vec::new(),
            lanes: std::array::from_fn(|_| Lane { delay: 0, fifo: Ring::new() }),
            fronts: [NO_KEY; LANES],
            lane_min: NO_KEY,
            lane_min_at: 0,
            next_seq: 0,
            now: SimTime::ZERO,
            popped: 0,
            past: None,
        }
    }
}

/// The lane for events `delay` ns ahead: the top bits of a multiplicative hash, since delays
/// are mostly round numbers whose low bits are all zero.
#[inline(always)]
fn lane_of(delay: u64) -> usize {
    let top = delay.wrapping_mul(0x9E37_79B9_7F4A_7C15) >> (u64::BITS - LANES.trailing_zeros());
    usize::try_from(top).unwrap_or(0)
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
        let delay = time.0 - self.now.0;
        let at = lane_of(delay);
        let lane = &mut self.lanes[at];
        match lane.fifo.back() {
            None => {
                lane.delay = delay;
                lane.fifo.push_back(entry);
                self.fronts[at] = entry.key;
                if entry.key < self.lane_min {
                    (self.lane_min, self.lane_min_at) = (entry.key, at);
                }
            }
            Some(back) if lane.delay == delay && back.key < entry.key => lane.fifo.push_back(entry),
            Some(_) => self.heap_push(entry),
        }
    }

    #[inline(always)]
    fn heap_push(&mut self, entry: Entry<E>) {
        self.heap.push(entry);
        let last = self.heap.len() - 1;
        sift_up(&mut self.heap, last, entry);
    }

    /// The next event, advancing the clock to its time.
    #[inline]
    pub fn pop(&mut self) -> Option<(SimTime, E)> {
        let e = if self.lane_min < self.heap.first().map_or(NO_KEY, |e| e.key) {
            self.pop_lane()?
        } else {
            let last = self.heap.pop()?;
            match self.heap.first().copied() {
                Some(first) => {
                    sift_down_to_bottom(&mut self.heap, last);
                    first
                }
                None => last,
            }
        };
        let time = e.time();
        assert!(time >= self.now, "time went backwards");
        self.now = time;
        self.popped += 1;
        Some((time, e.event))
    }
}

impl<E: Copy> EventQueue<E> {
    /// Take the front of the lane with the smallest front, and find the lanes' new smallest.
    #[inline]
    fn pop_lane(&mut self) -> Option<Entry<E>> {
        let fifo = &mut self.lanes[self.lane_min_at].fifo;
        let e = fifo.pop_front()?;
        self.fronts[self.lane_min_at] = fifo.front().map_or(NO_KEY, |f| f.key);
        (self.lane_min, self.lane_min_at) = (self.fronts[0], 0);
        for (at, &front) in self.fronts.iter().enumerate().skip(1) {
            if front < self.lane_min {
                (self.lane_min, self.lane_min_at) = (front, at);
            }
        }
        Some(e)
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
        let first = self.heap.first().map_or(NO_KEY, |e| e.key).min(self.lane_min);
        (first != NO_KEY).then_some(SimTime((first >> 64) as u64))
    }
    pub fn now(&self) -> SimTime {
        self.now
    }
    pub fn len(&self) -> usize {
        self.heap.len() + self.lanes.iter().map(|l| l.fifo.len()).sum::<usize>()
    }
    pub fn is_empty(&self) -> bool {
        self.len() == 0
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

        /// The same with the lanes busy: events a few fixed delays ahead (as timers and links
        /// schedule them) mixed with random ones, with keyed events whose key was taken earlier
        /// (as a link's next arrival), and enough pending to make the heap and lanes deep.
        /// The queue's order is that of one sorted set of (time, seq) whatever lane or heap
        /// each event went to.
        #[test]
        fn lanes_and_heap_together_pop_in_time_and_insertion_order(
            ops in proptest::collection::vec((0u8..10, 0u64..5_000), 0..2_000),
        ) {
            let mut q = EventQueue::default();
            let mut pending = std::collections::BTreeSet::new();
            let mut reserved: Vec<(u64, u64)> = Vec::new();
            let mut seq = 0u64;
            for (i, (op, r)) in ops.into_iter().enumerate() {
                let now = q.now().0;
                match op {
                    0..=4 => {
                        let d = [50, 1_000, 174_080, 5_000_000, r][usize::from(op)];
                        q.schedule(SimTime(now + d), i);
                        pending.insert((SimTime(now + d), seq, i));
                        seq += 1;
                    }
                    5 => {
                        reserved.push((q.take_seq(), r));
                        seq += 1;
                    }
                    6 if !reserved.is_empty() => {
                        let (k, d) = reserved.remove(0);
                        q.schedule_keyed(SimTime(now + d), k, i);
                        pending.insert((SimTime(now + d), k, i));
                    }
                    _ => {
                        let expected = pending.pop_first().map(|(t, _, e)| (t, e));
                        proptest::prop_assert_eq!(q.pop(), expected);
                    }
                }
                proptest::prop_assert_eq!(q.len(), pending.len());
            }
            while let Some((t, _, e)) = pending.pop_first() {
                proptest::prop_assert_eq!(q.peek_time(), Some(t));
                proptest::prop_assert_eq!(q.pop(), Some((t, e)));
            }
            proptest::prop_assert_eq!(q.pop(), None);
            proptest::prop_assert_eq!(q.peek_time(), None);
        }
    }
}
