"""The Python API in scripts and notebooks: the main guard of a script that sweeps, sweeps whose
runs all fail, short displays, figures, reading results back, the default sweep folder, the
order of grid values, and the progress bar."""

from __future__ import annotations

import importlib
import io
import json
import subprocess
import sys
import textwrap
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import polars as pl
import pytest
from rich.console import Console

import ndncc
from ndncc import display, grid, plots
from ndncc.errors import BadInput, DamagedFile, MissingFile

sweep_module = importlib.import_module("ndncc.sweeping")

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "two-node.toml"
SHORT = ['simulation.duration="1s"']
WINDOW = "apps.consumer.window.window"
WINDOW_WORDS = "window size of consumer"
BANDWIDTH = "links.C-P.bandwidth"


def run_script(tmp_path: Path, body: str, timeout: float = 120) -> subprocess.CompletedProcess:
    """Run ``body`` as a script file, the way a user runs one: ``python script.py``."""
    script = tmp_path / "study.py"
    script.write_text(textwrap.dedent(body).format(example=str(EXAMPLE), out=str(tmp_path / "out")))
    return subprocess.run(
        [sys.executable, str(script)], cwd=tmp_path, capture_output=True, text=True, timeout=timeout
    )


def small_sweep(out: Path, **kwargs) -> ndncc.SweepResult:
    kwargs = {"grid": {WINDOW: [5, 10]}, "seeds": 2, "overrides": SHORT, **kwargs}
    with ThreadPoolExecutor(2) as pool:
        return ndncc.sweep(EXAMPLE, executor=pool, out=out, progress=False, **kwargs)


# ---------------------------------------------------------------- scripts and the main guard


def test_an_unguarded_script_stops_at_once_with_one_clear_error(tmp_path):
    proc = run_script(
        tmp_path,
        """\
        import ndncc
        res = ndncc.sweep({example!r}, grid={{"apps.consumer.window.window": [5, 10]}}, seeds=2,
                          overrides=['simulation.duration="1s"'], out={out!r}, executor=2)
        print("rows", res.table.height)
        """,
    )
    assert proc.returncode == 1 and "rows" not in proc.stdout
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("ndncc.errors.BadInput: ")
    assert "study.py:2: ndncc.sweep is called at the top level of the script" in last
    assert 'if __name__ == "__main__":' in last
    # No worker started: one traceback (the script's own), and nothing written.
    assert proc.stderr.count("Traceback") == 1
    assert not (tmp_path / "out").exists()


def test_an_unguarded_call_of_a_function_that_sweeps_is_refused_too(tmp_path):
    proc = run_script(
        tmp_path,
        """\
        import ndncc

        def study():
            return ndncc.sweep({example!r}, seeds=1, out={out!r})

        study()
        """,
    )
    assert proc.returncode == 1
    assert "study.py:6: ndncc.sweep is called at the top level" in proc.stderr
    assert not (tmp_path / "out").exists()


def test_a_guarded_script_sweeps_in_worker_processes(tmp_path):
    proc = run_script(
        tmp_path,
        """\
        import ndncc

        def study():
            return ndncc.sweep({example!r}, grid={{"apps.consumer.window.window": [20, 5, 10]}},
                               seeds=2, overrides=['simulation.duration="1s"'], out={out!r}, executor=2)

        if __name__ == "__main__":
            res = study()
            print(res.status.done, res.status.failed)
            print(res.table.sort("apps.consumer.window.window")["apps.consumer.window.window"].unique(
                maintain_order=True).to_list())
        """,
    )
    assert proc.returncode == 0, proc.stderr
    done, order = proc.stdout.splitlines()
    assert done == "6 0"
    assert order == "['5', '10', '20']"


def test_code_given_with_python_c_needs_no_guard(tmp_path):
    code = (
        f"import ndncc; res = ndncc.sweep({str(EXAMPLE)!r}, seeds=2, overrides={SHORT!r}, "
        f"out={str(tmp_path / 'out')!r}, executor=2); print(res.status.done)"
    )
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == "2"


