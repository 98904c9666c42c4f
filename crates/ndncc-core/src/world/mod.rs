//! The world: arenas of nodes, faces, links and applications, the event queue, and the loop
//! that runs them. Components refer to each other by typed indices.
//!
//! A packet's life: an application pushes it to its node; the node's forwarder (CS, PIT, FIB,
//! strategy, router modules) picks faces; each face's egress queues it and transmits it
//! (serialisation at the link's bandwidth); after the propagation delay it arrives at the peer
//! face's node, and so on. Every crossing of a link is one packet hop.

mod app_samples;
pub mod builder;
mod face_samples;
mod ip;
mod link;
mod mcast;
mod ndn;
mod probe;
#[cfg(test)]
mod shortcut_tests;

use crate::ring::Ring;

pub use builder::{LinkParams, WorldBuilder};
pub use probe::{jain_index, FlowKey};

use crate::app::{AppCtx, Application, Conservation, IdlePolls};
use crate::event_queue::EventQueue;
use crate::face::{Face, FaceKind};
use crate::forwarder::strategy::AnyStrategy;
use crate::forwarder::{ContentStore, Fib, Pit};
use crate::ids::{AppId, FaceId, LinkId, NodeId};
use crate::module::{ModuleCtx, ModuleSlot, NodeAction};
use crate::names::NameTable;
use crate::packet::{Header, Packet};
use crate::recorder::{EntityId, MetricId, Recorder, SummaryRow};
use crate::rng::SimRng;
use crate::time::{SimDuration, SimTime};

/// Everything that can happen. Closed, so every handler is an exhaustive match.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// The transmitter of `face` finished a packet and may start the next.
    TxDone {
        face: FaceId,
    },
    /// The packet at the head of the flight of the link direction `from` (the transmitting
    /// face) arrives at the other end. Packets in flight wait in their link's own FIFO (they
    /// arrive in the order they left); the event queue holds the arrivals of its first few, at
    /// least the head's (see `World::transmit`).
    Arrive {
        from: FaceId,
    },
    /// The Interest shaper of `face` may release its head Interest.
    ShaperWake {
        face: FaceId,
    },
    AppStart {
        app: AppId,
    },
    AppStop {
        app: AppId,
    },
    /// A wake-up an application asked for; stale when `gen` is not the app's current one.
    AppWake {
        app: AppId,
        gen: u32,
    },
    /// Expire PIT entries of `node`.
    PitSweep {
        node: NodeId,
    },
    /// Run `on_tick` of router module `module` on `node`.
    ModuleTick {
        node: NodeId,
        module: u32,
    },
    /// A wake-up router module `module` of `node` asked for; stale unless `gen` is current.
    ModuleWake {
        node: NodeId,
        module: u32,
        gen: u32,
    },
    /// A wake-up the link service of `face` asked for; stale unless `gen` is current.
    LinkServiceWake {
        face: FaceId,
        gen: u32,
    },
    /// Record fixed-interval samples.
    Sample,
}

/// A node's part of one multicast group's tree.
#[derive(Clone, Debug, Default)]
pub struct McastRoute {
    /// The face towards the source (feedback goes up it); `None` on the source's node.
    pub upstream: Option<FaceId>,
    /// The faces Data is copied to: links down the tree and local receivers' app faces.
    pub downstream: Vec<FaceId>,
}

/// The component that acted last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Actor {
    None,
    Node(NodeId),
    App(AppId),
}

/// Something the node's forwarding must still do in the current event, in order.
#[derive(Clone, Copy, Debug)]
enum Work {
    /// A packet arrived on a face (from a link, or from an application).
    Receive(FaceId, Packet),
    /// A packet to put on a face, bypassing the forwarder (a router component sent it).
    Send(FaceId, Packet),
    /// A held Interest refused on a face.
    Refuse(FaceId, Packet, crate::packet::NackReason),
}

/// Node-level counters.
#[derive(Clone, Copy, Debug, Default)]
pub struct NodeCounters {
    pub cs_hits: u64,
    pub aggregated: u64,
    pub duplicates: u64,
    pub no_route: u64,
    pub unsolicited_data: u64,
    pub pit_expired: u64,
    /// IP packets with no route to their destination, or for a port nobody listens on.
    pub ip_unroutable: u64,
    /// Multicast packets for a group this node has no tree entry for.
    pub mcast_unroutable: u64,
}

