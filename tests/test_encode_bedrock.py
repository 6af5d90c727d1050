"""The Bedrock writers, proven by decoding what they write and by AWS's own readers.

`bedrock_converse` and `bedrock_invoke` write AWS event-stream frames: decoding them
gives the events' items back (fidelity and all), their finish reason and usage, with no
anomaly, in any split; every other protocol's stream transcodes to them with the same
content, Claude's signatures kept; a failure is an exception frame.  botocore's
`EventStreamBuffer` reads every frame (both CRCs), the ConverseStream events validate
against bedrock-runtime's service model, and boto3's `converse_stream` /
`invoke_model_with_response_stream` read them from a local server (skipped without
botocore or boto3).
"""

from __future__ import annotations

import asyncio
import base64
import json
import random
import struct
import subprocess
import sys
import threading
import zlib
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any, ClassVar

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import unievent
from tests.helpers import decode_stream, split_at, split_everywhere
from tests.test_encode import CORPUS, content, streams
from tests.test_encode_sdks import EVENTS
from unievent import (
    DeltaEvent,
    Event,
    InlineDataDelta,
    InlineDataDone,
    Outcome,
    ProviderError,
    StopEvent,
    TextDelta,
    TextDone,
    ThinkingDelta,
    ThinkingDone,
    Usage,
)
from unievent._decoder import StreamDecoder as RuntimeStreamDecoder  # takes any protocol name
from unievent._events import FINISH_REASONS
from unievent._protocols.anthropic import REDACTED_THINKING
from unievent._writers import WRITERS
from unievent._writers.base import EncodeOptions
from unievent._writers.bedrock_converse import BedrockConverseWriter

TARGETS = ("bedrock_converse", "bedrock_invoke")
#: the wires of a model's answer that every stream can be written as
SOURCES = sorted(p for p in WRITERS if p != "openai_embeddings")
#: the wires whose signatures are Claude's (valid on each of them)
CLAUDE_WIRES = ("anthropic", "bedrock_converse", "bedrock_invoke")
EVENT_STREAM = "application/vnd.amazon.eventstream"
MODEL = "claude-sonnet-4"
STOP = next(e for e in EVENTS if isinstance(e, StopEvent))


def written_usage(target: str, usage: Usage) -> Usage:
    """The usage a Bedrock wire gives back: Converse counts reasoning in outputTokens;
    Claude's message_start on InvokeModel carries zero counts, as Anthropic's does."""
    if target == "bedrock_converse":
        if usage.thoughts_tokens is None:
            return usage
        response = usage.response_tokens + usage.thoughts_tokens if usage.response_tokens is not None else None
        return attrs.evolve(usage, response_tokens=response, thoughts_tokens=None)
    return attrs.evolve(usage, prompt_tokens=usage.prompt_tokens or 0, response_tokens=usage.response_tokens or 0)


def done_items(events: list[Any]) -> list[Any]:
    return [e.item for e in events if isinstance(e, DeltaEvent) and e.item.type.endswith(".done")]


def signatures(outcome: Outcome) -> list[Any]:
    return [(i.fidelity or {}).get("signature") for i in outcome.message.items if isinstance(i, ThinkingDone)]


def frames(body: bytes) -> list[tuple[dict[str, str], bytes]]:
    """Each frame's string headers and payload, both CRCs checked (read here by the
    layout alone; botocore's reader is the test below)."""
    found: list[tuple[dict[str, str], bytes]] = []
    at = 0
    while at < len(body):
        total, size, crc = struct.unpack_from(">III", body, at)
        assert zlib.crc32(body[at : at + 8]) == crc, "prelude CRC"
        assert zlib.crc32(body[at : at + total - 4]) == struct.unpack_from(">I", body, at + total - 4)[0], "message CRC"
        headers: dict[str, str] = {}
        i, end = at + 12, at + 12 + size
        while i < end:
            name = body[i + 1 : i + 1 + body[i]].decode()
            i += 1 + body[i]
            assert body[i] == 7, "a string header"
            (length,) = struct.unpack_from(">H", body, i + 1)
            headers[name] = body[i + 3 : i + 3 + length].decode()
            i += 3 + length
        found.append((headers, body[end : at + total - 4]))
        at += total
    return found


