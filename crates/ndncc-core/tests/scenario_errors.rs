//! Every mistake a user can make in a scenario is reported with its file, line and key.

use ndncc_core::scenario::{load_str, ScenarioError};

/// A valid scenario; the cases below change one line of it or add lines at its end.
const BASE: &str = r#"[simulation]
duration = "10s"

[defaults.link]
bandwidth = "10Mbps"
delay = "10ms"

[nodes]
C1 = {}
R1 = {}
P1 = {}

[links.C1-R1]
queue = { type = "droptail", packets = 100 }

[links.R1-P1]
cost = 1

[apps.P1]
type = "producer"
node = "P1"
prefix = "/p1"

[apps.C1]
type = "consumer"
node = "C1"
prefix = "/p1"
window = { type = "fixed", window = 10 }
"#;

const FILE: &str = "scenarios/x.toml";

/// BASE with line `n` (1-based) replaced by `text` (which may span several lines).
fn with_line(n: usize, text: &str) -> String {
    let mut lines: Vec<&str> = BASE.lines().collect();
    lines[n - 1] = text;
    lines.join("\n") + "\n"
}

fn with_tail(text: &str) -> String {
    format!("{BASE}{text}")
}

fn err(text: &str, overrides: &[&str]) -> ScenarioError {
    let o: Vec<String> = overrides.iter().map(|s| s.to_string()).collect();
    match load_str(text, FILE, &o) {
        Ok(_) => panic!("expected an error for:\n{text}"),
        Err(e) => e,
    }
}

/// Assert the error's line, key and a piece of its message, and that the display shows them.
fn check(text: &str, line: usize, key: &str, says: &str) {
    let e = err(text, &[]);
    let shown = e.to_string();
    assert_eq!(e.line, Some(line), "{shown}");
    assert_eq!(e.key.as_deref(), Some(key), "{shown}");
    assert!(shown.starts_with(&format!("{FILE}:{line}: {key}: ")), "{shown}");
    assert!(e.message.contains(says), "expected '{says}' in: {shown}");
}

#[test]
fn the_base_scenario_is_valid() {
    load_str(BASE, FILE, &[]).unwrap();
}

/// One test per mistake: `case!(name, text, line, key, message piece)`.
macro_rules! case {
    ($name:ident, $text:expr, $line:expr, $key:expr, $says:expr) => {
        #[test]
        fn $name() {
            check(&$text, $line, $key, $says);
        }
    };
}

