//! The NDN forwarder of a node: Interest (modules → CS → PIT → FIB → strategy → modules → face),
//! Data (PIT → modules → strategy → CS → every downstream), NACK (PIT → modules → strategy →
//! downstream), and PIT expiry.

use smallvec::SmallVec;

use super::{Event, World};
use crate::forwarder::fib::NextHop;
use crate::forwarder::pit::{InRecord, OutRecord, PitEntry, PitInterest, PitLookup};
use crate::forwarder::strategy::{FaceList, StrategyCtx};
use crate::ids::{FaceId, NodeId};
use crate::module::{Intake, InterestVerdict};
use crate::packet::{NackReason, NdnKind, Packet};
use crate::time::SimDuration;

/// PIT sweeps are rounded up to this grain so a busy node sweeps at most once per grain. An
/// entry past its expiry is also expired on lookup, so the grain only delays the strategy's
/// `on_pit_expired` notice, never the forwarding decisions.
const PIT_SWEEP_GRAIN: SimDuration = SimDuration::from_millis(10);

impl World {
    /// An NDN packet arrives at `node` on `in_face`.
    pub(super) fn ndn_receive(&mut self, node: NodeId, in_face: FaceId, packet: &mut Packet) {
        let Some(h) = packet.ndn() else { return };
        let (kind, name) = (h.kind, h.name);
        let now = self.now();
        // An expired entry expires before the packet is handled. (A Data takes its entry out of
        // the PIT in one lookup and checks it there.) The lookup that finds it is the packet's
        // only one: the entry is handled where it lies from here on.
        let mut looked = PitLookup { name, found: None };
        if kind != NdnKind::Data {
            let pit = &mut self.nodes[node.idx()].pit;
            looked = pit.lookup(&name);
            if looked.found.and_then(|r| pit.at(r)).is_some_and(|e| e.expiry <= now) {
                looked.found = None;
                if let Some(stale) = pit.remove(&name) {
                    self.expire_entry(node, &stale);
                }
            }
        }
        match kind {
            NdnKind::Interest => self.on_interest(node, in_face, packet, looked),
            NdnKind::Data => self.on_data(node, in_face, packet),
            NdnKind::Nack(r) => self.on_nack(node, in_face, *packet, r, looked),
        }
    }

    fn nack_to(&mut self, face: FaceId, interest: &Packet, reason: NackReason) {
        let mut nack = Packet::nack_for(interest, reason);
        self.send_on_face(face, &mut nack);
    }

