"""The ``ndncc`` command line (reference: docs/cli.md).

Every command is wrapped by :func:`errors.guarded`: an error is one line on stderr and an exit
code (2 bad input, 1 internal error, 130 interrupted), never a traceback.

The command line is click, and a command imports what only it uses (polars, rich, the sweep and
experiment modules) in its own body: ``ndncc run`` starts its engine after importing only the
scenario loader, and loads the table libraries while the engine runs (see ``Scenario.run``).
"""

from __future__ import annotations

import atexit
import gc
import json
import os
import signal
import socket
import sys
import threading
from contextlib import contextmanager
from pathlib import Path
from typing import TYPE_CHECKING, Callable, Iterator, List, NoReturn, Optional, Sequence

import click

from . import _core, output
from .errors import BadInput, describe, guarded, shorten
from .scenario import check_seed, load

if TYPE_CHECKING:
    import polars as pl
    from rich.console import Console
    from rich.progress import Progress

    from . import experiments
    from .scenario import Scenario
    from .sweeping import Status


@click.group(name="ndncc", no_args_is_help=True, context_settings={"max_content_width": 120})
@click.version_option(
    _core.__version__, prog_name="ndncc", message="%(prog)s %(version)s", help="Print the version and exit."
)
def app() -> None:
    """Deterministic packet-level simulator for NDN congestion control."""


@app.group("topo", no_args_is_help=True)
def topo_app() -> None:
    """Work with topologies from other simulators."""


@app.group(
    "scenarios", no_args_is_help=True, short_help="List or copy the scenario and sweep files ndncc ships."
)
def scenarios_app() -> None:
    """The scenario and sweep files ndncc ships: list them, or copy one to start from."""


def scenario_arg(help: str = "Scenario file (TOML).") -> Callable:
    """The SCENARIO argument: an existing file."""
    return click.argument(
        "scenario",
        metavar="SCENARIO",
        type=click.Path(exists=True, dir_okay=False, path_type=Path),
        help=help,
    )


def set_option() -> Callable:
    return click.option(
        "--set",
        "-s",
        "set_",
        metavar="KEY=VALUE",
        multiple=True,
        help="Override a scenario value; repeatable.",
    )


def stderr_console() -> Console:
    from rich.console import Console

    return Console(stderr=True)


def draws_progress() -> bool:
    """Whether stderr is a terminal to draw progress bars on; into a file or a pipe nothing is
    drawn, and rich is not even imported."""
    return sys.stderr is not None and sys.stderr.isatty()


@contextmanager
def sim_progress() -> Iterator[Progress]:
    """A progress bar over simulated seconds, drawn on stderr."""
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    console = stderr_console()
    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed:.1f}/{task.total:.1f} s simulated"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=True,
        disable=not console.is_terminal,  # nothing to draw into a file or pipe
    )
    with bar:
        yield bar


def run_with_progress(scenario: Scenario, seed: Optional[int], pcap: Optional[bool] = None):
    if not draws_progress():
        return scenario.run(seed=seed, pcap=pcap)
    with sim_progress() as bar:
        task = bar.add_task(scenario.name, total=scenario.duration or 1.0)
        return scenario.run(seed=seed, progress=lambda done: bar.update(task, completed=done), pcap=pcap)


@app.command(short_help="Run a scenario; write its data, summary and report.")
@scenario_arg()
@click.option("--out", "-o", metavar="DIR", help="Output folder (default: runs/<scenario name>).")
@click.option("--seed", type=int, metavar="N", help="Seed instead of the scenario's.")
@set_option()
@click.option(
    "--figures/--no-figures",
    default=False,
    show_default=True,
    help="Draw the figures too (slower than the run itself for short runs; `ndncc plot DIR` draws "
    "them later).",
)
@click.option(
    "--overwrite", is_flag=True, help="Replace the output folder even if it holds more than an earlier run."
)
@click.option(
    "--pcap/--no-pcap",
    default=None,
    help="Write a packet trace, trace.pcapng, into the output folder: of the faces the scenario's "
    "[record] pcap names, or every link face (default: if the scenario asks).",
)
@guarded
def run(
    scenario: Path,
    out: Optional[str],
    seed: Optional[int],
    set_: tuple[str, ...],
    figures: bool,
    overwrite: bool,
    pcap: Optional[bool],
) -> None:
    """Run a scenario and write its output folder (data, summary and report)."""
    if seed is not None:
        check_seed(seed)
    sc = load(scenario, list(set_))
    folder = output.folder_path(out) if out is not None else output.default_folder(sc.name)
    # Refused before the run rather than after it.
    target = Path(os.path.abspath(folder))
    output.check_target(target, output.is_run_folder, overwrite)
    output.check_writable(target)
    result = run_with_progress(sc, seed, pcap)
    try:
        result.save(folder, figures=figures, overwrite=overwrite)
    finally:
        if result.trace is not None:
            result.trace.unlink(missing_ok=True)
    s = result.stats
    traced = ", packet trace in trace.pcapng" if result.trace is not None else ""
    click.echo(
        f"{sc.name}: seed {result.seed}, {s.sim_seconds:g} s simulated in {s.wall_seconds:.2f} s, "
        f"{s.packet_hops:,} packet hops -> {folder}{traced}"
    )


