# Amazon Bedrock ConverseStream: event-stream frames named by their `:event-type`
# (AWS event-stream framing; `exception:<type>` and `error:<code>` frames fail).
#
# Frame lifecycle: the generated machine from machines/bedrock_converse.py.  `frame()`
# only classifies a frame into a symbol (by its event name; a contentBlockDelta is
# `block_delta`, `new_delta` or `stale_delta` by its contentBlockIndex, a
# contentBlockStop `block_stop` or `stray_stop`) and the table decides what is legal.
# This module owns what a block means:
#
# - a block that begins with its first delta (text and reasoning blocks have no start;
#   an empty `start` is the same): each `text` delta is text, each
#   `reasoningContent.text` thinking.  `reasoningContent.signature`s are joined and
#   attached at the block's stop as fidelity `{"signature": ...}` on one empty
#   thinking.delta; `reasoningContent.redactedContent` is Anthropic's convention, text
#   `_REDACTED_THINKING` with the opaque data under fidelity `signature`.  `citation`
#   deltas are gathered and attached at the stop to the text item as fidelity
#   `{"citations": [...]}`.  An empty delta (`{"text": ""}`) opens nothing.
# - `start.toolUse {toolUseId, name}`: a client tool call; `toolUse.input` fragments
#   are its arguments (none at all means `{}`).  With `type: "server_tool_use"` the
#   provider runs the tool itself: never a tool call, but the side channel's (start,
#   each delta, done with its `input` assembled), as are `start.toolResult` blocks and
#   kinds not invented yet.  An `image` block's `image.source.bytes` (base64) is
#   inline_data of the start's format.
#
# Each block's stop closes its item, so two text blocks stay two items.  The `p` field
# every payload carries (padding) is never read.
#
# The end: `messageStop.stopReason` end_turn and stop_sequence are stop, tool_use
# tool_call, max_tokens length, anything else (guardrail_intervened, content_filtered,
# malformed_*, model_context_window_exceeded, values not invented yet) unknown, the
# native value kept.  Usage comes in `metadata`, after the stop: prompt_tokens =
# inputTokens + cacheWriteInputTokens (inputTokens excludes the cache), cached_tokens =
# cacheReadInputTokens, response_tokens = outputTokens (Converse does not count
# reasoning apart); `metrics`, `trace`, `performanceConfig`, `serviceTier` and
# `messageStop.additionalModelResponseFields` are kept in extras.  An exception frame
# fails the stream with its type (`throttlingException`, ...) and message, and
# `originalStatusCode` as the code when it has one.
from __future__ import annotations

import binascii
from collections.abc import Callable
from typing import Any, ClassVar, Final

from unievent._events import FinishReason
from unievent._framing import FRAME_OK, FRAME_OVER
from unievent._generated import bedrock_converse as M
from unievent._ondemand import LETTERS_AND_DIGITS, Runs, interpreted, keeping, one_string, scan_back
from unievent._outcome import End, ProviderError
from unievent._protocols.anthropic import REDACTED_THINKING
from unievent._session import MachineHandler, Session
from unievent._shared import as_dict, as_int, code_of, parse_json, shown, str_or_none

__all__ = ["BedrockConverse", "failure_of", "hot_hole", "normalize_bedrock_finish"]

_NEXT: Final = M.NEXT
_DO: Final = M.DO
# states in which no further frame is read: the decoder stops feeding frames
_TERMINAL: Final = frozenset(s for s in range(len(M.STATES)) if _NEXT[s][M.SY_OTHER] < 0)

