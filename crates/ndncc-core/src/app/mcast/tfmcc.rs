//! TFMCC, TCP-Friendly Multicast Congestion Control (RFC 4654; ALGORITHMS.md Part B §1), as a
//! baseline of seed 001.
//!
//! Receivers measure their loss-event rate p (TFRC's average loss interval, [`super::tfrc`]) and
//! round trip R, and compute the rate the TCP throughput equation allows, X_r = X(p, R) (before
//! their first loss: twice the rate they receive). The current limiting receiver (CLR) reports
//! every round trip; every other receiver reports at most once per feedback round, and only when
//! its X_r is below both the source's rate and the suppression rate X_supp the source announces.
//! The source follows the CLR (§1.4):
//!
//! ```text
//!   report from r, rate X_r:  R_max = max(R_max, R_r)
//!     slowstart (no loss report yet):  CLR = smallest reporter, X moves to its X_r over one R_max
//!     no CLR:         CLR = r;  X = X_r if X_r − X < 8s/R_max, else ramp by 8s/R_max per R_max
//!     r is not CLR:   X_r < X  →  CLR = r, X = X_r          non-CLR: X_supp = min(X_supp, (1−g)·X_r)
//!     r is the CLR:   X = min(X_r, X + 8s/R_max)
//!   no CLR report for 4 R_max: X /= 2 (unless the CLR is younger than 10 R_max);
//!   for 10 R_max: no CLR;   no report at all for 10 R_max: X /= 2 every 10 R_max
//!   round of T = round_rtts·R_max: ends at T after a non-CLR report, else at the first one or 2T;
//!   then X_supp = ∞ and, unless a report raised R_max, R_max = max(0.9·R_max, R_peak)
//! ```
//!
//! What the simulation changes, and why:
//! * The round trip is not measured with timestamp echoes: every node shares the simulated clock
//!   and paths are symmetric, so a receiver takes twice its smoothed one-way delay (the receiver
//!   app's estimate) and reports it in the feedback's `seq`; the source uses that as R_r. This
//!   stands in for TFMCC's echoes plus its one-way-delay adjustment between them; every receiver
//!   has an RTT from its first Data (have_RTT is always set).
//! * Each Data carries what the RFC's data header carries, in its `report` field: `rate` = the
//!   source's current rate X, `hi` = the CLR's node id + 1 (0: no CLR; exact as an f32 for ids
//!   below 2²⁴), `lo` = X_supp. A receiver knows it is the CLR from `hi`.
//! * Feedback goes straight to the source (SSM), so receivers hear each other only through
//!   X_supp. There is no random feedback timer (the apps have no random stream, and the seed's
//!   groups have three receivers): an eligible non-CLR receiver reports at its next round trip,
//!   once per round of `round_rtts` of its own round trips. The receiver-leave flag and the
//!   timestamp-echo priority (§1.4 steps 2.3 and 5) have nothing to act on here.
//! * The source applies the rate rules on each report and its time-based ones (ramps, halving,
//!   rounds) every `ts_gran`.

use serde::{Deserialize, Serialize};

use super::tfrc::{throughput, TfrcReceiver};
use super::{DataSeen, McastControl, McastReporting};
use crate::ids::NodeId;
use crate::packet::McastReport;
use crate::plugin::{check, Check, Plugin};
use crate::time::{SimDuration, SimTime};
use crate::units::Duration;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct TfmccConfig {
    /// R_max before any report (RFC 4654: at least 500 ms). Default 500 ms.
    pub initial_rtt: Duration,
    /// Suppression factor g. Default 0.1.
    pub g: f64,
    /// Feedback round T in R_max (6; 4 is allowed). Default 6.
    pub round_rtts: f64,
    /// Timestamp granularity ts_gran: the source's R_max floor term and its update tick.
    /// Default 10 ms.
    pub ts_gran: Duration,
    /// Receive rate window k in round trips (RFC 4654: 2 to 4). Default 2.
    pub recv_rate_rtts: f64,
}

