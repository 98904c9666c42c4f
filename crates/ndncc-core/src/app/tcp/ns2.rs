//! The TCP sender as NS-2 (ns-2.35) runs `Agent/TCP/Newreno` with its default settings
//! (`tcl/lib/ns-default.tcl`; `tcp/tcp.cc`, `tcp/tcp-reno.cc`, `tcp/tcp-newreno.cc`), for
//! experiments whose seed ran NS-2. It counts in packets, as NS-2 does, where the RFC sender
//! (`sender.rs`) counts bytes:
//!
//! ```text
//!  window  = min(⌊cwnd⌋ + dupwnd, window_)          window_ = 20 packets (the advertised window)
//!  send while next ≤ highest_ack + window
//!  new ACK        : cwnd < ssthresh ? cwnd += 1 : cwnd += 1/cwnd     (one step per ACK)
//!  3rd dup ACK    : if highest_ack > recover (or = 0): recover = highest sent;
//!                   ssthresh = ⌊w/2⌋, cwnd = w/2 with w = min(cwnd, window_);
//!                   resend highest_ack + 1; dupwnd = 3
//!  dup ACK 1 and 2: one new packet if next ≤ highest_ack + cwnd + dupacks (limited transmit)
//!  further dup ACK: dupwnd += 1 (in recovery); at most 2 packets per ACK
//!  partial ACK    : deflate dupwnd (or cwnd) by the packets acknowledged less one; resend the
//!                   next hole; the timer restarts on the first partial ACK only
//!  full ACK       : dupwnd = 0, cwnd stays at w/2 and grows as for any new ACK
//!  timeout        : ssthresh = ⌊w/2⌋, cwnd = 1, recover = highest sent, back off, go back
//!                   to highest_ack + 1
//! ```
//!
//! The retransmission timer is NS-2's: RTTs in ticks of `tick` (10 ms), one segment timed per
//! window (no timestamps), srtt and rttvar kept as integers scaled by 8 and 4, RTO = (srtt +
//! 4·rttvar) ticks, at least `min_rto` before the backoff, at most `max_rto`, 3 s before the
//! first sample. With `syn` (NS-2's `syn_ true` and `delay_growth_ true`) the first packet is a
//! 40-byte SYN and the window opens to `window_init` when it is acknowledged. The receiver is
//! NS-2's `TCPSink`: one immediate cumulative ACK per packet (`TcpReceiver` with `ack_every` 1).
//!
//! Packet k (k ≥ 1 with a SYN, k ≥ 0 without) carries payload bytes from (k − first)·MSS; the
//! receiver's byte ACKs are turned back into packet numbers. NS-2 draws a random clock phase per
//! agent (`boot_time_`) for the RTT ticks; here the phase is 0. Not modelled: ECN, timestamps,
//! SACK, F-RTO, Quick-Start.

use serde::{Deserialize, Serialize};

use crate::app::tcp::summary::SenderTotals;
use crate::app::{AppCtx, Application};
use crate::histogram::Histogram;
use crate::ids::NodeId;
use crate::packet::{Header, Ip, Packet, Tcp, TcpFlags, Transport};
use crate::plugin::{check, Check, Invalid};
use crate::recorder::{EntityId, MetricId, Recorder, SummaryRow};
use crate::time::{SimDuration, SimTime};
use crate::units::Duration;

use super::sender::HEADER_BYTES;

/// NS-2's `numdupacks_`: duplicate ACKs that trigger fast retransmit.
const NUMDUPACKS: u32 = 3;
/// `T_SRTT_BITS` and `T_RTTVAR_BITS`: srtt is kept ×8, rttvar ×4 (in ticks).
const SRTT_BITS: u32 = 3;
const RTTVAR_BITS: u32 = 2;
/// `rttvar_exp_`: RTO = srtt + 2^2 · rttvar.
const RTTVAR_EXP: u32 = 2;
/// `rttvar_init_` [s]: the variation before the first sample.
const RTTVAR_INIT_S: u64 = 12;
/// NS-2 doubles the backoff while it is below 64 or the backed-off RTO is below `max_rto`;
/// past this the RTO is pinned at `max_rto` anyway.
const MAX_BACKOFF: u64 = 1 << 20;

