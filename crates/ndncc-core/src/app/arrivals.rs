//! Request arrival processes: when an open-loop consumer's requests come in.
//!
//! ```text
//!   poisson   ──x────x─x──────────x───x──x──▶   gaps exponential, mean 1/rate
//!   periodic  ──x─────x─────x─────x─────x───▶   gaps exactly 1/rate
//!   on-off    ──x─x──x─x│           │x─xx─x│  ▶   Poisson at `rate` while on, nothing while off
//!               on      off          on
//! ```
//!
//! The on-off process is the interrupted Poisson process: on and off periods alternate,
//! starting with an on period; their lengths are either fixed or exponential with the given
//! means. Since Poisson gaps are memoryless, a gap that would end after an on period simply
//! resumes at the start of the next one.

use serde::{Deserialize, Serialize};

use crate::plugin::{check, Check, Invalid};
use crate::rng::{exponential, SimRng};
use crate::time::{SimDuration, SimTime};
use crate::units::Duration;

/// The shortest on or off period.
const MIN_PERIOD: SimDuration = SimDuration::from_micros(1);
/// The fewest requests an on period may bring on average.
const MIN_REQUESTS_PER_PERIOD: f64 = 1e-3;

/// How the lengths of on and off periods are drawn.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Periods {
    /// Exponential, with means `on` and `off`.
    #[default]
    Exponential,
    /// Exactly `on` and `off`.
    Fixed,
}

/// `arrivals = { type = "…", … }` on a consumer.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub enum ArrivalsConfig {
    /// Requests at exponential gaps: a Poisson process of `rate` requests per second.
    Poisson {
        /// Mean requests per second. Required.
        rate: f64,
    },
    /// Requests exactly `1 / rate` apart, the first at the consumer's start (not random).
    Periodic {
        /// Requests per second. Required.
        rate: f64,
    },
    /// A Poisson process of `rate` requests per second during on periods, none during off ones.
    OnOff {
        /// Mean requests per second while on. Required.
        rate: f64,
        /// (Mean) length of an on period \[time\]. Required.
        on: Duration,
        /// (Mean) length of an off period \[time\]. Required.
        off: Duration,
        /// `"exponential"` (default) or `"fixed"` period lengths.
        #[serde(default)]
        periods: Periods,
    },
}

impl ArrivalsConfig {
    /// Check every value; keys are relative to the `arrivals` table.
    pub fn validate(&self) -> Check {
        match *self {
            ArrivalsConfig::Poisson { rate } | ArrivalsConfig::Periodic { rate } => check::rate("rate", rate),
            ArrivalsConfig::OnOff { rate, on, off, .. } => {
                check::rate("rate", rate)?;
                for (key, d) in [("on", on), ("off", off)] {
                    check::time(key, d.get(), false)?;
                    if d.get() < MIN_PERIOD {
                        return Err(Invalid::new(key, format!("must be at least {} (got {d})", Duration(MIN_PERIOD))));
                    }
                }
                // Finding the next request walks through the periods without one: there must be
                // few of them.
                let per_period = rate * on.get().as_secs_f64();
                if per_period < MIN_REQUESTS_PER_PERIOD {
                    return Err(Invalid::new(
                        "rate",
                        format!(
                            "rate × on is {per_period}: fewer than one request in {} on periods; raise `rate` or \
                             lengthen `on`",
                            1.0 / MIN_REQUESTS_PER_PERIOD
                        ),
                    ));
                }
                Ok(())
            }
        }
    }

    /// The `type` name.
    pub fn kind(&self) -> &'static str {
        match self {
            ArrivalsConfig::Poisson { .. } => "poisson",
            ArrivalsConfig::Periodic { .. } => "periodic",
            ArrivalsConfig::OnOff { .. } => "on-off",
        }
    }

    /// Does the process draw random numbers?
    pub fn is_random(&self) -> bool {
        !matches!(self, ArrivalsConfig::Periodic { .. })
    }
}

/// A running arrival process: the time of the next request, and how to find the one after.
#[derive(Clone, Debug)]
pub struct Arrivals {
    cfg: ArrivalsConfig,
    rng: SimRng,
    /// The next request's time; `None` before `start` and once time has run out.
    next: Option<SimTime>,
    /// On-off: when the current on period ends.
    on_until: SimTime,
}

