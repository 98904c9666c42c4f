//! `action = "down"` / `"up"` on a node: every link of the node fails or works again (a link
//! also taken down by itself stays down). The node's tables are kept: its PIT entries expire
//! as usual, its Content Store keeps what it held.

use super::{Action, ActionCtx};
use crate::ids::{LinkId, NodeId};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct NodeState {
    pub node: NodeId,
    pub down: bool,
}

impl Action for NodeState {
    fn apply(&self, cx: &mut ActionCtx<'_>) {
        cx.set_node_down(self.node, self.down);
    }
    fn touches(&self) -> (Vec<LinkId>, Vec<NodeId>) {
        (Vec::new(), vec![self.node])
    }
}
