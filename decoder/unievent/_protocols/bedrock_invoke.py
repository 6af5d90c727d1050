# Amazon Bedrock InvokeModelWithResponseStream: `chunk` frames carrying the model's own
# stream events (AWS event-stream framing; `exception:<type>` and `error:<code>` frames
# fail, as for ConverseStream).
#
# Frame lifecycle: the generated machine from machines/bedrock_invoke.py.  Each chunk's
# `bytes` (base64) decode to one JSON object, the model family's own event, handed to
# that family's handler, which shares this stream's session (its items, usage, finish
# reason and side events are the stream's):
#
# - an object with a string `type` (Anthropic Claude: `message_start`,
#   `content_block_delta`, ... without SSE framing): the `anthropic` handler;
# - an object with a `choices` list (OpenAI gpt-oss and the other chat.completion.chunk
#   models on Bedrock): the `openai_chat` handler;
# - an object with one key that names a ConverseStream event (Amazon Nova:
#   `{"contentBlockDelta": {...}}`): the `bedrock_converse` handler, that key as the
#   event name.
#
# The first chunk of a known family picks it.  A chunk of no known family before that
# (Titan `outputText`, Llama `generation`, Mistral `outputs`, Cohere `generations`) is
# kept on the side channel, noted: those formats are not decoded.  The end is the
# family handler's: complete or truncated as its own stream would be; an exception
# frame fails the stream.
#
# A run of chunks whose bytes are Anthropic's hot deltas is taken on demand: each
# chunk `{"bytes":"<base64>","p":"<letters and digits>"}` whose base64 holds nothing
# but the base64 alphabet (so the JSON string is those bytes as they are) is decoded
# without parsing the chunk, and the inner events go to the Anthropic handler's run
# taker, which takes those of its hot shape; everything else is parsed whole.
#
# `amazon-bedrock-invocationMetrics` (on the last inner event) is kept in
# `extras["invocation_metrics"]`; its counts are the usage where the family gave none:
# prompt_tokens = inputTokenCount + cacheWriteInputTokenCount, cached_tokens =
# cacheReadInputTokenCount, response_tokens = outputTokenCount.
from __future__ import annotations

import binascii
from collections.abc import Callable
from typing import Any, ClassVar, Final

from unievent._events import FinishReason
from unievent._framing import FRAME_OK, FRAME_OVER
from unievent._generated import bedrock_invoke as M
from unievent._ondemand import LETTERS_AND_DIGITS, Runs, keeping
from unievent._outcome import End
from unievent._protocols.anthropic import Anthropic
from unievent._protocols.bedrock_converse import BedrockConverse, failure_of, hot_hole
from unievent._protocols.openai_chat import OpenAIChat
from unievent._session import Handler, MachineHandler, Session
from unievent._shared import as_int, parse_json

__all__ = ["BedrockInvoke"]

_NEXT: Final = M.NEXT
_DO: Final = M.DO
# states in which no further frame is read: the decoder stops feeding frames
_TERMINAL: Final = frozenset(s for s in range(len(M.STATES)) if _NEXT[s][M.SY_OTHER] < 0)
_METRICS: Final = "amazon-bedrock-invocationMetrics"
_CHUNK: Final = M.SY_CHUNK
# states whose chunk transition is "stay here and hand the chunk over" (from the table)
_HAND_OVER_LOOPS: Final = frozenset(
    s for s in range(len(M.STATES)) if _NEXT[s][_CHUNK] == s and _DO[s][_CHUNK] == (M.A_HAND_OVER,)
)
_CHUNK_HEAD: Final = b'{"bytes":'
_CHUNK_PADDED: Final = b',"p":"'
# bytes.translate through it leaves the base64 alphabet as it is and changes any other
# byte (a quote, a backslash, a control character: what a JSON string could escape)
_BASE64_TABLE: Final = keeping(LETTERS_AND_DIGITS + b"+/=")
_a2b_base64: Final = binascii.a2b_base64
_CONVERSE_EVENTS: Final = frozenset(
    ("messageStart", "contentBlockStart", "contentBlockDelta", "contentBlockStop", "messageStop", "metadata")
)


