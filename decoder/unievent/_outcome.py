# How a stream ended, and everything that arrived.
from __future__ import annotations

from typing import Any, Literal, TypeAlias

import attrs

from unievent._events import FinishReason, Message, Usage
from unievent._side import SideEvent

__all__ = ["End", "Outcome", "ProviderError"]

#: complete: the provider said it finished.  truncated: the bytes stopped first.
#: cancelled: the caller aborted.  failed: the provider reported an error (or, in
#: strict mode, a tool call's arguments were not JSON).  not_event_stream: the body
#: was not SSE at all (an HTML page, a plain JSON error).
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
class Outcome:
    """The honest end of a stream.

    - `end`: see `End`.
    - `message`: the done items (text and thinking on every end; tool calls only when
      complete), with usage and finish reason when complete.
    - `usage`: the merged usage (null fields where the provider sent none).
    - `finish_reason`: MMSP's normalized reason when complete, else None;
      `native_finish_reason`: the provider's own string, passed through.
    - `model`: the model the provider named.  `skipped_frames`: frames that did not
      parse.  `error`: the provider's error when failed.  `body`: the non-SSE body
      (at most about 1 MiB) when not_event_stream.
    - `side_events`: provider-side tool activity, in order (never tool calls).
    - `anomalies`: oddities that did not end the stream (sequence gaps, fragments
      for a tool call that had closed, unnamed tool calls), in words.
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
    anomalies: tuple[str, ...] = ()
    extras: dict[str, Any] = attrs.field(factory=dict)
