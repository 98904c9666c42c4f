//! Columnar recording: probes append (t, entity, metric, value) rows to flat buffers that are
//! handed over as columns at the end of a run. Entity and metric names are interned once.

use std::hash::BuildHasher;

use compact_str::CompactString;
use hashbrown::HashTable;
use rustc_hash::FxBuildHasher;

use crate::column::Column;
use crate::time::SimTime;

/// Interned entity ("C1", "R1->R2") or metric ("rtt") name.
pub type EntityId = u32;
pub type MetricId = u32;

/// One long-format table of (t, entity, metric, value) rows, stored by instant: the rows of one
/// time form a block, and a block whose (entity, metric) keys repeat those of the previous block
/// stores only its values, and of those only the ones that differ from that block's (one bit
/// per row says which). Periodic samples repeat their keys at every tick, and most of their
/// values too (idle faces, counters that did not move, queues that stayed empty), so a sampled
/// row costs one bit when it repeats and 8 bytes when it does not, rather than 24. Values are
/// compared bit for bit, so every value comes back exactly as pushed. A block is built packed
/// while its rows repeat the keys of the block before, row for row, so a row that repeats its
/// key and value costs two reads and no writes; the first row that does not turns the block
/// into an ordinary one, which is packed when it closes if its keys repeat after all.
#[derive(Default, Debug, Clone)]
pub struct Columns {
    blocks: Vec<Block>,
    /// (entity, metric) of the rows of blocks whose keys are not a repeat, as one `Key` each
    /// (so that a block's keys compare as one run of bytes); the open block's keys are always
    /// here until it closes.
    keys: Column<Key>,
    /// The stored values, in row order: every value of a block that is not `packed`, and the
    /// values a `packed` block's bits mark as changed.
    values: Column<f64>,
    /// For each `packed` block in turn, its bits (bit i set when row i's value is stored), in
    /// 64-bit words, a block's starting on a new word; only the words with a bit set are kept,
    /// and `words` says which those are.
    changed: Column<u64>,
    /// For each `packed` block in turn, one bit per word of its bits (`WORD` rows), in 64-bit
    /// words of its own: set when that word has a bit set and so is kept in `changed`. Most
    /// rows of a large world's tick repeat (idle faces and consumers), and their words of bits
    /// are all zeros: kept, they were 41% of what `dumbbell-10000` recorded.
    words: Column<u64>,
    /// Every value of the last closed block: what the next block's values are compared with.
    /// While the open block repeats it, its first rows hold the open block's values instead.
    last: Vec<f64>,
    rows: usize,
    /// Set while the open block repeats the keys of the block before it, row for row so far:
    /// it is then built packed as it goes (see `push_repeated`).
    repeat: Option<Repeat>,
    /// Rows at the start of `last` that hold the open block's values rather than the block
    /// before's, once the open block no longer repeats (while it does, its `row`).
    last_fresh: usize,
    /// The open block's word of bits kept last, as its place in `words` plus one (0: none yet).
    /// Rows come in order, so a row whose word this is adds its bit to the last word kept
    /// without reading `words`.
    kept_word: usize,
}

/// The open block repeats the keys of the closed block before it, so far.
#[derive(Clone, Copy, Debug)]
struct Repeat {
    /// The open block's time and its rows so far, as in its `Block`: kept here too so that a
    /// repeated row reads one small struct before deciding (reading the block instead costs
    /// 0.7% more instructions in `dumbbell-1000`, 1.2% in `dumbbell-10000`).
    t: u64,
    /// Rows of the open block so far.
    row: usize,
    /// The earlier block's keys (its `keys_at`) and length.
    keys_at: usize,
    len: usize,
    /// Where the open block's kept words of bits start in `changed`, and its bits of which
    /// words are kept in `words`.
    bits_at: usize,
    words_at: usize,
}

/// Rows at one time: `len` values, keyed by `keys[keys_at..keys_at + len]`.
#[derive(Clone, Copy, Debug)]
struct Block {
    t: u64,
    keys_at: usize,
    len: u32,
    /// Only the values that differ from the previous block's are stored (see `changed`).
    packed: bool,
}

impl Block {
    fn len(&self) -> usize {
        self.len as usize
    }
}

/// An (entity, metric) pair as one integer: entity in the high half.
type Key = u64;

fn key(entity: EntityId, metric: MetricId) -> Key {
    (u64::from(entity) << 32) | u64::from(metric)
}

fn unkey(k: Key) -> (EntityId, MetricId) {
    let [e0, e1, e2, e3, m0, m1, m2, m3] = k.to_be_bytes();
    (u32::from_be_bytes([e0, e1, e2, e3]), u32::from_be_bytes([m0, m1, m2, m3]))
}

/// Bits of `changed` per word.
const WORD: usize = u64::BITS as usize;

/// Rows a word of `Columns::words` covers: a bit for each of `WORD` words of `WORD` rows.
const WORD_ROWS: usize = WORD * WORD;

impl Columns {
    /// Always inline: samplers push a row per value, and most rows repeat (see below).
    #[inline(always)]
    pub fn push(&mut self, t: SimTime, entity: EntityId, metric: MetricId, value: f64) {
        let k = key(entity, metric);
        // While the open block repeats the block before it, most rows go no further.
        match self.repeat {
            Some(r) if r.t == t.0 && r.row < r.len && self.keys.get(r.keys_at + r.row) == Some(&k) => {
                self.push_repeated(value)
            }
            _ => self.push_other(t, k, value),
        }
    }

    /// The next row of a repeating open block, its key the earlier block's: stored as closing
    /// would pack it, a bit and the value only if it changed (`last` holds the open block's
    /// values so far). A row that repeats its key and value costs two reads and no writes.
    #[inline(always)]
    fn push_repeated(&mut self, value: f64) {
        let Some(r) = &mut self.repeat else { return };
        let (row, words_at) = (r.row, r.words_at);
        r.row += 1;
        self.store_repeated(row, words_at, value);
        if let Some(b) = self.blocks.last_mut() {
            b.len += 1;
        }
        self.rows += 1;
    }

