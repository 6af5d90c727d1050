"""MMSP JSON shape of the UniEvent vocabulary: unievent._json.to_json / from_json."""

from __future__ import annotations

import pickle
from typing import Any

import attrs
import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from unievent._events import (
    FINISH_REASONS,
    DeltaEvent,
    EmbeddingDelta,
    EmbeddingDone,
    ImageUrlDone,
    InlineDataDelta,
    InlineDataDone,
    InlineThinkingDelta,
    InlineThinkingDone,
    Message,
    StopEvent,
    TextDelta,
    TextDone,
    ThinkingDelta,
    ThinkingDone,
    ToolCallDelta,
    ToolCallDone,
    ToolResultDone,
    Usage,
    fast_delta_event,
)
from unievent._json import EventJSONError, from_json, to_json

T0 = 1694502400000
SIG = {"signature": "sig"}


def delta(item: dict[str, Any], created_at: int = T0) -> dict[str, Any]:
    return {
        "role": "assistant",
        "event_type": "delta",
        "content_items": [item],
        "usage_metadata": None,
        "finish_reason": None,
        "created_at": created_at,
    }


def roundtrip_wire(d: dict[str, Any]) -> dict[str, Any]:
    """Through bytes and back, as a real client would see it."""
    loaded: dict[str, Any] = orjson.loads(orjson.dumps(d))
    return loaded


# --- exact shapes ----------------------------------------------------------------------


def test_delta_event_exact_dict_and_key_order() -> None:
    d = to_json(DeltaEvent(item=TextDelta(text="Hel"), created_at=T0))
    assert d == {
        "role": "assistant",
        "event_type": "delta",
        "content_items": [{"type": "text.delta", "text": "Hel"}],
        "usage_metadata": None,
        "finish_reason": None,
        "created_at": 1694502400000,
    }
    assert list(d) == [
        "role",
        "event_type",
        "content_items",
        "usage_metadata",
        "finish_reason",
        "created_at",
    ]
    assert list(d["content_items"][0]) == ["type", "text"]
    assert orjson.dumps(d) == (
        b'{"role":"assistant","event_type":"delta","content_items":'
        b'[{"type":"text.delta","text":"Hel"}],"usage_metadata":null,'
        b'"finish_reason":null,"created_at":1694502400000}'
    )


def test_stop_event_exact_dict_and_key_order() -> None:
    event = StopEvent(
        usage=Usage(
            cached_tokens=3, prompt_tokens=10, thoughts_tokens=7, response_tokens=20
        ),
        finish_reason="tool_call",
        created_at=T0 + 5,
    )
    d = to_json(event)
    assert d == {
        "role": "assistant",
        "event_type": "stop",
        "content_items": [],
        "usage_metadata": {
            "cached_tokens": 3,
            "prompt_tokens": 10,
            "thoughts_tokens": 7,
            "response_tokens": 20,
        },
        "finish_reason": "tool_call",
        "created_at": T0 + 5,
    }
    assert list(d) == [
        "role",
        "event_type",
        "content_items",
        "usage_metadata",
        "finish_reason",
        "created_at",
    ]
    assert list(d["usage_metadata"]) == [
        "cached_tokens",
        "prompt_tokens",
        "thoughts_tokens",
        "response_tokens",
    ]
    assert from_json(d) == event


