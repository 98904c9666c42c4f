//! MIRCC rate stamping, in the form seed 000 states it (Section II.C, Eq. 1–5; ALGORITHMS.md A6).
//!
//! Every control interval T, for each of its link faces (the upstream link of the Interests sent
//! on it), the router computes a stamping rate R(t) [Interests/s]:
//!
//! ```text
//!   y(t)      = Interests sent on the face during [t−T, t) / T          (offered load)
//!   C         = reverse bandwidth / (8 · data_size)                     (Data/s the link returns)
//!   q(t)      = Interest-shaper occupancy of the face                   (the seed's leaky bucket)
//!   d(t)      = smoothed RTT of the Interests sent on the face
//!   N(t)      = max(C, y(t)) / R(t−T)                                    (Eq. 1)
//!   base(t)   = (η·C − β(t)·q(t)/d(t)) / N(t)                            (Eq. 2)
//!   β(t)      = β · min(1, d(t)/T)                                       (Eq. 3, see below)
//!   excess(t) = R(t−T) − y(t)/N(t)                                       (Eq. 4)
//!   R(t)      = ewma(base) + ewma(excess), clamped to [min_rate, max_rate] (Eq. 5)
//! ```
//!
//! A Data leaving the node carries min(its stamp, R of the face it came in on). Summed, the
//! update is R(t) = R(t−T) + (η·C − y − β·q/d)/N: the RCP-like step shared among N flows.
//!
//! **β self-tuning (Eq. 3).** The seed's printed form of Eq. 3 is illegible, so the rule is
//! ours. The queue term asks the flows to slow down by β·q/d in total, which drains the queue
//! at that rate: a share β of it per RTT d, and a share β·T/d per interval T. Ignoring feedback
//! delay, the loop overshoots when the share per interval exceeds 1 and diverges from 2; the
//! feedback delay (stamps travel to the consumers, their Interests back) lowers both bounds.
//! With `self_tune_beta` (default) β(t) = β·min(1, d(t)/T), so the share drained is at most β
//! per RTT *and* at most β per interval, whichever is longer: with the default β = ½, at most half
//! the measured queue per max(d, T). With a 100 ms interval and a 300 ms RTT, β(t) = 0.5; with a
//! 750 ms interval, β(t) = 0.2. Without self-tuning β(t) = β.
//!
//! **Choices where the seed is silent (all parameters):** T is the module's `interval`, which
//! the engine rounds up to the node's clock tick, and y is divided by the time actually elapsed
//! since the previous update. y counts Interests offered to the face, including those its
//! shaper then drops (the seed counts "received" Interests). Before the first update R is
//! `initial_rate` (default: `max_rate`); the two EWMAs start from their first raw values. d is an
//! EWMA with gain `rtt_gain` of the RTT samples of Data arriving on the face, `initial_rtt`
//! before the first sample.

use serde::{Deserialize, Serialize};

use super::{ModuleCtx, RouterModule};
use crate::ids::FaceId;
use crate::packet::Packet;
use crate::plugin::{check, Check, Invalid, Plugin};
use crate::time::{SimDuration, SimTime};
use crate::units::{Bytes, Duration};

/// `{ type = "mircc", … }` on a node.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct MirccConfig {
    /// Control interval T [time]. Default "100ms". Rounded up to the node's clock tick, so on a
    /// coarse clock T is (a multiple of) the tick.
    pub interval: Duration,
    /// Target utilisation η. Default 1.0 (the seed's value).
    pub eta: f64,
    /// Queue-drain gain β: the share of the measured queue drained per RTT (and, when
    /// self-tuned, per interval). Default 0.5.
    pub beta: f64,
    /// Self-tune β as beta · min(1, d/T) (see the module docs). Default true.
    pub self_tune_beta: bool,
    /// Weight of the new value in the EWMAs of base and excess rate. Default 0.5 (the seed's).
    pub ewma: f64,
    /// R before the first update [Interests/s]. Default: `max_rate` (η·C when that is unset).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub initial_rate: Option<f64>,
    /// Data size turning the reverse bandwidth into C [bytes]. Default "1250B" (seed 000's Data).
    pub data_size: Bytes,
    /// Lowest R [Interests/s]. Default 1.
    pub min_rate: f64,
    /// Highest R [Interests/s]. Default: η·C of the face.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub max_rate: Option<f64>,
    /// Gain of the RTT EWMA d(t). Default 0.125.
    pub rtt_gain: f64,
    /// d(t) before the first RTT sample [time]. Default "100ms".
    pub initial_rtt: Duration,
}

