# Anthropic Messages (`message_start`, content blocks, `message_delta`, `message_stop`).
#
# Frame lifecycle: the generated machine from machines/anthropic.py.  `frame()` only
# classifies a frame into a symbol (its kind from the data's `type`, else the
# `event:` name; a delta or stop is `block_*` when its index is the open block's,
# `stray_*` otherwise) and the table decides what is legal; anything undeclared ends
# the stream `failed` with a protocol error naming the state and the event.  This
# module owns what a block means:
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
# - every other block type (server_tool_use, *_tool_result, mcp_tool_use/result,
#   compaction, types not invented yet): provider-side activity, never a tool call:
#   side events `start` (the block), `delta` (each delta object) and `done` (the block
#   with its `input` assembled from the input_json fragments and string fields of
#   other deltas appended, e.g. compaction's `content`).
#
# Each block's stop closes its item, so two text blocks stay two items.
from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

import orjson

from unievent._decoder import MachineHandler, StreamDecoder, register_protocol
from unievent._events import FinishReason
from unievent._generated import anthropic as M
from unievent._openai_chat import error_of
from unievent._outcome import ProviderError

__all__ = ["Anthropic", "normalize_anthropic_finish"]

_NEXT = M.NEXT
_DO = M.DO
# states in which no further frame is read: the decoder stops feeding frames
_TERMINAL = frozenset(s for s in range(len(M.STATES)) if _NEXT[s][M.SY_PING] < 0)

REDACTED_THINKING = "_REDACTED_THINKING"

_FINISH_MAP: dict[str, FinishReason] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "max_tokens": "length",
    "tool_use": "tool_call",
}

# frame kind -> symbol; the three block kinds are refined by index in frame()
_KINDS: dict[str, int] = {
    "message_start": M.SY_MESSAGE_START,
    "content_block_start": M.SY_BLOCK_START,
    "content_block_delta": M.SY_BLOCK_DELTA,
    "content_block_stop": M.SY_BLOCK_STOP,
    "message_delta": M.SY_MESSAGE_DELTA,
    "message_stop": M.SY_MESSAGE_STOP,
    "ping": M.SY_PING,
    "error": M.SY_ERROR,
}
_DELTA = M.SY_BLOCK_DELTA
_STRAY_DELTA = M.SY_STRAY_DELTA
_APPLY = M.A_APPLY_DELTA
_STOP = M.SY_BLOCK_STOP
_START = M.SY_BLOCK_START
_MESSAGE_DELTA = M.SY_MESSAGE_DELTA
# states whose block_delta transition is "stay here and apply the delta" (from the table)
_DELTA_LOOPS = frozenset(s for s in range(len(M.STATES)) if _NEXT[s][_DELTA] == s and _DO[s][_DELTA] == (_APPLY,))

# block kinds
_TEXT, _THINKING, _REDACTED, _TOOL, _SIDE = range(5)
_BLOCK_KINDS = {"text": _TEXT, "thinking": _THINKING, "redacted_thinking": _REDACTED, "tool_use": _TOOL}


def normalize_anthropic_finish(native: str | None) -> FinishReason:
    """MMSP finish reason for a stop_reason: end_turn and stop_sequence are `stop`,
    max_tokens `length`, tool_use `tool_call`, anything else (pause_turn, refusal,
    model_context_window_exceeded, unknown, none) `unknown`."""
    if native is None:
        return "unknown"
    return _FINISH_MAP.get(native, "unknown")


def _int(value: Any) -> int | None:
    return value if type(value) is int else None


