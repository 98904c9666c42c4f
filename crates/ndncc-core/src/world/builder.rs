//! Building a world in code: nodes, links, routes and applications, then `build()`. The scenario
//! layer drives this builder; tests and benchmarks use it directly.

use std::sync::Arc;

use super::actions::Action;
use super::dynamics::Topology;
use super::engine::{Actor, Engine, Scratch, Watchdog};
use super::ip_routes::shortest_path_routes;
use super::sampling::{FaceMetricIds, Sampling};
use super::{Link, McastRoute, Network, Node, NodeCounters, RunCounters, World};
use crate::app::consumer;
use crate::app::producer::DEFAULT_PAYLOAD_BYTES;
use crate::app::{Application, ConsumerParams, Controller, Producer, ProducerParams};
use crate::egress::{Dynamics, Egress, Underlay};
use crate::event_queue::EventQueue;
use crate::face::{Face, FaceCounters, FaceKind};
use crate::face_selection::FaceSelection;
use crate::forwarder::strategy::AnyStrategy;
use crate::forwarder::{ContentStore, Fib, Pit};
use crate::ids::{AppId, FaceId, LinkId, NodeId};
use crate::link_trace::DeliveryTrace;
use crate::linkservice::{LinkService, LinkServiceSlot};
use crate::loss::{LinkLoss, LossConfig};
use crate::module::{ModuleSlot, RouterModule};
use crate::plugin::Invalid;
use crate::queue::token_bucket::{ShaperConfig, TokenBucketShaper};
use crate::queue::QueueConfig;
use crate::recorder::{EventSamples, Recorder};
use crate::rng::stream;
use crate::routing::RoutePlan;
use crate::time::{SimDuration, SimTime};

/// What `WorldBuilder` refuses: a value or a pairing that cannot make a working world. Its
/// text (`Display`) is the message a scenario's user reads, after the component it concerns.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum BuilderError {
    /// `set_link_service` on a face that is not a link's.
    NotALinkFace { face: String },
    /// A link direction of zero bandwidth; `link` is the direction's name (`A->B`).
    ZeroBandwidth { link: String },
    /// A link direction with a zero-bandwidth underlay.
    ZeroUnderlayBandwidth { link: String },
    /// A link direction's loss model, queue or Interest shaper rejected its parameters.
    Invalid { link: String, invalid: Invalid },
    /// A link from a node to itself.
    SameEnds { link: String, node: String },
    /// A name that is not one of the world's nodes, and what asked for it.
    UnknownNode { what: String, node: String },
    /// A port already bound on the node.
    PortTaken { port: u16, node: String },
}

impl std::fmt::Display for BuilderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BuilderError::NotALinkFace { face } => write!(f, "face {face} is not a link face"),
            BuilderError::ZeroBandwidth { link } => write!(f, "link {link}: bandwidth must be > 0"),
            BuilderError::ZeroUnderlayBandwidth { link } => write!(f, "link {link}: underlay bandwidth must be > 0"),
            BuilderError::Invalid { link, invalid } => write!(f, "link {link}: {invalid}"),
            BuilderError::SameEnds { link, node } => write!(f, "link {link}: both ends are node {node}"),
            BuilderError::UnknownNode { what, node } => write!(f, "{what}: '{node}' is not a node of this world"),
            BuilderError::PortTaken { port, node } => write!(f, "port {port} on node {node} is taken"),
        }
    }
}

impl std::error::Error for BuilderError {}

/// The scenario layer reports a builder's refusal as text, after the component concerned.
impl From<BuilderError> for String {
    fn from(e: BuilderError) -> String {
        e.to_string()
    }
}

/// One direction of a link.
/// A hidden underlay below an overlay link: its capacity [bit/s] and the FIFO's limits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnderlayParams {
    pub bandwidth_bps: u64,
    /// [packets]
    pub limit_packets: usize,
    /// [bytes], as well as the packet limit, if set.
    pub limit_bytes: Option<u64>,
}

