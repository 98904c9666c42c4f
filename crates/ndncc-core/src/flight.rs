//! The packets on the wire of every link direction, in one pool.
//!
//! ```text
//!   pool slots:  [ A1 ]→[ A2 ]   [ B1 ]   [free]→[free]→…
//!   flight of link A: head A1, tail A2, 2 packets;  of link B: head B1, tail B1, 1 packet
//! ```
//!
//! Each link direction's flight is a FIFO list through the pool's slots, and a slot freed by an
//! arrival is the first taken by the next transmission. That packet is mostly the arrival
//! itself, forwarded on: it goes back into the slot it just left, a line still in the cache.
//! A ring per link direction wrote each packet sent to a slot of its own link's buffer, last
//! touched when that link last sent; in a world of a thousand flows that line had long left the
//! cache, and the write missed it (1.75 last-level misses a hop in `dumbbell-1000`).
//!
//! Only where a packet waits changes: each flight is in the order its packets were sent, as in
//! a ring, and what arrives when is the event queue's business.

use crate::column::Column;
use crate::packet::Packet;
use crate::time::SimTime;

/// No slot: the end of a list.
const NIL: u32 = u32::MAX;

/// The most slots the pool grows to (slot indices are `u32`, and `NIL` is not one): more
/// packets on the wire at once than that would be 400 GB of them.
const MAX_SLOTS: usize = NIL as usize;

/// One packet on the wire: its arrival time and order key (`EventQueue`'s sequence number),
/// and the next packet of its flight (or of the free list).
#[derive(Clone, Copy, Debug)]
pub struct InFlight {
    pub arrival: SimTime,
    pub seq: u64,
    pub packet: Packet,
    next: u32,
}

/// The packets on the wire of one link direction, in the order they were sent: a list through
/// a `FlightPool`'s slots (12 bytes in the link's egress, where a ring took 32).
#[derive(Clone, Copy, Debug)]
pub struct Flight {
    head: u32,
    tail: u32,
    len: u32,
}

impl Default for Flight {
    fn default() -> Self {
        Flight { head: NIL, tail: NIL, len: 0 }
    }
}

impl Flight {
    #[inline(always)]
    pub fn len(&self) -> usize {
        self.len as usize
    }
    #[inline(always)]
    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
    /// The pool slot of the front packet (`NIL` when empty).
    #[inline(always)]
    pub fn head_slot(&self) -> u32 {
        self.head
    }
    /// The pool slot of the back packet (`NIL` when empty).
    #[inline(always)]
    pub fn tail_slot(&self) -> u32 {
        self.tail
    }
}

/// The slots of every flight of a world, and a free list through the slots no flight holds.
/// A `Column`: a fast link's flight grows the pool to megabytes (`gbps-10`, 50,000 packets on
/// the wire), and past a mebibyte it grows without copying the packets already on the wire.
#[derive(Clone, Debug)]
pub struct FlightPool {
    slots: Column<InFlight>,
    /// The slot freed last, first to be taken again.
    free: u32,
}

impl Default for FlightPool {
    fn default() -> Self {
        FlightPool { slots: Column::default(), free: NIL }
    }
}

impl FlightPool {
    /// Put `packet` at the back of `flight`, to arrive at `arrival` with order key `seq`.
    #[inline(always)]
    pub fn push_back(&mut self, flight: &mut Flight, arrival: SimTime, seq: u64, packet: &Packet) {
        let at = match self.slots.get_mut(self.free as usize) {
            Some(slot) => {
                // Field by field, so that the packet is copied once, straight into its slot.
                let at = self.free;
                self.free = slot.next;
                (slot.arrival, slot.seq, slot.packet, slot.next) = (arrival, seq, *packet, NIL);
                at
            }
            None => self.grow(InFlight { arrival, seq, packet: *packet, next: NIL }),
        };
        if flight.len == 0 {
            flight.head = at;
        } else if let Some(tail) = self.slots.get_mut(flight.tail as usize) {
            tail.next = at;
        }
        flight.tail = at;
        flight.len += 1;
    }

    /// A new slot holding `value` (no slot is free).
    #[cold]
    #[inline(never)]
    fn grow(&mut self, value: InFlight) -> u32 {
        assert!(self.slots.len() < MAX_SLOTS, "more than {MAX_SLOTS} packets on the wire at once");
        self.slots.push(value);
        // Below `MAX_SLOTS`, checked above.
        (self.slots.len() - 1) as u32
    }

