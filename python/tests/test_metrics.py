"""docs/metrics.md against the code, and the derived metrics on runs whose answer is known.

The page cannot fall behind: every summary row, series and face series the shipped scenarios
emit (with every built-in controller) must be documented with the unit the code gives it; every
metric-name literal in the engine's emitting code must be documented; and every documented
metric must appear by name in the file its row points to.
"""

from __future__ import annotations

import re
from functools import lru_cache
from pathlib import Path

import numpy as np
import polars as pl
import pytest

import ndncc
from ndncc import metrics

ROOT = Path(__file__).resolve().parents[2]
DOC = (ROOT / "docs" / "metrics.md").read_text()
CORE = ROOT / "crates" / "ndncc-core" / "src"

#: The page's parts: the heading that starts each, and the table kind its tables belong to.
PARTS = {
    "## Summary metrics": "summary",
    "## Time series": "series",
    "## Face series": "faces",
    "## Derived in Python": "derived",
    "## Figures": "figures",
}


def cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def backticked(cell: str) -> list[str]:
    return re.findall(r"`([^`]+)`", cell)


@lru_cache(maxsize=None)
def documented() -> list[dict]:
    """Every table row of the page that documents a name: its part, name, kinds, unit, code."""
    rows, part, header = [], None, None
    for line in DOC.splitlines():
        if line.startswith("## "):
            part = next((p for h, p in PARTS.items() if line.startswith(h)), None)
            header = None
            continue
        if not line.startswith("|") or part is None:
            header = None if not line.startswith("|") else header
            continue
        if header is None:
            header = cells(line)
            continue
        row = dict(zip(header, cells(line)))
        first = row.get(header[0], "")
        if set(first) <= {"-", " "} or not backticked(first):
            continue
        rows.append(
            {
                "part": part,
                "name": backticked(first)[0],
                "kinds": backticked(row.get("kind", "")),
                "unit": row.get("unit", ""),
                "code": backticked(row.get("code", "")),
            }
        )
    return rows


def names(part: str) -> set[str]:
    return {r["name"] for r in documented() if r["part"] == part}


def test_the_page_has_the_tables_it_should():
    counts = {p: len([r for r in documented() if r["part"] == p]) for p in PARTS.values()}
    assert counts["summary"] > 80 and counts["series"] > 40 and counts["faces"] > 20, counts
    assert counts["derived"] >= 6


@pytest.mark.parametrize(
    "row", [r for r in documented() if r["code"]], ids=lambda r: f"{r['part']}:{r['name']}"
)
def test_every_documented_metric_is_named_in_the_file_its_row_points_to(row):
    texts = []
    for path in row["code"]:
        file = ROOT / path
        assert file.is_file(), f"docs/metrics.md: `{row['name']}` points to {path}, which does not exist"
        texts.append(file.read_text())
    literal = f'"{row["name"]}"' if row["part"] != "derived" else f"def {row['name']}("
    assert any(literal in t for t in texts), f"docs/metrics.md: {literal} is not in {', '.join(row['code'])}"


def test_every_row_names_its_code_and_summary_rows_their_kind_and_unit():
    for r in documented():
        if r["part"] in ("summary", "series", "faces", "derived"):
            assert r["code"], f"docs/metrics.md: `{r['name']}` has no code location"
        if r["part"] == "summary":
            assert r["kinds"] and r["unit"], f"docs/metrics.md: `{r['name']}` needs a kind and a unit"


# --- the code's metric names, read from the engine's source ---------------------------------------

#: How the engine names what it records: recorder metric ids, (name, value) pairs a component
#: samples, summary rows, and the tables of percentile rows.
EMITTERS = (
    r'\bmetric\("([a-z_0-9]+)"\)',
    r'\bm\("([a-z_0-9]+)"\)',
    r'out\.push\(\("([a-z_0-9]+)"',
    r'\brow\("([a-z_0-9]+)"',
    r'SummaryRow::new\([^,]+,\s*"[a-z-]+",\s*"([a-z_0-9]+)"',
    r'\("([a-z_0-9]+)", (?:c\.[a-z_]+|None|Some\(0\.\d+\)|0\.\d+)\)',
)


