//! PCON's local link-loss detection (Schneider et al., ICN 2016; seed 004; ALGORITHMS.md A5): a
//! link-layer shim that numbers frames, has the receiver acknowledge them, and turns a Data lost
//! on the link into a LinkLoss NACK towards the consumer, so that a wireless or tunnel loss is
//! not mistaken for congestion.
//!
//! ```text
//!  R2 (upstream)                                              R1 (downstream)
//!  face R2->R1: on_transmit numbers the frame (tx_seq = n),
//!               remembers it (and the Data it carries) ── Data n ──╳ lost
//!                                                   ◀── Interest, ack = m ── piggybacked ACK
//!                                                   ◀── ACK frame, ack = k ── after ack_delay
//!  frame n is lost once `loss_threshold` later frames are acknowledged, or after the timeout:
//!  it carried a Data → NACK(LinkLoss, mark = queue of R2->R1 is marking) on R2->R1 ──▶ R1
//!  R1's PIT entry for the name still waits (the Data never came): R1 hands the NACK on to
//!  every downstream that asked, as it does any NACK, and it reaches the consumer.
//! ```
//!
//! How the NACK reaches the consumer: the lost Data consumed the PIT entry of the sending
//! router, but not that of the router across the link, which never got it. So the sending
//! router sends the NACK on the very face the Data was lost on, and the downstream forwarder
//! treats it as a NACK from its upstream face (it may try another next hop first, as for any
//! NACK). This is the original PCON code's division of labour: the downstream router builds the
//! consumer-bound NACK from its own PIT entry. The NACK crosses the lossy link too and may be
//! lost in turn; then the consumer's own timer recovers the segment.
//!
//! Acknowledgements follow NDNLPv2's reliability (NFD's `LpReliability`): each Ack names one
//! received TxSequence. The receiver piggybacks the oldest pending Ack on every frame it
//! transmits; an Ack still pending `ack_delay` after its frame arrived goes in a standalone ACK
//! frame of `ack_size` bytes (a `Header::LinkAck` that costs link capacity and that the peer's
//! service absorbs; the forwarder never sees it). The Ack value of a standalone frame is chosen
//! when it leaves the queue, so an ACK frame that waited behind other frames still carries the
//! oldest Ack then pending.
//!
//! A lost ACK makes its frame look lost (by overtaking or timeout): the sender then sends a
//! spurious NACK. The downstream PIT entry was satisfied by the Data, so the downstream
//! forwarder drops that NACK as one for no pending Interest; the consumer never sees it. An
//! ACK that arrives for a frame already declared lost counts in `spurious_losses`.
//!
//! Frames with a Data produce NACKs, and so do frames with a LinkLoss NACK
//! (`nack_lost_nacks`): the original code's NACK is a Data carrying a NACK-type tag, so a shim
//! that watches Data frames watches its NACKs too, and a NACK lost in the same full FIFO as the
//! Data it reports is reported again. A lost Interest is left to the consumer's timer. Whether the NACK is marked (the original code's NACK types
//! 23 = marked, 17 = unmarked) depends on what a loss on this link means (seed 004, slide 22):
//! - `loss = "random"` (a wireless link): losses are unrelated to congestion, so the NACK is
//!   unmarked (retransmit only), unless this face's own queue is marking when the loss is
//!   detected;
//! - `loss = "congestion"` (an IP overlay, a UDP tunnel): a loss is congestion in the underlay
//!   the NDN layer cannot see, so every NACK is marked (retransmit and decrease).
//!
//! With `carry_data_mark` the NACK also keeps the mark of the lost Data.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::{LinkCtx, LinkService};
use crate::packet::{Header, LinkFields, NackReason, NdnKind, Packet};
use crate::plugin::{check, Check, Plugin};
use crate::queue::QueueDisc;
use crate::recorder::Unit;
use crate::rtt::{Backoff, RttConfig, RttEstimator};
use crate::time::{SimDuration, SimTime};
use crate::units::{Bytes, Duration};

