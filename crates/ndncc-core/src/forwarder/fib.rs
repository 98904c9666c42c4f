//! Forwarding Information Base: longest-prefix match on name components; next hops sorted by cost.

use compact_str::CompactString;
use smallvec::SmallVec;

use crate::ids::{FaceId, NameId};
use std::hash::BuildHasher;

use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use super::fib_cache::FibCache;

use crate::names::{components, NameTable};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NextHop {
    pub face: FaceId,
    pub cost: u64,
}

#[derive(Clone, Debug)]
pub struct FibEntry {
    pub prefix: CompactString,
    /// Sorted by (cost, face) so "best" is first and ties break deterministically. Two inline:
    /// most entries have one or two, and an entry is then one cache line (64 bytes; with
    /// four inline, 96).
    pub nexthops: SmallVec<[NextHop; 2]>,
}

/// Index of an entry in a node's FIB (stable once built; strategies key state by it).
pub type FibEntryId = u32;

#[derive(Clone, Debug, Default)]
/// In declaration order (`repr(C)`): the last lookup and the entries, which a packet of the
/// flow just seen reads, first.
#[repr(C)]
pub struct Fib {
    /// The last lookup: most packets a node forwards belong to the flow it just saw.
    last: LastLookup,
    entries: Vec<FibEntry>,
    /// Entry index by canonical prefix, so adding a route is one lookup; `None` while the FIB
    /// has at most `SCANNED` entries, which `find` then scans. Most nodes of a large world (a
    /// consumer's, a producer's) have one route, and a hash table of one key took more memory
    /// than the entry itself (boxed, an empty table takes 8 bytes of the node, not 32).
    /// The index holds entry ids, found by the hash of their entry's prefix, so that each
    /// prefix is kept once (a map from prefixes kept a router's 10,000 prefixes twice).
    by_prefix: Option<Box<HashTable<FibEntryId>>>,
    /// The distinct component counts of the prefixes, longest first: LPM tries only these.
    /// Inline up to two (in the 24 bytes of a `Vec`): most FIBs have one.
    lengths: SmallVec<[usize; 2]>,
    /// LPM result per interned name seen by this node (`None` = no match). Keyed by name, so
    /// its size follows the names this node forwards, not every name of the run; empty while
    /// the node has looked up one name only (`last` holds it).
    cache: FibCache,
}

/// A FIB's last lookup in 8 bytes: the name looked up (`NO_NAME` before the first) and the
/// entry found (`NO_ENTRY`: none matched). As a pair of `Option`s it took 12, and with the
/// padding before the entries 16, which pushed the node past eight cache lines.
#[derive(Clone, Copy, Debug)]
struct LastLookup {
    name: NameId,
    entry: FibEntryId,
}

/// No name: the name table never gives this id (`NameTable::intern`).
const NO_NAME: NameId = NameId(u32::MAX);
/// No entry: a FIB never has this many (`Fib::add_route`).
const NO_ENTRY: FibEntryId = FibEntryId::MAX;

impl LastLookup {
    const NONE: LastLookup = LastLookup { name: NO_NAME, entry: NO_ENTRY };

    fn of(name: NameId, entry: Option<FibEntryId>) -> LastLookup {
        LastLookup { name, entry: entry.unwrap_or(NO_ENTRY) }
    }
    /// The entry found, if one matched.
    #[inline(always)]
    fn found(self) -> Option<FibEntryId> {
        (self.entry != NO_ENTRY).then_some(self.entry)
    }
    /// The name looked up and what was found, if there was a lookup.
    #[inline(always)]
    fn get(self) -> Option<(NameId, Option<FibEntryId>)> {
        (self.name != NO_NAME).then_some((self.name, self.found()))
    }
}

impl Default for LastLookup {
    fn default() -> LastLookup {
        LastLookup::NONE
    }
}

/// Entries a FIB finds by scanning them before it indexes them by prefix.
const SCANNED: usize = 8;

impl Fib {
    /// The entry of exactly the canonical prefix `canon`.
    fn find(&self, canon: &str) -> Option<FibEntryId> {
        let entries = &self.entries;
        match &self.by_prefix {
            Some(index) => index.find(FxBuildHasher.hash_one(canon), |&i| entries[i as usize].prefix == canon).copied(),
            None => entries.iter().position(|e| e.prefix == canon).map(|i| i as FibEntryId),
        }
    }

