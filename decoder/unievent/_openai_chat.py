# OpenAI-compatible Chat Completions (`data: {chat.completion.chunk}` ... `[DONE]`).
#
# Frame lifecycle: the generated machine from machines/openai_chat.py.  This module
# owns the content of a chunk: which fields carry reasoning and text, how tool-call
# fragments find their call (index, else id, else position), when a call may be
# announced (MMSP needs its name and id on the first delta), usage and finish-reason
# mapping.  Gateway quirks absorbed here are listed beside the code that absorbs them.
from __future__ import annotations

from typing import Any, ClassVar

import orjson

from unievent._decoder import MachineHandler, StreamDecoder, register_protocol
from unievent._events import FinishReason
from unievent._generated import openai_chat as M
from unievent._grammar import parse_arguments
from unievent._outcome import ProviderError

__all__ = ["OpenAIChat", "error_of", "normalize_openai_finish"]

_NEXT = M.NEXT
_DO = M.DO
_APPLY = M.A_APPLY_CHUNK
_FINISH = M.A_RECORD_FINISH
_ERROR = M.A_RECORD_ERROR
_SY_CHUNK = M.SY_CHUNK
_SY_FINISH_CHUNK = M.SY_FINISH_CHUNK
# _APPLY_ONLY[state][symbol]: the transition's only action is apply_chunk (frame()
# runs it inline; everything else goes through _fire)
_APPLY_ONLY = tuple(tuple(actions == (_APPLY,) for actions in row) for row in _DO)
# states in which no further chunk is read: the decoder stops feeding frames
_TERMINAL = frozenset(s for s in range(len(M.STATES)) if _NEXT[s][M.SY_CHUNK] < 0)

_RF_CONTENT = {"reasoning_field": "reasoning_content"}
_RF_REASONING = {"reasoning_field": "reasoning"}

_FINISH_MAP: dict[str, FinishReason] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_call",
    "function_call": "tool_call",
}


def normalize_openai_finish(native: str | None, made_tool_calls: bool) -> FinishReason:
    """MMSP finish reason for a complete Chat stream.

    No reason at all means `tool_call` if the turn made tool calls, else `stop`; a
    plain `stop` on a turn that made tool calls is `tool_call` (gateways say stop);
    `content_filter` and anything unknown are `unknown`.
    """
    if native is None:
        return "tool_call" if made_tool_calls else "stop"
    reason = _FINISH_MAP.get(native, "unknown")
    if reason == "stop" and made_tool_calls:
        return "tool_call"
    return reason


def _message_of(value: Any, whole: dict[str, Any]) -> str:
    if isinstance(value, dict):
        message = value.get("message")
        if isinstance(message, str):
            return message
    if isinstance(value, str):
        return value
    return orjson.dumps(value if value is not None else whole).decode()


def error_of(event: str | None, obj: dict[str, Any]) -> ProviderError | None:
    """The provider error a frame reports, if any: a non-null top-level `error`
    (object or string), an `"object": "error"` body, or an `event: error` frame."""
    error = obj.get("error")
    if error is not None:
        if isinstance(error, dict):
            return ProviderError(
                _message_of(error, obj), _str_or_none(error.get("type")), _code(error.get("code")), error
            )
        return ProviderError(_message_of(error, obj), None, None, error)
    if obj.get("object") == "error" or event == "error":
        return ProviderError(_message_of(obj, obj), _str_or_none(obj.get("type")), _code(obj.get("code")), obj)
    return None


def _str_or_none(value: Any) -> str | None:
    return value if isinstance(value, str) else None


def _code(value: Any) -> str | int | None:
    return value if isinstance(value, (str, int)) and not isinstance(value, bool) else None


def _int(value: Any) -> int | None:
    return value if type(value) is int else None


class _Call:
    """One tool call being gathered: the block it routes to and what arrived."""

    __slots__ = ("args", "closed", "id", "name", "number", "open")

    def __init__(self, number: int) -> None:
        self.number = number
        self.id = ""
        self.name = ""
        self.args: list[str] = []
        self.open = False  # announced and its group is the open one
        self.closed = False  # announced and its group has closed


