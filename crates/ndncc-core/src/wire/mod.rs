//! Packets as bytes on the wire: the real encodings (NDN TLV inside NDNLPv2, Ethernet, IPv4,
//! TCP, UDP) that packet traces write and that default NDN wire sizes are computed from, and
//! the NDN decoder, name mapping and management messages that emulation (real applications on
//! simulated nodes) reads and writes them with.

pub mod decode;
pub mod encode;
pub mod ip;
pub mod mgmt;
pub mod name;
pub mod ndn;
pub mod read;
pub mod tlv;
