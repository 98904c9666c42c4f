//! Stamp a fixed rate into every Data leaving the node, lowering (never raising) the stamp it
//! carries. The simplest rate-reporting router: a test fixture for rate-following consumers and
//! the reference point of MIRCC's stamping rule.

use serde::{Deserialize, Serialize};

use super::{ModuleCtx, RouterModule};
use crate::ids::FaceId;
use crate::packet::Packet;
use crate::plugin::{check, Check, Plugin};

/// `{ type = "static-rate-stamp", rate = … }`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct StaticRateStampConfig {
    /// The rate stamped [Interests/s]. Required.
    pub rate: f64,
}

impl Plugin for StaticRateStampConfig {
    type Built = Box<dyn RouterModule>;
    fn validate(&self) -> Check {
        check::rate("rate", self.rate)
    }
    fn build(&self) -> Box<dyn RouterModule> {
        Box::new(StaticRateStamp::new(self.rate))
    }
}

pub struct StaticRateStamp {
    rate: f64,
}

impl StaticRateStamp {
    pub fn new(rate: f64) -> StaticRateStamp {
        StaticRateStamp { rate }
    }
}

impl RouterModule for StaticRateStamp {
    fn name(&self) -> &'static str {
        "static-rate-stamp"
    }
    fn on_data_out(&mut self, _ctx: &mut ModuleCtx, _in_face: FaceId, _out_face: FaceId, data: &mut Packet) {
        data.lower_rate_stamp(self.rate);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::face::Face;
    use crate::ids::{FaceId, NameId, NodeId};
    use crate::packet::Name;
    use crate::time::SimTime;

    #[test]
    fn a_stamp_is_lowered_to_the_rate_and_never_raised() {
        let mut m = StaticRateStamp::new(600.0);
        let mut faces: Vec<Face> = Vec::new();
        let (mut rng, mut actions) = (crate::rng::stream(1, "m"), Vec::new());
        let mut ctx = ModuleCtx::new(SimTime::ZERO, NodeId(0), &[], &mut faces, &mut rng, &mut actions);
        let i = Packet::interest(Name { prefix: NameId(0), seg: 0 }, 40, 1, 0);
        let mut unstamped = Packet::data_for(i.ndn().unwrap(), 1000);
        m.on_data_out(&mut ctx, FaceId(0), FaceId(1), &mut unstamped);
        assert_eq!(unstamped.rate_stamp(), 600.0);
        let mut lower = unstamped;
        lower.ndn_mut().unwrap().rate = 250.0;
        m.on_data_out(&mut ctx, FaceId(0), FaceId(1), &mut lower);
        assert_eq!(lower.rate_stamp(), 250.0);
    }
}
