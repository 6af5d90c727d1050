"""Amazon Bedrock ConverseStream streams decoded by StreamDecoder("bedrock_converse").

Streams are written as Bedrock sends them: AWS event-stream frames with both CRCs
computed, string headers `:event-type`, `:content-type: application/json`,
`:message-type: event` in that order, compact JSON payloads with their keys sorted and
the `p` padding field.  Each test states one rule; the corpus test at the end replays
every recorded `bedrock` stream of ../shared/corpus.
"""

from __future__ import annotations

import base64
import json
import string
import struct
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import unievent
from tests.helpers import calls_of, decode_stream, decoder_on_path, split_at, split_everywhere
from unievent import (
    InlineDataDone,
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
from unievent._decoder import StreamDecoder as RuntimeStreamDecoder  # takes any protocol name
from unievent._framing.aws_eventstream import encode_frame
from unievent._protocols.anthropic import REDACTED_THINKING
from unievent._protocols.bedrock_converse import normalize_bedrock_finish

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"
PADDING = string.ascii_letters + string.digits

# --- building wire bytes ------------------------------------------------------------------


def event(name: str, payload: dict[str, Any], pad: int = 7) -> bytes:
    """One event frame as Bedrock writes it (sorted keys, a `p` of `pad` characters)."""
    body = {**payload, "p": PADDING[:pad]} if pad else payload
    headers = [(":event-type", name), (":content-type", "application/json"), (":message-type", "event")]
    return encode_frame(headers, orjson.dumps(body, option=orjson.OPT_SORT_KEYS))


def exception(kind: str, message: str, **fields: Any) -> bytes:
    headers = [(":exception-type", kind), (":content-type", "application/json"), (":message-type", "exception")]
    return encode_frame(headers, orjson.dumps({"message": message, **fields}))


MESSAGE_START = event("messageStart", {"role": "assistant"})


def text(index: int, value: str) -> bytes:
    return event("contentBlockDelta", {"contentBlockIndex": index, "delta": {"text": value}})


def reasoning(index: int, **member: str) -> bytes:
    return event("contentBlockDelta", {"contentBlockIndex": index, "delta": {"reasoningContent": member}})


def tool_start(index: int, name: str, tool_id: str, kind: str | None = None) -> bytes:
    tool = {"name": name, "toolUseId": tool_id, **({"type": kind} if kind else {})}
    return event("contentBlockStart", {"contentBlockIndex": index, "start": {"toolUse": tool}})


def tool_input(index: int, fragment: str) -> bytes:
    return event("contentBlockDelta", {"contentBlockIndex": index, "delta": {"toolUse": {"input": fragment}}})


def stop(index: int) -> bytes:
    return event("contentBlockStop", {"contentBlockIndex": index})


def message_stop(reason: str = "end_turn", **more: Any) -> bytes:
    return event("messageStop", {"stopReason": reason, **more})


def metadata(inp: int = 13, out: int = 82, **usage: int) -> bytes:
    counts = {"inputTokens": inp, "outputTokens": out, "totalTokens": inp + out, **usage}
    return event("metadata", {"metrics": {"latencyMs": 522}, "usage": counts})


def simple(*blocks: bytes, reason: str = "end_turn") -> bytes:
    return MESSAGE_START + b"".join(blocks) + message_stop(reason) + metadata()


def run(body: bytes | list[bytes], protocol: str = "bedrock_converse", **options: Any) -> tuple[list[Any], Outcome]:
    return decode_stream(protocol, body, **options)


def every_split(body: bytes, protocol: str = "bedrock_converse", **options: Any) -> tuple[list[Any], Outcome]:
    return split_everywhere(protocol, body, **options)


def items(events: list[Any]) -> list[Any]:
    return [e.item for e in events if isinstance(e, unievent.DeltaEvent)]


def kinds(outcome: Outcome) -> dict[str, int]:
    return {a.kind: a.count for a in outcome.anomalies}


HELLO = simple(text(0, "Hello"), text(0, ", wörld"), stop(0))
SIGNATURE = "Eu0CCkgIBxABGAIqQJDccbDQkr81n7QjZ0Fi43umSvw0Y=="

# --- text, reasoning, tools ---------------------------------------------------------------


def test_a_text_block_without_a_start_split_at_every_byte_is_one_text_item_then_the_stop() -> None:
    events, outcome = every_split(HELLO)
    assert items(events) == [TextDelta("Hello"), TextDelta(", wörld"), TextDone("Hello, wörld")]
    assert events[-1] == StopEvent(Usage(None, 13, None, 82), "stop", 0)
    assert (outcome.end, outcome.finish_reason, outcome.native_finish_reason) == ("complete", "stop", "end_turn")
    assert outcome.extras == {"metrics": {"latencyMs": 522}}
    assert outcome.anomalies == ()


def test_usage_prompt_includes_cache_writes_and_cached_is_cache_reads() -> None:
    body = MESSAGE_START + text(0, "x") + stop(0) + message_stop() + metadata(5, 9, cacheReadInputTokens=100, cacheWriteInputTokens=20)
    _, outcome = run(body)
    assert outcome.usage == Usage(cached_tokens=100, prompt_tokens=25, thoughts_tokens=None, response_tokens=9)


def test_reasoning_signature_is_fidelity_on_its_thinking_item() -> None:
    body = simple(reasoning(0, text="Let me"), reasoning(0, text=" think."), reasoning(0, text=""), reasoning(0, signature=SIGNATURE), stop(0), text(1, "Hi"), stop(1))
    events, outcome = run(body)
    fidelity = {"signature": SIGNATURE}
    assert items(events)[:4] == [ThinkingDelta("Let me"), ThinkingDelta(" think."), ThinkingDelta("", fidelity), ThinkingDone("Let me think.", fidelity)]
    assert outcome.message.items == (ThinkingDone("Let me think.", fidelity), TextDone("Hi"))


def test_redacted_reasoning_follows_anthropics_convention() -> None:
    _, outcome = run(simple(reasoning(0, redactedContent="YWJj"), stop(0), text(1, "ok"), stop(1)))
    assert outcome.message.items == (ThinkingDone(REDACTED_THINKING, {"signature": "YWJj"}), TextDone("ok"))


def test_citations_ride_on_the_text_item_as_fidelity() -> None:
    cited = {"title": "Doc", "sourceContent": [{"text": "Paris"}], "location": {"documentChar": {"documentIndex": 0, "start": 0, "end": 5}}}
    body = simple(text(0, "Paris."), event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"citation": cited}}), stop(0))
    _, outcome = run(body)
    assert outcome.message.items == (TextDone("Paris.", {"citations": [cited]}),)


