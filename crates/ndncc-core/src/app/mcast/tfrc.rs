//! TFRC's building blocks, shared by the TFMCC and ASMP receivers (ALGORITHMS.md Part B §0 and
//! §1.6; RFC 5348 §5, RFC 4654 §3.1): the TCP throughput equation, the loss-event rate from the
//! weighted average of loss intervals, and the receive rate over the last few round trips.
//!
//! ```text
//!   X(p, R) = 8s / ( R·( sqrt(2p/3) + 12·sqrt(3p/8)·p·(1 + 32p²) ) )            [bit/s]
//!   loss events: a loss within R of the event's first loss belongs to that event
//!   I_0 = packets since the newest event started, I_1..I_8 the closed intervals (newest first)
//!   w = 1, 1, 1, 1, 0.8, 0.6, 0.4, 0.2
//!   I_mean = max(Σ w_i·I_i (i = 0..7), Σ w_(i−1)·I_i (i = 1..8)) / Σ w,    p = 1 / I_mean
//!   first event: the closed interval is seeded with l_0 = (X_recv·R / (sqrt(3/2)·8s))²
//! ```
//!
//! History discounting (RFC 5348 §5.5; on in NS-2's TFRC sink, `discount_ 1`, and used by
//! TFMCC here; ASMP's receivers leave it off): when the open interval I_0 exceeds twice the
//! mean of the closed ones, the closed intervals count with DF = max(2·I_mean/I_0, 0.5) in the
//! sum with I_0, weights normalised, and at the next loss event each closed interval keeps the
//! DF it had then (its factor DF_i):
//!
//! ```text
//!   I_mean(closed) = Σ_{i=1}^{n} w_{i−1}·DF_i·I_i / Σ w_{i−1}·DF_i
//!   I_tot0 = (w_0·I_0 + Σ_{i=1}^{n−1} w_i·DF_i·DF·I_i) / (w_0 + Σ w_i·DF_i·DF),   I_tot1 = I_mean(closed)
//!   p = 1 / max(I_tot0, I_tot1)
//! ```
//!
//! Simplifications: the tree's links are FIFO, so Data never overtake each other and a gap in
//! the sequence numbers is a loss at once (TFRC waits for 3 later packets only to tell reordering
//! from loss).

use std::collections::VecDeque;

use crate::time::SimTime;

/// The loss-interval weights w_0..w_7 (RFC 5348 §5.4).
pub const WEIGHTS: [f64; 8] = [1.0, 1.0, 1.0, 1.0, 0.8, 0.6, 0.4, 0.2];

/// The TCP throughput equation with b = 1 and t_RTO = 4R (RFC 4654 Eq. 1) [bit/s]; `s` in
/// bytes, `rtt_s` in seconds. Infinite for p = 0 (no loss: the equation sets no limit).
pub fn throughput(s: f64, rtt_s: f64, p: f64) -> f64 {
    if p <= 0.0 {
        return f64::INFINITY;
    }
    let denom = rtt_s * ((2.0 * p / 3.0).sqrt() + 12.0 * (3.0 * p / 8.0).sqrt() * p * (1.0 + 32.0 * p * p));
    8.0 * s / denom
}

/// The loss interval that makes the equation's first term give `x_recv` (§1.6 "seeding").
pub fn seed_interval(x_recv: f64, rtt_s: f64, s: f64) -> f64 {
    let l = x_recv * rtt_s / (1.5f64.sqrt() * 8.0 * s);
    l * l
}

/// A TFRC receiver's measurements, fed by every Data (shared by TFMCC's and ASMP's receivers):
/// packet size s, RTT, receive rate over `k` round trips, and the loss history.
#[derive(Clone, Debug)]
pub struct TfrcReceiver {
    pub k: f64,
    pub hist: LossHistory,
    pub recv: RecvRate,
    pub s: f64,
    pub rtt_s: f64,
}

impl TfrcReceiver {
    pub fn new(k: f64, rtt_s: f64) -> TfrcReceiver {
        TfrcReceiver { k, hist: LossHistory::default(), recv: RecvRate::default(), s: 1_000.0, rtt_s }
    }

    /// One Data arrived: update s, the RTT, the receive rate and the loss history.
    pub fn on_data(&mut self, d: &super::DataSeen) {
        self.s = f64::from(d.size);
        self.rtt_s = d.rtt.as_secs_f64().max(0.001);
        let window = self.k * self.rtt_s;
        self.recv.on_packet(d.now, d.size, window);
        let x_recv = self.recv.rate(d.now, window);
        self.hist.on_packet(d.seq, d.now, self.rtt_s, x_recv, self.s);
    }
}

