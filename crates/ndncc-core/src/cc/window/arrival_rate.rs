//! Arrival-rate window estimate (seed 002, improvement idea 3; ALGORITHMS.md A2).
//!
//! The consumer first probes the path with fixed windows of `step`, 2·`step`, 3·`step`, …
//! Interests and measures the Data arrival rate each probe achieves. While the window is below
//! the bandwidth-delay product the rate grows with it; once the bottleneck is full it stops
//! growing. The window is then set to the best rate times an RTT and grows linearly.
//!
//! The exact rule:
//!
//! ```text
//!   probe k (window k·step):
//!     settle:   ignore Data until one srtt after the window was raised (the Data of Interests
//!               sent under the smaller window drain; the first probe needs no settling)
//!     measure:  the first Data after settling starts the clock (t₀); count the n Data after it;
//!               at the first Data with now − t₀ ≥ srtt:  rate_k = n / (now − t₀)   [Data/s]
//!     next:     if k = 1 or rate_k ≥ (1 + growth_threshold)·rate_{k−1}: probe k + 1
//!               else: W = max(2, max_j rate_j · RTT),  RTT = minimum RTT sample ("min-rtt",
//!                     the bandwidth-delay product) or the current srtt ("srtt")
//!   then (linear):  W += 1/W per Data;  timeout: W = ssthresh = max(2, W/2)
//!                   (AIMD fast recovery, once per RTT by default)
//! ```
//!
//! srtt is the event's smoothed RTT (or its sample when no estimate exists yet); Data without
//! either do not advance a probe. While probing, timeouts do not change the window: lost Data
//! simply do not arrive, so losses already lower the measured rate — this keeps random link
//! loss (experiment E3's 1 %) from ending the probe early. NACKs are retransmitted and do not
//! change the window. The linear phase is `AimdState` from `aimd.rs`.

use serde::{Deserialize, Serialize};

use crate::cc::window::aimd::{AimdConfig, AimdState};
use crate::cc::window::law::{finite, LOSS_FLOOR};
use crate::cc::{DataEvent, LossEvent, NackAction, WindowControl};
use crate::plugin::{check, Check, Plugin};
use crate::time::{SimDuration, SimTime};

/// Probe window increment [packets] (seed 002: "10 interests, … then 20").
pub const STEP: f64 = 10.0;
/// Probing stops when the rate grows by less than this fraction over the previous probe.
pub const GROWTH_THRESHOLD: f64 = 0.05;

/// Which RTT turns the best arrival rate into a window.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum WindowRtt {
    /// The smallest RTT sample seen: rate × min RTT is the bandwidth-delay product.
    #[default]
    MinRtt,
    /// The smoothed RTT at the end of probing, queueing included (≈ the last probe's window).
    Srtt,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ArrivalRateConfig {
    /// Probe k uses a window of k·step [packets]. Default 10.
    pub step: f64,
    /// Stop probing when the rate grows by less than this fraction. Default 0.05.
    pub growth_threshold: f64,
    /// RTT that turns the best rate into a window: "min-rtt" or "srtt". Default "min-rtt".
    pub window_rtt: WindowRtt,
    /// In the linear phase, halve at most once per RTT. Default true.
    pub one_decrease_per_rtt: bool,
}

impl Default for ArrivalRateConfig {
    fn default() -> Self {
        ArrivalRateConfig {
            step: STEP,
            growth_threshold: GROWTH_THRESHOLD,
            window_rtt: WindowRtt::MinRtt,
            one_decrease_per_rtt: true,
        }
    }
}

impl Plugin for ArrivalRateConfig {
    type Built = Box<dyn WindowControl>;
    fn validate(&self) -> Check {
        check::window("step", self.step)?;
        check::within("growth_threshold", self.growth_threshold, 0.0, 1e6)
    }
    fn build(&self) -> Box<dyn WindowControl> {
        Box::new(ArrivalRate::new(self))
    }
}

impl ArrivalRateConfig {
    /// The linear phase: AIMD with fast recovery (its window is set when probing ends).
    fn linear(&self) -> AimdConfig {
        AimdConfig { one_decrease_per_rtt: self.one_decrease_per_rtt, fast_recovery: true, ..Default::default() }
    }
}

/// One probe in progress.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Probe {
    k: u32,
    /// Data before this time are ignored (settling).
    settle_until: Option<SimTime>,
    /// Time of the Data that started the measurement.
    start: Option<SimTime>,
    arrivals: u32,
    prev_rate: Option<f64>,
    best_rate: f64,
}

#[derive(Clone, Copy, Debug, PartialEq)]
enum Phase {
    Probing(Probe),
    Linear,
}

