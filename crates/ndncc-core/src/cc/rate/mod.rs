//! Rate controllers, one per file, and the tagged config enum that builds them.

pub mod aimd_rate;
pub mod constant;
pub mod mircc;

use serde::{Deserialize, Serialize};

use super::RateControl;

pub use aimd_rate::{AimdRate, AimdRateConfig};
pub use constant::{ConstantRate, ConstantRateConfig};
pub use mircc::{MirccRate, MirccRateConfig};

/// `[apps.x.rate] type = "..."` in a scenario.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub enum RateConfig {
    /// Constant bit rate (CBR): a fixed number of Interests per second.
    Constant(ConstantRateConfig),
    /// MIRCC consumer: the rate stamped into the last Data (seed 000).
    Mircc(MirccRateConfig),
    /// AIMD on the rate, decreasing on Congestion NACKs (stateful forwarding, B §5.2).
    AimdRate(AimdRateConfig),
}

impl RateConfig {
    pub fn validate(&self) -> Result<(), String> {
        match self {
            RateConfig::Constant(c) => c.validate(),
            RateConfig::Mircc(c) => c.validate(),
            RateConfig::AimdRate(c) => c.validate(),
        }
    }
    pub fn build(&self) -> Box<dyn RateControl> {
        match self {
            RateConfig::Constant(c) => Box::new(ConstantRate::new(c)),
            RateConfig::Mircc(c) => Box::new(MirccRate::new(c)),
            RateConfig::AimdRate(c) => Box::new(AimdRate::new(c)),
        }
    }
    pub fn kind(&self) -> &'static str {
        match self {
            RateConfig::Constant(_) => "constant",
            RateConfig::Mircc(_) => "mircc",
            RateConfig::AimdRate(_) => "aimd-rate",
        }
    }
}
