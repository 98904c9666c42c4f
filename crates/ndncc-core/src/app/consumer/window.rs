//! The window consumer: keeps `floor(window)` Interests in flight (at least one), sending
//! retransmissions before new segments, and reports sequence holes to controllers that ask.

use super::{record_metrics, Arrival, ConsumerCore, ConsumerParams, Reactions};
use crate::app::{AppCtx, Application, Conservation};
use crate::cc::{HoleAction, HoleEvent, WindowControl};
use crate::packet::{NdnKind, Packet};
use crate::plugin::check;
use crate::recorder::{Recorder, SummaryRow};
use crate::rng::SimRng;
use crate::time::SimTime;

/// In declaration order (`repr(C)`): the controller, which every Data and every Interest
/// sent asks, beside the core's hot lines (see `ConsumerCore`).
#[repr(C)]
pub struct WindowConsumer {
    ctl: Box<dyn WindowControl>,
    core: ConsumerCore,
}

impl WindowConsumer {
    pub fn new(p: ConsumerParams, ctl: Box<dyn WindowControl>, rng: SimRng, rec: &mut Recorder) -> WindowConsumer {
        WindowConsumer { core: ConsumerCore::new(p, rng, rec), ctl }
    }

    /// Send as much as the window allows.
    fn pump(&mut self, ctx: &mut AppCtx) {
        while self.core.sending {
            let allowed = self.ctl.window().clamp(1.0, check::MAX_WINDOW) as usize;
            if self.core.inflight.len() >= allowed {
                break;
            }
            // A window that grows without a congestion signal stops at what the network can
            // hold and answer.
            if !self.core.below_in_flight_limit(ctx.now) {
                break;
            }
            let Some((seq, is_retx)) = self.core.next_to_send() else { break };
            let ev = self.core.send_interest(ctx, seq, is_retx);
            self.ctl.on_interest_sent(&ev);
        }
    }

    fn on_data(&mut self, ctx: &mut AppCtx, pkt: &Packet, seq: u64) {
        let (ev, order) = match self.core.on_data(ctx, pkt, seq) {
            Arrival::Answered(ev, order) => (ev, order),
            Arrival::GivenUp(_) | Arrival::Late => return,
        };
        let before = Some(self.ctl.window());
        self.ctl.on_data(&ev);
        if self.ctl.detects_holes() {
            self.report_holes(ctx, seq, order);
        }
        self.core.note_decrease(ctx, before, Some(self.ctl.window()));
        self.core.check_complete(ctx.now);
    }

    /// Segments below `seq`, sent before it and still missing, are holes: the controller says
    /// whether each is retransmitted now.
    fn report_holes(&mut self, ctx: &mut AppCtx, seq: u64, order: u64) {
        // A list of its own each time: it allocates only when a Data reveals holes, which is
        // rare, and kept in the consumer it took 24 bytes of every one.
        let mut holes = Vec::new();
        self.core.inflight.new_holes_below(seq, order, &mut holes);
        for &h in &holes {
            let core = &mut self.core;
            ctx.recorder.event(ctx.now, core.ids.me, core.ids.hole, h as f64);
            let hev = HoleEvent {
                now: ctx.now,
                seq,
                hole: h,
                next_seq: core.next_seq,
                highest_received: core.highest_received,
                in_flight: core.inflight.len() as u32,
            };
            if self.ctl.on_hole(&hev) == HoleAction::Retransmit && core.inflight.remove(h).is_some() {
                core.c.holes_ended += 1;
                core.schedule_retx(h);
            }
        }
    }

    fn after_event(&mut self, ctx: &mut AppCtx) {
        self.core.admit_arrivals(ctx.now);
        self.pump(ctx);
        self.core.request_timer_wake(ctx);
        self.core.request_arrival_wake(ctx);
        // A wake-up only polls the timers and pumps: the window changes only in the
        // controller's hooks, so a pump that stopped here stops at once at a wake-up too.
        self.core.promise_idle_polls(ctx);
    }
}

impl Application for WindowConsumer {
    fn on_start(&mut self, ctx: &mut AppCtx) {
        self.core.start(ctx.now);
        self.after_event(ctx);
    }

    fn on_stop(&mut self, ctx: &mut AppCtx) {
        self.core.stop(ctx.now);
    }

