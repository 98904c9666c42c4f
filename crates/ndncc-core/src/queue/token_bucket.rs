//! Token-bucket Interest shaper: a FIFO of Interests in front of a face's queue discipline,
//! released no faster than `rate` Interests per second with bursts of at most `burst`.
//!
//! ```text
//!   strategy ──offer──▶ [ shaper: ≤ depth Interests ] ──poll (1 token each)──▶ QueueDisc
//!                                 ▲ tokens accrue at `rate`, capped at `burst`
//! ```
//!
//! Its occupancy (`len`) is the Interest backlog MIRCC reads as q(t); hop-by-hop schemes call
//! `set_rate` as their estimate changes.
//!
//! Tokens are kept as a schedule rather than a running float: since the last *anchor* (a time
//! `a` at which the bucket held `b0` tokens) `k` tokens have been spent, so the (k+1)-th token
//! is available at
//!
//! ```text
//!   a + round((k + 1 − b0) · 10⁹ / rate)  ns
//! ```
//!
//! Under a steady backlog the anchor never moves, so release times do not accumulate rounding
//! error: at 1000/s the n-th release is at exactly (n − 1) ms. The anchor moves only when the
//! bucket overflows (idle periods) or the rate changes.

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::Verdict;
use crate::packet::Packet;
use crate::plugin::{check, Check};
use crate::time::{SimTime, NANOS_PER_SEC};
use crate::units::Bytes;

/// `interest_shaper = { … }` on a link direction: a token-bucket Interest shaper.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct ShaperConfig {
    /// Release rate [Interests/s]. Default unset: derived from the reverse link as
    /// `reverse_bps / (8 · data_size)`, the Interest rate whose Data fill that link.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub rate: Option<f64>,
    /// Expected Data size used to derive the rate when `rate` is unset [bytes] (default
    /// 1100 B, the initial Data size of the hop-by-hop shaper).
    pub data_size: Bytes,
    /// Interests that may wait; a further one is dropped [packets] (default 200).
    pub depth: usize,
    /// Bucket size [tokens]: Interests released back to back after an idle period (default 1).
    pub burst: f64,
}

impl Default for ShaperConfig {
    fn default() -> Self {
        ShaperConfig { rate: None, data_size: Bytes(1100), depth: 200, burst: 1.0 }
    }
}

impl ShaperConfig {
    /// Check every value; the error names the key relative to the shaper's table.
    pub fn validate(&self) -> Check {
        if let Some(r) = self.rate {
            check::rate("rate", r)?;
        }
        check::packet_bytes("data_size", self.data_size.0, 1)?;
        check::count("depth", self.depth as u64, 1, super::MAX_QUEUE_PACKETS)?;
        check::within("burst", self.burst, 1.0, check::MAX_WINDOW)
    }

    /// The rate the shaper starts with on a face whose reverse link carries `reverse_bps`.
    pub fn initial_rate(&self, reverse_bps: u64) -> f64 {
        match self.rate {
            Some(r) => r,
            None if self.data_size.0 == 0 => 0.0,
            None => reverse_bps as f64 / (8.0 * self.data_size.0 as f64),
        }
    }
}

/// The answer to `TokenBucketShaper::poll`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum ShaperPoll {
    /// The head Interest, released now; one token was spent.
    Ready(Packet),
    /// Interests wait, but the next token arrives only at this time.
    Wait(SimTime),
    /// Nothing waits.
    Empty,
}

/// A token-bucket Interest shaper. See the module docs for the token schedule.
#[derive(Debug)]
pub struct TokenBucketShaper {
    fifo: VecDeque<Packet>,
    depth: usize,
    /// Bucket size [tokens], at least 1.
    burst: f64,
    /// [Interests/s]; 0 releases nothing, infinity releases at once.
    rate: f64,
    /// Anchor time [ns]; signed so arithmetic before t = 0 stays simple.
    anchor: i128,
    /// Tokens in the bucket at `anchor`.
    tokens_at_anchor: f64,
    /// Tokens spent since `anchor`.
    spent: u64,
    drops: u64,
    /// A wake-up of the face's shaper is scheduled for this time (kept here rather than in
    /// the egress, which every face has, so that a face stays small).
    pub wake_at: Option<SimTime>,
}

