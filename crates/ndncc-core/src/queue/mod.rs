//! Queue disciplines: what a face does with packets waiting for its transmitter.
//!
//! A discipline is a small state machine that is handed `now` on every call; it never reads a
//! clock. The face asks it for the next packet whenever the transmitter goes idle.
//!
//! ```text
//!  forwarder ──enqueue──▶ [ QueueDisc ] ──dequeue──▶ transmitter ──▶ link
//!                 │ tail drop                │ AQM drop (CoDel) / mark
//! ```
//!
//! Built-in disciplines: `droptail`, `codel` (RFC 8289, drops), `codel-mark` (PCON: CoDel's
//! schedule, marks instead of drops) and `nfd-mark` (NFD's queue-length marking). An Interest
//! shaper (`token_bucket`) can sit in front of any of them.

pub mod codel;
pub mod droptail;
pub mod nfd_mark;
pub mod token_bucket;

pub use codel::{Codel, CodelConfig, CodelMarkConfig, CodelMode, MarkOn};
pub use droptail::{DropTail, Limit};
pub use nfd_mark::{NfdMark, NfdMarkConfig};
pub use token_bucket::{ShaperConfig, ShaperPoll, TokenBucketShaper};

use serde::{Deserialize, Serialize};

use crate::plugin::{check, Check, Invalid, Plugin};

use crate::packet::Packet;
use crate::time::SimTime;

/// What happened to a packet offered to a queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Verdict {
    Queued,
    /// Tail drop: the queue was full. The caller counts it.
    Dropped,
}

/// A packet leaving the queue for the transmitter.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Dequeued {
    pub packet: Packet,
    /// The discipline decided to congestion-mark this packet.
    pub mark: bool,
}

/// The trait every queue discipline implements.
pub trait QueueDisc: Send {
    /// Offer a packet arriving at `now`.
    fn enqueue(&mut self, packet: Packet, now: SimTime) -> Verdict;
    /// The next packet to transmit at `now`, or `None` if empty. Packets an AQM drops while
    /// dequeuing are pushed to `dropped` so the face can count them.
    fn dequeue(&mut self, now: SimTime, dropped: &mut Vec<Packet>) -> Option<Dequeued>;
    /// Packets waiting.
    fn len_packets(&self) -> usize;
    /// Bytes waiting.
    fn len_bytes(&self) -> u64;
    /// True while the discipline is in its congested (marking) state. PCON's both-direction
    /// rule marks the PIT entry of an Interest sent on a face whose queue says so.
    fn is_congested(&self) -> bool {
        false
    }
}

crate::plugin_family! {
    /// `queue = { type = "...", ... }` on a link direction: which discipline and its parameters.
    pub enum QueueConfig -> AnyQueue {
        /// FIFO with tail drop. Exactly one of `packets` / `bytes`.
        "droptail" => Droptail(DropTailConfig),
        /// CoDel that drops (RFC 8289).
        "codel" => Codel(CodelConfig),
        /// CoDel that marks instead of dropping (PCON).
        "codel-mark" => CodelMark(CodelMarkConfig),
        /// FIFO with NFD's queue-length marking.
        "nfd-mark" => NfdMark(NfdMarkConfig),
    }
}

/// The largest queue limit [packets] (a limit is a bound, not an allocation; this one keeps a
/// full queue's memory within a few GB).
pub const MAX_QUEUE_PACKETS: u64 = 10_000_000;
/// The largest queue limit or threshold [bytes] (10 GB).
pub const MAX_QUEUE_BYTES: u64 = 10_000_000_000;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct DropTailConfig {
    /// Capacity in packets (default 100 when neither `packets` nor `bytes` is given).
    pub packets: Option<usize>,
    /// Capacity in bytes; use instead of `packets`.
    pub bytes: Option<crate::units::Bytes>,
}

impl Default for DropTailConfig {
    /// Both unset, meaning 100 packets; a file that gives only `bytes` then gets a byte limit.
    fn default() -> Self {
        DropTailConfig { packets: None, bytes: None }
    }
}

