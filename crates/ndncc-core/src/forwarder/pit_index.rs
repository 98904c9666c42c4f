//! The PIT's map from a pending name to the slot of its entry: a few names kept inline, more in
//! a hash table of its own (`pit_hash.rs`).
//!
//! Most nodes of a large world hold a handful of pending Interests (a consumer's node, a leaf
//! router) and are visited now and then, so their tables are out of the cache when a packet
//! comes. A hash table's lookup then waits for its control bytes and then for its bucket, each
//! in memory of its own. Up to `INLINE` names live in the index itself, inside the `Pit` (which
//! an arrival's look ahead prefetches with its node's tables), so that their lookup reads
//! nothing else. An index that outgrows them moves to the hash table for good: a node that was
//! once that busy is likely to be again. Where a name lies changes no result: the PIT is never
//! iterated.

use super::pit_hash::PitHash;
use crate::ids::NameId;
use crate::packet::Name;

/// Names an index keeps inline before it moves to a hash table.
pub const INLINE: usize = 4;

/// A slot number kept inline, as an index (lossless: `usize` is at least 32 bits here).
#[inline(always)]
fn widen(slot: u32) -> usize {
    slot as usize
}

#[derive(Debug)]
pub enum PitIndex {
    /// A few names, inline.
    Inline(InlineNames),
    /// Every pending name, once more than `INLINE` were pending at once.
    Hashed(PitHash),
}

/// The first `len` names are pending, each in the slot at the same place of `slots`. A name's
/// prefix and segment are kept in arrays of their own (a `Name` is 16 bytes, four of them
/// padding), slots as `u32` and the length as a byte: 72 bytes rather than 112, which the
/// node's PIT and every field after it in the node's first lines were pushed along by.
#[derive(Debug, Default)]
pub struct InlineNames {
    len: Count,
    prefixes: [NameId; INLINE],
    segs: [u64; INLINE],
    slots: [u32; INLINE],
}

/// How many names an `InlineNames` holds, up to `INLINE`: a type of five values, which leaves
/// the others to the index's enum for its tag (with a `u8` the tag took 8 bytes more).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[repr(u8)]
enum Count {
    #[default]
    Zero,
    One,
    Two,
    Three,
    Four,
}

impl Count {
    #[inline(always)]
    fn get(self) -> usize {
        usize::from(self as u8)
    }
    /// `n` names, up to `INLINE` (more are never kept inline).
    #[inline(always)]
    fn of(n: usize) -> Count {
        match n {
            0 => Count::Zero,
            1 => Count::One,
            2 => Count::Two,
            3 => Count::Three,
            _ => Count::Four,
        }
    }
}

const _: () = assert!(Count::Four as usize == INLINE, "a count for every inline place");

impl InlineNames {
    /// Where `name` is among the first `len`.
    #[inline(always)]
    fn position(&self, name: &Name) -> Option<usize> {
        (0..self.len.get()).find(|&i| self.prefixes[i] == name.prefix && self.segs[i] == name.seg)
    }
    fn name(&self, i: usize) -> Name {
        Name { prefix: self.prefixes[i], seg: self.segs[i] }
    }
}

impl Default for PitIndex {
    fn default() -> PitIndex {
        PitIndex::Inline(InlineNames::default())
    }
}

impl PitIndex {
    /// The buckets of the hash table the names are in; zero while they are inline.
    pub fn buckets(&self) -> usize {
        match self {
            PitIndex::Inline(_) => 0,
            PitIndex::Hashed(map) => map.buckets(),
        }
    }

    /// Whether the names are in a hash table (more than `INLINE` were once pending at once).
    #[inline(always)]
    pub fn is_hashed(&self) -> bool {
        matches!(self, PitIndex::Hashed(_))
    }

    /// Start loading where a lookup of `name` reads first: its bucket, in a hash table (inline
    /// names lie in the index itself).
    #[inline(always)]
    pub fn prefetch(&self, name: &Name) {
        if let PitIndex::Hashed(map) = self {
            map.prefetch(name);
        }
    }

    /// The slot of `name`'s entry.
    #[inline]
    pub fn get(&self, name: &Name) -> Option<usize> {
        match self {
            PitIndex::Inline(inline) => inline.position(name).map(|i| widen(inline.slots[i])),
            PitIndex::Hashed(map) => map.get(name),
        }
    }

