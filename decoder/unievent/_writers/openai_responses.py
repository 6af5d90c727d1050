# OpenAI Responses written from UniEvents (the reader is _protocols/openai_responses.py;
# both run machines/openai_responses.py, and each event type written takes the symbol
# the reader's own table gives it).
#
# `response.created`, `response.in_progress`, then one output item per group with its
# `output_index`: reasoning (a summary part; `encrypted_content` and the item id from
# its fidelity), message (an output_text part), function_call, or the item a client
# call's fidelity names (`item_type`: a custom tool's call, a computer call, ...),
# rebuilt from its arguments by the reader's own table; each item's
# `output_item.done` carries the whole item, and `response.completed` (or
# `response.incomplete` for a length stop) the full response with its usage.  A
# reasoning item's done lists the text it streamed unless its fidelity's channel says
# the source's done item had none; a message's `logprobs` fidelity is written on
# `output_text.done` and in its done item, with a phase that came with them.  An image
# (inline_data of an image type) is an `image_generation_call`, written whole at its
# done: its id and settings from its fidelity (IMAGE_FIELDS), else a made-up id and
# the `output_format` its type names; other inline_data has no place here.
# `sequence_number` counts every event from 0.
from __future__ import annotations

import binascii
from typing import Any, ClassVar, Final

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
    ToolCallDone,
    Usage,
)
from unievent._generated import openai_responses as M
from unievent._outcome import ProviderError
from unievent._protocols.openai_responses import (
    _SYMBOL_OF_TYPE,
    CLIENT_CALLS,
    IMAGE_FIELDS,
    IMAGE_FORMATS,
    ITEM_ID_KEPT,
    USAGE,
    added_symbol,
    client_call_item,
)
from unievent._side import SideEvent
from unievent._writers.base import Writer, sse_frame

__all__ = ["OpenAIResponsesWriter", "responses_usage"]


# an image type's `output_format`: the reader's table backwards (`jpg` is only read); a
# type it lacks is written as its subtype, which the reader takes back as `image/<format>`
_FORMAT_OF_MIME: Final = {mime: fmt for fmt, mime in IMAGE_FORMATS.items() if fmt != "jpg"}
_IMAGE_KEPT: Final = frozenset(("image_generation_call_id", *IMAGE_FIELDS))


def responses_usage(usage: Usage) -> dict[str, Any]:
    """MMSP usage as a Responses `usage` object (the reader's own table)."""
    return USAGE.write(usage)


#: what the reader names a result whose bytes and format say no image type
_UNKNOWN: Final = "application/octet-stream"


def _image_type(mime: str) -> str | None:
    """An image's MIME type without parameters (the reader's name for bytes of no known
    image type included), or None for any other type."""
    bare = mime.partition(";")[0].strip().lower()
    return bare if (bare.startswith("image/") and len(bare) > len("image/")) or bare == _UNKNOWN else None


def output_format(mime: str) -> str:
    """The `output_format` an image of MIME type `mime` is written with."""
    bare = _image_type(mime) or mime
    return _FORMAT_OF_MIME.get(bare) or bare.removeprefix("image/")


