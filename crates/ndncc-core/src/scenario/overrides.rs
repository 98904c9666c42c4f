//! Dotted overrides, `KEY=VALUE`, applied to the TOML document before it is deserialised, so
//! that a bad value is reported like any other (naming the override instead of a line).
//!
//! The value is read as a TOML value when it parses as one (number, boolean, quoted string,
//! inline table, array) and as a plain string otherwise, so `bandwidth=2Mbps` and
//! `window.type=pcon` need no quotes. The table that receives the key must already exist
//! (except `[simulation]`, `[routing]` and `[record]`, which are created when absent); a
//! node or link key that exists only in `[defaults]` is copied into the entry first, so
//! `links.R1-R2.queue.packets=50` works when the queue comes from `[defaults.link]`.

use toml_edit::{DocumentMut, Item, Table, Value};

use super::error::ScenarioError;
use super::source::{index, join};

/// One parsed override.
#[derive(Clone, Debug)]
pub(crate) struct Override {
    /// The key as the user wrote it.
    pub raw_key: String,
    /// Its segments.
    pub segs: Vec<String>,
    pub value: Value,
    /// The key path in the style of error messages (`routes[0].cost`); set by `apply`.
    pub path: String,
}

/// Parse `KEY=VALUE`.
pub(crate) fn parse(text: &str, file: &str) -> Result<Override, ScenarioError> {
    let Some((k, v)) = text.split_once('=') else {
        return Err(ScenarioError::from_set(
            file,
            text.trim(),
            "malformed override: expected KEY=VALUE, e.g. links.R1-R2.bandwidth=2Mbps",
        ));
    };
    let raw_key = k.trim().to_string();
    let keys = toml_edit::Key::parse(&raw_key).map_err(|e| {
        ScenarioError::from_set(
            file,
            &raw_key,
            format!("malformed override key: {}", super::error::tidy_message(e.message())),
        )
    })?;
    if keys.is_empty() {
        return Err(ScenarioError::from_set(file, &raw_key, "malformed override: the key is empty"));
    }
    let segs: Vec<String> = keys.iter().map(|k| k.get().to_string()).collect();
    let v = v.trim();
    if v.is_empty() {
        return Err(ScenarioError::from_set(file, &raw_key, "malformed override: no value after '='"));
    }
    let mut value = match v.parse::<Value>() {
        Ok(parsed) => parsed,
        Err(_) => Value::from(v),
    };
    value.decor_mut().clear();
    Ok(Override { raw_key, segs, value, path: String::new() })
}

/// Top-level tables an override may create when the file leaves them out.
const OPTIONAL_SECTIONS: &[&str] = &["simulation", "routing", "record"];

