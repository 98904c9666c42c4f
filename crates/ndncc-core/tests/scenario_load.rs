//! The shipped scenarios load, imported topologies come out right, and both survive a round
//! trip through `to_toml`.

use std::path::{Path, PathBuf};

use ndncc_core::loss::LossConfig;
use ndncc_core::queue::{DropTailConfig, QueueConfig};
use ndncc_core::scenario::{import, load_file, load_str, FaceSelection, RoutingMode, Scenario};
use ndncc_core::units::{Bandwidth, Duration, Fraction};

fn repo(rel: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..").join(rel)
}

fn fixture(name: &str) -> String {
    let p = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures").join(name);
    std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()))
}

fn round_trip(s: &Scenario) {
    let text = s.to_toml();
    let back = load_str(&text, "round-trip.toml", &[]).unwrap_or_else(|e| panic!("{e}\n{text}"));
    assert_eq!(&back, s, "{text}");
}

fn droptail(packets: usize) -> QueueConfig {
    QueueConfig::Droptail(DropTailConfig { packets: Some(packets), bytes: None })
}

#[test]
fn the_minimal_scenario_loads() {
    let s = load_file(&repo("scenarios/minimal.toml"), &[]).unwrap();
    assert_eq!(s.simulation.name, "minimal");
    assert_eq!(s.simulation.duration, Duration::from_secs(10));
    let link = &s.links["consumer-producer"];
    assert_eq!((link.bandwidth, link.delay), (Bandwidth::mbps(10), Duration::from_millis(10)));
    assert_eq!(s.consumers().count(), 1);
    round_trip(&s);
}

#[test]
fn the_dumbbell_scenario_loads() {
    let s = load_file(&repo("scenarios/dumbbell.toml"), &[]).unwrap();
    assert_eq!(s.nodes.len(), 6);
    assert_eq!(s.links.len(), 5);
    assert_eq!(s.links["R1-R2"].bandwidth, Bandwidth::mbps(10));
    assert_eq!(s.links["C1-R1"].bandwidth, Bandwidth::mbps(100));
    assert_eq!(s.record.faces, FaceSelection::List(vec!["R1->R2".into(), "R2->R1".into()]));
    round_trip(&s);
}

#[test]
fn every_shipped_scenario_loads() {
    let dir = repo("scenarios");
    let mut n = 0;
    for entry in std::fs::read_dir(&dir).unwrap() {
        let path = entry.unwrap().path();
        if path.extension().is_some_and(|e| e == "toml") {
            load_file(&path, &[]).unwrap_or_else(|e| panic!("{e}"));
            n += 1;
        }
    }
    assert!(n >= 2);
}

#[test]
fn an_ndnsim_topology_imports_nodes_links_and_link_settings() {
    let s = import::ndnsim_topology(&fixture("six_nodes.ndnsim.txt"), "six_nodes.ndnsim.txt").unwrap();
    assert_eq!(s.simulation.duration, Duration::from_secs(10));
    assert_eq!(s.routing.mode, RoutingMode::Computed);
    assert!(s.apps.is_empty());
    assert_eq!(s.nodes.keys().collect::<Vec<_>>(), ["c1", "c2", "p1", "p2", "r1", "r2"]);
    let core = &s.links["r1-r2"];
    assert_eq!(core.endpoints, ["r1".to_string(), "r2".to_string()]);
    assert_eq!((core.bandwidth, core.delay, core.cost), (Bandwidth::mbps(5), Duration::from_millis(20), 1));
    assert_eq!(core.queue, droptail(50));
    assert_eq!(core.loss, LossConfig::Bernoulli { p: Fraction(0.01) });
    let fast = &s.links["r2-p2"];
    assert_eq!((fast.bandwidth.bps(), fast.cost), (1_000_000_000, 3));
    assert_eq!(fast.queue, QueueConfig::default());
    round_trip(&s);
}

#[test]
fn a_minindn_conf_imports_nodes_links_and_link_settings() {
    let s = import::minindn_conf(&fixture("dumbbell.minindn.conf"), "dumbbell.minindn.conf").unwrap();
    assert_eq!(s.simulation.name, "dumbbell.minindn");
    assert_eq!(s.nodes.len(), 6);
    assert_eq!(s.links.len(), 5);
    let core = &s.links["r1-r2"];
    assert_eq!((core.bandwidth, core.delay), (Bandwidth::mbps(5), Duration::from_millis(10)));
    assert_eq!(core.loss, LossConfig::Bernoulli { p: Fraction(0.01) });
    assert_eq!(core.queue, droptail(100));
    assert_eq!(s.links["c1-r1"].bandwidth, Bandwidth::mbps(100));
    assert_eq!(s.links["c1-r1"].loss, LossConfig::None);
    round_trip(&s);
}

