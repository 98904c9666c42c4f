//! A catalogue of objects with Zipf popularity: which object a consumer's next request asks for.
//!
//! Object `k` (ranked 1 … K, 1 the most popular) is asked for with probability
//! `k^−α / Σ_{j=1..K} j^−α`. Draws use rejection-inversion (W. Hörmann and G. Derflinger,
//! "Rejection-inversion to generate variates from monotone discrete distributions", ACM TOMACS
//! 6(3), 1996): constant time and memory for any K, so a catalogue of 10^12 objects costs what
//! one of ten does.
//!
//! ```text
//!   h(x) = x^−α            (the unnormalised popularity, extended to real x)
//!   H(x) = ∫₁ˣ h(t) dt     (its integral, and H⁻¹ its inverse)
//!   draw u uniform in (H(1.5) − h(1), H(K + ½)];  x = H⁻¹(u);  k = round(x)
//!   accept k when u ≥ H(k + ½) − h(k)   (otherwise draw again)
//! ```
//!
//! Rank k owns the slice (H(k − ½), H(k + ½)] of the u range (rank 1 owns a slice exactly
//! h(1) wide); because h is convex, each slice is at least h(k) wide, and the accepted part,
//! its top h(k), is exactly proportional to the popularity. Few draws are rejected.

use serde::{Deserialize, Serialize};

use crate::plugin::{check, Check};
use crate::rng::{unit, SimRng};

/// The most objects a catalogue may hold.
pub const MAX_OBJECTS: u64 = 1_000_000_000_000;
/// The largest Zipf exponent: at 10, rank 2 is already 1,000 times rarer than rank 1.
pub const MAX_ZIPF: f64 = 10.0;

/// `catalogue = { objects = K, zipf = α }` on a consumer.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CatalogueConfig {
    /// Number of objects K, from 1 to 10^12. Required.
    pub objects: u64,
    /// Zipf exponent α ≥ 0 (0: every object equally popular), at most 10. Required.
    pub zipf: f64,
}

impl CatalogueConfig {
    /// Check every value; keys are relative to the `catalogue` table.
    pub fn validate(&self) -> Check {
        check::count("objects", self.objects, 1, MAX_OBJECTS)?;
        check::within("zipf", self.zipf, 0.0, MAX_ZIPF)
    }
}

/// Draws object ranks 1 … K with Zipf(α) popularity.
#[derive(Clone, Debug)]
pub struct Zipf {
    objects: u64,
    alpha: f64,
    /// H(1.5) − h(1): the bottom of the u range.
    low: f64,
    /// H(K + ½): its top.
    high: f64,
    /// A draw that lands within this distance below its rank is accepted without the test.
    shortcut: f64,
}

/// (e^z − 1) / z, tending to 1 as z → 0.
fn expm1_over(z: f64) -> f64 {
    if z.abs() > 1e-8 {
        z.exp_m1() / z
    } else {
        1.0 + z / 2.0 * (1.0 + z / 3.0)
    }
}

/// ln(1 + z) / z, tending to 1 as z → 0.
fn ln1p_over(z: f64) -> f64 {
    if z.abs() > 1e-8 {
        z.ln_1p() / z
    } else {
        1.0 - z * (0.5 - z / 3.0)
    }
}

impl Zipf {
    pub fn new(cfg: &CatalogueConfig) -> Zipf {
        let mut z = Zipf { objects: cfg.objects.max(1), alpha: cfg.zipf, low: 0.0, high: 0.0, shortcut: 0.0 };
        z.low = z.integral(1.5) - 1.0;
        z.high = z.integral(z.objects as f64 + 0.5);
        z.shortcut = 2.0 - z.integral_inverse(z.integral(2.5) - z.h(2.0));
        z
    }

    /// h(x) = x^−α.
    fn h(&self, x: f64) -> f64 {
        (-self.alpha * x.ln()).exp()
    }

    /// H(x) = (x^(1−α) − 1) / (1 − α), written so that α = 1 (where H = ln x) needs no case.
    fn integral(&self, x: f64) -> f64 {
        let ln_x = x.ln();
        expm1_over((1.0 - self.alpha) * ln_x) * ln_x
    }

    /// H⁻¹(y) = (1 + (1 − α)·y)^(1 / (1 − α)), likewise without a case at α = 1.
    fn integral_inverse(&self, y: f64) -> f64 {
        (ln1p_over((1.0 - self.alpha) * y) * y).exp()
    }

