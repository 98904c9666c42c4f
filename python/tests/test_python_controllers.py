"""Controllers written in Python: the same runs as the Rust ones, errors that point at the user's
code or scenario line, determinism, and sweeps on the local pool and on Dask."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest
from polars.testing import assert_frame_equal

import ndncc
from ndncc.controllers import NackAction, RateController, WindowController, as_override
from ndncc.errors import BadInput
from ndncc.examples.aimd import Aimd

ROOT = Path(__file__).resolve().parents[2]
E3 = ROOT / "scenarios" / "e3.toml"
E4 = ROOT / "scenarios" / "e4.toml"

PYTHON_AIMD = '{ type = "python", class = "ndncc.examples.aimd:Aimd" }'
PYTHON_AIMD_WITH_BETA = (
    'apps.C.window={ type = "python", class = "ndncc.examples.aimd:Aimd", params = { beta = 0.5 } }'
)


def assert_same_run(a: ndncc.Result, b: ndncc.Result) -> None:
    """Every number of both runs equal, bit for bit."""
    assert_frame_equal(a.summary, b.summary, check_exact=True)
    assert_frame_equal(a.series(), b.series(), check_exact=True)
    assert_frame_equal(a.faces(), b.faces(), check_exact=True)
    assert a.stats.events == b.stats.events and a.stats.packet_hops == b.stats.packet_hops


@pytest.mark.parametrize(("path", "apps"), [(E3, ["C1", "C2"]), (E4, ["C"])], ids=["e3", "e4"])
def test_the_python_aimd_gives_the_rust_aimds_runs_bit_for_bit(path, apps):
    rust = ndncc.load(path, [f'apps.{a}.window={{ type = "aimd" }}' for a in apps]).run()
    python = ndncc.load(path, [f"apps.{a}.window={PYTHON_AIMD}" for a in apps]).run()
    assert_same_run(rust, python)
    # The runs are not trivial: windows move, and there are timeouts to react to.
    windows = python.series("window")["value"]
    assert windows.n_unique() > 100
    timeouts = python.summary.filter(pl.col("metric") == "timeouts")["value"].sum()
    assert timeouts > 0
    assert python.series("ssthresh").height > 0


def test_controllers_given_to_load_as_a_class_or_an_instance_run_like_the_file_syntax():
    by_file = ndncc.load(E4, [f"apps.C.window={PYTHON_AIMD}"]).run()
    assert_same_run(ndncc.load(E4, controllers={"C": Aimd}).run(), by_file)
    assert_same_run(ndncc.load(E4, controllers={"C": Aimd(beta=0.5)}).run(), by_file)
    # Another beta is another run, and the scenario records it.
    sc = ndncc.load(E4, controllers={"C": Aimd(beta=0.7)})
    assert sc.to_dict()["apps"]["C"]["window"] == {
        "type": "python",
        "class": "ndncc.examples.aimd:Aimd",
        "params": {"beta": 0.7},
    }
    assert not sc.run().summary.equals(by_file.summary)


# ---------------------------------------------------------------- a module next to the scenario

TWO_NODE = """\
[simulation]
duration = "2s"
seed = 1

[nodes]
C = {{}}
P = {{}}

[links.C-P]
bandwidth = "10Mbps"
delay = "10ms"
queue = {{ type = "droptail", packets = 20 }}

[apps.producer]
type = "producer"
node = "P"
prefix = "/p"

[apps.C]
type = "consumer"
node = "C"
prefix = "/p"
{control}

[record]
interval = "100ms"
"""

MODULE = '''
import math
from ndncc.controllers import NackAction, RateController, WindowController


class Fixed(WindowController):
    def __init__(self, window=8.0):
        if window < 1:
            raise ValueError(f"window must be >= 1 (got {window})")
        self.w = window

    def on_data(self, ev):
        pass

    def on_timeout(self, ev):
        pass

    def window(self):
        return self.w


class Broken(Fixed):
    def on_data(self, ev):
        if ev.seq == 30:
            self.w = 1 / 0


class NanWindow(Fixed):
    def on_data(self, ev):
        self.w = math.nan


class Tagged(Fixed):
    """Fixed, with a parameter it only keeps (any float, nan included)."""

    def __init__(self, tag=0.0):
        super().__init__()
        self.tag = tag


class HugeWindow(Fixed):
    def on_data(self, ev):
        self.w = 1e300


class NegativeWindow(Fixed):
    def on_data(self, ev):
        self.w = -5.0


class NoAnswer(Fixed):
    def on_nack(self, ev):
        pass


class Random(Fixed):
    """Draws a window from its rng at every Data; records what it saw."""

    def on_data(self, ev):
        self.w = 2 + 20 * self.rng.random()

    def metrics(self):
        return [("drawn", self.w), ("srtt_ms", 0.0)]


class Constant(RateController):
    def __init__(self, rate=100.0):
        self.r = rate

    def rate(self):
        return self.r


class NoWindow(WindowController):
    def on_data(self, ev):
        pass

    def on_timeout(self, ev):
        pass
'''


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A folder with the controllers above as a module; scenarios are written next to it.

    A module is imported once per process, so each test's module has a name of its own.
    """
    (tmp_path / f"{module_name(tmp_path)}.py").write_text(MODULE)
    return tmp_path


