//! Stateful-forwarding Interest limiting (Yi et al., "A case for stateful forwarding plane",
//! 2013; ALGORITHMS.md B §5.2): each link face of the node has a limit, and an Interest that
//! would exceed it is not sent but refused with a Congestion NACK, which the forwarder handles
//! like a NACK from that face (another next hop, or a NACK downstream once all are exhausted).
//!
//! ```text
//!   window mode:  send iff pending Interests on the face + 1 ≤ limit            [Interests]
//!   rate mode:    meter level L drains at `limit` Interests/s;
//!                 send iff L + 1 ≤ depth, then L += 1                         (token bucket)
//!   default limit (rate) = reverse bandwidth / (8 · (data_size + interest_size))   [Interests/s]
//!   default limit (window) = that rate × rtt;  default depth = that rate × rtt
//! ```
//!
//! The defaults are those of the stateful-forwarding simulation code (1,100-byte Data, 40-byte
//! Interests, 100 ms RTT): one bandwidth-delay product of Data. The meter drains continuously
//! (it is computed from `now` at each Interest), so a coarse node clock does not affect it.

use serde::{Deserialize, Serialize};

use super::{InterestVerdict, ModuleCtx, RouterModule};
use crate::ids::FaceId;
use crate::packet::{NackReason, Packet};
use crate::plugin::{check, Check, Invalid, Plugin};
use crate::time::SimTime;
use crate::units::{Bytes, Duration};

/// What the per-face limit bounds.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum LimitMode {
    /// Interests outstanding on the face (sent, neither answered, NACKed nor expired).
    #[default]
    Window,
    /// Interests per second, with bursts up to `depth`.
    Rate,
}

/// `{ type = "interest-limit", … }` on a node.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct InterestLimitConfig {
    /// "window" (default) or "rate".
    pub mode: LimitMode,
    /// The limit: outstanding Interests (window mode) or Interests/s (rate mode). Default:
    /// derived from the reverse link (see the module docs).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub limit: Option<f64>,
    /// Rate mode: meter depth, the largest burst [Interests]. Default: rate × `rtt`.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub depth: Option<f64>,
    /// Expected Data size for the derived limit [bytes]. Default "1100B".
    pub data_size: Bytes,
    /// Expected Interest size for the derived limit [bytes]. Default "40B".
    pub interest_size: Bytes,
    /// RTT turning a rate into a window or a depth [time]. Default "100ms".
    pub rtt: Duration,
}

impl Default for InterestLimitConfig {
    fn default() -> Self {
        InterestLimitConfig {
            mode: LimitMode::Window,
            limit: None,
            depth: None,
            data_size: Bytes(1100),
            interest_size: Bytes(40),
            rtt: Duration::from_millis(100),
        }
    }
}

impl Plugin for InterestLimitConfig {
    type Built = Box<dyn RouterModule>;
    fn validate(&self) -> Check {
        for (key, v) in [("limit", self.limit), ("depth", self.depth)] {
            if let Some(v) = v {
                check::within(key, v, 1.0, check::MAX_WINDOW)?;
            }
        }
        check::packet_bytes("data_size", self.data_size.0, 0)?;
        check::packet_bytes("interest_size", self.interest_size.0, 0)?;
        if self.data_size.0 + self.interest_size.0 == 0 {
            return Err(Invalid::new("data_size", "data_size + interest_size must be > 0 bytes"));
        }
        check::time("rtt", self.rtt.get(), false)
    }
    fn build(&self) -> Box<dyn RouterModule> {
        Box::new(InterestLimit::new(self))
    }
}

impl InterestLimitConfig {
    /// The default Interest rate of a face whose reverse direction carries `reverse_bps`:
    /// the rate whose Data and Interests fill it [Interests/s].
    pub fn derived_rate(&self, reverse_bps: u64) -> f64 {
        reverse_bps as f64 / (8.0 * (self.data_size.0 + self.interest_size.0).max(1) as f64)
    }
}

/// Limit state of one face.
#[derive(Clone, Debug)]
struct FaceLimit {
    face: FaceId,
    /// Window [Interests] or rate [Interests/s].
    limit: f64,
    /// Rate mode: meter depth [Interests].
    depth: f64,
    /// Rate mode: meter level at `at` [Interests].
    level: f64,
    at: SimTime,
    rejected: u64,
}

pub struct InterestLimit {
    cfg: InterestLimitConfig,
    faces: Vec<FaceLimit>,
    discovered: bool,
}

impl InterestLimit {
    pub fn new(cfg: &InterestLimitConfig) -> InterestLimit {
        InterestLimit { cfg: cfg.clone(), faces: Vec::new(), discovered: false }
    }

    fn discover(&mut self, ctx: &ModuleCtx) {
        if self.discovered {
            return;
        }
        self.discovered = true;
        let rtt_s = self.cfg.rtt.get().as_secs_f64();
        for &f in ctx.node_faces {
            let face = ctx.face(f);
            if face.egress.is_none() {
                continue;
            }
            let rate = self.cfg.derived_rate(ctx.reverse_bandwidth_bps(f));
            let limit = match (self.cfg.mode, self.cfg.limit) {
                (_, Some(l)) => l,
                (LimitMode::Window, None) => (rate * rtt_s).max(1.0),
                (LimitMode::Rate, None) => rate,
            };
            let depth = match self.cfg.mode {
                LimitMode::Rate => self.cfg.depth.unwrap_or(limit * rtt_s).max(1.0),
                LimitMode::Window => limit,
            };
            self.faces.push(FaceLimit { face: f, limit, depth, level: 0.0, at: ctx.now, rejected: 0 });
        }
    }
}

