//! Interned names. A packet carries the `NameId` of its prefix (every component but the
//! segment number) and the segment number itself, so the hot path never touches strings.

use rustc_hash::FxHashMap;

use crate::ids::NameId;

/// Split "/a/b/c" into ["a", "b", "c"]; empty components are ignored.
pub fn components(name: &str) -> Vec<String> {
    name.split('/').filter(|c| !c.is_empty()).map(str::to_owned).collect()
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

#[derive(Default, Debug, Clone)]
pub struct NameTable {
    names: Vec<String>,
    comps: Vec<Vec<String>>,
    index: FxHashMap<String, NameId>,
}

impl NameTable {
    pub fn intern(&mut self, name: &str) -> NameId {
        let canon = canonical(name);
        if let Some(id) = self.index.get(&canon) {
            return *id;
        }
        let id = NameId(self.names.len() as u32);
        self.comps.push(components(&canon));
        self.names.push(canon.clone());
        self.index.insert(canon, id);
        id
    }
    pub fn get(&self, name: &str) -> Option<NameId> {
        self.index.get(&canonical(name)).copied()
    }
    pub fn name(&self, id: NameId) -> &str {
        &self.names[id.idx()]
    }
    pub fn components(&self, id: NameId) -> &[String] {
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
