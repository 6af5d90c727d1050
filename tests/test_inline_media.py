"""Images and audio: what Gemini generateContent and the Interactions API stream of
them, what that decodes to, and how the writers write it back.

The rules (MMSP's): every image is an item of its own; consecutive audio chunks of one
type are one item, their bytes joined and their type kept; a thought image is
inline_thinking.  Base64 is read as proto3 JSON writes bytes (either alphabet, padded
or not); anything else is no data, kept on the side channel and counted, never an item.

Every stream below is written as the API sends it, and decoded whole, byte by byte, in
random splits (Hypothesis) and with the on-demand path off: the same events each time,
each list passing `unievent.validate`.  The writers' output decodes back to the same
items, fidelity included where the wire has a place for it; what it has none for is
in `dropped`.  google-genai, where installed, reads the Gemini writer's images and audio
as the same bytes.
"""

from __future__ import annotations

import base64
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import unievent
from tests.helpers import decoder_on_path, split_at
from unievent import (
    DeltaEvent,
    Event,
    InlineDataDelta,
    InlineDataDone,
    InlineThinkingDelta,
    InlineThinkingDone,
    Outcome,
    StopEvent,
    TextDelta,
    TextDone,
    ThinkingDone,
    Usage,
)

PCM = "audio/L16;codec=pcm;rate=24000"  # what Gemini's TTS models send
PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


# --- decoding, every way ------------------------------------------------------------------


def run(protocol: str, pieces: list[bytes], slow: bool = False) -> tuple[list[Any], Outcome, int]:
    """Events (checked against the grammar), outcome and the records the on-demand path took."""
    decoder = decoder_on_path(protocol, slow, stream_id="s", clock=lambda: 0, side_events=True)
    events: list[Any] = []
    for piece in pieces:
        events += decoder.push(piece)
    last, outcome = decoder.finish()
    events += last
    unievent.validate(events, partial=outcome.end != "complete")
    return events, outcome, decoder.fast_frames


def decoded(protocol: str, body: bytes) -> tuple[list[Any], Outcome, int]:
    """The body decoded whole; byte by byte and on the slow path, the very same."""
    whole = run(protocol, [body])
    assert run(protocol, [body], slow=True)[:2] == whole[:2]
    assert run(protocol, [body[i : i + 1] for i in range(len(body))])[:2] == whole[:2]
    return whole


def kinds(outcome: Outcome) -> dict[str, int]:
    return {a.kind: a.count for a in outcome.anomalies}


# --- Gemini generateContent -------------------------------------------------------------------


