# The public decoding API: StreamDecoder (push / finish / abort).
#
# A decoder owns one SSE framer, one protocol handler and one assembler.  The framer
# hands it frames; it parses each frame's JSON once (orjson) and passes the object to
# the handler, which fires its generated protocol machine and feeds fragments to the
# assembler.  At the end the handler's final state is the outcome's end.  Nothing
# here knows a provider's wire format.
from __future__ import annotations

import time
import uuid
from collections.abc import Callable
from typing import Any, ClassVar, Protocol, cast

import orjson

from unievent._errors import DecoderStateError
from unievent._events import (
    DoneItem,
    Event,
    FinishReason,
    Message,
    ToolCallDone,
    Usage,
)
from unievent._grammar import ArgumentsError, Assembler
from unievent._outcome import End, Outcome, ProviderError
from unievent._side import SideEvent
from unievent._sse import DEFAULT_MAX_FRAME, SSEFramer

__all__ = ["PROTOCOLS", "Clock", "MachineHandler", "StreamDecoder", "register_protocol"]

Clock = Callable[[], int]

_loads = orjson.loads
_JSONDecodeError = orjson.JSONDecodeError


def _now_ms() -> int:
    return time.time_ns() // 1_000_000


class Handler(Protocol):
    """What a protocol module provides (see _openai_chat.py for the reference one)."""

    def frame(self, event: str | None, obj: dict[str, Any]) -> bool: ...
    def done_sentinel(self) -> bool: ...
    def end(self) -> End: ...
    def state_name(self) -> str: ...
    def before_stop(self) -> None: ...
    def finish_reason(self) -> FinishReason: ...


PROTOCOLS: dict[str, Callable[[StreamDecoder], Handler]] = {}

_ENDS = ("complete", "truncated", "failed")


class MachineHandler:
    """What every protocol handler shares: its generated machine (`machine`, a module
    from unievent._generated) and the current state; at end of input the machine's
    `eof` transition names the end."""

    machine: ClassVar[Any]
    state: int

    def end(self) -> End:
        machine = self.machine
        self.state = machine.NEXT[self.state][machine.SY_EOF]
        name = machine.STATES[self.state]
        if name not in _ENDS:
            raise AssertionError(f"{machine.NAME}: eof leads to {name!r}, which is not an end")
        return cast(End, name)

    def state_name(self) -> str:
        return str(self.machine.STATES[self.state])


def register_protocol(name: str, factory: Callable[[StreamDecoder], Handler]) -> None:
    """Make `StreamDecoder(name)` use `factory(decoder)` as its protocol handler."""
    PROTOCOLS[name] = factory


