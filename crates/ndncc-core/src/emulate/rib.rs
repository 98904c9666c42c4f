//! Prefix registration, as NFD's RIB manager answers `/localhost/nfd/rib/register` and
//! `unregister`: the prefix gets a route to the registering connection's face on its node, and
//! every other node a route towards that node (the `RoutePlan`), so simulated and real
//! consumers anywhere reach a real producer without static routes.
//!
//! Several faces may register one prefix, on one node or on several: a route towards a node
//! stays while any face there holds the prefix, and where two nodes' routes share a next hop it
//! takes the lower cost. A route the scenario itself installed is never changed or removed.
//! Other commands are refused with NFD's codes. Signatures are not checked: a command comes
//! from an application on the local machine, which NFD's default configuration trusts for
//! local faces.

use std::collections::BTreeMap;

use super::plan::RoutePlan;
use crate::ids::{FaceId, NodeId};
use crate::wire::mgmt::{status, Command, ControlParameters, ROUTE_FLAG_CHILD_INHERIT};
use crate::wire::name::Component;
use crate::world::World;

/// A face that may register prefixes: a slot's application face.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Registrant {
    pub slot: usize,
    pub node: NodeId,
    pub face: FaceId,
    /// The FaceId NFD would have given the connection (reported in responses).
    pub nfd_face_id: u64,
}

/// A simulated consumer's route to nowhere, kept until a registration covers its prefix (see
/// `emulate::wait_for_real_producers`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Waiting {
    pub node: NodeId,
    /// Canonical prefix text.
    pub prefix: String,
    pub face: FaceId,
}

#[derive(Default)]
pub struct Rib {
    plan: RoutePlan,
    waiting: Vec<Waiting>,
    /// Prefix (engine text) → slots holding it, with their cost.
    held: BTreeMap<String, BTreeMap<usize, (Registrant, u64)>>,
    /// (prefix, node, face) of routes this RIB installed towards other nodes → the origins they
    /// lead to, with the cost to each.
    remote: BTreeMap<(String, NodeId, FaceId), BTreeMap<NodeId, u64>>,
}

/// The reply to a command: status code, text, and the parameters as applied.
pub type Reply = (u64, String, Option<ControlParameters>);

impl Rib {
    pub fn new(plan: RoutePlan, waiting: Vec<Waiting>) -> Rib {
        Rib { plan, waiting, ..Rib::default() }
    }

    /// Carry out a management command from `who`.
    pub fn command(&mut self, world: &mut World, who: Registrant, cmd: &Command) -> Reply {
        let verb = match (cmd.module.as_slice(), cmd.verb.as_slice()) {
            (b"rib", b"register") => true,
            (b"rib", b"unregister") => false,
            _ => return (status::UNSUPPORTED, "unsupported command".into(), None),
        };
        let p = match &cmd.params {
            Ok(p) => p,
            Err(e) => return (status::BAD_PARAMETERS, format!("malformed ControlParameters: {e}"), None),
        };
        let Some(name) = &p.name else {
            return (status::BAD_PARAMETERS, "ControlParameters without a Name".into(), None);
        };
        if p.face_id.is_some_and(|f| f != 0 && f != who.nfd_face_id) {
            return (status::FACE_NOT_FOUND, "only the requesting face can be given routes".into(), None);
        }
        let cost = p.cost.unwrap_or(0);
        let prefix = prefix_text(name);
        if verb {
            self.register(world, who, &prefix, cost);
        } else {
            self.unregister(world, who.slot, &prefix);
        }
        let applied = ControlParameters {
            name: Some(name.clone()),
            face_id: Some(who.nfd_face_id),
            origin: Some(p.origin.unwrap_or(0)),
            cost: verb.then_some(cost),
            flags: verb.then_some(p.flags.unwrap_or(ROUTE_FLAG_CHILD_INHERIT)),
            expiration_ms: if verb { p.expiration_ms } else { None },
        };
        (status::OK, "OK".into(), Some(applied))
    }

