"""The seeds' claims, each with the rows that test it and a verdict on a reproduction's rows.

Every experiment has a registry, ``ndncc/experiments/seed_claims/<experiment>.toml``: one entry
per statement of the seed's evaluation, quoted as the seed has it, with where it stands (table,
figure, slide), how a terse or qualitative statement is read (``reading``), the tests that count
as reproducing it, and, for a claim we do not reproduce, the measured cause where one exists
(``cause``, and ``explained_by``: the rows that show it). A test is one of::

    { row = [variant, flow, metric], seed = 0.017, within = 0.15 }   # |ours - seed| <= 15% of seed
    { row = [variant, flow, metric], op = "<", value = 0.01 }        # ours against a constant
    { row = [variant, flow, metric], op = "<", other = [...], factor = 0.5 }  # ours against a row
    { row = [variant, flow, metric], other = [...], within = 0.15 }  # |ours - other| <= 15% of other

The verdict of a claim (:func:`verdict`), from the outcomes of its tests on a run's rows:

- **not testable here** when the registry declares it so (``untestable = "reason"``), when it
  has no test, or when no test could be evaluated (their rows are missing);
- **reproduced** when every test was evaluated and holds;
- **not reproduced** when no evaluated test holds;
- **partly** otherwise: some tests hold and some fail, or every evaluated one holds but another
  could not be evaluated.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from importlib import resources
from pathlib import Path
from typing import Optional, Sequence

from .experiments.claims import Check, Ref, lookup
from .tomlread import loads

REPRODUCED = "reproduced"
PARTLY = "partly"
NOT_REPRODUCED = "not reproduced"
NOT_TESTABLE = "not testable here"
#: Every verdict, in the order the scoreboard counts them.
VERDICTS = (REPRODUCED, PARTLY, NOT_REPRODUCED, NOT_TESTABLE)

RULE = (
    "A claim is *reproduced* when every one of its tests was evaluated and holds, *partly* when "
    "some hold and others fail or could not be evaluated, *not reproduced* when none of its "
    "evaluated tests holds, and *not testable here* when the registry declares it so (with the "
    "reason) or none of its tests could be evaluated."
)

#: Significant digits of the figures in the scoreboard: the seed's are printed as they stand.
FIGURE_DIGITS = 4


def figure(x: Optional[float]) -> str:
    """A figure for the scoreboard: whole and thousands-separated from 1,000, else four
    significant digits; "n/a" when undefined."""
    if x is None:
        return "n/a"
    return f"{x:,.0f}" if abs(x) >= 1000 else f"{x:.{FIGURE_DIGITS}g}"


_TEST_KEYS = {
    "seed": {"row", "seed", "within"},
    "value": {"row", "op", "value"},
    "other": {"row", "op", "other", "factor"},
    "near": {"row", "other", "within"},
}


class RegistryError(ValueError):
    """A registry file that does not follow the format above."""


@dataclass(frozen=True)
class Test:
    """One test of a claim: it holds when all its checks hold."""

    checks: tuple[Check, ...]
    #: How the test reads, e.g. "loss_rate of C1 (tick=100ms,original) within ±15% of the seed's 0.017".
    text: str
    #: The seed's figure the test compares with, if it compares with one.
    seed: Optional[float] = None
    #: The bound a row is held to, as the seed column shows it ("> 0.5"), for a bound test.
    bound: Optional[str] = None

    @property
    def row(self) -> Ref:
        """The row the test is about (the left side of its checks)."""
        lhs = self.checks[0].lhs
        assert isinstance(lhs, tuple)
        return lhs

    def outcome(self, rows: Sequence[dict]) -> Optional[bool]:
        """Whether it holds on ``rows``; ``None`` when a row it needs is missing."""
        outcomes = [c.outcome(rows) for c in self.checks]
        return None if None in outcomes else all(outcomes)

    @property
    def other(self) -> Optional[Ref]:
        """The row the test compares with, for a comparison of two rows."""
        rhs = self.checks[0].rhs
        return rhs if isinstance(rhs, tuple) else None

    @property
    def seed_cell(self) -> str:
        """What the seed column shows: its figure, the bound, or "–" for a comparison of rows."""
        return figure(self.seed) if self.seed is not None else self.bound or "–"

    def refs(self) -> list[Ref]:
        """Every row the test reads."""
        sides = [s for c in self.checks for s in (c.lhs, c.rhs)]
        return list(dict.fromkeys(s for s in sides if isinstance(s, tuple)))


@dataclass(frozen=True)
class SeedClaim:
    """One statement of a seed, and what counts as reproducing it."""

    id: str
    #: Where the statement stands in the seed: "Table IV", "slide 9", "Figure 5(c)".
    where: str
    #: The statement, exactly as the seed's text has it.
    quote: str
    tests: tuple[Test, ...] = ()
    #: How a terse or qualitative statement is read into its tests ("much better": at least
    #: twice), shown beside them.
    reading: Optional[str] = None
    #: Why it cannot be tested here; set only for claims declared not testable.
    untestable: Optional[str] = None
    #: The measured cause of a shortfall, in one or two sentences.
    cause: Optional[str] = None
    #: Rows (typically of sensitivity variants) that show the cause.
    explained_by: tuple[Ref, ...] = ()
    #: Shown among the experiment's headline numbers on the index page.
    headline: bool = False


@dataclass(frozen=True)
class Registry:
    experiment: str
    #: The seed's file in the shared seeds folder.
    seed_file: str
    claims: tuple[SeedClaim, ...]
    #: Value ranges of metrics whose meaning in this experiment differs from the usual one
    #: (see :mod:`ndncc.vacuity`): metric -> (lowest, highest).
    ranges: dict = field(default_factory=dict)


def folder() -> Path:
    """The folder of the shipped registries."""
    return Path(str(resources.files("ndncc.experiments") / "seed_claims"))


def _ref(value, where: str) -> Ref:
    if not (isinstance(value, list) and len(value) == 3 and all(isinstance(v, str) for v in value)):
        raise RegistryError(f"{where}: a row is [variant, flow, metric], not {value!r}")
    return (value[0], value[1], value[2])


def label(ref: Ref) -> str:
    """A row as the tests print it: "metric of flow (variant)"."""
    variant, flow, metric = ref
    return f"{metric} of {flow} ({variant})"


def _test(d: dict, where: str) -> Test:
    kind = next((k for k in ("seed", "value", "other") if k in d), None)
    if kind == "other" and "within" in d:
        kind = "near"
    if kind is None or not set(d) <= _TEST_KEYS[kind] or "row" not in d:
        raise RegistryError(f"{where}: a test is one of {[sorted(k) for k in _TEST_KEYS.values()]}, not {d}")
    row = _ref(d["row"], where)
    if kind == "seed":
        seed, within = float(d["seed"]), float(d["within"])
        if seed <= 0 or not 0 < within < 1:
            raise RegistryError(
                f"{where}: 'within' is a relative tolerance in (0, 1) around a positive seed figure "
                "(compare a figure of 0 with a bound instead)"
            )
        lo, hi = seed * (1 - within), seed * (1 + within)
        checks = (Check(row, ">=", lo), Check(row, "<=", hi))
        return Test(checks, f"{label(row)} within ±{within:.0%} of the seed's {figure(seed)}", seed)
    if kind == "near":
        other, within = _ref(d["other"], where), float(d["within"])
        if not 0 < within < 1:
            raise RegistryError(f"{where}: 'within' is a relative tolerance in (0, 1)")
        checks = (Check(row, ">=", other, 1 - within), Check(row, "<=", other, 1 + within))
        return Test(checks, f"{label(row)} within ±{within:.0%} of {label(other)}")
    op = d["op"]
    if kind == "value":
        bound = f"{op} {figure(float(d['value']))}"
        return Test((Check(row, op, float(d["value"])),), f"{label(row)} {bound}", bound=bound)
    factor = float(d.get("factor", 1.0))
    other = _ref(d["other"], where)
    scaled = "" if factor == 1.0 else f"{figure(factor)} × "
    return Test((Check(row, op, other, factor),), f"{label(row)} {op} {scaled}{label(other)}")


def _claim(d: dict, where: str) -> SeedClaim:
    known = {"id", "where", "quote", "reading", "tests", "untestable", "cause", "explained_by", "headline"}
    if not set(d) <= known or not {"id", "where", "quote"} <= set(d):
        raise RegistryError(
            f"{where}: a claim has id, where, quote and some of {sorted(known)}, not {sorted(d)}"
        )
    where = f"{where} ({d['id']})"
    tests = tuple(_test(t, where) for t in d.get("tests", []))
    if d.get("untestable") and tests:
        raise RegistryError(f"{where}: a claim declared not testable has no tests")
    return SeedClaim(
        id=d["id"],
        where=d["where"],
        quote=" ".join(d["quote"].split()),
        tests=tests,
        reading=d.get("reading"),
        untestable=d.get("untestable"),
        cause=d.get("cause"),
        explained_by=tuple(_ref(r, where) for r in d.get("explained_by", [])),
        headline=bool(d.get("headline", False)),
    )


def parse(text: str, name: str) -> Registry:
    """A registry from its TOML text (``name`` is for error messages)."""
    d = loads(text)
    claims = tuple(_claim(c, f"{name}, claim {i + 1}") for i, c in enumerate(d.get("claim", [])))
    ids = [c.id for c in claims]
    if len(ids) != len(set(ids)):
        raise RegistryError(f"{name}: claim ids repeat")
    ranges = {m: (float(lo), float(hi)) for m, (lo, hi) in d.get("ranges", {}).items()}
    return Registry(d["experiment"], d["seed_file"], claims, ranges)


def load(experiment: str) -> Optional[Registry]:
    """The registry of ``experiment``; ``None`` if it has none."""
    path = folder() / f"{experiment}.toml"
    if not path.is_file():
        return None
    registry = parse(path.read_text(encoding="utf-8"), path.name)
    if registry.experiment != experiment:
        raise RegistryError(f"{path.name}: names experiment {registry.experiment!r}")
    return registry


# Verdicts ----------------------------------------------------------------------------------------


def verdict(outcomes: Sequence[Optional[bool]], untestable: bool = False) -> str:
    """The verdict from the outcomes of a claim's tests (``None``: not evaluated)."""
    evaluated = [o for o in outcomes if o is not None]
    if untestable or not evaluated:
        return NOT_TESTABLE
    if all(evaluated):
        return REPRODUCED if len(evaluated) == len(outcomes) else PARTLY
    return PARTLY if any(evaluated) else NOT_REPRODUCED


