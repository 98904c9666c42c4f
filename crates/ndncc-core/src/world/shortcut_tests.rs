//! The world's shortcuts change nothing: a run in which the world runs consumers' idle timer
//! polls itself, repeats the samples of apps that ran no hook since and prefetches what the
//! next event reads records exactly what a run that wakes every consumer for every poll,
//! samples every app afresh and prefetches nothing records.

use super::World;
use crate::time::SimDuration;

/// Consumers that poll their timers in different ways over a lossy bottleneck: AIMD, CUBIC and
/// PCON windows that time out and back off, a deadline per Interest, a file download that ends,
/// a consumer that stops early, odd poll periods, a coarse clock that moves wake-ups onto its
/// ticks, and rate consumers, one of them starting late. Samples every 50 ms, shorter than most
/// gaps between a quiet consumer's packets, so that many are repeated.
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
segments = 150

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

[apps.drains]
type = "consumer"
node = "B"
prefix = "/p/n"
window = { type = "fixed", window = 10 }
start = "3s"
stop = "4s"

[apps.cubic]
type = "consumer"
node = "B"
prefix = "/p/u"
window = { type = "cubic" }
start = "1s"

[apps.cbr]
type = "consumer"
node = "A"
prefix = "/p/r"
rate = { type = "constant", rate = 30.0 }

[apps.late_cbr]
type = "consumer"
node = "C"
prefix = "/p/l"
rate = { type = "constant", rate = 3.0 }
start = "2.5s"
"#;

fn world(text: &str, file: &str, overrides: &[String]) -> World {
    let sc = crate::scenario::load_str(text, file, overrides).expect("a valid scenario");
    crate::instantiate::build_world(&sc, 1).expect("builds")
}

/// Where the shipped scenarios are.
fn scenarios_dir() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scenarios")
}

