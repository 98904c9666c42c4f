//! `[apps.NAME]`: the applications, tagged by `type`.

use serde::{Deserialize, Serialize};

use super::types::default_true;
use crate::app::arrivals::ArrivalsConfig;
use crate::app::catalogue::CatalogueConfig;
use crate::app::tcp::{FlightSize, TcpProfile};
use crate::cc::rate::RateConfig;
use crate::cc::tcp::TcpControlConfig;
use crate::cc::window::WindowConfig;
use crate::rtt::RttConfig;
use crate::units::{Bandwidth, Bytes, Duration};

/// The `type` values an `[apps.NAME]` table accepts.
pub const APP_TYPES: &[&str] = &["consumer", "producer", "tcp", "cbr", "multicast"];

/// An application on a node, chosen by `type = "…"`.
// A scenario holds a handful of apps, so the consumer variant's size does not matter.
#[allow(clippy::large_enum_variant)]
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(tag = "type", rename_all = "kebab-case", deny_unknown_fields)]
pub enum AppSpec {
    /// Fetches a prefix, segment by segment, under a window or rate controller.
    Consumer(ConsumerSpec),
    /// Answers every Interest under its prefix with Data.
    Producer(ProducerSpec),
    /// A TCP bulk transfer from `node` to `to` (a sender and a receiver app).
    Tcp(TcpSpec),
    /// Constant-bit-rate UDP datagrams from `node` to `to` (a source and a sink app).
    Cbr(CbrSpec),
    /// A single-rate multicast group: a source on `node` and a receiver on each of `receivers`.
    Multicast(MulticastSpec),
}

impl AppSpec {
    /// The node the app runs on.
    pub fn node(&self) -> &str {
        match self {
            AppSpec::Consumer(c) => &c.node,
            AppSpec::Producer(p) => &p.node,
            AppSpec::Tcp(t) => &t.node,
            AppSpec::Cbr(c) => &c.node,
            AppSpec::Multicast(m) => &m.node,
        }
    }
    /// The NDN prefix it fetches or serves; `None` for IP apps.
    pub fn prefix(&self) -> Option<&str> {
        match self {
            AppSpec::Consumer(c) => Some(&c.prefix),
            AppSpec::Producer(p) => Some(&p.prefix),
            AppSpec::Tcp(_) | AppSpec::Cbr(_) | AppSpec::Multicast(_) => None,
        }
    }
    /// The `type` string.
    pub fn kind(&self) -> &'static str {
        match self {
            AppSpec::Consumer(_) => "consumer",
            AppSpec::Producer(_) => "producer",
            AppSpec::Tcp(_) => "tcp",
            AppSpec::Cbr(_) => "cbr",
            AppSpec::Multicast(_) => "multicast",
        }
    }
    /// The node an IP flow goes to.
    pub fn destination(&self) -> Option<&str> {
        match self {
            AppSpec::Tcp(t) => Some(&t.to),
            AppSpec::Cbr(c) => Some(&c.to),
            _ => None,
        }
    }
}

/// `type = "producer"`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ProducerSpec {
    /// Node the producer runs on. Required.
    pub node: String,
    /// Name prefix served, e.g. `"/p1"`. Required.
    pub prefix: String,
    /// Content bytes per Data packet \[bytes\]. Default `"1024B"`.
    #[serde(default = "default_payload")]
    pub payload: Bytes,
    /// Header bytes added to each Data on the wire \[bytes\]: a Data's wire size is `payload +
    /// overhead`. Default: none, and the wire size is the Data's real encoding (an NDN v0.3 Data
    /// signed with DigestSha256 in an NDNLPv2 LpPacket in an Ethernet frame; see `wire::ndn`),
    /// which depends on its name.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub overhead: Option<Bytes>,
    /// FreshnessPeriod of the Data \[time\]. Default `"0s"`, meaning the Data never goes stale
    /// in a Content Store.
    #[serde(default)]
    pub freshness: Duration,
    /// Time from an Interest's arrival to its Data leaving the producer \[time\]. Default `"0s"`.
    #[serde(default)]
    pub processing_delay: Duration,
}

