# UniEvents back to a wire: StreamEncoder, encode(), and transcode() from one
# protocol to another.
#
# The events are checked against the UniEvent grammar as they come (a broken stream
# raises EncodeError instead of being written); each protocol's writer
# (unievent/_writers/<protocol>.py, beside its reader in _protocols/) steps the same
# machine its decoder runs for every frame it writes.  A group's deltas are written as
# they come; fidelity goes back to the wire it came from, and what a wire cannot
# carry is listed in `dropped`, never silently lost.
from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Callable, Iterable, Iterator
from typing import Any

import attrs

from unievent._decoder import StreamDecoder
from unievent._errors import EncodeError, GrammarError
from unievent._events import (
    DeltaEvent,
    DoneItem,
    EmbeddingDone,
    Event,
    InlineDataDelta,
    InlineDataDone,
    InlineThinkingDelta,
    InlineThinkingDone,
    StopEvent,
    TextDelta,
    TextDone,
    ThinkingDelta,
    ThinkingDone,
    ToolCallDelta,
    ToolCallDone,
    Usage,
)
from unievent._grammar import GrammarChecker, _joined, parse_arguments
from unievent._outcome import Outcome, ProviderError
from unievent._side import SideEvent
from unievent._writers import WRITERS
from unievent._writers.base import EncodeOptions, Writer

__all__ = ["StreamEncoder", "atranscode", "encode", "transcode"]


class StreamEncoder:
    """Write UniEvents as one protocol's wire: ``push(event) -> bytes`` for each event,
    then ``finish()`` (the terminal frames), ``fail(error)`` (the protocol's in-stream
    error) or ``abort()`` (no terminal frame, as a cut stream).

    Options, as a real server varies them: `model`, `response_id`, `created` (unix
    seconds), `include_usage` (Chat Completions: the usage chunk), `pings`
    (Anthropic: a ping after message_start), `framing` (Gemini: ``"sse"`` or
    ``"json_array"``), `fidelity_from` (the protocol the events' fidelity came from:
    fidelity of another protocol is dropped, and listed in `dropped`).
    """

    def __init__(
        self,
        protocol: str,
        *,
        model: str = "unievent",
        response_id: str = "resp_unievent",
        created: int = 0,
        include_usage: bool = True,
        pings: bool = False,
        framing: str = "sse",
        fidelity_from: str | None = None,
    ) -> None:
        made = WRITERS.get(protocol)
        if made is None:
            raise EncodeError(protocol, "-", "the stream", f"no writer for it; there are: {', '.join(sorted(WRITERS))}")
        options = EncodeOptions(model, response_id, created, include_usage, pings, framing, fidelity_from)
        self.protocol = protocol
        self.writer: Writer = made(options)
        self.grammar = GrammarChecker()
        self.ended = False
        self.stopped = False
        self.open_kind: str | None = None
        self.made_calls = False

    @property
    def dropped(self) -> list[str]:
        """What the events held that this wire has no place for (fidelity keys, items)."""
        return self.writer.dropped

    def push(self, event: Event | SideEvent) -> bytes:
        """The bytes of one event (often nothing until a frame is due)."""
        if self.ended:
            raise EncodeError(self.protocol, "ended", type(event).__name__, "the stream was already ended")
        kind = type(event)
        if kind is SideEvent:
            writer = self.writer
            if not writer.started:
                writer.started = True
                writer.begin()
            writer.side(event)  # type: ignore[arg-type]
            return writer.take()
        try:
            self.grammar.check(event)
        except GrammarError as error:
            raise EncodeError(self.protocol, error.state, error.arrived, error.reason) from None
        writer = self.writer
        if not writer.started:
            writer.started = True
            writer.begin()
        if writer.whole_events:
            writer.event(event)  # type: ignore[arg-type]  # the grammar let only UniEvents through
        if kind is StopEvent:
            writer.unsayable_finish(event.finish_reason, self.made_calls)  # type: ignore[union-attr]
            writer.stop(event)  # type: ignore[arg-type]
            self.stopped = True
        else:
            item: Any = event.item  # type: ignore[union-attr]
            if item.type.endswith(".done"):
                writer.close(item)
                self.open_kind = None
                if item.type == "tool_call.done":
                    self.made_calls = True
            else:
                if self.open_kind is None:
                    self.open_kind = item.kind
                    writer.open(item)
                writer.delta(item)
        return writer.take()

    def finish(self) -> bytes:
        """The end of a complete stream: its terminal frames (a stop event is written
        first if none was pushed; an open group is closed)."""
        out = b""
        if not self.stopped:
            out += self._close_open()
            out += self.push(StopEvent(Usage(), "stop", 0))
        self.ended = True
        self.writer.end()
        return out + self.writer.take()

    def fail(self, error: ProviderError | str) -> bytes:
        """The protocol's in-stream error, ending the stream."""
        if isinstance(error, str):
            error = ProviderError(error, "server_error")
        writer = self.writer
        if not writer.started:
            writer.started = True
            writer.begin()
        self.ended = True
        writer.fail(error)
        return writer.take()

    def abort(self) -> bytes:
        """End without a terminal frame, as a cut stream ends."""
        self.ended = True
        return self.writer.take()

    def keep_alive(self) -> bytes:
        """What this wire sends while the model is silent (a comment, Anthropic's ping)."""
        return self.writer.keep_alive()

    def _close_open(self) -> bytes:
        """The done of the open group, from what the grammar gathered."""
        pending = _done_of(self.grammar.ctx.group) if self.open_kind is not None else None
        return self.push(DeltaEvent(pending, 0)) if pending is not None else b""


