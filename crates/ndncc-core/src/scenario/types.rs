//! The plain-data types of a scenario: simulation settings, nodes, routing, recording.
//! Links live in `link.rs`, applications in `app.rs`.

use std::collections::BTreeMap;

use serde::{de, Deserialize, Deserializer, Serialize};

use super::app::{AppSpec, ConsumerSpec, ProducerSpec};
use super::events::EventSpec;
use super::link::LinkSpec;
pub use crate::face_selection::{split_face, FaceSelection};
use crate::forwarder::strategy::StrategyConfig;
use crate::module::ModuleConfig;
use crate::units::Duration;

/// A whole experiment, resolved: `[defaults]` merged into every node and link, link endpoints
/// filled in, and a consumer's `file_size` turned into `segments` where its producer is known.
///
/// Maps are `BTreeMap`s so that iteration order, and hence everything built from it, is the
/// same on every run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// `[simulation]`: name, duration, seed.
    pub simulation: SimulationSpec,
    /// `[nodes.NAME]`: every node the links and apps refer to.
    #[serde(default)]
    pub nodes: BTreeMap<String, NodeSpec>,
    /// `[links.NAME]`: full-duplex point-to-point links.
    #[serde(default)]
    pub links: BTreeMap<String, LinkSpec>,
    /// `[routing]`: how FIBs are filled.
    #[serde(default)]
    pub routing: RoutingSpec,
    /// `[[routes]]`: static FIB entries, installed in both routing modes.
    #[serde(default)]
    pub routes: Vec<RouteSpec>,
    /// `[apps.NAME]`: producers and consumers.
    #[serde(default)]
    pub apps: BTreeMap<String, AppSpec>,
    /// `[record]`: what the run records.
    #[serde(default)]
    pub record: RecordSpec,
    /// `[[events]]`: changes to links and nodes at given instants.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub events: Vec<EventSpec>,
}

/// `[simulation]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct SimulationSpec {
    /// Name of the run. Default: the scenario file's stem (`scenarios/e4-pcon.toml` → `e4-pcon`).
    #[serde(default)]
    pub name: String,
    /// Simulated time to run [time, e.g. `"40s"`]. Required; must be > 0.
    pub duration: Duration,
    /// Root seed of every random stream. Default 1.
    #[serde(default = "default_seed")]
    pub seed: u64,
    /// Free text shown in reports. Optional.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

fn default_seed() -> u64 {
    1
}

/// Keys a `[nodes.NAME]` table (and `[defaults.node]`) accepts.
pub const NODE_KEYS: &[&str] = &["clock_tick", "clock_phase", "content_store", "strategy", "modules"];

/// `[nodes.NAME]`. Every key is optional, so `C1 = {}` declares a node with defaults.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    /// Coarse clock tick \[time\]. When set, the node's timers fire only on multiples of the tick.
    /// Default: none (exact timers). Must be > 0 when given.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_tick: Option<Duration>,
    /// Where the coarse clock's edges fall within a tick: a time below `clock_tick`, or
    /// `"random"` (drawn from the run's seed per node). Default: on multiples of the tick.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub clock_phase: Option<ClockPhase>,
    /// The node's Content Store. Default: off (capacity 0).
    #[serde(default)]
    pub content_store: ContentStoreSpec,
    /// Forwarding strategy. Default `{ type = "best-route" }`.
    #[serde(default)]
    pub strategy: StrategyConfig,
    /// Router-side congestion-control modules, applied in order. Default none.
    #[serde(default)]
    pub modules: Vec<ModuleConfig>,
}

/// `clock_phase = "30ms"` or `"random"`: where a node's coarse clock ticks within a tick.
/// Real nodes' clocks are not aligned; a random phase is drawn uniformly in [0, tick) from the
/// run's seed and the node's name (stream `clockphase:NODE`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ClockPhase {
    Fixed(Duration),
    Random,
}

impl Serialize for ClockPhase {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            ClockPhase::Fixed(d) => d.serialize(s),
            ClockPhase::Random => s.serialize_str("random"),
        }
    }
}

impl<'de> Deserialize<'de> for ClockPhase {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let text = String::deserialize(d)?;
        if text == "random" {
            return Ok(ClockPhase::Random);
        }
        Duration::parse(&text).map(ClockPhase::Fixed).map_err(|e| {
            serde::de::Error::custom(format!("{e}; clock_phase is a time such as \"30ms\", or \"random\""))
        })
    }
}

impl ClockPhase {
    /// The phase of `node`'s clock with tick `tick` in the run with `seed` [ns].
    pub fn resolve(self, seed: u64, node: &str, tick: crate::time::SimDuration) -> crate::time::SimDuration {
        match self {
            ClockPhase::Fixed(d) => d.get(),
            ClockPhase::Random => {
                let mut rng = crate::rng::stream(seed, &format!("clockphase:{node}"));
                crate::time::SimDuration(crate::rng::below(&mut rng, tick.nanos()))
            }
        }
    }
}

