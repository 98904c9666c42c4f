"""Shared machinery for reproductions: a variant is a scenario file plus overrides; running a list
of variants writes one run folder each and returns their ``summary.json`` rows, with the seed's
numbers attached where the seed gives them."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Optional, Sequence

import polars as pl

from .. import Result, load
from . import Progress

#: The repository's scenario folder (reproductions run the shipped files).
SCENARIOS = Path(__file__).resolve().parents[3] / "scenarios"

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


def row(
    variant: str, flow: str, metric: str, value: Optional[float], unit: str, paper: Optional[float] = None
) -> dict:
    """One ``summary.json`` row."""
    return {"variant": variant, "flow": flow, "metric": metric, "value": value, "paper": paper, "unit": unit}


def run_variants(
    folder: Path,
    variants: Sequence[Variant],
    progress: Progress,
    quick_overrides: Iterable[str] = (),
    extra: Optional[Extra] = None,
) -> tuple[list[dict], dict[str, Result]]:
    """Run every variant into ``folder/<variant>``; return all rows and the results by name."""
    rows: list[dict] = []
    results: dict[str, Result] = {}
    quick = tuple(quick_overrides)
    for v in variants:
        sc = load(SCENARIOS / v.scenario, [*v.overrides, *quick])
        res = sc.run(progress=lambda t, name=v.name, total=sc.duration: progress(name, t, total))
        derived = extra(res, v) if extra else []
        derived_keys = {(r["flow"], r["metric"]) for r in derived}
        paper_for_summary = {k: p for k, p in v.paper.items() if k not in derived_keys}
        present = {(e, m) for e, m in res.summary.select("entity", "metric").iter_rows()}
        missing = {k: p for k, p in paper_for_summary.items() if k not in present}
        rows += res.save(
            folder / v.name,
            variant=v.name,
            paper={k: p for k, p in paper_for_summary.items() if k in present},
        )
        for r in derived:
            r["paper"] = v.paper.get((r["flow"], r["metric"]), r.get("paper"))
        rows += derived
        # A figure the seed gives but this run could not produce (e.g. an unfinished download)
        # still appears, with no value, so the comparison table shows the gap.
        rows += [row(v.name, f, m, None, "", p) for (f, m), p in sorted(missing.items())]
        results[v.name] = res
    return rows, results


def events(res: Result, entity: str, metric: str) -> pl.DataFrame:
    """Event samples of one entity and metric, by time."""
    return res.series(metric=metric, entity=entity).sort("t")


def sawtooth_period(res: Result, entity: str, after_s: float) -> Optional[float]:
    """Mean time between window decreases after ``after_s`` (the slow-start exit is excluded)."""
    t = events(res, entity, "window_decrease").filter(pl.col("t") >= after_s)["t"].to_list()
    if len(t) < 2:
        return None
    return (t[-1] - t[0]) / (len(t) - 1)


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
