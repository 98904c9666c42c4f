//! PCON's local link-loss detection end to end: a Data lost on a lossy link becomes an unmarked
//! LinkLoss NACK that reaches the consumer through the downstream router's PIT (a NACK lost on
//! the link in turn is reported again), and the PCON consumer retransmits without shrinking its
//! window.
//!
//! ```text
//!  C ──(100 Mbps, 5 ms)── R1 ══(10 Mbps, 10 ms; 2 % loss R2→R1; loss-detect)══ R2 ──(100 Mbps, 5 ms)── P
//! ```

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex};

use ndncc_core::ids::FaceId;
use ndncc_core::instantiate::build_world;
use ndncc_core::packet::{NdnKind, Packet};
use ndncc_core::scenario::load_str;
use ndncc_core::tap::{DropCause, PacketTap, TapPoint};
use ndncc_core::time::{SimDuration, SimTime};
use ndncc_core::world::World;

/// The Data and the NACKs the wire lost, with the face each was lost on.
struct LostFrames(Arc<Mutex<Vec<(FaceId, bool)>>>);

impl PacketTap for LostFrames {
    fn on_packet(&mut self, _now: SimTime, face: FaceId, point: TapPoint, packet: &Packet) {
        let nack = packet.ndn().is_some_and(|h| matches!(h.kind, NdnKind::Nack(_)));
        if point == TapPoint::Drop(DropCause::Loss) && (packet.is_data() || nack) {
            self.0.lock().expect("not poisoned").push((face, nack));
        }
    }
}

