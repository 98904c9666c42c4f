//! Object fetching: the requests of a consumer with `arrivals`, each for a whole object.
//!
//! ```text
//!   arrivals ──▶ draw an object ──▶ already queued or being fetched? ── yes ──▶ join that fetch
//!   (when)       (catalogue: Zipf;                 │ no
//!                 else the next new one)           ▼
//!                                       queue of objects ──▶ segments, in order, through the
//!                                                            controller (window or rate)
//! ```
//!
//! Object `n` of a prefix is segments `n·S … n·S + S − 1` of it (S = `segments`), so two
//! consumers of one prefix ask for the same names when they ask for the same object, and a
//! Content Store on the way answers the second. With a catalogue, rank k (1 the most popular)
//! is object k − 1; without one, a consumer's n-th request is object n.
//!
//! The consumer numbers its transmissions' requests 0, 1, 2, … in the order it sends them, as a
//! plain consumer numbers segments; this table maps each request number to the segment on the
//! wire and back. Controllers and the retransmission machinery see only request numbers.
//!
//! A request completes when every segment of its object has arrived; the time from its arrival
//! to then (queueing at the consumer included) is its request time. A request joins a fetch of
//! the same object already under way and completes with it. When a segment is given up for good
//! (no retransmission left), the object's requests fail and the rest of it is not asked for.

use std::collections::VecDeque;

use rustc_hash::FxHashMap;

use crate::app::arrivals::{Arrivals, ArrivalsConfig};
use crate::app::catalogue::{CatalogueConfig, Zipf};
use crate::recorder::{EntityId, MetricId, Recorder, SummaryRow, Unit};
use crate::rng::SimRng;
use crate::time::SimTime;

/// The most requests a consumer holds unanswered: an arrival beyond them is refused (counted in
/// `requests_refused`), so an overloaded client's queue cannot take all memory.
pub const MAX_WAITING: u64 = 1_000_000;

/// An object-fetching consumer's settings, resolved from its spec.
#[derive(Clone, Debug)]
pub struct ObjectParams {
    /// Segments per object.
    pub size: u64,
    pub arrivals: ArrivalsConfig,
    pub catalogue: Option<CatalogueConfig>,
    /// The arrival process's stream (`app:NAME:arrivals`).
    pub arrivals_rng: SimRng,
    /// The catalogue's stream (`app:NAME:catalogue`).
    pub catalogue_rng: SimRng,
}

/// One fetch of an object: the segments still to arrive and the requests waiting for them.
struct Fetch {
    /// Tells this fetch apart from an earlier, failed one of the same object.
    id: u64,
    missing: u64,
    /// Arrival times of the requests this fetch answers.
    waiting: Vec<SimTime>,
}

/// Where a request number points.
#[derive(Clone, Copy)]
struct Bound {
    segment: u64,
    object: u64,
    fetch: u64,
}

#[derive(Clone, Copy, Debug, Default)]
struct Counts {
    requests: u64,
    joined: u64,
    refused: u64,
    completed: u64,
    failed: u64,
    objects_fetched: u64,
    /// Sum of completed requests' times [s].
    time_sum_s: f64,
}

pub(crate) struct Objects {
    size: u64,
    arrivals: Arrivals,
    catalogue: Option<(Zipf, SimRng)>,
    /// The next new object when there is no catalogue.
    fresh: u64,
    /// Objects waiting for their first segment to be sent, in arrival order.
    queue: VecDeque<u64>,
    /// The object being sent and the index of its next segment.
    current: Option<(u64, u64)>,
    /// Fetches queued or under way, by object.
    active: FxHashMap<u64, Fetch>,
    next_fetch: u64,
    by_request: FxHashMap<u64, Bound>,
    by_segment: FxHashMap<u64, u64>,
    /// Requests neither completed nor failed.
    waiting: u64,
    c: Counts,
    request_time: MetricId,
    backlog: MetricId,
}

impl Objects {
    pub fn new(p: ObjectParams, rec: &mut Recorder) -> Objects {
        Objects {
            size: p.size,
            arrivals: Arrivals::new(p.arrivals, p.arrivals_rng),
            catalogue: p.catalogue.map(|c| (Zipf::new(&c), p.catalogue_rng)),
            fresh: 0,
            queue: VecDeque::new(),
            current: None,
            active: FxHashMap::default(),
            next_fetch: 0,
            by_request: FxHashMap::default(),
            by_segment: FxHashMap::default(),
            waiting: 0,
            c: Counts::default(),
            request_time: rec.metric("request_time"),
            backlog: rec.metric("backlog"),
        }
    }

    /// The consumer starts: so does its arrival process.
    pub fn start(&mut self, now: SimTime) {
        self.arrivals.start(now);
    }

    /// When the next request arrives.
    pub fn next_arrival(&self) -> Option<SimTime> {
        self.arrivals.next_at()
    }

