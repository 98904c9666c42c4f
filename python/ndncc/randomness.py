"""Whether a sweep's seeds can change anything.

A run is a function of its scenario and seed, and the seed acts only on the scenario's random
sources (lossy links, start jitter, random arrivals, a catalogue, drawn link values, random
strategies and controllers; docs/scenario-reference.md, "Randomness and seeds"). A scenario
without any gives the same run for every seed, so a sweep over seeds repeats one run and reports
a spread of zero; :func:`warn_if_seeds_change_nothing` says so.
"""

from __future__ import annotations

import warnings
from typing import Protocol, Sequence

from . import _core
from .errors import NdnccWarning


class IdenticalSeedsWarning(NdnccWarning):
    """A sweep runs several seeds of a scenario in which nothing is random."""


class _Run(Protocol):
    """What is read of a sweep's planned run (``sweep.RunTask``)."""

    seed: int
    point: tuple[tuple[str, str], ...]
    toml: str


def random_sources(toml: str, name: str = "<scenario>") -> list[str]:
    """The settings of a resolved scenario (TOML text) that make its runs differ from seed to
    seed, as ``"KEY (what)"``."""
    return list(_core.load_str(toml, name, []).random_sources)


def warn_if_seeds_change_nothing(name: str, runs: Sequence[_Run]) -> None:
    """Warn (:class:`IdenticalSeedsWarning`) when ``runs`` use two or more seeds and no grid
    point's scenario has a random source. A sweep in which some points are random and others
    not (a loss probability swept from 0 up) is left alone: zero spread at the others is then
    what the experiment shows."""
    seeds = sorted({r.seed for r in runs})
    if len(seeds) < 2:
        return
    first_of_point: dict[tuple[tuple[str, str], ...], _Run] = {}
    for r in runs:
        first_of_point.setdefault(r.point, r)
    # One random point is enough: the scenario usually has a source at its first.
    if any(random_sources(r.toml, name) for r in first_of_point.values()):
        return
    where = " at every grid point" if len(first_of_point) > 1 else ""
    warnings.warn(
        IdenticalSeedsWarning(
            f"{name}: nothing in this scenario is random (no lossy link, start jitter, random "
            f"arrivals, catalogue, drawn link value or random strategy), so its {len(seeds)} seeds give "
            f"{len(seeds)} identical runs{where}; add a random source or sweep one seed "
            f"(docs/scenario-reference.md, 'Randomness and seeds')"
        ),
        stacklevel=2,
    )