def module_name(folder: Path) -> str:
    return f"mycc_{folder.name}"


def scenario(folder: Path, control: str, name: str = "s.toml", extra: str = "") -> Path:
    """A scenario file in ``folder`` whose consumer C has ``control`` (``mycc`` is the module
    of the folder)."""
    path = folder / name
    control = control.replace('"mycc', f'"{module_name(folder)}')
    path.write_text(TWO_NODE.format(control=control) + extra)
    return path


def test_a_module_next_to_the_scenario_file_is_found(folder):
    res = ndncc.load(scenario(folder, 'window = { type = "python", class = "mycc:Fixed" }')).run()
    same = ndncc.load(scenario(folder, 'window = { type = "fixed", window = 8 }', "rust.toml")).run()
    assert_same_run(res, same)


def test_a_nan_in_a_controllers_params_reaches_it_and_the_run_goes_on(folder):
    # nan is not equal to itself; the controller's spec must still be recognised as its own.
    tagged = 'window = { type = "python", class = "mycc:Tagged", params = { tag = nan } }'
    res = ndncc.load(scenario(folder, tagged)).run()
    same = ndncc.load(scenario(folder, 'window = { type = "fixed", window = 8 }', "rust.toml")).run()
    assert_same_run(res, same)


def test_a_python_rate_controller_runs_like_the_rust_one(folder):
    python = ndncc.load(scenario(folder, 'rate = { type = "python", class = "mycc:Constant" }')).run()
    rust = ndncc.load(scenario(folder, 'rate = { type = "constant", rate = 100 }', "rust.toml")).run()
    assert_same_run(python, rust)


def scenario_error(path: Path) -> ndncc.ScenarioError:
    with pytest.raises(ndncc.ScenarioError) as info:
        ndncc.load(path)
    return info.value


@pytest.mark.parametrize(
    ("control", "key", "words"),
    [
        ('class = "nosuch:X"', "apps.C.window.class", "no module named 'nosuch'"),
        ('class = "mycc:Nope"', "apps.C.window.class", "has no 'Nope'"),
        (
            'class = "mycc:Constant"',
            "apps.C.window.class",
            "not a subclass of ndncc.controllers.WindowController",
        ),
        ('class = "mycc:NoWindow"', "apps.C.window.class", "does not define window()"),
        ('class = "mycc"', "apps.C.window.class", "package.module:Class"),
        ('class = "mycc:Fixed", params = { size = 3 }', "apps.C.window.params.size", "no parameter 'size'"),
        ('class = "mycc:Fixed", params = { window = 0.5 }', "apps.C.window.params", "window must be >= 1"),
    ],
)
def test_a_bad_class_or_parameter_names_the_file_line_and_key(folder, control, key, words):
    path = scenario(folder, f'window = {{ type = "python", {control} }}')
    err = scenario_error(path)
    assert (err.key, err.line) == (key, 23), err
    assert Path(err.file) == path
    assert words in err.message, err.message


def test_an_exception_in_a_hook_stops_the_run_with_the_users_traceback(folder):
    sc = ndncc.load(scenario(folder, 'window = { type = "python", class = "mycc:Broken" }'))
    with pytest.raises(ndncc.ControllerError) as info:
        sc.run()
    err = info.value
    assert (err.app, err.hook, err.class_path) == ("C", "on_data", f"{module_name(folder)}:Broken")
    assert "app C" in str(err) and "ZeroDivisionError" in str(err)
    cause = err.__cause__
    assert isinstance(cause, ZeroDivisionError)
    frames = [f.tb_frame.f_code.co_filename for f in _walk(cause.__traceback__)]
    assert str(folder / f"{module_name(folder)}.py") in frames


