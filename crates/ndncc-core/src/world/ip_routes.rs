//! A node's IP routes, and how they are computed along shortest paths.
//!
//! A table by destination node costs a word per node of the world on every node that has one,
//! so a world of N IP hosts kept N² entries: 10,000 TCP flows (20,002 nodes) took 4.3 GB and
//! three minutes to route. Most hosts sit on one link, and reach every other host through it;
//! such a host keeps that one face and the set of hosts it reaches, shared by every leaf of its
//! part of the graph (all of the world's hosts but after a failure), instead. The routes are
//! the same as a table would hold: for each host, the first of its cheapest next hops (ties by
//! link index), and none where no path leads.

use std::sync::Arc;

use crate::ids::{FaceId, NodeId};
use crate::routing::Graph;

/// The nodes IP traffic is routed to, a bit per node; shared by every node that routes to all
/// of them over one face.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct HostSet(Arc<[u64]>);

impl HostSet {
    pub fn new(hosts: &[usize]) -> HostSet {
        let words = hosts.iter().max().map_or(0, |&m| m / 64 + 1);
        let mut bits = vec![0u64; words];
        for &h in hosts {
            bits[h / 64] |= 1 << (h % 64);
        }
        HostSet(bits.into())
    }

    #[inline]
    pub fn contains(&self, node: usize) -> bool {
        self.0.get(node / 64).is_some_and(|w| w >> (node % 64) & 1 == 1)
    }

    fn iter(&self) -> impl Iterator<Item = usize> + '_ {
        (0..self.0.len() * 64).filter(|&n| self.contains(n))
    }
}

/// A node's IP routes: the face a packet for each destination leaves on.
#[derive(Debug, Default)]
pub struct IpRoutes {
    /// The face towards each destination, by node index (a router's, and what
    /// `WorldBuilder::add_ip_route` writes); empty while `every_host` stands for it.
    by_destination: Vec<Option<FaceId>>,
    /// One face towards every host of the set: a host on a single link. Its own address is
    /// never looked up (a packet for the node is delivered before its routes are read).
    every_host: Option<(FaceId, HostSet)>,
}

impl IpRoutes {
    /// The face towards `dst`, if there is a route: a router's table is read first, and a
    /// host's shared set only where the table has none.
    #[inline]
    pub fn get(&self, dst: NodeId) -> Option<FaceId> {
        self.by_destination.get(dst.idx()).copied().flatten().or_else(|| {
            let (face, hosts) = self.every_host.as_ref()?;
            hosts.contains(dst.idx()).then_some(*face)
        })
    }

    /// Route packets for `dst` over `face` (none: no route).
    pub fn set(&mut self, dst: NodeId, face: Option<FaceId>) {
        self.write_out_shared();
        let v = &mut self.by_destination;
        if v.len() <= dst.idx() {
            if face.is_none() {
                return;
            }
            v.resize(dst.idx() + 1, None);
        }
        v[dst.idx()] = face;
    }

    /// Route packets for every host of `hosts` over `face`, leaving other destinations' routes.
    pub fn set_every_host(&mut self, face: FaceId, hosts: &HostSet) {
        let others_unrouted = self.by_destination.iter().enumerate().all(|(d, f)| f.is_none() || hosts.contains(d))
            && self.every_host.as_ref().is_none_or(|(_, set)| set == hosts);
        if others_unrouted {
            self.by_destination = Vec::new();
            self.every_host = Some((face, hosts.clone()));
        } else {
            for d in hosts.iter() {
                self.set(NodeId(d as u32), Some(face));
            }
        }
    }

    /// The shared form written out as the table it stands for.
    fn write_out_shared(&mut self) {
        if let Some((face, hosts)) = self.every_host.take() {
            for d in hosts.iter() {
                self.set(NodeId(d as u32), Some(face));
            }
        }
    }

    /// No route towards any host of `hosts` (other destinations keep theirs).
    fn unroute(&mut self, hosts: &HostSet) {
        match &self.every_host {
            Some((_, set)) if set.iter().all(|d| hosts.contains(d)) => self.every_host = None,
            Some(_) => self.write_out_shared(),
            None => {}
        }
        for (d, f) in self.by_destination.iter_mut().enumerate() {
            if hosts.contains(d) {
                *f = None;
            }
        }
    }

