//! The `Scenario` class: a resolved scenario that can be inspected and run.

use std::panic::{catch_unwind, resume_unwind, AssertUnwindSafe};
use std::path::PathBuf;
use std::time::{Duration, Instant};

use ndncc_core::api::{self, RunOptions};
use ndncc_core::scenario::Scenario;
use pyo3::prelude::*;

use crate::context::{self, Context, RunInfo};
use crate::controllers::ControllerFailure;
use crate::{convert, error};

/// How many times per run the engine hands control back (progress callback, Ctrl-C check).
const PROGRESS_TICKS: f64 = 500.0;

/// The least wall time between two of a run's GIL takings when they are paced (see `GilPacing`).
const SIGNAL_CHECK_EVERY: Duration = Duration::from_millis(20);

/// A wait for the GIL longer than this means another Python thread is busy.
const SLOW_GIL: Duration = Duration::from_millis(1);

/// When a tick takes the GIL. Each taking queues the engine behind any Python thread busy
/// meanwhile (the imports `ndncc.preload` runs beside it, a script's own threads) for up to the
/// interpreter's switch interval, 5 ms, and a run has about 500 ticks. So:
/// - without a progress callback a tick only checks for Ctrl-C, at most every
///   `SIGNAL_CHECK_EVERY`;
/// - with one, every tick calls it, unless the GIL was slow to come last time: then the next
///   call waits `SIGNAL_CHECK_EVERY`. The tick at the run's end always calls it.
///
/// Ticks change nothing in the simulation, so neither does their pacing.
struct GilPacing {
    every_tick: bool,
    /// No taking before this time.
    not_before: Option<Instant>,
}

impl GilPacing {
    fn new(every_tick: bool) -> GilPacing {
        GilPacing { every_tick, not_before: None }
    }

    fn due(&self, now: Instant, last: bool) -> bool {
        last || self.not_before.is_none_or(|t| now >= t)
    }

    /// The GIL, asked for at `asked`, came at `got`.
    fn taken(&mut self, asked: Instant, got: Instant) {
        let paced = !self.every_tick || got.duration_since(asked) > SLOW_GIL;
        self.not_before = paced.then(|| got + SIGNAL_CHECK_EVERY);
    }
}

#[pyclass(module = "ndncc._core", name = "Scenario", frozen)]
pub struct PyScenario {
    inner: Scenario,
    /// The scenario file's folder, where Python controllers' modules are looked for first.
    folder: Option<PathBuf>,
}

impl PyScenario {
    pub fn new(inner: Scenario, folder: Option<PathBuf>) -> PyScenario {
        PyScenario { inner, folder }
    }

    /// The core scenario.
    pub fn scenario(&self) -> &Scenario {
        &self.inner
    }
}

/// The engine's tick for a run started from Python, which ends at `end` simulated seconds: it
/// takes the GIL as `GilPacing` lets it, honours Ctrl-C and asks `progress`. `false` stops the
/// run; an exception (Ctrl-C's `KeyboardInterrupt`, or one the callback raised) is kept in
/// `stopped_by` for the caller to raise.
pub fn python_tick<'a>(
    progress: Option<&'a PyObject>,
    end: f64,
    stopped_by: &'a mut Option<PyErr>,
) -> impl FnMut(f64) -> bool + 'a {
    let mut pacing = GilPacing::new(progress.is_some());
    move |done: f64| {
        let asked = Instant::now();
        if !pacing.due(asked, done >= end) {
            return true;
        }
        Python::with_gil(|py| {
            pacing.taken(asked, Instant::now());
            poll(py, progress, done).unwrap_or_else(|e| {
                *stopped_by = Some(e);
                false
            })
        })
    }
}

/// Runs between engine steps with the GIL held: honours Ctrl-C, then asks the callback.
/// `Ok(false)` stops the run; an exception raised by the callback stops it too.
fn poll(py: Python<'_>, progress: Option<&PyObject>, done: f64) -> PyResult<bool> {
    py.check_signals()?;
    match progress {
        None => Ok(true),
        Some(cb) => {
            let answer = cb.call1(py, (done,))?;
            if answer.is_none(py) {
                Ok(true)
            } else {
                answer.is_truthy(py)
            }
        }
    }
}

#[pymethods]
impl PyScenario {
    /// The resolved scenario as TOML.
    fn to_toml(&self) -> String {
        self.inner.to_toml()
    }

    /// The resolved scenario as JSON.
    fn to_json(&self) -> PyResult<String> {
        serde_json::to_string(&self.inner).map_err(|e| error::InternalError::new_err(e.to_string()))
    }

    #[getter]
    fn name(&self) -> &str {
        self.inner.name()
    }

    /// Simulated duration in seconds.
    #[getter]
    fn duration(&self) -> f64 {
        self.inner.duration_secs()
    }

    #[getter]
    fn seed(&self) -> u64 {
        self.inner.seed()
    }

    /// The settings that make runs differ from seed to seed, as "KEY (what)"; empty when every
    /// seed gives the same run.
    #[getter]
    fn random_sources(&self) -> Vec<String> {
        self.inner.random_sources()
    }

    /// The scenario asks for a packet trace (`[record] pcap`).
    #[getter]
    fn pcap(&self) -> bool {
        self.inner.record.pcap.is_some()
    }

    /// Runs the scenario without holding the GIL; returns the raw result dict.
    #[pyo3(signature = (seed=None, progress=None, pcap=None))]
    fn run(
        &self,
        py: Python<'_>,
        seed: Option<u64>,
        progress: Option<PyObject>,
        pcap: Option<std::path::PathBuf>,
    ) -> PyResult<PyObject> {
        let opts = RunOptions {
            seed,
            progress_every_s: (self.inner.duration_secs() / PROGRESS_TICKS).max(1e-6),
            pcap,
            ..RunOptions::default()
        };
        let mut stopped_by: Option<PyErr> = None;
        let ctx = Context {
            folder: self.folder.clone(),
            run: Some(RunInfo::new(&self.inner, seed.unwrap_or(self.inner.seed()))),
        };
        let outcome = py.allow_threads(|| {
            let mut tick = python_tick(progress.as_ref(), self.inner.duration_secs(), &mut stopped_by);
            // A Python controller that raises unwinds to here (controllers.rs); the world it
            // ran in is dropped on the way.
            let run = || api::run(&self.inner, &opts, &mut tick);
            context::within(ctx, || catch_unwind(AssertUnwindSafe(run)))
        });
        let outcome = match outcome {
            Ok(outcome) => outcome,
            Err(payload) => match payload.downcast::<ControllerFailure>() {
                Ok(failure) => return Err(error::controller_error(py, *failure)),
                Err(other) => resume_unwind(other),
            },
        };
        if let Some(e) = stopped_by {
            return Err(e);
        }
        convert::run_output(py, outcome.map_err(error::core_error)?)
    }

    fn __repr__(&self) -> String {
        format!(
            "Scenario(name={:?}, duration={}, seed={})",
            self.inner.name(),
            self.inner.duration_secs(),
            self.inner.seed()
        )
    }
}
