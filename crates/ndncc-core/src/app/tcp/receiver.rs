//! The TCP receiver: cumulative ACKs, delayed (one ACK for every second full segment, or after
//! `delayed_ack_timeout`, RFC 5681 §4.2), immediate for a segment out of order or one that fills
//! a hole (the duplicate ACKs fast retransmit needs); ECN echo (RFC 3168): after a CE mark every
//! ACK carries ECE until a segment with CWR arrives. A SYN (which only NS-2's sender sends) is
//! answered at once with a SYN-ACK of the next byte expected.

use crate::app::{AppCtx, Application};
use crate::ids::NodeId;
use crate::packet::{Header, Ip, Packet, Tcp, TcpFlags, Transport};
use crate::recorder::{EntityId, MetricId, Recorder, SummaryRow, Unit};
use crate::time::{SimDuration, SimTime};

use super::out_of_order::OutOfOrder;
use super::sender::HEADER_BYTES;

#[derive(Clone, Debug)]
pub struct TcpReceiverParams {
    pub name: String,
    pub me: NodeId,
    pub src: NodeId,
    pub port: u16,
    pub peer_port: u16,
    /// ACK every this many full segments (1 = no delayed ACKs).
    pub ack_every: u32,
    pub delayed_ack_timeout: SimDuration,
    pub mss: u32,
}

pub struct TcpReceiver {
    p: TcpReceiverParams,
    /// The next byte expected: everything below it was delivered in order.
    pub(crate) rcv_nxt: u64,
    /// Out-of-order data held beyond a hole, by start.
    ooo: OutOfOrder,
    /// Full segments received since the last ACK.
    unacked_segments: u32,
    delack_deadline: Option<SimTime>,
    echo_ece: bool,
    acks_sent: u64,
    segments_received: u64,
    first_at: Option<SimTime>,
    last_advance: Option<SimTime>,
    me: EntityId,
    delivered: MetricId,
}

impl TcpReceiver {
    pub fn new(p: TcpReceiverParams, rec: &mut Recorder) -> TcpReceiver {
        let me = rec.entity(&p.name);
        let delivered = rec.metric("bytes_delivered");
        TcpReceiver {
            p,
            rcv_nxt: 0,
            ooo: OutOfOrder::default(),
            unacked_segments: 0,
            delack_deadline: None,
            echo_ece: false,
            acks_sent: 0,
            segments_received: 0,
            first_at: None,
            last_advance: None,
            me,
            delivered,
        }
    }

    fn send_ack(&mut self, ctx: &mut AppCtx) {
        self.send_ack_flags(ctx, TcpFlags::ACK);
    }

    fn send_ack_flags(&mut self, ctx: &mut AppCtx, mut flags: TcpFlags) {
        if self.echo_ece {
            flags = flags.with(TcpFlags::ECE);
        }
        let tcp = Tcp {
            src_port: self.p.port,
            dst_port: self.p.peer_port,
            seq: 0,
            ack: self.rcv_nxt,
            flags,
            window: u32::MAX,
            len: 0,
        };
        let ip = Ip { src: self.p.me, dst: self.p.src, ecn_capable: false, transport: Transport::Tcp(tcp) };
        ctx.send(Packet::new(Header::Ip(ip), HEADER_BYTES));
        self.acks_sent += 1;
        self.unacked_segments = 0;
        self.delack_deadline = None;
    }

