//! A FIFO of small `Copy` values in a ring whose size is a power of two, for the queues every
//! packet passes (the event queue's lanes, a link's packets in flight, a node's work, the PIT's
//! expiry records, a DropTail queue).
//!
//! `std::collections::VecDeque` does the same job for any type, and costs more on this path: it
//! wraps an index with a compare rather than a mask, and its `push_back` is a call that
//! `#[inline]` does not reach. Here a push and a pop are a few instructions each, inline; the
//! ring grows (doubling, out of line) and never shrinks, like a `VecDeque`.

/// A first-in first-out queue of `T`.
#[derive(Clone, Debug)]
pub struct Ring<T> {
    /// The slots; a power of two long (or empty). Slots outside `head..head + len` (mod the
    /// length) hold stale copies, never read.
    buf: Vec<T>,
    /// Where the front lies.
    head: usize,
    len: usize,
}

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
        self.len
    }
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl<T: Copy> Ring<T> {
    /// The slot `k` places behind the front (`k` < the slots' count).
    #[inline(always)]
    fn slot(&self, k: usize) -> usize {
        (self.head + k) & (self.buf.len() - 1)
    }
    #[inline(always)]
    pub fn push_back(&mut self, value: T) {
        if self.len == self.buf.len() {
            self.grow(value);
        }
        let at = self.slot(self.len);
        self.buf[at] = value;
        self.len += 1;
    }
    #[inline(always)]
    pub fn pop_front(&mut self) -> Option<T> {
        if self.len == 0 {
            return None;
        }
        let value = self.buf[self.head];
        self.head = self.slot(1);
        self.len -= 1;
        Some(value)
    }
    #[inline(always)]
    pub fn front(&self) -> Option<&T> {
        (self.len > 0).then(|| &self.buf[self.head])
    }
    #[inline(always)]
    pub fn back(&self) -> Option<&T> {
        (self.len > 0).then(|| &self.buf[self.slot(self.len - 1)])
    }
    /// The value `k` places behind the front.
    pub fn get(&self, k: usize) -> Option<&T> {
        (k < self.len).then(|| &self.buf[self.slot(k)])
    }
    pub fn clear(&mut self) {
        (self.head, self.len) = (0, 0);
    }
    /// Front to back.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = &T> + ExactSizeIterator + '_ {
        (0..self.len).map(move |k| &self.buf[self.slot(k)])
    }
    /// Keep only the values `keep` says yes to, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(&T) -> bool) {
        let mut kept = 0;
        for k in 0..self.len {
            let value = self.buf[self.slot(k)];
            if keep(&value) {
                let at = self.slot(kept);
                self.buf[at] = value;
                kept += 1;
            }
        }
        self.len = kept;
    }
    /// Double the slots, the values laid out from the first; `filler` fills the new slots.
    #[cold]
    #[inline(never)]
    fn grow(&mut self, filler: T) {
        let slots = (2 * self.buf.len()).max(4);
        let mut buf = Vec::with_capacity(slots);
        buf.extend(self.iter().copied());
        buf.resize(slots, filler);
        (self.buf, self.head) = (buf, 0);
    }
}

impl<T: Copy> FromIterator<T> for Ring<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut ring = Ring::new();
        for v in iter {
            ring.push_back(v);
        }
        ring
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
        Retain(u32),
        Clear,
    }

    fn op() -> impl proptest::strategy::Strategy<Value = Op> {
        use proptest::prelude::*;
        prop_oneof![
            8 => any::<u32>().prop_map(Op::Push),
            6 => Just(Op::Pop),
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
                    Op::Retain(m) => {
                        ring.retain(|v| v % m != 0);
                        model.retain(|v| v % m != 0);
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
    fn an_empty_ring_has_no_ends() {
        let mut ring: Ring<u8> = Ring::new();
        assert_eq!((ring.pop_front(), ring.front(), ring.back(), ring.get(0)), (None, None, None, None));
        ring.push_back(7);
        assert_eq!((ring.front(), ring.back(), ring.len()), (Some(&7), Some(&7), 1));
        assert_eq!((ring.pop_front(), ring.is_empty()), (Some(7), true));
    }
}