impl Default for TfmccConfig {
    fn default() -> Self {
        TfmccConfig {
            initial_rtt: Duration::from_millis(500),
            g: 0.1,
            round_rtts: 6.0,
            ts_gran: Duration::from_millis(10),
            recv_rate_rtts: 2.0,
        }
    }
}

impl Plugin for TfmccConfig {
    type Built = Box<dyn McastControl>;
    fn validate(&self) -> Check {
        check::time("initial_rtt", self.initial_rtt.get(), false)?;
        check::within("g", self.g, 0.0, 0.99)?;
        check::within("round_rtts", self.round_rtts, 1.0, 100.0)?;
        check::time("ts_gran", self.ts_gran.get(), false)?;
        check::within("recv_rate_rtts", self.recv_rate_rtts, 1.0, 16.0)
    }
    fn build(&self) -> Box<dyn McastControl> {
        Box::new(Tfmcc::new(self))
    }
}

/// Node ids travel as f32 in the Data's `report.hi`: exact below 2²⁴.
const ID_LIMIT: u32 = 1 << 24;

fn encode_clr(clr: Option<NodeId>) -> f32 {
    match clr {
        // Exact: the id is below 2²⁴ (checked), so the f32 holds it without rounding.
        Some(id) if id.0 < ID_LIMIT => (id.0 + 1) as f32,
        _ => 0.0,
    }
}