def botocore_frames(body: bytes) -> list[tuple[dict[str, Any], bytes]]:
    """The frames as botocore's event-stream reader finds them (it checks both CRCs)."""
    eventstream = pytest.importorskip("botocore.eventstream")
    buffer = eventstream.EventStreamBuffer()
    buffer.add_data(body)
    return [(message.headers, message.payload) for message in buffer]


def claude_events(body: bytes) -> list[bytes]:
    """The JSON of Claude's events in an InvokeModel stream's chunks (none in another)."""
    chunks = [json.loads(payload) for headers, payload in frames(body) if headers.get(":event-type") == "chunk"]
    return [base64.b64decode(chunk["bytes"]) for chunk in chunks]


# --- decoded back ---------------------------------------------------------------------


@pytest.mark.parametrize("target", TARGETS)
def test_the_written_stream_decodes_to_the_very_items_at_every_split(target: str) -> None:
    body = unievent.encode(EVENTS, target, model=MODEL)
    _, outcome = split_everywhere(target, body)
    assert outcome.end == "complete"
    assert list(outcome.message.items) == done_items(EVENTS)  # the signature included
    assert outcome.finish_reason == "tool_call"
    assert outcome.usage == written_usage(target, STOP.usage)
    assert outcome.anomalies == ()


def test_text_and_reasoning_deltas_have_bedrocks_own_shape() -> None:
    decoder = RuntimeStreamDecoder("bedrock_converse", stream_id="s", clock=lambda: 0)
    decoder.push(unievent.encode(EVENTS, "bedrock_converse"))
    decoder.finish()
    # the reader's on-demand path takes exactly the frames Bedrock writes: every text
    # and reasoning-text delta but the first of each block (which opens it)
    assert decoder.fast_frames == 2


@pytest.mark.parametrize("text", ["Hi", "", 'quote " and \\ and \n', "日本 😀", "\x00\x1f"])
def test_the_converse_delta_templates_write_what_the_generic_frame_writes(text: str) -> None:
    for first, closing, delta in (
        (TextDelta(""), b"}}", {"text": text}),
        (ThinkingDelta(""), b"}}}", {"reasoningContent": {"text": text}}),
    ):
        fast, slow = BedrockConverseWriter(EncodeOptions()), BedrockConverseWriter(EncodeOptions())
        for writer in (fast, slow):
            writer.begin()
            writer.index = 3
            writer.open(first)
            writer.take()
        fast._string_delta(fast.text_head if closing == b"}}" else fast.thinking_head, text, closing)
        slow._delta(delta)
        assert fast.take() == slow.take()


@pytest.mark.parametrize("target", TARGETS)
def test_auto_detection_finds_the_written_protocol(target: str) -> None:
    body = unievent.encode(EVENTS, target, model=MODEL)
    decoder = unievent.StreamDecoder("auto", content_type=EVENT_STREAM)
    decoder.push(body)
    _, outcome = decoder.finish()
    assert (outcome.protocol, outcome.end) == (target, "complete")


def _signed(events: list[Any]) -> list[Any]:
    """`events` with a signature on every thinking group, as Claude signs its thinking."""
    out: list[Any] = []
    for n, event in enumerate(events):
        item = event.item if isinstance(event, DeltaEvent) else None
        if isinstance(item, ThinkingDone):
            signature = base64.b64encode(f"sig-{n}".encode()).decode()
            out.append(DeltaEvent(ThinkingDelta("", {"signature": signature}), 0))
            out.append(DeltaEvent(ThinkingDone(item.thinking, {"signature": signature}), 0))
        else:
            out.append(event)
    return out


@pytest.mark.parametrize("target", TARGETS)
@settings(max_examples=60, deadline=None)
@given(events=streams().map(_signed), seed=st.integers(0, 2**32))
def test_a_generated_stream_decodes_back_in_any_split(target: str, events: list[Any], seed: int) -> None:
    body = unievent.encode(events, target)
    rng = random.Random(seed)
    cuts = sorted(rng.sample(range(1, len(body)), min(len(body) - 1, rng.randint(1, 30))))
    _, outcome = decode_stream(target, split_at(body, cuts))
    assert (outcome.end, outcome.anomalies) == ("complete", ())
    assert list(outcome.message.items) == done_items(events)
    assert outcome.finish_reason == events[-1].finish_reason
    assert outcome.usage == written_usage(target, events[-1].usage)


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("finish", FINISH_REASONS)
def test_the_finish_reason_is_the_one_the_events_carry(target: str, finish: Any) -> None:
    events: list[Event] = [DeltaEvent(TextDelta("Hi"), 0), DeltaEvent(TextDone("Hi"), 0), StopEvent(Usage(), finish, 0)]
    _, outcome = decode_stream(target, unievent.encode(events, target))
    assert outcome.finish_reason == finish