// Parsing: syntax, unknown keys, types and units.
case!(
    a_toml_syntax_error_gives_the_parsers_line,
    with_line(2, "duration = \"10s"),
    2,
    "simulation.duration",
    "TOML syntax error"
);
case!(
    a_duplicate_key_is_a_syntax_error,
    with_line(17, "cost = 1\ncost = 2"),
    18,
    "links.R1-P1.cost",
    "duplicate key 'cost'"
);
case!(a_broken_header_is_a_syntax_error, with_line(16, "[links.R1-P1"), 16, "links.R1-P1", "TOML syntax error");
case!(an_unknown_section_is_named, with_line(1, "[simulaton]"), 1, "simulaton", "expected one of simulation, defaults");
case!(
    an_unknown_simulation_key_is_named,
    with_line(3, "durations = 4"),
    3,
    "simulation.durations",
    "expected one of name, duration"
);
case!(
    an_unknown_link_key_lists_the_accepted_ones,
    with_line(17, "cost = 1\nbandwith = \"5Mbps\""),
    18,
    "links.R1-P1.bandwith",
    "expected one of endpoints, bandwidth"
);
case!(
    an_unknown_queue_type_lists_the_variants,
    with_line(14, "queue = { type = \"codle\", packets = 100 }"),
    14,
    "links.C1-R1.queue.type",
    "unknown variant 'codle', expected one of droptail"
);
case!(
    an_unknown_key_inside_a_queue_is_named,
    with_line(14, "queue = { type = \"droptail\", packts = 100 }"),
    14,
    "links.C1-R1.queue.packts",
    "unknown field 'packts'"
);
case!(
    an_unknown_strategy_lists_the_variants,
    with_line(10, "R1 = { strategy = { type = \"best-rout\" } }"),
    10,
    "nodes.R1.strategy.type",
    "expected one of best-route, multicast"
);
case!(
    an_unknown_rtt_key_is_named,
    with_tail("rtt = { k = 4, min_rot = \"1s\" }\n"),
    29,
    "apps.C1.rtt.min_rot",
    "unknown field 'min_rot'"
);
case!(
    an_unknown_key_in_a_window_subtable_is_named,
    with_tail("[apps.C1.rate]\ntype = \"constant\"\nrat = 5\n"),
    31,
    "apps.C1.rate.rat",
    "unknown field 'rat'"
);
case!(
    an_unknown_consumer_key_is_named,
    with_tail("lifetme = \"1s\"\n"),
    29,
    "apps.C1.lifetme",
    "expected one of node, prefix"
);
case!(
    a_bad_time_unit_is_named,
    with_line(2, "duration = \"10mss\""),
    2,
    "simulation.duration",
    "unknown time unit 'mss'"
);
case!(a_time_without_unit_is_rejected, with_line(2, "duration = 10"), 2, "simulation.duration", "no unit");
case!(
    a_bad_unit_in_defaults_points_at_the_default,
    with_line(5, "bandwidth = \"10Mbs\""),
    5,
    "defaults.link.bandwidth",
    "unknown bandwidth unit 'Mbs'"
);
case!(
    a_loss_above_one_is_rejected,
    with_line(17, "loss = { type = \"bernoulli\", p = \"150%\" }"),
    17,
    "links.R1-P1.loss.p",
    "outside [0, 1]"
);
case!(
    an_unknown_routing_mode_lists_the_modes,
    with_tail("[routing]\nmode = \"dynamic\"\n"),
    30,
    "routing.mode",
    "expected one of computed, static"
);
case!(a_node_that_is_not_a_table_is_explained, with_line(9, "C1 = 5"), 9, "nodes.C1", "a node is a table");
case!(
    an_unknown_defaults_section_is_named,
    with_line(4, "[defaults.lnk]"),
    4,
    "defaults.lnk",
    "expected one of link, node"
);
case!(
    an_unknown_default_key_is_named_even_if_unused,
    with_line(5, "bandwdth = \"10Mbps\""),
    5,
    "defaults.link.bandwdth",
    "unknown field 'bandwdth'"
);
case!(
    a_bad_face_selection_is_explained,
    with_tail("[record]\nfaces = \"some\"\n"),
    30,
    "record.faces",
    "expected \"all\", \"none\""
);

// Missing keys.
case!(a_missing_duration_is_named, with_line(2, "seed = 1"), 1, "simulation.duration", "missing field 'duration'");
case!(a_missing_delay_names_the_link, with_line(6, ""), 13, "links.C1-R1.delay", "missing field 'delay'");
case!(
    a_missing_loss_probability_is_named,
    with_line(17, "loss = { type = \"bernoulli\" }"),
    17,
    "links.R1-P1.loss.p",
    "missing field 'p'"
);
case!(a_missing_app_type_lists_the_types, with_line(25, ""), 24, "apps.C1.type", "expected one of consumer, producer");
case!(
    an_unknown_app_type_lists_the_types,
    with_line(25, "type = \"consumr\""),
    25,
    "apps.C1.type",
    "unknown app type 'consumr'"
);
case!(a_missing_app_node_is_named, with_line(21, ""), 19, "apps.P1.node", "missing field 'node'");

