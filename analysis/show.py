"""Table formatting for the notebooks: counts with thousands separators, rates as percentages."""

from __future__ import annotations

import pandas as pd

_PERCENT_NAMES = {"rate", "lo", "hi", "win", "draw", "loss", "share"}


def _is_percent(name: str) -> bool:
    name = str(name)
    if "komi" in name or "points" in name or name == "virtual_rate":
        return False
    return (name in _PERCENT_NAMES or "rate" in name or "share" in name
            or name.endswith(" lo") or name.endswith(" hi") or name.startswith("black score"))


def table(df: pd.DataFrame, percent=None, caption: str | None = None, max_rows: int = 60,
          digits: int = 2):
    """A pandas Styler: integers with separators (not ids), floats with ``digits`` decimals, rate-like
    columns (``percent``; default: names such as rate, lo, hi, share) as percentages; at most
    ``max_rows`` rows (a caption says when rows were left out); no index."""
    shown = df.head(max_rows)
    if len(df) > max_rows:
        more = f"first {max_rows} of {len(df):,} rows"
        caption = f"{caption} ({more})" if caption else more
    pct = [c for c in shown.columns if _is_percent(c)] if percent is None else list(percent)
    fmt = {}
    for c in shown.columns:
        if c in pct:
            fmt[c] = "{:.%d%%}" % digits
        elif str(c).endswith("_id") or c == "seed":
            fmt[c] = "{}"
        elif pd.api.types.is_integer_dtype(shown[c].dtype):
            fmt[c] = "{:,}"
        elif pd.api.types.is_float_dtype(shown[c].dtype):
            fmt[c] = "{:,.%df}" % digits
    styler = shown.style.format(fmt, na_rep="–").hide(axis="index")
    styler = styler.set_table_styles([{"selector": "th", "props": "text-align: left;"}])
    if caption:
        styler = styler.set_caption(caption)
    return styler
