//! Single-rate multicast: a source pushes Data down a group's tree at a rate its congestion
//! controller sets; receivers count what arrives and report up the tree.
//!
//! ```text
//!   source ──Data (seq, sent_at)──▶ tree nodes (copy per downstream face) ──▶ receivers
//!   source ◀──feedback (report)──── tree nodes (may aggregate: SRMCC)  ◀──── receivers, each cycle
//! ```
//!
//! The controller is one file per mechanism behind [`McastControl`]; the tree is built by the
//! world builder from the scenario (shortest paths from the source).

pub mod asmp;
pub mod perif_ecn;
pub mod receiver;
pub mod source;
pub mod srmcc;
pub mod tfmcc;
pub mod tfrc;

use serde::{Deserialize, Serialize};

use crate::ids::NodeId;
use crate::packet::{McastReport, McastTimes};
use crate::time::{SimDuration, SimTime};

pub use asmp::{Asmp, AsmpConfig};
pub use perif_ecn::{PerIfEcn, PerIfEcnConfig};
pub use receiver::McastReceiver;
pub use source::{McastSource, McastSourceParams};
pub use srmcc::{Srmcc, SrmccConfig};
pub use tfmcc::{Tfmcc, TfmccConfig};

/// A multicast source's rate controller.
pub trait McastControl: Send {
    fn name(&self) -> &'static str;
    /// The rate to start with [bit/s].
    fn initial_rate(&self) -> f64;
    /// The wire size of the source's Data [bytes], once, before the first packet (TFMCC's
    /// increase limit is counted in packets).
    fn set_packet_size(&mut self, _bytes: u32) {}
    /// A feedback packet reached the source.
    fn on_feedback(&mut self, report: &McastReport, rtt: Option<SimDuration>, now: SimTime);
    /// A feedback packet from `origin` reached the source (mechanisms that track one
    /// receiver, like TFMCC's CLR, need to know who sent it). By default the same as
    /// [`McastControl::on_feedback`].
    fn on_feedback_from(&mut self, _origin: NodeId, report: &McastReport, rtt: Option<SimDuration>, now: SimTime) {
        self.on_feedback(report, rtt, now);
    }
    /// A feedback packet from `origin`, sent at `sent_at`, with TFMCC's round and timestamp
    /// echo in `times`. By default the same as [`McastControl::on_feedback_from`].
    fn on_feedback_timed(
        &mut self,
        origin: NodeId,
        report: &McastReport,
        _times: &McastTimes,
        _sent_at: SimTime,
        rtt: Option<SimDuration>,
        now: SimTime,
    ) {
        self.on_feedback_from(origin, report, rtt, now);
    }
    /// What each Data carries down the tree in its `report` field, given the current rate
    /// (zero by default; TFMCC and ASMP announce the sending rate there).
    fn data_report(&mut self, _rate: f64, _now: SimTime) -> McastReport {
        McastReport::default()
    }
    /// The round and timestamp echo of the next Data (TFMCC; zero by default).
    fn data_times(&mut self, _now: SimTime) -> McastTimes {
        McastTimes::default()
    }
    /// The end of an adaptation cycle with the current rate `rate`: the rate for the next one.
    fn adapt(&mut self, rate: f64, now: SimTime) -> f64;
    /// How long an adaptation cycle lasts, given the largest round-trip estimate reported.
    fn cycle(&self, rtt: SimDuration) -> SimDuration;
    /// The controller's own state, recorded every sampling interval.
    fn metrics(&self, _out: &mut Vec<(&'static str, f64)>) {}
}

/// One Data as a receiver sees it, for [`McastReporting::on_data`].
#[derive(Clone, Copy, Debug)]
pub struct DataSeen<'a> {
    /// The receiver's node.
    pub me: NodeId,
    pub seq: u64,
    /// Wire size [bytes].
    pub size: u32,
    pub now: SimTime,
    /// When the source sent it.
    pub sent_at: SimTime,
    /// The receiver's round-trip estimate (twice its smoothed one-way delay).
    pub rtt: SimDuration,
    /// What the source put in the Data's `report` field ([`McastControl::data_report`]).
    pub info: &'a McastReport,
    /// The Data's round and timestamp echo ([`McastControl::data_times`]).
    pub times: McastTimes,
}

/// What a receiver reports each cycle (the mechanism's receiver side).
pub trait McastReporting: Send {
    /// A Data of the group arrived (nothing by default).
    fn on_data(&mut self, _d: &DataSeen) {}
    /// The feedback for this cycle, or `None` to stay silent. `access_bps` is the receiver's
    /// access link bandwidth.
    fn report(&mut self, access_bps: f64, now: SimTime) -> Option<McastReport>;
    /// The round and timestamp echo of the report `report` just returned (TFMCC; zero by
    /// default).
    fn report_times(&self) -> McastTimes {
        McastTimes::default()
    }
    /// The time to the next report, given the group's cycle (`cycle_rtts` round trips);
    /// mechanisms with their own report timer (ASMP's RTCP interval) override it.
    fn next_report_in(&self, cycle: SimDuration) -> SimDuration {
        cycle
    }
}

/// A fixed rate: no congestion control (the baseline the seed's Section 3.1 starts from).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FixedMcastConfig {
    /// The sending rate [bit/s]. Required.
    pub rate: crate::units::Bandwidth,
}