    /// Add (or update the cost of) a next hop for `prefix`.
    pub fn add_route(&mut self, prefix: &str, face: FaceId, cost: u64) {
        let canon = crate::names::canonical(prefix);
        let idx = match self.find(&canon) {
            Some(i) => i as usize,
            None => {
                let len = components(&canon).len();
                if !self.lengths.contains(&len) {
                    self.lengths.push(len);
                    self.lengths.sort_unstable_by(|a, b| b.cmp(a));
                }
                if self.entries.len() < SCANNED {
                    // One entry, exactly: most FIBs keep to that (see `by_prefix`).
                    self.entries.reserve_exact(1);
                }
                let i = self.entries.len();
                // `NO_ENTRY` is never an entry's id; ids below it convert losslessly.
                let id =
                    FibEntryId::try_from(i).ok().filter(|&k| k < NO_ENTRY).expect("fewer than 2^32 - 1 FIB entries");
                self.entries.push(FibEntry { prefix: canon.into(), nexthops: SmallVec::new() });
                let entries = &self.entries;
                let hash_of = |&k: &FibEntryId| FxBuildHasher.hash_one(&entries[k as usize].prefix);
                match self.by_prefix.as_mut() {
                    Some(index) => {
                        index.insert_unique(FxBuildHasher.hash_one(&entries[i].prefix), id, hash_of);
                    }
                    // Past the scanned ones: index them all.
                    None if i == SCANNED => {
                        let mut index = HashTable::with_capacity(entries.len());
                        for (k, e) in entries.iter().enumerate() {
                            index.insert_unique(FxBuildHasher.hash_one(&e.prefix), k as FibEntryId, hash_of);
                        }
                        self.by_prefix = Some(Box::new(index));
                    }
                    None => {}
                }
                i
            }
        };
        let e = &mut self.entries[idx];
        e.nexthops.retain(|n| n.face != face);
        e.nexthops.push(NextHop { face, cost });
        e.nexthops.sort_by_key(|n| (n.cost, n.face));
        self.cache.clear();
        self.last = LastLookup::NONE;
    }

    /// The cost of next hop `face` for exactly `prefix`, if it has that next hop.
    pub fn route_cost(&self, prefix: &str, face: FaceId) -> Option<u64> {
        let i = self.find(&crate::names::canonical(prefix))?;
        self.entries[i as usize].nexthops.iter().find(|n| n.face == face).map(|n| n.cost)
    }

    /// Remove the next hop `face` of `prefix` (true if there was one). An entry left without
    /// next hops keeps its id (strategies key their state by it) but no longer matches, so a
    /// shorter prefix answers for its names, as when a forwarder erases the entry.
    pub fn remove_route(&mut self, prefix: &str, face: FaceId) -> bool {
        let Some(i) = self.find(&crate::names::canonical(prefix)) else { return false };
        let e = &mut self.entries[i as usize];
        let before = e.nexthops.len();
        e.nexthops.retain(|n| n.face != face);
        self.cache.clear();
        self.last = LastLookup::NONE;
        e.nexthops.len() < before
    }

    /// Remove every next hop, keeping the entries (their ids stay valid: PIT entries and
    /// strategies hold them); routes are then added again with `add_route`.
    pub fn clear_next_hops(&mut self) {
        for e in &mut self.entries {
            e.nexthops.clear();
        }
        // An entry without next hops no longer matches: forget what lookups found.
        self.cache.clear();
        self.last = LastLookup::NONE;
    }

    /// Longest-prefix match for the interned name `id`. Inline: nearly every lookup asks for
    /// the name asked for last (a flow's packets follow each other).
    #[inline]
    pub fn lookup(&mut self, id: NameId, names: &NameTable) -> Option<FibEntryId> {
        // `id` is never `NO_NAME`, so no lookup yet matches nothing.
        if self.last.name == id {
            return self.last.found();
        }
        self.lookup_other(id, names)
    }

    /// Start loading where a lookup of `id` reads, when it is not the name looked up last.
    #[inline(always)]
    pub fn prefetch_lookup(&self, id: NameId) {
        if self.last.name != id {
            self.cache.prefetch(id.0);
        }
    }

    #[inline(never)]
    fn lookup_other(&mut self, id: NameId, names: &NameTable) -> Option<FibEntryId> {
        if let Some(hit) = self.cache.get(id.0) {
            self.last = LastLookup::of(id, hit);
            return hit;
        }
        self.resolve(id, names)
    }

    /// Longest-prefix match for a name this node has not looked up before (out of line, so
    /// that the cache's answer above stays a short path).
    #[cold]
    #[inline(never)]
    fn resolve(&mut self, id: NameId, names: &NameTable) -> Option<FibEntryId> {
        let name = names.components(id);
        let mut best = None;
        for &len in &self.lengths {
            if len > name.len() {
                continue;
            }
            let prefix = if len == 0 { "/".to_string() } else { format!("/{}", name[..len].join("/")) };
            // An entry whose last next hop was removed matches nothing (routes added in a run
            // from outside, `remove_route`; a scenario's entries always have next hops).
            if let Some(i) = self.find(&prefix).filter(|&i| !self.entries[i as usize].nexthops.is_empty()) {
                best = Some(i);
                break;
            }
        }
        // The cache starts with the second name looked up: a node that only ever forwards one
        // (a consumer's, a producer's) finds it as the last one each time, and an empty cache
        // takes no heap block. From then on it holds every name looked up, the last included.
        match self.last.get() {
            Some((first, hit)) if self.cache.is_empty() => {
                self.cache.insert(first.0, hit);
                self.cache.insert(id.0, best);
            }
            None if self.cache.is_empty() => {}
            _ => {
                self.cache.insert(id.0, best);
            }
        }
        self.last = LastLookup::of(id, best);
        best
    }

