//! How many Interests a consumer may keep in flight: what its network can hold and answer.
//!
//! A controller that hears no congestion signal (a window with no loss on its path, a rate that
//! ignores timeouts) grows without bound, and every Interest in flight costs memory at the
//! consumer and in the PITs along its path. But more Interests than the network can hold, or
//! answer within an Interest's lifetime, only time out: an Interest in flight is in a queue or on
//! a wire, at the producer, or lost and waiting for its timeout. So a consumer's Interests in
//! flight are capped at
//!
//! ```text
//! limit = clamp(MARGIN · (held + answered), MIN_IN_FLIGHT_LIMIT, MAX_IN_FLIGHT)
//! held     = Σ over every link direction: queue capacity + bandwidth · delay  [Interests]
//! answered = Σ over the link directions into the consumer's node:
//!            bandwidth · lifetime / its Data's size                           [Data]
//! ```
//!
//! Byte limits and wire capacity count in Interests of the consumer's size (the smallest
//! packets, so the largest count). A consumer that reaches its limit reports it in its summary
//! (`in_flight_limit`, `in_flight_limit_reached_s`).

use super::app::ConsumerSpec;
use super::link::Dir;
use super::types::Scenario;
use crate::names::components;
use crate::wire::ndn::{data_wire_size, interest_wire_size};

/// How many times what the network holds and answers a consumer may have in flight.
pub const IN_FLIGHT_MARGIN: f64 = 4.0;
/// The least limit, whatever the network: a consumer on its producer's node crosses no link.
pub const MIN_IN_FLIGHT_LIMIT: u64 = 1_000;
/// The most Interests any consumer may have in flight (the largest window).
pub const MAX_IN_FLIGHT: u64 = crate::plugin::check::MAX_WINDOW as u64;

impl Scenario {
    /// The most Interests consumer `c` may have in flight in this scenario (link values drawn).
    pub fn in_flight_limit(&self, c: &ConsumerSpec) -> u64 {
        let prefix = components(&c.prefix);
        let interest = match c.interest_size {
            Some(size) => size.0,
            None => interest_wire_size(&prefix, 0, c.lifetime.get().nanos()) as u64,
        }
        .max(1) as f64;
        let data = match self.producer_for(&c.prefix) {
            Some((_, p)) => match p.overhead {
                Some(o) => p.payload.0.saturating_add(o.0),
                None => data_wire_size(&prefix, 0, p.freshness.get().nanos(), p.payload.0 as usize) as u64,
            },
            None => 1,
        }
        .max(1) as f64;
        let lifetime = c.lifetime.get().as_secs_f64();
        let (mut held, mut answered) = (0.0f64, 0.0f64);
        for link in self.links.values() {
            for dir in [Dir::AB, Dir::BA] {
                let d = link.direction(dir);
                let bits_per_s = d.bandwidth.bps() as f64;
                held += d.queue.holds_packets(interest as u64) as f64;
                held += bits_per_s * d.delay.get().as_secs_f64() / (8.0 * interest);
                if d.underlay.is_some() {
                    held += d.underlay_queue as f64;
                }
                if let Some(s) = d.interest_shaper {
                    held += s.depth as f64;
                }
                if d.to == c.node {
                    answered += bits_per_s * lifetime / (8.0 * data);
                }
            }
        }
        let limit = IN_FLIGHT_MARGIN * (held + answered);
        // `as` saturates, and a NaN (none is possible from valid values) becomes 0.
        (limit.ceil() as u64).clamp(MIN_IN_FLIGHT_LIMIT, MAX_IN_FLIGHT)
    }
}

#[cfg(test)]
mod tests {
    use crate::scenario::{load_str, AppSpec};

    fn limit(links: &str, consumer_node: &str) -> u64 {
        let text = format!(
            "[simulation]\nduration = \"1s\"\n[nodes]\nC = {{}}\nP = {{}}\n{links}\n\
             [apps.P]\ntype = \"producer\"\nnode = \"P\"\nprefix = \"/p\"\npayload = \"1000B\"\noverhead = \"250B\"\n\
             processing_delay = \"1ms\"\n\
             [apps.C]\ntype = \"consumer\"\nnode = \"{consumer_node}\"\nprefix = \"/p\"\ninterest_size = \"50B\"\n\
             lifetime = \"2s\"\nwindow = {{ type = \"aimd\" }}\n"
        );
        let sc = load_str(&text, "x.toml", &[]).unwrap_or_else(|e| panic!("{e}"));
        let Some(AppSpec::Consumer(c)) = sc.apps.get("C") else { panic!("no consumer") };
        sc.in_flight_limit(c)
    }

    #[test]
    fn a_two_node_link_holds_its_queues_and_wires_and_answers_a_lifetime_of_data() {
        // 10 Mbps, 10 ms, 100-packet queues: each direction holds 100 + 10^7 · 0.01 / 400 = 350
        // Interests; into C come 10^7 · 2 / (8 · 1,250) = 2,000 Data a lifetime. 4 · 2,700.
        let links = "[links.C-P]\nbandwidth = \"10Mbps\"\ndelay = \"10ms\"\n";
        assert_eq!(limit(links, "C"), 10_800);
    }

    #[test]
    fn a_consumer_on_its_producers_node_gets_the_least_limit_and_a_huge_network_the_most() {
        assert_eq!(limit("", "P"), super::MIN_IN_FLIGHT_LIMIT);
        let links = "[links.C-P]\nbandwidth = \"100Gbps\"\ndelay = \"1s\"\n";
        assert_eq!(limit(links, "C"), super::MAX_IN_FLIGHT);
    }
}
