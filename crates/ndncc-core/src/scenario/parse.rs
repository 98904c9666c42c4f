//! From text to a resolved, validated `Scenario`: parse the TOML (keeping every key's
//! position), apply overrides, merge `[defaults]`, deserialise, resolve, validate. Every
//! failure is turned into a `ScenarioError` naming the file, line and key.

use std::collections::BTreeMap;

use serde::de::DeserializeOwned;
use toml_edit::{DocumentMut, ImDocument, Item, Key, Table, TableLike};

use super::app::{AppSpec, APP_TYPES};
use super::error::{first_backticked, tidy_message, Invalid, ScenarioError};
use super::link::{LinkSpec, LINK_KEYS};
use super::overrides::{self, Override};
use super::source::{is_within, join, line_at, SourceMap};
use super::types::{NodeSpec, Scenario, NODE_KEYS};
use super::validate::{check_link_settings, check_node_settings};

/// The sections a scenario file may have.
pub const ROOT_KEYS: &[&str] =
    &["simulation", "defaults", "nodes", "links", "routing", "routes", "apps", "record", "events"];

/// What is needed to put a key path back into the file: positions and provenance.
pub(crate) struct Context {
    file: String,
    /// The text as given.
    original: SourceMap,
    /// The text after overrides (identical to `original` when there are none).
    rendered: SourceMap,
    overrides: Vec<Override>,
    /// Node and link keys filled from `[defaults]`: `links.X.queue` → `defaults.link.queue`.
    inherited: BTreeMap<String, String>,
    /// Report no line numbers (the text was generated, not written by the user).
    hide_lines: bool,
}

impl Context {
    /// Locate `key` and build the error.
    pub fn locate(&self, key: &str, message: &str) -> ScenarioError {
        let mut message = message.to_string();
        let mut source = key.to_string();
        if let Some((to, from)) = self.inherited.iter().find(|(to, _)| is_within(key, to)) {
            source = format!("{from}{}", &key[to.len()..]);
            message = format!("{message} (inherited from {from})");
        }
        if let Some(o) = self.overrides.iter().rev().find(|o| is_within(&source, &o.path)) {
            // A key inside the value an override set: `--set links.X.loss={…}` → `links.X.loss.p`.
            let raw_key = format!("{}{}", o.raw_key, &source[o.path.len()..]);
            return ScenarioError::from_set(&self.file, &raw_key, message);
        }
        if let Some(o) = self.overrides.iter().rev().find(|o| is_within(&o.path, &source)) {
            message = format!("{message} (with --set {})", o.raw_key);
        }
        let line = if self.hide_lines { None } else { self.original.line_of_path(&source) };
        ScenarioError::at(&self.file, line, Some(key.to_string()), message)
    }

    fn invalid(&self, e: Invalid) -> ScenarioError {
        self.locate(&e.key, &e.message)
    }

    /// Turn a deserialisation error into a located one; `fallback` is the path of the table
    /// being read, used when the error carries no position.
    fn locate_de(&self, e: toml_edit::de::Error, fallback: &str) -> ScenarioError {
        let raw = e.message();
        let message = tidy_message(raw);
        let mut path = e
            .span()
            .and_then(|s| self.rendered.path_at(&s))
            .map(str::to_string)
            .unwrap_or_else(|| fallback.to_string());
        if let Some(name) = first_backticked(raw) {
            let child = join(&path, name);
            if raw.starts_with("missing field") || (raw.starts_with("unknown field") && self.rendered.has(&child)) {
                path = child;
            }
        }
        // A wrong value inside a table with a `type` reaches here at the table (serde reads such
        // a table whole): the value the message quotes names the key.
        if !["missing", "unknown", "duplicate"].iter().any(|p| raw.starts_with(p)) {
            if let Some(inner) = quoted_values(raw).find_map(|v| self.rendered.inner_key_with_value(&path, v)) {
                path = inner.to_string();
            }
        }
        if raw.starts_with("missing field") && !path.contains(['.', '[']) {
            return self.locate(&path, &format!("missing table [{path}]"));
        }
        if path.is_empty() {
            let line = e
                .span()
                .filter(|_| !self.hide_lines && self.overrides.is_empty())
                .map(|s| self.rendered.line_of(s.start));
            return ScenarioError::at(&self.file, line, None, message);
        }
        self.locate(&path, &message)
    }
}