class OpenAIChat(MachineHandler):
    """Protocol handler for `openai_chat` (see StreamDecoder)."""

    machine: ClassVar[Any] = M

    def __init__(self, dec: StreamDecoder) -> None:
        self.dec = dec
        self.asm = dec.asm
        self.state = M.INITIAL
        self.calls: dict[int, _Call] = {}
        self.current: _Call | None = None
        self.made_calls = False
        self.model: str | None = None

    # --- frames ---------------------------------------------------------------------

    def frame(self, event: str | None, obj: dict[str, Any]) -> bool:
        if obj.get("error") is not None or event == "error":
            return self._fire(M.SY_ERROR, obj, None, event)
        choices = obj.get("choices")
        choice = choices[0] if type(choices) is list and choices else None
        if type(choice) is dict:
            finish = choice.get("finish_reason")
            symbol = _SY_FINISH_CHUNK if finish and type(finish) is str else _SY_CHUNK
        elif obj.get("object") == "error":  # vLLM and kin: a bare error object
            return self._fire(M.SY_ERROR, obj, None, event)
        else:
            choice = None
            symbol = _SY_CHUNK
        state = self.state
        if not _APPLY_ONLY[state][symbol]:
            return self._fire(symbol, obj, choice, event)
        self.state = _NEXT[state][symbol]  # the common case: the only action is apply_chunk
        self._apply_chunk(obj, choice)
        return False

    def done_sentinel(self) -> bool:
        return self._fire(M.SY_DONE_SENTINEL, {}, None, None)

    def _fire(self, symbol: int, obj: dict[str, Any], choice: dict[str, Any] | None, event: str | None) -> bool:
        state = self.state
        dest = _NEXT[state][symbol]
        if dest < 0:
            self.dec.anomalies.append(f"ignored {M.SYMBOLS[symbol]} in state {M.STATES[state]}")
            return state in _TERMINAL
        self.state = dest
        for action in _DO[state][symbol]:
            if action == _APPLY:
                self._apply_chunk(obj, choice)
            elif action == _FINISH:
                assert choice is not None
                self.dec.native_finish_reason = choice["finish_reason"]
            elif action == _ERROR:
                self.dec.fail(error_of(event, obj) or ProviderError("error event"))
                usage = obj.get("usage")
                if usage:
                    self._usage(usage)  # a failing gateway may still report usage
        return dest in _TERMINAL

    # --- one chunk ------------------------------------------------------------------

    def _apply_chunk(self, obj: dict[str, Any], choice: dict[str, Any] | None) -> None:
        model = obj.get("model")
        if model != self.model and model and type(model) is str:
            self.model = self.dec.model = model
        if obj.get("usage"):
            self._usage(obj["usage"])
        x_groq = obj.get("x_groq")
        if x_groq and type(x_groq) is dict and x_groq.get("usage"):
            self._usage(x_groq["usage"])
        if choice is None:
            return  # heartbeats, Azure prompt_filter_results, usage-only chunks
        delta = choice.get("delta")
        if type(delta) is not dict:
            delta = choice.get("message")
            if type(delta) is not dict:
                return
        content = delta.get("content")
        if len(delta) == 1 and content and type(content) is str:
            self.asm.text(content)  # most chunks: a bit of text and nothing else
            return
        # order within a chunk: reasoning, then text, then tool calls
        self._reasoning(delta)
        if content:
            if type(content) is str:
                self.asm.text(content)
            elif type(content) is list:
                self._typed_content(content)
        tool_calls = delta.get("tool_calls")
        if tool_calls and type(tool_calls) is list:
            self._tool_calls(tool_calls)

    def _reasoning(self, delta: dict[str, Any]) -> None:
        details = delta.get("reasoning_details")
        if details and type(details) is list:
            # OpenRouter: the details repeat `reasoning`'s text and add what replay
            # needs (signatures, encrypted blocks); they win when present.
            for block in details:
                if type(block) is dict:
                    self._reasoning_block(block)
            return
        from_content = delta.get("reasoning_content")
        from_reasoning = delta.get("reasoning")
        if from_content and type(from_content) is str:
            # both fields at once: the same text twice; replay then sends both, so no
            # reasoning_field is recorded
            self.asm.thinking(from_content, None if from_reasoning else _RF_CONTENT)
        elif from_reasoning and type(from_reasoning) is str:
            self.asm.thinking(from_reasoning, _RF_REASONING)

    def _reasoning_block(self, block: dict[str, Any]) -> None:
        kind = block.get("type")
        fmt = block.get("format")
        if kind == "reasoning.encrypted":
            fidelity: dict[str, Any] = {"encrypted_content": block.get("data")}
            if fmt:
                fidelity["format"] = fmt
            if block.get("id"):
                fidelity["reasoning_id"] = block["id"]
            self.asm.thinking("", fidelity)
            return
        text = block.get("text") if kind == "reasoning.text" else block.get("summary")
        if text and type(text) is str:
            self.asm.thinking(text)
        signature = block.get("signature")
        if signature and type(signature) is str:
            fidelity = {"signature": signature}
            if fmt:
                fidelity["format"] = fmt
            self.asm.thinking("", fidelity)

    def _typed_content(self, parts: list[Any]) -> None:
        # Mistral: content as a list of typed parts, thinking parts nesting text parts
        for part in parts:
            if type(part) is not dict:
                continue
            kind = part.get("type")
            if kind == "text" and type(part.get("text")) is str:
                self.asm.text(part["text"])
            elif kind == "thinking":
                inner = part.get("thinking")
                if type(inner) is str:
                    self.asm.thinking(inner)
                elif type(inner) is list:
                    for piece in inner:
                        if type(piece) is dict and type(piece.get("text")) is str:
                            self.asm.thinking(piece["text"])

    def _usage(self, usage: Any) -> None:
        if type(usage) is not dict:
            return
        prompt = _int(usage.get("prompt_tokens"))
        completion = _int(usage.get("completion_tokens"))
        details = usage.get("prompt_tokens_details")
        cached = _int(details.get("cached_tokens")) if type(details) is dict else None
        details = usage.get("completion_tokens_details")
        reasoning = _int(details.get("reasoning_tokens")) if type(details) is dict else None
        self.dec.set_usage(prompt_raw=prompt, completion_raw=completion, cached=cached, thoughts=reasoning)
        raw = self.dec.raw_usage
        # MMSP meaning: prompt excludes cache reads, response excludes reasoning
        if "prompt_raw" in raw:
            raw["prompt"] = raw["prompt_raw"] - raw.get("cached", 0)
        if "completion_raw" in raw:
            response = raw["completion_raw"] - raw.get("thoughts", 0)
            # some gateways count completion without the reasoning
            raw["response"] = response if response >= 0 else raw["completion_raw"]

    # --- tool calls -----------------------------------------------------------------

    def _tool_calls(self, tool_calls: list[Any]) -> None:
        for position, fragment in enumerate(tool_calls):
            if type(fragment) is not dict:
                continue
            call_id = fragment.get("id")
            call_id = call_id if call_id and type(call_id) is str else ""
            function = fragment.get("function")
            name = ""
            arguments = ""
            if type(function) is dict:
                name = function.get("name") or ""
                if type(name) is not str:
                    name = ""
                raw = function.get("arguments")
                if type(raw) is str:
                    arguments = raw
                elif type(raw) in (dict, list):
                    # some gateways send the arguments as an object: taken whole
                    arguments = orjson.dumps(raw).decode()
            call = self._route(fragment.get("index"), call_id, position)
            self._update(call, call_id, name, arguments)

    def _route(self, index: Any, call_id: str, position: int) -> _Call:
        calls = self.calls
        if type(index) is int and index >= 0:
            call = calls.get(index)
            if call is not None and call.id and call_id and call.id != call_id:
                # an index reused with another id is another call
                return self._by_id(call_id) or self._new_call(max(calls) + 1)
            return call if call is not None else self._new_call(index)
        if call_id:
            return self._by_id(call_id) or self._new_call(max(calls) + 1 if calls else 0)
        call = calls.get(position)
        return call if call is not None else self._new_call(position)

    def _by_id(self, call_id: str) -> _Call | None:
        for block in sorted(self.calls):
            if self.calls[block].id == call_id:
                return self.calls[block]
        return None

    def _new_call(self, block: int) -> _Call:
        call = _Call(len(self.calls))
        self.calls[block] = call
        return call

    def _update(self, call: _Call, call_id: str, name: str, arguments: str) -> None:
        if call_id and not call.id and not call.open and not call.closed:
            call.id = call_id
        if name and not call.name:
            call.name = name  # later names repeat the first: never joined
        if call.open and self.asm.open_kind != "tool_call":
            call.open, call.closed = False, True  # text or reasoning closed its group
        if call.open:
            if arguments:
                call.args.append(arguments)
                self.asm.tool_arguments(arguments)
            return
        if call.closed:
            if arguments:
                call.args.append(arguments)
                self.dec.anomalies.append(
                    f"tool call {call.id} got arguments after its group closed: {arguments[:80]!r}"
                )
            return
        if arguments:
            call.args.append(arguments)
        if call.name and (call.id or call.args) and self._current_may_close():
            self._announce(call)

    def _current_may_close(self) -> bool:
        """A newer call may start once the open one's arguments form a JSON object;
        until then fragments of other calls wait (gateways that interleave calls)."""
        current = self.current
        if current is None or not current.open:
            return True
        if self.asm.open_kind != "tool_call":
            current.open, current.closed = False, True
            return True
        joined = "".join(current.args)
        if joined.strip() and parse_arguments(joined) is not None:
            self.asm.close()
            current.open, current.closed = False, True
            return True
        return False

    def _announce(self, call: _Call) -> None:
        if not call.id:
            call.id = f"call_{self.dec.stream_id}_{call.number}"
        self.asm.tool_call(call.name, call.id, "".join(call.args))
        call.open = True
        self.current = call
        self.made_calls = True

    def before_stop(self) -> None:
        """Complete streams: calls still waiting are announced now, in order."""
        current = self.current
        if current is not None and current.open:
            if self.asm.open_kind == "tool_call":
                self.asm.close()
            current.open, current.closed = False, True
        for block in sorted(self.calls):
            call = self.calls[block]
            if call.open or call.closed:
                continue
            if not call.name:
                self.dec.anomalies.append(f"tool call at block {block} never got a name; dropped")
                continue
            self._announce(call)
            self.asm.close()
            call.open, call.closed = False, True

    def finish_reason(self) -> FinishReason:
        made_calls = self.made_calls or any(c.name for c in self.calls.values())
        return normalize_openai_finish(self.dec.native_finish_reason, made_calls)


register_protocol("openai_chat", OpenAIChat)
