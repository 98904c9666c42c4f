//! PerIfWithECN's router (ALGORITHMS.md Part B §3.3; Su, Ramakrishnan, Raychaudhuri, LANMAN 2016,
//! after the author's simulator `kais66/cong-simu`), as a baseline of seed 001: one FIFO per
//! outgoing interface; whenever a multicast Data is about to join a queue that is over its set
//! point, the router sends the source a suggested rate at once, with no aggregation.
//!
//! ```text
//!   each multicast Data sent on face f:   occ = min(1, queue length(f) / queue_capacity)
//!     occ > set_point  →  feedback to the source: new_rate = max(0, C_f/N_f · (1 − (occ − set_point)²))
//!   N_f = distinct (source, destination) pairs seen leaving on f (multicast: source, group)
//! ```
//!
//! The author's code takes the occupancy against its interface buffer (MAX_BYTE, 4 MiB); here
//! the denominator is the interface queue's own limit in packets (the seed's Qmax, 50), unless
//! `queue_capacity` sets another. The author's code never ages its flow set, which a real
//! router must; here a flow not seen for `flow_timeout` (1 s, SRMCC's tree node's) no longer
//! counts, so that both mechanisms see flows end alike. Only the multicast source obeys such messages (the TCP flows
//! are plain TCP), so only multicast Data trigger them; IP packets count as flows. The message
//! goes up the group's tree (learnt from the face its Data arrive on) and carries the occupancy
//! in `report.hi`; routers on the way pass it on.

use serde::{Deserialize, Serialize};

use super::{Intake, ModuleCtx, RouterModule};
use crate::ids::FaceId;
use crate::packet::{Header, Mcast, McastKind, McastReport, Packet};
use crate::plugin::{check, Check, Plugin};
use crate::time::SimTime;
use crate::units::{Bytes, Duration};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct PerIfEcnModuleConfig {
    /// Occupancy above which the router sends a suggested rate. Default 0.4.
    pub set_point: f64,
    /// Queue capacity the occupancy is taken against [packets]. Default: the interface
    /// queue's own limit (50 when the queue has no packet limit).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub queue_capacity: Option<u64>,
    /// A flow not seen on an interface for this long no longer counts. Default 1 s.
    pub flow_timeout: Duration,
    /// Wire size of the ECN message. Default 40 B.
    pub ecn_size: Bytes,
}

impl Default for PerIfEcnModuleConfig {
    fn default() -> Self {
        PerIfEcnModuleConfig {
            set_point: 0.4,
            queue_capacity: None,
            flow_timeout: Duration::from_secs(1),
            ecn_size: Bytes(40),
        }
    }
}

impl Plugin for PerIfEcnModuleConfig {
    type Built = Box<dyn RouterModule>;
    fn validate(&self) -> Check {
        check::within("set_point", self.set_point, 0.0, 0.999)?;
        if let Some(q) = self.queue_capacity {
            check::count("queue_capacity", q, 1, 10_000_000)?;
        }
        check::time("flow_timeout", self.flow_timeout.get(), false)?;
        check::count("ecn_size", self.ecn_size.0, 1, 65_535)
    }
    fn build(&self) -> Box<dyn RouterModule> {
        Box::new(PerIfEcnModule::new(self))
    }
}

/// A flow's key: (source node, destination node or multicast group).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FlowKey {
    Ip(u32, u32),
    Group(u32, u32),
}

/// The rule of §3.3: the suggested rate for occupancy `occ` on a link of `capacity_bps` shared by
/// `flows` flows.
pub fn suggested_rate(capacity_bps: f64, flows: usize, occ: f64, set_point: f64) -> f64 {
    let fair = capacity_bps / flows.max(1) as f64;
    let d = occ - set_point;
    (fair * (1.0 - d * d)).max(0.0)
}

pub struct PerIfEcnModule {
    cfg: PerIfEcnModuleConfig,
    /// Each group's upstream face.
    upstream: Vec<(u32, FaceId)>,
    /// Per interface: the flows seen and when each was last seen.
    flows: Vec<(FaceId, Vec<(FlowKey, SimTime)>)>,
    sent: u64,
}

impl PerIfEcnModule {
    pub fn new(cfg: &PerIfEcnModuleConfig) -> PerIfEcnModule {
        PerIfEcnModule { cfg: cfg.clone(), upstream: Vec::new(), flows: Vec::new(), sent: 0 }
    }

    /// Note `key` on `face` at `now`; the number of distinct flows seen there within
    /// `flow_timeout`.
    fn note(&mut self, face: FaceId, key: FlowKey, now: SimTime) -> usize {
        let i = match self.flows.iter().position(|(f, _)| *f == face) {
            Some(i) => i,
            None => {
                self.flows.push((face, Vec::new()));
                self.flows.len() - 1
            }
        };
        let timeout = self.cfg.flow_timeout.get();
        let set = &mut self.flows[i].1;
        set.retain(|(k, seen)| *k == key || now.saturating_since(*seen) <= timeout);
        match set.iter_mut().find(|(k, _)| *k == key) {
            Some((_, seen)) => *seen = now,
            None => set.push((key, now)),
        }
        set.len()
    }
}

