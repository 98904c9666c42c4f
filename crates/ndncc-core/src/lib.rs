//! # ndncc-core
//!
//! A fast, deterministic, packet-level discrete-event simulator for congestion control in
//! Named Data Networking.
//!
//! ```text
//!  scenario (TOML) ─parse/validate─▶ Scenario ─build─▶ World ─run─▶ Recorder ─▶ columns
//! ```
//!
//! Time is integer nanoseconds (`time`); the event queue orders by (time, insertion sequence)
//! (`event_queue`); every component draws from its own RNG stream derived from the root seed and
//! its name (`rng`). Components live in arenas and refer to each other by typed indices (`ids`).
//! Algorithms plug in through small traits: `cc::WindowControl`, `cc::RateControl`,
//! `queue::QueueDisc`, `forwarder::strategy::Strategy`, `module::RouterModule`,
//! `linkservice::LinkService`; `tap::PacketTap` observes every packet event.
pub mod allocator;
pub mod api;
pub mod app;
pub mod bench;
pub mod cc;
pub mod column;
pub mod ctx;
pub mod egress;
pub mod emulate;
pub mod event_queue;
pub mod face;
pub mod face_selection;
pub mod flight;
pub mod forwarder;
pub mod histogram;
pub mod ids;
pub mod instantiate;
pub mod link_trace;
pub mod linkservice;
pub mod long_table;
pub mod loss;
pub mod module;
pub mod names;
pub mod packet;
pub mod plugin;
pub mod prefetch;
pub mod queue;
pub mod recorder;
pub mod ring;
pub mod rng;
pub mod routing;
pub mod rtt;
pub mod scenario;
pub mod tap;
pub mod time;
pub mod trace;
pub mod units;
pub mod wire;
pub mod world;
