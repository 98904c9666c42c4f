//! The world: arenas of nodes, faces, links and applications, the event queue, and the loop
//! that runs them. Components refer to each other by typed indices.
//!
//! A packet's life: an application pushes it to its node; the node's forwarder (CS, PIT, FIB,
//! strategy, router modules) picks faces; each face's egress queues it and transmits it
//! (serialisation at the link's bandwidth); after the propagation delay it arrives at the peer
//! face's node, and so on. Every crossing of a link is one packet hop.

pub mod actions;
mod app_samples;
pub mod builder;
mod dynamics;
mod effects;
mod engine;
mod face_samples;
mod ip;
pub mod ip_routes;
mod link;
mod mcast;
pub mod ndn;
mod network;
mod probe;
mod realtime;
mod sampling;
#[cfg(test)]
mod shortcut_tests;
mod tick_layout;

pub use builder::{BuilderError, LinkParams, UnderlayParams, WorldBuilder};
pub use effects::Effects;
pub use network::{AppSlot, Link, McastRoute, Network, Node, NodeCounters, NodeIp};
pub use probe::{jain_index, FlowKey};
pub use realtime::{Step, StepState};

use crate::app::Conservation;
use crate::ids::{AppId, FaceId, NodeId};
use crate::recorder::{Recorder, SummaryRow, Unit};
use crate::time::{SimDuration, SimTime};
use engine::{AppWaker, Engine, Poll};

/// An arrival's packet slot and far node, in one word: a transmission writes it from one
/// register (as two fields, the node was kept on the stack and the event took 11 more
/// instructions to write).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ArrivalHint(u64);

impl ArrivalHint {
    #[inline(always)]
    pub fn new(slot: u32, to: NodeId) -> ArrivalHint {
        ArrivalHint(u64::from(slot) | u64::from(to.0) << 32)
    }
    /// The packet's slot in the pool of packets on the wire. (This cast and the one below
    /// take back exactly the halves `new` put together.)
    #[inline(always)]
    pub fn slot(self) -> u32 {
        self.0 as u32
    }
    /// The node the packet arrives at.
    #[inline(always)]
    pub fn to(self) -> NodeId {
        NodeId((self.0 >> 32) as u32)
    }
}

/// Everything that can happen. Closed, so every handler is an exhaustive match.
#[derive(Clone, Copy, Debug)]
pub enum Event {
    /// The transmitter of `face` finished a packet and may start the next.
    TxDone {
        face: FaceId,
    },
    /// The packet at the head of the flight of the link direction `from` (the transmitting
    /// face) arrives at the other end. Packets in flight wait in their link's flight, a FIFO
    /// list through the network's pool of packets on the wire (they arrive in the order they
    /// left); the event queue holds the arrivals of its first few, at least the head's (see
    /// `Engine::transmit`).
    ///
    /// `hint` is where the look ahead finds that packet (its slot in the pool) and the node it
    /// arrives at, so that it need not read the face first (`World::prefetch_next`): written as
    /// the arrival is scheduled and read for nothing else.
    Arrive {
        from: FaceId,
        hint: ArrivalHint,
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
    /// Run scheduled action `index` (a scenario's `[[events]]`).
    Scheduled {
        index: u32,
    },
    /// Compute the routes again, routing having converged after a link or node changed.
    Reroute,
}

/// Counters of the whole run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunCounters {
    pub events: u64,
    /// Packets that crossed a link (lost packets do not count).
    pub packet_hops: u64,
}

