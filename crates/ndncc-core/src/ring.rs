//! A FIFO of small `Copy` values in a ring whose size is a power of two, for the queues every
//! packet passes (the event queue's lanes, a node's work, the PIT's expiry records, a DropTail
//! queue).
//!
//! `std::collections::VecDeque` does the same job for any type, and costs more on this path: it
//! wraps an index with a compare rather than a mask, and its `push_back` is a call that
//! `#[inline]` does not reach. Here a push and a pop are a few instructions each, inline; the
//! ring grows (doubling, out of line) and never shrinks, like a `VecDeque`, and its slots take
//! memory only once used.

/// A first-in first-out queue of `T`, in 32 bytes (a face keeps one, in the lines every packet
/// it sends reads).
#[derive(Clone, Debug)]
pub struct Ring<T> {
    /// The slots written so far, a prefix of the ring's slots: the ring fills its slots in
    /// order before it first wraps, so a slot is written before it is read, and slots never
    /// used take no memory (a `VecDeque`'s spare capacity is not touched either). Slots outside
    /// `head..head + len` (mod the slots' count) hold stale copies, never read. The slots are
    /// the buffer's capacity: zero or a power of two, made exactly by `Vec::with_capacity`
    /// (which the standard library guarantees for a type that is not zero-sized).
    buf: Vec<T>,
    /// Where the front lies. Below the slots' count, which `grow` keeps at most `MAX_SLOTS`.
    head: u32,
    len: u32,
}

/// The most slots a ring grows to: its indices are `u32`. (A ring that full would hold two
/// billion packets, 160 GB.)
const MAX_SLOTS: usize = 1 << 31;

impl<T> Default for Ring<T> {
    fn default() -> Self {
        Ring { buf: Vec::new(), head: 0, len: 0 }
    }
}

impl<T> Ring<T> {
    pub fn new() -> Self {
        Self::default()
    }
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len as usize
    }
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// How many slots the ring has.
    #[inline(always)]
    fn slots(&self) -> usize {
        self.buf.capacity()
    }
}

