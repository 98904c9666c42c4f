"""`Scenario`: a resolved scenario you can inspect, vary and run."""

from __future__ import annotations

import json
import os
import tempfile
import warnings
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Iterable, Mapping, Optional, Union

from . import _core, arguments, preload
from .errors import BadInput, NdnccWarning

if TYPE_CHECKING:
    from .result import Result

ProgressCallback = Callable[[float], Optional[bool]]

#: Seeds are unsigned 64-bit integers in the engine.
MAX_SEED = 2**64 - 1


def check_seed(seed: Any, name: str = "seed") -> int:
    """``seed`` if it is an integer the engine takes, else :class:`BadInput` naming ``name``."""
    if isinstance(seed, bool) or not isinstance(seed, int) or not 0 <= seed <= MAX_SEED:
        raise BadInput(f"{name} {seed!r}: expected an integer from 0 to {MAX_SEED}")
    return seed


class Scenario:
    """A validated scenario. Build one with :func:`load` or :func:`load_str`."""

    def __init__(
        self,
        core: _core.Scenario,
        reload: Callable[[list[str]], _core.Scenario],
        overrides: Iterable[str] = (),
    ):
        self._core = core
        self._reload = reload
        self._overrides = tuple(overrides)

    @property
    def name(self) -> str:
        return self._core.name

    @property
    def duration(self) -> float:
        """Simulated duration in seconds."""
        return self._core.duration

    @property
    def seed(self) -> int:
        return self._core.seed

    @property
    def overrides(self) -> tuple[str, ...]:
        """The ``key=value`` overrides applied on top of the source."""
        return self._overrides

    def to_toml(self) -> str:
        return self._core.to_toml()

    def to_dict(self) -> dict[str, Any]:
        """The resolved scenario as plain Python data."""
        return json.loads(self._core.to_json())

    def with_overrides(self, *overrides: str) -> "Scenario":
        """A new scenario from the same source with more ``key=value`` overrides (later ones win)."""
        if len(overrides) == 1 and not isinstance(overrides[0], str):
            raise BadInput(
                "with_overrides takes each override as an argument of its own: with_overrides(*overrides)"
            )
        merged = [*self._overrides, *(arguments.text(o, "override") for o in overrides)]
        return Scenario(self._reload(merged), self._reload, merged)

    @property
    def pcap(self) -> bool:
        """The scenario asks for a packet trace (``[record] pcap``)."""
        return self._core.pcap

    def run(
        self,
        seed: Optional[int] = None,
        progress: Optional[ProgressCallback] = None,
        pcap: Union[None, bool, str, os.PathLike] = None,
    ) -> Result:
        """Run the simulation. ``progress(sim_seconds_done)`` may return ``False`` to stop it.

        ``pcap`` writes a packet trace (docs/traces.md): a path writes it there; ``True``, or
        ``None`` when the scenario has ``[record] pcap``, writes it to a temporary file that
        :meth:`Result.save` copies into the run's folder as ``trace.pcapng``. The faces are the
        scenario's ``[record] pcap`` choice, or every link face. ``False`` writes none."""
        if seed is not None:
            check_seed(seed)
        arguments.callback(progress, "progress")
        if not self.to_dict().get("apps"):
            # A converted topology has none until they are added: the run would count 0 hops.
            warnings.warn(
                NdnccWarning(
                    f"{self.name}: the scenario has no apps, so nothing sends and the run measures "
                    "nothing; add a consumer and a producer ([apps.NAME] tables, "
                    "docs/scenario-reference.md)"
                ),
                stacklevel=2,
            )
        if pcap is None:
            pcap = self.pcap
        if pcap is True:
            fd, name = tempfile.mkstemp(prefix=f"ndncc-{self.name}-", suffix=".pcapng")
            os.close(fd)
            trace: Optional[Path] = Path(name)
        elif pcap is False:
            trace = None
        elif isinstance(pcap, (str, os.PathLike)):
            trace = Path(pcap)
        else:
            raise BadInput(f"pcap: expected a path or true/false, got {pcap!r}")
        path = None if trace is None else os.fspath(trace)
        # What the result is built with is imported beside the engine (see ndncc.preload);
        # polars imports numpy.ma the first time it takes a numpy array, which Result does.
        with preload.importing("ndncc.result", "numpy.ma", warm="ndncc.result.warm_up"):
            raw = self._core.run(seed=seed, progress=progress, pcap=path)
        from .result import Result

        return Result(raw, self, trace=trace)

    def __repr__(self) -> str:
        return f"Scenario(name={self.name!r}, duration={self.duration}, seed={self.seed})"


#: App name → controller class, or instance made with keyword arguments (see ndncc.controllers).
Controllers = Optional[Mapping[str, Any]]


def _override_list(overrides: Union[str, Iterable[str]], controllers: Controllers = None) -> list[str]:
    out = arguments.texts(overrides, "overrides")
    if controllers is not None:
        from .controllers import as_override

        if not isinstance(controllers, Mapping):
            raise BadInput(f"controllers: expected a mapping of app name to controller, got {controllers!r}")
        out += [as_override(app, c) for app, c in controllers.items()]
    return out


def load(
    path: Union[str, os.PathLike],
    overrides: Union[str, Iterable[str]] = (),
    controllers: Controllers = None,
) -> Scenario:
    """Load a scenario file (TOML), applying ``key=value`` overrides such as ``"simulation.seed=3"``.

    ``controllers`` puts Python controllers in charge of consumers: ``{"C1": MyAimd}`` or
    ``{"C1": MyAimd(beta=0.7)}`` (see docs/python-controllers.md); they become overrides."""
    path = arguments.path(path, "path")
    overrides = _override_list(overrides, controllers)
    return Scenario(_core.load(path, overrides), lambda ov: _core.load(path, ov), overrides)


def load_str(
    text: str,
    file: str = "<string>",
    overrides: Union[str, Iterable[str]] = (),
    controllers: Controllers = None,
) -> Scenario:
    """Parse scenario TOML from a string; ``file`` names it in error messages. ``controllers``
    as for :func:`load`."""
    text = arguments.text(text, "text")
    file = arguments.text(file, "file")
    overrides = _override_list(overrides, controllers)
    return Scenario(
        _core.load_str(text, file, overrides), lambda ov: _core.load_str(text, file, ov), overrides
    )