class OpenAIResponsesWriter(Writer):
    protocol: ClassVar[str] = "openai_responses"
    machine: ClassVar[Any] = M
    finish_from_calls = True
    carries: ClassVar[frozenset[str]] = frozenset(
        {"encrypted_content", "reasoning_id", "format", "signature", "channel", "phase", "logprobs"}
        | {"item_type", "call_item_id", "namespace", "caller", "environment"}
        | _IMAGE_KEPT
    )

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.sequence = 0
        self.index = -1
        self.item: dict[str, Any] = {}
        self.output: list[dict[str, Any]] = []
        self.texts: list[str] = []
        self.channel = "summary"
        self.first: DeltaItem | None = None
        self.held = False  # a reasoning item written at its done
        self.call: dict[str, Any] = {}  # a client call's fidelity, kept to write its done
        self.late: dict[str, Any] = {}
        self.steps: list[dict[str, Any]] = []  # Mirobody's tool steps
        self.mirobody: dict[str, Any] = {}  # Mirobody's final records

    def _event(self, kind: str, **fields: Any) -> None:
        symbol = _SYMBOL_OF_TYPE[kind]
        if symbol < 0:  # output_item.added: by the item's type
            symbol = added_symbol(fields["item"])
        self._emit(symbol, kind, fields)

    def _emit(self, symbol: int, kind: str, fields: dict[str, Any]) -> None:
        self.step(symbol)
        self.write(sse_frame({"type": kind, "sequence_number": self.sequence, **fields}, kind))
        self.sequence += 1

    def _response(self, status: str, **fields: Any) -> dict[str, Any]:
        return {
            "id": self.options.response_id,
            "object": "response",
            "created_at": self.options.created,
            "status": status,
            "model": self.options.model,
            "output": list(self.output),
            **fields,
        }

    def begin(self) -> None:
        self._event("response.created", response=self._response("in_progress"))
        self._event("response.in_progress", response=self._response("in_progress"))

    # --- items ----------------------------------------------------------------------------

    def _where(self) -> dict[str, Any]:
        return {"item_id": self.item.get("id"), "output_index": self.index}

    def open(self, first: DeltaItem) -> None:
        self.index += 1
        self.texts = []
        self.first = first
        self.late = {}
        if type(first) is ThinkingDelta:
            kept = self.fidelity(first.fidelity)
            self.channel = "content" if kept.get("channel") == "content" else "summary"
            self.late = dict(kept)
            self.item = {"type": "reasoning", "id": kept.get("reasoning_id") or f"rs_{self.index}", "summary": []}
            # the item's id (fidelity, which its reader reads from the done) may come last:
            # an item whose added and done name two ids is no Responses stream, so a
            # reasoning item without its id yet is written whole at its done
            self.held = "reasoning_id" not in kept
            if not self.held:
                self._start_reasoning()
        elif type(first) is TextDelta:
            kept = self.fidelity(first.fidelity)
            self.late = dict(kept)  # with what later deltas bring: written at its done
            phase = kept.get("phase")
            self.item = {
                "type": "message",
                "id": f"msg_{self.index}",
                "status": "in_progress",
                "role": "assistant",
                "content": [],
            }
            if phase is not None:
                self.item["phase"] = phase
            self._event("response.output_item.added", output_index=self.index, item=dict(self.item))
            self._part("added", "")
        elif type(first) is ToolCallDelta:
            kept = self.fidelity(first.fidelity)
            if kept.get("item_type") in CLIENT_CALLS:
                self._open_client_call(first, kept)
                return
            self.item = {
                "type": "function_call",
                "id": f"fc_{self.index}",
                "call_id": first.tool_call_id,
                "name": first.name,
                "arguments": "",
                "status": "in_progress",
            }
            self._event("response.output_item.added", output_index=self.index, item=dict(self.item))
        elif type(first) is InlineDataDelta and _image_type(first.mime_type):
            # its id may ride on a later delta (on the done at the latest), and the added
            # item must name the id its done names: the whole item is written at the done
            self.item = {"type": "image_generation_call"}
        else:
            self.dropped.append(f"{first.type} (no place in OpenAI Responses)")
            self.index -= 1
            self.item = {}

    def _open_client_call(self, first: ToolCallDelta, kept: dict[str, Any]) -> None:
        """The item the call came as, announced with what is known before its arguments."""
        self.call = kept
        kind = kept["item_type"]
        self.item = client_call_item(
            kind, first.name, first.tool_call_id, {}, kept, "in_progress", self._call_item_id()
        )
        self._event("response.output_item.added", output_index=self.index, item=dict(self.item))

    def _call_item_id(self) -> str | None:
        """The item's id as it came; else one made up, except where its reader would keep
        a made-up id as the item's own (it had none)."""
        kind = self.call["item_type"]
        kept = self.call.get("call_item_id")
        if type(kept) is str and kept:
            return kept
        return None if kind in ITEM_ID_KEPT else f"{kind}_{self.index}"

    def _close_client_call(self, done: DoneItem) -> None:
        assert type(done) is ToolCallDone
        kind = self.call["item_type"]
        text = done.arguments.get("input")
        if kind == "custom_tool_call" and type(text) is str and text:
            self._event("response.custom_tool_call_input.delta", **self._where(), delta=text)
            self._event("response.custom_tool_call_input.done", **self._where(), input=text)
        item_id = self.item.get("id") if kind != "mcp_approval_request" else None
        self.item = client_call_item(
            kind, done.name, done.tool_call_id, done.arguments, self.call, "completed", item_id
        )
        self.call = {}

    def _text_delta(self, text: str) -> None:
        """An output_text delta from a template: what `_event` writes for it, byte for
        byte (tests/test_encode.py checks the two agree)."""
        self.step(M.SY_TEXT_DELTA)
        head = b'event: response.output_text.delta\ndata: {"type":"response.output_text.delta","sequence_number":'
        self.write(
            head
            + str(self.sequence).encode()
            + b',"item_id":'
            + orjson.dumps(self.item["id"])
            + b',"output_index":'
            + str(self.index).encode()
            + b',"content_index":0,"delta":'
            + orjson.dumps(text)
            + b"}\n\n"
        )
        self.sequence += 1

    def _start_reasoning(self) -> None:
        self._event("response.output_item.added", output_index=self.index, item=dict(self.item))
        self._part("added", "")

    def _reasoning_delta(self, text: str) -> None:
        if self.channel == "summary":
            where = self._where()
            self._event("response.reasoning_summary_text.delta", **where, summary_index=0, delta=text)
        else:
            self._event("response.reasoning_text.delta", **self._where(), content_index=0, delta=text)

    def _part(self, phase: str, text: str) -> None:
        if self.item["type"] == "reasoning":
            if self.channel == "summary":
                part: dict[str, Any] = {"type": "summary_text", "text": text}
                self._event(f"response.reasoning_summary_part.{phase}", **self._where(), summary_index=0, part=part)
        else:
            part = {"type": "output_text", "text": text, "annotations": []}
            self._event(f"response.content_part.{phase}", **self._where(), content_index=0, part=part)

    def delta(self, item: DeltaItem) -> None:
        if not self.item:
            return
        if type(item) is TextDelta:
            if item.fidelity is not None and item is not self.first:
                self.late.update(self.fidelity(item.fidelity))
            if item.text:
                self.texts.append(item.text)
                self._text_delta(item.text)
        elif type(item) is ThinkingDelta:
            if item.fidelity is not None and item is not self.first:
                self.late.update(self.fidelity(item.fidelity))  # a later delta's: in the item's done
            if item.thinking:
                self.texts.append(item.thinking)
                if not self.held:
                    self._reasoning_delta(item.thinking)
        elif type(item) is ToolCallDelta and item.arguments and not self.call:
            self.texts.append(item.arguments)
            self._event("response.function_call_arguments.delta", **self._where(), delta=item.arguments)

    def close(self, done: DoneItem) -> None:
        if not self.item:
            return
        text = "".join(self.texts)
        kind = self.item["type"]
        if kind == "reasoning":
            late = self.late  # the reasoning item's fidelity is read from its done
            if self.held:  # now its id and channel are known: the whole item
                if late.get("channel") in ("summary", "content"):
                    self.channel = late["channel"]
                if "reasoning_id" in late:
                    self.item["id"] = late["reasoning_id"]
                elif late.get("encrypted_content"):  # its reader keeps such an item's id: it had none
                    del self.item["id"]
                self._start_reasoning()
                for piece in self.texts:
                    self._reasoning_delta(piece)
            # the done holds the text it streamed, as OpenAI's own does, unless the
            # channel (fidelity) says the source's done item had it in neither list
            listed = bool(text) and late.get("channel") in (None, self.channel)
            if self.channel == "summary":
                self._event("response.reasoning_summary_text.done", **self._where(), summary_index=0, text=text)
                self._part("done", text)
                if listed:
                    self.item["summary"] = [{"type": "summary_text", "text": text}]
            else:
                self._event("response.reasoning_text.done", **self._where(), content_index=0, text=text)
                if listed:
                    self.item["content"] = [{"type": "reasoning_text", "text": text}]
            for key in ("encrypted_content", "signature", "format"):
                if key in late:
                    self.item[key] = late[key]
        elif kind == "message":
            self._close_message(text)
        elif kind == "image_generation_call":
            assert type(done) is InlineDataDone
            self._close_image(done)
        elif self.call:  # its arguments are the item's own fields: written whole at its done
            self._close_client_call(done)
        else:
            self._event("response.function_call_arguments.done", **self._where(), arguments=text)
            self.item["arguments"] = text
            self.item["status"] = "completed"
        self._event("response.output_item.done", output_index=self.index, item=dict(self.item))
        self.output.append(self.item)
        self.item = {}

    def _close_image(self, done: InlineDataDone) -> None:
        """The image generation call the image came as: its progress, then the item with
        the image as its `result`.  Fidelity of this wire holds the item as it came (an
        `output_format` it lacked was read from the image's bytes, and is left out
        again); an image from elsewhere names its format by its type."""
        kept = self.fidelity(done.fidelity)
        self.dropped.extend(key for key in kept if key not in _IMAGE_KEPT)  # another item's keys
        kept = {key: value for key, value in kept.items() if key in _IMAGE_KEPT}
        image_id = kept.get("image_generation_call_id")
        self.item = {
            "id": image_id if type(image_id) is str and image_id else f"ig_{self.index}",
            "type": "image_generation_call",
            "status": "in_progress",
        }
        self._event("response.output_item.added", output_index=self.index, item=dict(self.item))
        for what in ("in_progress", "generating", "completed"):
            # a built-in tool's own events: the reader knows them by their prefix
            self._emit(M.SY_BUILTIN_EVENT, f"response.image_generation_call.{what}", self._where())
        self.item["status"] = "completed"
        self.item["result"] = binascii.b2a_base64(done.data, newline=False).decode()
        fields: dict[str, Any] = {key: kept[key] for key in IMAGE_FIELDS if key in kept}
        if not kept and _image_type(done.mime_type) != _UNKNOWN:
            fields["output_format"] = output_format(done.mime_type)
        self.item.update(fields)

    def _close_message(self, text: str) -> None:
        """The text's done events and the whole message: its logprobs, and a phase that
        rode with them (its reader takes the done item's phase when the added had none)."""
        late = self.late
        logprobs = late.get("logprobs")
        carried = {"logprobs": logprobs} if logprobs else {}
        self._event("response.output_text.done", **self._where(), content_index=0, text=text, **carried)
        self._part("done", text)
        self.item["content"] = [{"type": "output_text", "text": text, "annotations": [], **carried}]
        self.item["status"] = "completed"
        if "phase" in late:
            self.item["phase"] = late["phase"]

    # --- Mirobody's tool steps ---------------------------------------------------------------

    def side(self, event: SideEvent) -> None:
        data = event.data
        if event.protocol != self.protocol or type(data) is not dict:
            super().side(event)
            return
        if event.kind in ("mirobody_tool_call", "mirobody_tool_result") and event.phase in ("start", "done"):
            step = data.get("tool_step")
            if type(step) is dict:
                self._mirobody_step(step)
                self._event(f"response.{event.kind}", tool_step=step)
                return
        if event.kind == "mirobody_tool_result" and event.phase == "info":
            self._mirobody_step(data)  # the full result the final response gave
            return
        if event.kind == "mirobody_response":
            self.mirobody.update(data)
            return
        super().side(event)

    def _mirobody_step(self, step: dict[str, Any]) -> None:
        key = step.get("id") or step.get("call_id")
        for i, known in enumerate(self.steps):
            if (known.get("id") or known.get("call_id")) == key:
                self.steps[i] = {**known, **step}
                return
        self.steps.append(dict(step))

    # --- the end ----------------------------------------------------------------------------

    def stop(self, event: StopEvent) -> None:
        usage = responses_usage(event.usage)
        extra: dict[str, Any] = dict(self.mirobody)
        if self.steps:
            extra["tool_steps"] = [{k: v for k, v in step.items() if k != "truncated"} for step in self.steps]
        if event.finish_reason in ("length", "unknown"):
            reason = "max_output_tokens" if event.finish_reason == "length" else "content_filter"
            response = self._response("incomplete", incomplete_details={"reason": reason}, usage=usage, **extra)
            self._event("response.incomplete", response=response)
        else:
            self._event("response.completed", response=self._response("completed", usage=usage, **extra))

    def fail(self, error: ProviderError) -> None:
        self._event("error", code=error.type or "server_error", message=error.message, param=None)