    /// Row `row` of a repeating open block whose bits of kept words start at `words_at` in
    /// `words`: a new word of those every `WORD_ROWS` rows, and only if the value changed, the
    /// value and its bit (in a new word of bits when its word has none yet: rows come in order,
    /// so a word already kept is the last in `changed`).
    #[inline(always)]
    fn store_repeated(&mut self, row: usize, words_at: usize, value: f64) {
        if row.is_multiple_of(WORD_ROWS) {
            self.words.push(0);
        }
        if let Some(before) = self.last.get_mut(row) {
            if before.to_bits() != value.to_bits() {
                *before = value;
                let w = words_at * WORD + row / WORD;
                if self.kept_word != w + 1 {
                    self.kept_word = w + 1;
                    if let Some(kept) = self.words.get_mut(w / WORD) {
                        *kept |= 1 << (w % WORD);
                    }
                    self.changed.push(0);
                }
                if let Some(bits) = self.changed.last_mut() {
                    *bits |= 1 << (row % WORD);
                }
                self.values.push(value);
            }
        }
    }

    /// Rows at `t`, in order: the same table as a `push` of each, in one go when the open block
    /// repeats their keys. A sampler's rows that repeat the last tick's keys and values (an idle
    /// face's five, an idle consumer's dozen) then cost a compare each rather than a `push` each.
    #[inline]
    pub fn push_rows(&mut self, t: SimTime, rows: &[(EntityId, MetricId, f64)]) {
        if let Some(r) = self.repeat {
            let end = r.row + rows.len();
            let repeated = r.t == t.0
                && end <= r.len
                && self
                    .keys
                    .get(r.keys_at + r.row..r.keys_at + end)
                    .is_some_and(|keys| keys.iter().zip(rows).all(|(&k, &(e, m, _))| k == key(e, m)));
            if repeated {
                return self.push_repeated_rows(rows);
            }
        }
        for &(e, m, v) in rows {
            self.push(t, e, m, v);
        }
    }

    /// `n` rows at `t` that repeat rows `from..from + n` of the block before the open one, keys
    /// and values, recorded without being read: a sampler whose entities did not change since
    /// the last tick, whose rows that block holds, says where they were. The caller vouches for
    /// the keys (its layout at that tick); this checks the rest. When the open block repeats
    /// the block before row for row and `from` is where it stands, the rows cost their bits'
    /// words and nothing else (no row is compared or written). Otherwise they are copied, keys
    /// and values, as rows pushed one by one would be. False, and nothing recorded, when those
    /// rows are not at hand: no block before the open one, rows beyond its end, or rows of
    /// `last` the open block has overwritten.
    pub fn push_earlier(&mut self, t: SimTime, from: usize, n: usize) -> bool {
        if n == 0 {
            return true;
        }
        match self.blocks.last() {
            Some(b) if b.t == t.0 && b.len() + n <= u32::MAX as usize => {}
            Some(b) if b.t < t.0 => self.open_block(t),
            _ => return false,
        }
        let [.., prev, _] = self.blocks[..] else { return false };
        if from + n > prev.len() {
            return false;
        }
        if let Some(r) = &mut self.repeat {
            if r.row == from {
                // Their bits are all clear, so no word of them is kept: a new word of `words`
                // for each row that starts one.
                let (first, words_at) = (r.row, r.words_at);
                r.row += n;
                let words = (first + n).div_ceil(WORD_ROWS) - first.div_ceil(WORD_ROWS);
                self.words.resize(self.words.len() + words, 0);
                debug_assert_eq!(self.words.len(), words_at + (first + n).div_ceil(WORD_ROWS));
                self.grow_open(n);
                return true;
            }
            if from < r.row {
                return false;
            }
        } else if from < self.last_fresh {
            return false;
        }
        // `last` holds the earlier block's values from `last_fresh` on.
        self.unrepeat();
        self.keys.extend_from_within(prev.keys_at + from..prev.keys_at + from + n);
        self.values.extend_from_slice(&self.last[from..from + n]);
        self.grow_open(n);
        true
    }

    /// The open block has `n` more rows.
    #[inline]
    fn grow_open(&mut self, n: usize) {
        if let Some(b) = self.blocks.last_mut() {
            b.len += n as u32;
        }
        self.rows += n;
    }

    /// `push_repeated` for each of `rows`, whose keys the earlier block has next.
    #[inline]
    fn push_repeated_rows(&mut self, rows: &[(EntityId, MetricId, f64)]) {
        let Some(r) = &mut self.repeat else { return };
        let (first, words_at) = (r.row, r.words_at);
        r.row += rows.len();
        let open = r.row;
        for (row, &(_, _, value)) in (first..).zip(rows) {
            self.store_repeated(row, words_at, value);
        }
        // The open block's rows are the repeat's (at most the earlier block's, a u32).
        if let Some(b) = self.blocks.last_mut() {
            b.len = u32::try_from(open).unwrap_or(u32::MAX);
        }
        self.rows += rows.len();
    }

    /// Any other row: the first of a new instant (its block starts out repeating the one
    /// before), the first that breaks a repeat (the block becomes an ordinary one), or a row of
    /// an ordinary block.
    #[inline(never)]
    fn push_other(&mut self, t: SimTime, k: Key, value: f64) {
        // A block of u32::MAX rows at one instant is closed and another opened at the same time.
        match self.blocks.last() {
            Some(b) if b.t == t.0 && b.len < u32::MAX => {}
            _ => self.open_block(t),
        }
        match self.repeat {
            Some(r) if r.row == 0 && self.keys.get(r.keys_at) == Some(&k) => return self.push_repeated(value),
            Some(_) => self.unrepeat(),
            None => {}
        }
        if let Some(b) = self.blocks.last_mut() {
            b.len += 1;
        }
        self.keys.push(k);
        self.values.push(value);
        self.rows += 1;
    }

    /// Turn the open block, built packed while it repeated the block before it, into an
    /// ordinary one: its own keys and every value.
    #[cold]
    fn unrepeat(&mut self) {
        let (Some(r), Some(b)) = (self.repeat.take(), self.blocks.last_mut()) else { return };
        let stored: u32 = self.changed[r.bits_at..].iter().map(|w| w.count_ones()).sum();
        self.values.truncate(self.values.len() - stored as usize);
        self.changed.truncate(r.bits_at);
        self.words.truncate(r.words_at);
        let (rows, keys_at) = (b.len(), self.keys.len());
        self.keys.extend_from_within(r.keys_at..r.keys_at + rows);
        // `last` holds the open block's values in its first rows.
        self.values.extend_from_slice(&self.last[..rows]);
        b.keys_at = keys_at;
        b.packed = false;
        self.last_fresh = rows;
        self.kept_word = 0;
    }

