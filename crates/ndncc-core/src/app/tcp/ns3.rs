//! The TCP sender as ns-3.37 runs it with `TcpNewReno`, `TcpClassicRecovery`, no SACK and no
//! timestamps (`TcpSocketBase`, `TcpTxBuffer`, `TcpNewReno`, `TcpClassicRecovery`), for
//! side-by-side checks with ns-3. It differs from the RFC sender (`sender.rs`) in one way
//! that matters: without SACK, ns-3 still keeps a scoreboard of the segments sent and guesses
//! it from duplicate ACKs, and it sends while its estimate of the data in the network
//! (`BytesInFlight`) is below cwnd, where the RFC sender inflates and deflates cwnd.
//!
//! ```text
//!  scoreboard   every segment sent and not yet acknowledged: lost, sacked (a guess), resent
//!  in flight  = sent − sacked − lost + resent; send while cwnd − in flight ≥ 1 MSS: the first
//!               segment marked lost and not yet resent, else new data
//!  dup ACK      (state Open → Disorder) dupacks += 1 outside recovery;
//!                1st, 2nd: mark the next unmarked segment after the head sacked (only with
//!                          limited transmit: that is what lets a new segment out)
//!                3rd (ack ≥ recover or none active): enter Recovery: mark one more sacked,
//!                          the head lost; recover = highest sent; ssthresh = max(2·MSS,
//!                          (in flight + MSS)/2); cwnd = ssthresh; resend the head
//!                in Recovery: mark one more sacked (cwnd stays: the estimate falls instead)
//!                in Loss (after a timeout): ignored
//!  new ACK      drop what it covers; a new head marked sacked was a wrong guess: unmark it,
//!               mark the next unmarked segment sacked and the head lost (ns-3 then resends a
//!               segment the receiver has, whose duplicate ACK marks another: ns-3's resend
//!               loop, references/ns3/README.md)
//!               Recovery, ack < recover: mark the head lost, resend it; restart the timer on
//!                          the first partial ACK only; cwnd unchanged
//!               Recovery, ack ≥ recover: Open; cwnd = ssthresh, then grow as below
//!               Loss, ack < recover: grow; ack ≥ recover: Open, grow by the part above recover
//!               grow (NewReno): slow start +1 MSS per ACK (whatever it covers), then
//!                          ⌊max(1, MSS²/cwnd)⌋ bytes once per ACK; cwnd in whole bytes
//!               every new ACK outside a partial ACK restarts the timer with the RTO unbacked
//!  timeout      unmark every sacked, mark every segment lost and not resent; recover =
//!               highest sent; ssthresh = max(2·MSS, in flight / 2) (every time: ns-3 asks
//!               whether the head was resent after clearing that mark); cwnd = 1 MSS; state
//!               Loss; RTO doubles (at most max_rto); no RTT sample until new data is acked
//!  RTT          one sample per ACK, from the oldest segment it covers entirely, unless that
//!               was resent (Karn); RTO = max(min_rto, srtt + 4·rttvar)
//! ```
//!
//! Sequence numbers are byte offsets from 0. The connection starts established: ns-3's
//! handshake (one RTT before the first data) is not modelled. The receiver is the RFC stack's
//! (`receiver.rs`), which acknowledges as ns-3's `TcpSocketBase` does.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use crate::app::tcp::summary::SenderTotals;
use crate::app::{AppCtx, Application};
use crate::histogram::Histogram;
use crate::ids::NodeId;
use crate::packet::{Header, Ip, Packet, Tcp, TcpFlags, Transport};
use crate::recorder::{EntityId, MetricId, Recorder, SummaryRow};
use crate::rtt::{RttConfig, RttEstimator};
use crate::time::{SimDuration, SimTime};

use super::sender::HEADER_BYTES;

/// `TcpSocketBase::ReTxThreshold`: duplicate ACKs that start a fast retransmit.
const DUP_THRESH: u32 = 3;

/// `profile = { type = "ns3" }`: ns-3.37's sender. It has no keys of its own: the flow's
/// `mss`, `initial_window`, `limited_transmit` and `rtt` configure it as the matching ns-3
/// attributes would (`SegmentSize`, `InitialCwnd`, `LimitedTransmit`, `MinRto` …).
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Ns3TcpConfig {}

