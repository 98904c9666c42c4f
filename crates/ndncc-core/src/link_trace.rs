//! Trace-driven link capacity in Mahimahi's format: one line per delivery opportunity, each a
//! whole number of milliseconds since the link started, at which up to one MTU of bytes may
//! leave the link. Several lines with the same time are several opportunities at that instant.
//! The trace repeats with a period equal to its last time.
//!
//! ```text
//!  opportunities:   |1500 B|        |1500 B|1500 B|         (times t_i + k · period)
//!  queue:  [p1 1100 B][p2 1100 B][p3 …]
//!  p1 takes 1100 B of the first, p2 the 400 B left and 700 B of the next, and leaves at that
//!  one's instant; bytes no packet waits for are lost.
//! ```
//!
//! This is how Mahimahi's link delivers: a packet's bytes may span opportunities, several small
//! packets may share one, and an opportunity nothing is queued for goes unused. A packet leaves
//! the link (and starts its propagation delay) at the instant of the opportunity that carries
//! its last byte.

use crate::time::{SimDuration, SimTime};

/// The most opportunities a trace may list (Mahimahi's cellular traces have some 10⁵).
pub const MAX_TRACE_LINES: usize = 50_000_000;
/// The longest period a trace may have [ms]: about 31 years, far beyond any run.
pub const MAX_TRACE_PERIOD_MS: u64 = 1_000_000_000_000;

/// A parsed delivery trace.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeliveryTrace {
    /// Opportunity times within one period [ns], sorted, each in [0, period].
    times: Vec<u64>,
    /// The repeat period [ns] (the last time), > 0.
    period: u64,
    /// Bytes one opportunity carries.
    mtu: u32,
}

/// What is wrong with a trace file, and on which line (1-based; 0 when the file as a whole).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct TraceError {
    pub line: usize,
    pub message: String,
}

impl DeliveryTrace {
    /// Read Mahimahi's format: one non-negative integer [ms] per line, never decreasing, the
    /// last above zero. Blank lines are skipped.
    pub fn parse(text: &str, mtu: u32) -> Result<DeliveryTrace, TraceError> {
        if mtu == 0 {
            return Err(TraceError { line: 0, message: "the MTU must be at least 1 byte".into() });
        }
        let mut times = Vec::new();
        let mut last = 0u64;
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() {
                continue;
            }
            let bad = |message: String| TraceError { line: i + 1, message };
            let ms: u64 = line.parse().map_err(|_| bad(format!("'{line}' is not a whole number of milliseconds")))?;
            if ms > MAX_TRACE_PERIOD_MS {
                return Err(bad(format!("{ms} ms is beyond the longest trace ({MAX_TRACE_PERIOD_MS} ms)")));
            }
            if ms < last {
                return Err(bad(format!("{ms} ms comes before the line above ({last} ms): times never decrease")));
            }
            if times.len() >= MAX_TRACE_LINES {
                return Err(bad(format!("a trace has at most {MAX_TRACE_LINES} lines")));
            }
            last = ms;
            // Within MAX_TRACE_PERIOD_MS, so the product fits in 64 bits.
            times.push(ms * 1_000_000);
        }
        if times.is_empty() {
            return Err(TraceError { line: 0, message: "the trace has no opportunities".into() });
        }
        if last == 0 {
            return Err(TraceError {
                line: times.len(),
                message: "the last time must be above 0 ms: it is the period the trace repeats with".into(),
            });
        }
        Ok(DeliveryTrace { period: last * 1_000_000, times, mtu })
    }

    pub fn mtu(&self) -> u32 {
        self.mtu
    }
    pub fn period(&self) -> SimDuration {
        SimDuration(self.period)
    }
    pub fn opportunities_per_period(&self) -> usize {
        self.times.len()
    }

    /// The long-run capacity [bit/s], rounded down (at least 1).
    pub fn mean_bps(&self) -> u64 {
        let bits = self.times.len() as u128 * u128::from(self.mtu) * 8 * 1_000_000_000;
        u64::try_from(bits / u128::from(self.period)).unwrap_or(u64::MAX).max(1)
    }

    /// Time of opportunity `i` of cycle `cycle` (saturating far beyond any run).
    fn at(&self, cycle: u64, i: usize) -> SimTime {
        SimTime(cycle.saturating_mul(self.period).saturating_add(self.times[i]))
    }

    /// The first opportunity at or after `t`, as (cycle, index).
    fn first_at_or_after(&self, t: SimTime) -> (u64, usize) {
        let (q, r) = (t.0 / self.period, t.0 % self.period);
        // An opportunity at the very end of the previous cycle falls on this cycle's start.
        if r == 0 && q > 0 {
            let i = self.times.partition_point(|&x| x < self.period);
            if i < self.times.len() {
                return (q - 1, i);
            }
        }
        let i = self.times.partition_point(|&x| x < r);
        if i < self.times.len() {
            (q, i)
        } else {
            (q.saturating_add(1), 0)
        }
    }

    /// Opportunities at times in [0, t].
    fn count_up_to(&self, t: SimTime) -> u128 {
        let (q, r) = (t.0 / self.period, t.0 % self.period);
        let m = self.times.partition_point(|&x| x <= r);
        u128::from(q) * self.times.len() as u128 + m as u128
    }

    /// Bytes of opportunities at times in (from, to].
    pub fn capacity_bytes(&self, from: SimTime, to: SimTime) -> u128 {
        if to <= from {
            return 0;
        }
        (self.count_up_to(to) - self.count_up_to(from)) * u128::from(self.mtu)
    }
}

