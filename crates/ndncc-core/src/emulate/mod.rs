//! Emulation: real NDN applications attached to simulated nodes, their packets crossing the
//! simulated links, queues and strategies in real time (`ndncc emulate`).
//!
//! ```text
//!  real app ─TCP/Unix/UDP─▶ transport (threads: read, cut by TLV length, stamp)
//!                              │ channel
//!                              ▼
//!  driver (one thread: the world's) ── decode ──▶ slot inbox ──▶ FaceApp on NODE ──▶ node
//!     │  /localhost/nfd/rib/* ──▶ Rib: FIB routes here and towards here     (forwarder, links…)
//!     │                                                                       │
//!     └─ run events due by the wall clock ◀───── slot outbox ◀── FaceApp ◀────┘
//!                         │ bytes
//!                         ▼
//!                      transport (writer thread) ─▶ real app
//! ```
//!
//! Each `--face NODE=URI` listens like NFD's face of that transport; each connection takes one
//! of the listener's application faces on NODE (`ext{listener}.{slot}`), made when the world is
//! built (a world's faces do not change while it runs). The sockets live in Rust, on threads
//! blocked in the kernel, and the driver sleeps on a channel with a deadline: a packet or the
//! next event wakes it within tens of microseconds, with no Python and no GIL in the loop. This
//! is the only part of the crate that reads the wall clock; the world it drives does not
//! (`World::run_until`).

pub mod bridge;
pub mod driver;
pub mod face_app;
pub mod plan;
pub mod priority;
pub mod rib;
pub mod store;
pub mod transport;
pub mod uri;

use std::path::PathBuf;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use crate::api::{self, RunOutput, SummaryRow};
use crate::instantiate::build_world;
use crate::recorder::Unit;
use crate::rng::stream;
use crate::scenario::Scenario;
use crate::trace::PcapTap;
use bridge::Bridge;
use driver::{Driver, LagReport, SlotFace};
use face_app::FaceApp;
use plan::RoutePlan;
use rib::Rib;
use uri::FaceSpec;

/// Connections one `--face` takes at once, when not told.
pub const DEFAULT_CONNECTIONS: usize = 16;
/// The most connections one `--face` may be given.
pub const MAX_CONNECTIONS: usize = 1024;