/// The sender's settings.
#[derive(Clone, Debug)]
pub struct Ns3TcpParams {
    pub name: String,
    pub me: NodeId,
    pub dst: NodeId,
    pub src_port: u16,
    pub dst_port: u16,
    /// `SegmentSize` [bytes of payload].
    pub mss: u32,
    /// `InitialCwnd` [segments].
    pub initial_window: u32,
    /// Bytes to send; `None` = until stopped.
    pub bytes: Option<u64>,
    /// `LimitedTransmit`.
    pub limited_transmit: bool,
    /// `RttEstimator` and `MinRto`; RTOs double up to `max_rto` (ns-3: 60 s).
    pub rtt: RttConfig,
}

/// `TcpSocketState::TcpCongState_t`, the states this sender reaches.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum CongState {
    Open,
    Disorder,
    Recovery,
    Loss,
}

/// A `TcpTxItem` of the sent list: one segment sent and not yet acknowledged.
#[derive(Clone, Copy, Debug)]
struct Item {
    start: u64,
    len: u32,
    lost: bool,
    sacked: bool,
    retrans: bool,
}

/// The sent list with `TcpTxBuffer`'s counters [bytes].
#[derive(Clone, Debug, Default)]
struct Scoreboard {
    /// SND.UNA: where the first item starts.
    head: u64,
    items: VecDeque<Item>,
    sent: u64,
    sacked: u64,
    lost: u64,
    retrans: u64,
    /// Where the highest segment marked sacked starts (`m_highestSack`).
    highest_sack: Option<u64>,
}

impl Scoreboard {
    fn high_tx(&self) -> u64 {
        self.head + self.sent
    }

    /// `BytesInFlight`: sent − sacked − lost + resent.
    fn in_flight(&self) -> u64 {
        (self.sent + self.retrans).saturating_sub(self.sacked + self.lost)
    }

    fn push(&mut self, len: u32) {
        let start = self.high_tx();
        self.items.push_back(Item { start, len, lost: false, sacked: false, retrans: false });
        self.sent += u64::from(len);
    }

    /// `DiscardUpTo`: drop the items `ack` covers (whole segments only: the receiver
    /// acknowledges segment ends). A new head marked sacked was a wrong guess: the mark moves
    /// on and the head is marked lost.
    fn discard_up_to(&mut self, ack: u64) {
        while let Some(first) = self.items.front().copied() {
            let len = u64::from(first.len);
            let end = first.start + len;
            if end > ack {
                break;
            }
            self.sent -= len;
            if first.sacked {
                self.sacked -= len;
            }
            if first.lost {
                self.lost -= len;
            }
            if first.retrans {
                self.retrans -= len;
            }
            self.head = end;
            self.items.pop_front();
        }
        if let Some(first) = self.items.front_mut() {
            if first.sacked {
                first.sacked = false;
                self.sacked -= u64::from(first.len);
                self.add_reno_sack();
                self.mark_head_lost();
            }
        }
        if self.highest_sack.is_some_and(|h| h <= self.head) {
            self.highest_sack = None;
        }
    }

    /// `AddRenoSack`: a duplicate ACK means one segment left the network; guess it is the
    /// first one after the head not yet marked.
    fn add_reno_sack(&mut self) {
        if let Some(it) = self.items.iter_mut().skip(1).find(|it| !it.sacked) {
            it.sacked = true;
            self.sacked += u64::from(it.len);
            self.highest_sack = Some(it.start);
        }
    }

    /// `MarkHeadAsLost`: the head is lost, not sacked and not (yet) resent.
    fn mark_head_lost(&mut self) {
        if let Some(h) = self.items.front_mut() {
            let len = u64::from(h.len);
            if h.sacked {
                h.sacked = false;
                self.sacked -= len;
            }
            if h.retrans {
                h.retrans = false;
                self.retrans -= len;
            }
            if !h.lost {
                h.lost = true;
                self.lost += len;
            }
        }
    }

    /// `ResetRenoSack` and `SetSentListLost(true)` at a timeout: nothing sacked, everything
    /// lost and not resent.
    fn all_lost(&mut self) {
        for it in &mut self.items {
            it.sacked = false;
            it.lost = true;
            it.retrans = false;
        }
        self.sacked = 0;
        self.retrans = 0;
        self.lost = self.sent;
        self.highest_sack = None;
    }

    /// `IsLost(seq)`: the first item from `seq` on is marked lost before one marked sacked.
    fn is_lost(&self, seq: u64) -> bool {
        if self.highest_sack.is_none_or(|h| seq >= h) {
            return false;
        }
        self.items.iter().find(|it| it.start >= seq && (it.lost || it.sacked)).is_some_and(|it| it.lost)
    }

