//! The Python front of `ndncc_core::cc::external`: controllers whose class is written in Python.
//!
//! ```text
//!  core validate ──▶ PythonFront::check ──▶ ndncc.controllers._check(family, class, params, folder)
//!  core build    ──▶ PythonFront::window ─▶ ndncc.controllers._build(…) ──▶ PyWindow (a WindowControl)
//!  consumer hook ──▶ PyWindow::on_data ──▶ take the GIL, call obj.on_data(event), read obj.window()
//! ```
//!
//! Runs release the GIL; each hook takes it for the call (pyo3's `with_gil`) and reads the
//! window or rate once afterwards, so `window()` / `rate()` between hooks cost no Python call.
//! A Python exception (in a hook, or in the constructor) cannot be returned through the core's
//! traits: it unwinds to `run` as a [`ControllerFailure`], which raises it there.

use std::collections::BTreeSet;
use std::sync::Mutex;

use ndncc_core::cc::external::{self, ClassSpec, Family, Front, Table, Value};
use ndncc_core::cc::{DataEvent, HoleAction, HoleEvent, LossEvent, NackAction, RateControl, SentEvent, WindowControl};
use ndncc_core::plugin::{check, Check, Invalid};
use ndncc_core::rng::SimRng;
use pyo3::exceptions::{PyTypeError, PyValueError};
use pyo3::prelude::*;
use pyo3::sync::GILOnceCell;
use pyo3::types::{PyDict, PyList};

use crate::context;
use crate::events::{PyDataEvent, PyHoleEvent, PyLossEvent, PySentEvent};

/// The Python half: `python/ndncc/controllers.py`.
const MODULE: &str = "ndncc.controllers";

fn module(py: Python<'_>) -> PyResult<&Bound<'_, PyModule>> {
    static M: GILOnceCell<Py<PyModule>> = GILOnceCell::new();
    M.get_or_try_init(py, || py.import_bound(MODULE).map(Bound::unbind)).map(|m| m.bind(py))
}

/// A Python controller raised: unwinds from the hook to `run` (see `scenario.rs`).
pub struct ControllerFailure {
    pub app: String,
    pub class: String,
    /// The method that raised (`on_data`, `window`, …; `__init__` while building).
    pub hook: &'static str,
    pub err: PyErr,
}

/// Stop the run: the core's hooks return no errors, so unwind to `run` with the failure.
/// `resume_unwind` does not run the panic hook: nothing is printed on the way.
fn fail(who: &Who, hook: &'static str, err: PyErr) -> ! {
    std::panic::resume_unwind(Box::new(ControllerFailure { app: who.app.clone(), class: who.class.clone(), hook, err }))
}

/// Which controller, for messages.
#[derive(Clone)]
struct Who {
    app: String,
    class: String,
}

/// A TOML value as the Python value `tomllib` would give.
fn to_python(py: Python<'_>, v: &Value) -> PyResult<PyObject> {
    Ok(match v {
        Value::String(s) => s.into_py(py),
        Value::Integer(i) => i.into_py(py),
        Value::Float(f) => f.into_py(py),
        Value::Boolean(b) => b.into_py(py),
        Value::Datetime(d) => d.to_string().into_py(py),
        Value::Array(a) => {
            PyList::new_bound(py, a.iter().map(|x| to_python(py, x)).collect::<PyResult<Vec<_>>>()?).into_py(py)
        }
        Value::Table(t) => table(py, t)?.into_py(py),
    })
}

fn table<'py>(py: Python<'py>, t: &Table) -> PyResult<Bound<'py, PyDict>> {
    let d = PyDict::new_bound(py);
    for (k, v) in t {
        d.set_item(k, to_python(py, v)?)?;
    }
    Ok(d)
}

/// `(family, class, params, folder)`: the arguments of `_check` and `_build`.
fn spec_args<'py>(
    py: Python<'py>,
    family: Family,
    spec: &ClassSpec,
) -> PyResult<(&'static str, String, Bound<'py, PyDict>, Option<String>)> {
    let folder = context::folder().map(|f| f.display().to_string());
    Ok((family.name(), spec.class.clone(), table(py, &spec.params)?, folder))
}

