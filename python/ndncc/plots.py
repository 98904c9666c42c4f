"""Figures of a run, drawn with matplotlib's Agg renderer, as PNG, PDF or SVG.

No pyplot: figures are made directly (:mod:`ndncc.figures`, which also gives them their house
style), so importing ndncc never changes the caller's matplotlib backend. Files carry no date or
software version, and SVG ids come from a fixed salt, so the same data gives the same bytes in
every format. Legends name each app with its controller ("C1 (aimd)"), or with labels of the
caller's own.

What the figures promise (docs/metrics.md): quantities that cannot be negative (throughput,
windows, rates, queue lengths, delays) are drawn from zero; throughput is in kbit/s, the unit
of the summary's ``throughput_kbps``, in bins wide enough not to alias against the flows (see
:func:`ndncc.metrics.default_bin_s`), and the bin width is written on the figure.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Optional

import polars as pl

from . import figures, metrics, output
from .errors import BadInput

if TYPE_CHECKING:
    from matplotlib.figure import Figure

#: Legends beyond this many lines would hide the plot; the lines are still drawn.
MAX_LEGEND = 12

#: The file formats figures can be written in.
FORMATS = output.FIGURE_FORMATS
#: What each format would otherwise stamp into the file (dates, software versions): left out.
_METADATA: dict[str, dict[str, Any]] = {
    "png": {"Software": None},
    "pdf": {"Creator": None, "Producer": None, "CreationDate": None},
    "svg": {"Creator": None, "Date": None},
}


@dataclass(frozen=True)
class FigureSpec:
    """One figure of a run's report: its file (as PNG; other formats change the suffix), title,
    axis labels, the long table it plots (``t``, ``entity``, ``metric``, ``value``) and, for
    figures that are not one line per entity over time, how it is drawn."""

    file: str
    title: str
    ylabel: str
    data: Callable[[output.RunFolder], pl.DataFrame]
    draw: Optional[Callable[[output.RunFolder, Mapping[str, str]], Optional["Figure"]]] = None
    #: Whether the figure has time on its x axis (and can be a panel of :func:`panels_figure`).
    over_time: bool = True
    #: The legend's title.
    legend_title: str = "app"

    @property
    def stem(self) -> str:
        return Path(self.file).stem

    def figure(self, run: output.RunFolder, labels: Optional[Mapping[str, str]] = None) -> Optional["Figure"]:
        """The figure of ``run``; ``None`` if the run has no data for it. ``labels`` maps entity
        names to legend entries of the caller's own (default: :func:`entity_labels`)."""
        labels = {**entity_labels(run.manifest.get("scenario")), **(labels or {})}
        if self.draw is not None:
            return self.draw(run, labels)
        frame = self.data(run)
        if frame.is_empty():
            return None
        return line_figure(frame, self.title, self.ylabel, labels=labels, legend_title=self.legend_title)


def _controller(app: Mapping[str, Any]) -> Optional[str]:
    """An app's congestion controller in words: ``aimd``, ``MyAimd`` (a Python class), ``TCP
    newreno``, ``UDP CBR``."""
    kind = app.get("type")
    if kind == "consumer":
        for family in ("window", "rate"):
            cc = app.get(family)
            if isinstance(cc, Mapping) and cc.get("type"):
                if cc["type"] == "python" and isinstance(cc.get("class"), str):
                    return cc["class"].rpartition(":")[2].rpartition(".")[2]
                return str(cc["type"])
        return None
    if kind == "tcp":
        cc = app.get("cc")
        return f"TCP {cc['type']}" if isinstance(cc, Mapping) and cc.get("type") else "TCP"
    if kind == "cbr":
        return "UDP CBR"
    if kind == "multicast":
        cc = app.get("control")
        return f"multicast {cc['type']}" if isinstance(cc, Mapping) and cc.get("type") else "multicast"
    return None


def entity_labels(scenario: Optional[Mapping[str, Any]]) -> dict[str, str]:
    """Legend entries of a run's apps from its resolved scenario: ``"C1 (aimd)"``, ``"T (TCP
    cubic)"``; entities not named here (faces, nodes) keep their names."""
    apps = (scenario or {}).get("apps") or {}
    labels = {}
    for name, app in apps.items():
        if isinstance(app, Mapping):
            cc = _controller(app)
            if cc:
                labels[name] = f"{name} ({cc})"
    return labels


