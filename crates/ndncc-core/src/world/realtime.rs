//! Running a world in steps that a caller paces, for emulation: run the events up to a time,
//! wake an application at a time, end the run early. The world itself still reads no clock:
//! whoever calls these decides what time it is (the wall clock, in `emulate/`), and a run
//! stepped to its end handles exactly the events `World::run` would.

use super::app_samples::AppSamples;
use super::face_samples::FaceSamples;
use super::{RunEnd, World};
use crate::app::Application;
use crate::ids::{AppId, FaceId, LinkId, NodeId};
use crate::time::SimTime;

/// What tells a stalled stepped run from a busy one, carried from one step to the next: events
/// handled at the latest instant so far.
#[derive(Clone, Copy, Debug, Default)]
pub struct StepState {
    instant: SimTime,
    at_instant: u64,
}

/// How a step ended.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Step {
    /// Every event up to the limit ran; the next (if any) is later.
    Paused,
    /// The run cannot go on (as `World::run`'s `RunEnd::Stalled` and `RunEnd::Broken`).
    Ended(RunEnd),
}

impl World {
    /// Add the route `face` at `cost` for `prefix` on `node`, kept when links or nodes that go
    /// down or up make the world compute its routes again (which otherwise keeps only the
    /// scenario's own): an emulated application's registration.
    pub fn keep_route(&mut self, node: NodeId, prefix: &str, face: FaceId, cost: u64) {
        self.engine.keep_route(&mut self.net, node, prefix, face, cost);
    }

    /// Remove a route `keep_route` added; true if the FIB had it.
    pub fn drop_kept_route(&mut self, node: NodeId, prefix: &str, face: FaceId) -> bool {
        self.engine.drop_kept_route(&mut self.net, node, prefix, face)
    }

    /// How many times the world computed its routes again; a caller that installs routes of
    /// its own towards other nodes computes them again when this changes.
    pub fn route_epoch(&self) -> u64 {
        self.engine.route_epoch()
    }

    /// Is `link` up (it and both its nodes)?
    pub fn link_is_up(&self, link: LinkId) -> bool {
        link.idx() < self.net.links.len() && !self.engine.link_is_down(&self.net, link)
    }

    /// Handle every event at or before `limit` (and before the end time), calling
    /// `before_event(t)` as each event at `t` starts. The work an event sets moving is done
    /// within it, as in `World::run`.
    pub fn run_until(&mut self, limit: SimTime, state: &mut StepState, before_event: &mut dyn FnMut(SimTime)) -> Step {
        self.initialise();
        let limit = limit.min(self.engine.end);
        while let Some(t) = self.engine.queue.peek_time() {
            if t > limit {
                break;
            }
            if t == state.instant {
                state.at_instant += 1;
                if state.at_instant > self.engine.watchdog.stall_limit {
                    return Step::Ended(RunEnd::Stalled(self.engine.stall_report(&self.net, t, "events")));
                }
            } else {
                (state.instant, state.at_instant) = (t, 0);
            }
            let Some((_, ev)) = self.engine.queue.pop() else { break };
            before_event(t);
            self.engine.counters.events += 1;
            self.engine.handle(&mut self.net, ev);
            let mut done = 0u64;
            while !self.engine.drain_work(&mut self.net, &mut done) {}
            if let Some(why) = self.engine.watchdog.stalled.take() {
                return Step::Ended(RunEnd::Stalled(why));
            }
            if let Some((at, when)) = self.engine.queue.past_event() {
                return Step::Ended(RunEnd::Broken(format!("an event was scheduled at {at}, in the past of {when}")));
            }
        }
        Step::Paused
    }

    /// Attach `app` to `node` by an application face of its own, as `WorldBuilder` does,
    /// running from the start to the end. Only before the world first runs: emulation gives each
    /// connection it may accept a face this way, after the scenario's world is built.
    pub fn attach_app(&mut self, name: &str, node: NodeId, app: Box<dyn Application>) -> (AppId, FaceId) {
        assert!(!self.started, "attach_app after the world started");
        let (id, face) = self.net.push_app(name, node, app, SimTime::ZERO, None);
        // What sampling keeps per face and per app, sized afresh as `WorldBuilder::build` sizes
        // it (nothing was sampled yet); an application face is never sampled itself.
        let sampling = &mut self.engine.sampling;
        sampling.face_samples = FaceSamples::new(self.net.faces.len(), &sampling.faces);
        sampling.app_samples = AppSamples::new(self.net.apps.len());
        (id, face)
    }

