"""OpenAI-compatible Chat Completions: every rule of the decoder, one stream each."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from typing import Any

import orjson
import pytest

import unievent
from tests.helpers import calls_of, chunk, decode, items_of, split_everywhere, sse, text_of, thinking_of
from unievent import (
    StopEvent,
    TextDelta,
    TextDone,
    ThinkingDelta,
    ThinkingDone,
    ToolCallDelta,
    ToolCallDone,
    Usage,
)

# --- choices, delta and message ----------------------------------------------------


def test_text_streams_as_one_group_and_ends_with_stop() -> None:
    events, outcome = decode(
        sse(
            chunk({"role": "assistant", "content": ""}),
            chunk({"content": "Hel"}),
            chunk({"content": "lo"}),
            chunk({}, finish="stop"),
        )
    )
    assert items_of(events) == [TextDelta("Hel"), TextDelta("lo"), TextDone("Hello")]
    assert events[-1] == StopEvent(Usage(), "stop", 1694502400000)
    assert (outcome.end, outcome.finish_reason, outcome.native_finish_reason) == ("complete", "stop", "stop")
    assert outcome.model == "gpt-test"


def test_only_the_first_choice_is_read() -> None:
    frame = {"choices": [{"index": 0, "delta": {"content": "a"}}, {"index": 1, "delta": {"content": "b"}}]}
    assert text_of(decode(sse(frame))[1]) == "a"


def test_a_whole_message_instead_of_a_delta_is_read() -> None:
    frame = {"choices": [{"index": 0, "message": {"role": "assistant", "content": "whole"}, "finish_reason": "stop"}]}
    assert text_of(decode(sse(frame))[1]) == "whole"


@pytest.mark.parametrize(
    "frame",
    [
        {"choices": []},
        {"choices": None},
        {"id": "x"},
        {"prompt_filter_results": [{"prompt_index": 0, "content_filter_results": {}}], "choices": []},
    ],
)
def test_chunks_without_choices_are_fine(frame: dict[str, Any]) -> None:
    _, outcome = decode(sse(frame, chunk({"content": "ok"}), chunk({}, finish="stop")))
    assert (outcome.end, text_of(outcome), outcome.skipped_frames) == ("complete", "ok", 0)


def test_unknown_fields_are_ignored() -> None:
    frame = chunk({"content": "a", "token_ids": [1, 2]}, obfuscation="xyz", x_groq={"id": "req"}, logprobs=None)
    assert text_of(decode(sse(frame))[1]) == "a"


# --- reasoning ----------------------------------------------------------------------


@pytest.mark.parametrize("field", ["reasoning_content", "reasoning"])
def test_reasoning_fields_become_thinking_with_the_field_name_once(field: str) -> None:
    events, outcome = decode(
        sse(chunk({field: "think"}), chunk({field: "ing"}), chunk({"content": "answer"}), chunk({}, finish="stop"))
    )
    fidelity = {"reasoning_field": field}
    assert items_of(events)[:3] == [
        ThinkingDelta("think", fidelity),
        ThinkingDelta("ing"),
        ThinkingDone("thinking", fidelity),
    ]
    assert (thinking_of(outcome), text_of(outcome)) == ("thinking", "answer")


def test_both_reasoning_fields_in_one_chunk_are_read_once_without_a_field_name() -> None:
    events, _outcome = decode(sse(chunk({"reasoning_content": "x", "reasoning": "x"})))
    assert items_of(events) == [ThinkingDelta("x"), ThinkingDone("x")]


def test_openrouter_reasoning_details_win_and_keep_the_signature() -> None:
    frames = [
        chunk(
            {
                "reasoning": "Two",
                "reasoning_details": [
                    {"type": "reasoning.text", "text": "Two", "format": "anthropic-claude-v1", "index": 0}
                ],
            }
        ),
        chunk(
            {
                "reasoning": " plus",
                "reasoning_details": [
                    {"type": "reasoning.text", "text": " plus", "format": "anthropic-claude-v1", "index": 0}
                ],
            }
        ),
        chunk(
            {
                "reasoning_details": [
                    {"type": "reasoning.text", "signature": "sig==", "format": "anthropic-claude-v1", "index": 0}
                ]
            }
        ),
        chunk({"content": "4"}),
        chunk({}, finish="stop"),
    ]
    events, _outcome = decode(sse(*frames))
    fidelity = {"signature": "sig==", "format": "anthropic-claude-v1"}
    assert items_of(events)[:4] == [
        ThinkingDelta("Two"),
        ThinkingDelta(" plus"),
        ThinkingDelta("", fidelity),
        ThinkingDone("Two plus", fidelity),
    ]


def test_openrouter_encrypted_reasoning_is_kept_in_fidelity() -> None:
    block = {"type": "reasoning.encrypted", "data": "gAAAA", "id": "rs_1", "format": "openai-responses-v1", "index": 0}
    events, _ = decode(
        sse(
            chunk({"reasoning_details": [{"type": "reasoning.summary", "summary": "Plan", "index": 0}]}),
            chunk({"reasoning_details": [block]}),
        )
    )
    fidelity = {"encrypted_content": "gAAAA", "format": "openai-responses-v1", "reasoning_id": "rs_1"}
    assert items_of(events) == [ThinkingDelta("Plan"), ThinkingDelta("", fidelity), ThinkingDone("Plan", fidelity)]


def test_mistral_typed_content_parts_carry_thinking_and_text() -> None:
    frames = [
        chunk({"content": [{"type": "thinking", "thinking": [{"type": "text", "text": "Okay"}]}]}),
        chunk({"content": [{"type": "thinking", "thinking": [{"type": "text", "text": ", so"}]}]}),
        chunk({"content": [{"type": "text", "text": "Look both ways."}]}),
        chunk({}, finish="stop"),
    ]
    _, outcome = decode(sse(*frames))
    assert (thinking_of(outcome), text_of(outcome)) == ("Okay, so", "Look both ways.")


def test_thinking_then_text_are_two_groups_in_arrival_order() -> None:
    events, _ = decode(sse(chunk({"reasoning_content": "r", "content": "t"})))
    assert [type(i).__name__ for i in items_of(events)] == ["ThinkingDelta", "ThinkingDone", "TextDelta", "TextDone"]


# --- tool calls ---------------------------------------------------------------------


def call(
    index: int | None = None, id: str | None = None, name: str | None = None, arguments: Any = None
) -> dict[str, Any]:
    fragment: dict[str, Any] = {"type": "function", "function": {}}
    if index is not None:
        fragment["index"] = index
    if id is not None:
        fragment["id"] = id
    if name is not None:
        fragment["function"]["name"] = name
    if arguments is not None:
        fragment["function"]["arguments"] = arguments
    return fragment


def tools(*fragments: dict[str, Any]) -> dict[str, Any]:
    return chunk({"tool_calls": list(fragments)})


def test_a_tool_call_streams_name_and_id_first_then_fragments() -> None:
    events, outcome = decode(
        sse(
            tools(call(0, "call_1", "get_weather", "")),
            tools(call(0, arguments='{"city":')),
            tools(call(0, arguments='"Paris"}')),
            chunk({}, finish="tool_calls"),
        )
    )
    assert items_of(events) == [
        ToolCallDelta("get_weather", "", "call_1"),
        ToolCallDelta("", '{"city":', ""),
        ToolCallDelta("", '"Paris"}', ""),
        ToolCallDone("get_weather", {"city": "Paris"}, "call_1"),
    ]
    assert (outcome.finish_reason, outcome.native_finish_reason) == ("tool_call", "tool_calls")


def test_parallel_calls_are_routed_by_index() -> None:
    frames = [
        tools(call(0, "call_a", "a", "")),
        tools(call(0, arguments='{"x": 1}')),
        tools(call(1, "call_b", "b", "")),
        tools(call(1, arguments='{"y": 2}')),
        chunk({}, finish="tool_calls"),
    ]
    assert calls_of(decode(sse(*frames))[1]) == [("a", "call_a", {"x": 1}), ("b", "call_b", {"y": 2})]


def test_interleaved_parallel_calls_wait_for_their_turn() -> None:
    frames = [
        tools(call(0, "call_a", "a", ""), call(1, "call_b", "b", "")),
        tools(call(0, arguments='{"x": ')),
        tools(call(1, arguments='{"y": 2}')),
        tools(call(0, arguments="1}")),
        chunk({}, finish="tool_calls"),
    ]
    _events, outcome = decode(sse(*frames))
    assert calls_of(outcome) == [("a", "call_a", {"x": 1}), ("b", "call_b", {"y": 2})]
    assert outcome.anomalies == ()


def test_calls_without_index_are_routed_by_id() -> None:
    frames = [
        tools(call(None, "gSIM", "weather", '{"location": ')),
        tools(call(None, "gSIM", None, '"SF"}')),
        chunk({}, finish="tool_calls"),
    ]
    assert calls_of(decode(sse(*frames))[1]) == [("weather", "gSIM", {"location": "SF"})]


def test_calls_with_neither_index_nor_id_are_routed_by_position_in_the_frame() -> None:
    frames = [
        tools(call(name="a", id="c1", arguments=""), call(name="b", id="c2", arguments="")),
        tools(call(arguments="{}"), call(arguments='{"k": 1}')),
        chunk({}, finish="tool_calls"),
    ]
    assert calls_of(decode(sse(*frames))[1]) == [("a", "c1", {}), ("b", "c2", {"k": 1})]


def test_an_index_reused_with_another_id_starts_a_new_call() -> None:
    frames = [tools(call(0, "c1", "a", "{}")), tools(call(0, "c2", "b", "{}")), chunk({}, finish="tool_calls")]
    assert calls_of(decode(sse(*frames))[1]) == [("a", "c1", {}), ("b", "c2", {})]


def test_an_empty_id_and_a_repeated_name_continue_the_call() -> None:
    frames = [
        tools(call(0, "c1", "lookup", '{"q":')),
        tools(call(0, "", "lookup", '"x"}')),
        chunk({}, finish="tool_calls"),
    ]
    events, outcome = decode(sse(*frames))
    assert calls_of(outcome) == [("lookup", "c1", {"q": "x"})]
    assert [i.name for i in items_of(events) if isinstance(i, ToolCallDelta)] == ["lookup", ""]


def test_a_late_name_delays_the_first_delta_until_it_is_known() -> None:
    frames = [tools(call(0, "c1", None, '{"a"')), tools(call(0, None, "late", ": 1}")), chunk({}, finish="tool_calls")]
    events, outcome = decode(sse(*frames))
    # what arrived before the name goes out with it, as one fragment
    assert items_of(events)[0] == ToolCallDelta("late", '{"a": 1}', "c1")
    assert calls_of(outcome) == [("late", "c1", {"a": 1})]


def test_a_missing_id_is_made_up_from_the_block_number() -> None:
    # the ai-profile rule: text is block 0, the k-th tool call (from 0) block k + 1
    frames = [tools(call(0, None, "f", '{"a": 1}')), tools(call(1, None, "g", "{}")), chunk({}, finish="tool_calls")]
    assert calls_of(decode(sse(*frames), stream_id="abc")[1]) == [
        ("f", "call_abc_1", {"a": 1}),
        ("g", "call_abc_2", {}),
    ]


def test_arguments_given_as_an_object_are_taken_whole() -> None:
    frames = [tools(call(0, "c1", "f", {"city": "Paris", "days": 3})), chunk({}, finish="tool_calls")]
    assert calls_of(decode(sse(*frames))[1]) == [("f", "c1", {"city": "Paris", "days": 3})]


def test_empty_arguments_are_an_empty_object() -> None:
    frames = [tools(call(0, "c1", "now", "")), chunk({}, finish="tool_calls")]
    assert calls_of(decode(sse(*frames))[1]) == [("now", "c1", {})]


def test_invalid_arguments_fail_in_strict_mode_where_the_done_would_go() -> None:
    body = sse(chunk({"content": "hi"}), tools(call(0, "c1", "f", '{"a": ')), chunk({}, finish="tool_calls"))
    events, outcome = decode(body)
    assert outcome.end == "failed"
    assert outcome.error is not None and outcome.error.type == "tool_call_argument_parse_error"
    assert isinstance(items_of(events)[-1], ToolCallDelta)
    assert text_of(outcome) == "hi"
    received = []
    with pytest.raises(unievent.ToolCallArgumentParseError) as caught:
        for event in unievent.iter_events([body], "openai_chat"):
            received.append(event)
    assert (caught.value.tool_name, caught.value.tool_call_id, caught.value.raw_arguments) == ("f", "c1", '{"a": ')
    assert not any(isinstance(e, StopEvent) for e in received)


def test_invalid_arguments_become_an_empty_object_with_the_raw_text_when_lenient() -> None:
    body = sse(tools(call(0, "c1", "f", "[1, 2]")), chunk({}, finish="tool_calls"))
    events, outcome = decode(body, strict_arguments=False)
    assert outcome.end == "complete"
    assert items_of(events)[-1] == ToolCallDone("f", {}, "c1", {"raw_arguments": "[1, 2]"})


def test_text_after_a_tool_call_closes_the_call_first() -> None:
    events, _ = decode(sse(tools(call(0, "c1", "f", "{}")), chunk({"content": "done"}), chunk({}, finish="tool_calls")))
    assert [i.type for i in items_of(events)] == ["tool_call.delta", "tool_call.done", "text.delta", "text.done"]


# --- finish -------------------------------------------------------------------------


def test_empty_and_null_finish_reasons_never_erase_one_recorded() -> None:
    frames = [
        chunk({"content": "a"}, finish="length"),
        chunk({}, finish=""),
        {"choices": [{"delta": {}, "finish_reason": None}]},
    ]
    _, outcome = decode(sse(*frames, done=False))
    assert (outcome.end, outcome.finish_reason, outcome.native_finish_reason) == ("complete", "length", "length")


@pytest.mark.parametrize(
    ("native", "expected"),
    [
        ("stop", "stop"),
        ("length", "length"),
        ("tool_calls", "tool_call"),
        ("function_call", "tool_call"),
        ("content_filter", "unknown"),
        ("sensitive", "unknown"),
    ],
)
def test_finish_reasons_normalize_and_keep_the_native_value(native: str, expected: str) -> None:
    _, outcome = decode(sse(chunk({"content": "a"}, finish=native)))
    assert (outcome.finish_reason, outcome.native_finish_reason) == (expected, native)


def test_a_plain_stop_on_a_turn_that_called_tools_stays_stop() -> None:
    # the wire has a word for a turn that calls tools; the reason it names is kept and
    # the calls stay in the message for the caller to run
    _, outcome = decode(sse(tools(call(0, "c1", "f", "{}")), chunk({}, finish="stop")))
    assert (outcome.finish_reason, outcome.native_finish_reason) == ("stop", "stop")
    assert [item.name for item in outcome.message.items if isinstance(item, ToolCallDone)] == ["f"]


def test_done_without_finish_reason_is_complete() -> None:
    assert decode(sse(chunk({"content": "a"})))[1].finish_reason == "stop"
    assert decode(sse(tools(call(0, "c1", "f", "{}"))))[1].finish_reason == "tool_call"


def test_neither_finish_reason_nor_done_is_truncated_and_keeps_the_text() -> None:
    body = sse(
        chunk({"reasoning_content": "hmm"}), chunk({"content": "par"}), tools(call(0, "c1", "f", '{"a": 1')), done=False
    )
    events, outcome = decode(body)
    assert outcome.end == "truncated"
    assert (thinking_of(outcome), text_of(outcome), calls_of(outcome)) == ("hmm", "par", [])
    assert not isinstance(events[-1], StopEvent)
    received = []
    with pytest.raises(unievent.IncompleteStreamError) as caught:
        for event in unievent.iter_events([body], "openai_chat"):
            received.append(event)
    assert caught.value.outcome.end == "truncated"
    assert items_of(received) == items_of(events)


# --- usage --------------------------------------------------------------------------


def test_usage_follows_mmsp_meaning() -> None:
    usage = {
        "prompt_tokens": 100,
        "completion_tokens": 50,
        "prompt_tokens_details": {"cached_tokens": 30},
        "completion_tokens_details": {"reasoning_tokens": 20},
    }
    events, outcome = decode(sse(chunk({"content": "a"}, finish="stop"), {"choices": [], "usage": usage}))
    assert outcome.usage == Usage(cached_tokens=30, prompt_tokens=70, thoughts_tokens=20, response_tokens=30)
    assert events[-1].usage == outcome.usage


def test_usage_overwrites_and_a_zero_never_erases_a_count() -> None:
    frames = [
        chunk({"content": "a"}, usage={"prompt_tokens": 5, "completion_tokens": 1}),
        chunk({}, finish="stop", usage={"prompt_tokens": 0, "completion_tokens": 9}),
    ]
    assert decode(sse(*frames))[1].usage == Usage(None, 5, None, 9)


def test_groq_usage_rides_in_x_groq() -> None:
    frame = chunk({}, finish="stop", x_groq={"id": "req", "usage": {"prompt_tokens": 7, "completion_tokens": 3}})
    assert decode(sse(frame))[1].usage == Usage(None, 7, None, 3)


def test_the_stop_event_always_carries_a_usage_object() -> None:
    assert decode(sse(chunk({"content": "a"})))[0][-1].usage == Usage(None, None, None, None)


# --- errors -------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("frame", "message", "type_", "code"),
    [
        ({"error": {"message": "Token limit reached", "code": 400}}, "Token limit reached", None, 400),
        ({"error": "overloaded"}, "overloaded", None, None),
        (
            {"object": "error", "message": "bad request", "type": "BadRequestError", "code": 400},
            "bad request",
            "BadRequestError",
            400,
        ),
    ],
)
def test_an_error_inside_the_stream_fails_it_and_keeps_the_text(
    frame: dict[str, Any], message: str, type_: str | None, code: Any
) -> None:
    body = sse(chunk({"content": "partial"}), frame, chunk({"content": " ignored"}))
    _, outcome = decode(body)
    assert outcome.end == "failed"
    assert outcome.error is not None
    assert (outcome.error.message, outcome.error.type, outcome.error.code) == (message, type_, code)
    assert text_of(outcome) == "partial"
    with pytest.raises(unievent.ProviderStreamError) as caught:
        list(unievent.iter_events([body], "openai_chat"))
    assert caught.value.provider_message == message


def test_an_event_error_frame_fails_the_stream() -> None:
    body = b'data: {"choices":[{"delta":{"content":"a"}}]}\n\nevent: error\ndata: {"message":"upstream died"}\n\n'
    _, outcome = decode(body)
    assert (outcome.end, outcome.error and outcome.error.message) == ("failed", "upstream died")


def test_a_chunk_named_error_among_named_chunks_fails_the_stream_at_any_split() -> None:
    # the same chunk as those before it, so it would match their template; its name,
    # read with its spaces trimmed, makes it an error
    named = b"".join(b"event: message\ndata: " + orjson.dumps(chunk({"content": c})) + b"\n\n" for c in "abcd")
    body = named + b"event: error \ndata: " + orjson.dumps(chunk({"content": "e"})) + b"\n\n"
    _, outcome = decode(body)
    assert (outcome.end, text_of(outcome)) == ("failed", "abcd")
    assert decode(body, pieces=[body[i : i + 1] for i in range(len(body))]) == decode(body)


def test_a_null_error_is_not_an_error() -> None:
    assert decode(sse(chunk({"content": "a"}, error=None)))[1].end == "complete"


# --- the decoder's life -------------------------------------------------------------


def test_abort_returns_no_events_and_keeps_what_arrived() -> None:
    decoder = unievent.StreamDecoder("openai_chat")
    decoder.push(sse(chunk({"content": "hel"}), done=False) + b'data: {"choices":[{"delta":{"content":"lo"')
    outcome = decoder.abort()
    assert (outcome.end, text_of(outcome)) == ("cancelled", "hel")
    with pytest.raises(unievent.DecoderStateError):
        decoder.push(b"more")


def test_push_after_finish_raises() -> None:
    decoder = unievent.StreamDecoder("openai_chat")
    decoder.finish()
    with pytest.raises(unievent.DecoderStateError) as caught:
        decoder.push(b"x")
    assert "openai_chat" in str(caught.value)


def test_an_unknown_protocol_is_refused() -> None:
    with pytest.raises(ValueError, match="unknown protocol"):
        unievent.StreamDecoder("carrier_pigeon")  # type: ignore[call-overload]


def test_the_clock_is_read_once_per_push() -> None:
    ticks = iter(range(100, 200))
    decoder = unievent.StreamDecoder("openai_chat", clock=lambda: next(ticks))
    first = decoder.push(sse(chunk({"content": "a"}), chunk({"content": "b"}), done=False))
    second = decoder.push(sse(chunk({"content": "c"}), done=False))
    assert [e.created_at for e in first] == [100, 100]
    assert [e.created_at for e in second] == [101]


def test_iter_events_ends_with_the_stop_event() -> None:
    events = list(
        unievent.iter_events(
            iter([b'data: {"choices":[{"delta":{"content":"hi"}}]}\n', b"\ndata: [DONE]\n\n"]), "openai_chat"
        )
    )
    assert [type(e).__name__ for e in events] == ["DeltaEvent", "DeltaEvent", "StopEvent"]


def test_aiter_events_works_with_an_async_body() -> None:
    async def body() -> AsyncIterator[bytes]:
        yield sse(chunk({"content": "a"}), done=False)
        yield sse(chunk({}, finish="stop"), done=False)

    async def collect() -> list[Any]:
        return [e async for e in unievent.aiter_events(body(), "openai_chat")]

    events = asyncio.run(collect())
    assert isinstance(events[-1], StopEvent) and events[-1].finish_reason == "stop"


# --- helpers ------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("status", "body", "expected"),
    [
        (400, '{"error": {"message": "Unrecognized request argument supplied: stream_options"}}', True),
        (422, "INCLUDE_USAGE is not permitted", True),
        (400, "bad model", False),
        (500, "stream_options", False),
    ],
)
def test_is_stream_options_rejected(status: int, body: str, expected: bool) -> None:
    assert unievent.is_stream_options_rejected(status, body) is expected


@pytest.mark.parametrize(
    ("body", "expected"),
    [
        ("\ufeff  <!DOCTYPE html><html>", True),
        ("<HTML><body>", True),
        ("<?xml?>\n<html>", True),
        ('{"error": 1}', False),
        ("data: <html>", False),
        ("", False),
    ],
)
def test_looks_like_html(body: str, expected: bool) -> None:
    assert unievent.looks_like_html(body) is expected


@pytest.mark.parametrize(
    ("reason", "expected"),
    [
        ("stop", "end_turn"),
        ("tool_calls", "tool_use"),
        ("function_call", "tool_use"),
        ("length", "max_tokens"),
        ("content_filter", "content_filter"),
        ("end_turn", "end_turn"),
    ],
)
def test_stop_reason_from_openai(reason: str, expected: str) -> None:
    assert unievent.stop_reason_from_openai(reason) == expected


# --- refusals (structured outputs) ---------------------------------------------------------------


REFUSAL = sse(
    chunk({"role": "assistant", "content": None, "refusal": ""}),
    chunk({"refusal": "I can't"}),
    chunk({"refusal": " help with that."}),
    chunk({}, finish="stop"),
    crlf=True,
)


def test_a_refusal_is_visible_text_marked_as_a_refusal() -> None:
    _events, outcome = split_everywhere("openai_chat", REFUSAL)
    assert outcome.end == "complete" and outcome.finish_reason == "stop"
    assert outcome.message.items == (unievent.TextDone("I can't help with that.", {"refusal": True}),)


def test_text_after_a_refusal_is_an_item_of_its_own() -> None:
    body = sse(
        chunk({"refusal": "No."}), chunk({"content": "But"}), chunk({"content": " here."}), chunk({}, finish="stop")
    )
    _events, outcome = split_everywhere("openai_chat", body)
    assert outcome.message.items == (
        unievent.TextDone("No.", {"refusal": True}),
        unievent.TextDone("But here."),
    )


def test_a_refusal_is_written_back_and_replayed_as_a_refusal() -> None:
    events, outcome = split_everywhere("openai_chat", REFUSAL)
    written = unievent.encode(events, "openai_chat")
    assert b'"refusal":"I can\'t"' in written and b'"content"' not in written
    assert split_everywhere("openai_chat", written)[1].message.items == outcome.message.items
    assert outcome.message.replay("openai_chat").json == {
        "role": "assistant",
        "refusal": "I can't help with that.",
        "content": None,
    }


def test_a_refusal_amid_text_taken_on_demand_decodes_as_the_full_path_does(monkeypatch: pytest.MonkeyPatch) -> None:
    text = [chunk({"content": f"w{n} "}) for n in range(12)]
    body = sse(*text, chunk({"refusal": "No."}), *text, chunk({}, finish="stop"))
    fast = split_everywhere("openai_chat", body)
    monkeypatch.setenv("UNIEVENT_SLOW_PATH", "1")
    assert split_everywhere("openai_chat", body) == fast
    assert [getattr(i, "fidelity", None) for i in fast[1].message.items] == [None, {"refusal": True}, None]


# --- n > 1: choices apart ------------------------------------------------------------------------


def n_chunk(index: int, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    body = chunk(delta, finish)
    body["choices"][0]["index"] = index
    return body


def two_choices() -> bytes:
    """n=2 as OpenAI sends it: one choice per chunk, the two interleaved, then usage."""
    frames = [n_chunk(0, {"role": "assistant", "content": ""}), n_chunk(1, {"role": "assistant", "content": ""})]
    for word in ("I'm", " unable", " to", " help"):
        frames += [n_chunk(0, {"content": word}), n_chunk(1, {"content": word.upper()})]
    frames += [n_chunk(0, {}, "stop"), n_chunk(1, {}, "length")]
    frames.append(chunk(usage={"prompt_tokens": 5, "completion_tokens": 8, "total_tokens": 13}) | {"choices": []})
    return sse(*frames, crlf=True)


@pytest.mark.parametrize(
    ("choice", "text", "finish"), [(0, "I'm unable to help", "stop"), (1, "I'M UNABLE TO HELP", "length")]
)
def test_interleaved_choices_are_never_mixed(choice: int, text: str, finish: str) -> None:
    _events, outcome = split_everywhere("openai_chat", two_choices(), choice=choice)
    assert outcome.end == "complete"
    assert outcome.message.items == (unievent.TextDone(text),)
    assert outcome.native_finish_reason == finish
    assert outcome.extras["other_choices"] == [1 - choice]
    assert {a.kind: a.count for a in outcome.anomalies} == {"other_choices": 6}


def test_the_other_choices_are_side_events_tagged_with_their_index() -> None:
    events, _outcome = split_everywhere("openai_chat", two_choices(), side_events=True)
    side = [e for e in events if isinstance(e, unievent.SideEvent)]
    assert {(e.kind, e.phase, e.item_id) for e in side} == {("choice", "delta", "1")}
    assert "".join(e.data["delta"].get("content") or "" for e in side) == "I'M UNABLE TO HELP"


def test_tool_calls_in_two_choices_stay_apart() -> None:
    def call(index: int, args: str, first: bool) -> dict[str, Any]:
        fragment: dict[str, Any] = {"index": 0, "function": {"arguments": args}}
        if first:
            fragment |= {"id": f"call_{index}", "type": "function", "function": {"name": "weather", "arguments": args}}
        return n_chunk(index, {"tool_calls": [fragment]})

    frames = []
    for first, (a, b) in enumerate((('{"city":', '{"city":'), ('"Oslo"}', '"Rome"}'))):
        frames += [call(0, a, not first), call(1, b, not first)]
    frames += [n_chunk(0, {}, "tool_calls"), n_chunk(1, {}, "tool_calls")]
    _events, outcome = split_everywhere("openai_chat", sse(*frames))
    assert outcome.end == "complete" and outcome.finish_reason == "tool_call"
    assert calls_of(outcome) == [("weather", "call_0", {"city": "Oslo"})]


def test_a_chunk_carrying_several_choices_is_read_the_same() -> None:
    both = [
        {"index": 1, "delta": {"content": "B"}, "finish_reason": None},
        {"index": 0, "delta": {"content": "A"}, "finish_reason": None},
    ]
    ends = [{"index": 0, "delta": {}, "finish_reason": "stop"}, {"index": 1, "delta": {}, "finish_reason": "stop"}]
    body = sse({"choices": both}, {"choices": both}, {"choices": ends})
    for choice, text in ((0, "AA"), (1, "BB")):
        _events, outcome = split_everywhere("openai_chat", body, choice=choice)
        assert unievent.TextDone(text) in outcome.message.items and len(outcome.message.items) == 1
        assert outcome.extras["other_choices"] == [1 - choice]


def test_choices_apart_decode_as_the_full_path_does(monkeypatch: pytest.MonkeyPatch) -> None:
    body = two_choices()
    body = body.replace(
        b"data: [DONE]",
        b"".join(sse(n_chunk(0, {"content": f" w{n}"}), done=False) for n in range(20)) + b"data: [DONE]",
    )
    fast = split_everywhere("openai_chat", body)
    monkeypatch.setenv("UNIEVENT_SLOW_PATH", "1")
    assert split_everywhere("openai_chat", body) == fast


def test_a_choice_is_an_index() -> None:
    for wrong in (-1, "1", 1.0, True):
        with pytest.raises(unievent.DecoderUsageError):
            unievent.StreamDecoder("openai_chat", choice=wrong)  # type: ignore[call-overload]


@pytest.mark.parametrize("option", ["max_frame", "max_retained"])
def test_a_cap_is_an_int(option: str) -> None:
    for wrong in (-1, "1", 1.5, True, None):
        with pytest.raises(unievent.DecoderUsageError):
            unievent.StreamDecoder("openai_chat", **{option: wrong})  # type: ignore[call-overload]


# --- usage: a count is never negative -----------------------------------------------------------


def test_a_reasoning_count_larger_than_the_completion_is_outside_it_whatever_the_total_says() -> None:
    # a gateway's total (37 = 28 + 9) leaves the reasoning out; subtracting it would give -75
    usage = {
        "prompt_tokens": 28,
        "completion_tokens": 9,
        "total_tokens": 37,
        "prompt_tokens_details": {"cached_tokens": 0},
        "completion_tokens_details": {"reasoning_tokens": 84},
    }
    _events, outcome = split_everywhere(
        "openai_chat", sse(chunk({"content": "a"}, finish="stop"), {"choices": [], "usage": usage})
    )
    assert outcome.usage == Usage(cached_tokens=0, prompt_tokens=28, thoughts_tokens=84, response_tokens=9)
    assert outcome.anomalies == ()


# --- custom tools ---------------------------------------------------------------------------------


def custom_call(index: int, id: str | None = None, name: str | None = None, input: str | None = None) -> dict[str, Any]:
    """A custom tool's tool-call delta: `type` and `id` with its name, then its input."""
    fragment: dict[str, Any] = {"index": index}
    if id is not None:
        fragment.update(id=id, type="custom")
    fragment["custom"] = {k: v for k, v in (("name", name), ("input", input)) if v is not None}
    return fragment


