"""The speed-up of one build of the engine over another, by wall time per packet-hop: two
``ndncc-bench`` binaries (or one, run in two environments) take turns on one core.

Wall time on a shared machine moves by several percent from run to run, more when a neighbour
is busy, and two benchmarks run side by side, one on each core, slow each other down through
the memory they share. So the two builds run one after the other, each pinned to the same core,
in rounds (base, new, base, new, ...): a slow spell of the machine then slows both of a round
alike, and the ratio of a round's two times keeps the comparison. The median of the rounds'
ratios is the measure; the ratio of the two fastest runs, the least disturbed, is printed beside
it, and so is every round's ratio, to show the spread. Below 1 the new build is faster.

Each line also says whether the two builds simulated the same thing (events and packet-hops):
an optimisation must not change what a run does, and a difference is reported, not hidden.

``python -m ndncc.speedup BASE NEW [NAME ...] [--rounds N] [--seconds T] [--cpu K]
[--base-env KEY=VALUE] [--new-env KEY=VALUE] [--no-record | --new-no-record]`` prints one JSON
line per scenario (default: the standard ones of ``ndncc-bench``). BASE and NEW may be the same
binary with different environments, such as ``--new-env _RJEM_MALLOC_CONF=thp:default``.

What recording costs is the same binary against itself with ``--new-no-record``: the new side
runs without its samples, and each line then gives ``recording_share``, the part of a hop with
recording that the run without it saves (one less the ratio). Its runs take fewer events (the
sampling ones), so only their packet-hops are compared.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

#: The scenarios compared when none are named: ``ndncc-bench``'s standard set, as measured by
#: instruction count.
from .instructions import DEFAULT_NAMES

#: Rounds of one run of each build.
DEFAULT_ROUNDS = 7
#: Simulated seconds of each run: long enough that a run takes a good part of a second.
DEFAULT_SECONDS = 10.0
#: Most rounds, and most simulated seconds, a comparison takes.
MAX_ROUNDS = 1000
MAX_SECONDS = 3600.0


class CompareError(Exception):
    """A benchmark run failed, or printed no measurement."""


@dataclass
class Build:
    """One side of the comparison: a binary, what its environment adds, and whether its runs
    record their samples."""

    binary: Path
    env: dict[str, str] = field(default_factory=dict)
    record: bool = True


def run_once(build: Build, name: str, seconds: float, cpu: int | None) -> dict:
    """One run of ``build`` on scenario ``name``, pinned to ``cpu`` (``None``: unpinned):
    ``ndncc-bench``'s JSON measurement."""
    args = [str(build.binary), name, "--duration", repr(seconds)]
    if not build.record:
        args.append("--no-record")

    def pin() -> None:
        if cpu is not None:
            os.sched_setaffinity(0, {cpu})

    proc = subprocess.run(
        args,
        capture_output=True,
        text=True,
        check=False,
        env={**os.environ, **build.env},
        preexec_fn=pin,
    )
    lines = proc.stdout.strip().splitlines()
    if proc.returncode != 0 or not lines:
        last = (proc.stderr.strip().splitlines() or [f"exit code {proc.returncode}"])[-1]
        raise CompareError(f"{build.binary} {name}: {last}")
    try:
        return json.loads(lines[-1])
    except json.JSONDecodeError as e:
        raise CompareError(f"{build.binary} {name}: not a measurement: {lines[-1][:80]!r}") from e


def summarise(name: str, base: list[dict], new: list[dict], recording_share: bool = False) -> dict:
    """One scenario's comparison from its rounds (``base[i]`` and ``new[i]`` ran in round i).
    With ``recording_share`` the new side ran without recording: the two then differ by the
    sampling events, and the line says what share of the hop recording took."""
    if not base or len(base) != len(new):
        raise CompareError(f"{name}: {len(base)} base runs against {len(new)} new ones")
    b = [r["ns_per_hop"] for r in base]
    n = [r["ns_per_hop"] for r in new]
    ratios = [y / x for x, y in zip(b, n)]

    def simulated(runs: list[dict]) -> set[tuple[int, int]]:
        return {(0 if recording_share else r["events"], r["packet_hops"]) for r in runs}

    extra = {"recording_share": 1.0 - statistics.median(ratios)} if recording_share else {}
    return {
        "scenario": name,
        "rounds": len(ratios),
        "base_ns_per_hop": statistics.median(b),
        "new_ns_per_hop": statistics.median(n),
        "ratio": statistics.median(ratios),
        "ratio_of_fastest": min(n) / min(b),
        "ratios": [round(r, 3) for r in ratios],
        "same_simulation": simulated(base) == simulated(new) and len(simulated(base)) == 1,
        **extra,
    }


