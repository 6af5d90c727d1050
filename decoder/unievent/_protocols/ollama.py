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
#
# On demand (see _ondemand.py): a line whose only content is its text, or its
# thinking, is learned as a template, its `created_at` (a new timestamp on every line)
# the template's padding; lines matching it are taken without parsing them whole,
# where the table loops on `line` with apply_line alone.
from __future__ import annotations

import binascii
from collections.abc import Callable
from typing import Any, ClassVar, Final

from unievent._events import FinishReason
from unievent._framing import FRAME_OK, FRAME_OVER
from unievent._generated import ollama as M
from unievent._ondemand import Runs, Template
from unievent._outcome import ProviderError
from unievent._session import MachineHandler, Session
from unievent._shared import json_text, shown
from unievent._usage_wire import UsageWire

__all__ = ["Ollama", "normalize_ollama_finish"]

_NEXT: Final = M.NEXT
_DO: Final = M.DO
_SY_LINE: Final = M.SY_LINE
# states where a line stays and its only action is apply_line: the on-demand path's
_LINE_LOOPS: Final = tuple(
    _NEXT[s][_SY_LINE] == s and _DO[s][_SY_LINE] == (M.A_APPLY_LINE,) for s in range(len(M.STATES))
)
_LEARN_TRIES: Final = 4  # full-path lines from which a template is learned, at most
_TEXT: Final = 0
_THINKING: Final = 1
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
        self.hot: Template | None = None  # the learned line, its text or thinking the hole
        self.hot_kind = _TEXT
        self.learn_tries = _LEARN_TRIES
        self.fast_frames = 0
        self.runs = Runs()  # the run taker's window (see _ondemand.Runs)

    # --- frames ---------------------------------------------------------------------

    def raw(self, event: str | None, payload: bytes) -> int:
        """The framer's sink: a line matching the learned template is applied on
        demand; every other line is parsed whole (`parse`) and goes to `frame`."""
        hot = self.hot
        if hot is not None and _LINE_LOOPS[self.state]:
            value = hot.match(payload)
            if value is not None:
                self.state = _NEXT[self.state][_SY_LINE]  # the table's loop: stay, apply_line
                self._take_hot([value])
                return FRAME_OK
        obj = self.parse(event, payload)
        if isinstance(obj, int):
            return obj
        over = self.frame(event, obj)
        if self.learn_tries and not over and _LINE_LOOPS[self.state]:
            found = _hot_path(obj)
            if found is not None:
                self._learn(Template.learn(payload, obj, found[0], None, "created_at"), found[1])
        return FRAME_OVER if over else FRAME_OK

    def raw_run(self, heads: list[bytes] | None, payloads: list[bytes], start: int) -> int:
        """The framer's run taker: lines matching the learned template from `start`
        on, each exactly as `raw` takes it; the index of the first line not taken."""
        hot = self.hot
        if hot is None or not _LINE_LOOPS[self.state]:
            return start
        runs = self.runs
        holes = hot.holes_of_run(payloads, start, start + runs.window)
        if not holes:  # a frame of another shape: no call to parse nothing
            return start
        values = runs.strings(holes)
        if values:
            self._take_hot(values)
        return start + len(values)

    def _take_hot(self, values: list[str]) -> None:
        if self.hot_kind == _TEXT:
            self.asm.texts(values)
        else:
            self.asm.thinkings(values)
        self.fast_frames += len(values)

    def _learn(self, template: Template | None, kind: int) -> None:
        if template is None:
            self.learn_tries -= 1
            return
        self.learn_tries = _LEARN_TRIES
        self.hot = template
        self.hot_kind = kind

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
            self.hot = None  # a line the template matches names the model it had before
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


def _effective(value: Any) -> bool:
    """Whether `_apply_line` reads this thinking or text (a non-empty string)."""
    return bool(value) and type(value) is str


def _hot_path(obj: dict[str, Any]) -> tuple[tuple[str, ...], int] | None:
    """Where the string lies in a line whose only effect is that text or thinking
    (besides its model), and which; None for any other line.  A line matching the
    template differs from this one only there and in `created_at`."""
    if obj.get("error") is not None or obj.get("done") is True:
        return None
    message = obj.get("message")
    if type(message) is dict:
        fields: dict[str, Any] = message
        prefix: tuple[str, ...] = ("message",)
        text_key = "content"
        if message.get("images"):
            return None
    else:
        fields, prefix, text_key = obj, (), "response"
    if fields.get("tool_calls"):
        return None
    text, thinking = fields.get(text_key), fields.get("thinking")
    if _effective(text) and not _effective(thinking):
        return (*prefix, text_key), _TEXT
    if _effective(thinking) and not _effective(text):
        return (*prefix, "thinking"), _THINKING
    return None


_ACTIONS: Final[tuple[Callable[[Ollama, dict[str, Any]], None], ...]] = tuple(
    getattr(Ollama, "_" + name) for name in M.ACTIONS
)
