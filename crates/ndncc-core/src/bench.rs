//! Standard benchmark scenarios, built in code so they measure the engine and nothing else.
//!
//! `dumbbell-1`: seed 003's set-up — consumer – R1 – R2 – producer, 100 Mbps / 5 ms access links,
//! a 50 Mbps / 10 ms bottleneck (40 ms round trip), DropTail 100 packets, 1,024-byte payload, a
//! fixed window of 250 Interests (the 230-packet pipe plus some queue), 40 s.
//! `dumbbell-N`: N consumer/producer pairs sharing the same bottleneck, window 300/N each.
//! Recording is limited to 100 ms samples, as a long sweep would use.

use crate::cc::window::{FixedWindowConfig, WindowConfig};
use crate::queue::{DropTailConfig, QueueConfig};
use crate::scenario::{ConsumerSpec, ProducerSpec};
use crate::time::SimDuration;
use crate::units::Bytes;
use crate::world::builder::FaceSelection;
use crate::world::{LinkParams, World, WorldBuilder};

pub const PAYLOAD: u64 = 1024;
pub const OVERHEAD: u64 = 64;

/// Names of the standard scenarios.
pub fn standard_names() -> Vec<String> {
    vec!["dumbbell-1".into(), "dumbbell-20".into()]
}

fn droptail(packets: usize) -> QueueConfig {
    QueueConfig::Droptail(DropTailConfig { packets: Some(packets), bytes: None })
}

/// A dumbbell with `pairs` consumer/producer pairs, each consumer with a fixed window.
pub fn dumbbell(pairs: usize, window: f64, duration: SimDuration, seed: u64) -> World {
    let mut b = WorldBuilder::new(seed, duration);
    b.record(Some(SimDuration::from_millis(100)), false, FaceSelection::All);
    let r1 = b.add_node("R1");
    let r2 = b.add_node("R2");
    let access = LinkParams::new(100_000_000, SimDuration::from_millis(5)).with_queue(droptail(100));
    let bottleneck = LinkParams::new(50_000_000, SimDuration::from_millis(10)).with_queue(droptail(100));
    b.add_link("R1-R2", r1, r2, bottleneck.clone(), bottleneck).expect("valid link");
    for i in 0..pairs {
        let c = b.add_node(&format!("C{}", i + 1));
        let p = b.add_node(&format!("P{}", i + 1));
        b.add_link(&format!("C{}-R1", i + 1), c, r1, access.clone(), access.clone()).expect("valid link");
        b.add_link(&format!("R2-P{}", i + 1), r2, p, access.clone(), access.clone()).expect("valid link");
        let prefix = format!("/p{}", i + 1);
        let f_c = b.face_between(c, r1).expect("linked");
        let f_r1 = b.face_between(r1, r2).expect("linked");
        let f_r2 = b.face_between(r2, p).expect("linked");
        b.add_route(c, &prefix, f_c, 1);
        b.add_route(r1, &prefix, f_r1, 1);
        b.add_route(r2, &prefix, f_r2, 1);
        let (pn, cn) = (format!("P{}", i + 1), format!("C{}", i + 1));
        let producer =
            ProducerSpec { payload: Bytes(PAYLOAD), overhead: Bytes(OVERHEAD), ..ProducerSpec::new(&pn, &prefix) };
        b.add_producer(&pn, &producer).expect("a node of the world");
        let consumer = ConsumerSpec::with_window(&cn, &prefix, WindowConfig::Fixed(FixedWindowConfig { window }));
        b.add_consumer(&cn, &consumer).expect("a node of the world");
    }
    b.build()
}

/// Build a standard scenario by name (40 simulated seconds).
pub fn standard(name: &str) -> Option<World> {
    standard_for(name, SimDuration::from_secs(40))
}

/// Build a standard scenario by name, simulating `d`.
pub fn standard_for(name: &str, d: SimDuration) -> Option<World> {
    match name {
        "dumbbell-1" => Some(dumbbell(1, 250.0, d, 1)),
        _ => {
            let n: usize = name.strip_prefix("dumbbell-")?.parse().ok()?;
            (n > 0).then(|| dumbbell(n, (300.0 / n as f64).max(2.0), d, 1))
        }
    }
}

/// Peak resident set size of this process [MiB], from /proc (0 where unavailable).
pub fn peak_rss_mb() -> f64 {
    std::fs::read_to_string("/proc/self/status")
        .ok()
        .and_then(|s| {
            s.lines()
                .find(|l| l.starts_with("VmHWM:"))
                .and_then(|l| l.split_whitespace().nth(1).and_then(|kb| kb.parse::<f64>().ok()))
        })
        .map_or(0.0, |kb| kb / 1024.0)
}
