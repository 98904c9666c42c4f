"""Links that change, seen from Python: per-interval capacity and throughput
(:func:`ndncc.metrics.link_capacity`), the capacity figure, the shipped failover and cellular
scenarios, and bad events and traces refused by ``ndncc validate`` with file, line and key."""

from __future__ import annotations

from pathlib import Path

import polars as pl
import pytest

import ndncc
from ndncc import cli, figures, metrics, plots, shipped

ROOT = Path(__file__).resolve().parents[2]


def faces(rows: list[tuple[float, str, str, float]]) -> pl.DataFrame:
    t, e, m, v = zip(*rows)
    return pl.DataFrame({"t": list(t), "entity": list(e), "metric": list(m), "value": list(v)})


def test_link_capacity_sets_what_a_face_sent_beside_what_its_link_offered():
    table = faces(
        [
            (0.0, "A->B", "capacity", 0.0),
            (0.5, "A->B", "capacity", 8e6),
            (1.0, "A->B", "capacity", 0.0),
            (0.0, "A->B", "bytes_sent", 0.0),
            (0.5, "A->B", "bytes_sent", 250_000.0),
            (1.0, "A->B", "bytes_sent", 250_000.0),
            # A face whose link is constant records no capacity: it is left out.
            (0.5, "B->A", "bytes_sent", 1_000.0),
        ]
    )
    out = metrics.link_capacity(table)
    assert out["entity"].unique().to_list() == ["A->B"]
    cap = out.filter(pl.col("metric") == "capacity")
    sent = out.filter(pl.col("metric") == "throughput")
    assert cap["t"].to_list() == [0.5, 1.0]
    assert cap["value"].to_list() == [8.0, 0.0]
    # 250,000 B in 0.5 s: 4 Mbit/s, then nothing while the capacity was 0.
    assert sent["value"].to_list() == [4.0, 0.0]
    assert metrics.link_capacity(table.filter(pl.col("metric") != "capacity")).is_empty()


@pytest.fixture(scope="module")
def failover():
    return ndncc.load(ROOT / "scenarios" / "failover.toml").run()


def summary_value(result, entity: str, metric: str) -> float:
    s = result.summary.filter((pl.col("entity") == entity) & (pl.col("metric") == metric))
    return float(s["value"][0])


def test_the_failover_scenario_moves_to_the_long_path_and_back(failover):
    sent = failover.faces().filter(pl.col("metric") == "bytes_sent")

    def at(face: str, t: float) -> float:
        rows = sent.filter((pl.col("entity") == face) & ((pl.col("t") - t).abs() < 1e-9))
        return float(rows["value"][0])

    # Nothing takes the long path before the failure at 2 s, or before routing converged after it.
    assert at("R2->C", 2.5) == 0.0
    # From 4 s to 8 s TCP's segments and the Data come back over R2, filling its 10 Mbit/s.
    assert at("R2->C", 8.0) - at("R2->C", 4.0) > 0.95 * 10e6 / 8 * 4
    # R1 had no route for the consumer's Interests until routing converged: NACKs, not silence.
    assert summary_value(failover, "R1", "no_route") > 0
    assert summary_value(failover, "consumer", "nacks") > 0
    # R1-P carried nothing while down, and again after it came back.
    assert at("R1->P", 2.0) == at("R1->P", 8.0)
    assert at("R1->P", 20.0) > at("R1->P", 9.0)
    assert at("R2->C", 20.0) == at("R2->C", 9.0)
    assert summary_value(failover, "R1->P", "drops_link_down") > 0
    assert summary_value(failover, "run", "conservation_ok") == 1.0


