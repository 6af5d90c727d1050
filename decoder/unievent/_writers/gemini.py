# Google Gemini streamGenerateContent written from UniEvents (the reader is
# _protocols/gemini.py; both run machines/gemini.py).
#
# One record per delta, each one candidate with one part: text, thinking
# (`thought: true`), inline data (base64), a function call whole at its done (`args` the
# parsed arguments, `id` the call's id); a signature rides as `thoughtSignature` on the
# part of the item it came on, and a text's logprobs (fidelity `logprobs`,
# `top_logprobs`, `avg_logprobs`) as the candidate's `logprobsResult` and `avgLogprobs`
# of the record of the delta that carries them.  The last record has the finish reason and
# `usageMetadata`.  As SSE (`data: <record>` and CRLF CRLF, what `alt=sse` sends) or as
# one JSON array (`framing="json_array"`).
from __future__ import annotations

import base64
from typing import Any, ClassVar

import orjson

from unievent._events import (
    DeltaItem,
    DoneItem,
    InlineDataDelta,
    InlineThinkingDelta,
    StopEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallDone,
    Usage,
)
from unievent._generated import gemini as M
from unievent._outcome import ProviderError
from unievent._protocols.gemini import USAGE
from unievent._writers.base import RAW, Writer, raw_arguments, with_raw

__all__ = ["GeminiWriter", "gemini_usage"]

#: MMSP's finish reason as Gemini says it (STOP also ends a turn that called tools)
NATIVE_FINISH: dict[str, str] = {"stop": "STOP", "tool_call": "STOP", "length": "MAX_TOKENS", "unknown": "OTHER"}


def gemini_usage(usage: Usage) -> dict[str, Any]:
    """MMSP usage as `usageMetadata` (the reader's own table)."""
    return USAGE.write(usage)


def _logprobs(kept: dict[str, Any]) -> dict[str, Any]:
    """A text's logprobs fidelity as the candidate's fields (those it has)."""
    fields: dict[str, Any] = {}
    pairs = (("logprobs", "chosenCandidates"), ("top_logprobs", "topCandidates"))
    result = {wire: kept[key] for key, wire in pairs if key in kept}
    if result:
        fields["logprobsResult"] = result
    if "avg_logprobs" in kept:
        fields["avgLogprobs"] = kept["avg_logprobs"]
    return fields


class GeminiWriter(Writer):
    protocol: ClassVar[str] = "gemini"
    machine: ClassVar[Any] = M
    finish_from_calls = True
    carries: ClassVar[frozenset[str]] = frozenset({"signature", "logprobs", "top_logprobs", "avg_logprobs"})

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.array = self.options.framing == "json_array"
        self.records = 0
        self.arguments: list[str] = []

    def _record(self, record: dict[str, Any], symbol: int, raw: str = "") -> None:
        self.step(symbol)
        record.setdefault("modelVersion", self.options.model)
        record.setdefault("responseId", self.options.response_id)
        body = with_raw(record, raw) if raw else orjson.dumps(record)
        if self.array:
            self.write((b"[" if self.records == 0 else b",\r\n") + body)
        else:
            self.write(b"data: " + body + b"\r\n\r\n")
        self.records += 1

    def _part(self, part: dict[str, Any], fidelity: Any, raw: str = "") -> None:
        kept = self.fidelity(fidelity)
        signature = kept.get("signature")
        if type(signature) is str:
            part["thoughtSignature"] = signature
        candidate: dict[str, Any] = {"content": {"role": "model", "parts": [part]}, "index": 0}
        if "text" in part and "thought" not in part:
            candidate.update(_logprobs(kept))
        self._record({"candidates": [candidate]}, M.SY_RECORD, raw)

    def delta(self, item: DeltaItem) -> None:
        if type(item) is TextDelta:
            if item.text or item.fidelity:
                self._part({"text": item.text}, item.fidelity)
        elif type(item) is ThinkingDelta:
            if item.thinking or item.fidelity:
                self._part({"text": item.thinking, "thought": True}, item.fidelity)
        elif type(item) in (InlineDataDelta, InlineThinkingDelta):
            inline: Any = item
            part: dict[str, Any] = {
                "inlineData": {"mimeType": inline.mime_type, "data": base64.b64encode(inline.data).decode()}
            }
            if type(item) is InlineThinkingDelta:
                part["thought"] = True
            self._part(part, inline.fidelity)
        elif type(item) is ToolCallDelta:
            self.arguments.append(item.arguments)  # the call is written whole at its done
        else:
            self.dropped.append(f"{item.type} (no place in Gemini)")

    def close(self, done: DoneItem) -> None:
        if type(done) is ToolCallDone:
            raw = raw_arguments(self.arguments, done)
            self.arguments = []
            # `args` first: the placeholder's first occurrence in the record is this one
            call: dict[str, Any] = {"args": RAW, "name": done.name, "id": done.tool_call_id}
            self._part({"functionCall": call}, done.fidelity, raw)

    def stop(self, event: StopEvent) -> None:
        candidate = {
            "content": {"role": "model", "parts": []},
            "finishReason": NATIVE_FINISH[event.finish_reason],
            "index": 0,
        }
        record: dict[str, Any] = {"candidates": [candidate]}
        usage = gemini_usage(event.usage)
        if usage:
            record["usageMetadata"] = usage
        self._record(record, M.SY_FINISH_RECORD)

    def end(self) -> None:
        if self.array:
            self.write(b"[]" if self.records == 0 else b"\r\n]")

    def fail(self, error: ProviderError) -> None:
        body: dict[str, Any] = {"message": error.message, "status": error.type or "INTERNAL"}
        if isinstance(error.code, int):
            body["code"] = error.code
        self._record({"error": body}, M.SY_ERROR)
        self.end()
