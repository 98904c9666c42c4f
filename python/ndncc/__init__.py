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
from .result import Result, RunStats, SavedRun, open_run
from .scenario import Scenario, load, load_str
from .sweep import SavedSweep, SweepFailed, SweepResult, open_sweep, sweep

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
