# The one error family.  Every error unievent raises is a UniEventError; each names
# what arrived and where (protocol, machine state, event index or byte offset), so a
# log line alone says what went wrong.  Errors that end a stream carry the Outcome
# with everything that did arrive (text is never lost to an exception).
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from unievent._outcome import Outcome, ProviderError

__all__ = [
    "DecoderStateError",
    "DecoderUsageError",
    "EncodeError",
    "EventJSONError",
    "FrameTooLargeError",
    "GrammarError",
    "HTTPStatusError",
    "IncompleteStreamError",
    "NotEventStreamError",
    "ProviderStreamError",
    "StreamEndError",
    "ToolCallArgumentParseError",
    "TransportError",
    "UniEventError",
    "end_error",
]


class UniEventError(ValueError):
    """Base of every error unievent raises.  Not raised itself."""

    def __init__(self, message: str) -> None:
        if type(self) is UniEventError:
            raise TypeError("UniEventError is abstract: raise one of its subclasses")
        super().__init__(message)
        self.message = message


class GrammarError(UniEventError):
    """An event stream breaks the UniEvent grammar.

    Attributes: `index` (position of the offending event), `state` (the grammar state
    it arrived in), `arrived` (its symbol, e.g. ``"text.delta"``), `allowed` (the
    symbols the state accepts) and `reason` (the rule that failed).
    """

    def __init__(self, index: int, state: str, arrived: str, allowed: tuple[str, ...], reason: str) -> None:
        self.index = index
        self.state = state
        self.arrived = arrived
        self.allowed = allowed
        self.reason = reason
        super().__init__(
            f"event {index}: {arrived} in state {state!r}: {reason} (allowed: {', '.join(allowed) or 'nothing'})"
        )


class EventJSONError(UniEventError):
    """A JSON object is not a valid UniEvent, item or message.

    `field` is the dotted path of the offending field, e.g. ``content_items[0].text``
    (``""`` when the document itself is at fault); `reason` says what was expected
    and what arrived.
    """

    def __init__(self, field: str, reason: str) -> None:
        self.field = field
        self.reason = reason
        super().__init__(f"{field}: {reason}" if field else reason)

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.field, self.reason))


class FrameTooLargeError(UniEventError):
    """A line or frame grew past the decoder's cap (memory stays bounded).

    The decoder refuses further input after it; its `finish()` still gives the
    outcome (end ``"failed"``, error type ``"frame_too_large"``) with everything that
    arrived before.  `events` holds the events the refused push completed before the
    cap was reached (none are lost).
    """

    def __init__(self, protocol: str, state: str, what: str, size: int, limit: int) -> None:
        self.protocol = protocol
        self.state = state
        self.what = what
        self.size = size
        self.limit = limit
        self.events: list[Any] = []
        super().__init__(f"{protocol}: {what} of {size} bytes in state {state!r} exceeds the cap of {limit} bytes")

    def __reduce__(self) -> tuple[Any, ...]:
        return (type(self), (self.protocol, self.state, self.what, self.size, self.limit))


class DecoderStateError(UniEventError):
    """The decoder was used after it ended (push after finish or abort, or an error)."""

    def __init__(self, protocol: str, state: str, call: str) -> None:
        self.protocol = protocol
        self.state = state
        super().__init__(f"{protocol}: {call}() called after the decoder ended ({state})")


class DecoderUsageError(UniEventError, TypeError):
    """The decoder was called wrongly: an unknown protocol or option, or input that is
    not bytes (a `str` from ``iter_lines()`` / ``iter_text()`` instead of the raw bytes
    of ``iter_bytes()``)."""


class StreamEndError(UniEventError):
    """A stream ended without a stop event.  `outcome` holds all that arrived."""

    def __init__(self, message: str, outcome: Outcome) -> None:
        self.outcome = outcome
        super().__init__(message)


class IncompleteStreamError(StreamEndError):
    """The stream stopped before the provider said it was finished (truncated)."""


class ProviderStreamError(StreamEndError):
    """The provider reported an error inside the stream (the outcome is `failed`).

    `error_type`, `code` and `provider_message` come from the provider's error object.
    """

    def __init__(self, message: str, outcome: Outcome) -> None:
        super().__init__(message, outcome)
        error = outcome.error
        self.provider_message = error.message if error else message
        self.error_type = error.type if error else None
        self.code = error.code if error else None


