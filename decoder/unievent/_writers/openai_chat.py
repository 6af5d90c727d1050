# OpenAI-compatible Chat Completions written from UniEvents (the reader is
# _protocols/openai_chat.py; both run machines/openai_chat.py).
#
# Every chunk is `chat.completion.chunk` with one choice: text as `content`, thinking
# as `reasoning_content` (or `reasoning`, when that is the field it came in), tool
# calls by `index` with `id`, `type` and `function` on their first fragment (a custom
# tool's call, fidelity `item_type` "custom": `type` "custom" and `custom.name` first,
# its whole `custom.input` on one fragment at its done).  A text item's `logprobs`
# fidelity is written as `choices[].logprobs` (`content`, or `refusal` for a refusal) on
# the chunk of the delta that carries it, with its text if it has any.  Audio output:
# an inline_data item of the reader's AUDIO_PCM type goes out as `delta.audio` chunks
# (base64 `data` per delta, its `id` on the first, its `expires_at` alone on a last
# one), a text item whose fidelity is `audio_transcript` as `delta.audio.transcript`
# pieces; other inline data has no place here.  The id is the fidelity's `audio_id`, or
# `audio_<response id>` when the item has none: an audio whose fidelity comes after its
# first delta (a live audio's rides on its last) is written once the id is known, as
# the reader takes another id for another answer.  A piece's bytes short of a base64
# quantum go with the next piece, so that the pieces joined (as the SDKs join them) are
# one base64 text.  The stop is a chunk with the finish reason, then (`include_usage`)
# a usage chunk with `choices: []`, then `data: [DONE]`.  Usage is written in the
# wire's meaning: `prompt_tokens` counts cache reads, `completion_tokens` reasoning.
from __future__ import annotations

import base64
from typing import Any, ClassVar

