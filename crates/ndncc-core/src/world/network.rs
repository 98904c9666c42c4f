//! The network a world simulates: its nodes (with their forwarding tables, strategies and
//! router modules), faces, links, applications and interned names, in arenas indexed by typed
//! ids. It holds no event and no clock: the engine (`engine.rs`) runs it, and the protocol
//! handlers (`ndn.rs`, `ip.rs`, `mcast.rs`) are functions over it.

use compact_str::{format_compact, CompactString};
use smallvec::SmallVec;

use crate::app::Application;
use crate::face::{Face, FaceCounters, FaceKind};
use crate::flight::FlightPool;
use crate::forwarder::strategy::AnyStrategy;
use crate::forwarder::{ContentStore, Fib, Pit};
use crate::ids::{AppId, FaceId, LinkId, NodeId};
use crate::module::Modules;
use crate::names::NameTable;
use crate::rng::SimRng;
use crate::time::{SimDuration, SimTime};

/// Nodes, faces, links and applications, by id, and the names packets carry.
#[derive(Default)]
pub struct Network {
    pub names: NameTable,
    pub nodes: Vec<Node>,
    pub faces: Vec<Face>,
    /// Each face's name, by `FaceId`: "A->B" for link faces, "A:app" for application faces.
    /// (Names are `CompactString`s throughout the network: inline up to 24 bytes, where a
    /// `String` put each in a heap block of its own.)
    pub face_names: Vec<CompactString>,
    /// Each node's name, by `NodeId`: only the set-up, the summary, samples and messages read
    /// them, and in the node they took 24 of its bytes.
    pub node_names: Vec<CompactString>,
    pub links: Vec<Link>,
    pub apps: Vec<AppSlot>,
    /// The packets on the wire of every link direction (`Egress::flight`).
    pub flights: FlightPool,
    /// Link faces that are down now. While none is (always, in a world without failures),
    /// forwarding skips the check of each next hop.
    pub faces_down: u32,
    /// Whether a node's PIT index is a hash table (`PitIndex`), by node index (missing: not).
    /// An arrival's look ahead starts loading the bucket of its name at those only, since it
    /// must read the packet and the node to find it; this byte says which without reading them.
    pub pit_hashed: Vec<bool>,
    /// The same nodes as a list, in the order they came to hash: what `update_bucket_prefetch`
    /// weighs.
    pub hashed_pits: Vec<NodeId>,
    /// Whether the look ahead finds buckets at all: only while those tables together are
    /// larger than a core's cache (`update_bucket_prefetch`).
    pub prefetch_buckets: bool,
}

/// The bytes of PIT hash tables above which they are taken to be out of the cache when an
/// arrival comes (a core's second-level cache is 1 to 2 MB). Below, the wait for the packet and
/// the node that finding a bucket takes bought nothing: `tree-1111` (110 tables, 0.37 MB) and
/// `dumbbell-1000` (2 tables, 74 kB) took 2% longer with it, and `dumbbell-10000` (a router's
/// table of 1 MB, which half of all arrivals visit) as long for 48 more instructions a hop,
/// where `grid-32` (976 tables, 5.3 MB) took 0.81 to 0.90 of the time.
pub const PREFETCH_BUCKETS_FROM: usize = 2 << 20;

impl Network {
    /// Whether `node`'s PIT index is a hash table (see `pit_hashed`).
    #[inline(always)]
    pub fn pit_hashed(&self, node: NodeId) -> bool {
        self.pit_hashed.get(node.idx()).copied().unwrap_or(false)
    }

    /// Note that `node`'s PIT index became a hash table (it stays one).
    #[cold]
    pub fn note_pit_hashed(&mut self, node: NodeId) {
        if self.pit_hashed.len() <= node.idx() {
            self.pit_hashed.resize(self.nodes.len().max(node.idx() + 1), false);
        }
        self.pit_hashed[node.idx()] = true;
        self.hashed_pits.push(node);
    }

    /// Whether an arrival's look ahead should find the bucket of its name at `node`.
    #[inline(always)]
    pub fn prefetch_bucket_at(&self, node: NodeId) -> bool {
        self.prefetch_buckets && self.pit_hashed(node)
    }

    /// Weigh the PIT hash tables again (they grow, and more nodes come to hash) against
    /// `above` bytes (`PREFETCH_BUCKETS_FROM`): the run calls this now and then, and what it
    /// decides changes only what is prefetched. A table never shrinks and a PIT that hashes
    /// does so for good, so once above, always above: the tables are not read again (each
    /// is a node's line out of the cache, and a world may have thousands).
    pub fn update_bucket_prefetch(&mut self, above: usize) {
        if self.prefetch_buckets {
            return;
        }
        let mut bytes = 0usize;
        for n in self.hashed_pits.iter().filter_map(|n| self.nodes.get(n.idx())) {
            bytes = bytes.saturating_add(n.pit.index_bytes());
            if bytes > above {
                self.prefetch_buckets = true;
                return;
            }
        }
    }

    pub fn face_by_name(&self, name: &str) -> Option<FaceId> {
        self.face_names.iter().position(|n| n == name).map(|i| self.faces[i].id)
    }

