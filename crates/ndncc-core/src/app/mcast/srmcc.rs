//! SRMCC's source and receiver (seed 001, Sections 3.2 and 4; ALGORITHMS.md A7). The tree
//! nodes' part (occupancy, fair share, MCC aggregation) is the `srmcc` router module.
//!
//! Receivers send one MCC message per cycle: min fair shared rate = their access bandwidth,
//! max occupancy 0, min occupancy 1 (tree nodes fold their own values in on the way up).
//! The source collects the cycle's MCC messages — R_fair = the smallest rate, O_max and O_min the
//! extreme occupancies — and at the end of each cycle (4 × RTT) runs Algorithm 1:
//!
//! ```text
//!   for O in {O_min, O_max}:
//!     O = 0            →  R = 2·R(t)                                            (Eq. 6)
//!     0 < O ≤ Oth1     →  w = 1 − ¾·O²/Oth1²,         R = R(t)·(1 + w·(Oth1 − O))
//!     Oth1 < O ≤ Oth2  →  w = ¼·(O − Oth2)/(Oth1 − Oth2), R = R(t)·(1 + w·(Oth2 − O))
//!     O > Oth2         →  R(t) ≥ R_fair ? min(R(t)·(1 + (Oth2 − O)), ½·R(t)) : 2·R(t)   (Eq. 9)
//!     stages 1–3 capped at R_fair                                                (Eq. 4)
//!   R_max from O_min, R_min from O_max;   R(t+1) = R_min + γ·(R_max − R_min)      (Eq. 10)
//! ```
//!
//! The no-occupancy stage is not capped: Algorithm 1 computes it "using Equation (6)" alone
//! (line 5), where every other stage ends "using Equation (4)" (lines 9, 13, 19, 22), and
//! Section 4.2.1 gives Eq. 6 without the cap. So while some branch of the tree has an empty
//! queue (O_min = 0), R_max = 2·R(t) and γ lets the rate past the fair share by
//! γ·(2·R(t) − R_min): the lever of the seed's γ trade-off (Figure 5). `cap_empty_stage`
//! caps it too (the reading "each candidate capped", a sensitivity run).
//!
//! A cycle without any MCC message keeps the rate (the source has learnt nothing).

use serde::{Deserialize, Serialize};

use super::{McastControl, McastReporting};
use crate::packet::McastReport;
use crate::plugin::{check, Check, Invalid, Plugin};
use crate::time::{SimDuration, SimTime};
use crate::units::Bandwidth;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SrmccConfig {
    /// Occupancy threshold 1, Oth1. Default 0.25.
    pub oth1: f64,
    /// Occupancy threshold 2, Oth2. Default 0.5.
    pub oth2: f64,
    /// Rate selection factor γ. Default 0.15.
    pub gamma: f64,
    /// Initial rate. Default 50 kbit/s.
    pub initial_rate: Bandwidth,
    /// Adaptation cycle in round trips. Default 4.
    pub cycle_rtts: f64,
    /// Cap the no-occupancy stage's doubling at R_fair as well. Default false (Algorithm 1).
    pub cap_empty_stage: bool,
}

impl Default for SrmccConfig {
    fn default() -> Self {
        SrmccConfig {
            oth1: 0.25,
            oth2: 0.5,
            gamma: 0.15,
            initial_rate: Bandwidth(50_000),
            cycle_rtts: 4.0,
            cap_empty_stage: false,
        }
    }
}

impl Plugin for SrmccConfig {
    type Built = Box<dyn McastControl>;
    fn validate(&self) -> Check {
        check::within("oth1", self.oth1, 1e-6, 1.0)?;
        check::within("oth2", self.oth2, 1e-6, 1.0)?;
        if self.oth1 >= self.oth2 {
            return Err(Invalid::new("oth2", "must be above oth1"));
        }
        check::fraction("gamma", self.gamma)?;
        if self.initial_rate.bps() == 0 {
            return Err(Invalid::new("initial_rate", "must be > 0"));
        }
        check::within("cycle_rtts", self.cycle_rtts, 0.1, 1e3)
    }
    fn build(&self) -> Box<dyn McastControl> {
        Box::new(Srmcc::new(self))
    }
}

