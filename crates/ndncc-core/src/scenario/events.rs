//! `[[events]]`: changes at given instants of the run. Each names a link or a node, and an
//! action:
//!
//! ```toml
//! [[events]]
//! at = "10s"
//! link = "C-P"
//! action = "down"          # or "up"
//!
//! [[events]]
//! at = "20s"
//! link = "C-P"
//! action = "set"
//! bandwidth = "5Mbps"      # any of bandwidth(_ab/_ba), delay, loss(_ab/_ba), queue(_ab/_ba)
//!
//! [[events]]
//! at = "30s"
//! node = "R"
//! action = "set"
//! strategy = { type = "best-route" }   # or action = "down" / "up"
//! ```
//!
//! Events of one instant run in the order of the file. Validation replays the events in time
//! order and refuses one that takes down what is down, or brings up what is up.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

use super::source::{index, join};
use super::types::Scenario;
use crate::forwarder::strategy::StrategyConfig;
use crate::loss::LossConfig;
use crate::plugin::{check, Check, Invalid};
use crate::queue::QueueConfig;
use crate::units::{Bandwidth, Duration, MAX_BANDWIDTH_BPS};

/// The actions an event may take.
pub const EVENT_ACTIONS: &[&str] = &["down", "up", "set"];

/// `action = …`.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum EventAction {
    /// The link (both directions) or the node (all its links) fails.
    Down,
    /// It works again.
    Up,
    /// New values for the link keys given, or the node's `strategy`.
    Set,
}

/// One `[[events]]` entry.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct EventSpec {
    /// When [time]. Required; at most the simulation's duration.
    pub at: Duration,
    /// The link it acts on, by name. Give `link` or `node`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub link: Option<String>,
    /// The node it acts on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub node: Option<String>,
    /// `"down"`, `"up"` or `"set"`. Required.
    pub action: EventAction,
    /// New bandwidth of both directions [bit/s].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth: Option<Bandwidth>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth_ab: Option<Bandwidth>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bandwidth_ba: Option<Bandwidth>,
    /// New one-way delay of both directions [time].
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub delay: Option<Duration>,
    /// New loss model of both directions.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss: Option<LossConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_ab: Option<LossConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub loss_ba: Option<LossConfig>,
    /// New queue discipline of both directions (the packets waiting move over).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue: Option<QueueConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_ab: Option<QueueConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_ba: Option<QueueConfig>,
    /// A node's new forwarding strategy.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub strategy: Option<StrategyConfig>,
}

impl EventSpec {
    /// The link keys a `set` gives, by name.
    pub fn link_keys(&self) -> Vec<&'static str> {
        let mut out = Vec::new();
        let given = [
            ("bandwidth", self.bandwidth.is_some()),
            ("bandwidth_ab", self.bandwidth_ab.is_some()),
            ("bandwidth_ba", self.bandwidth_ba.is_some()),
            ("delay", self.delay.is_some()),
            ("loss", self.loss.is_some()),
            ("loss_ab", self.loss_ab.is_some()),
            ("loss_ba", self.loss_ba.is_some()),
            ("queue", self.queue.is_some()),
            ("queue_ab", self.queue_ab.is_some()),
            ("queue_ba", self.queue_ba.is_some()),
        ];
        for (k, set) in given {
            if set {
                out.push(k);
            }
        }
        out
    }

    /// The values this event's own settings must satisfy; keys relative to the entry.
    fn check_values(&self) -> Check {
        for (k, b) in
            [("bandwidth", self.bandwidth), ("bandwidth_ab", self.bandwidth_ab), ("bandwidth_ba", self.bandwidth_ba)]
        {
            if let Some(b) = b {
                check::count(k, b.bps(), 1, MAX_BANDWIDTH_BPS)?;
            }
        }
        if let Some(d) = self.delay {
            check::time("delay", d.get(), true)?;
        }
        for (k, l) in [("loss", &self.loss), ("loss_ab", &self.loss_ab), ("loss_ba", &self.loss_ba)] {
            if let Some(l) = l {
                l.validate().map_err(|e| e.under(k))?;
            }
        }
        for (k, q) in [("queue", &self.queue), ("queue_ab", &self.queue_ab), ("queue_ba", &self.queue_ba)] {
            if let Some(q) = q {
                q.validate().map_err(|e| e.under(k))?;
            }
        }
        if let Some(s) = &self.strategy {
            s.validate().map_err(|e| e.under("strategy"))?;
        }
        Ok(())
    }
}

