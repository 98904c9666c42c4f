"""Bad input of every kind ends in one line on stderr and exit code 2, an engine crash in one
"internal error" line and exit code 1; never a traceback. One test per reproducer, then a run of
mutated copies of the shipped scenarios.

The mutation run is also a script, for bigger runs than the test suite affords:

    .venv/bin/python python/tests/test_robustness.py --mutations 3000 --seed 1
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import polars as pl
import pytest

import ndncc
from ndncc import _core, cli, errors, executors, fuzzing
from ndncc.errors import BadInput

#: The module of ``ndncc.sweep`` (the function).
sweep_module = importlib.import_module("ndncc.sweeping")

ROOT = Path(__file__).resolve().parents[1].parent
EXAMPLE = ROOT / "docs" / "examples" / "two-node.toml"
SCENARIOS = sorted((ROOT / "scenarios").glob("*.toml"))
BIG_SEED = str(2**64)


def ndncc_cli(capsys, *args) -> tuple[int, str, str]:
    code = cli.main([str(a) for a in args])
    out, err = capsys.readouterr()
    return code, out, err


def assert_bad_input(code: int, err: str, *fragments: str) -> None:
    """Exit code 2 and one line on stderr, naming each of ``fragments``."""
    assert code == 2, err
    assert err.startswith("error: ") and err.count("\n") == 1, err
    for fragment in fragments:
        assert fragment in err
    assert "Traceback" not in err


def run_installed(*args: str, timeout: float = 60, **kwargs) -> subprocess.CompletedProcess:
    """The ``ndncc`` command in a fresh interpreter, so that whatever reaches the real stderr
    (a Rust panic report, a traceback printed at exit) is seen."""
    command = [sys.executable, "-m", "ndncc", *map(str, args)]
    return subprocess.run(command, capture_output=True, text=True, timeout=timeout, **kwargs)


# ---------------------------------------------------------------- seeds


@pytest.mark.parametrize("seed", [BIG_SEED, "-1", "-18446744073709551616"])
def test_a_seed_outside_64_bits_exits_2(capsys, seed, tmp_path):
    code, _, err = ndncc_cli(capsys, "run", EXAMPLE, "--seed", seed, "-o", tmp_path / "run")
    assert_bad_input(code, err, f"seed {seed}", "from 0 to 18446744073709551615")
    assert not (tmp_path / "run").exists()


def test_the_api_refuses_the_seeds_the_cli_refuses():
    sc = ndncc.load(EXAMPLE)
    for seed in (2**64, -1, 1.5, True):
        with pytest.raises(BadInput, match="expected an integer from 0"):
            sc.run(seed=seed)
    with pytest.raises(BadInput, match="seeds must be integers from 0 to 2"):
        ndncc.sweep(EXAMPLE, seeds=[1, 2**64])


# ---------------------------------------------------------------- topo convert


@pytest.mark.parametrize("binary", ["random", "zeros", "png"])
def test_topo_convert_of_a_binary_file_exits_2(capsys, tmp_path, binary):
    rng = random.Random(1)
    data = {
        "random": bytes(rng.randrange(256) for _ in range(4096)),
        "zeros": bytes(4096),  # valid UTF-8, so the topology reader itself refuses it
        "png": b"\x89PNG\r\n\x1a\n" + bytes(100),
    }[binary]
    path = tmp_path / "topo.bin"
    path.write_bytes(data)
    code, out, err = ndncc_cli(capsys, "topo", "convert", path)
    assert_bad_input(code, err, str(path))
    assert out == ""


# ---------------------------------------------------------------- sweep files


def test_a_sweep_file_with_a_huge_seed_count_exits_2(capsys, tmp_path):
    path = tmp_path / "huge.toml"
    path.write_text(f'scenario = "{EXAMPLE}"\nseeds = 100000000000\n')
    code, _, err = ndncc_cli(capsys, "sweep", path, "-o", tmp_path / "out")
    assert_bad_input(code, err, f"{path}:2: seeds", "100,000")
    # Refused before any run was planned or started: nothing was written.
    assert not (tmp_path / "out").exists()
    code, _, err = ndncc_cli(capsys, "sweep", EXAMPLE, "--seeds", 10**12, "-o", tmp_path / "out")
    assert_bad_input(code, err, "seeds")


def test_a_grid_with_too_many_runs_exits_2(capsys, tmp_path):
    values = ",".join(str(v) for v in range(1, 501))
    code, _, err = ndncc_cli(
        capsys, "sweep", EXAMPLE, "-g", f"apps.consumer.window.window={values}", "--seeds", 1000,
        "-o", tmp_path / "out",
    )  # fmt: skip
    assert_bad_input(code, err, "500,000 runs")


@pytest.mark.parametrize("depth", [40, 5000])
def test_a_sweep_file_with_deeply_nested_tables_exits_2(capsys, tmp_path, depth):
    path = tmp_path / "deep.toml"
    value = "{a = " * depth + "1" + "}" * depth
    path.write_text(f'scenario = "{EXAMPLE}"\n[grid]\nx = [{value}]\n')
    code, _, err = ndncc_cli(capsys, "sweep", path, "-o", tmp_path / "out")
    assert_bad_input(code, err, str(path))
    assert re.search("nested|recursion", err)


# ---------------------------------------------------------------- plot on damaged folders


def _cut(path: Path) -> None:
    path.write_bytes(path.read_bytes()[:60])


DAMAGE = {
    "series cut short": lambda d: _cut(d / "series.parquet"),
    "faces replaced by JSON": lambda d: (d / "faces.parquet").write_text("[]"),
    "faces without columns": lambda d: pl.DataFrame({"t": [1]}).write_parquet(d / "faces.parquet"),
    "manifest cut short": lambda d: _cut(d / "manifest.json"),
    "manifest binary": lambda d: (d / "manifest.json").write_bytes(bytes(range(256))),
    "manifest a list": lambda d: (d / "manifest.json").write_text("[1]"),
    "manifest without seed": lambda d: (d / "manifest.json").write_text('{"ndncc_version": "x"}'),
    "summary rows wrong": lambda d: (d / "summary.json").write_text('[{"a": 1}]'),
    "summary an object": lambda d: (d / "summary.json").write_text('{"a": 1}'),
}


@pytest.fixture(scope="module")
def saved_run(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("saved") / "run"
    ndncc.load(EXAMPLE, ['simulation.duration="1s"']).run().save(folder, figures=False)
    return folder


@pytest.mark.parametrize("damage", list(DAMAGE))
def test_plot_of_a_damaged_run_folder_exits_2_naming_the_file(capsys, saved_run, tmp_path, damage):
    folder = tmp_path / "run"
    folder.mkdir()
    for f in saved_run.iterdir():
        (folder / f.name).write_bytes(f.read_bytes())
    DAMAGE[damage](folder)
    code, _, err = ndncc_cli(capsys, "plot", folder)
    assert_bad_input(code, err, str(folder / ""))
    assert re.search(r"(manifest|summary)\.json|(series|faces)\.parquet", err)


@pytest.fixture(scope="module")
def small_sweep(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("sweep") / "out"
    with ThreadPoolExecutor(2) as pool:
        ndncc.sweep(
            EXAMPLE, grid={"apps.consumer.window.window": [5, 10]}, seeds=2, executor=pool, out=folder,
            overrides=['simulation.duration="1s"'],
        )  # fmt: skip
    return folder


def copy_tree(source: Path, target: Path) -> Path:
    for f in source.rglob("*"):
        if f.is_file():
            (target / f.relative_to(source)).parent.mkdir(parents=True, exist_ok=True)
            (target / f.relative_to(source)).write_bytes(f.read_bytes())
    return target


@pytest.mark.parametrize(
    "damage, fragment",
    [
        (lambda d: _cut(next(d.glob("runs/*/part.parquet"))), "part.parquet: not a readable Parquet file"),
        (lambda d: (d / "sweep.json").write_text("garbage"), "sweep.json: not valid JSON"),
        (lambda d: (d / "sweep.json").write_text("{}"), "sweep.json: name"),
        (lambda d: (d / "sweep.json").write_text(_with_key(d, "../../x")), "sweep.json: runs[0]"),
    ],
)
def test_plot_of_a_damaged_sweep_folder_exits_2_naming_the_file(
    capsys, small_sweep, tmp_path, damage, fragment
):
    folder = copy_tree(small_sweep, tmp_path / "out")
    damage(folder)
    code, _, err = ndncc_cli(capsys, "plot", folder)
    assert_bad_input(code, err, fragment)


def _with_key(folder: Path, key: str) -> str:
    plan = json.loads((folder / "sweep.json").read_text())
    plan["runs"][0]["key"] = key
    return json.dumps(plan)


# ---------------------------------------------------------------- sweep resume


def test_a_resumed_sweep_runs_damaged_parts_again_and_says_so(capsys, small_sweep, tmp_path):
    folder = copy_tree(small_sweep, tmp_path / "out")
    parts = sorted(folder.glob("runs/*/part.parquet"))
    _cut(parts[0])
    # Fewer rows than the manifest records: a file replaced by another valid one.
    pl.read_parquet(parts[1]).head(1).write_parquet(parts[1])
    parts[2].unlink()
    args = ["sweep", EXAMPLE, "-g", "apps.consumer.window.window=5,10", "--seeds", 2, "--workers", 1,
            "-s", 'simulation.duration="1s"', "-o", folder]  # fmt: skip
    code, _, err = ndncc_cli(capsys, *args)
    assert code == 0, err
    assert f"note: ran again: {parts[0]}: not a readable Parquet file" in err
    assert f"note: ran again: {parts[1]}: 1 rows where the manifest records" in err
    assert f"note: ran again: {parts[2]}: missing" in err
    assert "4 runs: 3 done, 1 already done, 0 failed" in err
    for part in parts:
        assert pl.read_parquet(part).equals(pl.read_parquet(small_sweep / part.relative_to(folder)))
    code, _, err = ndncc_cli(capsys, *args)
    assert code == 0 and "note:" not in err and "4 already done" in err


# ---------------------------------------------------------------- Dask addresses


@pytest.mark.parametrize("address", ["bogus", "tcp://", "tcp://host:99999", "http://x:8786", ""])
def test_a_malformed_dask_address_exits_2_at_once(tmp_path, address):
    proc = run_installed("sweep", EXAMPLE, "--dask", address, "-o", tmp_path / "out", timeout=30)
    assert proc.returncode == 2, proc.stderr
    assert proc.stderr.startswith("error: --dask") and proc.stderr.count("\n") == 1, proc.stderr
    # Refused by its form, before any connection was tried or anything written.
    assert "scheduler address" in proc.stderr
    assert not (tmp_path / "out").exists()


def test_an_unreachable_dask_scheduler_exits_2_quickly(tmp_path):
    pytest.importorskip("distributed", reason="dask.distributed is not installed (ndncc[dask])")
    # One seed: several seeds of this scenario, with nothing random in it, would add a warning line.
    args = ("sweep", EXAMPLE, "--seeds", "1", "--dask", "tcp://127.0.0.1:1", "-o", tmp_path / "out")
    proc = run_installed(*args, timeout=60)
    assert proc.returncode == 2, proc.stderr
    # Quickly: the refused connection is the reason given, not a wait for Dask's timeout
    # ("within N s"), whatever the machine's speed.
    assert proc.stderr.startswith("error: --dask tcp://127.0.0.1:1: cannot reach the scheduler (")
    assert "within" not in proc.stderr
    assert proc.stderr.count("\n") == 1 and "Traceback" not in proc.stderr


def test_the_api_refuses_what_the_cli_refuses_with_the_same_message(capsys, tmp_path):
    cases = [
        ({"timeout": -1}, ["--timeout", "-1"]),
        ({"timeout": float("nan")}, ["--timeout", "nan"]),
        ({"executor": 0}, ["--workers", "0"]),
        ({"executor": -2}, ["--workers", "-2"]),
        ({"seeds": 0}, ["--seeds", "0"]),
        ({"executor": "bogus"}, ["--dask", "bogus"]),
        ({"out": ""}, ["-o", ""]),
    ]
    for kwargs, options in cases:
        with pytest.raises(BadInput) as caught:
            ndncc.sweep(EXAMPLE, **{"out": tmp_path / "out", **kwargs})
        code, _, err = ndncc_cli(capsys, "sweep", EXAMPLE, "-o", tmp_path / "out", *options)
        # Nothing in two-node is random: planning its seeds warns before `-o` is looked at.
        err = "".join(line for line in err.splitlines(True) if not line.startswith("warning: "))
        assert_bad_input(code, err)
        assert err == f"error: {caught.value}\n", kwargs
    assert not (tmp_path / "out").exists()
    with pytest.raises(BadInput, match="executor True"):
        ndncc.sweep(EXAMPLE, executor=True, out=tmp_path / "out")


# ---------------------------------------------------------------- one exception hierarchy


def test_every_error_ndncc_raises_on_purpose_is_an_ndncc_error():
    for cls in (
        errors.BadInput,
        errors.MissingFile,
        errors.DamagedFile,
        errors.RunTimeout,
        executors.ExecutionError,
    ):
        assert issubclass(cls, ndncc.NdnccError), cls
    # Still the built-in errors code may catch for them.
    assert issubclass(errors.BadInput, ValueError) and issubclass(errors.MissingFile, FileNotFoundError)
    assert issubclass(errors.RunTimeout, TimeoutError)


@pytest.mark.parametrize(
    "paper, message",
    [
        ({"x": 1}, "paper: key 'x' is not a (flow, metric) pair"),
        ({("a",): 1}, "paper: key ('a',) is not a (flow, metric) pair"),
        ({("c0", "goodput"): "fast"}, "paper: c0/goodput: expected a number"),
        ([1, 2], "paper: expected a mapping"),
        ({("c9", "goodput"): 1.0}, "paper values name no summary row: c9/goodput"),
    ],
)
def test_save_with_bad_paper_values_says_what_is_wrong(fake_result, tmp_path, paper, message):
    with pytest.raises(BadInput) as caught:
        fake_result.save(tmp_path / "run", paper=paper)
    assert str(caught.value).startswith(message)
    assert not (tmp_path / "run").exists()


# ---------------------------------------------------------------- engine crashes


def test_a_rust_panic_is_one_internal_error_line(capsys, monkeypatch):
    monkeypatch.setattr(cli, "run_with_progress", lambda *a: _core._panic("index out of bounds: secret"))
    code, out, err = ndncc_cli(capsys, "run", EXAMPLE)
    assert code == 1
    assert err == f"internal error: {errors.ENGINE_CRASH}\n"


def test_a_rust_panic_prints_no_rust_report_on_the_real_stderr(tmp_path):
    script = (
        "import sys; from ndncc import cli, _core\n"
        "cli.run_with_progress = lambda *a: _core._panic('index out of bounds: secret')\n"
        f"sys.exit(cli.main(['run', {str(EXAMPLE)!r}, '-o', {str(tmp_path / 'run')!r}]))\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "NDNCC_DEBUG"}
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 1
    assert proc.stderr == f"internal error: {errors.ENGINE_CRASH}\n"
    assert not (tmp_path / "run").exists()


def _panic_in_run(task):
    _core._panic("attempt to subtract with overflow")


def test_a_panic_in_a_sweep_run_is_recorded_as_one_line(capfd, monkeypatch, tmp_path):
    monkeypatch.setattr(sweep_module, "_run_files", _panic_in_run)
    with ThreadPoolExecutor(1) as pool, pytest.raises(ndncc.SweepFailed) as caught:
        ndncc.sweep(EXAMPLE, seeds=1, executor=pool, out=tmp_path / "out")
    res = caught.value.result  # its only run failed
    assert res.status.failed == 1
    assert res.failures[0]["error"] == errors.ENGINE_CRASH
    assert res.failures[0]["type"] == "PanicException"
    assert "panicked" not in capfd.readouterr().err


def test_a_panic_in_a_worker_process_prints_nothing_on_its_stderr():
    script = (
        "from ndncc import _core\n"
        "from ndncc.executors import LocalPool, ExecutionError\n"
        "if __name__ == '__main__':\n"
        "    pool = LocalPool(1)\n"
        "    results = [r for _, r in pool.results(_core._panic, ['boom'])]\n"
        "    pool.close()\n"
        "    assert isinstance(results[0], ExecutionError), results\n"
    )
    env = {k: v for k, v in os.environ.items() if k != "NDNCC_DEBUG"}
    with tempfile.TemporaryDirectory() as d:
        path = Path(d) / "pool.py"
        path.write_text(script)
        proc = subprocess.run([sys.executable, path], capture_output=True, text=True, timeout=60, env=env)
    assert proc.returncode == 0, proc.stderr
    assert "panicked" not in proc.stderr and "boom" not in proc.stderr


# ---------------------------------------------------------------- output folders


def test_an_empty_output_folder_name_exits_2(capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    for command in (["run", EXAMPLE], ["sweep", EXAMPLE, "--seeds", 1], ["topo", "convert", EXAMPLE]):
        code, _, err = ndncc_cli(capsys, *command, "-o", "")
        assert_bad_input(code, err, "--out: empty path")
    assert os.listdir(tmp_path) == []


@pytest.mark.parametrize("name", ["../x", "a/b", "..", ".", " ", "a\\\\b", "/abs"])
def test_a_scenario_name_cannot_lead_out_of_runs(capsys, tmp_path, monkeypatch, name):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "work").mkdir()
    monkeypatch.chdir(tmp_path / "work")
    code, _, err = ndncc_cli(capsys, "run", EXAMPLE, "-s", f'simulation.name="{name}"')
    if code == 2 and "simulation.name" in err and "cannot name a folder" not in err:
        return  # the scenario itself refuses the name
    assert_bad_input(code, err, "simulation.name", "--out")
    code, _, err = ndncc_cli(capsys, "sweep", EXAMPLE, "--seeds", 1, "-s", f'simulation.name="{name}"')
    assert_bad_input(code, err, "simulation.name")
    assert sorted(p.name for p in tmp_path.rglob("*")) == ["work"]


def test_a_folder_that_is_no_run_is_refused_unless_overwrite(capsys, tmp_path):
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "thesis.tex").write_text("precious")
    code, _, err = ndncc_cli(capsys, "run", EXAMPLE, "-o", folder)
    assert_bad_input(code, err, str(folder), "--overwrite")
    assert (folder / "thesis.tex").read_text() == "precious"
    code, _, err = ndncc_cli(capsys, "run", EXAMPLE, "-o", folder, "--overwrite")
    assert code == 0, err
    assert not (folder / "thesis.tex").exists() and (folder / "manifest.json").is_file()


def test_overwrite_never_replaces_the_current_folder(capsys, tmp_path, monkeypatch):
    (tmp_path / "keep.txt").write_text("x")
    monkeypatch.chdir(tmp_path)
    for target in (".", str(tmp_path), ".."):
        code, _, err = ndncc_cli(capsys, "run", EXAMPLE, "-o", target, "--overwrite")
        assert_bad_input(code, err, "refusing to replace")
    assert (tmp_path / "keep.txt").read_text() == "x"


def test_a_new_run_replaces_an_earlier_run_folder_without_stale_files(capsys, tmp_path):
    folder = tmp_path / "run"
    code, _, err = ndncc_cli(capsys, "run", EXAMPLE, "-o", folder, "--figures")
    assert code == 0, err
    assert (folder / "window.png").is_file()
    code, _, err = ndncc_cli(capsys, "run", EXAMPLE, "-o", folder)
    assert code == 0, err
    assert sorted(p.name for p in folder.iterdir()) == [
        "faces.parquet", "manifest.json", "report.md", "series.parquet", "summary.json",
    ]  # fmt: skip
    assert sorted(p.name for p in tmp_path.iterdir()) == ["run"]  # no temporary folder beside it


def test_a_crash_while_saving_keeps_the_old_folder_whole(monkeypatch, make_fake_result, tmp_path):
    folder = tmp_path / "run"
    make_fake_result().save(folder, figures=False)
    before = {p.name: p.read_bytes() for p in folder.iterdir()}

    def crash(*args, **kwargs):
        raise RuntimeError("disk full")

    monkeypatch.setattr("ndncc.result.render_run", crash)
    with pytest.raises(RuntimeError, match="disk full"):
        make_fake_result().save(folder)
    assert {p.name: p.read_bytes() for p in folder.iterdir()} == before
    assert sorted(p.name for p in tmp_path.iterdir()) == sorted(["run", "two-node.toml"])


def test_leftovers_of_a_killed_save_are_removed_by_the_next(make_fake_result, tmp_path):
    dead = subprocess.run(
        [sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True
    )
    leftover = tmp_path / f".run.tmp-{dead.stdout.strip()}"
    leftover.mkdir()
    (leftover / "series.parquet").write_bytes(b"half")
    make_fake_result().save(tmp_path / "run", figures=False)
    assert not leftover.exists() and (tmp_path / "run" / "manifest.json").is_file()


# ---------------------------------------------------------------- messages


def test_defaults_no_link_inherits_are_checked_all_the_same(capsys, tmp_path):
    path = tmp_path / "d.toml"
    path.write_text(EXAMPLE.read_text().replace("[nodes]", '[defaults.link]\ndelay = "abc"\n\n[nodes]'))
    code, _, err = ndncc_cli(capsys, "validate", path)
    assert_bad_input(code, err, f"{path}:6: defaults.link.delay: 'abc' is not a duration")


def test_a_bad_value_inside_an_inline_table_is_named_by_its_own_key(capsys, tmp_path):
    path = tmp_path / "l.toml"
    path.write_text(
        EXAMPLE.read_text().replace(
            'delay = "10ms"', 'delay = "10ms"\nloss = { type = "bernoulli", p = "abc" }'
        )
    )
    code, _, err = ndncc_cli(capsys, "validate", path)
    assert_bad_input(code, err, f"{path}:12: links.C-P.loss.p: 'abc' is not a fraction")
    code, _, err = ndncc_cli(
        capsys, "validate", EXAMPLE, "-s", 'links.C-P.queue={ type = "droptail", packets = "x" }'
    )
    assert_bad_input(code, err, '--set links.C-P.queue.packets: invalid type: string "x"')


LONG = "x" * 5000


@pytest.mark.parametrize(
    "args",
    [
        ["run", EXAMPLE, "--seed", LONG],  # a usage error of the command line's parser
        ["validate", EXAMPLE, "-s", f'apps.consumer.prefix="/{LONG}"'],  # the engine's messages
        ["validate", EXAMPLE, "-s", f'links.C-P.delay="{LONG}"'],
        ["validate", EXAMPLE, "-s", f'apps.consumer.window={{ type = "{LONG}" }}'],
        ["sweep", EXAMPLE, "-g", f"apps.consumer.window.window={LONG},1"],  # the sweep's own
        ["sweep", EXAMPLE, "-g", f"{LONG}=1"],
    ],
    ids=["usage", "prefix", "delay", "type", "grid value", "grid key"],
)
def test_a_long_value_is_cut_short_in_every_message(capfd, tmp_path, args):
    code = cli.main([str(a) for a in args] + (["-o", str(tmp_path / "out")] if args[0] == "sweep" else []))
    err = capfd.readouterr().err
    assert code == 2, err
    assert len(err) < 600 and "… (5" in err, err[:300]


def test_a_grid_of_ten_thousand_values_is_refused_before_any_run_is_planned(capsys, monkeypatch, tmp_path):
    loads, labels = [], []
    real_load, real_label = sweep_module.load, ndncc.grid.label
    monkeypatch.setattr(sweep_module, "load", lambda *a: loads.append(a) or real_load(*a))
    monkeypatch.setattr(ndncc.grid, "label", lambda v: labels.append(v) or real_label(v))
    values = ",".join(str(v) for v in range(1, 10_001))
    code, _, err = ndncc_cli(capsys, "sweep", EXAMPLE, "-g", f"apps.consumer.window.window={values}",
                             "--seeds", 11, "-o", tmp_path / "out")  # fmt: skip
    assert_bad_input(code, err, "110,000 runs, more than the 100,000")
    assert loads == []  # no scenario loaded, let alone a run planned
    assert len(labels) <= 10_000  # each value labelled once (it was every value at every point)


def test_a_bad_grid_value_is_refused_after_one_planned_run_per_point(capsys, monkeypatch, tmp_path):
    loads = []
    real_load = sweep_module.load
    monkeypatch.setattr(sweep_module, "load", lambda *a: loads.append(a) or real_load(*a))
    values = ",".join(str(v) for v in range(1, 301)) + ",abc"
    code, _, err = ndncc_cli(capsys, "sweep", EXAMPLE, "-g", f"apps.consumer.window.window={values}",
                             "--seeds", 10, "-o", tmp_path / "out")  # fmt: skip
    assert_bad_input(code, err, 'invalid type: string "abc"')
    assert len(loads) < 310  # 301 points, a few to blame the axis; not 3,001 runs


# ---------------------------------------------------------------- memory follows the network


#: A consumer and its producer on node A, answering after ``delay``; ``links`` may make the
#: network big (node B is there for them).
_ONE_NODE = """
[simulation]
duration = "10000s"

