//! Link services: the per-face layer between the forwarder and the queue, where NDNLPv2 lives
//! in NFD. A face without one passes packets straight through (and costs nothing).
//!
//! ```text
//!  node ──send──▶ on_send ──▶ [queue] ──▶ on_transmit ──▶ link ──▶ on_receive ──▶ peer node
//!                  │ keep / change / take                              │ pass / absorb
//!                  ▼                                                   ▼
//!            ctx.send(packet) (frames of its own, e.g. ACKs), ctx.to_node(face, packet)
//!            (e.g. a NACK towards the consumer), ctx.wake_at(t) → on_wake
//! ```
//!
//! This is the place for congestion marking on hand-off to the device queue, link-layer
//! reliability and loss detection (PCON's local link-loss shim) and per-face shaping.
//!
//! Built-in services: `loss-detect` (PCON's local link-loss detection). A service is one file
//! behind [`LinkService`] plus one line in [`config`].

pub mod config;
pub mod loss_detect;

pub use config::LinkServiceConfig;

use crate::ctx::{NodeAction, WakeRequest, WakeSlot};
use crate::egress::Egress;
use crate::ids::FaceId;
use crate::packet::Packet;
use crate::recorder::Unit;
use crate::rng::SimRng;
use crate::time::SimTime;

/// What a link service sees of its face when a hook runs, and what it may ask.
pub struct LinkCtx<'a> {
    pub now: SimTime,
    /// The face this service belongs to.
    pub face: FaceId,
    /// The face's transmit side: queue (length, marking state), bandwidth, delay.
    pub egress: &'a Egress,
    /// The service's own random stream.
    pub rng: &'a mut SimRng,
    actions: &'a mut Vec<NodeAction>,
    wake: WakeRequest,
}

impl<'a> LinkCtx<'a> {
    pub fn new(
        now: SimTime,
        face: FaceId,
        egress: &'a Egress,
        rng: &'a mut SimRng,
        actions: &'a mut Vec<NodeAction>,
    ) -> LinkCtx<'a> {
        LinkCtx { now, face, egress, rng, actions, wake: WakeRequest::default() }
    }
    /// Queue a frame of the service's own (an acknowledgement, say) on this face. It goes
    /// through `on_send` like any other packet.
    pub fn send(&mut self, packet: Packet) {
        self.actions.push(NodeAction::Send { face: self.face, packet });
    }
    /// Send `packet` on another face of the node (e.g. a NACK towards the consumer).
    pub fn send_on(&mut self, face: FaceId, packet: Packet) {
        self.actions.push(NodeAction::Send { face, packet });
    }
    /// Hand `packet` to the node as if it had arrived on this face.
    pub fn to_node(&mut self, packet: Packet) {
        self.actions.push(NodeAction::Receive { face: self.face, packet });
    }
    /// Ask for `on_wake` at `t`; only the earliest pending request counts.
    pub fn wake_at(&mut self, t: SimTime) {
        self.wake.at(t);
    }
    pub fn requested_wake(&self) -> Option<SimTime> {
        self.wake.get()
    }
}

/// The trait of a face's link service. Every hook has a pass-through default.
pub trait LinkService: Send {
    fn name(&self) -> &'static str;
    /// The node hands `packet` to this face. Return it (possibly changed) to queue it, or `None`
    /// when the service keeps or discards it.
    fn on_send(&mut self, _ctx: &mut LinkCtx, packet: Packet) -> Option<Packet> {
        Some(packet)
    }
    /// `packet` leaves the queue for the wire now (link-layer sequence numbers go on here).
    fn on_transmit(&mut self, _ctx: &mut LinkCtx, _packet: &mut Packet) {}
    /// `packet` arrived from the link. Return it to pass it to the node, or `None` to absorb it.
    fn on_receive(&mut self, _ctx: &mut LinkCtx, packet: Packet) -> Option<Packet> {
        Some(packet)
    }
    /// A wake-up asked for with `ctx.wake_at`.
    fn on_wake(&mut self, _ctx: &mut LinkCtx) {}
    /// Values to sample every recording interval, as (metric, value, unit), recorded for the
    /// face; their last values are also the face's summary rows, in that unit.
    fn sample(&self, _out: &mut Vec<(&'static str, f64, Unit)>) {}
}

/// A face's link service with its random stream and pending wake-up.
pub struct LinkServiceSlot {
    pub service: Box<dyn LinkService>,
    pub rng: SimRng,
    pub(crate) wake: WakeSlot,
}

impl LinkServiceSlot {
    pub fn new(service: Box<dyn LinkService>, rng: SimRng) -> LinkServiceSlot {
        LinkServiceSlot { service, rng, wake: WakeSlot::default() }
    }
}