pub struct Node {
    pub id: NodeId,
    pub name: String,
    pub faces: Vec<FaceId>,
    pub fib: Fib,
    pub pit: Pit,
    pub cs: Option<ContentStore>,
    pub strategy: AnyStrategy,
    pub modules: Vec<ModuleSlot>,
    /// IP routes: the face towards each destination node, by node index.
    pub ip_routes: Vec<Option<FaceId>>,
    /// Application faces by the port their IP application listens on.
    pub ports: Vec<(u16, FaceId)>,
    /// Multicast groups this node is a tree node of.
    pub mcast: Vec<(u32, McastRoute)>,
    /// Coarse clock: timers on this node fire only on the clock's edges, `clock_phase` plus
    /// multiples of this tick.
    pub clock_tick: Option<SimDuration>,
    /// Where the coarse clock's edges fall within a tick (below the tick; zero: on multiples).
    pub clock_phase: SimDuration,
    pub rng: SimRng,
    /// A `PitSweep` is scheduled for this time.
    pub pit_sweep_at: Option<SimTime>,
    pub counters: NodeCounters,
}

impl Node {
    /// When a timer asked for `t` actually fires on this node's clock.
    pub fn align(&self, t: SimTime) -> SimTime {
        match self.clock_tick {
            Some(tick) => t.ceil_to_edge(tick, self.clock_phase),
            None => t,
        }
    }
}

pub struct Link {
    pub id: LinkId,
    pub name: String,
    /// Face of endpoint a (transmits a→b) and of endpoint b (transmits b→a).
    pub faces: [FaceId; 2],
}

pub struct AppSlot {
    pub id: AppId,
    pub name: String,
    pub node: NodeId,
    pub face: FaceId,
    pub app: Box<dyn Application>,
    pub start: SimTime,
    pub stop: Option<SimTime>,
}

/// What waking an app takes, kept apart from its `AppSlot` in a small array of its own: with
/// many consumers most wake-ups are idle polls (see `IdlePolls`), which then read one cache
/// line here rather than the app's slot and its node's.
#[derive(Clone, Copy, Debug, Default)]
struct AppWaker {
    wake_at: Option<SimTime>,
    wake_gen: u32,
    /// The world ran idle polls since the app's last hook: hand it its poll clock back first.
    polled: bool,
    /// What the app promised as its last hook returned: wake-ups before `until` are idle polls,
    /// which the world runs itself.
    idle: Option<IdlePolls>,
    /// The clock tick of the app's node (zero: none) and its phase, copied as the run starts.
    tick: SimDuration,
    phase: SimDuration,
}

/// Counters of the whole run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunCounters {
    pub events: u64,
    /// Packets that crossed a link (lost packets do not count).
    pub packet_hops: u64,
}

struct FaceMetricIds {
    queue_packets: MetricId,
    queue_bytes: MetricId,
    bytes_sent: MetricId,
    drops: MetricId,
    marks: MetricId,
    shaper_len: MetricId,
}

pub struct World {
    pub names: NameTable,
    pub nodes: Vec<Node>,
    pub faces: Vec<Face>,
    pub links: Vec<Link>,
    pub apps: Vec<AppSlot>,
    pub recorder: Recorder,
    pub counters: RunCounters,
    queue: EventQueue<Event>,
    /// Take the shortcuts that change nothing recorded: run apps' promised idle polls here
    /// instead of waking the apps, repeat the last samples of apps none of whose hooks ran
    /// since, and prefetch what the next event reads in a large world (off only to test that
    /// they change nothing).
    shortcuts: bool,
    /// Idle polls run here so far.
    idle_polls_run: u64,
    end: SimTime,
    sample_interval: Option<SimDuration>,
    sampled_faces: Vec<(FaceId, EntityId)>,
    /// The recorder's entity of each sampled face, by face index (`None`: not sampled).
    sampled_entity: Vec<Option<EntityId>>,
    face_ids: FaceMetricIds,
    /// The last values sampled from each sampled face, and which faces changed since.
    face_samples: face_samples::FaceSamples,
    /// The rows each app's last sample recorded, and which apps ran a hook since.
    app_samples: app_samples::AppSamples,
    /// What nodes must still do in the current event, in order.
    work: Ring<Work>,
    /// Scratch buffers reused on the hot path.
    app_out: Vec<Packet>,
    actions: Vec<NodeAction>,
    /// Sojourn times per face and the flows each face carried, for the summary.
    probes: probe::Probes,
    /// Observer of every packet event (traces, tests); `None` costs one branch per event.
    tap_observer: Option<Box<dyn crate::tap::PacketTap>>,
    /// The component that acted last (named when the run stalls).
    last_actor: Actor,
    /// Set when one event handled too many packets: the run stops with this message.
    stalled: Option<String>,
    /// Events at one instant, or packets within one event, before the run is stalled.
    stall_limit: u64,
    dropped: Vec<Packet>,
    expired: Vec<(crate::packet::Name, crate::forwarder::PitEntry)>,
    started: bool,
    /// How to wake each app, by app index.
    wakers: Vec<AppWaker>,
    /// The nodes whose strategy or router modules may give samples, found as the run starts
    /// (strategies and modules are fixed by then): the others are not visited at each sample.
    sampled_nodes: Vec<NodeId>,
}