def test_the_converse_stop_reason_and_usage_are_bedrocks_own() -> None:
    usage = Usage(cached_tokens=4, prompt_tokens=20, thoughts_tokens=5, response_tokens=12)
    events: list[Event] = [DeltaEvent(TextDelta("Hi"), 0), DeltaEvent(TextDone("Hi"), 0), StopEvent(usage, "length", 0)]
    encoder = unievent.StreamEncoder("bedrock_converse")
    body = b"".join(encoder.push(e) for e in events) + encoder.finish()
    payloads = {headers[":event-type"]: json.loads(payload) for headers, payload in frames(body)}
    assert payloads["messageStop"] == {"stopReason": "max_tokens"}
    assert payloads["metadata"] == {
        "usage": {"inputTokens": 20, "outputTokens": 17, "totalTokens": 41, "cacheReadInputTokens": 4},
        "metrics": {"latencyMs": 0},
    }
    assert encoder.dropped == ["usage thoughts_tokens (counted in outputTokens)"]


def test_redacted_thinking_citations_and_images_go_back_where_the_converse_reader_takes_them() -> None:
    citation = {"title": "Doc", "sourceContent": [{"text": "quoted"}], "location": {"documentChar": {"start": 0}}}
    events: list[Event] = [
        DeltaEvent(ThinkingDelta(REDACTED_THINKING, {"signature": "b3BhcXVl"}), 0),
        DeltaEvent(ThinkingDone(REDACTED_THINKING, {"signature": "b3BhcXVl"}), 0),
        DeltaEvent(TextDelta("Quoted."), 0),
        DeltaEvent(TextDelta("", {"citations": [citation]}), 0),
        DeltaEvent(TextDone("Quoted.", {"citations": [citation]}), 0),
        DeltaEvent(InlineDataDelta(b"\x89PNG", "image/png"), 0),
        DeltaEvent(InlineDataDone(b"\x89PNG", "image/png"), 0),
        StopEvent(Usage(prompt_tokens=1, response_tokens=2), "stop", 0),
    ]
    _, outcome = split_everywhere("bedrock_converse", unievent.encode(events, "bedrock_converse"))
    assert (list(outcome.message.items), outcome.anomalies) == (done_items(events), ())


def test_what_a_wire_has_no_place_for_is_listed() -> None:
    events: list[Event] = [
        DeltaEvent(ThinkingDelta("hm", {"signature": "gemini-signature"}), 0),
        DeltaEvent(ThinkingDone("hm", {"signature": "gemini-signature"}), 0),
        DeltaEvent(InlineDataDelta(b"%PDF", "application/pdf"), 0),
        DeltaEvent(InlineDataDone(b"%PDF", "application/pdf"), 0),
        StopEvent(Usage(), "stop", 0),
    ]
    for target in TARGETS:
        encoder = unievent.StreamEncoder(target, fidelity_from="gemini")
        body = b"".join(encoder.push(e) for e in events) + encoder.finish()
        assert b"gemini-signature" not in body + b"".join(claude_events(body))
        assert "signature (from gemini)" in encoder.dropped
        assert any(d.startswith("inline_data.delta (no place in") for d in encoder.dropped)


def test_keep_alives_are_nothing_on_an_event_stream() -> None:
    for target in TARGETS:
        assert unievent.StreamEncoder(target).keep_alive() == b""


