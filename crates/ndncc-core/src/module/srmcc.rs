//! SRMCC's multicast tree node (seed 001, Section 3.2; ALGORITHMS.md A7): perceives congestion
//! on its outgoing queues, estimates the fair shared rate of its upstream link, and aggregates
//! the MCC messages coming up the tree into one per period.
//!
//! ```text
//!   each Data copy sent on face f:   qocc_av(f) = α·qocc(f) + (1 − α)·qocc_av(f)      (Eq. 1)
//!                                    qocc = queue length / queue_capacity
//!   fair share:                      C_up / N,  N = groups forwarded here + unicast flows
//!                                    (distinct IP source/destination pairs sampled from the
//!                                    packets arriving on a group's upstream face)
//!   MCC from downstream face f:      min_fair = min(min_fair, msg.rate, C_up/N)
//!                                    max_q = max(max_q, msg.max, qocc_av(f))
//!                                    min_q = min(min_q, msg.min, qocc_av(f))
//!   `hold` after the first MCC of a period: one MCC with the table's values goes upstream,
//!   and the group's entry starts afresh
//! ```
//!
//! The seed leaves the period ("after a period of time") and the sampling open: `hold` (20 ms)
//! collects the reports of one receiver cycle, whose receivers start together; `sampling` (10%
//! of packets) and `flow_timeout` (1 s) are assumptions, all parameters. The occupancy ratio
//! needs the queue's capacity, `queue_capacity` (the seed's Qmax, 50 packets).

use rand::Rng;
use serde::{Deserialize, Serialize};

use super::{Intake, ModuleCtx, RouterModule};
use crate::ids::{FaceId, NodeId};
use crate::packet::{Header, McastKind, McastReport, Packet};
use crate::plugin::{check, Check, Plugin};
use crate::time::SimTime;
use crate::units::{Bytes, Duration};

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields, default)]
pub struct SrmccMtnConfig {
    /// EWMA weight of the newest occupancy sample, α. Default 0.9.
    pub alpha: f64,
    /// Queue capacity the occupancy ratio is taken against [packets]. Default 50.
    pub queue_capacity: u64,
    /// Time from the first MCC of a period to the aggregated one sent upstream. Default 20 ms.
    pub hold: Duration,
    /// Share of arriving IP packets sampled for the unicast flow count. Default 0.1.
    pub sampling: f64,
    /// A sampled flow not seen for this long no longer counts. Default 1 s.
    pub flow_timeout: Duration,
    /// Wire size of the aggregated MCC message. Default 40 B.
    pub mcc_size: Bytes,
}

impl Default for SrmccMtnConfig {
    fn default() -> Self {
        SrmccMtnConfig {
            alpha: 0.9,
            queue_capacity: 50,
            hold: Duration::from_millis(20),
            sampling: 0.1,
            flow_timeout: Duration::from_secs(1),
            mcc_size: Bytes(40),
        }
    }
}

impl Plugin for SrmccMtnConfig {
    type Built = Box<dyn RouterModule>;
    fn validate(&self) -> Check {
        check::fraction("alpha", self.alpha)?;
        check::count("queue_capacity", self.queue_capacity, 1, 10_000_000)?;
        check::time("hold", self.hold.get(), true)?;
        check::fraction("sampling", self.sampling)?;
        check::time("flow_timeout", self.flow_timeout.get(), false)?;
        check::count("mcc_size", self.mcc_size.0, 1, 65_535)
    }
    fn build(&self) -> Box<dyn RouterModule> {
        Box::new(SrmccMtn::new(self))
    }
}

/// One group's MCC table entry.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct MccEntry {
    pub min_fair: f64,
    pub max_q: f64,
    pub min_q: f64,
    /// The largest round-trip estimate of the folded reports [ns].
    pub rtt_ns: u64,
    /// When the aggregated message is due; `None` while no report waits.
    pub due: Option<SimTime>,
}

impl Default for MccEntry {
    fn default() -> Self {
        MccEntry { min_fair: f64::INFINITY, max_q: 0.0, min_q: 1.0, rtt_ns: 0, due: None }
    }
}

impl MccEntry {
    /// Fold one report and this node's own values for the face it came from.
    pub fn fold(&mut self, report: &McastReport, rtt_ns: u64, own_fair: f64, own_q: f64) {
        self.min_fair = self.min_fair.min(report.rate).min(own_fair);
        self.max_q = self.max_q.max(f64::from(report.hi)).max(own_q);
        self.min_q = self.min_q.min(f64::from(report.lo)).min(own_q);
        self.rtt_ns = self.rtt_ns.max(rtt_ns);
    }
}

