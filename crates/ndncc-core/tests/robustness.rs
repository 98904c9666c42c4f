//! Inputs that once hung, crashed or ran with silently wrong values: each is now rejected with a
//! message naming its key, or runs to completion, or stops with a "stalled" error that names
//! what was involved.

use ndncc_core::api::{run, RunOptions};
use ndncc_core::instantiate::build_world;
use ndncc_core::scenario::{load_str, AppSpec, ScenarioError, MAX_IN_FLIGHT, MIN_IN_FLIGHT_LIMIT};
use ndncc_core::time::SimDuration;
use ndncc_core::world::RunEnd;

/// A consumer C – R – P producer line with the pieces under test put in.
fn scenario(c_node: &str, extra_c: &str, extra: &str) -> String {
    format!(
        r#"
[simulation]
duration = "2s"

[defaults.link]
bandwidth = "10Mbps"
delay = "5ms"

[nodes]
C = {{}}
R = {{}}
P = {{}}

[links.C-R]
[links.R-P]

[apps.P]
type = "producer"
node = "P"
prefix = "/p"

[apps.C]
type = "consumer"
node = "{c_node}"
prefix = "/p"
window = {{ type = "aimd" }}
{extra_c}

{extra}
"#
    )
}

fn load_err(text: &str) -> ScenarioError {
    match load_str(text, "x.toml", &[]) {
        Ok(_) => panic!("expected a validation error for:\n{text}"),
        Err(e) => e,
    }
}

fn rejected(text: &str, key: &str) -> ScenarioError {
    let e = load_err(text);
    assert_eq!(e.key.as_deref(), Some(key), "{e}");
    assert!(e.line.is_some(), "{e}");
    e
}

#[test]
fn a_consumer_answered_in_zero_time_on_its_producers_node_is_rejected() {
    let e = rejected(&scenario("P", "", ""), "apps.C.node");
    assert!(e.message.contains("processing_delay"), "{e}");
    // With a processing delay, time advances with every Data and the run completes.
    let text = scenario("P", "", "")
        .replace("prefix = \"/p\"\n\n[apps.C]", "prefix = \"/p\"\nprocessing_delay = \"1ms\"\n\n[apps.C]")
        .replace("window = { type = \"aimd\" }", "window = { type = \"fixed\", window = 10 }");
    let sc = load_str(&text, "x.toml", &[]).unwrap();
    let out = run(&sc, &RunOptions::default(), &mut |_| true).unwrap();
    let data = out.summary.iter().find(|r| r.entity == "C" && r.metric == "data_received").unwrap().value;
    // 10 Interests in flight, each answered after 1 ms: 10 per ms for 2 s.
    assert!((19_000.0..=20_000.0).contains(&data), "{data}");
}

#[test]
fn static_routing_without_a_route_on_the_consumers_node_is_rejected() {
    let text =
        scenario("C", "", "[routing]\nmode = \"static\"\n\n[[routes]]\nnode = \"R\"\nprefix = \"/p\"\nnexthop = \"P\"");
    let e = rejected(&text, "apps.C.prefix");
    assert!(e.message.contains("static"), "{e}");
}

#[test]
fn a_consumer_whose_own_node_refuses_and_it_resends_at_once_is_rejected_and_stops_as_stalled() {
    // A window of 50 against an Interest limit of 2 on the consumer's own node: the other 48
    // would be NACKed at once and the consumer (which does not slow down on NACKs) would resend
    // them at once. Validation refuses it, naming the module.
    let text = scenario("C", "", "[nodes.C]\nmodules = [{ type = \"interest-limit\", limit = 2 }]")
        .replace("[nodes]\nC = {}\n", "[nodes]\n")
        .replace("window = { type = \"aimd\" }", "window = { type = \"fixed\", window = 50 }");
    rejected(&text, "nodes.C.modules[0]");
    // A world built in code without validation still stops as a stall, not a hang: move the
    // module from the router (valid) to the consumer's node after loading.
    let valid =
        text.replace("[nodes.C]", "[nodes.R]").replace("[nodes]\n", "[nodes]\nC = {}\n").replace("R = {}\n", "");
    let mut sc = load_str(&valid, "x.toml", &[]).unwrap_or_else(|e| panic!("{e}\n{valid}"));
    let modules = std::mem::take(&mut sc.nodes.get_mut("R").expect("node R").modules);
    sc.nodes.get_mut("C").expect("node C").modules = modules;
    let mut world = build_world(&sc, 1).unwrap_or_else(|e| panic!("{e}"));
    world.set_stall_limit(100_000);
    match world.run(SimDuration::ZERO, &mut |_| true) {
        RunEnd::Stalled(m) => {
            assert!(m.contains("simulated time stopped at 0.000000 s"), "{m}");
            assert!(m.contains("node C"), "{m}");
        }
        other => panic!("expected a stall, got {other:?}"),
    }
}