# (object, exact dict) — list(dict) is also the exact key order.
ITEM_CASES: list[tuple[Any, dict[str, Any]]] = [
    (TextDelta(text="Hel"), {"type": "text.delta", "text": "Hel"}),
    (
        TextDone(text="Hello", fidelity={"phase": "final"}),
        {"type": "text.done", "text": "Hello", "fidelity": {"phase": "final"}},
    ),
    (ThinkingDelta(thinking="hm"), {"type": "thinking.delta", "thinking": "hm"}),
    (
        ThinkingDone(thinking="hmm", fidelity=SIG),
        {"type": "thinking.done", "thinking": "hmm", "fidelity": SIG},
    ),
    (
        ToolCallDelta(name="f", arguments='{"a"', tool_call_id="t1", fidelity=SIG),
        {
            "type": "tool_call.delta",
            "name": "f",
            "arguments": '{"a"',
            "tool_call_id": "t1",
            "fidelity": SIG,
        },
    ),
    (
        ToolCallDone(name="f", arguments={"a": [1, None]}, tool_call_id="t1"),
        {
            "type": "tool_call.done",
            "name": "f",
            "arguments": {"a": [1, None]},
            "tool_call_id": "t1",
        },
    ),
    (
        InlineDataDelta(data=b"\x00\x01\xfe\xff", mime_type="image/png"),
        {"type": "inline_data.delta", "data": "AAH+/w==", "mime_type": "image/png"},
    ),
    (
        InlineDataDone(data=b"PNG", mime_type="image/png", fidelity={"k": 1}),
        {
            "type": "inline_data.done",
            "data": "UE5H",
            "mime_type": "image/png",
            "fidelity": {"k": 1},
        },
    ),
    (
        InlineThinkingDelta(data=b"", mime_type="image/jpeg"),
        {"type": "inline_thinking.delta", "data": "", "mime_type": "image/jpeg"},
    ),
    (
        InlineThinkingDone(data=b"ab", mime_type="image/jpeg", fidelity=SIG),
        {
            "type": "inline_thinking.done",
            "data": "YWI=",
            "mime_type": "image/jpeg",
            "fidelity": SIG,
        },
    ),
    (
        EmbeddingDelta(embedding=[0.5, -1.25]),
        {"type": "embedding.delta", "embedding": [0.5, -1.25]},
    ),
    (EmbeddingDone(embedding=[]), {"type": "embedding.done", "embedding": []}),
    (
        ImageUrlDone(image_url="https://x/y.png"),
        {"type": "image_url.done", "image_url": "https://x/y.png"},
    ),
    (
        ImageUrlDone(image_url="u", fidelity={"detail": "low"}),
        {"type": "image_url.done", "image_url": "u", "fidelity": {"detail": "low"}},
    ),
    (
        ToolResultDone(text="18C", tool_call_id="t1"),
        {"type": "tool_result.done", "text": "18C", "tool_call_id": "t1"},
    ),
    (
        ToolResultDone(text="see", tool_call_id="t1", images=["u1"], fidelity=SIG),
        {
            "type": "tool_result.done",
            "text": "see",
            "images": ["u1"],
            "tool_call_id": "t1",
            "fidelity": SIG,
        },
    ),
]


@pytest.mark.parametrize(("obj", "expected"), ITEM_CASES)
def test_item_exact_dict(obj: Any, expected: dict[str, Any]) -> None:
    d = to_json(obj)
    assert d == expected
    assert from_json(d) == obj
    assert from_json(roundtrip_wire(d)) == obj
    assert to_json(from_json(expected)) == expected
    # wrapped in a delta event, the item is the same dict
    event = to_json(DeltaEvent(item=obj, created_at=T0))
    assert event == delta(expected)
    assert from_json(roundtrip_wire(event)) == DeltaEvent(item=obj, created_at=T0)


def test_item_key_order() -> None:
    assert list(to_json(ITEM_CASES[4][0])) == [
        "type",
        "name",
        "arguments",
        "tool_call_id",
        "fidelity",
    ]
    assert list(to_json(ITEM_CASES[5][0])) == [
        "type",
        "name",
        "arguments",
        "tool_call_id",
    ]
    assert list(to_json(ITEM_CASES[7][0])) == ["type", "data", "mime_type", "fidelity"]
    assert list(to_json(ITEM_CASES[9][0])) == ["type", "data", "mime_type", "fidelity"]
    assert list(to_json(ITEM_CASES[10][0])) == ["type", "embedding"]
    assert list(to_json(ITEM_CASES[13][0])) == ["type", "image_url", "fidelity"]
    # tool_result.done: type, text, images?, tool_call_id, fidelity?
    assert list(to_json(ITEM_CASES[15][0])) == [
        "type",
        "text",
        "images",
        "tool_call_id",
        "fidelity",
    ]


def test_usage_exact_dict() -> None:
    assert to_json(Usage(prompt_tokens=4)) == {
        "cached_tokens": None,
        "prompt_tokens": 4,
        "thoughts_tokens": None,
        "response_tokens": None,
    }
    assert from_json(to_json(Usage(1, 2, 3, 4))) == Usage(1, 2, 3, 4)
    assert from_json(to_json(Usage())) == Usage()


