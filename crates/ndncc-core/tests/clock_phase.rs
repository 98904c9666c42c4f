//! A node's coarse clock with a phase: its timers fire at `clock_phase + k·clock_tick`, so a
//! rate consumer on it sends its Interests in bursts at those edges; a random phase is drawn per
//! node from the run's seed.
//!
//! ```text
//!  C (clock 100 ms, phase P) ──(10 Mbps, 1 ms)── P
//! ```

use std::sync::{Arc, Mutex};

use ndncc_core::ids::FaceId;
use ndncc_core::instantiate::build_world;
use ndncc_core::packet::Packet;
use ndncc_core::scenario::load_str;
use ndncc_core::tap::{PacketTap, TapPoint};
use ndncc_core::time::{SimDuration, SimTime};

/// Times [ns] at which Interests left a face.
struct Sent(Arc<Mutex<Vec<u64>>>);

impl PacketTap for Sent {
    fn on_packet(&mut self, now: SimTime, _face: FaceId, point: TapPoint, packet: &Packet) {
        if point == TapPoint::Transmit && packet.is_interest() {
            self.0.lock().expect("not poisoned").push(now.nanos());
        }
    }
}

fn scenario(node: &str, seed: u64) -> String {
    format!(
        r#"
[simulation]
duration = "1s"
seed = {seed}

[nodes]
C = {{ {node} }}
P = {{}}

[links.C-P]
bandwidth = "10Mbps"
delay = "1ms"

[apps.P]
type = "producer"
node = "P"
prefix = "/p"

[apps.C]
type = "consumer"
node = "C"
prefix = "/p"
rate = {{ type = "constant", rate = 100.0 }}
"#
    )
}

/// The instants at which C's Interests go on the wire, in ms.
fn send_times(node: &str, seed: u64) -> Vec<f64> {
    let sc = load_str(&scenario(node, seed), "phase.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    let mut w = build_world(&sc, sc.simulation.seed).unwrap_or_else(|e| panic!("{e}"));
    let sent = Arc::new(Mutex::new(Vec::new()));
    w.set_tap(Box::new(Sent(sent.clone())));
    w.run(SimDuration::ZERO, &mut |_| true);
    let times = sent.lock().expect("not poisoned").clone();
    times.into_iter().map(|t| t as f64 / 1e6).collect()
}

/// Where within the 100 ms tick the bursts after the first start [ms, rounded to 1 µs]: a burst's
/// Interests follow each other at the link's serialisation time, bursts a tick apart.
fn offsets(times: &[f64]) -> Vec<f64> {
    let starts = times.windows(2).filter(|w| w[1] - w[0] > 1.0).map(|w| w[1]);
    let mut o: Vec<f64> = starts.map(|t| ((t % 100.0) * 1e3).round() / 1e3).collect();
    o.dedup();
    o
}

#[test]
fn a_rate_consumer_on_a_phased_clock_sends_at_the_phase_past_each_tick() {
    // Without a phase the clock's edges are the multiples of 100 ms; with 30 ms they are 30 ms
    // later. The first Interest leaves at the start, before any timer.
    let aligned = send_times(r#"clock_tick = "100ms""#, 1);
    let phased = send_times(r#"clock_tick = "100ms", clock_phase = "30ms""#, 1);
    assert_eq!(offsets(&aligned), vec![0.0]);
    assert_eq!(offsets(&phased), vec![30.0]);
    // 100 Interests/s in bursts of 10, once per tick: as many Interests either way.
    assert!(aligned.len() >= 90 && phased.len() >= 90, "{} and {}", aligned.len(), phased.len());
}

#[test]
fn a_random_phase_is_one_draw_per_node_and_seed() {
    let random = |seed| offsets(&send_times(r#"clock_tick = "100ms", clock_phase = "random""#, seed));
    let (a, b, c) = (random(1), random(1), random(2));
    assert_eq!(a.len(), 1, "one phase for the whole run: {a:?}");
    assert_eq!(a, b, "the same seed draws the same phase");
    assert_ne!(a, c, "another seed another phase");
    assert!(a[0] >= 0.0 && a[0] < 100.0);
}
