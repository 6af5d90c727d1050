"""Amazon Bedrock InvokeModelWithResponseStream decoded by StreamDecoder("bedrock_invoke").

Streams are written as Bedrock sends them: AWS event-stream `chunk` frames (CRCs
computed) whose payload is `{"bytes": "<base64>", "p": ...}`, the bytes one event of the
model's own stream as JSON (for Claude, the Anthropic Messages events without SSE
framing; the last one with `amazon-bedrock-invocationMetrics`).  A stream of a model
family's events decodes as that family's own stream does.
"""

from __future__ import annotations

import base64
from typing import Any

import orjson
import pytest

import unievent
from tests import test_anthropic as anthropic
from tests.helpers import chunk, sse
from tests.test_bedrock_converse import PADDING, every_split, exception, kinds, run
from unievent import TextDone, ThinkingDone, Usage
from unievent._framing.aws_eventstream import encode_frame

METRICS = {"inputTokenCount": 12, "outputTokenCount": 77, "invocationLatency": 1798, "firstByteLatency": 1507}


def chunk_frame(inner: dict[str, Any] | str | bytes, pad: int = 18) -> bytes:
    data = inner if isinstance(inner, bytes) else orjson.dumps(inner)
    payload = {"bytes": base64.b64encode(data).decode(), "p": PADDING[:pad]}
    headers = [(":event-type", "chunk"), (":content-type", "application/json"), (":message-type", "event")]
    return encode_frame(headers, orjson.dumps(payload))


def invoke(*inner: dict[str, Any] | str | bytes) -> bytes:
    return b"".join(chunk_frame(o) for o in inner)


def with_metrics(events: list[dict[str, Any]], metrics: dict[str, Any] = METRICS) -> list[dict[str, Any]]:
    return [*events[:-1], {**events[-1], "amazon-bedrock-invocationMetrics": metrics}]


CLAUDE = with_metrics(anthropic.RICH)


def test_claude_events_decode_as_the_same_anthropic_stream_does_in_any_split() -> None:
    events, outcome = every_split(invoke(*CLAUDE[:12], *CLAUDE[18:]), "bedrock_invoke")
    expected_events, expected = run(anthropic.wire(*CLAUDE[:12], *CLAUDE[18:]), "anthropic")
    assert events == expected_events
    assert (outcome.message, outcome.usage, outcome.finish_reason, outcome.native_finish_reason, outcome.model) == (
        expected.message, expected.usage, expected.finish_reason, expected.native_finish_reason, expected.model
    )
    assert outcome.extras == {"invocation_metrics": METRICS}
    assert outcome.end_state == "delegated (anthropic: complete)"


def test_claude_server_tools_stay_side_events() -> None:
    events, outcome = run(invoke(*CLAUDE), "bedrock_invoke", side_events=True)
    expected_events, expected = run(anthropic.wire(*CLAUDE), "anthropic", side_events=True)
    assert [getattr(e, "item", None) for e in events] == [getattr(e, "item", None) for e in expected_events]
    assert [(e.kind, e.phase, e.data) for e in outcome.side_events] == [(e.kind, e.phase, e.data) for e in expected.side_events]
    assert {e.protocol for e in outcome.side_events} == {"bedrock_invoke"}


def test_the_invocation_metrics_are_the_usage_when_the_model_gave_none() -> None:
    bare = [anthropic.start(0, anthropic.TEXT), anthropic.text_delta(0, "Hi"), anthropic.stop(0), {"type": "message_delta", "delta": {"stop_reason": "end_turn"}}]
    metrics = {**METRICS, "cacheReadInputTokenCount": 5, "cacheWriteInputTokenCount": 2}
    _, outcome = run(invoke(*with_metrics([*bare, anthropic.MESSAGE_STOP], metrics)), "bedrock_invoke")
    assert outcome.usage == Usage(cached_tokens=5, prompt_tokens=14, thoughts_tokens=None, response_tokens=77)
    _, own = run(invoke(*with_metrics(anthropic.RICH)), "bedrock_invoke")
    assert own.usage == run(anthropic.wire(*anthropic.RICH), "anthropic")[1].usage  # the model's own counts win


def test_openai_chunks_decode_as_the_same_chat_stream_does() -> None:
    chunks = [chunk({"role": "assistant", "reasoning_content": "hm"}), chunk({"content": "Hi"}), chunk({}, "stop", usage={"prompt_tokens": 5, "completion_tokens": 2})]
    last: dict[str, Any] = {**chunks[-1], "amazon-bedrock-invocationMetrics": METRICS}
    events, outcome = run(invoke(*chunks[:-1], last, "[DONE]"), "bedrock_invoke")
    expected_events, expected = run(sse(*chunks), "openai_chat")
    assert (events, outcome.message, outcome.usage, outcome.finish_reason) == (expected_events, expected.message, expected.usage, expected.finish_reason)
    assert outcome.message.items == (ThinkingDone("hm", {"reasoning_field": "reasoning_content"}), TextDone("Hi"))


def test_nova_events_decode_as_the_same_converse_stream_does() -> None:
    from tests import test_bedrock_converse as converse

    nova: list[dict[str, Any]] = [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockDelta": {"delta": {"text": "Paris"}, "contentBlockIndex": 0}},
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {"messageStop": {"stopReason": "end_turn"}},
        {"metadata": {"usage": {"inputTokens": 13, "outputTokens": 82}, "metrics": {"latencyMs": 522}}},
    ]
    events, outcome = run(invoke(*nova), "bedrock_invoke")
    expected_events, expected = run(converse.simple(converse.text(0, "Paris"), converse.stop(0)), "bedrock_converse")
    assert (events, outcome.message, outcome.usage, outcome.finish_reason) == (expected_events, expected.message, expected.usage, expected.finish_reason)


