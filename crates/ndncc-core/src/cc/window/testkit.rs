//! Event builders for the controllers' unit tests: plain events at a given millisecond, to be
//! adjusted with struct-update syntax (`DataEvent { marked: true, ..data(5, 3) }`).

use crate::cc::{DataEvent, HoleEvent, LossEvent};
use crate::packet::NackReason;
use crate::time::{SimDuration, SimTime};

/// An unmarked 1,024-byte Data for segment `seq` at `now_ms`, with a 100 ms RTT sample and srtt;
/// segments up to `seq` received, 10 requested.
pub fn data(now_ms: u64, seq: u64) -> DataEvent {
    DataEvent {
        now: SimTime(SimDuration::from_millis(now_ms).0),
        seq,
        rtt: Some(SimDuration::from_millis(100)),
        srtt: Some(SimDuration::from_millis(100)),
        marked: false,
        rate_stamp: f64::INFINITY,
        next_seq: seq.max(9) + 1,
        highest_received: seq,
        in_flight: 0,
        data_size: 1024,
        interest_size: 40,
        route: 0,
    }
}

/// A timeout of segment `seq` at `now_ms`; 20 segments requested, up to 9 received.
pub fn timeout(now_ms: u64, seq: u64) -> LossEvent {
    LossEvent {
        now: SimTime(SimDuration::from_millis(now_ms).0),
        seq,
        nack: None,
        marked: false,
        next_seq: 20,
        highest_received: 9,
        in_flight: 0,
        srtt: Some(SimDuration::from_millis(100)),
    }
}

/// A NACK with `reason` for segment `seq` at `now_ms`; otherwise as `timeout`.
pub fn nack(now_ms: u64, seq: u64, reason: NackReason, marked: bool) -> LossEvent {
    LossEvent { nack: Some(reason), marked, ..timeout(now_ms, seq) }
}

/// Data for `seq` at `now_ms` revealed the missing segment `hole`.
pub fn hole(now_ms: u64, seq: u64, hole: u64) -> HoleEvent {
    HoleEvent {
        now: SimTime(SimDuration::from_millis(now_ms).0),
        seq,
        hole,
        next_seq: 20,
        highest_received: seq,
        in_flight: 0,
    }
}
