//! Where each key of a TOML document sits: dotted key paths, their lines, and the reverse
//! lookup from a byte span (as serde errors report it) to the innermost key containing it.

use std::collections::BTreeMap;
use std::ops::Range;

use toml_edit::{ImDocument, Item, TableLike, Value};

/// One segment of a key path rendered for messages: bare when TOML allows it, quoted otherwise.
pub(crate) fn seg(name: &str) -> String {
    let bare = !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '-' || c == '_');
    if bare {
        name.to_string()
    } else {
        format!("{name:?}")
    }
}

/// `parent.child`, with `child` quoted when needed.
pub(crate) fn join(parent: &str, child: &str) -> String {
    if parent.is_empty() {
        seg(child)
    } else {
        format!("{parent}.{}", seg(child))
    }
}

/// `parent[i]`.
pub(crate) fn index(parent: &str, i: usize) -> String {
    format!("{parent}[{i}]")
}

/// Is `inner` equal to `outer` or inside it (`outer.x…` or `outer[i]…`)?
pub(crate) fn is_within(inner: &str, outer: &str) -> bool {
    inner == outer
        || (inner.len() > outer.len()
            && inner.starts_with(outer)
            && matches!(inner.as_bytes()[outer.len()], b'.' | b'['))
}

/// The parent path of `path` (`a.b[2].c` → `a.b[2]` → `a.b` → `a` → ``), walking the same
/// segments `join` and `index` produce. Quoted segments containing dots are handled.
pub(crate) fn parent(path: &str) -> Option<&str> {
    if path.is_empty() {
        return None;
    }
    let mut in_quotes = false;
    let mut escaped = false;
    let mut cut = 0;
    for (i, c) in path.char_indices() {
        if in_quotes {
            if escaped {
                escaped = false;
            } else if c == '\\' {
                escaped = true;
            } else if c == '"' {
                in_quotes = false;
            }
            continue;
        }
        match c {
            '"' => in_quotes = true,
            '.' | '[' => cut = i,
            _ => {}
        }
    }
    Some(&path[..cut])
}

/// 1-based line of byte `offset` in `text`.
pub(crate) fn line_at(text: &str, offset: usize) -> usize {
    let end = offset.min(text.len());
    text.as_bytes()[..end].iter().filter(|&&b| b == b'\n').count() + 1
}

#[derive(Clone, Debug)]
struct Entry {
    path: String,
    /// Bytes covered by the key and its value.
    range: Range<usize>,
    /// A scalar value as serde's messages show it (a string's text, a number's digits).
    value: Option<String>,
}

/// The key paths of one parsed text, with their positions.
#[derive(Clone, Debug, Default)]
pub(crate) struct SourceMap {
    /// Byte offsets at which each line starts.
    line_starts: Vec<usize>,
    entries: Vec<Entry>,
    /// Path → byte offset where its key (or its array element) starts.
    starts: BTreeMap<String, usize>,
}

impl SourceMap {
    pub fn new(text: &str, doc: &ImDocument<String>) -> SourceMap {
        let mut line_starts = vec![0];
        line_starts.extend(text.match_indices('\n').map(|(i, _)| i + 1));
        let mut map = SourceMap { line_starts, entries: Vec::new(), starts: BTreeMap::new() };
        map.walk_table(doc.as_table(), "");
        map
    }

    /// 1-based line of a byte offset.
    pub fn line_of(&self, offset: usize) -> usize {
        match self.line_starts.binary_search(&offset) {
            Ok(i) => i + 1,
            Err(i) => i.max(1),
        }
    }

    /// Line of the key at `path`, or of its nearest ancestor that is written in the text.
    pub fn line_of_path(&self, path: &str) -> Option<usize> {
        let mut p = Some(path);
        while let Some(cur) = p {
            if let Some(&off) = self.starts.get(cur) {
                return Some(self.line_of(off));
            }
            p = parent(cur);
        }
        None
    }

    /// Is `path` written in the text?
    pub fn has(&self, path: &str) -> bool {
        self.starts.contains_key(path)
    }

    /// The one key inside `path` (not `path` itself) whose value reads `shown`, if exactly one
    /// does: serde reports an error inside a tagged table (`loss = { type = "bernoulli", p =
    /// "abc" }`) at the table, and its message quotes the value.
    pub fn inner_key_with_value(&self, path: &str, shown: &str) -> Option<&str> {
        let mut found = self
            .entries
            .iter()
            .filter(|e| e.path != path && is_within(&e.path, path) && e.value.as_deref() == Some(shown));
        let first = found.next()?;
        found.next().is_none().then_some(first.path.as_str())
    }

    /// The innermost key whose key-and-value bytes contain `span`.
    pub fn path_at(&self, span: &Range<usize>) -> Option<&str> {
        self.entries
            .iter()
            .filter(|e| {
                e.range.start <= span.start
                    && span.end <= e.range.end
                    && !(span.start == span.end && span.start == e.range.end)
            })
            .min_by_key(|e| e.range.end - e.range.start)
            .map(|e| e.path.as_str())
    }

    fn add(&mut self, path: String, key_span: Option<Range<usize>>, value_span: Option<Range<usize>>) {
        self.add_valued(path, key_span, value_span, None);
    }

