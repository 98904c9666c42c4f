//! A growable array of plain values that grows without copying once it is large: the
//! recorder's columns, and the pool of packets on the wire (`flight.rs`).
//!
//! A `Vec` grows by allocating twice its capacity and copying into it, and the new block's
//! pages are each faulted in as the copy writes them. A recorder's columns grow all run long
//! (`dumbbell-10000` records 20 MB in 40 simulated seconds), so every doubling copied what the
//! run had recorded so far into fresh pages, and for a moment held both. Past `MAP_FROM` bytes,
//! a column here lives in a mapping of its own, which grows by `mremap`: the kernel moves the
//! page tables, no value is copied and no page is faulted in twice. Below that, and where
//! `mremap` does not exist, it grows as a `Vec` would, by `realloc`. The values are the same
//! either way, so nothing recorded changes.

use std::alloc::Layout;
use std::fmt;
use std::ops::{Deref, DerefMut, Range};
use std::ptr::NonNull;

/// Bytes from which a column moves to a mapping of its own (the heap below: most recorders are
/// small, and a mapping is a system call to make).
const MAP_FROM: usize = 1 << 20;

/// A mapping's pages, to which its size is rounded.
const PAGE: usize = 4096;

/// A growable array of `Copy` values (see the module's doc): `len` written, room for `cap`,
/// in a heap block or, when `mapped`, a mapping of its own.
pub struct Column<T: Copy> {
    ptr: NonNull<T>,
    len: usize,
    cap: usize,
    mapped: bool,
}

// SAFETY: a column owns its block or mapping alone, as a `Vec` owns its buffer, and hands out
// references into it only through `&self` and `&mut self`.
unsafe impl<T: Copy + Send> Send for Column<T> {}
// SAFETY: as above; shared access only reads.
unsafe impl<T: Copy + Sync> Sync for Column<T> {}

impl<T: Copy> Default for Column<T> {
    fn default() -> Self {
        assert!(size_of::<T>() > 0 && align_of::<T>() <= PAGE, "a column holds sized values");
        Column { ptr: NonNull::dangling(), len: 0, cap: 0, mapped: false }
    }
}

impl<T: Copy> Column<T> {
    /// Room for `additional` more values: at least twice the room it had.
    #[inline]
    pub fn reserve(&mut self, additional: usize) {
        if self.cap - self.len < additional {
            self.grow(additional);
        }
    }

    #[cold]
    #[inline(never)]
    fn grow(&mut self, additional: usize) {
        let need = self.len.checked_add(additional).expect("column length overflows");
        let cap = need.max(self.cap.saturating_mul(2)).max(4);
        let Some(bytes) = cap.checked_mul(size_of::<T>()).filter(|&b| b <= isize::MAX as usize - PAGE) else {
            panic!("a column of {cap} values is larger than memory can hold");
        };
        #[cfg(target_os = "linux")]
        if self.mapped || bytes >= MAP_FROM {
            let bytes = bytes.div_ceil(PAGE) * PAGE;
            return self.remap(bytes);
        }
        let new = Layout::from_size_align(bytes, align_of::<T>()).unwrap_or_else(|_| Layout::new::<T>());
        // SAFETY: a new block when there is none, else the column's own block of `heap_layout`.
        let at = unsafe {
            if self.cap == 0 {
                std::alloc::alloc(new)
            } else {
                std::alloc::realloc(self.ptr.as_ptr().cast(), self.heap_layout(), bytes)
            }
        };
        match NonNull::new(at.cast::<T>()) {
            Some(p) => (self.ptr, self.cap) = (p, cap),
            None => std::alloc::handle_alloc_error(new),
        }
    }

    /// The layout of the column's heap block (not mapped, `cap` above zero).
    fn heap_layout(&self) -> Layout {
        Layout::array::<T>(self.cap).unwrap_or_else(|_| Layout::new::<T>())
    }

