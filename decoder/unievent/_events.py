# The typed UniEvent vocabulary: content items, the two event kinds, usage and the
# assembled message.
#
# Every class is frozen and slotted (attrs).  Wire tags (`type`, `event_type`, `role`)
# are class constants, not instance fields, so building an event costs only its real
# fields.  A delta event has a single `item` field: an event with two items cannot be
# written down.
#
# Decoder-built events go through the `_fast_*` constructors at the bottom, which fill
# the slots directly (no __init__, no per-field frozen check); user-built events go
# through the ordinary keyword constructors.  Both give equal, immutable objects
# (compared by value; items holding dicts or lists are not hashable).
from __future__ import annotations

from typing import Any, ClassVar, Literal, Protocol, TypeAlias

import attrs

__all__ = [
    "FINISH_REASONS",
    "ContentItem",
    "DeltaEvent",
    "DeltaItem",
    "DoneItem",
    "EmbeddingDelta",
    "EmbeddingDone",
    "Event",
    "Fidelity",
    "FinishReason",
    "ImageUrlDone",
    "InlineDataDelta",
    "InlineDataDone",
    "InlineThinkingDelta",
    "InlineThinkingDone",
    "Message",
    "StopEvent",
    "TextDelta",
    "TextDone",
    "ThinkingDelta",
    "ThinkingDone",
    "ToolCallDelta",
    "ToolCallDone",
    "ToolResultDone",
    "Usage",
]

#: Opaque provider data an item must carry back on replay (signatures, phase,
#: encrypted reasoning).  Never interpreted, never modified.
Fidelity: TypeAlias = dict[str, Any]

#: MMSP's normalized finish reasons.
FinishReason: TypeAlias = Literal["stop", "length", "tool_call", "unknown"]
FINISH_REASONS: tuple[str, ...] = ("stop", "length", "tool_call", "unknown")


# --- content items -------------------------------------------------------------------


@attrs.frozen
class TextDelta:
    """A fragment of visible text."""

    type: ClassVar[str] = "text.delta"
    kind: ClassVar[str] = "text"
    text: str
    fidelity: Fidelity | None = None


@attrs.frozen
class TextDone:
    """A complete text item: the concatenation of its deltas."""

    type: ClassVar[str] = "text.done"
    kind: ClassVar[str] = "text"
    text: str
    fidelity: Fidelity | None = None


@attrs.frozen
class ThinkingDelta:
    """A fragment of the model's reasoning text."""

    type: ClassVar[str] = "thinking.delta"
    kind: ClassVar[str] = "thinking"
    thinking: str
    fidelity: Fidelity | None = None


@attrs.frozen
class ThinkingDone:
    """A complete reasoning item."""

    type: ClassVar[str] = "thinking.done"
    kind: ClassVar[str] = "thinking"
    thinking: str
    fidelity: Fidelity | None = None


@attrs.frozen
class ToolCallDelta:
    """A fragment of a client tool call.

    The first delta of a call carries the non-empty `name` and `tool_call_id`; later
    deltas carry empty strings there.  `arguments` is a fragment of JSON text.
    """

    type: ClassVar[str] = "tool_call.delta"
    kind: ClassVar[str] = "tool_call"
    name: str
    arguments: str
    tool_call_id: str
    fidelity: Fidelity | None = None


@attrs.frozen
class ToolCallDone:
    """A complete tool call; `arguments` is the parsed JSON object."""

    type: ClassVar[str] = "tool_call.done"
    kind: ClassVar[str] = "tool_call"
    name: str
    arguments: dict[str, Any]
    tool_call_id: str
    fidelity: Fidelity | None = None


@attrs.frozen
class InlineDataDelta:
    """A chunk of binary output (image, audio)."""

    type: ClassVar[str] = "inline_data.delta"
    kind: ClassVar[str] = "inline_data"
    data: bytes
    mime_type: str
    fidelity: Fidelity | None = None


@attrs.frozen
class InlineDataDone:
    """Complete binary output: the concatenation of its chunks."""

    type: ClassVar[str] = "inline_data.done"
    kind: ClassVar[str] = "inline_data"
    data: bytes
    mime_type: str
    fidelity: Fidelity | None = None


@attrs.frozen
class InlineThinkingDelta:
    """A chunk of binary reasoning output (a thought image)."""

    type: ClassVar[str] = "inline_thinking.delta"
    kind: ClassVar[str] = "inline_thinking"
    data: bytes
    mime_type: str
    fidelity: Fidelity | None = None


@attrs.frozen
class InlineThinkingDone:
    """Complete binary reasoning output."""

    type: ClassVar[str] = "inline_thinking.done"
    kind: ClassVar[str] = "inline_thinking"
    data: bytes
    mime_type: str
    fidelity: Fidelity | None = None


@attrs.frozen
class EmbeddingDelta:
    """Part of an embedding vector."""

    type: ClassVar[str] = "embedding.delta"
    kind: ClassVar[str] = "embedding"
    embedding: list[float]


@attrs.frozen
class EmbeddingDone:
    """A complete embedding vector (its deltas flattened)."""

    type: ClassVar[str] = "embedding.done"
    kind: ClassVar[str] = "embedding"
    embedding: list[float]


@attrs.frozen
class ImageUrlDone:
    """User-side item: an image given by URL.  Never streamed by a model."""

    type: ClassVar[str] = "image_url.done"
    kind: ClassVar[str] = "image_url"
    image_url: str
    fidelity: Fidelity | None = None


@attrs.frozen
class ToolResultDone:
    """User-side item: the result of a tool call.  Never streamed by a model."""

    type: ClassVar[str] = "tool_result.done"
    kind: ClassVar[str] = "tool_result"
    text: str
    tool_call_id: str
    images: list[str] | None = None
    fidelity: Fidelity | None = None