/// A shipped scenario's text.
fn shipped(file: &str) -> String {
    let path = scenarios_dir().join(file);
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Run `text` with the shortcuts and without; check that they record the same and run the same
/// number of events, and return both worlds.
fn both(text: &str, file: &str, overrides: &[String]) -> (World, World) {
    both_tuned(text, file, overrides, |_| {})
}

/// `both`, with the world that takes the shortcuts tuned by `tune` before it runs.
fn both_tuned(text: &str, file: &str, overrides: &[String], tune: impl Fn(&mut World)) -> (World, World) {
    let mut fast = world(text, file, overrides);
    tune(&mut fast);
    fast.run(SimDuration::ZERO, &mut |_| true);
    let mut slow = world(text, file, overrides);
    slow.engine.shortcuts = false;
    slow.run(SimDuration::ZERO, &mut |_| true);
    assert_eq!(slow.engine.idle_polls_run, 0);
    assert_eq!(slow.engine.sampling.app_samples.repeated, 0);
    assert_eq!(fast.counters(), slow.counters(), "{file}: events or hops differ");
    assert!(rows(&fast) == rows(&slow), "{file}: recorded rows differ");
    let summary = |w: &World| -> Vec<(String, String, u64)> {
        w.summary().into_iter().map(|r| (r.entity, r.metric, r.value.to_bits())).collect()
    };
    assert_eq!(summary(&fast), summary(&slow), "{file}: summaries differ");
    (fast, slow)
}

type Row = (u64, u32, u32, u64);

fn rows(w: &World) -> (Vec<Row>, Vec<Row>) {
    let bits =
        |c: &crate::recorder::Columns| -> Vec<Row> { c.rows().map(|(t, e, m, v)| (t, e, m, v.to_bits())).collect() };
    (bits(&w.recorder().series), bits(&w.recorder().faces))
}

#[test]
fn the_shortcuts_record_what_waking_and_sampling_every_consumer_records() {
    let (fast, slow) = both(SCENARIO, "shortcuts.toml", &[]);
    assert!(fast.engine.idle_polls_run > 300, "the world ran only {} idle polls", fast.engine.idle_polls_run);
    assert!(
        fast.engine.sampling.app_samples.repeated > 100,
        "the world repeated only {} samples",
        fast.engine.sampling.app_samples.repeated
    );
    assert!(slow.recorder().series.len() > 1000);
    let timeouts = slow.summary().iter().filter(|r| r.metric == "timeouts").map(|r| r.value).sum::<f64>();
    assert!(timeouts > 10.0, "the scenario should time Interests out, timed out {timeouts}");
}

/// Consumers on a node of their own, the first stopping at 1 s and the second starting at 3 s:
/// the node's faces and the routers' faces towards it are idle in between, and active again.
const IDLE_THEN_ACTIVE: &str = r#"
[nodes.D]

[links.D-R1]

[apps.first]
type = "consumer"
node = "D"
prefix = "/p/x"
window = { type = "fixed", window = 8 }
stop = "1s"

[apps.again]
type = "consumer"
node = "D"
prefix = "/p/y"
window = { type = "aimd" }
start = "3s"
"#;

/// Without per-packet events, a tick repeats the rows of the apps and faces nothing happened
/// to from the tick before without visiting them, and the rows of those that moved (apps
/// recording a row more, such as a first RTT, or faces idle and then active again) are where
/// visiting every one of them puts them: a value kept too long would differ here.
#[test]
fn ticks_that_visit_only_what_changed_record_what_visiting_everything_records() {
    let text = format!("{SCENARIO}{IDLE_THEN_ACTIVE}");
    let (fast, _) = both(&text, "idle.toml", &["record.events=false".to_string()]);
    let sampling = &fast.engine.sampling;
    let ticks = 6_000 / 50 + 1;
    let (apps, faces) = (fast.net.apps.len() as u64, sampling.faces.len() as u64);
    // Most apps are repeated at most ticks (the consumers that ended, the quiet ones between
    // their packets), and some faces (the idle node's, while it is idle: 40 ticks each way).
    let (app_repeats, face_repeats) = (sampling.app_samples.layout.repeated, sampling.face_samples.layout.repeated);
    assert!(app_repeats > ticks * apps / 2, "{app_repeats} app rows repeated of {}", ticks * apps);
    assert!(face_repeats > 80 && face_repeats < ticks * faces, "{face_repeats} face rows repeated");
    // The face of the idle node was idle, and then active again.
    let d = fast.recorder().entity_names().iter().position(|e| e == "D->R1").expect("a face D->R1") as u32;
    let sent = fast.recorder().metric_names().iter().position(|m| m == "bytes_sent").expect("bytes_sent") as u32;
    let mut sent_at: Vec<(u64, f64)> = Vec::new();
    fast.recorder().faces.for_each_row(|t, e, m, v| {
        if (e, m) == (d, sent) {
            sent_at.push((t, v));
        }
    });
    let at = |s: f64| sent_at.iter().find(|r| r.0 == (s * 1e9) as u64).map(|r| r.1).expect("a sample");
    assert!(at(0.5) > 0.0 && at(1.5) == at(2.9) && at(3.5) > at(2.9), "{sent_at:?}");
    // And the marks miss nothing.
    let mut checked = world(&text, "idle.toml", &["record.events=false".to_string()]);
    checked.check_face_samples();
    checked.run(SimDuration::ZERO, &mut |_| true);
    assert!(rows(&checked) == rows(&fast));
}

/// A tree of 259 nodes (516 faces), large enough for the world to prefetch. Its Interests
/// live 60 ms, about the round trip through a busy root, so that many expire and are retried:
/// arrivals, PIT sweeps and app wake-ups all come next in turn. Its PITs' hash tables are far
/// smaller than those the look ahead finds buckets in, so that it is told to from any size.
#[test]
fn prefetching_changes_nothing_in_a_large_tree() {
    let text = crate::bench::tree_text(6, 3, SimDuration::from_millis(1500))
        .replace("window = 4 }\n", "window = 4 }\nlifetime = \"60ms\"\n");
    let (mut fast, _) = both_tuned(&text, "tree.toml", &[], |w| w.engine.prefetch_buckets_above = 0);
    assert!(fast.net.faces.len() >= super::PREFETCH_FROM_FACES);
    // The busy nodes' PITs hash, and the look ahead found their buckets.
    assert!(fast.net.prefetch_buckets, "the look ahead never found a bucket");
    for n in &fast.net.nodes {
        assert_eq!(n.pit.is_hashed(), fast.net.pit_hashed(n.id), "node {} is marked wrong", fast.net.node_name(n.id));
    }
    assert!(fast.net.hashed_pits.len() > 5, "only {} PITs hash", fast.net.hashed_pits.len());
    // The tables are weighed against the limit, and once above it stay so.
    let net = &mut fast.net;
    let bytes: usize = net.nodes.iter().map(|n| n.pit.index_bytes()).sum();
    net.prefetch_buckets = false;
    net.update_bucket_prefetch(bytes);
    assert!(!net.prefetch_buckets, "{bytes} bytes of tables are not above {bytes}");
    net.update_bucket_prefetch(bytes - 1);
    assert!(net.prefetch_buckets, "{bytes} bytes of tables are above {}", bytes - 1);
    net.update_bucket_prefetch(usize::MAX);
    assert!(net.prefetch_buckets, "once above, always above");
    // Each link face names its peer's node as its far node (the builder copies it into the
    // egress, whence the arrivals' hints take it).
    for f in &fast.net.faces {
        if let crate::face::FaceKind::Link { peer, peer_node, .. } = f.kind {
            assert_eq!(
                peer_node,
                fast.net.faces[peer.idx()].node,
                "face {} names the wrong far node",
                fast.net.face_name(f.id)
            );
        }
    }
    assert!(fast.counters().packet_hops > 100_000, "only {} hops", fast.counters().packet_hops);
    let expired: u64 = fast.net.nodes.iter().map(|n| n.counters.pit_expired).sum();
    assert!(expired > 0, "no PIT entry expired: the sweeps were never next");
}

/// A dumbbell of 120 consumers that start together and poll every 50 ms over a bottleneck too
/// slow for their windows, one of them on a coarse clock: their polls fall due together and
/// wait in one lane, and the world takes most of them as runs off its front (which stop at
/// each Data arrival, timeout and sample between them).
#[test]
fn idle_polls_taken_as_runs_change_nothing() {
    let mut text = String::from(
        "[simulation]\nduration = \"4s\"\nseed = 3\n\n[record]\ninterval = \"100ms\"\n\n\
         [defaults.link]\nbandwidth = \"100Mbps\"\ndelay = \"2ms\"\n\n\
         [nodes]\nR1 = {}\nR2 = {}\nP = {}\nC0 = { clock_tick = \"3ms\" }\n",
    );
    for i in 1..120 {
        text.push_str(&format!("C{i} = {{}}\n"));
    }
    text.push_str(
        "\n[links.R1-R2]\nbandwidth = \"2Mbps\"\ndelay = \"20ms\"\nqueue = { type = \"droptail\", packets = 20 }\n",
    );
    text.push_str("\n[links.R2-P]\n\n[apps.p]\ntype = \"producer\"\nnode = \"P\"\nprefix = \"/p\"\n");
    for i in 0..120 {
        text.push_str(&format!(
            "\n[links.C{i}-R1]\n\n[apps.c{i}]\ntype = \"consumer\"\nnode = \"C{i}\"\nprefix = \"/p/c{i}\"\n\
             window = {{ type = \"fixed\", window = 3 }}\n"
        ));
    }
    let (fast, _) = both(&text, "polls.toml", &[]);
    let (run, in_runs) = (fast.engine.idle_polls_run, fast.engine.idle_polls_in_runs);
    assert!(in_runs > 2_000 && in_runs * 2 > run, "{in_runs} of {run} idle polls taken as runs");
}

/// Every shipped scenario, its first 8 simulated seconds (coarse clocks, multicast, multipath,
/// TCP …), and two in full: a consumer that stops at 25 s and drains its window
/// (`dumbbell.toml`), and AIMD consumers with a deadline per Interest polled every 10 ms
/// (`e3.toml`).
#[test]
fn the_shortcuts_change_nothing_in_shipped_scenarios() {
    let mut files: Vec<_> = std::fs::read_dir(scenarios_dir())
        .expect("the scenarios directory")
        .filter_map(|e| e.ok()?.file_name().into_string().ok())
        .filter(|f| f.ends_with(".toml"))
        .collect();
    files.sort();
    assert!(files.len() >= 10, "only {} scenario files", files.len());
    let (mut polls, mut repeats, mut ran) = (0, 0, 0);
    let eight_seconds = ["simulation.duration=\"8s\"".to_string()];
    for file in ["dumbbell.toml", "e3.toml"] {
        let (fast, _) = both(&shipped(file), file, &[]);
        assert!(
            fast.engine.idle_polls_run > 100,
            "{file}: the world ran only {} idle polls",
            fast.engine.idle_polls_run
        );
    }
    for file in &files {
        let text = shipped(file);
        // Named by its path, so that files it refers to (traces) are found beside it.
        let path = scenarios_dir().join(file).display().to_string();
        // A scenario whose traffic starts later cannot be cut short; it is left out.
        if crate::scenario::load_str(&text, &path, &eight_seconds).is_err() {
            continue;
        }
        let (fast, _) = both(&text, &path, &eight_seconds);
        polls += fast.engine.idle_polls_run;
        repeats += fast.engine.sampling.app_samples.repeated;
        ran += 1;
    }
    assert!(ran + 2 >= files.len(), "only {ran} of {} scenarios could run for 8 s", files.len());
    assert!(polls > 1000 && repeats > 100, "{polls} idle polls and {repeats} repeated samples in all");
}

/// IP applications' samples read only what their hooks change, so a quiet one's are repeated
/// unread: TCP senders of each profile (one done with its transfer, one not yet started, one
/// with CUBIC's own state), their receivers, and a UDP sink. They record what sampling every
/// application at every tick records.
#[test]
fn quiet_ip_flows_record_what_sampling_them_records() {
    let text = "[simulation]\nduration = \"6s\"\n\n[record]\ninterval = \"100ms\"\n\n\
        [defaults.link]\nbandwidth = \"20Mbps\"\ndelay = \"5ms\"\nqueue = { type = \"droptail\", packets = 40 }\n\n\
        [nodes]\nA = {}\nB = {}\nR = {}\nZ = {}\n\n\
        [links.A-R]\n[links.B-R]\n[links.R-Z]\nbandwidth = \"10Mbps\"\n\n\
        [apps.done]\ntype = \"tcp\"\nnode = \"A\"\nto = \"Z\"\nbytes = \"200kB\"\n\n\
        [apps.late]\ntype = \"tcp\"\nnode = \"B\"\nto = \"Z\"\ncc = { type = \"cubic\" }\nstart = \"3s\"\n\n\
        [apps.ns2]\ntype = \"tcp\"\nnode = \"A\"\nto = \"Z\"\nprofile = { type = \"ns2\" }\nbytes = \"100kB\"\n\n\
        [apps.ns3]\ntype = \"tcp\"\nnode = \"B\"\nto = \"Z\"\nprofile = { type = \"ns3\" }\nstart = \"1s\"\nstop = \"2s\"\n\n\
        [apps.cbr]\ntype = \"cbr\"\nnode = \"B\"\nto = \"Z\"\nrate = \"100kbps\"\npacket_size = \"500B\"\nstop = \"1s\"\n";
    let (fast, _) = both(text, "ip-shortcuts.toml", &[]);
    // 10 apps (5 sources, 5 sinks), 60 ticks: most of their samples fall while they are quiet.
    assert!(
        fast.engine.sampling.app_samples.repeated > 200,
        "{} samples repeated",
        fast.engine.sampling.app_samples.repeated
    );
}
