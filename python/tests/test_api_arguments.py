"""The Python API answers a wrong type or value with one BadInput naming the argument: never a
TypeError from inside, an error of another library, or a value taken for something else."""

from __future__ import annotations

import pytest

import ndncc


@pytest.fixture
def result(scenario_file):
    return ndncc.load(scenario_file).run()


CASES = {
    "load(123)": (lambda sc, r, f: ndncc.load(123), "path"),
    "load(bytes)": (lambda sc, r, f: ndncc.load(str(f).encode()), "path"),
    "load_str(bytes)": (lambda sc, r, f: ndncc.load_str(b"[simulation]"), "text"),
    "an override that is not text": (lambda sc, r, f: ndncc.load(f, [5]), r"overrides\[0\]"),
    "a lone surrogate in an override": (
        lambda sc, r, f: ndncc.load(f, ["simulation.name=\udc80"]),
        "surrogate",
    ),
    "with_overrides(a list)": (lambda sc, r, f: sc.with_overrides(["simulation.seed=2"]), "with_overrides"),
    "run(progress=5)": (lambda sc, r, f: sc.run(progress=5), "progress"),
    "series(metric=5)": (lambda sc, r, f: r.series(metric=5), "metric"),
    "series(entity=[1, 2])": (lambda sc, r, f: r.series(entity=[1, 2]), r"entity\[0\]"),
    "save(overwrite='yes')": (lambda sc, r, f: r.save("never-written", overwrite="yes"), "overwrite"),
    "save into /proc": (lambda sc, r, f: r.save("/proc/ndncc-cannot-be-here"), "cannot write a folder there"),
    "sweep(grid=5)": (lambda sc, r, f: ndncc.sweep(f, grid=5, seeds=1, progress=False), "grid"),
    "sweep(keep_series='yes')": (
        lambda sc, r, f: ndncc.sweep(f, seeds=1, keep_series="yes", progress=False),
        "keep_series",
    ),
    "sweep(metrics=5)": (lambda sc, r, f: ndncc.sweep(f, seeds=1, metrics=5, progress=False), "metrics"),
}


@pytest.mark.parametrize("case", list(CASES))
def test_foreign_types_and_values_at_the_api_are_bad_input_naming_the_argument(case, scenario_file, result):
    call, named = CASES[case]
    sc = ndncc.load(scenario_file)
    with pytest.raises(ndncc.BadInput, match=named) as e:
        call(sc, result, scenario_file)
    assert len(str(e.value)) < 300, "a long value is not echoed in full"


def test_a_long_bad_value_is_cut_short_in_the_message(result):
    with pytest.raises(ndncc.BadInput) as e:
        result.series(metric=12345678901234567890**6)
    assert "..." in str(e.value) and len(str(e.value)) < 150
