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

use serde::{Deserialize, Serialize};

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

/// `queue = { type = "...", ... }` on a link direction: which discipline and its parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub enum QueueConfig {
    /// FIFO with tail drop. Exactly one of `packets` / `bytes`.
    Droptail(DropTailConfig),
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DropTailConfig {
    /// Capacity in packets (default 100).
    pub packets: Option<usize>,
    /// Capacity in bytes; use instead of `packets`.
    pub bytes: Option<crate::units::Bytes>,
}

impl Default for DropTailConfig {
    fn default() -> Self {
        DropTailConfig { packets: Some(100), bytes: None }
    }
}

impl DropTailConfig {
    pub fn limit(&self) -> Result<Limit, String> {
        match (self.packets, self.bytes) {
            (Some(_), Some(_)) => Err("give the queue limit as `packets` or `bytes`, not both".into()),
            (None, Some(b)) if b.0 > 0 => Ok(Limit::Bytes(b.0)),
            (Some(p), None) if p > 0 => Ok(Limit::Packets(p)),
            (None, None) => Ok(Limit::Packets(100)),
            _ => Err("queue limit must be > 0".into()),
        }
    }
}

impl Default for QueueConfig {
    fn default() -> Self {
        QueueConfig::Droptail(DropTailConfig::default())
    }
}

/// A queue discipline chosen at build time. Built-ins are dispatched statically; `Custom` holds
/// a user plug-in behind the trait object.
pub enum AnyQueue {
    DropTail(DropTail),
    Custom(Box<dyn QueueDisc>),
}

impl QueueConfig {
    pub fn validate(&self) -> Result<(), String> {
        match self {
            QueueConfig::Droptail(c) => c.limit().map(|_| ()),
        }
    }
    pub fn build(&self) -> Result<AnyQueue, String> {
        Ok(match self {
            QueueConfig::Droptail(c) => AnyQueue::DropTail(DropTail::new(c.limit()?)),
        })
    }
    pub fn kind(&self) -> &'static str {
        match self {
            QueueConfig::Droptail(_) => "droptail",
        }
    }
}

macro_rules! dispatch {
    ($self:ident, $q:ident => $e:expr) => {
        match $self {
            AnyQueue::DropTail($q) => $e,
            AnyQueue::Custom($q) => $e,
        }
    };
}

impl QueueDisc for AnyQueue {
    #[inline]
    fn enqueue(&mut self, packet: Packet, now: SimTime) -> Verdict {
        dispatch!(self, q => q.enqueue(packet, now))
    }
    #[inline]
    fn dequeue(&mut self, now: SimTime, dropped: &mut Vec<Packet>) -> Option<Dequeued> {
        dispatch!(self, q => q.dequeue(now, dropped))
    }
    #[inline]
    fn len_packets(&self) -> usize {
        dispatch!(self, q => q.len_packets())
    }
    #[inline]
    fn len_bytes(&self) -> u64 {
        dispatch!(self, q => q.len_bytes())
    }
    #[inline]
    fn is_congested(&self) -> bool {
        dispatch!(self, q => q.is_congested())
    }
}
