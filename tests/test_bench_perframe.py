"""tests/bench/perframe.py times a stream frame by frame: one row for the decoder's
construction, one for each frame of the stream in order (named by its first line, or an
event-stream frame's `:event-type`), one for `finish()`, and a total."""

from __future__ import annotations

import importlib
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "tests" / "bench"))
perframe: Any = importlib.import_module("perframe")
gen: Any = importlib.import_module("gen")


def rows(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[list[list[str]], str]:
    assert perframe.main(list(argv)) == 0
    lines = capsys.readouterr().out.splitlines()
    table = [[cell.strip() for cell in line.strip("|").split("|")] for line in lines[2:] if line.startswith("|")]
    return table, lines[-1]


@pytest.mark.parametrize("protocol", ["anthropic", "bedrock_converse"])
def test_every_step_of_a_decode_has_its_row_in_stream_order(protocol: str, capsys: pytest.CaptureFixture[str]) -> None:
    table, total = rows(capsys, "--protocol", protocol, "--events", "6", "--decodes", "2")
    frames = perframe.frames_of(gen.build(protocol, 6))
    assert [row[0] for row in table] == ["construction", *(perframe.label(f) for f, _ in frames), "finish()"]
    assert table[0][2] == table[-1][2] == "0.0"  # nothing of the floor's there
    for name, push, parse, beyond in table:
        assert abs(float(push) - float(parse) - float(beyond)) <= 0.11, name
    assert total.startswith(f"{protocol}, {len(frames)} frames, 2 decodes: decode ")


def test_a_bedrock_frame_is_named_by_its_event_type() -> None:
    frames = perframe.frames_of(gen.build("bedrock_converse", 6))
    names = [perframe.label(f) for f, _ in frames]
    assert names[:2] == ["messageStart", "contentBlockDelta"]
    assert set(names) <= {"messageStart", "contentBlockDelta", "contentBlockStop", "messageStop", "metadata"}


def test_top_shows_the_dearest_steps_only(capsys: pytest.CaptureFixture[str]) -> None:
    table, _ = rows(capsys, "--protocol", "anthropic", "--events", "6", "--decodes", "2", "--top", "3")
    beyond = [float(row[3]) for row in table]
    assert len(table) == 3 and beyond == sorted(beyond, reverse=True)
