# What every protocol's writer shares: the target machine stepped for each frame it
# writes (the same generated table its decoder runs), SSE and JSON framing of what it
# writes, and the fidelity it may carry.
#
# A writer is driven by StreamEncoder (unievent/_encoder.py) with events that already
# passed the UniEvent grammar: `open` the first delta of a group, `delta` each delta
# (the first one included), `close` the group's done, `stop` the stop event, then
# `end` (the terminal frames), `fail` (the protocol's in-stream error) or nothing (a
# cut).  A frame the target machine cannot take where it is raises EncodeError: the
# writer never writes a stream its own decoder would have to recover from.
from __future__ import annotations

from typing import Any, ClassVar

import attrs
import orjson

from unievent._errors import EncodeError
from unievent._events import DeltaEvent, DeltaItem, DoneItem, Fidelity, StopEvent
from unievent._outcome import ProviderError
from unievent._side import SideEvent

__all__ = ["RAW", "EncodeOptions", "Writer", "raw_arguments", "sse_frame", "with_raw"]

#: a placeholder for a value written as the text it arrived as (see with_raw)
RAW = "\x00unievent-raw\x00"
_RAW_MARK = orjson.dumps(RAW)


@attrs.frozen
class EncodeOptions:
    """What a real server varies (see StreamEncoder)."""

    model: str = "unievent"
    response_id: str = "resp_unievent"
    created: int = 0
    include_usage: bool = True
    pings: bool = False
    framing: str = "sse"
    fidelity_from: str | None = None


def sse_frame(obj: Any, event: str | None = None) -> bytes:
    """One SSE frame of a JSON value (with its `event:` line when named)."""
    head = b"event: " + event.encode() + b"\n" if event is not None else b""
    return head + b"data: " + orjson.dumps(obj) + b"\n\n"


def with_raw(obj: Any, raw: str) -> bytes:
    """`obj` as JSON with its one RAW value replaced by `raw`, JSON text as it arrived:
    a received value is never re-serialized.  RAW must come first in document order.

    The text keeps no raw CR or LF: the writers that splice it write line-framed wires
    (an SSE `data:` line, an NDJSON line), where one would cut the frame in two, and in
    JSON text (which `raw_arguments` checked it is) a raw CR or LF can only be
    whitespace between tokens, so a space holds the same value."""
    text = raw.encode()
    if text.find(b"\n") >= 0 or text.find(b"\r") >= 0:
        text = text.replace(b"\r", b" ").replace(b"\n", b" ")
    return orjson.dumps(obj).replace(_RAW_MARK, text, 1)


def raw_arguments(parts: list[str], done: Any) -> str:
    """A call's arguments as the text they arrived as (what the done holds, written
    out, when that text was not a JSON object)."""
    from unievent._grammar import parse_arguments  # noqa: PLC0415  (the grammar imports the events)

    raw = "".join(parts).strip() or "{}"
    return raw if parse_arguments(raw) is not None else orjson.dumps(done.arguments).decode()


class Writer:
    """One protocol's writer (subclasses name `protocol`, `machine`, `carries`)."""

    protocol: ClassVar[str]
    machine: ClassVar[Any]
    #: the fidelity keys this wire has a place for
    carries: ClassVar[frozenset[str]] = frozenset()
    #: True for a wire of whole events (`event()` is called with each)
    whole_events: ClassVar[bool] = False
    #: True for a wire with no word for a turn that calls tools (its reader says
    #: tool_call when the turn made calls): a `stop` beside tool calls, or a `tool_call`
    #: without one, cannot be written as given
    finish_from_calls: ClassVar[bool] = False

    def __init__(self, options: EncodeOptions) -> None:
        self.options = options
        self.state: int = self.machine.INITIAL
        self.parts: list[bytes] = []
        self.dropped: list[str] = []
        self.started = False
        #: the protocol the events' fidelity came from (None: this one)
        self.fidelity_source = options.fidelity_from

    # --- the machine --------------------------------------------------------------------

    def step(self, symbol: int) -> None:
        """Take the transition the decoder will take on the frame being written."""
        M = self.machine
        dest = M.NEXT[self.state][symbol]
        if dest < 0:
            state, frame = M.STATES[self.state], M.SYMBOLS[symbol]
            raise EncodeError(self.protocol, state, frame, "its decoder has no such transition")
        self.state = dest

    def write(self, data: bytes) -> None:
        self.parts.append(data)

    def take(self) -> bytes:
        parts = self.parts
        if not parts:
            return b""
        out = parts[0] if len(parts) == 1 else b"".join(parts)
        parts.clear()
        return out

    def fidelity(self, fidelity: Fidelity | None) -> dict[str, Any]:
        """What of `fidelity` this wire carries; the rest is listed in `dropped`."""
        if not fidelity:
            return {}
        if self.fidelity_source not in (None, self.protocol):
            self.dropped.extend(f"{key} (from {self.fidelity_source})" for key in fidelity)
            return {}
        kept = {k: v for k, v in fidelity.items() if k in self.carries}
        self.dropped.extend(key for key in fidelity if key not in self.carries)
        return kept

    # --- driven by StreamEncoder ----------------------------------------------------------

    def begin(self) -> None:
        """Before the first event: the stream's opening frames."""

    def event(self, event: DeltaEvent | StopEvent) -> None:
        """Each event whole, before its item is given to `open` / `delta` / `close` /
        `stop` (for a wire of whole events)."""

    def side(self, event: SideEvent) -> None:
        """Provider-side activity: written where the wire has a place for it (its own
        protocol's), else listed once per kind in `dropped`."""
        what = f"side events {event.kind}"
        if what not in self.dropped:
            self.dropped.append(what)

    def open(self, first: DeltaItem) -> None:
        """A group starts with `first` (then given to `delta` too)."""

    def delta(self, item: DeltaItem) -> None:
        raise NotImplementedError

    def close(self, done: DoneItem) -> None:
        """The open group ends with its done."""

    def stop(self, event: StopEvent) -> None:
        raise NotImplementedError

    def unsayable_finish(self, finish: str, made_calls: bool) -> None:
        """List a finish this wire's reader will read otherwise (see `finish_from_calls`)."""
        if self.finish_from_calls and (finish == "tool_call") != made_calls and finish in ("stop", "tool_call"):
            said = "tool_call" if made_calls else "stop"
            self.dropped.append(f"finish_reason {finish} (this wire has no word for it: read back as {said})")

    def end(self) -> None:
        """After the stop: the terminal frames."""

    def fail(self, error: ProviderError) -> None:
        raise NotImplementedError

    def keep_alive(self) -> bytes:
        return b": keep-alive\n\n"
