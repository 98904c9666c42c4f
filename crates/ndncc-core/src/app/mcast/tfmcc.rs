//! TFMCC, TCP-Friendly Multicast Congestion Control (RFC 4654; ALGORITHMS.md Part B §1), as a
//! baseline of seed 001.
//!
//! Receivers measure their loss-event rate p (TFRC's average loss interval, [`super::tfrc`]) and
//! round trip R, and compute the rate the TCP throughput equation allows, X_r = X(p, R) (before
//! their first loss: twice the rate they receive). The current limiting receiver (CLR) reports
//! every round trip; every other receiver at most once per feedback round, when its random
//! timer expires unsuppressed. The source follows the CLR (§1.4):
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
//! Receivers (§1.5): the RTT comes from timestamp echoes (a Data names one receiver and
//! carries its report time plus the time the report was held at the source); a receiver with
//! no echo yet uses the R_max the source announces; between echoes one-way delay changes move
//! it, R' = D + tr_j − ts_j with D = R − (tr_i − ts_i) at the last echo (the nodes share the
//! simulated clock). The CLR reports once per RTT, never suppressed. Every other receiver draws
//! a feedback timer at the start of each round (a new fb_nr in the Data), t = max(T·(1 + ln x /
//! ln N), 0), x uniform in (0, 1], T = `round_rtts`·R_max, and reports when it expires if its
//! rate is below X_supp (or its RTT above R_max); a Data whose X_supp is below its rate (or
//! below its rate at the round's start) cancels the timer, unless its RTT is above R_max.
//! The source echoes one report per Data in the RFC's order (a new CLR, receivers without an
//! RTT, the others, the CLR) and measures R_r = now − (the report's echo of a Data timestamp).
//!
//! What the simulation changes, and why:
//! * Feedback goes straight to the source (SSM, as the RFC allows), so receivers hear each
//!   other only through X_supp.
//! * Each Data carries the RFC's data header in its `report` field: `rate` = X, `hi` = the
//!   CLR's node id + 1 (0: no CLR; exact as an f32 for ids below 2²⁴), `lo` = X_supp, and
//!   the header's `times` = fb_nr, R_max and the echo, at millisecond resolution.
//! * Timers are checked every `ts_gran` (10 ms), as are the source's time-based rules. The
//!   receiver-leave flag has nothing to act on here. The loss history is discounted
//!   (`history_discounting`, `tfrc.rs`).

use serde::{Deserialize, Serialize};

use super::tfrc::{throughput, TfrcReceiver};
use super::{DataSeen, McastControl, McastReporting};
use crate::ids::NodeId;
use crate::packet::{McastReport, McastTimes};
use crate::plugin::{check, Check, Plugin};
use crate::rng::SimRng;
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
    /// N, the upper bound on receivers the feedback timers are spread for (RFC 4654: 10,000).
    pub receivers_bound: f64,
    /// History discounting of the loss intervals (RFC 5348 §5.5; NS-2's TFRC sink has it on).
    /// Default true.
    pub history_discounting: bool,
}