/// Parse, override, merge, deserialise, resolve and validate.
pub(crate) fn load(text: &str, file: &str, overrides: &[String], hide_lines: bool) -> Result<Scenario, ScenarioError> {
    let original_doc = ImDocument::parse(text.to_string()).map_err(|e| {
        let line = e.span().map(|s| line_at(text, s.start));
        let key = line.and_then(|l| key_near_line(text, l));
        let line = line.filter(|_| !hide_lines);
        ScenarioError::at(file, line, key, format!("TOML syntax error: {}", tidy_message(e.message())))
    })?;
    let original = SourceMap::new(text, &original_doc);

    let mut applied = Vec::new();
    let (rendered_doc, rendered) = if overrides.is_empty() {
        (original_doc, original.clone())
    } else {
        let mut doc: DocumentMut = original_doc.clone().into_mut();
        for o in overrides {
            let mut o = overrides::parse(o, file)?;
            overrides::apply(&mut doc, &mut o, file)?;
            applied.push(o);
        }
        let new_text = doc.to_string();
        let reparsed = ImDocument::parse(new_text.clone()).map_err(|e| {
            let key = applied.last().map(|o| o.raw_key.clone()).unwrap_or_default();
            ScenarioError::from_set(
                file,
                &key,
                format!("the override makes the file invalid: {}", tidy_message(e.message())),
            )
        })?;
        let map = SourceMap::new(&new_text, &reparsed);
        (reparsed, map)
    };

    let mut ctx = Context {
        file: file.to_string(),
        original,
        rendered,
        overrides: applied,
        inherited: BTreeMap::new(),
        hide_lines,
    };
    let mut scenario = deserialise(rendered_doc.as_table(), &mut ctx)?;
    if scenario.simulation.name.is_empty() {
        scenario.simulation.name = file_stem(file);
    }
    scenario.resolve_in_place().map_err(|e| ctx.invalid(e))?;
    load_traces(&mut scenario, file, &ctx)?;
    scenario.check().map_err(|e| ctx.invalid(e))?;
    check_defaults(rendered_doc.as_table(), &ctx)?;
    Ok(scenario)
}

/// Read the files link bandwidths follow, relative to the scenario file's folder (the working
/// folder for a scenario that is not a file), and show each link's bandwidth from them.
fn load_traces(scenario: &mut Scenario, file: &str, ctx: &Context) -> Result<(), ScenarioError> {
    let base = std::path::Path::new(file).parent().map(|p| p.to_path_buf()).unwrap_or_default();
    for (name, link) in scenario.links.iter_mut() {
        for (k, t) in link.traces.each_mut() {
            let key = join(&join("links", name), k);
            t.validate().map_err(|e| ctx.invalid(e.under(&key)))?;
            t.load(&base).map_err(|m| ctx.locate(&key, &m))?;
        }
        let nominal = |t: &Option<crate::scenario::TraceSpec>| t.as_ref().and_then(|t| t.nominal());
        if let Some(b) = nominal(&link.traces.both) {
            link.bandwidth = b;
        }
        if let Some(b) = nominal(&link.traces.ab) {
            link.bandwidth_ab = Some(b);
        }
        if let Some(b) = nominal(&link.traces.ba) {
            link.bandwidth_ba = Some(b);
        }
    }
    Ok(())
}

