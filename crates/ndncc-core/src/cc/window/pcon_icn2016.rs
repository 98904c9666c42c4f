//! The consumer of the original PCON simulations (Schneider et al., ACM ICN 2016; seed 004):
//! the `ConsumerCC` application its authors' ndnSIM scenarios (`pcon_scen*`) install, with its
//! own form of BIC. ALGORITHMS.md A3 calls it "the original PCON code's consumer".
//!
//! It differs from the later ndnSIM ConsumerPcon (`pcon.rs`, `law = "bic"`) in four ways that
//! decide how hard a run overshoots and how often it decreases:
//!
//! ```text
//!   below low_window (14):  W ≤ ssthresh ? W += 1 : W += 1/W       (Reno; ssthresh starts unbounded)
//!   from low_window on, BIC by target window (no exponential slow start beyond 14):
//!     binary increase:      target − W < S_max ? W += (target − W)/W : W += S_max/W
//!                           then if W < W_max: W_min = W, target = (W_max + W_min)/2
//!                           else enter BIC slow start (step 1, goal W + 1, W_max = ∞)
//!     BIC slow start:       W += step/W; once W ≥ goal: step *= 2, goal = W + step;
//!                           leave it once step ≥ S_max
//!   decrease (β = 0.5):     W ≥ low_window: W_max = W, W = β·W, W_min = W,
//!                             fast convergence if the old W_max was larger: W_max = (W_max + W_min)/2,
//!                             target = (W_max + W_min)/2
//!                           W < low_window: ssthresh = β·W, W = ssthresh
//!   marked Data:            decrease (every one: CoDel spaces the marks), no increase
//!   timeout, marked NACK:   decrease only if highest received > p (conservative window
//!                           adaptation), then p = next segment to request (no margin)
//!   unmarked NACK:          retransmit, and grow as for a Data (the original code's NACK is a
//!                           Data with a NACK tag; only a marked one takes the decrease branch)
//!   always:                 W ≥ initial window
//! ```
//!
//! The timers of that consumer are the `rtt` table's: RTO = multiplier · max(min_rto,
//! srtt + 4·rttvar), multiplier doubled per timeout up to 8 (`MaxMultiplier`) and reset by a
//! valid sample, timeouts checked every 10 ms (`RetxTimer`); `min_rto` is set per scenario.

use serde::{Deserialize, Serialize};

use crate::cc::window::recovery::RecoveryPoint;
use crate::cc::{DataEvent, LossEvent, NackAction, WindowControl};
use crate::plugin::{check, Check, Plugin};

/// `Window`: the initial window, also the floor of the window [packets].
pub const INITIAL_WINDOW: f64 = 1.0;
/// `BETA`: the decrease factor.
pub const BETA: f64 = 0.5;
/// `LOW_WINDOW`: below it the window follows Reno [packets].
pub const LOW_WINDOW: f64 = 14.0;
/// `MAX_INCREMENT`: BIC's S_max, the largest increase per RTT [packets].
pub const MAX_INCREMENT: f64 = 16.0;
/// The original compares W with W_max with this slack, so that equal doubles count as equal.
const EQUAL_SLACK: f64 = 1e-5;

/// `window = { type = "pcon-icn2016", … }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PconIcn2016Config {
    /// Window at the start, and its floor [packets]. Default 1 (`Window`).
    pub initial_window: f64,
    /// Decrease factor. Default 0.5 (`BETA`).
    pub beta: f64,
    /// Reno below this window [packets]. Default 14.
    pub low_window: f64,
    /// BIC's S_max [packets]. Default 16.
    pub max_increment: f64,
    /// Conservative window adaptation for timeouts and marked NACKs
    /// (`UseConservativeWindowAdaptation`). Default true.
    pub cwa: bool,
    /// Decrease on marked Data and marked NACKs (`ReactToCongMarks`). Default true.
    pub react_to_marks: bool,
    /// A timeout's decrease ends at the initial window (`InitialWindowOnTimeout`). Default false.
    pub initial_window_on_timeout: bool,
    /// An unmarked NACK grows the window as a Data does, as in the original code. Default true.
    pub grow_on_unmarked_nack: bool,
}

