//! Probes behind the summary's per-face figures beyond the counters: how long each transmitted
//! packet waited in its face's queue (sojourn time), and which flows' Data crossed each face,
//! so that fairness can be told per bottleneck.
//!
//! ```text
//!  app ──Interest──▶ … ──▶ face R1->R2 ──▶ …        a flow: one name prefix (NDN), one pair
//!  app ◀──Data────── … ◀── face R2->R1 ◀── …        of endpoints (IP), one group (multicast)
//!   ▲ deliveries name the flow's applications          ▲ transmissions list the flows per face
//! ```
//!
//! A flow's applications are learnt from what is delivered to them: a consumer receives the
//! Data of its prefix, a TCP sender the ACKs of its connection. Recording costs one histogram
//! increment per transmission and a flow-set look-up per Data.

use rustc_hash::{FxHashMap, FxHashSet};
use smallvec::SmallVec;

use super::AppSlot;
use crate::face::Face;
use crate::histogram::Histogram;
use crate::ids::{AppId, NameId, NodeId};
use crate::packet::{Header, McastKind, NdnKind, Packet, Transport};
use crate::recorder::{SummaryRow, Unit};
use crate::time::{SimDuration, SimTime};

/// What packets of one flow have in common.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FlowKey {
    /// NDN: the name prefix. Consumers fetching the same prefix are one flow on a face.
    Ndn(NameId),
    /// IP: the two endpoints (node, port), lower first, so a connection's segments and its
    /// ACKs have the same key.
    Ip([(NodeId, u16); 2]),
    /// Multicast: the group.
    Mcast(u32),
}

impl FlowKey {
    /// The flow `p` belongs to; `None` for link-layer frames.
    pub fn of(p: &Packet) -> Option<FlowKey> {
        match &p.header {
            Header::Ndn(h) => Some(FlowKey::Ndn(h.name.prefix)),
            Header::Ip(ip) => {
                let (sp, dp) = match ip.transport {
                    Transport::Tcp(t) => (t.src_port, t.dst_port),
                    Transport::Udp(u) => (u.src_port, u.dst_port),
                };
                let (a, b) = ((ip.src, sp), (ip.dst, dp));
                Some(FlowKey::Ip(if a <= b { [a, b] } else { [b, a] }))
            }
            Header::Mcast(m) => Some(FlowKey::Mcast(m.group)),
            Header::LinkAck => None,
        }
    }
}

/// Whether `p` carries a flow's payload: NDN Data, a TCP segment with bytes, a UDP datagram,
/// multicast Data (not Interests, NACKs, pure ACKs or feedback).
fn carries_payload(p: &Packet) -> bool {
    match &p.header {
        Header::Ndn(h) => h.kind == NdnKind::Data,
        Header::Ip(ip) => match ip.transport {
            Transport::Tcp(t) => t.len > 0,
            Transport::Udp(_) => true,
        },
        Header::Mcast(m) => m.kind == McastKind::Data,
        Header::LinkAck => false,
    }
}

/// Keys up to which a `KeySet` is searched by scanning its list; beyond, through a hash set.
const SCANNED_KEYS: usize = 8;

/// A set of distinct flow keys, with the key seen last checked first. A face that carries
/// many flows (a bottleneck) adds one for every packet, so past a few keys the look-up is
/// indexed rather than a scan of them all.
///
/// Every face and application has one, and most hold a single key (an access link's flow, a
/// consumer's prefix), so the set is kept small: one key inline, and the index, which only a
/// face of many flows needs, behind a pointer (64 bytes rather than 104).
#[derive(Clone, Debug, Default)]
struct KeySet {
    /// The keys, in the order first added.
    keys: SmallVec<[FlowKey; 1]>,
    /// The same keys once there are more than `SCANNED_KEYS`; `None` before.
    index: Option<Box<KeyIndex>>,
    /// The key added last, new or not: packets of one flow tend to follow each other (a
    /// window's burst), even on a face that many flows cross.
    last: Option<FlowKey>,
}