/// The most later frames that may be required to overtake a frame before it counts as lost.
pub const MAX_LOSS_THRESHOLD: u64 = 1000;
/// The most standalone ACK frames the service keeps in its face's queue at once.
const MAX_QUEUED_ACK_FRAMES: usize = 8;
/// The longest the adaptive timeout may grow (a few queueing episodes' worth on any link).
const MAX_TIMEOUT: SimDuration = SimDuration::from_secs(60);

/// What a loss on the link says about congestion, and so whether its NACK is marked.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LossMeaning {
    /// Losses unrelated to congestion (a wireless link): the NACK is marked only while the
    /// face's own queue is marking.
    #[default]
    Random,
    /// Losses are congestion the NDN layer cannot see (an IP overlay's hidden underlay, a UDP
    /// tunnel): every NACK is marked.
    Congestion,
}

/// `{ type = "loss-detect", … }` as a link's `link_service`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct LossDetectConfig {
    /// A frame is lost once this many frames sent after it are acknowledged (NFD's
    /// `seqNumLossThreshold`) [frames]. Default 3.
    pub loss_threshold: u64,
    /// A fixed time after which an unacknowledged frame is lost [time]. Default: unset, the
    /// adaptive timeout srtt + 4·rttvar of the frames' acknowledgement times (RFC 6298, as NFD's
    /// `LpReliability`), never below `min_timeout`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub timeout: Option<Duration>,
    /// Floor of the adaptive timeout, and the timeout before the first acknowledgement [time].
    /// Default: three link round trips plus two ACK delays, 3 · 2 · delay + 2 · `ack_delay`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub min_timeout: Option<Duration>,
    /// How long a received frame's Ack may wait for a frame to ride on before it goes in an ACK
    /// frame of its own [time]. Default "5ms" (NFD's idle Ack timer).
    pub ack_delay: Duration,
    /// Size of a standalone ACK frame on the wire [bytes]. Default "10B" (an NDNLPv2 LpPacket
    /// with one Ack field).
    pub ack_size: Bytes,
    /// Size of a LinkLoss NACK on the wire [bytes]. Default "50B" (a 40-byte Interest in an
    /// LpPacket with a Nack header).
    pub nack_size: Bytes,
    /// What a loss on this link means (seed 004, slide 22): `"random"` (wireless; NACK
    /// marked only while the face's queue marks) or `"congestion"` (IP overlay; every NACK
    /// marked). Default `"random"`.
    pub loss: LossMeaning,
    /// Also mark the NACK when the lost Data itself was marked (a congestion mark from further
    /// upstream would otherwise be lost with it). Default false.
    pub carry_data_mark: bool,
    /// A lost LinkLoss NACK is reported again, as a lost Data is (the original code's NACK is
    /// a Data with a NACK-type tag). Default true; false leaves it to the consumer's timer.
    pub nack_lost_nacks: bool,
}

impl Default for LossDetectConfig {
    fn default() -> Self {
        LossDetectConfig {
            loss_threshold: 3,
            timeout: None,
            min_timeout: None,
            ack_delay: Duration::from_millis(5),
            ack_size: Bytes(10),
            nack_size: Bytes(50),
            loss: LossMeaning::Random,
            carry_data_mark: false,
            nack_lost_nacks: true,
        }
    }
}

impl Plugin for LossDetectConfig {
    type Built = Box<dyn LinkService>;
    fn validate(&self) -> Check {
        check::count("loss_threshold", self.loss_threshold, 1, MAX_LOSS_THRESHOLD)?;
        if let Some(t) = self.timeout {
            check::time("timeout", t.get(), false)?;
        }
        if let Some(t) = self.min_timeout {
            check::time("min_timeout", t.get(), false)?;
        }
        check::time("ack_delay", self.ack_delay.get(), true)?;
        check::packet_bytes("ack_size", self.ack_size.0, 1)?;
        check::packet_bytes("nack_size", self.nack_size.0, 1)
    }
    fn build(&self) -> Box<dyn LinkService> {
        Box::new(LossDetect::new(self))
    }
}

