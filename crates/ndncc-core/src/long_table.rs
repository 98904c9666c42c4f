//! A run's long-format tables as the front takes them, and their one row order: by entity
//! name, then metric name, then time (`ndncc.output.sort_long`), rows equal in all three
//! keeping the order they were recorded in.
//!
//! The recorder holds rows in time order, so each (entity, metric) pair's rows are in time
//! order already, and the table is put in name order as it is taken out: one pass counts each
//! pair's rows, a second writes every row straight into its place. That is linear, and it
//! allocates the four columns and nothing of their size besides: a sort of the taken-out
//! columns needed three index arrays and a second copy of the columns, and on this machine a
//! page of fresh memory costs more to touch (1.3 to 1.6 µs) than the rows written into it.

use rustc_hash::FxHashMap;

use crate::recorder::{Columns, EntityId, MetricId};

/// A long-format table: row i is (t[i] seconds, entities[entity[i]], metrics[metric[i]], value[i]).
#[derive(Clone, Debug, Default)]
pub struct LongTable {
    pub t: Vec<f64>,
    pub entity: Vec<u32>,
    pub metric: Vec<u32>,
    pub value: Vec<f64>,
    pub entities: Vec<String>,
    pub metrics: Vec<String>,
}

impl LongTable {
    /// A recorder's table, with times in seconds, in name order.
    pub fn from_columns(c: &Columns, entities: &[String], metrics: &[String]) -> LongTable {
        let order = NameOrder::new(entities, metrics, c.len(), |count| c.for_each_key(count));
        let mut table = order.place(c.len(), |put| c.for_each_row(|ns, e, m, v| put(ns as f64 / 1e9, e, m, v)));
        table.entities = entities.to_vec();
        table.metrics = metrics.to_vec();
        table
    }

    pub fn len(&self) -> usize {
        self.t.len()
    }
    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
    }
}

/// Where each (entity, metric) pair's rows go: the pairs ranked by name, each with the next
/// free row of its run.
struct NameOrder {
    entity_rank: Vec<usize>,
    metric_rank: Vec<usize>,
    /// Distinct metric names: a pair's number is entity rank × this + metric rank.
    metric_ranks: usize,
    next: NextRow,
}

/// Possible pairs beyond twice the rows that still get a plain array (half a megabyte).
const DENSE_SLACK: usize = 1 << 16;

/// The next free row of each pair's run, by pair number: a plain array when there are not
/// many more possible pairs than rows, else a map of the pairs that occur (a table with a
/// thousand entities and a thousand metrics but few rows must not cost a million slots).
enum NextRow {
    Dense(Vec<usize>),
    Sparse(FxHashMap<usize, usize>),
}

impl NextRow {
    #[inline]
    fn slot(&mut self, pair: usize) -> &mut usize {
        match self {
            NextRow::Dense(next) => &mut next[pair],
            NextRow::Sparse(next) => next.entry(pair).or_insert(0),
        }
    }
}

impl NameOrder {
    /// `keys(count)` calls `count(entity, metric)` once for each of the table's `rows` rows.
    fn new(
        entities: &[String],
        metrics: &[String],
        rows: usize,
        keys: impl FnOnce(&mut dyn FnMut(EntityId, MetricId)),
    ) -> NameOrder {
        let (entity_rank, metric_rank) = (name_ranks(entities), name_ranks(metrics));
        let distinct = |ranks: &[usize]| ranks.iter().max().map_or(1, |r| r + 1);
        let metric_ranks = distinct(&metric_rank);
        let pairs = distinct(&entity_rank).checked_mul(metric_ranks);
        let next = match pairs {
            Some(p) if p <= rows.saturating_mul(2).saturating_add(DENSE_SLACK) => NextRow::Dense(vec![0; p]),
            _ => NextRow::Sparse(FxHashMap::default()),
        };
        let mut order = NameOrder { entity_rank, metric_rank, metric_ranks, next };
        // Count each pair's rows, then turn the counts into the first row of each pair's run.
        keys(&mut |e, m| {
            let pair = order.pair(e, m);
            *order.next.slot(pair) += 1;
        });
        let mut at = 0;
        let mut start = |count: &mut usize| {
            let first = at;
            at += *count;
            *count = first;
        };
        match &mut order.next {
            NextRow::Dense(next) => next.iter_mut().for_each(&mut start),
            NextRow::Sparse(next) => {
                let mut pairs: Vec<(&usize, &mut usize)> = next.iter_mut().collect();
                pairs.sort_unstable_by_key(|(pair, _)| **pair);
                pairs.into_iter().for_each(|(_, count)| start(count));
            }
        }
        order
    }

