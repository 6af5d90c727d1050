"""Ollama native streams decoded by StreamDecoder("ollama").

Streams are written as Ollama's server writes them (`json.Marshal` of its response
structs, fields in their declaration order, one object and `\\n` per line, `<` `>` `&`
escaped as Go does).  Each test states one rule of the mapping.
"""

from __future__ import annotations

import base64
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import unievent
from tests.helpers import calls_of, decode_stream, split_at, split_everywhere
from unievent import (
    InlineDataDone,
    Outcome,
    StopEvent,
    TextDelta,
    TextDone,
    ThinkingDone,
    ToolCallDelta,
    ToolCallDone,
    Usage,
)
from unievent._protocols.ollama import image_type, normalize_ollama_finish

MODEL = "qwen3:8b"
COUNTS = {
    "total_duration": 182242375,
    "load_duration": 41295167,
    "prompt_eval_count": 26,
    "prompt_eval_duration": 24573166,
    "eval_count": 15,
    "eval_duration": 115959084,
}


def go(obj: dict[str, Any]) -> bytes:
    """One line as Go's encoding/json writes it (HTML characters escaped)."""
    text = orjson.dumps(obj)
    return text.replace(b"<", b"\\u003c").replace(b">", b"\\u003e").replace(b"&", b"\\u0026") + b"\n"


def chat(content: str = "", done: bool = False, **message: Any) -> dict[str, Any]:
    """An /api/chat line (`done` lines get done_reason stop and the counts)."""
    line: dict[str, Any] = {
        "model": MODEL,
        "created_at": "2025-10-26T17:15:24.097767Z",
        "message": {"role": "assistant", "content": content, **message},
        "done": done,
    }
    if done:
        line.update({"done_reason": "stop", **COUNTS})
    return line


def generate(response: str = "", done: bool = False, **fields: Any) -> dict[str, Any]:
    """An /api/generate line."""
    line: dict[str, Any] = {"model": MODEL, "created_at": "2025-10-26T17:15:24.097767Z", "response": response, **fields}
    line["done"] = done
    if done:
        line.update({"done_reason": "stop", "context": [1, 2, 3], **COUNTS})
    return line


def call(name: str, arguments: Any, call_id: str | None = None, index: int = 0) -> dict[str, Any]:
    found: dict[str, Any] = {"function": {"index": index, "name": name, "arguments": arguments}}
    if call_id is not None:
        found = {"id": call_id, **found}
    return found


def wire(*lines: dict[str, Any]) -> bytes:
    return b"".join(go(line) for line in lines)


def run(body: bytes | list[bytes], protocol: str = "ollama", **options: Any) -> tuple[list[Any], Outcome]:
    return decode_stream(protocol, body, **options)


def every_split(body: bytes, protocol: str = "ollama", **options: Any) -> tuple[list[Any], Outcome]:
    return split_everywhere(protocol, body, **options)


def items(events: list[Any]) -> list[Any]:
    return [e.item for e in events if isinstance(e, unievent.DeltaEvent)]


THINK_THEN_ANSWER = wire(
    chat(thinking="Let me"),
    chat(thinking=" think."),
    chat("The <answer>"),
    chat(" is 4."),
    chat(done=True),
)


# --- chat lines ---------------------------------------------------------------------------


def test_a_chat_stream_in_any_split_is_its_thinking_then_its_text_then_the_stop() -> None:
    events, outcome = every_split(THINK_THEN_ANSWER)
    assert items(events)[-2:] == [TextDelta(" is 4."), TextDone("The <answer> is 4.")]
    assert outcome.message.items == (ThinkingDone("Let me think."), TextDone("The <answer> is 4."))
    assert events[-1] == StopEvent(Usage(None, 26, None, 15), "stop", 0)
    assert (outcome.end, outcome.finish_reason, outcome.native_finish_reason, outcome.model) == ("complete", "stop", "stop", MODEL)
    assert outcome.extras == {"durations": {k: v for k, v in COUNTS.items() if k.endswith("duration")}}
    assert outcome.anomalies == ()


def test_the_done_line_may_carry_the_last_text() -> None:
    last = chat("!", done=True)
    _, outcome = run(wire(chat("Hi"), last))
    assert outcome.message.items == (TextDone("Hi!"),)


def test_a_line_may_carry_thinking_text_and_calls_at_once_in_that_order() -> None:
    line = chat("Checking.", thinking="Need weather.", tool_calls=[call("get_weather", {"city": "Tokyo"}, "call_k3j9x2ab")])
    _, outcome = run(wire(line, chat(done=True)))
    assert outcome.message.items == (
        ThinkingDone("Need weather."),
        TextDone("Checking."),
        ToolCallDone("get_weather", {"city": "Tokyo"}, "call_k3j9x2ab"),
    )


