"""The contenders: each turns a list of wire byte pieces into a `Decoded` summary.

A contender is a factory ``make(protocol) -> run``; the factory does the imports and
set-up (not timed) and raises `Unavailable` when its package or protocol is missing.
``run(pieces)`` decodes the whole stream from scratch on every call (timed).

This module holds the floors and unievent; the optional third-party peers are in
peers.py.  It imports with orjson alone (unievent, msgspec and beyond_sse.py's frame
writer are imported by the factories that need them), so that run.py can measure a
contender in another Python, a peer's own environment.
"""

from __future__ import annotations

import importlib
import json
import os
import struct
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from types import GenericAlias
from typing import Any

import orjson
from gen import BEYOND_SSE, FRAMING, PROTOCOLS, SEPARATORS, Stream

Pieces = list[bytes]


@dataclass
class Decoded:
    """What a run produced, compared with the generator's ground truth.

    Floors only count the payloads they parsed (`events`); full decoders report the
    final text, thinking and tool calls (name, parsed arguments) and how they ended.
    """

    events: int | None = None
    text: str = ""
    thinking: str = ""
    tools: list[tuple[str, Any]] = field(default_factory=list)
    end: str = "complete"
    # what the decode returned, when the run was made to keep it (run.py --after-work)
    kept: Any = field(default=None, repr=False, compare=False)


Run = Callable[[Pieces], Decoded]


class Unavailable(Exception):
    """The contender cannot be built here: its package or protocol is missing."""


@dataclass(frozen=True)
class Contender:
    name: str
    protocols: tuple[str, ...]
    make: Callable[[str], Run]
    optional: bool = False  # a peer: its row is skipped (not shown) when unavailable
    # When set, the contender's cells are measured in a child process of the Python
    # this returns (it may raise Unavailable); run.py calls `make` there, not here.
    interpreter: Callable[[], str] | None = None


def load(module: str) -> Any:
    """Import a module by name, as Any: peers are optional and their types vary."""
    try:
        return importlib.import_module(module)
    except ImportError as e:
        raise Unavailable(f"{module} not importable ({e})") from e


# --------------------------------------------------------------------------- floors
# The two floors are written out in full, one loop each, rather than sharing a
# generator or a `loads is None` branch: they are the yardstick, so they carry nothing
# beyond framing (+ JSON) that would flatter every ratio taken against them.


def floor_split(protocol: str) -> Run:
    """Framing only: split on blank lines, slice off `data: `, no JSON."""
    if protocol in BEYOND_SSE:
        return _floor_split_joined(protocol)
    sep = SEPARATORS.get(protocol, b"\n\n")
    width = len(sep)

    def run(pieces: Pieces) -> Decoded:
        n = 0
        tail = b""
        for piece in pieces:
            buf = tail + piece if tail else piece
            end = buf.rfind(sep)
            if end < 0:
                tail = buf  # no complete event yet: carry it over
                continue
            for block in buf[:end].split(sep):
                payload = block[block.find(b"data: ") + 6 :]  # skips any `event:` line
                if payload != b"[DONE]":
                    n += 1
            tail = buf[end + width :]
        return Decoded(events=n)

    return run


def floor(protocol: str) -> Run:
    """floor_split + orjson.loads of every payload: the reference of every ratio."""
    if protocol in BEYOND_SSE:
        return _floor_beyond_sse(protocol)
    loads = orjson.loads
    sep = SEPARATORS.get(protocol, b"\n\n")
    width = len(sep)

    def run(pieces: Pieces) -> Decoded:
        n = 0
        tail = b""
        for piece in pieces:
            buf = tail + piece if tail else piece
            end = buf.rfind(sep)
            if end < 0:
                tail = buf
                continue
            for block in buf[:end].split(sep):
                payload = block[block.find(b"data: ") + 6 :]
                if payload != b"[DONE]":
                    loads(payload)
                    n += 1
            tail = buf[end + width :]
        return Decoded(events=n)

    return run


def _floor_beyond_sse(protocol: str) -> Run:
    """beyond_sse.py's floor of the protocol: join the pieces, split the records (lines,
    blank-line frames, event-stream frames by their prelude), orjson.loads each payload
    (and, for bedrock_invoke, each chunk's base64-decoded bytes)."""
    import beyond_sse  # its floors need orjson only

    least = next(floor for name, _make, floor in beyond_sse.STREAMS if name == protocol)

    def run(pieces: Pieces) -> Decoded:
        return Decoded(events=least(pieces))

    return run


