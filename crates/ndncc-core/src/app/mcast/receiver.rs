//! A multicast receiver: counts the Data that arrive (loss from the gaps in the sequence
//! numbers), estimates the round trip as twice the smoothed one-way delay (paths are
//! symmetric and every node shares the simulated clock), and sends its mechanism's feedback up
//! the tree once per cycle of `cycle_rtts` round trips.

use super::{DataSeen, McastReporting};
use crate::app::{AppCtx, Application};
use crate::ids::NodeId;
use crate::packet::{Header, Mcast, McastKind, Packet};
use crate::recorder::{EntityId, MetricId, Recorder, SummaryRow, Unit};
use crate::time::{SimDuration, SimTime};

pub struct McastReceiverParams {
    pub name: String,
    pub me: NodeId,
    pub group: u32,
    /// Bandwidth of the receiver's access link [bit/s] (SRMCC's C_access).
    pub access_bps: f64,
    /// Wire size of each feedback packet [bytes].
    pub feedback_size: u32,
    /// Feedback cycle in round trips.
    pub cycle_rtts: f64,
}

pub struct McastReceiver {
    p: McastReceiverParams,
    reporting: Box<dyn McastReporting>,
    received: u64,
    bytes: u64,
    first_seq: Option<u64>,
    highest: Option<u64>,
    owd_s: Option<f64>,
    first_at: Option<SimTime>,
    last_at: Option<SimTime>,
    next_report: Option<SimTime>,
    reports: u64,
    me: EntityId,
    ids: [MetricId; 2],
}

impl McastReceiver {
    pub fn new(p: McastReceiverParams, reporting: Box<dyn McastReporting>, rec: &mut Recorder) -> McastReceiver {
        let me = rec.entity(&p.name);
        let ids = [rec.metric("data_received"), rec.metric("bytes_received")];
        McastReceiver {
            p,
            reporting,
            received: 0,
            bytes: 0,
            first_seq: None,
            highest: None,
            owd_s: None,
            first_at: None,
            last_at: None,
            next_report: None,
            reports: 0,
            me,
            ids,
        }
    }

    fn rtt(&self) -> SimDuration {
        SimDuration::from_secs_f64(2.0 * self.owd_s.unwrap_or(0.05))
    }

    fn cycle(&self) -> SimDuration {
        SimDuration::from_secs_f64(self.rtt().as_secs_f64() * self.p.cycle_rtts).max(SimDuration::from_millis(1))
    }

    fn report_due(&mut self, ctx: &mut AppCtx) {
        let Some(t) = self.next_report else { return };
        if t > ctx.now {
            ctx.wake_at(t);
            return;
        }
        if let Some(report) = self.reporting.report(self.p.access_bps, ctx.now) {
            let m = Mcast {
                group: self.p.group,
                kind: McastKind::Feedback,
                origin: self.p.me,
                seq: self.rtt().0,
                sent_at: ctx.now,
                report,
                times: self.reporting.report_times(),
            };
            ctx.send(Packet::new(Header::Mcast(m), self.p.feedback_size));
            self.reports += 1;
        }
        let next = ctx.now + self.reporting.next_report_in(self.cycle()).max(SimDuration::from_millis(1));
        self.next_report = Some(next);
        ctx.wake_at(next);
    }
}

impl Application for McastReceiver {
    fn on_start(&mut self, _ctx: &mut AppCtx) {}
    fn on_packet(&mut self, ctx: &mut AppCtx, packet: &Packet) {
        let Some(m) = packet.mcast().filter(|m| m.kind == McastKind::Data && m.group == self.p.group) else {
            return;
        };
        self.received += 1;
        self.bytes += u64::from(packet.size);
        self.first_seq.get_or_insert(m.seq);
        self.highest = Some(self.highest.map_or(m.seq, |h| h.max(m.seq)));
        let owd = ctx.now.saturating_since(m.sent_at).as_secs_f64();
        self.owd_s = Some(self.owd_s.map_or(owd, |s| s + 0.125 * (owd - s)));
        self.first_at.get_or_insert(ctx.now);
        self.last_at = Some(ctx.now);
        let seen = DataSeen {
            me: self.p.me,
            seq: m.seq,
            size: packet.size,
            now: ctx.now,
            sent_at: m.sent_at,
            rtt: self.rtt(),
            info: &m.report,
            times: m.times,
        };
        self.reporting.on_data(&seen);
        if self.next_report.is_none() {
            // The first cycle starts with the first Data.
            let first = self.reporting.next_report_in(self.cycle()).max(SimDuration::from_millis(1));
            self.next_report = Some(ctx.now + first);
        }
        self.report_due(ctx);
    }
    fn on_wake(&mut self, ctx: &mut AppCtx) {
        self.report_due(ctx);
    }
    fn sample(&self, now: SimTime, rec: &mut Recorder) {
        rec.sample(now, self.me, self.ids[0], self.received as f64);
        rec.sample(now, self.me, self.ids[1], self.bytes as f64);
    }

    /// Its samples (packets and bytes received) read only what its hooks change.
    fn samples_change_only_in_hooks(&self) -> bool {
        true
    }
    fn summary(&self, _end: SimTime, out: &mut Vec<SummaryRow>) {
        let n = self.p.name.as_str();
        let mut row = |m: &str, v: f64, u: Unit| out.push(SummaryRow::new(n, "mcast-receiver", m, v, u));
        row("data_received", self.received as f64, Unit::Packets);
        row("feedback_sent", self.reports as f64, Unit::Packets);
        if let (Some(first), Some(h)) = (self.first_seq, self.highest) {
            let expected = (h - first + 1) as f64;
            row("loss_rate", 1.0 - self.received as f64 / expected, Unit::Ratio);
        }
        if let (Some(a), Some(b)) = (self.first_at, self.last_at) {
            let span = b.saturating_since(a).as_secs_f64();
            if span > 0.0 {
                row("throughput_kbps", self.bytes as f64 * 8.0 / span / 1e3, Unit::Kbps);
            }
        }
        if let Some(owd) = self.owd_s {
            row("rtt_estimate_ms", 2.0 * owd * 1e3, Unit::Ms);
        }
    }
}
