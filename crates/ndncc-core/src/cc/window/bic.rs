//! BIC-TCP (Xu, Harfoush, Rhee, INFOCOM 2004), as ALGORITHMS.md B §8.1 describes the Linux form.
//!
//! In congestion avoidance the window grows by one packet every `cnt` Data, so by 1/cnt per
//! Data, where cnt depends on the distance to W_max, the window at the last loss:
//!
//! ```text
//!   W ≤ low_window:            cnt = W                                   (Reno)
//!   W < W_max, d = (W_max − W)/B:
//!       d > S_max:             cnt = W/S_max                              (additive, capped)
//!       d ≤ 1:                 cnt = W·smooth_part/B                      (creep up to W_max)
//!       otherwise:             cnt = W/d                                  (binary search)
//!   W ≥ W_max:
//!       W < W_max + B:         cnt = W·smooth_part/B                      (creep past W_max)
//!       W < W_max + S_max(B−1): cnt = W(B−1)/(W − W_max)                  (slow-start-like probe)
//!       otherwise:             cnt = W/S_max
//!   no loss yet (W_max = 0):   cnt ≤ 20;     always cnt ≥ 1
//!
//!   loss:  W_max = W·(1+β)/2 if fast convergence and W < W_max, else W
//!          W' = β·W if W > low_window, else W/2
//! ```
//!
//! cnt is recomputed on every Data (Linux caches it for HZ/32 ticks and scales it by the
//! delayed-ACK ratio; a consumer sees every Data, so neither applies). `BicLaw` is the law;
//! the `bic` controller runs it in a `LossWindow` (Reno slow start, loss = timeout or marked
//! NACK, floor 2); `pcon` runs it on congestion marks.

use serde::{Deserialize, Serialize};

use crate::cc::window::aimd::check_start;
use crate::cc::window::law::{LossShell, LossWindow, WindowLaw};
use crate::cc::{DataEvent, WindowControl};
use crate::plugin::{check, Check, Invalid, Plugin};
use crate::time::SimTime;

/// Multiplicative decrease β = 819/1024 ≈ 0.8 (Linux `beta`, scaled by 1024).
pub const BETA: f64 = 819.0 / 1024.0;
/// Binary-search divisor B (Linux `BICTCP_B`).
pub const B: f64 = 4.0;
/// Largest increase per RTT, S_max [packets] (Linux `max_increment`).
pub const MAX_INCREMENT: f64 = 16.0;
/// Below this window BIC behaves as Reno [packets] (Linux `low_window`).
pub const LOW_WINDOW: f64 = 14.0;
/// RTTs spent creeping across W_max (Linux `smooth_part`; ns-3 uses 5).
pub const SMOOTH_PART: f64 = 20.0;
/// cnt cap before the first loss (Linux: `if (last_max_cwnd == 0) cnt = min(cnt, 20)`).
pub const NO_LOSS_MAX_CNT: f64 = 20.0;

/// `type = "bic"`; also the BIC parameters of `pcon`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct BicConfig {
    /// Window at the start [packets]. Default 1.
    pub initial_window: f64,
    /// Slow-start threshold before the first loss [packets]. Default: unbounded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh: Option<f64>,
    /// Decrease at most once per RTT (recovery point = next_seq). Default true.
    pub one_decrease_per_rtt: bool,
    /// Multiplicative decrease β. Default 819/1024 ≈ 0.7998.
    pub beta: f64,
    /// Binary-search divisor B. Default 4.
    pub b: f64,
    /// S_max, the largest increase per RTT [packets]. Default 16.
    pub max_increment: f64,
    /// Reno below this window [packets]. Default 14.
    pub low_window: f64,
    /// RTTs spent near W_max. Default 20.
    pub smooth_part: f64,
    /// Lower W_max when losses come below the previous W_max. Default true.
    pub fast_convergence: bool,
}

impl Default for BicConfig {
    fn default() -> Self {
        BicConfig {
            initial_window: 1.0,
            initial_ssthresh: None,
            one_decrease_per_rtt: true,
            beta: BETA,
            b: B,
            max_increment: MAX_INCREMENT,
            low_window: LOW_WINDOW,
            smooth_part: SMOOTH_PART,
            fast_convergence: true,
        }
    }
}

