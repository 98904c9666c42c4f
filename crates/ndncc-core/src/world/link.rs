//! Link transmission: a face's egress is a small "busy until" state machine, with the face's
//! link service (if any) between the node and the queue, and the packet tap at every step.
//!
//! send → link service on_send → [shaper] → enqueue → (transmitter idle? start now : TxDone at
//! busy_until) → dequeue → link service on_transmit → serialise for size·8/bandwidth → loss
//! draw → [hidden underlay FIFO] → Arrive at the peer after the delay → peer's link service
//! on_receive → peer node.

use super::engine::{Engine, Work};
use super::{ArrivalHint, Event, Network};
use crate::face::FaceKind;
use crate::ids::{AppId, FaceId};
use crate::linkservice::{LinkCtx, LinkService};
use crate::packet::{Header, NdnKind, Packet};
use crate::queue::token_bucket::ShaperPoll;
use crate::queue::{QueueDisc, Verdict};
use crate::tap::{DropCause, TapPoint};
use crate::time::{SimDuration, SimTime};

/// The longest flight whose arrivals are all queued as its packets leave (see `transmit`): 256
/// arrivals are 8 kB of a lane, which stay in the cache until they run. No flight of
/// `tree-1111` or `grid-32` (100 Mbit/s, 2 ms links) is longer, and that of `gbps-1`'s 1 Gbit/s,
/// 10 ms bottleneck is 1,150 Data: queueing each of those arrivals as it left made the lanes
/// miss the cache 16% more often. Only speed depends on it, never a result.
const QUEUED_ARRIVALS: usize = 256;

impl Engine {
    /// Hand `packet` to `face` for sending: to its application, or through its link service
    /// into its egress.
    pub(super) fn send_on_face(&mut self, net: &mut Network, face: FaceId, packet: &mut Packet) {
        match net.faces[face.idx()].kind {
            FaceKind::App { app } => self.deliver_to_app(net, app, packet),
            FaceKind::Link { .. } => {
                if net.faces[face.idx()].link_service.is_some() {
                    match self.call_link_service(net, face, |s, ctx| s.on_send(ctx, *packet)) {
                        Some(p) => *packet = p,
                        None => return,
                    }
                }
                self.egress_send(net, face, packet)
            }
        }
    }

    fn deliver_to_app(&mut self, net: &mut Network, app: AppId, packet: &Packet) {
        self.probes.on_deliver(app, packet);
        self.call_app(net, app, |a, ctx| a.on_packet(ctx, packet));
    }

    /// The head of the flight of link direction `from` arrives at the other end. When it was
    /// the last with its arrival queued, the next packet in flight, if any, takes its place.
    /// `hint` is the event's slot and node for the look ahead, checked in tests and debug builds.
    pub(super) fn on_arrive(&mut self, net: &mut Network, from: FaceId, hint: ArrivalHint) {
        let f = &mut net.faces[from.idx()];
        let FaceKind::Link { peer, .. } = f.kind else { return };
        let Some(eg) = f.egress.as_mut() else { return };
        #[cfg(any(test, debug_assertions))]
        assert_eq!(
            hint,
            ArrivalHint::new(eg.flight.head_slot(), eg.to),
            "an arrival's hint is not its packet's slot and node"
        );
        #[cfg(not(any(test, debug_assertions)))]
        let _ = hint;
        let Some(packet) = net.flights.front(&eg.flight).map(|arrived| arrived.packet) else { return };
        net.flights.drop_front(&mut eg.flight);
        eg.arrivals_queued = eg.arrivals_queued.saturating_sub(1);
        if eg.arrivals_queued == 0 {
            if let Some(next) = net.flights.front(&eg.flight) {
                eg.arrivals_queued = 1;
                let ev = Event::Arrive { from, hint: ArrivalHint::new(eg.flight.head_slot(), eg.to) };
                self.queue.schedule_keyed_irregular(next.arrival, next.seq, ev);
            }
        }
        if let Some(d) = eg.dynamics.as_deref_mut() {
            if d.doomed > 0 {
                // On the wire as the link went down: counted as dropped then.
                d.doomed -= 1;
                return;
            }
        }
        self.counters.packet_hops += 1;
        self.arrive(net, peer, packet);
    }

