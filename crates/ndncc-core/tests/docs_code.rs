//! Code in the docs stays true to the code.
//!
//! * A fenced block in `docs/*.md` whose first line is `// excerpt: PATH` must appear verbatim,
//!   line for line, in PATH (relative to the repository root), up to a common indentation; in
//!   `//!` doc comments the comment marker is ignored. The examples those blocks come from are
//!   compiled and tested by `cargo test`, so the code the docs show is code that runs.
//! * A `toml` block in the reference docs that holds a `[simulation]` table must load.

use std::path::{Path, PathBuf};

fn root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// (doc file, fence language, block lines) of every fenced block in `docs/*.md`.
fn blocks() -> Vec<(String, String, Vec<String>)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(root().join("docs"))
        .expect("docs/ exists")
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "md"))
        .collect();
    files.sort();
    let mut out = Vec::new();
    for f in files {
        let text = std::fs::read_to_string(&f).expect("readable doc");
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        let mut open: Option<(String, Vec<String>)> = None;
        for line in text.lines() {
            let fence = line.trim_start().strip_prefix("```");
            match (&mut open, fence) {
                (None, Some(lang)) => open = Some((lang.trim().to_string(), Vec::new())),
                (Some(_), Some(_)) => {
                    let (lang, body) = open.take().unwrap();
                    out.push((name.clone(), lang, body));
                }
                (Some((_, body)), None) => body.push(line.to_string()),
                (None, None) => {}
            }
        }
    }
    out
}

/// `line` without a leading `//!` doc-comment marker (and the one space after it).
fn uncomment(line: &str) -> &str {
    match line.trim_start().strip_prefix("//!") {
        Some(rest) => rest.strip_prefix(' ').unwrap_or(rest),
        None => line,
    }
}

/// Does `block` occur in `source` as consecutive lines, each source line being the block line
/// with one common indentation in front (blank lines match blank lines)?
fn occurs_in(block: &[String], source: &[&str]) -> bool {
    let first = block.iter().position(|l| !l.trim().is_empty()).expect("a non-empty block");
    (0..source.len().saturating_sub(block.len() - 1)).any(|k| {
        let Some(indent) = source[k + first].strip_suffix(block[first].as_str()) else { return false };
        if !indent.chars().all(|c| c == ' ') {
            return false;
        }
        block.iter().enumerate().all(|(i, b)| {
            let s = source[k + i];
            if b.trim().is_empty() {
                s.trim().is_empty()
            } else {
                s.strip_prefix(indent) == Some(b.as_str())
            }
        })
    })
}

#[test]
fn every_excerpt_in_the_docs_is_verbatim_from_its_source() {
    let mut checked = 0;
    for (doc, _, body) in blocks() {
        let Some(path) = body.first().and_then(|l| l.strip_prefix("// excerpt: ")) else { continue };
        let source = std::fs::read_to_string(root().join(path.trim()))
            .unwrap_or_else(|e| panic!("docs/{doc}: excerpt of {path}, which cannot be read: {e}"));
        let raw: Vec<&str> = source.lines().collect();
        let plain: Vec<&str> = raw.iter().map(|l| uncomment(l)).collect();
        let block = &body[1..];
        assert!(
            occurs_in(block, &raw) || occurs_in(block, &plain),
            "docs/{doc}: this excerpt no longer matches {path}; copy it again from the source:\n{}",
            block.join("\n")
        );
        checked += 1;
    }
    assert!(checked > 0, "no excerpts found: the marker is `// excerpt: PATH` on a block's first line");
}

#[test]
fn every_complete_scenario_in_the_reference_docs_loads() {
    let mut loaded = 0;
    for (doc, lang, body) in blocks() {
        let reference = ["scenario-reference.md", "controllers.md", "architecture.md"].contains(&doc.as_str());
        if !reference || lang != "toml" || !body.iter().any(|l| l.trim() == "[simulation]") {
            continue;
        }
        let text = body.join("\n");
        if let Err(e) = ndncc_core::scenario::load_str(&text, &format!("docs/{doc}"), &[]) {
            panic!("docs/{doc}: a scenario in the docs does not load: {e}\n{text}");
        }
        loaded += 1;
    }
    assert!(loaded > 0, "no complete scenario found in the reference docs");
}

#[test]
fn the_matcher_allows_indentation_and_nothing_else() {
    let src = ["fn f() {", "    let x = 1;", "", "    x", "}"];
    let block = |b: &[&str]| b.iter().map(|s| s.to_string()).collect::<Vec<_>>();
    assert!(occurs_in(&block(&["let x = 1;", "", "x"]), &src));
    assert!(!occurs_in(&block(&["let x = 2;", "", "x"]), &src));
    assert!(!occurs_in(&block(&["let x = 1;", "x"]), &src));
    assert_eq!(uncomment("//!   base = 1"), "  base = 1");
}