    /// Add the routes `shortest_path_routes` found for this node (those it found none for are
    /// left as they are).
    pub fn add_host_routes(&mut self, routes: NodeRoutes) {
        match routes {
            NodeRoutes::EveryHost(face, set) => self.set_every_host(face, &set),
            NodeRoutes::ByHost(routes) => {
                for (d, face) in routes.into_iter().filter(|(_, f)| f.is_some()) {
                    self.set(NodeId(d as u32), face);
                }
            }
        }
    }

    /// Replace the routes towards every host of `all` with `routes` (as `shortest_path_routes`
    /// found them for this node); other destinations keep theirs.
    pub fn replace_host_routes(&mut self, all: &HostSet, routes: Option<NodeRoutes>) {
        self.unroute(all);
        if let Some(routes) = routes {
            self.add_host_routes(routes);
        }
    }

    /// Whether one face and the shared set stand for the table.
    pub fn is_shared(&self) -> bool {
        self.every_host.is_some()
    }
}

/// One node's routes towards the hosts, as `shortest_path_routes` finds them.
#[derive(Debug, PartialEq, Eq)]
pub enum NodeRoutes {
    /// The same face towards every host of the set but the node itself (the hosts of its part
    /// of the graph, a set shared by the part's leaves), none towards the others.
    EveryHost(FaceId, HostSet),
    /// The route towards each host but the node itself, by host (none where no path leads or
    /// the next hop has no face).
    ByHost(Vec<(usize, Option<FaceId>)>),
}

/// Every node's routes towards each of `hosts` (sorted, without repeats) along the shortest
/// paths of `graph`: the first of a node's cheapest next hops, ties by link index, and the face
/// `face(node, neighbour, link)` of the node on that link.
///
/// What a Dijkstra per host would give, without one per host: a host on a single link (a
/// leaf) reaches every host of its part of the graph through that link, and every path to a
/// leaf passes its neighbour, so the leaves on one node share that node's distances. Only the
/// nodes leaves hang on and hosts that are not leaves take a Dijkstra, and only nodes that are
/// not leaves keep a route per host.
pub fn shortest_path_routes(
    graph: &Graph,
    nodes: usize,
    hosts: &[usize],
    face: impl Fn(usize, usize, usize) -> Option<FaceId>,
) -> Vec<Option<NodeRoutes>> {
    debug_assert!(hosts.windows(2).all(|w| w[0] < w[1]), "hosts sorted, without repeats");
    let leaf = |u: usize| match graph.neighbours(u) {
        [only] => Some(*only),
        _ => None,
    };
    let part = parts(graph, nodes);
    let mut hosts_in = vec![0usize; nodes];
    for &h in hosts {
        hosts_in[part[h]] += 1;
    }
    let mut out: Vec<Option<NodeRoutes>> = (0..nodes).map(|_| None).collect();
    // Leaves: one face towards every host of their part, the part's set made once.
    let mut part_hosts: Vec<Option<HostSet>> = vec![None; nodes];
    for (u, routes) in out.iter_mut().enumerate() {
        let Some((v, _, e)) = leaf(u) else { continue };
        let own = usize::from(hosts.binary_search(&u).is_ok());
        if hosts_in[part[u]] <= own {
            continue;
        }
        // Without a face on its link, a leaf has no route at all.
        *routes = face(u, v, e).map(|f| {
            let set = part_hosts[part[u]].get_or_insert_with(|| {
                let mine: Vec<usize> = hosts.iter().copied().filter(|&d| part[d] == part[u]).collect();
                HostSet::new(&mine)
            });
            NodeRoutes::EveryHost(f, set.clone())
        });
    }
    // Every other node: a Dijkstra from each node leaves hang on and from each host that is
    // not a leaf, for the hosts it stands for. A leaf host's distances are its neighbour's
    // plus its link's weight, so its route is the neighbour's but on the neighbour itself.
    let inner: Vec<usize> = (0..nodes).filter(|&u| leaf(u).is_none() && !graph.neighbours(u).is_empty()).collect();
    let mut groups: Vec<(usize, usize)> = hosts.iter().map(|&d| (leaf(d).map_or(d, |(v, _, _)| v), d)).collect();
    groups.sort_unstable();
    let mut by_host: Vec<Vec<(usize, Option<FaceId>)>> = vec![Vec::new(); inner.len()];
    for group in groups.chunk_by(|a, b| a.0 == b.0) {
        let s = group[0].0;
        let dist = graph.distances(&[s]);
        for (i, &u) in inner.iter().enumerate() {
            let towards_s = first_hop(graph, u, |x| dist[x]);
            for &(_, d) in group.iter().filter(|&&(_, d)| d != u) {
                let hop = match leaf(d) {
                    // The leaf's own neighbour: the leaf is at its link's weight, the rest
                    // beyond it.
                    Some((_, w, _)) if u == s => {
                        first_hop(graph, u, |x| if x == d { Some(0) } else { dist[x].map(|c| c.saturating_add(w)) })
                    }
                    _ => towards_s,
                };
                by_host[i].push((d, hop.and_then(|(v, e)| face(u, v, e))));
            }
        }
    }
    for (i, u) in inner.into_iter().enumerate() {
        let mut routes = std::mem::take(&mut by_host[i]);
        routes.sort_unstable_by_key(|&(d, _)| d);
        if !routes.is_empty() {
            out[u] = Some(NodeRoutes::ByHost(routes));
        }
    }
    out
}