def _done_of(group: Any) -> DoneItem | None:
    """The done that closes `group` as the grammar requires."""
    if not group.deltas:
        return None
    first, joined, fidelity = group.deltas[0], _joined(group), group.fidelity
    if isinstance(first, TextDelta):
        return TextDone(joined, fidelity)
    if isinstance(first, ThinkingDelta):
        return ThinkingDone(joined, fidelity)
    if isinstance(first, ToolCallDelta):
        arguments = parse_arguments(joined)
        if arguments is None:
            return ToolCallDone(first.name, {}, first.tool_call_id, {**(fidelity or {}), "raw_arguments": joined})
        return ToolCallDone(first.name, arguments, first.tool_call_id, fidelity)
    if isinstance(first, InlineDataDelta):
        return InlineDataDone(joined, first.mime_type, fidelity)
    if isinstance(first, InlineThinkingDelta):
        return InlineThinkingDone(joined, first.mime_type, fidelity)
    return EmbeddingDone(joined)


def encode(events: Iterable[Event | SideEvent], protocol: str, **options: Any) -> bytes:
    """A whole event list as `protocol`'s body: complete when it ends with its stop."""
    encoder = StreamEncoder(protocol, **options)
    out = [encoder.push(event) for event in events]
    out.append(encoder.finish() if encoder.stopped else encoder.abort())
    return b"".join(out)


def _ending(encoder: StreamEncoder, outcome: Outcome) -> bytes:
    if outcome.end == "complete":
        return encoder.finish()
    if outcome.end == "failed" and outcome.error is not None:
        return encoder.fail(outcome.error)
    return encoder.abort()  # a cut stays a cut


def _pipe(
    source: str, target: str, options: dict[str, Any]
) -> tuple[StreamDecoder, Callable[[list[Any], Outcome | None], bytes]]:
    decoder = StreamDecoder(source, stream_id=options.pop("stream_id", None), side_events=True)
    options.setdefault("fidelity_from", source)
    named_model, named_id = "model" in options, "response_id" in options
    encoder = StreamEncoder(target, **options)

    def write(events: list[Any], outcome: Outcome | None) -> bytes:
        """The target's bytes of `events` (and, given the outcome, of the end)."""
        writer = encoder.writer
        if source == "auto":  # the fidelity is the protocol's that was found
            writer.fidelity_source = decoder.protocol
        if not writer.started and (events or outcome is not None):
            # the writer names the model and the response id in its opening frames,
            # written with the first event (or the end of a stream that had none): by
            # then the source's frames that name them were decoded (a message_start,
            # response.created, the first chunk), unless the user named them
            session = decoder.session
            if not named_model and session.model:
                writer.options = attrs.evolve(writer.options, model=session.model)
            if not named_id and session.response_id:
                writer.options = attrs.evolve(writer.options, response_id=session.response_id)
        out = b"".join(encoder.push(event) for event in events)
        return out + _ending(encoder, outcome) if outcome is not None else out

    return decoder, write


def transcode(chunks: Iterable[bytes], source: str, target: str, **options: Any) -> Iterator[bytes]:
    """Serve a `source` stream as `target`'s wire, bytes out as bytes come in: the
    target's terminal frames for a complete source, its error frame for a failed
    one, nothing more for a cut one.  The target names the source's model and
    response id (`Outcome.response_id`) where its wire has a place for them, unless
    `model=` or `response_id=` name others.  `options`: StreamEncoder's, and
    `stream_id` for the decoder (the made-up ids of calls that came without one)."""
    decoder, write = _pipe(source, target, dict(options))
    for chunk in chunks:
        out = write(decoder.push(chunk), None)
        if out:
            yield out
    events, outcome = decoder.finish()
    out = write(events, outcome)
    if out:
        yield out


async def atranscode(chunks: AsyncIterable[bytes], source: str, target: str, **options: Any) -> AsyncIterator[bytes]:
    """The async form of `transcode`."""
    decoder, write = _pipe(source, target, dict(options))
    async for chunk in chunks:
        out = write(decoder.push(chunk), None)
        if out:
            yield out
    events, outcome = decoder.finish()
    out = write(events, outcome)
    if out:
        yield out