impl DropTailConfig {
    /// The limit these keys give.
    pub fn limit(&self) -> Result<Limit, Invalid> {
        match (self.packets, self.bytes) {
            (Some(_), Some(_)) => Err(Invalid::new("", "give the queue limit as `packets` or `bytes`, not both")),
            (None, Some(b)) => check::count("bytes", b.0, 1, MAX_QUEUE_BYTES).map(|_| Limit::Bytes(b.0)),
            (Some(p), None) => check::count("packets", p as u64, 1, MAX_QUEUE_PACKETS).map(|_| Limit::Packets(p)),
            (None, None) => Ok(Limit::Packets(100)),
        }
    }
}

impl Plugin for DropTailConfig {
    type Built = AnyQueue;
    fn validate(&self) -> Check {
        self.limit().map(|_| ())
    }
    fn build(&self) -> AnyQueue {
        // A valid config has a limit; an invalid one falls back to the default.
        AnyQueue::DropTail(DropTail::new(self.limit().unwrap_or(Limit::Packets(100))))
    }
}

impl Default for QueueConfig {
    fn default() -> Self {
        QueueConfig::Droptail(DropTailConfig::default())
    }
}

impl QueueConfig {
    /// The most packets of `packet_bytes` each this queue holds: its packet limit, or its byte
    /// limit over the packet size (a config that does not validate holds none).
    pub fn holds_packets(&self, packet_bytes: u64) -> u64 {
        let limit = match self {
            QueueConfig::Droptail(c) => c.limit(),
            QueueConfig::NfdMark(c) => c.limit(),
            QueueConfig::Codel(c) => Ok(Limit::Packets(c.limit)),
            QueueConfig::CodelMark(c) => Ok(Limit::Packets(c.limit)),
        };
        match limit {
            Ok(Limit::Packets(p)) => p as u64,
            Ok(Limit::Bytes(b)) => b / packet_bytes.max(1),
            Err(_) => 0,
        }
    }
}

/// A queue discipline chosen at build time. Built-ins are dispatched statically; `Custom` holds
/// a user plug-in behind the trait object. The AQMs, two and a half times DropTail's size, are
/// boxed, so that every face is no bigger than a DropTail face needs (a face's egress is read on
/// every packet it sends, and a smaller one spans fewer cache lines).
pub enum AnyQueue {
    DropTail(DropTail),
    Codel(Box<Codel>),
    NfdMark(Box<NfdMark>),
    Custom(Box<dyn QueueDisc>),
}

macro_rules! dispatch {
    ($self:ident, $q:ident => $e:expr) => {
        match $self {
            AnyQueue::DropTail($q) => $e,
            AnyQueue::Codel($q) => $e,
            AnyQueue::NfdMark($q) => $e,
            AnyQueue::Custom($q) => $e,
        }
    };
}

impl AnyQueue {
    /// The queue's limit in packets, when it has one (a drop-tail queue limited in packets).
    pub fn packet_limit(&self) -> Option<usize> {
        match self {
            AnyQueue::DropTail(q) => match q.limit() {
                droptail::Limit::Packets(p) => Some(p),
                droptail::Limit::Bytes(_) => None,
            },
            _ => None,
        }
    }

    /// True when this is an empty drop-tail FIFO that would take `packet`: it would hand the
    /// packet straight back to an idle transmitter, so the face may skip it. Only drop-tail
    /// qualifies; the AQMs keep state on every packet that passes them.
    #[inline]
    pub fn passes_straight_through(&self, packet: &Packet) -> bool {
        match self {
            AnyQueue::DropTail(q) => q.len_packets() == 0 && !q.limit().would_overflow(0, 0, packet.size),
            _ => false,
        }
    }
}