    /// A packet arrives at `face` from its link: through the face's link service to its node.
    fn arrive(&mut self, net: &mut Network, face: FaceId, mut packet: Packet) {
        self.tap(net, face, TapPoint::Arrive, &packet);
        if net.faces[face.idx()].link_service.is_some() {
            match self.call_link_service(net, face, |s, ctx| s.on_receive(ctx, packet)) {
                Some(p) => packet = p,
                None => return,
            }
        }
        // Straight to the node when nothing else waits in this event (the usual case: the
        // arrival is the event); the order is the same as queueing it behind nothing.
        if self.work.is_empty() {
            self.receive(net, face, &mut packet);
        } else {
            self.work.push_back(Work::Receive(face, packet));
        }
    }

    /// Run a hook of the link service of `face` (which must have one) and carry out what it
    /// asked for.
    fn call_link_service<R>(
        &mut self,
        net: &mut Network,
        face: FaceId,
        f: impl FnOnce(&mut dyn LinkService, &mut LinkCtx) -> R,
    ) -> R {
        let now = self.now();
        let mut actions = std::mem::take(&mut self.scratch.actions);
        let (r, wake) = {
            let fc = &mut net.faces[face.idx()];
            let (Some(slot), Some(eg)) = (fc.link_service.as_mut(), fc.egress.as_ref()) else {
                unreachable!("a link service on a link face");
            };
            let mut ctx = LinkCtx::new(now, face, eg, &mut slot.rng, &mut actions);
            let r = f(slot.service.as_mut(), &mut ctx);
            (r, ctx.requested_wake())
        };
        if let Some(t) = wake {
            let node = net.faces[face.idx()].node;
            let t = net.nodes[node.idx()].align(t.max(now));
            if let Some(gen) = net.faces[face.idx()].link_service.as_mut().and_then(|slot| slot.wake.request(t)) {
                self.schedule(t, Event::LinkServiceWake { face, gen });
            }
        }
        self.apply_actions(&mut actions);
        self.scratch.actions = actions;
        r
    }

    pub(super) fn on_link_service_wake(&mut self, net: &mut Network, face: FaceId, gen: u32) {
        let Some(slot) = net.faces[face.idx()].link_service.as_mut() else { return };
        if !slot.wake.fire(gen) {
            return;
        }
        self.call_link_service(net, face, |s, ctx| s.on_wake(ctx));
    }

    /// The one seam every packet event on a face passes: the face counters, then the tap.
    #[inline(always)]
    pub(super) fn tap(&mut self, net: &mut Network, face: FaceId, point: TapPoint, packet: &Packet) {
        if matches!(point, TapPoint::Enqueue | TapPoint::Arrive) {
            // No counter: only an observer sees these.
            if let Some(t) = self.tap_observer.as_mut() {
                t.on_packet(self.queue.now(), face, point, packet);
            }
            return;
        }
        self.tap_counted(net, face, point, packet);
    }

    /// A transmission or a drop: counted on the face, then seen by the observer.
    fn tap_counted(&mut self, net: &mut Network, face: FaceId, point: TapPoint, packet: &Packet) {
        self.count_and_observe(net, face, point, packet, |c| match point {
            TapPoint::Enqueue | TapPoint::Arrive => {}
            TapPoint::Drop(cause) => {
                let l = c.losses_mut();
                match cause {
                    DropCause::Shaper => l.drops_shaper += 1,
                    DropCause::Queue => l.drops_queue += 1,
                    DropCause::Aqm => l.drops_aqm += 1,
                    DropCause::Loss => l.drops_loss += 1,
                    DropCause::Underlay => l.drops_underlay += 1,
                    DropCause::LinkDown => l.drops_link_down += 1,
                }
            }
            TapPoint::Transmit => count_sent(c, packet),
        });
    }

