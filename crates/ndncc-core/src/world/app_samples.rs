//! The rows each application's last sample recorded, and which applications ran a hook since,
//! so that a tick samples only those and repeats the others' rows without visiting them
//! (`tick_layout.rs`).
//!
//! At scale most consumers are quiet in most sampling intervals (in a 10,000-consumer dumbbell,
//! nine in ten get no packet between two samples), and reading ten thousand scattered consumers
//! per tick costs cache misses on each. An application that says its samples change only in
//! its hooks (`Application::samples_change_only_in_hooks`) has its rows kept here; the world
//! marks it changed whenever it runs one of its hooks, and until then repeats the kept rows.
//! The kept rows are needed only where the table cannot repeat the last tick's block (events
//! recorded between ticks, an application before this one recording more rows than it did).

use super::tick_layout::TickLayout;
use crate::recorder::{EntityId, MetricId, Recorder};
use crate::time::SimTime;

type Row = (EntityId, MetricId, f64);

pub struct AppSamples {
    /// The apps' kept rows, and which changed since.
    pub kept: KeptRows,
    /// Where each app's rows lay in the last tick's block of the series table.
    pub layout: TickLayout,
    /// Samples repeated so far (kept rows recorded again, or repeated from the last tick).
    pub repeated: u64,
}

impl AppSamples {
    pub fn new(apps: usize) -> AppSamples {
        AppSamples { kept: KeptRows::new(apps), layout: TickLayout::new(apps), repeated: 0 }
    }

    /// One of app `i`'s hooks ran: what it samples may have changed.
    #[inline(always)]
    pub fn mark(&mut self, i: usize) {
        self.kept.mark(i);
    }
}

pub struct KeptRows {
    /// By app index: one of its hooks ran since its rows were kept, or it is sampled at every
    /// tick (never sampled yet, its rows not kept). A byte each, as a face's mark
    /// (`face_samples.rs`): marking is a store on the path of every packet an app gets.
    changed: Vec<u8>,
    /// By app index: where its kept rows lie in `rows`; `None` when not kept.
    spans: Vec<Option<(u32, u32)>>,
    /// The kept rows of every app, each app's together; an app whose row count changes gets a
    /// new place at the end, and the old one is garbage until `compact`.
    rows: Vec<Row>,
    garbage: usize,
}

impl KeptRows {
    pub fn new(apps: usize) -> KeptRows {
        KeptRows { changed: vec![1; apps], spans: vec![None; apps], rows: Vec::new(), garbage: 0 }
    }

    /// One of app `i`'s hooks ran: what it samples may have changed.
    #[inline(always)]
    pub fn mark(&mut self, i: usize) {
        if let Some(c) = self.changed.get_mut(i) {
            *c = 1;
        }
    }

    fn is_changed(&self, i: usize) -> bool {
        self.changed.get(i).is_none_or(|&c| c != 0)
    }

    /// The apps marked changed, ascending, into `out`.
    pub fn changed_apps(&self, out: &mut Vec<u32>) {
        out.clear();
        super::face_samples::for_each_marked(&self.changed, |i| out.push(i as u32));
    }

    /// Record app `i`'s kept rows again at `now`, if it has any and nothing changed since;
    /// false when the app must be sampled.
    pub fn repeat(&mut self, i: usize, now: SimTime, rec: &mut Recorder) -> bool {
        let Some((at, n)) = self.spans.get(i).copied().flatten().filter(|_| !self.is_changed(i)) else {
            return false;
        };
        rec.samples(now, &self.rows[at as usize..(at + n) as usize]);
        true
    }

