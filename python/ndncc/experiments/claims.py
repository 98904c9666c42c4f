"""Report sentences checked against the numbers they speak of.

A reproduction's discussion (``notes.md``) is written from its own rows: every number it quotes is
looked up in those rows, and every comparison it states ("above", "no timeouts", "shorter than")
is a :class:`Check` evaluated on them, with the wording chosen by the outcome. Each claim made is
also written to ``claims.json`` (its text, its checks, the outcome and the numbers it quoted), so
a test can re-evaluate every claim against ``summary.json`` on disk.

A claim whose numbers are missing (a variant that produced no value) is left out of the notes
rather than stated."""

from __future__ import annotations

import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Optional, Sequence, Union

from .. import output

#: (variant, flow, metric): one row of a reproduction's ``summary.json``.
Ref = tuple[str, str, str]
Side = Union[Ref, float]

CLAIMS = "claims.json"

_OPS = {
    "<": lambda a, b: a < b,
    "<=": lambda a, b: a <= b,
    ">": lambda a, b: a > b,
    ">=": lambda a, b: a >= b,
    "==": lambda a, b: a == b,
}


def lookup(rows: Sequence[dict], ref: Ref) -> Optional[float]:
    """The value of one row (``None`` if absent or undefined)."""
    variant, flow, metric = ref
    for r in rows:
        if r["variant"] == variant and r["flow"] == flow and r["metric"] == metric:
            v = r["value"]
            return None if v is None or (isinstance(v, float) and math.isnan(v)) else float(v)
    return None


@dataclass(frozen=True)
class Check:
    """``lhs op factor · rhs``: a comparison between rows, or between a row and a constant."""

    lhs: Side
    op: str
    rhs: Side
    factor: float = 1.0

    def __post_init__(self) -> None:
        if self.op not in _OPS:
            raise ValueError(f"unknown comparison {self.op!r}")

    def outcome(self, rows: Sequence[dict]) -> Optional[bool]:
        """Whether it holds on ``rows``; ``None`` when a value it needs is missing."""
        a, b = (lookup(rows, s) if isinstance(s, tuple) else float(s) for s in (self.lhs, self.rhs))
        if a is None or b is None:
            return None
        return _OPS[self.op](a, self.factor * b)

    def as_json(self) -> dict:
        side = lambda s: list(s) if isinstance(s, tuple) else s  # noqa: E731
        return {"lhs": side(self.lhs), "op": self.op, "rhs": side(self.rhs), "factor": self.factor}

    @staticmethod
    def from_json(d: dict) -> "Check":
        side = lambda s: tuple(s) if isinstance(s, list) else float(s)  # noqa: E731
        return Check(side(d["lhs"]), d["op"], side(d["rhs"]), float(d["factor"]))


def fmt(x: Optional[float], digits: int = 3) -> str:
    """A number for prose: ``digits`` significant digits (thousands separated), "n/a" if undefined."""
    if x is None:
        return "n/a"
    if abs(x) >= 10**digits:
        return f"{x:,.0f}"
    return f"{x:.{digits}g}"


class Notes:
    """Builds a reproduction's discussion from its rows, recording every claim it makes."""

    def __init__(self, rows: Sequence[dict]):
        self.rows = rows
        self.lines: list[str] = []
        self.claims: list[dict] = []
        self._quoted: list[tuple[Ref, str, int]] = []

    # Numbers -------------------------------------------------------------------------------

    def value(self, variant: str, metric: str, flow: str = "C") -> Optional[float]:
        return lookup(self.rows, (variant, flow, metric))

    def n(self, variant: str, metric: str, flow: str = "C", digits: int = 3) -> str:
        """A quoted number; remembered so the claim it appears in can be re-checked."""
        text = fmt(self.value(variant, metric, flow), digits)
        self._quoted.append(((variant, flow, metric), text, digits))
        return text

    # Claims ---------------------------------------------------------------------------------

    def holds(self, *checks: Check) -> Optional[bool]:
        """All checks hold (``None`` if any cannot be evaluated)."""
        outcomes = [c.outcome(self.rows) for c in checks]
        if any(o is None for o in outcomes):
            return None
        return all(outcomes)

    def say(
        self, text: str, *checks: Check, otherwise: Optional[str] = None, untestable: Optional[str] = None
    ) -> None:
        """Add a sentence (a bullet when it starts with "- "): ``text`` if every check holds,
        ``otherwise`` if one fails (nothing when ``otherwise`` is None), nothing when a number it
        needs is missing. Numbers quoted while building ``text``/``otherwise`` belong to it.

        A sentence with no check states figures and compares nothing: ``untestable`` says why
        (e.g. "no figure to compare with"), so that it is not read as a claim that passed."""
        if untestable is not None and checks:
            raise ValueError("a sentence with checks is testable")
        quoted, self._quoted = self._quoted, []
        outcome = self.holds(*checks) if checks else True
        chosen = text if outcome else otherwise if outcome is False else None
        if any(q == "n/a" for _, q, _ in quoted):
            chosen = None
        if chosen is None:
            return
        # Numbers built for the branch not taken are not part of the claim.
        quoted = list(dict.fromkeys(q for q in quoted if q[1] in chosen))
        self.lines.append(chosen)
        self.claims.append(
            {
                "text": chosen,
                "checks": [c.as_json() for c in checks],
                "holds": bool(outcome),
                "quoted": [{"ref": list(ref), "text": q, "digits": d} for ref, q, d in quoted],
                **({"untestable": untestable} if untestable is not None else {}),
            }
        )

    def plain(self, text: str) -> None:
        """A sentence that states no result (set-up, definitions)."""
        if self._quoted:
            raise ValueError("a plain sentence may not quote numbers; use say()")
        self.lines.append(text)

    def text(self) -> str:
        return "\n".join(self.lines) + "\n"

    def write(self, folder: Path) -> None:
        """``notes.md`` and ``claims.json`` into ``folder``."""
        output.write_text(folder / "notes.md", self.text())
        output.write_text(folder / CLAIMS, json.dumps(self.claims, indent=1) + "\n")


def recheck(claims: Sequence[dict], rows: Sequence[dict]) -> list[str]:
    """Every disagreement between recorded claims and ``rows``: a check whose outcome differs,
    or a quoted number that is not the row's value. Empty when the notes are true."""
    problems = []
    for c in claims:
        checks = [Check.from_json(d) for d in c["checks"]]
        outcomes = [k.outcome(rows) for k in checks]
        if checks and (None in outcomes or all(outcomes) != c["holds"]):
            problems.append(f"{c['text']!r}: checks give {outcomes}, the sentence assumes {c['holds']}")
        for q in c["quoted"]:
            text = fmt(lookup(rows, tuple(q["ref"])), q["digits"])
            if text != q["text"] or q["text"] not in c["text"]:
                problems.append(f"{c['text']!r}: quotes {q['text']} for {q['ref']}, the table has {text}")
    return problems