/// The first of `u`'s cheapest next hops (neighbour, link), ties by link index, given each
/// node's distance to the destination (`None`: unreachable), as `Graph::next_hops` orders them.
fn first_hop(graph: &Graph, u: usize, dist: impl Fn(usize) -> Option<u64>) -> Option<(usize, usize)> {
    graph
        .neighbours(u)
        .iter()
        .filter_map(|&(v, w, e)| dist(v).map(|d| (d.saturating_add(w), e, v)))
        .min()
        .map(|(_, e, v)| (v, e))
}

/// Which connected part of `graph` each node is in (numbered by its lowest node).
fn parts(graph: &Graph, nodes: usize) -> Vec<usize> {
    let mut part = vec![usize::MAX; nodes];
    let mut stack = Vec::new();
    for start in 0..nodes {
        if part[start] != usize::MAX {
            continue;
        }
        part[start] = start;
        stack.push(start);
        while let Some(u) = stack.pop() {
            for &(v, _, _) in graph.neighbours(u) {
                if part[v] == usize::MAX {
                    part[v] = start;
                    stack.push(v);
                }
            }
        }
    }
    part
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// A face for node `u` on link `e`, or none for some links (a next hop without a face).
    fn face(u: usize, _v: usize, e: usize) -> Option<FaceId> {
        (e % 7 != 6).then_some(FaceId((e * 64 + u) as u32))
    }

    /// The routes as a Dijkstra per host gives them (what `shortest_path_routes` must equal).
    fn per_host(graph: &Graph, hosts: &[usize], u: usize) -> Vec<(usize, Option<FaceId>)> {
        hosts
            .iter()
            .filter(|&&d| d != u)
            .map(|&d| {
                let dist = graph.distances(&[d]);
                (d, graph.next_hops(u, &dist, false).first().and_then(|&(v, e, _)| face(u, v, e)))
            })
            .collect()
    }

    fn expand(r: &Option<NodeRoutes>, hosts: &[usize], u: usize) -> Vec<(usize, Option<FaceId>)> {
        match r {
            Some(NodeRoutes::EveryHost(f, set)) => {
                hosts.iter().filter(|&&d| d != u).map(|&d| (d, set.contains(d).then_some(*f))).collect()
            }
            Some(NodeRoutes::ByHost(v)) => v.clone(),
            None => hosts.iter().filter(|&&d| d != u).map(|&d| (d, None)).collect(),
        }
    }

    proptest! {
        /// On any graph (parallel links, loops, zero weights, parts apart), every node's route
        /// towards every host is the one a Dijkstra per host finds.
        #[test]
        fn routes_are_a_dijkstra_per_host(
            nodes in 1usize..14,
            edges in proptest::collection::vec((0usize..14, 0usize..14, 0u64..4), 0..24),
            host_bits in any::<u16>(),
        ) {
            let mut g = Graph::new(nodes);
            for (e, &(a, b, w)) in edges.iter().enumerate() {
                g.add_edge(a % nodes, b % nodes, w, e);
            }
            let hosts: Vec<usize> = (0..nodes).filter(|&n| host_bits >> n & 1 == 1).collect();
            let routes = shortest_path_routes(&g, nodes, &hosts, face);
            prop_assert_eq!(routes.len(), nodes);
            let all = HostSet::new(&hosts);
            for (u, r) in routes.into_iter().enumerate() {
                let expected = per_host(&g, &hosts, u);
                prop_assert_eq!(expand(&r, &hosts, u), expected.clone(), "node {}", u);
                // Put in a table that held other routes (as after a failure), the hosts'
                // routes are the new ones and a non-host destination keeps its own.
                let mut table = IpRoutes::default();
                for d in 0..nodes {
                    table.set(NodeId(d as u32), Some(FaceId(9_999 + d as u32)));
                }
                table.replace_host_routes(&all, r);
                for &(d, f) in &expected {
                    prop_assert_eq!(table.get(NodeId(d as u32)), f, "node {} to host {}", u, d);
                }
                for d in (0..nodes).filter(|d| !all.contains(*d)) {
                    prop_assert_eq!(table.get(NodeId(d as u32)), Some(FaceId(9_999 + d as u32)));
                }
            }
        }
    }

    /// A host on one link keeps one face, not a table; a router keeps a route per host.
    #[test]
    fn a_leaf_keeps_one_face() {
        // Two hosts on each side of a two-router dumbbell: 0, 1 – R2 – R3 – 4, 5.
        let mut g = Graph::new(6);
        for (e, (a, b)) in [(0, 2), (1, 2), (2, 3), (3, 4), (3, 5)].into_iter().enumerate() {
            g.add_edge(a, b, 1, e);
        }
        let hosts = [0, 1, 4, 5];
        let routes = shortest_path_routes(&g, 6, &hosts, face);
        let all = HostSet::new(&hosts);
        assert_eq!(routes[0], Some(NodeRoutes::EveryHost(FaceId(0), all.clone())));
        assert_eq!(routes[5], Some(NodeRoutes::EveryHost(FaceId(4 * 64 + 5), all)));
        let r2 = FaceId(2 * 64 + 2);
        assert_eq!(
            routes[2],
            Some(NodeRoutes::ByHost(vec![(0, Some(FaceId(2))), (1, Some(FaceId(66))), (4, Some(r2)), (5, Some(r2))]))
        );
        // With the bottleneck down, a leaf keeps one face towards the hosts of its side, not
        // a table: a failure does not make every host's routes grow with the world.
        let mut cut = Graph::new(6);
        for (e, (a, b)) in [(0, 2), (1, 2), (3, 4), (3, 5)].into_iter().enumerate() {
            cut.add_edge(a, b, 1, e);
        }
        let routes = shortest_path_routes(&cut, 6, &hosts, face);
        assert_eq!(routes[1], Some(NodeRoutes::EveryHost(FaceId(64 + 1), HostSet::new(&[0, 1]))));
        assert_eq!(routes[4], Some(NodeRoutes::EveryHost(FaceId(2 * 64 + 4), HostSet::new(&[4, 5]))));
    }

    /// The shared form answers as the table would, and becomes one when a route is set.
    #[test]
    fn every_host_reads_as_its_table() {
        let hosts = HostSet::new(&[1, 3, 70]);
        let mut r = IpRoutes::default();
        r.set_every_host(FaceId(9), &hosts);
        assert!(r.is_shared());
        let read = |r: &IpRoutes| (0..80).map(|d| r.get(NodeId(d))).collect::<Vec<_>>();
        let mut table = IpRoutes::default();
        for d in [1, 3, 70] {
            table.set(NodeId(d), Some(FaceId(9)));
        }
        assert_eq!(read(&r), read(&table));
        r.set(NodeId(3), None);
        r.set(NodeId(75), Some(FaceId(2)));
        assert!(!r.is_shared());
        table.set(NodeId(3), None);
        table.set(NodeId(75), Some(FaceId(2)));
        assert_eq!(read(&r), read(&table));
        // A route to a node outside the set keeps the table: the shared form would lose it.
        r.set_every_host(FaceId(4), &hosts);
        assert!(!r.is_shared());
        assert_eq!(r.get(NodeId(75)), Some(FaceId(2)));
        assert_eq!(r.get(NodeId(3)), Some(FaceId(4)));
    }
}
