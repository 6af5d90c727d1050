# Ollama's native API: `/api/chat` and `/api/generate` lines (NDJSON framing).
#
# Frame lifecycle: the generated machine from machines/ollama.py.  This module owns
# what a line means.  In each line, in this order:
#
# - thinking: `message.thinking` (chat) or `thinking` (generate);
# - text: `message.content` (chat) or `response` (generate);
# - `message.tool_calls` (chat; `tool_calls` on a generate line): each call arrives
#   whole, `function.name` and `function.arguments` (a JSON object, written out as
#   its compact JSON text; a string is taken as the arguments text as it is); one
#   tool_call.delta and its done per call.  A call without an `id` (servers before
#   0.12) gets `call_<stream_id>_<k+1>` for the k-th call from 0 (block 0 being the
#   text, as for OpenAI and Gemini);
# - `message.images` (base64 strings): inline_data, each image its own item, its type
#   read from its first bytes (PNG, JPEG, GIF, WebP; else application/octet-stream).
#
# The done line (`done: true`) may still carry content.  Its `done_reason` is the
# native finish reason: `stop` is stop (tool_call when the turn made tool calls:
# Ollama says stop then too), `length` is length, `load` and `unload` (the answers to
# a request that only loads or unloads the model) are stop, anything else unknown; a
# done line without one (older servers) is stop.  Usage: prompt_tokens =
# `prompt_eval_count` (the prompt tokens evaluated: a prompt served from the cache is
# not counted), response_tokens = `eval_count` (Ollama does not count thinking apart);
# the durations (nanoseconds) are kept in `extras["durations"]`.
#
# `{"error": "..."}` ends the stream failed with that message (type `error`).
from __future__ import annotations

import binascii
from collections.abc import Callable
from typing import Any, ClassVar, Final

from unievent._events import FinishReason
from unievent._generated import ollama as M
from unievent._outcome import ProviderError
from unievent._session import MachineHandler, Session
from unievent._shared import json_text, shown
from unievent._usage_wire import UsageWire

__all__ = ["Ollama", "normalize_ollama_finish"]

_NEXT: Final = M.NEXT
_DO: Final = M.DO
# states in which no further line is read: the decoder stops feeding frames
_TERMINAL: Final = frozenset(s for s in range(len(M.STATES)) if M.ALLOWED[s] in ((), ("eof",)))
#: the done line's counts (written back by _writers/ollama.py): a prompt served from
#: the cache is not counted, and thinking is not counted apart
USAGE: Final = UsageWire(((("prompt_eval_count",), "prompt"), (("eval_count",), "response")))
_DURATIONS: Final = ("total_duration", "load_duration", "prompt_eval_duration", "eval_duration")
_FINISH_MAP: Final[dict[str, FinishReason]] = {
    "stop": "stop",
    "length": "length",
    "load": "stop",
    "unload": "stop",
}
# an image's type by its first bytes
_MAGIC: Final = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def normalize_ollama_finish(native: str | None, made_calls: bool) -> FinishReason:
    """MMSP finish reason for a done line's done_reason: stop (or none) is stop, and
    tool_call when the turn made tool calls; length is length; load and unload are
    stop; anything else unknown."""
    reason = _FINISH_MAP.get(native, "unknown") if native is not None else "stop"
    if reason == "stop" and made_calls:
        return "tool_call"
    return reason


def image_type(data: bytes) -> str:
    """The MIME type of an image by its first bytes (application/octet-stream when unknown)."""
    for magic, mime in _MAGIC:
        if data.startswith(magic):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return "application/octet-stream"


