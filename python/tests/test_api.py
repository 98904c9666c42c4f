"""The Python API over the compiled core: loading, running, errors."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import ndncc
from ndncc import _core


def test_load_exposes_the_resolved_scenario(scenario_file):
    sc = ndncc.load(scenario_file)
    assert (sc.name, sc.duration, sc.seed) == ("two-node", 10.0, 1)
    assert "[simulation]" in sc.to_toml()
    assert set(sc.to_dict()["nodes"]) == {"C", "P"}


def test_load_str_round_trips_the_resolved_toml(scenario_file):
    sc = ndncc.load(scenario_file)
    again = ndncc.load_str(sc.to_toml(), "again.toml")
    assert again.to_dict() == sc.to_dict()


def test_overrides_apply_and_accumulate(scenario_file):
    sc = ndncc.load(scenario_file, ["simulation.seed=5"])
    assert sc.seed == 5
    longer = sc.with_overrides('simulation.duration="20s"')
    assert (longer.seed, longer.duration) == (5, 20.0)
    assert longer.overrides == ("simulation.seed=5", 'simulation.duration="20s"')
    assert sc.duration == 10.0


def test_a_single_override_string_is_not_split_into_characters(scenario_file):
    assert ndncc.load(scenario_file, "simulation.seed=9").seed == 9


def test_scenario_error_carries_file_line_and_key(bad_scenario):
    with pytest.raises(ndncc.ScenarioError) as info:
        ndncc.load(bad_scenario)
    e = info.value
    assert (e.file, e.line, e.key) == (str(bad_scenario), 9, "apps.consumer.node")
    assert "X" in e.message
    assert str(e).startswith(f"{bad_scenario}:9: apps.consumer.node: ")


def test_every_error_derives_from_one_base():
    for exc in (ndncc.ScenarioError, ndncc.BuildError, ndncc.Interrupted, ndncc.InternalError):
        assert issubclass(exc, ndncc.NdnccError)
    assert issubclass(ndncc.NdnccError, Exception)
    assert ndncc.ScenarioError is _core.ScenarioError


def test_run_returns_long_tables_with_string_columns(scenario_file):
    result = ndncc.load(scenario_file).run()
    series = result.series()
    assert series.columns == ["t", "entity", "metric", "value"]
    assert series.schema == pl.Schema(
        {"t": pl.Float64, "entity": pl.String, "metric": pl.String, "value": pl.Float64}
    )
    assert set(series["metric"].unique()) >= {"window", "rtt", "data_received"}
    assert set(result.faces()["metric"].unique()) >= {"queue_packets", "drops"}
    assert result.summary.columns == ["entity", "kind", "metric", "value", "unit"]
    assert result.seed == 1
    assert result.stats.sim_seconds == 10.0


def test_series_filters_by_metric_and_entity(fake_result):
    rows = fake_result.series("data_received", entity="c0")
    assert rows["value"].to_list() == [10.0, 30.0]
    assert fake_result.series(["window", "data_received"]).height == 6
    assert fake_result.series(entity=["nobody"]).is_empty()


def test_run_with_a_seed_overrides_the_scenario_seed(scenario_file):
    sc = ndncc.load(scenario_file)
    assert sc.run(seed=3).seed == 3


def test_progress_reports_simulated_time_in_order(scenario_file):
    seen = []
    sc = ndncc.load(scenario_file)
    sc.run(progress=seen.append)
    # The first tick and the last always call back; how many between depends on the GIL's
    # pacing, which follows the machine's load (GilPacing), so is not checked.
    assert len(seen) >= 2
    assert seen == sorted(seen)
    assert 0 < seen[0] and seen[-1] == pytest.approx(10.0, rel=1e-3)


def test_a_busy_python_thread_does_not_change_the_run(scenario_file):
    # A busy thread only delays the engine's GIL takings (GilPacing), which change nothing in the
    # simulation. How often the callback then comes depends on the machine's load, so only what
    # is certain is checked: the first tick and the last one call back, in order.
    sc = ndncc.load(scenario_file, ['simulation.duration="40s"'])
    expected = sc.run().summary
    stop = threading.Event()

    def busy():
        n = 0
        while not stop.is_set():
            n += 1

    spinner = threading.Thread(target=busy, daemon=True)
    spinner.start()
    try:
        seen = []
        result = sc.run(progress=seen.append)
    finally:
        stop.set()
        spinner.join()
    assert len(seen) >= 2 and seen == sorted(seen) and seen[-1] == pytest.approx(40.0, rel=1e-3)
    assert result.summary.equals(expected)


def test_progress_returning_false_interrupts_the_run(scenario_file):
    with pytest.raises(ndncc.Interrupted):
        ndncc.load(scenario_file).run(progress=lambda t: t < 2.0)


def test_an_exception_in_the_progress_callback_stops_the_run(scenario_file):
    def boom(t):
        raise ValueError("stop here")

    with pytest.raises(ValueError, match="stop here"):
        ndncc.load(scenario_file).run(progress=boom)


def test_a_signal_during_the_run_raises_keyboard_interrupt(scenario_file):
    def press_ctrl_c(t):
        if t > 1.0:
            signal.raise_signal(signal.SIGINT)

    # Python's own Ctrl-C handler, even when the tests run in a background job, which starts
    # with SIGINT ignored (and Python then installs no handler).
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        with pytest.raises(KeyboardInterrupt):
            ndncc.load(scenario_file).run(progress=press_ctrl_c)
    finally:
        signal.signal(signal.SIGINT, previous)


def test_ctrl_c_stops_a_run_that_has_no_progress_callback(scenario_file):
    # Without a callback the engine takes the GIL only to check for signals, every 20 ms of wall
    # time; an hour of simulated time would take minutes.
    sc = ndncc.load(scenario_file, ['simulation.duration="3600s"'])
    timer = threading.Timer(0.3, os.kill, (os.getpid(), signal.SIGINT))
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            sc.run()
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)


def test_bench_runs_for_the_duration_asked_and_knows_the_scale_cases():
    assert set(_core.bench_names()) < set(_core.bench_names(all=True))
    assert "grid-32" in _core.bench_names(all=True)
    b = _core.bench("dumbbell-20", duration=0.5)
    assert b["sim_seconds"] == 0.5 and b["setup_seconds"] > 0
    # Pages the run touched first (minor faults of its thread); 0 only where none are counted.
    assert isinstance(b["run_page_faults"], int) and b["run_page_faults"] >= 0
    # The extension allocates with jemalloc (ndncc_core::allocator), on the kernel's default
    # pages unless the environment asked for others as the process started.
    overridden = "thp" in os.environ.get("_RJEM_MALLOC_CONF", "")
    assert b["allocator"].startswith("jemalloc, thp:")
    assert overridden or b["allocator"] == "jemalloc, thp:default"
    with pytest.raises(ndncc.BuildError, match="duration must be more than 0"):
        _core.bench("dumbbell-1", duration=0.0)


def test_ctrl_c_stops_a_benchmark():
    # An hour of simulated time takes the engine a quarter of a minute; Ctrl-C stops it at the
    # engine's next check, every 65,536 events.
    timer = threading.Timer(0.2, os.kill, (os.getpid(), signal.SIGINT))
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)
    try:
        timer.start()
        with pytest.raises(KeyboardInterrupt):
            _core.bench("dumbbell-1", duration=3600.0)
    finally:
        timer.cancel()
        signal.signal(signal.SIGINT, previous)


def test_bench_reports_packet_hops_per_second():
    names = _core.bench_names()
    assert names
    b = _core.bench(names[0])
    assert b["scenario"] == names[0]
    assert b["packet_hops_per_s"] > 0
    assert b["ns_per_hop"] == pytest.approx(b["wall_seconds"] * 1e9 / b["packet_hops"])
    # Every face and consumer is sampled: the rows and their bytes are part of the peak.
    assert b["recorded_rows"] > 0
    assert 0 < b["recorded_mb"] * 2**20 < b["recorded_rows"] * 24 + 2**20


def test_version_is_the_crate_version():
    assert ndncc.__version__.count(".") == 2


def test_numpy_columns_come_straight_from_the_core(scenario_file):
    raw = ndncc.load(scenario_file)._core.run()
    assert raw["series"]["t"].dtype == np.float64
    assert raw["series"]["entity"].dtype == np.uint32
    assert len(raw["series"]["t"]) == len(raw["series"]["value"])


def test_each_benchmark_of_the_command_line_reports_its_own_peak_memory():
    from ndncc import benchmark

    # A large world raises this process's peak for good; a benchmark run alone is not charged it.
    big = _core.bench("dumbbell-10000", duration=0.01)
    small = benchmark.run_alone("dumbbell-1", 0.01)
    assert small["scenario"] == "dumbbell-1" and small["packet_hops"] > 0
    assert small["peak_rss_mb"] < big["peak_rss_mb"] - 50


def _measurement(scenario: str, ns_per_hop: float, events: int = 100) -> dict:
    """A benchmark run's dict, as ``_core.bench`` gives it."""
    hops = 1000
    return {
        "scenario": scenario,
        "sim_seconds": 1.0,
        "wall_seconds": ns_per_hop * hops * 1e-9,
        "events": events,
        "packet_hops": hops,
        "packet_hops_per_s": 1e9 / ns_per_hop,
        "ns_per_hop": ns_per_hop,
        "peak_rss_mb": 10.0,
        "recorded_rows": 5,
        "recorded_mb": 0.1,
        "setup_seconds": 0.001,
        "allocator": "jemalloc, thp:default",
        "run_page_faults": 100,
    }


