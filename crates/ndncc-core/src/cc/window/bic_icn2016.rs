//! The BIC of the original PCON consumer (Schneider et al., ACM ICN 2016; the authors' ndnSIM
//! `ConsumerCC`, apps/ndn-consumer-pcon.cpp), which differs from Linux BIC (`bic.rs`): it keeps
//! a target between the last minimum and maximum instead of counting Data per increase, has no
//! creeping near W_max, and probes beyond it by doubling steps.
//!
//! State: W_max (∞ until the first decrease), W_min, the target T, and a probing phase with a
//! step s and a step target S.
//!
//! ```text
//!   Data, W < low_window:          W += 1/W              (slow start below low_window is the
//!                                                         controller's: initial_ssthresh)
//!   Data, searching:               W += (T − W)/W if T − W < S_max, else S_max/W
//!                                  then if W < W_max: W_min = W, T = (W_max + W_min)/2
//!                                  else: start probing: s = 1, S = W + 1, W_max = ∞
//!   Data, probing:                 W += s/W; if W ≥ S: s = 2s, S = W + s;
//!                                  once s ≥ S_max: back to searching
//!   decrease, W ≥ low_window:      W_max = W, W = β·W, W_min = W,
//!                                  W_max = (W_max + W_min)/2 if the previous W_max was larger
//!                                  (fast convergence, always on), T = (W_max + W_min)/2
//!   decrease, W < low_window:      W = β·W
//! ```
//!
//! As in that code: "W < W_max" allows 1e-5 packets of rounding; T starts at 0, so the first
//! Data above low_window moves W by (0 − W)/W = −1 packet before T becomes (∞ + W)/2 = ∞; and a
//! decrease during probing leaves the probing phase running. Defaults are that code's: β 0.5
//! (the `BETA` attribute), low_window 14 and S_max 16 (`LOW_WINDOW`, `MAX_INCREMENT`).

use crate::cc::window::law::WindowLaw;
use crate::cc::DataEvent;
use crate::time::SimTime;

/// Decrease factor β (ConsumerCC's `BETA` attribute).
pub const BETA: f64 = 0.5;
/// Below this window the law adds 1/W per Data [packets] (`LOW_WINDOW`).
pub const LOW_WINDOW: f64 = 14.0;
/// Largest step of the search and of the probing [packets] (`MAX_INCREMENT`).
pub const MAX_INCREMENT: f64 = 16.0;
/// Rounding allowed in "W < W_max" [packets].
const EPSILON: f64 = 1e-5;

/// The law's parameters.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BicIcn2016Params {
    pub beta: f64,
    pub low_window: f64,
    pub max_increment: f64,
}

impl Default for BicIcn2016Params {
    fn default() -> Self {
        BicIcn2016Params { beta: BETA, low_window: LOW_WINDOW, max_increment: MAX_INCREMENT }
    }
}

/// The original PCON consumer's BIC (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct BicIcn2016Law {
    p: BicIcn2016Params,
    w_max: f64,
    w_min: f64,
    target: f64,
    probing: bool,
    step: f64,
    step_target: f64,
}

impl BicIcn2016Law {
    pub fn new(p: BicIcn2016Params) -> BicIcn2016Law {
        BicIcn2016Law { p, w_max: f64::INFINITY, w_min: 0.0, target: 0.0, probing: false, step: 0.0, step_target: 0.0 }
    }

    /// (W_max, target); W_max is ∞ until the first decrease and while probing.
    pub fn search(&self) -> (f64, f64) {
        (self.w_max, self.target)
    }

    /// Whether the law is probing beyond W_max.
    pub fn probing(&self) -> bool {
        self.probing
    }
}

impl WindowLaw for BicIcn2016Law {
    fn increment(&mut self, window: f64, _ev: &DataEvent) -> f64 {
        if window < self.p.low_window {
            return 1.0 / window;
        }
        if !self.probing {
            let gap = self.target - window;
            let inc = if gap < self.p.max_increment { gap / window } else { self.p.max_increment / window };
            let w = window + inc;
            if w + EPSILON < self.w_max {
                self.w_min = w;
                self.target = (self.w_max + self.w_min) / 2.0;
            } else {
                self.probing = true;
                self.step = 1.0;
                self.step_target = w + 1.0;
                self.w_max = f64::INFINITY;
            }
            return inc;
        }
        let inc = self.step / window;
        let w = window + inc;
        if w >= self.step_target {
            self.step *= 2.0;
            self.step_target = w + self.step;
        }
        if self.step >= self.p.max_increment {
            self.probing = false;
        }
        inc
    }