fn decode_clr(v: f32) -> Option<NodeId> {
    // The values are integers below 2²⁴ + 1 (see `encode_clr`); anything else means no CLR.
    if !(1.0..=ID_LIMIT as f32).contains(&v) || v.fract() != 0.0 {
        return None;
    }
    let id = v as u32;
    Some(NodeId(id - 1))
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Clr {
    id: NodeId,
    /// Its last reported rate.
    rate: f64,
    last: SimTime,
    since: SimTime,
}

pub struct Tfmcc {
    cfg: TfmccConfig,
    /// 8s: one packet [bits].
    pkt_bits: f64,
    x: f64,
    r_max: f64,
    clr: Option<Clr>,
    x_supp: f64,
    slowstart: bool,
    /// The rate X moves towards (slowstart; a new CLR above X).
    target: Option<f64>,
    round_start: Option<SimTime>,
    non_clr_in_round: bool,
    exceeded: bool,
    r_peak: f64,
    last_tick: Option<SimTime>,
    last_report: Option<SimTime>,
    last_halved: Option<SimTime>,
    rounds: u64,
}

impl Tfmcc {
    pub fn new(cfg: &TfmccConfig) -> Tfmcc {
        let mut t = Tfmcc {
            cfg: cfg.clone(),
            pkt_bits: 8_000.0,
            x: 0.0,
            r_max: cfg.initial_rtt.get().as_secs_f64(),
            clr: None,
            x_supp: f64::INFINITY,
            slowstart: true,
            target: None,
            round_start: None,
            non_clr_in_round: false,
            exceeded: false,
            r_peak: 0.0,
            last_tick: None,
            last_report: None,
            last_halved: None,
            rounds: 0,
        };
        t.x = t.pkt_bits / t.r_max;
        t
    }

    /// One packet per 8 s (§1.3).
    fn min_rate(&self) -> f64 {
        self.pkt_bits / 8.0
    }

    /// One packet per R_max [bit/s]: the increase step.
    fn step(&self) -> f64 {
        self.pkt_bits / self.r_max
    }

    fn end_round(&mut self, now: SimTime) {
        self.rounds += 1;
        self.x_supp = f64::INFINITY;
        if !self.exceeded {
            self.r_max = (0.9 * self.r_max).max(self.r_peak);
        }
        self.r_peak = 0.0;
        self.exceeded = false;
        self.non_clr_in_round = false;
        self.round_start = Some(now);
        self.floor_r_max();
    }

    /// R_max ≥ 8s/X + ts_gran (§1.4 step 1).
    fn floor_r_max(&mut self) {
        let floor = self.pkt_bits / self.x + self.cfg.ts_gran.get().as_secs_f64();
        self.r_max = self.r_max.max(floor);
    }

    fn since(now: SimTime, t: Option<SimTime>) -> f64 {
        t.map_or(f64::INFINITY, |t| now.saturating_since(t).as_secs_f64())
    }

    /// Rate rules on one report (§1.4 steps 1, 2, 4 and 6).
    pub fn on_report(&mut self, origin: NodeId, x_r: f64, have_loss: bool, r_r: f64, now: SimTime) {
        let r_r = r_r.max(0.001);
        if r_r > self.r_max {
            self.r_max = r_r;
            self.exceeded = true;
        }
        self.r_peak = self.r_peak.max(r_r);
        self.last_report = Some(now);
        let x_r = x_r.max(self.min_rate());
        let from_clr = self.clr.is_some_and(|c| c.id == origin);
        if !from_clr {
            let start = *self.round_start.get_or_insert(now);
            let t = self.cfg.round_rtts * self.r_max;
            // A round without non-CLR reports ends at the first one after T (step 4).
            if now.saturating_since(start).as_secs_f64() >= t {
                self.end_round(now);
            }
            self.non_clr_in_round = true;
            self.x_supp = self.x_supp.min((1.0 - self.cfg.g) * x_r);
        }
        if have_loss && self.slowstart {
            self.slowstart = false;
            self.target = None;
        }
        let new_clr = Clr { id: origin, rate: x_r, last: now, since: now };
        if self.slowstart {
            // Step 6: the target is the smallest report; its sender is the CLR.
            match &mut self.clr {
                Some(c) if c.id == origin => {
                    c.rate = x_r;
                    c.last = now;
                    self.target = Some(x_r);
                }
                Some(c) if x_r >= c.rate => {}
                _ => {
                    self.clr = Some(new_clr);
                    self.target = Some(x_r);
                }
            }
            self.floor_r_max();
            return;
        }
        match &mut self.clr {
            // Case 1: no CLR.
            None => {
                self.clr = Some(new_clr);
                if x_r - self.x < self.step() {
                    self.x = x_r;
                    self.target = None;
                } else {
                    self.target = Some(x_r);
                }
            }
            // Case 4: the CLR's report; the increase is at most one packet per R_max.
            Some(c) if c.id == origin => {
                c.rate = x_r;
                c.last = now;
                self.x = x_r.min(self.x + self.pkt_bits / self.r_max);
                self.target = None;
            }
            // Case 2: a slower receiver takes over.
            Some(_) => {
                if x_r < self.x {
                    self.clr = Some(new_clr);
                    self.x = x_r;
                    self.target = None;
                }
            }
        }
        self.x = self.x.max(self.min_rate());
        self.floor_r_max();
    }

    /// Time-based rules (§1.4 steps 3, 4 and 6), every `ts_gran`.
    pub fn tick(&mut self, now: SimTime) -> f64 {
        let dt = Self::since(now, self.last_tick);
        self.last_tick = Some(now);
        let start = *self.round_start.get_or_insert(now);
        let rm = self.r_max;
        let in_round = now.saturating_since(start).as_secs_f64();
        let t = self.cfg.round_rtts * rm;
        if (self.non_clr_in_round && in_round >= t) || in_round >= 2.0 * t {
            self.end_round(now);
        }
        // No feedback (step 3).
        let halve_after = match self.clr {
            Some(c) if Self::since(now, Some(c.last)) >= 10.0 * rm => {
                self.clr = None;
                None
            }
            Some(c) if now.saturating_since(c.since).as_secs_f64() >= 10.0 * rm => Some((c.last, 4.0)),
            Some(_) => None,
            None => Some((self.last_report.unwrap_or(start), 10.0)),
        };
        if let Some((last, rtts)) = halve_after {
            let silent = Self::since(now, Some(last)) >= rtts * rm;
            if silent && Self::since(now, self.last_halved.max(Some(last))) >= rtts * rm {
                self.x = (self.x / 2.0).max(self.min_rate());
                self.last_halved = Some(now);
            }
        }
        if let Some(target) = self.target {
            let dt = if dt.is_finite() { dt } else { 0.0 };
            if self.slowstart {
                // Move towards the target over about one round trip.
                self.x += (target - self.x) * (dt / rm).min(1.0);
            } else {
                self.x = target.min(self.x + self.step() * dt / rm);
            }
            if (self.x - target).abs() <= f64::EPSILON * target {
                self.target = None;
            }
        }
        self.x = self.x.max(self.min_rate());
        self.floor_r_max();
        self.x
    }
}

impl McastControl for Tfmcc {
    fn name(&self) -> &'static str {
        "tfmcc"
    }
    fn set_packet_size(&mut self, bytes: u32) {
        self.pkt_bits = 8.0 * f64::from(bytes);
        self.x = self.pkt_bits / self.r_max;
    }
    fn initial_rate(&self) -> f64 {
        self.x
    }
    fn on_feedback(&mut self, report: &McastReport, rtt: Option<SimDuration>, now: SimTime) {
        // Without the reporter's id every report counts as the CLR's.
        let id = self.clr.map_or(NodeId(u32::MAX), |c| c.id);
        self.on_feedback_from(id, report, rtt, now);
    }
    fn on_feedback_from(&mut self, origin: NodeId, report: &McastReport, rtt: Option<SimDuration>, now: SimTime) {
        let r_r = rtt.map_or(self.r_max, |d| d.as_secs_f64());
        self.on_report(origin, report.rate, report.hi >= 0.5, r_r, now);
    }
    fn adapt(&mut self, _rate: f64, now: SimTime) -> f64 {
        self.tick(now)
    }
    fn cycle(&self, _rtt: SimDuration) -> SimDuration {
        self.cfg.ts_gran.get()
    }
    fn data_report(&self, rate: f64) -> McastReport {
        let x_supp = if self.x_supp.is_finite() { self.x_supp as f32 } else { f32::INFINITY };
        McastReport { rate, hi: encode_clr(self.clr.map(|c| c.id)), lo: x_supp }
    }
    fn metrics(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("r_max_ms", self.r_max * 1e3));
        out.push(("x_supp_bps", self.x_supp));
        out.push(("slowstart", if self.slowstart { 1.0 } else { 0.0 }));
        out.push(("feedback_rounds", self.rounds as f64));
    }
}

