//! Fixed-interval samples: every app's, every selected face's (queue, bytes sent, drops,
//! marks, shaper and link-service values), and the strategies' and router modules' of each node
//! that gives any. Apps and faces nothing happened to since the last sample repeat their kept
//! values (`app_samples.rs`, `face_samples.rs`).

use super::engine::Engine;
use super::{app_samples, face_samples, Event, Network};
use crate::ids::{FaceId, NodeId};
use crate::recorder::{EntityId, MetricId};
use crate::time::{SimDuration, SimTime};

pub(super) struct FaceMetricIds {
    pub(super) queue_packets: MetricId,
    pub(super) queue_bytes: MetricId,
    pub(super) bytes_sent: MetricId,
    pub(super) drops: MetricId,
    pub(super) marks: MetricId,
    pub(super) shaper_len: MetricId,
}

/// What a run samples, and the samples it keeps to repeat.
pub(super) struct Sampling {
    pub(super) interval: Option<SimDuration>,
    pub(super) faces: Vec<(FaceId, EntityId)>,
    /// The recorder's entity of each sampled face, by face index (`None`: not sampled).
    pub(super) entity: Vec<Option<EntityId>>,
    pub(super) ids: FaceMetricIds,
    /// The last values sampled from each sampled face, and which faces changed since.
    pub(super) face_samples: face_samples::FaceSamples,
    /// The rows each app's last sample recorded, and which apps ran a hook since.
    pub(super) app_samples: app_samples::AppSamples,
    /// The nodes whose strategy or router modules may give samples, found as the run starts
    /// (strategies and modules are fixed by then): the others are not visited at each sample.
    pub(super) nodes: Vec<NodeId>,
    /// Sampled faces of links that change (a trace, scheduled actions), with the metric ids of
    /// their capacity and utilisation over each interval; empty in a world of constant links.
    pub(super) changing: Vec<(FaceId, EntityId)>,
    pub(super) capacity_ids: Option<(MetricId, MetricId)>,
}

impl Engine {
    pub(super) fn on_sample(&mut self, net: &mut Network) {
        let now = self.now();
        self.sampling.app_samples.begin();
        for (i, slot) in net.apps.iter().enumerate() {
            if self.shortcuts && self.sampling.app_samples.repeat(i, now, &mut self.recorder) {
                continue;
            }
            let before = self.recorder.series.len();
            slot.app.sample(now, &mut self.recorder);
            let rows = self.recorder.series.len() - before;
            let keep = self.shortcuts && slot.app.samples_change_only_in_hooks();
            self.sampling.app_samples.sampled(i, rows, keep, &self.recorder);
        }
        self.sampling.app_samples.end();
        let ids = &self.sampling.ids;
        let metrics = [ids.queue_packets, ids.queue_bytes, ids.bytes_sent, ids.drops, ids.marks];
        for (at, &(fid, ent)) in self.sampling.faces.iter().enumerate() {
            let unchanged = self.sampling.face_samples.unchanged(at, fid);
            let rows = |values: [f64; 5]| std::array::from_fn::<_, 5, _>(|i| (ent, metrics[i], values[i]));
            if let (Some(values), false) = (unchanged, self.sampling.face_samples.checking) {
                self.recorder.face_samples(now, &rows(values));
                continue;
            }
            let f = &net.faces[fid.idx()];
            let Some(eg) = &f.egress else { continue };
            let values = [
                eg.queue_packets() as f64,
                crate::queue::QueueDisc::len_bytes(&eg.queue) as f64,
                f.counters.bytes_sent as f64,
                f.counters.drops() as f64,
                f.counters.marks as f64,
            ];
            if let Some(kept) = unchanged {
                assert_eq!(kept, values, "face {} changed without a mark at {now}", f.name);
            }
            self.recorder.face_samples(now, &rows(values));
            let cacheable = eg.shaper.is_none() && f.link_service.is_none();
            self.sampling.face_samples.read(at, fid, values, cacheable);
            if eg.shaper.is_some() {
                self.recorder.face_sample(now, ent, self.sampling.ids.shaper_len, eg.shaper_len() as f64);
            }
            if let Some(ls) = &f.link_service {
                let mut out = Vec::new();
                ls.service.sample(&mut out);
                for (metric, value, _unit) in out {
                    let mid = self.recorder.metric(metric);
                    self.recorder.face_sample(now, ent, mid, value);
                }
            }
        }
        self.sample_modules(net, now);
        self.sample_capacity(net, now);
        if let Some(iv) = self.sampling.interval {
            let next = now + iv;
            if next <= self.end {
                self.schedule(next, Event::Sample);
            }
        }
    }

    /// The capacity of each changing link direction over the interval that ends now (0 while
    /// down; a trace's delivery opportunities), and the share of it the face used.
    fn sample_capacity(&mut self, net: &mut Network, now: SimTime) {
        let (Some((cap, util)), Some(iv)) = (self.sampling.capacity_ids, self.sampling.interval) else { return };
        // The first sample, at 0, covers no time.
        let span = if now == SimTime::ZERO { SimDuration::ZERO } else { iv.min(now - SimTime::ZERO) };
        for &(fid, ent) in &self.sampling.changing {
            let f = &mut net.faces[fid.idx()];
            let sent = f.counters.bytes_sent;
            let Some(eg) = f.egress.as_mut() else { continue };
            let bw = eg.bandwidth_bps;
            let Some(d) = eg.dynamics.as_deref_mut() else { continue };
            d.accrue(now, bw);
            let (capacity, used) = d.sample(span, sent);
            self.recorder.face_sample(now, ent, cap, capacity);
            self.recorder.face_sample(now, ent, util, used);
        }
    }

    /// Strategies' and router modules' samples: per-face values go to the face table (for the
    /// faces selected for recording), node-level values to the series table under the node's name.
    fn sample_modules(&mut self, net: &mut Network, now: SimTime) {
        let mut out = Vec::new();
        for &id in &self.sampling.nodes {
            let n = &net.nodes[id.idx()];
            out.clear();
            n.strategy.get_ref().sample(&mut out);
            for m in &n.modules {
                m.module.sample(&mut out);
            }
            for &(metric, face, value) in &out {
                let mid = self.recorder.metric(metric);
                match face {
                    Some(f) => {
                        if let Some(ent) = self.sampling.entity.get(f.idx()).copied().flatten() {
                            self.recorder.face_sample(now, ent, mid, value);
                        }
                    }
                    None => {
                        let ent = self.recorder.entity(&n.name);
                        self.recorder.sample(now, ent, mid, value);
                    }
                }
            }
        }
    }
}
