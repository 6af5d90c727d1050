"""Generated images (OpenAI Responses, the hosted `image_generation` tool).

An `image_generation_call` output item streams like any tool the server runs itself:
`output_item.added` (in progress), `image_generation_call.in_progress`, `.generating`,
zero or more `.partial_image` previews, `.completed`, then `output_item.done` whose
item holds the final image as base64 `result`, with `revised_prompt`, `output_format`,
`size`, `quality`, `background` and `action`.  The previews and the progress stay on
the side channel; the final image is what the turn produced:

- one inline_data item (`InlineDataDelta` then `InlineDataDone`), its MIME type from
  `output_format`, else from the image's first bytes (PNG, JPEG, GIF, WebP; else
  `application/octet-stream`), its fidelity the call's id as `image_generation_call_id`
  and the item's settings, only those that arrived;
- a failed call, a call with no result, or a result that is no base64 (noted as
  `inline_data_not_base64`) stays on the side channel, and nothing raises.

Every stream is written as OpenAI sends it (`event:` and `data:` lines, sequence
numbers) and decoded whole, byte by byte and in random pieces (and Hypothesis's), with
the fast path on and off, every result checked against the UniEvent grammar.  The
Responses writer writes an image back as the image_generation_call it came as, which
decodes to the very same items, and which the OpenAI SDK reads.
"""

from __future__ import annotations

import base64
import itertools
import json
import random
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import unievent
from tests.helpers import decoder_on_path
from unievent import (
    DeltaEvent,
    InlineDataDelta,
    InlineDataDone,
    Outcome,
    SideEvent,
    StopEvent,
    TextDelta,
    TextDone,
    Usage,
)

# --- images ---------------------------------------------------------------------------------

PNG = base64.b64decode(
    "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mNk+M9QDwADhgGAWjR9awAAAABJRU5ErkJggg=="
)
JPEG = b"\xff\xd8\xff\xe0\x00\x10JFIF\x00\x01\x01\x00\x00\x01\x00\x01\x00\x00\xff\xd9"
GIF = b"GIF89a\x01\x00\x01\x00\x80\x00\x00\x00\x00\x00\xff\xff\xff!\xf9\x04\x01\x00\x00\x00\x00;"
WEBP = b"RIFF\x1a\x00\x00\x00WEBPVP8L\x0d\x00\x00\x00/\x00\x00\x00\x10\x07\x10\x11\x11\x88\x88\xfe\x07\x00"
UNKNOWN = b"\x00\x01\x02\x03 no signature anyone knows"
PREVIEW = PNG[:40]  # a partial image: a preview, not the answer


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


# --- the wire -------------------------------------------------------------------------------

MODEL = "gpt-5"
USAGE = {
    "input_tokens": 2950,
    "input_tokens_details": {"cached_tokens": 0},
    "output_tokens": 124,
    "output_tokens_details": {"reasoning_tokens": 64},
    "total_tokens": 3074,
}
SETTINGS = {"background": "opaque", "output_format": "png", "quality": "low", "size": "1024x1024"}


def wire(*frames: dict[str, Any]) -> bytes:
    """Events as OpenAI sends them: an `event:` line, a `data:` line of compact JSON
    carrying the next sequence number, a blank line."""
    out = []
    for seq, frame in enumerate(frames):
        data = json.dumps({**frame, "sequence_number": seq}, ensure_ascii=False, separators=(",", ":"))
        out.append(f"event: {frame['type']}\ndata: {data}\n\n")
    return "".join(out).encode()


def response(status: str, output: list[dict[str, Any]] | None = None, **fields: Any) -> dict[str, Any]:
    tools = [{"type": "image_generation", "partial_images": 2, **SETTINGS}]
    return {
        "id": "resp_1",
        "object": "response",
        "status": status,
        "model": MODEL,
        "output": output or [],
        "tools": tools,
        **fields,
    }


def created() -> dict[str, Any]:
    return {"type": "response.created", "response": response("in_progress")}