/// A numbered frame not yet acknowledged.
#[derive(Clone, Copy, Debug)]
struct Sent {
    seq: u32,
    sent_at: SimTime,
    /// Frames sent after this one that were acknowledged since.
    overtaken: u64,
    /// The Data it carries, for the NACK.
    /// The Data (or LinkLoss NACK) the frame carries, to be reported if the frame is lost.
    data: Option<Packet>,
}

/// Cumulative counters of one face's shim.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LossDetectCounters {
    pub frames_sent: u64,
    pub frames_lost: u64,
    /// Frames declared lost whose ACK came later after all.
    pub spurious_losses: u64,
    /// Ack values sent, piggybacked or in ACK frames.
    pub acks_sent: u64,
    pub ack_frames_sent: u64,
    pub nacks_sent: u64,
}

pub struct LossDetect {
    cfg: LossDetectConfig,
    /// `min_timeout` resolved from the face's delay at the first hook.
    floor: Option<SimDuration>,
    rtt: Option<RttEstimator>,
    /// Last TxSequence used (0 is never used: it means "no sequence").
    last_seq: u32,
    unacked: VecDeque<Sent>,
    /// Received TxSequences still to acknowledge, with their arrival times, oldest first.
    to_ack: VecDeque<(u32, SimTime)>,
    /// Standalone ACK frames handed to the queue and not yet transmitted.
    ack_frames_queued: usize,
    pub counters: LossDetectCounters,
}

impl LossDetect {
    pub fn new(cfg: &LossDetectConfig) -> LossDetect {
        LossDetect {
            cfg: cfg.clone(),
            floor: None,
            rtt: None,
            last_seq: 0,
            unacked: VecDeque::new(),
            to_ack: VecDeque::new(),
            ack_frames_queued: 0,
            counters: LossDetectCounters::default(),
        }
    }

    /// Resolve the defaults that depend on the face (its propagation delay).
    fn resolve(&mut self, ctx: &LinkCtx) {
        if self.floor.is_some() {
            return;
        }
        let ack_delay = self.cfg.ack_delay.get();
        let floor = match self.cfg.min_timeout {
            Some(t) => t.get(),
            None => ctx.egress.delay.saturating_mul(6) + ack_delay.saturating_mul(2),
        }
        .max(SimDuration(1));
        self.floor = Some(floor);
        self.rtt = Some(RttEstimator::new(RttConfig {
            initial_rto: Duration(floor),
            min_rto: Duration(floor),
            max_rto: Duration(MAX_TIMEOUT.max(floor)),
            max_backoff: 1,
            backoff: Backoff::None,
            ..RttConfig::default()
        }));
    }

    /// The time after which an unacknowledged frame is lost.
    pub fn timeout(&self) -> SimDuration {
        match (self.cfg.timeout, &self.rtt) {
            (Some(t), _) => t.get(),
            (None, Some(r)) => r.rto(),
            (None, None) => self.floor.unwrap_or(SimDuration(1)),
        }
    }

    fn next_seq(&mut self) -> u32 {
        self.last_seq = self.last_seq.wrapping_add(1).max(1);
        self.last_seq
    }

    /// The oldest pending Ack, if any, counted as sent.
    fn take_ack(&mut self) -> u32 {
        match self.to_ack.pop_front() {
            Some((seq, _)) => {
                self.counters.acks_sent += 1;
                seq
            }
            None => 0,
        }
    }

    /// The peer acknowledged `seq`.
    fn on_ack(&mut self, ctx: &mut LinkCtx, seq: u32) {
        let Some(i) = self.unacked.iter().position(|s| s.seq == seq) else {
            // Already declared lost (the only way an Ack finds no frame: each is sent once).
            self.counters.spurious_losses += 1;
            return;
        };
        let Some(s) = self.unacked.remove(i) else { return };
        if let Some(r) = self.rtt.as_mut() {
            r.add_sample(ctx.now.saturating_since(s.sent_at));
        }
        // Every frame sent before this one was overtaken once more. Older frames have been
        // overtaken at least as often as younger ones, so the lost ones are a prefix.
        for f in self.unacked.iter_mut().take(i) {
            f.overtaken += 1;
        }
        while self.unacked.front().is_some_and(|f| f.overtaken >= self.cfg.loss_threshold) {
            if let Some(f) = self.unacked.pop_front() {
                self.declare_lost(ctx, f);
            }
        }
    }

