"""Parameter sweeps: a grid of overrides × seeds, run in parallel, resumable, aggregated.

>>> import ndncc
>>> res = ndncc.sweep("scenarios/e3.toml", grid={"links.R1-R2.loss.p": ["0%", "1%", "2%"]}, seeds=5)
>>> res.table          # mean and 95% CI per grid point, entity and metric

Every run is planned (and its scenario validated) before any starts, so bad input stops the
sweep at once. A run is keyed by the hash of its resolved scenario and seed; a run whose key is
already on disk (see :mod:`ndncc.sweepstore`) is skipped, so re-running a killed sweep finishes
it. Workers get the resolved scenario as TOML text, so they need no access to the scenario file;
they return the run's files as bytes and the driver writes them.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import time
import traceback
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, Callable, Iterable, Mapping, Optional, Sequence, Union

import polars as pl

from . import _core, executors, output, stats, sweepfile
from .errors import BadInput, RunTimeout, describe
from .grid import Axis, Point, check, expand, make_axis, merge, split_keys
from .result import SUMMARY_SCHEMA, Result
from .scenario import Scenario, load, load_str
from .sweepstore import PART, Store

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
    toml: str
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
        raw = sc._core.run(seed=task.seed, progress=progress)
    except _core.Interrupted:
        raise RunTimeout(f"stopped after {task.timeout:g} s of wall time (the run timeout)") from None
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
            "axes": [{"name": a.name, "keys": list(a.keys), "labels": list(a.labels)} for a in self.axes],
            "metrics": self.metrics,
            "plot": {"x": self.x, "guides": self.guides},
            "runs": [{"key": t.key, "seed": t.seed, "point": dict(t.point)} for t in self.tasks],
        }


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
    tasks, owner = [], {}
    for p in points:
        for seed in seeds:
            try:
                sc = loader([*overrides, *p.overrides, f"simulation.seed={seed}"])
            except _core.ScenarioError as e:
                raise _blame(e, p, axes, loader, overrides) from None
            key = run_key(sc.to_dict(), seed)
            if key in owner:
                raise BadInput(f"grid points {owner[key]} and {_point_text(p)} give the same scenario")
            owner[key] = _point_text(p)
            toml = sc.to_toml()
            ov = (*overrides, *p.overrides)
            tasks.append(RunTask(key, seed, p.labels, ov, toml, source, keep_series, timeout))
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


@dataclass
class SweepResult:
    out: Path
    plan: Plan
    status: Status
    #: ``(key, seed, point, error)`` of the runs that failed in this sweep.
    failures: list[dict]
    #: Summary rows of every finished run: axis columns, seed, key, entity, kind, metric, value, unit.
    runs: pl.DataFrame
    #: Per grid point, entity and metric: n, mean, std and ci95 (the 95% CI half-width).
    table: pl.DataFrame
    #: Why each finished run found damaged on disk was run again.
    repaired: list[str] = field(default_factory=list)

    def summary(self, metrics: Optional[Sequence[str]] = None) -> pl.DataFrame:
        """The rows of :attr:`table` for ``metrics`` (default: the plan's, else every consumer metric)."""
        return select_metrics(self.table, metrics or self.plan.metrics)


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
    progress: Optional[Callable[[Status], None]] = None,
) -> SweepResult:
    """Run ``scenario`` at every grid point for every seed, skipping runs already in ``out``.

    ``scenario`` is a scenario file, a sweep file (its grid, seeds, overrides and metrics are the
    defaults; ``grid`` adds axes or replaces those with the same keys) or a :class:`Scenario`.
    ``grid`` maps a dotted key (or several, comma-joined or as a tuple, that change together) to
    its values. ``seeds`` is a count (seeds 1..N) or a list. ``executor``: ``None`` for a local
    process pool on every core, a number of local workers, a Dask scheduler address or client, or
    a ``concurrent.futures.Executor``. ``timeout`` stops (and fails) a run after that many wall
    seconds. Failed runs are recorded in ``out/failed/`` and counted in the result.
    """
    timeout = check_timeout(timeout)
    executors.check_executor(executor)
    plan = _plan_from(scenario, _axes(grid), seeds, list(overrides), metrics, keep_series, timeout)
    store = Store(output.folder_path(out) if out is not None else output.default_folder(plan.name, "-sweep"))
    store.check_folder()
    status = Status(total=len(plan.tasks))
    failures: list[dict] = []
    with store.locked():
        store.tidy()
        store.write_plan(plan.describe())
        todo, repaired = _to_run(store, plan.tasks, keep_series)
        status.skipped = status.total - len(todo)
        if todo:
            _execute(store, todo, executor, status, failures, progress)
        elif progress:
            progress(status)
        runs = read_runs(store, plan.describe())
        table = aggregate(runs, [a.name for a in plan.axes])
        store.write_aggregate(table)
    return SweepResult(store.root, plan, status, failures, runs, table, repaired)


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
    backend = executors.backend(executor)
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
    """The summary rows of the plan's finished runs, in plan order, with the plan's grid labels
    (a run shared with another sweep keeps the labels of this one)."""
    axis_names = [a["name"] for a in described["axes"]]
    parts = []
    for run in described["runs"]:
        part = store.read_part(run["key"])
        if part is None:
            continue
        labels = [pl.lit(run["point"][n], dtype=pl.String).alias(n) for n in axis_names]
        parts.append(part.with_columns(*labels, pl.lit(run["key"], dtype=pl.String).alias("key")))
    columns = [*axis_names, "seed", "key", "entity", "kind", "metric", "value", "unit"]
    if not parts:
        schema = {
            c: (pl.Int64 if c == "seed" else pl.Float64 if c == "value" else pl.String) for c in columns
        }
        return pl.DataFrame(schema=schema)
    return pl.concat(parts).select(columns)


def aggregate(runs: pl.DataFrame, axis_names: Sequence[str]) -> pl.DataFrame:
    """Mean and 95% CI over seeds per grid point, entity and metric, in plan order."""
    return stats.aggregate(runs, [*axis_names, "entity", "kind", "metric", "unit"])


def read(folder: Union[str, Path]) -> tuple[dict, pl.DataFrame, pl.DataFrame]:
    """A sweep folder's plan (``sweep.json``), run rows and aggregate table."""
    store = Store(Path(folder))
    described = store.read_plan()
    runs = read_runs(store, described)
    return described, runs, aggregate(runs, [a["name"] for a in described["axes"]])
