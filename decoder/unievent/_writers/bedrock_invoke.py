# Amazon Bedrock InvokeModelWithResponseStream written from UniEvents, as Claude's
# stream (the reader is _protocols/bedrock_invoke.py; both run
# machines/bedrock_invoke.py).
#
# Each of Claude's own Messages events, as the Anthropic writer writes them (stepping
# machines/anthropic.py, the table the reader's inner handler runs), goes out as one
# `chunk` frame: `{"bytes": <base64 of the event's JSON>}`.  The last, `message_stop`,
# carries `amazon-bedrock-invocationMetrics` with the token counts, as Bedrock adds
# them.  A failure is an exception frame, never Anthropic's `error` event: Bedrock
# reports a failed stream in its own framing.
from __future__ import annotations

import base64
from typing import Any, ClassVar, Final

import attrs
import orjson

from unievent._events import DeltaItem, DoneItem, Fidelity, StopEvent, Usage
from unievent._generated import bedrock_invoke as M
from unievent._outcome import ProviderError
from unievent._writers.anthropic import AnthropicWriter
from unievent._writers.bedrock_converse import CONVERSE_EXCEPTIONS, EventStreamWriter, event_block, kin_fidelity

__all__ = ["BedrockInvokeWriter", "invocation_metrics"]

_CHUNK: Final = event_block("chunk")
_METRICS: Final = "amazon-bedrock-invocationMetrics"
_MESSAGE_STOP: Final = b'{"type":"message_stop"}'
_DATA: Final = b"data: "
# Claude's events on Bedrock have the shapes of Anthropic's own
_CLAUDE_SHAPES: Final = frozenset(("anthropic", "bedrock_invoke"))


def invocation_metrics(usage: Usage) -> dict[str, int]:
    """MMSP usage as Bedrock's invocation metrics, the reader's reading inverted:
    inputTokenCount is prompt_tokens (cache writes included), cacheReadInputTokenCount
    cached_tokens, outputTokenCount every generated token (as Claude's output_tokens).
    A count the events do not have is left out."""
    out: dict[str, int] = {}
    if usage.prompt_tokens is not None:
        out["inputTokenCount"] = usage.prompt_tokens
    if usage.response_tokens is not None:
        out["outputTokenCount"] = usage.response_tokens + (usage.thoughts_tokens or 0)
    if usage.cached_tokens is not None:
        out["cacheReadInputTokenCount"] = usage.cached_tokens
    return out


class _ClaudeEvents(AnthropicWriter):
    """The Anthropic writer inside a Bedrock stream: its fidelity is judged by the
    Bedrock writer's source, and what it drops is listed with the Bedrock writer's."""

    def __init__(self, outer: BedrockInvokeWriter) -> None:
        super().__init__(attrs.evolve(outer.options, pings=False))
        self.outer = outer
        self.dropped = outer.dropped

    def fidelity(self, fidelity: Fidelity | None) -> dict[str, Any]:
        self.fidelity_source = self.outer.fidelity_source
        return kin_fidelity(self, fidelity, _CLAUDE_SHAPES, self.carries)


class BedrockInvokeWriter(EventStreamWriter):
    protocol: ClassVar[str] = "bedrock_invoke"
    machine: ClassVar[Any] = M
    carries: ClassVar[frozenset[str]] = AnthropicWriter.carries
    exceptions: ClassVar[frozenset[str]] = CONVERSE_EXCEPTIONS | {"modelTimeoutException"}
    #: the type of the chunks' bytes, which boto3 gives as the response's `contentType`
    response_headers: ClassVar[tuple[tuple[bytes, bytes], ...]] = (
        (b"x-amzn-bedrock-content-type", b"application/json"),
    )

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.claude: _ClaudeEvents | None = None

    def _claude(self) -> _ClaudeEvents:
        # made at the first event: the options name the source's model by then
        if self.claude is None:
            self.claude = _ClaudeEvents(self)
        return self.claude

    def _relay(self, metrics: dict[str, int] | None = None) -> None:
        """Each SSE frame the Anthropic writer wrote, as one chunk frame of its JSON."""
        for sse in self._claude().take().split(b"\n\n"):
            at = sse.find(_DATA)
            if at < 0:
                continue
            data = sse[at + len(_DATA) :]
            if metrics is not None and data == _MESSAGE_STOP:
                data = orjson.dumps({"type": "message_stop", _METRICS: metrics})
            self.frame(M.SY_CHUNK, _CHUNK, b'{"bytes":"' + base64.b64encode(data) + b'"}')

    def begin(self) -> None:
        self._claude().begin()
        self._relay()

    def open(self, first: DeltaItem) -> None:
        self._claude().open(first)
        self._relay()

    def delta(self, item: DeltaItem) -> None:
        self._claude().delta(item)
        self._relay()

    def close(self, done: DoneItem) -> None:
        self._claude().close(done)
        self._relay()

    def stop(self, event: StopEvent) -> None:
        self._claude().stop(event)
        self._relay(invocation_metrics(event.usage))

    def fail(self, error: ProviderError) -> None:
        self.exception(M.SY_ERROR, error)