@app.command(short_help="Run a scenario in real time with real NDN applications on its nodes.")
@scenario_arg()
@click.option(
    "--face",
    "faces",
    metavar="NODE=URI",
    multiple=True,
    help="Listen on URI (tcp://127.0.0.1:PORT, udp://127.0.0.1:PORT or unix:///PATH; port 0: any) "
    "like NFD's face of that transport; each connection becomes an application face on NODE. "
    "Repeatable.",
)
@click.option("--out", "-o", metavar="DIR", help="Output folder (default: runs/<scenario name>).")
@click.option("--seed", type=int, metavar="N", help="Seed instead of the scenario's.")
@set_option()
@click.option(
    "--connections",
    type=int,
    default=16,
    show_default=True,
    metavar="N",
    help="Connections each --face takes at once (1 to 1024).",
)
@click.option(
    "--pcap/--no-pcap",
    default=None,
    help="Write a packet trace, trace.pcapng (default: if the scenario asks).",
)
@click.option("--overwrite", is_flag=True, help="Replace the output folder even if it holds more than a run.")
@guarded
def emulate(
    scenario: Path,
    faces: tuple[str, ...],
    out: Optional[str],
    seed: Optional[int],
    set_: tuple[str, ...],
    connections: int,
    pcap: Optional[bool],
    overwrite: bool,
) -> None:
    """Run SCENARIO paced to the wall clock, real applications attached by --face, until its
    duration or Ctrl-C; print `ready` once listening, then write the run folder."""
    from . import emulation

    sc = emulation.load(scenario, list(set_))
    folder = emulation.target_folder(sc, out, overwrite)
    emulation.run(sc, faces, folder, seed=seed, connections=connections, pcap=pcap, overwrite=overwrite)


def _count(section: object) -> int:
    return len(section) if isinstance(section, (dict, list)) else 0


@app.command()
@scenario_arg()
@set_option()
@guarded
def validate(scenario: Path, set_: tuple[str, ...]) -> None:
    """Check a scenario without running it."""
    sc = load(scenario, list(set_))
    d = sc.to_dict()
    nodes, links, apps = (_count(d.get(k)) for k in ("nodes", "links", "apps"))
    click.echo(
        f"OK {scenario}: {sc.name}: {nodes} nodes, {links} links, {apps} apps, "
        f"{sc.duration:g} s simulated, seed {sc.seed}"
    )


@app.command(short_help="Redraw a run's figures and report, or plot a sweep.")
@click.argument("folder", type=click.Path(path_type=Path), help="A run's or a sweep's output folder.")
@click.option(
    "--format",
    "format_",
    default="png",
    show_default=True,
    help="Figure files: png, pdf (for papers) or svg.",
)
@click.option(
    "--style",
    type=click.Choice(["screen", "paper"]),
    default="screen",
    show_default=True,
    help="paper: serif text matching LaTeX's Times at 8 pt, one column wide.",
)
@click.option(
    "--label",
    "labels",
    metavar="NAME=TEXT",
    multiple=True,
    help="Legend or axis text for an app, face, axis, grid value or metric; repeatable.",
)
@guarded
def plot(folder: Path, format_: str, style: str, labels: tuple[str, ...]) -> None:
    """Redraw a run folder's figures and report.md, or draw a sweep folder's plots.

    A sweep folder gets each metric against the swept parameter, with 95% confidence bands."""
    from . import report, sweepplot, sweepstore

    named = {}
    for given in labels:
        name, sep, text = given.partition("=")
        if not sep or not name.strip():
            raise BadInput(f"--label {given!r}: expected NAME=TEXT, as --label C1='AIMD, beta 0.5'")
        named[name.strip()] = text
    if sweepstore.is_sweep_folder(folder):
        figures = sweepplot.render(folder, format=format_, labels=named, style=style)
        click.echo(f"{folder}: {len(figures)} figures in {sweepplot.FIGURES}/, {output.REPORT}")
        return
    figures = report.render_run(output.read_run(folder), format=format_, labels=named, style=style)
    click.echo(f"{folder}: {len(figures)} figures, {output.REPORT}")


