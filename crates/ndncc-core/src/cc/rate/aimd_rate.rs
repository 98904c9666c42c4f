//! AIMD on a rate, for stateful-forwarding Interest limiting (ALGORITHMS.md B §5.2): grow while
//! Data arrive, halve on a Congestion NACK, at most once per RTT.
//!
//! In window terms W = rate × srtt, the law is TCP's:
//!
//! ```text
//!   Data, slow start (before the first decrease):  W += 1          → rate += 1/srtt
//!   Data, afterwards:                              W += increase/W → rate += increase/(rate·srtt²)
//!   Congestion NACK (and timeout, if enabled), if no decrease in the last srtt:
//!                                                  rate = max(min_rate, beta · rate)
//! ```
//!
//! So the rate doubles per RTT in slow start and then grows by `increase`/srtt per RTT. Data
//! before the first RTT sample do not change the rate. A NACK of another reason changes nothing.

use serde::{Deserialize, Serialize};

use crate::cc::{DataEvent, LossEvent, NackAction, RateControl};
use crate::packet::NackReason;
use crate::plugin::{check, Check, Invalid, Plugin};
use crate::time::{SimDuration, SimTime};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AimdRateConfig {
    /// Rate at the start [Interests/s]. Default 100.
    pub initial_rate: f64,
    /// Additive increase: window growth per RTT after slow start [Interests]. Default 1 (TCP).
    pub increase: f64,
    /// Multiplicative decrease factor. Default 0.5.
    pub beta: f64,
    /// Start in slow start (rate doubling per RTT until the first decrease). Default true.
    pub slow_start: bool,
    /// A timeout decreases like a Congestion NACK. Default true.
    pub decrease_on_timeout: bool,
    /// Rate bounds [Interests/s]. Defaults 1 and unbounded.
    pub min_rate: f64,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_rate: Option<f64>,
}

impl Default for AimdRateConfig {
    fn default() -> Self {
        AimdRateConfig {
            initial_rate: 100.0,
            increase: 1.0,
            beta: 0.5,
            slow_start: true,
            decrease_on_timeout: true,
            min_rate: 1.0,
            max_rate: None,
        }
    }
}

impl Plugin for AimdRateConfig {
    type Built = Box<dyn RateControl>;
    fn validate(&self) -> Check {
        check::rate("initial_rate", self.initial_rate)?;
        check::rate("increase", self.increase)?;
        check::rate("min_rate", self.min_rate)?;
        check::factor("beta", self.beta)?;
        if let Some(m) = self.max_rate {
            check::rate("max_rate", m)?;
            if m < self.min_rate {
                return Err(Invalid::new("max_rate", format!("({m}) must not be below min_rate ({})", self.min_rate)));
            }
        }
        Ok(())
    }
    fn build(&self) -> Box<dyn RateControl> {
        Box::new(AimdRate::new(self))
    }
}

#[derive(Debug)]
pub struct AimdRate {
    cfg: AimdRateConfig,
    rate: f64,
    in_slow_start: bool,
    last_decrease: Option<SimTime>,
}

impl AimdRate {
    pub fn new(cfg: &AimdRateConfig) -> AimdRate {
        AimdRate { cfg: cfg.clone(), rate: cfg.initial_rate, in_slow_start: cfg.slow_start, last_decrease: None }
    }

    fn clamp(&self, r: f64) -> f64 {
        r.min(self.cfg.max_rate.unwrap_or(f64::INFINITY)).max(self.cfg.min_rate)
    }

    /// Decrease unless one happened within the last srtt.
    fn decrease(&mut self, now: SimTime, srtt: Option<SimDuration>) {
        let gap = srtt.unwrap_or(SimDuration::ZERO);
        if self.last_decrease.is_some_and(|t| now.saturating_since(t) < gap) {
            return;
        }
        self.last_decrease = Some(now);
        self.in_slow_start = false;
        self.rate = self.clamp(self.cfg.beta * self.rate);
    }
}