/// Where a link direction is in its trace: the opportunity being used and the bytes it has left.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TraceCursor {
    cycle: u64,
    index: usize,
    /// Bytes left in that opportunity.
    left: u32,
    /// An opportunity has been used: the cursor never goes back to it or before.
    started: bool,
}

impl TraceCursor {
    /// The packet of `size` bytes that starts at `now` (the transmitter idle, the packet at the
    /// head of the queue): the instant its last byte leaves. Leftover bytes of an opportunity
    /// serve the next packet only at that opportunity's own instant (it was queued then); later,
    /// they are gone.
    pub fn depart(&mut self, trace: &DeliveryTrace, now: SimTime, size: u32) -> SimTime {
        if !self.started || self.left == 0 || trace.at(self.cycle, self.index) != now {
            let mut pos = trace.first_at_or_after(now);
            if self.started {
                // The opportunity at the end of a period and the one at the start of the next
                // fall on one instant: the one used already is not used again.
                pos = pos.max(self.successor(trace));
            }
            (self.cycle, self.index) = pos;
            self.left = trace.mtu;
            self.started = true;
        }
        let mut need = size.max(1);
        loop {
            let take = need.min(self.left);
            need -= take;
            self.left -= take;
            if need == 0 {
                return trace.at(self.cycle, self.index);
            }
            (self.cycle, self.index) = self.successor(trace);
            self.left = trace.mtu;
        }
    }

    /// The opportunity after the current one, as (cycle, index); that order is time order.
    fn successor(&self, trace: &DeliveryTrace) -> (u64, usize) {
        if self.index + 1 < trace.times.len() {
            (self.cycle, self.index + 1)
        } else {
            (self.cycle.saturating_add(1), 0)
        }
    }
}

/// A bandwidth that steps over time: from each row's time on, the link sends at its rate.
/// Read from CSV rows `time_s,bandwidth_bps` (an optional header row first); the first row is
/// at time 0, times increase, and the last rate holds to the end of the run.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RateSeries {
    pub points: Vec<(SimDuration, u64)>,
}

impl RateSeries {
    /// Parse the CSV text; `max_bps` bounds every rate, `max_time` every time.
    pub fn parse_csv(text: &str, max_bps: u64, max_time: SimDuration) -> Result<RateSeries, TraceError> {
        let mut points: Vec<(SimDuration, u64)> = Vec::new();
        let mut first = true;
        for (i, raw) in text.lines().enumerate() {
            let line = raw.trim();
            if line.is_empty() {
                continue;
            }
            let header_allowed = std::mem::take(&mut first);
            let bad = |message: String| TraceError { line: i + 1, message };
            let cells: Vec<&str> = line.split(',').map(str::trim).collect();
            if cells.len() != 2 {
                return Err(bad(format!("expected two columns, time_s,bandwidth_bps; found {}", cells.len())));
            }
            let (Ok(t), Ok(bw)) = (cells[0].parse::<f64>(), cells[1].parse::<f64>()) else {
                if header_allowed {
                    continue; // a header row
                }
                return Err(bad(format!("'{line}' is not two numbers (seconds, bit/s)")));
            };
            if !(t.is_finite() && t >= 0.0 && t <= max_time.as_secs_f64()) {
                return Err(bad(format!("time {t} s is not between 0 and {} s", max_time.as_secs_f64())));
            }
            if !(bw.is_finite() && bw >= 1.0 && bw <= max_bps as f64) {
                return Err(bad(format!("bandwidth {bw} bit/s is not between 1 and {max_bps} bit/s")));
            }
            let t = SimDuration::from_secs_f64(t);
            if points.is_empty() && t != SimDuration::ZERO {
                return Err(bad("the first row must be at time 0: it gives the starting bandwidth".into()));
            }
            if points.last().is_some_and(|&(last, _)| t <= last) {
                return Err(bad(format!("time {} s does not come after the row above", t.as_secs_f64())));
            }
            if points.len() >= MAX_TRACE_LINES {
                return Err(bad(format!("a series has at most {MAX_TRACE_LINES} rows")));
            }
            points.push((t, bw.round() as u64));
        }
        if points.is_empty() {
            return Err(TraceError { line: 0, message: "the series has no rows".into() });
        }
        Ok(RateSeries { points })
    }