/// How to emulate.
#[derive(Clone, Debug)]
pub struct EmulateOptions {
    /// Root seed; `None` = the scenario's own.
    pub seed: Option<u64>,
    /// `NODE=URI` arguments.
    pub faces: Vec<String>,
    /// Connections each face takes at once (1 to `MAX_CONNECTIONS`).
    pub connections: usize,
    /// Write a packet trace here (as `api::RunOptions::pcap`).
    pub pcap: Option<PathBuf>,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// A bad `--face` argument, an unknown node, or a socket that cannot listen.
    #[error("{0}")]
    Face(String),
    #[error(transparent)]
    Run(#[from] api::Error),
}

/// What an emulation leaves: a run's output, with the lag report in its summary too.
pub struct EmulateOutput {
    pub run: RunOutput,
    pub lag: LagReport,
}

/// A running emulation.
pub struct Emulation {
    /// (node, URI) of each listening face, with the port each got.
    pub faces: Vec<(String, String)>,
    stop: Arc<AtomicBool>,
    /// Behind a lock so that a handle can be shared (the Python binding waits without the GIL).
    log: Mutex<Receiver<String>>,
    thread: Option<JoinHandle<Result<EmulateOutput, api::Error>>>,
}

/// What waiting on an emulation gave.
#[derive(Debug, PartialEq, Eq)]
pub enum Event {
    Log(String),
    /// Nothing within the time waited.
    Quiet,
    /// The emulation has ended; `Emulation::finish` gives its output.
    Ended,
}

fn faces_of(scenario: &Scenario, opts: &EmulateOptions) -> Result<Vec<FaceSpec>, Error> {
    if opts.faces.is_empty() {
        return Err(Error::Face("no --face given: name at least one NODE=URI to listen on".into()));
    }
    if !(1..=MAX_CONNECTIONS).contains(&opts.connections) {
        return Err(Error::Face(format!(
            "--connections {}: expected 1 to {MAX_CONNECTIONS} per face",
            opts.connections
        )));
    }
    let mut out = Vec::new();
    for arg in &opts.faces {
        let spec = uri::parse_face(arg).map_err(Error::Face)?;
        if !scenario.nodes.contains_key(&spec.node) {
            let known: Vec<&str> = scenario.nodes.keys().map(String::as_str).take(10).collect();
            return Err(Error::Face(format!(
                "--face '{arg}': '{}' is not a node of the scenario (its nodes: {})",
                spec.node,
                known.join(", ")
            )));
        }
        out.push(spec);
    }
    Ok(out)
}

/// Give each simulated consumer whose prefix nothing routes yet (a real producer is to register
/// it) a route on its node to a face that answers nothing, at the highest cost: its Interests
/// then time out and are sent again at its retransmission timer's pace, where with no route at
/// all each would be refused at once and sent again at once, a zero-delay loop that stalls the
/// run. The first registration that covers the prefix takes the waiting route away.
fn wait_for_real_producers(
    scenario: &Scenario,
    world: &mut crate::world::World,
    bridge: &Bridge,
    slots: &mut Vec<SlotFace>,
) -> Vec<rib::Waiting> {
    let mut waiting = Vec::new();
    for spec in scenario.apps.values() {
        let crate::scenario::AppSpec::Consumer(c) = spec else { continue };
        let Some(node) = world.net.node_by_name(&c.node) else { continue };
        let Some(name) = world.net.names.get(&c.prefix) else { continue };
        let net = &mut world.net;
        if net.nodes[node.idx()].fib.lookup(name, &net.names).is_some() {
            continue;
        }
        if !waiting.iter().any(|w: &rib::Waiting| w.node == node && w.prefix == c.prefix) {
            // A slot no listener hands out: packets to it are dropped (and counted).
            let slot = bridge.add_slot();
            let app = FaceApp::new(format!("wait{slot}"), slot, bridge.clone());
            let (app_id, face) = world.attach_app(&format!("wait{slot}"), node, Box::new(app));
            slots.push(SlotFace { app: app_id, face, node, listener: usize::MAX });
            world.keep_route(node, &c.prefix, face, u64::MAX);
            waiting.push(rib::Waiting { node, prefix: crate::names::canonical(&c.prefix), face });
        }
    }
    waiting
}

impl Emulation {
    /// Build the world, open the listening sockets and start the engine on a thread of its own.
    pub fn start(scenario: &Scenario, opts: &EmulateOptions) -> Result<Emulation, Error> {
        crate::scenario::allowing_real_producers(|| scenario.validate()).map_err(api::Error::from)?;
        let specs = faces_of(scenario, opts)?;
        let seed = opts.seed.unwrap_or(scenario.simulation.seed);
        let mut world = build_world(scenario, seed).map_err(api::Error::from)?;
        // The application faces the connections will take, `connections` per listener.
        let bridge = Bridge::new(specs.len() * opts.connections);
        let mut slots = Vec::new();
        for (j, spec) in specs.iter().enumerate() {
            let node = world.net.node_by_name(&spec.node);
            let Some(node) = node else { return Err(Error::Face(format!("no node {}", spec.node))) };
            for k in 0..opts.connections {
                let slot = slots.len();
                let name = format!("ext{j}.{k}");
                let app = FaceApp::new(name.clone(), slot, bridge.clone());
                let (app_id, face) = world.attach_app(&name, node, Box::new(app));
                slots.push(SlotFace { app: app_id, face, node, listener: j });
            }
        }
        let waiting = wait_for_real_producers(scenario, &mut world, &bridge, &mut slots);
        let origins: Vec<_> = slots.iter().map(|s| s.node).collect();
        let plan = RoutePlan::new(scenario, seed, &world, &origins);
        let trace = match &opts.pcap {
            Some(path) => Some(api::start_trace(path, &mut world, scenario, seed)?),
            None => None,
        };
        let (tx, rx) = mpsc::channel();
        let ids = Arc::new(AtomicU64::new(0));
        let mut listeners = Vec::new();
        let mut faces = Vec::new();
        for (j, spec) in specs.iter().enumerate() {
            match transport::listen(&spec.listen, j, tx.clone(), ids.clone()) {
                Ok(l) => {
                    faces.push((spec.node.clone(), l.uri.clone()));
                    listeners.push(l);
                }
                Err(e) => {
                    for l in &listeners {
                        l.stop();
                    }
                    return Err(Error::Face(format!("cannot listen on {}: {e}", spec.listen.uri())));
                }
            }
        }
        drop(tx);
        let stop = Arc::new(AtomicBool::new(false));
        let (log_tx, log) = mpsc::channel();
        let driver = Driver::new(
            world,
            bridge,
            Rib::new(plan, waiting),
            slots,
            rx,
            log_tx,
            stop.clone(),
            stream(seed, "emulate"),
        );
        let pcap = opts.pcap.clone();
        let thread = std::thread::Builder::new()
            .name("ndncc-emulate".into())
            .spawn(move || run_driver(driver, listeners, trace, pcap, seed))
            .map_err(|e| Error::Face(format!("cannot start the engine thread: {e}")))?;
        Ok(Emulation { faces, stop, log: Mutex::new(log), thread: Some(thread) })
    }

