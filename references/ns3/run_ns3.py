"""Build tcp_dumbbell.cc against the installed ns-3 and run it over the pinned variants and seeds.

    python references/ns3/run_ns3.py                      # print the table (CSV) to stdout
    python references/ns3/run_ns3.py --out references/ns3/tcp-dumbbell.csv   # re-pin it
    python references/ns3/run_ns3.py --limited-transmit off -- --rfcFlightSize=true   # sensitivity

Needs a C++17 compiler and ns-3's headers and libraries (Debian: ``apt-get install ns3
libns3-dev``); ``NS3_CXXFLAGS`` and ``NS3_LIBS`` override the flags found with ``pkg-config``
(for an ns-3 built from source). Each variant is one ACK policy (``DelAckCount`` 2 or 1) and
limited transmit on or off; each run prints one row per flow. The table ends with one mean row
per variant (``seed`` = ``mean``, ``flow`` = ``both``). Nothing here needs ndncc.
"""

from __future__ import annotations

import argparse
import csv
import io
import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
SOURCE = HERE / "tcp_dumbbell.cc"
#: The ns-3 modules the program uses, in link order.
MODULES = (
    "applications",
    "point-to-point",
    "traffic-control",
    "internet",
    "bridge",
    "network",
    "stats",
    "core",
)
SEEDS = range(1, 11)
#: (DelAckCount, LimitedTransmit): delayed ACKs and an ACK per segment, limited transmit on (ns-3's
#: default) and off.
VARIANTS = ((2, True), (1, True), (2, False), (1, False))
#: Columns averaged into a variant's mean row; the others are labels.
LABELS = ("seed", "flow", "del_ack_count", "recovery", "limited_transmit", "bytes", "ns3_version")


def ns3_version() -> str:
    """The installed ns-3's version (``pkg-config --modversion ns3-core``)."""
    try:
        out = subprocess.run(["pkg-config", "--modversion", "ns3-core"], capture_output=True, text=True)
    except FileNotFoundError:
        return "unknown"
    return out.stdout.strip() or "unknown"


def available() -> bool:
    """Whether a compiler and ns-3's development files are installed."""
    compiler = shutil.which(os.environ.get("CXX", "c++")) or shutil.which("g++")
    return compiler is not None and (bool(os.environ.get("NS3_CXXFLAGS")) or ns3_version() != "unknown")


def build(out_dir: Path) -> Path:
    """Compile tcp_dumbbell.cc into ``out_dir`` and return the executable's path."""
    compiler = shutil.which(os.environ.get("CXX", "c++")) or shutil.which("g++")
    if compiler is None:
        raise SystemExit("no C++ compiler (c++ or g++) on the PATH")
    cflags = os.environ.get("NS3_CXXFLAGS")
    if cflags is None:
        found = subprocess.run(["pkg-config", "--cflags", "ns3-core"], capture_output=True, text=True)
        if found.returncode != 0:
            raise SystemExit(
                "ns-3 not found by pkg-config (install libns3-dev, or set NS3_CXXFLAGS and NS3_LIBS)"
            )
        cflags = found.stdout
    # Named one by one: Debian's .pc files also list libgsl.so, which only libgsl-dev provides,
    # and the ns-3 libraries find GSL by themselves.
    libs = os.environ.get("NS3_LIBS", " ".join(f"-lns3-{m}" for m in MODULES))
    exe = out_dir / "tcp_dumbbell"
    cmd = [
        compiler,
        "-std=c++17",
        "-O2",
        "-o",
        str(exe),
        str(SOURCE),
        *shlex.split(cflags),
        *shlex.split(libs),
    ]
    subprocess.run(cmd, check=True)
    return exe


def run(
    exe: Path, seed: int, del_ack_count: int, limited_transmit: bool, extra: tuple[str, ...] = ()
) -> list[dict]:
    """One ns-3 run: its two flows' rows."""
    args = [str(exe), f"--seed={seed}", f"--delAckCount={del_ack_count}"]
    args += [f"--limitedTransmit={str(limited_transmit).lower()}", "--header", *extra]
    out = subprocess.run(args, capture_output=True, text=True, check=True).stdout
    return list(csv.DictReader(io.StringIO(out)))


def mean_row(rows: list[dict]) -> dict:
    """The mean of a variant's flow rows, labelled ``seed`` = ``mean``, ``flow`` = ``both``."""
    out = dict(rows[0], seed="mean", flow="both")
    for key in rows[0]:
        if key not in LABELS:
            out[key] = f"{sum(float(r[key]) for r in rows) / len(rows):.6g}"
    return out


def table(exe: Path, seeds=SEEDS, variants=VARIANTS, extra: tuple[str, ...] = ()) -> list[dict]:
    """Every variant over ``seeds``: the flow rows, then one mean row per variant."""
    version = ns3_version()
    flows, means = [], []
    for del_ack_count, limited in variants:
        rows = [r for seed in seeds for r in run(exe, seed, del_ack_count, limited, extra)]
        for r in rows:
            r["ns3_version"] = version
        flows += rows
        means.append(mean_row(rows))
    return flows + means


def write(rows: list[dict], out) -> None:
    w = csv.DictWriter(out, fieldnames=list(rows[0]), lineterminator="\n")
    w.writeheader()
    w.writerows(rows)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--out", type=Path, help="write the CSV here (default: stdout)")
    p.add_argument("--seeds", type=int, default=len(SEEDS), help="seeds 1..N (default 10)")
    p.add_argument("--build-dir", type=Path, help="keep the executable here (default: a temporary folder)")
    p.add_argument(
        "--limited-transmit",
        choices=("both", "on", "off"),
        default="both",
        help="the variants to run (default both)",
    )
    p.add_argument("extra", nargs="*", help="more options for the program, e.g. --rfcFlightSize=true")
    a = p.parse_args()
    keep = {"both": (True, False), "on": (True,), "off": (False,)}[a.limited_transmit]
    variants = tuple(v for v in VARIANTS if v[1] in keep)
    with tempfile.TemporaryDirectory() as tmp:
        build_dir = a.build_dir or Path(tmp)
        build_dir.mkdir(parents=True, exist_ok=True)
        exe = build(build_dir)
        rows = table(exe, range(1, a.seeds + 1), variants, tuple(a.extra))
    if a.out is None:
        write(rows, sys.stdout)
    else:
        with open(a.out, "w", newline="") as f:
            write(rows, f)


if __name__ == "__main__":
    main()