    /// `tap_counted` of a transmission, inlined: every packet hop passes here.
    #[inline(always)]
    fn tap_transmit(&mut self, net: &mut Network, face: FaceId, packet: &Packet) {
        self.count_and_observe(net, face, TapPoint::Transmit, packet, |c| count_sent(c, packet));
    }

    /// Mark the face's samples changed, `count` the packet on its counters, and show it to the
    /// observer.
    #[inline(always)]
    fn count_and_observe(
        &mut self,
        net: &mut Network,
        face: FaceId,
        point: TapPoint,
        packet: &Packet,
        count: impl FnOnce(&mut crate::face::FaceCounters),
    ) {
        self.sampling.face_samples.mark(face);
        count(&mut net.faces[face.idx()].counters);
        if let Some(t) = self.tap_observer.as_mut() {
            t.on_packet(self.queue.now(), face, point, packet);
        }
    }

    fn egress_send(&mut self, net: &mut Network, face: FaceId, packet: &mut Packet) {
        let now = self.now();
        let f = &mut net.faces[face.idx()];
        let Some(eg) = f.egress.as_mut() else { return };
        if eg.is_down() {
            self.drop_on_down_link(net, face, packet);
            return;
        }
        if packet.is_interest() {
            if let Some(shaper) = eg.shaper_mut() {
                if shaper.offer(*packet, now) == Verdict::Dropped {
                    self.tap(net, face, TapPoint::Drop(DropCause::Shaper), packet);
                } else {
                    self.kick_shaper(net, face);
                }
                return;
            }
        }
        self.enqueue_for_tx(net, face, packet);
    }

    /// A packet sent to a link that is down. Out of line: no packet of a world without failures
    /// comes here, and the send path it would otherwise sit in is every packet's.
    #[cold]
    #[inline(never)]
    fn drop_on_down_link(&mut self, net: &mut Network, face: FaceId, packet: &Packet) {
        self.tap(net, face, TapPoint::Drop(DropCause::LinkDown), packet);
    }

    /// Move every Interest the shaper allows now into the queue; plan the next release.
    pub(super) fn kick_shaper(&mut self, net: &mut Network, face: FaceId) {
        let now = self.now();
        loop {
            let Some(eg) = net.faces[face.idx()].egress.as_mut() else { return };
            let Some(shaper) = eg.shaper_mut() else { return };
            match shaper.poll(now) {
                ShaperPoll::Ready(mut p) => self.enqueue_for_tx(net, face, &mut p),
                ShaperPoll::Wait(t) => {
                    let t = t.max(now + SimDuration(1));
                    if shaper.wake_at.is_none_or(|w| t < w) {
                        shaper.wake_at = Some(t);
                        self.schedule(t, Event::ShaperWake { face });
                    }
                    return;
                }
                ShaperPoll::Empty => return,
            }
        }
    }

    pub(super) fn on_shaper_wake(&mut self, net: &mut Network, face: FaceId) {
        let now = self.now();
        if let Some(shaper) = net.faces[face.idx()].egress.as_mut().and_then(|eg| eg.shaper_mut()) {
            if shaper.wake_at.is_some_and(|w| w <= now) {
                shaper.wake_at = None;
            }
        }
        self.kick_shaper(net, face);
    }

