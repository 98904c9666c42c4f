"""ndncc's house style for figures, and the figure type every ndncc figure is made of.

Two styles: ``"screen"`` (the default: sans-serif text, sized for a report page or a notebook)
and ``"paper"`` (serif text in STIX, which matches Times, the body font of IEEE and ACM papers
set in LaTeX, at 8 pt on a figure a column wide). Either way a PDF embeds its fonts as TrueType
(Type 42), never as Type 3 fonts, which IEEE's and ACM's PDF checks reject, and an SVG draws
its text as paths.

>>> from ndncc import figures
>>> with figures.style("paper"):
...     fig = result.plot("window")          # doctest: +SKIP
>>> fig.savefig("window.pdf")                # doctest: +SKIP

A figure remembers its style: saved later, outside the ``with``, it is drawn the same way.
:class:`NdnccFigure` also shows itself in a notebook (``_repr_png_``) without
``%matplotlib inline``, and never touches pyplot, so importing ndncc changes no backend.
"""

from __future__ import annotations

import contextlib
import functools
import io
from contextvars import ContextVar
from typing import Any, Callable, Iterator, Optional, TypeVar

from .errors import BadInput

#: Every figure, whatever its style: fonts a PDF checker accepts, files without dates.
_ALWAYS: dict[str, Any] = {
    "pdf.fonttype": 42,
    "ps.fonttype": 42,
    "svg.fonttype": "path",
    "svg.hashsalt": "ndncc",
    "axes.formatter.use_mathtext": False,
}

#: rcParams per style.
STYLES: dict[str, dict[str, Any]] = {
    "screen": {
        "font.family": "sans-serif",
        "font.sans-serif": ["DejaVu Sans"],
        "mathtext.fontset": "dejavusans",
        "font.size": 10.0,
        "axes.titlesize": "medium",
        "figure.titlesize": "large",
        "axes.grid": True,
        "grid.alpha": 0.3,
        "lines.linewidth": 1.0,
        "legend.fontsize": "small",
        "legend.title_fontsize": "small",
        "savefig.dpi": 100,
    },
    "paper": {
        "font.family": "serif",
        "font.serif": ["STIXGeneral", "DejaVu Serif"],
        "mathtext.fontset": "stix",
        "font.size": 8.0,
        "axes.titlesize": 8.0,
        "axes.labelsize": 8.0,
        "xtick.labelsize": 7.0,
        "ytick.labelsize": 7.0,
        "legend.fontsize": 7.0,
        "legend.title_fontsize": 7.0,
        "figure.titlesize": 8.0,
        "axes.grid": True,
        "grid.alpha": 0.3,
        "grid.linewidth": 0.4,
        "axes.linewidth": 0.6,
        "lines.linewidth": 0.8,
        "lines.markersize": 3.0,
        "xtick.major.width": 0.6,
        "ytick.major.width": 0.6,
        "savefig.dpi": 300,
    },
}

#: Width of a figure of one panel [in]: a report page, or one column of a two-column paper.
WIDTH_IN = {"screen": 8.0, "paper": 3.5}

_CURRENT: ContextVar[str] = ContextVar("ndncc_figure_style", default="screen")


def check_style(name: object) -> str:
    if name not in STYLES:
        raise BadInput(f"style: expected one of {', '.join(STYLES)}, not {name!r}")
    return name  # type: ignore[return-value]


def current() -> str:
    """The style new figures get: ``"screen"`` unless inside :func:`style`."""
    return _CURRENT.get()


def rc(name: Optional[str] = None) -> dict[str, Any]:
    """The matplotlib settings of style ``name`` (default: the current one)."""
    return {**STYLES[check_style(name or current())], **_ALWAYS}


@contextlib.contextmanager
def style(name: Optional[str] = None) -> Iterator[str]:
    """Draw the figures made inside in style ``name`` (``"screen"`` or ``"paper"``; ``None``
    keeps the current one)."""
    chosen = check_style(name or current())
    import matplotlib

    token = _CURRENT.set(chosen)
    try:
        with matplotlib.rc_context(rc(chosen)):
            yield chosen
    finally:
        _CURRENT.reset(token)


F = TypeVar("F", bound=Callable[..., Any])


def styled(draw: F) -> F:
    """Run a drawing function in the current style, so that every text and line it makes takes
    the style's fonts and sizes."""

    @functools.wraps(draw)
    def wrapper(*args: Any, **kwargs: Any) -> Any:
        with style():
            return draw(*args, **kwargs)

    return wrapper  # type: ignore[return-value]


def _figure_class() -> type:
    from matplotlib.figure import Figure

    class NdnccFigure(Figure):
        """A matplotlib ``Figure`` that keeps its style when saved and shows itself in a
        notebook."""

        ndncc_style = "screen"

        def savefig(self, fname: Any, *args: Any, **kwargs: Any) -> None:
            import matplotlib

            with matplotlib.rc_context(rc(self.ndncc_style)):
                super().savefig(fname, *args, **kwargs)

        def _repr_png_(self) -> bytes:
            buffer = io.BytesIO()
            self.savefig(buffer, format="png", dpi=100)
            return buffer.getvalue()

        def __repr__(self) -> str:
            w, h = self.get_size_inches()
            return f"<ndncc figure, {self.ndncc_style} style, {w:g}x{h:g} in, {len(self.axes)} axes>"

    NdnccFigure.__module__ = __name__
    NdnccFigure.__qualname__ = "NdnccFigure"
    return NdnccFigure