@dataclass(frozen=True)
class Judged:
    """A claim with its verdict on one run's rows."""

    claim: SeedClaim
    verdict: str
    outcomes: tuple[Optional[bool], ...]
    rows: Sequence[dict]

    def value(self, ref: Ref) -> Optional[float]:
        return lookup(self.rows, ref)

    def _figure(self, ref: Ref) -> str:
        return figure(self.value(ref))

    @property
    def ours(self) -> str:
        """Our figure(s): each test's row, and the row it is compared with ("a vs b")."""
        tests = self.claim.tests
        cells = [self._figure(t.row) + (f" vs {self._figure(t.other)}" if t.other else "") for t in tests]
        return " / ".join(cells) or "–"

    @property
    def seed(self) -> str:
        """The seed's figure, or bound, per test ("–" for a comparison of two rows)."""
        cells = [t.seed_cell for t in self.claim.tests]
        if len(set(cells)) == 1 and (len(cells) > 1 or cells[0] == "–"):
            # One bound for every row ("< 0.01" for eight loss rates) is shown once.
            return cells[0] if cells[0] == "–" else f"{cells[0]} (each)"
        return " / ".join(cells) or "–"

    @property
    def reason(self) -> Optional[str]:
        """Why the claim falls short, for anything but reproduced."""
        c = self.claim
        if self.verdict == REPRODUCED:
            return None
        if c.untestable:
            return c.untestable
        if not c.tests:
            return "no test registered"
        missing = [label(r) for t in c.tests for r in t.refs() if self.value(r) is None]
        parts = [c.cause] if c.cause else []
        if c.explained_by:
            parts.append("; ".join(f"{label(r)} = {self._figure(r)}" for r in c.explained_by))
        if missing:
            parts.append("rows missing: " + ", ".join(dict.fromkeys(missing)))
        return " ".join(p if p.endswith(".") else p + "." for p in parts) or None

    def as_json(self) -> dict:
        c = self.claim
        return {
            "id": c.id,
            "where": c.where,
            "quote": c.quote,
            "reading": c.reading,
            "verdict": self.verdict,
            "ours": self.ours,
            "seed": self.seed,
            "tests": [
                {
                    "text": t.text,
                    "holds": o,
                    "values": {label(r): _finite(self.value(r)) for r in t.refs()},
                    "checks": [k.as_json() for k in t.checks],
                }
                for t, o in zip(c.tests, self.outcomes)
            ],
            "untestable": c.untestable,
            "cause": c.cause,
            "explained_by": [{"row": list(r), "value": _finite(self.value(r))} for r in c.explained_by],
            "reason": self.reason,
            "headline": c.headline,
        }


def _finite(x: Optional[float]) -> Optional[float]:
    return None if x is None or math.isnan(x) else x


def judge(registry: Registry, rows: Sequence[dict]) -> list[Judged]:
    """Every claim of ``registry`` with its verdict on ``rows``."""
    out = []
    for c in registry.claims:
        outcomes = tuple(t.outcome(rows) for t in c.tests)
        out.append(Judged(c, verdict(outcomes, untestable=bool(c.untestable)), outcomes, rows))
    return out


def counts(judged: Sequence[Judged]) -> dict[str, int]:
    """How many claims got each verdict (every verdict present, zeros included)."""
    return {v: sum(j.verdict == v for j in judged) for v in VERDICTS}
