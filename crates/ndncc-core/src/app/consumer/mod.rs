//! The consumer application: sequencing, retransmission timers, retransmissions before new
//! segments (lowest first), and the hand-off of every event to its congestion controller.
//!
//! A consumer fetches segments 0, 1, 2, … of its prefix, either a file of N segments or for as
//! long as it runs. Its controller is either a window (`WindowControl`: how many Interests may be
//! in flight) or a rate (`RateControl`: Interests per second, paced by a credit counter that
//! releases due Interests on each wake-up — on a coarse clock only at tick edges, or also on each
//! Data/NACK arrival when `smoothing` is on).

mod inflight;

use std::collections::BTreeSet;

use rand::Rng;
use rustc_hash::FxHashMap;

pub use inflight::{InFlight, Outstanding};

use super::{AppCtx, Application, Conservation};
use crate::cc::{DataEvent, HoleAction, HoleEvent, LossEvent, NackAction, RateControl, SentEvent, WindowControl};
use crate::ids::NameId;
use crate::packet::{Name, Packet, PacketKind};
use crate::recorder::{EntityId, MetricId, Recorder, SummaryRow};
use crate::rng::SimRng;
use crate::rtt::{Backoff, RttConfig, RttEstimator};
use crate::time::{SimDuration, SimTime};

/// Everything a consumer needs to know, resolved from the scenario.
#[derive(Clone, Debug)]
pub struct ConsumerParams {
    pub name: String,
    pub prefix: NameId,
    /// Interest size on the wire [bytes].
    pub interest_size: u32,
    /// Payload of each Data [bytes] (goodput accounting).
    pub payload: u32,
    pub lifetime: SimDuration,
    pub retransmit: bool,
    /// 0 = unlimited.
    pub max_retransmissions: u32,
    /// Polling period of the retransmission timer; zero = exact per-deadline wake-ups.
    pub timeout_check: SimDuration,
    pub rto_per_interest: bool,
    /// Fetch segments 0..N-1 then stop; `None` = run until stopped.
    pub segments: Option<u64>,
    pub rtt: RttConfig,
    /// Rate consumers: due Interests that may wait for release before new ones are dropped; 0 =
    /// unlimited.
    pub interest_bucket: usize,
    /// Rate consumers: release due Interests on Data/NACK arrival too.
    pub smoothing: bool,
}

pub enum Controller {
    Window(Box<dyn WindowControl>),
    Rate(Box<dyn RateControl>),
}

#[derive(Clone, Copy, Debug, Default)]
struct Counters {
    interests_sent: u64,
    retransmissions: u64,
    data_received: u64,
    answered: u64,
    late_data: u64,
    nacks: u64,
    nacks_ended: u64,
    /// Transmissions given up as sequence holes (and resent).
    holes_ended: u64,
    marks: u64,
    timeouts: u64,
    lost_segments: u64,
    policed: u64,
    rtt_sum_s: f64,
    rtt_samples: u64,
}

struct Ids {
    me: EntityId,
    rtt: MetricId,
    rto: MetricId,
    timeout: MetricId,
    nack: MetricId,
    mark: MetricId,
    hole: MetricId,
    decrease: MetricId,
    window: MetricId,
    ssthresh: MetricId,
    rate: MetricId,
    in_flight: MetricId,
    sent: MetricId,
    data: MetricId,
    retx: MetricId,
    timeouts: MetricId,
    nacks: MetricId,
    marks: MetricId,
    srtt: MetricId,
    rto_now: MetricId,
}

pub struct Consumer {
    p: ConsumerParams,
    ctl: Controller,
    rtt: RttEstimator,
    rng: SimRng,
    inflight: InFlight,
    retx_queue: BTreeSet<u64>,
    retx_counts: FxHashMap<u64, u32>,
    next_seq: u64,
    highest_received: Option<u64>,
    order: u64,
    sending: bool,
    next_check: SimTime,
    /// Rate pacing: Interests due but not yet released, and when that was last brought up to date.
    credit: f64,
    credit_at: SimTime,
    c: Counters,
    ids: Ids,
    started_at: Option<SimTime>,
    stopped_at: Option<SimTime>,
    completed_at: Option<SimTime>,
    holes: Vec<u64>,
}

