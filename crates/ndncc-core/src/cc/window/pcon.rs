//! The PCON consumer (Schneider et al., ACM ICN 2016; ndnSIM ConsumerPcon; ALGORITHMS.md A3
//! and B §9.2): a window that reacts to congestion marks, with an AIMD, BIC or CUBIC law.
//!
//! ```text
//!   unmarked Data:  W < ssthresh ? W += 1 : W += law.increment(W)
//!   marked Data:    decrease (and no increase for this Data)
//!   timeout:        decrease
//!   NACK:           retransmit; if marked, also decrease
//!   decrease:       only if highest_received > p (conservative window adaptation, "cwa");
//!                   p = next_seq + m·(next_seq − highest_received),  m = cwa_margin = 0.5;
//!                   W = ssthresh = max(initial_window, law.on_decrease(W))
//! ```
//!
//! Slow start lasts until the first decrease (ssthresh starts unbounded). The CWA test is the
//! corrected one: a decrease is allowed when CWA is off or highest_received > p (ndnSIM 2.6
//! shipped it inverted). The laws are the `aimd`, `bic` and `cubic` files' own (`AimdLaw`,
//! `BicLaw`, `CubicLaw`); law parameters are flat keys and are rejected for the other laws.
//! BIC is therefore the Linux law of B §8.1 (cnt-based, halving below low_window), not the
//! target-window variant of Schneider's consumer; CUBIC evaluates W_cubic one srtt ahead, where
//! that consumer evaluates it at t.
//! `cwa_applies_to_marks = false` gives the original ICN 2016 code: CoDel already spaces the
//! marks, so every marked Data decreases and CWA gates only timeouts and marked NACKs.

use serde::{Deserialize, Serialize};

use crate::cc::window::aimd::{check_start, AimdLaw};
use crate::cc::window::bic::{BicConfig, BicLaw};
use crate::cc::window::cubic::{CubicConfig, CubicLaw};
use crate::cc::window::law::{finite, WindowLaw};
use crate::cc::window::recovery::{RecoveryPoint, PCON_MARGIN};
use crate::cc::{DataEvent, LossEvent, NackAction, WindowControl};
use crate::plugin::{check, Check, Invalid, Plugin};
use crate::time::SimTime;

/// AIMD decrease factor of ConsumerPcon (`Beta`).
pub const AIMD_BETA: f64 = 0.5;
/// BIC and CUBIC decrease factor of ConsumerPcon (`CubicBeta`).
pub const BIC_CUBIC_BETA: f64 = 0.8;
/// ConsumerPcon's initial window, also the floor of every decrease [packets].
pub const INITIAL_WINDOW: f64 = 1.0;

/// Which growth/decrease law the window follows.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum PconLaw {
    #[default]
    Aimd,
    Bic,
    Cubic,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PconConfig {
    /// "aimd", "bic" or "cubic". Default "aimd".
    pub law: PconLaw,
    /// Window at the start, and floor of every decrease [packets]. Default 1.
    pub initial_window: f64,
    /// Slow-start threshold before the first decrease [packets]. Default: unbounded.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_ssthresh: Option<f64>,
    /// Conservative window adaptation (at most one decrease per RTT). Default true.
    pub cwa: bool,
    /// CWA recovery-point margin m (ndnSIM `AddRttSuppress`). Default 0.5.
    pub cwa_margin: f64,
    /// CWA also gates marked Data; false = the ICN 2016 code. Default true (ndnSIM).
    pub cwa_applies_to_marks: bool,
    /// Decrease on marked Data and marked NACKs; false = a loss-only window. Default true.
    pub react_to_marks: bool,
    /// Decrease factor. Default 0.5 for aimd, 0.8 for bic and cubic.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub beta: Option<f64>,
    /// CUBIC's C [packets/s³] (cubic only). Default 0.4.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub c: Option<f64>,
    /// Fast convergence (bic, cubic). Default true for bic, false for cubic.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fast_convergence: Option<bool>,
    /// CUBIC's Reno-friendly region (cubic only). Default false.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub tcp_friendly: Option<bool>,
    /// BIC's binary-search divisor (bic only). Default 4.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub b: Option<f64>,
    /// BIC's S_max [packets] (bic only). Default 16.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_increment: Option<f64>,
    /// BIC's Reno region [packets] (bic only). Default 14.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub low_window: Option<f64>,
    /// BIC's smooth_part (bic only). Default 20.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub smooth_part: Option<f64>,
}

