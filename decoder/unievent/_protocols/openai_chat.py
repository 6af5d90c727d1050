# OpenAI-compatible Chat Completions (`data: {chat.completion.chunk}` ... `[DONE]`).
#
# Frame lifecycle: the generated machine from machines/openai_chat.py.  This module
# owns the content of a chunk: which fields carry reasoning and text, how tool-call
# fragments find their call (index, else id, else position), when a call may be
# announced (MMSP needs its name and id on the first delta), usage and finish-reason
# mapping.  Gateway quirks absorbed here are listed beside the code that absorbs them.
# The OpenAI-compatible Gemini endpoint sends a thought signature as `extra_content`
# ({"google": {"thought_signature": ...}}) on a tool call or on a text delta: it is kept
# whole as that item's fidelity `{"extra_content": ...}`, to be sent back as it came.
#
# Logprobs (`choices[].logprobs`): `content` entries belong to the text the chunk
# carries (or, on a chunk without text, to the text item still open), `refusal`
# entries to the refusal; they are gathered in order and ride on the text item as
# fidelity `{"logprobs": [...]}` on one empty delta before its done, with the item's
# annotations.  A text item that would carry a fidelity from its start waits for them
# instead: an `extra_content` joins them at the close, and a refusal whose chunks carry
# logprobs is held whole and goes out at its end as one delta carrying
# `{"refusal": true, "logprobs": [...]}` (the refusal mark must ride on the first
# delta: writers write a refusal's text in `refusal` from the start).  Entries of a
# chunk that feeds no text item (reasoning or tool-call tokens, as some servers log
# them) have no item to ride on: the anomaly `logprobs_without_text` counts them.
#
# Custom tools (`{"type": "custom", "custom": {"name", "input"}}` tool-call deltas) are
# tool calls whose arguments are `{"input": text}`, as the Responses decoder reads a
# `custom_tool_call`; the input streams as fragments of that JSON text, escaped, and
# the call's fidelity is `{"item_type": "custom"}`.
#
# Audio output (`modalities: ["text", "audio"]`): `delta.audio` objects bring the
# answer's `id`, base64 `data` (pcm16 when streaming) and `transcript` pieces, and end
# with one carrying only `expires_at`.  The audio is one inline_data item of type
# AUDIO_PCM, the transcript a text item whose fidelity `{"audio_transcript": true}`
# rides on its first delta (writers write its text in `audio.transcript` from the
# start).  An item carries one fidelity and groups never interleave, while the wire
# interleaves the two kinds: the kind that arrives first streams live, and the other
# is held, in arrival order, until the live item ends (`expires_at`, the finish chunk,
# another item, the end of input), then goes out as an item of its own.  The audio's
# fidelity `{"audio_id", "expires_at"}` (the keys that came) is known whole only
# then: it rides on an empty delta before a live audio's done, on the first delta of
# a held one, and on an audio of no bytes when no data came at all.
from __future__ import annotations

import binascii
from typing import Any, ClassVar, Final

from unievent._events import FinishReason
from unievent._framing import FRAME_OK, FRAME_OVER
from unievent._generated import openai_chat as M
from unievent._grammar import parse_arguments
from unievent._jsonscan import Nesting
from unievent._ondemand import Runs, Template
from unievent._outcome import ProviderError
from unievent._session import MachineHandler, Session
from unievent._shared import CUSTOM_INPUT_CLOSE, CUSTOM_INPUT_OPEN, error_of, json_string_body, json_text, shown
from unievent._usage_wire import UsageWire

__all__ = ["AUDIO_PCM", "OpenAIChat", "normalize_openai_finish"]

_NEXT: Final = M.NEXT
_DO: Final = M.DO
_APPLY: Final = M.A_APPLY_CHUNK
_FINISH: Final = M.A_RECORD_FINISH
_ERROR: Final = M.A_RECORD_ERROR
_SY_CHUNK: Final = M.SY_CHUNK
_SY_FINISH_CHUNK: Final = M.SY_FINISH_CHUNK
# _APPLY_ONLY[state][symbol]: the transition's only action is apply_chunk (frame()
# runs it inline; everything else goes through _fire)
_APPLY_ONLY: Final = tuple(tuple(actions == (_APPLY,) for actions in row) for row in _DO)
# states in which no further chunk is read: the decoder stops feeding frames
_TERMINAL: Final = frozenset(s for s in range(len(M.STATES)) if _NEXT[s][M.SY_CHUNK] < 0)
# states whose chunk transition is "stay here and apply the chunk": where the on-demand
# path may take a text chunk (the table still decides)
_CHUNK_LOOPS: Final = tuple(_NEXT[s][_SY_CHUNK] == s and _APPLY_ONLY[s][_SY_CHUNK] for s in range(len(M.STATES)))
_CONTENT: Final = ("choices", 0, "delta", "content")
_ARGUMENTS: Final = ("choices", 0, "delta", "tool_calls", 0, "function", "arguments")
_LEARN_TRIES: Final = 4  # full-path text chunks from which a template is learned, at most

