"""Chat Completions audio output (`modalities: ["text", "audio"]`, `audio.format: "pcm16"`).

The wire: `choices[].delta.audio` objects bring the answer's `id`, base64 `data` (pcm16:
24 kHz, mono, 16-bit little-endian) and `transcript` pieces; `content` stays null; a
last object carries only `expires_at`, and the stream may end with no `finish_reason`.
The transcript runs ahead of the audio and the two kinds interleave, even inside one
chunk.

What the decoder gives:

- the audio is ONE inline_data item of type `audio/pcm; encoding=s16le; rate=24000;
  channels=1`, its fidelity `{"audio_id", "expires_at"}` (the keys that came);
- the transcript is a text item whose fidelity `{"audio_transcript": true}` rides on
  its first delta;
- the kind that arrives first streams live; the other is held and goes out whole, as
  an item of its own, when the live item ends (the `expires_at` chunk, the finish
  chunk, another item, the end of input);
- nothing is lost: a cut stream keeps what arrived, data that is no base64 and values of
  the wrong type are counted and kept as side events.

The Chat writer writes both back as `delta.audio`, and reading that gives the same
items, in any split; the OpenAI SDK reads it as the audio and transcript it came from.
"""

from __future__ import annotations

import base64
import random
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import unievent
from tests.helpers import chunk, decoder_on_path, split_at, sse
from unievent import (
    DeltaEvent,
    InlineDataDelta,
    InlineDataDone,
    Outcome,
    StopEvent,
    TextDelta,
    TextDone,
    ToolCallDone,
    Usage,
)

PCM = "audio/pcm; encoding=s16le; rate=24000; channels=1"
TRANSCRIPT = {"audio_transcript": True}
AUDIO_ID = "audio_67153952b364819093d6a4aac6e0767a"
EXPIRES = 1729447778
SAMPLES = [bytes((7 * i + k) % 256 for k in range(n)) for i, n in enumerate((12, 10, 14, 6))]  # pcm16: even sizes


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def audio(**fields: Any) -> dict[str, Any]:
    """A chunk whose delta is one `audio` object (`content` null, as the API sends it)."""
    return chunk({"content": None, "audio": fields})


# --- decoding: whole, in random splits, byte by byte, with the fast path and without ---


def run(pieces: list[bytes], slow: bool) -> tuple[list[Any], Outcome, int]:
    decoder = decoder_on_path("openai_chat", slow, stream_id="s", clock=lambda: 0)
    events: list[Any] = []
    for piece in pieces:
        events += decoder.push(piece)
    last, outcome = decoder.finish()
    events += last
    unievent.validate(events, partial=outcome.end != "complete")
    return events, outcome, decoder.fast_frames


def decoded(body: bytes, byte_by_byte: bool = True, seed: int = 0) -> tuple[list[Any], Outcome]:
    """The events and outcome of `body`, the same whole, in random splits and byte by
    byte, with the fast path and without."""
    events, outcome, taken = run([body], slow=True)
    assert taken == 0
    expected = (events, outcome)
    assert run([body], slow=False)[:2] == expected
    rng = random.Random(seed)
    for _ in range(3):
        cuts = rng.sample(range(1, len(body)), min(len(body) - 1, rng.randint(1, 12)))
        for slow in (False, True):
            assert run(split_at(body, cuts), slow)[:2] == expected
    if byte_by_byte:
        assert run([body[i : i + 1] for i in range(len(body))], slow=False)[:2] == expected
    return expected


def items_of(events: list[Any]) -> list[Any]:
    return [e.item for e in events if isinstance(e, DeltaEvent)]


def kinds(outcome: Outcome) -> list[str]:
    return [a.kind for a in outcome.anomalies]


def written_back(events: list[Any], **options: Any) -> bytes:
    """What the Chat writer writes for `events` (a stream without its stop is cut)."""
    body = unievent.encode(events, "openai_chat", **options)
    written = run([body], slow=True)
    assert run([body], slow=False)[:2] == written[:2]
    cuts = random.Random(len(body)).sample(range(1, len(body)), min(len(body) - 1, 10))
    assert run(split_at(body, cuts), slow=False)[:2] == written[:2]
    return body


def round_trips(events: list[Any], outcome: Outcome) -> None:
    """Written back by the Chat writer and read again: the same items, fidelity included."""
    _, again, _ = run([written_back(events)], slow=False)
    assert again.message.items == outcome.message.items
    assert again.end == outcome.end


