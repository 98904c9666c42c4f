//! Stamp a fixed rate into every Data leaving the node, lowering (never raising) the stamp it
//! carries. The simplest rate-reporting router: a test fixture for rate-following consumers and
//! the reference point of MIRCC's stamping rule.

use super::{ModuleCtx, RouterModule};
use crate::ids::FaceId;
use crate::packet::Packet;

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
        data.rate = data.rate.min(self.rate);
    }
}
