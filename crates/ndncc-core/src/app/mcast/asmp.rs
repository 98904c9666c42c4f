//! ASMP, the Adaptive Smooth Multicast Protocol (Bouras, Gkamas, Kioumourtzis), as a baseline of
//! seed 001, following the reconstruction of ALGORITHMS.md Part B §2: the papers' equations are
//! not at hand, so everything below beyond "receivers compute a TCP-friendly rate, smooth it with
//! a dynamically adjusted smoothness factor and report it in RTCP receiver reports; the sender
//! follows the worst receiver" is reconstructed.
//!
//! ```text
//!   receiver, every RTCP interval:
//!     r_tcp = X(p, R)  (TFRC loss-event rate p, §0/§1.6)   — before the first loss: 2·X_recv
//!     SF    = min(SF + 1, sf_max) if a loss event happened since the last report,
//!             max(SF − 1, 1) otherwise                     (smoother while losses are frequent)
//!     r     = r + (r_tcp − r)/SF  if r_tcp ≥ r  (smooth increase),  r_tcp otherwise (prompt cut)
//!     report r
//!   RTCP interval: 360 s·kbit/s / session bandwidth, at most `max_interval` (RFC 3550 §6.2's
//!   reduced minimum, below its 5 s minimum); the session bandwidth is the source's rate, which
//!   each Data carries in `report.rate`
//!   source, every round trip: rate = min of the receivers' reports younger than `expiry`
//! ```
//!
//! Reconstructed or assumed: the SF rule (one step per report, up on a loss event, down
//! otherwise), the RTCP interval without its randomisation over [0.5, 1.5] (kept at its mean;
//! with the mean kept, the e − 3/2 compensation is left out too), the round
//! trip (the receiver app's estimate, twice its one-way delay, instead of RTCP's LSR/DLSR
//! echo), the report expiry and the initial rate (the seed's 50 kbit/s for every mechanism).

use serde::{Deserialize, Serialize};

use super::tfrc::{throughput, TfrcReceiver};
use super::{DataSeen, McastControl, McastReporting};
use crate::ids::NodeId;
use crate::packet::McastReport;
use crate::plugin::{check, Check, Invalid, Plugin};
use crate::time::{SimDuration, SimTime};
use crate::units::{Bandwidth, Duration};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct AsmpConfig {
    /// Initial rate. Default 50 kbit/s.
    pub initial_rate: Bandwidth,
    /// Largest smoothness factor SF_max. Default 4.
    pub sf_max: f64,
    /// Longest RTCP report interval (RFC 3550's minimum, 5 s). Default 5 s.
    pub max_interval: Duration,
    /// A receiver's report older than this no longer counts at the source. Default 15 s.
    pub expiry: Duration,
    /// Receive rate window in round trips (for 2·X_recv before the first loss). Default 2.
    pub recv_rate_rtts: f64,
}

impl Default for AsmpConfig {
    fn default() -> Self {
        AsmpConfig {
            initial_rate: Bandwidth(50_000),
            sf_max: 4.0,
            max_interval: Duration::from_secs(5),
            expiry: Duration::from_secs(15),
            recv_rate_rtts: 2.0,
        }
    }
}

impl Plugin for AsmpConfig {
    type Built = Box<dyn McastControl>;
    fn validate(&self) -> Check {
        if self.initial_rate.bps() == 0 {
            return Err(Invalid::new("initial_rate", "must be > 0"));
        }
        check::within("sf_max", self.sf_max, 1.0, 64.0)?;
        check::time("max_interval", self.max_interval.get(), false)?;
        check::time("expiry", self.expiry.get(), false)?;
        check::within("recv_rate_rtts", self.recv_rate_rtts, 1.0, 16.0)
    }
    fn build(&self) -> Box<dyn McastControl> {
        Box::new(Asmp::new(self))
    }
}

