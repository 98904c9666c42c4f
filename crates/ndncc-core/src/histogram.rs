//! A log-linear histogram of durations, for percentiles of RTTs and queue sojourn times
//! without keeping every sample.
//!
//! Values are integer nanoseconds. Below 256 ns every value has its own bucket; above, each
//! power of two is cut into 128 equal buckets, so a bucket is never wider than 1/128 of its
//! lower bound:
//!
//! ```text
//!  bucket:   0 1 2 … 255 | 256..258 … 510..512 | 512..516 … | …   | 2^63 … u64::MAX
//!  width:    1 1 1 …   1 |   2    …      2     |   4    …   | …   | 2^56
//! ```
//!
//! A percentile is read as the mean of the samples in the bucket holding the sample of that
//! rank (nearest rank), so it is within 1/128 (0.8%) of that sample, and exact when the bucket's
//! samples are all equal; the first and last ranks are the exact minimum and maximum. The mean
//! is exact (the sum is kept in 128 bits). Memory is 16 bytes a bucket between the smallest and
//! the largest non-zero sample (zeros are counted apart): 3.6 kB an octave, some 7 kB for RTTs
//! between 40 and 160 ms. A histogram made `sparse` keeps only the buckets in use, 16 bytes
//! each, until more than `FEW` are: a queue's waits are mostly a few multiples of a packet's
//! time (a TCP sender's access link saw some nine buckets over four octaves, whose span took
//! 8 kB of every flow). Samples then take a search rather than an index, so RTTs, which fill
//! their span, keep it from the start.

use crate::recorder::Unit;
use crate::time::SimDuration;

/// Buckets per power of two, as a power of two: 2^7 = 128.
const SUB_BITS: u32 = 7;
const SUB: u64 = 1 << SUB_BITS;

/// The summary rows of an RTT histogram: (metric, quantile), in milliseconds.
pub const RTT_PERCENTILES: &[(&str, f64)] = &[("rtt_p50_ms", 0.50), ("rtt_p95_ms", 0.95), ("rtt_p99_ms", 0.99)];

/// Buckets in use kept alone, before the histogram keeps their whole span.
const FEW: usize = 64;
/// `Histogram::first` while only the buckets in use are kept.
const FEW_ONLY: usize = usize::MAX;
/// In a bucket kept alone, its samples are the low bits of the count's word, its index the
/// top ones (bucket indices are below 2^13).
const COUNT_BITS: u32 = 48;
const COUNT_MASK: u64 = (1 << COUNT_BITS) - 1;

#[derive(Clone, Debug, Default)]
pub struct Histogram {
    /// Per bucket from `first` on: the samples in it, and the sum of their offsets from its
    /// lower bound [ns] (a float: exact up to 2^53 ns, and only ever summed in one order).
    /// Spans only the buckets between the smallest and the largest non-zero sample; while
    /// `first` is `FEW_ONLY`, holds only the buckets in use, by index, each index in the top
    /// bits of its count (`COUNT_BITS`).
    buckets: Vec<(u64, f64)>,
    /// The bucket index of `buckets[0]`, or `FEW_ONLY`: no bucket index passes it, so that
    /// every sample of a sparse histogram takes `make_room`'s path, and a spanning one's
    /// `record` is what it was.
    first: usize,
    /// Samples of exactly zero (a packet that found its link idle), kept apart so that they do
    /// not stretch `buckets` down to bucket 0.
    zeros: u64,
    n: u64,
    sum_ns: u128,
    min_ns: u64,
    max_ns: u64,
}

/// The bucket of `v`: its own below 2·SUB; above, (power of two, top SUB_BITS bits below the
/// leading one).
#[inline]
fn bucket(v: u64) -> usize {
    if v < 2 * SUB {
        return v as usize;
    }
    let shift = 63 - v.leading_zeros() - SUB_BITS;
    let top = v >> shift; // in [SUB, 2·SUB)
    ((u64::from(shift) + 1) * SUB + (top - SUB)) as usize
}

/// The lower bound and width of bucket `i`.
#[inline]
fn bounds(i: usize) -> (u64, u64) {
    let i = i as u64;
    if i < 2 * SUB {
        return (i, 1);
    }
    let shift = i / SUB - 1;
    ((SUB + i % SUB) << shift, 1 << shift)
}