def test_an_empty_text_delta_opens_nothing() -> None:
    body = simple(text(0, ""), stop(0), reasoning(1, text="hm"), stop(1), text(2, "Hello!"), stop(2))
    events, outcome = run(body)
    assert outcome.message.items == (ThinkingDone("hm"), TextDone("Hello!"))
    assert len(items(events)) == 4


def test_a_tool_use_streams_its_input_and_the_first_delta_carries_name_and_id() -> None:
    body = simple(text(0, "Checking."), stop(0), tool_start(1, "get_weather", "tooluse_abc"), tool_input(1, '{"city":'), tool_input(1, ' "Tokyo"}'), stop(1), reason="tool_use")
    events, outcome = every_split(body)
    assert items(events)[2:5] == [ToolCallDelta("get_weather", "", "tooluse_abc"), ToolCallDelta("", '{"city":', ""), ToolCallDelta("", ' "Tokyo"}', "")]
    assert calls_of(outcome) == [("get_weather", "tooluse_abc", {"city": "Tokyo"})]
    assert outcome.finish_reason == "tool_call"


@pytest.mark.parametrize("fragments", [[], [""]], ids=["no deltas", "one empty input"])
def test_a_tool_without_arguments_has_an_empty_object(fragments: list[str]) -> None:
    body = simple(tool_start(0, "now", "t1"), *(tool_input(0, f) for f in fragments), stop(0), reason="tool_use")
    assert calls_of(run(body)[1]) == [("now", "t1", {})]


