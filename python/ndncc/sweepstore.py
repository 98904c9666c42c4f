"""A sweep's folder on disk.

```
DIR/
  sweep.json                      the plan: scenario, axes, seeds, every run's key and point
  runs/key=<key>/part.parquet     one run's summary rows (a partition of the run dataset)
  runs/key=<key>/manifest.json    the run's resolved scenario, overrides, seed, wall time
  runs/key=<key>/series.parquet   with --keep-series: time series (and faces.parquet)
  failed/<key>.json               why a run failed (removed once it succeeds)
  aggregate.parquet               mean and 95% CI per grid point, entity and metric
```

A run is finished when its ``manifest.json`` exists: the driver writes it last, and every file
goes through a temporary name and a rename. The manifest records the row count of each Parquet
file, so that a resumed sweep can tell a damaged run (a file cut short or overwritten since) from
a finished one, and run it again. The parts read as one hive-partitioned Parquet dataset:
``pl.scan_parquet("DIR/runs/*/part.parquet", hive_partitioning=True)`` adds ``key``.
"""

from __future__ import annotations

import re
from contextlib import contextmanager
from pathlib import Path
from typing import Any, Iterator, Mapping, Optional

import polars as pl

from . import output
from .errors import BadInput, DamagedFile, MissingFile, one_line

PLAN = "sweep.json"
RUNS = "runs"
FAILED = "failed"
AGGREGATE = "aggregate.parquet"
PART = "part.parquet"
LOCK = ".lock"

#: Columns of a run's ``part.parquet`` that the sweep reads back, with their types.
PART_SCHEMA = {
    "seed": pl.Int64,
    "entity": pl.String,
    "kind": pl.String,
    "metric": pl.String,
    "value": pl.Float64,
    "unit": pl.String,
}

#: A run key names a folder inside ``runs/``, so it may not hold a dot or a slash.
KEY = re.compile(r"[A-Za-z0-9_-]+")

try:
    import fcntl
except ImportError:  # pragma: no cover - not POSIX
    fcntl = None  # type: ignore[assignment]