impl Histogram {
    /// A histogram that keeps the span of its buckets from its first sample on.
    pub fn new() -> Histogram {
        Histogram::default()
    }

    /// A histogram that keeps only the buckets in use while at most `FEW` are, then their
    /// span: the same figures, for samples that fall in few buckets.
    pub fn sparse() -> Histogram {
        Histogram { first: FEW_ONLY, ..Histogram::default() }
    }

    /// Add one sample. Always inline: faces record one per packet they send; growing the
    /// bucket range is the rare case, kept out of line.
    #[inline(always)]
    pub fn record(&mut self, d: SimDuration) {
        let v = d.nanos();
        if v == 0 {
            self.zeros += 1;
        } else {
            let b = bucket(v);
            let i = match b.checked_sub(self.first) {
                Some(i) if i < self.buckets.len() => i,
                _ => self.make_room(b),
            };
            let slot = &mut self.buckets[i];
            slot.0 += 1;
            slot.1 += (v - bounds(b).0) as f64;
        }
        if self.n == 0 || v < self.min_ns {
            self.min_ns = v;
        }
        self.max_ns = self.max_ns.max(v);
        self.n += 1;
        self.sum_ns += u128::from(v);
    }

    /// Add `k` samples of zero at once: the same histogram as `k` calls of `record` with zero
    /// (zeros are counted apart, so where they were recorded among the others does not matter).
    pub fn add_zeros(&mut self, k: u64) {
        if k == 0 {
            return;
        }
        self.zeros += k;
        self.min_ns = 0;
        self.n += k;
    }

    /// Extend `buckets` to cover bucket `b`; its index in `buckets`.
    #[cold]
    fn make_room(&mut self, b: usize) -> usize {
        if self.first == FEW_ONLY {
            let key = (b as u64) << COUNT_BITS;
            match self.buckets.binary_search_by_key(&(b as u64), |&(c, _)| c >> COUNT_BITS) {
                Ok(i) if self.buckets[i].0 & COUNT_MASK < COUNT_MASK => return i,
                Err(i) if self.buckets.len() < FEW => {
                    self.buckets.insert(i, (key, 0.0));
                    return i;
                }
                _ => self.span(),
            }
        }
        if self.buckets.is_empty() {
            self.first = b;
        } else if b < self.first {
            // A new smallest value: room below (rare once the range is known).
            self.buckets.splice(0..0, std::iter::repeat_n((0, 0.0), self.first - b));
            self.first = b;
        }
        let i = b - self.first;
        if i >= self.buckets.len() {
            self.buckets.resize(i + 1, (0, 0.0));
        }
        i
    }

    /// Keep the span of the buckets in use, rather than those buckets alone.
    fn span(&mut self) {
        let few = std::mem::take(&mut self.buckets);
        let index = |c: u64| (c >> COUNT_BITS) as usize;
        let (Some(lo), Some(hi)) = (few.first(), few.last()) else { return };
        let first = index(lo.0);
        self.buckets = vec![(0, 0.0); index(hi.0) - first + 1];
        for (c, sum) in few {
            self.buckets[index(c) - first] = (c & COUNT_MASK, sum);
        }
        self.first = first;
    }

