//! `cargo run --release --example summary -- SCENARIO.toml [key=value …]`: run a scenario and
//! print its consumer and bottleneck summary rows.

use ndncc_core::api::{run, RunOptions};
use ndncc_core::scenario::load_file;

fn main() {
    let mut args = std::env::args().skip(1);
    let Some(path) = args.next() else {
        eprintln!("usage: summary SCENARIO.toml [key=value …]");
        std::process::exit(2);
    };
    let overrides: Vec<String> = args.collect();
    let sc = match load_file(std::path::Path::new(&path), &overrides) {
        Ok(s) => s,
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(2);
        }
    };
    match run(&sc, &RunOptions::default(), &mut |_| true) {
        Ok(out) => {
            for r in &out.summary {
                if r.kind == "consumer"
                    || (r.kind == "face"
                        && (r.metric == "utilisation" || r.metric.starts_with("drops") || r.metric == "marks"))
                        && r.value != 0.0
                    || r.kind == "run"
                {
                    println!("{:<10} {:<20} {:>14.4} {}", r.entity, r.metric, r.value, r.unit);
                }
            }
            // NDNCC_SERIES="C:window,R2->R1:queue_packets" prints those series.
            if let Ok(spec) = std::env::var("NDNCC_SERIES") {
                for item in spec.split(',') {
                    let Some((ent, met)) = item.split_once(':') else { continue };
                    for table in [&out.series, &out.faces] {
                        for i in 0..table.len() {
                            if table.entities[table.entity[i] as usize] == ent
                                && table.metrics[table.metric[i] as usize] == met
                            {
                                println!("{ent} {met} {:.3} {}", table.t[i], table.value[i]);
                            }
                        }
                    }
                }
            }
            println!(
                "wall {:.3}s, {} events, {} hops",
                out.stats.wall_seconds, out.stats.events, out.stats.packet_hops
            );
        }
        Err(e) => {
            eprintln!("error: {e}");
            std::process::exit(1);
        }
    }
}
