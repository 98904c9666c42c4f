//! Rate controllers, one per file, and the tagged config enum that builds them.

pub mod constant;

use serde::{Deserialize, Serialize};

use super::RateControl;

pub use constant::{ConstantRate, ConstantRateConfig};

/// `[apps.x.rate] type = "..."` in a scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub enum RateConfig {
    /// Constant bit rate (CBR): a fixed number of Interests per second.
    Constant(ConstantRateConfig),
}

impl RateConfig {
    pub fn validate(&self) -> Result<(), String> {
        match self {
            RateConfig::Constant(c) => c.validate(),
        }
    }
    pub fn build(&self) -> Box<dyn RateControl> {
        match self {
            RateConfig::Constant(c) => Box::new(ConstantRate::new(c)),
        }
    }
    pub fn kind(&self) -> &'static str {
        match self {
            RateConfig::Constant(_) => "constant",
        }
    }
}
