"""Table formatting for the notebooks: counts with thousands separators, rates as percentages
(small ones with significant digits, so 0.0028% does not print as 0.00%), and an estimate with
its interval (columns ``X``/``lo``/``hi``) merged into one column ``X (95% CI)``."""

from __future__ import annotations

import numpy as np
import pandas as pd

_PERCENT_NAMES = {"rate", "lo", "hi", "win", "draw", "loss", "share", "score", "fitted score"}
NA = "–"


def _is_percent(name: str) -> bool:
    name = str(name)
    if "komi" in name or "points" in name or name == "virtual_rate":
        return False
    return (
        name in _PERCENT_NAMES
        or "rate" in name
        or "share" in name
        or name.endswith(" lo")
        or name.endswith(" hi")
        or name.startswith("black score")
    )


def significant(x: float, digits: int = 2) -> str:
    """``x`` with ``digits`` decimals, or ``digits`` significant digits when |x| < 1 (0.0028,
    not 0.00); exact zero is "0", NaN is "–"."""
    if x is None or x is pd.NA or not np.isfinite(x):
        return NA
    if x == 0:
        return "0"
    if abs(x) >= 1:
        return f"{x:,.{digits}f}"
    decimals = digits - 1 - int(np.floor(np.log10(abs(x))))
    if abs(round(x, decimals)) >= 10.0 ** (digits - decimals):  # rounded up a power of ten
        decimals -= 1
    return f"{x:.{max(decimals, digits)}f}"


def percent(share: float, digits: int = 2) -> str:
    """A share (0..1) as a percentage: ``significant(100 * share)`` followed by %."""
    text = significant(share * 100 if share is not None and share is not pd.NA else np.nan, digits)
    return text if text == NA else text + "%"


def intervals(columns) -> list[tuple[str, str, str]]:
    """(estimate, lo, hi) column triples: ``rate``/``lo``/``hi``, ``P rate``/``P lo``/``P hi``
    (e.g. ``not opposite ``) and ``X``/``X lo``/``X hi`` (e.g. ``fair komi``)."""
    names = [str(c) for c in columns]
    out = []
    for lo in names:
        if lo != "lo" and not lo.endswith(" lo"):
            continue
        base = lo[:-2]
        hi = base + "hi"
        estimate = base + "rate" if base + "rate" in names else base.rstrip()
        if hi in names and estimate in names:
            out.append((estimate, lo, hi))
    return out


def _merge_intervals(df: pd.DataFrame, pct: list, digits: int) -> tuple[pd.DataFrame, list]:
    """Replace each (estimate, lo, hi) triple by one text column ``estimate (95% CI)``."""
    df = df.copy()
    merged = []
    for est, lo, hi in intervals(df.columns):
        fmt = (lambda v: percent(v, digits)) if est in pct else (lambda v: significant(v, digits))
        unit = "%" if est in pct else ""
        # no-break space and word joiners: the cell never wraps inside the interval
        text = [
            f"{fmt(e)}\u00a0({fmt(a).removesuffix(unit)}\u2060–\u2060{fmt(b)})"
            if np.isfinite(e)
            else fmt(e)
            for e, a, b in zip(
                df[est].to_numpy(dtype=float),
                df[lo].to_numpy(dtype=float),
                df[hi].to_numpy(dtype=float),
            )
        ]
        name = f"{est} (95% CI)"
        df.insert(df.columns.get_loc(est), name, text)
        df = df.drop(columns=[est, lo, hi])
        merged.append(name)
    return df, merged


def table(
    df: pd.DataFrame,
    percent=None,
    caption: str | None = None,
    max_rows: int = 60,
    digits: int = 2,
    merge_intervals: bool = True,
):
    """A pandas Styler: integers with separators (not ids), floats with ``digits`` decimals
    (whole-valued columns without), rate-like columns (``percent``; default: names such as rate,
    lo, hi, share) as percentages (small ones with ``digits`` significant digits); an estimate
    and its interval (``intervals``) as one column ``X (95% CI)`` unless not
    ``merge_intervals``; at most ``max_rows`` rows (a caption says when rows were left out);
    no index."""
    shown = df.head(max_rows)
    if len(df) > max_rows:
        more = f"first {max_rows} of {len(df):,} rows"
        caption = f"{caption} ({more})" if caption else more
    pct = [c for c in shown.columns if _is_percent(c)] if percent is None else list(percent)
    merged = []
    if merge_intervals:
        shown, merged = _merge_intervals(shown, pct, digits)
    fmt = {}
    for c in shown.columns:
        if c in merged:
            continue
        if c in pct:
            fmt[c] = lambda v: _percent_cell(v, digits)
        elif str(c).endswith("_id") or c == "seed":
            fmt[c] = "{}"
        elif pd.api.types.is_integer_dtype(shown[c].dtype):
            fmt[c] = "{:,}"
        elif pd.api.types.is_float_dtype(shown[c].dtype):
            v = shown[c].to_numpy(dtype=float)
            whole = np.all(np.isnan(v) | (v == np.round(v)))
            fmt[c] = "{:,.0f}" if whole else f"{{:,.{digits}f}}"
    styler = shown.style.format(fmt, na_rep=NA).hide(axis="index")
    styler = styler.set_table_styles([{"selector": "th", "props": "text-align: left;"}])
    if caption:
        styler = styler.set_caption(caption)
    return styler


def _percent_cell(value, digits: int) -> str:
    try:
        return percent(float(value), digits)
    except (TypeError, ValueError):
        return str(value)