[nodes]
A = {{}}
B = {{}}

{links}

[apps.P]
type = "producer"
node = "A"
prefix = "/p"
processing_delay = "{delay}"

[apps.C]
type = "consumer"
node = "A"
prefix = "/p"
window = {{ type = "aimd" }}
"""


def test_a_window_beside_its_producer_stops_at_its_limit_and_the_run_says_so(capsys, tmp_path):
    # Nothing slows an AIMD window on its producer's node: it stops at 1,000 Interests in
    # flight (docs/robustness.md), the summary has the limit, and the command warns of it.
    path = tmp_path / "one-node.toml"
    path.write_text(_ONE_NODE.format(links="", delay="10us").replace('"10000s"', '"20ms"'))
    code, out, err = ndncc_cli(capsys, "run", path, "-o", tmp_path / "run")
    assert code == 0, err
    assert "warning: one-node: consumer C reached its limit of 1,000 Interests in flight at " in err
    rows = {
        (r["flow"], r["metric"]): r["value"] for r in json.loads((tmp_path / "run/summary.json").read_text())
    }
    assert rows["C", "in_flight_limit"] == 1000.0 and 0 < rows["C", "in_flight_limit_reached_s"] < 0.001


@pytest.mark.parametrize(
    "control", ['window = { type = "fixed", window = 1e6 }', 'rate = { type = "constant", rate = 1e7 }']
)
def test_the_largest_window_or_rate_on_a_slow_link_holds_what_the_link_does(capsys, tmp_path, control):
    # These took 1 to 6 GB and minutes; each Interest past the link's limit would only be lost.
    path = tmp_path / "big.toml"
    path.write_text(EXAMPLE.read_text().replace('window = { type = "fixed", window = 10 }', control))
    result = subprocess.run(
        [sys.executable, "-c", "import re, sys; from ndncc import cli; code = cli.main(sys.argv[1:]); "
         "print(re.search(r'VmHWM:\\s*(\\d+)', open('/proc/self/status').read()).group(1)); sys.exit(code)",
         "run", str(path), "-o", str(tmp_path / "run")],
        capture_output=True, text=True, timeout=120,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "reached its limit of 12,281 Interests in flight" in result.stderr
    assert int(result.stdout.split()[-1]) < 500_000  # peak kB: the limit's memory, not a million's


def test_per_packet_events_are_recorded_up_to_their_row_limit_and_the_run_says_when():
    summary = pl.DataFrame(
        [{"entity": "run", "kind": "run", "metric": "events_recorded_until_s", "value": 1.5, "unit": "s"}],
        schema=ndncc.result.SUMMARY_SCHEMA,
    )
    [said] = ndncc.result.limits_reached(summary)
    assert said.startswith("per-packet events were recorded until 1.5 s only")


# ---------------------------------------------------------------- stopping runs
#
# Runs that never end by themselves, of every kind the engine must still stop: stuck in one
# event (a window of a million beside its producer), a crawl (a thousand Interests in flight,
# each answered after 1 ms), a Python controller blocked in time.sleep, and one spinning in a
# C function (which never returns to Python, so only the process can be ended). Each test
# gives the process a generous bound to end in, and fails only if it never does.

_CONTROLLER = """
import time
from ndncc.controllers import WindowController


