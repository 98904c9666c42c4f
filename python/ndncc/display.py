"""How results show themselves: compact HTML tables for notebooks, and a sweep's progress bar.

A notebook shows an object by its ``_repr_html_``; these tables keep that short (the first
:data:`ROWS` rows, a line saying how many more there are), since a sweep's table can hold
thousands of rows.
"""

from __future__ import annotations

import html
import math
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any, Callable, Iterator, Optional, Sequence

import polars as pl

if TYPE_CHECKING:
    from rich.console import Console

#: Rows an HTML table shows before it says how many it left out.
ROWS = 12


def cell(value: Any) -> str:
    """A value as a table cell: four significant digits for a float, an en dash when undefined."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "–"
    if isinstance(value, float):
        return f"{value:.4g}"
    return str(value)


def html_table(frame: pl.DataFrame, title: str, rows: int = ROWS) -> str:
    """``title`` above the first ``rows`` rows of ``frame`` as an HTML table."""
    shown = frame.head(rows)
    head = "".join(f"<th>{html.escape(c)}</th>" for c in shown.columns)
    body = "".join(
        "<tr>" + "".join(f"<td>{html.escape(cell(v))}</td>" for v in row) + "</tr>" for row in shown.rows()
    )
    more = frame.height - shown.height
    note = f"<p>… {more:,} more row{'s' if more != 1 else ''} of {frame.height:,}</p>" if more > 0 else ""
    return (
        f"<div><p>{html.escape(title)}</p><table><thead><tr>{head}</tr></thead>"
        f"<tbody>{body}</tbody></table>{note}</div>"
    )


def mean_table(table: pl.DataFrame, axes: Sequence[str]) -> pl.DataFrame:
    """A sweep's aggregate reduced to what a reader looks at first: the grid values, entity,
    metric, runs, mean, 95% CI half-width and unit."""
    return table.select(*axes, "entity", "metric", "n", "mean", "ci95", "unit")


# ---------------------------------------------------------------- progress


def progress_console() -> Optional["Console"]:
    """The console a progress bar draws on: standard error when it is a terminal, or the
    notebook's output when widgets can be shown there; ``None`` when there is nowhere to draw
    (a file or a pipe), so that logs stay free of bar frames."""
    from rich.console import Console

    console = Console(stderr=True)
    if console.is_terminal:
        return console
    if console.is_jupyter:
        try:
            import ipywidgets  # noqa: F401 - rich draws a live bar in a notebook through it
        except ImportError:
            return None
        return console
    return None


@contextmanager
def sweep_bar(
    console: Optional["Console"], transient: bool = False
) -> Iterator[Optional[Callable[[Any], None]]]:
    """A progress bar over a sweep's runs (done, failed, running, time left) on ``console``, and
    gone at the end if ``transient``; yields the callback that takes a
    :class:`ndncc.sweeping.Status`, or ``None`` without a console."""
    if console is None:
        yield None
        return
    from rich.progress import BarColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    bar = Progress(
        TextColumn("{task.description}"),
        BarColumn(),
        TextColumn("{task.completed}/{task.total} runs"),
        TextColumn("{task.fields[failed]} failed, {task.fields[running]} running"),
        TimeElapsedColumn(),
        TimeRemainingColumn(),
        console=console,
        transient=transient,
    )
    task = bar.add_task("sweep", total=1, failed=0, running=0)

    def update(s: Any) -> None:
        bar.update(
            task,
            description=f"sweep ({s.backend})" if s.backend else "sweep",
            completed=s.done + s.failed,
            total=max(1, s.to_run),
            failed=s.failed,
            running=s.running,
        )

    with bar:
        yield update
