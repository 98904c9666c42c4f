//! Golden tables: every registered controller, queue discipline, strategy and router module on
//! a seeded dumbbell, its run reduced to a small table and checked as a snapshot (like
//! smoltcp's `tests/netsim.rs`). A change of behaviour shows as a diff of the table; a new
//! plug-in gets its own table the first time it runs (`cargo insta review` accepts it).
//!
//! ```text
//!  C1 ─┐                                        ┌─ P1
//!      R1 ── 10 Mbps, 10 ms, 0.5 % loss ── R2 ──┤
//!  C2 ─┘   (100 Mbps, 5 ms access links)        └─ P2
//! ```

use ndncc_core::api::{run, RunOptions, RunOutput};
use ndncc_core::cc::external::PYTHON;
use ndncc_core::cc::rate::RateConfig;
use ndncc_core::cc::window::WindowConfig;
use ndncc_core::forwarder::strategy::StrategyConfig;
use ndncc_core::module::ModuleConfig;
use ndncc_core::queue::QueueConfig;
use ndncc_core::scenario::load_str;

/// The dumbbell with the pieces under test put in: C1's controller (`control`), C2's, the
/// bottleneck queue, R1's strategy and R1's modules (TOML inline values).
fn dumbbell(c1: &str, c2: &str, queue: &str, strategy: &str, modules: &str) -> String {
    format!(
        r#"
[simulation]
duration = "6s"
seed = 11

[defaults.link]
bandwidth = "100Mbps"
delay = "5ms"
queue = {{ type = "droptail", packets = 100 }}

[nodes]
C1 = {{}}
C2 = {{}}
R1 = {{ strategy = {strategy}, modules = {modules} }}
R2 = {{}}
P1 = {{}}
P2 = {{}}

[links.C1-R1]
[links.C2-R1]
[links.R1-R2]
bandwidth = "10Mbps"
delay = "10ms"
loss = {{ type = "bernoulli", p = "0.5%" }}
queue = {queue}
[links.R2-P1]
[links.R2-P2]

[apps.P1]
type = "producer"
node = "P1"
prefix = "/p1"
payload = "1000B"
overhead = "50B"

[apps.P2]
type = "producer"
node = "P2"
prefix = "/p2"
payload = "1000B"
overhead = "50B"

[apps.C1]
type = "consumer"
node = "C1"
prefix = "/p1"
interest_size = "40B"
{c1}

[apps.C2]
type = "consumer"
node = "C2"
prefix = "/p2"
interest_size = "40B"
start = "2s"
{c2}

[record]
interval = "0s"
events = false
"#
    )
}

const DROPTAIL: &str = r#"{ type = "droptail", packets = 100 }"#;
const BEST_ROUTE: &str = r#"{ type = "best-route" }"#;
const PCON_WINDOW: &str = r#"window = { type = "pcon" }"#;

/// Run the scenario and reduce it to one line per flow and the bottleneck faces.
fn table(text: &str) -> String {
    let sc = load_str(text, "snapshot.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    let out = run(&sc, &RunOptions::default(), &mut |_| true).unwrap_or_else(|e| panic!("{e}"));
    reduce(&out)
}

fn value(out: &RunOutput, entity: &str, metric: &str) -> f64 {
    out.summary.iter().find(|r| r.entity == entity && r.metric == metric).map_or(f64::NAN, |r| r.value)
}

fn reduce(out: &RunOutput) -> String {
    let mut s = String::from("flow  data  retx  timeouts  nacks  marks  kbit/s  rtt_ms\n");
    for c in ["C1", "C2"] {
        let v = |m: &str| value(out, c, m);
        s.push_str(&format!(
            "{c:<4} {:>5} {:>5} {:>9} {:>6} {:>6} {:>7.1} {:>7.2}\n",
            v("data_received"),
            v("retransmissions"),
            v("timeouts"),
            v("nacks"),
            v("marks"),
            v("throughput_kbps"),
            v("mean_rtt_ms"),
        ));
    }
    s.push_str("face     sent  drops_queue  drops_aqm  drops_loss  marks  max_queue\n");
    for f in ["R1->R2", "R2->R1"] {
        let v = |m: &str| value(out, f, m);
        s.push_str(&format!(
            "{f:<7} {:>5} {:>12} {:>10} {:>11} {:>6} {:>10}\n",
            v("packets_sent"),
            v("drops_queue"),
            v("drops_aqm"),
            v("drops_loss"),
            v("marks"),
            v("max_queue_packets"),
        ));
    }
    assert_eq!(value(out, "run", "conservation_ok"), 1.0, "Interest conservation");
    s
}

// "python" controllers need the Python front: python/tests/test_python_controllers.py runs them.
#[test]
fn every_window_controller_on_the_dumbbell() {
    for &kind in WindowConfig::TYPES.iter().filter(|&&k| k != PYTHON) {
        let c = format!(r#"window = {{ type = "{kind}" }}"#);
        let t = table(&dumbbell(&c, &c, DROPTAIL, BEST_ROUTE, "[]"));
        insta::assert_snapshot!(format!("window-{kind}"), t);
    }
}

#[test]
fn every_rate_controller_on_the_dumbbell() {
    for &kind in RateConfig::TYPES.iter().filter(|&&k| k != PYTHON) {
        let c = format!(r#"rate = {{ type = "{kind}" }}"#);
        let t = table(&dumbbell(&c, &c, DROPTAIL, BEST_ROUTE, "[]"));
        insta::assert_snapshot!(format!("rate-{kind}"), t);
    }
}

#[test]
fn every_queue_discipline_at_the_bottleneck_under_pcon() {
    for &kind in QueueConfig::TYPES {
        let q = format!(r#"{{ type = "{kind}" }}"#);
        let t = table(&dumbbell(PCON_WINDOW, PCON_WINDOW, &q, BEST_ROUTE, "[]"));
        insta::assert_snapshot!(format!("queue-{kind}"), t);
    }
}

#[test]
fn every_strategy_at_the_first_router() {
    for &kind in StrategyConfig::TYPES {
        let s = format!(r#"{{ type = "{kind}" }}"#);
        let t = table(&dumbbell(PCON_WINDOW, PCON_WINDOW, DROPTAIL, &s, "[]"));
        insta::assert_snapshot!(format!("strategy-{kind}"), t);
    }
}

#[test]
fn every_router_module_at_the_first_router() {
    // Consumers that follow rate stamps under the stamping modules, and back off on
    // Congestion NACKs under the limiting one.
    for &kind in ModuleConfig::TYPES {
        let (m, c) = match kind {
            "static-rate-stamp" => {
                (r#"[{ type = "static-rate-stamp", rate = 300.0 }]"#.to_string(), r#"rate = { type = "mircc" }"#)
            }
            "mircc" => (r#"[{ type = "mircc" }]"#.to_string(), r#"rate = { type = "mircc" }"#),
            _ => (format!(r#"[{{ type = "{kind}" }}]"#), r#"rate = { type = "aimd-rate" }"#),
        };
        let t = table(&dumbbell(c, c, DROPTAIL, BEST_ROUTE, &m));
        insta::assert_snapshot!(format!("module-{kind}"), t);
    }
}