/// A receiver's loss history.
#[derive(Clone, Debug, Default)]
pub struct LossHistory {
    /// The newest sequence number received and its arrival time.
    last: Option<(u64, SimTime)>,
    /// The newest loss event: its first lost sequence number and that loss's nominal time.
    event: Option<(u64, SimTime)>,
    /// Closed loss intervals I_1..I_8 [packets], newest first.
    intervals: VecDeque<f64>,
    /// Their discount factors DF_1..DF_8 (all 1 without discounting).
    factors: VecDeque<f64>,
    /// Apply history discounting.
    pub discount: bool,
    /// Loss events seen so far.
    pub events: u64,
}

impl LossHistory {
    /// A Data with `seq` arrived at `now`. `rtt_s` groups losses into events; `x_recv` [bit/s]
    /// and `s` [bytes] seed the first interval. Returns whether a new loss event began.
    pub fn on_packet(&mut self, seq: u64, now: SimTime, rtt_s: f64, x_recv: f64, s: f64) -> bool {
        let Some((before, t_before)) = self.last else {
            self.last = Some((seq, now));
            return false;
        };
        if seq <= before {
            // A duplicate or a late copy: nothing to learn (FIFO links do not reorder).
            return false;
        }
        let mut new_event = false;
        for lost in before + 1..seq {
            // Nominal arrival time, interpolated between the neighbours (§1.6).
            let frac = (lost - before) as f64 / (seq - before) as f64;
            let t_lost =
                SimTime::from_secs_f64(t_before.as_secs_f64() + (now.as_secs_f64() - t_before.as_secs_f64()) * frac);
            let same_event = self.event.is_some_and(|(_, t_old)| t_old.as_secs_f64() + rtt_s >= t_lost.as_secs_f64());
            if same_event {
                continue;
            }
            match self.event {
                None => {
                    // The first loss event: seed the history so that the equation gives about
                    // the rate received so far.
                    let l0 = seed_interval(x_recv, rtt_s, s).max(1.0);
                    self.intervals.push_front(l0);
                }
                Some((first, _)) => {
                    // The closing interval's discount stays with the older intervals.
                    let i0 = (lost - first) as f64;
                    let df = self.discount_factor(i0);
                    self.factors.iter_mut().for_each(|f| *f *= df);
                    self.intervals.push_front(i0);
                }
            }
            self.factors.push_front(1.0);
            self.intervals.truncate(WEIGHTS.len());
            self.factors.truncate(WEIGHTS.len());
            self.event = Some((lost, t_lost));
            self.events += 1;
            new_event = true;
        }
        self.last = Some((seq, now));
        new_event
    }

    /// Whether any loss event has happened.
    pub fn has_loss(&self) -> bool {
        self.event.is_some()
    }

    /// I_0: packets since the newest loss event started (through the newest arrival).
    fn open_interval(&self) -> Option<f64> {
        let (first, _) = self.event?;
        let (last, _) = self.last?;
        Some((last + 1).saturating_sub(first) as f64)
    }

    /// The weighted mean of the closed intervals with their discount factors.
    fn closed_mean(&self) -> f64 {
        let (mut num, mut den) = (0.0, 0.0);
        for ((i, f), w) in self.intervals.iter().zip(&self.factors).zip(WEIGHTS) {
            num += w * f * i;
            den += w * f;
        }
        if den > 0.0 {
            num / den
        } else {
            0.0
        }
    }

    /// DF for an open interval `i0`: max(2·I_mean/I_0, 0.5) when I_0 > 2·I_mean, else 1 (and 1
    /// without discounting).
    fn discount_factor(&self, i0: f64) -> f64 {
        let mean = self.closed_mean();
        if !self.discount || self.intervals.is_empty() || i0 <= 2.0 * mean {
            return 1.0;
        }
        (2.0 * mean / i0).max(DISCOUNT_FLOOR)
    }

    /// The loss-event rate p (0 before the first loss event).
    pub fn p(&self) -> f64 {
        let Some(i0) = self.open_interval() else { return 0.0 };
        let mean = if self.discount { self.discounted_interval(i0) } else { average_interval(i0, &self.intervals) };
        if mean > 0.0 {
            1.0 / mean
        } else {
            0.0
        }
    }
}

/// The smallest discount factor (NS-2's `minDiscountRatio_`, RFC 5348 §5.5).
pub const DISCOUNT_FLOOR: f64 = 0.5;

impl LossHistory {
    /// I_mean with history discounting (the module text's equations).
    fn discounted_interval(&self, i0: f64) -> f64 {
        let n = self.intervals.len().min(WEIGHTS.len());
        if n == 0 {
            return i0;
        }
        let df = self.discount_factor(i0);
        let (mut num, mut den) = (WEIGHTS[0] * i0, WEIGHTS[0]);
        // Closed interval I_k (k = 1..n−1) with weight w_k.
        for ((w, i), f) in WEIGHTS.iter().take(n).skip(1).zip(&self.intervals).zip(&self.factors) {
            let w = w * f * df;
            num += w * i;
            den += w;
        }
        (num / den).max(self.closed_mean())
    }
}

