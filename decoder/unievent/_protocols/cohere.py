# Cohere v2 chat (`message-start`, content blocks, tool calls, `message-end`).
#
# Frame lifecycle: the generated machine from machines/cohere.py.  `frame()` only
# classifies a frame into a symbol (its kind from the data's `type`, else the `event:`
# name; a delta is `block_delta`, `new_delta` or `stale_delta` by its family, content
# or tool call, and its index, an end `block_end` or `stray_end`) and the table decides
# what is legal, including the recoveries of missing lifecycle frames; anything
# undeclared ends the stream `failed` with a protocol error naming the state and the
# event.  This module owns what a block means:
#
# - content blocks: `content-start` with `content.type` text or thinking; each
#   `content-delta`'s `content.text` (or `content.thinking`) is text (or thinking).  A
#   delta for a block never started opens one of the kind its field names.  Each
#   block's end closes its item, so two text blocks stay two items.
# - the tool plan (`tool-plan-delta`, `delta.message.tool_plan`): the model's reasoning
#   for a tool turn, a thinking item, closed by the first frame of another kind.
# - tool calls: `tool-call-start` names the call (`function.name`, `id`; an id made up
#   as `call_<stream_id>_<k+1>` for the k-th call when it has none) and may start its
#   arguments; each `tool-call-delta`'s `function.arguments` continues them; the end
#   closes the call (no fragment at all means `{}`).  A call without a name is never a
#   tool call: the side channel keeps it (start, then done with the arguments joined).
# - citations (`citation-start` with `delta.message.citations`, one citation): gathered
#   while a text block is open and, at its end, attached to the text item as fidelity
#   `{"citations": [...]}` (one empty text.delta carries them, and the done); one that
#   arrives with no text block open is a side event.  `citation-end` changes nothing.
#
# The end: `message-end`'s `finish_reason` COMPLETE and STOP_SEQUENCE are stop (also
# beside tool calls: the wire says TOOL_CALL for a turn that calls tools, and the
# reason it names is kept), MAX_TOKENS length, TOOL_CALL tool_call, anything else
# (TIMEOUT, values not invented yet) unknown; ERROR, or an `error` string, ends the
# stream failed with that string (type: its `error_type` when given, else `error`).
# Usage: cached_tokens = `usage.cached_tokens`, prompt_tokens = `usage.tokens.
# input_tokens` less the cached ones, response_tokens = `usage.tokens.output_tokens`
# (Cohere does not count thinking apart); `usage.billed_units` is kept in
# `extras["billed_units"]`; the response id is `Outcome.response_id` (and, as it was
# before that, `extras["response_id"]`).
from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Final

import orjson

from unievent._events import FinishReason
from unievent._framing import FRAME_OK, FRAME_OVER
from unievent._generated import cohere as M
from unievent._ondemand import Runs
from unievent._outcome import ProviderError
from unievent._session import MachineHandler, Session
from unievent._shared import as_dict, error_of, parse_json, shown, str_or_none
from unievent._usage_wire import UsageWire

__all__ = ["Cohere", "normalize_cohere_finish"]

_NEXT: Final = M.NEXT
_DO: Final = M.DO
# states in which no further frame is read: the decoder stops feeding frames
_TERMINAL: Final = frozenset(s for s in range(len(M.STATES)) if _NEXT[s][M.SY_OTHER] < 0)

_FINISH_MAP: Final[dict[str, FinishReason]] = {
    "COMPLETE": "stop",
    "STOP_SEQUENCE": "stop",
    "MAX_TOKENS": "length",
    "TOOL_CALL": "tool_call",
}

#: message-end's usage counts (written back by _writers/cohere.py); Cohere does not
#: count thinking apart
USAGE: Final = UsageWire(
    (
        (("tokens", "input_tokens"), "prompt_raw"),
        (("cached_tokens",), "cached"),
        (("tokens", "output_tokens"), "response"),
    ),
    {"prompt_raw": ("prompt", "cached")},
)

