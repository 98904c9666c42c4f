//! Forwarding strategies: which upstream faces an Interest goes to, and what a strategy learns
//! from Data, NACKs and expiries. One strategy per file; built-ins are dispatched statically.

pub mod best_route;
pub mod cf;
pub mod config;
pub mod multicast;
pub mod pcon;
pub mod pi;
pub mod share;

use smallvec::SmallVec;

pub use best_route::{BestRoute, BestRouteConfig};
pub use cf::{Cf, CfConfig};
pub use config::StrategyConfig;
pub use multicast::{Multicast, MulticastConfig};
pub use pcon::{PconStrategy, PconStrategyConfig};
pub use pi::{Pi, PiConfig};

use super::fib::{FibEntryId, NextHop};
use crate::face::Face;
use crate::ids::{FaceId, NodeId};
use crate::packet::Packet;
use crate::rng::SimRng;
use crate::time::SimTime;

/// What a strategy may look at when deciding.
pub struct StrategyCtx<'a> {
    pub now: SimTime,
    /// The node the strategy runs on.
    pub node: NodeId,
    /// The node's own random stream.
    pub rng: &'a mut SimRng,
    /// Every face in the world (index by `FaceId`); read pending-Interest counts and queue
    /// state from here.
    pub faces: &'a [Face],
}

/// An Interest to forward (`Strategy::choose`).
pub struct InterestEvent<'a> {
    pub interest: &'a Packet,
    /// The face it came in on.
    pub in_face: FaceId,
    /// Its FIB entry.
    pub fib_entry: FibEntryId,
    /// The FIB entry's next hops, sorted by cost, with the in-face already removed.
    pub nexthops: &'a [NextHop],
}

/// A Data that came back for an Interest this node forwarded (`Strategy::on_data`).
pub struct DataEvent<'a> {
    pub data: &'a Packet,
    /// The face it came back on.
    pub from: FaceId,
    /// The FIB entry its Interest was forwarded by, if any.
    pub fib_entry: Option<FibEntryId>,
}

/// A NACK that came back (`Strategy::on_nack`).
pub struct NackEvent<'a> {
    pub nack: &'a Packet,
    /// The face it came back on.
    pub from: FaceId,
    /// The FIB entry its Interest was forwarded by, if any.
    pub fib_entry: Option<FibEntryId>,
    /// The next hops the Interest has not been sent to yet.
    pub untried: &'a [NextHop],
}

/// A PIT entry that expired without Data (`Strategy::on_pit_expired`).
pub struct ExpiryEvent<'a> {
    /// The faces its Interest went to, the strategy's choice first.
    pub out_faces: &'a [FaceId],
    /// The FIB entry its Interest was forwarded by, if any.
    pub fib_entry: Option<FibEntryId>,
}

/// Faces chosen for one Interest.
pub type FaceList = SmallVec<[FaceId; 4]>;

