//! Experiment E1 (seed 000) at the engine level: MIRCC under coarse-grained clocks, with and
//! without Interest-sending smoothing, on the seed's dumbbell.
//!
//! ```text
//!   C1 ─10 Mbps/50 ms─┐                        ┌─10 Mbps/50 ms─ P1
//!                     R1 ───12 Mbps/100 ms─── R2
//!   C2 ─10 Mbps/50 ms─┘                        └─10 Mbps/50 ms─ P2
//! ```
//!
//! Data are 1,250 B on the wire (1,200 B payload + 50 B overhead), so the access links carry
//! 1,000 Data/s and the bottleneck 1,200 Data/s. C1 fetches /p1 from 1 s to 10 s, C2 fetches /p2
//! from 3 s to 8 s; no caching, no retransmission. Every consumer and router node has the same
//! coarse clock tick, which is also MIRCC's interval T. Interest policing with depth 200: the
//! consumers' own policer (`interest_bucket`) and the routers' upstream Interest shapers.
//!
//! Our assumptions where the seed is silent: DropTail queues of 1,000 packets, so that only the
//! 200-deep policers limit a tick's burst (with 100-packet queues the consumers' links drop
//! half of a 200-Interest burst, and the 250 ms loss is ~0.59 instead of the seed's 0.10–0.24);
//! 40-byte Interests; 2 s Interest lifetime; the consumers' initial rate of 100 Interests/s
//! until the first stamp; and the MIRCC module's defaults (module docs), β among them.
//!
//! The stateful-forwarding baseline runs on the same dumbbell with rate-mode `interest-limit`
//! meters (depth 200, the link's Data rate) on the consumer and router nodes instead of MIRCC
//! and the routers' shapers, and `aimd-rate` consumers.
//!
//! Run `cargo test -p ndncc-core --release --test e1_mircc -- --nocapture --test-threads 1` to
//! print the tables.

use std::sync::OnceLock;

use ndncc_core::app::Controller;
use ndncc_core::cc::rate::{AimdRate, AimdRateConfig, MirccRate, MirccRateConfig};
use ndncc_core::cc::rate::{ConstantRateConfig, RateConfig};
use ndncc_core::face_selection::FaceSelection;
use ndncc_core::instantiate;
use ndncc_core::module::interest_limit::{InterestLimit, InterestLimitConfig, LimitMode};
use ndncc_core::module::mircc::{Mircc, MirccConfig};
use ndncc_core::module::RouterModule;
use ndncc_core::queue::token_bucket::ShaperConfig;
use ndncc_core::queue::{DropTailConfig, QueueConfig};
use ndncc_core::scenario::{ConsumerSpec, ProducerSpec};
use ndncc_core::time::{SimDuration, SimTime};
use ndncc_core::units::{Bytes, Duration};
use ndncc_core::world::{LinkParams, World, WorldBuilder};

const TICKS_MS: [u64; 4] = [100, 250, 500, 750];
const DATA_SIZE: u64 = 1250;
/// DropTail limit of every link direction [packets] (our assumption, see the file docs).
const QUEUE_PACKETS: usize = 1000;

/// The seed's Tables IV and V: overall loss of (C1, C2) per tick, original and smoothing.
const SEED_ORIGINAL: [(f64, f64); 4] = [(0.017, 0.036), (0.103, 0.239), (0.552, 0.576), (0.704, 0.712)];
const SEED_SMOOTHING: [(f64, f64); 4] = [(0.009, 0.034), (0.062, 0.145), (0.156, 0.308), (0.209, 0.399)];

/// Which congestion control runs on the dumbbell.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Scheme {
    /// MIRCC routers and consumers, with β fixed (`Some`) or self-tuned (`None`).
    Mircc { beta: Option<f64> },
    /// MIRCC with β self-tuned from the given base value.
    MirccTuned { beta: f64 },
    /// Stateful-forwarding Interest limiting (rate meters of depth 200) with AIMD-rate consumers.
    InterestLimit,
}

fn droptail(n: usize) -> QueueConfig {
    QueueConfig::Droptail(DropTailConfig { packets: Some(n), bytes: None })
}

fn shaper() -> ShaperConfig {
    ShaperConfig { rate: None, data_size: Bytes(DATA_SIZE), depth: 200, burst: 1.0 }
}

/// One direction of a link, with the Interest shaper when `shaped`.
fn dir(mbps: u64, delay_ms: u64, shaped: bool) -> LinkParams {
    let mut p =
        LinkParams::new(mbps * 1_000_000, SimDuration::from_millis(delay_ms)).with_queue(droptail(QUEUE_PACKETS));
    if shaped {
        p.shaper = Some(shaper());
    }
    p
}

