"""CJK text in the report and in its figures on a machine without a CJK font.

The few CJK characters that the notebooks and the analysis write (``characters``: 计枰点 A版,
B版, 唐宋版 ...) are a subset of Droid Sans Fallback (Apache License 2.0, Debian's
fonts-droid-fallback; ``fonts/LICENSE``) in ``fonts/cjk-subset.ttf``, a few kilobytes: the
HTML report embeds it (``css``) and the figures draw with it (``use_in_figures``), after the
usual fonts, so only the glyphs they lack come from it.

A new CJK character in a notebook: ``python -m analysis.cjk FONT`` (FONT: the full
DroidSansFallbackFull.ttf, e.g. from ``apt-get download fonts-droid-fallback``) writes the
subset again; a test fails until it covers every character.
"""

from __future__ import annotations

import base64
import sys
import unicodedata
from pathlib import Path

HERE = Path(__file__).resolve().parent
FONT = HERE / "fonts" / "cjk-subset.ttf"
#: The font's own family name (matplotlib finds fonts by it).
FAMILY = "Droid Sans Fallback"
#: The family name the report's CSS gives it.
CSS_FAMILY = "jpdsim CJK"


def characters() -> str:
    """Every CJK character (ideographs, CJK punctuation, fullwidth forms) in the notebooks and
    the analysis modules, sorted."""
    found = set()
    for path in [*HERE.glob("notebooks/*.ipynb"), *HERE.glob("*.py")]:
        text = path.read_text(encoding="utf-8")
        found.update(ch for ch in text if unicodedata.east_asian_width(ch) in "WF")
    return "".join(sorted(found))


def use_in_figures() -> None:
    """Add the subset to matplotlib's fonts, last in its font families (a glyph the others
    lack comes from it)."""
    from matplotlib import font_manager, rcParams

    if FAMILY not in {f.name for f in font_manager.fontManager.ttflist}:
        font_manager.fontManager.addfont(str(FONT))
    if FAMILY not in rcParams["font.family"]:
        rcParams["font.family"] = [*rcParams["font.family"], FAMILY]


def css() -> str:
    """A ``<style>`` element: the subset as an embedded font, last in the report's font
    lists (text and code)."""
    data = base64.b64encode(FONT.read_bytes()).decode("ascii")
    text = 'system-ui, -apple-system, "Segoe UI", Helvetica, Arial, sans-serif'
    code = 'Menlo, Consolas, "DejaVu Sans Mono", monospace'
    return (
        '<style type="text/css">\n'
        f'@font-face {{ font-family: "{CSS_FAMILY}"; '
        f'src: url(data:font/ttf;base64,{data}) format("truetype"); }}\n'
        f'body {{ --jp-content-font-family: {text}, "{CSS_FAMILY}"; '
        f'--jp-ui-font-family: {text}, "{CSS_FAMILY}"; '
        f'--jp-code-font-family: {code}, "{CSS_FAMILY}"; }}\n'
        "</style>"
    )


def subset(font: str | Path, out: Path = FONT) -> None:
    """Write the glyphs of ``characters`` (and the basic Latin ones) of ``font`` to ``out``."""
    from fontTools import subset as ft

    options = ft.Options()
    options.layout_features = []
    options.name_IDs = ["*"]
    options.name_languages = ["*"]
    options.notdef_outline = True
    with ft.load_font(str(font), options) as tt:
        sub = ft.Subsetter(options)
        sub.populate(text=characters())
        sub.subset(tt)
        ft.save_font(tt, str(out), options)


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit("usage: python -m analysis.cjk DroidSansFallbackFull.ttf")
    subset(sys.argv[1])
    print(f"{FONT}: {len(characters())} characters, {FONT.stat().st_size:,} bytes")