    #[inline]
    fn pair(&self, entity: EntityId, metric: MetricId) -> usize {
        let rank = |ranks: &[usize], at: u32| usize::try_from(at).ok().and_then(|a| ranks.get(a).copied()).unwrap_or(0);
        rank(&self.entity_rank, entity) * self.metric_ranks + rank(&self.metric_rank, metric)
    }

    /// The table of `rows` rows that `each(put)` gives, calling `put(t, entity, metric,
    /// value)` for each row in the order counted, with every row in its place. A pair whose
    /// rows did not come in time order is then sorted by time on its own.
    fn place(mut self, rows: usize, each: impl FnOnce(&mut dyn FnMut(f64, EntityId, MetricId, f64))) -> LongTable {
        let mut table = LongTable {
            t: vec![0.0; rows],
            entity: vec![0; rows],
            metric: vec![0; rows],
            value: vec![0.0; rows],
            ..LongTable::default()
        };
        // Set when a row is earlier than the row before it in its pair's run. The row before
        // the first of a run is another pair's, or not written yet (zeros): only a negative time
        // can mistake that for its own, and then the runs are just checked.
        let mut maybe_unordered = false;
        each(&mut |t, e, m, v| {
            let pair = self.pair(e, m);
            let slot = self.next.slot(pair);
            let at = *slot;
            *slot += 1;
            maybe_unordered |= at > 0
                && table.t[at - 1].total_cmp(&t).is_gt()
                && self.pair(table.entity[at - 1], table.metric[at - 1]) == pair;
            table.t[at] = t;
            table.entity[at] = e;
            table.metric[at] = m;
            table.value[at] = v;
        });
        if maybe_unordered {
            self.sort_runs_by_time(&mut table);
        }
        table
    }

    /// Sort each pair's run by time where its rows came out of time order (the engine's never
    /// do; a table built elsewhere may).
    fn sort_runs_by_time(&self, table: &mut LongTable) {
        let mut from = 0;
        while from < table.len() {
            let pair = self.pair(table.entity[from], table.metric[from]);
            let mut to = from + 1;
            let mut ordered = true;
            while to < table.len() && self.pair(table.entity[to], table.metric[to]) == pair {
                ordered &= table.t[to - 1].total_cmp(&table.t[to]).is_le();
                to += 1;
            }
            if !ordered {
                let mut run: Vec<(f64, u32, u32, f64)> =
                    (from..to).map(|i| (table.t[i], table.entity[i], table.metric[i], table.value[i])).collect();
                run.sort_by(|a, b| a.0.total_cmp(&b.0));
                for (i, (t, e, m, v)) in (from..to).zip(run) {
                    (table.t[i], table.entity[i], table.metric[i], table.value[i]) = (t, e, m, v);
                }
            }
            from = to;
        }
    }
}