/// `[defaults.link]` and `[defaults.node]` by themselves: a default is checked even where every
/// entry sets its own value (an entry that inherits it has been checked already, and its error
/// names the entry). Each is read as a link (node) of its own, the keys a link needs and the
/// defaults leave out given values that pass, and checked as one.
fn check_defaults(root: &Table, ctx: &Context) -> Result<(), ScenarioError> {
    let Some(defaults) = root.get("defaults").and_then(Item::as_table_like) else { return Ok(()) };
    if let Some(link) = defaults.get("link").and_then(Item::as_table_like) {
        let mut probe = copy(link);
        for key in TRACE_KEYS {
            if let Some(item) = probe.get_mut(key).filter(|i| is_trace(i)) {
                // Read (and its errors located) in every link that inherits it.
                *item = toml_edit::value("1Mbps");
            }
        }
        let stand_in = [("bandwidth", "1Mbps"), ("delay", "0s")];
        for (k, v) in stand_in {
            if !probe.contains_key(k) {
                probe.insert(k, toml_edit::value(v));
            }
        }
        probe.insert("endpoints", toml_edit::value(toml_edit::Array::from_iter(["a", "b"])));
        let spec: LinkSpec = de_table(probe, ctx, "defaults.link")?;
        check_link_settings("defaults.link", &spec).map_err(|e| ctx.invalid(e))?;
    }
    if let Some(node) = defaults.get("node").and_then(Item::as_table_like) {
        let spec: NodeSpec = de_table(copy(node), ctx, "defaults.node")?;
        check_node_settings("defaults.node", &spec).map_err(|e| ctx.invalid(e))?;
    }
    Ok(())
}

/// The values a serde message quotes, in order: ``string "x"``, `` `5` ``, `'x'`.
fn quoted_values(raw: &str) -> impl Iterator<Item = &str> {
    let string = raw.split_once("string \"").and_then(|(_, rest)| rest.split_once('"')).map(|(v, _)| v);
    let ticked = raw.split('`').skip(1).step_by(2);
    let single = raw.split('\'').skip(1).step_by(2);
    string.into_iter().chain(ticked).chain(single)
}

/// For a syntax error on line `line`, the key it is most likely in: the last table header at
/// or before the line, plus the key written at the start of the line, when it has one. A best
/// guess from the raw text, since a text that does not parse has no keys to ask.
fn key_near_line(text: &str, line: usize) -> Option<String> {
    let lines: Vec<&str> = text.lines().collect();
    let here = lines.get(line.checked_sub(1)?)?.trim();
    let header = |l: &str| -> Option<String> {
        let l = l.trim();
        let inner = l
            .strip_prefix("[[")
            .and_then(|x| x.split("]]").next())
            .or_else(|| l.strip_prefix('[').and_then(|x| x.split(']').next()))?;
        let keys = Key::parse(inner.trim()).ok()?;
        Some(keys.iter().fold(String::new(), |p, k| join(&p, k.get())))
    };
    if here.starts_with('[') {
        return header(here);
    }
    let table = lines[..line - 1].iter().rev().find(|l| l.trim_start().starts_with('[')).and_then(|l| header(l));
    let own = here.split_once('=').and_then(|(k, _)| Key::parse(k.trim()).ok());
    match (table, own) {
        (t, Some(keys)) => Some(keys.iter().fold(t.unwrap_or_default(), |p, k| join(&p, k.get()))),
        (Some(t), None) => Some(t),
        (None, None) => None,
    }
}

/// `scenarios/e4-pcon.toml` → `e4-pcon`.
pub(crate) fn file_stem(file: &str) -> String {
    std::path::Path::new(file)
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .filter(|s| !s.is_empty())
        .unwrap_or_else(|| "scenario".to_string())
}

fn de_table<T: DeserializeOwned>(t: Table, ctx: &Context, path: &str) -> Result<T, ScenarioError> {
    toml_edit::de::from_document::<T>(DocumentMut::from(t)).map_err(|e| ctx.locate_de(e, path))
}

fn as_table<'a>(item: &'a Item, ctx: &Context, path: &str, what: &str) -> Result<&'a dyn TableLike, ScenarioError> {
    item.as_table_like().ok_or_else(|| ctx.locate(path, &format!("expected a table: {what}")))
}

/// A copy of `t` that keeps every key's position.
fn copy(t: &dyn TableLike) -> Table {
    let mut out = Table::new();
    for (k, v) in t.iter() {
        let key = t.key(k).cloned().unwrap_or_else(|| Key::new(k));
        out.insert_formatted(&key, v.clone());
    }
    out
}

