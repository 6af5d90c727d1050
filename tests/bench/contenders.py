"""The contenders: each turns a list of wire byte pieces into a `Decoded` summary.

A contender is a factory ``make(protocol) -> run``; the factory does the imports and
set-up (not timed) and raises `Unavailable` when its package or protocol is missing.
``run(pieces)`` decodes the whole stream from scratch on every call (timed).

This module holds the floors and unievent; the optional third-party peers are in
peers.py.
"""

from __future__ import annotations

import importlib
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import orjson
from gen import PROTOCOLS, SEPARATORS, Stream

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


Run = Callable[[Pieces], Decoded]


class Unavailable(Exception):
    """The contender cannot be built here: its package or protocol is missing."""


@dataclass(frozen=True)
class Contender:
    name: str
    protocols: tuple[str, ...]
    make: Callable[[str], Run]
    optional: bool = False  # a peer: its row is skipped (not shown) when unavailable


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


# --------------------------------------------------------------------------- unievent

_DECODER_ROOT = str(Path(__file__).resolve().parents[2] / "decoder")


def unievent(protocol: str) -> Run:
    """unievent.StreamDecoder: push every piece, finish, summarize the outcome."""
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

    return run


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
    Contender("unievent", PROTOCOLS, unievent),
)
