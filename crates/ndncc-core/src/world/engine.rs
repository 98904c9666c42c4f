//! The engine that runs a network: the event queue and the work of the current event, the
//! applications' wake-ups, the recorder and the probes, and the caches that make a run fast
//! without changing what it records. Its handlers take the network (`Network`) they act on; it
//! is the [`Effects`] sink of the protocol handlers.

use super::effects::Effects;
use super::sampling::Sampling;
use super::{ip, mcast, ndn, probe, Event, Network, RunCounters, LIVENESS_WORK};
use crate::app::{AppCtx, Application, IdlePolls};
use crate::ctx::NodeAction;
use crate::event_queue::EventQueue;
use crate::ids::{AppId, FaceId, NodeId};
use crate::module::{ModuleCtx, RouterModule};
use crate::packet::{Header, Packet};
use crate::recorder::Recorder;
use crate::ring::Ring;
use crate::time::{SimDuration, SimTime};

/// The component that acted last.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Actor {
    None,
    Node(NodeId),
    App(AppId),
}

/// Something the node's forwarding must still do in the current event, in order.
#[derive(Clone, Copy, Debug)]
pub(super) enum Work {
    /// A packet arrived on a face (from a link, or from an application).
    Receive(FaceId, Packet),
    /// A packet to put on a face, bypassing the forwarder (a router component sent it).
    Send(FaceId, Packet),
    /// A held Interest refused on a face.
    Refuse(FaceId, Packet, crate::packet::NackReason),
}

/// What waking an app takes, kept apart from its `AppSlot` in a small array of its own: with
/// many consumers most wake-ups are idle polls (see `IdlePolls`), which then read 32 bytes
/// here rather than the app's slot and its node's. Aligned to 32 bytes, two to a cache line:
/// at 64 bytes, 10,000 consumers kept 640 kB of wakers, and nearly every idle poll waited for
/// its waker's line. To fit, times stand for none with sentinels (no wake-up pending: the end
/// of time; no promise: time zero, as before), the promise's period is kept in 31 bits of
/// nanoseconds (a promise of a longer period, over 2.1 s, is not kept: the app's own hook then
/// does what the world would have), with the bit that says polls ran beside it, and the
/// coarse clocks of the apps' nodes, which few worlds have, lie in `Engine::clocks`.
#[derive(Clone, Copy, Debug)]
#[repr(C, align(32))]
pub(super) struct AppWaker {
    /// The pending wake-up's time; `NOT_PENDING` when none is pending.
    at: SimTime,
    /// The promise's poll clock.
    next_poll: SimTime,
    /// The promise covers wake-ups before this; zero, before every wake-up, when there is none.
    until: SimTime,
    /// The generation of the pending wake-up (`WakeSlot`'s, in this layout).
    gen: u32,
    /// The promise's poll period [ns] in the low 31 bits; the top bit (`POLLED`) set when the
    /// world ran idle polls since the app's last hook, whose poll clock it hands back first.
    period_polled: u32,
}

/// No wake-up is pending: one asked for at the end of time is taken as pending already, and
/// never scheduled (the run ends before it).
const NOT_PENDING: SimTime = SimTime::MAX;
/// The bit of `AppWaker::period_polled` that says polls ran.
const POLLED: u32 = 1 << 31;

impl AppWaker {
    /// The waker of an app: nothing pending, nothing promised.
    pub(super) fn new() -> AppWaker {
        AppWaker { at: NOT_PENDING, next_poll: SimTime::ZERO, until: SimTime::ZERO, gen: 0, period_polled: 0 }
    }

    /// A wake-up is pending.
    #[cfg(test)]
    fn pending(&self) -> bool {
        self.at != NOT_PENDING
    }

    /// Ask to be woken at `t`, which is on the node's clock and not before now: the generation
    /// of the wake-up event to schedule, or `None` when one at or before `t` is pending.
    #[inline(always)]
    fn request(&mut self, t: SimTime) -> Option<u32> {
        if self.at <= t {
            return None;
        }
        Some(self.rearm(t))
    }

    /// Wake at `t` under a new generation (what a due wake-up's `fire` and then `request`
    /// come to, as an idle poll asks for the next).
    #[inline(always)]
    fn rearm(&mut self, t: SimTime) -> u32 {
        self.gen = self.gen.wrapping_add(1);
        self.at = t;
        self.gen
    }

