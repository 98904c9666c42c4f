//! AIMD with slow start, TCP-Tahoe style (ALGORITHMS.md A2, seed 002 "aimd").
//!
//! ```text
//!   Data:     W < ssthresh ? W += step (slow start) : W += 1/W (congestion avoidance)
//!   timeout:  ssthresh = max(2, β·W);  W = initial_window     (Tahoe; RFC 5681 eq. 4 with β = ½)
//! ```
//!
//! Options: `one_decrease_per_rtt` gates decreases with a recovery point (`recovery.rs`, margin 0:
//! decrease only if highest_received > p, then p = next_seq); `fast_recovery` lands on ssthresh
//! instead of the initial window; `reduce_on_nack` also decreases on a NACK that is marked or has
//! reason Congestion; `slow_start_step = "interest-over-data"` is seed 002's idea (1).
//!
//! `AimdState` (slow start, congestion avoidance, the two decreases) is shared with `reno-hole`
//! and `arrival-rate`; `AimdLaw` (+1/W, ×β) with `pcon`.

use serde::{Deserialize, Serialize};

use crate::cc::window::law::{finite, WindowLaw, LOSS_FLOOR};
use crate::cc::window::recovery::RecoveryPoint;
use crate::cc::{DataEvent, LossEvent, NackAction, WindowControl};
use crate::packet::NackReason;
use crate::plugin::{check, Check, Plugin};
use crate::time::SimTime;

/// Multiplicative-decrease factor: RFC 5681 eq. (4), ssthresh = max(FlightSize/2, 2·SMSS).
pub const BETA: f64 = 0.5;
/// Window at the start and after a Tahoe timeout [packets] (seed 002, TCP's loss window).
pub const INITIAL_WINDOW: f64 = 1.0;

/// How much one Data adds to the window in slow start.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum SlowStartStep {
    /// +1 packet per Data: the window doubles every RTT (TCP).
    #[default]
    One,
    /// +interest_size/data_size per Data (seed 002, idea 1): with 40-byte Interests and
    /// 1,024-byte Data, +0.039 per Data, so the window grows ×1.039 per RTT. Above
    /// W = data_size/interest_size this is slower than congestion avoidance's +1/W.
    InterestOverData,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AimdConfig {
    /// Window at the start and after a Tahoe timeout [packets]. Default 1.
    pub initial_window: f64,
    /// Slow-start threshold before the first decrease [packets]. Default: unbounded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh: Option<f64>,
    /// Multiplicative decrease: ssthresh = max(2, beta·W). Default 0.5.
    pub beta: f64,
    /// Slow-start increment per Data. Default "one".
    pub slow_start_step: SlowStartStep,
    /// Decrease at most once per RTT (recovery point = next_seq). Default false.
    pub one_decrease_per_rtt: bool,
    /// On a timeout, set W = ssthresh instead of the initial window. Default false (Tahoe).
    pub fast_recovery: bool,
    /// A marked NACK or a Congestion NACK decreases like a timeout. Default false.
    pub reduce_on_nack: bool,
}

impl Default for AimdConfig {
    fn default() -> Self {
        AimdConfig {
            initial_window: INITIAL_WINDOW,
            initial_ssthresh: None,
            beta: BETA,
            slow_start_step: SlowStartStep::One,
            one_decrease_per_rtt: false,
            fast_recovery: false,
            reduce_on_nack: false,
        }
    }
}

impl Plugin for AimdConfig {
    type Built = Box<dyn WindowControl>;
    fn validate(&self) -> Check {
        check_start(self.initial_window, self.initial_ssthresh)?;
        check::factor("beta", self.beta)
    }
    fn build(&self) -> Box<dyn WindowControl> {
        Box::new(Aimd::new(self))
    }
}

/// The start of every window algorithm: `initial_window` and the optional `initial_ssthresh`.
pub(crate) fn check_start(initial_window: f64, initial_ssthresh: Option<f64>) -> Check {
    check::window("initial_window", initial_window)?;
    match initial_ssthresh {
        Some(s) => check::window("initial_ssthresh", s),
        None => Ok(()),
    }
}

/// Additive increase, multiplicative decrease: +1/W per Data, W → β·W.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AimdLaw {
    pub beta: f64,
}

impl WindowLaw for AimdLaw {
    /// W += 1/W per Data: one packet per RTT (RFC 5681 eq. 3).
    fn increment(&mut self, window: f64, _ev: &DataEvent) -> f64 {
        1.0 / window
    }
    fn on_decrease(&mut self, window: f64, _now: SimTime) -> f64 {
        self.beta * window
    }
}

