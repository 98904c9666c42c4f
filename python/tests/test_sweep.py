"""Parameter sweeps: grids, run keys, resuming, failures, Dask, confidence intervals, plots."""

from __future__ import annotations

import hashlib
import json
import math
import os
import signal
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import polars as pl
import pytest

import ndncc
from ndncc import cli, grid, output, stats, sweepfile
from ndncc.errors import BadInput
from ndncc.executors import ExecutionError, LocalPool
from ndncc.sweeping import make_plan, read, run_key
from ndncc.sweepstore import Store

ROOT = Path(__file__).resolve().parents[2]
E3 = ROOT / "scenarios" / "e3.toml"
#: E3 with 100 kB downloads: a run takes a few milliseconds.
SMALL = ['apps.C1.file_size="100kB"', 'apps.C2.file_size="100kB"', 'simulation.duration="60s"']
#: E3 as an endless 20 Mbps transfer: 1,800 simulated seconds take about a second of wall
#: time, long enough that a sweep of ten is still running when the test stops it.
SLOW = ['apps.C1.file_size="2GB"', 'apps.C2.file_size="2GB"', 'links.R1-R2.bandwidth="20Mbps"']
LOSS = "links.R1-R2.loss.p"
WINDOWS = "apps.C1.window.type,apps.C2.window.type"


def ndncc_cli(capsys, *args) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def finished(folder: Path) -> dict[str, tuple[int, bytes]]:
    """Each finished run's key → (manifest mtime, manifest bytes)."""
    return {
        m.parent.name[len("key=") :]: (m.stat().st_mtime_ns, m.read_bytes())
        for m in (folder / "runs").glob("key=*/manifest.json")
    }


def parts(folder: Path) -> dict[str, bytes]:
    return {p.parent.name: p.read_bytes() for p in (folder / "runs").glob("key=*/part.parquet")}


# ---------------------------------------------------------------- grids


def test_the_grid_is_the_product_of_its_axes_first_axis_slowest():
    axes = [grid.make_axis(["a.x"], [1, 2]), grid.make_axis(["b.y"], ["p", "q", "r"])]
    points = grid.expand(axes)
    assert [p.as_dict() for p in points][:4] == [
        {"a.x": "1", "b.y": "p"},
        {"a.x": "1", "b.y": "q"},
        {"a.x": "1", "b.y": "r"},
        {"a.x": "2", "b.y": "p"},
    ]
    assert len(points) == 6
    assert points[5].overrides == ("a.x=2", 'b.y="r"')
    assert grid.expand([]) == [grid.Point(0, (), ())]


def test_keys_on_one_axis_change_together():
    same = grid.make_axis(["c1.w", "c2.w"], ["aimd", "reno-hole"])
    assert same.labels == ("aimd", "reno-hole")
    assert same.overrides(1) == ['c1.w="reno-hole"', 'c2.w="reno-hole"']
    zipped = grid.make_axis(["c1.w", "c2.w"], [["aimd", "cubic"], ["bic", "bic"]])
    assert zipped.labels == ("aimd / cubic", "bic")
    assert zipped.overrides(0) == ['c1.w="aimd"', 'c2.w="cubic"']
    assert len(grid.expand([same, grid.make_axis(["l.p"], ["0%", "1%"])])) == 4


def test_grid_options_read_toml_values_and_bare_words():
    axis = grid.parse_option('links.A-B.loss.p=0%, 1.5%,"2%"')
    assert (axis.keys, axis.labels) == (("links.A-B.loss.p",), ("0%", "1.5%", "2%"))
    axis = grid.parse_option('a.q=50,{type = "codel", target = "5ms"},[1, 2]')
    assert axis.values == ((50,), ({"type": "codel", "target": "5ms"},), ([1, 2],))
    assert axis.overrides(1) == ['a.q={type = "codel", target = "5ms"}']
    assert grid.parse_option("x.a, y.b=aimd,cubic").keys == ("x.a", "y.b")


