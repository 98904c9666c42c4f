"""Figures computed from a run's series and summary: throughput over time in kbit/s, empirical
CDFs per flow, Jain's fairness index, flow completion times, and the convergence time after a
flow joins. ``docs/metrics.md`` defines each of them, and every metric the engine records.

Every function takes plain tables, so it works the same on a :class:`ndncc.Result`, a run read
back with :func:`ndncc.open_run`, or a run folder's files: ``series`` is the long table of
:meth:`Result.series` (``t`` [s], ``entity``, ``metric``, ``value``) and ``summary`` the run's
summary as a DataFrame (``entity`` or ``flow``, ``metric``, ``value``) or as ``summary.json``
rows.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Any, Iterable, Mapping, Optional, Sequence, Union

import numpy as np
import polars as pl

from .errors import BadInput

Summary = Union[pl.DataFrame, Sequence[Mapping[str, Any]], None]

LONG_SCHEMA = {"t": pl.Float64, "entity": pl.String, "metric": pl.String, "value": pl.Float64}

#: Default throughput bins: at least this many bins' worth of resolution over the run …
TARGET_BINS = 100
#: … but never fewer mean RTTs per bin than this: a window-limited flow delivers its packets in
#: bursts one RTT apart, so a bin holds a whole number of bursts give or take one, and its rate
#: is off by up to 1/(RTTs per bin): 5% at 20.
MIN_RTTS_PER_BIN = 20
#: … nor fewer packets per bin, on average per flow, than this (one packet more or less in a
#: bin is then at most a 1% error).
MIN_PACKETS_PER_BIN = 100
#: … and never so wide that the run has fewer bins than this.
MIN_BINS = 10

#: Cumulative byte counters per kind of flow, tried in order: TCP senders, multicast receivers.
BYTE_COUNTERS = ("bytes_acked", "bytes_received")


def summary_frame(summary: Summary) -> pl.DataFrame:
    """The summary as ``entity``, ``metric``, ``value`` (``unit`` too when given)."""
    schema = {"entity": pl.String, "metric": pl.String, "value": pl.Float64}
    if summary is None:
        return pl.DataFrame(schema=schema)
    if isinstance(summary, pl.DataFrame):
        frame = summary.rename({"flow": "entity"}) if "flow" in summary.columns else summary
    else:
        rows = [
            {"entity": r.get("entity", r.get("flow")), "metric": r["metric"], "value": r["value"]}
            for r in summary
        ]
        frame = pl.DataFrame(rows, schema=schema)
    return frame.select("entity", "metric", pl.col("value").cast(pl.Float64))


def _value(summary: pl.DataFrame, entity: str, metric: str) -> Optional[float]:
    hit = summary.filter((pl.col("entity") == entity) & (pl.col("metric") == metric))["value"]
    return None if hit.is_empty() or hit[0] is None else float(hit[0])


def flow_bytes(series: pl.DataFrame, summary: Summary = None) -> pl.DataFrame:
    """Cumulative payload bytes delivered per flow over time (long table, value in bytes).

    Consumers count Data (``data_received``), turned into bytes with their payload per Data
    from the summary (``payload_bytes`` / ``data_received``); consumers the summary does not
    cover are left out (:func:`data_rate` gives their Data per second). TCP senders count
    acknowledged bytes (``bytes_acked``), multicast receivers received bytes
    (``bytes_received``): the same quantities the summary's ``throughput_kbps`` is computed from.
    """
    s = summary_frame(summary)
    parts = []
    byte_entities: set[str] = set()
    for metric in BYTE_COUNTERS:
        rows = series.filter((pl.col("metric") == metric) & ~pl.col("entity").is_in(list(byte_entities)))
        byte_entities |= set(rows["entity"].unique().to_list())
        parts.append(rows)
    data = series.filter((pl.col("metric") == "data_received") & ~pl.col("entity").is_in(list(byte_entities)))
    for entity in sorted(data["entity"].unique().to_list()):
        payload, count = _value(s, entity, "payload_bytes"), _value(s, entity, "data_received")
        if payload is None or count is None:
            continue
        # A consumer that received nothing has a counter of zeros: any payload gives 0 bytes.
        per_data = payload / count if count else 0.0
        parts.append(data.filter(pl.col("entity") == entity).with_columns(pl.col("value") * per_data))
    frame = (
        pl.concat([p.select(list(LONG_SCHEMA)).cast(LONG_SCHEMA) for p in parts])
        if parts
        else pl.DataFrame(schema=LONG_SCHEMA)
    )
    return frame.with_columns(metric=pl.lit("payload_bytes")).sort(["entity", "t"])


def sample_step(counters: pl.DataFrame) -> float:
    """The recording interval of a long table of samples [s] (the largest per-entity median gap)."""
    step = counters.group_by("entity").agg(pl.col("t").sort().diff().median())["t"].max()
    return round(float(step or 0.0), 9)


def default_bin_s(counters: pl.DataFrame, summary: Summary = None) -> float:
    """A throughput bin width that does not alias against the flows [s].

    The widest of: the run cut into ``TARGET_BINS``; ``MIN_RTTS_PER_BIN`` times the largest mean
    RTT in the summary (``mean_rtt_ms``); the time the flows take on average to deliver
    ``MIN_PACKETS_PER_BIN`` packets (from the summary's ``data_received`` or
    ``segments_sent``). Rounded up to a whole number of recording intervals (a bin's edges are
    samples of the counters) and capped so the run keeps ``MIN_BINS`` bins.
    """
    if counters.is_empty():
        return 1.0
    t_end = float(counters["t"].max())
    step = sample_step(counters) or t_end / TARGET_BINS or 1.0
    s = summary_frame(summary)
    flows = counters["entity"].unique().to_list()
    want = t_end / TARGET_BINS
    rtts = s.filter(pl.col("entity").is_in(flows) & (pl.col("metric") == "mean_rtt_ms"))["value"].drop_nulls()
    if len(rtts):
        want = max(want, MIN_RTTS_PER_BIN * float(rtts.max()) / 1e3)
    packets = s.filter(
        pl.col("entity").is_in(flows) & pl.col("metric").is_in(["data_received", "segments_sent"])
    )
    if packets.height and t_end > 0 and float(packets["value"].sum()) > 0:
        per_flow_rate = float(packets["value"].sum()) / packets.height / t_end
        want = max(want, MIN_PACKETS_PER_BIN / per_flow_rate)
    want = min(want, t_end / MIN_BINS)
    # Times are whole nanoseconds: so is the bin (no 0.9999999 s from summing float steps).
    return round(max(1, math.ceil(want / step - 1e-9)) * step, 9)


def throughput(series: pl.DataFrame, summary: Summary = None, bin_s: Optional[float] = None) -> pl.DataFrame:
    """Throughput per flow in kbit/s (the summary's ``throughput_kbps`` unit), in bins of
    ``bin_s`` seconds (default: :func:`default_bin_s`).

    A bin's value is the rise of the flow's cumulative payload bytes (:func:`flow_bytes`) across
    the bin, times 8, over the bin's width; ``t`` is the end of the bin. Only whole bins within
    the recording are given. ``series`` may also hold byte counters already (``metric`` =
    ``payload_bytes``).
    """
    counters = series.filter(pl.col("metric") == "payload_bytes")
    if counters.is_empty():
        counters = flow_bytes(series, summary)
    if bin_s is None and not counters.is_empty():
        bin_s = default_bin_s(counters, summary)
    return _binned_rate(counters, bin_s, 8.0 / 1e3, "throughput_kbps")


def link_capacity(faces: pl.DataFrame) -> pl.DataFrame:
    """Capacity and throughput of every face whose link changes (a delivery trace, a rate
    series, ``[[events]]``), in Mbit/s per recording interval: ``metric`` is ``"capacity"`` (the
    face's ``capacity`` series: what the link offered over the interval ending at ``t``) or
    ``"throughput"`` (the rise of its ``bytes_sent`` over that interval × 8 / its width). The
    first sample, at 0, covers no time and is left out."""
    cap = faces.filter(pl.col("metric") == "capacity")
    if cap.is_empty():
        return pl.DataFrame(schema=LONG_SCHEMA)
    changing = cap["entity"].unique().to_list()
    sent = (
        faces.filter((pl.col("metric") == "bytes_sent") & pl.col("entity").is_in(changing))
        .sort("entity", "t")
        .with_columns(
            value=(pl.col("value").diff().over("entity") * 8.0 / pl.col("t").diff().over("entity") / 1e6),
            metric=pl.lit("throughput"),
        )
    )
    capacity = cap.with_columns(value=pl.col("value") / 1e6)
    out = pl.concat([capacity.select(list(LONG_SCHEMA)), sent.select(list(LONG_SCHEMA))])
    return out.filter(pl.col("t") > 0).drop_nulls("value").sort("entity", "metric", "t")


def data_rate(series: pl.DataFrame, bin_s: Optional[float] = None) -> pl.DataFrame:
    """Data packets received per second per consumer, in bins (metric ``data_packets_per_s``):
    the fallback of :func:`throughput` when the payload size is unknown."""
    counters = series.filter(pl.col("metric") == "data_received")
    if bin_s is None and not counters.is_empty():
        bin_s = default_bin_s(counters)
    return _binned_rate(counters, bin_s, 1.0, "data_packets_per_s")


def _binned_rate(counters: pl.DataFrame, bin_s: Optional[float], scale: float, metric: str) -> pl.DataFrame:
    """Per entity, the rise of a cumulative counter across each whole bin × ``scale`` / width."""
    empty = pl.DataFrame(schema=LONG_SCHEMA)
    if counters.is_empty():
        return empty
    if not (isinstance(bin_s, (int, float)) and math.isfinite(bin_s) and bin_s > 0):
        raise BadInput(f"bin_s: expected a positive number of seconds, not {bin_s!r}")
    t_end = float(counters["t"].max())
    n = int(math.floor(t_end / bin_s + 1e-9))
    if n < 1:
        return empty
    edges = np.arange(n + 1) * bin_s
    parts = []
    for entity in sorted(counters["entity"].unique().to_list()):
        rows = counters.filter(pl.col("entity") == entity).sort("t")
        t, level = rows["t"].to_numpy(), rows["value"].to_numpy()
        # The counter at each edge: its last sample at or before the edge (0 before the first).
        at = np.searchsorted(t, edges + 1e-9, side="right") - 1
        at_edge = np.where(at >= 0, level[np.clip(at, 0, None)], 0.0)
        rate = np.diff(at_edge) * scale / bin_s
        parts.append(
            pl.DataFrame(
                {"t": edges[1:], "entity": entity, "metric": metric, "value": rate}, schema=LONG_SCHEMA
            )
        )
    return pl.concat(parts)


def bin_width(frame: pl.DataFrame) -> Optional[float]:
    """The bin width of a table made by :func:`throughput` [s]."""
    ts = np.unique(frame["t"].to_numpy())
    return float(ts[0]) if len(ts) else None


def cdf(frame: pl.DataFrame, by: str = "entity", value: str = "value") -> pl.DataFrame:
    """The empirical CDF of ``value`` per group of ``by``: each distinct value with ``p``, the
    fraction of the group's samples at or below it. Nulls and NaNs are left out."""
    clean = frame.filter(pl.col(value).is_not_null() & pl.col(value).is_finite())
    out = (
        clean.group_by(by, value)
        .agg(count=pl.len())
        .sort([by, value])
        .with_columns(p=pl.col("count").cum_sum().over(by) / pl.col("count").sum().over(by))
    )
    return out.select(pl.col(by), pl.col(value).alias("value"), pl.col("p").cast(pl.Float64))


def rtt_cdf(series: pl.DataFrame) -> pl.DataFrame:
    """The CDF of the RTT samples per flow, in ms (needs ``[record] events = true``)."""
    rtt = series.filter(pl.col("metric") == "rtt").with_columns(pl.col("value") * 1e3)
    return cdf(rtt)


def jain_index(values: Iterable[float]) -> Optional[float]:
    """Jain's fairness index (Σx)² / (n·Σx²): 1 when all values are equal, 1/n when one has
    everything; ``None`` for fewer than two values or a zero total."""
    xs = np.asarray([float(v) for v in values], dtype=float)
    if len(xs) < 2 or xs.sum() <= 0:
        return None
    return float(xs.sum() ** 2 / (len(xs) * (xs**2).sum()))


def flow_completion_times(summary: Summary) -> pl.DataFrame:
    """Per finite flow (a consumer with a file, a TCP sender with a byte count): ``fct_s``, the
    time from its start to its last byte (the summary's ``download_time_s``), null if it did not
    complete within the run."""
    s = summary_frame(summary)
    finite = s.filter(pl.col("metric") == "completed").select("entity", completed=pl.col("value"))
    fct = s.filter(pl.col("metric") == "download_time_s").select("entity", fct_s=pl.col("value"))
    return (
        finite.join(fct, on="entity", how="left")
        .select("entity", pl.col("completed") > 0, "fct_s")
        .sort("entity")
    )


_DURATION = re.compile(r"(\d+(?:\.\d+)?)(ns|us|ms|s)")
_SECONDS = {"ns": 1e-9, "us": 1e-6, "ms": 1e-3, "s": 1.0}


def duration_s(text: str) -> float:
    """A resolved scenario's duration (``"0s"``, ``"250ms"``, ``"10us"``) in seconds."""
    m = _DURATION.fullmatch(text.strip())
    if not m:
        raise BadInput(f"expected a duration such as '2s' or '250ms', not {text!r}")
    return float(m.group(1)) * _SECONDS[m.group(2)]


@dataclass(frozen=True)
class FlowSpan:
    """When a flow takes part: from ``start_s`` to ``end_s`` (``None``: until the run ends)."""

    start_s: float
    end_s: Optional[float] = None


def flow_spans(scenario: Mapping[str, Any], summary: Summary = None) -> dict[str, FlowSpan]:
    """The span of every consumer and TCP sender of a resolved scenario (``Scenario.to_dict()``
    or a manifest's ``scenario``): its ``start``; its end is its ``stop``, or its completion
    (start + ``download_time_s``) when the summary has it."""
    s = summary_frame(summary)
    spans = {}
    for name, app in (scenario.get("apps") or {}).items():
        if app.get("type") not in ("consumer", "tcp"):
            continue
        start = duration_s(app.get("start", "0s"))
        end = duration_s(app["stop"]) if app.get("stop") else None
        done = _value(s, name, "download_time_s")
        if done is not None:
            end = start + done if end is None else min(end, start + done)
        spans[name] = FlowSpan(start, end)
    return spans


#: Default settings of :func:`convergence_times`.
CONVERGENCE_TOLERANCE = 0.1
CONVERGENCE_HOLD_BINS = 5


def convergence_times(
    tput: pl.DataFrame,
    spans: Mapping[str, FlowSpan],
    tolerance: float = CONVERGENCE_TOLERANCE,
    hold_s: Optional[float] = None,
) -> pl.DataFrame:
    """How long after each flow joins the flows take to share fairly.

    A flow *joins* when it starts while another flow is active. The flows share fairly in a bin
    when every flow active over the whole bin (``spans``) gets within ±``tolerance`` of the fair
    share, the mean throughput of those flows; the newcomer must be among them and at least two
    flows active. The convergence time is from the join to the start of the first bin that
    begins a run of fair bins lasting ``hold_s`` (default ``CONVERGENCE_HOLD_BINS`` bins), all
    before the next join; null if the flows never get there.

    ``tput`` is a table from :func:`throughput` (uniform bins). Returns ``flow``, ``join_s``,
    ``convergence_s``.
    """
    if not (0 < tolerance < 1):
        raise BadInput(f"tolerance: expected a fraction between 0 and 1, not {tolerance!r}")
    schema = {"flow": pl.String, "join_s": pl.Float64, "convergence_s": pl.Float64}
    width = bin_width(tput)
    if width is None:
        return pl.DataFrame(schema=schema)
    if hold_s is not None and not (isinstance(hold_s, (int, float)) and hold_s > 0):
        raise BadInput(f"hold_s: expected a positive number of seconds, not {hold_s!r}")
    hold = CONVERGENCE_HOLD_BINS if hold_s is None else max(1, math.ceil(hold_s / width - 1e-9))
    ends = np.unique(tput["t"].to_numpy())
    rates = {
        e: dict(zip(g["t"].to_list(), g["value"].to_list()))
        for (e,), g in tput.filter(pl.col("entity").is_in(list(spans))).group_by("entity")
    }
    starts = sorted(spans.items(), key=lambda kv: (kv[1].start_s, kv[0]))

    def active(t_end: float) -> list[str]:
        t0 = t_end - width
        return [
            f
            for f, sp in spans.items()
            if f in rates and sp.start_s <= t0 + 1e-9 and (sp.end_s is None or sp.end_s >= t_end - 1e-9)
        ]

    def fair(t_end: float, newcomer: str) -> bool:
        flows = active(t_end)
        if newcomer not in flows or len(flows) < 2:
            return False
        xs = [rates[f].get(t_end, 0.0) for f in flows]
        share = sum(xs) / len(xs)
        return share > 0 and all(abs(x - share) <= tolerance * share for x in xs)

    rows = []
    for i, (flow, span) in enumerate(starts):
        others_active = any(
            o != flow and sp.start_s <= span.start_s and (sp.end_s is None or sp.end_s > span.start_s)
            for o, sp in spans.items()
        )
        if not others_active:
            continue
        later = [sp.start_s for _, sp in starts[i + 1 :] if sp.start_s > span.start_s]
        limit = min(later) if later else math.inf
        candidates = [t for t in ends if t - width >= span.start_s - 1e-9 and t <= limit + 1e-9]
        ok = [fair(t, flow) for t in candidates]
        found = next((k for k in range(len(ok) - hold + 1) if all(ok[k : k + hold])), None)
        conv = None if found is None else float(candidates[found] - width - span.start_s)
        rows.append({"flow": flow, "join_s": span.start_s, "convergence_s": conv})
    return pl.DataFrame(rows, schema=schema)


def run_convergence_times(
    run: Any,
    tolerance: float = CONVERGENCE_TOLERANCE,
    hold_s: Optional[float] = None,
    bin_s: Optional[float] = None,
) -> pl.DataFrame:
    """:func:`convergence_times` of a :class:`ndncc.Result` or a run read back with
    :func:`ndncc.open_run`: its throughput in ``bin_s`` bins, its flows' spans from its scenario."""
    scenario = run.scenario.to_dict() if hasattr(run, "scenario") else run.manifest["scenario"]
    tput = throughput(run.series(), run.summary, bin_s)
    return convergence_times(tput, flow_spans(scenario, run.summary), tolerance, hold_s)


#: Summary metrics whose name does not read as words once its unit suffix is dropped.
METRIC_WORDS = {
    "throughput_kbps": "throughput",
    "mean_rtt_ms": "mean RTT",
    "rtt_p50_ms": "median RTT",
    "rtt_p95_ms": "95th-percentile RTT",
    "rtt_p99_ms": "99th-percentile RTT",
    "sojourn_mean_ms": "mean queue sojourn time",
    "sojourn_p50_ms": "median queue sojourn time",
    "sojourn_p95_ms": "95th-percentile queue sojourn time",
    "sojourn_p99_ms": "99th-percentile queue sojourn time",
    "jain_index": "Jain's fairness index",
    "jain_flows": "flows in Jain's index",
    "download_time_s": "download time",
    "retx_per_data": "retransmissions per Data",
    "retx_per_segment": "retransmissions per segment",
    "unanswered_rate": "unanswered Interests",
    "late_data": "late Data",
    "max_queue_packets": "largest queue",
    "utilisation": "link utilisation",
    "capacity_mean": "mean link capacity",
    "drops_link_down": "drops while the link was down",
    "conservation_ok": "Interest conservation holds",
    "packet_hops": "packet hops",
    "sim_seconds": "simulated time",
    "send_rate_kbps": "sending rate",
    "final_rate_kbps": "final rate",
    "mean_delay_ms": "mean one-way delay",
    "cs_hits": "Content Store hits",
    "ip_unroutable": "unroutable IP packets",
    "mcast_unroutable": "unroutable multicast packets",
    "link_timeout_s": "link-loss timeout",
}

_UNIT_SUFFIX = re.compile(r"_(s|ms|kbps|bps)$")


def metric_words(metric: str) -> str:
    """A metric's name in words: ``throughput_kbps`` → "throughput", ``drops_queue`` → "drops queue"."""
    return METRIC_WORDS.get(metric) or _UNIT_SUFFIX.sub("", metric).replace("_", " ")


def metric_label(metric: str, unit: Optional[str]) -> str:
    """An axis label: the metric in words, its unit in brackets ("throughput [kbit/s]")."""
    words = metric_words(metric)
    return f"{words} [{unit}]" if unit else words


#: The unit of each time series (docs/metrics.md, "Time series" and "Face series"), by metric;
#: a metric whose unit depends on the kind of app that records it has one entry per kind.
SERIES_UNITS: dict[str, Any] = {
    "window": "Interests",
    "ssthresh": {"consumer": "Interests", "tcp": "bytes"},
    "rate": "Interests/s",
    "in_flight": "Interests",
    "interests_sent": "packets",
    "data_received": "packets",
    "retransmissions": "packets",
    "timeouts": "events",
    "nacks": "packets",
    "marks": "packets",
    "spurious_retransmissions": "packets",
    "srtt": "s",
    "rto_now": "s",
    "rtt": "s",
    "rto": "s",
    "timeout": "segment",
    "nack": "segment",
    "mark": "segment",
    "hole": "segment",
    "policed": "segment",
    "window_decrease": "Interests",
    "backlog": "objects",
    "request_time": "s",
    "cwnd": "bytes",
    "bytes_acked": "bytes",
    "bytes_delivered": "bytes",
    "datagrams_received": "packets",
    "rate_bps": "bit/s",
    "packets_sent": "packets",
    "feedback_packets": "packets",
    "bytes_received": "bytes",
    "w_max": {"consumer": "Interests", "tcp": "segments"},
    "cubic_k": "s",
    "raaqm_decreases": "count",
    "raaqm_paths": "paths",
    "fair_rate_bps": "bit/s",
    "o_min": "ratio",
    "o_max": "ratio",
    "r_max_ms": "ms",
    "x_supp_bps": "bit/s",
    "slowstart": "bool",
    "feedback_rounds": "count",
    "fresh_reports": "count",
    "ecn_messages": "count",
    "mcc_sent_upstream": "count",
    "mcc_absorbed": "count",
    "ecn_sent": "count",
    "queue_packets": "packets",
    "queue_bytes": "bytes",
    "bytes_sent": "bytes",
    "drops": "packets",
    "shaper_len": "Interests",
    "capacity": "bit/s",
    "utilisation": "ratio",
    "frames_lost": "count",
    "spurious_losses": "count",
    "acks_sent": "count",
    "ack_frames_sent": "count",
    "nacks_sent": "count",
    "link_timeout_s": "s",
    "fw_share": "ratio",
    "fw_perc": "ratio",
    "limit_rejected": "count",
    "limit_level": "Interests",
    "shaping_rate_bps": "bit/s",
    "shaper_queue": "Interests",
    "shaper_rejected": "count",
    "mircc_rate": "Interests/s",
    "mircc_y": "Interests/s",
    "mircc_n": "flows",
    "mircc_q": "Interests",
    "mircc_d": "s",
    "mircc_beta": "ratio",
    "qocc_av": "ratio",
    "flows": "flows",
}


def series_unit(metric: str, kinds: Iterable[str] = ()) -> Optional[str]:
    """The unit of the time series ``metric`` as recorded by entities of ``kinds`` (``consumer``,
    ``tcp``, ``face``, …); ``None`` if unknown, or if those kinds record it in different units."""
    unit = SERIES_UNITS.get(metric)
    if not isinstance(unit, dict):
        return unit
    found = {unit[k] for k in kinds if k in unit}
    return found.pop() if len(found) == 1 else None


#: Every summary metric a run may report (docs/metrics.md, "Summary metrics"): a sweep's table
#: can hold only these, so a name outside them is refused before any run starts.
SUMMARY_METRICS = frozenset(
    {
        *("interests_sent", "retransmissions", "data_received", "late_data", "timeouts", "nacks"),
        *("marks", "lost_segments", "policed", "spurious_retransmissions", "payload_bytes"),
        *("download_time_s", "completed", "throughput_kbps", "retx_per_data", "unanswered_rate"),
        *("mean_rtt_ms", "rtt_p50_ms", "rtt_p95_ms", "rtt_p99_ms", "requests", "requests_joined"),
        *("requests_refused", "requests_completed", "requests_failed", "requests_waiting"),
        *("objects_fetched", "mean_request_time_s", "bytes_acked", "segments_sent"),
        *("fast_retransmits", "ecn_reductions", "srtt_ms", "retx_per_segment", "bytes_delivered"),
        *("segments_received", "acks_sent", "datagrams_sent", "send_rate_kbps"),
        *("datagrams_received", "loss_rate", "mean_delay_ms", "packets_sent", "feedback_packets"),
        *("final_rate_kbps", "feedback_sent", "rtt_estimate_ms", "interests_received", "data_sent"),
        *("bytes_sent", "ip_bytes_sent", "mcast_bytes_sent", "drops_queue", "drops_aqm"),
        *("drops_shaper", "drops_loss", "drops_underlay", "max_queue_packets", "utilisation"),
        *("drops_link_down", "capacity_mean"),
        *("sojourn_mean_ms", "sojourn_p50_ms", "sojourn_p95_ms", "sojourn_p99_ms", "jain_index"),
        *("jain_flows", "frames_lost", "spurious_losses", "ack_frames_sent", "nacks_sent"),
        *("link_timeout_s", "cs_hits", "aggregated", "duplicates", "no_route", "unsolicited_data"),
        *("pit_expired", "ip_unroutable", "mcast_unroutable", "share", "events", "packet_hops"),
        *("sim_seconds", "conservation_ok", "events_recorded_until_s"),
        *("in_flight_limit", "in_flight_limit_reached_s"),
        *("connections", "interests_in", "data_in", "nacks_in", "interests_out", "data_out"),
        *("nacks_out", "bytes_in", "bytes_out", "orphaned", "lag_p50_ms", "lag_p99_ms", "lag_max_ms"),
    }
)


def check_summary_metrics(names: Optional[Iterable[str]], what: str = "metric") -> None:
    """Refuse a name that no run reports as a summary metric, with the closest ones it may have
    meant (:class:`BadInput`)."""
    import difflib

    for name in names or ():
        if name not in SUMMARY_METRICS:
            close = difflib.get_close_matches(name, sorted(SUMMARY_METRICS), n=3, cutoff=0.5)
            hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
            raise BadInput(
                f"{what} {name!r}: no run reports a summary metric of that name{hint} "
                "(the list: docs/metrics.md, 'Summary metrics')"
            )
