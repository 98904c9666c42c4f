//! Router modules: per-node components for router-side congestion control that plug into the
//! forwarder without changing it. A module watches and edits the packets the node forwards, and
//! it is active: through its context it can send packets of its own on any of the node's faces,
//! absorb packets addressed to it, hold an Interest and release or refuse it later, draw from
//! its own random stream and ask to be woken.
//!
//! ```text
//!                     on_interest_in ──▶ CS/PIT/FIB/strategy ──▶ on_interest_out(face) ──▶ face
//!  downstream                                                                           upstream
//!            ◀── on_data_out(in, out) ◀── forwarder ◀── on_data_in(face) ◀── Data
//!            ◀── NACK downstream ◀──────── forwarder ◀── on_nack_in(face) ◀── NACK
//!  IP / multicast: on_packet_in(face) ──▶ protocol handler ──▶ on_packet_out(face) ──▶ face
//!  on_tick() every tick_interval(), on_wake() when asked (both on the node's clock);
//!  ctx.send(face, packet), ctx.hand_to_node(face, packet), ctx.refuse(face, interest, reason),
//!  ctx.wake_at(t), ctx.rng
//! ```
//!
//! Built-in modules: `static-rate-stamp`, `mircc` (seed 000), `interest-limit` (stateful
//! forwarding), `hbh-shaper` (the hop-by-hop Interest shaper), `srmcc` (seed 001's multicast
//! tree node) and `perif-ecn` (PerIfWithECN's router). A module is one file behind
//! [`RouterModule`] plus one line in [`config`].

pub mod config;
pub mod hbh_shaper;
pub mod interest_limit;
pub mod mircc;
pub mod perif_ecn;
pub mod srmcc;
pub mod static_stamp;

#[cfg(test)]
pub(crate) mod testkit;

pub use config::ModuleConfig;

use crate::ctx::{NodeAction, WakeRequest, WakeSlot};
use crate::face::Face;
use crate::ids::{FaceId, NodeId};
use crate::packet::{NackReason, Packet};
use crate::rng::SimRng;
use crate::time::{SimDuration, SimTime};

/// What a module sees of its node when a hook runs, and what it may ask of it.
pub struct ModuleCtx<'a> {
    pub now: SimTime,
    pub node: NodeId,
    /// The node's faces.
    pub node_faces: &'a [FaceId],
    /// Every face in the world, by `FaceId`, reached through [`ModuleCtx::face`] and
    /// [`ModuleCtx::face_mut`], which give a module its own node's faces only.
    faces: &'a mut [Face],
    /// The module's own random stream (from the run's seed and the module's node and position).
    pub rng: &'a mut SimRng,
    actions: &'a mut Vec<NodeAction>,
    wake: WakeRequest,
}

impl<'a> ModuleCtx<'a> {
    pub fn new(
        now: SimTime,
        node: NodeId,
        node_faces: &'a [FaceId],
        faces: &'a mut [Face],
        rng: &'a mut SimRng,
        actions: &'a mut Vec<NodeAction>,
    ) -> ModuleCtx<'a> {
        ModuleCtx { now, node, node_faces, faces, rng, actions, wake: WakeRequest::default() }
    }
    /// Face `id` of this node: its queue, its egress, its pending Interests.
    ///
    /// # Panics
    /// If `id` is a face of another node: a module sees its own node only.
    #[inline]
    pub fn face(&self, id: FaceId) -> &Face {
        let f = &self.faces[id.idx()];
        assert_eq!(f.node, self.node, "a module of one node read face {} of another", id.0);
        f
    }
    /// Face `id` of this node, to adjust (its Interest shaper's rate, say).
    ///
    /// # Panics
    /// If `id` is a face of another node.
    #[inline]
    pub fn face_mut(&mut self, id: FaceId) -> &mut Face {
        let f = &mut self.faces[id.idx()];
        assert_eq!(f.node, self.node, "a module of one node changed face {} of another", id.0);
        f
    }
    /// The bandwidth of the direction opposite that of face `id` of this node (what Data coming
    /// back over it can use) [bit/s]; zero for an application face.
    pub fn reverse_bandwidth_bps(&self, id: FaceId) -> u64 {
        // Checks that `id` is a face of this node.
        self.face(id);
        crate::face::reverse_bandwidth_bps(self.faces, id)
    }
    /// Send `packet` on `face` (see [`NodeAction::Send`]).
    pub fn send(&mut self, face: FaceId, packet: Packet) {
        self.actions.push(NodeAction::Send { face, packet });
    }
    /// Let the node forward `packet` as if it had arrived on `face`.
    pub fn hand_to_node(&mut self, face: FaceId, packet: Packet) {
        self.actions.push(NodeAction::Receive { face, packet });
    }
    /// Refuse an Interest this module held for `face`.
    pub fn refuse(&mut self, face: FaceId, interest: Packet, reason: NackReason) {
        self.actions.push(NodeAction::Refuse { face, interest, reason });
    }
    /// Ask for `on_wake` at `t` (or the node's next clock tick after it). Only the earliest
    /// pending request counts; a module re-asks every time it runs.
    pub fn wake_at(&mut self, t: SimTime) {
        self.wake.at(t);
    }
    pub fn requested_wake(&self) -> Option<SimTime> {
        self.wake.get()
    }
}

