//! End-to-end checks of the engine built in code: goodput, determinism, conservation, caching.

use ndncc_core::cc::window::{FixedWindowConfig, WindowConfig};
use ndncc_core::face_selection::FaceSelection;
use ndncc_core::instantiate;
use ndncc_core::loss::LossConfig;
use ndncc_core::queue::{DropTailConfig, QueueConfig};
use ndncc_core::rng::{stable_hash, stream};
use ndncc_core::scenario::{ConsumerSpec, ProducerSpec};
use ndncc_core::time::{SimDuration, SimTime};
use ndncc_core::units::{Bytes, Duration, Fraction};
use ndncc_core::world::{LinkParams, UnderlayParams, World, WorldBuilder};
use rand::Rng;

/// A consumer on `node` fetching `/p`-style `prefix` under a fixed window; `segments` = None runs
/// until the end.
fn consumer(node: &str, prefix: &str, segments: Option<u64>, window: f64) -> ConsumerSpec {
    ConsumerSpec {
        segments,
        // Fixed 40-byte Interests keep the delay arithmetic below exact.
        interest_size: Some(Bytes(40)),
        ..ConsumerSpec::with_window(node, prefix, WindowConfig::Fixed(FixedWindowConfig { window }))
    }
}

/// A producer on `node` serving `prefix` with 1,000-byte payloads and 50 bytes of overhead.
fn producer(node: &str, prefix: &str) -> ProducerSpec {
    ProducerSpec { payload: Bytes(1000), overhead: Some(Bytes(50)), ..ProducerSpec::new(node, prefix) }
}

fn droptail(n: usize) -> QueueConfig {
    QueueConfig::Droptail(DropTailConfig { packets: Some(n), bytes: None })
}

fn summary_value(w: &World, entity: &str, metric: &str) -> f64 {
    w.summary().into_iter().find(|r| r.entity == entity && r.metric == metric).map(|r| r.value).unwrap_or(f64::NAN)
}

/// C —(100 Mbps, 5 ms)— R —(10 Mbps, 10 ms)— P
fn bottleneck_world(window: f64, seed: u64) -> World {
    let mut b = WorldBuilder::new(seed, SimDuration::from_secs(20));
    let c = b.add_node("C");
    let r = b.add_node("R");
    let p = b.add_node("P");
    let fast = LinkParams::new(100_000_000, SimDuration::from_millis(5)).with_queue(droptail(100));
    let slow = LinkParams::new(10_000_000, SimDuration::from_millis(10)).with_queue(droptail(100));
    b.add_link("C-R", c, r, fast.clone(), fast).unwrap();
    b.add_link("R-P", r, p, slow.clone(), slow).unwrap();
    let (fc, fr) = (b.face_between(c, r).unwrap(), b.face_between(r, p).unwrap());
    b.add_route(c, "/p", fc, 1);
    b.add_route(r, "/p", fr, 1);
    instantiate::add_producer(&mut b, "P", &producer("P", "/p")).unwrap();
    instantiate::add_consumer(&mut b, "C", &consumer("C", "/p", None, window)).unwrap();
    b.build()
}

#[test]
fn a_fixed_window_fills_a_10_mbps_bottleneck_to_within_2_percent_of_its_goodput() {
    // Pipe: 10 Mbps × 30 ms RTT ≈ 36 Data of 1,050 B; a window of 60 keeps the bottleneck busy
    // with a standing queue of ~24 (below the 100-packet limit, so no loss).
    let mut w = bottleneck_world(60.0, 1);
    w.run(SimDuration::ZERO, &mut |_| true);
    // Goodput ceiling: 10 Mbps × 1000/1050 payload share = 9.524 Mbps.
    let ceiling_kbps = 10_000.0 * 1000.0 / 1050.0;
    let got = summary_value(&w, "C", "throughput_kbps");
    assert!((got - ceiling_kbps).abs() / ceiling_kbps < 0.02, "goodput {got} kbit/s vs ceiling {ceiling_kbps}");
    assert_eq!(summary_value(&w, "C", "timeouts"), 0.0);
}

#[test]
fn serialisation_and_propagation_delays_add_up_to_the_first_rtt() {
    // One Interest: 40 B over 100 Mbps (3.2 us) + 5 ms, 40 B over 10 Mbps (32 us) + 10 ms;
    // Data 1,050 B back: 840 us + 10 ms, then 84 us + 5 ms. Total 30.9592 ms.
    let mut w = bottleneck_world(1.0, 1);
    w.run(SimDuration::ZERO, &mut |_| true);
    let rtt = w.summary().into_iter().find(|r| r.entity == "C" && r.metric == "mean_rtt_ms").unwrap().value;
    assert!((rtt - 30.9592).abs() < 1e-6, "rtt {rtt} ms");
}

