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

use crate::ctx::WakeRequest;
use crate::names::NameTable;
use crate::packet::Packet;
use crate::recorder::{Recorder, SummaryRow};
use crate::time::{SimDuration, SimTime};

/// What an application hook may use.
pub struct AppCtx<'a> {
    pub now: SimTime,
    /// Packets to hand to the node, in order.
    pub out: &'a mut Vec<Packet>,
    pub recorder: &'a mut Recorder,
    /// The world's names, for applications that size packets by their real encoding; `None`
    /// outside a world (unit tests), where they fall back to their fixed sizes.
    pub names: Option<&'a NameTable>,
    wake: WakeRequest,
    idle: Option<IdlePolls>,
}

impl<'a> AppCtx<'a> {
    pub fn new(now: SimTime, out: &'a mut Vec<Packet>, recorder: &'a mut Recorder) -> AppCtx<'a> {
        AppCtx { now, out, recorder, names: None, wake: WakeRequest::default(), idle: None }
    }
    /// The same context with the world's names.
    pub fn with_names(self, names: &'a NameTable) -> AppCtx<'a> {
        AppCtx { names: Some(names), ..self }
    }
    /// Ask to be woken at `t` (or the next clock tick after it). Wake-ups may be spurious: an
    /// application re-asks for its next one every time it runs.
    pub fn wake_at(&mut self, t: SimTime) {
        self.wake.at(t);
    }
    pub fn requested_wake(&self) -> Option<SimTime> {
        self.wake.get()
    }
    /// Promise, as the hook returns, that wake-ups before `idle.until` are idle polls (see
    /// [`IdlePolls`]). A hook that does not promise it again withdraws it.
    pub fn promise_idle_polls(&mut self, idle: IdlePolls) {
        self.idle = Some(idle);
    }
    pub fn promised_idle_polls(&self) -> Option<IdlePolls> {
        self.idle
    }
    pub fn send(&mut self, p: Packet) {
        self.out.push(p);
    }
}

/// An application's promise that until `until` every wake-up is a timer poll that finds nothing
/// due: all it does is move its poll clock on (`next_poll`, every `period`) and ask to be woken
/// at the next poll. The world then runs such a wake-up itself, exactly as the application
/// would, without reading the application's state: with many consumers most wake-ups are these
/// polls, and each would otherwise read a consumer's cold memory to find nothing to do. Before
/// the application's next hook the world hands it the poll clock back
/// ([`Application::resume_polls`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct IdlePolls {
    /// The first time a poll may find something to do (exclusive bound of the promise).
    pub until: SimTime,
    pub next_poll: SimTime,
    /// Poll period, above zero.
    pub period: SimDuration,
}

impl IdlePolls {
    /// Run an idle poll at `now` (before `until`): move the poll clock on and return when to be
    /// woken next.
    pub fn poll(&mut self, now: SimTime) -> SimTime {
        debug_assert!(now < self.until, "a poll the promise does not cover");
        self.next_poll = next_poll_after(self.next_poll, self.period, now);
        self.next_poll.max(now)
    }
}

/// A poll clock standing at `next`, ticking every `period` (above zero), after a poll at `now`:
/// unchanged when the poll came early, else the first tick after `now`.
pub fn next_poll_after(next: SimTime, period: SimDuration, now: SimTime) -> SimTime {
    if now < next || period == SimDuration::ZERO {
        return next;
    }
    // The first tick `next + k·period` past `now`, k ≥ 1 (ticks saturate at the end of time).
    // Mostly the poll is on its tick, and k is 1 without a division (tens of cycles, a few
    // times per packet hop in a world of many consumers).
    let since = (now - next).nanos();
    if since < period.nanos() {
        // No multiply either: with 10,000 consumers its latency was a twentieth of a poll's.
        return next + period;
    }
    next + period.saturating_mul(since / period.nanos() + 1)
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
    /// The world ran idle polls on the application's behalf ([`IdlePolls`]); its poll clock now
    /// stands at `next_poll`. Called before its next hook.
    fn resume_polls(&mut self, _next_poll: SimTime) {}
    /// Record fixed-interval samples.
    fn sample(&self, _now: SimTime, _recorder: &mut Recorder) {}
    /// Whether `sample` records only what the application's hooks change, nothing that moves
    /// with time alone (nor with `now`), and only with `Recorder::sample`. The world then
    /// repeats the rows of its last sample, without reading the application, while none of its
    /// hooks ran. Default: false.
    fn samples_change_only_in_hooks(&self) -> bool {
        false
    }
    /// Per-run summary rows.
    fn summary(&self, end: SimTime, out: &mut Vec<SummaryRow>);
    /// Consumers report their Interest accounting.
    fn conservation(&self) -> Option<Conservation> {
        None
    }
    /// Consumers keep at most `limit` Interests in flight (see `Scenario::in_flight_limit`);
    /// other applications ignore it.
    fn limit_in_flight(&mut self, _limit: usize) {}
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    /// The poll clock as consumers always moved it: one period at a time.
    fn stepped(mut next: SimTime, period: SimDuration, now: SimTime) -> SimTime {
        if period > SimDuration::ZERO {
            while next <= now {
                next += period;
            }
        }
        next
    }

    proptest! {
        #[test]
        fn the_poll_clock_moves_to_the_first_tick_after_the_poll(
            next in 0u64..10_000, period in 0u64..500, since in 0u64..20_000,
        ) {
            let (next, period) = (SimTime(next), SimDuration::from_nanos(period));
            let now = SimTime(since);
            prop_assert_eq!(next_poll_after(next, period, now), stepped(next, period, now));
        }
    }

    #[test]
    fn an_idle_poll_asks_for_the_next_tick_and_ticks_saturate_at_the_end_of_time() {
        let mut idle =
            IdlePolls { until: SimTime(1_000), next_poll: SimTime(100), period: SimDuration::from_nanos(50) };
        assert_eq!(idle.poll(SimTime(60)), SimTime(100), "an early poll leaves the clock");
        assert_eq!(idle.poll(SimTime(100)), SimTime(150));
        assert_eq!(idle.poll(SimTime(420)), SimTime(450));
        assert_eq!(idle.next_poll, SimTime(450));
        let (half, late) = (SimDuration::from_nanos(u64::MAX / 2), SimTime(u64::MAX - 1));
        assert_eq!(next_poll_after(SimTime(5), half, late), SimTime(u64::MAX));
        assert_eq!(stepped(SimTime(5), half, late), SimTime(u64::MAX));
    }
}