def in_progress() -> dict[str, Any]:
    return {"type": "response.in_progress", "response": response("in_progress")}


def completed(output: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"type": "response.completed", "response": response("completed", output, usage=USAGE)}


def added(index: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.added", "output_index": index, "item": item}


def done(index: int, item: Any) -> dict[str, Any]:
    return {"type": "response.output_item.done", "output_index": index, "item": item}


def message(index: int, *pieces: str) -> list[dict[str, Any]]:
    item_id = f"msg_{index}"
    start = {"id": item_id, "type": "message", "status": "in_progress", "role": "assistant", "content": []}
    where = {"item_id": item_id, "output_index": index, "content_index": 0}
    text = "".join(pieces)
    part = {"type": "output_text", "text": text, "annotations": [], "logprobs": []}
    return [
        added(index, start),
        {"type": "response.content_part.added", **where, "part": {**part, "text": ""}},
        *({"type": "response.output_text.delta", **where, "delta": p, "logprobs": []} for p in pieces),
        {"type": "response.output_text.done", **where, "text": text, "logprobs": []},
        {"type": "response.content_part.done", **where, "part": part},
        done(index, {**start, "status": "completed", "content": [part]}),
    ]


def image_item(call_id: str, result: Any, status: str = "completed", **fields: Any) -> dict[str, Any]:
    """The image generation call as its `output_item.done` gives it."""
    return {"id": call_id, "type": "image_generation_call", "status": status, "result": result, **fields}


def image_call(
    index: int,
    call_id: str,
    item: dict[str, Any],
    partials: tuple[bytes, ...] = (),
    settings: dict[str, Any] | None = None,
) -> list[dict[str, Any]]:
    """Every event of one image generation call, its previews carrying `settings`."""
    where = {"output_index": index, "item_id": call_id}
    frames = [
        added(index, {"id": call_id, "type": "image_generation_call", "status": "in_progress"}),
        {"type": "response.image_generation_call.in_progress", **where},
        {"type": "response.image_generation_call.generating", **where},
    ]
    for n, preview in enumerate(partials):
        partial = {"partial_image_index": n, "partial_image_b64": b64(preview), **(settings or {})}
        frames.append({"type": "response.image_generation_call.partial_image", **where, **partial})
    if item.get("status") != "failed":
        frames.append({"type": "response.image_generation_call.completed", **where})
    frames.append(done(index, item))
    return frames


# --- decoding -------------------------------------------------------------------------------


def decode(body: bytes, pieces: list[bytes] | None = None, slow: bool = False) -> tuple[list[Any], Outcome]:
    """Events (side events inline) and outcome, the events checked against the grammar."""
    decoder = decoder_on_path("openai_responses", slow, stream_id="s", clock=lambda: 0, side_events=True)
    events: list[Any] = []
    for piece in pieces if pieces is not None else [body]:
        events += decoder.push(piece)
    last, outcome = decoder.finish()
    events += last
    unievent.validate(events, partial=outcome.end != "complete")
    return events, outcome


def pieces_at(body: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({0, len(body), *(c for c in cuts if 0 < c < len(body))})
    return [body[a:b] for a, b in itertools.pairwise(points)]


def decode_every_way(body: bytes) -> tuple[list[Any], Outcome]:
    """The body whole, byte by byte and in random pieces, on both paths: one result."""
    whole = decode(body)
    rng = random.Random(len(body))
    for slow in (False, True):
        assert decode(body, slow=slow) == whole
        assert decode(body, [body[i : i + 1] for i in range(len(body))], slow) == whole
        for _ in range(8):
            cuts = rng.sample(range(1, len(body)), k=rng.randint(1, 30))
            assert decode(body, pieces_at(body, cuts), slow) == whole, sorted(cuts)
    return whole


def items(events: list[Any]) -> list[Any]:
    return [e.item for e in events if isinstance(e, DeltaEvent)]


def sides(events: list[Any]) -> list[tuple[str, str, str | None, str]]:
    """Each side event's kind, phase, item id and the type of the frame it keeps."""
    return [(e.kind, e.phase, e.item_id, e.data.get("type", "")) for e in events if isinstance(e, SideEvent)]


def notes(outcome: Outcome) -> list[str]:
    return [anomaly.kind for anomaly in outcome.anomalies]


def progress(call_id: str, partials: int = 0, completes: bool = True) -> list[tuple[str, str, str | None, str]]:
    """The side events of a call's added item and its own events (its done is not one)."""
    kinds = ["in_progress", "generating", *["partial_image"] * partials, *(["completed"] if completes else [])]
    start = ("image_generation_call", "start", call_id, "response.output_item.added")
    own = [("image_generation_call", "delta", call_id, f"response.image_generation_call.{k}") for k in kinds]
    return [start, *own]


# --- the streams ------------------------------------------------------------------------------

FULL = {**SETTINGS, "revised_prompt": "A gray tabby cat hugging an otter with an orange scarf", "action": "generate"}
CAT = image_item("ig_1", b64(PNG), **FULL)
OTTER = image_item("ig_2", b64(JPEG), output_format="jpeg", size="1536x1024", revised_prompt="An otter")

STREAMS: dict[str, bytes] = {
    "text then an image": wire(
        created(),
        in_progress(),
        *message(0, "Here is ", "your cat."),
        *image_call(1, "ig_1", CAT),
        completed([CAT]),
    ),
    "partial images then the final": wire(
        created(), *image_call(0, "ig_1", CAT, (PREVIEW, PREVIEW[:20]), SETTINGS), completed([CAT])
    ),
    "two images": wire(
        created(),
        *image_call(0, "ig_1", CAT, (PREVIEW,), SETTINGS),
        *image_call(1, "ig_2", OTTER),
        *message(2, "Two pictures."),
        completed([CAT, OTTER]),
    ),
    "no output_format": wire(created(), *image_call(0, "ig_3", image_item("ig_3", b64(WEBP))), completed()),
    "bad base64": wire(
        created(), *image_call(0, "ig_4", image_item("ig_4", "not base64!")), *message(1, "Sorry."), completed()
    ),
    "a failed call": wire(
        created(),
        *image_call(
            0,
            "ig_5",
            image_item(
                "ig_5",
                None,
                "failed",
                error={"type": "image_generation_user_error", "code": "moderation_blocked", "message": "Blocked."},
            ),
        ),
        *message(1, "I can't draw that."),
        completed(),
    ),
}


@pytest.mark.parametrize("name", STREAMS)
def test_every_stream_decodes_the_same_in_any_split_on_both_paths(name: str) -> None:
    _, outcome = decode_every_way(STREAMS[name])
    assert outcome.end == "complete"
    assert outcome.finish_reason == "stop"  # an image is no call the client must answer


# --- the final image is one inline_data item ----------------------------------------------------


def test_text_then_an_image_is_the_text_then_one_inline_data_item() -> None:
    events, outcome = decode(STREAMS["text then an image"])
    fidelity = {"image_generation_call_id": "ig_1", **FULL}
    assert items(events) == [
        TextDelta("Here is "),
        TextDelta("your cat."),
        TextDone("Here is your cat."),
        InlineDataDelta(PNG, "image/png", fidelity),
        InlineDataDone(PNG, "image/png", fidelity),
    ]
    assert events[-1] == StopEvent(Usage(0, 2950, 64, 60), "stop", 0)
    assert outcome.message.items == (TextDone("Here is your cat."), InlineDataDone(PNG, "image/png", fidelity))
    # the call's progress is a side event each, in arrival order; its done is the image
    assert sides(events) == progress("ig_1")
    assert notes(outcome) == []


def test_partial_images_are_previews_on_the_side_channel_and_only_the_final_image_is_an_item() -> None:
    events, outcome = decode(STREAMS["partial images then the final"])
    assert sides(events) == progress("ig_1", partials=2)
    previews = [e.data for e in events if isinstance(e, SideEvent) and e.data["type"].endswith("partial_image")]
    assert [(p["partial_image_index"], base64.b64decode(p["partial_image_b64"])) for p in previews] == [
        (0, PREVIEW),
        (1, PREVIEW[:20]),
    ]
    assert previews[0]["output_format"] == "png" and previews[0]["size"] == "1024x1024"
    [image] = outcome.message.items
    assert image == InlineDataDone(PNG, "image/png", {"image_generation_call_id": "ig_1", **FULL})
    assert [type(i) for i in items(events)] == [InlineDataDelta, InlineDataDone]


def test_two_images_are_two_items_each_with_its_own_type_and_fidelity() -> None:
    _, outcome = decode(STREAMS["two images"])
    otter = {
        "image_generation_call_id": "ig_2",
        "revised_prompt": "An otter",
        "output_format": "jpeg",
        "size": "1536x1024",
    }
    assert outcome.message.items == (
        InlineDataDone(PNG, "image/png", {"image_generation_call_id": "ig_1", **FULL}),
        InlineDataDone(JPEG, "image/jpeg", otter),
        TextDone("Two pictures."),
    )


@pytest.mark.parametrize(
    ("data", "mime"),
    [
        (PNG, "image/png"),
        (JPEG, "image/jpeg"),
        (GIF, "image/gif"),
        (WEBP, "image/webp"),
        (UNKNOWN, "application/octet-stream"),
    ],
)
def test_an_image_with_no_output_format_takes_its_type_from_its_first_bytes(data: bytes, mime: str) -> None:
    body = wire(created(), *image_call(0, "ig_3", image_item("ig_3", b64(data))), completed())
    _, outcome = decode_every_way(body)
    assert outcome.message.items == (InlineDataDone(data, mime, {"image_generation_call_id": "ig_3"}),)


@pytest.mark.parametrize(
    ("output_format", "mime"),
    [
        ("png", "image/png"),
        ("jpeg", "image/jpeg"),
        ("jpg", "image/jpeg"),
        ("webp", "image/webp"),
        ("gif", "image/gif"),
        ("svg", "image/svg+xml"),
        ("JPEG", "image/jpeg"),
        ("avif", "image/avif"),  # a format no one listed yet, bytes that say nothing: taken as it is named
    ],
)
def test_output_format_names_the_type(output_format: str, mime: str) -> None:
    body = wire(
        created(), *image_call(0, "ig_1", image_item("ig_1", b64(UNKNOWN), output_format=output_format)), completed()
    )
    _, outcome = decode(body)
    assert outcome.message.items == (
        InlineDataDone(UNKNOWN, mime, {"image_generation_call_id": "ig_1", "output_format": output_format}),
    )


def test_a_format_no_one_listed_yet_gives_way_to_bytes_that_say_what_they_are() -> None:
    body = wire(created(), *image_call(0, "ig_1", image_item("ig_1", b64(GIF), output_format="heic")), completed())
    (image,) = decode(body)[1].message.items
    assert isinstance(image, InlineDataDone) and image.mime_type == "image/gif"


def test_a_call_closed_still_generating_with_its_whole_result_is_the_image() -> None:
    # some servers close the item with the image and `status: generating`
    item = image_item("ig_1", b64(PNG), "generating", output_format="png")
    _, outcome = decode_every_way(wire(created(), *image_call(0, "ig_1", item), completed()))
    assert outcome.message.items == (
        InlineDataDone(PNG, "image/png", {"image_generation_call_id": "ig_1", "output_format": "png"}),
    )


def test_an_image_after_a_message_left_open_closes_the_text_first() -> None:
    body = wire(created(), *message(0, "Here:")[:-1], *image_call(1, "ig_1", CAT), completed())
    events, outcome = decode_every_way(body)
    assert [type(i).__name__ for i in items(events)] == [
        "TextDelta",
        "TextDone",
        "InlineDataDelta",
        "InlineDataDone",
    ]
    assert notes(outcome) == ["item_left_open"]


def test_an_image_open_at_the_end_is_taken_from_the_final_response() -> None:
    frames = image_call(0, "ig_1", CAT)[:-1]  # its output_item.done never came
    _, outcome = decode_every_way(wire(created(), *frames, completed([CAT])))
    assert outcome.message.items == (InlineDataDone(PNG, "image/png", {"image_generation_call_id": "ig_1", **FULL}),)
    assert notes(outcome) == ["item_left_open"]


def test_a_resumed_stream_that_begins_with_the_image_s_done_has_the_image() -> None:
    body = wire(done(3, CAT), completed([CAT]))
    _, outcome = decode_every_way(body)
    assert outcome.message.items == (InlineDataDone(PNG, "image/png", {"image_generation_call_id": "ig_1", **FULL}),)


# --- what stays on the side channel -----------------------------------------------------------


def test_a_result_that_is_not_base64_is_noted_and_kept_on_the_side_channel() -> None:
    events, outcome = decode(STREAMS["bad base64"])
    assert outcome.message.items == (TextDone("Sorry."),)
    assert sides(events) == [*progress("ig_4"), ("image_generation_call", "done", "ig_4", "response.output_item.done")]
    assert notes(outcome) == ["inline_data_not_base64"]
    assert outcome.anomalies[0].examples == (
        "the result of image_generation_call ig_4 could not be decoded: 'not base64!'",
    )


@pytest.mark.parametrize(
    "result",
    [12345, ["aGk="], {"b64": "aGk="}, True, "====", "aGk=\u00e9", "aGk=!", "aG-_", "data:image/png;base64,aGk="],
)
def test_a_result_that_is_no_base64_string_is_noted_whatever_its_type(result: Any) -> None:
    body = wire(created(), *image_call(0, "ig_4", image_item("ig_4", result)), completed())
    events, outcome = decode_every_way(body)
    assert (outcome.end, outcome.message.items, notes(outcome)) == ("complete", (), ["inline_data_not_base64"])
    assert sides(events)[-1] == ("image_generation_call", "done", "ig_4", "response.output_item.done")


@pytest.mark.parametrize(
    "result",
    ["\n".join(b64(PNG)[i : i + 76] for i in range(0, len(b64(PNG)), 76)), b64(PNG).rstrip("=")],
    ids=["wrapped in lines", "unpadded"],
)
def test_a_result_wrapped_in_lines_or_unpadded_is_read(result: str) -> None:
    body = wire(created(), *image_call(0, "ig_1", image_item("ig_1", result)), completed())
    _, outcome = decode_every_way(body)
    assert outcome.message.items == (InlineDataDone(PNG, "image/png", {"image_generation_call_id": "ig_1"}),)
    assert notes(outcome) == []


def test_a_failed_call_stays_on_the_side_channel() -> None:
    events, outcome = decode(STREAMS["a failed call"])
    assert outcome.message.items == (TextDone("I can't draw that."),)
    assert sides(events) == [
        *progress("ig_5", completes=False),
        ("image_generation_call", "done", "ig_5", "response.output_item.done"),
    ]
    failed = [e.data for e in events if isinstance(e, SideEvent) and e.phase == "done"]
    assert failed[0]["item"]["error"]["code"] == "moderation_blocked"
    assert notes(outcome) == []


@pytest.mark.parametrize(
    "item",
    [
        image_item("ig_5", b64(PNG), "failed"),  # failed, whatever it holds
        image_item("ig_5", None),
        image_item("ig_5", ""),
        {"id": "ig_5", "type": "image_generation_call", "status": "completed"},
    ],
    ids=["failed with a result", "null result", "empty result", "no result"],
)
def test_a_call_without_an_image_is_a_side_event_only(item: dict[str, Any]) -> None:
    events, outcome = decode_every_way(wire(created(), *image_call(0, "ig_5", item), completed()))
    assert (outcome.message.items, notes(outcome)) == ((), [])
    assert sides(events)[-1] == ("image_generation_call", "done", "ig_5", "response.output_item.done")


# --- a cut stream ---------------------------------------------------------------------------


def test_a_stream_cut_mid_call_keeps_the_previews_on_the_side_and_has_no_image() -> None:
    frames = [created(), *message(0, "Drawing."), *image_call(1, "ig_1", CAT, (PREVIEW,), SETTINGS)]
    cut_after_preview = wire(*frames[:-2])
    events, outcome = decode_every_way(cut_after_preview)
    assert outcome.end == "truncated"
    assert outcome.message.items == (TextDone("Drawing."),)
    assert sides(events) == progress("ig_1", partials=1, completes=False)
    whole = wire(*frames, completed([CAT]))
    inside_the_done = whole[
        : whole.index(b'"result"', whole.index(b"response.output_item.done", len(cut_after_preview)))
    ]
    _, cut = decode_every_way(inside_the_done)
    assert (cut.end, cut.message.items) == ("truncated", (TextDone("Drawing."),))


# --- any JSON value of the wrong type -------------------------------------------------------------

WRONG: dict[str, list[dict[str, Any]]] = {
    "item not an object": [added(0, {"id": "ig_1", "type": "image_generation_call"}), done(0, "ig_1")],
    "item null": [added(0, {"id": "ig_1", "type": "image_generation_call"}), done(0, None)],
    "id a number": [added(0, {"id": 7, "type": "image_generation_call"}), done(0, {**CAT, "id": 7})],
    "status a list": [
        added(0, {"id": "ig_1", "type": "image_generation_call"}),
        done(0, {**CAT, "status": ["failed"]}),
    ],
    "output_format a number": [
        added(0, {"id": "ig_1", "type": "image_generation_call"}),
        done(0, image_item("ig_1", b64(PNG), output_format=5)),
    ],
    "settings of other types": [
        added(0, {"id": "ig_1", "type": "image_generation_call"}),
        done(0, image_item("ig_1", b64(PNG), revised_prompt={"a": 1}, size=1024, quality=None, background=[])),
    ],
    "partial image of other types": [
        added(0, {"id": "ig_1", "type": "image_generation_call"}),
        {
            "type": "response.image_generation_call.partial_image",
            "output_index": 0,
            "item_id": 5,
            "partial_image_b64": 5,
            "partial_image_index": "0",
        },
        done(0, CAT),
    ],
    "output_index a string": [
        added(0, {"id": "ig_1", "type": "image_generation_call"}),
        {"type": "response.image_generation_call.generating", "output_index": "0", "item_id": "ig_1"},
        done(0, CAT),
    ],
}


@pytest.mark.parametrize("name", WRONG)
def test_json_values_of_the_wrong_type_never_raise(name: str) -> None:
    events, outcome = decode_every_way(wire(created(), *WRONG[name], completed()))
    assert outcome.end == "complete"
    images = [i for i in outcome.message.items if isinstance(i, InlineDataDone)]
    if name in ("item not an object", "item null"):
        assert images == []
        assert sides(events)[-1][:3] == ("image_generation_call", "done", "ig_1")
    elif name == "id a number":  # no id to keep, from the added item or the done
        assert images == [InlineDataDone(PNG, "image/png", FULL)]
    elif name == "output_format a number":  # kept as it came; the bytes say what the image is
        assert images == [InlineDataDone(PNG, "image/png", {"image_generation_call_id": "ig_1", "output_format": 5})]
    elif name == "settings of other types":  # fidelity is opaque: kept as it came, a null left out
        fidelity = {"image_generation_call_id": "ig_1", "revised_prompt": {"a": 1}, "size": 1024, "background": []}
        assert images == [InlineDataDone(PNG, "image/png", fidelity)]
    else:
        assert [i.data for i in images] == [PNG]


# --- Hypothesis over the splits -----------------------------------------------------------------


@pytest.mark.parametrize("name", STREAMS)
@settings(max_examples=25, deadline=None)
@given(data=st.data())
def test_any_split_on_either_path_decodes_as_the_whole(name: str, data: st.DataObject) -> None:
    body = STREAMS[name]
    cuts = data.draw(st.lists(st.integers(1, len(body) - 1), max_size=40))
    slow = data.draw(st.booleans())
    assert decode(body, pieces_at(body, cuts), slow) == decode(body)


def test_the_text_around_an_image_still_takes_the_fast_path() -> None:
    pieces = [f"word{n} " for n in range(12)]
    body = wire(created(), *message(0, *pieces), *image_call(1, "ig_1", CAT), *message(2, *pieces), completed())
    fast = decoder_on_path("openai_responses", False, stream_id="s", clock=lambda: 0, side_events=True)
    events = fast.push(body)
    last, outcome = fast.finish()
    assert fast.fast_frames > 0
    assert (events + last, outcome) == decode(body, slow=True)


# --- written back -------------------------------------------------------------------------------


def written(events: list[Any], **options: Any) -> tuple[bytes, list[str]]:
    encoder = unievent.StreamEncoder("openai_responses", **options)
    body = b"".join(encoder.push(e) for e in events)
    ended = any(isinstance(e, StopEvent) for e in events)
    return body + (encoder.finish() if ended else encoder.abort()), encoder.dropped


CUT = wire(created(), *message(0, "Drawing."), *image_call(1, "ig_1", CAT, (PREVIEW,), SETTINGS)[:-2])


WRITTEN = {
    **STREAMS,
    "cut mid-call": CUT,
    **{
        f"wrong types: {name}": wire(created(), *frames, completed())
        for name, frames in WRONG.items()
        if name != "id a number"  # a made-up id comes back: below
    },
}


@pytest.mark.parametrize("name", WRITTEN)
def test_what_the_writer_writes_decodes_to_the_same_items_in_any_split(name: str) -> None:
    events, outcome = decode(WRITTEN[name])
    body, dropped = written(events)
    again, back = decode_every_way(body)
    assert items(again) == items(events)  # the image's fidelity included
    assert (back.end, back.message, back.usage) == (outcome.end, outcome.message, outcome.usage)
    assert set(dropped) <= {"side events image_generation_call"}  # the previews: the wire's own, not re-sent


def test_an_image_whose_call_had_no_id_is_written_with_one() -> None:
    events, _ = decode(wire(created(), *WRONG["id a number"], completed()))
    body, _ = written(events)
    _, back = decode_every_way(body)
    assert back.message.items == (InlineDataDone(PNG, "image/png", {"image_generation_call_id": "ig_0", **FULL}),)


def test_an_image_comes_back_as_the_call_it_came_as() -> None:
    events, _ = decode(STREAMS["partial images then the final"])
    body, _ = written(events)
    frames = [json.loads(line[6:]) for line in body.decode().splitlines() if line.startswith("data: ")]
    assert [f["type"] for f in frames][2:-1] == [
        "response.output_item.added",
        "response.image_generation_call.in_progress",
        "response.image_generation_call.generating",
        "response.image_generation_call.completed",
        "response.output_item.done",
    ]
    assert frames[2]["item"] == {"id": "ig_1", "type": "image_generation_call", "status": "in_progress"}
    assert frames[6]["item"] == CAT
    assert frames[-1]["response"]["output"] == [CAT]


def test_an_image_from_elsewhere_gets_an_id_and_the_format_its_type_names() -> None:
    events = [
        DeltaEvent(InlineDataDelta(JPEG, "image/jpeg"), 0),
        DeltaEvent(InlineDataDone(JPEG, "image/jpeg"), 0),
        DeltaEvent(InlineDataDelta(b"BM\x00\x01", "image/bmp"), 0),
        DeltaEvent(InlineDataDone(b"BM\x00\x01", "image/bmp"), 0),
        StopEvent(Usage(), "stop", 0),
    ]
    body, dropped = written(events)
    assert dropped == []
    _, outcome = decode_every_way(body)
    assert outcome.message.items == (
        InlineDataDone(JPEG, "image/jpeg", {"image_generation_call_id": "ig_0", "output_format": "jpeg"}),
        InlineDataDone(b"BM\x00\x01", "image/bmp", {"image_generation_call_id": "ig_1", "output_format": "bmp"}),
    )


def test_another_protocol_s_fidelity_is_dropped_and_said() -> None:
    events = [
        DeltaEvent(InlineDataDelta(PNG, "image/png", {"image_generation_call_id": "x", "signature": "c2ln"}), 0),
        DeltaEvent(InlineDataDone(PNG, "image/png", {"image_generation_call_id": "x", "signature": "c2ln"}), 0),
        StopEvent(Usage(), "stop", 0),
    ]
    body, dropped = written(events, fidelity_from="gemini")
    assert dropped == ["image_generation_call_id (from gemini)", "signature (from gemini)"]
    assert decode(body)[1].message.items == (
        InlineDataDone(PNG, "image/png", {"image_generation_call_id": "ig_0", "output_format": "png"}),
    )


def test_inline_data_that_is_no_image_has_no_place_in_responses() -> None:
    events = [
        DeltaEvent(InlineDataDelta(b"\x00\x01", "audio/pcm"), 0),
        DeltaEvent(InlineDataDone(b"\x00\x01", "audio/pcm"), 0),
        DeltaEvent(TextDelta("Hi"), 0),
        DeltaEvent(TextDone("Hi"), 0),
        StopEvent(Usage(), "stop", 0),
    ]
    body, dropped = written(events)
    assert dropped == ["inline_data.delta (no place in OpenAI Responses)"]
    assert decode(body)[1].message.items == (TextDone("Hi"),)


# --- the OpenAI SDK reads what the writer wrote ---------------------------------------------------


def test_the_openai_sdk_stream_helper_reads_the_written_images(serving: Any) -> None:
    openai = pytest.importorskip("openai")
    events, _ = decode(STREAMS["two images"])
    body, _ = written(events)
    client = openai.OpenAI(base_url=serving(body) + "/v1", api_key="x", max_retries=0)
    with client.responses.stream(model=MODEL, input="draw", tools=[{"type": "image_generation"}]) as stream:
        final = stream.get_final_response()
    calls = [item for item in final.output if item.type == "image_generation_call"]
    assert [(c.id, c.status, base64.b64decode(c.result or "")) for c in calls] == [
        ("ig_1", "completed", PNG),
        ("ig_2", "completed", JPEG),
    ]
    assert calls[0].revised_prompt == FULL["revised_prompt"]
    assert (calls[1].output_format, calls[1].size) == ("jpeg", "1536x1024")
    assert final.output_text == "Two pictures."


def test_the_openai_sdk_raw_stream_reads_the_written_image(serving: Any) -> None:
    openai = pytest.importorskip("openai")
    events, _ = decode(STREAMS["text then an image"])
    body, _ = written(events)
    client = openai.OpenAI(base_url=serving(body) + "/v1", api_key="x", max_retries=0)
    stream = client.responses.create(model=MODEL, input="draw", tools=[{"type": "image_generation"}], stream=True)
    seen = list(stream)
    [image] = [e.item for e in seen if e.type == "response.output_item.done" and e.item.type == "image_generation_call"]
    assert (image.id, image.result) == ("ig_1", b64(PNG))
    final = seen[-1]
    assert final.type == "response.completed"
    assert [item.type for item in final.response.output] == ["message", "image_generation_call"]
    assert final.response.output[1].result == b64(PNG)