    /// Grow to a mapping of `bytes` (whole pages): the mapping itself by `mremap`, or from the
    /// heap into a new mapping, its values copied this once.
    #[cfg(target_os = "linux")]
    fn remap(&mut self, bytes: usize) {
        let failed =
            || std::alloc::handle_alloc_error(Layout::from_size_align(bytes, PAGE).unwrap_or(Layout::new::<T>()));
        let at = if self.mapped {
            // SAFETY: `ptr` is the start of the column's mapping and `map_bytes` its length, as
            // made by `mmap` or an earlier `mremap`; nothing refers into it (`&mut self`).
            unsafe { libc::mremap(self.ptr.as_ptr().cast(), self.map_bytes(), bytes, libc::MREMAP_MAYMOVE) }
        } else {
            // SAFETY: a new anonymous private mapping, of no memory in use.
            unsafe {
                libc::mmap(
                    std::ptr::null_mut(),
                    bytes,
                    libc::PROT_READ | libc::PROT_WRITE,
                    libc::MAP_PRIVATE | libc::MAP_ANONYMOUS,
                    -1,
                    0,
                )
            }
        };
        if at == libc::MAP_FAILED {
            failed();
        }
        let Some(p) = NonNull::new(at.cast::<T>()) else { failed() };
        if !self.mapped {
            if self.cap > 0 {
                // SAFETY: the new mapping holds `bytes >= len` values' room and overlaps no block;
                // the old block is the column's, of `heap_layout`, and is let go after the copy.
                unsafe {
                    std::ptr::copy_nonoverlapping(self.ptr.as_ptr(), p.as_ptr(), self.len);
                    std::alloc::dealloc(self.ptr.as_ptr().cast(), self.heap_layout());
                }
            }
            self.mapped = true;
        }
        (self.ptr, self.cap) = (p, bytes / size_of::<T>());
    }

    /// The length of the column's mapping (when `mapped`): its room, in whole pages.
    #[cfg(target_os = "linux")]
    fn map_bytes(&self) -> usize {
        self.cap * size_of::<T>()
    }

    #[inline(always)]
    pub fn push(&mut self, value: T) {
        if self.len == self.cap {
            self.grow(1);
        }
        // SAFETY: `len < cap`: the slot lies in the column's memory, past the values written.
        unsafe { self.ptr.as_ptr().add(self.len).write(value) };
        self.len += 1;
    }

    /// Append a copy of `values`.
    pub fn extend_from_slice(&mut self, values: &[T]) {
        self.reserve(values.len());
        // SAFETY: there is room for `values` past the values written, and `values`, borrowed
        // apart from `self`, cannot lie there.
        unsafe { std::ptr::copy_nonoverlapping(values.as_ptr(), self.ptr.as_ptr().add(self.len), values.len()) };
        self.len += values.len();
    }

    /// Append a copy of the values in `range`.
    pub fn extend_from_within(&mut self, range: Range<usize>) {
        assert!(range.start <= range.end && range.end <= self.len, "range out of the column");
        self.reserve(range.len());
        // SAFETY: the source lies among the values written and the destination past them, in
        // the column's memory (after `reserve`, which may have moved it).
        unsafe {
            let base = self.ptr.as_ptr();
            std::ptr::copy_nonoverlapping(base.add(range.start), base.add(self.len), range.len());
        }
        self.len += range.len();
    }

    /// Make the length `len`, appending copies of `value` or dropping values at the end.
    pub fn resize(&mut self, len: usize, value: T) {
        if len <= self.len {
            return self.truncate(len);
        }
        self.reserve(len - self.len);
        for i in self.len..len {
            // SAFETY: `i < len <= cap`: within the column's memory.
            unsafe { self.ptr.as_ptr().add(i).write(value) };
        }
        self.len = len;
    }

    /// Keep the first `len` values (all when there are fewer). The room stays.
    pub fn truncate(&mut self, len: usize) {
        self.len = self.len.min(len);
    }

    pub fn as_slice(&self) -> &[T] {
        self
    }

    /// The values it has room for without growing.
    pub fn capacity(&self) -> usize {
        self.cap
    }

    /// Whether it lives in a mapping of its own.
    pub fn is_mapped(&self) -> bool {
        self.mapped
    }
}

impl<T: Copy> Drop for Column<T> {
    fn drop(&mut self) {
        if self.cap == 0 {
            return;
        }
        #[cfg(target_os = "linux")]
        if self.mapped {
            // SAFETY: the column's mapping, of that length, which nothing refers into any more.
            unsafe { libc::munmap(self.ptr.as_ptr().cast(), self.map_bytes()) };
            return;
        }
        // SAFETY: the column's heap block, of that layout, which nothing refers into any more.
        unsafe { std::alloc::dealloc(self.ptr.as_ptr().cast(), self.heap_layout()) };
    }
}

