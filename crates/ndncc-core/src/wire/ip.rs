//! Ethernet, IPv4, TCP and UDP headers as bytes, for traces. Node n (index) has the address
//! 10.x.y.z with x.y.z = n + 1 and the locally administered MAC 02:00:(n + 1, 4 bytes).
//!
//! A simulated IP packet's size is its IP datagram (20 bytes of IPv4 header, 20 of TCP or 8
//! of UDP, and the payload); its trace frame adds the 14-byte Ethernet header. Payload bytes
//! are zeros, except that a UDP datagram starts with ndncc's own 16 bytes (sequence number and
//! send time, big-endian u64 each) and a multicast datagram with its `McastPayload`.

use crate::ids::NodeId;
use crate::packet::{Ip, Mcast, McastKind, Transport};

pub const ETHERTYPE_IPV4: u16 = 0x0800;
pub const IPV4_HEADER: usize = 20;
pub const TCP_HEADER: usize = 20;
pub const UDP_HEADER: usize = 8;
/// UDP port of ndncc's multicast traffic (Data to the group address, feedback to the source).
pub const MCAST_PORT: u16 = 5500;

fn host(node: NodeId) -> u32 {
    node.0.saturating_add(1)
}

/// IPv4 address of a node.
pub fn ipv4(node: NodeId) -> [u8; 4] {
    let b = (host(node) & 0x00ff_ffff).to_be_bytes();
    [10, b[1], b[2], b[3]]
}

/// MAC address of a node.
pub fn mac(node: NodeId) -> [u8; 6] {
    let b = host(node).to_be_bytes();
    [0x02, 0, b[0], b[1], b[2], b[3]]
}

/// Multicast group address 239.255.g.g of group `g`.
pub fn group_address(group: u32) -> [u8; 4] {
    let b = group.to_be_bytes();
    [239, 255, b[2], b[3]]
}

pub fn write_ethernet(buf: &mut Vec<u8>, dst: [u8; 6], src: [u8; 6], ethertype: u16) {
    buf.extend_from_slice(&dst);
    buf.extend_from_slice(&src);
    buf.extend_from_slice(&ethertype.to_be_bytes());
}

/// The Internet checksum (RFC 1071) of `parts`, summed as one byte string.
fn checksum(parts: &[&[u8]]) -> u16 {
    let mut sum: u32 = 0;
    let mut odd: Option<u8> = None;
    for part in parts {
        for &b in part.iter() {
            match odd.take() {
                Some(hi) => sum += u32::from(u16::from_be_bytes([hi, b])),
                None => odd = Some(b),
            }
        }
    }
    if let Some(hi) = odd {
        sum += u32::from(u16::from_be_bytes([hi, 0]));
    }
    while sum > 0xffff {
        sum = (sum & 0xffff) + (sum >> 16);
    }
    !(u16::try_from(sum).unwrap_or(u16::MAX))
}

/// Low 32 bits of a sequence number, as a 32-bit wire field carries it.
fn wire32(n: u64) -> u32 {
    u32::try_from(n & 0xffff_ffff).unwrap_or(0)
}

/// One IP datagram to encode.
pub struct IpFrame {
    pub src: [u8; 4],
    pub dst: [u8; 4],
    /// ECN field: 0 not ECT, 2 ECT(0), 3 CE.
    pub ecn: u8,
    pub ttl: u8,
    /// IPv4 identification (low bits of a sequence number).
    pub id: u16,
    pub transport: IpTransport,
    /// Payload bytes after the transport header.
    pub payload_len: usize,
    /// The first payload bytes (the rest are zeros).
    pub payload_head: [u8; 32],
    pub head_len: usize,
}

pub enum IpTransport {
    Tcp { src_port: u16, dst_port: u16, seq: u32, ack: u32, flags: u8, window: u16 },
    Udp { src_port: u16, dst_port: u16 },
}