def test_the_command_line_reports_a_controllers_exception_as_the_users_with_its_line(folder, capsys):
    from ndncc import cli

    path = scenario(folder, 'window = { type = "python", class = "mycc:Broken" }')
    code = cli.main(["run", str(path), "-o", str(folder / "out")])
    err = capsys.readouterr().err.strip()
    # Their exit code, not ndncc's internal one, and one line naming their file, line and hook:
    # `self.w = 1 / 0` is line 25 of the module.
    module = folder / f"{module_name(folder)}.py"
    assert code == 3 and len(err.splitlines()) == 1, err
    assert err.startswith("error: app C: the Python controller") and "internal" not in err, err
    assert f"raised in on_data() at {module}:25: ZeroDivisionError" in err, err


def _walk(tb):
    while tb is not None:
        yield tb
        tb = tb.tb_next


@pytest.mark.parametrize(
    ("cls", "hook", "words"),
    [
        ("NanWindow", "window", "finite number"),
        ("HugeWindow", "window", "from 0 to 1000000 Interests, got 1e300"),
        ("NegativeWindow", "window", "from 0 to 1000000 Interests, got -5.0"),
        ("NoAnswer", "on_nack", "NackAction.RETRANSMIT or"),
    ],
)
def test_a_hook_that_returns_a_bad_value_stops_the_run_naming_it(folder, cls, hook, words):
    # C's Interests for /nowhere go to P, which has no route for them: each comes back as a
    # NACK (reason no-route).
    nowhere = '\n[[routes]]\nnode = "C"\nprefix = "/nowhere"\nnexthop = "P"\n'
    control = f'window = {{ type = "python", class = "mycc:{cls}" }}'
    path = scenario(folder, control, extra=nowhere if cls == "NoAnswer" else "")
    sc = ndncc.load(path, ['apps.C.prefix="/nowhere"'] if cls == "NoAnswer" else [])
    with pytest.raises(ndncc.ControllerError) as info:
        sc.run()
    assert info.value.hook == hook
    assert words in str(info.value.__cause__)


@pytest.mark.parametrize("rate", ["0.0", "-3.0", "1e300"])
def test_a_python_rate_beyond_the_engines_rates_stops_the_run_naming_it(folder, rate):
    control = f'rate = {{ type = "python", class = "mycc:Constant", params = {{ rate = {rate} }} }}'
    with pytest.raises(
        ndncc.NdnccError, match=r"rate\(\) must return a number from 0\.0000001 to 10000000 Interests/s"
    ):
        ndncc.load(scenario(folder, control)).run()


def test_the_rng_follows_the_seed_and_its_metrics_are_recorded(folder):
    sc = ndncc.load(scenario(folder, 'window = { type = "python", class = "mycc:Random" }'))
    a, b, c = sc.run(seed=3), sc.run(seed=3), sc.run(seed=4)
    assert_same_run(a, b)
    assert not a.series("window").equals(c.series("window"))
    drawn = a.series("drawn", "C")["value"]
    assert drawn.len() == 21 and drawn.n_unique() > 10
    assert ((drawn >= 2) & (drawn < 22)).all()


def test_the_api_refuses_controllers_it_cannot_rebuild_for_every_run():
    class Local(Aimd):
        pass

    with pytest.raises(BadInput, match="inside a function"):
        as_override("C", Local)
    with pytest.raises(BadInput, match="keywords"):
        as_override("C", Aimd(1.0))
    with pytest.raises(BadInput, match="expected a WindowController"):
        ndncc.load(E4, controllers={"C": object()})


def test_an_override_puts_params_of_every_kind_in_the_scenario():
    text = as_override("C", Aimd(initial_window=2, beta=0.25))
    assert text.startswith("apps.C.window={ ")
    sc = ndncc.load(E4, [text])
    assert sc.to_dict()["apps"]["C"]["window"]["params"] == {"initial_window": 2, "beta": 0.25}


def test_nack_actions_are_the_engines_two():
    assert [a.name for a in NackAction] == ["RETRANSMIT", "IGNORE"]
    assert issubclass(Aimd, WindowController) and not issubclass(Aimd, RateController)


# ---------------------------------------------------------------- sweeps

FAILING = '''
from ndncc.examples.aimd import Aimd


class FailsIfAsked(Aimd):
    """The Rust aimd, except that with fail = true it raises at the 100th segment."""

    def __init__(self, fail=False, **params):
        super().__init__(**params)
        self.fail = fail

    def on_data(self, ev):
        if self.fail and ev.seq == 100:
            raise RuntimeError("failing on purpose")
        super().on_data(ev)
'''