/// The ASMP source: the smallest fresh report.
pub struct Asmp {
    cfg: AsmpConfig,
    reports: Vec<(NodeId, f64, SimTime)>,
}

impl Asmp {
    pub fn new(cfg: &AsmpConfig) -> Asmp {
        Asmp { cfg: cfg.clone(), reports: Vec::new() }
    }
}

impl McastControl for Asmp {
    fn name(&self) -> &'static str {
        "asmp"
    }
    fn initial_rate(&self) -> f64 {
        self.cfg.initial_rate.bps() as f64
    }
    fn on_feedback(&mut self, report: &McastReport, rtt: Option<SimDuration>, now: SimTime) {
        self.on_feedback_from(NodeId(u32::MAX), report, rtt, now);
    }
    fn on_feedback_from(&mut self, origin: NodeId, report: &McastReport, _rtt: Option<SimDuration>, now: SimTime) {
        match self.reports.iter_mut().find(|(id, _, _)| *id == origin) {
            Some(r) => *r = (origin, report.rate, now),
            None => self.reports.push((origin, report.rate, now)),
        }
    }
    fn adapt(&mut self, rate: f64, now: SimTime) -> f64 {
        let expiry = self.cfg.expiry.get();
        self.reports.retain(|(_, _, t)| now.saturating_since(*t) <= expiry);
        self.reports.iter().map(|(_, r, _)| *r).reduce(f64::min).unwrap_or(rate)
    }
    fn cycle(&self, rtt: SimDuration) -> SimDuration {
        rtt
    }
    fn data_report(&mut self, rate: f64, _now: SimTime) -> McastReport {
        McastReport { rate, hi: 0.0, lo: 0.0 }
    }
    fn metrics(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("fresh_reports", self.reports.len() as f64));
    }
}

/// One ASMP receiver.
pub struct AsmpReporting {
    sf_max: f64,
    max_interval: SimDuration,
    tfrc: TfrcReceiver,
    session_bps: f64,
    /// The smoothed rate r and the smoothness factor SF.
    r: Option<f64>,
    sf: f64,
    events_reported: u64,
}

impl AsmpReporting {
    pub fn new(cfg: &AsmpConfig) -> AsmpReporting {
        AsmpReporting {
            sf_max: cfg.sf_max,
            max_interval: cfg.max_interval.get(),
            tfrc: TfrcReceiver::new(cfg.recv_rate_rtts, 0.5),
            session_bps: 0.0,
            r: None,
            sf: 1.0,
            events_reported: 0,
        }
    }

    /// One smoothing step: the new SF and r from r_tcp and whether a loss event happened.
    pub fn smooth(&mut self, r_tcp: f64, lost: bool) -> f64 {
        self.sf = if lost { (self.sf + 1.0).min(self.sf_max) } else { (self.sf - 1.0).max(1.0) };
        let r = match self.r {
            Some(r) if r_tcp >= r => r + (r_tcp - r) / self.sf,
            _ => r_tcp,
        };
        self.r = Some(r);
        r
    }

    /// RFC 3550's reduced minimum interval for the session bandwidth, capped at `max_interval`.
    pub fn interval(&self) -> SimDuration {
        let kbps = self.session_bps / 1e3;
        if kbps <= 0.0 {
            return self.max_interval;
        }
        SimDuration::from_secs_f64(360.0 / kbps).min(self.max_interval)
    }
}

