# The Gemini Interactions API written from UniEvents (the reader is
# _protocols/gemini_interactions.py; both run machines/gemini_interactions.py).
#
# `interaction.created`, then one step per group by `index`: `thought` (its text as
# `thought_summary` deltas, the signature as a `thought_signature` delta; a thought
# image as one `thought_summary` image content at its done), `model_output` (`text`
# deltas, annotations as a `text_annotation_delta`; an image as one `image` delta at its
# done, since its reader makes every image delta an item of its own; audio as an
# `audio` delta per chunk), `function_call` (its id and name on the start,
# `arguments_delta`s); each ends with `step.stop`.  Audio's mime type goes back split
# as its reader composes it: the type in `mime_type`, `rate=` in `sample_rate`,
# `channels=` in `channels`; what else it says, inline data that is neither image nor
# audio, and a signature of inline data (a model_output step has none) are listed in
# `dropped`.  `interaction.completed` carries the status (`completed`,
# `requires_action` for a tool call, `incomplete` for length) and the usage; then
# `event: done` with `[DONE]`.
from __future__ import annotations

import base64
from typing import Any, ClassVar

from unievent._events import (
    DeltaItem,
    DoneItem,
    Fidelity,
    InlineDataDelta,
    InlineDataDone,
    InlineThinkingDelta,
    InlineThinkingDone,
    StopEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    Usage,
)
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


def _media_fields(mime: str) -> tuple[dict[str, Any], str]:
    """An image's or audio's content fields for its mime type (`mime_type`, and for
    audio `sample_rate` and `channels` from `rate=` and `channels=`), and the mime type
    its reader composes from them again."""
    kind, *params = (param.strip() for param in mime.split(";"))
    fields: dict[str, Any] = {"mime_type": kind}
    if not kind.startswith("image/"):
        for param in params:
            name, _, value = (word.strip() for word in param.partition("="))
            field = {"rate": "sample_rate", "channels": "channels"}.get(name.lower())
            if field is not None and value.isascii() and value.isdigit():
                fields[field] = int(value)
    readback = kind
    if "sample_rate" in fields:
        readback += f"; rate={fields['sample_rate']}"
    if "channels" in fields:
        readback += f"; channels={fields['channels']}"
    return fields, readback


class GeminiInteractionsWriter(Writer):
    protocol: ClassVar[str] = "gemini_interactions"
    machine: ClassVar[Any] = M
    carries: ClassVar[frozenset[str]] = frozenset({"signature", "annotations"})

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.index = -1
        self.open_step = False
        self.media: dict[str, Any] = {}  # the open inline item's content fields
        self.whole = False  # the open group is an image or a thought image: written at its done

    def _event(self, symbol: int, kind: str, **fields: Any) -> None:
        self.step(symbol)
        self.write(sse_frame({**fields, "event_type": kind}, kind))

    def _interaction(self, status: str, **fields: Any) -> dict[str, Any]:
        return {"id": self.options.response_id, "status": status, "model": self.options.model, **fields}

    def begin(self) -> None:
        self._event(M.SY_CREATED, "interaction.created", interaction=self._interaction("in_progress"))

    def open(self, first: DeltaItem) -> None:
        self.whole = False
        if type(first) is TextDelta:
            step: dict[str, Any] = {"type": "model_output"}
        elif type(first) is ThinkingDelta:
            step = {"type": "thought"}
        elif type(first) is ToolCallDelta:
            step = {"type": "function_call", "id": first.tool_call_id, "name": first.name, "arguments": {}}
        elif type(first) in (InlineDataDelta, InlineThinkingDelta):
            inline: Any = first
            thought = type(first) is InlineThinkingDelta
            mime: str = inline.mime_type
            # a thought's summary holds text and images; an output, images and audio too
            # (audio: an audio type, or one with the rate or channels its reader adds)
            self.media, readback = _media_fields(mime)
            audio = mime.startswith("audio/") or "sample_rate" in self.media or "channels" in self.media
            if not mime.startswith("image/") and (thought or not audio):
                where, what = ("thought", "images") if thought else ("model_output", "images and audio")
                self.dropped.append(f"{first.type} {mime} (an Interactions {where} takes {what})")
                return
            if readback != mime:
                self.dropped.append(
                    f"mime_type {mime} (read back as {readback}: Interactions has no field for the rest)"
                )
            self.whole = mime.startswith("image/")
            step = {"type": "thought" if thought else "model_output"}
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
        elif type(item) is InlineDataDelta and not self.whole:
            self._media_fidelity(item.fidelity)
            self._delta(type="audio", data=base64.b64encode(item.data).decode(), **self.media)

    def _media_fidelity(self, fidelity: Fidelity | None) -> None:
        """A model_output step carries no fidelity: what inline data had is listed."""
        self.dropped.extend(
            f"{key} of inline_data (no place in an Interactions model_output)" for key in self.fidelity(fidelity)
        )

    def close(self, done: DoneItem) -> None:
        if not self.open_step:
            return
        if self.whole and type(done) in (InlineDataDone, InlineThinkingDone):
            inline: Any = done
            content = {"type": "image", "data": base64.b64encode(inline.data).decode(), **self.media}
            if type(done) is InlineThinkingDone:
                self._delta(type="thought_summary", content=content)
                kept = self.fidelity(inline.fidelity)
                signature = kept.pop("signature", None)
                if type(signature) is str and signature:
                    self._delta(type="thought_signature", signature=signature)
                self.dropped.extend(f"{key} of inline_thinking (no place in an Interactions thought)" for key in kept)
            else:
                self._media_fidelity(inline.fidelity)
                self._delta(**content)
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