/// I_mean = max(I_tot0, I_tot1) / Σw over the intervals present (§1.6): `i0` the open interval,
/// `closed` I_1.. newest first.
pub fn average_interval(i0: f64, closed: &VecDeque<f64>) -> f64 {
    let n = closed.len().min(WEIGHTS.len());
    if n == 0 {
        return i0;
    }
    // I_tot0 = Σ_{i=0}^{n−1} w_i·I_i with I_0 open; I_tot1 = Σ_{i=1}^{n} w_{i−1}·I_i.
    let mut tot0 = WEIGHTS[0] * i0;
    for (k, w) in WEIGHTS.iter().enumerate().take(n).skip(1) {
        tot0 += w * closed[k - 1];
    }
    let tot1: f64 = closed.iter().zip(WEIGHTS.iter()).take(n).map(|(i, w)| w * i).sum();
    let wsum: f64 = WEIGHTS.iter().take(n).sum();
    tot0.max(tot1) / wsum
}

/// The receive rate over the last `k` round trips (RFC 4654 §4.4: k from 2 to 4).
#[derive(Clone, Debug, Default)]
pub struct RecvRate {
    arrivals: VecDeque<(SimTime, u32)>,
    bytes: u64,
}

impl RecvRate {
    /// A packet of `size` bytes arrived; arrivals older than `window_s` are forgotten.
    pub fn on_packet(&mut self, now: SimTime, size: u32, window_s: f64) {
        self.arrivals.push_back((now, size));
        self.bytes += u64::from(size);
        while let Some(&(t, b)) = self.arrivals.front() {
            if now.saturating_since(t).as_secs_f64() <= window_s {
                break;
            }
            self.arrivals.pop_front();
            self.bytes -= u64::from(b);
        }
    }

