//! `strategy = { type = "..." }` on a node: which forwarding strategy it runs.

use super::best_route::BestRouteConfig;
use super::cf::CfConfig;
use super::multicast::MulticastConfig;
use super::pcon::PconStrategyConfig;
use super::pi::PiConfig;
use super::AnyStrategy;

crate::plugin_family! {
    /// A node's forwarding strategy and its parameters.
    pub enum StrategyConfig -> AnyStrategy {
        /// Forward each new Interest to the lowest-cost next hop (NFD's best-route, without
        /// retransmission suppression).
        "best-route" => BestRoute(BestRouteConfig),
        /// Forward each new Interest to every next hop.
        "multicast" => Multicast(MulticastConfig),
        /// PCON's multipath forwarding: a split per FIB entry, moved away from faces whose
        /// Data come back marked (seed 004).
        "pcon" => Pcon(PconStrategyConfig),
        /// The next hop with the fewest pending Interests.
        "pi" => Pi(PiConfig),
        /// Weighted round robin by inverse pending Interests (Carofiglio et al., ICNP 2013).
        "cf" => Cf(CfConfig),
    }
}

impl Default for StrategyConfig {
    fn default() -> Self {
        StrategyConfig::BestRoute(BestRouteConfig::default())
    }
}
