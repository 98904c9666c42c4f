"""Instructions and cache misses per packet-hop (``make bench-instructions``): a measure of the
engine's speed that does not depend on the machine's load, beside ``ndncc bench``'s wall time.

Each benchmark scenario runs twice under valgrind's cachegrind, for ``T`` and ``2T`` simulated
seconds, with a 48 KB L1 data cache and a 1 MB last-level cache simulated. The difference of the
two runs' counts over the difference of their packet-hops is the steady-state cost of one hop:
set-up, start-up and tear-down cancel out. The counts are the same, to a thousandth of an
instruction a hop, on every run of the same binary (the engine is deterministic and its hash
maps are not randomised, and the allocator's purges on a timer are off: ``NO_TIMED_PURGES``),
so a change in them is a change in the code.

``python -m ndncc.instructions [--binary PATH] [--seconds T] [--no-record] [--by-layer] [NAME ...]``
prints one JSON line per scenario; the default names are the standard ones of ``ndncc-bench``.
With ``--no-record`` the scenarios run without their samples: the difference from a run with
them is what recording costs per hop. With ``--by-layer`` each line also splits the
instructions and last-level misses of a hop among the engine's layers (``LAYERS``), by the
source file each instruction was compiled from, or for code shared by several layers (the
standard library, rings, histograms) by the function it was inlined into.
"""

from __future__ import annotations

import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Mapping
from pathlib import Path

#: The scenarios measured when none are named (``ndncc-bench``'s standard set).
DEFAULT_NAMES = ("dumbbell-1", "dumbbell-20", "dumbbell-1000")
#: Simulated seconds of the shorter run; the longer one runs twice as long.
DEFAULT_SECONDS = 2.0
#: The caches simulated: a 48 KB, 12-way L1 data cache and a 1 MB, 16-way last level, 64-byte
#: lines (the reference measurements' set-up; the machine's own caches do not matter).
CACHES = ("--I1=32768,8,64", "--D1=49152,12,64", "--LL=1048576,16,64")


#: The engine's layers, each with the source files (paths under ``crates/ndncc-core/src/``)
#: whose instructions are its own. Files not named here are shared (rings, packets, times,
#: histograms, the standard library): their instructions count for the layer of the function
#: they were inlined into (``FUNCTION_LAYERS``).
LAYERS: dict[str, tuple[str, ...]] = {
    "events": (
        "event_queue.rs",
        "world/engine.rs",
        "world/mod.rs",
        "world/effects.rs",
        "ctx.rs",
        "prefetch.rs",
    ),
    "links": (
        "world/link.rs",
        "egress.rs",
        "flight.rs",
        "face.rs",
        "queue/",
        "loss.rs",
        "link_trace.rs",
        "linkservice/",
        "world/dynamics.rs",
    ),
    "forwarder": ("world/ndn.rs", "forwarder/", "module/", "world/mcast.rs", "world/ip.rs"),
    "apps": ("app/", "cc/", "rtt.rs"),
    "recording": (
        "recorder.rs",
        "world/sampling.rs",
        "world/face_samples.rs",
        "world/app_samples.rs",
        "world/tick_layout.rs",
        "world/probe.rs",
    ),
}
#: For shared code: the layer of the function it was inlined into, by the first pattern the
#: function's name matches; anything else (the allocator, set-up, output) is ``other``.
FUNCTION_LAYERS: tuple[tuple[str, str], ...] = (
    (r"::(recorder|sampling|probe)::", "recording"),
    (r"::(forwarder|module)::|Engine::receive\b", "forwarder"),
    (r"::(app|cc)::", "apps"),
    (r"::world::link::|::queue::|::egress::|::linkservice::", "links"),
    (r"bench_for|World::run(_idle_polls)?\b|Engine::handle\b|EventQueue|schedule_app_wake", "events"),
)
#: Where the engine's own sources lie in a path cachegrind names.
SOURCE_ROOT = "/crates/ndncc-core/src/"