    /// Close the open block and open an empty one at `t`, which starts out repeating the
    /// block before it. Out of line: it runs once per instant, `push` once per row.
    #[inline(never)]
    fn open_block(&mut self, t: SimTime) {
        self.close_block();
        self.last_fresh = 0;
        self.kept_word = 0;
        let block = match self.blocks.last() {
            Some(prev) => {
                let (bits_at, words_at) = (self.changed.len(), self.words.len());
                self.repeat =
                    Some(Repeat { t: t.0, row: 0, keys_at: prev.keys_at, len: prev.len(), bits_at, words_at });
                Block { t: t.0, keys_at: prev.keys_at, len: 0, packed: true }
            }
            None => Block { t: t.0, keys_at: self.keys.len(), len: 0, packed: false },
        };
        self.blocks.push(block);
    }

    /// Close the open block. One that repeated the block before it to the end is complete
    /// already. Otherwise, when it repeats the keys of the block before it after all, point it
    /// at those and drop its own copy, and keep only the values that changed since that block.
    fn close_block(&mut self) {
        if let (Some(r), Some(b)) = (self.repeat, self.blocks.last()) {
            if b.len() == r.len {
                self.repeat = None;
                return;
            }
            self.unrepeat();
        }
        let Some(&closing) = self.blocks.last() else { return };
        let open = self.values.len() - closing.len();
        let repeat_of = match self.blocks.as_slice() {
            [.., prev, _] if prev.len == closing.len => {
                let (earlier, own) = self.keys.split_at(closing.keys_at);
                (earlier.get(prev.keys_at..prev.keys_at + prev.len()) == Some(own)).then_some(prev.keys_at)
            }
            _ => None,
        };
        let Some(keys_at) = repeat_of else {
            self.last.clear();
            self.last.extend_from_slice(&self.values[open..]);
            return;
        };
        if let Some(b) = self.blocks.last_mut() {
            b.keys_at = keys_at;
            b.packed = true;
        }
        self.keys.truncate(self.keys.len() - closing.len());
        // `last` holds the previous block's values, row for row: keep what differs, in place, a
        // word of rows at a time (a kept value moves down over rows already compared), and the
        // words of bits that have a bit set.
        let n = closing.len();
        let words_at = self.words.len();
        self.words.resize(words_at + n.div_ceil(WORD_ROWS), 0);
        let (values, last) = (&mut self.values, &mut self.last);
        let mut kept = 0;
        for w in 0..n.div_ceil(WORD) {
            let rows = w * WORD..((w + 1) * WORD).min(n);
            let mut bits = 0u64;
            for (i, row) in rows.clone().enumerate() {
                let v = values[open + row];
                let Some(before) = last.get_mut(row) else { break };
                bits |= u64::from(v.to_bits() != before.to_bits()) << i;
                *before = v;
            }
            if bits == 0 {
                continue;
            }
            self.changed.push(bits);
            self.words[words_at + w / WORD] |= 1 << (w % WORD);
            let mut rest = bits;
            while rest != 0 {
                values[open + kept] = values[open + rows.start + rest.trailing_zeros() as usize];
                kept += 1;
                rest &= rest - 1;
            }
        }
        self.values.truncate(open + kept);
    }

    /// The time of the last rows recorded [ns], if any.
    pub fn last_time(&self) -> Option<u64> {
        self.blocks.last().map(|b| b.t)
    }

    /// Rows recorded.
    pub fn len(&self) -> usize {
        self.rows
    }

    /// The last `n` rows pushed, as (entity, metric, value), if they all lie in the open block
    /// (pushed at one instant, after its first row); no rows always do.
    pub fn last_rows(&self, n: usize) -> Option<impl Iterator<Item = (EntityId, MetricId, f64)> + '_> {
        let (keys, values): (&[Key], &[f64]) = match self.blocks.last() {
            _ if n == 0 => (&[], &[]),
            Some(b) if b.len() >= n => {
                let len = b.len();
                // A repeating open block's values are in `last`; an ordinary one's at the end.
                let values = match self.repeat {
                    Some(_) => &self.last[len - n..len],
                    None if !b.packed => &self.values[self.values.len() - n..],
                    None => return None,
                };
                (&self.keys[b.keys_at + len - n..b.keys_at + len], values)
            }
            _ => return None,
        };
        Some(keys.iter().zip(values).map(|(&k, &v)| {
            let (e, m) = unkey(k);
            (e, m, v)
        }))
    }
    pub fn is_empty(&self) -> bool {
        self.rows == 0
    }

    /// Every row in the order it was recorded: (t in ns, entity, metric, value).
    pub fn rows(&self) -> impl Iterator<Item = (u64, EntityId, MetricId, f64)> + '_ {
        let mut blocks = self.blocks();
        let mut at = 0;
        std::iter::from_fn(move || loop {
            let (b, values) = blocks.current()?;
            if let Some(&v) = values.get(at) {
                let (e, m) = unkey(self.keys[b.keys_at + at]);
                at += 1;
                return Some((b.t, e, m, v));
            }
            at = 0;
            blocks.advance();
        })
    }

    /// The blocks in order, each with its values in full.
    fn blocks(&self) -> BlockValues<'_> {
        let mut walk = BlockValues {
            cols: self,
            next: 0,
            stored_at: 0,
            bits_at: 0,
            words_at: 0,
            values: Vec::new(),
            current: None,
        };
        walk.advance();
        walk
    }

    /// Call `f(entity, metric)` for every row, in the order recorded: the keys alone, without
    /// rebuilding the values.
    #[inline]
    pub fn for_each_key(&self, mut f: impl FnMut(EntityId, MetricId)) {
        for b in &self.blocks {
            for &k in &self.keys[b.keys_at..b.keys_at + b.len()] {
                let (e, m) = unkey(k);
                f(e, m);
            }
        }
    }

    /// Call `f(t in ns, entity, metric, value)` for every row, in the order recorded (what
    /// `rows` gives, a block at a time).
    #[inline]
    pub fn for_each_row(&self, mut f: impl FnMut(u64, EntityId, MetricId, f64)) {
        let mut blocks = self.blocks();
        while let Some((b, values)) = blocks.current() {
            for (&k, &v) in self.keys[b.keys_at..b.keys_at + b.len()].iter().zip(values) {
                let (e, m) = unkey(k);
                f(b.t, e, m, v);
            }
            blocks.advance();
        }
    }

    /// Bytes the rows take as stored: 8 per stored value, per kept word of bits and per word of
    /// those words' bits, plus their keys (8 each) where a block does not repeat the previous
    /// one, plus 24 per block, plus the last block's values. Spare capacity is left out: it is
    /// address space, mostly never touched.
    pub fn data_bytes(&self) -> usize {
        (self.values.len() + self.changed.len() + self.words.len() + self.last.len() + self.keys.len()) * 8
            + self.blocks.len() * std::mem::size_of::<Block>()
    }
}

