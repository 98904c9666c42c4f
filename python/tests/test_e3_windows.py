"""E3's readings of the seed's window figures on hand-made series: the window's level over a
download, the share of decreases back to one packet, and the first slow start's peak."""

from __future__ import annotations

import polars as pl
import pytest

from ndncc.experiments._variants import Variant
from ndncc.experiments.e3 import BDP_PACKETS, _window_rows


class _Run:
    def __init__(self, frames: dict[tuple[str, str], list[tuple[float, float]]]):
        self._frames = frames

    def series(self, metric: str, entity: str) -> pl.DataFrame:
        rows = self._frames.get((entity, metric), [])
        return pl.DataFrame(
            {"t": [t for t, _ in rows], "value": [v for _, v in rows]},
            schema={"t": pl.Float64, "value": pl.Float64},
        )


def _values(rows: list[dict]) -> dict[tuple[str, str], object]:
    return {(r["flow"], r["metric"]): r["value"] for r in rows}


def test_window_rows_read_the_level_the_decreases_and_the_slow_start_peak():
    frames = {
        # C1: slow start to 40, back to 1, then 10 and 20 until its download ends at 0.8 s; the
        # sample after it (100) is not part of the download.
        ("C1", "window"): [(0.2, 10.0), (0.4, 40.0), (0.6, 10.0), (0.8, 20.0), (1.0, 100.0)],
        ("C1", "data_received"): [(0.2, 5.0), (0.4, 50.0), (0.6, 70.0), (0.8, 90.0), (1.0, 90.0)],
        ("C1", "window_decrease"): [(0.5, 1.0), (0.9, 10.0)],
        # C2: no decrease at all; its peak is its largest sample.
        ("C2", "window"): [(0.2, 4.0), (0.4, 8.0)],
        ("C2", "data_received"): [(0.2, 1.0), (0.4, 2.0)],
    }
    got = _values(_window_rows(_Run(frames), Variant("v", "e3.toml", (), {}, "")))
    assert got[("C1", "mean_window")] == pytest.approx((10 + 40 + 10 + 20) / 4)
    assert got[("C1", "decreases_to_one_share")] == pytest.approx(0.5)
    assert got[("C1", "slow_start_peak_window")] == 40.0  # samples up to the decrease at 0.5 s
    assert got[("C2", "decreases_to_one_share")] is None
    assert got[("C2", "slow_start_peak_window")] == 8.0
    assert got[("C1|C2", "slow_start_peak_window")] == 40.0
    # 5 Mbit/s × 60 ms in Data of 1,088 bytes.
    assert got[("path", "bdp_packets")] == pytest.approx(34.4669, abs=1e-4) == BDP_PACKETS
