//! Growth/decrease laws and the loss-driven controller that runs one.
//!
//! A `WindowLaw` is the part of an algorithm that says how much a congestion-avoidance window
//! grows per Data and where it lands after a congestion event: AIMD (`aimd.rs`), BIC (`bic.rs`)
//! and CUBIC (`cubic.rs`). Controllers add the rest — slow start, which signals count as
//! congestion, how often to react, the window floor. The `bic` and `cubic` controllers are a
//! `LossWindow` around their law; `pcon` runs the same laws on congestion marks.
//!
//! `LossWindow`, per event:
//!
//! ```text
//!   Data:          W < ssthresh ? W += 1 (Reno slow start) : W += law.increment(W)
//!   timeout, or NACK carrying a congestion mark (once per RTT if one_decrease_per_rtt):
//!                  ssthresh = max(2, law.on_decrease(W));  W = ssthresh
//!   any NACK:      retransmit
//! ```
//!
//! A timeout is the NDN consumer's ordinary loss signal (there are no duplicate ACKs), so it is
//! answered like TCP's fast-retransmit loss (multiplicative decrease, no return to slow start),
//! not like an RTO (window 1).

use std::fmt;

use crate::cc::window::recovery::RecoveryPoint;
use crate::cc::{DataEvent, LossEvent, NackAction, WindowControl};
use crate::time::SimTime;

/// Smallest window a loss can leave [packets]: RFC 5681's ssthresh floor of 2 segments.
pub const LOSS_FLOOR: f64 = 2.0;

/// How a congestion-avoidance window grows and shrinks.
pub trait WindowLaw: fmt::Debug + Send {
    /// Window growth caused by one Data in congestion avoidance [packets].
    fn increment(&mut self, window: f64, ev: &DataEvent) -> f64;
    /// The window after a congestion event at `now` [packets], before any floor.
    fn on_decrease(&mut self, window: f64, now: SimTime) -> f64;
    /// The law's own state, as (metric, value), for recording.
    fn metrics(&self, _out: &mut Vec<(&'static str, f64)>) {}
}

/// Slow start and loss handling shared by the loss-driven controllers.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct LossShell {
    /// Window before any Data [packets].
    pub initial_window: f64,
    /// Slow-start threshold before the first loss [packets]; `None` = unbounded.
    pub initial_ssthresh: Option<f64>,
    /// Decrease at most once per RTT (recovery point = next_seq).
    pub one_decrease_per_rtt: bool,
}

/// A loss-driven window controller running `law` (see the module docs).
#[derive(Debug)]
pub struct LossWindow<L> {
    name: &'static str,
    law: L,
    window: f64,
    ssthresh: f64,
    gate: Option<RecoveryPoint>,
}

impl<L: WindowLaw> LossWindow<L> {
    pub fn new(name: &'static str, law: L, shell: &LossShell) -> LossWindow<L> {
        LossWindow {
            name,
            law,
            window: shell.initial_window,
            ssthresh: shell.initial_ssthresh.unwrap_or(f64::INFINITY),
            gate: shell.one_decrease_per_rtt.then(|| RecoveryPoint::new(0.0)),
        }
    }

    /// The law, for inspection.
    pub fn law(&self) -> &L {
        &self.law
    }

    /// Set the window and threshold (to start from a known state).
    pub fn set_state(&mut self, window: f64, ssthresh: f64) {
        self.window = window;
        self.ssthresh = ssthresh;
    }

