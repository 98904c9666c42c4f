"""E1's reading of the seed's per-100 ms figures on hand-made series: each Data back in the bin its
Interest was sent in, the bins that lose, and how long a sending rate takes to come down."""

from __future__ import annotations

import polars as pl
import pytest

from ndncc.experiments.e1 import _full_loss, _loss_bins, _lossy, _time_to_rate, _within


class _Run:
    """Cumulative 100 ms samples of Interests sent (and Data received), and RTT events."""

    def __init__(
        self, sent: list[float], rtts: list[tuple[float, float]], received: list[float] | None = None
    ):
        self._sent, self._rtts = sent, rtts
        self._received = received if received is not None else [0.0] * len(sent)

    def series(self, metric, entity: str) -> pl.DataFrame:
        ts = [round(0.1 * i, 1) for i in range(len(self._sent))]
        if metric == "rtt":
            return pl.DataFrame({"t": [t for t, _ in self._rtts], "value": [r for _, r in self._rtts]})
        frames = {"interests_sent": self._sent, "data_received": self._received}
        wanted = [metric] if isinstance(metric, str) else list(metric)
        return pl.concat(pl.DataFrame({"t": ts, "metric": [m] * len(ts), "value": frames[m]}) for m in wanted)


def test_each_data_counts_in_the_bin_its_interest_was_sent_in():
    # Sends: 2 at 0.1 s exactly (in the sample at 0.1), 4 in (0.1, 0.2], none after.
    # Data: both of the first (sent at 0.1: arrival 0.5 less RTT 0.4), one of the second bin
    # (sent at 0.15), so bin 0.2 loses 3 of 4.
    run = _Run([0.0, 2.0, 6.0, 6.0], [(0.5, 0.4), (0.52, 0.42), (0.6, 0.45)])
    bins = _loss_bins(run, "C1")
    assert bins["t"].to_list() == pytest.approx([0.1, 0.2])
    assert bins["sent"].to_list() == [2.0, 4.0]
    assert bins["answered"].to_list() == [2.0, 1.0]
    assert bins["loss"].to_list() == pytest.approx([0.0, 0.75])
    assert (_lossy(bins), _full_loss(bins)) == (1.0, 0.0)
    assert _within(bins, 0.15, 0.3)["t"].to_list() == pytest.approx([0.2])


def test_a_bin_whose_interests_all_go_unanswered_counts_as_a_full_loss():
    bins = _loss_bins(_Run([0.0, 5.0, 5.0, 8.0], [(0.7, 0.4)]), "C1")
    # Bin 0.1: 5 sent, 0 answered (the one Data was sent at 0.3); bin 0.3: 3 sent, 1 answered.
    assert bins["loss"].to_list() == pytest.approx([1.0, 2.0 / 3.0])
    assert (_lossy(bins), _full_loss(bins)) == (2.0, 1.0)


def test_the_time_to_a_rate_is_counted_from_c2s_start_on_a_500_ms_mean():
    # 1,000 Interests/s in the bins up to 3.5 s, then 500/s: the mean of the last five bins is
    # 900/s at 3.6 s and first reaches 800/s at 3.7 s (three bins at 1,000, two at 500).
    per_bin = [100.0 if i <= 35 else 50.0 for i in range(1, 81)]
    cumulative = [0.0]
    for n in per_bin:
        cumulative.append(cumulative[-1] + n)
    run = _Run(cumulative, [])
    assert _time_to_rate(run, "C1", 800.0) == pytest.approx(0.7)
    assert _time_to_rate(run, "C1", 400.0) is None