def test_message_exact_dict() -> None:
    message = Message(
        role="assistant",
        items=(
            ThinkingDone(thinking="Let me check", fidelity=SIG),
            ToolCallDone(
                name="get_weather",
                arguments={"location": "Paris"},
                tool_call_id="toolu_1",
            ),
        ),
        usage=Usage(0, 12, 5, 9),
        finish_reason="tool_call",
        created_at=T0,
    )
    d = to_json(message)
    assert d == {
        "role": "assistant",
        "content_items": [
            {"type": "thinking.done", "thinking": "Let me check", "fidelity": SIG},
            {
                "type": "tool_call.done",
                "name": "get_weather",
                "arguments": {"location": "Paris"},
                "tool_call_id": "toolu_1",
            },
        ],
        "usage_metadata": {
            "cached_tokens": 0,
            "prompt_tokens": 12,
            "thoughts_tokens": 5,
            "response_tokens": 9,
        },
        "finish_reason": "tool_call",
        "created_at": T0,
    }
    assert list(d) == [
        "role",
        "content_items",
        "usage_metadata",
        "finish_reason",
        "created_at",
    ]
    assert from_json(roundtrip_wire(d)) == message


def test_message_without_created_at_usage_or_reason() -> None:
    message = Message(
        role="user",
        items=(
            ImageUrlDone(image_url="u"),
            ToolResultDone(text="ok", tool_call_id="t"),
        ),
        usage=None,
        finish_reason=None,
        created_at=None,
    )
    d = to_json(message)
    assert d == {
        "role": "user",
        "content_items": [
            {"type": "image_url.done", "image_url": "u"},
            {"type": "tool_result.done", "text": "ok", "tool_call_id": "t"},
        ],
        "usage_metadata": None,
        "finish_reason": None,
    }
    assert "created_at" not in d
    assert from_json(d) == message
    # null created_at on input reads as None (and is written back as absent)
    assert from_json({**d, "created_at": None}) == message


# --- the MMSP seed stream ----------------------------------------------------------------

SEED_EVENTS: list[DeltaEvent | StopEvent] = [
    DeltaEvent(item=ThinkingDelta(thinking="Let me"), created_at=T0),
    DeltaEvent(item=ThinkingDelta(thinking=" check"), created_at=T0 + 1),
    DeltaEvent(item=ThinkingDelta(thinking="", fidelity=SIG), created_at=T0 + 2),
    DeltaEvent(
        item=ThinkingDone(thinking="Let me check", fidelity=SIG), created_at=T0 + 3
    ),
    DeltaEvent(
        item=ToolCallDelta(name="get_weather", arguments="", tool_call_id="toolu_1"),
        created_at=T0 + 4,
    ),
    DeltaEvent(
        item=ToolCallDelta(name="", arguments='{"location": ', tool_call_id=""),
        created_at=T0 + 5,
    ),
    DeltaEvent(
        item=ToolCallDelta(name="", arguments='"Paris"}', tool_call_id=""),
        created_at=T0 + 6,
    ),
    DeltaEvent(
        item=ToolCallDone(
            name="get_weather", arguments={"location": "Paris"}, tool_call_id="toolu_1"
        ),
        created_at=T0 + 7,
    ),
    StopEvent(
        usage=Usage(
            cached_tokens=0, prompt_tokens=25, thoughts_tokens=4, response_tokens=12
        ),
        finish_reason="tool_call",
        created_at=T0 + 8,
    ),
]

SEED_DICTS: list[dict[str, Any]] = [
    delta({"type": "thinking.delta", "thinking": "Let me"}, T0),
    delta({"type": "thinking.delta", "thinking": " check"}, T0 + 1),
    delta({"type": "thinking.delta", "thinking": "", "fidelity": SIG}, T0 + 2),
    delta(
        {"type": "thinking.done", "thinking": "Let me check", "fidelity": SIG}, T0 + 3
    ),
    delta(
        {
            "type": "tool_call.delta",
            "name": "get_weather",
            "arguments": "",
            "tool_call_id": "toolu_1",
        },
        T0 + 4,
    ),
    delta(
        {
            "type": "tool_call.delta",
            "name": "",
            "arguments": '{"location": ',
            "tool_call_id": "",
        },
        T0 + 5,
    ),
    delta(
        {
            "type": "tool_call.delta",
            "name": "",
            "arguments": '"Paris"}',
            "tool_call_id": "",
        },
        T0 + 6,
    ),
    delta(
        {
            "type": "tool_call.done",
            "name": "get_weather",
            "arguments": {"location": "Paris"},
            "tool_call_id": "toolu_1",
        },
        T0 + 7,
    ),
    {
        "role": "assistant",
        "event_type": "stop",
        "content_items": [],
        "usage_metadata": {
            "cached_tokens": 0,
            "prompt_tokens": 25,
            "thoughts_tokens": 4,
            "response_tokens": 12,
        },
        "finish_reason": "tool_call",
        "created_at": T0 + 8,
    },
]


