"""Means and 95% confidence intervals over seeds (Student's t), as polars tables."""

from __future__ import annotations

from typing import Sequence

import polars as pl

#: Two-sided 95% quantiles of Student's t, t(0.975; df) for df = 1..30.
_T975 = (
    12.706205, 4.302653, 3.182446, 2.776445, 2.570582, 2.446912, 2.364624, 2.306004, 2.262157, 2.228139,
    2.200985, 2.178813, 2.160369, 2.144787, 2.131450, 2.119905, 2.109816, 2.100922, 2.093024, 2.085963,
    2.079614, 2.073873, 2.068658, 2.063899, 2.059539, 2.055529, 2.051831, 2.048407, 2.045230, 2.042272,
)  # fmt: skip
_Z975 = 1.959963984540054


def t975(df: int) -> float:
    """t(0.975; df): from the table up to 30 degrees of freedom, beyond it from the Cornish–Fisher
    expansion around the normal quantile (within 1e-7 of the exact value there)."""
    if df < 1:
        raise ValueError("a t quantile needs at least one degree of freedom")
    if df <= len(_T975):
        return _T975[df - 1]
    z = _Z975
    terms = (
        (z**3 + z) / 4,
        (5 * z**5 + 16 * z**3 + 3 * z) / 96,
        (3 * z**7 + 19 * z**5 + 17 * z**3 - 15 * z) / 384,
        (79 * z**9 + 776 * z**7 + 1482 * z**5 - 1920 * z**3 - 945 * z) / 92160,
    )
    return z + sum(c / df ** (k + 1) for k, c in enumerate(terms))


def aggregate(rows: pl.DataFrame, by: Sequence[str]) -> pl.DataFrame:
    """Per group of ``by``: ``n`` (finite values), ``mean``, ``std``, ``ci95`` (half-width) of
    ``value``. Groups keep the order of their first row. Undefined figures are null."""
    finite = pl.col("value").filter(pl.col("value").is_not_null() & pl.col("value").is_finite())
    table = rows.group_by(list(by), maintain_order=True).agg(
        n=finite.count().cast(pl.Int64), mean=finite.mean(), std=finite.std(ddof=1)
    )
    ns = sorted({n for n in table["n"].to_list() if n >= 2})
    t = pl.col("n").replace_strict(ns, [t975(n - 1) for n in ns], default=None, return_dtype=pl.Float64)
    return table.with_columns(ci95=t * pl.col("std") / pl.col("n").cast(pl.Float64).sqrt()).with_columns(
        pl.col(c).fill_nan(None) for c in ("mean", "std", "ci95")
    )
