//! Packet traces: the packets sent on chosen faces, written as pcapng that Wireshark, tshark,
//! dpkt or scapy read. NDN packets are Ethernet frames (EtherType 0x8624) carrying an NDNLPv2
//! LpPacket around a real NDN v0.3 Interest or Data (`wire::ndn`); IP packets are Ethernet,
//! IPv4 and TCP or UDP (`wire::ip`).
//!
//! ```text
//!  world ─tap─▶ PcapTap: Transmit on a traced face ─encode─▶ pcapng EPB (interface = face)
//!                        Drop(cause)               ─encode─▶ EPB with comment "dropped: cause"
//! ```
//! Traces cost nothing unless asked for: the world's tap observer is only set when a trace is.

mod pcapng;
mod tap;

use serde::{Deserialize, Serialize};

pub use pcapng::PcapNgWriter;
pub use tap::{PcapTap, TraceCounts};

use crate::face_selection::FaceSelection;
use crate::plugin::{check, Check, Invalid};
use crate::units::{Bytes, Duration};

/// Largest snap length [bytes]: Wireshark's own limit.
pub const MAX_SNAPLEN: u64 = 262_144;

/// `[record] pcap = { … }`: which faces a packet trace records, and how much of each packet.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct PcapSpec {
    /// Faces to record: `"all"` (every link face, the default) or a list like `["R1->R2"]`.
    #[serde(default)]
    pub faces: FaceSelection,
    /// Record packets sent from this time on [time]. Default `"0s"`.
    #[serde(default)]
    pub start: Duration,
    /// Stop recording at this time [time]. Default: the end of the run.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Duration>,
    /// Bytes kept of each frame [size]; the frame's full length is recorded too. Default
    /// `"65535B"` (whole packets).
    #[serde(default = "default_snaplen")]
    pub snaplen: Bytes,
    /// Also record dropped packets, each with a comment naming the cause. Default true.
    #[serde(default = "default_true")]
    pub drops: bool,
}

fn default_true() -> bool {
    true
}

fn default_snaplen() -> Bytes {
    Bytes(65_535)
}

impl Default for PcapSpec {
    fn default() -> Self {
        PcapSpec {
            faces: FaceSelection::All,
            start: Duration::default(),
            stop: None,
            snaplen: default_snaplen(),
            drops: true,
        }
    }
}

impl PcapSpec {
    /// Range checks of the values themselves; face names are checked against the topology by
    /// the scenario.
    pub fn validate(&self) -> Check {
        check::count("snaplen", self.snaplen.0, 1, MAX_SNAPLEN)?;
        check::time("start", self.start.get(), true)?;
        if let Some(stop) = self.stop {
            check::time("stop", stop.get(), false)?;
            if stop.get() <= self.start.get() {
                return Err(Invalid::new("stop", format!("must be after start ({} ≤ {})", stop, self.start)));
            }
        }
        Ok(())
    }
}
