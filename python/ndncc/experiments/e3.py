"""E3 — AIMD and Reno-like consumers on a lossy dumbbell (seed 002, Mini-NDN report).

Runs ``scenarios/e3.toml`` with the seed's two consumers, the three improvement ideas the report
proposes, and the assumptions the seed leaves open (bottleneck queue size, which direction the
1% loss applies to, what a detected hole does)."""

from __future__ import annotations

from pathlib import Path

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import polars as pl  # noqa: E402

from .. import output, plots  # noqa: E402
from . import Progress, register  # noqa: E402
from ._variants import Variant, events, run_variants  # noqa: E402

SCENARIO = "e3.toml"
FLOWS = ("C1", "C2")


def _both(window: str) -> tuple[str, ...]:
    return (f"apps.C1.window={window}", f"apps.C2.window={window}")


def _paper(download_s: float, kbps: float, loss: float) -> dict:
    # The seed reports one figure per consumer type; both flows are compared with it.
    return {
        (f, m): v
        for f in FLOWS
        for m, v in (("download_time_s", download_s), ("throughput_kbps", kbps), ("loss_rate", loss))
    }


AIMD = _paper(52.0, 1605.0, 0.021)
RENO = _paper(62.0, 1347.0, 0.022)

VARIANTS = [
    Variant("aimd", SCENARIO, (), AIMD, "Tahoe-like: slow start, +1/W, every timeout back to window 1"),
    Variant(
        "reno-hole",
        SCENARIO,
        _both('{type="reno-hole"}'),
        RENO,
        "aimd + sequence holes: a hole is retransmitted at once and halves the window",
    ),
    Variant(
        "reno-hole-signal-only",
        SCENARIO,
        _both('{type="reno-hole", retransmit_holes=false}'),
        RENO,
        "a hole halves the window but the segment waits for its timer (one loss: a halving and a timeout)",
    ),
    Variant(
        "aimd-ss-interest-over-data",
        SCENARIO,
        _both('{type="aimd", slow_start_step="interest-over-data"}'),
        {},
        "idea 1: slow start grows by Interest size / Data size per Data",
    ),
    Variant(
        "reno-hole-k5",
        SCENARIO,
        _both('{type="reno-hole", holes_before_reaction=5}'),
        {},
        "idea 2: react to every 5th hole only",
    ),
    Variant("arrival-rate", SCENARIO, _both('{type="arrival-rate"}'), {}, "idea 3: window from the Data arrival rate"),
    Variant("aimd-queue50", SCENARIO, ("links.R1-R2.queue.packets=50",), AIMD, "bottleneck queue 50 packets"),
    Variant("aimd-queue1000", SCENARIO, ("links.R1-R2.queue.packets=1000",), AIMD, "bottleneck queue 1,000 packets"),
    Variant(
        "reno-hole-queue50",
        SCENARIO,
        ("links.R1-R2.queue.packets=50", *_both('{type="reno-hole"}')),
        RENO,
        "bottleneck queue 50 packets",
    ),
    Variant(
        "reno-hole-queue1000",
        SCENARIO,
        ("links.R1-R2.queue.packets=1000", *_both('{type="reno-hole"}')),
        RENO,
        "bottleneck queue 1,000 packets",
    ),
    Variant(
        "aimd-loss-on-data-only",
        SCENARIO,
        ('links.R1-R2.loss_ab={type="none"}',),
        AIMD,
        "the 1% loss only on the Data direction (R2->R1); Interests are never lost",
    ),
]

QUICK = ("simulation.duration=60s", "apps.C1.file_size=1048576B", "apps.C2.file_size=1048576B")


def _window_figure(results: dict, path: Path) -> None:
    names = list(results)
    fig, axes = plt.subplots(len(names), 1, figsize=(8, 1.8 * len(names)), sharex=True, squeeze=False)
    for ax, name in zip(axes[:, 0], names):
        for flow in FLOWS:
            w = results[name].series(metric="window", entity=flow).sort("t")
            ax.plot(w["t"].to_list(), w["value"].to_list(), lw=0.8, label=flow)
        ax.set_ylabel("window")
        ax.set_title(name, fontsize=9)
    axes[-1, 0].set_xlabel("time [s]")
    axes[0, 0].legend(fontsize=8)
    fig.tight_layout()
    plots.write_png(path, fig)


def _rtt_figure(results: dict, names: list[str], path: Path) -> None:
    fig, axes = plt.subplots(len(names), 1, figsize=(8, 2.2 * len(names)), sharex=True, squeeze=False)
    for ax, name in zip(axes[:, 0], names):
        for metric in ("rtt", "rto"):
            s = events(results[name], "C1", metric)
            ax.plot(s["t"].to_list(), (s["value"] * 1e3).to_list(), lw=0.6, label=metric.upper())
        ax.set_ylabel("ms")
        ax.set_title(f"{name}: C1, at each Data answering a first transmission", fontsize=9)
        ax.legend(fontsize=8)
    axes[-1, 0].set_xlabel("time [s]")
    fig.tight_layout()
    plots.write_png(path, fig)


@register("e3", "AIMD and Reno-like consumers on a lossy dumbbell (seed 002, Mini-NDN)")
def reproduce(folder: Path, quick: bool, progress: Progress) -> list[dict]:
    rows, results = run_variants(folder, VARIANTS, progress, QUICK if quick else ())
    _window_figure(results, folder / "window.png")
    _rtt_figure(results, ["aimd", "reno-hole"], folder / "rtt_rto.png")
    notes = "\n".join(f"- `{v.name}`: {v.note}" for v in VARIANTS)
    output.write_text(folder / "variants.md", f"# E3 variants\n\n{notes}\n")
    return rows


__all__ = ["VARIANTS", "reproduce", "pl"]
