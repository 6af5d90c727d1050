"""The provider's response id: `Outcome.response_id`, and carried through `transcode`.

Every protocol whose wire names its response keeps that id on the outcome, whatever
the split (Chat's chunk `id`, Anthropic's `message.id`, Responses' `response.id`,
Gemini's `responseId`, the interaction's `id`, Cohere's `id`, Claude's `message.id`
inside Bedrock's InvokeModel stream), the first one the stream named; a value of the
wrong type is no id.  A transcoded stream names the source's id where the target's
wire has a place for it, unless `response_id=` names another.
"""

from __future__ import annotations

import asyncio
import base64
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, MutableMapping
from pathlib import Path
from typing import Any

import orjson
import pytest

import unievent
from tests.helpers import decode_stream, decoder_on_path, split_everywhere, sse
from unievent import DeltaEvent, Outcome, StopEvent, TextDelta, TextDone, Usage
from unievent._framing.aws_eventstream import encode_frame
from unievent._writers import WRITERS

CHAT_ID = "chatcmpl-B9MBs8CjcvOU2jLn4n570S5qMJKcT"
ANTHROPIC_ID = "msg_019wE4Ysq6D4GJvNcbAk9Yf8"
RESPONSES_ID = "resp_67ccd2bed1ec8190b14f964abc0542670bb6a6b452d3795b"
GEMINI_ID = "9dRdaKHqKZ2ukdUPp5PTwQo"
INTERACTIONS_ID = "v1_ChdpaWxTYWJmcUFaU3RrZFVQaXZ6SG1BNBIXaWlsU2FiZnFBWlN0a2RVUGl2ekhtQTQ"
COHERE_ID = "3ec845ed-ebb1-4223-9648-4e5632d5c6b5"
BEDROCK_ID = "msg_bdrk_01Hq4p3n3dFhUxcmXkAeFDBr"
TEXT = "Hello, wörld. The answer is 42."
PIECES = ["Hel", "lo, ", "wö", "rld.", " The", " answer", " is", " 42."]

# --- the streams, as each provider sends them (`rid`: the id the wire names) ----------


def chat(rid: Any = CHAT_ID) -> bytes:
    def frame(delta: dict[str, Any], finish: str | None = None, **more: Any) -> dict[str, Any]:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        top = {"id": rid, "object": "chat.completion.chunk", "created": 1741570283, "model": "gpt-4o-2024-08-06"}
        return {**top, "system_fingerprint": "fp_eb9dce56a8", "choices": [choice], **more}

    usage = {"prompt_tokens": 9, "completion_tokens": 8, "total_tokens": 17}
    return sse(
        frame({"role": "assistant", "content": "", "refusal": None}),
        *(frame({"content": piece}) for piece in PIECES),
        frame({}, "stop"),
        {"id": rid, "object": "chat.completion.chunk", "model": "gpt-4o-2024-08-06", "choices": [], "usage": usage},
    )


def _named(events: list[dict[str, Any]], key: str = "type") -> bytes:
    return b"".join(b"event: " + e[key].encode() + b"\ndata: " + orjson.dumps(e) + b"\n\n" for e in events)


def claude_events(rid: Any) -> list[dict[str, Any]]:
    message = {
        "id": rid, "type": "message", "role": "assistant", "model": "claude-sonnet-4-5-20250929", "content": [],
        "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": 12, "output_tokens": 1},
    }  # fmt: skip
    return [
        {"type": "message_start", "message": message},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        *({"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": p}} for p in PIECES),
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 8}},
        {"type": "message_stop"},
    ]


def anthropic(rid: Any = ANTHROPIC_ID) -> bytes:
    return _named(claude_events(rid))


def responses(rid: Any = RESPONSES_ID) -> bytes:
    def response(status: str, **more: Any) -> dict[str, Any]:
        return {"id": rid, "object": "response", "created_at": 1741476542, "status": status, "model": "gpt-5", "output": [], **more}

    item = {"id": "msg_1", "type": "message", "status": "in_progress", "role": "assistant", "content": []}
    part = {"type": "output_text", "annotations": [], "text": ""}
    where = {"item_id": "msg_1", "output_index": 0, "content_index": 0}
    done = {**item, "status": "completed", "content": [{**part, "text": TEXT}]}
    usage = {"input_tokens": 9, "output_tokens": 8, "total_tokens": 17}
    events: list[dict[str, Any]] = [
        {"type": "response.created", "response": response("in_progress")},
        {"type": "response.in_progress", "response": response("in_progress")},
        {"type": "response.output_item.added", "output_index": 0, "item": item},
        {"type": "response.content_part.added", **where, "part": part},
        *({"type": "response.output_text.delta", **where, "delta": piece} for piece in PIECES),
        {"type": "response.output_text.done", **where, "text": TEXT},
        {"type": "response.content_part.done", **where, "part": {**part, "text": TEXT}},
        {"type": "response.output_item.done", "output_index": 0, "item": done},
        {"type": "response.completed", "response": response("completed", output=[done], usage=usage)},
    ]
    return _named([{**e, "sequence_number": n} for n, e in enumerate(events)])