#[derive(Clone, Debug)]
pub struct LinkParams {
    /// [bit/s]
    pub bandwidth_bps: u64,
    /// One-way propagation delay.
    pub delay: SimDuration,
    pub queue: QueueConfig,
    pub loss: LossConfig,
    /// Hidden underlay capacity and its FIFO.
    pub underlay: Option<UnderlayParams>,
    pub shaper: Option<ShaperConfig>,
    /// Delivery opportunities in place of a fixed bandwidth (then `bandwidth_bps` should be
    /// the trace's mean, which the direction's Interest shaper and summary read).
    pub trace: Option<Arc<DeliveryTrace>>,
}

impl LinkParams {
    pub fn new(bandwidth_bps: u64, delay: SimDuration) -> LinkParams {
        LinkParams {
            bandwidth_bps,
            delay,
            queue: QueueConfig::default(),
            loss: LossConfig::None,
            underlay: None,
            shaper: None,
            trace: None,
        }
    }
    pub fn with_queue(mut self, q: QueueConfig) -> LinkParams {
        self.queue = q;
        self
    }
    pub fn with_loss(mut self, l: LossConfig) -> LinkParams {
        self.loss = l;
        self
    }
}

pub struct WorldBuilder {
    seed: u64,
    duration: SimDuration,
    net: Network,
    recorder: Recorder,
    sample_interval: Option<SimDuration>,
    face_selection: FaceSelection,
    /// Payload of the first producer added for each canonical prefix, for consumers' goodput
    /// accounting.
    producers: rustc_hash::FxHashMap<String, u32>,
    /// Node ids by name (the first node of a name, if names repeat).
    node_index: rustc_hash::FxHashMap<String, NodeId>,
    /// Nodes with IP applications.
    ip_hosts: Vec<NodeId>,
    /// The last port handed out to a flow.
    next_port: u16,
    stall_limit: u64,
    /// Scheduled actions, in the order added.
    actions: Vec<(SimTime, Arc<dyn Action>)>,
    /// How routes are computed again after a failure: the plan, whether the FIB's routes are
    /// computed (or static), and the convergence delay.
    route_plan: Option<(RoutePlan, bool, SimDuration)>,
    /// Routes added with `add_route` (not computed), in order.
    fixed_routes: Vec<(NodeId, String, FaceId, u64)>,
}

impl WorldBuilder {
    pub fn new(seed: u64, duration: SimDuration) -> WorldBuilder {
        WorldBuilder {
            seed,
            duration,
            net: Network::default(),
            recorder: Recorder::new(EventSamples::Recorded),
            sample_interval: Some(SimDuration::from_millis(100)),
            face_selection: FaceSelection::All,
            producers: Default::default(),
            node_index: Default::default(),
            ip_hosts: Vec::new(),
            next_port: 1022,
            stall_limit: super::STALL_LIMIT,
            actions: Vec::new(),
            route_plan: None,
            fixed_routes: Vec::new(),
        }
    }

    /// Fixed-interval sampling period (`None` = off), per-packet event samples on/off, and
    /// which faces are sampled.
    pub fn record(&mut self, interval: Option<SimDuration>, events: bool, faces: FaceSelection) -> &mut Self {
        self.sample_interval = interval.filter(|i| *i > SimDuration::ZERO);
        self.recorder.events = events;
        self.face_selection = faces;
        self
    }

    /// Declare the run stalled after this many events at one instant, or packets within one
    /// event (default `STALL_LIMIT`).
    pub fn stall_limit(&mut self, n: u64) -> &mut Self {
        self.stall_limit = n.max(1);
        self
    }

    pub fn add_node(&mut self, name: &str) -> NodeId {
        let id = NodeId(self.net.nodes.len() as u32);
        self.node_index.entry(name.to_owned()).or_insert(id);
        self.net.node_names.push(name.into());
        self.net.nodes.push(Node {
            id,
            faces: smallvec::SmallVec::new(),
            fib: Fib::default(),
            pit: Pit::default(),
            cs: None,
            strategy: AnyStrategy::BestRoute(crate::forwarder::strategy::BestRoute::default()),
            modules: Default::default(),
            ip: None,
            clock_tick: SimDuration::ZERO,
            clock_phase: SimDuration::ZERO,
            rng: stream(self.seed, &format!("node:{name}")),
            pit_sweep_at: super::network::NO_PIT_SWEEP,
            counters: NodeCounters::default(),
        });
        id
    }

