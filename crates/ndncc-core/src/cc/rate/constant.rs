//! Constant rate (CBR): Interests at a fixed rate whatever the network says.

use serde::{Deserialize, Serialize};

use crate::cc::RateControl;

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

impl ConstantRateConfig {
    pub fn validate(&self) -> Result<(), String> {
        if !(self.rate > 0.0 && self.rate.is_finite()) {
            return Err(format!("rate.rate must be > 0 Interests/s (got {})", self.rate));
        }
        Ok(())
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