    /// An Interest arrives; `looked` is what the PIT held for its name as it arrived.
    fn on_interest(&mut self, node: NodeId, in_face: FaceId, pkt: &mut Packet, looked: PitLookup) {
        let now = self.now();
        if !self.nodes[node.idx()].modules.is_empty() {
            let taken =
                self.each_module(node, |m, ctx| (m.on_interest_in(ctx, in_face, pkt) == Intake::Absorb).then_some(()));
            if taken.is_some() {
                return;
            }
        }
        let Some(&h) = pkt.ndn() else { return };
        let n = &mut self.nodes[node.idx()];
        if let Some(cs) = n.cs.as_mut() {
            if let Some(mut d) = cs.lookup(&h.name, now) {
                n.counters.cs_hits += 1;
                if let Some(dh) = d.ndn_mut() {
                    dh.nonce = h.nonce;
                }
                d.step_route(in_face);
                self.send_on_face(in_face, &mut d);
                return;
            }
        }
        let expiry = now + SimDuration(h.lifetime_ns);
        let name = h.name;
        // The route is looked up before the PIT entry is made or updated, so the entry gets it
        // at once (a lookup has no effect but on the FIB's own cache).
        let fib_entry = n.fib.lookup(name.prefix, &self.names);
        // A module may have renamed the Interest.
        let entry = n.pit.locate(looked, &name).and_then(|r| n.pit.at_mut_with_interest(r).map(|ek| (r, ek)));
        let at = if let Some((r, (e, kept))) = entry {
            if e.has_nonce(h.nonce) {
                n.counters.duplicates += 1;
                let same = e.in_records.iter().any(|r| r.face == in_face && r.nonce == h.nonce);
                if !same {
                    self.nack_to(in_face, pkt, NackReason::Duplicate);
                }
                return;
            }
            let known = match e.in_record_mut(in_face) {
                Some(r) => {
                    r.nonce = h.nonce;
                    r.expiry = expiry;
                    true
                }
                None => {
                    e.in_records.push(InRecord { face: in_face, nonce: h.nonce, expiry });
                    false
                }
            };
            *kept = PitInterest::of(pkt, &h);
            let refreshed = expiry > e.expiry;
            if refreshed {
                e.expiry = expiry;
            }
            let aggregate = !known && !e.out_records.is_empty();
            if !aggregate && fib_entry.is_some() {
                // The entry is forwarded again: by the route of now.
                e.fib_entry = fib_entry;
            }
            if refreshed {
                n.pit.note_expiry(name, expiry);
            }
            if aggregate {
                // Another downstream already asked: aggregate.
                n.counters.aggregated += 1;
                return;
            }
            PitLookup { name, found: Some(r) }
        } else {
            let mut in_records = SmallVec::new();
            in_records.push(InRecord { face: in_face, nonce: h.nonce, expiry });
            let entry = PitEntry { in_records, out_records: SmallVec::new(), expiry, marked: false, fib_entry };
            let r = n.pit.insert(name, entry, PitInterest::of(pkt, &h));
            self.ensure_pit_sweep(node);
            r
        };
        let n = &mut self.nodes[node.idx()];
        let Some(fe) = fib_entry else {
            self.no_route(node, in_face, pkt);
            return;
        };
        // The strategy sees the entry's next hops but the Interest's own face. That face is
        // rarely among them, and then the entry's list is handed over as it is, uncopied.
        let all = &n.fib.entry(fe).nexthops;
        let filtered: SmallVec<[NextHop; 4]>;
        let nexthops = if all.iter().any(|h| h.face == in_face) {
            filtered = all.iter().filter(|h| h.face != in_face).copied().collect();
            &filtered[..]
        } else {
            &all[..]
        };
        let mut out = FaceList::new();
        {
            let mut ctx = StrategyCtx { now, node, rng: &mut n.rng, faces: &self.faces };
            n.strategy.get().choose(&mut ctx, pkt, in_face, fe, nexthops, &mut out);
        }
        if out.is_empty() {
            self.no_route(node, in_face, pkt);
            return;
        }
        // Each face gets the Interest as it arrived; the last takes it in place rather than a copy.
        let Some((&last, others)) = out.split_last() else { return };
        for &face in others {
            let mut copy = *pkt;
            self.forward_interest(node, face, &mut copy, at);
        }
        self.forward_interest(node, last, pkt, at);
    }

    fn no_route(&mut self, node: NodeId, in_face: FaceId, pkt: &Packet) {
        let Some(name) = pkt.ndn().map(|h| h.name) else { return };
        let n = &mut self.nodes[node.idx()];
        n.counters.no_route += 1;
        if let Some(e) = n.pit.get_mut(&name) {
            e.in_records.retain(|r| r.face != in_face);
            if e.in_records.is_empty() && e.out_records.is_empty() {
                n.pit.remove(&name);
            }
        }
        self.nack_to(in_face, pkt, NackReason::NoRoute);
    }

