"""The Rust ``aimd`` window controller, ported to Python (docs/python-controllers.md).

::

    Data:     W < ssthresh ? W += 1 (slow start) : W += 1/W (congestion avoidance)
    timeout:  ssthresh = max(2, beta * W);  W = initial_window      (Tahoe)
    NACK:     retransmit, window unchanged (the base class's default)

With its defaults it gives the same runs, bit for bit, as ``window = { type = "aimd" }``:
the arithmetic is the same IEEE-754 double arithmetic in the same order.

    window = { type = "python", class = "ndncc.examples.aimd:Aimd", params = { beta = 0.5 } }
"""

from __future__ import annotations

import math
from typing import Optional

from ndncc.controllers import DataEvent, LossEvent, WindowController

#: The smallest ssthresh a decrease leaves [packets] (RFC 5681: 2 segments).
LOSS_FLOOR = 2.0


class Aimd(WindowController):
    """Slow start, +1/W per Data in congestion avoidance, Tahoe on a timeout."""

    def __init__(
        self,
        initial_window: float = 1.0,
        initial_ssthresh: Optional[float] = None,
        beta: float = 0.5,
    ):
        _check_window("initial_window", initial_window)
        if initial_ssthresh is not None:
            _check_window("initial_ssthresh", initial_ssthresh)
        if not (isinstance(beta, (int, float)) and 0.0 < beta < 1.0):
            raise ValueError(f"beta must be in (0, 1) (got {beta!r})")
        self._initial = float(initial_window)
        self._w = self._initial
        # Unbounded until the first decrease: every Data is slow start.
        self._ssthresh = math.inf if initial_ssthresh is None else float(initial_ssthresh)
        self._beta = float(beta)

    def on_data(self, ev: DataEvent) -> None:
        w = self._w
        self._w = w + 1.0 if w < self._ssthresh else w + 1.0 / w

    def on_timeout(self, ev: LossEvent) -> None:
        self._ssthresh = max(self._beta * self._w, LOSS_FLOOR)
        self._w = self._initial

    def window(self) -> float:
        return self._w

    def ssthresh(self) -> Optional[float]:
        return None if self._ssthresh == math.inf else self._ssthresh


def _check_window(key: str, value: object) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not 1.0 <= value <= 1e6:
        raise ValueError(f"{key} must be a window of 1 to 1e6 Interests (got {value!r})")
