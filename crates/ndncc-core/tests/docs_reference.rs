//! The scenario reference, `docs/scenario-reference.md`, cannot silently fall behind the code.
//!
//! The keys of every scenario table come from the serde types themselves, twice over: from an
//! instance serialised with every optional field set, and from the list serde gives when it is
//! handed an unknown key (`deny_unknown_fields`). The two lists must agree, so an optional field
//! the instance forgot to set is caught too. Then, for each type:
//!
//! * every key appears backticked in the section documenting the type (the text between its
//!   heading and the next heading), and every key the section's table lists exists;
//! * every `type` name of a tagged enum (queue, loss, window, rate, module, strategy, app) has its
//!   own section, and the test has an instance of it;
//! * every value of a string enum (`mode = "computed"`, `law = "cubic"`, …) appears quoted in
//!   the section that documents it.
//!
//! A new key, variant or value without documentation fails here with the section to extend.

use std::collections::BTreeSet;
use std::fmt::Debug;

use ndncc_core::app::arrivals::{ArrivalsConfig, Periods};
use ndncc_core::app::catalogue::CatalogueConfig;
use ndncc_core::app::mcast::{
    AsmpConfig, FixedMcastConfig, McastControlConfig, PerIfEcnConfig, SrmccConfig, TfmccConfig,
};
use ndncc_core::app::tcp::{FlightSize, Ns2TcpConfig, Ns3TcpConfig, RfcTcpConfig, TcpProfile};
use ndncc_core::cc::external::{ClassSpec, PythonRateConfig, PythonWindowConfig, Table};
use ndncc_core::cc::rate::{AimdRateConfig, ConstantRateConfig, MirccRateConfig, RateConfig};
use ndncc_core::cc::tcp::{NewRenoConfig, TcpBicConfig, TcpControlConfig, TcpCubicConfig};
use ndncc_core::cc::window::{
    AimdConfig, ArrivalRateConfig, BicConfig, ConsumerWindowConfig, CubicConfig, FixedWindowConfig, IcpConfig,
    PconConfig, PconIcn2016Config, PconLaw, RaaqmConfig, RenoHoleConfig, SlowStartStep, WindowConfig, WindowRtt,
};
use ndncc_core::forwarder::strategy::{
    BestRouteConfig, CfConfig, MulticastConfig, PconStrategyConfig, PiConfig, StrategyConfig, UpstreamMarking,
};
use ndncc_core::linkservice::loss_detect::LossDetectConfig;
use ndncc_core::linkservice::LinkServiceConfig;
use ndncc_core::loss::LossConfig;
use ndncc_core::module::hbh_shaper::HbhShaperConfig;
use ndncc_core::module::interest_limit::{InterestLimitConfig, LimitMode};
use ndncc_core::module::mircc::MirccConfig;
use ndncc_core::module::perif_ecn::PerIfEcnModuleConfig;
use ndncc_core::module::srmcc::SrmccMtnConfig;
use ndncc_core::module::static_stamp::StaticRateStampConfig;
use ndncc_core::module::ModuleConfig;
use ndncc_core::queue::ShaperConfig;
use ndncc_core::queue::{CodelConfig, CodelMarkConfig, DropTailConfig, MarkOn, NfdMarkConfig, QueueConfig};
use ndncc_core::rtt::{Backoff, RttConfig};
use ndncc_core::scenario::{
    AppSpec, ConsumerSpec, ContentStoreSpec, FaceSelection, LinkSpec, NodeSpec, ProducerSpec, RecordSpec, RouteSpec,
    RoutingMetric, RoutingMode, RoutingSpec, SimulationSpec, NODE_KEYS, ROOT_KEYS,
};
use ndncc_core::scenario::{CbrSpec, ClockPhase, Distribution, MulticastSpec, TcpSpec};
use ndncc_core::scenario::{EventAction, EventSpec, TraceSpec};
use ndncc_core::trace::PcapSpec;
use ndncc_core::units::{Bandwidth, Bytes, Duration, Fraction};
use serde::de::DeserializeOwned;
use serde::Serialize;
use serde_json::{json, Map, Value};

