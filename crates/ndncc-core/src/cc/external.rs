//! Controllers written outside Rust: the `python` window and rate types.
//!
//! ```text
//!  window = { type = "python", class = "mypkg.mymod:MyAimd", params = { beta = 0.5 } }
//!        │ validate() ──▶ front().check(family, class)   "no module 'mypkg' …" names the key
//!        └ build()    ──▶ front().window(class)          a Box<dyn WindowControl> over Python
//! ```
//!
//! The core does not depend on Python. A front end (the compiled module of the `ndncc` Python
//! package) installs a [`Front`] when it is imported; the `python` configs validate and build
//! through it. Without a front (the core on its own: `cargo test`, `ndncc-bench`), validation
//! fails with a message that says so, so a scenario never reaches `build` without one.

use std::sync::OnceLock;

use rand::RngCore;
use serde::{Deserialize, Serialize};

/// The types of `params`, for a front that has no TOML crate of its own.
pub use toml::{Table, Value};

use super::{RateControl, WindowControl};
use crate::plugin::{Check, Invalid, Plugin};
use crate::rng::{stream, SimRng};

/// The `type` name of both families' external controllers.
pub const PYTHON: &str = "python";

/// Which family a class must belong to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Family {
    Window,
    Rate,
}

impl Family {
    pub fn name(self) -> &'static str {
        match self {
            Family::Window => "window",
            Family::Rate => "rate",
        }
    }
}

/// A class written in another language and the keyword arguments it is built with.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ClassSpec {
    /// `"package.module:Class"`: the module to import and the class in it. Required.
    pub class: String,
    /// Keyword arguments of the class's constructor. Default: none.
    pub params: toml::Table,
}

impl ClassSpec {
    /// The same class with the same parameters as written. TOML floats compare as IEEE numbers,
    /// where `nan` is not equal to itself, so a spec with a `nan` parameter would not equal its
    /// own copy: parameters that differ as values are compared as TOML text too.
    pub fn same_as(&self, other: &ClassSpec) -> bool {
        self.class == other.class
            && (self.params == other.params
                || toml::to_string(&self.params).ok() == toml::to_string(&other.params).ok())
    }

    /// The module and the (possibly dotted) class name, if `class` has the `module:Class` shape.
    pub fn split(&self) -> Option<(&str, &str)> {
        let (module, qualname) = self.class.split_once(':')?;
        (dotted_identifier(module) && dotted_identifier(qualname)).then_some((module, qualname))
    }

    fn check(&self, family: Family) -> Check {
        if self.class.is_empty() {
            return Err(Invalid::new("class", "required: the controller's class as \"package.module:Class\""));
        }
        if self.split().is_none() {
            return Err(Invalid::new(
                "class",
                format!("expected \"package.module:Class\" (dotted names, one colon), got {:?}", self.class),
            ));
        }
        match front() {
            Some(f) => f.check(family, self),
            None => Err(Invalid::new(
                "type",
                "\"python\" controllers need the ndncc Python package: load and run this scenario from \
                 Python (`ndncc run`, `ndncc validate` or `ndncc.load`), which can import the class",
            )),
        }
    }
}

/// `a.b_c.D`: one or more identifiers joined by dots.
fn dotted_identifier(s: &str) -> bool {
    !s.is_empty()
        && s.split('.').all(|part| {
            let mut chars = part.chars();
            chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
                && chars.all(|c| c.is_alphanumeric() || c == '_')
        })
}

/// `window = { type = "python", class = "…", params = { … } }`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PythonWindowConfig(pub ClassSpec);

/// `rate = { type = "python", class = "…", params = { … } }`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct PythonRateConfig(pub ClassSpec);

impl Plugin for PythonWindowConfig {
    type Built = Box<dyn WindowControl>;
    fn validate(&self) -> Check {
        self.0.check(Family::Window)
    }
    fn build(&self) -> Box<dyn WindowControl> {
        installed().window(&self.0)
    }
}

impl Plugin for PythonRateConfig {
    type Built = Box<dyn RateControl>;
    fn validate(&self) -> Check {
        self.0.check(Family::Rate)
    }
    fn build(&self) -> Box<dyn RateControl> {
        installed().rate(&self.0)
    }
}

/// What a front end provides: checking a class and building controllers from it.
///
/// `build` cannot fail in the plug-in model (a config that validated builds), so a front whose
/// constructor call fails stops the run itself (the Python front unwinds to its own run call,
/// which raises the user's exception).
pub trait Front: Send + Sync {
    /// The class exists, belongs to `family` and takes these params; the error names the key
    /// relative to the config's table (`class`, `params.beta`).
    fn check(&self, family: Family, spec: &ClassSpec) -> Check;
    fn window(&self, spec: &ClassSpec) -> Box<dyn WindowControl>;
    fn rate(&self, spec: &ClassSpec) -> Box<dyn RateControl>;
}

