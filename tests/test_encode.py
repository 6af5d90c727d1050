"""Encoding back: StreamEncoder, encode() and transcode(), proven by decoding.

For every protocol P with a writer and every event stream E that passes `validate`,
decoding `encode(E, P)` as P gives E's content back: the same text, thinking, tool
calls (names, ids, parsed arguments), finish reason and usage, with no anomaly (the
writer never needs its decoder's recoveries).  Every recorded stream round-trips to
the very same items, fidelity included, through its own protocol, and transcodes to
every other with the same content.  What a wire cannot carry is listed in `dropped`.
"""

from __future__ import annotations

import asyncio
import base64
import json
import random
import re
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import unievent
from tests.helpers import split_at
from unievent import (
    DeltaEvent,
    EmbeddingDelta,
    EmbeddingDone,
    Event,
    FinishReason,
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
from unievent._decoder import StreamDecoder as RuntimeStreamDecoder  # takes any protocol name
from unievent._writers import WRITERS
from unievent._writers.anthropic import AnthropicWriter
from unievent._writers.base import EncodeOptions

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"
TARGETS = sorted(WRITERS)
#: the wires of a model's answer (an embeddings body holds vectors only)
ANSWERS = [p for p in TARGETS if p != "openai_embeddings"]


def decode(protocol: str, body: bytes | list[bytes]) -> tuple[list[Any], Outcome]:
    decoder = RuntimeStreamDecoder(protocol, stream_id="s", clock=lambda: 0)
    events: list[Any] = []
    for piece in [body] if isinstance(body, bytes) else body:
        events += decoder.push(piece)
    last, outcome = decoder.finish()
    events += last
    unievent.validate(events, partial=outcome.end != "complete")
    return events, outcome


def content(outcome: Outcome) -> list[Any]:
    """What every wire carries: text and thinking (adjacent pieces of one kind joined,
    empty ones left out), tool calls by name, id and arguments, other items by type."""
    out: list[Any] = []
    for item in outcome.message.items:
        if isinstance(item, TextDone | ThinkingDone):
            text = item.text if isinstance(item, TextDone) else item.thinking
            if not text:
                continue
            if out and out[-1][0] == item.kind:
                out[-1] = (item.kind, out[-1][1] + text)
            else:
                out.append((item.kind, text))
        elif isinstance(item, ToolCallDone):
            out.append(("tool_call", item.name, item.tool_call_id, item.arguments))
        else:
            out.append((item.type,))
    return out


# --- generated streams ---------------------------------------------------------------

pieces = st.lists(
    st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=8), min_size=1, max_size=4
)


@st.composite
def streams(draw: st.DrawFn) -> list[Any]:
    """A grammar-valid event stream: text, thinking and tool-call groups, then a stop."""
    events: list[Any] = []
    calls = 0
    last_kind = ""
    for _ in range(draw(st.integers(0, 4))):
        kind = draw(st.sampled_from(["text", "thinking", "tool_call"]))
        if kind == last_kind and kind != "tool_call":
            continue  # two text groups in a row are one text on most wires
        last_kind = kind
        if kind == "text":
            parts = draw(pieces)
            events += [DeltaEvent(TextDelta(p), 0) for p in parts] + [DeltaEvent(TextDone("".join(parts)), 0)]
        elif kind == "thinking":
            parts = draw(pieces)
            events += [DeltaEvent(ThinkingDelta(p), 0) for p in parts] + [DeltaEvent(ThinkingDone("".join(parts)), 0)]
        else:
            calls += 1
            numbers = st.integers(-(2**63), 2**63 - 1)  # what JSON readers take as integers
            arguments = draw(
                st.dictionaries(st.text(min_size=1, max_size=5), numbers | st.text(max_size=5), max_size=3)
            )
            text = json.dumps(arguments)
            cut = draw(st.integers(0, len(text)))
            name, call_id = f"tool_{calls}", f"call_{calls}"
            events.append(DeltaEvent(ToolCallDelta(name, text[:cut], call_id), 0))
            if text[cut:]:
                events.append(DeltaEvent(ToolCallDelta("", text[cut:], ""), 0))
            events.append(DeltaEvent(ToolCallDone(name, arguments, call_id), 0))
    counts = st.none() | st.integers(0, 10_000)
    usage = Usage(draw(counts), draw(st.integers(0, 10_000)), draw(counts), draw(st.integers(0, 10_000)))
    # a turn with calls may still finish `stop` (Anthropic's programmatic tool calling)
    finish: FinishReason = draw(st.sampled_from(["tool_call", "stop"])) if calls else draw(st.sampled_from(["stop", "length"]))
    events.append(StopEvent(usage, finish, 0))
    unievent.validate(events)
    return events


