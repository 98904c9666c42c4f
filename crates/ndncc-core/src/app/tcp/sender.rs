//! The TCP sender: a bulk transfer of N bytes (or until stopped) under NewReno's loss recovery
//! (RFC 5681, RFC 6582) and the RFC 6298 retransmission timer, with the window growth and the
//! post-loss threshold left to a `TcpControl`.
//!
//! ```text
//!  ACK, new data ─┬─ in fast recovery: ack ≥ recover ? full ACK: cwnd = min(ssthresh,
//!                 │      max(flight, MSS) + MSS), leave recovery
//!                 │                    : partial ACK: resend snd_una, cwnd −= acked (+ MSS
//!                 │      if acked ≥ MSS), restart the timer on the first partial ACK only
//!                 └─ else: cwnd < ssthresh ? cwnd += min(acked, MSS) : control.on_ack
//!  1st and 2nd duplicate ACK: one new segment each if the outstanding data stays within
//!      cwnd + 2·MSS (limited transmit, RFC 3042); cwnd unchanged
//!  3rd duplicate ACK, ack − 1 > recover: recover = highest sent; ssthresh = control's, from
//!      the data outstanding less what limited transmit sent (or ns-3's count, FlightSize);
//!      resend snd_una; cwnd = ssthresh + 3·MSS; further duplicates add one MSS each
//!  ECN echo (at most once per window, outside recovery): ssthresh = control's; cwnd = ssthresh
//!  timeout: ssthresh = control's, unless the timer had already resent the segment at snd_una
//!      (RFC 5681 §3.1: a backed-off timeout halves nothing again); cwnd = one MSS;
//!      recover = highest sent; go back to snd_una; RTO doubles (Karn: no RTT sample from a
//!      resent segment)
//! ```
//!
//! Sequence numbers are byte offsets from 0 and never wrap within a run. There is no SACK.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::app::tcp::summary::SenderTotals;
use crate::app::{AppCtx, Application};
use crate::cc::tcp::{TcpAck, TcpControl, TcpLoss};
use crate::histogram::Histogram;
use crate::ids::NodeId;
use crate::packet::{Header, Ip, Packet, Tcp, TcpFlags, Transport};
use crate::recorder::{EntityId, MetricId, Recorder, SummaryRow};
use crate::rtt::{RttConfig, RttEstimator};
use crate::time::{SimDuration, SimTime};

/// IPv4 (20 B) and TCP (20 B) headers: what every segment adds to its payload on the wire.
pub const HEADER_BYTES: u32 = 40;

/// How the sender counts FlightSize when the third duplicate ACK sets ssthresh (RFC 5681 eq. 4,
/// ssthresh = max(FlightSize / 2, 2·SMSS), or the controller's rule applied to it).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FlightSize {
    /// RFC 5681 §3.2: the data sent and not yet acknowledged, less the segments limited
    /// transmit sent (RFC 3042).
    #[default]
    Rfc5681,
    /// ns-3.37's `TcpSocketBase` without SACK: the data sent and not yet acknowledged, limited
    /// transmit's segments included, less one segment for each duplicate ACK it counts as a
    /// delivery: all three with limited transmit, only the third without. With both
    /// limited-transmit segments sent this is one segment less than `Rfc5681`.
    Ns3,
}

impl FlightSize {
    /// FlightSize for ssthresh at the third duplicate ACK, from the data outstanding, the bytes
    /// limited transmit sent and whether it is on.
    pub fn at_third_duplicate(self, outstanding: u64, limited: u64, limited_transmit: bool, mss: u64) -> u64 {
        match self {
            FlightSize::Rfc5681 => outstanding.saturating_sub(limited),
            FlightSize::Ns3 => outstanding.saturating_sub(if limited_transmit { 3 } else { 1 } * mss),
        }
    }
}

/// A TCP sender's settings.
#[derive(Clone, Debug)]
pub struct TcpSenderParams {
    pub name: String,
    pub me: NodeId,
    pub dst: NodeId,
    pub src_port: u16,
    pub dst_port: u16,
    /// Maximum segment size [bytes of payload].
    pub mss: u32,
    /// Initial window [segments] (RFC 6928: 10).
    pub initial_window: u32,
    /// Bytes to send; `None` = until stopped.
    pub bytes: Option<u64>,
    /// Mark segments ECN-capable and react to ECN echoes.
    pub ecn: bool,
    /// Send new data on the first two duplicate ACKs (RFC 3042).
    pub limited_transmit: bool,
    /// FlightSize at a fast retransmit.
    pub flight_size: FlightSize,
    pub rtt: RttConfig,
}

