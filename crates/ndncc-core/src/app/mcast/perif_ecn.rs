//! PerIfWithECN's source (ALGORITHMS.md Part B §3.4; Su, Ramakrishnan, Raychaudhuri, LANMAN
//! 2016, after the author's simulator `kais66/cong-simu`), as a baseline of seed 001. The routers'
//! part is the `perif-ecn` module, which sends a suggested rate straight to the source whenever an
//! outgoing queue is over its set point; the receivers are silent.
//!
//! ```text
//!   ECN message with new_rate:  rate = max(new_rate, min_rate)  if new_rate < rate
//!   every `increase_every` bytes sent:  rate = min(rate + increase, max_rate)
//! ```
//!
//! The author's simulator works in bytes per millisecond with chunks of megabytes on 54 Mbit/s
//! links; its constants are kept in bit/s: increase 400 B/ms = 3.2 Mbit/s per 1,000,000 bytes,
//! maximum 3000 B/ms = 24 Mbit/s, minimum 1 B/ms = 8 kbit/s, initial 2000 B/ms = 16 Mbit/s (the
//! code's value: from the seed's 50 kbit/s the first increase would come only after 160 s, a
//! million bytes at that rate). The bytes sent are
//! counted from the rate between updates; the source applies a message at its next millisecond
//! (the simulator's time unit), crediting the old rate until then through its pacing.

use serde::{Deserialize, Serialize};

use super::McastControl;
use crate::packet::McastReport;
use crate::plugin::{check, Check, Invalid, Plugin};
use crate::time::{SimDuration, SimTime};
use crate::units::{Bandwidth, Bytes};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PerIfEcnConfig {
    /// Initial rate. Default 16 Mbit/s.
    pub initial_rate: Bandwidth,
    /// Additive increase per `increase_every` bytes sent. Default 3.2 Mbit/s.
    pub increase: Bandwidth,
    /// Bytes sent between increases. Default 1,000,000 B.
    pub increase_every: Bytes,
    /// Largest rate. Default 24 Mbit/s.
    pub max_rate: Bandwidth,
    /// Smallest rate an ECN message can set. Default 8 kbit/s.
    pub min_rate: Bandwidth,
}

impl Default for PerIfEcnConfig {
    fn default() -> Self {
        PerIfEcnConfig {
            initial_rate: Bandwidth(16_000_000),
            increase: Bandwidth(3_200_000),
            increase_every: Bytes(1_000_000),
            max_rate: Bandwidth(24_000_000),
            min_rate: Bandwidth(8_000),
        }
    }
}

impl Plugin for PerIfEcnConfig {
    type Built = Box<dyn McastControl>;
    fn validate(&self) -> Check {
        for (key, b) in [("initial_rate", self.initial_rate), ("max_rate", self.max_rate), ("min_rate", self.min_rate)]
        {
            if b.bps() == 0 {
                return Err(Invalid::new(key, "must be > 0"));
            }
        }
        check::count("increase_every", self.increase_every.0, 1, 1 << 40)?;
        if self.min_rate.bps() > self.max_rate.bps() {
            return Err(Invalid::new("min_rate", "must not be above max_rate"));
        }
        if self.initial_rate.bps() > self.max_rate.bps() {
            return Err(Invalid::new("initial_rate", "must not be above max_rate"));
        }
        Ok(())
    }
    fn build(&self) -> Box<dyn McastControl> {
        Box::new(PerIfEcn::new(self))
    }
}

pub struct PerIfEcn {
    cfg: PerIfEcnConfig,
    rate: f64,
    /// Bytes sent since the last increase.
    since_increase: f64,
    last: Option<SimTime>,
    messages: u64,
}

impl PerIfEcn {
    pub fn new(cfg: &PerIfEcnConfig) -> PerIfEcn {
        PerIfEcn { cfg: cfg.clone(), rate: cfg.initial_rate.bps() as f64, since_increase: 0.0, last: None, messages: 0 }
    }

    /// An ECN message's suggested rate: obeyed only when lower (§3.4).
    pub fn on_ecn(&mut self, new_rate: f64) {
        self.messages += 1;
        if new_rate < self.rate {
            self.rate = new_rate.max(self.cfg.min_rate.bps() as f64);
        }
    }

    /// Count the bytes sent at the current rate since the last call; each `increase_every`
    /// bytes raise the rate by `increase`.
    pub fn advance(&mut self, now: SimTime) -> f64 {
        if let Some(t) = self.last {
            self.since_increase += self.rate * now.saturating_since(t).as_secs_f64() / 8.0;
        }
        self.last = Some(now);
        let every = self.cfg.increase_every.0 as f64;
        while self.since_increase >= every {
            self.since_increase -= every;
            self.rate = (self.rate + self.cfg.increase.bps() as f64).min(self.cfg.max_rate.bps() as f64);
        }
        self.rate
    }
}

impl McastControl for PerIfEcn {
    fn name(&self) -> &'static str {
        "perif-ecn"
    }
    fn initial_rate(&self) -> f64 {
        self.rate
    }
    fn on_feedback(&mut self, report: &McastReport, _rtt: Option<SimDuration>, now: SimTime) {
        // Bytes sent so far count at the old rate.
        self.advance(now);
        self.on_ecn(report.rate);
    }
    fn adapt(&mut self, _rate: f64, now: SimTime) -> f64 {
        self.advance(now)
    }
    fn cycle(&self, _rtt: SimDuration) -> SimDuration {
        SimDuration::from_millis(1)
    }
    fn metrics(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("ecn_messages", self.messages as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn at(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(ms)
    }

    #[test]
    fn only_lower_suggestions_are_obeyed_down_to_the_floor() {
        let mut p = PerIfEcn::new(&PerIfEcnConfig { initial_rate: Bandwidth(1_000_000), ..Default::default() });
        p.on_ecn(2e6);
        assert_eq!(p.rate, 1e6);
        p.on_ecn(0.4e6);
        assert_eq!(p.rate, 0.4e6);
        p.on_ecn(0.0);
        assert_eq!(p.rate, 8_000.0);
    }

    #[test]
    fn every_million_bytes_sent_adds_the_increase() {
        let mut p = PerIfEcn::new(&PerIfEcnConfig { initial_rate: Bandwidth(4_000_000), ..Default::default() });
        p.advance(at(0));
        // 4 Mbit/s for 1 s = 500,000 B: no increase yet.
        assert_eq!(p.advance(at(1_000)), 4e6);
        // At 2 s the millionth byte: 4 + 3.2 = 7.2 Mbit/s.
        assert_eq!(p.advance(at(2_000)), 7.2e6);
        // Capped at 24 Mbit/s.
        p.rate = 23e6;
        p.since_increase = 999_999.0;
        assert_eq!(p.advance(at(2_001)), 24e6);
    }

    #[test]
    fn validation_names_the_key() {
        let bad = PerIfEcnConfig { min_rate: Bandwidth(0), ..Default::default() };
        assert_eq!(bad.validate().unwrap_err().key, "min_rate");
        let bad = PerIfEcnConfig { increase_every: Bytes(0), ..Default::default() };
        assert_eq!(bad.validate().unwrap_err().key, "increase_every");
    }
}