/// How a run ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum RunEnd {
    Finished,
    /// The progress callback asked to stop.
    Interrupted,
    /// Simulated time stopped advancing: too many events or packets at one instant (a zero-delay
    /// loop). The message says when and what was involved.
    Stalled(String),
    /// An engine invariant broke (an event scheduled in the past): a bug, with what happened.
    Broken(String),
}

/// The most events, or packets handled within one event, that may happen at one simulated
/// instant before the run is declared stalled. A busy real scenario has a few thousand at one
/// instant (a burst of Interests released together; a window is at most a million); five
/// million means time has stopped.
pub const STALL_LIMIT: u64 = 5_000_000;
/// The progress callback also runs every this many events, so a run can be stopped (Ctrl-C,
/// timeouts) even while simulated time does not advance.
pub const LIVENESS_EVENTS: u64 = 1 << 16;
/// ... and every this many packets handled, within one event or over several: a single
/// event's work can grow without bound (a window that doubles at every instant on one node),
/// and events that each carry a thousand packets reach the event count a thousand times too
/// late; neither may keep a run from being stopped.
pub const LIVENESS_WORK: u64 = 1 << 16;

/// Faces from which a run prefetches what the next event reads (`World::prefetch_next`). Below,
/// the faces, their flights and the PITs stay in the cache: `dumbbell-20` (82 faces) runs no
/// faster with it, and `dumbbell-1` (8) runs 3% more instructions.
const PREFETCH_FROM_FACES: usize = 256;

impl World {
    pub fn now(&self) -> SimTime {
        self.queue.now()
    }
    pub fn end_time(&self) -> SimTime {
        self.end
    }
    pub fn face_by_name(&self, name: &str) -> Option<FaceId> {
        self.faces.iter().find(|f| f.name == name).map(|f| f.id)
    }
    pub fn app_by_name(&self, name: &str) -> Option<AppId> {
        self.apps.iter().find(|a| a.name == name).map(|a| a.id)
    }
    /// Read every face afresh at each sample and panic if a face's values changed though it
    /// was not marked changed (a check for tests: the marks must cover every path).
    pub fn check_face_samples(&mut self) {
        self.face_samples.checking = true;
    }

    /// Declare the run stalled after `n` events at one instant, or packets within one event.
    pub fn set_stall_limit(&mut self, n: u64) {
        self.stall_limit = n.max(1);
    }
    /// Watch every packet event from now on (see `tap.rs`).
    pub fn set_tap(&mut self, tap: Box<dyn crate::tap::PacketTap>) {
        self.tap_observer = Some(tap);
    }

    #[inline]
    fn schedule(&mut self, t: SimTime, e: Event) {
        self.queue.schedule(t, e);
    }

    fn initialise(&mut self) {
        if self.started {
            return;
        }
        self.started = true;
        for i in 0..self.apps.len() {
            let (start, stop) = (self.apps[i].start, self.apps[i].stop);
            let id = AppId(i as u32);
            self.schedule(start, Event::AppStart { app: id });
            if let Some(s) = stop {
                self.schedule(s, Event::AppStop { app: id });
            }
        }
        for n in 0..self.nodes.len() {
            for m in 0..self.nodes[n].modules.len() {
                if let Some(iv) = self.nodes[n].modules[m].module.tick_interval() {
                    let t = self.nodes[n].align(SimTime::ZERO + iv);
                    self.schedule(t, Event::ModuleTick { node: NodeId(n as u32), module: m as u32 });
                }
            }
        }
        if self.sample_interval.is_some() {
            self.schedule(SimTime::ZERO, Event::Sample);
        }
        self.sampled_nodes =
            self.nodes.iter().filter(|n| n.strategy.may_sample() || !n.modules.is_empty()).map(|n| n.id).collect();
        self.wakers = self
            .apps
            .iter()
            .map(|a| {
                let n = &self.nodes[a.node.idx()];
                AppWaker { tick: n.clock_tick.unwrap_or_default(), phase: n.clock_phase, ..AppWaker::default() }
            })
            .collect();
    }

