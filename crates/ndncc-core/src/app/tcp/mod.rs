//! TCP bulk transfers as applications: the sender (connection logic, NewReno loss recovery and
//! the retransmission timer, `sender.rs`) and the receiver (cumulative, delayed ACKs and ECN
//! echo, `receiver.rs`). The congestion window's growth and decrease are the sender's
//! `TcpControl` (`cc/tcp/`). A scenario's `type = "tcp"` app is one flow: the builder puts the
//! sender on its `node`, the receiver on its `to`, and binds their ports.
//!
//! `profile = { type = "ns2" }` swaps the sender for NS-2's `Agent/TCP/Newreno` with NS-2's
//! defaults (`ns2.rs`) and makes the receiver NS-2's `TCPSink` (an ACK per packet).
//! `profile = { type = "ns3" }` swaps it for ns-3.37's NewReno without SACK (`ns3.rs`), with
//! the RFC stack's receiver, which acknowledges as ns-3's does.

pub mod ns2;
pub mod ns3;
mod out_of_order;
pub mod receiver;
pub mod sender;
pub mod summary;
#[cfg(test)]
mod test_util;

use serde::{Deserialize, Serialize};

pub use ns2::{Ns2TcpConfig, Ns2TcpParams, Ns2TcpSender};
pub use ns3::{Ns3TcpConfig, Ns3TcpParams, Ns3TcpSender};
pub use receiver::{TcpReceiver, TcpReceiverParams};
pub use sender::{tcp_rtt_config, FlightSize, TcpSender, TcpSenderParams, HEADER_BYTES};

/// `profile = { type = "rfc" }`: the RFC 5681/6582/6298 sender the other keys configure.
#[derive(Clone, Copy, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct RfcTcpConfig {}

/// Which TCP a flow runs: the RFC-style stack (default), NS-2's or ns-3's.
#[derive(Clone, Copy, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", deny_unknown_fields)]
pub enum TcpProfile {
    /// RFC 5681, RFC 6582 and RFC 6298, configured by the flow's own keys.
    #[serde(rename = "rfc")]
    Rfc(RfcTcpConfig),
    /// NS-2's `Agent/TCP/Newreno` and `TCPSink` with NS-2's defaults.
    #[serde(rename = "ns2")]
    Ns2(Ns2TcpConfig),
    /// ns-3.37's `TcpSocketBase` with NewReno, classic recovery, no SACK and no timestamps,
    /// configured by the flow's own keys.
    #[serde(rename = "ns3")]
    Ns3(Ns3TcpConfig),
}

impl Default for TcpProfile {
    fn default() -> Self {
        TcpProfile::Rfc(RfcTcpConfig {})
    }
}

impl TcpProfile {
    /// The default: left out when a flow is written back out.
    pub fn is_rfc(&self) -> bool {
        matches!(self, TcpProfile::Rfc(_))
    }
}
