"""A local HTTP/1.1 server that replays provider streams, for driving real HTTP clients.

Standard library only: a ThreadingHTTPServer on 127.0.0.1 (a port the OS picks) whose
handler answers any method.  Bodies are written in irregular pieces (1, 7, 64, 300
bytes, cycling) with a small pause between them, as hand-written chunked transfer
encoding, so every client sees a body split across many reads.

The path says what to send: an optional first segment names a variant, the rest names
the API (``.../chat/completions``: OpenAI Chat Completions, ``.../messages``:
Anthropic Messages), so an SDK given ``base_url=<server>/drop/v1`` gets the dropped
variant of its own API.

- ``/v1/chat/completions``, ``/v1/messages``: a complete stream.
- ``/drop/...``: the stream cut in the middle of the text (inside a frame), then the
  connection closed without the terminating zero-length chunk.
- ``/error/...``: one text delta, then the provider's in-stream error.
- ``/slow/...``: the complete stream, 50 ms between pieces (to cancel mid-stream).
- ``/401``, ``/400-stream-options``: JSON error bodies with those statuses.
- ``/html``: status 200, an HTML 502 page.  ``/json-error``: status 200, one JSON error.
- ``/corpus/...?file=<path>``: a recorded stream from CORPUS (when it exists), with its
  recorded content type.
"""

from __future__ import annotations

import contextlib
import itertools
import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

__all__ = [
    "CHAT_BODY",
    "CHAT_DROPPED",
    "CHAT_ERROR_BODY",
    "CORPUS",
    "HTML_PAGE",
    "JSON_ERROR_BODY",
    "MESSAGES_BODY",
    "MESSAGES_DROPPED",
    "MESSAGES_ERROR_BODY",
    "PIECE_SIZES",
    "STATUS_400_STREAM_OPTIONS_BODY",
    "STATUS_401_BODY",
    "pieces",
    "serve",
]

#: the recorded streams some tests replay (skipped when the folder is missing)
CORPUS = Path("/work/shared/corpus")

#: the sizes of the pieces a body is written in, cycling
PIECE_SIZES = (1, 7, 64, 300)
PAUSE = 0.001  # seconds between pieces
SLOW_PAUSE = 0.05
SOCKET_TIMEOUT = 5.0  # a handler waiting on a client that went away gives up after this


def _data(obj: Any) -> bytes:
    return b"data: " + json.dumps(obj, separators=(",", ":")).encode() + b"\n\n"


def _event(name: str, obj: Any) -> bytes:
    return f"event: {name}\n".encode() + _data(obj)


# --- OpenAI Chat Completions ------------------------------------------------------------

CHAT_MODEL = "gpt-4o-mini-2024-07-18"


