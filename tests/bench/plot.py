"""The drawing of count.py's ratios: grouped bars per protocol, an SVG written by hand.

    python tests/bench/count.py --events 1000 --no-gate > docs/_static/counts.txt
    python tests/bench/plot.py [--data docs/_static/counts.txt] [--out docs/_static/counts.svg]

The data is count.py's output exactly as it prints it (a Markdown table, one row per
protocol and feed, a column per build, each cell the instructions per event and the ratio
to the floor; lines outside the table are ignored).  The documentation's performance page
shows that table and this drawing, and tests/test_performance_plot.py checks that the
page's tables, the committed drawing and the data file agree.  `--no-gate` only keeps the
exit status 0 when a ratio is above its gate; the output is the same.

The drawing has a bar per protocol, build (compiled, pure) and feed (whole, split), the
ratio written above it, a solid line at the floor (1.0x) and a dashed line at each build's
gate (count.GATES).  Its colours are explicit, on a white background, so it reads the
same in a light and a dark theme.  It needs nothing but the standard library, and the
same data always gives the same bytes.
"""

from __future__ import annotations

import argparse
import math
import re
import sys
from html import escape
from pathlib import Path
from typing import NamedTuple

from count import GATES

ROOT = Path(__file__).resolve().parent.parent.parent
DATA = ROOT / "docs" / "_static" / "counts.txt"
OUT = ROOT / "docs" / "_static" / "counts.svg"

BUILDS = ("compiled", "pure")
FEEDS = ("whole", "split")
#: fill of each (build, feed) bar: blue for compiled, orange for pure, dark for whole
COLOURS = {
    ("compiled", "whole"): "#1f5fa8",
    ("compiled", "split"): "#8bb8ea",
    ("pure", "whole"): "#b8541a",
    ("pure", "split"): "#f2a765",
}
#: the gate line of each build, in the darker shade of its bars
GATE_COLOURS = {"compiled": "#1f5fa8", "pure": "#b8541a"}
INK = "#1a1a1a"
GRID = "#d9d9d9"
BACKGROUND = "#ffffff"

CELL = re.compile(r"^([\d,]+) \((\d+\.\d+)x\)$")

# layout, in SVG user units (px)
LEFT, RIGHT, TOP, BOTTOM = 64, 132, 78, 64
BAR, GAP = 16, 22  # a bar's width; the space between two protocols' groups
SCALE = 100  # px per 1.0x
STEP = 0.5  # between two grid lines


class Row(NamedTuple):
    """One row of count.py's table: a protocol fed one way."""

    protocol: str
    feed: str
    floor: int  # instructions per event
    counts: dict[str, int]  # build -> instructions per event
    ratios: dict[str, float]  # build -> ratio to the floor, as printed (2 decimals)


def parse(text: str) -> list[Row]:
    """The rows of count.py's table in `text`, in its order."""
    table = [line for line in text.splitlines() if line.startswith("|")]
    if len(table) < 3:
        raise ValueError("no table of count.py's in the data")
    header = cells_of(table[0])
    if header[:3] != ["protocol", "feed", "floor (instructions/event)"]:
        raise ValueError(f"not count.py's table: {table[0]}")
    builds = [name.removeprefix("unievent ") for name in header[3:]]
    if not builds or any(build not in BUILDS for build in builds):
        raise ValueError(f"unknown build in {table[0]}")
    rows = []
    for line in table[2:]:
        protocol, feed, floor, *cells = cells_of(line)
        if feed not in FEEDS or len(cells) != len(builds):
            raise ValueError(f"not a row of count.py's table: {line}")
        counts, ratios = {}, {}
        for build, cell in zip(builds, cells, strict=True):
            found = CELL.match(cell)
            if found is None:
                raise ValueError(f"not a count and a ratio: {cell!r} in {line}")
            counts[build] = int(found.group(1).replace(",", ""))
            ratios[build] = float(found.group(2))
        rows.append(Row(protocol, feed, int(floor.replace(",", "")), counts, ratios))
    return rows


def cells_of(line: str) -> list[str]:
    return [cell.strip() for cell in line.strip().strip("|").split("|")]


def read(path: Path = DATA) -> list[Row]:
    return parse(path.read_text(encoding="utf-8"))


def protocols_of(rows: list[Row]) -> list[str]:
    """The protocols in their order in the table, each once."""
    return list(dict.fromkeys(row.protocol for row in rows))


def builds_of(rows: list[Row]) -> list[str]:
    return [build for build in BUILDS if build in rows[0].ratios]


def num(value: float) -> str:
    """A coordinate, written the same way every time: at most 2 decimals, no trailing zeros."""
    text = f"{value:.2f}".rstrip("0").rstrip(".")
    return "0" if text == "-0" else text


