# Which protocol a body speaks when the caller does not say (`protocol="auto"`), and
# what the frames of an explicit protocol look like when they never match it.
#
# Precedence: the URL's path (it names the API), then the content type (it names the
# framing only), then the frames themselves, the first that any rule below recognizes.
# Each rule is a fact of one wire that no other wire shares; a frame no rule knows
# (an error, a gateway's keep-alive object) decides nothing.
from __future__ import annotations

import base64
from typing import Any, Final
from urllib.parse import urlsplit

import orjson

from unievent._events import FinishReason
from unievent._outcome import End

__all__ = [
    "FRAMING_OF_CONTENT_TYPE",
    "URL_MARKERS",
    "Undetected",
    "from_content_type",
    "from_frame",
    "from_payload",
    "from_url",
]

#: the path fragment of each API, tried in this order (the first found wins)
URL_MARKERS: Final[tuple[tuple[str, str], ...]] = (
    (":streamGenerateContent", "gemini"),
    (":generateContent", "gemini"),
    (":batchEmbedContents", "gemini_embeddings"),
    (":embedContent", "gemini_embeddings"),
    ("/chat/completions", "openai_chat"),
    ("/api/chat", "ollama"),
    ("/api/generate", "ollama"),
    ("/v2/chat", "cohere"),
    ("/converse-stream", "bedrock_converse"),
    ("/invoke-with-response-stream", "bedrock_invoke"),
    ("/interactions", "gemini_interactions"),
    ("/v1/stream", "mmsp"),
    ("/messages", "anthropic"),
    ("/responses", "openai_responses"),
    ("/embeddings", "openai_embeddings"),
)

#: the framing a content type names (`json`: an array or one value, by the first byte)
FRAMING_OF_CONTENT_TYPE: Final[dict[str, str]] = {
    "text/event-stream": "sse",
    "application/json": "json",
    "application/x-ndjson": "ndjson",
    "application/vnd.amazon.eventstream": "aws_eventstream",
}

#: `type` values of Anthropic's frames (its `error` and Responses' `error` are alike:
#: an error decides nothing)
_ANTHROPIC_TYPES: Final = frozenset(
    (
        "message_start",
        "content_block_start",
        "content_block_delta",
        "content_block_stop",
        "message_delta",
        "message_stop",
        "ping",
    )
)
_INTERACTIONS_PREFIXES: Final = ("interaction.", "step.")
#: event names (`:event-type`) of ConverseStream's frames but `metadata`
_CONVERSE_EVENTS: Final = frozenset(
    ("messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop")
)
#: `type` values of Cohere v2's frames (kebab-case, unlike any other wire's)
_COHERE_TYPES: Final = frozenset(
    (
        "message-start",
        "content-start",
        "content-delta",
        "content-end",
        "tool-plan-delta",
        "tool-call-start",
        "tool-call-delta",
        "tool-call-end",
        "citation-start",
        "citation-end",
        "message-end",
    )
)


def from_url(url: str) -> tuple[str | None, str]:
    """The protocol a request URL's path names, and why."""
    path = urlsplit(url).path
    for marker, protocol in URL_MARKERS:
        if marker in path:
            return protocol, f"the URL path has {marker}"
    return None, ""


def from_content_type(content_type: str) -> str | None:
    """The framing a Content-Type header names (parameters such as charset ignored)."""
    return FRAMING_OF_CONTENT_TYPE.get(content_type.split(";", 1)[0].strip().lower())


