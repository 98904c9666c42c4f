//! Loading end to end: defaults, overrides, resolution and the TOML round trip.

use super::*;
use crate::cc::window::WindowConfig;
use crate::loss::LossConfig;
use crate::queue::{DropTailConfig, QueueConfig};
use crate::units::{Bandwidth, Duration, Fraction};

const DUMBBELL: &str = r#"
[simulation]
duration = "20s"
seed = 7

[defaults.link]
bandwidth = "100Mbps"
delay = "10ms"
queue = { type = "droptail", packets = 100 }

[defaults.node]
content_store = { capacity = 50 }

[nodes]
C1 = {}
C2 = {}
R1 = { content_store = { capacity = 0 } }
R2 = {}
P1 = {}

[links.C1-R1]
[links.C2-R1]
[links.R1-R2]
bandwidth = "5Mbps"
loss = { type = "bernoulli", p = "1%" }
queue_ab = { type = "droptail", packets = 20 }
[links.R2-P1]

[apps.P1]
type = "producer"
node = "P1"
prefix = "/p1"

[apps.C1]
type = "consumer"
node = "C1"
prefix = "/p1"
file_size = "10MiB"
window = { type = "fixed", window = 20 }

[apps.C2]
type = "consumer"
node = "C2"
prefix = "/p1/other"
start = "1s"
stop = "5s"
window = { type = "fixed" }
"#;

fn load(overrides: &[&str]) -> Result<Scenario, ScenarioError> {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    load_str(DUMBBELL, "scenarios/dumbbell-test.toml", &o)
}

#[test]
fn defaults_fill_every_link_and_node_unless_they_say_otherwise() {
    let s = load(&[]).unwrap();
    assert_eq!(s.simulation.name, "dumbbell-test");
    assert_eq!(s.simulation.seed, 7);
    assert_eq!(s.links["C1-R1"].bandwidth, Bandwidth::mbps(100));
    assert_eq!(s.links["C1-R1"].delay, Duration::from_millis(10));
    assert_eq!(s.links["R1-R2"].bandwidth, Bandwidth::mbps(5));
    assert_eq!(s.links["R1-R2"].loss, LossConfig::Bernoulli { p: Fraction(0.01) });
    let ab = s.links["R1-R2"].direction(Dir::AB);
    let ba = s.links["R1-R2"].direction(Dir::BA);
    assert_eq!(ab.queue, &QueueConfig::Droptail(DropTailConfig { packets: Some(20), bytes: None }));
    assert_eq!(ba.queue, &QueueConfig::Droptail(DropTailConfig { packets: Some(100), bytes: None }));
    assert_eq!(s.nodes["C1"].content_store.capacity, 50);
    assert_eq!(s.nodes["R1"].content_store.capacity, 0);
}

#[test]
fn loading_resolves_endpoints_and_file_sizes() {
    let s = load(&[]).unwrap();
    assert_eq!(s.links["R2-P1"].endpoints, ["R2".to_string(), "P1".to_string()]);
    let c1 = s.consumers().find(|(n, _)| *n == "C1").unwrap().1;
    assert_eq!((c1.segments, c1.file_size), (Some(10_240), None));
    assert_eq!(s.producer_for("/p1/other").map(|(n, _)| n), Some("P1"));
    assert_eq!(s.producer_for("/p2"), None);
}

#[test]
fn overrides_change_values_tables_and_defaults() {
    let s = load(&[
        "links.R1-R2.bandwidth=2Mbps",
        "simulation.seed=3",
        "apps.C1.window.window=30",
        "defaults.link.delay=5ms",
        "links.C1-R1.queue.packets=7",
        "record.faces=[\"R1->R2\"]",
    ])
    .unwrap();
    assert_eq!(s.links["R1-R2"].bandwidth, Bandwidth::mbps(2));
    assert_eq!(s.simulation.seed, 3);
    let c1 = s.consumers().next().unwrap().1;
    assert!(matches!(&c1.window, Some(WindowConfig::Fixed(f)) if f.window == 30.0));
    assert_eq!(s.links["C2-R1"].delay, Duration::from_millis(5));
    assert_eq!(s.links["C1-R1"].queue, QueueConfig::Droptail(DropTailConfig { packets: Some(7), bytes: None }));
    assert_eq!(s.links["C2-R1"].queue, QueueConfig::Droptail(DropTailConfig { packets: Some(100), bytes: None }));
    assert_eq!(s.record.faces, FaceSelection::List(vec!["R1->R2".into()]));
}

#[test]
fn a_resolved_scenario_round_trips_through_toml() {
    let s = load(&[]).unwrap();
    let text = s.to_toml();
    let back = load_str(&text, "round-trip.toml", &[]).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(back, s, "{text}");
    let derived: Scenario = toml::from_str(&text).unwrap();
    assert_eq!(derived, s);
}