def engine_names() -> dict[str, set[str]]:
    """Metric-name literals of the engine's emitting code (tests left out), by file."""
    found: dict[str, set[str]] = {}
    for file in sorted(CORE.rglob("*.rs")):
        text = file.read_text().split("#[cfg(test)]")[0]
        hits = {m for pattern in EMITTERS for m in re.findall(pattern, text)}
        if hits:
            found[str(file.relative_to(ROOT))] = hits
    return found


def test_the_source_scan_finds_the_metrics_it_should():
    every = set().union(*engine_names().values())
    assert {
        "throughput_kbps",
        "rtt",
        "queue_packets",
        "sojourn_p99_ms",
        "rtt_p95_ms",
        "w_max",
        "fw_share",
    } <= every


def test_every_metric_name_in_the_engine_is_documented():
    documented_names = names("summary") | names("series") | names("faces")
    missing = {
        f"{name} ({file})"
        for file, found in engine_names().items()
        for name in found
        if name not in documented_names
    }
    assert not missing, f"not in docs/metrics.md: {', '.join(sorted(missing))}"


# --- what runs emit ------------------------------------------------------------------------------

DUMBBELL = ROOT / "scenarios" / "dumbbell.toml"

#: Runs beyond the shipped scenarios, for the built-in controllers' own series.
EXTRA_RUNS = [
    (DUMBBELL, ['apps.C1.window={type="cubic"}', 'apps.C2.window={type="bic"}']),
    (DUMBBELL, ['apps.C1.window={type="raaqm"}']),
]


def emitted(path: Path, overrides: list[str]) -> tuple[set, set, set]:
    result = ndncc.load(path, [*overrides, "record.events=true", 'record.faces="all"']).run()
    s = result.summary
    summary = set(zip(s["kind"], s["metric"], s["unit"]))
    return summary, set(result.series()["metric"].unique()), set(result.faces()["metric"].unique())


@pytest.fixture(scope="module")
def every_run() -> tuple[set, set, set]:
    runs = [(p, []) for p in sorted((ROOT / "scenarios").glob("*.toml"))] + EXTRA_RUNS
    summary, series, faces = set(), set(), set()
    for path, overrides in runs:
        a, b, c = emitted(path, overrides)
        summary |= a
        series |= b
        faces |= c
    return summary, series, faces


def test_every_summary_row_a_run_emits_is_documented_with_its_kind_and_unit(every_run):
    rows = {(k, r["name"]): r["unit"] for r in documented() if r["part"] == "summary" for k in r["kinds"]}
    problems = []
    for kind, metric, unit in sorted(every_run[0]):
        if (kind, metric) not in rows:
            problems.append(f"{kind} {metric}: not documented")
        elif rows[(kind, metric)] != unit:
            problems.append(f"{kind} {metric}: documented in {rows[(kind, metric)]}, emitted in {unit}")
    assert not problems, "docs/metrics.md: " + "; ".join(problems)


def test_every_series_a_run_emits_is_documented(every_run):
    _, series, faces = every_run
    assert not series - names("series"), f"series not in docs/metrics.md: {sorted(series - names('series'))}"
    assert not faces - names("faces"), f"face series not in docs/metrics.md: {sorted(faces - names('faces'))}"


def test_the_runs_cover_most_of_the_page(every_run):
    """The coverage runs are a real check: they emit most of what the page lists. Metrics only
    an emulation emits (code under emulate/) are left out: test_emulate.py checks those."""
    summary_names = {m for _, m, _ in every_run[0]}
    simulated = {
        r["name"]
        for r in documented()
        if r["part"] == "summary" and not all("/emulate/" in c for c in r["code"])
    }
    assert len(summary_names & simulated) / len(simulated) > 0.75
    assert len(every_run[1] & names("series")) / len(names("series")) > 0.6


def test_every_derived_function_is_there_and_every_figure_label_is_a_documented_metric():
    for name in names("derived"):
        assert callable(getattr(metrics, name)), name
    assert set(metrics.METRIC_WORDS) <= names("summary") | names("faces")


# --- derived metrics with known answers ---------------------------------------------------------


def test_jain_is_one_for_equal_values_and_one_over_n_when_one_has_everything():
    assert metrics.jain_index([3.0, 3.0, 3.0, 3.0]) == 1.0
    assert metrics.jain_index([8.0, 0.0, 0.0, 0.0]) == 0.25
    assert metrics.jain_index([1.0, 3.0]) == pytest.approx(0.8)
    assert metrics.jain_index([5.0]) is None
    assert metrics.jain_index([0.0, 0.0]) is None


