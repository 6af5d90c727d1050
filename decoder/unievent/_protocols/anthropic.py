# Anthropic Messages (`message_start`, content blocks, `message_delta`, `message_stop`).
#
# Frame lifecycle: the generated machine from machines/anthropic.py.  `frame()` only
# classifies a frame into a symbol (its kind from the data's `type`, else the
# `event:` name; a delta is `block_delta`, `new_delta` or `stale_delta` by its index,
# a stop `block_stop` or `stray_stop`) and the table decides what is legal, including
# the recoveries of missing lifecycle frames; anything undeclared ends the stream
# `failed` with a protocol error naming the state and the event.  This module owns
# what a block means:
#
# - text: `text_delta` is text.  `citations_delta` citations are gathered and, at the
#   block's stop, attached to the text item as fidelity `{"citations": [...]}` (one
#   empty text.delta carries them, and the done): they belong to the text they
#   annotate and a replay can send them back.
# - thinking: `thinking_delta` is thinking; `signature_delta`s are joined and attached
#   at the block's stop as fidelity `{"signature": ...}` on one empty thinking.delta
#   (a block whose only delta is a signature becomes a thinking item with empty text).
# - redacted_thinking: MMSP's convention, text `_REDACTED_THINKING` with the opaque
#   `data` under fidelity `signature`.
# - tool_use: a client tool call; `input_json_delta` fragments are its arguments, a
#   non-empty `input` on the start is the whole arguments, none at all means `{}`.
#   A call without an id gets `call_<stream_id>_<index>`.  A block implied by its
#   `input_json_delta`s has no name until its late start names it; one never named is
#   never a tool call (the side channel keeps it, with an anomaly).
# - every other block type (server_tool_use, *_tool_result, mcp_tool_use/result,
#   compaction, types not invented yet): provider-side activity, never a tool call:
#   side events `start` (the block), `delta` (each delta object) and `done` (the block
#   with its `input` assembled from the input_json fragments, and string fields of
#   other deltas appended, e.g. compaction's `content`).
#
# Each block's stop closes its item, so two text blocks stay two items.
#
# Usage: `message_start` and `message_delta` usage in MMSP's meaning (see `_usage`).
# When `message_delta` usage lists `iterations` (compaction: one entry per model
# call), usage is the sum of the request model's own calls (`message`, `compaction`),
# what it cost; another model's calls (`advisor_message`, naming its `model`) are
# summed apart by model in `extras["usage_by_model"]`, and the raw list is kept in
# `extras["usage_iterations"]`.
from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Final

import orjson

from unievent._events import FinishReason
from unievent._framing import FRAME_OK, FRAME_OVER
from unievent._generated import anthropic as M
from unievent._ondemand import Runs
from unievent._outcome import ProviderError
from unievent._session import MachineHandler, Session
from unievent._shared import carries_content, error_of, json_text, parse_json, shown
from unievent._usage_wire import UsageWire

__all__ = ["REDACTED_THINKING", "Anthropic", "normalize_anthropic_finish"]

_NEXT: Final = M.NEXT
_DO: Final = M.DO
# states in which no further frame is read: the decoder stops feeding frames
_TERMINAL: Final = frozenset(s for s in range(len(M.STATES)) if _NEXT[s][M.SY_PING] < 0)

REDACTED_THINKING = "_REDACTED_THINKING"

_FINISH_MAP: Final[dict[str, FinishReason]] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "tool_call",
}

#: message_delta's usage counts (written back by _writers/anthropic.py);
#: `output_tokens_details.thinking_tokens` is a gateway's: Anthropic never splits it out
USAGE: Final = UsageWire(
    (
        (("input_tokens",), "input_raw"),
        (("cache_creation_input_tokens",), "creation_raw"),
        (("cache_read_input_tokens",), "cached"),
        (("output_tokens",), "output_raw"),
        (("output_tokens_details", "thinking_tokens"), "thoughts"),
    ),
    {"input_raw": ("prompt",), "output_raw": ("response", "thoughts")},
)

