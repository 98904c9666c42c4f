"""ndncc beside ns-3 on scenarios/tcp-dumbbell.toml: per-flow throughput, timeouts and fast
recoveries, mean over the seeds, for each ACK policy with limited transmit on and off.

    .venv/bin/python references/ns3/compare.py            # ten seeds, about 10 s
    .venv/bin/python references/ns3/compare.py --seeds 3

ns-3's figures are the pinned table ``tcp-dumbbell.csv`` beside this file (``run_ns3.py`` makes
it); ndncc runs the shipped scenario with the same ACK policy and limited-transmit setting, once
counting FlightSize at a fast retransmit as ns-3 does (``flight_size = "ns3"``) and once as RFC
5681 does (ndncc's default). README.md gives the findings.
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
#: A flow whose receiver got at least this many segments twice (1% of the transfer) is one ns-3
#: kept resending segments already delivered (README.md, "ns-3's resend loop").
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


def overrides(variant: Variant, flight_size: str) -> list[str]:
    out = ['record.interval="0s"', "record.events=false"]
    for f in FLOWS:
        out += [
            f"apps.{f}.ack_every={variant.ack_every}",
            f"apps.{f}.limited_transmit={str(variant.limited_transmit).lower()}",
            f'apps.{f}.flight_size="{flight_size}"',
        ]
    return out


def ndncc_flows(variant: Variant, flight_size: str, seeds) -> list[Flow]:
    """ndncc's flows of ``variant`` over ``seeds``, FlightSize counted as ``flight_size`` says."""
    import ndncc

    sc = ndncc.load(SCENARIO, overrides(variant, flight_size))

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


def loop_seeds(flows: list[Flow]) -> set[int]:
    """The seeds in which some ns-3 flow resent at least LOOP_DUPLICATES delivered segments."""
    return {f.seed for f in flows if f.duplicates >= LOOP_DUPLICATES}


@dataclass(frozen=True)
class Row:
    """One variant: ns-3's flows and ndncc's, FlightSize counted as ns-3 and as RFC 5681 do."""

    variant: Variant
    ns3: list[Flow]
    as_ns3: list[Flow]
    as_rfc: list[Flow]

    def ns3_clean(self) -> list[Flow]:
        """ns-3's flows on the seeds where none of its flows entered the resend loop."""
        bad = loop_seeds(self.ns3)
        return [f for f in self.ns3 if f.seed not in bad]

    @staticmethod
    def gap(ours: list[Flow], theirs: list[Flow]) -> float:
        """ndncc's mean per-flow throughput relative to ns-3's (0.05 = 5% above)."""
        return mean(ours, "throughput_kbps") / mean(theirs, "throughput_kbps") - 1


def compare(seeds=range(1, 11), variants=VARIANTS) -> list[Row]:
    seeds = list(seeds)
    return [
        Row(v, ns3_flows(v, seeds), ndncc_flows(v, "ns3", seeds), ndncc_flows(v, "rfc5681", seeds))
        for v in variants
    ]


def markdown(rows: list[Row]) -> str:
    """The comparison as a table: per-flow means over the seeds, ndncc's gap to ns-3 in brackets."""
    k = "throughput_kbps"
    out = [
        "| variant | ns-3 [kbit/s] | ndncc, ns-3's FlightSize | ndncc, RFC 5681's (default) "
        "| timeouts ns-3 / ndncc | fast recoveries ns-3 / ndncc | ns-3 flows in its resend loop "
        "| ns-3 on the seeds without it |",
        "| --- | ---: | ---: | ---: | ---: | ---: | ---: | ---: |",
    ]
    for r in rows:
        clean = r.ns3_clean()
        n = len({f.seed for f in clean})
        without = (
            f"{n} seed{'s' if n > 1 else ''}: {mean(clean, k):,.0f} ({Row.gap(r.as_ns3, clean):+.1%})"
            if n
            else "none"
        )
        looping = sum(f.duplicates >= LOOP_DUPLICATES for f in r.ns3)
        out.append(
            f"| {r.variant.label} | {mean(r.ns3, k):,.0f} "
            f"| {mean(r.as_ns3, k):,.0f} ({Row.gap(r.as_ns3, r.ns3):+.1%}) "
            f"| {mean(r.as_rfc, k):,.0f} ({Row.gap(r.as_rfc, r.ns3):+.1%}) "
            f"| {mean(r.ns3, 'timeouts'):.1f} / {mean(r.as_ns3, 'timeouts'):.1f} "
            f"| {mean(r.ns3, 'fast_recoveries'):.1f} / {mean(r.as_ns3, 'fast_recoveries'):.1f} "
            f"| {looping} of {len(r.ns3)} | {without} |"
        )
    return "\n".join(out)


def main() -> None:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--seeds", type=int, default=10, help="seeds 1..N of the pinned table (default 10)")
    a = p.parse_args()
    print(markdown(compare(range(1, a.seeds + 1))))


if __name__ == "__main__":
    main()
