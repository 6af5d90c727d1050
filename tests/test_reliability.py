"""The promises under hostile input: any split, only unievent errors, bounded memory,
honest ends, and fidelity of what arrived.

Each test names the rule it checks.  Linear time is measured, not asserted, by
tests/bench/scaling.py; where the work is Python-level it is also counted here
(lines executed), which repeats exactly on any machine.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import Any

import orjson
import pytest

import unievent
from tests.helpers import calls_of, chunk, decode, split_at, sse, text_of
from unievent import DecoderStateError, DecoderUsageError, FrameTooLargeError, StreamDecoder, TextDone
from unievent._decoder import StreamDecoder as RuntimeStreamDecoder  # takes any protocol name


def run(protocol: str, pieces: list[bytes], **options: Any) -> tuple[list[Any], unievent.Outcome]:
    options.setdefault("stream_id", "s")
    options.setdefault("clock", lambda: 0)
    decoder = RuntimeStreamDecoder(protocol, **options)
    events: list[Any] = []
    for piece in pieces:
        events += decoder.push(piece)
    last, outcome = decoder.finish()
    events += last
    unievent.validate(events, partial=outcome.end != "complete")
    return events, outcome


def every_split(protocol: str, body: bytes, **options: Any) -> tuple[list[Any], unievent.Outcome]:
    """Decode `body` whole, cut at every single offset, and byte by byte: all must agree."""
    whole = run(protocol, [body], **options)
    for cut in range(1, len(body)):
        assert run(protocol, split_at(body, [cut]), **options) == whole, f"cut at {cut}"
    assert run(protocol, [body[i : i + 1] for i in range(len(body))], **options) == whole
    return whole


def kinds(outcome: unievent.Outcome) -> dict[str, int]:
    return {a.kind: a.count for a in outcome.anomalies}


# --- 1-3: split invariance of the framer ---------------------------------------------------


def test_an_event_name_and_its_data_in_different_pushes_stay_one_frame() -> None:
    body = b'event: error\ndata: {"message":"overloaded"}\n\n'
    _, outcome = every_split("openai_chat", body)
    assert outcome.end == "failed"
    assert outcome.error is not None and outcome.error.message == "overloaded"


def test_an_event_name_without_data_is_forgotten_at_its_blank_line() -> None:
    body = b"event: error\n\n" + sse(chunk({"content": "fine"}, finish="stop"))
    _, outcome = every_split("openai_chat", body)
    assert (outcome.end, text_of(outcome)) == ("complete", "fine")


@pytest.mark.parametrize(
    ("protocol", "body", "text"),
    [
        (
            "anthropic",
            b'event: content_block_delta\ndata: {"index":0,"delta":{"type":"text_delta","text":"kept"}}\n\n',
            "kept",
        ),
        (
            "openai_responses",
            b'event: response.output_text.delta\ndata: {"output_index":0,"item_id":"m","delta":"kept"}\n\n',
            "kept",
        ),
    ],
)
def test_frames_typed_only_by_their_event_line_keep_their_text_in_any_split(
    protocol: str, body: bytes, text: str
) -> None:
    _, outcome = every_split(protocol, body)
    assert "".join(i.text for i in outcome.message.items if isinstance(i, TextDone)) == text


def test_every_leading_bom_is_stripped_however_the_pushes_split_them() -> None:
    body = b"\xef\xbb\xbf\xef\xbb\xbf" + sse(chunk({"content": "x"}, finish="stop"))
    _, outcome = every_split("openai_chat", body)
    assert (outcome.end, text_of(outcome)) == ("complete", "x")


def test_a_bom_after_the_first_line_is_not_stripped() -> None:
    body = b": hello\n\xef\xbb\xbfdata: " + orjson.dumps(chunk({"content": "x"}, finish="stop")) + b"\n\n"
    _, outcome = run("openai_chat", [body])
    assert outcome.end == "not_event_stream"  # that line is a field named "\ufeffdata", not data


def test_the_line_cap_holds_for_a_whole_line_and_for_one_in_pieces() -> None:
    line = b": " + b"x" * 100 + b"\n\n"
    for pieces in ([line], [line[:50], line[50:]], [line[i : i + 1] for i in range(len(line))]):
        decoder = StreamDecoder("openai_chat", max_frame=64)
        with pytest.raises(FrameTooLargeError) as raised:
            for piece in pieces:
                decoder.push(piece)
        assert raised.value.what == "line"


# --- 4-6: only unievent errors ----------------------------------------------------------


def deep(levels: int) -> bytes:
    return b"[" * levels + b"]" * levels


@pytest.mark.parametrize("levels", [255, 1000, 100_000])
def test_deeply_nested_values_never_escape_as_foreign_errors(levels: int) -> None:
    bodies = {
        "openai_chat": [
            b'data: {"error":' + deep(levels) + b"}\n\n",
            b'data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":{"a":'
            + deep(levels)
            + b'}}}]},"finish_reason":"tool_calls"}]}\n\n',
        ],
        "anthropic": [
            b'data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"f",'
            b'"input":{"a":' + deep(levels) + b"}}}\n\n",
            b'data: {"type":"error","error":{"message":' + deep(levels) + b"}}\n\n",
        ],
        "openai_responses": [
            b'data: {"type":"error","error":{"message":' + deep(levels) + b"}}\n\n",
            b'data: {"type":"response.failed","response":{"error":' + deep(levels) + b"}}\n\n",
        ],
    }
    for protocol, cases in bodies.items():
        for body in cases:
            _events, outcome = run(protocol, [body])
            repr(outcome)  # printable
            assert outcome == run(protocol, [body])[1]  # comparable
            if levels > 254:
                assert outcome.skipped_frames == 1 and kinds(outcome).get("frame_too_deep", 0) == (levels <= 1024)


def test_tool_arguments_nested_deeper_than_the_cap_are_not_an_object_the_decoder_carries() -> None:
    args = '{"a":' + "[" * 300 + "]" * 300 + "}"
    frames = [chunk({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "f", "arguments": args}}]}, finish="tool_calls")]
    _, outcome = decode(sse(*frames), strict_arguments=False)
    (done,) = outcome.message.items
    assert isinstance(done, unievent.ToolCallDone)
    assert done.arguments == {} and done.fidelity == {"raw_arguments": args}


@pytest.mark.parametrize("kind", [bytearray, memoryview])
def test_push_takes_any_bytes_like_object(kind: Callable[[bytes], Any]) -> None:
    body = sse(chunk({"content": "x"}, finish="stop"))
    decoder = StreamDecoder("openai_chat", clock=lambda: 0)
    events = decoder.push(kind(body))
    last, outcome = decoder.finish()
    assert (outcome.end, text_of(outcome)) == ("complete", "x")
    assert events + last == run("openai_chat", [body])[0]


def test_a_str_gets_a_clear_error_naming_the_fix() -> None:
    decoder = StreamDecoder("openai_chat")
    with pytest.raises(DecoderUsageError, match=r"raw bytes.*iter_bytes"):
        decoder.push('data: {"choices":[]}\n\n')  # typed as NoReturn: a type checker flags what follows
    with pytest.raises(DecoderUsageError, match="not int"):
        StreamDecoder("openai_chat").push(5)  # type: ignore[call-overload]
    assert isinstance(DecoderUsageError("x"), TypeError)


def test_after_frame_too_large_the_decoder_refuses_input_and_reports_it() -> None:
    decoder = StreamDecoder("openai_chat", max_frame=200, clock=lambda: 0)
    first = decoder.push(sse(chunk({"content": "before"}), done=False))
    with pytest.raises(FrameTooLargeError) as raised:
        decoder.push(sse(chunk({"content": " and"}), done=False) + b"data: " + b"x" * 300)
    texts = [getattr(e, "item", None) for e in first + raised.value.events]
    assert texts == [unievent.TextDelta("before"), unievent.TextDelta(" and")]  # nothing lost
    with pytest.raises(DecoderStateError):
        decoder.push(sse(chunk({}, finish="stop")))
    last, outcome = decoder.finish()
    assert outcome.end == "failed"
    assert outcome.error is not None and outcome.error.type == "frame_too_large"
    assert text_of(outcome) == "before and"
    assert [type(getattr(e, "item", e)).__name__ for e in last] == ["TextDone"]


def test_unknown_protocols_raise_a_unievent_error() -> None:
    with pytest.raises(DecoderUsageError, match="unknown protocol 'openai'; known: "):
        StreamDecoder("openai")  # type: ignore[call-overload]


# --- 10-12: work that is Python-level is counted, and must grow linearly ----------------


def lines_executed(fn: Callable[[], object]) -> int:
    """How many Python lines `fn` runs in unievent's modules (deterministic)."""
    count = 0

    def tracer(frame: Any, event: str, arg: Any) -> Any:
        nonlocal count
        if event == "line":
            count += 1
        return tracer if "unievent" in frame.f_code.co_filename else None

    sys.settrace(tracer)
    try:
        fn()
    finally:
        sys.settrace(None)
    return count