/// The scenario, with or without the shim on R1–R2. Queues are deep drop-tail queues that
/// never mark, and the window leaves slow start at 20, so in 10 s it never fills 1,000 packets
/// of queue: the only losses are the link's, and every decrease the consumer makes is at a
/// timeout.
fn scenario(shim: bool) -> String {
    let service = if shim { r#"link_service = { type = "loss-detect" }"# } else { "" };
    format!(
        r#"
[simulation]
duration = "10s"
seed = 5

[defaults.link]
bandwidth = "100Mbps"
delay = "5ms"
queue = {{ type = "droptail", packets = 1000 }}

[nodes]
C = {{}}
R1 = {{}}
R2 = {{}}
P = {{}}

[links.C-R1]
[links.R1-R2]
bandwidth = "10Mbps"
delay = "10ms"
loss_ba = {{ type = "bernoulli", p = "2%" }}
{service}
[links.R2-P]

[apps.P]
type = "producer"
node = "P"
prefix = "/p"
payload = "1000B"
overhead = "50B"

[apps.C]
type = "consumer"
node = "C"
prefix = "/p"
window = {{ type = "pcon", initial_ssthresh = 20.0 }}

[record]
interval = "100ms"
events = true
"#
    )
}

/// Run the scenario; returns the world and how many Data and NACKs the wire lost on R2->R1.
fn run_counting(shim: bool) -> (World, f64, f64) {
    let sc = load_str(&scenario(shim), "link_loss.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    let mut w = build_world(&sc, sc.simulation.seed).unwrap_or_else(|e| panic!("{e}"));
    let lost = Arc::new(Mutex::new(Vec::new()));
    w.set_tap(Box::new(LostFrames(lost.clone())));
    w.run(SimDuration::ZERO, &mut |_| true);
    let r2r1 = w.face_by_name("R2->R1").expect("the face R2->R1");
    let lost = lost.lock().expect("not poisoned");
    let count = |nack: bool| lost.iter().filter(|&&(f, n)| f == r2r1 && n == nack).count() as f64;
    let (data, nacks) = (count(false), count(true));
    drop(lost);
    (w, data, nacks)
}

fn run(shim: bool) -> World {
    run_counting(shim).0
}

fn value(w: &World, entity: &str, metric: &str) -> f64 {
    w.summary().into_iter().find(|r| r.entity == entity && r.metric == metric).map_or(f64::NAN, |r| r.value)
}

/// Times of the consumer's event samples of `metric`.
fn event_times(w: &World, metric: &str) -> Vec<u64> {
    let names = w.recorder().metric_names();
    let Some(m) = names.iter().position(|n| n == metric) else { return Vec::new() };
    w.recorder().series.rows().filter(|r| r.2 as usize == m).map(|r| r.0).collect()
}

#[test]
fn a_data_lost_on_the_link_reaches_the_consumer_as_an_unmarked_linkloss_nack() {
    let (w, data_lost, nacks_lost) = run_counting(true);
    let lost_on_wire = value(&w, "R2->R1", "drops_loss");
    let frames_lost = value(&w, "R2->R1", "frames_lost");
    let nacks_sent = value(&w, "R2->R1", "nacks_sent");
    let nacks = value(&w, "C", "nacks");
    assert!(data_lost > 50.0, "the link lost {data_lost} Data");
    // The numbered frames lost on the wire are found (standalone ACK frames are not numbered),
    // and hardly any that arrived is taken for lost.
    assert!(frames_lost <= lost_on_wire && frames_lost >= data_lost, "{frames_lost} declared lost");
    assert!(value(&w, "R2->R1", "spurious_losses") <= 0.05 * frames_lost);
    // Every lost Data and every lost NACK but those still in flight at the end is NACKed.
    let lost = data_lost + nacks_lost;
    assert!(nacks_lost > 0.0, "the link lost no NACK in this run");
    assert!(nacks_sent >= lost - 2.0 && nacks_sent <= lost, "{nacks_sent} NACKs for {lost} frames lost");
    // So nearly every lost Data's NACK reaches the consumer in the end (without the repeat,
    // the 2 % of NACKs the link loses would be missing, and a few more behind them), and it
    // retransmits.
    assert!(nacks >= 0.97 * data_lost && nacks <= data_lost, "{nacks} NACKs arrived for {data_lost} Data lost");
    assert!(value(&w, "C", "retransmissions") >= nacks);
    assert_eq!(value(&w, "C", "marks"), 0.0);
    // The ACKs are absorbed by the link services: no node sees a link frame.
    assert_eq!(value(&w, "R2", "unsolicited_data"), 0.0);
    // No window decrease happened at a NACK: each one came with a timeout at the same instant.
    let timeouts: BTreeSet<u64> = event_times(&w, "timeout").into_iter().collect();
    let decreases = event_times(&w, "window_decrease");
    assert!(decreases.iter().all(|t| timeouts.contains(t)), "a decrease without a timeout: {decreases:?}");
    assert_eq!(value(&w, "run", "conservation_ok"), 1.0);
}

#[test]
fn the_shim_turns_most_timeouts_into_nacks() {
    let (with, without) = (run(true), run(false));
    let t_with = value(&with, "C", "timeouts");
    let t_without = value(&without, "C", "timeouts");
    assert!(value(&without, "C", "nacks") == 0.0 && t_without > 20.0, "{t_without} timeouts without the shim");
    assert!(t_with * 5.0 < t_without, "timeouts: {t_with} with the shim, {t_without} without");
    // Fewer collapses of the window: more data in the same time.
    assert!(value(&with, "C", "data_received") > value(&without, "C", "data_received"));
}

#[test]
fn the_run_with_the_shim_is_deterministic() {
    let (a, b) = (run(true), run(true));
    for m in ["data_received", "nacks", "timeouts", "retransmissions"] {
        assert_eq!(value(&a, "C", m), value(&b, "C", m), "{m}");
    }
    assert_eq!(value(&a, "R1->R2", "ack_frames_sent"), value(&b, "R1->R2", "ack_frames_sent"));
}

/// A two-node UDP tunnel, C ══ P: the faces transmit at 20 Mbps, but every frame then crosses a
/// hidden 10 Mbps underlay with a 100-packet FIFO that drops when full; the shim on the tunnel
/// says what its losses mean. The consumer's window is PCON's, whose only congestion signal
/// here is the shim's NACK (the faces' queues never build, so they never mark).
fn tunnel(loss: &str) -> World {
    let text = format!(
        r#"
[simulation]
duration = "10s"
seed = 3

[nodes]
C = {{}}
P = {{}}

[links.C-P]
bandwidth = "20Mbps"
delay = "10ms"
underlay = "10Mbps"
underlay_queue = 100
queue = {{ type = "codel-mark", limit = 200 }}
link_service = {{ type = "loss-detect", loss = "{loss}" }}

[apps.P]
type = "producer"
node = "P"
prefix = "/p"
payload = "1024B"

[apps.C]
type = "consumer"
node = "C"
prefix = "/p"
window = {{ type = "pcon" }}
rtt = {{ min_rto = "1s", max_rto = "1s", initial_rto = "1s", backoff = "none" }}

[record]
interval = "100ms"
events = true
"#
    );
    let sc = load_str(&text, "tunnel.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    let mut w = build_world(&sc, sc.simulation.seed).unwrap_or_else(|e| panic!("{e}"));
    w.run(SimDuration::ZERO, &mut |_| true);
    w
}

#[test]
fn on_a_tunnel_whose_losses_mean_congestion_the_shim_turns_them_into_window_decreases() {
    let (overlay, wireless) = (tunnel("congestion"), tunnel("random"));
    for w in [&overlay, &wireless] {
        assert!(value(w, "P->C", "drops_underlay") > 0.0, "the underlay drops");
        assert_eq!(value(w, "run", "conservation_ok"), 1.0);
    }
    // Decreases with no timeout behind them: at marked NACKs, or at a mark of the face queue.
    let decreases_without_timeout = |w: &World| {
        let timeouts: BTreeSet<u64> = event_times(w, "timeout").into_iter().collect();
        event_times(w, "window_decrease").into_iter().filter(|t| !timeouts.contains(t)).count()
    };
    // Read as congestion, every NACK is marked and the window decreases at NACKs; read as
    // random loss, the same losses only retransmit, and the window decreases without a
    // timeout only at the face queue's rare marks, so it grows until the underlay overflows.
    let (at_nacks, otherwise) = (decreases_without_timeout(&overlay), decreases_without_timeout(&wireless));
    assert!(value(&overlay, "C", "nacks") > 0.0 && at_nacks > otherwise + 2, "{at_nacks} against {otherwise}");
    let (d_overlay, d_wireless) =
        (value(&overlay, "P->C", "drops_underlay"), value(&wireless, "P->C", "drops_underlay"));
    assert!(d_overlay * 2.0 < d_wireless, "underlay drops: {d_overlay} as congestion, {d_wireless} as random");
}
