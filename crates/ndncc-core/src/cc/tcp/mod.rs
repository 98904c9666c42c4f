//! TCP congestion controllers: how the congestion window of a TCP sender grows in congestion
//! avoidance and where the slow-start threshold lands after a loss or an ECN echo. The sender
//! (`app/tcp/sender.rs`) owns everything else: slow start, fast retransmit and NewReno's fast
//! recovery, the retransmission timer. Windows are in bytes.
//!
//! Built-ins: `newreno` (RFC 5681 congestion avoidance, halving on loss) and `cubic` / `bic`,
//! which run the window laws of the NDN consumers (`cc/window/cubic.rs`, `bic.rs`) in segments.

pub mod law;
pub mod newreno;

pub use law::{TcpBicConfig, TcpCubicConfig};
pub use newreno::{NewReno, NewRenoConfig};

use crate::time::{SimDuration, SimTime};

/// A cumulative ACK that acknowledged new data while the window is at or above ssthresh.
#[derive(Clone, Copy, Debug)]
pub struct TcpAck {
    pub now: SimTime,
    /// Congestion window before this ACK [bytes].
    pub cwnd: f64,
    /// Bytes newly acknowledged.
    pub acked: u64,
    pub mss: u32,
    /// Smoothed RTT, once measured.
    pub srtt: Option<SimDuration>,
}

/// A congestion event: three duplicate ACKs, a timeout, or an ECN echo.
#[derive(Clone, Copy, Debug)]
pub struct TcpLoss {
    pub now: SimTime,
    /// Congestion window at the event [bytes].
    pub cwnd: f64,
    /// Bytes in flight (sent, not yet acknowledged).
    pub flight: u64,
    pub mss: u32,
}

/// A TCP congestion controller.
pub trait TcpControl: Send {
    fn name(&self) -> &'static str;
    /// The window after an ACK in congestion avoidance [bytes].
    fn on_ack(&mut self, ev: &TcpAck) -> f64;
    /// The slow-start threshold after a congestion event [bytes]; the sender enforces the
    /// floor of two segments.
    fn ssthresh_after(&mut self, ev: &TcpLoss) -> f64;
    /// The controller's own state to record, as (metric, value).
    fn metrics(&self, _out: &mut Vec<(&'static str, f64)>) {}
}

crate::plugin_family! {
    /// `cc = { type = "..." }` of a TCP flow.
    pub enum TcpControlConfig -> Box<dyn TcpControl> {
        /// RFC 5681/6582: +MSS²/cwnd per ACK, ssthresh = FlightSize/2.
        "newreno" => NewReno(NewRenoConfig),
        /// CUBIC's window law (RFC 9438) per acknowledged segment.
        "cubic" => Cubic(TcpCubicConfig),
        /// BIC's window law per acknowledged segment.
        "bic" => Bic(TcpBicConfig),
    }
}

impl Default for TcpControlConfig {
    fn default() -> Self {
        TcpControlConfig::NewReno(NewRenoConfig::default())
    }
}
