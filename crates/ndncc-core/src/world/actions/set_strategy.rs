//! `action = "set"` on a node with `strategy = { … }`: the node forwards by a new strategy
//! from now on, built afresh from its table (what the old one learnt is not carried over).

use super::{Action, ActionCtx};
use crate::forwarder::strategy::StrategyConfig;
use crate::ids::NodeId;

#[derive(Clone, Debug, PartialEq)]
pub struct SetStrategy {
    pub node: NodeId,
    pub strategy: StrategyConfig,
}

impl Action for SetStrategy {
    fn apply(&self, cx: &mut ActionCtx<'_>) {
        cx.set_strategy(self.node, self.strategy.build());
    }
}