    /// App `i` was just sampled and recorded the last `n` rows of the series table; keep them
    /// when `keep` (its samples change only in its hooks), and then sample it again only once
    /// marked.
    pub fn sampled(&mut self, i: usize, n: usize, keep: bool, rec: &Recorder) {
        let old = self.spans[i].take();
        let rows = keep.then(|| rec.series.last_rows(n)).flatten();
        let (Some(rows), Ok(n32)) = (rows, u32::try_from(n)) else {
            self.garbage += old.map_or(0, |(_, n)| n as usize);
            self.mark(i);
            return;
        };
        let at = match old {
            Some((at, was)) if was == n32 => {
                for (slot, row) in self.rows[at as usize..].iter_mut().zip(rows) {
                    *slot = row;
                }
                at
            }
            _ => {
                self.garbage += old.map_or(0, |(_, n)| n as usize);
                let at = self.rows.len();
                self.rows.extend(rows);
                at as u32
            }
        };
        self.spans[i] = Some((at, n32));
        if let Some(c) = self.changed.get_mut(i) {
            *c = 0;
        }
        if self.garbage > 1024 && self.garbage > self.rows.len() / 2 {
            self.compact();
        }
    }

    /// Keep only the rows still kept, in app order.
    fn compact(&mut self) {
        let mut rows = Vec::with_capacity(self.rows.len() - self.garbage);
        for span in self.spans.iter_mut().flatten() {
            let (at, n) = (span.0 as usize, span.1 as usize);
            span.0 = rows.len() as u32;
            rows.extend_from_slice(&self.rows[at..at + n]);
        }
        self.rows = rows;
        self.garbage = 0;
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
        let mut s = KeptRows::new(2);
        let (t0, t1, t2) = (SimTime(10), SimTime(20), SimTime(30));
        let mut changed = Vec::new();
        s.changed_apps(&mut changed);
        assert_eq!(changed, [0, 1]);
        // Tick 0: both apps sampled; app 0 is kept, app 1 is not.
        assert!(!s.repeat(0, t0, &mut rec), "never sampled");
        rec.sample(t0, 7, 1, 1.5);
        rec.sample(t0, 7, 2, -0.0);
        s.sampled(0, 2, true, &rec);
        assert!(!s.repeat(1, t0, &mut rec));
        rec.sample(t0, 8, 1, 9.0);
        s.sampled(1, 1, false, &rec);
        s.changed_apps(&mut changed);
        assert_eq!(changed, [1], "an app whose rows are not kept is sampled at every tick");
        // Tick 1: app 0 repeats its rows; app 1 is sampled afresh.
        assert!(s.repeat(0, t1, &mut rec));
        assert!(!s.repeat(1, t1, &mut rec), "not kept");
        rec.sample(t1, 8, 1, 10.0);
        s.sampled(1, 1, false, &rec);
        // Tick 2: app 0 ran a hook, so it is sampled afresh, and records one row fewer.
        s.mark(0);
        assert!(!s.repeat(0, t2, &mut rec));
        rec.sample(t2, 7, 1, 2.5);
        s.sampled(0, 1, true, &rec);
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
        assert!(s.repeat(0, SimTime(40), &mut rec));
        assert_eq!(rows(&rec).last(), Some(&(40, 7, 1, 2.5f64.to_bits())));
    }

    #[test]
    fn rows_kept_anew_in_other_numbers_are_compacted_in_app_order() {
        let mut rec = Recorder::new(EventSamples::Skipped);
        let mut s = KeptRows::new(3);
        // Apps 0 and 2 keep one row more at each tick, app 1 the same one: their old places
        // become garbage, which is dropped once it is most of the rows.
        for tick in 0..60u64 {
            let t = SimTime(tick * 10);
            for app in 0..3u32 {
                let n = if app == 1 { 1 } else { tick as u32 + 1 };
                for m in 0..n {
                    rec.sample(t, app, m, f64::from(m) + tick as f64);
                }
                s.sampled(app as usize, n as usize, true, &rec);
            }
        }
        assert!(s.garbage <= s.rows.len() / 2 + 1024);
        assert!(s.rows.len() < 2 * (60 + 1 + 60) + 1024);
        let t = SimTime(1000);
        for app in 0..3 {
            assert!(s.repeat(app, t, &mut rec));
        }
        let last: Vec<_> = rows(&rec).into_iter().filter(|r| r.0 == 1000).collect();
        let mut want = Vec::new();
        for app in 0..3u32 {
            let n = if app == 1 { 1 } else { 60 };
            want.extend((0..n).map(|m| (1000, app, m, (f64::from(m) + 59.0).to_bits())));
        }
        assert_eq!(last, want);
    }
}
