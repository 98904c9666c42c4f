//! Pending Interest Table: one entry per exact name, remembering which downstream faces asked
//! (in-records) and where the Interest went (out-records).
//!
//! Expiry is lazy: every insert or refresh records (expiry, name); the forwarder sweeps at the
//! earliest recorded expiry and skips items whose entry is gone or was refreshed. Lifetimes are
//! nearly always uniform, so records arrive in expiry order and live in a FIFO; the rare record
//! that would break the order (a shorter lifetime) goes to a small min-heap instead.

use std::cmp::Reverse;
use std::collections::BinaryHeap;

use std::hash::Hasher;

use super::fib::FibEntryId;
use super::pit_index::PitIndex;
use crate::ids::FaceId;
use crate::packet::{Header, LinkFields, NackReason, Name, Ndn, NdnKind, Packet};
use crate::ring::Ring;
use crate::time::SimTime;

#[derive(Clone, Copy, Debug)]
pub struct InRecord {
    pub face: FaceId,
    pub nonce: u32,
    pub expiry: SimTime,
}

#[derive(Clone, Copy, Debug)]
pub struct OutRecord {
    pub face: FaceId,
    pub nonce: u32,
    pub sent_at: SimTime,
    pub nacked: Option<NackReason>,
}

/// A PIT entry: its in-records (the downstreams that asked, in the order they did) and
/// out-records (where the Interest went, in order). A list of one record keeps it inline; a
/// longer one lives in a box the entry's two lists share. Most entries have one of each, and
/// so an entry is 64 bytes, one cache line, where two of each inline took 120: a Data reads
/// its entry, and in a large world that entry was last touched a round trip before.
#[derive(Clone, Debug)]
pub struct PitEntry {
    first_in: InRecord,
    first_out: OutRecord,
    /// When the whole entry expires (latest in-record expiry).
    pub expiry: SimTime,
    /// The lists of more than one record.
    more: Option<Box<MoreRecords>>,
    /// The FIB entry the Interest was forwarded by (`NO_FIB_ENTRY`: none).
    fib_entry: FibEntryId,
    /// Where each list is: `NONE`, `INLINE` (its one record in `first_in` or `first_out`) or
    /// `SPILLED` (in `more`).
    ins: u8,
    outs: u8,
    /// PCON both-direction rule: the Interest left on a face whose queue was marking, so the
    /// Data answering it is marked on its way back.
    pub marked: bool,
}

/// The lists of an entry that outgrew one record (aggregation, multipath, a retry on another
/// face): each holds all of its list's records once spilled, and nothing before.
#[derive(Clone, Debug, Default)]
struct MoreRecords {
    ins: Vec<InRecord>,
    outs: Vec<OutRecord>,
}

/// Where a list of records is (`PitEntry::ins`, `PitEntry::outs`).
const NONE: u8 = 0;
const INLINE: u8 = 1;
const SPILLED: u8 = 2;

/// `PitEntry::fib_entry` of an entry without one (a FIB never has 2^32 - 1 entries).
const NO_FIB_ENTRY: FibEntryId = FibEntryId::MAX;

/// What an empty list's inline place holds (never read).
const NO_IN_RECORD: InRecord = InRecord { face: FaceId(0), nonce: 0, expiry: SimTime::ZERO };
const NO_OUT_RECORD: OutRecord = OutRecord { face: FaceId(0), nonce: 0, sent_at: SimTime::ZERO, nacked: None };

/// The records of a list at `at` (`NONE`, `INLINE`, `SPILLED`) whose inline place is `first`
/// and whose spilled records, if any, are `spilled`.
#[inline(always)]
fn records<'a, T>(at: u8, first: &'a T, spilled: impl FnOnce() -> Option<&'a [T]>) -> &'a [T] {
    match at {
        INLINE => std::slice::from_ref(first),
        SPILLED => spilled().unwrap_or(&[]),
        _ => &[],
    }
}

/// The last Interest received for a PIT entry's name (the template for NACKs and retries),
/// kept without the name, which is the entry's key: 48 bytes rather than a whole `Packet`'s 80.
/// Every field but the name is kept, so `packet` gives back exactly the packet `of` was given.
/// The PIT keeps it beside the entry rather than in it (`Pit::get_with_interest`): only NACKs
/// read it, and an entry without it is 64 bytes, one cache line, where a Data touches it.
#[derive(Clone, Copy, Debug)]
pub struct PitInterest {
    enqueued_at: SimTime,
    lifetime_ns: u64,
    rate: f64,
    link: LinkFields,
    size: u32,
    nonce: u32,
    kind: NdnKind,
    mark: u8,
    hops: u8,
    route: u8,
}

