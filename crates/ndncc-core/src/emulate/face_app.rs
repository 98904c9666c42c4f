//! The application on a node that stands for a real application's connection: what the
//! connection sends, the driver decodes into engine packets and leaves in the slot's inbox,
//! and this app hands them to its node when woken; what the node sends to its face, it writes
//! as bytes into the slot's outbox, for the driver to send on the connection.
//!
//! A packet that came from a real application leaves as the bytes it came as (from the
//! store); one a simulated application made is written from its engine fields: a simulated
//! producer's Data holds zeros, as its simulated content does.

use std::sync::Arc;

use super::bridge::{Bridge, Forwarded, Slot};
use super::store::WireStore;
use crate::app::{AppCtx, Application};
use crate::names::NameTable;
use crate::packet::{Name, Ndn, NdnKind, Packet};
use crate::recorder::{SummaryRow, Unit};
use crate::time::SimTime;
use crate::wire::decode::MAX_PACKET_SIZE;
use crate::wire::encode;
use crate::wire::name::{from_engine, NO_SEGMENT};
use crate::wire::ndn::{data_wire_size, nack_reason_code};

pub struct FaceApp {
    name: String,
    slot: usize,
    bridge: Bridge,
}

impl FaceApp {
    pub fn new(name: String, slot: usize, bridge: Bridge) -> FaceApp {
        FaceApp { name, slot, bridge }
    }
}

/// Milliseconds of a duration in nanoseconds, rounded up (a positive one never becomes 0);
/// `None` for zero.
fn millis(ns: u64) -> Option<u64> {
    (ns > 0).then(|| ns.div_ceil(1_000_000))
}

/// The real Interest for an engine Interest: the one that came, or one written from its
/// fields.
fn interest_bytes(store: &WireStore, names: Option<&NameTable>, h: &Ndn) -> (Arc<[u8]>, bool) {
    if let Some(i) = store.interest(h.name, h.nonce) {
        return (i.bytes.clone(), i.can_be_prefix);
    }
    let name = engine_name(names, h.name);
    (Arc::from(encode::interest(&name, h.nonce, millis(h.lifetime_ns), false, false)), false)
}

fn engine_name(names: Option<&NameTable>, name: Name) -> Vec<crate::wire::name::Component> {
    let prefix: &[compact_str::CompactString] = names.map_or(&[], |n| n.components(name.prefix));
    from_engine(prefix, name.seg)
}

/// A simulated producer's Data as bytes: its content is as long as its engine size leaves for
/// it (zeros), within the largest packet an application reads.
fn synthetic_data(names: Option<&NameTable>, h: &Ndn, size: u32) -> Vec<u8> {
    let prefix: &[compact_str::CompactString] = names.map_or(&[], |n| n.components(h.name.prefix));
    let seg = if h.name.seg == NO_SEGMENT { 0 } else { h.name.seg };
    let size = usize::try_from(size).unwrap_or(usize::MAX).min(MAX_PACKET_SIZE);
    let mut payload = size.saturating_sub(data_wire_size(prefix, seg, h.lifetime_ns, 0));
    // Longer content can lengthen its length field: step back to what fits.
    while payload > 0 && data_wire_size(prefix, seg, h.lifetime_ns, payload) > size {
        payload -= 1;
    }
    encode::data(&engine_name(names, h.name), millis(h.lifetime_ns), &vec![0u8; payload])
}

fn deliver(slot: &mut Slot, bytes: Vec<u8>, now: SimTime) {
    slot.counters.bytes_out += bytes.len() as u64;
    slot.outbox.push((bytes, now));
}

impl Application for FaceApp {
    fn on_start(&mut self, _ctx: &mut AppCtx) {}

    fn on_wake(&mut self, ctx: &mut AppCtx) {
        let mut shared = self.bridge.lock();
        for p in shared.slots[self.slot].inbox.drain(..) {
            ctx.send(p);
        }
    }