fn module(scheme: Scheme, tick: SimDuration) -> Box<dyn RouterModule> {
    match scheme {
        Scheme::Mircc { beta } => {
            let mut c = MirccConfig { interval: Duration(tick), data_size: Bytes(DATA_SIZE), ..MirccConfig::default() };
            if let Some(b) = beta {
                c.beta = b;
                c.self_tune_beta = false;
            }
            Box::new(Mircc::new(&c))
        }
        Scheme::MirccTuned { beta } => {
            let c =
                MirccConfig { interval: Duration(tick), data_size: Bytes(DATA_SIZE), beta, ..MirccConfig::default() };
            Box::new(Mircc::new(&c))
        }
        Scheme::InterestLimit => Box::new(InterestLimit::new(&InterestLimitConfig {
            mode: LimitMode::Rate,
            depth: Some(200.0),
            data_size: Bytes(DATA_SIZE),
            interest_size: Bytes(0),
            ..InterestLimitConfig::default()
        })),
    }
}

fn controller(scheme: Scheme) -> Controller {
    match scheme {
        Scheme::Mircc { .. } | Scheme::MirccTuned { .. } => {
            Controller::Rate(Box::new(MirccRate::new(&MirccRateConfig::default())))
        }
        Scheme::InterestLimit => Controller::Rate(Box::new(AimdRate::new(&AimdRateConfig::default()))),
    }
}

/// A consumer on `node` fetching `prefix` from `start_s` to `stop_s` (its rate table is replaced by
/// the controller given with it).
fn consumer(node: &str, prefix: &str, smoothing: bool, start_s: u64, stop_s: u64) -> ConsumerSpec {
    let base = ConsumerSpec::with_rate(node, prefix, RateConfig::Constant(ConstantRateConfig { rate: 1.0 }));
    ConsumerSpec {
        retransmit: false,
        interest_bucket: 200,
        smoothing,
        start: Duration::from_secs(start_s),
        stop: Some(Duration::from_secs(stop_s)),
        ..base
    }
}

fn e1_world(scheme: Scheme, tick_ms: u64, smoothing: bool) -> World {
    let tick = SimDuration::from_millis(tick_ms);
    let mut b = WorldBuilder::new(1, SimDuration::from_secs(11));
    b.record(Some(SimDuration::from_millis(100)), false, FaceSelection::All);
    let n = |b: &mut WorldBuilder, s: &str| b.add_node(s);
    let (c1, c2, r1, r2, p1, p2) =
        (n(&mut b, "C1"), n(&mut b, "C2"), n(&mut b, "R1"), n(&mut b, "R2"), n(&mut b, "P1"), n(&mut b, "P2"));
    // MIRCC: Interest shapers on the routers' upstream faces (the consumers police themselves).
    // The stateful-forwarding baseline limits Interests with its meters instead.
    let shaped = scheme != Scheme::InterestLimit;
    b.add_link("C1-R1", c1, r1, dir(10, 50, false), dir(10, 50, false)).unwrap();
    b.add_link("C2-R1", c2, r1, dir(10, 50, false), dir(10, 50, false)).unwrap();
    b.add_link("R1-R2", r1, r2, dir(12, 100, shaped), dir(12, 100, false)).unwrap();
    b.add_link("R2-P1", r2, p1, dir(10, 50, shaped), dir(10, 50, false)).unwrap();
    b.add_link("R2-P2", r2, p2, dir(10, 50, shaped), dir(10, 50, false)).unwrap();
    for (node, next, prefix) in
        [(c1, r1, "/p1"), (c2, r1, "/p2"), (r1, r2, "/p1"), (r1, r2, "/p2"), (r2, p1, "/p1"), (r2, p2, "/p2")]
    {
        let f = b.face_between(node, next).unwrap();
        b.add_route(node, prefix, f, 1);
    }
    for node in [c1, c2, r1, r2] {
        b.set_clock(node, Some(tick));
        b.add_module(node, module(scheme, tick));
    }
    for (name, prefix) in [("P1", "/p1"), ("P2", "/p2")] {
        let spec = ProducerSpec { payload: Bytes(1200), overhead: Some(Bytes(50)), ..ProducerSpec::new(name, prefix) };
        instantiate::add_producer(&mut b, name, &spec).expect("a node of the world");
    }
    instantiate::add_consumer_with(&mut b, "C1", &consumer("C1", "/p1", smoothing, 1, 10), controller(scheme))
        .expect("a node");
    instantiate::add_consumer_with(&mut b, "C2", &consumer("C2", "/p2", smoothing, 3, 8), controller(scheme))
        .expect("a node");
    b.build()
}