fn sanitize_rate(r: f64) -> f64 {
    if r > 0.0 {
        r
    } else {
        0.0
    }
}

impl TokenBucketShaper {
    /// A shaper with a full bucket at t = 0. `reverse_bps` is the capacity of the link the
    /// answering Data come back on; it matters only when `cfg.rate` is unset. Out-of-range
    /// values that `validate` would reject are clamped: burst below 1 acts as 1, a rate that
    /// is not > 0 releases nothing.
    pub fn new(cfg: &ShaperConfig, reverse_bps: u64) -> TokenBucketShaper {
        let burst = if cfg.burst >= 1.0 && cfg.burst.is_finite() { cfg.burst } else { 1.0 };
        TokenBucketShaper {
            fifo: VecDeque::new(),
            depth: cfg.depth,
            burst,
            rate: sanitize_rate(cfg.initial_rate(reverse_bps)),
            anchor: 0,
            tokens_at_anchor: burst,
            spent: 0,
            drops: 0,
            wake_at: None,
        }
    }

    /// Queue an Interest, or drop it if `depth` Interests already wait.
    pub fn offer(&mut self, mut packet: Packet, now: SimTime) -> Verdict {
        if self.fifo.len() >= self.depth {
            self.drops += 1;
            return Verdict::Dropped;
        }
        packet.enqueued_at = now;
        self.fifo.push_back(packet);
        Verdict::Queued
    }

    /// Release the head Interest if a token is available at `now`, else say when one will be.
    pub fn poll(&mut self, now: SimTime) -> ShaperPoll {
        if self.fifo.is_empty() {
            return ShaperPoll::Empty;
        }
        let t = now.0 as i128;
        // A bucket that filled up before `now` stopped accruing then: re-anchor it full.
        if t > self.time_of_token(self.spent as f64 + self.burst) {
            self.anchor = t;
            self.tokens_at_anchor = self.burst;
            self.spent = 0;
        }
        let ready_at = self.time_of_token(self.spent as f64 + 1.0);
        if t >= ready_at {
            self.spent += 1;
            match self.fifo.pop_front() {
                Some(p) => ShaperPoll::Ready(p),
                None => ShaperPoll::Empty,
            }
        } else {
            ShaperPoll::Wait(SimTime(ready_at.clamp(0, u64::MAX as i128) as u64))
        }
    }

    /// Change the rate at `now`, keeping the tokens already accrued.
    pub fn set_rate(&mut self, rate_per_s: f64, now: SimTime) {
        let t = now.0 as i128;
        let tokens = self.tokens_at(t);
        self.anchor = t;
        self.tokens_at_anchor = tokens;
        self.spent = 0;
        self.rate = sanitize_rate(rate_per_s);
    }

    /// Take every waiting Interest out, oldest first (the link went down).
    pub fn drain(&mut self) -> Vec<Packet> {
        self.fifo.drain(..).collect()
    }

    /// The current rate [Interests/s].
    pub fn rate(&self) -> f64 {
        self.rate
    }
    /// Interests waiting.
    pub fn len(&self) -> usize {
        self.fifo.len()
    }
    pub fn is_empty(&self) -> bool {
        self.fifo.is_empty()
    }
    /// Interests dropped because the shaper was full.
    pub fn drops(&self) -> u64 {
        self.drops
    }

    /// When the running total of tokens spent since the anchor may reach `total`
    /// [ns, saturating]: anchor + round((total − tokens_at_anchor) · 10⁹ / rate).
    fn time_of_token(&self, total: f64) -> i128 {
        let missing = total - self.tokens_at_anchor;
        if missing <= 0.0 || self.rate == f64::INFINITY {
            return self.anchor;
        }
        if self.rate == 0.0 {
            return i128::MAX;
        }
        let wait = (missing * NANOS_PER_SEC as f64 / self.rate).round();
        self.anchor.saturating_add(wait as i128)
    }

