# The public decoding API: StreamDecoder (push / finish / abort).
#
# A decoder owns one framer (the wire), one protocol handler (the provider) and the
# session they share (assembler, usage, errors, side channel, anomalies).  The framer
# hands it frames as (event name, payload bytes); `_frame` parses each payload once
# (orjson) and passes the object to the handler, which fires its generated protocol
# machine and feeds fragments to the assembler.  At the end the handler's final state
# is the outcome's end.  Nothing here knows a provider's wire format or a framing.
#
# Errors: `push()` raises only unievent errors.  After any error it raised, the
# decoder refuses further input (DecoderStateError); `finish()` still gives the
# outcome, which says what happened.
from __future__ import annotations

import random
import time
from collections.abc import Callable
from types import GenericAlias
from typing import Any, Final, NoReturn, overload

import orjson

from unievent._detect import Undetected, from_content_type, from_frame, from_payload, from_url
from unievent._errors import DecoderStateError, DecoderUsageError, FrameTooLargeError, UniEventError
from unievent._events import DoneItem, Event, Message, ToolCallDone
from unievent._framing import FRAME_JUNK, FRAME_OK, FRAME_OVER, Framer, FrameSink, RunSink, ended
from unievent._framing.aws_eventstream import AWSEventStreamFramer
from unievent._framing.json_body import JSONBodyFramer
from unievent._framing.ndjson import NDJSONFramer
from unievent._framing.sniff import FRAMERS, FramingSniffer, make_framer
from unievent._framing.sse import DEFAULT_MAX_FRAME, SSEFramer
from unievent._grammar import ArgumentsError, release
from unievent._ondemand import fast_paths_enabled
from unievent._outcome import End, Outcome, ProviderError
from unievent._protocols import PROTOCOLS, ProtocolSpec
from unievent._session import DEFAULT_MAX_RETAINED, Handler, Session
from unievent._shared import MAX_DEPTH, error_of, too_deep

__all__ = ["PROTOCOLS", "Clock", "StreamDecoder"]

Clock = Callable[[], int]

_loads: Final = orjson.loads
_JSONDecodeError: Final = orjson.JSONDecodeError
_EVERY_FRAMING: Final = tuple(FRAMERS)
_MAX_HELD: Final = 64  # frames an `auto` decoder holds waiting for one that names the protocol
_WATCHED: Final = 8  # first frames of an explicit protocol sniffed for another protocol
_SHORTEST_TOO_DEEP: Final = 2 * (MAX_DEPTH + 1)
_time_ns: Final = time.time_ns  # (Final: compiled, read without a lookup on the module)
_random_bits: Final = random.getrandbits


def _now_ms() -> int:
    return _time_ns() // 1_000_000


def _framings_of(content_type: str, framings: tuple[str, ...]) -> tuple[str, ...]:
    """The framings among `framings` that a content type allows (all when it names
    none of them)."""
    named = from_content_type(content_type)
    if named == "json":
        allowed = tuple(f for f in framings if f in ("json_array", "json_body"))
    else:
        allowed = tuple(f for f in framings if f == named)
    return allowed or framings


def _object_or_none(payload: bytes) -> dict[str, Any] | None:
    try:
        obj = _loads(payload)
    except _JSONDecodeError:
        return None
    if type(obj) is not dict or too_deep(payload, obj):
        return None
    return obj