    pub fn node_by_name(&self, name: &str) -> Option<NodeId> {
        self.node_index.get(name).copied()
    }

    pub fn set_clock(&mut self, node: NodeId, tick: Option<SimDuration>) {
        self.net.nodes[node.idx()].clock_tick = tick.unwrap_or(SimDuration::ZERO);
    }

    /// Shift the node's coarse clock: its edges fall at `phase` plus multiples of the tick.
    pub fn set_clock_phase(&mut self, node: NodeId, phase: SimDuration) {
        self.net.nodes[node.idx()].clock_phase = phase;
    }
    /// A Content Store of `capacity` Data on `node` (0 = none).
    pub fn set_content_store(&mut self, node: NodeId, capacity: usize) {
        self.net.nodes[node.idx()].cs = ContentStore::new(capacity).map(Box::new);
    }
    pub fn set_strategy(&mut self, node: NodeId, s: AnyStrategy) {
        self.net.nodes[node.idx()].strategy = s;
    }
    /// Add a router module to `node`, after the ones it has. Its random stream is
    /// `module:NODE:INDEX`.
    pub fn add_module(&mut self, node: NodeId, m: Box<dyn RouterModule>) {
        let n = &mut self.net.nodes[node.idx()];
        let rng = stream(self.seed, &format!("module:{}:{}", self.net.node_names[node.idx()], n.modules.len()));
        n.modules.push(ModuleSlot::new(m, rng));
    }

    /// Give `face` (a link face) a link service. Its random stream is `linkservice:FACE`.
    pub fn set_link_service(&mut self, face: FaceId, s: Box<dyn LinkService>) -> Result<(), BuilderError> {
        let name = self.net.face_name(face);
        if self.net.faces[face.idx()].egress.is_none() {
            return Err(BuilderError::NotALinkFace { face: name.to_owned() });
        }
        let rng = stream(self.seed, &format!("linkservice:{name}"));
        self.net.faces[face.idx()].link_service = Some(Box::new(LinkServiceSlot::new(s, rng)));
        Ok(())
    }

    /// IP route on `node`: packets for `dst` leave on `face`.
    pub fn add_ip_route(&mut self, node: NodeId, dst: NodeId, face: FaceId) {
        self.net.nodes[node.idx()].ip_mut().routes.set(dst, Some(face));
    }

    /// Multicast tree entry of `node` for `group`: its face towards the source (`None` on the
    /// source's node) and a face Data is copied to (call once per downstream face).
    pub fn add_mcast_route(&mut self, node: NodeId, group: u32, upstream: Option<FaceId>, downstream: Option<FaceId>) {
        let mcast = &mut self.net.nodes[node.idx()].ip_mut().mcast;
        let i = match mcast.iter().position(|(g, _)| *g == group) {
            Some(i) => i,
            None => {
                mcast.push((group, McastRoute::default()));
                mcast.len() - 1
            }
        };
        let r = &mut mcast[i].1;
        if upstream.is_some() {
            r.upstream = upstream;
        }
        if let Some(d) = downstream {
            if !r.downstream.contains(&d) {
                r.downstream.push(d);
            }
        }
    }

