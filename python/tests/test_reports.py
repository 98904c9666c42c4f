"""report.md as people read it: numbers without e-notation, a run's summary as one table per
kind of entity with units, and confidence intervals beside their means in headline tables."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import ndncc
from ndncc import report

ROOT = Path(__file__).resolve().parents[2]


@pytest.mark.parametrize(
    "value, unit, text",
    [
        (0.0, None, "0"),
        (12345.0, "packets", "12,345"),
        (11225088.0, "bytes", "11,225,088"),
        (29934.27, "kbit/s", "29,934"),
        (44.5512, "ms", "44.55"),
        (0.017881, "ratio", "0.01788"),
        (0.5, "ratio", "0.5"),
        (1.23e-5, "s", "0.0000123"),
        (-0.25, None, "-0.25"),
        (1.0, "bool", "yes"),
        (0.0, "bool", "no"),
        (None, "ms", "–"),
        (float("nan"), "ms", "–"),
    ],
)
def test_numbers_read_as_written_by_hand(value, unit, text):
    assert report.fmt(value, unit) == text


def test_a_run_report_has_a_table_per_kind_of_entity_with_units(tmp_path):
    scenario = ROOT / "scenarios" / "ndn-vs-tcp.toml"
    result = ndncc.load(scenario, ['simulation.duration="2s"']).run()
    result.save(tmp_path / "run", figures=False)
    page = (tmp_path / "run" / "report.md").read_text()
    summary = page.split("## Summary", 1)[1].split("## Files", 1)[0]
    headings = re.findall(r"^### (.+)$", summary, re.M)
    assert headings == ["Consumers", "Producers", "TCP senders", "Receivers", "Faces", "Nodes", "The run"]
    assert "| metric | unit | C (pcon) |" in summary and "| metric | unit | tcp (TCP newreno) |" in summary
    # No e-notation anywhere, and each metric once per table with its unit beside it.
    assert not re.search(r"\d[eE][+-]\d", page)
    consumers = summary.split("### Consumers", 1)[1].split("###", 1)[0]
    value = result.summary.filter(
        (result.summary["entity"] == "C") & (result.summary["metric"] == "payload_bytes")
    )
    assert f"| payload bytes (`payload_bytes`) | bytes | {int(value['value'][0]):,} |" in consumers
    # A node's figures sit with the nodes even where an app has the node's name (C).
    assert "cs_hits" not in consumers
    nodes = summary.split("### Nodes", 1)[1].split("###", 1)[0]
    assert "| metric | unit | C | K | P | R1 | R2 | T |" in nodes
    # Ten faces: more than fit in one table, so two tables, every face in one of them.
    faces = summary.split("### Faces", 1)[1].split("### Nodes", 1)[0]
    assert faces.count("| metric | unit |") == 2
    assert all(f" {face} " in faces for face in ("C->R1", "R2->R1", "T->R2"))


def test_a_headline_table_puts_each_interval_beside_its_mean():
    rows = [
        {"variant": "aimd", "flow": "C1", "metric": "throughput_kbps", "value": 943.4, "unit": "kbit/s"},
        {"variant": "aimd", "flow": "C1", "metric": "timeouts", "value": 36.0, "unit": "events"},
        {
            "variant": "aimd,10 seeds",
            "flow": "C1+C2",
            "metric": "throughput_kbps",
            "value": 1605.2,
            "unit": "kbit/s",
        },
        {
            "variant": "aimd,10 seeds",
            "flow": "C1+C2",
            "metric": "throughput_kbps_ci95",
            "value": 42.0,
            "unit": "kbit/s",
        },
    ]
    text = report.headline_table(rows, ["throughput_kbps", "throughput_kbps_ci95", "timeouts"])
    lines = text.splitlines()
    assert lines[0] == "| variant | flow | throughput_kbps [kbit/s] | timeouts [events] |"
    assert lines[2] == "| aimd | C1 | 943.4 | 36 |"
    assert lines[3] == "| aimd,10 seeds | C1+C2 | 1,605 ± 42 |  |"
