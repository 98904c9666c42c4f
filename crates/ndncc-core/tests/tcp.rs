//! TCP NewReno against what is known of it analytically: a single flow fills a lossless link up
//! to its capacity minus the 40 bytes of headers per segment, and under random loss its
//! throughput follows the PFTK model (Padhye, Firoiu, Towsley, Kurose, "Modeling TCP
//! throughput", SIGCOMM 1998), its full model (eq. 30, no receiver-window limit):
//!
//! ```text
//!   E[W] = (2+b)/(3b) + √( 8(1−p)/(3bp) + ((2+b)/(3b))² )
//!   B(p) = ( (1−p)/p + E[W] + Q/(1−p) ) / ( RTT·(b·E[W]/2 + 1) + Q·T0·f(p)/(1−p) )   [segments/s]
//!   f(p) = 1 + p + 2p² + 4p³ + 8p⁴ + 16p⁵ + 32p⁶
//! ```
//!
//! with b = 2 segments per ACK (delayed ACKs), T0 = 1 s (RFC 6298's RTO floor, which every
//! timeout here meets), RTT the flow's mean measured RTT, p the segment loss probability (the
//! loss is on the data direction only) and Q the share of loss indications that ended in a
//! timeout. PFTK's own estimate of Q, Q̂(w), assumes that once one segment of a round is lost
//! the rest of the round is lost too (drop-tail bursts); with independent (Bernoulli) losses
//! and limited transmit far fewer indications end in a timeout, so Q is taken from the run:
//! 0.8 %, 0.9 % and 2.5 % at p = 0.5, 1 and 2 % against Q̂'s 20, 28 and 40 %. With Q̂ the model
//! is a lower bound (ours is 22–66 % above it); with the measured Q it is within 15 % (3, 8 and
//! 12 % below it).

use ndncc_core::api::{run, RunOptions, RunOutput};
use ndncc_core::scenario::load_str;

/// One TCP flow S → D through R: 100 Mbps access, `bottleneck_mbps` from R to D with `loss` on
/// the data direction, 20 ms one-way delay in all.
fn one_flow(bottleneck_mbps: u64, loss: f64, seconds: u64, seed: u64) -> RunOutput {
    let sc = load_str(&flow_text(bottleneck_mbps, loss, seconds, seed, ""), "tcp.toml", &[])
        .unwrap_or_else(|e| panic!("{e}"));
    run(&sc, &RunOptions::default(), &mut |_| true).unwrap_or_else(|e| panic!("{e}"))
}

/// The scenario of `one_flow`, with `extra` lines added to the flow's table.
fn flow_text(bottleneck_mbps: u64, loss: f64, seconds: u64, seed: u64, extra: &str) -> String {
    format!(
        r#"
[simulation]
duration = "{seconds}s"
seed = {seed}

[defaults.link]
bandwidth = "100Mbps"
delay = "5ms"
queue = {{ type = "droptail", packets = 200 }}

[nodes]
S = {{}}
R = {{}}
D = {{}}

[links.S-R]
[links.R-D]
bandwidth = "{bottleneck_mbps}Mbps"
delay = "15ms"
loss_ab = {{ type = "bernoulli", p = {loss} }}

[apps.flow]
type = "tcp"
node = "S"
to = "D"
mss = "1000B"
{extra}

[record]
interval = "0s"
events = false
"#
    )
}

fn value(out: &RunOutput, entity: &str, metric: &str) -> f64 {
    out.summary.iter().find(|r| r.entity == entity && r.metric == metric).map_or(f64::NAN, |r| r.value)
}

#[test]
fn a_single_flow_fills_a_lossless_link_up_to_the_header_overhead() {
    // 10 Mbps carries 1,000 B of payload per 1,040 B on the wire: 9,615 kbit/s of goodput.
    let out = one_flow(10, 0.0, 60, 1);
    let ceiling = 10_000.0 * 1000.0 / 1040.0;
    let got = value(&out, "flow", "throughput_kbps");
    assert!(got <= ceiling * 1.0001, "{got} kbit/s above the ceiling {ceiling}");
    assert!(got >= ceiling * 0.95, "{got} kbit/s, ceiling {ceiling}");
}

/// PFTK's full model in kbit/s of payload for MSS 1,000 B, b = 2, T0 = 1 s, given the share
/// `q` of loss indications that are timeouts (`None`: PFTK's own estimate Q̂).
fn pftk_kbps(p: f64, rtt_s: f64, q: Option<f64>) -> f64 {
    let (b, t0, mss_bits) = (2.0, 1.0, 8000.0);
    let a = (2.0 + b) / (3.0 * b);
    let ew = a + (8.0 * (1.0 - p) / (3.0 * b * p) + a * a).sqrt();
    let keep = 1.0 - p;
    let q_hat =
        ((1.0 - keep.powi(3)) * (1.0 + keep.powi(3) * (1.0 - keep.powf(ew - 3.0))) / (1.0 - keep.powf(ew))).min(1.0);
    let q = q.unwrap_or(q_hat);
    let f = 1.0 + p + 2.0 * p.powi(2) + 4.0 * p.powi(3) + 8.0 * p.powi(4) + 16.0 * p.powi(5) + 32.0 * p.powi(6);
    let segments_per_s = ((1.0 - p) / p + ew + q / (1.0 - p)) / (rtt_s * (b * ew / 2.0 + 1.0) + q * t0 * f / (1.0 - p));
    segments_per_s * mss_bits / 1e3
}

