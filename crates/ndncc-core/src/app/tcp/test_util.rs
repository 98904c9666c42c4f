//! What the TCP senders' unit tests share: time in milliseconds, ACKs from the receiver, and a
//! step that runs one call on a sender and returns the segments it sent.

use crate::app::AppCtx;
use crate::ids::NodeId;
use crate::packet::{Header, Ip, Packet, Tcp, TcpFlags, Transport};
use crate::recorder::Recorder;
use crate::time::{SimDuration, SimTime};

/// The segment size the tests use [bytes].
pub const MSS: u32 = 1000;

pub fn at_ms(ms: u64) -> SimTime {
    SimTime(SimDuration::from_millis(ms).nanos())
}

/// A cumulative ACK of `bytes` with `flags`, from the receiver (node 1, port 2) to the sender.
pub fn ack_with(bytes: u64, flags: TcpFlags) -> Packet {
    let tcp = Tcp { src_port: 2, dst_port: 1, seq: 0, ack: bytes, flags, window: u32::MAX, len: 0 };
    Packet::new(
        Header::Ip(Ip { src: NodeId(1), dst: NodeId(0), ecn_capable: false, transport: Transport::Tcp(tcp) }),
        40,
    )
}

pub fn ack(bytes: u64) -> Packet {
    ack_with(bytes, TcpFlags::ACK)
}

/// Run `f` on `s` at `ms`; return the TCP headers of the segments it sent, with each one's size
/// on the wire.
pub fn step<S>(s: &mut S, rec: &mut Recorder, ms: u64, f: impl FnOnce(&mut S, &mut AppCtx)) -> Vec<(Tcp, u32)> {
    let mut out = Vec::new();
    let mut ctx = AppCtx::new(at_ms(ms), &mut out, rec);
    f(s, &mut ctx);
    out.iter()
        .filter_map(|p| match p.ip() {
            Some(Ip { transport: Transport::Tcp(t), .. }) => Some((*t, p.size)),
            _ => None,
        })
        .collect()
}

/// Where each segment `step` returned starts.
pub fn starts(sent: Vec<(Tcp, u32)>) -> Vec<u64> {
    sent.into_iter().map(|(t, _)| t.seq).collect()
}
