//! `PcapTap`: the packet tap that writes a pcapng trace of chosen faces.

use std::fs::File;
use std::io::{self, BufWriter};
use std::path::Path;

use compact_str::CompactString;

use super::{PcapNgWriter, PcapSpec};
use crate::app::producer::DEFAULT_PAYLOAD_BYTES;
use crate::face::FaceKind;
use crate::ids::FaceId;
use crate::names::components;
use crate::packet::{Header, NdnKind, Packet};
use crate::tap::{PacketTap, TapPoint};
use crate::time::SimTime;
use crate::wire::ip::{ipv4, mac, write_ethernet, IpFrame, ETHERTYPE_IPV4};
use crate::wire::ndn::{types, LpFields, NdnFrame, ETHERTYPE_NDN};
use crate::wire::tlv::{tlv_len, TlvWriter};
use crate::world::Network;

/// What a trace recorded on one face.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct TraceCounts {
    pub face: String,
    /// Packets recorded as sent.
    pub packets: u64,
    /// Drops recorded.
    pub drops: u64,
}

struct TracedFace {
    interface: u32,
    src_mac: [u8; 6],
    dst_mac: [u8; 6],
    src_ip: [u8; 4],
    peer_ip: [u8; 4],
    counts: TraceCounts,
}

pub struct PcapTap {
    writer: PcapNgWriter<BufWriter<File>>,
    /// By face index; `None` for faces not traced.
    faces: Vec<Option<TracedFace>>,
    /// Name components and Data content length, by name index.
    names: Vec<(Vec<CompactString>, usize)>,
    start: SimTime,
    stop: SimTime,
    snaplen: usize,
    drops: bool,
    /// The frame being encoded (reused).
    frame: Vec<u8>,
    /// The first write error: recording stops there, and `finish` reports it.
    error: Option<io::Error>,
}

/// The content length of a Data under `name`: the payload of the producer with the longest
/// prefix of it.
fn payload_for(name: &[CompactString], producers: &[(Vec<CompactString>, u64)]) -> usize {
    let best = producers
        .iter()
        .filter(|(p, _)| p.len() <= name.len() && name[..p.len()] == p[..])
        .max_by_key(|(p, _)| p.len())
        .map_or(DEFAULT_PAYLOAD_BYTES, |(_, payload)| *payload);
    usize::try_from(best).unwrap_or(usize::MAX)
}

impl PcapTap {
    /// A trace of the faces of `net` that `spec` selects, written to `path`. `producers` gives
    /// each producer's prefix and payload (the Content length of its Data); `comment` goes in
    /// the file header (scenario name, seed).
    pub fn create(
        path: &Path,
        net: &Network,
        spec: &PcapSpec,
        producers: &[(String, u64)],
        comment: &str,
    ) -> io::Result<PcapTap> {
        let file = File::create(path)?;
        let snaplen = u32::try_from(spec.snaplen.0).unwrap_or(u32::MAX);
        let application = format!("ndncc {}", env!("CARGO_PKG_VERSION"));
        let mut writer = PcapNgWriter::new(BufWriter::with_capacity(1 << 20, file), &application, comment)?;
        let mut faces = Vec::with_capacity(net.faces.len());
        for face in &net.faces {
            let FaceKind::Link { link, peer_node, .. } = face.kind else {
                faces.push(None);
                continue;
            };
            let (me, them) = (net.node_name(face.node), net.node_name(peer_node));
            if !spec.faces.includes(me, them) {
                faces.push(None);
                continue;
            }
            let description = match &net.faces[face.id.idx()].egress {
                Some(e) => format!(
                    "link {} from {me} to {them}: {} bit/s, {} ns delay",
                    net.links[link.idx()].name,
                    e.bandwidth_bps,
                    e.delay.nanos()
                ),
                None => format!("link {} from {me} to {them}", net.links[link.idx()].name),
            };
            let name = net.face_name(face.id);
            let interface = writer.interface(name, &description, snaplen)?;
            faces.push(Some(TracedFace {
                interface,
                src_mac: mac(face.node),
                dst_mac: mac(peer_node),
                src_ip: ipv4(face.node),
                peer_ip: ipv4(peer_node),
                counts: TraceCounts { face: name.to_owned(), ..TraceCounts::default() },
            }));
        }
        let producers: Vec<(Vec<CompactString>, u64)> = producers.iter().map(|(p, n)| (components(p), *n)).collect();
        let names = (0..net.names.len())
            .map(|i| {
                let comps = net.names.components(crate::ids::NameId(u32::try_from(i).unwrap_or(u32::MAX))).to_vec();
                let payload = payload_for(&comps, &producers);
                (comps, payload)
            })
            .collect();
        Ok(PcapTap {
            writer,
            faces,
            names,
            start: SimTime::ZERO + spec.start.get(),
            stop: spec.stop.map_or(SimTime(u64::MAX), |s| SimTime::ZERO + s.get()),
            snaplen: usize::try_from(spec.snaplen.0).unwrap_or(usize::MAX),
            drops: spec.drops,
            frame: Vec::with_capacity(2048),
            error: None,
        })
    }