impl Consumer {
    pub fn new(p: ConsumerParams, ctl: Controller, rng: SimRng, rec: &mut Recorder) -> Consumer {
        let me = rec.entity(&p.name);
        let mut m = |n: &str| rec.metric(n);
        let ids = Ids {
            me,
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
        };
        let track_holes = matches!(&ctl, Controller::Window(w) if w.detects_holes());
        Consumer {
            rtt: RttEstimator::new(p.rtt),
            inflight: InFlight::new(p.rto_per_interest, track_holes),
            p,
            ctl,
            rng,
            retx_queue: BTreeSet::new(),
            retx_counts: FxHashMap::default(),
            next_seq: 0,
            highest_received: None,
            order: 0,
            sending: false,
            next_check: SimTime::ZERO,
            credit: 0.0,
            credit_at: SimTime::ZERO,
            c: Counters::default(),
            ids,
            started_at: None,
            stopped_at: None,
            completed_at: None,
            holes: Vec::new(),
        }
    }

    fn window_now(&self) -> Option<f64> {
        match &self.ctl {
            Controller::Window(w) => Some(w.window()),
            Controller::Rate(_) => None,
        }
    }

    fn complete(&self) -> bool {
        self.p.segments.is_some_and(|n| self.c.data_received >= n)
    }

    /// Next segment to send: retransmissions first, lowest first; then a new segment.
    fn next_to_send(&mut self) -> Option<(u64, bool)> {
        if let Some(s) = self.retx_queue.pop_first() {
            return Some((s, true));
        }
        if self.p.segments.is_some_and(|n| self.next_seq >= n) {
            return None;
        }
        self.next_seq += 1;
        Some((self.next_seq - 1, false))
    }

    fn has_something_to_send(&self) -> bool {
        !self.retx_queue.is_empty() || self.p.segments.is_none_or(|n| self.next_seq < n)
    }

    fn send_interest(&mut self, ctx: &mut AppCtx, seq: u64, is_retx: bool) {
        let retx = if is_retx {
            let n = self.retx_counts.entry(seq).or_insert(0);
            *n += 1;
            *n
        } else {
            0
        };
        let nonce: u32 = self.rng.gen();
        let pkt = Packet::interest(Name { prefix: self.p.prefix, seg: seq }, self.p.interest_size, nonce, self.p.lifetime.0);
        let o = Outstanding { sent_at: ctx.now, retx, order: self.order, rto: self.rtt.rto(), hole_reported: false };
        self.order += 1;
        self.inflight.insert(seq, o);
        self.c.interests_sent += 1;
        if retx > 0 {
            self.c.retransmissions += 1;
        }
        let ev = SentEvent { now: ctx.now, seq, retransmission: retx > 0, in_flight: self.inflight.len() as u32 };
        if let Controller::Window(w) = &mut self.ctl {
            w.on_interest_sent(&ev);
        }
        ctx.send(pkt);
    }

    /// Send as much as the window allows.
    fn pump_window(&mut self, ctx: &mut AppCtx) {
        while self.sending {
            let Controller::Window(w) = &self.ctl else { return };
            let allowed = (w.window().floor() as usize).max(1);
            if self.inflight.len() >= allowed {
                break;
            }
            let Some((seq, is_retx)) = self.next_to_send() else { break };
            self.send_interest(ctx, seq, is_retx);
        }
    }

    /// Rate mode: bring the credit up to `now` at the controller's current rate.
    fn accrue(&mut self, now: SimTime) {
        let Controller::Rate(r) = &self.ctl else { return };
        if self.sending {
            let dt = now.saturating_since(self.credit_at).as_secs_f64();
            self.credit += dt * r.rate().max(0.0);
            let cap = self.p.interest_bucket as f64;
            if self.p.interest_bucket > 0 && self.credit > cap {
                let excess = (self.credit - cap).floor();
                self.c.policed += excess as u64;
                self.credit -= excess;
            }
        }
        self.credit_at = now;
    }

