"""The house style of figures (ndncc.figures): fonts a paper's PDF check accepts, axes labelled
with units, legends that name each flow's controller, shared scales where panels are compared,
the paper style, label overrides, and figures that show themselves in a notebook."""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import polars as pl
import pytest

import ndncc
from ndncc import cli, figures, output, plots, report
from ndncc.controllers import DataEvent, LossEvent, WindowController
from ndncc.errors import BadInput

ROOT = Path(__file__).resolve().parents[2]
MIXED = ROOT / "scenarios" / "ndn-vs-tcp.toml"
SHORT = ['simulation.duration="3s"']
UNIT = re.compile(r"\[[^\]]+\]$")


@pytest.fixture(scope="module")
def mixed() -> ndncc.Result:
    """An NDN consumer (PCON) beside a TCP NewReno flow."""
    return ndncc.load(MIXED, SHORT).run()


@pytest.fixture(scope="module")
def mixed_folder(mixed, tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("mixed") / "run"
    mixed.save(folder, figures=False)
    return folder


def pdf_fonts(path: Path) -> list[tuple[str, str]]:
    """``(name, type)`` of every font ``pdffonts`` lists in ``path``."""
    out = subprocess.run(["pdffonts", str(path)], capture_output=True, text=True, check=True).stdout
    rows = out.splitlines()[2:]
    fonts = []
    for row in rows:
        name, rest = row.split(maxsplit=1)
        kind = re.match(r"(Type 3|Type 1C?|CID TrueType|TrueType|CID Type 0C?|Type 1 \(CID\))", rest)
        fonts.append((name, kind.group(1) if kind else rest))
    return fonts


def legend_texts(ax) -> list[str]:
    legend = ax.get_legend()
    return [t.get_text() for t in legend.get_texts()] if legend else []


# ---------------------------------------------------------------- fonts


@pytest.mark.parametrize("style", ["screen", "paper"])
def test_run_figures_as_pdf_embed_no_type_3_font(mixed_folder, tmp_path, style):
    folder = tmp_path / "run"
    shutil.copytree(mixed_folder, folder)
    drawn = report.render_run(output.read_run(folder), format="pdf", style=style)
    assert len(drawn) >= 4
    for name, _ in drawn:
        data = (folder / name).read_bytes()
        # A Type 3 font is a /Font dictionary with /Subtype /Type3, whichever tool lists it.
        assert b"/Type3" not in data, name
        assert b"/FontFile2" in data, f"{name}: the TrueType font is embedded"


@pytest.mark.skipif(shutil.which("pdffonts") is None, reason="pdffonts (poppler-utils) is not installed")
@pytest.mark.parametrize("style, family", [("screen", "DejaVuSans"), ("paper", "STIXGeneral")])
def test_pdffonts_lists_only_embedded_truetype_fonts_of_the_style(mixed, tmp_path, style, family):
    path = tmp_path / "window.pdf"
    plots.write_figure(path, mixed.plot("window", style=style))
    fonts = pdf_fonts(path)
    assert fonts and all(kind == "CID TrueType" for _, kind in fonts), fonts
    assert all(family in name for name, _ in fonts), fonts


def test_a_paper_figure_saved_outside_the_style_keeps_its_fonts(mixed, tmp_path):
    fig = mixed.plot("throughput", style="paper")
    assert figures.current() == "screen"
    fig.savefig(tmp_path / "t.pdf")  # the user's own savefig, outside any style
    data = (tmp_path / "t.pdf").read_bytes()
    assert b"STIXGeneral" in data and b"/Type3" not in data
    assert tuple(fig.get_size_inches()) == pytest.approx((3.5, 3.5 * 0.5625))


def test_an_unknown_style_is_refused(mixed):
    with pytest.raises(BadInput, match="style: expected one of screen, paper, not 'poster'"):
        mixed.plot("window", style="poster")


# ---------------------------------------------------------------- axes, units, legends


def test_every_run_figure_has_axes_with_units_and_a_legend_naming_controllers(mixed):
    for spec in plots.FIGURES:
        try:
            fig = mixed.plot(Path(spec.file).stem)
        except BadInput:
            continue  # no data for it in this run (rate: no rate consumer)
        for ax in fig.axes:
            assert UNIT.search(ax.get_ylabel()) or ax.get_ylabel().startswith("fraction"), spec.file
            if ax.get_xlabel():
                assert UNIT.search(ax.get_xlabel()), spec.file
            assert legend_texts(ax), f"{spec.file}: a legend"
        texts = [t for ax in fig.axes for t in legend_texts(ax)]
        if spec.file != "queue.png":
            assert any("(pcon)" in t for t in texts) or any("(TCP newreno)" in t for t in texts), texts


def test_the_window_figure_shows_tcp_s_cwnd_in_segments_beside_the_consumer_s_window(mixed):
    fig = mixed.plot("window")
    ax = fig.axes[0]
    assert ax.get_ylabel() == "window [Interests; TCP: segments]"
    lines = {line.get_label(): line for line in ax.get_lines()}
    assert set(lines) == {"C (pcon)", "tcp (TCP newreno), cwnd"}
    cwnd = mixed.series("cwnd", "tcp")["value"].to_list()
    mss = 1024  # the scenario's mss
    assert list(lines["tcp (TCP newreno), cwnd"].get_ydata()) == [v / mss for v in cwnd]


def test_any_metric_is_drawn_with_its_unit(mixed):
    assert mixed.plot("cwnd").axes[0].get_ylabel() == "cwnd [bytes]"
    assert mixed.plot("queue_packets").axes[0].get_ylabel() == "queue packets [packets]"
    assert mixed.plot("srtt").axes[0].get_ylabel() == "srtt [s]"


def test_a_list_of_names_stacks_panels_over_one_time_axis(mixed):
    fig = mixed.plot(["window", "cwnd", "queue"])
    axes = fig.axes
    assert [ax.get_ylabel() for ax in axes] == [
        "window [Interests; TCP: segments]",
        "cwnd [bytes]",
        "queue [packets]",
    ]
    assert all(ax.get_shared_x_axes().joined(axes[0], ax) for ax in axes)
    assert axes[-1].get_xlabel() == "time [s]" and all(legend_texts(ax) for ax in axes)
    with pytest.raises(BadInput, match="rtt_cdf.*not over time"):
        mixed.plot(["window", "rtt_cdf"])


def test_the_queue_figure_shares_one_scale_that_holds_both_panels(mixed):
    fig = mixed.plot("queue")
    data, interests = fig.axes
    assert data.get_shared_y_axes().joined(data, interests)
    fullest = max(max(line.get_ydata()) for ax in fig.axes for line in ax.get_lines())
    assert fullest > 1 and interests.get_ylim() == data.get_ylim() == (0, pytest.approx(fullest * 1.05))


def test_labels_replace_the_legend_entries(mixed):
    fig = mixed.plot("window", labels={"C": "PCON consumer"})
    assert set(legend_texts(fig.axes[0])) == {"PCON consumer", "tcp (TCP newreno), cwnd"}
    with pytest.raises(BadInput, match="labels"):
        mixed.plot("window", labels={"C": 3})


class Probe(WindowController):
    """A fixed window of 4 that records a metric of its own, with its unit."""

    units = {"probe_rtt_ms": "ms"}

    def on_data(self, ev: DataEvent) -> None:
        self._rtt = ev.rtt_s * 1e3 if ev.rtt_s is not None else 0.0

    def on_timeout(self, ev: LossEvent) -> None:
        pass

    def window(self) -> float:
        return 4.0

    def metrics(self):
        return [("probe_rtt_ms", getattr(self, "_rtt", 0.0))]


def test_a_python_controller_s_metrics_carry_the_units_it_declares():
    example = ROOT / "docs" / "examples" / "two-node.toml"
    result = ndncc.load(example, ['simulation.duration="1s"'], controllers={"consumer": Probe}).run()
    fig = result.plot("probe_rtt_ms")
    assert fig.axes[0].get_ylabel() == "probe rtt [ms]"
    assert legend_texts(fig.axes[0]) == ["consumer (Probe)"]


def test_series_units_agree_with_docs_metrics_md():
    from ndncc.metrics import SERIES_UNITS

    page = (ROOT / "docs" / "metrics.md").read_text()
    documented: dict[str, dict[str, str]] = {}
    for table in page.split("| series | kind | unit | when |")[1:]:
        for row in table.split("\n\n", 1)[0].splitlines()[2:]:
            cells = [c.strip() for c in row.strip("|").split("|")]
            metric, kinds, unit = cells[0].strip("`"), cells[1], cells[2]
            for kind in re.findall(r"`([^`]+)`", kinds):
                documented.setdefault(metric, {})[kind] = unit
    assert set(documented) == set(SERIES_UNITS)
    for metric, by_kind in documented.items():
        ours = SERIES_UNITS[metric]
        for kind, unit in by_kind.items():
            expected = ours if isinstance(ours, str) else ours[kind]
            assert expected in unit, (metric, kind, unit, expected)


# ---------------------------------------------------------------- the command line


def test_ndncc_plot_takes_a_style_and_labels(capsys, mixed_folder, tmp_path, monkeypatch):
    folder = tmp_path / "run"
    shutil.copytree(mixed_folder, folder)
    drawn = {}
    write = plots.write_figure
    monkeypatch.setattr(
        plots, "write_figure", lambda path, fig: (drawn.update({path.name: fig}), write(path, fig))
    )
    code = cli.main(["plot", str(folder), "--style", "paper", "--label", "C=PCON", "--format", "pdf"])
    assert code == 0, capsys.readouterr().err
    window = drawn["window.pdf"]
    assert window.ndncc_style == "paper"
    assert "PCON" in legend_texts(window.axes[0])
    code = cli.main(["plot", str(folder), "--label", "nolabel"])
    assert code == 2 and "--label 'nolabel': expected NAME=TEXT" in capsys.readouterr().err


# ---------------------------------------------------------------- notebooks


def test_a_figure_shows_itself_as_png_in_a_notebook(mixed):
    fig = mixed.plot("window")
    png = fig._repr_png_()
    assert png.startswith(b"\x89PNG\r\n\x1a\n") and len(png) > 10_000
    assert repr(fig) == "<ndncc figure, screen style, 8x4.5 in, 1 axes>"


def test_sweep_figures_keep_the_house_style(tmp_path):
    from concurrent.futures import ThreadPoolExecutor

    example = ROOT / "docs" / "examples" / "two-node.toml"
    with ThreadPoolExecutor(2) as pool:
        res = ndncc.sweep(
            example,
            grid={"apps.consumer.window.window": [5, 10]},
            seeds=1,
            overrides=['simulation.duration="1s"'],
            executor=pool,
            out=tmp_path / "sweep",
            progress=False,
        )
    fig = res.plot("throughput_kbps", style="paper", labels={"consumer": "fixed window"})
    assert fig.ndncc_style == "paper" and legend_texts(fig.axes[0]) == ["fixed window"]
    assert fig.axes[0].get_ylabel() == "throughput [kbit/s]"
    assert isinstance(res.table, pl.DataFrame)


# ---------------------------------------------------------------- the house rules, checked


def test_the_house_rules_find_axes_without_units_and_lines_without_a_legend():
    with figures.style("screen"):
        fig, axes = figures.grid(2, 1)
        for ax in axes[:, 0]:
            ax.plot([0, 1], [0, 1], label="C1 (aimd)")
            ax.plot([0, 1], [1, 0], label="C2 (aimd)")
        axes[0, 0].set_ylabel("window")
    found = figures.problems(fig)
    assert "panel 1 (untitled): the y axis has no label with a unit ('window')" in found
    assert "panel 2 (untitled): the x axis has no label with a unit ('')" in found
    assert "panel 1 (untitled): 2 labelled lines and no legend" in found
    # Labels on the shared axes and one legend for the figure put everything right.
    axes[0, 0].set_ylabel("window [Interests]")
    axes[1, 0].set_ylabel("window [Interests]")
    axes[1, 0].set_xlabel("time [s]")
    figures.figure_legend(fig, *axes[0, 0].get_legend_handles_labels())
    assert figures.problems(fig) == []


def test_every_run_figure_keeps_the_house_rules(mixed):
    for spec in plots.FIGURES:
        try:
            fig = mixed.plot(Path(spec.file).stem)
        except BadInput:
            continue
        assert figures.problems(fig) == [], spec.file
    assert figures.problems(mixed.plot(["window", "cwnd", "rtt", "queue"])) == []
