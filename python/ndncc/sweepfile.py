"""Sweep files: a scenario, a grid, seeds and fixed overrides in one TOML file.

```toml
scenario = "../scenarios/e3.toml"   # relative to this file
seeds = 10                          # seeds 1..10, or a list: [1, 5, 9]
metrics = ["throughput_kbps"]       # optional: what tables and plots show

[set]                               # optional fixed overrides, as `run --set`
"apps.C1.file_size" = "2MB"

[grid]                              # one axis per key
"links.R1-R2.loss.p" = ["0%", "1%", "2%"]

[grid.window]                       # a named axis whose keys change together
keys = ["apps.C1.window.type", "apps.C2.window.type"]
values = ["aimd", "reno-hole"]

[plot]                              # optional
x = "links.R1-R2.loss.p"            # the axis on the x axis (default: the first numeric one)
guides = { throughput_kbps = -0.5 } # dashed c·x^e guide on a metric's plot
```

Errors name the file, the line and the key, like scenario errors.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Optional, Union

from . import grid, tomlread
from .errors import BadInput

TOP_KEYS = ("scenario", "seeds", "metrics", "set", "grid", "plot")
PLOT_KEYS = ("x", "guides")


@dataclass(frozen=True)
class SweepFile:
    path: Path
    scenario: Path
    seeds: Optional[list[int]] = None
    axes: list[grid.Axis] = field(default_factory=list)
    set: list[str] = field(default_factory=list)
    metrics: Optional[list[str]] = None
    x: Optional[str] = None
    guides: dict[str, float] = field(default_factory=dict)


#: Most seeds a sweep may have: more is a typo, and would only fill the memory while planning.
MAX_SEEDS = 100_000


def is_sweep_file(path: Union[str, Path]) -> bool:
    """A TOML file with a top-level ``scenario`` key and no ``[simulation]`` is a sweep file.

    A file that is no TOML at all is not one: loading it as a scenario then says what is wrong."""
    try:
        data = tomlread.loads(Path(path).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomlread.TOMLDecodeError, RecursionError):
        return False
    return "scenario" in data and "simulation" not in data


#: Deepest nesting of tables and arrays a sweep file may have; scenario values need a few levels.
MAX_DEPTH = 32


def _depth(value: Any) -> int:
    """How deeply tables and arrays nest in ``value``, counted without recursion."""
    deepest, todo = 0, [(value, 0)]
    while todo:
        v, d = todo.pop()
        deepest = max(deepest, d)
        if d > MAX_DEPTH:
            break
        children = v.values() if isinstance(v, dict) else v if isinstance(v, list) else ()
        todo.extend((c, d + 1) for c in children)
    return deepest


class _Locator:
    """Finds the line a key is written on; TOML parsers do not keep positions."""

    def __init__(self, path: Path, text: str):
        self.path = path
        self.lines = text.splitlines()

    def line(self, table: Optional[str], key: Optional[str] = None) -> Optional[int]:
        current = None
        for n, raw in enumerate(self.lines, 1):
            line = raw.strip()
            header = re.fullmatch(r"\[\s*([^\[\]]+?)\s*\]", line.split("#")[0].strip())
            if header:
                current = header.group(1).replace('"', "")
                if key is None and current == table:
                    return n
                continue
            if key is not None and current == table and _defines(line, key):
                return n
        return None

    def where(self, table: Optional[str], key: Optional[str] = None) -> str:
        n = self.line(table, key)
        return f"{self.path}:{n}" if n else str(self.path)

    def error(self, table: Optional[str], key: Optional[str], message: str) -> BadInput:
        name = ".".join(p for p in (table, key) if p)
        return BadInput(f"{self.where(table, key)}: {name}: {message}")


def _defines(line: str, key: str) -> bool:
    for spelling in (f'"{key}"', f"'{key}'", key):
        if line.startswith(spelling) and line[len(spelling) :].lstrip().startswith("="):
            return True
    return False


def _flatten(table: dict, prefix: str = "") -> list[tuple[str, Any]]:
    """``{"a": {"b": 1}}`` → ``[("a.b", 1)]``: unquoted dotted keys parse as nested tables."""
    out = []
    for k, v in table.items():
        path = f"{prefix}.{k}" if prefix else k
        if isinstance(v, dict):
            out += _flatten(v, path)
        else:
            out.append((path, v))
    return out


def read(path: Union[str, Path]) -> SweepFile:
    path = Path(path)
    try:
        text = path.read_text(encoding="utf-8")
    except UnicodeDecodeError as e:
        raise BadInput(f"{path}: not a text file (no UTF-8 at byte {e.start})") from None
    try:
        data = tomlread.loads(text)
    except tomlread.TOMLDecodeError as e:
        m = re.search(r"\(at line (\d+)", str(e))
        where = f"{path}:{m.group(1)}" if m else str(path)
        raise BadInput(f"{where}: {str(e).split(' (at line')[0]}") from None
    except RecursionError:  # the TOML reader recurses once per level of nesting
        raise BadInput(f"{path}: tables or arrays nested more than {MAX_DEPTH} deep") from None
    if _depth(data) > MAX_DEPTH:
        raise BadInput(f"{path}: tables or arrays nested more than {MAX_DEPTH} deep")
    loc = _Locator(path, text)
    for key in data:
        if key not in TOP_KEYS:
            raise loc.error(None, key, f"unknown key (expected one of {', '.join(TOP_KEYS)})")
    if not isinstance(data.get("scenario"), str):
        raise loc.error(None, "scenario", "expected the path of a scenario file")
    scenario = Path(os.path.normpath(path.parent / data["scenario"]))
    if not scenario.is_file():
        raise loc.error(None, "scenario", f"{data['scenario']}: no such file (looked for {scenario})")
    plot = _table(data, "plot", loc)
    for key in plot:
        if key not in PLOT_KEYS:
            raise loc.error("plot", key, f"unknown key (expected one of {', '.join(PLOT_KEYS)})")
    return SweepFile(
        path=path,
        scenario=scenario,
        seeds=_seeds(data["seeds"], loc) if "seeds" in data else None,
        axes=_axes(_table(data, "grid", loc), loc),
        set=_set(data.get("set", {}), loc),
        metrics=_strings(data, "metrics", loc),
        x=_string(plot, "x", loc),
        guides=_guides(plot.get("guides", {}), loc),
    )


def _table(data: dict, key: str, loc: _Locator) -> dict:
    value = data.get(key, {})
    if not isinstance(value, dict):
        raise loc.error(None, key, "expected a table")
    return value


def _string(table: dict, key: str, loc: _Locator) -> Optional[str]:
    value = table.get(key)
    if value is not None and not isinstance(value, str):
        raise loc.error("plot", key, "expected a string")
    return value


def _strings(data: dict, key: str, loc: _Locator) -> Optional[list[str]]:
    if key not in data:
        return None
    value = data[key]
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise loc.error(None, key, "expected a list of strings")
    return list(value)


def seed_list(value: Any) -> list[int]:
    """``N`` means seeds 1..N; a list is taken as it is. Raises ``ValueError`` if neither fits."""
    if isinstance(value, int) and not isinstance(value, bool):
        if value < 1:
            raise ValueError("the number of seeds must be at least 1")
        if value > MAX_SEEDS:
            raise ValueError(f"{value} seeds is more than the {MAX_SEEDS:,} a sweep may have")
        return list(range(1, value + 1))
    if isinstance(value, (list, tuple)) and value:
        seeds = list(value)
        if len(seeds) > MAX_SEEDS:
            raise ValueError(f"{len(seeds)} seeds is more than the {MAX_SEEDS:,} a sweep may have")
        if not all(isinstance(s, int) and not isinstance(s, bool) and 0 <= s < 2**64 for s in seeds):
            raise ValueError("seeds must be integers from 0 to 2^64-1")
        if len(set(seeds)) != len(seeds):
            raise ValueError("a seed is listed twice")
        return seeds
    raise ValueError("expected a number of seeds or a non-empty list of seeds")


def _seeds(value: Any, loc: _Locator) -> list[int]:
    try:
        return seed_list(value)
    except ValueError as e:
        raise loc.error(None, "seeds", str(e)) from None


def _set(value: Any, loc: _Locator) -> list[str]:
    """``[set]`` as a table of keys (flattened to dotted paths) or a list of ``key=value`` strings."""
    if isinstance(value, list):
        if not all(isinstance(v, str) and "=" in v for v in value):
            raise loc.error(None, "set", 'expected "key=value" strings')
        return list(value)
    if not isinstance(value, dict):
        raise loc.error(None, "set", "expected a table of key = value")
    return [f"{k}={grid.toml_value(v)}" for k, v in _flatten(value)]


def _axes(table: dict, loc: _Locator) -> list[grid.Axis]:
    axes = []
    for name, spec in table.items():
        if isinstance(spec, dict) and set(spec) == {"keys", "values"}:
            axes.append(_named_axis(name, spec, loc))
            continue
        entries = _flatten({name: spec}) if isinstance(spec, dict) else [(name, spec)]
        for key, values in entries:
            origin = loc.where("grid", key)
            if not isinstance(values, list):
                raise loc.error("grid", key, "expected a list of values (or a table with keys and values)")
            axes.append(grid.make_axis(grid.split_keys(key), values, origin=origin))
    grid.check(axes)
    return axes


def _named_axis(name: str, spec: dict, loc: _Locator) -> grid.Axis:
    table = f"grid.{name}"
    origin = loc.where(table)
    keys = spec["keys"]
    if not isinstance(keys, list) or not keys or not all(isinstance(k, str) for k in keys):
        raise loc.error(table, "keys", "expected a non-empty list of dotted keys")
    if not isinstance(spec["values"], list):
        raise loc.error(table, "values", "expected a list")
    return grid.make_axis(keys, spec["values"], name=name, origin=origin)


def _guides(value: Any, loc: _Locator) -> dict[str, float]:
    ok = isinstance(value, dict) and all(
        isinstance(v, (int, float)) and not isinstance(v, bool) for v in value.values()
    )
    if not ok:
        raise loc.error("plot", "guides", "expected a table of metric = exponent")
    return {k: float(v) for k, v in value.items()}