/// A walk over a table's blocks in order that rebuilds each block's values in full: a packed
/// block's unchanged rows take the previous block's values.
struct BlockValues<'a> {
    cols: &'a Columns,
    /// Index of the block after the current one.
    next: usize,
    /// Where the next block's stored values start in `cols.values`.
    stored_at: usize,
    /// Where the next packed block's kept words of bits start in `cols.changed`, and its bits of
    /// which words are kept in `cols.words`.
    bits_at: usize,
    words_at: usize,
    /// The current block's values in full.
    values: Vec<f64>,
    current: Option<Block>,
}

impl BlockValues<'_> {
    fn current(&self) -> Option<(Block, &[f64])> {
        self.current.map(|b| (b, self.values.as_slice()))
    }

    /// Move to the next block, building its values from the stored ones and the current
    /// block's.
    fn advance(&mut self) {
        let cols = self.cols;
        self.current = cols.blocks.get(self.next).copied();
        let Some(b) = self.current else { return };
        self.next += 1;
        if b.packed {
            // The values are those of the block before, with the changed rows replaced (an
            // open block may have fewer rows so far).
            self.values.truncate(b.len());
            let words = b.len().div_ceil(WORD);
            let kept = &cols.words[self.words_at..self.words_at + words.div_ceil(WORD)];
            for w in (0..words).filter(|w| kept[w / WORD] & (1 << (w % WORD)) != 0) {
                let mut bits = cols.changed[self.bits_at];
                self.bits_at += 1;
                while bits != 0 {
                    if let Some(v) = self.values.get_mut(w * WORD + bits.trailing_zeros() as usize) {
                        *v = cols.values[self.stored_at];
                        self.stored_at += 1;
                    }
                    bits &= bits - 1;
                }
            }
            self.words_at += kept.len();
        } else {
            self.values.clear();
            self.values.extend_from_slice(&cols.values[self.stored_at..self.stored_at + b.len()]);
            self.stored_at += b.len();
        }
    }
}

/// Names and their ids, each name kept once: the index holds ids, found by the hash of the
/// name they stand for. (A map from the names kept every name twice, in the map and in the
/// list: at 10,000 flows, with an entity per application and face, some 400 bytes a flow.)
#[derive(Default, Debug)]
struct Interner {
    names: Vec<CompactString>,
    index: HashTable<u32>,
}

impl Interner {
    fn id(&mut self, name: &str) -> u32 {
        let Interner { names, index } = self;
        let hash = FxBuildHasher.hash_one(name);
        if let Some(&i) = index.find(hash, |&i| names[i as usize] == name) {
            return i;
        }
        let i = u32::try_from(names.len()).expect("fewer than 2^32 names");
        names.push(name.into());
        index.insert_unique(hash, i, |&j| FxBuildHasher.hash_one(&names[j as usize]));
        i
    }
}

/// The run's recorder: app/flow series and face series, each long format.
#[derive(Debug)]
pub struct Recorder {
    pub series: Columns,
    pub faces: Columns,
    entities: Interner,
    metrics: Interner,
    /// Per-packet event samples (RTT at each Data, timeouts, marks …) are recorded.
    pub events: bool,
    /// The most series rows for an event sample to be added (`MAX_EVENT_ROWS` unless a test
    /// sets another).
    pub max_event_rows: usize,
    /// When event samples stopped being recorded, the series having reached `max_event_rows`.
    pub events_stopped_at: Option<SimTime>,
    /// Sets of ids made once and shared, by their type (`Recorder::shared`).
    shared: SharedIds,
}

/// Sets of ids that every app of a kind interns alike, kept once per recorder: every consumer
/// asks for the same metric names in the same order, so gets the same ids, and a copy in each
/// took 84 bytes of a consumer (840 kB in a world of 10,000).
#[derive(Default)]
struct SharedIds(Vec<(std::any::TypeId, std::sync::Arc<dyn std::any::Any + Send + Sync>)>);

impl std::fmt::Debug for SharedIds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "SharedIds({} sets)", self.0.len())
    }
}

/// The most rows the series may hold for an event sample to be added: per-packet events grow
/// with the work a run does, not with the network, and a run that handles millions of packets a
/// second (a consumer beside its producer) would fill any memory. 10 million rows take some
/// 0.7 GB at a run's peak, its tables built (with the 30 million sample rows validation allows,
/// under 2 GB in all); the shipped scenarios record at most 0.6 million. Fixed-interval samples
/// are bounded up front, so only events stop; the summary says when (`events_recorded_until_s`).
pub const MAX_EVENT_ROWS: usize = 10_000_000;

impl Default for Recorder {
    fn default() -> Recorder {
        Recorder {
            series: Columns::default(),
            faces: Columns::default(),
            entities: Interner::default(),
            metrics: Interner::default(),
            events: false,
            max_event_rows: MAX_EVENT_ROWS,
            events_stopped_at: None,
            shared: SharedIds::default(),
        }
    }
}

/// Whether a recorder keeps per-packet event samples (`Recorder::event`) besides the
/// fixed-interval ones.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum EventSamples {
    Recorded,
    Skipped,
}

impl Recorder {
    pub fn new(events: EventSamples) -> Recorder {
        Recorder { events: events == EventSamples::Recorded, ..Default::default() }
    }
    pub fn entity(&mut self, name: &str) -> EntityId {
        self.entities.id(name)
    }
    pub fn metric(&mut self, name: &str) -> MetricId {
        self.metrics.id(name)
    }
    /// The set of ids of type `T` this recorder shares: made by `make` the first time it is
    /// asked for, and the same set after. `make` must intern the same names whenever it runs,
    /// so that the set it would make again is the one kept.
    pub fn shared<T: std::any::Any + Send + Sync>(
        &mut self,
        make: impl FnOnce(&mut Recorder) -> T,
    ) -> std::sync::Arc<T> {
        let key = std::any::TypeId::of::<T>();
        let found = self.shared.0.iter().find(|(k, _)| *k == key).map(|(_, set)| std::sync::Arc::clone(set));
        if let Some(set) = found.and_then(|set| set.downcast::<T>().ok()) {
            return set;
        }
        let set = std::sync::Arc::new(make(self));
        self.shared.0.push((key, set.clone()));
        set
    }
    /// Rows recorded so far, both tables.
    pub fn rows(&self) -> usize {
        self.series.len() + self.faces.len()
    }
    /// Bytes both tables' rows take: the part of a run's memory that is its recorded output
    /// rather than the simulation's state.
    pub fn data_bytes(&self) -> usize {
        self.series.data_bytes() + self.faces.data_bytes()
    }
    pub fn entity_names(&self) -> &[CompactString] {
        &self.entities.names
    }
    pub fn metric_names(&self) -> &[CompactString] {
        &self.metrics.names
    }
    /// An event sample (kept only when event recording is on).
    #[inline]
    pub fn event(&mut self, t: SimTime, entity: EntityId, metric: MetricId, value: f64) {
        if self.events {
            if self.series.len() >= self.max_event_rows {
                self.events = false;
                self.events_stopped_at = Some(t);
                return;
            }
            self.series.push(t, entity, metric, value);
        }
    }
    /// A fixed-interval sample of an app or flow.
    #[inline]
    pub fn sample(&mut self, t: SimTime, entity: EntityId, metric: MetricId, value: f64) {
        self.series.push(t, entity, metric, value);
    }
    /// A fixed-interval sample of a face.
    #[inline]
    pub fn face_sample(&mut self, t: SimTime, entity: EntityId, metric: MetricId, value: f64) {
        self.faces.push(t, entity, metric, value);
    }
    /// Fixed-interval samples of an app or flow, (entity, metric, value) in order.
    #[inline]
    pub fn samples(&mut self, t: SimTime, rows: &[(EntityId, MetricId, f64)]) {
        self.series.push_rows(t, rows);
    }
    /// Fixed-interval samples of a face, (entity, metric, value) in order.
    #[inline]
    pub fn face_samples(&mut self, t: SimTime, rows: &[(EntityId, MetricId, f64)]) {
        self.faces.push_rows(t, rows);
    }
}

