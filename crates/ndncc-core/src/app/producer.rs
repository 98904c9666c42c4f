//! Producer: answers every Interest under its prefix with a Data of a fixed size, optionally
//! after a processing delay.

use super::{AppCtx, Application};
use crate::names::NameTable;
use crate::packet::{Name, NdnKind, Packet};
use crate::recorder::{Recorder, SummaryRow, Unit};
use crate::ring::Ring;
use crate::time::{SimDuration, SimTime};
use crate::wire::ndn::{data_wire_size, wire_u32};
use crate::wire::tlv::nonneg_width_class;

/// A producer's payload when none is given [bytes].
pub const DEFAULT_PAYLOAD_BYTES: u64 = 1024;

#[derive(Clone, Debug)]
pub struct ProducerParams {
    pub name: compact_str::CompactString,
    /// Payload bytes per Data (what a consumer counts as goodput).
    pub payload: u32,
    /// Header bytes added on the wire; `None`: the Data's real encoding.
    pub overhead: Option<u32>,
    pub processing_delay: SimDuration,
    /// FreshnessPeriod of every Data (zero = never stale).
    pub freshness: SimDuration,
}

pub struct Producer {
    p: ProducerParams,
    /// Data waiting out the processing delay, in the order they become ready.
    pending: Ring<(SimTime, Packet)>,
    /// Encoded Data sizes by name prefix and by the byte width of the segment number (1, 2, 4
    /// or 8 bytes), 0 until first needed. Payload and freshness are fixed, so a Data's size
    /// depends on its name only through these two; a producer serving a thousand prefixes
    /// would otherwise measure every Data's encoding.
    encoded_sizes: Vec<[u32; 4]>,
    interests_received: u64,
    data_sent: u64,
}

impl Producer {
    pub fn new(p: ProducerParams) -> Producer {
        Producer { p, pending: Ring::new(), encoded_sizes: Vec::new(), interests_received: 0, data_sent: 0 }
    }

    /// The encoded size of the Data for `name`, worked out once per prefix and segment-number
    /// width.
    fn encoded_data_size(&mut self, names: &NameTable, name: Name) -> u32 {
        let at = name.prefix.idx();
        if self.encoded_sizes.len() <= at {
            self.encoded_sizes.resize(at + 1, [0; 4]);
        }
        let width = nonneg_width_class(name.seg);
        if self.encoded_sizes[at][width] == 0 {
            self.encoded_sizes[at][width] = self.measured_data_size(names.components(name.prefix), name.seg);
        }
        self.encoded_sizes[at][width]
    }

    /// The size of the Data for segment `seg` under `prefix`, measured on its encoding.
    fn measured_data_size(&self, prefix: &[compact_str::CompactString], seg: u64) -> u32 {
        let payload = usize::try_from(self.p.payload).unwrap_or(usize::MAX);
        wire_u32(data_wire_size(prefix, seg, self.p.freshness.nanos(), payload))
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
            (None, Some(names)) => self.encoded_data_size(names, interest.name),
            // Outside a world (unit tests) the name's prefix is unknown: it counts as empty.
            (None, None) => self.measured_data_size(&[], interest.name.seg),
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
    /// It samples nothing, so the world need not visit it at each tick.
    fn samples_change_only_in_hooks(&self) -> bool {
        true
    }
    fn summary(&self, _end: SimTime, out: &mut Vec<SummaryRow>) {
        let n = &self.p.name;
        out.push(SummaryRow::new(n, "producer", "interests_received", self.interests_received as f64, Unit::Packets));
        out.push(SummaryRow::new(n, "producer", "data_sent", self.data_sent as f64, Unit::Packets));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::names::components;
    use crate::recorder::EventSamples;

    /// Each Data's size is its full encoding, whatever prefix and segment-number width came
    /// before it: the sizes kept per (prefix, width) never answer for another.
    #[test]
    fn a_data_is_sized_by_its_own_prefix_and_segment_width() {
        let mut names = NameTable::default();
        let short = names.intern("/p");
        let long = names.intern("/a/much/longer/prefix");
        let params = ProducerParams {
            name: "P".into(),
            payload: DEFAULT_PAYLOAD_BYTES as u32,
            overhead: None,
            processing_delay: SimDuration::ZERO,
            freshness: SimDuration::ZERO,
        };
        let mut producer = Producer::new(params);
        let mut rec = Recorder::new(EventSamples::Skipped);
        let freshness = producer.p.freshness.nanos();
        let payload = usize::try_from(producer.p.payload).unwrap_or(usize::MAX);
        for (prefix, seg) in [(short, 7), (long, 7), (short, 300), (long, 70_000), (short, 8), (long, 1 << 40)] {
            let mut out = Vec::new();
            let mut ctx = AppCtx::new(SimTime::ZERO, &mut out, &mut rec).with_names(&names);
            producer.on_packet(&mut ctx, &Packet::interest(Name { prefix, seg }, 40, 1, 4_000_000_000));
            let want = data_wire_size(&components(names.name(prefix)), seg, freshness, payload);
            assert_eq!(out.len(), 1);
            assert_eq!(out[0].size as usize, want, "{} seg {seg}", names.name(prefix));
        }
    }
}
