//! The rows each application's last sample recorded, so that an application none of whose hooks
//! ran since is sampled from a flat array rather than from its own state.
//!
//! At scale most consumers are quiet in most sampling intervals (in a 10,000-consumer dumbbell,
//! nine in ten get no packet between two samples), and reading ten thousand scattered consumers
//! per tick costs cache misses on each. An application that says its samples change only in
//! its hooks (`Application::samples_change_only_in_hooks`) has its rows kept here; the world
//! marks it changed whenever it runs one of its hooks, and until then repeats the kept rows.

use crate::recorder::{EntityId, MetricId, Recorder};
use crate::time::SimTime;

type Row = (EntityId, MetricId, f64);

#[derive(Default)]
pub struct AppSamples {
    /// By app index: one of its hooks ran since its rows were kept (or it was never sampled).
    changed: Vec<bool>,
    /// By app index: where its kept rows lie in `rows`; `None` when not kept.
    spans: Vec<Option<(usize, usize)>>,
    /// The kept rows of every app, in app order, as of the last tick.
    rows: Vec<Row>,
    /// This tick's rows, built while sampling; becomes `rows`.
    next: Vec<Row>,
    /// Samples repeated so far.
    pub repeated: u64,
}

impl AppSamples {
    pub fn new(apps: usize) -> AppSamples {
        AppSamples { changed: vec![true; apps], spans: vec![None; apps], ..Default::default() }
    }

    /// One of app `i`'s hooks ran: what it samples may have changed.
    #[inline(always)]
    pub fn mark(&mut self, i: usize) {
        if let Some(c) = self.changed.get_mut(i) {
            *c = true;
        }
    }

    /// Start a tick.
    pub fn begin(&mut self) {
        self.next.clear();
    }

    /// Record app `i`'s kept rows again at `now`, if it has any and nothing changed since;
    /// false when the app must be sampled.
    pub fn repeat(&mut self, i: usize, now: SimTime, rec: &mut Recorder) -> bool {
        let Some((at, n)) = self.spans.get(i).copied().flatten().filter(|_| !self.changed[i]) else {
            return false;
        };
        let kept = &self.rows[at..at + n];
        rec.samples(now, kept);
        self.spans[i] = Some((self.next.len(), n));
        self.next.extend_from_slice(kept);
        self.repeated += 1;
        true
    }

    /// App `i` was just sampled and recorded the last `n` rows of the series table; keep them
    /// when `keep` (its samples change only in its hooks).
    pub fn sampled(&mut self, i: usize, n: usize, keep: bool, rec: &Recorder) {
        self.changed[i] = false;
        let at = self.next.len();
        self.spans[i] = keep.then(|| rec.series.last_rows(n)).flatten().map(|rows| {
            self.next.extend(rows);
            (at, n)
        });
    }

    /// End a tick: this tick's rows are the ones kept.
    pub fn end(&mut self) {
        std::mem::swap(&mut self.rows, &mut self.next);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recorder::EventSamples;

    fn rows(rec: &Recorder) -> Vec<(u64, EntityId, MetricId, u64)> {
        rec.series.rows().map(|(t, e, m, v)| (t, e, m, v.to_bits())).collect()
    }

    #[test]
    fn kept_rows_are_repeated_until_the_app_is_marked() {
        let mut rec = Recorder::new(EventSamples::Skipped);
        let mut s = AppSamples::new(2);
        let (t0, t1, t2) = (SimTime(10), SimTime(20), SimTime(30));
        // Tick 0: both apps sampled; app 0 is kept, app 1 is not.
        s.begin();
        assert!(!s.repeat(0, t0, &mut rec), "never sampled");
        rec.sample(t0, 7, 1, 1.5);
        rec.sample(t0, 7, 2, -0.0);
        s.sampled(0, 2, true, &rec);
        assert!(!s.repeat(1, t0, &mut rec));
        rec.sample(t0, 8, 1, 9.0);
        s.sampled(1, 1, false, &rec);
        s.end();
        // Tick 1: app 0 repeats its rows; app 1 is sampled afresh.
        s.begin();
        assert!(s.repeat(0, t1, &mut rec));
        assert!(!s.repeat(1, t1, &mut rec), "not kept");
        rec.sample(t1, 8, 1, 10.0);
        s.sampled(1, 1, false, &rec);
        s.end();
        // Tick 2: app 0 ran a hook, so it is sampled afresh.
        s.mark(0);
        s.begin();
        assert!(!s.repeat(0, t2, &mut rec));
        rec.sample(t2, 7, 1, 2.5);
        s.sampled(0, 1, true, &rec);
        s.end();
        assert_eq!(
            rows(&rec),
            vec![
                (10, 7, 1, 1.5f64.to_bits()),
                (10, 7, 2, (-0.0f64).to_bits()),
                (10, 8, 1, 9.0f64.to_bits()),
                (20, 7, 1, 1.5f64.to_bits()),
                (20, 7, 2, (-0.0f64).to_bits()),
                (20, 8, 1, 10.0f64.to_bits()),
                (30, 7, 1, 2.5f64.to_bits()),
            ]
        );
        // What app 0 keeps now is its one fresh row.
        s.begin();
        assert!(s.repeat(0, SimTime(40), &mut rec));
        assert_eq!(rows(&rec).last(), Some(&(40, 7, 1, 2.5f64.to_bits())));
    }
}
