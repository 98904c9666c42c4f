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
    /// `peer` is the face at the link's far end and `peer_node` that face's node, where the
    /// packets this face sends arrive (kept here so that a look ahead at an arrival finds the
    /// node without reading the far face).
    Link {
        link: LinkId,
        peer: FaceId,
        peer_node: NodeId,
    },
    App {
        app: AppId,
    },
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
    /// Boxed, like `underlay`, a face's `link_service` and the AQM queues: most faces have
    /// none, and out of line they leave the face small (472 bytes), so more of the faces a
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
    /// The first this many packets in flight have their `Arrive` in the event queue (the
    /// others get theirs as the one before arrives).
    pub arrivals_queued: u32,
    /// The last serialisation time worked out: (size, bandwidth, time).
    last_tx: (u32, u64, SimDuration),
}

impl Egress {
    /// The transmit side of a link direction, idle and empty.
    pub fn new(bandwidth_bps: u64, delay: SimDuration, loss: LossModel, rng: SimRng, queue: AnyQueue) -> Egress {
        Egress {
            bandwidth_bps,
            delay,
            loss,
            rng,
            queue,
            shaper: None,
            shaper_wake_at: None,
            busy_until: SimTime::ZERO,
            tx_wake_pending: false,
            underlay: None,
            in_flight: Ring::new(),
            arrivals_queued: 0,
            last_tx: (0, 0, SimDuration::ZERO),
        }
    }
    /// Time to serialise a packet of `size` bytes at the current bandwidth. A direction mostly
    /// carries packets of one size (Interests one way, Data the other), so the last answer is
    /// kept: the division is done once, not per packet.
    #[inline]
    pub fn transmission_time(&mut self, size: u32) -> SimDuration {
        let (last_size, last_bps, t) = self.last_tx;
        if last_size == size && last_bps == self.bandwidth_bps {
            return t;
        }
        let t = SimDuration::transmission(u64::from(size), self.bandwidth_bps);
        self.last_tx = (size, self.bandwidth_bps, t);
        t
    }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::droptail::{DropTail, Limit};

    /// A face is read on every packet it sends: it must not grow unnoticed (472 bytes since a
    /// link face names its far node for the look ahead).
    #[test]
    fn a_face_stays_under_eight_cache_lines() {
        assert!(std::mem::size_of::<Face>() <= 472, "Face is {} bytes", std::mem::size_of::<Face>());
    }

    proptest::proptest! {
        /// The kept serialisation time is the one worked out afresh, whatever the sizes and
        /// however the bandwidth changes between packets.
        #[test]
        fn a_kept_transmission_time_is_the_one_worked_out_afresh(
            steps in proptest::collection::vec((0u32..3, 1u64..4), 1..60),
        ) {
            let queue = AnyQueue::DropTail(DropTail::new(Limit::Packets(10)));
            let mut eg = Egress::new(1, SimDuration::ZERO, LossModel::None, crate::rng::stream(1, "t"), queue);
            for (size, bps) in steps {
                // Few distinct values, so that kept answers are reused and invalidated often.
                let size = [0, 40, 1_088][size as usize];
                eg.bandwidth_bps = [1, 50_000_000, 10_000_000_000][bps as usize - 1];
                let fresh = SimDuration::transmission(u64::from(size), eg.bandwidth_bps);
                proptest::prop_assert_eq!(eg.transmission_time(size), fresh);
            }
        }
    }
}