    /// Tokens in the bucket at time `t` [ns], between 0 and `burst`.
    fn tokens_at(&self, t: i128) -> f64 {
        if self.rate == f64::INFINITY {
            return self.burst;
        }
        let elapsed = t.saturating_sub(self.anchor).max(0) as f64;
        let accrued = self.tokens_at_anchor + elapsed * self.rate / NANOS_PER_SEC as f64;
        (accrued - self.spent as f64).clamp(0.0, self.burst)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::NameId;
    use crate::packet::Name;

    const MS: u64 = 1_000_000;

    fn interest(seg: u64) -> Packet {
        Packet::interest(Name { prefix: NameId(0), seg }, 40, 0, 0)
    }

    fn shaper(rate: f64, depth: usize, burst: f64) -> TokenBucketShaper {
        TokenBucketShaper::new(&ShaperConfig { rate: Some(rate), depth, burst, ..ShaperConfig::default() }, 0)
    }

    /// Keep the shaper backlogged and follow its `Wait` times; return release times [ns]
    /// strictly before `until`.
    fn release_times(s: &mut TokenBucketShaper, from: SimTime, until: SimTime) -> Vec<u64> {
        let mut now = from;
        let mut seg = 0;
        let mut out = Vec::new();
        while now < until {
            while s.len() < 10 {
                s.offer(interest(seg), now);
                seg += 1;
            }
            match s.poll(now) {
                ShaperPoll::Ready(_) => out.push(now.0),
                ShaperPoll::Wait(t) => {
                    assert!(t > now);
                    now = t;
                }
                ShaperPoll::Empty => unreachable!(),
            }
        }
        out
    }

    #[test]
    fn a_backlog_is_released_one_period_apart_starting_at_once() {
        // 3/s: period 333,333,333.3 ns; the n-th token after the first is due at
        // round(n × 333,333,333.3): 333,333,333; 666,666,667; 1,000,000,000.
        let mut s = shaper(3.0, 10, 1.0);
        assert_eq!(
            release_times(&mut s, SimTime::ZERO, SimTime(1_000_000_001)),
            vec![0, 333_333_333, 666_666_667, 1_000_000_000]
        );
    }

    #[test]
    fn a_thousand_per_second_releases_exactly_a_thousand_each_second_for_100_seconds() {
        // Releases at exactly 0, 1, 2, ... ms: 1000 in every second, the last at 99.999 s.
        let mut s = shaper(1000.0, 200, 1.0);
        let times = release_times(&mut s, SimTime::ZERO, SimTime(100 * NANOS_PER_SEC));
        assert_eq!(times.len(), 100_000);
        for (n, t) in times.iter().enumerate() {
            assert_eq!(*t, n as u64 * MS);
        }
    }

    #[test]
    fn an_idle_bucket_fills_up_to_burst_only() {
        // Burst 3 at 10/s (100 ms period), idle until 1 s: 3 tokens (not 10), so three go at
        // once, and the fourth waits one period.
        let mut s = shaper(10.0, 10, 3.0);
        for i in 0..5 {
            s.offer(interest(i), SimTime::ZERO);
        }
        let now = SimTime(NANOS_PER_SEC);
        for _ in 0..3 {
            assert!(matches!(s.poll(now), ShaperPoll::Ready(_)));
        }
        assert_eq!(s.poll(now), ShaperPoll::Wait(SimTime(1_100 * MS)));
        assert!(matches!(s.poll(SimTime(1_100 * MS)), ShaperPoll::Ready(_)));
        assert_eq!(s.poll(SimTime(1_100 * MS)), ShaperPoll::Wait(SimTime(1_200 * MS)));
    }

    #[test]
    fn the_shaper_drops_once_depth_interests_wait() {
        let mut s = shaper(1.0, 2, 1.0);
        assert_eq!(s.offer(interest(0), SimTime::ZERO), Verdict::Queued);
        assert_eq!(s.offer(interest(1), SimTime::ZERO), Verdict::Queued);
        assert_eq!(s.offer(interest(2), SimTime::ZERO), Verdict::Dropped);
        assert_eq!((s.len(), s.drops()), (2, 1));
        assert!(matches!(s.poll(SimTime::ZERO), ShaperPoll::Ready(p) if p.name().unwrap().seg == 0));
        assert_eq!(s.offer(interest(3), SimTime::ZERO), Verdict::Queued);
        assert_eq!(s.poll(SimTime::ZERO), ShaperPoll::Wait(SimTime(NANOS_PER_SEC)));
    }

    #[test]
    fn an_empty_shaper_says_so() {
        let mut s = shaper(1.0, 2, 1.0);
        assert!(s.is_empty());
        assert_eq!(s.poll(SimTime::ZERO), ShaperPoll::Empty);
    }

    #[test]
    fn a_rate_change_right_after_a_release_spaces_the_next_by_the_new_period() {
        // 1000/s releases at 0..=10 ms; at 10 ms the bucket is empty. At 500/s the next token
        // takes 2 ms: releases at 12 and 14 ms.
        let mut s = shaper(1000.0, 200, 1.0);
        let before = release_times(&mut s, SimTime::ZERO, SimTime(10 * MS + 1));
        assert_eq!(before.len(), 11);
        s.set_rate(500.0, SimTime(10 * MS));
        assert_eq!(s.rate(), 500.0);
        assert_eq!(release_times(&mut s, SimTime(10 * MS), SimTime(15 * MS)), vec![12 * MS, 14 * MS]);
    }

    #[test]
    fn a_rate_change_mid_period_keeps_the_half_token_already_earned() {
        // Last release at 10 ms; at 10.5 ms the bucket holds 0.5 token. At 500/s the missing
        // 0.5 token takes 1 ms: releases at 11.5 ms, then 13.5 ms.
        let mut s = shaper(1000.0, 200, 1.0);
        release_times(&mut s, SimTime::ZERO, SimTime(10 * MS + 1));
        s.set_rate(500.0, SimTime(10_500_000));
        assert_eq!(release_times(&mut s, SimTime(10_500_000), SimTime(14 * MS)), vec![11_500_000, 13_500_000]);
    }

    #[test]
    fn the_default_rate_fills_the_reverse_link_with_data() {
        // 10 Mbps / (8 × 1100 B) = 10,000,000 / 8,800 = 1136.36... Interests/s.
        let s = TokenBucketShaper::new(&ShaperConfig::default(), 10_000_000);
        assert!((s.rate() - 1_136.363_636).abs() < 1e-6);
    }

    #[test]
    fn a_zero_rate_holds_everything_back_without_panicking() {
        let mut s = shaper(1.0, 10, 1.0);
        s.offer(interest(0), SimTime::ZERO);
        s.offer(interest(1), SimTime::ZERO);
        assert!(matches!(s.poll(SimTime::ZERO), ShaperPoll::Ready(_)));
        s.set_rate(0.0, SimTime::ZERO);
        assert_eq!(s.poll(SimTime(5 * NANOS_PER_SEC)), ShaperPoll::Wait(SimTime::MAX));
        s.set_rate(f64::INFINITY, SimTime(6 * NANOS_PER_SEC));
        assert!(matches!(s.poll(SimTime(6 * NANOS_PER_SEC)), ShaperPoll::Ready(_)));
    }

    #[test]
    fn validation_names_the_offending_key() {
        let c = |f: fn(&mut ShaperConfig)| {
            let mut c = ShaperConfig::default();
            f(&mut c);
            c.validate()
        };
        assert!(c(|c| c.rate = Some(0.0)).unwrap_err().key == "rate");
        assert!(c(|c| c.depth = 0).unwrap_err().key == "depth");
        assert!(c(|c| c.burst = 0.5).unwrap_err().key == "burst");
        assert!(c(|c| c.data_size = Bytes(0)).unwrap_err().key == "data_size");
        assert!(ShaperConfig::default().validate().is_ok());
    }
}
