//! An emulation end to end through its sockets, with hand-written packets: a real consumer
//! fetches from a simulated producer, a real producer registers and serves a simulated
//! consumer, and a malformed packet closes only its own connection. The only timing checked is
//! a physical bound (a round trip never shorter than its path).

use std::io::{Read, Write};
use std::net::TcpStream;
use std::time::{Duration, Instant};

use ndncc_core::emulate::{EmulateOptions, Emulation, Event};
use ndncc_core::scenario::{allowing_real_producers, load_str};
use ndncc_core::wire::decode::{frame, NetPacket};
use ndncc_core::wire::encode;
use ndncc_core::wire::mgmt::ControlParameters;
use ndncc_core::wire::name::Component;
use ndncc_core::wire::read::header;

const SCENARIO: &str = r#"
[simulation]
duration = "3s"
[nodes]
C = {}
P = {}
[links.C-P]
bandwidth = "10Mbps"
delay = "10ms"
[apps.sim]
type = "producer"
node = "P"
prefix = "/sim"
payload = "700B"
[apps.fetch]
type = "consumer"
node = "P"
prefix = "/real"
start = "1s"
window = { type = "fixed", window = 2 }
"#;

fn generic(parts: &[&str]) -> Vec<Component> {
    parts.iter().map(|p| Component::generic(p.as_bytes())).collect()
}

/// Read one whole packet from a stream.
fn read_packet(s: &mut TcpStream) -> Vec<u8> {
    let mut buf = Vec::new();
    let mut byte = [0u8; 1];
    loop {
        if let Some((_, len, _)) = header(&buf) {
            let mut rest = vec![0u8; usize::try_from(len).unwrap()];
            s.read_exact(&mut rest).unwrap();
            buf.extend(rest);
            return buf;
        }
        s.read_exact(&mut byte).unwrap();
        buf.extend_from_slice(&byte);
    }
}

fn start() -> (Emulation, String) {
    let sc = allowing_real_producers(|| load_str(SCENARIO, "emu.toml", &[])).unwrap();
    let opts = EmulateOptions { seed: None, faces: vec!["C=tcp://127.0.0.1:0".into()], connections: 4, pcap: None };
    let em = Emulation::start(&sc, &opts).unwrap();
    let addr = em.faces[0].1.trim_start_matches("tcp://").to_owned();
    (em, addr)
}

#[test]
fn real_and_simulated_applications_exchange_packets_and_bad_input_closes_one_connection() {
    let (em, addr) = start();
    // A real consumer on C asks the simulated producer on P.
    let mut consumer = TcpStream::connect(&addr).unwrap();
    let name = [generic(&["sim"]), vec![Component::segment(4)]].concat();
    let t0 = Instant::now();
    consumer.write_all(&encode::interest(&name, 7, Some(2000), false, false)).unwrap();
    let reply = read_packet(&mut consumer);
    let rtt = t0.elapsed();
    let NetPacket::Data(d) = frame(&reply).unwrap().unwrap().packet else { panic!("a Data") };
    assert_eq!((&d.name, d.content_len), (&name, 700));
    assert!(rtt >= Duration::from_millis(20), "a round trip of {rtt:?} is shorter than the path");

    // A real producer on C registers /real; the simulated consumer on P fetches from it.
    let mut producer = TcpStream::connect(&addr).unwrap();
    let params = ControlParameters { name: Some(generic(&["real"])), ..Default::default() };
    let mut cmd = generic(&["localhost", "nfd", "rib", "register"]);
    cmd.push(Component::generic(&params.encode()));
    producer.write_all(&encode::interest(&cmd, 1, Some(1000), false, false)).unwrap();
    let NetPacket::Data(answer) = frame(&read_packet(&mut producer)).unwrap().unwrap().packet else {
        panic!("a ControlResponse")
    };
    assert_eq!(answer.name, cmd);
    producer.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut served = 0;
    while served < 5 {
        let b = read_packet(&mut producer);
        let NetPacket::Interest(i) = frame(&b).unwrap().unwrap().packet else { panic!("an Interest") };
        assert_eq!(i.name[0], Component::generic(b"real"));
        producer.write_all(&encode::data(&i.name, None, &[1u8; 300])).unwrap();
        served += 1;
    }

    // A packet that is not one closes its own connection only.
    let mut bad = TcpStream::connect(&addr).unwrap();
    bad.write_all(&[5, 3, 10, 1, 0]).unwrap();
    bad.set_read_timeout(Some(Duration::from_secs(5))).unwrap();
    let mut rest = [0u8; 8];
    assert_eq!(bad.read(&mut rest).unwrap_or(0), 0, "the emulator closes it");
    consumer.write_all(&encode::interest(&name, 8, Some(2000), false, false)).unwrap();
    assert!(matches!(frame(&read_packet(&mut consumer)).unwrap().unwrap().packet, NetPacket::Data(_)));

    let mut lines = Vec::new();
    loop {
        match em.wait(Duration::from_secs(10)) {
            Event::Log(l) => lines.push(l),
            Event::Quiet => panic!("no end: {lines:?}"),
            Event::Ended => break,
        }
    }
    drop((consumer, producer));
    let out = em.finish().unwrap();
    assert!(lines.iter().any(|l| l.contains("register /real on node C")), "{lines:?}");
    assert!(lines.iter().any(|l| l.contains("malformed packet")), "{lines:?}");
    let value = |entity: &str, metric: &str| {
        out.run.summary.iter().find(|r| r.entity == entity && r.metric == metric).map(|r| r.value)
    };
    assert!(value("fetch", "data_received").unwrap() >= 5.0);
    assert_eq!(value("sim", "data_sent"), Some(2.0));
    assert!(value("run", "lag_p99_ms").is_some());
    assert!(out.lag.events > 0);
}

#[test]
fn a_bad_face_or_an_unknown_node_is_refused_before_anything_runs() {
    let sc = allowing_real_producers(|| load_str(SCENARIO, "emu.toml", &[])).unwrap();
    for (face, says) in [("Q=tcp://127.0.0.1:0", "not a node"), ("C=tcp://127.0.0.1", "no port")] {
        let opts = EmulateOptions { seed: None, faces: vec![face.into()], connections: 4, pcap: None };
        let err = Emulation::start(&sc, &opts).err().expect("refused").to_string();
        assert!(err.contains(says), "{err}");
    }
    let opts = EmulateOptions { seed: None, faces: vec!["C=tcp://127.0.0.1:0".into()], connections: 0, pcap: None };
    assert!(Emulation::start(&sc, &opts).err().expect("refused").to_string().contains("1 to 1024"));
}
