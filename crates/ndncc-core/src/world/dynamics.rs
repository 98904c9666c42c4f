//! Links that change during a run: a direction's bandwidth, delay, loss or queue set anew,
//! links and nodes that go down and come back, and the routes computed again around them.
//!
//! ```text
//!  scheduled action ──▶ link or node down? ──▶ faces down: queue, shaper and wire emptied
//!        │                                      (drops_link_down); forwarding skips them
//!        │                                      at once, as NFD drops a failed face's next hops
//!        └──────────────▶ routes computed again over the links that are up: at once, or
//!                         `convergence` later (Event::Reroute), FIB and IP routes alike
//! ```
//!
//! Nothing here runs in a world without scheduled actions: its links keep `dynamics` empty and
//! its engine no `Topology`.

use std::sync::Arc;

use super::engine::Engine;
use super::ip_routes::{shortest_path_routes, HostSet};
use super::{Event, Network};
use crate::egress::Dynamics;
use crate::face::FaceKind;
use crate::ids::{FaceId, LinkId, NodeId};
use crate::loss::LossConfig;
use crate::packet::Packet;
use crate::queue::{QueueConfig, QueueDisc, Verdict};
use crate::routing::RoutePlan;
use crate::tap::{DropCause, TapPoint};
use crate::time::{SimDuration, SimTime};

use super::actions::Action;

/// What the engine of a world with scheduled actions keeps: the actions, which links and nodes
/// are down, and how to compute routes again.
pub(super) struct Topology {
    /// The actions, by the index their `Event::Scheduled` carries.
    pub(super) actions: Vec<(SimTime, Arc<dyn Action>)>,
    /// Links taken down by an action, by link index.
    link_down: Vec<bool>,
    /// Nodes taken down by an action, by node index.
    node_down: Vec<bool>,
    pub(super) plan: RoutePlan,
    /// Routes computed by the plan: computed again after a change. Static routes are kept
    /// (forwarding skips their faces while down).
    pub(super) computed: bool,
    /// Every route added by hand (static routes, producers' app faces), in order: added
    /// again after the computed ones, as when the world was built.
    pub(super) fixed_routes: Vec<(NodeId, String, FaceId, u64)>,
    /// Routes added while the world runs that computing the routes again must keep (an
    /// emulated application's registration), added again after the fixed ones.
    pub(super) kept_routes: Vec<(NodeId, String, FaceId, u64)>,
    /// How many times the routes were computed again: whoever keeps routes of its own across a
    /// change (the emulation's RIB) reads it to know when to compute them again.
    pub(super) epoch: u64,
    /// How long after a change the routes are computed again.
    pub(super) convergence: SimDuration,
}

impl Topology {
    pub(super) fn new(links: usize, nodes: usize) -> Topology {
        Topology {
            actions: Vec::new(),
            link_down: vec![false; links],
            node_down: vec![false; nodes],
            plan: RoutePlan::default(),
            computed: false,
            fixed_routes: Vec::new(),
            kept_routes: Vec::new(),
            epoch: 0,
            convergence: SimDuration::ZERO,
        }
    }
}

impl Engine {
    /// Run the scheduled action `index`.
    pub(super) fn on_scheduled(&mut self, net: &mut Network, index: u32) {
        let Some(action) = self.topology.as_ref().and_then(|t| t.actions.get(index as usize)).map(|a| a.1.clone())
        else {
            return;
        };
        action.apply(&mut super::actions::ActionCtx { net, engine: self });
    }

    /// Take link `link` down (or bring it back), as an action asked.
    pub(super) fn set_link_down(&mut self, net: &mut Network, link: LinkId, down: bool) {
        let Some(t) = self.topology.as_mut() else { return };
        if let Some(slot) = t.link_down.get_mut(link.idx()) {
            *slot = down;
        }
        self.sync_link(net, link);
        self.topology_changed(net);
    }

    /// Take node `node` down (every link of it) or bring it back.
    pub(super) fn set_node_down(&mut self, net: &mut Network, node: NodeId, down: bool) {
        let Some(t) = self.topology.as_mut() else { return };
        if let Some(slot) = t.node_down.get_mut(node.idx()) {
            *slot = down;
        }
        let links: Vec<LinkId> = net.nodes[node.idx()]
            .faces
            .iter()
            .filter_map(|f| match net.faces[f.idx()].kind {
                FaceKind::Link { link, .. } => Some(link),
                FaceKind::App { .. } => None,
            })
            .collect();
        for link in links {
            self.sync_link(net, link);
        }
        self.topology_changed(net);
    }

    /// Add a route that computing the routes again keeps (see `World::keep_route`).
    pub(super) fn keep_route(&mut self, net: &mut Network, node: NodeId, prefix: &str, face: FaceId, cost: u64) {
        net.nodes[node.idx()].fib.add_route(prefix, face, cost);
        if let Some(t) = self.topology.as_mut() {
            let canon = crate::names::canonical(prefix);
            t.kept_routes.retain(|(n, p, f, _)| !(*n == node && *p == canon && *f == face));
            t.kept_routes.push((node, canon, face, cost));
        }
    }