def test_the_cdf_gives_the_fraction_at_or_below_each_value_per_flow():
    frame = pl.DataFrame({"entity": ["a"] * 4 + ["b"], "value": [3.0, 1.0, 3.0, 2.0, 7.0]})
    c = metrics.cdf(frame)
    assert c.filter(pl.col("entity") == "a").select("value", "p").rows() == [
        (1.0, 0.25),
        (2.0, 0.5),
        (3.0, 1.0),
    ]
    assert c.filter(pl.col("entity") == "b").select("value", "p").rows() == [(7.0, 1.0)]


def shared(
    c1: str,
    c2: str,
    c2_start: str = "0s",
    duration: str = "30s",
    loss: str = "0%",
    queue: str = '{ type = "droptail", packets = 100 }',
) -> str:
    """Two consumers behind a 10 Mbps bottleneck R1—R2 (default: a 100-packet queue)."""
    return f"""
[simulation]
duration = "{duration}"
seed = 2

[defaults.link]
bandwidth = "100Mbps"
delay = "5ms"
queue = {{ type = "droptail", packets = 100 }}

[nodes]
C1 = {{}}
C2 = {{}}
R1 = {{}}
R2 = {{}}
P = {{}}

[links.C1-R1]
[links.C2-R1]
[links.R1-R2]
bandwidth = "10Mbps"
loss = {{ type = "bernoulli", p = "{loss}" }}
queue = {queue}
[links.R2-P]

[apps.P]
type = "producer"
node = "P"
prefix = "/p"
payload = "1000B"

[apps.C1]
type = "consumer"
node = "C1"
prefix = "/p/1"
{c1}

[apps.C2]
type = "consumer"
node = "C2"
prefix = "/p/2"
start = "{c2_start}"
{c2}
"""


def value(result, entity: str, metric: str):
    s = result.summary.filter((pl.col("entity") == entity) & (pl.col("metric") == metric))
    return float(s["value"][0]) if s.height else None


def test_the_rtt_percentiles_are_within_a_bucket_of_the_exact_nearest_rank_ones():
    aimd = 'window = { type = "aimd" }'
    result = ndncc.load_str(shared(aimd, aimd, loss="0.5%"), overrides=["record.events=true"]).run()
    for flow in ("C1", "C2"):
        rtts = np.sort(result.series("rtt", flow)["value"].to_numpy() * 1e3)
        assert len(rtts) > 1000
        for q, metric in ((0.5, "rtt_p50_ms"), (0.95, "rtt_p95_ms"), (0.99, "rtt_p99_ms")):
            exact = rtts[int(np.ceil(q * len(rtts))) - 1]
            assert value(result, flow, metric) == pytest.approx(exact, rel=1 / 128)
        assert value(result, flow, "rtt_p50_ms") < value(result, flow, "rtt_p99_ms")


def test_flow_completion_times_are_the_download_times_and_null_when_unfinished():
    c1 = 'segments = 500\nwindow = { type = "fixed", window = 20 }'
    c2 = 'segments = 100000000\nwindow = { type = "fixed", window = 20 }'
    result = ndncc.load_str(shared(c1, c2, duration="10s")).run()
    fct = {
        r["entity"]: (r["completed"], r["fct_s"])
        for r in metrics.flow_completion_times(result.summary).to_dicts()
    }
    assert fct["C1"] == (True, value(result, "C1", "download_time_s"))
    # 500 Data of 1,000 B in windows of 20, sharing 10 Mbps with C2: at least 0.8 s; the
    # Interests that fetch them take 20 ms round trips.
    assert 0.8 < fct["C1"][1] < 1.5
    assert fct["C2"] == (False, None)


def tput_frame(rates: dict[str, list[float]], width: float = 1.0) -> pl.DataFrame:
    return pl.concat(
        pl.DataFrame(
            {
                "t": [width * (i + 1) for i in range(len(v))],
                "entity": e,
                "metric": "throughput_kbps",
                "value": v,
            }
        )
        for e, v in rates.items()
    )


