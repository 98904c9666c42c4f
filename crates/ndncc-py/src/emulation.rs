//! `ndncc._core.Emulation`: a running emulation (`ndncc emulate`), driven from Python's main
//! thread.
//!
//! The engine runs on a thread of its own and never takes the GIL: Python only waits for its
//! log lines (`wait`, which releases the GIL) and stops it on Ctrl-C (`stop`), so neither the
//! interpreter nor a signal check ever delays an event.

use std::path::PathBuf;
use std::time::Duration;

use ndncc_core::emulate::{self, EmulateOptions, Event};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use crate::scenario::PyScenario;
use crate::{convert, error};

#[pyclass(module = "ndncc._core", name = "Emulation")]
pub struct PyEmulation {
    inner: Option<emulate::Emulation>,
}

fn emulate_error(e: emulate::Error) -> PyErr {
    match e {
        emulate::Error::Face(m) => error::FaceError::new_err(m),
        emulate::Error::Run(e) => error::core_error(e),
    }
}

/// Starts emulating `scenario` with real applications on the `faces` (`NODE=URI`); returns
/// once every face listens.
#[pyfunction]
#[pyo3(signature = (scenario, faces, seed=None, connections=emulate::DEFAULT_CONNECTIONS, pcap=None))]
pub fn emulate_start(
    py: Python<'_>,
    scenario: &PyScenario,
    faces: Vec<String>,
    seed: Option<u64>,
    connections: usize,
    pcap: Option<PathBuf>,
) -> PyResult<PyEmulation> {
    let opts = EmulateOptions { seed, faces, connections, pcap };
    let sc = scenario.scenario();
    let inner = py.allow_threads(|| emulate::Emulation::start(sc, &opts)).map_err(emulate_error)?;
    Ok(PyEmulation { inner: Some(inner) })
}

impl PyEmulation {
    fn running(&self) -> PyResult<&emulate::Emulation> {
        self.inner.as_ref().ok_or_else(|| PyValueError::new_err("the emulation has finished"))
    }
}

#[pymethods]
impl PyEmulation {
    /// `[(node, uri)]` of the listening faces, with the ports they got.
    #[getter]
    fn faces(&self) -> PyResult<Vec<(String, String)>> {
        Ok(self.running()?.faces.clone())
    }

    /// Waits up to `timeout` seconds: a log line, `None` if nothing came, or `False` once the
    /// emulation has ended.
    fn wait(&self, py: Python<'_>, timeout: f64) -> PyResult<PyObject> {
        let t = Duration::try_from_secs_f64(timeout)
            .map_err(|_| PyValueError::new_err(format!("timeout {timeout}: expected seconds of at least 0")))?;
        let em = self.running()?;
        Ok(match py.allow_threads(|| em.wait(t)) {
            Event::Log(line) => line.into_py(py),
            Event::Quiet => py.None(),
            Event::Ended => false.into_py(py),
        })
    }

    /// Asks the engine to stop now; the run then summarises the time it ran.
    fn stop(&self) -> PyResult<()> {
        self.running()?.stop();
        Ok(())
    }

    /// Waits for the end; returns the raw result dict of a run, with `"lag"` (ms percentiles).
    fn finish(&mut self, py: Python<'_>) -> PyResult<PyObject> {
        let em = self.inner.take().ok_or_else(|| PyValueError::new_err("the emulation has finished"))?;
        let out = py.allow_threads(|| em.finish()).map_err(emulate_error)?;
        let raw = convert::run_output(py, out.run)?;
        let lag = PyDict::new_bound(py);
        lag.set_item("events", out.lag.events)?;
        lag.set_item("p50_ms", out.lag.p50_ms)?;
        lag.set_item("p90_ms", out.lag.p90_ms)?;
        lag.set_item("p99_ms", out.lag.p99_ms)?;
        lag.set_item("p999_ms", out.lag.p999_ms)?;
        lag.set_item("max_ms", out.lag.max_ms)?;
        raw.bind(py).set_item("lag", lag)?;
        Ok(raw)
    }
}