def test_seed_stream_exact_dicts() -> None:
    assert [to_json(e) for e in SEED_EVENTS] == SEED_DICTS


def test_seed_stream_roundtrips_through_orjson_unchanged() -> None:
    wire = [orjson.dumps(to_json(e)) for e in SEED_EVENTS]
    back = [from_json(orjson.loads(line)) for line in wire]
    assert back == SEED_EVENTS
    # and the bytes themselves survive a read/write cycle unchanged
    assert [
        orjson.dumps(to_json(from_json(orjson.loads(line)))) for line in wire
    ] == wire
    # the fidelity carrier is exactly the empty thinking.delta and the thinking.done
    assert [b"fidelity" in line for line in wire] == [
        False,
        False,
        True,
        True,
        False,
        False,
        False,
        False,
        False,
    ]


def test_fast_built_event_serializes_the_same() -> None:
    item = TextDelta(text="Hel")
    assert to_json(fast_delta_event(item, T0)) == to_json(
        DeltaEvent(item=item, created_at=T0)
    )
    assert from_json(to_json(fast_delta_event(item, T0))) == DeltaEvent(
        item=item, created_at=T0
    )


# --- bytes, absent keys, pass-through ----------------------------------------------------


def test_bytes_travel_as_standard_base64() -> None:
    raw = bytes(range(256))
    d = to_json(InlineDataDone(data=raw, mime_type="application/octet-stream"))
    assert d["data"] == (
        "AAECAwQFBgcICQoLDA0ODxAREhMUFRYXGBkaGxwdHh8gISIjJCUmJygpKissLS4vMDEyMzQ1Njc4OTo7"
        "PD0+P0BBQkNERUZHSElKS0xNTk9QUVJTVFVWV1hZWltcXV5fYGFiY2RlZmdoaWprbG1ub3BxcnN0dXZ3"
        "eHl6e3x9fn+AgYKDhIWGh4iJiouMjY6PkJGSk5SVlpeYmZqbnJ2en6ChoqOkpaanqKmqq6ytrq+wsbKz"
        "tLW2t7i5uru8vb6/wMHCw8TFxsfIycrLzM3Oz9DR0tPU1dbX2Nna29zd3t/g4eLj5OXm5+jp6uvs7e7v"
        "8PHy8/T19vf4+fr7/P3+/w=="
    )
    back = from_json(roundtrip_wire(d))
    assert isinstance(back, InlineDataDone)
    assert type(back.data) is bytes
    assert back.data == raw


def test_absent_keys_stay_absent() -> None:
    for obj, expected in ITEM_CASES:
        d = to_json(obj)
        if getattr(obj, "fidelity", None) is None:
            assert "fidelity" not in d
        if getattr(obj, "images", None) is None:
            assert "images" not in d
        assert None not in d.values()
        assert d == expected
    assert "fidelity" not in to_json(EmbeddingDelta(embedding=[1.0]))


def test_null_optional_keys_read_as_absent() -> None:
    item = from_json({"type": "text.delta", "text": "a", "fidelity": None})
    assert item == TextDelta(text="a")
    assert to_json(item) == {"type": "text.delta", "text": "a"}
    result = from_json(
        {"type": "tool_result.done", "text": "", "images": None, "tool_call_id": "t"}
    )
    assert result == ToolResultDone(text="", tool_call_id="t")


def test_fidelity_passes_through_unchanged() -> None:
    fidelity = {"signature": "x" * 300, "nested": {"a": [1, 2.5, None, True]}, "": ""}
    d = to_json(ThinkingDone(thinking="t", fidelity=fidelity))
    assert d["fidelity"] is fidelity
    back = from_json(roundtrip_wire(d))
    assert isinstance(back, ThinkingDone)
    assert back.fidelity == fidelity


def test_embedding_integers_read_as_floats() -> None:
    back = from_json({"type": "embedding.done", "embedding": [1, 2.5]})
    assert isinstance(back, EmbeddingDone)
    assert back.embedding == [1.0, 2.5]
    assert [type(x) for x in back.embedding] == [float, float]