def compare(base: Build, new: Build, name: str, rounds: int, seconds: float, cpu: int | None) -> dict:
    """Run ``rounds`` rounds of ``base`` then ``new`` on scenario ``name`` and summarise them."""
    runs: tuple[list[dict], list[dict]] = ([], [])
    for _ in range(rounds):
        runs[0].append(run_once(base, name, seconds, cpu))
        runs[1].append(run_once(new, name, seconds, cpu))
    return summarise(name, *runs, recording_share=base.record and not new.record)


def _env(pairs: list[str], flag: str) -> dict[str, str]:
    env = {}
    for pair in pairs:
        key, eq, value = pair.partition("=")
        if not eq or not key:
            raise ValueError(f"{flag}: {pair!r} is not KEY=VALUE")
        env[key] = value
    return env


def _default_cpu() -> int | None:
    """The last core this process may run on (the first is where the system's own work tends
    to land), or ``None`` where affinity cannot be set."""
    if not hasattr(os, "sched_getaffinity"):
        return None
    return max(os.sched_getaffinity(0))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m ndncc.speedup", description=__doc__.split("\n\n")[0])
    parser.add_argument("base", type=Path, help="ndncc-bench binary of the base build")
    parser.add_argument("new", type=Path, help="ndncc-bench binary of the new build (may be the same)")
    parser.add_argument("names", nargs="*", default=list(DEFAULT_NAMES), help="ndncc-bench scenario names")
    parser.add_argument("--rounds", type=int, default=DEFAULT_ROUNDS, help="rounds of one run of each")
    parser.add_argument("--seconds", type=float, default=DEFAULT_SECONDS, help="simulated seconds of a run")
    parser.add_argument("--cpu", type=int, default=None, help="the core both run on (default: the last)")
    parser.add_argument("--base-env", action="append", default=[], metavar="KEY=VALUE")
    parser.add_argument("--new-env", action="append", default=[], metavar="KEY=VALUE")
    unrecorded = parser.add_mutually_exclusive_group()
    unrecorded.add_argument("--no-record", action="store_true", help="run both without their samples")
    unrecorded.add_argument(
        "--new-no-record",
        action="store_true",
        help="run only the new build without samples: with BASE and NEW the same binary, the share of "
        "a hop recording takes",
    )
    args = parser.parse_args(argv)

    def refuse(message: str) -> int:
        print(f"ndncc.speedup: {message}", file=sys.stderr)
        return 2

    if not 1 <= args.rounds <= MAX_ROUNDS:
        return refuse(f"--rounds must be from 1 to {MAX_ROUNDS}, not {args.rounds}")
    if not 0 < args.seconds <= MAX_SECONDS:  # also false for NaN
        return refuse(f"--seconds must be more than 0 and at most {MAX_SECONDS:g}, not {args.seconds}")
    for binary in (args.base, args.new):
        if not binary.is_file():
            return refuse(f"{binary} not found (cargo build --release --bin ndncc-bench)")
    cpu = _default_cpu() if args.cpu is None else args.cpu
    if args.cpu is not None and hasattr(os, "sched_getaffinity") and args.cpu not in os.sched_getaffinity(0):
        return refuse(f"--cpu {args.cpu} is not a core this process may run on")
    try:
        base = Build(args.base, _env(args.base_env, "--base-env"), record=not args.no_record)
        new_records = not (args.no_record or args.new_no_record)
        new = Build(args.new, _env(args.new_env, "--new-env"), record=new_records)
    except ValueError as e:
        return refuse(str(e))
    for name in args.names:
        try:
            result = compare(base, new, name, args.rounds, args.seconds, cpu)
        except CompareError as e:
            print(f"ndncc.speedup: {e}", file=sys.stderr)
            return 1
        print(json.dumps(result), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