/// Metric names live as long as the process: the recorder takes `&'static str`. Each distinct
/// name is kept once; the cap stops a controller that invents names from using memory unbounded.
fn intern(name: &str) -> PyResult<&'static str> {
    const MAX_NAMES: usize = 1024;
    static NAMES: Mutex<BTreeSet<&'static str>> = Mutex::new(BTreeSet::new());
    let mut names = NAMES.lock().unwrap_or_else(|e| e.into_inner());
    if let Some(&n) = names.get(name) {
        return Ok(n);
    }
    if names.len() >= MAX_NAMES {
        return Err(PyValueError::new_err(format!("more than {MAX_NAMES} distinct metric names")));
    }
    let leaked: &'static str = Box::leak(name.to_owned().into_boxed_str());
    names.insert(leaked);
    Ok(leaked)
}

/// A finite number returned by `method`, else a `ValueError` / `TypeError` saying what came back.
fn finite(value: &Bound<'_, PyAny>, method: &str) -> PyResult<f64> {
    let v: f64 = value
        .extract()
        .map_err(|_| PyTypeError::new_err(format!("{method}() must return a number, got {}", value.repr_or_type())))?;
    if v.is_finite() {
        Ok(v)
    } else {
        Err(PyValueError::new_err(format!("{method}() must return a finite number, got {v}")))
    }
}

trait ReprOrType {
    fn repr_or_type(&self) -> String;
}

impl ReprOrType for Bound<'_, PyAny> {
    fn repr_or_type(&self) -> String {
        self.repr().map(|r| r.to_string()).unwrap_or_else(|_| self.get_type().to_string())
    }
}

/// The (name, value) pairs `metrics()` returned.
fn read_metrics(value: &Bound<'_, PyAny>, out: &mut Vec<(&'static str, f64)>) -> PyResult<()> {
    for item in value.iter()? {
        let item = item?;
        let (name, v): (String, Bound<'_, PyAny>) = item.extract().map_err(|_| {
            PyTypeError::new_err(format!("metrics() must give (name, value) pairs, got {}", item.repr_or_type()))
        })?;
        let name = name.as_str();
        if name.is_empty() {
            return Err(PyValueError::new_err("metrics() gave an empty metric name"));
        }
        let v = finite(&v, &format!("metrics() for {name:?}: the value of"))?;
        out.push((intern(name)?, v));
    }
    Ok(())
}

/// `method` if the object's class overrides the base class's, else `None` (no call needed).
fn overridden(obj: &Bound<'_, PyAny>, base: &Bound<'_, PyAny>, method: &str) -> PyResult<Option<PyObject>> {
    let mine = obj.get_type().getattr(method)?;
    let default = base.getattr(method)?;
    Ok(if mine.is(&default) { None } else { Some(obj.getattr(method)?.unbind()) })
}

/// The two members of an action enum (`NackAction`, `HoleAction`).
struct Actions {
    enum_name: &'static str,
    retransmit: PyObject,
    ignore: PyObject,
}

impl Actions {
    fn new(py: Python<'_>, enum_name: &'static str) -> PyResult<Actions> {
        let e = module(py)?.getattr(enum_name)?;
        Ok(Actions { enum_name, retransmit: e.getattr("RETRANSMIT")?.unbind(), ignore: e.getattr("IGNORE")?.unbind() })
    }

    /// true for RETRANSMIT, false for IGNORE.
    fn retransmit(&self, answer: &Bound<'_, PyAny>, method: &str) -> PyResult<bool> {
        if answer.is(&self.retransmit) {
            Ok(true)
        } else if answer.is(&self.ignore) {
            Ok(false)
        } else {
            let e = self.enum_name;
            Err(PyTypeError::new_err(format!(
                "{method}() must return {e}.RETRANSMIT or {e}.IGNORE, got {}",
                answer.repr_or_type()
            )))
        }
    }
}

/// The methods both families share, looked up once.
struct Common {
    who: Who,
    obj: PyObject,
    on_data: Option<PyObject>,
    on_timeout: Option<PyObject>,
    on_nack: Option<PyObject>,
    metrics: Option<PyObject>,
    nack: Actions,
}

