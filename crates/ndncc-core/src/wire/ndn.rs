//! NDN packets as bytes: an NDN packet format v0.3 Interest or Data inside an NDNLPv2
//! LpPacket, as ndncc's traces write them and as its default wire sizes count them.
//!
//! ```text
//!  LpPacket(100) [ HopCountTag(84) | Nack(800){NackReason(801)} | CongestionMark(832)
//!                | Ack(836) | TxSequence(840) | RateStamp(924)* | RouteLabel(928)*
//!                | Fragment(80){ Interest(5) | Data(6) } ]
//!  Interest(5) { Name(7){ GenericNameComponent(8)… SegmentNameComponent(50) }
//!              Nonce(10) InterestLifetime(12) }
//!  Data(6)     { Name MetaInfo(20){ FreshnessPeriod(25) } Content(21)
//!              SignatureInfo(22){ SignatureType(27) = 0, DigestSha256 } SignatureValue(23) }
//! ```
//! Header fields appear in increasing TLV-TYPE order with the Fragment last, as NDNLPv2
//! requires. `*` marks ndncc's own fields: their types lie in NDNLPv2's header-field range
//! with the two low bits clear, so a receiver that does not know them ignores them.
//!
//! A packet's default wire size is the Ethernet frame of the packet as its application creates
//! it: 14 bytes of Ethernet header plus the LpPacket with the HopCountTag and Fragment only.
//! Fields added on the way (a congestion mark, a NACK header, link-layer sequence numbers and
//! acknowledgements, ndncc's fields) appear in traces but do not change the simulated size.

use compact_str::CompactString;
use sha2::{Digest, Sha256};

use super::tlv::{nonneg_len, tlv_len, TlvWriter};
use crate::packet::NackReason;

/// TLV-TYPE numbers of the NDN packet format v0.3 and NDNLPv2.
pub mod types {
    pub const INTEREST: u64 = 5;
    pub const DATA: u64 = 6;
    pub const NAME: u64 = 7;
    pub const GENERIC_NAME_COMPONENT: u64 = 8;
    pub const NONCE: u64 = 10;
    pub const INTEREST_LIFETIME: u64 = 12;
    pub const META_INFO: u64 = 20;
    pub const CONTENT: u64 = 21;
    pub const SIGNATURE_INFO: u64 = 22;
    pub const SIGNATURE_VALUE: u64 = 23;
    pub const FRESHNESS_PERIOD: u64 = 25;
    pub const SIGNATURE_TYPE: u64 = 27;
    /// SegmentNameComponent (NDN naming conventions, revision 3).
    pub const SEGMENT_NAME_COMPONENT: u64 = 50;
    pub const LP_PACKET: u64 = 100;
    pub const FRAGMENT: u64 = 80;
    pub const HOP_COUNT_TAG: u64 = 84;
    pub const NACK: u64 = 800;
    pub const NACK_REASON: u64 = 801;
    pub const CONGESTION_MARK: u64 = 832;
    pub const ACK: u64 = 836;
    pub const TX_SEQUENCE: u64 = 840;
    /// ndncc: MIRCC's explicit rate stamp, an IEEE 754 double [Interests/s] in 8 bytes.
    pub const NDNCC_RATE_STAMP: u64 = 924;
    /// ndncc: the route label of a Data (NonNegativeInteger).
    pub const NDNCC_ROUTE_LABEL: u64 = 928;
}

/// Ethernet II header bytes: the link-layer overhead counted in default wire sizes.
pub const ETHERNET_HEADER: usize = 14;
/// EtherType of NDN over Ethernet.
pub const ETHERTYPE_NDN: u16 = 0x8624;
/// SignatureType DigestSha256 and its value's length.
const DIGEST_SHA256: u64 = 0;
const DIGEST_LEN: usize = 32;

/// The NDNLPv2 NackReason code of a NACK. `LinkLoss` has no standard code: ndncc uses 1000,
/// which NFD reads as an unspecified reason.
pub fn nack_reason_code(reason: NackReason) -> u64 {
    match reason {
        NackReason::Congestion => 50,
        NackReason::Duplicate => 100,
        NackReason::NoRoute => 150,
        NackReason::LinkLoss => 1000,
    }
}