struct Group {
    id: u32,
    upstream: Option<FaceId>,
    entry: MccEntry,
}

pub struct SrmccMtn {
    cfg: SrmccMtnConfig,
    groups: Vec<Group>,
    /// Smoothed occupancy per outgoing face.
    qocc: Vec<(FaceId, f64)>,
    /// Sampled unicast flows: (source, destination) → last seen.
    flows: Vec<((NodeId, NodeId), SimTime)>,
    sent_upstream: u64,
    absorbed: u64,
}

impl SrmccMtn {
    pub fn new(cfg: &SrmccMtnConfig) -> SrmccMtn {
        SrmccMtn {
            cfg: cfg.clone(),
            groups: Vec::new(),
            qocc: Vec::new(),
            flows: Vec::new(),
            sent_upstream: 0,
            absorbed: 0,
        }
    }

    fn group(&mut self, id: u32) -> &mut Group {
        match self.groups.iter().position(|g| g.id == id) {
            Some(i) => &mut self.groups[i],
            None => {
                self.groups.push(Group { id, upstream: None, entry: MccEntry::default() });
                self.groups.last_mut().expect("just pushed")
            }
        }
    }

    fn qocc_of(&self, face: FaceId) -> f64 {
        self.qocc.iter().find(|(f, _)| *f == face).map_or(0.0, |(_, q)| *q)
    }

    /// N_i(t): the groups this node forwards plus the unicast flows sampled recently.
    pub fn flow_count(&self, now: SimTime) -> usize {
        let live = self.flows.iter().filter(|(_, t)| now.saturating_since(*t) <= self.cfg.flow_timeout.get()).count();
        self.groups.len() + live
    }

    fn fair_share(&self, ctx: &ModuleCtx, upstream: Option<FaceId>) -> f64 {
        let Some(up) = upstream else { return f64::INFINITY };
        let c = ctx.face(up).egress.as_ref().map_or(f64::INFINITY, |e| e.bandwidth_bps as f64);
        c / self.flow_count(ctx.now).max(1) as f64
    }

    fn send_due(&mut self, ctx: &mut ModuleCtx) {
        let mut next: Option<SimTime> = None;
        for g in &mut self.groups {
            let Some(due) = g.entry.due else { continue };
            if due > ctx.now {
                next = Some(next.map_or(due, |n: SimTime| n.min(due)));
                continue;
            }
            let e = std::mem::take(&mut g.entry);
            let Some(up) = g.upstream else { continue };
            let m = crate::packet::Mcast {
                group: g.id,
                kind: McastKind::Feedback,
                origin: ctx.node,
                seq: e.rtt_ns,
                sent_at: ctx.now,
                // The table holds f64s; the message carries occupancies as f32 fractions.
                report: McastReport { rate: e.min_fair, hi: e.max_q as f32, lo: e.min_q as f32 },
                times: crate::packet::McastTimes::default(),
            };
            let size = u32::try_from(self.cfg.mcc_size.0).unwrap_or(u32::MAX);
            ctx.send(up, Packet::new(Header::Mcast(m), size));
            self.sent_upstream += 1;
        }
        if let Some(t) = next {
            ctx.wake_at(t);
        }
    }
}