/// A TFMCC receiver (§1.5, with the simplifications in the module text).
pub struct TfmccReporting {
    tfrc: TfrcReceiver,
    round_rtts: f64,
    /// From the newest Data: the source's rate, whether this receiver is the CLR, whether there
    /// is a CLR, X_supp.
    x_src: f64,
    is_clr: bool,
    any_clr: bool,
    x_supp: f64,
    /// Round trips into the current feedback round, and whether this receiver reported in it.
    in_round: f64,
    reported: bool,
    sent: u64,
}

impl TfmccReporting {
    pub fn new(cfg: &TfmccConfig) -> TfmccReporting {
        TfmccReporting {
            tfrc: TfrcReceiver::new(cfg.recv_rate_rtts, cfg.initial_rtt.get().as_secs_f64()),
            round_rtts: cfg.round_rtts,
            x_src: 0.0,
            is_clr: false,
            any_clr: false,
            x_supp: f64::INFINITY,
            in_round: 0.0,
            reported: false,
            sent: 0,
        }
    }

    /// X_r: twice the receive rate before the first loss, the equation after (§1.5), at least
    /// one packet per 8 s.
    pub fn desired(&self, now: SimTime) -> f64 {
        let x = if self.tfrc.hist.has_loss() {
            throughput(self.tfrc.s, self.tfrc.rtt_s, self.tfrc.hist.p())
        } else {
            2.0 * self.tfrc.recv.rate(now, self.tfrc.k * self.tfrc.rtt_s)
        };
        x.max(self.tfrc.s)
    }
}

