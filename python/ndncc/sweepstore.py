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
goes through a temporary name and a rename. The parts read as one hive-partitioned Parquet
dataset: ``pl.scan_parquet("DIR/runs/*/part.parquet", hive_partitioning=True)`` adds ``key``.
"""

from __future__ import annotations

import json
from contextlib import contextmanager
from pathlib import Path
from typing import Iterator, Mapping, Optional

import polars as pl

from . import output
from .errors import BadInput

PLAN = "sweep.json"
RUNS = "runs"
FAILED = "failed"
AGGREGATE = "aggregate.parquet"
PART = "part.parquet"
LOCK = ".lock"

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

    def write_plan(self, plan: dict) -> None:
        output.write_json(self.root / PLAN, plan)

    def read_plan(self) -> dict:
        path = self.root / PLAN
        if not path.is_file():
            raise FileNotFoundError(f"{path}: missing; is {self.root} a sweep folder?")
        return json.loads(path.read_text(encoding="utf-8"))

    def write_aggregate(self, table: pl.DataFrame) -> None:
        output.write_parquet(self.root / AGGREGATE, table)

    def read_part(self, key: str) -> Optional[pl.DataFrame]:
        d = self.run_dir(key)
        if not (d / output.MANIFEST).is_file():
            return None
        return pl.read_parquet(d / PART, columns=["seed", "entity", "kind", "metric", "value", "unit"])


def is_sweep_folder(path: Path) -> bool:
    return (Path(path) / PLAN).is_file()
