# One call from a response object to events: `unievent.stream()` and `astream()`.
#
# A Stream reads the response's status, content type and URL (see _sources.py), then
# decodes its body as it is iterated, and keeps what a caller wants after the loop: the
# outcome on every end, the message, the model.  Its failures are typed: a status that
# is not 2xx raises HTTPStatusError before any event, a client that fails while reading
# raises TransportError with the outcome of what arrived, and every other end raises
# the error the iterators raise.  Nothing here parses a wire: the decoder does.
from __future__ import annotations

from collections.abc import AsyncGenerator, AsyncIterator, Generator, Iterator
from typing import Any, Generic, Literal, TypeVar, Unpack, overload

import jiter

from unievent._api import AnyEvent, Options, ProtocolName
from unievent._decoder import StreamDecoder
from unievent._errors import HTTPStatusError, TransportError, UniEventError
from unievent._events import (
    DeltaEvent,
    DoneItem,
    Event,
    Fidelity,
    Message,
    TextDelta,
    TextDone,
    ThinkingDelta,
    ThinkingDone,
    ToolCallDelta,
    ToolCallDone,
)
from unievent._helpers import is_stream_options_rejected
from unievent._outcome import Outcome, ProviderError
from unievent._shared import error_of
from unievent._sources import AsyncSource, Source, async_source_of, source_of

__all__ = ["AsyncStream", "Stream", "astream", "stream"]

E = TypeVar("E", Event, AnyEvent)


# --- what the caller sees of the stream so far -----------------------------------------


