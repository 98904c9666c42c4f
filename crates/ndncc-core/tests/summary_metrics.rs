//! The summary's derived figures on scenarios whose answer is known by hand: queue sojourn
//! times and RTT percentiles behind a fixed window, Jain's index on a shared bottleneck for
//! equal and for starved flows, and fairness between an NDN and a TCP flow. docs/metrics.md
//! defines each figure.

use ndncc_core::api::{run, RunOptions, RunOutput};
use ndncc_core::scenario::load_str;

fn run_text(text: &str) -> RunOutput {
    let sc = load_str(text, "metrics.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    run(&sc, &RunOptions::default(), &mut |_| true).unwrap_or_else(|e| panic!("{e}"))
}

fn value(out: &RunOutput, entity: &str, metric: &str) -> Option<f64> {
    out.summary.iter().find(|r| r.entity == entity && r.metric == metric).map(|r| r.value)
}

fn unit(out: &RunOutput, entity: &str, metric: &str) -> String {
    out.summary.iter().find(|r| r.entity == entity && r.metric == metric).map_or(String::new(), |r| r.unit.to_string())
}

/// One consumer with a fixed window of 20 behind a 1 Mbps link: Data of 1,250 B take exactly
/// 10 ms to send, so the Data direction is saturated and the RTT is 20 × 10 ms = 200 ms. Of it,
/// a Data spends 10 ms being sent, 1 ms on the wire, and its Interest 0.32 ms being sent and 1 ms
/// on the wire: the rest, 187.68 ms, it waits in P's queue.
const FIXED_WINDOW: &str = r#"
[simulation]
duration = "20s"
seed = 1

[nodes]
C = {}
P = {}

[links.C-P]
bandwidth = "1Mbps"
delay = "1ms"
queue = { type = "droptail", packets = 100 }

[apps.P]
type = "producer"
node = "P"
prefix = "/p"
payload = "1200B"
overhead = "50B"

[apps.C]
type = "consumer"
node = "C"
prefix = "/p"
interest_size = "40B"
window = { type = "fixed", window = 20 }
"#;

#[test]
fn a_fixed_window_behind_a_slow_link_waits_the_hand_computed_time_in_the_data_queue() {
    let out = run_text(FIXED_WINDOW);
    // In steady state every Data waits the same: the percentiles are exact.
    for m in ["sojourn_p50_ms", "sojourn_p95_ms", "sojourn_p99_ms"] {
        let v = value(&out, "P->C", m).unwrap();
        assert!((v - 187.68).abs() < 1e-9, "P->C {m} = {v} ms, want 187.68");
        assert_eq!(unit(&out, "P->C", m), "ms");
    }
    // The first window's Data wait less (the queue fills): the mean is a little lower.
    let mean = value(&out, "P->C", "sojourn_mean_ms").unwrap();
    assert!(mean < 187.68 && mean > 187.68 * 0.99, "mean sojourn {mean} ms");
    // Each Interest leaves as its Data arrives, onto an idle link: no wait after the start.
    assert_eq!(value(&out, "C->P", "sojourn_p50_ms"), Some(0.0));
    for m in ["rtt_p50_ms", "rtt_p95_ms", "rtt_p99_ms"] {
        let v = value(&out, "C", m).unwrap();
        assert!((v - 200.0).abs() < 1e-9, "C {m} = {v} ms, want 200");
    }
    // The start (an empty queue, RTTs from 12 ms up) lies below the median.
    assert!(value(&out, "C", "mean_rtt_ms").unwrap() < value(&out, "C", "rtt_p50_ms").unwrap());
    // One flow: no fairness row.
    assert_eq!(value(&out, "P->C", "jain_index"), None);
}

/// Two consumers behind a 10 Mbps bottleneck R1—R2 with a 1,000-packet queue; `c1` and `c2`
/// are their window tables.
fn shared(c1: &str, c2: &str) -> String {
    format!(
        r#"
[simulation]
duration = "20s"
seed = 3

[defaults.link]
bandwidth = "100Mbps"
delay = "5ms"
queue = {{ type = "droptail", packets = 1000 }}

[nodes]
C1 = {{}}
C2 = {{}}
R1 = {{}}
R2 = {{}}
P = {{}}

[links.C1-R1]
[links.C2-R1]
[links.R1-R2]
bandwidth = "10Mbps"
[links.R2-P]

[apps.P]
type = "producer"
node = "P"
prefix = "/p"
payload = "1000B"

[apps.C1]
type = "consumer"
node = "C1"
prefix = "/p/1"
window = {c1}

[apps.C2]
type = "consumer"
node = "C2"
prefix = "/p/2"
window = {c2}
"#
    )
}

#[test]
fn two_equal_windows_share_the_bottleneck_equally() {
    let w = r#"{ type = "fixed", window = 100 }"#;
    let out = run_text(&shared(w, w));
    let jain = value(&out, "R2->R1", "jain_index").unwrap();
    assert!(jain > 0.999, "Jain {jain}");
    assert_eq!(value(&out, "R2->R1", "jain_flows"), Some(2.0));
    assert_eq!(value(&out, "run", "jain_index"), Some(jain), "both flows cross the bottleneck");
    // An access link carries one flow's Data only.
    assert_eq!(value(&out, "R1->C1", "jain_index"), None);
}

#[test]
fn a_window_of_one_against_fifty_in_a_shared_queue_gets_a_fiftieth_and_jain_near_one_half() {
    // Both see the same queueing delay, so each gets its window's share: 50 : 1, and
    // Jain = 51² / (2 · (50² + 1²)) = 0.520.
    let out = run_text(&shared(r#"{ type = "fixed", window = 50 }"#, r#"{ type = "fixed", window = 1 }"#));
    let jain = value(&out, "R2->R1", "jain_index").unwrap();
    assert!((jain - 0.520).abs() < 0.01, "Jain {jain}");
    let (x1, x2) = (value(&out, "C1", "throughput_kbps").unwrap(), value(&out, "C2", "throughput_kbps").unwrap());
    assert!((x1 / x2 - 50.0).abs() < 2.0, "{x1} / {x2}");
}

#[test]
fn an_ndn_consumer_and_a_tcp_flow_on_one_bottleneck_are_two_flows_of_its_index() {
    let text = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios/ndn-vs-tcp.toml"))
        .expect("the shipped scenario");
    let sc = load_str(&text, "ndn-vs-tcp.toml", &["simulation.duration=5s".to_string()]).unwrap();
    let out = run(&sc, &RunOptions::default(), &mut |_| true).unwrap();
    assert_eq!(value(&out, "R2->R1", "jain_flows"), Some(2.0));
    let (x1, x2) = (value(&out, "C", "throughput_kbps").unwrap(), value(&out, "tcp", "throughput_kbps").unwrap());
    let want = (x1 + x2).powi(2) / (2.0 * (x1 * x1 + x2 * x2));
    assert!((value(&out, "R2->R1", "jain_index").unwrap() - want).abs() < 1e-12);
    assert!(value(&out, "tcp", "rtt_p50_ms").is_some());
}
