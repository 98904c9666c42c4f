//! Applications from their specs: each spec's settings resolved into the parameters of its
//! engine component (the one place where a spec's fields are read), and the apps added to a
//! world under construction.

use crate::app::consumer::ObjectParams;
use crate::app::tcp::{
    Ns2TcpParams, Ns2TcpSender, Ns3TcpParams, Ns3TcpSender, TcpProfile, TcpReceiver, TcpReceiverParams, TcpSender,
    TcpSenderParams,
};
use crate::app::udp::{CbrParams, CbrSource, UdpSink};
use crate::app::{Application, ConsumerParams, Controller, ProducerParams};
use crate::ids::{AppId, NameId};
use crate::names::components;
use crate::rng::stream;
use crate::scenario::{CbrSpec, ConsumerSpec, Control, MulticastSpec, ProducerSpec, TcpSpec};
use crate::time::{SimDuration, SimTime};
use crate::wire::ndn::{interest_wire_size, wire_u32};
use crate::world::WorldBuilder;

/// The settings of producer `name` as `spec` gives them (the one place their defaults live).
pub fn producer_params(name: &str, spec: &ProducerSpec) -> ProducerParams {
    ProducerParams {
        name: name.into(),
        payload: u32::try_from(spec.payload.0).unwrap_or(u32::MAX),
        overhead: spec.overhead.map(|o| u32::try_from(o.0).unwrap_or(u32::MAX)),
        processing_delay: spec.processing_delay.get(),
        freshness: spec.freshness.get(),
    }
}

/// The settings of consumer `name` as `spec` gives them, fetching `prefix` whose producer's
/// Data carry `payload` bytes. `segments` comes from `spec.segments`, else from
/// `spec.file_size` / `payload`; with `arrivals` these give the size of each object instead,
/// and `objects` is left for the caller to fill ([`object_params`]).
pub fn consumer_params(name: &str, spec: &ConsumerSpec, prefix: NameId, payload: u32) -> ConsumerParams {
    let segments = match spec.arrivals {
        Some(_) => None,
        None => spec.segments.or_else(|| spec.file_size.map(|f| f.0.div_ceil(u64::from(payload.max(1))))),
    };
    ConsumerParams {
        name: name.into(),
        prefix,
        interest_size: match spec.interest_size {
            Some(size) => u32::try_from(size.0).unwrap_or(u32::MAX),
            None => wire_u32(interest_wire_size(&components(&spec.prefix), 0, spec.lifetime.get().nanos())),
        },
        encoded_size: spec.interest_size.is_none(),
        payload,
        lifetime: spec.lifetime.get(),
        retransmit: spec.retransmit,
        max_retransmissions: spec.max_retransmissions,
        timeout_check: spec.timeout_check.get(),
        rto_per_interest: spec.rto_per_interest,
        segments,
        rtt: spec.rtt,
        interest_bucket: spec.interest_bucket,
        smoothing: spec.smoothing,
        objects: None,
        // Tightened to what the network can hold once the world is built (`limit_in_flight`).
        max_in_flight: usize::try_from(crate::scenario::MAX_IN_FLIGHT).unwrap_or(usize::MAX),
    }
}

/// The settings of consumer `name` in a run seeded `seed`, when `spec` has `arrivals`. An
/// object is `spec.segments` segments, else `spec.file_size / payload` rounded up, else 1.
pub fn object_params(name: &str, spec: &ConsumerSpec, payload: u32, seed: u64) -> Option<ObjectParams> {
    let arrivals = spec.arrivals?;
    let size = spec.segments.or_else(|| spec.file_size.map(|f| f.0.div_ceil(u64::from(payload.max(1))))).unwrap_or(1);
    Some(ObjectParams {
        size: size.max(1),
        arrivals,
        catalogue: spec.catalogue,
        arrivals_rng: stream(seed, &format!("app:{name}:arrivals")),
        catalogue_rng: stream(seed, &format!("app:{name}:catalogue")),
    })
}

/// The producer app `name` as `spec` describes it: on node `spec.node`, serving
/// `spec.prefix`; installs the FIB route to its app face (cost 0).
pub fn add_producer(b: &mut WorldBuilder, name: &str, spec: &ProducerSpec) -> Result<AppId, String> {
    let node = b.node_named(&format!("app {name}"), &spec.node)?;
    Ok(b.add_producer(node, &spec.prefix, producer_params(name, spec)))
}