impl Arrivals {
    pub fn new(cfg: ArrivalsConfig, rng: SimRng) -> Arrivals {
        Arrivals { cfg, rng, next: None, on_until: SimTime::ZERO }
    }

    /// The process begins at `now`: a periodic one with a request at once, an on-off one with
    /// an on period.
    pub fn start(&mut self, now: SimTime) {
        self.next = match self.cfg {
            ArrivalsConfig::Periodic { .. } => Some(now),
            ArrivalsConfig::Poisson { .. } => Some(now + self.poisson_gap()),
            ArrivalsConfig::OnOff { on, periods, .. } => {
                self.on_until = now + self.period(on, periods);
                Some(self.on_off_after(now))
            }
        };
    }

    /// When the next request comes, if the process has started.
    pub fn next_at(&self) -> Option<SimTime> {
        self.next
    }

    /// If a request is due at or before `now`: its time, after which the next one is drawn.
    pub fn pop_due(&mut self, now: SimTime) -> Option<SimTime> {
        let due = self.next.filter(|t| *t <= now)?;
        self.next = Some(match self.cfg {
            ArrivalsConfig::Periodic { rate } => due + SimDuration::from_secs_f64(1.0 / rate),
            ArrivalsConfig::Poisson { .. } => due + self.poisson_gap(),
            ArrivalsConfig::OnOff { .. } => self.on_off_after(due),
        });
        // Past the end of the clock there is nothing more to come.
        if self.next == Some(SimTime::MAX) {
            self.next = None;
        }
        Some(due)
    }

    /// An exponential gap at the process's rate, rounded to whole nanoseconds.
    fn poisson_gap(&mut self) -> SimDuration {
        let rate = match self.cfg {
            ArrivalsConfig::Poisson { rate }
            | ArrivalsConfig::OnOff { rate, .. }
            | ArrivalsConfig::Periodic { rate } => rate,
        };
        SimDuration::from_secs_f64(exponential(&mut self.rng, 1.0 / rate))
    }

    fn period(&mut self, mean: Duration, periods: Periods) -> SimDuration {
        match periods {
            Periods::Fixed => mean.get(),
            Periods::Exponential => SimDuration::from_secs_f64(exponential(&mut self.rng, mean.get().as_secs_f64())),
        }
    }

