//! The random sources a scenario can have, run end to end: start jitter, request arrivals, a
//! Zipf catalogue, drawn link values. Each gives the same run for the same seed and another
//! run for another seed; a scenario with none gives the same run for every seed.

use ndncc_core::api::{run, RunOptions, RunOutput};
use ndncc_core::scenario::{load_str, Scenario};
use proptest::prelude::*;

/// C —(10 Mbps, 10 ms)— P: one producer, one window consumer. Nothing random.
const TWO_NODE: &str = r#"
[simulation]
duration = "10s"

[nodes]
C = {}
P = {}

[links.C-P]
bandwidth = "10Mbps"
delay = "10ms"

[apps.P]
type = "producer"
node = "P"
prefix = "/p"
payload = "1000B"

[apps.C]
type = "consumer"
node = "C"
prefix = "/p"
window = { type = "fixed", window = 10 }

[record]
interval = "10ms"
"#;

fn scenario(overrides: &[&str]) -> Scenario {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    load_str(TWO_NODE, "two-node.toml", &o).unwrap_or_else(|e| panic!("{e}"))
}

fn run_seed(s: &Scenario, seed: u64) -> RunOutput {
    run(s, &RunOptions { seed: Some(seed), ..RunOptions::default() }, &mut |_| true).unwrap_or_else(|e| panic!("{e}"))
}

fn value(out: &RunOutput, entity: &str, metric: &str) -> f64 {
    out.summary.iter().find(|r| r.entity == entity && r.metric == metric).map_or(f64::NAN, |r| r.value)
}

/// Everything a run reports that depends on the simulation (not on the wall clock).
fn fingerprint(out: &RunOutput) -> String {
    let rows: Vec<String> = out
        .summary
        .iter()
        .filter(|r| !r.metric.contains("wall"))
        .map(|r| format!("{} {} {}", r.entity, r.metric, r.value.to_bits()))
        .collect();
    format!("{}\n{:?}\n{:?}", rows.join("\n"), out.series.value, out.faces.value)
}

/// The time of the first fixed-interval sample at which `entity` had sent an Interest [s].
fn first_send_s(out: &RunOutput, entity: &str) -> f64 {
    let s = &out.series;
    let e = s.entities.iter().position(|x| x == entity).expect("entity") as u32;
    let m = s.metrics.iter().position(|x| x == "interests_sent").expect("metric") as u32;
    (0..s.len()).find(|&i| s.entity[i] == e && s.metric[i] == m && s.value[i] > 0.0).map_or(f64::NAN, |i| s.t[i])
}

#[test]
fn a_scenario_without_random_sources_gives_the_same_run_for_every_seed() {
    let s = scenario(&[]);
    assert!(s.random_sources().is_empty());
    assert_eq!(fingerprint(&run_seed(&s, 1)), fingerprint(&run_seed(&s, 2)));
}

