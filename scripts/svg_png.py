"""A terminal SVG (a test's snapshot under `__snapshots__/`, Textual's `save_screenshot`) as a PNG
to look at, with its spaces where the terminal has them.

`rsvg-convert` alone drops the spaces at either end of each `<text>` run and stretches the rest over
the run's `textLength`: a snapshot then looks glued — `Ctrl+KCompact` in the help's keys table,
`co-tuioffline` in the palette's title bar — though the SVG, and the terminal, have the gap.
`keep_edge_spaces` moves those spaces into the run's position first.

Run: `.venv/bin/python scripts/svg_png.py SVG... [--out DIR]` (default: /tmp); prints each PNG.
"""

from __future__ import annotations

import argparse
import html
import re
import shutil
import subprocess
import sys
from pathlib import Path

_TEXT = re.compile(r'(<text [^>]*?x=")([0-9.]+)("[^>]*?textLength=")([0-9.]+)("[^>]*>)([^<]*)</text>')
_NBSP = "&#160;"
_EDGES = re.compile(r"((?:&#160;)*)(.*?)((?:&#160;)*)", re.S)


def keep_edge_spaces(svg: str) -> str:
    """`svg` with every text run's leading spaces moved into its x and both ends' spaces taken out
    of its textLength, so rsvg-convert keeps the gaps and the glyph width."""

    def pin(m: re.Match[str]) -> str:
        lead, core, trail = _EDGES.fullmatch(m[6]).groups()  # type: ignore[union-attr]
        lead_n, trail_n = lead.count(_NBSP), trail.count(_NBSP)
        if not (lead_n or trail_n) or not core:
            return m[0]
        cell = float(m[4]) / (lead_n + trail_n + len(html.unescape(core)))
        x, width = float(m[2]) + lead_n * cell, float(m[4]) - (lead_n + trail_n) * cell
        return f"{m[1]}{x:g}{m[3]}{width:g}{m[5]}{core}</text>"

    return _TEXT.sub(pin, svg)


def svg_to_png(svg: Path, png: Path) -> Path:
    """Write `svg` as `png` through rsvg-convert, the spaces kept (`keep_edge_spaces`)."""
    fixed = keep_edge_spaces(svg.read_text(encoding="utf-8"))
    subprocess.run(["rsvg-convert", "-o", str(png)], input=fixed.encode(), check=True)
    return png


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("svgs", type=Path, nargs="+")
    parser.add_argument("--out", type=Path, default=Path("/tmp"))
    args = parser.parse_args()
    if shutil.which("rsvg-convert") is None:
        print("svg_png: rsvg-convert is not installed", file=sys.stderr)
        return 1
    args.out.mkdir(parents=True, exist_ok=True)
    for svg in args.svgs:
        print(svg_to_png(svg, args.out / svg.with_suffix(".png").name))
    return 0


if __name__ == "__main__":
    sys.exit(main())