impl PitInterest {
    /// `packet`, whose NDN header is `h`, without its name.
    #[inline]
    pub fn of(packet: &Packet, h: &Ndn) -> PitInterest {
        PitInterest {
            enqueued_at: packet.enqueued_at,
            lifetime_ns: h.lifetime_ns,
            rate: h.rate,
            link: packet.link,
            size: packet.size,
            nonce: h.nonce,
            kind: h.kind,
            mark: packet.mark,
            hops: packet.hops,
            route: packet.route,
        }
    }

    /// The packet again, named `name`.
    pub fn packet(&self, name: Name) -> Packet {
        let ndn = Ndn { kind: self.kind, name, nonce: self.nonce, lifetime_ns: self.lifetime_ns, rate: self.rate };
        Packet {
            size: self.size,
            mark: self.mark,
            hops: self.hops,
            route: self.route,
            link: self.link,
            enqueued_at: self.enqueued_at,
            header: Header::Ndn(ndn),
        }
    }
}

impl PitEntry {
    /// An entry without records, expiring at `expiry`, forwarded by `fib_entry`.
    #[inline]
    pub fn new(expiry: SimTime, fib_entry: Option<FibEntryId>) -> PitEntry {
        let mut e = PitEntry {
            first_in: NO_IN_RECORD,
            first_out: NO_OUT_RECORD,
            expiry,
            more: None,
            fib_entry: NO_FIB_ENTRY,
            ins: NONE,
            outs: NONE,
            marked: false,
        };
        e.set_fib_entry(fib_entry);
        e
    }
    /// The entry an Interest makes: its one in-record `first`, expiring with it, forwarded by
    /// `fib_entry`.
    #[inline]
    pub fn from_interest(first: InRecord, fib_entry: Option<FibEntryId>) -> PitEntry {
        PitEntry { first_in: first, ins: INLINE, ..PitEntry::new(first.expiry, fib_entry) }
    }
    pub fn fib_entry(&self) -> Option<FibEntryId> {
        (self.fib_entry != NO_FIB_ENTRY).then_some(self.fib_entry)
    }
    pub fn set_fib_entry(&mut self, fib_entry: Option<FibEntryId>) {
        self.fib_entry = fib_entry.filter(|&f| f != NO_FIB_ENTRY).unwrap_or(NO_FIB_ENTRY);
    }
    /// The in-records, in the order the downstreams asked.
    #[inline]
    pub fn in_records(&self) -> &[InRecord] {
        records(self.ins, &self.first_in, || self.more.as_deref().map(|m| &m.ins[..]))
    }
    /// The out-records, in the order the Interest went out.
    #[inline]
    pub fn out_records(&self) -> &[OutRecord] {
        records(self.outs, &self.first_out, || self.more.as_deref().map(|m| &m.outs[..]))
    }
    #[inline]
    pub fn push_in(&mut self, r: InRecord) {
        match self.ins {
            NONE => (self.first_in, self.ins) = (r, INLINE),
            _ => spill(&mut self.ins, self.first_in, &mut self.more.get_or_insert_with(Box::default).ins, r),
        }
    }
    #[inline]
    pub fn push_out(&mut self, r: OutRecord) {
        match self.outs {
            NONE => (self.first_out, self.outs) = (r, INLINE),
            _ => spill(&mut self.outs, self.first_out, &mut self.more.get_or_insert_with(Box::default).outs, r),
        }
    }
    /// Keep only the in-records `keep` says yes to, in order.
    pub fn retain_in(&mut self, mut keep: impl FnMut(&InRecord) -> bool) {
        match self.ins {
            INLINE if !keep(&self.first_in) => self.ins = NONE,
            SPILLED => {
                if let Some(m) = self.more.as_deref_mut() {
                    m.ins.retain(|r| keep(r));
                }
            }
            _ => {}
        }
    }
    pub fn has_nonce(&self, nonce: u32) -> bool {
        self.in_records().iter().any(|r| r.nonce == nonce) || self.out_records().iter().any(|r| r.nonce == nonce)
    }
    pub fn in_record_mut(&mut self, face: FaceId) -> Option<&mut InRecord> {
        match self.ins {
            INLINE => Some(&mut self.first_in).filter(|r| r.face == face),
            SPILLED => self.more.as_deref_mut()?.ins.iter_mut().find(|r| r.face == face),
            _ => None,
        }
    }
    #[inline(always)]
    pub fn out_record_mut(&mut self, face: FaceId) -> Option<&mut OutRecord> {
        match self.outs {
            INLINE => Some(&mut self.first_out).filter(|r| r.face == face),
            SPILLED => self.more.as_deref_mut()?.outs.iter_mut().find(|r| r.face == face),
            _ => None,
        }
    }
    /// Every out-record has been answered by a NACK.
    pub fn all_nacked(&self) -> bool {
        let outs = self.out_records();
        !outs.is_empty() && outs.iter().all(|r| r.nacked.is_some())
    }
}

