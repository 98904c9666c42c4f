//! The engine beyond NDN: IP and multicast packets crossing routers on the same queues as NDN
//! traffic, router modules that originate, absorb and hold packets, link services with frames of
//! their own, and the packet tap.

use std::sync::{Arc, Mutex};

use ndncc_core::app::{AppCtx, Application};
use ndncc_core::cc::window::{FixedWindowConfig, WindowConfig};
use ndncc_core::ids::{FaceId, NodeId};
use ndncc_core::instantiate;
use ndncc_core::linkservice::{LinkCtx, LinkService};
use ndncc_core::module::{Intake, InterestVerdict, ModuleCtx, RouterModule};
use ndncc_core::packet::{Header, Ip, Mcast, McastKind, Packet, Transport, Udp};
use ndncc_core::queue::{DropTailConfig, QueueConfig};
use ndncc_core::recorder::{SummaryRow, Unit};
use ndncc_core::scenario::{ConsumerSpec, ProducerSpec};
use ndncc_core::tap::{TapLog, TapPoint};
use ndncc_core::time::{SimDuration, SimTime};
use ndncc_core::units::Bytes;
use ndncc_core::world::{LinkParams, World, WorldBuilder};

fn summary(w: &World, entity: &str, metric: &str) -> f64 {
    w.summary().into_iter().find(|r| r.entity == entity && r.metric == metric).map(|r| r.value).unwrap_or(f64::NAN)
}

/// Sends `count` UDP datagrams of `size` bytes to `dst`:`port`, one every `gap`.
struct UdpSender {
    me: NodeId,
    dst: NodeId,
    port: u16,
    size: u32,
    gap: SimDuration,
    count: u64,
    sent: u64,
}

impl Application for UdpSender {
    fn on_start(&mut self, ctx: &mut AppCtx) {
        self.on_wake(ctx);
    }
    fn on_packet(&mut self, _ctx: &mut AppCtx, _packet: &Packet) {}
    fn on_wake(&mut self, ctx: &mut AppCtx) {
        if self.sent >= self.count {
            return;
        }
        let udp = Udp { src_port: 9, dst_port: self.port, seq: self.sent, sent_at: ctx.now };
        let ip = Ip { src: self.me, dst: self.dst, ecn_capable: false, transport: Transport::Udp(udp) };
        ctx.send(Packet::new(Header::Ip(ip), self.size));
        self.sent += 1;
        ctx.wake_at(ctx.now + self.gap);
    }
    fn summary(&self, _end: SimTime, out: &mut Vec<SummaryRow>) {
        out.push(SummaryRow::new("udp-tx", "app", "sent", self.sent as f64, Unit::Packets));
    }
}

/// Counts the datagrams it receives and the hops they took.
#[derive(Default)]
struct UdpSink {
    received: u64,
    hops: u64,
    last_seq: Option<u64>,
}

impl Application for UdpSink {
    fn on_start(&mut self, _ctx: &mut AppCtx) {}
    fn on_packet(&mut self, _ctx: &mut AppCtx, packet: &Packet) {
        if let Some(Ip { transport: Transport::Udp(u), .. }) = packet.ip() {
            self.received += 1;
            self.hops = packet.hops as u64;
            self.last_seq = Some(u.seq);
        }
    }
    fn summary(&self, _end: SimTime, out: &mut Vec<SummaryRow>) {
        out.push(SummaryRow::new("udp-rx", "app", "received", self.received as f64, Unit::Packets));
        out.push(SummaryRow::new("udp-rx", "app", "hops", self.hops as f64, Unit::Hops));
    }
}

/// A producer on `node` serving `/p`: 1,000-byte payloads, 50 bytes of overhead.
fn producer(node: &str) -> ProducerSpec {
    ProducerSpec { payload: Bytes(1000), overhead: Some(Bytes(50)), ..ProducerSpec::new(node, "/p") }
}

