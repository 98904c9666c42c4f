//! The NDN forwarder's tables and strategies. The packet-processing pipeline itself lives in
//! `world::forwarding`, where it can reach faces and applications.

pub mod cs;
pub mod fib;
pub mod fib_cache;
pub mod pit;
pub mod pit_hash;
pub mod pit_index;
pub mod strategy;

pub use cs::ContentStore;
pub use fib::{Fib, FibEntryId, NextHop};
pub use pit::{InRecord, OutRecord, Pit, PitEntry};
