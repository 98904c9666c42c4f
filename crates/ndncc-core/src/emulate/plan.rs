//! Where a prefix registered on a node is routed from: for each node a real application may
//! register on, the next hops of every other node towards it, computed as the scenario's
//! computed routing computes them for a simulated producer's prefix (shortest paths by the
//! scenario's `[routing] metric`, every neighbour or only the best by `multipath`).

use crate::face::FaceKind;
use crate::ids::{FaceId, LinkId, NodeId};
use crate::routing::Graph;
use crate::scenario::{RoutingMetric, Scenario};
use crate::world::World;

/// A FIB entry to install: on `node`, next hop `face` at `cost`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Hop {
    pub node: NodeId,
    pub face: FaceId,
    pub cost: u64,
}

/// The routes towards each node, by node index, and what computes them again.
#[derive(Clone, Debug, Default)]
pub struct RoutePlan {
    pub towards: Vec<Vec<Hop>>,
    /// The scenario's links as (node, node, weight), by link index (the world's `LinkId`);
    /// `None` for one whose endpoints the world lacks.
    edges: Vec<Option<(NodeId, NodeId, u64)>>,
    /// The nodes routes lead towards.
    origins: Vec<NodeId>,
    multipath: bool,
}

/// The face of `from` on a link to `to` (the first, as the scenario's routing takes).
fn face_between(world: &World, from: NodeId, to: NodeId) -> Option<FaceId> {
    world.net.nodes[from.idx()]
        .faces
        .iter()
        .copied()
        .find(|f| matches!(world.net.faces[f.idx()].kind, FaceKind::Link { peer_node, .. } if peer_node == to))
}

impl RoutePlan {
    /// The routes towards each of `origins` in `world`, built from `scenario` with `seed`
    /// (whose drawn link delays the delay metric reads).
    pub fn new(scenario: &Scenario, seed: u64, world: &World, origins: &[NodeId]) -> RoutePlan {
        let scenario = scenario.draw_link_values(seed);
        let node = |name: &str| world.net.node_by_name(name);
        let mut edges = Vec::new();
        for link in scenario.links.values() {
            let ends = node(&link.endpoints[0]).zip(node(&link.endpoints[1]));
            let weight = match scenario.routing.metric {
                RoutingMetric::Cost => u64::from(link.cost),
                RoutingMetric::Delay => link.delay.get().nanos().max(1),
                RoutingMetric::Hops => 1,
            };
            edges.push(ends.map(|(a, b)| (a, b, weight)));
        }
        let mut plan =
            RoutePlan { towards: Vec::new(), edges, origins: origins.to_vec(), multipath: scenario.routing.multipath };
        plan.replan(world);
        plan
    }

    /// Compute the routes again over the links that are up in `world` now.
    pub fn replan(&mut self, world: &World) {
        let mut graph = Graph::new(world.net.nodes.len());
        for (i, edge) in self.edges.iter().enumerate() {
            let Some((a, b, weight)) = *edge else { continue };
            if world.link_is_up(LinkId(u32::try_from(i).unwrap_or(u32::MAX))) {
                graph.add_edge(a.idx(), b.idx(), weight, i);
            }
        }
        let mut towards = vec![Vec::new(); world.net.nodes.len()];
        for &origin in &self.origins {
            let dist = graph.distances(&[origin.idx()]);
            let mut hops = Vec::new();
            for u in 0..world.net.nodes.len() {
                if u == origin.idx() {
                    continue;
                }
                let from = world.net.nodes[u].id;
                for (v, _, cost) in graph.next_hops(u, &dist, self.multipath) {
                    if let Some(face) = face_between(world, from, world.net.nodes[v].id) {
                        hops.push(Hop { node: from, face, cost });
                    }
                }
            }
            towards[origin.idx()] = hops;
        }
        self.towards = towards;
    }
}