static FRONT: OnceLock<&'static dyn Front> = OnceLock::new();

/// Install the front end; returns false when one was already installed (it stays).
pub fn install(front: &'static dyn Front) -> bool {
    FRONT.set(front).is_ok()
}

/// The installed front end, if any.
pub fn front() -> Option<&'static dyn Front> {
    FRONT.get().copied()
}

fn installed() -> &'static dyn Front {
    // `validate` fails without a front, and the engine builds only validated scenarios.
    front().expect("a \"python\" controller is built only after its config validated, which needs a front")
}

/// A seed for an external controller's own generator, drawn from the stream the engine gives it.
pub fn seed_from(rng: &mut SimRng) -> u64 {
    rng.next_u64()
}

/// The stream a window controller of app `app` gets from its consumer (`use_rng`): the app's
/// stream jumped 2^128 draws ahead. For rate controllers, whose trait has no `use_rng`, a front
/// derives the same stream here, so both families are seeded alike.
pub fn controller_stream(run_seed: u64, app: &str) -> SimRng {
    let mut rng = stream(run_seed, &format!("app:{app}"));
    rng.jump();
    rng
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn class_paths_need_a_module_a_colon_and_a_class() {
        let spec = |c: &str| ClassSpec { class: c.into(), ..ClassSpec::default() };
        assert_eq!(spec("mypkg.aimd:MyAimd").split(), Some(("mypkg.aimd", "MyAimd")));
        assert_eq!(spec("m:Outer.Inner").split(), Some(("m", "Outer.Inner")));
        for bad in ["", "MyAimd", "m:", ":C", "m::C", "m.:C", "1m:C", "m:C-x", "m:C:D"] {
            assert_eq!(spec(bad).split(), None, "{bad}");
        }
    }

    #[test]
    fn a_spec_with_a_nan_parameter_is_the_same_as_its_copy() {
        let mut params = toml::Table::new();
        params.insert("beta".into(), toml::Value::Float(f64::NAN));
        let a = ClassSpec { class: "m:C".into(), params };
        assert!(a != a.clone(), "IEEE: nan is not equal to itself");
        assert!(a.same_as(&a.clone()));
        let mut other = a.clone();
        other.params.insert("beta".into(), toml::Value::Float(0.5));
        assert!(!a.same_as(&other));
        assert!(!a.same_as(&ClassSpec { class: "m:D".into(), ..a.clone() }));
    }

    #[test]
    fn a_malformed_class_is_reported_under_its_key() {
        let spec = ClassSpec { class: "mypkg.aimd".into(), ..ClassSpec::default() };
        let err = PythonWindowConfig(spec).validate().unwrap_err();
        assert_eq!(err.key, "class");
        assert!(err.message.contains("package.module:Class"), "{err}");
        assert_eq!(PythonRateConfig::default().validate().unwrap_err().key, "class");
    }

    #[test]
    fn without_a_front_a_well_formed_class_is_rejected_with_a_reason() {
        // No test of this crate installs a front.
        let spec = ClassSpec { class: "mypkg.aimd:MyAimd".into(), ..ClassSpec::default() };
        let err = PythonWindowConfig(spec).validate().unwrap_err();
        assert_eq!(err.key, "type");
        assert!(err.message.contains("ndncc Python package"), "{err}");
    }

    #[test]
    fn rate_controllers_get_the_stream_window_controllers_get_from_their_consumer() {
        let mut jumped = stream(7, "app:C1");
        jumped.jump();
        assert_eq!(seed_from(&mut controller_stream(7, "C1")), seed_from(&mut jumped));
        assert_ne!(seed_from(&mut controller_stream(7, "C1")), seed_from(&mut controller_stream(7, "C2")));
    }

    #[test]
    fn params_are_read_as_a_free_table() {
        let cfg: PythonWindowConfig =
            toml::from_str("class = \"m:C\"\nparams = { beta = 0.7, name = \"x\", steps = [1, 2] }").unwrap();
        assert_eq!(cfg.0.params["beta"].as_float(), Some(0.7));
        let err = toml::from_str::<PythonWindowConfig>("class = \"m:C\"\nbeta = 0.7").unwrap_err();
        assert!(err.to_string().contains("beta"), "{err}");
    }
}
