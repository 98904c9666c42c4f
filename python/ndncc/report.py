"""``report.md``: a run's or a reproduction's figures and tables on one page.

Numbers are written as people read them: four significant digits, never in e-notation, with
thousands separated (``12,345``, ``29,930``, ``44.55``, ``0.01788``); whole numbers whole; an
en dash when undefined. A run's summary is one table per kind of entity (consumers, TCP senders,
faces, …): a row per metric with its unit, a column per entity.
"""

from __future__ import annotations

import math
from pathlib import Path
from typing import Any, Mapping, Optional, Sequence

from . import metrics, output, plots

Row = Mapping[str, Any]

#: Significant digits of a table cell.
DIGITS = 4


def fmt(value: Optional[float], unit: Optional[str] = None) -> str:
    """A figure for a table cell: whole numbers whole, others to four significant digits, in
    fixed point with thousands separated; ``bool`` as yes or no; an en dash when undefined."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if unit == "bool" and value in (0, 1):
        return "yes" if value else "no"
    if math.isinf(value):
        return "∞" if value > 0 else "−∞"
    if value == int(value) and abs(value) < 1e15:
        return f"{int(value):,}"
    magnitude = math.floor(math.log10(abs(value)))
    decimals = max(0, DIGITS - 1 - magnitude)
    if decimals > 9:  # smaller than a billionth: e-notation is the readable form
        return f"{value:.{DIGITS - 1}e}"
    text = f"{value:,.{decimals}f}"
    return text.rstrip("0").rstrip(".") if "." in text else text


def table(header: Sequence[str], rows: Sequence[Sequence[str]]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join(cells) + " |" for cells in rows]
    return "\n".join(lines)


def summary_table(rows: Sequence[Row]) -> str:
    return table(
        ["variant", "flow", "metric", "value", "unit"],
        [[r["variant"], r["flow"], r["metric"], fmt(r["value"], r["unit"]), r["unit"]] for r in rows],
    )


#: Kinds of entity in the order a run's page shows them, with their headings.
KIND_HEADINGS = {
    "consumer": "Consumers",
    "producer": "Producers",
    "tcp": "TCP senders",
    "cbr": "UDP CBR senders",
    "multicast": "Multicast sources",
    "receiver": "Receivers",
    "face": "Faces",
    "node": "Nodes",
    "run": "The run",
    "other": "Other",
}

#: Most entity columns in one table; more are split over several tables.
MAX_COLUMNS = 8


#: Metrics a node reports (docs/metrics.md, "Nodes"): under a node's name, which an app may share.
NODE_METRICS = frozenset(
    {"cs_hits", "aggregated", "duplicates", "no_route", "unsolicited_data", "pit_expired"}
    | {"ip_unroutable", "mcast_unroutable"}
)


def entity_kind(entity: str, scenario: Mapping[str, Any], metric: Optional[str] = None) -> str:
    """What ``entity`` of a run's summary is, from its resolved scenario (see KIND_HEADINGS);
    ``metric`` tells a node from an app of the same name."""
    apps = scenario.get("apps") or {}
    if metric in NODE_METRICS and entity in (scenario.get("nodes") or {}):
        return "node"
    if entity in apps and isinstance(apps[entity], Mapping):
        kind = str(apps[entity].get("type"))
        return kind if kind in KIND_HEADINGS else "other"
    if entity == "run":
        return "run"
    if "->" in entity:
        return "face"
    if entity in (scenario.get("nodes") or {}):
        return "node"
    if any(entity.startswith(f"{a}-") for a in apps):
        return "receiver"  # a TCP, UDP or multicast flow's receiving end
    return "other"


def entity_tables(rows: Sequence[Row], scenario: Optional[Mapping[str, Any]] = None) -> list[str]:
    """A run's summary rows as Markdown: a table per kind of entity, a row per metric (in words,
    the name beside it, with its unit), a column per entity (apps named with their controller)."""
    scenario = scenario or {}
    labels = plots.entity_labels(scenario)
    by_kind: dict[str, dict[str, dict[str, Row]]] = {}
    for r in rows:
        kind = entity_kind(r["flow"], scenario, r["metric"])
        by_kind.setdefault(kind, {}).setdefault(r["flow"], {})[r["metric"]] = r
    parts: list[str] = []
    for kind, heading in KIND_HEADINGS.items():
        entities = by_kind.get(kind)
        if not entities:
            continue
        parts += [f"### {heading}", ""]
        names = list(entities)
        for start in range(0, len(names), MAX_COLUMNS):
            shown = names[start : start + MAX_COLUMNS]
            metric_units: dict[str, str] = {}
            for name in shown:
                for metric, r in entities[name].items():
                    metric_units.setdefault(metric, r["unit"] or "")
            named = labels if kind not in ("face", "node", "run") else {}
            header = ["metric", "unit", *(named.get(n, n) for n in shown)]
            body = [
                [
                    f"{metrics.metric_words(m)} (`{m}`)" if metrics.metric_words(m) != m else f"`{m}`",
                    unit,
                    *(fmt(entities[n][m]["value"], unit) if m in entities[n] else "" for n in shown),
                ]
                for m, unit in metric_units.items()
            ]
            parts += [table(header, body), ""]
    return parts


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
            [
                r["variant"],
                r["flow"],
                r["metric"],
                fmt(r["value"], r["unit"]),
                fmt(r["paper"], r["unit"]),
                ratio(r),
                r["unit"],
            ]
            for r in compared
        ],
    )


def _tables(rows: Sequence[Row], scenario: Optional[Mapping[str, Any]] = None) -> list[str]:
    """The comparison with the seed, then the summary: per kind of entity for one run (its
    ``scenario`` given), as a list of rows for a reproduction's many variants."""
    parts = []
    comparison = comparison_table(rows)
    if comparison:
        parts += ["## Ours vs seed", "", comparison, ""]
    if not rows:
        return parts + ["## Summary", "", "No summary figures.", ""]
    if scenario is not None:
        return parts + ["## Summary", "", *entity_tables(rows, scenario)]
    return parts + ["## Summary", "", summary_table(rows), ""]


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
    parts += _tables(run.summary, m.get("scenario") or {})
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