_START: Final = M.SY_BLOCK_START
_DELTA: Final = M.SY_BLOCK_DELTA
_STOP: Final = M.SY_BLOCK_STOP
_MESSAGE_DELTA: Final = M.SY_MESSAGE_DELTA
_APPLY: Final = M.A_APPLY_DELTA
# frame kind -> symbol; the block kinds are refined by index in frame()
_KINDS: Final[dict[str, int]] = {
    "message_start": M.SY_MESSAGE_START,
    "content_block_start": _START,
    "content_block_delta": _DELTA,
    "content_block_stop": _STOP,
    "message_delta": _MESSAGE_DELTA,
    "message_stop": M.SY_MESSAGE_STOP,
    "ping": M.SY_PING,
    "error": M.SY_ERROR,
}
# states whose block_delta transition is "stay here and apply the delta" (from the table)
_DELTA_LOOPS: Final = tuple(
    _NEXT[s][_DELTA] == s and _DO[s][_DELTA] == (_APPLY,) for s in range(len(M.STATES))
)

_loads: Final = orjson.loads
_JSONDecodeError: Final = orjson.JSONDecodeError
# The hot delta of each block kind, as Anthropic writes it: the frame up to its one
# string (the index filled in when the block opens), then `}`, spaces, `}`.
_HOT_HEAD: Final = {
    "text": b'{"type":"content_block_delta","index":%d,"delta":{"type":"text_delta","text":',
    "thinking": b'{"type":"content_block_delta","index":%d,"delta":{"type":"thinking_delta","thinking":',
    "tool_use": b'{"type":"content_block_delta","index":%d,"delta":{"type":"input_json_delta","partial_json":',
}

# block kinds
_TEXT: Final = 0
_THINKING: Final = 1
_REDACTED: Final = 2
_TOOL: Final = 3
_SIDE: Final = 4
_BLOCK_KINDS: Final = {"text": _TEXT, "thinking": _THINKING, "redacted_thinking": _REDACTED, "tool_use": _TOOL}
# the block a delta implies when its start never came
_IMPLIED_BY_DELTA: Final = {
    "text_delta": "text",
    "citations_delta": "text",
    "thinking_delta": "thinking",
    "signature_delta": "thinking",
    "input_json_delta": "tool_use",
}


# the content each delta type carries (see carries_content): a block's done content is made of these
_CONTENT_OF_DELTA: Final = {
    "text_delta": "text",
    "thinking_delta": "thinking",
    "signature_delta": "signature",
    "input_json_delta": "partial_json",
    "citations_delta": "citation",
}


def normalize_anthropic_finish(native: str | None) -> FinishReason:
    """MMSP finish reason for a stop_reason: end_turn and stop_sequence are `stop`,
    max_tokens `length`, tool_use `tool_call`, anything else (pause_turn, refusal,
    model_context_window_exceeded, unknown, none) `unknown`."""
    if native is None:
        return "unknown"
    return _FINISH_MAP.get(native, "unknown")


def _no_delta(obj: dict[str, Any]) -> None:
    """The delta handler of a stream that has ended (nothing reaches it)."""


# usage iterations of the request's own model (summed into its usage)
_OWN_ITERATIONS: Final = frozenset(("message", "compaction"))


