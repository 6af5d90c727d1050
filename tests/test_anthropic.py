"""Anthropic Messages streams decoded by StreamDecoder("anthropic").

Streams are written in the wire format Anthropic sends (`event:` line, `data:` line,
blank line).  Each test states one rule of the mapping; the corpus test at the end
replays every recorded `anthropic` stream of ../shared/corpus.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.helpers import decode_stream, decoder_on_path, split_everywhere
from unievent import (
    DeltaEvent,
    Outcome,
    SideEvent,
    StopEvent,
    StreamDecoder,
    TextDelta,
    TextDone,
    ThinkingDelta,
    ThinkingDone,
    ToolCallDelta,
    ToolCallDone,
    Usage,
    validate,
)
from unievent._protocols.anthropic import normalize_anthropic_finish

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO.parent / "shared" / "corpus"

# --- building wire bytes ------------------------------------------------------------------


def frame(obj: dict[str, Any], event: str | None = "", nl: str = "\n") -> str:
    """One SSE event; `event` defaults to the data's type, None leaves the line out."""
    name = obj["type"] if event == "" else event
    head = f"event: {name}{nl}" if name is not None else ""
    return f"{head}data: {json.dumps(obj, separators=(',', ':'), ensure_ascii=False)}{nl}{nl}"


def message_start(model: str = "claude-sonnet-4-5", input_tokens: int = 10, **usage: int) -> dict[str, Any]:
    return {
        "type": "message_start",
        "message": {
            "id": "msg_01",
            "type": "message",
            "role": "assistant",
            "model": model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": input_tokens, "output_tokens": 1, **usage},
        },
    }


