//! Constant-bit-rate traffic over UDP: a source that sends datagrams of a fixed size at a fixed
//! rate between its start and stop times, and a sink that counts what arrives (loss from the
//! gaps in the sequence numbers, one-way delay from the send times the datagrams carry).

use crate::app::{AppCtx, Application};
use crate::ids::NodeId;
use crate::packet::{Header, Ip, Packet, Transport, Udp};
use crate::recorder::{EntityId, MetricId, Recorder, SummaryRow, Unit};
use crate::time::{SimDuration, SimTime};

/// IPv4 (20 B) and UDP (8 B) headers.
pub const UDP_HEADER_BYTES: u32 = 28;

#[derive(Clone, Debug)]
pub struct CbrParams {
    pub name: String,
    pub me: NodeId,
    pub dst: NodeId,
    pub src_port: u16,
    pub dst_port: u16,
    /// Payload of each datagram [bytes].
    pub payload: u32,
    /// Time between two datagrams.
    pub interval: SimDuration,
    pub ecn: bool,
}

pub struct CbrSource {
    p: CbrParams,
    sent: u64,
    sending: bool,
    next: SimTime,
    started_at: Option<SimTime>,
    stopped_at: Option<SimTime>,
}

impl CbrSource {
    pub fn new(p: CbrParams) -> CbrSource {
        CbrSource { p, sent: 0, sending: false, next: SimTime::ZERO, started_at: None, stopped_at: None }
    }
    fn send_due(&mut self, ctx: &mut AppCtx) {
        // Send times are start + k · interval, so they do not drift.
        while self.sending && self.next <= ctx.now {
            let udp = Udp { src_port: self.p.src_port, dst_port: self.p.dst_port, seq: self.sent, sent_at: ctx.now };
            let ip = Ip { src: self.p.me, dst: self.p.dst, ecn_capable: self.p.ecn, transport: Transport::Udp(udp) };
            ctx.send(Packet::new(Header::Ip(ip), self.p.payload + UDP_HEADER_BYTES));
            self.sent += 1;
            self.next = self.started_at.unwrap_or(ctx.now) + self.p.interval.saturating_mul(self.sent);
        }
        if self.sending {
            ctx.wake_at(self.next);
        }
    }
}

impl Application for CbrSource {
    fn on_start(&mut self, ctx: &mut AppCtx) {
        self.sending = true;
        self.started_at = Some(ctx.now);
        self.next = ctx.now;
        self.send_due(ctx);
    }
    fn on_stop(&mut self, ctx: &mut AppCtx) {
        self.sending = false;
        self.stopped_at = Some(ctx.now);
    }
    fn on_packet(&mut self, _ctx: &mut AppCtx, _packet: &Packet) {}
    fn on_wake(&mut self, ctx: &mut AppCtx) {
        self.send_due(ctx);
    }
    fn summary(&self, end: SimTime, out: &mut Vec<SummaryRow>) {
        let n = self.p.name.as_str();
        out.push(SummaryRow::new(n, "cbr", "datagrams_sent", self.sent as f64, Unit::Packets));
        let start = self.started_at.unwrap_or(end);
        let active = self.stopped_at.unwrap_or(end).min(end).saturating_since(start).as_secs_f64();
        if active > 0.0 {
            let kbps = self.sent as f64 * f64::from(self.p.payload) * 8.0 / active / 1e3;
            out.push(SummaryRow::new(n, "cbr", "send_rate_kbps", kbps, Unit::Kbps));
        }
    }
}

pub struct UdpSink {
    name: String,
    payload: u32,
    received: u64,
    highest: Option<u64>,
    delay_sum_s: f64,
    first_at: Option<SimTime>,
    last_at: Option<SimTime>,
    me: EntityId,
    received_id: MetricId,
}

impl UdpSink {
    pub fn new(name: &str, payload: u32, rec: &mut Recorder) -> UdpSink {
        UdpSink {
            name: name.to_owned(),
            payload,
            received: 0,
            highest: None,
            delay_sum_s: 0.0,
            first_at: None,
            last_at: None,
            me: rec.entity(name),
            received_id: rec.metric("datagrams_received"),
        }
    }
}

impl Application for UdpSink {
    fn on_start(&mut self, _ctx: &mut AppCtx) {}
    fn on_packet(&mut self, ctx: &mut AppCtx, packet: &Packet) {
        if let Some(Ip { transport: Transport::Udp(u), .. }) = packet.ip() {
            self.received += 1;
            self.highest = Some(self.highest.map_or(u.seq, |h| h.max(u.seq)));
            self.delay_sum_s += ctx.now.saturating_since(u.sent_at).as_secs_f64();
            self.first_at.get_or_insert(ctx.now);
            self.last_at = Some(ctx.now);
        }
    }
    fn sample(&self, now: SimTime, rec: &mut Recorder) {
        rec.sample(now, self.me, self.received_id, self.received as f64);
    }

    /// Its sample (datagrams received) reads only what its hooks change.
    fn samples_change_only_in_hooks(&self) -> bool {
        true
    }
    fn summary(&self, _end: SimTime, out: &mut Vec<SummaryRow>) {
        let n = self.name.as_str();
        let mut row = |m: &str, v: f64, u: Unit| out.push(SummaryRow::new(n, "udp-sink", m, v, u));
        row("datagrams_received", self.received as f64, Unit::Packets);
        if let Some(h) = self.highest {
            row("loss_rate", 1.0 - self.received as f64 / (h + 1) as f64, Unit::Ratio);
        }
        if self.received > 0 {
            row("mean_delay_ms", self.delay_sum_s / self.received as f64 * 1e3, Unit::Ms);
        }
        if let (Some(a), Some(b)) = (self.first_at, self.last_at) {
            let span = b.saturating_since(a).as_secs_f64();
            if span > 0.0 && self.received > 1 {
                let kbps = (self.received - 1) as f64 * f64::from(self.payload) * 8.0 / span / 1e3;
                row("throughput_kbps", kbps, Unit::Kbps);
            }
        }
    }
}