/// A module's decision about an Interest about to leave on a face.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum InterestVerdict {
    Send,
    /// Do not send; the forwarder treats it as a NACK with this reason from that face.
    Reject(NackReason),
    /// The module keeps the Interest (a shaper's queue, say) and later sends it on the face
    /// with `ctx.send` or refuses it with `ctx.refuse`. Its PIT out-record exists meanwhile.
    Hold,
}

/// A module's decision about a packet arriving at the node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Intake {
    /// Let the node process it.
    Pass,
    /// The module consumed it (a report addressed to this node, say); the node does nothing.
    Absorb,
}

pub trait RouterModule: Send {
    fn name(&self) -> &'static str;
    /// An Interest arrived on `face`, before the Content Store and the PIT.
    fn on_interest_in(&mut self, _ctx: &mut ModuleCtx, _face: FaceId, _interest: &mut Packet) -> Intake {
        Intake::Pass
    }
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
    /// A non-NDN packet (IP, multicast) arrived on `face`, before its protocol handler.
    fn on_packet_in(&mut self, _ctx: &mut ModuleCtx, _face: FaceId, _packet: &mut Packet) -> Intake {
        Intake::Pass
    }
    /// A non-NDN packet that the node forwards is about to leave on `face`.
    fn on_packet_out(&mut self, _ctx: &mut ModuleCtx, _face: FaceId, _packet: &mut Packet) {}
    /// How often `on_tick` runs (rounded to the node's clock tick); `None` = never.
    fn tick_interval(&self) -> Option<SimDuration> {
        None
    }
    fn on_tick(&mut self, _ctx: &mut ModuleCtx) {}
    /// A wake-up asked for with `ctx.wake_at` (possibly spurious: re-ask each time).
    fn on_wake(&mut self, _ctx: &mut ModuleCtx) {}
    /// Values to sample every recording interval, as (metric, face or None, value).
    fn sample(&self, _out: &mut Vec<(&'static str, Option<FaceId>, f64)>) {}
}

/// A module on a node, with its random stream and its pending wake-up.
pub struct ModuleSlot {
    pub module: Box<dyn RouterModule>,
    pub rng: SimRng,
    pub(crate) wake: WakeSlot,
}

impl ModuleSlot {
    pub fn new(module: Box<dyn RouterModule>, rng: SimRng) -> ModuleSlot {
        ModuleSlot { module, rng, wake: WakeSlot::default() }
    }
}

/// A node's modules, in the order they were added: boxed, since most nodes of a large world
/// have none, and every packet a node forwards checks whether it has any. In the 8 bytes of a
/// pointer rather than a `Vec`'s 24, what forwarding reads of a node fits four cache lines.
#[derive(Default)]
#[allow(clippy::box_collection, reason = "the box is the point: a pointer of 8 bytes, none when empty")]
pub struct Modules(Option<Box<Vec<ModuleSlot>>>);

impl Modules {
    pub fn push(&mut self, slot: ModuleSlot) {
        self.0.get_or_insert_with(Box::default).push(slot);
    }
}

impl std::ops::Deref for Modules {
    type Target = [ModuleSlot];
    #[inline(always)]
    fn deref(&self) -> &[ModuleSlot] {
        self.0.as_deref().map_or(&[], Vec::as_slice)
    }
}

impl std::ops::DerefMut for Modules {
    #[inline(always)]
    fn deref_mut(&mut self) -> &mut [ModuleSlot] {
        self.0.as_deref_mut().map_or(&mut [], Vec::as_mut_slice)
    }
}

#[cfg(test)]
mod tests {
    use super::testkit::{two_nodes, with_ctx, A_TO_B};
    use crate::ids::FaceId;

    #[test]
    fn a_module_reads_the_faces_of_its_own_node() {
        let mut net = two_nodes();
        let pending = with_ctx(&mut net, 0, |ctx| ctx.face(A_TO_B).pending_interests);
        assert_eq!(pending, 0);
    }

    #[test]
    #[should_panic(expected = "of another")]
    fn a_module_cannot_reach_a_face_of_another_node() {
        let mut net = two_nodes();
        // Face 1 is B->A; the context is node A's.
        with_ctx(&mut net, 0, |ctx| ctx.face_mut(FaceId(1)).pending_interests += 1);
    }
}
