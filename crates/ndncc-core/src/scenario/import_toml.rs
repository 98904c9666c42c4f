//! The scenario file an import writes: only what differs from ndncc's defaults.
//!
//! A converted topology is a starting point that people read and edit, so it says what the
//! topology gave (nodes, each link's bandwidth, delay and whatever else it set) and leaves every
//! default out:
//!
//! ```toml
//! [simulation]
//! duration = "10s"
//!
//! [nodes]
//! A = {}
//! B = { content_store = { capacity = 100 } }
//!
//! [links.A-B]
//! bandwidth = "10Mbps"
//! delay = "10ms"
//! cost = 3
//! ```
//!
//! The defaults are not restated here: each value is compared with the one a scenario holding
//! only the same nodes and links' required keys has. `simulation.name` is left out too (its
//! default is the file's stem). The text is checked to load back as the same scenario; one that
//! would not (a scenario with apps or routes, which imports never make) is written in full.

use toml_edit::{DocumentMut, InlineTable, Item, Table, Value};

use super::link::LinkSpec;
use super::types::{NodeSpec, Scenario};

/// Keys a link table must state: the scenario has no default for them.
const REQUIRED_LINK_KEYS: &[&str] = &["bandwidth", "delay"];

/// The scenario as TOML with only its non-default values (see the module docs).
pub fn compact_toml(s: &Scenario) -> String {
    match compact_text(s) {
        Some(text) if reads_back_as(&text, s) => text,
        _ => s.to_toml(),
    }
}

/// `s` with its nodes and links but every optional value at its default.
fn defaults_of(s: &Scenario) -> Scenario {
    let mut d = Scenario::new(&s.simulation.name, s.simulation.duration);
    d.nodes = s.nodes.keys().map(|n| (n.clone(), NodeSpec::default())).collect();
    d.links = s
        .links
        .iter()
        .map(|(n, l)| (n.clone(), LinkSpec::new(&l.endpoints[0], &l.endpoints[1], l.bandwidth, l.delay)))
        .collect();
    d
}

fn compact_text(s: &Scenario) -> Option<String> {
    let full = toml_edit::ser::to_document(s).ok()?;
    let base = toml_edit::ser::to_document(&defaults_of(s)).ok()?;
    let section = |doc: &DocumentMut, key: &str| doc.get(key).and_then(Item::as_inline_table).cloned();
    let empty = InlineTable::new();
    let mut out = DocumentMut::new();

    let sim = section(&full, "simulation")?;
    let mut simulation = differing(&sim, &section(&base, "simulation")?, &["duration"]);
    simulation.remove("name");
    out.insert("simulation", Item::Table(simulation.into_table()));

    let (nodes, base_nodes) = (section(&full, "nodes")?, section(&base, "nodes")?);
    let mut node_table = Table::new();
    for (name, node) in nodes.iter() {
        let default = base_nodes.get(name).and_then(Value::as_inline_table).unwrap_or(&empty);
        let mut entry = differing(node.as_inline_table()?, default, &[]);
        entry.set_dotted(false);
        node_table.insert(name, Item::Value(Value::InlineTable(entry)));
    }
    out.insert("nodes", Item::Table(node_table));

    let (links, base_links) = (section(&full, "links")?, section(&base, "links")?);
    let mut link_tables = Table::new();
    link_tables.set_implicit(true);
    for (name, link) in links.iter() {
        let default = base_links.get(name).and_then(Value::as_inline_table).unwrap_or(&empty);
        let mut entry = differing(link.as_inline_table()?, default, REQUIRED_LINK_KEYS);
        if !name_gives_endpoints(s, name) {
            let endpoints = link.as_inline_table()?.get("endpoints")?.clone();
            entry.insert("endpoints", endpoints);
        }
        link_tables.insert(name, Item::Table(in_link_order(entry).into_table()));
    }
    if !links.is_empty() {
        out.insert("links", Item::Table(link_tables));
    }

    for key in ["routing", "record"] {
        let table = differing(&section(&full, key)?, &section(&base, key)?, &[]);
        if !table.is_empty() {
            out.insert(key, Item::Table(table.into_table()));
        }
    }
    Some(out.to_string())
}

/// The entries of `t` whose value differs from `default`'s, and the `always` ones.
fn differing(t: &InlineTable, default: &InlineTable, always: &[&str]) -> InlineTable {
    let mut out = InlineTable::new();
    for (key, value) in t.iter() {
        let same = default.get(key).is_some_and(|d| plain(d) == plain(value));
        if always.contains(&key) || !same {
            out.insert(key, value.clone());
        }
    }
    out
}

