//! The consumer's events as Python objects: read-only copies of `ndncc_core::cc`'s events.
//!
//! Times are integer nanoseconds of simulated time (`now`, `rtt`, `srtt`), exactly as the engine
//! keeps them; the `*_s` properties give the same values in float seconds.

use ndncc_core::cc::{DataEvent, HoleEvent, LossEvent, SentEvent};
use ndncc_core::packet::NackReason;
use ndncc_core::time::SimDuration;
use pyo3::prelude::*;

const NS_PER_S: f64 = 1e9;

fn secs(ns: u64) -> f64 {
    ns as f64 / NS_PER_S
}

/// The NACK reason as Python sees it: the scenario files' spelling.
fn reason_name(r: NackReason) -> &'static str {
    match r {
        NackReason::Congestion => "congestion",
        NackReason::Duplicate => "duplicate",
        NackReason::NoRoute => "no-route",
        NackReason::LinkLoss => "link-loss",
    }
}

fn nanos(d: Option<SimDuration>) -> Option<u64> {
    d.map(|d| d.nanos())
}

/// A Data arrived for an outstanding Interest.
#[pyclass(module = "ndncc._core", name = "DataEvent", frozen, get_all)]
pub struct PyDataEvent {
    now: u64,
    seq: u64,
    rtt: Option<u64>,
    srtt: Option<u64>,
    marked: bool,
    rate_stamp: f64,
    next_seq: u64,
    highest_received: u64,
    in_flight: u32,
    data_size: u32,
    interest_size: u32,
    route: u8,
}

impl From<&DataEvent> for PyDataEvent {
    fn from(e: &DataEvent) -> Self {
        PyDataEvent {
            now: e.now.0,
            seq: e.seq,
            rtt: nanos(e.rtt),
            srtt: nanos(e.srtt),
            marked: e.marked,
            rate_stamp: e.rate_stamp,
            next_seq: e.next_seq,
            highest_received: e.highest_received,
            in_flight: e.in_flight,
            data_size: e.data_size,
            interest_size: e.interest_size,
            route: e.route,
        }
    }
}

#[pymethods]
impl PyDataEvent {
    #[getter]
    fn now_s(&self) -> f64 {
        secs(self.now)
    }
    #[getter]
    fn rtt_s(&self) -> Option<f64> {
        self.rtt.map(secs)
    }
    #[getter]
    fn srtt_s(&self) -> Option<f64> {
        self.srtt.map(secs)
    }
    fn __repr__(&self) -> String {
        format!(
            "DataEvent(now={}, seq={}, rtt={:?}, srtt={:?}, marked={}, next_seq={}, highest_received={}, in_flight={})",
            self.now, self.seq, self.rtt, self.srtt, self.marked, self.next_seq, self.highest_received, self.in_flight
        )
    }
}

/// A timeout (`nack` is None) or a NACK for segment `seq`.
#[pyclass(module = "ndncc._core", name = "LossEvent", frozen, get_all)]
pub struct PyLossEvent {
    now: u64,
    seq: u64,
    nack: Option<&'static str>,
    marked: bool,
    next_seq: u64,
    highest_received: u64,
    in_flight: u32,
    srtt: Option<u64>,
}

impl From<&LossEvent> for PyLossEvent {
    fn from(e: &LossEvent) -> Self {
        PyLossEvent {
            now: e.now.0,
            seq: e.seq,
            nack: e.nack.map(reason_name),
            marked: e.marked,
            next_seq: e.next_seq,
            highest_received: e.highest_received,
            in_flight: e.in_flight,
            srtt: nanos(e.srtt),
        }
    }
}

#[pymethods]
impl PyLossEvent {
    #[getter]
    fn now_s(&self) -> f64 {
        secs(self.now)
    }
    #[getter]
    fn srtt_s(&self) -> Option<f64> {
        self.srtt.map(secs)
    }
    fn __repr__(&self) -> String {
        format!(
            "LossEvent(now={}, seq={}, nack={:?}, marked={}, next_seq={}, highest_received={}, in_flight={})",
            self.now, self.seq, self.nack, self.marked, self.next_seq, self.highest_received, self.in_flight
        )
    }
}

/// Data arrived for `seq` while the lower segment `hole`, sent before it, is still missing.
#[pyclass(module = "ndncc._core", name = "HoleEvent", frozen, get_all)]
pub struct PyHoleEvent {
    now: u64,
    seq: u64,
    hole: u64,
    next_seq: u64,
    highest_received: u64,
    in_flight: u32,
}

impl From<&HoleEvent> for PyHoleEvent {
    fn from(e: &HoleEvent) -> Self {
        PyHoleEvent {
            now: e.now.0,
            seq: e.seq,
            hole: e.hole,
            next_seq: e.next_seq,
            highest_received: e.highest_received,
            in_flight: e.in_flight,
        }
    }
}

#[pymethods]
impl PyHoleEvent {
    #[getter]
    fn now_s(&self) -> f64 {
        secs(self.now)
    }
    fn __repr__(&self) -> String {
        format!("HoleEvent(now={}, seq={}, hole={}, in_flight={})", self.now, self.seq, self.hole, self.in_flight)
    }
}

/// An Interest (first transmission or retransmission) just left the consumer.
#[pyclass(module = "ndncc._core", name = "SentEvent", frozen, get_all)]
pub struct PySentEvent {
    now: u64,
    seq: u64,
    retransmission: bool,
    in_flight: u32,
}

impl From<&SentEvent> for PySentEvent {
    fn from(e: &SentEvent) -> Self {
        PySentEvent { now: e.now.0, seq: e.seq, retransmission: e.retransmission, in_flight: e.in_flight }
    }
}

#[pymethods]
impl PySentEvent {
    #[getter]
    fn now_s(&self) -> f64 {
        secs(self.now)
    }
    fn __repr__(&self) -> String {
        format!(
            "SentEvent(now={}, seq={}, retransmission={}, in_flight={})",
            self.now, self.seq, self.retransmission, self.in_flight
        )
    }
}

pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<PyDataEvent>()?;
    m.add_class::<PyLossEvent>()?;
    m.add_class::<PyHoleEvent>()?;
    m.add_class::<PySentEvent>()
}
