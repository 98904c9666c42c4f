//! The NDN forwarder of a node: Interest (modules → CS → PIT → FIB → strategy → modules → face),
//! Data (PIT → modules → strategy → CS → every downstream), NACK (PIT → modules → strategy →
//! downstream), and PIT expiry.

use smallvec::SmallVec;

use super::effects::Effects;
use super::network::NO_PIT_SWEEP;
use super::Network;
use crate::forwarder::fib::NextHop;
use crate::forwarder::pit::{InRecord, OutRecord, PitEntry, PitInterest, PitLookup};
use crate::forwarder::strategy::{DataEvent, ExpiryEvent, FaceList, InterestEvent, NackEvent, StrategyCtx};
use crate::ids::{FaceId, NodeId};
use crate::module::{Intake, InterestVerdict};
use crate::packet::{NackReason, NdnKind, Packet};
use crate::time::SimDuration;

/// PIT sweeps are rounded up to this grain so a busy node sweeps at most once per grain. An
/// entry past its expiry is also expired on lookup, so the grain only delays the strategy's
/// `on_pit_expired` notice, never the forwarding decisions.
const PIT_SWEEP_GRAIN: SimDuration = SimDuration::from_millis(10);

/// An NDN packet arrives at `node` on `in_face`.
pub fn receive(net: &mut Network, fx: &mut impl Effects, node: NodeId, in_face: FaceId, packet: &mut Packet) {
    let Some(h) = packet.ndn() else { return };
    let (kind, name) = (h.kind, h.name);
    let now = fx.now();
    // An expired entry expires before the packet is handled. (A Data takes its entry out of
    // the PIT in one lookup and checks it there.) The lookup that finds it is the packet's
    // only one: the entry is handled where it lies from here on.
    let mut looked = PitLookup { name, found: None };
    if kind != NdnKind::Data {
        let pit = &mut net.nodes[node.idx()].pit;
        looked = pit.lookup(&name);
        if looked.found.and_then(|r| pit.at(r)).is_some_and(|e| e.expiry <= now) {
            looked.found = None;
            if let Some(stale) = pit.remove(&name) {
                expire_entry(net, fx, node, &stale);
            }
        }
    }
    match kind {
        NdnKind::Interest => on_interest(net, fx, node, in_face, packet, looked),
        NdnKind::Data => on_data(net, fx, node, in_face, packet),
        NdnKind::Nack(r) => on_nack(net, fx, node, in_face, *packet, r, looked),
    }
}

fn nack_to(net: &mut Network, fx: &mut impl Effects, face: FaceId, interest: &Packet, reason: NackReason) {
    let mut nack = Packet::nack_for(interest, reason);
    fx.send(net, face, &mut nack);
}