def _floor_split_joined(protocol: str) -> Run:
    """The framing of _floor_beyond_sse alone: every payload sliced out, none parsed."""
    framing = FRAMING.get(protocol, "sse")

    def lines(pieces: Pieces) -> Decoded:
        n = 0
        for line in b"".join(pieces).split(b"\n"):
            if line:
                n += 1
        return Decoded(events=n)

    def frames(pieces: Pieces) -> Decoded:
        n = 0
        for frame in b"".join(pieces).split(b"\n\n"):
            i = frame.find(b"data: ")
            if i >= 0 and frame[i + 6 : i + 7] == b"{":
                frame[i + 6 :]  # the payload, sliced out and not parsed
                n += 1
        return Decoded(events=n)

    def aws(pieces: Pieces) -> Decoded:
        data = b"".join(pieces)
        pos = n = 0
        while pos < len(data):
            total, headers = struct.unpack_from(">II", data, pos)
            data[pos + 12 + headers : pos + total - 4]  # the payload, not parsed
            n += 1
            pos += total
        return Decoded(events=n)

    return {"lines": lines, "sse": frames, "aws": aws}[framing]


# --------------------------------------------------------------------------- floor_msgspec
# The floor's framing with each payload decoded by msgspec into typed structs that hold
# only what a decoder reads: the text, thinking and tool-call deltas, the finish and the
# usage.  Where events carry a type field (Anthropic, Responses, Cohere) the payload is a
# tagged union; an event type the union does not list is decoded by the fallback (its
# type alone), so that a new event type costs an exception, not a failure.


def _list_of(item: Any) -> Any:
    """`list[item]` for a struct type made at run time (a value, not a static type)."""
    return GenericAlias(list, (item,))


def floor_msgspec(protocol: str) -> Run:
    """The floor with msgspec.json.Decoder into typed structs instead of orjson.loads."""
    msgspec = load("msgspec")
    typed, fallback = _msgspec_types(msgspec, protocol)
    decode = msgspec.json.Decoder(typed).decode
    # without a union, retry is the same decode: a payload that does not fit fails the run
    retry = msgspec.json.Decoder(fallback).decode if fallback is not None else decode
    invalid = msgspec.ValidationError
    if protocol == "bedrock_invoke":  # the frame's {"bytes": base64} holds the event
        chunk = msgspec.json.Decoder(msgspec.defstruct("Chunk", [("bytes", bytes)])).decode
        return _msgspec_aws(chunk, decode, retry, invalid)
    framing = FRAMING.get(protocol, "sse")
    if framing == "lines":
        return _msgspec_lines(decode)
    if framing == "aws":
        return _msgspec_aws(decode, None, None, invalid)
    if protocol in BEYOND_SSE:
        return _msgspec_sse_joined(decode, retry, invalid)
    sep = SEPARATORS.get(protocol, b"\n\n")
    width = len(sep)

    def run(pieces: Pieces) -> Decoded:
        n = 0
        tail = b""
        for piece in pieces:
            buf = tail + piece if tail else piece
            end = buf.rfind(sep)
            if end < 0:
                tail = buf
                continue
            for block in buf[:end].split(sep):
                payload = block[block.find(b"data: ") + 6 :]
                if payload != b"[DONE]":
                    try:
                        decode(payload)
                    except invalid:
                        retry(payload)
                    n += 1
            tail = buf[end + width :]
        return Decoded(events=n)

    return run


def _msgspec_lines(decode: Any) -> Run:
    def run(pieces: Pieces) -> Decoded:
        n = 0
        for line in b"".join(pieces).split(b"\n"):
            if line:
                decode(line)
                n += 1
        return Decoded(events=n)

    return run


def _msgspec_sse_joined(decode: Any, retry: Any, invalid: Any) -> Run:
    def run(pieces: Pieces) -> Decoded:
        n = 0
        for frame in b"".join(pieces).split(b"\n\n"):
            i = frame.find(b"data: ")
            if i >= 0 and frame[i + 6 : i + 7] == b"{":
                try:
                    decode(frame[i + 6 :])
                except invalid:
                    retry(frame[i + 6 :])
                n += 1
        return Decoded(events=n)

    return run


