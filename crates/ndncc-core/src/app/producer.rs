//! Producer: answers every Interest under its prefix with a Data of a fixed size, optionally
//! after a processing delay.

use super::{AppCtx, Application};
use crate::packet::{NdnKind, Packet};
use crate::recorder::{Recorder, SummaryRow};
use crate::ring::Ring;
use crate::scenario::ProducerSpec;
use crate::time::{SimDuration, SimTime};
use crate::wire::ndn::{data_wire_size, wire_u32};

#[derive(Clone, Debug)]
pub struct ProducerParams {
    pub name: String,
    /// Payload bytes per Data (what a consumer counts as goodput).
    pub payload: u32,
    /// Header bytes added on the wire; `None`: the Data's real encoding.
    pub overhead: Option<u32>,
    pub processing_delay: SimDuration,
    /// FreshnessPeriod of every Data (zero = never stale).
    pub freshness: SimDuration,
}

impl ProducerParams {
    /// The settings of producer `name` as `spec` gives them (the one place their defaults live).
    pub fn from_spec(name: &str, spec: &ProducerSpec) -> ProducerParams {
        ProducerParams {
            name: name.to_owned(),
            payload: u32::try_from(spec.payload.0).unwrap_or(u32::MAX),
            overhead: spec.overhead.map(|o| u32::try_from(o.0).unwrap_or(u32::MAX)),
            processing_delay: spec.processing_delay.get(),
            freshness: spec.freshness.get(),
        }
    }
}

pub struct Producer {
    p: ProducerParams,
    /// Data waiting out the processing delay, in the order they become ready.
    pending: Ring<(SimTime, Packet)>,
    interests_received: u64,
    data_sent: u64,
}

impl Producer {
    pub fn new(p: ProducerParams) -> Producer {
        Producer { p, pending: Ring::new(), interests_received: 0, data_sent: 0 }
    }
    fn flush(&mut self, ctx: &mut AppCtx) {
        while let Some((t, d)) = self.pending.front().copied() {
            if t > ctx.now {
                ctx.wake_at(t);
                break;
            }
            self.pending.pop_front();
            self.data_sent += 1;
            ctx.send(d);
        }
    }
}

impl Application for Producer {
    fn on_start(&mut self, _ctx: &mut AppCtx) {}
    fn on_packet(&mut self, ctx: &mut AppCtx, packet: &Packet) {
        let Some(interest) = packet.ndn().filter(|h| h.kind == NdnKind::Interest) else { return };
        self.interests_received += 1;
        let freshness = self.p.freshness.nanos();
        let size = match (self.p.overhead, ctx.names) {
            (Some(overhead), _) => self.p.payload.saturating_add(overhead),
            (None, names) => {
                // Outside a world (unit tests) the name's prefix is unknown: it counts as empty.
                let prefix = names.map_or(&[][..], |n| n.components(interest.name.prefix));
                let payload = usize::try_from(self.p.payload).unwrap_or(usize::MAX);
                wire_u32(data_wire_size(prefix, interest.name.seg, freshness, payload))
            }
        };
        let mut data = Packet::data_for(interest, size);
        if let Some(h) = data.ndn_mut() {
            h.lifetime_ns = freshness;
        }
        if self.p.processing_delay == SimDuration::ZERO {
            self.data_sent += 1;
            ctx.send(data);
        } else {
            self.pending.push_back((ctx.now + self.p.processing_delay, data));
            self.flush(ctx);
        }
    }
    fn on_wake(&mut self, ctx: &mut AppCtx) {
        self.flush(ctx);
    }
    fn sample(&self, _now: SimTime, _recorder: &mut Recorder) {}
    fn summary(&self, _end: SimTime, out: &mut Vec<SummaryRow>) {
        let n = &self.p.name;
        out.push(SummaryRow::new(n, "producer", "interests_received", self.interests_received as f64, "packets"));
        out.push(SummaryRow::new(n, "producer", "data_sent", self.data_sent as f64, "packets"));
    }
}
