"""ndncc's Wireshark dissector (ndncc/data/wireshark/ndncc.lua), run by tshark on traces: every
NDN frame decodes to what python-ndn reads in it (kind, name, segment, NACK reason, mark and
link fields), the Info column tells it in words, and frames cut by a snap length decode without
error. Also: one face's TCP segments, split out of an all-faces trace, are not taken for
retransmissions (docs/traces.md)."""

from __future__ import annotations

import shutil
import subprocess
from pathlib import Path

import dpkt
import pytest
from scapy.utils import RawPcapNgReader
from test_traces import ACK, HOP_COUNT_TAG, TX_SEQUENCE, decode_ndn

import ndncc
from ndncc import wireshark

pytestmark = pytest.mark.skipif(shutil.which("tshark") is None, reason="tshark is not installed")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "trace.toml"
SHORT = ['simulation.duration="1s"']
FIELDS = (
    "frame.interface_name",
    "ndncc.kind",
    "ndncc.prefix",
    "ndncc.segment",
    "ndncc.nack_reason",
    "ndncc.congestion_mark",
    "ndncc.hop_count",
    "ndncc.tx_sequence",
    "ndncc.ack",
    "ndncc.route_label",
    "ndncc.rate_stamp",
    "_ws.col.Info",
)


def tshark(path: Path, *args: str) -> subprocess.CompletedProcess:
    proc = subprocess.run(
        ["tshark", "-n", "-X", f"lua_script:{wireshark.dissector_path()}", "-r", str(path), *args],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert proc.returncode == 0, proc.stderr
    assert "Lua" not in proc.stderr and "Lua Error" not in proc.stdout, proc.stderr + proc.stdout[:2000]
    return proc


def dissected(path: Path) -> list[dict[str, str]]:
    """One dict per frame, the dissector's fields by name ("" where absent)."""
    out = tshark(
        path,
        "-T",
        "fields",
        "-E",
        "separator=\t",
        "-E",
        "occurrence=f",
        *sum((["-e", f] for f in FIELDS), []),
    )
    return [dict(zip(FIELDS, line.split("\t"))) for line in out.stdout.splitlines()]


@pytest.fixture(scope="module")
def trace(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("ws") / "trace.pcapng"
    ndncc.load(EXAMPLE, SHORT).run(pcap=path)
    return path


def test_the_dissector_ships_with_the_package():
    path = wireshark.dissector_path()
    assert path.name == "ndncc.lua" and 'DissectorTable.get("ethertype"):add(0x8624' in path.read_text()


def test_every_ndn_frame_decodes_as_python_ndn_reads_it(trace):
    frames = dissected(trace)
    raw = list(RawPcapNgReader(str(trace)))
    assert len(frames) == len(raw)
    kinds = {"interest": "Interest", "data": "Data", "nack": "Nack", "ack": "Ack"}
    seen = set()
    for (data, meta), got in zip(raw, frames):
        eth = dpkt.ethernet.Ethernet(data)
        assert got["frame.interface_name"] == meta.ifname.decode()
        if eth.type != 0x8624:
            assert got["ndncc.kind"] == ""
            continue
        want = decode_ndn(bytes(eth.data), whole=True)
        seen.add(want.kind)
        assert got["ndncc.kind"] == kinds[want.kind], got
        if want.kind != "ack":
            assert (got["ndncc.prefix"], int(got["ndncc.segment"])) == (want.name, want.seg)
            assert got["_ws.col.Info"].startswith(f"{kinds[want.kind]}")
            assert f"{want.name}/seg={want.seg}" in got["_ws.col.Info"]
        if want.kind == "nack":
            assert int(got["ndncc.nack_reason"]) == want.nack_reason == 1000
            assert got["_ws.col.Info"].startswith("Nack (LinkLoss) /prefix/A/seg=")
        assert int(got["ndncc.congestion_mark"] or 0) == want.mark
        if want.mark:
            assert got["_ws.col.Info"].endswith("[CongestionMark=1]")
        assert int(got["ndncc.hop_count"] or -1) == (
            want.lp[HOP_COUNT_TAG][0] if HOP_COUNT_TAG in want.lp else -1
        )
        for field, typ in (("ndncc.tx_sequence", TX_SEQUENCE), ("ndncc.ack", ACK)):
            assert int(got[field] or 0) == int.from_bytes(want.lp.get(typ, b""), "big"), (field, got)
    assert seen == {"interest", "data", "nack", "ack"}
    assert any(f["ndncc.congestion_mark"] == "1" for f in frames), "the trace has marked Data"
    assert any(f["ndncc.route_label"] for f in frames), "and route labels"


def test_display_filters_find_nacks_and_marks_by_field(trace):
    nacks = tshark(trace, "-Y", 'ndncc.kind == "Nack" && ndncc.nack_reason == 1000').stdout.splitlines()
    marked = tshark(trace, "-Y", "ndncc.congestion_mark == 1").stdout.splitlines()
    assert nacks and all("Nack (LinkLoss) /prefix/A/seg=" in line for line in nacks)
    assert marked and all("[CongestionMark=1]" in line for line in marked)


def test_a_rate_stamp_reads_as_interests_per_second(tmp_path):
    path = tmp_path / "e1.pcapng"
    over = ['simulation.duration="1.5s"', 'apps.C2.start="1s"', 'record.pcap={faces=["R1->C1"]}']
    ndncc.load(ROOT / "scenarios" / "e1.toml", over).run(pcap=path)
    stamps = [f["ndncc.rate_stamp"] for f in dissected(path) if f["ndncc.kind"] == "Data"]
    assert stamps and all(float(s) > 0 for s in stamps)


def test_frames_cut_by_the_snap_length_decode_without_error(tmp_path):
    path = tmp_path / "cut.pcapng"
    ndncc.load(EXAMPLE, [*SHORT, 'record.pcap={faces="all", snaplen="40B"}']).run(pcap=path)
    frames = [f for f in dissected(path) if f["ndncc.kind"] or "LpPacket" in f["_ws.col.Info"]]
    assert frames
    cut = [f for f in frames if f["_ws.col.Info"].endswith("[cut by the snap length]")]
    assert cut and all(f["ndncc.kind"] != "Ack" for f in cut), "a cut frame is never called an Ack"


def test_one_face_split_out_of_an_all_faces_trace_has_no_false_tcp_retransmissions(trace, tmp_path):
    result = ndncc.load(EXAMPLE, SHORT).run()
    retransmitted = result.summary.filter(
        (result.summary["entity"] == "T") & (result.summary["metric"] == "retransmissions")
    )["value"][0]
    flagged = "tcp.analysis.retransmission && ip.src == 10.0.0.1 && tcp.len > 0"
    # All faces at once: a segment's copy on the second hop looks like a retransmission.
    everything = tshark(trace, "-Y", flagged).stdout.splitlines()
    assert len(everything) > retransmitted
    # The first hop alone, as docs/traces.md shows: only the sender's own retransmissions.
    face = tmp_path / "c-r.pcapng"
    tshark(trace, "-Y", 'frame.interface_name == "C->R"', "-w", str(face))
    assert len(tshark(face, "-Y", flagged).stdout.splitlines()) == retransmitted
