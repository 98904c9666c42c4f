//! The real-time loop: the engine runs paced to the wall clock, never ahead of it.
//!
//! ```text
//!  loop:  packets read so far ──decode──▶ slot inboxes, app woken at the time each was read
//!         run every event due by the wall clock (World::run_until), noting each one's lag
//!         frames the face apps wrote ──▶ their connections
//!         sleep until the next event is due or a packet comes (channel wait with a deadline)
//! ```
//!
//! Simulated time 0 is the instant the loop starts. An event due at simulated time t runs once
//! the wall clock has passed t; how long after is its lag, whose percentiles the run reports.
//! A packet a real application sent enters the engine at the instant it was read (or, if the
//! engine had already run past that while it waited in the channel, at once).

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{Receiver, RecvTimeoutError, Sender};
use std::sync::Arc;
use std::time::{Duration, Instant};

use rand::Rng;
use rustc_hash::FxHashMap;

use super::bridge::{Bridge, Forwarded};
use super::rib::{Registrant, Rib};
use super::store::StoredInterest;
use super::transport::{ConnId, Inbound, Outlet};
use crate::histogram::Histogram;
use crate::ids::{AppId, FaceId, NodeId};
use crate::packet::{NackReason, Packet};
use crate::rng::SimRng;
use crate::time::{SimDuration, SimTime};
use crate::wire::decode::{self, Frame, NetPacket};
use crate::wire::encode;
use crate::wire::mgmt::{self, control_response};
use crate::wire::name::engine_key;
use crate::wire::ndn::{types, wire_u32, ETHERNET_HEADER};
use crate::wire::tlv::tlv_len;
use crate::world::{RunEnd, Step, StepState, World};

/// A lag above this in more than 1% of a second's events draws the warning that the scenario
/// may be too large to run in real time.
const LATE: SimDuration = SimDuration(5_000_000);
/// How often Interests whose lifetime is over are forgotten.
const EXPIRE_EVERY: SimDuration = SimDuration(100_000_000);
/// The longest the loop sleeps without looking at the stop flag.
const STOP_CHECK: Duration = Duration::from_millis(50);
/// InterestLifetime of an Interest that gives none [ms].
const DEFAULT_LIFETIME_MS: u64 = 4_000;
/// FaceIds NFD gives start above its reserved ones.
const FIRST_FACE_ID: u64 = 256;

/// A slot's application face in the world.
#[derive(Clone, Copy, Debug)]
pub struct SlotFace {
    pub app: AppId,
    pub face: FaceId,
    pub node: NodeId,
    pub listener: usize,
}

struct Conn {
    slot: usize,
    outlet: Outlet,
    peer: String,
}

/// How far behind the wall clock the engine ran.
#[derive(Clone, Debug, Default)]
pub struct LagReport {
    pub events: u64,
    pub p50_ms: f64,
    pub p90_ms: f64,
    pub p99_ms: f64,
    pub p999_ms: f64,
    pub max_ms: f64,
}

pub struct Driver {
    pub world: World,
    pub bridge: Bridge,
    pub rib: Rib,
    pub slots: Vec<SlotFace>,
    pub node_names: Vec<String>,
    pub inbound: Receiver<Inbound>,
    pub log: Sender<String>,
    pub stop: Arc<AtomicBool>,
    pub rng: SimRng,
    conns: FxHashMap<ConnId, Conn>,
    step: StepState,
    lag: Histogram,
    start: Instant,
    /// Events of the current second and how many of them were late.
    window: (SimTime, u64, u64),
    warned: bool,
    next_expiry: SimTime,
    /// The world's route epoch the RIB's routes were last computed for.
    route_epoch: u64,
}

impl Driver {
    #[allow(clippy::too_many_arguments)]
    pub fn new(
        world: World,
        bridge: Bridge,
        rib: Rib,
        slots: Vec<SlotFace>,
        inbound: Receiver<Inbound>,
        log: Sender<String>,
        stop: Arc<AtomicBool>,
        rng: SimRng,
    ) -> Driver {
        let node_names = world.net.node_names.iter().map(|n| n.to_string()).collect();
        Driver {
            world,
            bridge,
            rib,
            slots,
            node_names,
            inbound,
            log,
            stop,
            rng,
            conns: FxHashMap::default(),
            step: StepState::default(),
            lag: Histogram::new(),
            start: Instant::now(),
            window: (SimTime::ZERO, 0, 0),
            warned: false,
            next_expiry: SimTime::ZERO,
            route_epoch: 0,
        }
    }

