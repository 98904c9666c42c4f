//! Best route: each Interest goes to the cheapest next hop that is not its in-face. A NACK is
//! passed downstream once every out-face has NACKed (NFD's best-route without retry).

use serde::{Deserialize, Serialize};

use super::{AnyStrategy, FaceList, InterestEvent, Strategy, StrategyCtx, UpstreamMarking};
use crate::ids::FaceId;
use crate::packet::Packet;
use crate::plugin::Plugin;

/// `strategy = { type = "best-route", … }`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BestRouteConfig {
    /// PCON's upstream-side marking: an Interest sent on a face whose queue is in its marking
    /// state marks its PIT entry, and the Data answering it is marked on its way back (seed
    /// 004). Default false, as NFD's best-route.
    #[serde(skip_serializing_if = "UpstreamMarking::is_off")]
    pub pcon_upstream_marking: UpstreamMarking,
}

impl Plugin for BestRouteConfig {
    type Built = AnyStrategy;
    fn build(&self) -> AnyStrategy {
        AnyStrategy::BestRoute(BestRoute::new(self))
    }
}

#[derive(Debug, Default, Clone, Copy)]
pub struct BestRoute {
    cfg: BestRouteConfig,
}

impl BestRoute {
    pub fn new(cfg: &BestRouteConfig) -> BestRoute {
        BestRoute { cfg: *cfg }
    }
}

impl Strategy for BestRoute {
    fn name(&self) -> &'static str {
        "best-route"
    }
    fn choose(&mut self, _ctx: &mut StrategyCtx, ev: &InterestEvent, out: &mut FaceList) {
        let nexthops = ev.nexthops;
        if let Some(best) = nexthops.first() {
            out.push(best.face);
        }
    }
    fn after_send_interest(&mut self, ctx: &mut StrategyCtx, face: FaceId, _interest: &Packet) -> bool {
        self.cfg.pcon_upstream_marking.marks(ctx, face)
    }
}
