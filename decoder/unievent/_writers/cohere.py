# Cohere v2 chat written from UniEvents (the reader is _protocols/cohere.py; both run
# machines/cohere.py).
#
# `message-start`, then one block per group by `index`: content blocks (`content-start`
# with `content.type` text or thinking, `content-delta`s, `content-end`; citations as
# `citation-start` / `citation-end` inside their text block), tool calls
# (`tool-call-start` with `id` and `function.name`, `tool-call-delta`s of arguments,
# `tool-call-end`); `message-end` with the finish reason and usage, then `[DONE]`.
from __future__ import annotations

from typing import Any, ClassVar

from unievent._events import DeltaItem, DoneItem, StopEvent, TextDelta, ThinkingDelta, ToolCallDelta
from unievent._generated import cohere as M
from unievent._outcome import ProviderError
from unievent._protocols.cohere import _FINISH_MAP, USAGE
from unievent._writers.base import Writer, sse_frame

__all__ = ["CohereWriter"]

NATIVE_FINISH: dict[str, str] = {mmsp: native for native, mmsp in reversed(_FINISH_MAP.items())}
NATIVE_FINISH["unknown"] = "TIMEOUT"


class CohereWriter(Writer):
    protocol: ClassVar[str] = "cohere"
    machine: ClassVar[Any] = M
    carries: ClassVar[frozenset[str]] = frozenset({"citations"})

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.index = -1
        self.citations = 0
        self.family = ""

    def _frame(self, symbol: int, kind: str, **fields: Any) -> None:
        self.step(symbol)
        self.write(sse_frame({"type": kind, **fields}, kind))

    def begin(self) -> None:
        message = {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": [], "citations": []}
        self._frame(M.SY_MESSAGE_START, "message-start", id=self.options.response_id, delta={"message": message})

    def open(self, first: DeltaItem) -> None:
        self.index += 1
        if type(first) in (TextDelta, ThinkingDelta):
            self.family = "content"
            kind = "text" if type(first) is TextDelta else "thinking"
            content = {"type": kind, kind: ""}
            self._frame(M.SY_BLOCK_START, "content-start", index=self.index, delta={"message": {"content": content}})
        elif type(first) is ToolCallDelta:
            self.family = "tool-call"
            call = {"id": first.tool_call_id, "type": "function", "function": {"name": first.name, "arguments": ""}}
            self._frame(M.SY_BLOCK_START, "tool-call-start", index=self.index, delta={"message": {"tool_calls": call}})
        else:
            self.index -= 1
            self.family = ""
            self.dropped.append(f"{first.type} (no place in Cohere's chat stream)")

    def delta(self, item: DeltaItem) -> None:
        if type(item) is TextDelta:
            if item.text:
                content = {"text": item.text}
                self._frame(
                    M.SY_BLOCK_DELTA, "content-delta", index=self.index, delta={"message": {"content": content}}
                )
            for citation in self.fidelity(item.fidelity).get("citations") or ():
                self._frame(
                    M.SY_CITATION_START,
                    "citation-start",
                    index=self.citations,
                    delta={"message": {"citations": citation}},
                )
                self._frame(M.SY_CITATION_END, "citation-end", index=self.citations)
                self.citations += 1
        elif type(item) is ThinkingDelta:
            self.fidelity(item.fidelity)
            if item.thinking:
                content = {"thinking": item.thinking}
                self._frame(
                    M.SY_BLOCK_DELTA, "content-delta", index=self.index, delta={"message": {"content": content}}
                )
        elif type(item) is ToolCallDelta:
            self.fidelity(item.fidelity)
            if item.arguments:
                call = {"function": {"arguments": item.arguments}}
                self._frame(
                    M.SY_BLOCK_DELTA, "tool-call-delta", index=self.index, delta={"message": {"tool_calls": call}}
                )

    def close(self, done: DoneItem) -> None:
        if self.family:
            end = "content-end" if self.family == "content" else "tool-call-end"
            self._frame(M.SY_BLOCK_END, end, index=self.index)
            self.family = ""

    def stop(self, event: StopEvent) -> None:
        self.dropped.extend(f"usage {name}" for name in ("thoughts_tokens",) if getattr(event.usage, name) is not None)
        usage = USAGE.write(event.usage)
        delta = {"finish_reason": NATIVE_FINISH[event.finish_reason], "usage": usage}
        self._frame(M.SY_MESSAGE_END, "message-end", delta=delta)

    def end(self) -> None:
        self.step(M.SY_DONE_SENTINEL)
        self.write(b"data: [DONE]\n\n")

    def fail(self, error: ProviderError) -> None:
        self._frame(M.SY_MESSAGE_END, "message-end", delta={"finish_reason": "ERROR", "error": error.message})
