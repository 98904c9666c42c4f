//! Window controllers, one per file, and the tagged config enum that builds them.

pub mod fixed;

use serde::{Deserialize, Serialize};

use super::WindowControl;

pub use fixed::{FixedWindow, FixedWindowConfig};

/// `[apps.x.window] type = "..."` in a scenario: which window algorithm and its parameters.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub enum WindowConfig {
    /// A constant window (no congestion control).
    Fixed(FixedWindowConfig),
}

impl WindowConfig {
    /// Check parameters; the message names the offending key.
    pub fn validate(&self) -> Result<(), String> {
        match self {
            WindowConfig::Fixed(c) => c.validate(),
        }
    }
    pub fn build(&self) -> Box<dyn WindowControl> {
        match self {
            WindowConfig::Fixed(c) => Box::new(FixedWindow::new(c)),
        }
    }
    /// The `type` string of this config.
    pub fn kind(&self) -> &'static str {
        match self {
            WindowConfig::Fixed(_) => "fixed",
        }
    }
}