    /// Rate mode: release every whole Interest of credit.
    fn release_due(&mut self, ctx: &mut AppCtx) {
        while self.sending && self.credit >= 1.0 {
            let Some((seq, is_retx)) = self.next_to_send() else {
                self.credit = self.credit.min(1.0);
                break;
            };
            self.credit -= 1.0;
            self.send_interest(ctx, seq, is_retx);
        }
    }

    fn request_wakes(&mut self, ctx: &mut AppCtx) {
        // Retransmission timer.
        if !self.inflight.is_empty() {
            if self.p.timeout_check > SimDuration::ZERO {
                ctx.wake_at(self.next_check.max(ctx.now));
            } else if let Some(d) = self.inflight.next_deadline(self.rtt.rto()) {
                ctx.wake_at(d.max(ctx.now));
            }
        }
        // Rate pacing: when the next whole Interest of credit accrues.
        if let Controller::Rate(r) = &self.ctl {
            let rate = r.rate();
            if self.sending && rate > 0.0 && self.has_something_to_send() {
                let need = (1.0 - self.credit).max(0.0);
                let at = self.credit_at + SimDuration::from_secs_f64(need / rate);
                ctx.wake_at(at.max(ctx.now + SimDuration(1)).max(self.credit_at));
            }
        }
    }

    fn loss_event(&self, now: SimTime, seq: u64, nack: Option<crate::packet::NackReason>, marked: bool) -> LossEvent {
        LossEvent {
            now,
            seq,
            nack,
            marked,
            next_seq: self.next_seq,
            highest_received: self.highest_received.unwrap_or(0),
            in_flight: self.inflight.len() as u32,
            srtt: self.rtt.srtt(),
        }
    }

    fn note_decrease(&self, ctx: &mut AppCtx, before: Option<f64>) {
        if let (Some(b), Some(a)) = (before, self.window_now()) {
            if a < b {
                ctx.recorder.event(ctx.now, self.ids.me, self.ids.decrease, a);
            }
        }
    }

    fn schedule_retx(&mut self, seq: u64) {
        let done = self.retx_counts.get(&seq).copied().unwrap_or(0);
        if self.p.retransmit && (self.p.max_retransmissions == 0 || done < self.p.max_retransmissions) {
            self.retx_queue.insert(seq);
        } else {
            self.c.lost_segments += 1;
        }
    }

