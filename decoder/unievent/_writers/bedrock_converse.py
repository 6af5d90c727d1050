# Amazon Bedrock ConverseStream written from UniEvents (the reader is
# _protocols/bedrock_converse.py; both run machines/bedrock_converse.py), and what both
# Bedrock writers share: the AWS event-stream frames of their wire
# (machines/aws_eventstream.py), exception frames, and the Claude fidelity the two
# Bedrock wires and Anthropic's have in common.
#
# `messageStart`, then one block per group by `contentBlockIndex`: text and reasoning
# blocks begin with their first `contentBlockDelta` (they have no start on this wire),
# a tool use with its `contentBlockStart` (`toolUse` id and name) and its `input`
# fragments, an image with its start (`format`) and base64 `source.bytes`; each ends
# with `contentBlockStop`.  A signature goes out as `reasoningContent.signature`, MMSP's
# redacted convention as `reasoningContent.redactedContent`, citations as `citation`
# deltas.  Then `messageStop` with the stop reason and `metadata` with the usage.  A
# failure is an exception frame.
from __future__ import annotations

import base64
from typing import Any, ClassVar, Final

import orjson

from unievent._errors import EncodeError
from unievent._events import (
    DeltaItem,
    DoneItem,
    Fidelity,
    InlineDataDelta,
    StopEvent,
    TextDelta,
    ThinkingDelta,
    ToolCallDelta,
    Usage,
)
from unievent._framing.aws_eventstream import frame_with_block, header_block
from unievent._generated import aws_eventstream as F
from unievent._generated import bedrock_converse as M
from unievent._outcome import ProviderError
from unievent._protocols.anthropic import REDACTED_THINKING
from unievent._protocols.bedrock_converse import _FINISH_MAP
from unievent._writers.base import Writer

__all__ = [
    "BedrockConverseWriter",
    "EventStreamWriter",
    "converse_usage",
    "exception_block",
    "kin_fidelity",
]

MEDIA_TYPE: Final = "application/vnd.amazon.eventstream"

NATIVE_FINISH: dict[str, str] = {mmsp: native for native, mmsp in reversed(_FINISH_MAP.items())}
# the reader keeps every other stop reason as `unknown`; this one is Bedrock's nearest
# to a stop the model did not choose
NATIVE_FINISH["unknown"] = "content_filtered"

#: Claude's signatures are valid on every platform that serves Claude (Anthropic's API
#: and both Bedrock APIs), so a signature crosses between these wires
CLAUDE_WIRES: Final = frozenset(("anthropic", "bedrock_converse", "bedrock_invoke"))

# the exceptions boto3 knows by name on each Bedrock stream (its service model's
# members); any other type would reach a boto3 client as an error without a code
CONVERSE_EXCEPTIONS: Final = frozenset(
    (
        "internalServerException",
        "modelStreamErrorException",
        "validationException",
        "throttlingException",
        "serviceUnavailableException",
    )
)
STREAM_FAILURE: Final = "modelStreamErrorException"


def event_block(name: str) -> bytes:
    """The header block of an event frame named `name`."""
    return header_block([(":event-type", name), (":content-type", "application/json"), (":message-type", "event")])


def exception_block(kind: str) -> bytes:
    """The header block of an exception frame of type `kind`."""
    headers = [(":exception-type", kind), (":content-type", "application/json"), (":message-type", "exception")]
    return header_block(headers)


# the hot deltas' payloads up to their one string (the block's index filled in)
_TEXT_HEAD: Final = b'{"contentBlockIndex":%d,"delta":{"text":'
_THINKING_HEAD: Final = b'{"contentBlockIndex":%d,"delta":{"reasoningContent":{"text":'

_MESSAGE_START: Final = event_block("messageStart")
_BLOCK_START: Final = event_block("contentBlockStart")
_BLOCK_DELTA: Final = event_block("contentBlockDelta")
_BLOCK_STOP: Final = event_block("contentBlockStop")
_MESSAGE_STOP: Final = event_block("messageStop")
_METADATA: Final = event_block("metadata")


