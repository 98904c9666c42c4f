//! Standard benchmark scenarios, built in code so they measure the engine and nothing else.
//!
//! `dumbbell-1`: seed 003's set-up — consumer – R1 – R2 – producer, 100 Mbps / 5 ms access links,
//! a 50 Mbps / 10 ms bottleneck (40 ms round trip), DropTail 100 packets, 1,024-byte payload, a
//! fixed window of 250 Interests (the 230-packet pipe plus some queue), 40 s.
//! `dumbbell-N`: N consumer/producer pairs sharing the same bottleneck, window 300/N each.
//! `tcp-1`, `tcp-N`: the same dumbbells carrying TCP NewReno flows instead, the workload other
//! packet simulators are measured with (a sender and a receiver per flow, no PIT or FIB).
//! Recording is limited to 100 ms samples, as a long sweep would use; built without recording
//! (`standard_with(…, Recording::Off)`), the same worlds measure what that recording costs.

use crate::cc::window::{FixedWindowConfig, WindowConfig};
use crate::face_selection::FaceSelection;
use crate::queue::{DropTailConfig, QueueConfig};
use crate::routing::Graph;
use crate::scenario::{ConsumerSpec, ProducerSpec, TcpSpec};
use crate::time::SimDuration;
use crate::units::Bytes;
use crate::world::{LinkParams, World, WorldBuilder};

pub const PAYLOAD: u64 = 1024;
/// The sampling interval of every benchmark that records.
pub const SAMPLE_INTERVAL: SimDuration = SimDuration::from_millis(100);
pub const OVERHEAD: u64 = 64;

/// Names of the standard scenarios (`ndncc-bench` with no names runs these).
pub fn standard_names() -> Vec<String> {
    vec!["dumbbell-1".into(), "dumbbell-20".into(), "dumbbell-1000".into()]
}

/// Every scenario `standard_for` knows, the heavy ones included (`ndncc-bench --all`).
pub fn all_names() -> Vec<String> {
    let mut v = standard_names();
    v.extend(
        ["tcp-1", "tcp-1000", "dumbbell-10000", "tcp-10000", "gbps-1", "gbps-10", "tree-1111", "grid-32"]
            .map(String::from),
    );
    v
}

fn droptail(packets: usize) -> QueueConfig {
    QueueConfig::Droptail(DropTailConfig { packets: Some(packets), bytes: None })
}

/// Whether a benchmark records its 100 ms samples. Without, it simulates the same packets and
/// the same events but for the sampling ticks, so the difference in cost is the recording's.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Recording {
    On,
    Off,
}

impl Recording {
    fn interval(self) -> Option<SimDuration> {
        (self == Recording::On).then_some(SAMPLE_INTERVAL)
    }
}

/// A dumbbell with `pairs` consumer/producer pairs, each consumer with a fixed window.
pub fn dumbbell(pairs: usize, window: f64, duration: SimDuration, seed: u64, rec: Recording) -> World {
    let mut b = WorldBuilder::new(seed, duration);
    b.record(rec.interval(), false, FaceSelection::All);
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
        let producer = ProducerSpec {
            payload: Bytes(PAYLOAD),
            overhead: Some(Bytes(OVERHEAD)),
            ..ProducerSpec::new(&pn, &prefix)
        };
        crate::instantiate::add_producer(&mut b, &pn, &producer).expect("a node of the world");
        let consumer = ConsumerSpec::with_window(&cn, &prefix, WindowConfig::Fixed(FixedWindowConfig { window }));
        crate::instantiate::add_consumer(&mut b, &cn, &consumer).expect("a node of the world");
    }
    b.build()
}

/// Simulated seconds a benchmark runs unless told otherwise.
pub const STANDARD_SECONDS: f64 = 40.0;

/// The longest a benchmark may be asked to simulate [s]: an hour. The point is to measure, and
/// a minute shows everything the standard 40 s do not (the heavy cases take minutes of wall
/// time per simulated minute).
pub const MAX_SECONDS: f64 = 3600.0;

/// The most pairs or flows `dumbbell-N` and `tcp-N` take: some 2 GB of world, where a larger
/// N would only exhaust memory.
pub const MAX_FLOWS: usize = 100_000;

/// Build a standard scenario by name, simulating `d`, recording as a sweep would.
pub fn standard_for(name: &str, d: SimDuration) -> Option<World> {
    standard_with(name, d, Recording::On)
}

