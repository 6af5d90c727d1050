"""Cohere v2 chat streams decoded by StreamDecoder("cohere").

Streams are written as Cohere sends them: `event: <type>` then `data: <json>` (the same
`type` inside, compact, `id` first on message-start), a blank line, and `data: [DONE]`
at the end.  Each test states one rule of the mapping; the corpus test at the end
replays every recorded `cohere` stream of ../shared/corpus.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import unievent
from tests.helpers import calls_of, decode_stream, decoder_on_path, split_at, split_everywhere, text_of
from unievent import (
    Outcome,
    StopEvent,
    TextDelta,
    TextDone,
    ThinkingDone,
    ToolCallDelta,
    ToolCallDone,
    Usage,
)
from unievent._decoder import StreamDecoder as RuntimeStreamDecoder  # takes any protocol name
from unievent._protocols.cohere import normalize_cohere_finish

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"
DONE = b"data: [DONE]\n\n"

# --- building wire bytes ------------------------------------------------------------------


def frame(obj: dict[str, Any], event: bool = True) -> bytes:
    head = f"event: {obj['type']}\n".encode() if event else b""
    return head + b"data: " + orjson.dumps(obj) + b"\n\n"


def wire(*objs: dict[str, Any], done: bool = True, events: bool = True) -> bytes:
    return b"".join(frame(o, events) for o in objs) + (DONE if done else b"")


def message_start(response_id: str = "3ec845ed-ebb1-4223-9648-4e5632d5c6b5") -> dict[str, Any]:
    empty = {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": [], "citations": []}
    return {"id": response_id, "type": "message-start", "delta": {"message": empty}}


def content_start(index: int, kind: str = "text") -> dict[str, Any]:
    return {"type": "content-start", "index": index, "delta": {"message": {"content": {"type": kind, kind: ""}}}}


def content_delta(index: int | None, text: str, kind: str = "text") -> dict[str, Any]:
    found: dict[str, Any] = {"type": "content-delta", "index": index, "delta": {"message": {"content": {kind: text}}}}
    if index is None:
        del found["index"]
    return found


def content_end(index: int) -> dict[str, Any]:
    return {"type": "content-end", "index": index}


def plan(text: str) -> dict[str, Any]:
    return {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": text}}}


def call_start(index: int, name: str | None, call_id: str | None = None, arguments: str = "") -> dict[str, Any]:
    call: dict[str, Any] = {"id": call_id or f"{name}_y46ar19t5gvw", "type": "function", "function": {"name": name, "arguments": arguments}}
    if name is None:
        del call["function"]["name"]
    if call_id == "":
        del call["id"]
    return {"type": "tool-call-start", "index": index, "delta": {"message": {"tool_calls": call}}}


def call_delta(index: int, fragment: str) -> dict[str, Any]:
    return {"type": "tool-call-delta", "index": index, "delta": {"message": {"tool_calls": {"function": {"arguments": fragment}}}}}


def call_end(index: int) -> dict[str, Any]:
    return {"type": "tool-call-end", "index": index}


def citation(index: int, start: int, end: int, text: str, doc: str = "doc:0") -> dict[str, Any]:
    cited = {
        "start": start,
        "end": end,
        "text": text,
        "sources": [{"type": "document", "id": doc, "document": {"id": doc, "snippet": "Emperor penguins are the tallest.", "title": "Tall penguins"}}],
        "content_index": 0,
        "type": "TEXT_CONTENT",
    }
    return {"type": "citation-start", "index": index, "delta": {"message": {"citations": cited}}}


def citation_end(index: int) -> dict[str, Any]:
    return {"type": "citation-end", "index": index}


def usage(inp: int = 70, out: int = 69, cached: int | None = None, billed: tuple[int, int] = (4, 69)) -> dict[str, Any]:
    found: dict[str, Any] = {"billed_units": {"input_tokens": billed[0], "output_tokens": billed[1]}, "tokens": {"input_tokens": inp, "output_tokens": out}}
    if cached is not None:
        found["cached_tokens"] = cached
    return found


def message_end(reason: str | None = "COMPLETE", **delta: Any) -> dict[str, Any]:
    body: dict[str, Any] = {"finish_reason": reason, "usage": delta.pop("usage", usage())}
    if reason is None:
        del body["finish_reason"]
    body.update(delta)
    return {"type": "message-end", "delta": body}


def text_block(index: int, *pieces: str) -> list[dict[str, Any]]:
    return [content_start(index), *(content_delta(index, p) for p in pieces), content_end(index)]


def simple(*middle: dict[str, Any], reason: str | None = "COMPLETE", done: bool = True) -> bytes:
    return wire(message_start(), *middle, message_end(reason), done=done)


def run(body: bytes | list[bytes], protocol: str = "cohere", **options: Any) -> tuple[list[Any], Outcome]:
    return decode_stream(protocol, body, **options)


def every_split(body: bytes, protocol: str = "cohere", **options: Any) -> tuple[list[Any], Outcome]:
    return split_everywhere(protocol, body, **options)


def items(events: list[Any]) -> list[Any]:
    return [e.item for e in events if isinstance(e, unievent.DeltaEvent)]


def kinds(outcome: Outcome) -> dict[str, int]:
    return {a.kind: a.count for a in outcome.anomalies}


HELLO = simple(*text_block(0, "Hi", ", wörld"))

# --- text, thinking, plan -----------------------------------------------------------------


def test_a_text_block_in_any_split_is_one_text_item_then_the_stop() -> None:
    events, outcome = every_split(HELLO)
    assert items(events) == [TextDelta("Hi"), TextDelta(", wörld"), TextDone("Hi, wörld")]
    assert events[-1] == StopEvent(Usage(None, 70, None, 69), "stop", 0)
    assert (outcome.end, outcome.finish_reason, outcome.native_finish_reason) == ("complete", "stop", "COMPLETE")
    assert outcome.extras == {"response_id": "3ec845ed-ebb1-4223-9648-4e5632d5c6b5", "billed_units": {"input_tokens": 4, "output_tokens": 69}}
    assert outcome.anomalies == ()


def test_usage_prompt_is_the_input_tokens_not_served_from_the_cache() -> None:
    body = wire(message_start(), *text_block(0, "x"), message_end(usage=usage(507, 10, cached=448, billed=(12, 7))))
    _, outcome = run(body)
    assert outcome.usage == Usage(cached_tokens=448, prompt_tokens=59, thoughts_tokens=None, response_tokens=10)
    assert outcome.extras["billed_units"] == {"input_tokens": 12, "output_tokens": 7}


def test_thinking_then_text_are_two_items() -> None:
    thinking = [content_start(0, "thinking"), content_delta(0, "2 and 2", "thinking"), content_delta(0, " is 4.", "thinking"), content_end(0)]
    _, outcome = every_split(simple(*thinking, *text_block(1, "4.")))
    assert outcome.message.items == (ThinkingDone("2 and 2 is 4."), TextDone("4."))


def test_each_text_block_is_its_own_item() -> None:
    _, outcome = run(simple(*text_block(0, "a"), *text_block(1, "b")))
    assert outcome.message.items == (TextDone("a"), TextDone("b"))


def test_the_tool_plan_is_thinking_closed_by_the_next_frame_of_another_kind() -> None:
    body = simple(plan("I will"), plan(" check."), call_start(0, "get_weather"), call_delta(0, '{"city": '), call_delta(0, '"Tokyo"}'), call_end(0), reason="TOOL_CALL")
    events, outcome = every_split(body)
    assert items(events)[:3] == [unievent.ThinkingDelta("I will"), unievent.ThinkingDelta(" check."), ThinkingDone("I will check.")]
    assert outcome.message.items == (ThinkingDone("I will check."), ToolCallDone("get_weather", {"city": "Tokyo"}, "get_weather_y46ar19t5gvw"))
    assert (outcome.finish_reason, outcome.anomalies) == ("tool_call", ())


def test_a_plan_and_nothing_else_closes_at_message_end() -> None:
    _, outcome = run(simple(plan("thinking only"), reason="COMPLETE"))
    assert outcome.message.items == (ThinkingDone("thinking only"),)


def test_a_plan_then_a_thinking_block_are_two_items() -> None:
    _, outcome = run(simple(plan("plan"), content_start(0, "thinking"), content_delta(0, "think", "thinking"), content_end(0)))
    assert outcome.message.items == (ThinkingDone("plan"), ThinkingDone("think"))


# --- tool calls ---------------------------------------------------------------------------


def test_call_fragments_are_its_arguments_and_the_first_delta_carries_name_and_id() -> None:
    body = simple(call_start(0, "f", "f_abc", arguments="{\n    \""), call_delta(0, 'q": 1'), call_delta(0, "\n}"), call_end(0), call_start(1, "g", "g_def"), call_end(1), reason="TOOL_CALL")
    events, outcome = every_split(body)
    assert items(events)[:3] == [ToolCallDelta("f", '{\n    "', "f_abc"), ToolCallDelta("", 'q": 1', ""), ToolCallDelta("", "\n}", "")]
    assert calls_of(outcome) == [("f", "f_abc", {"q": 1}), ("g", "g_def", {})]  # no fragment at all is {}


def test_a_call_without_an_id_gets_one_made_up() -> None:
    _, outcome = run(simple(call_start(0, "f", ""), call_end(0), call_start(1, "g", ""), call_end(1), reason="TOOL_CALL"))
    assert calls_of(outcome) == [("f", "call_s_1", {}), ("g", "call_s_2", {})]


def test_a_call_without_a_name_is_kept_on_the_side_channel() -> None:
    _, outcome = run(simple(call_start(0, None, "x_1", arguments='{"a"'), call_delta(0, ": 1}"), call_end(0), reason="TOOL_CALL"))
    assert calls_of(outcome) == []
    assert [(e.kind, e.phase, e.item_id) for e in outcome.side_events] == [("tool_call", "start", "x_1"), ("tool_call", "done", "x_1")]
    assert outcome.side_events[-1].data["arguments"] == {"a": 1}
    assert kinds(outcome) == {"unnamed_tool_call": 1}


def test_call_arguments_that_are_not_json_fail_the_stream() -> None:
    _, outcome = run(simple(call_start(0, "f"), call_delta(0, "{oops"), call_end(0), reason="TOOL_CALL"))
    assert outcome.end == "failed" and outcome.error is not None and outcome.error.type == "tool_call_argument_parse_error"


def test_a_stream_cut_mid_call_is_truncated_and_the_call_is_not_offered() -> None:
    _, outcome = run(wire(message_start(), *text_block(0, "ok"), call_start(0, "f"), call_delta(0, '{"q"'), done=False))
    assert outcome.end == "truncated" and outcome.message.items == (TextDone("ok"),)


# --- citations ----------------------------------------------------------------------------


def test_citations_ride_on_their_text_item_as_fidelity() -> None:
    c1, c2 = citation(0, 29, 46, "Emperor penguins."), citation(1, 65, 76, "Antarctica.", "doc:1")
    body = simple(content_start(0), content_delta(0, "The tallest are Emperor penguins."), c1, citation_end(0), content_delta(0, " Antarctica."), c2, citation_end(1), content_end(0))
    events, outcome = every_split(body)
    fidelity = {"citations": [c1["delta"]["message"]["citations"], c2["delta"]["message"]["citations"]]}
    text = "The tallest are Emperor penguins. Antarctica."
    assert items(events)[-2:] == [TextDelta("", fidelity), TextDone(text, fidelity)]
    assert outcome.message.items == (TextDone(text, fidelity),)


def test_a_citation_with_no_text_block_open_is_a_side_event() -> None:
    c = citation(0, 0, 4, "plan", "tool:0")
    _, outcome = run(simple(plan("plan"), c, citation_end(0), *text_block(0, "x")))
    assert outcome.message.items == (ThinkingDone("plan"), TextDone("x"))
    assert [(e.kind, e.phase, e.data) for e in outcome.side_events] == [("citation", "info", c)]


def test_a_text_block_cut_short_keeps_its_citations() -> None:
    c = citation(0, 0, 1, "x")
    _, outcome = run(wire(message_start(), content_start(0), content_delta(0, "x"), c, done=False))
    assert outcome.end == "truncated"
    assert outcome.message.items == (TextDone("x", {"citations": [c["delta"]["message"]["citations"]]}),)


# --- the end ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("native", "calls", "mapped"),
    [
        ("COMPLETE", False, "stop"),
        ("STOP_SEQUENCE", False, "stop"),
        ("MAX_TOKENS", False, "length"),
        ("TOOL_CALL", True, "tool_call"),
        ("COMPLETE", True, "stop"),  # the recorded reason is kept whatever the content
        ("TIMEOUT", False, "unknown"),
        ("SOMETHING_NEW", False, "unknown"),
        (None, False, "unknown"),
    ],
)
def test_finish_reason_mapping_keeps_the_native_value(native: str | None, calls: bool, mapped: str) -> None:
    middle = [call_start(0, "f"), call_end(0)] if calls else text_block(0, "x")
    _, outcome = run(simple(*middle, reason=native))
    assert (outcome.end, outcome.finish_reason, outcome.native_finish_reason) == ("complete", mapped, native)
    assert normalize_cohere_finish(native) == mapped


def test_finish_reason_error_fails_with_the_error_string_keeping_the_text() -> None:
    error = message_end("ERROR", usage={}, error="your request resulted in an invalid tool generation", error_type="INVALID_TOOL_GENERATION")
    _, outcome = every_split(wire(message_start(), content_start(0), content_delta(0, "partial"), error))
    assert outcome.end == "failed" and outcome.message.items == (TextDone("partial"),)
    assert outcome.error == unievent.ProviderError(
        "your request resulted in an invalid tool generation", "INVALID_TOOL_GENERATION", None, error["delta"]
    )
    assert outcome.native_finish_reason == "ERROR"


def test_an_error_without_its_string_names_the_finish_reason() -> None:
    _, outcome = run(wire(message_start(), message_end("ERROR", usage={})))
    assert outcome.error is not None and (outcome.error.message, outcome.error.type) == ("the generation ended with 'ERROR'", "error")


def test_an_error_frame_fails_the_stream() -> None:
    _, outcome = run(wire(message_start(), *text_block(0, "a"), done=False) + b'event: error\ndata: {"message": "overloaded"}\n\n' + DONE)
    assert outcome.end == "failed" and outcome.error is not None and outcome.error.message == "overloaded"


def test_message_end_without_done_is_complete_and_done_without_message_end_is_truncated() -> None:
    assert run(simple(*text_block(0, "a"), done=False))[1].end == "complete"
    _, early = run(wire(message_start(), *text_block(0, "a")))
    assert (early.end, early.message.items) == ("truncated", (TextDone("a"),))
    _, cut = run(wire(message_start(), *text_block(0, "a"), done=False))
    assert cut.end == "truncated"


def test_nothing_is_read_after_done() -> None:
    _, outcome = run(HELLO + wire(*text_block(1, "late"), done=False))
    assert outcome.message.items == (TextDone("Hi, wörld"),)
    assert kinds(outcome) == {"frames_after_end": 3}


def test_the_event_name_is_used_when_the_data_has_no_type() -> None:
    body = HELLO.replace(b'{"type":"content-delta",', b"{")
    _, outcome = run(body)
    assert outcome.message.items == (TextDone("Hi, wörld"),)


def test_debug_and_unknown_frames_are_kept_on_the_side_channel() -> None:
    body = simple(*text_block(0, "a"), {"type": "debug", "prompt": "<system>"}, {"type": "future-thing", "n": 1})
    _, outcome = run(body)
    assert [(e.kind, e.phase) for e in outcome.side_events] == [("debug", "info"), ("future-thing", "info")]
    assert kinds(outcome) == {"unknown_frame": 1}
    _, after = run(wire(message_start(), message_end(), {"type": "debug", "prompt": "p"}))
    assert after.end == "complete" and [e.kind for e in after.side_events] == ["debug"]


# --- lenient lifecycle --------------------------------------------------------------------


def test_no_message_start_is_implied_by_the_first_frame() -> None:
    for first in (content_start(0), content_delta(0, "a"), plan("p"), message_end()):
        rest = [content_delta(0, "b")] if first["type"] == "content-start" else []
        body = wire(first, *rest, *([] if first["type"] == "message-end" else [message_end()]))
        _, outcome = run(body)
        assert outcome.end == "complete", first["type"]
        assert kinds(outcome).get("implied_message_start") == 1, first["type"]


def test_a_delta_for_a_block_never_started_opens_it_by_its_field() -> None:
    _, outcome = run(simple(content_delta(0, "hm", "thinking"), content_end(0), content_delta(1, "text"), content_end(1)))
    assert outcome.message.items == (ThinkingDone("hm"), TextDone("text"))
    assert kinds(outcome) == {"implied_block_start": 2}


def test_a_delta_without_an_index_belongs_to_the_open_block_or_opens_one() -> None:
    _, outcome = run(simple(content_start(0), content_delta(None, "a"), content_end(0), content_delta(None, "b")))
    assert outcome.message.items == (TextDone("a"), TextDone("b"))
    assert kinds(outcome) == {"implied_block_start": 1, "block_left_open": 1}


def test_a_call_delta_for_a_call_never_started_is_kept_on_the_side_channel() -> None:
    _, outcome = run(simple(call_delta(0, '{"a": 1}'), call_end(0), reason="TOOL_CALL"))
    assert calls_of(outcome) == [] and outcome.finish_reason == "tool_call"
    assert [(e.kind, e.phase, e.data) for e in outcome.side_events] == [("tool_call", "start", {}), ("tool_call", "done", {"arguments": {"a": 1}})]
    assert kinds(outcome) == {"implied_block_start": 1, "unnamed_tool_call": 1}


def test_a_block_left_open_is_closed_by_the_next_block_a_plan_or_the_end() -> None:
    body = simple(content_start(0), content_delta(0, "a"), call_start(0, "f"), content_start(1), content_delta(1, "b"), plan("p"), content_start(2), content_delta(2, "c"), content_delta(3, "d"), reason="TOOL_CALL")
    _, outcome = run(body)
    assert outcome.message.items == (TextDone("a"), ToolCallDone("f", {}, "f_y46ar19t5gvw"), TextDone("b"), ThinkingDone("p"), TextDone("c"), TextDone("d"))
    assert kinds(outcome) == {"block_left_open": 5, "implied_block_start": 1}


def test_a_plan_is_closed_by_a_delta_for_a_block_never_started() -> None:
    _, outcome = run(simple(plan("p"), content_delta(0, "a")))
    assert outcome.message.items == (ThinkingDone("p"), TextDone("a"))


def test_an_end_for_no_open_block_changes_nothing() -> None:
    body = wire(content_end(0), message_start(), content_end(0), plan("p"), call_end(3), content_start(0), content_delta(0, "a"), content_end(4), content_end(0), message_end())
    _, outcome = run(body)
    assert outcome.end == "complete" and outcome.message.items == (ThinkingDone("p"), TextDone("a"))
    assert kinds(outcome) == {"stray_block_end": 4}


def test_citations_and_ends_of_citations_change_no_state() -> None:
    c = citation(0, 0, 1, "x")
    body = wire(c, citation_end(0), message_start(), c, citation_end(0), message_end())
    _, outcome = run(body)
    assert outcome.end == "complete" and [e.kind for e in outcome.side_events] == ["citation", "citation"]


@pytest.mark.parametrize(
    ("before", "what"),
    [
        ([], "waiting"),
        ([message_start()], "message"),
        ([message_start(), plan("p")], "plan"),
        ([message_start(), content_start(0), content_delta(0, "a")], "block"),
    ],
    ids=["waiting", "message", "plan", "block"],
)
def test_errors_and_done_in_every_state_before_the_end(before: list[dict[str, Any]], what: str) -> None:
    error = message_end("ERROR", usage={}, error="boom")
    _, failed = run(wire(*before, error))
    assert failed.end == "failed" and failed.error is not None and failed.error.message == "boom", what
    _, early = run(wire(*before))
    assert early.end == "truncated", what
    _, cut = run(wire(*before, done=False))
    assert cut.end == "truncated", what
    _, other = run(wire(*before, {"type": "debug"}, done=False))
    assert other.end == "truncated" and [e.kind for e in other.side_events] == ["debug"], what


@pytest.mark.parametrize(
    ("body", "error_in"),
    [
        (simple(*text_block(0, "a"), content_delta(0, "late")), ["content-delta for block 0, which already ended", "stale_delta", "'message'"]),
        (wire(message_start(), message_end(), *text_block(0, "late")), ["content-start after message-end", "'ended'"]),
        (wire(message_start(), message_start()), ["message-start (message_start) in state 'message'"]),
    ],
    ids=["stale delta", "block after the end", "second message-start"],
)
def test_contradictions_fail_naming_state_and_event_and_keep_what_arrived(body: bytes, error_in: list[str]) -> None:
    _, outcome = run(body)
    assert outcome.end == "failed" and outcome.error is not None and outcome.error.type == "protocol_error"
    for part in error_in:
        assert part in outcome.error.message


# An event that names a block that already ended and changes nothing done (an empty
# delta) is late, not a contradiction: a side event of that block and one `late_event`
# anomaly, wherever it comes.
EMPTY_TEXT = content_delta(0, "")
EMPTY_ARGUMENTS = {"type": "tool-call-delta", "index": 0, "delta": {"message": {"tool_calls": {"function": {"arguments": ""}}}}}


@pytest.mark.parametrize("late", [EMPTY_TEXT, content_delta(0, "", "thinking")], ids=["empty text", "empty thinking"])
@pytest.mark.parametrize(
    "middle",
    [
        [*text_block(0, "a"), "late", *text_block(1, "b")],
        [*text_block(0, "a"), plan("p"), "late", *text_block(1, "b")],
        [*text_block(0, "a"), content_start(1), "late", content_delta(1, "b"), content_end(1)],
    ],
    ids=["between blocks", "in a plan", "in the next block"],
)
def test_an_earlier_blocks_event_that_changes_nothing_done_is_late_not_a_contradiction(
    middle: list[Any], late: dict[str, Any]
) -> None:
    body = simple(*[late if m == "late" else m for m in middle])
    events, outcome = every_split(body, side_events=True)
    assert outcome.end == "complete"
    assert [i.text for i in outcome.message.items if isinstance(i, unievent.TextDone)] == ["a", "b"]
    assert kinds(outcome) == {"late_event": 1}
    assert [e.data for e in events if isinstance(e, unievent.SideEvent)] == [late]
    assert run(body, side_events=True) == on_the_slow_path(body, side_events=True)


def test_a_late_event_after_message_end_changes_nothing() -> None:
    body = wire(message_start(), *call_block(0), message_end("TOOL_CALL"), EMPTY_ARGUMENTS)
    _events, outcome = every_split(body)
    assert outcome.end == "complete" and outcome.finish_reason == "tool_call"
    assert calls_of(outcome) == [("get_weather", "call_1", {"city": "Paris"})]
    assert kinds(outcome) == {"late_event": 1}


def call_block(index: int) -> list[dict[str, Any]]:
    return [call_start(index, "get_weather", "call_1"), call_delta(index, '{"city": "Paris"}'), call_end(index)]


def on_the_slow_path(body: bytes, **options: Any) -> tuple[list[Any], Outcome]:
    decoder = decoder_on_path("cohere", True, stream_id="s", clock=lambda: 0, **options)
    events = decoder.push(body)
    last, outcome = decoder.finish()
    return events + last, outcome


# --- finding the protocol -----------------------------------------------------------------


@pytest.mark.parametrize("options", [{"url": "https://api.cohere.com/v2/chat"}, {"content_type": "text/event-stream"}, {}], ids=["url", "content type", "first frame"])
def test_auto_decodes_cohere_as_cohere(options: dict[str, Any]) -> None:
    explicit = run(HELLO)
    events, outcome = run([HELLO[i : i + 5] for i in range(0, len(HELLO), 5)], "auto", **options)
    assert outcome.protocol == "cohere" and outcome.detected_by
    assert (events, outcome.message, outcome.usage, outcome.extras) == (explicit[0], explicit[1].message, explicit[1].usage, explicit[1].extras)


def test_cohere_frames_given_as_another_protocol_are_named() -> None:
    _, outcome = run(HELLO, "anthropic")
    assert outcome.error is not None and outcome.error.message == "anthropic: the frames look like cohere, not anthropic"


def test_a_frame_without_event_lines_is_named_by_its_type() -> None:
    _, outcome = run(wire(message_start(), *text_block(0, "a"), message_end(), events=False), "auto")
    assert (outcome.protocol, outcome.detected_by) == ("cohere", "frame 1: type 'message-start'")


# --- properties ---------------------------------------------------------------------------

_STREAMS = [
    HELLO,
    HELLO.replace(b"\n", b"\r\n"),
    simple(plan("I will"), call_start(0, "f", "f_1", "{"), call_delta(0, '"a": "é"}'), call_end(0), reason="TOOL_CALL"),
    wire(message_start(), content_start(0), content_delta(0, "part"), message_end("ERROR", usage={}, error="boom")),
    simple(content_delta(0, "implied"), content_start(1), content_delta(1, "left open")),
]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(range(len(_STREAMS))), st.lists(st.integers(min_value=0, max_value=2_000), max_size=20))
def test_split_invariance_and_grammar(which: int, cuts: list[int]) -> None:
    body = _STREAMS[which]
    assert run(split_at(body, cuts)) == run(body)


# --- recorded streams ---------------------------------------------------------------------


def _corpus_entries() -> list[dict[str, Any]]:
    if not (CORPUS / "manifest.json").exists():
        return []
    entries = orjson.loads((CORPUS / "manifest.json").read_bytes())
    return [e for e in entries if e.get("protocol") == "cohere"]


@pytest.mark.skipif(not CORPUS.exists(), reason="../shared/corpus is not here")
@pytest.mark.parametrize("entry", _corpus_entries(), ids=lambda e: Path(e["file"]).stem)
def test_recorded_stream(entry: dict[str, Any]) -> None:
    data = (CORPUS / entry["file"]).read_bytes()
    expected = entry["expected"]
    events, outcome = run(data)
    assert (events, outcome) == run(data + DONE)  # the recordings leave out the final [DONE]
    assert outcome.end == ("failed" if expected.get("error") else "complete")
    got = outcome.message.items
    assert "".join(i.text for i in got if isinstance(i, TextDone)) == expected.get("text", "")
    assert "".join(i.thinking for i in got if isinstance(i, ThinkingDone)) == expected.get("thinking", "") + "".join(
        orjson.loads(line[6:])["delta"]["message"]["tool_plan"] for line in data.split(b"\n") if line.startswith(b'data: {"type":"tool-plan-delta"')
    )
    assert [(name, arguments) for name, _, arguments in calls_of(outcome)] == [
        (c["name"], json.loads(c["arguments"] or "{}")) for c in expected.get("tool_calls") or []
    ]
    assert outcome.native_finish_reason == expected["finish_reason"]
    assert outcome.finish_reason == normalize_cohere_finish(expected["finish_reason"])
    used = expected["usage"]
    cached = used.get("cached_tokens")
    assert outcome.usage == Usage(cached, used["tokens"]["input_tokens"] - (cached or 0), None, used["tokens"]["output_tokens"])
    assert outcome.extras["billed_units"] == used["billed_units"]
    assert outcome.anomalies == ()


def test_the_hot_deltas_take_the_on_demand_path_and_decode_as_the_full_path_does(monkeypatch: pytest.MonkeyPatch) -> None:
    thinking = [content_start(0, "thinking"), content_delta(0, "hm", "thinking"), content_delta(0, "", "thinking"), content_end(0)]
    body = simple(*thinking, *text_block(1, "a", "é \"q\"", "\\"), content_delta(1, "x") | {"logprobs": None}, content_end(1))
    decoder = RuntimeStreamDecoder("cohere", stream_id="s", clock=lambda: 0)
    fast = decoder.push(body) + decoder.finish()[0]
    assert decoder.fast_frames == 5  # every text and thinking delta but the one with more fields
    monkeypatch.setenv("UNIEVENT_SLOW_PATH", "1")
    assert run(body) == run(split_at(body, [40, 200])) and run(body)[0] == fast


def test_a_run_of_hot_deltas_is_taken_in_a_few_calls_and_decodes_as_the_full_path_does(monkeypatch: pytest.MonkeyPatch) -> None:
    thinking = [content_start(0, "thinking"), *(content_delta(0, f"t{n}", "thinking") for n in range(30)), content_end(0)]
    text = text_block(1, *(f"w{n} " for n in range(30)), "", "é \"q\"")
    body = simple(*thinking, *text, content_delta(1, "x") | {"logprobs": None}, content_end(1))
    decoder = RuntimeStreamDecoder("cohere", stream_id="s", clock=lambda: 0)
    framer: Any = decoder.framer
    taken: list[int] = []
    handler: Any = decoder.handler
    run_taker = handler.raw_run

    def counting(heads: list[bytes] | None, payloads: list[bytes], start: int) -> int:
        n = int(run_taker(heads, payloads, start))
        taken.append(n - start)
        return n

    cut = 0
    for _ in range(6):  # past the first frames, which the decoder watches
        cut = body.index(b"\n\n", cut) + 2
    end = body.index(b"event: message-end")  # a run of `event:` frames, then the end and `[DONE]`
    fast = decoder.push(body[:cut])
    framer.run = counting
    fast += decoder.push(body[cut:end]) + decoder.push(body[end:]) + decoder.finish()[0]
    assert sum(taken) >= 55 and len([n for n in taken if n]) <= 12 and decoder.fast_frames >= 60
    monkeypatch.setenv("UNIEVENT_SLOW_PATH", "1")
    assert run(body)[0] == fast
    # a frame that starts as a hot delta and ends otherwise is no delta (not JSON here)
    hot = b'event: content-delta\ndata: {"type":"content-delta","index":1,"delta":{"message":{"content":{"text":'
    odd = body.replace(hot + b'"w3 "}}}}', hot + b'"w3 "}}}]', 1)
    assert odd != body
    monkeypatch.delenv("UNIEVENT_SLOW_PATH")
    fast_odd = run(split_at(odd, [cut, end]))
    monkeypatch.setenv("UNIEVENT_SLOW_PATH", "1")
    assert fast_odd == run(odd) and text_of(fast_odd[1]).startswith("w0 w1 w2 w4 ")