_CLASS: Optional[type] = None


def figure_class() -> type:
    """:class:`NdnccFigure`, made on first use (matplotlib loads only when a figure is drawn)."""
    global _CLASS
    if _CLASS is None:
        _CLASS = _figure_class()
    return _CLASS


def __getattr__(name: str) -> Any:
    if name == "NdnccFigure":
        return figure_class()
    raise AttributeError(name)


def new_figure(width: float = 1.0, height: float = 0.5625, **kwargs: Any):
    """A figure in the current style, ``width`` and ``height`` in units of the style's width of
    one panel (``WIDTH_IN``): ``new_figure(1, 0.5)`` is 8 × 4 in on screen, 3.5 × 1.75 in in a
    paper. Constrained layout, so labels never overlap."""
    name = current()
    base = WIDTH_IN[name]
    import matplotlib

    with matplotlib.rc_context(rc(name)):
        fig = figure_class()(figsize=(width * base, height * base), layout="constrained", **kwargs)
    fig.ndncc_style = name
    return fig


def panel_height(panels: int, each: float = 0.3, extra: float = 0.12) -> float:
    """The height (in style widths) of a figure of ``panels`` stacked panels."""
    return extra + each * panels


def grid(
    rows: int,
    cols: int = 1,
    *,
    panel_width: Optional[float] = None,
    panel_height: float = 0.3,
    sharex: Any = True,
    sharey: Any = False,
    **kwargs: Any,
):
    """A figure of ``rows`` × ``cols`` panels in the current style: ``(fig, axes)``, axes as a
    2-D array. Sizes in style widths (:data:`WIDTH_IN`): the figure is ``cols × panel_width``
    wide (default: one style width in all) and ``rows × panel_height`` high, plus room for the
    titles and a legend above."""
    width = panel_width * cols if panel_width is not None else 1.0
    fig = new_figure(width, 0.16 + panel_height * rows)
    axes = fig.subplots(rows, cols, sharex=sharex, sharey=sharey, squeeze=False, **kwargs)
    return fig, axes


def figure_legend(fig: Any, handles: list, labels: list[str], title: Optional[str] = None) -> Any:
    """One legend for every panel, below them (a figure of small multiples)."""
    columns = min(len(labels), 4 if sum(len(text) for text in labels) < 90 else 2)
    return fig.legend(handles, labels, loc="outside lower center", ncols=columns, title=title, frameon=False)


def shared_ylim(axes: Any, bottom: float = 0.0) -> None:
    """One y range from ``bottom`` up to the highest value any of ``axes`` draws (panels that
    share their y axis, set once they are all drawn)."""
    import numpy as np

    top = bottom
    for ax in np.ravel(axes):
        for line in ax.get_lines():
            ys = np.asarray(line.get_ydata(), dtype=float)
            ys = ys[np.isfinite(ys)]
            if ys.size:
                top = max(top, float(ys.max()))
    np.ravel(axes)[0].set_ylim(bottom, top * 1.05 if top > bottom else bottom + 1.0)


def log_scale(ax: Any, axis: str = "y") -> None:
    """A logarithmic axis labelled in plain numbers (``60``, ``200``, not ``6×10¹``)."""
    from matplotlib.ticker import FuncFormatter, LogLocator

    plain = FuncFormatter(lambda value, _pos: f"{value:g}")
    target = ax.yaxis if axis == "y" else ax.xaxis
    (ax.set_yscale if axis == "y" else ax.set_xscale)("log")
    target.set_major_locator(LogLocator(subs=(1.0, 2.0, 5.0)))
    target.set_major_formatter(plain)
    target.set_minor_formatter(FuncFormatter(lambda value, _pos: ""))


def _has_unit(label: str) -> bool:
    text = label.strip()
    return text.endswith("]") and "[" in text


def problems(fig: Any) -> list[str]:
    """What in ``fig`` breaks the house rules, in words (empty if nothing): every panel with data
    has axis labels with units ("time [s]"), given on it or on a panel it shares that axis with;
    a panel of several labelled lines has a legend, or the figure has one for all panels."""
    found = []
    drawn = [ax for ax in fig.axes if ax.has_data()]
    for n, ax in enumerate(drawn):
        where = f"panel {n + 1} ({ax.get_title() or 'untitled'})"
        for axis, label, shared in (
            ("y", ax.get_ylabel(), ax.get_shared_y_axes().get_siblings(ax)),
            ("x", ax.get_xlabel(), ax.get_shared_x_axes().get_siblings(ax)),
        ):
            others = [other for other in shared if other is not ax]
            labels = [label] + [o.get_ylabel() if axis == "y" else o.get_xlabel() for o in others]
            if not any(_has_unit(text) for text in labels if text):
                found.append(f"{where}: the {axis} axis has no label with a unit ({label!r})")
        artists = (*ax.get_lines(), *ax.collections)
        named = [a.get_label() for a in artists if not a.get_label().startswith("_")]
        if len(named) >= 2 and ax.get_legend() is None and not fig.legends:
            found.append(f"{where}: {len(named)} labelled lines and no legend")
    return found