    /// Take in every request due by `now`.
    pub fn admit(&mut self, now: SimTime) {
        while let Some(at) = self.arrivals.pop_due(now) {
            self.request(at);
        }
    }

    fn request(&mut self, at: SimTime) {
        let object = match &mut self.catalogue {
            Some((zipf, rng)) => zipf.draw(rng) - 1,
            None => {
                self.fresh += 1;
                self.fresh - 1
            }
        };
        // An object past the last segment number cannot be named (a run would need more
        // requests than it has nanoseconds); it is not asked for.
        if object.checked_mul(self.size).and_then(|s| s.checked_add(self.size)).is_none() {
            return;
        }
        self.c.requests += 1;
        if self.waiting >= MAX_WAITING {
            self.c.refused += 1;
            return;
        }
        self.waiting += 1;
        if let Some(f) = self.active.get_mut(&object) {
            f.waiting.push(at);
            self.c.joined += 1;
            return;
        }
        self.next_fetch += 1;
        self.active.insert(object, Fetch { id: self.next_fetch, missing: self.size, waiting: vec![at] });
        self.queue.push_back(object);
    }

    /// Is there a segment not yet asked for?
    pub fn has_pending(&self) -> bool {
        self.current.is_some() || !self.queue.is_empty()
    }

    /// Give request number `request` the next segment to ask for; false when there is none.
    pub fn issue(&mut self, request: u64) -> bool {
        if self.current.is_none() {
            self.current = self.queue.pop_front().map(|o| (o, 0));
        }
        let Some((object, index)) = self.current else { return false };
        let Some(fetch) = self.active.get(&object).map(|f| f.id) else { return false };
        let segment = object * self.size + index;
        self.current = (index + 1 < self.size).then_some((object, index + 1));
        self.by_request.insert(request, Bound { segment, object, fetch });
        self.by_segment.insert(segment, request);
        true
    }

    /// The segment request number `request` asks for.
    pub fn segment_of(&self, request: u64) -> Option<u64> {
        self.by_request.get(&request).map(|b| b.segment)
    }

    /// The request number a Data or NACK for `segment` answers.
    pub fn request_of(&self, segment: u64) -> Option<u64> {
        self.by_segment.get(&segment).copied()
    }

    /// The Data of `request` arrived.
    pub fn received(&mut self, now: SimTime, request: u64, rec: &mut Recorder, me: EntityId) {
        let Some(b) = self.by_request.remove(&request) else { return };
        if self.by_segment.get(&b.segment) == Some(&request) {
            self.by_segment.remove(&b.segment);
        }
        let Some(f) = self.active.get_mut(&b.object).filter(|f| f.id == b.fetch) else { return };
        f.missing = f.missing.saturating_sub(1);
        if f.missing > 0 {
            return;
        }
        let Some(f) = self.active.remove(&b.object) else { return };
        self.c.objects_fetched += 1;
        self.waiting = self.waiting.saturating_sub(f.waiting.len() as u64);
        for at in f.waiting {
            let t = now.saturating_since(at).as_secs_f64();
            self.c.completed += 1;
            self.c.time_sum_s += t;
            rec.event(now, me, self.request_time, t);
        }
    }

    /// `request` was given up for good: its object's requests fail, and the rest of the object
    /// is not asked for. Its number stays known, so a Data arriving late is still delivered.
    pub fn given_up(&mut self, request: u64) {
        let Some(b) = self.by_request.get(&request).copied() else { return };
        if self.active.get(&b.object).is_some_and(|f| f.id == b.fetch) {
            if let Some(f) = self.active.remove(&b.object) {
                self.c.failed += f.waiting.len() as u64;
                self.waiting = self.waiting.saturating_sub(f.waiting.len() as u64);
            }
            if self.current.is_some_and(|(o, _)| o == b.object) {
                self.current = None;
            }
        }
    }

    pub fn sample(&self, now: SimTime, rec: &mut Recorder, me: EntityId) {
        rec.sample(now, me, self.backlog, self.queue.len() as f64);
    }

