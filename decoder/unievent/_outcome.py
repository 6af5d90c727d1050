# How a stream ended, and everything that arrived.
from __future__ import annotations

from typing import Any, Literal, TypeAlias

import attrs

from unievent._events import FinishReason, Message, Usage
from unievent._side import SideEvent

__all__ = ["Anomalies", "Anomaly", "End", "Outcome", "ProviderError"]

#: complete: the provider said it finished.  truncated: the bytes stopped first.
#: cancelled: the caller aborted.  failed: the provider reported an error (or, in
#: strict mode, a tool call's arguments were not JSON; a body that is one JSON error).
#: not_event_stream: the body was no event stream at all (an HTML page).
End: TypeAlias = Literal["complete", "truncated", "cancelled", "failed", "not_event_stream"]


@attrs.frozen
class ProviderError:
    """An error reported inside the stream: message, type and code as the provider
    gave them, and the raw error object."""

    message: str
    type: str | None = None
    code: str | int | None = None
    raw: Any = None


@attrs.frozen
class Anomaly:
    """One kind of oddity that did not end the stream, aggregated.

    `kind` is a stable name (``"sequence_gap"``, ``"unknown_frame"``,
    ``"implied_block_start"``, ...), `count` how many times it happened and
    `examples` the first few occurrences in words (at most three, each
    at most 200 characters).  What a decoder keeps about oddities therefore grows with
    the number of kinds, never with the number of frames.
    """

    kind: str
    count: int
    examples: tuple[str, ...] = ()

    def __str__(self) -> str:
        shown = "; ".join(self.examples)
        return f"{self.kind} x{self.count}" + (f": {shown}" if shown else "")


class Anomalies:
    """Collects anomalies by kind: a count and the first few examples of each."""

    EXAMPLES = 3
    __slots__ = ("_counts", "_examples")

    def __init__(self) -> None:
        self._counts: dict[str, int] = {}
        self._examples: dict[str, list[str]] = {}

    def note(self, kind: str, example: str = "", times: int = 1) -> None:
        """Count `kind` (`times` over); keep `example` while the kind has fewer than
        EXAMPLES."""
        count = self._counts.get(kind, 0)
        self._counts[kind] = count + times
        if count < self.EXAMPLES and example:
            self._examples.setdefault(kind, []).append(example[:200])

    def count(self, kind: str) -> int:
        return self._counts.get(kind, 0)

    def __bool__(self) -> bool:
        return bool(self._counts)

    def freeze(self) -> tuple[Anomaly, ...]:
        """The anomalies so far, in the order their kinds first occurred."""
        return tuple(Anomaly(k, n, tuple(self._examples.get(k, ()))) for k, n in self._counts.items())


@attrs.frozen
class Outcome:
    """The honest end of a stream.

    - `end`: see `End`.
    - `message`: the done items (text and thinking on every end; tool calls only when
      complete), with usage and finish reason when complete.
    - `usage`: the merged usage (null fields where the provider sent none).
    - `finish_reason`: MMSP's normalized reason when complete, else None;
      `native_finish_reason`: the provider's own string, passed through.
    - `model`: the model the provider named.  `skipped_frames`: frames that did not
      parse.  `error`: the provider's error when failed.  `body`: the body that was
      no event stream (at most about 1 MiB), when not_event_stream or failed on a
      JSON error body.
    - `response_id`: the provider's id of the response, to find it in the provider's
      logs (Chat's chunk `id`, Anthropic's `message.id`, Responses' `response.id`,
      Gemini's `responseId`, the interaction's `id`, Cohere's `id`; in Bedrock's
      InvokeModel stream the inner events' own, e.g. Claude's `message.id`): the
      first non-empty string the stream named; None where the wire has none
      (Ollama, Bedrock ConverseStream, MMSP).
    - `side_events`: provider-side tool activity, in order (never tool calls).
    - `anomalies`: oddities that did not end the stream (sequence gaps, recovered
      lifecycle frames, fragments for a tool call that had closed), one `Anomaly` per
      kind with its count and first examples.
    - `extras`: protocol extras worth keeping (see each protocol).
    - `protocol`: the protocol that decoded the stream (``"auto"`` when none was found).
    - `detected_by`: with ``protocol="auto"``, why that protocol was chosen (the URL
      path, or the frame that named it); None when the caller named it.
    - `end_state`: the protocol's state when the stream ended (e.g. where a truncated
      stream stopped).
    """

    end: End
    message: Message
    usage: Usage
    finish_reason: FinishReason | None
    native_finish_reason: str | None
    model: str | None
    skipped_frames: int
    error: ProviderError | None = None
    body: str | None = None
    side_events: tuple[SideEvent, ...] = ()
    anomalies: tuple[Anomaly, ...] = ()
    extras: dict[str, Any] = attrs.field(factory=dict)
    protocol: str = ""
    detected_by: str | None = None
    end_state: str | None = None
    response_id: str | None = None
    #: the tool call whose arguments were not JSON (strict mode), for the typed error
    argument_failure: Any = attrs.field(default=None, eq=False, repr=False)

    def raise_for_end(self) -> None:
        """Raise the typed error the iterators raise for this end (nothing when
        complete): IncompleteStreamError (truncated, cancelled), ProviderStreamError
        (failed), NotEventStreamError, ToolCallArgumentParseError."""
        from unievent._errors import end_error  # noqa: PLC0415  (the errors carry outcomes)

        error = end_error(self)
        if error is not None:
            raise error

    def anomaly(self, kind: str) -> Anomaly | None:
        """The anomaly of that kind, or None when it did not occur."""
        for found in self.anomalies:
            if found.kind == kind:
                return found
        return None
