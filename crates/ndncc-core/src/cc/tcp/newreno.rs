//! NewReno's window rules (RFC 5681 §3.1, RFC 6582 §3.2): in congestion avoidance the window
//! grows by MSS²/cwnd per ACK (about one segment per round trip, eq. 3); after a congestion
//! event ssthresh = max(FlightSize/2, 2·MSS) (eq. 4).

use serde::{Deserialize, Serialize};

use super::{TcpAck, TcpControl, TcpLoss};
use crate::plugin::{check, Check, Plugin};

/// `cc = { type = "newreno" }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct NewRenoConfig {
    /// ssthresh = beta · FlightSize after a loss. Default 0.5 (RFC 5681 eq. 4).
    pub beta: f64,
}

impl Default for NewRenoConfig {
    fn default() -> Self {
        NewRenoConfig { beta: 0.5 }
    }
}

impl Plugin for NewRenoConfig {
    type Built = Box<dyn TcpControl>;
    fn validate(&self) -> Check {
        check::factor("beta", self.beta)
    }
    fn build(&self) -> Box<dyn TcpControl> {
        Box::new(NewReno { beta: self.beta })
    }
}

#[derive(Debug)]
pub struct NewReno {
    beta: f64,
}

impl TcpControl for NewReno {
    fn name(&self) -> &'static str {
        "newreno"
    }
    /// RFC 5681 eq. 3: cwnd += MSS · MSS / cwnd.
    fn on_ack(&mut self, ev: &TcpAck) -> f64 {
        let mss = f64::from(ev.mss);
        ev.cwnd + mss * mss / ev.cwnd.max(mss)
    }
    /// RFC 5681 eq. 4: ssthresh = max(FlightSize / 2, 2 · MSS).
    fn ssthresh_after(&mut self, ev: &TcpLoss) -> f64 {
        (ev.flight as f64 * self.beta).max(2.0 * f64::from(ev.mss))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimTime;

    #[test]
    fn congestion_avoidance_adds_one_segment_per_window_of_acks() {
        // cwnd 10 segments of 1,000 B: each ACK adds 1,000²/10,000 = 100 B.
        let mut c = NewReno { beta: 0.5 };
        let ev = TcpAck { now: SimTime::ZERO, cwnd: 10_000.0, acked: 1000, mss: 1000, srtt: None };
        assert_eq!(c.on_ack(&ev), 10_100.0);
    }

    #[test]
    fn a_loss_halves_the_flight_but_never_below_two_segments() {
        let mut c = NewReno { beta: 0.5 };
        let loss = |flight| TcpLoss { now: SimTime::ZERO, cwnd: 20_000.0, flight, mss: 1000 };
        assert_eq!(c.ssthresh_after(&loss(20_000)), 10_000.0);
        assert_eq!(c.ssthresh_after(&loss(3_000)), 2_000.0);
    }
}
