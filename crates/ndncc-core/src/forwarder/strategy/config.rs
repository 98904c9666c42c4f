//! `strategy = { type = "..." }` on a node: which forwarding strategy it runs.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize, Default)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub enum StrategyConfig {
    /// Forward each new Interest to the lowest-cost next hop (NFD's best-route, without
    /// retransmission suppression).
    #[default]
    BestRoute,
    /// Forward each new Interest to every next hop.
    Multicast,
}

impl StrategyConfig {
    pub fn validate(&self) -> Result<(), String> {
        Ok(())
    }
    pub fn kind(&self) -> &'static str {
        match self {
            StrategyConfig::BestRoute => "best-route",
            StrategyConfig::Multicast => "multicast",
        }
    }
}
