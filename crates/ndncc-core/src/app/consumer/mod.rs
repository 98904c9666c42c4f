//! Consumers: applications that fetch segments 0, 1, 2, … of a prefix, either a file of N
//! segments or for as long as they run, under a congestion controller.
//!
//! ```text
//!                   ┌──────────── ConsumerCore (this file) ─────────────┐
//!  WindowConsumer ──┤ sequencing, retransmissions first (lowest first), │── Interests ──▶ node
//!  (window.rs)      │ timers (polled or exact), RTT/RTO, NACK handling, │
//!  RateConsumer  ───┤ counters, samples, summary, Interest conservation │◀── Data, NACKs
//!  (rate.rs)        └───────────────────────────────────────────────────┘
//! ```
//!
//! The two pacing modes are separate applications over one shared core: a `WindowConsumer`
//! keeps `floor(window)` Interests in flight and looks for sequence holes when its controller
//! asks; a `RateConsumer` releases Interests as they fall due at its controller's rate (seed
//! 000's coarse-clock consumer, with its policer and smoothing). A consumer with timer rules of
//! its own is a third file over the same core.
//!
//! A consumer with `arrivals` fetches objects instead of one run of segments: requests arrive
//! open-loop and each asks for a whole object; the core then numbers its requests 0, 1, 2, … in
//! sending order, and `objects.rs` maps each number to the segment on the wire and back.
//!
//! A Data that arrives after its Interest was given up (timed out with retransmission off, or
//! out of retransmissions) is still delivered: it counts in `data_received` and `late_data`,
//! and a rate controller sees it (a MIRCC stamp in it is as valid as any).

mod inflight;
mod objects;
mod rate;
mod window;

use std::collections::BTreeSet;
use std::sync::Arc;

use rand::Rng;
use rustc_hash::{FxHashMap, FxHashSet};

pub use inflight::{InFlight, Outstanding, RtoTimers};
pub use objects::ObjectParams;
pub use rate::RateConsumer;
pub use window::WindowConsumer;

use super::{next_poll_after, AppCtx, Application, Conservation, IdlePolls};
use crate::cc::{DataEvent, LossEvent, NackAction, RateControl, SentEvent, WindowControl};
use crate::histogram::{Histogram, RTT_PERCENTILES};
use crate::ids::NameId;
use crate::names::NameTable;
use crate::packet::{NackReason, Name, Packet};
use crate::recorder::{EntityId, MetricId, Recorder, SummaryRow, Unit};
use crate::rng::SimRng;
use crate::rtt::{Backoff, RttConfig, RttEstimator};
use crate::time::{SimDuration, SimTime};
use crate::wire::ndn::{interest_wire_size, wire_u32};
use crate::wire::tlv::nonneg_width_class;

/// A consumer's settings (`instantiate::apps::consumer_params` resolves them from a scenario's
/// consumer). In declaration order (`repr(C)`): those every Interest sent reads first (see
/// `ConsumerCore`).
#[derive(Clone, Debug)]
#[repr(C)]
pub struct ConsumerParams {
    pub prefix: NameId,
    /// Interest size on the wire [bytes]: the scenario's, or the encoded size of segment 0.
    pub interest_size: u32,
    pub lifetime: SimDuration,
    /// Polling period of the retransmission timer; zero = exact per-deadline wake-ups.
    pub timeout_check: SimDuration,
    /// Fetch segments 0..N-1 then stop; `None` = run until stopped.
    pub segments: Option<u64>,
    /// The most Interests in flight, whatever the controller asks: what the network can hold
    /// and answer (`Scenario::in_flight_limit`), else the largest window.
    pub max_in_flight: usize,
    /// Interest sizes are their real encoding (no `interest_size` given): each Interest's size
    /// is computed from its name and segment number.
    pub encoded_size: bool,
    pub retransmit: bool,
    pub rto_per_interest: bool,
    /// Rate consumers: release due Interests on Data/NACK arrival too (seed 000's smoothing).
    pub smoothing: bool,
    /// Payload of each Data [bytes] (goodput accounting).
    pub payload: u32,
    /// 0 = unlimited.
    pub max_retransmissions: u32,
    /// Rate consumers: depth of the Interest policer [Interests]: the most Interests one release
    /// puts on the network; the rest of that release are counted as sent and lost. 0 = none.
    pub interest_bucket: usize,
    pub rtt: RttConfig,
    /// Open-loop object fetching (`arrivals`); `None` fetches one stream of segments. Boxed
    /// (as the consumer's `objects`): a consumer keeps its parameters, and most have none.
    pub objects: Option<Box<ObjectParams>>,
    pub name: compact_str::CompactString,
}

/// A consumer's controller: a window or a rate. Built-ins come from the spec's `window` or
/// `rate` table; a user plug-in is boxed here directly.
pub enum Controller {
    Window(Box<dyn WindowControl>),
    Rate(Box<dyn RateControl>),
}

