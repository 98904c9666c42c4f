//! Which faces something happened on since the last tick, so that a tick reads only those and
//! repeats the others' rows without visiting them (`tick_layout.rs`).
//!
//! At scale most faces are idle in most sampling intervals (in a 1,000-consumer dumbbell, each
//! access link carries a packet every few intervals), and reading a thousand scattered `Face`
//! structs per tick costs a cache miss each. The engine marks a face changed wherever what is
//! sampled from it can change: a packet queued, and every transmission and drop (a packet taken
//! off the queue is one or the other, and a congestion mark goes with a transmission). A face
//! with a shaper or a link service, whose samples change by other paths, is always read
//! afresh. A face whose rows cannot be repeated (the first tick) is read too: what it reads
//! is what it would have kept, so its values are kept only for `World::check_face_samples`,
//! which checks that the marks miss nothing (a face's kept values were 48 bytes written at
//! each read, for a fallback the face table, which holds no events, hardly ever takes).

use super::tick_layout::TickLayout;
use crate::ids::FaceId;
use crate::recorder::EntityId;

/// The values of the five built-in face metrics, in recording order: queue packets, queue
/// bytes, bytes sent, drops, marks.
pub type FaceValues = [f64; 5];

/// Marks a face that is not sampled (`at`).
const UNSAMPLED: u32 = u32::MAX;

pub struct FaceSamples {
    /// The faces' kept values, and which changed since.
    pub kept: KeptValues,
    /// Where each sampled face's rows lay in the last tick's block of the face table.
    pub layout: TickLayout,
    /// Read every face afresh and check the kept values against what is read.
    pub checking: bool,
}

impl FaceSamples {
    /// Samples of `faces` faces, of which `sampled` are sampled, in that order.
    pub fn new(faces: usize, sampled: &[(FaceId, EntityId)]) -> FaceSamples {
        FaceSamples { kept: KeptValues::new(faces, sampled), layout: TickLayout::new(sampled.len()), checking: false }
    }

    /// Something sampled from `face` may have changed.
    #[inline(always)]
    pub fn mark(&mut self, face: FaceId) {
        self.kept.mark(face);
    }
}

pub struct KeptValues {
    /// By face index: something sampled from the face may have changed since it was last read,
    /// or it is read at every tick (never read yet, not cacheable). A byte rather than a bit:
    /// marking is a store on the path of every packet (a bit's read, or and write cost
    /// `dumbbell-1` 0.5% more instructions per hop), and a tick reads them eight at a time.
    changed: Vec<u8>,
    /// By face index: its position among the sampled faces, or `UNSAMPLED`.
    at: Vec<u32>,
    /// By position in the sampled faces: the values last read, if the face can be cached;
    /// only while checking (empty otherwise).
    last: Vec<Option<FaceValues>>,
    /// How many faces are sampled.
    sampled: usize,
}

impl KeptValues {
    /// Values of `faces` faces, of which `sampled` are sampled, in that order.
    pub fn new(faces: usize, sampled: &[(FaceId, EntityId)]) -> KeptValues {
        let mut at = vec![UNSAMPLED; faces];
        for (i, (f, _)) in sampled.iter().enumerate() {
            if let Some(slot) = at.get_mut(f.idx()) {
                *slot = i as u32;
            }
        }
        // The sampled faces are read at the first tick.
        let changed = at.iter().map(|&at| u8::from(at != UNSAMPLED)).collect();
        KeptValues { changed, at, last: Vec::new(), sampled: sampled.len() }
    }

    /// Something sampled from `face` may have changed.
    #[inline(always)]
    pub fn mark(&mut self, face: FaceId) {
        if let Some(c) = self.changed.get_mut(face.idx()) {
            *c = 1;
        }
    }

    fn is_changed(&self, face: FaceId) -> bool {
        self.changed.get(face.idx()).is_none_or(|&c| c != 0)
    }

    /// The positions of the sampled faces marked changed, ascending, into `out`; marks on faces
    /// that are not sampled are dropped.
    pub fn changed_positions(&mut self, out: &mut Vec<u32>) {
        out.clear();
        for_each_marked(&self.changed, |i| out.push(i as u32));
        let (at, changed) = (&self.at, &mut self.changed);
        out.retain_mut(|i| match at.get(*i as usize) {
            Some(&at) if at != UNSAMPLED => {
                *i = at;
                true
            }
            _ => {
                changed[*i as usize] = 0;
                false
            }
        });
        // Sampled faces are in face order as built; sort in case they are not.
        if !out.is_sorted() {
            out.sort_unstable();
        }
    }