#[derive(Clone, Copy, Debug, Default)]
struct Counters {
    segments_sent: u64,
    retransmissions: u64,
    timeouts: u64,
    fast_retransmits: u64,
    ecn_reductions: u64,
    rtt_sum_s: f64,
    rtt_samples: u64,
}

struct Ids {
    me: EntityId,
    cwnd: MetricId,
    ssthresh: MetricId,
    rtt: MetricId,
    rto: MetricId,
    timeout: MetricId,
    acked: MetricId,
}

/// A segment sent and not yet acknowledged: where it starts, when it (last) left, whether it
/// was ever sent again (Karn's rule).
#[derive(Clone, Copy, Debug)]
struct Sent {
    start: u64,
    end: u64,
    at: SimTime,
    resent: bool,
}

pub struct TcpSender {
    p: TcpSenderParams,
    control: Box<dyn TcpControl>,
    rtt: RttEstimator,
    pub(crate) snd_una: u64,
    pub(crate) snd_nxt: u64,
    /// The highest sequence number sent so far, plus one.
    high_sent: u64,
    pub(crate) cwnd: f64,
    pub(crate) ssthresh: f64,
    dupacks: u32,
    /// Bytes limited transmit sent since the last ACK of new data (RFC 3042).
    limited_bytes: u64,
    pub(crate) in_recovery: bool,
    /// RFC 6582's `recover`: the highest sequence number sent when the last recovery began.
    recover: Option<u64>,
    /// A partial ACK has already restarted the timer in this recovery.
    partial_restarted: bool,
    /// No ECN reduction until snd_una passes this.
    ecn_recover: u64,
    /// Set CWR on the next new segment.
    cwr_pending: bool,
    /// The end of the data gone back to and resent since the last timeout: a timeout for a
    /// segment below it is for one the timer already resent.
    timer_resent_end: u64,
    sent: VecDeque<Sent>,
    rto_deadline: Option<SimTime>,
    sending: bool,
    started_at: Option<SimTime>,
    stopped_at: Option<SimTime>,
    completed_at: Option<SimTime>,
    c: Counters,
    /// Every RTT sample, for the summary's percentiles.
    rtt_hist: Histogram,
    ids: Ids,
}

impl TcpSender {
    pub fn new(p: TcpSenderParams, control: Box<dyn TcpControl>, rec: &mut Recorder) -> TcpSender {
        let me = rec.entity(&p.name);
        let mut m = |n: &str| rec.metric(n);
        let ids = Ids {
            me,
            cwnd: m("cwnd"),
            ssthresh: m("ssthresh"),
            rtt: m("rtt"),
            rto: m("rto"),
            timeout: m("timeout"),
            acked: m("bytes_acked"),
        };
        let cwnd = f64::from(p.initial_window.max(1)) * f64::from(p.mss);
        TcpSender {
            rtt: RttEstimator::new(p.rtt),
            p,
            control,
            snd_una: 0,
            snd_nxt: 0,
            high_sent: 0,
            cwnd,
            ssthresh: f64::INFINITY,
            dupacks: 0,
            limited_bytes: 0,
            in_recovery: false,
            recover: None,
            partial_restarted: false,
            ecn_recover: 0,
            cwr_pending: false,
            timer_resent_end: 0,
            sent: VecDeque::new(),
            rto_deadline: None,
            sending: false,
            started_at: None,
            stopped_at: None,
            completed_at: None,
            c: Counters::default(),
            rtt_hist: Histogram::new(),
            ids,
        }
    }

    fn mss(&self) -> u64 {
        u64::from(self.p.mss)
    }

    fn flight(&self) -> u64 {
        self.high_sent.saturating_sub(self.snd_una)
    }

    /// The end of the data: all bytes, or what has been sent when stopped.
    fn data_end(&self) -> Option<u64> {
        match (self.p.bytes, self.sending) {
            (Some(n), _) => Some(n),
            (None, true) => None,
            (None, false) => Some(self.high_sent),
        }
    }

