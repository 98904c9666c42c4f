//! Packets as bytes on the wire: the real encodings (NDN TLV inside NDNLPv2, Ethernet, IPv4,
//! TCP, UDP) that packet traces write and that default NDN wire sizes are computed from.

pub mod ip;
pub mod ndn;
pub mod tlv;