    fn egress(&self, name: &str, p: &LinkParams, reverse_bps: u64) -> Result<Egress, BuilderError> {
        if p.bandwidth_bps == 0 {
            return Err(BuilderError::ZeroBandwidth { link: name.to_owned() });
        }
        // The same checks a scenario's link gets, for worlds built in code.
        let invalid =
            |e: Invalid, under: &str| BuilderError::Invalid { link: name.to_owned(), invalid: e.under(under) };
        p.loss.validate().map_err(|e| invalid(e, "loss"))?;
        p.queue.validate().map_err(|e| invalid(e, "queue"))?;
        let queue = p.queue.build();
        let shaper = match &p.shaper {
            Some(c) => {
                c.validate().map_err(|e| invalid(e, "interest_shaper"))?;
                Some(TokenBucketShaper::new(c, reverse_bps))
            }
            None => None,
        };
        let underlay = match p.underlay {
            Some(u) if u.bandwidth_bps == 0 => {
                return Err(BuilderError::ZeroUnderlayBandwidth { link: name.to_owned() })
            }
            Some(u) => Some(Underlay::new(u.bandwidth_bps, u.limit_packets, u.limit_bytes)),
            None => None,
        };
        let loss = LinkLoss::new(self.seed, &format!("link:{name}"), p.loss.build());
        let mut egress = Egress::new(p.bandwidth_bps, p.delay, loss, queue);
        egress.set_extras(shaper, underlay);
        if let Some(t) = &p.trace {
            egress.dynamics = Some(Box::new(Dynamics::new(Some(t.clone()))));
        }
        Ok(egress)
    }

    /// A full-duplex link between `a` and `b`; `ab` configures the a→b direction.
    pub fn add_link(
        &mut self,
        name: &str,
        a: NodeId,
        b: NodeId,
        ab: LinkParams,
        ba: LinkParams,
    ) -> Result<LinkId, BuilderError> {
        if a == b {
            return Err(BuilderError::SameEnds {
                link: name.to_owned(),
                node: self.net.node_names[a.idx()].to_string(),
            });
        }
        let (na, nb) = (self.net.node_names[a.idx()].clone(), self.net.node_names[b.idx()].clone());
        let mut eg_ab = self.egress(&format!("{na}->{nb}"), &ab, ba.bandwidth_bps)?;
        let mut eg_ba = self.egress(&format!("{nb}->{na}"), &ba, ab.bandwidth_bps)?;
        let id = LinkId(self.net.links.len() as u32);
        (eg_ab.probe, eg_ba.probe) = (2 * id.0, 2 * id.0 + 1);
        (eg_ab.to, eg_ba.to) = (b, a);
        let fa = FaceId(self.net.faces.len() as u32);
        let fb = FaceId(fa.0 + 1);
        self.net.faces.push(Face {
            id: fa,
            node: a,
            kind: FaceKind::Link { link: id, peer: fb, peer_node: b },
            egress: Some(eg_ab),
            link_service: None,
            pending_interests: 0,
            counters: FaceCounters::default(),
        });
        self.net.faces.push(Face {
            id: fb,
            node: b,
            kind: FaceKind::Link { link: id, peer: fa, peer_node: a },
            egress: Some(eg_ba),
            link_service: None,
            pending_interests: 0,
            counters: FaceCounters::default(),
        });
        self.net.face_names.push(compact_str::format_compact!("{na}->{nb}"));
        self.net.face_names.push(compact_str::format_compact!("{nb}->{na}"));
        self.net.nodes[a.idx()].faces.push(fa);
        self.net.nodes[b.idx()].faces.push(fb);
        self.net.links.push(Link { id, name: name.into(), faces: [fa, fb] });
        Ok(id)
    }

    /// The face of `from` on a link to `to` (the first, if several).
    pub fn face_between(&self, from: NodeId, to: NodeId) -> Option<FaceId> {
        let towards = |n: NodeId, other: NodeId| {
            self.net.nodes[n.idx()].faces.iter().copied().find(
                |f| matches!(self.net.faces[f.idx()].kind, FaceKind::Link { peer_node, .. } if peer_node == other),
            )
        };
        // A hub's list is long (a router with thousands of access links): look from the end with
        // fewer faces. Both ends get their faces in link order, so the first link found from
        // either end is the same link.
        if self.net.nodes[to.idx()].faces.len() < self.net.nodes[from.idx()].faces.len() {
            towards(to, from).and_then(|f| self.net.faces[f.idx()].peer())
        } else {
            towards(from, to)
        }
    }

    pub fn add_route(&mut self, node: NodeId, prefix: &str, face: FaceId, cost: u64) {
        self.net.nodes[node.idx()].fib.add_route(prefix, face, cost);
        self.fixed_routes.push((node, prefix.to_owned(), face, cost));
    }

