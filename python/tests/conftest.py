"""Shared fixtures: a small scenario on disk and a hand-made run result that needs no engine."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import ndncc
from ndncc.result import Result

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "two-node.toml"


@pytest.fixture
def scenario_file(tmp_path: Path) -> Path:
    path = tmp_path / "two-node.toml"
    path.write_text(EXAMPLE.read_text())
    return path


@pytest.fixture
def bad_scenario(tmp_path: Path) -> Path:
    """A scenario whose consumer sits on a node that does not exist (line 9, key apps.consumer.node)."""
    path = tmp_path / "bad.toml"
    path.write_text(
        '[simulation]\nduration = "1s"\n\n[nodes]\nC = {}\n\n[apps.consumer]\ntype = "consumer"\nnode = "X"\n'
        'prefix = "/p"\nwindow = { type = "fixed" }\n'
    )
    return path


def fake_raw() -> dict:
    """A run as the engine would hand it over, with numbers chosen by hand.

    Rows arrive in time order, so the saved tables must re-sort them.
    """
    t = np.array([0.1, 0.1, 0.2, 0.2, 0.3, 0.3], dtype=np.float64)
    return {
        "series": {
            "t": t,
            "entity": np.array([1, 0, 1, 0, 1, 0], dtype=np.uint32),
            "metric": np.array([1, 1, 1, 1, 0, 0], dtype=np.uint32),
            "value": np.array([10.0, 20.0, 30.0, 40.0, 5.0, 6.0]),
            "entities": ["c1", "c0"],
            "metrics": ["window", "data_received"],
        },
        "faces": {
            "t": np.array([0.1, 0.2]),
            "entity": np.array([0, 0], dtype=np.uint32),
            "metric": np.array([0, 0], dtype=np.uint32),
            "value": np.array([3.0, 0.0]),
            "entities": ["A->B"],
            "metrics": ["queue_packets"],
        },
        "summary": {
            "entity": ["A->B", "c1", "c0"],
            "kind": ["face", "consumer", "consumer"],
            "metric": ["drops", "goodput", "mean_rtt"],
            "value": [2.0, 1.5, float("nan")],
            "unit": ["count", "Mbps", "ms"],
        },
        "stats": {"sim_seconds": 0.3, "wall_seconds": 0.01, "events": 12, "packet_hops": 34},
        "seed": 7,
    }


@pytest.fixture
def fake_result(scenario_file: Path) -> Result:
    return Result(fake_raw(), ndncc.load(scenario_file))


@pytest.fixture
def make_fake_result(scenario_file: Path):
    """A factory of fresh, equal fake results."""
    return lambda: Result(fake_raw(), ndncc.load(scenario_file))
