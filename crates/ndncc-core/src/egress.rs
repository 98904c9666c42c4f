//! The transmit side of one link direction: the queue, the Interest shaper, the transmitter as
//! a "busy until" time, the wire's loss and hidden underlay, and the packets in flight. A link
//! face owns the egress of the direction it transmits into.

use std::collections::VecDeque;
use std::sync::Arc;

use crate::link_trace::{DeliveryTrace, TraceCursor};

use crate::flight::Flight;
use crate::ids::NodeId;
use crate::loss::LinkLoss;
use crate::queue::token_bucket::TokenBucketShaper;
use crate::queue::{AnyQueue, QueueDisc};
use crate::time::{SimDuration, SimTime};

/// A hidden underlay capacity below an overlay link (seed 004's IP-overlay case): the face
/// believes it sends at its own bandwidth, but packets then cross a slower pipe with a FIFO.
#[derive(Debug)]
pub struct Underlay {
    pub bandwidth_bps: u64,
    pub limit_packets: usize,
    /// A limit in bytes as well, if set (a byte-counting FIFO: a small packet may still fit
    /// where a large one does not).
    pub limit_bytes: Option<u64>,
    /// Departure times and sizes of packets inside the underlay, oldest first.
    pub departures: VecDeque<(SimTime, u32)>,
    /// Bytes of the packets inside the underlay.
    pub bytes: u64,
}

impl Underlay {
    pub fn new(bandwidth_bps: u64, limit_packets: usize, limit_bytes: Option<u64>) -> Underlay {
        Underlay {
            bandwidth_bps,
            limit_packets: limit_packets.max(1),
            limit_bytes,
            departures: VecDeque::new(),
            bytes: 0,
        }
    }

    /// Take a packet of `size` bytes that finished its transmission onto the overlay at `end`:
    /// its arrival at the far end of the underlay (before the propagation delay), or None if
    /// the FIFO is full. Packets that left the underlay by `end` make room first.
    pub fn admit(&mut self, end: SimTime, size: u32) -> Option<SimTime> {
        while let Some(&(t, s)) = self.departures.front() {
            if t > end {
                break;
            }
            self.departures.pop_front();
            self.bytes = self.bytes.saturating_sub(u64::from(s));
        }
        let over_bytes = self.limit_bytes.is_some_and(|l| self.bytes.saturating_add(u64::from(size)) > l);
        if self.departures.len() >= self.limit_packets || over_bytes {
            return None;
        }
        let start = self.departures.back().map_or(end, |&(t, _)| t).max(end);
        let depart = start + SimDuration::transmission(u64::from(size), self.bandwidth_bps);
        self.departures.push_back((depart, size));
        self.bytes = self.bytes.saturating_add(u64::from(size));
        Some(depart)
    }
}

/// What few link directions have: an Interest shaper in front of the queue, a hidden
/// underlay behind the transmitter.
#[derive(Debug, Default)]
struct Extras {
    shaper: Option<TokenBucketShaper>,
    underlay: Option<Underlay>,
}

/// The transmit side of one link direction, its fields in declaration order (`repr(C)`): the
/// flight, which an arrival reads, and the checks every packet sent makes (features that are
/// mostly off) first, then the transmitter, the loss on the wire (a pointer, the model and its
/// random stream behind it) and the queue.
#[repr(C)]
pub struct Egress {
    /// Packets on the wire towards the peer, in arrival order, in the network's
    /// `FlightPool`.
    pub flight: Flight,
    /// The first this many packets in flight have their `Arrive` in the event queue (the
    /// others get theirs as the one before arrives).
    pub arrivals_queued: u32,
    /// This direction's place among the world's link faces (`2·link` and `2·link + 1`): where
    /// its probe is (`world/probe.rs`), so that application faces, which never transmit, have
    /// none.
    pub probe: u32,
    /// The node at the far end (as in the face's kind): copied here, in the line an arrival
    /// reads anyway, for the `Arrive` events this direction schedules.
    pub to: NodeId,
    /// What only a link that changes has (a trace, events that set it or take it down): boxed,
    /// so that constant links, nearly all, pay one pointer for it.
    pub dynamics: Option<Box<Dynamics>>,
    /// The Interest shaper and the hidden underlay, in one box made only for a direction with
    /// either: most have neither, and out of line they leave the face small, so more of the
    /// faces a large topology sends on stay in the cache (`shaper_mut`, `underlay_mut`).
    extras: Option<Box<Extras>>,
    /// The transmitter is busy until this time.
    pub busy_until: SimTime,
    /// A `TxDone` event is pending.
    pub tx_wake_pending: bool,
    /// The last serialisation time worked out: (bandwidth, time), and the size it was for
    /// (a field of its own: in the tuple its padding made room for nothing else).
    last_tx_size: u32,
    pub bandwidth_bps: u64,
    pub delay: SimDuration,
    last_tx: (u64, SimDuration),
    /// The loss model on the wire and the stream it draws from.
    pub loss: LinkLoss,
    pub queue: AnyQueue,
}