# --- what arrives ------------------------------------------------------------------------------


def test_a_spoken_answer_is_its_transcript_then_its_audio_as_one_item() -> None:
    # the shape of a real gpt-4o-audio-preview stream: the transcript first (the id on
    # its first piece), then the audio (the id again, with role and null content), the
    # expiry alone, no finish_reason, the usage chunk and [DONE]
    body = sse(
        chunk({"role": "assistant", "refusal": None}),
        audio(id=AUDIO_ID, transcript="Hi"),
        audio(transcript=" there"),
        audio(transcript="!"),
        chunk(
            {"role": "assistant", "content": None, "refusal": None, "audio": {"id": AUDIO_ID, "data": b64(SAMPLES[0])}}
        ),
        audio(data=b64(SAMPLES[1])),
        audio(data=b64(SAMPLES[2])),
        audio(expires_at=EXPIRES),
        chunk(choices=[], usage={"prompt_tokens": 20, "completion_tokens": 60, "total_tokens": 80}),
    )
    events, outcome = decoded(body)
    fidelity = {"audio_id": AUDIO_ID, "expires_at": EXPIRES}
    assert items_of(events) == [
        TextDelta("Hi", TRANSCRIPT),
        TextDelta(" there"),
        TextDelta("!"),
        TextDone("Hi there!", TRANSCRIPT),
        InlineDataDelta(SAMPLES[0], PCM, fidelity),
        InlineDataDelta(SAMPLES[1], PCM),
        InlineDataDelta(SAMPLES[2], PCM),
        InlineDataDone(b"".join(SAMPLES[:3]), PCM, fidelity),
    ]
    assert (outcome.end, outcome.finish_reason, outcome.anomalies) == ("complete", "stop", ())
    assert isinstance(events[-1], StopEvent)
    round_trips(events, outcome)


def test_interleaved_pieces_the_first_kind_streams_live_and_the_other_is_held() -> None:
    # the transcript leads, the audio catches up, then both come in one chunk
    body = sse(
        audio(transcript="hel"),
        chunk(
            {"role": "assistant", "content": None, "refusal": None, "audio": {"id": AUDIO_ID, "data": b64(SAMPLES[0])}}
        ),
        audio(transcript="lo", data=b64(SAMPLES[1])),
        audio(transcript=" you", data=b64(SAMPLES[2])),
        audio(expires_at=EXPIRES),
    )
    events, outcome = decoded(body)
    fidelity = {"audio_id": AUDIO_ID, "expires_at": EXPIRES}
    assert items_of(events) == [
        TextDelta("hel", TRANSCRIPT),
        TextDelta("lo"),
        TextDelta(" you"),
        TextDone("hello you", TRANSCRIPT),
        # held until the transcript's item ended: one delta per piece, the fidelity on the first
        InlineDataDelta(SAMPLES[0], PCM, fidelity),
        InlineDataDelta(SAMPLES[1], PCM),
        InlineDataDelta(SAMPLES[2], PCM),
        InlineDataDone(b"".join(SAMPLES[:3]), PCM, fidelity),
    ]
    assert (outcome.end, outcome.finish_reason) == ("complete", "stop")
    round_trips(events, outcome)


def test_audio_that_comes_first_streams_live_its_fidelity_on_an_empty_delta_before_its_done() -> None:
    body = sse(
        audio(id=AUDIO_ID, data=b64(SAMPLES[0])),
        audio(transcript="Hel"),
        audio(data=b64(SAMPLES[1])),
        audio(transcript="lo"),
        audio(expires_at=EXPIRES),
        chunk({}, finish="stop"),
    )
    events, outcome = decoded(body)
    fidelity = {"audio_id": AUDIO_ID, "expires_at": EXPIRES}
    assert items_of(events) == [
        InlineDataDelta(SAMPLES[0], PCM),
        InlineDataDelta(SAMPLES[1], PCM),
        InlineDataDelta(b"", PCM, fidelity),
        InlineDataDone(SAMPLES[0] + SAMPLES[1], PCM, fidelity),
        TextDelta("Hel", TRANSCRIPT),
        TextDelta("lo"),
        TextDone("Hello", TRANSCRIPT),
    ]
    round_trips(events, outcome)


