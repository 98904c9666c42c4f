//! Multicast forwarding along each group's tree: Data from the source is copied to every
//! downstream face of the group (links down the tree and local receivers), feedback goes up
//! towards the source. Router modules see each packet on the way in (a tree node's module may
//! absorb feedback to aggregate it) and each copy on the way out.

use super::effects::{forward_packet, modules_take_in, Effects};
use super::Network;
use crate::ids::{FaceId, NodeId};
use crate::packet::{McastKind, Packet};

pub fn receive(net: &mut Network, fx: &mut impl Effects, node: NodeId, in_face: FaceId, mut packet: Packet) {
    if !modules_take_in(net, fx, node, in_face, &mut packet) {
        return;
    }
    let Some(h) = packet.mcast().copied() else { return };
    let n = &mut net.nodes[node.idx()];
    let Some(route) = n.ip.as_ref().and_then(|ip| ip.mcast.iter().find(|(g, _)| *g == h.group)).map(|(_, r)| r) else {
        n.ip_mut().mcast_unroutable += 1;
        return;
    };
    match h.kind {
        McastKind::Data => {
            let out: smallvec::SmallVec<[FaceId; 4]> =
                route.downstream.iter().copied().filter(|&f| f != in_face).collect();
            for f in out {
                forward_packet(net, fx, node, f, packet);
            }
        }
        McastKind::Feedback => match route.upstream {
            Some(up) if up != in_face => forward_packet(net, fx, node, up, packet),
            Some(_) => n.ip_mut().mcast_unroutable += 1,
            // The source's node: the report is for the source application, which listens on
            // the group's downstream app face.
            None => {
                let app = route.downstream.iter().copied().find(|&f| net.faces[f.idx()].peer().is_none());
                match app {
                    Some(f) => fx.send(net, f, &mut packet),
                    None => net.nodes[node.idx()].ip_mut().mcast_unroutable += 1,
                }
            }
        },
    }
}
