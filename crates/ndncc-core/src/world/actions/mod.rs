//! Scheduled actions: what a scenario's `[[events]]` do to a running world, one action per
//! file behind the small [`Action`] trait. An action runs at its instant as an event of its
//! own (`Event::Scheduled`), in the order the actions were added among those of one instant.
//!
//! | action | file | what it does |
//! | --- | --- | --- |
//! | [`SetLink`] | `set_link.rs` | set a direction's bandwidth, delay, loss model or queue |
//! | [`LinkState`] | `link_state.rs` | take a link down, or bring it back |
//! | [`NodeState`] | `node_state.rs` | take a node down (all its links), or bring it back |
//! | [`SetStrategy`] | `set_strategy.rs` | give a node a new forwarding strategy |
//!
//! An action acts through [`ActionCtx`], which offers exactly these changes; a failure or a
//! recovery computes the routes again (see `world/dynamics.rs`).

mod link_state;
mod node_state;
mod set_link;
mod set_strategy;

pub use link_state::LinkState;
pub use node_state::NodeState;
pub use set_link::{LinkSetting, SetLink};
pub use set_strategy::SetStrategy;

use super::engine::Engine;
use super::Network;
use crate::forwarder::strategy::AnyStrategy;
use crate::ids::{FaceId, LinkId, NodeId};
use crate::loss::LossConfig;
use crate::queue::QueueConfig;
use crate::time::{SimDuration, SimTime};

/// Something a scenario schedules for an instant of the run.
pub trait Action: Send + Sync + std::fmt::Debug {
    /// Carry the action out, now.
    fn apply(&self, cx: &mut ActionCtx<'_>);
    /// The links and nodes whose faces it may change, so that those record their capacity and
    /// drops by cause from the start: (links, nodes).
    fn touches(&self) -> (Vec<LinkId>, Vec<NodeId>) {
        (Vec::new(), Vec::new())
    }
}

/// What an action may do to the world.
pub struct ActionCtx<'a> {
    pub(in crate::world) net: &'a mut Network,
    pub(in crate::world) engine: &'a mut Engine,
}

impl ActionCtx<'_> {
    pub fn now(&self) -> SimTime {
        self.engine.now()
    }
    pub fn set_bandwidth(&mut self, face: FaceId, bps: u64) {
        self.engine.set_bandwidth(self.net, face, bps);
    }
    pub fn set_delay(&mut self, face: FaceId, delay: SimDuration) {
        self.engine.set_delay(self.net, face, delay);
    }
    pub fn set_loss(&mut self, face: FaceId, loss: &LossConfig) {
        self.engine.set_loss(self.net, face, loss);
    }
    pub fn set_queue(&mut self, face: FaceId, queue: &QueueConfig) {
        self.engine.set_queue(self.net, face, queue);
    }
    pub fn set_link_down(&mut self, link: LinkId, down: bool) {
        self.engine.set_link_down(self.net, link, down);
    }
    pub fn set_node_down(&mut self, node: NodeId, down: bool) {
        self.engine.set_node_down(self.net, node, down);
    }
    pub fn set_strategy(&mut self, node: NodeId, strategy: AnyStrategy) {
        self.engine.set_strategy(self.net, node, strategy);
    }
}
