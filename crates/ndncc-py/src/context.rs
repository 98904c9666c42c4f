//! What a Python controller needs from the call that loads or runs its scenario and that the
//! core's `validate` / `build` do not pass: the scenario file's folder (to import the class from),
//! and, during a run, its seed and which app each `build` is for.
//!
//! The core builds consumers in the order of `scenario.apps` (a sorted map), so the n-th
//! `python` controller built belongs to the n-th consumer with a `python` controller in that map.
//! Each build checks that the config it was given is that app's.

use std::cell::RefCell;
use std::collections::VecDeque;
use std::path::{Path, PathBuf};

use ndncc_core::cc::external::ClassSpec;
use ndncc_core::cc::rate::RateConfig;
use ndncc_core::cc::window::WindowConfig;
use ndncc_core::scenario::{AppSpec, Control, Scenario};

#[derive(Default)]
pub struct Context {
    /// Where the scenario file is; modules are looked for there first.
    pub folder: Option<PathBuf>,
    /// During a run: its root seed and the apps whose controllers are still to be built.
    pub run: Option<RunInfo>,
}

pub struct RunInfo {
    pub seed: u64,
    pending: VecDeque<(String, ClassSpec)>,
}

impl RunInfo {
    /// The consumers of `scenario` with a `python` controller, in the order the core builds them.
    pub fn new(scenario: &Scenario, seed: u64) -> RunInfo {
        let pending = scenario
            .apps
            .iter()
            .filter_map(|(name, app)| match app {
                AppSpec::Consumer(c) => match c.control() {
                    Some(Control::Window(WindowConfig::Python(p))) => Some((name.clone(), p.0.clone())),
                    Some(Control::Rate(RateConfig::Python(p))) => Some((name.clone(), p.0.clone())),
                    _ => None,
                },
                _ => None,
            })
            .collect();
        RunInfo { seed, pending }
    }
}

thread_local! {
    static CONTEXT: RefCell<Context> = RefCell::new(Context::default());
}

/// Run `f` with `ctx` as this thread's context; the previous one is back afterwards, even if `f`
/// unwinds.
pub fn within<R>(ctx: Context, f: impl FnOnce() -> R) -> R {
    struct Restore(Option<Context>);
    impl Drop for Restore {
        fn drop(&mut self) {
            if let Some(prev) = self.0.take() {
                CONTEXT.with(|c| *c.borrow_mut() = prev);
            }
        }
    }
    let prev = CONTEXT.with(|c| c.replace(ctx));
    let _restore = Restore(Some(prev));
    f()
}

/// The folder of the scenario being loaded or run, if it came from a file.
pub fn folder() -> Option<PathBuf> {
    CONTEXT.with(|c| c.borrow().folder.clone())
}

/// The app the next `python` controller is built for, and the run's seed; `Err` says why not.
pub fn next_app(spec: &ClassSpec) -> Result<(String, u64), String> {
    CONTEXT.with(|c| {
        let mut c = c.borrow_mut();
        let run = c.run.as_mut().ok_or("a Python controller was built outside a run of ndncc")?;
        match run.pending.pop_front() {
            Some((app, expected)) if expected.same_as(spec) => Ok((app, run.seed)),
            Some((app, _)) => Err(format!("internal: app {app} was expected to be built next")),
            None => Err("internal: more Python controllers built than the scenario has".to_string()),
        }
    })
}

/// The folder of a scenario file, made absolute so that it still names the same place for
/// worker processes; `None` for text that did not come from a file.
pub fn folder_of(file: &Path) -> Option<PathBuf> {
    if !file.is_file() {
        return None;
    }
    let absolute = std::fs::canonicalize(file).ok()?;
    absolute.parent().map(Path::to_path_buf)
}
