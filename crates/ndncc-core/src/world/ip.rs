//! IP forwarding: a node delivers an IP packet addressed to it to the application listening on
//! its destination port, and forwards any other by destination over its IP routes, through the
//! same faces, link services, queues and links as NDN traffic. Router modules see each packet
//! on the way in and on the way out.

use super::effects::{forward_packet, modules_take_in, Effects};
use super::Network;
use crate::ids::{FaceId, NodeId};
use crate::packet::{Packet, Transport};

pub fn receive(net: &mut Network, fx: &mut impl Effects, node: NodeId, in_face: FaceId, mut packet: Packet) {
    if !modules_take_in(net, fx, node, in_face, &mut packet) {
        return;
    }
    let Some(ip) = packet.ip() else { return };
    let n = &mut net.nodes[node.idx()];
    if ip.dst == node {
        let port = match ip.transport {
            Transport::Tcp(t) => t.dst_port,
            Transport::Udp(u) => u.dst_port,
        };
        match n.ip.as_ref().and_then(|t| t.ports.iter().find(|(p, _)| *p == port)) {
            Some(&(_, app_face)) => fx.send(net, app_face, &mut packet),
            None => n.ip_mut().ip_unroutable += 1,
        }
        return;
    }
    match n.ip.as_ref().and_then(|t| t.routes.get(ip.dst)) {
        // Never back where it came from: that would be a routing loop.
        Some(face) if face != in_face => forward_packet(net, fx, node, face, packet),
        _ => n.ip_mut().ip_unroutable += 1,
    }
}
