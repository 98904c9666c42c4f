//! A fixed window: keeps `window` Interests in flight whatever happens. The baseline that shows
//! the network without consumer congestion control, and the benchmark's traffic source.

use serde::{Deserialize, Serialize};

use crate::cc::{DataEvent, LossEvent, WindowControl};
use crate::plugin::{check, Check, Plugin};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct FixedWindowConfig {
    /// Interests in flight [packets].
    pub window: f64,
}

impl Default for FixedWindowConfig {
    fn default() -> Self {
        FixedWindowConfig { window: 10.0 }
    }
}

impl Plugin for FixedWindowConfig {
    type Built = Box<dyn WindowControl>;
    fn validate(&self) -> Check {
        check::window("window", self.window)
    }
    fn build(&self) -> Box<dyn WindowControl> {
        Box::new(FixedWindow::new(self))
    }
}

#[derive(Debug)]
pub struct FixedWindow {
    window: f64,
}

impl FixedWindow {
    pub fn new(cfg: &FixedWindowConfig) -> FixedWindow {
        FixedWindow { window: cfg.window }
    }
}

impl WindowControl for FixedWindow {
    fn name(&self) -> &'static str {
        "fixed"
    }
    fn on_data(&mut self, _ev: &DataEvent) {}
    fn on_timeout(&mut self, _ev: &LossEvent) {}
    fn window(&self) -> f64 {
        self.window
    }
}