impl Default for MirccConfig {
    fn default() -> Self {
        MirccConfig {
            interval: Duration::from_millis(100),
            eta: 1.0,
            beta: 0.5,
            self_tune_beta: true,
            ewma: 0.5,
            initial_rate: None,
            data_size: Bytes(1250),
            min_rate: 1.0,
            max_rate: None,
            rtt_gain: 0.125,
            initial_rtt: Duration::from_millis(100),
        }
    }
}

/// `v` in (0, 1].
fn unit_interval(key: &str, v: f64) -> Check {
    if v > 0.0 && v <= 1.0 {
        Ok(())
    } else {
        Err(Invalid::new(key, format!("must be in (0, 1] (got {v})")))
    }
}

impl Plugin for MirccConfig {
    type Built = Box<dyn RouterModule>;
    fn validate(&self) -> Check {
        check::time("interval", self.interval.get(), false)?;
        check::positive_at_most("eta", self.eta, 10.0)?;
        check::within("beta", self.beta, 0.0, 1e6)?;
        unit_interval("ewma", self.ewma)?;
        unit_interval("rtt_gain", self.rtt_gain)?;
        check::packet_bytes("data_size", self.data_size.0, 1)?;
        check::rate("min_rate", self.min_rate)?;
        if let Some(m) = self.max_rate {
            check::rate("max_rate", m)?;
            if m < self.min_rate {
                return Err(Invalid::new("max_rate", format!("({m}) must not be below min_rate ({})", self.min_rate)));
            }
        }
        if let Some(r) = self.initial_rate {
            check::rate("initial_rate", r)?;
        }
        check::time("initial_rtt", self.initial_rtt.get(), false)
    }
    fn build(&self) -> Box<dyn RouterModule> {
        Box::new(Mircc::new(self))
    }
}

/// Eq. 1: equivalent number of full-rate flows, N = max(C, y) / R(t−T).
pub fn flow_estimate(capacity: f64, y: f64, prev_rate: f64) -> f64 {
    capacity.max(y) / prev_rate
}

/// Eq. 2: base rate = (η·C − β·q/d) / N [Interests/s]; q [Interests], d [s].
pub fn base_rate(eta: f64, capacity: f64, beta: f64, queue: f64, rtt_s: f64, n: f64) -> f64 {
    (eta * capacity - beta * queue / rtt_s) / n
}

/// Eq. 3 (our rule): β(t) = β · min(1, d/T).
pub fn self_tuned_beta(beta: f64, rtt_s: f64, interval_s: f64) -> f64 {
    beta * (rtt_s / interval_s).min(1.0)
}

/// Eq. 4: excess rate = R(t−T) − y/N [Interests/s].
pub fn excess_rate(prev_rate: f64, y: f64, n: f64) -> f64 {
    prev_rate - y / n
}

/// EWMA with weight `w` on the new value; the first value is taken as it is.
fn ewma(prev: Option<f64>, x: f64, w: f64) -> f64 {
    match prev {
        Some(p) => w * x + (1.0 - w) * p,
        None => x,
    }
}

/// What one face's last update saw and used (kept for sampling).
#[derive(Clone, Copy, Debug, Default, PartialEq)]
struct Update {
    /// Offered Interest rate y [Interests/s].
    y: f64,
    /// Shaper occupancy q [Interests].
    queue: f64,
    /// Smoothed RTT d [s].
    rtt_s: f64,
    /// N and β used.
    n: f64,
    beta: f64,
}