def kin_fidelity(
    writer: Writer, fidelity: Fidelity | None, same_shape: frozenset[str], carries: frozenset[str]
) -> dict[str, Any]:
    """What of `fidelity` a Claude-serving wire carries: every key it `carries` when the
    events came from a wire whose fidelity has its shapes (`same_shape`), a signature
    from any wire serving Claude, nothing from the others; the rest is listed in the
    writer's `dropped`."""
    if not fidelity:
        return {}
    source = writer.fidelity_source
    if source is None or source in same_shape:
        keys = carries
    elif source in CLAUDE_WIRES:
        keys = carries & {"signature"}
    else:
        keys = frozenset()
    foreign = "" if source is None or source in same_shape else f" (from {source})"
    writer.dropped.extend(key + foreign for key in fidelity if key not in keys)
    return {key: value for key, value in fidelity.items() if key in keys}


def converse_usage(usage: Usage) -> dict[str, int]:
    """MMSP usage as ConverseStream's `usage`, the reader's reading inverted:
    inputTokens is prompt_tokens (cache writes included, so none is written apart),
    cacheReadInputTokens cached_tokens, outputTokens every generated token (Converse
    does not count reasoning apart: response_tokens plus thoughts_tokens); totalTokens
    all of them.  A count the events do not have is left out."""
    out: dict[str, int] = {}
    if usage.prompt_tokens is not None:
        out["inputTokens"] = usage.prompt_tokens
    if usage.response_tokens is not None:
        out["outputTokens"] = usage.response_tokens + (usage.thoughts_tokens or 0)
    if "inputTokens" in out and "outputTokens" in out:
        out["totalTokens"] = out["inputTokens"] + out["outputTokens"] + (usage.cached_tokens or 0)
    if usage.cached_tokens is not None:
        out["cacheReadInputTokens"] = usage.cached_tokens
    return out


class EventStreamWriter(Writer):
    """A writer whose wire is AWS event-stream frames: each frame steps the framing's
    machine (its prelude, then the frame) as the framer will read it."""

    media_type: ClassVar[str] = MEDIA_TYPE
    #: the exception types this wire's clients know by name
    exceptions: ClassVar[frozenset[str]] = CONVERSE_EXCEPTIONS

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.framing: int = F.INITIAL

    def frame(self, symbol: int, block: bytes, payload: bytes) -> None:
        """One frame the protocol's machine takes as `symbol`."""
        self.step(symbol)
        for framed in (F.SY_PRELUDE, F.SY_FRAME):
            dest = F.NEXT[self.framing][framed]
            if dest < 0:
                raise EncodeError(
                    F.NAME, F.STATES[self.framing], F.SYMBOLS[framed], "its framer has no such transition"
                )
            self.framing = dest
        self.write(frame_with_block(block, payload))

    def exception(self, symbol: int, error: ProviderError) -> None:
        """The exception frame that fails the stream: its type where this wire's
        clients know it, else a model stream error (the type given is listed in
        `dropped`); an integer code as the model's `originalStatusCode`."""
        kind = error.type if error.type in self.exceptions else STREAM_FAILURE
        if error.type is not None and kind != error.type:
            self.dropped.append(f"error type {error.type} (written as {kind})")
        payload: dict[str, Any] = {"message": error.message}
        if kind == STREAM_FAILURE and type(error.code) is int:
            payload["originalStatusCode"] = error.code
        self.frame(symbol, exception_block(kind), orjson.dumps(payload))

    def keep_alive(self) -> bytes:
        """The event stream has no frame that means nothing: a silent model sends nothing."""
        return b""


# what the open group is on the wire
_NONE: Final = 0
_CONTENT: Final = 1  # text or reasoning: no start, the first delta opens it
_TOOL: Final = 2
_IMAGE: Final = 3