/// Slow start, congestion avoidance and the Tahoe / fast-recovery decreases.
#[derive(Clone, Debug)]
pub struct AimdState {
    pub window: f64,
    /// `f64::INFINITY` while unbounded.
    pub ssthresh: f64,
    initial_window: f64,
    step: SlowStartStep,
    law: AimdLaw,
    gate: Option<RecoveryPoint>,
}

impl AimdState {
    pub fn new(cfg: &AimdConfig) -> AimdState {
        AimdState {
            window: cfg.initial_window,
            ssthresh: cfg.initial_ssthresh.unwrap_or(f64::INFINITY),
            initial_window: cfg.initial_window,
            step: cfg.slow_start_step,
            law: AimdLaw { beta: cfg.beta },
            gate: cfg.one_decrease_per_rtt.then(|| RecoveryPoint::new(0.0)),
        }
    }

    /// One Data: slow start below ssthresh, congestion avoidance from it.
    pub fn grow(&mut self, ev: &DataEvent) {
        if self.window < self.ssthresh {
            self.window += self.slow_start_increment(ev);
        } else {
            self.window += self.law.increment(self.window, ev);
        }
    }

    /// 1, or interest_size/data_size (seed 002 idea 1).
    fn slow_start_increment(&self, ev: &DataEvent) -> f64 {
        match self.step {
            SlowStartStep::One => 1.0,
            SlowStartStep::InterestOverData => ev.interest_size as f64 / ev.data_size.max(1) as f64,
        }
    }

    /// ssthresh = max(2, β·W), if the recovery point allows; returns whether it did.
    fn reduce_threshold(&mut self, next_seq: u64, highest_received: u64, now: SimTime) -> bool {
        if let Some(gate) = &mut self.gate {
            if !gate.permits(highest_received) {
                return false;
            }
            gate.arm(next_seq, highest_received);
        }
        self.ssthresh = self.law.on_decrease(self.window, now).max(LOSS_FLOOR);
        true
    }

    /// Tahoe: ssthresh = max(2, β·W); W = initial window.
    pub fn tahoe(&mut self, next_seq: u64, highest_received: u64, now: SimTime) -> bool {
        let done = self.reduce_threshold(next_seq, highest_received, now);
        if done {
            self.window = self.initial_window;
        }
        done
    }

    /// Fast recovery: ssthresh = max(2, β·W); W = ssthresh.
    pub fn fast_recovery(&mut self, next_seq: u64, highest_received: u64, now: SimTime) -> bool {
        let done = self.reduce_threshold(next_seq, highest_received, now);
        if done {
            self.window = self.ssthresh;
        }
        done
    }
}

/// Whether a NACK signals congestion: it carries a mark or has reason Congestion.
pub fn nack_signals_congestion(ev: &LossEvent) -> bool {
    ev.marked || ev.nack == Some(NackReason::Congestion)
}

/// The `aimd` controller.
#[derive(Debug)]
pub struct Aimd {
    state: AimdState,
    fast_recovery: bool,
    reduce_on_nack: bool,
}

impl Aimd {
    pub fn new(cfg: &AimdConfig) -> Aimd {
        Aimd { state: AimdState::new(cfg), fast_recovery: cfg.fast_recovery, reduce_on_nack: cfg.reduce_on_nack }
    }

    fn decrease(&mut self, ev: &LossEvent) {
        if self.fast_recovery {
            self.state.fast_recovery(ev.next_seq, ev.highest_received, ev.now);
        } else {
            self.state.tahoe(ev.next_seq, ev.highest_received, ev.now);
        }
    }
}