def labels_for(run: Any) -> dict[str, str]:
    """:func:`entity_labels` of a :class:`ndncc.Result` or :class:`ndncc.SavedRun`."""
    return entity_labels(run._scenario_dict())


def check_labels(labels: object) -> dict[str, str]:
    """Legend or axis labels given by the caller: a mapping of name to text (``None``: none)."""
    if labels is None:
        return {}
    if not isinstance(labels, Mapping) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in labels.items()
    ):
        raise BadInput(f"labels {labels!r}: expected a mapping of names to texts, as {{'C1': 'AIMD flow'}}")
    return dict(labels)


def entity_kinds(scenario: Optional[Mapping[str, Any]]) -> dict[str, str]:
    """Each app's type (``consumer``, ``tcp``, …), by name, from a resolved scenario."""
    apps = (scenario or {}).get("apps") or {}
    return {n: str(a.get("type")) for n, a in apps.items() if isinstance(a, Mapping)}


def file_name(spec: FigureSpec, format: str = "png") -> str:
    """The file name of ``spec`` in ``format``."""
    return f"{spec.stem}.{check_format(format)}"


def check_format(format: str) -> str:
    if format not in FORMATS:
        raise BadInput(f"format: expected one of {', '.join(FORMATS)}, not {format!r}")
    return format


def _metric(name: str, scale: float = 1.0) -> Callable[[output.RunFolder], pl.DataFrame]:
    return lambda run: run.series.filter(pl.col("metric") == name).with_columns(pl.col("value") * scale)


# --- window --------------------------------------------------------------------------------------


def _mss_bytes(run: output.RunFolder, flow: str) -> Optional[float]:
    app = ((run.manifest.get("scenario") or {}).get("apps") or {}).get(flow) or {}
    mss = app.get("mss")
    if isinstance(mss, (int, float)):
        return float(mss)
    if isinstance(mss, str) and mss.endswith("B") and mss[:-1].replace(".", "", 1).isdigit():
        return float(mss[:-1])
    return None


def _window(run: output.RunFolder) -> pl.DataFrame:
    """Consumers' windows [Interests] and TCP senders' congestion windows [segments of the
    flow's MSS; bytes when the MSS is unknown, under the metric ``cwnd_bytes``]."""
    window = run.series.filter(pl.col("metric") == "window")
    cwnd = run.series.filter(pl.col("metric") == "cwnd")
    parts = [window]
    for flow in sorted(cwnd["entity"].unique().to_list()):
        rows = cwnd.filter(pl.col("entity") == flow)
        mss = _mss_bytes(run, flow)
        if mss:
            parts.append(rows.with_columns(pl.col("value") / mss, metric=pl.lit("cwnd")))
        else:
            parts.append(rows.with_columns(metric=pl.lit("cwnd_bytes")))
    return pl.concat(parts) if len(parts) > 1 else window


def _window_label(frame: pl.DataFrame) -> str:
    kinds = set(frame["metric"].unique().to_list())
    if kinds == {"window"}:
        return "window [Interests]"
    if kinds == {"cwnd"}:
        return "congestion window [segments]"
    if kinds == {"cwnd_bytes"}:
        return "congestion window [bytes]"
    if kinds == {"window", "cwnd"}:
        return "window [Interests; TCP: segments]"
    return "window [Interests; TCP: bytes]"


def _draw_window(run: output.RunFolder, labels: Mapping[str, str]) -> Optional["Figure"]:
    frame = _window(run)
    if frame.is_empty():
        return None
    cwnd = frame.filter(pl.col("metric") != "window")["entity"].unique().to_list()
    shown = {**labels, **{f: f"{labels.get(f, f)}, cwnd" for f in cwnd}}
    return line_figure(
        frame, "Window per flow", _window_label(frame), labels=shown, legend_title="flow (controller)"
    )


# --- throughput --------------------------------------------------------------------------------


def _throughput(run: output.RunFolder) -> pl.DataFrame:
    """Throughput per flow in kbit/s; Data per second when the summary lacks the payload sizes
    (the metric column says which)."""
    frame = metrics.throughput(run.series, run.summary)
    return frame if not frame.is_empty() else metrics.data_rate(run.series)


def _draw_throughput(run: output.RunFolder, labels: Mapping[str, str]) -> Optional["Figure"]:
    frame = _throughput(run)
    if frame.is_empty():
        return None
    width = metrics.bin_width(frame)
    return line_figure(
        frame,
        "Throughput per flow",
        "throughput [kbit/s]",
        note=f"in {width:g} s bins",
        labels=labels,
        legend_title="flow (controller)",
    )


