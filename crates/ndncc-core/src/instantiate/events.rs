//! A scenario's `[[events]]` as the world's scheduled actions, in file order.

use std::sync::Arc;

use super::{err, BuildError};
use crate::ids::{LinkId, NodeId};
use crate::scenario::{EventAction, EventSpec, Scenario};
use crate::time::SimTime;
use crate::world::actions::{Action, LinkSetting, LinkState, NodeState, SetLink, SetStrategy};
use crate::world::WorldBuilder;

/// Schedule every event of `scenario`; `node` finds a node's id by name.
pub(super) fn schedule(
    b: &mut WorldBuilder,
    scenario: &Scenario,
    node: &dyn Fn(&str) -> Option<NodeId>,
) -> Result<(), BuildError> {
    for (i, e) in scenario.events.iter().enumerate() {
        let what = format!("events[{i}]");
        let action: Arc<dyn Action> = match (&e.link, &e.node) {
            (Some(l), _) => {
                let index = scenario.links.keys().position(|k| k == l).ok_or_else(|| err(&what, "unknown link"))?;
                let link = LinkId(u32::try_from(index).map_err(|_| err(&what, "too many links"))?);
                match e.action {
                    EventAction::Down | EventAction::Up => {
                        Arc::new(LinkState { link, down: e.action == EventAction::Down })
                    }
                    EventAction::Set => Arc::new(set_link(b, scenario, l, link, e).map_err(|m| err(&what, m))?),
                }
            }
            (None, Some(n)) => {
                let node = node(n).ok_or_else(|| err(&what, "unknown node"))?;
                match (e.action, &e.strategy) {
                    (EventAction::Set, Some(s)) => Arc::new(SetStrategy { node, strategy: s.clone() }),
                    (EventAction::Set, None) => return Err(err(&what, "`set` on a node needs a strategy")),
                    (a, _) => Arc::new(NodeState { node, down: a == EventAction::Down }),
                }
            }
            (None, None) => return Err(err(&what, "names no link or node")),
        };
        b.schedule_action(SimTime::ZERO + e.at.get(), action);
    }
    Ok(())
}

/// The changes of a `set` on link `name`: the shared keys first, then each direction's own,
/// so that a direction's own value wins.
fn set_link(b: &WorldBuilder, scenario: &Scenario, name: &str, link: LinkId, e: &EventSpec) -> Result<SetLink, String> {
    let spec = &scenario.links[name];
    let ends = |x: &str, y: &str| -> Result<crate::ids::FaceId, String> {
        let (a, z) = (b.node_by_name(x).ok_or("unknown node")?, b.node_by_name(y).ok_or("unknown node")?);
        b.face_between(a, z).ok_or_else(|| format!("no face from {x} to {y}"))
    };
    let [a, z] = &spec.endpoints;
    let (ab, ba) = (ends(a, z)?, ends(z, a)?);
    let mut changes = Vec::new();
    let mut put = |both: Option<LinkSetting>, one_ab: Option<LinkSetting>, one_ba: Option<LinkSetting>| {
        if let Some(s) = both {
            changes.push((ab, s.clone()));
            changes.push((ba, s));
        }
        if let Some(s) = one_ab {
            changes.push((ab, s));
        }
        if let Some(s) = one_ba {
            changes.push((ba, s));
        }
    };
    let bw = |x: Option<crate::units::Bandwidth>| x.map(|b| LinkSetting::Bandwidth(b.bps()));
    put(bw(e.bandwidth), bw(e.bandwidth_ab), bw(e.bandwidth_ba));
    put(e.delay.map(|d| LinkSetting::Delay(d.get())), None, None);
    let loss = |x: &Option<crate::loss::LossConfig>| x.clone().map(LinkSetting::Loss);
    put(loss(&e.loss), loss(&e.loss_ab), loss(&e.loss_ba));
    let queue = |x: &Option<crate::queue::QueueConfig>| x.clone().map(LinkSetting::Queue);
    put(queue(&e.queue), queue(&e.queue_ab), queue(&e.queue_ba));
    Ok(SetLink { link, changes })
}
