"""`protocol="auto"`: finding the protocol from the URL, the content type, then the frames.

Precedence (README "Finding the protocol"): the URL's path names the API; the content
type names the framing only; otherwise the first frame that any rule recognizes
decides, and the frames before it are held and replayed, so `auto` gives what the right
explicit protocol gives, in any split.  With an explicit protocol, frames that never
match it but look like another protocol's end `failed` with `wrong_protocol`, naming it.
"""

from __future__ import annotations

import asyncio
import json
import re
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import attrs
import pytest

import unievent
import unievent._cli
from tests.helpers import chunk, decode_stream, split_at, split_everywhere, sse
from unievent import Outcome, TextDone

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"
CONFORMANCE = Path(__file__).resolve().parent / "conformance"


def run(protocol: str, body: bytes | list[bytes], **options: Any) -> tuple[list[Any], Outcome]:
    return decode_stream(protocol, body, **options)


def same_as_explicit(protocol: str, body: bytes | list[bytes], **auto_options: Any) -> Outcome:
    """Decode with `auto` and with `protocol`: the same events and outcome, apart from
    `detected_by`.  Returns the auto outcome."""
    explicit = run(protocol, body)
    events, outcome = run("auto", body, **auto_options)
    assert outcome.protocol == protocol
    assert outcome.detected_by
    assert (events, attrs.evolve(outcome, detected_by=None)) == explicit
    return outcome


def every_split(protocol: str, body: bytes, **options: Any) -> tuple[list[Any], Outcome]:
    return split_everywhere(protocol, body, **options)


def anthropic_frame(kind: str, **fields: Any) -> bytes:
    return f"event: {kind}\ndata: {json.dumps({'type': kind, **fields})}\n\n".encode()


ANTHROPIC = (
    anthropic_frame("message_start", message={"id": "m", "model": "claude", "usage": {"input_tokens": 3}})
    + anthropic_frame("content_block_start", index=0, content_block={"type": "text", "text": ""})
    + anthropic_frame("content_block_delta", index=0, delta={"type": "text_delta", "text": "Hi"})
    + anthropic_frame("content_block_stop", index=0)
    + anthropic_frame("message_delta", delta={"stop_reason": "end_turn"}, usage={"output_tokens": 1})
    + anthropic_frame("message_stop")
)
CHAT = sse(chunk({"role": "assistant", "content": "Hi"}), chunk({}, "stop"))
GATEWAY_CHAT = sse({"choices": [{"index": 0, "delta": {"content": "Hi"}}]}, {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]})
RESPONSES = sse(
    {"type": "response.created", "response": {"id": "r", "model": "gpt", "status": "in_progress"}},
    {"type": "response.output_text.delta", "item_id": "i", "output_index": 0, "content_index": 0, "delta": "Hi"},
    {"type": "response.completed", "response": {"id": "r", "model": "gpt", "status": "completed"}},
    done=False,
)
GEMINI_CHUNKS: list[dict[str, Any]] = [
    {"candidates": [{"content": {"role": "model", "parts": [{"text": "Hi"}]}}], "modelVersion": "gemini"},
    {"candidates": [{"content": {"role": "model", "parts": [{"text": "!"}]}, "finishReason": "STOP"}]},
]
GEMINI_SSE = sse(*GEMINI_CHUNKS, done=False)
GEMINI_ARRAY = json.dumps(GEMINI_CHUNKS, indent=1).encode()
INTERACTIONS = sse(
    {"event_type": "interaction.created", "interaction": {"id": "x", "model": "gemini", "status": "in_progress"}},
    {"event_type": "step.start", "index": 0, "step": {"type": "model_output"}},
    {"event_type": "step.delta", "index": 0, "delta": {"type": "text", "text": "Hi"}},
    {"event_type": "step.stop", "index": 0},
    {"event_type": "interaction.completed", "interaction": {"id": "x", "status": "completed"}},
    done=False,
)
MMSP = sse(
    {"role": "assistant", "event_type": "delta", "content_items": [{"type": "text.delta", "text": "Hi"}], "usage_metadata": None, "finish_reason": None, "created_at": 1},
    {"role": "assistant", "event_type": "delta", "content_items": [{"type": "text.done", "text": "Hi"}], "usage_metadata": None, "finish_reason": None, "created_at": 1},
    {"role": "assistant", "event_type": "stop", "content_items": [], "usage_metadata": {"cached_tokens": None, "prompt_tokens": 1, "thoughts_tokens": None, "response_tokens": None}, "finish_reason": "stop", "created_at": 2},
)
OPENAI_EMBEDDINGS = b'{"object": "list", "data": [{"object": "embedding", "index": 0, "embedding": [0.5]}], "usage": {"prompt_tokens": 1}}'
GEMINI_EMBEDDINGS = b'{"embeddings": [{"values": [0.5]}, {"values": [1]}]}'

