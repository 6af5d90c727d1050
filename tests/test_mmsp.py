"""MMSP's own wire decoded by StreamDecoder("mmsp").

Written as an MMSP server sends `POST /v1/stream`: one `data: <UniEvent JSON>` block
per event (Python's default separators, raw UTF-8), `: keep-alive` comments while the
model is silent, then `data: [DONE]`.  Each test states one rule; every stream is
decoded whole, cut everywhere and byte by byte, and what comes out passes `validate`.
"""

from __future__ import annotations

import base64
import json
from typing import Any

import pytest

import unievent
from tests.helpers import split_at
from unievent import (
    DeltaEvent,
    InlineDataDelta,
    InlineDataDone,
    InlineThinkingDelta,
    InlineThinkingDone,
    Outcome,
    StopEvent,
    TextDelta,
    TextDone,
    ThinkingDelta,
    ThinkingDone,
    ToolCallDelta,
    ToolCallDone,
    Usage,
)

KEEP_ALIVE = b": keep-alive\n\n"
DONE = b"data: [DONE]\n\n"


def block(obj: dict[str, Any]) -> bytes:
    """One event as the server writes it: json.dumps defaults, not ASCII-escaped."""
    return b"data: " + json.dumps(obj, ensure_ascii=False).encode() + b"\n\n"


def wire(*parts: Any, done: bool = True) -> bytes:
    """Events (written with to_json), raw dicts and raw bytes, in order, then [DONE]."""
    out = b""
    for part in parts:
        if isinstance(part, bytes):
            out += part
        elif isinstance(part, dict):
            out += block(part)
        else:
            out += block(unievent.to_json(part))
    return out + (DONE if done else b"")


def at(item: Any, created_at: int = 1_700_000_000) -> DeltaEvent:
    return DeltaEvent(item, created_at)


def stop(finish: str = "stop", created_at: int = 1_700_000_009, **usage: int) -> StopEvent:
    return StopEvent(Usage(**usage), finish, created_at)  # type: ignore[arg-type]


def run(body: bytes | list[bytes]) -> tuple[list[Any], Outcome]:
    decoder = unievent.StreamDecoder("mmsp", stream_id="s", clock=lambda: 0)
    events: list[Any] = []
    for piece in [body] if isinstance(body, bytes) else body:
        events += decoder.push(piece)
    last, outcome = decoder.finish()
    events += last
    unievent.validate(events, partial=outcome.end != "complete")
    return events, outcome


def every_split(body: bytes) -> tuple[list[Any], Outcome]:
    whole = run(body)
    for cut in range(1, len(body)):
        assert run(split_at(body, [cut])) == whole, f"cut at {cut}"
    assert run([body[i : i + 1] for i in range(len(body))]) == whole
    return whole


TEXT_ANSWER = [
    at(TextDelta("Hel")),
    at(TextDelta("lo, wörld")),
    at(TextDone("Hello, wörld")),
    stop("stop", prompt_tokens=12, response_tokens=3, cached_tokens=4),
]


# --- what the server sent comes out as it sent it -------------------------------------


def test_a_text_answer_comes_out_event_for_event_with_the_servers_timestamps() -> None:
    events, outcome = every_split(wire(*TEXT_ANSWER))
    assert events == TEXT_ANSWER
    assert outcome.end == "complete"
    assert outcome.protocol == "mmsp"
    assert outcome.message.items == (TextDone("Hello, wörld"),)


def test_usage_and_finish_reason_are_the_stop_events_exactly() -> None:
    _, outcome = run(wire(*TEXT_ANSWER[:3], stop("length", prompt_tokens=7, thoughts_tokens=2)))
    assert outcome.usage == Usage(prompt_tokens=7, thoughts_tokens=2)
    assert outcome.finish_reason == "length"
    assert outcome.native_finish_reason == "length"


