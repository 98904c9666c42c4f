//! SRMCC end to end on a small tree: Data reaches every receiver, the tree nodes aggregate the
//! receivers' MCC messages, and the source settles near the bottleneck's fair share; a source
//! whose control would grow without bound sends no faster than its line rate.
//!
//! ```text
//!   S ──10M── R0 ══ 2M ══ R1 ──10M── M1, M2, M3      (DropTail 50 packets)
//! ```

use ndncc_core::api::{run, RunOptions, RunOutput};
use ndncc_core::scenario::load_str;

fn tree(modules: &str, control: &str) -> RunOutput {
    let text = format!(
        r#"
[simulation]
duration = "60s"
seed = 1

[defaults.link]
bandwidth = "10Mbps"
delay = "10ms"
queue = {{ type = "droptail", packets = 50 }}

[nodes]
S = {{}}
R0 = {{ modules = {modules} }}
R1 = {{ modules = {modules} }}
M1 = {{}}
M2 = {{}}
M3 = {{}}

[links.S-R0]
[links.R0-R1]
bandwidth = "2Mbps"
[links.R1-M1]
[links.R1-M2]
[links.R1-M3]

[apps.mc]
type = "multicast"
node = "S"
receivers = ["M1", "M2", "M3"]
control = {control}

[record]
interval = "1s"
events = false
"#
    );
    let sc = load_str(&text, "multicast.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    run(&sc, &RunOptions::default(), &mut |_| true).unwrap_or_else(|e| panic!("{e}"))
}

fn value(out: &RunOutput, entity: &str, metric: &str) -> f64 {
    out.summary.iter().find(|r| r.entity == entity && r.metric == metric).map_or(f64::NAN, |r| r.value)
}

#[test]
fn srmcc_fills_the_bottleneck_with_little_loss_and_aggregates_feedback() {
    let out = tree(r#"[{ type = "srmcc" }]"#, r#"{ type = "srmcc" }"#);
    for m in ["mc-M1", "mc-M2", "mc-M3"] {
        let kbps = value(&out, m, "throughput_kbps");
        // Alone on a 2 Mbit/s bottleneck: its fair share is the whole link.
        assert!(kbps > 1_600.0 && kbps <= 2_000.0, "{m}: {kbps} kbit/s");
        // Little loss: while the receivers' branches are idle, γ takes the rate past the fair
        // share by γ·(2·R − R_min) each cycle (the uncapped no-occupancy stage), and the queue
        // overflows briefly before the occupancy brings it back.
        assert!(value(&out, m, "loss_rate") < 0.02, "{m}: loss {}", value(&out, m, "loss_rate"));
    }
    // Three receivers report each cycle; R1 and R0 each pass one message upstream per period.
    let sent: f64 = ["mc-M1", "mc-M2", "mc-M3"].iter().map(|m| value(&out, m, "feedback_sent")).sum();
    let at_source = value(&out, "mc", "feedback_packets");
    assert!(at_source > 0.0 && at_source <= sent / 3.0 + 1.0, "{at_source} of {sent}");
}

#[test]
fn without_tree_nodes_every_report_reaches_the_source_and_a_fixed_rate_overloads() {
    let out = tree("[]", r#"{ type = "srmcc" }"#);
    let sent: f64 = ["mc-M1", "mc-M2", "mc-M3"].iter().map(|m| value(&out, m, "feedback_sent")).sum();
    assert_eq!(value(&out, "mc", "feedback_packets"), sent);
    let fixed = tree("[]", r#"{ type = "fixed", rate = "3Mbps" }"#);
    // 3 Mbit/s into 2 Mbit/s: about a third is lost.
    let loss = value(&fixed, "mc-M1", "loss_rate");
    assert!((0.25..0.40).contains(&loss), "{loss}");
}

#[test]
fn a_source_without_occupancy_news_sends_at_its_line_rate_at_most() {
    // Without tree nodes every MCC message carries the receivers' initial occupancies (max 0),
    // so SRMCC's no-occupancy stage doubles the rate every cycle with no cap: the source then
    // sends at its 10 Mbit/s line rate, no faster, and the 2 Mbit/s bottleneck drops the rest.
    let out = tree("[]", r#"{ type = "srmcc" }"#);
    let final_kbps = value(&out, "mc", "final_rate_kbps");
    assert_eq!(final_kbps, 10_000.0);
    let loss = value(&out, "mc-M1", "loss_rate");
    assert!(loss > 0.7, "{loss}");
}

fn receivers_sent(out: &RunOutput) -> f64 {
    ["mc-M1", "mc-M2", "mc-M3"].iter().map(|m| value(out, m, "feedback_sent")).sum()
}

#[test]
fn tfmcc_follows_its_limiting_receiver_with_little_loss() {
    let out = tree("[]", r#"{ type = "tfmcc" }"#);
    for m in ["mc-M1", "mc-M2", "mc-M3"] {
        assert!(value(&out, m, "throughput_kbps") > 1_000.0, "{m}");
        assert!(value(&out, m, "loss_rate") < 0.05, "{m}");
    }
    // No tree node aggregates: every report reaches the source (but those still in flight).
    let (fb, sent) = (value(&out, "mc", "feedback_packets"), receivers_sent(&out));
    assert!(fb <= sent && fb >= 0.98 * sent, "{fb} of {sent}");
}

#[test]
fn asmp_receivers_report_at_their_rtcp_interval() {
    let out = tree("[]", r#"{ type = "asmp" }"#);
    assert!(value(&out, "mc-M1", "throughput_kbps") > 500.0);
    let (fb, sent) = (value(&out, "mc", "feedback_packets"), receivers_sent(&out));
    assert!(fb <= sent && fb >= 0.98 * sent, "{fb} of {sent}");
    // At least one report per receiver per 5 s (RTCP's longest interval) over the 60 s.
    assert!(sent >= 3.0 * 12.0, "{sent}");
}

#[test]
fn perif_ecn_routers_send_the_feedback_and_receivers_stay_silent() {
    let out = tree(r#"[{ type = "perif-ecn" }]"#, r#"{ type = "perif-ecn" }"#);
    assert_eq!(receivers_sent(&out), 0.0);
    assert!(value(&out, "mc", "feedback_packets") > 0.0);
    assert!(value(&out, "mc-M1", "throughput_kbps") > 1_000.0);
}
