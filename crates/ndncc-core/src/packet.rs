//! Packets are small plain values: an interned name plus a segment number, and the few header
//! fields congestion control needs. No heap allocation per packet.

use crate::ids::NameId;
use crate::time::{SimDuration, SimTime};

/// NACK reasons, with their NDNLPv2 codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum NackReason {
    /// The upstream is congested (NDNLPv2 reason 50).
    Congestion,
    /// A looping or duplicate Interest (nonce seen before, reason 100).
    Duplicate,
    /// No FIB entry, or every next hop was excluded (reason 150).
    NoRoute,
    /// A link-layer shim saw the Data lost on its link (PCON local link-loss detection).
    LinkLoss,
}

impl NackReason {
    pub fn code(self) -> u32 {
        match self {
            NackReason::Congestion => 50,
            NackReason::Duplicate => 100,
            NackReason::NoRoute => 150,
            NackReason::LinkLoss => 17,
        }
    }
    pub fn as_str(self) -> &'static str {
        match self {
            NackReason::Congestion => "congestion",
            NackReason::Duplicate => "duplicate",
            NackReason::NoRoute => "no-route",
            NackReason::LinkLoss => "link-loss",
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PacketKind {
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

/// One packet on the wire. `Copy`, so it travels inside events and queues by value.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Packet {
    pub kind: PacketKind,
    pub name: Name,
    /// Whole size on the wire [bytes].
    pub size: u32,
    /// Interest nonce (Data and NACK carry the nonce of the Interest they answer).
    pub nonce: u32,
    /// Congestion mark: > 0 once any hop marked this packet. Never cleared on the way.
    pub mark: u8,
    /// Explicit rate stamp (MIRCC) [Interests/s]; `f64::INFINITY` when unset.
    pub rate: f64,
    /// Hops travelled so far.
    pub hops: u8,
    /// Interest: its lifetime [ns]. Data: its freshness period [ns], 0 = never stale.
    pub lifetime_ns: u64,
    /// Multicast group (SRMCC) or flow tag; 0 when unused.
    pub group: u32,
    /// When the packet entered its current queue (set by queue disciplines for sojourn time).
    pub enqueued_at: SimTime,
}

impl Packet {
    pub fn interest(name: Name, size: u32, nonce: u32, lifetime_ns: u64) -> Packet {
        Packet {
            kind: PacketKind::Interest,
            name,
            size,
            nonce,
            mark: 0,
            rate: f64::INFINITY,
            hops: 0,
            lifetime_ns,
            group: 0,
            enqueued_at: SimTime::ZERO,
        }
    }

    /// A Data answering `interest`, never stale.
    pub fn data_for(interest: &Packet, size: u32) -> Packet {
        Packet { kind: PacketKind::Data, size, mark: 0, rate: f64::INFINITY, hops: 0, lifetime_ns: 0, ..*interest }
    }

    /// The freshness period of a Data (zero = never stale).
    pub fn freshness(&self) -> SimDuration {
        SimDuration(if self.is_data() { self.lifetime_ns } else { 0 })
    }

    /// A NACK answering `interest`; it carries the Interest's name, nonce and size.
    pub fn nack_for(interest: &Packet, reason: NackReason) -> Packet {
        Packet { kind: PacketKind::Nack(reason), hops: 0, ..*interest }
    }

    pub fn is_interest(&self) -> bool {
        matches!(self.kind, PacketKind::Interest)
    }
    pub fn is_data(&self) -> bool {
        matches!(self.kind, PacketKind::Data)
    }
    pub fn is_marked(&self) -> bool {
        self.mark > 0
    }
}
