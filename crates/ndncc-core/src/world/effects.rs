//! What a node's protocol handlers ask of the engine around them. The NDN, IP and multicast
//! handlers (`ndn.rs`, `ip.rs`, `mcast.rs`) are functions over the network: they read and write
//! the node's tables and faces, and hand every effect that reaches beyond the node (a packet put
//! on a face, a router module's hook with what it asks for, a timer) to an [`Effects`] sink. The
//! engine is the sink of a run; a test may pass one that records the effects instead.

use super::Network;
use crate::ids::{FaceId, NodeId};
use crate::module::{Intake, ModuleCtx, RouterModule};
use crate::packet::Packet;
use crate::time::SimTime;

/// The sink of a node's protocol handlers.
pub trait Effects {
    /// The current simulated time.
    fn now(&self) -> SimTime;
    /// Put `packet` on `face` now: to its application, or through its link service into its
    /// egress.
    fn send(&mut self, net: &mut Network, face: FaceId, packet: &mut Packet);
    /// Run `f` on every router module of `node` in order, with its context, until it returns
    /// `Some`; then carry out what the modules asked for. The node must have modules.
    fn each_module<R>(
        &mut self,
        net: &mut Network,
        node: NodeId,
        f: impl FnMut(&mut dyn RouterModule, &mut ModuleCtx) -> Option<R>,
    ) -> Option<R>;
    /// Sweep the PIT of `node` at `t` (`Node::pit_sweep_at` says when one is due already).
    fn sweep_pit_at(&mut self, node: NodeId, t: SimTime);
}

/// Let the modules of `node` see a non-NDN packet arriving on `face`; false if one absorbed it.
pub fn modules_take_in(
    net: &mut Network,
    fx: &mut impl Effects,
    node: NodeId,
    face: FaceId,
    packet: &mut Packet,
) -> bool {
    if net.nodes[node.idx()].modules.is_empty() {
        return true;
    }
    let absorbed =
        fx.each_module(net, node, |m, ctx| (m.on_packet_in(ctx, face, packet) == Intake::Absorb).then_some(()));
    absorbed.is_none()
}

/// Send a non-NDN packet the node forwards on `face`, after the modules have seen it.
pub fn forward_packet(net: &mut Network, fx: &mut impl Effects, node: NodeId, face: FaceId, mut packet: Packet) {
    if !net.nodes[node.idx()].modules.is_empty() {
        fx.each_module(net, node, |m, ctx| {
            m.on_packet_out(ctx, face, &mut packet);
            None::<()>
        });
    }
    fx.send(net, face, &mut packet);
}