impl Common {
    fn new(py: Python<'_>, who: Who, obj: &Bound<'_, PyAny>, base: &Bound<'_, PyAny>) -> PyResult<Common> {
        Ok(Common {
            who,
            obj: obj.clone().unbind(),
            on_data: overridden(obj, base, "on_data")?,
            on_timeout: overridden(obj, base, "on_timeout")?,
            on_nack: overridden(obj, base, "on_nack")?,
            metrics: overridden(obj, base, "metrics")?,
            nack: Actions::new(py, "NackAction")?,
        })
    }

    /// Give the object `rng`, a `random.Random` seeded from the engine's stream.
    fn give_rng(&self, mut rng: SimRng) {
        let seed = external::seed_from(&mut rng);
        let given = Python::with_gil(|py| module(py)?.call_method1("_give_rng", (self.obj.bind(py), seed)).map(drop));
        if let Err(e) = given {
            fail(&self.who, "rng", e);
        }
    }

    fn metrics(&self, out: &mut Vec<(&'static str, f64)>) {
        let Some(m) = &self.metrics else { return };
        let read = Python::with_gil(|py| read_metrics(m.bind(py).call0()?.as_any(), out));
        if let Err(e) = read {
            fail(&self.who, "metrics", e);
        }
    }
}

/// A level a controller reports, within what the engine's own controllers may be given: a
/// `window()` in [0, `MAX_WINDOW`] Interests, a `rate()` in [`MIN_RATE`, `MAX_RATE`] per second.
/// Beyond them the table of Interests in flight, or the work of one instant, outgrows memory.
fn level(value: &Bound<'_, PyAny>, method: &str) -> PyResult<f64> {
    let v = finite(value, method)?;
    let (lo, hi, unit) = match method {
        "rate" => (check::MIN_RATE, check::MAX_RATE, "Interests/s"),
        _ => (0.0, check::MAX_WINDOW, "Interests"),
    };
    if (lo..=hi).contains(&v) {
        Ok(v)
    } else {
        Err(PyValueError::new_err(format!("{method}() must return a number from {lo} to {hi} {unit}, got {v:?}")))
    }
}

/// The family's state read after every hook: `window()` or `rate()`.
fn read_level(py: Python<'_>, f: &PyObject, method: &'static str) -> Result<f64, (&'static str, PyErr)> {
    f.bind(py).call0().and_then(|v| level(&v, method)).map_err(|e| (method, e))
}

/// A Python controller whose every callback is followed by reading its level (the window or
/// the rate), which the engine then uses until the next callback.
trait Hooked: Sized {
    /// The method that gives the level.
    const LEVEL: &'static str;
    fn level_fn(&self) -> &PyObject;
    fn set_level(&mut self, level: f64);
    fn who(&self) -> &Who;