// References.
case!(
    a_link_name_that_does_not_split_needs_endpoints,
    with_line(16, "[links.R1-P2]"),
    16,
    "links.R1-P2",
    "add endpoints"
);
case!(
    a_link_endpoint_must_be_declared,
    with_tail("[links.x]\nendpoints = [\"R1\", \"P9\"]\n"),
    30,
    "links.x.endpoints",
    "'P9' is not a declared node"
);
case!(a_link_cannot_loop, with_tail("[links.x]\nendpoints = [\"R1\", \"R1\"]\n"), 30, "links.x.endpoints", "itself");
case!(
    parallel_links_are_ambiguous,
    with_tail("[links.second]\nendpoints = [\"R1\", \"C1\"]\n"),
    29,
    "links.second",
    "both connect"
);
case!(
    an_app_on_an_unknown_node_is_named,
    with_line(26, "node = \"C9\""),
    26,
    "apps.C1.node",
    "'C9' is not a declared node"
);
case!(
    a_consumer_prefix_nobody_serves_is_an_error,
    with_line(27, "prefix = \"/p9\""),
    27,
    "apps.C1.prefix",
    "no producer serves /p9"
);
case!(a_prefix_must_start_with_a_slash, with_line(27, "prefix = \"p1\""), 27, "apps.C1.prefix", "not a name prefix");
case!(
    a_route_nexthop_must_be_a_neighbour,
    with_tail("[[routes]]\nnode = \"C1\"\nprefix = \"/p1\"\nnexthop = \"P1\"\n"),
    32,
    "routes[0].nexthop",
    "not a neighbour of 'C1'"
);
case!(
    a_route_on_an_unknown_node_is_named,
    with_tail("[[routes]]\nnode = \"X\"\nprefix = \"/p1\"\nnexthop = \"R1\"\n"),
    30,
    "routes[0].node",
    "'X' is not a declared node"
);
case!(
    a_recorded_face_needs_a_link,
    with_tail("[record]\nfaces = [\"C1->P1\"]\n"),
    30,
    "record.faces[0]",
    "no link between C1 and P1"
);
case!(
    two_producers_of_one_prefix_on_one_node_clash,
    with_tail("[apps.P2]\ntype = \"producer\"\nnode = \"P1\"\nprefix = \"/p1\"\n"),
    29,
    "apps.P2",
    "both serve /p1"
);

// Values.
case!(
    window_and_rate_together_are_rejected,
    with_tail("rate = { type = \"constant\", rate = 10 }\n"),
    29,
    "apps.C1.rate",
    "exactly one of `window` or `rate`"
);
case!(a_consumer_without_controller_is_rejected, with_line(28, ""), 24, "apps.C1", "needs a controller");
case!(
    start_after_stop_is_rejected,
    with_tail("start = \"5s\"\nstop = \"2s\"\n"),
    30,
    "apps.C1.stop",
    "must be after start"
);
case!(a_start_after_the_end_is_rejected, with_tail("start = \"10s\"\n"), 29, "apps.C1.start", "end of the simulation");
case!(zero_segments_are_rejected, with_tail("segments = 0\n"), 29, "apps.C1.segments", "must be >= 1");
case!(
    segments_and_file_size_together_are_rejected,
    with_tail("file_size = \"1MB\"\nsegments = 10\n"),
    29,
    "apps.C1.file_size",
    "not both"
);
case!(a_zero_duration_is_rejected, with_line(2, "duration = \"0s\""), 2, "simulation.duration", "must be > 0");
case!(
    a_zero_clock_tick_is_rejected,
    with_line(10, "R1 = { clock_tick = \"0s\" }"),
    10,
    "nodes.R1.clock_tick",
    "must be > 0"
);
case!(
    an_interest_limit_module_on_a_consumers_own_node_is_rejected,
    with_line(9, "C1 = { modules = [{ type = \"interest-limit\" }] }"),
    9,
    "nodes.C1.modules[0]",
    "simulated time could not advance"
);
case!(
    an_hbh_shaper_module_on_a_consumers_own_node_is_rejected,
    with_line(9, "C1 = { modules = [{ type = \"hbh-shaper\" }] }"),
    9,
    "nodes.C1.modules[0]",
    "put the module on the next router"
);
/// Two multicast sources on P1 towards C1 after the base scenario; `first` and `second` are
/// extra keys of each.
fn two_groups(first: &str, second: &str) -> String {
    with_tail(&format!(
        "\n[apps.M1]\ntype = \"multicast\"\nnode = \"P1\"\nreceivers = [\"C1\"]\n{first}\n\
         [apps.M2]\ntype = \"multicast\"\nnode = \"P1\"\nreceivers = [\"C1\"]\n{second}\n"
    ))
}