/// Milliseconds for an InterestLifetime or FreshnessPeriod: rounded up, so a positive
/// duration never encodes as 0 (which would mean "immediately stale").
fn millis(ns: u64) -> u64 {
    ns.div_ceil(1_000_000)
}

/// Bytes of a name prefix's GenericNameComponent elements.
pub fn prefix_len(components: &[CompactString]) -> usize {
    components.iter().map(|c| tlv_len(types::GENERIC_NAME_COMPONENT, c.len())).sum()
}

/// What an NDN frame carries beyond its packet: NDNLPv2 header fields and ndncc's own.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LpFields {
    pub hops: u8,
    pub mark: u8,
    pub nack: Option<NackReason>,
    /// TxSequence and Ack; 0 = absent.
    pub tx_seq: u32,
    pub ack: u32,
    /// MIRCC rate stamp; absent when not finite.
    pub rate: f64,
    /// Route label of a Data; absent when 0.
    pub route: u8,
}

impl Default for LpFields {
    /// No field but a hop count of 0: a packet as its application creates it.
    fn default() -> Self {
        LpFields { hops: 0, mark: 0, nack: None, tx_seq: 0, ack: 0, rate: f64::INFINITY, route: 0 }
    }
}

/// One NDN packet to encode.
#[derive(Clone, Copy, Debug)]
pub struct NdnFrame<'a> {
    /// Interest or Data (a NACK is an Interest with `lp.nack` set).
    pub data: bool,
    pub prefix: &'a [CompactString],
    pub seg: u64,
    pub nonce: u32,
    /// Interest: lifetime; Data: freshness period (0 = the field is left out) [ns].
    pub lifetime_ns: u64,
    /// Data: content bytes.
    pub payload: usize,
    pub lp: LpFields,
}

/// The lengths of every nested element of a frame, computed once and shared by the size
/// functions and the writer so the two cannot disagree.
struct Layout {
    prefix: usize,
    name_value: usize,
    meta_value: usize,
    sig_info_value: usize,
    /// Interest or Data value.
    packet_value: usize,
    packet: usize,
    nack_value: usize,
    lp_value: usize,
}

