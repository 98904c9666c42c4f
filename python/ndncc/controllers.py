"""Congestion controllers written in Python.

Subclass :class:`WindowController` or :class:`RateController` and name the class in a scenario::

    [apps.C1]
    window = { type = "python", class = "mypkg.mymod:MyAimd", params = { beta = 0.5 } }

or hand it to :func:`ndncc.load` (``controllers={"C1": MyAimd(beta=0.5)}``). The engine calls the
hooks in simulated-time order with the events of :mod:`ndncc._core` (``DataEvent``, ``LossEvent``,
``HoleEvent``, ``SentEvent``); every time in them is an integer number of nanoseconds of simulated
time (``ev.now``, ``ev.rtt``, ``ev.srtt``), with float seconds as ``ev.now_s``, ``ev.rtt_s``,
``ev.srtt_s``. ``self.rng`` is a :class:`random.Random` seeded from the engine's stream for the
app, set before the first event. See docs/python-controllers.md.
"""

from __future__ import annotations

import enum
import importlib
import inspect
import json
import math
import random
import sys
from typing import Any, Iterable, Mapping, Optional, Union

from ._core import DataEvent, HoleEvent, LossEvent, SentEvent
from .errors import BadInput

__all__ = [
    "DataEvent",
    "HoleAction",
    "HoleEvent",
    "LossEvent",
    "NackAction",
    "RateController",
    "SentEvent",
    "WindowController",
    "as_override",
    "class_path",
]


class NackAction(enum.Enum):
    """What the consumer does about a NACK."""

    #: End the Interest now and retransmit the segment (ahead of new segments).
    RETRANSMIT = "retransmit"
    #: Leave the Interest in flight until its timer fires.
    IGNORE = "ignore"


class HoleAction(enum.Enum):
    """What the consumer does about a sequence hole."""

    #: End the missing segment's Interest and retransmit it now.
    RETRANSMIT = "retransmit"
    #: Leave it; its timer still runs.
    IGNORE = "ignore"


class _Controller:
    """What both families share: the keyword arguments an instance was made with, and the rng."""

    #: A :class:`random.Random` seeded from the engine's stream for this app; set by the engine
    #: after the constructor and before the first event. Use it, not the ``random`` module, so
    #: that a run depends on its seed only.
    rng: random.Random

    def __new__(cls, *args: Any, **params: Any):
        self = super().__new__(cls)
        # Kept so that an instance handed to ndncc.load can be rebuilt, fresh, for every run
        # (and in every worker of a sweep): see as_override.
        self._ndncc_args = (args, params)
        return self

    #: The unit of each series :meth:`metrics` records, by name (``{"w_max": "Interests"}``):
    #: figures write it on their axis (``Result.plot("w_max")``).
    units: Mapping[str, str] = {}

    def metrics(self) -> Iterable[tuple[str, float]]:
        """The controller's own state, recorded every ``record.interval`` as (metric, value)."""
        return ()


class WindowController(_Controller):
    """A consumer's congestion window, in Interests (the Rust trait ``WindowControl``).

    Required: :meth:`on_data`, :meth:`on_timeout`, :meth:`window`. The engine reads
    :meth:`window` once after the constructor and once after every hook, so it must depend only
    on the controller's state.
    """

    def on_interest_sent(self, ev: SentEvent) -> None:
        """An Interest left (called only if a subclass defines it)."""

    def on_data(self, ev: DataEvent) -> None:
        raise NotImplementedError

    def on_timeout(self, ev: LossEvent) -> None:
        raise NotImplementedError

    def on_nack(self, ev: LossEvent) -> NackAction:
        """Default: retransmit and leave the window alone."""
        return NackAction.RETRANSMIT

    def detects_holes(self) -> bool:
        """Whether the consumer should look for sequence holes and call :meth:`on_hole`; asked
        once, when the controller is built."""
        return False

    def on_hole(self, ev: HoleEvent) -> HoleAction:
        return HoleAction.IGNORE

    def window(self) -> float:
        """Interests allowed in flight; the consumer sends while in_flight < max(1, floor(window))."""
        raise NotImplementedError

    def ssthresh(self) -> Optional[float]:
        """Slow-start threshold, recorded as a series when not None."""
        return None