    fn on_segment(&mut self, ctx: &mut AppCtx, tcp: &Tcp, ce: bool) {
        self.segments_received += 1;
        self.first_at.get_or_insert(ctx.now);
        if ce {
            self.echo_ece = true;
        } else if tcp.flags.contains(TcpFlags::CWR) {
            self.echo_ece = false;
        }
        let (start, end) = (tcp.seq, tcp.seq + u64::from(tcp.len));
        if end <= self.rcv_nxt {
            // A duplicate: acknowledge at once so the sender learns where we are.
            return self.send_ack(ctx);
        }
        if start > self.rcv_nxt {
            // Out of order: hold it and send a duplicate ACK at once.
            self.ooo.insert(start, end);
            return self.send_ack(ctx);
        }
        let filled_hole = !self.ooo.is_empty();
        self.rcv_nxt = self.ooo.advance(end);
        self.last_advance = Some(ctx.now);
        if filled_hole || self.echo_ece && ce {
            return self.send_ack(ctx);
        }
        if tcp.len >= self.p.mss {
            self.unacked_segments += 1;
        }
        if self.unacked_segments >= self.p.ack_every.max(1) {
            self.send_ack(ctx);
        } else if self.delack_deadline.is_none() {
            self.delack_deadline = Some(ctx.now + self.p.delayed_ack_timeout);
        }
    }
}

impl Application for TcpReceiver {
    fn on_start(&mut self, _ctx: &mut AppCtx) {}

    fn on_packet(&mut self, ctx: &mut AppCtx, packet: &Packet) {
        if let Some(Ip { transport: Transport::Tcp(tcp), .. }) = packet.ip() {
            if tcp.flags.contains(TcpFlags::SYN) {
                self.send_ack_flags(ctx, TcpFlags::ACK.with(TcpFlags::SYN));
            } else if tcp.len > 0 {
                self.on_segment(ctx, tcp, packet.is_marked());
            }
        }
        if let Some(d) = self.delack_deadline {
            ctx.wake_at(d);
        }
    }

    fn on_wake(&mut self, ctx: &mut AppCtx) {
        if self.delack_deadline.is_some_and(|d| d <= ctx.now) {
            self.send_ack(ctx);
        }
        if let Some(d) = self.delack_deadline {
            ctx.wake_at(d);
        }
    }

    fn sample(&self, now: SimTime, rec: &mut Recorder) {
        rec.sample(now, self.me, self.delivered, self.rcv_nxt as f64);
    }

    /// Its sample (the next byte expected) reads only what its hooks change.
    fn samples_change_only_in_hooks(&self) -> bool {
        true
    }