/// MIRCC state of one face.
#[derive(Clone, Debug)]
struct FaceState {
    face: FaceId,
    /// R(t) [Interests/s]; `None` until the first update (then `initial_rate` applies).
    rate: Option<f64>,
    base_ewma: Option<f64>,
    excess_ewma: Option<f64>,
    /// Interests offered since the last update.
    offered: u64,
    /// d(t) [s]; `None` before the first sample.
    srtt_s: Option<f64>,
    last: Update,
}

pub struct Mircc {
    cfg: MirccConfig,
    faces: Vec<FaceState>,
    /// The previous update (or the start of the run).
    last_update: SimTime,
    discovered: bool,
}

impl Mircc {
    pub fn new(cfg: &MirccConfig) -> Mircc {
        Mircc { cfg: cfg.clone(), faces: Vec::new(), last_update: SimTime::ZERO, discovered: false }
    }

    /// Track every link face of the node (faces with a transmitter).
    fn discover(&mut self, ctx: &ModuleCtx) {
        if self.discovered {
            return;
        }
        self.discovered = true;
        for &f in ctx.node_faces {
            if ctx.face(f).egress.is_some() {
                self.faces.push(FaceState {
                    face: f,
                    rate: None,
                    base_ewma: None,
                    excess_ewma: None,
                    offered: 0,
                    srtt_s: None,
                    last: Update::default(),
                });
            }
        }
    }

    fn state(&mut self, face: FaceId) -> Option<&mut FaceState> {
        self.faces.iter_mut().find(|s| s.face == face)
    }

    /// The highest rate of a face with capacity C.
    fn max_rate(&self, capacity: f64) -> f64 {
        self.cfg.max_rate.unwrap_or(self.cfg.eta * capacity).max(self.cfg.min_rate)
    }

    /// The stamping rate of `face` [Interests/s], if the face is tracked.
    pub fn rate(&self, face: FaceId, capacity: f64) -> Option<f64> {
        let s = self.faces.iter().find(|s| s.face == face)?;
        Some(self.current_rate(s, capacity))
    }

    fn current_rate(&self, s: &FaceState, capacity: f64) -> f64 {
        s.rate.unwrap_or_else(|| self.cfg.initial_rate.unwrap_or_else(|| self.max_rate(capacity)))
    }

    /// One interval's update of face `i` from the measured y, C, q over `interval_s` seconds.
    fn update(&mut self, i: usize, y: f64, capacity: f64, queue: f64, interval_s: f64) {
        let cfg = &self.cfg;
        let prev = self.current_rate(&self.faces[i], capacity).max(cfg.min_rate);
        let rtt_s = self.faces[i].srtt_s.unwrap_or_else(|| cfg.initial_rtt.get().as_secs_f64()).max(1e-9);
        let beta = if cfg.self_tune_beta { self_tuned_beta(cfg.beta, rtt_s, interval_s) } else { cfg.beta };
        let n = flow_estimate(capacity, y, prev);
        let base = base_rate(cfg.eta, capacity, beta, queue, rtt_s, n);
        let excess = excess_rate(prev, y, n);
        let (w, lo, hi) = (cfg.ewma, cfg.min_rate, self.max_rate(capacity));
        let s = &mut self.faces[i];
        let b = ewma(s.base_ewma, base, w);
        let e = ewma(s.excess_ewma, excess, w);
        s.base_ewma = Some(b);
        s.excess_ewma = Some(e);
        let r = b + e;
        s.rate = Some(if r.is_finite() { r.clamp(lo, hi) } else { hi });
        s.last = Update { y, queue, rtt_s, n, beta };
    }
}

/// C of a face: the Data per second its reverse direction carries.
fn capacity(ctx: &ModuleCtx, face: FaceId, data_size: Bytes) -> f64 {
    ctx.reverse_bandwidth_bps(face) as f64 / (8.0 * data_size.0 as f64)
}