pub trait Strategy: Send {
    fn name(&self) -> &'static str;
    /// Choose out-faces for an Interest. Leaving `out` empty makes the forwarder send a NACK
    /// NoRoute.
    fn choose(&mut self, ctx: &mut StrategyCtx, ev: &InterestEvent, out: &mut FaceList);
    /// A Data came back for an Interest this node forwarded.
    fn on_data(&mut self, _ctx: &mut StrategyCtx, _ev: &DataEvent) {}
    /// A NACK came back. Return another face to try, or `None` to give up on the face it came
    /// from (the forwarder NACKs downstream once every out-face has NACKed).
    fn on_nack(&mut self, _ctx: &mut StrategyCtx, _ev: &NackEvent) -> Option<FaceId> {
        None
    }
    /// A PIT entry expired without Data.
    fn on_pit_expired(&mut self, _ctx: &mut StrategyCtx, _ev: &ExpiryEvent) {}
    /// An Interest was just sent on `face`. Return true to mark its PIT entry, so that the
    /// Data answering it is marked on its way back (PCON's upstream-side marking).
    fn after_send_interest(&mut self, _ctx: &mut StrategyCtx, _face: FaceId, _interest: &Packet) -> bool {
        false
    }
    /// Values to sample every recording interval, as (metric, face or None, value): per-face
    /// values go to the faces table, node-level ones to the series under the node's name.
    fn sample(&self, _out: &mut Vec<(&'static str, Option<FaceId>, f64)>) {}
}

/// PCON's upstream-side congestion detection: is the queue of `face` in its marking state?
pub fn upstream_marking(ctx: &StrategyCtx, face: FaceId) -> bool {
    ctx.faces[face.idx()].is_congested()
}

/// `pcon_upstream_marking`, the switch every built-in strategy has: PCON's upstream-side
/// marking, where an Interest sent on a face whose queue is in its marking state marks its PIT
/// entry, and the Data answering it is marked on its way back (seed 004). It reads and writes as
/// a bool; off by default (NFD's strategies do not mark), on in `pcon`'s.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(transparent)]
pub struct UpstreamMarking(pub bool);

impl UpstreamMarking {
    pub const ON: UpstreamMarking = UpstreamMarking(true);
    pub const OFF: UpstreamMarking = UpstreamMarking(false);

    /// Whether the Interest just sent on `face` marks its PIT entry (`after_send_interest`).
    pub fn marks(self, ctx: &StrategyCtx, face: FaceId) -> bool {
        self.0 && upstream_marking(ctx, face)
    }
    /// Off, as a config leaves it out when written.
    pub fn is_off(&self) -> bool {
        !self.0
    }
}

/// `$call` with `$s` bound to the strategy of `$any` (an `&mut AnyStrategy`) as its own type.
macro_rules! dispatch {
    ($any:expr, $s:ident => $call:expr) => {
        match $any {
            AnyStrategy::BestRoute($s) => $call,
            AnyStrategy::Multicast($s) => $call,
            AnyStrategy::Pcon($s) => $call,
            AnyStrategy::Pi($s) => $call,
            AnyStrategy::Cf($s) => $call,
            AnyStrategy::Custom($s) => $call,
        }
    };
}

/// A node's strategy: best route (which keeps no state) by value, the others boxed. Every
/// node has one, and most of a large world's run best route: inline, the largest built-in
/// (PCON's, 104 bytes) made every node's strategy that large.
pub enum AnyStrategy {
    BestRoute(BestRoute),
    Multicast(Box<Multicast>),
    Pcon(Box<PconStrategy>),
    Pi(Box<Pi>),
    Cf(Box<Cf>),
    /// A strategy of a plug-in's own (`AnyStrategy::custom`): behind a second box, whose
    /// pointer is 8 bytes where a trait object's is 16, so that every node's strategy is 16
    /// bytes and what forwarding reads of a node fits four cache lines.
    Custom(Box<Box<dyn Strategy>>),
}

impl AnyStrategy {
    /// A strategy of a plug-in's own.
    pub fn custom(strategy: Box<dyn Strategy>) -> AnyStrategy {
        AnyStrategy::Custom(Box::new(strategy))
    }
    /// Whether `sample` may give values: not for the built-in strategies that keep nothing to
    /// record, so a run need not visit their nodes at every sample.
    pub fn may_sample(&self) -> bool {
        !matches!(self, AnyStrategy::BestRoute(_) | AnyStrategy::Multicast(_))
    }
    #[inline]
    pub fn get_ref(&self) -> &dyn Strategy {
        match self {
            AnyStrategy::BestRoute(s) => s,
            AnyStrategy::Multicast(s) => s.as_ref(),
            AnyStrategy::Pcon(s) => s.as_ref(),
            AnyStrategy::Pi(s) => s.as_ref(),
            AnyStrategy::Cf(s) => s.as_ref(),
            AnyStrategy::Custom(s) => s.as_ref().as_ref(),
        }
    }
    /// The hooks every packet calls, on the strategy as its own type: a built-in's hook is a
    /// direct call, inlined where it is small (best route's are a few instructions), where
    /// through `get` each is a call through a table on the path of every packet.
    #[inline]
    pub fn choose(&mut self, ctx: &mut StrategyCtx, ev: &InterestEvent, out: &mut FaceList) {
        dispatch!(self, s => s.choose(ctx, ev, out))
    }
    #[inline]
    pub fn on_data(&mut self, ctx: &mut StrategyCtx, ev: &DataEvent) {
        dispatch!(self, s => s.on_data(ctx, ev))
    }
    #[inline]
    pub fn after_send_interest(&mut self, ctx: &mut StrategyCtx, face: FaceId, interest: &Packet) -> bool {
        dispatch!(self, s => s.after_send_interest(ctx, face, interest))
    }
    #[inline]
    pub fn on_pit_expired(&mut self, ctx: &mut StrategyCtx, ev: &ExpiryEvent) {
        dispatch!(self, s => s.on_pit_expired(ctx, ev))
    }
    #[inline]
    pub fn get(&mut self) -> &mut dyn Strategy {
        match self {
            AnyStrategy::BestRoute(s) => s,
            AnyStrategy::Multicast(s) => s.as_mut(),
            AnyStrategy::Pcon(s) => s.as_mut(),
            AnyStrategy::Pi(s) => s.as_mut(),
            AnyStrategy::Cf(s) => s.as_mut(),
            AnyStrategy::Custom(s) => s.as_mut().as_mut(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Every node keeps a strategy among the lines forwarding reads: 16 bytes, a plug-in's
    /// behind a thin pointer.
    #[test]
    fn a_strategy_is_sixteen_bytes() {
        assert_eq!(std::mem::size_of::<AnyStrategy>(), 16);
    }

    /// A plug-in's strategy, installed with `AnyStrategy::custom`, is the one called.
    #[test]
    fn a_custom_strategy_is_reached_through_either_reference() {
        struct Mine(f64);
        impl Strategy for Mine {
            fn name(&self) -> &'static str {
                "mine"
            }
            fn choose(&mut self, _ctx: &mut StrategyCtx, _ev: &InterestEvent, _out: &mut FaceList) {}
            fn sample(&self, out: &mut Vec<(&'static str, Option<FaceId>, f64)>) {
                out.push(("value", None, self.0));
            }
        }
        let mut s = AnyStrategy::custom(Box::new(Mine(2.5)));
        let mut out = Vec::new();
        assert_eq!(s.get_ref().name(), "mine");
        s.get().sample(&mut out);
        assert_eq!(out, [("value", None, 2.5)]);
        assert!(s.may_sample());
    }
}
