//! `ndncc-bench [NAME…]`: run the standard scenarios and print one JSON line each with the
//! simulated packet-hops per wall-clock second.

use std::time::Instant;

use ndncc_core::bench;
use ndncc_core::time::SimDuration;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let names = if args.is_empty() { bench::standard_names() } else { args };
    for name in names {
        let Some(mut world) = bench::standard(&name) else {
            eprintln!("ndncc-bench: unknown scenario '{name}' (known: {})", bench::standard_names().join(", "));
            std::process::exit(2);
        };
        let t0 = Instant::now();
        world.run(SimDuration::ZERO, &mut |_| true);
        let wall = t0.elapsed().as_secs_f64();
        let hops = world.counters.packet_hops;
        let line = serde_json::json!({
            "scenario": name,
            "sim_seconds": world.end_time().as_secs_f64(),
            "wall_seconds": wall,
            "events": world.counters.events,
            "packet_hops": hops,
            "packet_hops_per_s": hops as f64 / wall,
            "peak_rss_mb": bench::peak_rss_mb(),
        });
        println!("{line}");
    }
}