    fn on_packet(&mut self, ctx: &mut AppCtx, packet: &Packet) {
        let Some(h) = packet.ndn() else { return };
        let request = self.core.request_of(h.name.seg);
        match (h.kind, request) {
            (NdnKind::Data, Some(seq)) => self.on_data(ctx, packet, seq),
            // A Data no request is waiting for (an object fetched before) is late.
            (NdnKind::Data, None) => self.core.c.late_data += 1,
            (NdnKind::Nack(r), Some(seq)) => {
                let ctl: &mut dyn Reactions = &mut self.ctl;
                self.core.on_nack(ctx, packet, seq, r, ctl);
            }
            (NdnKind::Nack(_), None) => {}
            (NdnKind::Interest, _) => return,
        }
        self.after_event(ctx);
    }

    fn on_wake(&mut self, ctx: &mut AppCtx) {
        let ctl: &mut dyn Reactions = &mut self.ctl;
        self.core.on_timer_wake(ctx, ctl);
        self.after_event(ctx);
    }

    fn resume_polls(&mut self, next_poll: SimTime) {
        self.core.next_check = next_poll;
    }

    fn sample(&self, now: SimTime, rec: &mut Recorder) {
        let ids = &self.core.ids;
        rec.sample(now, ids.me, ids.window, self.ctl.window());
        if let Some(s) = self.ctl.ssthresh() {
            rec.sample(now, ids.me, ids.ssthresh, s);
        }
        record_metrics(now, ids.me, rec, |out| self.ctl.metrics(out));
        self.core.sample(now, rec);
    }

    fn samples_change_only_in_hooks(&self) -> bool {
        self.ctl.metrics_change_only_in_hooks()
    }

    fn summary(&self, end: SimTime, out: &mut Vec<SummaryRow>) {
        self.core.summary(end, out);
    }

    fn conservation(&self) -> Option<Conservation> {
        Some(self.core.conservation())
    }

    fn limit_in_flight(&mut self, limit: usize) {
        self.core.p.max_in_flight = limit.max(1);
    }
}

#[cfg(test)]
mod tests {
    use super::super::testkit::{at, params};
    use super::*;
    use crate::cc::window::{FixedWindow, FixedWindowConfig};
    use crate::recorder::EventSamples;
    use crate::rng::stream;
    use crate::rtt::{Backoff, RttConfig};
    use crate::time::SimDuration;

    /// A resent segment's count of transmissions goes once its Data comes, with the room of
    /// the emptied table and retransmission queue: what a consumer keeps of its losses follows
    /// the segments still missing, not every segment ever resent.
    #[test]
    fn a_received_segment_leaves_no_retransmission_state() {
        use super::super::testkit::{data, resent_once};
        let mut rec = Recorder::new(EventSamples::Skipped);
        let mut c = resent_once(&mut rec);
        assert_eq!(c.core.retransmissions_of(1), Some(1));
        assert_eq!(c.core.waiting_for_retransmission(), 0);
        at(&mut c, &mut rec, 360, |c, ctx| c.on_packet(ctx, &data(1)));
        assert_eq!(c.core.retransmissions_of(1), None);
        assert!(c.core.keeps_no_losses(), "the emptied state is let go");
    }

    #[test]
    fn a_burst_of_timeouts_backs_off_once_per_timeout_once_per_check_or_never() {
        // A fixed window of 4 sends segs 0..3 at t = 0 and nothing answers them. Before any RTT
        // sample the RTO is the initial 1 s, so the first check after 1 s (polled every 50 ms:
        // 1,050 ms) times out all four. Per timeout: 1 s × 2^4 = 16 s; per check: 2 s; none: 1 s.
        for (policy, rto_ms) in [(Backoff::PerTimeout, 16_000), (Backoff::PerCheck, 2_000), (Backoff::None, 1_000)] {
            let mut rec = Recorder::new(EventSamples::Skipped);
            let p = ConsumerParams { rtt: RttConfig { backoff: policy, ..RttConfig::default() }, ..params(1024) };
            let ctl = Box::new(FixedWindow::new(&FixedWindowConfig { window: 4.0 }));
            let mut c = WindowConsumer::new(p, ctl, stream(1, "c"), &mut rec);
            assert_eq!(at(&mut c, &mut rec, 0, |c, ctx| c.on_start(ctx)).len(), 4);
            at(&mut c, &mut rec, 1050, |c, ctx| c.on_wake(ctx));
            assert_eq!(c.core.c.timeouts, 4, "{policy:?}");
            assert_eq!(c.core.rtt.rto(), SimDuration::from_millis(rto_ms), "{policy:?}");
        }
    }
}