def test_tool_calls_arrive_whole_each_its_own_item_and_the_turn_is_a_tool_call_whatever_done_reason_says() -> None:
    arguments = {"b": [1, 2.5, None], "a": "x"}  # key order kept as the model wrote it
    lines = wire(chat(tool_calls=[call("f", arguments, "call_1"), call("g", {}, "call_2", 1)]), chat(done=True))
    events, outcome = run(lines)
    assert items(events)[:2] == [ToolCallDelta("f", '{"b":[1,2.5,null],"a":"x"}', "call_1"), ToolCallDone("f", arguments, "call_1")]
    assert [(name, call_id) for name, call_id, _ in calls_of(outcome)] == [("f", "call_1"), ("g", "call_2")]
    assert (outcome.finish_reason, outcome.native_finish_reason) == ("tool_call", "stop")


def test_a_call_without_an_id_gets_one_made_up_numbered_after_the_text() -> None:
    lines = wire(chat("Sure."), chat(tool_calls=[call("f", {"q": 1})]), chat(tool_calls=[call("g", {"q": 2}, index=1)]), chat(done=True))
    _, outcome = run(lines)
    assert [(name, call_id) for name, call_id, _ in calls_of(outcome)] == [("f", "call_s_1"), ("g", "call_s_2")]


def test_arguments_given_as_text_are_taken_as_they_are_and_none_is_an_empty_object() -> None:
    lines = wire(chat(tool_calls=[call("f", '{"q": 1}', "c1"), {"id": "c2", "function": {"name": "g"}}]), chat(done=True))
    events, outcome = run(lines)
    assert items(events)[0] == ToolCallDelta("f", '{"q": 1}', "c1")
    assert [arguments for _, _, arguments in calls_of(outcome)] == [{"q": 1}, {}]


def test_arguments_that_are_no_object_fail_the_stream() -> None:
    _, outcome = run(wire(chat(tool_calls=[call("f", [1, 2], "c1")]), chat(done=True)))
    assert outcome.end == "failed" and outcome.error is not None
    assert outcome.error.type == "tool_call_argument_parse_error"
    _, lenient = run(wire(chat(tool_calls=[call("f", [1, 2], "c1")]), chat(done=True)), strict_arguments=False)
    assert lenient.message.items == (ToolCallDone("f", {}, "c1", {"raw_arguments": "[1,2]"}),)


def test_a_call_without_a_name_is_kept_as_a_side_event() -> None:
    _, outcome = run(wire(chat(tool_calls=[{"function": {"arguments": {}}}]), chat(done=True)))
    assert outcome.message.items == () and outcome.finish_reason == "stop"
    assert [(e.kind, e.phase) for e in outcome.side_events] == [("tool_call", "info")]
    assert {a.kind for a in outcome.anomalies} == {"unnamed_tool_call"}


PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"


def test_images_are_inline_data_each_its_own_item_typed_by_their_bytes() -> None:
    images = [base64.b64encode(PNG).decode(), base64.b64encode(b"\xff\xd8\xff\xe0JFIF").decode()]
    _, outcome = run(wire(chat(images=images), chat(done=True)))
    assert outcome.message.items == (InlineDataDone(PNG, "image/png"), InlineDataDone(b"\xff\xd8\xff\xe0JFIF", "image/jpeg"))


@pytest.mark.parametrize(
    ("data", "mime"),
    [(b"GIF89a..", "image/gif"), (b"GIF87a..", "image/gif"), (b"RIFF\x00\x00\x00\x00WEBPVP8 ", "image/webp"), (b"?", "application/octet-stream")],
)
def test_image_types_by_their_first_bytes(data: bytes, mime: str) -> None:
    assert image_type(data) == mime


def test_an_image_that_is_no_base64_is_noted_and_kept_aside() -> None:
    _, outcome = run(wire(chat(images=["not base64!"]), chat(done=True)))
    assert outcome.message.items == ()
    assert {a.kind for a in outcome.anomalies} == {"image_not_base64"}
    assert [e.data for e in outcome.side_events] == [{"image": "not base64!"}]


# --- generate lines -----------------------------------------------------------------------


def test_generate_lines_are_response_and_thinking() -> None:
    body = wire(generate(thinking="hm"), generate("That"), generate(" is"), generate(" it.", done=True))
    _, outcome = every_split(body)
    assert outcome.message.items == (ThinkingDone("hm"), TextDone("That is it."))
    assert (outcome.end, outcome.usage) == ("complete", Usage(None, 26, None, 15))


# --- the end ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reason", "calls", "mapped"),
    [
        ("stop", False, "stop"),
        ("stop", True, "tool_call"),
        ("length", False, "length"),
        ("length", True, "length"),
        ("load", False, "stop"),
        ("unload", False, "stop"),
        ("something_new", False, "unknown"),
        (None, False, "stop"),
        (None, True, "tool_call"),
    ],
)
def test_done_reason_mapping_keeps_the_native_value(reason: str | None, calls: bool, mapped: str) -> None:
    done = chat(done=True)
    if reason is None:
        del done["done_reason"]
    else:
        done["done_reason"] = reason
    first = chat(tool_calls=[call("f", {}, "c1")]) if calls else chat("x")
    _, outcome = run(wire(first, done))
    assert (outcome.end, outcome.finish_reason, outcome.native_finish_reason) == ("complete", mapped, reason)
    assert normalize_ollama_finish(reason, calls) == mapped


