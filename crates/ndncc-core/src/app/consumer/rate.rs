//! The rate consumer, after seed 000's coarse-clock consumer (its Section III.B, Fig. 3):
//!
//! ```text
//!   Interests fall due at the controller's rate ──▶ [ due, not yet released: `credit` ]
//!        release (wake-up; on a coarse clock only at tick edges; with `smoothing` also at
//!        every Data/NACK arrival): all whole due Interests at once
//!        ──▶ policer of depth `interest_bucket`: the first `interest_bucket` go to the node,
//!            the rest of that release are dropped ("policed")
//! ```
//!
//! The seed's consumer queues Interests as they fall due and hands the whole queue to the
//! network at each tick, where a 200-deep token bucket polices them; the Interests it refuses
//! were sent by the application and are lost. So a policed Interest takes its segment number
//! and counts in `interests_sent` (the denominator of the seed's loss rate, 1 − Data received /
//! Interests sent, and of its Interest sending rate), then ends as lost (retransmitted later
//! when retransmission is on). The bucket is taken to be empty at each release, which holds
//! when it drains faster than Interests fall due (as in seed 000, where it drains at the access
//! link's 1,000 Data/s). Credit accrues at the rate in force until a Data or NACK changes it.

use super::{record_metrics, Arrival, ConsumerCore, ConsumerParams, Reactions};
use crate::app::{AppCtx, Application, Conservation};
use crate::cc::RateControl;
use crate::packet::{NdnKind, Packet};
use crate::recorder::{Recorder, SummaryRow};
use crate::rng::SimRng;
use crate::time::{SimDuration, SimTime};

/// In declaration order (`repr(C)`): the controller and the credit, which every Data and
/// every release read, beside the core's hot lines (see `ConsumerCore`).
#[repr(C)]
pub struct RateConsumer {
    ctl: Box<dyn RateControl>,
    /// Interests due but not yet released, and when that was last brought up to date.
    credit: f64,
    credit_at: SimTime,
    core: ConsumerCore,
}

impl RateConsumer {
    pub fn new(p: ConsumerParams, ctl: Box<dyn RateControl>, rng: SimRng, rec: &mut Recorder) -> RateConsumer {
        RateConsumer { core: ConsumerCore::new(p, rng, rec), ctl, credit: 0.0, credit_at: SimTime::ZERO }
    }

    /// Bring the credit up to `now` at the controller's current rate.
    fn accrue(&mut self, now: SimTime) {
        if self.core.sending {
            let dt = now.saturating_since(self.credit_at).as_secs_f64();
            self.credit += dt * self.ctl.rate().max(0.0);
            // Waiting for requests, an object-fetching consumer banks one Interest at most: the
            // next request starts at once, but a quiet spell does not turn into a burst.
            if self.core.is_idle_fetcher() {
                self.credit = self.credit.min(1.0);
            }
        }
        self.credit_at = now;
    }

    /// Release every whole Interest of credit; past the policer's depth, the rest of the
    /// release are policed.
    fn release_due(&mut self, ctx: &mut AppCtx) {
        let mut released = 0usize;
        while self.core.sending && self.credit >= 1.0 {
            // At the limit of Interests in flight, what falls due is not banked: the consumer
            // sends again as Interests end (a Data, a NACK or a timeout wakes it).
            if !self.core.below_in_flight_limit(ctx.now) {
                self.credit = self.credit.min(1.0);
                break;
            }
            let Some((seq, is_retx)) = self.core.next_to_send() else {
                self.credit = self.credit.min(1.0);
                break;
            };
            self.credit -= 1.0;
            if self.core.p.interest_bucket > 0 && released >= self.core.p.interest_bucket {
                self.police(ctx, seq, is_retx);
            } else {
                self.core.send_interest(ctx, seq, is_retx);
            }
            released += 1;
        }
    }

    /// An Interest the policer drops: sent by the application, lost before the network.
    fn police(&mut self, ctx: &mut AppCtx, seq: u64, is_retx: bool) {
        let core = &mut self.core;
        core.count_sent(seq, is_retx);
        core.c.policed += 1;
        ctx.recorder.event(ctx.now, core.ids.me, core.ids.policed, seq as f64);
        core.schedule_retx(seq);
        // No Data can come back for it.
        core.forget_given_up(seq);
    }

    fn request_wakes(&mut self, ctx: &mut AppCtx) {
        self.core.request_timer_wake(ctx);
        self.core.request_arrival_wake(ctx);
        // Pacing: when the next whole Interest of credit accrues.
        let rate = self.ctl.rate();
        let below_limit = self.core.inflight.len() < self.core.p.max_in_flight;
        if self.core.sending && rate > 0.0 && below_limit && self.core.has_something_to_send() {
            let need = (1.0 - self.credit).max(0.0);
            let at = self.credit_at + SimDuration::from_secs_f64(need / rate);
            ctx.wake_at(at.max(ctx.now + SimDuration(1)).max(self.credit_at));
        }
    }

    fn on_data(&mut self, ctx: &mut AppCtx, pkt: &Packet, seq: u64) {
        match self.core.on_data(ctx, pkt, seq) {
            Arrival::Answered(ev, _) => {
                self.ctl.on_data(&ev);
                self.core.check_complete(ctx.now);
            }
            Arrival::GivenUp(ev) => self.ctl.on_data(&ev),
            Arrival::Late => {}
        }
    }
}

