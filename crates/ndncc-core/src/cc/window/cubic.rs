//! CUBIC (RFC 9438), in the form of ndnSIM's PCON consumer (ALGORITHMS.md B §8.2).
//!
//! ```text
//!   W_cubic(t) = C·(t − K)³ + W_max                        RFC 9438 §4.2
//!   K = ∛((W_max − W_epoch)/C)                              §4.2 (= ∛(W_max(1−β)/C) after a β cut)
//!   per Data:   W += max(0, W_cubic(t + srtt) − W) / W      (see below)
//!   loss:       W' = β·W                                    §4.6
//!               W_max = W·(1+β)/2 if fast convergence and W < W_max, else W      §4.7
//!   Reno-friendly (optional, §4.3): W_est += α/W per Data, α = 3(1−β)/(1+β) (1 once
//!               W_est ≥ W_prior); when W_cubic(t) < W_est the window jumps to W_est.
//! ```
//!
//! Choices, all documented defaults: β = 0.8 and no fast convergence or Reno-friendly region
//! (ndnSIM ConsumerPcon); `beta = 0.7, fast_convergence = true, tcp_friendly = true` are RFC
//! 9438's settings. The increment is ndnSIM's per-Data form — growth towards the target with
//! negative steps clipped to zero and no 1.5·W cap (RFC 9438 §4.4 clamps the target to
//! [W, 1.5·W]) — with RFC 9438's look-ahead of one smoothed RTT (ndnSIM's consumer evaluates
//! W_cubic at t). t runs from the decrease (the epoch starts at the loss, as in ndnSIM); W_epoch
//! is the window at the first Data after it, so a floor applied by the controller is taken into
//! account. If congestion avoidance begins without any loss (finite `initial_ssthresh`), the
//! epoch starts there with W_max = W and K = 0 (RFC 9438 §4.8). Time is integer nanoseconds
//! everywhere else and becomes f64 seconds only in the formula.

use serde::{Deserialize, Serialize};

use crate::cc::window::aimd::check_start;
use crate::cc::window::law::{LossShell, LossWindow, WindowLaw};
use crate::cc::{DataEvent, WindowControl};
use crate::plugin::{check, Check, Plugin};
use crate::time::SimTime;

/// Scaling constant C [packets/s³] (RFC 9438 §4.2).
pub const C: f64 = 0.4;
/// Multiplicative decrease β (ndnSIM ConsumerPcon `CubicBeta`; RFC 9438 §4.6 uses 0.7).
pub const BETA: f64 = 0.8;

/// `type = "cubic"`; also the CUBIC parameters of `pcon`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct CubicConfig {
    /// Window at the start [packets]. Default 1.
    pub initial_window: f64,
    /// Slow-start threshold before the first loss [packets]. Default: unbounded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh: Option<f64>,
    /// Decrease at most once per RTT (recovery point = next_seq). Default true.
    pub one_decrease_per_rtt: bool,
    /// Scaling constant C [packets/s³]. Default 0.4.
    pub c: f64,
    /// Multiplicative decrease β. Default 0.8 (ndnSIM); RFC 9438: 0.7.
    pub beta: f64,
    /// Lower W_max when losses come below the previous W_max. Default false (ndnSIM).
    pub fast_convergence: bool,
    /// Reno-friendly region (W_est). Default false (ndnSIM).
    pub tcp_friendly: bool,
}

impl Default for CubicConfig {
    fn default() -> Self {
        CubicConfig {
            initial_window: 1.0,
            initial_ssthresh: None,
            one_decrease_per_rtt: true,
            c: C,
            beta: BETA,
            fast_convergence: false,
            tcp_friendly: false,
        }
    }
}

impl Plugin for CubicConfig {
    type Built = Box<dyn WindowControl>;
    fn validate(&self) -> Check {
        check_start(self.initial_window, self.initial_ssthresh)?;
        self.validate_law()
    }
    fn build(&self) -> Box<dyn WindowControl> {
        Box::new(new_cubic(self))
    }
}

impl CubicConfig {
    /// The law's keys only (what `pcon` uses).
    pub fn validate_law(&self) -> Check {
        check::positive_at_most("c", self.c, 1e6)?;
        check::factor("beta", self.beta)
    }

    fn shell(&self) -> LossShell {
        LossShell {
            initial_window: self.initial_window,
            initial_ssthresh: self.initial_ssthresh,
            one_decrease_per_rtt: self.one_decrease_per_rtt,
        }
    }
}

/// One congestion-avoidance epoch.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Epoch {
    start: SimTime,
    /// Time to reach W_max [s].
    k: f64,
    /// Reno-friendly estimate [packets].
    w_est: f64,
    /// Window just before the last decrease [packets].
    w_prior: f64,
}

