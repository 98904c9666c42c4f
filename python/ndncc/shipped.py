"""The scenario and sweep files that ship with ndncc, found through the installed package.

A wheel carries them as package data in ``ndncc/data/scenarios`` and ``ndncc/data/sweeps``. In a
repository checkout those two folders are links to the top-level ``scenarios/`` and ``sweeps/``,
so a development install reads the same files the tests and docs name. Reproductions load their
scenarios from here, and ``ndncc scenarios list`` / ``ndncc scenarios copy`` let a user start
from one.
"""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from importlib import resources
from pathlib import Path
from typing import Union

from .errors import BadInput, MissingFile

#: Kind of file → its folder under ``ndncc/data`` (and at the repository's root).
FOLDERS = {"scenario": "scenarios", "sweep": "sweeps"}


def folder(kind: str) -> Path:
    """The folder of the shipped files of ``kind`` (``"scenario"`` or ``"sweep"``)."""
    sub = FOLDERS[kind]
    packaged = Path(str(resources.files("ndncc") / "data" / sub))
    if packaged.is_dir():
        return packaged.resolve()  # in a checkout, the link's target: errors name scenarios/…
    # A checkout whose file system keeps no symbolic links has text files in their place.
    checkout = Path(__file__).resolve().parents[2] / sub
    if checkout.is_dir():
        return checkout
    raise MissingFile(f"the {sub} that ship with ndncc are missing (looked in {packaged} and {checkout})")


def scenario_path(file_name: str) -> Path:
    """The shipped scenario file ``file_name`` (e.g. ``"e3.toml"``)."""
    path = folder("scenario") / file_name
    if not path.is_file():
        raise MissingFile(f"no shipped scenario {file_name!r} in {path.parent}")
    return path


@dataclass(frozen=True)
class Shipped:
    """One shipped file: ``name`` is its stem, ``kind`` ``"scenario"`` or ``"sweep"``."""

    name: str
    kind: str
    path: Path

    @property
    def description(self) -> str:
        return first_sentence(self.path.read_text(encoding="utf-8"))


def shipped() -> list[Shipped]:
    """Every shipped scenario, then every sweep file, each by name."""
    return [
        Shipped(p.stem, kind, p)
        for kind in FOLDERS
        for p in sorted(folder(kind).glob("*.toml"), key=lambda p: p.stem)
        if p.is_file()
    ]


def find(name: str) -> Shipped:
    """The shipped file called ``name`` (with or without ``.toml``)."""
    stem = name[: -len(".toml")] if name.endswith(".toml") else name
    files = shipped()
    for f in files:
        if f.name == stem:
            return f
    known = ", ".join(f.name for f in files)
    raise BadInput(f"no shipped scenario or sweep file {name!r} (known: {known}; see 'ndncc scenarios list')")


def leading_comment(text: str) -> list[str]:
    """The first paragraph of the comment a file starts with, one entry per line, without ``#``."""
    lines = []
    for raw in text.splitlines():
        line = raw.strip()
        if not line.startswith("#"):
            break
        body = line.lstrip("#").strip()
        if not body:
            if lines:
                break
            continue
        lines.append(body)
    return lines


def first_sentence(text: str) -> str:
    """The first sentence of a file's leading comment, on one line.

    A sentence ends at a full stop followed by a space (outside parentheses, so that "et al.
    2020" inside a citation does not end it) or at a colon that ends a line (one that introduces
    a diagram or a list); the closing mark is left out."""
    comment = leading_comment(text)
    depth = 0
    words: list[str] = []
    for line in comment:
        for i, ch in enumerate(line):
            depth += (ch == "(") - (ch == ")")
            ends_here = i + 1 == len(line) or line[i + 1] == " "
            if depth <= 0 and ends_here and (ch == "." or (ch == ":" and i + 1 == len(line))):
                return " ".join([*words, line[:i]]).strip()
        words.append(line)
    return " ".join(words).strip()


#: The ``scenario = "..."`` line of a sweep file.
_SCENARIO_LINE = re.compile(r"""^(scenario\s*=\s*)(["'])(.*?)\2""", re.M)


def copy(name: str, dest: Union[str, Path], force: bool = False) -> list[Path]:
    """Copy the shipped file ``name`` to ``dest`` (a folder, or the new file's path) and return
    what was written.

    A sweep file takes its scenario along: the scenario is written beside it and the copy's
    ``scenario`` line points there; the trace files a scenario's links follow go along, at the
    same relative paths. Existing files are refused, before anything is written, unless
    ``force``."""
    source = find(name)
    names_folder = str(dest).endswith(("/", os.sep))
    dest = Path(dest)
    if dest.is_dir():
        target = dest / source.path.name
    elif names_folder:
        raise MissingFile(f"{dest}: no such folder")
    else:
        target = dest
    if not target.parent.is_dir():
        raise MissingFile(f"{target.parent}: no such folder")
    text = source.path.read_text(encoding="utf-8")
    writes = {target: text}
    if source.kind == "sweep":
        from .sweepfile import read

        scenario = read(source.path).scenario
        scenario_target = target.parent / scenario.name
        if scenario_target == target:
            raise BadInput(
                f"{target}: the sweep file and its scenario {scenario.name} would be the same file"
            )
        writes[scenario_target] = scenario.read_text(encoding="utf-8")
        pointed, found = _SCENARIO_LINE.subn(lambda m: f"{m[1]}{m[2]}{scenario.name}{m[2]}", text, count=1)
        if not found:  # a shipped sweep file names its scenario on one line; a test keeps it so
            raise RuntimeError(f'{source.path}: no `scenario = "..."` line to point at the copy')
        writes[target] = pointed
    # The trace files a scenario's links follow (paths relative to the scenario) go along.
    scenario_source = _scenario_of(source)
    for rel in _TRACE_LINE.findall(scenario_source.read_text(encoding="utf-8")):
        trace = scenario_source.parent / rel
        if not Path(rel).is_absolute() and trace.is_file():
            writes[target.parent / rel] = trace.read_text(encoding="utf-8")
    existing = [p for p in writes if p.exists()]
    for p in existing:
        if p.is_dir():
            raise BadInput(f"{p}: is a folder")
    if existing and not force:
        names = ", ".join(str(p) for p in existing)
        raise BadInput(f"{names}: already there (add --force to replace)")
    for path, body in writes.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(body, encoding="utf-8")
    return list(writes)


#: A link bandwidth that follows a file: ``{ trace = "traces/x.trace" }`` or ``{ series = "…" }``.
_TRACE_LINE = re.compile(r'\b(?:trace|series)\s*=\s*"([^"]+)"')


def _scenario_of(source: Shipped) -> Path:
    """The scenario file of a shipped file: itself, or a sweep file's scenario."""
    if source.kind == "sweep":
        from .sweepfile import read

        return read(source.path).scenario
    return source.path