# --- queues ------------------------------------------------------------------------------------


def _peer(face: str) -> Optional[str]:
    a, sep, b = face.partition("->")
    return f"{b}->{a}" if sep else None


def _summary_values(run: output.RunFolder, metric: str) -> dict[str, float]:
    s = metrics.summary_frame(run.summary).filter(pl.col("metric") == metric)
    return {e: v for e, v in zip(s["entity"].to_list(), s["value"].to_list()) if v is not None}


def _queue(run: output.RunFolder) -> pl.DataFrame:
    """Queue length of both directions of every link whose queue ever held a packet (in the
    samples or in the summary's ``max_queue_packets``); every face recorded if none did."""
    q = run.faces.filter(pl.col("metric") == "queue_packets")
    sampled = set(q["entity"].unique().to_list())
    busy = set(
        q.group_by("entity").agg(pl.col("value").max()).filter(pl.col("value") > 0)["entity"].to_list()
    )
    busy |= {f for f, v in _summary_values(run, "max_queue_packets").items() if v > 0 and f in sampled}
    shown = busy | {p for p in map(_peer, busy) if p in sampled}
    return q.filter(pl.col("entity").is_in(sorted(shown))) if shown else q


def face_direction(run: output.RunFolder, face: str) -> str:
    """Which packets the face sent most of, from the summary: "Interest" if more Interests than
    Data, else "Data" (IP and multicast faces included)."""
    data = _summary_values(run, "data_sent").get(face, 0.0)
    interests = _summary_values(run, "interests_sent").get(face, 0.0)
    return "Interest" if interests > data else "Data"


@figures.styled
def _draw_queue(run: output.RunFolder, labels: Mapping[str, str]) -> Optional["Figure"]:
    """One panel for the faces sending mostly Data, one for those sending mostly Interests."""
    frame = _queue(run)
    if frame.is_empty():
        return None
    faces = sorted(frame["entity"].unique().to_list())
    panels = [
        (words, [f for f in faces if face_direction(run, f) == direction])
        for direction, words in (("Data", "Data"), ("Interest", "Interests"))
    ]
    panels = [(d, fs) for d, fs in panels if fs]
    # The summary's exact maximum: samples can miss a short burst.
    peaks = _summary_values(run, "max_queue_packets")
    labels = {f: f"{labels.get(f, f)} (max {peaks[f]:g})" if f in peaks else labels.get(f, f) for f in faces}
    fig = figures.new_figure(1.0, figures.panel_height(len(panels), 0.275, 0.325))
    # One scale for both panels: their queues are compared.
    axes = fig.subplots(len(panels), 1, sharex=True, sharey=True, squeeze=False)[:, 0]
    for ax, (direction, fs) in zip(axes, panels):
        _lines(ax, frame.filter(pl.col("entity").is_in(fs)), legend_title="face", labels=labels)
        ax.set_title(f"Faces sending mostly {direction}", fontsize="medium")
        ax.set_ylabel("queue [packets]")
    # The shared scale holds the fullest queue of either panel.
    top = float(frame["value"].max() or 0.0)
    axes[0].set_ylim(0, top * 1.05 if top > 0 else 1.0)
    axes[-1].set_xlabel("time [s]")
    step = metrics.sample_step(frame)
    fig.suptitle(f"Queue length per face, sampled every {step:g} s" if step else "Queue length per face")
    return fig


# --- links that change ----------------------------------------------------------------------

#: At most this many faces get a panel of their own in ``capacity.png``.
MAX_CAPACITY_PANELS = 6


def _capacity(run: output.RunFolder) -> pl.DataFrame:
    """Capacity and throughput of each face whose link changes (a trace, ``[[events]]``), in
    Mbit/s per sampling interval, one line each: entity "FACE capacity" or "FACE sent" (so that
    a panel of :func:`panels_figure` draws them apart)."""
    frame = metrics.link_capacity(run.faces)
    words = pl.when(pl.col("metric") == "capacity").then(pl.lit(" capacity")).otherwise(pl.lit(" sent"))
    return frame.with_columns(entity=pl.col("entity") + words)


