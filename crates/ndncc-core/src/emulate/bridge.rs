//! What the emulation's driver and its face applications share: one slot per application face
//! a connection can take, and the store of real packets' bytes.
//!
//! Both sides run on the driver's thread (the face applications inside `World::run_until`), so
//! the lock around this is never contended; it is there because an `Application` must be
//! `Send`.

use std::sync::{Arc, Mutex, MutexGuard};

use rustc_hash::FxHashMap;

use super::store::WireStore;
use crate::packet::{Name, Packet};
use crate::time::SimTime;
use crate::wire::name::Component;

/// An Interest the engine put on a slot's face, sent on to the real application there (a
/// producer), waiting for its Data or NACK.
#[derive(Clone, Debug)]
pub struct Forwarded {
    /// The engine's Interest (a NACK is made from it).
    pub interest: Packet,
    pub real_name: Vec<Component>,
    pub can_be_prefix: bool,
    pub until: SimTime,
}

/// Counters of one slot over the run (of every connection it held).
#[derive(Clone, Copy, Debug, Default)]
pub struct SlotCounters {
    pub connections: u64,
    pub interests_in: u64,
    pub data_in: u64,
    pub nacks_in: u64,
    pub interests_out: u64,
    pub data_out: u64,
    pub nacks_out: u64,
    pub bytes_in: u64,
    pub bytes_out: u64,
    /// Data from the application that answered no Interest it was sent.
    pub unsolicited: u64,
    /// Packets for the slot's face while no connection held it, or for names its connection
    /// did not ask for (an earlier connection's).
    pub orphaned: u64,
}

/// One application face a connection can take.
#[derive(Default)]
pub struct Slot {
    /// The connection holding the slot.
    pub conn: Option<u64>,
    /// Packets from the connection for the node, handed over at the slot app's next wake-up.
    pub inbox: Vec<Packet>,
    /// Frames for the connection and the simulated time each left the node.
    pub outbox: Vec<(Vec<u8>, SimTime)>,
    /// Names the connection asked for (its Interests in the engine), until when.
    pub asked: FxHashMap<Name, SimTime>,
    /// Interests the engine sent to the connection.
    pub forwarded: Vec<Forwarded>,
    pub counters: SlotCounters,
}

impl Slot {
    /// Forget what the last connection left.
    pub fn reset(&mut self) {
        self.conn = None;
        self.inbox.clear();
        self.outbox.clear();
        self.asked.clear();
        self.forwarded.clear();
    }

    /// Forget Interests whose lifetime is over at `now`.
    pub fn expire(&mut self, now: SimTime) {
        self.asked.retain(|_, until| *until > now);
        self.forwarded.retain(|f| f.until > now);
    }
}

#[derive(Default)]
pub struct Shared {
    pub slots: Vec<Slot>,
    pub store: WireStore,
}

/// The shared state, behind its lock.
#[derive(Clone, Default)]
pub struct Bridge(Arc<Mutex<Shared>>);

impl Bridge {
    pub fn new(slots: usize) -> Bridge {
        let shared = Shared { slots: (0..slots).map(|_| Slot::default()).collect(), store: WireStore::default() };
        Bridge(Arc::new(Mutex::new(shared)))
    }

    /// One more slot; its index.
    pub fn add_slot(&self) -> usize {
        let mut shared = self.lock();
        shared.slots.push(Slot::default());
        shared.slots.len() - 1
    }

    /// The state, locked. A panic while it was held (a bug) leaves it as it was.
    pub fn lock(&self) -> MutexGuard<'_, Shared> {
        self.0.lock().unwrap_or_else(|poisoned| poisoned.into_inner())
    }
}