/// What one run gives: overall loss and mean Interest sending rates per flow.
#[derive(Clone, Copy, Debug)]
struct Outcome {
    loss: (f64, f64),
    /// Mean Interest rate over 4–8 s [Interests/s], (C1, C2).
    shared: (f64, f64),
    /// C1's mean Interest rate over 1.5–3 s [Interests/s].
    c1_alone: f64,
    conservation_ok: bool,
}

fn summary(w: &World, entity: &str, metric: &str) -> f64 {
    w.summary().into_iter().find(|r| r.entity == entity && r.metric == metric).map_or(f64::NAN, |r| r.value)
}

/// A consumer's cumulative `interests_sent` sample at `t` seconds.
fn sent_at(w: &World, entity: &str, t: f64) -> f64 {
    let rec = &w.recorder();
    let e = rec.entity_names().iter().position(|n| n == entity).unwrap() as u32;
    let m = rec.metric_names().iter().position(|n| n == "interests_sent").unwrap() as u32;
    let at = SimTime::from_secs_f64(t).0;
    rec.series.rows().find(|r| r.0 == at && r.1 == e && r.2 == m).map_or(f64::NAN, |r| r.3)
}

fn mean_rate(w: &World, entity: &str, from: f64, to: f64) -> f64 {
    (sent_at(w, entity, to) - sent_at(w, entity, from)) / (to - from)
}

fn run(scheme: Scheme, tick_ms: u64, smoothing: bool) -> Outcome {
    let mut w = e1_world(scheme, tick_ms, smoothing);
    w.run(SimDuration::ZERO, &mut |_| true);
    Outcome {
        loss: (summary(&w, "C1", "unanswered_rate"), summary(&w, "C2", "unanswered_rate")),
        shared: (mean_rate(&w, "C1", 4.0, 8.0), mean_rate(&w, "C2", 4.0, 8.0)),
        c1_alone: mean_rate(&w, "C1", 1.5, 3.0),
        conservation_ok: w.conservation().iter().all(|(_, c)| c.holds()),
    }
}

/// Original and smoothing runs of MIRCC (self-tuned β) at the four ticks, computed once.
fn table() -> &'static [(Outcome, Outcome); 4] {
    static T: OnceLock<[(Outcome, Outcome); 4]> = OnceLock::new();
    T.get_or_init(|| {
        let mircc = Scheme::Mircc { beta: None };
        let t = TICKS_MS.map(|ms| (run(mircc, ms, false), run(mircc, ms, true)));
        println!("E1, MIRCC (self-tuned beta): overall loss rate, ours vs the seed's");
        println!("tick   | original C1    C2           | smoothing C1   C2");
        for (i, (o, s)) in t.iter().enumerate() {
            let (so, ss) = (SEED_ORIGINAL[i], SEED_SMOOTHING[i]);
            println!(
                "{:>4}ms | {:.3} ({:.3})  {:.3} ({:.3}) | {:.3} ({:.3})  {:.3} ({:.3})",
                TICKS_MS[i], o.loss.0, so.0, o.loss.1, so.1, s.loss.0, ss.0, s.loss.1, ss.1
            );
        }
        println!("E1 mean Interest rates [Interests/s]: C1 1.5-3 s; C1, C2 4-8 s");
        for (i, (o, s)) in t.iter().enumerate() {
            println!(
                "{:>4}ms | original {:6.0} {:6.0} {:6.0} | smoothing {:6.0} {:6.0} {:6.0}",
                TICKS_MS[i], o.c1_alone, o.shared.0, o.shared.1, s.c1_alone, s.shared.0, s.shared.1
            );
        }
        t
    })
}

fn within(x: f64, target: f64, tol: f64) -> bool {
    (x - target).abs() <= tol * target
}

#[test]
fn every_e1_run_conserves_interests() {
    for (o, s) in table() {
        assert!(o.conservation_ok && s.conservation_ok);
    }
}

#[test]
fn with_a_100ms_tick_c1_alone_runs_near_1000_and_both_flows_share_near_600_with_little_loss() {
    let o = table()[0].0;
    assert!(within(o.c1_alone, 1000.0, 0.15), "C1 alone {:.0}/s", o.c1_alone);
    assert!(within(o.shared.0, 600.0, 0.15), "C1 shared {:.0}/s", o.shared.0);
    assert!(within(o.shared.1, 600.0, 0.15), "C2 shared {:.0}/s", o.shared.1);
    assert!(o.loss.0 < 0.05 && o.loss.1 < 0.05, "loss {:?}", o.loss);
}