    /// Put `name`'s entry in `slot`; return the slot it had, if it had one.
    #[inline]
    pub fn insert(&mut self, name: Name, slot: usize) -> Option<usize> {
        match self {
            PitIndex::Inline(inline) => {
                // As in the table (`PitHash::insert`): 2^32 slots would take 500 GB.
                let small = u32::try_from(slot).expect("fewer than 2^32 - 1 PIT slots");
                if let Some(i) = inline.position(&name) {
                    return Some(widen(std::mem::replace(&mut inline.slots[i], small)));
                }
                let n = inline.len.get();
                if n < INLINE {
                    (inline.prefixes[n], inline.segs[n], inline.slots[n]) = (name.prefix, name.seg, small);
                    inline.len = Count::of(n + 1);
                    return None;
                }
                let mut map = PitHash::default();
                for i in 0..n {
                    map.insert(inline.name(i), widen(inline.slots[i]));
                }
                map.insert(name, slot);
                *self = PitIndex::Hashed(map);
                None
            }
            PitIndex::Hashed(map) => map.insert(name, slot),
        }
    }

    /// Forget `name`; return the slot its entry had. Always inline: every Data removes its
    /// entry, and as a call (it was not inlined on its own) each removal paid a frame.
    #[inline(always)]
    pub fn remove(&mut self, name: &Name) -> Option<usize> {
        match self {
            PitIndex::Inline(inline) => {
                let i = inline.position(name)?;
                let slot = inline.slots[i];
                // `i` is one of the first `len`, so `len` is at least one.
                let last = inline.len.get() - 1;
                inline.len = Count::of(last);
                inline.prefixes[i] = inline.prefixes[last];
                inline.segs[i] = inline.segs[last];
                inline.slots[i] = inline.slots[last];
                Some(widen(slot))
            }
            PitIndex::Hashed(map) => map.remove(name),
        }
    }

    #[inline]
    pub fn len(&self) -> usize {
        match self {
            PitIndex::Inline(inline) => inline.len.get(),
            PitIndex::Hashed(map) => map.len(),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn name(prefix: u32, seg: u64) -> Name {
        Name { prefix: NameId(prefix), seg }
    }

    #[test]
    fn a_name_past_the_inline_ones_moves_the_index_to_its_hash_table_for_good() {
        let mut index = PitIndex::default();
        for seg in 0..INLINE as u64 {
            assert_eq!(index.insert(name(1, seg), seg as usize + 10), None);
        }
        assert!(matches!(index, PitIndex::Inline(_)));
        assert_eq!(index.insert(name(2, 0), 99), None);
        assert!(matches!(index, PitIndex::Hashed(_)));
        assert_eq!(index.len(), INLINE + 1);
        for seg in 0..INLINE as u64 {
            assert_eq!(index.get(&name(1, seg)), Some(seg as usize + 10));
        }
        assert_eq!(index.get(&name(2, 0)), Some(99));
        for seg in 0..INLINE as u64 {
            index.remove(&name(1, seg));
        }
        assert!(matches!(index, PitIndex::Hashed(_)), "a busy node's index stays hashed");
        assert_eq!((index.len(), index.get(&name(2, 0))), (1, Some(99)));
    }

    proptest::proptest! {
        /// Inserts, replacements and removals answer as a plain map's would, across the move
        /// from inline names to the hash table. Name 0 of prefix 0 is among them: an empty
        /// inline place holds that name, which must not be found.
        #[test]
        fn the_index_answers_as_a_map(ops in proptest::collection::vec((0u8..3, 0u32..2, 0u64..5, 0usize..100), 1..60)) {
            let mut index = PitIndex::default();
            let mut model = std::collections::HashMap::new();
            for (op, prefix, seg, slot) in ops {
                let n = name(prefix, seg);
                match op {
                    0 => proptest::prop_assert_eq!(index.insert(n, slot), model.insert(n, slot)),
                    1 => proptest::prop_assert_eq!(index.remove(&n), model.remove(&n)),
                    _ => proptest::prop_assert_eq!(index.get(&n), model.get(&n).copied()),
                }
                proptest::prop_assert_eq!(index.len(), model.len());
                proptest::prop_assert_eq!(index.is_empty(), model.is_empty());
                for prefix in 0..2 {
                    for seg in 0..5 {
                        let n = name(prefix, seg);
                        proptest::prop_assert_eq!(index.get(&n), model.get(&n).copied());
                    }
                }
            }
        }
    }
}