/// CUBIC's growth and decrease (see the module docs).
#[derive(Clone, Debug, PartialEq)]
pub struct CubicLaw {
    c: f64,
    beta: f64,
    fast_convergence: bool,
    tcp_friendly: bool,
    /// Window at the last loss [packets]; 0 before the first.
    w_max: f64,
    /// Window just before the last decrease [packets].
    w_prior: f64,
    /// Time of the last decrease, until the epoch begins.
    last_decrease: Option<SimTime>,
    epoch: Option<Epoch>,
}

impl CubicLaw {
    pub fn new(cfg: &CubicConfig) -> CubicLaw {
        CubicLaw {
            c: cfg.c,
            beta: cfg.beta,
            fast_convergence: cfg.fast_convergence,
            tcp_friendly: cfg.tcp_friendly,
            w_max: 0.0,
            w_prior: 0.0,
            last_decrease: None,
            epoch: None,
        }
    }

    /// W_max [packets]; 0 before the first loss.
    pub fn w_max(&self) -> f64 {
        self.w_max
    }

    /// K of the current epoch [s], once it has begun.
    pub fn k(&self) -> Option<f64> {
        self.epoch.map(|e| e.k)
    }

    /// §4.2: K = ∛((W_max − W_epoch)/C), 0 if W_epoch ≥ W_max.
    fn k_for(&self, w_epoch: f64) -> f64 {
        ((self.w_max - w_epoch).max(0.0) / self.c).cbrt()
    }

    /// §4.2: W_cubic(t) = C·(t − K)³ + W_max, t in seconds.
    fn w_cubic(&self, t: f64, k: f64) -> f64 {
        self.c * (t - k).powi(3) + self.w_max
    }

    /// §4.3: α = 3(1 − β)/(1 + β) until W_est reaches W_prior, then 1.
    fn alpha(&self, e: &Epoch) -> f64 {
        if e.w_est >= e.w_prior {
            1.0
        } else {
            3.0 * (1.0 - self.beta) / (1.0 + self.beta)
        }
    }

    /// §4.7 fast convergence: the new W_max after a loss at window `w`.
    fn next_w_max(&self, w: f64) -> f64 {
        if self.fast_convergence && w < self.w_max {
            w * (1.0 + self.beta) / 2.0
        } else {
            w
        }
    }

    /// Begin the epoch at the first congestion-avoidance Data: t from the last decrease (or
    /// now, if there was none, with W_max = W).
    fn begin_epoch(&mut self, w: f64, now: SimTime) -> Epoch {
        let start = self.last_decrease.take().unwrap_or(now);
        if self.w_max == 0.0 {
            self.w_max = w;
            self.w_prior = w;
        }
        let e = Epoch { start, k: self.k_for(w), w_est: w, w_prior: self.w_prior };
        self.epoch = Some(e);
        e
    }
}

impl WindowLaw for CubicLaw {
    /// max(0, W_cubic(t + srtt) − W)/W, or the jump to W_est in the Reno-friendly region.
    fn increment(&mut self, window: f64, ev: &DataEvent) -> f64 {
        let mut e = match self.epoch {
            Some(e) => e,
            None => self.begin_epoch(window, ev.now),
        };
        let t = ev.now.saturating_since(e.start).as_secs_f64();
        let rtt = ev.srtt.or(ev.rtt).map_or(0.0, |d| d.as_secs_f64());
        let cubic_step = (self.w_cubic(t + rtt, e.k) - window).max(0.0) / window;
        if !self.tcp_friendly {
            return cubic_step;
        }
        e.w_est += self.alpha(&e) / window;
        self.epoch = Some(e);
        if self.w_cubic(t, e.k) < e.w_est {
            (e.w_est - window).max(0.0)
        } else {
            cubic_step
        }
    }

    /// W' = β·W; remembers W_max and the time of the loss.
    fn on_decrease(&mut self, window: f64, now: SimTime) -> f64 {
        self.w_max = self.next_w_max(window);
        self.w_prior = window;
        self.last_decrease = Some(now);
        self.epoch = None;
        self.beta * window
    }
    /// `w_max` [packets] once a loss happened, and `cubic_k` [s] of the current epoch.
    fn metrics(&self, out: &mut Vec<(&'static str, f64)>) {
        if self.w_max > 0.0 {
            out.push(("w_max", self.w_max));
        }
        if let Some(k) = self.k() {
            out.push(("cubic_k", k));
        }
    }
}

/// The standalone `cubic` controller.
pub type Cubic = LossWindow<CubicLaw>;

pub fn new_cubic(cfg: &CubicConfig) -> Cubic {
    LossWindow::new("cubic", CubicLaw::new(cfg), &cfg.shell())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::window::testkit::{data, timeout};
    use crate::cc::WindowControl;
    use crate::time::SimDuration;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() < 1e-9
    }