/// Add `r` to a list of records at `at` (`INLINE` or `SPILLED`) whose inline record is
/// `first` and whose boxed records are `boxed`: all of them end up in the box.
#[cold]
fn spill<T: Copy>(at: &mut u8, first: T, boxed: &mut Vec<T>, r: T) {
    if *at == INLINE {
        boxed.push(first);
        *at = SPILLED;
    }
    boxed.push(r);
}

/// The PIT's hash of a name (`pit_hash.rs`, whose low bits pick the bucket): a mix of the
/// prefix plus the segment number times a small stride. A consumer asks for segments in order
/// and their Data come back in order, so inserts and removals walk the table as two streams a
/// fixed step apart, which the processor prefetches, instead of jumping about it: at 10 Gbit/s
/// a router holds 50,000 entries, and a random bucket was a cache miss per lookup (`gbps-10`
/// runs 45% faster per hop). The table is never iterated, so where names lie cannot change a
/// result.
#[derive(Default)]
pub struct SegmentHasher {
    prefix: u64,
    seg: u64,
}

/// Expiry records that arrived out of order, earliest on top.
type OutOfOrder = BinaryHeap<Reverse<(SimTime, Name)>>;

/// Pending entries from which the PIT takes slots in ring order rather than last freed first
/// (about 1 MB of entries: beyond, the cache no longer holds them all).
const RING_FROM: u32 = 8192;

/// Buckets between consecutive segments: a window of a prefix's segments then leaves the
/// buckets between them free, so that a name that lands among them finds its own, or an empty
/// one, within a probe or two rather than at the end of a run of the window's names.
const SEGMENT_STRIDE: u64 = 17;

impl Hasher for SegmentHasher {
    #[inline]
    fn write_u32(&mut self, prefix: u32) {
        self.prefix = u64::from(prefix);
    }
    #[inline]
    fn write_u64(&mut self, seg: u64) {
        self.seg = seg;
    }
    /// Any other input (not a `Name`'s) is folded into the segment.
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.seg = self.seg.rotate_left(8) ^ u64::from(b);
        }
    }
    #[inline]
    fn finish(&self) -> u64 {
        // Fibonacci hashing: the product's high half is well spread for consecutive prefix
        // numbers, and the rotation brings it down to the bits that pick the bucket.
        let base = self.prefix.wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(32);
        base.wrapping_add(self.seg.wrapping_mul(SEGMENT_STRIDE))
    }
}

#[derive(Debug)]
pub struct Pit {
    /// Where each pending name's entry lies in `slots` (a few names inline, more hashed).
    index: PitIndex,
    /// The entries, each made and read where it lies: a hash table of whole entries would move
    /// them in and out of its buckets on every insert and removal (with entries of 168 bytes,
    /// about 5% of a packet hop's instructions), where these buckets hold a name and a slot
    /// number.
    ///
    /// A small table reuses the slot freed last, which is still in the cache. A large one takes
    /// slots in ring order (`cursor`): entries made one after another then lie one after
    /// another, and the Data answering them, which come back in about the same order, read them
    /// as a stream the processor prefetches. (Last-freed-first reuse scatters a flow's entries
    /// once a few losses have shuffled the free list: with it `gbps-10`, 50,000 entries a
    /// router, ran at 180 ns a hop for 16 s and at 400 to 470 after; in ring order it stays
    /// near 200.)
    slots: Vec<Option<PitEntry>>,
    /// The kept Interest of each slot's entry (stale in a free slot): as many as there are
    /// slots, so a boxed slice (16 bytes of the node, where a `Vec` took 24).
    interests: Box<[PitInterest]>,
    /// Slots freed while the table is small, last freed on top. A slot here is free: the ring
    /// order, which takes slots without looking here, is used only while this is empty (a
    /// table grows to `ring_from` entries only by inserts, which empty it first).
    free: Vec<usize>,
    /// The slot the ring-order search for a free one starts at.
    cursor: u32,
    /// `RING_FROM`, smaller in tests so that they switch between the two orders.
    ring_from: u32,
    /// Expiry records in non-decreasing time order.
    in_order: Ring<(SimTime, Name)>,
    /// Expiry records that arrived out of order: boxed, made by the first (most PITs never
    /// have one, and inline the heap pushed what follows it in a node a line further out).
    out_of_order: Option<Box<OutOfOrder>>,
}

/// How many expiry records ahead of the one it checks `drop_stale_records` starts loading the
/// bucket of.
const SWEEP_AHEAD: usize = 8;