CUSTOM = {"item_type": "custom"}
CUSTOM_CALL = sse(
    chunk({"role": "assistant", "content": None}),
    chunk({"tool_calls": [custom_call(0, "call_c1", "shell", "")]}),
    chunk({"tool_calls": [custom_call(0, input='echo "hi')]}),
    chunk({"tool_calls": [custom_call(0, input='"\n')]}),
    chunk({}, finish="tool_calls"),
)


def test_a_custom_tool_call_is_a_tool_call_whose_arguments_hold_its_input() -> None:
    events, outcome = split_everywhere("openai_chat", CUSTOM_CALL)
    assert items_of(events) == [
        ToolCallDelta("shell", '{"input":"', "call_c1", CUSTOM),
        ToolCallDelta("", 'echo \\"hi', ""),
        ToolCallDelta("", '\\"\\n', ""),
        ToolCallDelta("", '"}', ""),
        ToolCallDone("shell", {"input": 'echo "hi"\n'}, "call_c1", CUSTOM),
    ]
    assert (outcome.end, outcome.finish_reason, outcome.anomalies) == ("complete", "tool_call", ())


def test_a_custom_call_named_by_its_input_alone_and_parallel_ones_are_read() -> None:
    body = sse(
        chunk({"tool_calls": [{"index": 0, "id": "c1", "custom": {"name": "sql", "input": "SELECT 1"}}]}),
        chunk({"tool_calls": [custom_call(1, "c2", "sql", "SELECT 2")]}),
        chunk({}, finish="tool_calls"),
    )
    _events, outcome = split_everywhere("openai_chat", body)
    assert outcome.message.items == (
        ToolCallDone("sql", {"input": "SELECT 1"}, "c1", CUSTOM),
        ToolCallDone("sql", {"input": "SELECT 2"}, "c2", CUSTOM),
    )


