//! `[links.NAME]`: a full-duplex point-to-point link and its two directions.

use serde::{Deserialize, Serialize};

use super::drawn::{FileValue, LinkDraws};
use super::link_trace::{BandwidthFile, DirBandwidthFile, LinkTraces, TraceSpec};
use super::types::default_cost;
use crate::linkservice::LinkServiceConfig;
use crate::loss::LossConfig;
use crate::queue::{QueueConfig, ShaperConfig};
use crate::units::{Bandwidth, Bytes, Duration};

/// Keys a `[links.NAME]` table accepts. `[defaults.link]` accepts all of them but `endpoints`.
pub const LINK_KEYS: &[&str] = &[
    "endpoints",
    "bandwidth",
    "bandwidth_ab",
    "bandwidth_ba",
    "delay",
    "cost",
    "loss",
    "loss_ab",
    "loss_ba",
    "queue",
    "queue_ab",
    "queue_ba",
    "underlay",
    "underlay_queue",
    "underlay_queue_bytes",
    "interest_shaper",
    "interest_shaper_ab",
    "interest_shaper_ba",
    "link_service",
];

/// A link between `endpoints[0]` (a) and `endpoints[1]` (b). Settings without a suffix apply
/// to both directions; `_ab` / `_ba` variants override one direction (a → b, b → a).
///
/// `bandwidth` and `delay` may be drawn at random once per run (`delay = { type = "uniform",
/// … }`): `drawn` then holds the distribution, and the field itself its mean until
/// `Scenario::draw_link_values` puts a draw in its place.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(from = "LinkFile", into = "LinkFile")]
pub struct LinkSpec {
    /// The two nodes, `[a, b]`. In a file it may be left out when the link's name splits at a
    /// `-` into two declared nodes (`R1-R2`); a loaded scenario always has it filled in.
    pub endpoints: [String; 2],
    /// Capacity of each direction [bit/s, e.g. `"10Mbps"`], or a distribution it is drawn from.
    /// Required (here or in `[defaults.link]`).
    pub bandwidth: Bandwidth,
    /// Capacity of a → b only, overriding `bandwidth` [bit/s]. Optional.
    pub bandwidth_ab: Option<Bandwidth>,
    /// Capacity of b → a only [bit/s]. Optional.
    pub bandwidth_ba: Option<Bandwidth>,
    /// One-way propagation delay [time, e.g. `"10ms"`], or a distribution it is drawn from.
    /// Required (here or in defaults); `"0s"` is allowed.
    pub delay: Duration,
    /// Routing metric used by computed routing with `metric = "cost"`. Default 1.
    pub cost: u32,
    /// Random loss on the wire, both directions. Default `{ type = "none" }`.
    pub loss: LossConfig,
    /// Loss of a → b only, overriding `loss`. Optional.
    pub loss_ab: Option<LossConfig>,
    /// Loss of b → a only. Optional.
    pub loss_ba: Option<LossConfig>,
    /// Queue discipline of each direction's transmitter. Default
    /// `{ type = "droptail", packets = 100 }`.
    pub queue: QueueConfig,
    /// Queue of a → b only, overriding `queue`. Optional.
    pub queue_ab: Option<QueueConfig>,
    /// Queue of b → a only. Optional.
    pub queue_ba: Option<QueueConfig>,
    /// Hidden underlay capacity [bit/s] (an NDN link over an IP path whose bottleneck the NDN
    /// layer cannot see), both directions. Optional; none means no underlay.
    pub underlay: Option<Bandwidth>,
    /// Packets the underlay holds before it drops \[packets\]. Default 100; used only with
    /// `underlay`.
    pub underlay_queue: usize,
    /// Bytes the underlay holds before it drops, as well as `underlay_queue` packets
    /// \[bytes\]. Optional; used only with `underlay`.
    pub underlay_queue_bytes: Option<Bytes>,
    /// Hop-by-hop Interest shaper on each direction's sending face. Optional.
    pub interest_shaper: Option<ShaperConfig>,
    /// Interest shaper of a → b only, overriding `interest_shaper`. Optional.
    pub interest_shaper_ab: Option<ShaperConfig>,
    /// Interest shaper of b → a only. Optional.
    pub interest_shaper_ba: Option<ShaperConfig>,
    /// Link service of both faces (each end gets its own, from this table), e.g. PCON's
    /// `{ type = "loss-detect" }`. Optional; none means packets pass straight through.
    pub link_service: Option<LinkServiceConfig>,
    /// The distributions `bandwidth` and `delay` are drawn from, when the file gives one.
    pub drawn: LinkDraws,
    /// Bandwidths that follow a file (`bandwidth = { trace = … }`); the bandwidth fields then
    /// hold the trace's mean or the series' first rate once loaded.
    pub traces: LinkTraces,
}

