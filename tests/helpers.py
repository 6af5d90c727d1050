"""Small builders shared by the protocol tests."""

from __future__ import annotations

import importlib.util
import itertools
import os
from pathlib import Path
from types import ModuleType
from typing import Any

import orjson

import unievent
from unievent import Outcome, TextDone, ThinkingDone, ToolCallDone
from unievent._decoder import StreamDecoder as RuntimeStreamDecoder  # takes any protocol name


def chunk(delta: dict[str, Any] | None = None, finish: str | None = None, **top: Any) -> dict[str, Any]:
    """A chat.completion.chunk with one choice (or the given top-level fields only)."""
    body: dict[str, Any] = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "gpt-test"}
    if delta is not None or finish is not None:
        body["choices"] = [{"index": 0, "delta": delta or {}, "finish_reason": finish}]
    body.update(top)
    return body


def sse(*frames: dict[str, Any] | str, done: bool = True, crlf: bool = False) -> bytes:
    """`data: <json>` frames, each followed by a blank line, then `data: [DONE]`."""
    out = b""
    for frame in frames:
        payload = frame.encode() if isinstance(frame, str) else orjson.dumps(frame)
        out += b"data: " + payload + b"\n\n"
    if done:
        out += b"data: [DONE]\n\n"
    return out.replace(b"\n", b"\r\n") if crlf else out


def decode(
    data: bytes, protocol: str = "openai_chat", pieces: list[bytes] | None = None, **options: Any
) -> tuple[list[Any], Outcome]:
    """All events and the outcome of a body fed whole (or in the given pieces)."""
    options.setdefault("stream_id", "s1")
    options.setdefault("clock", lambda: 1694502400000)
    decoder = RuntimeStreamDecoder(protocol, **options)
    events: list[Any] = []
    for piece in pieces if pieces is not None else [data]:
        events += decoder.push(piece)
    last, outcome = decoder.finish()
    events += last
    unievent.validate(events, partial=outcome.end != "complete")
    return events, outcome


def text_of(outcome: Outcome) -> str:
    return "".join(i.text for i in outcome.message.items if isinstance(i, TextDone))


def thinking_of(outcome: Outcome) -> str:
    return "".join(i.thinking for i in outcome.message.items if isinstance(i, ThinkingDone))


def calls_of(outcome: Outcome) -> list[tuple[str, str, dict[str, Any]]]:
    return [(i.name, i.tool_call_id, i.arguments) for i in outcome.message.items if isinstance(i, ToolCallDone)]


def items_of(events: list[Any]) -> list[Any]:
    return [e.item for e in events if isinstance(e, unievent.DeltaEvent)]


def split_at(data: bytes, cuts: list[int]) -> list[bytes]:
    """`data` cut at the given offsets (sorted, deduplicated, clamped)."""
    points = sorted({min(max(c, 0), len(data)) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points)]


def decode_stream(protocol: str, body: bytes | list[bytes], **options: Any) -> tuple[list[Any], Outcome]:
    """All events and the outcome of a body fed whole or in the given pieces (stream id
    "s", clock 0), the events checked against the grammar."""
    from unievent._decoder import StreamDecoder

    decoder = StreamDecoder(protocol, stream_id="s", clock=lambda: 0, **options)
    events: list[Any] = []
    for piece in [body] if isinstance(body, bytes) else body:
        events += decoder.push(piece)
    last, outcome = decoder.finish()
    events += last
    unievent.validate(events, partial=outcome.end != "complete")
    return events, outcome


def split_everywhere(protocol: str, body: bytes, **options: Any) -> tuple[list[Any], Outcome]:
    """`decode_stream` of the body whole, cut at every byte, and byte by byte: the same
    result every time, returned."""
    whole = decode_stream(protocol, body, **options)
    for cut in range(1, len(body)):
        assert decode_stream(protocol, split_at(body, [cut]), **options) == whole, f"cut at {cut}"
    assert decode_stream(protocol, [body[i : i + 1] for i in range(len(body))], **options) == whole
    return whole


def decoder_on_path(protocol: str, slow: bool, **options: Any) -> RuntimeStreamDecoder:
    """A decoder with the fast paths on, or off (`slow`): UNIEVENT_SLOW_PATH is read when
    a decoder is made, and put back as it was."""
    previous = os.environ.get("UNIEVENT_SLOW_PATH")
    os.environ["UNIEVENT_SLOW_PATH"] = "1" if slow else "0"
    try:
        return RuntimeStreamDecoder(protocol, **options)
    finally:
        if previous is None:
            del os.environ["UNIEVENT_SLOW_PATH"]
        else:
            os.environ["UNIEVENT_SLOW_PATH"] = previous


def stand_in(module: str) -> ModuleType:
    """The pure-Python stand-in of a C module (`_gcfree`, `_awsframes`): the source
    beside the extension, loaded as a module of its own in either build (the pure build
    imports it under its name; the compiled build has the C module there)."""
    source = Path(unievent.__file__).with_name(f"{module}.py")
    spec = importlib.util.spec_from_file_location(f"{module}_stand_in", source)
    assert spec is not None and spec.loader is not None
    loaded = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(loaded)
    return loaded