def test_a_server_tool_and_its_result_are_side_events_never_tool_calls() -> None:
    result = event("contentBlockStart", {"contentBlockIndex": 1, "start": {"toolResult": {"status": "success", "toolUseId": "tooluse_V", "type": "nova_code_interpreter_result"}}})
    output = event("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"toolResult": [{"json": {"stdOut": "7006652", "exitCode": 0}}]}})
    body = simple(tool_start(0, "nova_code_interpreter", "tooluse_V", "server_tool_use"), tool_input(0, '{"snippet":"1234 * 5678"}'), stop(0), result, output, stop(1), text(2, "7006652"), stop(2))
    events, outcome = run(body, side_events=True)
    assert outcome.message.items == (TextDone("7006652"),)
    assert [(e.kind, e.phase, e.item_id) for e in events if isinstance(e, unievent.SideEvent)] == [
        ("server_tool_use", "start", "tooluse_V"),
        ("server_tool_use", "delta", "tooluse_V"),
        ("server_tool_use", "done", "tooluse_V"),
        ("nova_code_interpreter_result", "start", "tooluse_V"),
        ("nova_code_interpreter_result", "delta", "tooluse_V"),
        ("nova_code_interpreter_result", "done", "tooluse_V"),
    ]
    done = [e.data for e in outcome.side_events if e.phase == "done"]
    assert done[0]["input"] == {"snippet": "1234 * 5678"}
    assert done[1]["toolResult"] == [{"json": {"stdOut": "7006652", "exitCode": 0}}]
    assert outcome.side_events[0].data == {"name": "nova_code_interpreter", "toolUseId": "tooluse_V", "type": "server_tool_use"}


def test_a_tool_use_without_a_name_or_a_start_is_kept_aside() -> None:
    nameless = event("contentBlockStart", {"contentBlockIndex": 0, "start": {"toolUse": {"toolUseId": "t"}}})
    body = simple(nameless, tool_input(0, "{}"), stop(0), tool_input(1, '{"a": 1}'), stop(1), reason="tool_use")
    _, outcome = run(body)
    assert calls_of(outcome) == []
    assert [e.data.get("input") for e in outcome.side_events if e.phase == "done"] == [{}, {"a": 1}]
    assert kinds(outcome) == {"unnamed_tool_call": 2}


def test_side_input_that_is_not_json_is_kept_as_text() -> None:
    body = simple(tool_start(0, "web", "s1", "server_tool_use"), tool_input(0, "{oops"), stop(0))
    _, outcome = run(body)
    assert outcome.side_events[-1].data["partial_input"] == "{oops"
    assert kinds(outcome) == {"side_input_not_json": 1}


def test_an_image_block_is_inline_data() -> None:
    png = b"\x89PNG\r\n\x1a\n\x00"
    start = event("contentBlockStart", {"contentBlockIndex": 0, "start": {"image": {"format": "png"}}})
    delta = event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"image": {"source": {"bytes": base64.b64encode(png).decode()}}}})
    bad = event("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"image": {"source": {"s3Location": {"uri": "s3://b/k"}}}}})
    _, outcome = run(simple(start, delta, bad, stop(0)))
    assert outcome.message.items == (InlineDataDone(png, "image/png"),)
    assert kinds(outcome) == {"image_not_base64": 1}
    unformatted = event("contentBlockStart", {"contentBlockIndex": 0, "start": {"image": {}}})
    _, plain = run(simple(unformatted, delta, stop(0)))
    assert plain.message.items == (InlineDataDone(png, "application/octet-stream"),)


def test_an_empty_start_is_a_block_of_what_its_deltas_are() -> None:
    _, outcome = run(simple(event("contentBlockStart", {"contentBlockIndex": 0, "start": {}}), text(0, "a"), stop(0)))
    assert outcome.message.items == (TextDone("a"),)


def test_a_delta_of_another_kind_is_kept_on_the_side_channel() -> None:
    body = simple(tool_start(0, "f", "t"), text(0, "x"), stop(0), text(1, "y"), tool_input(1, "{}"), stop(1), event("contentBlockDelta", {"contentBlockIndex": 2, "delta": {"future": 1}}), stop(2), reason="tool_use")
    _, outcome = run(body)
    assert [e.kind for e in outcome.side_events] == ["text", "toolUse", "future"]
    assert kinds(outcome) == {"foreign_delta": 3}


def test_two_text_blocks_stay_two_items() -> None:
    _, outcome = run(simple(text(0, "a"), stop(0), text(1, "b"), stop(1)))
    assert outcome.message.items == (TextDone("a"), TextDone("b"))


# --- the end ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("native", "mapped"),
    [
        ("end_turn", "stop"),
        ("stop_sequence", "stop"),
        ("tool_use", "tool_call"),
        ("max_tokens", "length"),
        ("guardrail_intervened", "unknown"),
        ("content_filtered", "unknown"),
        ("malformed_model_output", "unknown"),
        ("model_context_window_exceeded", "unknown"),
        ("something_new", "unknown"),
    ],
)
def test_stop_reason_mapping_keeps_the_native_value(native: str, mapped: str) -> None:
    _, outcome = run(simple(text(0, "x"), stop(0), reason=native))
    assert (outcome.end, outcome.finish_reason, outcome.native_finish_reason) == ("complete", mapped, native)
    assert normalize_bedrock_finish(native) == mapped


