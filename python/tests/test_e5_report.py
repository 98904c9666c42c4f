"""E5's report helpers on hand-made rows and series: the late-window throughput and split, and
the verdicts of the sensitivity tables."""

from __future__ import annotations

import polars as pl
import pytest

from ndncc.experiments.claims import Notes, recheck
from ndncc.experiments.e5 import (
    CONSUMERS,
    TABLE1,
    UPSTREAM,
    _late_half,
    _most,
    _timeouts_against_nacks,
    _within_table1,
)


class _Run:
    """The two series `_late_half` reads, sampled every second."""

    def __init__(self, data: list[float], sent: dict[str, list[float]]):
        self._data, self._sent = data, sent

    @staticmethod
    def _frame(values: list[float]) -> pl.DataFrame:
        return pl.DataFrame({"t": [float(i) for i in range(len(values))], "value": values})

    def series(self, metric: str, entity: str) -> pl.DataFrame:
        assert (metric, entity) == ("data_received", "C")
        return self._frame(self._data)

    def faces(self, metric: str, entity: str) -> pl.DataFrame:
        assert metric == "bytes_sent"
        return self._frame(self._sent[entity])


def test_the_late_half_counts_data_and_interests_after_the_middle_of_the_run():
    run = _Run(
        [0, 10, 30, 60, 100],
        {UPSTREAM[0]: [0, 40, 80, 120, 160], UPSTREAM[1]: [0, 0, 0, 40, 120], UPSTREAM[2]: [0] * 5},
    )
    tput, shares = _late_half(run)
    # From t = 2 s to 4 s: 70 Data of 1,024 B in 2 s = 70 · 8,192 / 2 / 1,000 = 286.72 kbit/s.
    assert tput == pytest.approx(286.72)
    # Interest bytes after t = 2 s: 80, 120 and 0 of 200.
    assert shares == pytest.approx([0.4, 0.6, 0.0])


def test_most_names_the_stronger_rival_when_pcon_is_not_ahead():
    rows = [
        {"variant": v, "flow": "all", "metric": "tput", "value": x, "paper": None, "unit": ""}
        for v, x in (("pcon", 10.0), ("pi", 8.0), ("cf", 12.0), ("pcon-b", 12.0))
    ]
    nt = Notes(rows)
    word, checks = _most(nt, "pcon", ["pi", "cf"], "tput")
    assert word == "no" and [c.rhs for c in checks] == [("cf", "all", "tput")]
    assert nt.holds(*checks)
    word, checks = _most(nt, "pcon-b", ["pi", "cf"], "tput")  # 12 ≥ 8 and 12 ≥ 12
    assert word == "yes" and len(checks) == 2 and nt.holds(*checks)
    # A verdict recorded with its checks is caught when the numbers change.
    nt.say(f"| pcon | {word} |", *checks)
    rows[3]["value"] = 11.0
    assert recheck(nt.claims, rows)


def test_within_table1_says_which_consumer_is_outside_the_band():
    seed = {f: TABLE1["pcon"][f][1] for f in (*CONSUMERS, "all")}
    rows = [
        {"variant": "v", "flow": f, "metric": "rate_mbps", "value": x, "paper": None, "unit": ""}
        for f, x in seed.items()
    ]
    nt = Notes(rows)
    assert _within_table1(nt, "v", "pcon", 0.3)[0] == "yes"
    # C3 at 6.5 Mbit/s: below 0.7 · 9.32 = 6.524.
    rows[2]["value"] = 6.5
    word, checks = _within_table1(Notes(rows), "v", "pcon", 0.3)
    assert word == "no (C3 low)" and Notes(rows).holds(*checks)
    rows[2]["value"] = 6.53  # just inside
    assert _within_table1(Notes(rows), "v", "pcon", 0.3)[0] == "yes"


class _Events:
    """A consumer's timeout and NACK events, each valued with its segment number."""

    def __init__(self, timeouts: list[tuple[float, int]], nacks: list[tuple[float, int]]):
        self._by_metric = {"timeout": timeouts, "nack": nacks}

    def series(self, metric: str, entity: str) -> pl.DataFrame:
        assert entity == "C"
        rows = self._by_metric[metric]
        return pl.DataFrame(
            {"t": [t for t, _ in rows], "value": [float(s) for _, s in rows]},
            schema={"t": pl.Float64, "value": pl.Float64},
        )


def test_each_timeout_is_put_down_to_a_late_nack_or_a_nack_that_never_came():
    run = _Events(
        # Segment 7 times out twice; segment 9's NACK came before its timeout (a retransmission
        # that timed out in turn): neither late nor never.
        timeouts=[(1.0, 5), (1.2, 7), (1.6, 7), (2.0, 8), (3.0, 9)],
        nacks=[(1.09, 5), (1.25, 7), (1.4, 7), (2.9, 9)],
    )
    late, never, lateness = _timeouts_against_nacks(run, "C")
    # Late: 5 (90 ms after its timer) and 7 (50 ms after its first); never: 8.
    assert (late, never) == (2.0, 1.0)
    assert lateness == pytest.approx(70.0)
    assert _timeouts_against_nacks(_Events([], [(1.0, 1)]), "C") == (0.0, 0.0, None)