fn deserialise(root: &Table, ctx: &mut Context) -> Result<Scenario, ScenarioError> {
    for (k, _) in root.iter() {
        if !ROOT_KEYS.contains(&k) {
            return Err(
                ctx.locate(&join("", k), &format!("unknown section '{k}', expected one of {}", ROOT_KEYS.join(", ")))
            );
        }
    }
    for (k, item) in root.iter() {
        let path = join("", k);
        if k == "routes" || k == "events" {
            let is_list =
                item.is_array_of_tables() || item.as_array().is_some_and(|a| a.iter().all(|v| v.is_inline_table()));
            if !is_list {
                let what =
                    if k == "routes" { "one [[routes]] table per route" } else { "one [[events]] table per event" };
                return Err(ctx.locate(&path, &format!("expected a list of tables: {what}")));
            }
        } else if !item.is_table_like() {
            return Err(ctx.locate(&path, &format!("expected a table: [{k}]")));
        }
    }
    let (link_defaults, node_defaults) = match root.get("defaults") {
        Some(d) => read_defaults(d, ctx)?,
        None => (None, None),
    };
    let mut merged = Table::new();
    let mut traces = Vec::new();
    for (k, item) in root.iter() {
        let key = root.key(k).cloned().unwrap_or_else(|| Key::new(k));
        let item = match k {
            "defaults" | "apps" => continue,
            "nodes" => Item::Table(merge(item, "nodes", node_defaults.as_ref(), ctx)?),
            "links" => {
                let mut links = merge(item, "links", link_defaults.as_ref(), ctx)?;
                traces = take_traces(&mut links, ctx)?;
                Item::Table(links)
            }
            _ => item.clone(),
        };
        merged.insert_formatted(&key, item);
    }
    let mut scenario: Scenario = de_table(merged, ctx, "")?;
    for (name, key, trace) in traces {
        if let Some(link) = scenario.links.get_mut(&name) {
            match key {
                "bandwidth" => link.traces.both = Some(trace),
                "bandwidth_ab" => link.traces.ab = Some(trace),
                _ => link.traces.ba = Some(trace),
            }
        }
    }
    if let Some(apps) = root.get("apps") {
        let apps = as_table(apps, ctx, "apps", "one [apps.NAME] table per application")?;
        for (name, item) in apps.iter() {
            let app = read_app(item, &join("apps", name), ctx)?;
            scenario.apps.insert(name.to_string(), app);
        }
    }
    Ok(scenario)
}

/// The bandwidth keys a trace may be given for.
const TRACE_KEYS: [&str; 3] = ["bandwidth", "bandwidth_ab", "bandwidth_ba"];

/// Is `item` a trace table (`{ trace = … }` or `{ series = … }`) rather than a value or a
/// distribution?
fn is_trace(item: &Item) -> bool {
    item.as_table_like().is_some_and(|t| t.contains_key("trace") || t.contains_key("series"))
}

/// Take the trace tables out of the links' bandwidth keys, each read as a `TraceSpec` (errors
/// located at their keys), leaving a stand-in value the link's own reading accepts; the caller
/// puts the traces into the links it reads. (`bandwidth` stays a value or a distribution to
/// serde, whose errors then keep naming the key inside a distribution.)
fn take_traces(
    links: &mut Table,
    ctx: &Context,
) -> Result<Vec<(String, &'static str, crate::scenario::TraceSpec)>, ScenarioError> {
    let mut out = Vec::new();
    for (name, entry) in links.iter_mut() {
        let Some(t) = entry.as_table_like_mut() else { continue };
        for key in TRACE_KEYS {
            let Some(item) = t.get_mut(key).filter(|i| is_trace(i)) else { continue };
            let path = join(&join("links", name.get()), key);
            let table = item.as_table_like().map(copy).unwrap_or_default();
            let spec = de_table(table, ctx, &path)?;
            *item = toml_edit::value("1bps");
            out.push((name.get().to_string(), key, spec));
        }
    }
    Ok(out)
}