def test_the_stop_waits_for_metadata_and_the_extras_keep_the_rest() -> None:
    trace = {"guardrail": {"actionReason": "none"}}
    fields = {"delta": {"stop_sequence": None}}
    meta = event("metadata", {"metrics": {"latencyMs": 9}, "usage": {"inputTokens": 1, "outputTokens": 2, "totalTokens": 3}, "trace": trace, "serviceTier": {"type": "flex"}, "performanceConfig": {"latency": "standard"}})
    decoder = RuntimeStreamDecoder("bedrock_converse", clock=lambda: 0)
    before = decoder.push(MESSAGE_START + text(0, "x") + stop(0) + event("messageStop", {"stopReason": "end_turn", "additionalModelResponseFields": fields}))
    assert not any(isinstance(e, StopEvent) for e in before)  # no usage yet: no stop event
    decoder.push(meta)
    last, outcome = decoder.finish()
    assert last == [StopEvent(Usage(None, 1, None, 2), "stop", 0)]
    assert outcome.extras == {
        "additional_model_response_fields": fields,
        "metrics": {"latencyMs": 9},
        "trace": trace,
        "service_tier": {"type": "flex"},
        "performance_config": {"latency": "standard"},
    }


def test_a_body_ending_after_message_stop_without_metadata_is_complete_without_usage() -> None:
    _, outcome = run(MESSAGE_START + text(0, "x") + stop(0) + message_stop())
    assert (outcome.end, outcome.usage, outcome.finish_reason) == ("complete", Usage(), "stop")
    assert kinds(outcome) == {"no_metadata": 1}


def test_metadata_before_message_stop_is_taken_too() -> None:
    _, outcome = run(MESSAGE_START + text(0, "x") + stop(0) + metadata(3, 4) + message_stop())
    assert (outcome.end, outcome.usage, outcome.anomalies) == ("complete", Usage(None, 3, None, 4), ())
    _, open_block = run(MESSAGE_START + text(0, "x") + metadata(3, 4) + message_stop())
    assert (open_block.end, open_block.message.items, kinds(open_block)) == ("complete", (TextDone("x"),), {"block_left_open": 1})