/// `profile = { type = "ns2", … }`: NS-2's defaults for `Agent/TCP/Newreno` and `TCPSink`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct Ns2TcpConfig {
    /// `window_`: the receiver's advertised window, the cap on packets in flight [packets].
    pub window: u32,
    /// `windowInit_`: the window once the SYN is acknowledged (or at the start) [packets].
    pub window_init: u32,
    /// `syn_` (with `delay_growth_`): open with a 40-byte SYN and one packet of window.
    pub syn: bool,
    /// `tcpTick_`: the granularity of RTT measurement [time].
    pub tick: Duration,
    /// `minrto_` [time].
    pub min_rto: Duration,
    /// `maxrto_` [time].
    pub max_rto: Duration,
    /// `rtxcur_init_`: the RTO before the first sample [time].
    pub initial_rto: Duration,
}

impl Default for Ns2TcpConfig {
    fn default() -> Self {
        Ns2TcpConfig {
            window: 20,
            window_init: 2,
            syn: true,
            tick: Duration::from_millis(10),
            min_rto: Duration::from_millis(200),
            max_rto: Duration::from_secs(60),
            initial_rto: Duration::from_secs(3),
        }
    }
}

impl Ns2TcpConfig {
    /// Check every value; the error names the key relative to the `profile` table.
    pub fn validate(&self) -> Check {
        check::count("window", u64::from(self.window), 1, 1_000_000)?;
        check::count("window_init", u64::from(self.window_init), 1, 1_000_000)?;
        check::time("tick", self.tick.get(), false)?;
        check::time("min_rto", self.min_rto.get(), true)?;
        check::time("max_rto", self.max_rto.get(), false)?;
        check::time("initial_rto", self.initial_rto.get(), false)?;
        if self.min_rto > self.max_rto {
            return Err(Invalid::new("min_rto", "must not exceed max_rto"));
        }
        // srtt and rttvar are integer tick counts; a tick far below a microsecond would make
        // them overflow on second-long RTTs.
        if self.tick.get() < SimDuration::from_micros(1) {
            return Err(Invalid::new("tick", "must be at least 1us"));
        }
        Ok(())
    }
}

/// The sender's settings.
#[derive(Clone, Debug)]
pub struct Ns2TcpParams {
    pub name: String,
    pub me: NodeId,
    pub dst: NodeId,
    pub src_port: u16,
    pub dst_port: u16,
    /// `packetSize_`: the payload of every data packet [bytes].
    pub mss: u32,
    /// Bytes to send; `None` = until stopped.
    pub bytes: Option<u64>,
    pub cfg: Ns2TcpConfig,
}

/// NS-2's `last_cwnd_action_`, as far as NewReno reads it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CwndAction {
    None,
    DupAck,
    Timeout,
    Exited,
}

/// NS-2's retransmission-timer state (`rtt_init`, `rtt_update`, `rtt_timeout`, `rtt_backoff`).
#[derive(Clone, Debug)]
struct Ns2Rtt {
    tick: u64,
    min_rto: f64,
    max_rto: f64,
    tick_s: f64,
    /// 8 × srtt [ticks].
    t_srtt: i64,
    /// 4 × rttvar [ticks].
    t_rttvar: i64,
    /// The RTO before backoff [s].
    t_rtxcur: f64,
    t_backoff: u64,
}

impl Ns2Rtt {
    fn new(cfg: &Ns2TcpConfig) -> Ns2Rtt {
        let tick = cfg.tick.get().nanos().max(1);
        let rttvar_ticks = i64::try_from(RTTVAR_INIT_S * 1_000_000_000 / tick).unwrap_or(i64::MAX >> 4);
        Ns2Rtt {
            tick,
            min_rto: cfg.min_rto.get().as_secs_f64(),
            max_rto: cfg.max_rto.get().as_secs_f64(),
            tick_s: cfg.tick.get().as_secs_f64(),
            t_srtt: 0,
            t_rttvar: rttvar_ticks << RTTVAR_BITS,
            t_rtxcur: cfg.initial_rto.get().as_secs_f64(),
            t_backoff: 1,
        }
    }

    /// One RTT sample of a packet sent at `sent`, measured at `now`: the ticks the clock moved
    /// between them (at least 1), then Jacobson's integer update.
    fn update(&mut self, sent: SimTime, now: SimTime) {
        let tao = now.saturating_since(sent).nanos();
        let tickoff = sent.nanos() % self.tick;
        let t_rtt = i64::try_from((tao + tickoff) / self.tick).unwrap_or(i64::MAX >> 8).max(1);
        if self.t_srtt != 0 {
            let mut delta = t_rtt - (self.t_srtt >> SRTT_BITS);
            self.t_srtt += delta;
            if self.t_srtt <= 0 {
                self.t_srtt = 1;
            }
            delta = delta.abs() - (self.t_rttvar >> RTTVAR_BITS);
            self.t_rttvar += delta;
            if self.t_rttvar <= 0 {
                self.t_rttvar = 1;
            }
        } else {
            self.t_srtt = t_rtt << SRTT_BITS;
            self.t_rttvar = t_rtt << (RTTVAR_BITS - 1);
        }
        let ticks = ((self.t_rttvar << (RTTVAR_EXP + SRTT_BITS - RTTVAR_BITS)) + self.t_srtt) >> SRTT_BITS;
        self.t_rtxcur = ticks as f64 * self.tick_s;
    }