def test_a_repeated_benchmark_reports_medians_and_the_range_per_hop():
    from ndncc import benchmark

    runs = [_measurement("d", ns) for ns in (130.0, 100.0, 110.0)]
    r = benchmark.combine(runs)
    assert (r["runs"], r["ns_per_hop"], r["ns_per_hop_min"], r["ns_per_hop_max"]) == (3, 110.0, 100.0, 130.0)
    assert r["wall_seconds"] == pytest.approx(110e-6) and r["events"] == 100
    # Runs of one scenario must simulate the same thing; the engine is deterministic.
    with pytest.raises(
        ndncc.InternalError, match="d: its runs simulated different events .*not deterministic"
    ):
        benchmark.combine([_measurement("d", 100.0, events=100), _measurement("d", 100.0, events=101)])


def test_memory_per_flow_is_the_slope_between_the_two_largest_dumbbells():
    from ndncc import benchmark

    def measured(name: str, peak: float) -> dict:
        return {**_measurement(name, 100.0), "peak_rss_mb": peak}

    results = [measured("dumbbell-1", 5.0), measured("dumbbell-1000", 20.0), measured("tree-1111", 90.0)]
    results.append(measured("dumbbell-10000", 137.0))
    per_flow = benchmark.memory_per_flow(results)
    assert per_flow is not None
    assert (per_flow["from"], per_flow["to"]) == ("dumbbell-1000", "dumbbell-10000")
    assert per_flow["kib_per_flow"] == pytest.approx((137.0 - 20.0) * 1024 / 9000)
    # One dumbbell, or none, gives no slope.
    assert benchmark.memory_per_flow(results[:1] + results[2:3]) is None
    assert benchmark.memory_per_flow([]) is None
    # TCP dumbbells are a family of their own.
    assert benchmark.memory_per_flow(results, "tcp") is None
    tcp = [measured("tcp-1", 6.0), measured("tcp-1000", 25.0), measured("tcp-10000", 196.0)]
    per_flow = benchmark.memory_per_flow(results + tcp, "tcp")
    assert per_flow is not None and (per_flow["from"], per_flow["to"]) == ("tcp-1000", "tcp-10000")
    assert per_flow["kib_per_flow"] == pytest.approx((196.0 - 25.0) * 1024 / 9000)