fn column_hash(w: &World) -> u64 {
    let s = &w.recorder().series;
    let f = &w.recorder().faces;
    let mut text = String::new();
    for (t, entity, metric, value) in s.rows().chain(f.rows()) {
        text.push_str(&format!("{t} {entity} {metric} {value:e};"));
    }
    stable_hash(&text) ^ w.counters().events
}

fn lossy_world(seed: u64) -> World {
    let mut b = WorldBuilder::new(seed, SimDuration::from_secs(5));
    b.record(Some(SimDuration::from_millis(100)), true, FaceSelection::All);
    let c = b.add_node("C");
    let p = b.add_node("P");
    let l = LinkParams::new(5_000_000, SimDuration::from_millis(10))
        .with_queue(droptail(20))
        .with_loss(LossConfig::Bernoulli { p: Fraction(0.02) });
    b.add_link("C-P", c, p, l.clone(), l).unwrap();
    let f = b.face_between(c, p).unwrap();
    b.add_route(c, "/p", f, 1);
    instantiate::add_producer(&mut b, "P", &producer("P", "/p")).unwrap();
    instantiate::add_consumer(&mut b, "C", &consumer("C", "/p", None, 40.0)).unwrap();
    b.build()
}

#[test]
fn the_same_seed_gives_identical_columns_and_another_seed_does_not() {
    let run = |seed| {
        let mut w = lossy_world(seed);
        w.run(SimDuration::ZERO, &mut |_| true);
        column_hash(&w)
    };
    assert_eq!(run(7), run(7));
    assert_ne!(run(7), run(8));
}

/// A random connected topology with lossy links, several producers and consumers.
fn random_world(seed: u64) -> World {
    let mut g = stream(seed, "topology");
    let n_nodes = g.gen_range(3..8);
    let mut b = WorldBuilder::new(seed, SimDuration::from_secs(3));
    b.record(None, false, FaceSelection::None);
    let nodes: Vec<_> = (0..n_nodes).map(|i| b.add_node(&format!("N{i}"))).collect();
    let mut parent = vec![0usize; n_nodes];
    for i in 1..n_nodes {
        let j = g.gen_range(0..i);
        parent[i] = j;
        let l = LinkParams::new(g.gen_range(1..20) * 1_000_000, SimDuration::from_millis(g.gen_range(1..20)))
            .with_queue(droptail(g.gen_range(2..50)))
            .with_loss(LossConfig::Bernoulli { p: Fraction(g.gen_range(0.0..0.05)) });
        b.add_link(&format!("L{i}"), nodes[i], nodes[j], l.clone(), l).unwrap();
    }
    if g.gen_bool(0.5) {
        b.set_content_store(nodes[0], 50);
    }
    // Producer on the last node; routes along the tree towards it.
    let pn = n_nodes - 1;
    instantiate::add_producer(&mut b, "P", &producer(&format!("N{pn}"), "/data")).unwrap();
    // Path from every node to the producer: climb to the root, then descend.
    let ancestors = |mut x: usize| {
        let mut v = vec![x];
        while x != 0 {
            x = parent[x];
            v.push(x);
        }
        v
    };
    let p_anc = ancestors(pn);
    for i in 0..n_nodes {
        if i == pn {
            continue;
        }
        let a = ancestors(i);
        let next = if let Some(pos) = p_anc.iter().position(|x| *x == i) {
            p_anc[pos - 1] // i is an ancestor of the producer: go down towards it
        } else {
            a[1]
        };
        let f = b.face_between(nodes[i], nodes[next]).unwrap();
        b.add_route(nodes[i], "/data", f, 1);
    }
    for k in 0..g.gen_range(1..4) {
        let at = g.gen_range(0..pn.max(1));
        let segs = if g.gen_bool(0.5) { Some(g.gen_range(10..400)) } else { None };
        let start = Duration(SimDuration::from_secs_f64(g.gen_range(0.0..1.0)));
        let spec = ConsumerSpec { start, ..consumer(&format!("N{at}"), "/data", segs, g.gen_range(1..30) as f64) };
        instantiate::add_consumer(&mut b, &format!("C{k}"), &spec).unwrap();
    }
    b.build()
}

