"""Figures: throughput in kbit/s in bins that do not alias, axes from zero, both queue
directions, words on sweep figures, E3's window figure cut at the downloads, and PNG, PDF and
SVG files that are the same bytes for the same data."""

from __future__ import annotations

import json
from pathlib import Path

import polars as pl
import pytest

import ndncc
from ndncc import metrics, output, plots, sweepplot
from ndncc.errors import BadInput
from ndncc.experiments import e3

ROOT = Path(__file__).resolve().parents[2]
EXAMPLE = ROOT / "docs" / "examples" / "two-node.toml"


def counter(entity: str, samples: list[tuple[float, float]], metric: str = "data_received") -> pl.DataFrame:
    return pl.DataFrame(
        {"t": [t for t, _ in samples], "entity": entity, "metric": metric, "value": [v for _, v in samples]}
    )


def summary(data: float = 10.0, **payload_per_data: float) -> list[dict]:
    """Summary rows giving each consumer ``data`` Data of the given payload."""
    rows = []
    for entity, size in payload_per_data.items():
        rows.append({"flow": entity, "metric": "data_received", "value": data})
        rows.append({"flow": entity, "metric": "payload_bytes", "value": data * size})
    return rows


def test_throughput_is_the_payload_bits_per_bin_over_its_width_in_kbit_per_s():
    # 10 Data by 0.5 s, 30 by 1.0 s, 30 by 1.5 s, 40 by 2.0 s; 1,000-byte payloads
    series = counter("c", [(0.5, 10), (1.0, 30), (1.5, 30), (2.0, 40)])
    tp = metrics.throughput(series, summary(c=1000.0), bin_s=1.0)
    assert tp["t"].to_list() == [1.0, 2.0]
    # 30 Data × 8,000 bit in 1 s = 240 kbit/s; then 10 Data = 80 kbit/s
    assert tp["value"].to_list() == [240.0, 80.0]
    assert tp["metric"].unique().to_list() == ["throughput_kbps"]


def test_tcp_and_multicast_flows_count_their_byte_counters():
    series = pl.concat(
        [
            counter("tcp", [(1.0, 1000), (2.0, 3000)], "bytes_acked"),
            counter("m", [(1.0, 0), (2.0, 500)], "bytes_received"),
        ]
    )
    tp = metrics.throughput(series, bin_s=1.0)
    assert tp.filter(pl.col("entity") == "tcp")["value"].to_list() == [8.0, 16.0]
    assert tp.filter(pl.col("entity") == "m")["value"].to_list() == [0.0, 4.0]


def test_only_whole_bins_within_the_recording_are_given():
    series = counter("c", [(0.5 * k, 5.0 * k) for k in range(1, 6)])  # until 2.5 s
    tp = metrics.throughput(series, summary(c=125.0), bin_s=1.0)
    assert tp["t"].to_list() == [1.0, 2.0]


def test_throughput_keeps_consumers_apart_and_a_consumer_without_data_is_zero():
    series = pl.concat([counter("b", [(1.0, 4), (2.0, 8)]), counter("a", [(1.0, 0), (2.0, 0)])])
    rows = summary(b=125.0) + [
        {"flow": "a", "metric": "data_received", "value": 0.0},
        {"flow": "a", "metric": "payload_bytes", "value": 0.0},
    ]
    tp = metrics.throughput(series, rows, bin_s=1.0)
    assert tp.filter(pl.col("entity") == "a")["value"].to_list() == [0.0, 0.0]
    assert tp.filter(pl.col("entity") == "b")["value"].to_list() == [4.0, 4.0]


def test_a_bad_bin_width_is_refused_by_name():
    with pytest.raises(BadInput, match="bin_s"):
        metrics.throughput(counter("c", [(1.0, 1)]), summary(c=1.0), bin_s=0)


def test_no_counter_gives_an_empty_table():
    empty = pl.DataFrame(schema=metrics.LONG_SCHEMA)
    assert metrics.throughput(empty).is_empty()


def test_default_bins_hold_twenty_rtts_and_a_hundred_packets_in_whole_recording_intervals():
    series = counter("c", [(0.1 * k, 50.0 * k) for k in range(0, 101)])  # 500 Data/s for 10 s
    rows = summary(5000.0, c=1000.0) + [{"flow": "c", "metric": "mean_rtt_ms", "value": 21.0}]
    # 20 × 21 ms = 0.42 s → 0.5 s (whole 100 ms intervals); 100 packets take 0.2 s; run/100 = 0.1 s
    assert metrics.default_bin_s(series, rows) == pytest.approx(0.5)
    # Without an RTT: 100 packets at 500/s = 0.2 s
    assert metrics.default_bin_s(series, summary(5000.0, c=1000.0)) == pytest.approx(0.2)
    # Never fewer than 10 bins over the run, never narrower than the recording interval
    assert (
        metrics.default_bin_s(series, rows + [{"flow": "c", "metric": "mean_rtt_ms", "value": 900.0}]) == 1.0
    )
    slow = counter("c", [(1.0 * k, 1.0e6 * k) for k in range(0, 11)])
    assert metrics.default_bin_s(slow, summary(c=1.0)) == 1.0


