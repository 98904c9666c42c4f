//! The public entry point used by the Python bindings and the CLI: run a scenario, get columns.

use std::path::PathBuf;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use crate::instantiate::{build_world, BuildError};
use crate::recorder::Columns;
pub use crate::recorder::SummaryRow;
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

/// A long-format table: row i is (t[i] seconds, entities[entity[i]], metrics[metric[i]], value[i]).
#[derive(Clone, Debug, Default)]
pub struct LongTable {
    pub t: Vec<f64>,
    pub entity: Vec<u32>,
    pub metric: Vec<u32>,
    pub value: Vec<f64>,
    pub entities: Vec<String>,
    pub metrics: Vec<String>,
}

impl LongTable {
    fn from_columns(c: Columns, entities: &[String], metrics: &[String]) -> LongTable {
        let (t, entity, metric, value) = c.into_columns(|ns| ns as f64 / 1e9);
        LongTable { t, entity, metric, value, entities: entities.to_vec(), metrics: metrics.to_vec() }
    }
    pub fn len(&self) -> usize {
        self.t.len()
    }
    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }

    /// Put the rows in the order the Python tables have (`ndncc.output.sort_long`): by entity
    /// name, then metric name, then time, rows equal in all three staying in the order they
    /// were recorded. The engine records in time order, so each (entity, metric) pair's rows
    /// are in time order already: two stable counting sorts, by metric rank and then by entity
    /// rank, do it in linear time and memory (a string sort of a 420,000-row table took polars
    /// 45 ms, half the engine's time for `e4-ndnsim`). A pair whose rows are not in time order
    /// is sorted by time on its own.
    pub fn sort_by_names(&mut self) {
        let (er, mr) = (name_ranks(&self.entities), name_ranks(&self.metrics));
        let rank = |r: &[usize], at: u32| usize::try_from(at).ok().and_then(|a| r.get(a).copied()).unwrap_or(0);
        let pair = |i: usize| (rank(&er, self.entity[i]), rank(&mr, self.metric[i]));
        let rows: Vec<usize> = (0..self.len()).collect();
        // A name index out of range ranks 0, which must be a key even when a list is empty.
        let by_metric = stable_counting_sort(&rows, mr.len().max(1), |i| pair(i).1);
        let mut order = stable_counting_sort(&by_metric, er.len().max(1), |i| pair(i).0);
        let mut from = 0;
        while from < order.len() {
            let key = pair(order[from]);
            let to = from + order[from..].iter().take_while(|&&i| pair(i) == key).count();
            let rows = &mut order[from..to];
            if rows.windows(2).any(|p| self.t[p[0]] > self.t[p[1]]) {
                rows.sort_by(|&a, &b| self.t[a].total_cmp(&self.t[b]));
            }
            from = to;
        }
        self.t = order.iter().map(|&i| self.t[i]).collect();
        self.entity = order.iter().map(|&i| self.entity[i]).collect();
        self.metric = order.iter().map(|&i| self.metric[i]).collect();
        self.value = order.iter().map(|&i| self.value[i]).collect();
    }
}

/// `rows` ordered by `key` (below `keys`), rows of equal key keeping their order.
fn stable_counting_sort(rows: &[usize], keys: usize, key: impl Fn(usize) -> usize) -> Vec<usize> {
    let mut next = vec![0usize; keys + 1];
    for &i in rows {
        next[key(i) + 1] += 1;
    }
    for k in 1..next.len() {
        next[k] += next[k - 1];
    }
    let mut out = vec![0; rows.len()];
    for &i in rows {
        let k = key(i);
        out[next[k]] = i;
        next[k] += 1;
    }
    out
}

