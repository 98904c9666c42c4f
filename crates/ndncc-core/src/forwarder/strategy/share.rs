//! Per-face forwarding shares as a recorded series: the fraction of the Interests a strategy
//! forwarded that went on each face since the last sample.
//!
//! Sampling takes `&self` (it runs between events and changes nothing a run depends on), so the
//! counts live in `Cell`s and a sample restarts them.

use std::cell::Cell;

use crate::ids::FaceId;

#[derive(Debug, Default)]
pub struct ShareMeter {
    counts: Vec<(FaceId, Cell<u64>)>,
}

impl ShareMeter {
    /// One Interest forwarded on `face`.
    pub fn count(&mut self, face: FaceId) {
        match self.counts.iter().find(|(f, _)| *f == face) {
            Some((_, c)) => c.set(c.get().saturating_add(1)),
            None => self.counts.push((face, Cell::new(1))),
        }
    }

    /// `fw_share` per face seen so far (0 for a face unused since the last sample; nothing
    /// while no Interest at all was forwarded), then start counting afresh.
    pub fn sample(&self, out: &mut Vec<(&'static str, Option<FaceId>, f64)>) {
        let total: u64 = self.counts.iter().map(|(_, c)| c.get()).sum();
        if total == 0 {
            return;
        }
        for (face, c) in &self.counts {
            out.push(("fw_share", Some(*face), c.get() as f64 / total as f64));
            c.set(0);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_are_fractions_of_the_interests_since_the_last_sample() {
        let mut m = ShareMeter::default();
        let (a, b) = (FaceId(3), FaceId(5));
        for _ in 0..3 {
            m.count(a);
        }
        m.count(b);
        let mut out = Vec::new();
        m.sample(&mut out);
        assert_eq!(out, vec![("fw_share", Some(a), 0.75), ("fw_share", Some(b), 0.25)]);
        m.count(b);
        out.clear();
        m.sample(&mut out);
        assert_eq!(out, vec![("fw_share", Some(a), 0.0), ("fw_share", Some(b), 1.0)]);
        out.clear();
        m.sample(&mut out);
        assert!(out.is_empty());
    }
}