def test_a_sweep_on_the_local_pool_keeps_the_runs_that_did_not_fail(tmp_path):
    res = ndncc.sweep(
        E4,
        grid={"apps.C.window.params.beta": [0.5, 0.7]},
        seeds=2,
        overrides=[PYTHON_AIMD_WITH_BETA, 'simulation.duration="5s"'],
        executor=2,
        out=tmp_path / "ok",
    )
    assert (res.status.total, res.status.done, res.status.failed) == (4, 4, 0)
    # The runs with beta 0.5 are the Rust aimd's.
    rust = ndncc.sweep(
        E4,
        seeds=2,
        overrides=['apps.C.window={ type = "aimd" }', 'simulation.duration="5s"'],
        executor=1,
        out=tmp_path / "rust",
    )
    mine = (
        res.summary().filter(pl.col("apps.C.window.params.beta") == "0.5").drop("apps.C.window.params.beta")
    )
    assert_frame_equal(mine.sort(pl.all()), rust.summary().sort(pl.all()), check_exact=True)


def test_a_failing_python_controller_fails_its_run_alone(tmp_path):
    # The module sits next to the scenario file, so the workers find it there too.
    (tmp_path / "failing.py").write_text(FAILING)
    path = tmp_path / "e4.toml"
    path.write_text(E4.read_text())
    res = ndncc.sweep(
        path,
        seeds=2,
        grid={"apps.C.window.params.fail": [False, True]},
        overrides=[
            'apps.C.window={ type = "python", class = "failing:FailsIfAsked", params = { fail = false } }',
            'simulation.duration="3s"',
        ],
        executor=2,
        out=tmp_path / "out",
    )
    assert (res.status.total, res.status.done, res.status.failed) == (4, 2, 2)
    assert {f["point"]["apps.C.window.params.fail"] for f in res.failures} == {"true"}
    for f in res.failures:
        assert f["type"] == "ControllerError"
        assert "failing on purpose" in f["traceback"] and "failing.py" in f["traceback"]
    kept = res.summary()
    assert set(kept["apps.C.window.params.fail"]) == {"false"} and kept.height > 0


SLEEPER = """
import time
from ndncc.controllers import WindowController


class Sleeper(WindowController):
    def on_data(self, ev):
        if ev.seq == 5:
            time.sleep(3600)

    def on_timeout(self, ev):
        pass

    def window(self):
        return 4.0
"""


def test_a_sweep_timeout_ends_a_run_blocked_inside_a_python_controller(tmp_path):
    # The controller never returns to the engine, so the engine's own timeout check cannot come;
    # the worker's alarm stops the run where it is, half a second past the timeout.
    (tmp_path / "sleeper.py").write_text(SLEEPER)
    path = tmp_path / "e4.toml"
    path.write_text(E4.read_text())
    with pytest.raises(ndncc.SweepFailed):
        ndncc.sweep(
            path,
            seeds=1,
            overrides=['apps.C.window={ type = "python", class = "sleeper:Sleeper" }'],
            executor=1,
            timeout=0.5,
            out=tmp_path / "out",
            progress=False,
        )
    records = [json.loads(p.read_text()) for p in (tmp_path / "out" / "failed").glob("*.json")]
    assert [r["type"] for r in records] == ["RunTimeout"]
    assert "stopped after 0.5 s of wall time" in records[0]["error"]


def test_a_sweep_with_a_python_controller_runs_on_dask_as_on_the_local_pool(tmp_path):
    distributed = pytest.importorskip("distributed", reason="dask.distributed is not installed (ndncc[dask])")
    args = dict(seeds=2, overrides=[f"apps.C.window={PYTHON_AIMD}", 'simulation.duration="5s"'])
    local = ndncc.sweep(E4, executor=2, out=tmp_path / "local", **args)
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None
    ) as cluster:
        dask = ndncc.sweep(E4, executor=cluster.scheduler_address, out=tmp_path / "dask", **args)
    assert dask.status.done == 2
    assert_frame_equal(local.summary().sort(pl.all()), dask.summary().sort(pl.all()), check_exact=True)


def test_the_command_line_validates_a_python_controller(folder, capsys):
    from ndncc.cli import main

    path = scenario(folder, 'window = { type = "python", class = "mycc:Nope" }')
    code = main(["validate", str(path)])
    err = capsys.readouterr().err
    assert code != 0
    assert f"{path}:23" in err and "apps.C.window.class" in err, err


def test_the_worked_example_in_the_docs_is_the_example_module():
    doc = (ROOT / "docs" / "python-controllers.md").read_text()
    shown = doc.split("```python\nclass Aimd(WindowController):", 1)[1].split("```", 1)[0]
    source = (ROOT / "python" / "ndncc" / "examples" / "aimd.py").read_text()
    assert "class Aimd(WindowController):" + shown in source