    fn say(&self, line: String) {
        let _ = self.log.send(line);
    }

    /// The wall clock as simulated time.
    fn wall(&self) -> SimTime {
        Self::since(self.start, Instant::now())
    }

    fn since(start: Instant, at: Instant) -> SimTime {
        SimTime(u64::try_from(at.saturating_duration_since(start).as_nanos()).unwrap_or(u64::MAX))
    }

    /// Run until the end time or the stop flag; then close every connection.
    pub fn run(&mut self) -> Result<(), RunEnd> {
        self.start = Instant::now();
        let end = self.world.end_time();
        let result = loop {
            if self.stop.load(Ordering::SeqCst) {
                let now = self.wall();
                if let Err(e) = self.advance(now) {
                    break Err(e);
                }
                self.world.end_at(now);
                break Ok(());
            }
            let now = self.wall();
            if now >= end {
                break self.advance(end);
            }
            if let Err(e) = self.drain_inbound() {
                break Err(e);
            }
            if let Err(e) = self.advance(self.wall()) {
                break Err(e);
            }
            self.flush();
            self.expire();
            let next = self.world.next_event_time().unwrap_or(end).min(end);
            let wait = Duration::from_nanos(next.saturating_since(self.wall()).nanos()).min(STOP_CHECK);
            if wait > Duration::ZERO {
                match self.inbound.recv_timeout(wait) {
                    Ok(m) => {
                        if let Err(e) = self.on_inbound(m) {
                            break Err(e);
                        }
                    }
                    Err(RecvTimeoutError::Timeout | RecvTimeoutError::Disconnected) => {}
                }
            }
        };
        self.flush();
        for (_, c) in self.conns.drain() {
            c.outlet.close();
        }
        result
    }

    /// Take in what the sockets reported so far.
    fn drain_inbound(&mut self) -> Result<(), RunEnd> {
        while let Ok(m) = self.inbound.try_recv() {
            self.on_inbound(m)?;
        }
        Ok(())
    }

    /// Run every event due by `limit`, noting how late each ran.
    fn advance(&mut self, limit: SimTime) -> Result<(), RunEnd> {
        let start = self.start;
        let (lag, window, warned) = (&mut self.lag, &mut self.window, &mut self.warned);
        let log = &self.log;
        let mut note = |t: SimTime| {
            let now = Self::since(start, Instant::now());
            let late = now.saturating_since(t);
            lag.record(late);
            if now.saturating_since(window.0) >= SimDuration::from_secs(1) {
                if !*warned && window.2 * 100 > window.1 && window.1 >= 100 {
                    *warned = true;
                    let _ = log.send(format!(
                        "warning: the engine ran over {:.0} ms behind the wall clock for {} of {} events in a \
                         second: the scenario may be too large to run in real time",
                        LATE.as_secs_f64() * 1e3,
                        window.2,
                        window.1
                    ));
                }
                *window = (now, 0, 0);
            }
            window.1 += 1;
            if late > LATE {
                window.2 += 1;
            }
        };
        let step = self.world.run_until(limit, &mut self.step, &mut note);
        // Links or nodes went down or up and the world routed again: so does the RIB, for the
        // real applications' prefixes.
        if self.world.route_epoch() != self.route_epoch {
            self.route_epoch = self.world.route_epoch();
            self.rib.replan(&mut self.world);
        }
        match step {
            Step::Paused => Ok(()),
            Step::Ended(e) => Err(e),
        }
    }

    /// The lag percentiles so far.
    pub fn lag_report(&self) -> LagReport {
        let q = |q: f64| self.lag.quantile_s(q).unwrap_or(0.0) * 1e3;
        LagReport {
            events: self.lag.len(),
            p50_ms: q(0.5),
            p90_ms: q(0.9),
            p99_ms: q(0.99),
            p999_ms: q(0.999),
            max_ms: self.lag.max_s().unwrap_or(0.0) * 1e3,
        }
    }

    fn expire(&mut self) {
        let now = self.world.now();
        if now < self.next_expiry {
            return;
        }
        self.next_expiry = now + EXPIRE_EVERY;
        let mut shared = self.bridge.lock();
        shared.store.expire(now);
        for s in &mut shared.slots {
            s.expire(now);
        }
    }

