//! NDN packets from bytes: an Interest or a Data (NDN packet format v0.3), bare or inside an
//! NDNLPv2 LpPacket, the inverse of `ndn.rs`'s and `encode.rs`'s writers. It reads what a
//! forwarder needs (name, nonce, lifetime, selectors, freshness, the LpPacket's NACK and
//! congestion mark, and ndncc's own fields) and points at the packet's bytes, which travel on
//! unchanged.
//!
//! Unknown elements are skipped when the format lets a reader skip them (a non-critical
//! TLV-TYPE in a packet, an NDNLPv2 header field in 800–959 whose two low bits are clear) and
//! refused otherwise; so are fragments (the sender must not fragment, as on NFD's local faces),
//! lengths beyond their bytes and integers of a width the format has not.

use super::name::Component;
use super::ndn::types;
use super::read::{bad, is_critical, nonneg, whole, Elements, WireError};

/// The largest packet NFD accepts, and so the largest a face reads [bytes].
pub const MAX_PACKET_SIZE: usize = 8800;

/// TLV-TYPEs the writers of this crate do not name in `ndn::types`.
pub mod more_types {
    pub const PARAMETERS_SHA256_DIGEST: u64 = 2;
    pub const MUST_BE_FRESH: u64 = 18;
    pub const CONTENT_TYPE: u64 = 24;
    pub const FINAL_BLOCK_ID: u64 = 26;
    pub const FORWARDING_HINT: u64 = 30;
    pub const CAN_BE_PREFIX: u64 = 33;
    pub const HOP_LIMIT: u64 = 34;
    pub const APPLICATION_PARAMETERS: u64 = 36;
    pub const INTEREST_SIGNATURE_INFO: u64 = 44;
    pub const INTEREST_SIGNATURE_VALUE: u64 = 46;
    pub const LP_SEQUENCE: u64 = 81;
    pub const LP_FRAG_INDEX: u64 = 82;
    pub const LP_FRAG_COUNT: u64 = 83;
    pub const LP_PIT_TOKEN: u64 = 98;
}
use more_types::*;

/// What an Interest says that a forwarder reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Interest {
    pub name: Vec<Component>,
    pub can_be_prefix: bool,
    pub must_be_fresh: bool,
    pub nonce: Option<u32>,
    /// InterestLifetime [ms]; `None` = the default, 4 s.
    pub lifetime_ms: Option<u64>,
    pub hop_limit: Option<u8>,
    /// It carries ApplicationParameters (a signed command, say).
    pub has_parameters: bool,
}

/// What a Data says that a forwarder reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Data {
    pub name: Vec<Component>,
    /// FreshnessPeriod [ms]; `None` = absent (stale at once, for MustBeFresh).
    pub freshness_ms: Option<u64>,
    pub final_block: Option<Component>,
    pub content_len: usize,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum NetPacket {
    Interest(Interest),
    Data(Data),
}

impl NetPacket {
    pub fn name(&self) -> &[Component] {
        match self {
            NetPacket::Interest(i) => &i.name,
            NetPacket::Data(d) => &d.name,
        }
    }
}

/// The NDNLPv2 header fields a frame carried (all absent for a bare packet).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LpHeader {
    /// NackReason code; `Some(0)` for a Nack without a reason.
    pub nack: Option<u64>,
    /// CongestionMark; 0 = absent.
    pub mark: u64,
    pub hops: Option<u64>,
    pub tx_seq: Option<u64>,
    pub ack: Option<u64>,
    /// ndncc's MIRCC rate stamp [Interests/s].
    pub rate: Option<f64>,
    /// ndncc's route label.
    pub route: Option<u64>,
}

/// One decoded frame: its network packet, that packet's bytes, and the link header.
#[derive(Clone, Debug, PartialEq)]
pub struct Frame<'a> {
    pub packet: NetPacket,
    /// The Interest or Data TLV as it came (the Fragment's value inside an LpPacket).
    pub bytes: &'a [u8],
    pub lp: LpHeader,
}