@contextmanager
def sweep_progress() -> Iterator[Callable[[Status], None]]:
    """A progress bar over a sweep's runs (done, failed, running, ETA), drawn on stderr when it
    is a terminal and gone once the sweep ends."""
    from . import display

    console = stderr_console()
    with display.sweep_bar(console if console.is_terminal else None, transient=True) as update:
        yield update or (lambda status: None)


@app.command()
@scenario_arg("Scenario file, or a sweep file (TOML with scenario, seeds, [grid], [set]).")
@click.option(
    "--grid",
    "-g",
    metavar="KEY=V1,V2,...",
    multiple=True,
    help="An axis of the grid; comma-joined keys change together; repeatable.",
)
@click.option(
    "--seeds", type=int, metavar="N", help="Seeds 1..N per point (default: the sweep file's or 10)."
)
@set_option()
@click.option("--out", "-o", metavar="DIR", help="Sweep folder (default: runs/<name>-sweep).")
@click.option("--workers", type=int, metavar="N", help="Local worker processes (default: one per core).")
@click.option("--dask", metavar="ADDRESS", help="Run on this Dask scheduler instead.")
@click.option("--metric", "-m", metavar="NAME", multiple=True, help="Metric for the final table; repeatable.")
@click.option("--keep-series", is_flag=True, help="Also keep each run's time series.")
@click.option(
    "--timeout", type=float, metavar="SECONDS", help="Stop and fail a run after this many wall seconds."
)
@guarded
def sweep(
    scenario: Path,
    grid: tuple[str, ...],
    seeds: Optional[int],
    set_: tuple[str, ...],
    out: Optional[str],
    workers: Optional[int],
    dask: Optional[str],
    metric: tuple[str, ...],
    keep_series: bool,
    timeout: Optional[float],
) -> None:
    """Run a scenario over a grid of overrides and seeds, in parallel.

    Finished runs are kept and skipped when the sweep is run again."""
    from .grid import parse_option
    from .sweeping import SweepFailed
    from .sweeping import sweep as run_sweep

    if workers is not None and dask is not None:
        raise BadInput("--workers and --dask exclude each other")
    with sweep_progress() as progress:
        try:
            result = run_sweep(
                scenario,
                grid=[parse_option(g) for g in grid],
                seeds=seeds,
                executor=dask if dask is not None else workers,
                out=out,
                overrides=list(set_),
                metrics=list(metric) or None,
                keep_series=keep_series,
                timeout=timeout,
                progress=progress,
            )
        except SweepFailed as e:
            # Every run failed: say why each did, as for a sweep with some failures.
            result = e.result
    shown = result.summary()
    s = result.status
    caption = f"{s.done + s.skipped} of {s.total} runs finished, {s.failed} failed"
    print_table(shown, [a.name for a in result.plan.axes], caption)
    missing = set(metric) - set(shown["metric"].to_list()) if result.runs.height else set()
    for name in sorted(missing):
        click.echo(f"note: no run reported a metric {name!r}", err=True)
    for problem in result.repaired:
        click.echo(f"note: ran again: {problem}", err=True)
    for f in result.failures:
        point = ", ".join(f"{k}={v}" for k, v in f["point"].items())
        click.echo(f"failed: {point or 'run'} seed {f['seed']}: {f['error']}", err=True)
    click.echo(
        f"{result.plan.name}: {s.total} runs: {s.done} done, {s.skipped} already done, "
        f"{s.failed} failed -> {result.out}",
        err=True,
    )
    if s.failed:
        raise SystemExit(1)