/// The consumer application for `params` under `ctl`.
pub fn build(params: ConsumerParams, ctl: Controller, rng: SimRng, rec: &mut Recorder) -> Box<dyn Application> {
    match ctl {
        Controller::Window(mut w) => {
            // The controller's stream: the app's, jumped 2^128 draws ahead (no overlap).
            let mut own = rng.clone();
            own.jump();
            w.use_rng(own);
            Box::new(WindowConsumer::new(params, w, rng, rec))
        }
        Controller::Rate(r) => Box::new(RateConsumer::new(params, r, rng, rec)),
    }
}

/// Record the (metric, value) pairs `fill` reports for entity `me`.
pub(crate) fn record_metrics(
    now: SimTime,
    me: EntityId,
    rec: &mut Recorder,
    fill: impl FnOnce(&mut Vec<(&'static str, f64)>),
) {
    let mut out = Vec::new();
    fill(&mut out);
    for (name, v) in out {
        let m = rec.metric(name);
        rec.sample(now, me, m, v);
    }
}

/// What the core asks of a controller, whichever its kind.
pub(crate) trait Reactions {
    fn timeout(&mut self, ev: &LossEvent);
    fn nack(&mut self, ev: &LossEvent) -> NackAction;
    /// The window, for recording decreases; `None` for a rate.
    fn window_now(&self) -> Option<f64>;
}

impl Reactions for Box<dyn WindowControl> {
    fn timeout(&mut self, ev: &LossEvent) {
        self.as_mut().on_timeout(ev);
    }
    fn nack(&mut self, ev: &LossEvent) -> NackAction {
        self.as_mut().on_nack(ev)
    }
    fn window_now(&self) -> Option<f64> {
        Some(self.as_ref().window())
    }
}

impl Reactions for Box<dyn RateControl> {
    fn timeout(&mut self, ev: &LossEvent) {
        self.as_mut().on_timeout(ev);
    }
    fn nack(&mut self, ev: &LossEvent) -> NackAction {
        self.as_mut().on_nack(ev)
    }
    fn window_now(&self) -> Option<f64> {
        None
    }
}

/// In declaration order (`repr(C)`): those every Interest and Data counts first.
#[derive(Clone, Copy, Debug, Default)]
#[repr(C)]
pub(crate) struct Counters {
    pub interests_sent: u64,
    pub data_received: u64,
    pub answered: u64,
    pub rtt_sum_s: f64,
    pub rtt_samples: u64,
    pub retransmissions: u64,
    pub marks: u64,
    pub late_data: u64,
    pub nacks: u64,
    pub nacks_ended: u64,
    /// Transmissions given up as sequence holes (and resent).
    pub holes_ended: u64,
    pub timeouts: u64,
    pub lost_segments: u64,
    /// Interests dropped by the consumer's policer (counted in `interests_sent`).
    pub policed: u64,
    /// Retransmissions answered by the Data of an earlier transmission (see `on_data`).
    pub spurious_retransmissions: u64,
}

/// A consumer's recorder ids: its own entity, and the metric ids every consumer shares.
pub(crate) struct Ids {
    pub me: EntityId,
    metrics: Arc<Metrics>,
}

impl std::ops::Deref for Ids {
    type Target = Metrics;
    #[inline(always)]
    fn deref(&self) -> &Metrics {
        &self.metrics
    }
}

/// The ids of the metrics consumers record: the same for every consumer of a recorder, so
/// kept once (`Recorder::shared`).
pub(crate) struct Metrics {
    pub rtt: MetricId,
    pub rto: MetricId,
    pub timeout: MetricId,
    pub nack: MetricId,
    pub mark: MetricId,
    pub hole: MetricId,
    pub decrease: MetricId,
    pub window: MetricId,
    pub ssthresh: MetricId,
    pub rate: MetricId,
    pub in_flight: MetricId,
    pub sent: MetricId,
    pub data: MetricId,
    pub retx: MetricId,
    pub timeouts: MetricId,
    pub nacks: MetricId,
    pub marks: MetricId,
    pub srtt: MetricId,
    pub rto_now: MetricId,
    pub policed: MetricId,
    pub spurious: MetricId,
}

impl Metrics {
    fn interned(rec: &mut Recorder) -> Metrics {
        let mut m = |n: &str| rec.metric(n);
        Metrics {
            rtt: m("rtt"),
            rto: m("rto"),
            timeout: m("timeout"),
            nack: m("nack"),
            mark: m("mark"),
            hole: m("hole"),
            decrease: m("window_decrease"),
            window: m("window"),
            ssthresh: m("ssthresh"),
            rate: m("rate"),
            in_flight: m("in_flight"),
            sent: m("interests_sent"),
            data: m("data_received"),
            retx: m("retransmissions"),
            timeouts: m("timeouts"),
            nacks: m("nacks"),
            marks: m("marks"),
            srtt: m("srtt"),
            rto_now: m("rto_now"),
            policed: m("policed"),
            spurious: m("spurious_retransmissions"),
        }
    }
}

/// What became of an arriving Data.
pub(crate) enum Arrival {
    /// It answered an outstanding Interest: the event for the controller, and the order in
    /// which that Interest was sent (for hole detection).
    Answered(DataEvent, u64),
    /// It came for a segment given up without retransmission: delivered after all.
    GivenUp(DataEvent),
    /// A late or duplicate Data with nothing more to do.
    Late,
}

/// A moment that may not have come yet, in 8 bytes where an `Option` takes 16: `SimTime::MAX`
/// stands for not yet, as it stands for never elsewhere (`NO_PIT_SWEEP`): no event of a run
/// falls at the last nanosecond of 584 years.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Moment(SimTime);

impl Moment {
    pub const NOT_YET: Moment = Moment(SimTime::MAX);
    pub fn at(t: SimTime) -> Moment {
        Moment(t)
    }
    pub fn get(self) -> Option<SimTime> {
        (self.0 < SimTime::MAX).then_some(self.0)
    }
}

/// Everything a consumer does whatever paces it.
///
/// In declaration order (`repr(C)`): what every Interest sent and every Data received read
/// first, then the parameters (their hot fields lead), then what only losses, the summary and
/// the end of a run read. In a world of a thousand consumers each one's state was last
/// touched a round trip before, and its lines miss the cache: in the compiler's order, which
/// goes by alignment, a Data and the Interest it lets out read 14 of a consumer's 15 lines,
/// and in this one the first 10 of 12 (the metric ids shared, and moments not yet come in 8
/// bytes rather than an `Option`'s 16).
#[repr(C)]
pub(crate) struct ConsumerCore {
    pub inflight: InFlight,
    pub rtt: RttEstimator,
    pub rng: SimRng,
    pub next_seq: u64,
    order: u64,
    pub next_check: SimTime,
    /// The highest segment received; zero before the first (what controllers are told then).
    pub highest_received: u64,
    /// Smallest RTT sample so far (Interests sent once only).
    /// `SimDuration::MAX` until the first sample.
    min_rtt: SimDuration,
    /// What the consumer keeps of its losses, while it has any.
    losses: Option<Box<Losses>>,
    /// Object fetching: the requests, and the map between request numbers and segments.
    /// Boxed: most consumers fetch one stream of segments, and inline these 416 bytes were a
    /// quarter of every consumer (a world of 10,000 consumers keeps 10,000 of them).
    objects: Option<Box<objects::Objects>>,
    /// Encoded Interest sizes, by the byte width of the segment number (1, 2, 4 or 8 bytes);
    /// 0 until first needed. The name prefix and lifetime are fixed, so the size depends on
    /// the segment number only through that width.
    encoded_sizes: [u32; 4],
    pub sending: bool,
    pub c: Counters,
    pub ids: Ids,
    /// Every RTT sample, for the summary's percentiles.
    rtt_hist: Histogram,
    pub p: ConsumerParams,
    pub started_at: Moment,
    pub stopped_at: Moment,
    pub completed_at: Moment,
    /// When the controller first asked for more Interests in flight than `p.max_in_flight`.
    pub limit_reached_at: Moment,
}

/// A consumer's losses: the segments waiting to be resent, the transmissions of each segment
/// resent, and the segments given up. Boxed, made at the first loss and let go once all three
/// are empty (as each of them is, when emptied): most consumers of a large world are not
/// recovering from a loss at any moment, and inline the three took 88 bytes of every consumer.
#[derive(Default)]
struct Losses {
    retx_queue: BTreeSet<u64>,
    retx_counts: FxHashMap<u64, u32>,
    /// Segments given up without retransmission whose Data may still arrive.
    given_up: FxHashSet<u64>,
}

impl ConsumerCore {
    pub fn new(mut p: ConsumerParams, rng: SimRng, rec: &mut Recorder) -> ConsumerCore {
        let me = rec.entity(&p.name);
        let objects = p.objects.take().map(|o| Box::new(objects::Objects::new(*o, rec)));
        let ids = Ids { me, metrics: rec.shared(Metrics::interned) };
        ConsumerCore {
            rtt: RttEstimator::new(p.rtt),
            inflight: InFlight::new(if p.rto_per_interest { RtoTimers::PerInterest } else { RtoTimers::Shared }),
            p,
            rng,
            losses: None,
            next_seq: 0,
            highest_received: 0,
            min_rtt: SimDuration::MAX,
            rtt_hist: Histogram::new(),
            order: 0,
            sending: false,
            next_check: SimTime::ZERO,
            c: Counters::default(),
            ids,
            started_at: Moment::NOT_YET,
            stopped_at: Moment::NOT_YET,
            completed_at: Moment::NOT_YET,
            limit_reached_at: Moment::NOT_YET,
            objects,
            encoded_sizes: [0; 4],
        }
    }

    pub fn start(&mut self, now: SimTime) {
        self.sending = true;
        self.started_at = Moment::at(now);
        self.next_check = now + self.p.timeout_check;
        if let Some(o) = &mut self.objects {
            o.start(now);
        }
    }

    /// Object fetching: take in the requests that have arrived by `now` (none once stopped).
    #[inline(always)]
    pub fn admit_arrivals(&mut self, now: SimTime) {
        if let Some(o) = self.objects.as_mut().filter(|_| self.sending) {
            o.admit(now);
        }
    }

    /// Object fetching: ask to be woken when the next request arrives.
    pub fn request_arrival_wake(&self, ctx: &mut AppCtx) {
        if let Some(at) = self.objects.as_ref().filter(|_| self.sending).and_then(|o| o.next_arrival()) {
            ctx.wake_at(at.max(ctx.now));
        }
    }

    /// An object-fetching consumer with nothing to ask for (a rate consumer then banks at most
    /// one Interest of credit).
    pub fn is_idle_fetcher(&self) -> bool {
        self.objects.is_some() && !self.has_something_to_send()
    }

    /// The request number a Data or NACK for segment `seg` answers: the segment itself, unless
    /// the consumer fetches objects; `None` for a segment it has no request for.
    pub fn request_of(&self, seg: u64) -> Option<u64> {
        match &self.objects {
            Some(o) => o.request_of(seg),
            None => Some(seg),
        }
    }

    /// The segment on the wire for request number `seq`.
    fn segment_of(&self, seq: u64) -> u64 {
        self.objects.as_ref().and_then(|o| o.segment_of(seq)).unwrap_or(seq)
    }

    /// The Data of request `seq` has been received.
    #[inline]
    fn note_received(&mut self, ctx: &mut AppCtx, seq: u64) {
        if let Some(o) = &mut self.objects {
            o.received(ctx.now, seq, ctx.recorder, self.ids.me);
        }
    }

    pub fn stop(&mut self, now: SimTime) {
        self.sending = false;
        self.stopped_at = Moment::at(now);
    }

    fn complete(&self) -> bool {
        self.p.segments.is_some_and(|n| self.c.data_received >= n)
    }

    /// Note completion once every segment has arrived; it stops sending.
    pub fn check_complete(&mut self, now: SimTime) {
        if self.completed_at.get().is_none() && self.complete() {
            self.completed_at = Moment::at(now);
            self.sending = false;
        }
    }

    /// Next segment to send: retransmissions first, lowest first; then a new segment.
    pub fn next_to_send(&mut self) -> Option<(u64, bool)> {
        if let Some(s) = self.losses.as_mut().and_then(|l| l.retx_queue.pop_first()) {
            self.release_emptied_losses();
            return Some((s, true));
        }
        if let Some(o) = &mut self.objects {
            // Request numbers count up as a plain consumer's segments do.
            if !o.issue(self.next_seq) {
                return None;
            }
            self.next_seq += 1;
            return Some((self.next_seq - 1, false));
        }
        if self.p.segments.is_some_and(|n| self.next_seq >= n) {
            return None;
        }
        self.next_seq += 1;
        Some((self.next_seq - 1, false))
    }

    pub fn has_something_to_send(&self) -> bool {
        self.losses.as_ref().is_some_and(|l| !l.retx_queue.is_empty())
            || match &self.objects {
                Some(o) => o.has_pending(),
                None => self.p.segments.is_none_or(|n| self.next_seq < n),
            }
    }

    /// Count one transmission of `seq`; returns how many times it had been sent before.
    pub fn count_sent(&mut self, seq: u64, is_retx: bool) -> u32 {
        let retx = if is_retx {
            let n = self.losses_mut().retx_counts.entry(seq).or_insert(0);
            *n += 1;
            *n
        } else {
            0
        };
        self.c.interests_sent += 1;
        if retx > 0 {
            self.c.retransmissions += 1;
        }
        retx
    }

    /// Send an Interest for `seq`; returns the event for the controller.
    pub fn send_interest(&mut self, ctx: &mut AppCtx, seq: u64, is_retx: bool) -> SentEvent {
        let retx = self.count_sent(seq, is_retx);
        let nonce: u32 = self.rng.gen();
        let name = Name { prefix: self.p.prefix, seg: self.segment_of(seq) };
        let lifetime = self.p.lifetime.nanos();
        let size = match ctx.names {
            Some(names) if self.p.encoded_size => self.encoded_interest_size(names, name.seg),
            _ => self.p.interest_size,
        };
        let pkt = Packet::interest(name, size, nonce, lifetime);
        let o = Outstanding { sent_at: ctx.now, retx, order: self.order, rto: self.rtt.rto(), hole_reported: false };
        self.order += 1;
        self.inflight.insert(seq, o);
        ctx.send(pkt);
        SentEvent { now: ctx.now, seq, retransmission: retx > 0, in_flight: self.inflight.len() as u32 }
    }

    /// The encoded size of this consumer's Interest for segment `seg`, worked out once per
    /// segment-number width rather than per Interest.
    fn encoded_interest_size(&mut self, names: &NameTable, seg: u64) -> u32 {
        let slot = &mut self.encoded_sizes[nonneg_width_class(seg)];
        if *slot == 0 {
            let lifetime = self.p.lifetime.nanos();
            *slot = wire_u32(interest_wire_size(names.components(self.p.prefix), seg, lifetime));
        }
        *slot
    }

    /// Ask for the retransmission timer's next wake-up.
    pub fn request_timer_wake(&mut self, ctx: &mut AppCtx) {
        if !self.inflight.is_empty() {
            if self.p.timeout_check > SimDuration::ZERO {
                ctx.wake_at(self.next_check.max(ctx.now));
            } else if let Some(d) = self.inflight.next_deadline(self.rtt.rto()) {
                ctx.wake_at(d.max(ctx.now));
            }
        }
    }

    pub fn data_event(
        &self,
        now: SimTime,
        pkt: &Packet,
        seq: u64,
        rtt: Option<SimDuration>,
        marked: bool,
    ) -> DataEvent {
        DataEvent {
            now,
            seq,
            rtt,
            srtt: self.rtt.srtt(),
            marked,
            rate_stamp: pkt.rate_stamp(),
            next_seq: self.next_seq,
            highest_received: self.highest_received,
            in_flight: self.inflight.len() as u32,
            data_size: pkt.size,
            interest_size: self.p.interest_size,
            route: pkt.route,
        }
    }

    pub fn loss_event(&self, now: SimTime, seq: u64, nack: Option<NackReason>, marked: bool) -> LossEvent {
        LossEvent {
            now,
            seq,
            nack,
            marked,
            next_seq: self.next_seq,
            highest_received: self.highest_received,
            in_flight: self.inflight.len() as u32,
            srtt: self.rtt.srtt(),
        }
    }

    /// Record a window decrease from `before` to `after`.
    pub fn note_decrease(&self, ctx: &mut AppCtx, before: Option<f64>, after: Option<f64>) {
        if let (Some(b), Some(a)) = (before, after) {
            if a < b {
                ctx.recorder.event(ctx.now, self.ids.me, self.ids.decrease, a);
            }
        }
    }

    /// `seq` was lost: queue it for retransmission, or give it up.
    pub fn schedule_retx(&mut self, seq: u64) {
        let done = self.losses.as_ref().and_then(|l| l.retx_counts.get(&seq).copied()).unwrap_or(0);
        if self.p.retransmit && (self.p.max_retransmissions == 0 || done < self.p.max_retransmissions) {
            self.losses_mut().retx_queue.insert(seq);
        } else {
            self.c.lost_segments += 1;
            self.losses_mut().given_up.insert(seq);
            if let Some(o) = &mut self.objects {
                o.given_up(seq);
            }
        }
    }

    fn losses_mut(&mut self) -> &mut Losses {
        self.losses.get_or_insert_with(Box::default)
    }

    /// Let the emptied parts of the losses go (a set or map emptied of its items keeps their
    /// room, and a set a node of its own), and the box once all are empty.
    fn release_emptied_losses(&mut self) {
        let Some(l) = self.losses.as_deref_mut() else { return };
        if l.retx_queue.is_empty() {
            l.retx_queue = BTreeSet::new();
        }
        if l.retx_counts.is_empty() {
            l.retx_counts = FxHashMap::default();
        }
        if l.given_up.is_empty() {
            l.given_up = FxHashSet::default();
        }
        if l.retx_queue.is_empty() && l.retx_counts.is_empty() && l.given_up.is_empty() {
            self.losses = None;
        }
    }

    /// `seq` is received: its transmissions need no counting any more. (Counted for every
    /// segment ever resent, they grew with the run: a long lossy run kept millions.)
    fn forget_retransmissions(&mut self, seq: u64) {
        if let Some(l) = self.losses.as_deref_mut() {
            l.retx_counts.remove(&seq);
        }
        self.release_emptied_losses();
    }

    /// An Interest that never reached the network (a policer's drop): no Data can come back.
    pub fn forget_given_up(&mut self, seq: u64) {
        if let Some(l) = self.losses.as_deref_mut() {
            l.given_up.remove(&seq);
        }
        self.release_emptied_losses();
    }

    /// How many times `seq` was sent, if it was resent and its Data has not come.
    #[cfg(test)]
    pub(crate) fn retransmissions_of(&self, seq: u64) -> Option<u32> {
        self.losses.as_ref().and_then(|l| l.retx_counts.get(&seq).copied())
    }
    /// Segments waiting to be resent.
    #[cfg(test)]
    pub(crate) fn waiting_for_retransmission(&self) -> usize {
        self.losses.as_ref().map_or(0, |l| l.retx_queue.len())
    }
    /// The consumer keeps nothing of its losses.
    #[cfg(test)]
    pub(crate) fn keeps_no_losses(&self) -> bool {
        self.losses.is_none()
    }

    /// Time out every Interest past its deadline; each is a loss for `ctl`.
    pub fn process_timeouts(&mut self, ctx: &mut AppCtx, ctl: &mut dyn Reactions) {
        // The RTO is read once per check, as ndnSIM's consumers do.
        let rto = self.rtt.rto();
        let mut any = false;
        while let Some((seq, _o)) = self.inflight.pop_expired(ctx.now, rto) {
            self.c.timeouts += 1;
            any = true;
            if self.rtt.policy() == Backoff::PerTimeout {
                self.rtt.backoff();
            }
            ctx.recorder.event(ctx.now, self.ids.me, self.ids.timeout, seq as f64);
            let before = ctl.window_now();
            let ev = self.loss_event(ctx.now, seq, None, false);
            ctl.timeout(&ev);
            self.note_decrease(ctx, before, ctl.window_now());
            self.schedule_retx(seq);
        }
        if any && self.rtt.policy() == Backoff::PerCheck {
            self.rtt.backoff();
        }
    }

    /// A timer wake-up: check the timers when a check is due.
    pub fn on_timer_wake(&mut self, ctx: &mut AppCtx, ctl: &mut dyn Reactions) {
        if self.p.timeout_check == SimDuration::ZERO || ctx.now >= self.next_check {
            self.process_timeouts(ctx, ctl);
            self.next_check = next_poll_after(self.next_check, self.p.timeout_check, ctx.now);
        }
    }

    /// Promise the world that until the oldest timer item's deadline a wake-up is an idle poll:
    /// no timeout falls due before it, and the caller (a window consumer fetching one stream)
    /// has nothing else to do at a wake-up than poll. The oldest item may be answered already
    /// (they are cleared lazily), which only makes the promise shorter: reading the true first
    /// deadline would clear them here, for each packet. Call last in a hook, after sending.
    pub fn promise_idle_polls(&mut self, ctx: &mut AppCtx) {
        // With nothing in flight a wake-up asks for no further one (answered items may still
        // wait in the timer queue, and would make a promise of a poll that never comes).
        if self.p.timeout_check == SimDuration::ZERO || self.objects.is_some() || self.inflight.is_empty() {
            return;
        }
        if let Some(until) = self.inflight.deadline_bound(self.rtt.rto()) {
            ctx.promise_idle_polls(IdlePolls { until, next_poll: self.next_check, period: self.p.timeout_check });
        }
    }

    /// The bookkeeping of an arriving Data for `seq`.
    pub fn on_data(&mut self, ctx: &mut AppCtx, pkt: &Packet, seq: u64) -> Arrival {
        let marked = pkt.is_marked();
        let Some(o) = self.inflight.remove(seq) else {
            self.c.late_data += 1;
            if self.losses.as_deref_mut().is_some_and(|l| l.retx_queue.remove(&seq)) {
                // Data for a segment that timed out and awaits retransmission: it is received.
                self.forget_retransmissions(seq);
                self.c.data_received += 1;
                self.highest_received = self.highest_received.max(seq);
                self.note_received(ctx, seq);
            } else if self.losses.as_deref_mut().is_some_and(|l| l.given_up.remove(&seq)) {
                // Data for a segment given up without retransmission: delivered after all.
                self.forget_retransmissions(seq);
                self.c.data_received += 1;
                self.c.lost_segments = self.c.lost_segments.saturating_sub(1);
                self.highest_received = self.highest_received.max(seq);
                self.note_received(ctx, seq);
                return Arrival::GivenUp(self.data_event(ctx.now, pkt, seq, None, marked));
            }
            return Arrival::Late;
        };
        self.c.answered += 1;
        self.c.data_received += 1;
        self.note_received(ctx, seq);
        if marked {
            self.c.marks += 1;
            ctx.recorder.event(ctx.now, self.ids.me, self.ids.mark, seq as f64);
        }
        self.highest_received = self.highest_received.max(seq);
        if o.retx > 0 {
            self.forget_retransmissions(seq);
        }
        let sample = (o.retx == 0).then(|| ctx.now - o.sent_at);
        // A Data that comes sooner after a retransmission than the fastest round trip ever
        // seen cannot answer it: it answers an earlier transmission, and the retransmission
        // was spurious. (The Data's nonce cannot tell: the first router rewrites it to the
        // nonce of the latest Interest of its PIT entry.)
        if o.retx > 0 && self.min_rtt != SimDuration::MAX && ctx.now - o.sent_at < self.min_rtt {
            self.c.spurious_retransmissions += 1;
        }
        if let Some(r) = sample {
            self.min_rtt = self.min_rtt.min(r);
            self.rtt.add_sample(r);
            self.c.rtt_sum_s += r.as_secs_f64();
            self.c.rtt_samples += 1;
            self.rtt_hist.record(r);
            ctx.recorder.event(ctx.now, self.ids.me, self.ids.rtt, r.as_secs_f64());
            ctx.recorder.event(ctx.now, self.ids.me, self.ids.rto, self.rtt.rto().as_secs_f64());
        }
        Arrival::Answered(self.data_event(ctx.now, pkt, seq, sample, marked), o.order)
    }

    /// A NACK for `seq`: the controller decides whether it ends the transmission.
    pub fn on_nack(&mut self, ctx: &mut AppCtx, pkt: &Packet, seq: u64, reason: NackReason, ctl: &mut dyn Reactions) {
        if !self.inflight.contains(seq) {
            return;
        }
        self.c.nacks += 1;
        ctx.recorder.event(ctx.now, self.ids.me, self.ids.nack, seq as f64);
        let ev = self.loss_event(ctx.now, seq, Some(reason), pkt.is_marked());
        let before = ctl.window_now();
        let action = ctl.nack(&ev);
        self.note_decrease(ctx, before, ctl.window_now());
        if action == NackAction::Retransmit {
            self.inflight.remove(seq);
            self.c.nacks_ended += 1;
            self.schedule_retx(seq);
        }
    }

    /// The samples every consumer records (after its controller's own).
    pub fn sample(&self, now: SimTime, rec: &mut Recorder) {
        let me = self.ids.me;
        rec.sample(now, me, self.ids.in_flight, self.inflight.len() as f64);
        rec.sample(now, me, self.ids.sent, self.c.interests_sent as f64);
        rec.sample(now, me, self.ids.data, self.c.data_received as f64);
        rec.sample(now, me, self.ids.retx, self.c.retransmissions as f64);
        rec.sample(now, me, self.ids.timeouts, self.c.timeouts as f64);
        rec.sample(now, me, self.ids.nacks, self.c.nacks as f64);
        rec.sample(now, me, self.ids.marks, self.c.marks as f64);
        rec.sample(now, me, self.ids.spurious, self.c.spurious_retransmissions as f64);
        if let Some(s) = self.rtt.srtt() {
            rec.sample(now, me, self.ids.srtt, s.as_secs_f64());
        }
        rec.sample(now, me, self.ids.rto_now, self.rtt.rto().as_secs_f64());
        if let Some(o) = &self.objects {
            o.sample(now, rec, me);
        }
    }

    pub fn summary(&self, end: SimTime, out: &mut Vec<SummaryRow>) {
        let n = self.p.name.as_str();
        let c = &self.c;
        let mut row = |m: &str, v: f64, u: Unit| out.push(SummaryRow::new(n, "consumer", m, v, u));
        row("interests_sent", c.interests_sent as f64, Unit::Packets);
        row("retransmissions", c.retransmissions as f64, Unit::Packets);
        row("data_received", c.data_received as f64, Unit::Packets);
        row("late_data", c.late_data as f64, Unit::Packets);
        row("timeouts", c.timeouts as f64, Unit::Events);
        row("nacks", c.nacks as f64, Unit::Packets);
        row("marks", c.marks as f64, Unit::Packets);
        row("lost_segments", c.lost_segments as f64, Unit::Segments);
        row("policed", c.policed as f64, Unit::Packets);
        row("spurious_retransmissions", c.spurious_retransmissions as f64, Unit::Packets);
        let payload_bytes = c.data_received as f64 * self.p.payload as f64;
        row("payload_bytes", payload_bytes, Unit::Bytes);
        let start = self.started_at.get().unwrap_or(end);
        let active_end = self.completed_at.get().or(self.stopped_at.get()).unwrap_or(end).min(end);
        let active = active_end.saturating_since(start).as_secs_f64();
        if let Some(done) = self.completed_at.get() {
            row("download_time_s", done.saturating_since(start).as_secs_f64(), Unit::S);
        }
        row("completed", f64::from(u8::from(self.completed_at.get().is_some())), Unit::Bool);
        if active > 0.0 {
            row("throughput_kbps", payload_bytes * 8.0 / active / 1e3, Unit::Kbps);
        }
        if c.data_received > 0 {
            row("retx_per_data", c.retransmissions as f64 / c.data_received as f64, Unit::Ratio);
        }
        if c.interests_sent > 0 {
            row("unanswered_rate", 1.0 - c.data_received as f64 / c.interests_sent as f64, Unit::Ratio);
        }
        if c.rtt_samples > 0 {
            row("mean_rtt_ms", c.rtt_sum_s / c.rtt_samples as f64 * 1e3, Unit::Ms);
        }
        self.rtt_hist.percentile_rows(RTT_PERCENTILES, &mut row);
        // Only when it happened: a run within the limits reports what it always did.
        if let Some(t) = self.limit_reached_at.get() {
            row("in_flight_limit", self.p.max_in_flight as f64, Unit::Packets);
            row("in_flight_limit_reached_s", t.as_secs_f64(), Unit::S);
        }
        if let Some(o) = &self.objects {
            o.summary(n, out);
        }
    }

    /// Whether another Interest may go out: fewer than `p.max_in_flight` are in flight. The
    /// first refusal is remembered for the summary.
    pub fn below_in_flight_limit(&mut self, now: SimTime) -> bool {
        if self.inflight.len() < self.p.max_in_flight {
            return true;
        }
        if self.limit_reached_at.get().is_none() {
            self.limit_reached_at = Moment::at(now);
        }
        false
    }

    pub fn conservation(&self) -> Conservation {
        Conservation {
            sent: self.c.interests_sent,
            answered_by_data: self.c.answered,
            ended_by_nack: self.c.nacks_ended,
            ended_by_hole: self.c.holes_ended,
            ended_by_policer: self.c.policed,
            timed_out: self.c.timeouts,
            in_flight: self.inflight.len() as u64,
        }
    }
}

#[cfg(test)]
pub(crate) mod testkit {
    use super::*;

    /// Settings of a consumer "C" of "/p" with a scenario's defaults, `payload` bytes per Data.
    pub fn params(payload: u32) -> ConsumerParams {
        let lifetime = SimDuration::from_secs(2);
        ConsumerParams {
            name: "C".into(),
            prefix: NameId(0),
            interest_size: wire_u32(interest_wire_size(&crate::names::components("/p"), 0, lifetime.nanos())),
            encoded_size: true,
            payload,
            lifetime,
            retransmit: true,
            max_retransmissions: 0,
            timeout_check: SimDuration::from_millis(50),
            rto_per_interest: false,
            segments: None,
            rtt: RttConfig::default(),
            interest_bucket: 200,
            smoothing: false,
            objects: None,
            // The largest window a scenario may ask for (`check::MAX_WINDOW`), as a scenario's
            // consumer gets before its network's limit is known.
            max_in_flight: 1_000_000,
        }
    }

    /// Run `f` at `ms` with a fresh context; returns the packets it sent.
    pub fn at<T>(app: &mut T, rec: &mut Recorder, ms: u64, f: impl FnOnce(&mut T, &mut AppCtx)) -> Vec<Packet> {
        let mut out = Vec::new();
        let mut ctx = AppCtx::new(SimTime(SimDuration::from_millis(ms).0), &mut out, rec);
        f(app, &mut ctx);
        out
    }

    /// A window-1 consumer: seg 0 answered after 50 ms (the minimum RTT); seg 1, sent at 50 ms,
    /// times out at the 300 ms check (RTO 200 ms) and is resent then, unanswered so far.
    pub fn resent_once(rec: &mut Recorder) -> WindowConsumer {
        use crate::cc::window::{FixedWindow, FixedWindowConfig};
        let ctl = Box::new(FixedWindow::new(&FixedWindowConfig { window: 1.0 }));
        let mut c = WindowConsumer::new(params(1024), ctl, crate::rng::stream(1, "c"), rec);
        at(&mut c, rec, 0, |c, ctx| c.on_start(ctx));
        at(&mut c, rec, 50, |c, ctx| c.on_packet(ctx, &data(0)));
        let resent = at(&mut c, rec, 300, |c, ctx| c.on_wake(ctx));
        assert_eq!(resent.iter().map(|p| p.name().map(|n| n.seg)).collect::<Vec<_>>(), vec![Some(1)]);
        c
    }

    pub fn data(seg: u64) -> Packet {
        let i = Packet::interest(Name { prefix: NameId(0), seg }, 40, 0, 0);
        Packet::data_for(i.ndn().expect("an Interest"), 1250)
    }
}

#[cfg(test)]
mod spurious_tests {
    use super::testkit::{at, data, resent_once};
    use super::*;
    use crate::recorder::EventSamples;

    /// Seg 1 of `resent_once`'s consumer answered at `answer_ms`: the spurious retransmissions
    /// counted.
    fn spurious_after(answer_ms: u64) -> f64 {
        let mut rec = Recorder::new(EventSamples::Skipped);
        let mut c = resent_once(&mut rec);
        at(&mut c, &mut rec, answer_ms, |c, ctx| c.on_packet(ctx, &data(1)));
        let mut rows = Vec::new();
        c.summary(SimTime(SimDuration::from_secs(1).0), &mut rows);
        rows.iter().find(|r| r.metric == "spurious_retransmissions").map_or(f64::NAN, |r| r.value)
    }

    #[test]
    fn a_data_sooner_than_the_minimum_rtt_after_a_retransmission_makes_it_spurious() {
        // 10 ms after the resend: it answers the first transmission.
        assert_eq!(spurious_after(310), 1.0);
        // 60 ms after it, longer than the 50 ms minimum: it may answer the resend.
        assert_eq!(spurious_after(360), 0.0);
    }
}

#[cfg(test)]
mod layout_tests {
    use super::*;
    use std::mem::offset_of;

    /// A world of 10,000 flows keeps 10,000 consumers, each in an allocation of its own whose
    /// size the allocator rounds up to a class (768 and 1,024 bytes are neighbours): at 912
    /// bytes a window consumer took 1,024.
    #[test]
    fn a_window_consumer_fits_768_bytes() {
        assert!(std::mem::size_of::<WindowConsumer>() <= 768, "{}", std::mem::size_of::<WindowConsumer>());
    }

    /// What a Data and the Interest it lets out read lies in the consumer's first ten
    /// lines, the parameters they read included; what only losses and the summary read comes
    /// after.
    #[test]
    fn what_every_packet_reads_leads_the_consumer() {
        let p = offset_of!(ConsumerCore, p);
        let hot_end = [
            offset_of!(ConsumerCore, inflight) + std::mem::size_of::<InFlight>(),
            offset_of!(ConsumerCore, rtt_hist) + std::mem::size_of::<Histogram>(),
            offset_of!(ConsumerCore, c) + offset_of!(Counters, marks) + 8,
            offset_of!(ConsumerCore, ids) + std::mem::size_of::<Ids>(),
            p + offset_of!(ConsumerParams, max_in_flight) + 8,
        ];
        assert!(hot_end.iter().all(|&end| end <= 10 * 64), "{hot_end:?}");
        for cold in [
            offset_of!(ConsumerCore, started_at),
            offset_of!(ConsumerCore, limit_reached_at),
            p + offset_of!(ConsumerParams, name),
        ] {
            assert!(cold >= 10 * 64, "a cold field at {cold}");
        }
    }
}