    /// The values last read for sampled face number `at` (`face`), if nothing changed since
    /// and they were kept (while checking).
    #[inline]
    pub fn unchanged(&self, at: usize, face: FaceId) -> Option<FaceValues> {
        if self.is_changed(face) {
            return None;
        }
        self.last.get(at).copied().flatten()
    }

    /// `values` were just read from sampled face number `at` (`face`); `cacheable` is false
    /// for a face whose samples can change without a mark, which stays marked. They are kept
    /// for `unchanged` when `checking`.
    #[inline]
    pub fn read(&mut self, at: usize, face: FaceId, values: FaceValues, cacheable: bool, checking: bool) {
        if checking && self.last.is_empty() {
            self.last = vec![None; self.sampled];
        }
        if let Some(slot) = self.last.get_mut(at) {
            *slot = cacheable.then_some(values);
        }
        if let (Some(c), true) = (self.changed.get_mut(face.idx()), cacheable) {
            *c = 0;
        }
    }
}

/// Call `f(i)` for each `i` whose mark is set, ascending. Most marks are clear at scale, so
/// they are read eight at a time.
#[inline]
pub fn for_each_marked(marks: &[u8], mut f: impl FnMut(usize)) {
    let mut words = marks.chunks_exact(8);
    for (w, word) in words.by_ref().enumerate() {
        let mut rest = u64::from_le_bytes(word.try_into().unwrap_or_default());
        while rest != 0 {
            f(w * 8 + rest.trailing_zeros() as usize / 8);
            rest &= !(0xff << (rest.trailing_zeros() / 8 * 8));
        }
    }
    let tail = marks.len() - words.remainder().len();
    for (j, &c) in words.remainder().iter().enumerate() {
        if c != 0 {
            f(tail + j);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_reused_only_until_the_face_is_marked() {
        let (a, b, c) = (FaceId(0), FaceId(1), FaceId(70));
        let mut s = KeptValues::new(71, &[(a, 0), (b, 1), (c, 2)]);
        let mut changed = Vec::new();
        s.changed_positions(&mut changed);
        assert_eq!(changed, [0, 1, 2], "never read: all of them, and only the sampled ones");
        assert_eq!(s.unchanged(0, a), None, "never read");
        s.read(0, a, [1.0, 2.0, 3.0, 4.0, 5.0], true, true);
        s.read(1, b, [9.0; 5], false, true);
        s.read(2, c, [3.0; 5], true, true);
        assert_eq!(s.unchanged(0, a), Some([1.0, 2.0, 3.0, 4.0, 5.0]));
        assert_eq!(s.unchanged(1, b), None, "not cacheable");
        s.changed_positions(&mut changed);
        assert_eq!(changed, [1], "the face that is not cacheable is read at every tick");
        s.mark(a);
        s.mark(FaceId(5));
        assert_eq!(s.unchanged(0, a), None, "marked");
        s.changed_positions(&mut changed);
        assert_eq!(changed, [0, 1], "a mark on a face not sampled is dropped");
        s.read(0, a, [7.0; 5], true, true);
        assert_eq!(s.unchanged(0, a), Some([7.0; 5]));
        assert_eq!(s.unchanged(2, c), Some([3.0; 5]));
        // Not checking, nothing is kept: an unmarked face is repeated, or read afresh.
        let mut s = KeptValues::new(2, &[(a, 0)]);
        s.read(0, a, [1.0; 5], true, false);
        s.changed_positions(&mut changed);
        assert_eq!((changed.len(), s.unchanged(0, a), s.last.len()), (0, None, 0));
    }

    #[test]
    fn marks_are_found_in_order_eight_at_a_time_and_in_the_tail() {
        let mut marks = vec![0u8; 21];
        for i in [0, 7, 8, 9, 15, 20] {
            marks[i] = 1;
        }
        marks[3] = 0xff;
        let mut found = Vec::new();
        for_each_marked(&marks, |i| found.push(i));
        assert_eq!(found, [0, 3, 7, 8, 9, 15, 20]);
    }
}