enum Slot<'a> {
    Item(&'a mut Item),
    Table(&'a mut Table),
    Value(&'a mut Value),
}

fn array_index(seg: &str, len: usize, path: &str) -> Result<usize, String> {
    let i: usize = seg.parse().map_err(|_| format!("'{path}' is an array: index it with a number, not '{seg}'"))?;
    if i >= len {
        return Err(format!("'{path}' has {len} entries; there is no entry {i}"));
    }
    Ok(i)
}

/// Apply `ov` to `doc`, filling in `ov.path`.
pub(crate) fn apply(doc: &mut DocumentMut, ov: &mut Override, file: &str) -> Result<(), ScenarioError> {
    materialise_default(doc, &ov.segs);
    let err = |m: String| ScenarioError::from_set(file, &ov.raw_key, m);
    let mut slot = Slot::Table(doc.as_table_mut());
    let mut path = String::new();
    let (last, parents) = match ov.segs.split_last() {
        Some(x) => x,
        None => return Err(err("malformed override: the key is empty".into())),
    };
    for seg in parents {
        let (next, next_path) = child(slot, seg, &path).map_err(&err)?;
        slot = next;
        path = next_path;
    }
    ov.path = set(slot, last, ov.value.clone(), &path).map_err(&err)?;
    Ok(())
}

fn missing(path: &str, seg: &str) -> String {
    if path.is_empty() {
        format!("there is no table '{seg}' in the scenario")
    } else {
        format!("there is no '{}' to set a key in", join(path, seg))
    }
}

fn not_a_table(path: &str) -> String {
    format!("'{path}' is a value, not a table")
}

fn child<'a>(slot: Slot<'a>, seg: &str, path: &str) -> Result<(Slot<'a>, String), String> {
    match slot {
        Slot::Table(t) => {
            // Sections that consist of defaults only may be absent from the file.
            if path.is_empty() && OPTIONAL_SECTIONS.contains(&seg) && !t.contains_key(seg) {
                t.insert(seg, Item::Table(Table::new()));
            }
            match t.get_mut(seg) {
                Some(item) => Ok((Slot::Item(item), join(path, seg))),
                None => Err(missing(path, seg)),
            }
        }
        Slot::Item(Item::Table(t)) => child(Slot::Table(t), seg, path),
        Slot::Item(Item::ArrayOfTables(a)) => {
            let i = array_index(seg, a.len(), path)?;
            match a.get_mut(i) {
                Some(t) => Ok((Slot::Table(t), index(path, i))),
                None => Err(missing(path, seg)),
            }
        }
        Slot::Item(Item::Value(v)) => child(Slot::Value(v), seg, path),
        Slot::Item(Item::None) => Err(missing(path, seg)),
        Slot::Value(Value::InlineTable(t)) => match t.get_mut(seg) {
            Some(v) => Ok((Slot::Value(v), join(path, seg))),
            None => Err(missing(path, seg)),
        },
        Slot::Value(Value::Array(a)) => {
            let i = array_index(seg, a.len(), path)?;
            match a.get_mut(i) {
                Some(v) => Ok((Slot::Value(v), index(path, i))),
                None => Err(missing(path, seg)),
            }
        }
        Slot::Value(_) => Err(not_a_table(path)),
    }
}

fn set(slot: Slot<'_>, seg: &str, value: Value, path: &str) -> Result<String, String> {
    match slot {
        Slot::Table(t) => {
            t.insert(seg, Item::Value(value));
            Ok(join(path, seg))
        }
        Slot::Item(Item::Table(t)) => set(Slot::Table(t), seg, value, path),
        Slot::Item(Item::ArrayOfTables(a)) => {
            let i = array_index(seg, a.len(), path)?;
            let Value::InlineTable(it) = value else {
                return Err(format!("'{}' is a table: give an inline table {{ … }}", index(path, i)));
            };
            if let Some(t) = a.get_mut(i) {
                *t = it.into_table();
            }
            Ok(index(path, i))
        }
        Slot::Item(Item::Value(v)) => set(Slot::Value(v), seg, value, path),
        Slot::Item(Item::None) => Err(missing(path, seg)),
        Slot::Value(Value::InlineTable(t)) => {
            t.insert(seg, value);
            Ok(join(path, seg))
        }
        Slot::Value(Value::Array(a)) => {
            let i = array_index(seg, a.len(), path)?;
            a.replace(i, value);
            Ok(index(path, i))
        }
        Slot::Value(_) => Err(not_a_table(path)),
    }
}

/// For `links.X.k.…` / `nodes.X.k.…` where entry X lacks `k` but `[defaults.link|node]` has it,
/// copy the default into X so the override can change part of it.
fn materialise_default(doc: &mut DocumentMut, segs: &[String]) {
    if segs.len() < 4 {
        return;
    }
    let section = match segs[0].as_str() {
        "links" => "link",
        "nodes" => "node",
        _ => return,
    };
    let default = doc
        .get("defaults")
        .and_then(|d| d.as_table_like())
        .and_then(|d| d.get(section))
        .and_then(|d| d.as_table_like())
        .and_then(|d| d.get(&segs[2]))
        .cloned();
    let Some(default) = default else { return };
    let Some(entry) = doc.get_mut(&segs[0]).and_then(|s| s.as_table_like_mut()).and_then(|s| s.get_mut(&segs[1]))
    else {
        return;
    };
    match entry {
        Item::Table(t) if !t.contains_key(&segs[2]) => {
            t.insert(&segs[2], default);
        }
        Item::Value(Value::InlineTable(t)) if !t.contains_key(&segs[2]) => {
            if let Ok(v) = default.into_value() {
                t.insert(&segs[2], v);
            }
        }
        _ => {}
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(text: &str, ov: &str) -> Result<String, String> {
        let mut doc: DocumentMut = text.parse().unwrap();
        let mut o = parse(ov, "x.toml").map_err(|e| e.to_string())?;
        apply(&mut doc, &mut o, "x.toml").map_err(|e| e.to_string())?;
        Ok(doc.to_string())
    }

    #[test]
    fn values_parse_as_toml_or_fall_back_to_strings() {
        assert_eq!(parse("a.b=2Mbps", "f").unwrap().value.as_str(), Some("2Mbps"));
        assert_eq!(parse("a.b=3", "f").unwrap().value.as_integer(), Some(3));
        assert_eq!(parse("a.b = 0.7", "f").unwrap().value.as_float(), Some(0.7));
        assert_eq!(parse("a.b=true", "f").unwrap().value.as_bool(), Some(true));
        assert!(parse("a.b={ type = \"aimd\" }", "f").unwrap().value.is_inline_table());
    }

    #[test]
    fn an_override_replaces_or_adds_a_key() {
        let out = run("[simulation]\nseed = 1\n", "simulation.seed=3").unwrap();
        assert!(out.contains("seed = 3"), "{out}");
        let out = run("[apps.C1]\nwindow = { type = \"aimd\" }\n", "apps.C1.window.beta=0.7").unwrap();
        assert!(out.contains("beta = 0.7"), "{out}");
    }

    #[test]
    fn arrays_are_indexed_by_number() {
        let out = run("[[routes]]\ncost = 1\n[[routes]]\ncost = 1\n", "routes.1.cost=5").unwrap();
        assert!(out.ends_with("cost = 5\n"), "{out}");
        let err = run("[[routes]]\ncost = 1\n", "routes.4.cost=5").unwrap_err();
        assert!(err.contains("no entry 4"), "{err}");
    }

    #[test]
    fn a_missing_parent_table_is_an_error() {
        let err = run("[links.A-B]\n", "links.A-C.bandwidth=1Mbps").unwrap_err();
        assert_eq!(err, "x.toml: --set links.A-C.bandwidth: there is no 'links.A-C' to set a key in");
    }

    #[test]
    fn malformed_overrides_are_errors() {
        assert!(run("", "simulation.seed").unwrap_err().contains("expected KEY=VALUE"));
        assert!(run("", "simulation..seed=1").unwrap_err().contains("malformed override key"));
        assert!(run("", "simulation.seed=").unwrap_err().contains("no value"));
        assert!(run("[s]\nx = 1\n", "s.x.y=1").unwrap_err().contains("'s.x' is a value, not a table"));
    }

    #[test]
    fn a_default_is_copied_in_before_part_of_it_is_changed() {
        let text = "[defaults.link]\nqueue = { type = \"droptail\", packets = 100 }\n[links.A-B]\ndelay = \"1ms\"\n";
        let out = run(text, "links.A-B.queue.packets=50").unwrap();
        assert!(out.contains("packets = 50"), "{out}");
        assert!(out.contains("packets = 100"), "{out}");
    }
}