/// A consumer on `node` fetching `/p` under a fixed window.
fn consumer(node: &str, segments: Option<u64>, window: f64) -> ConsumerSpec {
    ConsumerSpec {
        segments,
        ..ConsumerSpec::with_window(node, "/p", WindowConfig::Fixed(FixedWindowConfig { window }))
    }
}

fn droptail(n: usize) -> QueueConfig {
    QueueConfig::Droptail(DropTailConfig { packets: Some(n), bytes: None })
}

/// C –(100 Mbps, 1 ms)– R –(10 Mbps, 5 ms)– P, with an NDN consumer/producer pair and a UDP
/// sender/sink pair over the same links.
fn shared_bottleneck(udp_count: u64) -> (World, Arc<Mutex<TapLog>>) {
    let mut b = WorldBuilder::new(1, SimDuration::from_secs(2));
    let (c, r, p) = (b.add_node("C"), b.add_node("R"), b.add_node("P"));
    let fast = LinkParams::new(100_000_000, SimDuration::from_millis(1)).with_queue(droptail(50));
    let slow = LinkParams::new(10_000_000, SimDuration::from_millis(5)).with_queue(droptail(50));
    b.add_link("C-R", c, r, fast.clone(), fast).unwrap();
    b.add_link("R-P", r, p, slow.clone(), slow).unwrap();
    let (cr, rp) = (b.face_between(c, r).unwrap(), b.face_between(r, p).unwrap());
    b.add_route(c, "/p", cr, 1);
    b.add_route(r, "/p", rp, 1);
    b.add_ip_route(c, p, cr);
    b.add_ip_route(r, p, rp);
    instantiate::add_producer(&mut b, "P", &producer("P")).unwrap();
    instantiate::add_consumer(&mut b, "C", &consumer("C", None, 20.0)).unwrap();
    let tx = UdpSender {
        me: c,
        dst: p,
        port: 5000,
        size: 1000,
        gap: SimDuration::from_millis(1),
        count: udp_count,
        sent: 0,
    };
    b.add_application("udp-tx", c, Box::new(tx), SimTime::ZERO, None);
    let rx = b.add_application("udp-rx", p, Box::new(UdpSink::default()), SimTime::ZERO, None);
    b.bind_port(rx, 5000).unwrap();
    let mut w = b.build();
    let log = Arc::new(Mutex::new(TapLog::default()));
    w.set_tap(Box::new(log.clone()));
    (w, log)
}

#[test]
fn udp_datagrams_cross_a_router_through_the_same_queue_as_ndn_data() {
    let (mut w, log) = shared_bottleneck(500);
    w.run(SimDuration::ZERO, &mut |_| true);
    // 500 datagrams of 1,000 B at 8 Mbps share a 10 Mbps link with Interests (R->P carries
    // only Interests and datagrams): none is lost, and each was received by C, R and P.
    assert_eq!(summary(&w, "udp-rx", "received"), 500.0);
    assert_eq!(summary(&w, "udp-rx", "hops"), 3.0);
    assert!(summary(&w, "C", "data_received") > 1000.0);
    let rp = w.face_by_name("R->P").unwrap();
    let f = &w.net.faces[rp.idx()].counters;
    assert_eq!(f.ip_bytes_sent(), 500 * 1000);
    assert!(f.interests_sent > 1000);
    // The tap saw both kinds enqueued in the one queue of R->P, interleaved.
    let log = log.lock().unwrap();
    let kinds: Vec<bool> = log
        .events
        .iter()
        .filter(|(_, face, point, _)| *face == rp && *point == TapPoint::Enqueue)
        .map(|(_, _, _, p)| p.ip().is_some())
        .collect();
    let switches = kinds.windows(2).filter(|w| w[0] != w[1]).count();
    assert!(switches > 100, "IP and NDN packets interleave in the queue ({switches} switches)");
    // Every transmit on R->P that left 10 ms before the end (5 ms delay, 1 ms to serialise)
    // is matched by an arrival at the other end, as nothing is lost.
    let pr = w.net.faces[rp.idx()].peer().unwrap();
    let early = SimTime(SimDuration::from_millis(1990).nanos());
    let tx = log.events.iter().filter(|e| e.1 == rp && e.2 == TapPoint::Transmit && e.0 <= early).count();
    let rx = log.events.iter().filter(|e| e.1 == pr && e.2 == TapPoint::Arrive && e.0 <= early).count();
    assert!(tx > 2000 && (tx - rx) as u32 <= 7, "{tx} transmits, {rx} arrivals by 1.99 s");
}

