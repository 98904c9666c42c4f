"""Parameter sweeps: a grid of overrides × seeds, run in parallel, resumable, aggregated.

>>> import ndncc
>>> res = ndncc.sweep("scenarios/e3.toml", grid={"links.R1-R2.loss.p": ["0%", "1%", "2%"]}, seeds=5)
>>> res.table          # mean and 95% CI per grid point, entity and metric
>>> res.plot("throughput_kbps")

Every run is planned (and its scenario validated) before any starts, so bad input stops the
sweep at once. A run is keyed by the hash of its resolved scenario and seed; a run whose key is
already on disk (see :mod:`ndncc.sweepstore`) is skipped, so re-running a killed sweep finishes
it. Workers get the resolved scenario as TOML text, so they need no access to the scenario file;
they return the run's files as bytes and the driver writes them.

:func:`open_sweep` reads a sweep folder back with the same tables.
"""

from __future__ import annotations

import contextlib
import hashlib
import itertools
import json
import math
import os
import signal
import sys
import threading
import time
import traceback
from dataclasses import dataclass, field, replace
from functools import cached_property
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Iterator, Mapping, Optional, Sequence, Union

import polars as pl

from . import _core, arguments, display, executors, output, randomness, stats, sweepfile, sweepstore
from .errors import BAD_INPUT, BadInput, MissingFile, RunTimeout, describe
from .grid import Axis, Point, check, expand, make_axis, merge, split_keys, value_order
from .metrics import check_summary_metrics
from .result import SUMMARY_SCHEMA, Result, Selector, select
from .scenario import Scenario, load, load_str
from .sweepstore import PART, Store

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: Seeds when neither the caller nor the sweep file says.
DEFAULT_SEEDS = 10

#: Most runs (grid points × seeds) one sweep may plan: each is resolved and kept in memory first.
MAX_RUNS = 100_000

GridSpec = Union[Mapping[Any, Sequence[Any]], Sequence[Axis], None]