    /// Run until the end time, calling `progress(now)` about every `progress_every` of
    /// simulated time, every `LIVENESS_EVENTS` events and every `LIVENESS_WORK` packets handled;
    /// it returns false to interrupt.
    pub fn run(&mut self, progress_every: SimDuration, progress: &mut dyn FnMut(SimTime) -> bool) -> RunEnd {
        self.initialise();
        let step = if progress_every == SimDuration::ZERO { SimDuration::MAX } else { progress_every };
        let mut next_progress = SimTime::ZERO + step;
        let (mut instant, mut at_instant) = (SimTime::ZERO, 0u64);
        let prefetching = self.shortcuts && self.faces.len() >= PREFETCH_FROM_FACES;
        // Packets handled since the last liveness check.
        let mut work = 0u64;
        while let Some(t) = self.queue.peek_time() {
            if t > self.end {
                break;
            }
            if t >= next_progress
                || self.counters.events % LIVENESS_EVENTS == LIVENESS_EVENTS - 1
                || work >= LIVENESS_WORK
            {
                work = 0;
                if !progress(t) {
                    return RunEnd::Interrupted;
                }
                while next_progress <= t {
                    next_progress += step;
                }
            }
            if t == instant {
                at_instant += 1;
                if at_instant > self.stall_limit {
                    return RunEnd::Stalled(self.stall_report(t, "events"));
                }
            } else {
                (instant, at_instant) = (t, 0);
            }
            let Some((_, ev)) = self.queue.pop() else { break };
            if prefetching {
                self.prefetch_next();
            }
            self.counters.events += 1;
            self.handle(ev);
            // The packets the event set moving, a slice at a time, with a liveness check between
            // slices (the order of the work is the same, sliced or not).
            let mut done = 0u64;
            while !self.drain_work(&mut done) {
                if !progress(t) {
                    return RunEnd::Interrupted;
                }
            }
            work += done;
            if let Some(why) = self.stalled.take() {
                return RunEnd::Stalled(why);
            }
            if let Some((at, when)) = self.queue.past_event() {
                return RunEnd::Broken(format!("an event was scheduled at {at}, in the past of {when}"));
            }
        }
        progress(self.end);
        RunEnd::Finished
    }

    /// Ask the processor for the first memory the next event reads, while this one runs: the
    /// packet an arrival takes off its link and the PIT and FIB tables of the node it arrives
    /// at, the waker of an app, the oldest expiry record of a PIT. In a large world these are
    /// rarely in the cache: a link's flight is read once per arrival, and a thousand links and
    /// nodes take turns. (The packet: `tree-1111` runs 6% faster per hop, `grid-32` 4.5%,
    /// `dumbbell-1000` 1.5%. The node's tables, besides: 3.5%, 3% and 2.8%.) Small worlds
    /// stay in the cache and skip it (`PREFETCH_FROM_FACES`): the look ahead costs some 50
    /// instructions an event.
    #[inline(always)]
    fn prefetch_next(&self) {
        use crate::prefetch::prefetch;
        match self.queue.peek_event() {
            Some(Event::Arrive { from }) => {
                let Some(f) = self.faces.get(from.idx()) else { return };
                if let Some(p) = f.egress.as_ref().and_then(|e| e.in_flight.front()) {
                    prefetch(p);
                }
                // The node it arrives at reads its PIT and FIB first, and in a large world that
                // node was last visited long ago.
                if let FaceKind::Link { peer_node, .. } = f.kind {
                    if let Some(node) = self.nodes.get(peer_node.idx()) {
                        prefetch(&node.pit);
                        prefetch(&node.fib);
                    }
                }
            }
            Some(Event::AppWake { app, .. }) => {
                if let Some(w) = self.wakers.get(app.idx()) {
                    prefetch(w);
                }
            }
            Some(Event::PitSweep { node }) => {
                if let Some(r) = self.nodes.get(node.idx()).and_then(|n| n.pit.oldest_record()) {
                    prefetch(r);
                }
            }
            _ => {}
        }
    }

    /// What to tell the user when simulated time stops at `t`.
    fn stall_report(&self, t: SimTime, what: &str) -> String {
        let actor = match self.last_actor {
            Actor::Node(n) => format!("the last packet was handled by node {}", self.nodes[n.idx()].name),
            Actor::App(a) => {
                let slot = &self.apps[a.idx()];
                format!("the last was app {} on node {}", slot.name, self.nodes[slot.node.idx()].name)
            }
            Actor::None => "no component was active".to_string(),
        };
        format!(
            "simulated time stopped at {:.6} s: over {} {what} at that instant ({actor}); a \
             zero-delay loop, such as a consumer whose Interests are answered or refused at once on its \
             own node and resent at once",
            t.as_secs_f64(),
            self.stall_limit
        )
    }