_RF_CONTENT: Final = {"reasoning_field": "reasoning_content"}
_RF_REASONING: Final = {"reasoning_field": "reasoning"}
_REFUSAL: Final = {"refusal": True}
_TRANSCRIPT: Final = {"audio_transcript": True}
#: the streamed audio's type: pcm16 as Chat Completions streams it (24 kHz, mono)
AUDIO_PCM: Final = "audio/pcm; encoding=s16le; rate=24000; channels=1"
_CUSTOM: Final = "custom"  # a custom tool's call: its tool-call `type` and fidelity `item_type`
# delta fields that open an item (any other field, known or not, leaves a custom call's
# input open)
_ITEM_FIELDS: Final = (
    "content", "refusal", "reasoning_content", "reasoning", "reasoning_details", "annotations", "extra_content",
)  # fmt: skip

_FINISH_MAP: Final[dict[str, FinishReason]] = {
    "stop": "stop",
    "length": "length",
    "tool_calls": "tool_call",
    "function_call": "tool_call",
}


#: the usage object's counts (written back by _writers/openai_chat.py)
USAGE: Final = UsageWire(
    (
        (("prompt_tokens",), "prompt_raw"),
        (("completion_tokens",), "completion_raw"),
        (("prompt_tokens_details", "cached_tokens"), "cached"),
        (("completion_tokens_details", "reasoning_tokens"), "thoughts"),
    ),
    {"prompt_raw": ("prompt", "cached"), "completion_raw": ("response", "thoughts")},
    ("total_tokens", ("prompt_tokens", "completion_tokens")),
)


def normalize_openai_finish(native: str | None, made_tool_calls: bool) -> FinishReason:
    """MMSP finish reason for a complete Chat stream.

    No reason at all means `tool_call` if the turn made tool calls, else `stop`.  A
    reason the stream names is kept whatever the content: this wire has a word for a
    turn that calls tools (`tool_calls`), so a gateway's `stop` beside tool calls is
    read as `stop` and the calls stay in the message for the caller to run.
    `content_filter` and anything unknown are `unknown`.
    """
    if native is None:
        return "tool_call" if made_tool_calls else "stop"
    return _FINISH_MAP.get(native, "unknown")


def _int(value: Any) -> int | None:
    return value if type(value) is int else None


def _opens_item(delta: dict[str, Any]) -> bool:
    """Whether a delta carries anything that opens an item (text, reasoning, ...)."""
    return any(delta.get(field) for field in _ITEM_FIELDS)


def _custom_part(fragment: dict[str, Any]) -> dict[str, Any] | None:
    """A tool-call fragment's `custom` object, when it is a custom tool's: its type says
    so, or it carries a name or input (gateways echo an empty `custom` on function
    calls; a fragment with a `function` is always a function call's)."""
    custom = fragment.get("custom")
    if type(custom) is not dict:
        return {} if fragment.get("type") == _CUSTOM else None
    if fragment.get("type") == _CUSTOM or type(custom.get("name")) is str or type(custom.get("input")) is str:
        return custom
    return None


def _entries(logprobs: Any, field: str) -> list[Any] | None:
    """The non-empty list of token entries under `field` of a choice's `logprobs`."""
    entries = logprobs.get(field) if type(logprobs) is dict else None
    return entries if type(entries) is list and entries else None


class _Call:
    """One tool call being gathered: its block (text is block 0, the k-th call from 0
    is block k + 1: the numbering of made-up ids) and what arrived."""

    __slots__ = ("args", "block", "closed", "custom", "fidelity", "id", "name", "nesting", "open", "parsed", "tail")

    def __init__(self, block: int) -> None:
        self.block = block
        self.id = ""
        self.name = ""
        self.args: list[str] = []
        self.open = False  # announced and its group is the open one
        self.closed = False  # announced and its group has closed
        # the arguments' nesting, tracked only once another call waits for this one
        self.nesting: Nesting | None = None
        self.parsed: bool | None = None  # whether the complete arguments parsed
        self.fidelity: dict[str, Any] | None = None
        self.custom = False  # a custom tool's call: its arguments are {"input": text}
        self.tail = ""  # what closes the arguments' JSON text while it is open (custom calls)

    def become_custom(self) -> None:
        """The arguments are the JSON text around the input, escaped as it arrives."""
        self.custom = True
        self.args.insert(0, CUSTOM_INPUT_OPEN)
        self.tail = CUSTOM_INPUT_CLOSE
        self.fidelity = {**(self.fidelity or {}), "item_type": _CUSTOM}

    def add(self, fragment: str) -> None:
        self.args.append(fragment)
        if self.nesting is not None:
            self.nesting.feed(fragment)

    def complete_object(self) -> bool:
        """Whether the arguments so far are one whole JSON object: the text is scanned
        once, as it arrives, and parsed once, when its nesting closes (what follows a
        closed value can only spoil it).  A custom call's input is free text: whole
        whenever another call begins."""
        if self.custom:
            return True
        if self.nesting is None:
            self.nesting = Nesting()
            for fragment in self.args:
                self.nesting.feed(fragment)
        if not self.nesting.complete:
            return False
        if self.parsed is None:
            self.parsed = parse_arguments("".join(self.args)) is not None
        return self.parsed