impl RouterModule for PerIfEcnModule {
    fn name(&self) -> &'static str {
        "perif-ecn"
    }
    fn on_packet_in(&mut self, _ctx: &mut ModuleCtx, face: FaceId, packet: &mut Packet) -> Intake {
        if let Header::Mcast(m) = &packet.header {
            if m.kind == McastKind::Data {
                match self.upstream.iter_mut().find(|(g, _)| *g == m.group) {
                    Some((_, f)) => *f = face,
                    None => self.upstream.push((m.group, face)),
                }
            }
        }
        Intake::Pass
    }
    fn on_packet_out(&mut self, ctx: &mut ModuleCtx, face: FaceId, packet: &mut Packet) {
        let m = match &packet.header {
            Header::Ip(ip) => {
                self.note(face, FlowKey::Ip(ip.src.0, ip.dst.0), ctx.now);
                return;
            }
            Header::Mcast(m) if m.kind == McastKind::Data => *m,
            _ => return,
        };
        let n = self.note(face, FlowKey::Group(m.origin.0, m.group), ctx.now);
        let Some(e) = ctx.face(face).egress.as_ref() else { return };
        let cap = self.cfg.queue_capacity.or_else(|| e.queue.packet_limit().and_then(|p| u64::try_from(p).ok()));
        let occ = (e.queue_packets() as f64 / cap.unwrap_or(50).max(1) as f64).min(1.0);
        if occ <= self.cfg.set_point {
            return;
        }
        let rate = suggested_rate(e.bandwidth_bps as f64, n, occ, self.cfg.set_point);
        let Some(&(_, up)) = self.upstream.iter().find(|(g, _)| *g == m.group) else { return };
        let msg = Mcast {
            group: m.group,
            kind: McastKind::Feedback,
            origin: ctx.node,
            // No round-trip estimate: the source's cycle does not depend on one.
            seq: 0,
            sent_at: ctx.now,
            // Occupancy is a fraction in [0, 1]; f32 is ample for the record.
            report: McastReport { rate, hi: occ as f32, lo: 0.0 },
            times: crate::packet::McastTimes::default(),
        };
        let size = u32::try_from(self.cfg.ecn_size.0).unwrap_or(u32::MAX);
        ctx.send(up, Packet::new(Header::Mcast(msg), size));
        self.sent += 1;
    }
    fn sample(&self, out: &mut Vec<(&'static str, Option<FaceId>, f64)>) {
        for (f, set) in &self.flows {
            out.push(("flows", Some(*f), set.len() as f64));
        }
        out.push(("ecn_sent", None, self.sent as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_suggested_rate_is_the_fair_share_less_the_squared_excess() {
        // 2 Mbit/s, 3 flows, occupancy 0.6: 666,667·(1 − 0.04) = 640,000 bit/s.
        assert!((suggested_rate(2e6, 3, 0.6, 0.4) - 640_000.0).abs() < 1e-6);
        // Full queue: 5 Mbit/s / 2 · (1 − 0.36) = 1.6 Mbit/s.
        assert!((suggested_rate(5e6, 2, 1.0, 0.4) - 1.6e6).abs() < 1e-6);
    }

    #[test]
    fn flows_are_distinct_pairs_per_face() {
        let mut m = PerIfEcnModule::new(&PerIfEcnModuleConfig::default());
        let t = SimTime::ZERO;
        assert_eq!(m.note(FaceId(1), FlowKey::Ip(1, 2), t), 1);
        assert_eq!(m.note(FaceId(1), FlowKey::Ip(1, 2), t), 1);
        assert_eq!(m.note(FaceId(1), FlowKey::Group(0, 1), t), 2);
        assert_eq!(m.note(FaceId(2), FlowKey::Ip(3, 4), t), 1);
    }

    #[test]
    fn a_flow_silent_for_longer_than_flow_timeout_no_longer_counts() {
        // Flow (1, 2) last seen at 0; the group at 0.5 s and 1.2 s. At 1.2 s (1 s timeout) the
        // IP flow is 1.2 s old: gone, one flow; at 1.0 s it was exactly 1 s old: still two.
        let mut m = PerIfEcnModule::new(&PerIfEcnModuleConfig::default());
        let ms = |x: u64| SimTime::ZERO + crate::time::SimDuration::from_millis(x);
        m.note(FaceId(1), FlowKey::Ip(1, 2), ms(0));
        assert_eq!(m.note(FaceId(1), FlowKey::Group(0, 1), ms(500)), 2);
        assert_eq!(m.note(FaceId(1), FlowKey::Group(0, 1), ms(1_000)), 2);
        assert_eq!(m.note(FaceId(1), FlowKey::Group(0, 1), ms(1_200)), 1);
    }

    #[test]
    fn validation_names_the_key() {
        let bad = PerIfEcnModuleConfig { set_point: 1.0, ..Default::default() };
        assert_eq!(bad.validate().unwrap_err().key, "set_point");
        let bad = PerIfEcnModuleConfig { queue_capacity: Some(0), ..Default::default() };
        assert_eq!(bad.validate().unwrap_err().key, "queue_capacity");
    }
}
