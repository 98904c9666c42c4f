//! `ndncc._core`: the compiled half of the `ndncc` Python package.
//!
//! A thin layer over `ndncc-core`: it converts arguments, releases the GIL for long work, and maps
//! core errors to Python exceptions (all in `error.rs`). Anything friendlier lives in Python.

// pyo3 0.22's #[pyfunction]/#[pymethods] expansion converts `PyErr` into itself.
#![allow(clippy::useless_conversion)]

mod context;
mod controllers;
mod convert;
mod emulation;
mod error;
mod events;
#[cfg(unix)]
mod interrupt;
mod scenario;

use std::path::{Path, PathBuf};

use ndncc_core::{api, scenario as core_scenario};
use pyo3::prelude::*;

use crate::context::Context;
use crate::scenario::PyScenario;

/// Load with the scenario's folder as the context, so that Python controllers are checked
/// against the modules found there.
fn load_from(
    file: &Path,
    load: impl FnOnce() -> Result<core_scenario::Scenario, core_scenario::ScenarioError>,
) -> PyResult<PyScenario> {
    let folder = context::folder_of(file);
    let ctx = Context { folder: folder.clone(), run: None };
    context::within(ctx, load).map(|s| PyScenario::new(s, folder)).map_err(error::scenario_error)
}

/// Loads a scenario file, applying `key=value` overrides. With `emulation`, a consumer may
/// fetch a prefix no simulated producer serves (a real application may register it).
#[pyfunction]
#[pyo3(signature = (path, overrides=Vec::new(), emulation=false))]
fn load(path: PathBuf, overrides: Vec<String>, emulation: bool) -> PyResult<PyScenario> {
    if emulation {
        return load_from(&path, || {
            core_scenario::allowing_real_producers(|| core_scenario::load_file(&path, &overrides))
        });
    }
    load_from(&path, || core_scenario::load_file(&path, &overrides))
}

/// Parses scenario text; `file` is the name used in error messages.
#[pyfunction]
#[pyo3(signature = (text, file="<string>", overrides=Vec::new()))]
fn load_str(text: &str, file: &str, overrides: Vec<String>) -> PyResult<PyScenario> {
    // Text from a sweep's worker names the file it came from: its folder still holds the modules.
    load_from(Path::new(file), || core_scenario::load_str(text, file, &overrides))
}

/// Converts an ndnSIM topology text file into scenario TOML (values at their defaults left out).
#[pyfunction]
#[pyo3(signature = (text, file="<string>"))]
fn import_ndnsim(text: &str, file: &str) -> PyResult<String> {
    let scenario = core_scenario::import::ndnsim_topology(text, file).map_err(error::scenario_error)?;
    Ok(core_scenario::import::compact_toml(&scenario))
}

/// Converts a Mini-NDN `.conf` topology into scenario TOML (values at their defaults left out).
#[pyfunction]
#[pyo3(signature = (text, file="<string>"))]
fn import_minindn(text: &str, file: &str) -> PyResult<String> {
    let scenario = core_scenario::import::minindn_conf(text, file).map_err(error::scenario_error)?;
    Ok(core_scenario::import::compact_toml(&scenario))
}

/// Names of the built-in benchmark scenarios: the standard ones, or with `all` the scale cases
/// too.
#[pyfunction]
#[pyo3(signature = (all=false))]
fn bench_names(all: bool) -> Vec<String> {
    if all {
        api::bench_all_names()
    } else {
        api::bench_names()
    }
}

/// Panics on purpose, so that tests can check how a crash of the engine reaches a user.
#[pyfunction]
#[pyo3(name = "_panic")]
fn panic_for_tests(message: &str) {
    panic!("{message}");
}

/// Keeps a panic's report off stderr: pyo3 turns the panic into a `PanicException`, and the
/// command line reports that as one line. With `NDNCC_DEBUG` set, the usual report is printed too.
fn quiet_panics() {
    let default = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if std::env::var_os("NDNCC_DEBUG").is_some_and(|v| !v.is_empty()) {
            default(info);
        }
    }));
}

/// Runs one built-in benchmark for `duration` simulated seconds without holding the GIL,
/// taking it now and then to honour Ctrl-C, as a run does; with `record` false, without its
/// samples, to tell what recording costs.
#[pyfunction]
#[pyo3(name = "bench", signature = (name, duration=ndncc_core::bench::STANDARD_SECONDS, record=true))]
fn run_bench(py: Python<'_>, name: &str, duration: f64, record: bool) -> PyResult<PyObject> {
    let mut stopped_by: Option<PyErr> = None;
    let rec = if record { ndncc_core::bench::Recording::On } else { ndncc_core::bench::Recording::Off };
    let result = py.allow_threads(|| {
        api::bench_for(name, duration, rec, &mut scenario::python_tick(None, duration, &mut stopped_by))
    });
    if let Some(e) = stopped_by {
        return Err(e);
    }
    convert::bench_result(py, result.map_err(error::core_error)?)
}

#[pymodule]
fn _core(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    m.add("BENCH_SECONDS", ndncc_core::bench::STANDARD_SECONDS)?;
    m.add("BENCH_MAX_SECONDS", ndncc_core::bench::MAX_SECONDS)?;
    m.add_class::<PyScenario>()?;
    m.add_class::<emulation::PyEmulation>()?;
    m.add_function(wrap_pyfunction!(emulation::emulate_start, m)?)?;
    m.add_function(wrap_pyfunction!(load, m)?)?;
    m.add_function(wrap_pyfunction!(load_str, m)?)?;
    m.add_function(wrap_pyfunction!(import_ndnsim, m)?)?;
    m.add_function(wrap_pyfunction!(import_minindn, m)?)?;
    m.add_function(wrap_pyfunction!(bench_names, m)?)?;
    m.add_function(wrap_pyfunction!(run_bench, m)?)?;
    m.add_function(wrap_pyfunction!(panic_for_tests, m)?)?;
    #[cfg(unix)]
    m.add_function(wrap_pyfunction!(interrupt::end_after_interrupt, m)?)?;
    events::register(m)?;
    quiet_panics();
    // Scenarios with `type = "python"` controllers validate and build through this module.
    ndncc_core::cc::external::install(&controllers::FRONT);
    error::register(m)
}
