//! A link bandwidth that follows a file: `bandwidth = { trace = "cell.trace", mtu = "1500B" }`
//! (Mahimahi's delivery opportunities, see `crate::link_trace`) or `bandwidth = { series =
//! "rate.csv" }` (a rate that steps at given times). The path is relative to the scenario
//! file; loading reads it, checks it, and keeps what it holds in the scenario, so a bad file
//! is an error that names the scenario's key and the trace file's line.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::{Deserialize, Deserializer, Serialize, Serializer};

use super::drawn::FileValue;
use crate::link_trace::{DeliveryTrace, RateSeries};
use crate::plugin::{check, Check, Invalid};
use crate::units::{Bandwidth, Bytes, MAX_BANDWIDTH_BPS};

/// The default (and usual) bytes one Mahimahi delivery opportunity carries.
pub const DEFAULT_TRACE_MTU: u64 = 1500;
/// The largest MTU a trace may give [bytes].
pub const MAX_TRACE_MTU: u64 = 1_000_000;

/// `{ trace = "FILE", mtu = "1500B" }` or `{ series = "FILE.csv" }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct TraceSpec {
    /// A Mahimahi trace: one delivery opportunity per line [ms], repeated at its end.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub trace: Option<String>,
    /// Bytes one opportunity of `trace` carries [bytes]. Default `"1500B"`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub mtu: Option<Bytes>,
    /// A CSV time series `time_s,bandwidth_bps`: the rate from each row's time on.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub series: Option<String>,
    /// What the file holds, once loaded.
    #[serde(skip)]
    pub loaded: Option<Arc<LoadedTrace>>,
}

/// A trace file's content.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LoadedTrace {
    Delivery(DeliveryTrace),
    Series(RateSeries),
}

impl TraceSpec {
    /// Exactly one source, and an MTU only for a Mahimahi trace; keys relative to the table.
    pub fn validate(&self) -> Check {
        match (&self.trace, &self.series) {
            (Some(_), Some(_)) => return Err(Invalid::new("series", "give `trace` or `series`, not both")),
            (None, None) => return Err(Invalid::new("trace", "give `trace = \"FILE\"` or `series = \"FILE.csv\"`")),
            (None, Some(_)) if self.mtu.is_some() => {
                return Err(Invalid::new("mtu", "`mtu` belongs to a Mahimahi `trace`, not a `series`"))
            }
            _ => {}
        }
        if let Some(m) = self.mtu {
            check::count("mtu", m.0, 1, MAX_TRACE_MTU)?;
        }
        Ok(())
    }

    /// The file as written.
    pub fn path(&self) -> &str {
        self.trace.as_deref().or(self.series.as_deref()).unwrap_or("")
    }

    pub fn mtu_bytes(&self) -> u64 {
        self.mtu.map_or(DEFAULT_TRACE_MTU, |b| b.0)
    }

    /// Read the file at `path` relative to `base` (the scenario file's folder), keep its
    /// content, and put the path as read in place of the one written (absolute, so that the
    /// scenario written out reads the same file from anywhere). The error says what is wrong,
    /// with the trace file's line.
    pub fn load(&mut self, base: &Path) -> Result<(), String> {
        let written = PathBuf::from(self.path());
        let joined = if written.is_absolute() { written.clone() } else { base.join(&written) };
        let full = std::path::absolute(&joined).unwrap_or(joined);
        let text = std::fs::read_to_string(&full)
            .map_err(|e| format!("cannot read the trace file {}: {e}", full.display()))?;
        let at = |line: usize| {
            if line == 0 {
                full.display().to_string()
            } else {
                format!("{}:{line}", full.display())
            }
        };
        let loaded = if self.trace.is_some() {
            let mtu = u32::try_from(self.mtu_bytes()).unwrap_or(u32::MAX);
            LoadedTrace::Delivery(
                DeliveryTrace::parse(&text, mtu).map_err(|e| format!("{}: {}", at(e.line), e.message))?,
            )
        } else {
            let max_time = check::MAX_TIME;
            LoadedTrace::Series(
                RateSeries::parse_csv(&text, MAX_BANDWIDTH_BPS, max_time)
                    .map_err(|e| format!("{}: {}", at(e.line), e.message))?,
            )
        };
        let shown = full.display().to_string();
        if self.trace.is_some() {
            self.trace = Some(shown);
        } else {
            self.series = Some(shown);
        }
        self.loaded = Some(Arc::new(loaded));
        Ok(())
    }

