"""``ndncc emulate``: a scenario run in real time, with real NDN applications attached to its
nodes through sockets that behave like NFD's faces (reference: docs/emulation.md).

The engine runs on a thread of its own (``_core.Emulation``) and never waits for Python: this
module only prints what it reports, stops it on Ctrl-C and writes the run folder at the end.
"""

from __future__ import annotations

import os
import signal
import sys
import tempfile
from pathlib import Path
from typing import Optional, Sequence

import click

from . import _core, output
from .errors import BadInput
from .scenario import Scenario, check_seed

#: How often the main thread looks for Ctrl-C while the engine runs [s].
POLL_S = 0.1


def load(path: Path, overrides: list[str]) -> Scenario:
    """Load ``path`` for emulation: a consumer may fetch a prefix no simulated producer serves,
    since a real application may register it."""
    return Scenario(
        _core.load(path, overrides, emulation=True),
        lambda ov: _core.load(path, ov, emulation=True),
        overrides,
    )


def start(sc: Scenario, faces: Sequence[str], seed: Optional[int], connections: int, pcap: Optional[Path]):
    """Start emulating ``sc``; a bad ``--face`` or one that cannot listen is bad input."""
    try:
        path = None if pcap is None else str(pcap)
        return _core.emulate_start(sc._core, list(faces), seed=seed, connections=connections, pcap=path)
    except _core.FaceError as e:
        raise BadInput(str(e)) from None


def run(
    sc: Scenario,
    faces: Sequence[str],
    folder: Path,
    seed: Optional[int] = None,
    connections: int = 16,
    pcap: Optional[bool] = None,
    overwrite: bool = False,
) -> None:
    """Emulate until the scenario's duration or Ctrl-C, then write the run folder."""
    if seed is not None:
        check_seed(seed)
    if not 1 <= connections <= 1024:
        raise BadInput(f"--connections {connections}: expected 1 to 1024 per face")
    if not faces:
        raise BadInput("no --face given: name at least one NODE=URI to listen on")
    trace: Optional[Path] = None
    if pcap if pcap is not None else sc.pcap:
        fd, name = tempfile.mkstemp(prefix=f"ndncc-{sc.name}-", suffix=".pcapng")
        os.close(fd)
        trace = Path(name)
    em = start(sc, faces, seed, connections, trace)
    click.echo("ready " + " ".join(f"{node}={uri}" for node, uri in em.faces))
    sys.stdout.flush()
    # Ctrl-C ends the emulation and still writes its folder: a handler of its own asks the engine
    # to stop (a KeyboardInterrupt could strike anywhere in this loop), and the command line's
    # interrupt watcher (cli.end_after_interrupt), which would end the process from under it, is
    # detached. A second Ctrl-C stops at once.
    try:
        signal.set_wakeup_fd(-1)
    except ValueError:
        pass
    stopping = []

    def on_sigint(_signum, _frame) -> None:
        if stopping:
            raise KeyboardInterrupt
        stopping.append(True)
        em.stop()

    previous = signal.signal(signal.SIGINT, on_sigint)
    try:
        while True:
            said = em.wait(POLL_S)
            if said is False:
                break
            if said:
                click.echo(said, err=True)
        if stopping:
            click.echo("stopped (Ctrl-C): writing what ran", err=True)
    finally:
        signal.signal(signal.SIGINT, previous)
    from .result import Result

    raw = em.finish()
    lag = raw.pop("lag")
    result = Result(raw, sc, trace=trace)
    try:
        result.save(folder, figures=False, overwrite=overwrite)
    finally:
        if trace is not None:
            trace.unlink(missing_ok=True)
    s = result.stats
    click.echo(
        f"{sc.name}: {s.sim_seconds:.2f} s in real time, {s.packet_hops:,} packet hops; engine behind the "
        f"wall clock: p50 {lag['p50_ms']:.3f} ms, p99 {lag['p99_ms']:.3f} ms, max {lag['max_ms']:.3f} ms "
        f"over {lag['events']:,} events -> {folder}"
    )
    if lag["p99_ms"] > 1.0:
        click.echo(
            f"warning: the engine ran {lag['p99_ms']:.2f} ms behind the wall clock at p99: on this machine "
            "the scenario may be too large to run in real time",
            err=True,
        )


def target_folder(sc: Scenario, out: Optional[str], overwrite: bool) -> Path:
    folder = output.folder_path(out) if out is not None else output.default_folder(sc.name)
    target = Path(os.path.abspath(folder))
    output.check_target(target, output.is_run_folder, overwrite)
    output.check_writable(target)
    return folder