impl Default for PconIcn2016Config {
    fn default() -> Self {
        PconIcn2016Config {
            initial_window: INITIAL_WINDOW,
            beta: BETA,
            low_window: LOW_WINDOW,
            max_increment: MAX_INCREMENT,
            cwa: true,
            react_to_marks: true,
            initial_window_on_timeout: false,
            grow_on_unmarked_nack: true,
        }
    }
}

impl Plugin for PconIcn2016Config {
    type Built = Box<dyn WindowControl>;
    fn validate(&self) -> Check {
        check::within("initial_window", self.initial_window, 1.0, 1e6)?;
        check::factor("beta", self.beta)?;
        check::within("low_window", self.low_window, 1.0, 1e6)?;
        check::within("max_increment", self.max_increment, 1.0, 1e6)
    }
    fn build(&self) -> Box<dyn WindowControl> {
        Box::new(PconIcn2016::new(self))
    }
}

#[derive(Debug)]
pub struct PconIcn2016 {
    cfg: PconIcn2016Config,
    window: f64,
    ssthresh: f64,
    /// BIC's W_min, W_max and target window [packets].
    min_win: f64,
    max_win: f64,
    target: f64,
    /// BIC slow start: its step and the window at which the step doubles [packets].
    bic_slow_start: Option<(f64, f64)>,
    cwa: Option<RecoveryPoint>,
}

impl PconIcn2016 {
    pub fn new(cfg: &PconIcn2016Config) -> PconIcn2016 {
        PconIcn2016 {
            cfg: cfg.clone(),
            window: cfg.initial_window,
            ssthresh: f64::INFINITY,
            min_win: 0.0,
            max_win: f64::INFINITY,
            target: 0.0,
            bic_slow_start: None,
            cwa: cfg.cwa.then(|| RecoveryPoint::new(0.0)),
        }
    }

    fn increase(&mut self) {
        let (w, s_max) = (self.window, self.cfg.max_increment);
        if w < self.cfg.low_window {
            self.window += if w <= self.ssthresh { 1.0 } else { 1.0 / w };
        } else if let Some((step, goal)) = self.bic_slow_start {
            self.window += step / w;
            let (mut step, mut goal) = (step, goal);
            if self.window >= goal {
                step *= 2.0;
                goal = self.window + step;
            }
            self.bic_slow_start = (step < s_max).then_some((step, goal));
        } else {
            let gap = self.target - w;
            self.window += if gap < s_max { gap / w } else { s_max / w };
            if self.window + EQUAL_SLACK < self.max_win {
                self.min_win = self.window;
                self.target = (self.max_win + self.min_win) / 2.0;
            } else {
                self.bic_slow_start = Some((1.0, self.window + 1.0));
                self.max_win = f64::INFINITY;
            }
        }
        self.window = self.window.max(self.cfg.initial_window);
    }

    fn decrease(&mut self, to_initial: bool) {
        let beta = self.cfg.beta;
        if self.window >= self.cfg.low_window {
            let previous_max = self.max_win;
            self.max_win = self.window;
            self.window *= beta;
            self.min_win = self.window;
            if previous_max > self.max_win {
                self.max_win = (self.max_win + self.min_win) / 2.0;
            }
            self.target = (self.max_win + self.min_win) / 2.0;
        } else {
            self.ssthresh = self.window * beta;
            self.window = self.ssthresh;
        }
        if to_initial {
            self.ssthresh = self.window * beta;
            self.window = self.cfg.initial_window;
        }
        self.window = self.window.max(self.cfg.initial_window);
    }

    /// A decrease gated by conservative window adaptation.
    fn gated_decrease(&mut self, ev: &LossEvent, to_initial: bool) {
        if let Some(cwa) = &mut self.cwa {
            if !cwa.permits(ev.highest_received) {
                return;
            }
            cwa.arm(ev.next_seq, ev.next_seq);
        }
        self.decrease(to_initial);
    }
}

