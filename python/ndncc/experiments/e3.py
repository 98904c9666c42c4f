"""E3 — AIMD and Reno-like consumers on a lossy dumbbell (seed 002, Mini-NDN report).

Runs ``scenarios/e3.toml`` with the seed's two consumers, the three improvement ideas the report
proposes, and the assumptions the seed leaves open (bottleneck queue size, which direction the
1% loss applies to, what a detected hole does)."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from .. import output, plots  # noqa: E402
from . import Progress, register  # noqa: E402
from ._variants import Variant, events, mean_of, num, row, run_variants, summary_value  # noqa: E402

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
    Variant(
        "arrival-rate",
        SCENARIO,
        _both('{type="arrival-rate"}'),
        {},
        "idea 3: window from the Data arrival rate",
    ),
    Variant("aimd-queue50", SCENARIO, ("links.R1-R2.queue.packets=50",), AIMD, "bottleneck queue 50 packets"),
    Variant(
        "aimd-queue1000",
        SCENARIO,
        ("links.R1-R2.queue.packets=1000",),
        AIMD,
        "bottleneck queue 1,000 packets",
    ),
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


def _derived(res, v: Variant) -> list[dict]:
    # Seed 002's loss rate: retransmitted Interests / Data received.
    return [row(v.name, f, "loss_rate", summary_value(res, f, "retx_per_data"), "ratio") for f in FLOWS]


HEADLINE = ("download_time_s", "throughput_kbps", "loss_rate", "timeouts", "retransmissions")


@register(
    "e3",
    "AIMD and Reno-like consumers on a lossy dumbbell (seed 002, Mini-NDN)",
    headline=HEADLINE,
    flows=FLOWS,
)
def reproduce(folder: Path, quick: bool, progress: Progress) -> list[dict]:
    rows, results = run_variants(folder, VARIANTS, progress, QUICK if quick else (), extra=_derived)
    _window_figure(results, folder / "window.png")
    _rtt_figure(results, ["aimd", "reno-hole"], folder / "rtt_rto.png")
    output.write_text(folder / "notes.md", notes(rows))
    return rows


def notes(rows: list[dict]) -> str:
    """The discussion on the report page, with this run's numbers."""

    def m(variant: str, metric: str) -> Optional[float]:
        return mean_of(rows, variant, FLOWS, metric)

    a_kbps, r_kbps = m("aimd", "throughput_kbps"), m("reno-hole", "throughput_kbps")
    lines = [
        "Set-up: `scenarios/e3.toml`. Numbers below are the mean of C1 and C2. Assumptions the seed "
        "leaves open: bottleneck queue 100 packets (50 and 1,000 also shown), Data header 64 B, the "
        "1% loss applied in each direction (what Mininet's TCLink configures), ndncatchunks-style "
        "consumer timers (k = 8, RTO 200 ms to 60 s, one RTO doubling per timer check).",
        "",
        f"- **aimd**: {num(m('aimd', 'download_time_s'))} s, {num(a_kbps)} kbit/s, loss rate "
        f"{num(m('aimd', 'loss_rate'))} (seed: 52 s, 1,605 kbit/s, 0.021). The loss rate matches; "
        "throughput is lower. With 1% loss each way a segment is lost with p ≈ 2%, and a Tahoe-like "
        "window under random loss p carries about 1.22/√p segments per RTT — at a 60–70 ms RTT about "
        "1.1 Mbit/s, where we are. The seed's 1,605 kbit/s sits above that bound at its own 2.1% loss.",
        f"- **aimd-loss-on-data-only** (loss on the Data direction only): {num(m('aimd-loss-on-data-only', 'throughput_kbps'))} "
        f"kbit/s and {num(m('aimd-loss-on-data-only', 'download_time_s'))} s — close to the seed's "
        f"throughput and download time — but a loss rate of {num(m('aimd-loss-on-data-only', 'loss_rate'))}, "
        "half the seed's. The seed's pair of numbers fits neither reading exactly; a consumer that "
        "also retransmitted spuriously (short timers) with loss on one direction would fit both.",
        f"- **reno-hole** (ALGORITHMS.md A2: a hole is retransmitted at once and halves the window): "
        f"{num(r_kbps)} kbit/s, {'above' if (r_kbps or 0) > (a_kbps or 0) else 'below'} aimd's — "
        "Reno-style fast recovery replaces Tahoe's return to window 1, the textbook result. The seed "
        "saw reno below aimd (1,347 vs 1,605 kbit/s).",
        f"- **reno-hole-signal-only** (a hole halves the window but the segment waits for its timer, "
        f"so one loss costs a halving and a timeout): {num(m('reno-hole-signal-only', 'throughput_kbps'))} "
        "kbit/s, below aimd as the seed saw; this is our best reading of the seed's implementation.",
        f"- Idea 1 (**aimd-ss-interest-over-data**): {num(m('aimd-ss-interest-over-data', 'throughput_kbps'))} "
        "kbit/s. As the seed states it (grow by Interest size / Data size ≈ 0.04 per Data), slow "
        "start becomes slower than congestion avoidance; the downloads do not finish in the run.",
        f"- Idea 2 (**reno-hole-k5**, react to every 5th hole): {num(m('reno-hole-k5', 'throughput_kbps'))} "
        "kbit/s, the best of all variants: random loss stops cutting the window.",
        f"- Idea 3 (**arrival-rate**): {num(m('arrival-rate', 'throughput_kbps'))} kbit/s.",
        f"- Queue size barely matters here (aimd: {num(m('aimd-queue50', 'throughput_kbps'))}, "
        f"{num(a_kbps)}, {num(m('aimd-queue1000', 'throughput_kbps'))} kbit/s for 50, 100, 1,000 "
        "packets): random loss, not queue overflow, limits these windows.",
        "",
        "Variants:",
        "",
        *[f"- `{v.name}`: {v.note}" for v in VARIANTS],
    ]
    return "\n".join(lines) + "\n"
