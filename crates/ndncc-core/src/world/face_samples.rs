//! The last values sampled from each face, so that a face nothing happened on since is sampled
//! from a small array rather than from its `Face`.
//!
//! At scale most faces are idle in most sampling intervals (in a 1,000-consumer dumbbell, each
//! access link carries a packet every few intervals), and reading a thousand scattered `Face`
//! structs per tick costs a cache miss each. The engine marks a face changed wherever what is
//! sampled from it can change: a packet queued, and every transmission and drop (a packet taken
//! off the queue is one or the other, and a congestion mark goes with a transmission). A face
//! with a shaper or a link service, whose samples change by other paths, is always read
//! afresh. `World::check_face_samples` turns on a check that the marks miss nothing.

use crate::ids::FaceId;

/// The values of the five built-in face metrics, in recording order: queue packets, queue
/// bytes, bytes sent, drops, marks.
pub type FaceValues = [f64; 5];

#[derive(Default)]
pub struct FaceSamples {
    /// By face index: something sampled from the face may have changed since it was last read.
    changed: Vec<bool>,
    /// By position in the sampled faces: the values last read, if the face can be cached.
    last: Vec<Option<FaceValues>>,
    /// Read every face afresh and check the kept values against what is read.
    pub checking: bool,
}

impl FaceSamples {
    pub fn new(faces: usize, sampled: usize) -> FaceSamples {
        FaceSamples { changed: vec![true; faces], last: vec![None; sampled], checking: false }
    }

    /// Something sampled from `face` may have changed.
    #[inline(always)]
    pub fn mark(&mut self, face: FaceId) {
        if let Some(c) = self.changed.get_mut(face.idx()) {
            *c = true;
        }
    }

    /// The values last read for sampled face number `at` (`face`), if nothing changed since.
    #[inline]
    pub fn unchanged(&self, at: usize, face: FaceId) -> Option<FaceValues> {
        if self.changed.get(face.idx()).copied().unwrap_or(true) {
            return None;
        }
        self.last.get(at).copied().flatten()
    }

    /// `values` were just read from sampled face number `at` (`face`); `cacheable` is false
    /// for a face whose samples can change without a mark.
    #[inline]
    pub fn read(&mut self, at: usize, face: FaceId, values: FaceValues, cacheable: bool) {
        if let Some(slot) = self.last.get_mut(at) {
            *slot = cacheable.then_some(values);
        }
        if let Some(c) = self.changed.get_mut(face.idx()) {
            *c = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_are_reused_only_until_the_face_is_marked() {
        let (a, b) = (FaceId(0), FaceId(1));
        let mut s = FaceSamples::new(2, 2);
        assert_eq!(s.unchanged(0, a), None, "never read");
        s.read(0, a, [1.0, 2.0, 3.0, 4.0, 5.0], true);
        s.read(1, b, [9.0; 5], false);
        assert_eq!(s.unchanged(0, a), Some([1.0, 2.0, 3.0, 4.0, 5.0]));
        assert_eq!(s.unchanged(1, b), None, "not cacheable");
        s.mark(a);
        assert_eq!(s.unchanged(0, a), None, "marked");
        s.read(0, a, [7.0; 5], true);
        assert_eq!(s.unchanged(0, a), Some([7.0; 5]));
    }
}
