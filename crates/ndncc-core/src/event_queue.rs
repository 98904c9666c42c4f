//! The event queue: a min-heap ordered by (time, insertion sequence). Ties break FIFO, so a run
//! is bit-for-bit repeatable. Time never goes back; cancellation is lazy (events carry a
//! generation or are checked against the state they wake).
//!
//! Beside the heap sit FIFO lanes, each for events scheduled one fixed delay ahead (a
//! consumer's 50 ms timer poll, the arrival of a packet of one size over one kind of link):
//! such events are scheduled in the order they fall due, so a FIFO keeps them in order at O(1)
//! a push and a pop, and the heap stays small. An event goes to a lane only when its key is
//! above the lane's last one, so every lane is sorted, and a pop takes the smaller of the
//! heap's top and the lanes' smallest front: the order of events is exactly that of one heap.
//! A large topology keeps a dozen or more delays busy at once (a few packet sizes, each
//! serialised and carried over each kind of link, and the timers), so there are 16 lanes, a
//! delay may take any of four, and a winner tree finds the smallest front.

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
    fn new(time: SimTime, seq: u64, event: E) -> Entry<E> {
        Entry { key: (u128::from(time.0) << 64) | u128::from(seq), event }
    }

    #[inline(always)]
    fn time(&self) -> SimTime {
        SimTime((self.key >> 64) as u64)
    }
}

/// Lanes beside the heap (a power of two). A busy topology schedules about this many fixed
/// delays at once: each packet size's serialisation and arrival on each kind of link, and the
/// timers.
const LANES: usize = 16;

/// Lanes a delay may take, from the one its hash picks on.
const PROBES: usize = 4;

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
    /// The key at the front of each lane, `NO_KEY` for an empty one.
    fronts: [u128; LANES],
    /// A winner tree over `fronts`: `winner[n]` (n in 1..LANES) is the lane with the smallest
    /// front under node n, whose children are nodes 2n and 2n + 1 and whose leaves, nodes
    /// LANES..2·LANES, are the lanes. A lane's front changing replays its path to the root,
    /// `log2(LANES)` compares that compile to conditional moves.
    winner: [u8; LANES],
    /// The smallest of `fronts` (`fronts[winner[1]]`), and its lane.
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
            winner: std::array::from_fn(leftmost_lane),
            lane_min: NO_KEY,
            lane_min_at: 0,
            next_seq: 0,
            now: SimTime::ZERO,
            popped: 0,
            past: None,
        }
    }
}

/// Of lanes `a` and `b`, the one with the smaller front (`a` when both are empty), chosen
/// without a branch: which lane wins is as unpredictable as the order of events.
#[inline(always)]
fn smaller_front(fronts: &[u128; LANES], a: usize, b: usize) -> usize {
    let b_wins = usize::from(fronts[b] < fronts[a]);
    a ^ ((a ^ b) & b_wins.wrapping_neg())
}