impl Plugin for BicConfig {
    type Built = Box<dyn WindowControl>;
    fn validate(&self) -> Check {
        check_start(self.initial_window, self.initial_ssthresh)?;
        self.validate_law()
    }
    fn build(&self) -> Box<dyn WindowControl> {
        Box::new(new_bic(self))
    }
}

impl BicConfig {
    /// The law's keys only (what `pcon` uses).
    pub fn validate_law(&self) -> Check {
        check::factor("beta", self.beta)?;
        if !(self.b > 1.0 && self.b <= 1e6) {
            return Err(Invalid::new("b", format!("must be a number > 1 and at most 1e6 (got {})", self.b)));
        }
        check::positive_at_most("max_increment", self.max_increment, check::MAX_WINDOW)?;
        check::within("low_window", self.low_window, 0.0, check::MAX_WINDOW)?;
        check::positive_at_most("smooth_part", self.smooth_part, 1e6)
    }

    fn shell(&self) -> LossShell {
        LossShell {
            initial_window: self.initial_window,
            initial_ssthresh: self.initial_ssthresh,
            one_decrease_per_rtt: self.one_decrease_per_rtt,
        }
    }
}

/// BIC's growth and decrease (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct BicLaw {
    beta: f64,
    b: f64,
    max_increment: f64,
    low_window: f64,
    smooth_part: f64,
    fast_convergence: bool,
    /// Window at the last loss [packets]; 0 before the first.
    w_max: f64,
}

impl BicLaw {
    pub fn new(cfg: &BicConfig) -> BicLaw {
        BicLaw {
            beta: cfg.beta,
            b: cfg.b,
            max_increment: cfg.max_increment,
            low_window: cfg.low_window,
            smooth_part: cfg.smooth_part,
            fast_convergence: cfg.fast_convergence,
            w_max: 0.0,
        }
    }

    /// W_max [packets]; 0 before the first loss.
    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    /// Data per one-packet increase.
    pub fn cnt(&self, w: f64) -> f64 {
        if w <= self.low_window {
            return w;
        }
        let cnt = if w < self.w_max { self.binary_search_cnt(w) } else { self.max_probing_cnt(w) };
        let cnt = if self.w_max == 0.0 { cnt.min(NO_LOSS_MAX_CNT) } else { cnt };
        cnt.max(1.0)
    }

    /// Below W_max: jump halfway (d = (W_max − W)/B per RTT), at most S_max, at least creep.
    fn binary_search_cnt(&self, w: f64) -> f64 {
        let dist = (self.w_max - w) / self.b;
        if dist > self.max_increment {
            w / self.max_increment
        } else if dist <= 1.0 {
            w * self.smooth_part / self.b
        } else {
            w / dist
        }
    }

    /// At or above W_max: creep, then probe faster and faster, capped at S_max per RTT.
    fn max_probing_cnt(&self, w: f64) -> f64 {
        if w < self.w_max + self.b {
            w * self.smooth_part / self.b
        } else if w < self.w_max + self.max_increment * (self.b - 1.0) {
            w * (self.b - 1.0) / (w - self.w_max)
        } else {
            w / self.max_increment
        }
    }

    /// W_max after a loss at window `w`, with fast convergence.
    fn next_w_max(&self, w: f64) -> f64 {
        if self.fast_convergence && w < self.w_max {
            w * (1.0 + self.beta) / 2.0
        } else {
            w
        }
    }
}