def test_to_json_rejects_foreign_objects() -> None:
    with pytest.raises(TypeError, match="dict is not a UniEvent object"):
        to_json({"type": "text.delta"})  # type: ignore[arg-type]  # deliberately wrong
    with pytest.raises(TypeError, match="str is not a UniEvent content item"):
        to_json(DeltaEvent(item="oops", created_at=1))  # type: ignore[arg-type]


# --- bad input -----------------------------------------------------------------------------

GOOD_TEXT = {"type": "text.delta", "text": "Hel"}
GOOD_STOP = SEED_DICTS[-1]
GOOD_MESSAGE = {
    "role": "assistant",
    "content_items": [{"type": "text.done", "text": "a"}],
    "usage_metadata": None,
    "finish_reason": "stop",
}


def without(d: dict[str, Any], key: str) -> dict[str, Any]:
    return {k: v for k, v in d.items() if k != key}


BAD_CASES: list[tuple[str, object, str, str]] = [
    # (id, input, field, text the message must contain)
    ("int document", 5, "", "expected a JSON object, got integer 5"),
    ("list document", [GOOD_TEXT], "", "got array"),
    ("null document", None, "", "got null"),
    ("string document", "{}", "", "got string '{}'"),
    ("empty object", {}, "", "not a UniEvent object"),
    (
        "unknown item type",
        {"type": "text.deltas", "text": "a"},
        "type",
        "'text.deltas'",
    ),
    ("item type not a string", {"type": 5}, "type", "got integer 5"),
    (
        "unknown item type in event",
        delta({"type": "video.delta", "text": "a"}),
        "content_items[0].type",
        "unknown item type, got string 'video.delta'",
    ),
    ("missing item field", {"type": "text.delta"}, "text", "missing field"),
    (
        "missing item type in event",
        delta({"text": "a"}),
        "content_items[0].type",
        "missing field",
    ),
    (
        "missing field in event item",
        delta({"type": "tool_call.delta", "name": "", "arguments": ""}),
        "content_items[0].tool_call_id",
        "missing field",
    ),
    ("text is int", {"type": "text.delta", "text": 5}, "text", "got integer 5"),
    (
        "text is int in event",
        delta({"type": "text.delta", "text": 5}),
        "content_items[0].text",
        "expected a string, got integer 5",
    ),
    (
        "thinking is null",
        delta({"type": "thinking.done", "thinking": None}),
        "content_items[0].thinking",
        "got null",
    ),
    (
        "invalid base64",
        delta({"type": "inline_data.delta", "data": "not base64!", "mime_type": "a/b"}),
        "content_items[0].data",
        "invalid base64",
    ),
    (
        "base64 without padding",
        {"type": "inline_data.done", "data": "AAH+/w", "mime_type": "a/b"},
        "data",
        "invalid base64",
    ),
    (
        "url-safe base64",
        {"type": "inline_thinking.delta", "data": "AAH-_w==", "mime_type": "a/b"},
        "data",
        "invalid base64",
    ),
    (
        "base64 not a string",
        {"type": "inline_thinking.done", "data": [1], "mime_type": "a/b"},
        "data",
        "expected base64 text, got array [1]",
    ),
    (
        "mime type missing",
        {"type": "inline_data.delta", "data": ""},
        "mime_type",
        "missing field",
    ),
    (
        "fidelity not an object",
        {"type": "text.delta", "text": "a", "fidelity": "sig"},
        "fidelity",
        "expected an object, got string 'sig'",
    ),
    (
        "embedding carries no fidelity",
        {"type": "embedding.delta", "embedding": [1.0], "fidelity": {}},
        "fidelity",
        "unexpected field",
    ),
    (
        "unexpected item key",
        delta({"type": "text.delta", "text": "a", "txt": "a"}),
        "content_items[0].txt",
        "unexpected field, got string 'a'",
    ),
    (
        "embedding element not a number",
        {"type": "embedding.delta", "embedding": [1.0, "2"]},
        "embedding[1]",
        "expected a number, got string '2'",
    ),
    (
        "embedding element boolean",
        {"type": "embedding.done", "embedding": [True]},
        "embedding[0]",
        "got boolean True",
    ),
    (
        "embedding not a list",
        {"type": "embedding.done", "embedding": "1,2"},
        "embedding",
        "expected an array of numbers",
    ),
    (
        "tool_call.done arguments as text",
        {"type": "tool_call.done", "name": "f", "arguments": "{}", "tool_call_id": "t"},
        "arguments",
        "expected an object, got string '{}'",
    ),
    (
        "tool_call.delta arguments as object",
        {"type": "tool_call.delta", "name": "f", "arguments": {}, "tool_call_id": "t"},
        "arguments",
        "expected a string, got object {}",
    ),
    (
        "tool result image not a string",
        {"type": "tool_result.done", "text": "", "tool_call_id": "t", "images": [3]},
        "images[0]",
        "got integer 3",
    ),
    (
        "item not an object",
        {**delta(GOOD_TEXT), "content_items": ["text.delta"]},
        "content_items[0]",
        "expected an item object, got string",
    ),
    (
        "two items in a delta event",
        {**delta(GOOD_TEXT), "content_items": [GOOD_TEXT, GOOD_TEXT]},
        "content_items",
        "exactly one item, got 2",
    ),
    (
        "no item in a delta event",
        {**delta(GOOD_TEXT), "content_items": []},
        "content_items",
        "exactly one item, got 0",
    ),
    (
        "content_items not an array",
        {**delta(GOOD_TEXT), "content_items": GOOD_TEXT},
        "content_items",
        "expected an array, got object",
    ),
    (
        "delta event with usage",
        {**delta(GOOD_TEXT), "usage_metadata": GOOD_STOP["usage_metadata"]},
        "usage_metadata",
        "must be null in a delta event",
    ),
    (
        "delta event with finish reason",
        {**delta(GOOD_TEXT), "finish_reason": "stop"},
        "finish_reason",
        "must be null in a delta event, got string 'stop'",
    ),
    (
        "event missing created_at",
        without(delta(GOOD_TEXT), "created_at"),
        "created_at",
        "missing field",
    ),
    (
        "event created_at as text",
        {**delta(GOOD_TEXT), "created_at": "1694502400000"},
        "created_at",
        "expected an integer, got string '1694502400000'",
    ),
    (
        "event created_at boolean",
        {**GOOD_STOP, "created_at": True},
        "created_at",
        "got boolean True",
    ),
    (
        "event role not assistant",
        {**delta(GOOD_TEXT), "role": "user"},
        "role",
        "expected 'assistant', got string 'user'",
    ),
    (
        "unknown event type",
        {**delta(GOOD_TEXT), "event_type": "start"},
        "event_type",
        "got string 'start'",
    ),
    (
        "unexpected event key",
        {**delta(GOOD_TEXT), "id": 1},
        "id",
        "unexpected field, got integer 1",
    ),
    (
        "stop with an item",
        {**GOOD_STOP, "content_items": [GOOD_TEXT]},
        "content_items",
        "a stop event carries no items, got 1",
    ),
    (
        "bad finish reason",
        {**GOOD_STOP, "finish_reason": "end_turn"},
        "finish_reason",
        "got string 'end_turn'",
    ),
    (
        "null finish reason in stop",
        {**GOOD_STOP, "finish_reason": None},
        "finish_reason",
        "got null",
    ),
    (
        "null usage in stop",
        {**GOOD_STOP, "usage_metadata": None},
        "usage_metadata",
        "needs a usage object, got null",
    ),
    (
        "usage tokens as text",
        {
            **GOOD_STOP,
            "usage_metadata": {**GOOD_STOP["usage_metadata"], "prompt_tokens": "25"},
        },
        "usage_metadata.prompt_tokens",
        "expected an integer, got string '25'",
    ),
    (
        "usage key missing",
        {
            **GOOD_STOP,
            "usage_metadata": without(GOOD_STOP["usage_metadata"], "cached_tokens"),
        },
        "usage_metadata.cached_tokens",
        "missing field",
    ),
    (
        "usage not an object",
        {**GOOD_STOP, "usage_metadata": [1, 2, 3, 4]},
        "usage_metadata",
        "expected a usage object, got array",
    ),
    (
        "bare usage with float",
        {
            "cached_tokens": None,
            "prompt_tokens": 1.5,
            "thoughts_tokens": None,
            "response_tokens": None,
        },
        "prompt_tokens",
        "got number 1.5",
    ),
    (
        "message holding a delta item",
        {**GOOD_MESSAGE, "content_items": [GOOD_TEXT]},
        "content_items[0].type",
        "only done items, got string 'text.delta'",
    ),
    (
        "message item with bad field",
        {
            **GOOD_MESSAGE,
            "content_items": [
                {"type": "text.done", "text": "a"},
                {"type": "text.done", "text": 5},
            ],
        },
        "content_items[1].text",
        "got integer 5",
    ),
    (
        "message role not a string",
        {**GOOD_MESSAGE, "role": 1},
        "role",
        "expected a string, got integer 1",
    ),
    (
        "message missing usage key",
        without(GOOD_MESSAGE, "usage_metadata"),
        "usage_metadata",
        "missing field",
    ),
    (
        "message bad finish reason",
        {**GOOD_MESSAGE, "finish_reason": "done"},
        "finish_reason",
        "got string 'done'",
    ),
    (
        "message created_at as text",
        {**GOOD_MESSAGE, "created_at": "now"},
        "created_at",
        "got string 'now'",
    ),
]


