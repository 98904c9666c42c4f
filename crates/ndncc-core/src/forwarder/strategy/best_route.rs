//! Best route: each Interest goes to the cheapest next hop that is not its in-face. A NACK is
//! passed downstream once every out-face has NACKed (NFD's best-route without retry).

use super::{FaceList, Strategy, StrategyCtx};
use crate::forwarder::fib::{FibEntryId, NextHop};
use crate::ids::FaceId;
use crate::packet::Packet;

#[derive(Debug, Default, Clone, Copy)]
pub struct BestRoute;

impl Strategy for BestRoute {
    fn name(&self) -> &'static str {
        "best-route"
    }
    fn choose(
        &mut self,
        _ctx: &mut StrategyCtx,
        _interest: &Packet,
        _in_face: FaceId,
        _fib_entry: FibEntryId,
        nexthops: &[NextHop],
        out: &mut FaceList,
    ) {
        if let Some(best) = nexthops.first() {
            out.push(best.face);
        }
    }
}