/// The leftmost lane under node `n` of the winner tree: where every node starts, all lanes
/// being empty.
fn leftmost_lane(n: usize) -> u8 {
    let mut node = n.max(1);
    while node < LANES {
        node *= 2;
    }
    u8::try_from(node - LANES).unwrap_or(0)
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
        let entry = self.entry_from_now(time, seq, event);
        if !self.lane_push(entry) {
            self.heap_push(entry);
        }
    }

    /// The entry of an event for `time`, or for now when `time` has passed (which
    /// `past_event` then reports).
    #[inline(always)]
    fn entry_from_now(&mut self, time: SimTime, seq: u64, event: E) -> Entry<E> {
        if time < self.now && self.past.is_none() {
            self.past = Some((time, self.now));
        }
        Entry::new(time.max(self.now), seq, event)
    }

    /// Schedule `event` at `time`, a delay no other event is likely to share, straight into
    /// the heap, where it leaves the lanes to the fixed delays.
    #[inline]
    pub fn schedule_irregular(&mut self, time: SimTime, event: E) {
        let seq = self.take_seq();
        self.schedule_keyed_irregular(time, seq, event);
    }

    /// `schedule_irregular` with an order key from `take_seq`.
    #[inline]
    pub fn schedule_keyed_irregular(&mut self, time: SimTime, seq: u64, event: E) {
        let entry = self.entry_from_now(time, seq, event);
        self.heap_push(entry);
    }

    /// Schedule `event` at `time` with an order key from `take_seq` if a lane takes it, and
    /// say whether one did. A link puts each packet's arrival in the queue this way as it
    /// leaves, and when no lane takes one, only the head of its flight (see `on_arrive`).
    #[inline(always)]
    pub fn schedule_in_lane(&mut self, time: SimTime, seq: u64, event: E) -> bool {
        time >= self.now && self.lane_push(Entry::new(time, seq, event))
    }

    /// Append `entry` (not in the past) to a lane if one takes it: the first lane of its
    /// delay's probe sequence that holds that delay, if the entry falls after its last (and
    /// not at all if it does not), else the first empty lane there. An empty lane keeps its
    /// delay until another takes it, so a delay that comes and goes finds its lane again.
    #[inline(always)]
    fn lane_push(&mut self, entry: Entry<E>) -> bool {
        let delay = (entry.time() - self.now).nanos();
        let start = lane_of(delay);
        let mut empty = None;
        for probe in 0..PROBES {
            let at = (start + probe) % LANES;
            let lane = &mut self.lanes[at];
            match lane.fifo.back() {
                Some(back) if lane.delay == delay => {
                    if back.key >= entry.key {
                        return false;
                    }
                    lane.fifo.push_back(entry);
                    return true;
                }
                Some(_) => {}
                None if lane.delay == delay => {
                    empty = Some(at);
                    break;
                }
                None => {
                    empty = empty.or(Some(at));
                }
            }
        }
        let Some(at) = empty else { return false };
        let lane = &mut self.lanes[at];
        lane.delay = delay;
        lane.fifo.push_back(entry);
        self.fronts[at] = entry.key;
        self.replay(at);
        true
    }

    /// Lane `at`'s front changed: replay its path in the winner tree, carrying the winner up
    /// against each sibling's.
    #[inline(always)]
    fn replay(&mut self, at: usize) {
        let mut w = smaller_front(&self.fronts, at, at ^ 1);
        let mut node = (LANES + at) / 2;
        self.winner[node] = w as u8;
        for _ in 1..LANES.trailing_zeros() {
            let sibling = usize::from(self.winner[node ^ 1]);
            node /= 2;
            w = smaller_front(&self.fronts, w, sibling);
            self.winner[node] = w as u8;
        }
        self.lane_min_at = usize::from(self.winner[1]);
        self.lane_min = self.fronts[self.lane_min_at];
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
        let e = if self.lane_is_next() {
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
    /// The next event is the front of a lane rather than the heap's top (false when both are
    /// empty).
    #[inline(always)]
    fn lane_is_next(&self) -> bool {
        self.lane_min < self.heap.first().map_or(NO_KEY, |e| e.key)
    }
    /// The event `pop` would return next.
    #[inline(always)]
    pub fn peek_event(&self) -> Option<&E> {
        if self.lane_is_next() {
            self.lanes[self.lane_min_at].fifo.front().map(|e| &e.event)
        } else {
            self.heap.first().map(|e| &e.event)
        }
    }
    /// Take the front of the lane with the smallest front, and find the lanes' new smallest.
    #[inline]
    fn pop_lane(&mut self) -> Option<Entry<E>> {
        let at = self.lane_min_at;
        let fifo = &mut self.lanes[at].fifo;
        let e = fifo.pop_front()?;
        self.fronts[at] = fifo.front().map_or(NO_KEY, |f| f.key);
        self.replay(at);
        Some(e)
    }
}

/// A run of events taken one after another off the front of one lane, while each comes before
/// every event elsewhere (see [`EventQueue::open_run`]).
pub struct LaneRun {
    lane: usize,
    /// The smallest key of the other lanes and the heap, which the run leaves alone.
    others: u128,
}

impl<E: Copy> EventQueue<E> {
    /// Open a run on the lane that holds the next event, if one does. While it is open, the
    /// lane is out of the winner tree: `run_front` and `run_pop` take its front, one compare
    /// each, and `run_pop_and_schedule` takes it and appends another in one ring step, where a
    /// pop and a push would each replay the lane's path in the tree. Only these may be called
    /// until `close_run`.
    #[inline]
    pub fn open_run(&mut self) -> Option<LaneRun> {
        if !self.lane_is_next() {
            return None;
        }
        let lane = self.lane_min_at;
        self.fronts[lane] = NO_KEY;
        self.replay(lane);
        let others = self.lane_min.min(self.heap.first().map_or(NO_KEY, |e| e.key));
        Some(LaneRun { lane, others })
    }

    /// The run's next event and its time, if it is the next event of the queue and falls at or
    /// before `end`.
    #[inline(always)]
    pub fn run_front(&self, run: &LaneRun, end: SimTime) -> Option<(SimTime, E)> {
        let e = self.lanes[run.lane].fifo.front()?;
        (e.key < run.others && e.time() <= end).then_some((e.time(), e.event))
    }

    /// Take the run's front, which `run_front` returned, advancing the clock to its time.
    #[inline(always)]
    pub fn run_pop(&mut self, run: &LaneRun) {
        if let Some(e) = self.lanes[run.lane].fifo.pop_front() {
            debug_assert!(e.time() >= self.now, "time went backwards");
            self.now = e.time();
            self.popped += 1;
        }
    }

    /// Take the run's front, which `run_front` returned at `t`, and schedule `event` at `time`
    /// at the back of the lane, if that is where `schedule` would put it after the pop: the
    /// lane still holds events and its delay is `time`'s, so it is the one lane of that delay
    /// (see `lane_push`). Says whether it did; if not, only the front was taken, and the
    /// caller closes the run and schedules the event.
    ///
    /// The event's key then falls after the lane's last, unchecked: every event in a lane was
    /// scheduled its delay ahead at a time no later than `t`, so none falls after `time`, and
    /// one at `time` has an older sequence number.
    #[inline(always)]
    pub fn run_pop_and_schedule(&mut self, run: &LaneRun, t: SimTime, time: SimTime, event: E) -> bool {
        let entry = Entry::new(time, self.next_seq, event);
        let lane = &mut self.lanes[run.lane];
        let takes = lane.fifo.len() >= 2 && time >= t && lane.delay == (time - t).nanos();
        debug_assert!(
            !takes || lane.fifo.back().is_some_and(|back| back.key < entry.key),
            "an event of the lane's delay that falls before its last"
        );
        debug_assert!(t >= self.now, "time went backwards");
        (self.now, self.popped) = (t, self.popped + 1);
        if takes {
            self.next_seq += 1;
            lane.fifo.rotate(entry);
        } else {
            lane.fifo.pop_front();
        }
        takes
    }

    /// Close the run: its lane takes its place in the winner tree again.
    #[inline]
    pub fn close_run(&mut self, run: LaneRun) {
        self.fronts[run.lane] = self.lanes[run.lane].fifo.front().map_or(NO_KEY, |f| f.key);
        self.replay(run.lane);
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
    use crate::time::SimDuration;

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

    #[test]
    fn a_lane_takes_an_event_only_after_its_last_and_never_in_the_past() {
        let mut q = EventQueue::default();
        let early = q.take_seq();
        q.schedule(SimTime(100), "b");
        // The same delay, but a key taken before b's: no lane can take it after b.
        assert!(!q.schedule_in_lane(SimTime(100), early, "a"));
        q.schedule_keyed(SimTime(100), early, "a");
        let late = q.take_seq();
        assert!(q.schedule_in_lane(SimTime(100), late, "c"));
        assert_eq!(q.pop(), Some((SimTime(100), "a")));
        let past = q.take_seq();
        assert!(!q.schedule_in_lane(SimTime(99), past, "never"));
        let order: Vec<_> = std::iter::from_fn(|| q.pop().map(|(_, e)| e)).collect();
        assert_eq!(order, vec!["b", "c"]);
    }

    #[test]
    fn the_winner_tree_starts_on_each_subtree_s_own_lanes() {
        for n in 1..LANES {
            let lane = usize::from(leftmost_lane(n));
            let mut leaf = LANES + lane;
            while leaf > n {
                leaf /= 2;
            }
            assert_eq!(leaf, n, "lane {lane} is not under node {n}");
        }
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

        /// More fixed delays than lanes, so that delays share and take over lanes, with events
        /// offered to a lane first as a link offers each arrival (`schedule_in_lane`, falling
        /// back to the heap when no lane takes it), and some sent straight to the heap: still
        /// the order of one sorted set, and `peek_event` always names what `pop` takes next.
        #[test]
        fn more_delays_than_lanes_still_pop_in_time_and_insertion_order(
            ops in proptest::collection::vec((0u8..64, 0u64..5_000), 0..3_000),
        ) {
            let mut q = EventQueue::default();
            let mut pending = std::collections::BTreeSet::new();
            for (i, (op, r)) in ops.into_iter().enumerate() {
                let now = q.now().0;
                let fixed = |k: u64| 1_000 + (k % 48) * 37;
                match op {
                    0..=23 => {
                        let t = SimTime(now + fixed(u64::from(op) * 2));
                        let seq = q.take_seq();
                        q.schedule_keyed(t, seq, i);
                        pending.insert((t, seq, i));
                    }
                    24..=39 => {
                        let t = SimTime(now + fixed(r));
                        let seq = q.take_seq();
                        if !q.schedule_in_lane(t, seq, i) {
                            q.schedule_keyed(t, seq, i);
                        }
                        pending.insert((t, seq, i));
                    }
                    40..=41 => {
                        let t = SimTime(now + r);
                        let seq = q.take_seq();
                        q.schedule_keyed(t, seq, i);
                        pending.insert((t, seq, i));
                    }
                    // Straight to the heap, as a PIT sweep or a flight's next head goes.
                    42..=44 => {
                        let t = SimTime(now + r);
                        let seq = q.take_seq();
                        q.schedule_keyed_irregular(t, seq, i);
                        pending.insert((t, seq, i));
                    }
                    _ => {
                        let expected = pending.pop_first().map(|(t, _, e)| (t, e));
                        proptest::prop_assert_eq!(q.pop(), expected);
                    }
                }
                proptest::prop_assert_eq!(q.len(), pending.len());
                proptest::prop_assert_eq!(q.peek_time(), pending.first().map(|p| p.0));
                proptest::prop_assert_eq!(q.peek_event(), pending.first().map(|p| &p.2));
            }
            while let Some((t, _, e)) = pending.pop_first() {
                proptest::prop_assert_eq!(q.pop(), Some((t, e)));
            }
            proptest::prop_assert_eq!(q.pop(), None);
        }

        /// Events taken as lane runs, as the world takes idle polls (`open_run`, then
        /// `run_front`, `run_pop` and `run_pop_and_schedule` while they can, `close_run`), come
        /// in the order of the plain queue, and each schedules what it would there, on whichever path:
        /// a follow-up a run's lane does not take ends the run and goes through `schedule`.
        #[test]
        fn lane_runs_take_events_in_the_order_of_plain_pops(
            start in proptest::collection::vec((0u64..3, 0u64..400), 1..60),
            follow in proptest::collection::vec(0u64..6, 1..64),
            runs_from in 0usize..4,
        ) {
            // A follow-up's delay: mostly one period, as a poll's, sometimes another.
            let delay = |e: usize| [500u64, 500, 500, 500, 730, 0][follow[e % follow.len()] as usize];
            let mut plain = EventQueue::default();
            let mut runs = EventQueue::default();
            for (i, &(kind, t)) in start.iter().enumerate() {
                let t = SimTime(t + kind * 500);
                plain.schedule(t, i);
                runs.schedule(t, i);
            }
            let mut taken = Vec::new();
            let mut next_id = start.len();
            while let Some((t, e)) = plain.pop() {
                if next_id < 400 {
                    plain.schedule(t + SimDuration::from_nanos(delay(e)), next_id);
                    next_id += 1;
                }
                taken.push((t, e));
            }
            let mut order = Vec::new();
            let mut next_id = start.len();
            while let Some((t, e)) = runs.pop() {
                order.push((t, e));
                if next_id < 400 {
                    runs.schedule(t + SimDuration::from_nanos(delay(e)), next_id);
                    next_id += 1;
                }
                if order.len() % 4 != runs_from {
                    continue;
                }
                let Some(run) = runs.open_run() else { continue };
                let mut open = Some(run);
                while let Some(run) = open.take() {
                    let Some((t, e)) = runs.run_front(&run, SimTime(u64::MAX)) else {
                        runs.close_run(run);
                        break;
                    };
                    order.push((t, e));
                    if next_id >= 400 {
                        runs.run_pop(&run);
                        open = Some(run);
                        continue;
                    }
                    let at = t + SimDuration::from_nanos(delay(e));
                    if !runs.run_pop_and_schedule(&run, t, at, next_id) {
                        // Not taken: close the run and schedule it as the plain queue would.
                        runs.close_run(run);
                        runs.schedule(at, next_id);
                    } else {
                        open = Some(run);
                    }
                    next_id += 1;
                }
            }
            proptest::prop_assert_eq!(order, taken);
        }
    }
}
