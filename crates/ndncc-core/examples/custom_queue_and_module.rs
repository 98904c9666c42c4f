//! A queue discipline and a router module written outside the crate, plugged into a world built
//! with `WorldBuilder`: `AnyQueue::Custom` on one face, `WorldBuilder::add_module` on one node.
//!
//! * `ThresholdMark`: a FIFO that marks every packet leaving while at least `threshold`
//!   packets wait behind it (step marking), and tail-drops beyond `limit`.
//! * `InterestRateMeter`: counts the Interests the node sends on each face and, every tick,
//!   records their rate as the face series `interest_rate`.
//!
//! Run it with `cargo run --release -p ndncc-core --example custom_queue_and_module`; its tests
//! run with `cargo test -p ndncc-core --example custom_queue_and_module`.

use std::collections::VecDeque;

use ndncc_core::app::Controller;
use ndncc_core::cc::window::{PconConfig, WindowConfig};
use ndncc_core::face_selection::FaceSelection;
use ndncc_core::ids::FaceId;
use ndncc_core::instantiate;
use ndncc_core::module::{InterestVerdict, ModuleCtx, RouterModule};
use ndncc_core::packet::Packet;
use ndncc_core::queue::{AnyQueue, Dequeued, DropTailConfig, QueueConfig, QueueDisc, Verdict};
use ndncc_core::scenario::{ConsumerSpec, ProducerSpec};
use ndncc_core::time::{SimDuration, SimTime};
use ndncc_core::world::{LinkParams, World, WorldBuilder};

/// Step marking: mark a departing packet while `threshold` or more packets wait behind it.
#[derive(Debug)]
pub struct ThresholdMark {
    fifo: VecDeque<Packet>,
    bytes: u64,
    /// Hard limit [packets].
    limit: usize,
    /// Backlog behind the head from which departing packets are marked [packets].
    threshold: usize,
}

impl ThresholdMark {
    pub fn new(limit: usize, threshold: usize) -> ThresholdMark {
        ThresholdMark { fifo: VecDeque::new(), bytes: 0, limit, threshold }
    }
}

impl QueueDisc for ThresholdMark {
    fn enqueue(&mut self, mut packet: Packet, now: SimTime) -> Verdict {
        if self.fifo.len() >= self.limit {
            return Verdict::Dropped; // the face counts it as a tail drop
        }
        packet.enqueued_at = now;
        self.bytes += packet.size as u64;
        self.fifo.push_back(packet);
        Verdict::Queued
    }

    fn dequeue(&mut self, _now: SimTime, _dropped: &mut Vec<Packet>) -> Option<Dequeued> {
        let packet = self.fifo.pop_front()?;
        self.bytes -= packet.size as u64;
        Some(Dequeued { packet, mark: self.fifo.len() >= self.threshold })
    }

    fn len_packets(&self) -> usize {
        self.fifo.len()
    }

    fn len_bytes(&self) -> u64 {
        self.bytes
    }

    /// Interests forwarded on this face while it is congested mark their PIT entries.
    fn is_congested(&self) -> bool {
        self.fifo.len() >= self.threshold
    }
}

/// Interests sent per face and tick, recorded as a rate [Interests/s].
pub struct InterestRateMeter {
    interval: SimDuration,
    /// (face, Interests sent since the last tick, rate measured at the last tick).
    faces: Vec<(FaceId, u64, f64)>,
    last_tick: SimTime,
}

impl InterestRateMeter {
    pub fn new(interval: SimDuration) -> InterestRateMeter {
        InterestRateMeter { interval, faces: Vec::new(), last_tick: SimTime::ZERO }
    }
}

impl RouterModule for InterestRateMeter {
    fn name(&self) -> &'static str {
        "interest-rate-meter"
    }

    fn on_interest_out(&mut self, _ctx: &mut ModuleCtx, face: FaceId, _interest: &mut Packet) -> InterestVerdict {
        match self.faces.iter_mut().find(|(f, _, _)| *f == face) {
            Some((_, n, _)) => *n += 1,
            None => self.faces.push((face, 1, 0.0)),
        }
        InterestVerdict::Send
    }

    fn tick_interval(&self) -> Option<SimDuration> {
        Some(self.interval)
    }

    fn on_tick(&mut self, ctx: &mut ModuleCtx) {
        // Divide by the time that actually passed: on a coarse clock a tick may come late.
        let elapsed = ctx.now.saturating_since(self.last_tick).as_secs_f64();
        self.last_tick = ctx.now;
        if elapsed <= 0.0 {
            return;
        }
        for (_, n, rate) in &mut self.faces {
            *rate = *n as f64 / elapsed;
            *n = 0;
        }
    }

    fn sample(&self, out: &mut Vec<(&'static str, Option<FaceId>, f64)>) {
        for &(face, _, rate) in &self.faces {
            out.push(("interest_rate", Some(face), rate));
        }
    }
}