class Stuck(WindowController):
    def on_data(self, ev):
        if ev.seq == 5:
            {how}

    def on_timeout(self, ev):
        pass

    def window(self):
        return 4.0
"""

STOPPING = {
    # A link that holds a million Interests: the consumer beside its producer may have that many.
    "stuck": _ONE_NODE.format(links='[links.A-B]\nbandwidth = "100Gbps"\ndelay = "1s"', delay="10us"),
    "crawl": _ONE_NODE.format(links="", delay="1ms"),
    "blocked": "time.sleep(3600)",
    "spinning": "sum(range(10**12))",
}

#: How a run stops at a sweep's timeout: the engine's own check, the worker's alarm, or the
#: pool ending the worker process.
STOPPED_BY = {"stuck": "check", "crawl": "check", "blocked": "alarm", "spinning": "kill"}

#: Seconds a process may take to end after SIGINT, or a sweep past its timeout, before the test
#: fails: far more than the 2 s it takes, so that a loaded machine does not fail it.
BOUND_S = 30


def stopping_scenario(folder: Path, kind: str) -> Path:
    """The scenario file of a run of ``kind`` that never ends by itself."""
    path = folder / f"{kind}.toml"
    if kind in ("stuck", "crawl"):
        path.write_text(STOPPING[kind])
        return path
    module = f"stuck_{kind}"
    (folder / f"{module}.py").write_text(_CONTROLLER.format(how=STOPPING[kind]))
    text = EXAMPLE.read_text().replace('duration = "10s"', 'duration = "10000s"')
    text = text.replace('{ type = "fixed", window = 10 }', f'{{ type = "python", class = "{module}:Stuck" }}')
    path.write_text(text)
    return path


def start_ndncc(*args, cwd: Path) -> subprocess.Popen:
    """``ndncc args`` as a user starts it: SIGINT at its default even when the tests run in the
    background (which starts them with SIGINT ignored), in a process group of its own."""
    return subprocess.Popen(
        [sys.executable, "-m", "ndncc", *map(str, args)], cwd=cwd, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, text=True, start_new_session=True,
        preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
    )  # fmt: skip


def started_command(proc: subprocess.Popen, within: float) -> bool:
    """Whether ``proc`` has imported what it needs and started its command within ``within``
    seconds: its thread that ends it after Ctrl-C exists then (it starts just before)."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline and proc.poll() is None:
        names = []
        for comm in Path(f"/proc/{proc.pid}/task").glob("*/comm"):
            with contextlib.suppress(OSError):
                names.append(comm.read_text().strip())
        if "ndncc-interrupt" in names:
            return True
        time.sleep(0.05)
    return False