def _msgspec_aws(decode: Any, inner: Any, retry: Any, invalid: Any) -> Run:
    """Event-stream frames; with inner, each frame's base64 bytes hold an event."""

    def run(pieces: Pieces) -> Decoded:
        data = b"".join(pieces)
        pos = n = 0
        while pos < len(data):
            total, headers = struct.unpack_from(">II", data, pos)
            obj = decode(data[pos + 12 + headers : pos + total - 4])
            if inner is not None:
                try:
                    inner(obj.bytes)
                except invalid:
                    retry(obj.bytes)
            n += 1
            pos += total
        return Decoded(events=n)

    return run


def _msgspec_types(msgspec: Any, protocol: str) -> tuple[Any, Any]:
    """The type a payload of the protocol is decoded into, and the fallback type for an
    event type the tagged union does not list (None: no union)."""

    def struct_(name: str, fields: list[tuple[str, Any]], tag: str | None = None) -> Any:
        """A struct of optional fields (None when absent), tagged by `type` when tag is set."""
        optional = [(f, t | None, None) for f, t in fields]
        if tag is None:
            return msgspec.defstruct(name, optional)
        return msgspec.defstruct(name, optional, tag=tag, tag_field="type")

    def union(tagged: list[Any], name: str) -> tuple[Any, Any]:
        kinds = tagged[0]
        for t in tagged[1:]:
            kinds = kinds | t
        return kinds, msgspec.defstruct(name, [("type", str)])

    if protocol == "openai_chat":
        fn = struct_("Function", [("name", str), ("arguments", str)])
        call = struct_("ToolCallDelta", [("index", int), ("id", str), ("function", fn)])
        delta = struct_("Delta", [("content", str), ("reasoning_content", str), ("tool_calls", _list_of(call))])
        choice = struct_("Choice", [("index", int), ("delta", delta), ("finish_reason", str)])
        usage = struct_("Usage", [("prompt_tokens", int), ("completion_tokens", int), ("total_tokens", int)])
        return struct_("Chunk", [("choices", _list_of(choice)), ("usage", usage)]), None

    if protocol in ("anthropic", "bedrock_invoke"):
        usage = struct_(
            "Usage",
            [
                ("input_tokens", int),
                ("output_tokens", int),
                ("cache_creation_input_tokens", int),
                ("cache_read_input_tokens", int),
            ],
        )
        message = struct_("Message", [("id", str), ("model", str), ("usage", usage)])
        block = struct_(
            "Block", [("type", str), ("id", str), ("name", str), ("text", str), ("thinking", str)]
        )
        delta = struct_(
            "Delta",
            [("type", str), ("text", str), ("thinking", str), ("partial_json", str), ("signature", str)],
        )
        stop = struct_("Stop", [("stop_reason", str), ("stop_sequence", str)])
        error = struct_("Error", [("type", str), ("message", str)])
        return union(
            [
                struct_("MessageStart", [("message", message)], "message_start"),
                struct_("BlockStart", [("index", int), ("content_block", block)], "content_block_start"),
                struct_("BlockDelta", [("index", int), ("delta", delta)], "content_block_delta"),
                struct_("BlockStop", [("index", int)], "content_block_stop"),
                struct_("MessageDelta", [("delta", stop), ("usage", usage)], "message_delta"),
                struct_("MessageStop", [], "message_stop"),
                struct_("Ping", [], "ping"),
                struct_("ErrorEvent", [("error", error)], "error"),
            ],
            "OtherEvent",
        )

    if protocol == "openai_responses":
        usage = struct_(
            "Usage", [("input_tokens", int), ("output_tokens", int), ("total_tokens", int)]
        )
        response = struct_(
            "Response", [("id", str), ("status", str), ("usage", usage), ("incomplete_details", Any)]
        )
        item = struct_(
            "Item", [("type", str), ("id", str), ("call_id", str), ("name", str), ("arguments", str)]
        )
        at = [("item_id", str), ("output_index", int)]
        tagged = [
            struct_(f"Response_{kind}", [("response", response)], f"response.{kind}")
            for kind in ("created", "in_progress", "completed", "incomplete", "failed")
        ]
        tagged += [
            struct_("ItemAdded", [("output_index", int), ("item", item)], "response.output_item.added"),
            struct_("ItemDone", [("output_index", int), ("item", item)], "response.output_item.done"),
            struct_("TextDelta", [*at, ("delta", str)], "response.output_text.delta"),
            struct_("SummaryDelta", [*at, ("delta", str)], "response.reasoning_summary_text.delta"),
            struct_("ArgumentsDelta", [*at, ("delta", str)], "response.function_call_arguments.delta"),
            struct_("ArgumentsDone", [*at, ("arguments", str)], "response.function_call_arguments.done"),
            struct_("ErrorEvent", [("code", str), ("message", str)], "error"),
        ]
        tagged += [  # known, and nothing in them a decoder needs beyond its deltas
            struct_(f"Known_{i}", [], f"response.{kind}")
            for i, kind in enumerate(
                (
                    "content_part.added",
                    "content_part.done",
                    "output_text.done",
                    "reasoning_summary_part.added",
                    "reasoning_summary_part.done",
                    "reasoning_summary_text.done",
                )
            )
        ]
        return union(tagged, "OtherEvent")

    if protocol == "gemini":
        call = struct_("FunctionCall", [("name", str), ("args", dict[str, Any])])
        part = struct_("Part", [("text", str), ("thought", bool), ("functionCall", call)])
        content = struct_("Content", [("parts", _list_of(part)), ("role", str)])
        candidate = struct_("Candidate", [("content", content), ("finishReason", str), ("index", int)])
        usage = struct_(
            "UsageMetadata",
            [
                ("promptTokenCount", int),
                ("candidatesTokenCount", int),
                ("thoughtsTokenCount", int),
                ("totalTokenCount", int),
            ],
        )
        return struct_("Record", [("candidates", _list_of(candidate)), ("usageMetadata", usage)]), None

    if protocol == "ollama":
        fn = struct_("Function", [("name", str), ("arguments", dict[str, Any])])
        call = struct_("ToolCall", [("function", fn)])
        message = struct_(
            "Message", [("content", str), ("thinking", str), ("tool_calls", _list_of(call))]
        )
        line = struct_(
            "Line",
            [
                ("message", message),
                ("done", bool),
                ("done_reason", str),
                ("prompt_eval_count", int),
                ("eval_count", int),
            ],
        )
        return line, None

    if protocol == "cohere":
        fn = struct_("Function", [("name", str), ("arguments", str)])
        call = struct_("ToolCall", [("id", str), ("function", fn)])
        content = struct_("Content", [("text", str), ("thinking", str)])
        message = struct_(
            "Message", [("content", content), ("tool_plan", str), ("tool_calls", call)]
        )
        delta = struct_("Delta", [("message", message)])
        tokens = struct_("Tokens", [("input_tokens", int), ("output_tokens", int)])
        usage = struct_("Usage", [("billed_units", tokens), ("tokens", tokens)])
        end = struct_("EndDelta", [("finish_reason", str), ("usage", usage)])
        tagged = [
            struct_("ContentDelta", [("index", int), ("delta", delta)], "content-delta"),
            struct_("ToolPlanDelta", [("delta", delta)], "tool-plan-delta"),
            struct_("ToolCallStart", [("index", int), ("delta", delta)], "tool-call-start"),
            struct_("ToolCallDelta", [("index", int), ("delta", delta)], "tool-call-delta"),
            struct_("MessageEnd", [("delta", end)], "message-end"),
        ]
        tagged += [
            struct_(f"Known_{i}", [], kind)
            for i, kind in enumerate(
                ("message-start", "content-start", "content-end", "tool-call-end", "citation-start", "citation-end")
            )
        ]
        return union(tagged, "OtherEvent")

    if protocol == "bedrock_converse":
        tool_start = struct_("ToolUseStart", [("toolUseId", str), ("name", str)])
        start = struct_("Start", [("toolUse", tool_start)])
        reasoning = struct_("Reasoning", [("text", str), ("signature", str)])
        tool_delta = struct_("ToolUseDelta", [("input", str)])
        delta = struct_(
            "Delta", [("text", str), ("reasoningContent", reasoning), ("toolUse", tool_delta)]
        )
        usage = struct_("Usage", [("inputTokens", int), ("outputTokens", int), ("totalTokens", int)])
        payload = struct_(  # the event type is a frame header: one struct for every payload
            "Payload",
            [
                ("role", str),
                ("contentBlockIndex", int),
                ("start", start),
                ("delta", delta),
                ("stopReason", str),
                ("usage", usage),
            ],
        )
        return payload, None

    raise Unavailable(f"floor_msgspec has no types for {protocol}")