@pytest.fixture(scope="module")
def two_node(tmp_path_factory):
    """The documentation's example, saved with its figures."""
    out = tmp_path_factory.mktemp("two-node") / "run"
    ndncc.load(EXAMPLE).run().save(out)
    return output.read_run(out)


def test_the_example_throughput_does_not_alias_and_matches_the_summary(two_node):
    # A window of 10 delivers bursts one 21 ms RTT apart: 100 ms bins alternated by ±10%.
    tp = metrics.throughput(two_node.series, two_node.summary)
    values = tp["value"].to_numpy()[1:]  # the first bin holds the start
    assert values.max() / values.min() < 1.05
    kbps = next(
        r["value"] for r in two_node.summary if r["flow"] == "consumer" and r["metric"] == "throughput_kbps"
    )
    assert tp["value"].mean() == pytest.approx(kbps, rel=0.02)


def axes_of(fig):
    return fig.get_axes()


def test_throughput_and_queue_axes_start_at_zero_and_say_their_unit(two_node):
    spec = {s.stem: s for s in plots.FIGURES}
    fig = spec["throughput"].figure(two_node)
    (ax,) = axes_of(fig)
    assert ax.get_ylim()[0] == 0.0
    assert ax.get_ylabel() == "throughput [kbit/s]"
    assert "s bins" in ax.get_title()
    for ax in axes_of(spec["queue"].figure(two_node)):
        assert ax.get_ylim()[0] == 0.0


def test_the_queue_figure_shows_the_data_direction_and_the_interest_direction(two_node):
    fig = {s.stem: s for s in plots.FIGURES}["queue"].figure(two_node)
    panels = {ax.get_title(): [t.get_text() for t in ax.get_legend().get_texts()] for ax in axes_of(fig)}
    assert panels == {
        "Faces sending mostly Data": ["P->C (max 9)"],
        "Faces sending mostly Interests": ["C->P (max 9)"],
    }


def test_the_rtt_cdf_rises_from_zero_to_one(two_node):
    c = metrics.rtt_cdf(two_node.series)
    assert c["p"].max() == 1.0 and (c["p"].diff().drop_nulls() > 0).all()
    assert 20.0 < c["value"].min() < c["value"].max() < 30.0  # ms


def test_without_payload_sizes_the_throughput_figure_says_it_counts_data_packets(fake_result, tmp_path):
    fake_result.save(tmp_path / "run")
    run = output.read_run(tmp_path / "run")
    (ax,) = axes_of({s.stem: s for s in plots.FIGURES}["throughput"].figure(run))
    assert ax.get_ylabel() == "Data packets/s (payload size unknown)"


@pytest.mark.parametrize("fmt, magic", [("png", b"\x89PNG"), ("pdf", b"%PDF"), ("svg", b"<?xml")])
def test_figures_are_written_as_png_pdf_or_svg_with_the_same_bytes_every_time(two_node, tmp_path, fmt, magic):
    contents = []
    for attempt in ("a", "b"):
        folder = tmp_path / attempt
        folder.mkdir()
        run = output.RunFolder(folder, two_node.manifest, two_node.summary, two_node.series, two_node.faces)
        written = plots.write_figures(run, fmt)
        assert [name for name, _ in written] == [
            f"{s.stem}.{fmt}" for s in plots.FIGURES if s.stem not in ("rate", "capacity")
        ]
        contents.append({name: (folder / name).read_bytes() for name, _ in written})
    assert contents[0] == contents[1]
    assert all(data.startswith(magic) for data in contents[0].values())
    assert set(contents[0]) <= plots.FIGURE_FILES


def test_a_run_folder_may_hold_every_figure_plots_draws_and_no_other():
    # output names them without importing plots, to tell a run folder before a run starts.
    assert [s.stem for s in plots.FIGURES] == list(output.FIGURE_STEMS)
    figures = {n for n in output.RUN_FILES if Path(n).suffix[1:] in output.FIGURE_FORMATS}
    assert plots.FIGURE_FILES == figures


def test_an_unknown_format_is_refused(two_node, tmp_path):
    with pytest.raises(BadInput, match="format: expected one of png, pdf, svg"):
        plots.write_figures(two_node, "jpeg")


def test_a_pdf_figure_is_linked_from_the_report_not_shown(two_node, tmp_path):
    from ndncc import report

    run = output.RunFolder(tmp_path, two_node.manifest, two_node.summary, two_node.series, two_node.faces)
    report.render_run(run, format="pdf")
    text = (tmp_path / "report.md").read_text()
    assert "[Throughput per flow (PDF)](throughput.pdf)" in text
    assert "![" not in text


# --- sweep figures -----------------------------------------------------------------------------