def test_no_message_stop_is_truncated_keeping_the_text() -> None:
    _, outcome = run(MESSAGE_START + text(0, "Hel") + text(0, "lo"))
    assert (outcome.end, outcome.message.items, outcome.finish_reason) == ("truncated", (TextDone("Hello"),), None)
    _, metered = run(MESSAGE_START + text(0, "x") + stop(0) + metadata())
    assert metered.end == "truncated"


def test_a_cut_tool_use_is_truncated_and_not_offered() -> None:
    _, outcome = run(MESSAGE_START + text(0, "a") + stop(0) + tool_start(1, "f", "t") + tool_input(1, '{"q":'))
    assert outcome.end == "truncated" and outcome.message.items == (TextDone("a"),)


def test_a_reasoning_block_cut_after_its_signature_keeps_it() -> None:
    _, outcome = run(MESSAGE_START + reasoning(0, text="hm") + reasoning(0, signature="c2ln"))
    assert outcome.end == "truncated" and outcome.message.items == (ThinkingDone("hm", {"signature": "c2ln"}),)


def test_nothing_is_read_after_metadata() -> None:
    _, outcome = run(HELLO + text(1, "late"))
    assert outcome.message.items == (TextDone("Hello, wörld"),)
    assert kinds(outcome) == {"frames_after_end": 1}


EXCEPTIONS = [
    "internalServerException",
    "modelStreamErrorException",
    "validationException",
    "throttlingException",
    "serviceUnavailableException",
]


@pytest.mark.parametrize("kind", EXCEPTIONS)
def test_each_exception_fails_the_stream_with_its_type_and_message_keeping_the_text(kind: str) -> None:
    body = MESSAGE_START + text(0, "partial") + exception(kind, "Too many requests, please wait before trying again.")
    _, outcome = every_split(body)
    assert outcome.end == "failed" and outcome.message.items == (TextDone("partial"),)
    assert outcome.error == unievent.ProviderError(
        "Too many requests, please wait before trying again.", kind, None, {"message": "Too many requests, please wait before trying again."}
    )


def test_a_model_stream_error_keeps_the_original_status_as_its_code() -> None:
    _, outcome = run(MESSAGE_START + exception("modelStreamErrorException", "upstream failed", originalStatusCode=529, originalMessage="Overloaded"))
    assert outcome.error is not None and (outcome.error.type, outcome.error.code, outcome.error.raw["originalMessage"]) == ("modelStreamErrorException", 529, "Overloaded")


def test_an_error_message_type_fails_with_its_code_and_message() -> None:
    frame = encode_frame([(":message-type", "error"), (":error-code", "InternalFailure"), (":error-message", "We encountered an internal error.")], b"")
    _, outcome = run(MESSAGE_START + frame)
    assert outcome.error == unievent.ProviderError("We encountered an internal error.", "InternalFailure", None, {"message": "We encountered an internal error."})


def test_an_exception_without_a_message_names_its_type() -> None:
    frame = encode_frame([(":message-type", "exception"), (":exception-type", "throttlingException")], b"{}")
    _, outcome = run(frame)
    assert outcome.error is not None and outcome.error.message == "throttlingException (no message)"


# --- lenient lifecycle --------------------------------------------------------------------


def test_no_message_start_is_implied_by_the_first_frame() -> None:
    for body in (text(0, "a") + stop(0) + message_stop(), tool_start(0, "f", "t") + stop(0) + message_stop("tool_use"), message_stop()):
        _, outcome = run(body + metadata())
        assert outcome.end == "complete" and kinds(outcome) == {"implied_message_start": 1}


def test_a_block_left_open_is_closed_by_the_next_block_or_the_stop() -> None:
    body = simple(text(0, "a"), tool_start(1, "f", "t"), text(2, "b"), tool_start(3, "g", "u"), tool_input(3, "{}"), reason="tool_use")
    _, outcome = run(body)
    assert outcome.message.items == (TextDone("a"), ToolCallDone("f", {}, "t"), TextDone("b"), ToolCallDone("g", {}, "u"))
    assert kinds(outcome) == {"block_left_open": 4}


