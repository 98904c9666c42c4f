//! `strategy = { type = "..." }` on a node: which forwarding strategy it runs.

use super::best_route::BestRouteConfig;
use super::multicast::MulticastConfig;
use super::AnyStrategy;

crate::plugin_family! {
    /// A node's forwarding strategy and its parameters.
    pub enum StrategyConfig -> AnyStrategy {
        /// Forward each new Interest to the lowest-cost next hop (NFD's best-route, without
        /// retransmission suppression).
        "best-route" => BestRoute(BestRouteConfig),
        /// Forward each new Interest to every next hop.
        "multicast" => Multicast(MulticastConfig),
    }
}

impl Default for StrategyConfig {
    fn default() -> Self {
        StrategyConfig::BestRoute(BestRouteConfig::default())
    }
}