def test_thinking_keeps_its_signature() -> None:
    signed = {"anthropic": {"signature": "EqQBCkYIBxgCKkD"}}
    events = [
        at(ThinkingDelta("Let me think")),
        at(ThinkingDelta(" about it.", fidelity=signed)),  # the signature rides on a delta
        at(ThinkingDone("Let me think about it.", fidelity=signed)),
        at(TextDelta("42")),
        at(TextDone("42")),
        stop(),
    ]
    decoded, outcome = every_split(wire(*events))
    assert decoded == events
    assert outcome.message.items[0] == ThinkingDone("Let me think about it.", fidelity=signed)


def test_tool_calls_come_out_with_their_parsed_arguments() -> None:
    events = [
        at(ToolCallDelta("get_weather", '{"city": ', "call_1")),
        at(ToolCallDelta("", '"Paris"}', "")),
        at(ToolCallDone("get_weather", {"city": "Paris"}, "call_1")),
        at(ToolCallDelta("get_time", "{}", "call_2")),
        at(ToolCallDone("get_time", {}, "call_2")),
        stop("tool_call"),
    ]
    decoded, outcome = every_split(wire(*events))
    assert decoded == events
    assert outcome.finish_reason == "tool_call"
    assert [i.tool_call_id for i in outcome.message.items if isinstance(i, ToolCallDone)] == ["call_1", "call_2"]


def test_inline_bytes_in_several_chunks_each_padded_on_its_own() -> None:
    png = bytes(range(256)) * 3
    chunks = [png[:100], png[100:101], png[101:]]
    events = [
        *(at(InlineDataDelta(chunk, "image/png")) for chunk in chunks),
        at(InlineDataDone(png, "image/png")),
        at(InlineThinkingDelta(b"\x00\x01", "image/png")),
        at(InlineThinkingDone(b"\x00\x01", "image/png")),
        stop(),
    ]
    body = wire(*events)
    assert b'"data": "' + base64.b64encode(chunks[1]) + b'"' in body  # padded: "ZQ=="
    decoded, _ = run(body)
    assert decoded == events
    assert run([body[i : i + 7] for i in range(0, len(body), 7)])[0] == events


def test_keep_alives_between_a_delta_and_its_done_lose_nothing() -> None:
    body = wire(
        KEEP_ALIVE,
        TEXT_ANSWER[0],
        KEEP_ALIVE * 3,
        TEXT_ANSWER[1],
        KEEP_ALIVE,
        TEXT_ANSWER[2],
        KEEP_ALIVE,
        TEXT_ANSWER[3],
        KEEP_ALIVE,
    )
    events, outcome = every_split(body)
    assert events == TEXT_ANSWER
    assert outcome.end == "complete"
    assert outcome.anomalies == ()


def test_a_stop_then_the_end_without_done_is_complete() -> None:
    _, outcome = run(wire(*TEXT_ANSWER, done=False))
    assert outcome.end == "complete"


# --- the server's error family -----------------------------------------------------------


ERRORS: dict[str, dict[str, Any]] = {
    "ToolCallArgumentParseError": {
        "client": "openai_chat",
        "tool_name": "get_weather",
        "tool_call_id": "call_1",
        "raw_arguments_length": 9,
        "raw_arguments_preview": '{"city": ',
    },
    "EmptyResponseError": {"client": "anthropic_official", "finish_reason": "stop", "usage_metadata": None},
    "IncompleteStreamError": {
        "client": "google_genai",
        "missing": ["usage_metadata", "finish_reason"],
        "finish_reason": None,
        "usage_metadata": None,
    },
    "StreamProtocolError": {"client": "zai_official"},
    "UnknownEventError": {"client": "openai_responses", "event": "{'type': 'response.weird'}"},
    "ProviderStreamError": {"client": "google_official", "code": "RESOURCE_EXHAUSTED"},
    "UpstreamError": {"client": "mmsp", "status": 502, "error_type": "BadGateway", "error": {"message": "no"}},
    "RateLimitError": {"status": 429},  # not an MMSP error: the SDK's, with its HTTP status
}