    fn segment(&mut self, ctx: &mut AppCtx, start: u64, resend: bool) -> u64 {
        let end = match self.data_end() {
            Some(e) => (start + self.mss()).min(e),
            None => start + self.mss(),
        };
        let len = (end - start) as u32;
        let mut flags = TcpFlags::ACK;
        if self.cwr_pending && !resend {
            flags = flags.with(TcpFlags::CWR);
            self.cwr_pending = false;
        }
        let tcp = Tcp {
            src_port: self.p.src_port,
            dst_port: self.p.dst_port,
            seq: start,
            ack: 0,
            flags,
            window: u32::MAX,
            len,
        };
        let ip = Ip { src: self.p.me, dst: self.p.dst, ecn_capable: self.p.ecn, transport: Transport::Tcp(tcp) };
        ctx.send(Packet::new(Header::Ip(ip), len + HEADER_BYTES));
        self.c.segments_sent += 1;
        if resend {
            self.c.retransmissions += 1;
        }
        // Keep one record per segment start; a resend marks it (Karn's rule).
        match self.sent.binary_search_by_key(&start, |s| s.start) {
            Ok(i) => {
                let s = &mut self.sent[i];
                s.at = ctx.now;
                s.resent |= resend;
            }
            Err(i) => self.sent.insert(i, Sent { start, end, at: ctx.now, resent: resend }),
        }
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(ctx.now + self.rtt.rto());
        }
        end
    }

    /// Send new (or gone-back-to) data while the window allows.
    fn pump(&mut self, ctx: &mut AppCtx) {
        loop {
            if self.data_end().is_some_and(|e| self.snd_nxt >= e) {
                break;
            }
            if !self.sending && self.snd_nxt >= self.high_sent {
                break;
            }
            // Whole segments only: another may go while flight + MSS fits the window (and one
            // always may when nothing is in flight).
            let flight = self.snd_nxt - self.snd_una;
            if flight > 0 && (flight + self.mss()) as f64 > self.cwnd {
                break;
            }
            let resend = self.snd_nxt < self.high_sent;
            let end = self.segment(ctx, self.snd_nxt, resend);
            if resend {
                // Only a timeout goes back: this is the timer's retransmission.
                self.timer_resent_end = self.timer_resent_end.max(end);
            }
            self.snd_nxt = end;
            self.high_sent = self.high_sent.max(end);
        }
    }

    /// ssthresh after a congestion event with `flight` bytes counted as FlightSize: the
    /// controller's, at least two segments.
    fn threshold_for(&mut self, now: SimTime, flight: u64) -> f64 {
        let ev = TcpLoss { now, cwnd: self.cwnd, flight, mss: self.p.mss };
        self.control.ssthresh_after(&ev).max(2.0 * self.mss() as f64)
    }

    /// ssthresh after a timeout or an ECN echo: FlightSize is all the data outstanding.
    fn loss_threshold(&mut self, now: SimTime) -> f64 {
        self.threshold_for(now, self.flight())
    }

    /// RFC 3042: on the first and second duplicate ACK, one segment of new data if the
    /// outstanding data stays within cwnd + 2·MSS. cwnd does not change, and the segment is not
    /// counted in the FlightSize the third duplicate ACK halves. A segment the window allows
    /// anyway is left to `pump`.
    fn limited_transmit(&mut self, ctx: &mut AppCtx) {
        let end = self.data_end().unwrap_or(u64::MAX);
        if self.snd_nxt < self.high_sent || self.high_sent >= end {
            return;
        }
        let next = (self.high_sent + self.mss()).min(end);
        let outstanding = (next - self.snd_una) as f64;
        if outstanding <= self.cwnd || outstanding > self.cwnd + 2.0 * self.mss() as f64 {
            return;
        }
        let sent_to = self.segment(ctx, self.high_sent, false);
        self.limited_bytes += sent_to - self.high_sent;
        self.snd_nxt = sent_to;
        self.high_sent = sent_to;
    }

    fn on_ack(&mut self, ctx: &mut AppCtx, tcp: &Tcp) {
        let ack = tcp.ack.min(self.high_sent);
        let mss = self.mss() as f64;
        if ack > self.snd_una {
            let acked = ack - self.snd_una;
            self.snd_una = ack;
            self.limited_bytes = 0;
            self.snd_nxt = self.snd_nxt.max(ack);
            self.sample_rtt(ctx, ack);
            if self.in_recovery {
                if self.recover.is_some_and(|r| ack > r) {
                    // Full ACK (RFC 6582 §3.2 step 3, option 1).
                    self.cwnd = self.ssthresh.min((self.flight() as f64).max(mss) + mss);
                    self.in_recovery = false;
                    self.dupacks = 0;
                } else {
                    // Partial ACK: resend the next hole, deflate by what was acknowledged.
                    self.segment(ctx, self.snd_una, true);
                    self.cwnd = (self.cwnd - acked as f64).max(mss);
                    if acked >= self.mss() {
                        self.cwnd += mss;
                    }
                    if !self.partial_restarted {
                        self.partial_restarted = true;
                        self.rto_deadline = Some(ctx.now + self.rtt.rto());
                    }
                }
            } else {
                self.dupacks = 0;
                if self.cwnd < self.ssthresh {
                    self.cwnd += (acked as f64).min(mss);
                } else {
                    let ev = TcpAck { now: ctx.now, cwnd: self.cwnd, acked, mss: self.p.mss, srtt: self.rtt.srtt() };
                    self.cwnd = self.control.on_ack(&ev);
                }
            }
            if !self.in_recovery || !self.partial_restarted {
                self.rto_deadline = (self.snd_una < self.high_sent).then(|| ctx.now + self.rtt.rto());
            }
            if self.completed_at.is_none() && self.p.bytes.is_some_and(|n| self.snd_una >= n) {
                self.completed_at = Some(ctx.now);
                self.rto_deadline = None;
            }
        } else if ack == self.snd_una && self.snd_una < self.high_sent && tcp.len == 0 {
            self.dupacks += 1;
            // After a timeout, duplicates of data sent before it start nothing (RFC 6582 §4.1).
            let may_recover = self.recover.is_none_or(|r| ack > r);
            if self.in_recovery {
                self.cwnd += mss;
            } else if self.dupacks < 3 && may_recover && self.p.limited_transmit {
                self.limited_transmit(ctx);
            } else if self.dupacks == 3 && may_recover {
                self.c.fast_retransmits += 1;
                self.recover = Some(self.high_sent.saturating_sub(1));
                let flight = self.p.flight_size.at_third_duplicate(
                    self.flight(),
                    self.limited_bytes,
                    self.p.limited_transmit,
                    self.mss(),
                );
                self.ssthresh = self.threshold_for(ctx.now, flight);
                self.segment(ctx, self.snd_una, true);
                self.cwnd = self.ssthresh + 3.0 * mss;
                self.in_recovery = true;
                self.partial_restarted = false;
            }
        }
        if self.p.ecn && tcp.flags.contains(TcpFlags::ECE) && !self.in_recovery && self.snd_una > self.ecn_recover {
            self.c.ecn_reductions += 1;
            self.ssthresh = self.loss_threshold(ctx.now);
            self.cwnd = self.ssthresh;
            self.ecn_recover = self.high_sent;
            self.cwr_pending = true;
        }
        self.pump(ctx);
    }

    /// RTT sample from the last segment this ACK covers entirely, unless it was ever resent.
    fn sample_rtt(&mut self, ctx: &mut AppCtx, ack: u64) {
        let mut last = None;
        while self.sent.front().is_some_and(|s| s.end <= ack) {
            last = self.sent.pop_front();
        }
        if let Some(s) = last.filter(|s| !s.resent) {
            let r = ctx.now.saturating_since(s.at);
            self.rtt.add_sample(r);
            self.c.rtt_sum_s += r.as_secs_f64();
            self.c.rtt_samples += 1;
            self.rtt_hist.record(r);
            ctx.recorder.event(ctx.now, self.ids.me, self.ids.rtt, r.as_secs_f64());
            ctx.recorder.event(ctx.now, self.ids.me, self.ids.rto, self.rtt.rto().as_secs_f64());
        }
    }

    fn on_timeout(&mut self, ctx: &mut AppCtx) {
        self.c.timeouts += 1;
        ctx.recorder.event(ctx.now, self.ids.me, self.ids.timeout, self.snd_una as f64);
        // RFC 5681 §3.1: ssthresh falls when the timer detects a loss of a segment it has not
        // yet resent; a second timeout for the same data (the backed-off timer) leaves it.
        if self.snd_una >= self.timer_resent_end {
            self.ssthresh = self.loss_threshold(ctx.now);
        }
        self.cwnd = self.mss() as f64;
        self.recover = Some(self.high_sent.saturating_sub(1));
        self.in_recovery = false;
        self.dupacks = 0;
        self.limited_bytes = 0;
        self.rtt.backoff();
        for s in &mut self.sent {
            s.resent = true;
        }
        // Go back to the first unacknowledged byte and resend from there.
        self.snd_nxt = self.snd_una;
        self.rto_deadline = None;
        self.pump(ctx);
        if self.rto_deadline.is_none() && self.snd_una < self.high_sent {
            self.rto_deadline = Some(ctx.now + self.rtt.rto());
        }
    }

    fn request_wake(&self, ctx: &mut AppCtx) {
        if let Some(d) = self.rto_deadline {
            ctx.wake_at(d);
        }
    }
}

