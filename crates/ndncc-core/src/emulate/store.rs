//! The bytes of real packets while their engine copies cross the simulated network.
//!
//! A packet in the engine is a small `Copy` value (name, nonce, size, mark); what a real
//! application put in it (content, signature, selectors, parameters) waits here, keyed by what
//! the engine keeps: an Interest by (name, nonce), a Data by the name of the Interest it
//! answered. The face that delivers the packet to another real application takes the bytes
//! from here; a packet with none (a simulated application's) is written from its engine fields.
//!
//! Interests leave when their lifetime is over. Data stay, since a Content Store may answer
//! with one much later, up to a budget of bytes beyond which the oldest go first.

use std::collections::VecDeque;
use std::sync::Arc;

use rustc_hash::FxHashMap;

use crate::packet::Name;
use crate::time::SimTime;
use crate::wire::name::Component;

/// Bytes of Data kept at most (beyond, the oldest are forgotten) [bytes].
pub const DATA_BUDGET_BYTES: usize = 256 << 20;

/// A real Interest as it came, and what matching Data against it needs.
#[derive(Clone, Debug)]
pub struct StoredInterest {
    pub bytes: Arc<[u8]>,
    pub name: Vec<Component>,
    pub can_be_prefix: bool,
}

#[derive(Default)]
pub struct WireStore {
    interests: FxHashMap<(Name, u32), (StoredInterest, SimTime)>,
    /// When each Interest may go, in the order they came.
    interest_expiry: VecDeque<(SimTime, Name, u32)>,
    data: FxHashMap<Name, Arc<[u8]>>,
    data_order: VecDeque<Name>,
    data_bytes: usize,
}

impl WireStore {
    /// Keep a real Interest until `until`.
    pub fn put_interest(&mut self, name: Name, nonce: u32, interest: StoredInterest, until: SimTime) {
        self.interests.insert((name, nonce), (interest, until));
        self.interest_expiry.push_back((until, name, nonce));
    }

    pub fn interest(&self, name: Name, nonce: u32) -> Option<&StoredInterest> {
        self.interests.get(&(name, nonce)).map(|(i, _)| i)
    }

    /// Keep the real Data that answers Interests for `name` (replacing an older one).
    pub fn put_data(&mut self, name: Name, bytes: Arc<[u8]>) {
        self.data_bytes += bytes.len();
        if let Some(old) = self.data.insert(name, bytes) {
            self.data_bytes -= old.len();
        } else {
            self.data_order.push_back(name);
        }
        while self.data_bytes > DATA_BUDGET_BYTES {
            let Some(oldest) = self.data_order.pop_front() else { break };
            if let Some(b) = self.data.remove(&oldest) {
                self.data_bytes -= b.len();
            }
        }
    }

    pub fn data(&self, name: Name) -> Option<&Arc<[u8]>> {
        self.data.get(&name)
    }

    /// Forget the Interests whose time is over at `now`.
    pub fn expire(&mut self, now: SimTime) {
        while let Some(&(until, name, nonce)) = self.interest_expiry.front() {
            if until > now {
                break;
            }
            self.interest_expiry.pop_front();
            // A later copy (same name and nonce, sent again) keeps its own, later, time.
            if self.interests.get(&(name, nonce)).is_some_and(|(_, u)| *u <= now) {
                self.interests.remove(&(name, nonce));
            }
        }
    }

    /// Interests and Data held.
    pub fn len(&self) -> (usize, usize) {
        (self.interests.len(), self.data.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::NameId;

    fn name(seg: u64) -> Name {
        Name { prefix: NameId(0), seg }
    }

    #[test]
    fn interests_expire_and_data_stay_within_budget() {
        let mut s = WireStore::default();
        let i = StoredInterest { bytes: Arc::from(&b"x"[..]), name: vec![], can_be_prefix: false };
        s.put_interest(name(1), 7, i.clone(), SimTime(10));
        s.put_interest(name(1), 7, i, SimTime(20));
        s.expire(SimTime(10));
        assert!(s.interest(name(1), 7).is_some(), "the later copy stays");
        s.expire(SimTime(20));
        assert!(s.interest(name(1), 7).is_none());
        let big: Arc<[u8]> = Arc::from(vec![0u8; DATA_BUDGET_BYTES / 2 + 1]);
        s.put_data(name(1), big.clone());
        s.put_data(name(1), big.clone());
        assert_eq!(s.len(), (0, 1), "replacing does not count twice");
        s.put_data(name(2), big);
        assert!(s.data(name(1)).is_none() && s.data(name(2)).is_some(), "the oldest went");
    }
}