impl NdnFrame<'_> {
    fn layout(&self) -> Layout {
        use types::*;
        let prefix = prefix_len(self.prefix);
        let name_value = prefix + tlv_len(SEGMENT_NAME_COMPONENT, nonneg_len(self.seg));
        let name = tlv_len(NAME, name_value);
        let lifetime = millis(self.lifetime_ns);
        let (meta_value, sig_info_value, packet_value) = if self.data {
            let meta_value = if lifetime > 0 { tlv_len(FRESHNESS_PERIOD, nonneg_len(lifetime)) } else { 0 };
            let sig_info_value = tlv_len(SIGNATURE_TYPE, nonneg_len(DIGEST_SHA256));
            let value = name
                + tlv_len(META_INFO, meta_value)
                + tlv_len(CONTENT, self.payload)
                + tlv_len(SIGNATURE_INFO, sig_info_value)
                + tlv_len(SIGNATURE_VALUE, DIGEST_LEN);
            (meta_value, sig_info_value, value)
        } else {
            let life = if lifetime > 0 { tlv_len(INTEREST_LIFETIME, nonneg_len(lifetime)) } else { 0 };
            (0, 0, name + tlv_len(NONCE, 4) + life)
        };
        let packet = tlv_len(if self.data { DATA } else { INTEREST }, packet_value);
        let lp = &self.lp;
        let nack_value = lp.nack.map_or(0, |r| tlv_len(NACK_REASON, nonneg_len(nack_reason_code(r))));
        let mut lp_value = tlv_len(HOP_COUNT_TAG, nonneg_len(u64::from(lp.hops))) + tlv_len(FRAGMENT, packet);
        if lp.nack.is_some() {
            lp_value += tlv_len(NACK, nack_value);
        }
        if lp.mark > 0 {
            lp_value += tlv_len(CONGESTION_MARK, nonneg_len(u64::from(lp.mark)));
        }
        if lp.ack != 0 {
            lp_value += tlv_len(ACK, 8);
        }
        if lp.tx_seq != 0 {
            lp_value += tlv_len(TX_SEQUENCE, 8);
        }
        if lp.rate.is_finite() {
            lp_value += tlv_len(NDNCC_RATE_STAMP, 8);
        }
        if lp.route != 0 {
            lp_value += tlv_len(NDNCC_ROUTE_LABEL, nonneg_len(u64::from(lp.route)));
        }
        Layout { prefix, name_value, meta_value, sig_info_value, packet_value, packet, nack_value, lp_value }
    }

    /// Bytes of the LpPacket.
    pub fn lp_len(&self) -> usize {
        tlv_len(types::LP_PACKET, self.layout().lp_value)
    }

    /// Bytes of the Ethernet frame (header and LpPacket).
    pub fn frame_len(&self) -> usize {
        ETHERNET_HEADER + self.lp_len()
    }

    /// Append the LpPacket to `buf`. A Data's DigestSha256 is computed when `sign` is set
    /// (zeros otherwise: a trace whose snap length cuts the signature off skips the hash).
    pub fn write(&self, buf: &mut Vec<u8>, sign: bool) {
        use types::*;
        let l = self.layout();
        let lp = &self.lp;
        let mut w = TlvWriter { buf };
        w.header(LP_PACKET, l.lp_value);
        w.nonneg(HOP_COUNT_TAG, u64::from(lp.hops));
        if let Some(reason) = lp.nack {
            w.header(NACK, l.nack_value);
            w.nonneg(NACK_REASON, nack_reason_code(reason));
        }
        if lp.mark > 0 {
            w.nonneg(CONGESTION_MARK, u64::from(lp.mark));
        }
        if lp.ack != 0 {
            w.fixed_u64(ACK, u64::from(lp.ack));
        }
        if lp.tx_seq != 0 {
            w.fixed_u64(TX_SEQUENCE, u64::from(lp.tx_seq));
        }
        if lp.rate.is_finite() {
            w.header(NDNCC_RATE_STAMP, 8);
            w.buf.extend_from_slice(&lp.rate.to_be_bytes());
        }
        if lp.route != 0 {
            w.nonneg(NDNCC_ROUTE_LABEL, u64::from(lp.route));
        }
        w.header(FRAGMENT, l.packet);
        w.header(if self.data { DATA } else { INTEREST }, l.packet_value);
        let signed_from = w.buf.len();
        w.header(NAME, l.name_value);
        let before = w.buf.len();
        for c in self.prefix {
            w.bytes(GENERIC_NAME_COMPONENT, c.as_bytes());
        }
        debug_assert_eq!(w.buf.len() - before, l.prefix);
        w.nonneg(SEGMENT_NAME_COMPONENT, self.seg);
        let lifetime = millis(self.lifetime_ns);
        if self.data {
            w.header(META_INFO, l.meta_value);
            if lifetime > 0 {
                w.nonneg(FRESHNESS_PERIOD, lifetime);
            }
            w.zeros(CONTENT, self.payload);
            w.header(SIGNATURE_INFO, l.sig_info_value);
            w.nonneg(SIGNATURE_TYPE, DIGEST_SHA256);
            let digest: [u8; DIGEST_LEN] =
                if sign { Sha256::digest(&w.buf[signed_from..]).into() } else { [0; DIGEST_LEN] };
            w.bytes(SIGNATURE_VALUE, &digest);
        } else {
            w.bytes(NONCE, &self.nonce.to_be_bytes());
            if lifetime > 0 {
                w.nonneg(INTEREST_LIFETIME, lifetime);
            }
        }
    }
}

/// An encoded length as a packet's 32-bit wire size (saturating; packets are at most 1 MiB).
pub fn wire_u32(n: usize) -> u32 {
    u32::try_from(n).unwrap_or(u32::MAX)
}

/// Default wire size of an Interest for `seg` under the name `prefix` (its components), as its
/// consumer creates it.
pub fn interest_wire_size(prefix: &[CompactString], seg: u64, lifetime_ns: u64) -> usize {
    NdnFrame { data: false, prefix, seg, nonce: 0, lifetime_ns, payload: 0, lp: LpFields::default() }.frame_len()
}