    /// Send an Interest on `out_face` after the router modules have seen it; `at` is its PIT
    /// entry.
    fn forward_interest(&mut self, node: NodeId, out_face: FaceId, p: &mut Packet, at: PitLookup) {
        let now = self.now();
        let mut verdict = InterestVerdict::Send;
        if !self.nodes[node.idx()].modules.is_empty() {
            verdict = self
                .each_module(node, |m, ctx| {
                    let v = m.on_interest_out(ctx, out_face, p);
                    (v != InterestVerdict::Send).then_some(v)
                })
                .unwrap_or(InterestVerdict::Send);
        }
        let Some(&h) = p.ndn() else { return };
        let n = &mut self.nodes[node.idx()];
        // A module may have renamed the Interest; the entry may be gone, answered by the NACK
        // of an earlier out-face.
        let at = n.pit.locate(at, &h.name);
        let Some(e) = at.and_then(|r| n.pit.at_mut(r)) else { return };
        match e.out_record_mut(out_face) {
            Some(r) => {
                r.nonce = h.nonce;
                r.sent_at = now;
                if r.nacked.take().is_some() {
                    self.faces[out_face.idx()].pending_interests += 1;
                }
            }
            None => {
                e.out_records.push(OutRecord { face: out_face, nonce: h.nonce, sent_at: now, nacked: None });
                self.faces[out_face.idx()].pending_interests += 1;
            }
        }
        match verdict {
            InterestVerdict::Send => {}
            InterestVerdict::Reject(reason) => {
                let nack = Packet::nack_for(p, reason);
                self.on_nack(node, out_face, nack, reason, PitLookup { name: h.name, found: at });
                return;
            }
            InterestVerdict::Hold => return,
        }
        let mark_entry = {
            let mut ctx = StrategyCtx { now, node, rng: &mut n.rng, faces: &self.faces };
            n.strategy.get().after_send_interest(&mut ctx, out_face, p)
        };
        if mark_entry {
            if let Some(e) = at.and_then(|r| n.pit.at_mut(r)) {
                e.marked = true;
            }
        }
        self.send_on_face(out_face, p);
    }

    /// An Interest a module held for `face` is refused: handled as a NACK from that face.
    pub(super) fn refuse_held_interest(&mut self, face: FaceId, interest: Packet, reason: NackReason) {
        let node = self.faces[face.idx()].node;
        let nack = Packet::nack_for(&interest, reason);
        let Some(h) = interest.ndn() else { return };
        let looked = self.nodes[node.idx()].pit.lookup(&h.name);
        self.on_nack(node, face, nack, reason, looked);
    }

    fn on_data(&mut self, node: NodeId, in_face: FaceId, data: &mut Packet) {
        let now = self.now();
        let Some(&h) = data.ndn() else { return };
        let n = &mut self.nodes[node.idx()];
        let Some(entry) = n.pit.remove(&h.name) else {
            n.counters.unsolicited_data += 1;
            return;
        };
        if entry.expiry <= now {
            // The entry had expired: it expires now, and the Data answers nothing.
            self.expire_entry(node, &entry);
            self.nodes[node.idx()].counters.unsolicited_data += 1;
            return;
        }
        for r in &entry.out_records {
            if r.nacked.is_none() {
                let f = &mut self.faces[r.face.idx()];
                f.pending_interests = f.pending_interests.saturating_sub(1);
            }
        }
        let rtt = entry.out_records.iter().find(|r| r.face == in_face).map(|r| now.saturating_since(r.sent_at));
        if !n.modules.is_empty() {
            self.each_module(node, |m, ctx| {
                m.on_data_in(ctx, in_face, data, rtt);
                None::<()>
            });
        }
        let n = &mut self.nodes[node.idx()];
        {
            let mut ctx = StrategyCtx { now, node, rng: &mut n.rng, faces: &self.faces };
            n.strategy.get().on_data(&mut ctx, data, in_face, entry.fib_entry);
        }
        if let Some(cs) = n.cs.as_mut() {
            cs.insert(data, now);
        }
        for (k, rec) in entry.in_records.iter().enumerate() {
            if rec.expiry < now || rec.face == in_face {
                continue;
            }
            // The last downstream takes the Data in place rather than a copy.
            let mut copy;
            let d = if k + 1 == entry.in_records.len() {
                &mut *data
            } else {
                copy = *data;
                &mut copy
            };
            if let Some(dh) = d.ndn_mut() {
                dh.nonce = rec.nonce;
            }
            if entry.marked {
                d.mark = d.mark.max(1);
            }
            if !self.nodes[node.idx()].modules.is_empty() {
                self.each_module(node, |m, ctx| {
                    m.on_data_out(ctx, in_face, rec.face, d);
                    None::<()>
                });
            }
            d.step_route(rec.face);
            self.send_on_face(rec.face, d);
        }
    }

