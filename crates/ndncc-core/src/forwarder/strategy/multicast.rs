//! Multicast: each Interest goes to every next hop except its in-face.

use serde::{Deserialize, Serialize};

use super::{AnyStrategy, FaceList, InterestEvent, Strategy, StrategyCtx, UpstreamMarking};
use crate::ids::FaceId;
use crate::packet::Packet;
use crate::plugin::Plugin;

/// `strategy = { type = "multicast", … }`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MulticastConfig {
    /// PCON's upstream-side marking (see `best-route`). Default false.
    #[serde(skip_serializing_if = "UpstreamMarking::is_off")]
    pub pcon_upstream_marking: UpstreamMarking,
}

impl Plugin for MulticastConfig {
    type Built = AnyStrategy;
    fn build(&self) -> AnyStrategy {
        AnyStrategy::Multicast(Box::new(Multicast::new(self)))
    }
}

#[derive(Debug, Default, Clone, Copy)]
pub struct Multicast {
    cfg: MulticastConfig,
}

impl Multicast {
    pub fn new(cfg: &MulticastConfig) -> Multicast {
        Multicast { cfg: *cfg }
    }
}

impl Strategy for Multicast {
    fn name(&self) -> &'static str {
        "multicast"
    }
    fn choose(&mut self, _ctx: &mut StrategyCtx, ev: &InterestEvent, out: &mut FaceList) {
        let nexthops = ev.nexthops;
        out.extend(nexthops.iter().map(|n| n.face));
    }
    fn after_send_interest(&mut self, ctx: &mut StrategyCtx, face: FaceId, _interest: &Packet) -> bool {
        self.cfg.pcon_upstream_marking.marks(ctx, face)
    }
}
