//! Computed routes, like ndnSIM's global routing helper: for every prefix a producer serves,
//! shortest paths (Dijkstra) from every node to the nearest producer of it, by link cost, by
//! propagation delay, or by hop count.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

/// An undirected graph with symmetric edge weights.
#[derive(Clone, Debug, Default)]
pub struct Graph {
    /// adjacency[u] = (v, weight, edge index)
    adjacency: Vec<Vec<(usize, u64, usize)>>,
}

impl Graph {
    pub fn new(nodes: usize) -> Graph {
        Graph { adjacency: vec![Vec::new(); nodes] }
    }
    pub fn add_edge(&mut self, u: usize, v: usize, weight: u64, edge: usize) {
        self.adjacency[u].push((v, weight, edge));
        self.adjacency[v].push((u, weight, edge));
    }
    pub fn neighbours(&self, u: usize) -> &[(usize, u64, usize)] {
        &self.adjacency[u]
    }

    /// Distance of every node to the nearest of `sources` (`None` = unreachable).
    pub fn distances(&self, sources: &[usize]) -> Vec<Option<u64>> {
        let mut dist: Vec<Option<u64>> = vec![None; self.adjacency.len()];
        let mut heap = BinaryHeap::new();
        for &s in sources {
            dist[s] = Some(0);
            heap.push(Reverse((0u64, s)));
        }
        while let Some(Reverse((d, u))) = heap.pop() {
            if dist[u].is_some_and(|x| x < d) {
                continue;
            }
            for &(v, w, _) in &self.adjacency[u] {
                let nd = d.saturating_add(w);
                if dist[v].is_none_or(|x| nd < x) {
                    dist[v] = Some(nd);
                    heap.push(Reverse((nd, v)));
                }
            }
        }
        dist
    }

    /// Next hops of `u` towards the sources given `dist`: (neighbour, edge, path cost through
    /// it), cheapest first (ties by edge index). With `all = false` only the cheapest one.
    pub fn next_hops(&self, u: usize, dist: &[Option<u64>], all: bool) -> Vec<(usize, usize, u64)> {
        let mut hops: Vec<(usize, usize, u64)> =
            self.adjacency[u].iter().filter_map(|&(v, w, e)| dist[v].map(|d| (v, e, d.saturating_add(w)))).collect();
        hops.sort_by_key(|&(_, e, c)| (c, e));
        if !all {
            hops.truncate(1);
        }
        hops
    }
}

/// What a world's computed routes were built from, kept so that they can be computed again
/// when links or nodes fail and come back: the same algorithm over the links that are up.
#[derive(Clone, Debug, Default)]
pub struct RoutePlan {
    /// Nodes, by index.
    pub nodes: usize,
    /// Each link by index: its two nodes and its routing weight.
    pub edges: Vec<(usize, usize, u64)>,
    /// Every prefix a producer serves, with the nodes it is served on (empty with static routing).
    pub prefixes: Vec<(String, Vec<usize>)>,
    /// Every neighbour a next hop (`[routing] multipath`), or only the best.
    pub multipath: bool,
    /// Nodes IP traffic is routed to.
    pub ip_hosts: Vec<usize>,
}

impl RoutePlan {
    /// The graph of the links for which `up(link)` holds.
    pub fn graph(&self, up: impl Fn(usize) -> bool) -> Graph {
        let mut g = Graph::new(self.nodes);
        for (e, &(a, b, w)) in self.edges.iter().enumerate() {
            if up(e) {
                g.add_edge(a, b, w, e);
            }
        }
        g
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// 0 —1— 1 —1— 2, and a direct 0 —5— 2.
    fn triangle() -> Graph {
        let mut g = Graph::new(3);
        g.add_edge(0, 1, 1, 0);
        g.add_edge(1, 2, 1, 1);
        g.add_edge(0, 2, 5, 2);
        g
    }

    #[test]
    fn dijkstra_prefers_the_cheaper_two_hop_path() {
        let d = triangle().distances(&[2]);
        assert_eq!(d, vec![Some(2), Some(1), Some(0)]);
        assert_eq!(triangle().next_hops(0, &d, false), vec![(1, 0, 2)]);
    }

    #[test]
    fn multipath_lists_every_neighbour_by_cost() {
        let g = triangle();
        let d = g.distances(&[2]);
        assert_eq!(g.next_hops(0, &d, true), vec![(1, 0, 2), (2, 2, 5)]);
    }

    #[test]
    fn a_plan_leaves_out_the_links_that_are_down() {
        let plan = RoutePlan { nodes: 3, edges: vec![(0, 1, 1), (1, 2, 1), (0, 2, 5)], ..Default::default() };
        let g = plan.graph(|e| e != 1);
        let d = g.distances(&[2]);
        // Without the 1–2 link, node 0 goes direct (5) and node 1 goes through node 0 (6).
        assert_eq!(d, vec![Some(5), Some(6), Some(0)]);
        assert_eq!(g.next_hops(1, &d, false), vec![(0, 0, 6)]);
    }

    #[test]
    fn unreachable_nodes_have_no_distance() {
        let mut g = Graph::new(3);
        g.add_edge(0, 1, 1, 0);
        assert_eq!(g.distances(&[0])[2], None);
    }
}