#: (the protocol, a body in its wire format, what `detected_by` says)
BY_FIRST_FRAME = [
    ("anthropic", ANTHROPIC, "frame 1: type 'message_start'"),
    ("openai_chat", CHAT, "frame 1: object chat.completion.chunk"),
    ("openai_chat", GATEWAY_CHAT, "frame 1: a choices list"),
    ("openai_responses", RESPONSES, "frame 1: type 'response.created'"),
    ("gemini", GEMINI_SSE, "frame 1: a candidates list"),
    ("gemini", GEMINI_ARRAY, "frame 1: a candidates list"),
    ("gemini_interactions", INTERACTIONS, "frame 1: event_type 'interaction.created'"),
    ("mmsp", MMSP, "frame 1: a UniEvent (event_type 'delta' with content_items)"),
    ("openai_embeddings", OPENAI_EMBEDDINGS, "frame 1: a data list of embeddings"),
    ("gemini_embeddings", GEMINI_EMBEDDINGS, "frame 1: embedding values"),
]


# --- the first frame ------------------------------------------------------------------


@pytest.mark.parametrize(("protocol", "body", "why"), BY_FIRST_FRAME, ids=[f"{p}-{w}" for p, _, w in BY_FIRST_FRAME])
def test_the_first_frame_names_the_protocol_in_any_split(protocol: str, body: bytes, why: str) -> None:
    outcome = same_as_explicit(protocol, body)
    assert outcome.detected_by == why
    assert outcome.end == "complete"
    whole = run("auto", body)
    assert every_split("auto", body) == whole


def test_frames_that_decide_nothing_are_held_and_replayed() -> None:
    status = b'data: {"status": "queued"}\n\n'  # a gateway's frame of no protocol
    body = status + b": keep-alive\n\n" + status + ANTHROPIC
    outcome = same_as_explicit("anthropic", body)
    assert outcome.detected_by == "frame 3: type 'message_start'"
    _, whole = every_split("auto", body)
    assert whole.message.items == (TextDone("Hi"),)


def test_an_event_name_decides_when_the_data_has_no_type() -> None:
    body = b'event: message_start\ndata: {"message": {"id": "m"}}\n\n' + ANTHROPIC
    outcome = same_as_explicit("anthropic", body)
    assert outcome.detected_by == "frame 1: the event name 'message_start'"


def test_an_error_frame_decides_nothing_but_fails_the_stream() -> None:
    events, outcome = every_split("auto", b'event: error\ndata: {"error": {"type": "overloaded_error", "message": "busy"}}\n\n')
    assert events == []
    assert outcome.end == "failed"
    assert outcome.error is not None and outcome.error.message == "busy"
    assert outcome.protocol == "auto"
    assert outcome.detected_by is None


def test_an_error_before_the_first_frame_of_content_is_read_by_the_chosen_protocol() -> None:
    error = b'data: {"error": {"message": "rate limited", "type": "rate_limit"}}\n\n'
    _, outcome = run("auto", error + CHAT)
    _, explicit = run("openai_chat", error + CHAT)
    assert outcome.protocol == "openai_chat"
    assert (outcome.end, outcome.error) == (explicit.end, explicit.error)


def test_a_body_of_frames_of_no_protocol_is_not_an_event_stream_and_kept() -> None:
    body = b'data: {"hello": 1}\n\ndata: {"hello": 2}\n\n'
    _, outcome = every_split("auto", body)
    assert outcome.end == "not_event_stream"
    assert outcome.protocol == "auto"
    assert outcome.body == '{"hello": 1}\n{"hello": 2}'


def test_held_frames_are_capped_then_the_body_is_no_event_stream() -> None:
    body = b'data: {"n": 0}\n\n' * 100 + CHAT
    _, outcome = run("auto", body)
    assert outcome.end == "not_event_stream"
    assert outcome.body is not None and outcome.body.count('{"n": 0}') == 64


