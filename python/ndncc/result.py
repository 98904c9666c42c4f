"""`Result`: what a run produced, as polars DataFrames, and how to save it; `SavedRun`: the same
read back from a run folder (:func:`open_run`)."""

from __future__ import annotations

import os
import shutil
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Mapping, Optional, Sequence, Union

import numpy as np
import polars as pl

from . import _core, arguments, display, metrics, output, plots
from .errors import BadInput, NdnccWarning
from .report import render_run

if TYPE_CHECKING:
    from matplotlib.figure import Figure

    from .scenario import Scenario

Selector = Union[str, Iterable[str], None]

SUMMARY_SCHEMA = {
    "entity": pl.String,
    "kind": pl.String,
    "metric": pl.String,
    "value": pl.Float64,
    "unit": pl.String,
}


@dataclass(frozen=True)
class RunStats:
    """How much the engine did, and how long it took."""

    sim_seconds: float
    wall_seconds: float
    events: int
    packet_hops: int


def _dense_ranks(names: list[str]) -> np.ndarray:
    """Each name's rank in sorted order, equal names ranking equal (Python orders strings by code
    point, as polars orders them by UTF-8 bytes)."""
    rank = {name: r for r, name in enumerate(sorted(set(names)))}
    return np.array([rank[n] for n in names], dtype=np.int64)


def in_long_order(table: _core.LongTableDict) -> bool:
    """Whether a core long table's rows are in the one order of long tables
    (:func:`ndncc.output.sort_long`): by entity name, metric name, then time. The engine hands
    them over so; checked on integer codes, this costs a fraction of sorting by the strings."""
    if len(table["t"]) < 2:
        return True
    entity = _dense_ranks(table["entities"])[table["entity"]]
    metric = _dense_ranks(table["metrics"])[table["metric"]]
    key = entity * max(len(table["metrics"]), 1) + metric
    step, dt = np.diff(key), np.diff(table["t"])
    return bool(np.all((step > 0) | ((step == 0) & (dt >= 0))))


def long_frame(table: _core.LongTableDict) -> pl.DataFrame:
    """A core long table (index columns plus name lists) as a DataFrame with string columns, in
    the one order of long tables: a table out of it is sorted into it. A run's tables say they
    are in it (``ordered``: ``LongTable`` in ``ndncc-core`` puts them in it as the rows are taken
    out of the recorder), which saves the check."""
    entities = pl.Series("entity", table["entities"], dtype=pl.String)
    metrics = pl.Series("metric", table["metrics"], dtype=pl.String)
    frame = pl.DataFrame(
        {
            "t": pl.Series("t", table["t"], dtype=pl.Float64),
            "entity": entities.gather(table["entity"]),
            "metric": metrics.gather(table["metric"]),
            "value": pl.Series("value", table["value"], dtype=pl.Float64),
        }
    )
    return frame if table.get("ordered") or in_long_order(table) else output.sort_long(frame)


def warm_up() -> None:
    """Build and write a two-row table as a run's tables are (:func:`long_frame`, then
    :func:`ndncc.output.encode_parquet`, to the null device), so that their first real call finds
    polars' code paged in (see :func:`ndncc.preload.importing`)."""
    table: _core.LongTableDict = {
        "t": np.array([0.0, 1.0]),
        "entity": np.zeros(2, dtype=np.uint32),
        "metric": np.zeros(2, dtype=np.uint32),
        "value": np.array([0.0, 1.0]),
        "entities": ["warm"],
        "metrics": ["up"],
        "ordered": True,
    }
    output.encode_parquet(long_frame(table), os.devnull)


def select(frame: pl.DataFrame, metric: Selector = None, entity: Selector = None) -> pl.DataFrame:
    """Rows of a long table whose metric and entity are among those named (``None``: all)."""
    for column, wanted in (("metric", metric), ("entity", entity)):
        names = arguments.optional_texts(wanted, column)
        if names is not None:
            frame = frame.filter(pl.col(column).is_in(names))
    return frame


