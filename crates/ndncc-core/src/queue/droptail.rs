//! DropTail: first in, first out, tail drop when full (in packets or in bytes).

use crate::ring::Ring;

use super::{Dequeued, QueueDisc, Verdict};
use crate::packet::Packet;
use crate::time::SimTime;

/// The capacity of a queue.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Limit {
    Packets(usize),
    Bytes(u64),
}

impl Limit {
    /// Would a queue holding (`pkts`, `bytes`) overflow if a packet of `size` bytes joined it?
    pub fn would_overflow(self, pkts: usize, bytes: u64, size: u32) -> bool {
        match self {
            Limit::Packets(n) => pkts + 1 > n,
            Limit::Bytes(b) => bytes + size as u64 > b,
        }
    }
}

/// Plain FIFO with a hard limit. Also the storage the AQMs build on.
#[derive(Debug)]
pub struct DropTail {
    limit: Limit,
    fifo: Ring<Packet>,
    bytes: u64,
}

impl DropTail {
    pub fn new(limit: Limit) -> DropTail {
        DropTail { limit, fifo: Ring::new(), bytes: 0 }
    }
    pub fn limit(&self) -> Limit {
        self.limit
    }
    /// Remove and return the head packet without any AQM logic.
    pub fn pop(&mut self) -> Option<Packet> {
        let p = self.fifo.pop_front()?;
        self.bytes -= p.size as u64;
        Some(p)
    }
    pub fn peek(&self) -> Option<&Packet> {
        self.fifo.front()
    }
}

impl QueueDisc for DropTail {
    fn enqueue(&mut self, mut packet: Packet, now: SimTime) -> Verdict {
        if self.limit.would_overflow(self.fifo.len(), self.bytes, packet.size) {
            return Verdict::Dropped;
        }
        packet.enqueued_at = now;
        self.bytes += packet.size as u64;
        self.fifo.push_back(packet);
        Verdict::Queued
    }
    fn dequeue(&mut self, _now: SimTime, _dropped: &mut Vec<Packet>) -> Option<Dequeued> {
        self.pop().map(|packet| Dequeued { packet, mark: false })
    }
    fn len_packets(&self) -> usize {
        self.fifo.len()
    }
    fn len_bytes(&self) -> u64 {
        self.bytes
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::NameId;
    use crate::packet::Name;

    fn pkt(seg: u64, size: u32) -> Packet {
        Packet::interest(Name { prefix: NameId(0), seg }, size, 0, 0)
    }

    #[test]
    fn a_full_packet_queue_drops_the_newcomer_and_keeps_fifo_order() {
        let mut q = DropTail::new(Limit::Packets(2));
        assert_eq!(q.enqueue(pkt(1, 100), SimTime(0)), Verdict::Queued);
        assert_eq!(q.enqueue(pkt(2, 100), SimTime(0)), Verdict::Queued);
        assert_eq!(q.enqueue(pkt(3, 100), SimTime(0)), Verdict::Dropped);
        let mut d = Vec::new();
        assert_eq!(q.dequeue(SimTime(1), &mut d).unwrap().packet.name().unwrap().seg, 1);
        assert_eq!(q.dequeue(SimTime(1), &mut d).unwrap().packet.name().unwrap().seg, 2);
        assert!(q.dequeue(SimTime(1), &mut d).is_none());
    }

    #[test]
    fn a_byte_limit_counts_bytes_not_packets() {
        let mut q = DropTail::new(Limit::Bytes(1500));
        assert_eq!(q.enqueue(pkt(1, 1000), SimTime(0)), Verdict::Queued);
        assert_eq!(q.enqueue(pkt(2, 501), SimTime(0)), Verdict::Dropped);
        assert_eq!(q.enqueue(pkt(3, 500), SimTime(0)), Verdict::Queued);
        assert_eq!(q.len_bytes(), 1500);
        assert_eq!(q.len_packets(), 2);
    }
}