_DELTA: Final = M.SY_BLOCK_DELTA
_APPLY: Final = M.A_APPLY_DELTA
# states whose block_delta transition is "stay here and apply the delta" (from the table)
_DELTA_LOOPS: Final = frozenset(
    s for s in range(len(M.STATES)) if _NEXT[s][_DELTA] == s and _DO[s][_DELTA] == (_APPLY,)
)

# block families and kinds
_CONTENT: Final = 0
_CALL: Final = 1
_TEXT: Final = 0
_THINKING: Final = 1
_TOOL: Final = 2
_SIDE: Final = 3
_FAMILY_OF: Final = {
    "content-start": _CONTENT,
    "content-delta": _CONTENT,
    "content-end": _CONTENT,
    "tool-call-start": _CALL,
    "tool-call-delta": _CALL,
    "tool-call-end": _CALL,
}
_FAMILY_NAMES: Final = ("content", "tool call")
_loads: Final = orjson.loads
_JSONDecodeError: Final = orjson.JSONDecodeError
# The hot delta of each content kind, as Cohere writes it: the frame up to its one
# string (the index filled in when the block opens), then `}}}}`.
_HOT_HEAD: Final = {
    _TEXT: b'{"type":"content-delta","index":%d,"delta":{"message":{"content":{"text":',
    _THINKING: b'{"type":"content-delta","index":%d,"delta":{"message":{"content":{"thinking":',
}
_SIMPLE: Final[dict[str, int]] = {
    "message-start": M.SY_MESSAGE_START,
    "tool-plan-delta": M.SY_PLAN_DELTA,
    "citation-start": M.SY_CITATION_START,
    "citation-end": M.SY_CITATION_END,
    "debug": M.SY_OTHER,
}


def normalize_cohere_finish(native: str | None) -> FinishReason:
    """MMSP finish reason for a message-end finish_reason: COMPLETE and STOP_SEQUENCE are
    `stop`, MAX_TOKENS `length`, TOOL_CALL `tool_call`, anything else (TIMEOUT, unknown,
    none) `unknown`.  The reason is kept whatever the content: the wire has a word for
    a turn that calls tools."""
    return _FINISH_MAP.get(native, "unknown") if native is not None else "unknown"


def _message(obj: dict[str, Any]) -> dict[str, Any]:
    """`delta.message` of a frame ({} when it has none)."""
    return as_dict(as_dict(obj.get("delta")).get("message"))


def _carries_content(obj: dict[str, Any]) -> bool:
    """Whether a content-delta or tool-call-delta would add to a block's content (text,
    thinking, arguments): for a block that already ended, that is a contradiction; an
    empty one changes nothing done."""
    message = _message(obj)
    content = as_dict(message.get("content"))
    if content.get("text") or content.get("thinking"):
        return True
    calls = as_dict(message.get("tool_calls"))
    return bool(as_dict(calls.get("function")).get("arguments"))