impl<T: Copy> Deref for Column<T> {
    type Target = [T];
    #[inline(always)]
    fn deref(&self) -> &[T] {
        // SAFETY: the first `len` values are written (a dangling, aligned pointer when there is
        // no room), and the memory lives as long as `self`.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Copy> DerefMut for Column<T> {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as `deref`, borrowed mutably through `&mut self`.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Copy> Clone for Column<T> {
    fn clone(&self) -> Self {
        let mut c = Column::default();
        c.extend_from_slice(self);
        c
    }
}

impl<T: Copy + fmt::Debug> fmt::Debug for Column<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

impl<T: Copy + PartialEq> PartialEq for Column<T> {
    fn eq(&self, other: &Self) -> bool {
        self.as_slice() == other.as_slice()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// What a `Column` is asked to do, as a test drives it.
    #[derive(Clone, Debug)]
    enum Op {
        Push(u64),
        Extend(Vec<u64>),
        Within(usize, usize),
        Resize(usize, u64),
        Truncate(usize),
        Set(usize, u64),
    }

    fn apply(c: &mut Column<u64>, v: &mut Vec<u64>, op: &Op) {
        match op {
            Op::Push(x) => {
                c.push(*x);
                v.push(*x);
            }
            Op::Extend(xs) => {
                c.extend_from_slice(xs);
                v.extend_from_slice(xs);
            }
            Op::Within(a, n) if !v.is_empty() => {
                let start = a % v.len();
                let end = (start + n).min(v.len());
                c.extend_from_within(start..end);
                v.extend_from_within(start..end);
            }
            Op::Within(..) => {}
            Op::Resize(len, x) => {
                c.resize(*len, *x);
                v.resize(*len, *x);
            }
            Op::Truncate(len) => {
                c.truncate(*len);
                v.truncate(*len);
            }
            Op::Set(i, x) if !v.is_empty() => {
                let i = i % v.len();
                c[i] = *x;
                v[i] = *x;
            }
            Op::Set(..) => {}
        }
    }

    #[test]
    fn grows_past_a_mapping_and_keeps_every_value() {
        let mut c = Column::default();
        let n = 3 * MAP_FROM / size_of::<u64>();
        let value = |i: usize| (i as u64).wrapping_mul(0x9E37_79B9_7F4A_7C15);
        for i in 0..n {
            c.push(value(i));
        }
        assert_eq!(c.len(), n);
        assert!(c.iter().enumerate().all(|(i, &x)| x == value(i)));
        assert_eq!(c.is_mapped(), cfg!(target_os = "linux"));
        let copy = c.clone();
        assert_eq!(copy, c);
        c.truncate(10);
        c.extend_from_within(2..5);
        assert_eq!(&c[10..], &copy[2..5]);
        assert!(c.capacity() >= n);
    }

    /// A column's mapping is memory the process never had: its pages are faulted in as they are
    /// written, and `bench::page_faults` (which `ndncc-bench` reports for a run) counts them.
    #[test]
    #[cfg(target_os = "linux")]
    fn a_mapped_column_is_faulted_in_as_it_is_written_and_counted() {
        let before = crate::bench::page_faults();
        let mut c = Column::default();
        c.resize(4 * MAP_FROM / size_of::<u64>(), 7u64);
        assert!(c.is_mapped());
        // 4 MiB written: 1,024 pages, or 2 on huge pages.
        assert!(crate::bench::page_faults() >= before + 2);
    }

    #[test]
    fn small_columns_stay_on_the_heap() {
        let mut c = Column::default();
        c.extend_from_slice(&[1.5f64; 1000]);
        assert!(!c.is_mapped());
        assert_eq!(c.iter().sum::<f64>(), 1500.0);
        let empty: Column<u32> = Column::default();
        assert!(empty.is_empty() && empty.capacity() == 0);
    }

    proptest! {
        /// Whatever is asked of it, a column holds what a `Vec` asked the same would, across
        /// the move to a mapping (ops large enough to cross `MAP_FROM` now and then).
        #[test]
        fn holds_what_a_vec_would(ops in proptest::collection::vec(prop_oneof![
            any::<u64>().prop_map(Op::Push),
            proptest::collection::vec(any::<u64>(), 0..64).prop_map(Op::Extend),
            (any::<usize>(), 0usize..100_000).prop_map(|(a, n)| Op::Within(a, n)),
            (0usize..300_000, any::<u64>()).prop_map(|(l, x)| Op::Resize(l, x)),
            (0usize..300_000).prop_map(Op::Truncate),
            (any::<usize>(), any::<u64>()).prop_map(|(i, x)| Op::Set(i, x)),
        ], 0..40)) {
            let (mut c, mut v) = (Column::default(), Vec::new());
            for op in &ops {
                apply(&mut c, &mut v, op);
                prop_assert_eq!(c.as_slice(), v.as_slice());
            }
            prop_assert!(c.capacity() >= c.len());
        }
    }
}