class StreamDecoder:
    """Decode one streamed response: bytes in, UniEvents out, then an Outcome.

    ``StreamDecoder(protocol, stream_id=None, clock=None, strict_arguments=True,
    side_events=False, max_frame=16 MiB)``

    - `protocol`: ``"openai_chat"`` (OpenAI-compatible Chat Completions),
      ``"anthropic"`` (Messages) or ``"openai_responses"`` (Responses, Mirobody):
      the names in `unievent.PROTOCOLS`.
    - `stream_id`: used in made-up tool-call ids (``call_<stream_id>_<n>``); random
      when not given.
    - `clock`: returns unix milliseconds; read once per `push()` / `finish()`, so the
      events of one network read share their arrival time.
    - `strict_arguments`: a tool call whose arguments are not a JSON object ends the
      stream `failed` (iterators raise ToolCallArgumentParseError); when false, its
      done item carries ``{}`` and the raw text under ``fidelity["raw_arguments"]``.
    - `side_events`: interleave SideEvent objects (provider-side tool activity) with
      the events `push()` and `finish()` return; they are kept in the outcome either way.
    - `max_frame`: cap in bytes on one line and one frame (FrameTooLargeError).

    `push(data)` returns the events completed by those bytes; `finish()` returns the
    last events and the Outcome at end of input; `abort()` returns the Outcome of a
    stream the caller cancelled (no events, nothing buffered is flushed).  Pure: no
    I/O, no threads, no event loop.
    """

    def __init__(
        self,
        protocol: str,
        stream_id: str | None = None,
        clock: Clock | None = None,
        strict_arguments: bool = True,
        side_events: bool = False,
        max_frame: int = DEFAULT_MAX_FRAME,
    ) -> None:
        _load_protocols()
        if protocol not in PROTOCOLS:
            raise ValueError(f"unknown protocol {protocol!r}; known: {', '.join(sorted(PROTOCOLS))}")
        self.protocol = protocol
        self.stream_id = stream_id if stream_id is not None else uuid.uuid4().hex[:16]
        self.clock: Clock = clock or _now_ms
        self.side_events_inline = side_events
        self.out: list[Any] = []
        self.asm = Assembler(self.out, strict_arguments)
        # what handlers record
        self.model: str | None = None
        self.native_finish_reason: str | None = None
        self.error: ProviderError | None = None
        self.skipped_frames = 0
        self.side: list[SideEvent] = []
        self.anomalies: list[str] = self.asm.anomalies
        self.extras: dict[str, Any] = {}
        self.raw_usage: dict[str, int] = {}
        self._ended: str | None = None
        self._argument_failure: ArgumentsError | None = None
        self.handler = PROTOCOLS[protocol](self)
        self.framer = SSEFramer(self.handler.frame, self._odd_frame, protocol, max_frame)

    # --- public API -----------------------------------------------------------------

    def push(self, data: bytes) -> list[Event]:
        """Feed bytes as they arrived; return the events they complete."""
        if self._ended is not None:
            raise DecoderStateError(self.protocol, self._ended, "push")
        out = self._fresh_out()
        if self._argument_failure is None:
            try:
                self.framer.feed(data)
            except ArgumentsError as failure:
                self._fail_arguments(failure)
        return out

    def finish(self) -> tuple[list[Event], Outcome]:
        """End of input: the last events and the Outcome."""
        if self._ended is not None:
            raise DecoderStateError(self.protocol, self._ended, "finish")
        out = self._fresh_out()
        if self._argument_failure is None:
            try:
                self.framer.eof()
                end = self._end_kind()
                if end == "complete":
                    self.handler.before_stop()
                    self.asm.stop(self.usage(), self.handler.finish_reason())
                else:
                    self._close_partial()
            except ArgumentsError as failure:
                self._fail_arguments(failure)
        if self._argument_failure is not None:
            end = "failed"
        self._ended = end
        return out, self._outcome(end)

    def abort(self) -> Outcome:
        """The caller cancelled: no events; what arrived is in the Outcome."""
        if self._ended is not None:
            raise DecoderStateError(self.protocol, self._ended, "abort")
        self._ended = "cancelled"
        return self._outcome("cancelled", pending=self.asm.pending_done())

    # --- for protocol handlers --------------------------------------------------------

    def usage(self) -> Usage:
        """The MMSP usage object from what the handler recorded."""
        raw = self.raw_usage
        cached = raw.get("cached")
        prompt = raw.get("prompt")
        thoughts = raw.get("thoughts")
        response = raw.get("response")
        return Usage(cached, prompt, thoughts, response)

    def set_usage(self, **fields: int | None) -> None:
        """Record usage fields in MMSP's meaning: the newest value wins, but a zero
        never erases a non-zero and a missing (None) value erases nothing."""
        raw = self.raw_usage
        for name, value in fields.items():
            if type(value) is int and value >= 0 and not (value == 0 and raw.get(name)):
                raw[name] = value

    def fail(self, error: ProviderError) -> None:
        """Record the provider's error (the first one wins)."""
        if self.error is None:
            self.error = error

    def side_event(self, kind: str, phase: str, item_id: str | None, data: dict[str, Any]) -> None:
        """Record provider-side activity (and emit it when side events are inline)."""
        event = SideEvent(self.protocol, kind, phase, item_id, data, self.asm.now)
        self.side.append(event)
        if self.side_events_inline:
            self.out.append(event)

    # --- internals --------------------------------------------------------------------

    def _fresh_out(self) -> list[Any]:
        out: list[Any] = []
        self.out = out
        self.asm.out = out
        self.asm.now = self.clock()
        return out

    def _odd_frame(self, event: str | None, lines: list[bytes], payload: bytes) -> bool:
        stripped = payload.strip()
        if not stripped:
            return False
        if stripped == b"[DONE]":
            return self.handler.done_sentinel()
        text = payload.decode("utf-8", "replace")
        try:
            obj = _loads(text)  # bytes that were not UTF-8: read with U+FFFD
        except _JSONDecodeError:
            if len(lines) > 1:
                # events that lost their blank line: each line is a frame of its own
                return any(self._one_line_frame(event, line) for line in lines)
            self.skipped_frames += 1
            return False
        return self.handler.frame(event, obj) if type(obj) is dict else False

    def _one_line_frame(self, event: str | None, line: bytes) -> bool:
        try:
            obj = _loads(line)
        except _JSONDecodeError:
            return self._odd_frame(event, [line], line)
        return self.handler.frame(event, obj) if type(obj) is dict else False

    def _end_kind(self) -> End:
        end = self.handler.end()
        framer = self.framer
        if end != "failed" and "".join(framer.body).strip() and not self.asm.done_items:
            return "not_event_stream"
        return end

    def _close_partial(self) -> None:
        # Text and reasoning that arrived are complete as far as they go; a tool call
        # cut short is not, so its group stays open and no client runs it.
        if self.asm.open_kind not in (None, "tool_call"):
            self.asm.close()

    def _fail_arguments(self, failure: ArgumentsError) -> None:
        self._argument_failure = failure
        self.framer.closed = True
        self.fail(
            ProviderError(
                f"arguments of tool call {failure.name!r} ({failure.tool_call_id}) are not a JSON object",
                "tool_call_argument_parse_error",
                None,
                failure.raw,
            )
        )

    def _outcome(self, end: End, pending: DoneItem | None = None) -> Outcome:
        complete = end == "complete"
        items = list(self.asm.done_items)
        if pending is not None:
            items.append(pending)
        if not complete:
            items = [i for i in items if not isinstance(i, ToolCallDone)]
        usage = self.usage()
        finish = self.handler.finish_reason() if complete else None
        message = Message("assistant", tuple(items), usage if complete else None, finish, self.asm.now or None)
        body = "\n".join(line for line in self.framer.body if line.strip() and not line.startswith(":")).strip()
        return Outcome(
            end=end,
            message=message,
            usage=usage,
            finish_reason=finish,
            native_finish_reason=self.native_finish_reason,
            model=self.model,
            skipped_frames=self.skipped_frames,
            error=self.error if end == "failed" else None,
            body=body[: 1024 * 1024] if end == "not_event_stream" else None,
            side_events=tuple(self.side),
            anomalies=tuple(self.anomalies),
            extras=dict(self.extras),
        )

    @property
    def argument_failure(self) -> ArgumentsError | None:
        return self._argument_failure


_loaded = False


def _load_protocols() -> None:
    # Protocol modules register themselves on import; importing them lazily keeps
    # `import unievent` cheap and free of import cycles.
    global _loaded  # noqa: PLW0603
    if not _loaded:
        _loaded = True
        from unievent import _anthropic, _openai_chat, _openai_responses  # noqa: F401, PLC0415