def test_a_repeated_benchmark_runs_in_rounds(monkeypatch):
    from ndncc import benchmark

    calls: list[str] = []

    def run_alone(name: str, duration: float, record: bool = True) -> dict:
        assert record
        calls.append(name)
        return _measurement(name, 100.0 + len(calls))

    monkeypatch.setattr(benchmark, "run_alone", run_alone)
    started, finished = [], []
    done = benchmark.run_rounds(
        ["a", "b"], 1.0, 3, on_run=lambda n, k: started.append((n, k)), on_done=finished.append
    )
    # Every scenario once, then again: a slow spell of the machine falls on all alike.
    assert calls == ["a", "b"] * 3
    assert started == [("a", 1), ("b", 1), ("a", 2), ("b", 2), ("a", 3), ("b", 3)]
    assert [r["scenario"] for r in done] == ["a", "b"] and finished == done
    assert [(r["ns_per_hop_min"], r["ns_per_hop"], r["ns_per_hop_max"]) for r in done] == [
        (101.0, 103.0, 105.0),
        (102.0, 104.0, 106.0),
    ]


def _children(pid: int) -> list[int]:
    """Live child processes of ``pid``, from /proc."""
    found = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            fields = stat.read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        if fields[1] == str(pid) and fields[0] != "Z":
            found.append(int(stat.parent.name))
    return found


def _alive(pid: int) -> bool:
    try:
        return (Path("/proc") / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False


@pytest.mark.skipif(not Path("/proc/self/stat").exists(), reason="reads processes from /proc")
def test_a_benchmark_run_alone_ends_with_the_process_that_started_it():
    # The parent is killed outright, as SIGKILL or an unhandled SIGTERM would: its benchmark (an
    # hour of the 32 x 32 grid, some twenty minutes) must not run on.
    code = "from ndncc import benchmark; benchmark.run_alone('grid-32', 3600.0)"
    parent = subprocess.Popen([sys.executable, "-c", code])
    try:
        deadline = time.monotonic() + 60
        while not (children := _children(parent.pid)) and time.monotonic() < deadline:
            time.sleep(0.05)
        assert children, "the benchmark's process did not start"
    finally:
        parent.kill()
        parent.wait()
    deadline = time.monotonic() + 60
    while any(_alive(c) for c in children) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(c) for c in children)
