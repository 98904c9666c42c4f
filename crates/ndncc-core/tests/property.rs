//! Properties over many inputs: random topologies with every controller, queue, module and loss
//! type (co-located apps included) terminate within an event budget and conserve Interests;
//! mutated scenario files never panic the loader.

use ndncc_core::api::{run, Error, RunOptions};
use ndncc_core::cc::external::PYTHON;
use ndncc_core::cc::rate::RateConfig;
use ndncc_core::cc::window::WindowConfig;
use ndncc_core::forwarder::strategy::StrategyConfig;
use ndncc_core::module::ModuleConfig;
use ndncc_core::queue::QueueConfig;
use ndncc_core::rng::stream;
use ndncc_core::scenario::load_str;
use proptest::prelude::*;
use rand::seq::SliceRandom;
use rand::Rng;

const LOSSES: [&str; 3] = [
    r#"{ type = "none" }"#,
    r#"{ type = "bernoulli", p = "1%" }"#,
    r#"{ type = "gilbert-elliott", p_good_to_bad = 0.01, p_bad_to_good = 0.3 }"#,
];

/// The types that run without the Python front ("python" needs it and a class).
fn native(types: &[&'static str]) -> Vec<&'static str> {
    types.iter().copied().filter(|&k| k != PYTHON).collect()
}

/// A random connected scenario of 3 to 12 nodes, written as a scenario file.
fn random_scenario(seed: u64) -> String {
    let mut g = stream(seed, "property");
    let n = g.gen_range(3..=12);
    let mut s = format!("[simulation]\nduration = \"{}ms\"\nseed = {seed}\n\n[nodes]\n", g.gen_range(300..1500));
    // Nodes whose module refuses Interests with NACKs: no consumer may sit on one (validation
    // refuses it, as the refusal and the resend would come in zero time).
    let mut refusing = vec![false; n];
    for (i, refuses) in refusing.iter_mut().enumerate() {
        let strategy = StrategyConfig::TYPES.choose(&mut g).copied().unwrap_or("best-route");
        let mut node = format!("N{i} = {{ strategy = {{ type = \"{strategy}\" }}");
        if g.gen_bool(0.3) {
            let module = ModuleConfig::TYPES.choose(&mut g).copied().unwrap_or("mircc");
            *refuses = module == "interest-limit" || module == "hbh-shaper";
            let m = if module == "static-rate-stamp" {
                r#"{ type = "static-rate-stamp", rate = 500.0 }"#.to_string()
            } else {
                format!(r#"{{ type = "{module}" }}"#)
            };
            node.push_str(&format!(", modules = [{m}]"));
        }
        if g.gen_bool(0.2) {
            node.push_str(", content_store = { capacity = 100 }");
        }
        if g.gen_bool(0.15) {
            node.push_str(&format!(", clock_tick = \"{}ms\"", g.gen_range(1..50)));
        }
        s.push_str(&node);
        s.push_str(" }\n");
    }
    // A random tree plus a few extra links.
    let mut pairs = std::collections::BTreeSet::new();
    for i in 1..n {
        pairs.insert((g.gen_range(0..i), i));
    }
    for _ in 0..g.gen_range(0..3) {
        let (a, b) = (g.gen_range(0..n), g.gen_range(0..n));
        if a != b {
            pairs.insert((a.min(b), a.max(b)));
        }
    }
    for (a, b) in pairs {
        let queue = QueueConfig::TYPES.choose(&mut g).copied().unwrap_or("droptail");
        let loss = LOSSES.choose(&mut g).copied().unwrap_or(LOSSES[0]);
        s.push_str(&format!(
            "\n[links.N{a}-N{b}]\nbandwidth = \"{}Mbps\"\ndelay = \"{}ms\"\nqueue = {{ type = \"{queue}\" }}\nloss = {loss}\n",
            g.gen_range(1..50),
            g.gen_range(0..20),
        ));
    }
    let producers = g.gen_range(1..=2);
    let mut producer_nodes = Vec::new();
    for p in 0..producers {
        let at = g.gen_range(0..n);
        producer_nodes.push(at);
        s.push_str(&format!(
            "\n[apps.P{p}]\ntype = \"producer\"\nnode = \"N{at}\"\nprefix = \"/p{p}\"\nprocessing_delay = \"{}us\"\n",
            g.gen_range(1..500)
        ));
    }
    for c in 0..g.gen_range(1..=4) {
        let prefix = g.gen_range(0..producers);
        // Not on the node of its own producer: with nothing between them, a window grows until
        // the consumer's cap (tests/robustness.rs covers that case).
        let mut at = (g.gen_range(1..n) + producer_nodes[prefix]) % n;
        // The next node along that is neither the producer's nor a refusing one, if any.
        for step in 0..n {
            let k = (at + step) % n;
            if k != producer_nodes[prefix] && !refusing[k] {
                at = k;
                break;
            }
        }
        let control = if g.gen_bool(0.75) {
            format!(
                r#"window = {{ type = "{}" }}"#,
                native(WindowConfig::TYPES).choose(&mut g).copied().unwrap_or("aimd")
            )
        } else {
            format!(
                r#"rate = {{ type = "{}" }}"#,
                native(RateConfig::TYPES).choose(&mut g).copied().unwrap_or("constant")
            )
        };
        let segments = if g.gen_bool(0.5) { format!("segments = {}\n", g.gen_range(1..300)) } else { String::new() };
        s.push_str(&format!(
            "\n[apps.C{c}]\ntype = \"consumer\"\nnode = \"N{at}\"\nprefix = \"/p{prefix}\"\nstart = \"{}ms\"\n{segments}{control}\n",
            g.gen_range(0..200)
        ));
    }
    s.push_str("\n[record]\ninterval = \"50ms\"\n");
    s
}

#[test]
fn random_topologies_terminate_within_an_event_budget_and_conserve_interests() {
    let budget = 3_000_000;
    let mut ran = 0;
    for seed in 0..60 {
        let text = random_scenario(seed);
        let sc = load_str(&text, "random.toml", &[]).unwrap_or_else(|e| panic!("seed {seed}: {e}\n{text}"));
        let opts = RunOptions { stall_limit: Some(200_000), ..RunOptions::default() };
        match run(&sc, &opts, &mut |_| true) {
            Ok(out) => {
                assert!(out.stats.events < budget, "seed {seed}: {} events", out.stats.events);
                let ok = out.summary.iter().find(|r| r.metric == "conservation_ok").map(|r| r.value);
                assert_eq!(ok, Some(1.0), "seed {seed}: Interest conservation\n{text}");
                ran += 1;
            }
            // A scenario may be degenerate (a zero-delay loop): it must say so, not hang.
            Err(Error::Stalled(m)) => assert!(m.contains("simulated time stopped"), "seed {seed}: {m}"),
            Err(e) => panic!("seed {seed}: {e}\n{text}"),
        }
    }
    assert!(ran >= 50, "only {ran} of 60 random scenarios ran to the end");
}

/// A valid scenario to mutate.
const BASE: &str = r#"
[simulation]
duration = "1s"

[defaults.link]
bandwidth = "10Mbps"
delay = "5ms"
queue = { type = "codel-mark" }

[nodes]
C = { clock_tick = "10ms" }
R = { strategy = { type = "multicast" }, modules = [{ type = "mircc" }] }
P = {}

[links.C-R]
loss = { type = "bernoulli", p = "1%" }
[links.R-P]

[apps.P]
type = "producer"
node = "P"
prefix = "/p"
payload = "1000B"

[apps.C]
type = "consumer"
node = "C"
prefix = "/p"
segments = 50
rtt = { k = 4, min_rto = "200ms" }
window = { type = "pcon", law = "cubic" }
"#;

/// Tokens a mutation may put in place of another.
const TOKENS: &[&str] = &[
    "0",
    "-1",
    "1e300",
    "nan",
    "inf",
    "\"\"",
    "\"0s\"",
    "\"1e30s\"",
    "\"4294967296B\"",
    "[]",
    "{}",
    "\"x\"",
    "true",
    "= =",
    "[[",
    "\"/\"",
    "\"->\"",
    "18446744073709551615",
    "0.0000001",
    "\"100%\"",
    "\"-5ms\"",
];

proptest! {
    #![proptest_config(ProptestConfig { cases: 400, failure_persistence: None, ..ProptestConfig::default() })]

    /// Replace, delete or duplicate random pieces of a valid file: loading gives a scenario or
    /// an error naming the file, never a panic; what loads also runs (briefly) without a panic.
    #[test]
    fn mutated_scenarios_never_panic(edits in prop::collection::vec((0usize..2000, 0usize..TOKENS.len(), 0u8..3), 1..4)) {
        let mut text = BASE.to_string();
        for (at, tok, kind) in edits {
            let at = text.char_indices().map(|(i, _)| i).nth(at % text.chars().count()).unwrap_or(0);
            let end = text[at..].find([' ', '\n', ',', '}']).map_or(text.len(), |k| at + k);
            match kind {
                0 => text.replace_range(at..end, TOKENS[tok]),
                1 => text.replace_range(at..end, ""),
                _ => { let piece = text[at..end].to_string(); text.insert_str(end, &piece); }
            }
        }
        match load_str(&text, "mutated.toml", &[]) {
            Ok(sc) => {
                let opts = RunOptions { stall_limit: Some(100_000), ..RunOptions::default() };
                let _ = run(&sc, &opts, &mut |_| true);
            }
            Err(e) => prop_assert!(e.to_string().starts_with("mutated.toml"), "{}", e),
        }
    }
}