    /// A route found by computed routing: computed again, not kept, when links fail.
    pub fn add_computed_route(&mut self, node: NodeId, prefix: &str, face: FaceId, cost: u64) {
        self.net.nodes[node.idx()].fib.add_route(prefix, face, cost);
    }

    /// Run `action` at `at`. Actions of one instant run in the order they were added.
    pub fn schedule_action(&mut self, at: SimTime, action: Arc<dyn Action>) {
        self.actions.push((at, action));
    }

    /// How to compute routes again when links or nodes fail or come back: `plan` (with
    /// `computed` false the FIBs keep their static routes and only IP routes are computed
    /// again), `convergence` after each change.
    pub fn route_plan(&mut self, plan: RoutePlan, computed: bool, convergence: SimDuration) {
        self.route_plan = Some((plan, computed, convergence));
    }

    fn add_app(
        &mut self,
        name: &str,
        node: NodeId,
        app: Box<dyn Application>,
        start: SimTime,
        stop: Option<SimTime>,
    ) -> (AppId, FaceId) {
        self.net.push_app(name, node, app, start, stop)
    }

    /// The node called `node`, or an error naming `what` asked for it.
    pub fn node_named(&self, what: &str, node: &str) -> Result<NodeId, BuilderError> {
        self.node_by_name(node)
            .ok_or_else(|| BuilderError::UnknownNode { what: what.to_owned(), node: node.to_owned() })
    }

    /// The producer `params.name` on `node`, serving `prefix`; installs the FIB route to its
    /// app face (cost 0). The first producer of a prefix sets the payload its consumers count.
    pub fn add_producer(&mut self, node: NodeId, prefix: &str, params: ProducerParams) -> AppId {
        self.producers.entry(crate::names::canonical(prefix)).or_insert(params.payload);
        let name = params.name.clone();
        let (id, face) = self.add_app(&name, node, Box::new(Producer::new(params)), SimTime::ZERO, None);
        self.add_route(node, prefix, face, 0);
        id
    }

    /// Payload of the Data answering names under `prefix`: that of the producer added with the
    /// longest prefix covering it (the first added among equals), else the producer default
    /// (1,024 B).
    pub fn payload_for(&self, prefix: &str) -> u32 {
        let comps = crate::names::components(prefix);
        for len in (0..=comps.len()).rev() {
            let p = if len == 0 { "/".to_string() } else { format!("/{}", comps[..len].join("/")) };
            if let Some(&payload) = self.producers.get(&p) {
                return payload;
            }
        }
        DEFAULT_PAYLOAD_BYTES as u32
    }

    /// The consumer `params.name` on `node` under `ctl`, from `start` until `stop`. Its random
    /// stream is `app:NAME`.
    pub fn add_consumer(
        &mut self,
        node: NodeId,
        params: ConsumerParams,
        ctl: Controller,
        start: SimTime,
        stop: Option<SimTime>,
    ) -> AppId {
        let name = params.name.clone();
        let rng = stream(self.seed, &format!("app:{name}"));
        let app = consumer::build(params, ctl, rng, &mut self.recorder);
        self.add_app(&name, node, app, start, stop).0
    }

    /// Let application `app` (a consumer) keep at most `limit` Interests in flight.
    pub fn limit_in_flight(&mut self, app: AppId, limit: usize) {
        if let Some(slot) = self.net.apps.get_mut(app.idx()) {
            slot.app.limit_in_flight(limit);
        }
    }

    /// Any application (a user plug-in).
    pub fn add_application(
        &mut self,
        name: &str,
        node: NodeId,
        app: Box<dyn Application>,
        start: SimTime,
        stop: Option<SimTime>,
    ) -> AppId {
        self.add_app(name, node, app, start, stop).0
    }