    fn process_timeouts(&mut self, ctx: &mut AppCtx) {
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
            let before = self.window_now();
            let ev = self.loss_event(ctx.now, seq, None, false);
            match &mut self.ctl {
                Controller::Window(w) => w.on_timeout(&ev),
                Controller::Rate(r) => r.on_timeout(&ev),
            }
            self.note_decrease(ctx, before);
            self.schedule_retx(seq);
        }
        if any && self.rtt.policy() == Backoff::PerCheck {
            self.rtt.backoff();
        }
    }

    fn on_data(&mut self, ctx: &mut AppCtx, pkt: &Packet) {
        let seq = pkt.name.seg;
        let marked = pkt.is_marked();
        let Some(o) = self.inflight.remove(seq) else {
            if self.retx_queue.remove(&seq) {
                // Data for a segment that timed out and awaits retransmission: it is received.
                self.c.late_data += 1;
                self.c.data_received += 1;
                self.highest_received = Some(self.highest_received.map_or(seq, |h| h.max(seq)));
            } else {
                self.c.late_data += 1;
            }
            return;
        };
        self.c.answered += 1;
        self.c.data_received += 1;
        if marked {
            self.c.marks += 1;
            ctx.recorder.event(ctx.now, self.ids.me, self.ids.mark, seq as f64);
        }
        self.highest_received = Some(self.highest_received.map_or(seq, |h| h.max(seq)));
        let sample = (o.retx == 0).then(|| ctx.now - o.sent_at);
        if let Some(r) = sample {
            self.rtt.add_sample(r);
            self.c.rtt_sum_s += r.as_secs_f64();
            self.c.rtt_samples += 1;
            ctx.recorder.event(ctx.now, self.ids.me, self.ids.rtt, r.as_secs_f64());
            ctx.recorder.event(ctx.now, self.ids.me, self.ids.rto, self.rtt.rto().as_secs_f64());
        }
        let ev = DataEvent {
            now: ctx.now,
            seq,
            rtt: sample,
            srtt: self.rtt.srtt(),
            marked,
            rate_stamp: pkt.rate,
            next_seq: self.next_seq,
            highest_received: self.highest_received.unwrap_or(0),
            in_flight: self.inflight.len() as u32,
            data_size: pkt.size,
            interest_size: self.p.interest_size,
        };
        let before = self.window_now();
        match &mut self.ctl {
            Controller::Window(w) => {
                w.on_data(&ev);
                if w.detects_holes() {
                    let mut holes = std::mem::take(&mut self.holes);
                    self.inflight.new_holes_below(seq, o.order, &mut holes);
                    for &h in &holes {
                        ctx.recorder.event(ctx.now, self.ids.me, self.ids.hole, h as f64);
                        let hev = HoleEvent {
                            now: ctx.now,
                            seq,
                            hole: h,
                            next_seq: self.next_seq,
                            highest_received: self.highest_received.unwrap_or(0),
                            in_flight: self.inflight.len() as u32,
                        };
                        let Controller::Window(w) = &mut self.ctl else { unreachable!() };
                        if w.on_hole(&hev) == HoleAction::Retransmit && self.inflight.remove(h).is_some() {
                            self.c.holes_ended += 1;
                            self.schedule_retx(h);
                        }
                    }
                    holes.clear();
                    self.holes = holes;
                }
            }
            Controller::Rate(r) => r.on_data(&ev),
        }
        self.note_decrease(ctx, before);
        if self.completed_at.is_none() && self.complete() {
            self.completed_at = Some(ctx.now);
            self.sending = false;
        }
    }

    fn on_nack(&mut self, ctx: &mut AppCtx, pkt: &Packet, reason: crate::packet::NackReason) {
        let seq = pkt.name.seg;
        if !self.inflight.contains(seq) {
            return;
        }
        self.c.nacks += 1;
        ctx.recorder.event(ctx.now, self.ids.me, self.ids.nack, seq as f64);
        let ev = self.loss_event(ctx.now, seq, Some(reason), pkt.is_marked());
        let before = self.window_now();
        let action = match &mut self.ctl {
            Controller::Window(w) => w.on_nack(&ev),
            Controller::Rate(r) => r.on_nack(&ev),
        };
        self.note_decrease(ctx, before);
        if action == NackAction::Retransmit {
            self.inflight.remove(seq);
            self.c.nacks_ended += 1;
            self.schedule_retx(seq);
        }
    }

    fn after_event(&mut self, ctx: &mut AppCtx) {
        match self.ctl {
            Controller::Window(_) => self.pump_window(ctx),
            Controller::Rate(_) => {
                self.accrue(ctx.now);
                self.release_due(ctx);
            }
        }
        self.request_wakes(ctx);
    }
}

impl Application for Consumer {
    fn on_start(&mut self, ctx: &mut AppCtx) {
        self.sending = true;
        self.started_at = Some(ctx.now);
        self.next_check = ctx.now + self.p.timeout_check;
        self.credit_at = ctx.now;
        // A rate consumer sends its first Interest at once.
        self.credit = 1.0;
        self.after_event(ctx);
    }

    fn on_stop(&mut self, ctx: &mut AppCtx) {
        self.accrue(ctx.now);
        self.sending = false;
        self.stopped_at = Some(ctx.now);
    }

    fn on_packet(&mut self, ctx: &mut AppCtx, packet: &Packet) {
        match packet.kind {
            PacketKind::Data => self.on_data(ctx, packet),
            PacketKind::Nack(r) => self.on_nack(ctx, packet, r),
            PacketKind::Interest => return,
        }
        match self.ctl {
            Controller::Window(_) => self.pump_window(ctx),
            Controller::Rate(_) if self.p.smoothing => {
                self.accrue(ctx.now);
                self.release_due(ctx);
            }
            Controller::Rate(_) => {}
        }
        self.request_wakes(ctx);
    }

