//! Multicast: each Interest goes to every next hop except its in-face.

use super::{FaceList, Strategy, StrategyCtx};
use crate::forwarder::fib::{FibEntryId, NextHop};
use crate::ids::FaceId;
use crate::packet::Packet;

#[derive(Debug, Default, Clone, Copy)]
pub struct Multicast;

impl Strategy for Multicast {
    fn name(&self) -> &'static str {
        "multicast"
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
        out.extend(nexthops.iter().map(|n| n.face));
    }
}