/// A `[links.NAME]` table as the file has it: `LinkSpec`'s keys, with `bandwidth` and `delay`
/// each a fixed value or a distribution. (Field docs are on `LinkSpec`.)
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct LinkFile {
    #[serde(default, deserialize_with = "two_endpoints")]
    endpoints: [String; 2],
    bandwidth: BandwidthFile,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bandwidth_ab: Option<DirBandwidthFile>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    bandwidth_ba: Option<DirBandwidthFile>,
    delay: FileValue<Duration>,
    #[serde(default = "default_cost")]
    cost: u32,
    #[serde(default)]
    loss: LossConfig,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    loss_ab: Option<LossConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    loss_ba: Option<LossConfig>,
    #[serde(default)]
    queue: QueueConfig,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    queue_ab: Option<QueueConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    queue_ba: Option<QueueConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    underlay: Option<Bandwidth>,
    #[serde(default = "default_underlay_queue")]
    underlay_queue: usize,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    underlay_queue_bytes: Option<Bytes>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    interest_shaper: Option<ShaperConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    interest_shaper_ab: Option<ShaperConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    interest_shaper_ba: Option<ShaperConfig>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    link_service: Option<LinkServiceConfig>,
}

impl From<LinkFile> for LinkSpec {
    fn from(f: LinkFile) -> LinkSpec {
        // A trace's bandwidth is known once its file is read; until then it shows 1 bit/s.
        let mut traces = LinkTraces::default();
        let (bandwidth, drawn_bandwidth) = match f.bandwidth {
            BandwidthFile::Value(v) => v.split(),
            BandwidthFile::Trace(t) => {
                let shown = t.nominal().unwrap_or(Bandwidth(1));
                traces.both = Some(t);
                (shown, None)
            }
        };
        let dir = |v: Option<DirBandwidthFile>, slot: &mut Option<TraceSpec>| match v {
            None => None,
            Some(DirBandwidthFile::Value(b)) => Some(b),
            Some(DirBandwidthFile::Trace(t)) => {
                let shown = t.nominal().unwrap_or(Bandwidth(1));
                *slot = Some(t);
                Some(shown)
            }
        };
        let (mut ab, mut ba) = (None, None);
        let bandwidth_ab = dir(f.bandwidth_ab, &mut ab);
        let bandwidth_ba = dir(f.bandwidth_ba, &mut ba);
        (traces.ab, traces.ba) = (ab, ba);
        let (delay, drawn_delay) = f.delay.split();
        LinkSpec {
            endpoints: f.endpoints,
            bandwidth,
            bandwidth_ab,
            bandwidth_ba,
            delay,
            cost: f.cost,
            loss: f.loss,
            loss_ab: f.loss_ab,
            loss_ba: f.loss_ba,
            queue: f.queue,
            queue_ab: f.queue_ab,
            queue_ba: f.queue_ba,
            underlay: f.underlay,
            underlay_queue: f.underlay_queue,
            underlay_queue_bytes: f.underlay_queue_bytes,
            interest_shaper: f.interest_shaper,
            interest_shaper_ab: f.interest_shaper_ab,
            interest_shaper_ba: f.interest_shaper_ba,
            link_service: f.link_service,
            drawn: LinkDraws { bandwidth: drawn_bandwidth, delay: drawn_delay },
            traces,
        }
    }
}