class NotEventStreamError(StreamEndError):
    """The body is not an event stream (an HTML page or a JSON error with status 200)."""

    def __init__(self, message: str, outcome: Outcome, looks_like_html: bool) -> None:
        super().__init__(message, outcome)
        self.looks_like_html = looks_like_html


class ToolCallArgumentParseError(StreamEndError):
    """A tool call's arguments are not a JSON object (strict mode).

    Raised where that call's `tool_call.done` would have gone; the call's deltas were
    already delivered.  `raw_arguments` keeps the text as it arrived.
    """

    def __init__(
        self, protocol: str, tool_name: str, tool_call_id: str, raw_arguments: str, outcome: Any = None
    ) -> None:
        self.protocol = protocol
        self.tool_name = tool_name
        self.tool_call_id = tool_call_id
        self.raw_arguments = raw_arguments
        preview = raw_arguments if len(raw_arguments) <= 160 else f"{raw_arguments[:72]}...{raw_arguments[-72:]}"
        super().__init__(
            f"{protocol}: arguments of tool call {tool_name!r} ({tool_call_id}) are not a JSON object: {preview!r}",
            outcome,
        )


class TransportError(IncompleteStreamError):
    """Reading the response failed (a reset connection, a read timeout, a chunked body
    cut short): the client's exception is chained as ``__cause__``, and `outcome`
    (truncated) holds everything that arrived before it."""


class HTTPStatusError(UniEventError):
    """The response's status is not 2xx: raised before any event.

    - `status`: the HTTP status code; `content_type`: its Content-Type, if any.
    - `error`: the `ProviderError` the body holds (the OpenAI, Anthropic, Gemini and
      MMSP error shapes), or None when the body is none of them.
    - `body`: the body's text, at most `BODY_LIMIT` (64 KiB) of it.
    - `stream_options_rejected`: True when the provider refused `stream_options`
      (retry without it; see `unievent.is_stream_options_rejected`).
    """

    BODY_LIMIT = 64 * 1024

    def __init__(
        self, status: int, error: ProviderError | None, body: str, content_type: str | None, rejected: bool
    ) -> None:
        self.status = status
        self.error = error
        self.body = body
        self.content_type = content_type
        self.stream_options_rejected = rejected
        said = error.message if error is not None else body[:200]
        super().__init__(f"HTTP {status}: {said}" if said else f"HTTP {status}")


def end_error(outcome: Outcome) -> StreamEndError | None:
    """The typed error for an outcome that is not complete (None when it is): what the
    iterators raise, and `Outcome.raise_for_end()`."""
    from unievent._helpers import looks_like_html  # noqa: PLC0415  (helpers import the events)

    protocol = outcome.protocol
    if outcome.end == "complete":
        return None
    failure = outcome.argument_failure
    if failure is not None:
        return ToolCallArgumentParseError(protocol, failure.name, failure.tool_call_id, failure.raw, outcome)
    if outcome.end == "failed":
        message = outcome.error.message if outcome.error else "the provider reported an error"
        return ProviderStreamError(f"{protocol}: the provider reported an error: {message}", outcome)
    if outcome.end == "not_event_stream":
        html = looks_like_html(outcome.body or "")
        what = "an HTML page" if html else "not an event stream"
        body = (outcome.body or "")[:200]
        return NotEventStreamError(f"{protocol}: the response body is {what}: {body!r}", outcome, html)
    if outcome.end == "cancelled":
        return IncompleteStreamError(f"{protocol}: the stream was cancelled", outcome)
    where = f" (state {outcome.end_state})" if outcome.end_state else ""
    return IncompleteStreamError(f"{protocol}: the stream ended before the provider finished it{where}", outcome)


class EncodeError(UniEventError):
    """An event a StreamEncoder cannot write at that point: it breaks the UniEvent
    grammar (`reason`), or the target protocol's machine has no transition for the frame
    it would take (`state`, the frame as `arrived`).  Nothing broken is written."""

    def __init__(self, protocol: str, state: str, arrived: str, reason: str) -> None:
        self.protocol = protocol
        self.state = state
        self.arrived = arrived
        self.reason = reason
        super().__init__(f"{protocol}: cannot write {arrived} in state {state!r}: {reason}")