const DOC_PATH: &str = "docs/scenario-reference.md";
const DOC: &str = include_str!("../../../docs/scenario-reference.md");

/// A key no scenario type has.
const UNKNOWN: &str = "__no_such_key__";

// ---------------------------------------------------------------------------------------------
// The reference, split at its headings.

struct Section {
    title: String,
    body: String,
}

/// The sections of the reference; headings inside fenced code blocks are not headings.
fn sections() -> Vec<Section> {
    let mut out: Vec<Section> = Vec::new();
    let mut fenced = false;
    for line in DOC.lines() {
        if line.trim_start().starts_with("```") {
            fenced = !fenced;
        }
        let heading = !fenced && line.starts_with('#') && line.trim_start_matches('#').starts_with(' ');
        if heading {
            out.push(Section { title: line.trim_start_matches('#').trim().to_string(), body: String::new() });
        } else if let Some(s) = out.last_mut() {
            s.body.push_str(line);
            s.body.push('\n');
        }
    }
    out
}

/// The one section whose heading contains `needle`.
fn section<'a>(all: &'a [Section], needle: &str) -> &'a Section {
    let found: Vec<&Section> = all.iter().filter(|s| s.title.contains(needle)).collect();
    match found.as_slice() {
        [one] => one,
        [] => panic!(
            "{DOC_PATH} has no heading containing {needle}: add a section for it. Headings:\n  {}",
            all.iter().map(|s| s.title.as_str()).collect::<Vec<_>>().join("\n  ")
        ),
        many => panic!(
            "{DOC_PATH}: {} headings contain {needle}, expected one: {:?}",
            many.len(),
            many.iter().map(|s| &s.title).collect::<Vec<_>>()
        ),
    }
}

/// The keys a section's tables list: the backticked name opening each row's first cell.
fn table_keys(body: &str) -> BTreeSet<String> {
    body.lines()
        .filter_map(|l| l.strip_prefix("| `"))
        .filter_map(|rest| rest.split('`').next())
        .map(str::to_string)
        .collect()
}

// ---------------------------------------------------------------------------------------------
// Keys and names, from the code.

/// The backticked names in `message` after `marker` (serde lists accepted fields and variants
/// as `` expected one of `a`, `b` ``, `` expected `a` or `b` `` or `` expected `a` ``).
fn listed_after(message: &str, marker: &str) -> BTreeSet<String> {
    let Some(i) = message.find(marker) else { panic!("expected serde to say \"{marker}\", it said: {message}") };
    let rest = &message[i + marker.len()..];
    if rest.contains("there are no fields") {
        return BTreeSet::new();
    }
    rest.split('`').skip(1).step_by(2).map(str::to_string).collect()
}

/// The keys a table of type `T` accepts: serde lists them when given an unknown one. `base`
/// holds what must come first (the `type` of a tagged enum).
fn accepted<T: DeserializeOwned + Debug>(base: Map<String, Value>) -> BTreeSet<String> {
    let mut probe = base;
    probe.insert(UNKNOWN.into(), json!(0));
    match serde_json::from_value::<T>(Value::Object(probe)) {
        Err(e) => listed_after(&e.to_string(), &format!("unknown field `{UNKNOWN}`")),
        // A unit variant ignores extra keys: it has none of its own.
        Ok(_) => BTreeSet::new(),
    }
}

/// The variant names of enum `T`, given how to write an unknown one.
fn variants<T: DeserializeOwned + Debug>(probe: Value) -> BTreeSet<String> {
    match serde_json::from_value::<T>(probe) {
        Err(e) => listed_after(&e.to_string(), &format!("unknown variant `{UNKNOWN}`")),
        Ok(v) => panic!("{v:?} accepted the variant name {UNKNOWN}"),
    }
}

/// A serialised instance as a JSON object.
fn object<T: Serialize>(value: &T) -> Map<String, Value> {
    match serde_json::to_value(value).expect("serialisable") {
        Value::Object(m) => m,
        other => panic!("expected a table, got {other}"),
    }
}