/// The changing side of a link direction: whether it is down, its delivery trace, and the
/// capacity it offered, so that utilisation is measured against what the link could carry.
#[derive(Debug)]
pub struct Dynamics {
    /// The link is down: nothing is sent, and what arrives for it is dropped.
    pub down: bool,
    /// The first this many packets in flight were on the wire when the link went down: they
    /// were counted as dropped then and vanish as they would have arrived.
    pub doomed: usize,
    /// Delivery opportunities in place of a fixed bandwidth.
    pub trace: Option<(Arc<DeliveryTrace>, TraceCursor)>,
    /// Capacity offered since the start [bit·ns / s, i.e. bits × 10⁹], up to `accrued_to`.
    capacity: u128,
    accrued_to: SimTime,
    /// `capacity` and the face's bytes sent at the last sample, for per-interval figures.
    sampled: (u128, u64),
}

impl Dynamics {
    pub fn new(trace: Option<Arc<DeliveryTrace>>) -> Dynamics {
        Dynamics {
            down: false,
            doomed: 0,
            trace: trace.map(|t| (t, TraceCursor::default())),
            capacity: 0,
            accrued_to: SimTime::ZERO,
            sampled: (0, 0),
        }
    }

    /// Count the capacity offered up to `now` at `bandwidth_bps`, the direction's bandwidth
    /// since the last call (call before anything that changes it).
    pub fn accrue(&mut self, now: SimTime, bandwidth_bps: u64) {
        let from = self.accrued_to;
        if now <= from {
            return;
        }
        self.accrued_to = now;
        if self.down {
            return;
        }
        let add = match &self.trace {
            Some((t, _)) => t.capacity_bytes(from, now).saturating_mul(8_000_000_000),
            None => u128::from(bandwidth_bps).saturating_mul(u128::from((now - from).nanos())),
        };
        self.capacity = self.capacity.saturating_add(add);
    }

    /// The capacity offered from the start to `now` [bits], `bandwidth_bps` the direction's
    /// bandwidth since the last `accrue`.
    pub fn capacity_bits_at(&self, now: SimTime, bandwidth_bps: u64) -> f64 {
        let mut copy = Dynamics { trace: self.trace.clone(), ..Dynamics::new(None) };
        (copy.down, copy.capacity, copy.accrued_to) = (self.down, self.capacity, self.accrued_to);
        copy.accrue(now, bandwidth_bps);
        copy.capacity as f64 / 1e9
    }

    /// Since the last sample: (mean capacity [bit/s] over `interval`, bytes sent / capacity).
    /// `bytes_sent` is the face's counter now; call `accrue` first.
    pub fn sample(&mut self, interval: SimDuration, bytes_sent: u64) -> (f64, f64) {
        let (cap0, bytes0) = std::mem::replace(&mut self.sampled, (self.capacity, bytes_sent));
        let bits = self.capacity.saturating_sub(cap0) as f64 / 1e9;
        let secs = interval.as_secs_f64();
        let capacity = if secs > 0.0 { bits / secs } else { 0.0 };
        let sent = bytes_sent.saturating_sub(bytes0) as f64 * 8.0;
        (capacity, if bits > 0.0 { sent / bits } else { 0.0 })
    }

    /// When a packet of `size` bytes starting at `now` has left, on a trace-driven direction.
    #[inline]
    pub fn trace_departure(&mut self, now: SimTime, size: u32) -> Option<SimTime> {
        let (trace, cursor) = self.trace.as_mut()?;
        Some(cursor.depart(trace, now, size))
    }
}