    /// For each node, its (face towards its parent, the parent's face towards it) in the
    /// breadth-first tree from `root` over link faces; `None` for the root and unreachable nodes.
    pub fn shortest_path_tree(&self, root: NodeId) -> Vec<Option<(FaceId, FaceId)>> {
        let mut parent: Vec<Option<(FaceId, FaceId)>> = vec![None; self.net.nodes.len()];
        let mut seen = vec![false; self.net.nodes.len()];
        seen[root.idx()] = true;
        let mut queue = std::collections::VecDeque::from([root]);
        while let Some(u) = queue.pop_front() {
            for &f in &self.net.nodes[u.idx()].faces {
                let Some(peer) = self.net.faces[f.idx()].peer() else { continue };
                let v = self.net.faces[peer.idx()].node;
                if !seen[v.idx()] {
                    seen[v.idx()] = true;
                    parent[v.idx()] = Some((peer, f));
                    queue.push_back(v);
                }
            }
        }
        parent
    }

    /// A fresh (source, destination) pair of ports for a flow: unique across the world.
    pub fn flow_ports(&mut self) -> (u16, u16) {
        self.next_port = self.next_port.wrapping_add(2).max(1024);
        (self.next_port, self.next_port.wrapping_add(1))
    }

    /// Note that `node` sends or receives IP traffic.
    pub fn add_ip_host(&mut self, node: NodeId) {
        self.ip_hosts.push(node);
    }

    /// The nodes that send or receive IP traffic (the destinations `install_ip_routes` needs).
    pub fn ip_hosts(&self) -> Vec<NodeId> {
        let mut v: Vec<NodeId> = self.ip_hosts.to_vec();
        v.sort_unstable();
        v.dedup();
        v
    }

    /// IP routes on every node towards each of `destinations`, along shortest paths of `graph`
    /// (whose nodes are this world's node indices and whose edges are its links, in order), over
    /// the first face between a node and its next hop.
    pub fn install_ip_routes(&mut self, graph: &crate::routing::Graph, destinations: &[NodeId]) {
        let mut hosts: Vec<usize> = destinations.iter().map(|d| d.idx()).collect();
        hosts.sort_unstable();
        hosts.dedup();
        let node = |u: usize| NodeId(u as u32);
        let routes =
            shortest_path_routes(graph, self.net.nodes.len(), &hosts, |u, v, _| self.face_between(node(u), node(v)));
        for (u, r) in routes.into_iter().enumerate() {
            if let Some(r) = r {
                self.net.nodes[u].ip_mut().routes.add_host_routes(r);
            }
        }
    }

    /// The root seed of the world's random streams.
    pub fn seed(&self) -> u64 {
        self.seed
    }
    /// The node `face` belongs to.
    pub fn face_node(&self, face: FaceId) -> NodeId {
        self.net.faces[face.idx()].node
    }
    /// The bandwidth `face` transmits at [bit/s]; `None` for an application face.
    pub fn face_bandwidth_bps(&self, face: FaceId) -> Option<u64> {
        self.net.faces[face.idx()].egress.as_ref().map(|e| e.bandwidth_bps)
    }

    /// A node's line rate: its fastest link's bandwidth [bit/s]; `None` for a node without links.
    pub fn line_rate_bps(&self, node: NodeId) -> Option<u64> {
        self.net
            .faces
            .iter()
            .filter(|f| f.node == node)
            .filter_map(|f| f.egress.as_ref().map(|e| e.bandwidth_bps))
            .max()
    }

    /// The face application `app` is attached by.
    pub fn app_face(&self, app: AppId) -> FaceId {
        self.net.apps[app.idx()].face
    }

    /// IP packets for `port` on the node of `app` are delivered to `app`.
    pub fn bind_port(&mut self, app: AppId, port: u16) -> Result<(), BuilderError> {
        let (node, face) = (self.net.apps[app.idx()].node, self.net.apps[app.idx()].face);
        let n = &mut self.net.nodes[node.idx()];
        if n.ip.as_ref().is_some_and(|ip| ip.ports.iter().any(|(p, _)| *p == port)) {
            return Err(BuilderError::PortTaken { port, node: self.net.node_names[node.idx()].to_string() });
        }
        n.ip_mut().ports.push((port, face));
        Ok(())
    }