def test_convergence_is_the_start_of_the_first_run_of_fair_bins_after_a_join():
    # a alone at 100 until 10 s; b joins at 10 s; shares 90/10, 60/40, then 52/48 from 18 s.
    a = [100.0] * 10 + [90.0] * 4 + [60.0] * 4 + [52.0] * 10
    b = [0.0] * 10 + [10.0] * 4 + [40.0] * 4 + [48.0] * 10
    spans = {"a": metrics.FlowSpan(0.0), "b": metrics.FlowSpan(10.0)}
    out = metrics.convergence_times(tput_frame({"a": a, "b": b}), spans)
    assert out.rows() == [("b", 10.0, 8.0)]
    # ±50% already holds from 14 s (60 vs 50); a hold of 20 s cannot fit before the end.
    assert (
        metrics.convergence_times(tput_frame({"a": a, "b": b}), spans, tolerance=0.5)["convergence_s"][0]
        == 4.0
    )
    assert (
        metrics.convergence_times(tput_frame({"a": a, "b": b}), spans, hold_s=20.0)["convergence_s"][0]
        is None
    )


def test_a_fair_run_broken_before_the_hold_ends_does_not_count():
    a = [100.0] * 5 + [50.0] * 2 + [80.0] + [50.0] * 6
    b = [0.0] * 5 + [50.0] * 2 + [20.0] + [50.0] * 6
    spans = {"a": metrics.FlowSpan(0.0), "b": metrics.FlowSpan(5.0)}
    out = metrics.convergence_times(tput_frame({"a": a, "b": b}), spans, hold_s=3.0)
    assert out["convergence_s"].to_list() == [3.0]  # fair from 5 s for 2 bins, broken at 7 s, fair from 8 s


def test_convergence_settings_are_checked_by_name():
    frame = tput_frame({"a": [1.0]})
    with pytest.raises(ndncc.errors.BadInput, match="tolerance"):
        metrics.convergence_times(frame, {"a": metrics.FlowSpan(0.0)}, tolerance=1.5)
    with pytest.raises(ndncc.errors.BadInput, match="hold_s"):
        metrics.convergence_times(frame, {"a": metrics.FlowSpan(0.0)}, hold_s=-1.0)


def test_two_pcon_flows_converge_soon_after_the_second_joins_and_a_window_of_one_never_does():
    # PCON windows on a CoDel-marking bottleneck: C2 joins at 10 s and the two settle around
    # equal shares within a bin, but keep swinging by some 20%: within ±25% they converge,
    # within ±10% never for five bins running.
    pcon = 'window = { type = "pcon" }'
    text = shared(pcon, pcon, c2_start="10s", duration="60s", queue='{ type = "codel-mark" }')
    result = ndncc.load_str(text).run()
    out = metrics.run_convergence_times(result, tolerance=0.25)
    assert out["flow"].to_list() == ["C2"] and out["join_s"].to_list() == [10.0]
    assert 0.0 < out["convergence_s"][0] <= 2.0
    assert metrics.run_convergence_times(result, tolerance=0.1)["convergence_s"].to_list() == [None]
    starved = ndncc.load_str(
        shared(
            'window = { type = "fixed", window = 50 }',
            'window = { type = "fixed", window = 1 }',
            c2_start="5s",
        )
    ).run()
    assert metrics.run_convergence_times(starved)["convergence_s"].to_list() == [None]
    # The run's and the bottleneck's Jain index see the starved flow: close to 1/2.
    assert value(starved, "run", "jain_index") == pytest.approx(value(starved, "R2->R1", "jain_index"))
    assert value(starved, "run", "jain_index") < 0.6


def test_flow_spans_come_from_the_scenario_starts_stops_and_completions():
    sc = ndncc.load_str(
        shared(
            'segments = 500\nwindow = { type = "aimd" }',
            'stop = "7s"\nwindow = { type = "aimd" }',
            "2s",
            "10s",
        )
    )
    result = sc.run()
    spans = metrics.flow_spans(sc.to_dict(), result.summary)
    assert spans["C1"] == metrics.FlowSpan(0.0, value(result, "C1", "download_time_s"))
    assert spans["C2"] == metrics.FlowSpan(2.0, 7.0)
    assert metrics.duration_s("250ms") == 0.25 and metrics.duration_s("3us") == 3e-6
    with pytest.raises(ndncc.errors.BadInput, match="duration"):
        metrics.duration_s("soon")