class Ollama(MachineHandler):
    """Protocol handler for `ollama` (see StreamDecoder)."""

    machine: ClassVar[Any] = M

    def __init__(self, session: Session) -> None:
        self.session = session
        self.asm = session.asm
        self.state = M.INITIAL
        self.calls = 0

    # --- frames ---------------------------------------------------------------------

    def frame(self, event: str | None, obj: dict[str, Any]) -> bool:
        if obj.get("error") is not None:
            symbol = M.SY_ERROR
        else:
            symbol = M.SY_DONE_LINE if obj.get("done") is True else M.SY_LINE
        state = self.state
        dest = _NEXT[state][symbol]
        if dest < 0:  # nothing is fed after the end: no frame reaches an undeclared cell
            raise AssertionError(f"ollama: {M.SYMBOLS[symbol]} in state {M.STATES[state]}")
        self.state = dest
        for action in _DO[state][symbol]:
            _ACTIONS[action](self, obj)
        return dest in _TERMINAL

    def done_sentinel(self) -> bool:
        """`[DONE]` is no line of Ollama's (the framer skips it as a line that is no
        object): it changes nothing."""
        return False

    def finish_reason(self) -> FinishReason:
        return normalize_ollama_finish(self.session.native_finish_reason, self.calls > 0)

    # --- one line -------------------------------------------------------------------

    def _apply_line(self, obj: dict[str, Any]) -> None:
        model = obj.get("model")
        if model and type(model) is str and model != self.session.model:
            self.session.model = model
        message = obj.get("message")
        if type(message) is dict:
            thinking, content, calls, images = (
                message.get("thinking"),
                message.get("content"),
                message.get("tool_calls"),
                message.get("images"),
            )
        else:
            thinking, content, calls, images = obj.get("thinking"), obj.get("response"), obj.get("tool_calls"), None
        asm = self.asm
        if thinking and type(thinking) is str:
            asm.thinking(thinking)
        if content and type(content) is str:
            asm.text(content)
        if calls and type(calls) is list:
            for call in calls:
                self._tool_call(call)
        if images and type(images) is list:
            for image in images:
                self._image(image)

    def _tool_call(self, call: Any) -> None:
        function = call.get("function") if type(call) is dict else None
        name = function.get("name") if type(function) is dict else None
        if not name or type(name) is not str:
            self.session.note("unnamed_tool_call", "a tool call without a function name was kept as a side event")
            self.session.side_event("tool_call", "info", None, call if type(call) is dict else {"tool_call": call})
            return
        assert type(call) is dict and type(function) is dict
        self.calls += 1
        call_id = call.get("id")
        if not call_id or type(call_id) is not str:
            call_id = f"call_{self.session.stream_id}_{self.calls}"
        arguments = function.get("arguments")
        if arguments is None:
            text = ""
        elif type(arguments) is str:
            text = arguments
        else:
            text = json_text(arguments)  # an object, as Ollama sends them (anything else fails as arguments)
        self.asm.tool_call(name, call_id, text)
        self.asm.close()

    def _image(self, image: Any) -> None:
        try:
            data = binascii.a2b_base64(image) if type(image) is str else None
        except (binascii.Error, ValueError):
            data = None
        if data is None:
            self.session.note("image_not_base64", f"an image of {shown(image)} could not be decoded")
            self.session.side_event("image", "info", None, {"image": image})
            return
        self.asm.inline_data(data, image_type(data), new_item=True)

    def _record_done(self, obj: dict[str, Any]) -> None:
        session = self.session
        reason = obj.get("done_reason")
        if reason and type(reason) is str:
            session.native_finish_reason = reason
        session.set_usage(**USAGE.read(obj))
        durations = {key: obj[key] for key in _DURATIONS if type(obj.get(key)) is int}
        if durations:
            session.extras["durations"] = durations

    def _record_error(self, obj: dict[str, Any]) -> None:
        error = obj.get("error")
        if type(error) is dict:
            message = error.get("message")
            text = message if type(message) is str else json_text(error)
        else:
            text = error if type(error) is str else json_text(error)
        self.session.fail(ProviderError(text, "error", None, obj))


_ACTIONS: Final[tuple[Callable[[Ollama, dict[str, Any]], None], ...]] = tuple(
    getattr(Ollama, "_" + name) for name in M.ACTIONS
)
