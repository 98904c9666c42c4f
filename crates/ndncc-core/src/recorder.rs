//! Columnar recording: probes append (t, entity, metric, value) rows to flat buffers that are
//! handed over as columns at the end of a run. Entity and metric names are interned once.

use rustc_hash::FxHashMap;

use crate::time::SimTime;

/// Interned entity ("C1", "R1->R2") or metric ("rtt") name.
pub type EntityId = u32;
pub type MetricId = u32;

/// One long-format table of (t, entity, metric, value) rows, stored by instant: the rows of one
/// time form a block, and a block whose (entity, metric) keys repeat those of the previous block
/// stores only its values. Periodic samples repeat their keys at every tick, so a sampled row
/// costs 8 bytes rather than 24, and large runs' memory is mostly the values they recorded.
#[derive(Default, Debug, Clone)]
pub struct Columns {
    blocks: Vec<Block>,
    /// (entity, metric) of the rows of blocks whose keys are not a repeat; the open block's keys
    /// are always here until it closes.
    keys: Vec<(EntityId, MetricId)>,
    values: Vec<f64>,
}

/// Rows at one time: `len` values, keyed by `keys[keys_at..keys_at + len]`.
#[derive(Clone, Copy, Debug)]
struct Block {
    t: u64,
    keys_at: usize,
    len: usize,
}

impl Columns {
    #[inline]
    pub fn push(&mut self, t: SimTime, entity: EntityId, metric: MetricId, value: f64) {
        if self.blocks.last().is_none_or(|b| b.t != t.0) {
            self.close_block();
            self.blocks.push(Block { t: t.0, keys_at: self.keys.len(), len: 0 });
        }
        if let Some(b) = self.blocks.last_mut() {
            b.len += 1;
        }
        self.keys.push((entity, metric));
        self.values.push(value);
    }

    /// The open block repeats the keys of the block before it: point it at those and drop its
    /// own copy.
    fn close_block(&mut self) {
        let [.., prev, last] = self.blocks.as_mut_slice() else { return };
        if prev.len != last.len {
            return;
        }
        let (earlier, own) = self.keys.split_at(last.keys_at);
        if earlier.get(prev.keys_at..prev.keys_at + prev.len) == Some(own) {
            last.keys_at = prev.keys_at;
            self.keys.truncate(self.keys.len() - last.len);
        }
    }

    pub fn len(&self) -> usize {
        self.values.len()
    }
    pub fn is_empty(&self) -> bool {
        self.values.is_empty()
    }

    /// Every row in the order it was recorded: (t in ns, entity, metric, value).
    pub fn rows(&self) -> impl Iterator<Item = (u64, EntityId, MetricId, f64)> + '_ {
        let starts = self.blocks.iter().scan(0, |start, b| {
            *start += b.len;
            Some((b, *start - b.len))
        });
        starts.flat_map(move |(b, at)| {
            let keys = &self.keys[b.keys_at..b.keys_at + b.len];
            keys.iter().zip(&self.values[at..at + b.len]).map(move |(&(e, m), &v)| (b.t, e, m, v))
        })
    }

    /// The values column, in row order.
    pub fn values(&self) -> &[f64] {
        &self.values
    }

    /// The table as four columns: t, entity, metric, value, with each time (ns) turned into `T`
    /// as the column is built. The values are moved, not copied.
    pub fn into_columns<T: Copy>(self, time: impl Fn(u64) -> T) -> (Vec<T>, Vec<EntityId>, Vec<MetricId>, Vec<f64>) {
        let n = self.len();
        let (mut t, mut entity, mut metric) = (Vec::with_capacity(n), Vec::with_capacity(n), Vec::with_capacity(n));
        for b in &self.blocks {
            t.extend(std::iter::repeat_n(time(b.t), b.len));
            for &(e, m) in &self.keys[b.keys_at..b.keys_at + b.len] {
                entity.push(e);
                metric.push(m);
            }
        }
        (t, entity, metric, self.values)
    }

    /// Bytes the rows take as stored: 8 per value, plus their keys (8 each) where a block does
    /// not repeat the previous one, plus 24 per block. Spare capacity is left out: it is address
    /// space, mostly never touched.
    pub fn data_bytes(&self) -> usize {
        self.values.len() * 8 + self.keys.len() * 8 + self.blocks.len() * std::mem::size_of::<Block>()
    }
}

#[derive(Default, Debug)]
struct Interner {
    names: Vec<String>,
    index: FxHashMap<String, u32>,
}

impl Interner {
    fn id(&mut self, name: &str) -> u32 {
        if let Some(i) = self.index.get(name) {
            return *i;
        }
        let i = self.names.len() as u32;
        self.names.push(name.to_owned());
        self.index.insert(name.to_owned(), i);
        i
    }
}

/// The run's recorder: app/flow series and face series, each long format.
#[derive(Default, Debug)]
pub struct Recorder {
    pub series: Columns,
    pub faces: Columns,
    entities: Interner,
    metrics: Interner,
    /// Per-packet event samples (RTT at each Data, timeouts, marks …) are recorded.
    pub events: bool,
}

