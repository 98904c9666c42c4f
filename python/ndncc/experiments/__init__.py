"""The registry of reproductions: one module per seed experiment, each registering itself.

An experiment module in this package looks like::

    from ndncc.experiments import Progress, register
    from ndncc.shipped import scenario_path

    SCENARIO = scenario_path("dumbbell.toml")  # the shipped file, wherever ndncc is installed

    @register("pcon-dumbbell", "PCON vs. ConsumerWindow on a dumbbell")
    def reproduce(out_dir, quick, progress):
        sc = ndncc.load(SCENARIO)
        result = sc.run(progress=lambda t: progress("pcon", t, sc.duration))
        return result.save(out_dir / "pcon", variant="pcon", paper={("consumer", "goodput"): 9.1})

``reproduce(out_dir, quick, progress)`` writes whatever run folders it likes under ``out_dir`` and
returns its ``summary.json`` rows; ``quick`` asks for a shorter version (for tests and smoke
runs); ``progress(label, done, total)`` reports simulated seconds done in the current run.
"""

from __future__ import annotations

import importlib
import pkgutil
import re
from contextvars import ContextVar
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Optional

from .. import output, report

#: ``progress(label, sim_seconds_done, sim_seconds_total)``.
Progress = Callable[[str, float, float], None]
Reproduce = Callable[[Path, bool, Progress], list]

#: Whether each run of a reproduction draws its own figures into its folder (``ndncc reproduce
#: --figures``). Off by default, as for ``ndncc run``: a reproduction's 142 runs would spend two
#: thirds of its time drawing them. An experiment's own figures, which its report shows, are
#: drawn either way; ``ndncc plot DIR/<experiment>/<variant>`` draws a run's later.
RUN_FIGURES: ContextVar[bool] = ContextVar("run_figures", default=False)

_NAME = re.compile(r"[a-z0-9][a-z0-9_-]*")
_REGISTRY: dict[str, "Experiment"] = {}
_discovered = False


@dataclass(frozen=True)
class Experiment:
    name: str
    title: str
    reproduce: Reproduce
    #: Metrics shown per variant and flow on the report page (all rows stay in summary.json).
    headline: tuple[str, ...] = ()
    #: The flows those metrics are shown for (all when empty).
    headline_flows: tuple[str, ...] = ()
    #: Variants left out of the headline table (e.g. per-seed replicas summarised elsewhere).
    hide_in_headline: Optional[Callable[[str], bool]] = None


def no_progress(label: str, done: float, total: float) -> None:
    """A :data:`Progress` that reports nothing."""


def add(experiment: Experiment) -> Experiment:
    """Register an experiment; names are unique, lower-case, and usable as folder names."""
    if not _NAME.fullmatch(experiment.name) or experiment.name == "all":
        raise ValueError(f"experiment name {experiment.name!r} must match {_NAME.pattern} and not be 'all'")
    if experiment.name in _REGISTRY:
        raise ValueError(f"experiment {experiment.name!r} is registered twice")
    _REGISTRY[experiment.name] = experiment
    return experiment


def register(
    name: str,
    title: str,
    headline: tuple[str, ...] = (),
    flows: tuple[str, ...] = (),
    hide_in_headline: Optional[Callable[[str], bool]] = None,
) -> Callable[[Reproduce], Reproduce]:
    """Decorator form of :func:`add` for a module's ``reproduce`` function; ``headline``,
    ``flows`` and ``hide_in_headline`` choose the per-variant table of the report page."""

    def wrap(fn: Reproduce) -> Reproduce:
        add(Experiment(name, title, fn, tuple(headline), tuple(flows), hide_in_headline))
        return fn

    return wrap


def discover() -> None:
    """Import every module of this package once, so each registers its experiments."""
    global _discovered
    if not _discovered:
        _discovered = True
        for module in pkgutil.iter_modules(__path__):
            importlib.import_module(f"{__name__}.{module.name}")


def experiments() -> list[Experiment]:
    """Every registered experiment, by name."""
    discover()
    return [_REGISTRY[name] for name in sorted(_REGISTRY)]


def get(name: str) -> Experiment:
    discover()
    try:
        return _REGISTRY[name]
    except KeyError:
        known = ", ".join(sorted(_REGISTRY)) or "none registered"
        raise LookupError(f"no experiment called {name!r} (known: {known})") from None


def run(
    experiment: Experiment,
    out_dir: Path,
    quick: bool = False,
    progress: Optional[Progress] = None,
    run_figures: bool = False,
) -> list[dict]:
    """Reproduce one experiment into ``out_dir/<name>``: its runs, ``summary.json`` and ``report.md``;
    with ``run_figures``, each run's own figures too (see :data:`RUN_FIGURES`)."""
    folder = Path(out_dir) / experiment.name
    folder.mkdir(parents=True, exist_ok=True)
    drawing = RUN_FIGURES.set(run_figures)
    try:
        rows = output.check_summary_rows(experiment.reproduce(folder, quick, progress or no_progress))
    finally:
        RUN_FIGURES.reset(drawing)
    output.write_summary(folder / output.SUMMARY, rows)
    # The seed's claims judged on these rows: scoreboard.json, and the table the page opens with.
    from .. import scoreboard

    board = scoreboard.write_experiment(folder, experiment.name, rows)
    hide = experiment.hide_in_headline
    output.write_text(
        folder / output.REPORT,
        report.experiment_report(
            experiment.name,
            experiment.title,
            rows,
            folder,
            experiment.headline,
            experiment.headline_flows,
            rows if hide is None else [r for r in rows if not hide(r["variant"])],
            claims=None if board is None else scoreboard.experiment_section(board),
        ),
    )
    return rows