#[test]
fn original_loss_rises_with_the_tick_and_exceeds_a_third_at_500_and_750ms() {
    let t = table();
    for i in 1..4 {
        let (prev, cur) = (t[i - 1].0.loss, t[i].0.loss);
        assert!(cur.0 >= prev.0 && cur.1 >= prev.1, "tick {} ms: {cur:?} after {prev:?}", TICKS_MS[i]);
    }
    for i in [2, 3] {
        let l = t[i].0.loss;
        assert!(l.0 > 0.3 && l.1 > 0.3, "tick {} ms: {l:?}", TICKS_MS[i]);
    }
}

#[test]
fn smoothing_at_least_halves_the_loss_at_500_and_750ms() {
    let t = table();
    for i in [2, 3] {
        let (o, s) = (t[i].0.loss, t[i].1.loss);
        assert!(s.0 <= 0.5 * o.0 && s.1 <= 0.5 * o.1, "tick {} ms: smoothing {s:?} vs original {o:?}", TICKS_MS[i]);
    }
}

#[test]
fn an_e1_run_is_repeatable_and_records_the_routers_rates() {
    let columns = || {
        let mut w = e1_world(Scheme::Mircc { beta: None }, 250, true);
        w.run(SimDuration::ZERO, &mut |_| true);
        let values = |c: &ndncc_core::recorder::Columns| c.rows().map(|r| r.3).collect::<Vec<_>>();
        (values(&w.recorder().series), values(&w.recorder().faces), w.counters().events)
    };
    assert_eq!(columns(), columns());
    // R(t) of the bottleneck face, sampled every 100 ms once MIRCC has updated it.
    let mut w = e1_world(Scheme::Mircc { beta: None }, 100, false);
    w.run(SimDuration::ZERO, &mut |_| true);
    let rec = &w.recorder();
    let e = rec.entity_names().iter().position(|n| n == "R1->R2").unwrap() as u32;
    let m = rec.metric_names().iter().position(|n| n == "mircc_rate").unwrap() as u32;
    let rates: Vec<f64> = rec.faces.rows().filter(|r| r.1 == e && r.2 == m).map(|r| r.3).collect();
    assert_eq!(rates.len(), 110);
    assert!(rates.iter().all(|r| (1.0..=1200.0).contains(r)));
}

#[test]
fn beta_sensitivity_at_a_100ms_tick() {
    // Fixed β from 0 to 2, then the default self-tuned rule (β = 0.5 · min(1, d/T)) and the
    // same rule from β = 1.
    let fixed = [0.0, 0.25, 0.5, 1.0, 2.0];
    let mut schemes: Vec<(String, Scheme)> =
        fixed.iter().map(|&b| (format!("fixed {b}"), Scheme::Mircc { beta: Some(b) })).collect();
    schemes.push(("tuned 0.5".into(), Scheme::Mircc { beta: None }));
    schemes.push(("tuned 1".into(), Scheme::MirccTuned { beta: 1.0 }));
    println!("E1 at 100 ms, sensitivity to beta: loss C1 C2 | rates C1 alone 1.5-3 s, C1 C2 4-8 s");
    let mut shared_sum = Vec::new();
    for (name, scheme) in &schemes {
        let o = run(*scheme, 100, false);
        println!(
            "{name:>10} | {:.3} {:.3} | {:4.0} {:4.0} {:4.0}",
            o.loss.0, o.loss.1, o.c1_alone, o.shared.0, o.shared.1
        );
        assert!(o.conservation_ok);
        // Whatever β, the two flows share the bottleneck evenly and lose little.
        assert!((o.shared.0 - o.shared.1).abs() <= 0.1 * (o.shared.0 + o.shared.1) / 2.0, "{name}: {:?}", o.shared);
        assert!(o.loss.0 < 0.06 && o.loss.1 < 0.06, "{name}: {:?}", o.loss);
        shared_sum.push(o.shared.0 + o.shared.1);
    }
    // A larger fixed β drains harder and leaves less of the bottleneck used (2 % slack).
    for i in 1..fixed.len() {
        assert!(shared_sum[i] <= 1.02 * shared_sum[i - 1], "beta {}: {:?}", fixed[i], &shared_sum[..fixed.len()]);
    }
}

#[test]
fn stateful_forwarding_interest_limiting_runs_on_the_e1_dumbbell() {
    println!("E1 dumbbell, interest-limit + aimd-rate: loss C1 C2 | rates C1 alone, C1 C2 shared");
    for &ms in &TICKS_MS {
        for smoothing in [false, true] {
            let o = run(Scheme::InterestLimit, ms, smoothing);
            println!(
                "{ms:>4}ms smoothing={smoothing:<5} | {:.3} {:.3} | {:.0} {:.0} {:.0}",
                o.loss.0, o.loss.1, o.c1_alone, o.shared.0, o.shared.1
            );
            assert!(o.conservation_ok);
            assert!(o.shared.0 > 0.0 && o.shared.1 > 0.0);
        }
    }
}