/// A packet that finds a drop-tail queue empty and its transmitter idle goes straight to the
/// wire, but is seen as queued first: every packet on a face is tapped `Enqueue` once and then
/// `Transmit` once (or still waits at the end), and the largest queue counts it.
#[test]
fn a_packet_sent_straight_to_an_idle_link_is_still_tapped_and_counted_as_queued() {
    let (mut w, log) = shared_bottleneck(100);
    w.run(SimDuration::ZERO, &mut |_| true);
    let log = log.lock().unwrap();
    for name in ["C->R", "R->C", "R->P", "P->R"] {
        let face = w.face_by_name(name).unwrap();
        let sending = |e: &&(SimTime, FaceId, TapPoint, Packet)| {
            e.1 == face && matches!(e.2, TapPoint::Enqueue | TapPoint::Transmit)
        };
        let points: Vec<_> = log.events.iter().filter(sending).map(|e| (e.0, e.2, e.3)).collect();
        let count = |p: TapPoint| points.iter().filter(|e| e.1 == p).count();
        let waiting = w.net.faces[face.idx()].egress.as_ref().unwrap().queue_packets();
        assert_eq!(count(TapPoint::Enqueue), count(TapPoint::Transmit) + waiting, "{name}");
        // The first packet met an idle link: queued and sent at the same instant.
        assert_eq!(points[0].1, TapPoint::Enqueue, "{name}");
        assert_eq!((points[1].0, points[1].1, points[1].2), (points[0].0, TapPoint::Transmit, points[0].2), "{name}");
        assert!(w.net.faces[face.idx()].counters.max_queue_packets >= 1, "{name}");
    }
}

#[test]
fn a_datagram_for_a_node_without_a_route_is_counted_not_forwarded() {
    let mut b = WorldBuilder::new(1, SimDuration::from_secs(1));
    let (a, r, z) = (b.add_node("A"), b.add_node("R"), b.add_node("Z"));
    let l = LinkParams::new(10_000_000, SimDuration::from_millis(1));
    b.add_link("A-R", a, r, l.clone(), l).unwrap();
    let ar = b.face_between(a, r).unwrap();
    b.add_ip_route(a, z, ar); // R has no route to Z
    let tx = UdpSender { me: a, dst: z, port: 1, size: 100, gap: SimDuration::from_millis(10), count: 3, sent: 0 };
    b.add_application("udp-tx", a, Box::new(tx), SimTime::ZERO, None);
    let mut w = b.build();
    w.run(SimDuration::ZERO, &mut |_| true);
    assert_eq!(summary(&w, "R", "ip_unroutable"), 3.0);
}

// ---------------------------------------------------------------------------------------------
// Multicast with a router module that absorbs feedback and originates one aggregate per period.

/// The source: sends `count` multicast Data of 1,000 B, one per millisecond; counts feedback.
struct McastSource {
    me: NodeId,
    count: u64,
    sent: u64,
    feedback: Arc<Mutex<Vec<(SimTime, u64)>>>,
}