@pytest.mark.parametrize(
    "make, message",
    [
        (lambda: grid.make_axis(["a"], [1, 1]), "listed twice"),
        (lambda: grid.make_axis(["a", "b"], [[1, 2, 3]]), "3 entries for 2 keys"),
        (lambda: grid.make_axis(["a"], []), "no values"),
        (lambda: grid.check([grid.make_axis(["a"], [1], name="seed")]), "reserved"),
        (
            lambda: grid.check([grid.make_axis(["a"], [1]), grid.make_axis(["a", "b"], [2], name="n2")]),
            "on axes",
        ),
        (lambda: grid.parse_option("a.b"), "KEY=V1,V2"),
    ],
)
def test_bad_axes_are_refused(make, message):
    with pytest.raises(BadInput, match=message):
        make()


def test_a_sweep_file_gives_axes_seeds_overrides_and_plot_settings(tmp_path):
    path = tmp_path / "s.toml"
    path.write_text(
        f'scenario = "{E3}"\nseeds = [3, 7]\nmetrics = ["throughput_kbps"]\n\n'
        '[set]\n"apps.C1.file_size" = "100kB"\napps.C2.file_size = "100kB"\n\n'
        '[grid]\n"links.R1-R2.loss.p" = ["0%", "1%"]\nlinks.R1-R2.queue.packets = [50, 100]\n\n'
        '[grid.window]\nkeys = ["apps.C1.window.type", "apps.C2.window.type"]\n'
        'values = ["aimd", "reno-hole"]\n\n'
        '[plot]\nx = "links.R1-R2.loss.p"\nguides = { throughput_kbps = -0.5 }\n'
    )
    assert sweepfile.is_sweep_file(path) and not sweepfile.is_sweep_file(E3)
    f = sweepfile.read(path)
    assert f.scenario == E3 and f.seeds == [3, 7] and f.metrics == ["throughput_kbps"]
    assert f.set == ['apps.C1.file_size="100kB"', 'apps.C2.file_size="100kB"']
    assert [(a.name, a.keys, a.labels) for a in f.axes] == [
        (LOSS, (LOSS,), ("0%", "1%")),
        ("links.R1-R2.queue.packets", ("links.R1-R2.queue.packets",), ("50", "100")),
        ("window", ("apps.C1.window.type", "apps.C2.window.type"), ("aimd", "reno-hole")),
    ]
    assert f.axes[0].origin == f"{path}:10"
    assert (f.x, f.guides) == (LOSS, {"throughput_kbps": -0.5})
    # A --grid axis over the same keys replaces the file's.
    merged = grid.merge(f.axes, [grid.parse_option(f"{LOSS}=3%")])
    assert [a.labels for a in merged][0] == ("3%",) and len(merged) == 3


# ---------------------------------------------------------------- run keys


def test_a_run_key_is_the_hash_of_the_canonical_scenario_and_seed():
    expected = hashlib.sha256(b'{"a":1,"b":{"c":[1,2],"d":"x"}}\nseed=3').hexdigest()[:16]
    assert run_key({"b": {"d": "x", "c": [1, 2]}, "a": 1}, 3) == expected
    assert run_key({"a": 1, "b": {"c": [1, 2], "d": "x"}}, 4) != expected


def test_run_keys_are_stable_and_differ_between_runs():
    axes = [grid.make_axis([LOSS], ["0%", "1%"])]
    keys = [t.key for t in make_plan(E3, axes, [1, 2], SMALL).tasks]
    assert len(set(keys)) == 4
    assert keys == [t.key for t in make_plan(E3, axes, [1, 2], SMALL).tasks]
    code = (
        "from ndncc.sweeping import make_plan; from ndncc import grid; import sys, json; "
        f"axes = [grid.make_axis([{LOSS!r}], ['0%', '1%'])]; "
        f"print(json.dumps([t.key for t in make_plan({str(E3)!r}, axes, [1, 2], {SMALL!r}).tasks]))"
    )
    env = {**os.environ, "PYTHONHASHSEED": "123"}
    other = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env, check=True)
    assert json.loads(other.stdout) == keys
    # Two spellings of the same scenario are the same run.
    with pytest.raises(BadInput, match="give the same scenario"):
        make_plan(E3, [grid.make_axis([LOSS], ["1%", "0.01"])], [1], SMALL)


# ---------------------------------------------------------------- bad input