def _chunk(delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
    return {
        "id": "chatcmpl-replay",
        "object": "chat.completion.chunk",
        "created": 1700000000,
        "model": CHAT_MODEL,
        "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
    }


def _tool_delta(arguments: str, first: bool = False) -> dict[str, Any]:
    call: dict[str, Any] = {"index": 0, "function": {"arguments": arguments}}
    if first:
        call = {
            "index": 0,
            "id": "call_weather_1",
            "type": "function",
            "function": {"name": "get_weather", "arguments": ""},
        }
    return {"tool_calls": [call]}


_CHAT_HEAD = [
    _data(_chunk({"role": "assistant", "content": ""})),
    _data(_chunk({"content": "Hello"})),
    _data(_chunk({"content": ","})),
]
_CHAT_REST = [
    _data(_chunk({"content": " world"})),
    _data(_chunk(_tool_delta("", first=True))),
    _data(_chunk(_tool_delta('{"ci'))),
    _data(_chunk(_tool_delta('ty": "Pa'))),
    _data(_chunk(_tool_delta('ris"}'))),
    _data(_chunk({}, "tool_calls")),
    _data(
        {
            "id": "chatcmpl-replay",
            "object": "chat.completion.chunk",
            "created": 1700000000,
            "model": CHAT_MODEL,
            "choices": [],
            "usage": {"prompt_tokens": 21, "completion_tokens": 17, "total_tokens": 38},
        }
    ),
    b"data: [DONE]\n\n",
]

#: a complete stream: "Hello, world" in three deltas, then get_weather({"city": "Paris"})
CHAT_BODY = b"".join(_CHAT_HEAD + _CHAT_REST)
#: what /drop/ sends of it: "Hello," then half of the " world" frame
CHAT_DROPPED = b"".join(_CHAT_HEAD) + _CHAT_REST[0][: len(_CHAT_REST[0]) // 2]
#: one text delta, then an error frame
CHAT_ERROR_BODY = b"".join(_CHAT_HEAD[:2]) + _data({"error": {"message": "overloaded", "type": "server_error"}})


# --- Anthropic Messages -------------------------------------------------------------------

MESSAGES_MODEL = "claude-sonnet-4-5-20250929"

_MESSAGES_HEAD = [
    _event(
        "message_start",
        {
            "type": "message_start",
            "message": {
                "id": "msg_replay",
                "type": "message",
                "role": "assistant",
                "model": MESSAGES_MODEL,
                "content": [],
                "stop_reason": None,
                "stop_sequence": None,
                "usage": {"input_tokens": 25, "output_tokens": 1},
            },
        },
    ),
    _event(
        "content_block_start",
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    ),
    _event("ping", {"type": "ping"}),
    _event(
        "content_block_delta",
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hello"}},
    ),
    _event(
        "content_block_delta",
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": ","}},
    ),
]


def _json_delta(partial: str) -> bytes:
    return _event(
        "content_block_delta",
        {"type": "content_block_delta", "index": 1, "delta": {"type": "input_json_delta", "partial_json": partial}},
    )


_MESSAGES_REST = [
    _event(
        "content_block_delta",
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": " world"}},
    ),
    _event("content_block_stop", {"type": "content_block_stop", "index": 0}),
    _event(
        "content_block_start",
        {
            "type": "content_block_start",
            "index": 1,
            "content_block": {"type": "tool_use", "id": "toolu_weather_1", "name": "get_weather", "input": {}},
        },
    ),
    _json_delta(""),
    _json_delta('{"ci'),
    _json_delta('ty": "Pa'),
    _json_delta('ris"}'),
    _event("content_block_stop", {"type": "content_block_stop", "index": 1}),
    _event(
        "message_delta",
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {"output_tokens": 30},
        },
    ),
    _event("message_stop", {"type": "message_stop"}),
]

#: a complete stream: "Hello, world" in three deltas, then get_weather({"city": "Paris"})
MESSAGES_BODY = b"".join(_MESSAGES_HEAD + _MESSAGES_REST)
#: what /drop/ sends of it: "Hello," then half of the " world" frame
MESSAGES_DROPPED = b"".join(_MESSAGES_HEAD) + _MESSAGES_REST[0][: len(_MESSAGES_REST[0]) // 2]
#: one text delta, then Anthropic's error event
MESSAGES_ERROR_BODY = b"".join(_MESSAGES_HEAD[:4]) + _event(
    "error", {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}
)


# --- bodies that are no event stream ------------------------------------------------------

STATUS_401_BODY = json.dumps(
    {
        "error": {
            "message": "Incorrect API key provided",
            "type": "invalid_request_error",
            "code": "invalid_api_key",
        }
    }
).encode()
STATUS_400_STREAM_OPTIONS_BODY = json.dumps(
    {"error": {"message": "Unrecognized request argument supplied: stream_options", "type": "invalid_request_error"}}
).encode()
JSON_ERROR_BODY = json.dumps({"error": {"message": "quota exceeded", "type": "insufficient_quota"}}).encode()
HTML_PAGE = (
    b"<!DOCTYPE html>\n<html>\n<head><title>502 Bad Gateway</title></head>\n"
    b"<body>\n<center><h1>502 Bad Gateway</h1></center>\n<hr><center>nginx</center>\n</body>\n</html>\n"
)


def pieces(body: bytes) -> Iterator[bytes]:
    """`body` in pieces of PIECE_SIZES, cycling."""
    sizes = itertools.cycle(PIECE_SIZES)
    at = 0
    while at < len(body):
        size = next(sizes)
        yield body[at : at + size]
        at += size


# --- the server -----------------------------------------------------------------------------

_VARIANTS = frozenset(("drop", "error", "slow", "html", "json-error", "401", "400-stream-options", "corpus"))
_SSE = "text/event-stream; charset=utf-8"


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    timeout = SOCKET_TIMEOUT

    def setup(self) -> None:
        super().setup()
        # small writes go out at once (no Nagle wait for the client's delayed ACK)
        self.connection.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:  # quiet
        pass

    def do_GET(self) -> None:
        self._answer()

    def do_POST(self) -> None:
        self._answer()

    def do_PUT(self) -> None:
        self._answer()

    def _answer(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        if length:
            self.rfile.read(length)
        url = urlsplit(self.path)
        first = url.path.lstrip("/").split("/", 1)[0]
        variant = first if first in _VARIANTS else "complete"
        api = "messages" if url.path.endswith("/messages") else "chat"
        try:
            self._send(variant, api, parse_qs(url.query))
        except (BrokenPipeError, ConnectionResetError, TimeoutError):
            self.close_connection = True  # the client went away (a cancelled stream)

    def _send(self, variant: str, api: str, query: dict[str, list[str]]) -> None:
        chat = api == "chat"
        if variant == "401":
            self._whole(401, "application/json", STATUS_401_BODY)
        elif variant == "400-stream-options":
            self._whole(400, "application/json", STATUS_400_STREAM_OPTIONS_BODY)
        elif variant == "html":
            self._whole(200, "text/html; charset=utf-8", HTML_PAGE)
        elif variant == "json-error":
            self._whole(200, "application/json", JSON_ERROR_BODY)
        elif variant == "drop":
            self._chunked(_SSE, CHAT_DROPPED if chat else MESSAGES_DROPPED, PAUSE, drop=True)
        elif variant == "error":
            self._chunked(_SSE, CHAT_ERROR_BODY if chat else MESSAGES_ERROR_BODY, PAUSE)
        elif variant == "slow":
            self._chunked(_SSE, CHAT_BODY if chat else MESSAGES_BODY, SLOW_PAUSE)
        elif variant == "corpus":
            self._corpus(query.get("file", [""])[0])
        else:
            self._chunked(_SSE, CHAT_BODY if chat else MESSAGES_BODY, PAUSE)

    def _corpus(self, name: str) -> None:
        path = (CORPUS / name).resolve()
        if not name or CORPUS.resolve() not in path.parents or not path.is_file():
            self._whole(404, "text/plain", b"no such recording")
            return
        content_type = _SSE
        for entry in json.loads((CORPUS / "manifest.json").read_text()):
            if entry["file"] == name:
                content_type = entry.get("recorded_content_type") or _SSE
        self._chunked(content_type, path.read_bytes(), PAUSE)

    def _whole(self, status: int, content_type: str, body: bytes) -> None:
        """A body with a Content-Length, written in pieces."""
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        for piece in pieces(body):
            self.wfile.write(piece)
            time.sleep(PAUSE)

    def _chunked(self, content_type: str, body: bytes, pause: float, drop: bool = False) -> None:
        """A chunked body, one chunk per piece; `drop`: the connection is closed after
        the last piece instead of the terminating zero-length chunk."""
        self.send_response(200)
        self.send_header("Content-Type", content_type)
        self.send_header("Transfer-Encoding", "chunked")
        self.send_header("Cache-Control", "no-cache")
        self.end_headers()
        for piece in pieces(body):
            self.wfile.write(b"%x\r\n%s\r\n" % (len(piece), piece))
            time.sleep(pause)
        if drop:
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        self.wfile.write(b"0\r\n\r\n")


class _Server(ThreadingHTTPServer):
    daemon_threads = True  # a handler still writing to a client that left never blocks shutdown
    block_on_close = False


@contextlib.contextmanager
def serve() -> Iterator[str]:
    """Run the server on a free port of 127.0.0.1 in a thread; yield its base URL
    (``http://127.0.0.1:<port>``); stop it on exit."""
    server = _Server(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=SOCKET_TIMEOUT)