#[test]
fn two_multicast_apps_of_one_group_are_rejected() {
    // Explicitly the same group, named at the second app's `group` (line 39).
    check(&two_groups("group = 3", "group = 3"), 39, "apps.M2.group", "share one tree");
    // An explicit group equal to the other's default (its place: M1 is the first, group 1).
    check(&two_groups("", "group = 1"), 39, "apps.M2.group", "is also apps.M1's");
    // Different groups, or both by default (1 and 2), are fine.
    load_str(&two_groups("group = 3", "group = 4"), FILE, &[]).unwrap();
    load_str(&two_groups("", ""), FILE, &[]).unwrap();
}

#[test]
fn multicast_group_zero_is_rejected() {
    check(&two_groups("group = 0", ""), 34, "apps.M1.group", "numbered from 1");
}

case!(
    a_sample_interval_whose_rows_would_not_fit_in_memory_is_rejected,
    with_tail("\n[record]\ninterval = \"1us\"\n"),
    31,
    "record.interval",
    "fit in memory"
);
case!(
    a_pcap_given_as_an_array_is_rejected,
    with_tail("\n[record]\npcap = []\n"),
    31,
    "record.pcap",
    "expected a table"
);
case!(
    a_pcap_with_no_faces_is_rejected,
    with_tail("\n[record]\npcap = { faces = [] }\n"),
    31,
    "record.pcap.faces",
    "records nothing"
);
case!(
    a_pcap_that_starts_after_the_end_is_rejected,
    with_tail("\n[record]\npcap = { start = \"20s\" }\n"),
    31,
    "record.pcap.start",
    "not before the end of the simulation"
);
case!(
    a_clock_phase_without_a_clock_tick_is_rejected,
    with_line(10, "R1 = { clock_phase = \"30ms\" }"),
    10,
    "nodes.R1.clock_phase",
    "needs a clock_tick"
);
case!(
    a_clock_phase_of_a_whole_tick_is_rejected,
    with_line(10, "R1 = { clock_tick = \"100ms\", clock_phase = \"100ms\" }"),
    10,
    "nodes.R1.clock_phase",
    "must be below the clock_tick"
);
case!(
    a_clock_phase_that_is_neither_a_time_nor_random_is_rejected,
    with_line(10, "R1 = { clock_tick = \"100ms\", clock_phase = \"sometimes\" }"),
    10,
    "nodes.R1.clock_phase",
    "or \"random\""
);
case!(
    a_zero_queue_is_rejected_by_the_queue,
    with_line(14, "queue = { type = \"droptail\", packets = 0 }"),
    14,
    "links.C1-R1.queue.packets",
    "must be from 1 to"
);
case!(
    a_zero_window_is_rejected_by_the_controller,
    with_line(28, "window = { type = \"fixed\", window = 0 }"),
    28,
    "apps.C1.window.window",
    "must be a window of 1 to"
);
case!(
    a_negative_count_is_a_type_error,
    with_line(17, "cost = -1"),
    17,
    "links.R1-P1.cost",
    "expected a non-negative integer"
);
case!(
    a_zero_payload_is_rejected,
    with_line(22, "prefix = \"/p1\"\npayload = \"0B\""),
    23,
    "apps.P1.payload",
    "must be from 1 to"
);
case!(
    a_bad_shaper_is_named,
    with_line(17, "interest_shaper = { depth = 0 }"),
    17,
    "links.R1-P1.interest_shaper.depth",
    "must be from 1 to"
);
case!(
    a_bad_inherited_value_points_at_the_default,
    with_line(6, "delay = \"10ms\"\nqueue = { type = \"droptail\", packets = 0 }"),
    7,
    "links.R1-P1.queue.packets",
    "inherited from defaults.link.queue"
);