pub use crate::app::producer::DEFAULT_PAYLOAD_BYTES;

fn default_payload() -> Bytes {
    Bytes(DEFAULT_PAYLOAD_BYTES)
}

impl ProducerSpec {
    /// A producer with the default payload and overhead.
    pub fn new(node: &str, prefix: &str) -> ProducerSpec {
        ProducerSpec {
            node: node.to_string(),
            prefix: prefix.to_string(),
            payload: default_payload(),
            overhead: None,
            freshness: Duration::default(),
            processing_delay: Duration::default(),
        }
    }
}

/// `type = "consumer"`. Exactly one of `window` and `rate` must be given.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ConsumerSpec {
    /// Node the consumer runs on. Required.
    pub node: String,
    /// Name prefix fetched; segment numbers are appended. Required.
    pub prefix: String,
    /// When the first Interest is sent [time since the start]. Default `"0s"`.
    #[serde(default)]
    pub start: Duration,
    /// When sending stops [time since the start]. Default: the end of the simulation. Must be
    /// after `start`; may lie beyond the simulation's end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Duration>,
    /// Fetch segments 0..N−1 and then stop (a file download). Default: fetch until `stop`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub segments: Option<u64>,
    /// Alternative to `segments` \[bytes\]: N = ceil(file_size / producer payload). Replaced by
    /// `segments` when the scenario is loaded and the producer is known.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub file_size: Option<Bytes>,
    /// Wire size of each Interest \[bytes\]. Default: none, and the wire size is the
    /// Interest's real encoding (NDN v0.3 in an NDNLPv2 LpPacket in an Ethernet frame; see
    /// `wire::ndn`), which grows with the segment number's length.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub interest_size: Option<Bytes>,
    /// InterestLifetime \[time\]: how long routers keep the PIT entry. Default `"2s"`.
    #[serde(default = "default_lifetime")]
    pub lifetime: Duration,
    /// Retransmit on timeout (and on NACK, as the controller decides). Default true; false
    /// sends every Interest exactly once.
    #[serde(default = "default_true")]
    pub retransmit: bool,
    /// Largest number of retransmissions of one segment; 0 = unlimited. Default 0.
    #[serde(default)]
    pub max_retransmissions: u32,
    /// How often the retransmission timer is polled \[time\]. Default `"50ms"` (ndnSIM's
    /// consumers); `"0s"` gives exact per-Interest timers.
    #[serde(default = "default_timeout_check")]
    pub timeout_check: Duration,
    /// When true, each Interest keeps the RTO it was sent with; when false (default), every
    /// outstanding Interest is judged by the current RTO.
    #[serde(default)]
    pub rto_per_interest: bool,
    /// RTT estimator and RTO bounds. Default: ndnSIM's consumer defaults.
    #[serde(default)]
    pub rtt: RttConfig,
    /// Window controller (Interests in flight). Exactly one of `window` / `rate`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub window: Option<WindowConfig>,
    /// Rate controller (Interests per second). Exactly one of `window` / `rate`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub rate: Option<RateConfig>,
    /// Rate consumers: Interests that may wait for the next clock tick before new ones are
    /// dropped \[packets\]. Default 200.
    #[serde(default = "default_interest_bucket")]
    pub interest_bucket: usize,
    /// Rate consumers: also release the Interests that are due whenever a Data or NACK
    /// arrives, not only on clock ticks. Default false.
    #[serde(default)]
    pub smoothing: bool,
    /// A random delay added to `start` \[time\]: uniform in [0, `start_jitter`), drawn once per
    /// run from the consumer's own stream `app:NAME:start`. Default `"0s"` (none).
    #[serde(default, skip_serializing_if = "is_zero")]
    pub start_jitter: Duration,
    /// Open-loop requests: each request fetches one object of `segments` segments (default 1)
    /// through the consumer's controller. Default: none (one stream of segments).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub arrivals: Option<ArrivalsConfig>,
    /// The objects requests ask for: K objects with Zipf popularity. Needs `arrivals`. Default:
    /// none (every request asks for a new object).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub catalogue: Option<CatalogueConfig>,
}