    /// The time of the next event, if any.
    pub fn next_event_time(&self) -> Option<SimTime> {
        self.engine.queue.peek_time()
    }

    /// Wake application `app` at `t` (not before the current time, and on its node's clock),
    /// unless it is to be woken sooner already: how something outside the world hands an
    /// application work.
    pub fn wake_app(&mut self, app: AppId, t: SimTime) {
        self.initialise();
        self.engine.schedule_app_wake(app, t.max(self.now()));
    }

    /// End the run at `t` instead (not before the current time, never later than it was): an
    /// emulation stopped early summarises the time it ran.
    pub fn end_at(&mut self, t: SimTime) {
        self.engine.end = t.max(self.now()).min(self.engine.end);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::app::{AppCtx, Application};
    use crate::packet::Packet;
    use crate::recorder::SummaryRow;
    use crate::time::SimDuration;
    use crate::world::WorldBuilder;

    fn world() -> World {
        let text = r#"
            [simulation]
            duration = "2s"
            [nodes]
            C = {}
            P = {}
            [links.C-P]
            bandwidth = "10Mbps"
            delay = "5ms"
            [apps.prod]
            type = "producer"
            node = "P"
            prefix = "/p"
            [apps.cons]
            type = "consumer"
            node = "C"
            prefix = "/p"
            window = { type = "fixed", window = 4 }
        "#;
        let sc = crate::scenario::load_str(text, "t.toml", &[]).unwrap();
        crate::instantiate::build_world(&sc, 1).unwrap()
    }

    /// Stepping a world to its end in many small steps handles the same events as running it.
    #[test]
    fn a_run_in_steps_is_the_same_run() {
        let mut whole = world();
        assert_eq!(whole.run(SimDuration::ZERO, &mut |_| true), RunEnd::Finished);
        let mut stepped = world();
        let mut state = StepState::default();
        let mut seen = Vec::new();
        let mut t = SimTime::ZERO;
        while t <= SimTime(2_000_000_000) {
            assert_eq!(stepped.run_until(t, &mut state, &mut |at| seen.push(at)), Step::Paused);
            t += SimDuration::from_micros(700);
        }
        assert_eq!(stepped.run_until(t, &mut state, &mut |at| seen.push(at)), Step::Paused);
        assert!(seen.windows(2).all(|w| w[0] <= w[1]), "events in time order");
        assert_eq!(whole.counters(), stepped.counters());
        let rows = |w: &World| -> Vec<(String, String, f64)> {
            w.summary().into_iter().map(|r: SummaryRow| (r.entity, r.metric, r.value)).collect()
        };
        assert_eq!(rows(&whole), rows(&stepped));
    }

    /// An application woken from outside runs its hook at the time asked for.
    #[test]
    fn an_app_woken_from_outside_runs_then() {
        struct Stamp(std::sync::Arc<std::sync::Mutex<Vec<SimTime>>>);
        impl Application for Stamp {
            fn on_start(&mut self, _: &mut AppCtx) {}
            fn on_packet(&mut self, _: &mut AppCtx, _: &Packet) {}
            fn on_wake(&mut self, ctx: &mut AppCtx) {
                self.0.lock().unwrap().push(ctx.now);
            }
            fn summary(&self, _: SimTime, _: &mut Vec<SummaryRow>) {}
        }
        let seen = std::sync::Arc::new(std::sync::Mutex::new(Vec::new()));
        let mut b = WorldBuilder::new(1, SimDuration::from_secs(1));
        let n = b.add_node("N");
        let app = b.add_application("stamp", n, Box::new(Stamp(seen.clone())), SimTime::ZERO, None);
        let mut w = b.build();
        let mut state = StepState::default();
        w.run_until(SimTime(1_000), &mut state, &mut |_| {});
        w.wake_app(app, SimTime(5_000));
        w.run_until(SimTime(4_999), &mut state, &mut |_| {});
        assert!(seen.lock().unwrap().is_empty());
        w.run_until(SimTime(5_000), &mut state, &mut |_| {});
        assert_eq!(*seen.lock().unwrap(), vec![SimTime(5_000)]);
        w.end_at(SimTime(7_000));
        assert_eq!(w.end_time(), SimTime(7_000));
    }
}