    fn on_packet(&mut self, ctx: &mut AppCtx, packet: &Packet) {
        let Some(h) = packet.ndn() else { return };
        let mark = u64::from(packet.mark);
        let mut shared = self.bridge.lock();
        let shared = &mut *shared;
        let slot = &mut shared.slots[self.slot];
        if slot.conn.is_none() {
            slot.counters.orphaned += 1;
            return;
        }
        match h.kind {
            NdnKind::Interest => {
                let (bytes, can_be_prefix) = interest_bytes(&shared.store, ctx.names, h);
                let real_name = match shared.store.interest(h.name, h.nonce) {
                    Some(i) => i.name.clone(),
                    None => engine_name(ctx.names, h.name),
                };
                let until = ctx.now + crate::time::SimDuration(h.lifetime_ns);
                slot.forwarded.push(Forwarded { interest: *packet, real_name, can_be_prefix, until });
                slot.counters.interests_out += 1;
                deliver(slot, encode::to_app(&bytes, None, mark), ctx.now);
            }
            NdnKind::Data => {
                if slot.asked.remove(&h.name).is_none() {
                    slot.counters.orphaned += 1;
                    return;
                }
                let bytes = match shared.store.data(h.name) {
                    Some(b) => encode::to_app(b, None, mark),
                    None => encode::to_app(&synthetic_data(ctx.names, h, packet.size), None, mark),
                };
                slot.counters.data_out += 1;
                deliver(slot, bytes, ctx.now);
            }
            NdnKind::Nack(reason) => {
                if slot.asked.remove(&h.name).is_none() {
                    slot.counters.orphaned += 1;
                    return;
                }
                let (bytes, _) = interest_bytes(&shared.store, ctx.names, h);
                slot.counters.nacks_out += 1;
                deliver(slot, encode::to_app(&bytes, Some(nack_reason_code(reason)), mark), ctx.now);
            }
        }
    }

    fn summary(&self, _end: SimTime, out: &mut Vec<SummaryRow>) {
        let shared = self.bridge.lock();
        let c = shared.slots[self.slot].counters;
        if c.connections == 0 {
            return;
        }
        let n = &self.name;
        let mut row = |m: &str, v: u64, unit: Unit| out.push(SummaryRow::new(n, "real_app", m, v as f64, unit));
        row("connections", c.connections, Unit::Count);
        row("interests_in", c.interests_in, Unit::Packets);
        row("data_in", c.data_in, Unit::Packets);
        row("nacks_in", c.nacks_in, Unit::Packets);
        row("interests_out", c.interests_out, Unit::Packets);
        row("data_out", c.data_out, Unit::Packets);
        row("nacks_out", c.nacks_out, Unit::Packets);
        row("bytes_in", c.bytes_in, Unit::Bytes);
        row("bytes_out", c.bytes_out, Unit::Bytes);
        row("unsolicited_data", c.unsolicited, Unit::Packets);
        row("orphaned", c.orphaned, Unit::Packets);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recorder::{EventSamples, Recorder};
    use crate::wire::decode::{frame, NetPacket};

    #[test]
    fn a_simulated_data_fills_its_engine_size_with_zeros() {
        let mut names = NameTable::default();
        let prefix = names.intern("/p");
        let h = Ndn {
            kind: NdnKind::Data,
            name: Name { prefix, seg: 3 },
            nonce: 1,
            lifetime_ns: 1_000_000,
            rate: f64::INFINITY,
        };
        let size = crate::wire::ndn::data_wire_size(&["p".into()], 3, 1_000_000, 1000);
        let b = synthetic_data(Some(&names), &h, u32::try_from(size).unwrap());
        let NetPacket::Data(d) = frame(&b).unwrap().unwrap().packet else { panic!("a Data") };
        assert_eq!((d.content_len, d.freshness_ms), (1000, Some(1)));
    }

    #[test]
    fn packets_for_a_slot_without_a_connection_are_dropped_and_counted() {
        let bridge = Bridge::new(1);
        let mut app = FaceApp::new("ext0.0".into(), 0, bridge.clone());
        let (mut out, mut rec) = (Vec::new(), Recorder::new(EventSamples::Skipped));
        let mut ctx = AppCtx::new(SimTime::ZERO, &mut out, &mut rec);
        let p = Packet::interest(Name { prefix: crate::ids::NameId(0), seg: 0 }, 40, 1, 1_000);
        app.on_packet(&mut ctx, &p);
        assert_eq!(bridge.lock().slots[0].counters.orphaned, 1);
        assert!(bridge.lock().slots[0].outbox.is_empty());
    }
}
