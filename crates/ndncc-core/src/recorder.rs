//! Columnar recording: probes append (t, entity, metric, value) rows to flat buffers that are
//! handed over as columns at the end of a run. Entity and metric names are interned once.

use rustc_hash::FxHashMap;

use crate::time::SimTime;

/// Interned entity ("C1", "R1->R2") or metric ("rtt") name.
pub type EntityId = u32;
pub type MetricId = u32;

/// One long-format table in column buffers.
#[derive(Default, Debug, Clone)]
pub struct Columns {
    pub t: Vec<u64>,
    pub entity: Vec<EntityId>,
    pub metric: Vec<MetricId>,
    pub value: Vec<f64>,
}

impl Columns {
    #[inline]
    pub fn push(&mut self, t: SimTime, entity: EntityId, metric: MetricId, value: f64) {
        self.t.push(t.0);
        self.entity.push(entity);
        self.metric.push(metric);
        self.value.push(value);
    }
    pub fn len(&self) -> usize {
        self.t.len()
    }
    pub fn is_empty(&self) -> bool {
        self.t.is_empty()
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
}