#: usage counts a wire has no field for (they are listed in the encoder's `dropped`)
UNCARRIED_USAGE = {"cohere": ("thoughts_tokens",), "ollama": ("cached_tokens", "thoughts_tokens")}


def carried_usage(protocol: str, usage: Usage) -> Usage:
    if protocol == "bedrock_converse" and usage.thoughts_tokens is not None:
        # Converse counts reasoning in outputTokens: no count of its own
        response = usage.response_tokens + usage.thoughts_tokens if usage.response_tokens is not None else None
        return attrs.evolve(usage, response_tokens=response, thoughts_tokens=None)
    return attrs.evolve(usage, **dict.fromkeys(UNCARRIED_USAGE.get(protocol, ()), None))


@pytest.mark.parametrize("protocol", ANSWERS)
@settings(max_examples=60, deadline=None)
@given(events=streams())
def test_a_generated_stream_decodes_back_to_its_content(protocol: str, events: list[Any]) -> None:
    body = unievent.encode(events, protocol)
    _, outcome = decode(protocol, body)
    source = decode("mmsp", unievent.encode(events, "mmsp"))[1]
    assert outcome.end == "complete"
    assert content(outcome) == content(source)
    assert outcome.finish_reason == carried_finish(protocol, events)
    assert outcome.usage == carried_usage(protocol, events[-1].usage)
    assert outcome.anomalies == ()


def carried_finish(protocol: str, events: list[Any]) -> FinishReason:
    """The finish as `protocol`'s wire says it: the one given, except on a wire with no
    word for a turn that calls tools, whose reader says tool_call exactly when there
    were calls (and the encoder lists the finish in `dropped`)."""
    finish: FinishReason = events[-1].finish_reason
    if WRITERS[protocol].finish_from_calls and finish in ("stop", "tool_call"):
        return "tool_call" if any(isinstance(e.item, ToolCallDone) for e in events[:-1]) else "stop"
    return finish