impl McastReporting for AsmpReporting {
    fn on_data(&mut self, d: &DataSeen) {
        self.tfrc.on_data(d);
        self.session_bps = d.info.rate;
    }
    fn report(&mut self, _access_bps: f64, now: SimTime) -> Option<McastReport> {
        let r_tcp = if self.tfrc.hist.has_loss() {
            throughput(self.tfrc.s, self.tfrc.rtt_s, self.tfrc.hist.p())
        } else {
            2.0 * self.tfrc.recv.rate(now, self.tfrc.k * self.tfrc.rtt_s)
        };
        let lost = self.tfrc.hist.events > self.events_reported;
        self.events_reported = self.tfrc.hist.events;
        let r = self.smooth(r_tcp.max(self.tfrc.s), lost);
        // f32 holds SF (an integer from 1 to 64) exactly; it rides along for the record.
        Some(McastReport { rate: r, hi: self.sf as f32, lo: 0.0 })
    }
    fn next_report_in(&self, _cycle: SimDuration) -> SimDuration {
        self.interval()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rx() -> AsmpReporting {
        AsmpReporting::new(&AsmpConfig::default())
    }

    #[test]
    fn increases_are_smoothed_by_sf_and_decreases_are_prompt() {
        let mut r = rx();
        // First report: r = r_tcp; no loss keeps SF at 1.
        assert_eq!(r.smooth(1e6, false), 1e6);
        // A loss event: SF = 2; r_tcp above r: r = 1e6 + (2e6 − 1e6)/2 = 1.5e6.
        assert_eq!(r.smooth(2e6, true), 1.5e6);
        // Another: SF = 3; r = 1.5e6 + (2.1e6 − 1.5e6)/3 = 1.7e6.
        assert!((r.smooth(2.1e6, true) - 1.7e6).abs() < 1e-6);
        // r_tcp below r: r = r_tcp at once, SF = 4.
        assert_eq!(r.smooth(0.8e6, true), 0.8e6);
        assert_eq!(r.sf, 4.0);
        // SF stays at sf_max, and steps down once losses stop: 3, then r = 0.8e6 + 0.3e6/3.
        assert_eq!(r.smooth(0.9e6, true), 0.8e6 + 0.1e6 / 4.0);
        assert!((r.smooth(1.125e6, false) - (0.825e6 + 0.3e6 / 3.0)).abs() < 1e-6);
    }

    #[test]
    fn the_report_interval_is_rtcps_reduced_minimum() {
        let mut r = rx();
        assert_eq!(r.interval(), SimDuration::from_secs_f64(5.0));
        // 1 Mbit/s: 360/1000 = 0.36 s; 50 kbit/s: 7.2 s, capped at 5 s.
        r.session_bps = 1e6;
        assert_eq!(r.interval(), SimDuration::from_secs_f64(0.36));
        r.session_bps = 50e3;
        assert_eq!(r.interval(), SimDuration::from_secs_f64(5.0));
    }

    #[test]
    fn the_source_takes_the_smallest_fresh_report() {
        let mut a = Asmp::new(&AsmpConfig::default());
        let t = |s: u64| SimTime::ZERO + SimDuration::from_secs_f64(s as f64);
        let rep = |rate: f64| McastReport { rate, hi: 1.0, lo: 0.0 };
        assert_eq!(a.adapt(50e3, t(0)), 50e3);
        a.on_feedback_from(NodeId(1), &rep(1e6), None, t(1));
        a.on_feedback_from(NodeId(2), &rep(0.6e6), None, t(2));
        a.on_feedback_from(NodeId(1), &rep(0.4e6), None, t(3));
        assert_eq!(a.adapt(50e3, t(3)), 0.4e6);
        // Reports count for 15 s: at 17 s both are fresh; at 19 s node 1's (from 3 s) is gone.
        assert_eq!(a.adapt(50e3, t(17)), 0.4e6);
        a.on_feedback_from(NodeId(2), &rep(0.9e6), None, t(17));
        assert_eq!(a.adapt(50e3, t(19)), 0.9e6);
    }

    #[test]
    fn validation_names_the_key() {
        let bad = AsmpConfig { sf_max: 0.5, ..Default::default() };
        assert_eq!(bad.validate().unwrap_err().key, "sf_max");
        let bad = AsmpConfig { initial_rate: Bandwidth(0), ..Default::default() };
        assert_eq!(bad.validate().unwrap_err().key, "initial_rate");
    }
}