def test_a_bad_grid_key_in_a_sweep_file_exits_2_naming_file_line_and_key(capsys, tmp_path):
    path = tmp_path / "bad.toml"
    path.write_text(f'scenario = "{E3}"\nseeds = 2\n\n[grid]\n"apps.C1.window.typo" = [1, 2]\n')
    code, _, err = ndncc_cli(capsys, "sweep", path, "-o", tmp_path / "out")
    assert code == 2
    assert err.startswith(f"error: {path}:5: apps.C1.window.typo: unknown field 'typo'")
    assert err.count("\n") == 1 and not (tmp_path / "out").exists()


def test_a_bad_grid_key_or_value_on_the_command_line_exits_2(capsys, tmp_path):
    code, _, err = ndncc_cli(capsys, "sweep", E3, "--grid", "links.R9-R2.loss.p=1%", "-o", tmp_path)
    assert code == 2 and err.startswith("error: --grid: links.R9-R2.loss.p: there is no 'links.R9-R2'")
    code, _, err = ndncc_cli(capsys, "sweep", E3, "--grid", f"{LOSS}=1%,150%", "-o", tmp_path)
    assert code == 2 and f"--grid: {LOSS}: '150%' is outside [0, 1]" in err
    code, _, err = ndncc_cli(capsys, "sweep", E3, "--workers", 2, "--dask", "tcp://x:1", "-o", tmp_path)
    assert code == 2 and "exclude each other" in err


# ---------------------------------------------------------------- running and resuming


def test_a_sweep_writes_one_partition_per_run_and_skips_finished_runs(tmp_path):
    seen = []
    kwargs = dict(grid={LOSS: ["0%", "2%"], WINDOWS: ["aimd", "reno-hole"]}, seeds=2, overrides=SMALL)
    with ThreadPoolExecutor(2) as pool:
        res = ndncc.sweep(E3, executor=pool, out=tmp_path, progress=lambda s: seen.append(s.done), **kwargs)
    assert (res.status.total, res.status.done, res.status.failed) == (8, 8, 0) and seen[-1] == 8
    plan = json.loads((tmp_path / "sweep.json").read_text())
    assert sorted(finished(tmp_path)) == sorted(r["key"] for r in plan["runs"])
    part = pl.read_parquet(next((tmp_path / "runs").glob("key=*/part.parquet")))
    assert part.columns == [LOSS, WINDOWS, "seed", "entity", "kind", "metric", "value", "unit"]
    dataset = pl.read_parquet(tmp_path / "runs/*/part.parquet", hive_partitioning=True)  # adds `key`
    assert dataset["key"].n_unique() == 8 and dataset.height == res.runs.height
    tp = res.summary(["throughput_kbps"])
    assert tp.height == 8 and (tp["n"] == 2).all()  # 4 points × 2 consumers
    assert set(tp.columns) >= {LOSS, WINDOWS, "entity", "mean", "ci95"}
    before = finished(tmp_path)
    again = ndncc.sweep(E3, executor=1, out=tmp_path, **kwargs)
    assert (again.status.skipped, again.status.done) == (8, 0)
    assert finished(tmp_path) == before and again.table.equals(res.table)


def test_keep_series_adds_each_runs_time_series(tmp_path):
    with ThreadPoolExecutor(2) as pool:
        ndncc.sweep(E3, seeds=2, overrides=SMALL, executor=pool, out=tmp_path)
        assert not list(tmp_path.glob("runs/*/series.parquet"))
        res = ndncc.sweep(E3, seeds=2, overrides=SMALL, executor=pool, out=tmp_path, keep_series=True)
    assert res.status.done == 2  # runs kept without their series are done again, with them
    series = pl.read_parquet(next(tmp_path.glob("runs/*/series.parquet")))
    assert series.columns == ["t", "entity", "metric", "value"] and series.height > 0
    assert len(list(tmp_path.glob("runs/*/faces.parquet"))) == 2