/// One cycle's MCC messages, folded together.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Folded {
    fair: f64,
    o_max: f64,
    o_min: f64,
}

pub struct Srmcc {
    cfg: SrmccConfig,
    cycle: Option<Folded>,
    /// The last cycle's inputs and congestion states, for the record.
    last_fair: f64,
    last_o: (f64, f64),
}

impl Srmcc {
    pub fn new(cfg: &SrmccConfig) -> Srmcc {
        Srmcc { cfg: cfg.clone(), cycle: None, last_fair: f64::NAN, last_o: (f64::NAN, f64::NAN) }
    }

    /// The congestion state value of an occupancy O (Eq. 5).
    pub fn state(&self, o: f64) -> u8 {
        if o <= 0.0 {
            0
        } else if o <= self.cfg.oth1 {
            1
        } else if o <= self.cfg.oth2 {
            2
        } else {
            3
        }
    }

    /// One candidate rate for occupancy `o` from the current rate `r` (Algorithm 1, lines 3–23).
    pub fn candidate(&self, o: f64, r: f64, fair: f64) -> f64 {
        let (t1, t2) = (self.cfg.oth1, self.cfg.oth2);
        let cal = match self.state(o) {
            // Eq. 6 alone (Algorithm 1, line 5).
            0 if !self.cfg.cap_empty_stage => return 2.0 * r,
            0 => 2.0 * r,
            1 => {
                let w = 1.0 - 0.75 * o * o / (t1 * t1);
                r * (1.0 + w * (t1 - o))
            }
            2 => {
                let w = 0.25 * (o - t2) / (t1 - t2);
                r * (1.0 + w * (t2 - o))
            }
            _ if r >= fair => (r * (1.0 + (t2 - o))).min(0.5 * r),
            _ => 2.0 * r,
        };
        cal.min(fair)
    }

    /// R(t+1) from the cycle's extremes (Eq. 10).
    pub fn select(&self, r: f64, fair: f64, o_min: f64, o_max: f64) -> f64 {
        let r_max = self.candidate(o_min, r, fair);
        let r_min = self.candidate(o_max, r, fair);
        r_min + self.cfg.gamma * (r_max - r_min)
    }
}

impl McastControl for Srmcc {
    fn name(&self) -> &'static str {
        "srmcc"
    }
    fn initial_rate(&self) -> f64 {
        self.cfg.initial_rate.bps() as f64
    }
    fn on_feedback(&mut self, report: &McastReport, _rtt: Option<SimDuration>, _now: SimTime) {
        let (hi, lo) = (f64::from(report.hi), f64::from(report.lo));
        let f = self.cycle.get_or_insert(Folded { fair: f64::INFINITY, o_max: 0.0, o_min: 1.0 });
        f.fair = f.fair.min(report.rate);
        f.o_max = f.o_max.max(hi);
        f.o_min = f.o_min.min(lo);
    }
    fn adapt(&mut self, rate: f64, _now: SimTime) -> f64 {
        let Some(f) = self.cycle.take() else { return rate };
        self.last_fair = f.fair;
        self.last_o = (f.o_min, f.o_max);
        self.select(rate, f.fair, f.o_min, f.o_max)
    }
    fn cycle(&self, rtt: SimDuration) -> SimDuration {
        SimDuration::from_secs_f64(rtt.as_secs_f64() * self.cfg.cycle_rtts)
    }
    fn metrics(&self, out: &mut Vec<(&'static str, f64)>) {
        out.push(("fair_rate_bps", self.last_fair));
        out.push(("o_min", self.last_o.0));
        out.push(("o_max", self.last_o.1));
    }
}

/// A receiver's MCC message: its access bandwidth, max occupancy 0, min occupancy 1.
pub struct MccReporting;