fn is_zero(d: &Duration) -> bool {
    d.get() == crate::time::SimDuration::ZERO
}

fn default_lifetime() -> Duration {
    Duration::from_secs(2)
}

fn default_timeout_check() -> Duration {
    Duration::from_millis(50)
}

fn default_interest_bucket() -> usize {
    200
}

/// How a consumer paces itself.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Control<'a> {
    Window(&'a WindowConfig),
    Rate(&'a RateConfig),
}

impl ConsumerSpec {
    /// A window consumer with every other setting at its default.
    pub fn with_window(node: &str, prefix: &str, window: WindowConfig) -> ConsumerSpec {
        ConsumerSpec { window: Some(window), ..ConsumerSpec::bare(node, prefix) }
    }

    /// A rate consumer with every other setting at its default.
    pub fn with_rate(node: &str, prefix: &str, rate: RateConfig) -> ConsumerSpec {
        ConsumerSpec { rate: Some(rate), ..ConsumerSpec::bare(node, prefix) }
    }

    fn bare(node: &str, prefix: &str) -> ConsumerSpec {
        ConsumerSpec {
            node: node.to_string(),
            prefix: prefix.to_string(),
            start: Duration::default(),
            stop: None,
            segments: None,
            file_size: None,
            interest_size: None,
            lifetime: default_lifetime(),
            retransmit: true,
            max_retransmissions: 0,
            timeout_check: default_timeout_check(),
            rto_per_interest: false,
            rtt: RttConfig::default(),
            window: None,
            rate: None,
            interest_bucket: default_interest_bucket(),
            smoothing: false,
            start_jitter: Duration::default(),
            arrivals: None,
            catalogue: None,
        }
    }

    /// The controller, when exactly one of `window` / `rate` is set.
    pub fn control(&self) -> Option<Control<'_>> {
        match (&self.window, &self.rate) {
            (Some(w), None) => Some(Control::Window(w)),
            (None, Some(r)) => Some(Control::Rate(r)),
            _ => None,
        }
    }
}

/// `type = "tcp"`: a bulk TCP transfer. The sender runs on `node`, the receiver on `to`; the
/// flow's figures are reported under the app's name, the receiver's under `NAME-sink`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TcpSpec {
    /// The sender's node. Required.
    pub node: String,
    /// The receiver's node. Required.
    pub to: String,
    /// When the transfer starts [time]. Default `"0s"`.
    #[serde(default)]
    pub start: Duration,
    /// When the sender stops sending new data [time]. Default: the end of the simulation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Duration>,
    /// Bytes to transfer [bytes]; the flow completes when all are acknowledged. Default: send
    /// until `stop`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub bytes: Option<Bytes>,
    /// Maximum segment size, the payload of a full segment [bytes]. Default `"1460B"`; each
    /// segment adds 40 B of IPv4 and TCP headers on the wire.
    #[serde(default = "default_mss")]
    pub mss: Bytes,
    /// Initial window [segments]. Default 10 (RFC 6928).
    #[serde(default = "default_initial_window")]
    pub initial_window: u32,
    /// Congestion controller. Default `{ type = "newreno" }`.
    #[serde(default)]
    pub cc: TcpControlConfig,
    /// Send ECN-capable segments and react to ECN echoes (RFC 3168). Default false.
    #[serde(default)]
    pub ecn: bool,
    /// Send a new segment on each of the first two duplicate ACKs (RFC 3042, RFC 5681 §3.2).
    /// Default true.
    #[serde(default = "default_true")]
    pub limited_transmit: bool,
    /// FlightSize at a fast retransmit: `"rfc5681"` (default) or `"ns3"` (ns-3.37's count).
    #[serde(default)]
    pub flight_size: FlightSize,
    /// The receiver acknowledges every this many full segments. Default 2 (RFC 5681 §4.2).
    #[serde(default = "default_ack_every")]
    pub ack_every: u32,
    /// The longest the receiver delays an ACK [time]. Default `"200ms"`.
    #[serde(default = "default_delayed_ack_timeout")]
    pub delayed_ack_timeout: Duration,
    /// Retransmission timer (RFC 6298). Default: RTO = SRTT + 4·RTTVAR, initial 1 s, at least
    /// 1 s, at most 60 s, doubling per timeout.
    #[serde(default = "crate::app::tcp::tcp_rtt_config")]
    pub rtt: RttConfig,
    /// Which TCP: `{ type = "rfc" }` (default; the keys above), `{ type = "ns2", … }`
    /// (NS-2's `Agent/TCP/Newreno` and `TCPSink` with NS-2's defaults, which replace
    /// `initial_window`, `limited_transmit`, `flight_size`, `ack_every`, `delayed_ack_timeout`
    /// and `rtt`) or `{ type = "ns3" }` (ns-3.37's NewReno sender without SACK, configured by
    /// the keys above except `cc`, `ecn` and `flight_size`).
    #[serde(default, skip_serializing_if = "TcpProfile::is_rfc")]
    pub profile: TcpProfile,
}