    pub fn intern(&mut self, name: &str) -> crate::ids::NameId {
        self.net.names.intern(name)
    }
    pub fn recorder(&mut self) -> &mut Recorder {
        &mut self.recorder
    }

    pub fn build(mut self) -> World {
        // First: it marks the links the actions change, which sampling then picks out.
        let topology = self.topology();
        let face_ids = FaceMetricIds {
            queue_packets: self.recorder.metric("queue_packets"),
            queue_bytes: self.recorder.metric("queue_bytes"),
            bytes_sent: self.recorder.metric("bytes_sent"),
            drops: self.recorder.metric("drops"),
            marks: self.recorder.metric("marks"),
            shaper_len: self.recorder.metric("shaper_len"),
        };
        let mut sampled_faces = Vec::new();
        for f in &self.net.faces {
            if f.egress.is_none() {
                continue;
            }
            let pick = match &self.face_selection {
                FaceSelection::All => true,
                FaceSelection::None => false,
                FaceSelection::List(v) => v.iter().any(|n| n == self.net.face_name(f.id)),
            };
            if pick {
                sampled_faces.push((f.id, self.recorder.entity(self.net.face_name(f.id))));
            }
        }
        let changing: Vec<(FaceId, crate::recorder::EntityId)> = sampled_faces
            .iter()
            .copied()
            .filter(|(f, _)| self.net.faces[f.idx()].egress.as_ref().is_some_and(|e| e.dynamics.is_some()))
            .collect();
        let capacity_ids =
            (!changing.is_empty()).then(|| (self.recorder.metric("capacity"), self.recorder.metric("utilisation")));
        let face_samples = super::face_samples::FaceSamples::new(self.net.faces.len(), &sampled_faces);
        let app_samples = super::app_samples::AppSamples::new(self.net.apps.len());
        let sampling = Sampling {
            interval: self.sample_interval,
            faces: sampled_faces,
            ids: face_ids,
            face_samples,
            app_samples,
            visits: Vec::new(),
            nodes: Vec::new(),
            changing,
            capacity_ids,
        };
        let engine = Engine {
            queue: EventQueue::default(),
            recorder: self.recorder,
            counters: RunCounters::default(),
            work: crate::ring::Ring::new(),
            wakers: Vec::new(),
            clocks: Vec::new(),
            probes: Default::default(),
            tap_observer: None,
            sampling,
            scratch: Scratch::default(),
            watchdog: Watchdog { last_actor: Actor::None, stalled: None, stall_limit: self.stall_limit },
            shortcuts: true,
            prefetch_buckets_above: super::network::PREFETCH_BUCKETS_FROM,
            idle_polls_run: 0,
            idle_polls_in_runs: 0,
            end: SimTime::ZERO + self.duration,
            topology,
        };
        World { net: self.net, engine, started: false }
    }

    /// What a world with scheduled actions keeps to run them; the links they touch record
    /// their capacity from the start. `None` without actions.
    fn topology(&mut self) -> Option<Box<Topology>> {
        if self.actions.is_empty() {
            return None;
        }
        let mut t = Topology::new(self.net.links.len(), self.net.nodes.len());
        let mut links = Vec::new();
        for (_, a) in &self.actions {
            let (l, nodes) = a.touches();
            links.extend(l);
            for n in nodes {
                for &f in &self.net.nodes[n.idx()].faces {
                    if let FaceKind::Link { link, .. } = self.net.faces[f.idx()].kind {
                        links.push(link);
                    }
                }
            }
        }
        for link in links {
            for f in self.net.links[link.idx()].faces {
                if let Some(eg) = self.net.faces[f.idx()].egress.as_mut() {
                    eg.dynamics.get_or_insert_with(|| Box::new(Dynamics::new(None)));
                }
            }
        }
        t.actions = std::mem::take(&mut self.actions);
        if let Some((plan, computed, convergence)) = self.route_plan.take() {
            (t.plan, t.computed, t.convergence) = (plan, computed, convergence);
        }
        t.fixed_routes = std::mem::take(&mut self.fixed_routes);
        Some(Box::new(t))
    }

