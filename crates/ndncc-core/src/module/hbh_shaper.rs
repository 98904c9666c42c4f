//! Hop-by-hop Interest shaper (Wang, Rozhnova, Narayanan, Oran, Rhee, ICN workshop 2013;
//! ALGORITHMS.md B §7, after Wang's ndnSIM `ShaperNetDeviceFace`): each link face of the node
//! paces the Interests it sends so that the Data they pull back, together with the Data the
//! neighbour's Interests pull the other way, fit the link in both directions.
//!
//! ```text
//!  this node A ──face──▶ neighbour B      c1 = capacity A→B, c2 = capacity B→A   [bit/s]
//!   s1: Interests A sends to B [bit/s]; their Data take r1·s1 of B→A
//!   s2: Interests B sends to A [bit/s]; their Data take r2·s2 of A→B
//!   r1 = Data arriving at A / Interests A sends;  r2 = Data A sends / Interests arriving at A
//!        (each size an EWMA with gain 1/8, starting at Interest 40 B, Data 1100 B)
//!   max_s1 = c2 / r1                                           (B sends no Interests)
//!   min_s1, exp_s2:  c1/c2 < 2·r2/(r1·r2+1)     → c1/2,                  c1/(2·r2)
//!                    c1/c2 > (r1·r2+1)/(2·r1)   → c2/(2·r1),             c2/2
//!                    otherwise (both saturate)  → (r2·c2−c1)/(r1·r2−1),  (r1·c1−c2)/(r1·r2−1)
//!   every UpdateInterval: exp_s2 ·= headroom; obs_s2 = Interest bits from B / interval
//!   s1 = min_s1                                          if obs_s2 ≥ exp_s2
//!      = min_s1 + (max_s1 − min_s1)·(1 − obs_s2/exp_s2)²  otherwise;   s1 ·= headroom
//!   an Interest of L bytes leaving the shaper's queue lets the next go 8L/s1 later
//! ```
//!
//! Data and NACKs are not shaped. An Interest that finds the shaper's queue full is refused
//! with a Congestion NACK: the forwarder tries another next hop, then NACKs downstream.
//! `capacity` replaces the face's own bandwidth as c1 (a shaper told the true rate of a hidden
//! underlay: seed 004's "Shaper_Ideal"; without it, "Shaper_Overlay"), on every link face of
//! the node; c2 is `reverse_capacity`, else c1 (the link is taken as symmetric).

use std::collections::VecDeque;

use serde::{Deserialize, Serialize};

use super::{Intake, InterestVerdict, ModuleCtx, RouterModule};
use crate::ids::FaceId;
use crate::packet::{NackReason, Packet};
use crate::plugin::{check, Check, Plugin};
use crate::time::{SimDuration, SimTime};
use crate::units::{Bandwidth, Bytes, Duration};

/// The largest shaper queue [Interests].
pub const MAX_SHAPER_QUEUE: u64 = 1_000_000;

/// `{ type = "hbh-shaper", … }` on a node.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct HbhShaperConfig {
    /// c1, the capacity towards the neighbour [bit/s]. Default: the face's own bandwidth.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub capacity: Option<Bandwidth>,
    /// c2, the capacity from the neighbour [bit/s]. Default: c1.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub reverse_capacity: Option<Bandwidth>,
    /// How often the observed opposite Interest rate and the shaping rate are updated [time].
    /// Default "100ms" (the helper's default; some of the paper's scenarios use 10 ms).
    pub update_interval: Duration,
    /// Factor on the expected opposite rate and on the shaping rate. Default 0.98.
    pub headroom: f64,
    /// Interests the shaper's queue holds (MaxInterest) [Interests]. Default 100.
    pub queue: u64,
    /// Gain of the packet-size EWMAs. Default 0.125.
    pub gain: f64,
    /// Interest size the EWMAs start from [bytes]. Default "40B".
    pub initial_interest_size: Bytes,
    /// Data size the EWMAs start from [bytes]. Default "1100B".
    pub initial_data_size: Bytes,
}

impl Default for HbhShaperConfig {
    fn default() -> Self {
        HbhShaperConfig {
            capacity: None,
            reverse_capacity: None,
            update_interval: Duration::from_millis(100),
            headroom: 0.98,
            queue: 100,
            gain: 0.125,
            initial_interest_size: Bytes(40),
            initial_data_size: Bytes(1100),
        }
    }
}

