"""Whatever arrives, every decoder either decodes it or raises its own typed error.

Frames are drawn from each protocol's vocabulary (real type names and field names with
values of every JSON shape), so the fuzzing reaches deep into the handlers instead of
stopping at the JSON parser; the events that come out must always follow the grammar.
"""

from __future__ import annotations

import os
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import unievent
from tests import fuzzing
from unievent._decoder import StreamDecoder as RuntimeStreamDecoder  # takes any protocol name

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.text(max_size=4), st.floats(allow_nan=False))


def values(names: list[str]) -> st.SearchStrategy[Any]:
    """JSON values whose dicts use the protocol's own keys."""
    return st.recursive(
        SCALARS | st.sampled_from(names),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(names), inner, max_size=4),
        max_leaves=12,
    )


CHAT_KEYS = [
    "choices", "delta", "message", "content", "reasoning_content", "reasoning", "reasoning_details",
    "tool_calls", "index", "id", "function", "name", "arguments", "finish_reason", "usage", "prompt_tokens",
    "completion_tokens", "error", "object", "model", "type", "text", "thinking", "x_groq", "data", "signature",
]
ANTHROPIC_KEYS = [
    "type", "message", "model", "usage", "index", "content_block", "delta", "text", "thinking", "signature",
    "partial_json", "input", "name", "id", "stop_reason", "input_tokens", "output_tokens", "error", "citation",
    "data", "tool_use_id", "content_block_start", "content_block_delta", "content_block_stop", "message_start",
    "message_delta", "message_stop", "text_delta", "thinking_delta", "input_json_delta", "signature_delta",
    "tool_use", "server_tool_use", "redacted_thinking",
]
RESPONSES_KEYS = [
    "type", "sequence_number", "response", "item", "output_index", "item_id", "content_index", "delta", "text",
    "arguments", "call_id", "name", "id", "status", "usage", "output", "error", "code", "message", "summary",
    "encrypted_content", "phase", "tool_step", "result", "truncated", "incomplete_details", "reason",
    "response.created", "response.output_item.added", "response.output_item.done", "response.output_text.delta",
    "response.function_call_arguments.delta", "response.reasoning_summary_text.delta", "response.completed",
    "response.failed", "response.incomplete", "message", "function_call", "reasoning", "web_search_call",
    "response.mirobody_tool_call", "response.mirobody_tool_result", "error",
]


def frames(keys: list[str]) -> st.SearchStrategy[bytes]:
    frame = st.dictionaries(st.sampled_from(keys), values(keys), max_size=6)
    event = st.one_of(st.none(), st.sampled_from(keys))

    def wire(parts: list[tuple[str | None, dict[str, Any]]], done: bool) -> bytes:
        out = b""
        for name, obj in parts:
            if name is not None:
                out += b"event: " + name.encode() + b"\n"
            out += b"data: " + orjson.dumps(obj) + b"\n\n"
        return out + (b"data: [DONE]\n\n" if done else b"")

    return st.builds(wire, st.lists(st.tuples(event, frame), max_size=8), st.booleans())


def check(protocol: str, body: bytes, strict: bool) -> None:
    decoder = RuntimeStreamDecoder(protocol, stream_id="f", clock=lambda: 0, strict_arguments=strict)
    try:
        events = decoder.push(body)
        last, outcome = decoder.finish()
    except unievent.UniEventError:
        return
    unievent.validate(events + last, partial=outcome.end != "complete")
    assert outcome.end in ("complete", "truncated", "failed", "not_event_stream")


# FUZZ_EXAMPLES=4000 for a longer hunt
FUZZ = settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", "200")), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(frames(CHAT_KEYS), st.booleans())
def test_openai_chat_survives_any_frames(body: bytes, strict: bool) -> None:
    check("openai_chat", body, strict)


@FUZZ
@given(frames(ANTHROPIC_KEYS), st.booleans())
def test_anthropic_survives_any_frames(body: bytes, strict: bool) -> None:
    check("anthropic", body, strict)


@FUZZ
@given(frames(RESPONSES_KEYS), st.booleans())
def test_openai_responses_survives_any_frames(body: bytes, strict: bool) -> None:
    check("openai_responses", body, strict)


# --- mutation fuzzing of recorded and suite streams (tests/fuzzing.py) --------------------

MUTATIONS = int(os.environ.get("FUZZ_EXAMPLES", "1500"))


@pytest.mark.parametrize("seed", range(3))
def test_mutated_streams_keep_every_invariant(seed: int) -> None:
    ends = fuzzing.campaign(MUTATIONS // 3, seed)
    assert sum(ends.values()) == MUTATIONS // 3
    assert ends.get("complete") and ends.get("truncated") and ends.get("failed")  # the mutations reach every end


def test_the_invariants_catch_a_decoder_that_depends_on_the_split(monkeypatch: pytest.MonkeyPatch) -> None:
    # a framer that takes its whole-frame shortcut while an event name is pending
    # (the bug the shortcut's derivation from the table rules out)
    from unievent._framing import sse as framer
    from unievent._generated import sse as machine

    body = b'event: error\ndata: {"message":"overloaded"}\n\n'
    fuzzing.check("openai_chat", body)
    broken = list(framer._SHORTCUT_DEST)
    broken[machine.ST_NAMED] = machine.ST_IDLE
    monkeypatch.setattr(framer, "_SHORTCUT_DEST", tuple(broken))
    # a push that ends inside a frame leaves it in the table (not kept for the next
    # push), where the broken shortcut can see the pending event name
    monkeypatch.setattr(framer, "_DEFER_MAX", 0)
    with pytest.raises(AssertionError, match="decodes differently"):
        fuzzing.check("openai_chat", body)


def test_the_seeds_cover_every_protocol() -> None:
    assert {protocol for protocol, _label, _body in fuzzing.suite_seeds()} == set(unievent.PROTOCOLS)