class RunTables:
    """What a run offers, whether it just ran (:class:`Result`) or is read back from its folder
    (:class:`SavedRun`): its summary, its time series, figures, and a short display."""

    name: str
    seed: int
    stats: RunStats
    summary: pl.DataFrame
    _series: pl.DataFrame
    _faces: pl.DataFrame

    def series(self, metric: Selector = None, entity: Selector = None) -> pl.DataFrame:
        """Per-app time series in long format: ``t`` [s], ``entity``, ``metric``, ``value``."""
        return select(self._series, metric, entity)

    def faces(self, metric: Selector = None, entity: Selector = None) -> pl.DataFrame:
        """Per-face time series (queue length, bytes, drops, marks) in the same long format."""
        return select(self._faces, metric, entity)

    def plot(
        self,
        what: Union[str, Sequence[str]] = "throughput",
        entity: Selector = None,
        labels: Optional[Mapping[str, str]] = None,
        style: Optional[str] = None,
    ) -> "Figure":
        """A matplotlib ``Figure``: one of the figures of the run's report, by the name of its
        file (``throughput``, ``window``, ``rate``, ``rtt``, ``queue``, …), or any metric of
        :meth:`series` (else of :meth:`faces`) over time, one line per entity, its unit on the
        axis. A list of names stacks one panel per name over a shared time axis. ``entity``
        keeps only the apps or faces named; ``labels`` maps entities to legend entries (default:
        each app with its controller, "C1 (aimd)"); ``style`` is ``"screen"`` (default) or
        ``"paper"`` (see :mod:`ndncc.figures`)."""
        from . import figures

        names = arguments.texts(what, "what") if not isinstance(what, str) else [what]
        if not names:
            raise BadInput("plot: expected a figure or metric name, or a list of them")
        shown = {**plots.entity_labels(self._scenario_dict()), **plots.check_labels(labels)}
        with figures.style(style):
            if len(names) == 1:
                return self._one_figure(names[0], entity, shown)
            panels = [self._panel(name, entity, shown) for name in names]
            return plots.panels_figure(panels, shown)

    def _figure_specs(self) -> dict[str, plots.FigureSpec]:
        return {Path(spec.file).stem: spec for spec in plots.FIGURES}

    def _run_folder(self, entity: Selector) -> output.RunFolder:
        series, faces = select(self._series, entity=entity), select(self._faces, entity=entity)
        manifest = {"scenario": self._scenario_dict()}
        return output.RunFolder(Path("."), manifest, self._summary_rows(), series, faces)

    def _metric_frame(self, what: str, entity: Selector) -> tuple[pl.DataFrame, str]:
        """A metric's rows (the apps' if both tables record it, as marks) and its axis label."""
        frame = self.series(what)
        kinds = plots.entity_kinds(self._scenario_dict())
        if frame.is_empty():
            frame = self.faces(what)
        if frame.is_empty():
            figures_ = self._figure_specs()
            recorded = sorted(set(self._series["metric"]) | set(self._faces["metric"]))
            raise BadInput(
                f"plot {what!r}: expected a figure ({', '.join(figures_)}) or a metric of this run "
                f"({', '.join(recorded) or 'none recorded'})"
            )
        entities = set(frame["entity"].unique().to_list())
        unit = metrics.series_unit(what, {kinds.get(e, "face") for e in entities})
        unit = unit or self._controller_units().get(what)
        return select(frame, entity=entity), metrics.metric_label(what, unit) if unit else what

    def _one_figure(self, what: str, entity: Selector, labels: Mapping[str, str]) -> "Figure":
        specs = self._figure_specs()
        if what in specs:
            fig = specs[what].figure(self._run_folder(entity), labels)
        else:
            frame, ylabel = self._metric_frame(what, entity)
            fig = None if frame.is_empty() else plots.line_figure(frame, what, ylabel, labels=labels)
        if fig is None:
            self._no_data(what, entity)
        return fig

    def _panel(self, what: str, entity: Selector, labels: Mapping[str, str]) -> tuple[pl.DataFrame, str, str]:
        specs = self._figure_specs()
        if what in specs:
            spec = specs[what]
            if not spec.over_time:
                raise BadInput(f"plot {what!r}: not over time, so it cannot be a panel of a list")
            frame = spec.data(self._run_folder(entity))
            title, ylabel = spec.title, spec.ylabel
            if what == "window" and not frame.is_empty():
                ylabel = plots._window_label(frame)
        else:
            frame, ylabel = self._metric_frame(what, entity)
            title = what
        if frame.is_empty():
            self._no_data(what, entity)
        return frame, title, ylabel

    @staticmethod
    def _no_data(what: str, entity: Selector) -> None:
        named = entity if isinstance(entity, str) else ", ".join(entity or [])
        raise BadInput(f"plot {what!r}: no data for {named or 'this run'}")

    def _scenario_dict(self) -> dict:
        """The resolved scenario (legends name each app's controller from it)."""
        return {}

    def _controller_units(self) -> dict[str, str]:
        """Units of the series the run's Python controllers record (their ``units``)."""
        from .controllers import series_units

        return series_units(self._scenario_dict())

    def _summary_rows(self) -> list[dict]:
        """The summary as ``summary.json`` rows (some figures read it beside the series)."""
        return output.summary_rows(self.summary, self.name)

    def _headline(self) -> str:
        s = self.stats
        return (
            f"{self.name}, seed {self.seed}: {s.sim_seconds:g} s simulated in {s.wall_seconds:.3g} s, "
            f"{s.events:,} events, {s.packet_hops:,} packet hops"
        )

    def _repr_html_(self) -> str:
        title = f"{type(self).__name__} {self._headline()}"
        return display.html_table(output.order_summary(self.summary), title)