    /// Flush the file; what each traced face recorded, or the first write error.
    pub fn finish(&mut self) -> io::Result<Vec<TraceCounts>> {
        if let Some(e) = self.error.take() {
            return Err(e);
        }
        self.writer.flush()?;
        Ok(self.faces.iter().flatten().map(|f| f.counts.clone()).collect())
    }

    /// Encode `p` as sent on `face` into `self.frame`.
    fn encode(&mut self, face: usize, p: &Packet) {
        let Some(f) = &self.faces[face] else { return };
        let buf = &mut self.frame;
        buf.clear();
        match &p.header {
            Header::Ndn(h) => {
                write_ethernet(buf, f.dst_mac, f.src_mac, ETHERTYPE_NDN);
                let (prefix, payload) = self.names.get(h.name.prefix.idx()).map_or((&[][..], 0), |(c, n)| (&c[..], *n));
                let lp = LpFields {
                    hops: p.hops,
                    mark: p.mark,
                    nack: match h.kind {
                        NdnKind::Nack(r) => Some(r),
                        _ => None,
                    },
                    tx_seq: p.link.tx_seq,
                    ack: p.link.ack,
                    rate: h.rate,
                    route: p.route,
                };
                let frame = NdnFrame {
                    data: h.kind == NdnKind::Data,
                    prefix,
                    seg: h.name.seg,
                    nonce: h.nonce,
                    lifetime_ns: h.lifetime_ns,
                    payload,
                    lp,
                };
                // The signature ends the frame: hash only when the snap length keeps it.
                let sign = frame.frame_len() <= self.snaplen;
                frame.write(buf, sign);
            }
            Header::Ip(ip) => {
                write_ethernet(buf, f.dst_mac, f.src_mac, ETHERTYPE_IPV4);
                IpFrame::from_ip(ip, p.size, p.mark, p.hops).write(buf);
            }
            Header::Mcast(m) => {
                write_ethernet(buf, f.dst_mac, f.src_mac, ETHERTYPE_IPV4);
                IpFrame::from_mcast(m, f.src_ip, f.peer_ip, p.size, p.mark, p.hops).write(buf);
            }
            Header::LinkAck => {
                write_ethernet(buf, f.dst_mac, f.src_mac, ETHERTYPE_NDN);
                let mut w = TlvWriter { buf };
                w.header(types::LP_PACKET, tlv_len(types::ACK, 8));
                w.fixed_u64(types::ACK, u64::from(p.link.ack));
            }
        }
    }
}

impl PacketTap for PcapTap {
    fn on_packet(&mut self, now: SimTime, face: FaceId, point: TapPoint, packet: &Packet) {
        if now < self.start || now >= self.stop || self.error.is_some() {
            return;
        }
        let i = face.idx();
        if !matches!(self.faces.get(i), Some(Some(_))) {
            return;
        }
        let comment = match point {
            TapPoint::Transmit => None,
            TapPoint::Drop(cause) if self.drops => Some(cause),
            _ => return,
        };
        self.encode(i, packet);
        let Some(Some(f)) = self.faces.get_mut(i) else { return };
        let original = u32::try_from(self.frame.len()).unwrap_or(u32::MAX);
        let captured = &self.frame[..self.frame.len().min(self.snaplen)];
        let text = comment.map(|c| format!("dropped: {}", c.as_str()));
        match comment {
            None => f.counts.packets += 1,
            Some(_) => f.counts.drops += 1,
        }
        if let Err(e) = self.writer.packet(f.interface, now.0, captured, original, text.as_deref()) {
            self.error = Some(e);
        }
    }
}
