"""A sweep's grid: axes of override values, and the points of their cartesian product.

An axis sets one or more dotted scenario keys (the keys of ``run --set``) to one value per point.
Keys on the same axis change together: ``apps.C1.window.type`` and ``apps.C2.window.type`` on one
axis give both consumers the same controller at every point, instead of crossing them.

Values are Python data (as read from TOML). Each becomes an override ``key=<TOML literal>``, and a
short text label that names it in tables, plots and the run dataset.
"""

from __future__ import annotations

import itertools
import json
import math
import re
from collections import Counter
from dataclasses import dataclass
from functools import cached_property
from typing import Any, Iterable, Mapping, Optional, Sequence

from . import tomlread
from .errors import BadInput

#: Column names of the run dataset and the aggregate table; an axis may not take one of them.
RESERVED = frozenset({"key", "seed", "entity", "kind", "metric", "value", "unit", "n", "mean", "std", "ci95"})

_BARE_KEY = re.compile(r"[A-Za-z0-9_-]+")


def toml_value(v: Any) -> str:
    """``v`` written as a TOML value (strings quoted, tables inline)."""
    if isinstance(v, bool):
        return "true" if v else "false"
    if isinstance(v, int):
        return str(v)
    if isinstance(v, float):
        if math.isnan(v):
            return "nan"
        if math.isinf(v):
            return "inf" if v > 0 else "-inf"
        return repr(v)
    if isinstance(v, str):
        return json.dumps(v, ensure_ascii=False)
    if isinstance(v, (list, tuple)):
        return "[" + ", ".join(toml_value(x) for x in v) + "]"
    if isinstance(v, Mapping):
        items = (f"{_toml_key(str(k))} = {toml_value(x)}" for k, x in v.items())
        return "{" + ", ".join(items) + "}"
    raise BadInput(f"cannot use {v!r} ({type(v).__name__}) as a scenario value")


def _toml_key(k: str) -> str:
    return k if _BARE_KEY.fullmatch(k) else json.dumps(k, ensure_ascii=False)


def label(v: Any) -> str:
    """A value as people read it: strings as they are (``1%``, ``aimd``), the rest as TOML."""
    return v if isinstance(v, str) else toml_value(v)


@dataclass(frozen=True)
class Axis:
    """One dimension of a grid. ``values[i]`` holds one value per key for point ``i``."""

    name: str
    keys: tuple[str, ...]
    values: tuple[tuple[Any, ...], ...]
    #: Where the axis was written (``file:line`` or ``--grid``), for error messages.
    origin: str = "--grid"

    @cached_property
    def labels(self) -> tuple[str, ...]:
        # Computed once: every grid point reads its axis's labels.
        return tuple(_point_label(v) for v in self.values)

    def overrides(self, i: int) -> list[str]:
        return [f"{k}={toml_value(v)}" for k, v in zip(self.keys, self.values[i])]


def _point_label(values: tuple[Any, ...]) -> str:
    labels = [label(v) for v in values]
    return labels[0] if len(set(labels)) == 1 else " / ".join(labels)


def split_keys(text: str) -> tuple[str, ...]:
    """``"a.b, c.d"`` → ``("a.b", "c.d")``: comma-joined keys share an axis."""
    keys = tuple(k.strip() for k in text.split(","))
    if not all(keys):
        raise BadInput(f"grid key {text!r}: empty key")
    return keys


def make_axis(
    keys: Sequence[str], values: Iterable[Any], name: Optional[str] = None, origin: str = "--grid"
) -> Axis:
    """An axis over ``keys``. With several keys, a value is either a list with one entry per key
    or a single value that every key takes."""
    keys = tuple(keys)
    name = name or ",".join(keys)
    where = f"{origin}: {name}"
    if not keys:
        raise BadInput(f"{where}: an axis needs at least one key")
    if isinstance(values, (str, bytes, Mapping)) or not isinstance(values, Iterable):
        raise BadInput(f"{where}: the values must be a list")
    per_point = []
    for v in values:
        if len(keys) > 1 and isinstance(v, (list, tuple)):
            if len(v) != len(keys):
                raise BadInput(f"{where}: {toml_value(v)} has {len(v)} entries for {len(keys)} keys")
            per_point.append(tuple(v))
        else:
            per_point.append((v,) * len(keys))
    if not per_point:
        raise BadInput(f"{where}: no values")
    axis = Axis(name, keys, tuple(per_point), origin)
    twice = sorted(lab for lab, n in Counter(axis.labels).items() if n > 1)
    if twice:
        raise BadInput(f"{where}: value {twice[0]} is listed twice")
    return axis


def split_values(text: str) -> list[str]:
    """Split ``v1,v2,…`` at the commas that are not inside quotes, brackets or braces."""
    items, depth, quote, start = [], 0, None, 0
    for i, ch in enumerate(text):
        if quote:
            if ch == quote and text[i - 1] != "\\":
                quote = None
        elif ch in "\"'":
            quote = ch
        elif ch in "[{":
            depth += 1
        elif ch in "]}":
            depth -= 1
        elif ch == "," and depth == 0:
            items.append(text[start:i])
            start = i + 1
    items.append(text[start:])
    return [item.strip() for item in items]


def parse_value(text: str) -> Any:
    """A value from the command line: TOML if it parses (``50``, ``"x"``, ``{type = "aimd"}``),
    else the text itself, as ``--set`` reads it (``1%``, ``aimd``)."""
    try:
        return tomlread.loads(f"v = {text}")["v"]
    except tomlread.TOMLDecodeError:
        return text