def test_a_stop_for_no_open_block_changes_nothing() -> None:
    body = stop(0) + MESSAGE_START + stop(0) + text(0, "a") + stop(5) + stop(0) + message_stop() + metadata()
    _, outcome = run(body)
    assert (outcome.end, outcome.message.items, kinds(outcome)) == ("complete", (TextDone("a"),), {"stray_block_stop": 3})


def test_a_delta_without_an_index_belongs_to_the_open_block_or_opens_one() -> None:
    no_index = event("contentBlockDelta", {"delta": {"text": "b"}})
    _, outcome = run(simple(text(0, "a"), no_index, stop(0), no_index, stop(1)))
    assert outcome.message.items == (TextDone("ab"), TextDone("b"))


@pytest.mark.parametrize(
    ("body", "error_in"),
    [
        (simple(text(0, "a"), stop(0), text(0, "late")), ["contentBlockDelta for block 0, which already stopped", "'message'"]),
        (MESSAGE_START + text(0, "a") + stop(0) + message_stop() + text(1, "late"), ["contentBlockDelta after messageStop", "'stopped'"]),
        (MESSAGE_START + metadata() + text(0, "late"), ["contentBlockDelta after metadata", "'metered'"]),
        (MESSAGE_START + MESSAGE_START, ["messageStart (message_start) in state 'message'"]),
    ],
    ids=["stale delta", "a block after the stop", "a block after metadata", "a second messageStart"],
)
def test_contradictions_fail_naming_state_and_event(body: bytes, error_in: list[str]) -> None:
    _, outcome = run(body)
    assert outcome.end == "failed" and outcome.error is not None and outcome.error.type == "protocol_error"
    for part in error_in:
        assert part in outcome.error.message


# An event that names a block that already stopped and changes nothing done (a delta of a
# kind nobody knows yet, an empty one) is late, not a contradiction: a side event of that
# block and one `late_event` anomaly, wherever it comes.
PROGRESS = {"contentBlockIndex": 0, "delta": {"searchProgress": {"status": "done"}}}  # a kind not known yet


@pytest.mark.parametrize("late", [PROGRESS, {"contentBlockIndex": 0, "delta": {"text": ""}}], ids=["new kind", "empty text"])
@pytest.mark.parametrize(
    "frames",
    [
        [MESSAGE_START, text(0, "a"), stop(0), "late", text(1, "b"), stop(1), message_stop(), metadata()],
        [MESSAGE_START, text(0, "a"), stop(0), text(1, "b"), "late", stop(1), message_stop(), metadata()],
        [MESSAGE_START, text(0, "a"), stop(0), text(1, "b"), stop(1), message_stop(), "late", metadata()],
        [MESSAGE_START, text(0, "a"), stop(0), text(1, "b"), stop(1), metadata(), "late", message_stop()],
    ],
    ids=["between blocks", "in the next block", "after the stop", "after metadata"],
)
def test_an_earlier_blocks_event_that_changes_nothing_done_is_late_not_a_contradiction(
    frames: list[Any], late: dict[str, Any]
) -> None:
    body = b"".join(event("contentBlockDelta", late, pad=0) if f == "late" else f for f in frames)
    events, outcome = every_split(body, side_events=True)
    assert outcome.end == "complete" and outcome.finish_reason == "stop"
    assert [i.text for i in outcome.message.items if isinstance(i, unievent.TextDone)] == ["a", "b"]
    assert kinds(outcome) == {"late_event": 1}
    assert [e.data for e in events if isinstance(e, unievent.SideEvent)] == [late]
    assert run(body, side_events=True) == on_the_slow_path(body, side_events=True)