    /// Always inline: every packet sent on a link passes here from `send_on_face`, and as a
    /// call of its own it cost each hop a frame and six saved registers (dumbbell-1: 31
    /// instructions a hop, 1.7%).
    #[inline(always)]
    fn enqueue_for_tx(&mut self, net: &mut Network, face: FaceId, packet: &mut Packet) {
        let now = self.now();
        // Stamped here as well as by the built-in disciplines, so sojourn times are right
        // behind a plug-in queue that does not stamp.
        packet.enqueued_at = now;
        let f = &mut net.faces[face.idx()];
        let Some(eg) = f.egress.as_mut() else { return };
        if !eg.tx_wake_pending && eg.busy_until <= now && eg.queue.passes_straight_through(packet) {
            // An empty FIFO in front of an idle transmitter: the packet would be queued and
            // taken straight back. The face counts and taps it as queued, then sends it.
            f.counters.max_queue_packets = f.counters.max_queue_packets.max(1);
            self.tap(net, face, TapPoint::Enqueue, packet);
            self.transmit(net, face, packet);
            return;
        }
        // A queued packet changes what the face's samples see. (Taking one off needs no mark
        // of its own: it is sent, dropped or marked, and `tap_counted` marks each.)
        self.sampling.face_samples.mark(face);
        if eg.queue.enqueue(*packet, now) == Verdict::Dropped {
            self.tap(net, face, TapPoint::Drop(DropCause::Queue), packet);
            return;
        }
        let q = eg.queue.len_packets() as u64;
        if q > f.counters.max_queue_packets {
            f.counters.max_queue_packets = q;
        }
        let (pending, busy_until) = (eg.tx_wake_pending, eg.busy_until);
        self.tap(net, face, TapPoint::Enqueue, packet);
        if pending {
            return;
        }
        if busy_until <= now {
            self.start_tx(net, face);
        } else if let Some(eg) = net.faces[face.idx()].egress.as_mut() {
            eg.tx_wake_pending = true;
            self.schedule(busy_until, Event::TxDone { face });
        }
    }

    pub(super) fn on_tx_done(&mut self, net: &mut Network, face: FaceId) {
        if let Some(eg) = net.faces[face.idx()].egress.as_mut() {
            eg.tx_wake_pending = false;
        }
        self.start_tx(net, face);
    }

    /// The transmitter is idle at `now`: take the next packet and put it on the wire.
    pub(super) fn start_tx(&mut self, net: &mut Network, face: FaceId) {
        let now = self.now();
        if !matches!(net.faces[face.idx()].kind, FaceKind::Link { .. }) {
            return;
        }
        let mut p = loop {
            let Some(eg) = net.faces[face.idx()].egress.as_mut() else { return };
            let mut dropped = std::mem::take(&mut self.scratch.dropped);
            let next = eg.queue.dequeue(now, &mut dropped);
            for p in dropped.drain(..) {
                self.tap(net, face, TapPoint::Drop(DropCause::Aqm), &p);
            }
            self.scratch.dropped = dropped;
            let Some(d) = next else { return };
            let mut p = d.packet;
            if d.mark {
                // An IP packet that is not ECN-capable cannot carry a mark: the AQM drops it
                // (RFC 3168 §5), and the next one is taken.
                if p.ip().is_some_and(|ip| !ip.ecn_capable) {
                    self.tap(net, face, TapPoint::Drop(DropCause::Aqm), &p);
                    continue;
                }
                p.mark = p.mark.max(1);
                net.faces[face.idx()].counters.losses_mut().marks += 1;
            }
            break p;
        };
        self.transmit(net, face, &mut p);
    }