def group_gone(pgid: int, within: float) -> bool:
    """Whether every process of group ``pgid`` has ended within ``within`` seconds."""
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        try:
            os.killpg(pgid, 0)
        except ProcessLookupError:
            return True
        time.sleep(0.05)
    return False


@pytest.mark.parametrize("kind", list(STOPPING))
def test_ndncc_run_stops_at_ctrl_c_however_the_run_is_stuck(tmp_path, kind):
    path = stopping_scenario(tmp_path, kind)
    proc = start_ndncc("run", path, "-o", tmp_path / "out", cwd=tmp_path)
    try:
        # Past starting up and into the run (a run of these never ends by itself).
        assert started_command(proc, BOUND_S)
        time.sleep(0.5)
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=BOUND_S)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    # The engine's check, or KeyboardInterrupt in the blocked call, stops it; a controller
    # spinning in C never returns to either, and the process is ended 1.5 s after Ctrl-C.
    said = (
        "interrupted (still running 1.5 s after Ctrl-C: ended)\n" if kind == "spinning" else "interrupted\n"
    )
    assert err.endswith(said) and "Traceback" not in err, err
    assert group_gone(proc.pid, BOUND_S)
    assert not (tmp_path / "out").exists()


@pytest.mark.parametrize("kind", list(STOPPING))
def test_a_sweep_timeout_ends_each_run_however_it_is_stuck(tmp_path, kind):
    path = stopping_scenario(tmp_path, kind)
    proc = start_ndncc("sweep", path, "--seeds", 1, "--workers", 1, "--timeout", 1, "-o", tmp_path / "out",
                       cwd=tmp_path)  # fmt: skip
    try:
        _, err = proc.communicate(timeout=BOUND_S)
    finally:
        proc.kill()
    assert proc.returncode == 1, err
    assert "1 runs: 0 done, 0 already done, 1 failed" in err and "Traceback" not in err, err
    assert group_gone(proc.pid, BOUND_S)
    [record] = [json.loads(p.read_text()) for p in (tmp_path / "out" / "failed").glob("*.json")]
    assert record["type"] == "RunTimeout", record
    assert record["error"].startswith("stopped after 1 s of wall time (the run timeout")
    assert ("worker process was ended" in record["error"]) == (STOPPED_BY[kind] == "kill"), record
    # The alarm stops a blocked controller: the error comes from inside it.
    assert ("in on_data" in (record.get("traceback") or "")) == (STOPPED_BY[kind] == "alarm"), record