@pytest.mark.parametrize("error_type", sorted(ERRORS))
def test_an_error_event_ends_failed_with_its_type_message_and_fields(error_type: str) -> None:
    error = {"type": error_type, "message": f"{error_type} happened", **ERRORS[error_type]}
    events, outcome = every_split(wire(TEXT_ANSWER[0], {"error": error}))
    assert outcome.end == "failed"
    assert outcome.error is not None
    assert outcome.error.type == error_type
    assert outcome.error.message == f"{error_type} happened"
    assert outcome.error.raw == error  # every field of its type, as sent
    status = ERRORS[error_type].get("status")
    assert outcome.error.code == status
    # the open item is left without its done, as the server left it; its text is kept
    assert events == [TEXT_ANSWER[0]]
    assert outcome.message.items == (TextDone("Hel"),)


def test_a_tool_call_argument_error_stands_where_the_done_would_go() -> None:
    error = {"type": "ToolCallArgumentParseError", "message": "bad JSON", **ERRORS["ToolCallArgumentParseError"]}
    first = at(ToolCallDelta("get_weather", '{"city": ', "call_1"))
    events, outcome = run(wire(*TEXT_ANSWER[:3], first, {"error": error}))
    assert events == [*TEXT_ANSWER[:3], first]
    assert outcome.error is not None and outcome.error.raw["raw_arguments_length"] == 9
    assert outcome.message.items == (TextDone("Hello, wörld"),)


def test_an_error_that_is_not_an_object_still_fails() -> None:
    _, outcome = run(wire({"error": "the upstream hung up"}))
    assert outcome.end == "failed"
    assert outcome.error is not None and outcome.error.message == "the upstream hung up"


# --- a cancel or a cut ---------------------------------------------------------------------


def test_done_without_a_stop_is_a_server_side_cancel_truncated() -> None:
    events, outcome = every_split(wire(*TEXT_ANSWER[:3]))
    assert outcome.end == "truncated"
    assert events == TEXT_ANSWER[:3]
    assert outcome.finish_reason is None


def test_a_cancel_before_any_event_is_truncated() -> None:
    events, outcome = run(DONE)
    assert (events, outcome.end) == ([], "truncated")


def test_a_cut_inside_an_item_keeps_the_text_that_arrived() -> None:
    events, outcome = every_split(wire(*TEXT_ANSWER[:2], done=False))
    assert outcome.end == "truncated"
    assert events[:2] == TEXT_ANSWER[:2]
    assert outcome.message.items == (TextDone("Hello, wörld"),)


# --- a faulty server ----------------------------------------------------------------------


def test_groups_that_interleave_end_failed_naming_the_index_state_and_rule() -> None:
    body = wire(TEXT_ANSWER[0], at(ThinkingDelta("hmm")), *TEXT_ANSWER[1:])
    events, outcome = every_split(body)
    assert outcome.end == "failed"
    assert events == [TEXT_ANSWER[0]]  # what came before the fault
    assert outcome.error is not None
    assert outcome.error.type == "protocol_error"
    assert outcome.error.raw["index"] == 1
    assert outcome.error.raw["arrived"] == "thinking.delta"
    assert "text" in outcome.error.raw["state"]
    assert outcome.error.raw["rule"]
    assert "thinking.delta" in outcome.error.message


def test_a_done_that_does_not_match_its_deltas_fails() -> None:
    _, outcome = run(wire(*TEXT_ANSWER[:2], at(TextDone("Hello")), TEXT_ANSWER[3]))
    assert outcome.end == "failed"
    assert outcome.error is not None and outcome.error.raw["index"] == 2


def test_an_event_after_the_stop_fails() -> None:
    _, outcome = run(wire(*TEXT_ANSWER, at(TextDelta("more"))))
    assert outcome.end == "failed"
    assert outcome.error is not None and outcome.error.raw["index"] == 4


def test_a_block_that_is_no_unievent_fails_saying_why() -> None:
    events, outcome = run(wire(TEXT_ANSWER[0], {"role": "assistant", "event_type": "delta", "content_items": []}))
    assert outcome.end == "failed"
    assert events == [TEXT_ANSWER[0]]
    assert outcome.error is not None and "not a UniEvent" in outcome.error.message


def test_a_done_item_with_no_deltas_is_a_fault_not_a_pass() -> None:
    _, outcome = run(wire(at(TextDone("out of nowhere")), stop()))
    assert outcome.end == "failed"
    assert outcome.error is not None and outcome.error.raw["index"] == 0