impl KeySet {
    /// Inline: the common case, a packet of the flow just seen, is one compare.
    #[inline(always)]
    fn add(&mut self, k: FlowKey) {
        if self.last != Some(k) {
            self.last = Some(k);
            self.add_other(k);
        }
    }
    #[inline(never)]
    fn add_other(&mut self, k: FlowKey) {
        match &mut self.index {
            None => {
                if !self.keys.contains(&k) {
                    self.keys.push(k);
                    if self.keys.len() > SCANNED_KEYS {
                        let mut index = Box::<KeyIndex>::default();
                        for &k in &self.keys {
                            index.insert(k);
                        }
                        self.index = Some(index);
                    }
                }
            }
            Some(index) => {
                if index.insert(k) {
                    self.keys.push(k);
                }
            }
        }
    }
}

/// The index of a `KeySet` of many keys. An NDN flow's key is an interned name, a small dense
/// number, so those keys are bits of a bitset: a face that a thousand flows cross tests one
/// bit per Data rather than hashing the key and probing a table in lines of its own (in
/// `tree-1111` that probe was 0.5 last-level misses a hop). The other keys are hashed.
#[derive(Clone, Debug, Default)]
struct KeyIndex {
    /// Bit `id` set: the NDN flow of name prefix `id` is in the set.
    ndn: Vec<u64>,
    others: FxHashSet<FlowKey>,
}

impl KeyIndex {
    /// Where the NDN flow of name prefix `id` is in `ndn`: its word, and its bit there.
    fn bit(id: NameId) -> (usize, u64) {
        (id.idx() / 64, 1u64 << (id.idx() % 64))
    }

    /// Add `k`: true if it was not in the set.
    fn insert(&mut self, k: FlowKey) -> bool {
        match k {
            FlowKey::Ndn(id) => {
                let (word, bit) = KeyIndex::bit(id);
                if self.ndn.len() <= word {
                    self.ndn.resize(word + 1, 0);
                }
                let new = self.ndn[word] & bit == 0;
                self.ndn[word] |= bit;
                new
            }
            _ => self.others.insert(k),
        }
    }
}

#[derive(Clone, Debug, Default)]
struct FaceProbe {
    /// Time from entering the queue discipline to the start of transmission, per packet sent
    /// that waited: a packet that found its link idle waited zero, and is not recorded here.
    /// Every packet sent is counted on its face (`FaceCounters::packets_sent`), so the zeros
    /// are the difference, added as the summary is made (`sojourn_of`). Most packets of a
    /// large world wait for nothing on their access links, and this leaves their probe unread.
    /// Boxed, made as the first packet waits: most faces of a large world (access links) never
    /// queue one, and inline the histogram was 80 of a probe's 144 bytes.
    sojourn: Option<Box<Histogram>>,
    /// Flows whose payload this face transmitted.
    data_flows: KeySet,
}

/// The probes of every link face and application of a world.
#[derive(Clone, Debug, Default)]
pub struct Probes {
    /// By link face, in the order of their links (`Egress::probe`): application faces never
    /// transmit, and a probe for each of them was 288 bytes of every consumer-producer flow.
    faces: Vec<FaceProbe>,
    /// Flows delivered to each application.
    owners: Vec<KeySet>,
}

/// The sojourn rows of a face: (metric, quantile); `None` is the mean.
const SOJOURN_ROWS: [(&str, Option<f64>); 4] = [
    ("sojourn_mean_ms", None),
    ("sojourn_p50_ms", Some(0.50)),
    ("sojourn_p95_ms", Some(0.95)),
    ("sojourn_p99_ms", Some(0.99)),
];

/// Jain's fairness index (Σx)² / (n·Σx²) of `xs`: 1 when all are equal, 1/n when one has
/// everything; `None` for fewer than two values or a zero total.
pub fn jain_index(xs: &[f64]) -> Option<f64> {
    let total: f64 = xs.iter().sum();
    let squares: f64 = xs.iter().map(|x| x * x).sum();
    (xs.len() >= 2 && total > 0.0).then(|| total * total / (xs.len() as f64 * squares))
}

