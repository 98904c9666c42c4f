"""Shared machinery for reproductions: a variant is a scenario file plus overrides; running a list
of variants writes one run folder each and returns their ``summary.json`` rows, with the seed's
numbers attached where the seed gives them."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Callable, Iterable, Optional, Sequence

import polars as pl

from .. import Result, load, load_str
from ..executors import default_workers
from ..result import SavedRun, open_run
from ..shipped import scenario_path
from . import RUN_FIGURES, Progress

#: ``extra(result) -> rows`` computes derived metrics (e.g. a sawtooth period) for one run.
Extra = Callable[[Result, "Variant"], list[dict]]


@dataclass(frozen=True)
class Variant:
    """One configuration of an experiment."""

    name: str
    scenario: str
    overrides: tuple[str, ...] = ()
    #: The seed's figures: (flow, metric) -> value.
    paper: dict = field(default_factory=dict)
    #: What the variant is, for the report.
    note: str = ""
    #: TOML appended to the scenario file's text (tables overrides cannot create, e.g. more
    #: apps of the same kind).
    extra_toml: str = ""
    #: Draw the run's own figures into its folder when the reproduction draws runs' figures
    #: (:data:`ndncc.experiments.RUN_FIGURES`). Replicas that only feed statistics over seeds
    #: never do (``ndncc plot DIR`` draws them later): drawing takes far longer than a short run.
    figures: bool = True


def seed_replicas(variants: Iterable[Variant], seeds: Iterable[int]) -> list[Variant]:
    """Each variant again under each other seed, named ``name,seed=N``, without figures: seed 1 is
    the scenario's own, so the variant itself is that run."""
    seeds = list(seeds)
    return [
        Variant(
            f"{v.name},seed={seed}",
            v.scenario,
            (*v.overrides, f"simulation.seed={seed}"),
            {},
            f"{v.name}, seed {seed}",
            figures=False,
        )
        for v in variants
        for seed in seeds
        if seed != 1
    ]


def row(
    variant: str, flow: str, metric: str, value: Optional[float], unit: str, paper: Optional[float] = None
) -> dict:
    """One ``summary.json`` row."""
    return {"variant": variant, "flow": flow, "metric": metric, "value": value, "paper": paper, "unit": unit}


def _run_one(task: tuple) -> list[dict]:
    """Run one variant into its folder and return its rows (in a worker process)."""
    folder, v, quick, extra = task
    path = scenario_path(v.scenario)  # the shipped file, wherever ndncc is installed
    if v.extra_toml:
        sc = load_str(path.read_text() + "\n" + v.extra_toml, str(path), [*v.overrides, *quick])
    else:
        sc = load(path, [*v.overrides, *quick])
    res = sc.run()
    derived = extra(res, v) if extra else []
    derived_keys = {(r["flow"], r["metric"]) for r in derived}
    paper_for_summary = {k: p for k, p in v.paper.items() if k not in derived_keys}
    present = {(e, m) for e, m in res.summary.select("entity", "metric").iter_rows()}
    missing = {k: p for k, p in paper_for_summary.items() if k not in present}
    rows = res.save(
        Path(folder) / v.name,
        variant=v.name,
        paper={k: p for k, p in paper_for_summary.items() if k in present},
        figures=v.figures,
    )
    for r in derived:
        r["paper"] = v.paper.get((r["flow"], r["metric"]), r.get("paper"))
    rows += derived
    # A figure the seed gives but this run could not produce (e.g. an unfinished download)
    # still appears, with no value, so the comparison table shows the gap.
    rows += [row(v.name, f, m, None, "", p) for (f, m), p in sorted(missing.items())]
    return rows