impl WindowControl for PconIcn2016 {
    fn name(&self) -> &'static str {
        "pcon-icn2016"
    }
    fn on_data(&mut self, ev: &DataEvent) {
        if ev.marked && self.cfg.react_to_marks {
            self.decrease(false);
        } else {
            self.increase();
        }
    }
    fn on_timeout(&mut self, ev: &LossEvent) {
        self.gated_decrease(ev, self.cfg.initial_window_on_timeout);
    }
    fn on_nack(&mut self, ev: &LossEvent) -> NackAction {
        if ev.marked && self.cfg.react_to_marks {
            self.gated_decrease(ev, false);
        } else if self.cfg.grow_on_unmarked_nack {
            self.increase();
        }
        NackAction::Retransmit
    }
    fn window(&self) -> f64 {
        self.window
    }
    fn ssthresh(&self) -> Option<f64> {
        self.ssthresh.is_finite().then_some(self.ssthresh)
    }
    fn metrics(&self, out: &mut Vec<(&'static str, f64)>) {
        if self.max_win.is_finite() {
            out.push(("w_max", self.max_win));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::cc::window::testkit::{data, nack, timeout};
    use crate::packet::NackReason;

    fn consumer() -> PconIcn2016 {
        PconIcn2016::new(&PconIcn2016Config::default())
    }

    fn grow(c: &mut PconIcn2016, n: usize) {
        for i in 0..n {
            c.on_data(&data(i as u64, i as u64));
        }
    }

    #[test]
    fn slow_start_stops_at_the_low_window_and_bic_then_adds_s_max_per_window() {
        // 1 → 14 in 13 Data (+1 each). The first BIC step aims at the target, which is still
        // 0: W += (0 − 14)/14 = 13, as in the original; W_min = 13 and the target becomes
        // (∞ + 13)/2. Back in Reno, +1 = 14; from then on each Data adds S_max/W = 16/14.
        let mut c = consumer();
        grow(&mut c, 13);
        assert_eq!(c.window(), 14.0);
        c.on_data(&data(20, 20));
        assert_eq!((c.window(), c.min_win), (13.0, 13.0));
        c.on_data(&data(21, 21));
        assert_eq!(c.window(), 14.0);
        c.on_data(&data(22, 22));
        assert!((c.window() - (14.0 + 16.0 / 14.0)).abs() < 1e-12);
    }

    #[test]
    fn a_decrease_above_the_low_window_halves_and_aims_between_the_old_and_new_window() {
        // W = 20 with W_max still unbounded: W_max = 20, W = 10 = W_min; the old W_max was
        // larger, so fast convergence: W_max = (20 + 10)/2 = 15, target = (15 + 10)/2 = 12.5.
        let mut c = consumer();
        c.window = 20.0;
        c.on_data(&DataEvent { marked: true, ..data(0, 0) });
        assert_eq!((c.window(), c.max_win, c.min_win, c.target), (10.0, 15.0, 10.0, 12.5));
        // Below 14 the window is Reno's: 10 ≤ ssthresh (∞) → +1.
        c.on_data(&data(1, 1));
        assert_eq!(c.window(), 11.0);
    }

    #[test]
    fn fast_convergence_lowers_w_max_when_losses_come_below_it() {
        // W_max 40; a decrease at W = 30: W_max = (30 + 15)/2 = 22.5, W = 15, target 18.75.
        let mut c = consumer();
        c.window = 30.0;
        c.max_win = 40.0;
        c.on_data(&DataEvent { marked: true, ..data(0, 0) });
        assert_eq!((c.window(), c.max_win, c.target), (15.0, 22.5, 18.75));
    }

    #[test]
    fn the_binary_search_closes_half_the_gap_to_the_target_per_window() {
        // W = 16, target 20 (gap 4 < 16): +4/16 per Data; W_min and target follow.
        let mut c = consumer();
        (c.window, c.min_win, c.max_win, c.target) = (16.0, 16.0, 24.0, 20.0);
        c.on_data(&data(0, 0));
        assert_eq!(c.window(), 16.25);
        assert_eq!((c.min_win, c.target), (16.25, 20.125));
    }

    #[test]
    fn reaching_w_max_starts_bic_slow_start_which_doubles_its_step() {
        // W = 23.99999 with W_max 24: one Data reaches W_max → BIC slow start, step 1, goal W + 1.
        let mut c = consumer();
        (c.window, c.min_win, c.max_win, c.target) = (24.0 - 1e-6, 23.0, 24.0, 24.0);
        c.on_data(&data(0, 0));
        let (step, goal) = c.bic_slow_start.expect("in BIC slow start");
        assert_eq!((step, c.max_win), (1.0, f64::INFINITY));
        assert!((goal - (c.window() + 1.0)).abs() < 1e-12);
        // From W = 30 with step 8, goal 30.1: +8/30 reaches the goal, so step 16 = S_max ends it.
        c.window = 30.0;
        c.bic_slow_start = Some((8.0, 30.1));
        c.on_data(&data(1, 1));
        assert!(c.bic_slow_start.is_none());
    }

    #[test]
    fn timeouts_and_marked_nacks_decrease_once_per_window_but_every_marked_data_does() {
        // Timeout (up to 9 received, 20 requested): decrease, p = 20. A second timeout with the
        // same highest received is gated; a marked Data still decreases.
        let mut c = consumer();
        c.window = 12.0;
        c.on_timeout(&timeout(0, 3));
        assert_eq!(c.window(), 6.0);
        c.on_nack(&nack(1, 4, NackReason::LinkLoss, true));
        assert_eq!(c.window(), 6.0);
        c.on_data(&DataEvent { marked: true, ..data(2, 5) });
        assert_eq!(c.window(), 3.0);
        // Once a Data beyond p = 20 arrives, a timeout may decrease again.
        c.on_timeout(&LossEvent { highest_received: 21, ..timeout(3, 6) });
        assert_eq!(c.window(), 1.5);
    }

    #[test]
    fn an_unmarked_nack_retransmits_and_grows_as_a_data_would() {
        let mut c = consumer();
        assert_eq!(c.on_nack(&nack(0, 3, NackReason::LinkLoss, false)), NackAction::Retransmit);
        assert_eq!(c.window(), 2.0);
        let mut still = PconIcn2016::new(&PconIcn2016Config { grow_on_unmarked_nack: false, ..Default::default() });
        still.on_nack(&nack(0, 3, NackReason::LinkLoss, false));
        assert_eq!(still.window(), 1.0);
    }

    #[test]
    fn the_window_never_drops_below_the_initial_window_and_may_return_to_it_on_timeouts() {
        let mut c = consumer();
        c.on_timeout(&timeout(0, 3));
        assert_eq!(c.window(), 1.0);
        let mut reset = PconIcn2016::new(&PconIcn2016Config { initial_window_on_timeout: true, ..Default::default() });
        reset.window = 40.0;
        reset.on_timeout(&timeout(0, 3));
        // W_max 40, W 20, then back to the initial window with ssthresh = 0.5 · 20.
        assert_eq!((reset.window(), reset.ssthresh), (1.0, 10.0));
    }

    #[test]
    fn validation_names_the_offending_key() {
        let bad = [
            (PconIcn2016Config { initial_window: 0.5, ..Default::default() }, "initial_window"),
            (PconIcn2016Config { beta: 1.5, ..Default::default() }, "beta"),
            (PconIcn2016Config { low_window: f64::NAN, ..Default::default() }, "low_window"),
            (PconIcn2016Config { max_increment: 0.0, ..Default::default() }, "max_increment"),
        ];
        for (cfg, key) in bad {
            assert_eq!(cfg.validate().unwrap_err().key, key);
        }
    }
}