@figures.styled
def _draw_capacity(run: output.RunFolder, labels: Mapping[str, str]) -> Optional["Figure"]:
    """One panel per changing face: what the link offered beside what the face sent."""
    frame = metrics.link_capacity(run.faces)
    if frame.is_empty():
        return None
    faces = sorted(frame["entity"].unique().to_list())[:MAX_CAPACITY_PANELS]
    fig = figures.new_figure(1.0, figures.panel_height(len(faces), 0.25, 0.15))
    axes = fig.subplots(len(faces), 1, sharex=True, squeeze=False)[:, 0]
    for ax, face in zip(axes, faces):
        rows = frame.filter(pl.col("entity") == face)
        for metric, words, style in (("capacity", "capacity", "-"), ("throughput", "sent", "-")):
            part = rows.filter(pl.col("metric") == metric).sort("t")
            ax.step(part["t"].to_numpy(), part["value"].to_numpy(), where="pre", label=words, linestyle=style)
        top = float(rows["value"].max() or 0.0)
        ax.set_ylim(0, top * 1.05 if top > 0 else 1.0)
        ax.set_title(f"Face {labels.get(face, face)}", fontsize="medium")
        ax.set_ylabel("rate [Mbit/s]")
        ax.grid(True, alpha=0.3)
        ax.legend(loc="best")
    axes[-1].set_xlabel("time [s]")
    step = metrics.sample_step(frame)
    title = "Link capacity and throughput"
    fig.suptitle(f"{title}, per {step:g} s interval" if step else title)
    return fig


# --- RTT ---------------------------------------------------------------------------------------


def _rtt_cdf(run: output.RunFolder) -> pl.DataFrame:
    """The RTT CDF as a long table: ``t`` holds the RTT [ms], ``value`` the fraction ≤ it."""
    c = metrics.rtt_cdf(run.series)
    return c.select(t=pl.col("value"), entity=pl.col("entity"), metric=pl.lit("rtt_cdf"), value=pl.col("p"))


def _draw_rtt_cdf(run: output.RunFolder, labels: Mapping[str, str]) -> Optional["Figure"]:
    c = metrics.rtt_cdf(run.series)
    if c.is_empty():
        return None
    return cdf_figure(c, "RTT distribution per flow", "RTT [ms]", labels=labels)


FIGURES = (
    FigureSpec("window.png", "Window per flow", "window [Interests]", _window, _draw_window),
    FigureSpec("rate.png", "Sending rate per consumer", "rate [Interests/s]", _metric("rate")),
    FigureSpec(
        "rtt.png", "RTT per flow", "RTT [ms]", _metric("rtt", 1000.0), legend_title="flow (controller)"
    ),
    FigureSpec(
        "rtt_cdf.png",
        "RTT distribution per flow",
        "fraction of RTT samples",
        _rtt_cdf,
        _draw_rtt_cdf,
        over_time=False,
    ),
    FigureSpec(
        "queue.png", "Queue length per face", "queue [packets]", _queue, _draw_queue, legend_title="face"
    ),
    FigureSpec("throughput.png", "Throughput per flow", "throughput [kbit/s]", _throughput, _draw_throughput),
    FigureSpec(
        "capacity.png",
        "Link capacity and throughput",
        "rate [Mbit/s]",
        _capacity,
        _draw_capacity,
        legend_title="face",
    ),
)


# --- drawing -----------------------------------------------------------------------------------


def _lines(
    ax: Any,
    frame: pl.DataFrame,
    legend_title: Optional[str] = None,
    labels: Optional[Mapping[str, str]] = None,
) -> None:
    """One line per entity, time on the x axis; the y axis from zero for non-negative data.
    Lines are not clipped at the axes, so a line along zero stays visible on the axis."""
    entities = sorted(frame["entity"].unique().to_list())
    for entity in entities:
        rows = frame.filter(pl.col("entity") == entity).sort("t")
        label = (labels or {}).get(entity, entity)
        ax.plot(
            rows["t"].to_numpy(),
            rows["value"].to_numpy(),
            label=label,
            clip_on=False,
            zorder=3,
        )
    values = frame["value"].drop_nulls()
    if len(values) and float(values.min()) >= 0:
        top = float(values.max())
        ax.set_ylim(0, top * 1.05 if top > 0 else 1.0)
    ax.grid(True, alpha=0.3)
    if 0 < len(entities) <= MAX_LEGEND:
        ax.legend(loc="best", title=legend_title)


#: Labels of tables whose unit differs from the figure's usual one (the metric column says so).
_FALLBACK_LABELS = {"data_packets_per_s": "Data packets/s (payload size unknown)"}