    /// The buckets in use, in order: (index, samples, sum of offsets); a spanning histogram's
    /// empty ones too.
    fn in_use(&self) -> impl Iterator<Item = (usize, u64, f64)> + '_ {
        let few = self.first == FEW_ONLY;
        self.buckets.iter().enumerate().map(move |(i, &(c, sum))| {
            if few {
                ((c >> COUNT_BITS) as usize, c & COUNT_MASK, sum)
            } else {
                (self.first + i, c, sum)
            }
        })
    }

    /// Samples recorded.
    pub fn len(&self) -> u64 {
        self.n
    }

    pub fn is_empty(&self) -> bool {
        self.n == 0
    }

    /// Mean [s]; `None` without samples.
    pub fn mean_s(&self) -> Option<f64> {
        (self.n > 0).then(|| self.sum_ns as f64 / self.n as f64 / 1e9)
    }

    /// Largest sample [s]; `None` without samples.
    pub fn max_s(&self) -> Option<f64> {
        (self.n > 0).then(|| self.max_ns as f64 / 1e9)
    }

    /// The `q`-quantile (0 < q ≤ 1) by nearest rank [s]: the sample of rank ⌈q·n⌉, to within
    /// its bucket (see the module docs); `None` without samples.
    pub fn quantile_s(&self, q: f64) -> Option<f64> {
        if self.n == 0 {
            return None;
        }
        // Rank in 1..=n; the float product is exact for the q and n of any run (n < 2^53).
        let rank = ((q.clamp(0.0, 1.0) * self.n as f64).ceil() as u64).clamp(1, self.n);
        if rank == 1 {
            return Some(self.min_ns as f64 / 1e9);
        }
        if rank == self.n {
            return Some(self.max_ns as f64 / 1e9);
        }
        if rank <= self.zeros {
            return Some(0.0);
        }
        let mut seen = self.zeros;
        for (b, count, offsets) in self.in_use() {
            seen += count;
            if seen >= rank {
                let mean_ns = bounds(b).0 as f64 + offsets / count as f64;
                return Some(mean_ns / 1e9);
            }
        }
        Some(self.max_ns as f64 / 1e9)
    }

    /// One row `(metric, value [ms], Unit::Ms)` per `(metric, quantile)` of `which`; none
    /// without samples.
    pub fn percentile_rows(&self, which: &[(&str, f64)], row: &mut impl FnMut(&str, f64, Unit)) {
        for &(metric, q) in which {
            if let Some(s) = self.quantile_s(q) {
                row(metric, s * 1e3, Unit::Ms);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ns(v: u64) -> SimDuration {
        SimDuration(v)
    }

    #[test]
    fn buckets_are_contiguous_and_never_wider_than_a_128th_of_their_value() {
        let mut next = 0u64;
        for i in 0..bucket(u64::MAX) + 1 {
            let (low, width) = bounds(i);
            assert_eq!(low, next, "bucket {i} starts where {} ends", i.saturating_sub(1));
            assert!(low < 2 * SUB || width * SUB <= low, "bucket {i}: width {width} at {low}");
            assert_eq!(bucket(low), i);
            assert_eq!(bucket(low + (width - 1)), i);
            next = low.wrapping_add(width);
        }
        assert_eq!(next, 0, "the last bucket ends at u64::MAX");
    }

    #[test]
    fn small_values_are_exact_and_the_mean_is_exact() {
        let mut h = Histogram::new();
        for v in [10, 20, 30, 40] {
            h.record(ns(v));
        }
        assert_eq!(h.len(), 4);
        assert_eq!(h.quantile_s(0.5), Some(20e-9)); // rank 2 of 4
        assert_eq!(h.quantile_s(0.75), Some(30e-9));
        assert_eq!(h.quantile_s(1.0), Some(40e-9));
        assert_eq!(h.mean_s(), Some(25e-9));
    }

    #[test]
    fn percentiles_of_one_to_a_thousand_milliseconds_are_within_a_bucket() {
        let mut h = Histogram::new();
        for ms in 1..=1000u64 {
            h.record(SimDuration::from_millis(ms));
        }
        for (q, want_ms) in [(0.5, 500.0), (0.95, 950.0), (0.99, 990.0)] {
            let got_ms = h.quantile_s(q).unwrap() * 1e3;
            assert!((got_ms - want_ms).abs() <= want_ms / 128.0, "p{q}: {got_ms} ms, want {want_ms}");
        }
        assert_eq!(h.quantile_s(1.0), Some(1.0), "the maximum is exact");
        assert_eq!(h.quantile_s(0.0001), Some(0.001), "the minimum is exact");
        assert!((h.mean_s().unwrap() - 0.5005).abs() < 1e-12);
    }

    #[test]
    fn equal_samples_give_their_exact_value_at_every_percentile() {
        let mut h = Histogram::new();
        for _ in 0..10 {
            h.record(SimDuration::from_micros(187_680));
        }
        h.record(SimDuration::from_millis(1));
        h.record(SimDuration::from_millis(900));
        for q in [0.5, 0.6, 0.9] {
            assert_eq!(h.quantile_s(q), Some(0.18768), "q = {q}");
        }
    }

    #[test]
    fn zeros_and_a_new_smallest_value_keep_every_sample_in_its_place() {
        let mut h = Histogram::new();
        for ms in [50, 70, 3, 0, 0, 90] {
            h.record(SimDuration::from_millis(ms));
        }
        // Sorted: 0, 0, 3, 50, 70, 90 ms.
        let ranks: Vec<f64> = [0.1, 0.3, 0.45, 0.6, 0.8, 1.0].iter().map(|&q| h.quantile_s(q).unwrap()).collect();
        assert_eq!(ranks, [0.0, 0.0, 0.003, 0.05, 0.07, 0.09]);
        assert_eq!(h.mean_s(), Some(0.213 / 6.0));
        // The buckets span 3 to 90 ms only: about five octaves of 128.
        assert!(h.buckets.len() < 6 * 128, "{} buckets", h.buckets.len());
    }

    proptest::proptest! {
        /// Zeros added at once give the histogram the same zeros recorded one by one among the
        /// other samples would: the probes of faces add the zeros of packets that waited for
        /// nothing as the summary is made.
        #[test]
        fn zeros_added_at_once_are_zeros_recorded_one_by_one(
            samples in proptest::collection::vec(proptest::prop_oneof![proptest::strategy::Just(0u64), 1u64..5_000_000_000], 0..60),
        ) {
            let (mut each, mut at_once) = (Histogram::new(), Histogram::new());
            for &v in &samples {
                each.record(SimDuration::from_nanos(v));
                if v > 0 {
                    at_once.record(SimDuration::from_nanos(v));
                }
            }
            at_once.add_zeros(samples.iter().filter(|&&v| v == 0).count() as u64);
            let fields = |h: &Histogram| {
                let buckets: Vec<(u64, u64)> = h.buckets.iter().map(|&(c, s)| (c, s.to_bits())).collect();
                (buckets, h.first, h.zeros, h.n, h.sum_ns, h.min_ns, h.max_ns)
            };
            proptest::prop_assert_eq!(fields(&each), fields(&at_once));
        }
    }

    proptest::proptest! {
        /// Kept alone while few are in use, then as their span, the buckets give every figure
        /// a histogram that spans them from the start gives, to the bit: waits that are a few
        /// multiples of one time (a link's packets), spread ones, and both.
        #[test]
        fn few_buckets_then_their_span_give_the_same_figures(
            multiples in proptest::collection::vec((0u64..12, 0u64..3), 0..200),
            spread in proptest::collection::vec(1u64..10_000_000_000, 0..200),
        ) {
            let (mut few, mut span) = (Histogram::sparse(), Histogram::new());
            let samples = multiples.iter().map(|&(k, jitter)| 85_120 * k + jitter).chain(spread);
            for v in samples {
                few.record(SimDuration::from_nanos(v));
                span.record(SimDuration::from_nanos(v));
            }
            let figures = |h: &Histogram| {
                let q: Vec<Option<u64>> = (0..=200).map(|i| h.quantile_s(f64::from(i) / 200.0).map(f64::to_bits)).collect();
                (q, h.mean_s().map(f64::to_bits), h.max_s().map(f64::to_bits), h.len())
            };
            proptest::prop_assert_eq!(figures(&few), figures(&span));
        }
    }

    #[test]
    fn a_few_buckets_in_use_are_kept_alone_and_many_as_their_span() {
        let mut h = Histogram::sparse();
        // Waits of one to twenty packets of 85 µs: four octaves, twenty buckets.
        for k in 1..=20u64 {
            h.record(SimDuration::from_nanos(85_120 * k));
        }
        assert_eq!((h.first, h.buckets.len()), (FEW_ONLY, 20));
        for v in 1..=100u64 {
            h.record(SimDuration::from_micros(v * 37));
        }
        assert_ne!(h.first, FEW_ONLY);
        assert_eq!(h.buckets.len(), bucket(3_700_000) - bucket(37_000) + 1);
        assert_eq!(h.len(), 120);
    }

    #[test]
    fn an_empty_histogram_has_no_figures() {
        let h = Histogram::new();
        assert_eq!((h.mean_s(), h.quantile_s(0.5), h.max_s()), (None, None, None));
    }
}