fn fail(key: String, message: impl Into<String>) -> Check {
    Err(Invalid::new(key, message))
}

impl Scenario {
    /// Every event: a known link or node, a time within the run, an action that fits what it
    /// acts on, valid values, and a state that changes (nothing taken down twice).
    pub(crate) fn check_events(&self) -> Check {
        check::time("routing.convergence", self.routing.convergence.get(), true)?;
        let end = self.simulation.duration;
        for (i, e) in self.events.iter().enumerate() {
            let key = index("events", i);
            check::time(&join(&key, "at"), e.at.get(), true)?;
            if e.at > end {
                return fail(join(&key, "at"), format!("{} is after the end of the simulation ({end})", e.at));
            }
            let keys = e.link_keys();
            match (&e.link, &e.node) {
                (Some(_), Some(_)) => {
                    return fail(join(&key, "node"), "an event acts on a `link` or a `node`, not both")
                }
                (None, None) => {
                    return fail(key, "an event needs a `link = \"NAME\"` or a `node = \"NAME\"` to act on")
                }
                (Some(l), None) => {
                    if !self.links.contains_key(l) {
                        let known: Vec<&str> = self.links.keys().map(String::as_str).collect();
                        return fail(
                            join(&key, "link"),
                            format!("'{l}' is not a link of this scenario (links: {})", known.join(", ")),
                        );
                    }
                    if e.strategy.is_some() {
                        return fail(join(&key, "strategy"), "a strategy belongs to a node: give `node = \"NAME\"`");
                    }
                    if e.action == EventAction::Set && keys.is_empty() {
                        return fail(
                            join(&key, "action"),
                            "`set` needs the link keys to change, e.g. bandwidth = \"5Mbps\"",
                        );
                    }
                }
                (None, Some(n)) => {
                    self.node_ref_check(join(&key, "node"), n)?;
                    if let Some(k) = keys.first() {
                        return fail(join(&key, k), format!("`{k}` belongs to a link: give `link = \"NAME\"`"));
                    }
                    if e.action == EventAction::Set && e.strategy.is_none() {
                        return fail(join(&key, "action"), "`set` on a node needs `strategy = { type = … }`");
                    }
                }
            }
            if e.action != EventAction::Set {
                if let Some(k) = keys.first().copied().or(e.strategy.as_ref().map(|_| "strategy")) {
                    return fail(join(&key, k), format!("`{k}` is only for action = \"set\""));
                }
            }
            e.check_values().map_err(|x| x.under(&key))?;
        }
        self.check_event_states()
    }

    fn node_ref_check(&self, key: String, node: &str) -> Check {
        if self.nodes.contains_key(node) {
            Ok(())
        } else {
            let known: Vec<&str> = self.nodes.keys().map(String::as_str).collect();
            fail(key, format!("'{node}' is not a declared node (declared: {})", known.join(", ")))
        }
    }

    /// Replay the downs and ups in the order they run (time, then file order).
    fn check_event_states(&self) -> Check {
        let mut order: Vec<usize> = (0..self.events.len()).collect();
        order.sort_by_key(|&i| (self.events[i].at, i));
        // What is down, and the event that took it down.
        let mut down: BTreeMap<(bool, &str), usize> = BTreeMap::new();
        for i in order {
            let e = &self.events[i];
            let (is_node, name) = match (&e.link, &e.node) {
                (Some(l), _) => (false, l.as_str()),
                (None, Some(n)) => (true, n.as_str()),
                (None, None) => continue,
            };
            let what = if is_node { format!("node {name}") } else { format!("link {name}") };
            let key = join(&index("events", i), "action");
            match e.action {
                EventAction::Down => {
                    if let Some(&j) = down.get(&(is_node, name)) {
                        return fail(
                            key,
                            format!(
                                "{what} is already down at {} (events[{j}] took it down at {})",
                                e.at, self.events[j].at
                            ),
                        );
                    }
                    down.insert((is_node, name), i);
                }
                EventAction::Up => {
                    if down.remove(&(is_node, name)).is_none() {
                        return fail(key, format!("{what} is not down at {}: only what went down can come up", e.at));
                    }
                }
                EventAction::Set => {}
            }
        }
        Ok(())
    }
}
