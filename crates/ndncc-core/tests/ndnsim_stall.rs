//! The post-overshoot stall of ndnSIM's consumer timers, on the shipped ndnSIM 2.8 set-up
//! (`scenarios/e4-ndnsim.toml`) with the bottleneck at 45 Mbps, where it happens:
//!
//! ```text
//!   C ──100 Mbps, 5 ms── R1 ══ 45 Mbps, 10 ms ══ R2 ──100 Mbps, 5 ms── P
//! ```
//!
//! Slow start overshoots; the first decrease halves the window while more Interests than the new
//! window are lost at the bottleneck, so C sends nothing. The first timer check times out dozens
//! of them, each doubling the RTO (×64 after six); no Data is left to bring a valid RTT sample,
//! so the rest wait 64 × 200 ms = 12.8 s. With the RTO never backed off (ndnSIM's
//! `MaxMultiplier = 1`) they time out 200 ms later and the transfer goes on.

use std::path::Path;
use std::sync::{Arc, Mutex};

use ndncc_core::ids::FaceId;
use ndncc_core::instantiate::build_world;
use ndncc_core::packet::Packet;
use ndncc_core::scenario::load_file;
use ndncc_core::tap::{PacketTap, TapPoint};
use ndncc_core::time::{SimDuration, SimTime};

/// Arrival times [ns] of the Data C receives and send times of the Interests C sends.
#[derive(Default)]
struct Seen {
    data_at_c: Vec<u64>,
    interests_from_c: Vec<u64>,
}

struct Recorder {
    /// C's face to R1: Interests leave by it, Data arrive on it.
    c_face: FaceId,
    seen: Arc<Mutex<Seen>>,
}

impl PacketTap for Recorder {
    fn on_packet(&mut self, now: SimTime, face: FaceId, point: TapPoint, packet: &Packet) {
        let mut seen = self.seen.lock().expect("not poisoned");
        if face != self.c_face {
            return;
        }
        if point == TapPoint::Arrive && packet.is_data() {
            seen.data_at_c.push(now.nanos());
        }
        if point == TapPoint::Transmit && packet.is_interest() {
            seen.interests_from_c.push(now.nanos());
        }
    }
}

fn run(extra: &[&str]) -> Seen {
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios/e4-ndnsim.toml");
    let mut overrides: Vec<String> =
        ["simulation.duration=16s", r#"links.R1-R2.bandwidth="45Mbps""#, "record.events=false"]
            .map(String::from)
            .into();
    overrides.extend(extra.iter().map(|s| s.to_string()));
    let sc = load_file(&path, &overrides).unwrap_or_else(|e| panic!("{e}"));
    let mut w = build_world(&sc, sc.simulation.seed).unwrap_or_else(|e| panic!("{e}"));
    let c_face = w.face_by_name("C->R1").expect("face C->R1");
    let seen = Arc::new(Mutex::new(Seen::default()));
    w.set_tap(Box::new(Recorder { c_face, seen: seen.clone() }));
    w.run(SimDuration::ZERO, &mut |_| true);
    let mut seen = seen.lock().expect("not poisoned");
    std::mem::take(&mut *seen)
}

/// The longest gap between consecutive instants, with the instant it ended [s].
fn longest_gap(times: &[u64]) -> (f64, f64) {
    let (gap, end) = times.windows(2).map(|w| (w[1] - w[0], w[1])).max().expect("two instants or more");
    (gap as f64 / 1e9, end as f64 / 1e9)
}

#[test]
fn after_the_overshoot_nothing_is_sent_or_received_until_the_backed_off_timers_fire() {
    let seen = run(&[]);
    let (gap, end) = longest_gap(&seen.data_at_c);
    // The last Data before the stall arrives at about 0.69 s. The oldest Interest still in
    // flight was sent at about 0.55 s; with the RTO at 64 × 200 ms it times out at the check at
    // 13.35 s, and its retransmission's Data arrives a round trip later.
    assert!((12.5..13.0).contains(&gap), "longest gap without Data {gap} s");
    assert!((13.35..13.45).contains(&end), "Data comes back at {end} s");
    // C sends nothing in the stall: its window is below the Interests still counted in flight,
    // and the first Interest after it is that retransmission, at the timer check.
    let (quiet, resumed) = longest_gap(&seen.interests_from_c);
    assert!(quiet > 12.5, "C quiet for {quiet} s");
    assert!((13.349..13.351).contains(&resumed), "C sends again at {resumed} s");
}

#[test]
fn without_backoff_the_lost_interests_time_out_at_once_and_there_is_no_stall() {
    let seen = run(&["apps.C.rtt={max_backoff=1}"]);
    let (gap, _) = longest_gap(&seen.data_at_c);
    // One RTO of 200 ms plus a timer period and a round trip at most.
    assert!(gap < 0.4, "longest gap without Data {gap} s");
}
