//! The end-of-run rows a TCP sender reports, the same for the RFC stack (`sender.rs`) and NS-2's
//! (`ns2.rs`): one place for the definitions docs/metrics.md gives.

use crate::histogram::{Histogram, RTT_PERCENTILES};
use crate::recorder::{SummaryRow, Unit};
use crate::time::SimTime;

/// What a sender has counted by the end of the run.
pub struct SenderTotals<'a> {
    pub name: &'a str,
    /// Payload bytes the receiver acknowledged (the highest cumulative ACK).
    pub bytes_acked: u64,
    pub segments_sent: u64,
    pub retransmissions: u64,
    pub timeouts: u64,
    pub fast_retransmits: u64,
    /// Window reductions for an ECN echo (the RFC stack only).
    pub ecn_reductions: Option<u64>,
    pub started_at: Option<SimTime>,
    pub completed_at: Option<SimTime>,
    /// Sum [s] and count of the RTT samples, and their histogram.
    pub rtt_sum_s: f64,
    pub rtt_samples: u64,
    pub rtt_hist: &'a Histogram,
    /// The smoothed RTT at the end [ms] (NS-2's profile only).
    pub srtt_ms: Option<f64>,
}

impl SenderTotals<'_> {
    /// The rows, in the order they have always been written.
    pub fn rows(&self, end: SimTime, out: &mut Vec<SummaryRow>) {
        let mut row = |m: &str, v: f64, u: Unit| out.push(SummaryRow::new(self.name, "tcp", m, v, u));
        row("bytes_acked", self.bytes_acked as f64, Unit::Bytes);
        row("segments_sent", self.segments_sent as f64, Unit::Packets);
        row("retransmissions", self.retransmissions as f64, Unit::Packets);
        row("timeouts", self.timeouts as f64, Unit::Events);
        row("fast_retransmits", self.fast_retransmits as f64, Unit::Events);
        if let Some(n) = self.ecn_reductions {
            row("ecn_reductions", n as f64, Unit::Events);
        }
        let start = self.started_at.unwrap_or(end);
        if let Some(done) = self.completed_at {
            row("download_time_s", done.saturating_since(start).as_secs_f64(), Unit::S);
        }
        row("completed", f64::from(u8::from(self.completed_at.is_some())), Unit::Bool);
        let active = self.completed_at.unwrap_or(end).min(end).saturating_since(start).as_secs_f64();
        if active > 0.0 {
            row("throughput_kbps", self.bytes_acked as f64 * 8.0 / active / 1e3, Unit::Kbps);
        }
        if self.rtt_samples > 0 {
            row("mean_rtt_ms", self.rtt_sum_s / self.rtt_samples as f64 * 1e3, Unit::Ms);
        }
        self.rtt_hist.percentile_rows(RTT_PERCENTILES, &mut row);
        if let Some(srtt) = self.srtt_ms {
            row("srtt_ms", srtt, Unit::Ms);
        }
        if self.segments_sent > 0 {
            row("retx_per_segment", self.retransmissions as f64 / self.segments_sent as f64, Unit::Ratio);
        }
    }
}
