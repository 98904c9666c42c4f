"""Checks that cannot fail: a bound wider than the range a metric can take, a row compared with
itself, two constants compared, a claim with no check at all.

A metric's range comes from what it is: shares, utilisations, Jain's index and the like lie in
[0, 1] (Jain's index in [1/n, 1] for n flows), counts, throughputs and times are never negative,
and anything else may take any value. An experiment whose metric means something else there
declares the range in its registry (``[ranges]``), e.g. E3's loss rate, retransmitted Interests
per Data received, which can exceed 1.
"""

from __future__ import annotations

import math
from typing import Callable, Mapping, Optional, Sequence

from .experiments.claims import Check, Ref, Side

Range = tuple[float, float]
INF = math.inf

#: Metrics that lie in [0, 1] whatever their unit says.
UNIT_INTERVAL = {
    "share",
    "utilisation",
    "loss_rate",
    "unanswered_rate",
    "policed_share",
    "jain_index",
    "feedback_saved",
    "completed",
    "conservation_ok",
}
#: Units of quantities that are never negative.
NON_NEGATIVE_UNITS = {
    "packets",
    "events",
    "bytes",
    "segments",
    "hops",
    "count",
    "flows",
    "s",
    "ms",
    "kbit/s",
    "Mbit/s",
    "Interests/s",
}


def metric_range(metric: str, unit: str, jain_flows: Optional[float] = None) -> Range:
    """The values ``metric`` (in ``unit``) can take."""
    if metric == "jain_index":
        return (1.0 / jain_flows if jain_flows else 0.0, 1.0)
    if metric in UNIT_INTERVAL or unit == "bool":
        return (0.0, 1.0)
    if metric.endswith(("_ci95", "_ratio")) or metric.startswith("retx_per_"):
        # Interval half-widths, quotients of throughputs or of counts.
        return (0.0, INF)
    if unit in NON_NEGATIVE_UNITS and "minus" not in metric:
        return (0.0, INF)
    return (-INF, INF)


def row_ranges(rows: Sequence[dict], overrides: Mapping[str, Range] = {}) -> Callable[[Ref], Range]:
    """The range of each row of a reproduction's ``rows`` (by its metric and unit; a metric in
    ``overrides`` takes that range). A row not in ``rows`` may take any value."""
    units = {(r["variant"], r["flow"], r["metric"]): r["unit"] for r in rows}
    flows = {
        (r["variant"], r["flow"]): r["value"] for r in rows if r["metric"] == "jain_flows" and r["value"]
    }

    def range_of(ref: Ref) -> Range:
        variant, flow, metric = ref
        if metric in overrides:
            return overrides[metric]
        if ref not in units:
            return (-INF, INF)
        return metric_range(metric, units[ref], flows.get((variant, flow)))

    return range_of


def _span(side: Side, range_of: Callable[[Ref], Range]) -> Range:
    return range_of(side) if isinstance(side, tuple) else (float(side), float(side))


def _scaled(r: Range, factor: float) -> Range:
    lo, hi = (r[0] * factor, r[1] * factor) if factor >= 0 else (r[1] * factor, r[0] * factor)
    # 0 × ∞ is 0 here: a factor of 0 makes the side the constant 0.
    return tuple(0.0 if math.isnan(x) else x for x in (lo, hi))  # type: ignore[return-value]


def why_check_cannot_fail(check: Check, range_of: Callable[[Ref], Range]) -> Optional[str]:
    """Why ``check`` holds for every value its rows can take; ``None`` if some value fails it."""
    if not isinstance(check.lhs, tuple) and not isinstance(check.rhs, tuple):
        return "compares two constants"
    if check.lhs == check.rhs:
        return "compares a row with itself"
    (l_lo, l_hi), (r_lo, r_hi) = _span(check.lhs, range_of), _scaled(_span(check.rhs, range_of), check.factor)
    always = {
        "<": l_hi < r_lo,
        "<=": l_hi <= r_lo,
        ">": l_lo > r_hi,
        ">=": l_lo >= r_hi,
        "==": l_lo == l_hi == r_lo == r_hi,
    }[check.op]
    if always:
        return f"[{l_lo:g}, {l_hi:g}] {check.op} [{r_lo:g}, {r_hi:g}] for every value"
    return None


def why_checks_cannot_fail(checks: Sequence[Check], range_of: Callable[[Ref], Range]) -> Optional[str]:
    """Why a conjunction of checks (a registry test) can never fail: each of its
    checks cannot. ``None`` if one can."""
    reasons = [why_check_cannot_fail(c, range_of) for c in checks]
    if not checks or any(r is None for r in reasons):
        return None
    return "; ".join(f"{c.lhs} {c.op} {c.factor:g}·{c.rhs}: {r}" for c, r in zip(checks, reasons))


def vacuous_checks(checks: Sequence[Check], range_of: Callable[[Ref], Range]) -> list[str]:
    """Every check among ``checks`` that cannot fail on its own, with why."""
    out = []
    for c in checks:
        reason = why_check_cannot_fail(c, range_of)
        if reason:
            out.append(f"{c.lhs} {c.op} {c.factor:g}·{c.rhs}: {reason}")
    return out


def vacuous_registry(registry, rows: Sequence[dict]) -> list[str]:
    """Every problem of a :class:`ndncc.seedclaims.Registry` on a run's ``rows``: a claim with no
    test that is not declared untestable, a test or check that cannot fail."""
    range_of = row_ranges(rows, registry.ranges)
    problems = []
    for c in registry.claims:
        if not c.tests and not c.untestable:
            problems.append(f"{c.id}: no test, and not declared untestable with a reason")
        for t in c.tests:
            # A test is an interval or one comparison: it is vacuous when all its checks are (a
            # tolerance band around 0.9 for a share may pass 1 on one side only).
            reason = why_checks_cannot_fail(t.checks, range_of)
            if reason:
                problems.append(f"{c.id}: {t.text}: {reason}")
    return problems


def vacuous_notes_claims(claims: Sequence[dict], rows: Sequence[dict], overrides: Mapping = {}) -> list[str]:
    """Every problem of the claims a reproduction's notes made (``claims.json``): a claim with
    no check that gives no reason, a check that cannot fail."""
    range_of = row_ranges(rows, overrides)
    problems = []
    for c in claims:
        checks = [Check.from_json(d) for d in c["checks"]]
        if not checks and not c.get("untestable"):
            problems.append(f"{c['text'][:80]!r}: no check, and no reason why it has none")
        problems += [f"{c['text'][:80]!r}: {p}" for p in vacuous_checks(checks, range_of)]
    return problems
