//! `ndncc-bench [--duration SECONDS] [--no-record] [--all | NAME…]`: run the standard scenarios
//! (or all, or the ones named) and print one JSON line each with the simulated packet-hops per
//! wall-clock second, the nanoseconds per hop, the set-up time and the peak memory. Run one
//! scenario per process to read its own peak memory. A longer duration shows that peak
//! memory follows the traffic in flight, not the length of the run. `recorded_mb` is the part of
//! that memory holding the recorded samples (the run's output): the rest is simulation state.
//! `--no-record` runs the same worlds without their 100 ms samples: the difference from a run
//! with them is what recording costs.

use ndncc_core::bench::Recording;
use ndncc_core::{api, bench};

fn main() {
    let mut args: Vec<String> = std::env::args().skip(1).collect();
    let mut seconds = bench::STANDARD_SECONDS;
    if let Some(i) = args.iter().position(|a| a == "--duration") {
        let Some(secs) = args.get(i + 1).and_then(|s| s.parse::<f64>().ok()) else {
            eprintln!("ndncc-bench: --duration needs a number of seconds");
            std::process::exit(2);
        };
        seconds = secs;
        args.drain(i..i + 2);
    }
    let all = args.iter().any(|a| a == "--all");
    let rec = if args.iter().any(|a| a == "--no-record") { Recording::Off } else { Recording::On };
    args.retain(|a| a != "--all" && a != "--no-record");
    let names = if all {
        bench::all_names()
    } else if args.is_empty() {
        bench::standard_names()
    } else {
        args
    };
    for name in names {
        match api::bench_for(&name, seconds, rec, &mut |_| true) {
            Ok(measured) => println!("{}", serde_json::to_value(measured).unwrap_or_default()),
            Err(e) => {
                eprintln!("ndncc-bench: {e}");
                std::process::exit(2);
            }
        }
    }
}
