"""ndncc: a fast, deterministic packet-level simulator for congestion control in NDN.

>>> import ndncc
>>> sc = ndncc.load("docs/examples/two-node.toml", ["simulation.seed=2"])
>>> result = sc.run()
>>> result.save("runs/two-node")
>>> result.plot("window")
>>> ndncc.open_run("runs/two-node")
>>> grid = {"apps.consumer.window.window": [5, 10, 20]}
>>> if __name__ == "__main__":  # a script's sweep: its worker processes run the script again
...     res = ndncc.sweep("docs/examples/two-node.toml", grid=grid, seeds=5)
>>> ndncc.open_sweep("runs/two-node-sweep").summary()

See docs/python.md for the whole API.
"""

import importlib
from typing import TYPE_CHECKING

from ._core import (
    BuildError,
    ControllerError,
    InternalError,
    Interrupted,
    NdnccError,
    ScenarioError,
    StalledError,
    TraceError,
    __version__,
)
from .errors import BadInput

if TYPE_CHECKING:
    from .result import Result, RunStats, SavedRun, open_run
    from .scenario import Scenario, load, load_str
    from .sweeping import SavedSweep, SweepFailed, SweepResult, open_sweep, sweep

#: Where each name of the package's own API is defined. They are imported when first used
#: (PEP 562), so that ``import ndncc`` and the ``ndncc`` command do not load polars and numpy
#: before they need them.
_WHERE = {
    "Result": "result",
    "RunStats": "result",
    "SavedRun": "result",
    "open_run": "result",
    "Scenario": "scenario",
    "load": "scenario",
    "load_str": "scenario",
    "SavedSweep": "sweeping",
    "SweepFailed": "sweeping",
    "SweepResult": "sweeping",
    "open_sweep": "sweeping",
    "sweep": "sweeping",
}


def __getattr__(name: str):
    module = _WHERE.get(name)
    if module is None:
        # A submodule, such as ``ndncc.plots``, is there without importing it first too.
        try:
            return importlib.import_module(f".{name}", __name__)
        except ModuleNotFoundError as e:
            if e.name != f"{__name__}.{name}":
                raise
            raise AttributeError(f"module 'ndncc' has no attribute {name!r}") from None
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value  # found here directly from now on
    return value


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))


__all__ = [
    "BadInput",
    "BuildError",
    "ControllerError",
    "InternalError",
    "Interrupted",
    "NdnccError",
    "Result",
    "RunStats",
    "SavedRun",
    "SavedSweep",
    "Scenario",
    "ScenarioError",
    "StalledError",
    "TraceError",
    "SweepFailed",
    "SweepResult",
    "__version__",
    "load",
    "load_str",
    "open_run",
    "open_sweep",
    "sweep",
]