    /// `NextSeg` rule 1 without SACK: the first item marked lost, not sacked, not resent.
    fn first_lost(&self) -> Option<usize> {
        if self.lost == 0 {
            // Nothing is marked lost (nearly always outside recovery): no need to look.
            return None;
        }
        self.items.iter().position(|it| it.lost && !it.sacked && !it.retrans)
    }

    /// `GetTransmittedSegment`: item `i` is sent again.
    fn mark_resent(&mut self, i: usize) {
        let it = &mut self.items[i];
        if !it.retrans {
            it.retrans = true;
            self.retrans += u64::from(it.len);
        }
    }
}

/// `RttHistory`: a run of bytes sent and when; `retx` once any of it was sent again.
#[derive(Clone, Copy, Debug)]
struct History {
    seq: u64,
    count: u64,
    at: SimTime,
    retx: bool,
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

pub struct Ns3TcpSender {
    p: Ns3TcpParams,
    board: Scoreboard,
    state: CongState,
    /// `m_cWnd`, `m_ssThresh` [bytes].
    pub(crate) cwnd: u64,
    pub(crate) ssthresh: u64,
    dupacks: u32,
    /// `m_recover` and `m_recoverActive`.
    recover: u64,
    recover_active: bool,
    /// `m_highRxAckMark`: the highest ACK received.
    high_rx_ack: u64,
    first_partial_ack: bool,
    /// Bytes of partial segments acknowledged and not yet counted as a segment.
    acked_not_counted: u64,
    /// The end of the data: all bytes, or what was sent when stopped; `None` while sending
    /// forever.
    end: Option<u64>,
    rtt: RttEstimator,
    /// `m_rto`: backed off at a timeout, recomputed from the estimate at a new ACK.
    rto: SimDuration,
    history: VecDeque<History>,
    pub(crate) rto_deadline: Option<SimTime>,
    started_at: Option<SimTime>,
    completed_at: Option<SimTime>,
    c: Counters,
    rtt_hist: Histogram,
    ids: Ids,
}

impl Ns3TcpSender {
    pub fn new(p: Ns3TcpParams, rec: &mut Recorder) -> Ns3TcpSender {
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
        let rtt = RttEstimator::new(p.rtt);
        Ns3TcpSender {
            board: Scoreboard::default(),
            state: CongState::Open,
            cwnd: u64::from(p.initial_window.max(1)) * u64::from(p.mss),
            ssthresh: u64::from(u32::MAX),
            dupacks: 0,
            recover: 0,
            recover_active: false,
            high_rx_ack: 0,
            first_partial_ack: true,
            acked_not_counted: 0,
            end: p.bytes,
            rto: rtt.base_rto(),
            rtt,
            history: VecDeque::new(),
            rto_deadline: None,
            started_at: None,
            completed_at: None,
            c: Counters::default(),
            rtt_hist: Histogram::new(),
            ids,
            p,
        }
    }

    fn mss(&self) -> u64 {
        u64::from(self.p.mss)
    }

    /// `GetSsThresh` of `TcpNewReno`.
    fn ssthresh_for(&self, in_flight: u64) -> u64 {
        (2 * self.mss()).max(in_flight / 2)
    }

    /// `SendDataPacket`: one segment from `seq` of `len` bytes; `resend` for an item of the
    /// sent list.
    fn send_segment(&mut self, ctx: &mut AppCtx, seq: u64, len: u32, resend: bool) {
        let tcp = Tcp {
            src_port: self.p.src_port,
            dst_port: self.p.dst_port,
            seq,
            ack: 0,
            flags: TcpFlags::ACK,
            window: u32::MAX,
            len,
        };
        let ip = Ip { src: self.p.me, dst: self.p.dst, ecn_capable: false, transport: Transport::Tcp(tcp) };
        ctx.send(Packet::new(Header::Ip(ip), len + HEADER_BYTES));
        self.c.segments_sent += 1;
        if resend {
            self.c.retransmissions += 1;
            // `UpdateRttHistory`: the run holding `seq` gives no sample any more.
            if let Some(h) = self.history.iter_mut().find(|h| seq >= h.seq && seq < h.seq + h.count) {
                h.retx = true;
                h.count = seq + u64::from(len) - h.seq;
            }
        } else {
            self.history.push_back(History { seq, count: u64::from(len), at: ctx.now, retx: false });
        }
        if self.rto_deadline.is_none() {
            self.rto_deadline = Some(ctx.now + self.rto);
        }
    }

