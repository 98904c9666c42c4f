//! The transmit side of one link direction: the queue, the Interest shaper, the transmitter as
//! a "busy until" time, the wire's loss and hidden underlay, and the packets in flight. A link
//! face owns the egress of the direction it transmits into.

use std::collections::VecDeque;

use crate::loss::LossModel;
use crate::packet::Packet;
use crate::queue::token_bucket::TokenBucketShaper;
use crate::queue::{AnyQueue, QueueDisc};
use crate::ring::Ring;
use crate::rng::SimRng;
use crate::time::{SimDuration, SimTime};

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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::queue::droptail::{DropTail, Limit};

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