/// `content_store = { capacity = N }`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ContentStoreSpec {
    /// Capacity [Data packets] of an LRU Content Store; 0 turns caching off. Default 0.
    #[serde(default)]
    pub capacity: usize,
}

/// `[routing] mode = …`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RoutingMode {
    /// Shortest paths from every node to every producer's prefix, plus `[[routes]]`.
    #[default]
    Computed,
    /// Only the `[[routes]]` entries.
    Static,
}

/// `[routing] metric = …`: the path length computed routing minimises.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum RoutingMetric {
    /// Sum of the links' `cost`.
    #[default]
    Cost,
    /// Sum of the links' one-way `delay`.
    Delay,
    /// Number of links.
    Hops,
}

/// `[routing]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RoutingSpec {
    /// `"computed"` (default) or `"static"`.
    #[serde(default)]
    pub mode: RoutingMode,
    /// `"cost"` (default), `"delay"` or `"hops"`.
    #[serde(default)]
    pub metric: RoutingMetric,
    /// When true, computed routing installs every neighbour as a next hop with the cost of the
    /// best path through it (all possible routes); when false (default), only the best.
    #[serde(default)]
    pub multipath: bool,
    /// How long after a link or node goes down or comes back the routes are computed again
    /// \[time\]. Default `"0s"`: at once.
    #[serde(default, skip_serializing_if = "is_zero")]
    pub convergence: Duration,
}

fn is_zero(d: &Duration) -> bool {
    d.get() == crate::time::SimDuration::ZERO
}

/// One `[[routes]]` entry: a static FIB entry on `node`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RouteSpec {
    /// The node whose FIB gets the entry. Required.
    pub node: String,
    /// Name prefix, e.g. `"/p1"`. Required.
    pub prefix: String,
    /// A neighbour of `node` (a node sharing a link with it). Required.
    pub nexthop: String,
    /// Routing cost of the next hop. Default 1.
    #[serde(default = "default_cost")]
    pub cost: u32,
}

pub(crate) fn default_cost() -> u32 {
    1
}

/// `[record]`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RecordSpec {
    /// Fixed sampling interval of windows, rates and queue lengths \[time\]. Default `"100ms"`;
    /// `"0s"` turns sampling off.
    #[serde(default = "default_interval")]
    pub interval: Duration,
    /// Per-packet event samples (RTT and RTO at each Data, drops, …). Default true.
    #[serde(default = "default_true")]
    pub events: bool,
    /// Which faces to record: `"all"` (default), `"none"`, or a list of face names like
    /// `"R1->R2"` (the face of R1 toward R2).
    #[serde(default)]
    pub faces: FaceSelection,
    /// A pcapng packet trace of chosen faces (see `trace`); off unless given. The front decides
    /// where the file goes (`trace.pcapng` in the run's folder).
    #[serde(default, skip_serializing_if = "Option::is_none", deserialize_with = "pcap_table")]
    pub pcap: Option<crate::trace::PcapSpec>,
}

/// `pcap` must be a table: serde would also take an array (`pcap = []`) for a struct whose
/// fields all have defaults, and silently record every face.
fn pcap_table<'de, D: Deserializer<'de>>(d: D) -> Result<Option<crate::trace::PcapSpec>, D::Error> {
    match toml::Value::deserialize(d)? {
        t @ toml::Value::Table(_) => crate::trace::PcapSpec::deserialize(t).map(Some).map_err(de::Error::custom),
        other => Err(de::Error::custom(format!(
            "expected a table such as {{ faces = \"all\" }}, got a TOML {}",
            other.type_str()
        ))),
    }
}

fn default_interval() -> Duration {
    Duration::from_millis(100)
}

pub(crate) fn default_true() -> bool {
    true
}

impl Default for RecordSpec {
    fn default() -> Self {
        RecordSpec { interval: default_interval(), events: true, faces: FaceSelection::All, pcap: None }
    }
}

/// Is `prefix` a name prefix of `name`, component by component (`/a` covers `/a/b`, not `/ab`)?
pub fn name_covers(prefix: &str, name: &str) -> bool {
    let mut n = name.split('/').filter(|c| !c.is_empty());
    prefix.split('/').filter(|c| !c.is_empty()).all(|p| n.next() == Some(p))
}

/// Number of components of a name (`/` has 0).
fn components(name: &str) -> usize {
    name.split('/').filter(|c| !c.is_empty()).count()
}

impl Scenario {
    /// An empty scenario: the given duration, seed 1, no nodes.
    pub fn new(name: &str, duration: Duration) -> Scenario {
        Scenario {
            simulation: SimulationSpec { name: name.to_string(), duration, seed: 1, description: None },
            nodes: BTreeMap::new(),
            links: BTreeMap::new(),
            routing: RoutingSpec::default(),
            routes: Vec::new(),
            apps: BTreeMap::new(),
            record: RecordSpec::default(),
            events: Vec::new(),
        }
    }