impl From<LinkSpec> for LinkFile {
    fn from(l: LinkSpec) -> LinkFile {
        LinkFile {
            endpoints: l.endpoints,
            bandwidth: match l.traces.both {
                Some(t) => BandwidthFile::Trace(t),
                None => BandwidthFile::Value(FileValue::join(l.bandwidth, l.drawn.bandwidth)),
            },
            bandwidth_ab: match l.traces.ab {
                Some(t) => Some(DirBandwidthFile::Trace(t)),
                None => l.bandwidth_ab.map(DirBandwidthFile::Value),
            },
            bandwidth_ba: match l.traces.ba {
                Some(t) => Some(DirBandwidthFile::Trace(t)),
                None => l.bandwidth_ba.map(DirBandwidthFile::Value),
            },
            delay: FileValue::join(l.delay, l.drawn.delay),
            cost: l.cost,
            loss: l.loss,
            loss_ab: l.loss_ab,
            loss_ba: l.loss_ba,
            queue: l.queue,
            queue_ab: l.queue_ab,
            queue_ba: l.queue_ba,
            underlay: l.underlay,
            underlay_queue: l.underlay_queue,
            underlay_queue_bytes: l.underlay_queue_bytes,
            interest_shaper: l.interest_shaper,
            interest_shaper_ab: l.interest_shaper_ab,
            interest_shaper_ba: l.interest_shaper_ba,
            link_service: l.link_service,
        }
    }
}

/// Exactly two node names (serde's fixed-size arrays let a longer list through).
fn two_endpoints<'de, D: serde::Deserializer<'de>>(d: D) -> Result<[String; 2], D::Error> {
    let v: Vec<String> = Vec::deserialize(d)?;
    let n = v.len();
    <[String; 2]>::try_from(v)
        .map_err(|_| serde::de::Error::custom(format!("a link has exactly two endpoints, not {n}")))
}

fn default_underlay_queue() -> usize {
    100
}

/// One direction of a link.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Dir {
    /// `endpoints[0]` → `endpoints[1]`.
    AB,
    /// `endpoints[1]` → `endpoints[0]`.
    BA,
}

/// The settings of one direction, per-direction overrides applied.
#[derive(Clone, Debug, PartialEq)]
pub struct DirectionSpec<'a> {
    /// Sending node.
    pub from: &'a str,
    /// Receiving node.
    pub to: &'a str,
    pub bandwidth: Bandwidth,
    pub delay: Duration,
    pub loss: &'a LossConfig,
    pub queue: &'a QueueConfig,
    pub interest_shaper: Option<&'a ShaperConfig>,
    pub underlay: Option<Bandwidth>,
    pub underlay_queue: usize,
    pub underlay_queue_bytes: Option<Bytes>,
    /// A file the bandwidth follows, if any.
    pub trace: Option<&'a TraceSpec>,
}

impl LinkSpec {
    /// A link with the given endpoints, bandwidth and delay, and defaults for everything else.
    pub fn new(a: &str, b: &str, bandwidth: Bandwidth, delay: Duration) -> LinkSpec {
        LinkSpec {
            endpoints: [a.to_string(), b.to_string()],
            bandwidth,
            bandwidth_ab: None,
            bandwidth_ba: None,
            delay,
            cost: 1,
            loss: LossConfig::None,
            loss_ab: None,
            loss_ba: None,
            queue: QueueConfig::default(),
            queue_ab: None,
            queue_ba: None,
            underlay: None,
            underlay_queue: default_underlay_queue(),
            underlay_queue_bytes: None,
            interest_shaper: None,
            interest_shaper_ab: None,
            interest_shaper_ba: None,
            link_service: None,
            drawn: LinkDraws::default(),
            traces: LinkTraces::default(),
        }
    }