def _family(obj: dict[str, Any]) -> str | None:
    """The model family an inner event belongs to (None: not one this decodes)."""
    if type(obj.get("type")) is str:
        return "anthropic"
    if type(obj.get("choices")) is list:
        return "openai_chat"
    if _converse_event(obj) is not None:
        return "bedrock_converse"
    return None


def _converse_event(obj: dict[str, Any]) -> str | None:
    """The ConverseStream event an object holds: its one key beside the invocation
    metrics (Nova's last chunk holds `metadata` and the metrics together)."""
    names = [key for key in obj if key != _METRICS]
    return names[0] if len(names) == 1 and names[0] in _CONVERSE_EVENTS else None


_FAMILIES: Final[dict[str, Callable[[Session], Handler]]] = {
    "anthropic": Anthropic,
    "openai_chat": OpenAIChat,
    "bedrock_converse": BedrockConverse,
}


class BedrockInvoke(MachineHandler):
    """Protocol handler for `bedrock_invoke` (see StreamDecoder)."""

    machine: ClassVar[Any] = M

    def __init__(self, session: Session) -> None:
        self.session = session
        self.state = M.INITIAL
        self.family: str | None = None
        self.inner: Handler | None = None
        self.over = False  # the inner handler ended the stream
        self.fast_frames = 0  # chunks taken on demand
        self.runs = Runs()  # the run taker's window (see _ondemand.Runs)

    # --- on demand --------------------------------------------------------------------

    def raw(self, event: str | None, payload: bytes) -> int:
        """The framer's sink: the frame parsed whole (the decoder's parse), then read."""
        obj = self.parse(event, payload)
        if isinstance(obj, int):
            return obj
        return FRAME_OVER if self.frame(event, obj) else FRAME_OK

    def raw_run(self, heads: list[bytes] | None, payloads: list[bytes], start: int) -> int:
        """The framer's run taker: chunks from `start` on whose base64 is plain and whose
        inner events the Anthropic handler's run taker takes, each exactly as `raw`
        takes it; the index of the first chunk not taken."""
        inner = self.inner
        if heads is None or self.over or self.state not in _HAND_OVER_LOOPS or not isinstance(inner, Anthropic):
            return start
        head = inner.hot_head  # what each of its hot events starts with: none is decoded past the run
        if head is None:
            return start
        skip = len(head)
        bodies: list[bytes] = []
        runs = self.runs
        for at in range(start, min(len(payloads), start + runs.window)):
            if heads[at] != b"chunk":
                break
            hole = hot_hole(payloads[at], _CHUNK_HEAD, b"", _CHUNK_PADDED)
            if hole is None or len(hole) < 2 or hole[0] != 34 or hole[-1] != 34:  # 34: a quote
                break
            data = hole[1:-1]
            if data.translate(_BASE64_TABLE) != data:
                break
            try:
                body = _a2b_base64(data)
            except binascii.Error:
                break
            if body[:skip] != head:
                break
            bodies.append(body)
        taken = 0
        count = len(bodies)
        while taken < count:  # the inner taker takes at most its own window at a time
            more = inner.raw_run(None, bodies, taken)
            if more == taken:
                break
            taken = more
        runs.took(count, taken)
        self.fast_frames += taken
        return start + taken

    # --- frames ---------------------------------------------------------------------

    def frame(self, event: str | None, obj: dict[str, Any]) -> bool:
        inner: Any = None
        if event == "chunk":
            inner = self._inner_object(obj)
            symbol = M.SY_CHUNK if inner is not None else M.SY_BAD_CHUNK
        elif event is not None and event.startswith(("exception:", "error:")):
            symbol = M.SY_ERROR
        else:
            symbol = M.SY_OTHER
        state = self.state
        dest = _NEXT[state][symbol]
        self.state = dest
        for action in _DO[state][symbol]:
            _ACTIONS[action](self, event or "", inner if action == M.A_HAND_OVER else obj)
        return self.over or dest in _TERMINAL

    def _inner_object(self, obj: dict[str, Any]) -> Any:
        """The event a chunk carries: a JSON object (or the JSON string `[DONE]`), None
        when its bytes are not that."""
        data = obj.get("bytes")
        if type(data) is not str:
            return None
        try:
            value = parse_json(binascii.a2b_base64(data))
        except (binascii.Error, ValueError):
            return None
        return value if type(value) is dict or value == "[DONE]" else None

    def done_sentinel(self) -> bool:
        """`[DONE]` is no frame of an event stream: it changes nothing."""
        return False

    def end(self) -> End:
        state = self.state
        self.state = _NEXT[state][M.SY_EOF]
        if self.state == M.ST_DELEGATED:
            if self.inner is not None:
                return self.inner.end()
            return "truncated"  # chunks of no family this decodes
        return "failed" if self.state == M.ST_FAILED else "truncated"

    def state_name(self) -> str:
        name = str(M.STATES[self.state])
        return f"{name} ({self.family}: {self.inner.state_name()})" if self.inner is not None else name

    def finish_reason(self) -> FinishReason:
        return self.inner.finish_reason() if self.inner is not None else "unknown"

    def at_end(self) -> None:
        if self.inner is not None:
            self.inner.at_end()

    def before_stop(self) -> None:
        if self.inner is not None:
            self.inner.before_stop()

    def closes_open_items(self, end: End) -> bool:
        return self.inner.closes_open_items(end) if self.inner is not None else True

    def let_go(self) -> None:
        super().let_go()
        if self.inner is not None:
            self.inner.let_go()

    # --- actions --------------------------------------------------------------------

    def _hand_over(self, event: str, inner: Any) -> None:
        session = self.session
        if type(inner) is not dict:  # "[DONE]"
            if self.inner is not None and not self.over:
                self.over = self.inner.done_sentinel()
            return
        metrics = inner.get(_METRICS)
        family = _family(inner)
        if self.inner is None and family is not None:
            self.family = family
            self.inner = _FAMILIES[family](session)
        if self.inner is None or family != self.family:
            what = f"a chunk of a model family not decoded ({family or 'unknown'})"
            session.note("unknown_model_family", f"{what} kept as a side event")
            session.side_event("chunk", "info", None, inner)
        elif not self.over:
            if family == "bedrock_converse":
                name = _converse_event(inner)
                body = inner[name] if name is not None else None
                self.over = self.inner.frame(name, body if type(body) is dict else {})
            else:
                self.over = self.inner.frame(None, inner)
        if type(metrics) is dict:
            self._metrics(metrics)

    def _metrics(self, metrics: dict[str, Any]) -> None:
        """The invocation metrics, and their counts where the family gave none."""
        session = self.session
        session.extras["invocation_metrics"] = metrics
        raw = session.raw_usage
        fresh = as_int(metrics.get("inputTokenCount"))
        written = as_int(metrics.get("cacheWriteInputTokenCount"))
        counts = {
            "prompt": fresh + (written or 0) if fresh is not None else None,
            "cached": as_int(metrics.get("cacheReadInputTokenCount")),
            "response": as_int(metrics.get("outputTokenCount")),
        }
        for name, value in counts.items():
            if value is not None and value >= 0 and name not in raw:
                raw[name] = value

    def _note_bad_chunk(self, event: str, obj: dict[str, Any]) -> None:
        self.session.note("bad_chunk", "a chunk whose bytes are no base64 JSON object was skipped")

    def _record_error(self, event: str, obj: dict[str, Any]) -> None:
        self.session.fail(failure_of(event, obj))

    def _note_other(self, event: str, obj: dict[str, Any]) -> None:
        name = event or "unknown"
        self.session.note("unknown_frame", f"unknown event {name[:60]!r} kept on the side channel")
        self.session.side_event(name, "info", None, obj)


_ACTIONS: Final[tuple[Callable[[BedrockInvoke, str, Any], None], ...]] = tuple(
    getattr(BedrockInvoke, "_" + name) for name in M.ACTIONS
)
