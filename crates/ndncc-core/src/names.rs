//! Interned names. A packet carries the `NameId` of its prefix (every component but the
//! segment number) and the segment number itself, so the hot path never touches strings.

use std::hash::BuildHasher;

use compact_str::CompactString;
use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;
use smallvec::SmallVec;

use crate::ids::NameId;

/// Split "/a/b/c" into ["a", "b", "c"]; empty components are ignored.
pub fn components(name: &str) -> Vec<CompactString> {
    name.split('/').filter(|c| !c.is_empty()).map(CompactString::from).collect()
}

/// Canonical "/a/b" form of a name.
pub fn canonical(name: &str) -> String {
    let c = components(name);
    if c.is_empty() {
        "/".to_owned()
    } else {
        format!("/{}", c.join("/"))
    }
}

/// Interned names, each kept once: the index holds ids, found by the hash of the name they
/// stand for (as the recorder's `Interner` and the FIB's prefix index do), and the names are
/// `CompactString`s, inline when short. (A map from `String`s kept every name twice, each in a
/// heap block of its own: a world interns a name per flow.)
#[derive(Default, Debug, Clone)]
pub struct NameTable {
    names: Vec<CompactString>,
    /// Each name's components, inline up to two (most prefixes have one or two).
    comps: Vec<SmallVec<[CompactString; 2]>>,
    index: HashTable<NameId>,
}

impl NameTable {
    pub fn intern(&mut self, name: &str) -> NameId {
        let canon = canonical(name);
        let hash = FxBuildHasher.hash_one(canon.as_str());
        let NameTable { names, comps, index } = self;
        if let Some(&id) = index.find(hash, |id| names[id.idx()] == canon) {
            return id;
        }
        // The last id is never given: the FIB's last lookup keeps it for "none" (`fib.rs`).
        let id =
            u32::try_from(names.len()).ok().filter(|&i| i < u32::MAX).map(NameId).expect("fewer than 2^32 - 1 names");
        comps.push(components(&canon).into_iter().collect());
        names.push(canon.into());
        index.insert_unique(hash, id, |id| FxBuildHasher.hash_one(names[id.idx()].as_str()));
        id
    }
    pub fn get(&self, name: &str) -> Option<NameId> {
        let canon = canonical(name);
        self.index.find(FxBuildHasher.hash_one(canon.as_str()), |id| self.names[id.idx()] == canon).copied()
    }
    pub fn name(&self, id: NameId) -> &str {
        &self.names[id.idx()]
    }
    pub fn components(&self, id: NameId) -> &[CompactString] {
        &self.comps[id.idx()]
    }
    pub fn len(&self) -> usize {
        self.names.len()
    }
    pub fn is_empty(&self) -> bool {
        self.names.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn interning_is_canonical_and_idempotent() {
        let mut t = NameTable::default();
        let a = t.intern("/p1/A");
        assert_eq!(t.intern("p1/A/"), a);
        assert_ne!(t.intern("/p1"), a);
        assert_eq!(t.name(a), "/p1/A");
    }

    #[test]
    fn components_ignore_empty_parts() {
        assert_eq!(components("/a//b/"), vec!["a".to_string(), "b".to_string()]);
        assert!(components("/").is_empty());
    }
}