impl FaceProbe {
    /// The sojourn times of every packet `face`, whose probe this is, sent: those recorded and
    /// a zero for each of the others.
    fn sojourn_of(&self, face: &Face) -> Histogram {
        let mut h = self.sojourn.as_deref().cloned().unwrap_or_default();
        h.add_zeros(face.counters.packets_sent.saturating_sub(h.len()));
        h
    }
}

impl Probes {
    /// The probes of `faces` link faces and room for those of `apps` applications, and no
    /// more: grown one at a time, the vectors doubled their capacity, and a face's probe is
    /// 72 bytes.
    pub(super) fn size_for(&mut self, faces: usize, apps: usize) {
        self.faces.reserve_exact(faces.saturating_sub(self.faces.len()));
        self.faces.resize_with(faces.max(self.faces.len()), FaceProbe::default);
        self.owners.reserve_exact(apps.saturating_sub(self.owners.len()));
        self.owners.resize_with(apps.max(self.owners.len()), KeySet::default);
    }

    /// A packet of the link face whose probe is `at` (`Egress::probe`) starts its transmission
    /// at `now`. Every link face has its probe from the start (`size_for`).
    #[inline]
    pub(super) fn on_transmit(&mut self, at: u32, now: SimTime, p: &Packet) {
        let probe = &mut self.faces[at as usize];
        let waited = now.saturating_since(p.enqueued_at);
        if waited > SimDuration::ZERO {
            // Waits are mostly a few multiples of a packet's time: few buckets in use.
            probe.sojourn.get_or_insert_with(|| Box::new(Histogram::sparse())).record(waited);
        }
        if carries_payload(p) {
            if let Some(k) = FlowKey::of(p) {
                probe.data_flows.add(k);
            }
        }
    }

    /// `p` is delivered to application `app`: the app takes part in the packet's flow.
    #[inline]
    pub(super) fn on_deliver(&mut self, app: AppId, p: &Packet) {
        let Some(k) = FlowKey::of(p) else { return };
        if self.owners.len() <= app.idx() {
            self.owners.resize_with(app.idx() + 1, KeySet::default);
        }
        self.owners[app.idx()].add(k);
    }

