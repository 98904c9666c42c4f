"""Figures and ``report.md`` of a sweep folder: each metric against a grid parameter, one line
per setting of the other axes and entity, with its 95% confidence band over seeds."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Optional, Sequence

import numpy as np
import polars as pl

from . import output, plots, sweepstore

if TYPE_CHECKING:
    from matplotlib.figure import Figure
from .report import fmt, table
from .sweep import read, select_metrics

FIGURES = "figures"
_NUMBER = re.compile(r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*([^\d\s]*)\s*")


@dataclass(frozen=True)
class XAxis:
    """The grid axis drawn horizontally: numeric positions if every label is a number with the
    same unit (``0.5%``, ``10ms``, ``50``), else evenly spaced categories."""

    name: str
    labels: tuple[str, ...]
    positions: tuple[float, ...]
    unit: Optional[str]

    @property
    def numeric(self) -> bool:
        return self.unit is not None

    @property
    def title(self) -> str:
        return f"{self.name} [{self.unit}]" if self.unit else self.name

    def position(self, label: str) -> float:
        return self.positions[self.labels.index(label)]


def parse_number(label: str) -> Optional[tuple[float, str]]:
    m = _NUMBER.fullmatch(label)
    return (float(m.group(1)), m.group(2)) if m else None


def x_axis(name: str, labels: Sequence[str]) -> XAxis:
    parsed = [parse_number(lab) for lab in labels]
    units = {p[1] for p in parsed if p}
    if all(parsed) and len(units) == 1:
        return XAxis(name, tuple(labels), tuple(p[0] for p in parsed), units.pop())  # type: ignore[index]
    return XAxis(name, tuple(labels), tuple(float(i) for i in range(len(labels))), None)


def choose_x(axes: Sequence[dict], preferred: Optional[str] = None) -> Optional[XAxis]:
    """``preferred`` if named, else the first numeric axis with several values, else the first
    axis with several values, else the first axis; ``None`` without axes."""
    candidates = [x_axis(a["name"], a["labels"]) for a in axes]
    for pick in (
        lambda x: x.name == preferred,
        lambda x: x.numeric and len(x.labels) > 1,
        lambda x: len(x.labels) > 1,
        lambda x: True,
    ):
        chosen = [x for x in candidates if pick(x)]
        if chosen:
            return chosen[0]
    return None


def guide_curve(xs: np.ndarray, ys: np.ndarray, exponent: float) -> Optional[tuple[np.ndarray, np.ndarray]]:
    """The curve ``c·x^e`` through the points with ``x, y > 0`` (``c`` fitted in log space)."""
    ok = (xs > 0) & (ys > 0) & np.isfinite(ys)
    if ok.sum() < 1:
        return None
    c = math.exp(float(np.mean(np.log(ys[ok]) - exponent * np.log(xs[ok]))))
    grid = np.linspace(xs[ok].min(), xs[ok].max(), 200)
    return grid, c * grid**exponent


def metric_figure(
    rows: pl.DataFrame, x: Optional[XAxis], others: Sequence[str], seeds: int, guide: Optional[float] = None
) -> "Figure":
    """One metric's figure from aggregate rows (``mean``, ``ci95`` per grid point and entity)."""
    metric, unit = rows["metric"][0], rows["unit"][0]
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8, 4.5), dpi=100, layout="constrained")
    ax = fig.add_subplot()
    several_entities = rows["entity"].n_unique() > 1
    lines = rows.select(*others, "entity").unique(maintain_order=True)
    numeric = x is not None and x.numeric
    for n, line in enumerate(lines.iter_rows(named=True)):
        sel = rows
        for k, v in line.items():
            sel = sel.filter(pl.col(k) == v)
        xs = np.array([x.position(lab) for lab in sel[x.name]] if x else [0.0] * sel.height)
        mean = sel["mean"].to_numpy().astype(float)
        ci = sel["ci95"].fill_null(0.0).to_numpy().astype(float)
        order = np.argsort(xs, kind="stable")
        xs, mean, ci = xs[order], mean[order], ci[order]
        parts = [line[k] for k in others] + ([line["entity"]] if several_entities or not others else [])
        label = " · ".join(parts)
        if numeric:  # a line through the points, the interval as a band
            (drawn,) = ax.plot(xs, mean, marker="o", markersize=3, linewidth=1.2, label=label)
            ax.fill_between(xs, mean - ci, mean + ci, color=drawn.get_color(), alpha=0.2, linewidth=0)
        else:  # categories: points with error bars, each line shifted a little to stay apart
            shift = 0.08 * (n - (lines.height - 1) / 2)
            ax.errorbar(xs + shift, mean, yerr=ci, fmt="o", markersize=4, capsize=3, label=label)
    if guide is not None and numeric:
        pooled = rows.select(pl.col(x.name), "mean").drop_nulls()
        xs = np.array([x.position(lab) for lab in pooled[x.name]])
        curve = guide_curve(xs, pooled["mean"].to_numpy().astype(float), guide)
        if curve:
            ax.plot(*curve, linestyle="--", color="0.4", linewidth=1.0, label=f"guide: ∝ x^{guide:g}")
    if x is not None:
        ax.set_xticks(list(x.positions), list(x.labels))
        ax.set_xlabel(x.title)
    else:
        ax.set_xticks([0.0], ["all runs"])
    if not numeric:
        ax.set_xlim(-0.5, (len(x.labels) if x else 1) - 0.5)
    ax.set_ylabel(f"{metric} [{unit}]" if unit else metric)
    ax.set_title(f"{metric}: mean and 95% CI over {seeds} seed{'s' if seeds != 1 else ''}")
    ax.grid(True, alpha=0.3)
    if 0 < lines.height <= plots.MAX_LEGEND:
        ax.legend(loc="best", fontsize="small")
    return fig