def test_novas_last_chunk_holds_its_metadata_beside_the_invocation_metrics() -> None:
    nova: list[dict[str, Any]] = [
        {"messageStart": {"role": "assistant"}},
        {"contentBlockDelta": {"delta": {"text": "Paris"}, "contentBlockIndex": 0}},
        {"contentBlockStop": {"contentBlockIndex": 0}},
        {"messageStop": {"stopReason": "end_turn"}},
        {"metadata": {"usage": {"inputTokens": 13, "outputTokens": 82}, "metrics": {}, "trace": {}}},
    ]
    _events, outcome = every_split(invoke(*with_metrics(nova)), "bedrock_invoke")
    assert outcome.end == "complete" and outcome.finish_reason == "stop"
    assert outcome.usage == Usage(cached_tokens=None, prompt_tokens=13, thoughts_tokens=None, response_tokens=82)
    assert kinds(outcome) == {}  # the family is known, and its metadata arrived
    assert outcome.extras["invocation_metrics"] == METRICS


def test_a_model_family_not_decoded_is_kept_aside_and_the_stream_is_truncated() -> None:
    titan = [{"outputText": "Hi", "index": 0, "completionReason": None}, {"outputText": "!", "index": 0, "completionReason": "FINISH"}]
    _, outcome = run(invoke(*titan), "bedrock_invoke")
    assert (outcome.end, outcome.message.items) == ("truncated", ())
    assert [e.data for e in outcome.side_events] == titan
    assert kinds(outcome) == {"unknown_model_family": 2}
    _, mixed = run(invoke(chunk({"content": "a"}), anthropic.text_delta(0, "b")), "bedrock_invoke")
    assert [e.data for e in mixed.side_events] == [anthropic.text_delta(0, "b")]  # the family is the first one's


def test_chunks_that_are_no_json_object_are_skipped_and_noted() -> None:
    no_bytes = encode_frame([(":event-type", "chunk")], b'{"p": "abc"}')
    not_base64 = encode_frame([(":event-type", "chunk")], b'{"bytes": "***"}')
    body = invoke(*anthropic.RICH[:1]) + no_bytes + not_base64 + invoke(b"not json", b"[1, 2]", *anthropic.RICH[1:])
    _, outcome = run(body, "bedrock_invoke")
    assert outcome.end == "complete" and kinds(outcome) == {"bad_chunk": 4}
    _, first = run(not_base64 + invoke(*anthropic.RICH), "bedrock_invoke")
    assert first.end == "complete" and kinds(first) == {"bad_chunk": 1}


@pytest.mark.parametrize("kind", ["internalServerException", "modelStreamErrorException", "validationException", "throttlingException", "modelTimeoutException", "serviceUnavailableException"])
def test_each_exception_fails_the_stream_keeping_the_text(kind: str) -> None:
    body = invoke(anthropic.message_start(), anthropic.start(0, anthropic.TEXT), anthropic.text_delta(0, "partial")) + exception(kind, "stop")
    _, outcome = run(body, "bedrock_invoke")
    assert (outcome.end, outcome.message.items) == ("failed", (TextDone("partial"),))
    assert outcome.error is not None and (outcome.error.type, outcome.error.message) == (kind, "stop")


def test_an_exception_before_any_chunk_fails_too_and_an_empty_body_is_truncated() -> None:
    assert run(exception("validationException", "bad input"), "bedrock_invoke")[1].end == "failed"
    assert run(b"", "bedrock_invoke")[1].end == "truncated"


def test_the_models_own_error_event_fails_the_stream_and_nothing_after_is_read() -> None:
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    _, outcome = run(invoke(anthropic.message_start(), error, anthropic.start(0, anthropic.TEXT)), "bedrock_invoke")
    assert outcome.end == "failed" and outcome.error is not None and outcome.error.type == "overloaded_error"
    assert kinds(outcome) == {"frames_after_end": 1}


def test_an_unknown_event_is_kept_and_noted() -> None:
    other = encode_frame([(":event-type", "futureEvent"), (":message-type", "event")], b'{"n": 1}')
    _, outcome = run(other + invoke(*anthropic.RICH) + b"", "bedrock_invoke")
    assert outcome.end == "complete" and [e.kind for e in outcome.side_events][:1] == ["futureEvent"]
    assert kinds(outcome) == {"unknown_frame": 1}
    _, late = run(invoke(*anthropic.RICH[:3]) + other, "bedrock_invoke")
    assert late.end == "truncated"


@pytest.mark.parametrize(
    "options",
    [{"url": "https://bedrock-runtime.us-east-1.amazonaws.com/model/anthropic.claude-sonnet-4-5/invoke-with-response-stream"}, {"content_type": "application/vnd.amazon.eventstream"}, {}],
    ids=["url", "content type", "first frame"],
)
def test_auto_decodes_invoke_as_invoke(options: dict[str, Any]) -> None:
    body = invoke(*CLAUDE)
    explicit = run(body, "bedrock_invoke")
    events, outcome = run([body[i : i + 11] for i in range(0, len(body), 11)], "auto", **options)
    assert outcome.protocol == "bedrock_invoke" and outcome.detected_by
    assert (events, outcome.message, outcome.usage) == (explicit[0], explicit[1].message, explicit[1].usage)


def test_invoke_frames_given_as_converse_are_named() -> None:
    _, outcome = run(invoke(*CLAUDE), "bedrock_converse")
    assert outcome.error is not None and outcome.error.message == "bedrock_converse: the frames look like bedrock_invoke, not bedrock_converse"
    assert unievent.StreamDecoder("bedrock_invoke").protocol == "bedrock_invoke"
