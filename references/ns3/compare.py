"""ndncc beside ns-3 on scenarios/tcp-dumbbell.toml: per-flow throughput, timeouts, fast
recoveries and flows in ns-3's resend loop, mean over the seeds, for each ACK policy with
limited transmit on and off.

    .venv/bin/python references/ns3/compare.py            # ten seeds, a few seconds
    .venv/bin/python references/ns3/compare.py --seeds 3
    .venv/bin/python references/ns3/compare.py --seeds 40 --pinned /tmp/ns3-40.csv

ns-3's figures are the pinned table ``tcp-dumbbell.csv`` beside this file (``run_ns3.py`` makes
it, or another table of its with ``--pinned``); ndncc runs the shipped scenario with the same
ACK policy and limited-transmit setting three ways: with ns-3's sender (``profile = { type =
"ns3" }``), with its own RFC sender as shipped, and with the RFC sender counting FlightSize at a
fast retransmit as ns-3 does (``flight_size = "ns3"``). README.md gives the findings.
"""

from __future__ import annotations

import argparse
import csv
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
PINNED = HERE / "tcp-dumbbell.csv"
SCENARIO = HERE.parents[1] / "scenarios" / "tcp-dumbbell.toml"
FLOWS = ("tcp1", "tcp2")
#: Segments of 1,024 B in each flow's 10,485,760 bytes.
SEGMENTS = 10_240
#: A flow whose receiver got at least this many segments twice (1% of the transfer) is counted as
#: one that entered ns-3's resend loop (README.md, "ns-3's resend loop"). A timeout's go-back-N
#: alone can resend that many with an ACK per segment, so the count is a rough one.
LOOP_DUPLICATES = 100


@dataclass(frozen=True)
class Variant:
    ack_every: int
    limited_transmit: bool

    @property
    def label(self) -> str:
        acks = "delayed ACKs" if self.ack_every == 2 else "an ACK per segment"
        return f"{acks}, limited transmit {'on' if self.limited_transmit else 'off'}"


VARIANTS = (Variant(2, True), Variant(1, True), Variant(2, False), Variant(1, False))


@dataclass(frozen=True)
class Flow:
    """One flow of one run, from either simulator."""

    seed: int
    flow: str
    throughput_kbps: float
    timeouts: float
    fast_recoveries: float
    duplicates: float


def ns3_flows(variant: Variant, seeds, path: Path = PINNED) -> list[Flow]:
    """The pinned ns-3 rows of ``variant`` for ``seeds``."""
    with open(path, newline="") as f:
        rows = [r for r in csv.DictReader(f) if r["seed"] != "mean"]
    return [
        Flow(
            int(r["seed"]),
            r["flow"],
            float(r["throughput_kbps"]),
            float(r["timeouts"]),
            float(r["fast_recoveries"]),
            float(r["segments_received"]) - SEGMENTS,
        )
        for r in rows
        if int(r["seed"]) in seeds
        and int(r["del_ack_count"]) == variant.ack_every
        and (r["limited_transmit"] == "true") == variant.limited_transmit
        and r["recovery"] == "classic"
    ]


#: How ndncc runs each variant: its ns-3 sender, its RFC sender as shipped, and the RFC sender
#: counting FlightSize as ns-3 does; each the flow keys it sets.
SENDERS = {
    "ns3": ['profile={type="ns3"}'],
    "rfc": [],
    "rfc-ns3-flightsize": ['flight_size="ns3"'],
}


def overrides(variant: Variant, sender: str) -> list[str]:
    out = ['record.interval="0s"', "record.events=false"]
    for f in FLOWS:
        out += [
            f"apps.{f}.ack_every={variant.ack_every}",
            f"apps.{f}.limited_transmit={str(variant.limited_transmit).lower()}",
        ]
        out += [f"apps.{f}.{key}" for key in SENDERS[sender]]
    return out


