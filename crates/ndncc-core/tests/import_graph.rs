//! The crate's layering, checked on its sources: the top-level modules of `src/` import one
//! another one way only (no cycle), and the engine does not import the scenario layer.
//!
//! An import is a `crate::MODULE` or `super::…` path anywhere in a file's code (not in its
//! comments). Test code is left out (`#[cfg(test)]` modules inline or in files of their own): a
//! test may use the whole crate as its harness, as a module's test builds a world to run it in.
//! The layering is about what the crate ships.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};

/// Modules above the engine: they read scenarios and build worlds from them. Nothing else may
/// import them.
const SCENARIO_SIDE: [&str; 5] = ["scenario", "instantiate", "api", "bench", "emulate"];

/// Edges allowed to close a cycle, each with the reason it must. Empty: none is.
const ALLOWED: [(&str, &str); 0] = [];

struct Source {
    /// The module path of the file: `["world", "ndn"]` for `world/ndn.rs`, `["app"]` for
    /// `app/mod.rs`.
    module: Vec<String>,
    text: String,
}

fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
    for entry in std::fs::read_dir(dir).expect("a readable source folder") {
        let path = entry.expect("a folder entry").path();
        if path.is_dir() {
            rust_files(&path, out);
        } else if path.extension().is_some_and(|e| e == "rs") {
            out.push(path);
        }
    }
}

fn module_path(root: &Path, file: &Path) -> Vec<String> {
    let rel = file.strip_prefix(root).expect("a file under src");
    let mut parts: Vec<String> = rel.iter().map(|p| p.to_string_lossy().into_owned()).collect();
    let last = parts.pop().expect("a file name");
    let stem = last.trim_end_matches(".rs");
    if stem != "mod" && stem != "lib" && stem != "main" {
        parts.push(stem.to_owned());
    }
    parts
}

/// `text` without comments and string literals (their contents could look like paths).
fn code_only(text: &str) -> String {
    let b = text.as_bytes();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < b.len() {
        if b[i..].starts_with(b"//") {
            while i < b.len() && b[i] != b'\n' {
                i += 1;
            }
        } else if b[i..].starts_with(b"/*") {
            let end = text[i + 2..].find("*/").map_or(b.len(), |e| i + 2 + e + 2);
            i = end;
        } else if b[i] == b'r' && (i == 0 || !is_ident(b[i - 1])) && raw_string_hashes(&b[i + 1..]).is_some() {
            // A raw string r#"…"#: it ends at a quote followed by as many hashes.
            let hashes = raw_string_hashes(&b[i + 1..]).unwrap_or(0);
            let close = format!("\"{}", "#".repeat(hashes));
            let body = i + 2 + hashes;
            i = text[body..].find(&close).map_or(b.len(), |e| body + e + close.len());
            out.push_str("\"\"");
        } else if b[i] == b'"' {
            i += 1;
            while i < b.len() && b[i] != b'"' {
                i += if b[i] == b'\\' { 2 } else { 1 };
            }
            i += 1;
            out.push_str("\"\"");
        } else if b[i] == b'\'' && i + 2 < b.len() && (b[i + 2] == b'\'' || b[i + 1] == b'\\') {
            // A char literal ('"', '\n'); a lifetime has no closing quote here.
            let from = if b[i + 1] == b'\\' { i + 3 } else { i + 2 };
            let close = text[from..].find('\'').map_or(b.len(), |e| from + e + 1);
            i = close;
            out.push_str("' '");
        } else {
            let ch = text[i..].chars().next().expect("a char");
            out.push(ch);
            i += ch.len_utf8();
        }
    }
    out
}

/// The number of `#` opening a raw string at `b` (after its `r`), if one opens there.
fn raw_string_hashes(b: &[u8]) -> Option<usize> {
    let hashes = b.iter().take_while(|&&c| c == b'#').count();
    (b.get(hashes) == Some(&b'"')).then_some(hashes)
}

/// `code` without the items under `#[cfg(test)]` (an inline module's braces, or a `mod x;`
/// line), and the names of the file modules so declared.
fn without_tests(code: &str) -> (String, Vec<String>) {
    let mut out = String::with_capacity(code.len());
    let mut test_files = Vec::new();
    let mut rest = code;
    while let Some(at) = rest.find("#[cfg(test)]") {
        out.push_str(&rest[..at]);
        let after = &rest[at + "#[cfg(test)]".len()..];
        let brace = after.find('{');
        let semi = after.find(';');
        match (brace, semi) {
            (_, Some(s)) if brace.is_none_or(|b| s < b) => {
                // `mod name;` (a file of its own) or another one-line item.
                let item = after[..s].trim();
                if let Some(name) = item.split_whitespace().skip_while(|w| *w != "mod").nth(1) {
                    test_files.push(name.to_owned());
                }
                rest = &after[s + 1..];
            }
            (Some(b), _) => {
                let mut depth = 0usize;
                let mut end = after.len();
                for (k, c) in after[b..].char_indices() {
                    match c {
                        '{' => depth += 1,
                        '}' => {
                            depth -= 1;
                            if depth == 0 {
                                end = b + k + 1;
                                break;
                            }
                        }
                        _ => {}
                    }
                }
                rest = &after[end..];
            }
            _ => rest = "",
        }
    }
    out.push_str(rest);
    (out, test_files)
}

fn is_ident(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_'
}