def on_the_slow_path(body: bytes, **options: Any) -> tuple[list[Any], Outcome]:
    decoder = decoder_on_path("bedrock_converse", True, stream_id="s", clock=lambda: 0, **options)
    events = decoder.push(body)
    last, outcome = decoder.finish()
    return events + last, outcome


@pytest.mark.parametrize(
    "before",
    [b"", MESSAGE_START, MESSAGE_START + text(0, "a"), MESSAGE_START + metadata(), MESSAGE_START + message_stop()],
    ids=["waiting", "message", "block", "metered", "stopped"],
)
def test_unknown_events_and_exceptions_in_every_state_before_the_end(before: bytes) -> None:
    _, outcome = run(before + event("futureEvent", {"n": 1}))
    assert [e.kind for e in outcome.side_events] == ["futureEvent"] and kinds(outcome).get("unknown_frame") == 1
    _, failed = run(before + exception("throttlingException", "slow down"))
    assert failed.end == "failed" and failed.error is not None and failed.error.type == "throttlingException"


def test_a_done_line_or_an_unnamed_frame_changes_nothing() -> None:
    unnamed = encode_frame([(":message-type", "event")], b'{"x": 1}')
    done = encode_frame([(":event-type", "chunk")], b"[DONE]")
    _, outcome = run(MESSAGE_START + unnamed + done + text(0, "a") + stop(0) + message_stop() + metadata())
    assert outcome.end == "complete" and [e.kind for e in outcome.side_events] == ["unknown"]


# --- finding the protocol -----------------------------------------------------------------


@pytest.mark.parametrize(
    "options",
    [
        {"url": "https://bedrock-runtime.us-east-1.amazonaws.com/model/us.amazon.nova-micro-v1%3A0/converse-stream"},
        {"content_type": "application/vnd.amazon.eventstream"},
        {},
    ],
    ids=["url", "content type", "first frame"],
)
def test_auto_decodes_converse_as_converse(options: dict[str, Any]) -> None:
    explicit = run(HELLO)
    events, outcome = run([HELLO[i : i + 13] for i in range(0, len(HELLO), 13)], "auto", **options)
    assert outcome.protocol == "bedrock_converse" and outcome.detected_by
    assert (events, outcome.message, outcome.usage, outcome.extras) == (explicit[0], explicit[1].message, explicit[1].usage, explicit[1].extras)


def test_converse_frames_given_to_an_sse_protocol_are_no_event_stream() -> None:
    for protocol in ("openai_chat", "anthropic", "cohere", "ollama"):
        assert run(HELLO, protocol)[1].end == "not_event_stream", protocol


# --- properties ---------------------------------------------------------------------------

