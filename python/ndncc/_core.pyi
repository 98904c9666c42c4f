"""Type stubs for the compiled module ``ndncc._core`` (written by hand; keep in step with crates/ndncc-py)."""

from os import PathLike
from typing import Callable, Optional, Sequence, TypedDict, Union

import numpy as np
import numpy.typing as npt

__version__: str

class LongTableDict(TypedDict):
    t: npt.NDArray[np.float64]
    entity: npt.NDArray[np.uint32]
    metric: npt.NDArray[np.uint32]
    value: npt.NDArray[np.float64]
    entities: list[str]
    metrics: list[str]

class SummaryRowDict(TypedDict):
    entity: str
    kind: str
    metric: str
    value: float
    unit: str

class StatsDict(TypedDict):
    sim_seconds: float
    wall_seconds: float
    events: int
    packet_hops: int

class RunDict(TypedDict):
    series: LongTableDict
    faces: LongTableDict
    summary: list[SummaryRowDict]
    stats: StatsDict
    seed: int

class BenchDict(TypedDict):
    scenario: str
    sim_seconds: float
    wall_seconds: float
    events: int
    packet_hops: int
    packet_hops_per_s: float
    peak_rss_mb: float

class Scenario:
    @property
    def name(self) -> str: ...
    @property
    def duration(self) -> float:
        """Simulated duration in seconds."""
    @property
    def seed(self) -> int: ...
    def to_toml(self) -> str: ...
    def to_json(self) -> str: ...
    def run(
        self,
        seed: Optional[int] = None,
        progress: Optional[Callable[[float], Optional[bool]]] = None,
    ) -> RunDict:
        """Run without holding the GIL. ``progress(sim_seconds_done)`` is called about 500 times;
        a falsy return other than ``None`` stops the run with :class:`Interrupted`."""

def load(path: Union[str, PathLike[str]], overrides: Sequence[str] = ...) -> Scenario: ...
def load_str(text: str, file: str = "<string>", overrides: Sequence[str] = ...) -> Scenario: ...
def import_ndnsim(text: str, file: str = "<string>") -> str: ...
def import_minindn(text: str, file: str = "<string>") -> str: ...
def bench_names() -> list[str]: ...
def bench(name: str) -> BenchDict: ...

class NdnccError(Exception): ...

class ScenarioError(NdnccError):
    file: str
    line: Optional[int]
    key: Optional[str]
    message: str

class StalledError(NdnccError):
    """A run stopped because simulated time stopped advancing (a zero-delay loop)."""

class BuildError(NdnccError):
    component: str
    message: str

class Interrupted(NdnccError): ...
class InternalError(NdnccError): ...

def _panic(message: str) -> None:
    """Panics on purpose (tests of how an engine crash reaches the user)."""
