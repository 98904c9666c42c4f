"""The output folder: contents, schema, atomic writes, and byte-for-byte determinism."""

from __future__ import annotations

import json
import os
import random

import numpy as np
import polars as pl
import pytest

import ndncc
from ndncc import output, result

DATA_FILES = ("manifest.json", "summary.json", "series.parquet", "faces.parquet")
# The example runs a window consumer, so it has no sending-rate series (rate.png is for rate consumers).
FIGURES = ("window.png", "rtt.png", "queue.png", "throughput.png")


def test_save_writes_data_figures_and_report(fake_result, tmp_path):
    fake_result.save(tmp_path / "run")
    names = {p.name for p in (tmp_path / "run").iterdir()}
    assert names >= set(DATA_FILES) | {"report.md", "window.png", "queue.png", "throughput.png"}
    assert not [n for n in names if ".tmp-" in n]


def test_a_real_run_draws_every_figure(scenario_file, tmp_path):
    out = tmp_path / "run"
    ndncc.load(scenario_file).run().save(out)
    for name in FIGURES:
        assert (out / name).read_bytes().startswith(b"\x89PNG")
    report = (out / "report.md").read_text()
    assert report.startswith("# two-node")
    for name in FIGURES:
        assert f"]({name})" in report


def test_summary_json_follows_the_schema(fake_result, tmp_path):
    fake_result.save(tmp_path / "run", variant="v1", paper={("c1", "goodput"): 1.2})
    rows = json.loads((tmp_path / "run" / "summary.json").read_text())
    assert [list(r) for r in rows] == [list(output.SUMMARY_FIELDS)] * 3
    # consumers first (by name), then faces
    assert [(r["flow"], r["metric"]) for r in rows] == [
        ("c0", "mean_rtt"),
        ("c1", "goodput"),
        ("A->B", "drops"),
    ]
    assert rows[1] == {
        "variant": "v1",
        "flow": "c1",
        "metric": "goodput",
        "value": 1.5,
        "paper": 1.2,
        "unit": "Mbps",
    }
    assert rows[0]["value"] is None  # NaN has no JSON spelling
    assert rows[2]["paper"] is None


def test_paper_values_must_name_an_existing_row(fake_result, tmp_path):
    with pytest.raises(ValueError, match="c9/goodput"):
        fake_result.save(tmp_path, paper={("c9", "goodput"): 1.0})


def test_the_comparison_table_appears_only_with_paper_values(fake_result, tmp_path):
    fake_result.save(tmp_path / "plain")
    assert "Ours vs seed" not in (tmp_path / "plain" / "report.md").read_text()
    fake_result.save(tmp_path / "paper", paper={("c1", "goodput"): 3.0})
    report = (tmp_path / "paper" / "report.md").read_text()
    assert "## Ours vs seed" in report
    assert "| two-node | c1 | goodput | 1.5 | 3 | 0.5 | Mbps |" in report


def test_long_tables_are_sorted_by_entity_metric_time(fake_result, tmp_path):
    fake_result.save(tmp_path / "run")
    series = pl.read_parquet(tmp_path / "run" / "series.parquet")
    assert series.columns == ["t", "entity", "metric", "value"]
    assert series.rows() == [
        (0.1, "c0", "data_received", 10.0),
        (0.2, "c0", "data_received", 30.0),
        (0.3, "c0", "window", 5.0),
        (0.1, "c1", "data_received", 20.0),
        (0.2, "c1", "data_received", 40.0),
        (0.3, "c1", "window", 6.0),
    ]


def test_manifest_records_version_scenario_seed_and_stats(fake_result, tmp_path):
    fake_result.save(tmp_path / "run")
    m = json.loads((tmp_path / "run" / "manifest.json").read_text())
    assert m["ndncc_version"] == ndncc.__version__
    assert m["seed"] == 7
    assert (m["events"], m["packet_hops"], m["wall_seconds"]) == (12, 34, 0.01)
    assert m["scenario"]["simulation"]["duration"] == "10s"