    /// Remove a route `keep_route` added (true if the FIB had it).
    pub(super) fn drop_kept_route(&mut self, net: &mut Network, node: NodeId, prefix: &str, face: FaceId) -> bool {
        if let Some(t) = self.topology.as_mut() {
            let canon = crate::names::canonical(prefix);
            t.kept_routes.retain(|(n, p, f, _)| !(*n == node && *p == canon && *f == face));
        }
        net.nodes[node.idx()].fib.remove_route(prefix, face)
    }

    /// How many times the routes were computed again (0 in a world whose links never change).
    pub(super) fn route_epoch(&self) -> u64 {
        self.topology.as_ref().map_or(0, |t| t.epoch)
    }

    /// Is link `link` down, by itself or by one of its nodes?
    pub(super) fn link_is_down(&self, net: &Network, link: LinkId) -> bool {
        let Some(t) = self.topology.as_ref() else { return false };
        let [fa, fb] = net.links[link.idx()].faces;
        let (a, b) = (net.faces[fa.idx()].node, net.faces[fb.idx()].node);
        t.link_down.get(link.idx()).copied().unwrap_or(false)
            || t.node_down.get(a.idx()).copied().unwrap_or(false)
            || t.node_down.get(b.idx()).copied().unwrap_or(false)
    }

    /// Bring both faces of `link` to the state the link and its nodes say.
    fn sync_link(&mut self, net: &mut Network, link: LinkId) {
        let down = self.link_is_down(net, link);
        for face in net.links[link.idx()].faces {
            if net.faces[face.idx()].is_down() != down {
                if down {
                    self.face_down(net, face);
                } else {
                    self.face_up(net, face);
                }
            }
        }
    }

    /// The direction of `face` fails: what waits in its shaper and queue, and what is on the
    /// wire, is lost (counted now, as `link_down` drops).
    fn face_down(&mut self, net: &mut Network, face: FaceId) {
        let now = self.now();
        let mut lost: Vec<Packet> = Vec::new();
        {
            let Some(eg) = net.faces[face.idx()].egress.as_mut() else { return };
            let bw = eg.bandwidth_bps;
            let d = eg.dynamics.get_or_insert_with(|| Box::new(Dynamics::new(None)));
            d.accrue(now, bw);
            d.down = true;
            // Packets already doomed by an earlier failure were counted then.
            lost.extend(net.flights.iter(&eg.flight).skip(d.doomed).map(|f| f.packet));
            d.doomed = eg.flight.len();
            if let Some(ul) = eg.underlay_mut() {
                ul.departures.clear();
            }
            if let Some(shaper) = eg.shaper_mut() {
                lost.extend(shaper.drain());
            }
            let mut dropped = Vec::new();
            while let Some(d) = eg.queue.dequeue(now, &mut dropped) {
                lost.append(&mut dropped);
                lost.push(d.packet);
            }
            lost.append(&mut dropped);
        }
        net.faces_down = net.faces_down.saturating_add(1);
        self.sampling.face_samples.mark(face);
        for p in &lost {
            self.tap(net, face, TapPoint::Drop(DropCause::LinkDown), p);
        }
    }

    /// The direction of `face` works again, empty.
    fn face_up(&mut self, net: &mut Network, face: FaceId) {
        let now = self.now();
        let Some(eg) = net.faces[face.idx()].egress.as_mut() else { return };
        let bw = eg.bandwidth_bps;
        if let Some(d) = eg.dynamics.as_deref_mut() {
            d.accrue(now, bw);
            d.down = false;
        }
        net.faces_down = net.faces_down.saturating_sub(1);
        self.sampling.face_samples.mark(face);
    }

    /// Links or nodes changed: compute the routes again now, or once routing has converged.
    fn topology_changed(&mut self, net: &mut Network) {
        let Some(t) = self.topology.as_ref() else { return };
        if t.convergence == SimDuration::ZERO {
            self.reroute(net);
        } else {
            let at = self.now() + t.convergence;
            self.schedule(at, Event::Reroute);
        }
    }