    /// The timer's length: the RTO clamped below by `min_rto` before the backoff (RFC 2988
    /// mode), at most `max_rto`, at least two ticks.
    fn timeout(&self) -> SimDuration {
        let base = self.t_rtxcur.max(self.min_rto);
        let t = (base * self.t_backoff as f64).min(self.max_rto).max(2.0 * self.tick_s);
        SimDuration::from_secs_f64(t)
    }

    fn backoff(&mut self) {
        if self.t_backoff < 64 || self.timeout().as_secs_f64() < self.max_rto {
            self.t_backoff = (self.t_backoff * 2).min(MAX_BACKOFF);
        }
        if self.t_backoff > 8 {
            // Backed off this far, NS-2 forgets srtt and folds it into the variation.
            self.t_rttvar += self.t_srtt >> SRTT_BITS;
            self.t_srtt = 0;
        }
    }

    fn srtt_s(&self) -> f64 {
        (self.t_srtt >> SRTT_BITS) as f64 * self.tick_s
    }
}

#[derive(Clone, Copy, Debug, Default)]
struct Counters {
    segments_sent: u64,
    retransmissions: u64,
    timeouts: u64,
    fast_retransmits: u64,
    rtt_sum_s: f64,
    rtt_samples: u64,
}

struct Ids {
    me: EntityId,
    cwnd: MetricId,
    ssthresh: MetricId,
    rto: MetricId,
    timeout: MetricId,
    acked: MetricId,
}

pub struct Ns2TcpSender {
    p: Ns2TcpParams,
    /// Packet number of the first data packet: 1 after a SYN, else 0.
    first: i64,
    /// `curseq_`: packets to send (one past the last); `i64::MAX` while sending forever.
    curseq: i64,
    /// `t_seqno_`: the next packet to send.
    pub(crate) t_seqno: i64,
    /// `maxseq_`: the highest packet sent.
    maxseq: i64,
    /// `last_ack_` (= `highest_ack_`): the highest packet acknowledged.
    pub(crate) last_ack: i64,
    pub(crate) cwnd: f64,
    pub(crate) ssthresh: i64,
    pub(crate) dupacks: u32,
    pub(crate) dupwnd: i64,
    recover: i64,
    last_cwnd_action: CwndAction,
    firstpartial: bool,
    /// `windowInit_`, lowered to 1 when the first packet is lost.
    wnd_init: u32,
    rtt: Ns2Rtt,
    rtt_active: bool,
    rtt_seq: i64,
    rtt_ts: SimTime,
    pub(crate) rto_deadline: Option<SimTime>,
    started_at: Option<SimTime>,
    completed_at: Option<SimTime>,
    bytes_acked: u64,
    c: Counters,
    rtt_hist: Histogram,
    ids: Ids,
}

impl Ns2TcpSender {
    pub fn new(p: Ns2TcpParams, rec: &mut Recorder) -> Ns2TcpSender {
        let me = rec.entity(&p.name);
        let mut m = |n: &str| rec.metric(n);
        let ids = Ids {
            me,
            cwnd: m("cwnd"),
            ssthresh: m("ssthresh"),
            rto: m("rto"),
            timeout: m("timeout"),
            acked: m("bytes_acked"),
        };
        let first = i64::from(p.cfg.syn);
        let cwnd = if p.cfg.syn { 1.0 } else { f64::from(p.cfg.window_init) };
        Ns2TcpSender {
            first,
            curseq: 0,
            t_seqno: 0,
            maxseq: -1,
            last_ack: -1,
            cwnd,
            ssthresh: i64::from(p.cfg.window),
            dupacks: 0,
            dupwnd: 0,
            recover: 0,
            last_cwnd_action: CwndAction::None,
            firstpartial: false,
            wnd_init: p.cfg.window_init,
            rtt: Ns2Rtt::new(&p.cfg),
            rtt_active: false,
            rtt_seq: -1,
            rtt_ts: SimTime::ZERO,
            rto_deadline: None,
            started_at: None,
            completed_at: None,
            bytes_acked: 0,
            c: Counters::default(),
            rtt_hist: Histogram::new(),
            ids,
            p,
        }
    }