# --------------------------------------------------------------------------- unievent

_DECODER_ROOT = str(Path(__file__).resolve().parents[2] / "decoder")


def unievent(protocol: str, keep: bool = False) -> Run:
    """unievent.StreamDecoder: push every piece, finish, summarize the outcome.

    With keep, the run also keeps every event the pushes and finish returned, and the
    outcome, in `Decoded.kept`, as a caller that collects them would (run.py's
    --after-work); without it each push's events are dropped as they come.
    """
    if _DECODER_ROOT not in sys.path:
        sys.path.insert(0, _DECODER_ROOT)  # the source tree, without installing it
    try:
        decoder_cls = load("unievent").StreamDecoder
        decoder_cls(protocol)  # fails here, untimed, if the protocol is not there yet
    except Unavailable:
        raise
    except Exception as e:  # a half-written package: report the row, do not crash
        raise Unavailable(f"{type(e).__name__}: {e}") from e

    def run(pieces: Pieces) -> Decoded:
        dec = decoder_cls(protocol)
        for piece in pieces:
            dec.push(piece)
        _events, outcome = dec.finish()
        return from_outcome(outcome)

    def run_keeping(pieces: Pieces) -> Decoded:
        dec = decoder_cls(protocol)
        pushed = [dec.push(piece) for piece in pieces]
        events, outcome = dec.finish()
        out = from_outcome(outcome)
        out.kept = (pushed, events, outcome)
        return out

    return run_keeping if keep else run