impl Default for TfmccConfig {
    fn default() -> Self {
        TfmccConfig {
            initial_rtt: Duration::from_millis(500),
            g: 0.1,
            round_rtts: 6.0,
            ts_gran: Duration::from_millis(10),
            recv_rate_rtts: 2.0,
            receivers_bound: 10_000.0,
            history_discounting: true,
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
        check::within("recv_rate_rtts", self.recv_rate_rtts, 1.0, 16.0)?;
        check::within("receivers_bound", self.receivers_bound, 2.0, 1e9)
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

/// One receiver's report as the rate rules read it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RateReport {
    /// The receiver's node.
    pub origin: NodeId,
    /// Its calculated rate X_r.
    pub x_r: f64,
    /// It has seen a loss event.
    pub have_loss: bool,
    /// Its RTT R_r [s].
    pub r_r: f64,
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
    /// Reports whose timestamps wait to be echoed, one per receiver.
    pending: Vec<Echo>,
    /// The CLR's newest report (echoed when nothing else waits), and whether a new CLR still
    /// waits for its first echo.
    clr_echo: Option<Echo>,
    clr_unechoed: bool,
}

/// A receiver's report whose timestamp waits to be echoed (§1.4 step 5).
#[derive(Clone, Copy, Debug, PartialEq)]
struct Echo {
    id: NodeId,
    /// The report's own time tr_r, and when it reached the source.
    stamp: SimTime,
    arrived: SimTime,
    have_rtt: bool,
    /// The feedback round it answered, and its rate (ties go to the lowest).
    round: u8,
    rate: f64,
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
            pending: Vec::new(),
            clr_echo: None,
            clr_unechoed: false,
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
    pub fn on_report(&mut self, report: RateReport, now: SimTime) {
        self.on_report_as(report, report.x_r, now);
    }

    /// `on_report` where the CLR decisions use `x_clr` (X_r·R_max/R_r for a receiver that has
    /// seen loss but has no RTT yet, §1.4 step 2) and X_supp uses the reported X_r.
    fn on_report_as(&mut self, report: RateReport, x_clr: f64, now: SimTime) {
        let RateReport { origin, x_r, have_loss, r_r } = report;
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
        let x_r = x_clr.max(self.min_rate());
        let old_clr = self.clr.map(|c| c.id);
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
            self.note_clr_change(old_clr);
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
        self.note_clr_change(old_clr);
    }

    fn note_clr_change(&mut self, old: Option<NodeId>) {
        let now_clr = self.clr.map(|c| c.id);
        if now_clr != old {
            self.clr_unechoed = now_clr.is_some();
            self.clr_echo = None;
        }
    }

    /// Queue the timestamp of a report for echoing, replacing an older one of the same receiver.
    fn queue_echo(&mut self, e: Echo) {
        self.pending.retain(|p| p.id != e.id);
        if self.clr.is_some_and(|c| c.id == e.id) {
            self.clr_echo = Some(e);
        }
        self.pending.push(e);
    }

    /// The echo for the next Data (§1.4 step 5): a new CLR or a CLR without an RTT first; then
    /// receivers without an RTT, oldest round first; then the others with an RTT, oldest first;
    /// then the CLR. Ties go to the lowest rate. With nothing waiting, the CLR's newest report
    /// again.
    fn next_echo(&mut self) -> Option<Echo> {
        let clr = self.clr.map(|c| c.id);
        let class = |e: &Echo| -> u8 {
            let is_clr = Some(e.id) == clr;
            match (is_clr, e.have_rtt) {
                (true, false) => 0,
                (true, true) if self.clr_unechoed => 0,
                (false, false) => 1,
                (false, true) => 2,
                (true, true) => 3,
            }
        };
        let best = self
            .pending
            .iter()
            .enumerate()
            .min_by(|(_, a), (_, b)| {
                let ka = (class(a), if class(a) == 1 { a.round } else { 0 }, a.arrived);
                let kb = (class(b), if class(b) == 1 { b.round } else { 0 }, b.arrived);
                ka.cmp(&kb).then(a.rate.total_cmp(&b.rate))
            })
            .map(|(i, _)| i);
        let e = match best {
            Some(i) => self.pending.swap_remove(i),
            None => self.clr_echo?,
        };
        if Some(e.id) == clr {
            self.clr_unechoed = false;
        }
        Some(e)
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
        // Without the header's timestamps: the receiver's own estimate, else R_max.
        let r_r = rtt.map_or(self.r_max, |d| d.as_secs_f64());
        self.on_report(RateReport { origin, x_r: report.rate, have_loss: report.hi >= 0.5, r_r }, now);
    }
    fn on_feedback_timed(
        &mut self,
        origin: NodeId,
        report: &McastReport,
        times: &McastTimes,
        sent_at: SimTime,
        _rtt: Option<SimDuration>,
        now: SimTime,
    ) {
        // R_r = ts_now − ts_i', the report's echo of a Data timestamp (§1.4 step 1).
        let r_r = now.saturating_since(times.echo_at(sent_at)).as_secs_f64();
        let (have_loss, have_rtt) = (report.hi >= 0.5, report.lo >= 0.5);
        let x_clr = if have_loss && !have_rtt { report.rate * self.r_max / r_r.max(0.001) } else { report.rate };
        self.on_report_as(RateReport { origin, x_r: report.rate, have_loss, r_r }, x_clr, now);
        let e = Echo { id: origin, stamp: sent_at, arrived: now, have_rtt, round: times.round(), rate: report.rate };
        self.queue_echo(e);
    }
    fn adapt(&mut self, _rate: f64, now: SimTime) -> f64 {
        self.tick(now)
    }
    fn cycle(&self, _rtt: SimDuration) -> SimDuration {
        self.cfg.ts_gran.get()
    }
    fn data_report(&mut self, rate: f64, _now: SimTime) -> McastReport {
        let x_supp = if self.x_supp.is_finite() { self.x_supp as f32 } else { f32::INFINITY };
        McastReport { rate, hi: encode_clr(self.clr.map(|c| c.id)), lo: x_supp }
    }
    fn data_times(&mut self, now: SimTime) -> McastTimes {
        // tr_r' = tr_r + the time the report was held here.
        let echo = self.next_echo().map(|e| (e.id, e.stamp + now.saturating_since(e.arrived)));
        // fb_nr wraps, as the RFC's counter does (8 bits here).
        McastTimes::data((self.rounds % 256) as u8, self.r_max, echo, now)
    }
    fn metrics(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("r_max_ms", self.r_max * 1e3));
        out.push(("x_supp_bps", self.x_supp));
        out.push(("slowstart", if self.slowstart { 1.0 } else { 0.0 }));
        out.push(("feedback_rounds", self.rounds as f64));
    }
}

/// The feedback timer's share of the round T (RFC 4654 §4.4): max(1 + ln x / ln N, 0) for a
/// uniform x in (0, 1]. With N receivers at most, the earliest of their timers falls early in
/// the round while most fall near its end.
pub fn feedback_share(x: f64, n: f64) -> f64 {
    (1.0 + x.ln() / n.ln()).max(0.0)
}

/// A TFMCC receiver (§1.5, with the simplifications in the module text).
pub struct TfmccReporting {
    tfrc: TfrcReceiver,
    round_rtts: f64,
    n: f64,
    poll: SimDuration,
    rng: SimRng,
    /// From the newest Data: the source's rate, whether this receiver is the CLR, whether there
    /// is a CLR, X_supp and R_max [s].
    x_src: f64,
    is_clr: bool,
    any_clr: bool,
    x_supp: f64,
    r_max: f64,
    /// The smoothed RTT from timestamp echoes [s]; `None` before the first echo.
    rtt: Option<f64>,
    /// D = R − (tr_i − ts_i) at the last echo: between echoes R' = D + tr_j − ts_j.
    owd_offset: Option<f64>,
    /// The RTT in use: R' (or R_max before any echo) [s].
    r_now: f64,
    /// The feedback round of the newest Data, when this receiver saw it start, and the rate it
    /// computed then (X_fbr).
    round: Option<u8>,
    round_start: SimTime,
    x_fbr: f64,
    /// The pending feedback timer as a share of T = round_rtts · R_max (rescaled with R_max).
    timer: Option<f64>,
    reported: bool,
    last_clr_report: Option<SimTime>,
    /// The newest Data: its send time and arrival (for the report's timestamp echo).
    last_data: Option<(SimTime, SimTime)>,
    /// The round and echo of the newest report.
    last_times: McastTimes,
    sent: u64,
    suppressed: u64,
}

impl TfmccReporting {
    pub fn new(cfg: &TfmccConfig, rng: SimRng) -> TfmccReporting {
        let r0 = cfg.initial_rtt.get().as_secs_f64();
        let mut tfrc = TfrcReceiver::new(cfg.recv_rate_rtts, r0);
        tfrc.hist.discount = cfg.history_discounting;
        TfmccReporting {
            tfrc,
            round_rtts: cfg.round_rtts,
            n: cfg.receivers_bound,
            poll: cfg.ts_gran.get(),
            rng,
            x_src: 0.0,
            is_clr: false,
            any_clr: false,
            x_supp: f64::INFINITY,
            r_max: r0,
            rtt: None,
            owd_offset: None,
            r_now: r0,
            round: None,
            round_start: SimTime::ZERO,
            x_fbr: f64::INFINITY,
            timer: None,
            reported: false,
            last_clr_report: None,
            last_data: None,
            last_times: McastTimes::default(),
            sent: 0,
            suppressed: 0,
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

    /// This receiver's RTT for the eligibility and suppression tests: its own, else R_max.
    fn own_rtt(&self) -> f64 {
        self.rtt.unwrap_or(self.r_max)
    }

    /// A new feedback round: cancel what was pending; a non-CLR receiver draws its timer.
    fn start_round(&mut self, round: u8, now: SimTime) {
        self.round = Some(round);
        self.round_start = now;
        self.reported = false;
        self.x_fbr = self.desired(now);
        self.timer = if self.is_clr {
            None
        } else {
            // x uniform in (0, 1].
            let x = 1.0 - crate::rng::unit(&mut self.rng);
            Some(feedback_share(x, self.n))
        };
    }

    fn feedback(&mut self, x_r: f64, now: SimTime) -> McastReport {
        self.sent += 1;
        // ts_i' = the newest Data's send time plus how long it was held here; the report's own
        // time tr_r is its `sent_at` (now).
        let echo = self.last_data.map_or(now, |(sent, arrived)| sent + now.saturating_since(arrived));
        self.last_times = McastTimes::feedback(self.round.unwrap_or(0), echo, now);
        McastReport {
            rate: x_r,
            hi: if self.tfrc.hist.has_loss() { 1.0 } else { 0.0 },
            lo: if self.rtt.is_some() { 1.0 } else { 0.0 },
        }
    }
}

impl McastReporting for TfmccReporting {
    fn on_data(&mut self, d: &DataSeen) {
        let t = d.times;
        let clr = decode_clr(d.info.hi);
        self.is_clr = clr == Some(d.me);
        self.any_clr = clr.is_some();
        self.x_src = d.info.rate;
        self.x_supp = f64::from(d.info.lo);
        if let Some(r) = t.r_max_s() {
            self.r_max = r;
        }
        let owd = d.now.saturating_since(d.sent_at).as_secs_f64();
        if t.echo_node() == Some(d.me) {
            // R_sample = tr_now − tr_r' (≥ 1 ms); q = 0.9 for the CLR, 0.5 otherwise.
            let sample = d.now.saturating_since(t.echo_at(d.sent_at)).as_secs_f64().max(0.001);
            let q = if self.is_clr { 0.9 } else { 0.5 };
            let r = self.rtt.map_or(sample, |r| q * r + (1.0 - q) * sample);
            self.rtt = Some(r);
            self.owd_offset = Some(r - owd);
        }
        self.r_now = match self.owd_offset {
            Some(off) => (off + owd).max(0.001),
            None => self.r_max,
        };
        let seen = DataSeen { rtt: SimDuration::from_secs_f64(self.r_now), ..*d };
        self.tfrc.on_data(&seen);
        self.last_data = Some((d.sent_at, d.now));
        if self.round != Some(t.round()) {
            self.start_round(t.round(), d.now);
        }
        if self.timer.is_some() {
            // Suppressed by a lower rate already reported in this round (X_supp), unless this
            // receiver's RTT is above R_max.
            let x_r = self.desired(d.now);
            if (self.x_supp < x_r || self.x_supp < self.x_fbr) && self.r_max >= self.own_rtt() {
                self.timer = None;
                self.suppressed += 1;
            }
        }
    }

    fn report(&mut self, _access_bps: f64, now: SimTime) -> Option<McastReport> {
        let x_r = self.desired(now);
        if self.is_clr {
            // The CLR reports once per RTT and is never suppressed.
            let due = self.last_clr_report.is_none_or(|t| now.saturating_since(t).as_secs_f64() >= self.r_now);
            if !due {
                return None;
            }
            self.last_clr_report = Some(now);
            return Some(self.feedback(x_r, now));
        }
        let frac = self.timer?;
        let t = frac * self.round_rtts * self.r_max;
        if now.saturating_since(self.round_start).as_secs_f64() < t {
            return None;
        }
        self.timer = None;
        let eligible = x_r < self.x_supp || self.own_rtt() > self.r_max;
        if self.reported || !eligible {
            return None;
        }
        self.reported = true;
        Some(self.feedback(x_r, now))
    }

    fn report_times(&self) -> McastTimes {
        self.last_times
    }

    fn next_report_in(&self, _cycle: SimDuration) -> SimDuration {
        // Timers are checked every ts_gran.
        self.poll
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
        t.on_report(RateReport { origin: NodeId(1), x_r: 200_000.0, have_loss: false, r_r: 0.1 }, at(0));
        t.on_report(RateReport { origin: NodeId(2), x_r: 100_000.0, have_loss: false, r_r: 0.1 }, at(0));
        t.on_report(RateReport { origin: NodeId(3), x_r: 300_000.0, have_loss: false, r_r: 0.1 }, at(0));
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
        t.on_report(RateReport { origin: NodeId(1), x_r: 100_000.0, have_loss: false, r_r: 0.1 }, at(0));
        t.x = 100_000.0;
        // The CLR's first loss report: X = min(X_r, X + 8000/R_max); R_max is 0.5 s.
        t.r_max = 0.5;
        t.on_report(RateReport { origin: NodeId(1), x_r: 500_000.0, have_loss: true, r_r: 0.1 }, at(100));
        assert!(!t.slowstart);
        assert!((t.x - 116_000.0).abs() < 1e-6, "{}", t.x);
        // A lower CLR report cuts X at once.
        t.on_report(RateReport { origin: NodeId(1), x_r: 50_000.0, have_loss: true, r_r: 0.1 }, at(200));
        assert!((t.x - 50_000.0).abs() < 1e-9);
        // A slower non-CLR receiver takes over, and sets X_supp = 0.9·X_r.
        t.on_report(RateReport { origin: NodeId(2), x_r: 40_000.0, have_loss: true, r_r: 0.1 }, at(300));
        assert_eq!(t.clr.map(|c| c.id), Some(NodeId(2)));
        assert!((t.x - 40_000.0).abs() < 1e-9);
        assert!((t.x_supp - 36_000.0).abs() < 1e-9);
        // A faster non-CLR report changes nothing but X_supp's minimum.
        t.on_report(RateReport { origin: NodeId(3), x_r: 90_000.0, have_loss: true, r_r: 0.1 }, at(310));
        assert!((t.x - 40_000.0).abs() < 1e-9 && (t.x_supp - 36_000.0).abs() < 1e-9);
    }

    #[test]
    fn a_silent_clr_halves_the_rate_then_is_dropped() {
        let mut t = src();
        t.on_report(RateReport { origin: NodeId(1), x_r: 100_000.0, have_loss: true, r_r: 0.1 }, at(0));
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
    fn the_feedback_timer_share_is_one_for_x_one_half_at_one_over_root_n_and_zero_at_one_over_n() {
        // 1 + ln x / ln N with N = 10,000: x = 1 → 1; x = 0.01 → 1 − 0.5; x = 10⁻⁴ → 0; below → 0.
        assert_eq!(feedback_share(1.0, 1e4), 1.0);
        assert!((feedback_share(0.01, 1e4) - 0.5).abs() < 1e-12);
        assert!(feedback_share(1e-4, 1e4).abs() < 1e-12);
        assert_eq!(feedback_share(1e-6, 1e4), 0.0);
    }

    #[test]
    fn the_drawn_timers_fall_before_half_the_round_one_time_in_a_hundred_and_before_three_quarters_one_in_ten() {
        // share ≤ s ⇔ x ≤ N^(s−1): P(share ≤ 0.5) = 10⁻², P(share ≤ 0.75) = 10⁻¹ for N = 10⁴.
        // 100,000 draws: the standard deviations are 0.0003 and 0.0009.
        let mut r = TfmccReporting::new(&TfmccConfig::default(), crate::rng::stream(1, "timers"));
        let (mut half, mut three_quarters) = (0u32, 0u32);
        let n: u32 = 100_000;
        for round in 0..n {
            r.start_round((round % 256) as u8, at(0));
            let share = r.timer.expect("a non-CLR receiver draws a timer");
            half += u32::from(share <= 0.5);
            three_quarters += u32::from(share <= 0.75);
        }
        let (h, q) = (f64::from(half) / f64::from(n), f64::from(three_quarters) / f64::from(n));
        assert!((h - 0.01).abs() < 0.0012, "{h}");
        assert!((q - 0.1).abs() < 0.0036, "{q}");
    }

    /// A receiver fed Data of 1,000 B every 10 ms from `from` ms on, round 0, R_max 0.5 s, no
    /// CLR, with the `x_supp` given; returns the receiver after the Data at `to` ms.
    fn fed(from: u64, to: u64, x_supp: f32) -> TfmccReporting {
        let mut r = TfmccReporting::new(&TfmccConfig::default(), crate::rng::stream(7, "rx"));
        feed(&mut r, from, to, x_supp);
        r
    }

    fn feed(r: &mut TfmccReporting, from: u64, to: u64, x_supp: f32) {
        let times = McastTimes::data(0, 0.5, None, at(0));
        let info = McastReport { rate: 1e6, hi: 0.0, lo: x_supp };
        for t in (from..=to).step_by(10) {
            let d = DataSeen {
                me: NodeId(1),
                seq: t / 10,
                size: 1_000,
                now: at(t),
                sent_at: at(t.saturating_sub(30)),
                rtt: SimDuration::from_millis(60),
                info: &info,
                times,
            };
            r.on_data(&d);
        }
    }

    #[test]
    fn an_unsuppressed_receiver_reports_when_its_timer_expires_and_not_before() {
        // The round starts with the first Data at 0; T = 6 · R_max = 3 s.
        let r0 = fed(0, 0, f32::INFINITY);
        let t_ms = r0.timer.expect("timer") * 3_000.0;
        let mut r = fed(0, 0, f32::INFINITY);
        let before = (t_ms - 10.0).floor().max(0.0) as u64;
        if t_ms >= 10.0 {
            assert!(r.report(0.0, at(before)).is_none());
        }
        let rep = r.report(0.0, at(t_ms.ceil() as u64)).expect("the timer expired: a report");
        // No echo has reached it yet: have_RTT clear. The report echoes the Data that was sent
        // and arrived at 0 ms plus the time it was held here: 0 + t, the report's own time.
        assert_eq!(rep.lo, 0.0);
        let sent = at(t_ms.ceil() as u64);
        assert_eq!(r.report_times().echo_at(sent), sent);
        // Once per round.
        assert!(r.report(0.0, at(3_500)).is_none());
    }

    #[test]
    fn a_lower_rate_announced_in_x_supp_cancels_the_timer() {
        // 100 Data of 1,000 B over 1 s: X_r = 2 · X_recv ≈ 1.6 Mbit/s. X_supp = 100 kbit/s is
        // lower and R_max (0.5 s) is not below this receiver's RTT (none measured: R_max):
        // suppressed, and it stays silent for the rest of the round.
        let mut r = fed(0, 990, f32::INFINITY);
        assert!(r.desired(at(990)) > 1e6);
        assert!(r.timer.is_some());
        feed(&mut r, 1_000, 1_000, 100_000.0);
        assert!(r.timer.is_none());
        assert_eq!(r.suppressed, 1);
        assert!(r.report(0.0, at(2_999)).is_none());
    }

    #[test]
    fn an_echo_gives_the_rtt_and_one_way_delay_changes_move_it_between_echoes() {
        // Data sent at 1,000 ms arrives at 1,030 ms with this receiver's report time echoed as
        // 960 ms: R = 70 ms, D = 70 − 30 = 40 ms. The next Data takes 40 ms: R' = 80 ms.
        let mut r = TfmccReporting::new(&TfmccConfig::default(), crate::rng::stream(7, "rx"));
        let data = |r: &mut TfmccReporting, sent: u64, arrived: u64, echo: Option<u64>| {
            let times = McastTimes::data(0, 0.5, echo.map(|e| (NodeId(1), at(e))), at(sent));
            let info = McastReport { rate: 1e6, hi: 0.0, lo: f32::INFINITY };
            let d = DataSeen {
                me: NodeId(1),
                seq: sent,
                size: 1_000,
                now: at(arrived),
                sent_at: at(sent),
                rtt: SimDuration::from_millis(60),
                info: &info,
                times,
            };
            r.on_data(&d);
        };
        data(&mut r, 990, 1_020, None);
        assert_eq!(r.r_now, 0.5, "no echo yet: R_max");
        data(&mut r, 1_000, 1_030, Some(960));
        assert!((r.rtt.unwrap() - 0.07).abs() < 1e-9 && (r.r_now - 0.07).abs() < 1e-9);
        data(&mut r, 1_010, 1_050, None);
        assert!((r.r_now - 0.08).abs() < 1e-9);
        // A second echo, 90 ms, as a non-CLR receiver (q = 0.5): R = 0.5·70 + 0.5·90 = 80 ms.
        data(&mut r, 1_020, 1_060, Some(970));
        assert!((r.rtt.unwrap() - 0.08).abs() < 1e-9);
    }

    #[test]
    fn the_source_takes_the_rtt_from_the_echo_and_echoes_receivers_without_an_rtt_first() {
        let mut t = src();
        let report = |t: &mut Tfmcc, id: u32, rate: f64, have_rtt: bool, stamp: u64, echo: u64, now: u64| {
            let r = McastReport { rate, hi: 1.0, lo: if have_rtt { 1.0 } else { 0.0 } };
            let times = McastTimes::feedback(0, at(echo), at(stamp));
            t.on_feedback_timed(NodeId(id), &r, &times, at(stamp), None, at(now));
        };
        // Receiver 1 (has an RTT) reports at 950 ms, echoing a Data timestamp of 880 ms plus its
        // holding time; it arrives at 1,000 ms: R_r = 1,000 − 880 = 120 ms. It becomes the CLR.
        report(&mut t, 1, 100_000.0, true, 950, 880, 1_000);
        assert!((t.r_peak - 0.12).abs() < 1e-12);
        assert_eq!(t.clr.map(|c| c.id), Some(NodeId(1)));
        // Receiver 2 with an RTT, then receiver 3 without one, both faster than the CLR.
        report(&mut t, 2, 200_000.0, true, 1_000, 900, 1_040);
        report(&mut t, 3, 300_000.0, false, 1_010, 900, 1_050);
        // The new CLR first; then receiver 3 (no RTT); then receiver 2; then the CLR again.
        // Each echo is the report's time plus how long it was held, sent in the Data at 1,060
        // ms: 950 + 60, 1,010 + 10, 1,000 + 20.
        let echo = |t: &mut Tfmcc| {
            let times = t.data_times(at(1_060));
            (times.echo_node(), times.echo_at(at(1_060)))
        };
        assert_eq!(echo(&mut t), (Some(NodeId(1)), at(950 + 60)));
        assert_eq!(echo(&mut t), (Some(NodeId(3)), at(1_010 + 10)));
        assert_eq!(echo(&mut t), (Some(NodeId(2)), at(1_000 + 20)));
        assert_eq!(echo(&mut t), (Some(NodeId(1)), at(950 + 60)));
        // R_max travels in ms.
        assert_eq!(t.data_times(at(1_060)).r_max_s(), Some((t.r_max * 1e3).round() / 1e3));
    }

    #[test]
    fn validation_names_the_key() {
        let bad = TfmccConfig { g: 1.0, ..Default::default() };
        assert_eq!(bad.validate().unwrap_err().key, "g");
        let bad = TfmccConfig { recv_rate_rtts: 0.5, ..Default::default() };
        assert_eq!(bad.validate().unwrap_err().key, "recv_rate_rtts");
    }
}