impl McastReporting for TfmccReporting {
    fn on_data(&mut self, d: &DataSeen) {
        self.tfrc.on_data(d);
        self.x_src = d.info.rate;
        let clr = decode_clr(d.info.hi);
        self.is_clr = clr == Some(d.me);
        self.any_clr = clr.is_some();
        self.x_supp = f64::from(d.info.lo);
    }
    fn report(&mut self, _access_bps: f64, now: SimTime) -> Option<McastReport> {
        let x_r = self.desired(now);
        self.in_round += 1.0;
        if self.in_round > self.round_rtts {
            self.in_round = 1.0;
            self.reported = false;
        }
        // The CLR reports every round trip and is never suppressed; another receiver only when
        // it would lower the rate (below X and X_supp; with no CLR, below X_supp alone).
        let eligible = x_r < self.x_supp && (!self.any_clr || x_r < self.x_src);
        if !self.is_clr && (self.reported || !eligible) {
            return None;
        }
        if !self.is_clr {
            self.reported = true;
        }
        self.sent += 1;
        Some(McastReport { rate: x_r, hi: if self.tfrc.hist.has_loss() { 1.0 } else { 0.0 }, lo: 0.0 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::plugin::Plugin;

    fn at(ms: u64) -> SimTime {
        SimTime::ZERO + SimDuration::from_millis(ms)
    }

    fn src() -> Tfmcc {
        let mut t = Tfmcc::new(&TfmccConfig::default());
        t.set_packet_size(1_000);
        t
    }

    #[test]
    fn the_initial_rate_is_one_packet_per_r_max() {
        // 8000 bit / 0.5 s = 16 kbit/s.
        assert!((src().initial_rate() - 16_000.0).abs() < 1e-9);
    }

    #[test]
    fn slowstart_follows_the_smallest_report_over_one_round_trip() {
        let mut t = src();
        t.on_report(NodeId(1), 200_000.0, false, 0.1, at(0));
        t.on_report(NodeId(2), 100_000.0, false, 0.1, at(0));
        t.on_report(NodeId(3), 300_000.0, false, 0.1, at(0));
        assert_eq!(t.clr.map(|c| c.id), Some(NodeId(2)));
        assert_eq!(t.target, Some(100_000.0));
        // R_max stays 0.51 s (0.5 s would be below 8s/X + ts_gran = 0.5 + 0.01 s).
        assert!((t.r_max - 0.51).abs() < 1e-9);
        t.tick(at(0));
        // After 0.255 s, half an R_max: X = 16k + (100k − 16k)·0.5 = 58 kbit/s.
        assert!((t.tick(at(255)) - 58_000.0).abs() < 1e-6);
    }

    #[test]
    fn after_the_first_loss_the_clr_rate_caps_the_increase_at_one_packet_per_r_max() {
        let mut t = src();
        t.on_report(NodeId(1), 100_000.0, false, 0.1, at(0));
        t.x = 100_000.0;
        // The CLR's first loss report: X = min(X_r, X + 8000/R_max); R_max is 0.5 s.
        t.r_max = 0.5;
        t.on_report(NodeId(1), 500_000.0, true, 0.1, at(100));
        assert!(!t.slowstart);
        assert!((t.x - 116_000.0).abs() < 1e-6, "{}", t.x);
        // A lower CLR report cuts X at once.
        t.on_report(NodeId(1), 50_000.0, true, 0.1, at(200));
        assert!((t.x - 50_000.0).abs() < 1e-9);
        // A slower non-CLR receiver takes over, and sets X_supp = 0.9·X_r.
        t.on_report(NodeId(2), 40_000.0, true, 0.1, at(300));
        assert_eq!(t.clr.map(|c| c.id), Some(NodeId(2)));
        assert!((t.x - 40_000.0).abs() < 1e-9);
        assert!((t.x_supp - 36_000.0).abs() < 1e-9);
        // A faster non-CLR report changes nothing but X_supp's minimum.
        t.on_report(NodeId(3), 90_000.0, true, 0.1, at(310));
        assert!((t.x - 40_000.0).abs() < 1e-9 && (t.x_supp - 36_000.0).abs() < 1e-9);
    }

    #[test]
    fn a_silent_clr_halves_the_rate_then_is_dropped() {
        let mut t = src();
        t.on_report(NodeId(1), 100_000.0, true, 0.1, at(0));
        t.x = 100_000.0;
        t.r_max = 0.5;
        t.tick(at(0));
        // At 3 s the round (6 R_max) ends; no report raised R_max, so R_max = max(0.9·0.5, 0.1)
        // = 0.45 s. The CLR is younger than 10 R_max: no halving.
        assert!((t.tick(at(3_000)) - 100_000.0).abs() < 1e-9);
        assert!((t.r_max - 0.45).abs() < 1e-12);
        // No CLR report for 10 R_max (4.5 s): it is dropped, then the silence since the last
        // report halves X once every 10 R_max.
        t.tick(at(5_000));
        assert!(t.clr.is_none());
        assert!((t.tick(at(5_010)) - 50_000.0).abs() < 1e-9);
        assert!((t.tick(at(6_000)) - 50_000.0).abs() < 1e-9);
    }

    #[test]
    fn the_clr_id_travels_exactly_in_the_data() {
        assert_eq!(decode_clr(encode_clr(Some(NodeId(7)))), Some(NodeId(7)));
        assert_eq!(decode_clr(encode_clr(None)), None);
        assert_eq!(decode_clr(encode_clr(Some(NodeId(ID_LIMIT - 1)))), Some(NodeId(ID_LIMIT - 1)));
    }

    #[test]
    fn receivers_report_as_clr_every_round_trip_and_otherwise_only_below_the_rate() {
        let mut r = TfmccReporting::new(&TfmccConfig::default());
        let info = |clr: Option<NodeId>, x: f64| McastReport { rate: x, hi: encode_clr(clr), lo: f32::INFINITY };
        // 1,000-byte Data every 10 ms, R = 0.1 s: 800 kbit/s received, X_r = 1.6 Mbit/s.
        for i in 0..30u64 {
            let i0 = info(Some(NodeId(9)), 1e6);
            let d = DataSeen {
                me: NodeId(1),
                seq: i,
                size: 1_000,
                now: at(10 * i),
                rtt: SimDuration::from_millis(100),
                info: &i0,
            };
            r.on_data(&d);
        }
        // 21 packets in the 0.2 s window ending at 290 ms (90..290 ms): 168 kbit / 0.2 s.
        assert!((r.desired(at(290)) - 2.0 * 840_000.0).abs() < 1e-6);
        // Not the CLR and X_r above the source's 1 Mbit/s: silent.
        assert!(r.report(0.0, at(290)).is_none());
        // Now the CLR: it reports every time.
        let i1 = info(Some(NodeId(1)), 1e6);
        let d = DataSeen {
            me: NodeId(1),
            seq: 30,
            size: 1_000,
            now: at(300),
            rtt: SimDuration::from_millis(100),
            info: &i1,
        };
        r.on_data(&d);
        assert!(r.report(0.0, at(300)).is_some() && r.report(0.0, at(400)).is_some());
    }

    #[test]
    fn validation_names_the_key() {
        let bad = TfmccConfig { g: 1.0, ..Default::default() };
        assert_eq!(bad.validate().unwrap_err().key, "g");
        let bad = TfmccConfig { recv_rate_rtts: 0.5, ..Default::default() };
        assert_eq!(bad.validate().unwrap_err().key, "recv_rate_rtts");
    }
}