    /// The bandwidth the link shows for it: a trace's long-run mean, a series' first rate.
    pub fn nominal(&self) -> Option<Bandwidth> {
        match self.loaded.as_deref()? {
            LoadedTrace::Delivery(t) => Some(Bandwidth(t.mean_bps())),
            LoadedTrace::Series(s) => Some(Bandwidth(s.initial_bps())),
        }
    }
}

/// `bandwidth` as a file may give it: a value, a distribution, or a trace. A trace table is
/// taken out before serde reads the link (`parse.rs`), so reading sees a value or a
/// distribution only, and its errors keep their keys; writing gives the trace back.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum BandwidthFile {
    Value(FileValue<Bandwidth>),
    Trace(TraceSpec),
}

impl Serialize for BandwidthFile {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            BandwidthFile::Value(v) => v.serialize(s),
            BandwidthFile::Trace(t) => t.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for BandwidthFile {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        FileValue::<Bandwidth>::deserialize(d).map(BandwidthFile::Value)
    }
}

/// `bandwidth_ab` / `bandwidth_ba`: a value or a trace (read as `BandwidthFile`).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum DirBandwidthFile {
    Value(Bandwidth),
    Trace(TraceSpec),
}

impl Serialize for DirBandwidthFile {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        match self {
            DirBandwidthFile::Value(v) => v.serialize(s),
            DirBandwidthFile::Trace(t) => t.serialize(s),
        }
    }
}

impl<'de> Deserialize<'de> for DirBandwidthFile {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        Bandwidth::deserialize(d).map(DirBandwidthFile::Value)
    }
}

/// The traces of a link, as given: for both directions (`bandwidth`) and for one (`_ab`, `_ba`).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct LinkTraces {
    pub both: Option<TraceSpec>,
    pub ab: Option<TraceSpec>,
    pub ba: Option<TraceSpec>,
}

impl LinkTraces {
    pub fn any(&self) -> bool {
        self.both.is_some() || self.ab.is_some() || self.ba.is_some()
    }
    /// Each trace with its key (`bandwidth`, `bandwidth_ab`, `bandwidth_ba`).
    pub fn each_mut(&mut self) -> impl Iterator<Item = (&'static str, &mut TraceSpec)> {
        [("bandwidth", self.both.as_mut()), ("bandwidth_ab", self.ab.as_mut()), ("bandwidth_ba", self.ba.as_mut())]
            .into_iter()
            .filter_map(|(k, t)| t.map(|t| (k, t)))
    }
    pub fn each(&self) -> impl Iterator<Item = (&'static str, &TraceSpec)> {
        [("bandwidth", self.both.as_ref()), ("bandwidth_ab", self.ab.as_ref()), ("bandwidth_ba", self.ba.as_ref())]
            .into_iter()
            .filter_map(|(k, t)| t.map(|t| (k, t)))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_trace_is_written_as_its_table() {
        let t = TraceSpec { trace: Some("x.trace".into()), mtu: None, series: None, loaded: None };
        let written = toml::Value::try_from(BandwidthFile::Trace(t)).unwrap();
        assert_eq!(written.to_string(), "{ trace = \"x.trace\" }");
        let v: BandwidthFile = toml::Value::String("5Mbps".into()).try_into().unwrap();
        assert_eq!(v, BandwidthFile::Value(FileValue::Fixed(Bandwidth(5_000_000))));
    }

    #[test]
    fn a_trace_gives_one_source() {
        let mut t = TraceSpec { trace: Some("a".into()), mtu: None, series: Some("b".into()), loaded: None };
        assert_eq!(t.validate().unwrap_err().key, "series");
        t.trace = None;
        t.mtu = Some(Bytes(1500));
        assert_eq!(t.validate().unwrap_err().key, "mtu");
        t.mtu = None;
        assert!(t.validate().is_ok());
    }
}