class LimitReached(NdnccWarning):
    """A run reached one of the engine's memory limits (docs/robustness.md): a consumer's
    Interests in flight, or the rows of per-packet events."""


def limits_reached(summary: pl.DataFrame) -> list[str]:
    """What the summary says of the memory limits the run reached, one sentence each."""
    value = {(e, m): v for e, m, v in summary.select("entity", "metric", "value").iter_rows()}
    said = []
    for (entity, metric), limit in sorted(value.items()):
        if metric == "in_flight_limit":
            at = value.get((entity, "in_flight_limit_reached_s"), float("nan"))
            said.append(
                f"consumer {entity} reached its limit of {limit:,.0f} Interests in flight at {at:g} s: "
                "its network holds and answers no more within a lifetime, so it sent only as Interests "
                "ended (docs/robustness.md)"
            )
    until = value.get(("run", "events_recorded_until_s"))
    if until is not None:
        said.append(
            f"per-packet events were recorded until {until:g} s only: the series reached its "
            "10,000,000 rows (docs/robustness.md); set [record] events = false, or shorten the run"
        )
    return said


class Result(RunTables):
    """The output of :meth:`Scenario.run`."""

    def __init__(self, raw: _core.RunDict, scenario: "Scenario", trace: Optional[Path] = None):
        self.scenario = scenario
        #: The packet trace this run wrote (pcapng), if any; ``save`` copies it into the folder.
        self.trace: Optional[Path] = trace
        #: Packets and drops the trace recorded, by face name.
        self.trace_counts: dict[str, tuple[int, int]] = dict(raw.get("trace") or {})
        self.seed: int = raw["seed"]
        self.stats = RunStats(**raw["stats"])
        self.summary: pl.DataFrame = pl.DataFrame(raw["summary"], schema=SUMMARY_SCHEMA)
        self._series = long_frame(raw["series"])
        self._faces = long_frame(raw["faces"])
        #: The memory limits the run reached, one sentence each (each is also warned of).
        self.limits: list[str] = limits_reached(self.summary)
        for sentence in self.limits:
            warnings.warn(LimitReached(f"{scenario.name}: {sentence}"), stacklevel=3)

    @property
    def name(self) -> str:
        return self.scenario.name

    def _scenario_dict(self) -> dict:
        return self.scenario.to_dict()

    def manifest(self, variant: Optional[str] = None) -> dict:
        """What ``manifest.json`` records: version, resolved scenario, seed, and run statistics."""
        return {
            "ndncc_version": _core.__version__,
            "name": self.scenario.name,
            "variant": variant or self.scenario.name,
            "seed": self.seed,
            "overrides": list(self.scenario.overrides),
            **asdict(self.stats),
            "scenario": self.scenario.to_dict(),
        }

    def save(
        self,
        out_dir: Union[str, Path],
        variant: Optional[str] = None,
        paper: Optional[output.PaperValues] = None,
        figures: bool = True,
        overwrite: bool = False,
    ) -> list[dict]:
        """Write the output folder (data, figures and ``report.md``) as a whole.

        ``variant`` labels the rows of ``summary.json`` (default: the scenario's name); ``paper``
        maps ``(flow, metric)`` to the seed paper's figure; ``figures=False`` leaves the figures
        out (``ndncc plot DIR`` draws them later). Returns the rows written.

        The folder is filled under a temporary name beside ``out_dir`` and then renamed into
        place, replacing an earlier run folder entirely (no stale figures stay behind). A folder
        holding anything else is refused unless ``overwrite`` is true.
        """
        arguments.flag(figures, "figures")
        arguments.flag(overwrite, "overwrite")
        rows = output.summary_rows(self.summary, variant or self.scenario.name, paper)
        manifest = self.manifest(variant)
        with output.atomic_folder(out_dir, output.is_run_folder, overwrite) as out:
            output.write_parquet(out / output.SERIES, self._series)
            output.write_parquet(out / output.FACES, self._faces)
            output.write_summary(out / output.SUMMARY, rows)
            output.write_json(out / output.MANIFEST, manifest)
            if self.trace is not None and self.trace.exists():
                shutil.copyfile(self.trace, out / output.TRACE)
            render_run(output.RunFolder(out, manifest, rows, self._series, self._faces), figures=figures)
        return rows

    def __repr__(self) -> str:
        return (
            f"Result(scenario={self.scenario.name!r}, seed={self.seed}, "
            f"events={self.stats.events}, packet_hops={self.stats.packet_hops})"
        )