#[test]
fn huge_or_non_finite_values_are_rejected_with_their_key() {
    let cases = [
        ("lifetime = \"1e11s\"", "apps.C.lifetime"),
        ("rtt = { max_backoff = 4294967295 }", "apps.C.rtt.max_backoff"),
        ("rtt = { k = nan }", "apps.C.rtt.k"),
        ("rtt = { k = inf }", "apps.C.rtt.k"),
        ("interest_size = \"4294967296B\"", "apps.C.interest_size"),
        ("segments = 100000000000000", "apps.C.segments"),
        ("interest_bucket = 1000000000", "apps.C.interest_bucket"),
    ];
    for (line, key) in cases {
        let e = rejected(&scenario("C", line, ""), key);
        assert!(!e.message.is_empty());
    }
    let big_window =
        scenario("C", "", "").replace("window = { type = \"aimd\" }", "window = { type = \"fixed\", window = 1e9 }");
    rejected(&big_window, "apps.C.window.window");
    let tiny_rate =
        scenario("C", "", "").replace("window = { type = \"aimd\" }", "rate = { type = \"constant\", rate = 1e-300 }");
    rejected(&tiny_rate, "apps.C.rate.rate");
    let big_payload = scenario("C", "", "")
        .replace("prefix = \"/p\"\n\n[apps.C]", "prefix = \"/p\"\npayload = \"4294967296B\"\n\n[apps.C]");
    rejected(&big_payload, "apps.P.payload");
    let cs = scenario("C", "", "").replace("R = {}", "R = { content_store = { capacity = 1000000000 } }");
    rejected(&cs, "nodes.R.content_store.capacity");
}

#[test]
fn times_beyond_the_clock_are_parse_errors_not_silent_caps() {
    let text = scenario("C", "", "").replace("duration = \"2s\"", "duration = \"1e30s\"");
    let e = load_err(&text);
    assert_eq!(e.key.as_deref(), Some("simulation.duration"), "{e}");
    assert!(e.message.contains("too long"), "{e}");
    let rto = scenario("C", "rtt = { max_rto = \"1e30s\" }", "");
    assert!(load_err(&rto).message.contains("too long"));
}

#[test]
fn unknown_keys_inside_a_strategy_are_rejected() {
    let text = scenario("C", "", "").replace("R = {}", "R = { strategy = { type = \"best-route\", bogus = 1 } }");
    let e = load_err(&text);
    assert!(e.message.contains("bogus"), "{e}");
}

#[test]
fn a_link_with_three_endpoints_is_rejected() {
    let text = scenario("C", "", "").replace("[links.C-R]", "[links.C-R]\nendpoints = [\"C\", \"R\", \"Nowhere\"]");
    let e = load_err(&text);
    assert!(e.key.as_deref().is_some_and(|k| k.starts_with("links.C-R")), "{e}");
}

/// A consumer and its producer on node A, the producer answering after 10 µs; `extra` goes
/// into the file (a link that makes the network big, say).
fn one_node(window: &str, extra: &str) -> String {
    format!(
        r#"
[simulation]
duration = "10s"

[nodes]
A = {{}}
B = {{}}

{extra}

[apps.P]
type = "producer"
node = "A"
prefix = "/p"
processing_delay = "10us"

[apps.C]
type = "consumer"
node = "A"
prefix = "/p"
window = {window}
"#
    )
}

