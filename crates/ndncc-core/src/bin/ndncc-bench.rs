//! `ndncc-bench [--duration SECONDS] [--all | NAME…]`: run the standard scenarios (or all, or the
//! ones named) and print one JSON line each with the simulated packet-hops per wall-clock second,
//! the nanoseconds per hop, the set-up time and the peak memory. Run one scenario per process
//! to read its own peak memory. A longer duration shows that peak
//! memory follows the traffic in flight, not the length of the run. `recorded_mb` is the part of
//! that memory holding the recorded samples (the run's output): the rest is simulation state.

use std::time::Instant;

use ndncc_core::api::BenchResult;
use ndncc_core::bench;
use ndncc_core::time::SimDuration;

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut duration = SimDuration::from_secs(40);
    if let Some(i) = args.iter().position(|a| a == "--duration") {
        let secs = args.get(i + 1).and_then(|s| s.parse::<f64>().ok()).filter(|s| *s > 0.0);
        let Some(secs) = secs else {
            eprintln!("ndncc-bench: --duration needs a positive number of seconds");
            std::process::exit(2);
        };
        duration = SimDuration::from_secs_f64(secs);
        args.drain(i..i + 2);
    }
    let all = args.iter().any(|a| a == "--all");
    args.retain(|a| a != "--all");
    let names = if all {
        bench::all_names()
    } else if args.is_empty() {
        bench::standard_names()
    } else {
        args
    };
    for name in names {
        let t_setup = Instant::now();
        let Some(mut world) = bench::standard_for(&name, duration) else {
            eprintln!("ndncc-bench: unknown scenario '{name}' (known: {})", bench::all_names().join(", "));
            std::process::exit(2);
        };
        let setup = t_setup.elapsed().as_secs_f64();
        let t0 = Instant::now();
        world.run(SimDuration::ZERO, &mut |_| true);
        let measured = BenchResult::of(&name, &world, t0.elapsed().as_secs_f64());
        let mut line = serde_json::to_value(measured).unwrap_or_default();
        line["setup_seconds"] = setup.into();
        println!("{line}");
    }
}
