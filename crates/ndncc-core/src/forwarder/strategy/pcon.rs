//! PCON's multipath forwarding (seed 004; ALGORITHMS.md A5): per FIB entry, a forwarding
//! percentage per upstream face, moved away from faces that signal congestion.
//!
//! ```text
//!   start:           100% on the lowest-cost next hop (`init = "shortest"`) or an equal split
//!   each Interest:   draw r ∈ [0,1); send on the face where r falls in the cumulative split
//!                    (normalised over the eligible faces); if r ≤ probing, also on every other
//!                    next hop, so their state stays known
//!   marked Data from F, or a marked NACK from F (at most one NACK-driven update per
//!   nack_update_interval):   Δ = min(change_per_mark · perc(F), perc(F))
//!                            perc(F) -= Δ;  every other face += Δ / (faces − 1)
//!   PIT entry expired:       the same with Δ = min(change_per_mark, perc(F)) for the face the
//!                            Interest was sent on (its first out-face)
//! ```
//!
//! Traffic returns to the shortest path through the same rule: once the diverted paths become
//! congested in turn, their marks move share back. There is no separate drift term (the
//! reference code has none). An Interest sent on a face whose queue is in its marking state
//! marks its PIT entry, so the Data answering it is marked on the way back (PCON's upstream
//! marking; on by default here, as in the reference strategy).
//!
//! Defaults are the reference code's: CHANGE_PER_MARK 0.02, PROBING_PERCENTAGE 0.001,
//! TIME_BETWEEN_FW_UPDATE 110 ms, INIT_SHORTEST_PATH true.

use rand::Rng;
use rustc_hash::FxHashMap;
use serde::{Deserialize, Serialize};

use super::share::ShareMeter;
use super::{
    AnyStrategy, DataEvent, ExpiryEvent, FaceList, InterestEvent, NackEvent, Strategy, StrategyCtx, UpstreamMarking,
};
use crate::forwarder::fib::{FibEntryId, NextHop};
use crate::ids::FaceId;
use crate::packet::Packet;
use crate::plugin::{check, Check, Plugin};
use crate::time::SimTime;
use crate::units::Duration;

/// Where a FIB entry's split starts.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum InitialSplit {
    /// Everything on the lowest-cost next hop (ties: the first listed).
    #[default]
    Shortest,
    /// The same share on every next hop.
    Equal,
}

/// `strategy = { type = "pcon", … }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PconStrategyConfig {
    /// Fraction of a face's share moved away per congestion signal. Default 0.02.
    pub change_per_mark: f64,
    /// Probability that an Interest is also sent on every other next hop. Default 0.001.
    pub probing: f64,
    /// Least time between two updates driven by marked NACKs. Default 110 ms.
    pub nack_update_interval: Duration,
    /// `"shortest"` (default) or `"equal"`.
    pub init: InitialSplit,
    /// PCON's upstream-side marking (see `best-route`). Default true.
    pub pcon_upstream_marking: UpstreamMarking,
}

impl Default for PconStrategyConfig {
    fn default() -> Self {
        PconStrategyConfig {
            change_per_mark: 0.02,
            probing: 0.001,
            nack_update_interval: Duration::from_millis(110),
            init: InitialSplit::Shortest,
            pcon_upstream_marking: UpstreamMarking::ON,
        }
    }
}

impl Plugin for PconStrategyConfig {
    type Built = AnyStrategy;
    fn validate(&self) -> Check {
        check::fraction("change_per_mark", self.change_per_mark)?;
        check::fraction("probing", self.probing)?;
        check::time("nack_update_interval", self.nack_update_interval.get(), true)
    }
    fn build(&self) -> AnyStrategy {
        AnyStrategy::Pcon(Box::new(PconStrategy::new(self)))
    }
}

/// The split of one FIB entry: (face, percentage), summing to 1.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Split(pub Vec<(FaceId, f64)>);

impl Split {
    fn new(nexthops: &[NextHop], init: InitialSplit) -> Split {
        let n = nexthops.len().max(1) as f64;
        Split(
            nexthops
                .iter()
                .enumerate()
                .map(|(i, h)| {
                    let p = match init {
                        InitialSplit::Shortest => f64::from(u8::from(i == 0)),
                        InitialSplit::Equal => 1.0 / n,
                    };
                    (h.face, p)
                })
                .collect(),
        )
    }