    /// Resend item `i` of the sent list.
    fn resend(&mut self, ctx: &mut AppCtx, i: usize) {
        let Item { start: seq, len, .. } = self.board.items[i];
        self.board.mark_resent(i);
        self.send_segment(ctx, seq, len, true);
    }

    /// `DoRetransmit`: the first segment marked lost, or else the head.
    fn do_retransmit(&mut self, ctx: &mut AppCtx) {
        let i = self.board.first_lost().unwrap_or(0);
        if i < self.board.items.len() {
            self.resend(ctx, i);
        }
    }

    /// `SendPendingData`: while cwnd − in flight leaves room, the first segment marked lost,
    /// else new data; a segment waits for a whole MSS of room unless it is the last of the data.
    fn send_pending(&mut self, ctx: &mut AppCtx) {
        loop {
            let room = self.cwnd.saturating_sub(self.board.in_flight());
            if room == 0 {
                break;
            }
            let high = self.board.high_tx();
            let (seq, lost) = match self.board.first_lost() {
                Some(i) => (self.board.items[i].start, Some(i)),
                None if self.end.is_none_or(|e| high < e) => (high, None),
                None => break,
            };
            let available = self.end.map_or(u64::MAX, |e| e - seq);
            if room < self.mss() && available > room {
                break;
            }
            match lost {
                Some(i) => self.resend(ctx, i),
                None => {
                    let len = self.mss().min(available);
                    let len = u32::try_from(len).unwrap_or(self.p.mss);
                    self.board.push(len);
                    self.send_segment(ctx, seq, len, false);
                }
            }
        }
    }

    /// `NewAck`: with `restart`, the timer restarts with the RTO from the estimate (the
    /// backoff gone); no timer once everything is acknowledged.
    fn new_ack(&mut self, now: SimTime, restart: bool) {
        if restart {
            self.rto = self.rtt.base_rto();
            self.rto_deadline = Some(now + self.rto);
        }
        if self.end.is_some_and(|e| self.board.head >= e) {
            self.rto_deadline = None;
        }
    }

    /// `TcpNewReno::IncreaseWindow`.
    fn increase_window(&mut self, segs: u64) {
        let mut segs = segs;
        if self.cwnd < self.ssthresh && segs >= 1 {
            self.cwnd += self.mss();
            segs -= 1;
        }
        if self.cwnd >= self.ssthresh && segs > 0 {
            let mss = self.mss() as f64;
            let adder = (mss * mss / self.cwnd as f64).max(1.0);
            self.cwnd += adder as u64;
        }
    }

    /// `EstimateRtt`: a sample from the oldest run this ACK covers, unless it was resent.
    fn estimate_rtt(&mut self, now: SimTime, ack: u64) {
        let sample =
            self.history.front().filter(|h| !h.retx && ack >= h.seq + h.count).map(|h| now.saturating_since(h.at));
        while self.history.front().is_some_and(|h| h.seq + h.count <= ack) {
            self.history.pop_front();
        }
        if let Some(r) = sample.filter(|r| *r > SimDuration::ZERO) {
            self.rtt.add_sample(r);
            self.rto = self.rtt.base_rto();
            self.c.rtt_sum_s += r.as_secs_f64();
            self.c.rtt_samples += 1;
            self.rtt_hist.record(r);
        }
    }

    /// `EnterRecovery` with classic recovery.
    fn enter_recovery(&mut self, ctx: &mut AppCtx) {
        self.c.fast_retransmits += 1;
        self.board.add_reno_sack();
        self.board.mark_head_lost();
        self.recover = self.board.high_tx();
        self.recover_active = true;
        self.state = CongState::Recovery;
        // ns-3 counts the head as in flight here "for compatibility with old ns-3 versions".
        self.ssthresh = self.ssthresh_for(self.board.in_flight() + self.mss());
        self.cwnd = self.ssthresh;
        self.do_retransmit(ctx);
    }