class Store:
    def __init__(self, root: Path):
        self.root = Path(root)

    def run_dir(self, key: str) -> Path:
        return self.root / RUNS / f"key={key}"

    def failure_path(self, key: str) -> Path:
        return self.root / FAILED / f"{key}.json"

    def is_done(self, key: str, keep_series: bool = False) -> bool:
        d = self.run_dir(key)
        needed = [output.MANIFEST, PART] + ([output.SERIES, output.FACES] if keep_series else [])
        return all((d / name).is_file() for name in needed)

    def has_manifest(self, key: str) -> bool:
        return (self.run_dir(key) / output.MANIFEST).is_file()

    def damage(self, key: str, keep_series: bool = False) -> Optional[str]:
        """Why a finished run's files cannot be used (``None`` if they can): the manifest must
        read, the part must read whole, the time series (when kept and there) must have a
        readable footer, and each file must have the row count the manifest records for it."""
        d = self.run_dir(key)
        series = [output.SERIES, output.FACES] if keep_series else []
        try:
            manifest = output.read_json(d / output.MANIFEST)
            if not isinstance(manifest, dict):
                raise DamagedFile(f"{d / output.MANIFEST}: expected a JSON object")
            rows = {PART: self._read_part(d / PART).height}
            # A run made without the time series lacks them: not damage, but not done either.
            rows.update((name, _row_count(d / name)) for name in series if (d / name).is_file())
        except BadInput as e:
            return str(e)
        recorded = manifest.get("rows")
        for name, n in rows.items():
            expected = recorded.get(name) if isinstance(recorded, dict) else None
            if expected is not None and expected != n:
                return f"{d / name}: {n} rows where the manifest records {expected}"
        return None

    def discard(self, key: str) -> None:
        """Forget a run: the manifest goes first, so that the run no longer counts as finished."""
        d = self.run_dir(key)
        (d / output.MANIFEST).unlink(missing_ok=True)
        for f in d.glob("*"):
            if f.is_file():
                f.unlink(missing_ok=True)

    @contextmanager
    def locked(self) -> Iterator["Store"]:
        """Hold the folder for one sweep at a time; the lock goes with the process, even killed."""
        self.root.mkdir(parents=True, exist_ok=True)
        with open(self.root / LOCK, "a+") as f:
            if fcntl is not None:
                try:
                    fcntl.flock(f.fileno(), fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    raise BadInput(f"{self.root}: another sweep is writing into this folder") from None
            yield self

    def tidy(self) -> None:
        """Remove temporary files a killed sweep left behind (call with the lock held)."""
        for pattern in (f"{RUNS}/*/*.tmp-*", f"{FAILED}/*.tmp-*", "*.tmp-*"):
            for tmp in self.root.glob(pattern):
                tmp.unlink(missing_ok=True)

    def write_run(self, key: str, files: Mapping[str, bytes]) -> None:
        """Write a run's files, the manifest last: until it is there, the run is not finished."""
        d = self.run_dir(key)
        d.mkdir(parents=True, exist_ok=True)
        for name, data in files.items():
            if name != output.MANIFEST:
                output.write_bytes(d / name, data)
        output.write_bytes(d / output.MANIFEST, files[output.MANIFEST])
        self.failure_path(key).unlink(missing_ok=True)

    def write_failure(self, key: str, record: dict) -> None:
        path = self.failure_path(key)
        path.parent.mkdir(parents=True, exist_ok=True)
        output.write_json(path, record)

    def read_failure(self, key: str) -> Optional[dict]:
        """The record of a failed run (``None`` if there is none); :class:`DamagedFile` if it
        does not read back as a JSON object."""
        path = self.failure_path(key)
        if not path.is_file():
            return None
        record = output.read_json(path)
        if not isinstance(record, dict):
            raise DamagedFile(f"{path}: expected a JSON object")
        return record

    def write_plan(self, plan: dict) -> None:
        output.write_json(self.root / PLAN, plan)

    def read_plan(self) -> dict:
        path = self.root / PLAN
        if not path.is_file():
            raise MissingFile(f"{path}: missing; is {self.root} a sweep folder?")
        plan = output.read_json(path)
        problem = plan_problem(plan)
        if problem:
            raise DamagedFile(f"{path}: {problem}")
        return plan

    def write_aggregate(self, table: pl.DataFrame) -> None:
        output.write_parquet(self.root / AGGREGATE, table)

    def read_part(self, key: str) -> Optional[pl.DataFrame]:
        """A finished run's summary rows (``None`` if it is not finished); :class:`DamagedFile`
        if its part cannot be read."""
        d = self.run_dir(key)
        if not (d / output.MANIFEST).is_file():
            return None
        try:
            return self._read_part(d / PART)
        except BadInput as e:
            raise DamagedFile(f"{e}; running the sweep again repairs it") from None

    @staticmethod
    def _read_part(path: Path) -> pl.DataFrame:
        if not path.is_file():
            raise MissingFile(f"{path}: missing")
        return output.read_parquet(path, PART_SCHEMA)

    def check_folder(self) -> None:
        """Refuse a folder that holds something other than a sweep (say, a typo for another
        folder), since a sweep writes into it without replacing it."""
        if self.root.is_dir():
            others = [p.name for p in self.root.iterdir() if p.name != LOCK]
            if others and not is_sweep_folder(self.root):
                raise BadInput(f"{self.root}: not empty and not a sweep folder; choose another --out")
        elif self.root.exists():
            raise BadInput(f"{self.root}: exists and is not a folder")


def _row_count(path: Path) -> int:
    """The rows of a Parquet file, from its footer alone."""
    if not path.is_file():
        raise MissingFile(f"{path}: missing")
    try:
        return pl.scan_parquet(path).select(pl.len()).collect().item()
    except Exception as e:  # polars reports a damaged file with several of its own error types
        raise DamagedFile(f"{path}: not a readable Parquet file ({one_line(str(e))})") from None


def _is_strings(value: Any) -> bool:
    return isinstance(value, list) and all(isinstance(v, str) for v in value)


def _is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


def plan_problem(plan: Any) -> Optional[str]:
    """What is wrong with a ``sweep.json`` read back, in the parts that aggregating and plotting
    rely on; ``None`` if nothing is."""
    if not isinstance(plan, dict):
        return "expected a JSON object"
    return (
        _fields_problem(plan)
        or _axes_problem(plan.get("axes"))
        or _plot_problem(plan.get("plot"))
        or (_runs_problem(plan.get("runs"), plan["axes"]))
    )


def _fields_problem(plan: dict) -> Optional[str]:
    for key in ("name", "source"):
        if not isinstance(plan.get(key), str):
            return f"{key}: expected a string"
    seeds = plan.get("seeds")
    if not isinstance(seeds, list) or not all(isinstance(s, int) and not isinstance(s, bool) for s in seeds):
        return "seeds: expected a list of integers"
    if not _is_strings(plan.get("overrides", [])):
        return "overrides: expected a list of strings"
    if plan.get("metrics") is not None and not _is_strings(plan["metrics"]):
        return "metrics: expected a list of strings"
    return None


def _axes_problem(axes: Any) -> Optional[str]:
    if not isinstance(axes, list):
        return "axes: expected a list"
    for i, a in enumerate(axes):
        ok = isinstance(a, dict) and isinstance(a.get("name"), str)
        if not (ok and _is_strings(a.get("keys")) and _is_strings(a.get("labels"))):
            return f"axes[{i}]: expected a name, keys and labels"
        if len(set(a["labels"])) != len(a["labels"]):
            return f"axes[{i}]: a value is listed twice"
    return None


def _plot_problem(plot: Any) -> Optional[str]:
    if plot is None:
        return None
    if not isinstance(plot, dict) or not isinstance(plot.get("x"), (str, type(None))):
        return "plot: expected a table with x (an axis name or null) and guides"
    guides = plot.get("guides") or {}
    if not isinstance(guides, dict) or not all(_is_number(v) for v in guides.values()):
        return "plot.guides: expected metric names with exponents"
    return None


def _runs_problem(runs: Any, axes: list[dict]) -> Optional[str]:
    """Every run needs a key that is a plain folder name, a seed, and a label on each axis."""
    if not isinstance(runs, list):
        return "runs: expected a list"
    labels = {a["name"]: set(a["labels"]) for a in axes}
    for i, run in enumerate(runs):
        ok = (
            isinstance(run, dict)
            and isinstance(run.get("key"), str)
            and KEY.fullmatch(run["key"]) is not None
            and isinstance(run.get("seed"), int)
            and isinstance(run.get("point"), dict)
            and set(run["point"]) == set(labels)
            and all(run["point"][n] in labels[n] for n in labels)
        )
        if not ok:
            return f"runs[{i}]: expected a key (letters, digits, - and _), a seed and a point on the axes"
    return None


def is_sweep_folder(path: Path) -> bool:
    return (Path(path) / PLAN).is_file()
