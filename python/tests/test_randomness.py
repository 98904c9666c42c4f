"""A sweep over seeds of a scenario with nothing random in it says so, once."""

from __future__ import annotations

import warnings
from pathlib import Path

import pytest

from ndncc import _core, cli, grid
from ndncc.errors import NdnccWarning
from ndncc.randomness import IdenticalSeedsWarning, random_sources
from ndncc.sweeping import make_plan

EXAMPLE = Path(__file__).resolve().parents[2] / "docs" / "examples" / "two-node.toml"
SHORT = ['simulation.duration="1s"']
WINDOW = grid.make_axis(["apps.consumer.window.window"], [5, 10])


def plan_warnings(axes, seeds, overrides=()) -> list[warnings.WarningMessage]:
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        make_plan(EXAMPLE, axes, seeds, [*SHORT, *overrides])
    return [w for w in caught if issubclass(w.category, NdnccWarning)]


def test_seeds_of_a_scenario_with_nothing_random_warn_once_naming_it():
    caught = plan_warnings([WINDOW], [1, 2, 3])
    assert len(caught) == 1
    assert caught[0].category is IdenticalSeedsWarning
    text = str(caught[0].message)
    assert text.startswith("two-node: nothing in this scenario is random")
    assert "its 3 seeds give 3 identical runs at every grid point" in text


@pytest.mark.parametrize(
    "overrides",
    [
        ['links.C-P.loss={ type = "bernoulli", p = "1%" }'],
        ['apps.consumer.start_jitter="100ms"'],
        ['apps.consumer.arrivals={ type = "poisson", rate = 5.0 }'],
        ['links.C-P.delay={ type = "uniform", min = "5ms", max = "15ms" }'],
    ],
)
def test_a_random_source_silences_the_warning(overrides):
    assert plan_warnings([WINDOW], [1, 2, 3], overrides) == []


def test_one_seed_or_one_random_grid_point_is_no_cause_for_a_warning():
    assert plan_warnings([WINDOW], [7]) == []
    # Loss 0 is deterministic, 1% is not: the sweep as a whole varies with its seeds.
    loss = grid.make_axis(["links.C-P.loss.p"], [0, "1%"])
    assert plan_warnings([loss], [1, 2], ['links.C-P.loss={ type = "bernoulli", p = 0 }']) == []
    # Loss 0 at every point: nothing random after all.
    assert len(plan_warnings([WINDOW], [1, 2], ['links.C-P.loss={ type = "bernoulli", p = 0 }'])) == 1


def test_the_engine_lists_random_settings_by_key():
    text = EXAMPLE.read_text()
    assert _core.load_str(text, "two-node.toml", []).random_sources == []
    jittered = _core.load_str(text, "two-node.toml", ['apps.consumer.start_jitter="1s"'])
    assert jittered.random_sources == ["apps.consumer.start_jitter (random start)"]
    assert random_sources(jittered.to_toml()) == ["apps.consumer.start_jitter (random start)"]


def test_the_command_line_shows_the_warning_as_one_line(capsys, tmp_path):
    code = cli.main(
        [
            "sweep",
            str(EXAMPLE),
            "--grid",
            "apps.consumer.window.window=5,10",
            "--seeds",
            "2",
            "--set",
            'simulation.duration="1s"',
            "--workers",
            "1",
            "--out",
            str(tmp_path / "s"),
        ]
    )
    _, err = capsys.readouterr()
    assert code == 0, err
    lines = [line for line in err.splitlines() if "identical runs" in line]
    assert len(lines) == 1, err
    assert lines[0].startswith("warning: two-node: nothing in this scenario is random")
    assert "NdnccWarning" not in err and "IdenticalSeedsWarning" not in err