def print_table(table: pl.DataFrame, axes: List[str], caption: str) -> None:
    """Mean and 95% CI per grid point, entity and metric, on standard output."""
    from rich.table import Table

    from . import report, sweepplot

    out = Table(*axes, "entity", "metric", "n", "mean", "± 95% CI", "unit", caption=caption)
    for r in table.iter_rows(named=True):
        out.add_row(
            *(r[a] for a in axes),
            r["entity"],
            r["metric"],
            str(r["n"]),
            report.fmt(r["mean"]),
            sweepplot.ci_text(r["ci95"]),
            r["unit"],
        )
    wide_console().print(out)


def wide_console() -> Console:
    """The terminal's console, or for a file or a pipe one wide enough not to wrap a table."""
    from rich.console import Console

    console = Console()
    return console if console.is_terminal else Console(width=240)


@app.command(short_help="Measure engine speed in packet hops per second.")
@click.option("--json", "json_", is_flag=True, help="One JSON object per line instead of a table.")
@click.option(
    "--scenario", metavar="NAME", help="Only this benchmark scenario, a scale case included (see --all)."
)
@click.option(
    "--all",
    "all_",
    is_flag=True,
    help="Also the scale cases: 10,000 consumers, 1 and 10 Gbit/s, TCP, 1,000-node tree and grid.",
)
@click.option(
    "--duration",
    type=float,
    metavar="SECONDS",
    help=f"Simulated seconds per scenario (more than 0, at most {_core.BENCH_MAX_SECONDS:g}; "
    f"default {_core.BENCH_SECONDS:g}).",
)
@click.option(
    "--repeat",
    type=int,
    metavar="N",
    help="Runs of each scenario, in rounds; the timings reported are their medians, with the "
    "range of ns/hop (default 1; with --command, its timed runs, default 5).",
)
@click.option(
    "--no-record",
    is_flag=True,
    help="Run the same scenarios without their 100 ms samples: the difference is what recording costs.",
)
@click.option(
    "--command",
    is_flag=True,
    help="Instead, time `ndncc run` of the shipped e4-ndnsim scenario end to end, against the "
    "engine's own time.",
)
@guarded
def bench(
    json_: bool,
    scenario: Optional[str],
    all_: bool,
    duration: Optional[float],
    repeat: Optional[int],
    no_record: bool,
    command: bool,
) -> None:
    """Measure engine speed (packet hops per second) on the standard scenarios."""
    from rich.table import Column, Table

    from . import benchmark

    if repeat is not None and not 1 <= repeat <= benchmark.MAX_REPEAT:
        raise BadInput(f"--repeat: {repeat} is not a number of runs from 1 to {benchmark.MAX_REPEAT}")
    if command:
        if scenario is not None or all_ or duration is not None or no_record:
            raise BadInput(
                "--command runs its own scenario: it excludes --scenario, --all, --duration and --no-record"
            )
        bench_command(json_, benchmark.COMMAND_RUNS if repeat is None else repeat)
        return
    repeat = 1 if repeat is None else repeat
    most = _core.BENCH_MAX_SECONDS
    duration = _core.BENCH_SECONDS if duration is None else duration
    if not (0.0 < duration <= most):  # also false for NaN
        raise BadInput(f"--duration: {duration} is not more than 0 and at most {most:g} simulated seconds")
    if scenario is not None and all_:
        raise BadInput("--scenario and --all exclude each other")
    names = _core.bench_names(all=all_)
    if scenario is not None:
        known = _core.bench_names(all=True)
        if scenario not in known:
            raise BadInput(f"no benchmark scenario {scenario!r} (known: {', '.join(known)})")
        names = [scenario]
    with stderr_console().status("bench") as status:

        def running(name: str, round_: int) -> None:
            status.update(f"bench {name}" + (f" (run {round_} of {repeat})" if repeat > 1 else ""))

        def done(measurement: dict) -> None:
            if json_:
                click.echo(json.dumps(measurement))

        results = benchmark.run_rounds(
            names, duration, repeat, on_run=running, on_done=done, record=not no_record
        )
    if not json_:
        # Events and simulated seconds are in --json; the table keeps to a terminal's width.
        spread = ["ns/hop range"] if repeat > 1 else []
        table = Table(
            Column("scenario", no_wrap=True),
            "set-up s",
            "wall s",
            "packet hops",
            "hops/s",
            "ns/hop",
            *spread,
            "peak MB",
            "recorded MB",
            "run faults",
        )
        for r in results:
            table.add_row(
                r["scenario"],
                f"{r['setup_seconds']:.3f}",
                f"{r['wall_seconds']:.3f}",
                f"{r['packet_hops']:,}",
                f"{r['packet_hops_per_s']:,.0f}",
                f"{r['ns_per_hop']:,.0f}",
                *([f"{r['ns_per_hop_min']:,.0f}-{r['ns_per_hop_max']:,.0f}"] if spread else []),
                f"{r['peak_rss_mb']:.1f}",
                f"{r['recorded_mb']:.1f}",
                f"{r['run_page_faults']:,.0f}",
            )
        captions = [f"medians of {repeat} runs each"] if repeat > 1 else []
        if results:
            captions.append(f"allocator {results[0]['allocator']}")
        for family in ("dumbbell", "tcp"):
            per_flow = benchmark.memory_per_flow(results, family)
            if per_flow is not None:
                kib, span = per_flow["kib_per_flow"], f"{per_flow['from']} to {per_flow['to']}"
                captions.append(f"memory per added flow {kib:.1f} KiB ({span})")
        if captions:
            table.caption = "; ".join(captions)
        wide_console().print(table)


