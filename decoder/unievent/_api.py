# The names and types a user sees: the protocol names as a Literal, and StreamDecoder
# as type checkers should read it, yielding SideEvents only when side_events=True.
#
# The decoder itself is compiled (mypyc), and mypyc cannot compile an overloaded
# __init__; so type checkers read the declaration below, and the running program gets
# the compiled class.  tests/test_api.py checks that the two have the same parameters.
from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, Literal, NoReturn, TypeAlias, TypedDict, TypeVar, Unpack, overload

from unievent._events import Event
from unievent._outcome import Outcome
from unievent._side import SideEvent

__all__ = ["AnyEvent", "Framing", "Options", "ProtocolName", "StreamDecoder"]

#: what `protocol` may be: a protocol's name (`unievent.PROTOCOLS`), or "auto"
ProtocolName: TypeAlias = Literal[
    "auto",
    "openai_chat",
    "anthropic",
    "openai_responses",
    "gemini",
    "gemini_interactions",
    "mmsp",
    "openai_embeddings",
    "gemini_embeddings",
    "ollama",
    "cohere",
    "bedrock_converse",
    "bedrock_invoke",
]
#: how a body is framed (`framing=`): SSE, one streamed JSON array, one JSON body, JSON
#: lines, or AWS event-stream binary frames
Framing: TypeAlias = Literal["sse", "json_array", "json_body", "ndjson", "aws_eventstream"]
#: what a decoder with side_events=True yields
AnyEvent: TypeAlias = Event | SideEvent

E = TypeVar("E", Event, AnyEvent)


class Options(TypedDict, total=False):
    """StreamDecoder's keyword options but `side_events` (see StreamDecoder)."""

    stream_id: str | None
    clock: Callable[[], int] | None
    strict_arguments: bool
    max_frame: int
    max_retained: int
    choice: int
    framing: Framing | None
    content_type: str | None
    url: str | None


if TYPE_CHECKING:

    class StreamDecoder(Generic[E]):
        """Decode one streamed response: bytes in, UniEvents out, then an Outcome
        (documented where it is implemented, unievent._decoder)."""

        protocol: str
        stream_id: str
        detected_by: str | None

        @overload
        def __init__(
            self: StreamDecoder[Event],
            protocol: ProtocolName,
            *,
            side_events: Literal[False] = False,
            **options: Unpack[Options],
        ) -> None: ...
        @overload
        def __init__(
            self: StreamDecoder[AnyEvent], protocol: ProtocolName, *, side_events: bool, **options: Unpack[Options]
        ) -> None: ...
        def __init__(self, protocol: ProtocolName, *, side_events: bool = False, **options: Any) -> None: ...
        @overload
        def push(self, data: bytes | bytearray | memoryview) -> list[E]: ...
        @overload
        def push(self, data: str) -> NoReturn: ...
        def push(self, data: object) -> list[E]: ...
        def finish(self) -> tuple[list[E], Outcome]: ...
        def abort(self) -> Outcome: ...
        @property
        def fast_frames(self) -> int: ...

else:
    from unievent._decoder import StreamDecoder
