//! Link values drawn at random, once per run, from the run's seed:
//! `delay = { type = "uniform", min = "5ms", max = "15ms" }` in place of `delay = "10ms"`.
//!
//! A scenario keeps the distribution; `Scenario::draw_link_values(seed)` turns it into one
//! fixed value per link just before the world is built, so everything downstream (routing by
//! delay, the links themselves) sees an ordinary fixed scenario. Each drawn value has its own
//! random stream, `linkvalue:LINK:KEY`, so drawing one more value leaves the others unchanged.

use std::borrow::Cow;
use std::fmt;

use serde::de::{self, value::MapAccessDeserializer, IntoDeserializer};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::types::Scenario;
use crate::plugin::{check, Check, Invalid};
use crate::rng::{standard_normal, stream, unit, SimRng};
use crate::units::{Bandwidth, Duration, MAX_BANDWIDTH_BPS};

/// A quantity a distribution can be given in: a time or a bandwidth, counted in its base unit
/// (nanoseconds, bit/s) when drawn.
pub trait Quantity: Copy + PartialEq + fmt::Display + fmt::Debug {
    /// The value in the base unit.
    fn base(self) -> f64;
    /// The nearest value to `x` base units that the type can hold (it rounds and clamps).
    fn from_base(x: f64) -> Self;
    /// The smallest value a link accepts [base units]: 0 ns, 1 bit/s.
    const LOWEST: f64;
    /// The largest value a setting may give [base units]: `check::MAX_TIME`, 10 Tbps.
    const HIGHEST: f64;
}

impl Quantity for Duration {
    fn base(self) -> f64 {
        self.get().nanos() as f64
    }
    fn from_base(x: f64) -> Duration {
        let ns = x.round().clamp(0.0, check::MAX_TIME.nanos() as f64);
        Duration(crate::time::SimDuration(ns as u64))
    }
    const LOWEST: f64 = 0.0;
    const HIGHEST: f64 = check::MAX_TIME.0 as f64;
}

impl Quantity for Bandwidth {
    fn base(self) -> f64 {
        self.bps() as f64
    }
    fn from_base(x: f64) -> Bandwidth {
        Bandwidth(x.round().clamp(1.0, MAX_BANDWIDTH_BPS as f64) as u64)
    }
    const LOWEST: f64 = 1.0;
    const HIGHEST: f64 = MAX_BANDWIDTH_BPS as f64;
}

/// `{ type = "uniform" | "normal" | "lognormal", … }`: where a drawn link value comes from.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub enum Distribution<T> {
    /// Uniform between `min` and `max`.
    Uniform { min: T, max: T },
    /// Normal with mean `mean` and standard deviation `sd`, truncated below at the lowest value
    /// a link accepts (a draw below it is drawn again).
    Normal { mean: T, sd: T },
    /// Log-normal whose own mean and standard deviation are `mean` and `sd`: ln X is normal
    /// with σ² = ln(1 + sd²/mean²) and μ = ln(mean) − σ²/2.
    Lognormal { mean: T, sd: T },
}

/// The most draws a truncated normal makes before it settles for the mean. With `sd ≤ mean` a
/// draw is rejected less than 16% of the time, so 100 rejections in a row do not happen.
const MAX_REDRAWS: u32 = 100;

impl<T: Quantity> Distribution<T> {
    /// Check the parameters; keys are relative to the distribution's table.
    pub fn validate(&self) -> Check {
        let params = match *self {
            Distribution::Uniform { min, max } => [("min", min), ("max", max)],
            Distribution::Normal { mean, sd } | Distribution::Lognormal { mean, sd } => [("mean", mean), ("sd", sd)],
        };
        for (key, v) in params {
            if v.base() > T::HIGHEST {
                return Err(Invalid::new(key, format!("{v} is beyond the largest value a link may have")));
            }
        }
        match *self {
            Distribution::Uniform { min, max } => {
                if min.base() >= max.base() {
                    return Err(Invalid::new("max", format!("must be above `min` ({max} is not above {min})")));
                }
                Ok(())
            }
            Distribution::Normal { mean, sd } => {
                positive("sd", sd)?;
                if sd.base() > mean.base() {
                    return Err(Invalid::new(
                        "sd",
                        format!(
                            "must be at most `mean` ({sd} > {mean}): draws below zero would be redrawn too often; \
                             use type = \"lognormal\" for a wider spread"
                        ),
                    ));
                }
                Ok(())
            }
            Distribution::Lognormal { mean, sd } => {
                positive("mean", mean)?;
                positive("sd", sd)
            }
        }
    }