#[test]
fn under_random_loss_throughput_follows_the_pftk_model_within_15_percent() {
    for p in [0.005, 0.01, 0.02] {
        // Three seeds of 200 s each; the model is compared with their mean.
        let runs: Vec<RunOutput> = (1..=3).map(|seed| one_flow(100, p, 200, seed)).collect();
        let mean = |m: &str| runs.iter().map(|o| value(o, "flow", m)).sum::<f64>() / 3.0;
        let got = mean("throughput_kbps");
        let rtt = mean("mean_rtt_ms") / 1e3;
        let (timeouts, fast) = (mean("timeouts"), mean("fast_retransmits"));
        let q = timeouts / (timeouts + fast);
        let model = pftk_kbps(p, rtt, Some(q));
        let err = (got - model).abs() / model;
        assert!(
            err < 0.15,
            "p {p}: {got:.0} kbit/s, PFTK {model:.0} kbit/s (RTT {:.1} ms, Q {q:.3}), off by {:.0}%",
            rtt * 1e3,
            err * 100.0
        );
        // PFTK's own Q̂ (correlated losses) predicts more timeouts: a lower bound here.
        let bound = pftk_kbps(p, rtt, None);
        assert!(got > bound, "p {p}: {got:.0} kbit/s under PFTK's bound {bound:.0}");
    }
}

#[test]
fn with_the_ns2_profile_a_lone_flow_is_held_to_20_packets_per_round_trip() {
    // NS-2's window_ of 20 packets: 20 × 8,000 bit per RTT. RTT = 40 ms of propagation +
    // 1,040 B at 100 and at 10 Mbps (0.083 + 0.832 ms) + the 40 B ACK (0.003 + 0.032 ms)
    // = 40.95 ms: 3,907 kbit/s, well under the 9,615 kbit/s the RFC profile reaches above.
    let text = flow_text(10, 0.0, 60, 1, r#"profile = { type = "ns2" }"#);
    let sc = load_str(&text, "tcp.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    let out = run(&sc, &RunOptions::default(), &mut |_| true).unwrap_or_else(|e| panic!("{e}"));
    let expected = 20.0 * 8000.0 / 40.95e-3 / 1e3;
    let got = value(&out, "flow", "throughput_kbps");
    assert!((got - expected).abs() < 0.02 * expected, "{got} kbit/s, expected {expected}");
    assert_eq!(value(&out, "flow", "retransmissions"), 0.0);
    // One ACK per data packet (and one for the SYN).
    assert_eq!(value(&out, "flow-sink", "acks_sent"), value(&out, "flow-sink", "segments_received") + 1.0);
}

#[test]
fn the_ns2_profile_rejects_the_rfc_stacks_keys_by_name() {
    let text = flow_text(10, 0.0, 1, 1, "profile = { type = \"ns2\" }\nack_every = 1");
    let err = load_str(&text, "tcp.toml", &[]).map(|_| ()).unwrap_err().to_string();
    assert!(err.contains("apps.flow.ack_every") && err.contains("profile ns2"), "{err}");
    let text = flow_text(10, 0.0, 1, 1, "profile = { type = \"ns2\" }\nlimited_transmit = false");
    let err = load_str(&text, "tcp.toml", &[]).map(|_| ()).unwrap_err().to_string();
    assert!(err.contains("apps.flow.limited_transmit") && err.contains("profile ns2"), "{err}");
    let text = flow_text(10, 0.0, 1, 1, "profile = { type = \"ns2\" }\nflight_size = \"ns3\"");
    let err = load_str(&text, "tcp.toml", &[]).map(|_| ()).unwrap_err().to_string();
    assert!(err.contains("apps.flow.flight_size") && err.contains("profile ns2"), "{err}");
    let text = flow_text(10, 0.0, 1, 1, "profile = { type = \"ns2\", window = 0 }");
    let err = load_str(&text, "tcp.toml", &[]).map(|_| ()).unwrap_err().to_string();
    assert!(err.contains("apps.flow.profile.window"), "{err}");
}

#[test]
fn without_a_loss_the_ns3_profile_sends_as_the_rfc_sender_does() {
    // 300 segments never overflow the 200-packet queue (the window stays under queue + BDP),
    // so neither sender recovers from anything: both grow one segment per ACK in slow start
    // and run segment for segment alike, to the same completion time.
    let download = |profile: &str| {
        let text = flow_text(10, 0.0, 10, 1, &format!("bytes = \"300000B\"\n{profile}"));
        let sc = load_str(&text, "tcp.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
        let out = run(&sc, &RunOptions::default(), &mut |_| true).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(value(&out, "flow", "retransmissions"), 0.0, "{profile}");
        (value(&out, "flow", "download_time_s"), value(&out, "flow", "segments_sent"))
    };
    let (rfc, ns3) = (download(""), download(r#"profile = { type = "ns3" }"#));
    assert_eq!(rfc, ns3);
    assert_eq!(rfc.1, 300.0);
    assert!(rfc.0 > 0.0 && rfc.0 < 1.0, "{rfc:?}");
}

#[test]
fn the_ns3_profile_rejects_the_keys_it_does_not_read_by_name() {
    for (extra, key) in [
        ("flight_size = \"ns3\"", "apps.flow.flight_size"),
        ("ecn = true", "apps.flow.ecn"),
        ("cc = { type = \"cubic\" }", "apps.flow.cc"),
        ("rtt = { backoff = \"none\" }", "apps.flow.rtt.backoff"),
    ] {
        let text = flow_text(10, 0.0, 1, 1, &format!("profile = {{ type = \"ns3\" }}\n{extra}"));
        let err = load_str(&text, "tcp.toml", &[]).map(|_| ()).unwrap_err().to_string();
        assert!(err.contains(key) && err.contains("profile ns3"), "{extra}: {err}");
    }
    let text = flow_text(10, 0.0, 1, 1, "profile = { type = \"ns3\", window = 4 }");
    let err = load_str(&text, "tcp.toml", &[]).map(|_| ()).unwrap_err().to_string();
    assert!(err.contains("window"), "{err}");
}
