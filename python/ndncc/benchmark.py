"""The engine benchmark (``ndncc bench``), each scenario in a Python process of its own, and
the timing of ``ndncc run`` end to end against the engine's own time (``ndncc bench --command``).

A process's peak memory only ever grows, and memory a finished run gave back stays with the
process, so a second benchmark in the same process would report the first one's peak (the
10,000-consumer case's, for every scale case after it). A fresh interpreter per scenario makes
each ``peak_rss_mb`` that scenario's: the engine's state and recorded rows, plus the
interpreter with ndncc imported (about 15 MB: polars and numpy are not loaded).
"""

from __future__ import annotations

import json
import os
import statistics
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from . import _core

#: The shipped scenario ``ndncc bench --command`` runs: an E4 run, as the speed target names.
COMMAND_SCENARIO = "e4-ndnsim.toml"
#: Timed runs of it, after one untimed run that warms the file cache and the bytecode.
COMMAND_RUNS = 5

#: Most runs of each scenario ``ndncc bench --repeat`` takes.
MAX_REPEAT = 100

#: What a run measures of the machine rather than of the simulation: these vary from run to
#: run, and a repeated benchmark reports their medians.
TIMED = ("wall_seconds", "setup_seconds", "ns_per_hop", "packet_hops_per_s", "peak_rss_mb", "run_page_faults")

#: What a run simulates: the same in every run of one scenario, or the engine is not
#: deterministic.
SIMULATED = ("sim_seconds", "events", "packet_hops", "recorded_rows", "recorded_mb")


def run_alone(name: str, duration: float, record: bool = True) -> dict:
    """Benchmark ``name`` for ``duration`` simulated seconds in a fresh interpreter and return its
    measurement (:func:`ndncc._core.bench`'s dict); without its samples unless ``record``. The
    name and duration must have been checked: a failure in the child is an
    :class:`ndncc.InternalError` carrying its last line."""
    # The child's lifeline: it reads end-of-file once this process is gone, however it ended
    # (Ctrl-C reaches both; a parent killed outright must not leave an hour's run behind).
    lifeline, keep = os.pipe()
    try:
        child = subprocess.run(
            [sys.executable, "-m", "ndncc.benchmark", name, repr(duration), str(lifeline), str(int(record))],
            capture_output=True,
            text=True,
            check=False,
            pass_fds=(lifeline,),
        )
    finally:
        os.close(lifeline)
        os.close(keep)
    if child.returncode != 0 or not child.stdout.strip():
        raise _failed(f"benchmark {name}", child)
    return json.loads(child.stdout.splitlines()[-1])


def combine(runs: list[dict]) -> dict:
    """One scenario's measurement from its runs: the median of each timed figure, the range of
    ``ns_per_hop``, and the number of runs. Runs that simulated different things (events,
    hops, rows) are an :class:`ndncc.InternalError`: the engine must not depend on the run."""
    first = runs[0]
    for key in SIMULATED:
        seen = sorted({r[key] for r in runs})
        if len(seen) > 1:
            raise _core.InternalError(
                f"benchmark {first['scenario']}: its runs simulated different {key} ({seen}); "
                "the engine is not deterministic"
            )
    combined = {**first, **{key: statistics.median(r[key] for r in runs) for key in TIMED}}
    per_hop = [r["ns_per_hop"] for r in runs]
    return {**combined, "runs": len(runs), "ns_per_hop_min": min(per_hop), "ns_per_hop_max": max(per_hop)}