/// One row of a run's summary.
#[derive(Clone, Debug, PartialEq, serde::Serialize)]
pub struct SummaryRow {
    pub entity: String,
    /// What the row describes: an application ("consumer", "producer", "tcp", "tcp-sink",
    /// "cbr", "udp-sink", "mcast-source", "mcast-receiver"), a "face", a "node", a "flow" (its
    /// share of the flows' throughput) or the "run".
    pub kind: String,
    pub metric: String,
    pub value: f64,
    pub unit: Unit,
}

/// The unit of a summary row's value; it is written out as its text (`Unit::Kbps` as
/// `kbit/s`), the `unit` column of `summary.json` and docs/metrics.md.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Unit {
    Packets,
    Bytes,
    Segments,
    Objects,
    Requests,
    Events,
    Hops,
    Flows,
    /// A count of anything else.
    Count,
    /// kbit/s
    Kbps,
    /// bit/s
    Bps,
    Ms,
    S,
    Ratio,
    /// 1 for true, 0 for false.
    Bool,
}

impl Unit {
    pub const ALL: [Unit; 15] = [
        Unit::Packets,
        Unit::Bytes,
        Unit::Segments,
        Unit::Objects,
        Unit::Requests,
        Unit::Events,
        Unit::Hops,
        Unit::Flows,
        Unit::Count,
        Unit::Kbps,
        Unit::Bps,
        Unit::Ms,
        Unit::S,
        Unit::Ratio,
        Unit::Bool,
    ];

    pub const fn as_str(self) -> &'static str {
        match self {
            Unit::Packets => "packets",
            Unit::Bytes => "bytes",
            Unit::Segments => "segments",
            Unit::Objects => "objects",
            Unit::Requests => "requests",
            Unit::Events => "events",
            Unit::Hops => "hops",
            Unit::Flows => "flows",
            Unit::Count => "count",
            Unit::Kbps => "kbit/s",
            Unit::Bps => "bit/s",
            Unit::Ms => "ms",
            Unit::S => "s",
            Unit::Ratio => "ratio",
            Unit::Bool => "bool",
        }
    }
}

impl std::fmt::Display for Unit {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.as_str())
    }
}

impl serde::Serialize for Unit {
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(self.as_str())
    }
}