impl Plugin for HbhShaperConfig {
    type Built = Box<dyn RouterModule>;
    fn validate(&self) -> Check {
        for (key, c) in [("capacity", self.capacity), ("reverse_capacity", self.reverse_capacity)] {
            if c.is_some_and(|b| b.bps() == 0) {
                return Err(crate::plugin::Invalid::new(key, "must be > 0 bit/s"));
            }
        }
        check::time("update_interval", self.update_interval.get(), false)?;
        check::within("headroom", self.headroom, 0.01, 1.0)?;
        check::count("queue", self.queue, 1, MAX_SHAPER_QUEUE)?;
        check::within("gain", self.gain, 1e-6, 1.0)?;
        check::packet_bytes("initial_interest_size", self.initial_interest_size.0, 1)?;
        check::packet_bytes("initial_data_size", self.initial_data_size.0, 1)
    }
    fn build(&self) -> Box<dyn RouterModule> {
        Box::new(HbhShaper::new(self))
    }
}

/// An exponentially weighted moving average of packet sizes [bytes].
#[derive(Clone, Copy, Debug)]
struct Ewma {
    value: f64,
    gain: f64,
}

impl Ewma {
    fn update(&mut self, x: u32) {
        self.value += self.gain * (f64::from(x) - self.value);
    }
}

/// min_s1 and exp_s2 [bit/s] (§7 "Minimum rate"), for capacities `c1`, `c2` [bit/s] and size
/// ratios `r1`, `r2`.
pub fn min_rate(c1: f64, c2: f64, r1: f64, r2: f64) -> (f64, f64) {
    let k = r1 * r2;
    let ratio = c1 / c2;
    // k = 1 leaves no middle region (its bounds meet), and the middle formulas divide by k − 1.
    if ratio < 2.0 * r2 / (k + 1.0) || (k - 1.0).abs() < 1e-9 {
        (c1 / 2.0, c1 / (2.0 * r2))
    } else if ratio > (k + 1.0) / (2.0 * r1) {
        (c2 / (2.0 * r1), c2 / 2.0)
    } else {
        ((r2 * c2 - c1) / (k - 1.0), (r1 * c1 - c2) / (k - 1.0))
    }
}

/// max_s1 = c2 / r1 [bit/s]: the rate whose Data fill B→A when B sends no Interests.
pub fn max_rate(c2: f64, r1: f64) -> f64 {
    c2 / r1
}

/// The shaping rate s1 [bit/s] given the observed opposite Interest rate `obs_s2` [bit/s]
/// (headroom applied to exp_s2 and to the result; quadratic between min_s1 and max_s1).
pub fn shaping_rate(c1: f64, c2: f64, r1: f64, r2: f64, obs_s2: f64, headroom: f64) -> f64 {
    let max_s1 = max_rate(c2, r1);
    let (min_s1, exp_s2) = min_rate(c1, c2, r1, r2);
    // Degenerate size ratios can put the bound outside (0, max]: keep it a usable rate.
    let min_s1 = min_s1.clamp(f64::MIN_POSITIVE, max_s1);
    let exp_s2 = exp_s2 * headroom;
    let s1 = if exp_s2 <= 0.0 || obs_s2 >= exp_s2 {
        min_s1
    } else {
        let slack = 1.0 - obs_s2 / exp_s2;
        min_s1 + (max_s1 - min_s1) * slack * slack
    };
    s1 * headroom
}

/// The shaper of one link face.
#[derive(Clone, Debug)]
struct FaceShaper {
    face: FaceId,
    c1: f64,
    c2: f64,
    interest_out: Ewma,
    data_in: Ewma,
    data_out: Ewma,
    interest_in: Ewma,
    /// Interest bytes that arrived from the neighbour since `since`.
    arrived_bytes: u64,
    since: SimTime,
    /// s1 [bit/s].
    rate_bps: f64,
    queue: VecDeque<Packet>,
    /// The next Interest may leave at this time.
    next_send: SimTime,
    rejected: u64,
}

impl FaceShaper {
    fn r1(&self) -> f64 {
        self.data_in.value / self.interest_out.value
    }
    fn r2(&self) -> f64 {
        self.data_out.value / self.interest_in.value
    }
    fn gap(&self, size: u32) -> SimDuration {
        SimDuration::from_secs_f64(8.0 * f64::from(size) / self.rate_bps)
    }
}

