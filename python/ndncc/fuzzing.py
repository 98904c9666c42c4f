"""A fuzz campaign: ``ndncc`` on mutated copies of the scenarios it ships and on random
topologies, each case in a process of its own with a time and a memory limit.

    python -m ndncc.fuzzing --mutants 3000 --topologies 500 --timeout 20 --jobs 2

Each case writes a scenario file, then runs ``ndncc validate`` and, when that passes, ``ndncc
run`` on it, both in one fresh interpreter (so a Rust panic report, a traceback printed at exit
or memory the run kept are all seen). A mutant's simulated duration is cut to a few seconds
(``--set simulation.duration``) unless the mutation is in the duration itself, so that a case
takes seconds. A case ends in one of these classes:

=============  ===========================================================================
``ok``         exit 0
``refused``    exit 2 with one ``error:`` line on stderr (warnings before it allowed)
``stopped``    still running at the time limit, and stopped by itself at the SIGINT
``ended``      still running at the time limit, and not stopped 1.5 s after the SIGINT: ended
               by the command's own thread for that (a slow step that makes no check)
``controller`` exit 3 (a user's Python controller raised; no mutant has one)
``unclean``    exit 2, but not one short ``error:`` line (several lines, or a line longer
               than ``MAX_LINE`` characters)
``internal``   any other exit code, a traceback, a panic or an "internal error" line
``hang``       still running ``GRACE_S`` seconds after the SIGINT: killed
``oom``        its peak resident memory passed the limit (it is killed there if still running)
=============  ===========================================================================

The last four are failures. The report (``--json``) holds the counts and every failing case
with its scenario text and output; ``--keep DIR`` writes the failing scenarios there.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import random
import re
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Callable, Iterator, Optional, Sequence

from . import tomlread
from .grid import magnitude

#: Seconds a case may run before it is sent SIGINT, and after that before it is killed.
TIMEOUT_S = 20.0
GRACE_S = 2.0
#: Peak resident memory above which a case counts as out of memory [bytes].
MEMORY_LIMIT = 3 * 2**30
#: Longest simulated duration a mutant runs [s] (unless the mutation is in the duration).
CLAMP_S = 2.0
#: Longest line an error may be: long values are shortened in messages.
MAX_LINE = 1000

FAILURES = ("unclean", "internal", "hang", "oom")
CLASSES = ("ok", "refused", "stopped", "ended", "controller", *FAILURES)

# ---------------------------------------------------------------- mutations

#: Values a mutation writes in place of a scenario value: wrong types, signs, sizes and units.
WEIRD_VALUES = [
    "0", "-1", "1", "-0.0", "1e308", "-1e308", "1e-320", "nan", "inf", "-inf", "18446744073709551616",
    "9223372036854775807", "-9223372036854775808", "4294967296", "65536", "2.5", "true", "[]", "{}",
    "[1, 2]", '""', '"x"', '"../x"', '"a/b"', '"\\u0000"', '"0s"', '"-5s"', '"1e400s"', '"1ns"',
    '"584942417y"', '"18446744073709551615ms"', '"nan s"', '"0bps"', '"1Tbps"', '"1e30Gbps"', '"-3Mbps"',
    '"0B"', '"1TB"', '"18446744073709551616B"', '"-1%"', '"150%"', '"nan%"', '"1e-9%"', '"100%"',
    '"droptail"', '"codel"', '"pcon"', '"aimd"', '"fixed"', '"consumer"', '"producer"', '"/p1"', '"/"',
    '"C1"', '"R1"', "{ type = \"fixed\", window = 0 }", "{ capacity = 18446744073709551615 }",
    "{ type = \"droptail\", packets = 0 }", "{ type = \"red\" }", "1979-05-27T07:32:00Z", "07:32:00",
    '"1us"', '"1e-9s"', "1e7", "1e6", '"' + "x" * 5000 + '"', "[" + ", ".join(["1"] * 200) + "]",
]  # fmt: skip

#: Factors a mutation scales a number by, keeping its unit: zero, tiny, close, huge, negative.
SCALES = [0, 1e-9, 0.001, 0.5, 2, 10, 1000, 1e6, 1e12, -1]

#: Units a quantity may be rewritten in: the right kind, the wrong kind, and none at all.
UNITS = ["ns", "us", "ms", "s", "min", "h", "bps", "kbps", "Mbps", "Gbps", "B", "kB", "MB", "GB", "%", "",
         " ms", "x", "Ms", "mbps"]  # fmt: skip

#: Keys a mutation may put where another key was: real keys of other tables, and typos.
KEYS = ["bandwidth", "delay", "queue", "loss", "window", "rate", "node", "prefix", "type", "capacity",
        "packets", "bytes", "start", "stop", "lifetime", "payload", "processing_delay", "interval",
        "events", "faces", "strategy", "modules", "endpoints", "duration", "seed", "p", "beta"]  # fmt: skip

_NUMBER = re.compile(r"(?<![\w.])\d+(?:\.\d+)?(?:e-?\d+)?")
_ASSIGNMENT = re.compile(r"^(\s*)([\w\"'.-]+)(\s*=\s*)(.+)$")
_INLINE_VALUE = re.compile(r"(=\s*)(\"[^\"]*\"|[^,}\]\s][^,}\]]*)")
_QUANTITY = re.compile(r"\"(-?\d+(?:\.\d+)?(?:e-?\d+)?)\s*([A-Za-z%µ/]+)\"")
_TABLE = re.compile(r"^\s*\[+[^\]]+\]+\s*$")

KINDS = ["delete", "value", "value", "inline", "scale", "scale", "unit", "unit", "key", "type", "table",
         "tables"]  # fmt: skip


def _other_type(value: str, rng: random.Random) -> str:
    """A value of another TOML type than ``value``."""
    v = value.strip()
    if v.startswith('"'):
        choices = ["1", "2.5", "true", "[]", "{}", f"[{v}]"]
    elif v.startswith("{"):
        choices = ['"x"', "1", "[" + v + "]", "true"]
    elif v.startswith("["):
        choices = ['"x"', "1", "{}"]
    elif v in ("true", "false"):
        choices = ['"true"', "1", "0"]
    else:
        choices = [f'"{v}"', "true", "[" + v + "]", "{ value = " + v + " }"]
    return rng.choice(choices)


def mutate(text: str, rng: random.Random) -> tuple[str, str]:
    """One random change to scenario text; returns the new text and what was done."""
    lines = text.splitlines()
    assignments = [
        i for i, line in enumerate(lines) if _ASSIGNMENT.match(line) and not line.lstrip().startswith("#")
    ]
    tables = [i for i, line in enumerate(lines) if _TABLE.match(line)]
    kind = rng.choice(KINDS)
    if kind == "delete" and assignments:
        i = rng.choice(assignments)
        return "\n".join(lines[:i] + lines[i + 1 :]), f"delete line {i + 1}"
    if kind == "inline":
        spots = [(i, m) for i in assignments for m in _INLINE_VALUE.finditer(lines[i]) if m.start() > 0]
        if spots:
            i, m = rng.choice(spots)
            value = rng.choice(WEIRD_VALUES)
            lines[i] = lines[i][: m.start(2)] + value + lines[i][m.end(2) :]
            return "\n".join(lines), f"line {i + 1}: inline value -> {value[:40]}"
    if kind == "scale":
        spots = [
            (i, m) for i in assignments for m in _NUMBER.finditer(lines[i]) if "=" in lines[i][: m.start()]
        ]
        if spots:
            i, m = rng.choice(spots)
            factor = rng.choice(SCALES)
            scaled = float(m.group()) * factor
            value = str(int(scaled)) if scaled.is_integer() and abs(scaled) < 2**63 else f"{scaled:g}"
            lines[i] = lines[i][: m.start()] + value + lines[i][m.end() :]
            return "\n".join(lines), f"line {i + 1}: {m.group()} x {factor:g} -> {value}"
    if kind == "unit":
        spots = [(i, m) for i in assignments for m in _QUANTITY.finditer(lines[i])]
        if spots:
            i, m = rng.choice(spots)
            unit = rng.choice(UNITS)
            lines[i] = lines[i][: m.start()] + f'"{m.group(1)}{unit}"' + lines[i][m.end() :]
            return "\n".join(lines), f"line {i + 1}: unit {m.group(2)} -> {unit!r}"
    if kind == "key" and assignments:
        i = rng.choice(assignments)
        m = _ASSIGNMENT.match(lines[i])
        assert m is not None
        key = m.group(2)
        if rng.random() < 0.5 and len(key) > 2:
            cut = rng.randrange(len(key))
            new = key[:cut] + key[cut + 1 :]  # a typo: one character dropped
        else:
            new = rng.choice(KEYS)
        lines[i] = f"{m.group(1)}{new}{m.group(3)}{m.group(4)}"
        return "\n".join(lines), f"line {i + 1}: key {key} -> {new}"
    if kind == "type" and assignments:
        i = rng.choice(assignments)
        m = _ASSIGNMENT.match(lines[i])
        assert m is not None
        value = _other_type(m.group(4), rng)
        lines[i] = f"{m.group(1)}{m.group(2)}{m.group(3)}{value}"
        return "\n".join(lines), f"line {i + 1}: type -> {value[:40]}"
    if kind == "table" and tables:
        start = rng.choice(tables)
        end = next((t for t in tables if t > start), len(lines))
        return "\n".join(lines + lines[start:end]), f"duplicate table at line {start + 1}"
    if kind == "tables" and tables:
        # A table header repeated with a new key in it: duplicate header, not a duplicate key.
        start = rng.choice(tables)
        extra = f"extra_{rng.randrange(100)} = {rng.choice(WEIRD_VALUES)}"
        return "\n".join(lines + [lines[start], extra]), f"table at line {start + 1} opened again"
    if not assignments:
        return text, "unchanged"
    i = rng.choice(assignments)
    value = rng.choice(WEIRD_VALUES + [str(rng.randint(-(2**70), 2**70)), repr(rng.uniform(-1e6, 1e6))])
    m = _ASSIGNMENT.match(lines[i])
    assert m is not None
    lines[i] = f"{m.group(1)}{m.group(2)}{m.group(3)}{value}"
    return "\n".join(lines), f"line {i + 1} -> {value[:40]}"


# ---------------------------------------------------------------- random topologies

_BANDWIDTHS = ["64kbps", "1Mbps", "10Mbps", "100Mbps", "1Gbps"]
_DELAYS = ["0s", "100us", "1ms", "10ms", "50ms"]
_WINDOWS = [
    '{ type = "fixed", window = %d }', '{ type = "aimd" }', '{ type = "consumer-window" }',
    '{ type = "reno-hole" }', '{ type = "arrival-rate" }', '{ type = "bic" }', '{ type = "cubic" }',
    '{ type = "pcon" }', '{ type = "pcon-icn2016" }', '{ type = "icp" }', '{ type = "raaqm" }',
]  # fmt: skip
_RATES = [
    '{ type = "constant", rate = %d }', '{ type = "mircc" }', '{ type = "aimd-rate" }',
    '{ type = "aimd-rate", decrease_on_timeout = false }',
]  # fmt: skip
_QUEUES = [
    "", '{ type = "droptail", packets = %d }', '{ type = "droptail", bytes = "%dkB" }', '{ type = "codel" }',
    '{ type = "codel-mark" }', '{ type = "nfd-mark" }',
]  # fmt: skip
_LOSSES = ["", '{ type = "bernoulli", p = "%d%%" }', '{ type = "gilbert-elliott" }']
_STRATEGIES = ["best-route", "multicast", "pcon", "pi", "cf"]
_MODULES = ['{ type = "interest-limit" }', '{ type = "hbh-shaper" }', '{ type = "mircc" }',
            '{ type = "static-rate-stamp", rate = 100.0 }']  # fmt: skip


def _fill(template: str, rng: random.Random) -> str:
    return template % rng.choice([1, 2, 10, 50, 100, 1000, 100000]) if "%d" in template else template


def topology(rng: random.Random) -> str:
    """A random scenario: a connected graph of 1 to 12 nodes, random links, producers, consumers
    of every controller, and now and then TCP, CBR and multicast flows. Most are valid; some
    (a consumer on its producer's node with no processing delay, say) are refused."""
    n = rng.choice([1, 2, 2, 3, 4, 5, 6, 8, 12])
    nodes = [f"N{i}" for i in range(n)]
    out = [
        "[simulation]",
        f'duration = "{rng.choice(["200ms", "1s", "2s", "3s"])}"',
        f"seed = {rng.randrange(1000)}",
    ]
    out.append("")
    out.append("[nodes]")
    for name in nodes:
        keys = []
        if rng.random() < 0.2:
            keys.append(f"content_store = {{ capacity = {rng.choice([1, 100, 10000])} }}")
        if rng.random() < 0.3:
            keys.append(f'strategy = {{ type = "{rng.choice(_STRATEGIES)}" }}')
        if rng.random() < 0.1:
            keys.append(f'clock_tick = "{rng.choice(["1ms", "10ms"])}"')
        if rng.random() < 0.1:
            keys.append(f"modules = [{rng.choice(_MODULES)}]")
        out.append(f"{name} = {{ {', '.join(keys)} }}")
    edges = {(rng.randrange(i), i) for i in range(1, n)}
    for _ in range(rng.randrange(n)):
        a, b = rng.sample(range(n), 2) if n > 1 else (0, 0)
        if a != b and (a, b) not in edges and (b, a) not in edges:
            edges.add((a, b))
    for a, b in sorted(edges):
        out += ["", f"[links.N{a}-N{b}]", f'bandwidth = "{rng.choice(_BANDWIDTHS)}"']
        out.append(f'delay = "{rng.choice(_DELAYS)}"')
        queue, loss = _fill(rng.choice(_QUEUES), rng), _fill(rng.choice(_LOSSES), rng)
        if queue:
            out.append(f"queue = {queue}")
        if loss and rng.random() < 0.3:
            out.append(f"loss = {loss}")
    prefixes = []
    for i in range(rng.choice([1, 1, 2, 3])):
        prefix = f"/p{i}"
        prefixes.append(prefix)
        out += [
            "",
            f"[apps.P{i}]",
            'type = "producer"',
            f'node = "{rng.choice(nodes)}"',
            f'prefix = "{prefix}"',
        ]
        if rng.random() < 0.5:
            out.append(f'processing_delay = "{rng.choice(["0s", "10us", "1ms"])}"')
        if rng.random() < 0.3:
            out.append(f'payload = "{rng.choice(["1B", "100B", "1024B", "8000B"])}"')
    for i in range(rng.choice([1, 1, 2, 3, 4])):
        out += ["", f"[apps.C{i}]", 'type = "consumer"', f'node = "{rng.choice(nodes)}"']
        out.append(f'prefix = "{rng.choice(prefixes)}"')
        if rng.random() < 0.7:
            out.append(f"window = {_fill(rng.choice(_WINDOWS), rng)}")
        else:
            out.append(f"rate = {_fill(rng.choice(_RATES), rng)}")
        if rng.random() < 0.3:
            out.append(f'start = "{rng.choice(["0s", "10ms", "100ms"])}"')
        if rng.random() < 0.2:
            out.append(f'lifetime = "{rng.choice(["10ms", "100ms", "4s"])}"')
        if rng.random() < 0.2:
            out.append(f"segments = {rng.choice([1, 10, 1000])}")
    if n > 1 and rng.random() < 0.2:
        a, b = rng.sample(nodes, 2)
        out += ["", "[apps.T]", 'type = "tcp"', f'node = "{a}"', f'to = "{b}"']
    if n > 1 and rng.random() < 0.15:
        a, b = rng.sample(nodes, 2)
        out += [
            "",
            "[apps.U]",
            'type = "cbr"',
            f'node = "{a}"',
            f'to = "{b}"',
            f'rate = "{rng.choice(_BANDWIDTHS)}"',
        ]
    if n > 1 and rng.random() < 0.1:
        a, *rest = rng.sample(nodes, min(n, 3))
        receivers = ", ".join(f'"{r}"' for r in rest)
        out += ["", "[apps.M]", 'type = "multicast"', f'node = "{a}"', f"receivers = [{receivers}]"]
    if rng.random() < 0.3:
        out += ["", "[record]", f'interval = "{rng.choice(["0s", "1ms", "10ms", "100ms"])}"']
        out.append(f"events = {rng.choice(['true', 'false'])}")
    return "\n".join(out) + "\n"


# ---------------------------------------------------------------- cases


@dataclass
class Case:
    """One scenario to try: where it came from and what was done to it."""

    number: int
    origin: str
    change: str
    text: str
    #: Extra arguments for ``ndncc run`` (the duration cut).
    run_args: list[str] = field(default_factory=list)


@dataclass
class Outcome:
    number: int
    origin: str
    change: str
    kind: str
    code: Optional[int]
    peak_mb: float
    seconds: float
    output: str


#: A file a scenario refers to by a path relative to itself (a link's delivery trace or rate
#: series): ``trace = "…"`` or ``series = "…"``.
_REFERENCED_FILE = re.compile(r'\b(trace|series)(\s*=\s*)"([^"]+)"')


def anchored(text: str, folder: Path) -> str:
    """``text`` with the relative paths of the files it refers to made absolute from ``folder``:
    a mutant runs from a folder of its own, and should still find its traces."""

    def absolute(m: re.Match) -> str:
        path = Path(m.group(3))
        return m.group(0) if path.is_absolute() else f'{m.group(1)}{m.group(2)}"{(folder / path).as_posix()}"'

    return _REFERENCED_FILE.sub(absolute, text)


def sources(folders: Sequence[Path]) -> dict[str, str]:
    """Every ``*.toml`` scenario in ``folders``, by file name, with the files it refers to
    given by absolute paths."""
    found = {}
    for folder in folders:
        for path in sorted(folder.glob("*.toml")):
            found[path.name] = anchored(path.read_text(encoding="utf-8"), path.parent.resolve())
    return found


def default_folders() -> list[Path]:
    """The shipped scenarios, and in a checkout the documentation's examples too."""
    from . import shipped

    folders = [shipped.folder("scenario")]
    examples = Path(__file__).resolve().parents[2] / "docs" / "examples"
    if examples.is_dir():
        folders.append(examples)
    return folders


def _seconds(text: object) -> Optional[float]:
    if not isinstance(text, str):
        return None
    m = magnitude(text)
    return m[1] if m and m[0] == "time" else None


def _latest_start(doc: object) -> float:
    """The latest ``start`` (or ``start_jitter``, or an event's ``at``) written anywhere in a
    parsed scenario [s]: a cut duration keeps the apps starting and the events happening."""
    latest = 0.0
    if isinstance(doc, dict):
        for k, v in doc.items():
            s = _seconds(v) if k in ("start", "start_jitter", "at") else None
            latest = max(latest, s or 0.0, _latest_start(v))
    elif isinstance(doc, list):
        for v in doc:
            latest = max(latest, _latest_start(v))
    return latest


def duration_cut(original: str, mutated: str, clamp: float = CLAMP_S) -> list[str]:
    """``--set simulation.duration=…`` for a mutant whose duration the mutation left alone: at
    most ``clamp`` seconds, but past the latest app start so that the apps still run."""
    try:
        before, after = tomlread.loads(original), tomlread.loads(mutated)
    except (tomlread.TOMLDecodeError, ValueError):
        return []
    duration = (
        _seconds(after.get("simulation", {}).get("duration"))
        if isinstance(after.get("simulation"), dict)
        else None
    )
    if duration is None or after.get("simulation") != before.get("simulation"):
        return []
    cut = max(clamp, _latest_start(after) + 1.0)
    return ["-s", f'simulation.duration="{cut:g}s"'] if cut < duration else []


def cases(
    count: int, topologies: int, seed: int, folders: Optional[Sequence[Path]] = None, clamp: float = CLAMP_S
) -> Iterator[Case]:
    """``count`` mutants of the scenarios in ``folders`` (each scenario in turn, so every one is
    mutated), then ``topologies`` random topologies."""
    rng = random.Random(seed)
    texts = sources(folders if folders is not None else default_folders())
    names = sorted(texts)
    for n in range(count):
        name = names[n % len(names)]
        text, change = texts[name], ""
        for _ in range(rng.choice([1, 1, 1, 1, 2, 3])):
            text, one = mutate(text, rng)
            change += f"{one}; "
        yield Case(n, name, change, text, duration_cut(texts[name], text, clamp))
    for n in range(topologies):
        yield Case(count + n, "topology", f"random topology {n}", topology(rng))


# ---------------------------------------------------------------- running one case

#: The child: validate, then run when that passed; one interpreter, its exit code the first
#: that is not 0. A SIGINT there is Ctrl-C for ndncc.
_CHILD = """
import sys
from ndncc import cli
scenario, out, peak, *run_args = sys.argv[1:]
code = cli.main(["validate", scenario])
if code == 0:
    code = cli.main(["run", scenario, "-o", out, *run_args])
sys.stdout.flush(); sys.stderr.flush()
with open("/proc/self/status") as status, open(peak, "w") as f:
    f.write(next((line.split()[1] for line in status if line.startswith("VmHWM:")), "0"))
cli.leave(code)
"""


def _rss_bytes(pid: int) -> int:
    try:
        with open(f"/proc/{pid}/status", encoding="ascii") as f:
            for line in f:
                if line.startswith("VmRSS:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return 0


def run_case(case: Case, work: Path, timeout: float, memory_limit: int) -> Outcome:
    """Run ``case`` in a child process: SIGINT at ``timeout``, killed ``GRACE_S`` later, and
    killed at once when its resident memory passes ``memory_limit``."""
    folder = Path(tempfile.mkdtemp(prefix=f"case{case.number}-", dir=work))
    scenario = folder / "scenario.toml"
    scenario.write_text(case.text, encoding="utf-8")
    log = folder / "output.txt"
    env = {**os.environ, "NDNCC_DEBUG": "", "PYTHONFAULTHANDLER": ""}
    peak_file = folder / "peak-kb"
    command = [
        sys.executable,
        "-c",
        _CHILD,
        str(scenario),
        str(folder / "out"),
        str(peak_file),
        *case.run_args,
    ]
    started = time.monotonic()
    with open(log, "wb") as output:
        # Ctrl-C as a terminal sends it: the child starts with SIGINT at its default (a campaign
        # run in the background would otherwise hand it down ignored), in a session of its own.
        proc = subprocess.Popen(
            command, stdin=subprocess.DEVNULL, stdout=output, stderr=subprocess.STDOUT, env=env, cwd=folder,
            start_new_session=True, preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_DFL),
        )  # fmt: skip
        killed_for, interrupted = "", False
        peak = 0
        while True:
            try:
                pid, status, usage = os.wait4(proc.pid, os.WNOHANG)
            except ChildProcessError:
                pid, status, usage = proc.pid, 0, None
            if pid == proc.pid:
                break
            now = time.monotonic() - started
            rss = _rss_bytes(proc.pid)
            peak = max(peak, rss)
            if rss > memory_limit and not killed_for:
                os.killpg(proc.pid, signal.SIGKILL)
                killed_for = "oom"
            elif now > timeout and not interrupted:
                os.killpg(proc.pid, signal.SIGINT)
                interrupted = True
            elif now > timeout + GRACE_S and not killed_for:
                os.killpg(proc.pid, signal.SIGKILL)
                killed_for = "hang"
            time.sleep(0.05)
    seconds = time.monotonic() - started
    # The child's own high-water mark (its rusage would count what its parent held when it forked).
    with contextlib.suppress(OSError, ValueError):
        peak = max(peak, int(peak_file.read_text()) * 1024)
    code = os.waitstatus_to_exitcode(status) if usage is not None else proc.returncode
    proc.returncode = code  # reaped by wait4 above
    text = log.read_text(encoding="utf-8", errors="replace")
    kind = classify(code, text, interrupted, killed_for, peak, memory_limit)
    if kind not in FAILURES:
        _remove(folder)
    peak_mb, tail = round(peak / 2**20, 1), text[-3000:]
    return Outcome(case.number, case.origin, case.change, kind, code, peak_mb, round(seconds, 2), tail)


def _remove(folder: Path) -> None:
    import shutil

    shutil.rmtree(folder, ignore_errors=True)


def classify(
    code: Optional[int], text: str, interrupted: bool, killed_for: str, peak: int, limit: int
) -> str:
    if killed_for == "oom" or peak > limit:
        return "oom"
    if killed_for == "hang":
        return "hang"
    if "Traceback" in text or "panicked" in text or "PanicException" in text or "internal error" in text:
        return "internal"
    if interrupted and code == 130:
        return "ended" if "after Ctrl-C: ended" in text else "stopped"
    lines = [line for line in text.splitlines() if line.strip()]
    problems = [line for line in lines if not line.startswith(("warning: ", "OK ", "error: "))]
    if code == 0:
        return "ok"
    if code == 2:
        errors = [line for line in lines if line.startswith("error: ")]
        clean = len(errors) == 1 and lines[-1] == errors[0] and all(len(line) <= MAX_LINE for line in lines)
        return "refused" if clean and not problems else "unclean"
    if code == 3:
        return "controller"
    return "internal"


# ---------------------------------------------------------------- the campaign


def campaign(
    all_cases: Sequence[Case],
    jobs: int = 2,
    timeout: float = TIMEOUT_S,
    memory_limit: int = MEMORY_LIMIT,
    log: Optional[Callable[[str], None]] = None,
) -> dict:
    """Run every case, ``jobs`` at a time; the counts per class and origin, and the failures."""
    counts: Counter = Counter()
    by_origin: dict[str, Counter] = {}
    failures: list[dict] = []
    stopped: list[dict] = []
    largest: list[tuple[float, int, str, str]] = []
    peak = 0.0
    lock = threading.Lock()
    started = time.monotonic()
    texts = {c.number: c for c in all_cases}
    with tempfile.TemporaryDirectory(prefix="ndncc-fuzz-") as work:

        def one(case: Case) -> None:
            nonlocal peak
            outcome = run_case(case, Path(work), timeout, memory_limit)
            with lock:
                counts[outcome.kind] += 1
                by_origin.setdefault(outcome.origin, Counter())[outcome.kind] += 1
                peak = max(peak, outcome.peak_mb)
                largest.append((outcome.peak_mb, case.number, case.origin, case.change))
                largest[:] = sorted(largest, reverse=True)[:5]
                if outcome.kind in ("stopped", "ended"):
                    stopped.append({"number": case.number, "kind": outcome.kind, "origin": case.origin,
                                    "change": case.change})  # fmt: skip
                if outcome.kind in FAILURES:
                    failures.append({**asdict(outcome), "text": texts[case.number].text,
                                     "run_args": case.run_args})  # fmt: skip
                    if log:
                        ending = f"{outcome.kind} (exit {outcome.code})"
                        log(f"case {case.number} {case.origin}: {ending}: {case.change}")
                done = sum(counts.values())
                if log and done % 100 == 0:
                    log(f"{done}/{len(all_cases)} cases: {dict(counts)}")

        with ThreadPoolExecutor(jobs) as pool:
            list(pool.map(one, all_cases))
    return {
        "cases": len(all_cases),
        "counts": {k: counts.get(k, 0) for k in CLASSES},
        "failures_total": sum(counts.get(k, 0) for k in FAILURES),
        "by_origin": {k: dict(v) for k, v in sorted(by_origin.items())},
        "peak_rss_mb": peak,
        "largest": [{"peak_mb": m, "number": n, "origin": o, "change": c} for m, n, o, c in largest],
        "wall_seconds": round(time.monotonic() - started, 1),
        "stopped": sorted(stopped, key=lambda f: f["number"]),
        "failures": sorted(failures, key=lambda f: f["number"]),
    }


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(
        prog="python -m ndncc.fuzzing",
        description="Run ndncc on mutated shipped scenarios and random topologies.",
    )
    parser.add_argument("--mutants", type=int, default=3000, help="mutated scenarios (default 3000)")
    parser.add_argument("--topologies", type=int, default=500, help="random topologies (default 500)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument(
        "--timeout", type=float, default=TIMEOUT_S, help="seconds before a case is sent SIGINT"
    )
    parser.add_argument("--memory", type=float, default=MEMORY_LIMIT / 2**30, help="GiB of resident memory")
    parser.add_argument("--jobs", type=int, default=2)
    parser.add_argument("--clamp", type=float, default=CLAMP_S, help="longest simulated seconds of a mutant")
    parser.add_argument("--source", type=Path, action="append", help="folder of scenarios to mutate")
    parser.add_argument("--json", type=Path, help="write the report (with every failing case) here")
    parser.add_argument("--keep", type=Path, help="write each failing scenario into this folder")
    options = parser.parse_args(argv)
    all_cases = list(cases(options.mutants, options.topologies, options.seed, options.source, options.clamp))

    def say(line: str) -> None:
        print(line, file=sys.stderr, flush=True)

    report = campaign(all_cases, options.jobs, options.timeout, int(options.memory * 2**30), say)
    report["command"] = "python -m ndncc.fuzzing " + " ".join(sys.argv[1:] if argv is None else argv)
    if options.json:
        options.json.write_text(json.dumps(report, indent=1))
    if options.keep:
        options.keep.mkdir(parents=True, exist_ok=True)
        for f in report["failures"]:
            (options.keep / f"case{f['number']}-{f['kind']}.toml").write_text(f["text"])
    print(json.dumps({k: v for k, v in report.items() if k not in ("failures", "stopped")}, indent=1))
    return 1 if report["failures_total"] else 0


if __name__ == "__main__":
    sys.exit(main())
