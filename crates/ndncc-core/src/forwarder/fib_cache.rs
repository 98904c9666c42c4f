//! What a FIB found for each name a node looked up: a table from an interned name to the
//! entry its longest-prefix match found, or none.
//!
//! A router of a large world looks up a different flow's name on nearly every Interest, and its
//! table is rarely in the cache when one comes. std's table went through a group of control
//! bytes before its bucket, two reads out of memory, and cannot say where a lookup will read.
//! Here a bucket is the name and the entry in 8 bytes, found by linear probing from where the
//! name's id hashes to, so that an arrival's look ahead can start loading it
//! (`FibCache::prefetch`). Names are only added, and the table is emptied as a whole when a
//! route changes, so no removal is needed. Where a name lies changes no result: the table is
//! never iterated but to grow.

/// A bucket: a name and what its lookup found (`NO_ENTRY`: nothing), or `EMPTY` in `name`.
#[derive(Clone, Copy, Debug)]
struct Bucket {
    name: u32,
    entry: u32,
}

/// The name of an empty bucket: the name table never gives this id.
const EMPTY: u32 = u32::MAX;
/// What a bucket holds for a name whose lookup matched no entry (no FIB has this many).
const NO_ENTRY: u32 = u32::MAX;

const VACANT: Bucket = Bucket { name: EMPTY, entry: NO_ENTRY };

/// Buckets of a table's first block: room for four names at half load.
const FIRST_BUCKETS: usize = 8;

#[derive(Clone, Debug, Default)]
pub struct FibCache {
    /// A power of two of buckets, or none before the first insert (most nodes never cache).
    /// A boxed slice, as the table never grows in place: 8 bytes of every node fewer than a
    /// `Vec`.
    buckets: Box<[Bucket]>,
    len: usize,
}

impl FibCache {
    /// The bucket `name` hashes to: the top bits of a multiplicative hash, since interned ids
    /// are small consecutive numbers. The table is not empty.
    #[inline(always)]
    fn home(&self, name: u32) -> usize {
        let shift = u64::BITS - self.buckets.len().trailing_zeros();
        // A power of two of at least `FIRST_BUCKETS` buckets: the shift leaves fewer than 64
        // bits, an index below the bucket count.
        usize::try_from(u64::from(name).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> shift).unwrap_or(0)
    }

    /// Where `name` lies, or the empty bucket that ends its run. The table is not empty.
    #[inline(always)]
    fn find(&self, name: u32) -> (usize, bool) {
        let mask = self.buckets.len() - 1;
        let mut i = self.home(name);
        loop {
            match self.buckets[i].name {
                EMPTY => return (i, false),
                n if n == name => return (i, true),
                _ => i = (i + 1) & mask,
            }
        }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    /// Buckets held (none until the first insert).
    pub fn capacity(&self) -> usize {
        self.buckets.len()
    }

    /// What the lookup of `name` found, if it was cached: `Some(None)` when it matched nothing.
    #[inline]
    pub fn get(&self, name: u32) -> Option<Option<u32>> {
        if self.buckets.is_empty() {
            return None;
        }
        match self.find(name) {
            (i, true) => {
                let e = self.buckets[i].entry;
                Some((e != NO_ENTRY).then_some(e))
            }
            _ => None,
        }
    }

    /// Start loading the bucket a lookup of `name` reads first.
    #[inline(always)]
    pub fn prefetch(&self, name: u32) {
        if !self.buckets.is_empty() {
            crate::prefetch::prefetch(&self.buckets[self.home(name)]);
        }
    }

    /// Cache what the lookup of `name` found (`name` is not `u32::MAX`, nor `entry`'s value).
    pub fn insert(&mut self, name: u32, entry: Option<u32>) {
        debug_assert!(name != EMPTY && entry != Some(NO_ENTRY), "reserved ids");
        if self.buckets.is_empty() {
            self.buckets = vec![VACANT; FIRST_BUCKETS].into_boxed_slice();
        }
        let (i, found) = self.find(name);
        self.buckets[i] = Bucket { name, entry: entry.unwrap_or(NO_ENTRY) };
        if !found {
            self.len += 1;
            if 2 * self.len > self.buckets.len() {
                self.grow();
            }
        }
    }

    /// Forget every name, keeping the buckets.
    pub fn clear(&mut self) {
        self.buckets.fill(VACANT);
        self.len = 0;
    }

    #[cold]
    fn grow(&mut self) {
        let grown = vec![VACANT; 2 * self.buckets.len()].into_boxed_slice();
        let old = std::mem::replace(&mut self.buckets, grown);
        for &b in old.iter().filter(|b| b.name != EMPTY) {
            let (i, _) = self.find(b.name);
            self.buckets[i] = b;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::collections::HashMap;

    proptest::proptest! {
        /// The cache answers as a std map given the same inserts and clears, across growth.
        #[test]
        fn answers_as_a_map(ops in proptest::collection::vec((0u8..8, 0u32..600, proptest::option::of(0u32..50)), 0..400)) {
            let (mut cache, mut model) = (FibCache::default(), HashMap::new());
            for (op, name, entry) in ops {
                match op {
                    0 => {
                        cache.clear();
                        model.clear();
                    }
                    1..=4 => {
                        cache.insert(name, entry);
                        model.insert(name, entry);
                    }
                    _ => {}
                }
                proptest::prop_assert_eq!(cache.get(name), model.get(&name).copied());
                proptest::prop_assert_eq!(cache.len(), model.len());
                proptest::prop_assert!(cache.capacity() == 0 || 2 * cache.len() <= cache.capacity());
            }
            for (name, entry) in &model {
                proptest::prop_assert_eq!(cache.get(*name), Some(*entry));
            }
        }
    }

    /// An empty cache takes no heap block, and looking up in it finds nothing.
    #[test]
    fn an_empty_cache_holds_nothing() {
        let cache = FibCache::default();
        assert_eq!((cache.capacity(), cache.get(7)), (0, None));
        cache.prefetch(7);
    }
}
