//! `action = "set"` on a link: new values for some of its directions' settings, applied in
//! the order given. A packet being serialised keeps its time; the next one uses the new rate.

use super::{Action, ActionCtx};
use crate::ids::{FaceId, LinkId, NodeId};
use crate::loss::LossConfig;
use crate::queue::QueueConfig;
use crate::time::SimDuration;

/// One setting of one direction.
#[derive(Clone, Debug, PartialEq)]
pub enum LinkSetting {
    /// [bit/s]
    Bandwidth(u64),
    Delay(SimDuration),
    Loss(LossConfig),
    Queue(QueueConfig),
}

#[derive(Clone, Debug, PartialEq)]
pub struct SetLink {
    pub link: LinkId,
    /// Each change: the face that transmits into the direction, and its new setting.
    pub changes: Vec<(FaceId, LinkSetting)>,
}

impl Action for SetLink {
    fn apply(&self, cx: &mut ActionCtx<'_>) {
        for (face, setting) in &self.changes {
            match setting {
                LinkSetting::Bandwidth(bps) => cx.set_bandwidth(*face, *bps),
                LinkSetting::Delay(d) => cx.set_delay(*face, *d),
                LinkSetting::Loss(l) => cx.set_loss(*face, l),
                LinkSetting::Queue(q) => cx.set_queue(*face, q),
            }
        }
    }
    fn touches(&self) -> (Vec<LinkId>, Vec<NodeId>) {
        (vec![self.link], Vec::new())
    }
}