@pytest.mark.parametrize("how", [signal.SIGKILL, signal.SIGINT], ids=["SIGKILL", "SIGINT"])
def test_a_killed_sweep_resumes_with_every_run_present_once(capsys, tmp_path, how):
    args = ["sweep", E3, "--seeds", 10, "--workers", 2, "-o", tmp_path]
    args += [a for s in [*SLOW, 'simulation.duration="1800s"'] for a in ("--set", s)]
    proc = subprocess.Popen(
        [sys.executable, "-m", "ndncc", *map(str, args)],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        # Ctrl-C as at a terminal, even when the tests run in a background job (which starts
        # with SIGINT ignored, and a child keeps an ignored signal ignored).
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )
    deadline = time.monotonic() + 60
    while len(finished(tmp_path)) < 2 and proc.poll() is None and time.monotonic() < deadline:
        time.sleep(0.02)
    proc.send_signal(how)
    _, err = proc.communicate(timeout=30)
    assert proc.returncode == (-9 if how == signal.SIGKILL else 130)
    assert "Traceback" not in err
    before = finished(tmp_path)
    assert 2 <= len(before) < 10

    code, out, err = ndncc_cli(capsys, *args)
    assert code == 0, err
    assert f"10 runs: {10 - len(before)} done, {len(before)} already done, 0 failed" in err
    after = finished(tmp_path)
    keys = [r["key"] for r in json.loads((tmp_path / "sweep.json").read_text())["runs"]]
    assert sorted(after) == sorted(keys)
    assert {k: after[k] for k in before} == before  # not one finished run was done again
    for d in (tmp_path / "runs").iterdir():
        assert sorted(p.name for p in d.iterdir()) == ["manifest.json", "part.parquet"]


def test_a_failing_run_is_recorded_counted_and_exits_1(capsys, tmp_path):
    code, out, err = ndncc_cli(
        capsys,
        "sweep", E3, "--grid", 'apps.C1.file_size="100kB","2GB"', "--seeds", 1, "--workers", 2,
        "--set", 'links.R1-R2.bandwidth="20Mbps"', "--set", 'simulation.duration="3000s"',
        "--timeout", 0.3, "-o", tmp_path,
    )  # fmt: skip
    assert code == 1
    assert "2 runs: 1 done, 0 already done, 1 failed" in err
    assert "failed: apps.C1.file_size=2GB seed 1: stopped after 0.3 s of wall time" in err
    assert "Traceback" not in err
    records = [json.loads(p.read_text()) for p in (tmp_path / "failed").glob("*.json")]
    assert [(r["point"], r["type"]) for r in records] == [({"apps.C1.file_size": "2GB"}, "RunTimeout")]
    assert "100kB" in out  # the table still shows the run that finished
    # Once the run succeeds, its failure record goes.
    code, _, err = ndncc_cli(capsys, "sweep", E3, "--grid", 'apps.C1.file_size="100kB","2GB"', "--seeds", 1,
                             "--set", 'links.R1-R2.bandwidth="20Mbps"', "--set", 'simulation.duration="20s"',
                             "-o", tmp_path / "b")  # fmt: skip
    assert code == 0 and not (tmp_path / "b" / "failed").exists()


def _crash_on_boom(task: str) -> str:
    if task == "boom":
        os._exit(3)
    time.sleep(0.05)
    return task * 2


def test_a_run_whose_worker_dies_fails_alone():
    pool = LocalPool(2)
    try:
        results = dict(pool.results(_crash_on_boom, ["a", "boom", "c", "d"]))
    finally:
        pool.close()
    assert {k: v for k, v in results.items() if k != "boom"} == {"a": "aa", "c": "cc", "d": "dd"}
    assert isinstance(results["boom"], ExecutionError)


def test_dask_local_cluster_gives_the_same_runs_as_the_local_pool(capsys, tmp_path):
    distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed (ndncc[dask])")
    args = [
        "sweep",
        E3,
        "--grid",
        f"{LOSS}=0%,1%,3%",
        "--seeds",
        2,
        *(a for s in SMALL for a in ("--set", s)),
    ]
    code, _, err = ndncc_cli(capsys, *args, "--workers", 2, "-o", tmp_path / "local")
    assert code == 0, err
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        code, _, err = ndncc_cli(capsys, *args, "--dask", cluster.scheduler_address, "-o", tmp_path / "dask")
        assert code == 0, err
    local, dask = parts(tmp_path / "local"), parts(tmp_path / "dask")
    assert len(local) == 6 and local == dask  # byte for byte
    again = ndncc.sweep(
        E3, grid={LOSS: ["0%", "1%", "3%"]}, seeds=2, overrides=SMALL, executor=1, out=tmp_path / "c"
    )
    assert parts(again.out) == local  # the same sweep twice: the same bytes


