//! Scenarios: a whole experiment as plain data.
//!
//! ```text
//!  scenario.toml ─┐
//!  --set k=v ─────┼─▶ parse (TOML, positions kept) ─▶ overrides ─▶ [defaults] merged
//!  imported topo ─┘        ─▶ deserialise ─▶ resolve ─▶ validate ─▶ Scenario ─▶ engine
//! ```
//!
//! A file has the sections `[simulation]`, `[defaults.link]`, `[defaults.node]`,
//! `[nodes.NAME]`, `[links.NAME]`, `[routing]`, `[[routes]]`, `[apps.NAME]` and `[record]`;
//! the field docs of [`Scenario`] and the types it holds give every key with its unit and
//! default. Parsing comes first and rejects unknown keys everywhere; validation comes second
//! and checks references (nodes, neighbours, producers) and values. Every error names the
//! file, the line and the dotted key:
//!
//! ```text
//! scenarios/x.toml:14: links.R1-R2.queue: unknown variant 'codle', expected one of droptail
//! ```
//!
//! A minimal scenario:
//!
//! ```
//! let text = r#"
//! [simulation]
//! duration = "10s"
//!
//! [nodes]
//! C = {}
//! P = {}
//!
//! [links.C-P]
//! bandwidth = "10Mbps"
//! delay = "10ms"
//!
//! [apps.producer]
//! type = "producer"
//! node = "P"
//! prefix = "/p"
//!
//! [apps.consumer]
//! type = "consumer"
//! node = "C"
//! prefix = "/p"
//! window = { type = "fixed", window = 10 }
//! "#;
//! let s = ndncc_core::scenario::load_str(text, "minimal.toml", &[]).unwrap();
//! assert_eq!(s.simulation.name, "minimal");
//! assert_eq!(s.links["C-P"].endpoints, ["C".to_string(), "P".to_string()]);
//! let faster = ndncc_core::scenario::load_str(text, "minimal.toml", &["links.C-P.bandwidth=20Mbps".into()]).unwrap();
//! assert_eq!(faster.links["C-P"].bandwidth.bps(), 20_000_000);
//! ```
//!
//! The scenario layer knows nothing of the engine: it builds no world and runs nothing.

mod app;
mod capacity;
mod drawn;
mod error;
mod events;
mod import_minindn;
mod import_ndnsim;
mod import_toml;
mod link;
mod link_trace;
mod overrides;
mod parse;
mod randomness;
mod resolve;
mod source;
mod types;
mod validate;

use std::path::Path;

use serde::Serialize;

pub use app::{
    AppSpec, CbrSpec, ConsumerSpec, Control, MulticastSpec, ProducerSpec, TcpSpec, APP_TYPES, DEFAULT_PAYLOAD_BYTES,
};
pub use capacity::{IN_FLIGHT_MARGIN, MAX_IN_FLIGHT, MIN_IN_FLIGHT_LIMIT};
pub use drawn::{Distribution, LinkDraws, Quantity};
pub use error::ScenarioError;
pub use events::{EventAction, EventSpec, EVENT_ACTIONS};
pub use link::{Dir, DirectionSpec, LinkSpec, LINK_KEYS};
pub use link_trace::{LinkTraces, LoadedTrace, TraceSpec, DEFAULT_TRACE_MTU};
pub use parse::ROOT_KEYS;
pub use types::{
    name_covers, split_face, ClockPhase, ContentStoreSpec, FaceSelection, NodeSpec, RecordSpec, RouteSpec,
    RoutingMetric, RoutingMode, RoutingSpec, Scenario, SimulationSpec, NODE_KEYS,
};
pub use validate::allowing_real_producers;

/// Topology import from other simulators' files. Each returns a scenario with nodes, links
/// and computed routing, no apps, and a duration of 10 s (add apps and change the duration
/// with overrides or in code); `compact_toml` writes it with its defaults left out.
pub mod import {
    pub use super::import_minindn::minindn_conf;
    pub use super::import_ndnsim::ndnsim_topology;
    pub use super::import_toml::compact_toml;
}

/// Load a scenario from TOML text. `file` names the origin in errors and gives the default
/// `simulation.name` (its stem); `overrides` are `"dotted.key=value"` strings applied before
/// anything is read.
pub fn load_str(text: &str, file: &str, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    parse::load(text, file, overrides, false)
}

/// Load a scenario file; see [`load_str`].
pub fn load_file(path: &Path, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    let file = path.display().to_string();
    let text =
        std::fs::read_to_string(path).map_err(|e| ScenarioError::new(&file, format!("cannot read the file: {e}")))?;
    load_str(&text, &file, overrides)
}

/// Load a scenario from any serialisable value with the file's shape (a JSON object from
/// Python, a `toml::Table`, …): the same checks as a file, with errors that name the key but
/// no line. `origin` names the value in errors and gives the default `simulation.name`.
pub fn from_value<T: Serialize>(value: &T, origin: &str, overrides: &[String]) -> Result<Scenario, ScenarioError> {
    let table = toml::Table::try_from(value).map_err(|e| {
        ScenarioError::new(origin, format!("not a scenario table: {}", error::tidy_message(&e.to_string())))
    })?;
    let text = toml::to_string(&table).map_err(|e| {
        ScenarioError::new(origin, format!("cannot be written as TOML: {}", error::tidy_message(&e.to_string())))
    })?;
    parse::load(&text, origin, overrides, true)
}

#[cfg(test)]
mod tests;
