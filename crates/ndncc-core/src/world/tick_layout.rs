//! Where each sampled entity's rows lay in the last tick's block of a recorder table, so that a
//! tick visits only the entities that may have changed since and hands the rows of all the
//! others to the table as repeats of that block, without reading them
//! (`Columns::push_earlier`).
//!
//! At scale most faces and apps are idle in most intervals: in a 10,000-consumer dumbbell a
//! consumer gets a Data every two seconds or so, and of 40,002 faces a few thousand send a
//! packet between two samples. Handing every idle entity's kept rows over, even as one run
//! checked against the last tick's, cost each tick a compare per row and a pass over every
//! entity's kept values (300,000 rows a tick there, 45% of the hop's instructions). Visiting only
//! the changed ones costs a tick what changed, plus a bit per row.
//!
//! The rows of an idle entity are where its rows lay in the last tick's block as long as every
//! entity before it records as many rows as it did then; an entity that records more or fewer
//! moves the ones after it, and their `start`s move with them. The block a tick repeats from is
//! the last tick's only if that tick's rows opened it and nothing was recorded in the table
//! since (per-packet events, in the series table); otherwise, and where the table cannot repeat
//! the rows (`push_earlier` false), every entity is visited as before.

use crate::recorder::{Columns, Recorder};
use crate::time::SimTime;

/// The table a layout's rows go to.
pub type Table = fn(&mut Recorder) -> &mut Columns;

pub struct TickLayout {
    /// By entity, and one past the last: the row its rows started at in the last tick's block
    /// (a block is one tick's rows, far fewer than 2³²; `u32` halves the table of a large world).
    start: Vec<u32>,
    /// The table's length after the last tick, if that tick's rows opened its block.
    after: Option<usize>,
    /// This tick's rows open their block (none at its time before them).
    opened: bool,
    /// Entities repeated without a visit so far.
    pub repeated: u64,
}

impl TickLayout {
    pub fn new(entities: usize) -> TickLayout {
        TickLayout { start: vec![0; entities + 1], after: None, opened: false, repeated: 0 }
    }

    /// Record the rows of every entity at `now` in `table`. `visit(rec, i)` records entity
    /// `i`'s rows, fresh or kept; it is called for each entity in `changed` (ascending), and
    /// for all of them when `changed` is `None` or the last tick's block cannot be repeated
    /// from. The others' rows repeat that block's. Returns how many entities were repeated
    /// without a visit.
    pub fn walk(
        &mut self,
        rec: &mut Recorder,
        table: Table,
        now: SimTime,
        changed: Option<&[u32]>,
        mut visit: impl FnMut(&mut Recorder, usize),
    ) -> u64 {
        let t = table(rec);
        let base = t.len();
        self.opened = t.last_time().is_none_or(|last| last < now.0);
        let n = self.start.len() - 1;
        let repeatable = self.opened && self.after == Some(base);
        let Some(changed) = changed.filter(|_| repeatable) else {
            for i in 0..n {
                self.start[i] = row(table(rec).len() - base);
                visit(rec, i);
            }
            self.start[n] = row(table(rec).len() - base);
            return 0;
        };
        let mut repeated = 0;
        let mut next = 0;
        for k in changed.iter().map(|&k| k as usize).chain([n]) {
            // Entities next..k are unchanged: their rows, as the last tick's block holds them.
            let cur = row(table(rec).len() - base);
            let (from, to) = (self.start[next], self.start[k]);
            if next < k {
                if table(rec).push_earlier(now, from as usize, (to - from) as usize) {
                    repeated += (k - next) as u64;
                    if cur != from {
                        for s in &mut self.start[next..k] {
                            *s = *s + cur - from;
                        }
                    }
                } else {
                    for i in next..k {
                        self.start[i] = row(table(rec).len() - base);
                        visit(rec, i);
                    }
                }
            }
            self.start[k] = row(table(rec).len() - base);
            if k < n {
                visit(rec, k);
            }
            next = k + 1;
        }
        self.repeated += repeated;
        repeated
    }

    /// Everything of the tick is recorded in `table`.
    pub fn end(&mut self, table: &Columns) {
        self.after = self.opened.then(|| table.len());
    }
}

/// A row's place in a tick's block.
#[inline]
fn row(at: usize) -> u32 {
    debug_assert!(at <= u32::MAX as usize, "a tick's block fits u32 rows");
    at as u32
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::recorder::EventSamples;

    fn rows(c: &Columns) -> Vec<(u64, u32, u32, u64)> {
        c.rows().map(|(t, e, m, v)| (t, e, m, v.to_bits())).collect()
    }

    /// Entities whose row counts change, visited only when changed, against the same entities
    /// all visited at every tick, with now and then a row recorded between ticks.
    #[test]
    fn a_tick_that_visits_only_the_changed_entities_records_what_visiting_all_records() {
        let faces: Table = |r| &mut r.faces;
        let (mut fast, mut slow) = (Recorder::new(EventSamples::Skipped), Recorder::new(EventSamples::Skipped));
        let (mut lf, mut ls) = (TickLayout::new(5), TickLayout::new(5));
        // Entity e records `n[e]` rows of value `v[e]`.
        let (mut n, mut v) = ([1usize, 2, 0, 3, 1], [0.0f64; 5]);
        let record = |rec: &mut Recorder, e: usize, n: &[usize; 5], v: &[f64; 5], now: SimTime| {
            for m in 0..n[e] {
                rec.face_sample(now, e as u32, m as u32, v[e]);
            }
        };
        let mut repeated = 0;
        for tick in 0..12u64 {
            let now = SimTime(tick * 100);
            // Each tick changes one or two entities, some of them their row counts.
            let changed: Vec<u32> = match tick % 4 {
                0 => vec![],
                1 => vec![1],
                2 => vec![0, 3],
                _ => vec![2, 4],
            };
            for &e in &changed {
                let e = e as usize;
                v[e] += 1.0;
                if tick % 3 == 0 {
                    n[e] = (n[e] + 1) % 4;
                }
            }
            repeated += lf.walk(&mut fast, faces, now, Some(&changed), |rec, e| record(rec, e, &n, &v, now));
            ls.walk(&mut slow, faces, now, None, |rec, e| record(rec, e, &n, &v, now));
            lf.end(&fast.faces);
            ls.end(&slow.faces);
            if tick == 6 {
                for rec in [&mut fast, &mut slow] {
                    rec.face_sample(SimTime(650), 9, 9, 1.0);
                }
            }
        }
        assert_eq!(rows(&fast.faces), rows(&slow.faces));
        // Not the first tick, nor the one after the row between ticks.
        assert!(repeated >= 9 * 3, "only {repeated} entities repeated");
        assert_eq!(fast.faces.data_bytes(), slow.faces.data_bytes());
    }
}