    /// Wait up to `timeout` for a log line or the end.
    pub fn wait(&self, timeout: Duration) -> Event {
        let log = self.log.lock().unwrap_or_else(|p| p.into_inner());
        match log.recv_timeout(timeout) {
            Ok(line) => Event::Log(line),
            Err(RecvTimeoutError::Timeout) => Event::Quiet,
            Err(RecvTimeoutError::Disconnected) => Event::Ended,
        }
    }

    /// Ask the engine to stop now (Ctrl-C); the run then summarises the time it ran.
    pub fn stop(&self) {
        self.stop.store(true, Ordering::SeqCst);
    }

    /// Wait for the end and take the output.
    pub fn finish(mut self) -> Result<EmulateOutput, Error> {
        let Some(t) = self.thread.take() else { return Err(api::Error::Internal("finished twice".into()).into()) };
        match t.join() {
            Ok(r) => r.map_err(Error::from),
            Err(_) => Err(api::Error::Internal("the emulation's engine thread panicked".into()).into()),
        }
    }
}

impl Drop for Emulation {
    fn drop(&mut self) {
        self.stop();
    }
}

fn run_driver(
    mut driver: Driver,
    listeners: Vec<transport::Listener>,
    trace: Option<Arc<Mutex<PcapTap>>>,
    pcap: Option<PathBuf>,
    seed: u64,
) -> Result<EmulateOutput, api::Error> {
    let got = priority::raise_current_thread();
    let _ = driver.log.send(format!("engine thread: {got}"));
    let t0 = Instant::now();
    let end = driver.run();
    for l in &listeners {
        l.stop();
    }
    let counts = match (&trace, &pcap) {
        (Some(tap), Some(path)) => Some(api::finish_trace(tap, path)?),
        _ => None,
    };
    api::finished(end.err().unwrap_or(crate::world::RunEnd::Finished))?;
    let lag = driver.lag_report();
    let wall = t0.elapsed().as_secs_f64();
    let Driver { world, .. } = driver;
    let mut run = api::collect(world, seed, wall);
    run.trace = counts;
    let row = |m: &str, v: f64, unit: Unit| SummaryRow::new("run", "run", m, v, unit);
    run.summary.push(row("lag_p50_ms", lag.p50_ms, Unit::Ms));
    run.summary.push(row("lag_p99_ms", lag.p99_ms, Unit::Ms));
    run.summary.push(row("lag_max_ms", lag.max_ms, Unit::Ms));
    Ok(EmulateOutput { run, lag })
}