def parse_option(text: str) -> Axis:
    """An axis from ``--grid KEY[,KEY…]=V1,V2,…``."""
    if "=" not in text:
        raise BadInput(f"--grid {text!r}: expected KEY=V1,V2,…")
    key_text, _, value_text = text.partition("=")
    keys = split_keys(key_text)
    values = [parse_value(v) for v in split_values(value_text)]
    if any(v == "" for v in values):
        raise BadInput(f"--grid {key_text.strip()}: empty value in {value_text!r}")
    return make_axis(keys, values)


def merge(base: Sequence[Axis], extra: Sequence[Axis]) -> list[Axis]:
    """``base`` with ``extra`` added; an extra axis with the same name or keys replaces the base one."""
    axes = list(base)
    for new in extra:
        same = [i for i, a in enumerate(axes) if a.name == new.name or set(a.keys) == set(new.keys)]
        if same:
            axes[same[0]] = new
        else:
            axes.append(new)
    check(axes)
    return axes


def check(axes: Sequence[Axis]) -> None:
    """Axis names are distinct and not reserved; no key is on two axes."""
    seen_names: set[str] = set()
    seen_keys: dict[str, str] = {}
    for a in axes:
        if a.name in RESERVED:
            raise BadInput(
                f"{a.origin}: axis name {a.name!r} is reserved (taken: {', '.join(sorted(RESERVED))})"
            )
        if a.name in seen_names:
            raise BadInput(f"{a.origin}: axis {a.name!r} is given twice")
        seen_names.add(a.name)
        for k in a.keys:
            if k in seen_keys:
                raise BadInput(f"{a.origin}: key {k} is on axes {seen_keys[k]!r} and {a.name!r}")
            seen_keys[k] = a.name


@dataclass(frozen=True)
class Point:
    """One grid point: a label per axis and the overrides that make it."""

    index: int
    labels: tuple[tuple[str, str], ...]
    overrides: tuple[str, ...]
    #: The value taken on each axis, by position.
    choice: tuple[int, ...] = ()

    def as_dict(self) -> dict[str, str]:
        return dict(self.labels)


def expand(axes: Sequence[Axis]) -> list[Point]:
    """Every combination of axis values, the first axis varying slowest. No axes: one point."""
    points = []
    for n, idx in enumerate(itertools.product(*(range(len(a.values)) for a in axes))):
        labels = tuple((a.name, a.labels[i]) for a, i in zip(axes, idx))
        overrides = tuple(o for a, i in zip(axes, idx) for o in a.overrides(i))
        points.append(Point(n, labels, overrides, idx))
    return points


# ---------------------------------------------------------------- the order of an axis's values

#: The units scenario files write, by the quantity they measure, each with its size in that
#: quantity's base unit (second, bit/s, byte, fraction): the units the engine reads.
UNITS: dict[str, dict[str, float]] = {
    "time": {"ns": 1e-9, "us": 1e-6, "µs": 1e-6, "ms": 1e-3, "s": 1.0, "min": 60.0, "h": 3600.0},
    "rate": {
        **dict.fromkeys(("bps", "bit/s", "b/s"), 1.0),
        **dict.fromkeys(("kbps", "Kbps", "kbit/s", "Kbit/s", "kb/s", "Kb/s"), 1e3),
        **dict.fromkeys(("Mbps", "mbps", "Mbit/s", "Mb/s"), 1e6),
        **dict.fromkeys(("Gbps", "gbps", "Gbit/s", "Gb/s"), 1e9),
    },
    "size": {
        **{"B": 1.0, "kB": 1e3, "KB": 1e3, "MB": 1e6, "GB": 1e9},
        **{"KiB": 1024.0, "MiB": 2.0**20, "GiB": 2.0**30},
    },
    "fraction": {"%": 0.01},
}

_QUANTITY = re.compile(r"\s*([-+]?(?:\d+\.?\d*|\.\d+)(?:[eE][-+]?\d+)?)\s*(\S*)\s*")


def magnitude(text: str) -> Optional[tuple[str, float]]:
    """What a value label measures and its size in that quantity's base unit: ``"10Mbps"`` →
    ``("rate", 1e7)``, ``"1%"`` → ``("fraction", 0.01)``, ``"5"`` → ``("number", 5.0)``;
    ``None`` for anything else (``"aimd"``, ``"3 apples"``)."""
    m = _QUANTITY.fullmatch(text)
    if not m:
        return None
    number, unit = float(m.group(1)), m.group(2)
    if not unit:
        return "number", number
    for quantity, units in UNITS.items():
        if unit in units:
            return quantity, number * units[unit]
    return None


def value_order(labels: Sequence[str]) -> list[str]:
    """An axis's labels from the smallest value to the largest when they are all numbers, or all
    quantities of one kind (``10Mbps`` before ``100Mbps``, ``500ms`` before ``2s``; bare numbers
    count as fractions beside percentages, as the engine reads them); otherwise as given."""
    sizes = [magnitude(lab) for lab in labels]
    if not all(sizes):
        return list(labels)
    kinds = {s[0] for s in sizes if s}
    if kinds == {"number", "fraction"}:
        kinds = {"fraction"}
    if len(kinds) != 1:
        return list(labels)
    ranked = sorted(zip((s[1] for s in sizes if s), range(len(labels))))  # ties keep their order
    return [labels[i] for _, i in ranked]