    /// Send what the face apps wrote to their connections.
    fn flush(&mut self) {
        let mut shared = self.bridge.lock();
        for (slot, s) in shared.slots.iter_mut().enumerate() {
            if s.outbox.is_empty() {
                continue;
            }
            let Some(conn) = s.conn.and_then(|c| self.conns.get(&c)) else {
                s.outbox.clear();
                continue;
            };
            for (bytes, _) in s.outbox.drain(..) {
                if !conn.outlet.send(bytes) {
                    let _ = self.log.send(format!("face {slot} ({}): send queue full, a packet dropped", conn.peer));
                }
            }
        }
    }

    fn on_inbound(&mut self, m: Inbound) -> Result<(), RunEnd> {
        match m {
            Inbound::Opened { listener, conn, peer, outlet } => self.open(listener, conn, peer, outlet),
            Inbound::Frame { conn, bytes, at } => {
                let t = Self::since(self.start, at).max(self.world.now());
                self.advance(t)?;
                self.on_frame(conn, &bytes, t);
            }
            Inbound::Malformed { conn, why } => self.close(conn, &format!("malformed input: {why}")),
            Inbound::Closed { conn, why } => self.close(conn, &why),
        }
        Ok(())
    }

    fn open(&mut self, listener: usize, conn: ConnId, peer: String, outlet: Outlet) {
        let mut shared = self.bridge.lock();
        let free =
            self.slots.iter().enumerate().find(|(i, s)| s.listener == listener && shared.slots[*i].conn.is_none());
        let Some((slot, face)) = free.map(|(i, s)| (i, *s)) else {
            drop(shared);
            outlet.close();
            self.say(format!("refused {peer}: every face of its listener is taken"));
            return;
        };
        let s = &mut shared.slots[slot];
        s.reset();
        s.conn = Some(conn);
        s.counters.connections += 1;
        drop(shared);
        let node = &self.node_names[face.node.idx()];
        self.say(format!("connected {peer} as face {} on node {node}", FIRST_FACE_ID + slot as u64));
        self.conns.insert(conn, Conn { slot, outlet, peer });
    }

    fn close(&mut self, conn: ConnId, why: &str) {
        let Some(c) = self.conns.remove(&conn) else { return };
        c.outlet.close();
        self.rib.drop_slot(&mut self.world, c.slot);
        self.bridge.lock().slots[c.slot].reset();
        self.say(format!("closed {} (face {}): {why}", c.peer, FIRST_FACE_ID + c.slot as u64));
    }

    /// One packet from connection `conn` at simulated time `t`.
    fn on_frame(&mut self, conn: ConnId, bytes: &[u8], t: SimTime) {
        let Some(slot) = self.conns.get(&conn).map(|c| c.slot) else { return };
        let frame = match decode::frame(bytes) {
            Ok(Some(f)) => f,
            Ok(None) => return,
            Err(e) => return self.close(conn, &format!("malformed packet: {e}")),
        };
        self.bridge.lock().slots[slot].counters.bytes_in += bytes.len() as u64;
        let before = self.bridge.lock().slots[slot].inbox.len();
        match &frame.packet {
            NetPacket::Interest(i) if frame.lp.nack.is_some() => self.nack_in(slot, &frame, i),
            NetPacket::Interest(i) if mgmt::is_localhost(&i.name) => self.command(slot, i),
            NetPacket::Interest(i) => self.interest_in(slot, &frame, i, t),
            NetPacket::Data(d) => self.data_in(slot, &frame, d),
        }
        if self.bridge.lock().slots[slot].inbox.len() > before {
            self.world.wake_app(self.slots[slot].app, t);
        }
    }

    /// The engine size of a packet of `len` bytes: as a simulated one's, the Ethernet frame of
    /// its LpPacket with a hop count.
    fn engine_size(len: usize) -> u32 {
        let lp = tlv_len(types::HOP_COUNT_TAG, 1) + tlv_len(types::FRAGMENT, len);
        wire_u32(ETHERNET_HEADER + tlv_len(types::LP_PACKET, lp))
    }

    fn mark(frame: &Frame) -> u8 {
        u8::try_from(frame.lp.mark).unwrap_or(u8::MAX)
    }

