//! The packet tap: one seam that sees every packet event on every face. The world updates the
//! face counters from it, and an optional observer (a packet trace writer, a test) sees the same
//! events; with no observer the tap costs one branch per event.
//!
//! ```text
//!  node ─▶ [Enqueue | Drop(Shaper) | Drop(Queue)] ─▶ queue ─▶ [Drop(Aqm)] ─▶ [Transmit]
//!       ─▶ [Drop(Loss) | Drop(Underlay)] ─▶ link ─▶ [Arrive] at the peer face
//! ```

use crate::ids::FaceId;
use crate::packet::Packet;
use crate::time::SimTime;

/// Why a packet was dropped on a face.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum DropCause {
    /// The Interest shaper in front of the queue was full.
    Shaper,
    /// Tail drop: the queue was full.
    Queue,
    /// An AQM (CoDel) dropped it while dequeuing.
    Aqm,
    /// Lost on the wire (loss model).
    Loss,
    /// The hidden underlay's FIFO was full.
    Underlay,
    /// The link was down: the packet was queued or on the wire as it failed, or sent to it
    /// while it was down.
    LinkDown,
}

impl DropCause {
    pub fn as_str(self) -> &'static str {
        match self {
            DropCause::Shaper => "shaper",
            DropCause::Queue => "queue",
            DropCause::Aqm => "aqm",
            DropCause::Loss => "loss",
            DropCause::Underlay => "underlay",
            DropCause::LinkDown => "link_down",
        }
    }
}

/// Where on a face a packet event happened.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum TapPoint {
    /// Accepted into the face's queue.
    Enqueue,
    /// Dropped on the transmit side of the face.
    Drop(DropCause),
    /// Put on the wire (serialisation starts now); a packet lost on the wire was still sent.
    Transmit,
    /// Received from the link by this face (the receiving end).
    Arrive,
}

/// An observer of packet events. `face` is the transmitting face for every point but
/// `Arrive`, where it is the receiving one.
pub trait PacketTap: Send {
    fn on_packet(&mut self, now: SimTime, face: FaceId, point: TapPoint, packet: &Packet);
}

/// A tap that keeps every event in memory (tests, small traces).
#[derive(Default)]
pub struct TapLog {
    pub events: Vec<(SimTime, FaceId, TapPoint, Packet)>,
}

impl PacketTap for TapLog {
    fn on_packet(&mut self, now: SimTime, face: FaceId, point: TapPoint, packet: &Packet) {
        self.events.push((now, face, point, *packet));
    }
}

/// A tap shared with the caller: the world owns one handle, the caller keeps another.
impl<T: PacketTap> PacketTap for std::sync::Arc<std::sync::Mutex<T>> {
    fn on_packet(&mut self, now: SimTime, face: FaceId, point: TapPoint, packet: &Packet) {
        if let Ok(mut t) = self.lock() {
            t.on_packet(now, face, point, packet);
        }
    }
}