    /// Drop the front of `flight` (none: nothing happens); its slot is the next to be taken.
    /// A packet is taken by copying it from `front`, then this: a pop returning the packet
    /// copied it twice, into its `Option` and out again.
    #[inline(always)]
    pub fn drop_front(&mut self, flight: &mut Flight) {
        let at = flight.head;
        let Some(slot) = self.slots.get_mut(at as usize) else { return };
        flight.head = slot.next;
        slot.next = self.free;
        self.free = at;
        flight.len -= 1;
        if flight.len == 0 {
            flight.tail = NIL;
        }
    }

    #[inline(always)]
    pub fn front(&self, flight: &Flight) -> Option<&InFlight> {
        self.slots.get(flight.head as usize)
    }

    /// The packet in pool slot `at`, whichever flight holds it (none when the slot was never
    /// made): for a look ahead that knows the slot.
    #[inline(always)]
    pub fn slot(&self, at: u32) -> Option<&InFlight> {
        self.slots.get(at as usize)
    }

    #[inline(always)]
    pub fn back(&self, flight: &Flight) -> Option<&InFlight> {
        self.slots.get(flight.tail as usize)
    }

    /// The packets of `flight`, front to back.
    pub fn iter<'a>(&'a self, flight: &Flight) -> impl Iterator<Item = &'a InFlight> + 'a {
        let mut at = flight.head;
        std::iter::from_fn(move || {
            let slot = self.slots.get(at as usize)?;
            at = slot.next;
            Some(slot)
        })
    }

    /// Slots made so far: the most packets that were on the wire at once.
    pub fn slots(&self) -> usize {
        self.slots.len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::packet::Header;
    use std::collections::VecDeque;

    fn packet(size: u32) -> Packet {
        Packet::new(Header::LinkAck, size)
    }

    /// One step on one of a few flights.
    #[derive(Clone, Debug)]
    enum Op {
        Push(usize, u32),
        Pop(usize),
    }

    fn op() -> impl proptest::strategy::Strategy<Value = Op> {
        use proptest::prelude::*;
        prop_oneof![
            3 => (0usize..4, any::<u32>()).prop_map(|(f, v)| Op::Push(f, v)),
            2 => (0usize..4).prop_map(Op::Pop),
        ]
    }

    proptest::proptest! {
        /// Each flight holds what a `VecDeque` given the same operations holds, in the same
        /// order, however the flights' slots interleave in the pool; and the pool makes no
        /// more slots than the most packets there were at once.
        #[test]
        fn each_flight_is_a_fifo(ops in proptest::collection::vec(op(), 0..400)) {
            let mut pool = FlightPool::default();
            let mut flights = [Flight::default(); 4];
            let mut models: [VecDeque<u32>; 4] = Default::default();
            let mut most = 0;
            for (n, op) in ops.into_iter().enumerate() {
                match op {
                    Op::Push(f, v) => {
                        pool.push_back(&mut flights[f], SimTime(u64::from(v)), n as u64, &packet(v));
                        models[f].push_back(v);
                    }
                    Op::Pop(f) => {
                        let front = pool.front(&flights[f]).map(|s| s.arrival.0);
                        let got = pool.front(&flights[f]).map(|s| s.packet.size);
                        pool.drop_front(&mut flights[f]);
                        let want = models[f].pop_front();
                        proptest::prop_assert_eq!(got, want);
                        proptest::prop_assert_eq!(front, want.map(u64::from));
                    }
                }
                most = most.max(models.iter().map(VecDeque::len).sum::<usize>());
                for (flight, model) in flights.iter().zip(&models) {
                    proptest::prop_assert_eq!(flight.len(), model.len());
                    let listed: Vec<u32> = pool.iter(flight).map(|s| s.packet.size).collect();
                    proptest::prop_assert_eq!(&listed, &model.iter().copied().collect::<Vec<_>>());
                    proptest::prop_assert_eq!(pool.front(flight).map(|s| s.packet.size), model.front().copied());
                    proptest::prop_assert_eq!(pool.back(flight).map(|s| s.packet.size), model.back().copied());
                }
            }
            proptest::prop_assert_eq!(pool.slots(), most);
        }
    }

    #[test]
    fn a_freed_slot_is_the_next_taken() {
        let (mut pool, mut a, mut b) = (FlightPool::default(), Flight::default(), Flight::default());
        pool.push_back(&mut a, SimTime(1), 0, &packet(1));
        pool.push_back(&mut a, SimTime(2), 1, &packet(2));
        let first = pool.front(&a).map(|s| s as *const InFlight);
        pool.drop_front(&mut a);
        pool.push_back(&mut b, SimTime(3), 2, &packet(3));
        assert_eq!(pool.front(&b).map(|s| s as *const InFlight), first);
        assert_eq!(pool.slots(), 2);
    }
}
