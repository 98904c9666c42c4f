//! The public entry point used by the Python bindings and the CLI: run a scenario, get columns.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::instantiate::{build_world, BuildError};
pub use crate::long_table::LongTable;
pub use crate::recorder::{SummaryRow, Unit};
use crate::scenario::{Scenario, ScenarioError};
use crate::time::{SimDuration, SimTime};
use crate::trace::{PcapTap, TraceCounts};
use crate::world::{RunEnd, World};

/// How to run.
#[derive(Clone, Debug)]
pub struct RunOptions {
    /// Root seed; `None` = the scenario's own.
    pub seed: Option<u64>,
    /// Call the progress callback about every this many simulated seconds (0 = only at the end).
    pub progress_every_s: f64,
    /// Declare the run stalled after this many events at one instant; `None` = the engine's
    /// `STALL_LIMIT`.
    pub stall_limit: Option<u64>,
    /// Write a pcapng packet trace here: of the faces the scenario's `[record] pcap` chooses,
    /// or of every link face if it has none.
    pub pcap: Option<PathBuf>,
}

impl Default for RunOptions {
    fn default() -> Self {
        RunOptions { seed: None, progress_every_s: 1.0, stall_limit: None, pcap: None }
    }
}

#[derive(Clone, Copy, Debug, Default)]
pub struct RunStats {
    pub sim_seconds: f64,
    pub wall_seconds: f64,
    pub events: u64,
    pub packet_hops: u64,
}

#[derive(Clone, Debug)]
pub struct RunOutput {
    pub series: LongTable,
    pub faces: LongTable,
    pub summary: Vec<SummaryRow>,
    pub stats: RunStats,
    pub seed: u64,
    /// What the packet trace recorded per face, when one was written.
    pub trace: Option<Vec<TraceCounts>>,
}