_FINISH_MAP: Final[dict[str, FinishReason]] = {
    "end_turn": "stop",
    "stop_sequence": "stop",
    "tool_use": "tool_call",
    "max_tokens": "length",
}
_EVENTS: Final[dict[str, int]] = {
    "messageStart": M.SY_MESSAGE_START,
    "contentBlockStart": M.SY_BLOCK_START,
    "contentBlockDelta": M.SY_BLOCK_DELTA,
    "contentBlockStop": M.SY_BLOCK_STOP,
    "messageStop": M.SY_MESSAGE_STOP,
    "metadata": M.SY_METADATA,
}
_EXTRAS: Final = (
    ("metrics", "metrics"),
    ("trace", "trace"),
    ("performanceConfig", "performance_config"),
    ("serviceTier", "service_tier"),
)
_DELTA: Final = M.SY_BLOCK_DELTA
_APPLY: Final = M.A_APPLY_DELTA
# states whose block_delta transition is "stay here and apply the delta" (from the table)
_DELTA_LOOPS: Final = frozenset(
    s for s in range(len(M.STATES)) if _NEXT[s][_DELTA] == s and _DO[s][_DELTA] == (_APPLY,)
)

# block kinds
_CONTENT: Final = 0
_TOOL: Final = 1
_SIDE: Final = 2
_IMAGE: Final = 3

# The hot deltas of a content block as Bedrock writes them (keys sorted): the frame up
# to its one string (the index filled in when the block opens), then the delta's
# closing braces and, mostly, the `p` padding (ASCII letters and digits).
_TEXT_HEAD: Final = b'{"contentBlockIndex":%d,"delta":{"text":'
_THINKING_HEAD: Final = b'{"contentBlockIndex":%d,"delta":{"reasoningContent":{"text":'
_TEXT_PADDED: Final = b'},"p":"'
_THINKING_PADDED: Final = b'}},"p":"'
# `isalnum` as one `translate`, which a compiled module makes without a method lookup
_ALNUM_TABLE: Final = keeping(LETTERS_AND_DIGITS)
# Compiled, the padding's start is found by a scan back over it, which is native code
# and costs a third of an `rfind` call; run as Python source, a loop over bytes is not
# (there `rfind` finds it, and one `translate` checks it).
_SCAN: Final = not interpreted()
_TEXT_RUN: Final = 0
_THINKING_RUN: Final = 1


def hot_hole(payload: bytes, head: bytes, closing: bytes, padded: bytes) -> bytes | None:
    """The bytes where a hot delta's string is: the payload is `head`, then one JSON
    string (`one_string` of the hole says whether it is), and `closing` + `}` or
    `padded` (`closing` + `,"p":"`) + ASCII letters and digits + `"}`; None when it is
    not so around the hole."""
    start = len(head)
    if not payload.startswith(head):  # compiled, a startswith makes no slice
        return None
    size = len(payload)
    if payload.endswith(b'"}'):
        # `padded` ends at the last byte before the closing `"}` that is no letter or digit
        if _SCAN:
            at = scan_back(payload, start, size - 2, _ALNUM_TABLE) - len(padded)
            if at < start or payload[at : at + len(padded)] != padded:
                return None
        else:
            at = payload.rfind(padded, start, size - 2)
            pad = payload[at + len(padded) : size - 2]
            if at < 0 or (pad and pad.translate(_ALNUM_TABLE) != pad):
                return None
        end = at
    elif payload.endswith(closing + b"}"):
        end = size - len(closing) - 1
    else:
        return None
    return payload[start:end]


def _hot_string(payload: bytes, head: bytes, closing: bytes, padded: bytes) -> str | None:
    """The string of a hot delta (see `hot_hole`), or None."""
    hole = hot_hole(payload, head, closing, padded)
    return None if hole is None else one_string(hole)


def normalize_bedrock_finish(native: str | None) -> FinishReason:
    """MMSP finish reason for a stopReason: end_turn and stop_sequence are `stop`,
    tool_use `tool_call`, max_tokens `length`, anything else (guardrail_intervened,
    content_filtered, malformed_*, model_context_window_exceeded, none) `unknown`."""
    return _FINISH_MAP.get(native, "unknown") if native is not None else "unknown"


def failure_of(event: str, obj: dict[str, Any]) -> ProviderError:
    """The error an `exception:<type>` or `error:<code>` frame reports (see the framing)."""
    kind = event.partition(":")[2] or "exception"
    message = obj.get("message") or obj.get("Message")
    text = message if type(message) is str and message else f"{kind} (no message)"
    return ProviderError(text, kind, code_of(obj.get("originalStatusCode")), obj)


