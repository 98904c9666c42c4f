//! The world's idle polls change nothing: a run in which the world runs consumers' idle timer
//! polls itself records exactly what a run that wakes every consumer for every poll records.

use super::World;
use crate::time::SimDuration;

/// Consumers that poll their timers in different ways over a lossy bottleneck: AIMD and PCON
/// windows that time out and back off, a deadline per Interest, a file download that ends, a
/// consumer that stops early, odd poll periods, and a coarse clock that moves wake-ups onto
/// its ticks.
const SCENARIO: &str = r#"
[simulation]
duration = "6s"
seed = 7

[record]
interval = "50ms"
events = true

[defaults.link]
bandwidth = "20Mbps"
delay = "3ms"
queue = { type = "droptail", packets = 6 }

[nodes]
A = {}
B = {}
C = { clock_tick = "7ms" }
R1 = {}
R2 = {}
P = {}

[links.A-R1]
[links.B-R1]
[links.C-R1]
[links.R1-R2]
bandwidth = "4Mbps"
delay = "10ms"
[links.R2-P]

[apps.p]
type = "producer"
node = "P"
prefix = "/p"

[apps.aimd]
type = "consumer"
node = "A"
prefix = "/p/a"
window = { type = "aimd" }

[apps.fixed]
type = "consumer"
node = "A"
prefix = "/p/f"
window = { type = "fixed", window = 30 }
timeout_check = "13ms"
lifetime = "300ms"

[apps.per_interest]
type = "consumer"
node = "B"
prefix = "/p/b"
window = { type = "fixed", window = 20 }
rto_per_interest = true

[apps.download]
type = "consumer"
node = "B"
prefix = "/p/d"
window = { type = "aimd" }
segments = 900

[apps.stops]
type = "consumer"
node = "C"
prefix = "/p/s"
window = { type = "pcon", law = "aimd" }
stop = "2s"

[apps.coarse]
type = "consumer"
node = "C"
prefix = "/p/c"
window = { type = "fixed", window = 25 }
timeout_check = "20ms"
"#;

fn world() -> World {
    let sc = crate::scenario::load_str(SCENARIO, "idle_polls.toml", &[]).expect("a valid scenario");
    crate::instantiate::build_world(&sc, 1).expect("builds")
}

type Row = (u64, u32, u32, u64);

fn rows(w: &World) -> (Vec<Row>, Vec<Row>) {
    let bits =
        |c: &crate::recorder::Columns| -> Vec<Row> { c.rows().map(|(t, e, m, v)| (t, e, m, v.to_bits())).collect() };
    (bits(&w.recorder.series), bits(&w.recorder.faces))
}

#[test]
fn running_idle_polls_in_the_world_records_what_waking_the_consumers_does() {
    let mut fast = world();
    fast.run(SimDuration::ZERO, &mut |_| true);
    let mut slow = world();
    slow.idle_polls = false;
    slow.run(SimDuration::ZERO, &mut |_| true);

    assert!(fast.idle_polls_run > 300, "the world ran only {} idle polls", fast.idle_polls_run);
    assert_eq!(slow.idle_polls_run, 0);
    assert!(slow.recorder.series.len() > 1000);
    let timeouts = slow.summary().iter().filter(|r| r.metric == "timeouts").map(|r| r.value).sum::<f64>();
    assert!(timeouts > 10.0, "the scenario should time Interests out, timed out {timeouts}");
    assert_eq!(fast.counters, slow.counters);
    assert!(rows(&fast) == rows(&slow), "recorded rows differ");
    let summary = |w: &World| -> Vec<(String, String, u64)> {
        w.summary().into_iter().map(|r| (r.entity, r.metric, r.value.to_bits())).collect()
    };
    assert_eq!(summary(&fast), summary(&slow));
}