impl Default for Pit {
    fn default() -> Pit {
        Pit {
            index: PitIndex::default(),
            slots: Vec::new(),
            interests: Box::default(),
            free: Vec::new(),
            cursor: 0,
            ring_from: RING_FROM,
            in_order: Ring::new(),
            out_of_order: None,
        }
    }
}

/// Where a pending entry lies in the table: the forwarder reads and changes the entry through
/// this (`at`, `at_mut`) rather than probing the index again. It stays good while the entry is
/// pending. Once the entry is removed, its slot is empty and `at` finds nothing; an empty slot
/// is filled again only by `insert`, which the forwarder never calls while it holds a
/// `PitRef` of the same node.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PitRef {
    slot: usize,
}

/// What the PIT held for `name` when it was looked up (or when the entry was made): the
/// forwarder carries this with a packet, so that the packet's entry is looked up once, and
/// again only if a router module renames the packet on the way (`Pit::locate`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PitLookup {
    pub name: Name,
    pub found: Option<PitRef>,
}

impl Pit {
    /// Start loading where a lookup of `name` reads first.
    #[inline(always)]
    pub fn prefetch_lookup(&self, name: &Name) {
        self.index.prefetch(name);
    }
    /// Start loading what an insert writes besides the index: the slot it takes, its kept
    /// Interest and the back of the expiry records. (Worth it only in a large table, which
    /// the caller knows: a small one is in the cache with the node.)
    #[inline(always)]
    pub fn prefetch_insert(&self) {
        use crate::prefetch::prefetch;
        let next = if self.index.len() < self.ring_from as usize {
            self.free.last().copied()
        } else {
            Some(self.cursor as usize)
        };
        if let Some(i) = next {
            if let Some(s) = self.slots.get(i) {
                prefetch(s);
            }
            if let Some(k) = self.interests.get(i) {
                prefetch(k);
            }
        }
        if let Some(r) = self.in_order.back() {
            prefetch(r);
        }
    }
    /// What the PIT holds for `name`.
    #[inline]
    pub fn lookup(&self, name: &Name) -> PitLookup {
        PitLookup { name: *name, found: self.index.get(name).map(|slot| PitRef { slot }) }
    }
    /// Where `name`'s entry lies: as `known` found it, when that was a lookup of `name`; else
    /// looked up afresh.
    #[inline]
    pub fn locate(&self, known: PitLookup, name: &Name) -> Option<PitRef> {
        if known.name == *name {
            known.found
        } else {
            self.lookup(name).found
        }
    }
    /// The entry `r` points at, unless it has been removed since.
    #[inline]
    pub fn at(&self, r: PitRef) -> Option<&PitEntry> {
        self.slots.get(r.slot)?.as_ref()
    }
    /// The entry `r` points at, unless it has been removed since.
    #[inline]
    pub fn at_mut(&mut self, r: PitRef) -> Option<&mut PitEntry> {
        self.slots.get_mut(r.slot)?.as_mut()
    }
    /// The entry `r` points at with its kept Interest, unless it has been removed since.
    pub fn at_with_interest(&self, r: PitRef) -> Option<(&PitEntry, &PitInterest)> {
        Some((self.slots.get(r.slot)?.as_ref()?, self.interests.get(r.slot)?))
    }
    /// The entry `r` points at with its kept Interest, unless it has been removed since.
    #[inline]
    pub fn at_mut_with_interest(&mut self, r: PitRef) -> Option<(&mut PitEntry, &mut PitInterest)> {
        Some((self.slots.get_mut(r.slot)?.as_mut()?, self.interests.get_mut(r.slot)?))
    }
    #[inline]
    pub fn get(&self, name: &Name) -> Option<&PitEntry> {
        let i = self.index.get(name)?;
        self.slots[i].as_ref()
    }
    #[inline]
    pub fn get_mut(&mut self, name: &Name) -> Option<&mut PitEntry> {
        let i = self.index.get(name)?;
        self.slots[i].as_mut()
    }
    /// Add the entry for `name`, which has none, with the Interest that made it; return what a
    /// lookup of `name` now finds.
    pub fn insert(&mut self, name: Name, entry: PitEntry, interest: PitInterest) -> PitLookup {
        self.note_expiry(name, entry.expiry);
        let i = self.free_slot(interest);
        // `free_slot` gives a free slot. Filled only when found free, it takes the entry
        // without the drop of an old one (4 instructions a hop in dumbbell-1).
        match self.slots.get_mut(i) {
            Some(slot @ None) => *slot = Some(entry),
            _ => debug_assert!(false, "slot {i} is not free"),
        }
        self.interests[i] = interest;
        if let Some(old) = self.index.insert(name, i) {
            // Callers insert only names without an entry; keep the table whole if one did not.
            self.release(old);
        }
        PitLookup { name, found: Some(PitRef { slot: i }) }
    }
    /// A free slot: the one freed last while the table is small, else the next in ring order.
    /// A large table's ring is kept at most seven eighths full (as the hash table is), so the
    /// search is short; `filler` fills the kept Interests of new slots.
    fn free_slot(&mut self, filler: PitInterest) -> usize {
        let len = self.index.len();
        let small = len < self.ring_from as usize;
        if small {
            if let Some(i) = self.free.pop() {
                debug_assert!(self.slots[i].is_none(), "a slot on the free list is free");
                return i;
            }
        }
        let n = self.slots.len();
        // A small table finds its free slots on the free list, or at the cursor when none was
        // ever freed (its slots are taken in cursor order before any is freed), so it fills
        // every slot before it grows; a large one keeps an eighth free for the search.
        let full = if small { len + 1 > n } else { 8 * (len + 1) > 7 * n };
        if full {
            // Two slots to start with: most nodes of a large world are a consumer's or a
            // producer's and hold one to three pending Interests (a window of two, in the
            // scale benchmarks). Sixteen slots (2.7 kB with their kept Interests) for each were
            // a sixth of the memory a flow added, and four, at seven eighths, 448 bytes where
            // two pending Interests need 224.
            let grown = (2 * n).max(2);
            // Exactly: a vector's first allocation is of four at least.
            self.slots.reserve_exact(grown - n);
            self.slots.resize_with(grown, || None);
            let mut interests = std::mem::take(&mut self.interests).into_vec();
            interests.resize(grown, filler);
            self.interests = interests.into_boxed_slice();
        }
        let n = self.slots.len();
        loop {
            let i = self.cursor as usize;
            // Below the slots' count, which the index keeps under 2^32 (`PitHash::insert`).
            self.cursor = if i + 1 == n { 0 } else { u32::try_from(i + 1).unwrap_or(0) };
            if self.slots[i].is_none() {
                return i;
            }
        }
    }
    #[inline]
    pub fn remove(&mut self, name: &Name) -> Option<PitEntry> {
        let i = self.index.remove(name)?;
        self.release(i)
    }
    /// Remove `name`'s entry and return it with its kept Interest.
    pub fn remove_with_interest(&mut self, name: &Name) -> Option<(PitEntry, PitInterest)> {
        let i = self.index.remove(name)?;
        let kept = self.interests[i];
        Some((self.release(i)?, kept))
    }
    #[inline]
    fn release(&mut self, i: usize) -> Option<PitEntry> {
        if self.index.len() < self.ring_from as usize {
            self.free.push(i);
        }
        self.slots[i].take()
    }
    /// Record that `name`'s entry now expires at `at` (after a refresh). Always inline: every
    /// new entry notes its expiry, and as a call it paid a frame for a push.
    #[inline(always)]
    pub fn note_expiry(&mut self, name: Name, at: SimTime) {
        if self.in_order.back().is_none_or(|(t, _)| *t <= at) {
            self.in_order.push_back((at, name));
        } else {
            self.out_of_order.get_or_insert_with(Box::default).push(Reverse((at, name)));
        }
        // Records of entries satisfied long before their expiry pile up at high Interest
        // rates; drop them once they outnumber the live entries, so memory follows what is
        // pending rather than Interest rate × lifetime. The same for the out-of-order records
        // (shorter lifetimes among longer ones): a sweep pops every one that falls due, and
        // millions of stale ones made one sweep seconds of work.
        let most = 2 * self.index.len() + 1024;
        if self.in_order.len() > most || self.out_of_order_len() > most {
            self.drop_stale_records();
        }
    }
    /// Drop the expiry records whose entry is gone or was refreshed since (every live entry
    /// keeps the record of its current expiry).
    #[inline(never)]
    fn drop_stale_records(&mut self) {
        /// Whether the record (`t`, `n`) is the current one of a live entry. Inline in both
        /// loops: as a call of its own it was half the cost of a record.
        #[inline(always)]
        fn live(index: &PitIndex, slots: &[Option<PitEntry>], t: SimTime, n: &Name) -> bool {
            index.get(n).and_then(|i| slots[i].as_ref()).is_some_and(|e| e.expiry == t)
        }
        let (index, slots) = (&self.index, &self.slots);
        // Each record looks its name up, and in a table larger than the first-level cache the
        // buckets are scattered out of it: start loading the bucket of the record a few places
        // on. (A smaller table is in the cache after the first few lookups, and there the
        // look ahead only doubled the cost of a record's hash: 19 instructions a hop in
        // `dumbbell-1`, whose routers keep a table of 1,024 buckets.)
        if index.buckets() > 1024 {
            self.in_order
                .retain_looking_ahead::<SWEEP_AHEAD>(|(_, n)| index.prefetch(n), |(t, n)| live(index, slots, *t, n));
        } else {
            self.in_order.retain(|(t, n)| live(index, slots, *t, n));
        }
        if let Some(heap) = self.out_of_order.as_mut() {
            heap.retain(|Reverse((t, n))| live(index, slots, *t, n));
        }
    }
    /// Expiry records kept out of order.
    fn out_of_order_len(&self) -> usize {
        self.out_of_order.as_ref().map_or(0, |h| h.len())
    }
    /// The earliest of the expiry records kept out of order.
    fn out_of_order_first(&self) -> Option<(SimTime, Name)> {
        self.out_of_order.as_ref().and_then(|h| h.peek()).map(|Reverse(r)| *r)
    }
    pub fn len(&self) -> usize {
        self.index.len()
    }
    /// Whether the index is a hash table (more than `INLINE` names were once pending at once).
    #[inline(always)]
    pub fn is_hashed(&self) -> bool {
        self.index.is_hashed()
    }
    /// The bytes of the index's hash table; zero while its names are inline.
    pub fn index_bytes(&self) -> usize {
        self.index.buckets().saturating_mul(super::pit_hash::BUCKET_BYTES)
    }
    pub fn is_empty(&self) -> bool {
        self.index.is_empty()
    }
    /// The oldest expiry record kept in order: what a sweep reads first.
    #[inline]
    pub fn oldest_record(&self) -> Option<&(SimTime, Name)> {
        self.in_order.front()
    }
    /// The earliest time something may expire.
    pub fn next_expiry(&self) -> Option<SimTime> {
        let a = self.in_order.front().map(|(t, _)| *t);
        let b = self.out_of_order_first().map(|(t, _)| t);
        match (a, b) {
            (Some(x), Some(y)) => Some(x.min(y)),
            (x, y) => x.or(y),
        }
    }
    /// Remove and return every entry whose expiry is at or before `now`.
    pub fn take_expired(&mut self, now: SimTime, out: &mut Vec<(Name, PitEntry)>) {
        while let Some(&(t, name)) = self.in_order.front() {
            if t > now {
                break;
            }
            self.in_order.pop_front();
            self.take_if_expired(name, now, out);
        }
        while let Some((t, name)) = self.out_of_order_first() {
            if t > now {
                break;
            }
            if let Some(heap) = self.out_of_order.as_mut() {
                heap.pop();
            }
            self.take_if_expired(name, now, out);
        }
    }
    fn take_if_expired(&mut self, name: Name, now: SimTime, out: &mut Vec<(Name, PitEntry)>) {
        if let Some(e) = self.take_if_stale(&name, now) {
            out.push((name, e));
        }
    }
    /// Remove and return `name`'s entry if it has expired by `now`; a live entry stays.
    fn take_if_stale(&mut self, name: &Name, now: SimTime) -> Option<PitEntry> {
        if self.get(name).is_some_and(|e| e.expiry <= now) {
            self.remove(name)
        } else {
            None
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ids::NameId;

    fn entry(expiry: u64) -> PitEntry {
        PitEntry::new(SimTime(expiry), None)
    }

    fn kept(seg: u64) -> PitInterest {
        let p = Packet::interest(Name { prefix: NameId(0), seg }, 40, seg as u32, 0);
        PitInterest::of(&p, p.ndn().unwrap())
    }

    proptest::proptest! {
        /// An entry's records are the lists a `Vec` each given the same pushes and removals
        /// holds, in the same order, across the move of a list to the box; looking a record up
        /// by face, a nonce, and whether all were NACKed answer as on those lists.
        #[test]
        fn an_entry_s_records_are_two_ordered_lists(
            ops in proptest::collection::vec((0u8..4, 0u32..4, 0u32..6), 0..40),
        ) {
            let mut e = PitEntry::new(SimTime(1), Some(7));
            let (mut ins, mut outs): (Vec<InRecord>, Vec<OutRecord>) = (Vec::new(), Vec::new());
            for (op, face, nonce) in ops {
                let face = FaceId(face);
                match op {
                    0 => {
                        let r = InRecord { face, nonce, expiry: SimTime(u64::from(nonce)) };
                        e.push_in(r);
                        ins.push(r);
                    }
                    1 => {
                        let r = OutRecord { face, nonce, sent_at: SimTime(u64::from(nonce)), nacked: None };
                        e.push_out(r);
                        outs.push(r);
                    }
                    2 => {
                        e.retain_in(|r| r.face != face);
                        ins.retain(|r| r.face != face);
                    }
                    _ => {
                        if let Some(r) = e.out_record_mut(face) {
                            r.nacked = Some(NackReason::Congestion);
                        }
                        if let Some(r) = outs.iter_mut().find(|r| r.face == face) {
                            r.nacked = Some(NackReason::Congestion);
                        }
                    }
                }
                let key_in = |r: &InRecord| (r.face, r.nonce, r.expiry);
                let key_out = |r: &OutRecord| (r.face, r.nonce, r.sent_at, r.nacked);
                proptest::prop_assert!(e.in_records().iter().map(key_in).eq(ins.iter().map(key_in)));
                proptest::prop_assert!(e.out_records().iter().map(key_out).eq(outs.iter().map(key_out)));
                proptest::prop_assert_eq!(e.in_record_mut(face).map(|r| r.nonce), ins.iter().find(|r| r.face == face).map(|r| r.nonce));
                proptest::prop_assert_eq!(
                    e.has_nonce(nonce),
                    ins.iter().any(|r| r.nonce == nonce) || outs.iter().any(|r| r.nonce == nonce)
                );
                proptest::prop_assert_eq!(e.all_nacked(), !outs.is_empty() && outs.iter().all(|r| r.nacked.is_some()));
                proptest::prop_assert_eq!(e.fib_entry(), Some(7));
            }
        }
    }

    #[test]
    fn an_entry_takes_one_cache_line_and_its_interest_48_bytes() {
        assert!(std::mem::size_of::<PitInterest>() <= 48);
        assert_eq!(std::mem::size_of::<Option<PitEntry>>(), 64);
    }

    proptest::proptest! {
        /// A packet kept in an entry comes back exactly as it was, whatever its fields.
        #[test]
        fn a_kept_interest_comes_back_exactly(
            size in 0u32..10_000, nonce: u32, lifetime_ns: u64, mark: u8, hops: u8, route: u8,
            tx_seq: u32, ack: u32, enqueued_at: u64, seg: u64, prefix in 0u32..100,
            rate in proptest::prop_oneof![proptest::strategy::Just(f64::INFINITY), 0.0f64..1e9],
            kind in 0usize..3,
        ) {
            let name = Name { prefix: NameId(prefix), seg };
            let kind = [NdnKind::Interest, NdnKind::Data, NdnKind::Nack(NackReason::Congestion)][kind];
            let mut p = Packet::interest(name, size, nonce, lifetime_ns);
            if let Header::Ndn(h) = &mut p.header {
                h.rate = rate;
                h.kind = kind;
            }
            p.mark = mark;
            p.hops = hops;
            p.route = route;
            p.link = LinkFields { tx_seq, ack };
            p.enqueued_at = SimTime(enqueued_at);
            let h = *p.ndn().unwrap();
            let kept = PitInterest::of(&p, &h);
            proptest::prop_assert_eq!(kept.packet(name), p);
        }
    }

    proptest::proptest! {
        /// Entries and their kept Interests stay with their names whatever the order of
        /// inserts, refreshes and removals, while freed slots are reused: the table answers as
        /// a plain map would.
        #[test]
        fn entries_stay_with_their_names_as_slots_are_reused(
            ops in proptest::collection::vec((0u8..3, 0u64..12, 0u64..1000), 1..200),
            ring_from in proptest::prop_oneof![proptest::strategy::Just(0u32), 1u32..12, proptest::strategy::Just(RING_FROM)],
        ) {
            let nonce = |k: &PitInterest, name| k.packet(name).ndn().unwrap().nonce;
            let mut pit = Pit { ring_from, ..Pit::default() };
            // name -> (expiry, nonce of the kept Interest)
            let mut model = std::collections::HashMap::new();
            for (op, seg, t) in ops {
                let name = Name { prefix: NameId(0), seg };
                match op {
                    0 if !model.contains_key(&name) => {
                        pit.insert(name, entry(t), kept(seg));
                        model.insert(name, (t, seg as u32));
                    }
                    1 => {
                        let got = pit.remove(&name).map(|e| e.expiry.0);
                        proptest::prop_assert_eq!(got, model.remove(&name).map(|(t, _)| t));
                    }
                    _ => {
                        if let Some((e, k)) = pit.lookup(&name).found.and_then(|r| pit.at_mut_with_interest(r)) {
                            e.expiry = SimTime(t);
                            *k = kept(t);
                            model.insert(name, (t, t as u32));
                        }
                    }
                }
                proptest::prop_assert_eq!(pit.len(), model.len());
                for seg in 0..12 {
                    let name = Name { prefix: NameId(0), seg };
                    let got = pit.lookup(&name).found.and_then(|r| pit.at_with_interest(r)).map(|(e, k)| (e.expiry.0, nonce(k, name)));
                    proptest::prop_assert_eq!(got, model.get(&name).copied());
                }
            }
            // Twelve names at most: the ring never needs more than 16 slots.
            proptest::prop_assert!(pit.slots.len() <= 16);
        }
    }

    #[test]
    fn a_prefix_s_segments_hash_a_stride_apart() {
        use std::hash::{BuildHasher, BuildHasherDefault};
        let hash =
            |prefix, seg| BuildHasherDefault::<SegmentHasher>::default().hash_one(Name { prefix: NameId(prefix), seg });
        for seg in 0..1000u64 {
            assert_eq!(hash(7, seg + 1).wrapping_sub(hash(7, seg)), SEGMENT_STRIDE, "segment {seg}");
        }
        // Prefixes start far apart, so their windows do not overlap.
        let starts: Vec<u64> = (0..64).map(|p| hash(p, 0) & 0xFFFF).collect();
        let close = starts.iter().enumerate().flat_map(|(i, a)| starts[i + 1..].iter().map(move |b| a.abs_diff(*b)));
        assert!(close.filter(|d| *d < 16).count() < 4);
    }

    /// A lookup carried with a packet answers for the name it looked up, even after that entry
    /// is gone; a renamed packet is looked up afresh.
    #[test]
    fn a_lookup_answers_for_its_own_name_and_a_renamed_packet_looks_again() {
        let mut pit = Pit::default();
        let (a, b) = (Name { prefix: NameId(0), seg: 1 }, Name { prefix: NameId(0), seg: 2 });
        let made_a = pit.insert(a, entry(100), kept(1));
        let looked_b = pit.lookup(&b);
        assert_eq!(looked_b.found, None);
        pit.insert(b, entry(200), kept(2));
        // What was known for `a` still answers for `a`; for `b` the PIT is asked again.
        assert_eq!(pit.locate(made_a, &a), made_a.found);
        let b_now = pit.locate(made_a, &b);
        assert_eq!(b_now.and_then(|r| pit.at(r)).map(|e| e.expiry), Some(SimTime(200)));
        // A lookup of `b` made before its entry still says it had none: nothing was inserted
        // while the forwarder held it.
        assert_eq!(pit.locate(looked_b, &b), None);
        // Once `a`'s entry is removed, its slot holds nothing.
        pit.remove(&a);
        assert!(made_a.found.and_then(|r| pit.at(r)).is_none());
    }

    #[test]
    fn only_entries_past_their_latest_expiry_are_taken() {
        let mut pit = Pit::default();
        let a = Name { prefix: NameId(0), seg: 1 };
        let b = Name { prefix: NameId(0), seg: 2 };
        pit.insert(a, entry(100), kept(1));
        pit.insert(b, entry(100), kept(2));
        // b is refreshed to 300 before the sweep: its stale heap item must be skipped.
        pit.get_mut(&b).unwrap().expiry = SimTime(300);
        pit.note_expiry(b, SimTime(300));
        let mut out = Vec::new();
        pit.take_expired(SimTime(150), &mut out);
        assert_eq!(out.len(), 1);
        assert_eq!(out[0].0, a);
        assert_eq!(pit.next_expiry(), Some(SimTime(300)));
        out.clear();
        pit.take_expired(SimTime(300), &mut out);
        assert_eq!(out.len(), 1);
        assert!(pit.is_empty());
    }

    #[test]
    fn stale_records_of_short_lifetimes_among_long_ones_are_dropped_as_they_pile_up() {
        // One entry lives to 1,000,000; a million short-lived ones (expiring at 100 + i) come and
        // are satisfied at once. Their records are out of order (before the long one's), and
        // would pile up to a million for one sweep to pop; they stay near the live count.
        let mut pit = Pit::default();
        let long = Name { prefix: NameId(0), seg: 0 };
        pit.insert(long, entry(1_000_000), kept(0));
        for i in 1..1_000_000u64 {
            let n = Name { prefix: NameId(1), seg: i };
            pit.insert(n, entry(100 + i), kept(i));
            pit.remove(&n);
        }
        assert!(pit.out_of_order_len() <= 2 * pit.len() + 1024 + 1, "{}", pit.out_of_order_len());
        let mut out = Vec::new();
        pit.take_expired(SimTime(2_000_000), &mut out);
        assert_eq!(out.iter().map(|(n, _)| *n).collect::<Vec<_>>(), vec![long]);
        assert!(pit.is_empty() && pit.next_expiry().is_none());
    }

    #[test]
    fn a_satisfied_entry_leaves_only_a_stale_heap_item() {
        let mut pit = Pit::default();
        let a = Name { prefix: NameId(0), seg: 1 };
        pit.insert(a, entry(100), kept(1));
        pit.remove(&a);
        let mut out = Vec::new();
        pit.take_expired(SimTime(1000), &mut out);
        assert!(out.is_empty());
        assert_eq!(pit.next_expiry(), None);
    }
}