    /// Call `hook`'s method with `event`, then read the level; the result goes through `answer`.
    fn hook<T>(
        &mut self,
        hook: &'static str,
        method: fn(&Self) -> Option<&PyObject>,
        event: impl IntoPy<PyObject>,
        answer: impl FnOnce(&Self, &Bound<'_, PyAny>) -> PyResult<T>,
        default: T,
    ) -> T {
        let Some(method) = method(self) else { return default };
        let result = Python::with_gil(|py| {
            let returned = method.bind(py).call1((event,)).and_then(|r| answer(self, &r)).map_err(|e| (hook, e))?;
            Ok((returned, read_level(py, self.level_fn(), Self::LEVEL)?))
        });
        match result {
            Ok((returned, level)) => {
                self.set_level(level);
                returned
            }
            Err((hook, e)) => fail(self.who(), hook, e),
        }
    }
}

impl Hooked for PyWindow {
    const LEVEL: &'static str = "window";
    fn level_fn(&self) -> &PyObject {
        &self.window_fn
    }
    fn set_level(&mut self, level: f64) {
        self.window = level;
    }
    fn who(&self) -> &Who {
        &self.c.who
    }
}

impl Hooked for PyRate {
    const LEVEL: &'static str = "rate";
    fn level_fn(&self) -> &PyObject {
        &self.rate_fn
    }
    fn set_level(&mut self, level: f64) {
        self.rate = level;
    }
    fn who(&self) -> &Who {
        &self.c.who
    }
}

/// A `WindowControl` over a Python `WindowController`.
pub struct PyWindow {
    c: Common,
    on_interest_sent: Option<PyObject>,
    on_hole: Option<PyObject>,
    window_fn: PyObject,
    ssthresh_fn: Option<PyObject>,
    hole: Actions,
    detects_holes: bool,
    /// `window()` as read after the last hook.
    window: f64,
}

impl PyWindow {
    fn new(py: Python<'_>, who: Who, obj: &Bound<'_, PyAny>) -> PyResult<PyWindow> {
        let base = module(py)?.getattr("WindowController")?;
        let detects_holes = obj.call_method0("detects_holes")?.is_truthy()?;
        let window_fn = obj.getattr("window")?;
        let window = level(&window_fn.call0()?, "window")?;
        Ok(PyWindow {
            c: Common::new(py, who, obj, &base)?,
            on_interest_sent: overridden(obj, &base, "on_interest_sent")?,
            on_hole: overridden(obj, &base, "on_hole")?,
            window_fn: window_fn.unbind(),
            ssthresh_fn: overridden(obj, &base, "ssthresh")?,
            hole: Actions::new(py, "HoleAction")?,
            detects_holes,
            window,
        })
    }
}

impl WindowControl for PyWindow {
    fn name(&self) -> &'static str {
        external::PYTHON
    }
    fn on_interest_sent(&mut self, ev: &SentEvent) {
        self.hook("on_interest_sent", |w| w.on_interest_sent.as_ref(), PySentEvent::from(ev), |_, _| Ok(()), ());
    }
    fn on_data(&mut self, ev: &DataEvent) {
        self.hook("on_data", |w| w.c.on_data.as_ref(), PyDataEvent::from(ev), |_, _| Ok(()), ());
    }
    fn on_timeout(&mut self, ev: &LossEvent) {
        self.hook("on_timeout", |w| w.c.on_timeout.as_ref(), PyLossEvent::from(ev), |_, _| Ok(()), ());
    }
    fn on_nack(&mut self, ev: &LossEvent) -> NackAction {
        let retransmit = self.hook(
            "on_nack",
            |w| w.c.on_nack.as_ref(),
            PyLossEvent::from(ev),
            |me, r| me.c.nack.retransmit(r, "on_nack"),
            true,
        );
        if retransmit {
            NackAction::Retransmit
        } else {
            NackAction::Ignore
        }
    }
    fn detects_holes(&self) -> bool {
        self.detects_holes
    }
    fn on_hole(&mut self, ev: &HoleEvent) -> HoleAction {
        let retransmit = self.hook(
            "on_hole",
            |w| w.on_hole.as_ref(),
            PyHoleEvent::from(ev),
            |me, r| me.hole.retransmit(r, "on_hole"),
            false,
        );
        if retransmit {
            HoleAction::Retransmit
        } else {
            HoleAction::Ignore
        }
    }
    fn window(&self) -> f64 {
        self.window
    }
    fn ssthresh(&self) -> Option<f64> {
        let f = self.ssthresh_fn.as_ref()?;
        let read = Python::with_gil(|py| {
            let v = f.bind(py).call0()?;
            if v.is_none() {
                Ok(None)
            } else {
                finite(&v, "ssthresh").map(Some)
            }
        });
        read.unwrap_or_else(|e| fail(&self.c.who, "ssthresh", e))
    }
    fn metrics(&self, out: &mut Vec<(&'static str, f64)>) {
        self.c.metrics(out);
    }
    /// A Python `metrics()` may read anything, so it is called at every sample.
    fn metrics_change_only_in_hooks(&self) -> bool {
        self.c.metrics.is_none()
    }
    fn use_rng(&mut self, rng: SimRng) {
        self.c.give_rng(rng);
    }
}

/// A `RateControl` over a Python `RateController`.
pub struct PyRate {
    c: Common,
    rate_fn: PyObject,
    /// `rate()` as read after the last hook.
    rate: f64,
}

impl PyRate {
    fn new(py: Python<'_>, who: Who, obj: &Bound<'_, PyAny>) -> PyResult<PyRate> {
        let base = module(py)?.getattr("RateController")?;
        let rate_fn = obj.getattr("rate")?;
        let rate = level(&rate_fn.call0()?, "rate")?;
        Ok(PyRate { c: Common::new(py, who, obj, &base)?, rate_fn: rate_fn.unbind(), rate })
    }
}

impl RateControl for PyRate {
    fn name(&self) -> &'static str {
        external::PYTHON
    }
    fn on_data(&mut self, ev: &DataEvent) {
        self.hook("on_data", |r| r.c.on_data.as_ref(), PyDataEvent::from(ev), |_, _| Ok(()), ());
    }
    fn on_timeout(&mut self, ev: &LossEvent) {
        self.hook("on_timeout", |r| r.c.on_timeout.as_ref(), PyLossEvent::from(ev), |_, _| Ok(()), ());
    }
    fn on_nack(&mut self, ev: &LossEvent) -> NackAction {
        let retransmit = self.hook(
            "on_nack",
            |r| r.c.on_nack.as_ref(),
            PyLossEvent::from(ev),
            |me, r| me.c.nack.retransmit(r, "on_nack"),
            false,
        );
        if retransmit {
            NackAction::Retransmit
        } else {
            NackAction::Ignore
        }
    }
    fn rate(&self) -> f64 {
        self.rate
    }
    fn metrics(&self, out: &mut Vec<(&'static str, f64)>) {
        self.c.metrics(out);
    }
    /// A Python `metrics()` may read anything, so it is called at every sample.
    fn metrics_change_only_in_hooks(&self) -> bool {
        self.c.metrics.is_none()
    }
}

/// The front the core calls for `type = "python"`; installed when `ndncc._core` is imported.
pub struct PythonFront;

pub static FRONT: PythonFront = PythonFront;

impl PythonFront {
    /// Import the class and call it with the params.
    fn instantiate<'py>(py: Python<'py>, family: Family, spec: &ClassSpec) -> PyResult<Bound<'py, PyAny>> {
        module(py)?.call_method1("_build", spec_args(py, family, spec)?)
    }

