//! Reno-like AIMD with sequence-hole detection (ALGORITHMS.md A2, seed 002 "reno").
//!
//! Growth and timeouts are AIMD's (`AimdState`: slow start, +1/W, Tahoe on a timeout). In
//! addition the consumer reports sequence holes — Data for segment n while a lower segment sent
//! before it is still missing — and each hole is treated as a fast loss signal:
//!
//! ```text
//!   hole:     retransmit it;  every k-th hole: ssthresh = max(2, β·W);  W = ssthresh
//!   timeout:  ssthresh = max(2, β·W);  W = initial_window                  (Tahoe)
//! ```
//!
//! `holes_before_reaction` is k (seed 002 idea 2 suggests 5; 1 is the seed's plain "reno"). The
//! choice made here: **every hole is retransmitted at once** — the missing segment is most likely
//! lost, and waiting for its timer only delays the download — while **only every k-th hole cuts
//! the window**, which is what makes the controller less sensitive. The counter restarts after
//! each k-th hole, also when `one_decrease_per_rtt` suppresses that cut (the holes of one
//! episode are absorbed). With `reduce_on_nack`, a marked or Congestion NACK is a fast loss
//! signal too and is answered like a reacting hole (fast recovery).

use serde::{Deserialize, Serialize};

use crate::cc::window::aimd::{nack_signals_congestion, AimdConfig, AimdState, SlowStartStep, BETA, INITIAL_WINDOW};
use crate::cc::window::law::finite;
use crate::cc::{DataEvent, HoleAction, HoleEvent, LossEvent, NackAction, WindowControl};
use crate::plugin::{check, Check, Plugin};

/// Holes per window cut: 1 reacts to every hole, as seed 002's measured "reno".
pub const HOLES_BEFORE_REACTION: u32 = 1;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RenoHoleConfig {
    /// Window at the start and after a timeout [packets]. Default 1.
    pub initial_window: f64,
    /// Slow-start threshold before the first decrease [packets]. Default: unbounded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh: Option<f64>,
    /// Multiplicative decrease: ssthresh = max(2, beta·W). Default 0.5.
    pub beta: f64,
    /// Slow-start increment per Data ("one" or "interest-over-data"). Default "one".
    pub slow_start_step: SlowStartStep,
    /// Decrease at most once per RTT (recovery point = next_seq). Default false.
    pub one_decrease_per_rtt: bool,
    /// A marked or Congestion NACK decreases like a hole. Default false.
    pub reduce_on_nack: bool,
    /// Cut the window on every k-th detected hole [holes]; all holes are retransmitted. Default 1.
    pub holes_before_reaction: u32,
    /// Retransmit a hole at once (fast retransmit). With false, a hole only cuts the window and
    /// the missing segment waits for its retransmission timer, so a loss costs a halving and
    /// later a timeout. Default true.
    pub retransmit_holes: bool,
}

impl Default for RenoHoleConfig {
    fn default() -> Self {
        RenoHoleConfig {
            initial_window: INITIAL_WINDOW,
            initial_ssthresh: None,
            beta: BETA,
            slow_start_step: SlowStartStep::One,
            one_decrease_per_rtt: false,
            reduce_on_nack: false,
            holes_before_reaction: HOLES_BEFORE_REACTION,
            retransmit_holes: true,
        }
    }
}

impl RenoHoleConfig {
    /// The AIMD part of this configuration (Tahoe timeouts).
    pub fn aimd(&self) -> AimdConfig {
        AimdConfig {
            initial_window: self.initial_window,
            initial_ssthresh: self.initial_ssthresh,
            beta: self.beta,
            slow_start_step: self.slow_start_step,
            one_decrease_per_rtt: self.one_decrease_per_rtt,
            fast_recovery: false,
            reduce_on_nack: self.reduce_on_nack,
        }
    }
}

impl Plugin for RenoHoleConfig {
    type Built = Box<dyn WindowControl>;
    fn validate(&self) -> Check {
        self.aimd().validate()?;
        check::count("holes_before_reaction", u64::from(self.holes_before_reaction), 1, 1_000_000)
    }
    fn build(&self) -> Box<dyn WindowControl> {
        Box::new(RenoHole::new(self))
    }
}

#[derive(Debug)]
pub struct RenoHole {
    state: AimdState,
    holes_before_reaction: u32,
    /// Holes seen since the last reaction.
    holes: u32,
    reduce_on_nack: bool,
    retransmit_holes: bool,
}

impl RenoHole {
    pub fn new(cfg: &RenoHoleConfig) -> RenoHole {
        RenoHole {
            state: AimdState::new(&cfg.aimd()),
            holes_before_reaction: cfg.holes_before_reaction,
            holes: 0,
            reduce_on_nack: cfg.reduce_on_nack,
            retransmit_holes: cfg.retransmit_holes,
        }
    }

    /// Count one hole; true on every k-th (the counter restarts).
    fn count_hole(&mut self) -> bool {
        self.holes += 1;
        if self.holes >= self.holes_before_reaction {
            self.holes = 0;
            true
        } else {
            false
        }
    }
}