/// Build a standard scenario by name, simulating `d`, with or without its recording.
pub fn standard_with(name: &str, d: SimDuration, rec: Recording) -> Option<World> {
    let text = |t: String| from_scenario(&with_recording(t, rec));
    match name {
        "dumbbell-1" => Some(dumbbell(1, 250.0, d, 1, rec)),
        "gbps-1" => Some(fast_flow(1_000_000_000, d, rec)),
        "gbps-10" => Some(fast_flow(10_000_000_000, d, rec)),
        "tree-1111" => text(tree_text(10, 3, d)),
        "grid-32" => text(grid_text(32, d)),
        "tcp-1" => text(tcp_text(d)),
        _ if name.starts_with("tcp-") => {
            let n: usize = name.strip_prefix("tcp-")?.parse().ok()?;
            (2..=MAX_FLOWS).contains(&n).then(|| tcp_dumbbell(n, d, rec))
        }
        _ => {
            let n: usize = name.strip_prefix("dumbbell-")?.parse().ok()?;
            (1..=MAX_FLOWS).contains(&n).then(|| dumbbell(n, (300.0 / n as f64).max(2.0), d, 1, rec))
        }
    }
}

/// One flow over a `bps` bottleneck (access links 10x faster, same delays as the dumbbell), its
/// fixed window the bandwidth-delay product plus a tenth.
pub fn fast_flow(bps: u64, duration: SimDuration, rec: Recording) -> World {
    let mut b = WorldBuilder::new(1, duration);
    b.record(rec.interval(), false, FaceSelection::All);
    let (c, r1, r2, p) = (b.add_node("C1"), b.add_node("R1"), b.add_node("R2"), b.add_node("P1"));
    let access = LinkParams::new(bps.saturating_mul(10), SimDuration::from_millis(5)).with_queue(droptail(1000));
    let bottleneck = LinkParams::new(bps, SimDuration::from_millis(10)).with_queue(droptail(1000));
    b.add_link("C1-R1", c, r1, access.clone(), access.clone()).expect("valid link");
    b.add_link("R1-R2", r1, r2, bottleneck.clone(), bottleneck).expect("valid link");
    b.add_link("R2-P1", r2, p, access.clone(), access).expect("valid link");
    for (from, to) in [(c, r1), (r1, r2), (r2, p)] {
        let f = b.face_between(from, to).expect("linked");
        b.add_route(from, "/p1", f, 1);
    }
    let producer =
        ProducerSpec { payload: Bytes(PAYLOAD), overhead: Some(Bytes(OVERHEAD)), ..ProducerSpec::new("P1", "/p1") };
    crate::instantiate::add_producer(&mut b, "P1", &producer).expect("a node of the world");
    // 40 ms round trip: bps × 0.04 / (8 × 1,088 B) Data in flight.
    let bdp = bps as f64 * 0.04 / (8.0 * (PAYLOAD + OVERHEAD) as f64);
    let consumer = ConsumerSpec::with_window("C1", "/p1", WindowConfig::Fixed(FixedWindowConfig { window: bdp * 1.1 }));
    crate::instantiate::add_consumer(&mut b, "C1", &consumer).expect("a node of the world");
    b.build()
}

/// A scenario file's text built into a world, as `ndncc run` would.
fn from_scenario(text: &str) -> Option<World> {
    let sc = crate::scenario::load_str(text, "bench.toml", &[]).ok()?;
    crate::instantiate::build_world(&sc, 1).ok()
}

/// The `[record]` interval line of every generated scenario.
const RECORD_INTERVAL: &str = "interval = \"100ms\"\n";

/// The recording and traffic every generated scenario shares.
fn scenario_head(duration: SimDuration) -> String {
    format!(
        "[simulation]\nduration = \"{}ms\"\n\n[defaults.link]\nbandwidth = \"100Mbps\"\ndelay = \"2ms\"\n\
         queue = {{ type = \"droptail\", packets = 100 }}\n\n[record]\n{RECORD_INTERVAL}events = false\n",
        duration.nanos() / 1_000_000
    )
}

/// A generated scenario's text, its sampling turned off (`"0s"`) unless `rec` is on.
fn with_recording(text: String, rec: Recording) -> String {
    match rec {
        Recording::On => text,
        Recording::Off => text.replacen(RECORD_INTERVAL, "interval = \"0s\"\n", 1),
    }
}