/// Rate mode: the meter level at `now` after draining at `rate` since `at`, never below 0.
fn drained(level: f64, rate: f64, at: SimTime, now: SimTime) -> f64 {
    (level - rate * now.saturating_since(at).as_secs_f64()).max(0.0)
}

/// Does one more Interest fit? `used` is the current count or level.
fn fits(used: f64, bound: f64) -> bool {
    used + 1.0 <= bound + 1e-9
}

impl RouterModule for InterestLimit {
    fn name(&self) -> &'static str {
        "interest-limit"
    }

    fn on_interest_out(&mut self, ctx: &mut ModuleCtx, face: FaceId, _interest: &mut Packet) -> InterestVerdict {
        self.discover(ctx);
        let mode = self.cfg.mode;
        let pending = ctx.face(face).pending_interests as f64;
        let Some(s) = self.faces.iter_mut().find(|s| s.face == face) else { return InterestVerdict::Send };
        let ok = match mode {
            LimitMode::Window => fits(pending, s.limit),
            LimitMode::Rate => {
                s.level = drained(s.level, s.limit, s.at, ctx.now);
                s.at = ctx.now;
                let ok = fits(s.level, s.depth);
                if ok {
                    s.level += 1.0;
                }
                ok
            }
        };
        if ok {
            InterestVerdict::Send
        } else {
            s.rejected += 1;
            InterestVerdict::Reject(NackReason::Congestion)
        }
    }

    fn sample(&self, out: &mut Vec<(&'static str, Option<FaceId>, f64)>) {
        for s in &self.faces {
            out.push(("limit_rejected", Some(s.face), s.rejected as f64));
            if self.cfg.mode == LimitMode::Rate {
                out.push(("limit_level", Some(s.face), s.level));
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::world::Network;

    const MS: u64 = 1_000_000;

    #[test]
    fn the_derived_rate_fills_the_reverse_link_with_data_and_interests() {
        // 10 Mbps / (8 × (1100 + 40) B) = 10,000,000 / 9,120 = 1096.49… Interests/s.
        let c = InterestLimitConfig::default();
        assert!((c.derived_rate(10_000_000) - 1_096.491_228).abs() < 1e-6);
    }

    #[test]
    fn the_meter_drains_at_the_rate_and_never_goes_negative() {
        // Level 5 at 0, 1000/s: after 3 ms 2 left; after 10 ms 0 (not −5).
        assert!((drained(5.0, 1000.0, SimTime(0), SimTime(3 * MS)) - 2.0).abs() < 1e-9);
        assert_eq!(drained(5.0, 1000.0, SimTime(0), SimTime(10 * MS)), 0.0);
    }

    #[test]
    fn one_more_fits_only_while_the_bound_is_not_exceeded() {
        assert!(fits(199.0, 200.0));
        assert!(!fits(200.0, 200.0));
        assert!(!fits(199.5, 200.0));
    }

    #[test]
    fn a_rate_meter_refuses_beyond_its_depth_with_a_congestion_nack_and_refills() {
        use crate::module::testkit::{interest, two_nodes, with_ctx, A_TO_B};
        // 100 Interests/s, depth 3: three pass at 0 ms, the fourth is refused; 10 ms later the
        // level has drained by 100 · 0.01 = 1, so one more passes.
        let cfg =
            InterestLimitConfig { mode: LimitMode::Rate, limit: Some(100.0), depth: Some(3.0), ..Default::default() };
        let mut m = InterestLimit::new(&cfg);
        let mut w = two_nodes();
        let mut send = |w: &mut Network, ms| with_ctx(w, ms, |ctx| m.on_interest_out(ctx, A_TO_B, &mut interest(0)));
        for _ in 0..3 {
            assert_eq!(send(&mut w, 0), InterestVerdict::Send);
        }
        assert_eq!(send(&mut w, 0), InterestVerdict::Reject(NackReason::Congestion));
        assert_eq!(send(&mut w, 10), InterestVerdict::Send);
        assert_eq!(send(&mut w, 10), InterestVerdict::Reject(NackReason::Congestion));
    }

    #[test]
    fn a_window_limit_counts_the_interests_pending_on_the_face() {
        use crate::module::testkit::{interest, two_nodes, with_ctx, A_TO_B};
        // Derived window: 10 Mbps / (8 · 1140 B) = 1096.49 Interests/s × 0.1 s = 109.6: with 108
        // pending a 109th fits, with 109 pending a 110th does not.
        let mut m = InterestLimit::new(&InterestLimitConfig::default());
        let mut w = two_nodes();
        for (pending, verdict) in [(108, InterestVerdict::Send), (109, InterestVerdict::Reject(NackReason::Congestion))]
        {
            w.faces[A_TO_B.idx()].pending_interests = pending;
            assert_eq!(with_ctx(&mut w, 0, |ctx| m.on_interest_out(ctx, A_TO_B, &mut interest(0))), verdict);
        }
    }

    #[test]
    fn validation_names_the_offending_key() {
        let c = InterestLimitConfig { limit: Some(0.5), ..InterestLimitConfig::default() };
        assert!(c.validate().unwrap_err().key == "limit");
        let c = InterestLimitConfig { rtt: Duration::from_millis(0), ..InterestLimitConfig::default() };
        assert!(c.validate().unwrap_err().key == "rtt");
        assert!(InterestLimitConfig::default().validate().is_ok());
    }
}
