"""unievent: LLM provider streaming bytes in, typed MMSP UniEvents and an honest outcome out."""

from importlib import metadata as _metadata

from unievent import _purity  # first: picks compiled or pure modules before any loads
from unievent._api import AnyEvent, Framing, Options, ProtocolName, StreamDecoder
from unievent._asgi import TranscodedResponse
from unievent._decoder import PROTOCOLS
from unievent._encoder import StreamEncoder, atranscode, encode, transcode
from unievent._errors import (
    DecoderStateError,
    DecoderUsageError,
    EncodeError,
    EventJSONError,
    FrameTooLargeError,
    GrammarError,
    HTTPStatusError,
    IncompleteStreamError,
    NotEventStreamError,
    ProviderStreamError,
    StreamEndError,
    ToolCallArgumentParseError,
    TransportError,
    UniEventError,
)
from unievent._events import (
    ContentItem,
    DeltaEvent,
    DeltaItem,
    DoneItem,
    EmbeddingDelta,
    EmbeddingDone,
    Event,
    Fidelity,
    FinishReason,
    ImageUrlDone,
    InlineDataDelta,
    InlineDataDone,
    InlineThinkingDelta,
    InlineThinkingDone,
    Message,
    StopEvent,
    TextDelta,
    TextDone,
    ThinkingDelta,
    ThinkingDone,
    ToolCallDelta,
    ToolCallDone,
    ToolResultDone,
    Usage,
)
from unievent._grammar import ValidationSummary, validate
from unievent._helpers import is_stream_options_rejected, looks_like_html, stop_reason_from_openai
from unievent._iter import aiter_events, iter_events
from unievent._json import from_json, to_json
from unievent._outcome import Anomaly, End, Outcome, ProviderError
from unievent._replay import Replay, ReplayError, ReplayWarning, tool_result
from unievent._side import SideEvent
from unievent._stream import AsyncStream, Stream, astream, stream

#: the installed version of unievent ("0+unknown" when run from a source tree)
try:
    __version__: str = _metadata.version("unievent")
except _metadata.PackageNotFoundError:
    __version__ = "0+unknown"

#: True when the mypyc-compiled modules run; False for the pure-Python ones
#: (no compiled build installed, or UNIEVENT_PURE=1 in the environment).
COMPILED: bool = _purity.compiled()

__all__ = [
    "COMPILED",
    "PROTOCOLS",
    "Anomaly",
    "AnyEvent",
    "AsyncStream",
    "ContentItem",
    "DecoderStateError",
    "DecoderUsageError",
    "DeltaEvent",
    "DeltaItem",
    "DoneItem",
    "EmbeddingDelta",
    "EmbeddingDone",
    "EncodeError",
    "End",
    "Event",
    "EventJSONError",
    "Fidelity",
    "FinishReason",
    "FrameTooLargeError",
    "Framing",
    "GrammarError",
    "HTTPStatusError",
    "ImageUrlDone",
    "IncompleteStreamError",
    "InlineDataDelta",
    "InlineDataDone",
    "InlineThinkingDelta",
    "InlineThinkingDone",
    "Message",
    "NotEventStreamError",
    "Options",
    "Outcome",
    "ProtocolName",
    "ProviderError",
    "ProviderStreamError",
    "Replay",
    "ReplayError",
    "ReplayWarning",
    "SideEvent",
    "StopEvent",
    "Stream",
    "StreamDecoder",
    "StreamEncoder",
    "StreamEndError",
    "TextDelta",
    "TextDone",
    "ThinkingDelta",
    "ThinkingDone",
    "ToolCallArgumentParseError",
    "ToolCallDelta",
    "ToolCallDone",
    "ToolResultDone",
    "TranscodedResponse",
    "TransportError",
    "UniEventError",
    "Usage",
    "ValidationSummary",
    "__version__",
    "aiter_events",
    "astream",
    "atranscode",
    "encode",
    "from_json",
    "is_stream_options_rejected",
    "iter_events",
    "looks_like_html",
    "stop_reason_from_openai",
    "stream",
    "to_json",
    "tool_result",
    "transcode",
    "validate",
]