// Overrides.
fn check_override(text: &str, overrides: &[&str], key: &str, says: &str) {
    let e = err(text, overrides);
    let shown = e.to_string();
    assert!(e.from_override, "{shown}");
    assert_eq!(e.line, None, "{shown}");
    assert_eq!(e.key.as_deref(), Some(key), "{shown}");
    assert!(shown.starts_with(&format!("{FILE}: --set {key}: ")), "{shown}");
    assert!(e.message.contains(says), "expected '{says}' in: {shown}");
}

#[test]
fn a_bad_unit_in_an_override_names_the_override() {
    check_override(BASE, &["links.R1-P1.bandwidth=2Mbs"], "links.R1-P1.bandwidth", "unknown bandwidth unit 'Mbs'");
}

#[test]
fn an_unknown_variant_set_by_an_override_names_the_override() {
    check_override(BASE, &["apps.C1.window.type=pconn"], "apps.C1.window.type", "unknown variant 'pconn'");
}

#[test]
fn an_override_into_a_missing_table_is_an_error() {
    check_override(BASE, &["links.R1-P9.bandwidth=1Mbps"], "links.R1-P9.bandwidth", "there is no 'links.R1-P9'");
}

#[test]
fn an_override_with_the_wrong_type_names_the_override() {
    check_override(BASE, &["simulation.seed=-1"], "simulation.seed", "expected a non-negative integer");
    check_override(BASE, &["apps.C1.window.beta=0.7"], "apps.C1.window.beta", "unknown field 'beta'");
    check_override(BASE, &["defaults.link.delay=1x"], "defaults.link.delay", "unknown time unit 'x'");
}

#[test]
fn a_malformed_override_is_an_error() {
    check_override(BASE, &["nonsense"], "nonsense", "expected KEY=VALUE");
    check_override(BASE, &["simulation.seed="], "simulation.seed", "no value");
}

#[test]
fn a_validation_error_caused_by_an_override_mentions_it() {
    // The override set the very key that is wrong: the error names the override.
    let e = err(BASE, &["links.C1-R1.queue.packets=0"]);
    assert_eq!((e.line, e.key.as_deref(), e.from_override), (None, Some("links.C1-R1.queue.packets"), true));
    // An override that makes its table wrong is mentioned beside it.
    let e = err(BASE, &["links.C1-R1.queue.bytes=1000"]);
    assert_eq!((e.line, e.key.as_deref()), (Some(14), Some("links.C1-R1.queue")));
    assert!(e.message.contains("(with --set links.C1-R1.queue.bytes)"), "{e}");
}

#[test]
fn odd_input_never_panics() {
    let inputs = [
        "",
        "\u{0}",
        "[[simulation]]\nduration = \"1s\"",
        "simulation = 5",
        "[simulation]\nduration = \"1s\"\n[[nodes]]\n",
        "[simulation]\nduration = \"1s\"\nlinks = [1, 2]\n",
        "[simulation]\nduration = \"1s\"\napps = 3\n",
        "[simulation]\nduration = \"1s\"\n[apps.x]\ntype = 5\n",
        "[simulation]\nduration = \"99999999999999999h\"\n",
        "[simulation]\nduration = \"-1s\"\n",
        "[simulation]\nduration = \"nan s\"\n",
        "[simulation]\nduration = \"1s\"\n[defaults]\nlink = 1\n",
        "[simulation]\nduration = \"1s\"\n[nodes.\"\"]\n",
        "[simulation]\nduration = \"1s\"\n[nodes.\"a b\"]\n",
        "[simulation]\nduration = \"1s\"\n[record]\nfaces = [\"->\", 3]\n",
    ];
    // Every prefix of a valid file, and the file with each line removed.
    for (i, _) in BASE.char_indices() {
        let _ = load_str(&BASE[..i], FILE, &[]);
    }
    for n in 1..=BASE.lines().count() {
        let _ = load_str(&with_line(n, ""), FILE, &[]);
    }
    for text in inputs {
        let _ = load_str(text, FILE, &[]);
        for o in ["a=1", "simulation=1", "simulation.duration.x=1", "routes.0=1", "\"=1", "=", "a.\"b=1"] {
            let _ = load_str(text, FILE, &[o.to_string()]);
        }
    }
}