class RateController(_Controller):
    """A consumer's sending rate, in Interests per second (the Rust trait ``RateControl``).

    Required: :meth:`rate`, read once after the constructor and once after every hook.
    """

    def on_data(self, ev: DataEvent) -> None:
        pass

    def on_timeout(self, ev: LossEvent) -> None:
        pass

    def on_nack(self, ev: LossEvent) -> NackAction:
        """Default: leave the Interest until its timer fires."""
        return NackAction.IGNORE

    def rate(self) -> float:
        raise NotImplementedError


_BASES = {"window": WindowController, "rate": RateController}
_REQUIRED = {"window": ("on_data", "on_timeout", "window"), "rate": ("rate",)}

ControllerLike = Union[type, _Controller]


# ------------------------------------------------------------------ from the API to a scenario


def class_path(cls: type) -> str:
    """``"module:QualName"`` of a controller class, checked to be importable by that name."""
    if not isinstance(cls, type) or not issubclass(cls, (WindowController, RateController)):
        raise BadInput(f"{cls!r} is not a WindowController or RateController class")
    if "<locals>" in cls.__qualname__:
        raise BadInput(
            f"{cls.__qualname__} is defined inside a function: define it at the top level of a "
            "module so that the engine can import it by name"
        )
    return f"{cls.__module__}:{cls.__qualname__}"


def _toml_value(value: Any, where: str) -> str:
    """``value`` as a TOML inline value; ``where`` names it in errors."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if not -(2**63) <= value < 2**63:
            raise BadInput(f"{where} = {value}: integers must fit in 64 bits")
        return str(value)
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        if math.isinf(value):
            return "inf" if value > 0 else "-inf"
        return repr(value)
    if isinstance(value, str):
        # A JSON string without ASCII escaping is a TOML basic string.
        return json.dumps(value, ensure_ascii=False)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(_toml_value(v, f"{where}[{i}]") for i, v in enumerate(value)) + "]"
    if isinstance(value, Mapping):
        return _toml_table(value, where)
    raise BadInput(f"{where} = {value!r}: parameters must be numbers, strings, booleans, lists or dicts")


def _toml_table(table: Mapping[str, Any], where: str) -> str:
    items = []
    for k, v in table.items():
        if not isinstance(k, str):
            raise BadInput(f"{where}: keys must be strings, got {k!r}")
        items.append(f"{json.dumps(k, ensure_ascii=False)} = {_toml_value(v, f'{where}.{k}')}")
    return "{ " + ", ".join(items) + " }" if items else "{}"


def as_override(app: str, controller: ControllerLike) -> str:
    """The ``key=value`` override that puts ``controller`` (a class, or an instance made with
    keyword arguments) in charge of consumer ``app``: ``apps.APP.window={ type = "python", … }``
    (or ``.rate``). Each run builds a fresh instance from the class and those arguments."""
    if isinstance(controller, type):
        cls, params = controller, {}
    elif isinstance(controller, (WindowController, RateController)):
        args, params = controller._ndncc_args
        cls = type(controller)
        if args:
            raise BadInput(
                f"controllers[{app!r}]: {cls.__name__} was made with positional arguments; pass its "
                f"parameters as keywords ({cls.__name__}(name=value, ...)) so that every run can "
                "rebuild it"
            )
    else:
        raise BadInput(
            f"controllers[{app!r}]: expected a WindowController or RateController class or "
            f"instance, got {controller!r}"
        )
    family = "window" if issubclass(cls, WindowController) else "rate"
    table = {"type": "python", "class": class_path(cls), "params": dict(params)}
    return f"apps.{app}.{family}={_toml_table(table, f'controllers[{app!r}]')}"


# ------------------------------------------------------------------ called by the engine


def _import(module: str, folder: Optional[str]):
    """Import ``module``, looking in the scenario's folder before ``sys.path``."""
    if module in sys.modules:
        return sys.modules[module]
    if folder is None:
        return importlib.import_module(module)
    sys.path.insert(0, folder)
    try:
        return importlib.import_module(module)
    finally:
        # Only for this import: a scenario's folder should not shadow modules for the rest of
        # the process.
        if sys.path and sys.path[0] == folder:
            del sys.path[0]


def _where(folder: Optional[str]) -> str:
    return f"in {folder} or on sys.path" if folder else "on sys.path"