    /// The wake-up event of generation `gen` is not the one wanted (a later request replaced it).
    #[inline(always)]
    fn is_stale(&self, gen: u32) -> bool {
        self.gen != gen
    }

    /// The wake-up event of generation `gen` is due: true (and nothing pending any more) when it
    /// is the one wanted, false for a stale one.
    #[inline(always)]
    fn fire(&mut self, gen: u32) -> bool {
        if self.gen != gen {
            return false;
        }
        self.at = NOT_PENDING;
        true
    }

    /// Keep `idle` as the app's promise, or none (a period over 31 bits of nanoseconds is not
    /// kept); polls run under the last promise are forgotten, as the app's hook took them in.
    fn promise(&mut self, idle: Option<IdlePolls>) {
        let kept = idle.and_then(|i| u32::try_from(i.period.nanos()).ok().filter(|&p| p < POLLED).map(|p| (i, p)));
        (self.until, self.period_polled) = match kept {
            Some((i, p)) => {
                self.next_poll = i.next_poll;
                (i.until, p)
            }
            None => (SimTime::ZERO, 0),
        };
    }

    /// The promise covers a wake-up at `now`.
    #[inline(always)]
    fn covers(&self, now: SimTime) -> bool {
        now < self.until
    }

    /// The world ran idle polls since the app's last hook.
    #[inline(always)]
    fn polled(&self) -> bool {
        self.period_polled & POLLED != 0
    }

    /// Run an idle poll at `now`, which the promise covers: move the poll clock on, note that
    /// polls ran, and return when to be woken next (`IdlePolls::poll`).
    #[inline(always)]
    fn poll(&mut self, now: SimTime) -> SimTime {
        let period = SimDuration(u64::from(self.period_polled & !POLLED));
        let mut idle = IdlePolls { until: self.until, next_poll: self.next_poll, period };
        let next = idle.poll(now);
        self.next_poll = idle.next_poll;
        self.period_polled |= POLLED;
        next
    }

    /// The time of a wake-up asked for at `t`: not before `now`, and on the node's clock
    /// (`clocks`, by app; empty when no node has one), as `Node::align`.
    #[inline(always)]
    fn wake_time(clocks: &[(SimDuration, SimDuration)], app: AppId, t: SimTime, now: SimTime) -> SimTime {
        let t = t.max(now);
        match clocks.get(app.idx()) {
            Some(&(tick, phase)) => t.ceil_to_edge(tick, phase),
            None => t,
        }
    }
}

/// What running a wake-up as an idle poll came to (`Engine::idle_poll`).
pub(super) enum Poll {
    /// Not an idle poll: the app is to be woken.
    NotIdle,
    /// Run, and nothing to schedule (a stale wake-up, or a poll whose next is pending).
    Done,
    /// Run: the app's next wake-up, at this time and of this generation.
    Next(SimTime, u32),
}

/// Scratch buffers reused on the hot path.
#[derive(Default)]
pub(super) struct Scratch {
    pub(super) app_out: Vec<Packet>,
    pub(super) actions: Vec<NodeAction>,
    pub(super) dropped: Vec<Packet>,
    pub(super) expired: Vec<(crate::packet::Name, crate::forwarder::PitEntry)>,
}

/// What tells a stalled run from a busy one.
pub(super) struct Watchdog {
    /// The component that acted last (named when the run stalls).
    pub(super) last_actor: Actor,
    /// Set when one event handled too many packets: the run stops with this message.
    pub(super) stalled: Option<String>,
    /// Events at one instant, or packets within one event, before the run is stalled.
    pub(super) stall_limit: u64,
}