@pytest.mark.parametrize("kind", ["stuck", "blocked", "spinning"])
def test_ctrl_c_ends_a_sweep_and_its_workers_and_keeps_the_finished_runs(tmp_path, kind):
    # A grid of two: a run over before anything is stuck (100 µs), then the stuck one. Ctrl-C
    # once the first is written: the sweep ends with exit code 130, its workers with it, the
    # finished run kept.
    path = stopping_scenario(tmp_path, kind)
    proc = start_ndncc(
        "sweep", path, "--grid", 'simulation.duration="100us","10000s"', "--seeds", 1, "--workers", 1,
        "-o", tmp_path / "out", cwd=tmp_path,
    )  # fmt: skip
    try:
        deadline = time.monotonic() + BOUND_S
        while not list(tmp_path.glob("out/runs/*/part.parquet")) and time.monotonic() < deadline:
            assert proc.poll() is None, proc.communicate()
            time.sleep(0.05)
        time.sleep(0.5)  # into the stuck run
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=BOUND_S)
    finally:
        proc.kill()
    assert proc.returncode == 130, err
    assert "Traceback" not in err, err
    assert group_gone(proc.pid, BOUND_S), "a worker outlived its sweep"
    assert len(list(tmp_path.glob("out/runs/*/part.parquet"))) == 1