    pub fn of(&self, face: FaceId) -> f64 {
        self.0.iter().find(|(f, _)| *f == face).map_or(0.0, |(_, p)| *p)
    }

    /// Move `change` (at most the face's own share) from `face` to the others, equally.
    pub fn reduce(&mut self, face: FaceId, change: f64) {
        if self.0.len() < 2 {
            return;
        }
        let moved = change.min(self.of(face)).max(0.0);
        let each = moved / (self.0.len() - 1) as f64;
        for (f, p) in &mut self.0 {
            if *f == face {
                *p -= moved;
            } else {
                *p += each;
            }
        }
    }

    /// The face where `r` falls in the cumulative split over `eligible` faces (normalised).
    fn pick(&self, eligible: &[NextHop], r: f64) -> Option<FaceId> {
        let sum: f64 = eligible.iter().map(|h| self.of(h.face)).sum();
        if eligible.len() == 1 || sum <= 0.0 {
            return eligible.first().map(|h| h.face);
        }
        let mut cum = 0.0;
        for h in eligible {
            cum += self.of(h.face) / sum;
            if r < cum {
                return Some(h.face);
            }
        }
        // Rounding left r just above the last cumulative value.
        eligible.iter().rev().find(|h| self.of(h.face) > 0.0).map(|h| h.face)
    }
}

pub struct PconStrategy {
    cfg: PconStrategyConfig,
    splits: FxHashMap<FibEntryId, Split>,
    last_nack_update: Option<SimTime>,
    shares: ShareMeter,
}

impl PconStrategy {
    pub fn new(cfg: &PconStrategyConfig) -> PconStrategy {
        PconStrategy {
            cfg: cfg.clone(),
            splits: FxHashMap::default(),
            last_nack_update: None,
            shares: ShareMeter::default(),
        }
    }

    /// The split of a FIB entry, once an Interest has used it.
    pub fn split(&self, entry: FibEntryId) -> Option<&Split> {
        self.splits.get(&entry)
    }

    fn reduce(&mut self, entry: Option<FibEntryId>, face: FaceId, relative: bool) {
        let Some(split) = entry.and_then(|e| self.splits.get_mut(&e)) else { return };
        let change = if relative { self.cfg.change_per_mark * split.of(face) } else { self.cfg.change_per_mark };
        split.reduce(face, change);
    }
}