impl Application for McastSource {
    fn on_start(&mut self, ctx: &mut AppCtx) {
        self.on_wake(ctx);
    }
    fn on_packet(&mut self, ctx: &mut AppCtx, packet: &Packet) {
        if let Some(m) = packet.mcast().filter(|m| m.kind == McastKind::Feedback) {
            self.feedback.lock().unwrap().push((ctx.now, m.seq));
        }
    }
    fn on_wake(&mut self, ctx: &mut AppCtx) {
        if self.sent < self.count {
            let m = Mcast {
                group: 7,
                kind: McastKind::Data,
                origin: self.me,
                seq: self.sent,
                sent_at: ctx.now,
                report: Default::default(),
                times: Default::default(),
            };
            ctx.send(Packet::new(Header::Mcast(m), 1000));
            self.sent += 1;
            ctx.wake_at(ctx.now + SimDuration::from_millis(1));
        }
    }
    fn summary(&self, _end: SimTime, _out: &mut Vec<SummaryRow>) {}
}

/// A receiver: counts Data and reports the count upstream every 10 ms.
struct McastReceiver {
    me: NodeId,
    received: u64,
}

impl Application for McastReceiver {
    fn on_start(&mut self, ctx: &mut AppCtx) {
        ctx.wake_at(ctx.now + SimDuration::from_millis(10));
    }
    fn on_packet(&mut self, _ctx: &mut AppCtx, packet: &Packet) {
        if packet.mcast().is_some_and(|m| m.kind == McastKind::Data) {
            self.received += 1;
        }
    }
    fn on_wake(&mut self, ctx: &mut AppCtx) {
        let m = Mcast {
            group: 7,
            kind: McastKind::Feedback,
            origin: self.me,
            seq: self.received,
            sent_at: ctx.now,
            report: Default::default(),
            times: Default::default(),
        };
        ctx.send(Packet::new(Header::Mcast(m), 40));
        ctx.wake_at(ctx.now + SimDuration::from_millis(10));
    }
    fn summary(&self, _end: SimTime, out: &mut Vec<SummaryRow>) {
        out.push(SummaryRow::new(&format!("M{}", self.me.0), "app", "received", self.received as f64, Unit::Packets));
    }
}

/// A tree node's aggregator: absorbs feedback from downstream, keeps the smallest count, and
/// every 10 ms sends one report of its own upstream.
struct Aggregator {
    upstream: FaceId,
    smallest: Option<u64>,
    absorbed: Arc<Mutex<u64>>,
}

impl RouterModule for Aggregator {
    fn name(&self) -> &'static str {
        "aggregator"
    }
    fn on_packet_in(&mut self, ctx: &mut ModuleCtx, _face: FaceId, packet: &mut Packet) -> Intake {
        let Some(m) = packet.mcast().filter(|m| m.kind == McastKind::Feedback) else { return Intake::Pass };
        self.smallest = Some(self.smallest.map_or(m.seq, |s| s.min(m.seq)));
        *self.absorbed.lock().unwrap() += 1;
        ctx.wake_at(ctx.now + SimDuration::from_millis(10));
        Intake::Absorb
    }
    fn on_wake(&mut self, ctx: &mut ModuleCtx) {
        if let Some(s) = self.smallest.take() {
            let m = Mcast {
                group: 7,
                kind: McastKind::Feedback,
                origin: ctx.node,
                seq: s,
                sent_at: ctx.now,
                report: Default::default(),
                times: Default::default(),
            };
            ctx.send(self.upstream, Packet::new(Header::Mcast(m), 40));
        }
    }
}