impl WindowLaw for BicLaw {
    /// 1/cnt per Data.
    fn increment(&mut self, window: f64, _ev: &DataEvent) -> f64 {
        1.0 / self.cnt(window)
    }
    /// β·W above low_window, W/2 at or below it; remembers W_max.
    fn on_decrease(&mut self, window: f64, _now: SimTime) -> f64 {
        self.w_max = self.next_w_max(window);
        if window > self.low_window {
            self.beta * window
        } else {
            window / 2.0
        }
    }
    /// `w_max` [packets] once a loss happened.
    fn metrics(&self, out: &mut Vec<(&'static str, f64)>) {
        if self.w_max > 0.0 {
            out.push(("w_max", self.w_max));
        }
    }
}

/// The standalone `bic` controller.
pub type Bic = LossWindow<BicLaw>;

pub fn new_bic(cfg: &BicConfig) -> Bic {
    LossWindow::new("bic", BicLaw::new(cfg), &cfg.shell())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::window::testkit::{data, timeout};
    use crate::cc::WindowControl;

    fn law(w_max: f64) -> BicLaw {
        BicLaw { w_max, ..BicLaw::new(&BicConfig::default()) }
    }

    #[test]
    fn at_or_below_low_window_bic_grows_like_reno() {
        // cnt = W = 10 → +0.1
        assert_eq!(law(100.0).increment(10.0, &data(0, 1)), 0.1);
    }

    #[test]
    fn far_below_w_max_growth_is_capped_at_s_max_per_rtt() {
        // d = (200 − 50)/4 = 37.5 > 16 → cnt = 50/16 = 3.125 → +0.32
        assert!((law(200.0).increment(50.0, &data(0, 1)) - 0.32).abs() < 1e-12);
    }

    #[test]
    fn below_w_max_growth_is_a_binary_search() {
        // d = (100 − 50)/4 = 12.5 → cnt = 50/12.5 = 4 → +0.25
        assert_eq!(law(100.0).increment(50.0, &data(0, 1)), 0.25);
    }

    #[test]
    fn just_below_w_max_growth_creeps() {
        // d = (100 − 98)/4 = 0.5 ≤ 1 → cnt = 98·20/4 = 490
        assert_eq!(law(100.0).cnt(98.0), 490.0);
    }

    #[test]
    fn just_above_w_max_growth_creeps() {
        // 102 < 100 + 4 → cnt = 102·20/4 = 510
        assert_eq!(law(100.0).cnt(102.0), 510.0);
    }

    #[test]
    fn above_w_max_growth_accelerates() {
        // 120 < 100 + 16·3 = 148 → cnt = 120·3/(120 − 100) = 18
        assert_eq!(law(100.0).cnt(120.0), 18.0);
    }

    #[test]
    fn far_above_w_max_growth_is_s_max_per_rtt() {
        // 160 ≥ 148 → cnt = 160/16 = 10
        assert_eq!(law(100.0).cnt(160.0), 10.0);
    }

    #[test]
    fn before_any_loss_cnt_is_capped_at_twenty() {
        // W_max = 0: 400 ≥ 48 → cnt = 400/16 = 25 → 20
        assert_eq!(law(0.0).cnt(400.0), 20.0);
    }

    #[test]
    fn a_loss_above_low_window_multiplies_by_beta_and_records_w_max() {
        let mut l = law(0.0);
        // 100·819/1024 = 79.98046875
        assert_eq!(l.on_decrease(100.0, SimTime::ZERO), 79.98046875);
        assert_eq!(l.w_max(), 100.0);
    }

    #[test]
    fn a_loss_at_or_below_low_window_halves() {
        assert_eq!(law(0.0).on_decrease(10.0, SimTime::ZERO), 5.0);
    }

    #[test]
    fn fast_convergence_lowers_w_max_when_losses_come_earlier() {
        let mut l = BicLaw { w_max: 100.0, ..BicLaw::new(&BicConfig { beta: 0.8, ..Default::default() }) };
        // W_max = 80·(1 + 0.8)/2 = 72; W' = 0.8·80 = 64
        assert_eq!(l.on_decrease(80.0, SimTime::ZERO), 64.0);
        assert_eq!(l.w_max(), 72.0);
    }

    #[test]
    fn the_controller_cuts_to_beta_times_w_on_a_timeout_and_then_searches() {
        let mut c = new_bic(&BicConfig { beta: 0.8, ..Default::default() });
        c.set_state(100.0, f64::INFINITY);
        c.on_timeout(&timeout(0, 3));
        // W = ssthresh = 80, W_max = 100
        assert_eq!((c.window(), c.ssthresh()), (80.0, Some(80.0)));
        c.on_data(&data(1, 30));
        // d = (100 − 80)/4 = 5 → cnt = 80/5 = 16 → 80 + 1/16
        assert_eq!(c.window(), 80.0625);
    }

    #[test]
    fn a_b_of_one_is_rejected() {
        let err = BicConfig { b: 1.0, ..Default::default() }.validate().unwrap_err();
        assert_eq!(err.to_string(), "b: must be a number > 1 and at most 1e6 (got 1)");
    }
}