def test_the_capacity_figure_shows_each_changing_face_and_keeps_the_house_rules(failover):
    fig = failover.plot("capacity")
    # Both directions of R1-P are the links that change.
    titles = [ax.get_title() for ax in fig.axes]
    assert titles == ["Face P->R1", "Face R1->P"]
    assert figures.problems(fig) == []
    for ax in fig.axes:
        assert ax.get_ylabel() == "rate [Mbit/s]"
        assert [t.get_text() for t in ax.get_legend().get_texts()] == ["capacity", "sent"]
    assert "capacity" in {s.stem for s in plots.FIGURES}
    # As a panel among others, capacity and throughput are lines of their own.
    panels = failover.plot(["window", "capacity"])
    assert figures.problems(panels) == []
    names = [t.get_text() for t in panels.axes[1].get_legend().get_texts()]
    assert names == ["P->R1 capacity", "P->R1 sent", "R1->P capacity", "R1->P sent"]


def test_the_trace_cellular_scenario_reads_its_traces_next_to_it():
    result = ndncc.load(ROOT / "scenarios" / "trace-cellular.toml", ["simulation.duration=10s"]).run()
    caps = result.faces().filter((pl.col("entity") == "R->C") & (pl.col("metric") == "capacity"))
    # The downlink trace steps between 2 and 30 Mbit/s every 250 ms: 100 ms samples see both.
    assert caps["value"].max() > 20e6
    assert 0 < caps.filter(pl.col("t") > 0)["value"].min() < 5e6
    # Utilisation is of what the trace offered, so it cannot pass 1; the consumers use a good
    # part of it (a third or more: the capacity drops fifteenfold in a step).
    assert 0.3 < summary_value(result, "R->C", "utilisation") <= 1.0
    assert summary_value(result, "pcon", "data_received") > 0
    assert summary_value(result, "aimd", "data_received") > 0


def test_a_copied_cellular_scenario_takes_its_traces_along(tmp_path):
    written = shipped.copy("trace-cellular", tmp_path)
    assert sorted(p.relative_to(tmp_path).as_posix() for p in written) == [
        "trace-cellular.toml",
        "traces/cellular-down.trace",
        "traces/cellular-up.trace",
    ]
    scenario = ndncc.load(tmp_path / "trace-cellular.toml")
    assert scenario.name == "trace-cellular"


EVENTS_BASE = """\
[simulation]
duration = "10s"

[nodes]
C = {}
P = {}

[links.C-P]
bandwidth = "10Mbps"
delay = "5ms"

[apps.prod]
type = "producer"
node = "P"
prefix = "/p"

[apps.cons]
type = "consumer"
node = "C"
prefix = "/p"
window = { type = "aimd" }

[[events]]
at = "2s"
link = "C-P"
action = "down"
"""


@pytest.mark.parametrize(
    "extra, line, key",
    [
        ('\n[[events]]\nat = "3s"\nlink = "C-P"\naction = "down"\n', 31, "events[1].action"),
        ('\n[[events]]\nat = "30s"\nlink = "C-P"\naction = "up"\n', 29, "events[1].at"),
        ('\n[[events]]\nat = "3s"\nlink = "C-Q"\naction = "up"\n', 30, "events[1].link"),
        ('\n[[events]]\nat = "3s"\nnode = "C"\naction = "set"\n', 31, "events[1].action"),
    ],
)
def test_a_bad_event_exits_2_naming_file_line_and_key(tmp_path, capsys, extra, line, key):
    path = tmp_path / "bad.toml"
    path.write_text(EVENTS_BASE + extra)
    code = cli.main(["validate", str(path)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert "Traceback" not in err
    assert f"{path}:{line}: {key}:" in err, err


def test_a_bad_trace_exits_2_naming_the_link_key_and_the_trace_line(tmp_path, capsys):
    (tmp_path / "cell.trace").write_text("5\n4\n")
    path = tmp_path / "bad.toml"
    path.write_text(EVENTS_BASE.replace('bandwidth = "10Mbps"', 'bandwidth = { trace = "cell.trace" }'))
    code = cli.main(["validate", str(path)])
    err = capsys.readouterr().err
    assert code == 2, err
    assert f"{path}:9: links.C-P.bandwidth: {tmp_path / 'cell.trace'}:2: 4 ms comes before" in err, err
