# OpenAI-compatible Chat Completions written from UniEvents (the reader is
# _protocols/openai_chat.py; both run machines/openai_chat.py).
#
# Every chunk is `chat.completion.chunk` with one choice: text as `content`, thinking
# as `reasoning_content` (or `reasoning`, when that is the field it came in), tool
# calls by `index` with `id`, `type` and `function` on their first fragment.  The stop
# is a chunk with the finish reason, then (`include_usage`) a usage chunk with
# `choices: []`, then `data: [DONE]`.  Usage is written in the wire's meaning:
# `prompt_tokens` counts cache reads, `completion_tokens` reasoning.
from __future__ import annotations

from typing import Any, ClassVar

from unievent._events import DeltaItem, DoneItem, StopEvent, TextDelta, ThinkingDelta, ToolCallDelta, Usage
from unievent._generated import openai_chat as M
from unievent._outcome import ProviderError
from unievent._protocols.openai_chat import _FINISH_MAP, USAGE
from unievent._writers.base import Writer, sse_frame

__all__ = ["OpenAIChatWriter", "chat_usage"]

#: MMSP's finish reason as this wire says it (the reader's table, read backwards)
NATIVE_FINISH: dict[str, str] = {mmsp: native for native, mmsp in reversed(_FINISH_MAP.items())}
NATIVE_FINISH["unknown"] = "content_filter"


def chat_usage(usage: Usage) -> dict[str, Any]:
    """MMSP usage as a Chat Completions `usage` object (the reader's own table)."""
    return USAGE.write(usage)


class OpenAIChatWriter(Writer):
    protocol: ClassVar[str] = "openai_chat"
    machine: ClassVar[Any] = M
    carries: ClassVar[frozenset[str]] = frozenset(
        {"reasoning_field", "signature", "format", "encrypted_content", "reasoning_id", "annotations", "refusal"}
    )

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.calls = -1
        self.field = ""
        self.role_sent = False
        self.refusing = False  # the open text item is a refusal: its text goes in `refusal`

    def _chunk(self, delta: dict[str, Any] | None, finish: str | None = None, **top: Any) -> None:
        options = self.options
        body: dict[str, Any] = {
            "id": options.response_id,
            "object": "chat.completion.chunk",
            "created": options.created,
            "model": options.model,
        }
        if delta is not None:
            if not self.role_sent:
                delta = {"role": "assistant", **delta}
                self.role_sent = True
            body["choices"] = [{"index": 0, "delta": delta, "finish_reason": finish}]
        body.update(top)
        self.step(M.SY_FINISH_CHUNK if finish else M.SY_CHUNK)
        self.write(sse_frame(body))

    def open(self, first: DeltaItem) -> None:
        if type(first) is TextDelta:
            self.refusing = self.fidelity(first.fidelity).get("refusal") is True
        elif type(first) is ThinkingDelta:
            field = (first.fidelity or {}).get("reasoning_field")
            # the field it came in; else OpenRouter's reasoning_details, which carry signatures
            self.field = field if field in ("reasoning_content", "reasoning") else ""
        elif type(first) is ToolCallDelta:
            self.calls += 1

    def delta(self, item: DeltaItem) -> None:
        if type(item) is TextDelta:
            annotations = self.fidelity(item.fidelity).get("annotations")
            if item.text or annotations:
                delta: dict[str, Any] = {"refusal" if self.refusing else "content": item.text} if item.text else {}
                if annotations:
                    delta["annotations"] = annotations
                self._chunk(delta)
        elif type(item) is ThinkingDelta:
            self._thinking(item)
        elif type(item) is ToolCallDelta:
            self.fidelity(item.fidelity)
            call: dict[str, Any] = {"index": self.calls, "function": {"arguments": item.arguments}}
            if item.name:
                call = {
                    "index": self.calls,
                    "id": item.tool_call_id,
                    "type": "function",
                    "function": {"name": item.name, "arguments": item.arguments},
                }
            elif not item.arguments:
                return
            self._chunk({"tool_calls": [call]})
        else:
            self.dropped.append(f"{item.type} (no place in Chat Completions)")

    def _thinking(self, item: ThinkingDelta) -> None:
        kept = self.fidelity(item.fidelity)
        field = kept.get("reasoning_field")
        if field in ("reasoning_content", "reasoning"):
            self.field = field  # from the delta that named it on
        if self.field:
            if item.thinking:
                self._chunk({self.field: item.thinking})
            return
        details: list[dict[str, Any]] = []
        if item.thinking:
            details.append({"type": "reasoning.text", "text": item.thinking, "index": 0})
        if "encrypted_content" in kept:
            block = {"type": "reasoning.encrypted", "data": kept["encrypted_content"], "index": 0}
            block.update({k: kept[v] for k, v in (("format", "format"), ("id", "reasoning_id")) if v in kept})
            details.append(block)
        elif "signature" in kept:
            block = {"type": "reasoning.text", "signature": kept["signature"], "index": 0}
            if "format" in kept:
                block["format"] = kept["format"]
            details.append(block)
        if details:
            self._chunk({"reasoning_details": details})

    def close(self, done: DoneItem) -> None:
        pass

    def stop(self, event: StopEvent) -> None:
        self._chunk({}, NATIVE_FINISH[event.finish_reason])
        usage = chat_usage(event.usage)
        if self.options.include_usage and usage:
            self.step(M.SY_CHUNK)
            self.write(
                sse_frame(
                    {
                        "id": self.options.response_id,
                        "object": "chat.completion.chunk",
                        "created": self.options.created,
                        "model": self.options.model,
                        "choices": [],
                        "usage": usage,
                    }
                )
            )

    def end(self) -> None:
        self.step(M.SY_DONE_SENTINEL)
        self.write(b"data: [DONE]\n\n")

    def fail(self, error: ProviderError) -> None:
        self.step(M.SY_ERROR)
        body: dict[str, Any] = {"message": error.message, "type": error.type}
        if error.code is not None:
            body["code"] = error.code
        self.write(sse_frame({"error": body}))