class Anthropic(MachineHandler):
    """Protocol handler for `anthropic` (see StreamDecoder)."""

    machine: ClassVar[Any] = M

    def __init__(self, session: Session) -> None:
        self.session = session
        self.asm = session.asm
        self.state = M.INITIAL
        # the open block
        self.index = -1  # -1: no block open (-2: open, with no usable index)
        self.last_index = -1  # the highest index this message has used
        self.kind = _SIDE
        self.implied = False  # the open block was implied by its deltas
        self.block: dict[str, Any] = {}  # the side-channel block being assembled
        self.grown: dict[str, list[str]] = {}  # string fields its deltas grow
        self.block_id: str | None = None
        self.parts: list[str] = []  # signature parts, or input JSON fragments
        self.citations: list[Any] = []
        self.args_whole = False  # the tool_use start carried its input
        self.call_name = ""  # a tool_use block implied by its deltas: named late
        self.on_delta: Callable[[dict[str, Any]], None] = self._side_block_delta
        # on-demand parsing (see _ondemand.py): the open block's hot delta head, and
        # what its string is
        self.hot_head: bytes | None = None
        self.hot_kind = _TEXT  # what its string is: text, thinking or a tool call's input
        self.fast_frames = 0
        self.runs = Runs()  # the run taker's window (see _ondemand.Runs)

    # --- frames ---------------------------------------------------------------------

    def raw(self, event: str | None, payload: bytes) -> int:
        """The framer's sink: the open block's hot delta is taken on demand (the frame
        is `hot_head`, one JSON string, `}`, spaces, `}`: exactly the frame the full
        path would read as that block's delta); everything else is parsed whole."""
        head = self.hot_head
        if head is not None and payload.startswith(head):
            if payload.endswith(b"}}"):
                body = payload[len(head) : -2]
            else:  # the API pads its frames: `}`, spaces, `}`
                body = payload[len(head) :].rstrip(b" ")
                body = body[:-1].rstrip(b" ") if body.endswith(b"}") else b""
                body = body[:-1] if body.endswith(b"}") else b""
            try:
                value = _loads(body)
            except _JSONDecodeError:
                value = None
            if type(value) is str and _DELTA_LOOPS[self.state]:
                self.state = _NEXT[self.state][_DELTA]  # the table's loop: stay, apply_delta
                self._take_hot([value])
                return FRAME_OK
        obj = self.parse(event, payload)
        if isinstance(obj, int):
            return obj
        return FRAME_OVER if self.frame(event, obj) else FRAME_OK

    def raw_run(self, heads: list[bytes] | None, payloads: list[bytes], start: int) -> int:
        """The framer's run taker: the open block's hot deltas from `start` on, each
        exactly as `raw` takes it (padded frames and anything else are left to `raw`);
        the index of the first frame not taken."""
        head = self.hot_head
        if head is None or not _DELTA_LOOPS[self.state]:  # the table's loop: stay, apply_delta
            return start
        values = self.runs.fixed(payloads, start, head, b"}}")
        if values:
            self._take_hot(values)
        return start + len(values)

    def _take_hot(self, values: list[str]) -> None:
        """The strings of hot deltas taken on demand, given to what the open block's
        deltas feed (direct calls: a compiled handler makes them without a lookup)."""
        kind = self.hot_kind
        if kind == _TEXT:
            self.asm.texts(values)
        elif kind == _THINKING:
            self.asm.thinkings(values)
        elif not self.args_whole and self.asm.open_kind == "tool_call":
            self.asm.tool_arguments_run(values)  # as _tool_fragment takes each
        else:
            for value in values:
                self._tool_fragment(value)
        self.fast_frames += len(values)

    def frame(self, event: str | None, obj: dict[str, Any]) -> bool:
        kind = obj.get("type")
        if kind == "content_block_delta":  # the hot path: one comparison to a symbol
            index = obj.get("index")
            if index == self.index and type(index) is int:
                state = self.state
                if _DELTA_LOOPS[state]:  # the table's transition: stay, apply_delta
                    self.state = _NEXT[state][_DELTA]
                    self.on_delta(obj)
                    return False
                symbol = _DELTA
            else:
                symbol = self._delta_symbol(index, obj)
        else:
            if type(kind) is not str:
                kind = event
            symbol = _KINDS.get(kind, -1) if kind is not None else -1
            if symbol == _DELTA:
                symbol = self._delta_symbol(obj.get("index"), obj)
            elif symbol == _STOP:
                index = obj.get("index")
                if self.index == -1 or (type(index) is int and index != self.index):
                    symbol = M.SY_STRAY_STOP
            elif symbol == _START:
                if self.implied and obj.get("index") == self.index:
                    symbol = M.SY_LATE_START
            elif symbol == _MESSAGE_DELTA:
                delta = obj.get("delta")
                if type(delta) is dict:
                    reason = delta.get("stop_reason")
                    if reason and type(reason) is str:
                        symbol = M.SY_FINISH_DELTA
            elif symbol < 0:
                symbol = M.SY_ERROR if event == "error" or obj.get("error") is not None else M.SY_OTHER
        # fire the symbol: the generated table decides
        state = self.state
        dest = _NEXT[state][symbol]
        if dest < 0:
            return self._undeclared(state, symbol, obj, kind)
        self.state = dest
        for action in _DO[state][symbol]:
            if action == _APPLY:
                self.on_delta(obj)
            else:
                _ACTIONS[action](self, obj)
        return dest in _TERMINAL

    def _delta_symbol(self, index: Any, obj: dict[str, Any]) -> int:
        """block_delta, new_delta, stale_delta or late_event for a delta whose index is
        not the open block's usable index."""
        if index == self.index and type(index) is int:
            return _DELTA
        if type(index) is not int or index < 0:
            # no usable index: the open block's, if one is open
            return _DELTA if self.index != -1 else M.SY_NEW_DELTA
        if index > self.last_index:
            return M.SY_NEW_DELTA
        return M.SY_STALE_DELTA if carries_content(obj.get("delta"), _CONTENT_OF_DELTA) else M.SY_LATE_EVENT

    def done_sentinel(self) -> bool:
        state = self.state
        dest = _NEXT[state][M.SY_DONE_SENTINEL]
        if dest < 0:
            return self._undeclared(state, M.SY_DONE_SENTINEL, {}, "[DONE]")
        self.state = dest
        return dest in _TERMINAL

    def _undeclared(self, state: int, symbol: int, obj: dict[str, Any], kind: str | None) -> bool:
        what = kind or "frame without a type"
        index = obj.get("index")
        if symbol == M.SY_STALE_DELTA:
            what += f" for block {shown(index)}, which already stopped"
        elif symbol in (_START, M.SY_NEW_DELTA):
            what += f" for block {shown(index)} after the stop reason"
        return self.out_of_order(state, symbol, what, obj)

    def finish_reason(self) -> FinishReason:
        return normalize_anthropic_finish(self.session.native_finish_reason)

    def at_end(self) -> None:
        """A text block cut short keeps its citations, a thinking block its signature."""
        if self.index == -1:
            return
        if self.kind == _TEXT and self.citations:
            self.asm.text("", {"citations": self.citations})
            self.citations = []
        elif self.kind == _THINKING and self.parts:
            self.asm.thinking("", {"signature": "".join(self.parts)})
            self.parts = []

    # --- message --------------------------------------------------------------------

    def _imply_message(self, obj: dict[str, Any]) -> None:
        self.session.note("implied_message_start", f"the stream began with {shown(obj.get('type'))}, not message_start")
        self._new_message()

    def _take_message(self, obj: dict[str, Any]) -> None:
        self._new_message()
        message = obj.get("message")
        if type(message) is not dict:
            return
        model = message.get("model")
        if model and type(model) is str:
            self.session.model = model
        self.session.take_response_id(message.get("id"))  # of several messages, the first's
        self._usage(message.get("usage"))

    def _new_message(self) -> None:
        self.index = -1
        self.last_index = -1
        self.hot_head = None

    def _take_usage(self, obj: dict[str, Any]) -> None:
        self._usage(obj.get("usage"))

    def _usage(self, usage: Any) -> None:
        if type(usage) is not dict:
            return
        session = self.session
        iterations = usage.get("iterations")
        if type(iterations) is list and iterations:
            self._iteration_usage(iterations)
            return
        session.set_usage(**USAGE.read(usage))
        self._mmsp_usage()

    def _iteration_usage(self, iterations: list[Any]) -> None:
        """Compaction: one usage per model call; the request's model cost the sum of its
        own calls (`message`, `compaction`); another model's calls (`advisor_message`)
        are summed apart, by model, in extras["usage_by_model"]."""
        totals = {"input_raw": 0, "creation_raw": 0, "cached": 0, "output_raw": 0}
        keys = {
            "input_raw": "input_tokens",
            "creation_raw": "cache_creation_input_tokens",
            "cached": "cache_read_input_tokens",
            "output_raw": "output_tokens",
        }
        others: dict[str, dict[str, int]] = {}
        for iteration in iterations:
            if type(iteration) is not dict:
                continue
            kind = iteration.get("type")
            if kind is None or kind in _OWN_ITERATIONS:
                into = totals
            else:  # another model's call (an advisor): priced apart, never added in
                model = iteration.get("model")
                name = model if type(model) is str and model else str(kind)
                into = others.setdefault(name, dict.fromkeys(keys.values(), 0))
            for field, key in keys.items():
                value = iteration.get(key)
                if type(value) is int and value > 0:
                    into[field if into is totals else key] += value
        self.session.raw_usage.update(totals)
        self.session.extras["usage_iterations"] = iterations
        if others:
            self.session.extras["usage_by_model"] = others
        self._mmsp_usage()

    def _mmsp_usage(self) -> None:
        raw = self.session.raw_usage
        # MMSP meaning: prompt = tokens read fresh (input + cache writes), response =
        # output without the reasoning when the provider breaks it out
        if "input_raw" in raw:
            raw["prompt"] = raw["input_raw"] + raw.get("creation_raw", 0)
        if "output_raw" in raw:
            response = raw["output_raw"] - raw.get("thoughts", 0)
            raw["response"] = response if response >= 0 else raw["output_raw"]

    def _record_finish(self, obj: dict[str, Any]) -> None:
        self.session.native_finish_reason = obj["delta"]["stop_reason"]

    def _record_error(self, obj: dict[str, Any]) -> None:
        error = error_of("error", obj)
        if error is not None and error.type is None and type(obj.get("error")) is not dict:
            error = ProviderError(error.message, "error", error.code, error.raw)
        self.session.fail(error or ProviderError("error event", "error"))

    def _note_other(self, obj: dict[str, Any]) -> None:
        kind = obj.get("type")
        kind = kind if type(kind) is str else "unknown"
        self.session.note("unknown_frame", f"unknown frame type {kind[:60]!r} kept on the side channel")
        self.session.side_event(kind, "info", None, obj)

    # --- blocks ---------------------------------------------------------------------

    def _open_block(self, obj: dict[str, Any]) -> None:
        block = obj.get("content_block")
        self._start_block(obj.get("index"), block if type(block) is dict else {})

    def _take_index(self, index: Any) -> None:
        if type(index) is int and index >= 0:
            self.index = index
            self.last_index = max(self.last_index, index)
        else:
            self.index = -2  # open, but no later frame names it by index

    def _hot(self, name: str, kind: int) -> None:
        """The open block's hot delta may be taken on demand (a block with a usable
        index): `name` is the block type, `kind` what the delta's string is."""
        self.hot_head = _HOT_HEAD[name] % self.index if self.index >= 0 else None
        self.hot_kind = kind

    def _start_block(self, index: Any, block: dict[str, Any]) -> None:
        self._take_index(index)
        self.implied = False
        self.hot_head = None
        btype = block.get("type")
        kind = _BLOCK_KINDS.get(btype, _SIDE) if type(btype) is str else _SIDE
        self.kind = kind
        self.parts = []
        if kind == _TEXT:
            self.on_delta = self._text_delta
            self._hot("text", _TEXT)
            self.citations = []
            cited = block.get("citations")
            if type(cited) is list:
                self.citations.extend(cited)
            text = block.get("text")
            if text and type(text) is str:
                self.asm.text(text)
        elif kind == _THINKING:
            self.on_delta = self._thinking_delta
            self._hot("thinking", _THINKING)
            thinking = block.get("thinking")
            if thinking and type(thinking) is str:
                self.asm.thinking(thinking)
            signature = block.get("signature")
            if signature and type(signature) is str:
                self.parts.append(signature)
        elif kind == _REDACTED:
            self.on_delta = self._odd_delta  # it has no deltas of its own
            data = block.get("data")
            self.asm.thinking(REDACTED_THINKING, {"signature": data if type(data) is str else ""})
        elif kind == _TOOL:
            name = block.get("name")
            if not name or type(name) is not str:
                self.kind = _SIDE
                what = f"tool_use block {shown(index)}"
                self.session.note("unnamed_tool_call", f"{what} has no name: kept as a side event")
                self._open_side(block)
                return
            self.on_delta = self._tool_delta
            given = block.get("input")
            self.args_whole = bool(given) and type(given) is dict
            if not self.args_whole:
                self._hot("tool_use", _TOOL)
            self.asm.tool_call(name, self._call_id(block), json_text(given) if self.args_whole else "")
        else:
            self._open_side(block)

    def _call_id(self, block: dict[str, Any]) -> str:
        call_id = block.get("id")
        if call_id and type(call_id) is str:
            return call_id
        return f"call_{self.session.stream_id}_{self.index if self.index >= 0 else 'x'}"

    def _imply_block(self, obj: dict[str, Any]) -> None:
        delta = obj.get("delta")
        dtype = delta.get("type") if type(delta) is dict else None
        btype = _IMPLIED_BY_DELTA.get(dtype, "unknown") if type(dtype) is str else "unknown"
        index = obj.get("index")
        what = f"a {shown(dtype)} delta for block {shown(index)}"
        self.session.note("implied_block_start", f"{what}, which never started")
        if btype == "tool_use":
            # named by a late start, if one comes: until then the input waits
            self._take_index(index)
            self.kind = _TOOL
            self.on_delta = self._tool_delta
            self.hot_head = None  # until a late start names the call
            self.parts = []
            self.args_whole = False
            self.call_name = ""
        else:
            self._start_block(index, {"type": btype})
        self.implied = True

    def _adopt_start(self, obj: dict[str, Any]) -> None:
        """The start of a block its deltas already implied."""
        block = obj.get("content_block")
        block = block if type(block) is dict else {}
        self.implied = False
        if self.kind == _TOOL and not self.call_name and self.asm.open_kind != "tool_call":
            name = block.get("name")
            if name and type(name) is str and block.get("type") == "tool_use":
                self.call_name = name
                self.asm.tool_call(name, self._call_id(block), "".join(self.parts))
                self.parts = []
                self._hot("tool_use", _TOOL)

    def _open_side(self, block: dict[str, Any]) -> None:
        self.on_delta = self._side_block_delta
        item_id = block.get("id") or block.get("tool_use_id")
        self.block_id = item_id if type(item_id) is str else None
        self.block = dict(block)
        self.grown = {}
        btype = block.get("type")
        self.session.side_event(btype if type(btype) is str else "unknown", "start", self.block_id, block)

    def _close_open_block(self, obj: dict[str, Any]) -> None:
        self.session.note("block_left_open", f"block {self.index} was still open at {shown(obj.get('type'))}")
        self._close_block(obj)

    def _note_stray_stop(self, obj: dict[str, Any]) -> None:
        what = f"content_block_stop for block {shown(obj.get('index'))}"
        self.session.note("stray_block_stop", f"{what}, which is not open")

    def _note_late_event(self, obj: dict[str, Any]) -> None:
        index = shown(obj.get("index"))
        delta = obj.get("delta")
        dtype = delta.get("type") if type(delta) is dict else None
        name = dtype if type(dtype) is str and dtype else "content_block_delta"
        self.session.note("late_event", f"{name[:60]} for block {index}, which already stopped")
        self.session.side_event(name, "info", None, obj)

    # One delta handler per block kind, chosen at the block's start (`on_delta`): the
    # common delta is one dict lookup, one comparison and the assembler call.

    def _apply_delta(self, obj: dict[str, Any]) -> None:
        self.on_delta(obj)

    def _text_delta(self, obj: dict[str, Any]) -> None:
        delta = obj.get("delta")
        if type(delta) is dict:
            dtype = delta.get("type")
            if dtype == "text_delta":
                text = delta.get("text")
                if type(text) is str:
                    self.asm.text(text)
                return
            if dtype == "citations_delta":
                self.citations.append(delta.get("citation"))
                return
        self._odd_delta(obj)

    def _thinking_delta(self, obj: dict[str, Any]) -> None:
        delta = obj.get("delta")
        if type(delta) is dict:
            dtype = delta.get("type")
            if dtype == "thinking_delta":
                thinking = delta.get("thinking")
                if type(thinking) is str:
                    self.asm.thinking(thinking)
                return
            if dtype == "signature_delta":
                signature = delta.get("signature")
                if type(signature) is str:
                    self.parts.append(signature)
                return
        self._odd_delta(obj)

    def _tool_delta(self, obj: dict[str, Any]) -> None:
        delta = obj.get("delta")
        if type(delta) is dict and delta.get("type") == "input_json_delta":
            fragment = delta.get("partial_json")
            if type(fragment) is str:
                self._tool_fragment(fragment)
            return
        self._odd_delta(obj)

    def _tool_fragment(self, fragment: str) -> None:
        if not fragment:
            return
        if self.args_whole:
            self.session.note("late_arguments", f"tool_use block {self.index} sent input after a whole input")
        elif self.asm.open_kind == "tool_call":
            self.asm.tool_arguments(fragment)
        else:
            self.parts.append(fragment)  # an implied call not named yet

    def let_go(self) -> None:
        super().let_go()
        self.on_delta = _no_delta  # a bound method of its own: a cycle through the handler

    def _odd_delta(self, obj: dict[str, Any]) -> None:
        """A delta this block kind does not know (or no delta object): kept, never dropped."""
        delta = obj.get("delta")
        dtype = delta.get("type") if type(delta) is dict else None
        name = dtype if type(dtype) is str else "unknown_delta"
        self.session.note("foreign_delta", f"{name[:60]} in block {self.index} of another kind kept as a side event")
        self.session.side_event(name, "info", None, obj)

    def _side_block_delta(self, obj: dict[str, Any]) -> None:
        delta = obj.get("delta")
        if type(delta) is not dict:
            self._odd_delta(obj)
            return
        if delta.get("type") == "input_json_delta":
            fragment = delta.get("partial_json")
            if type(fragment) is str:
                self.parts.append(fragment)
        else:
            # string fields of other deltas grow the block's field of the same name
            # (compaction_delta `content`), joined once at the block's stop
            for key, value in delta.items():
                if key != "type" and type(value) is str:
                    grown = self.grown.get(key)
                    if grown is None:
                        current = self.block.get(key)
                        if current is not None and type(current) is not str:
                            continue
                        self.grown[key] = grown = [current] if current else []
                    grown.append(value)
        btype = self.block.get("type")
        self.session.side_event(btype if type(btype) is str else "unknown", "delta", self.block_id, delta)

    def _close_block(self, obj: dict[str, Any]) -> None:
        kind = self.kind
        self.index = -1
        self.implied = False
        self.hot_head = None
        if kind == _SIDE:
            self._close_side()
            return
        if kind == _TOOL and self.asm.open_kind != "tool_call":
            self._close_unnamed_call()
            return
        if kind == _THINKING and self.parts:
            self.asm.thinking("", {"signature": "".join(self.parts)})
        elif kind == _TEXT and self.citations:
            self.asm.text("", {"citations": self.citations})
            self.citations = []
        self.asm.close()

    def _close_side(self) -> None:
        block = self.block
        for key, grown in self.grown.items():
            block[key] = "".join(grown)
        if self.parts:
            joined = "".join(self.parts)
            if joined.strip():
                try:
                    block["input"] = parse_json(joined)
                except ValueError:
                    block["partial_json"] = joined
                    what = f"{shown(block.get('type'))} {self.block_id}"
                    self.session.note("side_input_not_json", f"input of {what} is not JSON")
        btype = block.get("type")
        self.session.side_event(btype if type(btype) is str else "unknown", "done", self.block_id, block)
        self.block = {}
        self.grown = {}
        self.parts = []

    def _close_unnamed_call(self) -> None:
        """A tool_use block implied by its deltas whose start never named it."""
        self.session.note("unnamed_tool_call", "a tool_use block never got a name: kept on the side channel")
        self.session.side_event(
            "tool_use", "done", None, {"type": "tool_use", "partial_json": "".join(self.parts)}
        )
        self.parts = []


_ACTIONS: Final[tuple[Callable[[Anthropic, dict[str, Any]], None], ...]] = tuple(
    getattr(Anthropic, "_" + name) for name in M.ACTIONS
)