    fn summary(&self, _end: SimTime, out: &mut Vec<SummaryRow>) {
        let n = self.p.name.as_str();
        let mut row = |m: &str, v: f64, u: Unit| out.push(SummaryRow::new(n, "tcp-sink", m, v, u));
        row("bytes_delivered", self.rcv_nxt as f64, Unit::Bytes);
        row("segments_received", self.segments_received as f64, Unit::Packets);
        row("acks_sent", self.acks_sent as f64, Unit::Packets);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recorder::EventSamples;

    fn receiver() -> (TcpReceiver, Recorder) {
        let mut rec = Recorder::new(EventSamples::Skipped);
        let p = TcpReceiverParams {
            name: "r".into(),
            me: NodeId(1),
            src: NodeId(0),
            port: 2,
            peer_port: 1,
            ack_every: 2,
            delayed_ack_timeout: SimDuration::from_millis(200),
            mss: 1000,
        };
        let r = TcpReceiver::new(p, &mut rec);
        (r, rec)
    }

    fn segment(seq: u64) -> Packet {
        let tcp = Tcp { src_port: 1, dst_port: 2, seq, ack: 0, flags: TcpFlags::ACK, window: u32::MAX, len: 1000 };
        Packet::new(
            Header::Ip(Ip { src: NodeId(0), dst: NodeId(1), ecn_capable: false, transport: Transport::Tcp(tcp) }),
            1040,
        )
    }

    /// Deliver `p` at `ms` (or wake when `p` is None); return the ACK numbers sent and the
    /// wake-up asked for.
    fn at(r: &mut TcpReceiver, rec: &mut Recorder, ms: u64, p: Option<Packet>) -> (Vec<u64>, Option<SimTime>) {
        let mut out = Vec::new();
        let mut ctx = AppCtx::new(SimTime(SimDuration::from_millis(ms).nanos()), &mut out, rec);
        match p {
            Some(p) => r.on_packet(&mut ctx, &p),
            None => r.on_wake(&mut ctx),
        }
        let wake = ctx.requested_wake();
        let acks = out
            .iter()
            .filter_map(|p| match p.ip() {
                Some(Ip { transport: Transport::Tcp(t), .. }) => Some(t.ack),
                _ => None,
            })
            .collect();
        (acks, wake)
    }

    #[test]
    fn as_ns2_tcpsink_every_segment_is_acknowledged_at_once_and_a_syn_gets_a_syn_ack() {
        // NS-2's profile: ack_every 1, no delay. The SYN (seq 0, no payload) is answered with
        // ACK 0; then each segment with its own cumulative ACK, no timer asked for.
        let (mut r, mut rec) = receiver();
        r.p.ack_every = 1;
        r.p.delayed_ack_timeout = SimDuration::ZERO;
        let tcp = Tcp { src_port: 1, dst_port: 2, seq: 0, ack: 0, flags: TcpFlags::SYN, window: u32::MAX, len: 0 };
        let syn = Packet::new(
            Header::Ip(Ip { src: NodeId(0), dst: NodeId(1), ecn_capable: false, transport: Transport::Tcp(tcp) }),
            40,
        );
        let mut out = Vec::new();
        let mut ctx = AppCtx::new(SimTime::ZERO, &mut out, &mut rec);
        r.on_packet(&mut ctx, &syn);
        let flags: Vec<TcpFlags> = out
            .iter()
            .filter_map(|p| match p.ip() {
                Some(Ip { transport: Transport::Tcp(t), .. }) => Some(t.flags),
                _ => None,
            })
            .collect();
        assert_eq!(flags.len(), 1);
        assert!(flags[0].contains(TcpFlags::SYN) && flags[0].contains(TcpFlags::ACK));
        assert_eq!(at(&mut r, &mut rec, 1, Some(segment(0))), (vec![1000], None));
        assert_eq!(at(&mut r, &mut rec, 2, Some(segment(1000))), (vec![2000], None));
    }

    #[test]
    fn every_second_full_segment_is_acknowledged_at_once() {
        let (mut r, mut rec) = receiver();
        let (acks, wake) = at(&mut r, &mut rec, 0, Some(segment(0)));
        assert!(acks.is_empty());
        assert_eq!(wake, Some(SimTime(SimDuration::from_millis(200).nanos())));
        let (acks, _) = at(&mut r, &mut rec, 1, Some(segment(1000)));
        assert_eq!(acks, vec![2000]);
    }

    #[test]
    fn a_lone_segment_is_acknowledged_after_the_delayed_ack_timeout() {
        // Segment at 10 ms: the ACK is due at 210 ms, not before.
        let (mut r, mut rec) = receiver();
        at(&mut r, &mut rec, 10, Some(segment(0)));
        assert!(at(&mut r, &mut rec, 209, None).0.is_empty());
        assert_eq!(at(&mut r, &mut rec, 210, None).0, vec![1000]);
    }

    #[test]
    fn out_of_order_segments_get_duplicate_acks_at_once_and_filling_the_hole_acks_all() {
        let (mut r, mut rec) = receiver();
        at(&mut r, &mut rec, 0, Some(segment(0)));
        // 1,000 is lost; 2,000 and 3,000 arrive: two duplicate ACKs of 1,000.
        assert_eq!(at(&mut r, &mut rec, 1, Some(segment(2000))).0, vec![1000]);
        assert_eq!(at(&mut r, &mut rec, 2, Some(segment(3000))).0, vec![1000]);
        // The retransmission fills the hole: everything up to 4,000 at once.
        assert_eq!(at(&mut r, &mut rec, 60, Some(segment(1000))).0, vec![4000]);
        assert_eq!(r.rcv_nxt, 4000);
    }
}