pub struct FixedMcast {
    rate: f64,
}

impl McastControl for FixedMcast {
    fn name(&self) -> &'static str {
        "fixed"
    }
    fn initial_rate(&self) -> f64 {
        self.rate
    }
    fn on_feedback(&mut self, _report: &McastReport, _rtt: Option<SimDuration>, _now: SimTime) {}
    fn adapt(&mut self, rate: f64, _now: SimTime) -> f64 {
        rate
    }
    fn cycle(&self, rtt: SimDuration) -> SimDuration {
        rtt.saturating_mul(4)
    }
}

impl crate::plugin::Plugin for FixedMcastConfig {
    type Built = Box<dyn McastControl>;
    fn validate(&self) -> crate::plugin::Check {
        if self.rate.bps() == 0 {
            return Err(crate::plugin::Invalid::new("rate", "must be > 0"));
        }
        Ok(())
    }
    fn build(&self) -> Box<dyn McastControl> {
        Box::new(FixedMcast { rate: self.rate.bps() as f64 })
    }
}

crate::plugin_family! {
    /// `control = { type = "..." }` of a multicast source: its congestion control.
    pub enum McastControlConfig -> Box<dyn McastControl> {
        /// SRMCC (seed 001): router-assisted, queue-occupancy driven single-rate control.
        "srmcc" => Srmcc(SrmccConfig),
        /// TFMCC (RFC 4654): equation-based rate of the current limiting receiver
        /// (ALGORITHMS.md Part B §1).
        "tfmcc" => Tfmcc(TfmccConfig),
        /// ASMP: receivers' smoothed TCP-friendly rates, the source takes the smallest
        /// (ALGORITHMS.md Part B §2, reconstructed).
        "asmp" => Asmp(AsmpConfig),
        /// PerIfWithECN: the source obeys rate suggestions of the `perif-ecn` router module
        /// (ALGORITHMS.md Part B §3).
        "perif-ecn" => PerIfEcn(PerIfEcnConfig),
        /// A constant rate.
        "fixed" => Fixed(FixedMcastConfig),
    }
}

impl McastControlConfig {
    /// The receivers' side of the mechanism; `rng` is the receiver's own random stream
    /// (TFMCC's feedback timers).
    pub fn reporting(&self, rng: crate::rng::SimRng) -> Box<dyn McastReporting> {
        match self {
            McastControlConfig::Srmcc(_) => Box::new(srmcc::MccReporting),
            McastControlConfig::Tfmcc(c) => Box::new(tfmcc::TfmccReporting::new(c, rng)),
            McastControlConfig::Asmp(c) => Box::new(asmp::AsmpReporting::new(c)),
            McastControlConfig::PerIfEcn(_) | McastControlConfig::Fixed(_) => Box::new(Silent),
        }
    }

    /// The receivers' report cycle in round trips: SRMCC's `cycle_rtts`; TFMCC's CLR reports
    /// once per round trip (RFC 4654 §4.4), so its receivers decide every round trip; ASMP's
    /// receivers run their own RTCP timer and the other mechanisms' receivers are silent.
    pub fn receiver_cycle_rtts(&self) -> f64 {
        match self {
            McastControlConfig::Srmcc(c) => c.cycle_rtts,
            McastControlConfig::Tfmcc(_) => 1.0,
            McastControlConfig::Asmp(_) | McastControlConfig::PerIfEcn(_) | McastControlConfig::Fixed(_) => 4.0,
        }
    }
}

/// Receivers of an uncontrolled source send nothing.
pub struct Silent;

impl McastReporting for Silent {
    fn report(&mut self, _access_bps: f64, _now: SimTime) -> Option<McastReport> {
        None
    }
}