impl Default for PconConfig {
    fn default() -> Self {
        PconConfig {
            law: PconLaw::Aimd,
            initial_window: INITIAL_WINDOW,
            initial_ssthresh: None,
            cwa: true,
            cwa_margin: PCON_MARGIN,
            cwa_applies_to_marks: true,
            react_to_marks: true,
            beta: None,
            c: None,
            fast_convergence: None,
            tcp_friendly: None,
            b: None,
            max_increment: None,
            low_window: None,
            smooth_part: None,
        }
    }
}

impl Plugin for PconConfig {
    type Built = Box<dyn WindowControl>;
    fn validate(&self) -> Check {
        check_start(self.initial_window, self.initial_ssthresh)?;
        check::within("cwa_margin", self.cwa_margin, 0.0, 1e6)?;
        self.check_keys_fit_law()?;
        match self.law {
            PconLaw::Aimd => check::factor("beta", self.beta.unwrap_or(AIMD_BETA)),
            PconLaw::Bic => self.bic_config().validate_law(),
            PconLaw::Cubic => self.cubic_config().validate_law(),
        }
    }
    fn build(&self) -> Box<dyn WindowControl> {
        Box::new(Pcon::new(self))
    }
}

impl PconConfig {
    /// A key set for a law that does not use it is an error, not silently ignored.
    fn check_keys_fit_law(&self) -> Check {
        let law = self.law;
        let used_by = [
            ("c", self.c.is_some(), law == PconLaw::Cubic),
            ("tcp_friendly", self.tcp_friendly.is_some(), law == PconLaw::Cubic),
            ("fast_convergence", self.fast_convergence.is_some(), law != PconLaw::Aimd),
            ("b", self.b.is_some(), law == PconLaw::Bic),
            ("max_increment", self.max_increment.is_some(), law == PconLaw::Bic),
            ("low_window", self.low_window.is_some(), law == PconLaw::Bic),
            ("smooth_part", self.smooth_part.is_some(), law == PconLaw::Bic),
        ];
        for (key, set, fits) in used_by {
            if set && !fits {
                let name = format!("{law:?}").to_lowercase();
                return Err(Invalid::new(key, format!("does not apply to law = \"{name}\"")));
            }
        }
        Ok(())
    }

    /// BIC parameters: BIC's defaults, β 0.8, and any keys given here.
    pub fn bic_config(&self) -> BicConfig {
        let d = BicConfig::default();
        BicConfig {
            beta: self.beta.unwrap_or(BIC_CUBIC_BETA),
            b: self.b.unwrap_or(d.b),
            max_increment: self.max_increment.unwrap_or(d.max_increment),
            low_window: self.low_window.unwrap_or(d.low_window),
            smooth_part: self.smooth_part.unwrap_or(d.smooth_part),
            fast_convergence: self.fast_convergence.unwrap_or(d.fast_convergence),
            ..d
        }
    }

    /// CUBIC parameters: CUBIC's (ndnSIM) defaults and any keys given here.
    pub fn cubic_config(&self) -> CubicConfig {
        let d = CubicConfig::default();
        CubicConfig {
            c: self.c.unwrap_or(d.c),
            beta: self.beta.unwrap_or(BIC_CUBIC_BETA),
            fast_convergence: self.fast_convergence.unwrap_or(d.fast_convergence),
            tcp_friendly: self.tcp_friendly.unwrap_or(d.tcp_friendly),
            ..d
        }
    }

    fn build_law(&self) -> Box<dyn WindowLaw> {
        match self.law {
            PconLaw::Aimd => Box::new(AimdLaw { beta: self.beta.unwrap_or(AIMD_BETA) }),
            PconLaw::Bic => Box::new(BicLaw::new(&self.bic_config())),
            PconLaw::Cubic => Box::new(CubicLaw::new(&self.cubic_config())),
        }
    }
}

#[derive(Debug)]
pub struct Pcon {
    law: Box<dyn WindowLaw>,
    window: f64,
    ssthresh: f64,
    initial_window: f64,
    cwa: Option<RecoveryPoint>,
    cwa_applies_to_marks: bool,
    react_to_marks: bool,
}

