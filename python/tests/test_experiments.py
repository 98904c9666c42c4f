"""End-to-end: every reproduction on a shortened run (``--quick``), through the registry, with the
behaviour each one must show even when short. The full-length bars are checked by the Rust
engine tests (e.g. ``tests/e1_mircc.rs``) and reported by ``make run``."""

from __future__ import annotations

import json
import re
from pathlib import Path
from unittest import mock

import pytest

from ndncc import experiments, figures, plots, scoreboard, seedclaims, vacuity
from ndncc.experiments.claims import CLAIMS, Check, Notes, recheck

#: The experiments whose notes are held to checks that can fail (E2's and E5's to follow).
SOUND_NOTES = ("e1", "e2", "e3", "e4", "e5")


#: The figures each reproduction drew, by experiment and file name.
DRAWN: dict[str, dict[str, object]] = {}


def _run(name: str, tmp_path: Path, run_figures: bool = False) -> tuple[list[dict], Path]:
    drawn = DRAWN.setdefault(name, {})
    write = plots.write_figure

    def keep(path, fig):
        drawn[str(Path(path).relative_to(tmp_path / name))] = fig
        return write(path, fig)

    with mock.patch.object(plots, "write_figure", keep):
        rows = experiments.run(experiments.get(name), tmp_path, quick=True, run_figures=run_figures)
    return rows, tmp_path / name


def _value(rows: list[dict], variant: str, flow: str, metric: str) -> float:
    found = [r["value"] for r in rows if (r["variant"], r["flow"], r["metric"]) == (variant, flow, metric)]
    assert len(found) == 1, (variant, flow, metric, found)
    return found[0]


def _common_outputs(folder: Path, rows: list[dict]) -> None:
    assert json.loads((folder / "summary.json").read_text()) == rows
    # Every report sentence is true for the (quick) run that wrote it.
    assert _claims_agree_with_the_table(folder) >= 5
    report = (folder / "report.md").read_text()
    assert "## Ours vs seed" in report and "## Headline figures" in report
    assert (folder / "notes.md").read_text().strip() in report
    assert list(folder.glob("*.png"))
    _every_figure_keeps_the_house_rules(folder.name)
    _every_registered_claim_is_judged_and_shown(folder, rows)
    if folder.name in SOUND_NOTES:
        _every_notes_claim_can_fail(folder, rows)


def _every_figure_keeps_the_house_rules(name: str) -> None:
    """Axes labelled with units, a legend wherever lines are told apart (figures.problems), and
    legends that name each consumer's controller or the flow, not a bare entity name."""
    drawn = DRAWN[name]
    assert any("/" not in f for f in drawn), "the reproduction's own figures"
    for file, fig in drawn.items():
        assert figures.problems(fig) == [], file
        legends = [*fig.legends, *(ax.get_legend() for ax in fig.axes if ax.get_legend())]
        for legend in legends:
            for text in legend.get_texts():
                assert not re.fullmatch(r"[A-Z][A-Za-z]?\d*", text.get_text()), (file, text.get_text())


def _every_registered_claim_is_judged_and_shown(folder: Path, rows: list[dict]) -> None:
    """Each claim of the experiment's registry is in its scoreboard.json and on its page, passing
    or failing, and none of the registry's tests can pass whatever the rows."""
    registry = seedclaims.load(folder.name)
    board = json.loads((folder / scoreboard.SCOREBOARD).read_text())
    assert [c["id"] for c in board["claims"]] == [c.id for c in registry.claims]
    assert all(c["verdict"] in seedclaims.VERDICTS for c in board["claims"])
    report = (folder / "report.md").read_text()
    # The claims table comes first on the page.
    assert report.index("## The seed's claims") < report.index("## Ours vs seed")
    for c in board["claims"]:
        assert f"| {c['id']} |" in report and f"- **{c['id']}**:" in report
    assert vacuity.vacuous_registry(registry, rows) == []


