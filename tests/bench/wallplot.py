"""Bar chart of run.py's wall-clock ratios over the floor, one panel per protocol.

    python tests/bench/run.py --json wall.json
    python tests/bench/wallplot.py --data wall.json --out docs/_static/wallclock.svg
    python tests/bench/wallplot.py --data wall.json --table   # the same ratios in Markdown

Each panel shows one protocol's largest stream in the data (large, unless the run was
`--quick`), fed whole and split: a bar per contender (floor_msgspec, unievent compiled,
unievent pure, then each peer that ran), its height the ratio of its time to the
floor's (orjson) on a log scale.  The solid line is the floor (1.0x), the dashed one
the target for unievent compiled (1.2x).  Cells that did not run leave no bar.

Needs matplotlib (the `bench` extra).  The same data always gives the same SVG bytes:
fixed hash salt, text kept as text, no date in the metadata.
"""

from __future__ import annotations

import argparse
import importlib
import json
import math
import sys
from typing import Any

FLOOR = 1.0
TARGET = 1.2  # unievent compiled, over the floor
NOT_BARS = ("floor", "floor_split")  # the floor is the line at 1.0; framing alone is not a decoder
LABELS = {"unievent": "unievent (compiled)", "unievent_pure": "unievent (pure Python)"}
COLORS = {"floor_msgspec": "#9e9e9e", "unievent": "#1f5fa8", "unievent_pure": "#7fb2e5"}
PEER_COLORS = ("#e08a2e", "#c0392b", "#7d4e9f", "#2e8b57", "#b8860b", "#8c564b", "#d46aa5", "#5f6b2e")
COLUMNS = 4
SDKS = ("openai_sdk", "anthropic_sdk", "google_genai")  # one column in the table: the provider's SDK
SDK = "the provider's SDK"


def ratios(cells: list[dict[str, Any]]) -> tuple[str, dict[str, dict[tuple[str, str], float]]]:
    """The size shown and {protocol: {(contender, feed): ratio}} of its decode cells."""
    decode = [c for c in cells if c.get("mode", "decode") == "decode"]
    sizes = [s for s in ("large", "small") if any(c["size"] == s for c in decode)]
    if not sizes:
        raise SystemExit("no decode cells in the data")
    size = sizes[0]
    out: dict[str, dict[tuple[str, str], float]] = {}
    for c in decode:
        if c["size"] == size:
            panel = out.setdefault(c["protocol"], {})
            if c.get("status") == "ok" and "ratio" in c and c["contender"] not in NOT_BARS:
                panel[c["contender"], c["feed"]] = float(c["ratio"])
    return size, out


