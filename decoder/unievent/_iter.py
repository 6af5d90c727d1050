# Iterators over a response body: events as they complete, then either the stop
# event or a typed error that carries the Outcome.  Never both.
from __future__ import annotations

from collections.abc import AsyncIterable, AsyncIterator, Iterable, Iterator
from typing import Any

from unievent._decoder import StreamDecoder
from unievent._errors import (
    IncompleteStreamError,
    NotEventStreamError,
    ProviderStreamError,
    StreamEndError,
    ToolCallArgumentParseError,
)
from unievent._events import Event
from unievent._helpers import looks_like_html
from unievent._outcome import Outcome

__all__ = ["aiter_events", "error_for", "iter_events"]


def iter_events(chunks: Iterable[bytes], protocol: str, **options: Any) -> Iterator[Event]:
    """Yield the events of a response body given as byte chunks (any HTTP client).

    A complete stream ends with its StopEvent.  Any other end raises, after the events
    that did arrive: IncompleteStreamError (truncated), ProviderStreamError (failed),
    NotEventStreamError (not SSE), ToolCallArgumentParseError (strict arguments).
    `options` are StreamDecoder's keyword arguments.
    """
    decoder = StreamDecoder(protocol, **options)
    for chunk in chunks:
        yield from decoder.push(chunk)
    events, outcome = decoder.finish()
    yield from events
    _raise_unless_complete(decoder, outcome)


async def aiter_events(chunks: AsyncIterable[bytes], protocol: str, **options: Any) -> AsyncIterator[Event]:
    """The async form of `iter_events` (e.g. ``response.aiter_bytes()``)."""
    decoder = StreamDecoder(protocol, **options)
    async for chunk in chunks:
        for event in decoder.push(chunk):
            yield event
    events, outcome = decoder.finish()
    for event in events:
        yield event
    _raise_unless_complete(decoder, outcome)


def _raise_unless_complete(decoder: StreamDecoder, outcome: Outcome) -> None:
    error = error_for(decoder, outcome)
    if error is not None:
        raise error


def error_for(decoder: StreamDecoder, outcome: Outcome) -> StreamEndError | None:
    """The typed error for an outcome that is not complete (None when it is)."""
    protocol = decoder.protocol
    if outcome.end == "complete":
        return None
    failure = decoder.argument_failure
    if failure is not None:
        return ToolCallArgumentParseError(protocol, failure.name, failure.tool_call_id, failure.raw, outcome)
    if outcome.end == "failed":
        message = outcome.error.message if outcome.error else "the provider reported an error"
        return ProviderStreamError(f"{protocol}: the provider reported an error: {message}", outcome)
    if outcome.end == "not_event_stream":
        html = looks_like_html(outcome.body or "")
        what = "an HTML page" if html else "not an event stream"
        return NotEventStreamError(
            f"{protocol}: the response body is {what}: {(outcome.body or '')[:200]!r}", outcome, html
        )
    if outcome.end == "cancelled":
        return IncompleteStreamError(f"{protocol}: the stream was cancelled", outcome)
    return IncompleteStreamError(
        f"{protocol}: the stream ended before the provider finished it (state {decoder.handler.state_name()})",
        outcome,
    )