impl Recorder {
    pub fn new(events: bool) -> Recorder {
        Recorder { events, ..Default::default() }
    }
    pub fn entity(&mut self, name: &str) -> EntityId {
        self.entities.id(name)
    }
    pub fn metric(&mut self, name: &str) -> MetricId {
        self.metrics.id(name)
    }
    /// Rows recorded so far, both tables.
    pub fn rows(&self) -> usize {
        self.series.len() + self.faces.len()
    }
    /// Bytes both tables' rows take: the part of a run's memory that is its recorded output
    /// rather than the simulation's state.
    pub fn data_bytes(&self) -> usize {
        self.series.data_bytes() + self.faces.data_bytes()
    }
    pub fn entity_names(&self) -> &[String] {
        &self.entities.names
    }
    pub fn metric_names(&self) -> &[String] {
        &self.metrics.names
    }
    /// An event sample (kept only when event recording is on).
    #[inline]
    pub fn event(&mut self, t: SimTime, entity: EntityId, metric: MetricId, value: f64) {
        if self.events {
            self.series.push(t, entity, metric, value);
        }
    }
    /// A fixed-interval sample of an app or flow.
    #[inline]
    pub fn sample(&mut self, t: SimTime, entity: EntityId, metric: MetricId, value: f64) {
        self.series.push(t, entity, metric, value);
    }
    /// A fixed-interval sample of a face.
    #[inline]
    pub fn face_sample(&mut self, t: SimTime, entity: EntityId, metric: MetricId, value: f64) {
        self.faces.push(t, entity, metric, value);
    }
}

/// One row of a run's summary.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SummaryRow {
    pub entity: String,
    /// "consumer", "producer", "face", "node" or "run".
    pub kind: String,
    pub metric: String,
    pub value: f64,
    pub unit: String,
}

impl SummaryRow {
    pub fn new(entity: &str, kind: &str, metric: &str, value: f64, unit: &str) -> SummaryRow {
        SummaryRow { entity: entity.into(), kind: kind.into(), metric: metric.into(), value, unit: unit.into() }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_are_interned_once_and_event_samples_obey_the_switch() {
        let mut r = Recorder::new(false);
        let c1 = r.entity("C1");
        assert_eq!(r.entity("C1"), c1);
        let rtt = r.metric("rtt");
        r.event(SimTime(5), c1, rtt, 0.1);
        assert!(r.series.is_empty());
        r.sample(SimTime(5), c1, rtt, 0.1);
        assert_eq!(r.series.len(), 1);
        assert_eq!(r.metric_names(), &["rtt".to_string()]);
    }

    #[test]
    fn repeated_keys_are_stored_once_and_rows_come_back_in_order() {
        let mut c = Columns::default();
        let mut rows = Vec::new();
        for tick in 0..100u64 {
            for (e, m) in [(0, 0), (0, 1), (1, 0)] {
                let v = (tick * 10 + u64::from(e + m)) as f64;
                c.push(SimTime(tick * 1000), e, m, v);
                rows.push((tick * 1000, e, m, v));
            }
        }
        // A block with other keys, one at the same time as the next, and a repeat again.
        for (t, e, m) in [(100_500, 7, 7), (100_600, 0, 0), (100_600, 0, 1), (100_600, 1, 0), (100_700, 0, 0)] {
            c.push(SimTime(t), e, m, 1.5);
            rows.push((t, e, m, 1.5));
        }
        assert_eq!(c.rows().collect::<Vec<_>>(), rows);
        assert_eq!(c.len(), rows.len());
        // One copy of the tick's three keys; the odd block's one; the tick's keys again (their
        // block follows the odd one, and only the previous block is compared); the open block's.
        assert_eq!(c.keys.len(), 3 + 1 + 3 + 1);
        let (t, e, m, v) = c.clone().into_columns(|ns| ns);
        let back: Vec<_> = (0..t.len()).map(|i| (t[i], e[i], m[i], v[i])).collect();
        assert_eq!(back, rows);
    }

    proptest::proptest! {
        #[test]
        fn any_rows_come_back_as_pushed(
            pushes in proptest::collection::vec((0u64..3, 0u32..3, 0u32..2, -5.0f64..5.0), 0..200),
        ) {
            let mut c = Columns::default();
            let (mut t, mut rows) = (0u64, Vec::new());
            for (dt, e, m, v) in pushes {
                t += dt;
                c.push(SimTime(t), e, m, v);
                rows.push((t, e, m, v));
            }
            proptest::prop_assert_eq!(c.rows().collect::<Vec<_>>(), rows.clone());
            let (ts, es, ms, vs) = c.into_columns(|ns| ns);
            let back: Vec<_> = (0..ts.len()).map(|i| (ts[i], es[i], ms[i], vs[i])).collect();
            proptest::prop_assert_eq!(back, rows);
        }
    }
}