from unievent._events import (
    DeltaItem,
    DoneItem,
    InlineDataDelta,
    InlineDataDone,
    StopEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    ToolCallDone,
    Usage,
)
from unievent._generated import openai_chat as M
from unievent._outcome import ProviderError
from unievent._protocols.openai_chat import _CUSTOM, _FINISH_MAP, AUDIO_PCM, USAGE
from unievent._shared import json_text
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
        | {"logprobs", "item_type", "audio_transcript", "audio_id", "expires_at"}
    )

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.calls = -1
        self.field = ""
        self.role_sent = False
        self.refusing = False  # the open text item is a refusal: its text goes in `refusal`
        self.custom = False  # the open call is a custom tool's
        self.transcript = False  # the open text item is an audio's transcript: its text goes in `audio.transcript`
        self.audio: dict[str, Any] | None = None  # the open audio item's fidelity so far (None: no audio open)
        self.audio_id_sent = False
        self.waiting: list[bytes] = []  # the open audio's pieces until its id is known
        self.carry = b""  # the open audio's bytes short of a base64 quantum, not written yet

    def _chunk(self, delta: dict[str, Any] | None, finish: str | None = None, logprobs: Any = None, **top: Any) -> None:
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
            choice: dict[str, Any] = {"index": 0, "delta": delta, "finish_reason": finish}
            if logprobs is not None:
                choice["logprobs"] = logprobs
            body["choices"] = [choice]
        body.update(top)
        self.step(M.SY_FINISH_CHUNK if finish else M.SY_CHUNK)
        self.write(sse_frame(body))

    def open(self, first: DeltaItem) -> None:
        if type(first) is TextDelta:
            kept = self.fidelity(first.fidelity)
            self.refusing = kept.get("refusal") is True
            self.transcript = kept.get("audio_transcript") is True
        elif type(first) is ThinkingDelta:
            field = (first.fidelity or {}).get("reasoning_field")
            # the field it came in; else OpenRouter's reasoning_details, which carry signatures
            self.field = field if field in ("reasoning_content", "reasoning") else ""
        elif type(first) is ToolCallDelta:
            self.calls += 1
            # read here without listing what is dropped: `delta` lists it
            own = self.fidelity_source in (None, self.protocol)
            self.custom = own and (first.fidelity or {}).get("item_type") == _CUSTOM
        elif type(first) is InlineDataDelta:
            self.audio = {} if first.mime_type == AUDIO_PCM else None
            self.audio_id_sent = False
            self.waiting = []
            self.carry = b""

    def delta(self, item: DeltaItem) -> None:
        if type(item) is TextDelta:
            kept = self.fidelity(item.fidelity)
            if self.transcript:
                self._transcript(item.text, kept)
                return
            annotations = kept.get("annotations")
            logprobs = kept.get("logprobs")
            if item.text or annotations or logprobs:
                delta: dict[str, Any] = {"refusal" if self.refusing else "content": item.text} if item.text else {}
                if annotations:
                    delta["annotations"] = annotations
                self._chunk(delta, logprobs=self._logprobs(logprobs) if logprobs else None)
        elif type(item) is ThinkingDelta:
            self._thinking(item)
        elif type(item) is ToolCallDelta:
            self.fidelity(item.fidelity)
            if self.custom:
                self._custom_head(item)
                return
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
        elif type(item) is InlineDataDelta and self.audio is not None:
            self._audio_piece(item)
        else:
            self.dropped.append(f"{item.type} (no place in Chat Completions)")

    def _transcript(self, text: str, kept: dict[str, Any]) -> None:
        self.dropped.extend(f"{key} (on an audio transcript)" for key in kept if key != "audio_transcript")
        if text:
            self._chunk({"audio": {"transcript": text}})

    def _audio_piece(self, item: InlineDataDelta) -> None:
        known = self.audio
        assert known is not None
        known.update(self.fidelity(item.fidelity))
        if self.audio_id_sent:
            self._audio_chunks([item.data], "")
            return
        audio_id = known.get("audio_id")
        if not audio_id or type(audio_id) is not str:
            self.waiting.append(item.data)
            return
        waiting, self.waiting = self.waiting, []
        waiting.append(item.data)
        self._audio_chunks(waiting, audio_id)

    def _audio_chunks(self, pieces: list[bytes], audio_id: str) -> None:
        """One chunk a piece (a piece that completes no base64 quantum, none), the id on
        the first when it is given."""
        for piece in pieces:
            data = self.carry + piece if self.carry else piece
            whole = len(data) - len(data) % 3
            self.carry = data[whole:]
            audio: dict[str, Any] = {}
            if audio_id:
                audio["id"] = audio_id
                self.audio_id_sent = True
                audio_id = ""
            if whole:
                audio["data"] = base64.b64encode(data[:whole]).decode()
            if audio:
                self._chunk({"audio": audio})

    def _audio_end(self, known: dict[str, Any]) -> None:
        """What waits for the id (made up if none came), the last bytes, then the expiry."""
        if not self.audio_id_sent:
            audio_id = known.get("audio_id")
            made_up = f"audio_{self.options.response_id}"
            waiting, self.waiting = self.waiting or [b""], []
            self._audio_chunks(waiting, audio_id if audio_id and type(audio_id) is str else made_up)
        if self.carry:
            self._chunk({"audio": {"data": base64.b64encode(self.carry).decode()}})
            self.carry = b""
        expires_at = known.get("expires_at")
        if type(expires_at) is int:
            self._chunk({"audio": {"expires_at": expires_at}})

    def _logprobs(self, entries: Any) -> dict[str, Any]:
        """A choice's `logprobs` with the text's entries, under the field of its text."""
        return {"content": None, "refusal": entries} if self.refusing else {"content": entries, "refusal": None}

    def _custom_head(self, item: ToolCallDelta) -> None:
        """A custom call's first fragment names it; its input, the arguments' `input`,
        is written whole at its done (the fragments are pieces of the JSON text)."""
        if item.name:
            custom = {"name": item.name, "input": ""}
            call = {"index": self.calls, "id": item.tool_call_id, "type": _CUSTOM, "custom": custom}
            self._chunk({"tool_calls": [call]})

    def _custom_input(self, done: ToolCallDone) -> None:
        text = done.arguments.get("input")
        if type(text) is not str:  # a custom tool takes text: other arguments as their JSON text
            text = json_text(done.arguments) if done.arguments else ""
        if text:
            self._chunk({"tool_calls": [{"index": self.calls, "custom": {"input": text}}]})

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
        if self.custom and type(done) is ToolCallDone:
            self._custom_input(done)
            self.custom = False
        elif self.audio is not None and type(done) is InlineDataDone:
            known, self.audio = self.audio, None
            self._audio_end(known)
        self.transcript = False

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