def test_within_one_audio_object_the_pieces_arrive_in_the_order_it_names_them() -> None:
    data_first = sse(audio(id=AUDIO_ID, data=b64(SAMPLES[0]), transcript="Hi"), audio(expires_at=EXPIRES))
    text_first = sse(audio(id=AUDIO_ID, transcript="Hi", data=b64(SAMPLES[0])), audio(expires_at=EXPIRES))
    assert [type(i) for i in decoded(data_first)[1].message.items] == [InlineDataDone, TextDone]
    assert [type(i) for i in decoded(text_first)[1].message.items] == [TextDone, InlineDataDone]


def test_audio_then_a_tool_call_the_call_ends_the_answer_first() -> None:
    body = sse(
        audio(id=AUDIO_ID, data=b64(SAMPLES[0])),
        audio(transcript="Let me check."),
        audio(data=b64(SAMPLES[1])),
        chunk(
            {
                "tool_calls": [
                    {
                        "index": 0,
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_weather", "arguments": ""},
                    }
                ]
            }
        ),
        chunk({"tool_calls": [{"index": 0, "function": {"arguments": '{"city": "Oslo"}'}}]}),
        chunk({}, finish="tool_calls"),
    )
    events, outcome = decoded(body)
    assert outcome.message.items == (
        InlineDataDone(SAMPLES[0] + SAMPLES[1], PCM, {"audio_id": AUDIO_ID}),  # no expiry came
        TextDone("Let me check.", TRANSCRIPT),
        ToolCallDone("get_weather", {"city": "Oslo"}, "call_1"),
    )
    assert (outcome.finish_reason, outcome.anomalies) == ("tool_call", ())
    round_trips(events, outcome)


def test_text_around_the_answer_is_text_and_the_text_template_never_takes_an_audio_chunk() -> None:
    words = [chunk({"content": f"w{i} "}) for i in range(8)]
    body = sse(
        *words,
        audio(id=AUDIO_ID, transcript="spoken"),
        audio(data=b64(SAMPLES[0])),
        audio(transcript=" words"),
        *words,  # the answer's items end before this text begins
        audio(data=b64(SAMPLES[1])),  # a new answer, with no id
        *words,
        chunk({}, finish="stop"),
    )
    _, outcome = decoded(body)
    text = "".join(f"w{i} " for i in range(8))
    assert outcome.message.items == (
        TextDone(text),
        TextDone("spoken words", TRANSCRIPT),
        InlineDataDone(SAMPLES[0], PCM, {"audio_id": AUDIO_ID}),
        TextDone(text),
        InlineDataDone(SAMPLES[1], PCM),
        TextDone(text),
    )
    assert run([body], slow=False)[2] > 10  # the words went by the fast path, the audio did not


def test_another_id_is_another_answer() -> None:
    body = sse(
        audio(id="audio_a", data=b64(SAMPLES[0])),
        audio(id="audio_b", data=b64(SAMPLES[1])),
        audio(expires_at=EXPIRES),
    )
    events, outcome = decoded(body)
    assert outcome.message.items == (
        InlineDataDone(SAMPLES[0], PCM, {"audio_id": "audio_a"}),
        InlineDataDone(SAMPLES[1], PCM, {"audio_id": "audio_b", "expires_at": EXPIRES}),
    )
    round_trips(events, outcome)


def test_an_id_and_expiry_without_data_are_kept_on_an_audio_of_no_bytes() -> None:
    body = sse(audio(id=AUDIO_ID, transcript="Hello!"), audio(expires_at=EXPIRES), chunk({}, finish="stop"))
    events, outcome = decoded(body)
    fidelity = {"audio_id": AUDIO_ID, "expires_at": EXPIRES}
    assert items_of(events)[-2:] == [InlineDataDelta(b"", PCM, fidelity), InlineDataDone(b"", PCM, fidelity)]
    assert outcome.message.items == (TextDone("Hello!", TRANSCRIPT), InlineDataDone(b"", PCM, fidelity))
    round_trips(events, outcome)


def test_an_expiry_after_the_finish_chunk_is_kept_as_a_side_event() -> None:
    # the finish chunk ends the answer's items; what comes after has nothing to ride on
    body = sse(
        chunk({"role": "assistant", "audio": {"id": AUDIO_ID, "data": b64(SAMPLES[0]), "transcript": "Hi"}}),
        chunk({"audio": {"data": b64(SAMPLES[1]), "transcript": "!"}}, finish="stop"),
        audio(expires_at=EXPIRES),
    )
    _, outcome = decoded(body)
    assert outcome.message.items == (
        InlineDataDone(SAMPLES[0] + SAMPLES[1], PCM, {"audio_id": AUDIO_ID}),
        TextDone("Hi!", TRANSCRIPT),
    )
    assert kinds(outcome) == ["late_audio_expiry"]
    assert [(s.kind, s.phase, s.data) for s in outcome.side_events] == [("audio", "info", {"expires_at": EXPIRES})]


