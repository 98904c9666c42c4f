//! Fixed-interval samples: every app's, every selected face's (queue, bytes sent, drops,
//! marks, shaper and link-service values), and the strategies' and router modules' of each node
//! that gives any. A tick visits only the apps and faces something happened to since the last
//! one (and those it cannot keep); the others' rows repeat the last tick's, unread
//! (`tick_layout.rs`), or where the table cannot repeat them an app's kept rows
//! (`app_samples.rs`) and a face's values read afresh (`face_samples.rs`).

use super::engine::Engine;
use super::tick_layout::Table;
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
    /// The sampled faces and their recorder entities, in face order: a strategy's or module's
    /// per-face sample finds its face's entity here by binary search (a table by face index
    /// took 8 bytes of every face, application faces included).
    pub(super) faces: Vec<(FaceId, EntityId)>,
    pub(super) ids: FaceMetricIds,
    /// The last values sampled from each sampled face, and which faces changed since.
    pub(super) face_samples: face_samples::FaceSamples,
    /// The rows each app's last sample recorded, and which apps ran a hook since.
    pub(super) app_samples: app_samples::AppSamples,
    /// The apps or faces a tick visits (scratch).
    pub(super) visits: Vec<u32>,
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
        self.sample_apps(net, now);
        self.sample_faces(net, now);
        self.sample_modules(net, now);
        self.sample_capacity(net, now);
        self.sampling.app_samples.layout.end(&self.recorder.series);
        self.sampling.face_samples.layout.end(&self.recorder.faces);
        if let Some(iv) = self.sampling.interval {
            let next = now + iv;
            if next <= self.end {
                self.schedule(next, Event::Sample);
            }
        }
    }

    /// Every app's rows: those that ran a hook since, and those whose rows are not kept,
    /// sampled afresh; the others' repeated (without the shortcuts, all sampled afresh). Out of
    /// line, as `sample_faces`: once a tick, kept out of the event loop's code.
    #[inline(never)]
    fn sample_apps(&mut self, net: &Network, now: SimTime) {
        let shortcuts = self.shortcuts;
        let mut visits = std::mem::take(&mut self.sampling.visits);
        self.sampling.app_samples.kept.changed_apps(&mut visits);
        let samples = &mut self.sampling.app_samples;
        let changed = shortcuts.then_some(&visits[..]);
        let layout = &mut samples.layout;
        let (kept, repeated) = (&mut samples.kept, &mut samples.repeated);
        let series: Table = |r| &mut r.series;
        let skipped = layout.walk(&mut self.recorder, series, now, changed, |rec, i| {
            if shortcuts && kept.repeat(i, now, rec) {
                *repeated += 1;
                return;
            }
            let slot = &net.apps[i];
            let before = rec.series.len();
            slot.app.sample(now, rec);
            let rows = rec.series.len() - before;
            let keep = shortcuts && slot.app.samples_change_only_in_hooks();
            kept.sampled(i, rows, keep, rec);
        });
        *repeated += skipped;
        self.sampling.visits = visits;
    }

    /// Every selected face's rows: those marked since they were last read, and those that are
    /// not cacheable, read afresh; the others' repeated (while checking, or without the
    /// shortcuts, all read afresh).
    #[inline(never)]
    fn sample_faces(&mut self, net: &Network, now: SimTime) {
        let mut visits = std::mem::take(&mut self.sampling.visits);
        let fs = &mut self.sampling.face_samples;
        fs.kept.changed_positions(&mut visits);
        // While checking, faces keep their values, and all are read and compared with them.
        let keeping = fs.checking;
        let changed = (!keeping && self.shortcuts).then_some(&visits[..]);
        let (layout, kept) = (&mut fs.layout, &mut fs.kept);
        let (faces, ids) = (&self.sampling.faces, &self.sampling.ids);
        let metrics = [ids.queue_packets, ids.queue_bytes, ids.bytes_sent, ids.drops, ids.marks];
        let table: Table = |r| &mut r.faces;
        layout.walk(&mut self.recorder, table, now, changed, |rec, at| {
            let (fid, ent) = faces[at];
            let unchanged = kept.unchanged(at, fid);
            let rows = |values: [f64; 5]| std::array::from_fn::<_, 5, _>(|i| (ent, metrics[i], values[i]));
            let f = &net.faces[fid.idx()];
            let Some(eg) = &f.egress else { return };
            let values = [
                eg.queue_packets() as f64,
                crate::queue::QueueDisc::len_bytes(&eg.queue) as f64,
                f.counters.bytes_sent as f64,
                f.counters.drops() as f64,
                f.counters.marks() as f64,
            ];
            if let Some(kept) = unchanged {
                assert_eq!(kept, values, "face {} changed without a mark at {now}", net.face_name(fid));
            }
            rec.face_samples(now, &rows(values));
            let cacheable = eg.shaper().is_none() && f.link_service.is_none();
            kept.read(at, fid, values, cacheable, keeping);
            if eg.shaper().is_some() {
                rec.face_sample(now, ent, ids.shaper_len, eg.shaper_len() as f64);
            }
            if let Some(ls) = &f.link_service {
                let mut out = Vec::new();
                ls.service.sample(&mut out);
                for (metric, value, _unit) in out {
                    let mid = rec.metric(metric);
                    rec.face_sample(now, ent, mid, value);
                }
            }
        });
        self.sampling.visits = visits;
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
            for m in n.modules.iter() {
                m.module.sample(&mut out);
            }
            for &(metric, face, value) in &out {
                let mid = self.recorder.metric(metric);
                match face {
                    Some(f) => {
                        let faces = &self.sampling.faces;
                        if let Ok(at) = faces.binary_search_by_key(&f, |&(id, _)| id) {
                            self.recorder.face_sample(now, faces[at].1, mid, value);
                        }
                    }
                    None => {
                        let ent = self.recorder.entity(net.node_name(id));
                        self.recorder.sample(now, ent, mid, value);
                    }
                }
            }
        }
    }
}