@pytest.mark.parametrize(
    ("body", "end"),
    [
        (b"", "truncated"),
        (b": keep-alive\n\n", "truncated"),
        (b"data: [DONE]\n\n", "complete"),  # as every SSE protocol reads a bare [DONE]
        (b"<html><body>502 Bad Gateway</body></html>", "not_event_stream"),
        (b"data: not json\n\n", "truncated"),  # a skipped frame, as everywhere
    ],
)
def test_a_body_that_names_no_protocol_ends_as_any_protocol_would(body: bytes, end: str) -> None:
    _, outcome = every_split("auto", body)
    assert outcome.end == end
    assert outcome.protocol == "auto"
    assert run("openai_chat", body)[1].end == end


# --- the URL and the content type -----------------------------------------------------


@pytest.mark.parametrize(
    ("url", "protocol", "marker"),
    [
        ("https://api.openai.com/v1/chat/completions", "openai_chat", "/chat/completions"),
        ("https://openrouter.ai/api/v1/chat/completions?x=1", "openai_chat", "/chat/completions"),
        ("https://api.anthropic.com/v1/messages?beta=true", "anthropic", "/messages"),
        ("https://api.openai.com/v1/responses", "openai_responses", "/responses"),
        (
            "https://generativelanguage.googleapis.com/v1beta/models/gemini-2.5-flash:streamGenerateContent?alt=sse",
            "gemini",
            ":streamGenerateContent",
        ),
        ("https://generativelanguage.googleapis.com/v1beta/interactions", "gemini_interactions", "/interactions"),
        ("http://localhost:8000/v1/stream", "mmsp", "/v1/stream"),
        ("https://api.openai.com/v1/embeddings", "openai_embeddings", "/embeddings"),
        ("https://generativelanguage.googleapis.com/v1beta/models/e:embedContent", "gemini_embeddings", ":embedContent"),
        (
            "https://generativelanguage.googleapis.com/v1beta/models/e:batchEmbedContents",
            "gemini_embeddings",
            ":batchEmbedContents",
        ),
    ],
)
def test_the_url_path_names_the_protocol(url: str, protocol: str, marker: str) -> None:
    decoder = unievent.StreamDecoder("auto", url=url)
    assert decoder.protocol == protocol
    _, outcome = decoder.finish()
    assert outcome.protocol == protocol
    assert outcome.detected_by == f"the URL path has {marker}"


def test_a_url_that_names_nothing_leaves_it_to_the_frames() -> None:
    outcome = same_as_explicit("anthropic", ANTHROPIC, url="https://gateway.example/v1/proxy?to=/chat/completions")
    assert outcome.detected_by == "frame 1: type 'message_start'"  # the query is not the path


def test_the_url_wins_over_the_frames_and_a_mismatch_is_named() -> None:
    _, outcome = run("auto", CHAT, url="https://api.anthropic.com/v1/messages")
    assert outcome.protocol == "anthropic"
    assert outcome.end == "failed"
    assert outcome.error is not None
    assert outcome.error.message == "anthropic: the frames look like openai_chat, not anthropic"


@pytest.mark.parametrize("content_type", ["application/json", "Application/JSON; charset=UTF-8"])
def test_a_json_content_type_reads_an_array_or_one_body(content_type: str) -> None:
    same_as_explicit("gemini", GEMINI_ARRAY, content_type=content_type)
    same_as_explicit("openai_embeddings", OPENAI_EMBEDDINGS, content_type=content_type)


def test_an_event_stream_content_type_reads_sse_only() -> None:
    same_as_explicit("gemini", GEMINI_SSE, content_type="text/event-stream; charset=utf-8")
    _, outcome = run("auto", GEMINI_ARRAY, content_type="text/event-stream")
    assert outcome.end == "not_event_stream"  # an array is no SSE


def test_an_unknown_content_type_names_no_framing() -> None:
    same_as_explicit("gemini", GEMINI_ARRAY, content_type="application/octet-stream")


def test_the_content_type_narrows_an_explicit_protocols_framings() -> None:
    _, outcome = run("gemini", GEMINI_ARRAY, content_type="text/event-stream")
    assert outcome.end == "not_event_stream"
    _, outcome = run("gemini", GEMINI_ARRAY, content_type="application/json")
    assert outcome.end == "complete"


def test_an_unknown_protocol_lists_auto_among_the_known() -> None:
    with pytest.raises(unievent.DecoderUsageError, match="known: auto, anthropic"):
        unievent.StreamDecoder("nope")  # type: ignore[call-overload]


# --- an explicit protocol that is wrong -----------------------------------------------


