"""OpenAI Responses decoding (issue 5): every rule, with streams in the real wire format.

Each test builds a stream the way the servers send it (`event: <type>` + `data: <json>`
with a `sequence_number`, or OpenRouter's bare `data:` lines and trailing `[DONE]`),
decodes it, checks that the events follow the UniEvent grammar, and states exactly
what the client sees: events, side events and the outcome.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import unievent
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
)

REPO = Path(__file__).resolve().parent.parent
CORPUS = REPO.parent / "shared" / "corpus"

# --- building streams -------------------------------------------------------------------

MODEL = "gpt-5-2025-08-07"
USAGE = {
    "input_tokens": 100,
    "input_tokens_details": {"cached_tokens": 40},
    "output_tokens": 50,
    "output_tokens_details": {"reasoning_tokens": 20},
    "total_tokens": 150,
}


def sse(*frames: dict[str, Any] | bytes, event_lines: bool = True, first_seq: int | None = 0) -> bytes:
    """Frames as a server sends them; dicts get the next sequence_number unless
    `first_seq` is None or the frame has one; bytes are written as they are."""
    out: list[bytes] = []
    seq = first_seq
    for given_frame in frames:
        if isinstance(given_frame, bytes):
            out.append(given_frame)
            continue
        frame = dict(given_frame)
        if seq is not None and "sequence_number" not in frame:
            frame["sequence_number"] = seq
            seq += 1
        head = f"event: {frame['type']}\n" if event_lines else ""
        out.append(f"{head}data: {json.dumps(frame, ensure_ascii=False)}\n\n".encode())
    return b"".join(out)


def response(status: str = "in_progress", **fields: Any) -> dict[str, Any]:
    return {"id": "resp_1", "object": "response", "status": status, "model": MODEL, "output": [], **fields}


def created() -> dict[str, Any]:
    return {"type": "response.created", "response": response()}


def in_progress() -> dict[str, Any]:
    return {"type": "response.in_progress", "response": response()}


def completed(usage: dict[str, Any] | None = None, **fields: Any) -> dict[str, Any]:
    return {"type": "response.completed", "response": response("completed", usage=usage or USAGE, **fields)}


def added(index: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.added", "output_index": index, "item": item}


def item_done(index: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.done", "output_index": index, "item": item}


def message(index: int, text: str, item_id: str = "msg_1", phase: str | None = None) -> list[dict[str, Any]]:
    """A message item streamed in the usual events, its text in two deltas."""
    start: dict[str, Any] = {
        "id": item_id,
        "type": "message",
        "status": "in_progress",
        "content": [],
        "role": "assistant",
    }
    if phase:
        start["phase"] = phase
    part = {"type": "output_text", "annotations": [], "text": ""}
    cut = len(text) // 2
    final = {**start, "status": "completed", "content": [{**part, "text": text}]}
    where = {"item_id": item_id, "output_index": index, "content_index": 0}
    return [
        added(index, start),
        {"type": "response.content_part.added", **where, "part": part},
        {"type": "response.output_text.delta", **where, "delta": text[:cut]},
        {"type": "response.output_text.delta", **where, "delta": text[cut:]},
        {"type": "response.output_text.done", **where, "text": text},
        {"type": "response.content_part.done", **where, "part": {**part, "text": text}},
        item_done(index, final),
    ]


def reasoning(
    index: int, summary: list[str], item_id: str = "rs_1", encrypted: str | None = "gAAA-secret"
) -> list[dict[str, Any]]:
    """A reasoning item with summary parts (each in two deltas) and encrypted content."""
    start: dict[str, Any] = {"id": item_id, "type": "reasoning", "summary": []}
    events = [added(index, start)]
    for n, text in enumerate(summary):
        where = {"item_id": item_id, "output_index": index, "summary_index": n}
        cut = len(text) // 2
        events += [
            {"type": "response.reasoning_summary_part.added", **where, "part": {"type": "summary_text", "text": ""}},
            {"type": "response.reasoning_summary_text.delta", **where, "delta": text[:cut]},
            {"type": "response.reasoning_summary_text.delta", **where, "delta": text[cut:]},
            {"type": "response.reasoning_summary_text.done", **where, "text": text},
            {"type": "response.reasoning_summary_part.done", **where, "part": {"type": "summary_text", "text": text}},
        ]
    final: dict[str, Any] = {**start, "summary": [{"type": "summary_text", "text": t} for t in summary]}
    if encrypted is not None:
        final["encrypted_content"] = encrypted
    events.append(item_done(index, final))
    return events


def function_call(
    index: int, name: str, call_id: str, fragments: list[str], item_id: str = "fc_1", done_arguments: bool = True
) -> list[dict[str, Any]]:
    arguments = "".join(fragments)
    start = {
        "id": item_id,
        "type": "function_call",
        "status": "in_progress",
        "name": name,
        "call_id": call_id,
        "arguments": "",
    }
    where = {"item_id": item_id, "output_index": index}
    events = [added(index, start)]
    events += [{"type": "response.function_call_arguments.delta", **where, "delta": f} for f in fragments]
    if done_arguments:
        events.append({"type": "response.function_call_arguments.done", **where, "arguments": arguments})
    events.append(item_done(index, {**start, "status": "completed", "arguments": arguments}))
    return events


# --- decoding -----------------------------------------------------------------------------


def decode(data: bytes, pieces: list[bytes] | None = None, **options: Any) -> tuple[list[Any], Outcome]:
    """Decode, check the grammar, return (events with side events inline, outcome)."""
    dec = StreamDecoder("openai_responses", stream_id="s1", clock=lambda: 0, side_events=True, **options)
    events: list[Any] = []
    for piece in pieces if pieces is not None else [data]:
        events += dec.push(piece)
    last, outcome = dec.finish()
    events += last
    unievent.validate(events, partial=outcome.end != "complete")
    return events, outcome


def items(events: list[Any]) -> list[Any]:
    """The content items of the delta events (side events and stop left out)."""
    return [e.item for e in events if isinstance(e, DeltaEvent)]


def sides(events: list[Any]) -> list[tuple[str, str, str | None]]:
    return [(e.kind, e.phase, e.item_id) for e in events if isinstance(e, SideEvent)]


def stop_of(events: list[Any]) -> StopEvent:
    stop = events[-1]
    assert isinstance(stop, StopEvent)
    return stop


# --- text, usage, model -------------------------------------------------------------------


def test_text_stream_maps_to_text_items_usage_and_stop() -> None:
    events, outcome = decode(sse(created(), in_progress(), *message(0, "Hello there"), completed()))
    assert items(events) == [TextDelta("Hello"), TextDelta(" there"), TextDone("Hello there")]
    usage = Usage(cached_tokens=40, prompt_tokens=60, thoughts_tokens=20, response_tokens=30)
    assert stop_of(events) == StopEvent(usage, "stop", 0)
    assert outcome.end == "complete"
    assert outcome.finish_reason == "stop"
    assert outcome.native_finish_reason == "completed"
    assert outcome.model == MODEL
    assert outcome.usage == usage
    assert outcome.anomalies == ()
    assert outcome.extras["response_id"] == "resp_1"


def test_usage_without_detail_blocks() -> None:
    usage = {"input_tokens": 12, "output_tokens": 7}
    _, outcome = decode(sse(created(), *message(0, "ok"), completed(usage)))
    assert outcome.usage == Usage(cached_tokens=None, prompt_tokens=12, thoughts_tokens=None, response_tokens=7)


def test_every_message_item_is_its_own_text_item_with_its_phase_as_fidelity() -> None:
    stream = sse(
        created(),
        *message(0, "Let me check.", "msg_a", phase="commentary"),
        *message(1, "Done.", "msg_b", phase="final_answer"),
        completed(),
    )
    events, outcome = decode(stream)
    assert items(events) == [
        TextDelta("", {"phase": "commentary"}),
        TextDelta("Let me"),
        TextDelta(" check."),
        TextDone("Let me check.", {"phase": "commentary"}),
        TextDelta("", {"phase": "final_answer"}),
        TextDelta("Do"),
        TextDelta("ne."),
        TextDone("Done.", {"phase": "final_answer"}),
    ]
    assert outcome.end == "complete"


def test_refusal_is_visible_text_and_kept_in_extras() -> None:
    where = {"item_id": "msg_1", "output_index": 0, "content_index": 0}
    stream = sse(
        created(),
        added(0, {"id": "msg_1", "type": "message", "content": [], "role": "assistant"}),
        {"type": "response.content_part.added", **where, "part": {"type": "refusal", "refusal": ""}},
        {"type": "response.refusal.delta", **where, "delta": "I can't "},
        {"type": "response.refusal.delta", **where, "delta": "help with that."},
        {"type": "response.refusal.done", **where, "refusal": "I can't help with that."},
        item_done(
            0,
            {"id": "msg_1", "type": "message", "content": [{"type": "refusal", "refusal": "I can't help with that."}]},
        ),
        completed(),
    )
    events, outcome = decode(stream)
    assert items(events) == [TextDelta("I can't "), TextDelta("help with that."), TextDone("I can't help with that.")]
    assert outcome.extras["refusals"] == ["I can't help with that."]
    assert outcome.finish_reason == "stop"


def test_done_texts_are_used_only_when_no_delta_arrived() -> None:
    where = {"item_id": "msg_1", "output_index": 0, "content_index": 0}
    stream = sse(
        created(),
        added(0, {"id": "msg_1", "type": "message", "content": []}),
        {"type": "response.content_part.added", **where, "part": {"type": "output_text", "text": ""}},
        {"type": "response.output_text.done", **where, "text": "whole part"},
        item_done(0, {"id": "msg_1", "type": "message", "content": [{"type": "output_text", "text": "whole part"}]}),
        # a gateway that sends the message only at output_item.done
        added(1, {"id": "msg_2", "type": "message", "content": []}),
        item_done(1, {"id": "msg_2", "type": "message", "content": [{"type": "output_text", "text": "whole item"}]}),
        completed(),
    )
    events, _ = decode(stream)
    assert items(events) == [
        TextDelta("whole part"),
        TextDone("whole part"),
        TextDelta("whole item"),
        TextDone("whole item"),
    ]


# --- reasoning ----------------------------------------------------------------------------


def test_reasoning_summary_is_thinking_with_encrypted_content_as_fidelity_once() -> None:
    stream = sse(created(), *reasoning(0, ["**Plan** A", "**Check** B"]), *message(1, "Answer"), completed())
    events, outcome = decode(stream)
    fidelity = {"encrypted_content": "gAAA-secret", "reasoning_id": "rs_1", "channel": "summary"}
    assert items(events) == [
        ThinkingDelta("**Pla"),
        ThinkingDelta("n** A"),
        ThinkingDelta("**Che"),
        ThinkingDelta("ck** B"),
        ThinkingDelta("", fidelity),
        ThinkingDone("**Plan** A**Check** B", fidelity),
        TextDelta("Ans"),
        TextDelta("wer"),
        TextDone("Answer"),
    ]
    assert outcome.message.items == (ThinkingDone("**Plan** A**Check** B", fidelity), TextDone("Answer"))


def test_reasoning_with_only_encrypted_content_is_an_empty_thinking_item_carrying_it() -> None:
    stream = sse(created(), *reasoning(0, [], encrypted="gAAA-only"), *message(1, "Hi"), completed())
    events, _ = decode(stream)
    fidelity = {"encrypted_content": "gAAA-only", "reasoning_id": "rs_1"}
    assert items(events)[:2] == [ThinkingDelta("", fidelity), ThinkingDone("", fidelity)]


def test_reasoning_with_nothing_to_keep_emits_nothing() -> None:
    events, _ = decode(sse(created(), *reasoning(0, [], encrypted=None), *message(1, "Hi"), completed()))
    assert items(events) == [TextDelta("H"), TextDelta("i"), TextDone("Hi")]


def test_raw_reasoning_text_is_thinking_deepseek_and_lm_studio() -> None:
    where = {"item_id": "rs_1", "output_index": 0, "content_index": 0}
    stream = sse(
        created(),
        added(0, {"id": "rs_1", "type": "reasoning", "summary": []}),
        {"type": "response.content_part.added", **where, "part": {"type": "reasoning_text", "text": ""}},
        {"type": "response.reasoning_text.delta", **where, "delta": "We need "},
        {"type": "response.reasoning_text.delta", **where, "delta": "Paris."},
        {"type": "response.reasoning_text.done", **where, "text": "We need Paris."},
        {"type": "response.content_part.done", **where, "part": {"type": "reasoning_text", "text": "We need Paris."}},
        item_done(
            0,
            {
                "id": "rs_1",
                "type": "reasoning",
                "summary": [],
                "content": [{"type": "reasoning_text", "text": "We need Paris."}],
            },
        ),
        *message(1, "Paris"),
        completed(),
    )
    events, _ = decode(stream)
    assert items(events)[:3] == [ThinkingDelta("We need "), ThinkingDelta("Paris."), ThinkingDone("We need Paris.")]


def test_openrouter_reasoning_item_left_open_while_the_message_streams() -> None:
    # OpenRouter: no event lines, the reasoning item is closed after the message, then [DONE]
    r = {"item_id": "rs_1", "output_index": 0, "content_index": 0}
    stream = sse(
        created(),
        added(0, {"type": "reasoning", "id": "rs_1", "summary": []}),
        {"type": "response.content_part.added", **r, "part": {"type": "reasoning_text", "text": ""}},
        {"type": "response.reasoning_text.delta", **r, "delta": "Easy: "},
        {"type": "response.reasoning_text.delta", **r, "delta": "4."},
        *message(1, "4!"),
        {"type": "response.reasoning_text.done", **r, "text": "Easy: 4."},
        {"type": "response.content_part.done", **r, "part": {"type": "reasoning_text", "text": "Easy: 4."}},
        item_done(
            0,
            {
                "type": "reasoning",
                "id": "rs_1",
                "summary": [],
                "content": [{"type": "reasoning_text", "text": "Easy: 4."}],
            },
        ),
        completed(),
        b"data: [DONE]\n\n",
        event_lines=False,
    )
    events, outcome = decode(stream)
    assert items(events) == [
        ThinkingDelta("Easy: "),
        ThinkingDelta("4."),
        ThinkingDone("Easy: 4."),
        TextDelta("4"),
        TextDelta("!"),
        TextDone("4!"),
    ]
    assert outcome.end == "complete"
    assert outcome.anomalies == ()


# --- function calls -----------------------------------------------------------------------


def test_function_call_opens_with_name_and_call_id_then_argument_fragments() -> None:
    stream = sse(created(), *function_call(0, "get_weather", "call_abc", ['{"city":', '"Paris"}']), completed())
    events, outcome = decode(stream)
    assert items(events) == [
        ToolCallDelta("get_weather", "", "call_abc"),
        ToolCallDelta("", '{"city":', ""),
        ToolCallDelta("", '"Paris"}', ""),
        ToolCallDone("get_weather", {"city": "Paris"}, "call_abc"),
    ]
    assert stop_of(events).finish_reason == "tool_call"
    assert outcome.finish_reason == "tool_call"
    assert outcome.native_finish_reason == "completed"


def test_two_parallel_function_calls_are_two_tool_calls_in_order() -> None:
    stream = sse(
        created(),
        *function_call(0, "get_weather", "call_1", ['{"city":"Paris"}'], item_id="fc_1"),
        *function_call(1, "get_time", "call_2", ['{"tz":', '"CET"}'], item_id="fc_2"),
        completed(),
    )
    events, outcome = decode(stream)
    assert [i for i in items(events) if isinstance(i, ToolCallDone)] == [
        ToolCallDone("get_weather", {"city": "Paris"}, "call_1"),
        ToolCallDone("get_time", {"tz": "CET"}, "call_2"),
    ]
    assert outcome.message.items == (
        ToolCallDone("get_weather", {"city": "Paris"}, "call_1"),
        ToolCallDone("get_time", {"tz": "CET"}, "call_2"),
    )
    assert outcome.finish_reason == "tool_call"


def test_arguments_without_deltas_come_from_done_then_from_the_item() -> None:
    stream = sse(
        created(),
        # only function_call_arguments.done carries them
        *function_call(0, "a", "call_1", [], item_id="fc_1")[:1],
        {"type": "response.function_call_arguments.done", "item_id": "fc_1", "output_index": 0, "arguments": '{"x":1}'},
        item_done(0, {"id": "fc_1", "type": "function_call", "name": "a", "call_id": "call_1", "arguments": '{"x":1}'}),
        # only the item at output_item.done carries them
        added(1, {"id": "fc_2", "type": "function_call", "name": "b", "call_id": "call_2", "arguments": ""}),
        item_done(1, {"id": "fc_2", "type": "function_call", "name": "b", "call_id": "call_2", "arguments": '{"y":2}'}),
        completed(),
    )
    events, _ = decode(stream)
    assert items(events) == [
        ToolCallDelta("a", "", "call_1"),
        ToolCallDelta("", '{"x":1}', ""),
        ToolCallDone("a", {"x": 1}, "call_1"),
        ToolCallDelta("b", "", "call_2"),
        ToolCallDelta("", '{"y":2}', ""),
        ToolCallDone("b", {"y": 2}, "call_2"),
    ]


# --- built-in tools and the side channel ----------------------------------------------------


def test_builtin_tool_items_go_to_the_side_channel_never_tool_calls() -> None:
    ws = {"id": "ws_1", "type": "web_search_call", "status": "in_progress"}
    where = {"item_id": "ws_1", "output_index": 0}
    stream = sse(
        created(),
        added(0, ws),
        {"type": "response.web_search_call.in_progress", **where},
        {"type": "response.web_search_call.searching", **where},
        {"type": "response.web_search_call.completed", **where},
        item_done(0, {**ws, "status": "completed", "action": {"type": "search", "query": "weather"}}),
        *message(1, "Sunny"),
        completed(),
    )
    events, outcome = decode(stream)
    assert sides(events) == [
        ("web_search_call", "start", "ws_1"),
        ("web_search_call", "delta", "ws_1"),
        ("web_search_call", "delta", "ws_1"),
        ("web_search_call", "delta", "ws_1"),
        ("web_search_call", "done", "ws_1"),
    ]
    # live and in order: every side event comes before the text that followed it
    assert isinstance(events[4], SideEvent) and isinstance(events[5].item, TextDelta)
    # the outcome keeps the item's start and done, never its progress events (the
    # done holds the whole item): it grows with items, not with frames
    assert [s.data["type"] for s in outcome.side_events] == [
        "response.output_item.added",
        "response.output_item.done",
    ]
    assert outcome.side_events[-1].data["item"]["action"]["query"] == "weather"
    assert not any(isinstance(i, ToolCallDone) for i in outcome.message.items)
    assert outcome.finish_reason == "stop"


def test_unknown_item_types_and_their_events_are_kept_on_the_side_channel() -> None:
    where = {"item_id": "x_1", "output_index": 0}
    stream = sse(
        created(),
        added(0, {"id": "x_1", "type": "future_tool_call"}),
        {"type": "response.future_tool_call.progress", **where, "detail": 1},
        item_done(0, {"id": "x_1", "type": "future_tool_call", "result": "ok"}),
        *message(1, "ok"),
        completed(),
    )
    events, outcome = decode(stream)
    assert sides(events) == [
        ("future_tool_call", "start", "x_1"),
        ("future_tool_call.progress", "info", "x_1"),
        ("future_tool_call", "done", "x_1"),
    ]
    assert outcome.end == "complete"


def test_keepalives_and_gateway_frames_are_skipped() -> None:
    stream = sse(
        created(),
        {"type": "keepalive"},
        *message(0, "hi"),
        {"type": "gateway.status", "ok": True},
        completed(),
    )
    events, outcome = decode(stream)
    assert sides(events) == []
    assert [i.text for i in items(events) if isinstance(i, TextDone)] == ["hi"]
    assert outcome.end == "complete" and outcome.anomalies == ()


# --- Mirobody ---------------------------------------------------------------------------------

FULL_RESULT = "r" * 5000


def mirobody_stream() -> bytes:
    call = {"id": "step_1", "call_id": "call_m1", "name": "fetch_health_data", "arguments": '{"indicator":"LDL"}'}
    second = {"id": "step_2", "call_id": "call_m2", "name": "search_docs", "arguments": '{"q":"LDL"}'}
    return sse(
        created(),
        in_progress(),
        {"type": "response.mirobody_tool_call", "tool_step": call},
        {"type": "response.mirobody_tool_call", "tool_step": second},
        {"type": "response.mirobody_tool_result", "tool_step": {**second, "result": "two docs", "truncated": False}},
        {
            "type": "response.mirobody_tool_result",
            "tool_step": {**call, "result": FULL_RESULT[:4096], "truncated": True},
        },
        *message(0, "Your LDL fell."),
        completed(
            tool_steps=[{**call, "result": FULL_RESULT}, {**second, "result": "two docs"}],
            health_records=[{"indicator": "LDL", "value": 96, "unit": "mg/dL"}],
            citations=[{"id": 1, "source": "lab_2024.pdf"}],
        ),
    )


def test_mirobody_tool_steps_are_side_events_matched_and_completed_by_the_final_object() -> None:
    events, outcome = decode(mirobody_stream())
    assert sides(events) == [
        ("mirobody_tool_call", "start", "step_1"),
        ("mirobody_tool_call", "start", "step_2"),
        ("mirobody_tool_result", "done", "step_2"),
        ("mirobody_tool_result", "done", "step_1"),
        ("mirobody_tool_result", "info", "step_1"),  # the full result replacing the cut one
        ("mirobody_response", "info", "resp_1"),
    ]
    assert list(outcome.message.items) == [TextDone("Your LDL fell.")]
    assert outcome.finish_reason == "stop"  # Mirobody's tools ran on the server
    steps = outcome.extras["tool_steps"]
    assert [(s["id"], s["call_id"], s["name"]) for s in steps] == [
        ("step_1", "call_m1", "fetch_health_data"),
        ("step_2", "call_m2", "search_docs"),
    ]
    assert steps[0]["result"] == FULL_RESULT and steps[0]["truncated"] is False and steps[0]["replaced_truncated"]
    assert steps[1]["result"] == "two docs" and "replaced_truncated" not in steps[1]
    assert outcome.extras["health_records"] == [{"indicator": "LDL", "value": 96, "unit": "mg/dL"}]
    assert outcome.extras["citations"] == [{"id": 1, "source": "lab_2024.pdf"}]
    assert outcome.side_events[-1].data == {
        "health_records": outcome.extras["health_records"],
        "citations": outcome.extras["citations"],
    }
    assert outcome.anomalies == ()


def test_mirobody_result_is_matched_by_call_id_when_the_id_differs() -> None:
    stream = sse(
        created(),
        {
            "type": "response.mirobody_tool_call",
            "tool_step": {"id": "a", "call_id": "c1", "name": "t", "arguments": "{}"},
        },
        {
            "type": "response.mirobody_tool_result",
            "tool_step": {"call_id": "c1", "name": "t", "result": "ok", "truncated": False},
        },
        *message(0, "ok"),
        completed(),
    )
    _, outcome = decode(stream)
    assert outcome.extras["tool_steps"] == [
        {"id": "a", "call_id": "c1", "name": "t", "arguments": "{}", "result": "ok", "truncated": False}
    ]


def test_mirobody_upstream_error_fails_the_stream_keeping_the_text() -> None:
    stream = sse(
        created(),
        {
            "type": "response.mirobody_tool_call",
            "tool_step": {"id": "s1", "call_id": "c1", "name": "t", "arguments": "{}"},
        },
        *message(0, "Checking")[:3],
        {
            "type": "error",
            "error": {"type": "upstream_error", "code": "upstream_error", "message": "model provider timed out"},
        },
        completed(),  # never read: the stream ended at the error
    )
    events, outcome = decode(stream)
    assert outcome.end == "failed"
    assert outcome.error is not None
    assert (outcome.error.message, outcome.error.type, outcome.error.code) == (
        "model provider timed out",
        "upstream_error",
        "upstream_error",
    )
    assert outcome.message.items == (TextDone("Chec"),)
    assert outcome.finish_reason is None
    assert sides(events) == [("mirobody_tool_call", "start", "s1")]


# --- the end ------------------------------------------------------------------------------------


def test_response_failed_carries_the_error_message_and_code() -> None:
    error = {"code": "server_error", "message": "The model failed."}
    stream = sse(created(), {"type": "response.failed", "response": response("failed", error=error)})
    _, outcome = decode(stream)
    assert outcome.end == "failed"
    assert outcome.error == unievent.ProviderError("The model failed.", "server_error", "server_error", error)


def test_flat_error_event_message_and_code() -> None:
    stream = sse(created(), {"type": "error", "code": "rate_limit_exceeded", "message": "Slow down", "param": None})
    _, outcome = decode(stream)
    assert outcome.end == "failed"
    assert outcome.error is not None
    assert (outcome.error.message, outcome.error.code) == ("Slow down", "rate_limit_exceeded")


@pytest.mark.parametrize(("reason", "finish"), [("max_output_tokens", "length"), ("content_filter", "unknown")])
def test_incomplete_is_complete_with_length_or_unknown(reason: str, finish: str) -> None:
    stream = sse(
        created(),
        *message(0, "Once upon a time"),
        {
            "type": "response.incomplete",
            "response": response("incomplete", incomplete_details={"reason": reason}, usage=USAGE),
        },
    )
    events, outcome = decode(stream)
    assert outcome.end == "complete"
    assert outcome.finish_reason == finish
    assert outcome.native_finish_reason == reason
    assert stop_of(events).finish_reason == finish
    assert outcome.usage.prompt_tokens == 60


def test_no_terminal_event_is_truncated_with_what_arrived() -> None:
    events, outcome = decode(sse(created(), *message(0, "cut sho")[:3]))
    assert outcome.end == "truncated"
    assert outcome.message.items == (TextDone("cut"),)
    assert not any(isinstance(e, StopEvent) for e in events)


def test_done_sentinel_before_a_terminal_event_is_truncated() -> None:
    _, outcome = decode(sse(created(), *message(0, "hi"), b"data: [DONE]\n\n", event_lines=False))
    assert outcome.end == "truncated"


def test_a_function_call_cut_short_is_not_in_the_outcome() -> None:
    stream = sse(created(), *function_call(0, "f", "call_1", ['{"a":'])[:2])
    _, outcome = decode(stream)
    assert outcome.end == "truncated"
    assert outcome.message.items == ()


# --- framing variants -------------------------------------------------------------------------------


def test_stream_without_event_lines_decodes_the_same() -> None:
    frames = [created(), *reasoning(0, ["think"]), *message(1, "text"), completed()]
    with_lines = decode(sse(*frames))
    without = decode(sse(*frames, b"data: [DONE]\n\n", event_lines=False))
    assert with_lines == without


def test_resumed_stream_starts_mid_sequence_inside_an_item() -> None:
    # starting_after=6: no response.created, the message item began on the earlier connection
    where = {"item_id": "msg_1", "output_index": 1, "content_index": 0}
    stream = sse(
        {"type": "response.output_text.delta", **where, "delta": "rest of "},
        {"type": "response.output_text.delta", **where, "delta": "the answer"},
        {"type": "response.output_text.done", **where, "text": "Start of the rest of the answer"},
        item_done(
            1,
            {
                "id": "msg_1",
                "type": "message",
                "content": [{"type": "output_text", "text": "Start of the rest of the answer"}],
            },
        ),
        *function_call(2, "f", "call_9", ["{}"]),
        completed(),
        first_seq=7,
    )
    events, outcome = decode(stream)
    assert items(events)[:3] == [TextDelta("rest of "), TextDelta("the answer"), TextDone("rest of the answer")]
    assert outcome.end == "complete"
    assert outcome.finish_reason == "tool_call"
    assert [(a.kind, a.count) for a in outcome.anomalies] == [("resumed_output_item", 1)]


def test_resumed_stream_starting_at_an_item_boundary() -> None:
    stream = sse(in_progress(), *message(3, "later item"), completed(), first_seq=40)
    _, outcome = decode(stream)
    assert outcome.end == "complete"
    assert outcome.message.items == (TextDone("later item"),)


# --- lifecycle: strict semantics, lenient recovery; sequence numbers -----------------------------------


def kinds(outcome: Outcome) -> dict[str, int]:
    return {a.kind: a.count for a in outcome.anomalies}


def test_item_events_without_output_item_added_imply_the_item() -> None:
    where = {"item_id": "msg_1", "output_index": 0, "content_index": 0}
    stream = sse(created(), {"type": "response.output_text.delta", **where, "delta": "no added"}, completed())
    _, outcome = decode(stream)
    assert outcome.end == "complete"
    assert outcome.message.items == (TextDone("no added"),)
    assert kinds(outcome) == {"implied_output_item": 1, "item_left_open": 1}


def test_a_done_text_without_added_or_deltas_is_kept() -> None:
    where = {"item_id": "msg_1", "output_index": 0, "content_index": 0}
    stream = sse(created(), {"type": "response.output_text.done", **where, "text": "whole"}, item_done(0, {"id": "msg_1", "type": "message", "content": []}), completed())
    _, outcome = decode(stream)
    assert (outcome.end, outcome.message.items) == ("complete", (TextDone("whole"),))


def test_arguments_without_output_item_added_are_named_by_the_item_done() -> None:
    where = {"item_id": "fc_1", "output_index": 0}
    call_item = {"id": "fc_1", "type": "function_call", "call_id": "call_7", "name": "lookup", "arguments": '{"q": 1}'}
    stream = sse(
        created(),
        {"type": "response.function_call_arguments.delta", **where, "delta": '{"q": '},
        {"type": "response.function_call_arguments.delta", **where, "delta": "1}"},
        item_done(0, call_item),
        completed(),
    )
    events, outcome = decode(stream)
    assert outcome.message.items == (ToolCallDone("lookup", {"q": 1}, "call_7"),)
    assert items(events)[0] == ToolCallDelta("lookup", '{"q": 1}', "call_7")  # waited for its name
    assert kinds(outcome) == {"implied_output_item": 1}


def test_a_new_item_while_one_is_open_closes_the_open_one() -> None:
    stream = sse(created(), *message(0, "first")[:3], *message(1, "second", item_id="msg_2"), completed())
    _, outcome = decode(stream)
    assert outcome.end == "complete"
    assert outcome.message.items == (TextDone("fi"), TextDone("second"))
    assert kinds(outcome) == {"item_left_open": 1}


def test_an_event_of_the_next_item_closes_the_open_one() -> None:
    stream = sse(
        created(),
        *message(0, "ab")[:3],
        {"type": "response.output_text.delta", "item_id": "msg_9", "output_index": 1, "content_index": 0, "delta": "x"},
        completed(),
    )
    _, outcome = decode(stream)
    assert outcome.end == "complete"
    assert outcome.message.items == (TextDone("a"), TextDone("x"))
    assert kinds(outcome) == {"item_left_open": 2, "implied_output_item": 1}


def test_an_output_index_gap_is_recorded_not_fatal() -> None:
    _, outcome = decode(sse(created(), *message(0, "a"), *message(2, "b", item_id="msg_2"), completed()))
    assert (outcome.end, outcome.message.items) == ("complete", (TextDone("a"), TextDone("b")))
    assert kinds(outcome) == {"output_index_gap": 1}
    _, outcome = decode(sse(created(), *message(1, "a"), completed()))  # a fresh stream starts at 0
    assert kinds(outcome) == {"output_index_gap": 1}
    assert outcome.anomalies[0].examples == ("response.output_item.added with output_index 1, expected 0",)


@pytest.mark.parametrize(
    ("late", "why"),
    [
        (
            {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "late"},
            "response.output_text.delta in state 'between': output_index 0 names an item that already closed",
        ),
        (added(0, {"id": "msg_3", "type": "message", "content": []}), "response.output_item.added in state 'between': output_index 0 after 1: it goes back"),
    ],
    ids=["event of a closed item", "index goes back"],
)
def test_contradictions_fail_naming_state_and_event_and_keep_what_arrived(late: dict[str, Any], why: str) -> None:
    stream = sse(created(), *message(0, "a"), *message(1, "b", item_id="msg_2"), late, completed())
    _, outcome = decode(stream)
    assert outcome.end == "failed"
    assert outcome.error is not None and outcome.error.type == "protocol_error"
    assert why in outcome.error.message
    assert outcome.message.items == (TextDone("a"), TextDone("b"))


def test_sequence_gap_and_repeat_are_recorded_not_fatal() -> None:
    frames = [created(), *message(0, "hello"), completed()]
    numbered = [{**f, "sequence_number": n} for f, n in zip(frames, [0, 1, 2, 3, 7, 8, 9, 9, 10], strict=True)]
    _, outcome = decode(sse(*numbered))
    assert outcome.end == "complete"
    assert outcome.message.items == (TextDone("hello"),)
    assert [str(a) for a in outcome.anomalies] == [
        "sequence_gap x1: sequence_number 7 after 3 (response.output_text.delta)",
        "sequence_repeat x1: sequence_number 9 after 9 (response.output_item.done)",
    ]


# --- split invariance -----------------------------------------------------------------------------------

STREAMS = {
    "reasoning+text": sse(created(), *reasoning(0, ["Pensé ✓ ", "deux"]), *message(1, "Réponse: 42 🎉"), completed()),
    "calls": sse(
        created(),
        *function_call(0, "f", "c1", ['{"a":', "1}"]),
        *function_call(1, "g", "c2", ["{}"], item_id="fc_2"),
        completed(),
    ),
    "mirobody": mirobody_stream(),
    "failed": sse(
        created(), *message(0, "partial")[:3], {"type": "error", "error": {"type": "upstream_error", "message": "x"}}
    ),
}


@pytest.mark.parametrize("name", sorted(STREAMS))
def test_whole_and_byte_by_byte_give_identical_events_and_outcome(name: str) -> None:
    data = STREAMS[name]
    whole = decode(data)
    bytewise = decode(data, pieces=[data[i : i + 1] for i in range(len(data))])
    assert whole == bytewise


@settings(max_examples=60, deadline=None)
@given(name=st.sampled_from(sorted(STREAMS)), seed=st.integers(0, 2**32 - 1))
def test_random_splits_give_identical_events_and_outcome(name: str, seed: int) -> None:
    data = STREAMS[name]
    rng = random.Random(seed)
    cuts = sorted(rng.sample(range(1, len(data)), k=min(len(data) - 1, rng.randint(1, 40))))
    pieces = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]
    assert decode(data, pieces=pieces) == decode(data)


# --- the corpus of real streams -----------------------------------------------------------------------------


def _corpus_entries() -> list[dict[str, Any]]:
    manifest = CORPUS / "manifest.json"
    if not manifest.exists():
        return []
    return [e for e in json.loads(manifest.read_text()) if e.get("protocol") == "openai_responses"]


def _expected_usage(raw: dict[str, Any]) -> Usage:
    cached = raw.get("input_tokens_details", {}).get("cached_tokens")
    reasoning_tokens = raw.get("output_tokens_details", {}).get("reasoning_tokens")
    return Usage(
        cached_tokens=cached,
        prompt_tokens=raw["input_tokens"] - (cached or 0),
        thoughts_tokens=reasoning_tokens,
        response_tokens=raw["output_tokens"] - (reasoning_tokens or 0),
    )


_BUILTIN = {
    "web_search_call",
    "file_search_call",
    "code_interpreter_call",
    "mcp_call",
    "mcp_list_tools",
    "image_generation_call",
}


@pytest.mark.skipif(not CORPUS.exists(), reason="shared corpus not present")
@pytest.mark.parametrize("entry", _corpus_entries(), ids=lambda e: e["file"].split("/")[-1])
def test_corpus_stream_decodes_as_expected(entry: dict[str, Any]) -> None:
    _, outcome = decode((CORPUS / entry["file"]).read_bytes())
    expected = entry["expected"]
    done = outcome.message.items
    if expected.get("finish_reason") == "failed":
        assert outcome.end == "failed"
        assert outcome.error is not None
        error = expected.get("error", {})
        if "message" in error:
            assert outcome.error.message == error["message"]
        if "code" in error:
            assert outcome.error.code == error["code"]
        return
    assert outcome.end == "complete", outcome.error
    assert outcome.native_finish_reason == expected["finish_reason"]
    assert "".join(i.text for i in done if isinstance(i, TextDone)) == expected.get("text", "")
    if "thinking" in expected:
        assert "".join(i.thinking for i in done if isinstance(i, ThinkingDone)) == expected["thinking"]
    calls = [(i.name, i.arguments) for i in done if isinstance(i, ToolCallDone)]
    assert calls == [(c["name"], json.loads(c["arguments"])) for c in expected.get("tool_calls", [])]
    assert outcome.finish_reason == ("tool_call" if calls else "stop")
    assert outcome.usage == _expected_usage(expected["usage"])
    builtin = {f.split(":", 1)[1] for f in entry.get("features", []) if f.startswith("item:")} & _BUILTIN
    kinds = {s.kind for s in outcome.side_events}
    assert builtin <= kinds
    for kind in builtin:
        phases = [s.phase for s in outcome.side_events if s.kind == kind]
        assert phases[0] == "start" and phases[-1] == "done"
    for server_tool in expected.get("server_tools", []):
        name = server_tool if isinstance(server_tool, str) else server_tool.get("type") or server_tool.get("name")
        assert name in kinds


# --- regressions: items closed by the next one, refusals, Mirobody pairing -----------------------------


def test_a_reasoning_item_started_while_one_is_open_defers_the_open_one() -> None:
    def reason(index: int, item_id: str, text: str) -> list[dict[str, Any]]:
        where = {"output_index": index, "item_id": item_id, "summary_index": 0}
        return [
            added(index, {"id": item_id, "type": "reasoning", "summary": []}),
            {"type": "response.reasoning_summary_text.delta", **where, "delta": text},
        ]

    done = item_done(1, {"id": "rs_2", "type": "reasoning", "summary": [{"type": "summary_text", "text": "b"}]})
    _, outcome = decode(sse(created(), *reason(0, "rs_1", "a"), *reason(1, "rs_2", "b"), done, completed()))
    assert outcome.end == "complete"
    assert outcome.message.items == (ThinkingDone("a"), ThinkingDone("b"))


def test_a_builtin_item_left_open_carries_no_other_items_frame() -> None:
    ws = {"id": "ws_1", "type": "web_search_call", "status": "in_progress"}
    _, outcome = decode(sse(created(), added(0, ws), *message(1, "hi"), completed()))
    done = [s for s in outcome.side_events if s.phase == "done"]
    assert [(s.kind, s.item_id, s.data) for s in done] == [("web_search_call", "ws_1", {"item": {}})]


@pytest.mark.parametrize("how", ["deltas only", "item done only"])
def test_a_refusal_is_kept_in_extras_however_it_arrives(how: str) -> None:
    where = {"item_id": "m", "output_index": 0, "content_index": 0}
    start = added(0, {"id": "m", "type": "message", "content": []})
    if how == "deltas only":
        body = [start, {"type": "response.refusal.delta", **where, "delta": "No"}, {"type": "response.refusal.delta", **where, "delta": "."}]
        body.append(item_done(0, {"id": "m", "type": "message", "content": []}))
    else:
        body = [start, item_done(0, {"id": "m", "type": "message", "content": [{"type": "refusal", "refusal": "No."}]})]
    _, outcome = decode(sse(created(), *body, completed()))
    assert outcome.message.items == (TextDone("No."),)
    assert outcome.extras["refusals"] == ["No."]


# --- late events: an earlier item's progress after a later item began ---------------------------


def mcp_list(index: int, item_id: str) -> dict[str, Any]:
    return {"id": item_id, "type": "mcp_list_tools", "server_label": f"s{index}", "tools": []}


def late_mcp_stream(text_event: dict[str, Any] | None = None) -> bytes:
    """MCP list-tools items as OpenAI streams them: each added, then the completion of
    an earlier one after a later one was added, then the answer."""
    frames: list[dict[str, Any]] = [created(), in_progress()]
    for index in range(2):
        frames.append(added(index, mcp_list(index, f"mcpl_{index}")))
        frames.append({"type": "response.mcp_list_tools.in_progress", "output_index": index, "item_id": f"mcpl_{index}"})
    for index in range(2):
        frames.append({"type": "response.mcp_list_tools.completed", "output_index": index, "item_id": f"mcpl_{index}"})
        frames.append(item_done(index, {**mcp_list(index, f"mcpl_{index}"), "tools": [{"name": f"t{index}"}]}))
    frames += message(2, "The tools are t0 and t1.", "msg_2")
    if text_event is not None:
        frames.append(text_event)
    frames.append(completed())
    return sse(*frames)


def split_everywhere(body: bytes) -> tuple[list[Any], Outcome]:
    """`decode` of the body whole, cut at every byte and byte by byte: one result."""
    whole = decode(body)
    for cut in range(1, len(body)):
        assert decode(body, [body[:cut], body[cut:]]) == whole, f"cut at {cut}"
    assert decode(body, [body[i : i + 1] for i in range(len(body))]) == whole
    return whole


def test_an_earlier_built_in_item_s_completion_is_a_late_side_event() -> None:
    events, outcome = split_everywhere(late_mcp_stream())
    assert outcome.end == "complete" and outcome.finish_reason == "stop"
    assert outcome.message.items == (TextDone("The tools are t0 and t1."),)
    kinds = {a.kind: a.count for a in outcome.anomalies}
    assert kinds["late_event"] >= 2
    late = [e for e in events if isinstance(e, SideEvent) and e.kind == "mcp_list_tools.completed"]
    assert [e.item_id for e in late] == ["mcpl_0"]  # item 1's completion came while it was open


def test_more_text_for_a_closed_text_item_is_a_contradiction() -> None:
    more = {"type": "response.output_text.delta", "item_id": "msg_2", "output_index": 2, "content_index": 0, "delta": "!"}
    body = late_mcp_stream().replace(b"event: response.completed", sse(more, first_seq=None).rstrip(b"\n") + b"\n\nevent: response.completed")
    _events, outcome = split_everywhere(body)
    assert outcome.end == "failed" and outcome.error is not None and outcome.error.type == "protocol_error"
    assert outcome.message.items == (TextDone("The tools are t0 and t1."),)  # what was assembled is kept


@pytest.mark.parametrize("open_kind", ["between", "reasoning", "message", "function_call", "builtin"])
def test_a_late_event_is_read_whatever_item_is_open(open_kind: str) -> None:
    opened: dict[str, dict[str, Any]] = {
        "reasoning": {"id": "rs_1", "type": "reasoning", "summary": []},
        "message": {"id": "msg_1", "type": "message", "role": "assistant", "status": "in_progress", "content": []},
        "function_call": {"id": "fc_1", "type": "function_call", "call_id": "call_1", "name": "f", "arguments": ""},
        "builtin": {"id": "ws_1", "type": "web_search_call", "status": "in_progress"},
    }
    frames = [created(), added(0, mcp_list(0, "mcpl_0")), item_done(0, mcp_list(0, "mcpl_0"))]
    if open_kind != "between":
        frames.append(added(1, opened[open_kind]))
    frames.append({"type": "response.mcp_list_tools.completed", "output_index": 0, "item_id": "mcpl_0"})
    frames.append(completed())
    _events, outcome = split_everywhere(sse(*frames))
    assert outcome.end == "complete"
    assert {a.kind: a.count for a in outcome.anomalies}["late_event"] == 1