impl RouterModule for Mircc {
    fn name(&self) -> &'static str {
        "mircc"
    }

    fn on_interest_out(&mut self, ctx: &mut ModuleCtx, face: FaceId, _interest: &mut Packet) -> super::InterestVerdict {
        self.discover(ctx);
        if let Some(s) = self.state(face) {
            s.offered += 1;
        }
        super::InterestVerdict::Send
    }

    fn on_data_in(&mut self, ctx: &mut ModuleCtx, face: FaceId, _data: &mut Packet, rtt: Option<SimDuration>) {
        self.discover(ctx);
        let gain = self.cfg.rtt_gain;
        if let (Some(s), Some(r)) = (self.state(face), rtt) {
            s.srtt_s = Some(ewma(s.srtt_s, r.as_secs_f64(), gain));
        }
    }

    fn on_data_out(&mut self, ctx: &mut ModuleCtx, in_face: FaceId, _out_face: FaceId, data: &mut Packet) {
        self.discover(ctx);
        let c = capacity(ctx, in_face, self.cfg.data_size);
        if let Some(r) = self.rate(in_face, c) {
            data.lower_rate_stamp(r);
        }
    }

    fn tick_interval(&self) -> Option<SimDuration> {
        Some(self.cfg.interval.get())
    }

    fn on_tick(&mut self, ctx: &mut ModuleCtx) {
        self.discover(ctx);
        let elapsed = ctx.now.saturating_since(self.last_update).as_secs_f64();
        self.last_update = ctx.now;
        if elapsed <= 0.0 {
            return;
        }
        for i in 0..self.faces.len() {
            let face = self.faces[i].face;
            let y = self.faces[i].offered as f64 / elapsed;
            self.faces[i].offered = 0;
            let c = capacity(ctx, face, self.cfg.data_size);
            let q = ctx.face(face).egress.as_ref().map_or(0, |e| e.shaper_len()) as f64;
            self.update(i, y, c, q, elapsed);
        }
    }

    fn sample(&self, out: &mut Vec<(&'static str, Option<FaceId>, f64)>) {
        for s in &self.faces {
            let Some(r) = s.rate else { continue };
            out.push(("mircc_rate", Some(s.face), r));
            out.push(("mircc_y", Some(s.face), s.last.y));
            out.push(("mircc_n", Some(s.face), s.last.n));
            out.push(("mircc_q", Some(s.face), s.last.queue));
            out.push(("mircc_d", Some(s.face), s.last.rtt_s));
            out.push(("mircc_beta", Some(s.face), s.last.beta));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// β fixed at 1, so the hand computations below use q/d as it is.
    fn cfg() -> MirccConfig {
        MirccConfig { beta: 1.0, self_tune_beta: false, ..MirccConfig::default() }
    }

    /// A module tracking one face (FaceId 0) whose previous R, EWMAs and d are given.
    fn module(cfg: MirccConfig, prev: f64, ewmas: Option<(f64, f64)>, srtt_s: f64) -> Mircc {
        let mut m = Mircc::new(&cfg);
        m.discovered = true;
        m.faces.push(FaceState {
            face: FaceId(0),
            rate: Some(prev),
            base_ewma: ewmas.map(|e| e.0),
            excess_ewma: ewmas.map(|e| e.1),
            offered: 0,
            srtt_s: Some(srtt_s),
            last: Update::default(),
        });
        m
    }

    #[test]
    fn the_equations_match_hand_computed_values() {
        // C = 1200, y = 1500, R(t−T) = 600: N = 1500/600 = 2.5.
        assert_eq!(flow_estimate(1200.0, 1500.0, 600.0), 2.5);
        // Idle link: N = max(1200, 0)/600 = 2.
        assert_eq!(flow_estimate(1200.0, 0.0, 600.0), 2.0);
        // η = 1, β = 1, q = 60, d = 0.3 s: (1200 − 200)/2.5 = 400.
        assert!((base_rate(1.0, 1200.0, 1.0, 60.0, 0.3, 2.5) - 400.0).abs() < 1e-9);
        // 600 − 1500/2.5 = 0.
        assert_eq!(excess_rate(600.0, 1500.0, 2.5), 0.0);
        // 0.5 · min(1, 0.3/0.1) = 0.5 · 1 = 0.5; 0.5 · min(1, 0.3/0.75) = 0.5 · 0.4 = 0.2.
        assert_eq!(self_tuned_beta(0.5, 0.3, 0.1), 0.5);
        assert!((self_tuned_beta(0.5, 0.3, 0.75) - 0.2).abs() < 1e-12);
    }

    #[test]
    fn one_interval_update_from_known_y_q_d_and_r() {
        // R(t−T) = 600, C = 1200, y = 1500, q = 60, d = 0.3 s, β = 1, η = 1.
        // N = 1500/600 = 2.5; base = (1200 − 60/0.3)/2.5 = 1000/2.5 = 400;
        // excess = 600 − 1500/2.5 = 0. Previous EWMAs (base 500, excess 100), weight 0.5:
        // base_ewma = 0.5·400 + 0.5·500 = 450; excess_ewma = 0.5·0 + 0.5·100 = 50; R = 500.
        let mut m = module(cfg(), 600.0, Some((500.0, 100.0)), 0.3);
        m.update(0, 1500.0, 1200.0, 60.0, 0.1);
        let s = &m.faces[0];
        assert!((s.rate.unwrap() - 500.0).abs() < 1e-9);
        assert!((s.base_ewma.unwrap() - 450.0).abs() < 1e-9);
        assert!((s.excess_ewma.unwrap() - 50.0).abs() < 1e-9);
        assert_eq!(s.last.n, 2.5);
    }

    #[test]
    fn the_first_update_takes_the_raw_values_and_an_idle_link_doubles_r() {
        // R(t−T) = 300, C = 1200, y = 0, q = 0: N = 1200/300 = 4; base = 1200/4 = 300;
        // excess = 300 − 0 = 300; no EWMA history: R = 300 + 300 = 600.
        let mut m = module(cfg(), 300.0, None, 0.3);
        m.update(0, 0.0, 1200.0, 0.0, 0.1);
        assert!((m.faces[0].rate.unwrap() - 600.0).abs() < 1e-9);
    }

    #[test]
    fn r_is_clamped_to_eta_c_and_to_min_rate() {
        // R(t−T) = 1000, C = 1200, y = 0: N = 1.2, base = 1000, excess = 1000: 2000 → 1200.
        let mut m = module(cfg(), 1000.0, None, 0.3);
        m.update(0, 0.0, 1200.0, 0.0, 0.1);
        assert_eq!(m.faces[0].rate, Some(1200.0));
        // R(t−T) = 10, C = 1000, y = 5000, q = 200, d = 0.1 s: N = 500;
        // base = (1000 − 2000)/500 = −2, excess = 10 − 10 = 0: R = −2 → min_rate 1.
        let mut m = module(cfg(), 10.0, None, 0.1);
        m.update(0, 5000.0, 1000.0, 200.0, 0.1);
        assert_eq!(m.faces[0].rate, Some(1.0));
    }

    #[test]
    fn self_tuning_lowers_beta_when_the_interval_exceeds_the_rtt() {
        // T = 0.75 s, d = 0.3 s: β = 0.5 · min(1, 0.3/0.75) = 0.2. R(t−T) = 600, C = 1200,
        // y = 1200, q = 150: N = 2; base = (1200 − 0.2·150/0.3)/2 = (1200 − 100)/2 = 550;
        // excess = 600 − 600 = 0; R = 550.
        let mut m = module(MirccConfig::default(), 600.0, None, 0.3);
        m.update(0, 1200.0, 1200.0, 150.0, 0.75);
        assert!((m.faces[0].last.beta - 0.2).abs() < 1e-12);
        assert!((m.faces[0].rate.unwrap() - 550.0).abs() < 1e-9);
    }

    #[test]
    fn a_tick_measures_y_over_the_elapsed_interval_and_q_from_the_shaper() {
        use crate::module::testkit::{fill_shaper, interest, two_nodes, with_ctx, A_TO_B};
        // Face A->B: C = 10 Mbps / (8 · 1250 B) = 1000 Data/s; R starts at max = η·C = 1000.
        // 150 Interests offered during the first 100 ms: y = 1500/s; 50 wait in the shaper: q = 50.
        // No RTT sample: d = 0.1 s; β = 0.5 · min(1, 0.1/0.1) = 0.5.
        // N = 1500/1000 = 1.5; base = (1000 − 0.5 · 50/0.1)/1.5 = 750/1.5 = 500;
        // excess = 1000 − 1500/1.5 = 0; first update: R = 500 + 0 = 500.
        let mut w = two_nodes();
        let mut m = Mircc::new(&MirccConfig::default());
        with_ctx(&mut w, 10, |ctx| {
            for seg in 0..150 {
                m.on_interest_out(ctx, A_TO_B, &mut interest(seg));
            }
        });
        fill_shaper(&mut w, 50);
        with_ctx(&mut w, 100, |ctx| m.on_tick(ctx));
        let s = m.faces.iter().find(|s| s.face == A_TO_B).unwrap();
        assert_eq!((s.last.y, s.last.queue, s.last.n, s.last.beta), (1500.0, 50.0, 1.5, 0.5));
        assert!((s.rate.unwrap() - 500.0).abs() < 1e-9);
    }

    #[test]
    fn data_leave_with_the_lower_of_their_stamp_and_the_in_face_rate() {
        use crate::module::testkit::{data, two_nodes, with_ctx, A_TO_B};
        // Before any update the face's R is its initial rate, here 600.
        let mut w = two_nodes();
        let mut m = Mircc::new(&MirccConfig { initial_rate: Some(600.0), ..MirccConfig::default() });
        for (stamp, out) in [(f64::INFINITY, 600.0), (800.0, 600.0), (500.0, 500.0)] {
            let mut d = data(1, stamp);
            with_ctx(&mut w, 5, |ctx| m.on_data_out(ctx, A_TO_B, FaceId(1), &mut d));
            assert_eq!(d.rate_stamp(), out);
        }
    }

    #[test]
    fn rtt_samples_feed_an_ewma_of_gain_one_eighth() {
        use crate::module::testkit::{data, two_nodes, with_ctx, A_TO_B};
        // First sample 400 ms: d = 0.4. Second 200 ms: d = 0.4 + (0.2 − 0.4)/8 = 0.375.
        let mut w = two_nodes();
        let mut m = Mircc::new(&MirccConfig::default());
        for ms in [400, 200] {
            let mut d = data(1, f64::INFINITY);
            with_ctx(&mut w, 5, |ctx| m.on_data_in(ctx, A_TO_B, &mut d, Some(SimDuration::from_millis(ms))));
        }
        let s = m.faces.iter().find(|s| s.face == A_TO_B).unwrap();
        assert!((s.srtt_s.unwrap() - 0.375).abs() < 1e-12);
    }

    #[test]
    fn validation_names_the_offending_key() {
        let bad = |f: fn(&mut MirccConfig)| {
            let mut c = MirccConfig::default();
            f(&mut c);
            c.validate().unwrap_err()
        };
        assert!(bad(|c| c.eta = 0.0).key == "eta");
        assert!(bad(|c| c.ewma = 1.5).key == "ewma");
        assert!(bad(|c| c.max_rate = Some(0.5)).key == "max_rate");
        assert!(bad(|c| c.interval = Duration::from_millis(0)).key == "interval");
        assert!(MirccConfig::default().validate().is_ok());
    }
}
