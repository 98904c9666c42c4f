//! Router modules: per-node hooks for router-side congestion control (MIRCC rate stamping,
//! hop-by-hop Interest shaping, SRMCC tree functions, link-loss shims) that plug into the
//! forwarder without changing it.
//!
//! ```text
//!            Interest in ──▶ strategy ──▶ on_interest_out(face) ──▶ face egress
//!  downstream                                                            upstream
//!            ◀── on_data_out(in, out) ◀── forwarder ◀── on_data_in(face) ◀── Data
//!                          on_tick() every tick_interval(), on the node's clock
//! ```

pub mod config;
pub mod interest_limit;
pub mod mircc;
pub mod static_stamp;

#[cfg(test)]
pub(crate) mod testkit;

pub use config::ModuleConfig;

use crate::face::Face;
use crate::ids::{FaceId, NodeId};
use crate::packet::{NackReason, Packet};
use crate::time::{SimDuration, SimTime};

/// What a module sees of its node when a hook runs.
pub struct ModuleCtx<'a> {
    pub now: SimTime,
    pub node: NodeId,
    /// The node's faces.
    pub node_faces: &'a [FaceId],
    /// Every face in the world, by `FaceId`; a module may adjust its own node's faces (e.g. the
    /// Interest shaper's rate) but must not touch others.
    pub faces: &'a mut [Face],
}

/// A module's decision about an Interest about to leave on a face.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InterestVerdict {
    Send,
    /// Do not send; the forwarder treats it as a NACK with this reason from that face.
    Reject(NackReason),
}

pub trait RouterModule: Send {
    fn name(&self) -> &'static str;
    /// An Interest is about to be sent on `face`.
    fn on_interest_out(&mut self, _ctx: &mut ModuleCtx, _face: FaceId, _interest: &mut Packet) -> InterestVerdict {
        InterestVerdict::Send
    }
    /// A Data arrived from upstream on `face`; `rtt` is the time since this node sent the
    /// Interest on that face.
    fn on_data_in(&mut self, _ctx: &mut ModuleCtx, _face: FaceId, _data: &mut Packet, _rtt: Option<SimDuration>) {}
    /// A Data that came in on `in_face` is about to leave towards a consumer on `out_face`.
    fn on_data_out(&mut self, _ctx: &mut ModuleCtx, _in_face: FaceId, _out_face: FaceId, _data: &mut Packet) {}
    /// A NACK arrived from upstream on `face`.
    fn on_nack_in(&mut self, _ctx: &mut ModuleCtx, _face: FaceId, _nack: &mut Packet) {}
    /// How often `on_tick` runs (rounded to the node's clock tick); `None` = never.
    fn tick_interval(&self) -> Option<SimDuration> {
        None
    }
    fn on_tick(&mut self, _ctx: &mut ModuleCtx) {}
    /// Values to sample every recording interval, as (metric, face or None, value).
    fn sample(&self, _out: &mut Vec<(&'static str, Option<FaceId>, f64)>) {}
}

impl ModuleConfig {
    pub fn build(&self) -> Box<dyn RouterModule> {
        match self {
            ModuleConfig::StaticRateStamp { rate } => Box::new(static_stamp::StaticRateStamp::new(*rate)),
            ModuleConfig::Mircc(c) => Box::new(mircc::Mircc::new(c)),
            ModuleConfig::InterestLimit(c) => Box::new(interest_limit::InterestLimit::new(c)),
        }
    }
}