class BedrockConverseWriter(EventStreamWriter):
    protocol: ClassVar[str] = "bedrock_converse"
    machine: ClassVar[Any] = M
    carries: ClassVar[frozenset[str]] = frozenset({"signature", "citations"})

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.index = 0  # the index of the next block on the wire
        self.block = _NONE
        self.opened = False  # a frame of the open group was written
        self.redacted = False
        self.text_head = _TEXT_HEAD % 0
        self.thinking_head = _THINKING_HEAD % 0

    def fidelity(self, fidelity: Fidelity | None) -> dict[str, Any]:
        return kin_fidelity(self, fidelity, frozenset((self.protocol,)), self.carries)

    def _event(self, symbol: int, block: bytes, obj: dict[str, Any]) -> None:
        self.frame(symbol, block, orjson.dumps(obj))

    def begin(self) -> None:
        self._event(M.SY_MESSAGE_START, _MESSAGE_START, {"role": "assistant"})

    def open(self, first: DeltaItem) -> None:
        self.opened = self.redacted = False
        if type(first) is TextDelta or type(first) is ThinkingDelta:
            self.block = _CONTENT
            self.text_head = _TEXT_HEAD % self.index
            self.thinking_head = _THINKING_HEAD % self.index
        elif type(first) is ToolCallDelta:
            self.block = _TOOL
            self._start({"toolUse": {"toolUseId": first.tool_call_id, "name": first.name}})
        elif type(first) is InlineDataDelta and first.mime_type.startswith("image/"):
            self.block = _IMAGE
            self._start({"image": {"format": first.mime_type.removeprefix("image/")}})
        else:
            self.block = _NONE
            self.dropped.append(f"{first.type} (no place in Bedrock's ConverseStream)")

    def _start(self, start: dict[str, Any]) -> None:
        self.opened = True
        self._event(M.SY_BLOCK_START, _BLOCK_START, {"contentBlockIndex": self.index, "start": start})

    def _delta(self, delta: dict[str, Any]) -> None:
        """A delta of the open block; the first of a text or reasoning block opens it."""
        symbol = M.SY_BLOCK_DELTA if self.opened else M.SY_NEW_DELTA
        self.opened = True
        self._event(symbol, _BLOCK_DELTA, {"contentBlockIndex": self.index, "delta": delta})

    def delta(self, item: DeltaItem) -> None:
        block = self.block
        if type(item) is TextDelta:
            if block == _CONTENT:
                self._text(item)
        elif type(item) is ThinkingDelta:
            if block == _CONTENT:
                self._reasoning(item)
        elif type(item) is ToolCallDelta:
            self.fidelity(item.fidelity)
            if block == _TOOL and item.arguments:
                self._delta({"toolUse": {"input": item.arguments}})
        elif type(item) is InlineDataDelta:
            self.fidelity(item.fidelity)
            if block == _IMAGE and item.data:
                self._delta({"image": {"source": {"bytes": base64.b64encode(item.data).decode()}}})

    def _string_delta(self, head: bytes, text: str, closing: bytes) -> None:
        """A text or reasoning-text delta, written from a template: the frame _delta
        would write, byte for byte (tests/test_encode_bedrock.py checks the two agree)."""
        symbol = M.SY_BLOCK_DELTA if self.opened else M.SY_NEW_DELTA
        self.opened = True
        self.frame(symbol, _BLOCK_DELTA, head + orjson.dumps(text) + closing)

    def _text(self, item: TextDelta) -> None:
        if item.text:
            self._string_delta(self.text_head, item.text, b"}}")
        if item.fidelity:
            for citation in self.fidelity(item.fidelity).get("citations") or ():
                self._delta({"citation": citation})

    def _reasoning(self, item: ThinkingDelta) -> None:
        if self.redacted:
            return
        fidelity = self.fidelity(item.fidelity)
        signature = fidelity.get("signature")
        if not self.opened and item.thinking == REDACTED_THINKING and type(signature) is str:
            # MMSP's redacted convention: the opaque data is the whole block
            self.redacted = True
            self._delta({"reasoningContent": {"redactedContent": signature}})
            return
        if item.thinking:
            self._string_delta(self.thinking_head, item.thinking, b"}}}")
        if type(signature) is str and signature:
            self._delta({"reasoningContent": {"signature": signature}})

    def close(self, done: DoneItem) -> None:
        if self.opened:
            self._event(M.SY_BLOCK_STOP, _BLOCK_STOP, {"contentBlockIndex": self.index})
            self.index += 1
        self.block = _NONE
        self.opened = False

    def stop(self, event: StopEvent) -> None:
        self._event(M.SY_MESSAGE_STOP, _MESSAGE_STOP, {"stopReason": NATIVE_FINISH[event.finish_reason]})
        if event.usage.thoughts_tokens is not None:
            self.dropped.append("usage thoughts_tokens (counted in outputTokens)")
        # the latency is not known here; the service model requires the field
        metadata = {"usage": converse_usage(event.usage), "metrics": {"latencyMs": 0}}
        self._event(M.SY_METADATA, _METADATA, metadata)

    def fail(self, error: ProviderError) -> None:
        self.exception(M.SY_ERROR, error)