def _resolve(family: str, path: str, folder: Optional[str]) -> Union[type, tuple[str, str]]:
    """The class ``path`` names, or (key, message) saying why there is none."""
    module_name, qualname = path.split(":", 1)
    try:
        obj = _import(module_name, folder)
    except ModuleNotFoundError as e:
        if e.name is not None and (module_name == e.name or module_name.startswith(e.name + ".")):
            return "class", f"no module named {e.name!r} {_where(folder)}"
        return "class", f"importing {module_name!r} failed: {type(e).__name__}: {e}"
    except Exception as e:  # the user's module raised while being imported
        return "class", f"importing {module_name!r} failed: {type(e).__name__}: {e}"
    for part in qualname.split("."):
        try:
            obj = getattr(obj, part)
        except AttributeError:
            source = getattr(sys.modules.get(module_name), "__file__", None) or module_name
            return "class", f"module {module_name!r} ({source}) has no {qualname!r}"
    base = _BASES[family]
    if not isinstance(obj, type) or not issubclass(obj, base):
        return "class", f"{path} is not a subclass of ndncc.controllers.{base.__name__}"
    missing = [m for m in _REQUIRED[family] if getattr(obj, m) is getattr(base, m)]
    if missing:
        return "class", f"{path} does not define {', '.join(m + '()' for m in missing)}"
    return obj


def _check_params(cls: type, params: Mapping[str, Any]) -> Optional[tuple[str, str]]:
    """(key, message) if ``cls(**params)`` cannot bind its arguments, else None."""
    init = cls.__init__
    if init is object.__init__:
        if params:
            key = next(iter(params))
            return f"params.{key}", f"{cls.__qualname__} takes no parameters (it has no __init__)"
        return None
    try:
        sig = inspect.signature(init)
    except (TypeError, ValueError):
        return None  # no signature to check against (a C-level constructor)
    # Drop `self`: the parameters a caller passes.
    parameters = list(sig.parameters.values())[1:]
    sig = sig.replace(parameters=parameters)
    accepted = [p.name for p in parameters if p.kind in (p.POSITIONAL_OR_KEYWORD, p.KEYWORD_ONLY)]
    takes_any = any(p.kind == p.VAR_KEYWORD for p in parameters)
    for key in params:
        if not takes_any and key not in accepted:
            takes = ", ".join(accepted) if accepted else "none"
            return f"params.{key}", f"{cls.__qualname__} takes no parameter {key!r} (it takes: {takes})"
    try:
        sig.bind(**params)
    except TypeError as e:
        return "params", f"{cls.__qualname__}: {e}"
    return None


def _check_construction(cls: type, params: Mapping[str, Any]) -> Optional[tuple[str, str]]:
    """(key, message) if the constructor rejects ``params`` (a ValueError naming one, say):
    found at load time rather than when a run starts."""
    try:
        cls(**params)
    except Exception as e:
        return "params", f"{cls.__qualname__}(...) raised {type(e).__name__}: {e}"
    return None


def _check(
    family: str, path: str, params: Mapping[str, Any], folder: Optional[str]
) -> Optional[tuple[str, str]]:
    """Validation of ``{ type = "python", class = path, params = … }``: (key, message) or None."""
    cls = _resolve(family, path, folder)
    if isinstance(cls, tuple):
        return cls
    return _check_params(cls, params) or _check_construction(cls, params)


def _build(family: str, path: str, params: Mapping[str, Any], folder: Optional[str]) -> Any:
    """A fresh controller for one run; what the class raises reaches the user."""
    cls = _resolve(family, path, folder)
    if isinstance(cls, tuple):
        raise ImportError(f"{path}: {cls[1]}")
    return cls(**params)


def _give_rng(controller: Any, seed: int) -> None:
    controller.rng = random.Random(seed)


def series_units(scenario: Mapping[str, Any]) -> dict[str, str]:
    """The ``units`` of the Python controllers a resolved scenario names, merged: metric name →
    unit. A class that cannot be imported here adds none."""
    found: dict[str, str] = {}
    for app in ((scenario or {}).get("apps") or {}).values():
        for family in ("window", "rate"):
            cc = app.get(family) if isinstance(app, Mapping) else None
            if not (isinstance(cc, Mapping) and cc.get("type") == "python" and ":" in str(cc.get("class"))):
                continue
            cls = _resolve(family, str(cc["class"]), None)
            units = getattr(cls, "units", None) if isinstance(cls, type) else None
            if isinstance(units, Mapping):
                found.update({str(k): str(v) for k, v in units.items()})
    return found
