"""The performance page's numbers and drawing come from one file and cannot drift from it.

docs/_static/counts.txt is the output of `python tests/bench/count.py --events 1000`;
docs/_static/counts.svg is what `python tests/bench/plot.py` draws from it, and
docs/performance.md shows both: count.py's table verbatim, and the ratios again as
"whole / split" per build.  After a new count, regenerate the drawing and update the
page's tables (tests/bench/plot.py's docstring has the commands).
"""

from __future__ import annotations

import importlib
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
PAGE = ROOT / "docs" / "performance.md"
DATA = ROOT / "docs" / "_static" / "counts.txt"
DRAWING = ROOT / "docs" / "_static" / "counts.svg"
sys.path.insert(0, str(ROOT / "tests" / "bench"))
plot: Any = importlib.import_module("plot")  # the benchmark's drawing of count.py's ratios

REGENERATE = "python tests/bench/plot.py"
# the wall-clock run (run.py --json) the README's performance table and wallclock.svg show
WALL_DATA = ROOT / "docs" / "_static" / "wallclock.json"
WALL_DRAWING = ROOT / "docs" / "_static" / "wallclock.svg"
README = ROOT / "README.md"
wallplot: Any = importlib.import_module("wallplot")


def table_lines(text: str) -> list[str]:
    return [line for line in text.splitlines() if line.startswith("|")]


def page() -> str:
    return PAGE.read_text(encoding="utf-8")


def test_the_committed_drawing_is_what_plot_draws_from_the_committed_data() -> None:
    drawn = plot.svg(plot.read(DATA)).encode("utf-8")
    assert DRAWING.read_bytes() == drawn, f"docs/_static/counts.svg is stale: run `{REGENERATE}`"


def test_the_drawing_is_deterministic_and_has_a_bar_per_protocol_build_and_feed() -> None:
    rows = plot.read(DATA)
    drawn = plot.svg(rows)
    assert drawn == plot.svg(plot.parse(DATA.read_text(encoding="utf-8")))
    bars = re.findall(r"<title>(\w+) (\w+) (\w+): (\d+\.\d\d)x</title></rect>", drawn)
    expected = [
        (row.protocol, build, row.feed, f"{row.ratios[build]:.2f}")
        for protocol in plot.protocols_of(rows)
        for build in ("compiled", "pure")
        for row in rows
        if row.protocol == protocol
    ]
    assert sorted(bars) == sorted(expected)
    assert len(bars) == 4 * len(plot.protocols_of(rows))
    for label in ("floor 1.0x", "compiled gate 1.2x", "pure gate 2.0x"):
        assert label in drawn


def test_the_data_covers_every_protocol_both_feeds_and_both_builds() -> None:
    rows = plot.read(DATA)
    assert [(row.protocol, row.feed) for row in rows] == [
        (protocol, feed) for protocol in plot.protocols_of(rows) for feed in ("whole", "split")
    ]
    assert {
        "openai_chat",
        "anthropic",
        "openai_responses",
        "gemini",
        "ollama",
        "cohere",
        "bedrock_converse",
        "bedrock_invoke",
    } <= set(plot.protocols_of(rows))
    for row in rows:
        assert set(row.ratios) == {"compiled", "pure"}
        for build, ratio in row.ratios.items():  # the ratio is the two counts' (rounded both)
            assert abs(row.counts[build] / row.floor - ratio) < 0.01, (row, build)


def test_the_page_shows_the_table_of_the_data_verbatim() -> None:
    data = table_lines(DATA.read_text(encoding="utf-8"))
    shown = table_lines(page())
    start = shown.index(data[0])
    assert shown[start : start + len(data)] == data, "docs/performance.md's count table differs from counts.txt"


def test_the_page_shows_the_ratios_of_the_data_whole_and_split() -> None:
    rows = plot.read(DATA)
    by_key = {(row.protocol, row.feed): row for row in rows}
    expected = ["| protocol | compiled build | pure Python |", "|---|---|---|"]
    for protocol in plot.protocols_of(rows):
        whole, split = by_key[protocol, "whole"], by_key[protocol, "split"]
        cells = [f"{whole.ratios[build]:.2f}x / {split.ratios[build]:.2f}x" for build in ("compiled", "pure")]
        expected.append(f"| {protocol} | {' | '.join(cells)} |")
    shown = table_lines(page())
    start = shown.index(expected[0])
    assert shown[start : start + len(expected)] == expected, "docs/performance.md's ratio table differs from counts.txt"


def test_the_page_embeds_the_drawing_and_says_how_to_regenerate_it() -> None:
    text = page()
    embedded = re.findall(r"^:::\{figure\} (\S+\.svg)$", text, flags=re.M)
    assert [(PAGE.parent / path).resolve() for path in embedded] == [DRAWING.resolve(), WALL_DRAWING.resolve()]
    assert "python tests/bench/count.py --events 1000 --no-gate > docs/_static/counts.txt" in text
    assert REGENERATE in text


@pytest.mark.parametrize(
    "text",
    [
        "no table here\n",
        "| protocol | feed | other |\n|---|---|---|\n| a | whole | 1 |\n",
        "| protocol | feed | floor (instructions/event) | unievent pure |\n|---|---|---|---|\n| a | whole | 1,000 | 2,000 |\n",
    ],
)
def test_plot_refuses_what_is_not_counts_output(text: str) -> None:
    with pytest.raises(ValueError):
        plot.parse(text)


# --- the wall clock: one run of run.py, its table in the README, its drawing ---------------------


def test_the_readme_shows_the_table_of_the_wall_clock_run_verbatim() -> None:
    data = json.loads(WALL_DATA.read_text(encoding="utf-8"))
    expected = wallplot.table(data).splitlines()
    text = README.read_text(encoding="utf-8")
    lines = text.splitlines()
    start = lines.index(expected[0])
    assert lines[start : start + len(expected)] == expected, "README.md's wall-clock table differs from wallclock.json"
    assert "python tests/bench/wallplot.py --data docs/_static/wallclock.json --table" in text
    assert "docs/_static/wallclock.svg" in text


def test_the_wall_clock_run_has_every_protocol_whole_and_split_in_both_builds() -> None:
    data = json.loads(WALL_DATA.read_text(encoding="utf-8"))
    size, panels = wallplot.ratios(data["cells"])
    assert size == "large"
    assert set(panels) == set(plot.protocols_of(plot.read(DATA)))
    for protocol, panel in panels.items():
        for build in ("unievent", "unievent_pure", "floor_msgspec"):
            assert {(build, "whole"), (build, "split")} <= set(panel), (protocol, build)
    assert WALL_DRAWING.read_text(encoding="utf-8").startswith("<?xml")
