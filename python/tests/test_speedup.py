"""The wall-time comparison of two engine builds (``python -m ndncc.speedup``), on stand-in
benchmark programs: what it computes and reports, never how fast anything runs."""

from __future__ import annotations

import json
import os
import stat
import sys
from pathlib import Path

import pytest

from ndncc.speedup import Build, CompareError, compare, main, summarise

# A stand-in for ndncc-bench: its time per hop and events come from the environment, and it
# records the arguments and the core it ran on in a log beside it.
FAKE = """#!{python}
import json, os, sys
log = os.path.join(os.path.dirname(os.path.abspath(__file__)), "runs.log")
with open(log, "a") as f:
    f.write(json.dumps({{"argv": sys.argv[1:], "cpus": sorted(os.sched_getaffinity(0))}}) + "\\n")
if os.environ.get("FAKE_FAIL"):
    print("no such scenario", file=sys.stderr)
    sys.exit(2)
print(json.dumps({{
    "scenario": sys.argv[1],
    "ns_per_hop": float(os.environ.get("FAKE_NS", "100")),
    "events": int(os.environ.get("FAKE_EVENTS", "1000")),
    "packet_hops": 500,
}}))
"""


def _fake(tmp_path: Path) -> Path:
    p = tmp_path / "ndncc-bench"
    p.write_text(FAKE.format(python=sys.executable))
    p.chmod(p.stat().st_mode | stat.S_IXUSR)
    return p


def _runs(tmp_path: Path) -> list[dict]:
    return [json.loads(line) for line in (tmp_path / "runs.log").read_text().splitlines()]


def _m(ns: float, events: int = 10) -> dict:
    return {"ns_per_hop": ns, "events": events, "packet_hops": 5}


def test_the_ratio_is_the_median_of_the_rounds_and_the_fastest_runs_are_compared_too():
    got = summarise("d", [_m(100), _m(200), _m(110)], [_m(90), _m(150), _m(121)])
    # Rounds: 0.9, 0.75, 1.1; medians 110 and 121; fastest 100 and 90.
    assert got["ratio"] == pytest.approx(0.9)
    assert got["ratio_of_fastest"] == pytest.approx(0.9)
    assert (got["base_ns_per_hop"], got["new_ns_per_hop"]) == (110, 121)
    assert got["ratios"] == [0.9, 0.75, 1.1] and got["rounds"] == 3
    assert got["same_simulation"]


def test_builds_that_simulate_differently_are_reported():
    assert not summarise("d", [_m(100, events=10)], [_m(100, events=11)])["same_simulation"]
    # Nor is a build whose own runs differ the same as anything.
    assert not summarise("d", [_m(1, 10), _m(1, 11)], [_m(1, 10), _m(1, 11)])["same_simulation"]
    with pytest.raises(CompareError):
        summarise("d", [], [])


def test_the_builds_take_turns_pinned_to_one_core_each_with_its_environment(tmp_path):
    fake = _fake(tmp_path)
    cpu = max(os.sched_getaffinity(0))
    base, new = Build(fake, record=False), Build(fake, {"FAKE_NS": "80"}, record=False)
    got = compare(base, new, "dumbbell-1", 3, 2.5, cpu)
    assert got["ratio"] == pytest.approx(0.8) and got["same_simulation"]
    runs = _runs(tmp_path)
    assert len(runs) == 6
    assert all(r["argv"] == ["dumbbell-1", "--duration", "2.5", "--no-record"] for r in runs)
    assert all(r["cpus"] == [cpu] for r in runs)


def test_the_command_prints_a_line_per_scenario(tmp_path, capsys, monkeypatch):
    fake = _fake(tmp_path)
    args = [str(fake), str(fake), "dumbbell-1", "grid-32", "--rounds", "2", "--seconds", "1"]
    assert main([*args, "--new-env", "FAKE_EVENTS=7"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["scenario"] for line in lines] == ["dumbbell-1", "grid-32"]
    assert not any(line["same_simulation"] for line in lines)
    monkeypatch.setenv("FAKE_FAIL", "1")
    assert main(args) == 1
    assert "no such scenario" in capsys.readouterr().err


def test_the_share_of_recording_is_the_same_build_with_and_without_samples(tmp_path, capsys):
    fake = str(_fake(tmp_path))
    assert main([fake, fake, "dumbbell-1", "--rounds", "2", "--seconds", "1", "--new-no-record"]) == 0
    line = json.loads(capsys.readouterr().out)
    # The stand-in takes as long either way: recording took nothing.
    assert line["recording_share"] == pytest.approx(0.0) and line["same_simulation"]
    runs = _runs(tmp_path)
    assert [("--no-record" in r["argv"]) for r in runs] == [False, True, False, True]
    # A run without samples takes fewer events; its packet-hops are what must match.
    got = summarise("d", [_m(100, events=12)], [_m(88, events=10)], recording_share=True)
    assert got["recording_share"] == pytest.approx(0.12) and got["same_simulation"]
    assert "recording_share" not in summarise("d", [_m(100)], [_m(88)])


def test_bad_arguments_are_refused_with_exit_code_2(tmp_path, capsys):
    fake = str(_fake(tmp_path))
    assert main([fake, fake, "--rounds", "0"]) == 2
    assert main([fake, fake, "--seconds", "nan"]) == 2
    assert main([fake, str(tmp_path / "missing")]) == 2
    assert main([fake, fake, "--new-env", "NOEQUALS"]) == 2
    assert main([fake, fake, "--cpu", "100000"]) == 2
    with pytest.raises(SystemExit) as both:
        main([fake, fake, "--no-record", "--new-no-record"])
    assert both.value.code == 2
    err = capsys.readouterr().err
    for said in ("--rounds", "--seconds", "not found", "KEY=VALUE", "--cpu", "not allowed with"):
        assert said in err
    assert not (tmp_path / "runs.log").exists()