def test_a_worker_that_reaches_a_sweep_while_starting_leaves_with_one_line(tmp_path):
    # A guard the driver cannot see through: the sweep runs in every worker's copy of the script.
    proc = run_script(
        tmp_path,
        """\
        import sys
        import warnings
        import ndncc

        # Two seeds of a scenario with nothing random: its warning is not what this test reads.
        warnings.simplefilter("ignore", ndncc.errors.NdnccWarning)
        if __name__ == "__main__" or True:
            try:
                ndncc.sweep({example!r}, seeds=2, overrides=['simulation.duration="1s"'],
                            out={out!r}, executor=2)
            except ndncc.SweepFailed as e:
                print(e, file=sys.stderr)
                sys.exit(3)
        """,
    )
    assert proc.returncode == 3
    assert "Traceback" not in proc.stderr
    lines = proc.stderr.strip().splitlines()
    assert lines[0].startswith("error: a sweep worker reached ndncc.sweep while starting")
    assert lines[-1].startswith("all 2 runs of sweep two-node failed: ExecutionError")


# ---------------------------------------------------------------- failed sweeps


def _fail(task):
    raise ndncc.BuildError(f"no route for seed {task.seed}")


def test_a_sweep_whose_runs_all_failed_raises(monkeypatch, tmp_path):
    monkeypatch.setattr(sweep_module, "_run_files", _fail)
    with pytest.raises(ndncc.SweepFailed) as caught:
        small_sweep(tmp_path / "out")
    assert isinstance(caught.value, ndncc.NdnccError)
    message = str(caught.value)
    assert message.startswith("all 4 runs of sweep two-node failed; the first, ")
    assert f"(records in {tmp_path / 'out' / 'failed'})" in message
    result = caught.value.result
    assert (result.status.failed, result.runs.height) == (4, 0)
    assert len(list((tmp_path / "out" / "failed").glob("*.json"))) == 4


def _fail_alike(task):
    raise ValueError("bad")


def test_runs_that_fail_alike_are_told_in_one_message(monkeypatch, tmp_path):
    monkeypatch.setattr(sweep_module, "_run_files", _fail_alike)
    with pytest.raises(ndncc.SweepFailed, match=r"^all 4 runs of sweep two-node failed: ValueError: bad"):
        small_sweep(tmp_path / "out")


def test_a_sweep_with_finished_runs_does_not_raise_when_the_rest_fail(monkeypatch, tmp_path):
    small_sweep(tmp_path / "out", seeds=1)
    monkeypatch.setattr(sweep_module, "_run_files", _fail)
    res = small_sweep(tmp_path / "out", seeds=2)
    assert (res.status.skipped, res.status.failed) == (2, 2)
    assert res.table.height > 0


# ---------------------------------------------------------------- displays


def test_a_sweep_result_shows_itself_in_one_short_line(tmp_path):
    res = small_sweep(tmp_path / "out")
    text = repr(res)
    assert "\n" not in text and len(text) < 300
    assert text.startswith("<SweepResult two-node: 4 runs (4 finished, 0 failed), 2 grid points × 2 seeds; ")
    assert f"axes: {WINDOW} (2 values)" in text and str(tmp_path / "out") in text
    assert "[simulation]" not in repr(res.plan) and "4 runs" in repr(res.plan)


def test_a_sweep_result_shows_a_short_html_table_in_a_notebook(tmp_path):
    res = small_sweep(tmp_path / "out")
    page = res._repr_html_()
    assert page.startswith("<div><p>SweepResult two-node: 4 runs")
    header = page[page.index("<thead>") : page.index("</thead>")]
    assert header == (
        f"<thead><tr><th>{WINDOW}</th><th>entity</th><th>metric</th><th>n</th><th>mean</th>"
        "<th>ci95</th><th>unit</th></tr>"
    )
    shown = res.summary()
    assert page.count("<tr>") == 1 + display.ROWS
    assert f"… {shown.height - display.ROWS} more rows of {shown.height}" in page