    /// Frame `f` is lost: if it carried a Data, NACK it towards the consumer over this face.
    fn declare_lost(&mut self, ctx: &mut LinkCtx, f: Sent) {
        self.counters.frames_lost += 1;
        let Some(data) = f.data else { return };
        let mut nack = Packet::nack_for(&data, NackReason::LinkLoss);
        nack.size = u32::try_from(self.cfg.nack_size.0).unwrap_or(u32::MAX);
        nack.link = LinkFields::default();
        let hidden_congestion = self.cfg.loss == LossMeaning::Congestion;
        let queue_marking = ctx.egress.queue.is_congested();
        // A NACK reported again keeps its meaning; a Data's mark only with `carry_data_mark`.
        let keep = (self.cfg.carry_data_mark || is_linkloss_nack(&data)) && data.is_marked();
        nack.mark = u8::from(hidden_congestion || queue_marking || keep);
        self.counters.nacks_sent += 1;
        ctx.send(nack);
    }

    /// Time out frames past their deadline, send ACK frames for Acks that waited long enough,
    /// and ask to be woken for the next of either.
    fn poll(&mut self, ctx: &mut LinkCtx) {
        let timeout = self.timeout();
        while self.unacked.front().is_some_and(|f| f.sent_at + timeout <= ctx.now) {
            if let Some(f) = self.unacked.pop_front() {
                self.declare_lost(ctx, f);
            }
        }
        // An ACK frame the queue dropped never reaches `on_transmit`: never count more queued
        // ACK frames than the queue holds packets.
        let queued = ctx.egress.queue_packets();
        self.ack_frames_queued = self.ack_frames_queued.min(queued);
        let ack_delay = self.cfg.ack_delay.get();
        let due = self.to_ack.iter().take_while(|(_, at)| *at + ack_delay <= ctx.now).count();
        // Standalone ACK frames only while the queue holds nothing but them: any other frame in
        // it leaves soon and carries an Ack. A busy queue thus never fills with ACK frames (nor
        // drops them), and an idle one sends a few at a time, each transmission asking for more.
        if queued == self.ack_frames_queued {
            let size = u32::try_from(self.cfg.ack_size.0).unwrap_or(u32::MAX);
            while self.ack_frames_queued < due.min(MAX_QUEUED_ACK_FRAMES) {
                self.ack_frames_queued += 1;
                ctx.send(Packet::new(Header::LinkAck, size));
            }
        }
        if let Some(f) = self.unacked.front() {
            ctx.wake_at(f.sent_at + timeout);
        }
        // Acks already due are sent by the frames leaving (each transmission polls again); wake
        // for the first that is not due yet.
        if let Some(&(_, at)) = self.to_ack.get(due) {
            ctx.wake_at(at + ack_delay);
        }
    }
}

/// Whether `packet` is a LinkLoss NACK (one this service, or its peer, made).
fn is_linkloss_nack(packet: &Packet) -> bool {
    packet.ndn().is_some_and(|h| h.kind == NdnKind::Nack(NackReason::LinkLoss))
}

