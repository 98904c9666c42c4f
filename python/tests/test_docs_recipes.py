"""Recipes of the docs, run as written: a sweep on a Dask LocalCluster (docs/sweeps.md), and the
exit codes a Python controller's errors give the ndncc command (docs/python-controllers.md)."""

from __future__ import annotations

import textwrap
from pathlib import Path

import polars as pl
import pytest

from ndncc import cli

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "two-node.toml"


def code_after(page: str, heading: str) -> str:
    text = (ROOT / "docs" / page).read_text()
    return text.split(heading, 1)[1].split("```python\n", 1)[1].split("```", 1)[0]


def test_the_local_cluster_recipe_runs_a_sweep_on_dask(tmp_path, monkeypatch, capsys):
    pytest.importorskip("distributed")
    code = code_after("sweeps.md", "### Dask on one machine: a `LocalCluster`")
    assert "LocalCluster(" in code and "executor=client" in code
    monkeypatch.chdir(ROOT)
    code = code.replace('"runs/window-dask"', repr(str(tmp_path / "window-dask")))
    scope = {"__name__": "__main__"}
    exec(compile(code, "docs/sweeps.md", "exec"), scope)
    res = scope["res"]
    assert res.status.done == 6 and res.status.failed == 0
    assert res.status.backend.startswith("Dask at ")
    table = res.summary(["throughput_kbps"])
    assert table.height == 3 and table["n"].to_list() == [2, 2, 2]
    assert isinstance(table, pl.DataFrame)
    assert "dashboard: " in capsys.readouterr().out


BOOM = textwrap.dedent(
    """\
    from ndncc.controllers import WindowController


    class Boom(WindowController):
        def on_data(self, ev):
            self.w = 1 / 0

        def on_timeout(self, ev):
            pass

        def window(self):
            return 4.0


    class NotANumber(Boom):
        def on_data(self, ev):
            pass

        def window(self):
            return float("nan")


    class Picky(Boom):
        def __init__(self, beta=0.5):
            if beta > 1:
                raise ValueError("beta must be at most 1")
    """
)


@pytest.fixture
def boom(tmp_path, monkeypatch) -> Path:
    (tmp_path / "boom.py").write_text(BOOM)
    scenario = tmp_path / "net.toml"
    scenario.write_text(EXAMPLE.read_text())
    monkeypatch.chdir(tmp_path)
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.delenv("NDNCC_DEBUG", raising=False)
    return scenario


def documented_codes() -> dict[int, str]:
    page = (ROOT / "docs" / "python-controllers.md").read_text()
    table = page.split("### Exit codes of the `ndncc` command", 1)[1].split("\n\n", 2)[1]
    return {int(row.split("|")[1]): row for row in table.splitlines()[2:]}


@pytest.mark.parametrize(
    "command, controller, code, said",
    [
        (
            "run",
            '{type="python", class="boom:Nope"}',
            2,
            "error: net.toml: --set apps.consumer.window.class: module 'boom'",
        ),
        (
            "run",
            '{type="python", class="boom:Picky", params={beta=2}}',
            2,
            "raised ValueError: beta must be at most 1",
        ),
        (
            "run",
            '{type="python", class="boom:Boom"}',
            3,
            "the Python controller boom:Boom raised in on_data() at ",
        ),
        (
            "run",
            '{type="python", class="boom:NotANumber"}',
            3,
            "the Python controller boom:NotANumber raised in",
        ),
        (
            "sweep",
            '{type="python", class="boom:Boom"}',
            1,
            "failed: run seed 1: app consumer: the Python controller",
        ),
    ],
    ids=["no-class", "constructor", "hook", "bad-return", "sweep"],
)
def test_a_controller_s_errors_give_the_documented_exit_codes(boom, capsys, command, controller, code, said):
    args = [command, str(boom.name), "--set", f"apps.consumer.window={controller}"]
    args += ["--set", 'simulation.duration="1s"', "--out", "out"]
    if command == "sweep":
        args += ["--seeds", "1", "--workers", "1"]
    assert cli.main(args) == code
    err = capsys.readouterr().err
    assert said in err, err
    documented = documented_codes()
    assert code in documented and (command == "sweep") == ("`ndncc sweep`" in documented[code])
    if code != 1:
        # One line, and no traceback without NDNCC_DEBUG.
        assert [line.startswith("error: ") for line in err.strip().splitlines()] == [True], err