_STREAMS = [
    HELLO,
    simple(reasoning(0, text="hé"), reasoning(0, signature="c2ln"), stop(0), tool_start(1, "f", "t"), tool_input(1, '{"a": "😀"}'), stop(1), reason="tool_use"),
    MESSAGE_START + text(0, "ab") + exception("throttlingException", "slow"),
    HELLO[:-9],
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
    return [e for e in entries if e.get("protocol") == "bedrock"]


def frames_of(data: bytes) -> list[tuple[dict[str, str], bytes]]:
    """Every frame's string headers and payload, read by the layout alone (a reference
    reader independent of the framer: no CRC checks)."""
    out, pos = [], 0
    while pos < len(data):
        total, headers_length = struct.unpack_from(">II", data, pos)
        headers, i, end = {}, pos + 12, pos + 12 + headers_length
        while i < end:
            n = data[i]
            name = data[i + 1 : i + 1 + n].decode()
            (size,) = struct.unpack_from(">H", data, i + 2 + n)
            headers[name] = data[i + 4 + n : i + 4 + n + size].decode()
            i += 4 + n + size
        out.append((headers, data[end : pos + total - 4]))
        pos += total
    return out


def _server_tools(data: bytes) -> set[str]:
    """The names of the tools the provider ran itself (toolUse of type server_tool_use)."""
    starts = [json.loads(p) for h, p in frames_of(data) if h[":event-type"] == "contentBlockStart"]
    tools = [s["start"]["toolUse"] for s in starts if "toolUse" in s["start"]]
    return {t["name"] for t in tools if t.get("type") == "server_tool_use"}


@pytest.mark.skipif(not CORPUS.exists(), reason="../shared/corpus is not here")
@pytest.mark.parametrize("entry", _corpus_entries(), ids=lambda e: Path(e["file"]).stem)
def test_recorded_stream(entry: dict[str, Any]) -> None:
    data = (CORPUS / entry["file"]).read_bytes()
    expected = entry["expected"]
    events, outcome = run(data)
    assert run(split_at(data, list(range(1, len(data), 37)))) == (events, outcome)
    assert outcome.end == "complete"
    got = outcome.message.items
    assert "".join(i.text for i in got if isinstance(i, TextDone)) == expected.get("text", "")
    assert "".join(i.thinking for i in got if isinstance(i, ThinkingDone)) == expected.get("thinking", "")
    # the manifest lists every toolUse; one the provider ran (type server_tool_use) is
    # never a client call, but a side event with the same input
    server = _server_tools(data)
    wanted = [(c["name"], json.loads(c["arguments"])) for c in expected.get("tool_calls") or []]
    assert [(name, arguments) for name, _, arguments in calls_of(outcome)] == [c for c in wanted if c[0] not in server]
    ran = [(e.data["name"], e.data["input"]) for e in outcome.side_events if e.phase == "done" and e.kind == "server_tool_use"]
    assert ran == [c for c in wanted if c[0] in server]
    assert outcome.native_finish_reason == expected["finish_reason"]
    assert outcome.finish_reason == normalize_bedrock_finish(expected["finish_reason"])
    used = expected["usage"]
    assert outcome.usage == Usage(
        used.get("cacheReadInputTokens"), used["inputTokens"] + used.get("cacheWriteInputTokens", 0), None, used["outputTokens"]
    )
    if "reasoning_signature" in entry["features"]:
        [thinking] = [i for i in got if isinstance(i, ThinkingDone)]
        assert thinking.fidelity is not None and thinking.fidelity["signature"].startswith("Eu0CCkgIBxAB")
    assert outcome.anomalies == ()
    if entry.get("recorded_request_uri"):
        auto = run(data, "auto", url=entry["recorded_request_uri"])[1]
        assert auto.detected_by == "the URL path has /converse-stream"
    auto_events, by_frame = run(data, "auto")
    assert (by_frame.protocol, auto_events, by_frame.message) == ("bedrock_converse", events, outcome.message)


def test_the_hot_deltas_take_the_on_demand_path_and_decode_as_the_full_path_does(monkeypatch: pytest.MonkeyPatch) -> None:
    unpadded = encode_frame([(":event-type", "contentBlockDelta"), (":message-type", "event")], b'{"contentBlockIndex":1,"delta":{"text":"!"}}')
    odd_pad = encode_frame([(":event-type", "contentBlockDelta"), (":message-type", "event")], b'{"contentBlockIndex":1,"delta":{"text":"?"},"p":"a-b"}')
    body = simple(reasoning(0, text="hm"), reasoning(0, text="é"), reasoning(0, signature="c2ln"), stop(0), text(1, 'say "hi"'), text(1, "\\"), text(1, ""), unpadded, odd_pad, stop(1))
    decoder = RuntimeStreamDecoder("bedrock_converse", stream_id="s", clock=lambda: 0)
    fast = decoder.push(body) + decoder.finish()[0]
    # the text and reasoning-text deltas but the first of each block (which opens it) and
    # the one whose padding is not letters and digits
    assert decoder.fast_frames == 4
    monkeypatch.setenv("UNIEVENT_SLOW_PATH", "1")
    assert run(body)[0] == fast
    assert run(body)[1].message.items == (ThinkingDone("hmé", {"signature": "c2ln"}), TextDone('say "hi"\\!?'))
