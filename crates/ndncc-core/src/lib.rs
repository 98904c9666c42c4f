//! # ndncc-core
//!
//! A fast, deterministic, packet-level discrete-event simulator for congestion control in
//! Named Data Networking.
pub mod cc;
pub mod forwarder;
pub mod ids;
pub mod module;
pub mod loss;
pub mod rng;
pub mod packet;
pub mod queue;
pub mod rtt;
pub mod scenario;
pub mod time;
pub mod units;