impl Egress {
    /// The transmit side of a link direction, idle and empty.
    pub fn new(bandwidth_bps: u64, delay: SimDuration, loss: LinkLoss, queue: AnyQueue) -> Egress {
        Egress {
            bandwidth_bps,
            delay,
            loss,
            queue,
            extras: None,
            busy_until: SimTime::ZERO,
            tx_wake_pending: false,
            flight: Flight::default(),
            arrivals_queued: 0,
            probe: 0,
            to: NodeId(0),
            last_tx: (0, SimDuration::ZERO),
            last_tx_size: 0,
            dynamics: None,
        }
    }
    /// Time to serialise a packet of `size` bytes at the current bandwidth. A direction mostly
    /// carries packets of one size (Interests one way, Data the other), so the last answer is
    /// kept: the division is done once, not per packet.
    #[inline]
    pub fn transmission_time(&mut self, size: u32) -> SimDuration {
        let (last_size, (last_bps, t)) = (self.last_tx_size, self.last_tx);
        if last_size == size && last_bps == self.bandwidth_bps {
            return t;
        }
        let t = SimDuration::transmission(u64::from(size), self.bandwidth_bps);
        (self.last_tx_size, self.last_tx) = (size, (self.bandwidth_bps, t));
        t
    }
    pub fn queue_packets(&self) -> usize {
        self.queue.len_packets()
    }
    /// The direction is down (a link or node failure).
    #[inline]
    pub fn is_down(&self) -> bool {
        self.dynamics.as_ref().is_some_and(|d| d.down)
    }
    pub fn shaper_len(&self) -> usize {
        self.shaper().map_or(0, |s| s.len())
    }
    /// The Interest shaper in front of the queue, if the direction has one.
    #[inline]
    pub fn shaper(&self) -> Option<&TokenBucketShaper> {
        self.extras.as_deref().and_then(|x| x.shaper.as_ref())
    }
    #[inline]
    pub fn shaper_mut(&mut self) -> Option<&mut TokenBucketShaper> {
        self.extras.as_deref_mut().and_then(|x| x.shaper.as_mut())
    }
    /// The hidden underlay behind the transmitter, if the direction has one.
    #[inline]
    pub fn underlay_mut(&mut self) -> Option<&mut Underlay> {
        self.extras.as_deref_mut().and_then(|x| x.underlay.as_mut())
    }
    /// Give the direction a shaper and an underlay (each if any).
    pub fn set_extras(&mut self, shaper: Option<TokenBucketShaper>, underlay: Option<Underlay>) {
        self.extras = (shaper.is_some() || underlay.is_some()).then(|| Box::new(Extras { shaper, underlay }));
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
            let loss = LinkLoss::new(1, "t", crate::loss::LossModel::None);
            let mut eg = Egress::new(1, SimDuration::ZERO, loss, queue);
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

#[cfg(test)]
mod underlay_tests {
    use super::*;

    const MS: u64 = 1_000_000;

    #[test]
    fn the_underlay_serialises_at_its_rate_and_drops_beyond_its_packet_limit() {
        // 8 Mbit/s: a 1,000-byte packet takes 1 ms. Three arrive at 0 and leave at 1, 2 and
        // 3 ms; with room for two, the third is dropped.
        let mut u = Underlay::new(8_000_000, 2, None);
        assert_eq!(u.admit(SimTime::ZERO, 1000), Some(SimTime(MS)));
        assert_eq!(u.admit(SimTime::ZERO, 1000), Some(SimTime(2 * MS)));
        assert_eq!(u.admit(SimTime::ZERO, 1000), None);
        // At 1 ms the first has left: one more fits, behind the second (leaves at 3 ms).
        assert_eq!(u.admit(SimTime(MS), 1000), Some(SimTime(3 * MS)));
        assert_eq!(u.bytes, 2000);
    }

    #[test]
    fn with_a_byte_limit_a_small_packet_fits_where_a_large_one_does_not() {
        // Room for 2,050 bytes: two 1,000-byte packets leave 50 bytes, enough for a 50-byte NACK
        // but not for a third Data.
        let mut u = Underlay::new(8_000_000, 100, Some(2050));
        assert!(u.admit(SimTime::ZERO, 1000).is_some());
        assert!(u.admit(SimTime::ZERO, 1000).is_some());
        assert_eq!(u.admit(SimTime::ZERO, 1000), None);
        // 50 bytes at 8 Mbit/s: 50 µs after the second Data leaves at 2 ms.
        assert_eq!(u.admit(SimTime::ZERO, 50), Some(SimTime(2 * MS + 50_000)));
        assert_eq!(u.admit(SimTime::ZERO, 1), None);
    }
}
