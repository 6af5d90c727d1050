# The Gemini Interactions API written from UniEvents (the reader is
# _protocols/gemini_interactions.py; both run machines/gemini_interactions.py).
#
# `interaction.created`, then one step per group by `index`: `thought` (its text as
# `thought_summary` deltas, the signature as a `thought_signature` delta),
# `model_output` (`text` deltas, annotations as a `text_annotation_delta`),
# `function_call` (its id and name on the start, `arguments_delta`s); each ends with
# `step.stop`.  `interaction.completed` carries the status (`completed`,
# `requires_action` for a tool call, `incomplete` for length) and the usage; then
# `event: done` with `[DONE]`.
from __future__ import annotations

from typing import Any, ClassVar

from unievent._events import DeltaItem, DoneItem, StopEvent, TextDelta, ThinkingDelta, ToolCallDelta, Usage
from unievent._generated import gemini_interactions as M
from unievent._outcome import ProviderError
from unievent._protocols.gemini_interactions import USAGE
from unievent._writers.base import Writer, sse_frame

__all__ = ["GeminiInteractionsWriter", "interactions_usage"]

STATUS_OF_FINISH: dict[str, str] = {
    "stop": "completed",
    "tool_call": "requires_action",
    "length": "incomplete",
    "unknown": "cancelled",
}


def interactions_usage(usage: Usage) -> dict[str, Any]:
    """MMSP usage as an interaction's `usage` (the reader's own table)."""
    return USAGE.write(usage)


class GeminiInteractionsWriter(Writer):
    protocol: ClassVar[str] = "gemini_interactions"
    machine: ClassVar[Any] = M
    carries: ClassVar[frozenset[str]] = frozenset({"signature", "annotations"})

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.index = -1
        self.open_step = False

    def _event(self, symbol: int, kind: str, **fields: Any) -> None:
        self.step(symbol)
        self.write(sse_frame({**fields, "event_type": kind}, kind))

    def _interaction(self, status: str, **fields: Any) -> dict[str, Any]:
        return {"id": self.options.response_id, "status": status, "model": self.options.model, **fields}

    def begin(self) -> None:
        self._event(M.SY_CREATED, "interaction.created", interaction=self._interaction("in_progress"))

    def open(self, first: DeltaItem) -> None:
        if type(first) is TextDelta:
            step: dict[str, Any] = {"type": "model_output"}
        elif type(first) is ThinkingDelta:
            step = {"type": "thought"}
        elif type(first) is ToolCallDelta:
            step = {"type": "function_call", "id": first.tool_call_id, "name": first.name, "arguments": {}}
        else:
            self.dropped.append(f"{first.type} (not written to the Interactions API)")
            return
        self.index += 1
        self.open_step = True
        self._event(M.SY_STEP_START, "step.start", index=self.index, step=step)

    def _delta(self, **delta: Any) -> None:
        self._event(M.SY_STEP_DELTA, "step.delta", index=self.index, delta=delta)

    def delta(self, item: DeltaItem) -> None:
        if not self.open_step:
            return
        if type(item) is TextDelta:
            if item.text:
                self._delta(type="text", text=item.text)
            annotations = self.fidelity(item.fidelity).get("annotations")
            if annotations:
                self._delta(type="text_annotation_delta", annotations=annotations)
        elif type(item) is ThinkingDelta:
            if item.thinking:
                self._delta(type="thought_summary", content={"type": "text", "text": item.thinking})
            signature = self.fidelity(item.fidelity).get("signature")
            if type(signature) is str and signature:
                self._delta(type="thought_signature", signature=signature)
        elif type(item) is ToolCallDelta:
            self.fidelity(item.fidelity)
            if item.arguments:
                self._delta(type="arguments_delta", arguments=item.arguments)

    def close(self, done: DoneItem) -> None:
        if self.open_step:
            self.open_step = False
            self._event(M.SY_STEP_STOP, "step.stop", index=self.index)

    def stop(self, event: StopEvent) -> None:
        interaction = self._interaction(STATUS_OF_FINISH[event.finish_reason], usage=interactions_usage(event.usage))
        self._event(M.SY_COMPLETED, "interaction.completed", interaction=interaction)

    def end(self) -> None:
        self.step(M.SY_DONE_SENTINEL)
        self.write(b"event: done\ndata: [DONE]\n\n")

    def fail(self, error: ProviderError) -> None:
        body: dict[str, Any] = {"message": error.message, "code": error.type or "internal"}
        self._event(M.SY_ERROR, "error", error=body)