/// An Interest arrives; `looked` is what the PIT held for its name as it arrived.
fn on_interest(
    net: &mut Network,
    fx: &mut impl Effects,
    node: NodeId,
    in_face: FaceId,
    pkt: &mut Packet,
    looked: PitLookup,
) {
    let now = fx.now();
    if !net.nodes[node.idx()].modules.is_empty() {
        let taken =
            fx.each_module(net, node, |m, ctx| (m.on_interest_in(ctx, in_face, pkt) == Intake::Absorb).then_some(()));
        if taken.is_some() {
            return;
        }
    }
    let Some(&h) = pkt.ndn() else { return };
    let n = &mut net.nodes[node.idx()];
    if let Some(cs) = n.cs.as_mut() {
        if let Some(mut d) = cs.lookup(&h.name, now) {
            n.counters.cs_hits += 1;
            if let Some(dh) = d.ndn_mut() {
                dh.nonce = h.nonce;
            }
            d.step_route(in_face);
            fx.send(net, in_face, &mut d);
            return;
        }
    }
    let expiry = now + SimDuration(h.lifetime_ns);
    let name = h.name;
    // The route is looked up before the PIT entry is made or updated, so the entry gets it
    // at once (a lookup has no effect but on the FIB's own cache).
    let fib_entry = n.fib.lookup(name.prefix, &net.names);
    // A module may have renamed the Interest.
    let entry = n.pit.locate(looked, &name).and_then(|r| n.pit.at_mut_with_interest(r).map(|ek| (r, ek)));
    let at = if let Some((r, (e, kept))) = entry {
        if e.has_nonce(h.nonce) {
            n.counters.duplicates += 1;
            let same = e.in_records().iter().any(|r| r.face == in_face && r.nonce == h.nonce);
            if !same {
                nack_to(net, fx, in_face, pkt, NackReason::Duplicate);
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
                e.push_in(InRecord { face: in_face, nonce: h.nonce, expiry });
                false
            }
        };
        *kept = PitInterest::of(pkt, &h);
        let refreshed = expiry > e.expiry;
        if refreshed {
            e.expiry = expiry;
        }
        let aggregate = !known && !e.out_records().is_empty();
        if !aggregate && fib_entry.is_some() {
            // The entry is forwarded again: by the route of now.
            e.set_fib_entry(fib_entry);
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
        let entry = PitEntry::from_interest(InRecord { face: in_face, nonce: h.nonce, expiry }, fib_entry);
        let r = n.pit.insert(name, entry, PitInterest::of(pkt, &h));
        ensure_pit_sweep(net, fx, node);
        r
    };
    let n = &mut net.nodes[node.idx()];
    let Some(fe) = fib_entry else {
        no_route(net, fx, node, in_face, pkt);
        return;
    };
    // The strategy sees the entry's next hops but the Interest's own face. That face is
    // rarely among them, and then the entry's list is handed over as it is, uncopied.
    let all = &n.fib.entry(fe).nexthops;
    let filtered: SmallVec<[NextHop; 4]>;
    // A face that is down is no next hop, as NFD drops a failed face's routes at once
    // (routing finds other paths later). No face is down in a world without failures.
    let faces = &net.faces;
    let down = |h: &NextHop| faces[h.face.idx()].is_down();
    let nexthops = if all.iter().any(|h| h.face == in_face) || (net.faces_down > 0 && all.iter().any(down)) {
        filtered = all.iter().filter(|h| h.face != in_face && !down(h)).copied().collect();
        &filtered[..]
    } else {
        &all[..]
    };
    let mut out = FaceList::new();
    {
        let mut ctx = StrategyCtx { now, node, rng: &mut n.rng, faces: &net.faces };
        n.strategy.choose(&mut ctx, &InterestEvent { interest: pkt, in_face, fib_entry: fe, nexthops }, &mut out);
    }
    if out.is_empty() {
        no_route(net, fx, node, in_face, pkt);
        return;
    }
    // Each face gets the Interest as it arrived; the last takes it in place rather than a copy.
    let Some((&last, others)) = out.split_last() else { return };
    for &face in others {
        let mut copy = *pkt;
        forward_interest(net, fx, node, face, &mut copy, at);
    }
    forward_interest(net, fx, node, last, pkt, at);
}

fn no_route(net: &mut Network, fx: &mut impl Effects, node: NodeId, in_face: FaceId, pkt: &Packet) {
    let Some(name) = pkt.ndn().map(|h| h.name) else { return };
    let n = &mut net.nodes[node.idx()];
    n.counters.no_route += 1;
    if let Some(e) = n.pit.get_mut(&name) {
        e.retain_in(|r| r.face != in_face);
        if e.in_records().is_empty() && e.out_records().is_empty() {
            n.pit.remove(&name);
        }
    }
    nack_to(net, fx, in_face, pkt, NackReason::NoRoute);
}

/// Send an Interest on `out_face` after the router modules have seen it; `at` is its PIT
/// entry. Always inline: every forwarded Interest passes here, and as a call it paid a frame.
#[inline(always)]
fn forward_interest(
    net: &mut Network,
    fx: &mut impl Effects,
    node: NodeId,
    out_face: FaceId,
    p: &mut Packet,
    at: PitLookup,
) {
    let now = fx.now();
    let mut verdict = InterestVerdict::Send;
    if !net.nodes[node.idx()].modules.is_empty() {
        verdict = fx
            .each_module(net, node, |m, ctx| {
                let v = m.on_interest_out(ctx, out_face, p);
                (v != InterestVerdict::Send).then_some(v)
            })
            .unwrap_or(InterestVerdict::Send);
    }
    let Some(&h) = p.ndn() else { return };
    let n = &mut net.nodes[node.idx()];
    // A module may have renamed the Interest; the entry may be gone, answered by the NACK
    // of an earlier out-face.
    let at = n.pit.locate(at, &h.name);
    let Some(e) = at.and_then(|r| n.pit.at_mut(r)) else { return };
    match e.out_record_mut(out_face) {
        Some(r) => {
            r.nonce = h.nonce;
            r.sent_at = now;
            if r.nacked.take().is_some() {
                net.faces[out_face.idx()].pending_interests += 1;
            }
        }
        None => {
            e.push_out(OutRecord { face: out_face, nonce: h.nonce, sent_at: now, nacked: None });
            net.faces[out_face.idx()].pending_interests += 1;
        }
    }
    match verdict {
        InterestVerdict::Send => {}
        InterestVerdict::Reject(reason) => {
            let nack = Packet::nack_for(p, reason);
            on_nack(net, fx, node, out_face, nack, reason, PitLookup { name: h.name, found: at });
            return;
        }
        InterestVerdict::Hold => return,
    }
    let mark_entry = {
        let mut ctx = StrategyCtx { now, node, rng: &mut n.rng, faces: &net.faces };
        n.strategy.after_send_interest(&mut ctx, out_face, p)
    };
    if mark_entry {
        if let Some(e) = at.and_then(|r| n.pit.at_mut(r)) {
            e.marked = true;
        }
    }
    fx.send(net, out_face, p);
}

/// An Interest a module held for `face` is refused: handled as a NACK from that face.
pub fn refuse_held_interest(
    net: &mut Network,
    fx: &mut impl Effects,
    face: FaceId,
    interest: Packet,
    reason: NackReason,
) {
    let node = net.faces[face.idx()].node;
    let nack = Packet::nack_for(&interest, reason);
    let Some(h) = interest.ndn() else { return };
    let looked = net.nodes[node.idx()].pit.lookup(&h.name);
    on_nack(net, fx, node, face, nack, reason, looked);
}

fn on_data(net: &mut Network, fx: &mut impl Effects, node: NodeId, in_face: FaceId, data: &mut Packet) {
    let now = fx.now();
    let Some(&h) = data.ndn() else { return };
    let n = &mut net.nodes[node.idx()];
    let Some(entry) = n.pit.remove(&h.name) else {
        n.counters.unsolicited_data += 1;
        return;
    };
    if entry.expiry <= now {
        // The entry had expired: it expires now, and the Data answers nothing.
        expire_entry(net, fx, node, &entry);
        net.nodes[node.idx()].counters.unsolicited_data += 1;
        return;
    }
    for r in entry.out_records() {
        if r.nacked.is_none() {
            let f = &mut net.faces[r.face.idx()];
            f.pending_interests = f.pending_interests.saturating_sub(1);
        }
    }
    let rtt = entry.out_records().iter().find(|r| r.face == in_face).map(|r| now.saturating_since(r.sent_at));
    if !n.modules.is_empty() {
        fx.each_module(net, node, |m, ctx| {
            m.on_data_in(ctx, in_face, data, rtt);
            None::<()>
        });
    }
    let n = &mut net.nodes[node.idx()];
    {
        let mut ctx = StrategyCtx { now, node, rng: &mut n.rng, faces: &net.faces };
        n.strategy.on_data(&mut ctx, &DataEvent { data, from: in_face, fib_entry: entry.fib_entry() });
    }
    if let Some(cs) = n.cs.as_mut() {
        cs.insert(data, now);
    }
    for (k, rec) in entry.in_records().iter().enumerate() {
        if rec.expiry < now || rec.face == in_face {
            continue;
        }
        // The last downstream takes the Data in place rather than a copy.
        let mut copy;
        let d = if k + 1 == entry.in_records().len() {
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
        if !net.nodes[node.idx()].modules.is_empty() {
            fx.each_module(net, node, |m, ctx| {
                m.on_data_out(ctx, in_face, rec.face, d);
                None::<()>
            });
        }
        d.step_route(rec.face);
        fx.send(net, rec.face, d);
    }
}

/// A NACK arrives on `in_face`; `looked` is what the PIT held for its name.
fn on_nack(
    net: &mut Network,
    fx: &mut impl Effects,
    node: NodeId,
    in_face: FaceId,
    pkt: Packet,
    reason: NackReason,
    looked: PitLookup,
) {
    let now = fx.now();
    let Some(name) = pkt.ndn().map(|h| h.name) else { return };
    let n = &mut net.nodes[node.idx()];
    let Some(at) = n.pit.locate(looked, &name) else { return };
    let Some(e) = n.pit.at_mut(at) else { return };
    let Some(r) = e.out_record_mut(in_face) else { return };
    if r.nacked.is_none() {
        r.nacked = Some(reason);
        let f = &mut net.faces[in_face.idx()];
        f.pending_interests = f.pending_interests.saturating_sub(1);
    }
    let mut nack = pkt;
    if !n.modules.is_empty() {
        fx.each_module(net, node, |m, ctx| {
            m.on_nack_in(ctx, in_face, &mut nack);
            None::<()>
        });
    }
    let n = &mut net.nodes[node.idx()];
    let Some((e, kept)) = n.pit.at_with_interest(at) else { return };
    let mut interest = kept.packet(name);
    let fib_entry = e.fib_entry();
    let untried: SmallVec<[NextHop; 4]> = match fib_entry {
        Some(fe) => n
            .fib
            .entry(fe)
            .nexthops
            .iter()
            .filter(|h| {
                !e.out_records().iter().any(|o| o.face == h.face) && !e.in_records().iter().any(|i| i.face == h.face)
            })
            .copied()
            .collect(),
        None => SmallVec::new(),
    };
    let retry = {
        let mut ctx = StrategyCtx { now, node, rng: &mut n.rng, faces: &net.faces };
        n.strategy.get().on_nack(&mut ctx, &NackEvent { nack: &nack, from: in_face, fib_entry, untried: &untried })
    };
    if let Some(f) = retry {
        forward_interest(net, fx, node, f, &mut interest, PitLookup { name, found: Some(at) });
        return;
    }
    let n = &mut net.nodes[node.idx()];
    if !n.pit.at(at).is_some_and(|e| e.all_nacked()) {
        return;
    }
    let Some((e, kept)) = n.pit.remove_with_interest(&name) else { return };
    let interest = kept.packet(name);
    for rec in e.in_records() {
        let mut down = Packet::nack_for(&interest, reason);
        if let Some(dh) = down.ndn_mut() {
            dh.nonce = rec.nonce;
        }
        down.mark = nack.mark;
        fx.send(net, rec.face, &mut down);
    }
}

/// Schedule a sweep of `node`'s PIT at its earliest expiry, unless one comes sooner. Inline:
/// every new entry asks.
#[inline]
fn ensure_pit_sweep(net: &mut Network, fx: &mut impl Effects, node: NodeId) {
    let n = &mut net.nodes[node.idx()];
    let Some(t) = n.pit.next_expiry() else { return };
    let t = t.ceil_to(PIT_SWEEP_GRAIN);
    debug_assert!(t < NO_PIT_SWEEP, "a PIT expiry at the end of time");
    if t < n.pit_sweep_at {
        n.pit_sweep_at = t;
        fx.sweep_pit_at(node, t);
    }
}

/// Expire the PIT entries of `node` that are due (`expired`: an empty buffer to take them in).
pub fn sweep_pit(
    net: &mut Network,
    fx: &mut impl Effects,
    node: NodeId,
    expired: &mut Vec<(crate::packet::Name, PitEntry)>,
) {
    let now = fx.now();
    let n = &mut net.nodes[node.idx()];
    if n.pit_sweep_at <= now {
        n.pit_sweep_at = NO_PIT_SWEEP;
    }
    n.pit.take_expired(now, expired);
    // A PIT whose index moved to a hash table is noted at its next sweep, which comes within
    // an Interest lifetime (here rather than at each insert, which cost `dumbbell-1` 10
    // instructions a hop; the note only guides prefetching).
    if n.pit.is_hashed() && !net.pit_hashed(node) {
        net.note_pit_hashed(node);
    }
    for (_, e) in expired.iter() {
        expire_entry(net, fx, node, e);
    }
    expired.clear();
    ensure_pit_sweep(net, fx, node);
}

/// An entry expired without Data: release its pending counts and tell the strategy.
fn expire_entry(net: &mut Network, fx: &mut impl Effects, node: NodeId, e: &PitEntry) {
    let now = fx.now();
    let n = &mut net.nodes[node.idx()];
    n.counters.pit_expired += 1;
    let mut out_faces: SmallVec<[FaceId; 4]> = SmallVec::new();
    for r in e.out_records() {
        if r.nacked.is_none() {
            let f = &mut net.faces[r.face.idx()];
            f.pending_interests = f.pending_interests.saturating_sub(1);
            out_faces.push(r.face);
        }
    }
    let mut ctx = StrategyCtx { now, node, rng: &mut n.rng, faces: &net.faces };
    n.strategy.on_pit_expired(&mut ctx, &ExpiryEvent { out_faces: &out_faces, fib_entry: e.fib_entry() });
}

/// The forwarder on a network alone: no engine, no event queue. The sink records what the
/// handlers ask for, so each test reads the packets a node sent and the PIT it kept.
#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::NameId;
    use crate::module::{ModuleCtx, RouterModule};
    use crate::packet::Name;
    use crate::time::SimTime;
    use crate::world::{LinkParams, WorldBuilder};

    /// Node R (1) between downstreams A (0) and D (3) and upstream B (2), with a route for
    /// /p towards B.
    const R: NodeId = NodeId(1);
    const R_TO_A: FaceId = FaceId(1);
    const R_TO_B: FaceId = FaceId(2);
    const R_TO_D: FaceId = FaceId(5);
    const LIFETIME_NS: u64 = 100_000_000;

    fn network() -> (Network, NameId) {
        let mut b = WorldBuilder::new(1, SimDuration::from_secs(1));
        let [a, r, up, d] = ["A", "R", "B", "D"].map(|n| b.add_node(n));
        let link = || LinkParams::new(10_000_000, SimDuration::from_millis(1));
        for (name, x) in [("A-R", a), ("R-B", up), ("D-R", d)] {
            let (from, to) = if x == up { (r, up) } else { (x, r) };
            b.add_link(name, from, to, link(), link()).expect("a valid link");
        }
        assert_eq!(b.face_between(r, a), Some(R_TO_A));
        assert_eq!(b.face_between(r, up), Some(R_TO_B));
        assert_eq!(b.face_between(r, d), Some(R_TO_D));
        b.add_route(r, "/p", R_TO_B, 1);
        let p = b.intern("/p");
        (b.into_network(), p)
    }

    /// The effects the forwarder asked for.
    #[derive(Default)]
    struct Recorded {
        now: SimTime,
        sent: Vec<(FaceId, Packet)>,
        sweeps: Vec<SimTime>,
    }

    impl Effects for Recorded {
        fn now(&self) -> SimTime {
            self.now
        }
        fn send(&mut self, _net: &mut Network, face: FaceId, packet: &mut Packet) {
            self.sent.push((face, *packet));
        }
        fn each_module<T>(
            &mut self,
            net: &mut Network,
            node: NodeId,
            mut f: impl FnMut(&mut dyn RouterModule, &mut ModuleCtx) -> Option<T>,
        ) -> Option<T> {
            let n = &mut net.nodes[node.idx()];
            let mut actions = Vec::new();
            n.modules.iter_mut().find_map(|slot| {
                let mut ctx = ModuleCtx::new(self.now, node, &n.faces, &mut net.faces, &mut slot.rng, &mut actions);
                f(slot.module.as_mut(), &mut ctx)
            })
        }
        fn sweep_pit_at(&mut self, _node: NodeId, t: SimTime) {
            self.sweeps.push(t);
        }
    }

    fn interest(prefix: NameId, seg: u64, nonce: u32) -> Packet {
        Packet::interest(Name { prefix, seg }, 40, nonce, LIFETIME_NS)
    }

    fn data_for(interest: &Packet) -> Packet {
        Packet::data_for(interest.ndn().expect("an Interest"), 1_100)
    }

    #[test]
    fn an_interest_with_a_route_goes_upstream_and_leaves_a_pit_entry() {
        let (mut net, p) = network();
        let mut fx = Recorded::default();
        let mut i = interest(p, 7, 1);
        receive(&mut net, &mut fx, R, R_TO_A, &mut i);
        assert_eq!(fx.sent.len(), 1);
        assert_eq!(fx.sent[0].0, R_TO_B);
        let entry = net.nodes[R.idx()].pit.get(&Name { prefix: p, seg: 7 }).expect("a PIT entry");
        assert_eq!(entry.in_records().len(), 1);
        assert_eq!(entry.out_records().len(), 1);
        assert_eq!(net.faces[R_TO_B.idx()].pending_interests, 1);
        // Its expiry, rounded up to the sweep grain, is when the PIT is to be swept.
        assert_eq!(fx.sweeps, vec![SimTime(LIFETIME_NS)]);
    }

    #[test]
    fn a_second_downstream_asking_the_same_name_is_aggregated() {
        let (mut net, p) = network();
        let mut fx = Recorded::default();
        receive(&mut net, &mut fx, R, R_TO_A, &mut interest(p, 7, 1));
        receive(&mut net, &mut fx, R, R_TO_D, &mut interest(p, 7, 2));
        assert_eq!(fx.sent.len(), 1, "only the first Interest goes upstream");
        assert_eq!(net.nodes[R.idx()].counters.aggregated, 1);
        let entry = net.nodes[R.idx()].pit.get(&Name { prefix: p, seg: 7 }).expect("a PIT entry");
        assert_eq!(entry.in_records().len(), 2);
    }

    #[test]
    fn data_goes_to_every_downstream_with_its_own_nonce_and_ends_the_entry() {
        let (mut net, p) = network();
        let mut fx = Recorded::default();
        let first = interest(p, 7, 1);
        let mut copy = first;
        receive(&mut net, &mut fx, R, R_TO_A, &mut copy);
        receive(&mut net, &mut fx, R, R_TO_D, &mut interest(p, 7, 2));
        fx.sent.clear();
        receive(&mut net, &mut fx, R, R_TO_B, &mut data_for(&first));
        let out: Vec<(FaceId, u32)> = fx.sent.iter().map(|(f, d)| (*f, d.ndn().expect("a Data").nonce)).collect();
        assert_eq!(out, vec![(R_TO_A, 1), (R_TO_D, 2)]);
        assert!(fx.sent.iter().all(|(_, d)| d.is_data()));
        assert!(net.nodes[R.idx()].pit.is_empty());
        assert_eq!(net.faces[R_TO_B.idx()].pending_interests, 0);
    }

    #[test]
    fn an_interest_without_a_route_is_refused_with_no_route() {
        let (mut net, _) = network();
        let q = net.names.intern("/q");
        let mut fx = Recorded::default();
        receive(&mut net, &mut fx, R, R_TO_A, &mut interest(q, 0, 1));
        assert_eq!(fx.sent.len(), 1);
        let (face, nack) = fx.sent[0];
        assert_eq!(face, R_TO_A);
        assert_eq!(nack.ndn_kind(), Some(NdnKind::Nack(NackReason::NoRoute)));
        assert_eq!(net.nodes[R.idx()].counters.no_route, 1);
        assert!(net.nodes[R.idx()].pit.is_empty());
    }

    #[test]
    fn a_looping_interest_from_another_face_is_refused_as_a_duplicate() {
        let (mut net, p) = network();
        let mut fx = Recorded::default();
        receive(&mut net, &mut fx, R, R_TO_A, &mut interest(p, 7, 1));
        fx.sent.clear();
        receive(&mut net, &mut fx, R, R_TO_D, &mut interest(p, 7, 1));
        assert_eq!(fx.sent.len(), 1);
        assert_eq!(fx.sent[0].0, R_TO_D);
        assert_eq!(fx.sent[0].1.ndn_kind(), Some(NdnKind::Nack(NackReason::Duplicate)));
        assert_eq!(net.nodes[R.idx()].counters.duplicates, 1);
    }

    #[test]
    fn a_data_nobody_asked_for_is_counted_and_dropped() {
        let (mut net, p) = network();
        let mut fx = Recorded::default();
        receive(&mut net, &mut fx, R, R_TO_B, &mut data_for(&interest(p, 3, 9)));
        assert!(fx.sent.is_empty());
        assert_eq!(net.nodes[R.idx()].counters.unsolicited_data, 1);
    }

    #[test]
    fn a_sweep_after_the_lifetime_expires_the_entry_and_releases_its_face() {
        let (mut net, p) = network();
        let mut fx = Recorded::default();
        receive(&mut net, &mut fx, R, R_TO_A, &mut interest(p, 7, 1));
        fx.now = SimTime(LIFETIME_NS);
        sweep_pit(&mut net, &mut fx, R, &mut Vec::new());
        assert!(net.nodes[R.idx()].pit.is_empty());
        assert_eq!(net.nodes[R.idx()].counters.pit_expired, 1);
        assert_eq!(net.faces[R_TO_B.idx()].pending_interests, 0);
    }
}
