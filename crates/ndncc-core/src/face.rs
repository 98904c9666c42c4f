//! Faces: a node's end of a link (with the transmitter of that direction) or the attachment
//! point of an application.
//!
//! ```text
//!   node A                                   node B
//!  ┌────────┐ face A->B: [shaper]→[queue]→tx ─── delay, loss ──▶ ┌────────┐
//!  │  FIB   │                                                     │  FIB   │
//!  │  PIT   │ ◀── delay, loss ─── tx←[queue]←[shaper] face B->A   │  PIT   │
//!  └────────┘                                                     └────────┘
//! ```
//! Each direction of a link is owned by the face that transmits into it.

use crate::egress::Egress;
use crate::ids::{AppId, FaceId, LinkId, NodeId};
use crate::linkservice::LinkServiceSlot;
use crate::queue::QueueDisc;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaceKind {
    /// `peer` is the face at the link's far end and `peer_node` that face's node, where the
    /// packets this face sends arrive (kept here so that finding it reads only this face; the
    /// egress keeps a copy for the arrivals it schedules, `Egress::to`).
    Link {
        link: LinkId,
        peer: FaceId,
        peer_node: NodeId,
    },
    App {
        app: AppId,
    },
}

/// Counters of one face (cumulative over the run). In declaration order (`repr(C)`): the
/// counters every NDN packet sent updates first, so that they share a cache line with the end
/// of the face's egress (see `Face`).
#[derive(Clone, Debug, Default)]
#[repr(C)]
pub struct FaceCounters {
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub interests_sent: u64,
    pub data_sent: u64,
    pub max_queue_packets: u64,
    pub nacks_sent: u64,
    /// Drops, marks and the bytes of other protocols, from a face's first: most faces of a
    /// large world (access links, application faces) never drop or mark a packet and carry
    /// NDN only, and inline these took 72 bytes of every face.
    rare: Option<Box<RareCounters>>,
}

/// What most faces never count (`FaceCounters::rare`).
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct RareCounters {
    losses: FaceLosses,
    /// Bytes of IP, multicast and link-layer frames sent (NDN traffic is counted by kind in
    /// `FaceCounters`).
    pub(crate) ip_bytes_sent: u64,
    pub(crate) mcast_bytes_sent: u64,
    pub(crate) link_bytes_sent: u64,
}

/// The drops and marks of one face.
#[derive(Clone, Copy, Debug, Default)]
pub struct FaceLosses {
    /// Tail drops of the queue discipline.
    pub drops_queue: u64,
    /// Drops decided by an AQM (CoDel) while dequeuing.
    pub drops_aqm: u64,
    /// Interests refused by a full Interest shaper.
    pub drops_shaper: u64,
    /// Packets lost on the wire (loss model).
    pub drops_loss: u64,
    /// Packets dropped by a full hidden underlay.
    pub drops_underlay: u64,
    /// Packets lost to the link being down (queued, on the wire, or sent while it was down).
    pub drops_link_down: u64,
    /// Packets marked by this face's queue discipline.
    pub marks: u64,
}

impl FaceLosses {
    pub fn drops(&self) -> u64 {
        self.drops_queue
            + self.drops_aqm
            + self.drops_shaper
            + self.drops_loss
            + self.drops_underlay
            + self.drops_link_down
    }
}