@figures.styled
def line_figure(
    frame: pl.DataFrame,
    title: str,
    ylabel: str,
    note: Optional[str] = None,
    labels: Optional[Mapping[str, str]] = None,
    legend_title: Optional[str] = None,
) -> "Figure":
    """One line per entity of a long table, time on the x axis; ``note`` goes under the title;
    ``labels`` maps entities to their legend entries."""
    units = frame["metric"].unique().to_list() if "metric" in frame.columns else []
    if len(units) == 1 and units[0] in _FALLBACK_LABELS:
        ylabel = _FALLBACK_LABELS[units[0]]

    fig = figures.new_figure()
    ax = fig.add_subplot()
    _lines(ax, frame, legend_title, labels)
    ax.set_title(title if note is None else f"{title}\n{note}", fontsize="medium" if note else None)
    ax.set_xlabel("time [s]")
    ax.set_ylabel(ylabel)
    return fig


@figures.styled
def cdf_figure(
    frame: pl.DataFrame, title: str, xlabel: str, labels: Optional[Mapping[str, str]] = None
) -> "Figure":
    """Step lines of the CDFs of :func:`ndncc.metrics.cdf` (``entity``, ``value``, ``p``)."""
    fig = figures.new_figure()
    ax = fig.add_subplot()
    entities = sorted(frame["entity"].unique().to_list())
    for entity in entities:
        rows = frame.filter(pl.col("entity") == entity).sort("value")
        xs, ps = rows["value"].to_list(), rows["p"].to_list()
        # From p = 0 at the smallest value up each step.
        label = (labels or {}).get(entity, entity)
        ax.step([xs[0], *xs], [0.0, *ps], where="post", label=label)
    ax.set_ylim(0, 1.02)
    if len(frame) and float(frame["value"].min()) >= 0:
        ax.set_xlim(left=0)
    ax.set_title(title)
    ax.set_xlabel(xlabel)
    ax.set_ylabel("fraction of samples ≤ x [ratio]")
    ax.grid(True, alpha=0.3)
    if 0 < len(entities) <= MAX_LEGEND:
        ax.legend(loc="lower right", title="flow (controller)")
    return fig


@figures.styled
def panels_figure(
    panels: list[tuple[pl.DataFrame, str, str]],
    labels: Optional[Mapping[str, str]] = None,
    legend_title: Optional[str] = None,
) -> "Figure":
    """Stacked panels over one time axis, one per ``(frame, title, ylabel)``: each a line per
    entity, each with its legend."""
    fig = figures.new_figure(1.0, figures.panel_height(len(panels), 0.3, 0.1))
    axes = fig.subplots(len(panels), 1, sharex=True, squeeze=False)[:, 0]
    for ax, (frame, title, ylabel) in zip(axes, panels):
        _lines(ax, frame, legend_title, labels)
        ax.set_title(title)
        ax.set_ylabel(ylabel)
    axes[-1].set_xlabel("time [s]")
    return fig


def write_figure(path: Path, fig: "Figure") -> None:
    """Write ``fig`` to ``path`` in the format its suffix names (``.png``, ``.pdf``, ``.svg``),
    atomically and without dates or version stamps."""
    import matplotlib

    path = Path(path)
    fmt = check_format(path.suffix.lstrip(".").lower())
    # A figure of ndncc's own keeps its style; any other gets the current one. Either way PDFs
    # embed TrueType fonts, never Type 3.
    style = getattr(fig, "ndncc_style", None) or figures.current()
    with output.atomic_path(path) as tmp, matplotlib.rc_context(figures.rc(style)):
        fig.savefig(tmp, format=fmt, metadata=_METADATA[fmt])


def write_png(path: Path, fig: "Figure") -> None:
    write_figure(Path(path).with_suffix(".png"), fig)


def write_figures(
    run: output.RunFolder,
    format: str = "png",
    labels: Optional[Mapping[str, str]] = None,
    style: Optional[str] = None,
) -> list[tuple[str, str]]:
    """Draw every figure that has data in ``format`` (and ``style``, see :mod:`ndncc.figures`;
    ``labels`` maps entities to legend entries); return ``(file name, title)`` of those written."""
    check_format(format)
    written = []
    for spec in FIGURES:
        with figures.style(style):
            fig = spec.figure(run, labels)
        if fig is None:
            continue
        name = file_name(spec, format)
        write_figure(run.path / name, fig)
        written.append((name, spec.title))
    return written


#: Every file name :func:`write_figures` may write, in every format.
FIGURE_FILES = frozenset(file_name(spec, fmt) for spec in FIGURES for fmt in FORMATS)