#[derive(Debug, thiserror::Error)]
pub enum Error {
    #[error("{0}")]
    Scenario(#[from] ScenarioError),
    #[error("{component}: {message}")]
    Build { component: String, message: String },
    #[error("run interrupted")]
    Interrupted,
    /// The scenario cannot advance simulated time (a zero-delay loop).
    #[error("{0}")]
    Stalled(String),
    /// The packet trace could not be written.
    #[error("packet trace {path}: {message}")]
    Trace { path: String, message: String },
    /// An engine invariant broke: a bug in ndncc.
    #[error("internal error: {0}")]
    Internal(String),
}

impl From<BuildError> for Error {
    fn from(e: BuildError) -> Self {
        Error::Build { component: e.component, message: e.message }
    }
}

/// Build and run `scenario`. `progress(sim_seconds)` is called every `progress_every_s`
/// simulated seconds and at the end; returning false interrupts the run.
pub fn run(scenario: &Scenario, opts: &RunOptions, progress: &mut dyn FnMut(f64) -> bool) -> Result<RunOutput, Error> {
    // A scenario built in code gets the same checks as one loaded from a file.
    scenario.validate()?;
    let seed = opts.seed.unwrap_or(scenario.simulation.seed);
    let mut world = build_world(scenario, seed)?;
    if let Some(n) = opts.stall_limit {
        world.set_stall_limit(n);
    }
    let trace = match &opts.pcap {
        Some(path) => Some(start_trace(path, &mut world, scenario, seed)?),
        None => None,
    };
    let t0 = Instant::now();
    let every = SimDuration::from_secs_f64(opts.progress_every_s.max(0.0));
    let end = world.run(every, &mut |t: SimTime| progress(t.as_secs_f64()));
    // The trace is flushed however the run ended: what was recorded stays readable.
    let counts = match (&trace, &opts.pcap) {
        (Some(tap), Some(path)) => Some(finish_trace(tap, path)?),
        _ => None,
    };
    finished(end)?;
    let wall = t0.elapsed().as_secs_f64();
    let mut out = collect(world, seed, wall);
    out.trace = counts;
    Ok(out)
}

fn trace_error(path: &std::path::Path, e: impl std::fmt::Display) -> Error {
    Error::Trace { path: path.display().to_string(), message: e.to_string() }
}

/// Open the packet trace and attach it to `world`'s tap.
pub(crate) fn start_trace(
    path: &std::path::Path,
    world: &mut World,
    scenario: &Scenario,
    seed: u64,
) -> Result<Arc<Mutex<PcapTap>>, Error> {
    let spec = scenario.record.pcap.clone().unwrap_or_default();
    let producers: Vec<(String, u64)> = scenario.producers().map(|(_, p)| (p.prefix.clone(), p.payload.0)).collect();
    let comment = format!("scenario {}, seed {seed}", scenario.simulation.name);
    let tap = PcapTap::create(path, &world.net, &spec, &producers, &comment).map_err(|e| trace_error(path, e))?;
    let tap = Arc::new(Mutex::new(tap));
    world.set_tap(Box::new(Arc::clone(&tap)));
    Ok(tap)
}

pub(crate) fn finish_trace(tap: &Arc<Mutex<PcapTap>>, path: &std::path::Path) -> Result<Vec<TraceCounts>, Error> {
    let mut tap = tap.lock().map_err(|e| trace_error(path, e))?;
    tap.finish().map_err(|e| trace_error(path, e))
}

pub(crate) fn collect(mut world: World, seed: u64, wall: f64) -> RunOutput {
    let summary = world.summary();
    let stats = RunStats {
        sim_seconds: world.end_time().as_secs_f64(),
        wall_seconds: wall,
        events: world.counters().events,
        packet_hops: world.counters().packet_hops,
    };
    // The world's memory goes back before the tables are built, which may then reuse it.
    let rec = world.take_recorder();
    drop(world);
    let mut summary = summary;
    if let Some(t) = rec.events_stopped_at {
        summary.push(SummaryRow::new("run", "run", "events_recorded_until_s", t.as_secs_f64(), Unit::S));
    }
    let entities: Vec<String> = rec.entity_names().iter().map(|n| n.to_string()).collect();
    let metrics: Vec<String> = rec.metric_names().iter().map(|n| n.to_string()).collect();
    RunOutput {
        series: LongTable::from_columns(&rec.series, &entities, &metrics),
        faces: LongTable::from_columns(&rec.faces, &entities, &metrics),
        summary,
        stats,
        seed,
        trace: None,
    }
}

/// A run's end as a result: `Ok` when it ran to its end time.
pub(crate) fn finished(end: RunEnd) -> Result<(), Error> {
    match end {
        RunEnd::Finished => Ok(()),
        RunEnd::Interrupted => Err(Error::Interrupted),
        RunEnd::Stalled(why) => Err(Error::Stalled(why)),
        RunEnd::Broken(why) => Err(Error::Internal(why)),
    }
}

/// One benchmark measurement.
#[derive(Clone, Debug, serde::Serialize)]
pub struct BenchResult {
    pub scenario: String,
    pub sim_seconds: f64,
    pub wall_seconds: f64,
    pub events: u64,
    pub packet_hops: u64,
    pub packet_hops_per_s: f64,
    pub ns_per_hop: f64,
    pub peak_rss_mb: f64,
    /// Rows the run recorded, and the memory they take (the rest of the peak is the
    /// simulation's own state).
    pub recorded_rows: usize,
    pub recorded_mb: f64,
    /// Wall time building the world (for the topologies, from scenario text through the
    /// loader, as `ndncc run` does).
    pub setup_seconds: f64,
    /// What allocated the memory, and whether on huge pages (`allocator::describe`): both
    /// move the time and the peak memory.
    pub allocator: String,
    /// Pages the run touched for the first time (minor page faults of the thread that ran it,
    /// `bench::page_faults`; 0 where the system does not count them): memory the run took anew,
    /// whose cost no instruction count includes.
    pub run_page_faults: u64,
}

/// Names of the standard benchmark scenarios (what `ndncc bench` runs by default).
pub fn bench_names() -> Vec<String> {
    crate::bench::standard_names()
}

/// Names of every benchmark scenario, the scale cases included.
pub fn bench_all_names() -> Vec<String> {
    crate::bench::all_names()
}

/// Build and run benchmark scenario `name` for `seconds` of simulated time, with its 100 ms
/// samples or (`Recording::Off`) without, to tell what recording costs. `progress(now)` is
/// asked every `LIVENESS_EVENTS` events whether to go on (so that Ctrl-C can stop a long run);
/// the asking is the same check every run makes, so it costs the measurement nothing.
pub fn bench_for(
    name: &str,
    seconds: f64,
    rec: crate::bench::Recording,
    progress: &mut dyn FnMut(f64) -> bool,
) -> Result<BenchResult, Error> {
    let bad = |message: String| Error::Build { component: "bench".into(), message };
    let max = crate::bench::MAX_SECONDS;
    if !(seconds.is_finite() && seconds > 0.0 && seconds <= max) {
        return Err(bad(format!("duration must be more than 0 and at most {max} simulated seconds, not {seconds}")));
    }
    let t_setup = Instant::now();
    let mut world = crate::bench::standard_with(name, SimDuration::from_secs_f64(seconds), rec).ok_or_else(|| {
        let known = bench_all_names().join(", ");
        let most = crate::bench::MAX_FLOWS;
        bad(format!("unknown benchmark '{name}' (known: {known}; dumbbell-N and tcp-N for N up to {most})"))
    })?;
    let setup = t_setup.elapsed().as_secs_f64();
    let faults = crate::bench::page_faults();
    let t0 = Instant::now();
    finished(world.run(SimDuration::ZERO, &mut |t: SimTime| progress(t.as_secs_f64())))?;
    let wall = t0.elapsed().as_secs_f64();
    let faults = crate::bench::page_faults().saturating_sub(faults);
    Ok(BenchResult::of(name, &world, setup, wall, faults))
}

impl BenchResult {
    /// The measurement of `world`, built in `setup` and run as benchmark `name` in `wall`
    /// seconds, faulting in `faults` pages.
    pub fn of(name: &str, world: &World, setup: f64, wall: f64, faults: u64) -> BenchResult {
        let hops = world.counters().packet_hops;
        BenchResult {
            scenario: name.to_owned(),
            sim_seconds: world.end_time().as_secs_f64(),
            wall_seconds: wall,
            events: world.counters().events,
            packet_hops: hops,
            packet_hops_per_s: hops as f64 / wall.max(1e-9),
            ns_per_hop: wall * 1e9 / hops.max(1) as f64,
            peak_rss_mb: crate::bench::peak_rss_mb(),
            recorded_rows: world.recorder().rows(),
            recorded_mb: world.recorder().data_bytes() as f64 / (1024.0 * 1024.0),
            setup_seconds: setup,
            allocator: crate::allocator::describe(),
            run_page_faults: faults,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bench::Recording::{Off, On};

    #[test]
    fn a_benchmark_runs_for_the_duration_asked_and_times_its_set_up() {
        let b = bench_for("dumbbell-1", 0.5, On, &mut |_| true).expect("a known benchmark");
        assert_eq!((b.scenario.as_str(), b.sim_seconds), ("dumbbell-1", 0.5));
        assert!(b.packet_hops > 1000 && b.events >= b.packet_hops / 2);
        assert!(b.setup_seconds > 0.0 && b.wall_seconds > 0.0);
        // The scale cases are known too, and a topology is built through the scenario loader.
        assert!(bench_all_names().iter().any(|n| n == "tree-1111"));
        assert!(bench_names().iter().all(|n| bench_all_names().contains(n)));
        let tree = bench_for("tree-1111", 0.05, On, &mut |_| true).expect("a scale case");
        assert!(tree.packet_hops > 0 && tree.recorded_rows > 0);
    }

    #[test]
    fn a_benchmark_without_recording_simulates_the_same_and_records_nothing() {
        // One of each way a benchmark is built: a dumbbell, TCP flows and a fast flow in code,
        // a TCP flow and a tree from scenario text.
        for name in ["dumbbell-20", "tcp-20", "gbps-1", "tcp-1", "tree-1111"] {
            let on = bench_for(name, 0.3, On, &mut |_| true).expect("a known benchmark");
            let off = bench_for(name, 0.3, Off, &mut |_| true).expect("a known benchmark");
            assert!(on.recorded_rows > 0, "{name}");
            assert_eq!((off.recorded_rows, off.recorded_mb), (0, 0.0), "{name}");
            assert_eq!(off.packet_hops, on.packet_hops, "{name}");
            // The same events but the sampling ticks at 0, 0.1, 0.2 and 0.3 s.
            assert_eq!(off.events + 4, on.events, "{name}");
        }
    }

    #[test]
    fn a_benchmark_refuses_a_duration_out_of_range_or_an_unknown_name() {
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, 3600.5] {
            let e = bench_for("dumbbell-1", bad, On, &mut |_| true).expect_err("out of range").to_string();
            assert!(e.contains("duration must be more than 0 and at most 3600"), "{bad}: {e}");
        }
        for bad in ["dumbbell-0", "tcp-0", "tcp-x", "dumbbell-100001", "tcp-100001"] {
            let e = bench_for(bad, 1.0, On, &mut |_| true).expect_err("no such benchmark").to_string();
            assert!(e.contains(&format!("unknown benchmark '{bad}'")) && e.contains("grid-32"), "{e}");
        }
    }

    #[test]
    fn a_benchmark_asked_to_stop_stops() {
        let mut asked = 0;
        let end = bench_for("dumbbell-1", 3600.0, On, &mut |_| {
            asked += 1;
            asked < 3
        });
        assert!(matches!(end, Err(Error::Interrupted)));
        assert_eq!(asked, 3);
    }
}