impl McastReporting for MccReporting {
    fn report(&mut self, access_bps: f64, _now: SimTime) -> Option<McastReport> {
        Some(McastReport { rate: access_bps, hi: 0.0, lo: 1.0 })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn s() -> Srmcc {
        Srmcc::new(&SrmccConfig::default())
    }

    #[test]
    fn each_occupancy_stage_follows_algorithm_1() {
        let c = s();
        let fair = 1e9;
        // Stage 0: doubling.
        assert_eq!(c.candidate(0.0, 100.0, fair), 200.0);
        // Stage 1, O = 0.1: w = 1 − 0.75·0.01/0.0625 = 0.88; R = 100·(1 + 0.88·0.15) = 113.2.
        assert!((c.candidate(0.1, 100.0, fair) - 113.2).abs() < 1e-9);
        // Stage 2, O = 0.4: w = 0.25·(−0.1)/(−0.25) = 0.1; R = 100·(1 + 0.1·0.1) = 101.
        assert!((c.candidate(0.4, 100.0, fair) - 101.0).abs() < 1e-9);
        // Stage 3, O = 0.8, R(t) ≥ R_fair: min(100·(1 − 0.3), 50) = 50.
        assert_eq!(c.candidate(0.8, 100.0, 90.0), 50.0);
        // Stage 3 below the fair share: doubling, capped by R_fair.
        assert_eq!(c.candidate(0.8, 100.0, 150.0), 150.0);
        assert_eq!(c.candidate(0.8, 100.0, 500.0), 200.0);
        // Stages 1-3 are capped by R_fair (Eq. 4); the no-occupancy stage is not (line 5).
        assert_eq!(c.candidate(0.1, 100.0, 105.0), 105.0);
        assert_eq!(c.candidate(0.0, 100.0, 120.0), 200.0);
        let capped = Srmcc::new(&SrmccConfig { cap_empty_stage: true, ..SrmccConfig::default() });
        assert_eq!(capped.candidate(0.0, 100.0, 120.0), 120.0);
    }

    #[test]
    fn an_empty_branch_lets_gamma_take_the_rate_past_the_fair_share() {
        // R(t) = 100 = R_fair; O_min = 0 → R_max = 200 (uncapped); O_max = 0.4 → R_min =
        // min(101, 100) = 100; R = 100 + 0.15·100 = 115, and 100 + 0.5·100 = 150 at γ = 0.5.
        assert!((s().select(100.0, 100.0, 0.0, 0.4) - 115.0).abs() < 1e-9);
        let g = Srmcc::new(&SrmccConfig { gamma: 0.5, ..SrmccConfig::default() });
        assert!((g.select(100.0, 100.0, 0.0, 0.4) - 150.0).abs() < 1e-9);
        // Capped, the fair share holds at every γ.
        let capped = Srmcc::new(&SrmccConfig { cap_empty_stage: true, gamma: 0.5, ..SrmccConfig::default() });
        assert!((capped.select(100.0, 100.0, 0.0, 0.4) - 100.0).abs() < 1e-9);
    }

    #[test]
    fn the_selection_factor_weighs_the_two_candidates() {
        let c = s();
        // O_min = 0 → R_max = 200; O_max = 0.4 → R_min = 101; R = 101 + 0.15·99 = 115.85.
        assert!((c.select(100.0, 1e9, 0.0, 0.4) - 115.85).abs() < 1e-9);
        assert_eq!(c.state(0.25), 1);
        assert_eq!(c.state(0.5), 2);
        assert_eq!(c.state(0.51), 3);
    }

    #[test]
    fn a_cycle_folds_its_messages_and_an_empty_cycle_keeps_the_rate() {
        let mut c = s();
        assert_eq!(c.adapt(100.0, SimTime::ZERO), 100.0);
        c.on_feedback(&McastReport { rate: 2e6, hi: 0.4, lo: 0.1 }, None, SimTime::ZERO);
        c.on_feedback(&McastReport { rate: 1e6, hi: 0.2, lo: 0.0 }, None, SimTime::ZERO);
        // fair 1e6, O_min 0 → 200, O_max 0.4 → 101: 115.85 (to f32 precision: the occupancies
        // travel as f32, and 0.4f32 is 0.4 + 6e-9).
        assert!((c.adapt(100.0, SimTime::ZERO) - 115.85).abs() < 1e-6);
        assert_eq!(c.adapt(115.0, SimTime::ZERO), 115.0);
    }

    #[test]
    fn validation_names_the_key() {
        assert_eq!(SrmccConfig { oth2: 0.2, ..Default::default() }.validate().unwrap_err().key, "oth2");
        assert_eq!(SrmccConfig { gamma: 1.5, ..Default::default() }.validate().unwrap_err().key, "gamma");
    }
}
