//! ndnSIM's old ConsumerWindow (ALGORITHMS.md A2; seed 003, "how ndnSIM performs right now").
//!
//! ```text
//!   Data:     W += 1                  (slow start that never ends)
//!   timeout:  W = initial_window      (every timeout, no threshold)
//!   NACK:     ignored                 (the segment's timer fires later)
//! ```
//!
//! The baseline of experiment E4 (a): the window doubles each RTT until a queue overflows, drops
//! to 2, and climbs again — tens of thousands of timeouts in 40 s on a 50 Mbit/s path.

use serde::{Deserialize, Serialize};

use crate::cc::{DataEvent, LossEvent, NackAction, WindowControl};
use crate::plugin::{check, Check, Plugin};

/// ndnSIM ConsumerWindow's `InitialWindowSize` [packets] (seed 003: "INITIAL_CWND (2)").
pub const INITIAL_WINDOW: f64 = 2.0;
/// Growth per Data [packets]: `m_window++`.
pub const INCREMENT: f64 = 1.0;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ConsumerWindowConfig {
    /// Window at the start and after every timeout [packets]. Default 2.
    pub initial_window: f64,
}

impl Default for ConsumerWindowConfig {
    fn default() -> Self {
        ConsumerWindowConfig { initial_window: INITIAL_WINDOW }
    }
}

impl Plugin for ConsumerWindowConfig {
    type Built = Box<dyn WindowControl>;
    fn validate(&self) -> Check {
        check::window("initial_window", self.initial_window)
    }
    fn build(&self) -> Box<dyn WindowControl> {
        Box::new(ConsumerWindow::new(self))
    }
}

#[derive(Debug)]
pub struct ConsumerWindow {
    window: f64,
    initial_window: f64,
}

impl ConsumerWindow {
    pub fn new(cfg: &ConsumerWindowConfig) -> ConsumerWindow {
        ConsumerWindow { window: cfg.initial_window, initial_window: cfg.initial_window }
    }
}

impl WindowControl for ConsumerWindow {
    fn name(&self) -> &'static str {
        "consumer-window"
    }
    /// W += 1.
    fn on_data(&mut self, _ev: &DataEvent) {
        self.window += INCREMENT;
    }
    /// W = initial window.
    fn on_timeout(&mut self, _ev: &LossEvent) {
        self.window = self.initial_window;
    }
    fn on_nack(&mut self, _ev: &LossEvent) -> NackAction {
        NackAction::Ignore
    }
    fn window(&self) -> f64 {
        self.window
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::window::testkit::{data, nack, timeout};
    use crate::packet::NackReason;

    #[test]
    fn it_starts_at_two_packets() {
        assert_eq!(ConsumerWindow::new(&ConsumerWindowConfig::default()).window(), 2.0);
    }

    #[test]
    fn every_data_adds_one_packet_however_large_the_window() {
        let mut c = ConsumerWindow::new(&ConsumerWindowConfig::default());
        c.window = 500.0;
        c.on_data(&data(0, 1));
        assert_eq!(c.window(), 501.0);
    }

    #[test]
    fn every_timeout_returns_to_the_initial_window() {
        let mut c = ConsumerWindow::new(&ConsumerWindowConfig { initial_window: 3.0 });
        c.window = 500.0;
        c.on_timeout(&timeout(0, 1));
        assert_eq!(c.window(), 3.0);
        c.on_data(&data(1, 2));
        c.on_timeout(&timeout(2, 3));
        assert_eq!(c.window(), 3.0);
    }

    #[test]
    fn nacks_are_ignored_and_not_retransmitted() {
        let mut c = ConsumerWindow::new(&ConsumerWindowConfig::default());
        c.window = 40.0;
        assert_eq!(c.on_nack(&nack(0, 1, NackReason::Congestion, true)), NackAction::Ignore);
        assert_eq!(c.window(), 40.0);
    }

    #[test]
    fn an_initial_window_below_one_is_rejected() {
        let err = ConsumerWindowConfig { initial_window: 0.5 }.validate().unwrap_err();
        assert_eq!(err.key, "initial_window", "{err}");
    }
}
