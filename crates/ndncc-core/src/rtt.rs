//! The RTT estimator and retransmission timeout every consumer shares (RFC 6298 with the
//! constants ndnSIM's consumers use by default; ALGORITHMS.md A1).
//!
//! srtt, rttvar: first sample r gives srtt = r, rttvar = r/2; later samples
//! rttvar += beta·(|srtt − r| − rttvar), srtt += alpha·(r − srtt).
//! RTO = clamp(srtt + k·rttvar, min, max) × backoff, where backoff doubles on every timeout up
//! to `max_backoff` and resets on a valid sample. Karn's rule is the caller's job: only feed
//! samples from Interests sent once.

use serde::{Deserialize, Serialize};

use crate::plugin::{check, Check, Invalid};
use crate::time::SimDuration;
use crate::units::Duration;

/// When the consumer doubles the RTO after timeouts.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Backoff {
    /// Double on every timed-out Interest (ndnSIM's consumers: a burst of losses drives the
    /// multiplier to its maximum at once).
    #[default]
    PerTimeout,
    /// Double once per timer check that found any timeout (one loss episode, one doubling).
    PerCheck,
    /// Never back off.
    None,
}

/// How the RTO is computed from the samples.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum RtoFormula {
    /// RFC 6298: srtt + k·rttvar.
    #[default]
    Rfc6298,
    /// ICP's timer (libndn-icp, hICN): τ ← (1 − alpha)·τ + alpha·k·sample, from τ = initial_rto;
    /// with alpha = 0.1 and k = 10 it settles at ten times the smoothed RTT.
    Icp,
}

/// Parameters of the estimator. Defaults are ndnSIM's consumer defaults.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct RttConfig {
    /// Gain of the smoothed RTT (RFC 6298 alpha = 1/8).
    pub alpha: f64,
    /// Gain of the RTT variation (RFC 6298 beta = 1/4).
    pub beta: f64,
    /// RTO = srtt + k·rttvar (ndnSIM 4, ndncatchunks 8).
    pub k: f64,
    /// RTO before the first sample.
    pub initial_rto: Duration,
    pub min_rto: Duration,
    pub max_rto: Duration,
    /// Largest backoff multiplier (64 in ndnSIM).
    pub max_backoff: u32,
    /// When to double the RTO: "per-timeout" (ndnSIM), "per-check" or "none".
    pub backoff: Backoff,
    /// "rfc6298" (default) or "icp".
    pub formula: RtoFormula,
}

impl Default for RttConfig {
    fn default() -> Self {
        RttConfig {
            alpha: 0.125,
            beta: 0.25,
            k: 4.0,
            initial_rto: Duration::from_secs(1),
            min_rto: Duration::from_millis(200),
            max_rto: Duration::from_secs(200),
            max_backoff: 64,
            backoff: Backoff::PerTimeout,
            formula: RtoFormula::Rfc6298,
        }
    }
}

/// The largest backoff multiplier: 2^20, far past any RTO cap a run reaches.
pub const MAX_BACKOFF: u32 = 1 << 20;

impl RttConfig {
    /// Check every value; the error names the key relative to the `rtt` table.
    pub fn validate(&self) -> Check {
        check::fraction("alpha", self.alpha)?;
        check::fraction("beta", self.beta)?;
        check::within("k", self.k, 0.0, 1e3)?;
        check::time("initial_rto", self.initial_rto.get(), false)?;
        check::time("min_rto", self.min_rto.get(), true)?;
        check::time("max_rto", self.max_rto.get(), false)?;
        if self.min_rto > self.max_rto {
            return Err(Invalid::new("min_rto", "must not exceed max_rto"));
        }
        check::count("max_backoff", u64::from(self.max_backoff), 1, u64::from(MAX_BACKOFF))
    }
}

#[derive(Clone, Debug)]
pub struct RttEstimator {
    cfg: RttConfig,
    /// Smoothed RTT and variation [s]; `None` before the first sample.
    srtt: Option<f64>,
    rttvar: f64,
    /// ICP's timer τ [s].
    timer: f64,
    backoff: u32,
    /// `rto()` as of the last change: a consumer reads it several times per packet, and the
    /// formula takes a float rounding each time.
    rto: SimDuration,
}

impl RttEstimator {
    pub fn new(cfg: RttConfig) -> RttEstimator {
        let mut e = RttEstimator {
            cfg,
            srtt: None,
            rttvar: 0.0,
            timer: cfg.initial_rto.get().as_secs_f64(),
            backoff: 1,
            rto: SimDuration::ZERO,
        };
        e.rto = e.compute_rto();
        e
    }

