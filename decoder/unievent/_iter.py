# Iterators over a response body: events as they complete, then either the stop
# event or a typed error that carries the Outcome.  Never both.
from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any, Literal, Unpack, overload

from unievent._api import AnyEvent, Options, ProtocolName
from unievent._decoder import StreamDecoder
from unievent._errors import StreamEndError, end_error
from unievent._events import Event
from unievent._outcome import Outcome

__all__ = ["aiter_events", "error_for", "iter_events"]


@overload
def iter_events(
    chunks: Iterable[bytes], protocol: ProtocolName, *, side_events: Literal[False] = False, **options: Unpack[Options]
) -> Iterator[Event]: ...
@overload
def iter_events(
    chunks: Iterable[bytes], protocol: ProtocolName, *, side_events: bool, **options: Unpack[Options]
) -> Iterator[AnyEvent]: ...


def iter_events(chunks: Iterable[bytes], protocol: ProtocolName, **options: Any) -> Iterator[Any]:
    """Yield the events of a response body given as byte chunks (any HTTP client).

    A complete stream ends with its StopEvent.  Any other end raises, after the events
    that did arrive: IncompleteStreamError (truncated), ProviderStreamError (failed),
    NotEventStreamError (not SSE), ToolCallArgumentParseError (strict arguments).
    `options` are StreamDecoder's keyword options.  For a response object of an HTTP
    client, `unievent.stream()` also reads its status, content type and URL.
    """
    decoder = StreamDecoder(protocol, **options)
    for chunk in chunks:
        yield from decoder.push(chunk)
    events, outcome = decoder.finish()
    yield from events
    outcome.raise_for_end()


@overload
def aiter_events(
    chunks: AsyncIterable[bytes],
    protocol: ProtocolName,
    *,
    side_events: Literal[False] = False,
    **options: Unpack[Options],
) -> AsyncIterator[Event]: ...
@overload
def aiter_events(
    chunks: AsyncIterable[bytes], protocol: ProtocolName, *, side_events: bool, **options: Unpack[Options]
) -> AsyncIterator[AnyEvent]: ...


async def aiter_events(chunks: AsyncIterable[bytes], protocol: ProtocolName, **options: Any) -> AsyncIterator[Any]:
    """The async form of `iter_events` (e.g. ``response.aiter_bytes()``)."""
    decoder = StreamDecoder(protocol, **options)
    async for chunk in chunks:
        for event in decoder.push(chunk):
            yield event
    events, outcome = decoder.finish()
    for event in events:
        yield event
    outcome.raise_for_end()


def error_for(decoder: StreamDecoder, outcome: Outcome) -> StreamEndError | None:
    """The typed error for an outcome that is not complete (None when it is)."""
    return end_error(outcome)