impl Application for RateConsumer {
    fn on_start(&mut self, ctx: &mut AppCtx) {
        self.core.start(ctx.now);
        self.credit_at = ctx.now;
        // A rate consumer sends its first Interest at once.
        self.credit = 1.0;
        self.accrue(ctx.now);
        self.core.admit_arrivals(ctx.now);
        self.release_due(ctx);
        self.request_wakes(ctx);
    }

    fn on_stop(&mut self, ctx: &mut AppCtx) {
        self.accrue(ctx.now);
        self.core.stop(ctx.now);
    }

    fn on_packet(&mut self, ctx: &mut AppCtx, packet: &Packet) {
        // Credit earned so far accrues at the rate in force before this packet changes it.
        self.accrue(ctx.now);
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
        if self.core.p.smoothing {
            self.release_due(ctx);
        }
        self.request_wakes(ctx);
    }

    fn on_wake(&mut self, ctx: &mut AppCtx) {
        let ctl: &mut dyn Reactions = &mut self.ctl;
        self.core.on_timer_wake(ctx, ctl);
        self.accrue(ctx.now);
        self.core.admit_arrivals(ctx.now);
        self.release_due(ctx);
        self.request_wakes(ctx);
    }

    fn sample(&self, now: SimTime, rec: &mut Recorder) {
        let ids = &self.core.ids;
        rec.sample(now, ids.me, ids.rate, if self.core.sending { self.ctl.rate() } else { 0.0 });
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
    use super::super::testkit::{at, data, params};
    use super::*;
    use crate::cc::rate::{ConstantRate, ConstantRateConfig};
    use crate::recorder::EventSamples;
    use crate::rng::stream;

    fn consumer(rate: f64, bucket: usize, smoothing: bool, rec: &mut Recorder) -> RateConsumer {
        let p = ConsumerParams { retransmit: false, interest_bucket: bucket, smoothing, ..params(1200) };
        let ctl = Box::new(ConstantRate::new(&ConstantRateConfig { rate }));
        RateConsumer::new(p, ctl, stream(1, "c"), rec)
    }

    #[test]
    fn a_release_beyond_the_bucket_is_counted_as_sent_and_policed() {
        // 1000/s: one Interest at start, then a wake-up at 750 ms finds 0.75 s × 1000 = 750 due.
        // The first 200 go out, the other 550 are policed: 751 sent, 201 in flight.
        let mut rec = Recorder::new(EventSamples::Skipped);
        let mut c = consumer(1000.0, 200, false, &mut rec);
        assert_eq!(at(&mut c, &mut rec, 0, |c, ctx| c.on_start(ctx)).len(), 1);
        let out = at(&mut c, &mut rec, 750, |c, ctx| c.on_wake(ctx));
        assert_eq!(out.len(), 200);
        assert_eq!((out[0].name().unwrap().seg, out[199].name().unwrap().seg), (1, 200));
        assert_eq!((c.core.c.interests_sent, c.core.c.policed, c.core.c.lost_segments), (751, 550, 550));
        let k = c.conservation().unwrap();
        assert_eq!((k.in_flight, k.ended_by_policer), (201, 550));
        assert!(k.holds());
    }

    #[test]
    fn smoothing_releases_the_due_interests_when_a_data_arrives() {
        // 1000/s from t = 0 (seg 0 sent). A Data at 2.5 ms: 2.5 Interests are due; smoothing
        // sends 2 (segs 1, 2) at once, without it nothing leaves before the next wake-up.
        let mut rec = Recorder::new(EventSamples::Skipped);
        for (smoothing, sent) in [(true, 2), (false, 0)] {
            let mut c = consumer(1000.0, 200, smoothing, &mut rec);
            at(&mut c, &mut rec, 0, |c, ctx| c.on_start(ctx));
            let mut out = Vec::new();
            let mut ctx = AppCtx::new(SimTime(2_500_000), &mut out, &mut rec);
            c.on_packet(&mut ctx, &data(0));
            assert_eq!(out.len(), sent, "smoothing {smoothing}");
        }
    }

    #[test]
    fn data_arriving_after_its_interest_was_given_up_is_still_delivered() {
        // 0.1/s: only seg 0 is sent. Initial RTO 1 s: the 1,050 ms check gives it up (no
        // retransmission); its Data at 1,100 ms counts as received and no longer as lost.
        let mut rec = Recorder::new(EventSamples::Skipped);
        let mut c = consumer(0.1, 200, false, &mut rec);
        at(&mut c, &mut rec, 0, |c, ctx| c.on_start(ctx));
        at(&mut c, &mut rec, 1050, |c, ctx| c.on_wake(ctx));
        assert_eq!((c.core.c.timeouts, c.core.c.lost_segments), (1, 1));
        at(&mut c, &mut rec, 1100, |c, ctx| c.on_packet(ctx, &data(0)));
        assert_eq!((c.core.c.data_received, c.core.c.late_data, c.core.c.lost_segments), (1, 1, 0));
        assert!(c.conservation().unwrap().holds());
    }
}