class _Audio:
    """One audio answer being gathered: its id and expiry as they came, which kind
    streams live ("data" or "transcript", the first to arrive), and the pieces of the
    other kind, held until the live item ends."""

    __slots__ = ("expires_at", "held_data", "held_text", "id", "live")

    def __init__(self) -> None:
        self.id = ""
        self.expires_at: int | None = None
        self.live = ""
        self.held_data: list[bytes] = []
        self.held_text: list[str] = []

    def fidelity(self) -> dict[str, Any] | None:
        fidelity: dict[str, Any] = {}
        if self.id:
            fidelity["audio_id"] = self.id
        if self.expires_at is not None:
            fidelity["expires_at"] = self.expires_at
        return fidelity or None


class OpenAIChat(MachineHandler):
    """Protocol handler for `openai_chat` (see StreamDecoder)."""

    machine: ClassVar[Any] = M

    def __init__(self, session: Session) -> None:
        self.session = session
        self.asm = session.asm
        self.state = M.INITIAL
        self.calls: dict[int, _Call] = {}  # by the protocol's index, else id, else position
        self.by_id: dict[str, _Call] = {}
        self.next_key = 0  # one past the highest key in `calls`
        self.current: _Call | None = None
        self.made_calls = False
        self.model: str | None = None
        self.annotations: list[Any] = []  # url_citation annotations of the open text
        # what rides on the open text item at its close besides them: its logprobs
        # entries, and an `extra_content` that came while they were gathered
        self.logprobs: list[Any] = []
        self.extra: dict[str, Any] | None = None
        self.held: list[str] | None = None  # a refusal whose chunks carry logprobs, held whole
        self.custom: _Call | None = None  # the custom call whose arguments' JSON text is open
        self.audio: _Audio | None = None  # the audio answer whose items are open or held
        # on-demand parsing (see _ondemand.py): the learned text chunk, how often the
        # full path may still learn one, and whether the last frame could teach it
        self.hot: Template | None = None
        self.hot_args: Template | None = None  # the open call's arguments fragment
        self.hot_call: _Call | None = None
        self.learn_tries = _LEARN_TRIES
        self.learnable: bool | None = None
        self.learnable_call: _Call | None = None
        self.fast_frames = 0
        self.refusing = False  # the open text item is a refusal
        self.plain = True  # a chunk of nothing but text is text: no refusal, no custom call open
        self.choice = session.choice  # which of n choices is read
        self.runs = Runs()  # the run taker's window (see _ondemand.Runs)

    # --- frames ---------------------------------------------------------------------

    def raw(self, event: str | None, payload: bytes) -> int:
        """The framer's sink: a text chunk, or an arguments fragment of the open tool
        call, that matches its learned template is applied on demand; every other
        frame is parsed whole (`parse`) and goes to `frame`."""
        if event != "error" and _CHUNK_LOOPS[self.state]:
            hot = self.hot
            if hot is not None:
                text = hot.match(payload)
                if text is not None:
                    self.state = _NEXT[self.state][_SY_CHUNK]  # the table's loop: stay, apply_chunk
                    self.asm.text(text)
                    self.fast_frames += 1
                    return FRAME_OK
            hot = self.hot_args
            if hot is not None:
                fragment = hot.match(payload)
                call = self.current
                if fragment is not None and call is self.hot_call and call is not None and call.open:
                    self.state = _NEXT[self.state][_SY_CHUNK]
                    if self.asm.open_kind != "tool_call":
                        call.open, call.closed = False, True  # as _update would find it
                        self._update(call, "", "", fragment)
                    elif fragment:
                        call.add(fragment)
                        self.asm.tool_arguments(fragment)
                    self.fast_frames += 1
                    return FRAME_OK
        obj = self.parse(event, payload)
        if isinstance(obj, int):
            return obj
        over = self.frame(event, obj)
        # what frame() found it could learn from: None again before the next frame (reset
        # after reading, not before the call, which mypy would narrow to None, and a
        # compiled handler checks the narrowed type)
        learnable = self.learnable
        learnable_call = self.learnable_call
        self.learnable = self.learnable_call = None
        if self.learn_tries and not over:
            if learnable is not None:
                self._learn(Template.learn(payload, obj, _CONTENT, None), None)
            elif learnable_call is not None:
                self._learn(Template.learn(payload, obj, _ARGUMENTS, None), learnable_call)
        return FRAME_OVER if over else FRAME_OK

    def raw_run(self, heads: list[bytes] | None, payloads: list[bytes], start: int) -> int:
        """The framer's run taker: text chunks matching the learned template from
        `start` on, each exactly as `raw` takes it; the index of the first frame not
        taken (tool-call fragments and anything else are left to `raw`)."""
        hot = self.hot
        # named frames are left to `raw`, which reads an `error` name as an error
        if hot is None or heads is not None or not _CHUNK_LOOPS[self.state]:  # the table's loop: stay, apply_chunk
            return start
        runs = self.runs
        holes = hot.holes_of_run(payloads, start, start + runs.window)
        if not holes:  # a frame of another shape: no call to parse nothing
            return start
        values = runs.strings(holes)
        n = start + len(values)
        if n > start:
            self.asm.texts(values)
            self.fast_frames += n - start
        return n

    def _learn(self, template: Template | None, call: _Call | None) -> None:
        if template is None:
            self.learn_tries -= 1
            return
        self.learn_tries = _LEARN_TRIES
        if call is None:
            self.hot = template
        else:
            self.hot_args, self.hot_call = template, call

    def frame(self, event: str | None, obj: dict[str, Any]) -> bool:
        if obj.get("error") is not None or event == "error":
            return self._fire(M.SY_ERROR, obj, None, event)
        choices: Any = obj.get("choices")
        choice = choices[0] if type(choices) is list and choices else None
        if type(choice) is dict and (len(choices) > 1 or choice.get("index", 0) != self.choice):  # n > 1
            choice = self._chosen(choices)
        if type(choice) is dict:
            finish = choice.get("finish_reason")
            symbol = _SY_FINISH_CHUNK if finish and type(finish) is str else _SY_CHUNK
        elif obj.get("object") == "error":  # vLLM and kin: a bare error object
            return self._fire(M.SY_ERROR, obj, None, event)
        else:
            choice = None
            symbol = _SY_CHUNK
        state = self.state
        if not _APPLY_ONLY[state][symbol]:
            return self._fire(symbol, obj, choice, event)
        self.state = _NEXT[state][symbol]  # the common case: the only action is apply_chunk
        self._apply_chunk(obj, choice)
        return False

    def done_sentinel(self) -> bool:
        return self._fire(M.SY_DONE_SENTINEL, {}, None, None)

    def _chosen(self, choices: list[Any]) -> dict[str, Any] | None:
        """The entry of the choice this decoder reads (`choices[].index`, else its
        position); the others are counted, and kept as side events, never mixed in."""
        chosen = None
        for position, entry in enumerate(choices):
            index = entry.get("index") if type(entry) is dict else None
            if type(index) is not int:
                index = position
            if index == self.choice:
                chosen = entry if chosen is None else chosen
                continue
            others = self.session.extras.setdefault("other_choices", [])
            if index in others:
                self.session.note("other_choices")
            else:
                others.append(index)
                others.sort()
                self.session.note("other_choices", f"choice {index} (this decoder reads choice {self.choice})")
            if type(entry) is dict:
                self.session.side_event("choice", "delta", str(index), entry)
        return chosen

    def _fire(self, symbol: int, obj: dict[str, Any], choice: dict[str, Any] | None, event: str | None) -> bool:
        state = self.state
        dest = _NEXT[state][symbol]
        if dest < 0:
            self.session.note("ignored_frame", f"{M.SYMBOLS[symbol]} in state {M.STATES[state]} ignored")
            return state in _TERMINAL
        self.state = dest
        for action in _DO[state][symbol]:
            if action == _APPLY:
                self._apply_chunk(obj, choice)
            elif action == _FINISH:
                assert choice is not None
                self.session.native_finish_reason = choice["finish_reason"]
                if self.audio is not None:
                    self._end_audio()
            elif action == _ERROR:
                self.session.fail(error_of(event, obj) or ProviderError("error event"))
                usage = obj.get("usage")
                if usage:
                    self._usage(usage)  # a failing gateway may still report usage
        return dest in _TERMINAL

    # --- one chunk ------------------------------------------------------------------

    def _apply_chunk(self, obj: dict[str, Any], choice: dict[str, Any] | None) -> None:
        if self.session.response_id is None:
            # the first chunk's id (gateways may vary it per chunk; Azure's first
            # chunk has an empty one); chunks taken on demand repeat a read one
            self.session.take_response_id(obj.get("id"))
        model = obj.get("model")
        if model != self.model and model and type(model) is str:
            self.model = self.session.model = model
            # a learned template's frames name the model it was learned with: taking
            # them on demand is right only while that is the model
            self.hot = self.hot_args = None
        if obj.get("usage"):
            self._usage(obj["usage"])
        x_groq = obj.get("x_groq")
        if x_groq and type(x_groq) is dict and x_groq.get("usage"):
            self._usage(x_groq["usage"])
        if choice is None:
            return  # heartbeats, Azure prompt_filter_results, usage-only chunks
        delta = choice.get("delta")
        if type(delta) is not dict:
            delta = choice.get("message")
            if type(delta) is not dict:
                return
        content = delta.get("content")
        if len(delta) == 1 and content and type(content) is str and self.plain:
            self.asm.text(content)  # most chunks: a bit of text and nothing else
            logprobs = choice.get("logprobs")
            if logprobs:
                # never learned: a template's frames would be taken without them
                self._chunk_logprobs(logprobs, delta, content, "")
            # a chunk the on-demand path could take: nothing in it but the text (of the
            # one choice it carries: a template's path is that of the first; `choice`
            # is an entry of `choices`, so that is a list)
            elif not obj.get("usage") and not x_groq and not choice.get("finish_reason") and len(obj["choices"]) == 1:
                self.learnable = True
            return
        if self.custom is not None and _opens_item(delta):
            self._close_call(self.custom)  # an item follows the custom call: its input is whole
        if self.audio is not None and _opens_item(delta):
            self._end_audio()  # another item begins: the audio answer's items end first
        logprobs = choice.get("logprobs")
        # order within a chunk: reasoning, then text (and its annotations), audio, tool calls
        self._reasoning(delta)
        refusal = delta.get("refusal")
        if refusal and type(refusal) is str:
            self._refuse(refusal, _entries(logprobs, "refusal"))
        elif self.refusing and content:  # the answer goes on after its refusal: an item of its own
            self._flush_text()
            self.refusing = False
            self._plain()
            self.asm.close()
        extra = delta.get("extra_content")
        if type(extra) is dict and extra:
            # the OpenAI-compatible Gemini endpoint: the thought signature of a text answer
            self._extra_content(content if type(content) is str else "", extra, logprobs)
        elif content:
            if type(content) is str:
                self.asm.text(content)
            elif type(content) is list:
                self._typed_content(content)
        annotations = delta.get("annotations")
        if annotations and type(annotations) is list:
            self._annotate(annotations)
        audio = delta.get("audio")
        if audio:
            self._audio(audio)
        if logprobs:
            self._chunk_logprobs(logprobs, delta, content, refusal if type(refusal) is str else "")
        tool_calls = delta.get("tool_calls")
        if tool_calls and type(tool_calls) is list:
            if self.audio is not None:
                self._end_audio()
            self._tool_calls(tool_calls)
            alone = len(delta) == 1 and len(tool_calls) == 1 and len(obj["choices"]) == 1
            if alone and not obj.get("usage") and not x_groq and not logprobs:
                self._learnable_fragment(tool_calls[0], choice)

    def _plain(self) -> None:
        self.plain = not self.refusing and self.custom is None and self.audio is None

    def _refuse(self, refusal: str, entries: list[Any] | None) -> None:
        """Structured outputs' refusal: visible text, its item marked `{"refusal": True}`
        (the frames of the text template are taken no more: their text is no refusal).
        A refusal whose first chunk carries logprobs is held whole (see the header)."""
        if not self.refusing:  # the text before it is an item of its own
            self._flush_text()
            self.refusing = True
            self._plain()
            self.hot = None
            self.asm.close()
            self.held = [] if entries is not None else None
        held = self.held
        if held is not None:
            held.append(refusal)
            if entries is not None:
                self.logprobs.extend(entries)
            return
        self.asm.text(refusal, _REFUSAL)
        if entries is not None:
            self._no_item(entries, "a refusal whose mark went out before its logprobs came")

    def _extra_content(self, content: str, extra: dict[str, Any], logprobs: Any) -> None:
        """A text's `extra_content`: on its delta, or at the item's close with the
        logprobs gathered for it (an item carries one fidelity)."""
        if self.held is not None:
            self._flush_text()
        if self.extra is not None and extra != self.extra:
            self._flush_text()  # another signature: another item
            self.asm.close()
        waits = (bool(self.logprobs) or _entries(logprobs, "content") is not None) and not self.refusing
        if waits and (content or self.asm.open_kind == "text"):
            self.asm.text(content)
            self.extra = extra
            return
        self.asm.text(content, {"extra_content": extra})

    def _chunk_logprobs(self, logprobs: Any, delta: dict[str, Any], content: Any, refusal: str) -> None:
        """A chunk's `content` entries: its text's, or the open text's when the chunk
        carries no text (how writers put them on a chunk of their own) nor tool calls;
        its `refusal` entries, when it carries no refusal text (`_refuse` took those):
        the held refusal's."""
        entries = _entries(logprobs, "content")
        if entries is not None:
            if content or not delta.get("tool_calls"):
                self._text_logprobs(entries)
            else:
                self._no_item(entries, "logprobs of a chunk that feeds no text item")
        entries = _entries(logprobs, "refusal") if not refusal else None
        if entries is not None:
            if self.held is not None:
                self.logprobs.extend(entries)
            else:
                self._no_item(entries, "refusal logprobs with no refusal held to take them")

    def _text_logprobs(self, entries: list[Any] | None) -> None:
        if entries is None:
            return
        if self.asm.open_kind == "text" and not self.refusing and self.audio is None:
            self.logprobs.extend(entries)
        else:
            self._no_item(entries, "logprobs with no text item open to take them")

    def _no_item(self, entries: list[Any], why: str) -> None:
        self.session.note("logprobs_without_text", f"{len(entries)} logprobs entries: {why}")

    def _learnable_fragment(self, fragment: Any, choice: dict[str, Any]) -> None:
        """A chunk the on-demand path could take: one arguments fragment of the open
        call (its index and nothing else beside it), nothing more in the chunk."""
        call = self.current
        function = fragment.get("function") if type(fragment) is dict else None
        index = fragment.get("index") if type(fragment) is dict else None
        if (
            call is not None
            and call.open
            and type(function) is dict
            and set(function) == {"arguments"}
            and set(fragment) <= {"index", "function", "type"}
            and type(index) is int
            and self.calls.get(index) is call
            and not choice.get("finish_reason")
        ):
            self.learnable_call = call

    def _annotate(self, annotations: list[Any]) -> None:
        """OpenRouter / Perplexity `url_citation`s: gathered while their text item is
        open and attached to it as fidelity `{"annotations": [...]}` when it closes."""
        if self.asm.open_kind != "text":
            self._flush_text()
            self.asm.text("", {"annotations": list(annotations)})  # no text to annotate yet
            return
        self.annotations.extend(annotations)

    def _waiting(self) -> bool:
        """Whether something waits to ride on the open text item at its close."""
        return bool(self.annotations or self.logprobs or self.extra is not None or self.held is not None)

    def _flush_text(self) -> None:
        """What waits for the open text item goes out on one delta before it closes: a
        held refusal whole, else one empty delta with the item's fidelity."""
        held = self.held
        if held is not None:
            self.held = None
            fidelity: dict[str, Any] = {**_REFUSAL, "logprobs": self.logprobs}
            self.logprobs = []
            self.asm.text("".join(held), fidelity)
            self.refusing = False  # what follows is another item, a refusal again or not
            self._plain()
            return
        if not self._waiting():
            return
        fidelity = {}
        if self.extra is not None:
            fidelity["extra_content"] = self.extra
        if self.annotations:
            fidelity["annotations"] = self.annotations
        if self.logprobs:
            fidelity["logprobs"] = self.logprobs
        if self.asm.open_kind == "text":
            self.asm.text("", fidelity)
        self.annotations = []
        self.logprobs = []
        self.extra = None

    def at_end(self) -> None:
        """End of input, whatever the end: an audio answer's items end, what waits for
        the open text is attached."""
        self._end_audio()
        self._flush_text()

    # --- audio output -----------------------------------------------------------------

    def _audio(self, audio: Any) -> None:
        """A chunk's `delta.audio`: its id first (another id is another answer), then
        its pieces in the order the object holds them, then `expires_at`, the answer's
        last word.  What cannot be read (a field of the wrong type, data that is no
        base64, an expiry with no answer left to carry it) is left out, counted, and
        the object kept as a side event."""
        if type(audio) is not dict:
            self.session.note("audio_unreadable", f"delta.audio is {shown(audio)}, not an object")
            self._keep({"audio": audio})
            return
        wrong = [key for key in ("id", "data", "transcript") if type(audio.get(key)) not in (str, type(None))]
        expires_at = audio.get("expires_at")
        if expires_at is not None and type(expires_at) is not int:
            wrong.append("expires_at")
        if wrong:
            self.session.note("audio_unreadable", f"delta.audio fields of the wrong type: {', '.join(wrong)}")
        unread = bool(wrong)
        pair = self.audio
        audio_id = audio.get("id")
        if audio_id and type(audio_id) is str:
            if pair is not None and pair.id and audio_id != pair.id:
                self._end_audio()
                pair = None
            if pair is None:
                pair = self._begin_audio()
            if not pair.id:
                pair.id = audio_id
        for key, value in audio.items():
            if not value or type(value) is not str:
                continue
            if key == "data":
                if pair is None:
                    pair = self._begin_audio()
                if not self._audio_data(pair, value):
                    unread = True
            elif key == "transcript":
                if pair is None:
                    pair = self._begin_audio()
                self._transcript(pair, value)
        if type(expires_at) is int:
            if pair is None:
                # the finish chunk ended the answer before it came
                self.session.note("late_audio_expiry", "delta.audio.expires_at after its audio ended")
                unread = True
            else:
                pair.expires_at = expires_at
        if unread:
            self._keep(audio)
        if pair is not None and pair.expires_at is not None:
            self._end_audio()

    def _begin_audio(self) -> _Audio:
        pair = self.audio = _Audio()
        # no frame is taken on demand while it is open: a text chunk must end it first
        self.hot = self.hot_args = None
        self._plain()
        return pair

    def _audio_opens(self) -> None:
        """The answer's first item begins: what was open before it ends."""
        self._flush_text()
        if self.custom is not None:
            self._close_call(self.custom)
        self.refusing = False
        self.asm.close()

    def _audio_data(self, pair: _Audio, text: str) -> bool:
        """A base64 piece of the audio; False when it does not decode."""
        try:
            raw = binascii.a2b_base64(text, strict_mode=True)
        except (binascii.Error, ValueError):
            self.session.note("audio_data_not_base64", f"delta.audio.data {shown(text)} could not be decoded")
            return False
        if not raw:
            return True
        if pair.live == "data":
            self.asm.inline_data(raw, AUDIO_PCM)
        elif pair.live:
            pair.held_data.append(raw)
        else:
            pair.live = "data"
            self._audio_opens()
            self.asm.inline_data(raw, AUDIO_PCM, True)
        return True

    def _transcript(self, pair: _Audio, text: str) -> None:
        if pair.live == "transcript":
            self.asm.text(text)
        elif pair.live:
            pair.held_text.append(text)
        else:
            pair.live = "transcript"
            self._audio_opens()
            self.asm.text(text, _TRANSCRIPT)

    def _end_audio(self) -> None:
        """The audio answer's live item ends (its fidelity on an empty delta before a
        live audio's done), then the held kind goes out as an item of its own (a held
        audio with the fidelity on its first delta; an id or expiry that came without
        any data, on an audio of no bytes)."""
        pair = self.audio
        if pair is None:
            return
        self.audio = None
        self._plain()
        asm = self.asm
        fidelity = pair.fidelity()
        if pair.live == "data":
            if fidelity is not None:
                asm.fidelity(fidelity)
            asm.close()
            held_text = pair.held_text
            if held_text:
                asm.text(held_text[0], _TRANSCRIPT)
                for text in held_text[1:]:
                    asm.text(text)
                asm.close()
            return
        if pair.live:
            asm.close()  # the live transcript
        elif fidelity is None:
            return
        else:
            self._audio_opens()
        held_data = pair.held_data
        if held_data:
            asm.inline_data(held_data[0], AUDIO_PCM, True, fidelity)
            for raw in held_data[1:]:
                asm.inline_data(raw, AUDIO_PCM)
        elif fidelity is not None:
            asm.inline_data(b"", AUDIO_PCM, True, fidelity)
        else:
            return
        asm.close()

    def _keep(self, data: dict[str, Any]) -> None:
        pair = self.audio
        self.session.side_event("audio", "info", pair.id or None if pair is not None else None, data)

    def _reasoning(self, delta: dict[str, Any]) -> None:
        reasons = delta.get("reasoning_details") or delta.get("reasoning_content") or delta.get("reasoning")
        if reasons and self._waiting():
            self._flush_text()
        details = delta.get("reasoning_details")
        if details and type(details) is list:
            # OpenRouter: the details repeat `reasoning`'s text and add what replay
            # needs (signatures, encrypted blocks); they win when present.
            for block in details:
                if type(block) is dict:
                    self._reasoning_block(block)
            return
        from_content = delta.get("reasoning_content")
        from_reasoning = delta.get("reasoning")
        if from_content and type(from_content) is str:
            # both fields at once: the same text twice; replay then sends both, so no
            # reasoning_field is recorded
            self.asm.thinking(from_content, None if from_reasoning else _RF_CONTENT)
        elif from_reasoning and type(from_reasoning) is str:
            self.asm.thinking(from_reasoning, _RF_REASONING)

    def _reasoning_block(self, block: dict[str, Any]) -> None:
        kind = block.get("type")
        fmt = block.get("format")
        if kind == "reasoning.encrypted":
            fidelity: dict[str, Any] = {"encrypted_content": block.get("data")}
            if fmt:
                fidelity["format"] = fmt
            if block.get("id"):
                fidelity["reasoning_id"] = block["id"]
            self.asm.thinking("", fidelity)
            return
        text = block.get("text") if kind == "reasoning.text" else block.get("summary")
        if text and type(text) is str:
            self.asm.thinking(text)
        signature = block.get("signature")
        if signature and type(signature) is str:
            fidelity = {"signature": signature}
            if fmt:
                fidelity["format"] = fmt
            self.asm.thinking("", fidelity)

    def _typed_content(self, parts: list[Any]) -> None:
        # Mistral: content as a list of typed parts, thinking parts nesting text parts
        for part in parts:
            if type(part) is not dict:
                continue
            kind = part.get("type")
            if kind == "text" and type(part.get("text")) is str:
                self.asm.text(part["text"])
            elif kind == "thinking":
                self._flush_text()
                inner = part.get("thinking")
                if type(inner) is str:
                    self.asm.thinking(inner)
                elif type(inner) is list:
                    for piece in inner:
                        if type(piece) is dict and type(piece.get("text")) is str:
                            self.asm.thinking(piece["text"])

    def _usage(self, usage: Any) -> None:
        if type(usage) is not dict:
            return
        self.session.set_usage(**USAGE.read(usage))
        raw = self.session.raw_usage
        # MMSP meaning: prompt excludes cache reads, response excludes reasoning
        if "prompt_raw" in raw:
            raw["prompt"] = raw["prompt_raw"] - raw.get("cached", 0)
        if "completion_raw" in raw:
            raw["response"] = self._response_tokens(raw, usage.get("total_tokens"))

    def _response_tokens(self, raw: dict[str, int], total: Any) -> int:
        """completion_tokens without the reasoning: OpenAI counts the reasoning in
        completion_tokens, xAI and some gateways do not.  A count is never negative, so
        reasoning larger than the completion cannot be inside it: excluded, whatever
        the totals say (a gateway's total may leave the reasoning out altogether).
        Otherwise the body's own arithmetic decides (total = prompt + completion:
        included; total = prompt + completion + reasoning: excluded); when it cannot
        tell, the reasoning is taken as included, and the anomaly `usage_rule_assumed`
        says so."""
        completion = raw["completion_raw"]
        reasoning = raw.get("thoughts", 0)
        if not reasoning or reasoning > completion:
            return completion
        prompt = raw.get("prompt_raw")
        if type(total) is int and prompt is not None:
            if prompt + completion == total:
                return completion - reasoning
            if prompt + completion + reasoning == total:
                return completion
        self.session.note(
            "usage_rule_assumed",
            "total_tokens does not tell whether reasoning_tokens are in completion_tokens: taken as included in them",
        )
        return completion - reasoning

    # --- tool calls -----------------------------------------------------------------

    def _tool_calls(self, tool_calls: list[Any]) -> None:
        for position, fragment in enumerate(tool_calls):
            if type(fragment) is not dict:
                continue
            call_id = fragment.get("id")
            call_id = call_id if call_id and type(call_id) is str else ""
            function = fragment.get("function")
            name = ""
            arguments = ""
            custom = None
            if type(function) is dict:
                given = function.get("name")
                name = given if given and type(given) is str else ""
                raw = function.get("arguments")
                if type(raw) is str:
                    arguments = raw
                elif type(raw) in (dict, list):
                    # some gateways send the arguments as an object: taken whole
                    arguments = json_text(raw)
            else:
                custom = _custom_part(fragment)
            call = self._route(fragment.get("index"), call_id, position)
            if custom is not None:
                if not call.custom and not call.args and not call.open and not call.closed:
                    call.become_custom()
                given = custom.get("name")
                name = given if given and type(given) is str else ""
                text = custom.get("input")
                if call.custom and text and type(text) is str:
                    arguments = json_string_body(text)
            extra = fragment.get("extra_content")
            if type(extra) is dict and extra and (call.fidelity is None or "extra_content" not in call.fidelity):
                # the OpenAI-compatible Gemini endpoint: a call's thought signature, kept
                # whole so a replay sends back exactly the `extra_content` that came
                call.fidelity = {**(call.fidelity or {}), "extra_content": extra}
                if call.open and self.asm.open_kind == "tool_call":
                    self.asm.fidelity(call.fidelity)  # it came after the call began
            self._update(call, call_id, name, arguments)

    def _route(self, index: Any, call_id: str, position: int) -> _Call:
        """The call a fragment belongs to: by `index`, else by `id`, else by its
        position in this chunk (the ai-profile decoder's rule)."""
        calls = self.calls
        if type(index) is int and index >= 0:
            call = calls.get(index)
            if call is not None and call.id and call_id and call.id != call_id:
                # an index reused with another id is another call
                return self.by_id.get(call_id) or self._new_call(self.next_key)
            return call if call is not None else self._new_call(index)
        if call_id:
            return self.by_id.get(call_id) or self._new_call(self.next_key)
        call = calls.get(position)
        return call if call is not None else self._new_call(position)

    def _new_call(self, key: int) -> _Call:
        call = _Call(len(self.calls) + 1)
        self.calls[key] = call
        if key >= self.next_key:
            self.next_key = key + 1
        return call

    def _update(self, call: _Call, call_id: str, name: str, arguments: str) -> None:
        if call_id and not call.id and not call.open and not call.closed:
            call.id = call_id
            self.by_id.setdefault(call_id, call)
        if name and not call.name:
            call.name = name  # later names repeat the first: never joined
        if call.open and self.asm.open_kind != "tool_call":
            call.open, call.closed = False, True  # text or reasoning closed its group
        if call.open:
            if arguments:
                call.add(arguments)
                self.asm.tool_arguments(arguments)
            return
        if call.closed:
            if arguments:
                call.add(arguments)
                self.session.note("late_arguments", f"tool call {call.id} got arguments after its group closed")
            return
        if arguments:
            call.add(arguments)
        if call.name and (call.id or call.args) and self._current_may_close():
            self._announce(call)

    def _current_may_close(self) -> bool:
        """A newer call may start once the open one's arguments form a JSON object;
        until then fragments of other calls wait (gateways that interleave calls)."""
        current = self.current
        if current is None or not current.open:
            return True
        if self.asm.open_kind != "tool_call":
            current.open, current.closed = False, True
            return True
        if current.complete_object():
            self._close_call(current)
            return True
        return False

    def _close_call(self, call: _Call) -> None:
        """The open call's group ends (a custom call's JSON text closed first)."""
        if call.tail:
            call.add(call.tail)
            self.asm.tool_arguments(call.tail)
            call.tail = ""
        self.asm.close()
        call.open, call.closed = False, True
        if call is self.custom:
            self.custom = None
            self._plain()

    def _announce(self, call: _Call) -> None:
        self._flush_text()
        if not call.id:
            call.id = f"call_{self.session.stream_id}_{call.block}"
        self.asm.tool_call(call.name, call.id, "".join(call.args), call.fidelity)
        call.open = True
        self.current = call
        self.made_calls = True
        if call.custom:
            # nothing may close its group but this handler, which closes its JSON text:
            # no chunk goes by the on-demand text path until it is whole
            self.custom = call
            self.hot = None
            self._plain()

    def before_stop(self) -> None:
        """Complete streams: calls still waiting are announced now, in order."""
        current = self.current
        if current is not None and current.open:
            if self.asm.open_kind == "tool_call":
                self._close_call(current)
            current.open, current.closed = False, True
        for key in sorted(self.calls):
            call = self.calls[key]
            if call.open or call.closed:
                continue
            if not call.name:
                self.session.note("unnamed_tool_call", f"tool call at block {call.block} never got a name; dropped")
                continue
            self._announce(call)
            self._close_call(call)

    def finish_reason(self) -> FinishReason:
        made_calls = self.made_calls or any(c.name for c in self.calls.values())
        return normalize_openai_finish(self.session.native_finish_reason, made_calls)