def from_frame(event: str | None, obj: dict[str, Any]) -> tuple[str | None, str]:
    """The protocol one frame belongs to (its JSON object and its SSE event name), and
    why; None when no rule knows it."""
    event_type = obj.get("event_type")
    if type(event_type) is str:
        if event_type in ("delta", "stop") and "content_items" in obj:
            return "mmsp", f"a UniEvent (event_type {event_type!r} with content_items)"
        if event_type.startswith(_INTERACTIONS_PREFIXES):
            return "gemini_interactions", f"event_type {event_type!r}"
    kind = obj.get("type")
    if type(kind) is str:
        if kind.startswith("response."):
            return "openai_responses", f"type {kind!r}"
        if kind in _ANTHROPIC_TYPES:
            return "anthropic", f"type {kind!r}"
        if kind in _COHERE_TYPES:
            return "cohere", f"type {kind!r}"
    if obj.get("object") in ("chat.completion.chunk", "chat.completion") or type(obj.get("choices")) is list:
        return "openai_chat", "object chat.completion.chunk" if "object" in obj else "a choices list"
    if type(obj.get("candidates")) is list or type(obj.get("promptFeedback")) is dict:
        return "gemini", "a candidates list" if "candidates" in obj else "promptFeedback"
    data = obj.get("data")
    first = data[0] if type(data) is list and data else None
    if type(data) is list and (obj.get("object") == "list" or (type(first) is dict and "embedding" in first)):
        return "openai_embeddings", "a data list of embeddings"
    if type(obj.get("embedding")) is dict or type(obj.get("embeddings")) is list:
        return "gemini_embeddings", "embedding values"
    if type(obj.get("done")) is bool and type(obj.get("created_at")) is str and "model" in obj:
        if type(obj.get("message")) is dict:
            return "ollama", "an Ollama chat line (model, created_at, message, done)"
        if type(obj.get("response")) is str:
            return "ollama", "an Ollama generate line (model, created_at, response, done)"
    if event is not None:
        if event.startswith("response."):
            return "openai_responses", f"the event name {event!r}"
        if event in _ANTHROPIC_TYPES:
            return "anthropic", f"the event name {event!r}"
        if event.startswith(_INTERACTIONS_PREFIXES):
            return "gemini_interactions", f"the event name {event!r}"
        if event in _COHERE_TYPES:
            return "cohere", f"the event name {event!r}"
        if event in _CONVERSE_EVENTS:
            return "bedrock_converse", f"the event type {event!r}"
        if event == "chunk" and _holds_an_event(obj.get("bytes")):
            return "bedrock_invoke", "a chunk event whose base64 bytes hold a JSON event"
    return None, ""


def _holds_an_event(data: object) -> bool:
    """Whether a chunk's `bytes` are base64 of a JSON object, as InvokeModel's are (a
    Bedrock agent's chunks hold the answer's plain text: another protocol)."""
    if type(data) is not str:
        return False
    try:
        return type(orjson.loads(base64.b64decode(data, validate=True))) is dict
    except (ValueError, orjson.JSONDecodeError):  # binascii.Error is a ValueError
        return False


def from_payload(event: str | None, payload: bytes) -> tuple[str | None, str]:
    """`from_frame` of a frame's bytes, or of the first object of a JSON array (None
    for bytes that are neither)."""
    try:
        obj = orjson.loads(payload)
    except orjson.JSONDecodeError:
        return None, ""
    if type(obj) is list and obj and type(obj[0]) is dict:  # a JSON array of frames
        obj = obj[0]
    if type(obj) is not dict:
        return None, ""
    return from_frame(event, obj)


class Undetected:
    """The handler of an `auto` decoder until a frame names the protocol: it sees no
    frame (they are held), and a body that ends this way named none."""

    stopped = False

    def frame(self, event: str | None, obj: dict[str, Any]) -> bool:
        return False

    def __init__(self) -> None:
        self.done = False

    def done_sentinel(self) -> bool:
        self.done = True  # `[DONE]` before any frame of content: as every protocol reads it
        return True

    def end(self) -> End:
        return "complete" if self.done else "truncated"

    def state_name(self) -> str:
        return "choosing the protocol"

    def let_go(self) -> None:
        """Nothing of it refers back to the decoder."""

    def at_end(self) -> None:
        pass

    def before_stop(self) -> None:
        pass

    def closes_open_items(self, end: End) -> bool:
        return True

    def finish_reason(self) -> FinishReason:
        return "unknown"
