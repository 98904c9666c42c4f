//! Validation: the second step after parsing. Every reference must point at something
//! declared, every value must make sense, and every message names the offending key.

use std::cell::OnceCell;
use std::collections::{BTreeMap, BTreeSet};

use super::app::{AppSpec, CbrSpec, ConsumerSpec, MulticastSpec, ProducerSpec, TcpSpec};
use super::error::{Invalid, ScenarioError};
use super::link::LinkSpec;
use super::source::{index, join};
use super::types::{name_covers, split_face, ClockPhase, FaceSelection, NodeSpec, RoutingMode, Scenario};
use crate::app::tcp::{FlightSize, TcpProfile};
use crate::cc::tcp::TcpControlConfig;
use crate::plugin::check;
use crate::queue::{MAX_QUEUE_BYTES, MAX_QUEUE_PACKETS};
use crate::time::SimDuration;
use crate::units::Duration;

type Check = Result<(), Invalid>;

/// The connected parts of a scenario's link graph.
struct Parts<'a> {
    index: BTreeMap<&'a str, usize>,
    part: Vec<usize>,
}

impl Parts<'_> {
    /// Is there a path of links between nodes `a` and `b`?
    fn connected(&self, a: &str, b: &str) -> bool {
        match (self.index.get(a), self.index.get(b)) {
            (Some(&x), Some(&y)) => self.part[x] == self.part[y],
            _ => false,
        }
    }
}

/// The largest Content Store [Data packets].
const MAX_CS_ENTRIES: u64 = 10_000_000;
/// The longest download [segments].
const MAX_SEGMENTS: u64 = 1_000_000_000_000;
/// The most fixed-interval samples of one series.
const MAX_SAMPLES: u64 = 10_000_000;
/// The most fixed-interval sample rows of a run, all series together: some 40 bytes each at the
/// run's peak, its tables built, so about 1.2 GB (47 million took 1.9 GB).
const MAX_SAMPLE_ROWS: u64 = 30_000_000;
/// Series sampled per recorded face (queue packets and bytes, bytes sent, drops, marks) and, at
/// most, per app (a consumer's window, in flight, counters, timers, …): for the estimate above.
const SERIES_PER_FACE: u64 = 5;
const SERIES_PER_APP: u64 = 12;
/// The most segments a catalogue's objects may span (segment numbers are 64-bit).
const MAX_NAMED_SEGMENTS: u64 = 1 << 62;

fn fail(key: impl Into<String>, message: impl Into<String>) -> Check {
    Err(Invalid::new(key, message))
}

/// A name prefix: `/`, or `/` followed by non-empty components.
fn check_prefix(key: String, prefix: &str) -> Check {
    let ok = prefix == "/" || (prefix.starts_with('/') && prefix[1..].split('/').all(|c| !c.is_empty()));
    if ok {
        Ok(())
    } else {
        fail(key, format!("'{prefix}' is not a name prefix (write e.g. \"/p1\" or \"/video/seg\")"))
    }
}