impl Pcon {
    pub fn new(cfg: &PconConfig) -> Pcon {
        Pcon {
            law: cfg.build_law(),
            window: cfg.initial_window,
            ssthresh: cfg.initial_ssthresh.unwrap_or(f64::INFINITY),
            initial_window: cfg.initial_window,
            cwa: cfg.cwa.then(|| RecoveryPoint::new(cfg.cwa_margin)),
            cwa_applies_to_marks: cfg.cwa_applies_to_marks,
            react_to_marks: cfg.react_to_marks,
        }
    }

    /// Slow start until the first decrease, then the law.
    fn increase(&mut self, ev: &DataEvent) {
        if self.window < self.ssthresh {
            self.window += 1.0;
        } else {
            self.window += self.law.increment(self.window, ev);
        }
    }

    /// W = ssthresh = max(initial_window, law.on_decrease(W)), once per RTT under CWA.
    fn decrease(&mut self, now: SimTime, next_seq: u64, highest_received: u64, gated: bool) {
        if let Some(cwa) = &mut self.cwa {
            if gated && !cwa.permits(highest_received) {
                return;
            }
            cwa.arm(next_seq, highest_received);
        }
        self.window = self.law.on_decrease(self.window, now).max(self.initial_window);
        self.ssthresh = self.window;
    }
}