def record(*parts: dict[str, Any], finish: str | None = None, out: int = 1) -> dict[str, Any]:
    """One record as Google sends it: candidate 0, the usage so far, model and id."""
    candidate: dict[str, Any] = {"content": {"parts": list(parts), "role": "model"}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    usage = {"promptTokenCount": 7, "candidatesTokenCount": out, "totalTokenCount": 7 + out}
    return {
        "candidates": [candidate],
        "usageMetadata": usage,
        "modelVersion": "gemini-2.5-flash-image",
        "responseId": "r1",
    }


def inline(data: bytes | str, mime: str, **extra: Any) -> dict[str, Any]:
    return {"inlineData": {"mimeType": mime, "data": data if isinstance(data, str) else b64(data)}, **extra}


def last(*parts: dict[str, Any]) -> dict[str, Any]:
    return record(*parts, finish="STOP", out=1290)


def sse(records: list[dict[str, Any]]) -> bytes:
    return b"".join(b"data: " + orjson.dumps(r) + b"\r\n\r\n" for r in records)


def array(records: list[dict[str, Any]]) -> bytes:
    """`streamGenerateContent` without `alt=sse`: one pretty-printed JSON array."""
    return b"[" + b"\n,\r\n".join(orjson.dumps(r, option=orjson.OPT_INDENT_2) for r in records) + b"\n]"


URL_SAFE = b"\xfb\xff\xbf\xfe"  # base64 with `+` and `/` in it: `-` and `_` in the URL-safe alphabet

GEMINI: dict[str, tuple[list[dict[str, Any]], tuple[Any, ...]]] = {
    "two images in one answer are two items": (
        [
            record({"text": "Here are two cats."}),
            record(inline(PNG, "image/png")),
            record(inline(PNG + b"2", "image/png", thoughtSignature="c2lnMg==")),
            last(),
        ],
        (
            TextDone("Here are two cats."),
            InlineDataDone(PNG, "image/png"),
            InlineDataDone(PNG + b"2", "image/png", {"signature": "c2lnMg=="}),
        ),
    ),
    "an image between texts splits them": (
        [
            record({"text": "A cat"}),
            record({"text": " on a mat"}),
            record({"text": ":"}),
            record(inline(JPEG, "image/jpeg")),
            record({"text": "Do you"}),
            record({"text": " like it?"}),
            last({"text": ""}),
        ],
        (TextDone("A cat on a mat:"), InlineDataDone(JPEG, "image/jpeg"), TextDone("Do you like it?")),
    ),
    "TTS audio in several chunks is one item, bytes joined, type kept": (
        [
            record(inline(bytes(range(40)), PCM)),
            record(inline(bytes(range(40, 90)), PCM)),
            last(inline(b"\x7f\x80", PCM)),
        ],
        (InlineDataDone(bytes(range(90)) + b"\x7f\x80", PCM),),
    ),
    "audio then text": (
        [record(inline(b"\x01\x02", PCM)), record(inline(b"\x03", PCM)), last({"text": "That was it."})],
        (InlineDataDone(b"\x01\x02\x03", PCM), TextDone("That was it.")),
    ),
    "a thought image is inline thinking, the final image inline data": (
        [
            record({"text": "Composing the scene", "thought": True}),
            record(inline(b"draft", "image/png", thought=True)),
            record(inline(PNG, "image/png", thoughtSignature="c2ln")),
            last(),
        ],
        (
            ThinkingDone("Composing the scene"),
            InlineThinkingDone(b"draft", "image/png"),
            InlineDataDone(PNG, "image/png", {"signature": "c2ln"}),
        ),
    ),
    "base64 of either alphabet, padded or not, is read; anything else is not": (
        [
            record(inline("%%%%", "image/png")),
            record(inline("not base64!", "image/png")),
            record(inline(base64.urlsafe_b64encode(URL_SAFE).decode().rstrip("="), "image/png")),
            record(inline(b64(b"ab").rstrip("="), "image/png")),
            last({"text": "Two made it."}),
        ],
        (InlineDataDone(URL_SAFE, "image/png"), InlineDataDone(b"ab", "image/png"), TextDone("Two made it.")),
    ),
}
GEMINI_BODIES = [framing(records) for records, _ in GEMINI.values() for framing in (sse, array)]


@pytest.mark.parametrize("framing", [sse, array], ids=["sse", "json_array"])
@pytest.mark.parametrize("name", list(GEMINI))
def test_gemini_streams_decode_to_their_items(name: str, framing: Any) -> None:
    records, items = GEMINI[name]
    events, outcome, _ = decoded("gemini", framing(records))
    assert outcome.end == "complete" and outcome.message.items == items
    if name.startswith("base64"):
        assert kinds(outcome) == {"inline_data_not_base64": 2}
        side = [e.data for e in events if isinstance(e, unievent.SideEvent)]
        assert side == [
            records[0]["candidates"][0]["content"]["parts"][0],
            records[1]["candidates"][0]["content"]["parts"][0],
        ]
    else:
        assert outcome.anomalies == ()


def test_text_around_an_image_takes_the_on_demand_path_and_decodes_the_same() -> None:
    records, _ = GEMINI["an image between texts splits them"]
    assert decoded("gemini", sse(records))[2] > 0


# --- the Interactions API ---------------------------------------------------------------------


def ev(event_type: str, **fields: Any) -> dict[str, Any]:
    return {**fields, "event_type": event_type}


def wire(*frames: dict[str, Any]) -> bytes:
    body = b"".join(b"event: " + f["event_type"].encode() + b"\ndata: " + orjson.dumps(f) + b"\n\n" for f in frames)
    return body + b"event: done\ndata: [DONE]\n\n"


def interaction(*steps: list[dict[str, Any]]) -> bytes:
    """An interaction whose steps (index from 0) each hold their deltas."""
    frames = [
        ev(
            "interaction.created",
            interaction={"id": "v1_m", "status": "in_progress", "model": "gemini-3-pro-image-preview"},
        ),
        ev("interaction.status_update", interaction_id="v1_m", status="in_progress"),
    ]
    for index, (start, *deltas) in enumerate(steps):
        frames.append(ev("step.start", index=index, step=start))
        frames += [ev("step.delta", index=index, delta=delta) for delta in deltas]
        frames.append(ev("step.stop", index=index))
    usage = {"total_input_tokens": 7, "total_output_tokens": 1290}
    frames.append(ev("interaction.completed", interaction={"id": "v1_m", "status": "completed", "usage": usage}))
    return wire(*frames)


def image(data: bytes, mime: str = "image/png") -> dict[str, Any]:
    return {"type": "image", "data": b64(data), "mime_type": mime}


def audio(data: bytes) -> dict[str, Any]:
    return {"type": "audio", "data": b64(data), "mime_type": "audio/l16", "sample_rate": 24000, "channels": 1}


OUTPUT, THOUGHT = {"type": "model_output"}, {"type": "thought"}
AUDIO = "audio/l16; rate=24000; channels=1"  # the decoder composes the fields as MMSP does

INTERACTIONS: dict[str, tuple[bytes, tuple[Any, ...]]] = {
    "an image output, its thought image signed": (
        interaction(
            [
                THOUGHT,
                {"type": "thought_summary", "content": image(b"draft")},
                {"type": "thought_signature", "signature": "c2ln"},
            ],
            [OUTPUT, image(PNG), image(PNG + b"2")],
        ),
        (
            InlineThinkingDone(b"draft", "image/png", {"signature": "c2ln"}),
            InlineDataDone(PNG, "image/png"),
            InlineDataDone(PNG + b"2", "image/png"),
        ),
    ),
    "audio chunks are one item, rate and channels in its type": (
        interaction([OUTPUT, audio(bytes(range(30))), audio(bytes(range(30, 61))), audio(b"\x7f")]),
        (InlineDataDone(bytes(range(61)) + b"\x7f", AUDIO),),
    ),
    "an image then text, in one step": (
        interaction(
            [
                OUTPUT,
                image(JPEG, "image/jpeg"),
                {"type": "text", "text": "A cat"},
                {"type": "text", "text": " on a mat."},
            ]
        ),
        (InlineDataDone(JPEG, "image/jpeg"), TextDone("A cat on a mat.")),
    ),
    "an image on the step's start, then text in the next step": (
        interaction(
            [{"type": "model_output", "content": [image(JPEG, "image/jpeg")]}],
            [OUTPUT, {"type": "text", "text": "A cat."}],
        ),
        (InlineDataDone(JPEG, "image/jpeg"), TextDone("A cat.")),
    ),
}


@pytest.mark.parametrize("name", list(INTERACTIONS))
def test_interactions_streams_decode_to_their_items(name: str) -> None:
    body, items = INTERACTIONS[name]
    _, outcome, _ = decoded("gemini_interactions", body)
    assert outcome.end == "complete" and outcome.message.items == items and outcome.anomalies == ()


def test_interactions_media_by_uri_has_no_bytes_and_goes_to_the_side_channel() -> None:
    by_uri = {"type": "image", "uri": "https://example.com/cat.png", "mime_type": "image/png"}
    events, outcome, _ = decoded(
        "gemini_interactions", interaction([OUTPUT, by_uri, {"type": "text", "text": "A cat."}])
    )
    assert outcome.message.items == (TextDone("A cat."),) and outcome.anomalies == ()
    assert [e.data for e in events if isinstance(e, unievent.SideEvent)] == [by_uri]


def test_interactions_data_that_is_not_base64_is_no_item() -> None:
    body = interaction([OUTPUT, {"type": "image", "data": "%%%%", "mime_type": "image/png"}, image(PNG)])
    _, outcome, _ = decoded("gemini_interactions", body)
    assert outcome.message.items == (InlineDataDone(PNG, "image/png"),)
    assert kinds(outcome) == {"inline_data_not_base64": 1}


# --- any split ----------------------------------------------------------------------------------

BODIES = [("gemini", body) for body in GEMINI_BODIES] + [
    ("gemini_interactions", body) for body, _ in INTERACTIONS.values()
]


@settings(max_examples=60, deadline=None)
@given(st.data())
def test_every_stream_decodes_the_same_in_any_split_on_either_path(data: st.DataObject) -> None:
    protocol, body = data.draw(st.sampled_from(BODIES))
    cuts = data.draw(st.lists(st.integers(1, len(body) - 1), max_size=40))
    slow = data.draw(st.booleans())
    assert run(protocol, split_at(body, cuts), slow)[:2] == run(protocol, [body])[:2]


# --- writing back -------------------------------------------------------------------------------


def group(items: list[Any], done: Any) -> list[Event]:
    return [DeltaEvent(item, 0) for item in [*items, done]]


def answer(audio_mime: str, signature: dict[str, Any] | None = None) -> list[Event]:
    """An image of several deltas (signed), audio of several chunks, a thought image."""
    return [
        *group([TextDelta("Here it is:")], TextDone("Here it is:")),
        *group(
            [InlineThinkingDelta(b"dra", "image/png"), InlineThinkingDelta(b"ft", "image/png", signature)],
            InlineThinkingDone(b"draft", "image/png", signature),
        ),
        *group(
            [InlineDataDelta(PNG[:5], "image/png"), InlineDataDelta(PNG[5:], "image/png", signature)],
            InlineDataDone(PNG, "image/png", signature),
        ),
        *group(
            [
                InlineDataDelta(b"\x00\x01", audio_mime),
                InlineDataDelta(b"\x02", audio_mime),
                InlineDataDelta(b"\x03\x04", audio_mime),
            ],
            InlineDataDone(b"\x00\x01\x02\x03\x04", audio_mime),
        ),
        *group([TextDelta("Listen.")], TextDone("Listen.")),
        StopEvent(Usage(prompt_tokens=7, response_tokens=1290), "stop", 0),
    ]


def done_items(events: list[Event]) -> tuple[Any, ...]:
    return tuple(e.item for e in events if isinstance(e, DeltaEvent) and e.item.type.endswith(".done"))


def written(protocol: str, events: list[Event], **options: Any) -> tuple[bytes, list[str]]:
    encoder = unievent.StreamEncoder(protocol, **options)
    body = b"".join(encoder.push(event) for event in events) + encoder.finish()
    return body, encoder.dropped


SIGNED = {"signature": "c2ln"}
ROUND_TRIPS = {
    "gemini sse": ("gemini", answer(PCM, SIGNED), {}),
    "gemini json_array": ("gemini", answer(PCM, SIGNED), {"framing": "json_array"}),
    "gemini_interactions": ("gemini_interactions", answer(AUDIO), {}),
}


@pytest.mark.parametrize("name", list(ROUND_TRIPS))
def test_what_is_written_decodes_back_to_the_same_items_fidelity_included(name: str) -> None:
    protocol, events, options = ROUND_TRIPS[name]
    body, dropped = written(protocol, events, **options)
    _, outcome, _ = decoded(protocol, body)
    assert outcome.end == "complete" and outcome.anomalies == () and dropped == []
    assert outcome.message.items == done_items(events)


@settings(max_examples=40, deadline=None)
@given(st.sampled_from(list(ROUND_TRIPS)), st.data())
def test_what_is_written_decodes_back_the_same_in_any_split(name: str, data: st.DataObject) -> None:
    protocol, events, options = ROUND_TRIPS[name]
    body, _ = written(protocol, events, **options)
    cuts = data.draw(st.lists(st.integers(1, len(body) - 1), max_size=40))
    assert run(protocol, split_at(body, cuts))[1].message.items == done_items(events)


def test_gemini_writes_an_image_whole_and_audio_chunk_by_chunk() -> None:
    body, _ = written("gemini", answer(PCM, SIGNED))
    parts = [orjson.loads(line[6:])["candidates"][0]["content"]["parts"] for line in body.split(b"\r\n\r\n") if line]
    media = [part[0] for part in parts if part and "inlineData" in part[0]]
    assert media == [
        {"inlineData": {"mimeType": "image/png", "data": b64(b"draft")}, "thought": True, "thoughtSignature": "c2ln"},
        {"inlineData": {"mimeType": "image/png", "data": b64(PNG)}, "thoughtSignature": "c2ln"},
        inline(b"\x00\x01", PCM),
        inline(b"\x02", PCM),
        inline(b"\x03\x04", PCM),
    ]


def test_interactions_writes_an_image_whole_and_audio_with_its_rate_and_channels_in_their_fields() -> None:
    body, _ = written("gemini_interactions", answer(AUDIO))
    frames = [orjson.loads(line[6:]) for line in body.split(b"\n") if line.startswith(b"data: {")]
    deltas = [frame["delta"] for frame in frames if "delta" in frame]
    assert [d["type"] for d in deltas] == ["text", "thought_summary", "image", "audio", "audio", "audio", "text"]
    assert deltas[1]["content"] == image(b"draft") and deltas[2] == image(PNG)
    assert deltas[3] == audio(b"\x00\x01")


def test_a_gemini_tts_answer_written_as_interactions_keeps_its_rate_and_says_what_it_loses() -> None:
    body, dropped = written("gemini_interactions", answer(PCM, SIGNED))
    _, outcome, _ = decoded("gemini_interactions", body)
    assert outcome.message.items[3] == InlineDataDone(b"\x00\x01\x02\x03\x04", "audio/L16; rate=24000")
    assert outcome.message.items[2] == InlineDataDone(PNG, "image/png")  # a model_output has no signature
    assert outcome.message.items[1] == InlineThinkingDone(b"draft", "image/png", SIGNED)  # a thought has one
    assert dropped == [
        "signature of inline_data (no place in an Interactions model_output)",
        f"mime_type {PCM} (read back as audio/L16; rate=24000: Interactions has no field for the rest)",
    ]


def test_what_a_wire_cannot_carry_is_in_dropped() -> None:
    pdf = group([InlineDataDelta(b"%PDF", "application/pdf")], InlineDataDone(b"%PDF", "application/pdf"))
    thought_audio = group([InlineThinkingDelta(b"\x00", PCM)], InlineThinkingDone(b"\x00", PCM))
    body, dropped = written("gemini_interactions", [*pdf, *thought_audio, *group([TextDelta("ok")], TextDone("ok"))])
    assert dropped == [
        "inline_data.delta application/pdf (an Interactions model_output takes images and audio)",
        f"inline_thinking.delta {PCM} (an Interactions thought takes images)",
    ]
    assert run("gemini_interactions", [body])[1].message.items == (TextDone("ok"),)
    # two audio items of one type, one after the other: Gemini has no boundary between them
    second = group([InlineDataDelta(b"\x05", PCM)], InlineDataDone(b"\x05", PCM))
    body, dropped = written("gemini", answer(PCM)[:-3] + second)
    assert dropped == [
        f"the boundary between two inline_data items of type {PCM} (Gemini joins consecutive chunks of one type: read back as one)"
    ]
    assert run("gemini", [body])[1].message.items[-1] == InlineDataDone(b"\x00\x01\x02\x03\x04\x05", PCM)


# --- google-genai reads what the Gemini writer wrote ------------------------------------------------


def test_google_genai_reads_the_same_bytes_from_the_gemini_writer(serving: Any) -> None:
    genai = pytest.importorskip("google.genai")
    events = answer(PCM, SIGNED)
    base = serving(unievent.encode(events, "gemini", model="gemini-2.5-flash-image"))
    client = genai.Client(api_key="x", http_options=genai.types.HttpOptions(base_url=base))
    chunks = list(client.models.generate_content_stream(model="gemini-2.5-flash-image", contents="a cat"))
    blobs = [
        (part.inline_data.mime_type, part.inline_data.data, bool(part.thought))
        for chunk in chunks
        for part in (chunk.candidates[0].content.parts or [])
        if part.inline_data is not None
    ]
    assert blobs == [
        ("image/png", b"draft", True),
        ("image/png", PNG, False),
        (PCM, b"\x00\x01", False),
        (PCM, b"\x02", False),
        (PCM, b"\x03\x04", False),
    ]
    assert b"".join(data for mime, data, _ in blobs if mime == PCM) == done_items(events)[3].data