pub struct HbhShaper {
    cfg: HbhShaperConfig,
    faces: Vec<FaceShaper>,
    discovered: bool,
}

impl HbhShaper {
    pub fn new(cfg: &HbhShaperConfig) -> HbhShaper {
        HbhShaper { cfg: cfg.clone(), faces: Vec::new(), discovered: false }
    }

    fn discover(&mut self, ctx: &ModuleCtx) {
        if self.discovered {
            return;
        }
        self.discovered = true;
        let ewma = |b: Bytes| Ewma { value: b.0 as f64, gain: self.cfg.gain };
        for &f in ctx.node_faces {
            let Some(eg) = ctx.face(f).egress.as_ref() else { continue };
            let c1 = self.cfg.capacity.map_or(eg.bandwidth_bps, |c| c.bps()) as f64;
            let c2 = self.cfg.reverse_capacity.map_or(c1, |c| c.bps() as f64);
            let mut s = FaceShaper {
                face: f,
                c1,
                c2,
                interest_out: ewma(self.cfg.initial_interest_size),
                data_in: ewma(self.cfg.initial_data_size),
                data_out: ewma(self.cfg.initial_data_size),
                interest_in: ewma(self.cfg.initial_interest_size),
                arrived_bytes: 0,
                since: ctx.now,
                rate_bps: 0.0,
                queue: VecDeque::new(),
                next_send: ctx.now,
                rejected: 0,
            };
            s.rate_bps = shaping_rate(c1, c2, s.r1(), s.r2(), 0.0, self.cfg.headroom);
            self.faces.push(s);
        }
    }

    fn face_mut(&mut self, face: FaceId) -> Option<&mut FaceShaper> {
        self.faces.iter_mut().find(|s| s.face == face)
    }

    /// Release every queued Interest that is due; ask to be woken for the next.
    fn release(&mut self, ctx: &mut ModuleCtx) {
        for s in &mut self.faces {
            while s.next_send <= ctx.now {
                let Some(p) = s.queue.pop_front() else { break };
                // Spaced from when it was due, so a late wake-up (a coarse node clock) does not
                // lower the rate.
                s.next_send += s.gap(p.size);
                ctx.send(s.face, p);
            }
            if !s.queue.is_empty() {
                ctx.wake_at(s.next_send);
            }
        }
    }
}