# --- ends and faults -----------------------------------------------------------------------------


@pytest.mark.parametrize("live", ["transcript", "data"])
def test_a_stream_cut_mid_audio_keeps_what_arrived(live: str) -> None:
    first = audio(id=AUDIO_ID, transcript="Hel") if live == "transcript" else audio(id=AUDIO_ID, data=b64(SAMPLES[0]))
    second = audio(data=b64(SAMPLES[1])) if live == "transcript" else audio(transcript="Hel")
    body = sse(first, second, audio(data=b64(SAMPLES[2])), done=False)
    events, outcome = decoded(body)
    assert outcome.end == "truncated"
    spoken = SAMPLES[1] + SAMPLES[2] if live == "transcript" else SAMPLES[0] + SAMPLES[2]
    items = {type(item): item for item in outcome.message.items}
    assert items[InlineDataDone] == InlineDataDone(spoken, PCM, {"audio_id": AUDIO_ID})
    assert items[TextDone] == TextDone("Hel", TRANSCRIPT)
    round_trips(events, outcome)


def test_data_that_is_no_base64_is_counted_and_kept_as_a_side_event() -> None:
    bad = {"data": "not base64!"}
    body = sse(
        audio(id=AUDIO_ID, data=b64(SAMPLES[0])),
        audio(**bad),
        audio(data=b64(SAMPLES[1])),
        audio(expires_at=EXPIRES),
    )
    _, outcome = decoded(body)
    assert outcome.message.items == (
        InlineDataDone(SAMPLES[0] + SAMPLES[1], PCM, {"audio_id": AUDIO_ID, "expires_at": EXPIRES}),
    )
    assert kinds(outcome) == ["audio_data_not_base64"]
    assert [(s.kind, s.item_id, s.data) for s in outcome.side_events] == [("audio", AUDIO_ID, bad)]


WRONG_TYPES: list[Any] = [
    "UklGRg==",
    5,
    [{"data": "AAAA"}],
    True,
    {"data": 5},
    {"data": ["AAAA"]},
    {"transcript": 7},
    {"transcript": {"text": "hi"}},
    {"id": 7, "data": "AAAA"},
    {"id": ["audio_1"], "transcript": "hi"},
    {"expires_at": 1729447778.0},
    {"expires_at": True},
    {"expires_at": "1729447778"},
    {"expires_at": None, "data": None, "transcript": None, "id": None},
    {"data": "", "transcript": ""},
    {"data": "AAAA", "expires_at": 1.5e9, "transcript": False},
]


@pytest.mark.parametrize("value", WRONG_TYPES, ids=repr)
def test_a_value_of_the_wrong_json_type_never_raises(value: Any) -> None:
    body = sse(
        audio(id=AUDIO_ID, transcript="Hi"),
        chunk({"audio": value}),
        audio(data=b64(SAMPLES[0])),
        audio(expires_at=EXPIRES),
    )
    _, outcome = decoded(body, byte_by_byte=False)
    assert outcome.end == "complete"
    for item in outcome.message.items:
        fidelity = getattr(item, "fidelity", None) or {}
        assert set(fidelity) <= {"audio_transcript", "audio_id", "expires_at"}
        assert type(fidelity.get("audio_id", "")) is str
        assert type(fidelity.get("expires_at", 0)) is int
    first = outcome.message.items[0]
    assert isinstance(first, TextDone) and first.text.startswith("Hi") and first.fidelity == TRANSCRIPT
    assert set(kinds(outcome)) <= {"audio_unreadable", "audio_data_not_base64"}
    assert len(outcome.side_events) == (1 if outcome.anomalies else 0)  # the object, kept once


def test_logprobs_of_audio_tokens_have_no_text_to_ride_on() -> None:
    entry = {"token": "Hi", "logprob": -0.1, "bytes": [72, 105], "top_logprobs": []}
    spoken = audio(id=AUDIO_ID, transcript="Hi")
    spoken["choices"][0]["logprobs"] = {"content": [entry]}
    body = sse(spoken, audio(expires_at=EXPIRES))
    _, outcome = decoded(body)
    assert outcome.message.items[0] == TextDone("Hi", TRANSCRIPT)
    assert kinds(outcome) == ["logprobs_without_text"]


