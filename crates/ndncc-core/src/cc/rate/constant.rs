//! Constant rate (CBR): Interests at a fixed rate whatever the network says.

use serde::{Deserialize, Serialize};

use crate::cc::RateControl;
use crate::plugin::{check, Check, Plugin};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ConstantRateConfig {
    /// Sending rate [Interests/s].
    pub rate: f64,
}

impl Default for ConstantRateConfig {
    fn default() -> Self {
        ConstantRateConfig { rate: 100.0 }
    }
}

impl Plugin for ConstantRateConfig {
    type Built = Box<dyn RateControl>;
    fn validate(&self) -> Check {
        check::rate("rate", self.rate)
    }
    fn build(&self) -> Box<dyn RateControl> {
        Box::new(ConstantRate::new(self))
    }
}

#[derive(Debug)]
pub struct ConstantRate {
    rate: f64,
}

impl ConstantRate {
    pub fn new(cfg: &ConstantRateConfig) -> ConstantRate {
        ConstantRate { rate: cfg.rate }
    }
}

impl RateControl for ConstantRate {
    fn name(&self) -> &'static str {
        "constant"
    }
    fn rate(&self) -> f64 {
        self.rate
    }
}