class Anthropic(MachineHandler):
    """Protocol handler for `anthropic` (see StreamDecoder)."""

    machine: ClassVar[Any] = M

    def __init__(self, dec: StreamDecoder) -> None:
        self.dec = dec
        self.asm = dec.asm
        self.state = M.INITIAL
        # the open block
        self.index = -1  # -1: no block open
        self.kind = _SIDE
        self.block: dict[str, Any] = {}  # the side-channel block being assembled
        self.block_id: str | None = None
        self.parts: list[str] = []  # signature parts, or a side block's input JSON
        self.citations: list[Any] = []
        self.args_whole = False  # the tool_use start carried its input
        self.calls = 0
        self.on_delta: Callable[[dict[str, Any]], None] = self._block_delta

    # --- frames ---------------------------------------------------------------------

    def frame(self, event: str | None, obj: dict[str, Any]) -> bool:
        kind = obj.get("type")
        if kind == "content_block_delta":  # the hot path: one comparison to a symbol
            index = obj.get("index")
            if index == self.index and type(index) is int:
                state = self.state
                if state in _DELTA_LOOPS:  # the table's transition: stay, apply_delta
                    self.state = _NEXT[state][_DELTA]
                    self.on_delta(obj)
                    return False
                symbol = _DELTA
            else:
                symbol = _STRAY_DELTA
        else:
            if type(kind) is not str:
                kind = event
            symbol = _KINDS.get(kind, -1) if kind is not None else -1
            if symbol in (_DELTA, _STOP):
                index = obj.get("index")
                if type(index) is not int or index != self.index:
                    symbol += _STRAY_DELTA - _DELTA
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

    def done_sentinel(self) -> bool:
        state = self.state
        dest = _NEXT[state][M.SY_DONE_SENTINEL]
        if dest < 0:
            return self._undeclared(state, M.SY_DONE_SENTINEL, {}, "[DONE]")
        self.state = dest
        return dest in _TERMINAL

    def _undeclared(self, state: int, symbol: int, obj: dict[str, Any], kind: str | None) -> bool:
        what = kind or "frame without a type"
        if symbol in (M.SY_STRAY_DELTA, M.SY_STRAY_STOP):
            index = obj.get("index")
            what += f" for block {index!r}, " + (
                f"but block {self.index} is open" if self.index >= 0 else "but no block is open"
            )
        elif symbol == _START and self.index >= 0:
            what += f" for block {obj.get('index')!r} while block {self.index} is open"
        allowed = ", ".join(M.ALLOWED[state])
        self.dec.fail(
            ProviderError(
                f"out-of-order event: {what} ({M.SYMBOLS[symbol]}) in state {M.STATES[state]!r}; allowed: {allowed}",
                "protocol_error",
                None,
                obj,
            )
        )
        self.state = M.ST_FAILED
        return True

    def before_stop(self) -> None:
        """Nothing waits: every block closed its item at its own stop."""

    def finish_reason(self) -> FinishReason:
        return normalize_anthropic_finish(self.dec.native_finish_reason)

    # --- message --------------------------------------------------------------------

    def _take_message(self, obj: dict[str, Any]) -> None:
        self.index = -1
        message = obj.get("message")
        if type(message) is not dict:
            return
        model = message.get("model")
        if model and type(model) is str:
            self.dec.model = model
        self._usage(message.get("usage"))

    def _take_usage(self, obj: dict[str, Any]) -> None:
        self._usage(obj.get("usage"))

    def _usage(self, usage: Any) -> None:
        if type(usage) is not dict:
            return
        details = usage.get("output_tokens_details")
        thinking = _int(details.get("thinking_tokens")) if type(details) is dict else None
        dec = self.dec
        dec.set_usage(
            input_raw=_int(usage.get("input_tokens")),
            creation_raw=_int(usage.get("cache_creation_input_tokens")),
            cached=_int(usage.get("cache_read_input_tokens")),
            output_raw=_int(usage.get("output_tokens")),
            thoughts=thinking,  # a gateway field; Anthropic itself never splits it out
        )
        raw = dec.raw_usage
        # MMSP meaning: prompt = tokens read fresh (input + cache writes), response =
        # output without the reasoning when the provider breaks it out
        if "input_raw" in raw:
            raw["prompt"] = raw["input_raw"] + raw.get("creation_raw", 0)
        if "output_raw" in raw:
            response = raw["output_raw"] - raw.get("thoughts", 0)
            raw["response"] = response if response >= 0 else raw["output_raw"]

    def _record_finish(self, obj: dict[str, Any]) -> None:
        self.dec.native_finish_reason = obj["delta"]["stop_reason"]

    def _record_error(self, obj: dict[str, Any]) -> None:
        error = error_of("error", obj)
        if error is not None and error.type is None and type(obj.get("error")) is not dict:
            error = ProviderError(error.message, "error", error.code, error.raw)
        self.dec.fail(error or ProviderError("error event", "error"))

    def _note_other(self, obj: dict[str, Any]) -> None:
        kind = obj.get("type")
        kind = kind if type(kind) is str else "unknown"
        self.dec.anomalies.append(f"unknown frame type {kind!r} kept on the side channel")
        self.dec.side_event(kind, "info", None, obj)

    # --- blocks ---------------------------------------------------------------------

    def _open_block(self, obj: dict[str, Any]) -> None:
        index = obj.get("index")
        self.index = index if type(index) is int and index >= 0 else -2  # -2: no later frame matches
        block = obj.get("content_block")
        if type(block) is not dict:
            block = {}
        btype = block.get("type")
        kind = _BLOCK_KINDS.get(btype, _SIDE) if type(btype) is str else _SIDE
        self.kind = kind
        self.parts = []
        if kind == _TEXT:
            self.on_delta = self._text_delta
            self.citations = []
            cited = block.get("citations")
            if type(cited) is list:
                self.citations.extend(cited)
            text = block.get("text")
            if text and type(text) is str:
                self.asm.text(text)
        elif kind == _THINKING:
            self.on_delta = self._thinking_delta
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
            call_id = block.get("id")
            if not name or type(name) is not str:
                self.kind = _SIDE
                self.dec.anomalies.append(f"tool_use block {index!r} has no name: kept on the side channel")
                self._open_side(block)
                return
            self.on_delta = self._tool_delta
            self.calls += 1
            if not call_id or type(call_id) is not str:
                call_id = f"call_{self.dec.stream_id}_{self.calls - 1}"
            given = block.get("input")
            self.args_whole = bool(given) and type(given) is dict
            self.asm.tool_call(name, call_id, orjson.dumps(given).decode() if self.args_whole else "")
        else:
            self._open_side(block)

    def _open_side(self, block: dict[str, Any]) -> None:
        self.on_delta = self._block_delta
        item_id = block.get("id") or block.get("tool_use_id")
        self.block_id = item_id if type(item_id) is str else None
        self.block = dict(block)
        btype = block.get("type")
        self.dec.side_event(btype if type(btype) is str else "unknown", "start", self.block_id, block)

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
            if fragment and type(fragment) is str:
                if self.args_whole:
                    self.dec.anomalies.append(
                        f"tool_use block {self.index} sent input fragments after a whole input: {fragment[:80]!r}"
                    )
                else:
                    self.asm.tool_arguments(fragment)
            return
        self._odd_delta(obj)

    def _odd_delta(self, obj: dict[str, Any]) -> None:
        """A delta this block kind does not know (or no delta object): kept, never dropped."""
        delta = obj.get("delta")
        dtype = delta.get("type") if type(delta) is dict else None
        name = dtype if type(dtype) is str else "unknown_delta"
        self.dec.anomalies.append(f"{name} in block {self.index} of another kind kept on the side channel")
        self.dec.side_event(name, "info", None, obj)

    def _block_delta(self, obj: dict[str, Any]) -> None:
        delta = obj.get("delta")
        if type(delta) is not dict:
            self._odd_delta(obj)
            return
        self._side_delta(delta, delta.get("type"))

    def _side_delta(self, delta: dict[str, Any], dtype: Any) -> None:
        block = self.block
        if dtype == "input_json_delta":
            fragment = delta.get("partial_json")
            if type(fragment) is str:
                self.parts.append(fragment)
        else:
            # string fields of other deltas grow the block's field of the same name
            # (compaction_delta `content`)
            for key, value in delta.items():
                if key != "type" and type(value) is str:
                    current = block.get(key)
                    if current is None or type(current) is str:
                        block[key] = (current or "") + value
        btype = block.get("type")
        self.dec.side_event(btype if type(btype) is str else "unknown", "delta", self.block_id, delta)

    def _close_block(self, obj: dict[str, Any]) -> None:
        kind = self.kind
        self.index = -1
        if kind == _SIDE:
            block = self.block
            if self.parts:
                joined = "".join(self.parts)
                if joined.strip():
                    try:
                        block["input"] = orjson.loads(joined)
                    except orjson.JSONDecodeError:
                        block["partial_json"] = joined
                        self.dec.anomalies.append(f"input of {block.get('type')} {self.block_id} is not JSON")
            btype = block.get("type")
            self.dec.side_event(btype if type(btype) is str else "unknown", "done", self.block_id, block)
            self.block = {}
            return
        if kind == _THINKING and self.parts:
            self.asm.thinking("", {"signature": "".join(self.parts)})
        elif kind == _TEXT and self.citations:
            self.asm.text("", {"citations": self.citations})
            self.citations = []
        self.asm.close()


_ACTIONS: tuple[Callable[[Anthropic, dict[str, Any]], None], ...] = tuple(
    getattr(Anthropic, "_" + name) for name in M.ACTIONS
)


register_protocol("anthropic", Anthropic)
