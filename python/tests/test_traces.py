"""Packet traces: every frame of a pcapng trace decodes with the field's own parsers (scapy for
pcapng, dpkt for Ethernet, IPv4, TCP and UDP, python-ndn for NDNLPv2 and NDN v0.3), and agrees
with the run's face summary and event series."""

from __future__ import annotations

import hashlib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Optional

import dpkt
import pytest
from ndn.encoding import Component, Name, parse_data, parse_interest
from ndn.encoding.ndnlp_v2 import parse_lp_packet_v2
from ndn.encoding.tlv_var import parse_tl_num
from scapy.utils import RawPcapNgReader

import ndncc

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "trace.toml"
ETH_NDN, ETH_IPV4 = 0x8624, 0x0800
LP_PACKET, HOP_COUNT_TAG, ACK, TX_SEQUENCE = 100, 84, 836, 840
NACK_LINK_LOSS = 1000


def lp_fields(lp: bytes) -> dict[int, bytes]:
    """An LpPacket's header fields by TLV-TYPE (python-ndn's model skips the ones it lacks)."""
    typ, n = parse_tl_num(lp, 0)
    assert typ == LP_PACKET
    length, m = parse_tl_num(lp, n)
    at, end, fields = n + m, n + m + length, {}
    while at < end:
        t, a = parse_tl_num(lp, at)
        ln, b = parse_tl_num(lp, at + a)
        fields[t] = lp[at + a + b : at + a + b + ln]
        at += a + b + ln
    assert at == end == len(lp), "the LpPacket fills the frame"
    return fields


@dataclass
class Frame:
    t_ns: int
    wire_len: int
    captured: int
    comment: Optional[str]
    kind: str  # "interest", "data", "nack", "ack", "tcp", "udp"
    name: str = ""
    seg: Optional[int] = None
    mark: int = 0
    nack_reason: Optional[int] = None
    content_len: Optional[int] = None
    lp: dict = field(default_factory=dict)
    ip: Optional[dpkt.ip.IP] = None


def decode_ndn(payload: bytes, whole: bool) -> Frame:
    fields = lp_fields(payload) if whole else {}
    lp = parse_lp_packet_v2(payload)
    f = Frame(0, 0, 0, None, "ack", lp=fields, mark=lp.congestion_mark or 0)
    if lp.fragment is None:
        assert ACK in fields
        return f
    frag = bytes(lp.fragment)
    if frag[0] == 5:
        name, _, _, _ = parse_interest(frag)
        f.kind = "nack" if lp.nack is not None else "interest"
        f.nack_reason = lp.nack.nack_reason if lp.nack is not None else None
    else:
        name, meta, content, sig = parse_data(frag)
        f.kind, f.content_len = "data", len(content)
        assert sig.signature_info.signature_type == 0, "DigestSha256"
        digest = hashlib.sha256(b"".join(bytes(p) for p in sig.signature_covered_part)).digest()
        assert bytes(sig.signature_value_buf) == digest
        assert meta.freshness_period == 1000
    last = name[-1]
    assert Component.get_type(last) == Component.TYPE_SEGMENT
    f.name, f.seg = Name.to_str(name[:-1]), Component.to_number(last)
    return f


def read(path: Path) -> dict[str, list[Frame]]:
    """Every frame of a trace, decoded, by interface (face) name."""
    faces: dict[str, list[Frame]] = {}
    for data, meta in RawPcapNgReader(str(path)):
        assert meta.linktype == 1 and meta.tsresol == 10**9
        whole = len(data) == meta.wirelen
        eth = dpkt.ethernet.Ethernet(data)
        if eth.type == ETH_NDN:
            f = decode_ndn(bytes(eth.data), whole)
        else:
            assert eth.type == ETH_IPV4
            ip = eth.data
            assert isinstance(ip, dpkt.ip.IP) and ip.len == meta.wirelen - 14
            f = Frame(0, 0, 0, None, "tcp" if ip.p == dpkt.ip.IP_PROTO_TCP else "udp", ip=ip)
            f.mark = int(ip.tos & 3 == 3)
        f.t_ns, f.wire_len, f.captured = (meta.tshigh << 32) | meta.tslow, meta.wirelen, len(data)
        f.comment = meta.comments[0].decode() if meta.comments else None
        faces.setdefault(meta.ifname.decode(), []).append(f)
    return faces