@pytest.mark.parametrize(("protocol", "body", "_why"), BY_FIRST_FRAME[:8], ids=[p + str(i) for i, (p, _, _) in enumerate(BY_FIRST_FRAME[:8])])
def test_frames_of_another_protocol_are_named(protocol: str, body: bytes, _why: str) -> None:
    for other in ("openai_chat", "anthropic", "openai_responses", "gemini", "gemini_interactions", "mmsp"):
        if other == protocol:
            continue
        _, outcome = run(other, body)
        if body is GEMINI_ARRAY:  # not SSE at all
            assert outcome.end == "not_event_stream", other
            continue
        assert outcome.end == "failed", other
        assert outcome.error is not None
        assert outcome.error.type == "wrong_protocol"
        assert outcome.error.message == f"{other}: the frames look like {protocol}, not {other}"


def test_an_array_body_given_to_a_json_body_protocol_is_named() -> None:
    _, outcome = run("openai_embeddings", GEMINI_ARRAY)
    assert outcome.error is not None
    assert outcome.error.message == "openai_embeddings: the frames look like gemini, not openai_embeddings"


def test_a_bare_done_after_frames_of_another_protocol_is_no_success() -> None:
    _, outcome = run("openai_chat", RESPONSES + b"data: [DONE]\n\n")
    assert outcome.end == "failed"
    assert outcome.error is not None and outcome.error.type == "wrong_protocol"


def test_a_protocol_that_matches_later_is_not_called_wrong() -> None:
    body = RESPONSES.split(b"\n\n")[0] + b"\n\n" + CHAT  # one stray frame, then chat
    _, outcome = run("openai_chat", body)
    assert outcome.end == "complete"


def test_a_watched_frame_is_sniffed_from_the_handlers_parse(monkeypatch: pytest.MonkeyPatch) -> None:
    # the first frames of an explicit protocol are sniffed for another protocol: from the
    # object the handler parsed, so that no frame is parsed twice; only a payload that
    # gave the handler no object (here `[DONE]`) is parsed for the sniff
    parses: list[bytes] = []
    sniff = unievent._decoder.from_payload  # type: ignore[attr-defined]

    def counted(event: str | None, payload: bytes) -> Any:
        parses.append(payload)
        return sniff(event, payload)

    monkeypatch.setattr(unievent._decoder, "from_payload", counted)
    for protocol, body in (("openai_responses", RESPONSES), ("openai_chat", CHAT), ("anthropic", ANTHROPIC)):
        _, outcome = run(protocol, body)
        assert outcome.end == "complete"
        _, outcome = run("openai_chat" if protocol != "openai_chat" else "anthropic", body)
        assert outcome.error is not None and outcome.error.type == "wrong_protocol"
    assert parses == [b"[DONE]"]


# --- the same options everywhere ------------------------------------------------------


def test_iter_events_and_aiter_events_take_auto_with_url_and_content_type() -> None:
    url = "https://api.anthropic.com/v1/messages"
    expected = run("anthropic", ANTHROPIC)[0]
    got = list(unievent.iter_events([ANTHROPIC], "auto", url=url, content_type="text/event-stream", stream_id="s", clock=lambda: 0))
    assert got == expected

    async def pieces() -> AsyncIterator[bytes]:
        for i in range(0, len(GEMINI_ARRAY), 7):
            yield GEMINI_ARRAY[i : i + 7]

    async def collect() -> list[Any]:
        return [e async for e in unievent.aiter_events(pieces(), "auto", content_type="application/json", stream_id="s", clock=lambda: 0)]

    assert asyncio.run(collect()) == run("gemini", GEMINI_ARRAY)[0]