/// The dumbbell of `dumbbell-1` carrying one TCP NewReno flow instead of the NDN consumer:
/// 1,024-byte segments, so its packet hops compare with the NDN ones.
pub fn tcp_text(duration: SimDuration) -> String {
    let mut s = scenario_head(duration).replace("delay = \"2ms\"", "delay = \"5ms\"");
    s.push_str(
        "\n[nodes]\nS = {}\nR1 = {}\nR2 = {}\nD = {}\n\n[links.S-R1]\n[links.R1-R2]\nbandwidth = \"50Mbps\"\n\
         delay = \"10ms\"\n[links.R2-D]\n\n[apps.tcp]\ntype = \"tcp\"\nnode = \"S\"\nto = \"D\"\nmss = \"1024B\"\n",
    );
    s
}

/// The dumbbell of `dumbbell-N` carrying `flows` TCP NewReno flows instead of its NDN pairs:
/// sender `S<i>` beside R1, receiver `D<i>` beside R2, 1,024-byte segments and a scenario
/// file's defaults otherwise, as `tcp-1` has. Built in code as `dumbbell` is: a file of 10,000
/// flows recording every face for 40 s would pass the sample rows a file may ask for.
pub fn tcp_dumbbell(flows: usize, duration: SimDuration, rec: Recording) -> World {
    let mut b = WorldBuilder::new(1, duration);
    b.record(rec.interval(), false, FaceSelection::All);
    let access = LinkParams::new(100_000_000, SimDuration::from_millis(5)).with_queue(droptail(100));
    let bottleneck = LinkParams::new(50_000_000, SimDuration::from_millis(10)).with_queue(droptail(100));
    let (r1, r2) = (b.add_node("R1"), b.add_node("R2"));
    b.add_link("R1-R2", r1, r2, bottleneck.clone(), bottleneck).expect("valid link");
    // The link graph the IP routes follow: node indices as the builder numbers them.
    let mut graph = Graph::new(2 + 2 * flows);
    graph.add_edge(r1.idx(), r2.idx(), 1, 0);
    let spec: TcpSpec = toml::from_str("node = \"S\"\nto = \"D\"\nmss = \"1024B\"").expect("a valid TCP flow");
    for i in 1..=flows {
        let (sn, dn) = (format!("S{i}"), format!("D{i}"));
        let (s, d) = (b.add_node(&sn), b.add_node(&dn));
        b.add_link(&format!("{sn}-R1"), s, r1, access.clone(), access.clone()).expect("valid link");
        b.add_link(&format!("R2-{dn}"), r2, d, access.clone(), access.clone()).expect("valid link");
        graph.add_edge(s.idx(), r1.idx(), 1, 2 * i - 1);
        graph.add_edge(r2.idx(), d.idx(), 1, 2 * i);
        let flow = TcpSpec { node: sn, to: dn, ..spec.clone() };
        crate::instantiate::add_tcp_flow(&mut b, &format!("tcp{i}"), &flow).expect("nodes of the world");
    }
    let hosts = b.ip_hosts();
    b.install_ip_routes(&graph, &hosts);
    b.build()
}

/// A tree of fan-out `k` and depth `d` (1 + k + … + k^d nodes): one producer at the root,
/// a consumer with a fixed window of 4 on every leaf, each fetching its own name.
pub fn tree_text(k: usize, depth: u32, duration: SimDuration) -> String {
    let mut s = scenario_head(duration);
    s.push_str("\n[nodes]\nT = {}\n");
    let mut level = vec!["T".to_string()];
    let mut links = String::new();
    for _ in 0..depth {
        let mut next = Vec::new();
        for parent in &level {
            for i in 0..k {
                let child = format!("{parent}_{i}");
                s.push_str(&format!("{child} = {{}}\n"));
                links.push_str(&format!("\n[links.l{}]\nendpoints = [\"{parent}\", \"{child}\"]\n", links.len()));
                next.push(child);
            }
        }
        level = next;
    }
    s.push_str(&links);
    s.push_str("\n[apps.P]\ntype = \"producer\"\nnode = \"T\"\nprefix = \"/p\"\n");
    for (i, leaf) in level.iter().enumerate() {
        s.push_str(&format!(
            "\n[apps.c{i}]\ntype = \"consumer\"\nnode = \"{leaf}\"\nprefix = \"/p/c{i}\"\nwindow = {{ type = \"fixed\", window = 4 }}\n"
        ));
    }
    s
}

