//! `modules = [{ type = "..." }, ...]` on a node: router-side congestion-control modules.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub enum ModuleConfig {
    /// Stamp a fixed rate [Interests/s] into every Data this node forwards (lowering, never
    /// raising, the stamp). A building block for testing rate-following consumers.
    StaticRateStamp { rate: f64 },
}

impl ModuleConfig {
    pub fn validate(&self) -> Result<(), String> {
        match self {
            ModuleConfig::StaticRateStamp { rate } if !(*rate > 0.0) => {
                Err(format!("static-rate-stamp: rate must be > 0 (got {rate})"))
            }
            _ => Ok(()),
        }
    }
    pub fn kind(&self) -> &'static str {
        match self {
            ModuleConfig::StaticRateStamp { .. } => "static-rate-stamp",
        }
    }
}
