//! Multipath forwarding end to end: PCON's strategy moves traffic off a path whose Data come back
//! marked, and back onto it when the other path marks instead; PI and CF split by pending
//! Interests; RAAQM's route labels tell the paths apart.
//!
//! ```text
//!            ┌── a: R ─100M─ M ─10M─ P1     (C2 ─100M─ M loads path a for the first 10 s)
//!   C ─100M─ R
//!            └── b: R ─5M─ P2
//! ```

use ndncc_core::api::{run, RunOptions, RunOutput};
use ndncc_core::scenario::load_str;

fn two_paths(strategy: &str, window: &str, seconds: u64) -> RunOutput {
    let text = format!(
        r#"
[simulation]
duration = "{seconds}s"
seed = 1

[defaults.link]
bandwidth = "100Mbps"
delay = "5ms"
queue = {{ type = "codel-mark", limit = 200 }}

[nodes]
C = {{}}
C2 = {{}}
R = {{ strategy = {strategy} }}
M = {{}}
P1 = {{}}
P2 = {{}}

[links.C-R]
[links.R-M]
[links.M-P1]
bandwidth = "10Mbps"
[links.C2-M]
[links.R-P2]
bandwidth = "5Mbps"
cost = 5

[routing]
mode = "computed"
multipath = true

[apps.P1]
type = "producer"
node = "P1"
prefix = "/p"
overhead = "64B"            # fixed sizes: the shares below were measured with them

[apps.P2]
type = "producer"
node = "P2"
prefix = "/p"
overhead = "64B"            # fixed sizes: the shares below were measured with them

[apps.C]
type = "consumer"
node = "C"
prefix = "/p/c"
interest_size = "40B"
window = {window}

[apps.C2]
type = "consumer"
node = "C2"
prefix = "/p/x"
interest_size = "40B"
stop = "10s"
window = {{ type = "pcon", law = "aimd" }}

[record]
interval = "500ms"
events = false
faces = ["R->M", "R->P2"]
"#
    );
    let sc = load_str(&text, "multipath.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    run(&sc, &RunOptions::default(), &mut |_| true).unwrap_or_else(|e| panic!("{e}"))
}

/// The face series `metric` of `face`, as (t, value).
fn face_series(out: &RunOutput, face: &str, metric: &str) -> Vec<(f64, f64)> {
    let f = &out.faces;
    let e = f.entities.iter().position(|x| x == face).expect("face recorded");
    let m = f.metrics.iter().position(|x| x == metric).expect("metric recorded");
    (0..f.t.len())
        .filter(|&i| f.entity[i] as usize == e && f.metric[i] as usize == m)
        .map(|i| (f.t[i], f.value[i]))
        .collect()
}

fn at(series: &[(f64, f64)], t: f64) -> f64 {
    series.iter().rev().find(|(s, _)| *s <= t).map_or(f64::NAN, |(_, v)| *v)
}

fn value(out: &RunOutput, entity: &str, metric: &str) -> f64 {
    out.summary.iter().find(|r| r.entity == entity && r.metric == metric).map_or(f64::NAN, |r| r.value)
}

#[test]
fn pcon_moves_traffic_off_a_marking_path_and_back_when_the_other_path_marks() {
    let out = two_paths(r#"{ type = "pcon" }"#, r#"{ type = "pcon", law = "aimd" }"#, 30);
    let a = face_series(&out, "R->M", "fw_perc");
    let b = face_series(&out, "R->P2", "fw_perc");
    // Path a (the shorter) starts with everything; the first marks arrive within 0.5 s.
    assert!(a.first().is_some_and(|x| x.1 >= 0.95), "{a:?}");
    // While C2 loads path a, marks from it move C's share to path b.
    let shifted = at(&a, 9.5);
    assert!(shifted < 0.7, "share of path a at 9.5 s: {shifted}");
    assert!((at(&a, 9.5) + at(&b, 9.5) - 1.0).abs() < 1e-9);
    // Once C2 stops, path b (5 Mbps) is C's bottleneck; its marks move the share back.
    let back = at(&a, 29.5);
    assert!(back > shifted + 0.05, "share of path a: {shifted} at 9.5 s, {back} at 29.5 s");
    // Both paths carried Data for C: more than either path alone could.
    assert!(value(&out, "C", "throughput_kbps") > 5_000.0);
}

#[test]
fn pi_and_cf_send_on_both_paths_and_report_their_shares() {
    for s in [r#"{ type = "pi" }"#, r#"{ type = "cf" }"#] {
        let out = two_paths(s, r#"{ type = "pcon", law = "aimd" }"#, 10);
        let a = face_series(&out, "R->M", "fw_share");
        let b = face_series(&out, "R->P2", "fw_share");
        let (sa, sb) = (at(&a, 9.5), at(&b, 9.5));
        assert!(sa > 0.0 && sb > 0.0, "{s}: shares {sa} and {sb}");
        assert!((sa + sb - 1.0).abs() < 1e-9, "{s}: shares {sa} + {sb}");
    }
}

#[test]
fn raaqm_sees_one_route_label_per_path() {
    let out = two_paths(r#"{ type = "pcon" }"#, r#"{ type = "raaqm" }"#, 10);
    assert!(value(&out, "C", "throughput_kbps") > 1_000.0);
    let paths = out
        .series
        .metrics
        .iter()
        .position(|m| m == "raaqm_paths")
        .map(|m| {
            (0..out.series.t.len()).filter(move |&i| out.series.metric[i] as usize == m).map(|i| out.series.value[i])
        })
        .and_then(|v| v.reduce(f64::max));
    // PCON's probing sends some Interests on path b too: two labels.
    assert_eq!(paths, Some(2.0));
}
