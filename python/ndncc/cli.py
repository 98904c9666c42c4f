"""The ``ndncc`` command line (reference: docs/cli.md).

Every command is wrapped by :func:`errors.guarded`: an error is one line on stderr and an exit
code (2 bad input, 1 internal error, 130 interrupted), never a traceback.
"""

from __future__ import annotations

import json
import os
import sys
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, Callable, Iterator, List, Optional

import polars as pl
import typer
from rich.console import Console
from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn
from rich.table import Column, Table

from . import _core, benchmark, experiments, output, report, shipped, sweepplot, sweepstore
from .errors import BadInput, describe, guarded
from .grid import parse_option
from .result import is_run_folder
from .scenario import Scenario, check_seed, load
from .sweep import Status, SweepFailed
from .sweep import sweep as run_sweep

# Help texts are rich markup (the mode typer picks when rich is installed, stated here so that
# it holds for every typer version): a literal `[` is escaped, as in "\\[grid]".
app = typer.Typer(
    name="ndncc",
    help="Deterministic packet-level simulator for NDN congestion control.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode="rich",
)
topo_app = typer.Typer(help="Work with topologies from other simulators.", no_args_is_help=True)
app.add_typer(topo_app, name="topo")
scenarios_app = typer.Typer(
    help="The scenario and sweep files ndncc ships: list them, or copy one to start from.",
    no_args_is_help=True,
)
app.add_typer(scenarios_app, name="scenarios")

stderr = Console(stderr=True)


ScenarioArg = Annotated[
    Path,
    typer.Argument(
        metavar="SCENARIO", help="Scenario file (TOML).", exists=True, dir_okay=False, show_default=False
    ),
]
SetOption = Annotated[
    Optional[List[str]],
    typer.Option("--set", "-s", metavar="KEY=VALUE", help="Override a scenario value; repeatable."),
]


def _version(value: bool) -> None:
    if value:
        typer.echo(f"ndncc {_core.__version__}")
        raise typer.Exit()


@app.callback()
def _root(
    version: Annotated[
        bool, typer.Option("--version", callback=_version, is_eager=True, help="Print the version and exit.")
    ] = False,
) -> None:
    """Deterministic packet-level simulator for NDN congestion control."""


@contextmanager
def sim_progress() -> Iterator[Progress]:
    """A progress bar over simulated seconds, drawn on stderr."""
    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed:.1f}/{task.total:.1f} s simulated"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=stderr,
        transient=True,
        disable=not stderr.is_terminal,  # nothing to draw into a file or pipe
    )
    with bar:
        yield bar


def run_with_progress(scenario: Scenario, seed: Optional[int], pcap: Optional[bool] = None):
    with sim_progress() as bar:
        task = bar.add_task(scenario.name, total=scenario.duration or 1.0)
        return scenario.run(seed=seed, progress=lambda done: bar.update(task, completed=done), pcap=pcap)


