//! A delay-based window controller in the style of TCP Vegas, written against the public
//! `WindowControl` trait, and run on a two-pair dumbbell built with `WorldBuilder`.
//!
//! ```text
//!   base  = smallest RTT sample seen                                        [s]
//!   rtt   = smallest RTT sample of the current round (one window of Data)   [s]
//!   diff  = W · (rtt − base) / rtt      packets this flow keeps queued      [packets]
//!
//!   every Data, slow start:  W += 1
//!   end of a round:          slow start:  diff > gamma  →  W = max(2, W · base / rtt), leave it
//!                            afterwards:  diff < alpha  →  W += 1
//!                                         diff > beta   →  W = max(2, W − 1)
//!   timeout:                 W = max(2, W / 2), leave slow start (at most once per round trip)
//!   NACK:                    retransmit, window unchanged
//! ```
//!
//! A round ends with the first Data for a segment at or above the `next_seq` recorded when the
//! previous round ended, i.e. about once per RTT.
//!
//! Run it with `cargo run --release -p ndncc-core --example vegas_like`; its tests run with
//! `cargo test -p ndncc-core --example vegas_like`.

use ndncc_core::app::Controller;
use ndncc_core::cc::window::recovery::RecoveryPoint;
use ndncc_core::cc::window::{AimdConfig, WindowConfig};
use ndncc_core::cc::{DataEvent, LossEvent, NackAction, WindowControl};
use ndncc_core::face_selection::FaceSelection;
use ndncc_core::instantiate;
use ndncc_core::plugin::{check, Check, Invalid, Plugin};
use ndncc_core::queue::{DropTailConfig, QueueConfig};
use ndncc_core::scenario::{ConsumerSpec, ProducerSpec};
use ndncc_core::time::SimDuration;
use ndncc_core::units::Bytes;
use ndncc_core::world::{LinkParams, World, WorldBuilder};
use serde::{Deserialize, Serialize};

/// Parameters, in the shape a `WindowConfig` variant would take (see docs/controllers.md).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct VegasLikeConfig {
    /// Window at the start [packets]. Default 2.
    pub initial_window: f64,
    /// Grow by one packet per round while fewer than this many packets queue [packets]. Default 2.
    pub alpha: f64,
    /// Shrink by one packet per round while more than this many packets queue [packets]. Default 4.
    pub beta: f64,
    /// Leave slow start once more than this many packets queue [packets]. Default 1.
    pub gamma: f64,
}

impl Default for VegasLikeConfig {
    fn default() -> Self {
        VegasLikeConfig { initial_window: 2.0, alpha: 2.0, beta: 4.0, gamma: 1.0 }
    }
}

impl Plugin for VegasLikeConfig {
    type Built = Box<dyn WindowControl>;
    /// Check parameters; the error names the offending key, as the built-in configs do.
    fn validate(&self) -> Check {
        check::window("initial_window", self.initial_window)?;
        check::within("beta", self.beta, 0.0, check::MAX_WINDOW)?;
        if !(self.alpha >= 0.0 && self.alpha <= self.beta) {
            return Err(Invalid::new(
                "alpha",
                format!("must be in [0, beta] (got {}, beta {})", self.alpha, self.beta),
            ));
        }
        check::within("gamma", self.gamma, 0.0, check::MAX_WINDOW)
    }
    fn build(&self) -> Box<dyn WindowControl> {
        Box::new(VegasLike::new(self))
    }
}

/// Smallest window a decrease can leave [packets].
const FLOOR: f64 = 2.0;

#[derive(Debug)]
pub struct VegasLike {
    cfg: VegasLikeConfig,
    window: f64,
    slow_start: bool,
    /// Smallest RTT sample of the whole run.
    base_rtt: Option<SimDuration>,
    /// Smallest RTT sample of the current round.
    round_rtt: Option<SimDuration>,
    /// The round ends with the first Data for a segment >= this.
    round_end: u64,
    /// One timeout decrease per round trip (the crate's recovery point, margin 0).
    loss_gate: RecoveryPoint,
}

impl VegasLike {
    pub fn new(cfg: &VegasLikeConfig) -> VegasLike {
        VegasLike {
            cfg: cfg.clone(),
            window: cfg.initial_window,
            slow_start: true,
            base_rtt: None,
            round_rtt: None,
            round_end: 0,
            loss_gate: RecoveryPoint::new(0.0),
        }
    }