#[derive(Debug)]
pub struct ArrivalRate {
    phase: Phase,
    linear: AimdState,
    step: f64,
    growth_threshold: f64,
    window_rtt: WindowRtt,
    min_rtt: Option<SimDuration>,
}

impl ArrivalRate {
    pub fn new(cfg: &ArrivalRateConfig) -> ArrivalRate {
        let first = Probe { k: 1, settle_until: None, start: None, arrivals: 0, prev_rate: None, best_rate: 0.0 };
        ArrivalRate {
            phase: Phase::Probing(first),
            linear: AimdState::new(&cfg.linear()),
            step: cfg.step,
            growth_threshold: cfg.growth_threshold,
            window_rtt: cfg.window_rtt,
            min_rtt: None,
        }
    }

    /// Whether the controller is still probing.
    pub fn probing(&self) -> bool {
        matches!(self.phase, Phase::Probing(_))
    }

    /// Count one Data towards probe `p`; returns the probe's rate [Data/s] once it is complete.
    fn measure(p: &mut Probe, now: SimTime, srtt: SimDuration) -> Option<f64> {
        if p.settle_until.is_some_and(|t| now < t) {
            return None;
        }
        let Some(start) = p.start else {
            p.start = Some(now);
            return None;
        };
        p.arrivals += 1;
        let elapsed = now.saturating_since(start);
        if elapsed < srtt || elapsed == SimDuration::ZERO {
            return None;
        }
        Some(p.arrivals as f64 / elapsed.as_secs_f64())
    }

    /// Whether `rate` grew by at least the threshold over the previous probe.
    fn still_growing(&self, prev: Option<f64>, rate: f64) -> bool {
        prev.is_none_or(|p| rate >= p * (1.0 + self.growth_threshold))
    }

    /// W = max(2, best rate × RTT).
    fn estimate(&self, best_rate: f64, srtt: SimDuration) -> f64 {
        let rtt = match self.window_rtt {
            WindowRtt::MinRtt => self.min_rtt.unwrap_or(srtt),
            WindowRtt::Srtt => srtt,
        };
        (best_rate * rtt.as_secs_f64()).max(LOSS_FLOOR)
    }

    fn probe_on_data(&mut self, mut p: Probe, ev: &DataEvent) {
        let Some(srtt) = ev.srtt.or(ev.rtt) else { return };
        let Some(rate) = Self::measure(&mut p, ev.now, srtt) else {
            self.phase = Phase::Probing(p);
            return;
        };
        let best_rate = p.best_rate.max(rate);
        if self.still_growing(p.prev_rate, rate) {
            let next = Probe {
                k: p.k + 1,
                settle_until: Some(ev.now + srtt),
                start: None,
                arrivals: 0,
                prev_rate: Some(rate),
                best_rate,
            };
            self.phase = Phase::Probing(next);
        } else {
            let w = self.estimate(best_rate, srtt);
            self.linear.window = w;
            self.linear.ssthresh = w;
            self.phase = Phase::Linear;
        }
    }
}

