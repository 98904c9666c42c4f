//! The consumer application: sequencing, retransmission timers, retransmissions before new
//! segments (lowest first), and the hand-off of every event to its congestion controller.
//!
//! A consumer fetches segments 0, 1, 2, … of its prefix, either a file of N segments or for as
//! long as it runs. Its controller is either a window (`WindowControl`: how many Interests may be
//! in flight) or a rate (`RateControl`: Interests per second).
//!
//! Rate mode follows seed 000's coarse-clock consumer (its Section III.B, Fig. 3):
//!
//! ```text
//!   Interests fall due at the controller's rate ──▶ [ due, not yet released: `credit` ]
//!        release (wake-up; on a coarse clock only at tick edges; with `smoothing` also at
//!        every Data/NACK arrival): all whole due Interests at once
//!        ──▶ policer of depth `interest_bucket`: the first `interest_bucket` go to the node,
//!            the rest of that release are dropped ("policed")
//! ```
//!
//! The seed's consumer queues Interests as they fall due and hands the whole queue to the
//! network at each tick, where a 200-deep token bucket polices them; the Interests it refuses
//! were sent by the application and are lost. So a policed Interest takes its segment number
//! and counts in `interests_sent` (the denominator of the seed's loss rate, 1 − Data received /
//! Interests sent, and of its Interest sending rate), then ends as lost (retransmitted later
//! when retransmission is on). The bucket is taken to be empty at each release, which holds
//! when it drains faster than Interests fall due (as in seed 000, where it drains at the access
//! link's 1,000 Data/s). Credit accrues at the rate in force until a Data or NACK changes it.
//!
//! A Data that arrives after its Interest was given up (timed out with retransmission off, or
//! out of retransmissions) is still delivered: it counts in `data_received` and `late_data`,
//! and a rate controller sees it (a MIRCC stamp in it is as valid as any).

mod inflight;

use std::collections::BTreeSet;

use rand::Rng;
use rustc_hash::{FxHashMap, FxHashSet};

pub use inflight::{InFlight, Outstanding};

use super::{AppCtx, Application, Conservation};
use crate::cc::{DataEvent, HoleAction, HoleEvent, LossEvent, NackAction, RateControl, SentEvent, WindowControl};
use crate::ids::NameId;
use crate::packet::{Name, NdnKind, Packet};
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
    /// Rate consumers: depth of the Interest policer [Interests]: the most Interests one release
    /// puts on the network; the rest of that release are counted as sent and lost. 0 = no
    /// policer.
    pub interest_bucket: usize,
    /// Rate consumers: release due Interests on Data/NACK arrival too (seed 000's smoothing).
    pub smoothing: bool,
}

impl ConsumerParams {
    /// A consumer called `name` with the defaults a scenario file gets (40 B Interests, 1,024 B
    /// payload, 2 s lifetime, retransmission on, timers polled every 50 ms, ndnSIM's RTO), except
    /// `interest_bucket` = 0 (unlimited). `prefix` is set when the consumer is added to a world.
    pub fn new(name: &str) -> ConsumerParams {
        ConsumerParams {
            name: name.to_owned(),
            prefix: NameId::default(),
            interest_size: 40,
            payload: 1024,
            lifetime: SimDuration::from_secs(2),
            retransmit: true,
            max_retransmissions: 0,
            timeout_check: SimDuration::from_millis(50),
            rto_per_interest: false,
            segments: None,
            rtt: RttConfig::default(),
            interest_bucket: 0,
            smoothing: false,
        }
    }
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
    /// Interests dropped by the consumer's policer (counted in `interests_sent`).
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
    policed: MetricId,
}

pub struct Consumer {
    p: ConsumerParams,
    ctl: Controller,
    rtt: RttEstimator,
    rng: SimRng,
    inflight: InFlight,
    retx_queue: BTreeSet<u64>,
    retx_counts: FxHashMap<u64, u32>,
    /// Segments given up without retransmission whose Data may still arrive.
    given_up: FxHashSet<u64>,
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
            policed: m("policed"),
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
            given_up: FxHashSet::default(),
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