    /// Packets a flow with window `w` keeps queued when its RTT is `rtt` over a path whose
    /// empty-queue RTT is `base`: W · (rtt − base) / rtt [packets].
    pub fn queued(w: f64, base: SimDuration, rtt: SimDuration) -> f64 {
        // Integer nanoseconds until the one division, so 20 · (50 − 40) / 50 is exactly 4.
        if rtt.nanos() == 0 {
            return 0.0;
        }
        w * rtt.nanos().saturating_sub(base.nanos()) as f64 / rtt.nanos() as f64
    }

    /// Once per round: compare the queue this flow builds with alpha, beta and gamma.
    fn end_round(&mut self, next_seq: u64) {
        if let (Some(base), Some(rtt)) = (self.base_rtt, self.round_rtt) {
            let diff = Self::queued(self.window, base, rtt);
            if self.slow_start {
                if diff > self.cfg.gamma {
                    self.slow_start = false;
                    self.window = (self.window * base.nanos() as f64 / rtt.nanos() as f64).max(FLOOR);
                }
            } else if diff < self.cfg.alpha {
                self.window += 1.0;
            } else if diff > self.cfg.beta {
                self.window = (self.window - 1.0).max(FLOOR);
            }
        }
        self.round_rtt = None;
        self.round_end = next_seq;
    }
}

impl WindowControl for VegasLike {
    fn name(&self) -> &'static str {
        "vegas-like"
    }

    fn on_data(&mut self, ev: &DataEvent) {
        // `rtt` is None for a retransmitted Interest (Karn's rule, applied by the consumer).
        if let Some(r) = ev.rtt {
            self.base_rtt = Some(self.base_rtt.map_or(r, |b| b.min(r)));
            self.round_rtt = Some(self.round_rtt.map_or(r, |m| m.min(r)));
        }
        if self.slow_start {
            self.window += 1.0;
        }
        if ev.seq >= self.round_end {
            self.end_round(ev.next_seq);
        }
    }

    fn on_timeout(&mut self, ev: &LossEvent) {
        if !self.loss_gate.permits(ev.highest_received) {
            return;
        }
        self.loss_gate.arm(ev.next_seq, ev.highest_received);
        self.slow_start = false;
        self.window = (self.window / 2.0).max(FLOOR);
    }

    fn on_nack(&mut self, _ev: &LossEvent) -> NackAction {
        NackAction::Retransmit
    }

    fn window(&self) -> f64 {
        self.window
    }
}

/// C1, C2 —(100 Mbps, 5 ms)— R1 ══(10 Mbps, 10 ms)══ R2 —(100 Mbps, 5 ms)— P1, P2.
/// Ci fetches /pi from Pi under the controller `make()` returns; RTT without queueing ≈ 40 ms.
fn dumbbell(duration: SimDuration, make: &dyn Fn() -> Box<dyn WindowControl>) -> World {
    let mut b = WorldBuilder::new(1, duration);
    b.record(Some(SimDuration::from_millis(100)), false, FaceSelection::All);
    let droptail = QueueConfig::Droptail(DropTailConfig { packets: Some(100), bytes: None });
    let access = LinkParams::new(100_000_000, SimDuration::from_millis(5)).with_queue(droptail.clone());
    let bottleneck = LinkParams::new(10_000_000, SimDuration::from_millis(10)).with_queue(droptail);
    let r1 = b.add_node("R1");
    let r2 = b.add_node("R2");
    b.add_link("R1-R2", r1, r2, bottleneck.clone(), bottleneck).expect("valid link");
    for i in 1..=2 {
        let (c, p) = (b.add_node(&format!("C{i}")), b.add_node(&format!("P{i}")));
        b.add_link(&format!("C{i}-R1"), c, r1, access.clone(), access.clone()).expect("valid link");
        b.add_link(&format!("R2-P{i}"), r2, p, access.clone(), access.clone()).expect("valid link");
        let prefix = format!("/p{i}");
        for (from, to) in [(c, r1), (r1, r2), (r2, p)] {
            let face = b.face_between(from, to).expect("linked");
            b.add_route(from, &prefix, face, 1);
        }
        let (pn, cn) = (format!("P{i}"), format!("C{i}"));
        // 1,024-byte payloads with 64 bytes of header: 1,088-byte Data, as the figures below use.
        let producer = ProducerSpec { overhead: Some(Bytes(64)), ..ProducerSpec::new(&pn, &prefix) };
        instantiate::add_producer(&mut b, &pn, &producer).expect("a node of the world");
        // The spec's own window is replaced by the controller given here.
        let consumer = ConsumerSpec {
            interest_size: Some(Bytes(40)),
            ..ConsumerSpec::with_window(&cn, &prefix, WindowConfig::Fixed(Default::default()))
        };
        instantiate::add_consumer_with(&mut b, &cn, &consumer, Controller::Window(make()))
            .expect("a node of the world");
    }
    b.build()
}

