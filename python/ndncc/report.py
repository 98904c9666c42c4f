"""``report.md``: a run's or a reproduction's figures and tables on one page."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

from . import output, plots

Row = Mapping[str, Any]


def fmt(value: Optional[float]) -> str:
    """A figure for a table cell: four significant digits, an en dash when undefined."""
    return "–" if value is None else f"{value:.4g}"


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cells) + " |" for cells in rows]
    return "\n".join(lines)


def summary_table(rows: Sequence[Row]) -> str:
    return table(
        ["variant", "flow", "metric", "value", "unit"],
        [[r["variant"], r["flow"], r["metric"], fmt(r["value"]), r["unit"]] for r in rows],
    )


def comparison_table(rows: Sequence[Row]) -> Optional[str]:
    """ "Ours vs seed" for the rows that carry the paper's figure; ``None`` if none do."""
    compared = [r for r in rows if r["paper"] is not None]
    if not compared:
        return None

    def ratio(r: Row) -> str:
        ok = r["value"] is not None and r["paper"] != 0
        return fmt(r["value"] / r["paper"]) if ok else "–"

    return table(
        ["variant", "flow", "metric", "ours", "seed", "ours / seed", "unit"],
        [
            [r["variant"], r["flow"], r["metric"], fmt(r["value"]), fmt(r["paper"]), ratio(r), r["unit"]]
            for r in compared
        ],
    )


def _tables(rows: Sequence[Row]) -> list[str]:
    parts = []
    comparison = comparison_table(rows)
    if comparison:
        parts += ["## Ours vs seed", "", comparison, ""]
    parts += ["## Summary", "", summary_table(rows) if rows else "No summary figures.", ""]
    return parts


def figure_link(file: str, caption: str) -> str:
    """Markdown showing a figure: an image for PNG and SVG, a link for PDF (which Markdown
    viewers do not show inline)."""
    return f"[{caption} (PDF)]({file})" if file.lower().endswith(".pdf") else f"![{caption}]({file})"


def run_report(run: output.RunFolder, figures: Sequence[tuple[str, str]]) -> str:
    m = run.manifest
    title = m["name"] if m.get("variant") in (None, m["name"]) else f"{m['name']} — {m['variant']}"
    parts = [
        f"# {title}",
        "",
        f"Seed {m['seed']}; {fmt(m['sim_seconds'])} s simulated in {fmt(m['wall_seconds'])} s; "
        f"{m['events']:,} events, {m['packet_hops']:,} packet hops; ndncc {m['ndncc_version']}.",
        "",
    ]
    if m.get("overrides"):
        parts += ["Overrides: " + ", ".join(f"`{o}`" for o in m["overrides"]), ""]
    parts += _tables(run.summary)
    if figures:
        parts += ["## Figures", ""]
        for file, caption in figures:
            parts += [f"### {caption}", "", figure_link(file, caption), ""]
    else:
        parts += ["Figures were not drawn: `ndncc plot <this folder>` draws them.", ""]
    parts += [
        "## Files",
        "",
        f"- [`{output.MANIFEST}`]({output.MANIFEST}): ndncc version, resolved scenario, seed, run statistics",
        f"- [`{output.SUMMARY}`]({output.SUMMARY}): one row per flow and metric",
        f"- `{output.SERIES}`: per-app time series (t, entity, metric, value)",
        f"- `{output.FACES}`: per-face time series in the same long format",
        "",
    ]
    return "\n".join(parts)


def render_run(
    run: output.RunFolder,
    figures: bool = True,
    format: str = "png",
    labels: Optional[Mapping[str, str]] = None,
    style: Optional[str] = None,
) -> list[tuple[str, str]]:
    """Draw a run's figures in ``format`` (png, pdf or svg; none if ``figures`` is false) and
    ``style`` (screen or paper), legends from ``labels`` where given, and write its
    ``report.md``; return the figures written."""
    drawn = plots.write_figures(run, format, labels, style) if figures else []
    output.write_text(run.path / output.REPORT, run_report(run, drawn))
    return drawn


def headline_table(rows: Sequence[Row], metrics: Sequence[str], flows: Sequence[str] = ()) -> Optional[str]:
    """One line per (variant, flow) and one column per headline metric, in first-seen order;
    only the given flows when any are given."""
    keys: dict[tuple[str, str], dict[str, Optional[float]]] = {}
    for r in rows:
        if r["metric"] in metrics and (not flows or r["flow"] in flows):
            keys.setdefault((r["variant"], r["flow"]), {})[r["metric"]] = r["value"]
    if not keys:
        return None
    shown = [m for m in metrics if any(m in v for v in keys.values())]
    return table(
        ["variant", "flow", *shown],
        [[v, f, *(fmt(vals.get(m)) if m in vals else "" for m in shown)] for (v, f), vals in keys.items()],
    )


#: A reproduction may write its discussion (gaps, assumptions) to this file; the report includes it.
NOTES = "notes.md"


def experiment_report(
    name: str,
    title: str,
    rows: Sequence[Row],
    out_dir: Path,
    headline: Sequence[str] = (),
    headline_flows: Sequence[str] = (),
    headline_rows: Optional[Sequence[Row]] = None,
    claims: Optional[str] = None,
) -> str:
    """The page of one reproduction: its discussion, the comparison with the seed, the headline
    figures per variant, its figures, and links to the run folders inside it. Every row is in
    ``summary.json``; without headline metrics the page lists them all. ``headline_rows`` (default:
    all rows) are the ones the headline table shows, e.g. without per-seed replicas. ``claims``
    (the seed's claims with their verdicts, :mod:`ndncc.scoreboard`) opens the page."""
    runs = sorted(p.parent.name for p in out_dir.glob(f"*/{output.REPORT}"))
    parts = [f"# {name}: {title}", ""]
    if claims:
        parts += [claims.strip(), ""]
    notes = out_dir / NOTES
    if notes.is_file():
        parts += [notes.read_text().strip(), ""]
    shown = rows if headline_rows is None else headline_rows
    head = headline_table(shown, headline, headline_flows) if headline else None
    if head:
        comparison = comparison_table(rows)
        if comparison:
            parts += ["## Ours vs seed", "", comparison, ""]
        parts += [
            "## Headline figures",
            "",
            head,
            "",
            f"Every figure of every run: [`{output.SUMMARY}`]({output.SUMMARY}).",
            "",
        ]
    else:
        parts += _tables(rows)
    pictures = sorted(p.name for fmt in plots.FORMATS for p in out_dir.glob(f"*.{fmt}"))
    if pictures:
        parts += ["## Figures", ""] + [figure_link(p, p) for p in pictures] + [""]
    if runs:
        parts += ["## Runs", ""] + [f"- [{r}]({r}/{output.REPORT})" for r in runs] + [""]
    return "\n".join(parts)