class StreamDecoder:
    """Decode one streamed response: bytes in, UniEvents out, then an Outcome.

    ``StreamDecoder(protocol, stream_id=None, clock=None, strict_arguments=True,
    side_events=False, max_frame=16 MiB, max_retained=10_000, choice=0)``

    - `protocol`: one of the names in `unievent.PROTOCOLS` (``"openai_chat"``,
      ``"anthropic"``, ``"openai_responses"``, ...), or ``"auto"``.  Frames that never
      match an explicit protocol but look like another one end the stream failed
      (``wrong_protocol``: "the frames look like anthropic, not openai_chat").
    - `stream_id`: used in made-up tool-call ids (``call_<stream_id>_<block>``);
      random when not given.
    - `clock`: returns unix milliseconds; read once per `push()` / `finish()`, so the
      events of one network read share their arrival time.
    - `strict_arguments`: a tool call whose arguments are not a JSON object ends the
      stream `failed` (iterators raise ToolCallArgumentParseError); when false, its
      done item carries ``{}`` and the raw text under ``fidelity["raw_arguments"]``.
    - `side_events`: interleave SideEvent objects (provider-side tool activity) with
      the events `push()` and `finish()` return.
    - `max_frame`: cap in bytes on one line and one frame (FrameTooLargeError).
    - `max_retained`: cap on the side events the outcome keeps (side-channel deltas
      are never kept: a side block's done carries what they assembled).  Reaching it
      is recorded as the anomaly ``retention_cap``.
    - `choice`: which of several choices a Chat Completions response streams (``n`` > 1:
      `choices[].index`) is decoded; the others are never mixed in (anomaly
      ``other_choices``, their indexes in ``extras["other_choices"]``, their entries as
      side events ``choice`` when `side_events` is true).
    - `framing`: ``"sse"``, ``"json_array"``, ``"json_body"``, ``"ndjson"`` or
      ``"aws_eventstream"``: for a protocol whose body comes in more than one framing
      (``gemini``: SSE or a JSON array), force one; by default the content type when
      given, else the first bytes decide (``[``: a JSON array; an event-stream prelude
      with a valid CRC; ``{``: NDJSON when a whole JSON line is followed by more).
    - `content_type`, `url`: the response's Content-Type and the request's URL, when
      known.  With ``protocol="auto"`` the URL's path names the protocol, the content
      type the framing, and otherwise the first frame that says which protocol it is
      decides (frames before it are held and replayed; see README "Finding the
      protocol").  `Outcome.protocol` names the choice, `Outcome.detected_by` why.

    `push(data)` returns the events completed by those bytes; `finish()` returns the
    last events and the Outcome at end of input; `abort()` returns the Outcome of a
    stream the caller cancelled (no events, nothing buffered is flushed).  Pure: no
    I/O, no threads, no event loop.
    """

    def __init__(
        self,
        protocol: str,
        *,
        stream_id: str | None = None,
        clock: Clock | None = None,
        strict_arguments: bool = True,
        side_events: bool = False,
        max_frame: object = DEFAULT_MAX_FRAME,
        max_retained: object = DEFAULT_MAX_RETAINED,
        framing: str | None = None,
        content_type: str | None = None,
        url: str | None = None,
        choice: object = 0,
    ) -> None:
        # typed `object`: a compiled decoder would refuse another type with a TypeError
        # of its own before these checks could name the option
        if type(choice) is not int or choice < 0:
            raise DecoderUsageError(f"choice is a choice's index, an int from 0, not {choice!r}")
        if type(max_frame) is not int or max_frame < 1:
            raise DecoderUsageError(f"max_frame is a number of bytes, an int from 1, not {max_frame!r}")
        if type(max_retained) is not int or max_retained < 0:
            raise DecoderUsageError(f"max_retained is a number of side events, an int from 0, not {max_retained!r}")
        chosen: str | None = protocol
        self.detected_by: str | None = None
        if protocol == "auto":
            chosen, why = from_url(url) if url else (None, "")
            if chosen is not None:
                self.detected_by = why
        spec = PROTOCOLS.get(chosen) if chosen is not None else None
        if chosen is not None and spec is None:
            known = ", ".join(sorted(PROTOCOLS))
            raise DecoderUsageError(f"unknown protocol {protocol!r}; known: auto, {known}")
        framings = spec.framings if spec is not None else _EVERY_FRAMING
        if framing is not None and framing not in framings:
            raise DecoderUsageError(f"{protocol} comes as {' or '.join(framings)}, not {framing!r}")
        if framing is None and content_type:
            framings = _framings_of(content_type, framings)
        self.protocol = chosen or "auto"
        # 16 random hex digits (it needs to be unique, not secret: `random` is seeded
        # from the OS, again in a forked child, and costs a third of an os.urandom call)
        self.stream_id = stream_id if stream_id is not None else f"{_random_bits(64):016x}"
        self.clock: Clock = clock or _now_ms
        self.session = Session(self.protocol, self.stream_id, strict_arguments, side_events, max_retained, choice)
        self.asm = self.session.asm
        self.spec: ProtocolSpec | None = None
        self.handler: Handler = Undetected()
        self._handler_frame = self.handler.frame
        self._sink: FrameSink = self._frame
        self._run_sink: RunSink | None = None  # the handler's, with its own sink (see _set_sink)
        self._held: list[tuple[str | None, bytes]] = []  # frames before the protocol is known
        self._watching = 0  # first frames of an explicit protocol still sniffed
        self._looks_like: str | None = None
        # a watched frame's object as `_object` parsed it for the handler, and its
        # payload: `_watch` sniffs that object instead of parsing the payload again
        self._seen: dict[str, Any] | None = None
        self._seen_payload: bytes | None = None
        if spec is not None:
            self._adopt(spec)
            sink: FrameSink = self._watch
            self._watching = _WATCHED
        else:
            sink = self._detect
        self.framer: Framer
        if framing is None and len(framings) > 1:
            self.framer = FramingSniffer(sink, self.protocol, max_frame, self._use_framer, framings)
        else:
            self.framer = make_framer(framing or framings[0], sink, self.protocol, max_frame)
        self._ended: str | None = None
        self._refused: str | None = None  # the name of the error push() raised
        self._argument_failure: ArgumentsError | None = None

    # --- public API -----------------------------------------------------------------

    def __class_getitem__(cls, item: object) -> GenericAlias:
        # StreamDecoder[Event] as type checkers read it (unievent._api) must also run
        return GenericAlias(cls, item)

    @overload
    def push(self, data: bytes | bytearray | memoryview) -> list[Event]: ...
    @overload
    def push(self, data: str) -> NoReturn: ...  # raises DecoderUsageError: pass the raw bytes

    def push(self, data: object) -> list[Event]:
        """Feed bytes as they arrived (any bytes-like object); return the events they
        complete."""
        # `data` is read as object: what arrived is checked here (a str gets the error
        # that names the fix), not by the signature (a compiled decoder checks declared
        # types on entry)
        received = data
        if self._ended is not None or self._refused is not None:
            raise self._state_error("push")
        data = received if type(received) is bytes else self._as_bytes(received)
        out = self._fresh_out()
        if self._argument_failure is None:
            try:
                self.framer.feed(data)
            except ArgumentsError as failure:
                self._fail_arguments(failure)
            except FrameTooLargeError as error:
                # the size seen depends on where the pushes split; the cap does not
                self._refuse(error, "frame_too_large", f"a {error.what} over the cap of {error.limit} bytes")
                error.events = out
                raise
        release(out)  # a long push's events leave the cyclic collector's lists (compiled)
        return out

    def finish(self) -> tuple[list[Event], Outcome]:
        """End of input: the last events and the Outcome."""
        if self._ended is not None:
            raise self._state_error("finish")
        out = self._fresh_out()
        end: End = "failed"
        pending: DoneItem | None = None
        if self._refused is not None:
            self._close_partial()
        elif self._argument_failure is None:
            try:
                self.framer.eof()
                self.handler.at_end()
                end = self._end_kind() if self.spec is not None else self._undetected_end()
                end = self._wrong_protocol(end)
                if end == "not_event_stream":
                    end = self._error_body()
                if end == "complete":
                    self.handler.before_stop()
                    if not self.handler.stopped:
                        self.asm.stop(self.session.usage(), self.handler.finish_reason())
                elif self.handler.closes_open_items(end):
                    self._close_partial()
                else:  # no done event, but the text that arrived stays in the message
                    pending = self.asm.pending_done()
            except ArgumentsError as failure:
                self._fail_arguments(failure)
                end = "failed"
        self._ended = end
        release(out)  # a long push's events leave the cyclic collector's lists (compiled)
        outcome = self._outcome(end, pending)
        self._let_go()
        return out, outcome

    def abort(self) -> Outcome:
        """The caller cancelled: no events; what arrived is in the Outcome."""
        if self._ended is not None:
            raise self._state_error("abort")
        self._ended = "cancelled"
        outcome = self._outcome("cancelled", pending=self.asm.pending_done())
        self._let_go()
        return outcome

    @property
    def argument_failure(self) -> ArgumentsError | None:
        """The strict-arguments failure that ended the stream, if one did."""
        return self._argument_failure

    # --- the protocol -------------------------------------------------------------------

    def _adopt(self, spec: ProtocolSpec, why: str | None = None) -> None:
        """Decode as `spec` from here on."""
        self.spec = spec
        self.protocol = self.session.protocol = spec.name
        if why is not None:
            self.detected_by = why
        self.handler = spec.handler(self.session)
        self._handler_frame = self.handler.frame
        self._sink = self._frame
        self._run_sink = None
        raw = getattr(self.handler, "raw", None)
        if raw is not None and fast_paths_enabled():
            self.handler.parse = self._object  # type: ignore[attr-defined]
            self._sink = raw
            self._run_sink = getattr(self.handler, "raw_run", None)

    def _detect(self, event: str | None, payload: bytes) -> int:
        """The sink of an `auto` decoder: frames are held until one names the protocol,
        then all of them are decoded in order.  A frame that is no JSON object is read
        as every protocol reads it (skipped, or `[DONE]`: the end), and not held."""
        if self.spec is not None:
            return self._sink(event, payload)
        obj = self._object(event, payload)
        if type(obj) is int:
            return obj
        assert type(obj) is dict
        name, why = from_frame(event, obj)
        self._held.append((event, payload))
        if name is None:
            if len(self._held) >= _MAX_HELD:
                self.framer.close()  # no protocol in sight: the body is kept as it is
                return FRAME_OVER
            return FRAME_OK
        spec = PROTOCOLS[name]
        if self._framing() not in spec.framings:  # e.g. a whole chat.completion: no stream
            return FRAME_OK
        self._adopt(spec, f"frame {len(self._held)}: {why}")
        self._set_sink(self._sink)
        held, self._held = self._held, []
        status = FRAME_OK
        for n, (name_of, body) in enumerate(held):
            status = self._sink(name_of, body)
            if status == FRAME_OVER:
                self.framer.ignored += len(held) - n - 1
                break
            if status == FRAME_JUNK and n < len(held) - 1:
                self.framer.skipped += 1  # the framer counts only the frame at hand
        return status

    def _framing(self) -> str:
        """The name of the framing in use (once the sniffer has chosen one)."""
        kind = type(self.framer)
        return next((name for name, made in FRAMERS.items() if made is kind), "")

    def _watch(self, event: str | None, payload: bytes) -> int:
        """The sink of an explicit protocol's first frames: decoded as usual, and
        sniffed, so that a body of another protocol's frames is named at the end."""
        status = self._sink(event, payload)
        if self._watching:
            self._watching -= 1
            seen = self._seen
            # the handler's own parse of this payload (not of another it parsed, such
            # as a chunk's inner event), or, when it took the frame without one, a parse
            if seen is not None and self._seen_payload is payload:
                name, _ = from_frame(event, seen)
            else:
                name, _ = from_payload(event, payload)
            self._seen = self._seen_payload = None
            if name == self.protocol or self.asm.done_items or self.asm.open_kind is not None:
                self._watching = 0
                self._looks_like = None  # it speaks this protocol after all
            elif name is not None and self._looks_like is None:
                self._looks_like = name
            if not self._watching:
                self._set_sink(self._sink)
        return status

    def _set_sink(self, sink: FrameSink) -> None:
        framer: Any = self.framer
        framer.sink = sink
        # the handler's run taker goes with its own sink only
        if isinstance(framer, (SSEFramer, NDJSONFramer, AWSEventStreamFramer)):
            framer.run = self._run_sink if sink is self._sink else None

    def _wrong_protocol(self, end: End) -> End:
        """A body whose frames never matched the protocol but look like another's: the
        end it would have had (nothing: truncated; a bare `[DONE]`: complete; a frame
        the protocol cannot read: a protocol error) becomes that error.  A provider's
        own error frame stands: every protocol reads it the same."""
        other = self._looks_like
        if other is None or self.asm.done_items or self.asm.open_kind is not None or end == "not_event_stream":
            return end
        error = self.session.error
        if end == "failed" and (error is None or error.type != "protocol_error"):
            return end
        self.session.error = ProviderError(
            f"{self.protocol}: the frames look like {other}, not {self.protocol}", "wrong_protocol"
        )
        return "failed"

    def _error_body(self) -> End:
        """A body that is no event stream but one JSON error (a gateway's 200 with an
        `{"error": ...}` body) is that error: failed, the body kept."""
        text = self._body().encode()
        if text.startswith(b"[") and text.endswith(b"]"):  # Gemini answers errors as [{"error": ...}]
            text = text[1:-1].strip()
        obj = _object_or_none(text)
        error = error_of(None, obj) if obj is not None else None
        if error is None:
            return "not_event_stream"
        self.session.fail(error)
        return "failed"

    def _body(self) -> str:
        if self.spec is None and self._held:
            return b"\n".join(payload for _, payload in self._held).decode("utf-8", "replace")
        return self.framer.body_text()

    def _undetected_end(self) -> End:
        """An `auto` body that named no protocol: an error frame of an event stream
        fails it, frames of no known protocol are no event stream, and otherwise it
        ends as any protocol's would that saw nothing (an empty body: truncated)."""
        end = self._end_kind()
        if not self._held or end == "not_event_stream":
            return end
        if not isinstance(self.framer, JSONBodyFramer):  # one JSON body is no stream
            for event, payload in self._held:
                obj = _object_or_none(payload)
                error = error_of(event, obj) if obj is not None else None
                if error is not None:
                    self.session.fail(error)
                    return "failed"
        return "not_event_stream"

    # --- frames -------------------------------------------------------------------------

    def _frame(self, event: str | None, payload: bytes) -> int:
        """The sink every framer feeds: parse the payload once, hand it on."""
        obj = self._object(event, payload)
        if isinstance(obj, int):
            return obj
        return FRAME_OVER if self._handler_frame(event, obj) else FRAME_OK

    def _object(self, event: str | None, payload: bytes) -> dict[str, Any] | int:
        """A frame's JSON object, or the FRAME_* status of a frame that is none."""
        try:
            obj = _loads(payload)
        except _JSONDecodeError:
            return self._odd_payload(event, payload)
        if type(obj) is not dict:
            return FRAME_OK  # JSON that is not an object: nothing a provider streams
        if len(payload) >= _SHORTEST_TOO_DEEP and too_deep(payload, obj):
            self.session.note("frame_too_deep", f"a frame nested deeper than {MAX_DEPTH} levels was not read")
            return FRAME_JUNK
        if self._watching:
            self._seen, self._seen_payload = obj, payload
        return obj

    def _odd_payload(self, event: str | None, payload: bytes) -> dict[str, Any] | int:
        stripped = payload.strip()
        if not stripped:
            return FRAME_OK
        if stripped == b"[DONE]":
            return FRAME_OVER if self.handler.done_sentinel() else FRAME_OK
        if payload.isascii():
            return FRAME_JUNK
        try:
            payload.decode("utf-8")
        except UnicodeDecodeError:
            pass
        else:
            return FRAME_JUNK  # valid UTF-8 that is not JSON
        text = payload.decode("utf-8", "replace")  # bytes that were not UTF-8: read with U+FFFD
        try:
            obj = _loads(text)
        except _JSONDecodeError:
            return FRAME_JUNK
        if type(obj) is not dict:
            return FRAME_OK
        if too_deep(text, obj):
            self.session.note("frame_too_deep", f"a frame nested deeper than {MAX_DEPTH} levels was not read")
            return FRAME_JUNK
        return obj

    def _let_go(self) -> None:
        """After the end, nothing calls back into the decoder: the framer's sinks and the
        handler's parser are the only references back to it (and a handler may refer to
        itself), so without them a decoder nobody holds any longer is freed at once,
        with all it assembled, instead of waiting as a cycle for the collector (after a
        long decode, for a full collection)."""
        self._run_sink = None
        self._set_sink(ended)  # the framer's sink and run taker
        self._sink = ended  # its own `_frame` when the handler reads objects only
        if isinstance(self.framer, FramingSniffer):
            self.framer.let_go()  # its callback for the framing it never chose
        self.handler.let_go()

    def _use_framer(self, framer: Framer) -> None:
        self.framer = framer

    @property
    def fast_frames(self) -> int:
        """How many frames the on-demand path took (see _ondemand.py)."""
        return int(getattr(self.handler, "fast_frames", 0))

    # --- internals --------------------------------------------------------------------

    def _fresh_out(self) -> list[Any]:
        out: list[Any] = []
        self.asm.out = out
        self.asm.now = self.clock()
        return out

    def _as_bytes(self, data: Any) -> bytes:
        if isinstance(data, str):
            self._refuse(None)
            raise DecoderUsageError(
                f"{self.protocol}: push() takes the raw bytes of the body, not str; read them with "
                "iter_bytes() / aiter_bytes() / iter_content(chunk_size=None), not iter_lines() or iter_text()"
            )
        try:
            return bytes(memoryview(data))
        except TypeError:
            self._refuse(None)
            raise DecoderUsageError(
                f"{self.protocol}: push() takes bytes or a bytes-like object, not {type(data).__name__}"
            ) from None

    def _refuse(self, error: UniEventError | None, error_type: str = "", message: str = "") -> None:
        """After an error push() raised: no more input; finish() reports it."""
        # its name only: the error itself goes up to the caller, and its traceback
        # holds this decoder's frame
        self._refused = type(error).__name__ if error is not None else DecoderUsageError.__name__
        self.framer.close()
        if error is not None:
            self.session.fail(ProviderError(f"{self.protocol}: {message or error.message}", error_type))

    def _state_error(self, call: str) -> DecoderStateError:
        if self._ended is not None:
            return DecoderStateError(self.protocol, self._ended, call)
        return DecoderStateError(self.protocol, f"refused after {self._refused}", call)

    def _end_kind(self) -> End:
        end = self.handler.end()
        framer = self.framer
        session = self.session
        if framer.ignored:
            session.note(
                "frames_after_end", f"{framer.ignored} frame(s) after the end of the stream not read", framer.ignored
            )
        if end != "failed" and not self.asm.done_items and framer.body_text():
            return "not_event_stream"
        if framer.cut:
            session.note("cut_frame", "the body ended inside a frame")
            if end == "complete":
                return "truncated"
        return end

    def _close_partial(self) -> None:
        # Text and reasoning that arrived are complete as far as they go; a tool call
        # cut short is not, so its group stays open and no client runs it.
        if self.asm.open_kind not in (None, "tool_call"):
            self.asm.close()

    def _fail_arguments(self, failure: ArgumentsError) -> None:
        self._argument_failure = failure.with_traceback(None)  # kept, not its frames
        self.framer.close()
        self.session.fail(
            ProviderError(
                f"arguments of tool call {failure.name!r} ({failure.tool_call_id}) are not a JSON object",
                "tool_call_argument_parse_error",
                None,
                failure.raw,
            )
        )

    def _outcome(self, end: End, pending: DoneItem | None = None) -> Outcome:
        session = self.session
        complete = end == "complete"
        items = list(self.asm.done_items)
        if pending is not None:
            items.append(pending)
        if not complete:
            items = [i for i in items if not isinstance(i, ToolCallDone)]
        usage = session.usage()
        finish = self.handler.finish_reason() if complete else None
        message = Message("assistant", tuple(items), usage if complete else None, finish, self.asm.now or None)
        body = self._body() if end in ("not_event_stream", "failed") else ""
        return Outcome(
            end=end,
            message=message,
            usage=usage,
            finish_reason=finish,
            native_finish_reason=session.native_finish_reason,
            model=session.model,
            skipped_frames=self.framer.skipped,
            error=session.error if end == "failed" else None,
            body=body[: 1024 * 1024] or None,
            side_events=tuple(session.side),
            anomalies=session.anomalies.freeze(),
            extras=dict(session.extras),
            protocol=self.protocol,
            detected_by=self.detected_by,
            end_state=self.handler.state_name(),
            response_id=session.response_id,
            argument_failure=self._argument_failure,
        )