#[test]
fn a_router_module_absorbs_feedback_and_originates_one_aggregate_per_period() {
    // S – R – {M1, M2, M3}: Data copied at R to three receivers; R's module absorbs the three
    // receivers' reports and sends one aggregate towards S per 10 ms period.
    let mut b = WorldBuilder::new(1, SimDuration::from_millis(1000));
    let s = b.add_node("S");
    let r = b.add_node("R");
    let ms: Vec<NodeId> = (1..=3).map(|i| b.add_node(&format!("M{i}"))).collect();
    let l = LinkParams::new(100_000_000, SimDuration::from_millis(1));
    b.add_link("S-R", s, r, l.clone(), l.clone()).unwrap();
    for (i, &m) in ms.iter().enumerate() {
        b.add_link(&format!("R-M{}", i + 1), r, m, l.clone(), l.clone()).unwrap();
    }
    let feedback = Arc::new(Mutex::new(Vec::new()));
    let src = McastSource { me: s, count: 500, sent: 0, feedback: feedback.clone() };
    let src_app = b.add_application("source", s, Box::new(src), SimTime::ZERO, None);
    let (sr, rs) = (b.face_between(s, r).unwrap(), b.face_between(r, s).unwrap());
    b.add_mcast_route(s, 7, None, Some(sr));
    b.add_mcast_route(s, 7, None, Some(b.app_face(src_app)));
    b.add_mcast_route(r, 7, Some(rs), None);
    for &m in &ms {
        let app = b.add_application(
            &format!("M{}", m.0),
            m,
            Box::new(McastReceiver { me: m, received: 0 }),
            SimTime::ZERO,
            None,
        );
        let down = b.face_between(r, m).unwrap();
        b.add_mcast_route(r, 7, Some(rs), Some(down));
        let up = b.face_between(m, r).unwrap();
        b.add_mcast_route(m, 7, Some(up), Some(b.app_face(app)));
    }
    let absorbed = Arc::new(Mutex::new(0));
    b.add_module(r, Box::new(Aggregator { upstream: rs, smallest: None, absorbed: absorbed.clone() }));
    let mut w = b.build();
    w.run(SimDuration::ZERO, &mut |_| true);
    for &m in &ms {
        assert_eq!(summary(&w, &format!("M{}", m.0), "received"), 500.0);
    }
    // Each receiver reports at 10, 20, …, 1000 ms; the last report would reach R after the end
    // (1 ms link): 99 reports each, all absorbed at R.
    assert_eq!(*absorbed.lock().unwrap(), 297);
    let fb = feedback.lock().unwrap();
    // One aggregate per period reaches S (the last, sent at 1000 ms + 10 ms, is after the end).
    assert!((98..=100).contains(&fb.len()), "{} aggregates", fb.len());
    // S's face towards R carried Data only; R's face towards S carried only the aggregates.
    let rs_counters = &w.net.faces[rs.idx()].counters;
    assert_eq!(rs_counters.mcast_bytes_sent(), fb.len() as u64 * 40);
}

// ---------------------------------------------------------------------------------------------
// A module that holds Interests and releases them later.

/// Holds every Interest for `delay` before sending it on.
struct Delayer {
    delay: SimDuration,
    held: std::collections::VecDeque<(SimTime, FaceId, Packet)>,
}

impl RouterModule for Delayer {
    fn name(&self) -> &'static str {
        "delayer"
    }
    fn on_interest_out(&mut self, ctx: &mut ModuleCtx, face: FaceId, interest: &mut Packet) -> InterestVerdict {
        let due = ctx.now + self.delay;
        self.held.push_back((due, face, *interest));
        ctx.wake_at(due);
        InterestVerdict::Hold
    }
    fn on_wake(&mut self, ctx: &mut ModuleCtx) {
        while let Some(&(due, face, p)) = self.held.front() {
            if due > ctx.now {
                ctx.wake_at(due);
                break;
            }
            self.held.pop_front();
            ctx.send(face, p);
        }
    }
}