impl RouterModule for HbhShaper {
    fn name(&self) -> &'static str {
        "hbh-shaper"
    }

    fn on_interest_in(&mut self, ctx: &mut ModuleCtx, face: FaceId, interest: &mut Packet) -> Intake {
        self.discover(ctx);
        if let Some(s) = self.face_mut(face) {
            s.interest_in.update(interest.size);
            s.arrived_bytes += u64::from(interest.size);
        }
        Intake::Pass
    }

    fn on_interest_out(&mut self, ctx: &mut ModuleCtx, face: FaceId, interest: &mut Packet) -> InterestVerdict {
        self.discover(ctx);
        let limit = self.cfg.queue;
        let Some(s) = self.face_mut(face) else { return InterestVerdict::Send };
        s.interest_out.update(interest.size);
        if s.queue.is_empty() && s.next_send <= ctx.now {
            s.next_send = ctx.now + s.gap(interest.size);
            return InterestVerdict::Send;
        }
        if s.queue.len() as u64 >= limit {
            s.rejected += 1;
            return InterestVerdict::Reject(NackReason::Congestion);
        }
        s.queue.push_back(*interest);
        ctx.wake_at(s.next_send);
        InterestVerdict::Hold
    }

    fn on_data_in(&mut self, ctx: &mut ModuleCtx, face: FaceId, data: &mut Packet, _rtt: Option<SimDuration>) {
        self.discover(ctx);
        if let Some(s) = self.face_mut(face) {
            s.data_in.update(data.size);
        }
    }

    fn on_data_out(&mut self, ctx: &mut ModuleCtx, _in_face: FaceId, out_face: FaceId, data: &mut Packet) {
        self.discover(ctx);
        if let Some(s) = self.face_mut(out_face) {
            s.data_out.update(data.size);
        }
    }

    fn tick_interval(&self) -> Option<SimDuration> {
        Some(self.cfg.update_interval.get())
    }

    fn on_tick(&mut self, ctx: &mut ModuleCtx) {
        self.discover(ctx);
        let headroom = self.cfg.headroom;
        for s in &mut self.faces {
            let elapsed = ctx.now.saturating_since(s.since).as_secs_f64();
            if elapsed <= 0.0 {
                continue;
            }
            let obs_s2 = 8.0 * s.arrived_bytes as f64 / elapsed;
            s.rate_bps = shaping_rate(s.c1, s.c2, s.r1(), s.r2(), obs_s2, headroom);
            s.arrived_bytes = 0;
            s.since = ctx.now;
        }
        self.release(ctx);
    }

    fn on_wake(&mut self, ctx: &mut ModuleCtx) {
        self.release(ctx);
    }

    fn sample(&self, out: &mut Vec<(&'static str, Option<FaceId>, f64)>) {
        for s in &self.faces {
            out.push(("shaping_rate_bps", Some(s.face), s.rate_bps));
            out.push(("shaper_queue", Some(s.face), s.queue.len() as f64));
            out.push(("shaper_rejected", Some(s.face), s.rejected as f64));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ctx::NodeAction;
    use crate::module::testkit::{interest, two_nodes, A_TO_B};
    use crate::world::Network;

    const R: f64 = 1100.0 / 40.0;

    fn close(a: f64, b: f64) -> bool {
        (a - b).abs() <= 1e-6 * b.abs().max(1.0)
    }

    #[test]
    fn a_thin_link_out_and_a_fat_link_back_split_the_thin_direction_equally() {
        // c1/c2 = 0.01 < 2·27.5/(756.25 + 1) = 0.0726: min_s1 = c1/2 = 500 kbit/s, and
        // exp_s2 = c1/(2·27.5) = 18,181.82 bit/s.
        let (min, exp) = min_rate(1e6, 100e6, R, R);
        assert!(close(min, 500_000.0) && close(exp, 18_181.818_182), "{min} {exp}");
    }

    #[test]
    fn a_fat_link_out_and_a_thin_link_back_split_the_thin_direction_equally() {
        // c1/c2 = 100 > 757.25/55 = 13.77: min_s1 = c2/(2·27.5) = 18,181.82, exp_s2 = c2/2.
        let (min, exp) = min_rate(100e6, 1e6, R, R);
        assert!(close(min, 18_181.818_182) && close(exp, 500_000.0), "{min} {exp}");
    }

    #[test]
    fn comparable_links_saturate_both_directions() {
        // r1 = 27.5, r2 = 11 (550 B Data over 50 B Interests), c1 = 10, c2 = 5 Mbit/s; c1/c2 = 2
        // lies in (0.0725, 5.518): min_s1 = (11·5e6 − 10e6)/301.5 = 149,253.73 and
        // exp_s2 = (27.5·10e6 − 5e6)/301.5 = 895,522.39; together they fill A→B exactly.
        let (min, exp) = min_rate(10e6, 5e6, R, 11.0);
        assert!(close(min, 149_253.731_343) && close(exp, 895_522.388_060), "{min} {exp}");
        assert!(close(min + 11.0 * exp, 10e6));
    }

    #[test]
    fn the_shaping_rate_is_quadratic_between_the_bounds() {
        // c1 = c2 = 10 Mbit/s, r = 27.5: max_s1 = 363,636.36, min_s1 = c/(r + 1) = 350,877.19,
        // exp_s2 = 350,877.19 · 0.98 = 343,859.65. Observing half of that: (1 − 0.5)² = 0.25,
        // s1 = 350,877.19 + 12,759.17 · 0.25 = 354,066.99, times 0.98 = 346,985.65.
        assert!(close(shaping_rate(10e6, 10e6, R, R, 171_929.824_561, 0.98), 346_985.645_933));
        // No opposite demand: max_s1 · 0.98; at or above the expected demand: min_s1 · 0.98.
        assert!(close(shaping_rate(10e6, 10e6, R, R, 0.0, 0.98), 356_363.636_364));
        assert!(close(shaping_rate(10e6, 10e6, R, R, 400_000.0, 0.98), 343_859.649_123));
    }

    /// Run `f` with node A's context at `ns`; returns what it asked to send and its wake-up.
    fn at<R>(w: &mut Network, ns: u64, f: impl FnOnce(&mut ModuleCtx) -> R) -> (R, Vec<Packet>, Option<SimTime>) {
        let (mut rng, mut actions) = (crate::rng::stream(1, "module"), Vec::new());
        let mut ctx =
            ModuleCtx::new(SimTime(ns), crate::ids::NodeId(0), &w.nodes[0].faces, &mut w.faces, &mut rng, &mut actions);
        let r = f(&mut ctx);
        let wake = ctx.requested_wake();
        let sent = actions
            .into_iter()
            .filter_map(|a| match a {
                NodeAction::Send { face, packet } if face == A_TO_B => Some(packet),
                _ => None,
            })
            .collect();
        (r, sent, wake)
    }

    #[test]
    fn interests_leave_8l_over_s1_apart_and_a_full_queue_refuses_with_a_congestion_nack() {
        // capacity 10 Mbit/s both ways, no opposite demand: s1 = 356,363.64 bit/s, so a 40-byte
        // Interest is followed by the next 320 / 356,363.64 s = 897,959 ns later. Queue of 2:
        // the first goes, the next two wait, the fourth is refused.
        let cfg = HbhShaperConfig { capacity: Some(Bandwidth::mbps(10)), queue: 2, ..Default::default() };
        let mut m = HbhShaper::new(&cfg);
        let mut w = two_nodes();
        let mut verdicts = Vec::new();
        for seg in 0..4 {
            verdicts.push(at(&mut w, 0, |ctx| m.on_interest_out(ctx, A_TO_B, &mut interest(seg))).0);
        }
        use InterestVerdict::*;
        assert_eq!(verdicts, vec![Send, Hold, Hold, Reject(NackReason::Congestion)]);
        let gap = 897_959;
        let (_, sent, wake) = at(&mut w, gap - 1, |ctx| m.on_wake(ctx));
        assert!(sent.is_empty());
        assert_eq!(wake, Some(SimTime(gap)));
        let (_, sent, wake) = at(&mut w, gap, |ctx| m.on_wake(ctx));
        assert_eq!(sent.iter().map(|p| p.name().map(|n| n.seg)).collect::<Vec<_>>(), vec![Some(1)]);
        assert_eq!(wake, Some(SimTime(2 * gap)));
        // A late wake-up releases what is due, spaced from when it was due.
        let (_, sent, wake) = at(&mut w, 3 * gap, |ctx| m.on_wake(ctx));
        assert_eq!(sent.len(), 1);
        assert_eq!(wake, None);
        assert_eq!(m.faces[0].next_send, SimTime(3 * gap));
    }

    #[test]
    fn the_opposite_interest_rate_observed_over_an_interval_sets_the_rate() {
        // 2,149 bytes of Interests from B in 100 ms: obs_s2 = 171,920 bit/s, just under half of
        // exp_s2 = 343,859.65: slack = 1 − 0.4999714 = 0.5000286, squared 0.2500286;
        // s1 = (350,877.19 + 12,759.17 · 0.2500286) · 0.98 = 354,067.35 · 0.98 = 346,986.00 bit/s.
        let cfg = HbhShaperConfig { capacity: Some(Bandwidth::mbps(10)), ..Default::default() };
        let mut m = HbhShaper::new(&cfg);
        let mut w = two_nodes();
        at(&mut w, 0, |ctx| m.on_interest_out(ctx, A_TO_B, &mut interest(0)));
        m.faces[0].arrived_bytes = 2_149;
        at(&mut w, 100_000_000, |ctx| m.on_tick(ctx));
        assert!((m.faces[0].rate_bps - 346_986.00).abs() < 0.01, "{}", m.faces[0].rate_bps);
        assert_eq!(m.faces[0].arrived_bytes, 0);
    }

    #[test]
    fn validation_names_the_offending_key() {
        let bad = [
            (HbhShaperConfig { capacity: Some(Bandwidth(0)), ..Default::default() }, "capacity"),
            (HbhShaperConfig { headroom: 1.5, ..Default::default() }, "headroom"),
            (HbhShaperConfig { queue: 0, ..Default::default() }, "queue"),
            (HbhShaperConfig { update_interval: Duration::from_millis(0), ..Default::default() }, "update_interval"),
            (HbhShaperConfig { gain: f64::NAN, ..Default::default() }, "gain"),
        ];
        for (cfg, key) in bad {
            assert_eq!(cfg.validate().unwrap_err().key, key);
        }
        assert!(HbhShaperConfig::default().validate().is_ok());
    }
}