class SavedRun(RunTables):
    """A run read back from its output folder (see :func:`open_run`): the same ``summary``,
    :meth:`series`, :meth:`faces` and :meth:`plot` as a :class:`Result`, and the ``manifest``."""

    def __init__(self, path: Union[str, Path]):
        run = output.read_run(Path(path))
        self.path = run.path
        self.manifest: dict = run.manifest
        self.name: str = run.manifest["name"]
        self.seed: int = run.manifest["seed"]
        stats = {k: run.manifest[k] for k in ("sim_seconds", "wall_seconds", "events", "packet_hops")}
        self.stats = RunStats(**stats)
        rows = [
            {"entity": r["flow"], "kind": None, "metric": r["metric"], "value": r["value"], "unit": r["unit"]}
            for r in run.summary
        ]
        self.summary: pl.DataFrame = pl.DataFrame(rows, schema=SUMMARY_SCHEMA)
        self._rows = run.summary
        self._series = run.series
        self._faces = run.faces

    def _summary_rows(self) -> list[dict]:
        return self._rows

    def _scenario_dict(self) -> dict:
        return self.manifest.get("scenario") or {}

    def __repr__(self) -> str:
        return f"SavedRun({str(self.path)!r}, seed={self.seed}, packet_hops={self.stats.packet_hops})"


def open_run(path: Union[str, Path]) -> SavedRun:
    """Read a run folder written by :meth:`Result.save` (or ``ndncc run``)."""
    return SavedRun(path)