impl WindowControl for Aimd {
    fn name(&self) -> &'static str {
        "aimd"
    }
    fn on_data(&mut self, ev: &DataEvent) {
        self.state.grow(ev);
    }
    fn on_timeout(&mut self, ev: &LossEvent) {
        self.decrease(ev);
    }
    fn on_nack(&mut self, ev: &LossEvent) -> NackAction {
        if self.reduce_on_nack && nack_signals_congestion(ev) {
            self.decrease(ev);
        }
        NackAction::Retransmit
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
    use crate::cc::window::testkit::{data, nack, timeout};

    fn aimd(cfg: AimdConfig, window: f64, ssthresh: f64) -> Aimd {
        let mut a = Aimd::new(&cfg);
        a.state.window = window;
        a.state.ssthresh = ssthresh;
        a
    }

    #[test]
    fn in_slow_start_a_data_adds_one() {
        let mut a = aimd(AimdConfig::default(), 4.0, 8.0);
        a.on_data(&data(0, 1));
        assert_eq!(a.window(), 5.0);
    }

    #[test]
    fn in_congestion_avoidance_a_data_adds_one_over_the_window() {
        let mut a = aimd(AimdConfig::default(), 8.0, 8.0);
        a.on_data(&data(0, 1));
        // 8 + 1/8
        assert_eq!(a.window(), 8.125);
    }

    #[test]
    fn interest_over_data_slow_start_adds_the_size_ratio() {
        let cfg = AimdConfig { slow_start_step: SlowStartStep::InterestOverData, ..Default::default() };
        let mut a = aimd(cfg, 4.0, 8.0);
        a.on_data(&DataEvent { interest_size: 64, data_size: 1024, ..data(0, 1) });
        // 4 + 64/1024 = 4.0625
        assert_eq!(a.window(), 4.0625);
    }

    #[test]
    fn a_timeout_halves_ssthresh_and_restarts_from_the_initial_window() {
        let mut a = aimd(AimdConfig::default(), 30.0, 64.0);
        a.on_timeout(&timeout(0, 3));
        // ssthresh = max(2, 0.5·30) = 15; W = 1
        assert_eq!((a.window(), a.ssthresh()), (1.0, Some(15.0)));
    }

    #[test]
    fn ssthresh_never_drops_below_two() {
        let mut a = aimd(AimdConfig::default(), 3.0, 64.0);
        a.on_timeout(&timeout(0, 3));
        // 0.5·3 = 1.5 → 2
        assert_eq!(a.ssthresh(), Some(2.0));
    }

    #[test]
    fn fast_recovery_lands_on_the_new_ssthresh() {
        let cfg = AimdConfig { fast_recovery: true, ..Default::default() };
        let mut a = aimd(cfg, 30.0, 64.0);
        a.on_timeout(&timeout(0, 3));
        assert_eq!((a.window(), a.ssthresh()), (15.0, Some(15.0)));
    }

    #[test]
    fn without_the_option_every_timeout_decreases() {
        let mut a = aimd(AimdConfig::default(), 30.0, 64.0);
        a.on_timeout(&timeout(0, 3));
        a.on_timeout(&timeout(1, 4));
        // second: ssthresh = max(2, 0.5·1) = 2
        assert_eq!(a.ssthresh(), Some(2.0));
    }

    #[test]
    fn one_decrease_per_rtt_ignores_timeouts_until_data_passes_the_recovery_point() {
        let cfg = AimdConfig { one_decrease_per_rtt: true, ..Default::default() };
        let mut a = aimd(cfg, 30.0, 64.0);
        a.on_timeout(&timeout(0, 3)); // p = next_seq = 20
        a.on_timeout(&LossEvent { highest_received: 20, ..timeout(1, 4) });
        assert_eq!(a.ssthresh(), Some(15.0));
        a.state.window = 10.0;
        a.on_timeout(&LossEvent { highest_received: 21, ..timeout(2, 5) });
        // 21 > 20: ssthresh = max(2, 0.5·10) = 5
        assert_eq!(a.ssthresh(), Some(5.0));
    }

    #[test]
    fn nacks_are_retransmitted_and_ignored_by_default() {
        let mut a = aimd(AimdConfig::default(), 30.0, 64.0);
        assert_eq!(a.on_nack(&nack(0, 3, NackReason::Congestion, true)), NackAction::Retransmit);
        assert_eq!(a.window(), 30.0);
    }

    #[test]
    fn reduce_on_nack_decreases_on_a_congestion_nack_but_not_on_no_route() {
        let cfg = AimdConfig { reduce_on_nack: true, ..Default::default() };
        let mut a = aimd(cfg, 30.0, 64.0);
        a.on_nack(&nack(0, 3, NackReason::NoRoute, false));
        assert_eq!(a.window(), 30.0);
        a.on_nack(&nack(0, 3, NackReason::Congestion, false));
        assert_eq!((a.window(), a.ssthresh()), (1.0, Some(15.0)));
    }

    #[test]
    fn validation_names_the_offending_key() {
        let cfg = AimdConfig { beta: 1.0, ..Default::default() };
        assert_eq!(cfg.validate().unwrap_err().to_string(), "beta: must be in (0, 1) (got 1)");
    }
}