    /// Feed one valid sample (Karn's rule already applied). Resets the backoff.
    pub fn add_sample(&mut self, rtt: SimDuration) {
        let r = rtt.as_secs_f64();
        match self.srtt {
            None => {
                self.srtt = Some(r);
                self.rttvar = r / 2.0;
            }
            Some(s) => {
                self.rttvar += self.cfg.beta * ((s - r).abs() - self.rttvar);
                self.srtt = Some(s + self.cfg.alpha * (r - s));
            }
        }
        self.timer += self.cfg.alpha * (self.cfg.k * r - self.timer);
        self.backoff = 1;
        self.rto = self.compute_rto();
    }

    pub fn policy(&self) -> Backoff {
        self.cfg.backoff
    }

    /// Double the RTO after a timeout, up to `max_backoff`.
    pub fn backoff(&mut self) {
        self.backoff = (self.backoff * 2).min(self.cfg.max_backoff);
        self.rto = self.compute_rto();
    }

    pub fn srtt(&self) -> Option<SimDuration> {
        self.srtt.map(SimDuration::from_secs_f64)
    }
    pub fn rttvar(&self) -> SimDuration {
        SimDuration::from_secs_f64(self.rttvar)
    }

    /// The RTO without backoff, clamped to [min, max].
    pub fn base_rto(&self) -> SimDuration {
        let raw = match (self.cfg.formula, self.srtt) {
            (_, None) => self.cfg.initial_rto.get(),
            (RtoFormula::Rfc6298, Some(s)) => SimDuration::from_secs_f64(s + self.cfg.k * self.rttvar),
            (RtoFormula::Icp, Some(_)) => SimDuration::from_secs_f64(self.timer),
        };
        raw.max(self.cfg.min_rto.get()).min(self.cfg.max_rto.get())
    }

    /// The current RTO: base × backoff, never above `max_rto`.
    #[inline]
    pub fn rto(&self) -> SimDuration {
        self.rto
    }
    fn compute_rto(&self) -> SimDuration {
        self.base_rto().saturating_mul(self.backoff as u64).min(self.cfg.max_rto.get())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimDuration {
        SimDuration::from_millis(x)
    }

    #[test]
    fn before_any_sample_the_rto_is_the_initial_one() {
        assert_eq!(RttEstimator::new(RttConfig::default()).rto(), ms(1000));
    }

    #[test]
    fn first_sample_sets_srtt_and_half_of_it_as_variation() {
        let mut e = RttEstimator::new(RttConfig::default());
        e.add_sample(ms(100));
        // srtt 100 ms, rttvar 50 ms, RTO = 100 + 4·50 = 300 ms.
        assert_eq!(e.srtt(), Some(ms(100)));
        assert_eq!(e.rto(), ms(300));
    }

    #[test]
    fn the_icp_timer_moves_a_tenth_of_the_way_to_ten_samples() {
        let cfg = RttConfig {
            formula: RtoFormula::Icp,
            alpha: 0.1,
            k: 10.0,
            min_rto: Duration::from_millis(10),
            ..RttConfig::default()
        };
        let mut e = RttEstimator::new(cfg);
        e.add_sample(ms(50));
        // τ = 0.9·1 s + 0.1·(10·50 ms) = 950 ms.
        assert_eq!(e.rto(), ms(950));
        e.add_sample(ms(50));
        // τ = 0.9·950 + 0.1·500 = 905 ms.
        assert_eq!(e.rto(), ms(905));
    }

    #[test]
    fn second_sample_follows_rfc6298() {
        let mut e = RttEstimator::new(RttConfig::default());
        e.add_sample(ms(100));
        e.add_sample(ms(200));
        // rttvar = 50 + 0.25·(|100 − 200| − 50) = 62.5; srtt = 100 + 0.125·100 = 112.5;
        // RTO = 112.5 + 4·62.5 = 362.5 ms.
        assert_eq!(e.rto(), SimDuration::from_micros(362_500));
    }

    #[test]
    fn rto_after_three_backoffs_is_eight_times_base_and_a_sample_resets_it() {
        let mut e = RttEstimator::new(RttConfig::default());
        e.add_sample(ms(100)); // base 300 ms
        e.backoff();
        e.backoff();
        e.backoff();
        assert_eq!(e.rto(), ms(2400));
        e.add_sample(ms(100));
        // rttvar = 50 + 0.25·(0 − 50) = 37.5; RTO = 100 + 150 = 250 ms, backoff gone.
        assert_eq!(e.rto(), ms(250));
    }

    #[test]
    fn rto_is_clamped_to_min_and_max() {
        let mut e = RttEstimator::new(RttConfig::default());
        e.add_sample(ms(10)); // 10 + 4·5 = 30 ms -> min 200 ms
        assert_eq!(e.rto(), ms(200));
        for _ in 0..20 {
            e.backoff();
        }
        // 200 ms × 64 = 12.8 s, below the 200 s max.
        assert_eq!(e.rto(), ms(12_800));
    }
}
