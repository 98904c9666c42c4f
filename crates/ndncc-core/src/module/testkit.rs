//! A two-node network for the router modules' unit tests: node A (12 Mbps towards B, 10 Mbps
//! back) with an Interest shaper on its face A->B, and a way to hand a module the context of A.

use crate::ids::{FaceId, NameId, NodeId};
use crate::module::ModuleCtx;
use crate::packet::{Name, Packet};
use crate::queue::token_bucket::ShaperConfig;
use crate::time::{SimDuration, SimTime};
use crate::world::{LinkParams, Network, WorldBuilder};

/// A –(12 Mbps a→b, 10 Mbps b→a, 10 ms)– B. Face 0 is A->B (C = 10 Mbps / (8·1250 B) =
/// 1000 Data/s), face 1 is B->A.
pub fn two_nodes() -> Network {
    let mut b = WorldBuilder::new(1, SimDuration::from_secs(1));
    let a = b.add_node("A");
    let n = b.add_node("B");
    let mut ab = LinkParams::new(12_000_000, SimDuration::from_millis(10));
    ab.shaper = Some(ShaperConfig { rate: Some(1.0), depth: 500, ..ShaperConfig::default() });
    let ba = LinkParams::new(10_000_000, SimDuration::from_millis(10));
    b.add_link("A-B", a, n, ab, ba).expect("valid link");
    b.into_network()
}

pub const A_TO_B: FaceId = FaceId(0);

/// Run `f` with node A's module context at `now_ms`.
pub fn with_ctx<R>(w: &mut Network, now_ms: u64, f: impl FnOnce(&mut ModuleCtx) -> R) -> R {
    let (mut rng, mut actions) = (crate::rng::stream(1, "module"), Vec::new());
    let now = SimTime(SimDuration::from_millis(now_ms).0);
    let mut ctx = ModuleCtx::new(now, NodeId(0), &w.nodes[0].faces, &mut w.faces, &mut rng, &mut actions);
    f(&mut ctx)
}

/// Put `n` Interests in the shaper of A->B (whose rate of 1/s keeps them there).
pub fn fill_shaper(w: &mut Network, n: u64) {
    let shaper = w.faces[A_TO_B.idx()].egress.as_mut().and_then(|e| e.shaper_mut()).expect("shaped face");
    for seg in 0..n {
        shaper.offer(interest(seg), SimTime::ZERO);
    }
}

pub fn interest(seg: u64) -> Packet {
    Packet::interest(Name { prefix: NameId(0), seg }, 40, 0, 0)
}

pub fn data(seg: u64, stamp: f64) -> Packet {
    let mut d = Packet::data_for(interest(seg).ndn().expect("an Interest"), 1250);
    d.lower_rate_stamp(stamp);
    d
}