def run_key(resolved: Mapping[str, Any], seed: int) -> str:
    """The first 16 hex digits of SHA-256 over the canonical JSON of the resolved scenario
    (sorted keys, no spaces) and the seed."""
    canonical = json.dumps(resolved, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(f"{canonical}\nseed={seed}".encode("utf-8")).hexdigest()[:16]


# ---------------------------------------------------------------- one run, on a worker


@dataclass(frozen=True)
class RunTask:
    """Everything a worker needs for one run; plain data, so it pickles."""

    key: str
    seed: int
    point: tuple[tuple[str, str], ...]
    overrides: tuple[str, ...]
    toml: str = field(repr=False)
    source: str
    keep_series: bool = False
    timeout: Optional[float] = None


@dataclass(frozen=True)
class RunOutput:
    """A finished run's files (name → bytes), or why it failed."""

    key: str
    files: Optional[dict[str, bytes]] = None
    error: Optional[dict] = None


def execute(task: RunTask) -> RunOutput:
    """Run one task. Never raises for a failed run: the error comes back as data."""
    try:
        return RunOutput(task.key, files=_run_files(task))
    except (KeyboardInterrupt, SystemExit):
        raise
    except BaseException as e:  # noqa: B036 - a Rust panic arrives as a BaseException
        return RunOutput(task.key, error=failure(e, traceback.format_exc()))


def failure(e: BaseException, trace: Optional[str] = None) -> dict:
    return {"type": type(e).__name__, "error": describe(e), "traceback": trace}


#: Wall time past a run's timeout after which the alarm stops it wherever it is [s].
ALARM_GRACE_S = 0.5


@contextlib.contextmanager
def _alarm(timeout: Optional[float]) -> Iterator[None]:
    """Stop a run that has not returned ``ALARM_GRACE_S`` after its timeout, wherever it is. The
    engine checks the timeout itself between slices of its work, but a Python controller may
    block (in ``time.sleep``, say) without returning to the engine: a SIGALRM then raises
    RunTimeout in the worker's main thread, interrupting the blocking call. Only in a process's
    main thread (the local pool's workers; Dask runs tasks in threads)."""
    usable = (
        timeout is not None
        and math.isfinite(timeout)
        and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
    )
    if not usable:
        yield
        return

    def fire(_signum, _frame):
        raise RunTimeout(f"stopped after {timeout:g} s of wall time (the run timeout)")

    previous = signal.signal(signal.SIGALRM, fire)
    signal.setitimer(signal.ITIMER_REAL, timeout + ALARM_GRACE_S)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


def _run_files(task: RunTask) -> dict[str, bytes]:
    sc = load_str(task.toml, file=task.source)
    if run_key(sc.to_dict(), task.seed) != task.key:
        raise BadInput(
            "the worker resolves this run's scenario differently from the driver "
            f"(ndncc {_core.__version__} here; is the cluster on another version?)"
        )
    progress = None
    if task.timeout is not None:
        deadline = time.monotonic() + task.timeout
        progress = lambda _t: time.monotonic() < deadline  # noqa: E731
    try:
        # The engine's own output: the time series become DataFrames only when they are kept.
        with _alarm(task.timeout):
            raw = sc._core.run(seed=task.seed, progress=progress)
    except _core.Interrupted:
        raise RunTimeout(f"stopped after {task.timeout:g} s of wall time (the run timeout)") from None
    except _core.ControllerError as e:
        # The alarm went off inside the user's controller: the run timed out.
        if isinstance(e.__cause__, RunTimeout):
            raise e.__cause__ from None
        raise
    summary = pl.DataFrame(raw["summary"], schema=SUMMARY_SCHEMA)
    tables = {PART: part_frame(summary, task)}
    if task.keep_series:
        result = Result(raw, sc)
        tables[output.SERIES] = result.series()
        tables[output.FACES] = result.faces()
    files = {name: output.parquet_bytes(frame) for name, frame in tables.items()}
    manifest = {
        "ndncc_version": _core.__version__,
        "key": task.key,
        "name": sc.name,
        "source": task.source,
        "seed": task.seed,
        "point": dict(task.point),
        "overrides": list(task.overrides),
        **raw["stats"],
        # Lets a resumed sweep tell a damaged file from a finished one.
        "rows": {name: frame.height for name, frame in tables.items()},
        "scenario": sc.to_dict(),
    }
    files[output.MANIFEST] = (json.dumps(manifest, indent=2, ensure_ascii=False) + "\n").encode("utf-8")
    return files


def part_frame(summary: pl.DataFrame, task: RunTask) -> pl.DataFrame:
    """A run's summary as a long table, with its grid values and seed as columns."""
    rows = output.order_summary(summary).with_columns(pl.col("value").fill_nan(None))
    axes = [pl.lit(lab, dtype=pl.String).alias(name) for name, lab in task.point]
    return rows.select(
        *axes, pl.lit(task.seed, dtype=pl.Int64).alias("seed"), "entity", "kind", "metric", "value", "unit"
    )


# ---------------------------------------------------------------- planning


@dataclass
class Plan:
    """A sweep before it runs: every run, validated and keyed."""

    name: str
    source: str
    axes: list[Axis]
    seeds: list[int]
    overrides: list[str]
    points: list[Point]
    tasks: list[RunTask]
    metrics: Optional[list[str]] = None
    x: Optional[str] = None
    guides: dict[str, float] = field(default_factory=dict)

    def describe(self) -> dict:
        """What ``sweep.json`` records: enough to aggregate and plot without the scenario."""
        return {
            "ndncc_version": _core.__version__,
            "name": self.name,
            "source": self.source,
            "overrides": self.overrides,
            "seeds": self.seeds,
            "axes": self.describe_axes(),
            "metrics": self.metrics,
            "plot": {"x": self.x, "guides": self.guides},
            "runs": [{"key": t.key, "seed": t.seed, "point": dict(t.point)} for t in self.tasks],
        }

    def __repr__(self) -> str:  # the tasks hold every run's scenario: far too long to show
        return (
            f"Plan({self.name!r}, {len(self.tasks)} runs: {len(self.points)} grid points × "
            f"{len(self.seeds)} seeds, axes: {axes_text(self.describe_axes())})"
        )

    def describe_axes(self) -> list[dict]:
        return [{"name": a.name, "keys": list(a.keys), "labels": list(a.labels)} for a in self.axes]


def _loader(scenario: Union[str, Path, Scenario]) -> tuple[Callable[[list[str]], Scenario], str]:
    if isinstance(scenario, Scenario):
        return (lambda ov: scenario.with_overrides(*ov)), scenario.name
    path = str(scenario)
    return (lambda ov: load(path, ov)), path


def make_plan(
    scenario: Union[str, Path, Scenario],
    axes: Sequence[Axis],
    seeds: Sequence[int],
    overrides: Sequence[str] = (),
    keep_series: bool = False,
    timeout: Optional[float] = None,
) -> Plan:
    """Resolve and validate every run. Errors name the grid key (and its sweep file line)."""
    check(axes)
    runs = math.prod(len(a.values) for a in axes) * len(seeds)
    if runs > MAX_RUNS:
        raise BadInput(f"the grid and seeds make {runs:,} runs, more than the {MAX_RUNS:,} a sweep may have")
    loader, source = _loader(scenario)
    base = loader(list(overrides))
    points = expand(axes)
    owner: dict[str, str] = {}
    planned: dict[tuple[int, int], RunTask] = {}

    def plan(p: Point, s: int) -> None:
        seed = seeds[s]
        try:
            sc = loader([*overrides, *p.overrides, f"simulation.seed={seed}"])
        except _core.ScenarioError as e:
            raise _blame(e, p, axes, loader, overrides) from None
        key = run_key(sc.to_dict(), seed)
        if key in owner:
            raise BadInput(f"grid points {owner[key]} and {_point_text(p)} give the same scenario")
        owner[key] = _point_text(p)
        ov = (*overrides, *p.overrides)
        planned[p.index, s] = RunTask(key, seed, p.labels, ov, sc.to_toml(), source, keep_series, timeout)

    # Every point under the first seed before any under the others: a bad value is refused
    # after one run per point is planned, not all of them.
    for s in range(min(1, len(seeds))):
        for p in points:
            plan(p, s)
    for p in points:
        for s in range(1, len(seeds)):
            plan(p, s)
    tasks = [planned[p.index, s] for p in points for s in range(len(seeds))]
    randomness.warn_if_seeds_change_nothing(base.name, tasks)
    return Plan(base.name, source, list(axes), list(seeds), list(overrides), points, tasks)


def _point_text(p: Point) -> str:
    return ", ".join(f"{k}={v}" for k, v in p.labels) or "(no grid)"


def _blame(e: _core.ScenarioError, p: Point, axes: Sequence[Axis], loader: Callable, overrides) -> BadInput:
    """Name the axis (and its sweep file line) whose value is wrong on its own, else the point."""
    for axis, i in zip(axes, p.choice):
        try:
            loader([*overrides, *axis.overrides(i)])
        except _core.ScenarioError as alone:
            bad = alone.key or ""
            related = [k for k in axis.keys if bad and (k.startswith(bad) or bad.startswith(k))]
            return BadInput(f"{axis.origin}: {(related or axis.keys)[0]}: {alone.message}")
    return BadInput(f"grid point {_point_text(p)}: {e.key or 'scenario'}: {e.message}")


# ---------------------------------------------------------------- the sweep


@dataclass
class Status:
    """Where a sweep stands; handed to the ``progress`` callback after every run."""

    total: int
    skipped: int = 0
    done: int = 0
    failed: int = 0
    running: int = 0
    backend: str = ""

    @property
    def to_run(self) -> int:
        return self.total - self.skipped


class SweepFailed(_core.NdnccError):
    """Every run of a sweep failed (none is finished, from this call or an earlier one), so it
    has no result to show. ``result`` is the :class:`SweepResult` all the same: its ``failures``
    say why each run failed (as do the records in ``out/failed/``)."""

    def __init__(self, message: str, result: "SweepResult"):
        super().__init__(message)
        self.result = result


def axes_text(axes: Sequence[dict]) -> str:
    """``loss (3 values), window (2 values)``: a sweep's axes in a few words."""
    if not axes:
        return "no grid"
    return ", ".join(f"{a['name']} ({_count(len(a['labels']), 'value')})" for a in axes)


def _count(n: int, noun: str) -> str:
    """``1 seed``, ``2 seeds``."""
    return f"{n:,} {noun}{'' if n == 1 else 's'}"


class SweepTables:
    """What the results of a sweep offer, whether it just ran (:class:`SweepResult`) or is read
    back from its folder (:class:`SavedSweep`): its tables, a summary, figures, and displays
    short enough for a notebook."""

    out: Path
    status: Status
    #: One record per failed run: key, seed, point, error type and message, overrides.
    failures: list[dict]
    #: Summary rows of every finished run: axis columns, seed, key, entity, kind, metric, value, unit.
    runs: pl.DataFrame
    #: Per grid point, entity and metric: n, mean, std and ci95 (the 95% CI half-width).
    table: pl.DataFrame

    #: The sweep as ``sweep.json`` records it: name, source, overrides, seeds, axes, runs.
    described: dict

    @property
    def name(self) -> str:
        return self.described["name"]

    @property
    def axes(self) -> list[str]:
        """The names of the grid's axes: the columns that hold each run's grid values."""
        return [a["name"] for a in self.described["axes"]]

    def summary(self, metrics: Optional[Sequence[str]] = None) -> pl.DataFrame:
        """The rows of :attr:`table` for ``metrics`` (default: the sweep's, else every consumer metric)."""
        return select_metrics(self.table, metrics or self.described.get("metrics"))

    def plot(
        self,
        metric: str,
        x: Optional[str] = None,
        entity: Selector = None,
        labels: Optional[Mapping[str, str]] = None,
        style: Optional[str] = None,
    ) -> "Figure":
        """A matplotlib ``Figure`` of ``metric`` against the grid axis ``x`` (default: the sweep
        file's ``[plot] x``, else the first numeric axis): the mean over seeds with its 95%
        confidence band, one line per entity and setting of the other axes. ``labels`` maps axis
        names, grid values, entities and metrics to words of your own; ``style`` is ``"screen"``
        or ``"paper"`` (:mod:`ndncc.figures`)."""
        from . import figures, plots, sweepplot  # it reads sweeps with this module

        described = self.described
        settings = described.get("plot") or {}
        if x is not None and x not in self.axes:
            raise BadInput(f"x {x!r}: not an axis of this sweep (its axes: {', '.join(self.axes) or 'none'})")
        chosen = sweepplot.choose_x(described["axes"], x or settings.get("x"))
        rows = select(self.table.filter(pl.col("n") > 0), metric, entity)
        if rows.is_empty():
            known = ", ".join(self.table["metric"].unique(maintain_order=True).to_list()) or "none"
            raise BadInput(f"metric {metric!r}: no finished run has it (metrics: {known})")
        others = [a for a in self.axes if chosen is None or a != chosen.name]
        guide = (settings.get("guides") or {}).get(metric)
        with figures.style(style):
            return sweepplot.metric_figure(
                rows,
                chosen,
                others,
                len(described["seeds"]),
                guide,
                described["axes"],
                plots.check_labels(labels),
            )

    def _headline(self) -> str:
        s = self.status
        described = self.described
        seeds = len(described["seeds"])
        points = len(described["runs"]) // max(1, seeds)
        return (
            f"{self.name}: {_count(s.total, 'run')} ({s.done + s.skipped} finished, {s.failed} failed), "
            f"{_count(points, 'grid point')} × {_count(seeds, 'seed')}; "
            f"axes: {axes_text(described['axes'])}; table {self.table.height} rows -> {self.out}"
        )

    def __repr__(self) -> str:
        return f"<{type(self).__name__} {self._headline()}>"

    def _repr_html_(self) -> str:
        shown = display.mean_table(self.summary(), self.axes)
        return display.html_table(shown, f"{type(self).__name__} {self._headline()}")


@dataclass(repr=False)
class SweepResult(SweepTables):
    """What :func:`sweep` returns: the tables of the sweep's folder, and what this call did."""

    out: Path
    plan: Plan
    status: Status
    failures: list[dict]
    runs: pl.DataFrame
    table: pl.DataFrame
    #: Why each finished run found damaged on disk was run again.
    repaired: list[str] = field(default_factory=list)

    @cached_property
    def described(self) -> dict:
        return self.plan.describe()


class SavedSweep(SweepTables):
    """A sweep folder read back (see :func:`open_sweep`): the tables of its finished runs and the
    records of its failed ones."""

    def __init__(self, folder: Union[str, Path]):
        store = Store(output.folder_path(folder, "folder"))
        if not store.root.is_dir():
            raise MissingFile(f"{store.root}: {'not a folder' if store.root.exists() else 'no such folder'}")
        self.out = store.root
        self._described = store.read_plan()
        self.runs = read_runs(store, self._described)
        self.table = aggregate(self.runs, self.axes)
        finished = set(self.runs["key"].unique().to_list())
        planned = self._described["runs"]
        records = (store.read_failure(r["key"]) for r in planned if r["key"] not in finished)
        self.failures = [r for r in records if r is not None]
        self.status = Status(total=len(planned), done=len(finished), failed=len(self.failures))

    @property
    def described(self) -> dict:
        return self._described


def open_sweep(folder: Union[str, Path]) -> SavedSweep:
    """Read a sweep folder (written by :func:`sweep` or ``ndncc sweep``) back, without running anything."""
    return SavedSweep(folder)


def select_metrics(table: pl.DataFrame, metrics: Optional[Sequence[str]]) -> pl.DataFrame:
    if metrics:
        return table.filter(pl.col("metric").is_in(list(metrics)))
    return table.filter(pl.col("kind") == "consumer")


def _axes(spec: GridSpec) -> list[Axis]:
    if spec is None:
        return []
    if isinstance(spec, Mapping):
        axes = []
        for key, values in spec.items():
            keys = tuple(key) if isinstance(key, (tuple, list)) else split_keys(str(key))
            axes.append(make_axis(keys, values, origin="grid"))
        return axes
    return list(spec)


Progress = Union[bool, Callable[[Status], None], None]


def sweep(
    scenario: Union[str, Path, Scenario],
    grid: GridSpec = None,
    seeds: Union[int, Iterable[int], None] = None,
    executor: executors.Target = None,
    out: Union[str, Path, None] = None,
    overrides: Iterable[str] = (),
    metrics: Optional[Sequence[str]] = None,
    keep_series: bool = False,
    timeout: Optional[float] = None,
    progress: Progress = True,
) -> SweepResult:
    """Run ``scenario`` at every grid point for every seed, skipping runs already in ``out``.

    ``scenario`` is a scenario file, a sweep file (its grid, seeds, overrides and metrics are the
    defaults; ``grid`` adds axes or replaces those with the same keys) or a :class:`Scenario`.
    ``grid`` maps a dotted key (or several, comma-joined or as a tuple, that change together) to
    its values. ``seeds`` is a count (seeds 1..N) or a list. ``executor``: ``None`` for a local
    process pool on every core, a number of local workers, a Dask scheduler address or client, or
    a ``concurrent.futures.Executor``. ``out`` defaults to ``runs/<name>-sweep``, which a sweep
    shares only with a sweep whose runs it includes. ``timeout`` stops (and fails) a run after
    that many wall seconds. ``progress``: ``True`` draws a progress bar (on a terminal or in a
    notebook), ``False`` none, or a function called with the :class:`Status` after every run.

    Failed runs are recorded in ``out/failed/`` and counted in the result. If every run of the
    sweep failed, leaving nothing to aggregate, :class:`SweepFailed` is raised.
    """
    if executors.starting_worker():
        _leave_worker()
    timeout = check_timeout(timeout)
    if grid is not None and not isinstance(grid, (Mapping, list, tuple)):
        raise BadInput(f"grid: expected a mapping of key to values, got {type(grid).__name__}")
    metrics = arguments.optional_texts(metrics, "metrics")
    keep_series = arguments.flag(keep_series, "keep_series")
    overrides = arguments.texts(overrides, "overrides")
    executors.check_executor(executor)
    progress = check_progress(progress)
    if executors.is_local_pool(executor):
        _refuse_unguarded_script()
    plan = _plan_from(scenario, _axes(grid), seeds, list(overrides), metrics, keep_series, timeout)
    # A misspelt metric would otherwise be found only after every run, as an empty table.
    check_summary_metrics(plan.metrics)
    default_folder = out is None
    store = Store(output.default_folder(plan.name, "-sweep") if default_folder else output.folder_path(out))
    store.check_folder()
    status = Status(total=len(plan.tasks))
    failures: list[dict] = []
    described = plan.describe()
    with store.locked():
        if default_folder:
            _check_shared_folder(store, described)
        store.tidy()
        store.write_plan(described)
        todo, repaired = _to_run(store, plan.tasks, keep_series)
        status.skipped = status.total - len(todo)
        with display.sweep_bar(display.progress_console() if progress is True else None) as bar:
            report = progress if callable(progress) else bar
            if todo:
                _execute(store, todo, executor, status, failures, report)
            elif report:
                report(status)
        runs = read_runs(store, described)
        table = aggregate(runs, [a.name for a in plan.axes])
        store.write_aggregate(labels_as_text(table, [a.name for a in plan.axes]))
    result = SweepResult(store.root, plan, status, failures, runs, table, repaired)
    if status.failed and status.failed == status.total:
        raise SweepFailed(all_failed_message(result), result)
    return result


def check_progress(progress: Any) -> Progress:
    if progress is None or isinstance(progress, bool) or callable(progress):
        return progress
    raise BadInput(f"progress {progress!r}: expected True (a progress bar), False, or a function of a Status")


#: Why a script must keep its sweep under the main guard; both checks below say it.
_GUARD = (
    'outside `if __name__ == "__main__":`; each worker process runs the script again as it starts, '
    "so put the sweep under that guard (or pass executor=concurrent.futures.ThreadPoolExecutor())"
)


def _refuse_unguarded_script() -> None:
    where = executors.unguarded_call()
    if where is not None:
        raise BadInput(f"{where}: ndncc.sweep is called at the top level of the script, {_GUARD}")


def _leave_worker() -> None:
    """End a worker process that reached a sweep while running the driver's script as it
    starts: a sweep there would start workers of its own, again and again. One line says why;
    the driver sees the worker die and fails its runs."""
    sys.stderr.write(f"error: a sweep worker reached ndncc.sweep while starting: it is called {_GUARD}\n")
    sys.stderr.flush()
    os._exit(BAD_INPUT)


def all_failed_message(result: SweepResult) -> str:
    """``all 4 runs failed: <error>`` when they failed alike, else the first failure and how many others."""
    errors = [f"{f['type']}: {f['error']}" for f in result.failures]
    first = result.failures[0]
    point = ", ".join(f"{k}={v}" for k, v in first["point"].items())
    where = f"{point + ' ' if point else ''}seed {first['seed']}"
    records = f"(records in {result.out / 'failed'})"
    runs = "the run" if len(errors) == 1 else f"all {len(errors)} runs"
    if len(set(errors)) == 1:
        return f"{runs} of sweep {result.name} failed: {errors[0]} {records}"
    return f"{runs} of sweep {result.name} failed; the first, {where}: {errors[0]} {records}"


def _check_shared_folder(store: Store, described: dict) -> None:
    """Refuse the default folder when it holds a sweep with runs this one lacks: sharing it
    would replace that sweep's plan, and its table would change under its user. A sweep that
    includes every run of the one there (the same sweep, or one with more seeds or values)
    takes it over."""
    if not sweepstore.is_sweep_folder(store.root):
        return
    try:
        there = store.read_plan()
    except BadInput:  # a damaged plan describes nothing worth keeping: it is written anew
        return
    runs_here = {r["key"] for r in described["runs"]}
    if all(r["key"] in runs_here for r in there["runs"]):
        return
    raise BadInput(
        f"{store.root}: holds another sweep of {there['name']} ({_difference(there, described)}); "
        "give this one a folder of its own with out= (--out DIR), or remove that one"
    )


def _difference(there: dict, here: dict) -> str:
    """How the sweep in a folder differs from this one, in a few words."""
    if there["source"] != here["source"]:
        return f"from {there['source']}"
    axes_there = {a["name"]: a["labels"] for a in there["axes"]}
    axes_here = {a["name"]: a["labels"] for a in here["axes"]}
    if axes_there != axes_here:
        grid = "; ".join(f"{name}={','.join(labels)}" for name, labels in axes_there.items()) or "no grid"
        return f"grid {grid}"
    if there["overrides"] != here["overrides"]:
        return f"overrides {', '.join(there['overrides']) or 'none'}"
    return f"seeds {', '.join(map(str, there['seeds']))}"


def check_timeout(timeout: Any) -> Optional[float]:
    """A run timeout: ``None``, or a number of seconds above 0 (``inf`` means none)."""
    if timeout is None:
        return None
    number = isinstance(timeout, (int, float)) and not isinstance(timeout, bool)
    if not (number and timeout > 0):  # NaN fails the comparison too
        shown = f"{timeout:g}" if number else repr(timeout)  # -1 and -1.0 read the same
        raise BadInput(f"timeout {shown}: expected a number of seconds above 0")
    return float(timeout)


def _to_run(store: Store, tasks: list[RunTask], keep_series: bool) -> tuple[list[RunTask], list[str]]:
    """The tasks whose runs are not finished, and what was wrong with each finished run found
    damaged (those are discarded and run again)."""
    todo, repaired = [], []
    for t in tasks:
        if store.has_manifest(t.key):
            problem = store.damage(t.key, keep_series)
            if problem is None and store.is_done(t.key, keep_series):
                continue
            if problem is not None:
                store.discard(t.key)
                repaired.append(problem)
        todo.append(t)
    return todo, repaired


def _plan_from(scenario, axes, seeds, overrides, metrics, keep_series, timeout) -> Plan:
    file: Optional[sweepfile.SweepFile] = None
    if not isinstance(scenario, Scenario) and sweepfile.is_sweep_file(scenario):
        file = sweepfile.read(scenario)
    if seeds is None:
        seed_list = file.seeds if file and file.seeds else sweepfile.seed_list(DEFAULT_SEEDS)
    else:
        iterable = isinstance(seeds, Iterable) and not isinstance(seeds, (str, bytes, Mapping))
        # One more seed than allowed is enough to refuse too many (or an endless iterator).
        given = list(itertools.islice(seeds, sweepfile.MAX_SEEDS + 1)) if iterable else seeds
        try:
            seed_list = sweepfile.seed_list(given)
        except ValueError as e:
            raise BadInput(f"seeds: {e}") from None
    if file is None:
        return replace(make_plan(scenario, axes, seed_list, overrides, keep_series, timeout), metrics=metrics)
    plan = make_plan(
        file.scenario, merge(file.axes, axes), seed_list, [*file.set, *overrides], keep_series, timeout
    )
    plan.name = Path(file.path).stem
    plan.metrics = list(metrics) if metrics else file.metrics
    plan.x, plan.guides = file.x, file.guides
    return plan


def _execute(store: Store, todo: list[RunTask], executor, status: Status, failures: list, progress) -> None:
    backend = executors.backend(executor, todo[0].timeout if todo else None)
    status.backend = backend.description

    def report() -> None:
        status.running = min(backend.capacity, status.to_run - status.done - status.failed)
        if progress:
            progress(status)

    report()
    try:
        for task, result in backend.results(execute, todo):
            if isinstance(result, RunOutput) and result.files is not None:
                store.write_run(task.key, result.files)
                status.done += 1
            else:
                error = result.error if isinstance(result, RunOutput) else failure(result)
                record = {"key": task.key, "seed": task.seed, "point": dict(task.point), **error}
                record["overrides"] = list(task.overrides)
                store.write_failure(task.key, record)
                failures.append(record)
                status.failed += 1
            report()
    except BaseException:
        backend.close(cancel=True)
        raise
    backend.close()


# ---------------------------------------------------------------- reading back


def read_runs(store: Store, described: dict) -> pl.DataFrame:
    """The summary rows of the plan's finished runs, in plan order, with the plan's grid values
    (a run shared with another sweep keeps the values of this one).

    Each axis column is a ``pl.Enum`` of the axis's values as written (``10Mbps``), ordered by
    value when they are numbers or quantities of one kind (see :func:`ndncc.grid.value_order`):
    sorting puts ``10Mbps`` before ``100Mbps`` and ``5`` before ``10``."""
    axis_types = {a["name"]: pl.Enum(value_order(a["labels"])) for a in described["axes"]}
    parts = []
    for run in described["runs"]:
        part = store.read_part(run["key"])
        if part is None:
            continue
        labels = [pl.lit(run["point"][n], dtype=pl.String).cast(t).alias(n) for n, t in axis_types.items()]
        parts.append(part.with_columns(*labels, pl.lit(run["key"], dtype=pl.String).alias("key")))
    columns = [*axis_types, "seed", "key", "entity", "kind", "metric", "value", "unit"]
    if not parts:
        types = {**axis_types, "seed": pl.Int64, "value": pl.Float64}
        return pl.DataFrame(schema={c: types.get(c, pl.String) for c in columns})
    return pl.concat(parts).select(columns)


def labels_as_text(frame: pl.DataFrame, axis_names: Sequence[str]) -> pl.DataFrame:
    """``frame`` with its axis columns as plain strings, as ``aggregate.parquet`` stores them."""
    return frame.with_columns(pl.col(n).cast(pl.String) for n in axis_names)


def aggregate(runs: pl.DataFrame, axis_names: Sequence[str]) -> pl.DataFrame:
    """Mean and 95% CI over seeds per grid point, entity and metric, in plan order."""
    return stats.aggregate(runs, [*axis_names, "entity", "kind", "metric", "unit"])


def read(folder: Union[str, Path]) -> tuple[dict, pl.DataFrame, pl.DataFrame]:
    """A sweep folder's plan (``sweep.json``), run rows and aggregate table."""
    store = Store(Path(folder))
    described = store.read_plan()
    runs = read_runs(store, described)
    return described, runs, aggregate(runs, [a["name"] for a in described["axes"]])