def write_figures(
    folder: Path, described: dict, table_: pl.DataFrame, metrics: Optional[Sequence[str]]
) -> list[str]:
    """Draw one figure per metric into ``folder/figures``; return the metrics drawn."""
    plot = described.get("plot") or {}
    x = choose_x(described["axes"], plot.get("x"))
    others = [a["name"] for a in described["axes"] if x is None or a["name"] != x.name]
    chosen = select_metrics(table_, metrics).filter(pl.col("n") > 0)
    drawn = []
    (folder / FIGURES).mkdir(exist_ok=True)
    for metric in chosen["metric"].unique(maintain_order=True):
        rows = chosen.filter(pl.col("metric") == metric)
        fig = metric_figure(rows, x, others, len(described["seeds"]), (plot.get("guides") or {}).get(metric))
        plots.write_png(folder / FIGURES / f"{_file_name(metric)}.png", fig)
        drawn.append(metric)
    return drawn


def _file_name(metric: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", metric)


def sweep_report(described: dict, table_: pl.DataFrame, figures: Sequence[str], runs_done: int) -> str:
    axes = [a["name"] for a in described["axes"]]
    total = len(described["runs"])
    parts = [
        f"# Sweep {described['name']}",
        "",
        f"`{described['source']}`, {len(described['seeds'])} seeds × "
        f"{total // max(1, len(described['seeds']))} grid points; {runs_done} of {total} runs finished.",
        "",
    ]
    if described.get("overrides"):
        parts += ["Fixed overrides: " + ", ".join(f"`{o}`" for o in described["overrides"]), ""]
    for a in described["axes"]:
        keys = "" if a["keys"] == [a["name"]] else f" ({', '.join(a['keys'])})"
        parts.append(f"- `{a['name']}`{keys}: {', '.join(a['labels'])}")
    rows = [
        [
            *(r[a] for a in axes),
            r["entity"],
            r["metric"],
            str(r["n"]),
            fmt(r["mean"]),
            ci_text(r["ci95"]),
            r["unit"],
        ]
        for r in table_.iter_rows(named=True)
    ]
    parts += ["", "## Mean and 95% confidence interval", ""]
    parts += [table([*axes, "entity", "metric", "n", "mean", "± 95% CI", "unit"], rows), ""]
    if figures:
        parts += ["## Figures", ""]
        for metric in figures:
            parts += [f"![{metric}]({FIGURES}/{_file_name(metric)}.png)", ""]
    parts += [
        "## Files",
        "",
        f"- `{sweepstore.PLAN}`: the plan (scenario, overrides, axes, seeds, every run's key)",
        f"- `{sweepstore.RUNS}/key=<key>/`: one run each: `{sweepstore.PART}` (summary rows) and "
        f"`{output.MANIFEST}`",
        f"- `{sweepstore.AGGREGATE}`: mean, std and 95% CI per grid point, entity and metric",
        "",
    ]
    return "\n".join(parts)


def ci_text(ci: Optional[float]) -> str:
    return "–" if ci is None else f"± {ci:.3g}"


def render(folder: Path, metrics: Optional[Sequence[str]] = None) -> list[str]:
    """Redraw a sweep folder's figures and ``report.md`` from its runs; return the metrics drawn."""
    folder = Path(folder)
    described, runs, table_ = read(folder)
    metrics = metrics or described.get("metrics")
    figures = write_figures(folder, described, table_, metrics)
    shown = select_metrics(table_, metrics)
    done = runs["key"].n_unique() if runs.height else 0
    output.write_text(folder / output.REPORT, sweep_report(described, shown, figures, done))
    return figures