class Cohere(MachineHandler):
    """Protocol handler for `cohere` (see StreamDecoder)."""

    machine: ClassVar[Any] = M

    def __init__(self, session: Session) -> None:
        self.session = session
        self.asm = session.asm
        self.state = M.INITIAL
        # the open block
        self.family = -1  # -1: no block open
        self.index = -1  # its index (-2: open, with no usable index)
        self.kind = _SIDE
        self.last_index = [-1, -1]  # the highest index of each family so far
        self.citations: list[Any] = []  # of the open text block
        self.calls = 0
        self.side: dict[str, Any] = {}  # a call with no name, on the side channel
        self.parts: list[str] = []  # its arguments
        # on-demand parsing (see _ondemand.py): the open content block's hot delta head
        self.hot_head: bytes | None = None
        self.fast_frames = 0
        self.runs = Runs()  # the run taker's window (see _ondemand.Runs)

    # --- frames ---------------------------------------------------------------------

    def raw(self, event: str | None, payload: bytes) -> int:
        """The framer's sink: the open content block's hot delta is taken on demand (the
        frame is `hot_head`, one JSON string, `}}}}`: exactly the frame the full path
        would read as that block's delta); everything else is parsed whole."""
        head = self.hot_head
        if head is not None and payload.startswith(head) and payload.endswith(b"}}}}"):
            try:
                value = _loads(payload[len(head) : -4])
            except _JSONDecodeError:
                value = None
            if type(value) is str and self.state in _DELTA_LOOPS:
                self.state = _NEXT[self.state][_DELTA]  # the table's loop: stay, apply_delta
                if value:
                    if self.kind == _TEXT:
                        self.asm.text(value)
                    else:
                        self.asm.thinking(value)
                self.fast_frames += 1
                return FRAME_OK
        obj = self.parse(event, payload)
        if isinstance(obj, int):
            return obj
        return FRAME_OVER if self.frame(event, obj) else FRAME_OK

    def raw_run(self, heads: list[bytes] | None, payloads: list[bytes], start: int) -> int:
        """The framer's run taker: the open content block's hot deltas from `start` on,
        each exactly as `raw` takes it (which reads no event name); the index of the
        first frame not taken."""
        head = self.hot_head
        if head is None or self.state not in _DELTA_LOOPS:  # the table's loop: stay, apply_delta
            return start
        values = self.runs.fixed(payloads, start, head, b"}}}}")
        if values:
            if self.kind == _TEXT:
                self.asm.texts(values)
            else:
                self.asm.thinkings(values)
            self.fast_frames += len(values)
        return start + len(values)

    def frame(self, event: str | None, obj: dict[str, Any]) -> bool:
        kind = obj.get("type")
        if type(kind) is not str:
            kind = event
        if kind == "content-delta" and self.family == _CONTENT:  # the hot path
            index = obj.get("index")
            if (index == self.index and type(index) is int) or index is None:
                state = self.state
                if state in _DELTA_LOOPS:  # the table's transition: stay, apply_delta
                    self.state = _NEXT[state][_DELTA]
                    self._apply_delta(obj)
                    return False
        symbol = self._symbol(kind, event, obj)
        state = self.state
        dest = _NEXT[state][symbol]
        if dest < 0:
            return self._undeclared(state, symbol, obj, kind)
        self.state = dest
        for action in _DO[state][symbol]:
            _ACTIONS[action](self, obj)
        return dest in _TERMINAL

    def _symbol(self, kind: str | None, event: str | None, obj: dict[str, Any]) -> int:
        if kind is None:
            return M.SY_ERROR if error_of(event, obj) is not None else M.SY_OTHER
        symbol = _SIMPLE.get(kind)
        if symbol is not None:
            return symbol
        family = _FAMILY_OF.get(kind)
        if family is not None:
            index = obj.get("index")
            if kind.endswith("-start"):
                return M.SY_BLOCK_START
            if kind.endswith("-end"):
                same = self.family == family and (index is None or (type(index) is int and index == self.index))
                return M.SY_BLOCK_END if same else M.SY_STRAY_END
            symbol = self._delta_symbol(family, index)
            if symbol == M.SY_STALE_DELTA and not _carries_content(obj):
                return M.SY_LATE_EVENT
            return symbol
        if kind == "message-end":
            delta = as_dict(obj.get("delta"))
            if delta.get("finish_reason") == "ERROR" or delta.get("error") is not None:
                return M.SY_ERROR
            return M.SY_MESSAGE_END
        return M.SY_ERROR if kind == "error" or obj.get("error") is not None else M.SY_OTHER

    def _delta_symbol(self, family: int, index: Any) -> int:
        """block_delta, new_delta or stale_delta for a delta of `family`."""
        if self.family == family and (index is None or (type(index) is int and index == self.index)):
            return _DELTA
        if type(index) is not int or index < 0:
            # no usable index: a new block of its family, unless one of it is open
            return M.SY_NEW_DELTA
        if index > self.last_index[family]:
            return M.SY_NEW_DELTA
        return M.SY_STALE_DELTA

    def _undeclared(self, state: int, symbol: int, obj: dict[str, Any], kind: str | None) -> bool:
        what = kind or "frame without a type"
        index = obj.get("index")
        if symbol == M.SY_STALE_DELTA:
            what += f" for block {shown(index)}, which already ended"
        elif state == M.ST_ENDED:
            what += " after message-end"
        return self.out_of_order(state, symbol, what, obj)

    def finish_reason(self) -> FinishReason:
        return normalize_cohere_finish(self.session.native_finish_reason)

    def at_end(self) -> None:
        """A text block cut short keeps its citations."""
        if self.family == _CONTENT and self.kind == _TEXT and self.citations:
            self.asm.text("", {"citations": self.citations})
            self.citations = []

    # --- the message ----------------------------------------------------------------

    def _imply_message(self, obj: dict[str, Any]) -> None:
        self.session.note("implied_message_start", f"the stream began with {shown(obj.get('type'))}, not message-start")

    def _take_message(self, obj: dict[str, Any]) -> None:
        response_id = obj.get("id")
        if response_id and type(response_id) is str:
            self.session.take_response_id(response_id)
            self.session.extras["response_id"] = response_id  # read there before Outcome.response_id

    def _take_end(self, obj: dict[str, Any]) -> None:
        delta = as_dict(obj.get("delta"))
        reason = delta.get("finish_reason")
        if reason and type(reason) is str:
            self.session.native_finish_reason = reason
        self._usage(as_dict(delta.get("usage")))

    def _usage(self, usage: dict[str, Any]) -> None:
        session = self.session
        counts = USAGE.read(usage)
        cached = counts.get("cached")
        prompt = counts.pop("prompt_raw", None)
        session.set_usage(**counts, prompt=max(prompt - (cached or 0), 0) if prompt is not None else None)
        billed = usage.get("billed_units")
        if type(billed) is dict:
            session.extras["billed_units"] = billed

    def _record_error(self, obj: dict[str, Any]) -> None:
        delta = as_dict(obj.get("delta"))
        if obj.get("type") == "message-end":
            reason = delta.get("finish_reason")
            if reason and type(reason) is str:
                self.session.native_finish_reason = reason
            message = delta.get("error")
            text = message if type(message) is str and message else f"the generation ended with {shown(reason)}"
            kind = str_or_none(delta.get("error_type")) or "error"
            self.session.fail(ProviderError(text, kind, None, delta))
            return
        error = error_of("error", obj)
        self.session.fail(error or ProviderError("error event", "error"))

    def _note_other(self, obj: dict[str, Any]) -> None:
        kind = obj.get("type")
        kind = kind if type(kind) is str else "unknown"
        if kind != "debug":
            self.session.note("unknown_frame", f"unknown frame type {kind[:60]!r} kept on the side channel")
        self.session.side_event(kind, "info", None, obj)

    # --- blocks ---------------------------------------------------------------------

    def _take_index(self, family: int, index: Any) -> None:
        self.family = family
        self.hot_head = None
        if type(index) is int and index >= 0:
            self.index = index
            self.last_index[family] = max(self.last_index[family], index)
        else:
            self.index = -2  # open, but no later frame names it by index

    def _open_block(self, obj: dict[str, Any]) -> None:
        message = _message(obj)
        if obj.get("type") == "tool-call-start":
            self._take_index(_CALL, obj.get("index"))
            self._open_call(as_dict(message.get("tool_calls")))
        else:
            self._take_index(_CONTENT, obj.get("index"))
            content = as_dict(message.get("content"))
            self._open_content(content.get("type") == "thinking")
            self._apply_content(content)

    def _open_content(self, thinking: bool) -> None:
        self.kind = _THINKING if thinking else _TEXT
        self.citations = []
        self.hot_head = _HOT_HEAD[self.kind] % self.index if self.index >= 0 else None

    def _open_call(self, call: dict[str, Any]) -> None:
        function = as_dict(call.get("function"))
        name = function.get("name")
        arguments = function.get("arguments")
        arguments = arguments if type(arguments) is str else ""
        if not name or type(name) is not str:
            self.kind = _SIDE
            self.session.note("unnamed_tool_call", f"tool call {self.index} has no name: kept as a side event")
            self.side = dict(call)
            self.parts = [arguments] if arguments else []
            self.session.side_event("tool_call", "start", str_or_none(call.get("id")), call)
            return
        self.kind = _TOOL
        self.calls += 1
        call_id = call.get("id")
        if not call_id or type(call_id) is not str:
            call_id = f"call_{self.session.stream_id}_{self.calls}"
        self.asm.tool_call(name, call_id, arguments)

    def _imply_block(self, obj: dict[str, Any]) -> None:
        family = _FAMILY_OF.get(obj.get("type") or "", _CONTENT)
        index = obj.get("index")
        message = _message(obj)
        what = f"a {shown(obj.get('type'))} for block {shown(index)}"
        self.session.note("implied_block_start", f"{what}, which never started")
        self._take_index(family, index)
        if family == _CALL:
            self.kind = _SIDE  # a call whose start never came has no name
            self.session.note("unnamed_tool_call", f"tool call {shown(index)} never started: kept as a side event")
            self.side = {}
            self.parts = []
            self.session.side_event("tool_call", "start", None, {})
        else:
            self._open_content("thinking" in as_dict(message.get("content")))

    def _apply_delta(self, obj: dict[str, Any]) -> None:
        message = _message(obj)
        if self.family == _CONTENT:
            self._apply_content(as_dict(message.get("content")))
            return
        fragment = as_dict(as_dict(message.get("tool_calls")).get("function")).get("arguments")
        if fragment and type(fragment) is str:
            if self.kind == _TOOL:
                self.asm.tool_arguments(fragment)
            else:
                self.parts.append(fragment)

    def _apply_content(self, content: dict[str, Any]) -> None:
        text = content.get("text")
        if text and type(text) is str:
            self.asm.text(text)
        thinking = content.get("thinking")
        if thinking and type(thinking) is str:
            self.asm.thinking(thinking)

    def _apply_plan(self, obj: dict[str, Any]) -> None:
        plan = _message(obj).get("tool_plan")
        if plan and type(plan) is str:
            self.asm.thinking(plan)

    def _close_plan(self, obj: dict[str, Any]) -> None:
        if self.asm.open_kind == "thinking":
            self.asm.close()

    def _close_open_block(self, obj: dict[str, Any]) -> None:
        what = f"{_FAMILY_NAMES[self.family]} block {self.index}"
        self.session.note("block_left_open", f"{what} was still open at {shown(obj.get('type'))}")
        self._close_block(obj)

    def _note_stray_end(self, obj: dict[str, Any]) -> None:
        what = f"{shown(obj.get('type'))} for block {shown(obj.get('index'))}"
        self.session.note("stray_block_end", f"{what}, which is not open")

    def _note_late_event(self, obj: dict[str, Any]) -> None:
        kind = obj.get("type")
        name = kind if type(kind) is str and kind else "delta"
        self.session.note("late_event", f"{name[:60]} for block {shown(obj.get('index'))}, which already ended")
        self.session.side_event(name, "info", None, obj)

    def _close_block(self, obj: dict[str, Any]) -> None:
        kind = self.kind
        self.family = -1
        self.index = -1
        self.hot_head = None
        if kind == _SIDE:
            self._close_side()
            return
        if kind == _TEXT and self.citations:
            self.asm.text("", {"citations": self.citations})
            self.citations = []
        self.asm.close()

    def _close_side(self) -> None:
        block = self.side
        joined = "".join(self.parts)
        if joined.strip():
            try:
                block["arguments"] = parse_json(joined)
            except ValueError:
                block["partial_arguments"] = joined
        self.session.side_event("tool_call", "done", str_or_none(block.get("id")), block)
        self.side = {}
        self.parts = []

    def _take_citation(self, obj: dict[str, Any]) -> None:
        citation = _message(obj).get("citations")
        if self.family == _CONTENT and self.kind == _TEXT:
            self.citations.append(citation)
        else:
            self.session.side_event("citation", "info", None, obj)


_ACTIONS: Final[tuple[Callable[[Cohere, dict[str, Any]], None], ...]] = tuple(
    getattr(Cohere, "_" + name) for name in M.ACTIONS
)