pub struct Engine {
    pub(super) queue: EventQueue<Event>,
    pub(super) recorder: Recorder,
    pub(super) counters: RunCounters,
    /// What nodes must still do in the current event, in order.
    pub(super) work: Ring<Work>,
    /// How to wake each app, by app index.
    pub(super) wakers: Vec<AppWaker>,
    /// The coarse clock (tick, phase) of each app's node, by app index, copied as the run
    /// starts; empty when no node has one (as in most worlds), and wake-ups then read nothing
    /// else.
    pub(super) clocks: Vec<(SimDuration, SimDuration)>,
    /// Sojourn times per face and the flows each face carried, for the summary.
    pub(super) probes: probe::Probes,
    /// Observer of every packet event (traces, tests); `None` costs one branch per event.
    pub(super) tap_observer: Option<Box<dyn crate::tap::PacketTap>>,
    /// What is sampled at fixed intervals, and the samples kept to repeat.
    pub(super) sampling: Sampling,
    pub(super) scratch: Scratch,
    pub(super) watchdog: Watchdog,
    /// Take the shortcuts that change nothing recorded: run apps' promised idle polls here
    /// instead of waking the apps, repeat the last samples of apps none of whose hooks ran
    /// since, and prefetch what the next event reads in a large world (off only to test that
    /// they change nothing).
    pub(super) shortcuts: bool,
    /// The bytes of PIT hash tables above which an arrival's look ahead finds the bucket of
    /// its name (`network::PREFETCH_BUCKETS_FROM`; lower in a test, so that a small world
    /// takes that path too).
    pub(super) prefetch_buckets_above: usize,
    /// Idle polls run here so far, and how many of them in runs off their lane's front
    /// (`World::run_idle_polls`).
    pub(super) idle_polls_run: u64,
    pub(super) idle_polls_in_runs: u64,
    pub(super) end: SimTime,
    /// Scheduled actions and what failures and recoveries need; `None` in a world without them.
    pub(super) topology: Option<Box<super::dynamics::Topology>>,
}

impl Engine {
    #[inline]
    pub fn now(&self) -> SimTime {
        self.queue.now()
    }

    #[inline]
    pub(super) fn schedule(&mut self, t: SimTime, e: Event) {
        self.queue.schedule(t, e);
    }

    /// What to tell the user when simulated time stops at `t`.
    pub(super) fn stall_report(&self, net: &Network, t: SimTime, what: &str) -> String {
        let actor = match self.watchdog.last_actor {
            Actor::Node(n) => format!("the last packet was handled by node {}", net.node_name(n)),
            Actor::App(a) => {
                let slot = &net.apps[a.idx()];
                format!("the last was app {} on node {}", slot.name, net.node_name(slot.node))
            }
            Actor::None => "no component was active".to_string(),
        };
        format!(
            "simulated time stopped at {:.6} s: over {} {what} at that instant ({actor}); a \
             zero-delay loop, such as a consumer whose Interests are answered or refused at once on its \
             own node and resent at once",
            t.as_secs_f64(),
            self.watchdog.stall_limit
        )
    }

    pub(super) fn handle(&mut self, net: &mut Network, ev: Event) {
        match ev {
            Event::TxDone { face } => self.on_tx_done(net, face),
            Event::Arrive { from, hint } => self.on_arrive(net, from, hint),
            Event::ShaperWake { face } => self.on_shaper_wake(net, face),
            Event::AppStart { app } => self.call_app(net, app, |a, ctx| a.on_start(ctx)),
            Event::AppStop { app } => self.call_app(net, app, |a, ctx| a.on_stop(ctx)),
            Event::AppWake { app, gen } => {
                if !self.run_idle_poll_out_of_line(app, gen) && self.wakers[app.idx()].fire(gen) {
                    self.call_app(net, app, |a, ctx| a.on_wake(ctx));
                }
            }
            Event::PitSweep { node } => self.on_pit_sweep(net, node),
            Event::ModuleTick { node, module } => self.on_module_tick(net, node, module),
            Event::ModuleWake { node, module, gen } => {
                let slot = &mut net.nodes[node.idx()].modules[module as usize];
                if slot.wake.fire(gen) {
                    self.call_module(net, node, module as usize, |m, ctx| m.on_wake(ctx));
                }
            }
            Event::LinkServiceWake { face, gen } => self.on_link_service_wake(net, face, gen),
            Event::Sample => self.on_sample(net),
            Event::Scheduled { index } => self.on_scheduled(net, index),
            Event::Reroute => self.reroute(net),
        }
    }

    /// Run the wake-up of generation `gen` of `app` here, without waking the app, if it is an
    /// idle poll the app promised (see `IdlePolls`), and say whether it was; a stale wake-up
    /// counts as run. With many consumers most events are these: the run loop calls this
    /// before `handle`, inline, and a poll then costs no call. (`handle` runs them too, for
    /// the callers that hand it every event, through `run_idle_poll_out_of_line`.)
    #[inline(always)]
    pub(super) fn run_idle_poll(&mut self, app: AppId, gen: u32) -> bool {
        match self.idle_poll(app, gen, self.queue.now()) {
            Poll::NotIdle => false,
            Poll::Done => true,
            Poll::Next(t, gen) => {
                self.schedule(t, Event::AppWake { app, gen });
                true
            }
        }
    }

