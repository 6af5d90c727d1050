# Ollama's native `/api/chat` stream written from UniEvents (the reader is
# _protocols/ollama.py; both run machines/ollama.py), one JSON object a line.
#
# Each text or thinking delta is a line with `message.content` or `message.thinking`;
# a tool call is written whole at its done (`message.tool_calls` with its `id`, its
# arguments as the text they arrived as); each image its own line with
# `message.images`, whole at its done (the reader makes each entry an image); other
# inline data (audio) has no place, and is listed in `dropped`.  The last line has
# `done: true`, `done_reason` and the counts (`prompt_eval_count`, `eval_count`).  An
# error is `{"error": "..."}`.
from __future__ import annotations

import base64
from typing import Any, ClassVar

import orjson

from unievent._events import (
    DeltaItem,
    DoneItem,
    InlineDataDelta,
    InlineDataDone,
    StopEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
)
from unievent._generated import ollama as M
from unievent._outcome import ProviderError
from unievent._protocols.ollama import USAGE
from unievent._writers.base import RAW, Writer, raw_arguments, with_raw

__all__ = ["OllamaWriter"]

#: MMSP's finish reason as a done_reason (Ollama says stop for a turn with tool calls)
DONE_REASON: dict[str, str] = {"stop": "stop", "tool_call": "stop", "length": "length", "unknown": "unknown"}


def _is_image(mime: str) -> bool:
    """An image type, or the reader's name for an image of a type its bytes do not say."""
    return mime.startswith("image/") or mime == "application/octet-stream"


class OllamaWriter(Writer):
    protocol: ClassVar[str] = "ollama"
    #: Ollama's server sends its NDJSON lines so
    media_type: ClassVar[str] = "application/x-ndjson"
    machine: ClassVar[Any] = M
    finish_from_calls = True

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.arguments: list[str] = []

    def _line(self, message: dict[str, Any] | None, raw: str = "", **top: Any) -> None:
        self.step(M.SY_DONE_LINE if top.get("done") else M.SY_LINE)
        line: dict[str, Any] = {"model": self.options.model, "created_at": "1970-01-01T00:00:00Z"}
        if message is not None:
            line["message"] = {"role": "assistant", **message}
        line.update(top)
        line.setdefault("done", False)
        self.write((with_raw(line, raw) if raw else orjson.dumps(line)) + b"\n")

    def delta(self, item: DeltaItem) -> None:
        if type(item) is TextDelta:
            self.fidelity(item.fidelity)
            if item.text:
                self._line({"content": item.text})
        elif type(item) is ThinkingDelta:
            self.fidelity(item.fidelity)
            if item.thinking:
                self._line({"content": "", "thinking": item.thinking})
        elif type(item) is ToolCallDelta:
            self.arguments.append(item.arguments)  # the call is written whole at its done
        elif type(item) is InlineDataDelta:
            if not _is_image(item.mime_type):
                self._no_place(f"inline_data {item.mime_type} (Ollama streams images only)")
            # an image is written whole at its done: each `images` entry is an image
        else:
            self._no_place(f"{item.type} (no place in Ollama's stream)")

    def _no_place(self, what: str) -> None:
        if what not in self.dropped:
            self.dropped.append(what)

    def close(self, done: DoneItem) -> None:
        if type(done) is InlineDataDone and _is_image(done.mime_type):
            self._line({"content": "", "images": [base64.b64encode(done.data).decode()]})
        if done.type == "tool_call.done":
            raw = raw_arguments(self.arguments, done)
            self.arguments = []
            call = {
                "function": {"arguments": RAW, "name": getattr(done, "name", "")},
                "id": getattr(done, "tool_call_id", ""),
            }
            self.fidelity(getattr(done, "fidelity", None))
            self._line({"content": "", "tool_calls": [call]}, raw)

    def stop(self, event: StopEvent) -> None:
        self.dropped.extend(
            f"usage {name}" for name in ("cached_tokens", "thoughts_tokens") if getattr(event.usage, name) is not None
        )
        counts = USAGE.write(event.usage)
        self._line({"content": ""}, done=True, done_reason=DONE_REASON[event.finish_reason], **counts)

    def fail(self, error: ProviderError) -> None:
        self.step(M.SY_ERROR)
        self.write(orjson.dumps({"error": error.message}) + b"\n")

    def keep_alive(self) -> bytes:
        return b""  # Ollama sends nothing while the model is silent