def test_no_done_line_is_truncated_keeping_the_text() -> None:
    _, outcome = run(wire(chat("Hel"), chat("lo")))
    assert (outcome.end, outcome.message.items, outcome.finish_reason) == ("truncated", (TextDone("Hello"),), None)


def test_a_cut_call_line_is_truncated_and_offers_no_call() -> None:
    body = wire(chat("a"), chat(tool_calls=[call("f", {"q": 1}, "c1")]))
    _, outcome = run(body[:-10])
    assert outcome.end == "truncated" and outcome.message.items == (TextDone("a"),)
    assert {a.kind for a in outcome.anomalies} == {"cut_frame"}


def test_an_error_line_fails_keeping_what_arrived_and_nothing_after_is_read() -> None:
    body = wire(generate("can"), {"error": "an error was encountered while running the model"}, generate("x"))
    _, outcome = every_split(body)
    assert outcome.end == "failed" and outcome.message.items == (TextDone("can"),)
    assert outcome.error == unievent.ProviderError(
        "an error was encountered while running the model", "error", None, {"error": "an error was encountered while running the model"}
    )
    assert {a.kind: a.count for a in outcome.anomalies} == {"frames_after_end": 1}


def test_an_error_object_gives_its_message() -> None:
    _, outcome = run(wire({"error": {"message": "model 'x' not found"}}))
    assert outcome.end == "failed" and outcome.error is not None and outcome.error.message == "model 'x' not found"


def test_lines_after_the_done_line_are_counted_not_read() -> None:
    _, outcome = run(THINK_THEN_ANSWER + wire(chat("late")))
    assert outcome.end == "complete" and "late" not in [getattr(i, "text", "") for i in outcome.message.items]
    assert {a.kind: a.count for a in outcome.anomalies} == {"frames_after_end": 1}


def test_one_object_without_a_line_end_is_a_whole_answer() -> None:
    body = go(chat("Hello!", done=True)).rstrip(b"\n")  # "stream": false, or the load and unload answers
    _, outcome = every_split(body)
    assert (outcome.end, outcome.message.items, outcome.finish_reason) == ("complete", (TextDone("Hello!"),), "stop")
    load = go({"model": MODEL, "created_at": "2025-10-26T17:15:24Z", "message": {"role": "assistant", "content": ""}, "done_reason": "load", "done": True})
    _, loaded = run(load.rstrip(b"\n"))
    assert (loaded.end, loaded.message.items, loaded.native_finish_reason, loaded.finish_reason) == ("complete", (), "load", "stop")


def test_a_line_that_is_no_object_is_a_junk_frame() -> None:
    _, outcome = run(wire(chat("a")) + b"[DONE]\n" + wire(chat(done=True)))
    assert (outcome.end, outcome.message.items, outcome.skipped_frames) == ("complete", (TextDone("a"),), 1)


# --- finding the protocol -----------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"url": "http://localhost:11434/api/chat"},
        {"url": "http://localhost:11434/api/generate"},
        {"content_type": "application/x-ndjson"},
        {},
    ],
    ids=["url chat", "url generate", "content type", "first line"],
)
def test_auto_decodes_ollama_as_ollama(options: dict[str, Any]) -> None:
    explicit = run(THINK_THEN_ANSWER)
    for body in (THINK_THEN_ANSWER, [THINK_THEN_ANSWER[i : i + 7] for i in range(0, len(THINK_THEN_ANSWER), 7)]):
        events, outcome = run(body, "auto", **options)
        assert outcome.protocol == "ollama" and outcome.detected_by
        assert (events, outcome.message, outcome.end, outcome.usage) == (explicit[0], explicit[1].message, "complete", explicit[1].usage)


def test_auto_names_a_generate_line_too() -> None:
    _, outcome = run(wire(generate("a"), generate(done=True)), "auto")
    assert outcome.detected_by == "frame 1: an Ollama generate line (model, created_at, response, done)"


def test_ollama_lines_given_to_another_protocol_are_no_event_stream() -> None:
    _, outcome = run(THINK_THEN_ANSWER, "openai_chat")
    assert outcome.end == "not_event_stream"


# --- properties ---------------------------------------------------------------------------

_STREAMS = [
    THINK_THEN_ANSWER,
    THINK_THEN_ANSWER.replace(b"\n", b"\r\n"),
    wire(chat("a é 😀"), chat(tool_calls=[call("f", {"s": "<&>"})]), chat(done=True)),
    wire(generate("can"), {"error": "boom"}),
    wire(chat("cut"))[:-5],
]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(range(len(_STREAMS))), st.lists(st.integers(min_value=0, max_value=2_000), max_size=20))
def test_split_invariance_and_grammar(which: int, cuts: list[int]) -> None:
    body = _STREAMS[which]
    assert run(split_at(body, cuts)) == run(body)
