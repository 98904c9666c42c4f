//! `cargo run --release -p ndncc-core --example output_hashes -- SECONDS FILE…`: run each scenario
//! file for SECONDS simulated seconds and print one line with a hash of everything it recorded
//! (series, face series, summary). Equal lines before and after a change to the engine mean the
//! change left every result as it was.

use std::hash::{DefaultHasher, Hash, Hasher};
use std::path::Path;
use std::process::ExitCode;

use ndncc_core::api::{self, LongTable, RunOptions};
use ndncc_core::scenario;

fn hash_table(t: &LongTable, h: &mut DefaultHasher) {
    for i in 0..t.len() {
        t.t[i].to_bits().hash(h);
        t.entities[t.entity[i] as usize].hash(h);
        t.metrics[t.metric[i] as usize].hash(h);
        t.value[i].to_bits().hash(h);
    }
}

fn main() -> ExitCode {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let Some((secs, files)) =
        args.split_first().filter(|(s, f)| s.parse::<f64>().is_ok_and(|s| s > 0.0) && !f.is_empty())
    else {
        eprintln!("usage: output_hashes SECONDS FILE…");
        return ExitCode::from(2);
    };
    for file in files {
        let duration = [format!("simulation.duration=\"{secs}s\"")];
        let run = scenario::load_file(Path::new(file), &duration)
            .map_err(|e| e.to_string())
            .and_then(|sc| api::run(&sc, &RunOptions::default(), &mut |_| true).map_err(|e| e.to_string()));
        match run {
            Ok(out) => {
                let mut h = DefaultHasher::new();
                hash_table(&out.series, &mut h);
                hash_table(&out.faces, &mut h);
                for r in &out.summary {
                    (&r.entity, &r.metric, r.value.to_bits()).hash(&mut h);
                }
                let rows = out.series.len() + out.faces.len();
                println!(
                    "{file} rows={rows} events={} hops={} hash={:016x}",
                    out.stats.events,
                    out.stats.packet_hops,
                    h.finish()
                );
            }
            Err(e) => {
                eprintln!("{file}: {e}");
                return ExitCode::FAILURE;
            }
        }
    }
    ExitCode::SUCCESS
}

#[cfg(test)]
mod tests {
    use super::*;

    fn table(value: f64) -> LongTable {
        LongTable {
            t: vec![0.0, 0.1],
            entity: vec![0, 0],
            metric: vec![0, 0],
            value: vec![1.0, value],
            entities: vec!["C".into()],
            metrics: vec!["window".into()],
        }
    }

    fn hash(t: &LongTable) -> u64 {
        let mut h = DefaultHasher::new();
        hash_table(t, &mut h);
        h.finish()
    }

    #[test]
    fn one_changed_value_changes_the_hash() {
        assert_eq!(hash(&table(2.0)), hash(&table(2.0)));
        assert_ne!(hash(&table(2.0)), hash(&table(2.0 + f64::EPSILON * 2.0)));
    }
}