    fn on_wake(&mut self, ctx: &mut AppCtx) {
        if self.p.timeout_check == SimDuration::ZERO || ctx.now >= self.next_check {
            self.process_timeouts(ctx);
            if self.p.timeout_check > SimDuration::ZERO {
                while self.next_check <= ctx.now {
                    self.next_check += self.p.timeout_check;
                }
            }
        }
        self.after_event(ctx);
    }

    fn sample(&self, now: SimTime, rec: &mut Recorder) {
        let me = self.ids.me;
        match &self.ctl {
            Controller::Window(w) => {
                rec.sample(now, me, self.ids.window, w.window());
                if let Some(s) = w.ssthresh() {
                    rec.sample(now, me, self.ids.ssthresh, s);
                }
            }
            Controller::Rate(r) => rec.sample(now, me, self.ids.rate, if self.sending { r.rate() } else { 0.0 }),
        }
        rec.sample(now, me, self.ids.in_flight, self.inflight.len() as f64);
        rec.sample(now, me, self.ids.sent, self.c.interests_sent as f64);
        rec.sample(now, me, self.ids.data, self.c.data_received as f64);
        rec.sample(now, me, self.ids.retx, self.c.retransmissions as f64);
        rec.sample(now, me, self.ids.timeouts, self.c.timeouts as f64);
        rec.sample(now, me, self.ids.nacks, self.c.nacks as f64);
        rec.sample(now, me, self.ids.marks, self.c.marks as f64);
        if let Some(s) = self.rtt.srtt() {
            rec.sample(now, me, self.ids.srtt, s.as_secs_f64());
        }
        rec.sample(now, me, self.ids.rto_now, self.rtt.rto().as_secs_f64());
    }

    fn summary(&self, end: SimTime, out: &mut Vec<SummaryRow>) {
        let n = self.p.name.as_str();
        let c = &self.c;
        let mut row = |m: &str, v: f64, u: &str| out.push(SummaryRow::new(n, "consumer", m, v, u));
        row("interests_sent", c.interests_sent as f64, "packets");
        row("retransmissions", c.retransmissions as f64, "packets");
        row("data_received", c.data_received as f64, "packets");
        row("late_data", c.late_data as f64, "packets");
        row("timeouts", c.timeouts as f64, "events");
        row("nacks", c.nacks as f64, "packets");
        row("marks", c.marks as f64, "packets");
        row("lost_segments", c.lost_segments as f64, "segments");
        row("policed", c.policed as f64, "packets");
        let payload_bytes = c.data_received as f64 * self.p.payload as f64;
        row("payload_bytes", payload_bytes, "bytes");
        let start = self.started_at.unwrap_or(end);
        let active_end = self.completed_at.or(self.stopped_at).unwrap_or(end).min(end);
        let active = active_end.saturating_since(start).as_secs_f64();
        if let Some(done) = self.completed_at {
            row("download_time_s", done.saturating_since(start).as_secs_f64(), "s");
        }
        row("completed", f64::from(u8::from(self.completed_at.is_some())), "bool");
        if active > 0.0 {
            row("throughput_kbps", payload_bytes * 8.0 / active / 1e3, "kbit/s");
        }
        if c.data_received > 0 {
            row("loss_rate", c.retransmissions as f64 / c.data_received as f64, "ratio");
        }
        if c.interests_sent > 0 {
            row("unanswered_rate", 1.0 - c.data_received as f64 / c.interests_sent as f64, "ratio");
        }
        if c.rtt_samples > 0 {
            row("mean_rtt_ms", c.rtt_sum_s / c.rtt_samples as f64 * 1e3, "ms");
        }
    }

    fn conservation(&self) -> Option<Conservation> {
        Some(Conservation {
            sent: self.c.interests_sent,
            answered_by_data: self.c.answered,
            ended_by_nack: self.c.nacks_ended,
            ended_by_hole: self.c.holes_ended,
            timed_out: self.c.timeouts,
            in_flight: self.inflight.len() as u64,
        })
    }
}
