//! Packets are small plain `Copy` values: the fields every packet has on a link (size, mark,
//! hop count, link-layer sequence numbers, the time it entered its current queue) and one
//! protocol header. No heap allocation per packet.
//!
//! ```text
//!  Packet { size, mark, hops, link: LinkFields { tx_seq, ack }, enqueued_at,
//!           header: Ndn { Interest | Data | Nack(reason), name, nonce, lifetime, rate, label }
//!                 | Ip  { src, dst, ecn_capable, Tcp { ports, seq, ack, flags, window, len }
//!                                                 | Udp { ports, seq, sent_at } }
//!                 | Mcast { group, source, seq, sent_at, report, Data | Feedback }
//!                 | LinkAck }     a standalone link-layer acknowledgement frame
//! ```
//!
//! A node hands each arriving packet to the handler of its header: `Ndn` to the NDN forwarder
//! (CS, PIT, FIB, strategy), `Ip` to IP forwarding by destination, `Mcast` to the multicast
//! tree, and `LinkAck` to the face's link service. All of them share the faces, queues and links.

use crate::ids::{FaceId, NameId, NodeId};
use crate::time::{SimDuration, SimTime};

/// NACK reasons. The first three are NDNLPv2's; `LinkLoss` is ndncc's own (PCON's local
/// link-loss detection) and has no NDNLPv2 code.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NackReason {
    /// The upstream is congested (NDNLPv2 NackReason 50).
    Congestion,
    /// A looping or duplicate Interest: its nonce was seen before (NDNLPv2 NackReason 100).
    Duplicate,
    /// No FIB entry, or every next hop was excluded (NDNLPv2 NackReason 150).
    NoRoute,
    /// A link-layer shim saw the Data lost on its link (PCON's local link-loss detection).
    LinkLoss,
}

/// What an NDN packet is.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NdnKind {
    Interest,
    Data,
    Nack(NackReason),
}

/// Exact name: prefix plus segment number. The PIT and Content Store key.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct Name {
    pub prefix: NameId,
    pub seg: u64,
}

/// The NDN header: an Interest, a Data or a NACK (which carries its Interest's name and nonce).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ndn {
    pub kind: NdnKind,
    pub name: Name,
    /// Interest nonce (Data and NACK carry the nonce of the Interest they answer).
    pub nonce: u32,
    /// Interest: its lifetime [ns]. Data: its freshness period [ns], 0 = never stale.
    pub lifetime_ns: u64,
    /// Explicit rate stamp (MIRCC) [Interests/s]; `f64::INFINITY` when unset.
    pub rate: f64,
}

/// TCP header flags, as on the wire.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct TcpFlags(pub u8);

impl TcpFlags {
    pub const FIN: TcpFlags = TcpFlags(0x01);
    pub const SYN: TcpFlags = TcpFlags(0x02);
    pub const ACK: TcpFlags = TcpFlags(0x10);
    /// ECN-Echo: the receiver saw a CE mark.
    pub const ECE: TcpFlags = TcpFlags(0x40);
    /// Congestion Window Reduced: the sender reacted to ECE.
    pub const CWR: TcpFlags = TcpFlags(0x80);

    pub fn contains(self, other: TcpFlags) -> bool {
        self.0 & other.0 == other.0
    }
    pub fn with(self, other: TcpFlags) -> TcpFlags {
        TcpFlags(self.0 | other.0)
    }
}

/// A TCP segment header (sequence numbers are byte offsets and never wrap in a run).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Tcp {
    pub src_port: u16,
    pub dst_port: u16,
    pub seq: u64,
    pub ack: u64,
    pub flags: TcpFlags,
    /// Advertised receive window [bytes].
    pub window: u32,
    /// Payload bytes carried.
    pub len: u32,
}

/// A UDP datagram header, with the sequence number and send time a CBR sink measures with.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Udp {
    pub src_port: u16,
    pub dst_port: u16,
    pub seq: u64,
    pub sent_at: SimTime,
}

/// The transport inside an IP packet.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Transport {
    Tcp(Tcp),
    Udp(Udp),
}

/// The IP header. Addresses are nodes; the congestion mark of the packet is ECN's CE.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Ip {
    pub src: NodeId,
    pub dst: NodeId,
    /// ECT: an AQM may mark this packet instead of dropping it.
    pub ecn_capable: bool,
    pub transport: Transport,
}

/// What a multicast packet carries.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum McastKind {
    /// Data from the source down the tree.
    Data,
    /// A receiver's (or tree node's) report up the tree towards the source.
    Feedback,
}

/// What a multicast feedback packet reports; each mechanism documents its fields' meaning (for
/// SRMCC's MCC message: the minimum fair shared rate, the maximum and minimum queue occupancy).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct McastReport {
    /// A rate [bit/s].
    pub rate: f64,
    pub hi: f32,
    pub lo: f32,
}