#[test]
fn each_random_source_repeats_with_its_seed_and_changes_with_another() {
    let poisson = r#"apps.C.arrivals={ type = "poisson", rate = 20.0 }"#;
    let periodic = r#"apps.C.arrivals={ type = "periodic", rate = 20.0 }"#;
    let cases: [&[&str]; 6] = [
        &[r#"apps.C.start_jitter="2s""#],
        &[poisson, "apps.C.segments=5"],
        &[r#"apps.C.arrivals={ type = "on-off", rate = 50.0, on = "500ms", off = "500ms" }"#],
        &[periodic, r#"apps.C.catalogue={ objects = 50, zipf = 0.8 }"#, r#"nodes.C.content_store={ capacity = 10 }"#],
        &[r#"links.C-P.delay={ type = "uniform", min = "5ms", max = "15ms" }"#],
        &[r#"links.C-P.bandwidth={ type = "lognormal", mean = "2Mbps", sd = "1Mbps" }"#],
    ];
    for overrides in cases {
        let s = scenario(overrides);
        assert_eq!(s.random_sources().len(), 1, "{overrides:?}: {:?}", s.random_sources());
        let (a, b, c) = (run_seed(&s, 1), run_seed(&s, 1), run_seed(&s, 2));
        assert_eq!(fingerprint(&a), fingerprint(&b), "{overrides:?}: seed 1 twice");
        assert_ne!(fingerprint(&a), fingerprint(&c), "{overrides:?}: seeds 1 and 2");
    }
}

#[test]
fn start_jitter_moves_the_start_within_its_range() {
    // start 1 s, jitter 500 ms: the first Interest goes in [1 s, 1.5 s), seen by the 10 ms
    // samples at most 10 ms later. Over 12 seeds the starts are spread, not one value.
    let s = scenario(&[r#"apps.C.start="1s""#, r#"apps.C.start_jitter="500ms""#]);
    let starts: Vec<f64> = (1..=12).map(|seed| first_send_s(&run_seed(&s, seed), "C")).collect();
    assert!(starts.iter().all(|t| (1.0..=1.51).contains(t)), "{starts:?}");
    let spread = starts.iter().cloned().fold(f64::MIN, f64::max) - starts.iter().cloned().fold(f64::MAX, f64::min);
    assert!(spread > 0.2, "{starts:?}");
    // Without jitter, the start is the configured one.
    let plain = scenario(&[r#"apps.C.start="1s""#]);
    assert!((first_send_s(&run_seed(&plain, 1), "C") - 1.0).abs() < 0.011);
}

#[test]
fn poisson_requests_come_at_their_rate_and_each_fetches_an_object() {
    // 20 requests/s for 100 s: 2,000 ± 45 (Poisson); each fetches 5 segments over a link that
    // carries them easily, so nearly all complete, each within a few round trips.
    let s = scenario(&[
        r#"simulation.duration="100s""#,
        r#"apps.C.arrivals={ type = "poisson", rate = 20.0 }"#,
        "apps.C.segments=5",
    ]);
    let out = run_seed(&s, 7);
    let requests = value(&out, "C", "requests");
    assert!((1_820.0..=2_180.0).contains(&requests), "{requests} requests");
    let completed = value(&out, "C", "requests_completed");
    assert!(completed >= requests - 5.0, "{completed} of {requests} completed");
    let data = value(&out, "C", "data_received");
    assert!(data >= 5.0 * completed && data <= 5.0 * requests, "{data} Data for {completed} of {requests}");
    let t = value(&out, "C", "mean_request_time_s");
    // One round trip is 20 ms plus serialisation; five segments under a window of 10 go at once.
    assert!((0.020..0.060).contains(&t), "mean request time {t}");
    assert_eq!(value(&out, "C", "requests_joined"), 0.0, "new objects never join");
    assert_eq!(value(&out, "run", "conservation_ok"), 1.0);
}

/// The LRU hit ratio under Zipf(α) requests to K objects with a cache of `capacity`, by Che's
/// approximation: object i is a hit with probability 1 − e^(−p_i·T), where the characteristic
/// time T solves Σ (1 − e^(−p_i·T)) = capacity.
fn che_hit_ratio(objects: usize, alpha: f64, capacity: f64) -> f64 {
    let w: Vec<f64> = (1..=objects).map(|k| (k as f64).powf(-alpha)).collect();
    let total: f64 = w.iter().sum();
    let p: Vec<f64> = w.iter().map(|x| x / total).collect();
    let filled = |t: f64| p.iter().map(|pi| 1.0 - (-pi * t).exp()).sum::<f64>();
    let (mut lo, mut hi) = (0.0, 1e9);
    for _ in 0..200 {
        let mid = (lo + hi) / 2.0;
        if filled(mid) < capacity {
            lo = mid;
        } else {
            hi = mid;
        }
    }
    p.iter().map(|pi| pi * (1.0 - (-pi * lo).exp())).sum()
}

#[test]
fn a_zipf_catalogue_gives_the_hit_ratio_an_lru_cache_should_have() {
    // Single-segment objects requested at 50/s from a catalogue of 200 with α = 0.8, through an
    // LRU Content Store of 20 on the consumer's node; 400 s give 20,000 requests. A fast link
    // keeps misses short, so few requests join a fetch under way.
    let expected = che_hit_ratio(200, 0.8, 20.0);
    for (alpha, want) in [(0.8, expected), (0.0, 20.0 / 200.0)] {
        let s = scenario(&[
            r#"simulation.duration="400s""#,
            r#"links.C-P.delay="1ms""#,
            r#"links.C-P.bandwidth="1Gbps""#,
            "nodes.C.content_store={ capacity = 20 }",
            r#"apps.C.arrivals={ type = "poisson", rate = 50.0 }"#,
            &format!("apps.C.catalogue={{ objects = 200, zipf = {alpha} }}"),
            r#"record.interval="0s""#,
        ]);
        let out = run_seed(&s, 3);
        let asked = value(&out, "C", "requests") - value(&out, "C", "requests_joined");
        let hit = value(&out, "C", "cs_hits") / asked;
        assert!((hit - want).abs() < 0.02, "alpha {alpha}: hit ratio {hit}, Che's approximation {want}");
    }
    assert!(expected > 0.3, "a skewed catalogue makes a small cache useful: {expected}");
}

#[test]
fn a_drawn_delay_is_used_by_the_link_and_stays_in_its_range() {
    // Window 1, 1000-byte payloads: RTT = 2 × delay + serialisation (well under 2 ms).
    let s = scenario(&[
        "apps.C.window={ type = \"fixed\", window = 1 }",
        r#"links.C-P.delay={ type = "uniform", min = "5ms", max = "15ms" }"#,
    ]);
    let rtts: Vec<f64> = (1..=8).map(|seed| value(&run_seed(&s, seed), "C", "mean_rtt_ms")).collect();
    assert!(rtts.iter().all(|r| (10.0..32.0).contains(r)), "{rtts:?}");
    let distinct = rtts.iter().map(|r| r.to_bits()).collect::<std::collections::BTreeSet<_>>();
    assert!(distinct.len() >= 7, "{rtts:?}");
    // The scenario itself keeps the distribution (and shows its middle as the value).
    assert_eq!(s.links["C-P"].delay.to_string(), "10ms");
    assert!(s.to_toml().contains("type = \"uniform\""), "{}", s.to_toml());
}

#[test]
fn drawn_values_and_arrivals_survive_a_round_trip_through_toml() {
    let s = scenario(&[
        r#"links.C-P.delay={ type = "normal", mean = "10ms", sd = "2ms" }"#,
        r#"links.C-P.bandwidth={ type = "uniform", min = "5Mbps", max = "15Mbps" }"#,
        r#"apps.C.start_jitter="250ms""#,
        r#"apps.C.arrivals={ type = "on-off", rate = 10.0, on = "1s", off = "2s", periods = "fixed" }"#,
        r#"apps.C.catalogue={ objects = 1000, zipf = 1.1 }"#,
    ]);
    let again = load_str(&s.to_toml(), "two-node.toml", &[]).unwrap_or_else(|e| panic!("{e}\n{}", s.to_toml()));
    assert_eq!(again, s);
}

/// (line added to the consumer's or the link's table, key the error names, words in its message)
const BAD: &[(&str, &str, &str)] = &[
    (r#"start_jitter = "11s""#, "apps.C.start_jitter", "beyond the end of the simulation"),
    (r#"catalogue = { objects = 10, zipf = 1.0 }"#, "apps.C.catalogue", "give `arrivals` too"),
    (r#"arrivals = { type = "poisson", rate = 0.0 }"#, "apps.C.arrivals.rate", "must be a rate"),
    (r#"arrivals = { type = "poisson" }"#, "apps.C.arrivals.rate", "missing field 'rate'"),
    (r#"arrivals = { type = "on-off", rate = 1.0, on = "0s", off = "1s" }"#, "apps.C.arrivals.on", "must be > 0"),
    (
        r#"arrivals = { type = "burst", rate = 1.0 }"#,
        "apps.C.arrivals.type",
        "unknown variant 'burst', expected one of poisson, periodic, on-off",
    ),
    (r#"delay = { type = "uniform", min = "5ms", max = "5ms" }"#, "links.C-P.delay.max", "must be above `min`"),
    (r#"delay = { type = "normal", mean = "5ms", sd = "6ms" }"#, "links.C-P.delay.sd", "at most `mean`"),
    (r#"delay = { type = "uniform", min = "5ms", max = 7 }"#, "links.C-P.delay", "has no unit"),
    (
        r#"bandwidth = { type = "gamma", mean = "1Mbps" }"#,
        "links.C-P.bandwidth.type",
        "unknown variant 'gamma', expected one of uniform, normal, lognormal",
    ),
];

#[test]
fn bad_random_settings_are_errors_that_name_their_key() {
    for (line, key, words) in BAD {
        // A link setting replaces the link's own line of that key; a consumer's is added.
        let text = match line.split_once(" = ") {
            Some(("delay", _)) => TWO_NODE.replace("delay = \"10ms\"", line),
            Some(("bandwidth", _)) => TWO_NODE.replace("bandwidth = \"10Mbps\"", line),
            _ => TWO_NODE.replace(
                "window = { type = \"fixed\", window = 10 }",
                &format!("{line}\nwindow = {{ type = \"fixed\", window = 10 }}"),
            ),
        };
        let e = load_str(&text, "two-node.toml", &[]).expect_err(line);
        assert_eq!(e.key.as_deref(), Some(*key), "{line}: {e}");
        assert!(e.message.contains(words), "{line}: {e}");
        assert!(e.line.is_some(), "{line}: {e}");
    }
}

/// Pieces that may stand in for a value of a random setting.
const VALUES: &[&str] = &[
    "\"0s\"",
    "\"5ms\"",
    "\"1e30s\"",
    "\"-1ms\"",
    "\"2Mbps\"",
    "0",
    "-1",
    "1e300",
    "nan",
    "inf",
    "{}",
    "[]",
    "\"x\"",
    "{ type = \"uniform\" }",
    "{ type = \"normal\", mean = \"1ms\", sd = \"1ms\" }",
    "18446744073709551615",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 300, failure_persistence: None, ..ProptestConfig::default() })]

    /// Any value in any of the new keys: the loader gives a scenario or an error naming the
    /// file, never a panic; what loads also runs (briefly) without a panic.
    #[test]
    fn random_settings_with_any_values_never_panic(
        picks in prop::collection::vec((0usize..11, 0usize..VALUES.len()), 1..4)
    ) {
        let keys = [
            "links.C-P.delay", "links.C-P.bandwidth", "apps.C.start_jitter",
            "apps.C.arrivals", "apps.C.catalogue",
        ];
        let templates = [
            "{ type = \"uniform\", min = V, max = \"9ms\" }",
            "{ type = \"lognormal\", mean = V, sd = \"1Mbps\" }",
            "{ type = \"poisson\", rate = V }",
            "{ type = \"on-off\", rate = 5.0, on = V, off = \"1s\" }",
            "{ objects = V, zipf = 0.9 }",
            "{ objects = 50, zipf = V }",
        ];
        let mut overrides = vec!["simulation.duration=\"2s\"".to_string()];
        for (slot, v) in picks {
            let value = VALUES[v];
            let text = if slot < keys.len() {
                format!("{}={value}", keys[slot])
            } else {
                let t = templates[slot - keys.len()];
                let key = if t.contains("objects") { "apps.C.catalogue" } else if t.contains("rate") { "apps.C.arrivals" } else { "links.C-P.delay" };
                format!("{key}={}", t.replace('V', value))
            };
            overrides.push(text);
        }
        match load_str(TWO_NODE, "fuzz.toml", &overrides) {
            Ok(sc) => {
                let opts = RunOptions { stall_limit: Some(100_000), ..RunOptions::default() };
                let _ = run(&sc, &opts, &mut |_| true);
            }
            Err(e) => prop_assert!(e.to_string().starts_with("fuzz.toml"), "{}", e),
        }
    }
}

#[test]
fn the_random_arrivals_example_varies_with_its_seed() {
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../docs/examples/random-arrivals.toml");
    let s = ndncc_core::scenario::load_file(&path, &[]).unwrap_or_else(|e| panic!("{e}"));
    let sources = s.random_sources();
    for key in ["apps.C1.start_jitter", "apps.C1.arrivals", "apps.C1.catalogue", "apps.C2.arrivals"] {
        assert!(sources.iter().any(|x| x.starts_with(key)), "{key} missing from {sources:?}");
    }
    let runs: Vec<RunOutput> = (1..=3).map(|seed| run_seed(&s, seed)).collect();
    let requests: Vec<f64> = runs.iter().map(|o| value(o, "C1", "requests")).collect();
    let hits: Vec<f64> = runs.iter().map(|o| value(o, "R", "cs_hits")).collect();
    // 4 requests/s over the 28 to 30 s after the jittered start: about 115 each.
    assert!(requests.iter().all(|r| (70.0..170.0).contains(r)), "{requests:?}");
    assert!(requests[0] != requests[1] || requests[1] != requests[2], "{requests:?}");
    assert!(hits.iter().all(|h| *h > 0.0), "the cache answers popular objects: {hits:?}");
    for o in &runs {
        assert_eq!(value(o, "run", "conservation_ok"), 1.0);
        assert_eq!(value(o, "C1", "requests_failed"), 0.0);
    }
}