    /// The sojourn rows of every face that transmitted packets, and Jain's index on every face
    /// the Data of two or more flows with a throughput crossed. Throughputs are read from the
    /// application rows already in `out` (consumers' and TCP senders' `throughput_kbps`).
    ///
    /// Both look-ups are indexed once rather than searched per face: a tree of 1,111 nodes has
    /// 2,220 faces, a thousand flows cross its top ones, and the summary has 60,000 rows.
    /// `names` are the faces' names, by face.
    pub(super) fn face_rows(
        &self,
        faces: &[Face],
        names: &[compact_str::CompactString],
        apps: &[AppSlot],
        out: &mut Vec<SummaryRow>,
    ) {
        let mut throughput: FxHashMap<&str, f64> = FxHashMap::default();
        for r in out.iter() {
            if let Some(kbps) = r.flow_throughput_kbps() {
                throughput.entry(r.entity.as_str()).or_insert(kbps);
            }
        }
        // Each flow's applications, by position in `apps`.
        let mut takers: FxHashMap<FlowKey, Vec<usize>> = FxHashMap::default();
        for (at, a) in apps.iter().enumerate() {
            for &k in self.owners.get(a.id.idx()).map_or(&[][..], |own| &own.keys[..]) {
                takers.entry(k).or_default().push(at);
            }
        }
        let mut rows = Vec::new();
        let mut taking: Vec<usize> = Vec::new();
        for (f, name) in faces.iter().zip(names) {
            let Some(probe) = f.egress.as_ref().and_then(|eg| self.faces.get(eg.probe as usize)) else { continue };
            if f.counters.packets_sent == 0 {
                continue;
            }
            let sojourn = probe.sojourn_of(f);
            for (metric, q) in SOJOURN_ROWS {
                let s = match q {
                    None => sojourn.mean_s(),
                    Some(q) => sojourn.quantile_s(q),
                };
                if let Some(s) = s {
                    rows.push(SummaryRow::new(name, "face", metric, s * 1e3, Unit::Ms));
                }
            }
            // The applications taking part in the flows this face carried Data of, in app order.
            taking.clear();
            for k in &probe.data_flows.keys {
                taking.extend(takers.get(k).into_iter().flatten());
            }
            taking.sort_unstable();
            taking.dedup();
            let shares: Vec<f64> =
                taking.iter().filter_map(|&at| throughput.get(apps[at].name.as_str()).copied()).collect();
            if let Some(j) = jain_index(&shares) {
                rows.push(SummaryRow::new(name, "face", "jain_index", j, Unit::Ratio));
                rows.push(SummaryRow::new(name, "face", "jain_flows", shares.len() as f64, Unit::Flows));
            }
        }
        out.extend(rows);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::FaceKind;
    use crate::ids::FaceId;
    use crate::packet::{Ip, Name, Tcp, TcpFlags};

    /// Membership, which only the tests ask: the summary goes from flows to their applications
    /// through an index of its own.
    impl KeySet {
        fn contains(&self, k: &FlowKey) -> bool {
            match &self.index {
                None => self.keys.contains(k),
                Some(index) => match *k {
                    FlowKey::Ndn(id) => {
                        let (word, bit) = KeyIndex::bit(id);
                        index.ndn.get(word).is_some_and(|w| w & bit != 0)
                    }
                    _ => index.others.contains(k),
                },
            }
        }
    }

    impl KeyIndex {
        /// How many keys the index holds.
        fn len(&self) -> usize {
            self.ndn.iter().map(|w| w.count_ones() as usize).sum::<usize>() + self.others.len()
        }
    }

    fn tcp(src: u32, dst: u32, sp: u16, dp: u16, len: u32) -> Packet {
        let t = Tcp { src_port: sp, dst_port: dp, seq: 0, ack: 0, flags: TcpFlags::ACK, window: 0, len };
        let ip = Ip { src: NodeId(src), dst: NodeId(dst), ecn_capable: false, transport: Transport::Tcp(t) };
        Packet::new(Header::Ip(ip), 40 + len)
    }

    #[test]
    fn a_connection_and_its_acks_are_one_flow_and_only_segments_with_bytes_are_payload() {
        let seg = tcp(1, 2, 5000, 80, 1000);
        let ack = tcp(2, 1, 80, 5000, 0);
        assert_eq!(FlowKey::of(&seg), FlowKey::of(&ack));
        assert_ne!(FlowKey::of(&seg), FlowKey::of(&tcp(1, 2, 5001, 80, 1000)));
        assert!(carries_payload(&seg) && !carries_payload(&ack));
        let interest = Packet::interest(Name { prefix: NameId(3), seg: 9 }, 40, 1, 0);
        let data = Packet::data_for(interest.ndn().unwrap(), 1000);
        assert_eq!(FlowKey::of(&interest), Some(FlowKey::Ndn(NameId(3))));
        assert!(carries_payload(&data) && !carries_payload(&interest));
    }

    #[test]
    fn a_key_set_keeps_each_flow_once_and_finds_it_whether_scanned_or_indexed() {
        let mut set = KeySet::default();
        let key = |i: u32| FlowKey::Ndn(NameId(i));
        for round in 0..2 {
            for i in 0..20 {
                set.add(key(i));
                set.add(key(i));
                // Before the set grows past the scanned keys, and after.
                if round == 0 && i == 3 {
                    assert!(set.index.is_none());
                    assert!((0..4).all(|j| set.contains(&key(j))) && !set.contains(&key(4)));
                }
            }
        }
        assert_eq!(set.keys.len(), 20);
        assert_eq!(set.index.as_ref().map(|i| i.len()), Some(20));
        assert!((0..20).all(|i| set.contains(&key(i))));
        assert!(!set.contains(&key(20)) && !set.contains(&FlowKey::Mcast(0)));
        assert_eq!(set.keys[..3], [key(0), key(1), key(2)]);
        // Keys of every kind, and NDN ones past the first word of bits, once indexed.
        for k in [FlowKey::Mcast(7), key(700), FlowKey::Mcast(7), key(700), key(64), FlowKey::Mcast(8)] {
            set.add(k);
        }
        assert_eq!(set.keys.len(), 24);
        assert!([key(64), key(700), FlowKey::Mcast(7), FlowKey::Mcast(8)].iter().all(|k| set.contains(k)));
        assert!(!set.contains(&key(63)) && !set.contains(&key(701)) && !set.contains(&FlowKey::Mcast(9)));
    }

    #[test]
    fn the_probes_take_the_room_of_their_faces_and_apps() {
        // A probe per face and a key set per app, of every world: kept small (see `KeySet`).
        assert!(std::mem::size_of::<FaceProbe>() <= 72, "{}", std::mem::size_of::<FaceProbe>());
        assert!(std::mem::size_of::<KeySet>() <= 64, "{}", std::mem::size_of::<KeySet>());
        let mut probes = Probes::default();
        probes.size_for(1001, 3);
        assert_eq!((probes.faces.capacity(), probes.owners.capacity()), (1001, 3));
        let p = Packet::interest(Name { prefix: NameId(0), seg: 0 }, 40, 1, 0);
        probes.on_transmit(1000, SimTime(1), &p);
        probes.on_deliver(AppId(2), &p);
        assert_eq!((probes.faces.capacity(), probes.owners.capacity()), (1001, 3));
    }

    #[test]
    fn jain_is_one_for_equal_shares_and_one_over_n_when_one_flow_has_everything() {
        assert_eq!(jain_index(&[5.0, 5.0, 5.0]), Some(1.0));
        assert_eq!(jain_index(&[9.0, 0.0, 0.0]), Some(1.0 / 3.0));
        // (1 + 3)² / (2 · (1 + 9)) = 0.8
        assert_eq!(jain_index(&[1.0, 3.0]), Some(0.8));
        assert_eq!(jain_index(&[4.0]), None);
        assert_eq!(jain_index(&[0.0, 0.0]), None);
    }

    #[test]
    fn sojourn_is_measured_from_entering_the_queue_to_the_start_of_transmission() {
        let mut probes = Probes::default();
        probes.size_for(2, 0);
        let mut p = Packet::interest(Name { prefix: NameId(0), seg: 0 }, 40, 1, 0);
        p.enqueued_at = SimTime(1_000_000);
        probes.on_transmit(1, SimTime(4_000_000), &p);
        probes.on_transmit(1, SimTime(1_000_000), &p);
        // The packet that waited for nothing is not recorded: its face counted it as sent.
        assert_eq!(probes.faces[1].sojourn.as_ref().map(|h| h.len()), Some(1));
        let mut face = Face {
            id: FaceId(1),
            node: NodeId(0),
            kind: FaceKind::App { app: AppId(0) },
            egress: None,
            link_service: None,
            pending_interests: 0,
            counters: Default::default(),
        };
        face.counters.packets_sent = 2;
        let h = probes.faces[1].sojourn_of(&face);
        assert_eq!((h.len(), h.mean_s(), h.max_s(), h.quantile_s(0.5)), (2, Some(0.0015), Some(0.003), Some(0.0)));
        // A face none of whose packets waited has no histogram, and its zeros are its packets.
        assert!(probes.faces[0].sojourn.is_none());
        face.counters.packets_sent = 3;
        let h = probes.faces[0].sojourn_of(&face);
        assert_eq!((h.len(), h.mean_s(), h.max_s()), (3, Some(0.0), Some(0.0)));
    }
}