impl Application for TcpSender {
    fn on_start(&mut self, ctx: &mut AppCtx) {
        self.sending = true;
        self.started_at = Some(ctx.now);
        self.pump(ctx);
        self.request_wake(ctx);
    }

    fn on_stop(&mut self, ctx: &mut AppCtx) {
        // No new data after this; what was sent is still delivered.
        self.sending = false;
        self.stopped_at = Some(ctx.now);
    }

    fn on_packet(&mut self, ctx: &mut AppCtx, packet: &Packet) {
        if let Some(Ip { transport: Transport::Tcp(tcp), .. }) = packet.ip() {
            if tcp.flags.contains(TcpFlags::ACK) {
                self.on_ack(ctx, tcp);
            }
        }
        self.request_wake(ctx);
    }

    fn on_wake(&mut self, ctx: &mut AppCtx) {
        if self.rto_deadline.is_some_and(|d| d <= ctx.now) {
            self.on_timeout(ctx);
        }
        self.request_wake(ctx);
    }

    fn sample(&self, now: SimTime, rec: &mut Recorder) {
        rec.sample(now, self.ids.me, self.ids.cwnd, self.cwnd);
        if self.ssthresh.is_finite() {
            rec.sample(now, self.ids.me, self.ids.ssthresh, self.ssthresh);
        }
        rec.sample(now, self.ids.me, self.ids.acked, self.snd_una as f64);
        crate::app::consumer::record_metrics(now, self.ids.me, rec, |out| self.control.metrics(out));
    }

