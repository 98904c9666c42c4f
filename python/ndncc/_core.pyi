"""Type stubs for the compiled module ``ndncc._core`` (written by hand; keep in step with crates/ndncc-py)."""

from os import PathLike
from typing import Any, Callable, Optional, Sequence, TypedDict, Union

import numpy as np
import numpy.typing as npt
from typing_extensions import NotRequired

__version__: str

class LongTableDict(TypedDict):
    t: npt.NDArray[np.float64]
    entity: npt.NDArray[np.uint32]
    metric: npt.NDArray[np.uint32]
    value: npt.NDArray[np.float64]
    entities: list[str]
    metrics: list[str]
    ordered: NotRequired[bool]

class SummaryColumnsDict(TypedDict):
    entity: list[str]
    kind: list[str]
    metric: list[str]
    value: list[float]
    unit: list[str]

class StatsDict(TypedDict):
    sim_seconds: float
    wall_seconds: float
    events: int
    packet_hops: int

class RunDict(TypedDict):
    series: LongTableDict
    faces: LongTableDict
    summary: SummaryColumnsDict
    stats: StatsDict
    seed: int
    trace: NotRequired[dict[str, tuple[int, int]]]

class BenchDict(TypedDict):
    scenario: str
    sim_seconds: float
    wall_seconds: float
    events: int
    packet_hops: int
    packet_hops_per_s: float
    ns_per_hop: float
    peak_rss_mb: float
    recorded_rows: int
    recorded_mb: float
    setup_seconds: float
    allocator: str
    run_page_faults: int

class Scenario:
    @property
    def name(self) -> str: ...
    @property
    def duration(self) -> float:
        """Simulated duration in seconds."""
    @property
    def seed(self) -> int: ...
    @property
    def pcap(self) -> bool:
        """The scenario has ``[record] pcap``."""
    @property
    def random_sources(self) -> list[str]:
        """The settings that make runs differ from seed to seed, as ``"KEY (what)"``."""
    def to_toml(self) -> str: ...
    def to_json(self) -> str: ...
    def run(
        self,
        seed: Optional[int] = None,
        progress: Optional[Callable[[float], Optional[bool]]] = None,
        pcap: Optional[str] = None,
    ) -> RunDict:
        """Run without holding the GIL. ``progress(sim_seconds_done)`` is called about 500 times;
        a falsy return other than ``None`` stops the run with :class:`Interrupted`."""

def load(
    path: Union[str, PathLike[str]], overrides: Sequence[str] = ..., emulation: bool = False
) -> Scenario: ...
def load_str(text: str, file: str = "<string>", overrides: Sequence[str] = ...) -> Scenario: ...
def import_ndnsim(text: str, file: str = "<string>") -> str: ...
def import_minindn(text: str, file: str = "<string>") -> str: ...
def bench_names(all: bool = False) -> list[str]:
    """The standard benchmark scenarios; with ``all``, the scale cases too."""

#: Simulated seconds a benchmark runs by default, and the most it may be asked to run.
BENCH_SECONDS: float
BENCH_MAX_SECONDS: float

def bench(name: str, duration: float = 40.0, record: bool = True) -> BenchDict:
    """Build and run benchmark ``name`` for ``duration`` simulated seconds (more than 0, at most
    ``BENCH_MAX_SECONDS``) without holding the GIL; Ctrl-C stops it with ``KeyboardInterrupt``.
    With ``record`` false it takes no samples, to tell what recording costs."""

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

class TraceError(NdnccError):
    """The packet trace file could not be written."""

class FaceError(NdnccError):
    """An emulation's ``--face`` is bad (its NODE=URI, its node) or cannot listen."""

class ControllerError(NdnccError):
    """A Python controller raised; the exception it raised is ``__cause__``."""

    app: str
    hook: str
    class_path: str

# The events a Python controller's hooks get (ndncc.controllers). Times are integer nanoseconds
# of simulated time; the ``*_s`` properties give them in float seconds.

class DataEvent:
    now: int
    seq: int
    rtt: Optional[int]
    srtt: Optional[int]
    marked: bool
    rate_stamp: float
    next_seq: int
    highest_received: int
    in_flight: int
    data_size: int
    interest_size: int
    route: int
    @property
    def now_s(self) -> float: ...
    @property
    def rtt_s(self) -> Optional[float]: ...
    @property
    def srtt_s(self) -> Optional[float]: ...

class LossEvent:
    now: int
    seq: int
    nack: Optional[str]
    """None for a timeout; else "congestion", "duplicate", "no-route" or "link-loss"."""
    marked: bool
    next_seq: int
    highest_received: int
    in_flight: int
    srtt: Optional[int]
    @property
    def now_s(self) -> float: ...
    @property
    def srtt_s(self) -> Optional[float]: ...

class HoleEvent:
    now: int
    seq: int
    hole: int
    next_seq: int
    highest_received: int
    in_flight: int
    @property
    def now_s(self) -> float: ...

class SentEvent:
    now: int
    seq: int
    retransmission: bool
    in_flight: int
    @property
    def now_s(self) -> float: ...

def _panic(message: str) -> None:
    """Panics on purpose (tests of how an engine crash reaches the user)."""

def end_after_interrupt(fd: int, grace_s: float) -> None:
    """Ends the process (exit code 130) ``grace_s`` seconds after a SIGINT byte arrives on ``fd``,
    the read end of Python's signal wake-up socket, unless it ended by itself (Unix only)."""

class Emulation:
    """A running emulation (``ndncc emulate``); its engine runs on a thread of its own."""

    @property
    def faces(self) -> list[tuple[str, str]]:
        """``(node, uri)`` of each listening face, with the port it got."""
    def wait(self, timeout: float) -> Union[str, None, bool]:
        """A log line, ``None`` if nothing came within ``timeout`` seconds, ``False`` once ended."""
    def stop(self) -> None: ...
    def finish(self) -> dict[str, Any]:
        """The run's raw result dict, with ``"lag"``: events, p50_ms, p90_ms, p99_ms, p999_ms, max_ms."""

def emulate_start(
    scenario: Scenario,
    faces: Sequence[str],
    seed: Optional[int] = None,
    connections: int = 16,
    pcap: Optional[str] = None,
) -> Emulation:
    """Starts emulating ``scenario`` with real applications on ``faces`` (``NODE=URI``)."""