    /// The rate at time 0.
    pub fn initial_bps(&self) -> u64 {
        self.points[0].1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ms(x: u64) -> SimTime {
        SimTime(x * 1_000_000)
    }

    #[test]
    fn a_one_line_trace_is_one_opportunity_per_period() {
        let t = DeliveryTrace::parse("1\n", 1500).unwrap();
        assert_eq!(t.mean_bps(), 12_000_000);
        let mut c = TraceCursor::default();
        // A 1500 B packet at 0 waits for the opportunity at 1 ms, the next takes the one at 2 ms.
        assert_eq!(c.depart(&t, ms(0), 1500), ms(1));
        assert_eq!(c.depart(&t, ms(1), 1500), ms(2));
        // Two 750 B packets share one opportunity.
        assert_eq!(c.depart(&t, ms(5), 750), ms(5));
        assert_eq!(c.depart(&t, ms(5), 750), ms(5));
        assert_eq!(c.depart(&t, ms(5), 1), ms(6));
    }

    #[test]
    fn a_packet_spans_opportunities_and_unused_bytes_are_lost() {
        let t = DeliveryTrace::parse("2\n2\n10\n", 1000).unwrap();
        let mut c = TraceCursor::default();
        // 1100 B: 1000 of the first opportunity at 2 ms, 100 of the second (also at 2 ms).
        assert_eq!(c.depart(&t, ms(0), 1100), ms(2));
        // 1000 B at once after: 900 left at 2 ms, then 100 from the one at 10 ms.
        assert_eq!(c.depart(&t, ms(2), 1000), ms(10));
        // Arriving at 11 ms: the 900 B left at 10 ms are gone; the next cycle's opportunities
        // are at 12 ms (2 + 10) twice and 20 ms.
        assert_eq!(c.depart(&t, ms(11), 1500), ms(12));
        assert_eq!(c.depart(&t, ms(13), 10), ms(20));
    }

    #[test]
    fn an_opportunity_at_the_period_end_is_not_skipped() {
        // Opportunities at 0 and 4 ms, period 4: times 0, 4, 4, 8, 8, …
        let t = DeliveryTrace::parse("0\n4\n", 100).unwrap();
        let mut c = TraceCursor::default();
        assert_eq!(c.depart(&t, ms(3), 150), ms(4));
        assert_eq!(c.depart(&t, ms(4), 50), ms(4));
        assert_eq!(c.depart(&t, ms(4), 1), ms(8));
        assert_eq!(t.capacity_bytes(ms(0), ms(8)), 4 * 100);
        assert_eq!(t.capacity_bytes(SimTime(0), ms(4)), 2 * 100);
    }

    #[test]
    fn capacity_counts_opportunities_in_a_window() {
        let t = DeliveryTrace::parse("1\n1\n3\n", 1500).unwrap();
        // Per 3 ms: three opportunities, 4,500 B; 12 Mbit/s.
        assert_eq!(t.mean_bps(), 12_000_000);
        assert_eq!(t.capacity_bytes(ms(0), ms(3)), 4_500);
        assert_eq!(t.capacity_bytes(ms(0), ms(30)), 45_000);
        // (1, 4]: the opportunities at 3, 4 and 4 ms.
        assert_eq!(t.capacity_bytes(ms(1), ms(4)), 4_500);
        assert_eq!(t.capacity_bytes(ms(3), ms(3)), 0);
    }

    #[test]
    fn bad_traces_name_their_line() {
        let e = DeliveryTrace::parse("1\n5\n3\n", 1500).unwrap_err();
        assert_eq!(e.line, 3);
        assert!(e.message.contains("never decrease"), "{}", e.message);
        assert_eq!(DeliveryTrace::parse("1\nx\n", 1500).unwrap_err().line, 2);
        assert_eq!(DeliveryTrace::parse("-1\n", 1500).unwrap_err().line, 1);
        assert_eq!(DeliveryTrace::parse("0\n0\n", 1500).unwrap_err().line, 2);
        assert_eq!(DeliveryTrace::parse("\n\n", 1500).unwrap_err().line, 0);
        assert_eq!(DeliveryTrace::parse("99999999999999999999\n", 1500).unwrap_err().line, 1);
    }

    #[test]
    fn a_rate_series_steps_from_time_zero() {
        let max = SimDuration::from_secs(1000);
        let s = RateSeries::parse_csv("time_s,bandwidth_bps\n0,5e6\n1.5,1000000\n", 10_000_000_000, max).unwrap();
        assert_eq!(s.points, vec![(SimDuration::ZERO, 5_000_000), (SimDuration::from_millis(1500), 1_000_000)]);
        assert_eq!(s.initial_bps(), 5_000_000);
        let line = |t: &str| RateSeries::parse_csv(t, 10_000_000_000, max).unwrap_err().line;
        assert_eq!(line("1,5\n"), 1);
        assert_eq!(line("0,5\n0,6\n"), 2);
        assert_eq!(line("0,5\n2,0\n"), 2);
        assert_eq!(line("0,5\n2,x\n"), 2);
        assert_eq!(line("0,5,1\n"), 1);
        assert_eq!(line("0,5\n2000,6\n"), 2);
        assert_eq!(line("time,bw\n"), 0);
    }
}