@app.command()
@guarded
def run(
    scenario: ScenarioArg,
    out: Annotated[
        Optional[str], typer.Option("--out", "-o", help="Output folder (default: runs/<scenario name>).")
    ] = None,
    seed: Annotated[Optional[int], typer.Option(help="Seed instead of the scenario's.")] = None,
    set_: SetOption = None,
    figures: Annotated[
        bool,
        typer.Option(
            "--figures/--no-figures",
            help="Draw the figures too (slower than the run itself for short runs; `ndncc plot DIR` "
            "draws them later).",
        ),
    ] = False,
    overwrite: Annotated[
        bool,
        typer.Option(
            "--overwrite", help="Replace the output folder even if it holds more than an earlier run."
        ),
    ] = False,
    pcap: Annotated[
        Optional[bool],
        typer.Option(
            "--pcap/--no-pcap",
            help="Write a packet trace, trace.pcapng, into the output folder: of the faces "
            "the scenario's \\[record] pcap names, or every link face (default: if the scenario asks).",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Run a scenario and write its output folder (data, summary and report)."""
    if seed is not None:
        check_seed(seed)
    sc = load(scenario, set_ or [])
    folder = output.folder_path(out) if out is not None else output.default_folder(sc.name)
    # Refused before the run rather than after it.
    output.check_target(Path(os.path.abspath(folder)), is_run_folder, overwrite)
    result = run_with_progress(sc, seed, pcap)
    try:
        result.save(folder, figures=figures, overwrite=overwrite)
    finally:
        if result.trace is not None:
            result.trace.unlink(missing_ok=True)
    s = result.stats
    traced = ", packet trace in trace.pcapng" if result.trace is not None else ""
    typer.echo(
        f"{sc.name}: seed {result.seed}, {s.sim_seconds:g} s simulated in {s.wall_seconds:.2f} s, "
        f"{s.packet_hops:,} packet hops -> {folder}{traced}"
    )


def _count(section: object) -> int:
    return len(section) if isinstance(section, (dict, list)) else 0


@app.command()
@guarded
def validate(scenario: ScenarioArg, set_: SetOption = None) -> None:
    """Check a scenario without running it."""
    sc = load(scenario, set_ or [])
    d = sc.to_dict()
    nodes, links, apps = (_count(d.get(k)) for k in ("nodes", "links", "apps"))
    typer.echo(
        f"OK {scenario}: {sc.name}: {nodes} nodes, {links} links, {apps} apps, "
        f"{sc.duration:g} s simulated, seed {sc.seed}"
    )


@app.command()
@guarded
def plot(
    folder: Annotated[Path, typer.Argument(help="A run's or a sweep's output folder.", show_default=False)],
    format_: Annotated[
        str, typer.Option("--format", help="Figure files: png, pdf (for papers) or svg.")
    ] = "png",
) -> None:
    """Redraw a run folder's figures and report.md, or draw a sweep folder's plots.

    A sweep folder gets each metric against the swept parameter, with 95% confidence bands."""
    if sweepstore.is_sweep_folder(folder):
        figures = sweepplot.render(folder, format=format_)
        typer.echo(f"{folder}: {len(figures)} figures in {sweepplot.FIGURES}/, {output.REPORT}")
        return
    figures = report.render_run(output.read_run(folder), format=format_)
    typer.echo(f"{folder}: {len(figures)} figures, {output.REPORT}")


@contextmanager
def sweep_progress() -> Iterator[Callable[[Status], None]]:
    """A progress bar over a sweep's runs (done, failed, running, ETA), drawn on stderr."""
    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} runs"),
        TextColumn("{task.fields[failed]} failed, {task.fields[running]} running"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=stderr,
        transient=True,
        disable=not stderr.is_terminal,  # nothing to draw into a file or pipe
    )
    task = bar.add_task("sweep", total=1, failed=0, running=0)

    def update(s: Status) -> None:
        bar.update(
            task,
            description=f"sweep ({s.backend})" if s.backend else "sweep",
            completed=s.done + s.failed,
            total=max(1, s.to_run),
            failed=s.failed,
            running=s.running,
        )

    with bar:
        yield update


@app.command()
@guarded
def sweep(
    scenario: Annotated[
        Path,
        typer.Argument(
            metavar="SCENARIO",
            help="Scenario file, or a sweep file (TOML with scenario, seeds, \\[grid], \\[set]).",
            exists=True,
            dir_okay=False,
            show_default=False,
        ),
    ],
    grid: Annotated[
        Optional[List[str]],
        typer.Option(
            "--grid",
            "-g",
            metavar="KEY=V1,V2,...",
            help="An axis of the grid; comma-joined keys change together; repeatable.",
        ),
    ] = None,
    seeds: Annotated[
        Optional[int], typer.Option(help="Seeds 1..N per point (default: the sweep file's or 10).")
    ] = None,
    set_: SetOption = None,
    out: Annotated[
        Optional[str], typer.Option("--out", "-o", help="Sweep folder (default: runs/<name>-sweep).")
    ] = None,
    workers: Annotated[
        Optional[int], typer.Option(help="Local worker processes (default: one per core).")
    ] = None,
    dask: Annotated[
        Optional[str], typer.Option(metavar="ADDRESS", help="Run on this Dask scheduler instead.")
    ] = None,
    metric: Annotated[
        Optional[List[str]], typer.Option("--metric", "-m", help="Metric for the final table; repeatable.")
    ] = None,
    keep_series: Annotated[
        bool, typer.Option("--keep-series", help="Also keep each run's time series.")
    ] = False,
    timeout: Annotated[
        Optional[float], typer.Option(help="Stop and fail a run after this many wall seconds.")
    ] = None,
) -> None:
    """Run a scenario over a grid of overrides and seeds, in parallel.

    Finished runs are kept and skipped when the sweep is run again."""
    if workers is not None and dask is not None:
        raise BadInput("--workers and --dask exclude each other")
    with sweep_progress() as progress:
        try:
            result = run_sweep(
                scenario,
                grid=[parse_option(g) for g in grid or []],
                seeds=seeds,
                executor=dask if dask is not None else workers,
                out=out,
                overrides=set_ or [],
                metrics=metric,
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
    missing = set(metric or []) - set(shown["metric"].to_list()) if result.runs.height else set()
    for name in sorted(missing):
        typer.echo(f"note: no run reported a metric {name!r}", err=True)
    for problem in result.repaired:
        typer.echo(f"note: ran again: {problem}", err=True)
    for f in result.failures:
        point = ", ".join(f"{k}={v}" for k, v in f["point"].items())
        typer.echo(f"failed: {point or 'run'} seed {f['seed']}: {f['error']}", err=True)
    typer.echo(
        f"{result.plan.name}: {s.total} runs: {s.done} done, {s.skipped} already done, "
        f"{s.failed} failed -> {result.out}",
        err=True,
    )
    if s.failed:
        raise typer.Exit(1)


def print_table(table: pl.DataFrame, axes: List[str], caption: str) -> None:
    """Mean and 95% CI per grid point, entity and metric, on standard output."""
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
    console = Console()
    return console if console.is_terminal else Console(width=240)


@app.command()
@guarded
def bench(
    json_: Annotated[
        bool, typer.Option("--json", help="One JSON object per line instead of a table.")
    ] = False,
    scenario: Annotated[
        Optional[str],
        typer.Option("--scenario", help="Only this benchmark scenario, a scale case included (see --all)."),
    ] = None,
    all_: Annotated[
        bool,
        typer.Option(
            "--all",
            help="Also the scale cases: 10,000 consumers, 1 and 10 Gbit/s, TCP, 1,000-node tree and grid.",
        ),
    ] = False,
    duration: Annotated[
        float,
        typer.Option(
            help=f"Simulated seconds per scenario (more than 0, at most {_core.BENCH_MAX_SECONDS:g}).",
        ),
    ] = _core.BENCH_SECONDS,
) -> None:
    """Measure engine speed (packet hops per second) on the standard scenarios."""
    most = _core.BENCH_MAX_SECONDS
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
    results = []
    for name in names:
        with stderr.status(f"bench {name}"):
            results.append(benchmark.run_alone(name, duration))
        if json_:
            typer.echo(json.dumps(results[-1]))
    if not json_:
        # Events and simulated seconds are in --json; the table keeps to a terminal's width.
        table = Table(
            Column("scenario", no_wrap=True),
            "set-up s",
            "wall s",
            "packet hops",
            "hops/s",
            "ns/hop",
            "peak MB",
            "recorded MB",
        )
        for r in results:
            table.add_row(
                r["scenario"],
                f"{r['setup_seconds']:.3f}",
                f"{r['wall_seconds']:.3f}",
                f"{r['packet_hops']:,}",
                f"{r['packet_hops_per_s']:,.0f}",
                f"{r['ns_per_hop']:,.0f}",
                f"{r['peak_rss_mb']:.1f}",
                f"{r['recorded_mb']:.1f}",
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


def converted_header(file: Path, kind: str) -> str:
    """The comment a converted topology starts with: where it came from, and what to add."""
    simulator = "Mini-NDN" if kind == "minindn" else "ndnSIM"
    return (
        f"# Converted from {file.name} ({simulator} topology) by `ndncc topo convert`; values at ndncc's\n"
        "# defaults are left out (docs/scenario-reference.md). Add [apps.NAME] tables for traffic.\n\n"
    )


@topo_app.command("convert")
@guarded
def topo_convert(
    file: Annotated[
        Path, typer.Argument(help="ndnSIM topology text or Mini-NDN .conf.", exists=True, dir_okay=False)
    ],
    out: Annotated[
        Optional[str], typer.Option("--out", "-o", help="TOML file to write (default: standard output).")
    ] = None,
) -> None:
    """Convert an ndnSIM or Mini-NDN topology into a scenario file.

    Only values that differ from ndncc's defaults are written."""
    target = output.folder_path(out) if out is not None else None
    text, kind = read_topology(file)
    convert = _core.import_minindn if kind == "minindn" else _core.import_ndnsim
    toml = converted_header(file, kind) + convert(text, str(file))
    if target is None:
        typer.echo(toml, nl=False)
    else:
        output.write_text(target, toml)
        typer.echo(f"{file} ({kind}) -> {target}", err=True)


@scenarios_app.command("list")
@guarded
def scenarios_list() -> None:
    """List the shipped scenario and sweep files.

    One line each: name, kind and the first sentence of the file's leading comment."""
    files = shipped.shipped()
    width = max((len(f.name) for f in files), default=0)
    for f in files:
        typer.echo(f"{f.name:<{width}}  {f.kind:<8}  {f.description}")


@scenarios_app.command("copy")
@guarded
def scenarios_copy(
    name: Annotated[
        str, typer.Argument(metavar="NAME", help="A name from 'ndncc scenarios list'.", show_default=False)
    ],
    dest: Annotated[
        str,
        typer.Argument(
            metavar="DEST", help="Folder to copy into (default: the current one), or the new file's path."
        ),
    ] = ".",
    force: Annotated[bool, typer.Option("--force", help="Replace files that are already there.")] = False,
) -> None:
    """Copy a shipped scenario or sweep file to start from.

    A sweep file takes its scenario along, written beside it. Existing files are kept unless
    --force is given."""
    if not dest:
        raise BadInput("DEST: an empty path names no file")
    for path in shipped.copy(name, dest, force):
        typer.echo(str(path))


@app.command()
@guarded
def reproduce(
    name: Annotated[
        Optional[str], typer.Argument(help="Experiment name, or 'all'.", show_default=False)
    ] = None,
    out: Annotated[str, typer.Option("--out", "-o", help="Results folder.")] = "results",
    quick: Annotated[bool, typer.Option("--quick", help="Shorter runs, for smoke tests.")] = False,
    list_: Annotated[bool, typer.Option("--list", help="List the experiments and exit.")] = False,
    figures: Annotated[
        bool,
        typer.Option(
            "--figures/--no-figures",
            help="Also draw each run's own figures into its folder (the experiments' figures are "
            "drawn either way; `ndncc plot DIR` draws a run's later).",
        ),
    ] = False,
) -> None:
    """Reproduce a seed experiment (or all of them) into OUT/<name>."""
    known = experiments.experiments()
    if list_:
        for exp in known:
            typer.echo(f"{exp.name}\t{exp.title}")
        if not known:
            typer.echo("no experiments registered", err=True)
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
        typer.echo("no experiments registered", err=True)
        return
    failed = reproduce_each(chosen, output.folder_path(out), quick, figures)
    if failed:
        raise typer.Exit(1)


def reproduce_each(
    chosen: list[experiments.Experiment], out: Path, quick: bool, figures: bool = False
) -> int:
    """Run experiments one after another; a failure is reported and the rest still run.

    Each finished experiment's files are on disk before the next starts, and ``OUT/report.md``
    is rewritten after each, so a crash loses nothing already finished. Returns the failures.
    """
    status = {}
    with sim_progress() as bar:
        task = bar.add_task("", total=1.0)
        for exp in chosen:

            def progress(label: str, done: float, total: float, exp=exp) -> None:
                bar.update(task, description=f"{exp.name}: {label}", completed=done, total=total or 1.0)

            try:
                rows = experiments.run(exp, out, quick, progress, run_figures=figures)
                status[exp.name] = "ok"
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
    """``OUT/report.md``: every registered experiment, with what is on disk for it."""
    entries = []
    for exp in experiments.experiments():
        done = (out / exp.name / output.SUMMARY).is_file()
        entries.append((exp.name, exp.title, status.get(exp.name) or ("ok" if done else "not run")))
    output.write_text(out / output.REPORT, report.index_report(entries))


def main(argv: Optional[List[str]] = None) -> int:
    """Entry point of the ``ndncc`` script; returns the exit code."""
    try:
        app(args=argv, prog_name="ndncc")  # parses, runs, and raises SystemExit
    except SystemExit as e:
        return e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