fn default_mss() -> Bytes {
    Bytes(1460)
}

fn default_initial_window() -> u32 {
    10
}

fn default_ack_every() -> u32 {
    2
}

fn default_delayed_ack_timeout() -> Duration {
    Duration::from_millis(200)
}

/// `type = "cbr"`: constant-bit-rate UDP. The source runs on `node`, the sink on `to`; the
/// sink's figures are reported under `NAME-sink`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct CbrSpec {
    /// The source's node. Required.
    pub node: String,
    /// The sink's node. Required.
    pub to: String,
    /// Payload bit rate [bit/s, e.g. `"600kbps"`]. Required.
    pub rate: Bandwidth,
    /// Payload of each datagram [bytes]. Default `"1000B"`; 28 B of IPv4 and UDP headers are
    /// added on the wire.
    #[serde(default = "default_datagram")]
    pub packet_size: Bytes,
    /// When sending starts [time]. Default `"0s"`.
    #[serde(default)]
    pub start: Duration,
    /// When sending stops [time]. Default: the end of the simulation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Duration>,
    /// Send ECN-capable datagrams (a marking queue marks them instead of dropping). Default false.
    #[serde(default)]
    pub ecn: bool,
}

fn default_datagram() -> Bytes {
    Bytes(1000)
}

/// `type = "multicast"`: a single-rate multicast group. The source runs on `node` and pushes Data
/// down the shortest-path tree (fewest links; ties to the link declared first) to a receiver on
/// each node of `receivers`, reported as `NAME-NODE`; feedback goes up the same tree.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct MulticastSpec {
    /// The source's node. Required.
    pub node: String,
    /// The receivers' nodes. Required, at least one.
    pub receivers: Vec<String>,
    /// The group id. Default: the app's position among the multicast apps, from 1.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub group: Option<u32>,
    /// Wire size of each Data [bytes]. Default `"1000B"` (seed 001's packet size).
    #[serde(default = "default_datagram")]
    pub packet_size: Bytes,
    /// Wire size of each feedback packet [bytes]. Default `"40B"` (an assumption: group id and
    /// three fields, plus headers).
    #[serde(default = "default_feedback_size")]
    pub feedback_size: Bytes,
    /// The source's round-trip estimate before any feedback. Default `"100ms"`.
    #[serde(default = "default_initial_rtt")]
    pub initial_rtt: Duration,
    /// When sending starts [time]. Default `"0s"`.
    #[serde(default)]
    pub start: Duration,
    /// When sending stops [time]. Default: the end of the simulation.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub stop: Option<Duration>,
    /// The congestion control. Default `{ type = "srmcc" }`.
    #[serde(default = "default_mcast_control")]
    pub control: crate::app::mcast::McastControlConfig,
}

fn default_feedback_size() -> Bytes {
    Bytes(40)
}

fn default_initial_rtt() -> Duration {
    Duration::from_millis(100)
}

fn default_mcast_control() -> crate::app::mcast::McastControlConfig {
    crate::app::mcast::McastControlConfig::Srmcc(crate::app::mcast::SrmccConfig::default())
}