    /// The wake-up of generation `gen` of `app` at `now`, run here if it is stale or an idle
    /// poll (see `run_idle_poll`); for a poll, the next wake-up the app would ask for, which
    /// the caller schedules. Changes nothing when the wake-up is not idle.
    #[inline(always)]
    pub(super) fn idle_poll(&mut self, app: AppId, gen: u32, now: SimTime) -> Poll {
        let shortcuts = self.shortcuts;
        let Some(waker) = self.wakers.get_mut(app.idx()) else { return Poll::NotIdle };
        if waker.is_stale(gen) {
            return Poll::Done;
        }
        if !(shortcuts && waker.covers(now)) {
            return Poll::NotIdle;
        }
        // What the app would do at this wake-up, done without reading its state: move its poll
        // clock on and ask for the next poll. This wake-up is the one pending, so the next is
        // always asked for (as `fire` and then `request` would).
        let next = waker.poll(now);
        let t = AppWaker::wake_time(&self.clocks, app, next, now);
        let gen = waker.rearm(t);
        self.idle_polls_run += 1;
        self.watchdog.last_actor = Actor::App(app);
        Poll::Next(t, gen)
    }

    /// `run_idle_poll` as a call, for `handle`: inline there, a second copy of the poll made
    /// `handle` larger and `tree-1111` 3.5% slower.
    #[inline(never)]
    fn run_idle_poll_out_of_line(&mut self, app: AppId, gen: u32) -> bool {
        self.run_idle_poll(app, gen)
    }

    /// Run an application hook, queue its packets for its node and schedule its wake-up. The
    /// packets are processed by `drain_work` after the current event, never recursively.
    pub(super) fn call_app(
        &mut self,
        net: &mut Network,
        app: AppId,
        f: impl FnOnce(&mut dyn Application, &mut AppCtx),
    ) {
        let now = self.now();
        self.watchdog.last_actor = Actor::App(app);
        let mut out = std::mem::take(&mut self.scratch.app_out);
        let requested = {
            let (slot, waker) = (&mut net.apps[app.idx()], &mut self.wakers[app.idx()]);
            // Polls ran only under a promise, whose poll clock the waker keeps (`promise`
            // below forgets that they ran).
            if waker.polled() {
                slot.app.resume_polls(waker.next_poll);
            }
            self.sampling.app_samples.mark(app.idx());
            let mut ctx = AppCtx::new(now, &mut out, &mut self.recorder).with_names(&net.names);
            f(slot.app.as_mut(), &mut ctx);
            waker.promise(ctx.promised_idle_polls());
            ctx.requested_wake()
        };
        let face = net.apps[app.idx()].face;
        for p in out.drain(..) {
            self.work.push_back(Work::Receive(face, p));
        }
        self.scratch.app_out = out;
        if let Some(t) = requested {
            self.schedule_app_wake(app, t);
        }
    }

    /// Wake `app` at `t` (on its node's clock), unless it is to be woken sooner already.
    pub(super) fn schedule_app_wake(&mut self, app: AppId, t: SimTime) {
        let now = self.queue.now();
        if let Some((t, gen)) = self.request_wake(app, t, now) {
            self.schedule(t, Event::AppWake { app, gen });
        }
    }

    /// Ask to wake `app` at `t`, on its node's clock and not before `now` (as `Node::align`):
    /// the time and generation of the wake-up event to schedule, or `None` when one at or
    /// before that time is pending.
    #[inline(always)]
    fn request_wake(&mut self, app: AppId, t: SimTime, now: SimTime) -> Option<(SimTime, u32)> {
        let t = AppWaker::wake_time(&self.clocks, app, t, now);
        self.wakers[app.idx()].request(t).map(|gen| (t, gen))
    }

    /// Run one hook of module `module` of `node` and carry out what it asked for.
    fn call_module(
        &mut self,
        net: &mut Network,
        node: NodeId,
        module: usize,
        f: impl FnOnce(&mut dyn RouterModule, &mut ModuleCtx),
    ) {
        let now = self.now();
        let mut actions = std::mem::take(&mut self.scratch.actions);
        let wake = {
            let n = &mut net.nodes[node.idx()];
            let slot = &mut n.modules[module];
            let mut ctx = ModuleCtx::new(now, node, &n.faces, &mut net.faces, &mut slot.rng, &mut actions);
            f(slot.module.as_mut(), &mut ctx);
            ctx.requested_wake()
        };
        if let Some(t) = wake {
            self.module_wake_at(net, node, module, t);
        }
        self.apply_actions(&mut actions);
        self.scratch.actions = actions;
    }