def run_variants(
    folder: Path,
    variants: Sequence[Variant],
    progress: Progress,
    quick_overrides: Iterable[str] = (),
    extra: Optional[Extra] = None,
) -> tuple[list[dict], dict[str, SavedRun]]:
    """Run every variant into ``folder/<variant>`` on the local process pool (one run per core);
    return all rows, in the order of ``variants``, and each run read back from its folder.

    ``extra`` must be a module-level function (it runs in the worker processes)."""
    from ..executors import ExecutionError, LocalPool

    quick = tuple(quick_overrides)
    draw = RUN_FIGURES.get()
    tasks = [(str(folder), replace(v, figures=v.figures and draw), quick, extra) for v in variants]
    by_name: dict[str, list[dict]] = {}
    pool = LocalPool(min(len(tasks), default_workers()) or 1)
    try:
        for (_, v, _, _), outcome in pool.results(_run_one, tasks):
            if isinstance(outcome, ExecutionError):
                raise RuntimeError(f"variant {v.name}: {outcome}")
            by_name[v.name] = outcome
            progress(v.name, 1.0, 1.0)
    finally:
        pool.close()
    rows = [r for v in variants for r in by_name[v.name]]
    results = {v.name: open_run(folder / v.name) for v in variants}
    return rows, results


def events(res: Result, entity: str, metric: str) -> pl.DataFrame:
    """Event samples of one entity and metric, by time."""
    return res.series(metric=metric, entity=entity).sort("t")


def decreases_by_cause(res: Result, entity: str) -> tuple[list[float], list[float]]:
    """Times of an app's window decreases, split into (signalled, timeout): a decrease is the
    timer's when a timeout of the same app is recorded at the same instant (the timer check that
    declares the loss shrinks the window in the same step); every other one answered a
    congestion mark, a NACK or a detected hole."""
    timeouts = set(events(res, entity, "timeout")["t"].to_list())
    signalled, timed_out = [], []
    for t in events(res, entity, "window_decrease")["t"].to_list():
        (timed_out if t in timeouts else signalled).append(t)
    return signalled, timed_out


def sawtooth_period(res: Result, entity: str, after_s: float) -> Optional[float]:
    """Mean time between signalled window decreases after ``after_s`` (the slow-start exit is
    excluded), leaving out gaps that contain a timeout decrease: the period of the mark-driven
    sawtooth alone. ``None`` with fewer than one such gap."""
    signalled, timed_out = decreases_by_cause(res, entity)
    signalled = [t for t in signalled if t >= after_s]
    gaps = [b - a for a, b in zip(signalled, signalled[1:]) if not any(a < t < b for t in timed_out)]
    return sum(gaps) / len(gaps) if gaps else None


def summary_value(res: Result, entity: str, metric: str) -> Optional[float]:
    """One value of a run's summary (``None`` if the run has no such row)."""
    s = res.summary.filter((pl.col("entity") == entity) & (pl.col("metric") == metric))
    return float(s["value"][0]) if s.height else None


face_value = summary_value


def mean_face_series(res: Result, face: str, metric: str) -> Optional[float]:
    s = res.faces(metric=metric, entity=face)
    return float(s["value"].mean()) if s.height else None


def value_of(rows: Sequence[dict], variant: str, flow: str, metric: str) -> Optional[float]:
    """The value of one row of a reproduction's rows (``None`` if absent or undefined)."""
    for r in rows:
        if r["variant"] == variant and r["flow"] == flow and r["metric"] == metric:
            return r["value"]
    return None


def mean_of(rows: Sequence[dict], variant: str, flows: Sequence[str], metric: str) -> Optional[float]:
    """Mean of a metric over flows (``None`` if any is undefined)."""
    vals = [value_of(rows, variant, f, metric) for f in flows]
    return None if any(v is None for v in vals) else sum(vals) / len(vals)


def num(x: Optional[float], digits: int = 3) -> str:
    """A number for prose: ``digits`` significant digits, "n/a" when undefined."""
    if x is None:
        return "n/a"
    if abs(x) >= 10**digits:
        return f"{x:,.0f}"
    return f"{x:.{digits}g}"