/// The consumer app `name` as `spec` describes it, under the controller its `window` or
/// `rate` table builds.
pub fn add_consumer(b: &mut WorldBuilder, name: &str, spec: &ConsumerSpec) -> Result<AppId, String> {
    let ctl = match spec.control() {
        Some(Control::Window(w)) => Controller::Window(w.build()),
        Some(Control::Rate(r)) => Controller::Rate(r.build()),
        None => return Err(format!("app {name}: a consumer needs exactly one of `window` or `rate`")),
    };
    add_consumer_with(b, name, spec, ctl)
}

/// The consumer app `name` as `spec` describes it, under a controller of the caller's (a
/// user plug-in); `spec.window` and `spec.rate` are ignored.
pub fn add_consumer_with(
    b: &mut WorldBuilder,
    name: &str,
    spec: &ConsumerSpec,
    ctl: Controller,
) -> Result<AppId, String> {
    let node = b.node_named(&format!("app {name}"), &spec.node)?;
    let prefix = b.intern(&spec.prefix);
    let payload = b.payload_for(&spec.prefix);
    let seed = b.seed();
    let mut params = consumer_params(name, spec, prefix, payload);
    params.objects = object_params(name, spec, payload, seed).map(Box::new);
    // The jitter has a stream of its own, so it moves no other draw of the consumer.
    let jitter = match spec.start_jitter.get().nanos() {
        0 => SimDuration::ZERO,
        j => SimDuration(crate::rng::below(&mut stream(seed, &format!("app:{name}:start")), j)),
    };
    let start = SimTime::ZERO + spec.start.get() + jitter;
    let stop = spec.stop.map(|s| SimTime::ZERO + s.get());
    Ok(b.add_consumer(node, params, ctl, start, stop))
}

/// A TCP flow `name` as `spec` describes it: the sender on `spec.node` (reported as `name`),
/// the receiver on `spec.to` (as `name-sink`), each bound to a port of its own. IP routes
/// between the two nodes must be installed (`add_ip_route`, or `install_ip_routes`).
pub fn add_tcp_flow(b: &mut WorldBuilder, name: &str, spec: &TcpSpec) -> Result<(AppId, AppId), String> {
    let me = b.node_named(&format!("app {name}"), &spec.node)?;
    let to = b.node_named(&format!("app {name}"), &spec.to)?;
    let (src_port, dst_port) = b.flow_ports();
    let mss = u32::try_from(spec.mss.0).map_err(|_| format!("app {name}: mss is too large"))?;
    let bytes = spec.bytes.map(|b| b.0);
    let tx: Box<dyn Application> = match spec.profile {
        TcpProfile::Ns2(cfg) => {
            let params = Ns2TcpParams { name: name.to_owned(), me, dst: to, src_port, dst_port, mss, bytes, cfg };
            Box::new(Ns2TcpSender::new(params, b.recorder()))
        }
        TcpProfile::Ns3(_) => {
            let params = Ns3TcpParams {
                name: name.to_owned(),
                me,
                dst: to,
                src_port,
                dst_port,
                mss,
                initial_window: spec.initial_window,
                bytes,
                limited_transmit: spec.limited_transmit,
                rtt: spec.rtt,
            };
            Box::new(Ns3TcpSender::new(params, b.recorder()))
        }
        TcpProfile::Rfc(_) => {
            let params = TcpSenderParams {
                name: name.to_owned(),
                me,
                dst: to,
                src_port,
                dst_port,
                mss,
                initial_window: spec.initial_window,
                bytes,
                ecn: spec.ecn,
                limited_transmit: spec.limited_transmit,
                flight_size: spec.flight_size,
                rtt: spec.rtt,
            };
            Box::new(TcpSender::new(params, spec.cc.build(), b.recorder()))
        }
    };
    // NS-2's TCPSink acknowledges every packet at once.
    let (ack_every, delayed_ack_timeout) = match spec.profile {
        TcpProfile::Ns2(_) => (1, SimDuration::ZERO),
        _ => (spec.ack_every, spec.delayed_ack_timeout.get()),
    };
    let receiver = TcpReceiverParams {
        name: format!("{name}-sink"),
        me: to,
        src: me,
        port: dst_port,
        peer_port: src_port,
        ack_every,
        delayed_ack_timeout,
        mss,
    };
    let rx: Box<dyn Application> = Box::new(TcpReceiver::new(receiver, b.recorder()));
    let start = SimTime::ZERO + spec.start.get();
    let stop = spec.stop.map(|s| SimTime::ZERO + s.get());
    let tx_id = b.add_application(name, me, tx, start, stop);
    let rx_id = b.add_application(&format!("{name}-sink"), to, rx, SimTime::ZERO, None);
    b.bind_port(tx_id, src_port)?;
    b.bind_port(rx_id, dst_port)?;
    b.add_ip_host(me);
    b.add_ip_host(to);
    Ok((tx_id, rx_id))
}