impl QueueDisc for AnyQueue {
    #[inline]
    fn enqueue(&mut self, packet: Packet, now: SimTime) -> Verdict {
        dispatch!(self, q => q.enqueue(packet, now))
    }
    #[inline]
    fn dequeue(&mut self, now: SimTime, dropped: &mut Vec<Packet>) -> Option<Dequeued> {
        dispatch!(self, q => q.dequeue(now, dropped))
    }
    #[inline]
    fn len_packets(&self) -> usize {
        dispatch!(self, q => q.len_packets())
    }
    #[inline]
    fn len_bytes(&self) -> u64 {
        dispatch!(self, q => q.len_bytes())
    }
    #[inline]
    fn is_congested(&self) -> bool {
        dispatch!(self, q => q.is_congested())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimDuration;
    use crate::units::{Bytes, Duration};

    #[derive(Debug, Deserialize)]
    #[serde(deny_unknown_fields)]
    struct Link {
        queue: QueueConfig,
    }

    fn parse(s: &str) -> Result<QueueConfig, String> {
        toml::from_str::<Link>(s).map(|l| l.queue).map_err(|e| e.to_string())
    }

    #[test]
    fn every_queue_type_reads_from_toml_and_fills_in_defaults() {
        assert_eq!(
            parse(r#"queue = { type = "droptail", bytes = "150KB" }"#).unwrap(),
            QueueConfig::Droptail(DropTailConfig { packets: None, bytes: Some(Bytes(150_000)) })
        );
        assert_eq!(
            parse(r#"queue = { type = "codel", target = "10ms" }"#).unwrap(),
            QueueConfig::Codel(CodelConfig { target: Duration::from_millis(10), ..CodelConfig::default() })
        );
        let q = parse(r#"queue = { type = "codel-mark", limit = 200, target = "5ms", interval = "100ms" }"#).unwrap();
        assert_eq!(q, QueueConfig::CodelMark(CodelMarkConfig::default()));
        assert_eq!(q.kind(), "codel-mark");
        let q = r#"queue = { type = "nfd-mark", threshold = "32KiB", rule = "nfd-0.6", decide_at = "enqueue" }"#;
        let q = parse(q).unwrap();
        assert_eq!(
            q,
            QueueConfig::NfdMark(NfdMarkConfig {
                threshold: Some(Bytes(32_768)),
                rule: nfd_mark::NfdRule::Nfd06,
                decide_at: nfd_mark::DecideAt::Enqueue,
                ..NfdMarkConfig::default()
            })
        );
        let mark = CodelMarkConfig::default();
        assert_eq!((mark.limit, mark.min_bytes, mark.spacing_factor), (200, Bytes(0), 1.1));
        let drop = CodelConfig::default();
        assert_eq!((drop.limit, drop.min_bytes, drop.spacing_factor), (1000, Bytes(1500), 1.0));
        assert_eq!(drop.interval.get(), SimDuration::from_millis(100));
    }

    #[test]
    fn an_unknown_key_is_rejected_for_every_queue_type() {
        for ty in ["droptail", "codel", "codel-mark", "nfd-mark"] {
            let err = parse(&format!(r#"queue = {{ type = "{ty}", targte = "5ms" }}"#)).unwrap_err();
            assert!(err.contains("targte"), "{ty}: {err}");
        }
        assert!(parse(r#"queue = { type = "red" }"#).is_err());
    }

    #[test]
    fn build_validates_and_dispatches_to_the_chosen_discipline() {
        let bad = QueueConfig::Codel(CodelConfig { limit: 0, ..CodelConfig::default() });
        assert_eq!(bad.validate().unwrap_err().key, "limit");
        for ty in ["droptail", "codel", "codel-mark", "nfd-mark"] {
            let cfg = parse(&format!(r#"queue = {{ type = "{ty}" }}"#)).unwrap();
            assert_eq!((cfg.validate(), cfg.kind()), (Ok(()), ty));
            let mut q = cfg.build();
            let p = Packet::interest(crate::packet::Name { prefix: crate::ids::NameId(0), seg: 7 }, 100, 0, 0);
            assert_eq!(q.enqueue(p, SimTime::ZERO), Verdict::Queued);
            assert_eq!((q.len_packets(), q.len_bytes()), (1, 100));
            let d = q.dequeue(SimTime::ZERO, &mut Vec::new()).unwrap();
            assert_eq!((d.packet.name().unwrap().seg, d.mark), (7, false));
            assert!(!q.is_congested());
        }
    }
}