# --- how the pieces split: any interleaving, any chunking ------------------------------------


@st.composite
def answers(draw: st.DrawFn) -> tuple[bytes, list[Any]]:
    """An audio answer as a server may cut it, and the items it must give: transcript
    and data pieces in any interleaving, one or two to a chunk, the id on any chunk or
    none, ended by the expiry, the finish chunk, both, or a cut."""
    text = st.text(st.characters(codec="utf-8", exclude_categories=["Cs"]), min_size=1, max_size=6)
    pieces = draw(
        st.lists(
            st.tuples(st.just("transcript"), text) | st.tuples(st.just("data"), st.binary(min_size=1, max_size=9)),
            min_size=1,
            max_size=10,
        )
    )
    objects: list[dict[str, Any]] = []
    for key, value in pieces:
        joins = objects and key not in objects[-1] and draw(st.booleans())
        if not joins:
            objects.append({})
        objects[-1][key] = b64(value) if isinstance(value, bytes) else value
    at = draw(st.none() | st.integers(0, len(objects) - 1))
    if at is not None:
        objects[at] = {"id": AUDIO_ID, **objects[at]}
    end = draw(st.sampled_from(["expiry", "finish", "expiry and finish", "cut"]))
    frames = [audio(**fields) for fields in objects]
    if "expiry" in end:
        frames.append(audio(expires_at=EXPIRES))
    if "finish" in end:
        frames.append(chunk({}, finish="stop"))
    fidelity: dict[str, Any] = {}
    if at is not None:
        fidelity["audio_id"] = AUDIO_ID
    if "expiry" in end:
        fidelity["expires_at"] = EXPIRES
    spoken = b"".join(value for key, value in pieces if isinstance(value, bytes))
    transcript = "".join(value for key, value in pieces if isinstance(value, str))
    both: dict[str, Any] = {}
    if transcript:
        both["transcript"] = TextDone(transcript, TRANSCRIPT)
    if spoken or fidelity:
        both["data"] = InlineDataDone(spoken, PCM, fidelity or None)
    first = next(key for key in objects[0] if key != "id")
    items = [both[first], *(item for key, item in both.items() if key != first)]
    return sse(*frames, done=end != "cut"), items


@settings(max_examples=150, deadline=None)
@given(answer=answers(), seed=st.integers(0, 2**32))
def test_however_the_pieces_split_the_audio_and_transcript_are_whole(
    answer: tuple[bytes, list[Any]], seed: int
) -> None:
    body, items = answer
    events, outcome = decoded(body, byte_by_byte=False, seed=seed)
    assert list(outcome.message.items) == items
    assert outcome.anomalies == ()
    _, again, _ = run([written_back(events)], slow=False)
    if all("audio_id" in (item.fidelity or {}) for item in items if isinstance(item, InlineDataDone)):
        assert again.message.items == outcome.message.items
    else:  # no id came: the writer makes one up from the response id
        assert list(again.message.items) == [with_made_up_id(item) for item in items]


def with_made_up_id(item: Any) -> Any:
    if isinstance(item, InlineDataDone) and "audio_id" not in (item.fidelity or {}):
        return InlineDataDone(item.data, item.mime_type, {"audio_id": "audio_resp_unievent", **(item.fidelity or {})})
    return item


# --- writing it ---------------------------------------------------------------------------------


def spoken_events(pieces: list[bytes], fidelity_first: bool) -> list[Any]:
    """A transcript then an audio, the audio's fidelity on its first delta or on an empty
    one before its done (how the decoder gives a held and a live audio)."""
    fidelity = {"audio_id": AUDIO_ID, "expires_at": EXPIRES}
    events: list[Any] = [
        DeltaEvent(TextDelta("Hel", TRANSCRIPT), 0),
        DeltaEvent(TextDelta("lo"), 0),
        DeltaEvent(TextDone("Hello", TRANSCRIPT), 0),
    ]
    events += [
        DeltaEvent(InlineDataDelta(p, PCM, fidelity if fidelity_first and not i else None), 0)
        for i, p in enumerate(pieces)
    ]
    if not fidelity_first:
        events.append(DeltaEvent(InlineDataDelta(b"", PCM, fidelity), 0))
    events.append(DeltaEvent(InlineDataDone(b"".join(pieces), PCM, fidelity), 0))
    events.append(StopEvent(Usage(prompt_tokens=20, response_tokens=60), "stop", 0))
    return events


