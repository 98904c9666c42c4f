//! CUBIC and BIC as TCP controllers: the window laws the NDN consumers run (`cc/window/`), here
//! in segments of the flow's MSS. Each acknowledged segment is one step of the law (the laws
//! grow per Data, and a Data is one segment); a congestion event sets ssthresh to the law's
//! decreased window.

use serde::{Deserialize, Serialize};

use super::{TcpAck, TcpControl, TcpLoss};
use crate::cc::window::{BicConfig, BicLaw, CubicConfig, CubicLaw, WindowLaw};
use crate::cc::DataEvent;
use crate::plugin::{check, Check, Plugin};

/// `cc = { type = "cubic" }`: RFC 9438's constants by default.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TcpCubicConfig {
    /// C [segments/s³]. Default 0.4.
    pub c: f64,
    /// β_cubic. Default 0.7 (RFC 9438).
    pub beta: f64,
    /// Lower W_max when losses come below the previous W_max. Default true (RFC 9438).
    pub fast_convergence: bool,
}

impl Default for TcpCubicConfig {
    fn default() -> Self {
        TcpCubicConfig { c: 0.4, beta: 0.7, fast_convergence: true }
    }
}

impl Plugin for TcpCubicConfig {
    type Built = Box<dyn TcpControl>;
    fn validate(&self) -> Check {
        check::positive_at_most("c", self.c, 1e6)?;
        check::factor("beta", self.beta)
    }
    fn build(&self) -> Box<dyn TcpControl> {
        let cfg =
            CubicConfig { c: self.c, beta: self.beta, fast_convergence: self.fast_convergence, ..Default::default() };
        Box::new(LawControl { name: "cubic", law: CubicLaw::new(&cfg) })
    }
}

/// `cc = { type = "bic" }`: BIC's constants (β 0.8, B 4, S_max 16, low window 14).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TcpBicConfig {}

impl Plugin for TcpBicConfig {
    type Built = Box<dyn TcpControl>;
    fn build(&self) -> Box<dyn TcpControl> {
        Box::new(LawControl { name: "bic", law: BicLaw::new(&BicConfig::default()) })
    }
}

/// A window law run in segments.
#[derive(Debug)]
pub struct LawControl<L> {
    name: &'static str,
    law: L,
}

impl<L: WindowLaw> TcpControl for LawControl<L> {
    fn name(&self) -> &'static str {
        self.name
    }
    fn on_ack(&mut self, ev: &TcpAck) -> f64 {
        let mss = f64::from(ev.mss);
        let data = DataEvent {
            now: ev.now,
            seq: 0,
            rtt: None,
            srtt: ev.srtt,
            marked: false,
            rate_stamp: f64::INFINITY,
            next_seq: 0,
            highest_received: 0,
            in_flight: 0,
            data_size: ev.mss,
            interest_size: 0,
            route: 0,
        };
        let mut w = ev.cwnd / mss;
        for _ in 0..ev.acked.div_ceil(u64::from(ev.mss.max(1))).max(1) {
            w += self.law.increment(w, &data);
        }
        w * mss
    }
    fn ssthresh_after(&mut self, ev: &TcpLoss) -> f64 {
        let mss = f64::from(ev.mss);
        self.law.on_decrease(ev.cwnd / mss, ev.now) * mss
    }
    fn metrics(&self, out: &mut Vec<(&'static str, f64)>) {
        self.law.metrics(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimTime;

    #[test]
    fn cubic_decreases_to_beta_times_the_window() {
        // 20 segments of 1,000 B at a loss: 0.7 · 20 = 14 segments.
        let mut c = TcpCubicConfig::default().build();
        let loss = TcpLoss { now: SimTime::ZERO, cwnd: 20_000.0, flight: 20_000, mss: 1000 };
        assert!((c.ssthresh_after(&loss) - 14_000.0).abs() < 1e-6);
    }
}