def bench_command(json_: bool, runs: int) -> None:
    """``ndncc bench --command``: ``ndncc run`` of an E4 scenario, wall time against the engine's,
    over ``runs`` timed runs."""
    from rich.table import Table

    from . import benchmark, shipped

    with stderr_console().status(f"ndncc run {benchmark.COMMAND_SCENARIO}"):
        r = benchmark.time_command(shipped.scenario_path(benchmark.COMMAND_SCENARIO), runs)
    if json_:
        click.echo(json.dumps(r))
        return
    table = Table("command", "runs", "wall s", "engine s", "wall / engine", "range")
    table.add_row(
        r["command"],
        str(r["runs"]),
        f"{r['wall_seconds']:.3f}",
        f"{r['engine_seconds']:.3f}",
        f"{r['wall_per_engine']:.2f}",
        f"{r['wall_per_engine_min']:.2f}-{r['wall_per_engine_max']:.2f}",
    )
    wide_console().print(table)


def read_topology(path: Path) -> tuple[str, str]:
    """The topology text and its format: ``minindn`` for a ``.conf`` file or one with a ``[nodes]``
    section, ``ndnsim`` otherwise."""
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise BadInput(f"{path}: not a topology text file (no UTF-8 at byte {e.start})") from None
    lines = {line.strip().lower() for line in text.splitlines()}
    kind = "minindn" if path.suffix == ".conf" or "[nodes]" in lines else "ndnsim"
    return text, kind


def converted_header(file: Path, kind: str, ignored: Sequence[str] = ()) -> str:
    """The comment a converted topology starts with: where it came from, what was left out, and
    what to add."""
    simulator = "Mini-NDN" if kind == "minindn" else "ndnSIM"
    lines = [
        f"# Converted from {file.name} ({simulator} topology) by `ndncc topo convert`; values at ndncc's",
        "# defaults are left out (docs/scenario-reference.md). Add [apps.NAME] tables for traffic.",
    ]
    if ignored:
        lines.append("# Left out (ndncc computes its routes and uses no NLSR settings):")
        lines += [f"#   {note}" for note in ignored]
    return "\n".join(lines) + "\n\n"


#: Mini-NDN node parameters the conversion uses, or that only place the node in a drawing; the
#: others (NLSR's router and network names, …) are left out with a note.
MININDN_NODE_KEYS = ("cache", "radius", "angle")


def minindn_ignored(text: str) -> list[str]:
    """``line N: node a: router=/x, network=/ndn`` for each node line of a Mini-NDN topology
    whose parameters the conversion leaves out (NLSR's router and network names, positions)."""
    notes, section = [], ""
    for n, raw in enumerate(text.splitlines(), 1):
        line = raw.split("#", 1)[0].strip()
        if line.startswith("["):
            section = line.lower()
            continue
        if section != "[nodes]" or ":" not in line:
            continue
        name, _, params = line.partition(":")
        dropped = [p for p in params.split() if "=" in p and p.split("=", 1)[0] not in MININDN_NODE_KEYS]
        if dropped:
            notes.append(f"line {n}: node {name.strip()}: {', '.join(dropped)}")
    return notes