/// A summary value of a run (NaN when absent).
fn value(w: &World, entity: &str, metric: &str) -> f64 {
    w.summary().into_iter().find(|r| r.entity == entity && r.metric == metric).map_or(f64::NAN, |r| r.value)
}

fn report(label: &str, w: &World) {
    println!("{label}");
    for c in ["C1", "C2"] {
        println!(
            "  {c}: throughput {:>8.0} kbit/s, mean RTT {:>6.1} ms, timeouts {}",
            value(w, c, "throughput_kbps"),
            value(w, c, "mean_rtt_ms"),
            value(w, c, "timeouts"),
        );
    }
    // Data cross the bottleneck from R2 to R1.
    println!(
        "  R2->R1: utilisation {:.3}, largest queue {} packets, drops {}",
        value(w, "R2->R1", "utilisation"),
        value(w, "R2->R1", "max_queue_packets"),
        value(w, "R2->R1", "drops_queue"),
    );
}

fn main() {
    let duration = SimDuration::from_secs(20);
    let cfg = VegasLikeConfig::default();
    cfg.validate().expect("valid parameters");
    let mut vegas = dumbbell(duration, &|| Box::new(VegasLike::new(&cfg)));
    vegas.run(SimDuration::ZERO, &mut |_| true);
    report("vegas-like (alpha 2, beta 4, gamma 1)", &vegas);

    // A loss-based reference through the scenario config enum: AIMD with fast recovery.
    let aimd = AimdConfig { one_decrease_per_rtt: true, fast_recovery: true, ..AimdConfig::default() };
    let aimd = WindowConfig::Aimd(aimd);
    let mut reference = dumbbell(duration, &|| aimd.build());
    reference.run(SimDuration::ZERO, &mut |_| true);
    report("aimd, fast recovery, one decrease per RTT (for comparison)", &reference);
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndncc_core::time::SimTime;

    fn ms(x: u64) -> SimDuration {
        SimDuration::from_millis(x)
    }

    /// Data for `seq` at `now_ms` with an RTT sample of `rtt_ms`; `next_seq` segments requested.
    fn data(now_ms: u64, seq: u64, rtt_ms: u64, next_seq: u64) -> DataEvent {
        DataEvent {
            now: SimTime(ms(now_ms).nanos()),
            seq,
            rtt: Some(ms(rtt_ms)),
            srtt: Some(ms(rtt_ms)),
            marked: false,
            rate_stamp: f64::INFINITY,
            next_seq,
            highest_received: seq,
            in_flight: 0,
            data_size: 1088,
            interest_size: 40,
            route: 0,
        }
    }

    fn timeout(now_ms: u64, seq: u64, highest_received: u64, next_seq: u64) -> LossEvent {
        LossEvent {
            now: SimTime(ms(now_ms).nanos()),
            seq,
            nack: None,
            marked: false,
            next_seq,
            highest_received,
            in_flight: 0,
            srtt: Some(ms(50)),
        }
    }

    /// A controller past slow start with window `w`, base RTT 40 ms, in a round ending at 100.
    fn avoiding(w: f64) -> VegasLike {
        let mut v = VegasLike::new(&VegasLikeConfig::default());
        v.slow_start = false;
        v.window = w;
        v.base_rtt = Some(ms(40));
        v.round_end = 100;
        v
    }

    #[test]
    fn the_queue_estimate_is_the_window_share_of_the_extra_delay() {
        // 20 · (50 − 40) / 50 = 4 packets; no extra delay, no queue.
        assert!((VegasLike::queued(20.0, ms(40), ms(50)) - 4.0).abs() < 1e-12);
        assert_eq!(VegasLike::queued(20.0, ms(40), ms(40)), 0.0);
    }

    #[test]
    fn a_round_grows_holds_or_shrinks_the_window_by_one() {
        // W 10, RTT 42 ms: 10 · 2/42 = 0.48 < alpha 2 → 11.
        let mut v = avoiding(10.0);
        v.on_data(&data(1000, 100, 42, 150));
        assert_eq!(v.window(), 11.0);
        // W 20, RTT 50 ms: 20 · 10/50 = 4, not above beta 4 → 20.
        let mut v = avoiding(20.0);
        v.on_data(&data(1000, 100, 50, 150));
        assert_eq!(v.window(), 20.0);
        // W 30, RTT 50 ms: 30 · 10/50 = 6 > beta 4 → 29.
        let mut v = avoiding(30.0);
        v.on_data(&data(1000, 100, 50, 150));
        assert_eq!(v.window(), 29.0);
    }

    #[test]
    fn the_window_changes_only_when_a_round_ends() {
        // Segment 99 < round end 100: the sample is kept, the window is not touched; segment 100
        // ends the round with the smallest sample of it, 42 ms (0.48 packets queued) → 11.
        let mut v = avoiding(10.0);
        v.on_data(&data(1000, 99, 42, 150));
        assert_eq!((v.window(), v.round_rtt), (10.0, Some(ms(42))));
        v.on_data(&data(1001, 100, 60, 150));
        assert_eq!((v.window(), v.round_end), (11.0, 150));
    }

    #[test]
    fn slow_start_ends_at_the_expected_window_once_gamma_is_exceeded() {
        // Slow start at W 15, base 40 ms. Data for the round's last segment with RTT 60 ms:
        // W += 1 → 16; 16 · 20/60 = 5.33 > gamma 1 → W = 16 · 40/60 = 10.67, slow start over.
        let mut v = VegasLike::new(&VegasLikeConfig::default());
        v.window = 15.0;
        v.base_rtt = Some(ms(40));
        v.round_end = 100;
        v.on_data(&data(1000, 100, 60, 120));
        assert!(!v.slow_start);
        assert!((v.window() - 32.0 / 3.0).abs() < 1e-9);
    }

    #[test]
    fn timeouts_halve_the_window_once_per_round_trip() {
        // W 20 → 10 at the first timeout (recovery point armed at next_seq 200); a second timeout
        // while the highest segment received is still 150 ≤ 200 changes nothing; once Data
        // beyond 200 have arrived, another timeout halves again: 10 → 5.
        let mut v = avoiding(20.0);
        v.on_timeout(&timeout(1000, 140, 150, 200));
        assert_eq!(v.window(), 10.0);
        v.on_timeout(&timeout(1001, 141, 150, 200));
        assert_eq!(v.window(), 10.0);
        v.on_timeout(&timeout(1500, 230, 201, 260));
        assert_eq!(v.window(), 5.0);
    }

    #[test]
    fn defaults_validate_and_bad_values_name_their_key() {
        assert_eq!(VegasLikeConfig::default().validate(), Ok(()));
        let bad = VegasLikeConfig { alpha: 5.0, ..VegasLikeConfig::default() };
        assert_eq!(bad.validate().unwrap_err().key, "alpha");
    }

    #[test]
    fn two_flows_fill_the_bottleneck_with_a_short_queue() {
        // 10 Mbps carries 10,000,000 / (8 · 1,088 B) = 1,149 Data/s: 9,412 kbit/s of payload.
        // Empty-path RTT: 40 ms of propagation + 0.87 ms to send a Data on 10 Mbps + 0.2 ms on
        // the access links ≈ 41.1 ms. Each flow keeps 2–4 packets queued, 0.87 ms each: with two
        // flows 3.5–7 ms of queueing, so the mean RTT stays below 50 ms and nothing is dropped.
        let mut w = dumbbell(SimDuration::from_secs(10), &|| Box::new(VegasLike::new(&VegasLikeConfig::default())));
        w.run(SimDuration::ZERO, &mut |_| true);
        let total = value(&w, "C1", "throughput_kbps") + value(&w, "C2", "throughput_kbps");
        assert!(total > 0.9 * 9_412.0, "goodput {total} kbit/s");
        for c in ["C1", "C2"] {
            assert!(value(&w, c, "mean_rtt_ms") < 50.0, "{c}: {} ms", value(&w, c, "mean_rtt_ms"));
        }
        assert_eq!(value(&w, "R2->R1", "drops_queue"), 0.0);
    }
}
