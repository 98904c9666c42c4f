//! Content Store: an LRU cache of Data by exact name. A cached Data answers Interests for its
//! freshness period (carried by the Data; zero = forever).

use std::num::NonZeroUsize;

use lru::LruCache;

use crate::packet::{Name, Packet};
use crate::time::{SimDuration, SimTime};

pub struct ContentStore {
    /// Unbounded as a container (so a large capacity allocates nothing up front); the LRU entry
    /// is evicted by hand past `capacity`.
    cache: LruCache<Name, (Packet, SimTime)>,
    capacity: usize,
    pub hits: u64,
    pub misses: u64,
}

impl ContentStore {
    /// `None` when capacity is 0 (the store is off).
    pub fn new(capacity: usize) -> Option<ContentStore> {
        NonZeroUsize::new(capacity).map(|c| ContentStore {
            cache: LruCache::unbounded(),
            capacity: c.get(),
            hits: 0,
            misses: 0,
        })
    }

    pub fn insert(&mut self, data: &Packet, now: SimTime) {
        let Some(name) = data.ndn().map(|h| h.name) else { return };
        let fresh = data.freshness();
        let stale_at = if fresh == SimDuration::ZERO { SimTime::MAX } else { now + fresh };
        let mut stored = *data;
        // The cached copy is clean: marks and rate stamps belong to the path it came over.
        stored.mark = 0;
        if let Some(h) = stored.ndn_mut() {
            h.rate = f64::INFINITY;
        }
        stored.hops = 0;
        self.cache.put(name, (stored, stale_at));
        if self.cache.len() > self.capacity {
            self.cache.pop_lru();
        }
    }

    /// A fresh Data for `name`, refreshing its LRU position.
    pub fn lookup(&mut self, name: &Name, now: SimTime) -> Option<Packet> {
        match self.cache.get(name) {
            Some((p, stale_at)) if *stale_at > now => {
                self.hits += 1;
                Some(*p)
            }
            _ => {
                self.misses += 1;
                None
            }
        }
    }

    pub fn len(&self) -> usize {
        self.cache.len()
    }
    pub fn is_empty(&self) -> bool {
        self.cache.is_empty()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::NameId;

    fn data(seg: u64) -> Packet {
        let i = Packet::interest(Name { prefix: NameId(0), seg }, 40, 7, 0);
        Packet::data_for(i.ndn().unwrap(), 1000)
    }

    #[test]
    fn capacity_zero_means_no_store() {
        assert!(ContentStore::new(0).is_none());
    }

    #[test]
    fn the_least_recently_used_entry_is_evicted() {
        let mut cs = ContentStore::new(2).unwrap();
        cs.insert(&data(1), SimTime(0));
        cs.insert(&data(2), SimTime(0));
        assert!(cs.lookup(&data(1).name().unwrap(), SimTime(1)).is_some()); // 1 is now most recent
        cs.insert(&data(3), SimTime(2)); // evicts 2
        assert!(cs.lookup(&data(2).name().unwrap(), SimTime(3)).is_none());
        assert!(cs.lookup(&data(1).name().unwrap(), SimTime(3)).is_some());
        assert_eq!((cs.hits, cs.misses), (2, 1));
    }

    #[test]
    fn stale_data_does_not_answer_and_marks_are_not_cached() {
        let mut cs = ContentStore::new(4).unwrap();
        let mut d = data(1);
        d.mark = 1;
        d.ndn_mut().unwrap().lifetime_ns = SimDuration::from_millis(10).nanos(); // freshness 10 ms
        cs.insert(&d, SimTime(0));
        let hit = cs.lookup(&d.name().unwrap(), SimTime(9_999_999)).unwrap();
        assert_eq!(hit.mark, 0);
        assert!(cs.lookup(&d.name().unwrap(), SimTime(10_000_000)).is_none());
    }
}