fn names(m: &Map<String, Value>) -> BTreeSet<String> {
    m.keys().cloned().collect()
}

// ---------------------------------------------------------------------------------------------
// Checks.

/// `keys` (what `what` accepts) against the section headed by `needle`, both ways.
fn check_keys(all: &[Section], needle: &str, what: &str, keys: &BTreeSet<String>) {
    let s = section(all, needle);
    let missing: Vec<&String> = keys.iter().filter(|k| !s.body.contains(&format!("`{k}`"))).collect();
    assert!(
        missing.is_empty(),
        "{DOC_PATH}, section \"{}\": {what} accepts {missing:?}, which the section does not document \
         (add a table row: key, type, unit, default, meaning)",
        s.title
    );
    let stale: Vec<String> = table_keys(&s.body).difference(keys).cloned().collect();
    assert!(
        stale.is_empty(),
        "{DOC_PATH}, section \"{}\": the table lists {stale:?}, which {what} does not accept",
        s.title
    );
}

/// A struct read with `deny_unknown_fields`: `instance` must serialise every accepted key.
fn check_struct<T: Serialize + DeserializeOwned + Debug>(all: &[Section], needle: &str, instance: &T) {
    let what = std::any::type_name::<T>().rsplit("::").next().unwrap_or("?");
    let keys = accepted::<T>(Map::new());
    check_keys(all, needle, what, &keys);
    assert_eq!(
        names(&object(instance)),
        keys,
        "the test's {what} instance must set every optional field, so that it serialises every key"
    );
}

/// A tagged enum (`type = "…"`): one instance per variant, each documented in the section whose
/// heading contains `heading(type)`.
fn check_tagged<T: Serialize + DeserializeOwned + Debug>(
    all: &[Section],
    heading: &dyn Fn(&str) -> String,
    instances: &[T],
) {
    let what = std::any::type_name::<T>().rsplit("::").next().unwrap_or("?");
    let declared = variants::<T>(json!({ "type": UNKNOWN }));
    let mut covered = BTreeSet::new();
    for inst in instances {
        let mut m = object(inst);
        let Some(Value::String(ty)) = m.remove("type") else { panic!("{inst:?} has no `type`") };
        let keys = accepted::<T>(Map::from_iter([("type".to_string(), json!(ty))]));
        check_keys(all, &heading(&ty), &format!("{what} `{ty}`"), &keys);
        assert_eq!(names(&m), keys, "the test's {what} `{ty}` instance must set every optional field");
        covered.insert(ty);
    }
    let untested: Vec<&String> = declared.difference(&covered).collect();
    assert!(untested.is_empty(), "{what} has types {untested:?} this test has no instance of: add one and document it");
}

