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

use std::collections::VecDeque;

use crate::ids::{AppId, FaceId, LinkId, NodeId};
use crate::linkservice::LinkServiceSlot;
use crate::loss::LossModel;
use crate::packet::Packet;
use crate::queue::token_bucket::TokenBucketShaper;
use crate::queue::{AnyQueue, QueueDisc};
use crate::ring::Ring;
use crate::rng::SimRng;
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FaceKind {
    Link { link: LinkId, peer: FaceId },
    App { app: AppId },
}

/// Counters of one face (cumulative over the run).
#[derive(Clone, Copy, Debug, Default)]
pub struct FaceCounters {
    pub packets_sent: u64,
    pub bytes_sent: u64,
    pub interests_sent: u64,
    pub data_sent: u64,
    pub nacks_sent: u64,
    /// Bytes of IP, multicast and link-layer frames sent (NDN traffic is counted by kind above).
    pub ip_bytes_sent: u64,
    pub mcast_bytes_sent: u64,
    pub link_bytes_sent: u64,
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
    /// Packets marked by this face's queue discipline.
    pub marks: u64,
    pub max_queue_packets: u64,
}

impl FaceCounters {
    pub fn drops(&self) -> u64 {
        self.drops_queue + self.drops_aqm + self.drops_shaper + self.drops_loss + self.drops_underlay
    }
}

/// A hidden underlay capacity below an overlay link (seed 004's IP-overlay case): the face
/// believes it sends at its own bandwidth, but packets then cross a slower pipe with a FIFO.
#[derive(Debug)]
pub struct Underlay {
    pub bandwidth_bps: u64,
    pub limit_packets: usize,
    /// Departure times of packets inside the underlay, oldest first.
    pub departures: VecDeque<SimTime>,
}

/// The transmit side of one link direction.
pub struct Egress {
    pub bandwidth_bps: u64,
    pub delay: SimDuration,
    pub loss: LossModel,
    pub rng: SimRng,
    pub queue: AnyQueue,
    /// Boxed, like `underlay` and a face's `link_service`: most faces have none, and out of
    /// line they leave the face small (512 bytes rather than 720), so more of the faces a
    /// large topology sends on stay in the cache.
    pub shaper: Option<Box<TokenBucketShaper>>,
    /// A `ShaperWake` event is pending for this time.
    pub shaper_wake_at: Option<SimTime>,
    /// The transmitter is busy until this time.
    pub busy_until: SimTime,
    /// A `TxDone` event is pending.
    pub tx_wake_pending: bool,
    pub underlay: Option<Box<Underlay>>,
    /// Packets on the wire towards the peer, in arrival order: (arrival time, order key, packet).
    pub in_flight: Ring<(SimTime, u64, Packet)>,
}

impl Egress {
    pub fn queue_packets(&self) -> usize {
        self.queue.len_packets()
    }
    pub fn shaper_len(&self) -> usize {
        self.shaper.as_ref().map_or(0, |s| s.len())
    }
}

pub struct Face {
    pub id: FaceId,
    pub node: NodeId,
    /// "A->B" for link faces, "A:app" for application faces.
    pub name: String,
    pub kind: FaceKind,
    pub egress: Option<Egress>,
    /// The face's link service, between the forwarder and the queue; `None` passes through.
    pub link_service: Option<Box<LinkServiceSlot>>,
    /// Interests sent on this face still waiting for Data or a NACK.
    pub pending_interests: u32,
    pub counters: FaceCounters,
    /// Bandwidth of the opposite direction (what Data coming back over this face can use) [bit/s].
    pub reverse_bandwidth_bps: u64,
}

impl Face {
    pub fn is_congested(&self) -> bool {
        self.egress.as_ref().is_some_and(|e| e.queue.is_congested())
    }
    pub fn peer(&self) -> Option<FaceId> {
        match self.kind {
            FaceKind::Link { peer, .. } => Some(peer),
            FaceKind::App { .. } => None,
        }
    }
}