    /// A NACK arrives on `in_face`; `looked` is what the PIT held for its name.
    fn on_nack(&mut self, node: NodeId, in_face: FaceId, pkt: Packet, reason: NackReason, looked: PitLookup) {
        let now = self.now();
        let Some(name) = pkt.ndn().map(|h| h.name) else { return };
        let n = &mut self.nodes[node.idx()];
        let Some(at) = n.pit.locate(looked, &name) else { return };
        let Some(e) = n.pit.at_mut(at) else { return };
        let Some(r) = e.out_record_mut(in_face) else { return };
        if r.nacked.is_none() {
            r.nacked = Some(reason);
            let f = &mut self.faces[in_face.idx()];
            f.pending_interests = f.pending_interests.saturating_sub(1);
        }
        let mut nack = pkt;
        if !n.modules.is_empty() {
            self.each_module(node, |m, ctx| {
                m.on_nack_in(ctx, in_face, &mut nack);
                None::<()>
            });
        }
        let n = &mut self.nodes[node.idx()];
        let Some((e, kept)) = n.pit.at_with_interest(at) else { return };
        let mut interest = kept.packet(name);
        let fib_entry = e.fib_entry;
        let untried: SmallVec<[NextHop; 4]> = match fib_entry {
            Some(fe) => n
                .fib
                .entry(fe)
                .nexthops
                .iter()
                .filter(|h| {
                    !e.out_records.iter().any(|o| o.face == h.face) && !e.in_records.iter().any(|i| i.face == h.face)
                })
                .copied()
                .collect(),
            None => SmallVec::new(),
        };
        let retry = {
            let mut ctx = StrategyCtx { now, node, rng: &mut n.rng, faces: &self.faces };
            n.strategy.get().on_nack(&mut ctx, &nack, in_face, fib_entry, &untried)
        };
        if let Some(f) = retry {
            self.forward_interest(node, f, &mut interest, PitLookup { name, found: Some(at) });
            return;
        }
        let n = &mut self.nodes[node.idx()];
        if !n.pit.at(at).is_some_and(|e| e.all_nacked()) {
            return;
        }
        let Some((e, kept)) = n.pit.remove_with_interest(&name) else { return };
        let interest = kept.packet(name);
        for rec in &e.in_records {
            let mut down = Packet::nack_for(&interest, reason);
            if let Some(dh) = down.ndn_mut() {
                dh.nonce = rec.nonce;
            }
            down.mark = nack.mark;
            self.send_on_face(rec.face, &mut down);
        }
    }

    /// Schedule a sweep of `node`'s PIT at its earliest expiry, unless one comes sooner. Inline:
    /// every new entry asks.
    #[inline]
    fn ensure_pit_sweep(&mut self, node: NodeId) {
        let n = &mut self.nodes[node.idx()];
        let Some(t) = n.pit.next_expiry() else { return };
        let t = t.ceil_to(PIT_SWEEP_GRAIN);
        if n.pit_sweep_at.is_none_or(|s| t < s) {
            n.pit_sweep_at = Some(t);
            self.queue.schedule_irregular(t, Event::PitSweep { node });
        }
    }

    pub(super) fn on_pit_sweep(&mut self, node: NodeId) {
        let now = self.now();
        let n = &mut self.nodes[node.idx()];
        if n.pit_sweep_at.is_some_and(|s| s <= now) {
            n.pit_sweep_at = None;
        }
        let mut expired = std::mem::take(&mut self.expired);
        n.pit.take_expired(now, &mut expired);
        for (_, e) in &expired {
            self.expire_entry(node, e);
        }
        expired.clear();
        self.expired = expired;
        self.ensure_pit_sweep(node);
    }

    /// An entry expired without Data: release its pending counts and tell the strategy.
    fn expire_entry(&mut self, node: NodeId, e: &PitEntry) {
        let now = self.now();
        let n = &mut self.nodes[node.idx()];
        n.counters.pit_expired += 1;
        let mut out_faces: SmallVec<[FaceId; 4]> = SmallVec::new();
        for r in &e.out_records {
            if r.nacked.is_none() {
                let f = &mut self.faces[r.face.idx()];
                f.pending_interests = f.pending_interests.saturating_sub(1);
                out_faces.push(r.face);
            }
        }
        let mut ctx = StrategyCtx { now, node, rng: &mut n.rng, faces: &self.faces };
        n.strategy.get().on_pit_expired(&mut ctx, &out_faces, e.fib_entry);
    }
}