    fn handle(&mut self, ev: Event) {
        match ev {
            Event::TxDone { face } => self.on_tx_done(face),
            Event::Arrive { from } => self.on_arrive(from),
            Event::ShaperWake { face } => self.on_shaper_wake(face),
            Event::AppStart { app } => self.call_app(app, |a, ctx| a.on_start(ctx)),
            Event::AppStop { app } => self.call_app(app, |a, ctx| a.on_stop(ctx)),
            Event::AppWake { app, gen } => {
                let waker = &mut self.wakers[app.idx()];
                if waker.wake_gen == gen {
                    waker.wake_at = None;
                    let now = self.queue.now();
                    match waker.idle.as_mut().filter(|idle| self.shortcuts && now < idle.until) {
                        Some(idle) => {
                            // What the app would do at this wake-up, done without reading its state.
                            let next = idle.poll(now);
                            waker.polled = true;
                            self.idle_polls_run += 1;
                            self.last_actor = Actor::App(app);
                            self.schedule_app_wake(app, next);
                        }
                        None => self.call_app(app, |a, ctx| a.on_wake(ctx)),
                    }
                }
            }
            Event::PitSweep { node } => self.on_pit_sweep(node),
            Event::ModuleTick { node, module } => self.on_module_tick(node, module),
            Event::ModuleWake { node, module, gen } => {
                let slot = &mut self.nodes[node.idx()].modules[module as usize];
                if slot.wake_gen == gen {
                    slot.wake_at = None;
                    self.call_module(node, module as usize, |m, ctx| m.on_wake(ctx));
                }
            }
            Event::LinkServiceWake { face, gen } => self.on_link_service_wake(face, gen),
            Event::Sample => self.on_sample(),
        }
    }

    /// Run an application hook, queue its packets for its node and schedule its wake-up. The
    /// packets are processed by `drain_work` after the current event, never recursively.
    fn call_app(&mut self, app: AppId, f: impl FnOnce(&mut dyn Application, &mut AppCtx)) {
        let now = self.now();
        self.last_actor = Actor::App(app);
        let mut out = std::mem::take(&mut self.app_out);
        let requested = {
            let (slot, waker) = (&mut self.apps[app.idx()], &mut self.wakers[app.idx()]);
            if std::mem::take(&mut waker.polled) {
                if let Some(idle) = waker.idle {
                    slot.app.resume_polls(idle.next_poll);
                }
            }
            self.app_samples.mark(app.idx());
            let mut ctx = AppCtx::new(now, &mut out, &mut self.recorder).with_names(&self.names);
            f(slot.app.as_mut(), &mut ctx);
            waker.idle = ctx.promised_idle_polls();
            ctx.requested_wake()
        };
        let face = self.apps[app.idx()].face;
        for p in out.drain(..) {
            self.work.push_back(Work::Receive(face, p));
        }
        self.app_out = out;
        if let Some(t) = requested {
            self.schedule_app_wake(app, t);
        }
    }

    /// Wake `app` at `t` (on its node's clock), unless it is to be woken sooner already.
    fn schedule_app_wake(&mut self, app: AppId, t: SimTime) {
        let now = self.queue.now();
        let waker = &mut self.wakers[app.idx()];
        // As `Node::align` on the app's node.
        let t = t.max(now).ceil_to_edge(waker.tick, waker.phase);
        if waker.wake_at.is_none_or(|w| t < w) {
            waker.wake_gen = waker.wake_gen.wrapping_add(1);
            waker.wake_at = Some(t);
            let gen = waker.wake_gen;
            self.schedule(t, Event::AppWake { app, gen });
        }
    }

    /// Run `f` on every router module of `node` in order, with its context, until it returns
    /// `Some`; then carry out what the modules asked for. The node must have modules.
    fn each_module<R>(
        &mut self,
        node: NodeId,
        mut f: impl FnMut(&mut dyn crate::module::RouterModule, &mut ModuleCtx) -> Option<R>,
    ) -> Option<R> {
        let now = self.now();
        let mut actions = std::mem::take(&mut self.actions);
        let mut wakes: smallvec::SmallVec<[(usize, SimTime); 2]> = smallvec::SmallVec::new();
        let mut result = None;
        {
            let n = &mut self.nodes[node.idx()];
            for (i, slot) in n.modules.iter_mut().enumerate() {
                let mut ctx = ModuleCtx::new(now, node, &n.faces, &mut self.faces, &mut slot.rng, &mut actions);
                result = f(slot.module.as_mut(), &mut ctx);
                if let Some(t) = ctx.requested_wake() {
                    wakes.push((i, t));
                }
                if result.is_some() {
                    break;
                }
            }
        }
        for (i, t) in wakes {
            self.module_wake_at(node, i, t);
        }
        self.apply_actions(&mut actions);
        self.actions = actions;
        result
    }

