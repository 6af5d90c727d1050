"""Every writer's frames are split by its own framer exactly as they were written,
whatever the text of a call's arguments.

A call's arguments are written back as the text they arrived as, and that text may be
pretty-printed JSON (Cohere sends `{\\n  "city": "Paris"\\n}`), hold tabs, CRLF line
ends, U+2028 or escapes.  In a line-framed wire (an SSE `data:` line, an NDJSON line) a
raw line end would cut the frame in two.  In valid JSON a raw CR or LF can only be
whitespace between tokens, so a writer may write it as a space without changing the
value.  Hypothesis draws such texts; each writer's body, decoded again, holds the same
call, complete.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import unievent
from tests.helpers import calls_of, decode_stream
from unievent import DeltaEvent, StopEvent, ToolCallDelta, ToolCallDone, Usage
from unievent._writers import WRITERS

#: writers whose wire carries tool calls (an embeddings response has none)
TARGETS = sorted(name for name in WRITERS if "embeddings" not in name)

# strings holding what a line-framed wire must never see raw, and what JSON escapes
TEXTS = st.text(alphabet=st.sampled_from(["a", "é", " ", "\n", "\r", "\t", "\u2028", "\u2029", '"', "\\", "/", "😀", "}"]), max_size=12)
VALUES = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(-1000, 1000), TEXTS),
    lambda inner: st.one_of(st.lists(inner, max_size=3), st.dictionaries(TEXTS, inner, max_size=3)),
    max_leaves=8,
)
ARGUMENTS = st.dictionaries(TEXTS, VALUES, max_size=4)


@st.composite
def written(draw: st.DrawFn) -> tuple[dict[str, Any], str]:
    """Arguments, and a text of them as a provider may send it: compact or indented,
    with LF or CRLF line ends, ASCII-escaped or not."""
    arguments = draw(ARGUMENTS)
    indent = draw(st.sampled_from([None, 2, "\t"]))
    text = json.dumps(arguments, indent=indent, ensure_ascii=draw(st.booleans()))
    if draw(st.booleans()):
        text = text.replace("\n", "\r\n")
    return arguments, text


def events_of(arguments: dict[str, Any], text: str, cut: int) -> list[Any]:
    """A tool call whose arguments text arrives in two fragments, cut at `cut`."""
    return [
        DeltaEvent(ToolCallDelta("get_weather", text[:cut], "call_1"), 0),
        DeltaEvent(ToolCallDelta("", text[cut:], ""), 0),
        DeltaEvent(ToolCallDone("get_weather", arguments, "call_1"), 0),
        StopEvent(Usage(0, 10, None, 5), "tool_call", 0),
    ]


@pytest.mark.parametrize("protocol", TARGETS)
@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(call=written(), data=st.data())
def test_any_arguments_text_leaves_every_frame_whole(protocol: str, call: tuple[dict[str, Any], str], data: st.DataObject) -> None:
    arguments, text = call
    cut = data.draw(st.integers(0, len(text)), label="fragment cut")
    body = unievent.encode(events_of(arguments, text, cut), protocol)
    _events, outcome = decode_stream(protocol, body)
    assert outcome.end == "complete", outcome.error
    assert calls_of(outcome) == [("get_weather", "call_1", arguments)]
    assert outcome.skipped_frames == 0  # every frame read as it was written


def test_a_pretty_printed_call_stays_one_line_in_every_line_framed_writer() -> None:
    pretty = '{\n  "city": "Paris"\n}'
    for protocol in ("gemini", "ollama"):
        body = unievent.encode(events_of({"city": "Paris"}, pretty, 5), protocol)
        _events, outcome = decode_stream(protocol, body)
        assert calls_of(outcome) == [("get_weather", "call_1", {"city": "Paris"})], protocol