    /// A Data at `ms` with a smoothed RTT of `srtt_ms`.
    fn data_rtt(ms: u64, srtt_ms: u64) -> DataEvent {
        DataEvent { srtt: Some(SimDuration::from_millis(srtt_ms)), ..data(ms, 1) }
    }

    /// Loss at 10 s with W = 16, β = 0.8: W' = 12.8, W_max = 16, K = ∛((16 − 12.8)/0.4) = ∛8 = 2 s.
    fn after_loss() -> CubicLaw {
        let mut l = CubicLaw::new(&CubicConfig::default());
        assert!(close(l.on_decrease(16.0, SimTime::from_secs_f64(10.0)), 12.8));
        l
    }

    #[test]
    fn a_loss_multiplies_by_beta_and_records_w_max() {
        let l = after_loss();
        assert_eq!(l.w_max(), 16.0);
    }

    #[test]
    fn at_k_the_target_is_w_max() {
        let mut l = after_loss();
        // t = 1 s, srtt 1 s: W_cubic(2) = 16 → (16 − 12.8)/12.8 = 0.25
        assert!(close(l.increment(12.8, &data_rtt(11_000, 1_000)), 0.25));
        assert!(close(l.k().unwrap(), 2.0));
    }

    #[test]
    fn beyond_k_the_curve_is_convex() {
        let mut l = after_loss();
        // t = 3 s, srtt 1 s: W_cubic(4) = 0.4·2³ + 16 = 19.2 → (19.2 − 12.8)/12.8 = 0.5
        assert!(close(l.increment(12.8, &data_rtt(13_000, 1_000)), 0.5));
    }

    #[test]
    fn a_window_above_the_curve_does_not_grow() {
        let mut l = after_loss();
        l.increment(12.8, &data_rtt(10_000, 0)); // epoch begins, K = 2
                                                 // t = 1 s, srtt 0: W_cubic(1) = 0.4·(−1)³ + 16 = 15.6
        assert!(close(l.increment(15.0, &data_rtt(11_000, 0)), 0.04)); // 0.6/15
        assert_eq!(l.increment(15.8, &data_rtt(11_000, 0)), 0.0);
    }

    #[test]
    fn without_a_loss_the_epoch_starts_at_the_window_with_k_zero() {
        let mut l = CubicLaw::new(&CubicConfig::default());
        // W_max = 20, K = 0; W_cubic(0 + 1) = 0.4 + 20 → 0.4/20 = 0.02
        assert!(close(l.increment(20.0, &data_rtt(5_000, 1_000)), 0.02));
        assert_eq!(l.k(), Some(0.0));
    }

    #[test]
    fn fast_convergence_lowers_w_max_when_losses_come_earlier() {
        let cfg = CubicConfig { fast_convergence: true, ..Default::default() };
        let mut l = CubicLaw { w_max: 100.0, ..CubicLaw::new(&cfg) };
        // W_max = 80·(1 + 0.8)/2 = 72; W' = 0.8·80 = 64
        assert!(close(l.on_decrease(80.0, SimTime::ZERO), 64.0));
        assert!(close(l.w_max(), 72.0));
    }

    #[test]
    fn in_the_reno_friendly_region_the_window_follows_w_est() {
        let cfg = CubicConfig { beta: 0.5, tcp_friendly: true, ..Default::default() };
        let mut l = CubicLaw::new(&cfg);
        l.on_decrease(10.0, SimTime::ZERO);
        // W' = 5, W_max = 10, K = ∛(5/0.4) → W_cubic(0) = 10 − 0.4·12.5 = 5.
        // α = 3·0.5/1.5 = 1, so W_est = 5 + 1/5 = 5.2 > 5 → step 0.2
        assert!(close(l.increment(5.0, &data_rtt(0, 0)), 0.2));
    }

    #[test]
    fn the_controller_cuts_to_beta_times_w_on_a_timeout() {
        let mut c = new_cubic(&CubicConfig::default());
        c.set_state(100.0, f64::INFINITY);
        c.on_timeout(&timeout(0, 3));
        // 0.8·100 = 80
        assert!(close(c.window(), 80.0));
        assert_eq!(c.law().w_max(), 100.0);
    }

    #[test]
    fn a_zero_c_is_rejected() {
        let err = CubicConfig { c: 0.0, ..Default::default() }.validate().unwrap_err();
        assert_eq!(err.to_string(), "c: must be a number > 0 and at most 1000000 (got 0)");
    }
}