    /// The prefixes `slot` holds.
    pub fn prefixes_of(&self, slot: usize) -> Vec<String> {
        self.held.iter().filter(|(_, h)| h.contains_key(&slot)).map(|(p, _)| p.clone()).collect()
    }

    pub fn register(&mut self, world: &mut World, who: Registrant, prefix: &str, cost: u64) {
        // Waiting routes the new prefix covers are no longer needed, wherever they are.
        let covered = |w: &Waiting| crate::names::components(&w.prefix).starts_with(&crate::names::components(prefix));
        for w in self.waiting.iter().filter(|w| covered(w)) {
            world.drop_kept_route(w.node, &w.prefix, w.face);
        }
        self.waiting.retain(|w| !covered(w));
        let holders = self.held.entry(prefix.to_owned()).or_default();
        let node_had = holders.values().any(|(r, _)| r.node == who.node);
        holders.insert(who.slot, (who, cost));
        world.keep_route(who.node, prefix, who.face, cost);
        if !node_had {
            self.route_towards(world, who.node, prefix);
        }
    }

    /// Routes from every other node towards `origin` for `prefix`, as the plan says.
    fn route_towards(&mut self, world: &mut World, origin: NodeId, prefix: &str) {
        let hops = self.plan.towards.get(origin.idx()).cloned().unwrap_or_default();
        for hop in hops {
            let key = (prefix.to_owned(), hop.node, hop.face);
            let fib = &world.net.nodes[hop.node.idx()].fib;
            if !self.remote.contains_key(&key) && fib.route_cost(prefix, hop.face).is_some() {
                continue; // the scenario's own route: left alone
            }
            let origins = self.remote.entry(key).or_default();
            origins.insert(origin, hop.cost);
            let best = origins.values().copied().min().unwrap_or(hop.cost);
            world.keep_route(hop.node, prefix, hop.face, best);
        }
    }

    /// The world computed its routes again (links or nodes went down or up): route every held
    /// prefix again over the links that are up now. The routes on the holders' own nodes and
    /// the waiting routes were kept through the change; those towards them may now be wrong.
    pub fn replan(&mut self, world: &mut World) {
        for (prefix, node, face) in std::mem::take(&mut self.remote).into_keys() {
            world.drop_kept_route(node, &prefix, face);
        }
        self.plan.replan(world);
        // Each (prefix, node) once, however many of the node's faces hold the prefix.
        let origins: std::collections::BTreeSet<(String, NodeId)> =
            self.held.iter().flat_map(|(p, h)| h.values().map(|(r, _)| (p.clone(), r.node))).collect();
        for (prefix, node) in origins {
            self.route_towards(world, node, &prefix);
        }
    }

    /// Withdraw `slot`'s registration of `prefix` (nothing if it has none).
    pub fn unregister(&mut self, world: &mut World, slot: usize, prefix: &str) {
        let Some(holders) = self.held.get_mut(prefix) else { return };
        let Some((who, _)) = holders.remove(&slot) else { return };
        world.drop_kept_route(who.node, prefix, who.face);
        let node_left = !holders.values().any(|(r, _)| r.node == who.node);
        if holders.is_empty() {
            self.held.remove(prefix);
        }
        if !node_left {
            return;
        }
        let hops = self.plan.towards.get(who.node.idx()).cloned().unwrap_or_default();
        for hop in hops {
            let key = (prefix.to_owned(), hop.node, hop.face);
            let Some(origins) = self.remote.get_mut(&key) else { continue };
            origins.remove(&who.node);
            match origins.values().copied().min() {
                Some(best) => world.keep_route(hop.node, prefix, hop.face, best),
                None => {
                    world.drop_kept_route(hop.node, prefix, hop.face);
                    self.remote.remove(&key);
                }
            }
        }
    }

    /// Withdraw everything `slot` registered (its connection closed).
    pub fn drop_slot(&mut self, world: &mut World, slot: usize) {
        for prefix in self.prefixes_of(slot) {
            self.unregister(world, slot, &prefix);
        }
    }
}

