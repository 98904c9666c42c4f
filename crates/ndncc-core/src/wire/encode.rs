//! Writing NDN packets for a real application: an Interest or a Data with real names (typed
//! components, `name.rs`), and the NDNLPv2 LpPacket that carries a NACK or a congestion mark
//! to it. What `decode.rs` reads back.
//!
//! Like NFD towards a local application, a packet travels bare unless it has a link-layer
//! field to carry: only then is it wrapped in an LpPacket.

use sha2::{Digest, Sha256};

use super::decode::more_types::{CAN_BE_PREFIX, MUST_BE_FRESH};
use super::name::{name_value_len, write_name, Component};
use super::ndn::types;
use super::tlv::{nonneg_len, tlv_len, TlvWriter};

/// An Interest for `name`. `lifetime_ms = None` leaves the field out (the default, 4 s).
pub fn interest(
    name: &[Component],
    nonce: u32,
    lifetime_ms: Option<u64>,
    can_be_prefix: bool,
    must_be_fresh: bool,
) -> Vec<u8> {
    let mut value = tlv_len(types::NAME, name_value_len(name)) + tlv_len(types::NONCE, 4);
    value += usize::from(can_be_prefix) * tlv_len(CAN_BE_PREFIX, 0);
    value += usize::from(must_be_fresh) * tlv_len(MUST_BE_FRESH, 0);
    if let Some(ms) = lifetime_ms {
        value += tlv_len(types::INTEREST_LIFETIME, nonneg_len(ms));
    }
    let mut buf = Vec::with_capacity(tlv_len(types::INTEREST, value));
    let mut w = TlvWriter { buf: &mut buf };
    w.header(types::INTEREST, value);
    write_name(&mut w, name);
    if can_be_prefix {
        w.header(CAN_BE_PREFIX, 0);
    }
    if must_be_fresh {
        w.header(MUST_BE_FRESH, 0);
    }
    w.bytes(types::NONCE, &nonce.to_be_bytes());
    if let Some(ms) = lifetime_ms {
        w.nonneg(types::INTEREST_LIFETIME, ms);
    }
    buf
}

/// A Data for `name` holding `content`, with a true DigestSha256 signature. `freshness_ms =
/// None` leaves FreshnessPeriod out.
pub fn data(name: &[Component], freshness_ms: Option<u64>, content: &[u8]) -> Vec<u8> {
    const DIGEST_LEN: usize = 32;
    let meta_value = freshness_ms.map_or(0, |ms| tlv_len(types::FRESHNESS_PERIOD, nonneg_len(ms)));
    // SignatureType 0 (DigestSha256).
    let sig_info_value = tlv_len(types::SIGNATURE_TYPE, 1);
    let value = tlv_len(types::NAME, name_value_len(name))
        + tlv_len(types::META_INFO, meta_value)
        + tlv_len(types::CONTENT, content.len())
        + tlv_len(types::SIGNATURE_INFO, sig_info_value)
        + tlv_len(types::SIGNATURE_VALUE, DIGEST_LEN);
    let mut buf = Vec::with_capacity(tlv_len(types::DATA, value));
    let mut w = TlvWriter { buf: &mut buf };
    w.header(types::DATA, value);
    let signed_from = w.buf.len();
    write_name(&mut w, name);
    w.header(types::META_INFO, meta_value);
    if let Some(ms) = freshness_ms {
        w.nonneg(types::FRESHNESS_PERIOD, ms);
    }
    w.bytes(types::CONTENT, content);
    w.header(types::SIGNATURE_INFO, sig_info_value);
    w.nonneg(types::SIGNATURE_TYPE, 0);
    // The signature covers Name through SignatureInfo.
    let digest: [u8; DIGEST_LEN] = Sha256::digest(&w.buf[signed_from..]).into();
    w.bytes(types::SIGNATURE_VALUE, &digest);
    buf
}

/// `packet` (an Interest or Data TLV) as it goes to an application: bare, or inside an
/// LpPacket when it is a NACK (`nack`: the NackReason code) or carries a congestion mark.
pub fn to_app(packet: &[u8], nack: Option<u64>, mark: u64) -> Vec<u8> {
    if nack.is_none() && mark == 0 {
        return packet.to_vec();
    }
    let nack_value = nack.map_or(0, |r| if r == 0 { 0 } else { tlv_len(types::NACK_REASON, nonneg_len(r)) });
    let mut value = tlv_len(types::FRAGMENT, packet.len());
    if nack.is_some() {
        value += tlv_len(types::NACK, nack_value);
    }
    if mark > 0 {
        value += tlv_len(types::CONGESTION_MARK, nonneg_len(mark));
    }
    let mut buf = Vec::with_capacity(tlv_len(types::LP_PACKET, value));
    let mut w = TlvWriter { buf: &mut buf };
    w.header(types::LP_PACKET, value);
    if let Some(reason) = nack {
        w.header(types::NACK, nack_value);
        if reason != 0 {
            w.nonneg(types::NACK_REASON, reason);
        }
    }
    if mark > 0 {
        w.nonneg(types::CONGESTION_MARK, mark);
    }
    w.bytes(types::FRAGMENT, packet);
    buf
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wire::decode::{frame, Data, Interest, NetPacket};
    use proptest::prelude::*;

    fn name_strategy() -> impl Strategy<Value = Vec<Component>> {
        proptest::collection::vec(
            (1u64..=0xffff, proptest::collection::vec(any::<u8>(), 0..10))
                .prop_map(|(typ, value)| Component { typ, value }),
            1..5,
        )
    }

    #[test]
    fn a_data_signature_is_the_digest_of_name_to_signature_info() {
        let b = data(&[Component::generic(b"a")], Some(1000), b"hi");
        let sig_value_at = b.len() - 32;
        // Data header is 2 bytes; SignatureValue's type and length take 2 before its value.
        let digest = Sha256::digest(&b[2..sig_value_at - 2]);
        assert_eq!(&b[sig_value_at..], digest.as_slice());
    }

    proptest! {
        /// What `interest`, `data` and `to_app` write, `decode::frame` reads back.
        #[test]
        fn app_packets_round_trip(
            name in name_strategy(), nonce in any::<u32>(), life in proptest::option::of(0u64..1u64 << 40),
            cbp in any::<bool>(), mbf in any::<bool>(), content in proptest::collection::vec(any::<u8>(), 0..300),
            nack in proptest::option::of(prop_oneof![Just(0u64), Just(50), Just(150)]), mark in 0u64..3,
        ) {
            let i = interest(&name, nonce, life, cbp, mbf);
            let f = frame(&i).unwrap().unwrap();
            let want = Interest { name: name.clone(), can_be_prefix: cbp, must_be_fresh: mbf, nonce: Some(nonce),
                                  lifetime_ms: life, hop_limit: None, has_parameters: false };
            prop_assert_eq!(&f.packet, &NetPacket::Interest(want.clone()));
            let wrapped = to_app(&i, nack, mark);
            let f = frame(&wrapped).unwrap().unwrap();
            prop_assert_eq!((f.lp.nack, f.lp.mark, f.bytes), (nack, mark, &i[..]));
            let d = data(&name, life, &content);
            let f = frame(&d).unwrap().unwrap();
            let want = Data { name, freshness_ms: life, final_block: None, content_len: content.len() };
            prop_assert_eq!(f.packet, NetPacket::Data(want));
        }
    }
}