def audio_objects(body: bytes) -> list[dict[str, Any]]:
    frames = [orjson.loads(line[6:]) for line in body.split(b"\n") if line.startswith(b"data: {")]
    return [c["delta"]["audio"] for f in frames for c in f.get("choices", []) if "audio" in c["delta"]]


ODD = [b"\x01\x02\x03\x04\x05", b"\x06", b"\x07\x08\x09\x0a", b"\x0b\x0c\x0d\x0e\x0f\x10\x11"]


@pytest.mark.parametrize("fidelity_first", [True, False])
def test_the_writer_writes_delta_audio_that_reads_back_the_same(fidelity_first: bool) -> None:
    events = spoken_events(ODD, fidelity_first)
    body = written_back(events)
    objects = audio_objects(body)
    assert objects[:2] == [{"transcript": "Hel"}, {"transcript": "lo"}]
    assert objects[-1] == {"expires_at": EXPIRES}  # alone, last
    assert [o.get("id") for o in objects if "id" in o] == [AUDIO_ID]  # once
    if fidelity_first:
        assert objects[2]["id"] == AUDIO_ID  # on the first piece of the audio
    # every piece but the last is whole base64 quanta: the pieces join into one base64 text
    pieces = [o["data"] for o in objects if "data" in o]
    assert all(not p.endswith("=") for p in pieces[:-1])
    assert base64.b64decode("".join(pieces)) == b"".join(ODD)
    _, outcome, _ = run([body], slow=False)
    assert outcome.message.items == tuple(
        e.item for e in events if isinstance(e, DeltaEvent) and e.item.type.endswith(".done")
    )


def test_an_audio_with_no_id_gets_one_made_from_the_response_id() -> None:
    events: list[Any] = [
        DeltaEvent(InlineDataDelta(SAMPLES[0], PCM), 0),
        DeltaEvent(InlineDataDone(SAMPLES[0], PCM), 0),
        StopEvent(Usage(), "stop", 0),
    ]
    body = unievent.encode(events, "openai_chat", response_id="chatcmpl-9")
    assert [o.get("id") for o in audio_objects(body) if "id" in o] == ["audio_chatcmpl-9"]
    _, outcome, _ = run([body], slow=False)
    assert outcome.message.items == (InlineDataDone(SAMPLES[0], PCM, {"audio_id": "audio_chatcmpl-9"}),)


def test_other_inline_data_has_no_place_in_chat_completions() -> None:
    encoder = unievent.StreamEncoder("openai_chat")
    body = encoder.push(DeltaEvent(InlineDataDelta(b"RIFF", "audio/wav"), 0))
    body += encoder.push(DeltaEvent(InlineDataDone(b"RIFF", "audio/wav"), 0))
    assert b"audio" not in body
    assert encoder.dropped == ["inline_data.delta (no place in Chat Completions)"]


# --- the OpenAI SDK reads what the writer wrote -----------------------------------------------


@pytest.mark.parametrize("fidelity_first", [True, False])
def test_the_openai_sdk_reads_the_audio_and_transcript_the_writer_wrote(serving: Any, fidelity_first: bool) -> None:
    openai = pytest.importorskip("openai")
    client = openai.OpenAI(
        base_url=serving(unievent.encode(spoken_events(ODD, fidelity_first), "openai_chat")) + "/v1", api_key="x", max_retries=0
    )
    data: list[str] = []
    transcript: list[str] = []
    for piece in client.chat.completions.create(model="gpt-4o-audio-preview", messages=[], stream=True):
        for choice in piece.choices:
            said = getattr(choice.delta, "audio", None)
            if said is not None:
                data.append(said.data or "")
                transcript.append(said.transcript or "")
    assert base64.b64decode("".join(data)) == b"".join(ODD)
    assert "".join(transcript) == "Hello"
    with client.chat.completions.stream(model="gpt-4o-audio-preview", messages=[]) as stream:
        message = stream.get_final_completion().choices[0].message
    assert message.audio is not None
    assert (message.audio.id, message.audio.transcript, message.audio.expires_at) == (AUDIO_ID, "Hello", EXPIRES)
    assert base64.b64decode(message.audio.data) == b"".join(ODD)