/// Decode one frame that fills `b`: a bare Interest or Data, or an LpPacket. `Ok(None)` is an
/// LpPacket with no fragment (an IDLE packet, acknowledgements only), which carries nothing.
pub fn frame(b: &[u8]) -> Result<Option<Frame<'_>>, WireError> {
    let outer = whole(b)?;
    match outer.typ {
        types::INTEREST | types::DATA => Ok(Some(Frame { packet: packet(b)?, bytes: b, lp: LpHeader::default() })),
        types::LP_PACKET => lp_packet(outer.value),
        t => bad(format!("a packet of type {t}, neither an Interest, a Data nor an LpPacket")),
    }
}

fn lp_packet(value: &[u8]) -> Result<Option<Frame<'_>>, WireError> {
    let mut lp = LpHeader::default();
    let mut fragment = None;
    for e in Elements::new(value) {
        let e = e?;
        if fragment.is_some() {
            return bad("an LpPacket field after its Fragment");
        }
        match e.typ {
            types::FRAGMENT => fragment = Some(e.value),
            types::NACK => {
                let mut reason = 0;
                for f in Elements::new(e.value) {
                    let f = f?;
                    if f.typ == types::NACK_REASON {
                        reason = nonneg(f.value)?;
                    }
                }
                lp.nack = Some(reason);
            }
            types::CONGESTION_MARK => lp.mark = nonneg(e.value)?,
            types::HOP_COUNT_TAG => lp.hops = Some(nonneg(e.value)?),
            types::TX_SEQUENCE => lp.tx_seq = Some(fixed_u64(e.value)?),
            types::ACK => lp.ack = Some(fixed_u64(e.value)?),
            types::NDNCC_RATE_STAMP => lp.rate = Some(f64::from_bits(fixed_u64(e.value)?)),
            types::NDNCC_ROUTE_LABEL => lp.route = Some(nonneg(e.value)?),
            LP_FRAG_COUNT if nonneg(e.value)? > 1 => return bad("a fragmented LpPacket (FragCount above 1)"),
            LP_SEQUENCE | LP_FRAG_INDEX | LP_FRAG_COUNT | LP_PIT_TOKEN => {}
            t if (800..=959).contains(&t) && t & 3 == 0 => {}
            t => return bad(format!("an LpPacket header field of type {t} that may not be ignored")),
        }
    }
    let Some(bytes) = fragment else { return Ok(None) };
    Ok(Some(Frame { packet: packet(bytes)?, bytes, lp }))
}

fn fixed_u64(value: &[u8]) -> Result<u64, WireError> {
    match <[u8; 8]>::try_from(value) {
        Ok(be) => Ok(u64::from_be_bytes(be)),
        Err(_) => bad(format!("an 8-byte field of {} bytes", value.len())),
    }
}

/// The Interest or Data that fills `b`.
pub fn packet(b: &[u8]) -> Result<NetPacket, WireError> {
    let e = whole(b)?;
    match e.typ {
        types::INTEREST => interest(e.value).map(NetPacket::Interest),
        types::DATA => data(e.value).map(NetPacket::Data),
        t => bad(format!("a fragment of type {t}, neither an Interest nor a Data")),
    }
}

/// The components of a Name element's value.
pub fn name(value: &[u8]) -> Result<Vec<Component>, WireError> {
    let mut out = Vec::new();
    for c in Elements::new(value) {
        let c = c?;
        if c.typ == 0 || c.typ > 0xffff {
            return bad(format!("a name component of type {}", c.typ));
        }
        out.push(Component { typ: c.typ, value: c.value.to_vec() });
    }
    Ok(out)
}

/// Skip an element this reader does not know, or refuse it if it is critical.
fn unknown(in_what: &str, typ: u64) -> Result<(), WireError> {
    if is_critical(typ) {
        return bad(format!("an {in_what} element of type {typ} that may not be ignored"));
    }
    Ok(())
}