# ---------------------------------------------------------------- aggregation and plots


def test_t_quantiles():
    assert stats.t975(1) == pytest.approx(12.706205, abs=1e-6)
    assert stats.t975(9) == pytest.approx(2.262157, abs=1e-6)
    assert stats.t975(60) == pytest.approx(2.000298, abs=1e-6)
    assert stats.t975(10**6) == pytest.approx(1.959966, abs=1e-6)


def fake_sweep(folder: Path) -> None:
    """Two grid points × three seeds, one metric, numbers chosen by hand."""
    values = {("1", 1): 1.0, ("1", 2): 2.0, ("1", 3): 6.0, ("2", 1): 10.0, ("2", 2): 10.0, ("2", 3): math.nan}
    runs = []
    store = Store(folder)
    for (w, seed), v in values.items():
        key = f"{w}-{seed}"
        runs.append({"key": key, "seed": seed, "point": {"w": w}})
        part = pl.DataFrame(
            {"w": [w], "seed": [seed], "entity": ["c"], "kind": ["consumer"], "metric": ["goodput"],
             "value": [None if math.isnan(v) else v], "unit": ["Mbps"]},
            schema_overrides={"value": pl.Float64},
        )  # fmt: skip
        store.write_run(key, {"part.parquet": output.parquet_bytes(part), "manifest.json": b"{}\n"})
    axes = [{"name": "w", "keys": ["apps.c.window.window"], "labels": ["1", "2"]}]
    plan = {"name": "fake", "source": "fake.toml", "overrides": [], "seeds": [1, 2, 3], "axes": axes,
            "metrics": None, "plot": {"x": None, "guides": {"goodput": -0.5}}, "runs": runs}  # fmt: skip
    store.write_plan(plan)


def test_means_and_confidence_intervals_by_hand(tmp_path):
    fake_sweep(tmp_path)
    _, runs, table = read(tmp_path)
    assert runs.height == 6
    rows = {r["w"]: r for r in table.iter_rows(named=True)}
    # w=1: mean 3, s = sqrt(((1-3)² + (2-3)² + (6-3)²) / 2) = sqrt(7), CI = t(0.975; 2) · s / sqrt(3)
    assert (rows["1"]["n"], rows["1"]["mean"]) == (3, 3.0)
    assert rows["1"]["std"] == pytest.approx(math.sqrt(7))
    assert rows["1"]["ci95"] == pytest.approx(4.302653 * math.sqrt(7) / math.sqrt(3))
    # w=2: the undefined value is left out: n = 2, no spread.
    assert (rows["2"]["n"], rows["2"]["mean"], rows["2"]["ci95"]) == (2, 10.0, 0.0)


def test_plot_draws_metric_against_parameter_for_a_sweep_folder(capsys, tmp_path):
    fake_sweep(tmp_path)
    code, out, err = ndncc_cli(capsys, "plot", tmp_path)
    assert code == 0, err
    assert (tmp_path / "figures" / "goodput.png").stat().st_size > 1000
    report = (tmp_path / "report.md").read_text()
    assert "| 1 | c | goodput | 3 | 3 | ± 6.57 | Mbps |" in report
    assert "![goodput](figures/goodput.png)" in report


def test_the_shipped_example_sweep_at_test_size(capsys, tmp_path):
    code, out, err = ndncc_cli(
        capsys,
        "sweep", ROOT / "sweeps" / "e3-loss.toml", "--seeds", 2, "--grid", f"{LOSS}=0%,2%",
        "--set", 'apps.C1.file_size="200kB"', "--set", 'apps.C2.file_size="200kB"', "--workers", 2,
        "-o", tmp_path,
    )  # fmt: skip
    assert code == 0, err
    assert "8 runs: 8 done" in err
    assert "reno-hole" in out and "throughput_kbps" in out
    assert ndncc_cli(capsys, "plot", tmp_path)[0] == 0
    assert (tmp_path / "figures" / "throughput_kbps.png").is_file()