/// A value's text without the spacing around it, for comparisons.
fn plain(v: &Value) -> String {
    v.to_string().trim().to_string()
}

/// `endpoints` first, as in a hand-written file; the rest in the order serde gave.
fn in_link_order(entry: InlineTable) -> InlineTable {
    let mut out = InlineTable::new();
    if let Some(e) = entry.get("endpoints") {
        out.insert("endpoints", e.clone());
    }
    for (k, v) in entry.iter().filter(|(k, _)| *k != "endpoints") {
        out.insert(k, v.clone());
    }
    out
}

/// Whether loading finds link `name`'s endpoints from its name alone: it splits at exactly one
/// `-` into two declared nodes, and those are the endpoints.
fn name_gives_endpoints(s: &Scenario, name: &str) -> bool {
    let splits: Vec<(&str, &str)> = name
        .match_indices('-')
        .map(|(i, _)| (&name[..i], &name[i + 1..]))
        .filter(|(a, b)| s.nodes.contains_key(*a) && s.nodes.contains_key(*b))
        .collect();
    let [a, b] = &s.links[name].endpoints;
    splits == [(a.as_str(), b.as_str())]
}

/// Whether `text` loads as `s` (whose name it leaves to the file's stem).
fn reads_back_as(text: &str, s: &Scenario) -> bool {
    match super::load_str(text, "import.toml", &[]) {
        Ok(mut loaded) => {
            loaded.simulation.name.clone_from(&s.simulation.name);
            loaded == *s
        }
        Err(_) => false,
    }
}

#[cfg(test)]
mod tests {
    use super::super::import::{minindn_conf, ndnsim_topology};
    use super::*;

    #[test]
    fn an_ndnsim_topology_is_written_without_defaults() {
        let text = "router\nA\nB\nC\nlink\nA B 10Mb/s 1 10ms\nB C 5Mbps 3 20ms 50 1%\n";
        let s = ndnsim_topology(text, "net.txt").unwrap();
        let toml = compact_toml(&s);
        assert_eq!(
            toml,
            "[simulation]\nduration = \"10s\"\n\n[nodes]\nA = {}\nB = {}\nC = {}\n\n\
             [links.A-B]\nbandwidth = \"10Mbps\"\ndelay = \"10ms\"\n\n\
             [links.B-C]\nbandwidth = \"5Mbps\"\ndelay = \"20ms\"\ncost = 3\n\
             loss = { type = \"bernoulli\", p = \"1%\" }\nqueue = { type = \"droptail\", packets = 50 }\n"
        );
        assert!(reads_back_as(&toml, &s));
    }

    #[test]
    fn a_mini_ndn_topology_keeps_its_caches_and_queues() {
        let text = "[nodes]\na: _ cache=100\nb: _\n[links]\na:b delay=10ms bw=5\n";
        let s = minindn_conf(text, "lab.conf").unwrap();
        let toml = compact_toml(&s);
        assert!(toml.contains("a = { content_store = { capacity = 100 } }\nb = {}\n"), "{toml}");
        assert!(toml.contains("queue = { type = \"droptail\", packets = 1000 }"), "{toml}");
        assert!(!toml.contains("underlay_queue") && !toml.contains("[record]"), "{toml}");
        assert!(reads_back_as(&toml, &s));
    }

    #[test]
    fn endpoints_are_written_when_the_name_does_not_give_them() {
        let text = "router\nA-1\nB\nA\n1-B\nlink\nA-1 B 1Mbps 1 1ms\n";
        let s = ndnsim_topology(text, "t.txt").unwrap();
        let toml = compact_toml(&s);
        assert!(toml.contains("[links.A-1-B]\nendpoints = [\"A-1\", \"B\"]\n"), "{toml}");
        assert!(reads_back_as(&toml, &s));
    }

    #[test]
    fn changed_settings_outside_nodes_and_links_are_kept() {
        let mut s = ndnsim_topology("router\nA\nB\nlink\nA B 1Mbps 1 1ms\n", "t.txt").unwrap();
        s.simulation.seed = 7;
        s.routing.multipath = true;
        let toml = compact_toml(&s);
        assert!(toml.contains("seed = 7") && toml.contains("[routing]\nmultipath = true"), "{toml}");
        assert!(reads_back_as(&toml, &s));
    }
}