    /// The settings of direction `dir`.
    pub fn direction(&self, dir: Dir) -> DirectionSpec<'_> {
        let [a, b] = &self.endpoints;
        let (from, to, bw, loss, queue, shaper, trace) = match dir {
            Dir::AB => {
                (a, b, self.bandwidth_ab, &self.loss_ab, &self.queue_ab, &self.interest_shaper_ab, &self.traces.ab)
            }
            Dir::BA => {
                (b, a, self.bandwidth_ba, &self.loss_ba, &self.queue_ba, &self.interest_shaper_ba, &self.traces.ba)
            }
        };
        // A direction's own bandwidth, fixed or traced, overrides the shared one.
        let trace = if bw.is_some() { trace.as_ref() } else { self.traces.both.as_ref() };
        DirectionSpec {
            from,
            to,
            bandwidth: bw.unwrap_or(self.bandwidth),
            delay: self.delay,
            loss: loss.as_ref().unwrap_or(&self.loss),
            queue: queue.as_ref().unwrap_or(&self.queue),
            interest_shaper: shaper.as_ref().or(self.interest_shaper.as_ref()),
            underlay: self.underlay,
            underlay_queue: self.underlay_queue,
            underlay_queue_bytes: self.underlay_queue_bytes,
            trace,
        }
    }

    /// The direction that leaves `node`, if `node` is an endpoint.
    pub fn direction_from(&self, node: &str) -> Option<Dir> {
        if self.endpoints[0] == node {
            Some(Dir::AB)
        } else if self.endpoints[1] == node {
            Some(Dir::BA)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn per_direction_settings_override_the_shared_ones() {
        let mut l = LinkSpec::new("A", "B", Bandwidth::mbps(10), Duration::from_millis(5));
        l.bandwidth_ba = Some(Bandwidth::mbps(2));
        l.interest_shaper = Some(ShaperConfig { depth: 5, ..Default::default() });
        let ab = l.direction(Dir::AB);
        let ba = l.direction(Dir::BA);
        assert_eq!((ab.from, ab.to, ab.bandwidth), ("A", "B", Bandwidth::mbps(10)));
        assert_eq!((ba.from, ba.to, ba.bandwidth), ("B", "A", Bandwidth::mbps(2)));
        assert_eq!(ba.interest_shaper.map(|s| s.depth), Some(5));
        assert_eq!(l.direction_from("B"), Some(Dir::BA));
    }

    #[test]
    fn the_key_list_matches_the_struct() {
        let mut l = LinkSpec::new("A", "B", Bandwidth::mbps(1), Duration::from_millis(1));
        l.bandwidth_ab = Some(Bandwidth::mbps(1));
        l.bandwidth_ba = Some(Bandwidth::mbps(1));
        l.loss_ab = Some(LossConfig::None);
        l.loss_ba = Some(LossConfig::None);
        l.queue_ab = Some(QueueConfig::default());
        l.queue_ba = Some(QueueConfig::default());
        l.underlay = Some(Bandwidth::mbps(1));
        l.underlay_queue_bytes = Some(Bytes(100_000));
        l.interest_shaper = Some(ShaperConfig::default());
        l.interest_shaper_ab = Some(ShaperConfig::default());
        l.interest_shaper_ba = Some(ShaperConfig::default());
        l.link_service = Some(LinkServiceConfig::LossDetect(Default::default()));
        let t = toml::Table::try_from(&l).unwrap();
        let mut written: Vec<&str> = t.keys().map(String::as_str).collect();
        let mut listed = LINK_KEYS.to_vec();
        written.sort_unstable();
        listed.sort_unstable();
        assert_eq!(written, listed);
    }
}