def ndncc_flows(variant: Variant, sender: str, seeds) -> list[Flow]:
    """ndncc's flows of ``variant`` over ``seeds`` with ``sender`` (a key of SENDERS)."""
    import ndncc

    sc = ndncc.load(SCENARIO, overrides(variant, sender))

    def one(seed: int) -> list[Flow]:
        rows = sc.run(seed=seed).summary.select("entity", "metric", "value").iter_rows()
        v = {(e, m): x for e, m, x in rows}
        return [
            Flow(
                seed,
                f,
                v[(f, "throughput_kbps")],
                v[(f, "timeouts")],
                v[(f, "fast_retransmits")],
                v[(f"{f}-sink", "segments_received")] - SEGMENTS,
            )
            for f in FLOWS
        ]

    with ThreadPoolExecutor(max_workers=2) as pool:
        return [f for flows in pool.map(one, seeds) for f in flows]


def mean(flows: list[Flow], field: str) -> float:
    return sum(getattr(f, field) for f in flows) / len(flows) if flows else float("nan")


def looping(flows: list[Flow]) -> int:
    """How many of ``flows`` resent at least LOOP_DUPLICATES delivered segments."""
    return sum(f.duplicates >= LOOP_DUPLICATES for f in flows)


@dataclass(frozen=True)
class Row:
    """One variant: ns-3's flows and ndncc's with each of its senders."""

    variant: Variant
    ns3: list[Flow]
    ndncc: dict[str, list[Flow]]

    @staticmethod
    def gap(ours: list[Flow], theirs: list[Flow]) -> float:
        """ndncc's mean per-flow throughput relative to ns-3's (0.05 = 5% above)."""
        return mean(ours, "throughput_kbps") / mean(theirs, "throughput_kbps") - 1


def compare(seeds=range(1, 11), variants=VARIANTS, pinned: Path = PINNED) -> list[Row]:
    """Each variant the pinned table has rows of, over ``seeds``."""
    seeds = list(seeds)
    pinned_rows = {v: ns3_flows(v, seeds, pinned) for v in variants}
    return [
        Row(v, theirs, {s: ndncc_flows(v, s, seeds) for s in SENDERS})
        for v, theirs in pinned_rows.items()
        if theirs
    ]


def markdown(rows: list[Row]) -> str:
    """The comparison as a table: per-flow means over the seeds, ndncc's gap to ns-3 in brackets."""
    k = "throughput_kbps"
    out = [
        "| variant | ns-3 [kbit/s] | ndncc, profile ns3 | ndncc, RFC sender (default) "
        "| ndncc, RFC sender with ns-3's FlightSize | timeouts ns-3 / ns3 | fast recoveries ns-3 / ns3 "
        "| segments received twice per flow ns-3 / ns3 / RFC | flows in the resend loop ns-3 / ns3 |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        cells = [f"{mean(r.ndncc[s], k):,.0f} ({Row.gap(r.ndncc[s], r.ns3):+.1%})" for s in SENDERS]
        own, rfc = r.ndncc["ns3"], r.ndncc["rfc"]
        out.append(
            f"| {r.variant.label} | {mean(r.ns3, k):,.0f} | {' | '.join(cells)} "
            f"| {mean(r.ns3, 'timeouts'):.1f} / {mean(own, 'timeouts'):.1f} "
            f"| {mean(r.ns3, 'fast_recoveries'):.1f} / {mean(own, 'fast_recoveries'):.1f} "
            f"| {mean(r.ns3, 'duplicates'):,.0f} / {mean(own, 'duplicates'):,.0f} "
            f"/ {mean(rfc, 'duplicates'):,.0f} "
            f"| {looping(r.ns3)} / {looping(own)} of {len(r.ns3)} |"
        )
    return "\n".join(out)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=int, default=10, help="seeds 1..N of the pinned table (default 10)")
    p.add_argument("--pinned", type=Path, default=PINNED, help="ns-3's table (default: tcp-dumbbell.csv)")
    a = p.parse_args()
    print(markdown(compare(range(1, a.seeds + 1), pinned=a.pinned)))


if __name__ == "__main__":
    main()