    /// The node named `name`, by a scan of the names (for the set-up: a builder keeps an index).
    pub fn node_by_name(&self, name: &str) -> Option<NodeId> {
        self.node_names.iter().position(|n| n == name).map(|i| self.nodes[i].id)
    }

    /// The name of node `node`.
    pub fn node_name(&self, node: NodeId) -> &str {
        &self.node_names[node.idx()]
    }

    /// The name of face `face`.
    pub fn face_name(&self, face: FaceId) -> &str {
        &self.face_names[face.idx()]
    }

    /// The bandwidth of the direction opposite `face`'s, which Data coming back over it can
    /// use [bit/s]: its peer's; zero for an application face.
    pub fn reverse_bandwidth_bps(&self, face: FaceId) -> u64 {
        crate::face::reverse_bandwidth_bps(&self.faces, face)
    }

    /// Attach `app` to `node` by an application face of its own (named `NODE:NAME`), running
    /// from `start` to `stop`.
    pub fn push_app(
        &mut self,
        name: &str,
        node: NodeId,
        app: Box<dyn Application>,
        start: SimTime,
        stop: Option<SimTime>,
    ) -> (AppId, FaceId) {
        let id = AppId(u32::try_from(self.apps.len()).expect("fewer than 2^32 apps"));
        let face = FaceId(u32::try_from(self.faces.len()).expect("fewer than 2^32 faces"));
        self.faces.push(Face {
            id: face,
            node,
            kind: FaceKind::App { app: id },
            egress: None,
            link_service: None,
            pending_interests: 0,
            counters: FaceCounters::default(),
        });
        self.face_names.push(format_compact!("{}:{name}", self.node_names[node.idx()]));
        self.nodes[node.idx()].faces.push(face);
        self.apps.push(AppSlot { id, name: name.into(), node, face, app, start, stop });
        (id, face)
    }
}

/// A node's part of one multicast group's tree.
#[derive(Clone, Debug, Default)]
pub struct McastRoute {
    /// The face towards the source (feedback goes up it); `None` on the source's node.
    pub upstream: Option<FaceId>,
    /// The faces Data is copied to: links down the tree and local receivers' app faces.
    pub downstream: Vec<FaceId>,
}

/// Node-level counters.
#[derive(Clone, Copy, Debug, Default)]
pub struct NodeCounters {
    pub cs_hits: u64,
    pub aggregated: u64,
    pub duplicates: u64,
    pub no_route: u64,
    pub unsolicited_data: u64,
    pub pit_expired: u64,
}

/// A node, its fields in declaration order (`repr(C)`): what forwarding a packet reads first
/// (the PIT, the checks of modules, strategy and content store, the next PIT sweep, the FIB's
/// last lookup and entries), then what only some packets or the set-up and the summary read.
/// Aligned to a cache line, the first four lines hold the first part, where the order the
/// compiler chose spread it over eight of ten: in a large world a consumer's or a producer's
/// node is read once a packet, and each line read is a cache miss. (Four, and seven in all,
/// since the PIT's inline index keeps its slot numbers as `u32` and names' two halves apart,
/// its rare out-of-order expiry records behind a pointer and its kept Interests in a boxed
/// slice, the FIB's last lookup in 8 bytes, modules and custom strategies behind thin
/// pointers, the coarse clock, which timers read, among the cold fields, its name kept by the
/// network (`Network::node_name`), the FIB's cache of lookups in a boxed slice, and only a
/// node that IP reaches counts unroutable IP and multicast packets.)
#[repr(C, align(64))]
pub struct Node {
    pub pit: Pit,
    pub modules: Modules,
    pub strategy: AnyStrategy,
    /// Boxed, like the strategies that keep state: most nodes have none, and every node of a
    /// large world is kept (88 bytes inline).
    pub cs: Option<Box<ContentStore>>,
    /// A `PitSweep` is scheduled for this time; `NO_PIT_SWEEP` when none is. (A time with a
    /// sentinel, where an `Option` took 8 bytes more and the node an eleventh cache line.)
    pub pit_sweep_at: SimTime,
    pub fib: Fib,
    /// IP and multicast forwarding, on the nodes that have any (`ip_mut` makes it).
    pub ip: Option<Box<NodeIp>>,
    pub rng: SimRng,
    pub counters: NodeCounters,
    /// Inline up to four (the 24 bytes of a `Vec`): most nodes of a large world are a host's,
    /// with a link face and an application face.
    pub faces: SmallVec<[FaceId; 4]>,
    /// Coarse clock: timers on this node fire only on the clock's edges, `clock_phase` plus
    /// multiples of this tick; zero for exact timers (a tick is above zero). Read as timers
    /// are set (a module's, a link service's, an app's, copied into its waker), not by
    /// forwarding.
    pub clock_tick: SimDuration,
    /// Where the coarse clock's edges fall within a tick (below the tick; zero: on multiples).
    pub clock_phase: SimDuration,
    pub id: NodeId,
}