def _every_notes_claim_can_fail(folder: Path, rows: list[dict]) -> None:
    claims = json.loads((folder / CLAIMS).read_text())
    overrides = seedclaims.load(folder.name).ranges
    assert vacuity.vacuous_notes_claims(claims, rows, overrides) == []


def test_e1_quick_loss_grows_with_the_tick_and_smoothing_cuts_it(tmp_path):
    rows, folder = _run("e1", tmp_path)
    _common_outputs(folder, rows)
    # By default the runs' own figures are left to `ndncc plot`; the report says so.
    run = folder / "tick=750ms,original"
    assert not list(run.glob("*.png")) and "ndncc plot" in (run / "report.md").read_text()
    original = [_value(rows, f"tick={ms}ms,original", "C1", "loss_rate") for ms in (100, 250, 500, 750)]
    assert original == sorted(original), original
    for ms in (500, 750):
        assert _value(rows, f"tick={ms}ms,smoothing", "C1", "loss_rate") <= 0.5 * _value(
            rows, f"tick={ms}ms,original", "C1", "loss_rate"
        )
    assert _value(rows, "tick=250ms,original", "C2", "loss_rate") is not None
    assert [
        r["paper"] for r in rows if r["variant"] == "tick=750ms,original" and r["metric"] == "loss_rate"
    ] == [
        0.704,
        0.712,
    ]


def test_e3_quick_downloads_finish_and_holes_as_signals_cost_throughput(tmp_path):
    rows, folder = _run("e3", tmp_path, run_figures=True)
    _common_outputs(folder, rows)
    for variant in ("aimd", "reno-hole", "reno-hole-signal-only"):
        for flow in ("C1", "C2"):
            assert _value(rows, variant, flow, "completed") == 1.0
            assert 0.0 < _value(rows, variant, flow, "loss_rate") < 0.2
    mean = lambda v: (_value(rows, v, "C1", "throughput_kbps") + _value(rows, v, "C2", "throughput_kbps")) / 2  # noqa: E731
    assert mean("reno-hole-signal-only") < mean("reno-hole")
    # Asked for the runs' figures, a variant has them; seed replicas feed the statistics only:
    # their folders have the data and report, no figures.
    assert list((folder / "aimd").glob("*.png"))
    replica = folder / "aimd,seed=2"
    assert (replica / "report.md").exists() and not list(replica.glob("*.png"))


def test_e4_quick_consumer_window_stalls_and_ndnsim_28_overshoots_where_27_does_not(tmp_path):
    rows, folder = _run("e4", tmp_path)
    _common_outputs(folder, rows)
    assert _value(rows, "consumer-window", "C", "timeouts") >= 100
    for variant in ("ndnsim-aimd", "ndnsim-cubic", "ndnsim-aimd-2", "ndnsim-cubic-2"):
        assert _value(rows, variant, "C", "marks") > 0
    # NFD 0.7's delayed first mark lets slow start overflow the queue; NFD 0.6's does not as far.
    for law in ("aimd", "cubic"):
        assert _value(rows, f"ndnsim-{law}", "C", "timeouts") > _value(
            rows, f"ndnsim-2.7-{law}", "C", "timeouts"
        )
        assert _value(rows, f"ndnsim-{law}", "C", "max_window") > _value(
            rows, f"ndnsim-2.7-{law}", "C", "max_window"
        )
    assert _value(rows, "pcon-aimd", "C", "timeouts_after_15s") == 0.0
    # The seed's "no timeouts" is its AIMD claim only.
    assert [r for r in rows if r["variant"] == "ndnsim-cubic" and r["metric"] == "timeouts"][0][
        "paper"
    ] is None


def _claims_agree_with_the_table(folder: Path) -> int:
    summary = json.loads((folder / "summary.json").read_text())
    claims = json.loads((folder / CLAIMS).read_text())
    assert claims, "the notes make no checked claim"
    assert recheck(claims, summary) == []
    notes = (folder / "notes.md").read_text()
    assert all(c["text"] in notes for c in claims)
    return len(claims)


