//! Link transmission: a face's egress is a small "busy until" state machine.
//!
//! enqueue → (transmitter idle? start now : TxDone at busy_until) → dequeue → serialise for
//! size·8/bandwidth → loss draw → [hidden underlay FIFO] → Arrive at the peer after the delay.

use super::{Event, World};
use crate::face::FaceKind;
use crate::ids::{AppId, FaceId};
use crate::packet::{Packet, PacketKind};
use crate::queue::token_bucket::ShaperPoll;
use crate::queue::{QueueDisc, Verdict};
use crate::time::{SimDuration, SimTime};

impl World {
    /// Hand `packet` to `face` for sending: to its application, or into its egress.
    pub(super) fn send_on_face(&mut self, face: FaceId, packet: Packet) {
        match self.faces[face.idx()].kind {
            FaceKind::App { app } => self.deliver_to_app(app, packet),
            FaceKind::Link { .. } => self.egress_send(face, packet),
        }
    }

    fn deliver_to_app(&mut self, app: AppId, packet: Packet) {
        self.call_app(app, |a, ctx| a.on_packet(ctx, &packet));
    }

    fn egress_send(&mut self, face: FaceId, packet: Packet) {
        let now = self.now();
        let f = &mut self.faces[face.idx()];
        let Some(eg) = f.egress.as_mut() else { return };
        if packet.is_interest() {
            if let Some(shaper) = eg.shaper.as_mut() {
                if shaper.offer(packet, now) == Verdict::Dropped {
                    f.counters.drops_shaper += 1;
                } else {
                    self.kick_shaper(face);
                }
                return;
            }
        }
        self.enqueue_for_tx(face, packet);
    }

    /// Move every Interest the shaper allows now into the queue; plan the next release.
    pub(super) fn kick_shaper(&mut self, face: FaceId) {
        let now = self.now();
        loop {
            let Some(eg) = self.faces[face.idx()].egress.as_mut() else { return };
            let Some(shaper) = eg.shaper.as_mut() else { return };
            match shaper.poll(now) {
                ShaperPoll::Ready(p) => self.enqueue_for_tx(face, p),
                ShaperPoll::Wait(t) => {
                    let t = t.max(now + SimDuration(1));
                    if eg.shaper_wake_at.is_none_or(|w| t < w) {
                        eg.shaper_wake_at = Some(t);
                        self.schedule(t, Event::ShaperWake { face });
                    }
                    return;
                }
                ShaperPoll::Empty => return,
            }
        }
    }

    pub(super) fn on_shaper_wake(&mut self, face: FaceId) {
        let now = self.now();
        if let Some(eg) = self.faces[face.idx()].egress.as_mut() {
            if eg.shaper_wake_at.is_some_and(|w| w <= now) {
                eg.shaper_wake_at = None;
            }
        }
        self.kick_shaper(face);
    }

    fn enqueue_for_tx(&mut self, face: FaceId, packet: Packet) {
        let now = self.now();
        let f = &mut self.faces[face.idx()];
        let Some(eg) = f.egress.as_mut() else { return };
        if eg.queue.enqueue(packet, now) == Verdict::Dropped {
            f.counters.drops_queue += 1;
            return;
        }
        let q = eg.queue.len_packets() as u64;
        if q > f.counters.max_queue_packets {
            f.counters.max_queue_packets = q;
        }
        if eg.tx_wake_pending {
            return;
        }
        if eg.busy_until <= now {
            self.start_tx(face);
        } else {
            eg.tx_wake_pending = true;
            let t = eg.busy_until;
            self.schedule(t, Event::TxDone { face });
        }
    }

    pub(super) fn on_tx_done(&mut self, face: FaceId) {
        if let Some(eg) = self.faces[face.idx()].egress.as_mut() {
            eg.tx_wake_pending = false;
        }
        self.start_tx(face);
    }

    /// The transmitter is idle at `now`: take the next packet and put it on the wire.
    fn start_tx(&mut self, face: FaceId) {
        let now = self.now();
        let f = &mut self.faces[face.idx()];
        let FaceKind::Link { peer, .. } = f.kind else { return };
        let Some(eg) = f.egress.as_mut() else { return };
        self.dropped.clear();
        let next = eg.queue.dequeue(now, &mut self.dropped);
        f.counters.drops_aqm += self.dropped.len() as u64;
        let Some(d) = next else { return };
        let mut p = d.packet;
        if d.mark {
            p.mark = p.mark.max(1);
            f.counters.marks += 1;
        }
        let end = now + SimDuration::transmission(p.size as u64, eg.bandwidth_bps);
        eg.busy_until = end;
        f.counters.packets_sent += 1;
        f.counters.bytes_sent += p.size as u64;
        match p.kind {
            PacketKind::Interest => f.counters.interests_sent += 1,
            PacketKind::Data => f.counters.data_sent += 1,
            PacketKind::Nack(_) => f.counters.nacks_sent += 1,
        }
        let arrival: Option<SimTime> = if eg.loss.is_lost(&mut eg.rng) {
            f.counters.drops_loss += 1;
            None
        } else if let Some(ul) = eg.underlay.as_mut() {
            while ul.departures.front().is_some_and(|&t| t <= end) {
                ul.departures.pop_front();
            }
            if ul.departures.len() >= ul.limit_packets {
                f.counters.drops_underlay += 1;
                None
            } else {
                let start = ul.departures.back().copied().unwrap_or(end).max(end);
                let depart = start + SimDuration::transmission(p.size as u64, ul.bandwidth_bps);
                ul.departures.push_back(depart);
                Some(depart + eg.delay)
            }
        } else {
            Some(end + eg.delay)
        };
        let more = eg.queue.len_packets() > 0;
        if more {
            eg.tx_wake_pending = true;
        }
        if let Some(t) = arrival {
            self.schedule(t, Event::Arrive { face: peer, packet: p });
        }
        if more {
            self.schedule(end, Event::TxDone { face });
        }
    }
}