def run_rounds(
    names: list[str], duration: float, repeat: int, on_run=None, on_done=None, record: bool = True
) -> list[dict]:
    """Benchmark each of ``names`` ``repeat`` times (without samples unless ``record``), each run
    in a fresh interpreter (:func:`run_alone`), in rounds (every scenario once, then again), so
    that a machine that slows down for a while slows every scenario alike rather than all runs of
    one. Returns each scenario's measurement (:func:`combine`), in the order of ``names``.

    ``on_run(name, round)`` is called before each run (rounds count from 1), and
    ``on_done(measurement)`` as each scenario's last run ends."""
    runs: dict[str, list[dict]] = {name: [] for name in names}
    done = []
    for round_ in range(1, repeat + 1):
        for name in names:
            if on_run is not None:
                on_run(name, round_)
            runs[name].append(run_alone(name, duration, record))
            if round_ == repeat:
                done.append(combine(runs[name]))
                if on_done is not None:
                    on_done(done[-1])
    return done


def memory_per_flow(results: list[dict], family: str = "dumbbell") -> dict | None:
    """What each flow added to the peak memory [KiB], from the two largest dumbbells of
    ``family`` among ``results`` (``dumbbell-N``: N consumer/producer pairs on one bottleneck;
    ``tcp-N``: N TCP flows on it): the difference of their peaks over the difference of their
    flows, so that the interpreter and what every world has cancel out. ``None`` without two
    dumbbells of different sizes."""
    sizes = {}
    for r in results:
        head, _, n = r["scenario"].partition("-")
        if head == family and n.isdigit():
            sizes[int(n)] = r
    if len(sizes) < 2:
        return None
    small, large = sorted(sizes)[-2:]
    kib = (sizes[large]["peak_rss_mb"] - sizes[small]["peak_rss_mb"]) * 1024 / (large - small)
    return {"from": f"{family}-{small}", "to": f"{family}-{large}", "kib_per_flow": kib}


def _failed(what: str, child: subprocess.CompletedProcess) -> _core.InternalError:
    """The error for a child process that failed: ``what``, with its last line on stderr."""
    last = (child.stderr.strip().splitlines() or [f"exit code {child.returncode}"])[-1]
    return _core.InternalError(f"{what}: {last}")


def time_command(scenario: Path, runs: int = COMMAND_RUNS) -> dict:
    """``ndncc run SCENARIO`` end to end, each run a fresh process writing a folder of its own
    with the default outputs: one untimed run first, then ``runs`` timed ones. Returns the
    medians of the wall time, of the engine's own time (the run's ``wall_seconds``) and of their
    ratio per run, with the ratio's range."""
    walls, engines = [], []
    with tempfile.TemporaryDirectory(prefix="ndncc-bench-") as tmp:
        for i in range(runs + 1):
            out = Path(tmp) / f"run-{i}"
            command = [sys.executable, "-m", "ndncc", "run", os.fspath(scenario), "--out", os.fspath(out)]
            start = time.perf_counter()
            child = subprocess.run(command, capture_output=True, text=True, check=False)
            wall = time.perf_counter() - start
            if child.returncode != 0:
                raise _failed(f"ndncc run {scenario}", child)
            if i > 0:
                walls.append(wall)
                engines.append(
                    json.loads((out / "manifest.json").read_text(encoding="utf-8"))["wall_seconds"]
                )
    ratios = sorted(w / max(e, 1e-9) for w, e in zip(walls, engines))
    return {
        "command": f"ndncc run {Path(scenario).name}",
        "runs": runs,
        "wall_seconds": statistics.median(walls),
        "engine_seconds": statistics.median(engines),
        "wall_per_engine": statistics.median(ratios),
        "wall_per_engine_min": ratios[0],
        "wall_per_engine_max": ratios[-1],
    }


def _end_with_parent(lifeline: int) -> None:
    """In the child: wait for the parent's end of the lifeline to close, then leave at once."""
    os.read(lifeline, 1)
    os._exit(1)


if __name__ == "__main__":  # the child: one measurement, as one JSON line
    threading.Thread(target=_end_with_parent, args=(int(sys.argv[3]),), daemon=True).start()
    print(json.dumps(_core.bench(sys.argv[1], float(sys.argv[2]), record=sys.argv[4:5] != ["0"])))