def layer_of(file: str, function: str) -> str:
    """The layer an instruction compiled from ``file`` into ``function`` belongs to."""
    at = file.find(SOURCE_ROOT)
    if at >= 0:
        rel = file[at + len(SOURCE_ROOT) :]
        for layer, prefixes in LAYERS.items():
            if any(rel == p or (p.endswith("/") and rel.startswith(p)) for p in prefixes):
                return layer
    for pattern, layer in FUNCTION_LAYERS:
        if re.search(pattern, function):
            return layer
    return "other"


class MeasureError(Exception):
    """A run could not be measured: the message says which and why."""


def _counts(out_file: Path) -> dict[str, int]:
    """The totals of a cachegrind output file, by event name (Ir, D1mr, DLmw, …)."""
    events: list[str] = []
    summary: list[int] = []
    for line in out_file.read_text().splitlines():
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("summary:"):
            summary = [int(x) for x in line.split()[1:]]
    if not events or len(events) != len(summary):
        raise MeasureError(f"{out_file}: no cachegrind summary")
    return dict(zip(events, summary))


def _counts_by_layer(out_file: Path) -> dict[str, dict[str, int]]:
    """The totals of a cachegrind output file by layer (``layer_of`` each file and function),
    then by event name."""
    events: list[str] = []
    by_layer: dict[str, dict[str, int]] = {}
    file = function = ""
    layer = "other"
    for line in out_file.read_text().splitlines():
        if line.startswith("events:"):
            events = line.split()[1:]
        elif line.startswith("fl="):
            file = line[3:]
            layer = layer_of(file, function)
        elif line.startswith("fn="):
            function = line[3:]
            layer = layer_of(file, function)
        elif line[:1].isdigit():
            totals = by_layer.setdefault(layer, {})
            for event, count in zip(events, line.split()[1:]):
                totals[event] = totals.get(event, 0) + int(count)
    if not events:
        raise MeasureError(f"{out_file}: no cachegrind events")
    return by_layer


#: jemalloc's options for a measured run: no purging of freed memory on a wall-clock timer.
#: jemalloc gives freed pages back to the kernel some seconds after they were freed (its dirty
#: and muzzy decay); under valgrind the clock runs some fifty times slower against the work,
#: so those purges come at moments that differ from run to run, and the counts of one binary
#: varied by up to 0.75 instructions a hop. Without the timer they repeat (in a native run of a
#: benchmark's length, shorter than the decay, there are next to none of these purges).
NO_TIMED_PURGES = "dirty_decay_ms:-1,muzzy_decay_ms:-1"


def measuring_env(env: Mapping[str, str]) -> dict[str, str]:
    """``env`` for a measured run: jemalloc's options of ``env`` (``_RJEM_MALLOC_CONF``), then
    ``NO_TIMED_PURGES`` (the later of two settings of an option wins)."""
    conf = env.get("_RJEM_MALLOC_CONF", "")
    return {**env, "_RJEM_MALLOC_CONF": f"{conf},{NO_TIMED_PURGES}" if conf else NO_TIMED_PURGES}


def _run(binary: Path, name: str, seconds: float, work: Path, record: bool = True) -> tuple[Path, int]:
    """One run of ``name`` for ``seconds`` under cachegrind (without samples unless ``record``):
    its cachegrind output file and packet-hops."""
    out_file = work / f"{name}-{seconds}.cachegrind"
    cmd = [
        "valgrind",
        "--tool=cachegrind",
        "--cache-sim=yes",
        *CACHES,
        f"--cachegrind-out-file={out_file}",
        str(binary),
        "--duration",
        repr(seconds),
        *([] if record else ["--no-record"]),
        name,
    ]
    run = subprocess.run(cmd, capture_output=True, text=True, check=False, env=measuring_env(os.environ))
    if run.returncode != 0:
        last = (run.stderr.strip().splitlines() or ["(no output)"])[-1]
        raise MeasureError(f"{name}: the benchmark failed under cachegrind: {last}")
    try:
        hops = int(json.loads(run.stdout.strip().splitlines()[-1])["packet_hops"])
    except (ValueError, KeyError, IndexError) as e:
        raise MeasureError(f"{name}: no packet-hop count in the benchmark's output ({e})") from e
    return out_file, hops