    /// The value a scenario shows before the draw: `mean`, or the middle of a uniform range.
    pub fn mean(&self) -> T {
        match *self {
            Distribution::Uniform { min, max } => T::from_base((min.base() + max.base()) / 2.0),
            Distribution::Normal { mean, .. } | Distribution::Lognormal { mean, .. } => mean,
        }
    }

    /// One draw.
    pub fn draw(&self, rng: &mut SimRng) -> T {
        match *self {
            Distribution::Uniform { min, max } => T::from_base(min.base() + unit(rng) * (max.base() - min.base())),
            Distribution::Normal { mean, sd } => {
                for _ in 0..MAX_REDRAWS {
                    let x = mean.base() + sd.base() * standard_normal(rng);
                    if x >= T::LOWEST {
                        return T::from_base(x);
                    }
                }
                mean
            }
            Distribution::Lognormal { mean, sd } => {
                let (m, s) = (mean.base(), sd.base());
                let sigma2 = (s * s / (m * m)).ln_1p();
                let mu = m.ln() - sigma2 / 2.0;
                T::from_base((mu + sigma2.sqrt() * standard_normal(rng)).exp())
            }
        }
    }
}

fn positive<T: Quantity>(key: &str, v: T) -> Check {
    if v.base() > 0.0 {
        Ok(())
    } else {
        Err(Invalid::new(key, format!("must be > 0 (got {v})")))
    }
}

/// A link's `bandwidth` or `delay` as a scenario file gives it: a fixed value or a distribution.
/// (Serde's form only; a `LinkSpec` holds the value and the distribution apart.)
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) enum FileValue<T> {
    Fixed(T),
    Drawn(Distribution<T>),
}

impl<T: Serialize> Serialize for FileValue<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            FileValue::Fixed(v) => v.serialize(s),
            FileValue::Drawn(d) => d.serialize(s),
        }
    }
}

impl<'de, T: Deserialize<'de>> Deserialize<'de> for FileValue<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct V<T>(std::marker::PhantomData<T>);
        impl<'de, T: Deserialize<'de>> de::Visitor<'de> for V<T> {
            type Value = FileValue<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a value with a unit, or a distribution like { type = \"uniform\", min = …, max = … }")
            }
            // Plain values go to the unit type itself, so its own messages ("has no unit", …) stay.
            fn visit_str<E: de::Error>(self, v: &str) -> Result<FileValue<T>, E> {
                T::deserialize(v.into_deserializer()).map(FileValue::Fixed)
            }
            fn visit_i64<E: de::Error>(self, v: i64) -> Result<FileValue<T>, E> {
                T::deserialize(v.into_deserializer()).map(FileValue::Fixed)
            }
            fn visit_u64<E: de::Error>(self, v: u64) -> Result<FileValue<T>, E> {
                T::deserialize(v.into_deserializer()).map(FileValue::Fixed)
            }
            fn visit_f64<E: de::Error>(self, v: f64) -> Result<FileValue<T>, E> {
                T::deserialize(v.into_deserializer()).map(FileValue::Fixed)
            }
            fn visit_map<A: de::MapAccess<'de>>(self, map: A) -> Result<FileValue<T>, A::Error> {
                Distribution::deserialize(MapAccessDeserializer::new(map)).map(FileValue::Drawn)
            }
        }
        d.deserialize_any(V(std::marker::PhantomData))
    }
}

impl<T: Quantity> FileValue<T> {
    /// The value to hold, and the distribution it is drawn from, if any.
    pub(crate) fn split(self) -> (T, Option<Distribution<T>>) {
        match self {
            FileValue::Fixed(v) => (v, None),
            FileValue::Drawn(d) => (d.mean(), Some(d)),
        }
    }

    pub(crate) fn join(value: T, drawn: Option<Distribution<T>>) -> FileValue<T> {
        match drawn {
            Some(d) => FileValue::Drawn(d),
            None => FileValue::Fixed(value),
        }
    }
}

/// The distributions a link's values are drawn from; none means every value is fixed.
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct LinkDraws {
    pub bandwidth: Option<Distribution<Bandwidth>>,
    pub delay: Option<Distribution<Duration>>,
}

impl LinkDraws {
    pub fn any(&self) -> bool {
        self.bandwidth.is_some() || self.delay.is_some()
    }
}

impl Scenario {
    /// The scenario with every drawn link value replaced by its draw for root seed `seed`: the
    /// scenario itself when nothing is drawn.
    pub fn draw_link_values(&self, seed: u64) -> Cow<'_, Scenario> {
        if !self.links.values().any(|l| l.drawn.any()) {
            return Cow::Borrowed(self);
        }
        let mut s = self.clone();
        for (name, link) in s.links.iter_mut() {
            if let Some(d) = link.drawn.bandwidth.take() {
                link.bandwidth = d.draw(&mut stream(seed, &format!("linkvalue:{name}:bandwidth")));
            }
            if let Some(d) = link.drawn.delay.take() {
                link.delay = d.draw(&mut stream(seed, &format!("linkvalue:{name}:delay")));
            }
        }
        Cow::Owned(s)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimDuration;

