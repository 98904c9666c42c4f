//! Scenario text → World → run, through the public API.

use ndncc_core::api::{run, RunOptions};
use ndncc_core::scenario::load_str;

const DUMBBELL: &str = r#"
[simulation]
duration = "5s"
seed = 3

[defaults.link]
bandwidth = "100Mbps"
delay = "5ms"
queue = { type = "droptail", packets = 100 }

[nodes]
C1 = {}
C2 = {}
R1 = {}
R2 = { content_store = { capacity = 100 } }
P = {}

[links.C1-R1]
[links.C2-R1]
[links.R1-R2]
bandwidth = "10Mbps"
delay = "10ms"
loss = { type = "bernoulli", p = "0.5%" }
[links.R2-P]

[apps.P]
type = "producer"
node = "P"
prefix = "/p"
payload = "1000B"
overhead = "50B"

[apps.C1]
type = "consumer"
node = "C1"
prefix = "/p/a"
window = { type = "aimd" }

[apps.C2]
type = "consumer"
node = "C2"
prefix = "/p/b"
start = "1s"
stop = "4s"
window = { type = "pcon", law = "cubic" }
"#;

fn value(out: &ndncc_core::api::RunOutput, entity: &str, metric: &str) -> f64 {
    out.summary.iter().find(|r| r.entity == entity && r.metric == metric).map_or(f64::NAN, |r| r.value)
}

#[test]
fn a_toml_dumbbell_runs_with_computed_routes_and_conserves_interests() {
    let sc = load_str(DUMBBELL, "dumbbell.toml", &[]).expect("valid scenario");
    let out = run(&sc, &RunOptions::default(), &mut |_| true).expect("runs");
    assert_eq!(out.seed, 3);
    // Every Data the producer sent for /p/a and /p/b reached one of the two consumers at most once.
    let received = value(&out, "C1", "data_received") + value(&out, "C2", "data_received");
    assert!(received > 1000.0, "{received}");
    assert!(received <= value(&out, "P", "data_sent"));
    assert_eq!(value(&out, "run", "conservation_ok"), 1.0);
    // The bottleneck (10 Mbps, Data direction R2->R1) carried at most its capacity.
    let util = out.summary.iter().find(|r| r.entity == "R2->R1" && r.metric == "utilisation").unwrap().value;
    assert!(util > 0.5 && util <= 1.0, "{util}");
    assert!(out.series.metrics.iter().any(|m| m == "window"));
    assert!(out.faces.entities.iter().any(|e| e == "R1->R2"));
}

#[test]
fn the_same_scenario_and_seed_give_identical_outputs() {
    let sc = load_str(DUMBBELL, "dumbbell.toml", &[]).unwrap();
    let a = run(&sc, &RunOptions::default(), &mut |_| true).unwrap();
    let b = run(&sc, &RunOptions::default(), &mut |_| true).unwrap();
    assert_eq!(a.series.t, b.series.t);
    assert_eq!(a.series.value, b.series.value);
    assert_eq!(a.faces.value, b.faces.value);
    assert_eq!(format!("{:?}", a.summary), format!("{:?}", b.summary));
    let c = run(&sc, &RunOptions { seed: Some(4), ..Default::default() }, &mut |_| true).unwrap();
    assert_ne!(a.series.value, c.series.value);
}

#[test]
fn an_override_changes_the_run() {
    let base = load_str(DUMBBELL, "dumbbell.toml", &[]).unwrap();
    let slow = load_str(DUMBBELL, "dumbbell.toml", &["links.R1-R2.bandwidth=2Mbps".to_string()]).unwrap();
    let a = run(&base, &RunOptions::default(), &mut |_| true).unwrap();
    let b = run(&slow, &RunOptions::default(), &mut |_| true).unwrap();
    let total = |o: &ndncc_core::api::RunOutput| value(o, "C1", "data_received") + value(o, "C2", "data_received");
    assert!(total(&b) < total(&a) / 2.0, "{} vs {}", total(&b), total(&a));
}

#[test]
fn a_progress_callback_returning_false_interrupts_the_run() {
    let sc = load_str(DUMBBELL, "dumbbell.toml", &[]).unwrap();
    let mut calls = 0;
    let r = run(&sc, &RunOptions { seed: None, progress_every_s: 1.0, ..Default::default() }, &mut |_| {
        calls += 1;
        calls < 2
    });
    assert!(matches!(r, Err(ndncc_core::api::Error::Interrupted)));
}
