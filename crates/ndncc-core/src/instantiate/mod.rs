//! Turning a validated `Scenario` into a runnable `World`: nodes, links (both directions),
//! routes (static and computed), producers and consumers, recording.

pub mod apps;

pub use apps::{add_cbr_flow, add_consumer, add_consumer_with, add_multicast, add_producer, add_tcp_flow};

mod events;

use std::sync::Arc;

use crate::ids::NodeId;
use crate::routing::{Graph, RoutePlan};
use crate::scenario::{AppSpec, Dir, LoadedTrace, RoutingMetric, RoutingMode, Scenario};
use crate::time::{SimDuration, SimTime};
use crate::world::actions::{LinkSetting, SetLink};
use crate::world::{LinkParams, UnderlayParams, World, WorldBuilder};

/// A scenario that validated but cannot be built (a component rejected its parameters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct BuildError {
    pub component: String,
    pub message: String,
}

impl std::fmt::Display for BuildError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}: {}", self.component, self.message)
    }
}

fn err(component: impl Into<String>, message: impl Into<String>) -> BuildError {
    BuildError { component: component.into(), message: message.into() }
}

/// Build the world for `scenario` with root seed `seed`.
pub fn build_world(scenario: &Scenario, seed: u64) -> Result<World, BuildError> {
    // Link values drawn from a distribution get their value for this seed first.
    let scenario = &*scenario.draw_link_values(seed);
    let duration = scenario.simulation.duration.get();
    let mut b = WorldBuilder::new(seed, duration);
    let interval = scenario.record.interval.get();
    b.record((interval > SimDuration::ZERO).then_some(interval), scenario.record.events, scenario.record.faces.clone());

    // Nodes, in name order (BTreeMap), so ids do not depend on file order.
    let mut ids: Vec<(String, NodeId)> = Vec::new();
    for (name, spec) in &scenario.nodes {
        let id = b.add_node(name);
        b.set_clock(id, spec.clock_tick.map(|t| t.get()));
        if let (Some(phase), Some(tick)) = (spec.clock_phase, spec.clock_tick) {
            b.set_clock_phase(id, phase.resolve(seed, name, tick.get()));
        }
        b.set_content_store(id, spec.content_store.capacity);
        b.set_strategy(id, spec.strategy.build());
        for m in &spec.modules {
            b.add_module(id, m.build());
        }
        ids.push((name.clone(), id));
    }
    let node = |n: &str| ids.iter().find(|(x, _)| x == n).map(|(_, id)| *id);

    // Links, and the routing graph over them.
    let mut graph = Graph::new(ids.len());
    let mut edges = Vec::new();
    for (i, (name, link)) in scenario.links.iter().enumerate() {
        let [a, b_name] = &link.endpoints;
        let (na, nb) = match (node(a), node(b_name)) {
            (Some(x), Some(y)) => (x, y),
            _ => return Err(err(format!("link {name}"), "endpoint is not a declared node")),
        };
        let params = |dir: Dir| {
            let d = link.direction(dir);
            let trace = match d.trace.and_then(|t| t.loaded.as_deref()) {
                Some(LoadedTrace::Delivery(t)) => Some(Arc::new(t.clone())),
                _ => None,
            };
            LinkParams {
                bandwidth_bps: d.bandwidth.bps(),
                delay: d.delay.get(),
                queue: d.queue.clone(),
                loss: d.loss.clone(),
                underlay: d.underlay.map(|u| UnderlayParams {
                    bandwidth_bps: u.bps(),
                    limit_packets: d.underlay_queue,
                    limit_bytes: d.underlay_queue_bytes.map(|b| b.0),
                }),
                shaper: d.interest_shaper.cloned(),
                trace,
            }
        };
        let id =
            b.add_link(name, na, nb, params(Dir::AB), params(Dir::BA)).map_err(|e| err(format!("link {name}"), e))?;
        // A bandwidth that follows a series steps at the series' times.
        for (dir, (from, to)) in [(Dir::AB, (na, nb)), (Dir::BA, (nb, na))] {
            let Some(t) = link.direction(dir).trace else { continue };
            if t.loaded.is_none() {
                return Err(err(format!("link {name}"), format!("the trace file {} was not loaded", t.path())));
            }
            let Some(LoadedTrace::Series(series)) = t.loaded.as_deref() else { continue };
            let face = b.face_between(from, to).ok_or_else(|| err(format!("link {name}"), "internal: no face"))?;
            for &(at, bps) in series.points.iter().skip(1) {
                let change = SetLink { link: id, changes: vec![(face, LinkSetting::Bandwidth(bps))] };
                b.schedule_action(SimTime::ZERO + at, Arc::new(change));
            }
        }
        if let Some(ls) = &link.link_service {
            // Each end gets a service of its own: the two acknowledge each other's frames.
            for (from, to) in [(na, nb), (nb, na)] {
                let face = b
                    .face_between(from, to)
                    .ok_or_else(|| err(format!("link {name}"), "internal: no face for a link end"))?;
                b.set_link_service(face, ls.build()).map_err(|e| err(format!("link {name}"), e))?;
            }
        }
        let weight = match scenario.routing.metric {
            RoutingMetric::Cost => link.cost as u64,
            RoutingMetric::Delay => link.delay.get().nanos().max(1),
            RoutingMetric::Hops => 1,
        };
        graph.add_edge(na.idx(), nb.idx(), weight, i);
        edges.push((na.idx(), nb.idx(), weight));
    }

    // Producers first (they install their own app-face routes), remembering what they serve.
    let mut served: Vec<(String, Vec<usize>)> = Vec::new();
    for (name, app) in &scenario.apps {
        if let AppSpec::Producer(p) = app {
            add_producer(&mut b, name, p).map_err(|e| err(format!("app {name}"), e))?;
            let at = node(&p.node).ok_or_else(|| err(format!("app {name}"), "unknown node"))?;
            match served.iter_mut().find(|(pre, _)| *pre == p.prefix) {
                Some((_, v)) => v.push(at.idx()),
                None => served.push((p.prefix.clone(), vec![at.idx()])),
            }
        }
    }

    // Computed routes: every node towards the nearest producer of each prefix.
    if scenario.routing.mode == RoutingMode::Computed {
        for (prefix, origins) in &served {
            let dist = graph.distances(origins);
            for u in 0..ids.len() {
                if origins.contains(&u) {
                    continue;
                }
                for (v, _, cost) in graph.next_hops(u, &dist, scenario.routing.multipath) {
                    let face = b
                        .face_between(NodeId(u as u32), NodeId(v as u32))
                        .ok_or_else(|| err("routing", "internal: no face for a graph edge"))?;
                    b.add_computed_route(NodeId(u as u32), prefix, face, cost);
                }
            }
        }
    }
    for r in &scenario.routes {
        let (from, to) = match (node(&r.node), node(&r.nexthop)) {
            (Some(x), Some(y)) => (x, y),
            _ => return Err(err(format!("route {} {}", r.node, r.prefix), "unknown node")),
        };
        let face = b.face_between(from, to).ok_or_else(|| {
            err(format!("route {} {}", r.node, r.prefix), format!("{} is not a neighbour of {}", r.nexthop, r.node))
        })?;
        b.add_route(from, &r.prefix, face, r.cost as u64);
    }

    // Consumers, IP flows with routes between their hosts, multicast groups with their trees.
    let mut groups: u32 = 0;
    for (name, app) in &scenario.apps {
        match app {
            AppSpec::Consumer(c) => {
                let id = add_consumer(&mut b, name, c).map_err(|e| err(format!("app {name}"), e))?;
                let limit = usize::try_from(scenario.in_flight_limit(c)).unwrap_or(usize::MAX);
                b.limit_in_flight(id, limit);
            }
            AppSpec::Tcp(t) => {
                add_tcp_flow(&mut b, name, t).map_err(|e| err(format!("app {name}"), e))?;
            }
            AppSpec::Cbr(c) => {
                add_cbr_flow(&mut b, name, c).map_err(|e| err(format!("app {name}"), e))?;
            }
            AppSpec::Multicast(m) => {
                groups = groups.saturating_add(1);
                let group = m.group.unwrap_or(groups);
                add_multicast(&mut b, name, m, group).map_err(|e| err(format!("app {name}"), e))?;
            }
            AppSpec::Producer(_) => {}
        }
    }
    let hosts = b.ip_hosts();
    if !hosts.is_empty() {
        b.install_ip_routes(&graph, &hosts);
    }
    let computed = scenario.routing.mode == RoutingMode::Computed;
    let plan = RoutePlan {
        nodes: ids.len(),
        edges,
        prefixes: if computed { served } else { Vec::new() },
        multipath: scenario.routing.multipath,
        ip_hosts: hosts.iter().map(|h| h.idx()).collect(),
    };
    b.route_plan(plan, computed, scenario.routing.convergence.get());
    events::schedule(&mut b, scenario, &node)?;
    Ok(b.build())
}