#[test]
fn an_interest_held_by_a_module_leaves_when_released_and_the_rtt_grows_by_the_hold() {
    let rtt = |delay_ms: u64| {
        let mut b = WorldBuilder::new(1, SimDuration::from_secs(1));
        let (c, r, p) = (b.add_node("C"), b.add_node("R"), b.add_node("P"));
        let l = LinkParams::new(100_000_000, SimDuration::from_millis(5));
        b.add_link("C-R", c, r, l.clone(), l.clone()).unwrap();
        b.add_link("R-P", r, p, l.clone(), l).unwrap();
        let (cr, rp) = (b.face_between(c, r).unwrap(), b.face_between(r, p).unwrap());
        b.add_route(c, "/p", cr, 1);
        b.add_route(r, "/p", rp, 1);
        instantiate::add_producer(&mut b, "P", &producer("P")).unwrap();
        instantiate::add_consumer(&mut b, "C", &consumer("C", None, 1.0)).unwrap();
        if delay_ms > 0 {
            let d = Delayer { delay: SimDuration::from_millis(delay_ms), held: Default::default() };
            b.add_module(r, Box::new(d));
        }
        let mut w = b.build();
        w.run(SimDuration::ZERO, &mut |_| true);
        summary(&w, "C", "mean_rtt_ms")
    };
    let (plain, held) = (rtt(0), rtt(7));
    assert!((held - plain - 7.0).abs() < 1e-9, "plain {plain} ms, held {held} ms");
}

// ---------------------------------------------------------------------------------------------
// A link service with frames of its own.

/// Numbers every frame it sends; the receiving side answers each frame with a standalone
/// acknowledgement frame of 10 B, which the sending side absorbs.
#[derive(Default)]
struct Acker {
    next_seq: u32,
    acked: Arc<Mutex<Vec<u32>>>,
}

impl LinkService for Acker {
    fn name(&self) -> &'static str {
        "acker"
    }
    fn on_transmit(&mut self, _ctx: &mut LinkCtx, packet: &mut Packet) {
        if packet.header != Header::LinkAck {
            self.next_seq += 1;
            packet.link.tx_seq = self.next_seq;
        }
    }
    fn on_receive(&mut self, ctx: &mut LinkCtx, packet: Packet) -> Option<Packet> {
        if packet.header == Header::LinkAck {
            self.acked.lock().unwrap().push(packet.link.ack);
            return None;
        }
        if packet.link.tx_seq > 0 {
            let mut ack = Packet::new(Header::LinkAck, 10);
            ack.link.ack = packet.link.tx_seq;
            ctx.send(ack);
        }
        Some(packet)
    }
}

#[test]
fn a_link_service_acknowledges_frames_with_frames_that_use_the_link_and_never_reach_a_node() {
    let mut b = WorldBuilder::new(1, SimDuration::from_millis(500));
    let (c, p) = (b.add_node("C"), b.add_node("P"));
    let l = LinkParams::new(10_000_000, SimDuration::from_millis(2));
    b.add_link("C-P", c, p, l.clone(), l).unwrap();
    let (cp, pc) = (b.face_between(c, p).unwrap(), b.face_between(p, c).unwrap());
    b.add_route(c, "/p", cp, 1);
    instantiate::add_producer(&mut b, "P", &producer("P")).unwrap();
    instantiate::add_consumer(&mut b, "C", &consumer("C", Some(100), 4.0)).unwrap();
    let (acked_c, acked_p) = (Arc::new(Mutex::new(Vec::new())), Arc::new(Mutex::new(Vec::new())));
    b.set_link_service(cp, Box::new(Acker { next_seq: 0, acked: acked_c.clone() })).unwrap();
    b.set_link_service(pc, Box::new(Acker { next_seq: 0, acked: acked_p.clone() })).unwrap();
    let mut w = b.build();
    w.run(SimDuration::ZERO, &mut |_| true);
    assert_eq!(summary(&w, "C", "data_received"), 100.0);
    // C sent 100 Interests (frames 1..=100), P answered each with an ACK, and the other way.
    assert_eq!(*acked_c.lock().unwrap(), (1..=100).collect::<Vec<u32>>());
    assert_eq!(*acked_p.lock().unwrap(), (1..=100).collect::<Vec<u32>>());
    assert_eq!(w.net.faces[pc.idx()].counters.link_bytes_sent(), 100 * 10);
    assert_eq!(summary(&w, "C", "unsolicited_data"), 0.0);
}