@pytest.mark.parametrize(
    ("document", "field", "message"),
    [pytest.param(doc, field, msg, id=name) for name, doc, field, msg in BAD_CASES],
)
def test_bad_input_raises_event_json_error(
    document: object, field: str, message: str
) -> None:
    with pytest.raises(EventJSONError) as info:
        from_json(document)
    error = info.value
    assert type(error) is EventJSONError
    assert isinstance(error, ValueError)
    assert error.field == field
    assert message in str(error)
    if field:
        assert str(error).startswith(f"{field}: ")
    # the cattrs machinery never shows through as the error itself
    assert not isinstance(error, (KeyError, TypeError))


def test_bad_cases_are_single_defects() -> None:
    """Each good base document used above really is valid."""
    assert from_json(GOOD_TEXT) == TextDelta(text="Hel")
    assert from_json(delta(GOOD_TEXT)) == DeltaEvent(
        item=TextDelta(text="Hel"), created_at=T0
    )
    assert isinstance(from_json(GOOD_STOP), StopEvent)
    assert isinstance(from_json(GOOD_MESSAGE), Message)


def test_error_pickles() -> None:
    error = EventJSONError("content_items[0].text", "expected a string, got integer 5")
    back = pickle.loads(pickle.dumps(error))
    assert type(back) is EventJSONError
    assert back.field == error.field
    assert (
        str(back)
        == str(error)
        == "content_items[0].text: expected a string, got integer 5"
    )