# ---------------------------------------------------------------- a small fuzz campaign


def test_a_small_fuzz_campaign_has_no_failures(tmp_path):
    # The full campaign (docs/robustness.md) runs thousands of cases; this one a few of each kind.
    cases = list(fuzzing.cases(12, 6, seed=5))
    report = fuzzing.campaign(cases, jobs=2, timeout=20)
    assert report["failures_total"] == 0, json.dumps(report["failures"][:2], indent=1)
    counts = report["counts"]
    assert counts["ok"] > 0 and counts["refused"] > 0  # cases that run, and cases refused
    assert counts["ok"] + counts["refused"] + counts["stopped"] == 18


def test_fuzz_mutants_find_their_traces_and_keep_their_events(tmp_path):
    # A mutant runs from a folder of its own: the files its scenario names by relative paths are
    # given absolute ones, from the scenario's folder.
    folder = tmp_path / "scenarios"
    text = 'bandwidth = { trace = "traces/a.trace", mtu = "1500B" }\nb = { series = "/abs/r.csv" }\n'
    assert fuzzing.anchored(text, folder) == (
        f'bandwidth = {{ trace = "{(folder / "traces/a.trace").as_posix()}", mtu = "1500B" }}\n'
        'b = { series = "/abs/r.csv" }\n'
    )
    # A mutant whose duration is cut still runs past its last event (and its last app start).
    original = '[simulation]\nduration = "30s"\n[[events]]\nat = "8s"\nlink = "A-B"\naction = "down"\n'
    mutated = original.replace('action = "down"', 'action = "up"')
    assert fuzzing.duration_cut(original, mutated, clamp=2.0) == ["-s", 'simulation.duration="9s"']