impl RouterModule for SrmccMtn {
    fn name(&self) -> &'static str {
        "srmcc"
    }
    fn on_packet_in(&mut self, ctx: &mut ModuleCtx, face: FaceId, packet: &mut Packet) -> Intake {
        match &packet.header {
            Header::Mcast(m) if m.kind == McastKind::Data => {
                self.group(m.group).upstream = Some(face);
                Intake::Pass
            }
            Header::Mcast(m) if m.kind == McastKind::Feedback && m.origin != ctx.node => {
                let (id, report, rtt) = (m.group, m.report, m.seq);
                let upstream = self.group(id).upstream;
                let own_fair = self.fair_share(ctx, upstream);
                let own_q = self.qocc_of(face);
                let hold = self.cfg.hold.get();
                let g = self.group(id);
                g.entry.fold(&report, rtt, own_fair, own_q);
                if g.entry.due.is_none() {
                    g.entry.due = Some(ctx.now + hold);
                }
                self.absorbed += 1;
                self.send_due(ctx);
                Intake::Absorb
            }
            Header::Ip(ip) => {
                let arrived_upstream = self.groups.iter().any(|g| g.upstream == Some(face));
                if arrived_upstream && ctx.rng.gen::<f64>() < self.cfg.sampling {
                    let key = (ip.src, ip.dst);
                    match self.flows.iter_mut().find(|(k, _)| *k == key) {
                        Some((_, t)) => *t = ctx.now,
                        None => self.flows.push((key, ctx.now)),
                    }
                }
                Intake::Pass
            }
            _ => Intake::Pass,
        }
    }
    fn on_packet_out(&mut self, ctx: &mut ModuleCtx, face: FaceId, packet: &mut Packet) {
        let Some(m) = packet.mcast() else { return };
        if m.kind != McastKind::Data {
            return;
        }
        let len = ctx.face(face).egress.as_ref().map_or(0, |e| e.queue_packets());
        let q = (len as f64 / self.cfg.queue_capacity as f64).min(1.0);
        let alpha = self.cfg.alpha;
        match self.qocc.iter_mut().find(|(f, _)| *f == face) {
            Some((_, avg)) => *avg = alpha * q + (1.0 - alpha) * *avg,
            None => self.qocc.push((face, q)),
        }
    }
    fn on_wake(&mut self, ctx: &mut ModuleCtx) {
        self.send_due(ctx);
    }
    fn sample(&self, out: &mut Vec<(&'static str, Option<FaceId>, f64)>) {
        for &(f, q) in &self.qocc {
            out.push(("qocc_av", Some(f), q));
        }
        out.push(("mcc_sent_upstream", None, self.sent_upstream as f64));
        out.push(("mcc_absorbed", None, self.absorbed as f64));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::time::SimDuration;

    #[test]
    fn the_table_keeps_the_smallest_rate_and_the_extreme_occupancies() {
        let mut e = MccEntry::default();
        // A receiver's message (access 10 Mbit/s, 0, 1) folded at a node whose fair share is
        // 2 Mbit/s / 4 and whose queue to that receiver is 0.3 full.
        e.fold(&McastReport { rate: 10e6, hi: 0.0, lo: 1.0 }, 80_000_000, 0.5e6, 0.3);
        assert_eq!((e.min_fair, e.max_q, e.min_q, e.rtt_ns), (0.5e6, 0.3, 0.3, 80_000_000));
        // A second child's aggregated message: 0.4e6, occupancies 0.6 and 0.1; own queue 0.2.
        e.fold(&McastReport { rate: 0.4e6, hi: 0.6, lo: 0.1 }, 60_000_000, 0.5e6, 0.2);
        assert!((e.min_fair - 0.4e6).abs() < 1e-9);
        assert!((e.max_q - 0.6).abs() < 1e-6 && (e.min_q - 0.1).abs() < 1e-6);
        assert_eq!(e.rtt_ns, 80_000_000);
    }

    #[test]
    fn the_occupancy_average_weighs_the_newest_sample_by_alpha() {
        // qocc_av = 0.9·q + 0.1·avg: from 0.2, a sample of 0.6 gives 0.56.
        let alpha: f64 = 0.9;
        let avg = alpha * 0.6 + (1.0 - alpha) * 0.2;
        assert!((avg - 0.56).abs() < 1e-12);
    }

    #[test]
    fn the_flow_count_is_groups_plus_live_sampled_flows() {
        let mut m = SrmccMtn::new(&SrmccMtnConfig::default());
        m.groups.push(Group { id: 1, upstream: None, entry: MccEntry::default() });
        let t0 = SimTime::ZERO;
        m.flows.push(((NodeId(1), NodeId(2)), t0));
        m.flows.push(((NodeId(3), NodeId(2)), t0 + SimDuration::from_millis(900)));
        assert_eq!(m.flow_count(t0 + SimDuration::from_millis(500)), 3);
        // After the 1 s timeout the first flow no longer counts.
        assert_eq!(m.flow_count(t0 + SimDuration::from_millis(1_500)), 2);
    }

    #[test]
    fn validation_names_the_key() {
        let bad = SrmccMtnConfig { alpha: 2.0, ..Default::default() };
        assert_eq!(bad.validate().unwrap_err().key, "alpha");
        let bad = SrmccMtnConfig { queue_capacity: 0, ..Default::default() };
        assert_eq!(bad.validate().unwrap_err().key, "queue_capacity");
    }
}