    pub fn entry(&self, id: FibEntryId) -> &FibEntry {
        &self.entries[id as usize]
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_longest_matching_prefix_wins() {
        let mut names = NameTable::default();
        let mut fib = Fib::default();
        fib.add_route("/", FaceId(0), 1);
        fib.add_route("/a", FaceId(1), 1);
        fib.add_route("/a/b", FaceId(2), 1);
        let abc = names.intern("/a/b/c");
        let ax = names.intern("/a/x");
        let z = names.intern("/z");
        let hop = |fib: &mut Fib, n| {
            let e = fib.lookup(n, &names).unwrap();
            fib.entry(e).nexthops[0].face
        };
        assert_eq!(hop(&mut fib, abc), FaceId(2));
        assert_eq!(hop(&mut fib, ax), FaceId(1));
        assert_eq!(hop(&mut fib, z), FaceId(0));
    }

    /// A node that forwards one name keeps no cache; once it forwards a second, both answers
    /// are cached, and every lookup answers as a fresh longest-prefix match would, across a
    /// route change that empties the cache.
    #[test]
    fn the_cache_starts_with_the_second_name() {
        let mut names = NameTable::default();
        let mut fib = Fib::default();
        fib.add_route("/a", FaceId(1), 1);
        fib.add_route("/b", FaceId(2), 1);
        let (a, b, c) = (names.intern("/a/1"), names.intern("/b/1"), names.intern("/c/1"));
        for _ in 0..3 {
            assert_eq!(fib.lookup(a, &names), Some(0));
        }
        assert_eq!(fib.cache.capacity(), 0, "one name: no cache");
        for _ in 0..2 {
            assert_eq!((fib.lookup(b, &names), fib.lookup(a, &names), fib.lookup(c, &names)), (Some(1), Some(0), None));
        }
        assert_eq!(fib.cache.len(), 3);
        fib.add_route("/c", FaceId(3), 1);
        assert!(fib.cache.is_empty());
        assert_eq!((fib.lookup(c, &names), fib.lookup(a, &names), fib.lookup(c, &names)), (Some(2), Some(0), Some(2)));
        assert_eq!(fib.cache.len(), 2);
    }

    #[test]
    fn a_removed_route_falls_back_to_a_shorter_prefix() {
        let mut names = NameTable::default();
        let mut fib = Fib::default();
        fib.add_route("/a", FaceId(1), 1);
        fib.add_route("/a/b", FaceId(2), 1);
        let ab = names.intern("/a/b/c");
        assert_eq!(fib.lookup(ab, &names), Some(1));
        assert!(fib.remove_route("/a/b", FaceId(2)));
        assert!(!fib.remove_route("/a/b", FaceId(2)));
        assert!(!fib.remove_route("/x", FaceId(2)));
        assert_eq!(fib.lookup(ab, &names), Some(0));
        fib.add_route("/a/b", FaceId(3), 1);
        assert_eq!(fib.lookup(ab, &names), Some(1), "the entry keeps its id");
    }

    #[test]
    fn no_match_without_a_covering_prefix() {
        let mut names = NameTable::default();
        let mut fib = Fib::default();
        fib.add_route("/a", FaceId(1), 1);
        let ab = names.intern("/ab");
        assert_eq!(fib.lookup(ab, &names), None);
    }

    /// A router of a large world keeps an entry per prefix: one cache line each.
    #[test]
    fn an_entry_is_one_cache_line() {
        assert_eq!(std::mem::size_of::<FibEntry>(), 64);
    }

    /// Prefixes are found alike before and after the FIB indexes them (past `SCANNED`).
    #[test]
    fn entries_are_found_by_prefix_past_the_scanned_ones() {
        let mut names = NameTable::default();
        let mut fib = Fib::default();
        for k in 0..3 * SCANNED as u32 {
            fib.add_route(&format!("/p{k}"), FaceId(k), 1);
            for j in 0..=k {
                assert_eq!(fib.route_cost(&format!("/p{j}/"), FaceId(j)), Some(1), "{j} of {k}");
            }
        }
        for k in 0..3 * SCANNED as u32 {
            fib.add_route(&format!("/p{k}"), FaceId(k), 7);
            let n = names.intern(&format!("/p{k}/seg"));
            assert_eq!(fib.lookup(n, &names), Some(k));
            assert_eq!(fib.entry(k).nexthops.as_slice(), &[NextHop { face: FaceId(k), cost: 7 }]);
        }
        assert!(fib.remove_route("/p3", FaceId(3)));
        assert_eq!(fib.route_cost("/p3", FaceId(3)), None);
    }

    #[test]
    fn next_hops_are_ordered_by_cost_and_readding_updates_cost() {
        let mut fib = Fib::default();
        fib.add_route("/p", FaceId(3), 5);
        fib.add_route("/p", FaceId(1), 2);
        fib.add_route("/p", FaceId(3), 1);
        let hops: Vec<_> = fib.entry(0).nexthops.iter().map(|n| (n.face.0, n.cost)).collect();
        assert_eq!(hops, vec![(3, 1), (1, 2)]);
    }
}