impl SummaryRow {
    pub fn new(entity: &str, kind: &str, metric: &str, value: f64, unit: Unit) -> SummaryRow {
        SummaryRow { entity: entity.into(), kind: kind.into(), metric: metric.into(), value, unit }
    }
    /// The throughput [kbit/s] of a flow, if this row is one: a consumer's or a TCP sender's
    /// `throughput_kbps`. These are the flows whose shares and fairness the summary reports.
    pub fn flow_throughput_kbps(&self) -> Option<f64> {
        const FLOW_KINDS: [&str; 2] = ["consumer", "tcp"];
        (FLOW_KINDS.contains(&self.kind.as_str()) && self.metric == "throughput_kbps").then_some(self.value)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_interned_name_keeps_its_first_id_and_ids_are_dense() {
        let mut names = Interner::default();
        let all: Vec<String> = (0..5_000).map(|i| format!("C{i}->R1")).collect();
        for (i, n) in all.iter().enumerate() {
            assert_eq!(names.id(n), i as u32);
        }
        for (i, n) in all.iter().enumerate().rev() {
            assert_eq!(names.id(n), i as u32, "{n}");
        }
        assert_eq!(names.id(""), 5_000);
        assert_eq!(names.names.len(), 5_001);
        assert_eq!(names.names[17], "C17->R1");
    }

    /// A shared set is made once per recorder and per type; a recorder of its own makes its own,
    /// with the ids its names have there.
    #[test]
    fn a_shared_set_is_made_once_per_recorder_and_type() {
        struct Pair(MetricId, MetricId);
        struct Other(MetricId);
        let (mut rec, mut made) = (Recorder::default(), 0);
        rec.metric("before");
        let mut pair = |rec: &mut Recorder| {
            made += 1;
            Pair(rec.metric("a"), rec.metric("b"))
        };
        let first = rec.shared(&mut pair);
        let again = rec.shared(&mut pair);
        assert!(std::sync::Arc::ptr_eq(&first, &again));
        assert_eq!(made, 1);
        assert_eq!((first.0, first.1), (1, 2));
        let other = rec.shared(|rec| Other(rec.metric("b")));
        assert_eq!(other.0, 2);
        let mut fresh = Recorder::default();
        let theirs = fresh.shared(|rec| Pair(rec.metric("a"), rec.metric("b")));
        assert_eq!((theirs.0, theirs.1), (0, 1));
    }

    /// The rows as `for_each_row` gives them, its keys checked against `for_each_key`'s.
    fn walked(c: &Columns) -> Vec<(u64, EntityId, MetricId, f64)> {
        let mut rows = Vec::new();
        c.for_each_row(|t, e, m, v| rows.push((t, e, m, v)));
        let mut keys = Vec::new();
        c.for_each_key(|e, m| keys.push((e, m)));
        assert_eq!(keys, rows.iter().map(|r| (r.1, r.2)).collect::<Vec<_>>());
        rows
    }

    #[test]
    fn units_read_and_serialise_as_their_text() {
        let texts: Vec<&str> = Unit::ALL.iter().map(|u| u.as_str()).collect();
        assert_eq!(
            texts,
            [
                "packets", "bytes", "segments", "objects", "requests", "events", "hops", "flows", "count", "kbit/s",
                "bit/s", "ms", "s", "ratio", "bool"
            ]
        );
        let row = SummaryRow::new("C1", "consumer", "throughput_kbps", 1.5, Unit::Kbps);
        assert_eq!(row.unit.to_string(), "kbit/s");
        assert_eq!(
            serde_json::to_string(&row).unwrap(),
            r#"{"entity":"C1","kind":"consumer","metric":"throughput_kbps","value":1.5,"unit":"kbit/s"}"#
        );
    }

    #[test]
    fn names_are_interned_once_and_event_samples_obey_the_switch() {
        let mut r = Recorder::new(EventSamples::Skipped);
        let c1 = r.entity("C1");
        assert_eq!(r.entity("C1"), c1);
        let rtt = r.metric("rtt");
        r.event(SimTime(5), c1, rtt, 0.1);
        assert!(r.series.is_empty());
        r.sample(SimTime(5), c1, rtt, 0.1);
        assert_eq!(r.series.len(), 1);
        assert_eq!(r.metric_names(), &["rtt".to_string()]);
    }

    #[test]
    fn repeated_keys_are_stored_once_and_rows_come_back_in_order() {
        let mut c = Columns::default();
        let mut rows = Vec::new();
        for tick in 0..100u64 {
            for (e, m) in [(0, 0), (0, 1), (1, 0)] {
                let v = (tick * 10 + u64::from(e + m)) as f64;
                c.push(SimTime(tick * 1000), e, m, v);
                rows.push((tick * 1000, e, m, v));
            }
        }
        // A block with other keys, one at the same time as the next, and a repeat again.
        for (t, e, m) in [(100_500, 7, 7), (100_600, 0, 0), (100_600, 0, 1), (100_600, 1, 0), (100_700, 0, 0)] {
            c.push(SimTime(t), e, m, 1.5);
            rows.push((t, e, m, 1.5));
        }
        assert_eq!(c.rows().collect::<Vec<_>>(), rows);
        assert_eq!(c.len(), rows.len());
        // One copy of the tick's three keys; the odd block's one; the tick's keys again (their
        // block follows the odd one, and only the previous block is compared). The open block
        // repeats the first key of the block before it, so it has none of its own so far.
        assert_eq!(c.keys.len(), 3 + 1 + 3);
        assert_eq!(walked(&c), rows);
    }

    #[test]
    fn rows_are_repeated_from_the_block_before_only_when_at_hand() {
        let mut c = Columns::default();
        // Nothing before the first block, or within it.
        assert!(!c.push_earlier(SimTime(0), 0, 1));
        for e in 0..3 {
            c.push(SimTime(0), e, 0, f64::from(e));
        }
        assert!(!c.push_earlier(SimTime(0), 0, 1));
        // Rows beyond the block before, or earlier in time.
        assert!(!c.push_earlier(SimTime(10), 2, 2));
        assert!(c.push_earlier(SimTime(10), 1, 2), "out of order: copied");
        assert!(!c.push_earlier(SimTime(5), 0, 1));
        assert!(c.push_earlier(SimTime(10), 0, 1), "copied rows leave the block before's values");
        // A row pushed while the block repeats the one before overwrites that block's value
        // (row 0 was 1, now 5), which can then no longer be repeated.
        c.push(SimTime(20), 1, 0, 5.0);
        assert!(!c.push_earlier(SimTime(20), 0, 1), "row 0 of `last` holds the open block's");
        assert!(c.push_earlier(SimTime(20), 1, 2), "in order: repeated");
        let rows: Vec<_> = c.rows().collect();
        let mut want = vec![(0, 0, 0, 0.0), (0, 1, 0, 1.0), (0, 2, 0, 2.0)];
        want.extend([(10, 1, 0, 1.0), (10, 2, 0, 2.0), (10, 0, 0, 0.0)]);
        want.extend([(20, 1, 0, 5.0), (20, 2, 0, 2.0), (20, 0, 0, 0.0)]);
        assert_eq!(rows, want);
        assert_eq!(walked(&c), rows);
        // The block at 20 repeats the keys of the one at 10 and stores one value and its bit.
        assert_eq!((c.keys.len(), c.values.len(), c.changed.len()), (6, 7, 1));
    }

    #[test]
    fn a_repeated_block_stores_only_the_values_that_changed() {
        let mut c = Columns::default();
        let mut rows = Vec::new();
        for tick in 0..10u64 {
            // Row 0 changes every tick, rows 1..70 never, row 70 on odd ticks: 71 rows need two
            // words of bits per block.
            for r in 0..71u32 {
                let v = match r {
                    0 => tick as f64,
                    70 => (tick % 2) as f64,
                    _ => f64::from(r),
                };
                c.push(SimTime(tick * 100), r, 0, v);
                rows.push((tick * 100, r, 0, v));
            }
        }
        c.push(SimTime(5_000), 0, 0, 0.5);
        rows.push((5_000, 0, 0, 0.5));
        // The first block in full; then for each of the nine packed blocks row 0 and row 70;
        // the open block, which repeats the first key of the block before, its changed value
        // (0.5 where that block had 9) and a word of bits.
        assert_eq!(c.values.len(), 71 + 9 * 2 + 1);
        assert_eq!(c.changed.len(), 9 * 2 + 1);
        assert_eq!(c.len(), rows.len());
        assert_eq!(c.rows().collect::<Vec<_>>(), rows);
        assert_eq!(walked(&c), rows);
    }

    proptest::proptest! {
        /// Values from a small set (with both zeros and a NaN) repeat often, so packed blocks
        /// are common; every value comes back bit for bit.
        #[test]
        fn repeating_values_come_back_bit_for_bit(
            pushes in proptest::collection::vec((0u64..2, 0u32..3, 0u32..2, 0usize..5), 0..300),
        ) {
            let set = [0.0, -0.0, 1.0, f64::NAN, 2.5];
            let mut c = Columns::default();
            let (mut t, mut rows) = (0u64, Vec::new());
            for (dt, e, m, v) in pushes {
                t += dt;
                c.push(SimTime(t), e, m, set[v]);
                rows.push((t, e, m, set[v].to_bits()));
            }
            let bits = |r: (u64, u32, u32, f64)| (r.0, r.1, r.2, r.3.to_bits());
            proptest::prop_assert_eq!(c.rows().map(bits).collect::<Vec<_>>(), rows.clone());
            proptest::prop_assert_eq!(walked(&c).into_iter().map(bits).collect::<Vec<_>>(), rows);
        }

        /// Reading at any point, an open block half repeated included, gives the rows pushed
        /// so far, and the last rows of the open block come back as pushed.
        #[test]
        fn rows_read_at_any_point_are_the_rows_pushed_so_far(
            pushes in proptest::collection::vec((0u64..2, 0u32..3, 0u32..2, 0usize..5, proptest::bool::ANY), 0..200),
        ) {
            let set = [0.0, -0.0, 1.0, f64::NAN, 2.5];
            let bits = |r: (u64, u32, u32, f64)| (r.0, r.1, r.2, r.3.to_bits());
            let mut c = Columns::default();
            let (mut t, mut rows) = (0u64, Vec::new());
            let mut open = 0usize;
            for (dt, e, m, v, read) in pushes {
                t += dt;
                open = if dt == 0 && !rows.is_empty() { open + 1 } else { 1 };
                c.push(SimTime(t), e, m, set[v]);
                rows.push((t, e, m, set[v].to_bits()));
                if read {
                    proptest::prop_assert_eq!(c.rows().map(bits).collect::<Vec<_>>(), rows.clone());
                    for n in 0..=open.min(3) {
                        let tail: Vec<_> = rows[rows.len() - n..].iter().map(|r| (r.1, r.2, r.3)).collect();
                        let last = c.last_rows(n).map(|it| it.map(|(e, m, v)| (e, m, v.to_bits())).collect::<Vec<_>>());
                        proptest::prop_assert_eq!(last, Some(tail));
                    }
                }
            }
            proptest::prop_assert_eq!(c.len(), rows.len());
            proptest::prop_assert_eq!(c.rows().map(bits).collect::<Vec<_>>(), rows);
        }

        /// Ticks that mostly repeat one sequence of keys, some ending early, some running on,
        /// some with a key changed part-way, with values that mostly repeat: every row comes
        /// back bit for bit, and a tick that repeats the one before stores no keys.
        #[test]
        fn ticks_that_repeat_break_off_or_run_on_come_back_bit_for_bit(
            ticks in proptest::collection::vec((0usize..4, 0usize..12, proptest::collection::vec(0usize..5, 12)), 1..40),
        ) {
            let set = [0.0, -0.0, 1.0, f64::NAN, 2.5];
            let bits = |r: (u64, u32, u32, f64)| (r.0, r.1, r.2, r.3.to_bits());
            let mut c = Columns::default();
            let mut rows = Vec::new();
            let (mut keys_stored, mut before) = (0, Vec::new());
            for (i, (change, at, values)) in ticks.iter().enumerate() {
                let t = i as u64 * 100;
                // 0: the usual 8 keys; 1: stop after `at`; 2: 4 more at the end; 3: key `at` differs.
                let len = match change { 1 => (*at).clamp(1, 8), 2 => 12, _ => 8 };
                let mut keys = Vec::new();
                for r in 0..len {
                    let e = if *change == 3 && r == *at { 99 } else { r as u32 };
                    let v = set[values[r]];
                    c.push(SimTime(t), e, 1, v);
                    rows.push((t, e, 1, v.to_bits()));
                    keys.push(e);
                }
                // A closed tick keeps keys unless it repeats the one before; the open one so far
                // unless it began as that one did.
                let last = i + 1 == ticks.len();
                let repeats = if last { before.starts_with(&keys) } else { keys == before };
                if !repeats || i == 0 {
                    keys_stored += keys.len();
                }
                before = keys;
            }
            proptest::prop_assert_eq!(c.keys.len(), keys_stored);
            proptest::prop_assert_eq!(c.rows().map(bits).collect::<Vec<_>>(), rows.clone());
            proptest::prop_assert_eq!(walked(&c).into_iter().map(bits).collect::<Vec<_>>(), rows);
        }

        /// Ticks of thousands of rows, most repeating the tick before (pushed as runs of rows
        /// the block before holds, `push_earlier`, as a sampler of idle entities does), a few
        /// changed here and there, some ticks cut short or with a key changed far in: every row
        /// comes back bit for bit, across the words of bits that are kept and those that are
        /// not (several `WORD_ROWS` a tick), and the unchanged rows' words are not kept.
        #[test]
        fn large_ticks_with_few_changes_come_back_bit_for_bit(
            ticks in proptest::collection::vec(
                (0usize..3, 1usize..9_000, proptest::collection::vec((0usize..9_000, 0usize..5), 0..20)),
                1..6,
            ),
        ) {
            let set = [0.0, -0.0, 1.0, f64::NAN, 2.5];
            let bits = |r: (u64, u32, u32, f64)| (r.0, r.1, r.2, r.3.to_bits());
            let mut c = Columns::default();
            let mut rows = Vec::new();
            let mut before: Vec<(u32, f64)> = Vec::new();
            for (i, (change, at, changes)) in ticks.iter().enumerate() {
                let t = i as u64 * 100;
                // 0: 9,000 rows; 1: cut short after `at`; 2: the key of row `at` differs.
                let len = if *change == 1 { *at } else { 9_000 };
                let mut tick: Vec<(u32, f64)> = (0..len)
                    .map(|r| {
                        let e = if *change == 2 && r == *at { 99_999 } else { r as u32 };
                        (e, before.get(r).map_or(1.0, |b| b.1))
                    })
                    .collect();
                for &(r, v) in changes {
                    if let Some(row) = tick.get_mut(r) {
                        row.1 = set[v];
                    }
                }
                let mut r = 0;
                while r < len {
                    let same = |k: usize| {
                        before.get(k).is_some_and(|b| b.0 == tick[k].0 && b.1.to_bits() == tick[k].1.to_bits())
                    };
                    let run = (r..len).take_while(|&k| same(k)).count();
                    if run > 0 && c.push_earlier(SimTime(t), r, run) {
                        rows.extend((r..r + run).map(|k| (t, tick[k].0, 1, tick[k].1.to_bits())));
                        r += run;
                        continue;
                    }
                    c.push(SimTime(t), tick[r].0, 1, tick[r].1);
                    rows.push((t, tick[r].0, 1, tick[r].1.to_bits()));
                    r += 1;
                }
                before = tick;
            }
            proptest::prop_assert_eq!(c.len(), rows.len());
            proptest::prop_assert_eq!(c.rows().map(bits).collect::<Vec<_>>(), rows.clone());
            proptest::prop_assert_eq!(walked(&c).into_iter().map(bits).collect::<Vec<_>>(), rows);
            // Each kept word of bits has a bit set, and no more are kept than values changed.
            proptest::prop_assert!(c.changed.iter().all(|&w| w != 0));
            let changed: usize = ticks.iter().map(|(_, _, changes)| changes.len()).sum();
            proptest::prop_assert!(c.changed.len() <= changed);
        }

        /// Rows pushed in runs (`push_rows`) are stored exactly as the same rows pushed one by
        /// one, whether a run repeats the earlier tick's keys, breaks off from them or runs past
        /// their end.
        #[test]
        fn rows_pushed_in_runs_are_stored_as_rows_pushed_one_by_one(
            ticks in proptest::collection::vec(
                (0usize..4, 0usize..12, proptest::collection::vec(0usize..5, 12), proptest::collection::vec(0usize..4, 12)),
                1..30,
            ),
        ) {
            let set = [0.0, -0.0, 1.0, f64::NAN, 2.5];
            let bits = |r: (u64, u32, u32, f64)| (r.0, r.1, r.2, r.3.to_bits());
            let (mut one_by_one, mut in_runs) = (Columns::default(), Columns::default());
            for (i, (change, at, values, runs)) in ticks.iter().enumerate() {
                let t = SimTime(i as u64 * 100);
                let len = match change { 1 => (*at).clamp(1, 8), 2 => 12, _ => 8 };
                let rows: Vec<_> = (0..len)
                    .map(|r| (if *change == 3 && r == *at { 99 } else { r as u32 }, 1, set[values[r]]))
                    .collect();
                for &(e, m, v) in &rows {
                    one_by_one.push(t, e, m, v);
                }
                // Runs of 0 to 3 rows; a run of one row goes through `push`.
                let mut from = 0;
                for &n in runs.iter().cycle().take(2 * rows.len()) {
                    let to = (from + n).min(rows.len());
                    match &rows[from..to] {
                        [(e, m, v)] => in_runs.push(t, *e, *m, *v),
                        run => in_runs.push_rows(t, run),
                    }
                    from = to;
                }
                in_runs.push_rows(t, &rows[from..]);
            }
            proptest::prop_assert_eq!(
                in_runs.rows().map(bits).collect::<Vec<_>>(),
                one_by_one.rows().map(bits).collect::<Vec<_>>()
            );
            proptest::prop_assert_eq!(in_runs.len(), one_by_one.len());
            proptest::prop_assert_eq!(&in_runs.keys, &one_by_one.keys);
            proptest::prop_assert_eq!(&in_runs.changed, &one_by_one.changed);
            let value_bits = |c: &Columns| c.values.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            proptest::prop_assert_eq!(value_bits(&in_runs), value_bits(&one_by_one));
            proptest::prop_assert_eq!(in_runs.data_bytes(), one_by_one.data_bytes());
        }

        /// A sampler's ticks: entities of one to three rows each (keys unique within a tick),
        /// each tick some of them changed (new values, sometimes a row more or less) and the
        /// others repeated with `push_earlier` from where the last tick put them, with now and
        /// then a block of other rows between ticks (where the sampler cannot repeat). The
        /// table is the one pushing every row gives, row for row and as stored.
        #[test]
        fn rows_repeated_from_the_tick_before_are_stored_as_rows_pushed(
            ticks in proptest::collection::vec(
                (proptest::collection::vec((0u8..6, 0usize..5), 6), proptest::bool::weighted(0.2)),
                1..30,
            ),
        ) {
            let set = [0.0, -0.0, 1.0, f64::NAN, 2.5];
            let bits = |r: (u64, u32, u32, f64)| (r.0, r.1, r.2, r.3.to_bits());
            let (mut pushed, mut repeated) = (Columns::default(), Columns::default());
            // Each entity's rows (metric, value) as of the last tick, and where they started.
            let mut rows: Vec<Vec<(u32, f64)>> = vec![Vec::new(); 6];
            let mut start = [0usize; 6];
            let mut usable = false;
            for (i, (changes, between)) in ticks.iter().enumerate() {
                let t = SimTime(i as u64 * 100 + 50);
                let mut at = 0;
                for (e, &(change, v)) in changes.iter().enumerate() {
                    // 0..3: new values in as many rows as before (one at first); 3: one row
                    // more, 4: one fewer (at least one); 5: unchanged.
                    let unchanged = change == 5 && i > 0;
                    if !unchanged {
                        let n = match change {
                            3 => (rows[e].len() + 1).min(3),
                            4 => rows[e].len().saturating_sub(1).max(1),
                            _ => rows[e].len().max(1),
                        };
                        rows[e] = (0..n as u32).map(|m| (m, set[(v + m as usize) % 5])).collect();
                    }
                    let e32 = e as u32;
                    for &(m, v) in &rows[e] {
                        pushed.push(t, e32, m, v);
                    }
                    let n = rows[e].len();
                    if !(unchanged && usable && repeated.push_earlier(t, start[e], n)) {
                        for &(m, v) in &rows[e] {
                            repeated.push(t, e32, m, v);
                        }
                    }
                    start[e] = at;
                    at += n;
                }
                usable = !between;
                if *between {
                    for c in [&mut pushed, &mut repeated] {
                        c.push(SimTime(i as u64 * 100 + 60), 9, 9, 1.0);
                    }
                }
            }
            proptest::prop_assert_eq!(
                repeated.rows().map(bits).collect::<Vec<_>>(),
                pushed.rows().map(bits).collect::<Vec<_>>()
            );
            proptest::prop_assert_eq!(repeated.len(), pushed.len());
            proptest::prop_assert_eq!(&repeated.keys, &pushed.keys);
            proptest::prop_assert_eq!(&repeated.changed, &pushed.changed);
            let value_bits = |c: &Columns| c.values.iter().map(|v| v.to_bits()).collect::<Vec<_>>();
            proptest::prop_assert_eq!(value_bits(&repeated), value_bits(&pushed));
        }

        #[test]
        fn any_rows_come_back_as_pushed(
            pushes in proptest::collection::vec((0u64..3, 0u32..3, 0u32..2, -5.0f64..5.0), 0..200),
        ) {
            let mut c = Columns::default();
            let (mut t, mut rows) = (0u64, Vec::new());
            for (dt, e, m, v) in pushes {
                t += dt;
                c.push(SimTime(t), e, m, v);
                rows.push((t, e, m, v));
            }
            proptest::prop_assert_eq!(c.rows().collect::<Vec<_>>(), rows.clone());
            proptest::prop_assert_eq!(walked(&c), rows);
        }
    }
}