/// TFMCC's header fields besides the rates (RFC 4654 §3.2), in 7 bytes that fit the multicast
/// header's padding, so that a packet stays small. In a Data: the feedback round, R_max [ms],
/// and one timestamp echo: receiver `echo_to` and its report time plus the time the report was
/// held at the source. In a feedback packet: the round it answers and the newest Data's send
/// time plus the time it was held at the receiver. Timestamps travel at the RFC's millisecond
/// resolution, as milliseconds before the carrying packet's `sent_at` (at most 65.5 s); node
/// ids of 65,535 and above cannot be echoed to.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct McastTimes {
    round: u8,
    r_max_ms: [u8; 2],
    /// Node id + 1; 0 = no echo.
    echo_to: [u8; 2],
    echo_ms: [u8; 2],
}

impl McastTimes {
    fn ms_before(sent_at: SimTime, at: SimTime) -> [u8; 2] {
        let ms = (sent_at.saturating_since(at).nanos() + 500_000) / 1_000_000;
        u16::try_from(ms).unwrap_or(u16::MAX).to_le_bytes()
    }

    /// A Data's fields: round, R_max [s] (1 ms to 65.5 s), and the echo (receiver, echoed
    /// time) it carries, sent at `sent_at`.
    pub fn data(round: u8, r_max_s: f64, echo: Option<(NodeId, SimTime)>, sent_at: SimTime) -> McastTimes {
        let r_max_ms = (r_max_s * 1e3).round().clamp(1.0, f64::from(u16::MAX)) as u16;
        let (to, ms) = match echo {
            Some((node, at)) => match u16::try_from(node.0).ok().and_then(|n| n.checked_add(1)) {
                Some(code) => (code, Self::ms_before(sent_at, at)),
                None => (0, [0; 2]),
            },
            None => (0, [0; 2]),
        };
        McastTimes { round, r_max_ms: r_max_ms.to_le_bytes(), echo_to: to.to_le_bytes(), echo_ms: ms }
    }

    /// A feedback packet's fields: the round it answers and the echoed Data time, sent at
    /// `sent_at`.
    pub fn feedback(round: u8, echo: SimTime, sent_at: SimTime) -> McastTimes {
        McastTimes { round, echo_ms: Self::ms_before(sent_at, echo), ..McastTimes::default() }
    }

    pub fn round(&self) -> u8 {
        self.round
    }

    /// R_max [s]; `None` when the packet carries none.
    pub fn r_max_s(&self) -> Option<f64> {
        let ms = u16::from_le_bytes(self.r_max_ms);
        (ms > 0).then(|| f64::from(ms) / 1e3)
    }

    /// The receiver a Data's echo is for.
    pub fn echo_node(&self) -> Option<NodeId> {
        u16::from_le_bytes(self.echo_to).checked_sub(1).map(|n| NodeId(u32::from(n)))
    }

    /// The echoed time, given the carrying packet's `sent_at`.
    pub fn echo_at(&self, sent_at: SimTime) -> SimTime {
        SimTime(sent_at.0.saturating_sub(u64::from(u16::from_le_bytes(self.echo_ms)) * 1_000_000))
    }
}

/// The multicast header: Data flows down the group's tree, feedback up it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Mcast {
    pub group: u32,
    pub kind: McastKind,
    /// The node that sent this packet (the source for Data, the reporter for feedback).
    pub origin: NodeId,
    /// Data: the sequence number. Feedback: the reporter's round-trip estimate [ns].
    pub seq: u64,
    pub sent_at: SimTime,
    /// Feedback's content (zero on Data).
    pub report: McastReport,
    /// TFMCC's round and timestamp echo (zero for the other mechanisms).
    pub times: McastTimes,
}

/// The protocol header of a packet.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Header {
    Ndn(Ndn),
    Ip(Ip),
    Mcast(Mcast),
    /// A standalone link-layer acknowledgement frame; the acknowledged sequence number is in
    /// `Packet::link.ack`. Only link services send and consume it.
    LinkAck,
}

/// Link-layer fields a face's link service may set (NDNLPv2's TxSequence and Ack); zero when
/// unused.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LinkFields {
    pub tx_seq: u32,
    pub ack: u32,
}

/// One packet on the wire. `Copy`, so it travels inside events and queues by value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Packet {
    /// Whole size on the wire [bytes].
    pub size: u32,
    /// Congestion mark (NDNLPv2 CongestionMark; ECN CE for IP): > 0 once any hop marked this
    /// packet. Never cleared on the way.
    pub mark: u8,
    /// Hops travelled so far.
    pub hops: u8,
    /// Route label of a Data (hICN-style, for RAAQM's per-path state): every forwarder that
    /// sends the Data on sets it to rotl1(label) XOR (low 8 bits of the out-face id); 0 at the
    /// producer.
    pub route: u8,
    pub link: LinkFields,
    /// When the packet entered its current queue (set by queue disciplines for sojourn time).
    pub enqueued_at: SimTime,
    pub header: Header,
}

impl Packet {
    /// A packet with `header` and `size` bytes, unmarked, at hop 0.
    pub fn new(header: Header, size: u32) -> Packet {
        Packet { size, mark: 0, hops: 0, route: 0, link: LinkFields::default(), enqueued_at: SimTime::ZERO, header }
    }

