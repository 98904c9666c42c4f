"""ndncc: a fast, deterministic packet-level simulator for congestion control in NDN.

>>> import ndncc
>>> sc = ndncc.load("docs/examples/two-node.toml", ["simulation.seed=2"])
>>> result = sc.run()
>>> result.save("runs/two-node")
>>> ndncc.sweep("docs/examples/two-node.toml", grid={"apps.consumer.window.window": [5, 10, 20]}, seeds=5)

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
    __version__,
)
from .errors import BadInput
from .result import Result, RunStats
from .scenario import Scenario, load, load_str
from .sweep import SweepResult, sweep

__all__ = [
    "BadInput",
    "BuildError",
    "ControllerError",
    "InternalError",
    "Interrupted",
    "NdnccError",
    "Result",
    "RunStats",
    "Scenario",
    "ScenarioError",
    "StalledError",
    "SweepResult",
    "__version__",
    "load",
    "load_str",
    "sweep",
]
