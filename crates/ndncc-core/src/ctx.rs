//! What the contexts of the plug-in hooks share: `AppCtx` (applications), `ModuleCtx` (router
//! modules) and `LinkCtx` (link services).
//!
//! A hook never acts on the world directly. It asks, through its context, for packets to be
//! sent or handed to the node ([`NodeAction`]) and to be woken ([`WakeRequest`]); the engine
//! carries these out once the hook returns. Each component keeps its pending wake-up in a
//! [`WakeSlot`], which tells the wake-up event still wanted from those superseded since.

use crate::ids::FaceId;
use crate::packet::{NackReason, Packet};
use crate::time::SimTime;

/// Something a router component asks its node to do once its hook returns. The world carries
/// these out in order, after the hook, never by a nested call.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum NodeAction {
    /// Put `packet` on `face`: through the face's link service and queue onto its link, or to
    /// the application on an application face. It bypasses the forwarder.
    Send { face: FaceId, packet: Packet },
    /// Hand `packet` to the node's forwarding as if it had arrived on `face`.
    Receive { face: FaceId, packet: Packet },
    /// An Interest that a module held (`InterestVerdict::Hold`) for `face` is refused: the
    /// forwarder handles it as a NACK with `reason` from that face.
    Refuse { face: FaceId, interest: Packet, reason: NackReason },
}

/// The wake-up a hook asks for: only the earliest of its requests counts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WakeRequest(Option<SimTime>);

impl WakeRequest {
    /// Ask to be woken at `t` (or earlier, if asked for earlier already).
    #[inline]
    pub fn at(&mut self, t: SimTime) {
        self.0 = Some(self.0.map_or(t, |w| w.min(t)));
    }
    /// The earliest time asked for, if any.
    #[inline]
    pub fn get(&self) -> Option<SimTime> {
        self.0
    }
}

/// A component's pending wake-up. Wake-up events are cancelled lazily: each carries the
/// generation it was scheduled under, and only the event of the current generation is wanted.
///
/// Kept to 16 bytes (no `Option<SimTime>`): it sits in every module's slot. (An app's waker
/// keeps the same three fields in a layout of its own, `world::engine::AppWaker`.)
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct WakeSlot {
    at: SimTime,
    gen: u32,
    pending: bool,
}

impl WakeSlot {
    /// The time of the pending wake-up, if one is pending.
    #[inline]
    pub fn pending(&self) -> Option<SimTime> {
        self.pending.then_some(self.at)
    }
    /// Wake at `t` unless a wake-up at or before `t` is pending: the generation to schedule the
    /// wake-up event under, or `None` when none is to be scheduled.
    #[inline]
    pub fn request(&mut self, t: SimTime) -> Option<u32> {
        if self.pending && self.at <= t {
            return None;
        }
        self.gen = self.gen.wrapping_add(1);
        (self.at, self.pending) = (t, true);
        Some(self.gen)
    }
    /// The wake-up event of generation `gen` is not the one wanted (a later request replaced it).
    #[inline]
    pub fn is_stale(&self, gen: u32) -> bool {
        self.gen != gen
    }
    /// The wake-up event of generation `gen` is due: true (and nothing pending any more) when it
    /// is the one wanted, false for a stale one.
    #[inline]
    pub fn fire(&mut self, gen: u32) -> bool {
        if self.gen != gen {
            return false;
        }
        self.pending = false;
        true
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_wake_request_keeps_the_earliest_time() {
        let mut w = WakeRequest::default();
        assert_eq!(w.get(), None);
        w.at(SimTime(5));
        w.at(SimTime(9));
        w.at(SimTime(3));
        assert_eq!(w.get(), Some(SimTime(3)));
    }

    #[test]
    fn a_later_request_is_covered_by_the_pending_wake_up() {
        let mut s = WakeSlot::default();
        let first = s.request(SimTime(10));
        assert_eq!(first, Some(1));
        assert_eq!(s.request(SimTime(10)), None);
        assert_eq!(s.request(SimTime(20)), None);
        assert_eq!(s.pending(), Some(SimTime(10)));
    }

    #[test]
    fn an_earlier_request_makes_the_pending_event_stale() {
        let mut s = WakeSlot::default();
        let old = s.request(SimTime(10)).expect("scheduled");
        let new = s.request(SimTime(4)).expect("scheduled sooner");
        assert!(!s.fire(old), "the superseded event is stale");
        assert!(s.fire(new));
        assert_eq!(s.pending(), None);
        // Once fired, any time may be asked for again.
        assert_eq!(s.request(SimTime(30)), Some(new + 1));
    }

    #[test]
    fn a_wake_slot_is_16_bytes() {
        assert_eq!(std::mem::size_of::<WakeSlot>(), 16);
    }
}
