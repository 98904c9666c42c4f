"""E1 — MIRCC under coarse-grained clocks, and Interest-sending smoothing (seed 000, Kato et al.).

Runs ``scenarios/e1.toml`` for the seed's four clock ticks, without and with smoothing, then
sensitivity variants for the one constant the seed leaves illegible (MIRCC's beta) and the
stateful-forwarding Interest-limiting baseline on the same dumbbell."""

from __future__ import annotations

from pathlib import Path
from typing import Optional

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import polars as pl  # noqa: E402

from .. import Result, plots  # noqa: E402
from . import Progress, register  # noqa: E402
from ._variants import Variant, row, run_variants, summary_value  # noqa: E402

SCENARIO = "e1.toml"
FLOWS = ("C1", "C2")
CLOCKED = ("C1", "C2", "R1", "R2")
TICKS_MS = (100, 250, 500, 750)
BIN_S = 0.1

#: Tables IV and V of the seed: overall loss rate per flow.
PAPER_LOSS = {
    (100, False): (0.017, 0.036),
    (250, False): (0.103, 0.239),
    (500, False): (0.552, 0.576),
    (750, False): (0.704, 0.712),
    (100, True): (0.009, 0.034),
    (250, True): (0.062, 0.145),
    (500, True): (0.156, 0.308),
    (750, True): (0.209, 0.399),
}


def _tick(ms: int) -> tuple[str, ...]:
    out: list[str] = []
    for n in CLOCKED:
        out += [f"nodes.{n}.clock_tick={ms}ms", f"nodes.{n}.modules.0.interval={ms}ms"]
    return tuple(out)


def _smoothing(on: bool) -> tuple[str, ...]:
    return tuple(f"apps.{c}.smoothing={'true' if on else 'false'}" for c in FLOWS)


def _name(ms: int, smoothing: bool) -> str:
    return f"tick={ms}ms,{'smoothing' if smoothing else 'original'}"


def _main_variants() -> list[Variant]:
    out = []
    for smoothing in (False, True):
        for ms in TICKS_MS:
            c1, c2 = PAPER_LOSS[(ms, smoothing)]
            out.append(
                Variant(
                    _name(ms, smoothing),
                    SCENARIO,
                    _tick(ms) + _smoothing(smoothing),
                    {("C1", "loss_rate"): c1, ("C2", "loss_rate"): c2},
                    f"MIRCC, {ms} ms clock tick, {'with' if smoothing else 'without'} smoothing",
                )
            )
    return out


def _beta(b: float) -> tuple[str, ...]:
    return tuple(f"nodes.{n}.modules.0.beta={b}" for n in CLOCKED) + tuple(
        f"nodes.{n}.modules.0.self_tune_beta=false" for n in CLOCKED
    )


SENSITIVITY = [
    Variant(f"tick=100ms,original,beta={b}", SCENARIO, _tick(100) + _beta(b), {}, f"MIRCC with a fixed beta = {b}")
    for b in (0.0, 0.25, 0.5, 1.0, 2.0)
]

_LIMIT = '[{type="interest-limit", mode="rate", depth=200.0, data_size="1250B", interest_size="0B"}]'
BASELINE = [
    Variant(
        f"tick={ms}ms,{'smoothing' if s else 'original'},interest-limit",
        SCENARIO,
        _tick(ms)
        + _smoothing(s)
        + tuple(f"nodes.{n}.modules={_LIMIT}" for n in ("R1", "R2"))
        + tuple(f'apps.{c}.rate={{type="aimd-rate"}}' for c in FLOWS),
        {},
        "stateful-forwarding Interest limiting with Congestion NACKs and AIMD-rate consumers",
    )
    for ms, s in ((100, False), (500, False), (500, True))
]

VARIANTS = _main_variants() + SENSITIVITY + BASELINE

QUICK = ("simulation.duration=4s", "apps.C1.stop=4s", "apps.C2.start=2s", "apps.C2.stop=3.5s")


def _rates(res: Result, flow: str) -> pl.DataFrame:
    """Interests sent and Data received per 100 ms bin, from the cumulative 100 ms samples."""
    s = res.series(metric=["interests_sent", "data_received"], entity=flow)
    wide = s.pivot(on="metric", index="t", values="value").sort("t")
    return wide.with_columns(
        (pl.col("interests_sent").diff().fill_null(0) / BIN_S).alias("rate_pps"),
        (pl.col("data_received").diff().fill_null(0) / BIN_S).alias("data_pps"),
    )


def _mean_rate(res: Result, flow: str, t0: float, t1: float) -> Optional[float]:
    s = res.series(metric="interests_sent", entity=flow).sort("t")
    at = {round(t, 6): v for t, v in zip(s["t"].to_list(), s["value"].to_list())}
    a, b = at.get(round(t0, 6)), at.get(round(t1, 6))
    return None if a is None or b is None else (b - a) / (t1 - t0)


def _derived(res: Result, v: Variant) -> list[dict]:
    out = []
    for f in FLOWS:
        # Seed 000's loss rate: 1 - Data received / Interests sent.
        out.append(row(v.name, f, "loss_rate", summary_value(res, f, "unanswered_rate"), "ratio"))
        out.append(row(v.name, f, "mean_rate_pps", _mean_rate(res, f, 4.0, 8.0), "Interests/s"))
    out.append(row(v.name, "C1", "mean_rate_alone_pps", _mean_rate(res, "C1", 1.5, 3.0), "Interests/s"))
    return out


def _figure(results: dict[str, Result], path: Path, loss: bool) -> None:
    fig, axes = plt.subplots(len(TICKS_MS), 2, figsize=(11, 2.2 * len(TICKS_MS)), sharex=True, squeeze=False)
    for i, ms in enumerate(TICKS_MS):
        for j, smoothing in enumerate((False, True)):
            name = _name(ms, smoothing)
            ax = axes[i, j]
            if name not in results:
                continue
            for f in FLOWS:
                r = _rates(results[name], f)
                if loss:
                    # Per-bin Data loss: Interests of the bin that brought no Data, 1 RTT later.
                    y = (1 - r["data_pps"].shift(-4) / r["rate_pps"]).clip(0, 1).fill_nan(None)
                else:
                    y = r["rate_pps"]
                ax.plot(r["t"].to_list(), y.to_list(), lw=0.8, label=f)
            ax.set_title(name, fontsize=9)
            ax.set_ylabel("loss rate" if loss else "Interests/s")
    for ax in axes[-1]:
        ax.set_xlabel("time [s]")
    axes[0, 0].legend(fontsize=8)
    fig.tight_layout()
    plots.write_png(path, fig)


HEADLINE = ("loss_rate", "mean_rate_pps", "mean_rate_alone_pps")


@register("e1", "MIRCC under coarse-grained clocks and Interest-sending smoothing (seed 000)", headline=HEADLINE, flows=FLOWS)
def reproduce(folder: Path, quick: bool, progress: Progress) -> list[dict]:
    rows, results = run_variants(folder, VARIANTS, progress, QUICK if quick else (), extra=_derived)
    _figure(results, folder / "sending_rate.png", loss=False)
    _figure(results, folder / "data_loss.png", loss=True)
    return rows