def test_an_empty_custom_echoed_on_a_function_call_is_no_custom_call() -> None:
    fragment = {"index": 0, "id": "c1", "type": "function", "function": {"name": "f", "arguments": "{}"}, "custom": {}}
    body = sse(
        chunk({"tool_calls": [fragment]}),
        chunk({"tool_calls": [{"index": 0, "custom": {}}]}),
        chunk({}, finish="tool_calls"),
    )
    assert split_everywhere("openai_chat", body)[1].message.items == (ToolCallDone("f", {}, "c1"),)


def test_text_around_a_custom_call_closes_its_input_on_both_paths(monkeypatch: pytest.MonkeyPatch) -> None:
    text = [chunk({"content": f"w{n} "}) for n in range(12)]
    body = sse(*text, chunk({"tool_calls": [custom_call(0, "c1", "shell", "ls")]}), *text, chunk({}, finish="stop"))
    fast = split_everywhere("openai_chat", body)
    monkeypatch.setenv("UNIEVENT_SLOW_PATH", "1")
    assert split_everywhere("openai_chat", body) == fast
    assert fast[1].message.items[1] == ToolCallDone("shell", {"input": "ls"}, "c1", CUSTOM)
    assert fast[1].message.items[2] == TextDone("".join(f"w{n} " for n in range(12)))