    /// Its samples (window, threshold, bytes acknowledged, the controller's state) read only
    /// what its hooks change: TCP's controllers are built in and keep no clock of their own.
    fn samples_change_only_in_hooks(&self) -> bool {
        true
    }

    fn summary(&self, end: SimTime, out: &mut Vec<SummaryRow>) {
        let c = &self.c;
        SenderTotals {
            name: &self.p.name,
            bytes_acked: self.snd_una,
            segments_sent: c.segments_sent,
            retransmissions: c.retransmissions,
            timeouts: c.timeouts,
            fast_retransmits: c.fast_retransmits,
            ecn_reductions: Some(c.ecn_reductions),
            started_at: self.started_at,
            completed_at: self.completed_at,
            rtt_sum_s: c.rtt_sum_s,
            rtt_samples: c.rtt_samples,
            rtt_hist: &self.rtt_hist,
            srtt_ms: None,
        }
        .rows(end, out);
        let _ = self.stopped_at;
    }
}

/// RFC 6298's timer constants for TCP: RTO = SRTT + 4·RTTVAR, at least 1 s (RFC 6298 §2.4),
/// at most 60 s, doubling per timeout.
pub fn tcp_rtt_config() -> RttConfig {
    RttConfig {
        min_rto: crate::units::Duration::from_secs(1),
        max_rto: crate::units::Duration::from_secs(60),
        max_backoff: 64,
        ..RttConfig::default()
    }
}