/// Each name's rank in byte order, equal names ranking equal.
fn name_ranks(names: &[String]) -> Vec<usize> {
    let mut by_name: Vec<usize> = (0..names.len()).collect();
    by_name.sort_by(|&a, &b| names[a].cmp(&names[b]));
    let mut ranks = vec![0; names.len()];
    let mut rank = 0;
    for (k, &i) in by_name.iter().enumerate() {
        if k > 0 && names[i] != names[by_name[k - 1]] {
            rank += 1;
        }
        ranks[i] = rank;
    }
    ranks
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
fn start_trace(
    path: &std::path::Path,
    world: &mut World,
    scenario: &Scenario,
    seed: u64,
) -> Result<Arc<Mutex<PcapTap>>, Error> {
    let spec = scenario.record.pcap.clone().unwrap_or_default();
    let producers: Vec<(String, u64)> = scenario.producers().map(|(_, p)| (p.prefix.clone(), p.payload.0)).collect();
    let comment = format!("scenario {}, seed {seed}", scenario.simulation.name);
    let tap = PcapTap::create(path, world, &spec, &producers, &comment).map_err(|e| trace_error(path, e))?;
    let tap = Arc::new(Mutex::new(tap));
    world.set_tap(Box::new(Arc::clone(&tap)));
    Ok(tap)
}

fn finish_trace(tap: &Arc<Mutex<PcapTap>>, path: &std::path::Path) -> Result<Vec<TraceCounts>, Error> {
    let mut tap = tap.lock().map_err(|e| trace_error(path, e))?;
    tap.finish().map_err(|e| trace_error(path, e))
}

fn collect(world: World, seed: u64, wall: f64) -> RunOutput {
    let summary = world.summary();
    let stats = RunStats {
        sim_seconds: world.end_time().as_secs_f64(),
        wall_seconds: wall,
        events: world.counters.events,
        packet_hops: world.counters.packet_hops,
    };
    let rec = world.recorder;
    let entities = rec.entity_names().to_vec();
    let metrics = rec.metric_names().to_vec();
    RunOutput {
        series: LongTable::from_columns(rec.series, &entities, &metrics),
        faces: LongTable::from_columns(rec.faces, &entities, &metrics),
        summary,
        stats,
        seed,
        trace: None,
    }
}

/// A run's end as a result: `Ok` when it ran to its end time.
fn finished(end: RunEnd) -> Result<(), Error> {
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
}

/// Names of the standard benchmark scenarios (what `ndncc bench` runs by default).
pub fn bench_names() -> Vec<String> {
    crate::bench::standard_names()
}

/// Names of every benchmark scenario, the scale cases included.
pub fn bench_all_names() -> Vec<String> {
    crate::bench::all_names()
}

/// Build and run benchmark scenario `name` for `seconds` of simulated time. `progress(now)` is
/// asked every `LIVENESS_EVENTS` events whether to go on (so that Ctrl-C can stop a long run);
/// the asking is the same check every run makes, so it costs the measurement nothing.
pub fn bench_for(name: &str, seconds: f64, progress: &mut dyn FnMut(f64) -> bool) -> Result<BenchResult, Error> {
    let bad = |message: String| Error::Build { component: "bench".into(), message };
    let max = crate::bench::MAX_SECONDS;
    if !(seconds.is_finite() && seconds > 0.0 && seconds <= max) {
        return Err(bad(format!("duration must be more than 0 and at most {max} simulated seconds, not {seconds}")));
    }
    let t_setup = Instant::now();
    let mut world = crate::bench::standard_for(name, SimDuration::from_secs_f64(seconds))
        .ok_or_else(|| bad(format!("unknown benchmark '{name}' (known: {})", bench_all_names().join(", "))))?;
    let setup = t_setup.elapsed().as_secs_f64();
    let t0 = Instant::now();
    finished(world.run(SimDuration::ZERO, &mut |t: SimTime| progress(t.as_secs_f64())))?;
    Ok(BenchResult::of(name, &world, setup, t0.elapsed().as_secs_f64()))
}

impl BenchResult {
    /// The measurement of `world`, built in `setup` and run as benchmark `name` in `wall`
    /// seconds.
    pub fn of(name: &str, world: &World, setup: f64, wall: f64) -> BenchResult {
        let hops = world.counters.packet_hops;
        BenchResult {
            scenario: name.to_owned(),
            sim_seconds: world.end_time().as_secs_f64(),
            wall_seconds: wall,
            events: world.counters.events,
            packet_hops: hops,
            packet_hops_per_s: hops as f64 / wall.max(1e-9),
            ns_per_hop: wall * 1e9 / hops.max(1) as f64,
            peak_rss_mb: crate::bench::peak_rss_mb(),
            recorded_rows: world.recorder.rows(),
            recorded_mb: world.recorder.data_bytes() as f64 / (1024.0 * 1024.0),
            setup_seconds: setup,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_benchmark_runs_for_the_duration_asked_and_times_its_set_up() {
        let b = bench_for("dumbbell-1", 0.5, &mut |_| true).expect("a known benchmark");
        assert_eq!((b.scenario.as_str(), b.sim_seconds), ("dumbbell-1", 0.5));
        assert!(b.packet_hops > 1000 && b.events >= b.packet_hops / 2);
        assert!(b.setup_seconds > 0.0 && b.wall_seconds > 0.0);
        // The scale cases are known too, and a topology is built through the scenario loader.
        assert!(bench_all_names().iter().any(|n| n == "tree-1111"));
        assert!(bench_names().iter().all(|n| bench_all_names().contains(n)));
        let tree = bench_for("tree-1111", 0.05, &mut |_| true).expect("a scale case");
        assert!(tree.packet_hops > 0 && tree.recorded_rows > 0);
    }

    #[test]
    fn a_benchmark_refuses_a_duration_out_of_range_or_an_unknown_name() {
        for bad in [0.0, -1.0, f64::NAN, f64::INFINITY, 3600.5] {
            let e = bench_for("dumbbell-1", bad, &mut |_| true).expect_err("out of range").to_string();
            assert!(e.contains("duration must be more than 0 and at most 3600"), "{bad}: {e}");
        }
        let e = bench_for("dumbbell-0", 1.0, &mut |_| true).expect_err("no such benchmark").to_string();
        assert!(e.contains("unknown benchmark 'dumbbell-0'") && e.contains("grid-32"), "{e}");
    }

    /// The rows of `t` as (t, entity name, metric name, value), in order.
    fn named_rows(t: &LongTable) -> Vec<(f64, String, String, f64)> {
        (0..t.len())
            .map(|i| {
                let (e, m) = (t.entity[i] as usize, t.metric[i] as usize);
                (t.t[i], t.entities[e].clone(), t.metrics[m].clone(), t.value[i])
            })
            .collect()
    }

    proptest::proptest! {
        /// Whatever the rows and names (repeated names, rows out of time order, ties), the
        /// order is that of a stable sort by entity name, metric name and time, as polars'
        /// `sort(["entity", "metric", "t"], maintain_order=True)` gives.
        #[test]
        fn rows_sorted_by_names_come_in_the_order_of_a_stable_sort_by_name_and_time(
            entities in proptest::collection::vec("[ab\u{e9}]{0,2}", 1..5),
            metrics in proptest::collection::vec("[xy]{0,2}", 1..4),
            rows in proptest::collection::vec((0u8..6, 0u32..5, 0u32..4), 0..60),
        ) {
            let mut table = LongTable { entities, metrics, ..LongTable::default() };
            for (k, &(t, e, m)) in rows.iter().enumerate() {
                table.t.push(f64::from(t) / 4.0);
                table.entity.push(e % table.entities.len() as u32);
                table.metric.push(m % table.metrics.len() as u32);
                table.value.push(k as f64);
            }
            let mut expected = named_rows(&table);
            expected.sort_by(|a, b| (&a.1, &a.2).cmp(&(&b.1, &b.2)).then(a.0.total_cmp(&b.0)));
            table.sort_by_names();
            proptest::prop_assert_eq!(named_rows(&table), expected);
        }
    }

    /// The engine never writes a name index out of range, but a table built elsewhere may: such
    /// a row ranks as the first name, and no name list, not even an empty one, makes it panic.
    #[test]
    fn rows_naming_no_entity_or_metric_sort_first_without_panicking() {
        let table = |entities: &[&str], metrics: &[&str]| LongTable {
            t: vec![2.0, 1.0, 0.0],
            entity: vec![0, 7, 1],
            metric: vec![0, 9, 0],
            value: vec![0.0, 1.0, 2.0],
            entities: entities.iter().map(|s| s.to_string()).collect(),
            metrics: metrics.iter().map(|s| s.to_string()).collect(),
        };
        let mut named = table(&["b", "a"], &["x"]);
        named.sort_by_names();
        // Row 1 (bad indices) ranks as ("a", "x"), with row 2, and follows it in time; "b" last.
        assert_eq!(named.value, vec![2.0, 1.0, 0.0]);
        for (entities, metrics) in [(&[][..], &["x"][..]), (&["b", "a"][..], &[][..]), (&[][..], &[][..])] {
            let mut t = table(entities, metrics);
            t.sort_by_names();
            assert_eq!(t.len(), 3, "{entities:?} {metrics:?}");
        }
    }

    #[test]
    fn a_benchmark_asked_to_stop_stops() {
        let mut asked = 0;
        let end = bench_for("dumbbell-1", 3600.0, &mut |_| {
            asked += 1;
            asked < 3
        });
        assert!(matches!(end, Err(Error::Interrupted)));
        assert_eq!(asked, 3);
    }
}