    fn ms(x: u64) -> Duration {
        Duration::from_millis(x)
    }

    /// Mean and standard deviation of `n` draws [base units].
    fn moments<T: Quantity>(d: &Distribution<T>, n: usize, seed: u64) -> (f64, f64) {
        let mut g = stream(seed, "linkvalue:test");
        let xs: Vec<f64> = (0..n).map(|_| d.draw(&mut g).base()).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (n as f64 - 1.0);
        (mean, var.sqrt())
    }

    #[test]
    fn uniform_draws_stay_in_range_with_the_mean_and_spread_of_a_uniform() {
        // U(5 ms, 15 ms): mean 10 ms, sd 10/√12 = 2.887 ms.
        let d = Distribution::Uniform { min: ms(5), max: ms(15) };
        let mut g = stream(1, "u");
        assert!((0..10_000).all(|_| (ms(5)..=ms(15)).contains(&d.draw(&mut g))));
        let (m, s) = moments(&d, 50_000, 2);
        assert!((m - 10e6).abs() < 0.05e6 && (s - 2.887e6).abs() < 0.05e6, "{m} {s}");
    }

    #[test]
    fn normal_and_lognormal_draws_have_the_mean_and_sd_asked_for() {
        // Normal(10 Mbps, 1 Mbps): truncation at 1 bit/s is 10 sd away and changes nothing.
        let n = Distribution::Normal { mean: Bandwidth::mbps(10), sd: Bandwidth::mbps(1) };
        let (m, s) = moments(&n, 50_000, 3);
        assert!((m - 10e6).abs() < 0.03e6 && (s - 1e6).abs() < 0.03e6, "{m} {s}");
        // Log-normal with mean 20 ms and sd 10 ms: the draws' own mean and sd (the sd of a
        // log-normal sample converges slowly, hence the wider band).
        let l = Distribution::Lognormal { mean: ms(20), sd: ms(10) };
        let (m, s) = moments(&l, 200_000, 4);
        assert!((m - 20e6).abs() < 0.15e6 && (s - 10e6).abs() < 0.4e6, "{m} {s}");
    }

    #[test]
    fn a_normal_delay_is_never_negative() {
        // sd = mean: one draw in six falls below zero and is drawn again.
        let d = Distribution::Normal { mean: ms(5), sd: ms(5) };
        let mut g = stream(9, "n");
        let xs: Vec<Duration> = (0..20_000).map(|_| d.draw(&mut g)).collect();
        assert!(xs.iter().all(|x| x.get() >= SimDuration::ZERO));
        // A zero-truncated normal(μ, μ) has mean μ + μ·φ(1)/Φ(1) = 1.2876 μ.
        let mean = xs.iter().map(|x| x.base()).sum::<f64>() / xs.len() as f64;
        assert!((mean / 5e6 - 1.2876).abs() < 0.02, "{mean}");
    }

    #[test]
    fn the_same_seed_draws_the_same_value_and_another_seed_another() {
        let d = Distribution::Uniform { min: ms(5), max: ms(15) };
        let draw = |seed| d.draw(&mut stream(seed, "linkvalue:A-B:delay"));
        assert_eq!(draw(1), draw(1));
        assert_ne!(draw(1), draw(2));
    }

    #[test]
    fn bad_parameters_name_their_key() {
        let key = |d: Distribution<Duration>| d.validate().unwrap_err().key;
        assert_eq!(key(Distribution::Uniform { min: ms(5), max: ms(5) }), "max");
        assert_eq!(key(Distribution::Normal { mean: ms(5), sd: ms(6) }), "sd");
        assert_eq!(key(Distribution::Normal { mean: ms(5), sd: ms(0) }), "sd");
        assert_eq!(key(Distribution::Lognormal { mean: ms(0), sd: ms(1) }), "mean");
        assert!(Distribution::Lognormal { mean: ms(5), sd: ms(50) }.validate().is_ok());
    }

    #[test]
    fn the_shown_value_is_the_mean_or_the_middle_of_the_range() {
        assert_eq!(Distribution::Uniform { min: ms(4), max: ms(10) }.mean(), ms(7));
        assert_eq!(Distribution::Lognormal { mean: ms(3), sd: ms(1) }.mean(), ms(3));
    }
}