impl WindowControl for RenoHole {
    fn name(&self) -> &'static str {
        "reno-hole"
    }
    fn on_data(&mut self, ev: &DataEvent) {
        self.state.grow(ev);
    }
    fn on_timeout(&mut self, ev: &LossEvent) {
        self.state.tahoe(ev.next_seq, ev.highest_received, ev.now);
    }
    fn on_nack(&mut self, ev: &LossEvent) -> NackAction {
        if self.reduce_on_nack && nack_signals_congestion(ev) {
            self.state.fast_recovery(ev.next_seq, ev.highest_received, ev.now);
        }
        NackAction::Retransmit
    }
    fn detects_holes(&self) -> bool {
        true
    }
    fn on_hole(&mut self, ev: &HoleEvent) -> HoleAction {
        if self.count_hole() {
            self.state.fast_recovery(ev.next_seq, ev.highest_received, ev.now);
        }
        if self.retransmit_holes {
            HoleAction::Retransmit
        } else {
            HoleAction::Ignore
        }
    }
    fn window(&self) -> f64 {
        self.state.window
    }
    fn ssthresh(&self) -> Option<f64> {
        finite(self.state.ssthresh)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::window::testkit::{data, hole, nack, timeout};
    use crate::packet::NackReason;

    fn reno(cfg: RenoHoleConfig, window: f64, ssthresh: f64) -> RenoHole {
        let mut r = RenoHole::new(&cfg);
        r.state.window = window;
        r.state.ssthresh = ssthresh;
        r
    }

    #[test]
    fn it_asks_the_consumer_to_detect_holes() {
        assert!(RenoHole::new(&RenoHoleConfig::default()).detects_holes());
    }

    #[test]
    fn growth_is_aimd_growth() {
        let mut r = reno(RenoHoleConfig::default(), 16.0, 16.0);
        r.on_data(&data(0, 1));
        // 16 + 1/16
        assert_eq!(r.window(), 16.0625);
    }

    #[test]
    fn a_hole_is_retransmitted_and_halves_the_window_without_slow_start() {
        let mut r = reno(RenoHoleConfig::default(), 30.0, 64.0);
        assert_eq!(r.on_hole(&hole(0, 12, 10)), HoleAction::Retransmit);
        // ssthresh = max(2, 0.5·30) = 15; W = 15
        assert_eq!((r.window(), r.ssthresh()), (15.0, Some(15.0)));
    }

    #[test]
    fn with_k_five_only_the_fifth_hole_cuts_but_all_five_are_retransmitted() {
        let cfg = RenoHoleConfig { holes_before_reaction: 5, ..Default::default() };
        let mut r = reno(cfg, 40.0, 64.0);
        for h in 0..4 {
            assert_eq!(r.on_hole(&hole(h, 12, h)), HoleAction::Retransmit);
            assert_eq!(r.window(), 40.0);
        }
        assert_eq!(r.on_hole(&hole(4, 12, 4)), HoleAction::Retransmit);
        // 0.5·40 = 20
        assert_eq!(r.window(), 20.0);
    }

    #[test]
    fn the_hole_counter_restarts_after_a_reaction() {
        let cfg = RenoHoleConfig { holes_before_reaction: 2, ..Default::default() };
        let mut r = reno(cfg, 40.0, 64.0);
        r.on_hole(&hole(0, 12, 1));
        r.on_hole(&hole(1, 12, 2)); // 2nd: W = 20
        r.on_hole(&hole(2, 12, 3)); // 1st of the next pair
        assert_eq!(r.window(), 20.0);
        r.on_hole(&hole(3, 12, 4)); // 2nd: W = 10
        assert_eq!(r.window(), 10.0);
    }

    #[test]
    fn a_timeout_is_tahoe() {
        let mut r = reno(RenoHoleConfig::default(), 30.0, 64.0);
        r.on_timeout(&timeout(0, 3));
        assert_eq!((r.window(), r.ssthresh()), (1.0, Some(15.0)));
    }

    #[test]
    fn one_decrease_per_rtt_also_gates_holes() {
        let cfg = RenoHoleConfig { one_decrease_per_rtt: true, ..Default::default() };
        let mut r = reno(cfg, 40.0, 64.0);
        r.on_hole(&hole(0, 12, 10)); // W = 20, p = next_seq = 20
        r.on_hole(&hole(1, 13, 11)); // highest 13 ≤ 20: no cut
        assert_eq!(r.window(), 20.0);
    }

    #[test]
    fn reduce_on_nack_answers_a_congestion_nack_with_fast_recovery() {
        let cfg = RenoHoleConfig { reduce_on_nack: true, ..Default::default() };
        let mut r = reno(cfg, 30.0, 64.0);
        assert_eq!(r.on_nack(&nack(0, 3, NackReason::Congestion, false)), NackAction::Retransmit);
        assert_eq!(r.window(), 15.0);
    }

    #[test]
    fn zero_holes_before_reaction_is_rejected() {
        let cfg = RenoHoleConfig { holes_before_reaction: 0, ..Default::default() };
        assert_eq!(cfg.validate().unwrap_err().to_string(), "holes_before_reaction: must be from 1 to 1000000 (got 0)");
    }

    #[test]
    fn without_hole_retransmission_a_hole_still_halves_but_leaves_the_segment_to_its_timer() {
        let cfg = RenoHoleConfig { retransmit_holes: false, ..Default::default() };
        let mut r = reno(cfg, 20.0, 100.0);
        // Window 20, a hole: ssthresh = max(2, 0.5·20) = 10, window = 10, no retransmission.
        assert_eq!(r.on_hole(&hole(100, 5, 3)), HoleAction::Ignore);
        assert_eq!(r.window(), 10.0);
    }
}