    fn module_wake_at(&mut self, net: &mut Network, node: NodeId, module: usize, t: SimTime) {
        let now = self.now();
        let n = &mut net.nodes[node.idx()];
        let t = n.align(t.max(now));
        if let Some(gen) = n.modules[module].wake.request(t) {
            self.schedule(t, Event::ModuleWake { node, module: module as u32, gen });
        }
    }

    /// Queue what router components asked for, to be done after the current step.
    pub(super) fn apply_actions(&mut self, actions: &mut Vec<NodeAction>) {
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
    pub(super) fn drain_work(&mut self, net: &mut Network, done: &mut u64) -> bool {
        let mut slice = 0u64;
        while let Some(w) = self.work.pop_front() {
            *done += 1;
            if *done > self.watchdog.stall_limit {
                self.work.clear();
                self.watchdog.stalled = Some(self.stall_report(net, self.now(), "packets handled in one event"));
                return true;
            }
            match w {
                Work::Receive(face, mut p) => self.receive(net, face, &mut p),
                Work::Send(face, mut p) => self.send_on_face(net, face, &mut p),
                Work::Refuse(face, p, reason) => ndn::refuse_held_interest(net, self, face, p, reason),
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
    pub(super) fn receive(&mut self, net: &mut Network, in_face: FaceId, packet: &mut Packet) {
        let node = net.faces[in_face.idx()].node;
        self.watchdog.last_actor = Actor::Node(node);
        packet.hops = packet.hops.saturating_add(1);
        match packet.header {
            Header::Ndn(_) => ndn::receive(net, self, node, in_face, packet),
            Header::Ip(_) => ip::receive(net, self, node, in_face, *packet),
            Header::Mcast(_) => mcast::receive(net, self, node, in_face, *packet),
            // Link-layer frames belong to link services, which absorb them on arrival; one that
            // reaches a node (its face has no service) has no one to read it.
            Header::LinkAck => {}
        }
    }

    /// Expire the PIT entries of `node` that are due.
    fn on_pit_sweep(&mut self, net: &mut Network, node: NodeId) {
        let mut expired = std::mem::take(&mut self.scratch.expired);
        ndn::sweep_pit(net, self, node, &mut expired);
        self.scratch.expired = expired;
    }

    fn on_module_tick(&mut self, net: &mut Network, node: NodeId, module: u32) {
        let now = self.now();
        self.call_module(net, node, module as usize, |m, ctx| m.on_tick(ctx));
        let n = &net.nodes[node.idx()];
        let next = n.modules[module as usize].module.tick_interval().map(|iv| n.align(now + iv));
        if let Some(t) = next {
            self.schedule(t.max(now + SimDuration(1)), Event::ModuleTick { node, module });
        }
        // A module may have changed a shaper's rate: let the shapers re-plan.
        for i in 0..net.nodes[node.idx()].faces.len() {
            let f = net.nodes[node.idx()].faces[i];
            self.kick_shaper(net, f);
        }
    }
}

impl Effects for Engine {
    #[inline(always)]
    fn now(&self) -> SimTime {
        self.queue.now()
    }
    #[inline(always)]
    fn send(&mut self, net: &mut Network, face: FaceId, packet: &mut Packet) {
        self.send_on_face(net, face, packet);
    }
    #[inline]
    fn sweep_pit_at(&mut self, node: NodeId, t: SimTime) {
        self.queue.schedule_irregular(t, Event::PitSweep { node });
    }
    /// Run `f` on every router module of `node` in order, with its context, until it returns
    /// `Some`; then carry out what the modules asked for. The node must have modules.
    fn each_module<R>(
        &mut self,
        net: &mut Network,
        node: NodeId,
        mut f: impl FnMut(&mut dyn RouterModule, &mut ModuleCtx) -> Option<R>,
    ) -> Option<R> {
        let now = self.now();
        let mut actions = std::mem::take(&mut self.scratch.actions);
        let mut wakes: smallvec::SmallVec<[(usize, SimTime); 2]> = smallvec::SmallVec::new();
        let mut result = None;
        {
            let n = &mut net.nodes[node.idx()];
            for (i, slot) in n.modules.iter_mut().enumerate() {
                let mut ctx = ModuleCtx::new(now, node, &n.faces, &mut net.faces, &mut slot.rng, &mut actions);
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
            self.module_wake_at(net, node, i, t);
        }
        self.apply_actions(&mut actions);
        self.scratch.actions = actions;
        result
    }
}

#[cfg(test)]
mod tests {
    use super::AppWaker;
    use crate::app::IdlePolls;
    use crate::ctx::WakeSlot;
    use crate::time::{SimDuration, SimTime};

    #[test]
    fn an_app_waker_is_half_a_cache_line() {
        assert_eq!(std::mem::size_of::<super::AppWaker>(), 32);
        assert_eq!(std::mem::align_of::<super::AppWaker>(), 32);
    }

    fn promise(next_poll: u64, period: u64, until: u64) -> Option<IdlePolls> {
        Some(IdlePolls { next_poll: SimTime(next_poll), period: SimDuration(period), until: SimTime(until) })
    }

    /// A promise is kept as given, unless its period does not fit 31 bits of nanoseconds; a
    /// new one forgets that polls ran.
    #[test]
    fn a_promise_is_kept_unless_its_period_is_too_long() {
        let mut w = AppWaker::new();
        w.promise(promise(1_000, 50, 900_000));
        assert!(w.covers(SimTime(0)) && w.covers(SimTime(899_999)) && !w.covers(SimTime(900_000)));
        assert_eq!(w.poll(SimTime(1_020)), SimTime(1_050));
        assert!(w.polled());
        w.promise(promise(1_000, (1 << 31) - 1, 5_000));
        assert!(w.covers(SimTime(4_999)) && !w.polled());
        w.promise(promise(1_000, 1 << 31, 5_000));
        assert!(!w.covers(SimTime(1_000)));
        w.promise(None);
        assert!(!w.covers(SimTime(0)));
    }

    proptest::proptest! {
        /// Polls run on a kept promise move the poll clock as `IdlePolls::poll` does.
        #[test]
        fn polls_on_a_kept_promise_follow_idle_polls(
            next in 0u64..1_000_000,
            period in 1u64..100_000,
            reach in 1u64..5_000_000,
            steps in proptest::collection::vec(0u64..200_000, 1..40),
        ) {
            let given = IdlePolls { next_poll: SimTime(next), period: SimDuration(period), until: SimTime(next + reach) };
            let (mut w, mut model) = (AppWaker::new(), given);
            w.promise(Some(given));
            let mut now = 0;
            for step in steps {
                now += step;
                let t = SimTime(now);
                proptest::prop_assert_eq!(w.covers(t), t < given.until);
                if !w.covers(t) {
                    break;
                }
                proptest::prop_assert_eq!(w.poll(t), model.poll(t));
                proptest::prop_assert_eq!((w.next_poll, w.until), (model.next_poll, given.until));
            }
        }

        /// An app's waker asks for and fires wake-ups as a `WakeSlot` does, and an idle poll's
        /// `rearm` of a due wake-up is its `fire` and then its `request`.
        #[test]
        fn a_waker_wakes_as_a_wake_slot(ops in proptest::collection::vec((0u8..4, 0u64..50), 0..60)) {
            let (mut w, mut slot) = (AppWaker::new(), WakeSlot::default());
            for (op, x) in ops {
                match op {
                    0 => proptest::prop_assert_eq!(w.request(SimTime(x)), slot.request(SimTime(x))),
                    1 => proptest::prop_assert_eq!(w.fire(x as u32 % 4), slot.fire(x as u32 % 4)),
                    2 if w.pending() => {
                        let due = w.gen;
                        proptest::prop_assert!(slot.fire(due));
                        proptest::prop_assert_eq!(Some(w.rearm(SimTime(x))), slot.request(SimTime(x)));
                    }
                    _ => proptest::prop_assert_eq!(w.is_stale(x as u32 % 4), slot.is_stale(x as u32 % 4)),
                }
                proptest::prop_assert_eq!(w.pending().then_some(w.at), slot.pending());
            }
        }
    }

    /// An arrival's hints fill what the largest event (a module's wake-up) takes anyway: an
    /// event stays 16 bytes, and an entry of the event queue 32.
    #[test]
    fn an_event_is_sixteen_bytes() {
        assert_eq!(std::mem::size_of::<super::super::Event>(), 16);
    }
}