/// A link that holds and answers more Interests than any consumer may have in flight, so the
/// consumer beside its producer gets the largest limit, a million.
const BIG_NETWORK: &str = "[links.A-B]\nbandwidth = \"100Gbps\"\ndelay = \"1s\"";

fn row(out: &ndncc_core::api::RunOutput, entity: &str, metric: &str) -> Option<f64> {
    out.summary.iter().find(|r| r.entity == entity && r.metric == metric).map(|r| r.value)
}

#[test]
fn a_run_stuck_in_one_event_still_reaches_its_liveness_checks() {
    // A window that doubles at every answer, up to a million Interests in flight: soon one
    // event carries hundreds of thousands of packets of work. The progress callback is called
    // between slices of that work too, so a run can be stopped inside such an event: asked to
    // stop at its fourth call, the run ends there, a few milliseconds into simulated time.
    let text = one_node("{ type = \"aimd\" }", BIG_NETWORK);
    let sc = load_str(&text, "one-node.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    let Some(AppSpec::Consumer(c)) = sc.apps.get("C") else { panic!("no consumer C") };
    assert_eq!(sc.in_flight_limit(c), MAX_IN_FLIGHT);
    let mut world = build_world(&sc, 1).unwrap_or_else(|e| panic!("{e}"));
    let mut calls = Vec::new();
    let end = world.run(SimDuration::ZERO, &mut |t| {
        calls.push(t);
        calls.len() < 4
    });
    assert!(matches!(end, RunEnd::Interrupted), "{end:?}");
    let last = calls.last().copied().unwrap_or_default();
    assert!(last.as_secs_f64() < 0.01, "interrupted only at {last}");
    // Far fewer events than the 65,536 between event-count checks: the calls came from the work.
    assert!(world.counters().events < 65_536, "{} events", world.counters().events);
}

#[test]
fn a_crawl_of_busy_events_reaches_its_liveness_checks_by_the_packets_handled() {
    // Beside its producer (1 ms), a thousand Interests in flight: each event hands on about a
    // thousand packets, and 65,536 events would take a minute. The progress callback comes every
    // 65,536 packets handled too, so its fourth call comes after a few hundred events.
    let text = one_node("{ type = \"aimd\" }", "").replace("\"10us\"", "\"1ms\"");
    let sc = load_str(&text, "one-node.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    let mut world = build_world(&sc, 1).unwrap_or_else(|e| panic!("{e}"));
    let mut calls = 0;
    let end = world.run(SimDuration::ZERO, &mut |_| {
        calls += 1;
        calls < 4
    });
    assert!(matches!(end, RunEnd::Interrupted), "{end:?}");
    assert!(world.counters().events < 5_000, "{} events", world.counters().events);
}

#[test]
fn a_window_that_grows_without_a_bottleneck_stops_at_the_in_flight_limit() {
    // Beside its producer, with no link to cross, nothing slows an AIMD window: it stops at the
    // least limit, 1,000 Interests in flight, and the summary says when it got there.
    let text = one_node("{ type = \"aimd\" }", "").replace("duration = \"10s\"", "duration = \"5ms\"");
    let sc = load_str(&text, "one-node.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    let out = run(&sc, &RunOptions::default(), &mut |_| true).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(row(&out, "C", "in_flight_limit"), Some(MIN_IN_FLIGHT_LIMIT as f64));
    let at = row(&out, "C", "in_flight_limit_reached_s").expect("reached");
    assert!(at > 0.0 && at < 0.001, "{at}");
    // 1,000 answers every 10 µs after the ramp: about 500,000 in 5 ms.
    let data = row(&out, "C", "data_received").unwrap_or_default();
    assert!((400_000.0..=500_000.0).contains(&data), "{data}");
    assert_eq!(row(&out, "run", "conservation_ok"), Some(1.0));
}

#[test]
fn the_largest_window_and_rate_on_a_slow_link_stop_at_what_the_link_holds_and_answers() {
    // A window of a million, or a million Interests a second, on a 10 Mbps link: both stop at
    // the link's limit (4 × its queues, wires and a lifetime of Data, 10,800 here) instead of
    // holding a million Interests, most of them lost, in memory.
    for control in ["window = { type = \"fixed\", window = 1e6 }", "rate = { type = \"constant\", rate = 1e6 }"] {
        let text = scenario("C", "interest_size = \"50B\"", "")
            .replace("window = { type = \"aimd\" }", control)
            .replace(
                "prefix = \"/p\"\n\n[apps.C]",
                "prefix = \"/p\"\npayload = \"1000B\"\noverhead = \"250B\"\n\n[apps.C]",
            )
            .replace("[links.R-P]", "[links.R-P]\nbandwidth = \"1Gbps\"");
        let sc = load_str(&text, "x.toml", &[]).unwrap_or_else(|e| panic!("{e}\n{text}"));
        let Some(AppSpec::Consumer(c)) = sc.apps.get("C") else { panic!("no consumer C") };
        let limit = sc.in_flight_limit(c);
        // Held: queues 4 × 100, wires 2 × (10 Mbps + 1 Gbps) × 5 ms / 400 bit; answered into C:
        // 10 Mbps × 2 s / 10,000 bit.
        assert_eq!(limit, (4.0 * (400.0 + 2.0 * 1.01e9 * 0.005 / 400.0 + 2_000.0)) as u64, "{control}");
        let out = run(&sc, &RunOptions::default(), &mut |_| true).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(row(&out, "C", "in_flight_limit"), Some(limit as f64), "{control}");
        let s = &out.series;
        let e = s.entities.iter().position(|n| n == "C").expect("C recorded") as u32;
        let m = s.metrics.iter().position(|n| n == "in_flight").expect("in_flight recorded") as u32;
        let most = (0..s.t.len()).filter(|&i| s.entity[i] == e && s.metric[i] == m).map(|i| s.value[i]);
        let most = most.fold(0.0, f64::max);
        assert!(most > 0.0 && most <= limit as f64, "{control}: {most}");
        assert_eq!(row(&out, "run", "conservation_ok"), Some(1.0));
    }
}

#[test]
fn a_rate_that_ignores_timeouts_and_hears_no_nack_stops_at_the_in_flight_limit() {
    // aimd-rate that does not decrease on timeouts, behind a drop-tail queue (no NACKs, no
    // marks): its rate grows for ever, its Interests in flight stop at the limit.
    let text = scenario("C", "", "")
        .replace("window = { type = \"aimd\" }", "rate = { type = \"aimd-rate\", decrease_on_timeout = false }")
        .replace("duration = \"2s\"", "duration = \"10s\"");
    let sc = load_str(&text, "x.toml", &[]).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let out = run(&sc, &RunOptions::default(), &mut |_| true).unwrap_or_else(|e| panic!("{e}"));
    let Some(AppSpec::Consumer(c)) = sc.apps.get("C") else { panic!("no consumer C") };
    assert_eq!(row(&out, "C", "in_flight_limit"), Some(sc.in_flight_limit(c) as f64));
    assert_eq!(row(&out, "run", "conservation_ok"), Some(1.0));
}

#[test]
fn per_packet_events_stop_being_recorded_at_the_row_limit() {
    // The run goes on; the series holds no more rows than the limit, and the recorder says when
    // the events stopped.
    let text = one_node("{ type = \"aimd\" }", "").replace("duration = \"10s\"", "duration = \"2ms\"");
    let sc = load_str(&text, "one-node.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
    let mut world = build_world(&sc, 1).unwrap_or_else(|e| panic!("{e}"));
    world.recorder_mut().max_event_rows = 10_000;
    assert!(matches!(world.run(SimDuration::ZERO, &mut |_| true), RunEnd::Finished));
    let stopped = world.recorder().events_stopped_at.expect("events stopped");
    assert!(stopped.as_secs_f64() < 0.002, "{stopped}");
    // Samples (every 100 ms: one at 0 s) still come after; events do not.
    assert!(world.recorder().series.len() <= 10_000 + 100, "{}", world.recorder().series.len());
}