    pub fn interest(name: Name, size: u32, nonce: u32, lifetime_ns: u64) -> Packet {
        Packet::new(Header::Ndn(Ndn { kind: NdnKind::Interest, name, nonce, lifetime_ns, rate: f64::INFINITY }), size)
    }

    /// A Data answering the Interest `interest` (its name and nonce), never stale.
    pub fn data_for(interest: &Ndn, size: u32) -> Packet {
        Packet::new(Header::Ndn(Ndn { kind: NdnKind::Data, lifetime_ns: 0, rate: f64::INFINITY, ..*interest }), size)
    }

    /// A NACK answering the Interest `interest`; it carries the Interest's name, nonce and size.
    pub fn nack_for(interest: &Packet, reason: NackReason) -> Packet {
        let mut p = *interest;
        if let Header::Ndn(h) = &mut p.header {
            h.kind = NdnKind::Nack(reason);
        }
        p.hops = 0;
        p
    }

    /// Step the route label as a forwarder sending this Data on `out_face` does.
    #[inline]
    pub fn step_route(&mut self, out_face: FaceId) {
        let low = out_face.idx().to_le_bytes()[0];
        self.route = self.route.rotate_left(1) ^ low;
    }

    /// The NDN header, if this is an NDN packet.
    #[inline]
    pub fn ndn(&self) -> Option<&Ndn> {
        match &self.header {
            Header::Ndn(h) => Some(h),
            _ => None,
        }
    }
    #[inline]
    pub fn ndn_mut(&mut self) -> Option<&mut Ndn> {
        match &mut self.header {
            Header::Ndn(h) => Some(h),
            _ => None,
        }
    }
    /// The IP header, if this is an IP packet.
    #[inline]
    pub fn ip(&self) -> Option<&Ip> {
        match &self.header {
            Header::Ip(h) => Some(h),
            _ => None,
        }
    }
    /// The multicast header, if this is a multicast packet.
    #[inline]
    pub fn mcast(&self) -> Option<&Mcast> {
        match &self.header {
            Header::Mcast(h) => Some(h),
            _ => None,
        }
    }
    /// The NDN name, if this is an NDN packet.
    #[inline]
    pub fn name(&self) -> Option<Name> {
        self.ndn().map(|h| h.name)
    }
    /// The NDN kind, if this is an NDN packet.
    #[inline]
    pub fn ndn_kind(&self) -> Option<NdnKind> {
        self.ndn().map(|h| h.kind)
    }
    pub fn is_interest(&self) -> bool {
        self.ndn_kind() == Some(NdnKind::Interest)
    }
    pub fn is_data(&self) -> bool {
        self.ndn_kind() == Some(NdnKind::Data)
    }
    /// Lower the MIRCC rate stamp of an NDN packet to at most `rate` (never raising it).
    pub fn lower_rate_stamp(&mut self, rate: f64) {
        if let Some(h) = self.ndn_mut() {
            h.rate = h.rate.min(rate);
        }
    }
    /// The MIRCC rate stamp [Interests/s]; infinite when unset or not NDN.
    pub fn rate_stamp(&self) -> f64 {
        self.ndn().map_or(f64::INFINITY, |h| h.rate)
    }
    pub fn is_marked(&self) -> bool {
        self.mark > 0
    }
    /// The freshness period of a Data (zero = never stale, and zero for anything else).
    pub fn freshness(&self) -> SimDuration {
        match &self.header {
            Header::Ndn(h) if h.kind == NdnKind::Data => SimDuration(h.lifetime_ns),
            _ => SimDuration::ZERO,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_packet_stays_small_enough_to_travel_by_value() {
        eprintln!(
            "SIZES packet {} mcast {} report {} times {} header {} link {}",
            std::mem::size_of::<Packet>(),
            std::mem::size_of::<Mcast>(),
            std::mem::size_of::<McastReport>(),
            std::mem::size_of::<McastTimes>(),
            std::mem::size_of::<Header>(),
            std::mem::size_of::<LinkFields>()
        );
        assert!(std::mem::size_of::<Packet>() <= 80, "Packet is {} bytes", std::mem::size_of::<Packet>());
    }

    #[test]
    fn data_and_nacks_carry_the_name_and_nonce_of_their_interest() {
        let i = Packet::interest(Name { prefix: NameId(3), seg: 9 }, 40, 77, 2_000);
        let d = Packet::data_for(i.ndn().unwrap(), 1000);
        let h = d.ndn().unwrap();
        assert_eq!((h.kind, h.name.seg, h.nonce, d.size), (NdnKind::Data, 9, 77, 1000));
        assert_eq!(d.freshness(), SimDuration::ZERO);
        let n = Packet::nack_for(&i, NackReason::Congestion);
        assert_eq!(n.ndn_kind(), Some(NdnKind::Nack(NackReason::Congestion)));
        assert_eq!((n.size, n.ndn().unwrap().nonce), (40, 77));
    }

    #[test]
    fn tcp_flags_combine_and_test_as_bits() {
        let f = TcpFlags::ACK.with(TcpFlags::ECE);
        assert!(f.contains(TcpFlags::ACK) && f.contains(TcpFlags::ECE) && !f.contains(TcpFlags::SYN));
        assert_eq!(f.0, 0x50);
    }
}