/// A face's samples are taken from the values kept at its last sample when nothing marked it
/// changed since. Every shipped scenario (drop-tail, CoDel, NFD marking, shapers, link-loss
/// shims, TCP, multicast, multipath) runs here with every face read afresh at each sample and
/// checked against the kept values: a path that changes a face without marking it panics.
#[test]
fn every_shipped_scenario_marks_each_face_change_its_samples_see() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/../../scenarios");
    let mut files: Vec<_> = std::fs::read_dir(dir).expect("the scenarios folder").flatten().map(|e| e.path()).collect();
    files.sort();
    assert!(files.len() >= 10, "{files:?}");
    for path in files.iter().filter(|p| p.extension().is_some_and(|e| e == "toml")) {
        let text = std::fs::read_to_string(path).expect("a shipped scenario");
        let name = path.display().to_string();
        // 8 s each, or the scenario's own length where something starts later than that.
        let sc = ndncc_core::scenario::load_str(&text, &name, &["simulation.duration=\"8s\"".to_string()])
            .or_else(|_| ndncc_core::scenario::load_str(&text, &name, &[]))
            .unwrap_or_else(|e| panic!("{e}"));
        let mut w = ndncc_core::instantiate::build_world(&sc, sc.simulation.seed).unwrap_or_else(|e| panic!("{e}"));
        w.check_face_samples();
        w.run(SimDuration::ZERO, &mut |_| true);
        assert!(!w.recorder().faces.is_empty(), "{name} samples its faces");
    }
}

/// A packet queued behind a transmitter busy for longer than a sampling interval changes the
/// face's queue with no transmission or drop in that interval: the enqueue alone must mark the
/// face, or its sample would repeat the empty queue of the interval before.
#[test]
fn a_packet_queued_behind_a_long_transmission_shows_in_the_next_face_sample() {
    let mut b = WorldBuilder::new(1, SimDuration::from_secs(3));
    let (s, d) = (b.add_node("S"), b.add_node("D"));
    // 1,000 B at 10 kbit/s: 800 ms on the wire; a datagram every 300 ms.
    let slow = LinkParams::new(10_000, SimDuration::from_millis(1)).with_queue(droptail(50));
    b.add_link("S-D", s, d, slow.clone(), slow).unwrap();
    let sd = b.face_between(s, d).unwrap();
    b.add_ip_route(s, d, sd);
    let tx = UdpSender { me: s, dst: d, port: 5000, size: 1000, gap: SimDuration::from_millis(300), count: 4, sent: 0 };
    b.add_application("udp-tx", s, Box::new(tx), SimTime::ZERO, None);
    let rx = b.add_application("udp-rx", d, Box::new(UdpSink::default()), SimTime::ZERO, None);
    b.bind_port(rx, 5000).unwrap();
    let mut w = b.build();
    w.check_face_samples();
    w.run(SimDuration::ZERO, &mut |_| true);
    let rec = &w.recorder();
    let e = rec.entity_names().iter().position(|n| n == "S->D").unwrap() as u32;
    let m = rec.metric_names().iter().position(|n| n == "queue_packets").unwrap() as u32;
    let queue: Vec<(u64, f64)> = rec.faces.rows().filter(|r| r.1 == e && r.2 == m).map(|r| (r.0, r.3)).collect();
    // Sent at 0, 0.3, 0.6, 0.9 s; on the wire 0–0.8, 0.8–1.6, …: one waits from 0.3 s, two
    // from 0.6 s, and at 0.8 s one leaves.
    let at = |ms: u64| queue.iter().find(|r| r.0 == ms * 1_000_000).map(|r| r.1);
    assert_eq!((at(200), at(400), at(700), at(900)), (Some(0.0), Some(1.0), Some(2.0), Some(2.0)));
}