impl WindowControl for ArrivalRate {
    fn name(&self) -> &'static str {
        "arrival-rate"
    }
    fn on_data(&mut self, ev: &DataEvent) {
        if let Some(r) = ev.rtt {
            self.min_rtt = Some(self.min_rtt.map_or(r, |m| m.min(r)));
        }
        match self.phase {
            Phase::Probing(p) => self.probe_on_data(p, ev),
            Phase::Linear => self.linear.grow(ev),
        }
    }
    fn on_timeout(&mut self, ev: &LossEvent) {
        if self.phase == Phase::Linear {
            self.linear.fast_recovery(ev.next_seq, ev.highest_received, ev.now);
        }
    }
    fn on_nack(&mut self, _ev: &LossEvent) -> NackAction {
        NackAction::Retransmit
    }
    fn window(&self) -> f64 {
        match self.phase {
            Phase::Probing(p) => p.k as f64 * self.step,
            Phase::Linear => self.linear.window,
        }
    }
    fn ssthresh(&self) -> Option<f64> {
        match self.phase {
            Phase::Probing(_) => None,
            Phase::Linear => finite(self.linear.ssthresh),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::window::testkit::{data, timeout};

    fn at(ms: u64) -> SimTime {
        SimTime(SimDuration::from_millis(ms).0)
    }

    /// Probe k measuring since `start_ms`, `arrivals` counted, previous rate `prev`.
    fn probing(cfg: ArrivalRateConfig, k: u32, start_ms: u64, arrivals: u32, prev: Option<f64>) -> ArrivalRate {
        let mut c = ArrivalRate::new(&cfg);
        let best_rate = prev.unwrap_or(0.0);
        let start = Some(at(start_ms));
        c.phase = Phase::Probing(Probe { k, settle_until: None, start, arrivals, prev_rate: prev, best_rate });
        c
    }

    #[test]
    fn the_first_probe_is_one_step() {
        assert_eq!(ArrivalRate::new(&ArrivalRateConfig::default()).window(), 10.0);
    }

    #[test]
    fn the_first_data_starts_the_measurement() {
        let mut c = ArrivalRate::new(&ArrivalRateConfig::default());
        c.on_data(&data(40, 0));
        assert!(matches!(c.phase, Phase::Probing(Probe { start: Some(t), arrivals: 0, .. }) if t == at(40)));
    }

    #[test]
    fn a_probe_ends_after_one_srtt_and_the_next_is_one_step_larger() {
        let mut c = probing(ArrivalRateConfig::default(), 1, 0, 9, None);
        c.on_data(&data(100, 10));
        // 10 Data in 0.1 s = 100 Data/s; next probe 2·10 = 20, settling until 100 + 100 ms
        assert_eq!(c.window(), 20.0);
        assert!(matches!(c.phase, Phase::Probing(Probe { prev_rate: Some(r), settle_until: Some(t), .. })
            if r == 100.0 && t == at(200)));
    }

    #[test]
    fn a_data_before_one_srtt_has_passed_only_counts() {
        let mut c = probing(ArrivalRateConfig::default(), 1, 0, 3, None);
        c.on_data(&data(99, 4));
        assert_eq!(c.window(), 10.0);
        assert!(matches!(c.phase, Phase::Probing(Probe { arrivals: 4, .. })));
    }

    #[test]
    fn data_while_settling_are_ignored() {
        let mut c = ArrivalRate::new(&ArrivalRateConfig::default());
        let settle_until = Some(at(200));
        let p = Probe { k: 2, settle_until, start: None, arrivals: 0, prev_rate: Some(100.0), best_rate: 100.0 };
        c.phase = Phase::Probing(p);
        c.on_data(&data(150, 1));
        assert!(matches!(c.phase, Phase::Probing(Probe { start: None, .. })));
        c.on_data(&data(200, 2));
        assert!(matches!(c.phase, Phase::Probing(Probe { start: Some(t), .. }) if t == at(200)));
    }

    #[test]
    fn a_rate_that_grew_enough_keeps_probing() {
        let mut c = probing(ArrivalRateConfig::default(), 3, 400, 21, Some(200.0));
        c.on_data(&data(500, 1));
        // 22/0.1 = 220 Data/s ≥ 1.05·200 = 210 → probe 4 (window 40)
        assert_eq!(c.window(), 40.0);
    }

    #[test]
    fn a_stalled_rate_ends_probing_at_best_rate_times_min_rtt() {
        let mut c = probing(ArrivalRateConfig::default(), 4, 600, 24, Some(250.0));
        c.min_rtt = Some(SimDuration::from_millis(80));
        c.on_data(&DataEvent { rtt: None, ..data(700, 1) });
        // 25/0.1 = 250 < 262.5 → W = 250 Data/s × 0.08 s = 20
        assert!(!c.probing());
        assert!((c.window() - 20.0).abs() < 1e-9);
    }

    #[test]
    fn with_window_rtt_srtt_the_estimate_uses_the_smoothed_rtt() {
        let cfg = ArrivalRateConfig { window_rtt: WindowRtt::Srtt, ..Default::default() };
        let mut c = probing(cfg, 4, 600, 24, Some(250.0));
        c.min_rtt = Some(SimDuration::from_millis(80));
        c.on_data(&data(700, 1));
        // 250 Data/s × srtt 0.1 s = 25
        assert!((c.window() - 25.0).abs() < 1e-9);
    }

    #[test]
    fn timeouts_while_probing_leave_the_window_alone() {
        let mut c = probing(ArrivalRateConfig::default(), 3, 0, 5, Some(100.0));
        c.on_timeout(&timeout(50, 2));
        assert_eq!(c.window(), 30.0);
    }

    #[test]
    fn after_probing_the_window_grows_linearly_and_halves_on_a_timeout() {
        let mut c = ArrivalRate::new(&ArrivalRateConfig::default());
        c.phase = Phase::Linear;
        c.linear.window = 20.0;
        c.linear.ssthresh = 20.0;
        c.on_data(&data(0, 1));
        assert_eq!(c.window(), 20.05); // 20 + 1/20
        c.on_timeout(&timeout(1, 2));
        // max(2, 0.5·20.05) = 10.025
        assert_eq!((c.window(), c.ssthresh()), (10.025, Some(10.025)));
    }

    #[test]
    fn a_negative_growth_threshold_is_rejected() {
        let cfg = ArrivalRateConfig { growth_threshold: -0.1, ..Default::default() };
        assert_eq!(
            cfg.validate().unwrap_err().to_string(),
            "growth_threshold: must be a number in [0, 1000000] (got -0.1)"
        );
    }
}