impl LinkService for LossDetect {
    fn name(&self) -> &'static str {
        "loss-detect"
    }

    fn on_transmit(&mut self, ctx: &mut LinkCtx, packet: &mut Packet) {
        self.resolve(ctx);
        if packet.header == Header::LinkAck {
            // A standalone ACK frame is not numbered: it is never acknowledged itself.
            self.ack_frames_queued = self.ack_frames_queued.saturating_sub(1);
            packet.link = LinkFields { tx_seq: 0, ack: self.take_ack() };
            if packet.link.ack != 0 {
                self.counters.ack_frames_sent += 1;
            }
        } else {
            let seq = self.next_seq();
            packet.link = LinkFields { tx_seq: seq, ack: self.take_ack() };
            self.counters.frames_sent += 1;
            let reported = packet.is_data() || (self.cfg.nack_lost_nacks && is_linkloss_nack(packet));
            let data = reported.then_some(*packet);
            self.unacked.push_back(Sent { seq, sent_at: ctx.now, overtaken: 0, data });
        }
        self.poll(ctx);
    }

    fn on_receive(&mut self, ctx: &mut LinkCtx, mut packet: Packet) -> Option<Packet> {
        self.resolve(ctx);
        if packet.link.ack != 0 {
            self.on_ack(ctx, packet.link.ack);
        }
        let pass = packet.header != Header::LinkAck;
        if pass && packet.link.tx_seq != 0 {
            self.to_ack.push_back((packet.link.tx_seq, ctx.now));
        }
        self.poll(ctx);
        // The link fields belong to this link: the node must not carry them to the next.
        packet.link = LinkFields::default();
        pass.then_some(packet)
    }

    fn on_wake(&mut self, ctx: &mut LinkCtx) {
        self.resolve(ctx);
        self.poll(ctx);
    }

    fn sample(&self, out: &mut Vec<(&'static str, f64, Unit)>) {
        let c = &self.counters;
        out.push(("frames_lost", c.frames_lost as f64, Unit::Count));
        out.push(("spurious_losses", c.spurious_losses as f64, Unit::Count));
        out.push(("acks_sent", c.acks_sent as f64, Unit::Count));
        out.push(("ack_frames_sent", c.ack_frames_sent as f64, Unit::Count));
        out.push(("nacks_sent", c.nacks_sent as f64, Unit::Count));
        out.push(("link_timeout_s", self.timeout().as_secs_f64(), Unit::S));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ctx::NodeAction;
    use crate::ids::{FaceId, NameId};
    use crate::packet::Name;
    use crate::queue::nfd_mark::DecideAt;
    use crate::queue::{NfdMarkConfig, QueueConfig};
    use crate::world::{LinkParams, Network, WorldBuilder};

    const MS: u64 = 1_000_000;
    /// Face A->B (sends the Data) and face B->A (receives them, acknowledges).
    const AB: FaceId = FaceId(0);
    const BA: FaceId = FaceId(1);

    /// A –(10 Mbps, 10 ms)– B; A->B's queue marks once it holds more than 1,000 bytes.
    fn world() -> Network {
        let mut b = WorldBuilder::new(1, SimDuration::from_secs(1));
        let a = b.add_node("A");
        let n = b.add_node("B");
        let q = QueueConfig::NfdMark(NfdMarkConfig {
            threshold: Some(Bytes(1000)),
            decide_at: DecideAt::Enqueue,
            ..NfdMarkConfig::default()
        });
        let ab = LinkParams::new(10_000_000, SimDuration::from_millis(10)).with_queue(q);
        let ba = LinkParams::new(10_000_000, SimDuration::from_millis(10));
        b.add_link("A-B", a, n, ab, ba).expect("valid link");
        b.into_network()
    }

    /// Run `f` with the context of `face` at `ms`; returns what the service asked to send and
    /// the wake-up it asked for.
    fn at<R>(
        w: &Network,
        face: FaceId,
        ms: u64,
        f: impl FnOnce(&mut LinkCtx) -> R,
    ) -> (R, Vec<Packet>, Option<SimTime>) {
        let (mut rng, mut actions) = (crate::rng::stream(1, "ls"), Vec::new());
        let eg = w.faces[face.idx()].egress.as_ref().expect("a link face");
        let mut ctx = LinkCtx::new(SimTime(ms * MS), face, eg, &mut rng, &mut actions);
        let r = f(&mut ctx);
        let wake = ctx.requested_wake();
        let sent = actions
            .into_iter()
            .filter_map(|a| match a {
                NodeAction::Send { face: f, packet } if f == face => Some(packet),
                _ => None,
            })
            .collect();
        (r, sent, wake)
    }

    fn data(seg: u64) -> Packet {
        let i = Packet::interest(Name { prefix: NameId(0), seg }, 40, 7, 0);
        Packet::data_for(i.ndn().expect("an Interest"), 1100)
    }

    /// A transmits Data `seg` at `ms`; returns the frame as it leaves.
    fn transmit(w: &Network, a: &mut LossDetect, seg: u64, ms: u64) -> (Packet, Vec<Packet>) {
        let mut p = data(seg);
        let (_, sent, _) = at(w, AB, ms, |ctx| a.on_transmit(ctx, &mut p));
        (p, sent)
    }

    /// A receives a frame acknowledging `seq` at `ms`; returns what A sent (NACKs).
    fn ack(w: &Network, a: &mut LossDetect, seq: u32, ms: u64) -> Vec<Packet> {
        let mut f = Packet::new(Header::LinkAck, 10);
        f.link.ack = seq;
        let (passed, sent, _) = at(w, AB, ms, |ctx| a.on_receive(ctx, f));
        assert!(passed.is_none(), "an ACK frame never reaches the node");
        sent
    }

    fn nack_reason(p: &Packet) -> Option<NackReason> {
        match p.ndn_kind() {
            Some(NdnKind::Nack(r)) => Some(r),
            _ => None,
        }
    }

    #[test]
    fn frames_are_numbered_from_one_and_a_lost_data_times_out_into_an_unmarked_linkloss_nack() {
        // 10 ms link: default floor = 3 · 2 · 10 ms + 2 · 5 ms = 70 ms, and no ACK has come, so
        // the timeout is the floor. A Data sent at 0 ms is lost at 70 ms, not at 69 ms.
        let w = world();
        let mut a = LossDetect::new(&LossDetectConfig::default());
        let (f, _) = transmit(&w, &mut a, 4, 0);
        assert_eq!((f.link.tx_seq, f.link.ack), (1, 0));
        assert_eq!(a.timeout(), SimDuration::from_millis(70));
        let (_, sent, wake) = at(&w, AB, 69, |ctx| a.on_wake(ctx));
        assert!(sent.is_empty());
        assert_eq!(wake, Some(SimTime(70 * MS)));
        let (_, sent, _) = at(&w, AB, 70, |ctx| a.on_wake(ctx));
        assert_eq!(sent.len(), 1);
        let n = sent[0];
        assert_eq!(nack_reason(&n), Some(NackReason::LinkLoss));
        assert_eq!((n.name().map(|x| x.seg), n.size, n.mark, n.ndn().map(|h| h.nonce)), (Some(4), 50, 0, Some(7)));
        assert_eq!((a.counters.frames_lost, a.counters.nacks_sent), (1, 1));
    }

    #[test]
    fn a_frame_overtaken_by_three_acknowledged_frames_is_lost_at_once() {
        // Frames 1..5 sent; ACKs for 2, 3 leave frame 1 overtaken twice (not lost); the ACK
        // for 4 makes three: frame 1 is lost, frames 2–4 gone, frame 5 still waits.
        let w = world();
        let mut a = LossDetect::new(&LossDetectConfig::default());
        for seg in 0..5 {
            transmit(&w, &mut a, seg, seg);
        }
        assert!(ack(&w, &mut a, 2, 21).is_empty());
        assert!(ack(&w, &mut a, 3, 22).is_empty());
        let sent = ack(&w, &mut a, 4, 23);
        assert_eq!(sent.len(), 1);
        assert_eq!(sent[0].name().map(|n| n.seg), Some(0));
        assert_eq!(a.counters.frames_lost, 1);
        assert_eq!(a.unacked.iter().map(|s| s.seq).collect::<Vec<_>>(), vec![5]);
    }

    #[test]
    fn reordered_acks_below_the_threshold_lose_nothing() {
        // ACKs 3, 2, 1: frame 1 is overtaken twice before its own ACK arrives; nothing is lost.
        let w = world();
        let mut a = LossDetect::new(&LossDetectConfig::default());
        for seg in 0..3 {
            transmit(&w, &mut a, seg, 0);
        }
        for (seq, ms) in [(3, 21), (2, 22), (1, 23)] {
            assert!(ack(&w, &mut a, seq, ms).is_empty());
        }
        assert_eq!((a.counters.frames_lost, a.counters.spurious_losses), (0, 0));
        assert!(a.unacked.is_empty());
    }

    #[test]
    fn a_lost_ack_makes_a_spurious_nack_and_its_late_twin_is_counted() {
        // B receives frames 1..4 but its ACK for 1 is lost; ACKs 2, 3, 4 reach A, which declares
        // frame 1 lost and NACKs it: a spurious NACK (downstream, the Data already consumed the
        // PIT entry, so the forwarder drops it). Should the ACK for 1 turn up later after all,
        // it is counted as a spurious loss.
        let w = world();
        let mut a = LossDetect::new(&LossDetectConfig::default());
        let mut b = LossDetect::new(&LossDetectConfig::default());
        let mut acks = Vec::new();
        for seg in 0..4 {
            let (f, _) = transmit(&w, &mut a, seg, 0);
            let (passed, _, _) = at(&w, BA, 11, |ctx| b.on_receive(ctx, f));
            let passed = passed.expect("a Data frame goes to the node");
            assert_eq!(passed.link, LinkFields::default(), "link fields stop at the link");
            // B's Interests towards A carry one Ack each.
            let mut i = Packet::interest(Name { prefix: NameId(0), seg: 100 + seg }, 40, 1, 0);
            at(&w, BA, 12, |ctx| b.on_transmit(ctx, &mut i));
            acks.push(i.link.ack);
        }
        assert_eq!(acks, vec![1, 2, 3, 4]);
        let mut nacks = Vec::new();
        for &k in &acks[1..] {
            nacks.extend(ack(&w, &mut a, k, 22));
        }
        assert_eq!(nacks.len(), 1);
        assert_eq!(nacks[0].name().map(|n| n.seg), Some(0));
        assert!(ack(&w, &mut a, 1, 30).is_empty());
        assert_eq!(a.counters.spurious_losses, 1);
    }

    #[test]
    fn an_ack_with_no_frame_to_ride_on_goes_in_an_ack_frame_after_the_ack_delay() {
        // B gets frame 1 at 11 ms and has nothing to send: at 16 ms (5 ms ACK delay) it queues
        // one 10-byte ACK frame, whose Ack is filled in when it is transmitted.
        let w = world();
        let mut a = LossDetect::new(&LossDetectConfig::default());
        let mut b = LossDetect::new(&LossDetectConfig::default());
        let (f, _) = transmit(&w, &mut a, 0, 0);
        let (_, sent, wake) = at(&w, BA, 11, |ctx| b.on_receive(ctx, f));
        assert!(sent.is_empty());
        assert_eq!(wake, Some(SimTime(16 * MS)));
        let (_, sent, _) = at(&w, BA, 16, |ctx| b.on_wake(ctx));
        assert_eq!(sent.len(), 1);
        let mut frame = sent[0];
        assert_eq!((frame.header, frame.size), (Header::LinkAck, 10));
        at(&w, BA, 16, |ctx| b.on_transmit(ctx, &mut frame));
        assert_eq!((frame.link.tx_seq, frame.link.ack), (0, 1));
        assert_eq!((b.counters.ack_frames_sent, b.counters.acks_sent, b.counters.frames_sent), (1, 1, 0));
        assert!(ack(&w, &mut a, frame.link.ack, 27).is_empty());
        assert!(a.unacked.is_empty());
    }

    #[test]
    fn the_nack_is_marked_iff_the_face_queue_is_marking() {
        // Loss detected with A->B's queue under its 1,000-byte threshold: unmarked. Then two
        // 1,100-byte packets in the queue open a marking episode: the next NACK is marked.
        let mut w = world();
        let mut a =
            LossDetect::new(&LossDetectConfig { timeout: Some(Duration::from_millis(50)), ..Default::default() });
        transmit(&w, &mut a, 0, 0);
        transmit(&w, &mut a, 1, 40);
        let (_, sent, _) = at(&w, AB, 50, |ctx| a.on_wake(ctx));
        assert_eq!(sent.iter().map(|p| p.mark).collect::<Vec<_>>(), vec![0]);
        let eg = w.faces[AB.idx()].egress.as_mut().expect("link face");
        for seg in 10..12 {
            eg.queue.enqueue(data(seg), SimTime(60 * MS));
        }
        assert!(eg.queue.is_congested());
        let (_, sent, _) = at(&w, AB, 90, |ctx| a.on_wake(ctx));
        assert_eq!(sent.iter().map(|p| (p.name().map(|n| n.seg), p.mark)).collect::<Vec<_>>(), vec![(Some(1), 1)]);
    }

    #[test]
    fn on_a_congestion_loss_link_every_nack_is_marked_though_the_queue_is_not() {
        // The queue under its threshold (as in the unmarked case above), but the link is an
        // overlay: its loss is the underlay's congestion, so the NACK is marked.
        let w = world();
        let cfg = LossDetectConfig {
            timeout: Some(Duration::from_millis(50)),
            loss: LossMeaning::Congestion,
            ..Default::default()
        };
        let mut a = LossDetect::new(&cfg);
        transmit(&w, &mut a, 0, 0);
        assert!(!w.faces[AB.idx()].egress.as_ref().expect("link face").queue.is_congested());
        let (_, sent, _) = at(&w, AB, 50, |ctx| a.on_wake(ctx));
        assert_eq!(
            sent.iter().map(|p| (nack_reason(p), p.mark)).collect::<Vec<_>>(),
            vec![(Some(NackReason::LinkLoss), 1)]
        );
    }

    #[test]
    fn a_marked_data_marks_its_nack_only_with_carry_data_mark() {
        let w = world();
        for (carry, mark) in [(false, 0), (true, 1)] {
            let cfg = LossDetectConfig {
                timeout: Some(Duration::from_millis(50)),
                carry_data_mark: carry,
                ..Default::default()
            };
            let mut a = LossDetect::new(&cfg);
            let mut d = data(0);
            d.mark = 1;
            at(&w, AB, 0, |ctx| a.on_transmit(ctx, &mut d));
            let (_, sent, _) = at(&w, AB, 50, |ctx| a.on_wake(ctx));
            assert_eq!(sent.iter().map(|p| p.mark).collect::<Vec<_>>(), vec![mark], "carry_data_mark = {carry}");
        }
    }

    #[test]
    fn the_adaptive_timeout_follows_the_ack_times_above_its_floor() {
        // Floor 10 ms. One ACK after 40 ms: srtt 40, rttvar 20 → 40 + 4 · 20 = 120 ms.
        let w = world();
        let cfg = LossDetectConfig { min_timeout: Some(Duration::from_millis(10)), ..Default::default() };
        let mut a = LossDetect::new(&cfg);
        transmit(&w, &mut a, 0, 0);
        ack(&w, &mut a, 1, 40);
        assert_eq!(a.timeout(), SimDuration::from_millis(120));
    }

    #[test]
    fn lost_interests_are_counted_but_not_nacked() {
        let w = world();
        let mut a =
            LossDetect::new(&LossDetectConfig { timeout: Some(Duration::from_millis(50)), ..Default::default() });
        let mut i = Packet::interest(Name { prefix: NameId(0), seg: 1 }, 40, 1, 0);
        at(&w, AB, 0, |ctx| a.on_transmit(ctx, &mut i));
        let (_, sent, _) = at(&w, AB, 50, |ctx| a.on_wake(ctx));
        assert!(sent.is_empty());
        assert_eq!((a.counters.frames_lost, a.counters.nacks_sent), (1, 0));
    }

    #[test]
    fn validation_names_the_offending_key() {
        let bad = [
            (LossDetectConfig { loss_threshold: 0, ..Default::default() }, "loss_threshold"),
            (LossDetectConfig { timeout: Some(Duration::from_millis(0)), ..Default::default() }, "timeout"),
            (LossDetectConfig { min_timeout: Some(Duration::from_millis(0)), ..Default::default() }, "min_timeout"),
            (LossDetectConfig { ack_size: Bytes(0), ..Default::default() }, "ack_size"),
            (LossDetectConfig { nack_size: Bytes(1 << 30), ..Default::default() }, "nack_size"),
        ];
        for (cfg, key) in bad {
            assert_eq!(cfg.validate().unwrap_err().key, key);
        }
        assert!(LossDetectConfig::default().validate().is_ok());
    }
}