fn interest(value: &[u8]) -> Result<Interest, WireError> {
    let mut elements = Elements::new(value);
    let first = match elements.next() {
        Some(e) => e?,
        None => return bad("an empty Interest"),
    };
    if first.typ != types::NAME {
        return bad("an Interest whose first element is not its Name");
    }
    let name = name(first.value)?;
    if name.is_empty() {
        return bad("an Interest with an empty Name");
    }
    let mut i = Interest {
        name,
        can_be_prefix: false,
        must_be_fresh: false,
        nonce: None,
        lifetime_ms: None,
        hop_limit: None,
        has_parameters: false,
    };
    for e in elements {
        let e = e?;
        match e.typ {
            CAN_BE_PREFIX => i.can_be_prefix = true,
            MUST_BE_FRESH => i.must_be_fresh = true,
            types::NONCE => match <[u8; 4]>::try_from(e.value) {
                Ok(n) => i.nonce = Some(u32::from_be_bytes(n)),
                Err(_) => return bad(format!("a Nonce of {} bytes", e.value.len())),
            },
            types::INTEREST_LIFETIME => i.lifetime_ms = Some(nonneg(e.value)?),
            HOP_LIMIT => match e.value {
                [h] => i.hop_limit = Some(*h),
                _ => return bad(format!("a HopLimit of {} bytes", e.value.len())),
            },
            APPLICATION_PARAMETERS => i.has_parameters = true,
            FORWARDING_HINT | INTEREST_SIGNATURE_INFO | INTEREST_SIGNATURE_VALUE => {}
            types::NAME => return bad("an Interest with two Names"),
            t => unknown("Interest", t)?,
        }
    }
    Ok(i)
}

