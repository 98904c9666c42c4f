//! PI (pending Interests): each Interest goes to the next hop with the fewest Interests
//! pending on it (the forwarder's per-face count of PIT out-records still waiting for Data);
//! ties go to the lower cost, then to the first listed. A baseline in seed 004's multipath
//! evaluation: with equal pending counts it favours short, fast paths, whose Interests clear
//! quickly.

use serde::{Deserialize, Serialize};

use super::share::ShareMeter;
use super::{AnyStrategy, FaceList, InterestEvent, Strategy, StrategyCtx, UpstreamMarking};
use crate::forwarder::fib::NextHop;
use crate::ids::FaceId;
use crate::packet::Packet;
use crate::plugin::Plugin;

/// `strategy = { type = "pi", … }`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PiConfig {
    /// PCON's upstream-side marking (see `best-route`). Default false.
    #[serde(skip_serializing_if = "UpstreamMarking::is_off")]
    pub pcon_upstream_marking: UpstreamMarking,
}

impl Plugin for PiConfig {
    type Built = AnyStrategy;
    fn build(&self) -> AnyStrategy {
        AnyStrategy::Pi(Box::new(Pi { cfg: *self, shares: ShareMeter::default() }))
    }
}

pub struct Pi {
    cfg: PiConfig,
    shares: ShareMeter,
}

/// The next hop with the fewest pending Interests (`pending(face)`), lowest cost on ties.
pub fn fewest_pending(nexthops: &[NextHop], pending: impl Fn(FaceId) -> u32) -> Option<FaceId> {
    nexthops.iter().min_by_key(|h| (pending(h.face), h.cost)).map(|h| h.face)
}

impl Strategy for Pi {
    fn name(&self) -> &'static str {
        "pi"
    }
    fn choose(&mut self, ctx: &mut StrategyCtx, ev: &InterestEvent, out: &mut FaceList) {
        let nexthops = ev.nexthops;
        if let Some(f) = fewest_pending(nexthops, |f| ctx.faces[f.idx()].pending_interests) {
            out.push(f);
            self.shares.count(f);
        }
    }
    fn after_send_interest(&mut self, ctx: &mut StrategyCtx, face: FaceId, _interest: &Packet) -> bool {
        self.cfg.pcon_upstream_marking.marks(ctx, face)
    }
    fn sample(&self, out: &mut Vec<(&'static str, Option<FaceId>, f64)>) {
        self.shares.sample(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fewest_pending_wins_and_cost_breaks_ties() {
        let hops = [
            NextHop { face: FaceId(7), cost: 3 },
            NextHop { face: FaceId(8), cost: 1 },
            NextHop { face: FaceId(9), cost: 2 },
        ];
        let pending = |counts: [u32; 3]| move |f: FaceId| counts[(f.0 - 7) as usize];
        assert_eq!(fewest_pending(&hops, pending([5, 2, 9])), Some(FaceId(8)));
        assert_eq!(fewest_pending(&hops, pending([1, 2, 1])), Some(FaceId(9)));
        assert_eq!(fewest_pending(&hops, pending([0, 0, 0])), Some(FaceId(8)));
        assert_eq!(fewest_pending(&[], pending([0, 0, 0])), None);
    }
}