impl FaceCounters {
    /// The drops and marks so far (all zero for a face that had none).
    pub fn losses(&self) -> FaceLosses {
        self.rare.as_deref().map(|r| r.losses).unwrap_or_default()
    }
    /// The drops and marks, to count one.
    pub fn losses_mut(&mut self) -> &mut FaceLosses {
        &mut self.rare_mut().losses
    }
    pub fn drops(&self) -> u64 {
        self.rare.as_ref().map_or(0, |r| r.losses.drops())
    }
    pub fn marks(&self) -> u64 {
        self.rare.as_ref().map_or(0, |r| r.losses.marks)
    }
    /// Bytes of IP packets sent.
    pub fn ip_bytes_sent(&self) -> u64 {
        self.rare.as_ref().map_or(0, |r| r.ip_bytes_sent)
    }
    /// Bytes of multicast packets sent.
    pub fn mcast_bytes_sent(&self) -> u64 {
        self.rare.as_ref().map_or(0, |r| r.mcast_bytes_sent)
    }
    /// Bytes of link-layer frames (a link service's own) sent.
    pub fn link_bytes_sent(&self) -> u64 {
        self.rare.as_ref().map_or(0, |r| r.link_bytes_sent)
    }
    /// What most faces never count, to count some (made at the first).
    pub(crate) fn rare_mut(&mut self) -> &mut RareCounters {
        self.rare.get_or_insert_with(Box::default)
    }
}

/// A face, its fields in declaration order (`repr(C)`), what a packet reads first: the kind,
/// link service and node that every packet passing reads, then the egress (whose own hot
/// fields lead), then the counters. Four cache lines exactly, and aligned to them: a packet
/// that arrives over a face reads the first two (where the order the compiler chose, and faces
/// starting anywhere in a line, spread a face over seven lines: in a large world each line
/// read is a cache miss). Its name is the network's (`Network::face_name`), and the bandwidth
/// of its reverse direction its peer's (`Network::reverse_bandwidth_bps`): only the set-up,
/// the summary and some router modules read them, and here they took a sixth line.
#[repr(C, align(64))]
pub struct Face {
    pub kind: FaceKind,
    /// The face's link service, between the forwarder and the queue; `None` passes through.
    pub link_service: Option<Box<LinkServiceSlot>>,
    pub node: NodeId,
    /// Interests sent on this face still waiting for Data or a NACK.
    pub pending_interests: u32,
    pub egress: Option<Egress>,
    pub counters: FaceCounters,
    pub id: FaceId,
}

impl Face {
    pub fn is_congested(&self) -> bool {
        self.egress.as_ref().is_some_and(|e| e.queue.is_congested())
    }
    /// A link face whose link is down.
    #[inline]
    pub fn is_down(&self) -> bool {
        self.egress.as_ref().is_some_and(|e| e.is_down())
    }
    pub fn peer(&self) -> Option<FaceId> {
        match self.kind {
            FaceKind::Link { peer, .. } => Some(peer),
            FaceKind::App { .. } => None,
        }
    }
}

/// The bandwidth of the direction opposite `face`'s among `faces` [bit/s]: what its peer
/// transmits at, which Data coming back over `face` can use; zero for an application face.
pub fn reverse_bandwidth_bps(faces: &[Face], face: FaceId) -> u64 {
    faces[face.idx()].peer().and_then(|p| faces[p.idx()].egress.as_ref()).map_or(0, |e| e.bandwidth_bps)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A face is read on every packet it sends, and a large world keeps tens of thousands: it
    /// must not grow unnoticed (256 bytes since its drops, marks and bytes of other protocols,
    /// its link's loss model and stream, and its shaper and underlay are boxed, its rings are
    /// 32 bytes and its name is kept by the network).
    #[test]
    fn a_face_is_four_cache_lines() {
        assert_eq!(std::mem::size_of::<Face>(), 256, "Face is {} bytes", std::mem::size_of::<Face>());
    }

    /// What a packet arriving over a face reads (its kind, node and link service; the
    /// sender's flight) lies in the face's first two lines, and the counters a packet sent
    /// updates end within its fourth.
    #[test]
    fn what_every_packet_reads_leads_the_face() {
        use std::mem::offset_of;
        let egress = offset_of!(Face, egress);
        assert!(offset_of!(Face, node) < 64 && offset_of!(Face, link_service) < 64);
        assert!(egress + offset_of!(Egress, dynamics) < 128 && egress + offset_of!(Egress, arrivals_queued) < 128);
        assert!(offset_of!(Face, counters) + offset_of!(FaceCounters, nacks_sent) + 8 <= 256);
    }
}
