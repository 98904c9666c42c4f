//! Random number streams. One root seed per run; every component derives its own stream from
//! (root seed, stable hash of its name), so adding a consumer does not change the losses another
//! link draws, and a component's draws do not depend on creation order.

use rand::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

/// The generator every model uses.
pub type SimRng = Xoshiro256PlusPlus;

/// FNV-1a 64: a stable hash that does not change between Rust versions or platforms.
pub fn stable_hash(s: &str) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for b in s.as_bytes() {
        h ^= *b as u64;
        h = h.wrapping_mul(0x0000_0100_0000_01b3);
    }
    h
}

/// SplitMix64 finaliser: spreads (seed, hash) over all 64 bits.
fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The stream of the component called `name` in a run seeded with `root_seed`.
pub fn stream(root_seed: u64, name: &str) -> SimRng {
    SimRng::seed_from_u64(stream_seed(root_seed, name))
}

/// The seed `stream(root_seed, name)` starts its generator from.
pub fn stream_seed(root_seed: u64, name: &str) -> u64 {
    mix(root_seed ^ mix(stable_hash(name)))
}

// Draws from the distributions scenarios use. Each is written out here rather than taken from a
// library so that a draw depends on the generator's 64-bit outputs alone, not on how a library
// version happens to turn them into numbers: a scenario and seed give the same run for good.

/// A uniform draw from [0, 1), from the top 53 bits of one output.
pub fn unit(rng: &mut SimRng) -> f64 {
    (rng.next_u64() >> 11) as f64 * (1.0 / (1u64 << 53) as f64)
}

/// A uniform draw from `0..n` (`0` when `n` is 0), by one 64×64→128-bit multiply: the bias is
/// below n / 2^64, far under anything a run could show.
pub fn below(rng: &mut SimRng, n: u64) -> u64 {
    ((u128::from(rng.next_u64()) * u128::from(n)) >> 64) as u64
}

/// An exponential draw with mean `mean` (inversion: −mean · ln(1 − U)).
pub fn exponential(rng: &mut SimRng, mean: f64) -> f64 {
    -mean * (-unit(rng)).ln_1p()
}

/// A standard normal draw (Box–Muller, the cosine half; two uniforms per draw).
pub fn standard_normal(rng: &mut SimRng) -> f64 {
    // 1 − U lies in (0, 1], so the logarithm is finite.
    let r = (-2.0 * (1.0 - unit(rng)).ln()).sqrt();
    r * (std::f64::consts::TAU * unit(rng)).cos()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rand::Rng;

    #[test]
    fn fnv1a_matches_its_published_test_vector() {
        assert_eq!(stable_hash(""), 0xcbf29ce484222325);
        assert_eq!(stable_hash("a"), 0xaf63dc4c8601ec8c);
    }

    #[test]
    fn streams_depend_on_name_and_seed_only() {
        let a1: u64 = stream(7, "link:R1-R2").gen();
        let a2: u64 = stream(7, "link:R1-R2").gen();
        let b: u64 = stream(7, "link:R2-P1").gen();
        let c: u64 = stream(8, "link:R1-R2").gen();
        assert_eq!(a1, a2);
        assert_ne!(a1, b);
        assert_ne!(a1, c);
    }

    /// Mean and variance of `n` draws.
    fn moments(n: usize, mut draw: impl FnMut() -> f64) -> (f64, f64) {
        let xs: Vec<f64> = (0..n).map(|_| draw()).collect();
        let mean = xs.iter().sum::<f64>() / n as f64;
        let var = xs.iter().map(|x| (x - mean) * (x - mean)).sum::<f64>() / (n as f64 - 1.0);
        (mean, var)
    }

    #[test]
    fn uniform_draws_cover_the_unit_interval_evenly() {
        // U(0,1): mean 1/2, variance 1/12; over 200,000 draws the mean's standard error is
        // 0.00065, so 0.003 is more than four of them.
        let mut g = stream(3, "unit");
        let (m, v) = moments(200_000, || unit(&mut g));
        assert!((m - 0.5).abs() < 0.003 && (v - 1.0 / 12.0).abs() < 0.002, "{m} {v}");
        let mut g = stream(3, "below");
        let mut counts = [0u32; 10];
        for _ in 0..100_000 {
            counts[below(&mut g, 10) as usize] += 1;
        }
        // Each bin expects 10,000 (sd 95).
        assert!(counts.iter().all(|&c| (9_600..=10_400).contains(&c)), "{counts:?}");
        assert_eq!(below(&mut g, 0), 0);
    }

    #[test]
    fn exponential_and_normal_draws_have_their_moments() {
        // Exp(mean 2): mean 2, variance 4; N(0,1): mean 0, variance 1. 200,000 draws each.
        let mut g = stream(4, "exp");
        let (m, v) = moments(200_000, || exponential(&mut g, 2.0));
        assert!((m - 2.0).abs() < 0.02 && (v - 4.0).abs() < 0.1, "{m} {v}");
        let mut g = stream(4, "normal");
        let (m, v) = moments(200_000, || standard_normal(&mut g));
        assert!(m.abs() < 0.01 && (v - 1.0).abs() < 0.015, "{m} {v}");
    }
}