impl<T: Copy> Ring<T> {
    /// The slot `k` places behind the front (`k` < the slots' count).
    #[inline(always)]
    fn slot(&self, k: usize) -> usize {
        (self.head as usize + k) & (self.slots() - 1)
    }
    /// Write `value` to the slot just behind the back (which the caller makes room for).
    #[inline(always)]
    fn write_behind_back(&mut self, value: T) {
        // That slot is at most one past those written (see `buf`).
        let at = self.slot(self.len());
        match self.buf.get_mut(at) {
            Some(slot) => *slot = value,
            None => self.buf.push(value),
        }
    }
    #[inline(always)]
    pub fn push_back(&mut self, value: T) {
        if self.len() == self.slots() {
            self.grow();
        }
        self.write_behind_back(value);
        self.len += 1;
    }
    #[inline(always)]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let value = self.buf[self.head as usize];
        // Below the slots' count, so below `MAX_SLOTS`: the cast keeps every bit.
        self.head = self.slot(1) as u32;
        self.len -= 1;
        Some(value)
    }
    /// Drop the front value and append `value`, as `pop_front` then `push_back` would, with
    /// neither growth nor a change of length: the back's new slot is the one past it, or the
    /// front's own when the ring is full. The ring must not be empty.
    #[inline(always)]
    pub fn rotate(&mut self, value: T) {
        debug_assert!(self.len > 0, "rotating an empty ring");
        self.write_behind_back(value);
        // Below the slots' count, as in `pop_front`.
        self.head = self.slot(1) as u32;
    }
    #[inline(always)]
    pub fn front(&self) -> Option<&T> {
        (self.len > 0).then(|| &self.buf[self.head as usize])
    }
    #[inline(always)]
    pub fn back(&self) -> Option<&T> {
        (self.len > 0).then(|| &self.buf[self.slot(self.len() - 1)])
    }
    /// The value `k` places behind the front.
    pub fn get(&self, k: usize) -> Option<&T> {
        (k < self.len()).then(|| &self.buf[self.slot(k)])
    }
    pub fn clear(&mut self) {
        (self.head, self.len) = (0, 0);
    }
    /// Front to back.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + ExactSizeIterator + '_ {
        (0..self.len()).map(move |k| &self.buf[self.slot(k)])
    }
    /// Keep only the values `keep` says yes to, in order.
    pub fn retain(&mut self, keep: impl FnMut(&T) -> bool) {
        self.retain_looking_ahead::<0>(|_| {}, keep);
    }
    /// `retain`, showing `look` each value `AHEAD` places before `keep` is asked about it (so
    /// that `look` can start loading what `keep` will read). A constant, so that `retain`'s
    /// loop has no check of it (a check cost `dumbbell-1` 8 instructions a hop).
    pub fn retain_looking_ahead<const AHEAD: usize>(
        &mut self,
        mut look: impl FnMut(&T),
        mut keep: impl FnMut(&T) -> bool,
    ) {
        let n = self.len();
        for k in 0..n.min(AHEAD) {
            look(&self.buf[self.slot(k)]);
        }
        let mut kept = 0;
        for k in 0..n {
            // Not yet moved: only the values before `k` have been.
            if let Some(next) = k.checked_add(AHEAD).filter(|&j| AHEAD > 0 && j < n) {
                look(&self.buf[self.slot(next)]);
            }
            let value = self.buf[self.slot(k)];
            if keep(&value) {
                let at = self.slot(kept);
                self.buf[at] = value;
                kept += 1;
            }
        }
        // At most the length it had.
        self.len = kept as u32;
    }
    /// Double the slots of a full ring: the written slots move to a buffer of twice the
    /// capacity, where they keep their places, and the values that had wrapped round to its
    /// start are copied to just past the old end, where they now follow on; the back is then
    /// the first slot not yet written.
    ///
    /// A ring's first buffer has four slots, or two of values larger than a cache line (a
    /// queue's packets): a large world has rings like these on each of its tens of thousands
    /// of faces, most holding one or two packets at a time.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        const { assert!(std::mem::size_of::<T>() > 0, "a ring of a zero-sized type has no slots to count") };
        let old = self.slots();
        let first = if std::mem::size_of::<T>() > 64 { 2 } else { 4 };
        let slots = (2 * old).max(first);
        assert!(slots <= MAX_SLOTS, "a ring grew past {MAX_SLOTS} values");
        let mut buf = Vec::with_capacity(slots);
        buf.extend_from_slice(&self.buf);
        let wrapped = (self.head as usize + self.len()).saturating_sub(old);
        buf.extend_from_within(0..wrapped);
        debug_assert_eq!(buf.capacity(), slots, "a buffer of other than the capacity asked for");
        self.buf = buf;
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::VecDeque;

    /// One step of a random walk over both queues.
    #[derive(Clone, Debug)]
    enum Op {
        Push(u32),
        Pop,
        Rotate(u32),
        Retain(u32),
        Clear,
    }

    fn op() -> impl proptest::strategy::Strategy<Value = Op> {
        use proptest::prelude::*;
        prop_oneof![
            8 => any::<u32>().prop_map(Op::Push),
            6 => Just(Op::Pop),
            3 => any::<u32>().prop_map(Op::Rotate),
            1 => (1u32..5).prop_map(Op::Retain),
            1 => Just(Op::Clear),
        ]
    }

    proptest::proptest! {
        /// The ring holds what a `VecDeque` given the same operations holds, in the same order,
        /// across growth and wrap-around.
        #[test]
        fn a_ring_is_a_fifo(ops in proptest::collection::vec(op(), 0..400)) {
            let (mut ring, mut model) = (Ring::new(), VecDeque::new());
            for op in ops {
                match op {
                    Op::Push(v) => {
                        ring.push_back(v);
                        model.push_back(v);
                    }
                    Op::Pop => proptest::prop_assert_eq!(ring.pop_front(), model.pop_front()),
                    Op::Rotate(v) if !model.is_empty() => {
                        ring.rotate(v);
                        model.pop_front();
                        model.push_back(v);
                    }
                    Op::Rotate(_) => {}
                    Op::Retain(m) => {
                        // Kept alike, however far ahead the look goes; the look sees every value
                        // once, in order, `ahead` of the question (as far as there are values).
                        let before: Vec<u32> = model.iter().copied().collect();
                        let ahead = usize::try_from(m % 4).unwrap_or(0);
                        let looked = std::cell::RefCell::new(Vec::new());
                        let (mut asked, mut leads) = (0, true);
                        let look = |v: &u32| looked.borrow_mut().push(*v);
                        let mut keep = |v: &u32| {
                            let want = if ahead == 0 { 0 } else { (asked + ahead + 1).min(before.len()) };
                            leads &= looked.borrow().len() == want;
                            asked += 1;
                            !v.is_multiple_of(m)
                        };
                        match ahead {
                            0 => ring.retain_looking_ahead::<0>(&look, &mut keep),
                            1 => ring.retain_looking_ahead::<1>(&look, &mut keep),
                            2 => ring.retain_looking_ahead::<2>(&look, &mut keep),
                            _ => ring.retain_looking_ahead::<3>(&look, &mut keep),
                        }
                        model.retain(|v| v % m != 0);
                        proptest::prop_assert!(leads, "the look kept {} ahead", ahead);
                        let looked = looked.into_inner();
                        proptest::prop_assert_eq!(looked, if ahead == 0 { Vec::new() } else { before });
                    }
                    Op::Clear => {
                        ring.clear();
                        model.clear();
                    }
                }
                proptest::prop_assert_eq!(ring.len(), model.len());
                proptest::prop_assert_eq!(ring.front(), model.front());
                proptest::prop_assert_eq!(ring.back(), model.back());
                proptest::prop_assert_eq!(ring.get(1), model.get(1));
                proptest::prop_assert!(ring.iter().eq(model.iter()));
                proptest::prop_assert!(ring.iter().rev().eq(model.iter().rev()));
            }
        }
    }

    #[test]
    fn slots_are_written_only_once_used() {
        let mut ring = Ring::new();
        for v in 0..5u64 {
            ring.push_back(v);
        }
        assert_eq!((ring.slots(), ring.buf.len()), (8, 5), "three slots never used, never written");
        // Wrapped round, then grown: the wrapped values follow on past the old end.
        for _ in 0..3 {
            ring.pop_front();
        }
        for v in 5..11 {
            ring.push_back(v);
        }
        ring.push_back(11);
        assert_eq!(ring.slots(), 16);
        assert!(ring.iter().copied().eq(3..12));
        assert!(ring.buf.len() <= ring.slots());
    }

    /// A ring of values larger than a cache line starts at two slots, then doubles.
    #[test]
    fn a_ring_of_large_values_starts_small() {
        let mut ring: Ring<[u64; 12]> = Ring::new();
        ring.push_back([1; 12]);
        assert_eq!(ring.slots(), 2);
        for v in 2..6 {
            ring.push_back([v; 12]);
        }
        assert_eq!(ring.slots(), 8);
        assert!(ring.iter().map(|v| v[0]).eq(1..6));
    }

    /// A ring is 32 bytes whatever it holds: a face keeps one.
    #[test]
    fn a_ring_is_four_words() {
        assert_eq!(std::mem::size_of::<Ring<u8>>(), 32);
        assert_eq!(std::mem::size_of::<Ring<[u64; 12]>>(), 32);
    }

    #[test]
    fn an_empty_ring_has_no_ends() {
        let mut ring: Ring<u8> = Ring::new();
        assert_eq!((ring.pop_front(), ring.front(), ring.back(), ring.get(0)), (None, None, None, None));
        ring.push_back(7);
        assert_eq!((ring.front(), ring.back(), ring.len()), (Some(&7), Some(&7), 1));
        assert_eq!((ring.pop_front(), ring.is_empty()), (Some(7), true));
    }
}
