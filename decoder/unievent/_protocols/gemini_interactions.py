# Google Gemini Interactions API (`interaction.created`, `step.start` / `step.delta` /
# `step.stop`, `interaction.completed`, `[DONE]`).
#
# Frame lifecycle: the generated machine from machines/gemini_interactions.py.  A
# frame's kind is its `event_type` (else the `event:` name).  This module owns what a
# step means:
#
# - `thought`: thinking; `thought_summary` deltas (text, or an image: inline_thinking)
#   and a `summary` on the start; `thought_signature` deltas are joined and attached at
#   the step's stop as fidelity `{"signature": ...}` (an empty thinking.delta carries it
#   when the thought had no text);
# - `model_output`: text deltas (and `content` on the start), images and audio chunks
#   as inline_data (each image its own item, the audio chunks of a step one item; audio's
#   mime type `<mime>; rate=<sample_rate>; channels=<n>`, as MMSP writes it, each
#   parameter only when its field is a number; `data` is base64, read as the Gemini
#   records' is; an image or audio by `uri` has no bytes and goes to the side channel),
#   annotations gathered and attached to the text item at the stop as fidelity
#   `{"annotations": [...]}`;
# - `function_call`: a tool call (its `id`, else `call_<stream_id>_<index>`; `name`;
#   arguments whole from the start when not empty, else from `arguments_delta`s); a call
#   whose name never came is never a tool call (the side channel keeps it);
# - built-in tool steps (`google_search_call`, `code_execution_result`, ...) and step
#   types not invented yet go to the side channel (start, deltas, done), never a tool
#   call.
#
# Usage from `interaction.completed`: cached_tokens = total_cached_tokens, prompt_tokens
# = total_input_tokens - cached, thoughts_tokens = total_thought_tokens,
# response_tokens = total_output_tokens.  Finish from its status: completed is stop
# (whatever the content: a turn that waits on its calls says requires_action),
# requires_action tool_call, incomplete length, anything else unknown.
from __future__ import annotations

from typing import Any, ClassVar, Final

from unievent._events import FinishReason
from unievent._generated import gemini_interactions as M
from unievent._outcome import ProviderError
from unievent._protocols.gemini import wire_bytes
from unievent._session import MachineHandler, Session
from unievent._shared import as_dict, as_list, as_str, carries_content, json_text, shown
from unievent._usage_wire import UsageWire

__all__ = ["GeminiInteractions", "normalize_interactions_finish"]

_NEXT: Final = M.NEXT
_DO: Final = M.DO
_TERMINAL: Final = frozenset(s for s in range(len(M.STATES)) if M.ALLOWED[s] in ((), ("eof",)))

_KINDS: Final = {
    "interaction.created": M.SY_CREATED,
    "interaction.status_update": M.SY_STATUS,
    "interaction.in_progress": M.SY_STATUS,
    "interaction.requires_action": M.SY_STATUS,
    "step.start": M.SY_STEP_START,
    "step.delta": M.SY_STEP_DELTA,
    "step.stop": M.SY_STEP_STOP,
    "interaction.completed": M.SY_COMPLETED,
    "error": M.SY_ERROR,
    "done": M.SY_DONE_SENTINEL,
}
#: an interaction's usage counts (written back by _writers/gemini_interactions.py)
USAGE: Final = UsageWire(
    (
        (("total_input_tokens",), "prompt_raw"),
        (("total_cached_tokens",), "cached"),
        (("total_thought_tokens",), "thoughts"),
        (("total_output_tokens",), "response"),
    ),
    {"prompt_raw": ("prompt", "cached")},
)
# step kinds
_THOUGHT: Final = 0
_OUTPUT: Final = 1
_CALL: Final = 2
_SIDE: Final = 3
_STEP_KINDS: Final = {"thought": _THOUGHT, "model_output": _OUTPUT, "function_call": _CALL}
# the step a delta implies when its start never came
_IMPLIED_BY_DELTA: Final = {
    "text": "model_output",
    "image": "model_output",
    "audio": "model_output",
    "text_annotation_delta": "model_output",
    "text_annotation": "model_output",
    "thought_summary": "thought",
    "thought_signature": "thought",
    "arguments_delta": "function_call",
}
_FINISH_MAP: Final[dict[str, FinishReason]] = {
    "completed": "stop",
    "requires_action": "tool_call",
    "incomplete": "length",
}


