# A gateway's response: an upstream body relayed in another protocol, as an ASGI
# application (what Starlette and FastAPI return, and any ASGI server runs), with the
# headers a streaming client expects.  No web framework is a dependency.
from __future__ import annotations

from collections.abc import AsyncIterable, Awaitable, Callable, MutableMapping
from typing import Any

from unievent._encoder import atranscode
from unievent._writers import WRITERS

__all__ = ["TranscodedResponse"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]


class TranscodedResponse:
    """An ASGI response that relays `chunks` (an upstream body in protocol `source`,
    or "auto") as protocol `target`, bytes out as bytes come in:
    ``return unievent.TranscodedResponse(upstream.aiter_bytes(), "auto", "anthropic")``.

    Sent with status 200, `text/event-stream` (Gemini's `framing="json_array"` and
    `openai_embeddings`: `application/json`; `ollama`: `application/x-ndjson`; the
    Bedrock targets: `application/vnd.amazon.eventstream`),
    `cache-control: no-cache` and `x-accel-buffering: no` so that proxies do not hold
    the stream back.  `options`: StreamEncoder's.
    """

    def __init__(self, chunks: AsyncIterable[bytes], source: str, target: str, **options: Any) -> None:
        self.chunks = chunks
        self.source = source
        self.target = target
        self.options = options
        array = options.get("framing") == "json_array"
        # a wire that is no SSE names its own type (NDJSON, one JSON body, AWS event-stream
        # frames), sent as the provider sends it, with no charset
        own: str | None = getattr(WRITERS.get(target), "media_type", None)
        self.media_type = own or ("application/json" if array else "text/event-stream")
        self.charset = own is None
        self.wire_headers: tuple[tuple[bytes, bytes], ...] = getattr(WRITERS.get(target), "response_headers", ())

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        headers = [
            (b"content-type", self.media_type.encode() + (b"; charset=utf-8" if self.charset else b"")),
            (b"cache-control", b"no-cache"),
            (b"x-accel-buffering", b"no"),
            *self.wire_headers,
        ]
        await send({"type": "http.response.start", "status": 200, "headers": headers})
        async for data in atranscode(self.chunks, self.source, self.target, **self.options):
            await send({"type": "http.response.body", "body": data, "more_body": True})
        await send({"type": "http.response.body", "body": b"", "more_body": False})