/// Check `[defaults]` and return copies of `[defaults.link]` and `[defaults.node]`.
fn read_defaults(item: &Item, ctx: &Context) -> Result<(Option<Table>, Option<Table>), ScenarioError> {
    let d = as_table(item, ctx, "defaults", "[defaults.link] and [defaults.node]")?;
    let (mut link, mut node) = (None, None);
    for (k, v) in d.iter() {
        let path = join("defaults", k);
        let (keys, slot) = match k {
            "link" => (LINK_KEYS, &mut link),
            "node" => (NODE_KEYS, &mut node),
            _ => return Err(ctx.locate(&path, &format!("unknown defaults section '{k}', expected one of link, node"))),
        };
        let t = as_table(v, ctx, &path, "keys to apply to every entry")?;
        for (dk, _) in t.iter() {
            let dpath = join(&path, dk);
            if dk == "endpoints" {
                return Err(ctx.locate(&dpath, "endpoints differ for every link and cannot have a default"));
            }
            if !keys.contains(&dk) {
                let accepted: Vec<&str> = keys.iter().copied().filter(|x| *x != "endpoints").collect();
                return Err(
                    ctx.locate(&dpath, &format!("unknown field '{dk}', expected one of {}", accepted.join(", ")))
                );
            }
        }
        *slot = Some(copy(t));
    }
    Ok((link, node))
}

/// Copy a `[nodes]` or `[links]` section with the defaults filled into every entry.
fn merge(item: &Item, section: &str, defaults: Option<&Table>, ctx: &mut Context) -> Result<Table, ScenarioError> {
    let what = if section == "nodes" { "one [nodes.NAME] table per node" } else { "one [links.NAME] table per link" };
    let entries = as_table(item, ctx, section, what)?;
    let default_path = if section == "nodes" { "defaults.node" } else { "defaults.link" };
    let mut out = Table::new();
    for (name, entry) in entries.iter() {
        let path = join(section, name);
        let hint = if section == "nodes" {
            format!("a node is a table: write `{name} = {{}}` under [nodes], or [nodes.{name}]")
        } else {
            format!("a link is a table: [links.{name}]")
        };
        let t = entry.as_table_like().ok_or_else(|| ctx.locate(&path, &hint))?;
        let mut merged = copy(t);
        if let Some(d) = defaults {
            for (dk, dv) in d.iter() {
                if !merged.contains_key(dk) {
                    let key = d.key(dk).cloned().unwrap_or_else(|| Key::new(dk));
                    merged.insert_formatted(&key, dv.clone());
                    ctx.inherited.insert(join(&path, dk), join(default_path, dk));
                }
            }
        }
        let key = entries.key(name).cloned().unwrap_or_else(|| Key::new(name));
        out.insert_formatted(&key, Item::Table(merged));
    }
    Ok(out)
}

/// Read one `[apps.NAME]` table: its `type`, then the matching spec, so that errors inside it
/// keep their positions.
fn read_app(item: &Item, path: &str, ctx: &Context) -> Result<AppSpec, ScenarioError> {
    let t = as_table(item, ctx, path, "an app is a table with a `type`")?;
    let types = APP_TYPES.join(", ");
    let type_path = join(path, "type");
    let kind = match t.get("type") {
        None => return Err(ctx.locate(&type_path, &format!("missing field 'type', expected one of {types}"))),
        Some(v) => {
            v.as_str().ok_or_else(|| ctx.locate(&type_path, &format!("type must be a string, one of {types}")))?
        }
    };
    let mut rest = copy(t);
    rest.remove("type");
    match kind {
        "consumer" => Ok(AppSpec::Consumer(de_table(rest, ctx, path)?)),
        "producer" => Ok(AppSpec::Producer(de_table(rest, ctx, path)?)),
        "tcp" => Ok(AppSpec::Tcp(de_table(rest, ctx, path)?)),
        "cbr" => Ok(AppSpec::Cbr(de_table(rest, ctx, path)?)),
        "multicast" => Ok(AppSpec::Multicast(de_table(rest, ctx, path)?)),
        other => Err(ctx.locate(&type_path, &format!("unknown app type '{other}', expected one of {types}"))),
    }
}