def per_hop(short: tuple[dict[str, int], int], long: tuple[dict[str, int], int]) -> dict[str, float]:
    """The steady-state cost of a hop from a short and a long run: instructions, L1 data misses
    and last-level misses (data and instruction) per packet-hop."""
    (a, hops_a), (b, hops_b) = short, long
    hops = hops_b - hops_a
    if hops <= 0:
        raise MeasureError("the longer run did not forward more packets than the shorter one")

    def diff(*events: str) -> float:
        return sum(b.get(e, 0) - a.get(e, 0) for e in events) / hops

    return {
        "instructions": diff("Ir"),
        "l1d_misses": diff("D1mr", "D1mw"),
        "ll_misses": diff("DLmr", "DLmw", "ILmr"),
        "hops": float(hops),
    }


def per_hop_by_layer(
    short: tuple[dict[str, dict[str, int]], int], long: tuple[dict[str, dict[str, int]], int]
) -> dict[str, dict[str, float]]:
    """``per_hop`` of each layer's counts, in the order of ``LAYERS`` then ``other``; a layer
    with no instructions in either run is left out."""
    (a, hops_a), (b, hops_b) = short, long
    layers = [*LAYERS, "other"]
    return {
        layer: {
            k: round(v, 2)
            for k, v in per_hop((a.get(layer, {}), hops_a), (b.get(layer, {}), hops_b)).items()
            if k != "hops"
        }
        for layer in layers
        if layer in a or layer in b
    }


def measure(binary: Path, name: str, seconds: float, record: bool = True, by_layer: bool = False) -> dict:
    """Instructions and misses per hop of scenario ``name``, with the runs' lengths and whether
    they recorded; with ``by_layer``, also split among the engine's layers."""
    with tempfile.TemporaryDirectory(prefix="ndncc-cachegrind-") as tmp:
        work = Path(tmp)
        (short_file, short_hops) = _run(binary, name, seconds, work, record)
        (long_file, long_hops) = _run(binary, name, 2 * seconds, work, record)
        got = {
            "scenario": name,
            "seconds": [seconds, 2 * seconds],
            "record": record,
            **per_hop((_counts(short_file), short_hops), (_counts(long_file), long_hops)),
        }
        if by_layer:
            got["layers"] = per_hop_by_layer(
                (_counts_by_layer(short_file), short_hops), (_counts_by_layer(long_file), long_hops)
            )
    return got


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ndncc.instructions", description=__doc__.split("\n\n")[0]
    )
    parser.add_argument("names", nargs="*", default=list(DEFAULT_NAMES), help="ndncc-bench scenario names")
    parser.add_argument("--binary", type=Path, default=Path("target/release/ndncc-bench"), help="ndncc-bench")
    parser.add_argument(
        "--seconds", type=float, default=DEFAULT_SECONDS, help="simulated seconds of the short run"
    )
    parser.add_argument("--no-record", action="store_true", help="run the scenarios without their samples")
    parser.add_argument(
        "--by-layer", action="store_true", help="split each hop's cost among the engine's layers"
    )
    args = parser.parse_args(argv)
    if not 0 < args.seconds <= 3600:
        print("ndncc.instructions: --seconds must be in (0, 3600]", file=sys.stderr)
        return 2
    if shutil.which("valgrind") is None:
        print("ndncc.instructions: valgrind is not installed (apt-get install valgrind)", file=sys.stderr)
        return 2
    if not args.binary.is_file():
        print(f"ndncc.instructions: {args.binary} not found (cargo build --release)", file=sys.stderr)
        return 2
    for name in args.names:
        try:
            print(
                json.dumps(measure(args.binary, name, args.seconds, not args.no_record, args.by_layer)),
                flush=True,
            )
        except MeasureError as e:
            print(f"ndncc.instructions: {e}", file=sys.stderr)
            return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
