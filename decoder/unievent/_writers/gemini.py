# Google Gemini streamGenerateContent written from UniEvents (the reader is
# _protocols/gemini.py; both run machines/gemini.py).
#
# One record per delta, each one candidate with one part: text, thinking
# (`thought: true`), audio and other inline data (base64) chunk by chunk, an image or
# a thought image (`thought: true`) whole at its done (its reader makes every image part
# an item of its own), a function call whole at its done (`args` the
# parsed arguments, `id` the call's id); a signature rides as `thoughtSignature` on the
# part of the item it came on, and a text's logprobs (fidelity `logprobs`,
# `top_logprobs`, `avg_logprobs`) as the candidate's `logprobsResult` and `avgLogprobs`
# of the record of the delta that carries them.  The last record has the finish reason and
# `usageMetadata`.  As SSE (`data: <record>` and CRLF CRLF, what `alt=sse` sends) or as
# one JSON array (`framing="json_array"`).  Two inline items of one type that is not an
# image, one right after the other, are read back as one: the boundary is listed in
# `dropped`.
from __future__ import annotations

import base64
from typing import Any, ClassVar

import orjson

from unievent._events import (
    DeltaItem,
    DoneItem,
    InlineDataDelta,
    InlineDataDone,
    InlineThinkingDelta,
    InlineThinkingDone,
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
        self.mime = ""  # the open inline item's type
        self.whole = False  # the open group is an image or a thought image: written at its done
        # the type of the chunks the last record wrote when they ended an inline item
        # that a next one of that type would continue on the wire
        self.joins: str | None = None

    def _record(self, record: dict[str, Any], symbol: int, raw: str = "") -> None:
        self.step(symbol)
        self.joins = None
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

    def open(self, first: DeltaItem) -> None:
        self.whole = False
        if type(first) not in (InlineDataDelta, InlineThinkingDelta):
            return
        inline: Any = first
        self.mime = inline.mime_type  # every chunk of the item is written as its type
        self.whole = type(first) is InlineThinkingDelta or self.mime.startswith("image/")
        if not self.whole and self.mime == self.joins:
            self.dropped.append(
                f"the boundary between two inline_data items of type {self.mime} "
                "(Gemini joins consecutive chunks of one type: read back as one)"
            )

    def delta(self, item: DeltaItem) -> None:
        if self.whole:
            return  # the done holds the whole image and its fidelity
        if type(item) is TextDelta:
            if item.text or item.fidelity:
                self._part({"text": item.text}, item.fidelity)
        elif type(item) is ThinkingDelta:
            if item.thinking or item.fidelity:
                self._part({"text": item.thinking, "thought": True}, item.fidelity)
        elif type(item) is InlineDataDelta:
            self._inline(item.data, self.mime, False, item.fidelity)
        elif type(item) is ToolCallDelta:
            self.arguments.append(item.arguments)  # the call is written whole at its done
        else:
            self.dropped.append(f"{item.type} (no place in Gemini)")

    def _inline(self, data: bytes, mime: str, thought: bool, fidelity: Any) -> None:
        part: dict[str, Any] = {"inlineData": {"mimeType": mime, "data": base64.b64encode(data).decode()}}
        if thought:
            part["thought"] = True
        self._part(part, fidelity)

    def close(self, done: DoneItem) -> None:
        if type(done) in (InlineDataDone, InlineThinkingDone):
            inline: Any = done
            if self.whole:
                self.whole = False
                self._inline(inline.data, inline.mime_type, type(done) is InlineThinkingDone, inline.fidelity)
            elif type(done) is InlineDataDone:
                self.joins = self.mime
        elif type(done) is ToolCallDone:
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