def test_an_html_table_escapes_and_formats_its_cells():
    frame = pl.DataFrame({"a<b": ["x&y", None], "v": [1234.5678, float("nan")]})
    page = display.html_table(frame, "t<1>")
    assert "<p>t&lt;1&gt;</p>" in page and "<th>a&lt;b</th>" in page
    assert "<td>x&amp;y</td><td>1235</td>" in page and "<td>–</td><td>–</td>" in page
    assert "more row" not in page


def test_a_result_shows_itself_briefly(scenario_file):
    result = ndncc.load(scenario_file, SHORT).run()
    assert repr(result) == (
        f"Result(scenario='two-node', seed=1, events={result.stats.events}, "
        f"packet_hops={result.stats.packet_hops})"
    )
    page = result._repr_html_()
    assert page.startswith("<div><p>Result two-node, seed 1: 1 s simulated in ")
    assert f"{result.stats.events:,} events" in page
    # Consumers first, at most ROWS rows.
    assert "<tr><td>consumer</td><td>consumer</td>" in page and page.count("<tr>") == 1 + display.ROWS


# ---------------------------------------------------------------- figures


def _lines(fig) -> list[str]:
    return [line.get_label() for line in fig.axes[0].get_lines()]


def test_result_plot_draws_the_report_figures_and_any_metric(scenario_file):
    result = ndncc.load(scenario_file, SHORT).run()
    spec = {Path(s.file).stem: s for s in plots.FIGURES}
    window = result.plot("window")
    # The legend names the app with its controller.
    assert window.axes[0].get_title() == spec["window"].title and _lines(window) == ["consumer (fixed)"]
    (line,) = window.axes[0].get_lines()
    assert list(line.get_ydata()) == result.series("window")["value"].to_list()
    assert result.plot().axes[0].get_title().startswith(spec["throughput"].title)
    queue = result.plot("queue_bytes")
    assert queue.axes[0].get_ylabel() == "queue bytes [bytes]" and _lines(queue) == ["C->P", "P->C"]
    assert _lines(result.plot("queue_bytes", entity="P->C")) == ["P->C"]


def test_result_plot_names_what_it_can_draw_when_asked_for_something_else(scenario_file):
    result = ndncc.load(scenario_file, SHORT).run()
    with pytest.raises(BadInput, match=r"plot 'bogus': expected a figure \(window, rate, .*\) or a metric"):
        result.plot("bogus")
    with pytest.raises(BadInput, match=r"plot 'window': no data for nobody"):
        result.plot("window", entity="nobody")


def test_sweep_plot_draws_a_metric_against_an_axis(tmp_path):
    res = small_sweep(tmp_path / "out")
    fig = res.plot("data_received")
    ax = fig.axes[0]
    assert ax.get_xlabel() == WINDOW_WORDS  # the key in words (sweepplot.key_words)
    assert [t.get_text() for t in ax.get_xticklabels()] == ["5", "10"]
    with pytest.raises(BadInput, match="metric 'nope': no finished run has it"):
        res.plot("nope")
    with pytest.raises(BadInput, match=r"x 'nope': not an axis of this sweep \(its axes: "):
        res.plot("data_received", x="nope")


# ---------------------------------------------------------------- reading results back


def test_open_run_reads_a_saved_run_back(scenario_file, tmp_path):
    result = ndncc.load(scenario_file, SHORT).run()
    result.save(tmp_path / "run", figures=False)
    saved = ndncc.open_run(tmp_path / "run")
    assert isinstance(saved, ndncc.SavedRun)
    assert (saved.name, saved.seed, saved.stats.events) == ("two-node", 1, result.stats.events)
    assert saved.series().equals(result.series()) and saved.faces("drops").equals(result.faces("drops"))
    received = pl.col("metric") == "data_received"
    assert saved.summary.filter(received)["value"].equals(result.summary.filter(received)["value"])
    assert _lines(saved.plot("window")) == ["consumer (fixed)"]
    assert saved._repr_html_().startswith("<div><p>SavedRun two-node, seed 1: ")
    with pytest.raises(MissingFile, match="no such folder"):
        ndncc.open_run(tmp_path / "nothing")


