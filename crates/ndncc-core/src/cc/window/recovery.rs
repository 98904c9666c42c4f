//! The recovery point: "at most one decrease per round trip" without a timer.
//!
//! After a decrease the controller arms a recovery point `p` in sequence space. A later
//! congestion signal may decrease the window again only once a Data beyond `p` has arrived,
//! i.e. a Data for an Interest sent after the decrease: the signals in between belong to the
//! same congestion episode.
//!
//! ```text
//!   permits(h)  ⇔  no point armed, or h > p             (h = highest segment received)
//!   arm:        p = n + margin · (n − h)                  (n = next never-sent segment)
//! ```
//!
//! With `margin = 0` this is the classic rule (p = n; ALGORITHMS.md A2 "one decrease per RTT").
//! PCON's conservative window adaptation uses `margin = 0.5` (ALGORITHMS.md A3), which also
//! covers the Interests that will be sent while the first post-decrease Data is in flight.

/// Recovery-point margin of PCON's conservative window adaptation (A3):
/// p = next_seq + 0.5·(next_seq − highest_received).
pub const PCON_MARGIN: f64 = 0.5;

/// A recovery point in sequence space; none is armed until the first decrease.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct RecoveryPoint {
    point: Option<f64>,
    margin: f64,
}

impl RecoveryPoint {
    /// A gate with no point armed; `margin` scales the outstanding span added past `next_seq`.
    pub fn new(margin: f64) -> RecoveryPoint {
        RecoveryPoint { point: None, margin }
    }

    /// The armed point, if any [segment number, possibly fractional].
    pub fn point(&self) -> Option<f64> {
        self.point
    }

    /// Whether a congestion signal may decrease the window now: h > p.
    pub fn permits(&self, highest_received: u64) -> bool {
        match self.point {
            None => true,
            Some(p) => highest_received as f64 > p,
        }
    }

    /// Arm after a decrease: p = n + margin·(n − h), with n − h taken as 0 if negative.
    pub fn arm(&mut self, next_seq: u64, highest_received: u64) {
        let n = next_seq as f64;
        let outstanding = (n - highest_received as f64).max(0.0);
        self.point = Some(n + self.margin * outstanding);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_unarmed_point_permits_any_decrease() {
        assert!(RecoveryPoint::new(0.0).permits(0));
    }

    #[test]
    fn the_classic_rule_arms_at_next_seq_and_waits_for_data_beyond_it() {
        let mut r = RecoveryPoint::new(0.0);
        r.arm(50, 30);
        // p = 50 + 0·20 = 50.
        assert_eq!(r.point(), Some(50.0));
        assert!(!r.permits(50));
        assert!(r.permits(51));
    }

    #[test]
    fn the_pcon_rule_adds_half_the_outstanding_span() {
        let mut r = RecoveryPoint::new(PCON_MARGIN);
        r.arm(50, 30);
        // p = 50 + 0.5·(50 − 30) = 60.
        assert_eq!(r.point(), Some(60.0));
        assert!(!r.permits(60));
        assert!(r.permits(61));
    }
}