    /// The network built so far, without an engine to run it (for tests of the protocol
    /// handlers and of components that see a node's faces).
    pub fn into_network(self) -> Network {
        self.net
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::units::Fraction;

    #[test]
    fn the_face_between_two_nodes_is_the_first_link_s_from_either_end() {
        // A hub H with links to X, Y and two to Z: looking from the end with fewer faces finds
        // the same (first) link as looking from the hub.
        let mut b = WorldBuilder::new(1, SimDuration::from_secs(1));
        let [h, x, y, z] = ["H", "X", "Y", "Z"].map(|n| b.add_node(n));
        let p = LinkParams::new(1_000_000, SimDuration::from_millis(1));
        for (name, other) in [("H-X", x), ("H-Z", z), ("H-Y", y), ("H-Z2", z)] {
            b.add_link(name, h, other, p.clone(), p.clone()).unwrap();
        }
        // Faces are made two per link in link order: H-Z's are 2 (H's) and 3 (Z's), H-Z2's 6 and 7.
        assert_eq!(b.face_between(h, z), Some(FaceId(2)));
        assert_eq!(b.face_between(z, h), Some(FaceId(3)));
        assert_eq!(b.face_between(h, x), Some(FaceId(0)));
        assert_eq!(b.face_between(x, y), None);
    }

    fn producer() -> ProducerParams {
        ProducerParams {
            name: "P".into(),
            payload: DEFAULT_PAYLOAD_BYTES as u32,
            overhead: None,
            processing_delay: SimDuration::ZERO,
            freshness: SimDuration::ZERO,
        }
    }

    /// Each refusal is a variant of its own, and reads as the message a scenario's user gets.
    #[test]
    fn refusals_are_typed_and_read_as_before() {
        let mut b = WorldBuilder::new(1, SimDuration::from_secs(1));
        let (a, n) = (b.add_node("A"), b.add_node("B"));
        let ok = LinkParams::new(1_000_000, SimDuration::from_millis(1));
        let message = |e: BuilderError| String::from(e);

        let e = b.add_link("A-A", a, a, ok.clone(), ok.clone()).unwrap_err();
        assert_eq!(e, BuilderError::SameEnds { link: "A-A".into(), node: "A".into() });
        assert_eq!(message(e), "link A-A: both ends are node A");

        let e = b.add_link("A-B", a, n, LinkParams::new(0, SimDuration::ZERO), ok.clone()).unwrap_err();
        assert_eq!(message(e), "link A->B: bandwidth must be > 0");

        let mut underlay = ok.clone();
        underlay.underlay = Some(UnderlayParams { bandwidth_bps: 0, limit_packets: 10, limit_bytes: None });
        let e = b.add_link("A-B", a, n, ok.clone(), underlay).unwrap_err();
        assert_eq!(message(e), "link B->A: underlay bandwidth must be > 0");

        let mut lossy = ok.clone();
        lossy.loss = LossConfig::Bernoulli { p: Fraction(1.5) };
        let e = b.add_link("A-B", a, n, lossy, ok.clone()).unwrap_err();
        assert!(matches!(&e, BuilderError::Invalid { invalid, .. } if invalid.key == "loss.p"), "{e:?}");
        assert!(message(e).starts_with("link A->B: loss.p: "));

        let e = b.node_named("app C", "X").unwrap_err();
        assert_eq!(message(e), "app C: 'X' is not a node of this world");

        b.add_link("A-B", a, n, ok.clone(), ok).unwrap();
        let p = b.add_producer(n, "/p", producer());
        let e = b
            .set_link_service(
                b.app_face(p),
                Box::new(crate::linkservice::loss_detect::LossDetect::new(&Default::default())),
            )
            .unwrap_err();
        assert_eq!(message(e), "face B:P is not a link face");

        b.bind_port(p, 80).unwrap();
        let e = b.bind_port(p, 80).unwrap_err();
        assert_eq!(e, BuilderError::PortTaken { port: 80, node: "B".into() });
        assert_eq!(message(e), "port 80 on node B is taken");
    }
}