/// C1, C2 —(100 Mbps, 5 ms)— R1 ══(10 Mbps, 10 ms)══ R2 —(100 Mbps, 5 ms)— P1, P2, with PCON
/// consumers; the R2->R1 face (the Data direction of the bottleneck) gets `bottleneck_queue`.
fn dumbbell(duration: SimDuration, bottleneck_queue: Option<AnyQueue>) -> World {
    let mut b = WorldBuilder::new(1, duration);
    b.record(Some(SimDuration::from_millis(100)), false, FaceSelection::All);
    let droptail = QueueConfig::Droptail(DropTailConfig { packets: Some(100), bytes: None });
    let access = LinkParams::new(100_000_000, SimDuration::from_millis(5)).with_queue(droptail.clone());
    let bottleneck = LinkParams::new(10_000_000, SimDuration::from_millis(10)).with_queue(droptail);
    let r1 = b.add_node("R1");
    let r2 = b.add_node("R2");
    b.add_module(r1, Box::new(InterestRateMeter::new(SimDuration::from_millis(100))));
    b.add_link("R1-R2", r1, r2, bottleneck.clone(), bottleneck).expect("valid link");
    let pcon = WindowConfig::Pcon(PconConfig::default());
    for i in 1..=2 {
        let (c, p) = (b.add_node(&format!("C{i}")), b.add_node(&format!("P{i}")));
        b.add_link(&format!("C{i}-R1"), c, r1, access.clone(), access.clone()).expect("valid link");
        b.add_link(&format!("R2-P{i}"), r2, p, access.clone(), access.clone()).expect("valid link");
        let prefix = format!("/p{i}");
        for (from, to) in [(c, r1), (r1, r2), (r2, p)] {
            let face = b.face_between(from, to).expect("linked");
            b.add_route(from, &prefix, face, 1);
        }
        let (pn, cn) = (format!("P{i}"), format!("C{i}"));
        instantiate::add_producer(&mut b, &pn, &ProducerSpec::new(&pn, &prefix)).expect("a node of the world");
        // The spec's own window is replaced by the controller given here.
        let consumer = ConsumerSpec::with_window(&cn, &prefix, WindowConfig::Fixed(Default::default()));
        instantiate::add_consumer_with(&mut b, &cn, &consumer, Controller::Window(pcon.build()))
            .expect("a node of the world");
    }
    let mut world = b.build();
    if let Some(q) = bottleneck_queue {
        let face = world.face_by_name("R2->R1").expect("bottleneck face");
        world.net.faces[face.idx()].egress.as_mut().expect("link face").queue = q;
    }
    world
}

/// A summary value of a run (NaN when absent).
fn value(w: &World, entity: &str, metric: &str) -> f64 {
    w.summary().into_iter().find(|r| r.entity == entity && r.metric == metric).map_or(f64::NAN, |r| r.value)
}

/// Mean of a face series over the run.
fn face_mean(w: &World, face: &str, metric: &str) -> f64 {
    let rec = &w.recorder();
    let (names, metrics) = (rec.entity_names(), rec.metric_names());
    let values: Vec<f64> = (rec.faces.rows())
        .filter(|r| names[r.1 as usize] == face && metrics[r.2 as usize] == metric)
        .map(|r| r.3)
        .collect();
    values.iter().sum::<f64>() / values.len().max(1) as f64
}

fn report(label: &str, w: &World) {
    println!("{label}");
    for c in ["C1", "C2"] {
        println!(
            "  {c}: throughput {:>8.0} kbit/s, mean RTT {:>6.1} ms, marks {}, timeouts {}",
            value(w, c, "throughput_kbps"),
            value(w, c, "mean_rtt_ms"),
            value(w, c, "marks"),
            value(w, c, "timeouts"),
        );
    }
    println!(
        "  R2->R1: utilisation {:.3}, largest queue {} packets, mean queue {:.1} packets, marks {}, drops {}",
        value(w, "R2->R1", "utilisation"),
        value(w, "R2->R1", "max_queue_packets"),
        face_mean(w, "R2->R1", "queue_packets"),
        value(w, "R2->R1", "marks"),
        value(w, "R2->R1", "drops_queue"),
    );
    println!("  R1->R2: mean Interest rate {:.0} Interests/s", face_mean(w, "R1->R2", "interest_rate"));
}