    fn mss(&self) -> u64 {
        u64::from(self.p.mss)
    }

    fn wnd(&self) -> i64 {
        i64::from(self.p.cfg.window)
    }

    /// Reno's `window()`: ⌊cwnd⌋ + dupwnd, at most the advertised window.
    pub(crate) fn window(&self) -> i64 {
        ((self.cwnd as i64) + self.dupwnd).min(self.wnd())
    }

    /// Reno's `windowd()`: the same without the rounding down.
    fn windowd(&self) -> f64 {
        (self.cwnd + self.dupwnd as f64).min(f64::from(self.p.cfg.window))
    }

    /// Payload bytes [start, end) of data packet `seq`.
    fn payload(&self, seq: i64) -> (u64, u64) {
        let k = u64::try_from(seq - self.first).unwrap_or(0);
        let start = k.saturating_mul(self.mss());
        let end = start.saturating_add(self.mss());
        (start, self.p.bytes.map_or(end, |n| end.min(n)))
    }

    fn set_rtx_timer(&mut self, now: SimTime) {
        self.rto_deadline = Some(now + self.rtt.timeout());
    }

    /// `output(seqno)`: send packet `seq` (the SYN when it is packet 0 and `syn` is on).
    fn output(&mut self, ctx: &mut AppCtx, seq: i64) {
        let force_timer = self.last_ack == self.maxseq;
        let (tcp_seq, len, flags) = if seq == 0 && self.p.cfg.syn {
            (0, 0, TcpFlags::SYN)
        } else {
            let (s, e) = self.payload(seq);
            (s, u32::try_from(e - s).unwrap_or(u32::MAX), TcpFlags::ACK)
        };
        let tcp = Tcp {
            src_port: self.p.src_port,
            dst_port: self.p.dst_port,
            seq: tcp_seq,
            ack: 0,
            flags,
            window: u32::MAX,
            len,
        };
        let ip = Ip { src: self.p.me, dst: self.p.dst, ecn_capable: false, transport: Transport::Tcp(tcp) };
        ctx.send(Packet::new(Header::Ip(ip), len + HEADER_BYTES));
        self.c.segments_sent += 1;
        if seq > self.maxseq {
            self.maxseq = seq;
            if !self.rtt_active {
                self.rtt_active = true;
                if seq > self.rtt_seq {
                    self.rtt_seq = seq;
                    self.rtt_ts = ctx.now;
                }
            }
        } else {
            self.c.retransmissions += 1;
        }
        if self.rto_deadline.is_none() || force_timer {
            self.set_rtx_timer(ctx.now);
        }
    }

    /// `send_much`: new packets while the window allows, at most `maxburst` (0 = no limit).
    fn send_much(&mut self, ctx: &mut AppCtx, maxburst: u32) {
        let mut n = 0;
        while self.t_seqno <= self.last_ack + self.window() && self.t_seqno < self.curseq {
            self.output(ctx, self.t_seqno);
            self.t_seqno += 1;
            n += 1;
            if maxburst > 0 && n == maxburst {
                break;
            }
        }
    }

    /// `send_one`: on the first and second duplicate ACK, one new packet if the window plus the
    /// duplicates allows it.
    fn send_one(&mut self, ctx: &mut AppCtx) {
        let limit = self.last_ack as f64 + self.cwnd + f64::from(self.dupacks);
        if self.t_seqno <= self.last_ack + self.wnd() && self.t_seqno < self.curseq && self.t_seqno as f64 <= limit {
            self.output(ctx, self.t_seqno);
            self.t_seqno += 1;
        }
    }

    /// `opencwnd`: +1 per ACK in slow start, +1/cwnd in congestion avoidance.
    fn opencwnd(&mut self) {
        if self.cwnd < self.ssthresh as f64 {
            self.cwnd += 1.0;
        } else {
            self.cwnd += 1.0 / self.cwnd;
        }
    }

    /// `slowdown(CLOSE_SSTHRESH_HALF | …)`: ssthresh = ⌊w/2⌋ (at least 2) of w = windowd();
    /// then cwnd = w/2 (fast retransmit) or 1 (timeout).
    fn slowdown(&mut self, cwnd_to_one: bool) {
        let half = self.windowd() / 2.0;
        self.ssthresh = (half as i64).max(2);
        self.cwnd = if cwnd_to_one { 1.0 } else { half.max(1.0) };
    }