def test_long_values_are_cut_in_messages() -> None:
    with pytest.raises(EventJSONError) as info:
        from_json({"type": "text.delta", "text": ["x" * 10_000]})
    assert len(str(info.value)) < 200


# --- properties ----------------------------------------------------------------------------

TEXT = st.text(st.characters(exclude_categories=["Cs"]), max_size=20)
INTS = st.integers(min_value=-(2**63), max_value=2**63 - 1)
FLOATS = st.floats(allow_nan=False, allow_infinity=False)
JSON_VALUES = st.recursive(
    st.none() | st.booleans() | INTS | FLOATS | TEXT,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(TEXT, inner, max_size=3)
    ),
    max_leaves=8,
)
OBJECTS = st.dictionaries(TEXT, JSON_VALUES, max_size=4)
FIDELITY = st.none() | OBJECTS
BLOBS = st.binary(max_size=64)
MIME = st.sampled_from(["image/png", "image/jpeg", "audio/wav", ""])
VECTOR = st.lists(FLOATS, max_size=8)

DELTA_ITEMS = st.one_of(
    st.builds(TextDelta, text=TEXT, fidelity=FIDELITY),
    st.builds(ThinkingDelta, thinking=TEXT, fidelity=FIDELITY),
    st.builds(
        ToolCallDelta, name=TEXT, arguments=TEXT, tool_call_id=TEXT, fidelity=FIDELITY
    ),
    st.builds(InlineDataDelta, data=BLOBS, mime_type=MIME, fidelity=FIDELITY),
    st.builds(InlineThinkingDelta, data=BLOBS, mime_type=MIME, fidelity=FIDELITY),
    st.builds(EmbeddingDelta, embedding=VECTOR),
)
DONE_ITEMS = st.one_of(
    st.builds(TextDone, text=TEXT, fidelity=FIDELITY),
    st.builds(ThinkingDone, thinking=TEXT, fidelity=FIDELITY),
    st.builds(
        ToolCallDone, name=TEXT, arguments=OBJECTS, tool_call_id=TEXT, fidelity=FIDELITY
    ),
    st.builds(InlineDataDone, data=BLOBS, mime_type=MIME, fidelity=FIDELITY),
    st.builds(InlineThinkingDone, data=BLOBS, mime_type=MIME, fidelity=FIDELITY),
    st.builds(EmbeddingDone, embedding=VECTOR),
    st.builds(ImageUrlDone, image_url=TEXT, fidelity=FIDELITY),
    st.builds(
        ToolResultDone,
        text=TEXT,
        tool_call_id=TEXT,
        images=st.none() | st.lists(TEXT, max_size=3),
        fidelity=FIDELITY,
    ),
)
ITEMS = DELTA_ITEMS | DONE_ITEMS
TOKENS = st.none() | st.integers(min_value=0, max_value=2**40)
USAGE = st.builds(
    Usage,
    cached_tokens=TOKENS,
    prompt_tokens=TOKENS,
    thoughts_tokens=TOKENS,
    response_tokens=TOKENS,
)
TIMES = st.integers(min_value=0, max_value=2**53)
REASONS = st.sampled_from(FINISH_REASONS)
EVENTS = st.builds(DeltaEvent, item=ITEMS, created_at=TIMES) | st.builds(
    StopEvent, usage=USAGE, finish_reason=REASONS, created_at=TIMES
)
MESSAGES = st.builds(
    Message,
    role=st.sampled_from(["assistant", "user"]) | TEXT,
    items=st.lists(DONE_ITEMS, max_size=4).map(tuple),
    usage=st.none() | USAGE,
    finish_reason=st.none() | REASONS,
    created_at=st.none() | TIMES,
)
ANYTHING = ITEMS | EVENTS | MESSAGES | USAGE


