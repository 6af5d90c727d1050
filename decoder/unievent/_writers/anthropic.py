# Anthropic Messages written from UniEvents (the reader is _protocols/anthropic.py;
# both run machines/anthropic.py).
#
# `message_start`, then one content block per group with its own index: text
# (`text_delta`, citations as `citations_delta`), thinking (`thinking_delta`, the
# signature as `signature_delta`; MMSP's redacted convention as a `redacted_thinking`
# block with its data), tool_use (`input_json_delta`); `message_delta` with the stop
# reason and usage, `message_stop`.  message_start carries zero counts (the SDKs read
# them), so a count the source did not report comes back as 0.
from __future__ import annotations

from typing import Any, ClassVar, Final

import orjson

from unievent._events import DeltaItem, DoneItem, StopEvent, TextDelta, ThinkingDelta, ToolCallDelta, Usage
from unievent._generated import anthropic as M
from unievent._outcome import ProviderError
from unievent._protocols.anthropic import _FINISH_MAP, REDACTED_THINKING, USAGE
from unievent._writers.base import Writer, sse_frame

__all__ = ["AnthropicWriter", "anthropic_usage"]

NATIVE_FINISH: dict[str, str] = {mmsp: native for native, mmsp in reversed(_FINISH_MAP.items())}

_DELTA_HEAD: Final = b'event: content_block_delta\ndata: {"type":"content_block_delta","index":'
_TEXT_DELTA: Final = b',"delta":{"type":"text_delta","text":'
_THINKING_DELTA: Final = b',"delta":{"type":"thinking_delta","thinking":'

NATIVE_FINISH["unknown"] = "refusal"


def anthropic_usage(usage: Usage) -> dict[str, Any]:
    """MMSP usage as a message_delta `usage` object (the reader's own table)."""
    return USAGE.write(usage)


class AnthropicWriter(Writer):
    protocol: ClassVar[str] = "anthropic"
    machine: ClassVar[Any] = M
    carries: ClassVar[frozenset[str]] = frozenset({"signature", "citations"})

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.index = -1
        self.redacted = False

    def _frame(self, symbol: int, kind: str, **fields: Any) -> None:
        self.step(symbol)
        self.write(sse_frame({"type": kind, **fields}, kind))

    def begin(self) -> None:
        message: dict[str, Any] = {
            "id": self.options.response_id,
            "type": "message",
            "role": "assistant",
            "model": self.options.model,
            "content": [],
            "stop_reason": None,
            "stop_sequence": None,
            "usage": {"input_tokens": 0, "output_tokens": 0},
        }
        self._frame(M.SY_MESSAGE_START, "message_start", message=message)
        if self.options.pings:
            self._frame(M.SY_PING, "ping")

    def open(self, first: DeltaItem) -> None:
        self.index += 1
        self.redacted = False
        if type(first) is TextDelta:
            block: dict[str, Any] = {"type": "text", "text": ""}
        elif type(first) is ThinkingDelta:
            signature = self.fidelity(first.fidelity).get("signature")
            if first.thinking == REDACTED_THINKING and type(signature) is str:
                self.redacted = True
                block = {"type": "redacted_thinking", "data": signature}
            else:
                block = {"type": "thinking", "thinking": "", "signature": ""}
        elif type(first) is ToolCallDelta:
            block = {"type": "tool_use", "id": first.tool_call_id, "name": first.name, "input": {}}
        else:
            self.dropped.append(f"{first.type} (no place in Anthropic Messages)")
            self.index -= 1
            return
        self._frame(M.SY_BLOCK_START, "content_block_start", index=self.index, content_block=block)

    def _delta(self, **delta: Any) -> None:
        self._frame(M.SY_BLOCK_DELTA, "content_block_delta", index=self.index, delta=delta)

    def _text(self, kind: bytes, text: str) -> None:
        """A text or thinking delta, written from a template: the frame _delta would
        write, byte for byte (tests/test_encode.py checks the two agree)."""
        self.step(M.SY_BLOCK_DELTA)
        self.write(_DELTA_HEAD + str(self.index).encode() + kind + orjson.dumps(text) + b"}}\n\n")

    def delta(self, item: DeltaItem) -> None:
        if type(item) is TextDelta:
            if item.text:
                self._text(_TEXT_DELTA, item.text)
            for citation in self.fidelity(item.fidelity).get("citations") or ():
                self._delta(type="citations_delta", citation=citation)
        elif type(item) is ThinkingDelta:
            if self.redacted:
                return
            if item.thinking:
                self._text(_THINKING_DELTA, item.thinking)
            signature = self.fidelity(item.fidelity).get("signature")
            if type(signature) is str and signature:
                self._delta(type="signature_delta", signature=signature)
        elif type(item) is ToolCallDelta:
            self.fidelity(item.fidelity)
            if item.arguments:
                self._delta(type="input_json_delta", partial_json=item.arguments)

    def close(self, done: DoneItem) -> None:
        if done.kind in ("text", "thinking", "tool_call"):
            self._frame(M.SY_BLOCK_STOP, "content_block_stop", index=self.index)

    def stop(self, event: StopEvent) -> None:
        self._frame(
            M.SY_FINISH_DELTA,
            "message_delta",
            delta={"stop_reason": NATIVE_FINISH[event.finish_reason], "stop_sequence": None},
            usage=anthropic_usage(event.usage),
        )
        self._frame(M.SY_MESSAGE_STOP, "message_stop")

    def fail(self, error: ProviderError) -> None:
        self._frame(M.SY_ERROR, "error", error={"type": error.type or "api_error", "message": error.message})

    def keep_alive(self) -> bytes:
        self._frame(M.SY_PING, "ping")
        return self.take()