    /// `newtimer`: restart the timer while anything is (or may be) outstanding.
    fn newtimer(&mut self, now: SimTime, ack: i64) {
        if self.t_seqno > ack || ack < self.maxseq || self.cwnd < 1.0 {
            self.set_rtx_timer(now);
        } else {
            self.rto_deadline = None;
        }
    }

    fn acknowledge(&mut self, now: SimTime, ack: i64) {
        self.last_ack = ack;
        self.t_seqno = self.t_seqno.max(ack + 1);
        let (_, end) = if ack >= self.first { self.payload(ack) } else { (0, 0) };
        self.bytes_acked = self.bytes_acked.max(end);
        if self.completed_at.is_none() && self.p.bytes.is_some_and(|n| self.bytes_acked >= n) {
            self.completed_at = Some(now);
        }
    }

    /// `newack` with `recv_newack_helper`: a new cumulative ACK outside fast recovery.
    fn newack(&mut self, now: SimTime, ack: i64) {
        self.dupacks = 0;
        self.acknowledge(now, ack);
        if self.rtt_active && ack >= self.rtt_seq {
            self.rtt.t_backoff = 1;
            self.rtt_active = false;
            self.rtt.update(self.rtt_ts, now);
            let r = now.saturating_since(self.rtt_ts);
            self.c.rtt_sum_s += r.as_secs_f64();
            self.c.rtt_samples += 1;
            self.rtt_hist.record(r);
        }
        self.newtimer(now, ack);
        self.opencwnd();
    }

    /// `partialnewack_helper`: an ACK inside fast recovery that leaves holes.
    fn partial_ack(&mut self, ctx: &mut AppCtx, ack: i64) {
        if !self.firstpartial {
            self.firstpartial = true;
            self.newtimer(ctx.now, ack);
        }
        let deflate = ack - self.last_ack;
        if self.dupwnd > deflate {
            self.dupwnd -= deflate - 1;
        } else {
            self.cwnd -= (deflate - self.dupwnd) as f64;
            self.dupwnd = 1;
        }
        self.cwnd = self.cwnd.max(1.0);
        self.acknowledge(ctx.now, ack);
        if self.rtt_active && ack >= self.rtt_seq {
            self.rtt_active = false;
            self.rtt.t_backoff = 1;
        }
        self.output(ctx, self.last_ack + 1);
    }

    /// NewReno's `dupack_action` on the third duplicate.
    fn dupack_action(&mut self, ctx: &mut AppCtx) {
        let recovered = self.last_ack > self.recover;
        if !recovered && self.last_ack != 0 {
            // bugfix_: no second fast retransmit for losses of the same window.
            return;
        }
        self.c.fast_retransmits += 1;
        self.recover = self.maxseq;
        self.set_rtx_timer(ctx.now);
        self.rtt_active = false;
        self.last_cwnd_action = CwndAction::DupAck;
        self.slowdown(false);
        self.output(ctx, self.last_ack + 1);
        self.dupwnd = i64::from(NUMDUPACKS);
    }

    /// The packet a cumulative ACK of `tcp` names.
    fn ack_seq(&self, tcp: &Tcp) -> i64 {
        if tcp.flags.contains(TcpFlags::SYN) {
            return 0;
        }
        let packets = tcp.ack.div_ceil(self.mss());
        self.first - 1 + i64::try_from(packets).unwrap_or(i64::MAX - self.first)
    }

    /// NewReno's `recv`.
    fn on_ack(&mut self, ctx: &mut AppCtx, tcp: &Tcp) {
        let ack = self.ack_seq(tcp).min(self.maxseq);
        if ack > self.last_ack {
            if ack >= self.recover || self.last_cwnd_action != CwndAction::DupAck {
                if self.dupwnd > 0 {
                    self.dupwnd = 0;
                    if self.last_cwnd_action == CwndAction::DupAck {
                        self.last_cwnd_action = CwndAction::Exited;
                    }
                }
                self.firstpartial = false;
                self.newack(ctx.now, ack);
                if self.last_ack == 0 {
                    // delay_growth_: the window opens when the first packet (the SYN) is
                    // acknowledged.
                    self.cwnd = f64::from(self.wnd_init);
                }
            } else {
                self.partial_ack(ctx, ack);
            }
        } else if ack == self.last_ack {
            self.dupacks += 1;
            if self.dupacks == NUMDUPACKS {
                self.dupack_action(ctx);
            } else if self.dupacks > NUMDUPACKS && self.last_cwnd_action == CwndAction::DupAck {
                self.dupwnd += 1;
            } else if self.dupacks < NUMDUPACKS {
                self.send_one(ctx);
            }
        }
        if self.dupacks == 0 {
            self.send_much(ctx, 0);
        } else if self.dupacks >= NUMDUPACKS {
            self.send_much(ctx, 2);
        }
    }

