//! Multicast forwarding along each group's tree: Data from the source is copied to every
//! downstream face of the group (links down the tree and local receivers), feedback goes up
//! towards the source. Router modules see each packet on the way in (a tree node's module may
//! absorb feedback to aggregate it) and each copy on the way out.

use super::World;
use crate::ids::{FaceId, NodeId};
use crate::packet::{McastKind, Packet};

impl World {
    pub(super) fn mcast_receive(&mut self, node: NodeId, in_face: FaceId, mut packet: Packet) {
        if !self.modules_take_in(node, in_face, &mut packet) {
            return;
        }
        let Some(h) = packet.mcast().copied() else { return };
        let n = &mut self.nodes[node.idx()];
        let Some(route) = n.mcast.iter().find(|(g, _)| *g == h.group).map(|(_, r)| r) else {
            n.counters.mcast_unroutable += 1;
            return;
        };
        match h.kind {
            McastKind::Data => {
                let out: smallvec::SmallVec<[FaceId; 4]> =
                    route.downstream.iter().copied().filter(|&f| f != in_face).collect();
                for f in out {
                    self.forward_packet(node, f, packet);
                }
            }
            McastKind::Feedback => match route.upstream {
                Some(up) if up != in_face => self.forward_packet(node, up, packet),
                Some(_) => n.counters.mcast_unroutable += 1,
                // The source's node: the report is for the source application, which listens on
                // the group's downstream app face.
                None => {
                    let app = route.downstream.iter().copied().find(|&f| self.faces[f.idx()].peer().is_none());
                    match app {
                        Some(f) => self.send_on_face(f, &mut packet),
                        None => self.nodes[node.idx()].counters.mcast_unroutable += 1,
                    }
                }
            },
        }
    }
}