def test_e5_quick_pcon_follows_capacity_in_diff_bw_and_table1_is_compared(tmp_path):
    rows, folder = _run("e5", tmp_path)
    _common_outputs(folder, rows)
    for name in ("pcon", "pi", "cf"):
        shares = [
            _value(rows, f"multipath-diff-bw-{name}", f, "share") for f in ("R2->P1", "R2->P2", "R2->P3")
        ]
        assert abs(sum(shares) - 1.0) < 1e-9, (name, shares)
    # PCON's marks move the split towards the 22.5 / 6 / 1.5 Mbit/s capacities.
    assert _value(rows, "multipath-diff-bw-pcon", "R2->P1", "share") > _value(
        rows, "multipath-diff-bw-pi", "R2->P1", "share"
    )
    paper = {(r["variant"], r["flow"], r["metric"]): r["paper"] for r in rows if r["paper"] is not None}
    assert paper[("pcon", "C5", "rate_mbps")] == 20.52 and paper[("icp", "all", "mean_rtt_ms")] == 78.08
    for variant in ("pcon", "icp"):
        assert _value(rows, variant, "all", "rate_mbps") > 0


def test_e2_quick_srmcc_shares_with_tcp_and_aggregates_feedback(tmp_path):
    rows, folder = _run("e2", tmp_path)
    _common_outputs(folder, rows)
    for s in ("s1", "s2", "s3", "s4"):
        assert 0.0 < _value(rows, f"{s}-srmcc", "multicast", "throughput_kbps")
        assert _value(rows, f"{s}-srmcc", "multicast", "loss_rate") < 0.05
    assert _value(rows, "s1-srmcc", "source", "feedback_saved") > 0.5
    assert _value(rows, "groups-4", "multicast", "jain_index") > 0.9


@pytest.mark.parametrize("name", ["e1", "e2", "e3", "e4", "e5"])
def test_every_report_sentence_is_true_for_the_full_run_that_wrote_it(name, tmp_path):
    rows = experiments.run(experiments.get(name), tmp_path, quick=False)
    assert _claims_agree_with_the_table(tmp_path / name) >= 5
    _every_registered_claim_is_judged_and_shown(tmp_path / name, rows)
    if name in SOUND_NOTES:
        _every_notes_claim_can_fail(tmp_path / name, rows)
    # On the full run every registered row exists: a claim is never untestable for want of rows.
    for c in json.loads((tmp_path / name / scoreboard.SCOREBOARD).read_text())["claims"]:
        assert c["untestable"] or not (c["reason"] or "").count("rows missing"), c["id"]


def test_a_claim_whose_numbers_changed_is_caught():
    rows = [
        {"variant": "a", "flow": "C", "metric": "x", "value": 2.0, "paper": None, "unit": ""},
        {"variant": "b", "flow": "C", "metric": "x", "value": 1.0, "paper": None, "unit": ""},
    ]
    nt = Notes(rows)
    nt.say(
        f"a ({nt.n('a', 'x')}) is above b",
        Check(("a", "C", "x"), ">", ("b", "C", "x")),
        otherwise=f"a ({nt.n('a', 'x')}) is not above b",
    )
    assert nt.lines == ["a (2) is above b"] and recheck(nt.claims, rows) == []
    rows[0]["value"] = 0.5
    assert len(recheck(nt.claims, rows)) == 2  # the comparison and the quoted number
    assert Notes(rows).holds(Check(("a", "C", "missing"), ">", 0.0)) is None


@pytest.mark.parametrize("name", ["e1", "e2", "e3", "e4", "e5"])
def test_every_reproduction_is_registered_with_headline_metrics(name):
    exp = experiments.get(name)
    assert exp.headline and exp.headline_flows