@pytest.fixture(scope="module")
def traced(tmp_path_factory: pytest.TempPathFactory) -> tuple[ndncc.Result, dict[str, list[Frame]]]:
    path = tmp_path_factory.mktemp("trace") / "trace.pcapng"
    result = ndncc.load(EXAMPLE).run(pcap=path)
    return result, read(path)


def summary(result: ndncc.Result, entity: str, metric: str) -> float:
    s = result.summary
    row = s.filter((s["entity"] == entity) & (s["metric"] == metric))
    return row["value"][0] if row.height else 0.0


def test_every_frame_decodes_and_counts_match_the_face_summary(traced) -> None:
    result, faces = traced
    assert set(faces) == {"C->R", "R->C", "R->P", "P->R"}
    for face, frames in faces.items():
        sent = [f for f in frames if f.comment is None]
        dropped = [f for f in frames if f.comment is not None]
        assert len(sent) == summary(result, face, "packets_sent"), face
        drops = sum(
            summary(result, face, m) for m in ("drops_queue", "drops_aqm", "drops_shaper", "drops_loss")
        )
        assert len(dropped) == drops, face
        assert all(f.comment.startswith("dropped: ") for f in dropped)
        assert result.trace_counts[face] == (len(sent), len(dropped))
        times = [f.t_ns for f in frames]
        assert times == sorted(times), "frames in time order"
        kinds = Counter(f.kind for f in sent)
        assert kinds["interest"] == summary(result, face, "interests_sent"), face
        assert kinds["data"] == summary(result, face, "data_sent"), face
    # Every kind of frame the scenario makes is there: NDN both ways, NACKs, standalone ACK
    # frames, TCP and UDP.
    everything = Counter(f.kind for frames in faces.values() for f in frames)
    assert all(everything[k] > 0 for k in ("interest", "data", "nack", "ack", "tcp", "udp")), everything


def test_names_marks_and_nacks_match_the_consumers_events(traced) -> None:
    result, faces = traced
    to_consumer = [f for f in faces["R->C"] if f.comment is None]
    assert {f.name for f in to_consumer if f.kind in ("data", "nack")} == {"/prefix/A"}
    marked = Counter(f.seg for f in to_consumer if f.kind == "data" and f.mark)
    events = Counter(int(v) for v in result.series("mark", "C")["value"])
    late = summary(result, "C", "late_data")
    assert events and not events - marked, "every marked Data the consumer saw crossed R->C marked"
    assert sum((marked - events).values()) <= late
    assert sum(events.values()) == summary(result, "C", "marks")
    nacks = [f for f in to_consumer if f.kind == "nack"]
    assert {f.nack_reason for f in nacks} == {NACK_LINK_LOSS}
    nack_events = Counter(int(v) for v in result.series("nack", "C")["value"])
    assert nack_events and not nack_events - Counter(f.seg for f in nacks)
    # The Data the consumer received are exactly the segments it asked for.
    asked = {f.seg for f in faces["C->R"] if f.kind == "interest"}
    assert {f.seg for f in to_consumer if f.kind == "data"} <= asked


def test_link_fields_and_sizes_follow_the_encoding(traced) -> None:
    result, faces = traced
    # The loss-detect link service numbers every frame on R-P and acknowledges them.
    for face in ("R->P", "P->R"):
        # (A frame dropped in the queue never reached the link service that numbers it.)
        sent = [f for f in faces[face] if f.comment is None and f.kind in ("interest", "data", "nack")]
        assert sent and all(TX_SEQUENCE in f.lp for f in sent), face
        assert any(ACK in f.lp for f in faces[face])
    # Without a link service or marks, an NDN frame's length is the packet's simulated size.
    c_r = faces["C->R"]
    ndn_bytes = sum(f.wire_len for f in c_r if f.kind in ("interest", "nack"))
    ip_bytes = sum(f.wire_len - 14 for f in c_r if f.kind in ("tcp", "udp"))
    assert ip_bytes == summary(result, "C->R", "ip_bytes_sent")
    assert ndn_bytes + ip_bytes == summary(result, "C->R", "bytes_sent")
    assert all(HOP_COUNT_TAG in f.lp for f in c_r if f.kind == "interest")
    # Data carry the producer's payload as their Content.
    assert {f.content_len for f in faces["R->C"] if f.kind == "data"} == {1024}