#[test]
fn every_interest_ends_as_data_nack_timeout_or_is_still_in_flight_on_random_topologies() {
    for seed in 0..40 {
        let mut w = random_world(seed);
        w.run(SimDuration::ZERO, &mut |_| true);
        for (name, c) in w.conservation() {
            assert!(c.holds(), "seed {seed} consumer {name}: {c:?}");
            assert!(c.sent > 0, "seed {seed} consumer {name} sent nothing");
        }
    }
}

/// C1 and C2 fetch the same 200 segments through R (which caches); C2 starts at 5 s, after C1
/// has finished. Returns (Interests the producer saw, cache hits at R).
fn cached_twice(freshness: SimDuration) -> (f64, f64) {
    let mut b = WorldBuilder::new(1, SimDuration::from_secs(10));
    let c1 = b.add_node("C1");
    let c2 = b.add_node("C2");
    let r = b.add_node("R");
    let p = b.add_node("P");
    let l = LinkParams::new(10_000_000, SimDuration::from_millis(5));
    for (name, x) in [("C1-R", c1), ("C2-R", c2)] {
        b.add_link(name, x, r, l.clone(), l.clone()).unwrap();
        let f = b.face_between(x, r).unwrap();
        b.add_route(x, "/v", f, 1);
    }
    b.add_link("R-P", r, p, l.clone(), l).unwrap();
    let f = b.face_between(r, p).unwrap();
    b.add_route(r, "/v", f, 1);
    b.set_content_store(r, 1000);
    instantiate::add_producer(&mut b, "P", &ProducerSpec { freshness: Duration(freshness), ..producer("P", "/v") })
        .unwrap();
    instantiate::add_consumer(&mut b, "C1", &consumer("C1", "/v", Some(200), 10.0)).unwrap();
    let late = ConsumerSpec { start: Duration::from_secs(5), ..consumer("C2", "/v", Some(200), 10.0) };
    instantiate::add_consumer(&mut b, "C2", &late).unwrap();
    let mut w = b.build();
    w.run(SimDuration::ZERO, &mut |_| true);
    assert_eq!(summary_value(&w, "C1", "data_received"), 200.0);
    assert_eq!(summary_value(&w, "C2", "data_received"), 200.0);
    (summary_value(&w, "P", "interests_received"), summary_value(&w, "R", "cs_hits"))
}

#[test]
fn a_second_consumer_of_the_same_data_is_served_by_the_routers_content_store() {
    // Never-stale Data: the producer sees each segment once; C2's 200 are all cache hits at R.
    assert_eq!(cached_twice(SimDuration::ZERO), (200.0, 200.0));
}

#[test]
fn data_past_its_freshness_period_is_fetched_again() {
    // Freshness 1 s: by 5 s every cached copy is stale, so the producer answers C2 too.
    assert_eq!(cached_twice(SimDuration::from_secs(1)), (400.0, 0.0));
}

#[test]
fn simultaneous_requests_for_the_same_name_are_aggregated_in_the_pit() {
    let mut b = WorldBuilder::new(1, SimDuration::from_secs(5));
    let c1 = b.add_node("C1");
    let c2 = b.add_node("C2");
    let r = b.add_node("R");
    let p = b.add_node("P");
    let l = LinkParams::new(10_000_000, SimDuration::from_millis(5));
    for (name, x) in [("C1-R", c1), ("C2-R", c2)] {
        b.add_link(name, x, r, l.clone(), l.clone()).unwrap();
        let f = b.face_between(x, r).unwrap();
        b.add_route(x, "/v", f, 1);
    }
    b.add_link("R-P", r, p, l.clone(), l).unwrap();
    let f = b.face_between(r, p).unwrap();
    b.add_route(r, "/v", f, 1);
    instantiate::add_producer(&mut b, "P", &producer("P", "/v")).unwrap();
    // Both start together with window 1: each of their Interests meets the other's at R.
    instantiate::add_consumer(&mut b, "C1", &consumer("C1", "/v", Some(50), 1.0)).unwrap();
    instantiate::add_consumer(&mut b, "C2", &consumer("C2", "/v", Some(50), 1.0)).unwrap();
    let mut w = b.build();
    w.run(SimDuration::ZERO, &mut |_| true);
    assert_eq!(summary_value(&w, "C1", "data_received"), 50.0);
    assert_eq!(summary_value(&w, "C2", "data_received"), 50.0);
    assert_eq!(summary_value(&w, "P", "interests_received"), 50.0);
    assert_eq!(summary_value(&w, "R", "aggregated"), 50.0);
}