    /// On-off: the first request after `t`, moving through off and on periods as needed.
    fn on_off_after(&mut self, mut t: SimTime) -> SimTime {
        let ArrivalsConfig::OnOff { on, off, periods, .. } = self.cfg else { return t };
        loop {
            let at = t + self.poisson_gap();
            if at < self.on_until {
                return at;
            }
            if self.on_until == SimTime::MAX {
                return SimTime::MAX;
            }
            // The gap outlasts the on period: skip the off period and start afresh (memoryless).
            let off_until = self.on_until + self.period(off, periods);
            t = off_until;
            self.on_until = off_until + self.period(on, periods);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    fn arrivals(cfg: ArrivalsConfig, seed: u64) -> Arrivals {
        let mut a = Arrivals::new(cfg, stream(seed, "app:C:arrivals"));
        a.start(SimTime::ZERO);
        a
    }

    /// The request times of the first `n` requests.
    fn times(a: &mut Arrivals, n: usize) -> Vec<SimTime> {
        (0..n).map(|_| a.pop_due(SimTime::MAX).expect("a next request")).collect()
    }

    fn gaps_s(t: &[SimTime]) -> Vec<f64> {
        t.windows(2).map(|w| (w[1] - w[0]).as_secs_f64()).collect()
    }

    #[test]
    fn poisson_gaps_have_the_mean_and_spread_of_an_exponential() {
        // Rate 50/s: mean gap 20 ms, and for an exponential the standard deviation equals the
        // mean. 100,000 gaps: the mean's standard error is 0.063 ms.
        let mut a = arrivals(ArrivalsConfig::Poisson { rate: 50.0 }, 1);
        let g = gaps_s(&times(&mut a, 100_001));
        let mean = g.iter().sum::<f64>() / g.len() as f64;
        let sd = (g.iter().map(|x| (x - mean).powi(2)).sum::<f64>() / (g.len() - 1) as f64).sqrt();
        assert!((mean - 0.020).abs() < 0.0003, "mean gap {mean}");
        assert!((sd - 0.020).abs() < 0.0005, "sd {sd}");
        // Memorylessness: P(gap > 40 ms) = e^−2 = 0.1353.
        let tail = g.iter().filter(|&&x| x > 0.040).count() as f64 / g.len() as f64;
        assert!((tail - (-2.0f64).exp()).abs() < 0.005, "tail {tail}");
    }

    #[test]
    fn periodic_requests_start_at_once_and_keep_their_spacing() {
        let mut a = arrivals(ArrivalsConfig::Periodic { rate: 4.0 }, 1);
        let t = times(&mut a, 4);
        assert_eq!(t.iter().map(|t| t.nanos()).collect::<Vec<_>>(), vec![0, 250_000_000, 500_000_000, 750_000_000]);
    }

    #[test]
    fn on_off_requests_fall_only_in_on_periods_at_the_on_rate() {
        // Fixed 1 s on, 3 s off, 100/s while on: requests only in [4k, 4k + 1) s, about 100 per
        // on period; over 50 periods 5,000 ± 71.
        let cfg = ArrivalsConfig::OnOff {
            rate: 100.0,
            on: Duration::from_secs(1),
            off: Duration::from_secs(3),
            periods: Periods::Fixed,
        };
        let mut a = arrivals(cfg, 2);
        let mut n = 0;
        while let Some(t) = a.pop_due(SimTime(SimDuration::from_secs(200).nanos())) {
            let s = t.as_secs_f64();
            assert!(s % 4.0 < 1.0, "a request at {s} s, in an off period");
            n += 1;
        }
        assert!((4_700..=5_300).contains(&n), "{n} requests");
    }

    #[test]
    fn exponential_on_off_periods_give_the_long_run_rate() {
        // On 1 s and off 1 s on average: the long-run rate is half the on rate, 50/s. Over
        // 2,000 s about 100,000 requests; the period lengths' variance dominates (±2%).
        let cfg = ArrivalsConfig::OnOff {
            rate: 100.0,
            on: Duration::from_secs(1),
            off: Duration::from_secs(1),
            periods: Periods::Exponential,
        };
        let mut a = arrivals(cfg, 3);
        let end = SimTime(SimDuration::from_secs(2_000).nanos());
        let mut n = 0u64;
        while a.pop_due(end).is_some() {
            n += 1;
        }
        assert!((94_000..=106_000).contains(&n), "{n} requests");
    }

    #[test]
    fn the_same_seed_repeats_the_requests_and_another_seed_changes_them() {
        for cfg in [
            ArrivalsConfig::Poisson { rate: 10.0 },
            ArrivalsConfig::OnOff {
                rate: 10.0,
                on: Duration::from_millis(500),
                off: Duration::from_millis(500),
                periods: Periods::Exponential,
            },
        ] {
            let run = |seed| times(&mut arrivals(cfg, seed), 20);
            assert_eq!(run(1), run(1), "{cfg:?}");
            assert_ne!(run(1), run(2), "{cfg:?}");
        }
    }

    #[test]
    fn nothing_is_due_before_its_time() {
        let mut a = arrivals(ArrivalsConfig::Periodic { rate: 1.0 }, 1);
        assert_eq!(a.pop_due(SimTime::ZERO), Some(SimTime::ZERO));
        assert_eq!(a.pop_due(SimTime(999_999_999)), None);
        assert_eq!(a.next_at(), Some(SimTime(1_000_000_000)));
    }

    #[test]
    fn values_out_of_range_name_their_key() {
        assert_eq!(ArrivalsConfig::Poisson { rate: 0.0 }.validate().unwrap_err().key, "rate");
        assert_eq!(ArrivalsConfig::Periodic { rate: f64::INFINITY }.validate().unwrap_err().key, "rate");
        let on_off = |rate, on, off| ArrivalsConfig::OnOff { rate, on, off, periods: Periods::Fixed };
        let (second, zero) = (Duration::from_secs(1), Duration::default());
        assert_eq!(on_off(1.0, zero, second).validate().unwrap_err().key, "on");
        assert_eq!(on_off(1.0, second, zero).validate().unwrap_err().key, "off");
        assert_eq!(on_off(1.0, second, Duration(SimDuration(999))).validate().unwrap_err().key, "off");
        // 0.1 requests/s for 1 ms on periods: one request in 10,000 periods.
        assert_eq!(on_off(0.1, Duration::from_millis(1), second).validate().unwrap_err().key, "rate");
        assert!(on_off(1.0, Duration::from_millis(1), second).validate().is_ok());
    }
}
