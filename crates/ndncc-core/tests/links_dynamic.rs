//! Links that change: trace-driven capacity (Mahimahi's format and rate series), links and nodes
//! that fail and come back, routes that follow, and `[[events]]` that are checked like every
//! other key.

use std::path::PathBuf;

use ndncc_core::api::{run, RunOptions, RunOutput};
use ndncc_core::link_trace::DeliveryTrace;
use ndncc_core::scenario::load_str;
use ndncc_core::time::SimTime;

/// A folder of its own for each test's trace files.
fn folder(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("ndncc-links-{}-{test}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Run `text` as if it were the file `dir/scenario.toml`.
fn run_in(dir: &std::path::Path, text: &str) -> RunOutput {
    let file = dir.join("scenario.toml");
    let sc = load_str(text, &file.display().to_string(), &[]).unwrap_or_else(|e| panic!("{e}"));
    run(&sc, &RunOptions::default(), &mut |_| true).expect("runs")
}

fn summary(out: &RunOutput, entity: &str, metric: &str) -> f64 {
    out.summary
        .iter()
        .find(|r| r.entity == entity && r.metric == metric)
        .map_or_else(|| panic!("no {entity} {metric}"), |r| r.value)
}

/// The face sample `metric` of `face` at time `t` [s].
fn face_at(out: &RunOutput, face: &str, metric: &str, t: f64) -> f64 {
    let f = &out.faces;
    (0..f.len())
        .find(|&i| {
            f.entities[f.entity[i] as usize] == face
                && f.metrics[f.metric[i] as usize] == metric
                && (f.t[i] - t).abs() < 1e-9
        })
        .map_or_else(|| panic!("no {face} {metric} at {t}"), |i| f.value[i])
}

/// One consumer C with a fixed window fetching from producer P over link C-P; Data of
/// exactly 1,500 bytes on the wire. `link` is the body of `[links.C-P]`.
fn two_nodes(duration: &str, window: u32, link: &str, extra: &str) -> String {
    format!(
        r#"
[simulation]
duration = "{duration}"

[nodes]
C = {{}}
P = {{}}

[links.C-P]
delay = "5ms"
queue = {{ type = "droptail", packets = 200 }}
{link}

[apps.P]
type = "producer"
node = "P"
prefix = "/p"
payload = "1400B"
overhead = "100B"

[apps.C]
type = "consumer"
node = "C"
prefix = "/p"
window = {{ type = "fixed", window = {window} }}

[record]
interval = "100ms"
events = false
{extra}
"#
    )
}

/// A synthetic cellular-like trace: capacity swings between about 2 and 24 Mbit/s over a
/// 1-second period (0 to 2 opportunities per millisecond), with idle gaps.
fn swinging_trace() -> String {
    let mut out = String::new();
    for ms in 1..=1000u64 {
        let n = match ms % 250 {
            0..=49 => 2,
            50..=99 => 0,
            100..=199 => 1,
            _ => u64::from(ms % 3 == 0),
        };
        for _ in 0..n {
            out.push_str(&format!("{ms}\n"));
        }
    }
    // The last line sets the period: 1,000 ms.
    if !out.ends_with("1000\n") {
        out.push_str("1000\n");
    }
    out
}

#[test]
fn a_saturating_flow_over_a_trace_delivers_within_3_percent_of_its_capacity() {
    let dir = folder("saturating");
    let text = swinging_trace();
    std::fs::write(dir.join("cell.trace"), &text).unwrap();
    let trace = DeliveryTrace::parse(&text, 1500).unwrap();
    let sc = two_nodes(
        "30s",
        300,
        r#"bandwidth = "100Mbps"
bandwidth_ba = { trace = "cell.trace", mtu = "1500B" }"#,
        "",
    );
    let out = run_in(&dir, &sc);
    let capacity = trace.capacity_bytes(SimTime::ZERO, SimTime(30_000_000_000)) as f64;
    let sent = summary(&out, "P->C", "bytes_sent");
    let share = sent / capacity;
    assert!((0.97..=1.0).contains(&share), "P->C sent {sent} B of the trace's {capacity} B ({share:.4})");
    // The summary measures utilisation against the trace, not against its mean rate.
    assert!((summary(&out, "P->C", "utilisation") - share).abs() < 1e-9);
    assert_eq!(summary(&out, "P->C", "capacity_mean"), capacity * 8.0 / 30.0);
    // Capacity per 100 ms interval follows the trace: 50–99 ms of each 250 ms has none.
    let iv = |a: u64, b: u64| trace.capacity_bytes(SimTime(a * 1_000_000), SimTime(b * 1_000_000)) as f64 * 8.0 / 0.1;
    assert_eq!(face_at(&out, "P->C", "capacity", 10.1), iv(10_000, 10_100));
    assert_eq!(face_at(&out, "P->C", "capacity", 10.2), iv(10_100, 10_200));
    // Data of one size: each sample's bytes are whole packets, and the queue never runs dry.
    assert!(face_at(&out, "P->C", "utilisation", 20.0) > 0.9);
}

#[test]
fn a_one_line_trace_is_a_constant_12_mbps_link() {
    let dir = folder("one-line");
    std::fs::write(dir.join("one.trace"), "1\n").unwrap();
    let traced = run_in(&dir, &two_nodes("10s", 100, r#"bandwidth = { trace = "one.trace" }"#, ""));
    let fixed = run_in(&dir, &two_nodes("10s", 100, r#"bandwidth = "12Mbps""#, ""));
    // One 1,500-byte opportunity per millisecond is one 1,500-byte packet per millisecond.
    let (a, b) = (summary(&traced, "C", "data_received"), summary(&fixed, "C", "data_received"));
    assert!((a - b).abs() <= 2.0, "traced {a} Data, fixed {b}");
    let (a, b) = (summary(&traced, "P->C", "bytes_sent"), summary(&fixed, "P->C", "bytes_sent"));
    assert!((a - b).abs() <= 3.0 * 1500.0, "traced {a} B, fixed {b} B");
    // Over 10 s a saturated 12 Mbit/s link carries 10,000 Data of 1,500 B, less the first RTT.
    assert!((9_900.0..=10_000.0).contains(&summary(&traced, "C", "data_received")));
}

#[test]
fn a_rate_series_steps_the_bandwidth() {
    let dir = folder("series");
    std::fs::write(dir.join("rate.csv"), "time_s,bandwidth_bps\n0,12000000\n2,6000000\n4,12000000\n").unwrap();
    let out = run_in(
        &dir,
        &two_nodes(
            "6s",
            100,
            r#"bandwidth = "100Mbps"
bandwidth_ba = { series = "rate.csv" }"#,
            "",
        ),
    );
    assert_eq!(face_at(&out, "P->C", "capacity", 1.0), 12e6);
    assert_eq!(face_at(&out, "P->C", "capacity", 3.0), 6e6);
    assert_eq!(face_at(&out, "P->C", "capacity", 5.0), 12e6);
    // Saturated: 1,000 Data a second at 12 Mbit/s, 500 at 6.
    let sent = |t: f64| face_at(&out, "P->C", "bytes_sent", t);
    assert!(((sent(3.5) - sent(2.5)) / 1500.0 - 500.0).abs() <= 1.0);
    assert!(((sent(5.5) - sent(4.5)) / 1500.0 - 1000.0).abs() <= 1.0);
}

#[test]
fn a_link_down_for_two_seconds_carries_nothing_then_recovers() {
    let dir = folder("down");
    let events = r#"
[[events]]
at = "5s"
link = "C-P"
action = "down"

[[events]]
at = "7s"
link = "C-P"
action = "up"
"#;
    let out = run_in(&dir, &two_nodes("30s", 50, r#"bandwidth = "12Mbps""#, events));
    for face in ["C->P", "P->C"] {
        let sent = |t: f64| face_at(&out, face, "bytes_sent", t);
        assert_eq!(sent(5.0), sent(7.0), "{face} sent while down");
        assert!(sent(4.9) < sent(5.0) || face == "C->P", "{face} idle before");
        assert_eq!(face_at(&out, face, "capacity", 6.0), 0.0);
        assert_eq!(face_at(&out, face, "capacity", 8.0), 12e6);
    }
    // What was queued or on the wire at 5 s, and what the consumer sent into the dead link.
    assert!(summary(&out, "P->C", "drops_link_down") > 0.0);
    assert!(summary(&out, "C->P", "drops_link_down") > 0.0);
    assert!(summary(&out, "C", "timeouts") > 0.0);
    // Recovered: once the consumer's backed-off timers have resent what the failure lost
    // (up to 64 × 200 ms), the last 5 s run at the link's rate again (1,000 Data a second).
    let sent = |t: f64| face_at(&out, "P->C", "bytes_sent", t);
    let back = (71..300).map(|i| f64::from(i) / 10.0).find(|&t| sent(t) > sent(7.0)).unwrap_or(f64::NAN);
    assert!(back <= 7.0 + 12.8 + 0.2, "nothing sent after the link came back until {back} s");
    let last = (sent(30.0) - sent(25.0)) / 1500.0;
    assert!((last - 5000.0).abs() <= 2.0, "{last} Data in the last 5 s");
    assert_eq!(summary(&out, "run", "conservation_ok"), 1.0);
}

/// C reaches P over R1 (cost 1 + 1) or R2 (cost 2 + 2).
fn diamond(strategy: &str, multipath: bool, convergence: &str, apps: &str, events: &str) -> String {
    format!(
        r#"
[simulation]
duration = "10s"

[defaults.link]
bandwidth = "10Mbps"
delay = "5ms"

[defaults.node]
strategy = {{ type = "{strategy}" }}

[nodes]
C = {{}}
R1 = {{}}
R2 = {{}}
P = {{}}

[links.C-R1]
[links.R1-P]
[links.C-R2]
cost = 2
[links.R2-P]
cost = 2

[routing]
multipath = {multipath}
convergence = "{convergence}"

{apps}

[record]
interval = "100ms"
events = false

{events}
"#
    )
}

const NDN_APPS: &str = r#"
[apps.P]
type = "producer"
node = "P"
prefix = "/p"

[apps.C]
type = "consumer"
node = "C"
prefix = "/p"
window = { type = "fixed", window = 60 }
"#;

const R1_P_DOWN: &str = r#"
[[events]]
at = "5s"
link = "R1-P"
action = "down"
"#;

#[test]
fn best_route_moves_to_the_other_path_once_routing_converges() {
    for multipath in [false, true] {
        let out = run_in(&folder("failover"), &diamond("best-route", multipath, "300ms", NDN_APPS, R1_P_DOWN));
        let on = |face: &str, t: f64| face_at(&out, face, "bytes_sent", t);
        // Before the failure nothing goes over R2; until routing converges, nothing yet.
        assert_eq!(on("C->R2", 5.3), 0.0, "multipath {multipath}");
        assert_eq!(on("R2->C", 5.3), 0.0);
        // After it, the Data come back over R2 at the path's rate.
        let moved = (on("R2->C", 10.0) - on("R2->C", 6.0)) * 8.0 / 4.0;
        assert!(moved > 9e6, "multipath {multipath}: {moved} bit/s over R2");
        assert_eq!(on("R1->P", 5.0), on("R1->P", 10.0));
    }
}

#[test]
fn without_a_convergence_delay_routes_change_at_once() {
    let out = run_in(&folder("at-once"), &diamond("best-route", false, "0s", NDN_APPS, R1_P_DOWN));
    // Interests leave C towards R2 in the very interval of the failure.
    assert!(face_at(&out, "C->R2", "bytes_sent", 5.1) > 0.0);
    assert_eq!(face_at(&out, "C->R2", "bytes_sent", 5.0), 0.0);
}

#[test]
fn an_ip_flow_reroutes_around_a_failed_link() {
    let apps = r#"
[apps.tcp]
type = "tcp"
node = "C"
to = "P"
"#;
    let out = run_in(&folder("ip"), &diamond("best-route", false, "300ms", apps, R1_P_DOWN));
    let on = |face: &str, t: f64| face_at(&out, face, "bytes_sent", t);
    assert!(on("C->R1", 5.0) > 0.0);
    assert_eq!(on("C->R2", 5.3), 0.0);
    let moved = (on("C->R2", 10.0) - on("C->R2", 6.0)) * 8.0 / 4.0;
    assert!(moved > 5e6, "{moved} bit/s over R2");
    assert!(summary(&out, "R1->P", "drops_link_down") > 0.0);
}

#[test]
fn a_node_failure_takes_its_links_down_until_it_returns() {
    let events = r#"
[[events]]
at = "3s"
node = "R1"
action = "down"

[[events]]
at = "6s"
node = "R1"
action = "up"
"#;
    let out = run_in(&folder("node"), &diamond("best-route", false, "0s", NDN_APPS, events));
    let on = |face: &str, t: f64| face_at(&out, face, "bytes_sent", t);
    for face in ["C->R1", "R1->C", "R1->P", "P->R1"] {
        assert_eq!(on(face, 3.0), on(face, 6.0), "{face} sent while R1 was down");
        assert_eq!(face_at(&out, face, "capacity", 4.0), 0.0);
    }
    // Traffic went over R2 meanwhile, and back to R1 once it returned.
    assert!(on("R2->C", 6.0) > on("R2->C", 3.1));
    assert!(on("R1->C", 10.0) > on("R1->C", 7.0));
    assert_eq!(on("R2->C", 9.0), on("R2->C", 10.0));
}

#[test]
fn events_at_one_instant_apply_in_file_order() {
    let set = |first: &str, second: &str| {
        format!(
            r#"
[[events]]
at = "2s"
link = "C-P"
action = "set"
bandwidth = "{first}"

[[events]]
at = "2s"
link = "C-P"
action = "set"
bandwidth = "{second}"
"#
        )
    };
    let dir = folder("order");
    let a = run_in(&dir, &two_nodes("4s", 50, r#"bandwidth = "12Mbps""#, &set("3Mbps", "6Mbps")));
    let b = run_in(&dir, &two_nodes("4s", 50, r#"bandwidth = "12Mbps""#, &set("6Mbps", "3Mbps")));
    assert_eq!(face_at(&a, "P->C", "capacity", 3.0), 6e6);
    assert_eq!(face_at(&b, "P->C", "capacity", 3.0), 3e6);
    // And deterministically: the same file twice gives the same rows.
    let again = run_in(&dir, &two_nodes("4s", 50, r#"bandwidth = "12Mbps""#, &set("3Mbps", "6Mbps")));
    assert_eq!(
        a.faces.value.iter().map(|v| v.to_bits()).collect::<Vec<_>>(),
        again.faces.value.iter().map(|v| v.to_bits()).collect::<Vec<_>>()
    );
    assert_eq!(a.summary.len(), again.summary.len());
}

#[test]
fn set_changes_delay_loss_and_queue_of_a_running_link() {
    let events = r#"
[[events]]
at = "2s"
link = "C-P"
action = "set"
delay = "50ms"
loss_ba = { type = "bernoulli", p = "100%" }
queue = { type = "droptail", packets = 5 }
"#;
    let out = run_in(&folder("set"), &two_nodes("4s", 50, r#"bandwidth = "12Mbps""#, events));
    // Everything P sends after 2 s is lost on the wire: C receives nothing more than what was
    // on its way (about 1,000 Data a second for 2 s, less the first round trip).
    assert!(summary(&out, "P->C", "drops_loss") > 0.0);
    let received = summary(&out, "C", "data_received");
    assert!((1_950.0..=2_050.0).contains(&received), "{received}");
    // The new queue holds 5 packets at most.
    assert!((0..20).all(|i| face_at(&out, "C->P", "queue_packets", 2.0 + 0.1 * f64::from(i)) <= 5.0));
}

fn load_error(text: &str) -> String {
    load_str(text, "bad.toml", &[]).unwrap_err().to_string()
}

#[test]
fn a_bad_event_names_the_file_line_and_key() {
    let base = two_nodes("10s", 10, r#"bandwidth = "12Mbps""#, "");
    let lines = base.lines().count();
    let with = |events: &str| format!("{base}{events}");
    let e = load_error(&with("[[events]]\nat = \"1s\"\nlink = \"C-X\"\naction = \"down\"\n"));
    assert_eq!(e, format!("bad.toml:{}: events[0].link: 'C-X' is not a link of this scenario (links: C-P)", lines + 3));
    let e = load_error(&with("[[events]]\nat = \"11s\"\nlink = \"C-P\"\naction = \"down\"\n"));
    assert_eq!(e, format!("bad.toml:{}: events[0].at: 11s is after the end of the simulation (10s)", lines + 2));
    let twice = "[[events]]\nat = \"2s\"\nlink = \"C-P\"\naction = \"down\"\n\n[[events]]\nat = \"1s\"\nlink = \"C-P\"\naction = \"down\"\n";
    let e = load_error(&with(twice));
    assert_eq!(
        e,
        format!(
            "bad.toml:{}: events[0].action: link C-P is already down at 2s (events[1] took it down at 1s)",
            lines + 4
        )
    );
    let e = load_error(&with("[[events]]\nat = \"1s\"\nnode = \"C\"\naction = \"up\"\n"));
    assert!(e.ends_with("events[0].action: node C is not down at 1s: only what went down can come up"), "{e}");
    let e = load_error(&with("[[events]]\nat = \"1s\"\nlink = \"C-P\"\naction = \"set\"\n"));
    assert!(e.contains("events[0].action: `set` needs the link keys to change"), "{e}");
    let e = load_error(&with("[[events]]\nat = \"1s\"\nlink = \"C-P\"\naction = \"explode\"\n"));
    assert!(e.contains(&format!("bad.toml:{}: events[0].action: unknown variant 'explode'", lines + 4)), "{e}");
    let e = load_error(&with("[[events]]\nat = \"1s\"\nlink = \"C-P\"\naction = \"down\"\nbandwidth = \"1Mbps\"\n"));
    assert!(e.contains("events[0].bandwidth: `bandwidth` is only for action = \"set\""), "{e}");
    let e = load_error(&with("[[events]]\nat = \"1s\"\nlink = \"C-P\"\naction = \"set\"\nbandwidth = \"0Mbps\"\n"));
    assert!(e.contains("events[0].bandwidth"), "{e}");
}

#[test]
fn a_bad_trace_names_the_scenario_key_and_the_trace_line() {
    let dir = folder("bad-trace");
    std::fs::write(dir.join("bad.trace"), "1\n3\n2\n").unwrap();
    let text = two_nodes("10s", 10, r#"bandwidth = { trace = "bad.trace" }"#, "");
    let file = dir.join("scenario.toml").display().to_string();
    let e = load_str(&text, &file, &[]).unwrap_err().to_string();
    let trace = dir.join("bad.trace").display().to_string();
    assert!(e.contains(&format!("links.C-P.bandwidth: {trace}:3: 2 ms comes before the line above")), "{e}");
    let text = two_nodes("10s", 10, r#"bandwidth = { trace = "missing.trace" }"#, "");
    let e = load_str(&text, &file, &[]).unwrap_err().to_string();
    assert!(e.contains("links.C-P.bandwidth: cannot read the trace file"), "{e}");
    let text = two_nodes("10s", 10, r#"bandwidth = { series = "x.csv", mtu = "1500B" }"#, "");
    let e = load_str(&text, &file, &[]).unwrap_err().to_string();
    assert!(e.contains("links.C-P.bandwidth.mtu"), "{e}");
}

#[test]
fn a_scenario_with_a_trace_writes_out_and_reads_back_the_same() {
    let dir = folder("roundtrip");
    std::fs::write(dir.join("one.trace"), "1\n").unwrap();
    let text =
        two_nodes("10s", 10, r#"bandwidth = { trace = "one.trace" }"#, R1_P_DOWN.replace("R1-P", "C-P").as_str());
    let file = dir.join("scenario.toml").display().to_string();
    let sc = load_str(&text, &file, &[]).unwrap();
    assert_eq!(sc.links["C-P"].bandwidth.bps(), 12_000_000);
    let again = load_str(&sc.to_toml(), "elsewhere/manifest.toml", &[]).unwrap();
    assert_eq!(again.links, sc.links);
    assert_eq!(again.events, sc.events);
}

#[test]
fn a_node_takes_a_new_strategy_at_its_instant() {
    let events = r#"
[[events]]
at = "5s"
node = "C"
action = "set"
strategy = { type = "multicast" }
"#;
    let out = run_in(&folder("strategy"), &diamond("best-route", true, "0s", NDN_APPS, events));
    let on = |face: &str, t: f64| face_at(&out, face, "bytes_sent", t);
    // Best route keeps to R1; multicast sends every Interest both ways from then on.
    assert_eq!(on("C->R2", 5.0), 0.0);
    assert!(on("C->R2", 6.0) > 0.0);
    let (r1, r2) = (on("C->R1", 10.0) - on("C->R1", 6.0), on("C->R2", 10.0) - on("C->R2", 6.0));
    assert_eq!(r1, r2, "multicast sends the same Interests on both faces");
}

#[test]
fn a_shorter_delay_lets_no_packet_overtake_one_on_the_wire() {
    let events = r#"
[[events]]
at = "2s"
link = "C-P"
action = "set"
delay = "1ms"
"#;
    // A window of 450 keeps the 12 Mbit/s link busy over its 400 ms round trip: Data are on
    // the wire when the delay drops.
    let text = two_nodes("4s", 450, "bandwidth = \"12Mbps\"", events).replace("delay = \"5ms\"", "delay = \"200ms\"");
    let file = folder("fifo").join("scenario.toml");
    let sc = load_str(&text, &file.display().to_string(), &[]).unwrap();
    let mut world = ndncc_core::instantiate::build_world(&sc, 1).unwrap();
    type Seen = std::sync::Arc<std::sync::Mutex<(Vec<u64>, Vec<(SimTime, u64)>)>>;
    let seen: Seen = Default::default();
    /// Data as P puts them on the wire, and as they arrive at C.
    struct Watch(Seen);
    impl ndncc_core::tap::PacketTap for Watch {
        fn on_packet(
            &mut self,
            now: SimTime,
            _face: ndncc_core::ids::FaceId,
            point: ndncc_core::tap::TapPoint,
            p: &ndncc_core::packet::Packet,
        ) {
            let Some(seg) = p.ndn().filter(|_| p.is_data()).map(|h| h.name.seg) else { return };
            let mut s = self.0.lock().unwrap();
            match point {
                ndncc_core::tap::TapPoint::Transmit => s.0.push(seg),
                ndncc_core::tap::TapPoint::Arrive => s.1.push((now, seg)),
                _ => {}
            }
        }
    }
    world.set_tap(Box::new(Watch(seen.clone())));
    let end = world.run(ndncc_core::time::SimDuration::ZERO, &mut |_| true);
    assert_eq!(end, ndncc_core::world::RunEnd::Finished);
    let (sent, arrivals) = seen.lock().unwrap().clone();
    // Data reach C in the order P sent them, though those sent after 2 s had 199 ms less to
    // travel: they wait behind the ones already on the wire.
    let order: Vec<u64> = arrivals.iter().map(|a| a.1).collect();
    assert_eq!(order[..], sent[..order.len()]);
    assert!(arrivals.windows(2).all(|w| w[0].0 <= w[1].0));
    // The link stayed busy: 1,000 Data a second arrive after the change as before it.
    let count = |a: u64, b: u64| {
        arrivals.iter().filter(|x| x.0 >= SimTime(a * 1_000_000) && x.0 < SimTime(b * 1_000_000)).count()
    };
    assert!(
        count(1_000, 2_000) >= 900 && count(3_000, 4_000) >= 990,
        "{} then {}",
        count(1_000, 2_000),
        count(3_000, 4_000)
    );
}
