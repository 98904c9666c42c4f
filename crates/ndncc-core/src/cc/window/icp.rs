//! ICP, the Interest Control Protocol (Carofiglio, Gallo, Muscariello, ICN 2012; ALGORITHMS.md
//! Part B §6.1): a receiver-driven AIMD window.
//!
//! ```text
//!   Data:     W += η / W                                   (η = 1: one Interest per RTT)
//!   timeout:  W = max(W_min, β·W), β = ½                  (then the segment is re-expressed)
//! ```
//!
//! The papers treat the losses of one window as one event; libndn-icp decreases on every
//! timeout. `one_decrease_per_window` (default true) picks the first: after a decrease, further
//! timeouts of segments sent before it leave the window alone. ICP's own timer — τ ← 0.9·τ +
//! 0.1·(10·RTT) — is the consumer's `rtt = { formula = "icp", alpha = 0.1, k = 10 }`.
//!
//! `IcpWindow` (the increase, the decrease and its gate) is shared with `raaqm`.

use serde::{Deserialize, Serialize};

use crate::cc::{DataEvent, LossEvent, WindowControl};
use crate::plugin::{check, Check, Plugin};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct IcpConfig {
    /// Window at the start [packets]. Default 1.
    pub initial_window: f64,
    /// Floor of every decrease, W_min [packets]. Default 1.
    pub min_window: f64,
    /// Additive increase per window of Data, η. Default 1.
    pub eta: f64,
    /// Multiplicative decrease β. Default 0.5.
    pub beta: f64,
    /// Treat the timeouts of one window as one loss event. Default true (the papers);
    /// false decreases on every timeout (libndn-icp).
    pub one_decrease_per_window: bool,
}

impl Default for IcpConfig {
    fn default() -> Self {
        IcpConfig { initial_window: 1.0, min_window: 1.0, eta: 1.0, beta: 0.5, one_decrease_per_window: true }
    }
}

impl IcpConfig {
    /// The checks shared with `raaqm`.
    pub fn check(&self) -> Check {
        check::window("initial_window", self.initial_window)?;
        check::window("min_window", self.min_window)?;
        check::positive_at_most("eta", self.eta, 1e3)?;
        check::within("beta", self.beta, 0.0, 1.0)
    }
}

impl Plugin for IcpConfig {
    type Built = Box<dyn WindowControl>;
    fn validate(&self) -> Check {
        self.check()
    }
    fn build(&self) -> Box<dyn WindowControl> {
        Box::new(Icp { w: IcpWindow::new(self) })
    }
}

/// The window ICP and RAAQM share.
#[derive(Clone, Debug)]
pub struct IcpWindow {
    pub window: f64,
    min_window: f64,
    eta: f64,
    beta: f64,
    one_per_window: bool,
    /// Timeouts of segments below this were sent before the last decrease.
    recovery: u64,
}

impl IcpWindow {
    pub fn new(cfg: &IcpConfig) -> IcpWindow {
        IcpWindow {
            window: cfg.initial_window.max(cfg.min_window),
            min_window: cfg.min_window,
            eta: cfg.eta,
            beta: cfg.beta,
            one_per_window: cfg.one_decrease_per_window,
            recovery: 0,
        }
    }
    /// W += η/W, never above `cap`.
    pub fn increase(&mut self, cap: f64) {
        self.window = (self.window + self.eta / self.window).min(cap.max(self.min_window));
    }
    /// W = max(W_min, β·W); `next_seq` starts the next window.
    pub fn decrease(&mut self, next_seq: u64) {
        self.window = (self.beta * self.window).max(self.min_window);
        self.recovery = next_seq;
    }
    /// A timeout of `seq`: decrease unless it belongs to a window already decreased for.
    pub fn on_timeout(&mut self, seq: u64, next_seq: u64) {
        if !self.one_per_window || seq >= self.recovery {
            self.decrease(next_seq);
        }
    }
}

pub struct Icp {
    w: IcpWindow,
}

impl WindowControl for Icp {
    fn name(&self) -> &'static str {
        "icp"
    }
    fn on_data(&mut self, _ev: &DataEvent) {
        self.w.increase(f64::INFINITY);
    }
    fn on_timeout(&mut self, ev: &LossEvent) {
        self.w.on_timeout(ev.seq, ev.next_seq);
    }
    fn window(&self) -> f64 {
        self.w.window
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::window::testkit::{data, timeout};

    #[test]
    fn grows_by_eta_over_w_and_halves_once_per_window() {
        let mut c = Icp { w: IcpWindow::new(&IcpConfig { initial_window: 4.0, ..IcpConfig::default() }) };
        c.on_data(&data(0, 1));
        assert!((c.window() - 4.25).abs() < 1e-12);
        c.on_timeout(&timeout(10, 5)); // next_seq 20
        assert!((c.window() - 2.125).abs() < 1e-12);
        c.on_timeout(&timeout(11, 6)); // sent before the decrease: same loss event
        assert!((c.window() - 2.125).abs() < 1e-12);
        c.on_timeout(&timeout(12, 20));
        assert!((c.window() - 1.0625).abs() < 1e-12);
        c.on_timeout(&timeout(13, 25));
        assert_eq!(c.window(), 1.0, "never below W_min");
    }

    #[test]
    fn libndn_icp_decreases_on_every_timeout() {
        let cfg = IcpConfig { initial_window: 8.0, one_decrease_per_window: false, ..IcpConfig::default() };
        let mut c = Icp { w: IcpWindow::new(&cfg) };
        c.on_timeout(&timeout(10, 5));
        c.on_timeout(&timeout(10, 6));
        assert_eq!(c.window(), 2.0);
    }
}