def test_the_cli_finds_the_protocol_by_default(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = tmp_path / "body"
    body.write_bytes(ANTHROPIC)
    assert unievent._cli.main(["decode", str(body)]) == 0
    err = capsys.readouterr().err
    assert "protocol: anthropic (auto: frame 1: type 'message_start')" in err
    assert unievent._cli.main(["decode", str(body), "--url", "https://x/v1/chat/completions"]) == 1
    assert "openai_chat: the frames look like anthropic, not openai_chat" in capsys.readouterr().err
    body.write_bytes(GEMINI_ARRAY)
    assert unievent._cli.main(["decode", str(body), "--content-type", "text/event-stream"]) == 1
    assert "outcome: not_event_stream" in capsys.readouterr().err


# --- every recorded stream and every hand-written stream of the suite ------------------


def _corpus() -> list[dict[str, Any]]:
    manifest = CORPUS / "manifest.json"
    if not manifest.exists():
        return []
    entries: list[dict[str, Any]] = json.loads(manifest.read_text())
    return [e for e in entries if e["protocol"] in unievent.PROTOCOLS]


CORPUS_ENTRIES = _corpus()
needs_corpus = pytest.mark.skipif(not CORPUS_ENTRIES, reason="no recorded corpus at ../shared/corpus")


@needs_corpus
@pytest.mark.parametrize("entry", CORPUS_ENTRIES, ids=[e["file"] for e in CORPUS_ENTRIES])
def test_auto_decodes_every_recorded_stream_as_its_protocol(entry: dict[str, Any]) -> None:
    data = (CORPUS / entry["file"]).read_bytes()
    same_as_explicit(entry["protocol"], data)
    same_as_explicit(entry["protocol"], split_at(data, list(range(1, len(data), 97))))
    if entry.get("recorded_request_uri"):
        outcome = same_as_explicit(entry["protocol"], data, url=entry["recorded_request_uri"])
        assert outcome.detected_by is not None and outcome.detected_by.startswith("the URL path has ")
    if entry.get("recorded_content_type"):
        same_as_explicit(entry["protocol"], data, content_type=entry["recorded_content_type"])


@needs_corpus
@pytest.mark.parametrize("entry", CORPUS_ENTRIES, ids=[e["file"] for e in CORPUS_ENTRIES])
def test_every_recorded_stream_given_another_protocol_is_named_or_fails_on_its_error(entry: dict[str, Any]) -> None:
    data = (CORPUS / entry["file"]).read_bytes()
    _, right = run(entry["protocol"], data)
    for other, spec in unievent.PROTOCOLS.items():
        if other == entry["protocol"]:
            continue
        _, outcome = run(other, data)
        if entry["wire_format"] not in spec.framings[0]:  # e.g. SSE given to a JSON body
            assert outcome.end in ("not_event_stream", "failed"), other
        elif outcome.error is not None and outcome.error.type == "wrong_protocol":
            assert outcome.error.message == f"{other}: the frames look like {entry['protocol']}, not {other}"
        else:  # the provider's own error frame, which every protocol reads alike
            assert right.error is not None and outcome.error is not None, other
            assert outcome.end == "failed" and outcome.error.message == right.error.message, other


def _conformance_cases() -> list[dict[str, Any]]:
    return [json.loads(path.read_text()) for path in sorted(CONFORMANCE.glob("*__*.json"))]


#: hand-written streams whose frames name no protocol (so `auto` cannot tell), with why
#: their outcome differs from the explicit protocol's
NAMES_NO_PROTOCOL = {
    "anthropic__unknown_frames_past_the_retention_cap_are_counted_not_kept": "only frames of a type no protocol has",
    # nothing names the framing: one JSON object is one JSON body, no stream (as a whole
    # chat.completion is), whatever protocol its fields belong to
    "ollama__ndjson_one_object_without_a_line_end": "one whole object, not a stream of lines",
}


@pytest.mark.parametrize("case", _conformance_cases(), ids=lambda c: c["name"])
def test_auto_decodes_every_hand_written_stream_of_the_suite_as_its_protocol(case: dict[str, Any]) -> None:
    chunks = [piece.encode(case["encoding"]) for piece in case["chunks"]]
    options = {k: v for k, v in case["options"].items() if k != "stream_id"}
    try:
        explicit = run(case["protocol"], chunks, **options)
        auto = run("auto", chunks, **options)
    except unievent.UniEventError as error:  # a case that raises raises alike
        with pytest.raises(type(error)):
            run("auto", chunks, **options)
        return
    events, outcome = auto
    wrong = explicit[1].error
    if wrong is not None and wrong.type == "wrong_protocol":  # the case's body is another protocol's
        assert outcome.protocol == re.search(r"looks? like (\w+), not", wrong.message).group(1)  # type: ignore[union-attr]
        return
    if outcome.protocol == "auto":  # nothing in the stream says which protocol it is
        assert outcome.detected_by is None
        if case["name"] in NAMES_NO_PROTOCOL:
            assert outcome.end == "not_event_stream"
            return
        assert events == explicit[0]
        assert outcome.end == explicit[1].end
        return
    assert outcome.protocol == case["protocol"]
    assert (events, attrs.evolve(outcome, detected_by=None)) == explicit