def test_open_sweep_reads_a_sweep_folder_back_with_the_same_tables(monkeypatch, tmp_path):
    res = small_sweep(tmp_path / "out")
    monkeypatch.setattr(sweep_module, "_run_files", _fail)
    small_sweep(tmp_path / "out", seeds=3)  # two more runs, which fail
    saved = ndncc.open_sweep(tmp_path / "out")
    assert isinstance(saved, ndncc.SavedSweep)
    assert saved.table.filter(pl.col("n") > 0).equals(res.table)
    assert saved.runs.equals(res.runs) and saved.runs.schema == res.runs.schema
    assert saved.summary().equals(res.summary()) and saved.axes == [WINDOW]
    assert (saved.status.total, saved.status.done, saved.status.failed) == (6, 4, 2)
    assert sorted(f["seed"] for f in saved.failures) == [3, 3]
    assert saved.failures[0]["error"] == "no route for seed 3"
    assert repr(saved).startswith("<SavedSweep two-node: 6 runs (4 finished, 2 failed), 2 grid points × 3 ")
    assert saved.plot("data_received").axes[0].get_xlabel() == WINDOW_WORDS


def test_open_sweep_refuses_what_is_not_a_sweep_folder(tmp_path):
    with pytest.raises(MissingFile, match="no such folder"):
        ndncc.open_sweep(tmp_path / "nothing")
    with pytest.raises(MissingFile, match="sweep.json: missing; is .* a sweep folder"):
        ndncc.open_sweep(tmp_path)


def test_a_sweep_plan_that_lists_a_value_twice_is_damaged(tmp_path):
    small_sweep(tmp_path / "out")
    plan = json.loads((tmp_path / "out" / "sweep.json").read_text())
    plan["axes"][0]["labels"] = ["5", "5"]
    (tmp_path / "out" / "sweep.json").write_text(json.dumps(plan))
    with pytest.raises(DamagedFile, match=r"sweep.json: axes\[0\]: a value is listed twice"):
        ndncc.open_sweep(tmp_path / "out")


# ---------------------------------------------------------------- the default sweep folder


def _default_sweep(**kwargs) -> ndncc.SweepResult:
    with ThreadPoolExecutor(2) as pool:
        return ndncc.sweep(EXAMPLE, overrides=SHORT, executor=pool, progress=False, **kwargs)