/// Time a segment of `payload` bytes takes on a link of `bps` [for tests and documentation].
pub fn segment_time(payload: u32, bps: u64) -> SimDuration {
    SimDuration::transmission(u64::from(payload + HEADER_BYTES), bps)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::tcp::test_util::{ack, at_ms, starts, MSS};
    use crate::cc::tcp::NewRenoConfig;
    use crate::plugin::Plugin;
    use crate::recorder::EventSamples;

    fn sender(bytes: Option<u64>, iw: u32) -> (TcpSender, Recorder) {
        sender_with(bytes, iw, true)
    }

    fn sender_with(bytes: Option<u64>, iw: u32, limited_transmit: bool) -> (TcpSender, Recorder) {
        sender_counting(bytes, iw, limited_transmit, FlightSize::Rfc5681)
    }

    fn sender_counting(
        bytes: Option<u64>,
        iw: u32,
        limited_transmit: bool,
        flight_size: FlightSize,
    ) -> (TcpSender, Recorder) {
        let mut rec = Recorder::new(EventSamples::Skipped);
        let p = TcpSenderParams {
            name: "t".into(),
            me: NodeId(0),
            dst: NodeId(1),
            src_port: 1,
            dst_port: 2,
            mss: MSS,
            initial_window: iw,
            bytes,
            ecn: false,
            limited_transmit,
            flight_size,
            rtt: tcp_rtt_config(),
        };
        let s = TcpSender::new(p, NewRenoConfig::default().build(), &mut rec);
        (s, rec)
    }

    /// Run `f` at `ms`; return the starts of the segments it sent.
    fn step(s: &mut TcpSender, rec: &mut Recorder, ms: u64, f: impl FnOnce(&mut TcpSender, &mut AppCtx)) -> Vec<u64> {
        starts(crate::app::tcp::test_util::step(s, rec, ms, f))
    }

    #[test]
    fn the_first_flight_is_the_initial_window_of_full_segments_with_headers() {
        let (mut s, mut rec) = sender(None, 10);
        let mut out = Vec::new();
        let mut ctx = AppCtx::new(SimTime::ZERO, &mut out, &mut rec);
        s.on_start(&mut ctx);
        assert_eq!(out.len(), 10);
        assert!(out.iter().all(|p| p.size == MSS + HEADER_BYTES));
    }

    #[test]
    fn slow_start_adds_one_segment_per_acknowledged_segment() {
        // IW 2: segments 0 and 1000. An ACK of both (a delayed ACK) adds min(2000, MSS) = one
        // segment (RFC 5681 §3.1): cwnd 3,000, three new segments go out.
        let (mut s, mut rec) = sender(None, 2);
        assert_eq!(step(&mut s, &mut rec, 0, |s, c| s.on_start(c)), vec![0, 1000]);
        let sent = step(&mut s, &mut rec, 50, |s, c| s.on_packet(c, &ack(2000)));
        assert_eq!(s.cwnd, 3000.0);
        assert_eq!(sent, vec![2000, 3000, 4000]);
        // Three more ACKs, one segment each: 3,000 → 6,000.
        for (t, a) in [(100, 3000), (101, 4000), (102, 5000)] {
            step(&mut s, &mut rec, t, |s, c| s.on_packet(c, &ack(a)));
        }
        assert_eq!(s.cwnd, 6000.0);
    }

    #[test]
    fn three_duplicates_start_fast_recovery_and_a_partial_ack_resends_the_next_hole() {
        // IW 10: segments 0..9 (bytes 0..10,000). Segments 0 and 3 are lost; ACKs of 1, 2 and
        // 4.. are duplicates of 0.
        let (mut s, mut rec) = sender(Some(10_000), 10);
        step(&mut s, &mut rec, 0, |s, c| s.on_start(c));
        for t in 1..=2 {
            assert!(step(&mut s, &mut rec, 50 + t, |s, c| s.on_packet(c, &ack(0))).is_empty());
        }
        // The 3rd duplicate: flight 10,000 → ssthresh 5,000; resend 0; cwnd 5,000 + 3,000.
        let sent = step(&mut s, &mut rec, 53, |s, c| s.on_packet(c, &ack(0)));
        assert_eq!(sent, vec![0]);
        assert!(s.in_recovery);
        assert_eq!((s.ssthresh, s.cwnd), (5000.0, 8000.0));
        // The resent 0 fills up to 3,000 (segment 3 is lost): a partial ACK. Resend 3,000;
        // cwnd = 8,000 − 3,000 acknowledged + one MSS = 6,000.
        let sent = step(&mut s, &mut rec, 120, |s, c| s.on_packet(c, &ack(3000)));
        assert_eq!(sent, vec![3000]);
        assert!(s.in_recovery);
        assert_eq!(s.cwnd, 6000.0);
        // The full ACK (everything, past recover = 9,999): nothing is left in flight, so
        // cwnd = min(ssthresh 5,000, max(flight 0, MSS) + MSS) = 2,000.
        step(&mut s, &mut rec, 190, |s, c| s.on_packet(c, &ack(10_000)));
        assert!(!s.in_recovery);
        assert_eq!(s.cwnd, 2000.0);
    }

    #[test]
    fn a_timeout_goes_back_to_one_segment_and_each_timeout_doubles_the_rto() {
        // No RTT sample yet: RTO 1 s. At 1 s: ssthresh = max(10,000 / 2, 2,000), cwnd one MSS,
        // segment 0 resent; the next timeout is 2 s later, then 4 s.
        let (mut s, mut rec) = sender(None, 10);
        step(&mut s, &mut rec, 0, |s, c| s.on_start(c));
        assert_eq!(s.rto_deadline, Some(at_ms(1000)));
        let sent = step(&mut s, &mut rec, 1000, |s, c| s.on_wake(c));
        assert_eq!(sent, vec![0]);
        assert_eq!((s.cwnd, s.ssthresh), (1000.0, 5000.0));
        assert_eq!(s.rto_deadline, Some(at_ms(3000)));
        step(&mut s, &mut rec, 3000, |s, c| s.on_wake(c));
        assert_eq!(s.rto_deadline, Some(at_ms(7000)));
        assert_eq!(s.c.timeouts, 2);
    }

    #[test]
    fn a_timeout_for_data_the_timer_already_resent_leaves_ssthresh_alone() {
        // IW 10, no RTT sample: RTO 1 s. At 1 s segment 0 times out: ssthresh = 10,000 / 2 =
        // 5,000, cwnd 1,000, segment 0 resent.
        let (mut s, mut rec) = sender(None, 10);
        step(&mut s, &mut rec, 0, |s, c| s.on_start(c));
        step(&mut s, &mut rec, 1000, |s, c| s.on_wake(c));
        assert_eq!((s.cwnd, s.ssthresh), (1000.0, 5000.0));
        // Its ACK (1,000) opens cwnd to 2,000 (slow start): 1,000 and 2,000 are resent, going
        // back. The RTO is still the backed-off 2 s (segment 0 was resent: no sample).
        let sent = step(&mut s, &mut rec, 1050, |s, c| s.on_packet(c, &ack(1000)));
        assert_eq!(sent, vec![1000, 2000]);
        assert_eq!(s.rto_deadline, Some(at_ms(3050)));
        // At 3,050 ms segment 1,000 times out. The timer resent it, so ssthresh stays 5,000
        // rather than half of the 9,000 bytes outstanding (4,500).
        let sent = step(&mut s, &mut rec, 3050, |s, c| s.on_wake(c));
        assert_eq!(sent, vec![1000]);
        assert_eq!((s.cwnd, s.ssthresh), (1000.0, 5000.0));
        // An ACK of everything sent (10,000) passes all the timer resent: cwnd 2,000 sends
        // 10,000 and 11,000, new data. The RTO stays backed off twice (4 s): the ACK covers
        // only resent segments. When 10,000 times out at 7,100 ms, ssthresh falls again, to
        // max(2,000 outstanding / 2, 2·MSS) = 2,000.
        let sent = step(&mut s, &mut rec, 3100, |s, c| s.on_packet(c, &ack(10_000)));
        assert_eq!(sent, vec![10_000, 11_000]);
        assert_eq!(s.rto_deadline, Some(at_ms(7100)));
        step(&mut s, &mut rec, 7100, |s, c| s.on_wake(c));
        assert_eq!((s.cwnd, s.ssthresh), (1000.0, 2000.0));
    }

    #[test]
    fn limited_transmit_sends_one_new_segment_per_early_duplicate_and_keeps_it_out_of_flightsize() {
        // IW 10: segments 0..9 (10,000 bytes) fill cwnd = 10,000. The first duplicate ACK of 0
        // sends new segment 10,000 and the second 11,000 (outstanding 12,000 = cwnd + 2·MSS);
        // cwnd stays 10,000.
        let (mut s, mut rec) = sender(None, 10);
        step(&mut s, &mut rec, 0, |s, c| s.on_start(c));
        assert_eq!(step(&mut s, &mut rec, 51, |s, c| s.on_packet(c, &ack(0))), vec![10_000]);
        assert_eq!(step(&mut s, &mut rec, 52, |s, c| s.on_packet(c, &ack(0))), vec![11_000]);
        assert_eq!(s.cwnd, 10_000.0);
        // The third: FlightSize leaves out the 2,000 bytes limited transmit sent, so ssthresh =
        // 10,000 / 2 = 5,000 (not 12,000 / 2), cwnd = 5,000 + 3·1,000 = 8,000; 0 is resent.
        assert_eq!(step(&mut s, &mut rec, 53, |s, c| s.on_packet(c, &ack(0))), vec![0]);
        assert_eq!((s.ssthresh, s.cwnd), (5000.0, 8000.0));
    }

    #[test]
    fn without_limited_transmit_the_early_duplicates_send_nothing_and_flightsize_is_all_outstanding() {
        let (mut s, mut rec) = sender_with(None, 10, false);
        step(&mut s, &mut rec, 0, |s, c| s.on_start(c));
        assert!(step(&mut s, &mut rec, 51, |s, c| s.on_packet(c, &ack(0))).is_empty());
        assert!(step(&mut s, &mut rec, 52, |s, c| s.on_packet(c, &ack(0))).is_empty());
        assert_eq!(step(&mut s, &mut rec, 53, |s, c| s.on_packet(c, &ack(0))), vec![0]);
        assert_eq!((s.ssthresh, s.cwnd), (5000.0, 8000.0));
    }

    #[test]
    fn after_a_timeout_duplicates_of_older_data_send_no_new_segment() {
        // IW 2: segments 0 and 1,000. Timeout at 1 s: recover = 1,999, ssthresh = 2,000,
        // cwnd 1,000, segment 0 resent. Its ACK (1,000) opens cwnd to 2,000: 1,000 is resent
        // and 2,000 sent new, so nothing is left to go back to.
        let (mut s, mut rec) = sender(None, 2);
        step(&mut s, &mut rec, 0, |s, c| s.on_start(c));
        assert_eq!(step(&mut s, &mut rec, 1000, |s, c| s.on_wake(c)), vec![0]);
        assert_eq!(step(&mut s, &mut rec, 1050, |s, c| s.on_packet(c, &ack(1000))), vec![1000, 2000]);
        // A duplicate of 1,000 does not cover recover (RFC 6582 §4.1): no limited transmit,
        // though 3,000 would fit within cwnd + 2·MSS.
        assert!(step(&mut s, &mut rec, 1051, |s, c| s.on_packet(c, &ack(1000))).is_empty());
    }

    #[test]
    fn counted_as_ns3_does_flightsize_is_one_segment_less_after_two_limited_transmits() {
        // IW 10, limited transmit on: dupacks 1 and 2 send 10,000 and 11,000 (12,000
        // outstanding). ns-3 counts all three duplicates as deliveries: FlightSize = 12,000 −
        // 3,000 = 9,000, ssthresh 4,500 (RFC 5681's: 10,000 / 2 = 5,000); cwnd = 4,500 + 3,000.
        let (mut s, mut rec) = sender_counting(None, 10, true, FlightSize::Ns3);
        step(&mut s, &mut rec, 0, |s, c| s.on_start(c));
        for t in 51..=53 {
            step(&mut s, &mut rec, t, |s, c| s.on_packet(c, &ack(0)));
        }
        assert_eq!((s.ssthresh, s.cwnd), (4500.0, 7500.0));
    }

    #[test]
    fn counted_as_ns3_without_limited_transmit_only_the_third_duplicate_is_a_delivery() {
        // 10,000 outstanding, nothing sent on dupacks 1 and 2: FlightSize = 10,000 − 1,000,
        // ssthresh 4,500, cwnd 7,500.
        let (mut s, mut rec) = sender_counting(None, 10, false, FlightSize::Ns3);
        step(&mut s, &mut rec, 0, |s, c| s.on_start(c));
        for t in 51..=53 {
            step(&mut s, &mut rec, t, |s, c| s.on_packet(c, &ack(0)));
        }
        assert_eq!((s.ssthresh, s.cwnd), (4500.0, 7500.0));
    }
}