def gemini(rid: Any = GEMINI_ID) -> bytes:
    def record(text: str, finish: str | None = None) -> dict[str, Any]:
        candidate: dict[str, Any] = {"content": {"parts": [{"text": text}], "role": "model"}, "index": 0}
        if finish:
            candidate["finishReason"] = finish
        usage = {"promptTokenCount": 9, "candidatesTokenCount": 8, "totalTokenCount": 17}
        return {"candidates": [candidate], "usageMetadata": usage, "modelVersion": "gemini-2.5-flash", "responseId": rid}

    records = [record(piece) for piece in PIECES[:-1]] + [record(PIECES[-1], "STOP")]
    return b"".join(b"data: " + orjson.dumps(r) + b"\r\n\r\n" for r in records)


def interactions(rid: Any = INTERACTIONS_ID, created: bool = True) -> bytes:
    def frame(kind: str, **fields: Any) -> bytes:
        return b"event: " + kind.encode() + b"\ndata: " + orjson.dumps({**fields, "event_type": kind}) + b"\n\n"

    usage = {"total_input_tokens": 9, "total_output_tokens": 8}
    opening = frame("interaction.created", interaction={"id": rid, "status": "in_progress", "model": "gemini-3-flash"})
    return (
        (opening if created else b"")
        + frame("step.start", index=0, step={"type": "model_output"})
        + b"".join(frame("step.delta", index=0, delta={"type": "text", "text": piece}) for piece in PIECES)
        + frame("step.stop", index=0)
        + frame("interaction.completed", interaction={"id": rid, "status": "completed", "usage": usage})
        + b"event: done\ndata: [DONE]\n\n"
    )


def cohere(rid: Any = COHERE_ID) -> bytes:
    empty = {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": [], "citations": []}
    usage = {"billed_units": {"input_tokens": 9, "output_tokens": 8}, "tokens": {"input_tokens": 9, "output_tokens": 8}}
    events = [
        {"id": rid, "type": "message-start", "delta": {"message": empty}},
        {"type": "content-start", "index": 0, "delta": {"message": {"content": {"type": "text", "text": ""}}}},
        *({"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": p}}}} for p in PIECES),
        {"type": "content-end", "index": 0},
        {"type": "message-end", "delta": {"finish_reason": "COMPLETE", "usage": usage}},
    ]
    return _named(events) + b"data: [DONE]\n\n"


def bedrock_invoke(rid: Any = BEDROCK_ID) -> bytes:
    headers = [(":event-type", "chunk"), (":content-type", "application/json"), (":message-type", "event")]
    inner = claude_events(rid)
    inner[-1] = {**inner[-1], "amazon-bedrock-invocationMetrics": {"inputTokenCount": 12, "outputTokenCount": 8}}
    return b"".join(
        encode_frame(headers, orjson.dumps({"bytes": base64.b64encode(orjson.dumps(e)).decode(), "p": "abcdefgh"}))
        for e in inner
    )


def ollama() -> bytes:
    at = {"model": "qwen3:8b", "created_at": "2025-09-16T09:01:02.123456Z"}
    lines = [{**at, "message": {"role": "assistant", "content": piece}, "done": False} for piece in PIECES]
    counts = {"prompt_eval_count": 9, "eval_count": 8}
    lines.append({**at, "message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop", **counts})
    return b"".join(orjson.dumps(line) + b"\n" for line in lines)


EVENTS: list[DeltaEvent | StopEvent] = [
    *(DeltaEvent(TextDelta(piece), 0) for piece in PIECES),
    DeltaEvent(TextDone(TEXT), 0),
    StopEvent(Usage(prompt_tokens=9, response_tokens=8), "stop", 0),
]


def written(protocol: str) -> Callable[[], bytes]:
    """A stream of a wire that names no response, as its writer writes it."""
    return lambda: unievent.encode(EVENTS, protocol)