/// A string enum: every value appears quoted in the section headed by `needle`.
fn check_values<T: DeserializeOwned + Debug>(all: &[Section], needle: &str) {
    let what = std::any::type_name::<T>().rsplit("::").next().unwrap_or("?");
    let s = section(all, needle);
    for v in variants::<T>(json!(UNKNOWN)) {
        assert!(
            s.body.contains(&format!("\"{v}\"")),
            "{DOC_PATH}, section \"{}\": {what} value \"{v}\" is not documented",
            s.title
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Instances with every optional field set.

fn ms(x: u64) -> Duration {
    Duration::from_millis(x)
}

fn link() -> LinkSpec {
    let mut l = LinkSpec::new("A", "B", Bandwidth::mbps(1), ms(1));
    l.bandwidth_ab = Some(Bandwidth::mbps(1));
    l.bandwidth_ba = Some(Bandwidth::mbps(1));
    l.loss_ab = Some(LossConfig::None);
    l.loss_ba = Some(LossConfig::None);
    l.queue_ab = Some(QueueConfig::default());
    l.queue_ba = Some(QueueConfig::default());
    l.underlay = Some(Bandwidth::mbps(1));
    l.underlay_queue_bytes = Some(Bytes(100_000));
    l.interest_shaper = Some(shaper());
    l.interest_shaper_ab = Some(shaper());
    l.interest_shaper_ba = Some(shaper());
    l.link_service = Some(link_service());
    l
}

fn event() -> EventSpec {
    EventSpec {
        at: ms(1),
        link: Some("A-B".into()),
        node: Some("A".into()),
        action: EventAction::Set,
        bandwidth: Some(Bandwidth::mbps(1)),
        bandwidth_ab: Some(Bandwidth::mbps(1)),
        bandwidth_ba: Some(Bandwidth::mbps(1)),
        delay: Some(ms(1)),
        loss: Some(LossConfig::None),
        loss_ab: Some(LossConfig::None),
        loss_ba: Some(LossConfig::None),
        queue: Some(QueueConfig::default()),
        queue_ab: Some(QueueConfig::default()),
        queue_ba: Some(QueueConfig::default()),
        strategy: Some(StrategyConfig::default()),
    }
}

fn link_service() -> LinkServiceConfig {
    LinkServiceConfig::LossDetect(LossDetectConfig {
        timeout: Some(ms(100)),
        min_timeout: Some(ms(50)),
        ..LossDetectConfig::default()
    })
}

fn tcp() -> TcpSpec {
    TcpSpec {
        node: "A".into(),
        to: "B".into(),
        start: ms(0),
        stop: Some(ms(10)),
        bytes: Some(Bytes(1000)),
        mss: Bytes(1000),
        initial_window: 10,
        cc: TcpControlConfig::default(),
        ecn: true,
        limited_transmit: false,
        flight_size: FlightSize::Ns3,
        ack_every: 2,
        delayed_ack_timeout: ms(200),
        rtt: RttConfig::default(),
        profile: TcpProfile::Ns2(Ns2TcpConfig::default()),
    }
}

fn cbr() -> CbrSpec {
    CbrSpec {
        node: "A".into(),
        to: "B".into(),
        rate: Bandwidth::mbps(1),
        packet_size: Bytes(1000),
        start: ms(0),
        stop: Some(ms(10)),
        ecn: true,
    }
}

fn shaper() -> ShaperConfig {
    ShaperConfig { rate: Some(100.0), data_size: Bytes(1000), depth: 10, burst: 1.0 }
}

fn producer() -> ProducerSpec {
    ProducerSpec { overhead: Some(Bytes(64)), ..ProducerSpec::new("P", "/p") }
}

fn consumer() -> ConsumerSpec {
    let mut c = ConsumerSpec::with_window("C", "/p", WindowConfig::Fixed(FixedWindowConfig::default()));
    c.rate = Some(RateConfig::Constant(ConstantRateConfig::default()));
    c.stop = Some(ms(1000));
    c.segments = Some(10);
    c.interest_size = Some(Bytes(40));
    c.file_size = Some(Bytes(10_000));
    c.start_jitter = ms(100);
    c.arrivals = Some(ArrivalsConfig::Poisson { rate: 10.0 });
    c.catalogue = Some(CatalogueConfig { objects: 100, zipf: 0.8 });
    c
}

fn arrivals() -> Vec<ArrivalsConfig> {
    vec![
        ArrivalsConfig::Poisson { rate: 10.0 },
        ArrivalsConfig::Periodic { rate: 10.0 },
        ArrivalsConfig::OnOff { rate: 10.0, on: ms(1000), off: ms(2000), periods: Periods::Fixed },
    ]
}

fn distributions() -> Vec<Distribution<Duration>> {
    vec![
        Distribution::Uniform { min: ms(5), max: ms(15) },
        Distribution::Normal { mean: ms(10), sd: ms(2) },
        Distribution::Lognormal { mean: ms(10), sd: ms(5) },
    ]
}

fn windows() -> Vec<WindowConfig> {
    vec![
        WindowConfig::Fixed(FixedWindowConfig::default()),
        WindowConfig::ConsumerWindow(ConsumerWindowConfig::default()),
        WindowConfig::Aimd(AimdConfig { initial_ssthresh: Some(64.0), ..AimdConfig::default() }),
        WindowConfig::RenoHole(RenoHoleConfig { initial_ssthresh: Some(64.0), ..RenoHoleConfig::default() }),
        WindowConfig::ArrivalRate(ArrivalRateConfig::default()),
        WindowConfig::Bic(BicConfig { initial_ssthresh: Some(64.0), ..BicConfig::default() }),
        WindowConfig::Cubic(CubicConfig { initial_ssthresh: Some(64.0), ..CubicConfig::default() }),
        WindowConfig::Pcon(PconConfig {
            initial_ssthresh: Some(64.0),
            beta: Some(0.5),
            c: Some(0.4),
            fast_convergence: Some(true),
            tcp_friendly: Some(false),
            b: Some(4.0),
            max_increment: Some(16.0),
            low_window: Some(14.0),
            smooth_part: Some(20.0),
            ..PconConfig::default()
        }),
        WindowConfig::PconIcn2016(PconIcn2016Config::default()),
        WindowConfig::Icp(IcpConfig::default()),
        WindowConfig::Raaqm(RaaqmConfig { max_window: Some(512.0), ..RaaqmConfig::default() }),
        WindowConfig::Python(PythonWindowConfig(python_class())),
    ]
}

fn rates() -> Vec<RateConfig> {
    vec![
        RateConfig::Constant(ConstantRateConfig::default()),
        RateConfig::Mircc(MirccRateConfig::default()),
        RateConfig::AimdRate(AimdRateConfig { max_rate: Some(1000.0), ..AimdRateConfig::default() }),
        RateConfig::Python(PythonRateConfig(python_class())),
    ]
}

/// A Python class with one parameter (the `python` window and rate types).
fn python_class() -> ClassSpec {
    let mut params = Table::new();
    params.insert("beta".into(), 0.7.into());
    ClassSpec { class: "mypkg.mymod:MyAimd".into(), params }
}

fn queues() -> Vec<QueueConfig> {
    vec![
        QueueConfig::Droptail(DropTailConfig { packets: Some(100), bytes: Some(Bytes(1000)) }),
        QueueConfig::Codel(CodelConfig { count_reuse: false, ..CodelConfig::default() }),
        QueueConfig::CodelMark(CodelMarkConfig {
            count_reuse: false,
            mark_on: MarkOn::NextArrival,
            ..CodelMarkConfig::default()
        }),
        QueueConfig::NfdMark(NfdMarkConfig {
            threshold: Some(Bytes(65_536)),
            capacity_bytes: Some(Bytes(150_000)),
            packets: Some(100),
            bytes: Some(Bytes(150_000)),
            ..NfdMarkConfig::default()
        }),
    ]
}

fn losses() -> Vec<LossConfig> {
    vec![
        LossConfig::None,
        LossConfig::Bernoulli { p: Fraction(0.01) },
        LossConfig::GilbertElliott {
            p_good_to_bad: Fraction(0.01),
            p_bad_to_good: Fraction(0.5),
            loss_good: Fraction(0.0),
            loss_bad: Fraction(1.0),
        },
    ]
}

fn modules() -> Vec<ModuleConfig> {
    vec![
        ModuleConfig::StaticRateStamp(StaticRateStampConfig { rate: 100.0 }),
        ModuleConfig::Mircc(MirccConfig {
            initial_rate: Some(100.0),
            max_rate: Some(1000.0),
            ..MirccConfig::default()
        }),
        ModuleConfig::InterestLimit(InterestLimitConfig {
            limit: Some(100.0),
            depth: Some(10.0),
            ..InterestLimitConfig::default()
        }),
        ModuleConfig::HbhShaper(HbhShaperConfig {
            capacity: Some(Bandwidth::mbps(10)),
            reverse_capacity: Some(Bandwidth::mbps(10)),
            ..HbhShaperConfig::default()
        }),
        ModuleConfig::Srmcc(SrmccMtnConfig::default()),
        ModuleConfig::PerIfEcn(PerIfEcnModuleConfig { queue_capacity: Some(50), ..PerIfEcnModuleConfig::default() }),
    ]
}

fn multicast() -> MulticastSpec {
    MulticastSpec {
        node: "A".into(),
        receivers: vec!["B".into()],
        group: Some(3),
        packet_size: Bytes(1000),
        feedback_size: Bytes(40),
        initial_rtt: ms(100),
        start: ms(0),
        stop: Some(ms(10)),
        control: McastControlConfig::Srmcc(SrmccConfig::default()),
    }
}

// ---------------------------------------------------------------------------------------------
// The tests.

#[test]
fn every_section_of_a_scenario_file_has_a_heading() {
    let all = sections();
    for key in ROOT_KEYS {
        let needle = format!("[{key}");
        assert!(all.iter().any(|s| s.title.contains(&needle)), "{DOC_PATH} has no heading for the [{key}] section");
    }
    section(&all, "`[defaults.link]`");
    section(&all, "`[defaults.node]`");
}

#[test]
fn every_key_of_every_table_is_documented_in_its_section() {
    let all = sections();
    let sim = SimulationSpec { name: "x".into(), duration: ms(1), seed: 1, description: Some("d".into()) };
    check_struct(&all, "`[simulation]`", &sim);
    check_struct(
        &all,
        "`[nodes.NAME]`",
        &NodeSpec { clock_tick: Some(ms(1)), clock_phase: Some(ClockPhase::Random), ..NodeSpec::default() },
    );
    check_struct(&all, "Node `content_store`", &ContentStoreSpec::default());
    check_struct(&all, "`[links.NAME]`", &link());
    check_struct(&all, "Link `interest_shaper`", &shaper());
    check_struct(&all, "`[routing]`", &RoutingSpec { convergence: ms(100), ..RoutingSpec::default() });
    check_struct(&all, "`[[events]]`", &event());
    let trace =
        TraceSpec { trace: Some("x.trace".into()), mtu: Some(Bytes(1500)), series: Some("x.csv".into()), loaded: None };
    check_struct(&all, "Trace-driven bandwidth", &trace);
    let route = RouteSpec { node: "A".into(), prefix: "/p".into(), nexthop: "B".into(), cost: 1 };
    check_struct(&all, "`[[routes]]`", &route);
    check_struct(&all, "`type = \"producer\"`", &producer());
    check_struct(&all, "`type = \"consumer\"`", &consumer());
    check_struct(&all, "`type = \"multicast\"`", &multicast());
    check_struct(&all, "Consumer `rtt`", &RttConfig::default());
    check_struct(&all, "Consumer `catalogue`", &CatalogueConfig { objects: 100, zipf: 0.8 });
    let pcap = PcapSpec { stop: Some(ms(1000)), ..PcapSpec::default() };
    check_struct(&all, "`[record]`", &RecordSpec { pcap: Some(pcap.clone()), ..RecordSpec::default() });
    check_struct(&all, "Record `pcap`", &pcap);
}

#[test]
fn node_defaults_accept_exactly_the_node_keys() {
    let listed: BTreeSet<String> = NODE_KEYS.iter().map(|k| k.to_string()).collect();
    assert_eq!(accepted::<NodeSpec>(Map::new()), listed);
}

#[test]
fn every_type_of_every_tagged_table_has_a_documented_section() {
    let all = sections();
    check_tagged(
        &all,
        &|t| format!("`type = \"{t}\"`"),
        &[
            AppSpec::Producer(producer()),
            AppSpec::Consumer(consumer()),
            AppSpec::Tcp(tcp()),
            AppSpec::Cbr(cbr()),
            AppSpec::Multicast(multicast()),
        ],
    );
    let strategies = [
        StrategyConfig::BestRoute(BestRouteConfig { pcon_upstream_marking: UpstreamMarking::ON }),
        StrategyConfig::Multicast(MulticastConfig { pcon_upstream_marking: UpstreamMarking::ON }),
        StrategyConfig::Pcon(PconStrategyConfig::default()),
        StrategyConfig::Pi(PiConfig { pcon_upstream_marking: UpstreamMarking::ON }),
        StrategyConfig::Cf(CfConfig { pcon_upstream_marking: UpstreamMarking::ON, ..CfConfig::default() }),
    ];
    check_tagged(&all, &|t| format!("strategy `{t}`"), &strategies);
    check_tagged(&all, &|t| format!("module `{t}`"), &modules());
    let controls = [
        McastControlConfig::Srmcc(SrmccConfig::default()),
        McastControlConfig::Tfmcc(TfmccConfig::default()),
        McastControlConfig::Asmp(AsmpConfig::default()),
        McastControlConfig::PerIfEcn(PerIfEcnConfig::default()),
        McastControlConfig::Fixed(FixedMcastConfig { rate: Bandwidth::mbps(1) }),
    ];
    check_tagged(&all, &|t| format!("multicast control `{t}`"), &controls);
    check_tagged(&all, &|t| format!("queue `{t}`"), &queues());
    check_tagged(&all, &|t| format!("loss `{t}`"), &losses());
    check_tagged(&all, &|t| format!("link service `{t}`"), &[link_service()]);
    check_tagged(&all, &|t| format!("window `{t}`"), &windows());
    check_tagged(&all, &|t| format!("rate `{t}`"), &rates());
    check_tagged(&all, &|t| format!("arrivals `{t}`"), &arrivals());
    check_tagged(&all, &|t| format!("distribution `{t}`"), &distributions());
    let tcp_ccs = [
        TcpControlConfig::NewReno(NewRenoConfig::default()),
        TcpControlConfig::Cubic(TcpCubicConfig::default()),
        TcpControlConfig::Bic(TcpBicConfig::default()),
    ];
    check_tagged(&all, &|t| format!("tcp cc `{t}`"), &tcp_ccs);
    let profiles = [
        TcpProfile::Rfc(RfcTcpConfig {}),
        TcpProfile::Ns2(Ns2TcpConfig::default()),
        TcpProfile::Ns3(Ns3TcpConfig::default()),
    ];
    check_tagged(&all, &|t| format!("tcp profile `{t}`"), &profiles);
}

#[test]
fn every_value_of_every_string_setting_is_documented() {
    let all = sections();
    check_values::<RoutingMode>(&all, "`[routing]`");
    check_values::<RoutingMetric>(&all, "`[routing]`");
    check_values::<Backoff>(&all, "Consumer `rtt`");
    check_values::<SlowStartStep>(&all, "window `aimd`");
    check_values::<SlowStartStep>(&all, "window `reno-hole`");
    check_values::<WindowRtt>(&all, "window `arrival-rate`");
    check_values::<PconLaw>(&all, "window `pcon`");
    check_values::<LimitMode>(&all, "module `interest-limit`");
    check_values::<Periods>(&all, "arrivals `on-off`");
    check_values::<FlightSize>(&all, "`type = \"tcp\"`");
    check_values::<EventAction>(&all, "`[[events]]`");
    let record = section(&all, "`[record]`");
    for v in [FaceSelection::All, FaceSelection::None] {
        let quoted = serde_json::to_string(&v).expect("serialisable");
        assert!(record.body.contains(&quoted), "{DOC_PATH}, section \"[record]\": faces = {quoted} is not documented");
    }
}

#[test]
fn the_key_lists_come_from_serde() {
    // Guard the mechanism itself: a struct with an Option field skipped when None still has it
    // in serde's list, and a misspelt key is not silently accepted.
    let keys = accepted::<ShaperConfig>(Map::new());
    assert_eq!(keys, ["burst", "data_size", "depth", "rate"].map(String::from).into_iter().collect());
    assert!(!serde_json::to_value(ShaperConfig::default()).unwrap().as_object().unwrap().contains_key("rate"));
    let types = variants::<QueueConfig>(json!({ "type": UNKNOWN }));
    assert!(types.contains("codel-mark"), "{types:?}");
}