/// Default wire size of a Data for `seg` with `payload` content bytes, as its producer creates it.
pub fn data_wire_size(prefix: &[CompactString], seg: u64, freshness_ns: u64, payload: usize) -> usize {
    NdnFrame { data: true, prefix, seg, nonce: 0, lifetime_ns: freshness_ns, payload, lp: LpFields::default() }
        .frame_len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn comps(name: &str) -> Vec<CompactString> {
        crate::names::components(name)
    }

    /// Walk one TLV at `at`: (type, value start, value end).
    fn tlv_at(b: &[u8], at: usize) -> (u64, usize, usize) {
        fn num(b: &[u8], at: usize) -> (u64, usize) {
            match b[at] {
                253 => (u64::from(u16::from_be_bytes([b[at + 1], b[at + 2]])), 3),
                254 => (u64::from(u32::from_be_bytes(b[at + 1..at + 5].try_into().unwrap())), 5),
                255 => (u64::from_be_bytes(b[at + 1..at + 9].try_into().unwrap()), 9),
                x => (u64::from(x), 1),
            }
        }
        let (t, n) = num(b, at);
        let (l, m) = num(b, at + n);
        let start = at + n + m;
        (t, start, start + usize::try_from(l).unwrap())
    }

    #[test]
    fn an_interest_encodes_byte_for_byte() {
        let prefix = comps("/a/bc");
        let f = NdnFrame {
            data: false,
            prefix: &prefix,
            seg: 300,
            nonce: 0x0102_0304,
            lifetime_ns: 2_000_000_000,
            payload: 0,
            lp: LpFields::default(),
        };
        let mut b = Vec::new();
        f.write(&mut b, true);
        #[rustfmt::skip]
        let expected = [
            100, 30,                    // LpPacket
            84, 1, 0,                   // HopCountTag 0
            80, 25,                     // Fragment
            5, 23,                      // Interest
            7, 11, 8, 1, b'a', 8, 2, b'b', b'c', 50, 2, 1, 44,   // Name /a/bc/seg=300
            10, 4, 1, 2, 3, 4,          // Nonce
            12, 2, 0x07, 0xd0,          // InterestLifetime 2000 ms
        ];
        assert_eq!(b, expected);
        assert_eq!(f.frame_len(), 14 + expected.len());
        assert_eq!(interest_wire_size(&prefix, 300, 2_000_000_000), 14 + expected.len());
    }

    #[test]
    fn a_data_carries_its_content_and_a_true_sha256_digest() {
        let prefix = comps("/p");
        let f = NdnFrame {
            data: true,
            prefix: &prefix,
            seg: 1,
            nonce: 7,
            lifetime_ns: 1_500_000,
            payload: 100,
            lp: LpFields::default(),
        };
        let mut b = Vec::new();
        f.write(&mut b, true);
        assert_eq!(b.len() + ETHERNET_HEADER, f.frame_len());
        assert_eq!(data_wire_size(&prefix, 1, 1_500_000, 100), f.frame_len());
        // LpPacket → HopCountTag, Fragment → Data.
        let (t, s, e) = tlv_at(&b, 0);
        assert_eq!((t, e), (100, b.len()));
        let (_, _, hop_end) = tlv_at(&b, s);
        let (t, frag, _) = tlv_at(&b, hop_end);
        assert_eq!(t, 80);
        let (t, data_start, data_end) = tlv_at(&b, frag);
        assert_eq!(t, 6);
        let mut at = data_start;
        let mut seen = Vec::new();
        let mut sig_value = (0, 0);
        while at < data_end {
            let (t, s, e) = tlv_at(&b, at);
            seen.push(t);
            if t == 21 {
                assert_eq!(e - s, 100);
            }
            if t == 20 {
                assert_eq!(&b[s..e], [25, 1, 2], "FreshnessPeriod 1.5 ms rounds up to 2 ms");
            }
            if t == 23 {
                sig_value = (s, e);
            }
            at = e;
        }
        assert_eq!(seen, [7, 20, 21, 22, 23]);
        let digest = Sha256::digest(&b[data_start..sig_value.0 - 2]);
        assert_eq!(&b[sig_value.0..sig_value.1], digest.as_slice());
    }

    #[test]
    fn a_nack_carries_its_reason_and_marks_are_lp_fields() {
        let prefix = comps("/p");
        let lp = LpFields { mark: 1, nack: Some(NackReason::Congestion), ..LpFields::default() };
        let f = NdnFrame { data: false, prefix: &prefix, seg: 0, nonce: 1, lifetime_ns: 0, payload: 0, lp };
        let mut b = Vec::new();
        f.write(&mut b, false);
        let plain = NdnFrame { lp: LpFields::default(), ..f };
        // Nack{NackReason 50} = 3+1+(3+1+1) bytes, CongestionMark 1 = 3+1+1 bytes.
        assert_eq!(f.lp_len(), plain.lp_len() + 9 + 5);
        assert_eq!(&b[5..14], [0xfd, 0x03, 0x20, 5, 0xfd, 0x03, 0x21, 1, 50]);
        assert_eq!(&b[14..19], [0xfd, 0x03, 0x40, 1, 1]);
    }

    /// What each field added on the way adds to a frame (docs/traces.md quotes these).
    #[test]
    fn fields_added_on_the_way() {
        let prefix = comps("/p1");
        let base = NdnFrame {
            data: true,
            prefix: &prefix,
            seg: 3,
            nonce: 0,
            lifetime_ns: 0,
            payload: 10,
            lp: LpFields::default(),
        };
        let plus = |lp: LpFields| NdnFrame { lp, ..base }.lp_len() - base.lp_len();
        let d = LpFields::default();
        assert_eq!(plus(LpFields { mark: 1, ..d }), 5);
        assert_eq!(plus(LpFields { nack: Some(NackReason::NoRoute), ..d }), 9);
        assert_eq!(plus(LpFields { nack: Some(NackReason::LinkLoss), ..d }), 10);
        assert_eq!(plus(LpFields { tx_seq: 7, ..d }), 12);
        assert_eq!(plus(LpFields { ack: 7, ..d }), 12);
        assert_eq!(plus(LpFields { rate: 100.0, ..d }), 12);
        assert_eq!(plus(LpFields { route: 9, ..d }), 5);
    }

    /// The figures docs/scenario-reference.md quotes under "Wire sizes".
    #[test]
    fn documented_default_sizes() {
        let p1 = comps("/p1");
        assert_eq!(interest_wire_size(&p1, 0, 2_000_000_000), 42);
        assert_eq!(interest_wire_size(&p1, 256, 2_000_000_000), 43);
        assert_eq!(interest_wire_size(&p1, 65_536, 2_000_000_000), 45);
        assert_eq!(data_wire_size(&p1, 0, 0, 1024), 1107);
    }

    proptest! {
        /// The computed length always equals the written length, for every field combination.
        #[test]
        fn computed_and_written_lengths_agree(
            data in any::<bool>(),
            comps in proptest::collection::vec("[a-z]{0,300}", 0..4),
            seg in any::<u64>(),
            lifetime_ns in prop_oneof![Just(0u64), any::<u64>()],
            payload in 0usize..70_000,
            hops in any::<u8>(), mark in any::<u8>(), tx_seq in any::<u32>(), ack in any::<u32>(),
            route in any::<u8>(), nack in 0u8..5, rate in prop_oneof![Just(f64::INFINITY), any::<f64>()],
        ) {
            let nack = [None, Some(NackReason::Congestion), Some(NackReason::Duplicate),
                        Some(NackReason::NoRoute), Some(NackReason::LinkLoss)][usize::from(nack)];
            let lp = LpFields { hops, mark, nack, tx_seq, ack, rate, route };
            let comps: Vec<CompactString> = comps.iter().map(|c| c.as_str().into()).collect();
            let f = NdnFrame { data, prefix: &comps, seg, nonce: 9, lifetime_ns, payload, lp };
            let mut b = Vec::new();
            f.write(&mut b, false);
            prop_assert_eq!(b.len(), f.lp_len());
            let (t, _, end) = tlv_at(&b, 0);
            prop_assert_eq!((t, end), (100, b.len()));
        }
    }
}
