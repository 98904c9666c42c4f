//! `[apps.NAME]`: the applications, tagged by `type`.

use serde::{Deserialize, Serialize};

use super::types::default_true;
use crate::cc::rate::RateConfig;
use crate::cc::window::WindowConfig;
use crate::rtt::RttConfig;
use crate::units::{Bytes, Duration};

/// The `type` values an `[apps.NAME]` table accepts.
pub const APP_TYPES: &[&str] = &["consumer", "producer"];

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
}

impl AppSpec {
    /// The node the app runs on.
    pub fn node(&self) -> &str {
        match self {
            AppSpec::Consumer(c) => &c.node,
            AppSpec::Producer(p) => &p.node,
        }
    }
    /// The prefix it fetches or serves.
    pub fn prefix(&self) -> &str {
        match self {
            AppSpec::Consumer(c) => &c.prefix,
            AppSpec::Producer(p) => &p.prefix,
        }
    }
    /// The `type` string.
    pub fn kind(&self) -> &'static str {
        match self {
            AppSpec::Consumer(_) => "consumer",
            AppSpec::Producer(_) => "producer",
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
    /// Header bytes added to each Data on the wire \[bytes\]. Default `"64B"`: our assumption for
    /// name, signature and TLV overhead; a Data's wire size is `payload + overhead`.
    #[serde(default = "default_overhead")]
    pub overhead: Bytes,
    /// FreshnessPeriod of the Data \[time\]. Default `"0s"`, meaning the Data never goes stale
    /// in a Content Store.
    #[serde(default)]
    pub freshness: Duration,
    /// Time from an Interest's arrival to its Data leaving the producer \[time\]. Default `"0s"`.
    #[serde(default)]
    pub processing_delay: Duration,
}

/// A producer's payload when the scenario gives none [bytes].
pub const DEFAULT_PAYLOAD_BYTES: u64 = 1024;

fn default_payload() -> Bytes {
    Bytes(DEFAULT_PAYLOAD_BYTES)
}

fn default_overhead() -> Bytes {
    Bytes(64)
}

impl ProducerSpec {
    /// A producer with the default payload and overhead.
    pub fn new(node: &str, prefix: &str) -> ProducerSpec {
        ProducerSpec {
            node: node.to_string(),
            prefix: prefix.to_string(),
            payload: default_payload(),
            overhead: default_overhead(),
            freshness: Duration::default(),
            processing_delay: Duration::default(),
        }
    }
    /// Wire size of one Data \[bytes\]: payload + overhead.
    pub fn data_size(&self) -> u64 {
        self.payload.0 + self.overhead.0
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
    /// Wire size of each Interest \[bytes\]. Default `"40B"`.
    #[serde(default = "default_interest_size")]
    pub interest_size: Bytes,
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
}

fn default_interest_size() -> Bytes {
    Bytes(40)
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
            interest_size: default_interest_size(),
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
