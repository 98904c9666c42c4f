"""Writers and readers for a run's output folder.

Every file is written atomically: first to ``<name>.tmp-<pid>`` beside it, then renamed over the
final name, so a crash leaves either the old file or the new one, never half of one.

``summary.json`` and ``series.parquet`` carry no timestamps and are written with fixed settings, so
the same scenario and seed give the same bytes.
"""

from __future__ import annotations

import io
import json
import math
import os
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Iterator, Mapping, Optional, Sequence

import polars as pl

MANIFEST = "manifest.json"
SUMMARY = "summary.json"
SERIES = "series.parquet"
FACES = "faces.parquet"
REPORT = "report.md"

#: Keys of one ``summary.json`` row, in the order they are written.
SUMMARY_FIELDS = ("variant", "flow", "metric", "value", "paper", "unit")

#: Long-format column order of ``series.parquet`` and ``faces.parquet``.
LONG_COLUMNS = ("t", "entity", "metric", "value")

#: Order of summary rows by the kind of entity they describe; unknown kinds come last.
KIND_ORDER = ("consumer", "producer", "face", "run")

_PARQUET_SETTINGS = dict(compression="zstd", compression_level=3, statistics=True, row_group_size=262_144)

PaperValues = Mapping[tuple[str, str], float]


@contextmanager
def atomic_path(path: Path) -> Iterator[Path]:
    """Yield a temporary path to write; on success it replaces ``path``, on failure it is removed."""
    path = Path(path)
    tmp = path.with_name(f"{path.name}.tmp-{os.getpid()}")
    try:
        yield tmp
        os.replace(tmp, path)
    finally:
        if tmp.exists():
            tmp.unlink()


def write_bytes(path: Path, data: bytes) -> None:
    with atomic_path(path) as tmp:
        tmp.write_bytes(data)


def write_text(path: Path, text: str) -> None:
    write_bytes(path, text.encode("utf-8"))


def write_json(path: Path, obj: Any) -> None:
    write_text(path, json.dumps(obj, indent=2, ensure_ascii=False, allow_nan=False) + "\n")


def write_parquet(path: Path, frame: pl.DataFrame) -> None:
    write_bytes(path, parquet_bytes(frame))


def parquet_bytes(frame: pl.DataFrame) -> bytes:
    """A table as Parquet, with the fixed settings that make equal tables give equal bytes."""
    buf = io.BytesIO()
    frame.rechunk().write_parquet(buf, **_PARQUET_SETTINGS)
    return buf.getvalue()


def sort_long(frame: pl.DataFrame) -> pl.DataFrame:
    """The one row order of long tables: by entity, metric, then time."""
    return frame.select(LONG_COLUMNS).sort(["entity", "metric", "t"], maintain_order=True)


def _number(x: Optional[float]) -> Optional[float]:
    """JSON has no NaN or infinity: an undefined figure is written as null."""
    if x is None:
        return None
    x = float(x)
    return x if math.isfinite(x) else None


def order_summary(summary: pl.DataFrame) -> pl.DataFrame:
    """A run's summary rows in their one order: consumers, producers, faces, the run; each by
    entity and metric."""
    rank = pl.col("kind").replace_strict(KIND_ORDER, range(len(KIND_ORDER)), default=len(KIND_ORDER))
    return summary.sort([rank, pl.col("entity"), pl.col("metric")], maintain_order=True)


def summary_rows(summary: pl.DataFrame, variant: str, paper: Optional[PaperValues] = None) -> list[dict]:
    """Turn a run's summary (entity, kind, metric, value, unit) into ``summary.json`` rows,
    consumers first, then producers, faces and the run, each by name and metric.

    ``paper`` maps ``(flow, metric)`` to the figure the seed paper reports for it.
    """
    paper = dict(paper or {})
    rows = []
    for r in order_summary(summary).iter_rows(named=True):
        key = (r["entity"], r["metric"])
        rows.append(
            {
                "variant": variant,
                "flow": r["entity"],
                "metric": r["metric"],
                "value": _number(r["value"]),
                "paper": _number(paper.pop(key, None)),
                "unit": r["unit"],
            }
        )
    if paper:
        unknown = ", ".join(f"{f}/{m}" for f, m in sorted(paper))
        raise ValueError(f"paper values name no summary row: {unknown}")
    return rows


def check_summary_rows(rows: Sequence[Mapping[str, Any]]) -> list[dict]:
    """Validate rows against the ``summary.json`` schema; return them as plain dicts in key order."""
    checked = []
    for i, row in enumerate(rows):
        if set(row) != set(SUMMARY_FIELDS):
            raise ValueError(f"summary row {i} has keys {sorted(row)}, expected {list(SUMMARY_FIELDS)}")
        for key in ("variant", "flow", "metric", "unit"):
            if not isinstance(row[key], str):
                raise ValueError(f"summary row {i}: {key} must be a string, not {row[key]!r}")
        for key in ("value", "paper"):
            v = row[key]
            if v is not None and (isinstance(v, bool) or not isinstance(v, (int, float))):
                raise ValueError(f"summary row {i}: {key} must be a number or null, not {v!r}")
        checked.append({k: (_number(row[k]) if k in ("value", "paper") else row[k]) for k in SUMMARY_FIELDS})
    return checked


def write_summary(path: Path, rows: Sequence[Mapping[str, Any]]) -> None:
    write_json(path, check_summary_rows(rows))


@dataclass(frozen=True)
class RunFolder:
    """The data files of a saved run, read back."""

    path: Path
    manifest: dict
    summary: list[dict]
    series: pl.DataFrame
    faces: pl.DataFrame


def read_run(path: Path) -> RunFolder:
    """Read a run folder written by :meth:`ndncc.Result.save`."""
    path = Path(path)
    if not path.is_dir():
        raise FileNotFoundError(f"{path}: no such folder")
    for name in (MANIFEST, SUMMARY, SERIES, FACES):
        if not (path / name).is_file():
            raise FileNotFoundError(f"{path / name}: missing; is {path} a run folder?")
    return RunFolder(
        path=path,
        manifest=json.loads((path / MANIFEST).read_text(encoding="utf-8")),
        summary=json.loads((path / SUMMARY).read_text(encoding="utf-8")),
        series=pl.read_parquet(path / SERIES),
        faces=pl.read_parquet(path / FACES),
    )