def test_ip_frames_carry_real_headers(traced) -> None:
    _, faces = traced
    tcp = [f.ip for f in faces["C->R"] if f.kind == "tcp"]
    acks = [f.ip for f in faces["R->C"] if f.kind == "tcp"]
    assert tcp and acks
    for ip in tcp:
        seg = ip.data
        assert isinstance(seg, dpkt.tcp.TCP) and seg.dport == acks[0].data.sport
        assert ip.sum == dpkt.ip.IP(bytes(ip)).sum
    data_seqs = [ip.data.seq for ip in tcp if len(ip.data.data)]
    assert data_seqs == sorted(data_seqs) or len(set(data_seqs)) < len(data_seqs), "retransmissions only"
    assert max(ip.data.ack for ip in acks) >= 200_000, "the 200 kB transfer is acknowledged"
    udp = [f.ip for f in faces["C->R"] if f.kind == "udp"]
    seqs = [int.from_bytes(bytes(ip.data.data)[:8], "big") for ip in udp]
    assert seqs == list(range(len(seqs))), "CBR datagrams numbered from 0"


def test_snaplen_and_time_window(tmp_path: Path) -> None:
    path = tmp_path / "short.pcapng"
    over = ['record.pcap={faces=["R->C"], snaplen="64B", start="1s", stop="2s", drops=false}']
    result = ndncc.load(EXAMPLE, over).run(pcap=path)
    frames = [(data, meta) for data, meta in RawPcapNgReader(str(path))]
    assert {m.ifname for _, m in frames} == {b"R->C"}
    assert all(len(d) == min(64, m.wirelen) for d, m in frames)
    assert any(m.wirelen > 1000 for _, m in frames), "Data keep their full length"
    times = [(m.tshigh << 32) | m.tslow for _, m in frames]
    assert 1_000_000_000 <= min(times) and max(times) < 2_000_000_000
    assert result.trace_counts == {"R->C": (len(frames), 0)}


def test_a_scenario_with_a_trace_saves_it_in_the_run_folder(tmp_path: Path) -> None:
    result = ndncc.load(EXAMPLE, ["simulation.duration=1s"]).run()
    assert result.trace is not None and result.trace.exists()
    result.save(tmp_path / "run", figures=False)
    assert (tmp_path / "run" / "trace.pcapng").stat().st_size == result.trace.stat().st_size
    assert ndncc.load(EXAMPLE, ["simulation.duration=1s"]).run(pcap=False).trace is None


def test_traces_do_not_change_results(tmp_path: Path) -> None:
    a = ndncc.load(EXAMPLE, ["simulation.duration=1s"]).run(pcap=False)
    b = ndncc.load(EXAMPLE, ["simulation.duration=1s"]).run(pcap=tmp_path / "t.pcapng")
    assert a.summary.equals(b.summary)
    assert a.series().equals(b.series())


def test_bad_trace_settings_are_refused(tmp_path: Path) -> None:
    text = EXAMPLE.read_text()
    for setting, key in [
        ('{ snaplen = "0B" }', "record.pcap.snaplen"),
        ('{ start = "2s", stop = "1s" }', "record.pcap.stop"),
        ('{ faces = ["C->P"] }', "record.pcap.faces[0]"),
        ("{ bogus = 1 }", "bogus"),
    ]:
        bad = tmp_path / "bad.toml"
        bad.write_text(text.replace('pcap = { faces = "all" }', f"pcap = {setting}"))
        with pytest.raises(ndncc.ScenarioError) as e:
            ndncc.load(bad)
        assert key in str(e.value) and e.value.line is not None, (setting, str(e.value))
    with pytest.raises(ndncc.TraceError):
        ndncc.load(EXAMPLE, ["simulation.duration=1s"]).run(pcap=tmp_path / "missing" / "t.pcapng")


def test_the_reading_example_of_docs_traces_md_runs(tmp_path: Path) -> None:
    page = (EXAMPLE.parents[1] / "traces.md").read_text()
    code = page.split("## Reading a trace from Python", 1)[1].split("```python\n", 1)[1].split("```", 1)[0]
    path = tmp_path / "trace.pcapng"
    ndncc.load(EXAMPLE, ["simulation.duration=1s"]).run(pcap=path)
    seen: dict = {}
    exec(
        code.replace("runs/trace/trace.pcapng", str(path))
        + "\n    seen[kind if eth.type == 0x8624 else 'ip'] = 1",
        {"seen": seen},
    )
    assert set(seen) >= {"interest", "data", "ip"}