@topo_app.command("convert")
@click.argument(
    "file",
    type=click.Path(exists=True, dir_okay=False, path_type=Path),
    help="ndnSIM topology text or Mini-NDN .conf.",
)
@click.option("--out", "-o", metavar="FILE", help="TOML file to write (default: standard output).")
@guarded
def topo_convert(file: Path, out: Optional[str]) -> None:
    """Convert an ndnSIM or Mini-NDN topology into a scenario file.

    Only values that differ from ndncc's defaults are written."""
    target = output.folder_path(out) if out is not None else None
    text, kind = read_topology(file)
    convert = _core.import_minindn if kind == "minindn" else _core.import_ndnsim
    body = convert(text, str(file))
    ignored = minindn_ignored(text) if kind == "minindn" else []
    toml = converted_header(file, kind, ignored) + body
    if target is None:
        click.echo(toml, nl=False)
    else:
        output.write_text(target, toml)
        click.echo(f"{file} ({kind}) -> {target}", err=True)
    for note in ignored:
        click.echo(f"note: {file}: {note}: left out (ndncc computes its routes, without NLSR)", err=True)
    click.echo(
        f"note: {file}: no apps yet; add [apps.NAME] tables (a consumer and a producer) to send traffic",
        err=True,
    )


@scenarios_app.command("list")
@guarded
def scenarios_list() -> None:
    """List the shipped scenario and sweep files.

    One line each: name, kind and the first sentence of the file's leading comment."""
    from . import shipped

    files = shipped.shipped()
    width = max((len(f.name) for f in files), default=0)
    for f in files:
        click.echo(f"{f.name:<{width}}  {f.kind:<8}  {f.description}")


@scenarios_app.command("copy")
@click.argument("name", help="A name from 'ndncc scenarios list'.")
@click.argument(
    "dest",
    default=".",
    required=False,
    help="Folder to copy into (default: the current one), or the new file's path.",
)
@click.option("--force", is_flag=True, help="Replace files that are already there.")
@guarded
def scenarios_copy(name: str, dest: str, force: bool) -> None:
    """Copy a shipped scenario or sweep file to start from.

    A sweep file takes its scenario along, written beside it. Existing files are kept unless
    --force is given."""
    from . import shipped

    if not dest:
        raise BadInput("DEST: an empty path names no file")
    for path in shipped.copy(name, dest, force):
        click.echo(str(path))


@app.command()
@click.argument("name", required=False, help="Experiment name, or 'all'.")
@click.option("--out", "-o", metavar="DIR", default="results", show_default=True, help="Results folder.")
@click.option("--quick", is_flag=True, help="Shorter runs, for smoke tests.")
@click.option("--list", "list_", is_flag=True, help="List the experiments and exit.")
@click.option(
    "--figures/--no-figures",
    default=False,
    show_default=True,
    help="Also draw each run's own figures into its folder (the experiments' figures are drawn "
    "either way; `ndncc plot DIR` draws a run's later).",
)
@guarded
def reproduce(name: Optional[str], out: str, quick: bool, list_: bool, figures: bool) -> None:
    """Reproduce a seed experiment (or all of them) into OUT/<name>."""
    from . import experiments

    known = experiments.experiments()
    if list_:
        for exp in known:
            click.echo(f"{exp.name}\t{exp.title}")
        if not known:
            click.echo("no experiments registered", err=True)
        return
    if name is None:
        raise BadInput("name an experiment or 'all' (see 'ndncc reproduce --list')")
    if name == "all":
        chosen = known
    else:
        try:
            chosen = [experiments.get(name)]
        except LookupError as e:
            raise BadInput(str(e)) from None
    if not chosen:
        click.echo("no experiments registered", err=True)
        return
    failed = reproduce_each(chosen, output.folder_path(out), quick, figures)
    if failed:
        raise SystemExit(1)


def reproduce_each(
    chosen: list[experiments.Experiment], out: Path, quick: bool, figures: bool = False
) -> int:
    """Run experiments one after another; a failure is reported and the rest still run.

    Each finished experiment's files are on disk before the next starts, and ``OUT/report.md``
    is rewritten after each, so a crash loses nothing already finished. Returns the failures.
    """
    from . import experiments

    status = {}
    with sim_progress() as bar:
        task = bar.add_task("", total=1.0)
        for exp in chosen:

            def progress(label: str, done: float, total: float, exp=exp) -> None:
                bar.update(task, description=f"{exp.name}: {label}", completed=done, total=total or 1.0)

            try:
                rows = experiments.run(exp, out, quick, progress, run_figures=figures)
                status[exp.name] = "ran"
                done = f"{exp.name}: {len(rows)} summary rows -> {out / exp.name}"
                bar.console.print(done, markup=False, highlight=False)
            except (KeyboardInterrupt, SystemExit):
                raise
            # One broken experiment must not stop the others, not even a crash of the engine.
            except BaseException as e:  # noqa: B036 - a Rust panic arrives as a BaseException
                status[exp.name] = "failed"
                bar.console.print(f"error: {exp.name}: {describe(e)}", markup=False, highlight=False)
            write_index(out, status)
    return sum(s == "failed" for s in status.values())