    /// The consumers, by app name, in name order.
    /// The scenario's name (`simulation.name`).
    pub fn name(&self) -> &str {
        &self.simulation.name
    }
    /// Simulated duration [s].
    pub fn duration_secs(&self) -> f64 {
        self.simulation.duration.get().as_secs_f64()
    }
    /// Root seed (`simulation.seed`).
    pub fn seed(&self) -> u64 {
        self.simulation.seed
    }

    pub fn consumers(&self) -> impl Iterator<Item = (&str, &ConsumerSpec)> + '_ {
        self.apps.iter().filter_map(|(n, a)| match a {
            AppSpec::Consumer(c) => Some((n.as_str(), c)),
            _ => None,
        })
    }

    /// The producers, by app name, in name order.
    pub fn producers(&self) -> impl Iterator<Item = (&str, &ProducerSpec)> + '_ {
        self.apps.iter().filter_map(|(n, a)| match a {
            AppSpec::Producer(p) => Some((n.as_str(), p)),
            _ => None,
        })
    }

    /// The producer whose prefix is the longest one covering `name`; among equally long
    /// prefixes, the first by app name.
    pub fn producer_for(&self, name: &str) -> Option<(&str, &ProducerSpec)> {
        let mut best: Option<(&str, &ProducerSpec)> = None;
        for (n, p) in self.producers() {
            if !name_covers(&p.prefix, name) {
                continue;
            }
            if best.is_none_or(|(_, b)| components(&p.prefix) > components(&b.prefix)) {
                best = Some((n, p));
            }
        }
        best
    }

    /// The links between `a` and `b` (either orientation), by name.
    pub fn links_between<'s>(&'s self, a: &'s str, b: &'s str) -> impl Iterator<Item = (&'s str, &'s LinkSpec)> + 's {
        self.links.iter().filter_map(move |(n, l)| {
            let [x, y] = &l.endpoints;
            ((x == a && y == b) || (x == b && y == a)).then_some((n.as_str(), l))
        })
    }

    /// The neighbours of `node`: the other ends of its links, each once, in name order.
    pub fn neighbours(&self, node: &str) -> Vec<&str> {
        let mut out: Vec<&str> = self
            .links
            .values()
            .filter_map(|l| {
                let [x, y] = &l.endpoints;
                if x == node {
                    Some(y.as_str())
                } else if y == node {
                    Some(x.as_str())
                } else {
                    None
                }
            })
            .collect();
        out.sort_unstable();
        out.dedup();
        out
    }

    /// The resolved scenario as a TOML document that `load_str` reads back to an equal value:
    /// one `[section]` or `[section.NAME]` table each, settings inside them as inline tables.
    pub fn to_toml(&self) -> String {
        use toml_edit::{ArrayOfTables, Item, Table, Value};
        let doc = match toml_edit::ser::to_document(self) {
            Ok(d) => d,
            Err(e) => return format!("# this scenario cannot be written as TOML: {e}\n"),
        };
        let mut out = toml_edit::DocumentMut::new();
        for (key, item) in doc.iter() {
            let item = match (key, item.clone()) {
                ("nodes" | "links" | "apps", Item::Value(Value::InlineTable(entries))) => {
                    let mut section = Table::new();
                    section.set_implicit(true);
                    for (name, entry) in entries.iter() {
                        if let Value::InlineTable(t) = entry {
                            section.insert(name, Item::Table(t.clone().into_table()));
                        }
                    }
                    Item::Table(section)
                }
                ("routes" | "events", Item::Value(Value::Array(routes))) => {
                    if routes.is_empty() {
                        continue;
                    }
                    let mut aot = ArrayOfTables::new();
                    for r in routes.iter() {
                        if let Value::InlineTable(t) = r {
                            aot.push(t.clone().into_table());
                        }
                    }
                    Item::ArrayOfTables(aot)
                }
                (_, Item::Value(Value::InlineTable(t))) => Item::Table(t.into_table()),
                (_, other) => other,
            };
            out.insert(key, item);
        }
        out.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn name_prefixes_match_whole_components() {
        assert!(name_covers("/a", "/a/b"));
        assert!(name_covers("/a", "/a"));
        assert!(name_covers("/", "/x"));
        assert!(!name_covers("/a", "/ab"));
        assert!(!name_covers("/a/b", "/a"));
    }

    #[test]
    fn face_names_split_at_the_arrow() {
        assert_eq!(split_face("R1->R2"), Some(("R1", "R2")));
        assert_eq!(split_face("R1-R2"), None);
        assert_eq!(split_face("->R2"), None);
        assert!(FaceSelection::List(vec!["A->B".into()]).includes("A", "B"));
        assert!(!FaceSelection::List(vec!["A->B".into()]).includes("B", "A"));
    }
}