/// The top-level modules `code` (of a file at `module`) imports: `crate::X` and `super::`
/// paths that climb to the crate root and name `X`. Macros (`crate::name!`) are not modules.
fn imports(module: &[String], code: &str) -> BTreeSet<String> {
    let mut found = BTreeSet::new();
    let b = code.as_bytes();
    for (at, _) in code.match_indices("crate::") {
        if at > 0 && (is_ident(b[at - 1]) || b[at - 1] == b'$') {
            continue;
        }
        let name: String = code[at + 7..].chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
        let after = code[at + 7 + name.len()..].trim_start();
        if !name.is_empty() && !after.starts_with('!') {
            found.insert(name);
        }
    }
    for (at, _) in code.match_indices("super::") {
        if at > 0 && (is_ident(b[at - 1]) || code[..at].ends_with("super::")) {
            continue;
        }
        let mut up = 0;
        let mut rest = &code[at..];
        while let Some(r) = rest.strip_prefix("super::") {
            up += 1;
            rest = r;
        }
        if up >= module.len() {
            let name: String = rest.chars().take_while(|c| c.is_ascii_alphanumeric() || *c == '_').collect();
            if !name.is_empty() {
                found.insert(name);
            }
        }
    }
    found
}

/// Every file of the crate that is not test code, by module path.
fn shipped_sources() -> Vec<Source> {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    rust_files(&root, &mut files);
    let mut sources: Vec<Source> = files
        .iter()
        .map(|f| Source { module: module_path(&root, f), text: std::fs::read_to_string(f).expect("a readable file") })
        .collect();
    let mut test_modules: BTreeSet<Vec<String>> = BTreeSet::new();
    for s in &mut sources {
        let (code, tests) = without_tests(&code_only(&s.text));
        for t in tests {
            let mut m = s.module.clone();
            m.push(t);
            test_modules.insert(m);
        }
        s.text = code;
    }
    sources.retain(|s| {
        !test_modules.iter().any(|t| s.module.starts_with(t)) && s.module.first().is_some_and(|m| m != "bin")
    });
    sources
}

/// Top-level module → the top-level modules it imports, with a file that does, for messages.
fn module_graph() -> BTreeMap<String, BTreeMap<String, String>> {
    let mut graph: BTreeMap<String, BTreeMap<String, String>> = BTreeMap::new();
    for s in shipped_sources() {
        let Some(top) = s.module.first() else { continue };
        let from = graph.entry(top.clone()).or_default();
        for to in imports(&s.module, &s.text) {
            if to != *top {
                from.entry(to).or_insert_with(|| s.module.join("/"));
            }
        }
    }
    graph
}

/// A cycle through `start`, if any, as the modules along it.
fn cycle_from(graph: &BTreeMap<String, BTreeMap<String, String>>, start: &str) -> Option<Vec<String>> {
    fn walk(
        graph: &BTreeMap<String, BTreeMap<String, String>>,
        start: &str,
        at: &str,
        path: &mut Vec<String>,
        seen: &mut BTreeSet<String>,
    ) -> bool {
        for to in graph.get(at).into_iter().flat_map(|m| m.keys()) {
            if ALLOWED.contains(&(at, to.as_str())) {
                continue;
            }
            if to == start {
                return true;
            }
            if seen.insert(to.clone()) {
                path.push(to.clone());
                if walk(graph, start, to, path, seen) {
                    return true;
                }
                path.pop();
            }
        }
        false
    }
    let mut path = vec![start.to_owned()];
    walk(graph, start, start, &mut path, &mut BTreeSet::new()).then_some(path)
}

#[test]
fn the_top_level_modules_import_one_another_without_a_cycle() {
    let graph = module_graph();
    assert!(graph.contains_key("world") && graph["world"].contains_key("forwarder"), "the graph reads the sources");
    for start in graph.keys() {
        if let Some(cycle) = cycle_from(&graph, start) {
            let steps: Vec<String> = cycle
                .iter()
                .zip(cycle.iter().cycle().skip(1))
                .map(|(a, b)| format!("{a} → {b} (in {})", graph[a][b]))
                .collect();
            panic!("import cycle: {}", steps.join(", "));
        }
    }
}

#[test]
fn the_engine_does_not_import_the_scenario_layer() {
    let graph = module_graph();
    let mut wrong = Vec::new();
    for (from, tos) in &graph {
        if SCENARIO_SIDE.contains(&from.as_str()) {
            continue;
        }
        for (to, file) in tos {
            if SCENARIO_SIDE.contains(&to.as_str()) {
                wrong.push(format!("{file} imports {to}"));
            }
        }
    }
    assert!(wrong.is_empty(), "the engine reaches up into the scenario layer: {}", wrong.join("; "));
}

#[test]
fn the_parser_finds_paths_and_skips_tests_comments_and_macros() {
    let code = code_only(
        "use crate::a::X; // crate::b\nuse super::super::c;\nlet s = \"crate::d\";\nlet r = r#\"crate::i\"#;\ncrate::e!(x);\n\
         #[cfg(test)]\nmod tests { use crate::f; }\n#[cfg(test)]\nmod kit;\n",
    );
    let (code, files) = without_tests(&code);
    assert_eq!(files, vec!["kit".to_owned()]);
    let found = imports(&["g".to_owned(), "h".to_owned()], &code);
    assert_eq!(found, BTreeSet::from(["a".to_owned(), "c".to_owned()]));
}