    /// ssthresh = max(2, law.on_decrease(W)); W = ssthresh — unless the recovery point forbids it.
    fn react(&mut self, ev: &LossEvent) {
        if let Some(gate) = &self.gate {
            if !gate.permits(ev.highest_received) {
                return;
            }
        }
        self.ssthresh = self.law.on_decrease(self.window, ev.now).max(LOSS_FLOOR);
        self.window = self.ssthresh;
        if let Some(gate) = &mut self.gate {
            gate.arm(ev.next_seq, ev.highest_received);
        }
    }
}

impl<L: WindowLaw> WindowControl for LossWindow<L> {
    fn name(&self) -> &'static str {
        self.name
    }
    fn on_data(&mut self, ev: &DataEvent) {
        if self.window < self.ssthresh {
            self.window += 1.0;
        } else {
            self.window += self.law.increment(self.window, ev);
        }
    }
    fn on_timeout(&mut self, ev: &LossEvent) {
        self.react(ev);
    }
    fn on_nack(&mut self, ev: &LossEvent) -> NackAction {
        if ev.marked {
            self.react(ev);
        }
        NackAction::Retransmit
    }
    fn window(&self) -> f64 {
        self.window
    }
    fn ssthresh(&self) -> Option<f64> {
        finite(self.ssthresh)
    }
    fn metrics(&self, out: &mut Vec<(&'static str, f64)>) {
        self.law.metrics(out);
    }
}

/// `Some(x)` if `x` is finite (an unbounded threshold is not recorded).
pub fn finite(x: f64) -> Option<f64> {
    x.is_finite().then_some(x)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::window::testkit::{data, nack, timeout};
    use crate::packet::NackReason;

    /// A stand-in law: +0.25 per Data, decrease to 60 %.
    #[derive(Debug)]
    struct Quarter;
    impl WindowLaw for Quarter {
        fn increment(&mut self, _w: f64, _ev: &DataEvent) -> f64 {
            0.25
        }
        fn on_decrease(&mut self, w: f64, _now: SimTime) -> f64 {
            0.6 * w
        }
    }

    fn shell(one_per_rtt: bool) -> LossWindow<Quarter> {
        let s = LossShell { initial_window: 1.0, initial_ssthresh: None, one_decrease_per_rtt: one_per_rtt };
        LossWindow::new("test", Quarter, &s)
    }

    #[test]
    fn below_ssthresh_a_data_adds_one() {
        let mut c = shell(true);
        c.set_state(4.0, 10.0);
        c.on_data(&data(0, 1));
        assert_eq!(c.window(), 5.0);
    }

    #[test]
    fn at_ssthresh_a_data_adds_the_law_increment() {
        let mut c = shell(true);
        c.set_state(10.0, 10.0);
        c.on_data(&data(0, 1));
        // 10 + 0.25
        assert_eq!(c.window(), 10.25);
    }

    #[test]
    fn a_timeout_sets_window_and_ssthresh_to_the_law_decrease() {
        let mut c = shell(true);
        c.set_state(20.0, 30.0);
        c.on_timeout(&timeout(0, 3));
        // 0.6 · 20 = 12
        assert_eq!((c.window(), c.ssthresh()), (12.0, Some(12.0)));
    }

    #[test]
    fn a_decrease_never_goes_below_two() {
        let mut c = shell(false);
        c.set_state(3.0, 30.0);
        c.on_timeout(&timeout(0, 3));
        // 0.6 · 3 = 1.8 → floor 2
        assert_eq!(c.window(), 2.0);
    }

    #[test]
    fn a_second_timeout_in_the_same_rtt_is_ignored() {
        let mut c = shell(true);
        c.set_state(20.0, 30.0);
        c.on_timeout(&timeout(0, 3)); // arms p = next_seq = 20
        c.on_timeout(&timeout(1, 4)); // highest received 9 ≤ 20
        assert_eq!(c.window(), 12.0);
    }

    #[test]
    fn without_the_gate_each_timeout_decreases() {
        let mut c = shell(false);
        c.set_state(20.0, 30.0);
        c.on_timeout(&timeout(0, 3));
        c.on_timeout(&timeout(1, 4));
        // 20 · 0.6 · 0.6 = 7.2
        assert!((c.window() - 7.2).abs() < 1e-12);
    }

    #[test]
    fn a_marked_nack_decreases_and_asks_for_a_retransmission() {
        let mut c = shell(true);
        c.set_state(20.0, 30.0);
        assert_eq!(c.on_nack(&nack(0, 3, NackReason::LinkLoss, true)), NackAction::Retransmit);
        assert_eq!(c.window(), 12.0);
    }

    #[test]
    fn an_unmarked_nack_only_asks_for_a_retransmission() {
        let mut c = shell(true);
        c.set_state(20.0, 30.0);
        assert_eq!(c.on_nack(&nack(0, 3, NackReason::Congestion, false)), NackAction::Retransmit);
        assert_eq!(c.window(), 20.0);
    }
}