    /// Count one transmission of `seq`; returns how many times it had been sent before.
    fn count_sent(&mut self, seq: u64, is_retx: bool) -> u32 {
        let retx = if is_retx {
            let n = self.retx_counts.entry(seq).or_insert(0);
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

    fn send_interest(&mut self, ctx: &mut AppCtx, seq: u64, is_retx: bool) {
        let retx = self.count_sent(seq, is_retx);
        let nonce: u32 = self.rng.gen();
        let pkt =
            Packet::interest(Name { prefix: self.p.prefix, seg: seq }, self.p.interest_size, nonce, self.p.lifetime.0);
        let o = Outstanding { sent_at: ctx.now, retx, order: self.order, rto: self.rtt.rto(), hole_reported: false };
        self.order += 1;
        self.inflight.insert(seq, o);
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
        }
        self.credit_at = now;
    }

    /// Rate mode: release every whole Interest of credit; past the policer's depth, the rest of
    /// the release are policed.
    fn release_due(&mut self, ctx: &mut AppCtx) {
        let mut released = 0usize;
        while self.sending && self.credit >= 1.0 {
            let Some((seq, is_retx)) = self.next_to_send() else {
                self.credit = self.credit.min(1.0);
                break;
            };
            self.credit -= 1.0;
            if self.p.interest_bucket > 0 && released >= self.p.interest_bucket {
                self.police(ctx, seq, is_retx);
            } else {
                self.send_interest(ctx, seq, is_retx);
            }
            released += 1;
        }
    }

    /// An Interest the policer drops: sent by the application, lost before the network.
    fn police(&mut self, ctx: &mut AppCtx, seq: u64, is_retx: bool) {
        self.count_sent(seq, is_retx);
        self.c.policed += 1;
        ctx.recorder.event(ctx.now, self.ids.me, self.ids.policed, seq as f64);
        self.schedule_retx(seq);
        // No Data can come back for it.
        self.given_up.remove(&seq);
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

    fn data_event(&self, now: SimTime, pkt: &Packet, seq: u64, rtt: Option<SimDuration>, marked: bool) -> DataEvent {
        DataEvent {
            now,
            seq,
            rtt,
            srtt: self.rtt.srtt(),
            marked,
            rate_stamp: pkt.rate_stamp(),
            next_seq: self.next_seq,
            highest_received: self.highest_received.unwrap_or(0),
            in_flight: self.inflight.len() as u32,
            data_size: pkt.size,
            interest_size: self.p.interest_size,
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
            self.given_up.insert(seq);
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

    fn on_data(&mut self, ctx: &mut AppCtx, pkt: &Packet, seq: u64) {
        let marked = pkt.is_marked();
        let Some(o) = self.inflight.remove(seq) else {
            self.c.late_data += 1;
            if self.retx_queue.remove(&seq) {
                // Data for a segment that timed out and awaits retransmission: it is received.
                self.c.data_received += 1;
                self.highest_received = Some(self.highest_received.map_or(seq, |h| h.max(seq)));
            } else if self.given_up.remove(&seq) {
                // Data for a segment given up without retransmission: delivered after all.
                self.c.data_received += 1;
                self.c.lost_segments = self.c.lost_segments.saturating_sub(1);
                self.highest_received = Some(self.highest_received.map_or(seq, |h| h.max(seq)));
                let ev = self.data_event(ctx.now, pkt, seq, None, marked);
                if let Controller::Rate(r) = &mut self.ctl {
                    r.on_data(&ev);
                }
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
        let ev = self.data_event(ctx.now, pkt, seq, sample, marked);
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

    fn on_nack(&mut self, ctx: &mut AppCtx, pkt: &Packet, seq: u64, reason: crate::packet::NackReason) {
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
        // Credit earned so far accrues at the rate in force before this packet changes it.
        self.accrue(ctx.now);
        let Some(h) = packet.ndn() else { return };
        match h.kind {
            NdnKind::Data => self.on_data(ctx, packet, h.name.seg),
            NdnKind::Nack(r) => self.on_nack(ctx, packet, h.name.seg, r),
            NdnKind::Interest => return,
        }
        match self.ctl {
            Controller::Window(_) => self.pump_window(ctx),
            Controller::Rate(_) if self.p.smoothing => self.release_due(ctx),
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
            row("retx_per_data", c.retransmissions as f64 / c.data_received as f64, "ratio");
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
            ended_by_policer: self.c.policed,
            timed_out: self.c.timeouts,
            in_flight: self.inflight.len() as u64,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::rate::{ConstantRate, ConstantRateConfig};
    use crate::rng::stream;

    fn params(bucket: usize, smoothing: bool) -> ConsumerParams {
        ConsumerParams {
            payload: 1200,
            retransmit: false,
            interest_bucket: bucket,
            smoothing,
            ..ConsumerParams::new("C")
        }
    }

    fn consumer(rate: f64, bucket: usize, smoothing: bool, rec: &mut Recorder) -> Consumer {
        let ctl = Controller::Rate(Box::new(ConstantRate::new(&ConstantRateConfig { rate })));
        Consumer::new(params(bucket, smoothing), ctl, stream(1, "c"), rec)
    }

    /// Run `f` at `ms` and return the Interests it sent.
    fn at(c: &mut Consumer, rec: &mut Recorder, ms: u64, f: impl FnOnce(&mut Consumer, &mut AppCtx)) -> Vec<Packet> {
        let mut out = Vec::new();
        let mut ctx = AppCtx::new(SimTime(SimDuration::from_millis(ms).0), &mut out, rec);
        f(c, &mut ctx);
        out
    }

    fn data(seg: u64) -> Packet {
        let i = Packet::interest(Name { prefix: NameId(0), seg }, 40, 0, 0);
        Packet::data_for(i.ndn().unwrap(), 1250)
    }

    #[test]
    fn a_release_beyond_the_bucket_is_counted_as_sent_and_policed() {
        // 1000/s: one Interest at start, then a wake-up at 750 ms finds 0.75 s × 1000 = 750 due.
        // The first 200 go out, the other 550 are policed: 751 sent, 201 in flight.
        let mut rec = Recorder::new(false);
        let mut c = consumer(1000.0, 200, false, &mut rec);
        assert_eq!(at(&mut c, &mut rec, 0, |c, ctx| c.on_start(ctx)).len(), 1);
        let out = at(&mut c, &mut rec, 750, |c, ctx| c.on_wake(ctx));
        assert_eq!(out.len(), 200);
        assert_eq!((out[0].name().unwrap().seg, out[199].name().unwrap().seg), (1, 200));
        assert_eq!((c.c.interests_sent, c.c.policed, c.c.lost_segments), (751, 550, 550));
        let k = c.conservation().unwrap();
        assert_eq!((k.in_flight, k.ended_by_policer), (201, 550));
        assert!(k.holds());
    }

    #[test]
    fn smoothing_releases_the_due_interests_when_a_data_arrives() {
        // 1000/s from t = 0 (seg 0 sent). A Data at 2.5 ms: 2.5 Interests are due; smoothing
        // sends 2 (segs 1, 2) at once, without it nothing leaves before the next wake-up.
        let mut rec = Recorder::new(false);
        for (smoothing, sent) in [(true, 2), (false, 0)] {
            let mut c = consumer(1000.0, 200, smoothing, &mut rec);
            at(&mut c, &mut rec, 0, |c, ctx| c.on_start(ctx));
            let mut out = Vec::new();
            let mut ctx = AppCtx::new(SimTime(2_500_000), &mut out, &mut rec);
            c.on_packet(&mut ctx, &data(0));
            assert_eq!(out.len(), sent, "smoothing {smoothing}");
        }
    }

    #[test]
    fn data_arriving_after_its_interest_was_given_up_is_still_delivered() {
        // 0.1/s: only seg 0 is sent. Initial RTO 1 s: the 1,050 ms check gives it up (no
        // retransmission); its Data at 1,100 ms counts as received and no longer as lost.
        let mut rec = Recorder::new(false);
        let mut c = consumer(0.1, 200, false, &mut rec);
        at(&mut c, &mut rec, 0, |c, ctx| c.on_start(ctx));
        at(&mut c, &mut rec, 1050, |c, ctx| c.on_wake(ctx));
        assert_eq!((c.c.timeouts, c.c.lost_segments), (1, 1));
        at(&mut c, &mut rec, 1100, |c, ctx| c.on_packet(ctx, &data(0)));
        assert_eq!((c.c.data_received, c.c.late_data, c.c.lost_segments), (1, 1, 0));
        assert!(c.conservation().unwrap().holds());
    }

    #[test]
    fn a_burst_of_timeouts_backs_off_once_per_timeout_once_per_check_or_never() {
        // A fixed window of 4 sends segs 0..3 at t = 0 and nothing answers them. Before any RTT
        // sample the RTO is the initial 1 s, so the first check after 1 s (polled every 50 ms:
        // 1,050 ms) times out all four. Per timeout: 1 s × 2^4 = 16 s; per check: 2 s; none: 1 s.
        use crate::cc::window::{FixedWindow, FixedWindowConfig};
        use crate::rtt::Backoff;
        for (policy, rto_ms) in [(Backoff::PerTimeout, 16_000), (Backoff::PerCheck, 2_000), (Backoff::None, 1_000)] {
            let mut rec = Recorder::new(false);
            let p = ConsumerParams {
                rtt: RttConfig { backoff: policy, ..RttConfig::default() },
                ..ConsumerParams::new("C")
            };
            let ctl = Controller::Window(Box::new(FixedWindow::new(&FixedWindowConfig { window: 4.0 })));
            let mut c = Consumer::new(p, ctl, stream(1, "c"), &mut rec);
            assert_eq!(at(&mut c, &mut rec, 0, |c, ctx| c.on_start(ctx)).len(), 4);
            at(&mut c, &mut rec, 1050, |c, ctx| c.on_wake(ctx));
            assert_eq!(c.c.timeouts, 4, "{policy:?}");
            assert_eq!(c.rtt.rto(), SimDuration::from_millis(rto_ms), "{policy:?}");
        }
    }
}