fn main() {
    let duration = SimDuration::from_secs(20);
    let mut droptail = dumbbell(duration, None);
    droptail.run(SimDuration::ZERO, &mut |_| true);
    report("pcon over droptail (loss only)", &droptail);

    let mut marked = dumbbell(duration, Some(AnyQueue::Custom(Box::new(ThresholdMark::new(100, 30)))));
    marked.run(SimDuration::ZERO, &mut |_| true);
    report("pcon over threshold-mark (limit 100, threshold 30)", &marked);
}

#[cfg(test)]
mod tests {
    use super::*;
    use ndncc_core::ids::{NameId, NodeId};
    use ndncc_core::packet::Name;

    fn interest(seg: u64) -> Packet {
        Packet::interest(Name { prefix: NameId(0), seg }, 40, 0, 0)
    }

    #[test]
    fn packets_leaving_with_the_threshold_behind_them_are_marked() {
        // Limit 3, threshold 1: the 4th packet is dropped. Departures leave 2, 1 and 0 packets
        // behind: marked, marked, unmarked.
        let mut q = ThresholdMark::new(3, 1);
        for seg in 0..3 {
            assert_eq!(q.enqueue(interest(seg), SimTime::ZERO), Verdict::Queued);
        }
        assert_eq!(q.enqueue(interest(3), SimTime::ZERO), Verdict::Dropped);
        assert_eq!((q.len_packets(), q.len_bytes()), (3, 120));
        let marks: Vec<bool> = (0..3).map(|_| q.dequeue(SimTime(1), &mut Vec::new()).unwrap().mark).collect();
        assert_eq!(marks, [true, true, false]);
        assert!(!q.is_congested());
    }

    #[test]
    fn the_meter_divides_a_ticks_count_by_the_time_since_the_last_tick() {
        // 50 Interests on face 0 in the first 100 ms: 50 / 0.1 s = 500 Interests/s; none in the
        // next 250 ms (a late tick): 0 / 0.25 s = 0.
        let mut w = WorldBuilder::new(1, SimDuration::from_secs(1));
        let (a, b) = (w.add_node("A"), w.add_node("B"));
        let link = LinkParams::new(10_000_000, SimDuration::from_millis(1));
        w.add_link("A-B", a, b, link.clone(), link).unwrap();
        let mut world = w.build();
        let mut m = InterestRateMeter::new(SimDuration::from_millis(100));
        let at = |world: &mut World, ms: u64, f: &mut dyn FnMut(&mut ModuleCtx)| {
            let now = SimTime(SimDuration::from_millis(ms).nanos());
            let node_faces = world.net.nodes[0].faces.clone();
            let (mut rng, mut actions) = (ndncc_core::rng::stream(1, "meter"), Vec::new());
            let mut ctx = ModuleCtx::new(now, NodeId(0), &node_faces, &mut world.net.faces, &mut rng, &mut actions);
            f(&mut ctx);
        };
        at(&mut world, 10, &mut |ctx| {
            for seg in 0..50 {
                assert_eq!(m.on_interest_out(ctx, FaceId(0), &mut interest(seg)), InterestVerdict::Send);
            }
        });
        at(&mut world, 100, &mut |ctx| m.on_tick(ctx));
        let mut out = Vec::new();
        m.sample(&mut out);
        assert_eq!(out, [("interest_rate", Some(FaceId(0)), 500.0)]);
        at(&mut world, 350, &mut |ctx| m.on_tick(ctx));
        out.clear();
        m.sample(&mut out);
        assert_eq!(out, [("interest_rate", Some(FaceId(0)), 0.0)]);
    }

    #[test]
    fn marking_keeps_the_bottleneck_queue_short_without_losing_throughput() {
        // With step marking at 30 packets, PCON backs off before the 100-packet queue fills:
        // no tail drops, and a mean queue far below the ~70 packets of the droptail run.
        let q = AnyQueue::Custom(Box::new(ThresholdMark::new(100, 30)));
        let mut w = dumbbell(SimDuration::from_secs(10), Some(q));
        w.run(SimDuration::ZERO, &mut |_| true);
        assert!(value(&w, "R2->R1", "marks") > 0.0);
        assert_eq!(value(&w, "R2->R1", "drops_queue"), 0.0);
        assert!(value(&w, "R2->R1", "utilisation") > 0.9);
        assert!(face_mean(&w, "R2->R1", "queue_packets") < 25.0);
        assert!(face_mean(&w, "R1->R2", "interest_rate") > 0.0);
    }
}
