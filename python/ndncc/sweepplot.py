"""Figures and ``report.md`` of a sweep folder: each metric against a grid parameter, one line
per setting of the other axes and entity, with its 95% confidence band over seeds.

Axes and legends speak words: a scenario key becomes what it sets and where
(``links.R1-R2.loss.p`` → "loss probability of link R1-R2"), a TOML value what it says
(``{type = "reno-hole", holes_before_reaction = 5}`` → "reno-hole, holes_before_reaction 5"), and a
metric its name in words with its unit ("throughput [kbit/s]"). ``labels`` arguments override
the words of any axis name or metric.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Mapping, Optional, Sequence

import numpy as np
import polars as pl

from . import figures as house
from . import metrics as metric_words
from . import output, plots, sweepstore, tomlread

if TYPE_CHECKING:
    from matplotlib.figure import Figure
from .report import figure_link, fmt, table
from .sweeping import read, select_metrics

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
    #: What the axis sets, in words (default: the name).
    words: Optional[str] = None

    @property
    def numeric(self) -> bool:
        return self.unit is not None

    @property
    def title(self) -> str:
        words = self.words or self.name
        return f"{words} [{self.unit}]" if self.unit else words

    def position(self, label: str) -> float:
        return self.positions[self.labels.index(label)]


def parse_number(label: str) -> Optional[tuple[float, str]]:
    m = _NUMBER.fullmatch(label)
    return (float(m.group(1)), m.group(2)) if m else None


def x_axis(name: str, labels: Sequence[str], words: Optional[str] = None) -> XAxis:
    parsed = [parse_number(lab) for lab in labels]
    units = {p[1] for p in parsed if p}
    if all(parsed) and len(units) == 1:
        return XAxis(name, tuple(labels), tuple(p[0] for p in parsed), units.pop(), words)  # type: ignore[index]
    return XAxis(name, tuple(labels), tuple(float(i) for i in range(len(labels))), None, words)


#: What a scenario key sets, by its last parts (the longest match wins).
SETTING_WORDS = {
    "loss.p": "loss probability",
    "loss_ab.p": "loss probability (first node to second)",
    "loss_ba.p": "loss probability (second node to first)",
    "loss": "loss model",
    "loss_ab": "loss model (first node to second)",
    "loss_ba": "loss model (second node to first)",
    "bandwidth": "bandwidth",
    "delay": "propagation delay",
    "queue": "queue discipline",
    "queue.type": "queue discipline",
    "queue.packets": "queue limit",
    "queue.bytes": "queue limit",
    "queue.limit": "queue limit",
    "queue.target": "CoDel target",
    "queue.interval": "CoDel interval",
    "queue.threshold": "marking threshold",
    "window": "window controller",
    "window.type": "window controller",
    "window.window": "window size",
    "window.initial": "initial window",
    "window.beta": "decrease factor",
    "start_jitter": "start jitter",
    "arrivals.rate": "request rate",
    "catalogue.zipf": "Zipf exponent",
    "catalogue.objects": "catalogue size",
    "rate": "rate controller",
    "rate.type": "rate controller",
    "cc": "TCP congestion control",
    "cc.type": "TCP congestion control",
    "strategy": "forwarding strategy",
    "strategy.type": "forwarding strategy",
    "file_size": "file size",
    "segments": "file size",
    "start": "start time",
    "stop": "stop time",
    "payload": "Data payload",
    "overhead": "Data header size",
    "interest_size": "Interest size",
    "lifetime": "Interest lifetime",
    "clock_tick": "clock tick",
    "duration": "simulated time",
    "seed": "seed",
}


def _setting(parts: Sequence[str]) -> str:
    for n in range(len(parts), 0, -1):
        words = SETTING_WORDS.get(".".join(parts[-n:]))
        if words:
            return words
    return " ".join(parts).replace("_", " ")


def key_words(key: str) -> tuple[str, str]:
    """What scenario key ``key`` sets and where: ``("loss probability", "link R1-R2")``."""
    parts = key.split(".")
    where = ""
    if parts[0] in ("links", "apps", "nodes") and len(parts) >= 3:
        noun = {"links": "link ", "apps": "", "nodes": "node "}[parts[0]]
        where, parts = noun + parts[1], parts[2:]
    elif parts[:2] == ["defaults", "link"] and len(parts) >= 3:
        where, parts = "every link", parts[2:]
    elif parts[0] == "simulation" and len(parts) >= 2:
        parts = parts[1:]
    return _setting(parts), where


def axis_words(axis: dict) -> str:
    """A grid axis in words: what its keys set, and where ("window controller of C1, C2")."""
    pairs = [key_words(k) for k in axis.get("keys") or [axis["name"]]]
    settings = list(dict.fromkeys(s for s, _ in pairs))
    places = [w for _, w in pairs if w]
    if len(settings) == 1:
        return f"{settings[0]} of {', '.join(places)}" if places else settings[0]
    return "; ".join(f"{s} of {w}" if w else s for s, w in pairs)


def value_words(label: str) -> str:
    """A grid value as read: strings unquoted, a table as its type and settings
    (``{type = "aimd", beta = 0.7}`` → "aimd, beta 0.7"); other text as it is."""
    try:
        value = tomlread.loads(f"v = {label}")["v"]
    except tomlread.TOMLDecodeError:
        if " / " in label:
            return " / ".join(value_words(part) for part in label.split(" / "))
        return label
    return _value_text(value)


def _value_text(value: object) -> str:
    if isinstance(value, dict):
        parts = [_value_text(value["type"])] if "type" in value else []
        parts += [f"{k} {_value_text(v)}" for k, v in value.items() if k != "type"]
        return ", ".join(parts)
    if isinstance(value, list):
        return "[" + ", ".join(_value_text(v) for v in value) + "]"
    if isinstance(value, bool):
        return "on" if value else "off"
    return f"{value:g}" if isinstance(value, float) else str(value)


def choose_x(axes: Sequence[dict], preferred: Optional[str] = None) -> Optional[XAxis]:
    """``preferred`` if named, else the first numeric axis with several values, else the first
    axis with several values, else the first axis; ``None`` without axes."""
    candidates = [x_axis(a["name"], a["labels"], axis_words(a)) for a in axes]
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


@house.styled
def metric_figure(
    rows: pl.DataFrame,
    x: Optional[XAxis],
    others: Sequence[str],
    seeds: int,
    guide: Optional[float] = None,
    axes: Sequence[dict] = (),
    labels: Optional[Mapping[str, str]] = None,
) -> "Figure":
    """One metric's figure from aggregate rows (``mean``, ``ci95`` per grid point and entity).

    ``axes`` (the sweep's axes, as ``sweep.json`` describes them) give the other axes' words for
    the legend's title; ``labels`` maps an axis name or a metric to words of the caller's own."""
    metric, unit = rows["metric"][0], rows["unit"][0]
    labels = dict(labels or {})
    described = {a["name"]: a for a in axes}

    def words(name: str) -> str:
        return labels.get(name) or (
            axis_words(described[name]) if name in described else axis_words({"name": name})
        )

    fig = house.new_figure()
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
        parts = [labels.get(str(line[k])) or value_words(str(line[k])) for k in others]
        parts += [labels.get(line["entity"], line["entity"])] if several_entities or not others else []
        label = " · ".join(parts)
        if numeric:  # a line through the points, the interval as a band
            (drawn,) = ax.plot(xs, mean, marker="o", label=label)
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
        ticks = list(x.labels) if numeric else [value_words(lab) for lab in x.labels]
        ax.set_xticks(list(x.positions), ticks)
        title = labels.get(x.name)
        ax.set_xlabel(f"{title} [{x.unit}]" if title and x.unit else title or x.title)
    else:
        ax.set_xticks([0.0], ["all runs"])
    if not numeric:
        ax.set_xlim(-0.5, (len(x.labels) if x else 1) - 0.5)
    # Counts, rates, delays and indexes are not negative: their axis starts at zero.
    means = rows["mean"].drop_nulls()
    if len(means) and float(means.min()) >= 0:
        ax.set_ylim(bottom=0)
    metric_text = labels.get(metric) or metric_words.metric_words(metric)
    ax.set_ylabel(f"{metric_text} [{unit}]" if unit else metric_text)
    plural = "s" if seeds != 1 else ""
    ax.set_title(f"{metric_text[:1].upper()}{metric_text[1:]}: mean and 95% CI over {seeds} seed{plural}")
    ax.grid(True, alpha=0.3)
    if 0 < lines.height <= plots.MAX_LEGEND:
        legend_title = " · ".join(
            [words(k) for k in others] + (["flow"] if several_entities or not others else [])
        )
        ax.legend(loc="best", title=legend_title)
    return fig


def write_figures(
    folder: Path,
    described: dict,
    table_: pl.DataFrame,
    metrics: Optional[Sequence[str]],
    format: str = "png",
    labels: Optional[Mapping[str, str]] = None,
    style: Optional[str] = None,
) -> list[str]:
    """Draw one figure per metric into ``folder/figures`` in ``format`` (png, pdf or svg) and
    ``style`` (:mod:`ndncc.figures`); return the metrics drawn."""
    plots.check_format(format)
    plot = described.get("plot") or {}
    x = choose_x(described["axes"], plot.get("x"))
    others = [a["name"] for a in described["axes"] if x is None or a["name"] != x.name]
    chosen = select_metrics(table_, metrics).filter(pl.col("n") > 0)
    drawn = []
    (folder / FIGURES).mkdir(exist_ok=True)
    for metric in chosen["metric"].unique(maintain_order=True):
        rows = chosen.filter(pl.col("metric") == metric)
        guide = (plot.get("guides") or {}).get(metric)
        with house.style(style):
            fig = metric_figure(rows, x, others, len(described["seeds"]), guide, described["axes"], labels)
        plots.write_figure(folder / FIGURES / figure_file(metric, format), fig)
        drawn.append(metric)
    return drawn


def figure_file(metric: str, format: str = "png") -> str:
    """The file name of ``metric``'s figure inside ``figures/``."""
    return f"{_file_name(metric)}.{format}"


def _file_name(metric: str) -> str:
    return re.sub(r"[^A-Za-z0-9_.-]+", "_", metric)


def sweep_report(
    described: dict, table_: pl.DataFrame, figures: Sequence[str], runs_done: int, format: str = "png"
) -> str:
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
            parts += [figure_link(f"{FIGURES}/{figure_file(metric, format)}", metric), ""]
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


def render(
    folder: Path,
    metrics: Optional[Sequence[str]] = None,
    format: str = "png",
    labels: Optional[Mapping[str, str]] = None,
    style: Optional[str] = None,
) -> list[str]:
    """Redraw a sweep folder's figures (in ``format``: png, pdf or svg; ``style``: screen or
    paper) and ``report.md`` from its runs; return the metrics drawn. ``labels`` maps axis
    names, grid values, entities and metrics to words of your own for the figures."""
    folder = Path(folder)
    plots.check_format(format)
    described, runs, table_ = read(folder)
    metrics = metrics or described.get("metrics")
    figures = write_figures(folder, described, table_, metrics, format, labels, style)
    shown = select_metrics(table_, metrics)
    done = runs["key"].n_unique() if runs.height else 0
    output.write_text(folder / output.REPORT, sweep_report(described, shown, figures, done, format))
    return figures