def linear(make: Callable[[int], bytes], protocol: str, n: int = 200) -> None:
    small = lines_executed(lambda: run(protocol, [make(n)]))
    large = lines_executed(lambda: run(protocol, [make(4 * n)]))
    assert large < 4.5 * small, (small, large)


def test_tool_calls_with_an_id_but_no_index_route_in_linear_work() -> None:
    def body(n: int) -> bytes:
        frames = [chunk({"tool_calls": [{"id": f"c{i}", "function": {"name": "f", "arguments": "{}"}}]}) for i in range(n)]
        return sse(*frames, chunk({}, finish="tool_calls"))

    linear(body, "openai_chat")
    assert len(run("openai_chat", [body(50)])[1].message.items) == 50


def test_mirobody_tool_steps_match_their_results_in_linear_work() -> None:
    def body(n: int) -> bytes:
        out = []
        for i in range(n):
            step = {"id": f"s{i}", "call_id": f"c{i}", "name": "f", "arguments": "{}"}
            out.append({"type": "response.mirobody_tool_call", "tool_step": step})
            out.append({"type": "response.mirobody_tool_result", "tool_step": {**step, "result": "ok"}})
        return b"".join(b"data: " + orjson.dumps(o) + b"\n\n" for o in out)

    linear(body, "openai_responses")
    steps = run("openai_responses", [body(20)])[1].extras["tool_steps"]
    assert [s["result"] for s in steps] == ["ok"] * 20


