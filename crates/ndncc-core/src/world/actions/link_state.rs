//! `action = "down"` / `"up"` on a link: both directions fail (what waits and what is on the
//! wire is lost) or work again; routes are computed again around it.

use super::{Action, ActionCtx};
use crate::ids::{LinkId, NodeId};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct LinkState {
    pub link: LinkId,
    pub down: bool,
}

impl Action for LinkState {
    fn apply(&self, cx: &mut ActionCtx<'_>) {
        cx.set_link_down(self.link, self.down);
    }
    fn touches(&self) -> (Vec<LinkId>, Vec<NodeId>) {
        (vec![self.link], Vec::new())
    }
}