#: each protocol's stream and the id it names (None: its wire has no place for one)
STREAMS: dict[str, tuple[Callable[[], bytes], str | None]] = {
    "openai_chat": (chat, CHAT_ID),
    "anthropic": (anthropic, ANTHROPIC_ID),
    "openai_responses": (responses, RESPONSES_ID),
    "gemini": (gemini, GEMINI_ID),
    "gemini_interactions": (interactions, INTERACTIONS_ID),
    "cohere": (cohere, COHERE_ID),
    "bedrock_invoke": (bedrock_invoke, BEDROCK_ID),
    "ollama": (ollama, None),
    "bedrock_converse": (written("bedrock_converse"), None),
    "mmsp": (written("mmsp"), None),
}
#: the wires that name their response (as `writer.options.response_id`)
CARRIERS = frozenset(("openai_chat", "anthropic", "openai_responses", "gemini", "gemini_interactions", "cohere", "bedrock_invoke"))
TARGETS = sorted(set(WRITERS) - {"openai_embeddings"})  # one body of vectors: no stream
WITH_ID = [name for name, (_, rid) in STREAMS.items() if rid is not None]
#: the streams above whose builder takes the id's value
TAKES_ID: dict[str, Callable[[Any], bytes]] = {
    "openai_chat": chat,
    "anthropic": anthropic,
    "openai_responses": responses,
    "gemini": gemini,
    "gemini_interactions": interactions,
    "cohere": cohere,
    "bedrock_invoke": bedrock_invoke,
}


def outcome_of(protocol: str, body: bytes) -> Outcome:
    return decode_stream(protocol, body)[1]


# --- decoding -----------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", sorted(STREAMS))
def test_the_outcome_keeps_the_providers_response_id_in_every_split(protocol: str) -> None:
    build, rid = STREAMS[protocol]
    _, outcome = split_everywhere(protocol, build())
    assert outcome.end == "complete" and outcome.message.items == (TextDone(TEXT),)
    assert outcome.response_id == rid


@pytest.mark.parametrize("protocol", ["openai_chat", "gemini", "anthropic"])
def test_frames_taken_on_demand_keep_the_id_the_full_path_read(protocol: str) -> None:
    build, rid = STREAMS[protocol]
    for slow in (False, True):
        decoder = decoder_on_path(protocol, slow, stream_id="s", clock=lambda: 0)
        decoder.push(build())
        _, outcome = decoder.finish()
        assert outcome.response_id == rid
        assert (decoder.fast_frames > 0) is not slow


@pytest.mark.parametrize("protocol", sorted(TAKES_ID))
@pytest.mark.parametrize("value", [7, 1.5, True, ["x"], {"id": "x"}, ""], ids=repr)
def test_an_id_of_the_wrong_type_or_empty_is_no_id(protocol: str, value: Any) -> None:
    outcome = outcome_of(protocol, TAKES_ID[protocol](value))
    assert outcome.end == "complete" and outcome.message.items == (TextDone(TEXT),)
    assert outcome.response_id is None


def test_a_chat_gateway_that_varies_the_id_per_chunk_gives_the_first_non_empty_one() -> None:
    frames = [orjson.loads(line[6:]) for line in chat().split(b"\n\n") if line.startswith(b"data: {")]
    frames[0]["id"] = ""  # Azure's first chunk (prompt_filter_results) has an empty id
    for n, frame in enumerate(frames[1:], 1):
        frame["id"] = f"gen-{n}"
    outcome = split_everywhere("openai_chat", sse(*frames))[1]
    assert outcome.response_id == "gen-1"


def test_several_anthropic_messages_keep_the_first_messages_id() -> None:
    first, second = claude_events("msg_first"), claude_events("msg_second")
    first[-2] = {"type": "message_delta", "delta": {"stop_reason": None}, "usage": {"output_tokens": 8}}
    outcome = outcome_of("anthropic", _named(first[:-1] + second))
    assert outcome.end == "complete"
    assert outcome.response_id == "msg_first"


def test_an_interaction_without_its_created_event_names_its_id_at_the_end() -> None:
    outcome = split_everywhere("gemini_interactions", interactions(created=False))[1]
    assert outcome.response_id == INTERACTIONS_ID


def test_auto_cut_and_cancelled_streams_keep_the_id_that_arrived() -> None:
    body = anthropic()
    assert outcome_of("auto", body).response_id == ANTHROPIC_ID
    cut = outcome_of("anthropic", body[: body.index(b"content_block_stop")])
    assert (cut.end, cut.response_id) == ("truncated", ANTHROPIC_ID)
    decoder = unievent.StreamDecoder("openai_chat")
    decoder.push(chat()[:300])
    cancelled = decoder.abort()
    assert (cancelled.end, cancelled.response_id) == ("cancelled", CHAT_ID)


def test_the_id_read_where_it_was_read_before_is_still_there() -> None:
    assert outcome_of("openai_responses", responses()).extras["response_id"] == RESPONSES_ID
    assert outcome_of("gemini", gemini()).extras["response_id"] == GEMINI_ID
    assert outcome_of("cohere", cohere()).extras["response_id"] == COHERE_ID
    assert outcome_of("gemini_interactions", interactions()).extras["interaction_id"] == INTERACTIONS_ID