def svg(rows: list[Row]) -> str:
    """The drawing of `rows`, as the text of an SVG document."""
    protocols = protocols_of(rows)
    builds = builds_of(rows)
    series = [(build, feed) for build in builds for feed in FEEDS]
    by_key = {(row.protocol, row.feed): row for row in rows}
    group = BAR * len(series) + GAP
    width = LEFT + group * len(protocols) + RIGHT
    highest = max([*(max(row.ratios.values()) for row in rows), *(GATES[build] for build in builds)])
    top = math.ceil((highest + 0.35) / STEP) * STEP  # room for the value written above a bar
    plot_height = round(top * SCALE)
    height = TOP + plot_height + BOTTOM
    bottom_y = TOP + plot_height
    right_x = LEFT + group * len(protocols)

    def y(ratio: float) -> float:
        return bottom_y - ratio * SCALE

    title = "unievent over the floor, instructions per event (count.py)"
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width}" height="{height}" '
        f'viewBox="0 0 {width} {height}" role="img" aria-labelledby="title desc" '
        f'font-family="DejaVu Sans, Helvetica, Arial, sans-serif" font-size="12" fill="{INK}">',
        f'<title id="title">{escape(title)}</title>',
        '<desc id="desc">Grouped bars, one group per protocol: the ratio of unievent\'s '
        "instructions per event to the floor's, compiled and pure Python, whole body and "
        "network-sized pieces; a line at the floor (1.0x) and at each build's gate.</desc>",
        f'<rect width="{width}" height="{height}" rx="6" fill="{BACKGROUND}"/>',
        f'<text x="{LEFT}" y="24" font-size="14" font-weight="bold">{escape(title)}</text>',
    ]

    # the legend, one swatch per series
    x = LEFT
    for build, feed in series:
        label = f"{build}, {feed}"
        out.append(f'<rect x="{x}" y="40" width="12" height="12" fill="{COLOURS[build, feed]}"/>')
        out.append(f'<text x="{x + 17}" y="50.5">{escape(label)}</text>')
        x += 17 + 7 * len(label) + 22

    # the grid and the y axis
    steps = round(top / STEP)
    for i in range(steps + 1):
        ratio = i * STEP
        out.append(f'<line x1="{LEFT}" y1="{num(y(ratio))}" x2="{right_x}" y2="{num(y(ratio))}" stroke="{GRID}"/>')
        out.append(f'<text x="{LEFT - 6}" y="{num(y(ratio) + 4)}" text-anchor="end">{ratio:.1f}x</text>')
    middle = TOP + plot_height / 2
    out.append(
        f'<text x="18" y="{num(middle)}" text-anchor="middle" transform="rotate(-90 18 {num(middle)})">'
        "ratio to the floor</text>"
    )

    # the bars; the ratio above each is written last, over the lines
    values = []
    for g, protocol in enumerate(protocols):
        x0 = LEFT + g * group + GAP / 2
        for s, (build, feed) in enumerate(series):
            ratio = by_key[protocol, feed].ratios[build]
            bx = x0 + s * BAR
            out.append(
                f'<rect x="{num(bx + 1)}" y="{num(y(ratio))}" width="{BAR - 2}" '
                f'height="{num(bottom_y - y(ratio))}" fill="{COLOURS[build, feed]}">'
                f"<title>{escape(protocol)} {build} {feed}: {ratio:.2f}x</title></rect>"
            )
            cx, ty = num(bx + BAR / 2 + 3.5), num(y(ratio) - 4)
            values.append(
                f'<text x="{cx}" y="{ty}" font-size="10" transform="rotate(-90 {cx} {ty})" '
                f'stroke="{BACKGROUND}" stroke-width="3" paint-order="stroke">{ratio:.2f}</text>'
            )
        # the protocol's name under its group, broken at its underscores
        cx = num(LEFT + g * group + group / 2)
        for n, part in enumerate(protocol.split("_")):
            out.append(f'<text x="{cx}" y="{bottom_y + 18 + 14 * n}" text-anchor="middle">{escape(part)}</text>')

    # the floor and the gates, over the bars, labelled in the right margin
    lines = [(1.0, INK, "", "floor 1.0x")]
    lines += [(GATES[build], GATE_COLOURS[build], "6 4", f"{build} gate {GATES[build]}x") for build in builds]
    for ratio, colour, dashes, label in lines:
        dash = f' stroke-dasharray="{dashes}"' if dashes else ""
        out.append(
            f'<line x1="{LEFT}" y1="{num(y(ratio))}" x2="{right_x + 8}" y2="{num(y(ratio))}" '
            f'stroke="{colour}" stroke-width="1.5"{dash}/>'
        )
        out.append(f'<text x="{right_x + 12}" y="{num(y(ratio) + 4)}" fill="{colour}">{escape(label)}</text>')
    out += values
    out.append(f'<line x1="{LEFT}" y1="{bottom_y}" x2="{right_x}" y2="{bottom_y}" stroke="{INK}"/>')
    out.append(f'<line x1="{LEFT}" y1="{TOP}" x2="{LEFT}" y2="{bottom_y}" stroke="{INK}"/>')
    out.append(f'<text x="{num((LEFT + right_x) / 2)}" y="{height - 8}" text-anchor="middle">protocol</text>')
    out.append("</svg>")
    return "\n".join(out) + "\n"


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--data", type=Path, default=DATA, help="count.py's output (default: %(default)s)")
    parser.add_argument("--out", type=Path, default=OUT, help="the SVG to write (default: %(default)s)")
    args = parser.parse_args(argv)
    args.out.write_text(svg(read(args.data)), encoding="utf-8", newline="\n")
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