DeltaItem: TypeAlias = (
    TextDelta | ThinkingDelta | ToolCallDelta | InlineDataDelta | InlineThinkingDelta | EmbeddingDelta
)
DoneItem: TypeAlias = (
    TextDone
    | ThinkingDone
    | ToolCallDone
    | InlineDataDone
    | InlineThinkingDone
    | EmbeddingDone
    | ImageUrlDone
    | ToolResultDone
)
ContentItem: TypeAlias = DeltaItem | DoneItem


# --- usage, events, message ----------------------------------------------------------


@attrs.frozen
class Usage:
    """Token counts in MMSP's meaning; each is an int or None when not reported.

    `prompt_tokens` excludes cache reads (they are `cached_tokens`); `response_tokens`
    excludes reasoning (it is `thoughts_tokens`) where the provider breaks it out.
    """

    cached_tokens: int | None = None
    prompt_tokens: int | None = None
    thoughts_tokens: int | None = None
    response_tokens: int | None = None


@attrs.frozen
class DeltaEvent:
    """One content item (a `K.delta` or the closing `K.done` of a group)."""

    role: ClassVar[str] = "assistant"
    event_type: ClassVar[str] = "delta"
    item: ContentItem
    created_at: int


@attrs.frozen
class StopEvent:
    """The last event of a complete stream: usage and the normalized finish reason."""

    role: ClassVar[str] = "assistant"
    event_type: ClassVar[str] = "stop"
    usage: Usage
    finish_reason: FinishReason
    created_at: int


Event: TypeAlias = DeltaEvent | StopEvent


@attrs.frozen
class Message:
    """An assembled assistant message: the done items in stream order, plus usage and
    finish reason (None when the stream did not complete)."""

    role: str
    items: tuple[DoneItem, ...]
    usage: Usage | None
    finish_reason: FinishReason | None
    created_at: int | None

    def to_request(self, protocol: str, *, source: str | None = None, text_only: bool = False) -> Any:
        """This message as `protocol`'s assistant turn, ready to append to the next
        request (``openai_responses``: a list of input items; ``gemini_interactions``: a
        list of steps), every piece of fidelity where that provider wants it back (see
        README "Replay").

        `source`: the protocol the message was decoded from (`Outcome.protocol`);
        fidelity of another provider is left out.  What is left out is warned about
        (`unievent.ReplayWarning`); `replay()` returns it as a list instead.  A message
        of a stream that did not complete raises ReplayError (its tool calls were never
        offered) unless `text_only`."""
        return REQUEST_WRITERS.to_request(self, protocol, source=source, text_only=text_only)

    def replay(self, protocol: str, *, source: str | None = None, text_only: bool = False) -> Any:
        """`to_request` as a `unievent.Replay`: the JSON and what was left out."""
        return REQUEST_WRITERS.replay(self, protocol, source=source, text_only=text_only)


class RequestWriter(Protocol):
    """A function that writes a message as a protocol's request turn."""

    def __call__(self, message: Message, protocol: str, *, source: str | None, text_only: bool) -> Any: ...


def _not_bound(message: Message, protocol: str, *, source: str | None, text_only: bool) -> Any:
    raise RuntimeError("unievent._replay binds the request writers when the package is imported")


@attrs.define
class RequestWriters:
    """Where `Message.to_request` and `Message.replay` find their bodies.

    unievent._replay binds them when the package is imported, so the dependency runs one
    way: the message type knows no request format, as h11's events know no writer."""

    to_request: RequestWriter = _not_bound
    replay: RequestWriter = _not_bound


REQUEST_WRITERS = RequestWriters()


#: every content item class, deltas and dones (the JSON mapping reads items by these)
ITEM_CLASSES: tuple[type[Any], ...] = (
    TextDelta,
    TextDone,
    ThinkingDelta,
    ThinkingDone,
    ToolCallDelta,
    ToolCallDone,
    InlineDataDelta,
    InlineDataDone,
    InlineThinkingDelta,
    InlineThinkingDone,
    EmbeddingDelta,
    EmbeddingDone,
    ImageUrlDone,
    ToolResultDone,
)
#: the classes whose decoder-built instances the compiled build takes off the cyclic
#: garbage collector's lists when they refer to atomic values only (unievent._gcfree):
#: they cannot be part of a reference cycle, so the collector has nothing to find there
#: (an item holding a list, such as an embedding's vector, stays tracked)
ATOMIC_KINDS: tuple[type, ...] = (DeltaEvent, *ITEM_CLASSES)
#: the fewest events a push returns (or a run builds) for the compiled build to untrack
#: them: a streaming consumer mostly drops a few events before any collection meets
#: them, and untracking costs more than the collector would spend on them
UNTRACK_FROM = 64


# --- cheap constructors for decoder-built objects ---------------------------------------
# Setting slots through their member descriptors skips attrs' __init__ and the frozen
# __setattr__ guard; the result is an ordinary frozen instance (assignment still raises).

_new = object.__new__


def slot_setter(cls: type, field: str) -> Any:
    """The C-level setter of one slot of an attrs class (decoder hot path only)."""
    return cls.__dict__[field].__set__


_set_event_item = slot_setter(DeltaEvent, "item")
_set_event_created = slot_setter(DeltaEvent, "created_at")


def fast_delta_event(item: ContentItem, created_at: int) -> DeltaEvent:
    """Build a DeltaEvent without running __init__ (decoder hot path)."""
    event: DeltaEvent = _new(DeltaEvent)
    _set_event_item(event, item)
    _set_event_created(event, created_at)
    return event