class _Snapshot:
    """The message so far, kept from the events as they pass: done items, and the open
    item's pieces.  An open tool call's arguments are parsed partially (jiter), but only
    when their text has grown by an eighth since the last parse, so that a caller who
    asks after every delta pays parsing linear in the arguments, not quadratic."""

    def __init__(self) -> None:
        self.items: list[DoneItem] = []
        self.kind: str | None = None
        self.parts: list[str] = []
        self.size = 0
        self.fidelity: Fidelity | None = None
        self.name = ""
        self.call_id = ""
        self.parsed_size = -1
        self.parsed: dict[str, Any] = {}

    def see(self, event: Any) -> None:
        if type(event) is not DeltaEvent:
            return
        item = event.item
        kind = item.kind
        if item.type.endswith(".done"):
            self.items.append(item)  # type: ignore[arg-type]  # a done type is a DoneItem
            self.kind = None
            self.parts = []
            self.size = 0
            self.fidelity = None
            self.parsed_size = -1
            self.parsed = {}
            return
        if kind != self.kind:
            self.kind = kind
            self.parts = []
            self.size = 0
            self.fidelity = None
        if type(item) is TextDelta:
            piece = item.text
        elif type(item) is ThinkingDelta:
            piece = item.thinking
        elif type(item) is ToolCallDelta:
            piece = item.arguments
            if item.name:
                self.name, self.call_id = item.name, item.tool_call_id
        else:
            return  # bytes and vectors are shown once done
        self.parts.append(piece)
        self.size += len(piece)
        if item.fidelity is not None:
            self.fidelity = item.fidelity

    def pending(self) -> DoneItem | None:
        if self.kind == "text":
            return TextDone("".join(self.parts), self.fidelity)
        if self.kind == "thinking":
            return ThinkingDone("".join(self.parts), self.fidelity)
        if self.kind == "tool_call":
            return ToolCallDone(self.name, self._arguments(), self.call_id, self.fidelity)
        return None

    def _arguments(self) -> dict[str, Any]:
        if self.size > self.parsed_size and self.size >= self.parsed_size + max(1, self.parsed_size // 8):
            text = "".join(self.parts)
            self.parts = [text]
            try:
                value = jiter.from_json(text.encode(), partial_mode="trailing-strings")
            except ValueError:
                value = None  # not JSON (yet): keep what the last parse gave
            if type(value) is dict:
                self.parsed = value
            self.parsed_size = self.size
        return self.parsed

    def message(self) -> Message:
        pending = self.pending()
        items = (*self.items, pending) if pending is not None else tuple(self.items)
        return Message("assistant", items, None, None, None)


# --- the typed failures before and while reading ---------------------------------------


def _status_error(status: int, content_type: str | None, body: bytes) -> HTTPStatusError:
    text = body[: HTTPStatusError.BODY_LIMIT].decode("utf-8", "replace")
    return HTTPStatusError(status, _error_in(text), text, content_type, is_stream_options_rejected(status, text))


def _error_in(text: str) -> ProviderError | None:
    """The provider error an error body holds (OpenAI, Anthropic, Gemini, MMSP)."""
    import orjson  # noqa: PLC0415

    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    if type(value) is list and value and type(value[0]) is dict:  # Gemini: [{"error": ...}]
        value = value[0]
    return error_of(None, value) if type(value) is dict else None


def _not_ok(status: int | None) -> bool:
    return status is not None and not 200 <= status < 300


def _transport_failed(protocol: str, failure: BaseException, outcome: Outcome) -> TransportError:
    return TransportError(f"{protocol}: reading the response failed: {type(failure).__name__}: {failure}", outcome)


def _decoder_for(protocol: ProtocolName, source: Source | AsyncSource, options: dict[str, Any]) -> StreamDecoder:
    if protocol == "auto":
        options.setdefault("content_type", source.content_type)
        options.setdefault("url", source.url)
    return StreamDecoder(protocol, **options)


# --- sync -------------------------------------------------------------------------------


class _Reading(Generic[E]):
    """What Stream and AsyncStream share: the decoder, what the caller sees so far, and
    the outcome once the stream has ended."""

    def __init__(self, decoder: StreamDecoder) -> None:
        self._decoder = decoder
        self._seen = _Snapshot()
        self._closed = False
        #: the Outcome, once the stream has ended (None before)
        self.outcome: Outcome | None = None

    @property
    def protocol(self) -> str:
        """The protocol decoding the stream (with "auto", once a frame named it)."""
        return self._decoder.protocol

    @property
    def message(self) -> Message | None:
        """The assembled message, once the stream has ended."""
        return None if self.outcome is None else self.outcome.message

    @property
    def model(self) -> str | None:
        """The model the provider named, once the stream has ended."""
        return None if self.outcome is None else self.outcome.model

    def snapshot(self) -> Message:
        """The message so far: the done items, then the open item (a tool call's
        arguments parsed as far as they go, as of the last eighth of growth)."""
        if self.outcome is not None:
            return self.outcome.message
        return self._seen.message()

    def _refuse(self, status: int, content_type: str | None, body: bytes) -> HTTPStatusError:
        """The error of a status that is not 2xx; the stream ends cancelled."""
        self._closed = True
        self.outcome = self._decoder.abort()
        return _status_error(status, content_type, body)


class Stream(_Reading[E]):
    """A response being decoded (see `unievent.stream`).

    Iterate it for the events.  After the loop, on every end: `outcome`, `message`,
    `model`.  `text_stream` yields only text; `final_message()` reads to the end;
    `snapshot()` is the message so far; `close()` cancels.  A context manager that
    closes the response.
    """

    def __init__(self, source: Source, decoder: StreamDecoder) -> None:
        super().__init__(decoder)
        self._source = source
        self._events: Generator[Any, None, None] | None = None

    def __enter__(self) -> Stream[E]:
        self._check_status()
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    def __iter__(self) -> Stream[E]:
        return self

    def __next__(self) -> E:
        if self._events is None:
            self._check_status()
            self._events = self._run()
        event: E = next(self._events)
        return event

    @property
    def text_stream(self) -> Iterator[str]:
        """Only the text, piece by piece as it arrives (the same errors at the end)."""
        for event in self:
            if type(event) is DeltaEvent and type(event.item) is TextDelta:
                yield event.item.text

    def final_message(self) -> Message:
        """Read to the end and return the message; an end that is not complete raises
        its typed error, as iteration does."""
        for _ in self:
            pass
        assert self.outcome is not None
        self.outcome.raise_for_end()
        return self.outcome.message

    def close(self) -> None:
        """Stop reading and close the response; an unfinished stream ends cancelled."""
        if self._closed:
            return
        self._closed = True
        if self.outcome is None:
            self.outcome = self._decoder.abort()
        if self._events is not None:
            self._events.close()
        self._source.close()

    def _check_status(self) -> None:
        source = self._source
        if not _not_ok(source.status) or self._events is not None:
            return
        body = bytearray()
        try:
            for chunk in source.chunks:
                body += chunk
                if len(body) >= HTTPStatusError.BODY_LIMIT:
                    break
        except Exception:  # a body that fails to read says nothing more
            pass
        error = self._refuse(source.status or 0, source.content_type, bytes(body))
        source.close()
        raise error

    def _run(self) -> Generator[Any, None, None]:
        decoder = self._decoder
        seen = self._seen
        chunks = self._source.chunks
        failure: BaseException | None = None
        while True:
            try:
                chunk = next(chunks)
            except StopIteration:
                break
            except UniEventError:
                raise
            except Exception as error:  # the client's: a reset, a timeout, a body cut short
                failure = error
                break
            for event in decoder.push(chunk):
                seen.see(event)
                yield event
        events, outcome = decoder.finish()
        self.outcome = outcome
        for event in events:
            seen.see(event)
            yield event
        if failure is not None and outcome.end == "truncated":
            raise _transport_failed(decoder.protocol, failure, outcome) from failure
        outcome.raise_for_end()


@overload
def stream(
    source: Any, protocol: ProtocolName = "auto", *, side_events: Literal[False] = False, **options: Unpack[Options]
) -> Stream[Event]: ...
@overload
def stream(
    source: Any, protocol: ProtocolName = "auto", *, side_events: bool, **options: Unpack[Options]
) -> Stream[AnyEvent]: ...


def stream(source: Any, protocol: ProtocolName = "auto", **options: Any) -> Stream[Any]:
    """Decode a response as it arrives: ``for event in unievent.stream(response)``.

    `source`: a response of httpx, requests, http.client / urllib, the OpenAI or
    Anthropic SDK's ``with_streaming_response``, or any iterable of bytes.  Its status,
    content type and URL are read first (the last two find the protocol with "auto").
    A status that is not 2xx raises HTTPStatusError before any event; a failure of the
    client while reading raises TransportError (its `outcome` truncated, with all that
    arrived); other ends raise what `iter_events` raises.  `options`: StreamDecoder's.
    """
    opened = source_of(source)
    return Stream(opened, _decoder_for(protocol, opened, dict(options)))


# --- async ------------------------------------------------------------------------------


class AsyncStream(_Reading[E]):
    """The async form of `Stream` (see `unievent.astream`): ``async for``, ``async
    with``, `text_stream`, ``await final_message()``, `snapshot()`, ``await close()``."""

    def __init__(self, source: AsyncSource, decoder: StreamDecoder) -> None:
        super().__init__(decoder)
        self._source = source
        self._events: AsyncGenerator[Any, None] | None = None
        self._checked = False

    async def __aenter__(self) -> AsyncStream[E]:
        await self._check_status()
        return self

    async def __aexit__(self, *exc_info: object) -> None:
        await self.close()

    def __aiter__(self) -> AsyncStream[E]:
        return self

    async def __anext__(self) -> E:
        if self._events is None:
            await self._check_status()
            self._events = self._run()
        event: E = await anext(self._events)
        return event

    @property
    async def text_stream(self) -> AsyncIterator[str]:
        """Only the text, piece by piece as it arrives (the same errors at the end)."""
        async for event in self:
            if type(event) is DeltaEvent and type(event.item) is TextDelta:
                yield event.item.text

    async def final_message(self) -> Message:
        """Read to the end and return the message (see Stream.final_message)."""
        async for _ in self:
            pass
        assert self.outcome is not None
        self.outcome.raise_for_end()
        return self.outcome.message

    async def close(self) -> None:
        """Stop reading and close the response; an unfinished stream ends cancelled."""
        if self._closed:
            return
        self._closed = True
        if self.outcome is None:
            self.outcome = self._decoder.abort()
        if self._events is not None:
            await self._events.aclose()
        await self._source.close()

    async def _check_status(self) -> None:
        source = self._source
        if self._checked:
            return
        self._checked = True
        if not _not_ok(source.status):
            return
        body = bytearray()
        try:
            async for chunk in source.chunks:
                body += chunk
                if len(body) >= HTTPStatusError.BODY_LIMIT:
                    break
        except Exception:  # a body that fails to read says nothing more
            pass
        error = self._refuse(source.status or 0, source.content_type, bytes(body))
        await source.close()
        raise error

    async def _run(self) -> AsyncGenerator[Any, None]:
        decoder = self._decoder
        seen = self._seen
        chunks = self._source.chunks
        failure: BaseException | None = None
        while True:
            try:
                chunk = await anext(chunks)
            except StopAsyncIteration:
                break
            except UniEventError:
                raise
            except Exception as error:  # the client's: a reset, a timeout, a body cut short
                failure = error
                break
            for event in decoder.push(chunk):
                seen.see(event)
                yield event
        events, outcome = decoder.finish()
        self.outcome = outcome
        for event in events:
            seen.see(event)
            yield event
        if failure is not None and outcome.end == "truncated":
            raise _transport_failed(decoder.protocol, failure, outcome) from failure
        outcome.raise_for_end()


@overload
def astream(
    source: Any, protocol: ProtocolName = "auto", *, side_events: Literal[False] = False, **options: Unpack[Options]
) -> AsyncStream[Event]: ...
@overload
def astream(
    source: Any, protocol: ProtocolName = "auto", *, side_events: bool, **options: Unpack[Options]
) -> AsyncStream[AnyEvent]: ...


def astream(source: Any, protocol: ProtocolName = "auto", **options: Any) -> AsyncStream[Any]:
    """The async form of `stream`: ``async for event in unievent.astream(response)``.

    `source`: a response of httpx.AsyncClient, aiohttp, the OpenAI or Anthropic SDK's
    async ``with_streaming_response``, or an async (or sync) iterable of bytes.  The
    status is checked on ``async with`` or at the first event.
    """
    opened = async_source_of(source)
    return AsyncStream(opened, _decoder_for(protocol, opened, dict(options)))