def unievent_pure(protocol: str, keep: bool = False) -> Run:
    """unievent with UNIEVENT_PURE=1: the pure-Python modules instead of the compiled.

    The variable is read when unievent is imported, so this runs in a child process
    (see `interpreter`) in which nothing has imported unievent yet.
    """
    if "unievent" not in sys.modules:
        os.environ["UNIEVENT_PURE"] = "1"
    run = unievent(protocol, keep)
    if sys.modules["unievent"].COMPILED:
        raise Unavailable("unievent was imported before UNIEVENT_PURE=1 was set")
    return run


def this_python() -> str:
    """The interpreter of this process: a child of the same Python, the same packages."""
    return sys.executable


def from_outcome(outcome: Any) -> Decoded:
    """Join the done items of the outcome's message (as a caller would read them)."""
    end = getattr(outcome.end, "value", outcome.end)  # a str or a str-valued enum
    message = outcome.message
    out = Decoded(end=str(end))
    text: list[str] = []
    thinking: list[str] = []
    for item in message.items if message is not None else ():
        kind = type(item).__name__  # by name: the classes need not be importable here
        if kind == "TextDone":
            text.append(item.text)
        elif kind == "ThinkingDone":
            thinking.append(item.thinking)
        elif kind == "ToolCallDone":
            out.tools.append((item.name, item.arguments))
    out.text = "".join(text)
    out.thinking = "".join(thinking)
    return out


# --------------------------------------------------------------------------- checking


def check(decoded: Decoded, stream: Stream) -> list[str]:
    """What differs from the ground truth; empty when the decode is correct."""
    if decoded.events is not None:
        if decoded.events == stream.n_payloads:
            return []
        return [f"events {decoded.events} != {stream.n_payloads}"]
    problems: list[str] = []
    if decoded.end != "complete":
        problems.append(f"end {decoded.end!r}")
    if decoded.text != stream.text:
        problems.append(f"text ({len(decoded.text)} vs {len(stream.text)} chars)")
    if decoded.thinking != stream.thinking:
        n, want = len(decoded.thinking), len(stream.thinking)
        problems.append(f"thinking ({n} vs {want} chars)")
    want_tools = [(t.name, json.loads(t.arguments)) for t in stream.tool_calls]
    return problems + _tool_problems(decoded.tools, want_tools)


def _tool_problems(
    got: list[tuple[str, Any]], want: list[tuple[str, Any]]
) -> list[str]:
    """Name the first tool call that differs, and in what."""
    if len(got) != len(want):
        return [f"tools: {len(got)} calls, expected {len(want)}"]
    for i, ((name, args), (want_name, want_args)) in enumerate(zip(got, want, strict=False)):
        if name != want_name:
            return [f"tool {i}: name {name!r}, expected {want_name!r}"]
        if args != want_args:
            return [f"tool {i} ({name}): arguments differ"]
    return []


# --------------------------------------------------------------------------- registry

# Table order; run.py appends the optional peers (peers.PEERS) after these.
BUILTIN: tuple[Contender, ...] = (
    Contender("floor_split", PROTOCOLS, floor_split),
    Contender("floor", PROTOCOLS, floor),
    Contender("floor_msgspec", PROTOCOLS, floor_msgspec, optional=True),
    Contender("unievent", PROTOCOLS, unievent),
    Contender("unievent_pure", PROTOCOLS, unievent_pure, interpreter=this_python),
)
