"""Throughput from cumulative counters, and figure selection."""

from __future__ import annotations

import polars as pl
import pytest

from ndncc import plots


def counter(entity: str, samples: list[tuple[float, float]]) -> pl.DataFrame:
    return pl.DataFrame(
        {
            "t": [t for t, _ in samples],
            "entity": entity,
            "metric": "data_received",
            "value": [v for _, v in samples],
        }
    )


def test_throughput_is_the_counter_rise_per_bin_over_its_width():
    # 10 Data by 0.5 s, 30 by 1.0 s, 30 by 1.5 s, 40 by 2.0 s
    series = counter("c", [(0.5, 10), (1.0, 30), (1.5, 30), (2.0, 40)])
    tp = plots.throughput(series, bin_s=1.0)
    assert tp["t"].to_list() == [1.0, 2.0]
    assert tp["value"].to_list() == [30.0, 10.0]


def test_default_bins_are_never_narrower_than_the_recording_interval():
    series = counter("c", [(0.5 * k, 5.0 * k) for k in range(1, 9)])  # every 0.5 s over 4 s
    tp = plots.throughput(series)
    assert tp["t"].to_list() == pytest.approx([0.5 * k for k in range(1, 9)])
    assert tp["value"].to_list() == pytest.approx([10.0] * 8)


def test_throughput_keeps_consumers_apart():
    series = pl.concat([counter("b", [(1.0, 4), (2.0, 8)]), counter("a", [(1.0, 1), (2.0, 1)])])
    tp = plots.throughput(series, bin_s=1.0)
    assert tp.filter(pl.col("entity") == "a")["value"].to_list() == [1.0, 0.0]
    assert tp.filter(pl.col("entity") == "b")["value"].to_list() == [4.0, 4.0]


def test_no_counter_gives_an_empty_table():
    empty = pl.DataFrame(
        schema={"t": pl.Float64, "entity": pl.String, "metric": pl.String, "value": pl.Float64}
    )
    assert plots.throughput(empty).is_empty()
