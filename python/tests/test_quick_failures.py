"""Mistakes that are told at once rather than after the work: a misspelt sweep metric, a scenario
with no apps, and Mini-NDN settings a conversion leaves out."""

from __future__ import annotations

import re
import warnings
from pathlib import Path

import pytest

import ndncc
from ndncc import cli, metrics, sweeping
from ndncc.errors import BadInput, NdnccWarning

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "two-node.toml"


def test_the_summary_metrics_are_those_docs_metrics_md_lists():
    page = (ROOT / "docs" / "metrics.md").read_text()
    documented = set()
    for table in page.split("| metric | kind | unit | interval |")[1:]:
        for row in table.split("\n\n", 1)[0].splitlines()[2:]:
            documented.add(row.strip("|").split("|")[0].strip().strip("`"))
    assert documented == set(metrics.SUMMARY_METRICS)


def test_every_summary_metric_a_run_reports_is_in_the_list():
    result = ndncc.load(ROOT / "docs" / "examples" / "trace.toml", ['simulation.duration="1s"']).run(
        pcap=False
    )
    assert set(result.summary["metric"]) <= metrics.SUMMARY_METRICS


def test_a_misspelt_sweep_metric_stops_the_sweep_before_any_run(capsys, tmp_path, monkeypatch):
    def no_runs(*args, **kwargs):
        raise AssertionError("a run started")

    monkeypatch.setattr(sweeping, "_execute", no_runs)
    code = cli.main(
        ["sweep", str(EXAMPLE), "--metric", "thruput", "--seeds", "1", "--out", str(tmp_path / "s")]
    )
    err = capsys.readouterr().err
    assert code == 2
    assert "error: metric 'thruput': no run reports a summary metric of that name" in err
    assert "did you mean 'throughput_kbps'?" in err
    assert not (tmp_path / "s").exists()
    with pytest.raises(BadInput, match="metric 'jain': .*did you mean 'jain_index'"):
        ndncc.sweep(EXAMPLE, metrics=["jain"], seeds=1, out=tmp_path / "api", progress=False)


def test_a_scenario_without_apps_warns_that_nothing_sends(tmp_path):
    path = tmp_path / "bare.toml"
    path.write_text(
        '[simulation]\nname = "bare"\nduration = "1s"\n\n[nodes]\nA = {}\nB = {}\n\n'
        '[links.A-B]\nbandwidth = "1Mbps"\ndelay = "1ms"\n'
    )
    with pytest.warns(NdnccWarning, match="bare: the scenario has no apps, so nothing sends"):
        result = ndncc.load(path).run()
    assert result.stats.packet_hops == 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        ndncc.load(EXAMPLE, ['simulation.duration="1s"']).run()  # apps: no warning


def test_converting_a_mini_ndn_topology_notes_what_it_leaves_out(capsys, tmp_path):
    conf = tmp_path / "net.conf"
    conf.write_text(
        "[nodes]\na: _ cache=100 radius=0.3 angle=1.0\nb: _ network=/ndn router=/%C1.Router/cs/b\n"
        "[switches]\n[links]\na:b delay=10ms bw=5\n"
    )
    code = cli.main(["topo", "convert", str(conf), "--out", str(tmp_path / "net.toml")])
    err = capsys.readouterr().err
    assert code == 0, err
    notes = [line for line in err.splitlines() if line.startswith("note: ")]
    assert (
        notes[0] == f"note: {conf}: line 3: node b: network=/ndn, router=/%C1.Router/cs/b: left out "
        "(ndncc computes its routes, without NLSR)"
    )
    assert re.search(r"no apps yet; add \[apps\.NAME\] tables", notes[-1]) and len(notes) == 2
    toml = (tmp_path / "net.toml").read_text()
    assert "#   line 3: node b: network=/ndn, router=/%C1.Router/cs/b\n" in toml
    assert "radius" not in toml  # a drawing's positions are no loss
    ndncc.load(tmp_path / "net.toml")  # the header is a comment: the file still loads