def test_a_cut_custom_call_is_never_offered() -> None:
    body = sse(chunk({"tool_calls": [custom_call(0, "c1", "shell", "rm -")]}), done=False)
    _events, outcome = split_everywhere("openai_chat", body)
    assert (outcome.end, outcome.message.items) == ("truncated", ())


def test_a_custom_call_is_written_back_as_one_and_replayed_as_one() -> None:
    events, outcome = split_everywhere("openai_chat", CUSTOM_CALL)
    written = unievent.encode(events, "openai_chat")
    calls = [
        f["choices"][0]["delta"]["tool_calls"][0]
        for f in map(orjson.loads, written.split(b"data: ")[1:-1])
        if f["choices"] and "tool_calls" in f["choices"][0]["delta"]
    ]
    assert calls == [custom_call(0, "call_c1", "shell", ""), custom_call(0, input='echo "hi"\n')]
    assert split_everywhere("openai_chat", written)[1].message.items == outcome.message.items
    message = outcome.message.replay("openai_chat").json
    assert message["tool_calls"] == [
        {"id": "call_c1", "type": "custom", "custom": {"name": "shell", "input": 'echo "hi"\n'}}
    ]
    params = pytest.importorskip("openai.types.chat.chat_completion_message_custom_tool_call_param")
    assert set(message["tool_calls"][0]) == set(params.ChatCompletionMessageCustomToolCallParam.__annotations__)
    assert set(message["tool_calls"][0]["custom"]) == set(params.Custom.__annotations__)