// Defaults that no entry inherits are checked all the same.
case!(
    a_bad_default_delay_is_refused_though_every_link_sets_its_own,
    with_line(6, "delay = \"abc\"")
        .replace("[links.C1-R1]\n", "[links.C1-R1]\ndelay = \"1ms\"\n")
        .replace("[links.R1-P1]\n", "[links.R1-P1]\ndelay = \"1ms\"\n"),
    6,
    "defaults.link.delay",
    "'abc' is not a duration"
);
case!(
    a_bad_default_queue_is_refused_though_every_link_sets_its_own,
    with_line(6, "delay = \"10ms\"\nqueue = { type = \"droptail\", packets = 0 }")
        .replace("[links.R1-P1]\n", "[links.R1-P1]\nqueue = { type = \"codel\" }\n"),
    7,
    "defaults.link.queue.packets",
    "must be from 1 to"
);
case!(
    a_bad_default_loss_is_refused_though_every_link_sets_its_own,
    with_line(6, "delay = \"10ms\"\nloss = { type = \"bernoulli\", p = 7 }")
        .replace("[links.C1-R1]\n", "[links.C1-R1]\nloss = { type = \"none\" }\n")
        .replace("[links.R1-P1]\n", "[links.R1-P1]\nloss = { type = \"none\" }\n"),
    7,
    "defaults.link.loss.p",
    "outside [0, 1]"
);
case!(
    a_bad_default_node_value_is_refused_though_every_node_sets_its_own,
    with_line(6, "delay = \"10ms\"\n[defaults.node]\ncontent_store = { capacity = 100000000000 }")
        .replace("C1 = {}\nR1 = {}\nP1 = {}", "C1 = { content_store = { capacity = 1 } }\nR1 = { content_store = { capacity = 1 } }\nP1 = { content_store = { capacity = 1 } }"),
    8,
    "defaults.node.content_store.capacity",
    "must be from 0 to"
);

// A wrong value inside a table with a `type` names its own key.
case!(
    a_bad_value_inside_an_inline_loss_table_names_its_key,
    with_line(17, "loss = { type = \"bernoulli\", p = \"abc\" }"),
    17,
    "links.R1-P1.loss.p",
    "'abc' is not a fraction"
);
case!(
    a_wrongly_typed_value_inside_an_inline_window_table_names_its_key,
    with_line(28, "window = { type = \"aimd\", beta = \"x\" }"),
    28,
    "apps.C1.window.beta",
    "invalid type: string \"x\", expected a number"
);
case!(
    a_wrongly_typed_value_inside_a_queue_table_names_its_key,
    with_line(17, "[links.R1-P1.queue]\ntype = \"droptail\"\npackets = true"),
    19,
    "links.R1-P1.queue.packets",
    "invalid type: boolean"
);

#[test]
fn a_bad_value_inside_an_overriding_table_names_the_key_inside_it() {
    check_override(BASE, &["links.R1-P1.loss={ type = \"bernoulli\", p = \"abc\" }"], "links.R1-P1.loss.p", "'abc'");
}

#[test]
fn a_long_value_is_cut_short_in_the_message() {
    let long = "x".repeat(5000);
    for (text, overrides) in [
        (with_line(28, &format!("window = {{ type = \"{long}\" }}")), vec![]),
        (with_line(27, &format!("prefix = \"/{long}\"")), vec![]),
        (BASE.to_string(), vec![format!("links.R1-P1.delay=\"{long}\"")]),
        (with_line(26, &format!("node = \"{long}\"")), vec![]),
    ] {
        let o: Vec<&str> = overrides.iter().map(String::as_str).collect();
        let shown = err(&text, &o).to_string();
        assert!(shown.len() < 400, "{} characters: {}", shown.len(), &shown[..200]);
        assert!(shown.contains("… (5"), "{shown}");
    }
}
