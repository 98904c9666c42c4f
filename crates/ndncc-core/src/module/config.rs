//! `modules = [{ type = "..." }, ...]` on a node: router-side congestion-control modules.

use serde::{Deserialize, Serialize};

use super::interest_limit::InterestLimitConfig;
use super::mircc::MirccConfig;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub enum ModuleConfig {
    /// Stamp a fixed rate [Interests/s] into every Data this node forwards (lowering, never
    /// raising, the stamp). A building block for testing rate-following consumers.
    StaticRateStamp { rate: f64 },
    /// MIRCC: per-link stamping rate R(t) every interval T (seed 000, ALGORITHMS.md A6).
    Mircc(MirccConfig),
    /// Stateful-forwarding Interest limiting: a per-face limit of outstanding Interests or of
    /// their rate; an Interest over it is refused with a Congestion NACK (ALGORITHMS.md B §5.2).
    InterestLimit(InterestLimitConfig),
}

impl ModuleConfig {
    pub fn validate(&self) -> Result<(), String> {
        match self {
            // Written so that NaN is rejected too.
            ModuleConfig::StaticRateStamp { rate } if !rate.is_finite() || *rate <= 0.0 => {
                Err(format!("static-rate-stamp: rate must be > 0 (got {rate})"))
            }
            ModuleConfig::StaticRateStamp { .. } => Ok(()),
            ModuleConfig::Mircc(c) => c.validate(),
            ModuleConfig::InterestLimit(c) => c.validate(),
        }
    }
    pub fn kind(&self) -> &'static str {
        match self {
            ModuleConfig::StaticRateStamp { .. } => "static-rate-stamp",
            ModuleConfig::Mircc(_) => "mircc",
            ModuleConfig::InterestLimit(_) => "interest-limit",
        }
    }
}

impl ModuleConfig {
    /// Build the module (the config is valid: it passed `validate`).
    pub fn build(&self) -> Box<dyn super::RouterModule> {
        match self {
            ModuleConfig::StaticRateStamp { rate } => Box::new(super::static_stamp::StaticRateStamp::new(*rate)),
            ModuleConfig::Mircc(c) => Box::new(super::mircc::Mircc::new(c)),
            ModuleConfig::InterestLimit(c) => Box::new(super::interest_limit::InterestLimit::new(c)),
        }
    }
}