#[test]
fn an_imported_topology_takes_apps_through_overrides_after_a_round_trip() {
    let s = import::minindn_conf(&fixture("dumbbell.minindn.conf"), "dumbbell.minindn.conf").unwrap();
    let mut text = s.to_toml();
    text.push_str(concat!(
        "[apps.p1]\ntype = \"producer\"\nnode = \"p1\"\nprefix = \"/p1\"\n",
        "[apps.c1]\ntype = \"consumer\"\nnode = \"c1\"\nprefix = \"/p1\"\nfile_size = \"10MiB\"\n",
        "window = { type = \"fixed\", window = 10 }\n",
    ));
    let s = load_str(&text, "e3.toml", &["simulation.duration=120s".into()]).unwrap();
    assert_eq!(s.simulation.duration, Duration::from_secs(120));
    assert_eq!(s.consumers().next().map(|(_, c)| c.segments), Some(Some(10_240)));
}

/// An imported topology, given a producer on `p` and a consumer on `c`, runs and delivers.
fn imported_topology_runs(mut s: ndncc_core::scenario::Scenario, c: &str, p: &str) {
    use ndncc_core::api::{run, RunOptions};
    use ndncc_core::cc::window::{FixedWindowConfig, WindowConfig};
    use ndncc_core::scenario::{AppSpec, ConsumerSpec, ProducerSpec};
    s.apps.insert("prod".into(), AppSpec::Producer(ProducerSpec::new(p, "/world")));
    let window = WindowConfig::Fixed(FixedWindowConfig { window: 8.0 });
    s.apps.insert("cons".into(), AppSpec::Consumer(ConsumerSpec::with_window(c, "/world", window)));
    s.validate().expect("a valid scenario once apps are added");
    let out = run(&s, &RunOptions::default(), &mut |_| true).expect("runs");
    let value = |m: &str| out.summary.iter().find(|r| r.entity == "cons" && r.metric == m).unwrap().value;
    assert!(value("data_received") > 100.0, "{}", value("data_received"));
    let ok = out.summary.iter().find(|r| r.metric == "conservation_ok").unwrap().value;
    assert_eq!(ok, 1.0);
}

#[test]
fn an_imported_ndnsim_topology_runs_once_apps_are_added() {
    let s = import::ndnsim_topology(&fixture("six_nodes.ndnsim.txt"), "six_nodes.ndnsim.txt").unwrap();
    imported_topology_runs(s, "c1", "p1");
}

#[test]
fn an_imported_minindn_topology_runs_once_apps_are_added() {
    let s = import::minindn_conf(&fixture("dumbbell.minindn.conf"), "dumbbell.minindn.conf").unwrap();
    imported_topology_runs(s, "c2", "p2");
}

#[test]
fn every_shipped_scenario_file_loads_and_runs_its_first_ten_seconds_or_its_own_length() {
    let mut files: Vec<_> = std::fs::read_dir(repo("scenarios"))
        .unwrap()
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    files.sort();
    assert!(files.len() >= 8, "{files:?}");
    for f in files {
        // A file whose apps start after 10 s (E2's scenario 4) runs its own duration instead.
        let s = load_file(&f, &["simulation.duration=\"10s\"".into()])
            .or_else(|_| load_file(&f, &[]))
            .unwrap_or_else(|e| panic!("{e}"));
        let out = ndncc_core::api::run(&s, &Default::default(), &mut |_| true)
            .unwrap_or_else(|e| panic!("{}: {e}", f.display()));
        assert!(out.stats.packet_hops > 0, "{}: no packet moved", f.display());
    }
}

#[test]
fn tcp_and_ndn_share_the_bottleneck_of_ndn_vs_tcp() {
    // Both data flows cross R2->R1; 20 s is past both start-ups.
    let s = load_file(&repo("scenarios/ndn-vs-tcp.toml"), &["simulation.duration=\"20s\"".into()]).unwrap();
    let out = ndncc_core::api::run(&s, &Default::default(), &mut |_| true).unwrap();
    let v =
        |e: &str, m: &str| out.summary.iter().find(|r| r.entity == e && r.metric == m).map_or(f64::NAN, |r| r.value);
    let (ndn, tcp) = (v("C", "throughput_kbps"), v("tcp", "throughput_kbps"));
    // 50 Mbps of packets carrying 1,024 of every 1,088 (NDN) or 1,064 (TCP) bytes.
    assert!(ndn + tcp < 50_000.0 * 1024.0 / 1064.0, "{ndn} + {tcp} kbit/s");
    assert!(ndn + tcp > 0.9 * 50_000.0 * 1024.0 / 1088.0, "{ndn} + {tcp} kbit/s");
    assert!(tcp > 5_000.0 && ndn > 5_000.0, "both get a real share: {ndn}, {tcp}");
    assert!((0.5..=1.0).contains(&v("run", "jain_index")));
    assert!((v("C", "share") + v("tcp", "share") - 1.0).abs() < 1e-9);
}