def test_scenario_keys_read_as_what_they_set_and_where():
    assert sweepplot.key_words("links.R1-R2.loss.p") == ("loss probability", "link R1-R2")
    assert sweepplot.key_words("apps.C1.window.type") == ("window controller", "C1")
    assert sweepplot.key_words("defaults.link.delay") == ("propagation delay", "every link")
    holes = sweepplot.key_words("apps.C1.window.holes_before_reaction")
    assert holes == ("window holes before reaction", "C1")
    axis = {"name": "window", "keys": ["apps.C1.window.type", "apps.C2.window.type"]}
    assert sweepplot.axis_words(axis) == "window controller of C1, C2"


def test_toml_values_read_as_words():
    assert sweepplot.value_words('{type = "reno-hole", holes_before_reaction = 5}') == (
        "reno-hole, holes_before_reaction 5"
    )
    assert sweepplot.value_words('"aimd"') == "aimd"
    assert sweepplot.value_words("aimd") == "aimd"
    assert sweepplot.value_words("0.5%") == "0.5%"
    assert sweepplot.value_words('{type = "aimd"} / {type = "cubic"}') == "aimd / cubic"


def aggregate_rows() -> pl.DataFrame:
    rows = []
    for loss, base in (("0%", 4000.0), ("1%", 1600.0), ("2%", 1100.0)):
        for window, factor in (('{type = "aimd"}', 1.0), ('{type = "reno-hole"}', 1.2)):
            rows.append(
                {
                    "loss": loss,
                    "window": window,
                    "entity": "C1",
                    "metric": "throughput_kbps",
                    "unit": "kbit/s",
                    "n": 3,
                    "mean": base * factor,
                    "ci95": 50.0,
                }
            )
    return pl.DataFrame(rows)


def test_a_sweep_figure_labels_its_axes_and_legend_in_words_from_zero():
    axes = [
        {"name": "loss", "keys": ["links.R1-R2.loss.p"], "labels": ["0%", "1%", "2%"]},
        {
            "name": "window",
            "keys": ["apps.C1.window", "apps.C2.window"],
            "labels": ['{type = "aimd"}', '{type = "reno-hole"}'],
        },
    ]
    x = sweepplot.choose_x(axes, "loss")
    fig = sweepplot.metric_figure(aggregate_rows(), x, ["window"], 3, axes=axes)
    (ax,) = fig.get_axes()
    assert ax.get_xlabel() == "loss probability of link R1-R2 [%]"
    assert ax.get_ylabel() == "throughput [kbit/s]"
    assert ax.get_title() == "Throughput: mean and 95% CI over 3 seeds"
    assert ax.get_ylim()[0] == 0.0
    legend = ax.get_legend()
    assert legend.get_title().get_text() == "window controller of C1, C2"
    assert [t.get_text() for t in legend.get_texts()] == ["aimd", "reno-hole"]
    # The caller's own words win.
    fig = sweepplot.metric_figure(
        aggregate_rows(), x, ["window"], 3, axes=axes, labels={"loss": "loss", "throughput_kbps": "goodput"}
    )
    (ax,) = fig.get_axes()
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("loss [%]", "goodput [kbit/s]")


def test_categorical_sweep_ticks_are_words():
    axes = [
        {"name": "window", "keys": ["apps.C1.window"], "labels": ['{type = "aimd"}', '{type = "reno-hole"}']}
    ]
    rows = aggregate_rows().filter(pl.col("loss") == "1%").drop("loss")
    fig = sweepplot.metric_figure(rows, sweepplot.choose_x(axes), [], 3, axes=axes)
    (ax,) = fig.get_axes()
    assert [t.get_text() for t in ax.get_xticklabels()] == ["aimd", "reno-hole"]
    assert ax.get_xlabel() == "window controller of C1"


def test_a_sweep_folder_renders_its_figures_as_svg(tmp_path):
    ndncc.sweep(
        EXAMPLE,
        grid={"links.C-P.delay": ["5ms", "20ms"]},
        seeds=1,
        overrides=["simulation.duration=2s"],
        metrics=["throughput_kbps"],
        executor=1,
        out=tmp_path / "out",
        progress=False,
    )
    drawn = sweepplot.render(tmp_path / "out", format="svg")
    assert drawn == ["throughput_kbps"]
    assert (tmp_path / "out" / "figures" / "throughput_kbps.svg").read_bytes().startswith(b"<?xml")
    assert "![throughput_kbps](figures/throughput_kbps.svg)" in (tmp_path / "out" / "report.md").read_text()


# --- E3 ----------------------------------------------------------------------------------------


def test_the_e3_window_figure_ends_a_little_after_the_last_download(tmp_path):
    quick = ("simulation.duration=60s", "apps.C1.file_size=262144B", "apps.C2.file_size=524288B")
    res = ndncc.load(ROOT / "scenarios" / "e3.toml", list(quick)).run()
    done = max(metrics.flow_completion_times(res.summary)["fct_s"].to_list())
    assert done < 30.0
    assert e3.shown_until(res) == pytest.approx(done * (1 + e3.MARGIN))
    e3._window_figure({"aimd": res}, tmp_path / "window.png")
    assert (tmp_path / "window.png").read_bytes().startswith(b"\x89PNG")
    json.dumps(e3.downloads_done(res))  # plain numbers