    /// Run one hook of module `module` of `node` and carry out what it asked for.
    fn call_module(
        &mut self,
        node: NodeId,
        module: usize,
        f: impl FnOnce(&mut dyn crate::module::RouterModule, &mut ModuleCtx),
    ) {
        let now = self.now();
        let mut actions = std::mem::take(&mut self.actions);
        let wake = {
            let n = &mut self.nodes[node.idx()];
            let slot = &mut n.modules[module];
            let mut ctx = ModuleCtx::new(now, node, &n.faces, &mut self.faces, &mut slot.rng, &mut actions);
            f(slot.module.as_mut(), &mut ctx);
            ctx.requested_wake()
        };
        if let Some(t) = wake {
            self.module_wake_at(node, module, t);
        }
        self.apply_actions(&mut actions);
        self.actions = actions;
    }

    fn module_wake_at(&mut self, node: NodeId, module: usize, t: SimTime) {
        let now = self.now();
        let n = &mut self.nodes[node.idx()];
        let t = n.align(t.max(now));
        let slot = &mut n.modules[module];
        if slot.wake_at.is_none_or(|w| t < w) {
            slot.wake_gen = slot.wake_gen.wrapping_add(1);
            slot.wake_at = Some(t);
            let gen = slot.wake_gen;
            self.schedule(t, Event::ModuleWake { node, module: module as u32, gen });
        }
    }

    /// Queue what router components asked for, to be done after the current step.
    fn apply_actions(&mut self, actions: &mut Vec<NodeAction>) {
        for a in actions.drain(..) {
            self.work.push_back(match a {
                NodeAction::Send { face, packet } => Work::Send(face, packet),
                NodeAction::Receive { face, packet } => Work::Receive(face, packet),
                NodeAction::Refuse { face, interest, reason } => Work::Refuse(face, interest, reason),
            });
        }
    }

    /// Handle the queued work of the current event until none is left (true), or for
    /// `LIVENESS_WORK` packets (false: call again after a liveness check). `done` counts the
    /// packets this event has handled over every call, for the stall limit.
    fn drain_work(&mut self, done: &mut u64) -> bool {
        let mut slice = 0u64;
        while let Some(w) = self.work.pop_front() {
            *done += 1;
            if *done > self.stall_limit {
                self.work.clear();
                self.stalled = Some(self.stall_report(self.now(), "packets handled in one event"));
                return true;
            }
            match w {
                Work::Receive(face, mut p) => self.receive(face, &mut p),
                Work::Send(face, mut p) => self.send_on_face(face, &mut p),
                Work::Refuse(face, p, reason) => self.refuse_held_interest(face, p, reason),
            }
            slice += 1;
            if slice == LIVENESS_WORK && !self.work.is_empty() {
                return false;
            }
        }
        true
    }

    /// A node receives `packet` on `in_face` (from a link, an application or one of its own
    /// components): the handler of its protocol takes it.
    fn receive(&mut self, in_face: FaceId, packet: &mut Packet) {
        let node = self.faces[in_face.idx()].node;
        self.last_actor = Actor::Node(node);
        packet.hops = packet.hops.saturating_add(1);
        match packet.header {
            Header::Ndn(_) => self.ndn_receive(node, in_face, packet),
            Header::Ip(_) => self.ip_receive(node, in_face, *packet),
            Header::Mcast(_) => self.mcast_receive(node, in_face, *packet),
            // Link-layer frames belong to link services, which absorb them on arrival; one that
            // reaches a node (its face has no service) has no one to read it.
            Header::LinkAck => {}
        }
    }

    /// Let the modules of `node` see a non-NDN packet arriving on `face`; false if one absorbed it.
    fn modules_take_in(&mut self, node: NodeId, face: FaceId, packet: &mut Packet) -> bool {
        if self.nodes[node.idx()].modules.is_empty() {
            return true;
        }
        let absorbed = self.each_module(node, |m, ctx| {
            (m.on_packet_in(ctx, face, packet) == crate::module::Intake::Absorb).then_some(())
        });
        absorbed.is_none()
    }