def normalize_interactions_finish(native: str | None) -> FinishReason:
    """MMSP finish reason for an interaction's final status: completed is stop,
    requires_action tool_call, incomplete length, else unknown.  The status is kept
    whatever the content: the wire has a word for a turn that waits on its calls."""
    return _FINISH_MAP.get(native or "", "unknown")


def _count(value: Any) -> int | None:
    """A sample rate or channel count: a number (an int64 may come as its digits)."""
    if type(value) is int:
        return value
    if type(value) is str and value.isascii() and value.isdigit():
        return int(value)
    return None


# the content each delta type carries (see carries_content): a step's done content is made of these
_CONTENT_OF_DELTA: Final = {
    "text": "text",
    "thought_summary": "content",
    "thought_signature": "signature",
    "arguments_delta": "arguments",
    "image": "data",
    "audio": "data",
    "text_annotation_delta": "annotations",
    "text_annotation": "annotations",
}
# what a delta's content field may hold and add nothing (annotations extend by a list)
_NOTHING: Final[tuple[Any, ...]] = (None, "", [], {})


class GeminiInteractions(MachineHandler):
    """Protocol handler for `gemini_interactions` (see StreamDecoder)."""

    machine: ClassVar[Any] = M

    def __init__(self, session: Session) -> None:
        self.session = session
        self.asm = session.asm
        self.state = M.INITIAL
        self.index = -1  # the open step's index (-2: open, no usable index)
        self.last_index = -1
        self.kind = _SIDE
        self.step_type = ""
        self.step_id: str | None = None
        self.signature: list[str] = []
        self.annotations: list[Any] = []
        self.call_name = ""
        self.call_args_whole = False
        self.pending: list[str] = []  # arguments of a call not named (yet)

    # --- frames ---------------------------------------------------------------------

    def frame(self, event: str | None, obj: dict[str, Any]) -> bool:
        kind = obj.get("event_type")
        if type(kind) is not str:
            kind = event
        symbol = _KINDS.get(kind, -1) if type(kind) is str else -1
        if symbol < 0:
            if kind is None and not obj:
                return False
            name = kind if type(kind) is str else "unknown"
            self.session.note("unknown_frame", f"a frame of type {shown(name)} kept on the side channel")
            self.session.side_event(name, "info", None, obj)
            return False
        if symbol == M.SY_STEP_DELTA:
            symbol = self._delta_symbol(obj.get("index"))
            if symbol == M.SY_STALE_DELTA and not carries_content(obj.get("delta"), _CONTENT_OF_DELTA, _NOTHING):
                symbol = M.SY_LATE_EVENT
        elif symbol == M.SY_STEP_STOP:
            index = obj.get("index")
            if self.index == -1 or (type(index) is int and index != self.index):
                symbol = M.SY_STRAY_STOP
        elif symbol == M.SY_ERROR and type(obj.get("error")) is not dict:
            # how gateways' heartbeats arrive: an error event with no error in it
            self.session.note("empty_error_event", "an error event with no error object was skipped")
            return False
        state = self.state
        dest = _NEXT[state][symbol]
        if dest < 0:
            return self._undeclared(state, symbol, obj, kind)
        self.state = dest
        for action in _DO[state][symbol]:
            _ACTIONS[action](self, obj)
        return dest in _TERMINAL

    def _delta_symbol(self, index: Any) -> int:
        if index == self.index and type(index) is int:
            return M.SY_STEP_DELTA
        if type(index) is not int or index < 0:
            return M.SY_STEP_DELTA if self.index != -1 else M.SY_NEW_DELTA
        return M.SY_NEW_DELTA if index > self.last_index else M.SY_STALE_DELTA

    def done_sentinel(self) -> bool:
        dest = _NEXT[self.state][M.SY_DONE_SENTINEL]
        if dest >= 0:
            self.state = dest
        return True  # nothing after [DONE] is read

    def _undeclared(self, state: int, symbol: int, obj: dict[str, Any], kind: Any) -> bool:
        what = shown(kind)
        if symbol == M.SY_STALE_DELTA:
            what += f" for step {shown(obj.get('index'))}, which already stopped"
        return self.out_of_order(state, symbol, what, obj)

    def finish_reason(self) -> FinishReason:
        return normalize_interactions_finish(self.session.native_finish_reason)

    def at_end(self) -> None:
        """A thought cut short keeps its signature, a text its annotations."""
        if self.index != -1:
            self._attach()

    # --- the interaction --------------------------------------------------------------

    def _take_interaction(self, obj: dict[str, Any]) -> None:
        interaction = as_dict(obj.get("interaction"))
        model = interaction.get("model")
        if model and type(model) is str:
            self.session.model = model
        iid = interaction.get("id") or obj.get("interaction_id")
        if iid and type(iid) is str:
            self.session.take_response_id(iid)
            self.session.extras["interaction_id"] = iid  # read there before Outcome.response_id
        status = interaction.get("status") or obj.get("status")
        if status and type(status) is str:
            self.session.extras["status"] = status

    def _imply_interaction(self, obj: dict[str, Any]) -> None:
        self.session.note("implied_interaction_start", "the stream began without interaction.created")

    def _record_completed(self, obj: dict[str, Any]) -> None:
        self._take_interaction(obj)
        interaction = as_dict(obj.get("interaction"))
        status = interaction.get("status")
        self.session.native_finish_reason = status if status and type(status) is str else "completed"
        counts = USAGE.read(as_dict(interaction.get("usage")))
        cached = counts.get("cached")
        given = counts.pop("prompt_raw", None)
        self.session.set_usage(**counts, prompt=given - (cached or 0) if given is not None else None)

    def _record_error(self, obj: dict[str, Any]) -> None:
        error = as_dict(obj.get("error"))
        message = error.get("message")
        code = error.get("code")
        text = message if type(message) is str and message else json_text(error)
        code = code if type(code) in (str, int) else None
        self.session.fail(ProviderError(text, code if type(code) is str else None, code, error))

    # --- steps ------------------------------------------------------------------------

    def _take_index(self, index: Any) -> None:
        if type(index) is int and index >= 0:
            self.index = index
            self.last_index = max(self.last_index, index)
        else:
            self.index = -2

    def _open_step(self, obj: dict[str, Any]) -> None:
        self._start(obj.get("index"), as_dict(obj.get("step")))

    def _start(self, index: Any, step: dict[str, Any]) -> None:
        self._take_index(index)
        step_type = as_str(step.get("type")) or "unknown"
        kind = _STEP_KINDS.get(step_type, _SIDE)
        self.kind, self.step_type = kind, step_type
        self.signature = []
        self.annotations = []
        item_id = step.get("id")
        self.step_id = item_id if type(item_id) is str and item_id else None
        signature = step.get("signature")
        if signature and type(signature) is str:
            self.signature.append(signature)
        if kind == _THOUGHT:
            for content in as_list(step.get("summary")):
                self._content(content, thought=True)
        elif kind == _OUTPUT:
            for content in as_list(step.get("content")):
                self._content(content, thought=False)
        elif kind == _CALL:
            self._open_call(step)
        else:
            self.session.side_event(step_type, "start", self.step_id, step)

    def _open_call(self, step: dict[str, Any]) -> None:
        name = step.get("name")
        self.call_name = name if name and type(name) is str else ""
        self.pending = []
        arguments = step.get("arguments")
        self.call_args_whole = type(arguments) is dict and bool(arguments)
        if self.call_name:
            call_id = self.step_id or f"call_{self.session.stream_id}_{self.index if self.index >= 0 else 'x'}"
            fidelity = {"signature": "".join(self.signature)} if self.signature else None
            self.signature = []
            self.asm.tool_call(self.call_name, call_id, json_text(arguments) if self.call_args_whole else "", fidelity)

    def _imply_step(self, obj: dict[str, Any]) -> None:
        delta = as_dict(obj.get("delta"))
        dtype = delta.get("type")
        step_type = _IMPLIED_BY_DELTA.get(dtype, as_str(dtype) or "unknown") if type(dtype) is str else "unknown"
        what = f"a {shown(dtype)} delta for step {shown(obj.get('index'))}"
        self.session.note("implied_step_start", f"{what}, which never started")
        self._start(obj.get("index"), {"type": step_type})

    def _close_open_step(self, obj: dict[str, Any]) -> None:
        self.session.note("step_left_open", f"step {self.index} was still open at {shown(obj.get('event_type'))}")
        self._close_step(obj)

    def _note_stray_stop(self, obj: dict[str, Any]) -> None:
        self.session.note("stray_step_stop", f"step.stop for step {shown(obj.get('index'))}, which is not open")

    def _note_late_event(self, obj: dict[str, Any]) -> None:
        dtype = as_dict(obj.get("delta")).get("type")
        name = dtype if type(dtype) is str and dtype else "step.delta"
        self.session.note("late_event", f"{name[:60]} for step {shown(obj.get('index'))}, which already stopped")
        self.session.side_event(name, "info", None, obj)

    def _apply_delta(self, obj: dict[str, Any]) -> None:
        delta = as_dict(obj.get("delta"))
        dtype = delta.get("type")
        kind = self.kind
        if kind == _SIDE:
            self.session.side_event(self.step_type, "delta", self.step_id, delta)
        elif dtype == "text" and kind == _OUTPUT:
            text = delta.get("text")
            if type(text) is str:
                self.asm.text(text)
        elif dtype == "thought_summary" and kind == _THOUGHT:
            self._content(delta.get("content"), thought=True)
        elif dtype == "thought_signature":
            signature = delta.get("signature")
            if signature and type(signature) is str:
                self.signature.append(signature)
        elif dtype == "arguments_delta" and kind == _CALL:
            self._arguments(delta.get("arguments"))
        elif dtype in ("image", "audio") and kind == _OUTPUT:
            self._media(delta, dtype, thought=False)
        elif dtype in ("text_annotation_delta", "text_annotation") and kind == _OUTPUT:
            self.annotations.extend(as_list(delta.get("annotations")))
        else:
            name = dtype if type(dtype) is str else "unknown_delta"
            self.session.note("foreign_delta", f"{name[:60]} in a {self.step_type[:40]} step kept as a side event")
            self.session.side_event(name, "info", self.step_id, obj)

    def _content(self, content: Any, thought: bool) -> None:
        content = as_dict(content)
        ctype = content.get("type")
        if ctype == "text":
            text = content.get("text")
            if type(text) is str:
                if thought:
                    self.asm.thinking(text)
                else:
                    self.asm.text(text)
        elif ctype in ("image", "audio"):
            self._media(content, ctype, thought)
        elif content:
            self.session.side_event(as_str(ctype) or "content", "info", self.step_id, content)

    def _media(self, part: dict[str, Any], kind: str, thought: bool) -> None:
        given = part.get("data")
        if given is None and "uri" in part:
            self.session.side_event(kind, "info", self.step_id, part)  # a reference, no bytes to carry
            return
        data = wire_bytes(given) if type(given) is str else None
        mime = part.get("mime_type")
        mime = mime if mime and type(mime) is str else ("image/jpeg" if kind == "image" else "audio/wav")
        if data is None:
            self.session.note("inline_data_not_base64", f"{kind} data that is not base64 kept as a side event")
            self.session.side_event(kind, "info", self.step_id, part)
            return
        if kind == "audio":
            # `rate` is the deprecated name the API ignores: only `sample_rate` counts
            rate, channels = _count(part.get("sample_rate")), _count(part.get("channels"))
            if rate is not None:
                mime += f"; rate={rate}"
            if channels is not None:
                mime += f"; channels={channels}"
        if thought:
            self.asm.inline_thinking(data, mime)
        else:
            self.asm.inline_data(data, mime, new_item=kind == "image")

    def _arguments(self, fragment: Any) -> None:
        if not fragment or type(fragment) is not str:
            return
        if self.call_args_whole:
            self.session.note("late_arguments", f"function_call step {self.index} sent arguments after whole ones")
        elif self.call_name and self.asm.open_kind == "tool_call":
            self.asm.tool_arguments(fragment)
        else:
            self.pending.append(fragment)

    def _close_step(self, obj: dict[str, Any]) -> None:
        self._attach()
        kind = self.kind
        self.index = -1
        if kind == _SIDE:
            self.session.side_event(self.step_type, "done", self.step_id, obj)
            return
        if kind == _CALL and not self.call_name:
            self.session.note("unnamed_tool_call", "a function_call step never got a name; kept as a side event")
            self.session.side_event("function_call", "done", self.step_id, {"arguments": "".join(self.pending)})
            self.pending = []
            return
        if self.asm.open_kind is not None:
            self.asm.close()

    def _attach(self) -> None:
        """What waits for the step's close: a thought's signature, a text's annotations."""
        if self.signature and self.kind == _THOUGHT:
            fidelity = {"signature": "".join(self.signature)}
            if self.asm.open_kind in (None, "thinking"):
                self.asm.thinking("", fidelity)
            else:
                self.asm.fidelity(fidelity)  # an image thought: MMSP's fidelity-alone rule
        elif self.signature and self.kind == _SIDE:
            self.session.side_event(self.step_type, "info", self.step_id, {"signature": "".join(self.signature)})
        self.signature = []
        if self.annotations and self.asm.open_kind == "text":
            self.asm.text("", {"annotations": self.annotations})
        self.annotations = []


_ACTIONS: Final = tuple(getattr(GeminiInteractions, "_" + name) for name in M.ACTIONS)
