//! The multicast source: paces Data down the tree at the rate its controller sets, feeds every
//! feedback packet to the controller, and lets it adapt once per cycle.

use super::McastControl;
use crate::app::{AppCtx, Application};
use crate::ids::NodeId;
use crate::packet::{Header, Mcast, McastKind, Packet};
use crate::recorder::{EntityId, MetricId, Recorder, SummaryRow, Unit};
use crate::time::{SimDuration, SimTime};

/// The lowest rate a controller may set [bit/s]: below it the next packet would be due after
/// the end of any run, and a run must never stall on a rate of zero.
pub const MIN_RATE_BPS: f64 = 1_000.0;

pub struct McastSourceParams {
    pub name: String,
    pub me: NodeId,
    pub group: u32,
    /// Wire size of each Data [bytes].
    pub packet_size: u32,
    /// Round-trip estimate before any feedback.
    pub initial_rtt: SimDuration,
    /// The source node's line rate [bit/s]: no controller's rate is sent faster (a rate past it
    /// would only fill the node's own queue, and one that grows without bound would make a run
    /// crawl). Infinite when the node has no link.
    pub max_rate_bps: f64,
}

pub struct McastSource {
    p: McastSourceParams,
    ctl: Box<dyn McastControl>,
    rate: f64,
    sending: bool,
    next_send: SimTime,
    next_cycle: SimTime,
    /// The largest round-trip estimate reported in the current cycle, and the one in use.
    rtt_reported: Option<SimDuration>,
    rtt: SimDuration,
    sent: u64,
    feedback: u64,
    rate_time_integral: f64,
    last_rate_change: SimTime,
    started_at: Option<SimTime>,
    stopped_at: Option<SimTime>,
    me: EntityId,
    ids: [MetricId; 3],
}

impl McastSource {
    pub fn new(p: McastSourceParams, mut ctl: Box<dyn McastControl>, rec: &mut Recorder) -> McastSource {
        ctl.set_packet_size(p.packet_size);
        let rate = ctl.initial_rate().min(p.max_rate_bps).max(MIN_RATE_BPS);
        debug_assert!(rate.is_finite(), "controllers' initial rates are validated finite");
        let rtt = p.initial_rtt;
        let me = rec.entity(&p.name);
        let ids = [rec.metric("rate_bps"), rec.metric("packets_sent"), rec.metric("feedback_packets")];
        McastSource {
            p,
            ctl,
            rate,
            sending: false,
            next_send: SimTime::ZERO,
            next_cycle: SimTime::ZERO,
            rtt_reported: None,
            rtt,
            sent: 0,
            feedback: 0,
            rate_time_integral: 0.0,
            last_rate_change: SimTime::ZERO,
            started_at: None,
            stopped_at: None,
            me,
            ids,
        }
    }

    fn gap(&self) -> SimDuration {
        SimDuration::from_secs_f64(f64::from(self.p.packet_size) * 8.0 / self.rate)
    }

    fn set_rate(&mut self, now: SimTime, rate: f64) {
        self.rate_time_integral += self.rate * now.saturating_since(self.last_rate_change).as_secs_f64();
        self.last_rate_change = now;
        let capped = rate.min(self.p.max_rate_bps);
        self.rate = if capped.is_finite() { capped.max(MIN_RATE_BPS) } else { self.rate };
    }

    fn run_due(&mut self, ctx: &mut AppCtx) {
        if !self.sending {
            return;
        }
        if self.next_cycle <= ctx.now {
            if let Some(r) = self.rtt_reported.take() {
                self.rtt = r;
            }
            let next = self.ctl.adapt(self.rate, ctx.now);
            self.set_rate(ctx.now, next);
            self.next_cycle = ctx.now + self.ctl.cycle(self.rtt).max(SimDuration::from_millis(1));
        }
        while self.next_send <= ctx.now {
            let m = Mcast {
                group: self.p.group,
                kind: McastKind::Data,
                origin: self.p.me,
                seq: self.sent,
                sent_at: ctx.now,
                report: self.ctl.data_report(self.rate, ctx.now),
                times: self.ctl.data_times(ctx.now),
            };
            ctx.send(Packet::new(Header::Mcast(m), self.p.packet_size));
            self.sent += 1;
            self.next_send = ctx.now + self.gap();
        }
        ctx.wake_at(self.next_send.min(self.next_cycle));
    }
}

impl Application for McastSource {
    fn on_start(&mut self, ctx: &mut AppCtx) {
        self.sending = true;
        self.started_at = Some(ctx.now);
        self.last_rate_change = ctx.now;
        self.next_send = ctx.now;
        self.next_cycle = ctx.now + self.ctl.cycle(self.rtt);
        self.run_due(ctx);
    }
    fn on_stop(&mut self, ctx: &mut AppCtx) {
        self.set_rate(ctx.now, self.rate);
        self.sending = false;
        self.stopped_at = Some(ctx.now);
    }
    fn on_packet(&mut self, ctx: &mut AppCtx, packet: &Packet) {
        let Some(m) = packet.mcast().filter(|m| m.kind == McastKind::Feedback && m.group == self.p.group) else {
            return;
        };
        self.feedback += 1;
        let rtt = (m.seq > 0).then_some(SimDuration(m.seq));
        if let Some(r) = rtt {
            self.rtt_reported = Some(self.rtt_reported.map_or(r, |x| x.max(r)));
        }
        self.ctl.on_feedback_timed(m.origin, &m.report, &m.times, m.sent_at, rtt, ctx.now);
    }
    fn on_wake(&mut self, ctx: &mut AppCtx) {
        self.run_due(ctx);
    }
    fn sample(&self, now: SimTime, rec: &mut Recorder) {
        rec.sample(now, self.me, self.ids[0], self.rate);
        rec.sample(now, self.me, self.ids[1], self.sent as f64);
        rec.sample(now, self.me, self.ids[2], self.feedback as f64);
        let mut out = Vec::new();
        self.ctl.metrics(&mut out);
        for (name, v) in out {
            if v.is_finite() {
                let id = rec.metric(name);
                rec.sample(now, self.me, id, v);
            }
        }
    }
    fn summary(&self, end: SimTime, out: &mut Vec<SummaryRow>) {
        let n = self.p.name.as_str();
        let mut row = |m: &str, v: f64, u: Unit| out.push(SummaryRow::new(n, "mcast-source", m, v, u));
        row("packets_sent", self.sent as f64, Unit::Packets);
        row("feedback_packets", self.feedback as f64, Unit::Packets);
        let start = self.started_at.unwrap_or(end);
        let stop = self.stopped_at.unwrap_or(end).min(end);
        let active = stop.saturating_since(start).as_secs_f64();
        if active > 0.0 {
            let kbps = self.sent as f64 * f64::from(self.p.packet_size) * 8.0 / active / 1e3;
            row("send_rate_kbps", kbps, Unit::Kbps);
        }
        row("final_rate_kbps", self.rate / 1e3, Unit::Kbps);
    }
}

impl std::fmt::Debug for McastSource {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("McastSource").field("name", &self.p.name).field("rate", &self.rate).finish()
    }
}