/// An n × n grid: the producer in a corner, a consumer with a fixed window of 4 on every other
/// node but the producer's, each fetching its own name.
pub fn grid_text(n: usize, duration: SimDuration) -> String {
    let mut s = scenario_head(duration);
    s.push_str("\n[nodes]\n");
    for y in 0..n {
        for x in 0..n {
            s.push_str(&format!("g{x}_{y} = {{}}\n"));
        }
    }
    for y in 0..n {
        for x in 0..n {
            if x + 1 < n {
                s.push_str(&format!("\n[links.h{x}_{y}]\nendpoints = [\"g{x}_{y}\", \"g{}_{y}\"]\n", x + 1));
            }
            if y + 1 < n {
                s.push_str(&format!("\n[links.v{x}_{y}]\nendpoints = [\"g{x}_{y}\", \"g{x}_{}\"]\n", y + 1));
            }
        }
    }
    s.push_str("\n[apps.P]\ntype = \"producer\"\nnode = \"g0_0\"\nprefix = \"/p\"\n");
    let mut i = 0;
    for y in 0..n {
        for x in 0..n {
            if (x, y) != (0, 0) && i < 1008 {
                s.push_str(&format!(
                    "\n[apps.c{i}]\ntype = \"consumer\"\nnode = \"g{x}_{y}\"\nprefix = \"/p/c{i}\"\nwindow = {{ type = \"fixed\", window = 4 }}\n"
                ));
                i += 1;
            }
        }
    }
    s
}

/// Minor page faults of the calling thread so far (0 where the system does not say): each is a
/// page of memory touched for the first time, whose cost (the kernel's, and zeroing the page)
/// no instruction count under valgrind includes. The difference over a run tells how much
/// memory the run took anew, as its buffers and tables grew.
pub fn page_faults() -> u64 {
    #[cfg(target_os = "linux")]
    let who = libc::RUSAGE_THREAD;
    #[cfg(all(unix, not(target_os = "linux")))]
    let who = libc::RUSAGE_SELF;
    #[cfg(unix)]
    {
        let mut usage = std::mem::MaybeUninit::<libc::rusage>::zeroed();
        // SAFETY: `getrusage` fills the `rusage` it is given (zeroed, so valid whatever it writes).
        if unsafe { libc::getrusage(who, usage.as_mut_ptr()) } == 0 {
            // SAFETY: zeroed and then filled by the call, which succeeded.
            let usage = unsafe { usage.assume_init() };
            return u64::try_from(usage.ru_minflt).unwrap_or(0);
        }
    }
    0
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

#[cfg(test)]
mod tests {
    use super::*;

    /// `tcp_dumbbell`'s scenario as a file would give it.
    fn tcp_dumbbell_text(flows: usize, duration: SimDuration) -> String {
        let mut s = scenario_head(duration).replace("delay = \"2ms\"", "delay = \"5ms\"");
        s.push_str("\n[nodes]\nR1 = {}\nR2 = {}\n");
        for i in 1..=flows {
            s.push_str(&format!("S{i} = {{}}\nD{i} = {{}}\n"));
        }
        s.push_str("\n[links.R1-R2]\nbandwidth = \"50Mbps\"\ndelay = \"10ms\"\n");
        for i in 1..=flows {
            s.push_str(&format!("[links.S{i}-R1]\n[links.R2-D{i}]\n"));
        }
        for i in 1..=flows {
            s.push_str(&format!("\n[apps.tcp{i}]\ntype = \"tcp\"\nnode = \"S{i}\"\nto = \"D{i}\"\nmss = \"1024B\"\n"));
        }
        s
    }

    /// Built in code, the TCP dumbbell runs as its scenario file does: the same counters, the
    /// same summary (every flow's bytes, every face's queue) and as many recorded rows.
    #[test]
    fn a_tcp_dumbbell_in_code_runs_as_its_scenario_file() {
        let d = SimDuration::from_millis(1500);
        let mut file = from_scenario(&tcp_dumbbell_text(3, d)).expect("a valid scenario");
        let mut code = tcp_dumbbell(3, d, Recording::On);
        for w in [&mut file, &mut code] {
            w.run(SimDuration::ZERO, &mut |_| true);
        }
        assert!(code.counters().packet_hops > 1000);
        assert_eq!(code.counters(), file.counters());
        // A file's links and nodes are numbered in name order, so its faces come in another
        // order: the rows are compared by what they describe.
        let sorted = |w: &World| {
            let mut rows = w.summary();
            rows.sort_by(|a, b| (&a.entity, &a.metric).cmp(&(&b.entity, &b.metric)));
            rows
        };
        assert_eq!(sorted(&code), sorted(&file));
        assert_eq!(code.recorder().rows(), file.recorder().rows());
    }
}
