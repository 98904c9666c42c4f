"""`Result`: what a run produced, as polars DataFrames, and how to save it; `SavedRun`: the same
read back from a run folder (:func:`open_run`)."""

from __future__ import annotations

import os
import shutil
import warnings
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Iterable, Optional, Union

import numpy as np
import polars as pl

from . import _core, arguments, display, output, plots
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

    def plot(self, what: str = "throughput", entity: Selector = None) -> "Figure":
        """A matplotlib ``Figure``: one of the figures of the run's report, by the name of its
        file (``throughput``, ``window``, ``rate``, ``rtt``, ``queue``, …), or any metric of
        :meth:`series` (else of :meth:`faces`) over time, one line per entity. ``entity`` keeps
        only the apps or faces named."""
        figures = {Path(spec.file).stem: spec for spec in plots.FIGURES}
        if what in figures:
            series, faces = select(self._series, entity=entity), select(self._faces, entity=entity)
            fig = figures[what].figure(output.RunFolder(Path("."), {}, self._summary_rows(), series, faces))
        else:
            # A metric both tables record (marks) is the apps'; faces() has the faces'.
            frame = self.series(what)
            frame = frame if not frame.is_empty() else self.faces(what)
            if frame.is_empty():
                metrics = sorted(set(self._series["metric"]) | set(self._faces["metric"]))
                raise BadInput(
                    f"plot {what!r}: expected a figure ({', '.join(figures)}) or a metric of this run "
                    f"({', '.join(metrics) or 'none recorded'})"
                )
            frame = select(frame, entity=entity)
            fig = None if frame.is_empty() else plots.line_figure(frame, what, what)
        if fig is None:
            named = entity if isinstance(entity, str) else ", ".join(entity or [])
            raise BadInput(f"plot {what!r}: no data for {named or 'this run'}")
        return fig

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

    def __repr__(self) -> str:
        return f"SavedRun({str(self.path)!r}, seed={self.seed}, packet_hops={self.stats.packet_hops})"


def open_run(path: Union[str, Path]) -> SavedRun:
    """Read a run folder written by :meth:`Result.save` (or ``ndncc run``)."""
    return SavedRun(path)
