//! Queue disciplines: what a face does with packets waiting for its transmitter.
//!
//! A discipline is a small state machine that is handed `now` on every call; it never reads a
//! clock. The face asks it for the next packet whenever the transmitter goes idle.
//!
//! ```text
//!  forwarder ──enqueue──▶ [ QueueDisc ] ──dequeue──▶ transmitter ──▶ link
//!                 │ tail drop                │ AQM drop (CoDel) / mark
//! ```

pub mod droptail;

pub use droptail::{DropTail, Limit};

use crate::packet::Packet;
use crate::time::SimTime;

/// What happened to a packet offered to a queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Queued,
    /// Tail drop: the queue was full. The caller counts it.
    Dropped,
}

/// A packet leaving the queue for the transmitter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dequeued {
    pub packet: Packet,
    /// The discipline decided to congestion-mark this packet.
    pub mark: bool,
}

/// The trait every queue discipline implements.
pub trait QueueDisc: Send {
    /// Offer a packet arriving at `now`.
    fn enqueue(&mut self, packet: Packet, now: SimTime) -> Verdict;
    /// The next packet to transmit at `now`, or `None` if empty. Packets an AQM drops while
    /// dequeuing are pushed to `dropped` so the face can count them.
    fn dequeue(&mut self, now: SimTime, dropped: &mut Vec<Packet>) -> Option<Dequeued>;
    /// Packets waiting.
    fn len_packets(&self) -> usize;
    /// Bytes waiting.
    fn len_bytes(&self) -> u64;
    /// True while the discipline is in its congested (marking) state. PCON's both-direction
    /// rule marks the PIT entry of an Interest sent on a face whose queue says so.
    fn is_congested(&self) -> bool {
        false
    }
}
