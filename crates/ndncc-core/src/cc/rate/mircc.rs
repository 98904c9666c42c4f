//! The MIRCC consumer (seed 000, ALGORITHMS.md A6): send at the rate stamped into the last Data
//! received, or at `initial_rate` until the first stamp arrives.
//!
//! ```text
//!   Data with stamp s:  rate = s    if s is finite and > 0 (a Data no router stamped is ignored)
//!   timeout, NACK:      no change   (MIRCC reacts to stamps only)
//! ```

use serde::{Deserialize, Serialize};

use crate::cc::{DataEvent, LossEvent, NackAction, RateControl};
use crate::plugin::{check, Check, Plugin};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MirccRateConfig {
    /// Sending rate before the first stamp [Interests/s]. Default 100 (our assumption; the
    /// seed does not give it).
    pub initial_rate: f64,
}

impl Default for MirccRateConfig {
    fn default() -> Self {
        MirccRateConfig { initial_rate: 100.0 }
    }
}

impl Plugin for MirccRateConfig {
    type Built = Box<dyn RateControl>;
    fn validate(&self) -> Check {
        check::rate("initial_rate", self.initial_rate)
    }
    fn build(&self) -> Box<dyn RateControl> {
        Box::new(MirccRate::new(self))
    }
}

#[derive(Debug)]
pub struct MirccRate {
    rate: f64,
}

impl MirccRate {
    pub fn new(cfg: &MirccRateConfig) -> MirccRate {
        MirccRate { rate: cfg.initial_rate }
    }
}

impl RateControl for MirccRate {
    fn name(&self) -> &'static str {
        "mircc"
    }
    fn on_data(&mut self, ev: &DataEvent) {
        let s = ev.rate_stamp;
        if s > 0.0 && s.is_finite() {
            self.rate = s;
        }
    }
    fn on_timeout(&mut self, _ev: &LossEvent) {}
    /// A NACK ends the Interest (with retransmission off it is lost); the rate is unchanged.
    fn on_nack(&mut self, _ev: &LossEvent) -> NackAction {
        NackAction::Retransmit
    }
    fn rate(&self) -> f64 {
        self.rate
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimTime;

    fn data(stamp: f64) -> DataEvent {
        DataEvent {
            now: SimTime(0),
            seq: 0,
            rtt: None,
            srtt: None,
            marked: false,
            rate_stamp: stamp,
            next_seq: 1,
            highest_received: 0,
            in_flight: 0,
            data_size: 1250,
            interest_size: 40,
            route: 0,
        }
    }

    #[test]
    fn the_initial_rate_holds_until_the_first_stamp() {
        let mut c = MirccRate::new(&MirccRateConfig { initial_rate: 50.0 });
        assert_eq!(c.rate(), 50.0);
        c.on_data(&data(f64::INFINITY));
        assert_eq!(c.rate(), 50.0);
    }

    #[test]
    fn the_rate_follows_every_stamp_up_and_down() {
        let mut c = MirccRate::new(&MirccRateConfig::default());
        for s in [1000.0, 600.0, 612.5, 1200.0] {
            c.on_data(&data(s));
            assert_eq!(c.rate(), s);
        }
    }

    #[test]
    fn unusable_stamps_are_ignored() {
        let mut c = MirccRate::new(&MirccRateConfig::default());
        c.on_data(&data(600.0));
        for s in [0.0, -5.0, f64::NAN, f64::INFINITY] {
            c.on_data(&data(s));
            assert_eq!(c.rate(), 600.0);
        }
    }
}