def test_two_different_sweeps_do_not_share_the_default_folder(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    first = _default_sweep(grid={WINDOW: [5, 10]}, seeds=2)
    assert first.out == Path("runs/two-node-sweep")
    plan = (first.out / "sweep.json").read_bytes()
    with pytest.raises(BadInput) as caught:
        _default_sweep(grid={BANDWIDTH: ["5Mbps", "10Mbps"]}, seeds=2)
    assert str(caught.value) == (
        f"runs/two-node-sweep: holds another sweep of two-node (grid {WINDOW}=5,10); give this one a "
        "folder of its own with out= (--out DIR), or remove that one"
    )
    assert (first.out / "sweep.json").read_bytes() == plan
    with pytest.raises(BadInput, match=r"\(seeds 1, 2\)"):
        _default_sweep(grid={WINDOW: [5, 10]}, seeds=[1, 3])
    # An explicit folder is the caller's choice.
    other = _default_sweep(grid={BANDWIDTH: ["5Mbps", "10Mbps"]}, seeds=2, out="runs/bandwidth")
    assert other.status.done == 4


def test_the_same_sweep_or_one_that_extends_it_reuses_the_default_folder(monkeypatch, tmp_path):
    monkeypatch.chdir(tmp_path)
    _default_sweep(grid={WINDOW: [5, 10]}, seeds=2)
    again = _default_sweep(grid={WINDOW: [5, 10]}, seeds=2)
    assert (again.status.skipped, again.status.done) == (4, 0)
    more = _default_sweep(grid={WINDOW: [5, 10, 20]}, seeds=3)
    assert (more.status.skipped, more.status.done) == (4, 5)


# ---------------------------------------------------------------- typed grid values


def test_values_are_ordered_by_magnitude_within_one_kind_of_quantity():
    rates = ["100Mbps", "10Mbps", "1Gbps", "500kbps"]
    assert grid.value_order(rates) == ["500kbps", "10Mbps", "100Mbps", "1Gbps"]
    assert grid.value_order(["2s", "500ms", "1min", "10us"]) == ["10us", "500ms", "2s", "1min"]
    assert grid.value_order(["1MB", "2KiB", "10"]) == ["1MB", "2KiB", "10"]  # a bare number is no size
    assert grid.value_order(["2%", "0", "0.5%", "0.01"]) == ["0", "0.5%", "0.01", "2%"]
    assert grid.value_order(["20", "5", "1e-3", "10.5"]) == ["1e-3", "5", "10.5", "20"]
    # Not one kind, or not quantities at all: as given.
    assert grid.value_order(["10ms", "10Mbps"]) == ["10ms", "10Mbps"]
    assert grid.value_order(["reno", "aimd", "cubic"]) == ["reno", "aimd", "cubic"]
    assert grid.magnitude("10 Mbit/s") == ("rate", 1e7) and grid.magnitude("3 apples") is None


def test_grid_values_from_python_sort_by_value_in_the_tables(tmp_path):
    res = small_sweep(tmp_path / "out", grid={BANDWIDTH: ["100Mbps", "10Mbps", "1Gbps"], WINDOW: [20, 5]})
    for frame in (res.runs, res.table):
        assert frame.schema[BANDWIDTH] == pl.Enum(["10Mbps", "100Mbps", "1Gbps"])
        assert frame.schema[WINDOW] == pl.Enum(["5", "20"])
    ordered = res.table.sort(BANDWIDTH, WINDOW).select(BANDWIDTH, WINDOW).unique(maintain_order=True)
    assert ordered.rows() == [
        ("10Mbps", "5"), ("10Mbps", "20"), ("100Mbps", "5"), ("100Mbps", "20"),
        ("1Gbps", "5"), ("1Gbps", "20"),
    ]  # fmt: skip
    # The plan's order stays the table's order, and the saved aggregate keeps the values as text.
    assert res.table[BANDWIDTH].unique(maintain_order=True).to_list() == ["100Mbps", "10Mbps", "1Gbps"]
    saved = pl.read_parquet(tmp_path / "out" / "aggregate.parquet")
    assert saved.schema[BANDWIDTH] == pl.String and saved.equals(
        res.table.with_columns(pl.col(BANDWIDTH, WINDOW).cast(pl.String))
    )
    assert res.table.filter(pl.col(BANDWIDTH) == "10Mbps").height == res.table.height // 3


# ---------------------------------------------------------------- progress


def test_a_sweep_draws_a_progress_bar_by_default(monkeypatch, tmp_path):
    screen = io.StringIO()
    terminal = Console(file=screen, force_terminal=True, width=160)
    monkeypatch.setattr(display, "progress_console", lambda: terminal)
    with ThreadPoolExecutor(2) as pool:
        ndncc.sweep(EXAMPLE, grid={WINDOW: [5, 10]}, seeds=2, overrides=SHORT, executor=pool, out=tmp_path)
    assert "4/4 runs" in screen.getvalue() and "0 failed" in screen.getvalue()
    screen.truncate(0)
    small_sweep(tmp_path / "b")  # progress=False
    assert screen.getvalue() == ""


def test_without_a_terminal_or_notebook_there_is_no_bar(capfd):
    assert display.progress_console() is None  # pytest captures standard error
    with display.sweep_bar(None) as bar:
        assert bar is None


def test_progress_must_be_a_flag_or_a_function(tmp_path):
    with pytest.raises(BadInput, match=r"progress 'yes': expected True \(a progress bar\), False, or a"):
        ndncc.sweep(EXAMPLE, seeds=1, out=tmp_path, progress="yes")
    assert not any(tmp_path.iterdir())