    /// `DupAck`.
    fn dup_ack(&mut self, ctx: &mut AppCtx) {
        if self.state == CongState::Loss {
            return;
        }
        if self.state != CongState::Recovery {
            self.dupacks += 1;
        }
        if self.state == CongState::Open {
            self.state = CongState::Disorder;
        }
        match self.state {
            CongState::Recovery => self.board.add_reno_sack(),
            CongState::Disorder => {
                // The third duplicate (unless a recovery point is still ahead), or the segment
                // after the first unacknowledged one already marked lost (`IsLost`, RFC 6675
                // §5 step 2).
                let third = self.dupacks == DUP_THRESH && (self.high_rx_ack >= self.recover || !self.recover_active);
                if third || self.board.is_lost(self.high_rx_ack + self.mss()) {
                    self.enter_recovery(ctx);
                } else if self.p.limited_transmit {
                    self.board.add_reno_sack();
                }
            }
            _ => {}
        }
    }

    /// `ReceivedAck` and `ProcessAck`.
    fn on_ack(&mut self, ctx: &mut AppCtx, tcp: &Tcp) {
        let ack = tcp.ack.min(self.board.high_tx());
        self.estimate_rtt(ctx.now, ack);
        self.high_rx_ack = self.high_rx_ack.max(ack);
        let old_head = self.board.head;
        if ack < old_head {
            return;
        }
        self.board.discard_up_to(ack);
        let high_tx = self.board.high_tx();
        let is_dup = ack == old_head && ack < high_tx;
        if is_dup {
            self.dup_ack(ctx);
        }
        if ack > old_head {
            self.process_new_ack(ctx, ack, old_head, is_dup);
        }
        if self.completed_at.is_none() && self.p.bytes.is_some_and(|n| ack >= n) {
            self.completed_at = Some(ctx.now);
        }
        self.send_pending(ctx);
    }

    /// `ProcessAck` for an ACK that moves SND.UNA.
    fn process_new_ack(&mut self, ctx: &mut AppCtx, ack: u64, old_head: u64, is_dup: bool) {
        let mss = self.mss();
        let acked = ack - old_head;
        let mut segs = acked / mss;
        self.acked_not_counted += acked % mss;
        if self.acked_not_counted >= mss {
            segs += 1;
            self.acked_not_counted -= mss;
        }
        if !is_dup {
            self.dupacks = 0;
        }
        if ack < self.recover && self.state == CongState::Recovery {
            // Partial ACK: the head is lost; resend it. ns-3 asks whether the head was already
            // resent only after clearing that mark, so it always resends.
            self.board.mark_head_lost();
            self.do_retransmit(ctx);
            let first = self.first_partial_ack;
            self.new_ack(ctx.now, first);
            self.first_partial_ack = false;
            return;
        }
        if ack < self.recover && self.state == CongState::Loss {
            self.increase_window(segs);
            self.new_ack(ctx.now, true);
            return;
        }
        let mut exited_recovery = false;
        match self.state {
            CongState::Open => {}
            CongState::Disorder => {
                if !is_dup {
                    self.state = CongState::Open;
                }
            }
            CongState::Recovery => {
                self.first_partial_ack = true;
                segs = acked / mss;
                self.state = CongState::Open;
                exited_recovery = true;
                self.dupacks = 0;
            }
            CongState::Loss => {
                self.first_partial_ack = true;
                segs = (ack - self.recover) / mss;
                self.state = CongState::Open;
            }
        }
        if ack >= self.recover {
            self.recover_active = false;
        }
        if exited_recovery {
            self.new_ack(ctx.now, true);
            self.cwnd = self.ssthresh;
        }
        if self.state == CongState::Open {
            self.increase_window(segs);
            self.new_ack(ctx.now, true);
        }
    }

    /// `ReTxTimeout`.
    fn on_timeout(&mut self, ctx: &mut AppCtx) {
        if self.board.items.is_empty() {
            return;
        }
        self.c.timeouts += 1;
        ctx.recorder.event(ctx.now, self.ids.me, self.ids.timeout, self.board.head as f64);
        let in_flight_before = self.board.in_flight();
        self.dupacks = 0;
        self.board.all_lost();
        self.recover = self.board.high_tx();
        self.recover_active = true;
        self.rto = self.rto.saturating_mul(2).min(self.p.rtt.max_rto.get());
        self.history.clear();
        // ns-3 keeps ssthresh for a timeout of a segment the timer already resent, but asks
        // after the marks were cleared: it always lowers it.
        self.ssthresh = self.ssthresh_for(in_flight_before);
        self.state = CongState::Loss;
        self.cwnd = self.mss();
        ctx.recorder.event(ctx.now, self.ids.me, self.ids.rto, self.rto.as_secs_f64());
        self.send_pending(ctx);
    }