    /// Compute every computed route again over the links that are up now: each node's FIB
    /// (computed next hops, then the fixed routes as when the world was built) and IP routes.
    pub(super) fn reroute(&mut self, net: &mut Network) {
        if let Some(t) = self.topology.as_mut() {
            t.epoch += 1;
        }
        let Some(t) = self.topology.as_ref() else { return };
        let up: Vec<bool> = (0..net.links.len()).map(|l| !self.link_is_down(net, LinkId(l as u32))).collect();
        let graph = t.plan.graph(|e| up.get(e).copied().unwrap_or(false));
        let node_up = |n: usize| !t.node_down.get(n).copied().unwrap_or(false);
        // The face of node `u` on link `e`.
        let face_on = |net: &Network, u: usize, e: usize| -> Option<FaceId> {
            net.links.get(e)?.faces.into_iter().find(|f| net.faces[f.idx()].node.idx() == u)
        };
        if t.computed {
            for n in &mut net.nodes {
                n.fib.clear_next_hops();
            }
            for (prefix, origins) in &t.plan.prefixes {
                let live: Vec<usize> = origins.iter().copied().filter(|&o| node_up(o)).collect();
                let dist = graph.distances(&live);
                for u in 0..t.plan.nodes {
                    if origins.contains(&u) {
                        continue;
                    }
                    for (_, e, cost) in graph.next_hops(u, &dist, t.plan.multipath) {
                        if let Some(face) = face_on(net, u, e) {
                            net.nodes[u].fib.add_route(prefix, face, cost);
                        }
                    }
                }
            }
            for (node, prefix, face, cost) in t.fixed_routes.iter().chain(&t.kept_routes) {
                net.nodes[node.idx()].fib.add_route(prefix, *face, *cost);
            }
        }
        let hosts = &t.plan.ip_hosts;
        if hosts.is_empty() {
            return;
        }
        let all = HostSet::new(hosts);
        let routes = shortest_path_routes(&graph, t.plan.nodes, hosts, |u, _, e| face_on(net, u, e));
        for (u, r) in routes.into_iter().enumerate().take(net.nodes.len()) {
            // Every host's route is found again: none where no path leads.
            net.nodes[u].ip_mut().routes.replace_host_routes(&all, r);
        }
    }

    /// Set the bandwidth of the direction `face` transmits into [bit/s] (a delivery trace it
    /// followed is left for the fixed rate). The packet on the wire keeps its time.
    pub(super) fn set_bandwidth(&mut self, net: &mut Network, face: FaceId, bps: u64) {
        let now = self.now();
        let Some(eg) = net.faces[face.idx()].egress.as_mut() else { return };
        let old = eg.bandwidth_bps;
        let d = eg.dynamics.get_or_insert_with(|| Box::new(Dynamics::new(None)));
        d.accrue(now, old);
        d.trace = None;
        // What the peer's `Network::reverse_bandwidth_bps` reads.
        eg.bandwidth_bps = bps.max(1);
    }

    /// Set the one-way delay of the direction of `face`; packets on the wire keep theirs.
    pub(super) fn set_delay(&mut self, net: &mut Network, face: FaceId, delay: SimDuration) {
        if let Some(eg) = net.faces[face.idx()].egress.as_mut() {
            eg.delay = delay;
        }
    }

    /// Give the direction of `face` a new loss model (its state starts afresh; its random
    /// stream goes on).
    pub(super) fn set_loss(&mut self, net: &mut Network, face: FaceId, loss: &LossConfig) {
        if let Some(eg) = net.faces[face.idx()].egress.as_mut() {
            eg.loss.set_model(loss.build());
        }
    }

    /// Give the direction of `face` a new queue discipline. The packets waiting move to it in
    /// order; those it has no room for are tail drops, those the old one's AQM drops on the
    /// way out are AQM drops.
    pub(super) fn set_queue(&mut self, net: &mut Network, face: FaceId, queue: &QueueConfig) {
        let now = self.now();
        let mut dropped_aqm = Vec::new();
        let mut dropped_tail = Vec::new();
        let start = {
            let Some(eg) = net.faces[face.idx()].egress.as_mut() else { return };
            let mut old = std::mem::replace(&mut eg.queue, queue.build());
            while let Some(d) = old.dequeue(now, &mut dropped_aqm) {
                if eg.queue.enqueue(d.packet, now) == Verdict::Dropped {
                    dropped_tail.push(d.packet);
                }
            }
            eg.queue.len_packets() > 0 && !eg.tx_wake_pending && eg.busy_until <= now
        };
        self.sampling.face_samples.mark(face);
        for p in &dropped_aqm {
            self.tap(net, face, TapPoint::Drop(DropCause::Aqm), p);
        }
        for p in &dropped_tail {
            self.tap(net, face, TapPoint::Drop(DropCause::Queue), p);
        }
        if start {
            self.start_tx(net, face);
        }
    }

    /// Replace the forwarding strategy of `node` (a fresh one: what the old one learnt is gone).
    pub(super) fn set_strategy(
        &mut self,
        net: &mut Network,
        node: NodeId,
        strategy: crate::forwarder::strategy::AnyStrategy,
    ) {
        net.nodes[node.idx()].strategy = strategy;
        if !self.sampling.nodes.contains(&node) && net.nodes[node.idx()].strategy.may_sample() {
            self.sampling.nodes.push(node);
            self.sampling.nodes.sort_unstable();
        }
    }
}