    /// Send a non-NDN packet the node forwards on `face`, after the modules have seen it.
    fn forward_packet(&mut self, node: NodeId, face: FaceId, mut packet: Packet) {
        if !self.nodes[node.idx()].modules.is_empty() {
            self.each_module(node, |m, ctx| {
                m.on_packet_out(ctx, face, &mut packet);
                None::<()>
            });
        }
        self.send_on_face(face, &mut packet);
    }

    fn on_module_tick(&mut self, node: NodeId, module: u32) {
        let now = self.now();
        self.call_module(node, module as usize, |m, ctx| m.on_tick(ctx));
        let n = &self.nodes[node.idx()];
        let next = n.modules[module as usize].module.tick_interval().map(|iv| n.align(now + iv));
        if let Some(t) = next {
            self.schedule(t.max(now + SimDuration(1)), Event::ModuleTick { node, module });
        }
        // A module may have changed a shaper's rate: let the shapers re-plan.
        for i in 0..self.nodes[node.idx()].faces.len() {
            let f = self.nodes[node.idx()].faces[i];
            self.kick_shaper(f);
        }
    }

    fn on_sample(&mut self) {
        let now = self.now();
        self.app_samples.begin();
        for (i, slot) in self.apps.iter().enumerate() {
            if self.shortcuts && self.app_samples.repeat(i, now, &mut self.recorder) {
                continue;
            }
            let before = self.recorder.series.len();
            slot.app.sample(now, &mut self.recorder);
            let rows = self.recorder.series.len() - before;
            let keep = self.shortcuts && slot.app.samples_change_only_in_hooks();
            self.app_samples.sampled(i, rows, keep, &self.recorder);
        }
        self.app_samples.end();
        let ids = &self.face_ids;
        let metrics = [ids.queue_packets, ids.queue_bytes, ids.bytes_sent, ids.drops, ids.marks];
        for (at, &(fid, ent)) in self.sampled_faces.iter().enumerate() {
            let unchanged = self.face_samples.unchanged(at, fid);
            let rows = |values: [f64; 5]| std::array::from_fn::<_, 5, _>(|i| (ent, metrics[i], values[i]));
            if let (Some(values), false) = (unchanged, self.face_samples.checking) {
                self.recorder.face_samples(now, &rows(values));
                continue;
            }
            let f = &self.faces[fid.idx()];
            let Some(eg) = &f.egress else { continue };
            let values = [
                eg.queue_packets() as f64,
                crate::queue::QueueDisc::len_bytes(&eg.queue) as f64,
                f.counters.bytes_sent as f64,
                f.counters.drops() as f64,
                f.counters.marks as f64,
            ];
            if let Some(kept) = unchanged {
                assert_eq!(kept, values, "face {} changed without a mark at {now}", f.name);
            }
            self.recorder.face_samples(now, &rows(values));
            let cacheable = eg.shaper.is_none() && f.link_service.is_none();
            self.face_samples.read(at, fid, values, cacheable);
            if eg.shaper.is_some() {
                self.recorder.face_sample(now, ent, self.face_ids.shaper_len, eg.shaper_len() as f64);
            }
            if let Some(ls) = &f.link_service {
                let mut out = Vec::new();
                ls.service.sample(&mut out);
                for (metric, value) in out {
                    let mid = self.recorder.metric(metric);
                    self.recorder.face_sample(now, ent, mid, value);
                }
            }
        }
        self.sample_modules(now);
        if let Some(iv) = self.sample_interval {
            let next = now + iv;
            if next <= self.end {
                self.schedule(next, Event::Sample);
            }
        }
    }

    /// Strategies' and router modules' samples: per-face values go to the face table (for the
    /// faces selected for recording), node-level values to the series table under the node's name.
    fn sample_modules(&mut self, now: SimTime) {
        let mut out = Vec::new();
        for &id in &self.sampled_nodes {
            let n = &self.nodes[id.idx()];
            out.clear();
            n.strategy.get_ref().sample(&mut out);
            for m in &n.modules {
                m.module.sample(&mut out);
            }
            for &(metric, face, value) in &out {
                let mid = self.recorder.metric(metric);
                match face {
                    Some(f) => {
                        if let Some(ent) = self.sampled_entity.get(f.idx()).copied().flatten() {
                            self.recorder.face_sample(now, ent, mid, value);
                        }
                    }
                    None => {
                        let ent = self.recorder.entity(&n.name);
                        self.recorder.sample(now, ent, mid, value);
                    }
                }
            }
        }
    }