    /// Reno's and then TCP's `timeout`.
    fn on_timeout(&mut self, ctx: &mut AppCtx) {
        self.c.timeouts += 1;
        ctx.recorder.event(ctx.now, self.ids.me, self.ids.timeout, self.last_ack as f64);
        self.dupwnd = 0;
        self.dupacks = 0;
        self.recover = self.maxseq;
        self.cwnd = self.cwnd.max(1.0);
        let idle = self.last_ack == self.maxseq;
        if self.last_ack == -1 && self.wnd_init > 1 {
            // The first packet was lost: no larger initial window.
            self.wnd_init = 1;
        }
        if idle {
            self.cwnd = 1.0;
        } else {
            self.last_cwnd_action = CwndAction::Timeout;
            self.slowdown(true);
        }
        if !idle {
            self.rtt.backoff();
        }
        self.set_rtx_timer(ctx.now);
        self.t_seqno = self.last_ack + 1;
        self.rtt_active = false;
        self.last_cwnd_action = CwndAction::Timeout;
        ctx.recorder.event(ctx.now, self.ids.me, self.ids.rto, self.rtt.timeout().as_secs_f64());
        self.send_much(ctx, 0);
    }

    fn request_wake(&self, ctx: &mut AppCtx) {
        if let Some(d) = self.rto_deadline {
            ctx.wake_at(d);
        }
    }
}

impl Application for Ns2TcpSender {
    fn on_start(&mut self, ctx: &mut AppCtx) {
        self.started_at = Some(ctx.now);
        self.curseq = match self.p.bytes {
            Some(n) => self.first.saturating_add(i64::try_from(n.div_ceil(self.mss())).unwrap_or(i64::MAX)),
            None => i64::MAX,
        };
        self.send_much(ctx, 0);
        self.request_wake(ctx);
    }