#[test]
fn an_interest_without_a_route_comes_back_as_a_no_route_nack() {
    let mut b = WorldBuilder::new(1, SimDuration::from_secs(1));
    let c = b.add_node("C");
    let r = b.add_node("R");
    let l = LinkParams::new(10_000_000, SimDuration::from_millis(5));
    b.add_link("C-R", c, r, l.clone(), l).unwrap();
    let f = b.face_between(c, r).unwrap();
    b.add_route(c, "/nowhere", f, 1);
    instantiate::add_consumer(&mut b, "C", &consumer("C", "/nowhere", Some(3), 1.0)).unwrap();
    let mut w = b.build();
    w.run(SimDuration::ZERO, &mut |_| true);
    assert!(summary_value(&w, "C", "nacks") >= 1.0);
    assert!(summary_value(&w, "R", "no_route") >= 1.0);
    for (_, c) in w.conservation() {
        assert!(c.holds());
    }
}

#[test]
fn a_hidden_underlay_caps_goodput_at_its_capacity_and_drops_its_overflow() {
    // The R->C face believes it has 20 Mbps but its packets cross a 10 Mbps underlay holding 20
    // packets. A window of 200 overfills it: goodput is the underlay's 10 Mbps x 1000/1050, and
    // the overflow is counted as underlay drops.
    let mut b = WorldBuilder::new(1, SimDuration::from_secs(10));
    let c = b.add_node("C");
    let r = b.add_node("R");
    let overlay = LinkParams {
        underlay: Some(UnderlayParams { bandwidth_bps: 10_000_000, limit_packets: 20, limit_bytes: None }),
        ..LinkParams::new(20_000_000, SimDuration::from_millis(5))
    }
    .with_queue(droptail(1000));
    let plain = LinkParams::new(20_000_000, SimDuration::from_millis(5)).with_queue(droptail(1000));
    b.add_link("C-R", c, r, plain, overlay).unwrap();
    let f = b.face_between(c, r).unwrap();
    b.add_route(c, "/p", f, 1);
    instantiate::add_producer(&mut b, "P", &producer("R", "/p")).unwrap();
    instantiate::add_consumer(&mut b, "C", &consumer("C", "/p", None, 200.0)).unwrap();
    let mut w = b.build();
    w.run(SimDuration::ZERO, &mut |_| true);
    let got = summary_value(&w, "C", "throughput_kbps");
    let underlay_goodput = 10_000.0 * 1000.0 / 1050.0;
    assert!(got <= underlay_goodput * 1.001, "{got} kbit/s above the underlay's {underlay_goodput}");
    assert!(got >= underlay_goodput * 0.9, "{got} kbit/s");
    assert!(summary_value(&w, "R->C", "drops_underlay") > 0.0);
    assert_eq!(summary_value(&w, "R->C", "drops_queue"), 0.0, "the overlay face's own queue never overflows");
}

/// Records the times it is woken at.
struct WakeLog {
    asks: Vec<u64>,
    woken: std::sync::Arc<std::sync::Mutex<Vec<u64>>>,
}

impl ndncc_core::app::Application for WakeLog {
    fn on_start(&mut self, ctx: &mut ndncc_core::app::AppCtx) {
        if let Some(&first) = self.asks.first() {
            ctx.wake_at(SimTime(first));
        }
    }
    fn on_packet(&mut self, _ctx: &mut ndncc_core::app::AppCtx, _packet: &ndncc_core::packet::Packet) {}
    fn on_wake(&mut self, ctx: &mut ndncc_core::app::AppCtx) {
        self.woken.lock().unwrap().push(ctx.now.0);
        let next = self.asks.iter().copied().find(|t| *t > ctx.now.0);
        if let Some(t) = next {
            ctx.wake_at(SimTime(t));
        }
    }
    fn summary(&self, _end: SimTime, _out: &mut Vec<ndncc_core::recorder::SummaryRow>) {}
}

#[test]
fn on_a_coarse_clock_timers_fire_only_on_tick_edges() {
    let woken = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
    let mut b = WorldBuilder::new(1, SimDuration::from_secs(1));
    let n = b.add_node("N");
    b.set_clock(n, Some(SimDuration::from_millis(100)));
    let ms = 1_000_000u64;
    // Asked for 37 ms, then (after each wake) the next ask later than now: 101 ms, then 450 ms.
    // A 100 ms clock rounds each up to its next edge: 100, 200 and 500 ms.
    let app = WakeLog { asks: vec![37 * ms, 100 * ms, 101 * ms, 450 * ms], woken: woken.clone() };
    b.add_application("log", n, Box::new(app), SimTime::ZERO, None);
    let mut w = b.build();
    w.run(SimDuration::ZERO, &mut |_| true);
    assert_eq!(*woken.lock().unwrap(), vec![100 * ms, 200 * ms, 500 * ms]);
}