    /// Consumers' Interest accounting, by app name.
    pub fn conservation(&self) -> Vec<(String, Conservation)> {
        self.apps.iter().filter_map(|a| a.app.conservation().map(|c| (a.name.clone(), c))).collect()
    }

    /// The per-run summary: apps, faces with traffic, nodes, run.
    pub fn summary(&self) -> Vec<SummaryRow> {
        let mut out = Vec::new();
        for a in &self.apps {
            a.app.summary(self.end, &mut out);
        }
        let secs = self.end.as_secs_f64();
        for f in &self.faces {
            let Some(eg) = &f.egress else { continue };
            let c = &f.counters;
            if c.packets_sent == 0 && c.drops() == 0 {
                continue;
            }
            let mut row = |m: &str, v: f64, u: &str| out.push(SummaryRow::new(&f.name, "face", m, v, u));
            row("packets_sent", c.packets_sent as f64, "packets");
            row("bytes_sent", c.bytes_sent as f64, "bytes");
            row("data_sent", c.data_sent as f64, "packets");
            row("interests_sent", c.interests_sent as f64, "packets");
            row("drops_queue", c.drops_queue as f64, "packets");
            row("drops_aqm", c.drops_aqm as f64, "packets");
            row("drops_shaper", c.drops_shaper as f64, "packets");
            row("drops_loss", c.drops_loss as f64, "packets");
            row("drops_underlay", c.drops_underlay as f64, "packets");
            row("marks", c.marks as f64, "packets");
            row("max_queue_packets", c.max_queue_packets as f64, "packets");
            // Bytes of the other protocols appear only on faces that carried them.
            for (m, v) in [("ip_bytes_sent", c.ip_bytes_sent), ("mcast_bytes_sent", c.mcast_bytes_sent)] {
                if v > 0 {
                    row(m, v as f64, "bytes");
                }
            }
            // A link service's counters at the end of the run (its last sample).
            if let Some(ls) = &f.link_service {
                let mut vals = Vec::new();
                ls.service.sample(&mut vals);
                for (m, v) in vals {
                    row(m, v, if m.ends_with("_s") { "s" } else { "count" });
                }
            }
            if secs > 0.0 {
                row("utilisation", c.bytes_sent as f64 * 8.0 / (eg.bandwidth_bps as f64 * secs), "ratio");
            }
        }
        self.probes.face_rows(&self.faces, &self.apps, &mut out);
        for n in &self.nodes {
            let c = &n.counters;
            let mut row = |m: &str, v: f64| out.push(SummaryRow::new(&n.name, "node", m, v, "packets"));
            row("cs_hits", c.cs_hits as f64);
            row("aggregated", c.aggregated as f64);
            row("duplicates", c.duplicates as f64);
            row("no_route", c.no_route as f64);
            row("unsolicited_data", c.unsolicited_data as f64);
            row("pit_expired", c.pit_expired as f64);
            // Rows of the other protocols appear only where they happened.
            for (m, v) in [("ip_unroutable", c.ip_unroutable), ("mcast_unroutable", c.mcast_unroutable)] {
                if v > 0 {
                    row(m, v as f64);
                }
            }
        }
        // Fairness across the flows that report a throughput (consumers and TCP senders):
        // each one's share of their total, and Jain's index (Σx)² / (n·Σx²).
        let flows: Vec<(String, f64)> = out
            .iter()
            .filter(|r| (r.kind == "consumer" || r.kind == "tcp") && r.metric == "throughput_kbps")
            .map(|r| (r.entity.clone(), r.value))
            .collect();
        if flows.len() >= 2 {
            let total: f64 = flows.iter().map(|(_, x)| x).sum();
            let squares: f64 = flows.iter().map(|(_, x)| x * x).sum();
            if total > 0.0 {
                for (name, x) in &flows {
                    out.push(SummaryRow::new(name, "flow", "share", x / total, "ratio"));
                }
                let jain = total * total / (flows.len() as f64 * squares);
                out.push(SummaryRow::new("run", "run", "jain_index", jain, "ratio"));
            }
        }
        let ok = self.conservation().iter().all(|(_, c)| c.holds());
        out.push(SummaryRow::new("run", "run", "events", self.counters.events as f64, "events"));
        out.push(SummaryRow::new("run", "run", "packet_hops", self.counters.packet_hops as f64, "hops"));
        out.push(SummaryRow::new("run", "run", "sim_seconds", secs, "s"));
        out.push(SummaryRow::new("run", "run", "conservation_ok", f64::from(u8::from(ok)), "bool"));
        out
    }
}