CI_SUFFIX = "_ci95"


def headline_table(
    rows: Sequence[Row], metric_names: Sequence[str], flows: Sequence[str] = ()
) -> Optional[str]:
    """One line per (variant, flow) and one column per headline metric (its unit in the header),
    in first-seen order; only the given flows when any are given. A metric's 95% confidence
    interval (``<metric>_ci95``, for values that are means over seeds) shares its cell:
    ``1,605 ± 42``."""
    keys: dict[tuple[str, str], dict[str, Optional[float]]] = {}
    units: dict[str, str] = {}
    for r in rows:
        if r["metric"] in metric_names and (not flows or r["flow"] in flows):
            keys.setdefault((r["variant"], r["flow"]), {})[r["metric"]] = r["value"]
            units.setdefault(r["metric"], r["unit"] or "")
    if not keys:
        return None
    intervals = {m for m in metric_names if m.endswith(CI_SUFFIX) and m[: -len(CI_SUFFIX)] in metric_names}
    shown = [m for m in metric_names if m not in intervals and any(m in v for v in keys.values())]

    def cell(vals: dict[str, Optional[float]], m: str) -> str:
        if m not in vals:
            return ""
        text = fmt(vals[m], units.get(m))
        ci = vals.get(m + CI_SUFFIX)
        return f"{text} ± {fmt(ci)}" if ci is not None and m + CI_SUFFIX in intervals else text

    header = [f"{m} [{units[m]}]" if units.get(m) else m for m in shown]
    return table(
        ["variant", "flow", *header],
        [[v, f, *(cell(vals, m) for m in shown)] for (v, f), vals in keys.items()],
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