    fn add_valued(
        &mut self,
        path: String,
        key_span: Option<Range<usize>>,
        value_span: Option<Range<usize>>,
        value: Option<String>,
    ) {
        let start = match (&key_span, &value_span) {
            (Some(k), Some(v)) => k.start.min(v.start),
            (Some(k), None) => k.start,
            (None, Some(v)) => v.start,
            (None, None) => return,
        };
        let end = match (&key_span, &value_span) {
            (Some(k), Some(v)) => k.end.max(v.end),
            (Some(k), None) => k.end,
            (None, Some(v)) => v.end,
            (None, None) => return,
        };
        // The line of a key is where its key is written (for `[a.b]` headers: the header).
        let line_at = key_span.map(|k| k.start).unwrap_or(start);
        self.starts.entry(path.clone()).or_insert(line_at);
        self.entries.push(Entry { path, range: start..end, value });
    }

    fn walk_table(&mut self, t: &dyn TableLike, path: &str) {
        for (k, item) in t.iter() {
            let p = join(path, k);
            let key_span = t.key(k).and_then(|key| key.span());
            self.add_valued(p.clone(), key_span, item.span(), item.as_value().and_then(shown));
            self.walk_item(item, &p);
        }
    }

    fn walk_item(&mut self, item: &Item, path: &str) {
        match item {
            Item::Table(t) => self.walk_table(t, path),
            Item::ArrayOfTables(a) => {
                for (i, t) in a.iter().enumerate() {
                    let p = index(path, i);
                    self.add(p.clone(), None, t.span());
                    self.walk_table(t, &p);
                }
            }
            Item::Value(v) => self.walk_value(v, path),
            Item::None => {}
        }
    }

    fn walk_value(&mut self, v: &Value, path: &str) {
        match v {
            Value::InlineTable(t) => self.walk_table(t, path),
            Value::Array(a) => {
                for (i, el) in a.iter().enumerate() {
                    let p = index(path, i);
                    self.add_valued(p.clone(), None, el.span(), shown(el));
                    self.walk_value(el, &p);
                }
            }
            _ => {}
        }
    }
}

/// A scalar as serde's messages show it: a string's text, a number's or a boolean's digits.
fn shown(v: &Value) -> Option<String> {
    match v {
        Value::String(s) => Some(s.value().clone()),
        Value::Integer(i) => Some(i.value().to_string()),
        Value::Float(f) => Some(f.value().to_string()),
        Value::Boolean(b) => Some(b.value().to_string()),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const TEXT: &str = "[simulation]\nduration = \"1s\"\n\n[links.R1-R2]\nqueue = { type = \"droptail\", packets = 1 }\nmodules = [{ type = \"x\" }]\n[[routes]]\nnode = \"a\"\n";

    fn map() -> SourceMap {
        let doc = ImDocument::parse(TEXT.to_string()).unwrap();
        SourceMap::new(TEXT, &doc)
    }

    #[test]
    fn paths_know_their_lines() {
        let m = map();
        assert_eq!(m.line_of_path("simulation.duration"), Some(2));
        assert_eq!(m.line_of_path("links.R1-R2"), Some(4));
        assert_eq!(m.line_of_path("links.R1-R2.queue.packets"), Some(5));
        assert_eq!(m.line_of_path("links.R1-R2.modules[0]"), Some(6));
        assert_eq!(m.line_of_path("routes[0].node"), Some(8));
        // Not written: the nearest written ancestor.
        assert_eq!(m.line_of_path("links.R1-R2.delay"), Some(4));
    }

    #[test]
    fn a_span_maps_to_the_innermost_key() {
        let m = map();
        let at = TEXT.find("packets").unwrap();
        assert_eq!(m.path_at(&(at..at + 7)), Some("links.R1-R2.queue.packets"));
        let q = TEXT.find("{ type = \"droptail\"").unwrap();
        assert_eq!(m.path_at(&(q..q + 3)), Some("links.R1-R2.queue"));
    }

    #[test]
    fn a_value_names_its_key_inside_a_table() {
        let m = map();
        assert_eq!(m.inner_key_with_value("links.R1-R2.queue", "1"), Some("links.R1-R2.queue.packets"));
        assert_eq!(m.inner_key_with_value("links.R1-R2", "droptail"), Some("links.R1-R2.queue.type"));
        assert_eq!(m.inner_key_with_value("links.R1-R2.queue", "2"), None);
        // The table itself is not inside itself.
        assert_eq!(m.inner_key_with_value("links.R1-R2.queue.packets", "1"), None);
    }

    #[test]
    fn parents_walk_segments_and_quotes() {
        assert_eq!(parent("a.b[2].c"), Some("a.b[2]"));
        assert_eq!(parent("a.b[2]"), Some("a.b"));
        assert_eq!(parent("nodes.\"x.y\".cache"), Some("nodes.\"x.y\""));
        assert_eq!(parent("nodes.\"x.y\""), Some("nodes"));
        assert_eq!(parent("a"), Some(""));
        assert!(is_within("a.b.c", "a.b"));
        assert!(is_within("a.b[1]", "a.b"));
        assert!(!is_within("a.bc", "a.b"));
        assert_eq!(seg("R1-R2"), "R1-R2");
        assert_eq!(seg("a.b"), "\"a.b\"");
    }
}