    /// One rank, 1 … K.
    pub fn draw(&self, rng: &mut SimRng) -> u64 {
        loop {
            let u = self.high + unit(rng) * (self.low - self.high);
            let x = self.integral_inverse(u);
            // Round to the nearest rank; the float-to-integer conversion saturates, and the clamp
            // keeps a draw at the very top of the range (x = K + ½) on rank K.
            let k = ((x + 0.5).floor() as u64).clamp(1, self.objects);
            let kf = k as f64;
            if kf - x <= self.shortcut || u >= self.integral(kf + 0.5) - self.h(kf) {
                return k;
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::stream;

    /// Exact probabilities of ranks 1..=k, straight from the definition.
    fn pmf(objects: u64, alpha: f64) -> Vec<f64> {
        let w: Vec<f64> = (1..=objects).map(|k| (k as f64).powf(-alpha)).collect();
        let total: f64 = w.iter().sum();
        w.into_iter().map(|x| x / total).collect()
    }

    /// Pearson's chi-square statistic of `n` draws against the exact probabilities.
    fn chi_square(objects: u64, alpha: f64, n: usize, seed: u64) -> f64 {
        let z = Zipf::new(&CatalogueConfig { objects, zipf: alpha });
        let mut g = stream(seed, "zipf");
        let mut counts = vec![0u64; objects as usize];
        for _ in 0..n {
            let k = z.draw(&mut g);
            assert!((1..=objects).contains(&k), "rank {k} outside 1..={objects}");
            counts[(k - 1) as usize] += 1;
        }
        let p = pmf(objects, alpha);
        counts.iter().zip(&p).map(|(&c, &p)| (c as f64 - n as f64 * p).powi(2) / (n as f64 * p)).sum()
    }

    #[test]
    fn draws_follow_the_zipf_probabilities() {
        // 50 ranks: 49 degrees of freedom, whose chi-square 99.9th percentile is 85.4. A sampler
        // off by a few percent on any popular rank lands in the hundreds.
        for alpha in [0.0, 0.5, 0.8, 1.0, 1.2, 2.0] {
            let x2 = chi_square(50, alpha, 200_000, 11);
            assert!(x2 < 85.4, "alpha {alpha}: chi-square {x2}");
        }
    }

    #[test]
    fn the_most_popular_object_gets_its_share_in_a_large_catalogue() {
        // K = 10,000, α = 0.8: P(1) = 1 / Σ k^−0.8, P(2) = P(1) · 2^−0.8.
        let cfg = CatalogueConfig { objects: 10_000, zipf: 0.8 };
        let z = Zipf::new(&cfg);
        let p = pmf(cfg.objects, cfg.zipf);
        let mut g = stream(5, "zipf");
        let n = 400_000;
        let (mut first, mut second) = (0u64, 0u64);
        for _ in 0..n {
            match z.draw(&mut g) {
                1 => first += 1,
                2 => second += 1,
                _ => {}
            }
        }
        // Within 4 standard errors of n·p.
        for (count, p) in [(first, p[0]), (second, p[1])] {
            let expected = n as f64 * p;
            let se = (n as f64 * p * (1.0 - p)).sqrt();
            assert!((count as f64 - expected).abs() < 4.0 * se, "{count} vs {expected} ± {se}");
        }
    }

    #[test]
    fn a_wrong_exponent_is_told_apart() {
        // Draws with α = 1.0 tested against α = 0.9: the test has the power to see it.
        let z = Zipf::new(&CatalogueConfig { objects: 50, zipf: 1.0 });
        let mut g = stream(11, "zipf");
        let n = 200_000;
        let mut counts = vec![0u64; 50];
        for _ in 0..n {
            counts[(z.draw(&mut g) - 1) as usize] += 1;
        }
        let p = pmf(50, 0.9);
        let x2: f64 = counts.iter().zip(&p).map(|(&c, &p)| (c as f64 - n as f64 * p).powi(2) / (n as f64 * p)).sum();
        assert!(x2 > 1_000.0, "chi-square {x2}");
    }

    #[test]
    fn one_object_and_huge_catalogues_stay_in_range() {
        let mut g = stream(1, "zipf");
        let one = Zipf::new(&CatalogueConfig { objects: 1, zipf: 1.0 });
        assert!((0..100).all(|_| one.draw(&mut g) == 1));
        let huge = Zipf::new(&CatalogueConfig { objects: MAX_OBJECTS, zipf: 0.7 });
        assert!((0..10_000).all(|_| (1..=MAX_OBJECTS).contains(&huge.draw(&mut g))));
    }

    #[test]
    fn the_same_seed_gives_the_same_ranks_and_another_seed_other_ones() {
        let z = Zipf::new(&CatalogueConfig { objects: 1_000, zipf: 0.8 });
        let ranks = |seed| {
            let mut g = stream(seed, "app:C:catalogue");
            (0..50).map(|_| z.draw(&mut g)).collect::<Vec<_>>()
        };
        assert_eq!(ranks(1), ranks(1));
        assert_ne!(ranks(1), ranks(2));
    }

    #[test]
    fn values_out_of_range_name_their_key() {
        assert_eq!(CatalogueConfig { objects: 0, zipf: 1.0 }.validate().unwrap_err().key, "objects");
        assert_eq!(CatalogueConfig { objects: 5, zipf: -0.1 }.validate().unwrap_err().key, "zipf");
        assert_eq!(CatalogueConfig { objects: 5, zipf: f64::NAN }.validate().unwrap_err().key, "zipf");
        assert!(CatalogueConfig { objects: 5, zipf: 0.0 }.validate().is_ok());
    }
}