    /// Put `p`, just taken from the queue of `face` (a link face: only those have an egress),
    /// on the wire.
    fn transmit(&mut self, net: &mut Network, face: FaceId, p: &mut Packet) {
        let now = self.now();
        if net.faces[face.idx()].link_service.is_some() {
            self.call_link_service(net, face, |s, ctx| s.on_transmit(ctx, p));
        }
        self.tap_transmit(net, face, p);
        let f = &mut net.faces[face.idx()];
        let Some(eg) = f.egress.as_mut() else { return };
        // Here rather than in `tap`, which every packet event passes and which stays lean.
        self.probes.on_transmit(eg.probe, now, p);
        let end = match eg.dynamics.as_deref_mut().and_then(|d| d.trace_departure(now, p.size)) {
            Some(t) => t,
            None => now + eg.transmission_time(p.size),
        };
        eg.busy_until = end;
        let (mut cause, delay) = (None, eg.delay);
        let arrival: Option<SimTime> = if eg.loss.is_lost() {
            cause = Some(DropCause::Loss);
            None
        } else if let Some(ul) = eg.underlay_mut() {
            match ul.admit(end, p.size) {
                Some(depart) => Some(depart + delay),
                None => {
                    cause = Some(DropCause::Underlay);
                    None
                }
            }
        } else {
            Some(end + delay)
        };
        let more = eg.queue.len_packets() > 0;
        if more {
            eg.tx_wake_pending = true;
        }
        if let Some(t) = arrival {
            // The order key is taken now, as the arrival is scheduled now. The arrival goes in
            // the event queue now if it is the flight's first, or if every packet ahead of it
            // has its arrival queued, the flight is short, and a lane takes it (packets of one
            // size over one kind of link arrive one fixed delay after they leave, and a lane
            // keeps them in order at no cost). Otherwise it waits its turn in the flight, and
            // the heap holds one arrival of its link at a time (`on_arrive`). A long flight is
            // a fast or long link's, and such links are few, so their heads keep the heap
            // small, where 50,000 arrivals queued as they left a 10 Gbit/s link would stream
            // through the cache.
            // A link is a FIFO: a packet sent after the delay was shortened still arrives
            // after the ones ahead of it. Only a changing link's delay changes; with a
            // constant one arrivals never go back.
            let t = match eg.dynamics {
                Some(_) => net.flights.back(&eg.flight).map_or(t, |last| t.max(last.arrival)),
                None => t,
            };
            let seq = self.queue.take_seq();
            let all_queued = eg.arrivals_queued as usize == eg.flight.len();
            net.flights.push_back(&mut eg.flight, t, seq, p);
            let ev = Event::Arrive { from: face, hint: ArrivalHint::new(eg.flight.tail_slot(), eg.to) };
            if eg.flight.len() == 1 {
                eg.arrivals_queued = 1;
                self.queue.schedule_keyed(t, seq, ev);
            } else if all_queued && eg.flight.len() <= QUEUED_ARRIVALS && self.queue.schedule_in_lane(t, seq, ev) {
                eg.arrivals_queued = eg.arrivals_queued.saturating_add(1);
            }
        }
        if let Some(c) = cause {
            self.tap(net, face, TapPoint::Drop(c), p);
        }
        if more {
            self.schedule(end, Event::TxDone { face });
        }
    }
}

/// Count `packet`, just transmitted, on its face's counters.
#[inline(always)]
fn count_sent(c: &mut crate::face::FaceCounters, packet: &Packet) {
    c.packets_sent += 1;
    c.bytes_sent += packet.size as u64;
    match packet.header {
        Header::Ndn(h) => match h.kind {
            NdnKind::Interest => c.interests_sent += 1,
            NdnKind::Data => c.data_sent += 1,
            NdnKind::Nack(_) => c.nacks_sent += 1,
        },
        Header::Ip(_) | Header::Mcast(_) | Header::LinkAck => count_other_protocol(c, packet),
    }
}

/// Count the bytes of `packet`, an IP, multicast or link-layer frame just transmitted. Out of
/// line: the send path every packet takes comes here only for protocols other than NDN.
#[cold]
#[inline(never)]
fn count_other_protocol(c: &mut crate::face::FaceCounters, packet: &Packet) {
    let (r, bytes) = (c.rare_mut(), packet.size as u64);
    match packet.header {
        Header::Ip(_) => r.ip_bytes_sent += bytes,
        Header::Mcast(_) => r.mcast_bytes_sent += bytes,
        Header::LinkAck => r.link_bytes_sent += bytes,
        // Counted by kind in `count_sent`, which never sends NDN here.
        Header::Ndn(_) => {}
    }
}
