//! Congestion controllers: the consumer's window or rate, one algorithm per file.
//!
//! The consumer application owns sequencing, timers and retransmissions; a controller only
//! decides how much may be in flight (`WindowControl`) or how fast to send (`RateControl`).
//! Every hook gets `now` inside its event; controllers never read a clock.

pub mod external;
pub mod rate;
pub mod tcp;
pub mod window;

use crate::packet::NackReason;
use crate::time::{SimDuration, SimTime};

/// An Interest (first transmission or retransmission) just left the consumer.
#[derive(Clone, Copy, Debug)]
pub struct SentEvent {
    pub now: SimTime,
    pub seq: u64,
    pub retransmission: bool,
    /// Interests in flight after this one was sent.
    pub in_flight: u32,
}

/// A Data arrived for an outstanding Interest.
#[derive(Clone, Copy, Debug)]
pub struct DataEvent {
    pub now: SimTime,
    pub seq: u64,
    /// RTT sample; `None` when the Interest had been retransmitted (Karn's rule).
    pub rtt: Option<SimDuration>,
    /// The estimator's smoothed RTT after this sample (if any sample has been taken).
    pub srtt: Option<SimDuration>,
    /// The Data carried a congestion mark.
    pub marked: bool,
    /// MIRCC rate stamp carried by the Data [Interests/s]; infinite when unset.
    pub rate_stamp: f64,
    /// Next never-sent segment number (highest requested + 1).
    pub next_seq: u64,
    /// Highest segment number received so far, this one included.
    pub highest_received: u64,
    /// Interests still in flight after this Data.
    pub in_flight: u32,
    /// Size of this Data [bytes] and of the consumer's Interests [bytes].
    pub data_size: u32,
    pub interest_size: u32,
    /// The Data's route label (`Packet::route`): which path it came back on.
    pub route: u8,
}

/// A loss signal: a timeout or a NACK for segment `seq`.
#[derive(Clone, Copy, Debug)]
pub struct LossEvent {
    pub now: SimTime,
    pub seq: u64,
    /// `Some` for a NACK.
    pub nack: Option<NackReason>,
    /// The NACK carried a congestion mark.
    pub marked: bool,
    pub next_seq: u64,
    pub highest_received: u64,
    pub in_flight: u32,
    pub srtt: Option<SimDuration>,
}

/// A sequence hole: Data arrived for `seq` while the lower segment `hole`, sent before it,
/// is still missing.
#[derive(Clone, Copy, Debug)]
pub struct HoleEvent {
    pub now: SimTime,
    pub seq: u64,
    pub hole: u64,
    pub next_seq: u64,
    pub highest_received: u64,
    pub in_flight: u32,
}

/// What the consumer should do about a NACK.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NackAction {
    /// Retransmit the segment now (ahead of new segments).
    Retransmit,
    /// Do nothing; the segment's timer will eventually fire (ndnSIM's stock consumers).
    Ignore,
}

/// What the consumer should do about a hole.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum HoleAction {
    /// Retransmit the missing segment now.
    Retransmit,
    /// Leave it; its timer still runs.
    Ignore,
}

/// A consumer's congestion window, in Interests.
pub trait WindowControl: Send {
    /// Short stable name, e.g. `"aimd"`.
    fn name(&self) -> &'static str;
    fn on_interest_sent(&mut self, _ev: &SentEvent) {}
    fn on_data(&mut self, ev: &DataEvent);
    fn on_timeout(&mut self, ev: &LossEvent);
    /// Default: retransmit and leave the window alone.
    fn on_nack(&mut self, _ev: &LossEvent) -> NackAction {
        NackAction::Retransmit
    }
    /// Whether the consumer should look for sequence holes and call `on_hole`.
    fn detects_holes(&self) -> bool {
        false
    }
    fn on_hole(&mut self, _ev: &HoleEvent) -> HoleAction {
        HoleAction::Ignore
    }
    /// Interests allowed in flight. The consumer sends while `in_flight < floor(window())`
    /// (and at least one when nothing is in flight). It changes only in the hooks above, never
    /// with time alone: between hooks a consumer's wake-ups rely on it staying put.
    fn window(&self) -> f64;
    /// Slow-start threshold, if the algorithm has one (recorded as a series).
    fn ssthresh(&self) -> Option<f64> {
        None
    }
    /// The controller's own state, recorded every sampling interval as (metric, value):
    /// CUBIC's K and W_max, say.
    fn metrics(&self, _out: &mut Vec<(&'static str, f64)>) {}
    /// Whether `metrics` reads only state the hooks above change (true of every built-in
    /// controller): the consumer's samples are then repeated, unread, while no hook ran.
    fn metrics_change_only_in_hooks(&self) -> bool {
        true
    }
    /// The controller's own random stream, given once by the consumer before the run (for
    /// probabilistic decisions such as RAAQM's). Default: not needed.
    fn use_rng(&mut self, _rng: crate::rng::SimRng) {}
}

/// A consumer's (or source's) sending rate, in Interests per second.
pub trait RateControl: Send {
    fn name(&self) -> &'static str;
    fn on_data(&mut self, _ev: &DataEvent) {}
    fn on_timeout(&mut self, _ev: &LossEvent) {}
    fn on_nack(&mut self, _ev: &LossEvent) -> NackAction {
        NackAction::Ignore
    }
    /// Current sending rate [Interests/s]. It changes only in the hooks above, never with time
    /// alone: credit accrues at the rate in force until a hook changes it.
    fn rate(&self) -> f64;
    /// The controller's own state, recorded every sampling interval as (metric, value).
    fn metrics(&self, _out: &mut Vec<(&'static str, f64)>) {}
    /// Whether `metrics` reads only state the hooks above change (see `WindowControl`).
    fn metrics_change_only_in_hooks(&self) -> bool {
        true
    }
}