impl WindowControl for Pcon {
    fn name(&self) -> &'static str {
        "pcon"
    }
    fn on_data(&mut self, ev: &DataEvent) {
        if ev.marked && self.react_to_marks {
            self.decrease(ev.now, ev.next_seq, ev.highest_received, self.cwa_applies_to_marks);
        } else {
            self.increase(ev);
        }
    }
    fn on_timeout(&mut self, ev: &LossEvent) {
        self.decrease(ev.now, ev.next_seq, ev.highest_received, true);
    }
    fn on_nack(&mut self, ev: &LossEvent) -> NackAction {
        if ev.marked && self.react_to_marks {
            self.decrease(ev.now, ev.next_seq, ev.highest_received, true);
        }
        NackAction::Retransmit
    }
    fn window(&self) -> f64 {
        self.window
    }
    fn ssthresh(&self) -> Option<f64> {
        finite(self.ssthresh)
    }
    fn metrics(&self, out: &mut Vec<(&'static str, f64)>) {
        self.law.metrics(out);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::window::testkit::{data, nack, timeout};
    use crate::packet::NackReason;

    fn pcon(cfg: PconConfig, window: f64, ssthresh: f64) -> Pcon {
        let mut p = Pcon::new(&cfg);
        p.window = window;
        p.ssthresh = ssthresh;
        p
    }

    /// A marked Data with 50 segments requested and up to 30 received: p would be 60.
    fn marked(ms: u64, highest: u64) -> DataEvent {
        DataEvent { marked: true, next_seq: 50, highest_received: highest, ..data(ms, highest) }
    }

    #[test]
    fn it_slow_starts_until_the_first_decrease() {
        let mut p = Pcon::new(&PconConfig::default());
        p.on_data(&data(0, 0));
        p.on_data(&data(1, 1));
        // 1 + 1 + 1
        assert_eq!((p.window(), p.ssthresh()), (3.0, None));
    }

    #[test]
    fn after_a_decrease_aimd_adds_one_over_the_window() {
        let mut p = pcon(PconConfig::default(), 20.0, 20.0);
        p.on_data(&data(0, 1));
        assert_eq!(p.window(), 20.05); // 20 + 1/20
    }

    #[test]
    fn a_marked_data_halves_the_aimd_window_and_does_not_grow_it() {
        let mut p = pcon(PconConfig::default(), 40.0, f64::INFINITY);
        p.on_data(&marked(0, 30));
        assert_eq!((p.window(), p.ssthresh()), (20.0, Some(20.0)));
    }

    #[test]
    fn cwa_waits_for_data_beyond_next_seq_plus_half_the_outstanding_span() {
        let mut p = pcon(PconConfig::default(), 40.0, f64::INFINITY);
        p.on_data(&marked(0, 30)); // W = 20; p = 50 + 0.5·(50 − 30) = 60
        p.on_data(&marked(1, 60));
        assert_eq!(p.window(), 20.0);
        p.on_data(&marked(2, 61)); // 61 > 60: W = 10
        assert_eq!(p.window(), 10.0);
    }

    #[test]
    fn a_zero_cwa_margin_puts_the_recovery_point_at_next_seq() {
        let mut p = pcon(PconConfig { cwa_margin: 0.0, ..Default::default() }, 40.0, f64::INFINITY);
        p.on_data(&marked(0, 30)); // W = 20; p = 50 + 0·20 = 50
        p.on_data(&marked(1, 51)); // 51 > 50: W = 10
        assert_eq!(p.window(), 10.0);
    }

    #[test]
    fn without_cwa_every_mark_decreases() {
        let mut p = pcon(PconConfig { cwa: false, ..Default::default() }, 40.0, f64::INFINITY);
        p.on_data(&marked(0, 30));
        p.on_data(&marked(1, 31));
        assert_eq!(p.window(), 10.0); // 40 → 20 → 10
    }

    #[test]
    fn with_the_icn_2016_rule_marks_pass_the_gate_but_timeouts_do_not() {
        let cfg = PconConfig { cwa_applies_to_marks: false, ..Default::default() };
        let mut p = pcon(cfg, 40.0, f64::INFINITY);
        p.on_data(&marked(0, 30)); // W = 20, p = 60
        p.on_data(&marked(1, 31)); // W = 10, p = 50 + 0.5·19 = 59.5
        p.on_timeout(&LossEvent { highest_received: 40, ..timeout(2, 3) });
        assert_eq!(p.window(), 10.0);
    }

    #[test]
    fn the_window_never_drops_below_the_initial_window() {
        let mut p = pcon(PconConfig { initial_window: 2.0, ..Default::default() }, 3.0, 3.0);
        p.on_timeout(&timeout(0, 3));
        // max(2, 0.5·3) = 2
        assert_eq!(p.window(), 2.0);
    }

    #[test]
    fn an_unmarked_nack_is_only_retransmitted() {
        let mut p = pcon(PconConfig::default(), 40.0, 40.0);
        assert_eq!(p.on_nack(&nack(0, 3, NackReason::LinkLoss, false)), NackAction::Retransmit);
        assert_eq!(p.window(), 40.0);
    }

    #[test]
    fn a_marked_nack_is_retransmitted_and_decreases() {
        let mut p = pcon(PconConfig::default(), 40.0, 40.0);
        assert_eq!(p.on_nack(&nack(0, 3, NackReason::LinkLoss, true)), NackAction::Retransmit);
        assert_eq!(p.window(), 20.0);
    }

    #[test]
    fn ignoring_marks_turns_pcon_into_a_loss_only_window() {
        let mut p = pcon(PconConfig { react_to_marks: false, ..Default::default() }, 4.0, 8.0);
        p.on_data(&marked(0, 30));
        assert_eq!(p.window(), 5.0);
    }

    #[test]
    fn the_cubic_law_cuts_by_point_eight() {
        let mut p = pcon(PconConfig { law: PconLaw::Cubic, ..Default::default() }, 100.0, 100.0);
        p.on_timeout(&timeout(0, 3));
        assert!((p.window() - 80.0).abs() < 1e-9); // 0.8·100
    }

    #[test]
    fn the_bic_law_cuts_by_point_eight_above_low_window() {
        let mut p = pcon(PconConfig { law: PconLaw::Bic, ..Default::default() }, 100.0, 100.0);
        p.on_data(&marked(0, 30));
        assert!((p.window() - 80.0).abs() < 1e-9); // 0.8·100
    }

    #[test]
    fn a_key_of_another_law_is_rejected() {
        let cfg = PconConfig { c: Some(0.4), ..Default::default() };
        assert_eq!(cfg.validate().unwrap_err().to_string(), "c: does not apply to law = \"aimd\"");
    }

    #[test]
    fn law_parameters_are_validated_with_their_key() {
        let cfg = PconConfig { law: PconLaw::Bic, beta: Some(1.5), ..Default::default() };
        assert_eq!(cfg.validate().unwrap_err().to_string(), "beta: must be in (0, 1) (got 1.5)");
    }
}