# --- writing --------------------------------------------------------------------------------


def read_back(target: str, body: bytes) -> Outcome:
    outcome = outcome_of(target, body)
    assert outcome.end == "complete" and outcome.message.items == (TextDone(TEXT),), target
    return outcome


@pytest.mark.parametrize("target", TARGETS)
@pytest.mark.parametrize("source", sorted(STREAMS))
def test_transcode_carries_the_source_id_where_the_target_has_a_place(source: str, target: str) -> None:
    build, rid = STREAMS[source]
    body = build()
    pieces = [body[i : i + 97] for i in range(0, len(body), 97)]
    out = b"".join(unievent.transcode(pieces, source, target))
    want = (rid or "resp_unievent") if target in CARRIERS else None
    assert read_back(target, out).response_id == want


@pytest.mark.parametrize("target", sorted(CARRIERS))
@pytest.mark.parametrize("source", WITH_ID)
def test_a_response_id_the_user_names_wins(source: str, target: str) -> None:
    out = b"".join(unievent.transcode([STREAMS[source][0]()], source, target, response_id="resp_gateway_1"))
    assert read_back(target, out).response_id == "resp_gateway_1"


@pytest.mark.parametrize("target", sorted(CARRIERS))
def test_encode_writes_the_response_id_it_is_given(target: str) -> None:
    assert read_back(target, unievent.encode(EVENTS, target, response_id="resp_given")).response_id == "resp_given"
    assert read_back(target, unievent.encode(EVENTS, target)).response_id == "resp_unievent"


def test_gemini_as_one_json_array_carries_it_too() -> None:
    out = b"".join(unievent.transcode([anthropic()], "anthropic", "gemini", framing="json_array"))
    assert out.startswith(b"[") and read_back("gemini", out).response_id == ANTHROPIC_ID


# Chat's and Gemini's in-stream error is the provider's error object alone
@pytest.mark.parametrize("target", sorted(CARRIERS - {"openai_chat", "gemini"}))
def test_a_source_that_fails_before_any_event_names_its_id_in_the_targets_error(target: str) -> None:
    error = {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
    failing = [claude_events(ANTHROPIC_ID)[0], error]
    out = b"".join(unievent.transcode([_named(failing)], "anthropic", target))
    outcome = outcome_of(target, out)
    assert outcome.end == "failed" and outcome.response_id == ANTHROPIC_ID


def test_atranscode_and_the_asgi_response_carry_it() -> None:
    async def chunks() -> AsyncIterator[bytes]:
        body = responses()
        for i in range(0, len(body), 64):
            yield body[i : i + 64]

    async def relay() -> tuple[bytes, bytes]:
        piped = b"".join([data async for data in unievent.atranscode(chunks(), "auto", "anthropic")])
        sent: list[MutableMapping[str, Any]] = []

        async def send(message: MutableMapping[str, Any]) -> None:
            sent.append(message)

        async def receive() -> MutableMapping[str, Any]:
            return {"type": "http.disconnect"}

        await unievent.TranscodedResponse(chunks(), "openai_responses", "openai_chat")({"type": "http"}, receive, send)
        return piped, b"".join(m.get("body", b"") for m in sent)

    piped, served = asyncio.run(relay())
    assert read_back("anthropic", piped).response_id == RESPONSES_ID
    assert read_back("openai_chat", served).response_id == RESPONSES_ID


# --- the command line -----------------------------------------------------------------------


def test_the_command_line_shows_it_and_transcode_may_name_another(tmp_path: Path) -> None:
    path = tmp_path / "body.sse"
    path.write_bytes(anthropic())
    run = [sys.executable, "-m", "unievent"]
    shown = subprocess.run([*run, "decode", str(path), "--format", "outcome"], capture_output=True, check=True, timeout=60)
    assert orjson.loads(shown.stdout)["response_id"] == ANTHROPIC_ID
    summary = subprocess.run([*run, "decode", str(path)], capture_output=True, check=True, timeout=60)
    assert f"  response id: {ANTHROPIC_ID}" in summary.stderr.decode().splitlines()
    carried = subprocess.run([*run, "transcode", str(path), "--to", "cohere"], capture_output=True, check=True, timeout=60)
    assert read_back("cohere", carried.stdout).response_id == ANTHROPIC_ID
    named = [*run, "transcode", str(path), "--to", "cohere", "--response-id", "resp_cli"]
    renamed = subprocess.run(named, capture_output=True, check=True, timeout=60)
    assert read_back("cohere", renamed.stdout).response_id == "resp_cli"