    /// The app this build is for and the run's seed, or a failure naming the class.
    fn who(spec: &ClassSpec) -> (Who, u64) {
        match context::next_app(spec) {
            Ok((app, seed)) => (Who { app, class: spec.class.clone() }, seed),
            Err(m) => {
                let who = Who { app: "?".into(), class: spec.class.clone() };
                fail(&who, "__init__", pyo3::exceptions::PyRuntimeError::new_err(m))
            }
        }
    }
}

impl Front for PythonFront {
    fn check(&self, family: Family, spec: &ClassSpec) -> Check {
        let answer = Python::with_gil(|py| -> PyResult<Option<(String, String)>> {
            module(py)?.call_method1("_check", spec_args(py, family, spec)?)?.extract()
        });
        match answer {
            Ok(None) => Ok(()),
            Ok(Some((key, message))) => Err(Invalid::new(key, message)),
            Err(e) => Err(Invalid::new("class", format!("the class could not be checked: {e}"))),
        }
    }

    fn window(&self, spec: &ClassSpec) -> Box<dyn WindowControl> {
        let (who, _) = Self::who(spec);
        let built = Python::with_gil(|py| {
            let obj = Self::instantiate(py, Family::Window, spec).map_err(|e| ("__init__", e))?;
            PyWindow::new(py, who.clone(), &obj).map_err(|e| ("window", e))
        });
        match built {
            Ok(w) => Box::new(w),
            Err((hook, e)) => fail(&who, hook, e),
        }
    }

    fn rate(&self, spec: &ClassSpec) -> Box<dyn RateControl> {
        let (who, seed) = Self::who(spec);
        let built = Python::with_gil(|py| {
            let obj = Self::instantiate(py, Family::Rate, spec).map_err(|e| ("__init__", e))?;
            PyRate::new(py, who.clone(), &obj).map_err(|e| ("rate", e))
        });
        match built {
            Ok(r) => {
                // The rate trait has no `use_rng`: give the stream a window controller would get.
                r.c.give_rng(external::controller_stream(seed, &who.app));
                Box::new(r)
            }
            Err((hook, e)) => fail(&who, hook, e),
        }
    }
}
