//! The PIT index of a busy node: a hash table from a pending name to the slot of its entry,
//! written for that one job.
//!
//! A general hash table (std's) does more per packet than the PIT needs: an insert looks for
//! the name first, which the forwarder has just done, and every operation goes through a
//! group of control bytes before it reaches a bucket. Here a bucket is the name and its slot
//! in 16 bytes, found by linear probing from where the name's hash (`SegmentHasher`, which
//! spreads a prefix's consecutive segments 17 buckets apart) puts it, and a removal shifts the
//! buckets after it back rather than leaving a tombstone, so a lookup stops at the first empty
//! bucket. The table is at most half full, so runs are short. Where a name lies changes no
//! result: the table is never iterated but to grow.

use std::hash::{Hash, Hasher};

use super::pit::SegmentHasher;
use crate::ids::NameId;
use crate::packet::Name;

/// A bucket: a name and the slot of its entry, or `EMPTY` in `slot`.
#[derive(Clone, Copy, Debug)]
struct Bucket {
    seg: u64,
    prefix: NameId,
    slot: u32,
}

/// The bytes of a bucket.
pub const BUCKET_BYTES: usize = std::mem::size_of::<Bucket>();

/// The slot of an empty bucket (no PIT has 2^32 - 1 slots: they would take 500 GB).
const EMPTY: u32 = u32::MAX;

const VACANT: Bucket = Bucket { seg: 0, prefix: NameId(0), slot: EMPTY };

/// Buckets of a new table: room for eight names at half load, as the std table it replaces
/// started with.
const FIRST_BUCKETS: usize = 16;

#[derive(Debug)]
pub struct PitHash {
    /// A power of two of buckets.
    buckets: Vec<Bucket>,
    len: usize,
}

/// The hash of `name`, as the std table was given it.
#[inline(always)]
fn hash(name: &Name) -> u64 {
    let mut h = SegmentHasher::default();
    name.hash(&mut h);
    h.finish()
}

impl Default for PitHash {
    fn default() -> PitHash {
        PitHash { buckets: vec![VACANT; FIRST_BUCKETS], len: 0 }
    }
}

impl PitHash {
    #[inline(always)]
    fn mask(&self) -> usize {
        self.buckets.len() - 1
    }

    /// The bucket `name` hashes to.
    #[inline(always)]
    fn home(&self, name: &Name) -> usize {
        // The low bits pick the bucket; a `usize` holds at least the mask's.
        (hash(name) as usize) & self.mask()
    }

    /// Where `name` lies, or the empty bucket that ends its run.
    #[inline(always)]
    fn find(&self, name: &Name) -> (usize, bool) {
        let mask = self.mask();
        let mut i = self.home(name);
        loop {
            let b = &self.buckets[i];
            if b.slot == EMPTY {
                return (i, false);
            }
            if b.seg == name.seg && b.prefix == name.prefix {
                return (i, true);
            }
            i = (i + 1) & mask;
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// Buckets held: a power of two, at least twice `len`.
    pub fn buckets(&self) -> usize {
        self.buckets.len()
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Start loading the bucket `name` hashes to, where its lookup starts.
    #[inline(always)]
    pub fn prefetch(&self, name: &Name) {
        if let Some(b) = self.buckets.get(self.home(name)) {
            crate::prefetch::prefetch(b);
        }
    }

    #[inline]
    pub fn get(&self, name: &Name) -> Option<usize> {
        match self.find(name) {
            (i, true) => Some(self.buckets[i].slot as usize),
            _ => None,
        }
    }

    /// Put `name`'s entry in `slot`; return the slot it had, if it had one.
    #[inline]
    pub fn insert(&mut self, name: Name, slot: usize) -> Option<usize> {
        let slot = u32::try_from(slot).ok().filter(|&s| s != EMPTY).expect("fewer than 2^32 - 1 PIT slots");
        let (i, found) = self.find(&name);
        if found {
            return Some(std::mem::replace(&mut self.buckets[i].slot, slot) as usize);
        }
        self.buckets[i] = Bucket { seg: name.seg, prefix: name.prefix, slot };
        self.len += 1;
        if 2 * self.len > self.buckets.len() {
            self.grow();
        }
        None
    }

    /// Forget `name`; return the slot its entry had. The buckets after it in its run move back
    /// to fill the gap, each as far as its home allows.
    #[inline]
    pub fn remove(&mut self, name: &Name) -> Option<usize> {
        let (mut gap, found) = self.find(name);
        if !found {
            return None;
        }
        let slot = self.buckets[gap].slot as usize;
        let mask = self.mask();
        let mut j = gap;
        loop {
            j = (j + 1) & mask;
            let b = self.buckets[j];
            if b.slot == EMPTY {
                break;
            }
            // `b` may fill the gap unless its home lies after the gap, up to `j` (cyclically).
            let home = self.home(&Name { prefix: b.prefix, seg: b.seg });
            if (j.wrapping_sub(home) & mask) >= (j.wrapping_sub(gap) & mask) {
                self.buckets[gap] = b;
                gap = j;
            }
        }
        self.buckets[gap] = VACANT;
        self.len -= 1;
        Some(slot)
    }

    /// Double the buckets and place every name again.
    #[cold]
    #[inline(never)]
    fn grow(&mut self) {
        let doubled = vec![VACANT; 2 * self.buckets.len()];
        let old = std::mem::replace(&mut self.buckets, doubled);
        for b in old.into_iter().filter(|b| b.slot != EMPTY) {
            let (i, _) = self.find(&Name { prefix: b.prefix, seg: b.seg });
            self.buckets[i] = b;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bucket_is_sixteen_bytes() {
        assert_eq!(std::mem::size_of::<Bucket>(), 16);
    }

    proptest::proptest! {
        /// Inserts, replacements and removals answer as a plain map's would, through growth
        /// and the shifts of removals, with names of a few prefixes whose segments crowd
        /// together and names whose hashes collide in the low bits.
        #[test]
        fn the_table_answers_as_a_map(ops in proptest::collection::vec((0u8..4, 0u32..3, 0u64..200, 0usize..1000), 1..600)) {
            let mut table = PitHash::default();
            let mut model = std::collections::HashMap::new();
            for (op, prefix, seg, slot) in ops {
                let n = Name { prefix: NameId(prefix), seg: if op == 3 { seg << 40 } else { seg } };
                match op {
                    0 | 3 => proptest::prop_assert_eq!(table.insert(n, slot), model.insert(n, slot)),
                    1 => proptest::prop_assert_eq!(table.remove(&n), model.remove(&n)),
                    _ => proptest::prop_assert_eq!(table.get(&n), model.get(&n).copied()),
                }
                proptest::prop_assert_eq!(table.len(), model.len());
            }
            for (n, &slot) in &model {
                proptest::prop_assert_eq!(table.get(n), Some(slot));
            }
        }
    }
}