fn data(value: &[u8]) -> Result<Data, WireError> {
    let mut elements = Elements::new(value);
    let first = match elements.next() {
        Some(e) => e?,
        None => return bad("an empty Data"),
    };
    if first.typ != types::NAME {
        return bad("a Data whose first element is not its Name");
    }
    let mut d = Data { name: name(first.value)?, freshness_ms: None, final_block: None, content_len: 0 };
    for e in elements {
        let e = e?;
        match e.typ {
            types::META_INFO => {
                for m in Elements::new(e.value) {
                    let m = m?;
                    match m.typ {
                        types::FRESHNESS_PERIOD => d.freshness_ms = Some(nonneg(m.value)?),
                        FINAL_BLOCK_ID => {
                            let c = whole(m.value)?;
                            d.final_block = Some(Component { typ: c.typ, value: c.value.to_vec() });
                        }
                        CONTENT_TYPE => {
                            nonneg(m.value)?;
                        }
                        t => unknown("MetaInfo", t)?,
                    }
                }
            }
            types::CONTENT => d.content_len = e.value.len(),
            types::SIGNATURE_INFO | types::SIGNATURE_VALUE => {}
            types::NAME => return bad("a Data with two Names"),
            t => unknown("Data", t)?,
        }
    }
    Ok(d)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::NackReason;
    use crate::wire::name::{engine_key, from_engine};
    use crate::wire::ndn::{nack_reason_code, LpFields, NdnFrame};
    use proptest::prelude::*;

    fn written(f: &NdnFrame) -> Vec<u8> {
        let mut b = Vec::new();
        f.write(&mut b, true);
        b
    }

    #[test]
    fn an_idle_lp_packet_carries_nothing() {
        assert_eq!(frame(&[100, 0]), Ok(None));
    }

    #[test]
    fn fragments_and_unknown_critical_fields_are_refused() {
        let interest = [5, 6, 7, 4, 8, 2, b'a', b'b'];
        let lp = |field: &[u8]| {
            let mut v = field.to_vec();
            v.extend_from_slice(&[80, interest.len() as u8]);
            v.extend_from_slice(&interest);
            let mut out = vec![100, v.len() as u8];
            out.extend(v);
            out
        };
        assert!(frame(&lp(&[])).is_ok());
        assert!(frame(&lp(&[83, 1, 2])).is_err(), "FragCount 2");
        assert!(frame(&lp(&[83, 1, 1])).is_ok(), "FragCount 1 is a whole packet");
        assert!(frame(&lp(&[0xfd, 0x03, 0x4c, 0])).is_ok(), "NonDiscovery (844) may be ignored");
        assert!(frame(&lp(&[0xfd, 0x03, 0x4d, 0])).is_err(), "845 may not");
        assert!(frame(&lp(&[99, 0])).is_err(), "99 is outside the ignorable range");
    }

    #[test]
    fn interest_elements_are_read_and_unknown_ones_skipped_when_allowed() {
        #[rustfmt::skip]
        let b = [5, 26,
            7, 3, 8, 1, b'x',
            33, 0, 18, 0,
            10, 4, 0, 0, 1, 0,
            12, 2, 0x0f, 0xa0,
            34, 1, 9,
            200, 0,                    // unknown, even, above 31: skipped
            36, 0];
        let NetPacket::Interest(i) = packet(&b).unwrap() else { panic!("an Interest") };
        assert!(i.can_be_prefix && i.must_be_fresh && i.has_parameters);
        assert_eq!((i.nonce, i.lifetime_ms, i.hop_limit), (Some(256), Some(4000), Some(9)));
        let mut odd = b;
        odd[24] = 201;
        assert!(packet(&odd).is_err(), "an odd unknown type is critical");
        assert!(packet(&[5, 2, 7, 0]).is_err(), "an empty name");
        assert!(packet(&[5, 5, 10, 3, 1, 2, 3]).is_err(), "no name first");
    }

    proptest! {
        /// Decoding undoes `NdnFrame::write`: name, segment, nonce, lifetime or freshness,
        /// content length and every NDNLPv2 field come back.
        #[test]
        fn the_trace_encoder_round_trips(
            data in any::<bool>(),
            prefix in proptest::collection::vec("[a-z0-9]{1,12}", 0..4),
            seg in 0u64..u64::MAX,
            nonce in any::<u32>(),
            lifetime_ms in 0u64..10_000_000,
            payload in 0usize..8000,
            hops in any::<u8>(), mark in any::<u8>(), tx_seq in any::<u32>(), ack in any::<u32>(),
            route in any::<u8>(), nack in 0u8..5, rate in prop_oneof![Just(f64::INFINITY), 0.0f64..1e9],
        ) {
            let nack = if data { None } else {
                [None, Some(NackReason::Congestion), Some(NackReason::Duplicate),
                 Some(NackReason::NoRoute), Some(NackReason::LinkLoss)][usize::from(nack)]
            };
            let lp = LpFields { hops, mark, nack, tx_seq, ack, rate, route };
            let prefix: Vec<compact_str::CompactString> = prefix.iter().map(|c| c.as_str().into()).collect();
            let f = NdnFrame { data, prefix: &prefix, seg, nonce, lifetime_ns: lifetime_ms * 1_000_000,
                               payload, lp };
            let b = written(&f);
            let got = frame(&b).unwrap().unwrap();
            let (key, got_seg) = engine_key(got.packet.name());
            prop_assert_eq!(from_engine(&crate::names::components(&key), got_seg),
                            from_engine(&prefix, seg));
            let life = (lifetime_ms > 0).then_some(lifetime_ms);
            match &got.packet {
                NetPacket::Interest(i) => {
                    prop_assert!(!data);
                    prop_assert_eq!((i.nonce, i.lifetime_ms), (Some(nonce), life));
                }
                NetPacket::Data(d) => {
                    prop_assert!(data);
                    prop_assert_eq!((d.freshness_ms, d.content_len), (life, payload));
                }
            }
            let h = &got.lp;
            prop_assert_eq!(h.hops, Some(u64::from(hops)));
            prop_assert_eq!(h.mark, u64::from(mark));
            prop_assert_eq!(h.nack, nack.map(nack_reason_code));
            prop_assert_eq!(h.tx_seq, (tx_seq != 0).then_some(u64::from(tx_seq)));
            prop_assert_eq!(h.ack, (ack != 0).then_some(u64::from(ack)));
            prop_assert_eq!(h.rate, rate.is_finite().then_some(rate));
            prop_assert_eq!(h.route, (route != 0).then_some(u64::from(route)));
        }

        /// No bytes make the decoder panic: random ones, and valid frames with bytes changed.
        #[test]
        fn arbitrary_bytes_never_panic(b in proptest::collection::vec(any::<u8>(), 0..300)) {
            let _ = frame(&b);
        }

        #[test]
        fn damaged_frames_never_panic(payload in 0usize..200, at in any::<prop::sample::Index>(),
                                      byte in any::<u8>(), cut in any::<prop::sample::Index>()) {
            let prefix = vec![compact_str::CompactString::from("p")];
            let lp = LpFields { mark: 1, tx_seq: 3, ..LpFields::default() };
            let f = NdnFrame { data: true, prefix: &prefix, seg: 7, nonce: 1, lifetime_ns: 5_000_000, payload, lp };
            let mut b = written(&f);
            let i = at.index(b.len());
            b[i] = byte;
            let _ = frame(&b);
            let _ = frame(&b[..cut.index(b.len())]);
        }
    }
}