def write_index(out: Path, status: dict) -> None:
    """``OUT/report.md`` and ``OUT/scoreboard.json``: every registered experiment, whether it ran
    ("ran", "failed", "not run"), and the verdicts on its seed's claims found on disk for it."""
    from . import experiments, scoreboard

    entries = []
    for exp in experiments.experiments():
        folder = out / exp.name
        done = (folder / output.SUMMARY).is_file()
        state = status.get(exp.name) or ("ran" if done else "not run")
        board = scoreboard.read_experiment(folder) if done else None
        entries.append((exp.name, exp.title, state, board))
    output.write_text(out / output.REPORT, scoreboard.index_section(entries))
    board_json = json.dumps(scoreboard.index_json(entries), indent=1)
    output.write_text(out / scoreboard.SCOREBOARD, board_json + "\n")


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point of the ``ndncc`` script; returns the exit code."""
    try:
        # Not click's standalone mode, so that its usage errors pass here first: a long value
        # in one is cut short as in every other message.
        code = app.main(args=argv, prog_name="ndncc", standalone_mode=False)
    except click.ClickException as e:
        e.message = shorten(e.message)
        e.show()
        return e.exit_code
    except click.exceptions.Abort:
        click.echo("Aborted!", err=True)
        return 1
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    return code if isinstance(code, int) else 0


#: Seconds the command has after Ctrl-C to stop by itself before the process is ended: within
#: 2 s, whatever it is doing.
INTERRUPT_GRACE_S = 1.5


def end_after_interrupt(grace: float = INTERRUPT_GRACE_S) -> None:
    """Make Ctrl-C end the process within ``grace`` seconds, whatever it is doing. The engine and
    Python code stop at their next check (``KeyboardInterrupt``, exit code 130); code that makes
    none (a user's controller spinning in a C function, holding the GIL) is ended by a thread of
    the engine's that needs no GIL: woken by the signal itself, it ends the process with the same
    exit code once ``grace`` has passed."""
    watch = getattr(_core, "end_after_interrupt", None)
    ignored = signal.getsignal(signal.SIGINT) in (signal.SIG_IGN, None)  # a background job
    if watch is None or ignored or threading.current_thread() is not threading.main_thread():
        return
    reader, writer = socket.socketpair()
    writer.setblocking(False)
    try:
        signal.set_wakeup_fd(writer.fileno(), warn_on_full_buffer=False)
    except ValueError:
        return
    watch(reader.fileno(), grace)
    _kept.extend((reader, writer))  # open for as long as the process runs


#: The sockets of :func:`end_after_interrupt`.
_kept: list[socket.socket] = []


def script() -> NoReturn:
    """The ``ndncc`` script: :func:`main`, then :func:`leave`."""
    # The command does no linear algebra. numpy's OpenBLAS would start a thread per core that
    # spins for a while after numpy is imported, which is while the engine runs (ndncc.preload):
    # on two cores that took 40 ms from a 0.2 s run. A value the user set is kept.
    os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
    end_after_interrupt()
    leave(main())


def leave(code: int) -> NoReturn:
    """End the process with ``code`` once the exit handlers have run and the standard streams
    are flushed, without tearing the interpreter down. Everything the command wrote is closed
    by then, and the teardown would only free the objects of every module imported, some 8 ms
    with polars and numpy loaded (and 40 ms more for its final garbage collection).

    While a thread that is not a daemon runs, the process exits the usual way, which waits for
    it. A standard stream that cannot be flushed makes the exit code 120, as Python's does."""
    others = [t for t in threading.enumerate() if t is not threading.main_thread() and not t.daemon]
    if others:
        gc.freeze()
        sys.exit(code)
    atexit._run_exitfuncs()
    for stream in (sys.stdout, sys.stderr):
        try:
            if stream is not None:
                stream.flush()
        except (OSError, ValueError):
            code = code or 120
    os._exit(code)


if __name__ == "__main__":
    script()