# --- transcoded -------------------------------------------------------------------------


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("source", SOURCES)
def test_every_protocols_stream_transcodes_with_its_content(source: str, target: str) -> None:
    data = unievent.encode(EVENTS, source, model=MODEL)
    _, before = decode_stream(source, data)
    body = b"".join(unievent.transcode(split_at(data, [len(data) // 3]), source, target, stream_id="s"))
    _, after = split_everywhere(target, body) if source == "anthropic" else decode_stream(target, body)
    assert (after.end, after.anomalies) == ("complete", ())
    assert content(after) == content(before)
    assert after.finish_reason == before.finish_reason
    assert after.usage == written_usage(target, before.usage)
    # Claude's signature crosses between the wires that serve Claude, and no other
    kept = signatures(before) if source in CLAUDE_WIRES else [None] * len(signatures(before))
    assert signatures(after) == kept


def _recorded(protocols: tuple[str, ...]) -> list[dict[str, Any]]:
    manifest = CORPUS / "manifest.json"
    if not manifest.exists():
        return []
    entries: list[dict[str, Any]] = json.loads(manifest.read_text())
    return [e for e in entries if e["protocol"] in protocols]


#: the corpus calls every recorded ConverseStream `bedrock`
_READER = {"bedrock": "bedrock_converse"}


@pytest.mark.skipif(not _recorded(("bedrock",)), reason="no recorded corpus at ../shared/corpus")
@pytest.mark.parametrize("entry", _recorded(("bedrock",)), ids=lambda e: e["file"])
def test_a_recorded_converse_stream_round_trips_exactly(entry: dict[str, Any]) -> None:
    events, outcome = decode_stream("bedrock_converse", (CORPUS / entry["file"]).read_bytes())
    _, again = decode_stream("bedrock_converse", unievent.encode(events, "bedrock_converse"))
    assert again.message.items == outcome.message.items
    assert (again.end, again.finish_reason, again.usage, again.anomalies) == (
        outcome.end,
        outcome.finish_reason,
        outcome.usage,
        (),
    )


@pytest.mark.skipif(not _recorded(("anthropic", "bedrock")), reason="no recorded corpus at ../shared/corpus")
@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("entry", _recorded(("anthropic", "bedrock")), ids=lambda e: e["file"])
def test_a_recorded_claude_stream_keeps_its_signatures_on_bedrock(entry: dict[str, Any], target: str) -> None:
    source = _READER.get(entry["protocol"], entry["protocol"])
    data = (CORPUS / entry["file"]).read_bytes()
    _, before = decode_stream(source, data)
    _, after = decode_stream(target, b"".join(unievent.transcode([data], source, target, stream_id="s")))
    assert (after.end, content(after), after.finish_reason) == (before.end, content(before), before.finish_reason)
    assert signatures(after) == signatures(before)


# --- failures -------------------------------------------------------------------------------


@pytest.mark.parametrize("target", TARGETS)
def test_a_failure_is_an_exception_frame_boto3_knows(target: str) -> None:
    encoder = unievent.StreamEncoder(target)
    body = encoder.push(DeltaEvent(TextDelta("partial"), 0))
    body += encoder.fail(ProviderError("upstream overloaded", "overloaded_error", 529))
    headers, payload = frames(body)[-1]
    assert headers == {
        ":exception-type": "modelStreamErrorException",
        ":content-type": "application/json",
        ":message-type": "exception",
    }
    assert json.loads(payload) == {"message": "upstream overloaded", "originalStatusCode": 529}
    assert encoder.dropped == ["error type overloaded_error (written as modelStreamErrorException)"]
    _, outcome = split_everywhere(target, body)
    assert (outcome.end, content(outcome)) == ("failed", [("text", "partial")])
    assert outcome.error is not None
    assert (outcome.error.type, outcome.error.message, outcome.error.code) == (
        "modelStreamErrorException",
        "upstream overloaded",
        529,
    )


@pytest.mark.parametrize(
    ("target", "kind"),
    [
        ("bedrock_converse", "throttlingException"),
        ("bedrock_invoke", "throttlingException"),
        ("bedrock_invoke", "modelTimeoutException"),
    ],
)
def test_a_bedrock_exception_keeps_its_type(target: str, kind: str) -> None:
    encoder = unievent.StreamEncoder(target)
    body = encoder.fail(ProviderError("Too many requests", kind))
    _, outcome = decode_stream(target, body)
    assert outcome.error is not None and (outcome.error.type, outcome.error.message) == (kind, "Too many requests")
    assert encoder.dropped == []


@pytest.mark.parametrize("target", TARGETS)
def test_a_failed_source_transcodes_to_a_failed_stream(target: str) -> None:
    encoder = unievent.StreamEncoder("anthropic")
    data = encoder.push(DeltaEvent(TextDelta("partial"), 0)) + encoder.fail(
        ProviderError("Overloaded", "overloaded_error")
    )
    body = b"".join(unievent.transcode([data], "anthropic", target))
    _, outcome = decode_stream(target, body)
    assert (outcome.end, content(outcome)) == ("failed", [("text", "partial")])
    assert outcome.error is not None and outcome.error.message == "Overloaded"


# --- AWS's own readers --------------------------------------------------------------------


@pytest.mark.parametrize("target", TARGETS)
def test_botocore_reads_every_frame_with_its_crcs(target: str) -> None:
    body = unievent.encode(EVENTS, target, model=MODEL)
    found = botocore_frames(body)
    assert found == frames(body)
    for headers, payload in found:
        assert headers[":message-type"] == "event" and headers[":content-type"] == "application/json"
        json.loads(payload)
    names = [headers[":event-type"] for headers, _ in found]
    if target == "bedrock_converse":
        assert names == ["messageStart"] + ["contentBlockDelta"] * 3 + ["contentBlockStop"] + [
            "contentBlockDelta"
        ] * 2 + ["contentBlockStop", "contentBlockStart"] + ["contentBlockDelta"] * 2 + [
            "contentBlockStop",
            "messageStop",
            "metadata",
        ]
    else:
        assert set(names) == {"chunk"}
        claude = [json.loads(event) for event in claude_events(body)]
        assert [e["type"] for e in claude][:2] == ["message_start", "content_block_start"]
        assert claude[-1] == {
            "type": "message_stop",
            "amazon-bedrock-invocationMetrics": {
                "inputTokenCount": 20,
                "outputTokenCount": 17,
                "cacheReadInputTokenCount": 4,
            },
        }


def test_the_converse_events_validate_against_the_bedrock_runtime_service_model() -> None:
    session = pytest.importorskip("botocore.session")
    validate = pytest.importorskip("botocore.validate")
    union = session.get_session().get_service_model("bedrock-runtime").shape_for("ConverseStreamOutput")
    validator = validate.ParamValidator()
    encoder = unievent.StreamEncoder("bedrock_converse")
    body = b"".join(encoder.push(e) for e in EVENTS) + encoder.finish()
    body += unievent.StreamEncoder("bedrock_converse").fail(ProviderError("boom", "internalServerException"))
    for headers, payload in frames(body):
        name = headers.get(":event-type") or headers[":exception-type"]
        assert name in union.members, name
        report = validator.validate(json.loads(payload), union.members[name])
        assert not report.has_errors(), report.generate_report()


class _Bedrock(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    body = b""
    paths: ClassVar[list[str]] = []

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.paths.append(self.path)
        self.send_response(200)
        self.send_header("content-type", EVENT_STREAM)
        self.send_header("x-amzn-bedrock-content-type", "application/json")
        self.send_header("content-length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)


@pytest.fixture
def bedrock_runtime() -> Iterator[Any]:
    """A boto3 bedrock-runtime client (dummy credentials) of a local server, and how to
    set the body it answers."""
    boto3 = pytest.importorskip("boto3")
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Bedrock)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    client = boto3.client(
        "bedrock-runtime",
        endpoint_url=f"http://127.0.0.1:{server.server_address[1]}",
        region_name="us-east-1",
        aws_access_key_id="x",
        aws_secret_access_key="x",
    )

    def serve(body: bytes) -> Any:
        _Bedrock.body = body
        _Bedrock.paths = []
        return client

    try:
        yield serve
    finally:
        server.shutdown()
        server.server_close()


ASKED = [{"role": "user", "content": [{"text": "Weather in Paris?"}]}]


def test_boto3_converse_stream_reads_what_the_converse_writer_wrote(bedrock_runtime: Any) -> None:
    client = bedrock_runtime(unievent.encode(EVENTS, "bedrock_converse", model=MODEL))
    response = client.converse_stream(modelId="anthropic.claude-sonnet-4", messages=ASKED)
    events = list(response["stream"])
    assert _Bedrock.paths == ["/model/anthropic.claude-sonnet-4/converse-stream"]
    assert events[0] == {"messageStart": {"role": "assistant"}}
    deltas = [e["contentBlockDelta"]["delta"] for e in events if "contentBlockDelta" in e]
    reasoning = [d["reasoningContent"] for d in deltas if "reasoningContent" in d]
    assert "".join(r.get("text", "") for r in reasoning) == "Let me think."
    assert [r["signature"] for r in reasoning if "signature" in r] == ["EqQBCkYIBxgC"]
    assert "".join(d.get("text", "") for d in deltas) == "Checking the weather."
    [start] = [e["contentBlockStart"] for e in events if "contentBlockStart" in e]
    assert start == {"contentBlockIndex": 2, "start": {"toolUse": {"toolUseId": "call_1", "name": "get_weather"}}}
    arguments = "".join(d["toolUse"]["input"] for d in deltas if "toolUse" in d)
    assert json.loads(arguments) == {"city": "Paris"}
    assert events[-2] == {"messageStop": {"stopReason": "tool_use"}}
    assert events[-1]["metadata"]["usage"] == {
        "inputTokens": 20,
        "outputTokens": 17,
        "totalTokens": 41,
        "cacheReadInputTokens": 4,
    }


def test_boto3_invoke_model_with_response_stream_reads_claudes_events(bedrock_runtime: Any) -> None:
    client = bedrock_runtime(unievent.encode(EVENTS, "bedrock_invoke", model=MODEL))
    response = client.invoke_model_with_response_stream(modelId="anthropic.claude-sonnet-4", body=b"{}")
    assert response["contentType"] == "application/json"
    claude = [json.loads(event["chunk"]["bytes"]) for event in response["body"]]
    assert claude[0]["message"]["model"] == MODEL
    text = "".join(e["delta"].get("text", "") for e in claude if e["type"] == "content_block_delta")
    assert text == "Checking the weather."
    [tool] = [e["content_block"] for e in claude if e["type"] == "content_block_start" and e["index"] == 2]
    assert (tool["type"], tool["id"], tool["name"]) == ("tool_use", "call_1", "get_weather")
    assert claude[-2]["delta"]["stop_reason"] == "tool_use"
    assert claude[-1]["amazon-bedrock-invocationMetrics"]["inputTokenCount"] == 20


@pytest.mark.parametrize("target", TARGETS)
def test_boto3_raises_the_exception_a_failed_stream_ends_with(target: str, bedrock_runtime: Any) -> None:
    exceptions = pytest.importorskip("botocore.exceptions")
    encoder = unievent.StreamEncoder(target)
    body = encoder.push(DeltaEvent(TextDelta("partial"), 0)) + encoder.fail(ProviderError("upstream overloaded"))
    client = bedrock_runtime(body)
    if target == "bedrock_converse":
        stream = client.converse_stream(modelId="m", messages=ASKED)["stream"]
    else:
        stream = client.invoke_model_with_response_stream(modelId="m", body=b"{}")["body"]
    with pytest.raises(exceptions.EventStreamError) as caught:
        list(stream)
    assert caught.value.response["Error"] == {"Code": "modelStreamErrorException", "Message": "upstream overloaded"}


# --- the command line and the gateway ---------------------------------------------------------


@pytest.mark.parametrize("target", TARGETS)
def test_transcode_on_the_command_line_writes_bedrocks_frames(target: str, tmp_path: Path) -> None:
    source = tmp_path / "body.sse"
    source.write_bytes(unievent.encode(EVENTS, "anthropic", model=MODEL))
    done = subprocess.run(
        [sys.executable, "-m", "unievent", "transcode", str(source), "--from", "auto", "--to", target],
        capture_output=True,
        check=True,
        timeout=60,
    )
    _, outcome = decode_stream(target, done.stdout)
    assert (outcome.end, outcome.finish_reason) == ("complete", "tool_call")
    assert list(outcome.message.items) == done_items(EVENTS)


@pytest.mark.parametrize("target", TARGETS)
def test_the_asgi_response_serves_bedrock_with_the_event_stream_type(target: str) -> None:
    data = unievent.encode(EVENTS, "openai_chat", model="gpt-4o")

    async def upstream() -> Any:
        for i in range(0, len(data), 50):
            yield data[i : i + 50]

    sent: list[dict[str, Any]] = []

    async def send(message: Any) -> None:
        sent.append(message)

    async def receive() -> Any:
        return {"type": "http.request"}

    asyncio.run(unievent.TranscodedResponse(upstream(), "auto", target)({"type": "http"}, receive, send))
    start, *bodies = sent
    headers = dict(start["headers"])
    assert headers[b"content-type"] == EVENT_STREAM.encode()
    assert (b"x-amzn-bedrock-content-type" in headers) == (target == "bedrock_invoke")
    _, outcome = decode_stream(target, b"".join(b["body"] for b in bodies))
    assert (outcome.end, content(outcome)) == ("complete", content(decode_stream("openai_chat", data)[1]))
