//! `strategy = { type = "..." }` on a node: which forwarding strategy it runs.

use serde::{Deserialize, Serialize};

use super::best_route::BestRouteConfig;
use super::multicast::MulticastConfig;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub enum StrategyConfig {
    /// Forward each new Interest to the lowest-cost next hop (NFD's best-route, without
    /// retransmission suppression).
    BestRoute(BestRouteConfig),
    /// Forward each new Interest to every next hop.
    Multicast(MulticastConfig),
}

impl Default for StrategyConfig {
    fn default() -> Self {
        StrategyConfig::BestRoute(BestRouteConfig::default())
    }
}

impl StrategyConfig {
    pub fn validate(&self) -> Result<(), String> {
        Ok(())
    }
    pub fn kind(&self) -> &'static str {
        match self {
            StrategyConfig::BestRoute(_) => "best-route",
            StrategyConfig::Multicast(_) => "multicast",
        }
    }
}