/// Each name's rank in byte order, equal names ranking equal.
fn name_ranks(names: &[String]) -> Vec<usize> {
    let mut by_name: Vec<usize> = (0..names.len()).collect();
    by_name.sort_by(|&a, &b| names[a].cmp(&names[b]));
    let mut ranks = vec![0; names.len()];
    let mut rank = 0;
    for (k, &i) in by_name.iter().enumerate() {
        if k > 0 && names[i] != names[by_name[k - 1]] {
            rank += 1;
        }
        ranks[i] = rank;
    }
    ranks
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimTime;

    /// The order of any table, which only the tests ask: the engine's tables are put in it as
    /// they are taken out of the recorder.
    impl LongTable {
        /// Put the rows in name order. A name index out of range ranks as the first name.
        fn sort_by_names(&mut self) {
            let order = NameOrder::new(&self.entities, &self.metrics, self.len(), |count| {
                (0..self.len()).for_each(|i| count(self.entity[i], self.metric[i]))
            });
            let placed = order.place(self.len(), |put| {
                (0..self.len()).for_each(|i| put(self.t[i], self.entity[i], self.metric[i], self.value[i]))
            });
            (self.t, self.entity, self.metric, self.value) = (placed.t, placed.entity, placed.metric, placed.value);
        }
    }

    /// The rows of `t` as (t, entity name, metric name, value), in order.
    fn named_rows(t: &LongTable) -> Vec<(f64, String, String, f64)> {
        (0..t.len())
            .map(|i| {
                let (e, m) = (t.entity[i] as usize, t.metric[i] as usize);
                (t.t[i], t.entities[e].clone(), t.metrics[m].clone(), t.value[i])
            })
            .collect()
    }

    proptest::proptest! {
        /// Whatever the rows and names (repeated names, rows out of time order, ties), the
        /// order is that of a stable sort by entity name, metric name and time, as polars'
        /// `sort(["entity", "metric", "t"], maintain_order=True)` gives.
        #[test]
        fn rows_sorted_by_names_come_in_the_order_of_a_stable_sort_by_name_and_time(
            entities in proptest::collection::vec("[ab\u{e9}]{0,2}", 1..5),
            metrics in proptest::collection::vec("[xy]{0,2}", 1..4),
            rows in proptest::collection::vec((0u8..6, 0u32..5, 0u32..4), 0..60),
        ) {
            let mut table = LongTable { entities, metrics, ..LongTable::default() };
            for (k, &(t, e, m)) in rows.iter().enumerate() {
                table.t.push(f64::from(t) / 4.0);
                table.entity.push(e % table.entities.len() as u32);
                table.metric.push(m % table.metrics.len() as u32);
                table.value.push(k as f64);
            }
            let mut expected = named_rows(&table);
            expected.sort_by(|a, b| (&a.1, &a.2).cmp(&(&b.1, &b.2)).then(a.0.total_cmp(&b.0)));
            table.sort_by_names();
            proptest::prop_assert_eq!(named_rows(&table), expected);
        }
    }

    /// The engine never writes a name index out of range, but a table built elsewhere may: such
    /// a row ranks as the first name, and no name list, not even an empty one, makes it panic.
    #[test]
    fn rows_naming_no_entity_or_metric_sort_first_without_panicking() {
        let table = |entities: &[&str], metrics: &[&str]| LongTable {
            t: vec![2.0, 1.0, 0.0],
            entity: vec![0, 7, 1],
            metric: vec![0, 9, 0],
            value: vec![0.0, 1.0, 2.0],
            entities: entities.iter().map(|s| s.to_string()).collect(),
            metrics: metrics.iter().map(|s| s.to_string()).collect(),
        };
        let mut named = table(&["b", "a"], &["x"]);
        named.sort_by_names();
        // Row 1 (bad indices) ranks as ("a", "x"), with row 2, and follows it in time; "b" last.
        assert_eq!(named.value, vec![2.0, 1.0, 0.0]);
        for (entities, metrics) in [(&[][..], &["x"][..]), (&["b", "a"][..], &[][..]), (&[][..], &[][..])] {
            let mut t = table(entities, metrics);
            t.sort_by_names();
            assert_eq!(t.len(), 3, "{entities:?} {metrics:?}");
        }
    }

    /// A recorder's table comes out in name order, times in seconds, with the rows the
    /// recorder holds; a table with many more possible pairs than rows (a map of the pairs
    /// rather than an array) comes out the same as one sorted afterwards.
    #[test]
    fn a_recorders_table_is_taken_out_in_name_order() {
        let names = |prefix: &str, n: usize| (0..n).map(|i| format!("{prefix}{:03}", (i * 7) % n)).collect::<Vec<_>>();
        for (entities, metrics) in [(3, 2), (400, 300)] {
            let (entities, metrics) = (names("e", entities), names("m", metrics));
            let mut c = Columns::default();
            let mut rows = LongTable { entities: entities.clone(), metrics: metrics.clone(), ..LongTable::default() };
            for tick in 0..20u64 {
                for k in 0..5u32 {
                    let (e, m) = ((k * 13 + 1) % entities.len() as u32, (k * 5 + 2) % metrics.len() as u32);
                    let v = (tick * 10 + u64::from(k % 2)) as f64;
                    c.push(SimTime(tick * 500_000_000), e, m, v);
                    rows.t.push(tick as f64 / 2.0);
                    rows.entity.push(e);
                    rows.metric.push(m);
                    rows.value.push(v);
                }
            }
            let taken = LongTable::from_columns(&c, &entities, &metrics);
            let mut expected = named_rows(&rows);
            expected.sort_by(|a, b| (&a.1, &a.2).cmp(&(&b.1, &b.2)).then(a.0.total_cmp(&b.0)));
            assert_eq!(named_rows(&taken), expected, "{} entities", entities.len());
            rows.sort_by_names();
            assert_eq!(named_rows(&rows), expected);
        }
    }
}
