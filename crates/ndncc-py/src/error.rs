//! The one place where core errors become Python exceptions.
//!
//! ```text
//! NdnccError
//!  ├── ScenarioError   file, line, key, message
//!  ├── BuildError      component, message
//!  ├── StalledError    the scenario cannot advance simulated time
//!  ├── ControllerError a Python controller raised; app, hook, class; the user's exception is
//!  │                   its __cause__ (with its traceback)
//!  ├── Interrupted
//!  ├── TraceError      the packet trace could not be written
//!  ├── FaceError       an emulation's --face is bad or cannot listen
//!  └── InternalError
//! ```

use ndncc_core::api;
use ndncc_core::scenario;
use pyo3::create_exception;
use pyo3::exceptions::{PyException, PyKeyboardInterrupt};
use pyo3::prelude::*;

use crate::controllers::ControllerFailure;

create_exception!(ndncc._core, NdnccError, PyException, "Base class of every error ndncc raises.");
create_exception!(
    ndncc._core,
    ScenarioError,
    NdnccError,
    "A scenario is invalid; `file`, `line`, `key` and `message` say where and why."
);
create_exception!(
    ndncc._core,
    BuildError,
    NdnccError,
    "A valid scenario could not be turned into a network; `component` names the part."
);
create_exception!(ndncc._core, Interrupted, NdnccError, "A run was stopped by its progress callback.");
create_exception!(
    ndncc._core,
    StalledError,
    NdnccError,
    "A run stopped because simulated time stopped advancing (a zero-delay loop in the scenario)."
);
create_exception!(
    ndncc._core,
    ControllerError,
    NdnccError,
    "A controller written in Python raised; `app`, `hook` and `class_path` say which, and the \
     exception it raised is the `__cause__`."
);
create_exception!(ndncc._core, InternalError, NdnccError, "A bug in ndncc; please report it.");
create_exception!(ndncc._core, TraceError, NdnccError, "The packet trace file could not be written.");
create_exception!(
    ndncc._core,
    FaceError,
    NdnccError,
    "An emulation's face is bad (its NODE=URI, its node) or its socket cannot listen."
);

/// A `ScenarioError` carrying the location of the problem as attributes.
pub fn scenario_error(err: scenario::ScenarioError) -> PyErr {
    Python::with_gil(|py| {
        let exc = ScenarioError::new_err(err.to_string());
        let value = exc.value_bound(py);
        let set = || -> PyResult<()> {
            value.setattr("file", &err.file)?;
            value.setattr("line", err.line)?;
            value.setattr("key", &err.key)?;
            value.setattr("message", &err.message)
        };
        set().err().unwrap_or(exc)
    })
}

/// Every core error, mapped to its exception.
pub fn core_error(err: api::Error) -> PyErr {
    match err {
        api::Error::Scenario(e) => scenario_error(e),
        api::Error::Build { component, message } => Python::with_gil(|py| {
            let exc = BuildError::new_err(format!("{component}: {message}"));
            let value = exc.value_bound(py);
            let set = || -> PyResult<()> {
                value.setattr("component", &component)?;
                value.setattr("message", &message)
            };
            set().err().unwrap_or(exc)
        }),
        api::Error::Interrupted => Interrupted::new_err("run interrupted"),
        api::Error::Stalled(m) => StalledError::new_err(m),
        api::Error::Internal(m) => InternalError::new_err(m),
        e @ api::Error::Trace { .. } => TraceError::new_err(e.to_string()),
    }
}

/// The error of a run stopped by its Python controller: `ControllerError` naming the app, caused
/// by the user's exception. Ctrl-C during a controller's call is the user's `KeyboardInterrupt`.
pub fn controller_error(py: Python<'_>, f: ControllerFailure) -> PyErr {
    if f.err.is_instance_of::<PyKeyboardInterrupt>(py) {
        return f.err;
    }
    let raised = match (f.err.get_type_bound(py).name(), f.err.value_bound(py).str()) {
        (Ok(kind), Ok(text)) => format!("{kind}: {text}"),
        _ => "an exception".to_string(),
    };
    let exc = ControllerError::new_err(format!(
        "app {}: the Python controller {} raised in {}(): {raised}",
        f.app, f.class, f.hook
    ));
    let value = exc.value_bound(py);
    let set = || -> PyResult<()> {
        value.setattr("app", &f.app)?;
        value.setattr("hook", f.hook)?;
        value.setattr("class_path", &f.class)
    };
    if let Err(e) = set() {
        return e;
    }
    exc.set_cause(py, Some(f.err));
    exc
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    let py = m.py();
    m.add("NdnccError", py.get_type_bound::<NdnccError>())?;
    m.add("ScenarioError", py.get_type_bound::<ScenarioError>())?;
    m.add("BuildError", py.get_type_bound::<BuildError>())?;
    m.add("Interrupted", py.get_type_bound::<Interrupted>())?;
    m.add("StalledError", py.get_type_bound::<StalledError>())?;
    m.add("ControllerError", py.get_type_bound::<ControllerError>())?;
    m.add("InternalError", py.get_type_bound::<InternalError>())?;
    m.add("TraceError", py.get_type_bound::<TraceError>())?;
    m.add("FaceError", py.get_type_bound::<FaceError>())?;
    Ok(())
}