    pub fn summary(&self, name: &str, out: &mut Vec<SummaryRow>) {
        let c = &self.c;
        let mut row = |m: &str, v: f64, u: Unit| out.push(SummaryRow::new(name, "consumer", m, v, u));
        row("requests", c.requests as f64, Unit::Requests);
        row("requests_joined", c.joined as f64, Unit::Requests);
        row("requests_refused", c.refused as f64, Unit::Requests);
        row("requests_completed", c.completed as f64, Unit::Requests);
        row("requests_failed", c.failed as f64, Unit::Requests);
        row("requests_waiting", self.waiting as f64, Unit::Requests);
        row("objects_fetched", c.objects_fetched as f64, Unit::Objects);
        if c.completed > 0 {
            row("mean_request_time_s", c.time_sum_s / c.completed as f64, Unit::S);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::arrivals::ArrivalsConfig;
    use crate::recorder::EventSamples;
    use crate::rng::stream;

    fn objects(size: u64, catalogue: Option<CatalogueConfig>, rec: &mut Recorder) -> Objects {
        let p = ObjectParams {
            size,
            arrivals: ArrivalsConfig::Periodic { rate: 1000.0 },
            catalogue,
            arrivals_rng: stream(1, "a"),
            catalogue_rng: stream(1, "c"),
        };
        let mut o = Objects::new(p, rec);
        o.start(SimTime::ZERO);
        o
    }

    fn ms(x: u64) -> SimTime {
        SimTime(x * 1_000_000)
    }

    #[test]
    fn each_new_request_is_the_next_object_and_its_segments_go_in_order() {
        // Periodic 1000/s: requests at 0, 1 and 2 ms, objects 0, 1, 2 of 3 segments each.
        let mut rec = Recorder::new(EventSamples::Recorded);
        let mut o = objects(3, None, &mut rec);
        o.admit(ms(2));
        let segs: Vec<u64> = (0..9).map(|r| (o.issue(r), o.segment_of(r).unwrap()).1).collect();
        assert_eq!(segs, (0..9).collect::<Vec<_>>());
        assert!(!o.issue(9) && !o.has_pending());
        assert_eq!(o.request_of(4), Some(4));
    }

    #[test]
    fn a_request_completes_when_its_last_segment_arrives_and_counts_its_queueing() {
        let mut rec = Recorder::new(EventSamples::Recorded);
        let me = rec.entity("C");
        let mut o = objects(2, None, &mut rec);
        o.admit(ms(1)); // objects 0 (at 0 ms) and 1 (at 1 ms)
        for r in 0..4 {
            o.issue(r);
        }
        o.received(ms(10), 1, &mut rec, me);
        o.received(ms(10), 0, &mut rec, me);
        o.received(ms(30), 3, &mut rec, me);
        assert_eq!((o.c.completed, o.c.objects_fetched), (1, 1));
        o.received(ms(31), 2, &mut rec, me);
        // Request times 10 ms (0 → 10) and 30 ms (1 → 31).
        assert_eq!(o.c.completed, 2);
        assert!((o.c.time_sum_s - 0.040).abs() < 1e-12, "{}", o.c.time_sum_s);
        // A second Data for a finished request changes nothing.
        o.received(ms(40), 2, &mut rec, me);
        assert_eq!(o.c.completed, 2);
    }

    #[test]
    fn a_request_for_an_object_already_being_fetched_joins_it() {
        // A one-object catalogue: every request asks for object 0.
        let mut rec = Recorder::new(EventSamples::Recorded);
        let me = rec.entity("C");
        let mut o = objects(1, Some(CatalogueConfig { objects: 1, zipf: 1.0 }), &mut rec);
        o.admit(ms(0));
        assert!(o.issue(0));
        o.admit(ms(2)); // two more requests for object 0, while segment 0 is out
        assert!(!o.has_pending(), "a joined request sends nothing");
        assert_eq!((o.c.requests, o.c.joined), (3, 2));
        o.received(ms(5), 0, &mut rec, me);
        assert_eq!((o.c.completed, o.c.objects_fetched), (3, 1));
        // Times 5, 4 and 3 ms.
        assert!((o.c.time_sum_s - 0.012).abs() < 1e-12);
        // Once it is done, a new request fetches the object again.
        o.admit(ms(3));
        assert!(o.issue(1));
        assert_eq!(o.segment_of(1), Some(0));
    }

    #[test]
    fn requests_beyond_the_most_a_consumer_holds_are_refused() {
        // Periodic 1000/s for 1,001 s: 1,001,001 requests, none answered.
        let mut rec = Recorder::new(EventSamples::Skipped);
        let mut o = objects(1, None, &mut rec);
        o.admit(ms(1_001_000));
        assert_eq!((o.c.requests, o.c.refused, o.waiting), (1_001_001, 1_001, MAX_WAITING));
        // One answered makes room for one more.
        let me = rec.entity("C");
        o.issue(0);
        o.received(ms(1_001_000), 0, &mut rec, me);
        o.admit(ms(1_001_001));
        assert_eq!((o.c.refused, o.waiting), (1_001, MAX_WAITING));
    }

    #[test]
    fn a_given_up_segment_fails_its_object_and_stops_the_rest_of_it() {
        let mut rec = Recorder::new(EventSamples::Recorded);
        let me = rec.entity("C");
        let mut o = objects(4, None, &mut rec);
        o.admit(ms(0));
        o.issue(0);
        o.issue(1);
        o.given_up(0);
        assert_eq!(o.c.failed, 1);
        assert!(!o.has_pending(), "segments 2 and 3 are not asked for");
        // Segment 1's Data still arrives, and completes nothing.
        o.received(ms(9), 1, &mut rec, me);
        assert_eq!(o.c.completed, 0);
        // The late Data of the given-up segment can still be matched.
        assert_eq!(o.request_of(0), Some(0));
    }
}