impl IpFrame {
    /// The datagram of a simulated IP packet of `size` bytes.
    pub fn from_ip(ip: &Ip, size: u32, mark: u8, hops: u8) -> IpFrame {
        let ecn = match (ip.ecn_capable, mark > 0) {
            (_, true) => 3,
            (true, false) => 2,
            (false, false) => 0,
        };
        let size = usize::try_from(size).unwrap_or(usize::MAX);
        let mut head = [0u8; 32];
        let (transport, payload_len, head_len, id) = match &ip.transport {
            Transport::Tcp(t) => (
                IpTransport::Tcp {
                    src_port: t.src_port,
                    dst_port: t.dst_port,
                    seq: wire32(t.seq),
                    ack: wire32(t.ack),
                    flags: t.flags.0,
                    window: u16::try_from(t.window).unwrap_or(u16::MAX),
                },
                usize::try_from(t.len).unwrap_or(usize::MAX),
                0,
                t.seq,
            ),
            Transport::Udp(u) => {
                head[..8].copy_from_slice(&u.seq.to_be_bytes());
                head[8..16].copy_from_slice(&u.sent_at.0.to_be_bytes());
                let payload = size.saturating_sub(IPV4_HEADER + UDP_HEADER);
                (IpTransport::Udp { src_port: u.src_port, dst_port: u.dst_port }, payload, 16, u.seq)
            }
        };
        IpFrame {
            src: ipv4(ip.src),
            dst: ipv4(ip.dst),
            ecn,
            ttl: 64u8.saturating_sub(hops),
            id: u16::try_from(id & 0xffff).unwrap_or(0),
            transport,
            payload_len,
            payload_head: head,
            head_len,
        }
    }

    /// The datagram of a multicast packet of `size` bytes: Data to the group's address,
    /// feedback to the source, both UDP on `MCAST_PORT`. The payload starts with ndncc's
    /// multicast header: sequence number (u64), send time [ns] (u64), reported rate [bit/s]
    /// (f64), high and low report values (f32 each), all big-endian.
    pub fn from_mcast(m: &Mcast, from: [u8; 4], to_source: [u8; 4], size: u32, mark: u8, hops: u8) -> IpFrame {
        let mut head = [0u8; 32];
        head[..8].copy_from_slice(&m.seq.to_be_bytes());
        head[8..16].copy_from_slice(&m.sent_at.0.to_be_bytes());
        head[16..24].copy_from_slice(&m.report.rate.to_be_bytes());
        head[24..28].copy_from_slice(&m.report.hi.to_be_bytes());
        head[28..32].copy_from_slice(&m.report.lo.to_be_bytes());
        let size = usize::try_from(size).unwrap_or(usize::MAX);
        let dst = match m.kind {
            McastKind::Data => group_address(m.group),
            McastKind::Feedback => to_source,
        };
        IpFrame {
            src: from,
            dst,
            ecn: if mark > 0 { 3 } else { 0 },
            ttl: 64u8.saturating_sub(hops),
            id: u16::try_from(m.seq & 0xffff).unwrap_or(0),
            transport: IpTransport::Udp { src_port: MCAST_PORT, dst_port: MCAST_PORT },
            payload_len: size.saturating_sub(IPV4_HEADER + UDP_HEADER),
            payload_head: head,
            head_len: 32,
        }
    }

    fn transport_len(&self) -> usize {
        match self.transport {
            IpTransport::Tcp { .. } => TCP_HEADER,
            IpTransport::Udp { .. } => UDP_HEADER,
        }
    }

    /// Bytes of the datagram.
    pub fn len(&self) -> usize {
        IPV4_HEADER + self.transport_len() + self.payload_len
    }
    pub fn is_empty(&self) -> bool {
        false
    }

