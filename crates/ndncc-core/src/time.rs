//! Simulated time: integer nanoseconds, never floating point.
//!
//! `SimTime` is an instant since the start of a run; `SimDuration` a span. Both are
//! `u64` nanoseconds, so a run lasting 584 years is the ceiling. Models convert to `f64`
//! only inside formulas (CUBIC's `t - K`, rates).

use std::fmt;
use std::ops::{Add, AddAssign, Sub};

/// An instant of simulated time, in nanoseconds since the start of the run.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimTime(pub u64);

/// A span of simulated time, in nanoseconds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct SimDuration(pub u64);

pub const NANOS_PER_SEC: u64 = 1_000_000_000;

/// `x.round() as u64`, exactly: to the nearest integer, halves away from zero, saturating at
/// both ends (negative values and NaN give 0). Without the `roundsd` instruction of SSE4.1,
/// which the baseline x86-64 target lacks, `f64::round` is a call into the maths library of
/// some 25 instructions; consumers convert an RTO or an RTT to nanoseconds on every Data.
/// Here the integer part is the truncating conversion, and the fraction left over (exact:
/// `x - trunc(x)` is representable) decides the rounding.
#[inline]
pub fn round_to_nanos(x: f64) -> u64 {
    if x.is_nan() || x < 0.0 {
        return 0;
    }
    let whole = x as u64;
    if x - whole as f64 >= 0.5 {
        whole.saturating_add(1)
    } else {
        whole
    }
}

impl SimTime {
    pub const ZERO: SimTime = SimTime(0);
    pub const MAX: SimTime = SimTime(u64::MAX);

    pub fn from_secs_f64(s: f64) -> SimTime {
        SimTime(round_to_nanos(s * NANOS_PER_SEC as f64))
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NANOS_PER_SEC as f64
    }
    pub fn nanos(self) -> u64 {
        self.0
    }
    /// Time elapsed since `earlier`, or zero if `earlier` is later.
    pub fn saturating_since(self, earlier: SimTime) -> SimDuration {
        SimDuration(self.0.saturating_sub(earlier.0))
    }
    /// The first edge at or after `self` of a clock ticking every `tick` whose edges fall at
    /// `phase + k·tick` (`phase` taken modulo `tick`; phase 0 is `ceil_to`).
    pub fn ceil_to_edge(self, tick: SimDuration, phase: SimDuration) -> SimTime {
        if tick.0 == 0 {
            return self;
        }
        let p = phase.0 % tick.0;
        if self.0 <= p {
            return SimTime(p);
        }
        let shifted = SimTime(self.0 - p).ceil_to(tick);
        SimTime(shifted.0.saturating_add(p))
    }
    /// The first multiple of `tick` at or after `self` (a coarse clock's next edge).
    pub fn ceil_to(self, tick: SimDuration) -> SimTime {
        if tick.0 == 0 {
            return self;
        }
        let rem = self.0 % tick.0;
        if rem == 0 {
            self
        } else {
            // Saturates at the end of time rather than wrapping into the past.
            SimTime((self.0 - rem).saturating_add(tick.0))
        }
    }
}

impl SimDuration {
    pub const ZERO: SimDuration = SimDuration(0);
    pub const MAX: SimDuration = SimDuration(u64::MAX);

    pub const fn from_nanos(n: u64) -> SimDuration {
        SimDuration(n)
    }
    pub const fn from_micros(us: u64) -> SimDuration {
        SimDuration(us * 1_000)
    }
    pub const fn from_millis(ms: u64) -> SimDuration {
        SimDuration(ms * 1_000_000)
    }
    pub const fn from_secs(s: u64) -> SimDuration {
        SimDuration(s * NANOS_PER_SEC)
    }
    pub fn from_secs_f64(s: f64) -> SimDuration {
        SimDuration(round_to_nanos(s.max(0.0) * NANOS_PER_SEC as f64))
    }
    pub fn as_secs_f64(self) -> f64 {
        self.0 as f64 / NANOS_PER_SEC as f64
    }
    pub fn nanos(self) -> u64 {
        self.0
    }
    pub fn mul_f64(self, k: f64) -> SimDuration {
        SimDuration::from_secs_f64(self.as_secs_f64() * k)
    }
    pub fn saturating_mul(self, k: u64) -> SimDuration {
        SimDuration(self.0.saturating_mul(k))
    }
    /// Time to serialise `bytes` onto a link of `bits_per_sec`, rounded up to whole ns.
    #[inline]
    pub fn transmission(bytes: u64, bits_per_sec: u64) -> SimDuration {
        debug_assert!(bits_per_sec > 0);
        let bps = bits_per_sec.max(1);
        // 64-bit arithmetic while bytes · 8 · 10⁹ fits (every packet up to 2.3 GB), 128 beyond.
        match bytes.checked_mul(8 * NANOS_PER_SEC) {
            Some(bits) => SimDuration(bits.div_ceil(bps)),
            None => {
                let bits = bytes as u128 * 8 * NANOS_PER_SEC as u128;
                SimDuration(u64::try_from(bits.div_ceil(bps as u128)).unwrap_or(u64::MAX))
            }
        }
    }
}