def test_the_same_result_saves_to_the_same_bytes(make_fake_result, tmp_path):
    # Saved twice in all, and every file compared: a save draws the figures, the slow part.
    make_fake_result().save(tmp_path / "a")
    make_fake_result().save(tmp_path / "b")
    for name in ("summary.json", "series.parquet", "faces.parquet", "window.png", "report.md"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


def test_same_scenario_and_seed_give_identical_files(scenario_file, tmp_path):
    for folder in ("a", "b"):
        ndncc.load(scenario_file).run().save(tmp_path / folder)
    for name in ("summary.json", "series.parquet", "faces.parquet"):
        assert (tmp_path / "a" / name).read_bytes() == (tmp_path / "b" / name).read_bytes(), name


def test_atomic_write_replaces_whole_files(tmp_path):
    target = tmp_path / "f.json"
    output.write_json(target, {"a": 1})
    output.write_json(target, {"a": 2})
    assert json.loads(target.read_text()) == {"a": 2}
    assert os.listdir(tmp_path) == ["f.json"]


def test_a_failed_write_keeps_the_old_file_and_leaves_no_temporary(tmp_path):
    target = tmp_path / "f.txt"
    output.write_text(target, "finished result")
    with pytest.raises(RuntimeError):
        with output.atomic_path(target) as tmp:
            tmp.write_text("half a fi")
            raise RuntimeError("crash mid-write")
    assert target.read_text() == "finished result"
    assert os.listdir(tmp_path) == ["f.txt"]


def test_the_temporary_name_sits_beside_the_target(tmp_path):
    with output.atomic_path(tmp_path / "x.parquet") as tmp:
        assert tmp.parent == tmp_path
        assert tmp.name == f"x.parquet.tmp-{os.getpid()}"
        tmp.write_bytes(b"")


def test_json_refuses_nan_rather_than_writing_invalid_json(tmp_path):
    with pytest.raises(ValueError):
        output.write_json(tmp_path / "x.json", {"v": float("nan")})


@pytest.mark.parametrize(
    "row, problem",
    [
        ({"variant": "v", "flow": "f", "metric": "m", "value": 1.0, "unit": "u"}, "keys"),
        ({"variant": "v", "flow": "f", "metric": "m", "value": "1", "paper": None, "unit": "u"}, "value"),
        ({"variant": "v", "flow": 3, "metric": "m", "value": 1.0, "paper": None, "unit": "u"}, "flow"),
        ({"variant": "v", "flow": "f", "metric": "m", "value": True, "paper": None, "unit": "u"}, "value"),
    ],
)
def test_summary_rows_are_checked_against_the_schema(row, problem, tmp_path):
    with pytest.raises(ValueError, match=problem):
        output.write_summary(tmp_path / "s.json", [row])
    assert not (tmp_path / "s.json").exists()


@pytest.mark.parametrize(
    "row, problem",
    [
        ({"variant": "v", "flow": "f", "metric": "m", "value": 1.0, "paper": None, "unit": 2}, "unit"),
        ({"variant": "v", "flow": "f", "metric": "m", "value": 1.0, "paper": "x", "unit": "u"}, "paper"),
        (["v", "f", "m", 1.0, None, "u"], "not an object"),
    ],
)
def test_every_field_of_a_summary_row_is_checked(row, problem):
    with pytest.raises(ValueError, match=f"summary row 1.*{problem}"):
        output.check_summary_rows(
            [{**dict.fromkeys(output.SUMMARY_FIELDS, "ok"), "value": 1, "paper": None}, row]
        )


def test_summary_json_is_the_json_modules_indented_text():
    # Strings that look like the separators the fast path relies on, escapes, non-ASCII, and
    # numbers whose text the json module writes in a particular way.
    strings = [
        "",
        "c0",
        "R1->R2",
        'a "quote"',
        "back\\slash",
        "},\n    {",
        "line\nbreak",
        "tab\t",
        "é ✓ 流",
        "\x00",
    ]
    numbers = [0.0, -0.0, 1.0, 1e-05, 1e16, 123456789.125, 2.5e-300, -7.0, 3, -12, 10**20, True, False, None]
    rng = random.Random(5)
    for size in (0, 1, 2, 7, 200):
        rows = [
            {
                "variant": rng.choice(strings),
                "flow": rng.choice(strings),
                "metric": rng.choice(strings),
                "value": rng.choice(numbers),
                "paper": rng.choice(numbers),
                "unit": rng.choice(strings),
            }
            for _ in range(size)
        ]
        expected = json.dumps(rows, indent=2, ensure_ascii=False, allow_nan=False)
        assert output.summary_json(rows) == expected, size


def test_read_run_names_the_missing_file(tmp_path):
    with pytest.raises(FileNotFoundError, match="manifest.json"):
        output.read_run(tmp_path)
    with pytest.raises(FileNotFoundError, match="no such folder"):
        output.read_run(tmp_path / "nothing")


def test_read_run_gives_back_what_save_wrote(fake_result, tmp_path):
    rows = fake_result.save(tmp_path / "run")
    run = output.read_run(tmp_path / "run")
    assert run.summary == rows
    assert run.series.equals(fake_result.series())
    assert run.faces.equals(fake_result.faces())


def test_the_engine_hands_its_tables_over_in_the_one_row_order(scenario_file):
    # Per-packet events give many rows at one instant, of several metrics and entities.
    sc = ndncc.load(scenario_file, ["record.events=true", "simulation.duration=2s"])
    raw = sc._core.run()
    for name in ("series", "faces"):
        table = raw[name]
        pairs = set(zip(table["entity"].tolist(), table["metric"].tolist()))
        assert len(table["t"]) > 100 and len(pairs) > 3
        assert table["ordered"] and result.in_long_order(table), name
        frame = result.long_frame(table)
        assert frame.equals(output.sort_long(frame))
    # Rows in time order of two entities are not, and are sorted into it.
    rows = {
        "t": np.array([0.1, 0.1, 0.2, 0.2]),
        "entity": np.array([1, 0, 1, 0], dtype=np.uint32),
        "metric": np.array([0, 0, 0, 0], dtype=np.uint32),
        "value": np.array([1.0, 2.0, 3.0, 4.0]),
        "entities": ["c1", "c0"],
        "metrics": ["window"],
    }
    assert not result.in_long_order(rows)
    frame = result.long_frame(rows)
    assert frame["entity"].to_list() == ["c0", "c0", "c1", "c1"] and frame["value"].to_list() == [1, 3, 2, 4]