thread_local! {
    /// Consumers may fetch prefixes no simulated producer serves (see `allowing_real_producers`).
    static REAL_PRODUCERS: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Load or validate scenarios within `f` for emulation, where a consumer's prefix may be served
/// by a real application that registers it while the run goes on: the check that a simulated
/// producer or a static route serves it is left out. Scoped to the calling thread and to `f`.
pub fn allowing_real_producers<R>(f: impl FnOnce() -> R) -> R {
    struct Reset(bool);
    impl Drop for Reset {
        fn drop(&mut self) {
            REAL_PRODUCERS.with(|c| c.set(self.0));
        }
    }
    let _reset = Reset(REAL_PRODUCERS.with(|c| c.replace(true)));
    f()
}

impl Scenario {
    /// Check a scenario built in code (loading checks already). The error names the key; it
    /// has no file or line.
    pub fn validate(&self) -> Result<(), ScenarioError> {
        self.check().map_err(|e| ScenarioError::at("", None, Some(e.key), e.message))
    }

    pub(crate) fn check(&self) -> Check {
        self.check_simulation()?;
        self.check_nodes()?;
        self.check_links()?;
        self.check_routes()?;
        self.check_apps()?;
        self.check_events()?;
        self.check_record()
    }

    fn node_ref(&self, key: String, node: &str) -> Check {
        if self.nodes.contains_key(node) {
            return Ok(());
        }
        let known: Vec<&str> = self.nodes.keys().map(String::as_str).collect();
        let known =
            if known.is_empty() { "none are declared".to_string() } else { format!("declared: {}", known.join(", ")) };
        fail(key, format!("'{node}' is not a declared node ({known})"))
    }

    fn check_simulation(&self) -> Check {
        check::time("simulation.duration", self.simulation.duration.get(), false)?;
        if self.simulation.seed > i64::MAX as u64 {
            return fail("simulation.seed", format!("must be at most {} (TOML integers are 64-bit signed)", i64::MAX));
        }
        Ok(())
    }

    fn check_nodes(&self) -> Check {
        for (name, n) in &self.nodes {
            let key = join("nodes", name);
            if name.is_empty() || name.contains(char::is_whitespace) || name.contains("->") {
                return fail(key, format!("'{name}' is not a usable node name (no spaces, no '->', not empty)"));
            }
            check_node_settings(&key, n)?;
        }
        Ok(())
    }

    fn check_links(&self) -> Check {
        let mut pairs: BTreeMap<(&str, &str), &str> = BTreeMap::new();
        for (name, l) in &self.links {
            let key = join("links", name);
            if name.is_empty() {
                return fail(key, "a link needs a non-empty name");
            }
            let [a, b] = &l.endpoints;
            self.node_ref(join(&key, "endpoints"), a)?;
            self.node_ref(join(&key, "endpoints"), b)?;
            if a == b {
                return fail(join(&key, "endpoints"), format!("a link cannot connect '{a}' to itself"));
            }
            let pair = if a < b { (a.as_str(), b.as_str()) } else { (b.as_str(), a.as_str()) };
            if let Some(other) = pairs.insert(pair, name) {
                return fail(
                    key,
                    format!("links '{other}' and '{name}' both connect {a} and {b}; face names like {a}->{b} would be ambiguous"),
                );
            }
            check_link_settings(&key, l)?;
        }
        Ok(())
    }

    fn check_routes(&self) -> Check {
        let mut seen = BTreeSet::new();
        for (i, r) in self.routes.iter().enumerate() {
            let key = index("routes", i);
            self.node_ref(join(&key, "node"), &r.node)?;
            check_prefix(join(&key, "prefix"), &r.prefix)?;
            self.node_ref(join(&key, "nexthop"), &r.nexthop)?;
            if self.links_between(&r.node, &r.nexthop).next().is_none() {
                let n = self.neighbours(&r.node);
                let n =
                    if n.is_empty() { "it has none".to_string() } else { format!("its neighbours: {}", n.join(", ")) };
                return fail(
                    join(&key, "nexthop"),
                    format!("'{}' is not a neighbour of '{}' ({n})", r.nexthop, r.node),
                );
            }
            if !seen.insert((&r.node, &r.prefix, &r.nexthop)) {
                return fail(
                    key,
                    format!("duplicate route: {} {} via {} is already given", r.node, r.prefix, r.nexthop),
                );
            }
        }
        Ok(())
    }

    fn check_apps(&self) -> Check {
        let mut served = BTreeMap::new();
        // The link graph's connected parts, found once for all flows and consumers: per flow,
        // 10,000 flows took minutes to validate.
        let parts = OnceCell::new();
        for (name, app) in &self.apps {
            let key = join("apps", name);
            if name.is_empty() {
                return fail(key, "an app needs a non-empty name");
            }
            self.node_ref(join(&key, "node"), app.node())?;
            if let Some(prefix) = app.prefix() {
                check_prefix(join(&key, "prefix"), prefix)?;
            }
            match app {
                AppSpec::Producer(p) => {
                    check_producer(&key, p)?;
                    if let Some(other) = served.insert((&p.node, &p.prefix), name) {
                        return fail(
                            key,
                            format!("apps '{other}' and '{name}' both serve {} on node {}", p.prefix, p.node),
                        );
                    }
                }
                AppSpec::Consumer(_) => {}
                AppSpec::Tcp(t) => self.check_tcp(&key, t, &parts)?,
                AppSpec::Cbr(c) => self.check_cbr(&key, c, &parts)?,
                AppSpec::Multicast(m) => self.check_multicast(&key, m, &parts)?,
            }
        }
        self.check_multicast_groups()?;
        // Consumers last: whether a producer is reachable is only meaningful once every app's
        // own references are known to be good.
        for (name, app) in &self.apps {
            if let AppSpec::Consumer(c) = app {
                self.check_consumer(&join("apps", name), c, &parts)?;
            }
        }
        Ok(())
    }

    fn check_consumer<'a>(&'a self, key: &str, c: &ConsumerSpec, parts: &OnceCell<Parts<'a>>) -> Check {
        match (&c.window, &c.rate) {
            (Some(_), Some(_)) => {
                return fail(join(key, "rate"), "a consumer takes exactly one of `window` or `rate`, not both")
            }
            (None, None) => {
                return fail(
                    key,
                    "a consumer needs a controller: give `window = { type = … }` or `rate = { type = … }`",
                )
            }
            (Some(w), None) => w.validate().map_err(|e| e.under(&join(key, "window")))?,
            (None, Some(r)) => r.validate().map_err(|e| e.under(&join(key, "rate")))?,
        }
        c.rtt.validate().map_err(|e| e.under(&join(key, "rtt")))?;
        let duration = self.simulation.duration;
        if c.start >= duration {
            return fail(
                join(key, "start"),
                format!("starts at {}, not before the end of the simulation ({duration})", c.start),
            );
        }
        if let Some(stop) = c.stop {
            if stop <= c.start {
                return fail(join(key, "stop"), format!("stop ({stop}) must be after start ({})", c.start));
            }
        }
        match (c.segments, c.file_size) {
            (Some(_), Some(_)) => return fail(join(key, "file_size"), "give `segments` or `file_size`, not both"),
            (Some(0), None) => return fail(join(key, "segments"), "must be >= 1 (leave it out to fetch until `stop`)"),
            (None, Some(b)) if b.0 == 0 => return fail(join(key, "file_size"), "must be > 0 bytes"),
            _ => {}
        }
        if let Some(n) = c.segments {
            check::count(&join(key, "segments"), n, 1, MAX_SEGMENTS)?;
        }
        if let Some(b) = c.file_size {
            check::count(&join(key, "file_size"), b.0, 1, MAX_SEGMENTS)?;
        }
        if let Some(stop) = c.stop {
            check::time(&join(key, "stop"), stop.get(), false)?;
        }
        if let Some(size) = c.interest_size {
            check::packet_bytes(&join(key, "interest_size"), size.0, 1)?;
        }
        check::time(&join(key, "lifetime"), c.lifetime.get(), false)?;
        check::time(&join(key, "timeout_check"), c.timeout_check.get(), true)?;
        check::count(&join(key, "interest_bucket"), c.interest_bucket as u64, 1, MAX_QUEUE_PACKETS)?;
        self.check_randomness(key, c)?;
        self.check_reachable(key, c, parts)?;
        self.check_not_answered_in_zero_time(key, c)?;
        self.check_not_refused_in_zero_time(key, c)
    }

    /// A module that refuses Interests with a NACK (`interest-limit`, `hbh-shaper`) on the
    /// consumer's own node would refuse its Interests the instant they are sent, and the consumer
    /// would resend them that same instant: simulated time could never advance.
    fn check_not_refused_in_zero_time(&self, key: &str, c: &ConsumerSpec) -> Check {
        let Some(node) = self.nodes.get(&c.node) else { return Ok(()) };
        for (i, m) in node.modules.iter().enumerate() {
            let kind = m.kind();
            if kind == "interest-limit" || kind == "hbh-shaper" {
                return fail(
                    index(&join(&join("nodes", &c.node), "modules"), i),
                    format!(
                        "a `{kind}` module on node {} refuses the Interests of consumer {key} the instant \
                         they are sent, and the consumer resends them at that same instant, so simulated \
                         time could not advance; put the module on the next router",
                        c.node
                    ),
                );
            }
        }
        Ok(())
    }

    /// Start jitter, arrivals and catalogue.
    fn check_randomness(&self, key: &str, c: &ConsumerSpec) -> Check {
        let jitter = c.start_jitter.get();
        check::time(&join(key, "start_jitter"), jitter, true)?;
        if jitter > SimDuration::ZERO {
            // The latest possible start, `start + start_jitter` (exclusive), must come in time.
            let latest = Duration(c.start.get() + jitter);
            let duration = self.simulation.duration;
            if latest > duration {
                return fail(
                    join(key, "start_jitter"),
                    format!("start + start_jitter ({latest}) lies beyond the end of the simulation ({duration})"),
                );
            }
            if let Some(stop) = c.stop.filter(|s| latest > *s) {
                return fail(
                    join(key, "start_jitter"),
                    format!("start + start_jitter ({latest}) lies beyond stop ({stop})"),
                );
            }
        }
        if let Some(a) = &c.arrivals {
            a.validate().map_err(|e| e.under(&join(key, "arrivals")))?;
        }
        let Some(k) = &c.catalogue else { return Ok(()) };
        if c.arrivals.is_none() {
            return fail(
                join(key, "catalogue"),
                "a catalogue says which object each request asks for: give `arrivals` too, e.g. \
                 arrivals = { type = \"poisson\", rate = 10.0 }",
            );
        }
        k.validate().map_err(|e| e.under(&join(key, "catalogue")))?;
        // Object k is segments k·S … k·S + S − 1: the last one must have a segment number.
        let size = c.segments.unwrap_or(1);
        if k.objects.checked_mul(size).is_none_or(|n| n > MAX_NAMED_SEGMENTS) {
            return fail(
                join(&join(key, "catalogue"), "objects"),
                format!("{} objects of {size} segments need more than {MAX_NAMED_SEGMENTS} segment numbers", k.objects),
            );
        }
        Ok(())
    }

    /// A consumer on the node of the producer that answers it, with no processing delay, would
    /// get every Data back at the instant it asks: simulated time could never advance.
    fn check_not_answered_in_zero_time(&self, key: &str, c: &ConsumerSpec) -> Check {
        let Some((pname, p)) = self.producer_for(&c.prefix) else { return Ok(()) };
        if p.node == c.node && p.processing_delay.get() == SimDuration::ZERO {
            return fail(
                join(key, "node"),
                format!(
                    "consumer and producer '{pname}' share node {} and the producer answers in zero time, so \
                     simulated time could not advance; give apps.{pname}.processing_delay (e.g. \"10us\") or \
                     put them on different nodes",
                    c.node
                ),
            );
        }
        Ok(())
    }

    /// Where an IP flow starts and stops, and that its two nodes are linked.
    fn check_flow_ends<'a>(
        &'a self,
        key: &str,
        (node, to): (&str, &str),
        (start, stop): (Duration, Option<Duration>),
        parts: &OnceCell<Parts<'a>>,
    ) -> Check {
        self.node_ref(join(key, "to"), to)?;
        if node == to {
            return fail(join(key, "to"), format!("a flow needs two different nodes, not {node} twice"));
        }
        let duration = self.simulation.duration;
        if start >= duration {
            return fail(
                join(key, "start"),
                format!("starts at {start}, not before the end of the simulation ({duration})"),
            );
        }
        if let Some(stop) = stop {
            check::time(&join(key, "stop"), stop.get(), false)?;
            if stop <= start {
                return fail(join(key, "stop"), format!("stop ({stop}) must be after start ({start})"));
            }
        }
        if !parts.get_or_init(|| self.parts()).connected(node, to) {
            return fail(join(key, "to"), format!("no link path leads from {node} to {to}"));
        }
        Ok(())
    }

    fn check_tcp<'a>(&'a self, key: &str, t: &TcpSpec, parts: &OnceCell<Parts<'a>>) -> Check {
        self.check_flow_ends(key, (&t.node, &t.to), (t.start, t.stop), parts)?;
        check::packet_bytes(&join(key, "mss"), t.mss.0, 1)?;
        check::count(&join(key, "mss"), t.mss.0, 1, 65_495)?;
        check::count(&join(key, "initial_window"), u64::from(t.initial_window), 1, 1_000_000)?;
        if let Some(b) = t.bytes {
            check::count(&join(key, "bytes"), b.0, 1, 1_000_000_000_000_000)?;
        }
        check::count(&join(key, "ack_every"), u64::from(t.ack_every), 1, 1_000)?;
        check::time(&join(key, "delayed_ack_timeout"), t.delayed_ack_timeout.get(), true)?;
        t.cc.validate().map_err(|e| e.under(&join(key, "cc")))?;
        t.rtt.validate().map_err(|e| e.under(&join(key, "rtt")))?;
        if let TcpProfile::Ns3(_) = &t.profile {
            // ns-3's sender has its own NewReno and FlightSize; the keys it does not read must
            // stay at their defaults rather than be silently ignored.
            let unused = "is not used with profile ns3 (ns-3's TcpNewReno sender)";
            if t.cc != TcpControlConfig::default() {
                return fail(join(key, "cc"), format!("{unused}; it runs ns-3's NewReno"));
            }
            if t.ecn {
                return fail(join(key, "ecn"), "profile ns3 does not model ECN");
            }
            if t.flight_size != FlightSize::default() {
                return fail(join(key, "flight_size"), format!("{unused}: ns-3's sender counts its own"));
            }
            if t.rtt.formula != crate::rtt::RtoFormula::Rfc6298 || t.rtt.backoff != crate::rtt::Backoff::PerTimeout {
                let k = if t.rtt.backoff != crate::rtt::Backoff::PerTimeout { "backoff" } else { "formula" };
                return fail(
                    join(&join(key, "rtt"), k),
                    format!("{unused}: ns-3 doubles its RTO per timeout up to max_rto"),
                );
            }
        }
        if let TcpProfile::Ns2(ns2) = &t.profile {
            ns2.validate().map_err(|e| e.under(&join(key, "profile")))?;
            // NS-2's agent has its own window, ACK policy and timer: the RFC stack's keys
            // must stay at their defaults rather than be silently ignored.
            let unused = "is not used with profile ns2 (NS-2's agent has its own; see the profile's keys)";
            if t.cc != TcpControlConfig::default() {
                return fail(join(key, "cc"), format!("{unused}; NS-2's NewReno halves its window"));
            }
            if t.ecn {
                return fail(join(key, "ecn"), "profile ns2 does not model ECN");
            }
            if t.initial_window != 10 {
                return fail(join(key, "initial_window"), format!("{unused}: set profile.window_init"));
            }
            if t.flight_size != FlightSize::default() {
                return fail(join(key, "flight_size"), format!("{unused}: NS-2's agent halves its window"));
            }
            if !t.limited_transmit {
                return fail(
                    join(key, "limited_transmit"),
                    format!("{unused}: NS-2's agent sends on the first two duplicates"),
                );
            }
            if t.ack_every != 2 || t.delayed_ack_timeout != Duration::from_millis(200) {
                let k = if t.ack_every != 2 { "ack_every" } else { "delayed_ack_timeout" };
                return fail(join(key, k), format!("{unused}: NS-2's TCPSink acknowledges every packet at once"));
            }
            if t.rtt != crate::app::tcp::tcp_rtt_config() {
                return fail(join(key, "rtt"), format!("{unused}: set profile.tick, min_rto, max_rto, initial_rto"));
            }
        }
        Ok(())
    }

    /// Each multicast app its own group: two apps of one group would build one tree, and each
    /// receiver would count the other source's Data as its own. A group left out is the app's
    /// place among the multicast apps, from 1 (as `instantiate` numbers them).
    fn check_multicast_groups(&self) -> Check {
        let mut seen: BTreeMap<u32, &str> = BTreeMap::new();
        let mut place = 0u32;
        for (name, app) in &self.apps {
            let AppSpec::Multicast(m) = app else { continue };
            place = place.saturating_add(1);
            let key = join("apps", name);
            if m.group == Some(0) {
                return fail(join(&key, "group"), "groups are numbered from 1");
            }
            let group = m.group.unwrap_or(place);
            if let Some(other) = seen.insert(group, name) {
                let (at, how) = match m.group {
                    Some(_) => (join(&key, "group"), String::new()),
                    None => (key, " (the default: its place among the multicast apps)".to_string()),
                };
                return fail(
                    at,
                    format!(
                        "group {group}{how} is also apps.{other}'s; two multicast apps of one group would \
                         share one tree: give each its own `group`"
                    ),
                );
            }
        }
        Ok(())
    }

    fn check_multicast<'a>(&'a self, key: &str, m: &MulticastSpec, parts: &OnceCell<Parts<'a>>) -> Check {
        if m.receivers.is_empty() {
            return fail(join(key, "receivers"), "a multicast group needs at least one receiver");
        }
        for (i, r) in m.receivers.iter().enumerate() {
            let k = format!("{}[{i}]", join(key, "receivers"));
            self.node_ref(k.clone(), r)?;
            if m.receivers[..i].contains(r) {
                return fail(k, format!("{r} is listed twice"));
            }
            // `check_flow_ends` names the flow's `to`; here the receiver's entry is at fault.
            let to = join(key, "to");
            self.check_flow_ends(key, (&m.node, r), (m.start, m.stop), parts).map_err(|e| {
                if e.key == to {
                    Invalid::new(k.clone(), e.message)
                } else {
                    e
                }
            })?;
        }
        check::count(&join(key, "packet_size"), m.packet_size.0, 1, 65_535)?;
        check::count(&join(key, "feedback_size"), m.feedback_size.0, 1, 65_535)?;
        check::time(&join(key, "initial_rtt"), m.initial_rtt.get(), false)?;
        m.control.validate().map_err(|e| e.under(&join(key, "control")))
    }

    fn check_cbr<'a>(&'a self, key: &str, c: &CbrSpec, parts: &OnceCell<Parts<'a>>) -> Check {
        self.check_flow_ends(key, (&c.node, &c.to), (c.start, c.stop), parts)?;
        check::packet_bytes(&join(key, "packet_size"), c.packet_size.0, 1)?;
        check::count(&join(key, "packet_size"), c.packet_size.0, 1, 65_507)?;
        // At most MAX_RATE datagrams a second.
        let per_s = c.rate.bps() as f64 / (8.0 * c.packet_size.0 as f64);
        check::rate(&join(key, "rate"), per_s).map_err(|_| {
            Invalid::new(join(key, "rate"), format!("{per_s} datagrams/s is outside what a run can carry"))
        })
    }

    /// A consumer's prefix must be served by a producer (reachable over links when routes are
    /// computed) or be covered by a static route on the consumer's node.
    fn check_reachable<'a>(&'a self, key: &str, c: &ConsumerSpec, parts: &OnceCell<Parts<'a>>) -> Check {
        if REAL_PRODUCERS.with(std::cell::Cell::get) {
            return Ok(());
        }
        if self.routes.iter().any(|r| r.node == c.node && name_covers(&r.prefix, &c.prefix)) {
            return Ok(());
        }
        let producers: Vec<&ProducerSpec> =
            self.producers().map(|(_, p)| p).filter(|p| name_covers(&p.prefix, &c.prefix)).collect();
        if producers.is_empty() {
            let all: BTreeSet<&str> = self.producers().map(|(_, p)| p.prefix.as_str()).collect();
            let all = if all.is_empty() {
                "there are no producers".to_string()
            } else {
                format!("producers serve {}", all.into_iter().collect::<Vec<_>>().join(", "))
            };
            return fail(
                join(key, "prefix"),
                format!("no producer serves {} and no static route on {} covers it ({all})", c.prefix, c.node),
            );
        }
        if self.routing.mode == RoutingMode::Static && !producers.iter().any(|p| p.node == c.node) {
            return fail(
                join(key, "prefix"),
                format!(
                    "routing is static and no [[routes]] entry on {} covers {}: its Interests could go nowhere",
                    c.node, c.prefix
                ),
            );
        }
        if self.routing.mode == RoutingMode::Computed {
            let parts = parts.get_or_init(|| self.parts());
            if !producers.iter().any(|p| parts.connected(&c.node, &p.node)) {
                let at: Vec<&str> = producers.iter().map(|p| p.node.as_str()).collect();
                return fail(
                    join(key, "prefix"),
                    format!("no link path leads from {} to a producer of {} (on {})", c.node, c.prefix, at.join(", ")),
                );
            }
        }
        Ok(())
    }

    /// The connected parts of the link graph (computed once per validation).
    fn parts(&self) -> Parts<'_> {
        let mut index: BTreeMap<&str, usize> = BTreeMap::new();
        for name in self.nodes.keys() {
            let i = index.len();
            index.insert(name.as_str(), i);
        }
        let mut parent: Vec<usize> = (0..index.len()).collect();
        fn root(parent: &mut [usize], mut x: usize) -> usize {
            while parent[x] != x {
                parent[x] = parent[parent[x]];
                x = parent[x];
            }
            x
        }
        for l in self.links.values() {
            let [a, b] = &l.endpoints;
            if let (Some(&x), Some(&y)) = (index.get(a.as_str()), index.get(b.as_str())) {
                let (rx, ry) = (root(&mut parent, x), root(&mut parent, y));
                parent[rx] = ry;
            }
        }
        let part = (0..parent.len()).map(|x| root(&mut parent, x)).collect();
        Parts { index, part }
    }

    fn check_record(&self) -> Check {
        let interval = self.record.interval.get();
        if interval > SimDuration::ZERO {
            let samples = self.simulation.duration.get().nanos() / interval.nanos().max(1);
            if samples > MAX_SAMPLES {
                return fail(
                    "record.interval",
                    format!(
                        "{} gives {samples} samples per series; at most {MAX_SAMPLES} are kept (or \"0s\" for none)",
                        self.record.interval
                    ),
                );
            }
            let faces = match &self.record.faces {
                FaceSelection::All => 2 * self.links.len() as u64,
                FaceSelection::None => 0,
                FaceSelection::List(f) => f.len() as u64,
            };
            let series = SERIES_PER_FACE * faces + SERIES_PER_APP * self.apps.len() as u64;
            let rows = samples.saturating_mul(series);
            if rows > MAX_SAMPLE_ROWS {
                return fail(
                    "record.interval",
                    format!(
                        "{} gives about {rows} sample rows ({samples} samples of up to {series} series); at most \
                         {MAX_SAMPLE_ROWS} fit in memory: lengthen the interval, record fewer faces \
                         (record.faces), or \"0s\" for none",
                        self.record.interval
                    ),
                );
            }
        }
        if let Some(pcap) = &self.record.pcap {
            pcap.validate().map_err(|e| e.under("record.pcap"))?;
            if let FaceSelection::List(faces) = &pcap.faces {
                if faces.is_empty() {
                    return fail(
                        "record.pcap.faces",
                        "an empty list records nothing: name faces (\"R1->R2\"), or \"all\", or leave pcap out",
                    );
                }
                self.check_face_list("record.pcap.faces", faces)?;
            }
            let duration = self.simulation.duration;
            if pcap.start >= duration {
                return fail(
                    "record.pcap.start",
                    format!("starts at {}, not before the end of the simulation ({duration})", pcap.start),
                );
            }
        }
        let FaceSelection::List(faces) = &self.record.faces else { return Ok(()) };
        self.check_face_list("record.faces", faces)
    }

    /// Every name in `faces` is a face "A->B" of a link, listed once.
    fn check_face_list(&self, list_key: &str, faces: &[String]) -> Check {
        let mut seen = BTreeSet::new();
        for (i, f) in faces.iter().enumerate() {
            let key = index(list_key, i);
            let Some((a, b)) = split_face(f) else {
                return fail(key, format!("'{f}' is not a face name: write \"A->B\" for the face of A toward B"));
            };
            self.node_ref(key.clone(), a)?;
            self.node_ref(key.clone(), b)?;
            if self.links_between(a, b).next().is_none() {
                return fail(key, format!("there is no link between {a} and {b}"));
            }
            if !seen.insert((a, b)) {
                return fail(key, format!("face {a}->{b} is listed twice"));
            }
        }
        Ok(())
    }
}