def expected_item_keys(item: Any) -> list[str]:
    names = [field.name for field in attrs.fields(type(item))]
    if type(item) is ToolResultDone:  # MMSP puts images before tool_call_id
        names = ["text", "images", "tool_call_id", "fidelity"]
    keys = ["type"]
    for name in names:
        if name in ("fidelity", "images") and getattr(item, name) is None:
            continue
        keys.append(name)
    return keys


@settings(max_examples=400)
@given(ANYTHING)
def test_property_roundtrip_is_exact(obj: Any) -> None:
    d = to_json(obj)
    assert from_json(d) == obj
    wire = orjson.dumps(d)
    back = from_json(orjson.loads(wire))
    assert back == obj
    assert type(back) is type(obj)
    assert to_json(back) == d
    assert orjson.dumps(to_json(back)) == wire


@settings(max_examples=300)
@given(ITEMS)
def test_property_item_shape(item: Any) -> None:
    d = to_json(item)
    assert list(d) == expected_item_keys(item)
    assert d["type"] == type(item).type
    assert "fidelity" not in d or d["fidelity"] is not None
    assert "images" not in d or d["images"] is not None
    if hasattr(item, "data"):
        assert isinstance(d["data"], str)
    event = to_json(DeltaEvent(item=item, created_at=7))
    assert event["content_items"] == [d]


def paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    """Every key/index path inside a JSON value."""
    out: list[tuple[Any, ...]] = []
    if isinstance(value, dict):
        for key, sub in value.items():
            out.append((*prefix, key))
            out.extend(paths(sub, (*prefix, key)))
    elif isinstance(value, list):
        for index, sub in enumerate(value):
            out.append((*prefix, index))
            out.extend(paths(sub, (*prefix, index)))
    return out


@settings(max_examples=400)
@given(ANYTHING, st.data())
def test_property_damaged_input_raises_only_event_json_error(
    obj: Any, data: Any
) -> None:
    document: Any = orjson.loads(orjson.dumps(to_json(obj)))
    where = paths(document)
    if not where:
        return
    path = data.draw(st.sampled_from(where))
    parent = document
    for step in path[:-1]:
        parent = parent[step]
    if isinstance(parent, dict) and data.draw(st.booleans()):
        del parent[path[-1]]
    else:
        parent[path[-1]] = data.draw(JSON_VALUES)
    try:
        from_json(document)
    except EventJSONError as error:
        assert isinstance(error.field, str)
        assert str(error)