/// A registered name as the engine's FIB keys prefixes: every component in text (a trailing
/// segment component too, which only names of a longer prefix then match).
pub fn prefix_text(name: &[Component]) -> String {
    if name.is_empty() {
        return "/".to_owned();
    }
    name.iter().map(|c| format!("/{}", c.to_text())).collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::emulate::plan::RoutePlan;

    fn world() -> (crate::scenario::Scenario, World) {
        let text = r#"
            [simulation]
            duration = "1s"
            [nodes]
            A = {}
            B = {}
            C = {}
            [links.A-B]
            bandwidth = "10Mbps"
            delay = "1ms"
            [links.B-C]
            bandwidth = "10Mbps"
            delay = "1ms"
        "#;
        let sc = crate::scenario::load_str(text, "t.toml", &[]).unwrap();
        let w = crate::instantiate::build_world(&sc, 1).unwrap();
        (sc, w)
    }

    fn cmd(verb: &str, name: &str, face: Option<u64>) -> Command {
        let name: Vec<Component> =
            crate::names::components(name).iter().map(|c| Component::generic(c.as_bytes())).collect();
        Command {
            module: b"rib".to_vec(),
            verb: verb.as_bytes().to_vec(),
            params: Ok(ControlParameters { name: Some(name), face_id: face, ..Default::default() }),
        }
    }

    #[test]
    fn a_registered_prefix_is_routed_from_every_node_and_withdrawn_with_its_last_holder() {
        let (sc, mut w) = world();
        let c = w.net.nodes[2].id;
        let plan = RoutePlan::new(&sc, 1, &w, &[c]);
        let mut rib = Rib::new(plan, Vec::new());
        let app_face = FaceId(99);
        let who = Registrant { slot: 0, node: c, face: app_face, nfd_face_id: 256 };
        let (code, _, applied) = rib.command(&mut w, who, &cmd("register", "/x", None));
        assert_eq!(code, 200);
        assert_eq!(applied.unwrap().face_id, Some(256));
        let a_to_b = w.net.face_by_name("A->B").unwrap();
        let b_to_c = w.net.face_by_name("B->C").unwrap();
        assert_eq!(w.net.nodes[0].fib.route_cost("/x", a_to_b), Some(2));
        assert_eq!(w.net.nodes[1].fib.route_cost("/x", b_to_c), Some(1));
        assert_eq!(w.net.nodes[2].fib.route_cost("/x", app_face), Some(0));
        let other = Registrant { slot: 1, face: FaceId(100), nfd_face_id: 257, ..who };
        rib.command(&mut w, other, &cmd("register", "/x", None));
        rib.drop_slot(&mut w, 0);
        assert_eq!(w.net.nodes[0].fib.route_cost("/x", a_to_b), Some(2), "still held on C");
        rib.command(&mut w, other, &cmd("unregister", "/x", None));
        assert_eq!(w.net.nodes[0].fib.route_cost("/x", a_to_b), None);
        assert_eq!(w.net.nodes[2].fib.route_cost("/x", FaceId(100)), None);
    }

    #[test]
    fn a_registration_is_routed_again_over_the_links_left_when_one_goes_down() {
        // A–B–C with a dearer direct A–C; B–C fails at 0.5 s and the world routes again.
        let text = r#"
            [simulation]
            duration = "1s"
            [defaults.link]
            bandwidth = "10Mbps"
            delay = "1ms"
            [nodes]
            A = {}
            B = {}
            C = {}
            [links.A-B]
            [links.B-C]
            [links.A-C]
            cost = 5
            [routing]
            mode = "computed"
            [[events]]
            at = "500ms"
            link = "B-C"
            action = "down"
        "#;
        let sc = crate::scenario::load_str(text, "t.toml", &[]).unwrap();
        let mut w = crate::instantiate::build_world(&sc, 1).unwrap();
        let (a, c) = (w.net.nodes[0].id, w.net.nodes[2].id);
        let face = |w: &World, name: &str| w.net.face_by_name(name).unwrap();
        let (a_to_b, a_to_c, b_to_a, b_to_c) = (face(&w, "A->B"), face(&w, "A->C"), face(&w, "B->A"), face(&w, "B->C"));
        let mut rib = Rib::new(RoutePlan::new(&sc, 1, &w, &[c]), Vec::new());
        let app_face = FaceId(99);
        rib.register(&mut w, Registrant { slot: 0, node: c, face: app_face, nfd_face_id: 256 }, "/x", 0);
        assert_eq!(w.net.nodes[a.idx()].fib.route_cost("/x", a_to_b), Some(2));
        assert_eq!(w.net.nodes[1].fib.route_cost("/x", b_to_c), Some(1));
        let epoch = w.route_epoch();
        let mut state = crate::world::StepState::default();
        w.run_until(crate::time::SimTime(600_000_000), &mut state, &mut |_| {});
        assert_ne!(w.route_epoch(), epoch, "the failure made the world route again");
        // Computing the routes again kept the registration on C itself.
        assert_eq!(w.net.nodes[c.idx()].fib.route_cost("/x", app_face), Some(0));
        rib.replan(&mut w);
        assert_eq!(w.net.nodes[a.idx()].fib.route_cost("/x", a_to_c), Some(5));
        assert_eq!(w.net.nodes[a.idx()].fib.route_cost("/x", a_to_b), None);
        assert_eq!(w.net.nodes[1].fib.route_cost("/x", b_to_a), Some(6));
        assert_eq!(w.net.nodes[1].fib.route_cost("/x", b_to_c), None);
        // Withdrawn, the new routes go too.
        rib.unregister(&mut w, 0, "/x");
        assert_eq!(w.net.nodes[a.idx()].fib.route_cost("/x", a_to_c), None);
        assert_eq!(w.net.nodes[1].fib.route_cost("/x", b_to_a), None);
    }

    #[test]
    fn a_registration_takes_away_the_waiting_routes_it_covers() {
        let (sc, mut w) = world();
        let (a, c) = (w.net.nodes[0].id, w.net.nodes[2].id);
        let nowhere = FaceId(98);
        w.net.nodes[0].fib.add_route("/x/y", nowhere, u64::MAX);
        w.net.nodes[0].fib.add_route("/z", nowhere, u64::MAX);
        let waiting = vec![
            Waiting { node: a, prefix: "/x/y".into(), face: nowhere },
            Waiting { node: a, prefix: "/z".into(), face: nowhere },
        ];
        let mut rib = Rib::new(RoutePlan::new(&sc, 1, &w, &[c]), waiting);
        let who = Registrant { slot: 0, node: c, face: FaceId(99), nfd_face_id: 256 };
        assert_eq!(rib.command(&mut w, who, &cmd("register", "/x", None)).0, 200);
        assert_eq!(w.net.nodes[0].fib.route_cost("/x/y", nowhere), None, "covered by /x");
        assert_eq!(w.net.nodes[0].fib.route_cost("/z", nowhere), Some(u64::MAX), "not covered");
    }

    #[test]
    fn other_commands_and_bad_parameters_get_nfds_codes() {
        let (sc, mut w) = world();
        let mut rib = Rib::new(RoutePlan::new(&sc, 1, &w, &[]), Vec::new());
        let who = Registrant { slot: 0, node: w.net.nodes[0].id, face: FaceId(9), nfd_face_id: 256 };
        let mut c = cmd("register", "/x", None);
        c.module = b"faces".to_vec();
        assert_eq!(rib.command(&mut w, who, &c).0, 501);
        assert_eq!(rib.command(&mut w, who, &cmd("register", "/x", Some(300))).0, 410);
        let mut c = cmd("register", "/x", None);
        c.params = Ok(ControlParameters::default());
        assert_eq!(rib.command(&mut w, who, &c).0, 400);
    }

    #[test]
    fn a_prefix_ending_in_a_segment_keeps_it() {
        let name = vec![Component::generic(b"a"), Component::segment(3)];
        assert_eq!(prefix_text(&name), "/a/50=%03");
        assert_eq!(prefix_text(&[Component::segment(3)]), "/50=%03");
        assert_eq!(prefix_text(&[]), "/");
    }
}