/// A network and the engine that runs it.
pub struct World {
    /// Nodes, faces, links, applications and names.
    pub net: Network,
    engine: Engine,
    /// The first events are scheduled (on the first `run`).
    started: bool,
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
        self.engine.now()
    }
    pub fn end_time(&self) -> SimTime {
        self.engine.end
    }
    pub fn face_by_name(&self, name: &str) -> Option<FaceId> {
        self.net.face_by_name(name)
    }
    /// The recorded samples so far.
    pub fn recorder(&self) -> &Recorder {
        &self.engine.recorder
    }
    /// The recorder, to adjust what it keeps before a run (its row limit, say).
    pub fn recorder_mut(&mut self) -> &mut Recorder {
        &mut self.engine.recorder
    }
    /// The recorded samples, taken out of the world (which keeps an empty recorder).
    pub fn take_recorder(&mut self) -> Recorder {
        std::mem::take(&mut self.engine.recorder)
    }
    /// Events handled and packet hops so far.
    pub fn counters(&self) -> RunCounters {
        self.engine.counters
    }
    /// Read every face afresh at each sample and panic if a face's values changed though it
    /// was not marked changed (a check for tests: the marks must cover every path).
    pub fn check_face_samples(&mut self) {
        self.engine.sampling.face_samples.checking = true;
    }

    /// Declare the run stalled after `n` events at one instant, or packets within one event.
    pub fn set_stall_limit(&mut self, n: u64) {
        self.engine.watchdog.stall_limit = n.max(1);
    }
    /// Watch every packet event from now on (see `tap.rs`).
    pub fn set_tap(&mut self, tap: Box<dyn crate::tap::PacketTap>) {
        self.engine.tap_observer = Some(tap);
    }

    fn initialise(&mut self) {
        if self.started {
            return;
        }
        self.started = true;
        self.engine.probes.size_for(2 * self.net.links.len(), self.net.apps.len());
        for i in 0..self.net.apps.len() {
            let (start, stop) = (self.net.apps[i].start, self.net.apps[i].stop);
            let id = AppId(i as u32);
            self.engine.schedule(start, Event::AppStart { app: id });
            if let Some(s) = stop {
                self.engine.schedule(s, Event::AppStop { app: id });
            }
        }
        for n in 0..self.net.nodes.len() {
            for m in 0..self.net.nodes[n].modules.len() {
                if let Some(iv) = self.net.nodes[n].modules[m].module.tick_interval() {
                    let t = self.net.nodes[n].align(SimTime::ZERO + iv);
                    self.engine.schedule(t, Event::ModuleTick { node: NodeId(n as u32), module: m as u32 });
                }
            }
        }
        if self.engine.sampling.interval.is_some() {
            self.engine.schedule(SimTime::ZERO, Event::Sample);
        }
        // Scheduled actions after everything else at their instant, in the order given.
        let times: Vec<SimTime> =
            self.engine.topology.as_ref().map(|t| t.actions.iter().map(|a| a.0).collect()).unwrap_or_default();
        for (i, t) in times.into_iter().enumerate() {
            let index = u32::try_from(i).unwrap_or(u32::MAX);
            self.engine.schedule(t, Event::Scheduled { index });
        }
        self.engine.sampling.nodes =
            self.net.nodes.iter().filter(|n| n.strategy.may_sample() || !n.modules.is_empty()).map(|n| n.id).collect();
        self.engine.wakers = vec![AppWaker::new(); self.net.apps.len()];
        let nodes = &self.net.nodes;
        self.engine.clocks = if nodes.iter().any(|n| n.clock_tick > SimDuration::ZERO) {
            self.net.apps.iter().map(|a| &nodes[a.node.idx()]).map(|n| (n.clock_tick, n.clock_phase)).collect()
        } else {
            Vec::new()
        };
    }

    /// Run until the end time, calling `progress(now)` about every `progress_every` of
    /// simulated time, every `LIVENESS_EVENTS` events and every `LIVENESS_WORK` packets handled;
    /// it returns false to interrupt.
    pub fn run(&mut self, progress_every: SimDuration, progress: &mut dyn FnMut(SimTime) -> bool) -> RunEnd {
        self.initialise();
        let step = if progress_every == SimDuration::ZERO { SimDuration::MAX } else { progress_every };
        let mut next_progress = SimTime::ZERO + step;
        let (mut instant, mut at_instant) = (SimTime::ZERO, 0u64);
        let prefetching = self.engine.shortcuts && self.net.faces.len() >= PREFETCH_FROM_FACES;
        // Packets handled since the last liveness check.
        let mut work = 0u64;
        while let Some(t) = self.engine.queue.peek_time() {
            if t > self.engine.end {
                break;
            }
            if t >= next_progress
                || self.engine.counters.events % LIVENESS_EVENTS == LIVENESS_EVENTS - 1
                || work >= LIVENESS_WORK
            {
                work = 0;
                if !progress(t) {
                    return RunEnd::Interrupted;
                }
                if prefetching {
                    self.net.update_bucket_prefetch(self.engine.prefetch_buckets_above);
                }
                while next_progress <= t {
                    next_progress += step;
                }
            }
            if t == instant {
                at_instant += 1;
                if at_instant > self.engine.watchdog.stall_limit {
                    return RunEnd::Stalled(self.engine.stall_report(&self.net, t, "events"));
                }
            } else {
                (instant, at_instant) = (t, 0);
            }
            let Some((_, ev)) = self.engine.queue.pop() else { break };
            if prefetching {
                self.prefetch_next();
            }
            self.engine.counters.events += 1;
            match ev {
                // Most events of a world of many consumers: inline, and they set no work going.
                Event::AppWake { app, gen } if self.engine.run_idle_poll(app, gen) => {
                    if self.engine.shortcuts {
                        (instant, at_instant) = self.run_idle_polls((instant, at_instant), next_progress, work);
                    }
                    continue;
                }
                _ => self.engine.handle(&mut self.net, ev),
            }
            // The packets the event set moving, a slice at a time, with a liveness check between
            // slices (the order of the work is the same, sliced or not).
            let mut done = 0u64;
            while !self.engine.drain_work(&mut self.net, &mut done) {
                if !progress(t) {
                    return RunEnd::Interrupted;
                }
            }
            work += done;
            if let Some(why) = self.engine.watchdog.stalled.take() {
                return RunEnd::Stalled(why);
            }
            if let Some((at, when)) = self.engine.queue.past_event() {
                return RunEnd::Broken(format!("an event was scheduled at {at}, in the past of {when}"));
            }
        }
        progress(self.engine.end);
        RunEnd::Finished
    }

    /// Run the idle polls that come next, straight off the front of their lane: the polls of
    /// many consumers with the same period wait in one lane in the order they fall due, each
    /// schedules the next in the same lane, and taken as a run (`EventQueue::open_run`) a poll
    /// costs neither the winner tree's updates nor the loop's look at the next event. The
    /// run stops before anything the loop would do otherwise: an event that is not an idle
    /// poll, the end, a progress or liveness call, the stall limit. The events, their order
    /// and every count are those of the loop.
    ///
    /// `instant` is the time of the last event and how many came before it at that time, as
    /// the loop counts them; it returns them as they stand after the polls. (Out of line: in
    /// the loop it took registers from every other event.)
    #[inline(never)]
    fn run_idle_polls(&mut self, instant: (SimTime, u64), next_progress: SimTime, work: u64) -> (SimTime, u64) {
        let engine = &mut self.engine;
        let (mut instant, mut at_instant) = instant;
        if work >= LIVENESS_WORK {
            return (instant, at_instant);
        }
        let Some(run) = engine.queue.open_run() else { return (instant, at_instant) };
        // The loop's checks, made once: its progress call falls at the first event at or past
        // `next_progress` (above zero) and its liveness call at the first event count of
        // `LIVENESS_EVENTS - 1` modulo `LIVENESS_EVENTS` (a power of two) from here.
        let until = engine.end.min(SimTime(next_progress.0.saturating_sub(1)));
        let (before, liveness) = (engine.counters.events, engine.counters.events | (LIVENESS_EVENTS - 1));
        // A successor the run's lane does not take, scheduled once the run is closed.
        let mut elsewhere = None;
        while let Some((t, Event::AppWake { app, gen })) = engine.queue.run_front(&run, until) {
            if engine.counters.events == liveness {
                break;
            }
            let at = if t == instant { at_instant + 1 } else { 0 };
            if at > engine.watchdog.stall_limit {
                break;
            }
            let next = match engine.idle_poll(app, gen, t) {
                Poll::NotIdle => break,
                Poll::Done => None,
                Poll::Next(at, gen) => Some((at, Event::AppWake { app, gen })),
            };
            (instant, at_instant) = (t, at);
            engine.counters.events += 1;
            match next {
                None => engine.queue.run_pop(&run),
                Some((at, ev)) if !engine.queue.run_pop_and_schedule(&run, t, at, ev) => {
                    elsewhere = Some((at, ev));
                    break;
                }
                Some(_) => {}
            }
        }
        engine.queue.close_run(run);
        if let Some((at, ev)) = elsewhere {
            engine.schedule(at, ev);
        }
        engine.idle_polls_in_runs += engine.counters.events - before;
        (instant, at_instant)
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
        match self.engine.queue.peek_event() {
            Some(&Event::Arrive { from, hint }) => {
                let (slot, to) = (hint.slot(), hint.to());
                // The face's first line (its kind and flight, all the arrival reads of it), its
                // packet and the node it arrives at, all at once: each found from the event
                // alone, none waits for another.
                if let Some(f) = self.net.faces.get(from.idx()) {
                    prefetch(&f.kind);
                }
                let packet = self.net.flights.slot(slot);
                if let Some(p) = packet {
                    prefetch(p);
                }
                // The node it arrives at reads its PIT and FIB first, and in a large world that
                // node was last visited long ago.
                if let Some(node) = self.net.nodes.get(to.idx()) {
                    prefetch(&node.pit);
                    prefetch(&node.fib);
                    // And, in a PIT that hashes while such tables are large, the bucket of the
                    // packet's name. This reads the packet and the node, whose loads were only
                    // just asked for, and waits for them here rather than in the event; the
                    // bucket's then overlaps this one. (Where the tables stay in the cache that
                    // wait bought nothing: `tree-1111` and `dumbbell-1000` took 2% longer;
                    // `Network::prefetch_bucket_at`.)
                    if self.net.prefetch_bucket_at(to) {
                        if let Some(p) = packet {
                            prefetch_pit_bucket(&p.packet, node);
                        }
                    }
                }
            }
            Some(Event::AppWake { app, .. }) => {
                if let Some(w) = self.engine.wakers.get(app.idx()) {
                    prefetch(w);
                }
            }
            Some(Event::PitSweep { node }) => {
                if let Some(r) = self.net.nodes.get(node.idx()).and_then(|n| n.pit.oldest_record()) {
                    prefetch(r);
                }
            }
            _ => {}
        }
    }

    /// Consumers' Interest accounting, by app name.
    pub fn conservation(&self) -> Vec<(String, Conservation)> {
        self.net.apps.iter().filter_map(|a| a.app.conservation().map(|c| (a.name.to_string(), c))).collect()
    }

    /// The per-run summary: apps, faces with traffic, nodes, run.
    pub fn summary(&self) -> Vec<SummaryRow> {
        let mut out = Vec::new();
        for a in &self.net.apps {
            a.app.summary(self.engine.end, &mut out);
        }
        let secs = self.engine.end.as_secs_f64();
        for (f, name) in self.net.faces.iter().zip(&self.net.face_names) {
            let Some(eg) = &f.egress else { continue };
            let c = &f.counters;
            if c.packets_sent == 0 && c.drops() == 0 {
                continue;
            }
            let l = c.losses();
            let mut row = |m: &str, v: f64, u: Unit| out.push(SummaryRow::new(name, "face", m, v, u));
            row("packets_sent", c.packets_sent as f64, Unit::Packets);
            row("bytes_sent", c.bytes_sent as f64, Unit::Bytes);
            row("data_sent", c.data_sent as f64, Unit::Packets);
            row("interests_sent", c.interests_sent as f64, Unit::Packets);
            row("drops_queue", l.drops_queue as f64, Unit::Packets);
            row("drops_aqm", l.drops_aqm as f64, Unit::Packets);
            row("drops_shaper", l.drops_shaper as f64, Unit::Packets);
            row("drops_loss", l.drops_loss as f64, Unit::Packets);
            row("drops_underlay", l.drops_underlay as f64, Unit::Packets);
            row("marks", l.marks as f64, Unit::Packets);
            row("max_queue_packets", c.max_queue_packets as f64, Unit::Packets);
            // Bytes of the other protocols appear only on faces that carried them.
            for (m, v) in [("ip_bytes_sent", c.ip_bytes_sent()), ("mcast_bytes_sent", c.mcast_bytes_sent())] {
                if v > 0 {
                    row(m, v as f64, Unit::Bytes);
                }
            }
            // A link service's counters at the end of the run (its last sample).
            if let Some(ls) = &f.link_service {
                let mut vals = Vec::new();
                ls.service.sample(&mut vals);
                for (m, v, unit) in vals {
                    row(m, v, unit);
                }
            }
            match eg.dynamics.as_deref() {
                // A link that changes: its own cause of drops, and utilisation of the capacity
                // it offered (a trace's opportunities, nothing while down).
                Some(d) => {
                    row("drops_link_down", l.drops_link_down as f64, Unit::Packets);
                    let bits = d.capacity_bits_at(self.engine.end, eg.bandwidth_bps);
                    row("capacity_mean", if secs > 0.0 { bits / secs } else { 0.0 }, Unit::Bps);
                    row("utilisation", if bits > 0.0 { c.bytes_sent as f64 * 8.0 / bits } else { 0.0 }, Unit::Ratio);
                }
                None if secs > 0.0 => {
                    row("utilisation", c.bytes_sent as f64 * 8.0 / (eg.bandwidth_bps as f64 * secs), Unit::Ratio);
                }
                None => {}
            }
        }
        self.engine.probes.face_rows(&self.net.faces, &self.net.face_names, &self.net.apps, &mut out);
        for (n, name) in self.net.nodes.iter().zip(&self.net.node_names) {
            let c = &n.counters;
            let mut row = |m: &str, v: f64| out.push(SummaryRow::new(name, "node", m, v, Unit::Packets));
            row("cs_hits", c.cs_hits as f64);
            row("aggregated", c.aggregated as f64);
            row("duplicates", c.duplicates as f64);
            row("no_route", c.no_route as f64);
            row("unsolicited_data", c.unsolicited_data as f64);
            row("pit_expired", c.pit_expired as f64);
            // Rows of the other protocols appear only where they happened.
            let (ip, mcast) = n.ip.as_ref().map_or((0, 0), |ip| (ip.ip_unroutable, ip.mcast_unroutable));
            for (m, v) in [("ip_unroutable", ip), ("mcast_unroutable", mcast)] {
                if v > 0 {
                    row(m, v as f64);
                }
            }
        }
        // Fairness across the flows that report a throughput (consumers and TCP senders):
        // each one's share of their total, and Jain's index (Σx)² / (n·Σx²).
        let flows: Vec<(String, f64)> =
            out.iter().filter_map(|r| r.flow_throughput_kbps().map(|kbps| (r.entity.clone(), kbps))).collect();
        if flows.len() >= 2 {
            let total: f64 = flows.iter().map(|(_, x)| x).sum();
            let squares: f64 = flows.iter().map(|(_, x)| x * x).sum();
            if total > 0.0 {
                for (name, x) in &flows {
                    out.push(SummaryRow::new(name, "flow", "share", x / total, Unit::Ratio));
                }
                let jain = total * total / (flows.len() as f64 * squares);
                out.push(SummaryRow::new("run", "run", "jain_index", jain, Unit::Ratio));
            }
        }
        let ok = self.conservation().iter().all(|(_, c)| c.holds());
        out.push(SummaryRow::new("run", "run", "events", self.engine.counters.events as f64, Unit::Events));
        out.push(SummaryRow::new("run", "run", "packet_hops", self.engine.counters.packet_hops as f64, Unit::Hops));
        out.push(SummaryRow::new("run", "run", "sim_seconds", secs, Unit::S));
        out.push(SummaryRow::new("run", "run", "conservation_ok", f64::from(u8::from(ok)), Unit::Bool));
        out
    }
}

/// Start loading the bucket of `packet`'s name in `node`'s PIT (whose index hashes), and for
/// an Interest what its insert writes and the bucket of its FIB lookup. Out of line: inline, it
/// took the run loop's registers in every world, where only those with large PIT hash tables
/// call it.
#[inline(never)]
fn prefetch_pit_bucket(packet: &crate::packet::Packet, node: &Node) {
    if let Some(h) = packet.ndn() {
        node.pit.prefetch_lookup(&h.name);
        if packet.is_interest() {
            node.pit.prefetch_insert();
            node.fib.prefetch_lookup(h.name.prefix);
        }
    }
}