ANTHROPIC_PROGRAMMATIC_TOOL_CALLING = [  # several message_starts of one container, end_turn beside a tool_use
    ("message_start", {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude", "content": [], "stop_reason": None, "usage": {"input_tokens": 5, "output_tokens": 1}, "container": {"id": "container_1"}}}),
    ("content_block_start", {"type": "content_block_start", "index": 0, "content_block": {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {}}}),
    ("content_block_delta", {"type": "content_block_delta", "index": 0, "delta": {"type": "input_json_delta", "partial_json": '{"city":"Paris"}'}}),
    ("content_block_stop", {"type": "content_block_stop", "index": 0}),
    ("message_start", {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant", "model": "claude", "content": [], "stop_reason": None, "usage": {"input_tokens": 5, "output_tokens": 1}, "container": {"id": "container_1"}}}),
    ("content_block_start", {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}),
    ("content_block_delta", {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Sunny."}}),
    ("content_block_stop", {"type": "content_block_stop", "index": 1}),
    ("message_delta", {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 9}}),
    ("message_stop", {"type": "message_stop"}),
]


@pytest.mark.parametrize("protocol", ANSWERS)
def test_a_writer_writes_the_finish_it_was_given_never_one_read_from_the_content(protocol: str) -> None:
    body = b"".join(f"event: {name}\ndata: {json.dumps(data)}\n\n".encode() for name, data in ANTHROPIC_PROGRAMMATIC_TOOL_CALLING)
    events, source = decode("anthropic", body)
    assert (source.finish_reason, [type(item) for item in source.message.items]) == ("stop", [ToolCallDone, TextDone])
    encoder = unievent.StreamEncoder(protocol, fidelity_from="anthropic")
    written = b"".join(encoder.push(event) for event in events) + encoder.finish()
    _, outcome = decode(protocol, written)
    lost = [what for what in encoder.dropped if what.startswith("finish_reason")]
    if WRITERS[protocol].finish_from_calls:  # Responses, Gemini, Ollama: no word for it
        assert (outcome.finish_reason, lost) == ("tool_call", ["finish_reason stop (this wire has no word for it: read back as tool_call)"])
    else:
        assert (outcome.finish_reason, lost) == ("stop", [])


@pytest.mark.parametrize("protocol", ANSWERS)
@settings(max_examples=30, deadline=None)
@given(events=streams(), seed=st.integers(0, 2**32))
def test_what_is_written_decodes_the_same_in_any_split(protocol: str, events: list[Any], seed: int) -> None:
    body = unievent.encode(events, protocol)
    rng = random.Random(seed)
    cuts = sorted(rng.sample(range(1, len(body)), min(len(body) - 1, rng.randint(1, 30)))) if len(body) > 1 else []
    assert decode(protocol, split_at(body, cuts)) == decode(protocol, body)


def test_mmsp_gives_back_the_very_events() -> None:
    events: list[Event] = [
        DeltaEvent(ThinkingDelta("hm", {"signature": "c2ln"}), 5),
        DeltaEvent(ThinkingDone("hm", {"signature": "c2ln"}), 5),
        DeltaEvent(InlineDataDelta(b"\x00\x01", "image/png"), 6),
        DeltaEvent(InlineDataDone(b"\x00\x01", "image/png"), 6),
        DeltaEvent(TextDelta("Hi"), 7),
        DeltaEvent(TextDone("Hi"), 7),
        StopEvent(Usage(1, 2, 3, 4), "stop", 8),
    ]
    assert decode("mmsp", unievent.encode(events, "mmsp"))[0] == events


# --- ends -----------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", ANSWERS)
def test_fail_writes_the_protocols_error_and_it_decodes_failed(protocol: str) -> None:
    encoder = unievent.StreamEncoder(protocol)
    body = encoder.push(DeltaEvent(TextDelta("partial"), 0))
    body += encoder.fail(unievent.ProviderError("upstream overloaded", "overloaded_error"))
    _, outcome = decode(protocol, body)
    assert outcome.end == "failed"
    assert outcome.error is not None and outcome.error.message == "upstream overloaded"
    assert content(outcome) == [("text", "partial")]


@pytest.mark.parametrize("protocol", ANSWERS)
def test_abort_leaves_a_cut_stream(protocol: str) -> None:
    encoder = unievent.StreamEncoder(protocol)
    body = encoder.push(DeltaEvent(TextDelta("cut"), 0)) + encoder.abort()
    _, outcome = decode(protocol, body)
    assert outcome.end == "truncated"
    assert content(outcome) == [("text", "cut")]


@pytest.mark.parametrize("protocol", ANSWERS)
def test_finish_closes_the_open_group_and_writes_the_end(protocol: str) -> None:
    encoder = unievent.StreamEncoder(protocol)
    body = (
        encoder.push(DeltaEvent(TextDelta("Hel"), 0)) + encoder.push(DeltaEvent(TextDelta("lo"), 0)) + encoder.finish()
    )
    _, outcome = decode(protocol, body)
    assert outcome.end == "complete"
    assert content(outcome) == [("text", "Hello")]


@pytest.mark.parametrize("protocol", ANSWERS)
def test_keep_alives_decode_to_nothing(protocol: str) -> None:
    encoder = unievent.StreamEncoder(protocol)
    body = encoder.keep_alive() + encoder.push(DeltaEvent(TextDelta("Hi"), 0)) + encoder.keep_alive()
    body += encoder.push(DeltaEvent(TextDone("Hi"), 0)) + encoder.push(StopEvent(Usage(), "stop", 0)) + encoder.finish()
    _, outcome = decode(protocol, body)
    assert (outcome.end, content(outcome), outcome.anomalies) == ("complete", [("text", "Hi")], ())


def test_the_gemini_array_framing_is_one_json_array() -> None:
    events: list[Event] = [DeltaEvent(TextDelta("Hi"), 0), DeltaEvent(TextDone("Hi"), 0), StopEvent(Usage(), "stop", 0)]
    body = unievent.encode(events, "gemini", framing="json_array")
    assert isinstance(json.loads(body), list)
    assert content(decode("gemini", body)[1]) == [("text", "Hi")]


# --- what cannot be written ---------------------------------------------------------------


def test_a_stream_that_breaks_the_grammar_is_refused_naming_the_state() -> None:
    encoder = unievent.StreamEncoder("anthropic")
    encoder.push(DeltaEvent(TextDelta("a"), 0))
    with pytest.raises(unievent.EncodeError) as caught:
        encoder.push(DeltaEvent(ThinkingDelta("b"), 0))
    assert caught.value.state == "text" and caught.value.arrived == "thinking.delta"
    assert "anthropic: cannot write thinking.delta in state 'text'" in str(caught.value)


def test_a_frame_the_target_machine_cannot_take_is_refused() -> None:
    writer = AnthropicWriter(EncodeOptions())
    with pytest.raises(unievent.EncodeError, match="cannot write block_delta in state 'waiting'"):
        writer.step(writer.machine.SY_BLOCK_DELTA)


def test_an_event_after_the_end_is_refused() -> None:
    encoder = unievent.StreamEncoder("openai_chat")
    encoder.finish()
    with pytest.raises(unievent.EncodeError, match="already ended"):
        encoder.push(DeltaEvent(TextDelta("late"), 0))


def test_an_unknown_protocol_names_those_there_are() -> None:
    names = "anthropic, bedrock_converse, bedrock_invoke, cohere, gemini"
    with pytest.raises(unievent.EncodeError, match=f"no writer for it; there are: {names}"):
        unievent.StreamEncoder("carrier_pigeon")


def test_another_providers_signature_is_dropped_and_said() -> None:
    events: list[Event] = [
        DeltaEvent(ThinkingDelta("hm"), 0),
        DeltaEvent(ThinkingDelta("", {"signature": "gemini-signature"}), 0),
        DeltaEvent(ThinkingDone("hm", {"signature": "gemini-signature"}), 0),
        StopEvent(Usage(), "stop", 0),
    ]
    encoder = unievent.StreamEncoder("anthropic", fidelity_from="gemini")
    body = b"".join(encoder.push(e) for e in events) + encoder.finish()
    assert b"gemini-signature" not in body
    assert encoder.dropped == ["signature (from gemini)"]
    same = unievent.StreamEncoder("anthropic", fidelity_from="anthropic")
    assert b"gemini-signature" in b"".join(same.push(e) for e in events)


def test_an_item_a_wire_has_no_place_for_is_listed() -> None:
    encoder = unievent.StreamEncoder("openai_chat")
    encoder.push(DeltaEvent(InlineDataDelta(b"\x89PNG", "image/png"), 0))
    assert encoder.dropped == ["inline_data.delta (no place in Chat Completions)"]


# --- recorded streams -----------------------------------------------------------------------


def _corpus() -> list[dict[str, Any]]:
    manifest = CORPUS / "manifest.json"
    if not manifest.exists():
        return []
    entries: list[dict[str, Any]] = json.loads(manifest.read_text())
    return [e for e in entries if e["protocol"] in unievent.PROTOCOLS]


ENTRIES = _corpus()
needs_corpus = pytest.mark.skipif(not ENTRIES, reason="no recorded corpus at ../shared/corpus")


@needs_corpus
@pytest.mark.parametrize("entry", [e for e in ENTRIES if e["protocol"] in WRITERS], ids=lambda e: e["file"])
def test_a_recorded_stream_round_trips_through_its_own_protocol_exactly(entry: dict[str, Any]) -> None:
    protocol = entry["protocol"]
    events, outcome = decode(protocol, (CORPUS / entry["file"]).read_bytes())
    if outcome.end != "complete":
        pytest.skip(f"the recording ends {outcome.end}")
    again = decode(protocol, unievent.encode(events, protocol))[1]
    assert again.message.items == outcome.message.items  # fidelity and all
    assert (again.finish_reason, again.usage, again.anomalies) == (outcome.finish_reason, outcome.usage, ())


@needs_corpus
@pytest.mark.parametrize("target", ANSWERS)
@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e["file"])
def test_a_recorded_stream_transcodes_to_every_protocol_with_the_same_content(
    entry: dict[str, Any], target: str
) -> None:
    data = (CORPUS / entry["file"]).read_bytes()
    _, outcome = decode(entry["protocol"], data)
    body = b"".join(unievent.transcode([data], entry["protocol"], target, stream_id="s"))
    _, again = decode(target, body)
    assert again.end == outcome.end
    assert content(again) == content(outcome)
    assert again.finish_reason == outcome.finish_reason
    if outcome.end == "complete":  # an error frame carries no usage
        assert again.usage == carried_usage(target, outcome.usage)
    if outcome.end == "failed":
        assert again.error is not None and outcome.error is not None
        assert again.error.message == outcome.error.message


@needs_corpus
@pytest.mark.parametrize("entry", ENTRIES[::7], ids=lambda e: e["file"])
def test_transcoding_gives_the_same_bytes_for_any_split_of_the_source(entry: dict[str, Any]) -> None:
    data = (CORPUS / entry["file"]).read_bytes()
    whole = b"".join(unievent.transcode([data], "auto", "anthropic", stream_id="s"))
    rng = random.Random(len(data))
    cuts = sorted(rng.sample(range(1, len(data)), 40))
    assert b"".join(unievent.transcode(split_at(data, cuts), "auto", "anthropic", stream_id="s")) == whole


# --- the gateway response ---------------------------------------------------------------


def test_the_asgi_response_relays_an_upstream_in_another_protocol_with_stream_headers() -> None:
    import asyncio

    chat = b'data: {"choices":[{"delta":{"content":"Hi"}}],"model":"m"}\n\ndata: {"choices":[{"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'

    async def upstream() -> Any:
        for i in range(0, len(chat), 9):
            yield chat[i : i + 9]

    sent: list[dict[str, Any]] = []

    async def send(message: Any) -> None:
        sent.append(message)

    async def receive() -> Any:
        return {"type": "http.request"}

    response = unievent.TranscodedResponse(upstream(), "auto", "anthropic")
    asyncio.run(response({"type": "http"}, receive, send))
    start, *bodies = sent
    assert start["status"] == 200
    assert dict(start["headers"])[b"content-type"] == b"text/event-stream; charset=utf-8"
    assert bodies[-1] == {"type": "http.response.body", "body": b"", "more_body": False}
    _, outcome = decode("anthropic", b"".join(b["body"] for b in bodies))
    assert (outcome.end, content(outcome), outcome.model) == ("complete", [("text", "Hi")], "m")


@pytest.mark.parametrize(
    ("target", "options", "media_type"),
    [
        ("openai_chat", {}, b"text/event-stream; charset=utf-8"),
        ("gemini", {"framing": "json_array"}, b"application/json; charset=utf-8"),
        ("ollama", {}, b"application/x-ndjson"),
        ("openai_embeddings", {}, b"application/json"),
        ("bedrock_converse", {}, b"application/vnd.amazon.eventstream"),
    ],
)
def test_the_asgi_response_names_each_wires_own_content_type(target: str, options: dict[str, Any], media_type: bytes) -> None:
    async def upstream() -> Any:
        yield b'data: {"choices":[{"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'

    sent: list[dict[str, Any]] = []

    async def send(message: Any) -> None:
        sent.append(message)

    async def receive() -> Any:
        return {"type": "http.request"}

    asyncio.run(unievent.TranscodedResponse(upstream(), "openai_chat", target, **options)({"type": "http"}, receive, send))
    assert dict(sent[0]["headers"])[b"content-type"] == media_type


def test_a_calls_arguments_go_out_as_their_text_never_re_serialized() -> None:
    text = '{"big": 123456789012345678901234567890, "x": 1.50}'
    events: list[Event] = [
        DeltaEvent(ToolCallDelta("f", text, "c1"), 0),
        DeltaEvent(ToolCallDone("f", json.loads(text, parse_int=float, parse_float=float), "c1"), 0),
        StopEvent(Usage(), "tool_call", 0),
    ]
    for protocol in ANSWERS:
        body = unievent.encode(events, protocol)
        if protocol == "bedrock_invoke":  # Claude's events, each base64 in a chunk frame
            body = b"".join(base64.b64decode(data) for data in re.findall(rb'"bytes":"([A-Za-z0-9+/=]*)"', body))
        assert (text.encode() if protocol == "gemini" else b"123456789012345678901234567890") in body, protocol


def test_embeddings_are_written_as_one_body_and_read_back() -> None:
    events: list[Event] = [
        DeltaEvent(EmbeddingDelta([0.5, -1.0]), 0),
        DeltaEvent(EmbeddingDone([0.5, -1.0]), 0),
        DeltaEvent(EmbeddingDelta([]), 0),
        DeltaEvent(EmbeddingDone([]), 0),
        StopEvent(Usage(prompt_tokens=3), "stop", 0),
    ]
    body = unievent.encode(events, "openai_embeddings", model="text-embedding-3-small")
    decoded, outcome = decode("openai_embeddings", body)
    assert decoded == events
    assert outcome.model == "text-embedding-3-small"
    failed = unievent.StreamEncoder("openai_embeddings").fail(
        unievent.ProviderError("bad model", "invalid_request_error")
    )
    assert decode("openai_embeddings", failed)[1].error == unievent.ProviderError(
        "bad model",
        "invalid_request_error",
        None,
        {"message": "bad model", "type": "invalid_request_error", "code": None},
    )


@pytest.mark.parametrize("text", ["Hi", "", 'quote " and \\ and \n', "日本 😀", "\x00\x1f"])
def test_anthropics_delta_template_writes_what_the_generic_frame_writes(text: str) -> None:
    for kind, field in (
        (b',"delta":{"type":"text_delta","text":', "text"),
        (b',"delta":{"type":"thinking_delta","thinking":', "thinking"),
    ):
        fast, slow = AnthropicWriter(EncodeOptions()), AnthropicWriter(EncodeOptions())
        for writer in (fast, slow):
            writer.begin()
            writer.index = 3
            writer.state = writer.machine.ST_BLOCK
            writer.take()
        fast._text(kind, text)
        slow._delta(type=f"{field}_delta", **{field: text})
        assert fast.take() == slow.take()


@pytest.mark.parametrize("text", ["Hi", 'quote " and \\ and \n', "日本 😀"])
def test_the_responses_delta_template_writes_what_the_generic_event_writes(text: str) -> None:
    from unievent._writers.openai_responses import OpenAIResponsesWriter

    fast, slow = OpenAIResponsesWriter(EncodeOptions()), OpenAIResponsesWriter(EncodeOptions())
    for writer in (fast, slow):
        writer.begin()
        writer.open(TextDelta(text))
        writer.take()
    fast._text_delta(text)
    slow._event("response.output_text.delta", **slow._where(), content_index=0, delta=text)
    assert fast.take() == slow.take()


def test_mirobodys_tool_steps_and_final_records_are_written_back() -> None:
    from tests.test_openai_responses import mirobody_stream

    body = mirobody_stream()
    decoder = RuntimeStreamDecoder("openai_responses", stream_id="s", clock=lambda: 0, side_events=True)
    events = decoder.push(body)
    last, outcome = decoder.finish()
    again = decode("openai_responses", unievent.encode(events + last, "openai_responses", response_id="resp_1"))[1]
    assert again.extras["tool_steps"] == outcome.extras["tool_steps"]
    assert (again.extras["health_records"], again.extras["citations"]) == (
        outcome.extras["health_records"],
        outcome.extras["citations"],
    )
    assert [(e.kind, e.phase, e.item_id) for e in again.side_events] == [
        (e.kind, e.phase, e.item_id) for e in outcome.side_events
    ]
    assert again.message.items == outcome.message.items


def test_ollama_writes_an_image_whole_and_has_no_place_for_audio() -> None:
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(8))
    pcm = "audio/pcm; encoding=s16le; rate=24000; channels=1"
    events: list[Event] = [
        DeltaEvent(InlineDataDelta(png[:5], "image/png"), 0),
        DeltaEvent(InlineDataDelta(png[5:], "image/png"), 0),
        DeltaEvent(InlineDataDone(png, "image/png"), 0),
        DeltaEvent(InlineDataDelta(b"\x00\x01", pcm), 0),
        DeltaEvent(InlineDataDelta(b"\x02\x03", pcm), 0),
        DeltaEvent(InlineDataDone(b"\x00\x01\x02\x03", pcm), 0),
        StopEvent(Usage(), "stop", 0),
    ]
    encoder = unievent.StreamEncoder("ollama")
    body = b"".join(encoder.push(event) for event in events) + encoder.finish()
    _, outcome = decode("ollama", body)
    assert outcome.message.items == (InlineDataDone(png, "image/png"),)  # one image, not two
    assert encoder.dropped == [f"inline_data {pcm} (Ollama streams images only)"]


def test_side_events_a_wire_has_no_place_for_are_listed_once_per_kind() -> None:
    encoder = unievent.StreamEncoder("openai_chat")
    for _ in range(3):
        encoder.push(unievent.SideEvent("anthropic", "server_tool_use", "start", "srvtoolu_1", {}, 0))
    assert encoder.dropped == ["side events server_tool_use"]


# --- the documented table of what each wire keeps ---------------------------------------------

ENCODING_DOC = Path(__file__).resolve().parent.parent / "docs" / "encoding.md"
PNG = b"\x89PNG\r\n\x1a\n" + bytes(range(8))
PCM = "audio/pcm; encoding=s16le; rate=24000; channels=1"


def keeps_and_drops() -> dict[str, tuple[str, str]]:
    """The rows of docs/encoding.md's "What each wire keeps and drops" table."""
    text = ENCODING_DOC.read_text().split("### What each wire keeps and drops", 1)[1]
    lines = text.split("\n| --- |", 1)[1].splitlines()[1:]
    rows = lines[: next(i for i, line in enumerate(lines) if not line.startswith("|"))]
    table = {}
    for row in rows:
        target, keys, items = (cell.strip() for cell in row.strip("|").split("|"))
        table[target.strip("`")] = (keys, items)
    return table


def test_the_keeps_and_drops_table_lists_every_writer_with_the_keys_it_carries() -> None:
    table = keeps_and_drops()
    assert sorted(table) == TARGETS
    for target, (keys, _) in table.items():
        if target == "mmsp":
            assert keys == "every key, whichever provider it came from"
            continue
        assert keys == (", ".join(f"`{key}`" for key in sorted(WRITERS[target].carries)) or "none"), target


@pytest.mark.parametrize("target", TARGETS)
def test_the_keeps_and_drops_table_names_exactly_the_media_a_wire_loses(target: str) -> None:
    """An image, a pcm16 audio and a thought image, each written alone and read back:
    the table names a kind as having no place exactly when it does not come back."""
    _, items = keeps_and_drops()[target]
    probes: dict[str, tuple[Any, Any]] = {
        "images": (InlineDataDelta(PNG, "image/png"), InlineDataDone(PNG, "image/png")),
        "audio": (InlineDataDelta(b"\x00\x01", PCM), InlineDataDone(b"\x00\x01", PCM)),
        "thought images": (InlineThinkingDelta(PNG, "image/png"), InlineThinkingDone(PNG, "image/png")),
    }
    for kind, (delta, done) in probes.items():
        encoder = unievent.StreamEncoder(target)
        events: list[Event] = [DeltaEvent(delta, 0), DeltaEvent(done, 0), StopEvent(Usage(), "stop", 0)]
        body = b"".join(encoder.push(event) for event in events) + encoder.finish()
        _, outcome = decode(target, body)
        lost = not any(getattr(item, "data", None) == done.data and type(item) is type(done) for item in outcome.message.items)
        said = items == "everything but embeddings" or any(part.strip() == kind for part in items.split(","))
        if kind == "audio" and target == "openai_chat":  # other inline data than pcm16 audio
            said = False
        assert lost == said, (target, kind, items)
