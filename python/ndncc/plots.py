"""Figures of a run, drawn with matplotlib's Agg renderer into PNG files.

No pyplot: figures are made directly, so importing ndncc never changes the caller's matplotlib
backend. PNGs are written without a "Software" entry, so the same data gives the same bytes.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Optional

import numpy as np
import polars as pl

from . import output

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: Legends beyond this many lines would hide the plot; the lines are still drawn.
MAX_LEGEND = 12
#: Throughput bins per run when the caller gives no width.
THROUGHPUT_BINS = 100


@dataclass(frozen=True)
class FigureSpec:
    file: str
    title: str
    ylabel: str
    data: Callable[[output.RunFolder], pl.DataFrame]


def throughput(series: pl.DataFrame, bin_s: Optional[float] = None) -> pl.DataFrame:
    """Data packets received per second per consumer, in bins of ``bin_s`` seconds.

    Taken from the cumulative ``data_received`` counter: a bin's throughput is the counter's rise
    across the bin over its width. ``t`` is the end of the bin. By default the run is cut into
    about 100 bins, never narrower than the recording interval.
    """
    data = series.filter(pl.col("metric") == "data_received")
    columns = {"t": pl.Float64, "entity": pl.String, "metric": pl.String, "value": pl.Float64}
    if data.is_empty():
        return pl.DataFrame(schema=columns)
    t_end = float(data["t"].max())
    if bin_s is None:
        step = data.group_by("entity").agg(pl.col("t").sort().diff().median())["t"].max()
        bin_s = max(t_end / THROUGHPUT_BINS, float(step or 0.0)) or 1.0
    edges = np.arange(0.0, t_end + bin_s * 0.5, bin_s)
    parts = []
    for entity in sorted(data["entity"].unique()):
        rows = data.filter(pl.col("entity") == entity).sort("t")
        t, count = rows["t"].to_numpy(), rows["value"].to_numpy()
        # Counter value at each edge: the last sample at or before it (0 before the first).
        at = np.searchsorted(t, edges + 1e-9, side="right") - 1
        level = np.where(at >= 0, count[np.clip(at, 0, None)], 0.0)
        parts.append(
            pl.DataFrame(
                {"t": edges[1:], "entity": entity, "metric": "throughput", "value": np.diff(level) / bin_s},
                schema=columns,
            )
        )
    return pl.concat(parts)


def _queue(run: output.RunFolder) -> pl.DataFrame:
    """Queue length of the faces that ever held a packet (all faces if none did)."""
    q = run.faces.filter(pl.col("metric") == "queue_packets")
    busy = q.group_by("entity").agg(pl.col("value").max()).filter(pl.col("value") > 0)["entity"]
    return q.filter(pl.col("entity").is_in(busy.to_list())) if len(busy) else q


def _metric(name: str, scale: float = 1.0) -> Callable[[output.RunFolder], pl.DataFrame]:
    return lambda run: run.series.filter(pl.col("metric") == name).with_columns(pl.col("value") * scale)


FIGURES = (
    FigureSpec("window.png", "Window per consumer", "window [Interests]", _metric("window")),
    FigureSpec("rate.png", "Sending rate per consumer", "rate [Interests/s]", _metric("rate")),
    FigureSpec("rtt.png", "RTT per consumer", "RTT [ms]", _metric("rtt", 1000.0)),
    FigureSpec("queue.png", "Queue length per face", "queue [packets]", _queue),
    FigureSpec(
        "throughput.png", "Throughput per consumer", "Data packets/s", lambda run: throughput(run.series)
    ),
)


def line_figure(frame: pl.DataFrame, title: str, ylabel: str) -> "Figure":
    """One line per entity of a long table, time on the x axis."""
    from matplotlib.figure import Figure

    fig = Figure(figsize=(8, 4.5), dpi=100, layout="constrained")
    ax = fig.add_subplot()
    entities = sorted(frame["entity"].unique())
    for entity in entities:
        rows = frame.filter(pl.col("entity") == entity).sort("t")
        ax.plot(rows["t"].to_numpy(), rows["value"].to_numpy(), label=entity, linewidth=1.0)
    ax.set_title(title)
    ax.set_xlabel("time [s]")
    ax.set_ylabel(ylabel)
    ax.grid(True, alpha=0.3)
    if 0 < len(entities) <= MAX_LEGEND:
        ax.legend(loc="best", fontsize="small")
    return fig


def write_png(path: Path, fig: Figure) -> None:
    with output.atomic_path(path) as tmp:
        fig.savefig(tmp, format="png", metadata={"Software": None})


def write_figures(run: output.RunFolder) -> list[tuple[str, str]]:
    """Draw every figure that has data; return ``(file name, title)`` of those written."""
    written = []
    for spec in FIGURES:
        frame = spec.data(run)
        if frame.is_empty():
            continue
        write_png(run.path / spec.file, line_figure(frame, spec.title, spec.ylabel))
        written.append((spec.file, spec.title))
    return written