    fn on_stop(&mut self, _ctx: &mut AppCtx) {
        // No new data after this; what was sent is still delivered.
        self.curseq = self.curseq.min(self.maxseq + 1);
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
            self.rto_deadline = None;
            self.on_timeout(ctx);
        }
        self.request_wake(ctx);
    }

    fn sample(&self, now: SimTime, rec: &mut Recorder) {
        rec.sample(now, self.ids.me, self.ids.cwnd, self.cwnd * self.mss() as f64);
        rec.sample(now, self.ids.me, self.ids.ssthresh, self.ssthresh as f64 * self.mss() as f64);
        rec.sample(now, self.ids.me, self.ids.acked, self.bytes_acked as f64);
    }

    /// Its samples (window, threshold, bytes acknowledged) read only what its hooks change.
    fn samples_change_only_in_hooks(&self) -> bool {
        true
    }

    fn summary(&self, end: SimTime, out: &mut Vec<SummaryRow>) {
        let c = &self.c;
        SenderTotals {
            name: &self.p.name,
            bytes_acked: self.bytes_acked,
            segments_sent: c.segments_sent,
            retransmissions: c.retransmissions,
            timeouts: c.timeouts,
            fast_retransmits: c.fast_retransmits,
            ecn_reductions: None,
            started_at: self.started_at,
            completed_at: self.completed_at,
            rtt_sum_s: c.rtt_sum_s,
            rtt_samples: c.rtt_samples,
            rtt_hist: &self.rtt_hist,
            srtt_ms: Some(self.rtt.srtt_s() * 1e3),
        }
        .rows(end, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::tcp::test_util::{ack, ack_with, at_ms, MSS};
    use crate::recorder::EventSamples;

    fn sender(cfg: Ns2TcpConfig) -> (Ns2TcpSender, Recorder) {
        let mut rec = Recorder::new(EventSamples::Skipped);
        let p = Ns2TcpParams {
            name: "t".into(),
            me: NodeId(0),
            dst: NodeId(1),
            src_port: 1,
            dst_port: 2,
            mss: MSS,
            bytes: None,
            cfg,
        };
        let s = Ns2TcpSender::new(p, &mut rec);
        (s, rec)
    }

    /// Run `f` at `ms`; return the (TCP seq, size on the wire, SYN?) of what it sent.
    fn step(
        s: &mut Ns2TcpSender,
        rec: &mut Recorder,
        ms: u64,
        f: impl FnOnce(&mut Ns2TcpSender, &mut AppCtx),
    ) -> Vec<(u64, u32, bool)> {
        let sent = crate::app::tcp::test_util::step(s, rec, ms, f);
        sent.into_iter().map(|(t, size)| (t.seq, size, t.flags.contains(TcpFlags::SYN))).collect()
    }

    fn syn_ack() -> Packet {
        ack_with(0, TcpFlags::ACK.with(TcpFlags::SYN))
    }

    /// Start with the SYN exchanged at 0 and 100 ms: data packets 1 and 2 are out.
    fn connected() -> (Ns2TcpSender, Recorder) {
        let (mut s, mut rec) = sender(Ns2TcpConfig::default());
        step(&mut s, &mut rec, 0, |s, c| s.on_start(c));
        step(&mut s, &mut rec, 100, |s, c| s.on_packet(c, &syn_ack()));
        (s, rec)
    }

    #[test]
    fn a_40_byte_syn_goes_alone_and_its_ack_opens_the_window_to_two_packets_of_1040_bytes() {
        let (mut s, mut rec) = sender(Ns2TcpConfig::default());
        assert_eq!(step(&mut s, &mut rec, 0, |s, c| s.on_start(c)), vec![(0, 40, true)]);
        // Before any RTT sample the timer is rtxcur_init_ = 3 s.
        assert_eq!(s.rto_deadline, Some(at_ms(3000)));
        let sent = step(&mut s, &mut rec, 100, |s, c| s.on_packet(c, &syn_ack()));
        assert_eq!(sent, vec![(0, 1040, false), (1000, 1040, false)]);
        assert_eq!(s.cwnd, 2.0);
    }

    #[test]
    fn the_first_rtt_sample_of_100_ms_gives_an_rto_of_300_ms() {
        // 10 ticks: srtt×8 = 80, rttvar×4 = 20; RTO = (80 + 20·8) / 8 = 30 ticks = 0.3 s, above
        // minrto_ 0.2 s. The ACK at 100 ms restarts the timer: 400 ms.
        let (s, _) = connected();
        assert_eq!((s.rtt.t_srtt, s.rtt.t_rttvar), (80, 20));
        assert_eq!(s.rtt.timeout(), SimDuration::from_millis(300));
        assert_eq!(s.rto_deadline, Some(at_ms(400)));
    }

    #[test]
    fn a_second_sample_of_120_ms_moves_srtt_by_an_eighth_and_rttvar_by_a_quarter_in_integers() {
        // Packet 1 is timed (sent at 100 ms); its ACK at 220 ms: 12 ticks. delta = 12 − 10 = 2:
        // srtt×8 = 82; |2| − 20/4 = −3: rttvar×4 = 17; RTO = (17·8 + 82) / 8 = 27 ticks.
        let (mut s, mut rec) = connected();
        step(&mut s, &mut rec, 220, |s, c| s.on_packet(c, &ack(1000)));
        assert_eq!((s.rtt.t_srtt, s.rtt.t_rttvar), (82, 17));
        assert_eq!(s.rtt.timeout(), SimDuration::from_millis(270));
    }

    #[test]
    fn slow_start_adds_one_packet_per_ack_and_window_caps_the_flight_at_20_packets() {
        // After the ACK of packet k, cwnd = 2 + k and packets up to min(2 + 2k, k + 20) are
        // out: the window_ of 20 binds from k = 19 on, while cwnd keeps growing (by 1/cwnd
        // once it reaches ssthresh = window_ = 20).
        let (mut s, mut rec) = connected();
        for k in 1..=18u64 {
            let sent = step(&mut s, &mut rec, 200 + k, |s, c| s.on_packet(c, &ack(k * 1000)));
            assert_eq!(sent.len(), 2, "ACK {k}: slow start sends two per ACK");
        }
        assert_eq!(s.cwnd, 20.0);
        assert_eq!(s.t_seqno - 1, 38);
        for k in 19..=30u64 {
            let sent = step(&mut s, &mut rec, 200 + k, |s, c| s.on_packet(c, &ack(k * 1000)));
            assert_eq!(sent.len(), 1, "ACK {k}: one in, one out");
            assert_eq!(s.t_seqno - 1 - s.last_ack, 20);
        }
        assert_eq!(s.window(), 20);
        assert!(s.cwnd > 20.5 && s.cwnd < 20.7, "cwnd {}", s.cwnd);
    }

    #[test]
    fn the_third_duplicate_halves_the_capped_window_and_resends_the_hole() {
        // 20 packets in flight (21..=40 after the ACK of 20); cwnd ≈ 20.05 but w = min(cwnd,
        // window_) = 20: ssthresh = 10, cwnd = 10, dupwnd = 3; packet 21 (bytes 20,000) again.
        let (mut s, mut rec) = connected();
        for k in 1..=20u64 {
            step(&mut s, &mut rec, 200 + k, |s, c| s.on_packet(c, &ack(k * 1000)));
        }
        let high = s.t_seqno - 1;
        // Duplicates 1 and 2: limited transmit may send one new packet each while
        // t_seqno ≤ last_ack + cwnd + dupacks, but window_ (20) is already full.
        assert!(step(&mut s, &mut rec, 300, |s, c| s.on_packet(c, &ack(20_000))).is_empty());
        assert!(step(&mut s, &mut rec, 301, |s, c| s.on_packet(c, &ack(20_000))).is_empty());
        let sent = step(&mut s, &mut rec, 302, |s, c| s.on_packet(c, &ack(20_000)));
        assert_eq!(sent, vec![(20_000, 1040, false)]);
        assert_eq!((s.ssthresh, s.cwnd, s.dupwnd), (10, 10.0, 3));
        assert_eq!(s.recover, high);
        // Window = 10 + 3 = 13 < 20 in flight: further duplicates inflate without sending until
        // dupwnd passes 10 more.
        assert!(step(&mut s, &mut rec, 303, |s, c| s.on_packet(c, &ack(20_000))).is_empty());
        assert_eq!(s.dupwnd, 4);
    }

    #[test]
    fn a_partial_ack_deflates_and_resends_and_a_full_ack_keeps_cwnd_at_half() {
        let (mut s, mut rec) = connected();
        for k in 1..=20u64 {
            step(&mut s, &mut rec, 200 + k, |s, c| s.on_packet(c, &ack(k * 1000)));
        }
        for t in 300..303 {
            step(&mut s, &mut rec, t, |s, c| s.on_packet(c, &ack(20_000)));
        }
        // The resent 21 arrives; 22 was lost too: ACK of 21 is partial (recover = 40).
        // deflate = 1: dupwnd 3 > 1 → dupwnd −= 0; packet 22 (bytes 21,000) is resent.
        let sent = step(&mut s, &mut rec, 400, |s, c| s.on_packet(c, &ack(21_000)));
        assert_eq!(sent, vec![(21_000, 1040, false)]);
        assert_eq!((s.cwnd, s.dupwnd), (10.0, 3));
        // Everything up to 40: a full ACK. dupwnd = 0, cwnd = 10 and congestion avoidance
        // adds 1/10 (cwnd 10 ≥ ssthresh 10).
        step(&mut s, &mut rec, 500, |s, c| s.on_packet(c, &ack(40_000)));
        assert_eq!(s.dupwnd, 0);
        assert!((s.cwnd - 10.1).abs() < 1e-12);
    }

    #[test]
    fn a_timeout_sets_ssthresh_to_half_the_window_and_cwnd_to_one_and_doubles_the_timer() {
        // Packets 1 and 2 out, RTO 300 ms from 100 ms. At 400 ms: ssthresh = max(⌊2/2⌋, 2) = 2,
        // cwnd 1, packet 1 resent, timer 2 × 300 = 600 ms.
        let (mut s, mut rec) = connected();
        let sent = step(&mut s, &mut rec, 400, |s, c| s.on_wake(c));
        assert_eq!(sent, vec![(0, 1040, false)]);
        assert_eq!((s.ssthresh, s.cwnd), (2, 1.0));
        assert_eq!(s.rto_deadline, Some(at_ms(1000)));
    }

    #[test]
    fn without_syn_the_first_flight_is_window_init_packets() {
        let cfg = Ns2TcpConfig { syn: false, ..Ns2TcpConfig::default() };
        let (mut s, mut rec) = sender(cfg);
        let sent = step(&mut s, &mut rec, 0, |s, c| s.on_start(c));
        assert_eq!(sent, vec![(0, 1040, false), (1000, 1040, false)]);
    }

    #[test]
    fn validation_names_the_key_at_fault() {
        assert!(Ns2TcpConfig::default().validate().is_ok());
        let bad = Ns2TcpConfig { window: 0, ..Ns2TcpConfig::default() };
        assert_eq!(bad.validate().unwrap_err().key, "window");
        let bad = Ns2TcpConfig { min_rto: Duration::from_secs(90), ..Ns2TcpConfig::default() };
        assert_eq!(bad.validate().unwrap_err().key, "min_rto");
        let bad = Ns2TcpConfig { tick: Duration(SimDuration::from_nanos(10)), ..Ns2TcpConfig::default() };
        assert_eq!(bad.validate().unwrap_err().key, "tick");
    }
}