    fn on_decrease(&mut self, window: f64, _now: SimTime) -> f64 {
        let w = self.p.beta * window;
        if window >= self.p.low_window {
            let previous = self.w_max;
            self.w_max = window;
            self.w_min = w;
            if previous > self.w_max {
                self.w_max = (self.w_max + self.w_min) / 2.0;
            }
            self.target = (self.w_max + self.w_min) / 2.0;
        }
        w
    }

    /// `w_max` [packets] while it is finite.
    fn metrics(&self, out: &mut Vec<(&'static str, f64)>) {
        if self.w_max.is_finite() {
            out.push(("w_max", self.w_max));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::window::testkit::data;

    fn law() -> BicIcn2016Law {
        BicIcn2016Law::new(BicIcn2016Params::default())
    }

    #[test]
    fn below_low_window_it_adds_one_over_the_window() {
        assert_eq!(law().increment(10.0, &data(0, 1)), 0.1);
    }

    #[test]
    fn the_first_data_above_low_window_steps_back_one_then_grows_by_s_max_per_rtt() {
        let mut l = law();
        // T = 0: (0 − 20)/20 = −1; then W_min = 19, T = (∞ + 19)/2 = ∞.
        assert_eq!(l.increment(20.0, &data(0, 1)), -1.0);
        assert_eq!(l.search(), (f64::INFINITY, f64::INFINITY));
        // T − W = ∞ ≥ 16: 16/19.
        assert_eq!(l.increment(19.0, &data(1, 2)), 16.0 / 19.0);
    }

    #[test]
    fn a_decrease_halves_and_fast_convergence_lowers_w_max_from_infinity() {
        let mut l = law();
        // W = 100: W' = 50; previous W_max ∞ > 100, so W_max = (100 + 50)/2 = 75; T = 62.5.
        assert_eq!(l.on_decrease(100.0, SimTime::ZERO), 50.0);
        assert_eq!(l.search(), (75.0, 62.5));
    }

    #[test]
    fn the_search_moves_towards_the_midpoint_and_caps_at_s_max() {
        let mut l = law();
        l.on_decrease(100.0, SimTime::ZERO); // W_max 75, T 62.5
                                             // T − W = 12.5 < 16: +12.5/50 = 0.25; W = 50.25, W_min = 50.25, T = 62.625.
        assert_eq!(l.increment(50.0, &data(0, 1)), 0.25);
        assert_eq!(l.search(), (75.0, 62.625));
        // Far below a large W_max: W_max 1000 after a decrease at 1000 (previous 75 < 1000,
        // no fast convergence), W = 500, T = 750: T − W = 250 ≥ 16: +16/500.
        assert_eq!(l.on_decrease(1000.0, SimTime::ZERO), 500.0);
        assert_eq!(l.search(), (1000.0, 750.0));
        assert_eq!(l.increment(500.0, &data(1, 2)), 16.0 / 500.0);
    }

    #[test]
    fn reaching_w_max_starts_probing_with_doubling_steps() {
        let mut l = law();
        let mut w = l.on_decrease(40.0, SimTime::ZERO); // W = 20, W_max = 30, T = 25
                                                        // The search halves the distance to W_max about once per window of Data, so it comes
                                                        // within 1e-5 of 30 and then probes.
        let mut n = 0;
        while !l.probing() {
            w += l.increment(w, &data(n, n + 1));
            n += 1;
            assert!(n < 100_000 && w <= 30.0);
        }
        assert!(w > 30.0 - 1e-4 && l.search().0 == f64::INFINITY);
        // Probing: steps of 1, 2, 4 and 8 packets, each reached before the next doubles; at 16
        // the search resumes.
        let start = w;
        while l.probing() {
            w += l.increment(w, &data(n, n + 1));
            n += 1;
        }
        assert_eq!(l.step, 16.0);
        assert!(w - start >= 15.0 && w - start < 15.0 + 15.0 / start, "{}", w - start);
    }

    #[test]
    fn below_low_window_a_decrease_leaves_the_search_alone() {
        let mut l = law();
        assert_eq!(l.on_decrease(10.0, SimTime::ZERO), 5.0);
        assert_eq!(l.search(), (f64::INFINITY, 0.0));
    }
}