def test_the_fuzz_campaign_classifies_every_way_a_case_can_end():
    line = "error: x.toml:3: simulation.duration: bad\n"
    assert fuzzing.classify(0, "", False, "", 0, 1) == "ok"
    assert fuzzing.classify(2, line, False, "", 0, 1) == "refused"
    assert fuzzing.classify(2, "warning: w\n" + line, False, "", 0, 1) == "refused"
    assert fuzzing.classify(2, line + line, False, "", 0, 1) == "unclean"
    assert fuzzing.classify(2, f"error: {'x' * 2000}\n", False, "", 0, 1) == "unclean"
    assert fuzzing.classify(130, "interrupted\n", True, "", 0, 1) == "stopped"
    assert (
        fuzzing.classify(130, "interrupted (still running 1.5 s after Ctrl-C: ended)\n", True, "", 0, 1)
        == "ended"
    )
    assert fuzzing.classify(1, "internal error: x\n", False, "", 0, 1) == "internal"
    assert fuzzing.classify(0, "thread 'main' panicked at x\n", False, "", 0, 1) == "internal"
    assert fuzzing.classify(-9, "", True, "hang", 0, 1) == "hang"
    assert fuzzing.classify(-9, "", False, "oom", 5, 1) == "oom"
    assert fuzzing.classify(0, "", False, "", 5, 1) == "oom"