impl RateControl for AimdRate {
    fn name(&self) -> &'static str {
        "aimd-rate"
    }
    fn on_data(&mut self, ev: &DataEvent) {
        let Some(srtt) = ev.srtt.map(|s| s.as_secs_f64()).filter(|s| *s > 0.0) else { return };
        let step = if self.in_slow_start { 1.0 / srtt } else { self.cfg.increase / (self.rate * srtt * srtt) };
        self.rate = self.clamp(self.rate + step);
    }
    fn on_timeout(&mut self, ev: &LossEvent) {
        if self.cfg.decrease_on_timeout {
            self.decrease(ev.now, ev.srtt);
        }
    }
    fn on_nack(&mut self, ev: &LossEvent) -> NackAction {
        if ev.nack == Some(NackReason::Congestion) {
            self.decrease(ev.now, ev.srtt);
        }
        NackAction::Retransmit
    }
    fn rate(&self) -> f64 {
        self.rate
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const MS: u64 = 1_000_000;

    fn data(srtt_ms: u64) -> DataEvent {
        DataEvent {
            now: SimTime(0),
            seq: 0,
            rtt: None,
            srtt: Some(SimDuration::from_millis(srtt_ms)),
            marked: false,
            rate_stamp: f64::INFINITY,
            next_seq: 1,
            highest_received: 0,
            in_flight: 0,
            data_size: 1250,
            interest_size: 40,
            route: 0,
        }
    }

    fn nack(at_ms: u64, reason: NackReason) -> LossEvent {
        LossEvent {
            now: SimTime(at_ms * MS),
            seq: 0,
            nack: Some(reason),
            marked: false,
            next_seq: 1,
            highest_received: 0,
            in_flight: 0,
            srtt: Some(SimDuration::from_millis(400)),
        }
    }

    #[test]
    fn slow_start_adds_one_over_srtt_per_data() {
        // srtt 0.4 s: +1/0.4 = +2.5 Interests/s per Data: 100 → 102.5 → 105.
        let mut c = AimdRate::new(&AimdRateConfig::default());
        c.on_data(&data(400));
        assert!((c.rate() - 102.5).abs() < 1e-9);
        c.on_data(&data(400));
        assert!((c.rate() - 105.0).abs() < 1e-9);
    }

    #[test]
    fn a_congestion_nack_halves_once_per_rtt_and_ends_slow_start() {
        let mut c = AimdRate::new(&AimdRateConfig { initial_rate: 800.0, ..AimdRateConfig::default() });
        assert_eq!(c.on_nack(&nack(1000, NackReason::Congestion)), NackAction::Retransmit);
        assert_eq!(c.rate(), 400.0);
        // 399 ms later (< srtt 400 ms): no second decrease.
        c.on_nack(&nack(1399, NackReason::Congestion));
        assert_eq!(c.rate(), 400.0);
        // 400 ms later: 200.
        c.on_nack(&nack(1400, NackReason::Congestion));
        assert_eq!(c.rate(), 200.0);
        // Congestion avoidance: +1/(200 · 0.4²) = +1/32 = 0.03125 per Data.
        c.on_data(&data(400));
        assert!((c.rate() - 200.03125).abs() < 1e-9);
    }

    #[test]
    fn other_nacks_and_data_without_rtt_change_nothing() {
        let mut c = AimdRate::new(&AimdRateConfig::default());
        c.on_nack(&nack(0, NackReason::NoRoute));
        assert_eq!(c.rate(), 100.0);
        c.on_data(&DataEvent { srtt: None, ..data(400) });
        assert_eq!(c.rate(), 100.0);
    }

    #[test]
    fn the_rate_stays_within_its_bounds() {
        let cfg = AimdRateConfig { initial_rate: 1.5, max_rate: Some(2.0), ..AimdRateConfig::default() };
        let mut c = AimdRate::new(&cfg);
        c.on_nack(&nack(0, NackReason::Congestion));
        assert_eq!(c.rate(), 1.0);
        for _ in 0..10 {
            c.on_data(&data(100));
        }
        assert_eq!(c.rate(), 2.0);
    }
}