def draw(data: dict[str, Any], out: str) -> None:
    # through importlib, as Any: matplotlib is optional (the `bench` extra)
    matplotlib: Any = importlib.import_module("matplotlib")
    matplotlib.use("Agg")
    plt: Any = importlib.import_module("matplotlib.pyplot")

    matplotlib.rcParams.update(
        {
            "svg.hashsalt": "unievent-wallclock",
            "svg.fonttype": "none",
            "font.size": 8,
            "figure.facecolor": "white",
            "axes.facecolor": "white",
        }
    )
    size, panels = ratios(data["cells"])
    with_bars = {name for panel in panels.values() for name, _feed in panel}
    names = [n for n in dict.fromkeys(c["contender"] for c in data["cells"]) if n in with_bars]
    peers = [n for n in names if n not in COLORS]
    color = {**COLORS, **{n: PEER_COLORS[i % len(PEER_COLORS)] for i, n in enumerate(peers)}}
    feeds = [f for f in ("whole", "split") if any(f == k[1] for p in panels.values() for k in p)]
    values = [v for p in panels.values() for v in p.values()]
    low = min([FLOOR, *values]) / 1.6
    high = max([TARGET, *values]) * 2.5
    rows = math.ceil(len(panels) / COLUMNS)
    fig, axes = plt.subplots(rows, COLUMNS, figsize=(3.2 * COLUMNS, 2.9 * rows), sharey=True, squeeze=False)
    for ax in axes.flat[len(panels) :]:
        ax.set_visible(False)
    for ax, (protocol, panel) in zip(axes.flat, panels.items(), strict=False):
        here = [n for n in names if any((n, f) in panel for f in feeds)]
        width = 0.8 / max(1, len(here))
        for i, name in enumerate(here):
            for j, feed in enumerate(feeds):
                if (name, feed) not in panel:
                    continue
                ratio = panel[name, feed]
                x = j + (i - (len(here) - 1) / 2) * width
                ax.bar(x, ratio - low, width * 0.92, bottom=low, color=color[name], zorder=2)
                shown = f"{ratio:.2f}" if ratio < 10 else f"{ratio:.0f}"
                ax.text(
                    x,
                    ratio * 1.08,
                    shown,
                    ha="center",
                    va="bottom",
                    fontsize=5.5,
                    rotation=90,
                    zorder=4,
                    bbox={"facecolor": "white", "edgecolor": "none", "pad": 0.4},
                )
        ax.axhline(FLOOR, color="black", linewidth=1.0, zorder=3)
        ax.axhline(TARGET, color="black", linewidth=0.8, linestyle="--", zorder=3)
        ax.set_yscale("log")
        ax.set_ylim(low, high)
        ax.set_xticks(range(len(feeds)), feeds)
        ax.set_xlim(-0.5, len(feeds) - 0.5)
        ax.set_title(protocol, fontsize=9)
        ax.grid(axis="y", which="major", color="#e6e6e6", zorder=0)
        for side in ("top", "right"):
            ax.spines[side].set_visible(False)
    for row in axes:
        row[0].set_ylabel("time / floor time (log)")
    handles = [plt.Rectangle((0, 0), 1, 1, color=color[n]) for n in names]
    labels = [LABELS.get(n, n) for n in names]
    handles += [
        plt.Line2D([], [], color="black", linewidth=1.0),
        plt.Line2D([], [], color="black", linewidth=0.8, linestyle="--"),
    ]
    labels += [f"floor (orjson) {FLOOR:.1f}x", f"target, unievent compiled {TARGET:.1f}x"]
    fig.legend(handles, labels, loc="lower center", ncol=min(6, len(labels)), frameon=False)
    info = data.get("machine", {})
    where = ", ".join(f"{k} {info[k]}" for k in ("python", "unievent") if k in info)
    fig.suptitle(
        f"Wall-clock time over the floor, {size} streams (lower is faster)\n"
        f"{info.get('date', '')} · {info.get('cpu', '')} · {where}",
        fontsize=10,
    )
    legend_rows = math.ceil(len(labels) / 6)
    fig.tight_layout(rect=(0, 0.04 + 0.03 * legend_rows, 1, 0.95))
    fig.savefig(out, format="svg", metadata={"Date": None}, facecolor="white")
    plt.close(fig)


def table(data: dict[str, Any]) -> str:
    """The same ratios as a Markdown table (the README's): a row per protocol, a column
    per contender, each cell `whole / split`; then the run's date, machine and versions."""
    size, panels = ratios(data["cells"])
    seen = [c["contender"] for c in data["cells"] if c.get("mode", "decode") == "decode"]
    names = [n for n in dict.fromkeys(seen) if n not in NOT_BARS]
    first = ("unievent", "unievent_pure", "floor_msgspec")
    names = [*first, *dict.fromkeys(SDK if n in SDKS else n for n in names if n not in first)]
    lines = [
        "| protocol | " + " | ".join(LABELS.get(n, n) for n in names) + " |",
        "|---|" + "---|" * len(names),
    ]
    for protocol, panel in panels.items():
        row = []
        for name in names:
            found = [n for n in SDKS if any(k[0] == n for k in panel)] if name == SDK else [name]
            got = [panel.get((found[0], feed)) if found else None for feed in ("whole", "split")]
            row.append(" / ".join(f"{r:.2f}x" if r is not None and r < 10 else f"{r:.0f}x" if r else "-" for r in got))
        lines.append(f"| {protocol} | " + " | ".join(row) + " |")
    info = data.get("machine", {})
    versions = ", ".join(f"{k} {v}" for k, v in info.items() if k not in ("date", "cpu"))
    reps = data.get("options", {}).get("reps", "")
    lines += ["", f"{size} streams, whole / split; measured {info.get('date', '')} on {info.get('cpu', '')}; {versions}; reps {reps}."]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    ap.add_argument("--data", required=True, metavar="FILE", help="run.py's --json output")
    ap.add_argument("--out", default="docs/_static/wallclock.svg", metavar="FILE")
    ap.add_argument("--table", action="store_true", help="print the ratios as a Markdown table instead")
    args = ap.parse_args(argv)
    with open(args.data) as f:
        data = json.load(f)
    if args.table:
        print(table(data))
        return 0
    draw(data, args.out)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