/// The values of one node (or of `[defaults.node]`), each by itself.
pub(crate) fn check_node_settings(key: &str, n: &NodeSpec) -> Check {
    if n.clock_tick.is_some_and(|t| t.get().0 == 0) {
        return fail(join(key, "clock_tick"), "must be > 0 (leave it out for exact timers)");
    }
    if let Some(t) = n.clock_tick {
        check::time(&join(key, "clock_tick"), t.get(), false)?;
    }
    match (n.clock_phase, n.clock_tick) {
        (Some(_), None) => return fail(join(key, "clock_phase"), "needs a clock_tick to shift"),
        (Some(ClockPhase::Fixed(p)), Some(t)) if p.get() >= t.get() => {
            return fail(join(key, "clock_phase"), format!("must be below the clock_tick ({t})"));
        }
        _ => {}
    }
    let cs = join(&join(key, "content_store"), "capacity");
    check::count(&cs, n.content_store.capacity as u64, 0, MAX_CS_ENTRIES)?;
    n.strategy.validate().map_err(|e| e.under(&join(key, "strategy")))?;
    for (i, m) in n.modules.iter().enumerate() {
        m.validate().map_err(|e| e.under(&index(&join(key, "modules"), i)))?;
    }
    Ok(())
}

/// The values of one link (or of `[defaults.link]`), each by itself.
pub(crate) fn check_link_settings(key: &str, l: &LinkSpec) -> Check {
    for (k, q) in [("queue", Some(&l.queue)), ("queue_ab", l.queue_ab.as_ref()), ("queue_ba", l.queue_ba.as_ref())] {
        if let Some(q) = q {
            q.validate().map_err(|e| e.under(&join(key, k)))?;
        }
    }
    for (k, x) in [("loss", Some(&l.loss)), ("loss_ab", l.loss_ab.as_ref()), ("loss_ba", l.loss_ba.as_ref())] {
        if let Some(x) = x {
            x.validate().map_err(|e| e.under(&join(key, k)))?;
        }
    }
    for (k, s) in [
        ("interest_shaper", l.interest_shaper.as_ref()),
        ("interest_shaper_ab", l.interest_shaper_ab.as_ref()),
        ("interest_shaper_ba", l.interest_shaper_ba.as_ref()),
    ] {
        if let Some(s) = s {
            s.validate().map_err(|e| e.under(&join(key, k)))?;
        }
    }
    if let Some(ls) = &l.link_service {
        ls.validate().map_err(|e| e.under(&join(key, "link_service")))?;
    }
    if let Some(d) = &l.drawn.bandwidth {
        d.validate().map_err(|e| e.under(&join(key, "bandwidth")))?;
    }
    if let Some(d) = &l.drawn.delay {
        d.validate().map_err(|e| e.under(&join(key, "delay")))?;
    }
    for (k, t) in l.traces.each() {
        t.validate().map_err(|e| e.under(&join(key, k)))?;
    }
    check::count(&join(key, "underlay_queue"), l.underlay_queue as u64, 1, MAX_QUEUE_PACKETS)?;
    if let Some(b) = l.underlay_queue_bytes {
        check::count(&join(key, "underlay_queue_bytes"), b.0, 1, MAX_QUEUE_BYTES)?;
    }
    check::time(&join(key, "delay"), l.delay.get(), true)
}

fn check_producer(key: &str, p: &ProducerSpec) -> Check {
    check::packet_bytes(&join(key, "payload"), p.payload.0, 1)?;
    if let Some(overhead) = p.overhead {
        check::packet_bytes(&join(key, "overhead"), overhead.0, 0)?;
    }
    check::time(&join(key, "freshness"), p.freshness.get(), true)?;
    check::time(&join(key, "processing_delay"), p.processing_delay.get(), true)
}