    /// Bits received in the last `window_s` before `now`, per second.
    pub fn rate(&self, now: SimTime, window_s: f64) -> f64 {
        if window_s <= 0.0 {
            return 0.0;
        }
        let recent: u64 = self
            .arrivals
            .iter()
            .filter(|(t, _)| now.saturating_since(*t).as_secs_f64() <= window_s)
            .map(|&(_, b)| u64::from(b))
            .sum();
        recent as f64 * 8.0 / window_s
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimDuration;

    #[test]
    fn the_throughput_equation_matches_a_hand_computation() {
        // s = 1000 B, R = 0.1 s, p = 0.01:
        // sqrt(0.02/3) = 0.0816497; 12·sqrt(0.00375)·0.01·(1 + 0.0032) = 12·0.0612372·0.01·1.0032
        // = 0.0073720; denominator 0.1·0.0890217 = 0.00890217; X = 8000/0.00890217 = 898,657 bit/s.
        let x = throughput(1000.0, 0.1, 0.01);
        assert!((x - 898_657.0).abs() < 5.0, "{x}");
        assert!(throughput(1000.0, 0.1, 0.0).is_infinite());
        // The seed interval inverts the first term: X = 8s/(R·sqrt(2/(3·l0))).
        let l0 = seed_interval(1e6, 0.1, 1000.0);
        assert!((l0 - (1e5 / (1.5f64.sqrt() * 8000.0)).powi(2)).abs() < 1e-9);
        assert!((8000.0 / (0.1 * (2.0 / (3.0 * l0)).sqrt()) - 1e6).abs() < 1e-3);
    }

    #[test]
    fn the_average_interval_takes_the_larger_of_the_two_sums() {
        // Closed intervals 100, 50, 100, 50 (newest first), open interval 20:
        // I_tot0 = 20 + 100 + 50 + 100 = 270; I_tot1 = 100 + 50 + 100 + 50 = 300; Σw = 4 → 75.
        let closed: VecDeque<f64> = [100.0, 50.0, 100.0, 50.0].into_iter().collect();
        assert!((average_interval(20.0, &closed) - 75.0).abs() < 1e-12);
        // Open interval 400: I_tot0 = 400 + 100 + 50 + 100 = 650 → 162.5.
        assert!((average_interval(400.0, &closed) - 162.5).abs() < 1e-12);
        // Eight intervals of 10, open 10: Σw = 6, both sums 60 → 10.
        let eight: VecDeque<f64> = std::iter::repeat_n(10.0, 8).collect();
        assert!((average_interval(10.0, &eight) - 10.0).abs() < 1e-12);
    }

    #[test]
    fn losses_within_a_round_trip_form_one_event() {
        let mut h = LossHistory::default();
        let t = |ms: u64| SimTime::ZERO + SimDuration::from_millis(ms);
        // 1 ms per packet, R = 0.1 s. Seq 0..99 arrive, 100 is lost, 101 arrives.
        for s in 0..100 {
            assert!(!h.on_packet(s, t(s), 0.1, 1e6, 1000.0));
        }
        assert!(h.on_packet(101, t(101), 0.1, 1e6, 1000.0));
        // Seed l0 = (1e6·0.1 / (sqrt(1.5)·8000))² = 104.17; I_0 = 101 − 100 + 1 = 2:
        // I_mean = max(2, 104.17)/1 → p = 1/104.17.
        let l0 = seed_interval(1e6, 0.1, 1000.0);
        assert!((h.p() - 1.0 / l0).abs() < 1e-12);
        // Seq 150 lost 50 ms later: the same event.
        for s in 102..150 {
            h.on_packet(s, t(s), 0.1, 1e6, 1000.0);
        }
        assert!(!h.on_packet(151, t(151), 0.1, 1e6, 1000.0));
        assert_eq!(h.events, 1);
        // Seq 300 lost 200 ms after the first: a new event, closed interval 300 − 100 = 200.
        for s in 152..300 {
            h.on_packet(s, t(s), 0.1, 1e6, 1000.0);
        }
        assert!(h.on_packet(301, t(301), 0.1, 1e6, 1000.0));
        assert_eq!(h.events, 2);
        // I_0 = 2, closed [200, 104.17]: I_tot0 = 2 + 200, I_tot1 = 304.17, Σw = 2.
        assert!((h.p() - 2.0 / (200.0 + l0)).abs() < 1e-12);
    }

    #[test]
    fn a_long_open_interval_discounts_the_older_ones_down_to_half() {
        // Closed [100, 100], open 400 > 2·100: DF = max(200/400, 0.5) = 0.5.
        // I_tot0 = (400 + 0.5·100) / (1 + 0.5) = 300; I_tot1 = 100 → p = 1/300 (250 without).
        let mut h = LossHistory { discount: true, ..LossHistory::default() };
        h.intervals = [100.0, 100.0].into_iter().collect();
        h.factors = [1.0, 1.0].into_iter().collect();
        h.event = Some((0, SimTime::ZERO));
        h.last = Some((399, SimTime::ZERO));
        assert!((h.p() - 1.0 / 300.0).abs() < 1e-12);
        h.discount = false;
        assert!((h.p() - 1.0 / 250.0).abs() < 1e-12);
        // Open 1,000: 200/1000 = 0.2 is below the floor, DF = 0.5:
        // I_tot0 = (1000 + 50) / 1.5 = 700.
        h.discount = true;
        h.last = Some((999, SimTime::ZERO));
        assert!((h.p() - 1.0 / 700.0).abs() < 1e-12);
    }

    #[test]
    fn a_loss_event_keeps_the_discount_on_the_older_intervals() {
        // As above with open 400 (DF 0.5); a loss at seq 400 closes it: factors [1, 0.5, 0.5].
        // Then open 10: I_mean(closed) = (400 + 50 + 50) / 2 = 250; I_0 = 10 < 500: DF = 1;
        // I_tot0 = (10 + 400 + 0.5·100) / 2.5 = 184 → max(184, 250) = 250.
        let mut h = LossHistory { discount: true, ..LossHistory::default() };
        h.intervals = [100.0, 100.0].into_iter().collect();
        h.factors = [1.0, 1.0].into_iter().collect();
        let t = |ms: u64| SimTime::ZERO + SimDuration::from_millis(ms);
        h.event = Some((0, t(0)));
        h.last = Some((399, t(399)));
        assert!(h.on_packet(401, t(1_000), 0.1, 1e6, 1000.0));
        assert_eq!(h.factors, [1.0, 0.5, 0.5]);
        for s in 402..=409 {
            h.on_packet(s, t(1_000 + s), 0.1, 1e6, 1000.0);
        }
        // Open interval: 409 + 1 − 400 = 10.
        assert!((h.p() - 1.0 / 250.0).abs() < 1e-12);
    }

    #[test]
    fn the_receive_rate_counts_the_window() {
        let mut r = RecvRate::default();
        let t = |ms: u64| SimTime::ZERO + SimDuration::from_millis(ms);
        for i in 0..10 {
            r.on_packet(t(i * 10), 1000, 0.05);
        }
        // At 90 ms the last 50 ms hold the packets of 40..90 ms: 6 × 8000 bit / 0.05 s.
        assert!((r.rate(t(90), 0.05) - 960_000.0).abs() < 1e-6);
    }
}