/// A constant-bit-rate UDP flow `name`: the source on `spec.node` (reported as `name`), the
/// sink on `spec.to` (as `name-sink`).
pub fn add_cbr_flow(b: &mut WorldBuilder, name: &str, spec: &CbrSpec) -> Result<(AppId, AppId), String> {
    let me = b.node_named(&format!("app {name}"), &spec.node)?;
    let to = b.node_named(&format!("app {name}"), &spec.to)?;
    let (src_port, dst_port) = b.flow_ports();
    let payload = u32::try_from(spec.packet_size.0).map_err(|_| format!("app {name}: packet_size is too large"))?;
    let per_s = spec.rate.bps() as f64 / (8.0 * f64::from(payload.max(1)));
    let params = CbrParams {
        name: name.to_owned(),
        me,
        dst: to,
        src_port,
        dst_port,
        payload,
        interval: SimDuration::from_secs_f64(1.0 / per_s),
        ecn: spec.ecn,
    };
    let sink = UdpSink::new(&format!("{name}-sink"), payload, b.recorder());
    let start = SimTime::ZERO + spec.start.get();
    let stop = spec.stop.map(|s| SimTime::ZERO + s.get());
    let tx_id = b.add_application(name, me, Box::new(CbrSource::new(params)), start, stop);
    let rx_id = b.add_application(&format!("{name}-sink"), to, Box::new(sink), SimTime::ZERO, None);
    b.bind_port(rx_id, dst_port)?;
    b.add_ip_host(me);
    b.add_ip_host(to);
    Ok((tx_id, rx_id))
}

/// A multicast group `name` as `spec` describes it: the source on `spec.node` (reported as
/// `name`), a receiver on each of `spec.receivers` (as `name-NODE`), and the group's tree
/// along shortest paths (fewest links; ties to the link added first) from the source.
pub fn add_multicast(b: &mut WorldBuilder, name: &str, spec: &MulticastSpec, group: u32) -> Result<(), String> {
    use crate::app::mcast::{receiver::McastReceiverParams, McastReceiver, McastSource, McastSourceParams};
    let src = b.node_named(&format!("app {name}"), &spec.node)?;
    let packet_size = u32::try_from(spec.packet_size.0).map_err(|_| format!("app {name}: packet_size is too large"))?;
    let feedback_size =
        u32::try_from(spec.feedback_size.0).map_err(|_| format!("app {name}: feedback_size is too large"))?;
    let start = SimTime::ZERO + spec.start.get();
    let stop = spec.stop.map(|s| SimTime::ZERO + s.get());
    // The source's line rate: its node's fastest link (a host sends no faster than that).
    let max_rate_bps = b.line_rate_bps(src).map_or(f64::INFINITY, |bps| bps as f64);
    let params = McastSourceParams {
        name: name.to_owned(),
        me: src,
        group,
        packet_size,
        initial_rtt: spec.initial_rtt.get(),
        max_rate_bps,
    };
    let source = McastSource::new(params, spec.control.build(), b.recorder());
    let src_face = b.add_application(name, src, Box::new(source), start, stop);
    let src_face = b.app_face(src_face);
    b.add_mcast_route(src, group, None, Some(src_face));
    let parent = b.shortest_path_tree(src);
    let cycle_rtts = spec.control.receiver_cycle_rtts();
    for r in &spec.receivers {
        let me = b.node_named(&format!("app {name}"), r)?;
        if parent[me.idx()].is_none() && me != src {
            return Err(format!("app {name}: no link path leads from {} to {r}", spec.node));
        }
        // The receiver's access link: its face towards its parent in the tree.
        let access_bps = parent[me.idx()]
            .and_then(|(up, _)| b.face_bandwidth_bps(up).map(|bps| bps as f64))
            .unwrap_or(f64::INFINITY);
        let rname = format!("{name}-{r}");
        let p = McastReceiverParams { name: rname.clone(), me, group, access_bps, feedback_size, cycle_rtts };
        let rng = stream(b.seed(), &format!("mcast-receiver:{rname}"));
        let rx = McastReceiver::new(p, spec.control.reporting(rng), b.recorder());
        let face = b.add_application(&rname, me, Box::new(rx), SimTime::ZERO, None);
        let face = b.app_face(face);
        b.add_mcast_route(me, group, None, Some(face));
        // Walk up to the source, installing each hop once.
        let mut node = me;
        while let Some((up, down)) = parent[node.idx()] {
            b.add_mcast_route(node, group, Some(up), None);
            let above = b.face_node(down);
            b.add_mcast_route(above, group, None, Some(down));
            node = above;
        }
    }
    Ok(())
}