    fn interest_in(&mut self, slot: usize, frame: &Frame, i: &decode::Interest, t: SimTime) {
        let (text, seg) = engine_key(&i.name);
        let name = crate::packet::Name { prefix: self.world.net.names.intern(&text), seg };
        // A forwarder gives an Interest without a nonce one of its own.
        let nonce = i.nonce.unwrap_or_else(|| self.rng.gen());
        let lifetime_ns = i.lifetime_ms.unwrap_or(DEFAULT_LIFETIME_MS).saturating_mul(1_000_000);
        let until = t + SimDuration(lifetime_ns);
        let mut p = Packet::interest(name, Self::engine_size(frame.bytes.len()), nonce, lifetime_ns);
        p.mark = Self::mark(frame);
        let mut shared = self.bridge.lock();
        let stored =
            StoredInterest { bytes: Arc::from(frame.bytes), name: i.name.clone(), can_be_prefix: i.can_be_prefix };
        shared.store.put_interest(name, nonce, stored, until);
        let s = &mut shared.slots[slot];
        let asked = s.asked.entry(name).or_insert(until);
        *asked = (*asked).max(until);
        s.counters.interests_in += 1;
        s.inbox.push(p);
    }

    fn data_in(&mut self, slot: usize, frame: &Frame, d: &decode::Data) {
        let mut shared = self.bridge.lock();
        let shared = &mut *shared;
        let s = &mut shared.slots[slot];
        s.counters.data_in += 1;
        let satisfies = |f: &Forwarded| {
            f.real_name == d.name
                || (f.can_be_prefix && d.name.len() > f.real_name.len() && d.name.starts_with(&f.real_name))
        };
        let (answered, waiting): (Vec<Forwarded>, Vec<Forwarded>) = s.forwarded.drain(..).partition(satisfies);
        s.forwarded = waiting;
        if answered.is_empty() {
            s.counters.unsolicited += 1;
            return;
        }
        let bytes: Arc<[u8]> = Arc::from(frame.bytes);
        let freshness_ns = d.freshness_ms.unwrap_or(0).saturating_mul(1_000_000);
        let mut seen = Vec::new();
        for f in answered {
            let Some(h) = f.interest.ndn() else { continue };
            // Copies of one Interest (sent again, or by two nodes) take one Data.
            if seen.contains(&h.name) {
                continue;
            }
            seen.push(h.name);
            shared.store.put_data(h.name, bytes.clone());
            let mut p = Packet::data_for(h, Self::engine_size(frame.bytes.len()));
            if let Some(n) = p.ndn_mut() {
                n.lifetime_ns = freshness_ns;
            }
            p.mark = Self::mark(frame);
            s.inbox.push(p);
        }
    }

    fn nack_in(&mut self, slot: usize, frame: &Frame, i: &decode::Interest) {
        let reason = match frame.lp.nack {
            Some(50) => NackReason::Congestion,
            Some(100) => NackReason::Duplicate,
            _ => NackReason::NoRoute,
        };
        let mut shared = self.bridge.lock();
        let s = &mut shared.slots[slot];
        s.counters.nacks_in += 1;
        let Some(at) = s.forwarded.iter().position(|f| {
            f.real_name == i.name && i.nonce.is_none_or(|n| f.interest.ndn().is_some_and(|h| h.nonce == n))
        }) else {
            return;
        };
        let f = s.forwarded.remove(at);
        let mut p = Packet::nack_for(&f.interest, reason);
        p.mark = Self::mark(frame);
        s.inbox.push(p);
    }

    /// A management command: answered at once, as the node's own forwarder would.
    fn command(&mut self, slot: usize, i: &decode::Interest) {
        let Some(cmd) = mgmt::command(&i.name) else { return };
        let face = self.slots[slot];
        let who = Registrant { slot, node: face.node, face: face.face, nfd_face_id: FIRST_FACE_ID + slot as u64 };
        let (code, text, applied) = self.rib.command(&mut self.world, who, &cmd);
        let verb = String::from_utf8_lossy(&cmd.verb).into_owned();
        if let Some(p) = applied.as_ref().and_then(|p| p.name.as_ref()) {
            let node = &self.node_names[face.node.idx()];
            self.say(format!("face {}: {verb} {} on node {node}", who.nfd_face_id, crate::wire::name::to_uri(p)));
        }
        let body = control_response(code, &text, applied.as_ref());
        let reply = encode::data(&i.name, None, &body);
        if let Some(c) = self.conns.get(&self.bridge.lock().slots[slot].conn.unwrap_or(u64::MAX)) {
            c.outlet.send(reply);
        }
    }
}
