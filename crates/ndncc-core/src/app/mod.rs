//! Applications: producers and consumers attached to a node by an application face.
//!
//! An application never calls the forwarder directly: it pushes packets into `AppCtx::out`,
//! which the world hands to the node after the hook returns, and it asks for its next wake-up
//! with `AppCtx::wake_at`. On a node with a coarse clock, wake-ups land on the next tick edge.

pub mod arrivals;
pub mod catalogue;
pub mod consumer;
pub mod mcast;
pub mod producer;
pub mod tcp;
pub mod udp;

pub use consumer::{ConsumerParams, Controller, RateConsumer, WindowConsumer};
pub use producer::{Producer, ProducerParams};

use crate::names::NameTable;
use crate::packet::Packet;
use crate::recorder::{Recorder, SummaryRow};
use crate::time::SimTime;

/// What an application hook may use.
pub struct AppCtx<'a> {
    pub now: SimTime,
    /// Packets to hand to the node, in order.
    pub out: &'a mut Vec<Packet>,
    pub recorder: &'a mut Recorder,
    /// The world's names, for applications that size packets by their real encoding; `None`
    /// outside a world (unit tests), where they fall back to their fixed sizes.
    pub names: Option<&'a NameTable>,
    wake: Option<SimTime>,
}

impl<'a> AppCtx<'a> {
    pub fn new(now: SimTime, out: &'a mut Vec<Packet>, recorder: &'a mut Recorder) -> AppCtx<'a> {
        AppCtx { now, out, recorder, names: None, wake: None }
    }
    /// The same context with the world's names.
    pub fn with_names(self, names: &'a NameTable) -> AppCtx<'a> {
        AppCtx { names: Some(names), ..self }
    }
    /// Ask to be woken at `t` (or the next clock tick after it). Wake-ups may be spurious: an
    /// application re-asks for its next one every time it runs.
    pub fn wake_at(&mut self, t: SimTime) {
        self.wake = Some(self.wake.map_or(t, |w| w.min(t)));
    }
    pub fn requested_wake(&self) -> Option<SimTime> {
        self.wake
    }
    pub fn send(&mut self, p: Packet) {
        self.out.push(p);
    }
}

/// Packet accounting of a consumer: every Interest transmission ends as exactly one of these.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Conservation {
    pub sent: u64,
    pub answered_by_data: u64,
    pub ended_by_nack: u64,
    /// Transmissions the consumer gave up on as sequence holes (and resent).
    pub ended_by_hole: u64,
    /// Interests a rate consumer's policer dropped before they reached the network.
    pub ended_by_policer: u64,
    pub timed_out: u64,
    pub in_flight: u64,
}

impl Conservation {
    pub fn holds(&self) -> bool {
        self.sent
            == self.answered_by_data
                + self.ended_by_nack
                + self.ended_by_hole
                + self.ended_by_policer
                + self.timed_out
                + self.in_flight
    }
}

pub trait Application: Send {
    /// The application starts (at its configured start time).
    fn on_start(&mut self, ctx: &mut AppCtx);
    /// The application stops sending (at its configured stop time).
    fn on_stop(&mut self, _ctx: &mut AppCtx) {}
    /// A packet arrived from the node.
    fn on_packet(&mut self, ctx: &mut AppCtx, packet: &Packet);
    /// A requested wake-up (possibly spurious).
    fn on_wake(&mut self, _ctx: &mut AppCtx) {}
    /// Record fixed-interval samples.
    fn sample(&self, _now: SimTime, _recorder: &mut Recorder) {}
    /// Per-run summary rows.
    fn summary(&self, end: SimTime, out: &mut Vec<SummaryRow>);
    /// Consumers report their Interest accounting.
    fn conservation(&self) -> Option<Conservation> {
        None
    }
}