    /// Append the datagram. Its total length field saturates at 65,535 bytes.
    pub fn write(&self, buf: &mut Vec<u8>) {
        let total = u16::try_from(self.len()).unwrap_or(u16::MAX);
        let proto = match self.transport {
            IpTransport::Tcp { .. } => 6u8,
            IpTransport::Udp { .. } => 17,
        };
        let mut ip = [0u8; IPV4_HEADER];
        ip[0] = 0x45;
        ip[1] = self.ecn & 3;
        ip[2..4].copy_from_slice(&total.to_be_bytes());
        ip[4..6].copy_from_slice(&self.id.to_be_bytes());
        ip[6] = 0x40; // don't fragment
        ip[8] = self.ttl;
        ip[9] = proto;
        ip[12..16].copy_from_slice(&self.src);
        ip[16..20].copy_from_slice(&self.dst);
        let sum = checksum(&[&ip]);
        ip[10..12].copy_from_slice(&sum.to_be_bytes());
        buf.extend_from_slice(&ip);

        let seg_len = u16::try_from(self.transport_len() + self.payload_len).unwrap_or(u16::MAX);
        let head = &self.payload_head[..self.head_len.min(self.payload_len)];
        let mut pseudo = [0u8; 12];
        pseudo[..4].copy_from_slice(&self.src);
        pseudo[4..8].copy_from_slice(&self.dst);
        pseudo[9] = proto;
        pseudo[10..12].copy_from_slice(&seg_len.to_be_bytes());
        match self.transport {
            IpTransport::Tcp { src_port, dst_port, seq, ack, flags, window } => {
                let mut t = [0u8; TCP_HEADER];
                t[0..2].copy_from_slice(&src_port.to_be_bytes());
                t[2..4].copy_from_slice(&dst_port.to_be_bytes());
                t[4..8].copy_from_slice(&seq.to_be_bytes());
                t[8..12].copy_from_slice(&ack.to_be_bytes());
                t[12] = 5 << 4;
                t[13] = flags;
                t[14..16].copy_from_slice(&window.to_be_bytes());
                // Zero payload bytes add nothing to the checksum.
                let sum = checksum(&[&pseudo, &t, head]);
                t[16..18].copy_from_slice(&sum.to_be_bytes());
                buf.extend_from_slice(&t);
            }
            IpTransport::Udp { src_port, dst_port } => {
                let mut u = [0u8; UDP_HEADER];
                u[0..2].copy_from_slice(&src_port.to_be_bytes());
                u[2..4].copy_from_slice(&dst_port.to_be_bytes());
                u[4..6].copy_from_slice(&seg_len.to_be_bytes());
                let sum = checksum(&[&pseudo, &u, head]);
                // 0 means "no checksum" in UDP over IPv4; a computed 0 is sent as all ones.
                let sum = if sum == 0 { 0xffff } else { sum };
                u[6..8].copy_from_slice(&sum.to_be_bytes());
                buf.extend_from_slice(&u);
            }
        }
        buf.extend_from_slice(head);
        buf.resize(buf.len() + (self.payload_len - head.len()), 0);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::{Tcp, TcpFlags, Udp};
    use crate::time::SimTime;

    fn tcp_packet() -> Ip {
        Ip {
            src: NodeId(0),
            dst: NodeId(2),
            ecn_capable: true,
            transport: Transport::Tcp(Tcp {
                src_port: 1000,
                dst_port: 80,
                seq: (1 << 32) + 5,
                ack: 9,
                flags: TcpFlags::ACK,
                window: 1 << 20,
                len: 100,
            }),
        }
    }

    #[test]
    fn checksums_verify_to_zero() {
        let mut b = Vec::new();
        IpFrame::from_ip(&tcp_packet(), 140, 1, 3).write(&mut b);
        assert_eq!(b.len(), 140);
        assert_eq!(checksum(&[&b[..20]]), 0, "IPv4 header checksum");
        assert_eq!(b[1], 3, "a marked ECT packet carries CE");
        assert_eq!(b[8], 61, "TTL 64 minus 3 hops");
        assert_eq!(&b[12..16], [10, 0, 0, 1]);
        assert_eq!(&b[16..20], [10, 0, 0, 3]);
        assert_eq!(&b[24..28], 5u32.to_be_bytes(), "sequence numbers wrap at 2^32 on the wire");
        let mut pseudo = vec![10, 0, 0, 1, 10, 0, 0, 3, 0, 6, 0, 120];
        pseudo.extend_from_slice(&b[20..]);
        assert_eq!(checksum(&[&pseudo]), 0, "TCP checksum");
    }

    #[test]
    fn udp_carries_sequence_and_send_time() {
        let ip = Ip {
            src: NodeId(4),
            dst: NodeId(1),
            ecn_capable: false,
            transport: Transport::Udp(Udp { src_port: 5, dst_port: 6, seq: 77, sent_at: SimTime(123) }),
        };
        let mut b = Vec::new();
        let f = IpFrame::from_ip(&ip, 1028, 0, 0);
        f.write(&mut b);
        assert_eq!(b.len(), 1028);
        assert_eq!(f.len(), 1028);
        assert_eq!(b[1], 0);
        assert_eq!(&b[28..36], 77u64.to_be_bytes());
        assert_eq!(&b[36..44], 123u64.to_be_bytes());
        let mut pseudo = vec![10, 0, 0, 5, 10, 0, 0, 2, 0, 17, 3, 0xf0];
        pseudo.extend_from_slice(&b[20..]);
        assert_eq!(checksum(&[&pseudo]), 0, "UDP checksum");
    }

    #[test]
    fn addresses_follow_node_indices() {
        assert_eq!(ipv4(NodeId(255)), [10, 0, 1, 0]);
        assert_eq!(mac(NodeId(0)), [2, 0, 0, 0, 0, 1]);
        assert_eq!(group_address(3), [239, 255, 0, 3]);
    }
}