def test_interleaved_parallel_calls_parse_the_open_call_once(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[int] = []
    from unievent import _grammar

    def counting(text: str) -> Any:
        parsed.append(len(text))
        return _grammar.parse_arguments(text)

    monkeypatch.setattr("unievent._protocols.openai_chat.parse_arguments", counting)

    frames = [chunk({"tool_calls": [{"index": 0, "id": "a", "function": {"name": "f", "arguments": '{"x": "'}}]})]
    frames.append(chunk({"tool_calls": [{"index": 1, "id": "b", "function": {"name": "g", "arguments": '{"y": "'}}]}))
    for _ in range(300):
        frames.append(chunk({"tool_calls": [{"index": 0, "function": {"arguments": "aaaa"}}]}))
        frames.append(chunk({"tool_calls": [{"index": 1, "function": {"arguments": "bbbb"}}]}))
    frames.append(chunk({"tool_calls": [{"index": 0, "function": {"arguments": '"}'}}]}))
    frames.append(chunk({"tool_calls": [{"index": 1, "function": {"arguments": '"}'}}]}))
    _, outcome = decode(sse(*frames, chunk({}, finish="tool_calls")))
    assert [(name, len(args["x" if name == "f" else "y"])) for name, _id, args in calls_of(outcome)] == [
        ("f", 1200),
        ("g", 1200),
    ]
    assert len(parsed) <= 1  # the open call is parsed once, when its nesting closes


# --- 13: bounded memory ------------------------------------------------------------------


def test_unknown_frames_are_counted_not_kept_one_by_one() -> None:
    unknown = b'event: x\ndata: {"type":"future_frame","n":1}\n\n' * 5000
    _, outcome = run("anthropic", [unknown], max_retained=100)
    assert len(outcome.side_events) == 100
    assert kinds(outcome) == {"unknown_frame": 5000, "retention_cap": 4900}
    assert all(len(a.examples) <= 3 for a in outcome.anomalies)


def test_side_channel_deltas_are_emitted_but_not_retained() -> None:
    def frame(obj: dict[str, Any]) -> bytes:
        return b"data: " + orjson.dumps(obj) + b"\n\n"

    body = frame({"type": "message_start", "message": {}})
    body += frame({"type": "content_block_start", "index": 0, "content_block": {"type": "compaction", "content": ""}})
    body += frame({"type": "content_block_delta", "index": 0, "delta": {"type": "compaction_delta", "content": "ab"}}) * 2000
    body += frame({"type": "content_block_stop", "index": 0})
    events, outcome = run("anthropic", [body], side_events=True)
    assert sum(1 for e in events if isinstance(e, unievent.SideEvent) and e.phase == "delta") == 2000
    assert [(e.phase, len(e.data.get("content", ""))) for e in outcome.side_events] == [("start", 0), ("done", 4000)]


def test_sequence_gaps_are_aggregated() -> None:
    frames = [{"type": "response.created", "sequence_number": 0, "response": {}}]
    frames += [{"type": "response.in_progress", "sequence_number": 2 * i + 2, "response": {}} for i in range(1000)]
    _, outcome = run("openai_responses", [b"".join(b"data: " + orjson.dumps(f) + b"\n\n" for f in frames)])
    (gap,) = outcome.anomalies
    assert (gap.kind, gap.count, len(gap.examples)) == ("sequence_gap", 1000, 3)


# --- 14-16: honest ends ------------------------------------------------------------------


def test_a_body_cut_inside_its_last_frame_is_truncated_even_after_a_finish_reason() -> None:
    usage = chunk(usage={"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12})
    usage["choices"] = []
    body = sse(chunk({"content": "hi"}), chunk({}, finish="stop"), usage, done=False)
    cut = body[: len(body) - 30]
    _, outcome = every_split("openai_chat", cut)
    assert (outcome.end, text_of(outcome)) == ("truncated", "hi")
    assert kinds(outcome) == {"cut_frame": 1}
    # the same body whole, without its final blank line, is complete
    assert run("openai_chat", [body.rstrip(b"\n")])[1].end == "complete"


@pytest.mark.parametrize(
    "tail",
    [b"event: message_stop\n", b'event: message_stop\ndata: {"type":"mess', b"data: {", b"dat"],
    ids=["event line only", "cut data", "cut json", "cut field name"],
)
def test_every_protocol_reports_a_cut_inside_a_frame(tail: bytes) -> None:
    whole = (
        b'data: {"type":"message_start","message":{}}\n\n'
        b'data: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":1}}\n\n'
    )
    assert run("anthropic", [whole])[1].end == "complete"
    _, outcome = run("anthropic", [whole + tail])
    assert outcome.end == "truncated" and kinds(outcome) == {"cut_frame": 1}


def test_frames_after_the_end_are_counted() -> None:
    def frame(obj: dict[str, Any]) -> bytes:
        return b"data: " + orjson.dumps(obj) + b"\n\n"

    one = frame({"type": "response.created", "response": {"id": "r1"}}) + frame(
        {"type": "response.completed", "response": {"id": "r1", "status": "completed"}}
    )
    _, outcome = run("openai_responses", [one + one + b"data: [DONE]\n\n"])
    assert outcome.end == "complete"
    assert kinds(outcome) == {"frames_after_end": 2}


def test_responses_error_then_response_failed_reads_both() -> None:
    def frame(obj: dict[str, Any]) -> bytes:
        return f"event: {obj['type']}\n".encode() + b"data: " + orjson.dumps(obj) + b"\n\n"

    body = frame({"type": "response.created", "response": {"id": "r"}})
    body += frame({"type": "error", "code": "server_error", "message": "The server had an error", "param": None})
    body += frame({"type": "response.failed", "response": {"id": "r", "status": "failed", "error": {"code": "server_error", "message": "other words"}}})
    _, outcome = run("openai_responses", [body])
    assert outcome.end == "failed"
    assert outcome.native_finish_reason == "failed"
    assert outcome.error is not None
    assert (outcome.error.type, outcome.error.code, outcome.error.message) == (
        "server_error",
        "server_error",
        "The server had an error",
    )


# --- 18-20: ids and fidelity ---------------------------------------------------------


def test_anthropic_made_up_ids_use_the_block_index() -> None:
    def frame(obj: dict[str, Any]) -> bytes:
        return b"data: " + orjson.dumps(obj) + b"\n\n"

    body = frame({"type": "message_start", "message": {}})
    body += frame({"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "name": "f", "input": {}}})
    body += frame({"type": "content_block_stop", "index": 2})
    body += frame({"type": "message_delta", "delta": {"stop_reason": "tool_use"}})
    _, outcome = run("anthropic", [body], stream_id="abc")
    assert [call_id for _name, call_id, _args in calls_of(outcome)] == ["call_abc_2"]


def test_anthropic_iterations_usage_is_their_sum() -> None:
    def frame(obj: dict[str, Any]) -> bytes:
        return b"data: " + orjson.dumps(obj) + b"\n\n"

    iterations = [
        {"type": "compaction", "input_tokens": 100, "output_tokens": 83, "cache_read_input_tokens": 55096, "cache_creation_input_tokens": 0},
        {"type": "message", "input_tokens": 181, "output_tokens": 8, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0},
    ]
    body = frame({"type": "message_start", "message": {"usage": {"input_tokens": 100, "cache_read_input_tokens": 55096, "output_tokens": 7}}})
    body += frame({"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"input_tokens": 181, "cache_read_input_tokens": 0, "output_tokens": 8, "iterations": iterations}})
    _, outcome = run("anthropic", [body])
    assert outcome.usage == unievent.Usage(cached_tokens=55096, prompt_tokens=281, thoughts_tokens=None, response_tokens=91)
    assert outcome.extras["usage_iterations"] == iterations


def test_openai_annotations_ride_on_their_text_item() -> None:
    cite: dict[str, Any] = {"type": "url_citation", "url_citation": {"url": "https://example.com", "title": "Ex", "start_index": 0, "end_index": 4}}
    body = sse(
        chunk({"content": "Text"}),
        chunk({"content": "", "annotations": [cite]}),
        chunk({"content": "", "annotations": [{**cite, "url_citation": {**cite["url_citation"], "url": "https://b"}}]}),
        chunk({}, finish="stop"),
    )
    _events, outcome = every_split("openai_chat", body)
    (done,) = outcome.message.items
    assert isinstance(done, TextDone) and done.text == "Text"
    assert done.fidelity is not None
    assert [a["url_citation"]["url"] for a in done.fidelity["annotations"]] == ["https://example.com", "https://b"]