/// A node's IP and multicast forwarding state: boxed in the node, since most nodes of a large
/// NDN world forward neither, and inline its three tables took 72 bytes of every node.
#[derive(Default)]
pub struct NodeIp {
    /// IP routes: the face towards each destination node.
    pub routes: super::ip_routes::IpRoutes,
    /// Application faces by the port their IP application listens on.
    pub ports: Vec<(u16, FaceId)>,
    /// Multicast groups this node is a tree node of.
    pub mcast: Vec<(u32, McastRoute)>,
    /// IP packets with no route to their destination, or for a port nobody listens on (here
    /// rather than among the node's counters: only a node that IP reaches counts them).
    pub ip_unroutable: u64,
    /// Multicast packets for a group this node has no tree entry for.
    pub mcast_unroutable: u64,
}

/// `Node::pit_sweep_at` when no sweep is scheduled: PIT entries expire within the run's
/// checked times, far below it.
pub const NO_PIT_SWEEP: SimTime = SimTime::MAX;

impl Node {
    /// The node's IP and multicast state, made empty if it had none.
    pub fn ip_mut(&mut self) -> &mut NodeIp {
        self.ip.get_or_insert_with(Box::default)
    }

    /// When a timer asked for `t` actually fires on this node's clock.
    pub fn align(&self, t: SimTime) -> SimTime {
        t.ceil_to_edge(self.clock_tick, self.clock_phase)
    }
}

pub struct Link {
    pub id: LinkId,
    pub name: CompactString,
    /// Face of endpoint a (transmits a→b) and of endpoint b (transmits b→a).
    pub faces: [FaceId; 2],
}

pub struct AppSlot {
    pub id: AppId,
    pub name: CompactString,
    pub node: NodeId,
    pub face: FaceId,
    pub app: Box<dyn Application>,
    pub start: SimTime,
    pub stop: Option<SimTime>,
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    /// A face's name and the bandwidth Data coming back over it can use are its link's, and
    /// the latter follows a change of the far direction's bandwidth.
    #[test]
    fn a_face_s_name_and_reverse_bandwidth_come_from_its_link() {
        use crate::world::{LinkParams, WorldBuilder};
        let mut b = WorldBuilder::new(1, SimDuration::from_secs(1));
        let (a, c) = (b.add_node("A"), b.add_node("B"));
        let delay = SimDuration::from_millis(1);
        b.add_link("A-B", a, c, LinkParams::new(10_000_000, delay), LinkParams::new(3_000_000, delay)).expect("a link");
        let mut w = b.build();
        let (ab, ba) = (w.net.face_by_name("A->B").expect("A->B"), w.net.face_by_name("B->A").expect("B->A"));
        assert_eq!((w.net.face_name(ab), w.net.face_name(ba)), ("A->B", "B->A"));
        assert_eq!((w.net.reverse_bandwidth_bps(ab), w.net.reverse_bandwidth_bps(ba)), (3_000_000, 10_000_000));
        w.engine.set_bandwidth(&mut w.net, ba, 5_000_000);
        assert_eq!((w.net.reverse_bandwidth_bps(ab), w.net.reverse_bandwidth_bps(ba)), (5_000_000, 10_000_000));
        assert_eq!(w.net.face_by_name("A->C"), None);
    }

    /// A world keeps a name per node, face, link and app: short ones (most) lie inline, where
    /// a heap block each took a sixth of what a flow added to memory.
    #[test]
    fn short_names_take_no_heap_block() {
        use crate::world::{LinkParams, WorldBuilder};
        let mut b = WorldBuilder::new(1, SimDuration::from_secs(1));
        let (a, c) = (b.add_node("consumer-1"), b.add_node("router-1"));
        let delay = SimDuration::from_millis(1);
        b.add_link("consumer-1-router-1", a, c, LinkParams::new(10_000_000, delay), LinkParams::new(10_000_000, delay))
            .expect("a link");
        let w = b.build();
        let names = w.net.face_names.iter().chain(w.net.node_names.iter()).chain(w.net.links.iter().map(|l| &l.name));
        let all: Vec<&str> = names.clone().map(|n| n.as_str()).collect();
        assert_eq!(
            all,
            ["consumer-1->router-1", "router-1->consumer-1", "consumer-1", "router-1", "consumer-1-router-1"]
        );
        assert!(names.clone().all(|n| !n.is_heap_allocated()), "{all:?}");
    }

    /// What forwarding a packet reads of a node lies in its first four cache lines, and the
    /// node is seven lines, aligned to them.
    #[test]
    fn what_forwarding_reads_leads_the_node() {
        assert_eq!(size_of::<Node>(), 448, "Node is {} bytes", size_of::<Node>());
        // The FIB leads with its last lookup (8 bytes) and its entries, which a lookup reads.
        let fib = offset_of!(Node, fib) + 8 + size_of::<Vec<crate::forwarder::fib::FibEntry>>();
        let hot = [fib, offset_of!(Node, cs) + 8, offset_of!(Node, pit_sweep_at) + 8, offset_of!(Node, strategy) + 16];
        for end in hot {
            assert!(end <= 4 * 64, "{end}");
        }
        assert!(offset_of!(Node, clock_tick) >= 4 * 64, "timers' clock is not read by forwarding");
    }
}