#[test]
fn a_value_from_json_loads_like_a_file_without_lines() {
    let v = serde_json::json!({
        "simulation": { "duration": "1s" },
        "nodes": { "A": {}, "B": {} },
        "links": { "A-B": { "bandwidth": "1Mbps", "delay": "1ms" } },
        "apps": {
            "p": { "type": "producer", "node": "B", "prefix": "/x" },
            "c": { "type": "consumer", "node": "A", "prefix": "/x", "rate": { "type": "constant", "rate": 10.0 } }
        }
    });
    let s = from_value(&v, "dict", &[]).unwrap();
    assert_eq!(s.simulation.name, "dict");
    let mut bad = v.clone();
    bad["links"]["A-B"]["delay"] = serde_json::json!("1mss");
    let e = from_value(&bad, "dict", &[]).unwrap_err();
    assert_eq!((e.line, e.key.as_deref()), (None, Some("links.A-B.delay")));
}

#[test]
fn a_scenario_built_in_code_validates_after_resolving() {
    let mut s = Scenario::new("code", Duration::from_secs(5));
    for n in ["A", "B"] {
        s.nodes.insert(n.into(), NodeSpec::default());
    }
    s.links.insert("A-B".into(), LinkSpec::new("", "", Bandwidth::mbps(1), Duration::from_millis(1)));
    s.apps.insert("p".into(), AppSpec::Producer(ProducerSpec::new("B", "/x")));
    s.resolve().unwrap();
    s.validate().unwrap();
    s.apps.insert(
        "c".into(),
        AppSpec::Consumer(ConsumerSpec::with_window("A", "/y", WindowConfig::Fixed(Default::default()))),
    );
    let e = s.validate().unwrap_err();
    assert_eq!(e.key.as_deref(), Some("apps.c.prefix"));
    assert!(e.to_string().starts_with("apps.c.prefix: no producer serves /y"), "{e}");
}

#[test]
fn inline_tables_subtables_and_a_stop_beyond_the_end_are_accepted() {
    let text = r#"
[simulation]
duration = "5s"
[nodes]
A = {}
B = { clock_tick = "100ms", modules = [{ type = "static-rate-stamp", rate = 100.0 }] }
[links]
A-B = { bandwidth = "1Mbps", delay = "1ms", interest_shaper_ab = { depth = 10 } }
[apps]
p = { type = "producer", node = "B", prefix = "/x" }
[apps.c]
type = "consumer"
node = "A"
prefix = "/x"
stop = "60s"
[apps.c.rate]
type = "constant"
rate = 50
"#;
    let s = load_str(text, "inline.toml", &["nodes.B.modules.0.rate=5".into()]).unwrap();
    let (_, c) = s.consumers().next().unwrap();
    assert_eq!(c.stop, Some(Duration::from_secs(60)));
    assert!(matches!(c.control(), Some(Control::Rate(_))));
    assert_eq!(s.links["A-B"].direction(Dir::AB).interest_shaper.map(|x| x.depth), Some(10));
    assert_eq!(s.links["A-B"].direction(Dir::BA).interest_shaper, None);
    assert_eq!(s.nodes["B"].clock_tick, Some(Duration::from_millis(100)));
    assert_eq!(
        s.nodes["B"].modules,
        vec![crate::module::ModuleConfig::StaticRateStamp(crate::module::static_stamp::StaticRateStampConfig {
            rate: 5.0
        })]
    );
}

#[test]
fn a_static_route_lets_a_consumer_fetch_a_prefix_no_producer_declares() {
    let text = r#"
[simulation]
duration = "5s"
[nodes]
A = {}
B = {}
[links.A-B]
bandwidth = "1Mbps"
delay = "1ms"
[routing]
mode = "static"
[[routes]]
node = "A"
prefix = "/x"
nexthop = "B"
[apps.c]
type = "consumer"
node = "A"
prefix = "/x/y"
window = { type = "fixed" }
"#;
    let s = load_str(text, "static.toml", &[]).unwrap();
    assert_eq!(s.routing.mode, RoutingMode::Static);
    assert_eq!(s.routes[0].cost, 1);
}

#[test]
fn a_producer_out_of_reach_is_an_error_under_computed_routing() {
    let text = r#"
[simulation]
duration = "5s"
[nodes]
A = {}
B = {}
C = {}
[links.A-B]
bandwidth = "1Mbps"
delay = "1ms"
[apps.p]
type = "producer"
node = "C"
prefix = "/x"
[apps.c]
type = "consumer"
node = "A"
prefix = "/x"
window = { type = "fixed" }
"#;
    let e = load_str(text, "island.toml", &[]).unwrap_err();
    assert_eq!((e.line, e.key.as_deref()), (Some(18), Some("apps.c.prefix")));
    assert!(e.message.contains("no link path leads from A"), "{e}");
}