def start(index: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": block}


def delta(index: int, d: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": d}


def text_delta(index: int, text: str) -> dict[str, Any]:
    return delta(index, {"type": "text_delta", "text": text})


def json_delta(index: int, partial: str) -> dict[str, Any]:
    return delta(index, {"type": "input_json_delta", "partial_json": partial})


def stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


def message_delta(reason: str | None = "end_turn", **usage: int) -> dict[str, Any]:
    return {
        "type": "message_delta",
        "delta": {"stop_reason": reason, "stop_sequence": None},
        "usage": usage or {"output_tokens": 5},
    }


PING = {"type": "ping"}
MESSAGE_STOP = {"type": "message_stop"}
TEXT = {"type": "text", "text": ""}


def tool(index: int, name: str, call_id: str, given: dict[str, Any] | None = None) -> dict[str, Any]:
    return start(index, {"type": "tool_use", "id": call_id, "name": name, "input": given or {}})


def wire(*objs: dict[str, Any], nl: str = "\n", events: bool = True) -> bytes:
    return "".join(frame(o, "" if events else None, nl) for o in objs).encode()


def decode(data: bytes, **kwargs: Any) -> tuple[list[Any], Outcome]:
    """Decode in one push; every result must follow the grammar."""
    dec = StreamDecoder("anthropic", clock=lambda: 0, **kwargs)
    events = dec.push(data)
    last, outcome = dec.finish()
    events += last
    validate(events, partial=outcome.end != "complete")
    return events, outcome


def items(events: list[Any]) -> list[Any]:
    return [e.item for e in events if isinstance(e, DeltaEvent)]


def dones(outcome: Outcome) -> list[Any]:
    return list(outcome.message.items)


def calls(outcome: Outcome) -> list[tuple[str, str, dict[str, Any]]]:
    return [(i.name, i.tool_call_id, i.arguments) for i in outcome.message.items if isinstance(i, ToolCallDone)]


def simple(*blocks: dict[str, Any], reason: str | None = "end_turn") -> bytes:
    return wire(message_start(), *blocks, message_delta(reason), MESSAGE_STOP)


# --- text ---------------------------------------------------------------------------------

MINIMAL = (
    b"event: message_start\n"
    b'data: {"type":"message_start","message":{"model":"claude-sonnet-4-5-20250929","id":"msg_1","type":"message",'
    b'"role":"assistant","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":20,'
    b'"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}            }\n\n'
    b"event: content_block_start\n"
    b'data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}        }\n\n'
    b"event: ping\n"
    b'data: {"type": "ping"}\n\n'
    b"event: content_block_delta\n"
    b'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}      }\n\n'
    b"event: content_block_delta\n"
    b'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":", w\xc3\xb6rld"}}\n\n'
    b"event: content_block_stop\n"
    b'data: {"type":"content_block_stop","index":0        }\n\n'
    b"event: message_delta\n"
    b'data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},'
    b'"usage":{"output_tokens":5}       }\n\n'
    b"event: message_stop\n"
    b'data: {"type":"message_stop"    }\n\n'
)


def test_text_block_becomes_one_text_group_then_stop() -> None:
    events, outcome = decode(MINIMAL)
    assert items(events) == [TextDelta("Hello"), TextDelta(", wörld"), TextDone("Hello, wörld")]
    assert events[-1] == StopEvent(Usage(cached_tokens=0, prompt_tokens=20, thoughts_tokens=None, response_tokens=5), "stop", 0)
    assert outcome.end == "complete"
    assert outcome.finish_reason == "stop"
    assert outcome.native_finish_reason == "end_turn"
    assert outcome.model == "claude-sonnet-4-5-20250929"
    assert dones(outcome) == [TextDone("Hello, wörld")]
    assert outcome.anomalies == ()


def test_each_text_block_is_its_own_item() -> None:
    events, outcome = decode(simple(start(0, TEXT), text_delta(0, "a"), stop(0), start(1, TEXT), text_delta(1, "b"), stop(1)))
    assert items(events) == [TextDelta("a"), TextDone("a"), TextDelta("b"), TextDone("b")]
    assert dones(outcome) == [TextDone("a"), TextDone("b")]


def test_text_on_the_block_start_is_text() -> None:
    _, outcome = decode(simple(start(0, {"type": "text", "text": "Hi"}), text_delta(0, "!"), stop(0)))
    assert dones(outcome) == [TextDone("Hi!")]


def test_empty_text_block_emits_nothing() -> None:
    events, outcome = decode(simple(start(0, TEXT), stop(0)))
    assert items(events) == []
    assert outcome.end == "complete"


def test_citations_ride_on_the_text_item_as_fidelity() -> None:
    c1 = {"type": "web_search_result_location", "cited_text": "x", "url": "https://a.example", "title": "A"}
    c2 = {"type": "web_search_result_location", "cited_text": "y", "url": "https://b.example", "title": "B"}
    events, outcome = decode(
        simple(
            start(0, {"type": "text", "text": "", "citations": []}),
            delta(0, {"type": "citations_delta", "citation": c1}),
            text_delta(0, "cited"),
            delta(0, {"type": "citations_delta", "citation": c2}),
            stop(0),
        )
    )
    fid = {"citations": [c1, c2]}
    assert items(events) == [TextDelta("cited"), TextDelta("", fid), TextDone("cited", fid)]
    assert dones(outcome) == [TextDone("cited", fid)]


# --- thinking -----------------------------------------------------------------------------


def test_signature_deltas_join_into_one_fidelity_carried_by_one_delta_and_the_done() -> None:
    events, _outcome = decode(
        simple(
            start(0, {"type": "thinking", "thinking": "", "signature": ""}),
            delta(0, {"type": "thinking_delta", "thinking": "Let me "}),
            delta(0, {"type": "thinking_delta", "thinking": "think."}),
            delta(0, {"type": "signature_delta", "signature": "EqQB"}),
            delta(0, {"type": "signature_delta", "signature": "Cg=="}),
            stop(0),
            start(1, TEXT),
            text_delta(1, "Done."),
            stop(1),
        )
    )
    sig = {"signature": "EqQBCg=="}
    assert items(events) == [
        ThinkingDelta("Let me "),
        ThinkingDelta("think."),
        ThinkingDelta("", sig),
        ThinkingDone("Let me think.", sig),
        TextDelta("Done."),
        TextDone("Done."),
    ]
    assert sum(1 for i in items(events) if getattr(i, "fidelity", None)) == 2  # one delta, the done


def test_thinking_block_whose_only_delta_is_a_signature() -> None:
    events, _outcome = decode(
        simple(start(0, {"type": "thinking", "thinking": "", "signature": ""}), delta(0, {"type": "signature_delta", "signature": "sig1"}), stop(0))
    )
    assert items(events) == [ThinkingDelta("", {"signature": "sig1"}), ThinkingDone("", {"signature": "sig1"})]


def test_redacted_thinking_follows_mmsp_convention() -> None:
    events, _outcome = decode(
        simple(start(0, {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va"}), stop(0), start(1, TEXT), text_delta(1, "ok"), stop(1))
    )
    fid = {"signature": "EmwKAhgBEgy3va"}
    assert items(events) == [ThinkingDelta("_REDACTED_THINKING", fid), ThinkingDone("_REDACTED_THINKING", fid), TextDelta("ok"), TextDone("ok")]


# --- tool use -----------------------------------------------------------------------------


def test_tool_use_fragments_are_the_arguments_and_the_first_delta_carries_name_and_id() -> None:
    events, outcome = decode(
        simple(
            tool(0, "get_weather", "toolu_01"),
            json_delta(0, ""),
            json_delta(0, '{"city": "Par'),
            json_delta(0, 'is"}'),
            stop(0),
            reason="tool_use",
        )
    )
    assert items(events) == [
        ToolCallDelta("get_weather", "", "toolu_01"),
        ToolCallDelta("", '{"city": "Par', ""),
        ToolCallDelta("", 'is"}', ""),
        ToolCallDone("get_weather", {"city": "Paris"}, "toolu_01"),
    ]
    assert outcome.finish_reason == "tool_call"


@pytest.mark.parametrize("fragments", [[], [""]], ids=["no deltas", "one empty delta"])
def test_tool_without_parameters_has_empty_object_arguments(fragments: list[str]) -> None:
    _, outcome = decode(simple(tool(0, "now", "toolu_9"), *(json_delta(0, f) for f in fragments), stop(0), reason="tool_use"))
    assert dones(outcome) == [ToolCallDone("now", {}, "toolu_9")]


def test_non_empty_input_on_the_start_is_the_whole_arguments() -> None:
    events, _outcome = decode(simple(tool(0, "add", "toolu_2", {"a": 1, "b": 2}), stop(0), reason="tool_use"))
    assert items(events) == [ToolCallDelta("add", '{"a":1,"b":2}', "toolu_2"), ToolCallDone("add", {"a": 1, "b": 2}, "toolu_2")]


def test_two_tool_calls_stay_two_calls() -> None:
    _, outcome = decode(
        simple(
            tool(0, "f", "toolu_a"),
            json_delta(0, '{"x": 1}'),
            stop(0),
            tool(1, "f", "toolu_b"),
            json_delta(1, '{"x": 2}'),
            stop(1),
            reason="tool_use",
        )
    )
    assert dones(outcome) == [ToolCallDone("f", {"x": 1}, "toolu_a"), ToolCallDone("f", {"x": 2}, "toolu_b")]


def test_thinking_then_text_then_tool() -> None:
    events, outcome = decode(
        simple(
            start(0, {"type": "thinking", "thinking": "", "signature": ""}),
            delta(0, {"type": "thinking_delta", "thinking": "need weather"}),
            delta(0, {"type": "signature_delta", "signature": "S"}),
            stop(0),
            start(1, TEXT),
            text_delta(1, "Checking."),
            stop(1),
            tool(2, "get_weather", "toolu_w"),
            json_delta(2, '{"city":"Oslo"}'),
            stop(2),
            reason="tool_use",
        )
    )
    assert dones(outcome) == [
        ThinkingDone("need weather", {"signature": "S"}),
        TextDone("Checking."),
        ToolCallDone("get_weather", {"city": "Oslo"}, "toolu_w"),
    ]
    assert [type(i).__name__ for i in items(events)] == [
        "ThinkingDelta", "ThinkingDelta", "ThinkingDone", "TextDelta", "TextDone", "ToolCallDelta", "ToolCallDelta", "ToolCallDone",
    ]
    assert isinstance(events[-1], StopEvent) and events[-1].finish_reason == "tool_call"


def test_tool_arguments_that_are_not_json_fail_the_stream() -> None:
    _, outcome = decode(simple(tool(0, "f", "toolu_x"), json_delta(0, '{"x": '), stop(0), reason="tool_use"))
    assert outcome.end == "failed"
    assert outcome.error is not None and outcome.error.type == "tool_call_argument_parse_error"


# --- ends ---------------------------------------------------------------------------------


def test_stream_cut_mid_tool_input_is_truncated_and_the_call_is_not_offered() -> None:
    data = wire(message_start(), start(0, TEXT), text_delta(0, "Let me look."), stop(0), tool(1, "search", "toolu_s"), json_delta(1, '{"q": "ca'))
    events, outcome = decode(data)
    assert outcome.end == "truncated"
    assert outcome.finish_reason is None
    assert dones(outcome) == [TextDone("Let me look.")]
    assert items(events)[-1] == ToolCallDelta("", '{"q": "ca', "")  # its group stays open
    assert not any(isinstance(e, StopEvent) for e in events)


def test_error_after_text_fails_and_keeps_the_text() -> None:
    data = wire(message_start(), start(0, TEXT), text_delta(0, "Partial ans")) + (
        b"event: error\n"
        b'data: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n'
    )
    _events, outcome = decode(data)
    assert outcome.end == "failed"
    assert outcome.error is not None
    assert (outcome.error.type, outcome.error.message) == ("overloaded_error", "Overloaded")
    assert dones(outcome) == [TextDone("Partial ans")]


def test_nothing_is_read_after_an_error() -> None:
    data = wire(message_start(), {"type": "error", "error": {"type": "api_error", "message": "boom"}}, start(0, TEXT), text_delta(0, "late"))
    _, outcome = decode(data)
    assert outcome.end == "failed" and dones(outcome) == []


def test_stop_reason_without_message_stop_is_complete() -> None:
    _, outcome = decode(wire(message_start(), start(0, TEXT), text_delta(0, "x"), stop(0), message_delta("max_tokens")))
    assert (outcome.end, outcome.finish_reason) == ("complete", "length")


def test_message_stop_without_stop_reason_is_complete() -> None:
    _, outcome = decode(wire(message_start(), start(0, TEXT), text_delta(0, "x"), stop(0), message_delta(None), MESSAGE_STOP))
    assert (outcome.end, outcome.finish_reason, outcome.native_finish_reason) == ("complete", "unknown", None)


def test_no_stop_reason_and_no_message_stop_is_truncated() -> None:
    _, outcome = decode(wire(message_start(), start(0, TEXT), text_delta(0, "x"), stop(0), message_delta(None)))
    assert outcome.end == "truncated"
    assert dones(outcome) == [TextDone("x")]


def test_done_sentinel_after_message_stop_is_fine() -> None:
    _, outcome = decode(simple(start(0, TEXT), text_delta(0, "x"), stop(0)) + b"data: [DONE]\n\n")
    assert outcome.end == "complete"


@pytest.mark.parametrize(
    ("native", "mapped"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("max_tokens", "length"),
        ("tool_use", "tool_call"),
        ("pause_turn", "unknown"),
        ("refusal", "unknown"),
        ("model_context_window_exceeded", "unknown"),
        ("something_new", "unknown"),
    ],
)
def test_finish_reason_mapping_keeps_the_native_value(native: str, mapped: str) -> None:
    events, outcome = decode(simple(start(0, TEXT), text_delta(0, "x"), stop(0), reason=native))
    assert (outcome.finish_reason, outcome.native_finish_reason) == (mapped, native)
    assert isinstance(events[-1], StopEvent) and events[-1].finish_reason == mapped
    assert normalize_anthropic_finish(native) == mapped


# --- lifecycle: strict semantics, lenient recovery --------------------------------------


def kinds(outcome: Outcome) -> dict[str, int]:
    return {a.kind: a.count for a in outcome.anomalies}


def test_a_stream_of_only_text_deltas_keeps_its_text() -> None:
    events, outcome = decode(wire(text_delta(0, "Hel"), text_delta(0, "lo")))
    assert outcome.end == "truncated"  # no stop reason, no message_stop
    assert dones(outcome) == [TextDone("Hello")]
    assert [i.text for i in items(events) if isinstance(i, TextDelta)] == ["Hel", "lo"]
    assert kinds(outcome) == {"implied_message_start": 1, "implied_block_start": 1}


def test_no_message_start_is_implied_by_the_first_frame() -> None:
    _, outcome = decode(wire(start(0, TEXT), text_delta(0, "x"), stop(0), message_delta("end_turn"), MESSAGE_STOP))
    assert (outcome.end, outcome.finish_reason) == ("complete", "stop")
    assert dones(outcome) == [TextDone("x")]
    assert kinds(outcome) == {"implied_message_start": 1}


def test_message_delta_as_the_first_frame_implies_the_message() -> None:
    _, outcome = decode(wire(message_delta("end_turn"), MESSAGE_STOP))
    assert (outcome.end, outcome.native_finish_reason) == ("complete", "end_turn")
    assert kinds(outcome) == {"implied_message_start": 1}


@pytest.mark.parametrize(
    ("first", "item"),
    [
        (text_delta(0, "x"), TextDone("x")),
        (delta(0, {"type": "thinking_delta", "thinking": "hmm"}), ThinkingDone("hmm")),
        (delta(0, {"type": "signature_delta", "signature": "c2ln"}), ThinkingDone("", {"signature": "c2ln"})),
    ],
    ids=["text_delta", "thinking_delta", "signature_delta"],
)
def test_a_delta_for_a_block_never_started_opens_it_by_its_type(first: dict[str, Any], item: Any) -> None:
    _, outcome = decode(wire(message_start(), first, stop(0), message_delta("end_turn"), MESSAGE_STOP))
    assert outcome.end == "complete"
    assert dones(outcome) == [item]
    assert kinds(outcome) == {"implied_block_start": 1}


def test_tool_input_before_its_start_is_named_by_the_late_start() -> None:
    objs = [json_delta(0, '{"city":'), tool(0, "weather", "toolu_1"), json_delta(0, ' "Oslo"}'), stop(0)]
    events, outcome = decode(wire(message_start(), *objs, message_delta("tool_use"), MESSAGE_STOP))
    assert calls(outcome) == [("weather", "toolu_1", {"city": "Oslo"})]
    assert [i.arguments for i in items(events) if isinstance(i, ToolCallDelta)] == ['{"city":', ' "Oslo"}']
    assert kinds(outcome) == {"implied_block_start": 1}


def test_tool_input_never_named_stays_on_the_side_channel() -> None:
    _, outcome = decode(wire(message_start(), json_delta(0, '{"a": 1}'), stop(0), message_delta("tool_use"), MESSAGE_STOP))
    assert calls(outcome) == []
    assert [(e.kind, e.phase, e.data) for e in outcome.side_events] == [
        ("tool_use", "done", {"type": "tool_use", "partial_json": '{"a": 1}'})
    ]
    assert kinds(outcome) == {"implied_block_start": 1, "unnamed_tool_call": 1}


def test_a_start_while_a_block_is_open_closes_it_first() -> None:
    objs = [start(0, TEXT), text_delta(0, "a"), start(1, TEXT), text_delta(1, "b"), stop(1)]
    _, outcome = decode(wire(message_start(), *objs, message_delta("end_turn"), MESSAGE_STOP))
    assert dones(outcome) == [TextDone("a"), TextDone("b")]
    assert kinds(outcome) == {"block_left_open": 1}


def test_a_delta_for_the_next_block_closes_the_open_one() -> None:
    objs = [start(0, TEXT), text_delta(0, "a"), text_delta(1, "b"), stop(1)]
    _, outcome = decode(wire(message_start(), *objs, message_delta("end_turn"), MESSAGE_STOP))
    assert dones(outcome) == [TextDone("a"), TextDone("b")]
    assert kinds(outcome) == {"block_left_open": 1, "implied_block_start": 1}


@pytest.mark.parametrize("end", [message_delta("end_turn"), MESSAGE_STOP], ids=["message_delta", "message_stop"])
def test_the_message_ending_closes_an_open_block(end: dict[str, Any]) -> None:
    _, outcome = decode(wire(message_start(), start(0, TEXT), text_delta(0, "a"), end))
    assert outcome.end == "complete"
    assert dones(outcome) == [TextDone("a")]
    assert kinds(outcome) == {"block_left_open": 1}


def test_a_stop_for_no_open_block_changes_nothing() -> None:
    objs = [start(0, TEXT), text_delta(0, "a"), stop(1), text_delta(0, "b"), stop(0), stop(0)]
    _, outcome = decode(wire(message_start(), *objs, message_delta("end_turn"), MESSAGE_STOP))
    assert dones(outcome) == [TextDone("ab")]
    assert kinds(outcome) == {"stray_block_stop": 2}


@pytest.mark.parametrize(
    ("objs", "state", "event"),
    [
        ([text_delta(0, "a"), stop(0), text_delta(0, "late")], "message", "content_block_delta for block 0, which already stopped"),
        ([start(0, TEXT), text_delta(0, "a"), start(1, TEXT), text_delta(0, "late")], "block", "content_block_delta for block 0, which already stopped"),
        ([start(0, TEXT), text_delta(0, "a"), stop(0), message_delta("end_turn"), start(1, TEXT)], "finished", "content_block_start for block 1 after the stop reason"),
        ([start(0, TEXT), text_delta(0, "a"), stop(0), MESSAGE_STOP, message_delta("end_turn")], "stopped", "message_delta"),
    ],
    ids=["delta after its stop", "delta for a closed block", "block after the stop reason", "message_delta after message_stop"],
)
def test_contradictions_fail_naming_state_and_event_and_keep_what_arrived(
    objs: list[dict[str, Any]], state: str, event: str
) -> None:
    _events, outcome = decode(wire(message_start(), *objs, MESSAGE_STOP))
    assert outcome.end == "failed"
    assert outcome.error is not None
    assert outcome.error.type == "protocol_error"
    assert f"out-of-order event: {event}" in outcome.error.message
    assert f"in state '{state}'" in outcome.error.message
    assert [i.text for i in dones(outcome)] == ["a"]


# An event that names a block that already stopped and changes nothing done (a delta type
# nobody knows yet, an empty delta) is late, not a contradiction: a side event of that
# block and one `late_event` anomaly, wherever it comes.
PROGRESS = delta(0, {"type": "search_progress_delta", "status": "done"})  # a delta type not known yet
BLOCK_0 = [start(0, TEXT), text_delta(0, "a"), stop(0)]
BLOCK_1 = [start(1, TEXT), text_delta(1, "b"), stop(1)]
ENDING = [message_delta("end_turn"), MESSAGE_STOP]


@pytest.mark.parametrize("late", [PROGRESS, text_delta(0, ""), delta(0, {"type": "signature_delta", "signature": ""})], ids=["new type", "empty text", "empty signature"])
@pytest.mark.parametrize(
    "objs",
    [
        [*BLOCK_0, "late", *BLOCK_1, *ENDING],
        [*BLOCK_0, start(1, TEXT), "late", text_delta(1, "b"), stop(1), *ENDING],
        [*BLOCK_0, *BLOCK_1, ENDING[0], "late", ENDING[1]],
        [*BLOCK_0, *BLOCK_1, *ENDING, "late"],
    ],
    ids=["between blocks", "in the next block", "after the stop reason", "after message_stop"],
)
def test_an_earlier_blocks_event_that_changes_nothing_done_is_late_not_a_contradiction(
    objs: list[Any], late: dict[str, Any]
) -> None:
    body = wire(message_start(), *[late if o == "late" else o for o in objs], nl="\r\n")
    events, outcome = split_everywhere("anthropic", body, side_events=True)
    assert outcome.end == "complete" and outcome.finish_reason == "stop"
    assert [i.text for i in dones(outcome)] == ["a", "b"]
    assert kinds(outcome) == {"late_event": 1}
    assert [e.data for e in events if isinstance(e, SideEvent) and e.phase == "info"] == [late]
    assert decode_stream("anthropic", body, side_events=True) == decode_on_slow_path(body, side_events=True)


def decode_on_slow_path(body: bytes, **options: Any) -> tuple[list[Any], Outcome]:
    decoder = decoder_on_path("anthropic", True, stream_id="s", clock=lambda: 0, **options)
    events = decoder.push(body)
    last, outcome = decoder.finish()
    return events + last, outcome


# --- usage and model ----------------------------------------------------------------------


def test_usage_mapping_prompt_includes_cache_writes_cached_is_cache_reads() -> None:
    data = wire(
        message_start(input_tokens=100, cache_creation_input_tokens=20, cache_read_input_tokens=300),
        start(0, TEXT),
        text_delta(0, "x"),
        stop(0),
        message_delta("end_turn", output_tokens=42),
        MESSAGE_STOP,
    )
    events, outcome = decode(data)
    assert outcome.usage == Usage(cached_tokens=300, prompt_tokens=120, thoughts_tokens=None, response_tokens=42)
    assert events[-1].usage == outcome.usage


def test_usage_is_cumulative_newest_wins_and_zero_never_erases() -> None:
    # gateways send zeros at the start and the real counts at the end; Anthropic
    # repeats the input counts on message_delta
    data = wire(
        message_start(input_tokens=0, cache_read_input_tokens=0),
        start(0, TEXT),
        text_delta(0, "x"),
        stop(0),
        {"type": "message_delta", "delta": {"stop_reason": None}, "usage": {"input_tokens": 50, "cache_read_input_tokens": 7, "output_tokens": 3}},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"input_tokens": 0, "output_tokens": 9}},
        MESSAGE_STOP,
    )
    _, outcome = decode(data)
    assert outcome.usage == Usage(cached_tokens=7, prompt_tokens=50, thoughts_tokens=None, response_tokens=9)


def test_reported_thinking_tokens_are_thoughts_and_leave_the_response_count() -> None:
    usage = {"output_tokens": 943, "output_tokens_details": {"thinking_tokens": 261}}
    data = wire(message_start(input_tokens=4), {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": usage}, MESSAGE_STOP)
    _, outcome = decode(data)
    assert outcome.usage == Usage(cached_tokens=None, prompt_tokens=4, thoughts_tokens=261, response_tokens=682)


def test_several_message_starts_in_one_response() -> None:
    # programmatic tool calling: a second message follows in the same response
    data = wire(
        message_start(model="claude-sonnet-4-6", input_tokens=10),
        start(0, TEXT),
        text_delta(0, "one"),
        stop(0),
        message_start(model="claude-sonnet-4-6", input_tokens=30),
        start(0, TEXT),
        text_delta(0, "two"),
        stop(0),
        message_delta("end_turn", output_tokens=8),
        MESSAGE_STOP,
    )
    _, outcome = decode(data)
    assert outcome.end == "complete"
    assert dones(outcome) == [TextDone("one"), TextDone("two")]
    assert outcome.usage == Usage(cached_tokens=None, prompt_tokens=30, thoughts_tokens=None, response_tokens=8)


def test_a_message_may_follow_message_stop() -> None:
    data = simple(start(0, TEXT), text_delta(0, "one"), stop(0), reason="pause_turn") + simple(start(0, TEXT), text_delta(0, "two"), stop(0))
    _, outcome = decode(data)
    assert outcome.end == "complete"
    assert dones(outcome) == [TextDone("one"), TextDone("two")]
    assert outcome.native_finish_reason == "end_turn"


# --- wire variations ----------------------------------------------------------------------

RICH = [
    message_start(input_tokens=12, cache_read_input_tokens=3),
    start(0, {"type": "thinking", "thinking": "", "signature": ""}),
    PING,
    delta(0, {"type": "thinking_delta", "thinking": "Hmm… 🤔"}),
    delta(0, {"type": "signature_delta", "signature": "c2ln"}),
    stop(0),
    start(1, TEXT),
    text_delta(1, "Grüße, "),
    text_delta(1, "世界"),
    stop(1),
    start(2, {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}),
    json_delta(2, '{"query": "wea'),
    json_delta(2, 'ther"}'),
    stop(2),
    start(3, {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [{"type": "web_search_result", "url": "https://x.example", "title": "X"}]}),
    stop(3),
    start(4, TEXT),
    text_delta(4, "It rains."),
    stop(4),
    tool(5, "get_time", "toolu_t"),
    json_delta(5, '{"tz": "Europe/Berlin"}'),
    stop(5),
    message_delta("tool_use", output_tokens=77),
    MESSAGE_STOP,
]


def test_wire_variants_decode_the_same() -> None:
    """Missing event: lines, \\r\\n endings, no pings, pings with spaces, padded JSON."""
    reference, outcome = decode(wire(*RICH))
    assert outcome.end == "complete"
    no_pings = [o for o in RICH if o is not PING]
    padded = "".join(
        f"event: {o['type']}\ndata: {json.dumps(o, indent=1)}    \n\n".replace("\n ", " ").replace("\n}", " }")
        for o in RICH
    ).encode()
    spaced_ping = wire(*RICH).replace(b'"type":"ping"', b'"type": "ping"')
    for variant in (wire(*RICH, events=False), wire(*RICH, nl="\r\n"), wire(*no_pings), padded, spaced_ping):
        events, again = decode(variant)
        assert events == reference
        assert again == outcome


def test_event_name_is_used_when_the_data_has_no_type() -> None:
    objs = [{k: v for k, v in o.items() if k != "type"} | {"_": 0} for o in RICH]
    data = "".join(f"event: {o['type']}\ndata: {json.dumps(s)}\n\n" for o, s in zip(RICH, objs, strict=True)).encode()
    events, _outcome = decode(data)
    assert events == decode(wire(*RICH))[0]


# --- the side channel ---------------------------------------------------------------------


def test_server_tools_are_side_events_in_order_never_tool_calls() -> None:
    dec = StreamDecoder("anthropic", side_events=True, clock=lambda: 0)
    out = dec.push(wire(*RICH))
    last, outcome = dec.finish()
    out += last
    validate(out)
    shape = [
        (e.kind, e.phase, e.item_id) if isinstance(e, SideEvent) else type(getattr(e, "item", e)).__name__
        for e in out
    ]
    assert shape == [
        "ThinkingDelta", "ThinkingDelta", "ThinkingDone",
        "TextDelta", "TextDelta", "TextDone",
        ("server_tool_use", "start", "srvtoolu_1"),
        ("server_tool_use", "delta", "srvtoolu_1"),
        ("server_tool_use", "delta", "srvtoolu_1"),
        ("server_tool_use", "done", "srvtoolu_1"),
        ("web_search_tool_result", "start", "srvtoolu_1"),
        ("web_search_tool_result", "done", "srvtoolu_1"),
        "TextDelta", "TextDone",
        "ToolCallDelta", "ToolCallDelta", "ToolCallDone",
        "StopEvent",
    ]
    side = [e for e in out if isinstance(e, SideEvent)]
    assert side[0].data == RICH[10]["content_block"]
    assert side[1].data == {"type": "input_json_delta", "partial_json": '{"query": "wea'}
    assert side[3].data == {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "weather"}}
    assert side[5].data == RICH[14]["content_block"]
    assert {e.protocol for e in side} == {"anthropic"}
    # the outcome keeps each side block's start and done, never its deltas (the done
    # carries what they assembled): it grows with blocks, not with frames
    assert outcome.side_events == tuple(e for e in side if e.phase != "delta")
    assert [i.name for i in dones(outcome) if isinstance(i, ToolCallDone)] == ["get_time"]
    assert outcome.finish_reason == "tool_call"


def test_side_events_stay_out_of_events_unless_asked_but_are_in_the_outcome() -> None:
    events, outcome = decode(wire(*RICH))
    assert not any(isinstance(e, SideEvent) for e in events)
    assert [(e.kind, e.phase) for e in outcome.side_events] == [
        ("server_tool_use", "start"), ("server_tool_use", "done"),
        ("web_search_tool_result", "start"), ("web_search_tool_result", "done"),
    ]


def test_mcp_and_unknown_block_types_go_to_the_side_channel() -> None:
    _, outcome = decode(
        simple(
            start(0, {"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "ask", "server_name": "gh", "input": {}}),
            json_delta(0, '{"q": 1}'),
            stop(0),
            start(1, {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_1", "is_error": False, "content": []}),
            stop(1),
            start(2, {"type": "compaction", "content": None}),
            delta(2, {"type": "compaction_delta", "content": "Summary "}),
            delta(2, {"type": "compaction_delta", "content": "so far."}),
            stop(2),
        )
    )
    done = [(e.kind, e.item_id, e.data) for e in outcome.side_events if e.phase == "done"]
    assert done == [
        ("mcp_tool_use", "mcptoolu_1", {"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "ask", "server_name": "gh", "input": {"q": 1}}),
        ("mcp_tool_result", "mcptoolu_1", {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_1", "is_error": False, "content": []}),
        ("compaction", None, {"type": "compaction", "content": "Summary so far."}),
    ]
    assert dones(outcome) == []


def test_unknown_frame_types_are_kept_not_fatal() -> None:
    data = simple(start(0, TEXT), text_delta(0, "x"), stop(0))
    data = data.replace(b"event: message_delta", b'event: future_thing\ndata: {"type":"future_thing","n":1}\n\nevent: message_delta', 1)
    _, outcome = decode(data)
    assert outcome.end == "complete"
    assert [(e.kind, e.phase, e.data) for e in outcome.side_events] == [("future_thing", "info", {"type": "future_thing", "n": 1})]
    assert [str(a) for a in outcome.anomalies] == ["unknown_frame x1: unknown frame type 'future_thing' kept on the side channel"]


# --- properties ---------------------------------------------------------------------------


def _run(pieces: list[bytes]) -> tuple[list[Any], Outcome]:
    dec = StreamDecoder("anthropic", side_events=True, clock=lambda: 0, stream_id="s")
    events: list[Any] = []
    for piece in pieces:
        events += dec.push(piece)
    last, outcome = dec.finish()
    return events + last, outcome


def _split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    return [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]


_STREAMS = [
    wire(*RICH, nl="\r\n"),
    wire(*RICH, events=False),
    MINIMAL,
    wire(message_start(), start(0, TEXT), text_delta(0, "Grüße"), stop(0), tool(1, "f", "toolu_f"), json_delta(1, '{"a": "é')),
    wire(message_start(), start(0, TEXT), text_delta(0, "ab"), {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}),
    wire(message_start(), start(0, TEXT), text_delta(3, "x")),
]


def test_byte_by_byte_equals_whole() -> None:
    for data in _STREAMS:
        assert _run([data[i : i + 1] for i in range(len(data))]) == _run([data])


@settings(max_examples=200, deadline=None)
@given(st.sampled_from(range(len(_STREAMS))), st.lists(st.integers(min_value=0, max_value=10_000), max_size=30))
def test_split_invariance_and_grammar(which: int, cuts: list[int]) -> None:
    data = _STREAMS[which]
    whole = _run([data])
    events, outcome = _run(_split(data, cuts))
    assert (events, outcome) == whole
    validate(events, partial=outcome.end != "complete")


# --- recorded streams ---------------------------------------------------------------------


def _corpus_entries() -> list[dict[str, Any]]:
    if not (CORPUS / "manifest.json").exists():
        return []
    entries = orjson.loads((CORPUS / "manifest.json").read_bytes())
    return [e for e in entries if e.get("protocol") == "anthropic" and e.get("wire_format") == "sse"]


def _message_start_usage(data: bytes) -> dict[str, Any]:
    for line in data.splitlines():
        if line.startswith(b"data:") and b'"message_start"' in line:
            usage: dict[str, Any] = orjson.loads(line[5:])["message"]["usage"]
            return usage
    return {}


@pytest.mark.skipif(not CORPUS.exists(), reason="../shared/corpus is not here")
@pytest.mark.parametrize("entry", _corpus_entries(), ids=lambda e: Path(e["file"]).stem)
def test_recorded_stream(entry: dict[str, Any]) -> None:
    data = (CORPUS / entry["file"]).read_bytes()
    expected = entry["expected"]
    events, outcome = _run([data])
    validate(events, partial=outcome.end != "complete")
    assert outcome.end == ("failed" if expected.get("error") else "complete")
    got = dones(outcome)
    assert "".join(i.text for i in got if isinstance(i, TextDone)) == expected.get("text", "")
    if "thinking" in expected:
        assert "".join(i.thinking for i in got if isinstance(i, ThinkingDone)) == expected["thinking"]
    calls = [(i.name, i.arguments) for i in got if isinstance(i, ToolCallDone)]
    assert calls == [(c["name"], json.loads(c["arguments"])) for c in expected.get("tool_calls") or []]
    assert outcome.native_finish_reason == expected["finish_reason"]
    assert outcome.finish_reason == normalize_anthropic_finish(expected["finish_reason"])
    # the provider's final usage object, merged over message_start's the documented
    # way: the newest count wins, but a zero never erases an earlier non-zero; with
    # `iterations` (compaction) the usage is their sum, what the request cost
    first = _message_start_usage(data)
    usage = {k: v if v or not isinstance(first.get(k), int) else first[k] for k, v in expected["usage"].items()}
    if expected["usage"].get("iterations"):
        for key in ("input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens", "output_tokens"):
            usage[key] = sum(it.get(key, 0) for it in expected["usage"]["iterations"])
        assert outcome.extras["usage_iterations"] == expected["usage"]["iterations"]
    thinking = (usage.get("output_tokens_details") or {}).get("thinking_tokens")
    assert outcome.usage == Usage(
        cached_tokens=usage["cache_read_input_tokens"],
        prompt_tokens=usage["input_tokens"] + usage["cache_creation_input_tokens"],
        thoughts_tokens=thinking,
        response_tokens=usage["output_tokens"] - (thinking or 0),
    )
    side_done = [e for e in outcome.side_events if e.phase == "done"]
    server = [(e.kind, e.data.get("name"), e.data.get("input")) for e in side_done if "name" in e.data]
    assert server == [(s["kind"], s["name"], json.loads(s["arguments"])) for s in expected.get("server_tools", [])]
    # nothing the provider ran itself became a client tool call
    assert not {c[0] for c in calls} & {s["name"] for s in expected.get("server_tools", [])}
    assert outcome.anomalies == ()


def test_a_thinking_block_cut_after_its_signature_keeps_it() -> None:
    sig = delta(0, {"type": "signature_delta", "signature": "c2ln"})
    _, outcome = decode(wire(message_start(), start(0, {"type": "thinking", "thinking": ""}), delta(0, {"type": "thinking_delta", "thinking": "hm"}), sig))
    assert outcome.end == "truncated"
    assert dones(outcome) == [ThinkingDone("hm", {"signature": "c2ln"})]


def test_an_advisor_model_s_iterations_are_priced_apart() -> None:
    from tests.helpers import split_everywhere

    iterations = [
        {"type": "message", "input_tokens": 100, "cache_read_input_tokens": 20, "output_tokens": 50},
        {"type": "advisor_message", "model": "claude-opus-4-5", "input_tokens": 900, "output_tokens": 40},
        {"type": "advisor_message", "model": "claude-opus-4-5", "input_tokens": 300, "output_tokens": 10},
        {"type": "message", "input_tokens": 120, "output_tokens": 30},
    ]
    # the top-level counts are the sum of the request model's own iterations
    top = {"input_tokens": 220, "cache_read_input_tokens": 20, "output_tokens": 80}
    end = {**message_delta("end_turn"), "usage": {**top, "iterations": iterations}}
    body = wire(message_start(input_tokens=220), start(0, TEXT), text_delta(0, "Hi"), stop(0), end, MESSAGE_STOP, nl="\r\n")
    _events, outcome = split_everywhere("anthropic", body)
    assert outcome.usage == Usage(cached_tokens=20, prompt_tokens=220, thoughts_tokens=None, response_tokens=80)
    assert outcome.extras["usage_by_model"] == {
        "claude-opus-4-5": {
            "input_tokens": 1200, "cache_creation_input_tokens": 0, "cache_read_input_tokens": 0, "output_tokens": 50,
        }
    }