# ---------------------------------------------------------------- mutated scenarios


class Hang(BaseException):
    """Raised by the alarm when one command takes too long (the engine checks for signals)."""


def _alarm(signum, frame):
    raise Hang()


def run_captured(args: list[str], limit: float) -> tuple[int, str, bool]:
    """``ndncc args`` in this process, with its file descriptors 1 and 2 captured (a Rust panic
    report goes there directly), stopped after ``limit`` seconds. Returns the exit code, the
    output and whether it hung."""
    hung = False
    with tempfile.TemporaryFile(mode="w+b") as capture:
        sys.stdout.flush(), sys.stderr.flush()
        saved = os.dup(1), os.dup(2)
        os.dup2(capture.fileno(), 1), os.dup2(capture.fileno(), 2)
        previous = signal.signal(signal.SIGALRM, _alarm)
        signal.setitimer(signal.ITIMER_REAL, limit)
        try:
            code = cli.main(args)
        except Hang:
            code, hung = -1, True
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
            sys.stdout.flush(), sys.stderr.flush()
            os.dup2(saved[0], 1), os.dup2(saved[1], 2)
            os.close(saved[0]), os.close(saved[1])
        capture.seek(0)
        text = capture.read().decode("utf-8", "replace")
    # The command line's guard turns the alarm into an internal error: recognise it.
    return code, text, hung or ("internal error" in text and "Hang" in text)


def problems(code: int, text: str, hung: bool) -> list[str]:
    found = []
    if hung:
        found.append("hang")
    if "Traceback" in text:
        found.append("traceback")
    if "panicked" in text or "PanicException" in text or errors.ENGINE_CRASH in text:
        found.append("panic")
    if code not in (0, 2) and not hung:
        found.append(f"exit {code}")
    if code == 2 and text.count("\n") != 1:
        found.append("not one line")
    return found


def mutation_run(mutations: int, seed: int, limit: float = 20.0, log=None) -> dict:
    """Mutate the shipped scenarios ``mutations`` times; validate each, and run (for a fraction of
    a simulated second) each that validates. Returns the counts and the cases that went wrong."""
    rng = random.Random(seed)
    sources = {p.name: p.read_text() for p in SCENARIOS}
    codes: Counter = Counter()
    kinds: Counter = Counter()
    bad = []
    with tempfile.TemporaryDirectory() as work:
        path = Path(work) / "mutated.toml"
        for n in range(mutations):
            name = rng.choice(sorted(sources))
            text, change = sources[name], ""
            for _ in range(rng.choice([1, 1, 1, 1, 2, 3])):
                text, one = fuzzing.mutate(text, rng)
                change += f"{one}; "
            path.write_text(text)
            steps = [["validate", str(path)]]
            steps.append(
                ["run", str(path), "-o", str(Path(work) / "out"), "-s", 'simulation.duration="200ms"']
            )
            for args in steps:
                code, output, hung = run_captured(args, limit)
                codes[f"{args[0]} {code}"] += 1
                found = problems(code, output, hung)
                kinds.update(found)
                if found:
                    case = {"case": n, "scenario": name, "change": change, "command": args[0]}
                    bad.append({**case, "problems": found, "output": output[-2000:], "text": text})
                    if log:
                        print(f"case {n} {name} {args[0]}: {found}: {change}", file=log, flush=True)
                if code != 0:
                    break
    return {"mutations": mutations, "seed": seed, "exit_codes": dict(sorted(codes.items())),
            "problems": dict(kinds), "bad": bad}  # fmt: skip


def test_mutated_scenarios_end_in_exit_0_or_2_without_tracebacks(tmp_path):
    # In a fresh interpreter: the mutation run redirects file descriptors and installs an alarm.
    report = tmp_path / "report.json"
    command = [sys.executable, __file__, "--mutations", "400", "--seed", "7", "--json", str(report)]
    proc = subprocess.run(command, capture_output=True, text=True, timeout=180)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    result = json.loads(report.read_text())
    assert result["bad"] == [], json.dumps(result["bad"][:3], indent=1)
    assert result["exit_codes"].get("validate 0", 0) > 20 and result["exit_codes"].get("validate 2", 0) > 20


def main() -> int:
    parser = argparse.ArgumentParser(description="Run ndncc on mutated copies of the shipped scenarios.")
    parser.add_argument("--mutations", type=int, default=3000)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--limit", type=float, default=20.0, help="seconds before a command counts as hung")
    parser.add_argument("--json", type=Path, help="write the full result (with failing cases) here")
    options = parser.parse_args()
    started = time.monotonic()
    result = mutation_run(options.mutations, options.seed, options.limit, log=sys.stderr)
    if options.json:
        options.json.write_text(json.dumps(result, indent=1))
    summary = {k: v for k, v in result.items() if k != "bad"}
    print(
        json.dumps(
            {
                **summary,
                "failing_cases": len(result["bad"]),
                "wall_seconds": round(time.monotonic() - started, 1),
            }
        )
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
