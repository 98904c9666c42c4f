//! CF (Carofiglio et al., "Optimal multipath congestion control and request forwarding in
//! ICN", ICNP 2013): weighted round robin over the next hops, each weighted by the inverse of
//! the Interests pending on it, smoothed.
//!
//! ```text
//!   each Interest, for every next hop f:  w_f ← α·w_f + (1 − α) / (1 + PI_f)
//!   smooth weighted round robin:          credit_f += w_f;  send on argmax credit;
//!                                         credit_chosen −= Σ w
//! ```
//!
//! PI_f is the forwarder's count of Interests pending on face f. The paper draws faces at
//! random with probability ∝ w; the seed calls its baseline "weighted round robin", so this
//! uses the deterministic smooth form (the same long-run split, without sampling noise). A new
//! face starts with w = 1. α = `smoothing` (default 0.9; an assumption: the paper leaves it to
//! the implementation).

use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::share::ShareMeter;
use super::{AnyStrategy, FaceList, InterestEvent, Strategy, StrategyCtx, UpstreamMarking};
use crate::forwarder::fib::{FibEntryId, NextHop};
use crate::ids::FaceId;
use crate::packet::Packet;
use crate::plugin::{check, Check, Plugin};

/// `strategy = { type = "cf", … }`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CfConfig {
    /// Weight of the old value in the weights' moving average, in [0, 1). Default 0.9.
    pub smoothing: f64,
    /// PCON's upstream-side marking (see `best-route`). Default false.
    #[serde(skip_serializing_if = "UpstreamMarking::is_off")]
    pub pcon_upstream_marking: UpstreamMarking,
}

impl Default for CfConfig {
    fn default() -> Self {
        CfConfig { smoothing: 0.9, pcon_upstream_marking: UpstreamMarking::OFF }
    }
}

impl Plugin for CfConfig {
    type Built = AnyStrategy;
    fn validate(&self) -> Check {
        check::within("smoothing", self.smoothing, 0.0, 0.999_999)
    }
    fn build(&self) -> AnyStrategy {
        AnyStrategy::Cf(Box::new(Cf { cfg: *self, state: FxHashMap::default(), shares: ShareMeter::default() }))
    }
}

/// Weights and round-robin credits of one FIB entry's next hops.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Wrr {
    /// (face, weight, credit).
    pub faces: Vec<(FaceId, f64, f64)>,
}

impl Wrr {
    /// Update the weights from the pending counts and pick the next face.
    pub fn next(&mut self, nexthops: &[NextHop], alpha: f64, pending: impl Fn(FaceId) -> u32) -> Option<FaceId> {
        for h in nexthops {
            if !self.faces.iter().any(|(f, _, _)| *f == h.face) {
                self.faces.push((h.face, 1.0, 0.0));
            }
        }
        let mut total = 0.0;
        let mut best: Option<(usize, f64)> = None;
        for (i, (f, w, credit)) in self.faces.iter_mut().enumerate() {
            if !nexthops.iter().any(|h| h.face == *f) {
                continue;
            }
            *w = alpha * *w + (1.0 - alpha) / (1.0 + f64::from(pending(*f)));
            *credit += *w;
            total += *w;
            if best.is_none_or(|(_, c)| *credit > c) {
                best = Some((i, *credit));
            }
        }
        let (i, _) = best?;
        self.faces[i].2 -= total;
        Some(self.faces[i].0)
    }
}

pub struct Cf {
    cfg: CfConfig,
    state: FxHashMap<FibEntryId, Wrr>,
    shares: ShareMeter,
}

impl Strategy for Cf {
    fn name(&self) -> &'static str {
        "cf"
    }
    fn choose(&mut self, ctx: &mut StrategyCtx, ev: &InterestEvent, out: &mut FaceList) {
        let (fib_entry, nexthops) = (ev.fib_entry, ev.nexthops);
        let wrr = self.state.entry(fib_entry).or_default();
        if let Some(f) = wrr.next(nexthops, self.cfg.smoothing, |f| ctx.faces[f.idx()].pending_interests) {
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

    fn hops() -> Vec<NextHop> {
        vec![NextHop { face: FaceId(1), cost: 1 }, NextHop { face: FaceId(2), cost: 1 }]
    }

    #[test]
    fn weights_follow_the_inverse_pending_count() {
        let mut wrr = Wrr::default();
        // α = 0.5; pending 0 and 3: w1 = 0.5·1 + 0.5/1 = 1, w2 = 0.5·1 + 0.5/4 = 0.625.
        let first = wrr.next(&hops(), 0.5, |f| if f == FaceId(1) { 0 } else { 3 });
        assert_eq!(first, Some(FaceId(1)));
        assert!((wrr.faces[0].1 - 1.0).abs() < 1e-12 && (wrr.faces[1].1 - 0.625).abs() < 1e-12);
        // Credits after the pick: 1 − 1.625 = −0.625 and 0.625.
        assert!((wrr.faces[0].2 + 0.625).abs() < 1e-12 && (wrr.faces[1].2 - 0.625).abs() < 1e-12);
    }

    #[test]
    fn fixed_weights_give_a_proportional_round_robin() {
        // With α = 0 the weights are exactly 1/(1+PI): 1 and 1/3, so 3 of every 4 go to face 1.
        let mut wrr = Wrr::default();
        let picks: Vec<_> =
            (0..8).map(|_| wrr.next(&hops(), 0.0, |f| if f == FaceId(1) { 0 } else { 2 }).unwrap()).collect();
        assert_eq!(picks.iter().filter(|f| **f == FaceId(1)).count(), 6);
        assert_eq!(picks.iter().filter(|f| **f == FaceId(2)).count(), 2);
    }
}