    fn request_wake(&self, ctx: &mut AppCtx) {
        if let Some(d) = self.rto_deadline {
            ctx.wake_at(d);
        }
    }
}

impl Application for Ns3TcpSender {
    fn on_start(&mut self, ctx: &mut AppCtx) {
        self.started_at = Some(ctx.now);
        self.send_pending(ctx);
        self.request_wake(ctx);
    }

    fn on_stop(&mut self, _ctx: &mut AppCtx) {
        // No new data after this; what was sent is still delivered.
        let high = self.board.high_tx();
        self.end = Some(self.end.map_or(high, |e| e.min(high)));
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
        rec.sample(now, self.ids.me, self.ids.cwnd, self.cwnd as f64);
        if self.ssthresh < u64::from(u32::MAX) {
            rec.sample(now, self.ids.me, self.ids.ssthresh, self.ssthresh as f64);
        }
        rec.sample(now, self.ids.me, self.ids.acked, self.board.head as f64);
    }

    /// Its samples (window, threshold, bytes acknowledged) read only what its hooks change.
    fn samples_change_only_in_hooks(&self) -> bool {
        true
    }

    fn summary(&self, end: SimTime, out: &mut Vec<SummaryRow>) {
        let c = &self.c;
        SenderTotals {
            name: &self.p.name,
            bytes_acked: self.board.head,
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
            srtt_ms: None,
        }
        .rows(end, out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::tcp::tcp_rtt_config;
    use crate::app::tcp::test_util::{ack, at_ms, starts, MSS};
    use crate::recorder::EventSamples;

    fn sender(limited_transmit: bool) -> (Ns3TcpSender, Recorder) {
        let mut rec = Recorder::new(EventSamples::Skipped);
        let p = Ns3TcpParams {
            name: "t".into(),
            me: NodeId(0),
            dst: NodeId(1),
            src_port: 1,
            dst_port: 2,
            mss: MSS,
            initial_window: 10,
            bytes: None,
            limited_transmit,
            rtt: tcp_rtt_config(),
        };
        let s = Ns3TcpSender::new(p, &mut rec);
        (s, rec)
    }

    /// Run `f` at `ms`; return the starts of the segments it sent.
    fn step(
        s: &mut Ns3TcpSender,
        rec: &mut Recorder,
        ms: u64,
        f: impl FnOnce(&mut Ns3TcpSender, &mut AppCtx),
    ) -> Vec<u64> {
        starts(crate::app::tcp::test_util::step(s, rec, ms, f))
    }

    /// Segments 0..9 sent, then three duplicate ACKs of 0 at 51–53 ms.
    fn into_recovery(limited_transmit: bool) -> (Ns3TcpSender, Recorder, Vec<Vec<u64>>) {
        let (mut s, mut rec) = sender(limited_transmit);
        step(&mut s, &mut rec, 0, |s, c| s.on_start(c));
        let sent = (51..=53).map(|t| step(&mut s, &mut rec, t, |s, c| s.on_packet(c, &ack(0)))).collect();
        (s, rec, sent)
    }

    #[test]
    fn early_duplicates_mark_guessed_deliveries_and_the_third_halves_the_estimate_in_flight() {
        // Each of the first two duplicates marks the next segment after the head delivered:
        // ns-3's estimate of the data in flight drops by one and a new segment fits in cwnd.
        let (s, _rec, sent) = into_recovery(true);
        assert_eq!(sent, vec![vec![10_000], vec![11_000], vec![0]]);
        // At the third: 12 segments out, 3 marked delivered, the head lost: 8,000 in flight,
        // plus the head "for compatibility": ssthresh = cwnd = 9,000 / 2. RFC 5681 would halve
        // the 10,000 sent before limited transmit.
        assert_eq!(s.state, CongState::Recovery);
        assert_eq!((s.ssthresh, s.cwnd), (4500, 4500));
        // The resent head is in flight again: 9,000 > cwnd, nothing more goes.
        assert_eq!(s.board.in_flight(), 9000);
        assert_eq!(s.c.fast_retransmits, 1);
    }

    #[test]
    fn without_limited_transmit_the_early_duplicates_send_nothing() {
        let (s, _rec, sent) = into_recovery(false);
        assert_eq!(sent, vec![vec![], vec![], vec![0]]);
        // 10 out, the third duplicate's guess and the lost head: (8,000 + 1,000) / 2.
        assert_eq!(s.ssthresh, 4500);
    }

    #[test]
    fn in_recovery_each_duplicate_lowers_the_estimate_until_new_data_fits_under_cwnd() {
        let (mut s, mut rec, _) = into_recovery(true);
        // cwnd stays 4,500; each duplicate marks one more segment delivered, taking 1,000 off
        // the 9,000 in flight. Only after the sixth (3,000 in flight) is there room for a whole
        // segment: new data, 12,000.
        let mut sent = Vec::new();
        for t in 60..66 {
            sent.push(step(&mut s, &mut rec, t, |s, c| s.on_packet(c, &ack(0))));
        }
        assert_eq!(s.cwnd, 4500);
        assert_eq!(sent.concat(), vec![12_000]);
    }

    #[test]
    fn a_partial_ack_onto_a_segment_guessed_delivered_moves_the_guess_on_and_resends_the_head() {
        // Segment 1,000 was lost too; the duplicates came from later ones. The resent 0 brings
        // an ACK of 1,000, whose segment the scoreboard had marked delivered: that mark moves
        // to the next unmarked segment (4,000), and the head is marked lost and resent.
        let (mut s, mut rec, _) = into_recovery(true);
        let sent = step(&mut s, &mut rec, 120, |s, c| s.on_packet(c, &ack(1000)));
        assert_eq!(sent, vec![1000]);
        assert_eq!(s.state, CongState::Recovery);
        let marked: Vec<bool> = s.board.items.iter().map(|it| it.sacked).collect();
        assert_eq!(&marked[..5], &[false, true, true, true, false]);
        // cwnd is not deflated by a partial ACK; the first one restarts the timer.
        assert_eq!(s.cwnd, 4500);
        assert_eq!(s.rto_deadline, Some(at_ms(1120)));
    }

    #[test]
    fn a_timeout_marks_everything_lost_and_resends_as_the_window_opens() {
        let (mut s, mut rec) = sender(true);
        step(&mut s, &mut rec, 0, |s, c| s.on_start(c));
        assert_eq!(s.rto_deadline, Some(at_ms(1000)));
        // 10,000 in flight: ssthresh 5,000, cwnd one MSS, the head resent, RTO doubled.
        assert_eq!(step(&mut s, &mut rec, 1000, |s, c| s.on_wake(c)), vec![0]);
        assert_eq!((s.ssthresh, s.cwnd, s.state), (5000, 1000, CongState::Loss));
        assert_eq!(s.rto_deadline, Some(at_ms(3000)));
        // An ACK of the head: slow start to 2,000, the next two lost segments resent, and the
        // timer restarts with the RTO of the estimate (no backoff).
        assert_eq!(step(&mut s, &mut rec, 1100, |s, c| s.on_packet(c, &ack(1000))), vec![1000, 2000]);
        assert_eq!(s.cwnd, 2000);
        assert_eq!(s.rto_deadline, Some(at_ms(2100)));
    }

    #[test]
    fn a_timeout_of_data_the_timer_already_resent_lowers_ssthresh_again() {
        // ns-3 means to keep ssthresh here (RFC 5681 §3.1) but asks whether the head was resent
        // after clearing that mark: the second timeout halves the one segment then in flight.
        let (mut s, mut rec) = sender(true);
        step(&mut s, &mut rec, 0, |s, c| s.on_start(c));
        step(&mut s, &mut rec, 1000, |s, c| s.on_wake(c));
        assert_eq!(step(&mut s, &mut rec, 3000, |s, c| s.on_wake(c)), vec![0]);
        assert_eq!((s.ssthresh, s.c.timeouts), (2000, 2));
        assert_eq!(s.rto_deadline, Some(at_ms(7000)));
    }

    #[test]
    fn congestion_avoidance_adds_whole_bytes_once_per_ack() {
        let (mut s, mut rec) = sender(true);
        s.ssthresh = 3000;
        s.cwnd = 3000;
        step(&mut s, &mut rec, 0, |s, c| s.on_start(c));
        // An ACK of two segments: ⌊1,000² / 3,000⌋ = 333 bytes, once.
        step(&mut s, &mut rec, 60, |s, c| s.on_packet(c, &ack(2000)));
        assert_eq!(s.cwnd, 3333);
    }
}