impl Strategy for PconStrategy {
    fn name(&self) -> &'static str {
        "pcon"
    }
    fn choose(&mut self, ctx: &mut StrategyCtx, ev: &InterestEvent, out: &mut FaceList) {
        let (fib_entry, nexthops) = (ev.fib_entry, ev.nexthops);
        let init = self.cfg.init;
        let split = self.splits.entry(fib_entry).or_insert_with(|| Split::new(nexthops, init));
        for h in nexthops {
            if !split.0.iter().any(|(f, _)| *f == h.face) {
                split.0.push((h.face, 0.0));
            }
        }
        let r: f64 = ctx.rng.gen();
        let Some(chosen) = split.pick(nexthops, r) else { return };
        out.push(chosen);
        self.shares.count(chosen);
        if r <= self.cfg.probing {
            out.extend(nexthops.iter().map(|h| h.face).filter(|f| *f != chosen));
        }
    }
    fn on_data(&mut self, _ctx: &mut StrategyCtx, ev: &DataEvent) {
        if ev.data.mark > 0 {
            self.reduce(ev.fib_entry, ev.from, true);
        }
    }
    fn on_nack(&mut self, ctx: &mut StrategyCtx, ev: &NackEvent) -> Option<FaceId> {
        let due = self.last_nack_update.is_none_or(|t| ctx.now >= t + self.cfg.nack_update_interval.get());
        if ev.nack.mark > 0 && due {
            self.last_nack_update = Some(ctx.now);
            self.reduce(ev.fib_entry, ev.from, true);
        }
        None
    }
    fn on_pit_expired(&mut self, _ctx: &mut StrategyCtx, ev: &ExpiryEvent) {
        // The face the strategy chose comes first; probes follow it.
        if let Some(&face) = ev.out_faces.first() {
            self.reduce(ev.fib_entry, face, false);
        }
    }
    fn after_send_interest(&mut self, ctx: &mut StrategyCtx, face: FaceId, _interest: &Packet) -> bool {
        self.cfg.pcon_upstream_marking.marks(ctx, face)
    }
    fn sample(&self, out: &mut Vec<(&'static str, Option<FaceId>, f64)>) {
        self.shares.sample(out);
        // A face's percentage, averaged over the FIB entries that use it.
        let mut perc: Vec<(FaceId, f64, u32)> = Vec::new();
        let mut entries: Vec<_> = self.splits.iter().collect();
        entries.sort_by_key(|(e, _)| **e);
        for (_, split) in entries {
            for &(f, p) in &split.0 {
                match perc.iter_mut().find(|(g, _, _)| *g == f) {
                    Some((_, s, n)) => {
                        *s += p;
                        *n += 1;
                    }
                    None => perc.push((f, p, 1)),
                }
            }
        }
        out.extend(perc.into_iter().map(|(f, s, n)| ("fw_perc", Some(f), s / f64::from(n))));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hops(faces: &[u32]) -> Vec<NextHop> {
        faces.iter().map(|&f| NextHop { face: FaceId(f), cost: u64::from(f) }).collect()
    }

    #[test]
    fn a_mark_moves_two_percent_of_the_face_share_to_the_others_equally() {
        let mut s = Split::new(&hops(&[1, 2, 3]), InitialSplit::Shortest);
        assert_eq!(s.0, vec![(FaceId(1), 1.0), (FaceId(2), 0.0), (FaceId(3), 0.0)]);
        s.reduce(FaceId(1), 0.02 * s.of(FaceId(1)));
        assert!((s.of(FaceId(1)) - 0.98).abs() < 1e-12);
        assert!((s.of(FaceId(2)) - 0.01).abs() < 1e-12 && (s.of(FaceId(3)) - 0.01).abs() < 1e-12);
        // A second mark on face 1: 0.02 · 0.98 = 0.0196 moves, 0.0098 to each other face.
        s.reduce(FaceId(1), 0.02 * s.of(FaceId(1)));
        assert!((s.of(FaceId(1)) - 0.9604).abs() < 1e-12);
        assert!((s.of(FaceId(2)) - 0.0198).abs() < 1e-12);
        let total: f64 = s.0.iter().map(|(_, p)| p).sum();
        assert!((total - 1.0).abs() < 1e-12);
    }

    #[test]
    fn a_reduction_never_takes_more_than_the_face_has() {
        let mut s = Split(vec![(FaceId(1), 0.01), (FaceId(2), 0.99)]);
        s.reduce(FaceId(1), 0.02); // a PIT timeout: an absolute 0.02
        assert_eq!(s.of(FaceId(1)), 0.0);
        assert!((s.of(FaceId(2)) - 1.0).abs() < 1e-12);
    }

    #[test]
    fn the_draw_picks_by_cumulative_share_over_the_eligible_faces() {
        let s = Split(vec![(FaceId(1), 0.5), (FaceId(2), 0.3), (FaceId(3), 0.2)]);
        let all = hops(&[1, 2, 3]);
        assert_eq!(s.pick(&all, 0.49), Some(FaceId(1)));
        assert_eq!(s.pick(&all, 0.5), Some(FaceId(2)));
        assert_eq!(s.pick(&all, 0.81), Some(FaceId(3)));
        // Face 1 is the in-face: the others' shares are renormalised to 0.6 and 0.4.
        let two = hops(&[2, 3]);
        assert_eq!(s.pick(&two, 0.59), Some(FaceId(2)));
        assert_eq!(s.pick(&two, 0.61), Some(FaceId(3)));
    }

    #[test]
    fn equal_init_splits_evenly() {
        let s = Split::new(&hops(&[4, 5, 6, 7]), InitialSplit::Equal);
        assert!(s.0.iter().all(|(_, p)| (*p - 0.25).abs() < 1e-12));
    }

    #[test]
    fn validation_names_the_key() {
        let bad = PconStrategyConfig { change_per_mark: 1.5, ..Default::default() };
        assert_eq!(bad.validate().unwrap_err().key, "change_per_mark");
        let bad = PconStrategyConfig { probing: -0.1, ..Default::default() };
        assert_eq!(bad.validate().unwrap_err().key, "probing");
    }
}