impl Add<SimDuration> for SimTime {
    type Output = SimTime;
    fn add(self, d: SimDuration) -> SimTime {
        SimTime(self.0.saturating_add(d.0))
    }
}
impl AddAssign<SimDuration> for SimTime {
    fn add_assign(&mut self, d: SimDuration) {
        self.0 = self.0.saturating_add(d.0);
    }
}
impl Sub<SimTime> for SimTime {
    type Output = SimDuration;
    /// Panics in debug builds if `rhs` is later; use `saturating_since` when unsure.
    fn sub(self, rhs: SimTime) -> SimDuration {
        debug_assert!(self.0 >= rhs.0, "time went backwards");
        SimDuration(self.0.saturating_sub(rhs.0))
    }
}
impl Add for SimDuration {
    type Output = SimDuration;
    fn add(self, d: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_add(d.0))
    }
}
impl Sub for SimDuration {
    type Output = SimDuration;
    fn sub(self, d: SimDuration) -> SimDuration {
        SimDuration(self.0.saturating_sub(d.0))
    }
}

impl fmt::Display for SimTime {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.9}s", self.as_secs_f64())
    }
}
impl fmt::Display for SimDuration {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:.6}ms", self.0 as f64 / 1e6)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    proptest::proptest! {
        /// The rounding without the maths library is `f64::round` to the bit, over fractions
        /// near a half, values past 2^52 (all integers) and 2^64 (saturating), and the edges.
        #[test]
        fn rounding_to_nanos_is_round(whole in 0u64..(1 << 54), frac in 0.0f64..1.0, scale in -70i32..70) {
            for x in [whole as f64 + frac, whole as f64 + 0.5, (whole as f64 + frac) * 2f64.powi(scale), -(frac + 0.5)] {
                proptest::prop_assert_eq!(round_to_nanos(x), x.round() as u64, "{}", x);
            }
        }
    }

    #[test]
    fn rounding_to_nanos_saturates_and_maps_nan_to_zero() {
        for x in [
            f64::NAN,
            f64::INFINITY,
            f64::NEG_INFINITY,
            -0.0,
            0.0,
            0.5,
            0.49999999999999994,
            2.5,
            1e30,
            1.8446744073709552e19,
        ] {
            assert_eq!(round_to_nanos(x), x.round() as u64, "{x}");
        }
    }

    #[test]
    fn a_1024_byte_packet_takes_819_2_us_on_10_mbps() {
        assert_eq!(SimDuration::transmission(1024, 10_000_000).0, 819_200);
    }

    #[test]
    fn transmission_time_rounds_up_to_whole_nanoseconds() {
        // 1 byte at 3 bit/s = 8/3 s = 2.666...e9 ns -> rounds up.
        assert_eq!(SimDuration::transmission(1, 3).0, 2_666_666_667);
    }

    #[test]
    fn ceil_to_saturates_at_the_end_of_time_instead_of_wrapping() {
        let tick = SimDuration::from_millis(100);
        assert_eq!(SimTime(u64::MAX - 5).ceil_to(tick), SimTime::MAX);
        assert!(SimTime(u64::MAX - 5).ceil_to(tick) >= SimTime(u64::MAX - 5));
    }

    #[test]
    fn a_clock_with_a_phase_has_its_edges_shifted_by_it() {
        // 100 ms tick, edges at 30 ms + k·100 ms.
        let (tick, phase) = (SimDuration::from_millis(100), SimDuration::from_millis(30));
        let ms = |x: u64| SimTime(x * 1_000_000);
        assert_eq!(ms(0).ceil_to_edge(tick, phase), ms(30));
        assert_eq!(ms(30).ceil_to_edge(tick, phase), ms(30));
        assert_eq!(ms(31).ceil_to_edge(tick, phase), ms(130));
        assert_eq!(ms(250).ceil_to_edge(tick, phase), ms(330));
        // A phase of a whole tick is phase 0; phase 0 is ceil_to.
        assert_eq!(ms(31).ceil_to_edge(tick, tick), ms(31).ceil_to(tick));
        for t in [0, 1, 99, 100, 101, 12_345] {
            assert_eq!(ms(t).ceil_to_edge(tick, SimDuration::ZERO), ms(t).ceil_to(tick));
        }
        assert_eq!(SimTime(u64::MAX - 5).ceil_to_edge(tick, phase), SimTime::MAX);
    }

    #[test]
    fn ceil_to_moves_to_the_next_tick_edge_only_when_off_edge() {
        let tick = SimDuration::from_millis(100);
        assert_eq!(SimTime(0).ceil_to(tick), SimTime(0));
        assert_eq!(SimTime(1).ceil_to(tick), SimTime(100_000_000));
        assert_eq!(SimTime(200_000_000).ceil_to(tick), SimTime(200_000_000));
    }
}