def _carries_content(delta: Any) -> bool:
    """Whether a contentBlockDelta's delta would add to a block's content (text,
    reasoning text, a signature or redacted content, tool input, a citation): for a
    block that already stopped, that is a contradiction; any other delta (a kind nobody
    knows yet, an empty one) changes nothing done."""
    if type(delta) is not dict:
        return False
    if delta.get("text"):
        return True
    tool = delta.get("toolUse")
    if type(tool) is dict and tool.get("input"):
        return True
    reasoning = delta.get("reasoningContent")
    if type(reasoning) is dict and any(reasoning.get(key) for key in ("text", "signature", "redactedContent")):
        return True
    return delta.get("citation") is not None


class BedrockConverse(MachineHandler):
    """Protocol handler for `bedrock_converse` (see StreamDecoder)."""

    machine: ClassVar[Any] = M

    def __init__(self, session: Session) -> None:
        self.session = session
        self.asm = session.asm
        self.state = M.INITIAL
        # the open block
        self.index = -1  # -1: no block open (-2: open, with no usable index)
        self.last_index = -1  # the highest index this message has used
        self.kind = _CONTENT
        self.block: dict[str, Any] = {}  # the side-channel block, or the image start
        self.block_id: str | None = None
        self.parts: list[str] = []  # signature parts, or a side block's input fragments
        self.citations: list[Any] = []
        # on-demand parsing (see _ondemand.py): the open content block's delta heads
        self.text_head: bytes | None = None
        self.thinking_head = b""
        self.fast_frames = 0
        self.runs = Runs()  # the run taker's window (see _ondemand.Runs)

    # --- frames ---------------------------------------------------------------------

    def raw(self, event: str | None, payload: bytes) -> int:
        """The framer's sink: the open content block's text or reasoning-text delta is
        taken on demand (its head, one JSON string, the delta's closing braces, and a
        `p` of ASCII letters and digits or none: exactly the frame the full path would
        read as that delta); everything else is parsed whole."""
        text_head = self.text_head
        if text_head is not None and event == "contentBlockDelta" and self.state in _DELTA_LOOPS:
            if payload.startswith(text_head):
                value = _hot_string(payload, text_head, b"}", _TEXT_PADDED)
                if value is not None:
                    self.state = _NEXT[self.state][_DELTA]  # the table's loop: stay, apply_delta
                    self.asm.text(value)
                    self.fast_frames += 1
                    return FRAME_OK
            elif payload.startswith(self.thinking_head):
                value = _hot_string(payload, self.thinking_head, b"}}", _THINKING_PADDED)
                if value is not None:
                    self.state = _NEXT[self.state][_DELTA]
                    self.asm.thinking(value)
                    self.fast_frames += 1
                    return FRAME_OK
        obj = self.parse(event, payload)
        if isinstance(obj, int):
            return obj
        return FRAME_OVER if self.frame(event, obj) else FRAME_OK

    def raw_run(self, heads: list[bytes] | None, payloads: list[bytes], start: int) -> int:
        """The framer's run taker: the open block's hot deltas from `start` on, each
        exactly as `raw` takes it (a frame of another kind, or of another shape, is
        left to `raw`); the index of the first frame not taken."""
        text_head = self.text_head
        if text_head is None or heads is None or self.state not in _DELTA_LOOPS:
            return start
        first = payloads[start]
        if first.startswith(text_head):
            head, closing, padded, kind = text_head, b"}", _TEXT_PADDED, _TEXT_RUN
        elif first.startswith(self.thinking_head):
            head, closing, padded, kind = self.thinking_head, b"}}", _THINKING_PADDED, _THINKING_RUN
        else:
            return start
        holes: list[bytes] = []
        runs = self.runs
        for at in range(start, min(len(payloads), start + runs.window)):
            if heads[at] != b"contentBlockDelta":
                break
            hole = hot_hole(payloads[at], head, closing, padded)
            if hole is None:
                break
            holes.append(hole)
        values = runs.strings(holes)
        if values:  # the table's loop: stay, apply_delta (the state is one of _DELTA_LOOPS)
            if kind == _TEXT_RUN:
                self.asm.texts(values)
            else:
                self.asm.thinkings(values)
            self.fast_frames += len(values)
        return start + len(values)

    def frame(self, event: str | None, obj: dict[str, Any]) -> bool:
        if event == "contentBlockDelta":  # the hot path: the open block's delta
            index = obj.get("contentBlockIndex")
            if index == self.index and type(index) is int:
                state = self.state
                if state in _DELTA_LOOPS:  # the table's transition: stay, apply_delta
                    self.state = _NEXT[state][_DELTA]
                    self._apply_delta(event, obj)
                    return False
        symbol = self._symbol(event, obj)
        state = self.state
        dest = _NEXT[state][symbol]
        if dest < 0:
            return self._undeclared(state, symbol, obj, event)
        self.state = dest
        for action in _DO[state][symbol]:
            _ACTIONS[action](self, event or "", obj)
        return dest in _TERMINAL

    def _symbol(self, event: str | None, obj: dict[str, Any]) -> int:
        if event is None:
            return M.SY_OTHER
        symbol = _EVENTS.get(event)
        if symbol is None:
            return M.SY_ERROR if event.startswith(("exception:", "error:")) else M.SY_OTHER
        index = obj.get("contentBlockIndex")
        if symbol == _DELTA:
            if index == self.index and type(index) is int:
                return _DELTA
            if type(index) is not int or index < 0:
                return _DELTA if self.index != -1 else M.SY_NEW_DELTA
            if index > self.last_index:
                return M.SY_NEW_DELTA
            return M.SY_STALE_DELTA if _carries_content(obj.get("delta")) else M.SY_LATE_EVENT
        if symbol == M.SY_BLOCK_STOP and (self.index == -1 or (type(index) is int and index != self.index)):
            return M.SY_STRAY_STOP
        return symbol

    def done_sentinel(self) -> bool:
        """`[DONE]` is no frame of an event stream: it changes nothing."""
        return False

    def _undeclared(self, state: int, symbol: int, obj: dict[str, Any], event: str | None) -> bool:
        what = event or "frame without an event type"
        index = obj.get("contentBlockIndex")
        if symbol == M.SY_STALE_DELTA:
            what += f" for block {shown(index)}, which already stopped"
        elif state in (M.ST_STOPPED, M.ST_METERED):
            what += " after messageStop" if state == M.ST_STOPPED else " after metadata"
        return self.out_of_order(state, symbol, what, obj)

    def end(self) -> End:
        for action in _DO[self.state][M.SY_EOF]:
            _ACTIONS[action](self, "", {})
        return super().end()

    def finish_reason(self) -> FinishReason:
        return normalize_bedrock_finish(self.session.native_finish_reason)

    def at_end(self) -> None:
        """A text block cut short keeps its citations, a reasoning block its signature."""
        if self.index == -1 or self.kind != _CONTENT:
            return
        self._attach()

    # --- the message ----------------------------------------------------------------

    def _imply_message(self, event: str, obj: dict[str, Any]) -> None:
        self.session.note("implied_message_start", f"the stream began with {event or 'a frame'}, not messageStart")
        self._take_message(event, obj)

    def _take_message(self, event: str, obj: dict[str, Any]) -> None:
        self.index = -1
        self.last_index = -1

    def _record_stop(self, event: str, obj: dict[str, Any]) -> None:
        reason = obj.get("stopReason")
        if reason and type(reason) is str:
            self.session.native_finish_reason = reason
        fields = obj.get("additionalModelResponseFields")
        if fields is not None:
            self.session.extras["additional_model_response_fields"] = fields

    def _take_metadata(self, event: str, obj: dict[str, Any]) -> None:
        session = self.session
        usage = as_dict(obj.get("usage"))
        written = as_int(usage.get("cacheWriteInputTokens"))
        fresh = as_int(usage.get("inputTokens"))
        session.set_usage(
            cached=as_int(usage.get("cacheReadInputTokens")),
            prompt=fresh + (written or 0) if fresh is not None else None,
            response=as_int(usage.get("outputTokens")),
        )
        for key, name in _EXTRAS:
            value = obj.get(key)
            if value is not None:
                session.extras[name] = value

    def _note_no_metadata(self, event: str, obj: dict[str, Any]) -> None:
        self.session.note("no_metadata", "the body ended after messageStop without its metadata: no usage")

    def _record_error(self, event: str, obj: dict[str, Any]) -> None:
        self.session.fail(failure_of(event, obj))

    def _note_other(self, event: str, obj: dict[str, Any]) -> None:
        name = event or "unknown"
        self.session.note("unknown_frame", f"unknown event {name[:60]!r} kept on the side channel")
        self.session.side_event(name, "info", None, obj)

    # --- blocks ---------------------------------------------------------------------

    def _take_index(self, index: Any) -> None:
        self.text_head = None
        if type(index) is int and index >= 0:
            self.index = index
            self.last_index = max(self.last_index, index)
        else:
            self.index = -2

    def _open_block(self, event: str, obj: dict[str, Any]) -> None:
        self._take_index(obj.get("contentBlockIndex"))
        self.parts = []
        self.citations = []
        start = as_dict(obj.get("start"))
        tool = start.get("toolUse")
        if type(tool) is dict and tool.get("type") != "server_tool_use":
            name = tool.get("name")
            call_id = tool.get("toolUseId")
            if name and type(name) is str:
                self.kind = _TOOL
                if not call_id or type(call_id) is not str:
                    call_id = f"call_{self.session.stream_id}_{self.index if self.index >= 0 else 'x'}"
                self.asm.tool_call(name, call_id, "")
                return
            what = f"toolUse block {shown(obj.get('contentBlockIndex'))}"
            self.session.note("unnamed_tool_call", f"{what} has no name: kept as a side event")
        image = start.get("image")
        if type(image) is dict and len(start) == 1:
            self.kind = _IMAGE
            self.block = image
            return
        if not start:  # an empty start: the block is what its deltas are
            self._content()
            return
        self._open_side(start)

    def _open_side(self, start: dict[str, Any]) -> None:
        self.kind = _SIDE
        member = next(iter(start), "unknown")
        block = dict(as_dict(start.get(member)))
        kind = str_or_none(block.get("type")) or member
        block.setdefault("type", kind)
        item_id = block.get("toolUseId")
        self.block_id = item_id if type(item_id) is str else None
        self.block = block
        self.session.side_event(kind, "start", self.block_id, dict(block))

    def _content(self) -> None:
        """The open block is text or reasoning: its deltas may be taken on demand."""
        self.kind = _CONTENT
        if self.index >= 0:
            self.text_head = _TEXT_HEAD % self.index
            self.thinking_head = _THINKING_HEAD % self.index

    def _open_by_delta(self, event: str, obj: dict[str, Any]) -> None:
        self._take_index(obj.get("contentBlockIndex"))
        self.parts = []
        self.citations = []
        delta = as_dict(obj.get("delta"))
        if "toolUse" in delta:  # arguments with no start: no name to call
            what = f"toolUse input for block {shown(obj.get('contentBlockIndex'))}"
            self.session.note("unnamed_tool_call", f"{what}, which never started: kept as a side event")
            self._open_side({"toolUse": {}})  # its deltas are the side block's, text or not
        else:
            self._content()

    def _apply_delta(self, event: str, obj: dict[str, Any]) -> None:
        delta = obj.get("delta")
        if type(delta) is not dict:
            return
        kind = self.kind
        if kind == _CONTENT:
            text = delta.get("text")
            if type(text) is str:
                self.asm.text(text)
                return
            reasoning = delta.get("reasoningContent")
            if type(reasoning) is dict:
                self._reasoning(reasoning)
                return
            if "citation" in delta:
                self.citations.append(delta["citation"])
                return
        elif kind == _TOOL:
            tool = delta.get("toolUse")
            if type(tool) is dict:
                fragment = tool.get("input")
                if fragment and type(fragment) is str:
                    self.asm.tool_arguments(fragment)
                return
        elif kind == _SIDE:
            self._side_delta(delta)
            return
        else:  # an image
            image = delta.get("image")
            if type(image) is dict:
                self._image(image)
                return
        self._odd_delta(obj)

    def _reasoning(self, reasoning: dict[str, Any]) -> None:
        text = reasoning.get("text")
        if type(text) is str:
            self.asm.thinking(text)
        signature = reasoning.get("signature")
        if type(signature) is str:
            self.parts.append(signature)
        redacted = reasoning.get("redactedContent")
        if type(redacted) is str:
            self.asm.thinking(REDACTED_THINKING, {"signature": redacted})

    def _image(self, image: dict[str, Any]) -> None:
        data = as_dict(image.get("source")).get("bytes")
        try:
            raw = binascii.a2b_base64(data) if type(data) is str else None
        except (binascii.Error, ValueError):
            raw = None
        if raw is None:
            self.session.note("image_not_base64", "an image delta without base64 bytes was kept as a side event")
            self.session.side_event("image", "info", None, image)
            return
        fmt = self.block.get("format")
        self.asm.inline_data(raw, f"image/{fmt}" if fmt and type(fmt) is str else "application/octet-stream")

    def _odd_delta(self, obj: dict[str, Any]) -> None:
        """A delta this block kind does not know: kept, never dropped."""
        delta = as_dict(obj.get("delta"))
        name = next(iter(delta), "unknown_delta")
        self.session.note("foreign_delta", f"{name[:60]} in block {self.index} of another kind kept as a side event")
        self.session.side_event(name, "info", None, obj)

    def _side_delta(self, delta: dict[str, Any]) -> None:
        tool = delta.get("toolUse")
        if type(tool) is dict:
            fragment = tool.get("input")
            if type(fragment) is str:
                self.parts.append(fragment)
        elif "text" in delta or "reasoningContent" in delta:  # content in a block that is not
            what = f"{next(iter(delta))} in block {self.index}, a {self.block.get('type', 'side')} block,"
            self.session.note("foreign_delta", f"{what} kept as a side event")
        else:
            for member, value in delta.items():
                if type(value) is list and type(self.block.get(member, [])) is list:
                    self.block.setdefault(member, []).extend(value)  # a tool result's content
        self.session.side_event(str(self.block.get("type", "unknown")), "delta", self.block_id, delta)

    def _close_open_block(self, event: str, obj: dict[str, Any]) -> None:
        self.session.note("block_left_open", f"block {self.index} was still open at {event or 'a frame'}")
        self._close_block(event, obj)

    def _note_stray_stop(self, event: str, obj: dict[str, Any]) -> None:
        what = f"contentBlockStop for block {shown(obj.get('contentBlockIndex'))}"
        self.session.note("stray_block_stop", f"{what}, which is not open")

    def _note_late_event(self, event: str, obj: dict[str, Any]) -> None:
        what = f"{event} for block {shown(obj.get('contentBlockIndex'))}"
        self.session.note("late_event", f"{what}, which already stopped")
        self.session.side_event(event, "info", None, obj)

    def _attach(self) -> None:
        """The signature and citations a content block gathered go on its item."""
        if self.parts:
            self.asm.thinking("", {"signature": "".join(self.parts)})
            self.parts = []
        if self.citations:
            self.asm.text("", {"citations": self.citations})
            self.citations = []

    def _close_block(self, event: str, obj: dict[str, Any]) -> None:
        kind = self.kind
        self.index = -1
        self.text_head = None
        if kind == _SIDE:
            self._close_side()
            return
        if kind == _CONTENT:
            self._attach()
        self.asm.close()

    def _close_side(self) -> None:
        block = self.block
        if self.parts:
            joined = "".join(self.parts)
            if joined.strip():
                try:
                    block["input"] = parse_json(joined)
                except ValueError:
                    block["partial_input"] = joined
                    self.session.note("side_input_not_json", f"input of {shown(block.get('type'))} is not JSON")
        self.session.side_event(str(block.get("type", "unknown")), "done", self.block_id, block)
        self.block = {}
        self.block_id = None
        self.parts = []


_ACTIONS: Final[tuple[Callable[[BedrockConverse, str, dict[str, Any]], None], ...]] = tuple(
    getattr(BedrockConverse, "_" + name) for name in M.ACTIONS
)
