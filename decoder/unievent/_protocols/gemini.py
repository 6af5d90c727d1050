# Google Gemini generateContent: `streamGenerateContent` records, over SSE (`alt=sse`)
# or as the elements of one streamed JSON array (the framer does not matter here).
#
# Frame lifecycle: the generated machine from machines/gemini.py.  This module owns
# what a record means.  Only candidate 0 is decoded (others are noted).  Its parts, in
# order:
#
# - `text` is text; with `thought: true`, thinking.  Consecutive parts of one kind form
#   one item.
# - `thoughtSignature`, on any part, is fidelity `{"signature": ...}` of the item that
#   part belongs to, exactly as sent: on a text or thought part, its item (an empty
#   text part carrying one, as Gemini 3 ends a text answer, belongs to the open text
#   item; with none open it is an empty text item of its own); on a function call, that
#   call (only the first of parallel calls has one); a part with nothing but a signature
#   goes to the open item.  A signature is never dropped or moved to another item.
# - `functionCall {name, args, id?}` arrives whole: one tool_call.delta with the whole
#   arguments, then its done; a call without an id gets `call_<stream_id>_<k+1>` for the
#   k-th call from 0 (block 0 being the text, as for OpenAI).  Vertex streams arguments
#   instead: a part `{name, willContinue: true}` opens the call, parts of `partialArgs`
#   (`jsonPath` and a string, number, bool or null value, strings continued by
#   `willContinue`) fill it in, and `{}` or a part without `willContinue` closes it; the
#   fragments go out as arguments text that joins to exactly the final JSON (`_ArgsText`).
# - `inlineData {mimeType, data}` is inline_data (each image its own item, consecutive
#   audio of one type one item); with `thought: true`, inline_thinking.  `data` is a
#   protobuf `bytes` field, which proto3 JSON writes as base64 of either alphabet,
#   padded or not: each of those is read, anything else is no data (`wire_bytes`).
# - every other part kind (`executableCode`, `codeExecutionResult`, `toolCall`,
#   `toolResponse`, kinds not invented yet) goes to the side channel, in order, never a
#   tool call; so do the candidate's `groundingMetadata`, `citationMetadata` and
#   `urlContextMetadata` (the last of each is also kept in extras).
# - logprobs: the candidate's `logprobsResult` belongs to the text of its record (or,
#   in a record without text, to the text item still open): its `chosenCandidates` and
#   `topCandidates` are joined in order, and with the last `avgLogprobs` ride on the
#   text item as fidelity `{"logprobs": [...], "top_logprobs": [...], "avg_logprobs":
#   x}` (the wire's own entries, each key only when the wire had it) on one empty delta
#   before its done.  A signature of a text item whose records carry them waits to ride
#   with them (an item carries one fidelity).  A record whose text item already closed
#   (a function call followed it) or that has none has no item for them: the anomaly
#   `logprobs_without_text` counts them.
#
# Usage: every record carries its whole usage, so the last usage object with counts
# replaces the earlier ones as a whole (a count it omits is None), as google-genai
# reports it; with grounding, later records' counts restart.
# cached_tokens = cachedContentTokenCount, prompt_tokens = promptTokenCount - cached,
# thoughts_tokens = thoughtsTokenCount, response_tokens = candidatesTokenCount; Vertex's
# count-less usage objects (only `trafficType`) change nothing.  Finish: STOP is stop, or
# tool_call when the response made function calls; MAX_TOKENS is length; anything else
# is unknown, the native value kept.
#
# Enums as numbers: with `$alt=json;enum-encoding=int` (what Google's client libraries
# ask for) `finishReason` and `blockReason` are the numbers of their protobuf enums,
# read here as the names those numbers stand for.  The two APIs number them apart
# (Vertex's google.cloud.aiplatform.v1, the Gemini API's
# google.ai.generativelanguage.v1beta): a record with `createTime` is Vertex's, which
# the Gemini API never writes.  A number neither enum has is kept as its digits.
#
# On demand (see _ondemand.py): a record whose one part is a text or a thought, and
# nothing else but usage, model and response id, is learned as a template with two
# holes, the text and the usage; records matching it skip the parse of the record.
#
# The OpenAI-compatible Gemini endpoint speaks openai_chat: see that module.
from __future__ import annotations

import re
from typing import Any, ClassVar, Final

import orjson

from unievent._events import FinishReason
from unievent._framing import FRAME_OK, FRAME_OVER
from unievent._generated import gemini as M
from unievent._ondemand import Runs, ValueTemplate
from unievent._outcome import ProviderError
from unievent._session import MachineHandler, Session
from unievent._shared import (
    MAX_DEPTH,
    base64_bytes,
    code_of,
    json_string_body,
    json_text,
    shown,
    str_or_none,
    usage_counts,
)
from unievent._usage_wire import UsageWire

__all__ = ["Gemini", "enum_name", "normalize_gemini_finish", "wire_bytes"]

# The public protobuf enums, by number (googleapis/googleapis: aiplatform/v1/content.proto
# and prediction_service.proto; generativelanguage/v1beta/generative_service.proto)
_VERTEX_FINISH: Final = (
    "FINISH_REASON_UNSPECIFIED", "STOP", "MAX_TOKENS", "SAFETY", "RECITATION", "OTHER", "BLOCKLIST",
    "PROHIBITED_CONTENT", "SPII", "MALFORMED_FUNCTION_CALL", "MODEL_ARMOR",
)  # fmt: skip
_GEMINI_API_FINISH: Final = (
    "FINISH_REASON_UNSPECIFIED", "STOP", "MAX_TOKENS", "SAFETY", "RECITATION", "OTHER", "LANGUAGE", "BLOCKLIST",
    "PROHIBITED_CONTENT", "SPII", "MALFORMED_FUNCTION_CALL", "IMAGE_SAFETY", "UNEXPECTED_TOOL_CALL",
    "TOO_MANY_TOOL_CALLS", "IMAGE_PROHIBITED_CONTENT", "IMAGE_OTHER", "NO_IMAGE", "IMAGE_RECITATION",
)  # fmt: skip
_VERTEX_BLOCKED: Final = (
    "BLOCKED_REASON_UNSPECIFIED", "SAFETY", "OTHER", "BLOCKLIST", "PROHIBITED_CONTENT", "MODEL_ARMOR", "JAILBREAK",
)  # fmt: skip
_GEMINI_API_BLOCKED: Final = (
    "BLOCK_REASON_UNSPECIFIED", "SAFETY", "OTHER", "BLOCKLIST", "PROHIBITED_CONTENT", "IMAGE_SAFETY",
)  # fmt: skip


def enum_name(value: Any, names: tuple[str, ...]) -> str | None:
    """An enum field's name: a string as it is, a number (not a bool) as the name it has
    in `names`, or its digits when it has none; None for anything else or nothing."""
    if type(value) is str:
        return value or None
    if type(value) is int:
        return names[value] if 0 <= value < len(names) else str(value)
    return None


_NEXT: Final = M.NEXT
_DO: Final = M.DO
_TERMINAL: Final = frozenset(s for s in range(len(M.STATES)) if M.ALLOWED[s] in ((), ("eof",)))
# part keys that modify the part rather than name its kind
_MODIFIERS: Final = frozenset(("thought", "thoughtSignature", "partMetadata", "videoMetadata", "mediaResolution"))
_METADATA: Final = (
    ("groundingMetadata", "grounding_metadata"),
    ("citationMetadata", "citation_metadata"),
    ("urlContextMetadata", "url_context_metadata"),
)
#: usageMetadata's counts (written back by _writers/gemini.py)
USAGE: Final = UsageWire(
    (
        (("promptTokenCount",), "prompt_raw"),
        (("cachedContentTokenCount",), "cached"),
        (("thoughtsTokenCount",), "thoughts"),
        (("candidatesTokenCount",), "response"),
    ),
    {"prompt_raw": ("prompt", "cached")},
)
_USAGE_PLAN: Final = USAGE.plan  # read on every record: by the compiled usage_counts
# states whose record transition is "stay here and apply the record": where the
# on-demand path may take one (the table still decides)
_RECORD_LOOPS: Final = tuple(
    M.NEXT[s][M.SY_RECORD] == s and M.DO[s][M.SY_RECORD] == (M.A_APPLY_RECORD,) for s in range(len(M.STATES))
)
_TEXT: Final = ("candidates", 0, "content", "parts", 0, "text")
_LEARN_TRIES: Final = 4  # full-path records from which a template is learned, at most
# a usage value this long or shorter cannot nest its record deeper than MAX_DEPTH (each
# level takes two bytes; the record is one more), which the full path would refuse
_USAGE_MAX: Final = 2 * (MAX_DEPTH - 1)
_loads: Final = orjson.loads
_JSONDecodeError: Final = orjson.JSONDecodeError
_PATH_STEP: Final = re.compile(r"""\.([^.\[\]]+)|\[(\d+)\]|\['((?:[^'\\]|\\.)*)'\]|\["((?:[^"\\]|\\.)*)"\]""")


def _usages(holes: list[bytes]) -> list[Any]:
    """The usage holes of a run parsed, up to the first that is no JSON or is too long
    to be read on demand."""
    if max(map(len, holes)) <= _USAGE_MAX:
        try:
            return list(map(_loads, holes))
        except _JSONDecodeError:
            pass
    parsed: list[Any] = []
    for hole in holes:
        if len(hole) > _USAGE_MAX:
            break
        try:
            parsed.append(_loads(hole))
        except _JSONDecodeError:
            break
    return parsed


def wire_bytes(text: str) -> bytes | None:
    """The bytes of a base64 field of a Google API's JSON, or None when it is no base64:
    proto3 JSON readers must take the standard and the URL-safe alphabet, padded or not."""
    return base64_bytes(text, url_safe=True)


def normalize_gemini_finish(native: str | None, made_calls: bool) -> FinishReason:
    """MMSP finish reason for a finishReason: STOP is stop (tool_call when the turn made
    function calls: Gemini says STOP then too), MAX_TOKENS length, anything else unknown."""
    if native == "STOP":
        return "tool_call" if made_calls else "stop"
    if native == "MAX_TOKENS":
        return "length"
    return "unknown"


def _path(text: str) -> list[str | int] | None:
    """The steps of an RFC 9535 path such as `$.a.b[0]['c']`, or None when it is not one."""
    if not text.startswith("$"):
        return None
    steps: list[str | int] = []
    pos = 1
    while pos < len(text):
        found = _PATH_STEP.match(text, pos)
        if found is None:
            return None
        name, index, quoted, double = found.groups()
        if index is not None:
            steps.append(int(index))
        else:
            steps.append(name if name is not None else (quoted if quoted is not None else double or ""))
        pos = found.end()
    return steps


# the most array elements a fragment's path may skip (each written as `null`): a path
# such as `$.a[99999999]` in a few bytes must not cost the decoder that many bytes
_MOST_SKIPPED: Final = 1024


class _ArgsText:
    """Vertex's streamed arguments written out as JSON text while the fragments arrive.

    The text so far is always a prefix of the final arguments' JSON: a fragment for the
    path of the string still open continues it; any other path closes what lies between
    and opens what leads to it.  A fragment that would go back (a path already closed,
    a lower array index, or one that skips more than `_MOST_SKIPPED` elements) cannot
    be written as a prefix: `add` returns None for it.
    """

    __slots__ = ("cursor", "open_string", "started", "written")

    def __init__(self) -> None:
        self.cursor: list[str | int] = []  # the path of the last value written
        self.open_string = False
        self.started = False
        self.written: set[tuple[str | int, ...]] = set()

    def add(self, path: list[str | int], value: Any, is_string: bool) -> str | None:
        cursor = self.cursor
        if self.open_string and is_string and path == cursor:
            return json_string_body(value)  # the open string goes on
        shared = 0
        while shared < len(cursor) and shared < len(path) and cursor[shared] == path[shared]:
            shared += 1
        if not path or shared == len(path) or (cursor and shared == len(cursor)):
            return None  # a value where a container is, or the other way round
        if tuple(path[: shared + 1]) in self.written:
            return None
        step = path[shared]
        if cursor and type(step) is not type(cursor[shared]):
            return None
        if type(step) is int and step < (cursor[shared] + 1 if cursor else 0):  # type: ignore[operator]
            return None
        out = []
        if not self.started:
            out.append("{")
            self.started = True
        if self.open_string:
            out.append('"')
            self.open_string = False
        for depth in range(len(cursor) - 1, shared, -1):
            out.append("}" if type(cursor[depth]) is str else "]")
        if cursor:
            out.append(",")
        for depth in range(shared, len(path)):
            step = path[depth]
            if depth > shared:
                out.append("{" if type(step) is str else "[")
            if type(step) is str:
                out.append(json_text(step) + ":")
            else:
                filled = cursor[depth] + 1 if depth == shared and cursor else 0  # type: ignore[operator]
                if step - filled > _MOST_SKIPPED:  # type: ignore[operator]
                    return None
                out.append("null," * (step - filled))  # type: ignore[operator]
            self.written.add(tuple(path[: depth + 1]))
        if is_string:
            out.append(json_text(value)[:-1])
            self.open_string = True
        else:
            out.append(json_text(value))
        self.cursor = path
        return "".join(out)

    def finish(self) -> str:
        if not self.started:
            return "{}"
        out = ['"'] if self.open_string else []
        cursor = self.cursor
        for depth in range(len(cursor) - 1, 0, -1):
            out.append("}" if type(cursor[depth]) is str else "]")
        out.append("}")
        return "".join(out)


class _Marks:
    """A record's logprobs: its chosen and top candidates, and its average."""

    __slots__ = ("avg", "chosen", "top")

    def __init__(self, chosen: list[Any], top: list[Any], avg: Any) -> None:
        self.chosen = chosen
        self.top = top
        self.avg = avg


def _marks(candidate: dict[str, Any]) -> _Marks | None:
    """The candidate's `logprobsResult` entries and `avgLogprobs` (None: none of them)."""
    result = candidate.get("logprobsResult")
    chosen: list[Any] = []
    top: list[Any] = []
    if type(result) is dict:
        given = result.get("chosenCandidates")
        chosen = given if type(given) is list else []
        given = result.get("topCandidates")
        top = given if type(given) is list else []
    avg = candidate.get("avgLogprobs")
    avg = avg if type(avg) in (int, float) else None
    if not chosen and not top and avg is None:
        return None
    return _Marks(chosen, top, avg)


def _partial_value(arg: dict[str, Any]) -> tuple[Any, bool] | None:
    """A partialArgs fragment's value and whether it is a string (None: it has none)."""
    if "stringValue" in arg:
        value = arg["stringValue"]
        return (value, True) if type(value) is str else None
    if "numberValue" in arg:
        number = arg["numberValue"]
        if type(number) is float and number.is_integer() and abs(number) < 2**53:
            return int(number), False  # as a non-streamed `args` would give it
        return (number, False) if type(number) in (int, float) else None
    if "boolValue" in arg:
        flag = arg["boolValue"]
        return (flag, False) if type(flag) is bool else None
    if "nullValue" in arg:
        return None, False
    return None


class Gemini(MachineHandler):
    """Protocol handler for `gemini` (see StreamDecoder)."""

    machine: ClassVar[Any] = M

    def __init__(self, session: Session) -> None:
        self.session = session
        self.asm = session.asm
        self.state = M.INITIAL
        self.calls = 0
        self.made_calls = False
        self.streamed: _ArgsText | None = None  # a Vertex call whose arguments are streaming
        self.usage_raw: dict[str, int] = {}
        self.vertex = False  # a record said it is Vertex's (`createTime`): its enums' numbers
        # on-demand parsing: the learned record, whether its part is a thought, the
        # model and response id it names, how often the full path may still learn one,
        # and whether the last record could teach it
        self.hot: ValueTemplate | None = None
        self.hot_thought = False
        self.hot_model: str | None = None
        self.hot_response_id: str | None = None
        self.learn_tries = _LEARN_TRIES
        self.learnable = False
        self.fast_frames = 0
        self.runs = Runs()  # the run taker's window (see _ondemand.Runs)
        # what rides on the open text item at its close: its logprobs and a signature
        # that came with them; `marks`, the logprobs of the record being read until its
        # text takes them
        self.waits = False
        self.logprobs: list[Any] = []
        self.top_logprobs: list[Any] = []
        self.avg_logprobs: Any = None
        self.signature: str | None = None
        self.marks: _Marks | None = None

    # --- frames ---------------------------------------------------------------------

    def raw(self, event: str | None, payload: bytes) -> int:
        """The framer's sink: a record matching the learned template is applied on
        demand (by the run taker, as a run of one); every other frame is parsed whole
        (`parse`) and goes to `frame`."""
        if event is None and self.raw_run(None, [payload], 0):
            return FRAME_OK
        obj = self.parse(event, payload)
        if isinstance(obj, int):
            return obj
        over = self.frame(event, obj)
        learnable = self.learnable
        self.learnable = False
        if learnable and self.learn_tries and not over:
            self._learn(payload, obj)
        return FRAME_OVER if over else FRAME_OK

    def raw_run(self, heads: list[bytes] | None, payloads: list[bytes], start: int) -> int:
        """The framer's run taker: records matching the learned template from `start`
        on, each exactly as `raw` takes it; the index of the first frame not taken."""
        hot = self.hot
        if hot is None or heads is not None or not _RECORD_LOOPS[self.state] or self.streamed is not None:
            return start
        texts: list[bytes] = []
        usages: list[bytes] = []
        runs = self.runs
        hot.holes_of_run(payloads, start, start + runs.window, texts, usages)
        values = runs.strings(texts)
        parsed = _usages(usages[: len(values)] if len(values) < len(usages) else usages) if values else []
        if len(parsed) < len(values):
            runs.wasted()
        if parsed:
            self._take(values[: len(parsed)] if len(parsed) < len(values) else values, parsed)
        return start + len(parsed)

    def _take(self, texts: list[str], usages: list[Any]) -> None:
        """What apply_record does with records of the learned template: their texts
        (or thoughts), the usage of each in turn, the model and id they name."""
        session = self.session
        if self.hot_model is not None:
            session.model = self.hot_model
        if self.hot_response_id is not None:
            session.extras["response_id"] = self.hot_response_id
        if self.hot_thought:
            if self.waits:
                self._flush_text()  # as a thought part read whole would
            self.asm.thinkings(texts)
        else:
            self.asm.texts(texts)
        at = len(usages)
        while at:  # the last usage object with counts replaces what came before
            at -= 1
            usage = usages[at]
            if type(usage) is dict and self._usage(usage):
                break
        self.fast_frames += len(texts)

    def _learn(self, payload: bytes, obj: dict[str, Any]) -> None:
        template = ValueTemplate.learn(payload, obj, _TEXT, "usageMetadata")
        if template is None:
            self.learn_tries -= 1
            return
        self.learn_tries = _LEARN_TRIES
        self.hot = template
        self.hot_thought = obj["candidates"][0]["content"]["parts"][0].get("thought") is True
        model = obj.get("modelVersion")
        self.hot_model = model if model and type(model) is str else None
        response_id = obj.get("responseId")
        self.hot_response_id = response_id if response_id and type(response_id) is str else None

    def _learnable(self, obj: dict[str, Any], candidate: dict[str, Any], parts: list[Any]) -> bool:
        """Whether a record could teach the template: one text or thought part and,
        besides usage, model and id, nothing apply_record reads."""
        if len(parts) != 1 or len(obj["candidates"]) != 1 or "promptFeedback" in obj:
            return False
        part = parts[0]
        if type(part) is not dict or type(part.get("text")) is not str or not 1 <= len(part) <= 2:
            return False
        if len(part) == 2 and part.get("thought") is not True:
            return False
        if "logprobsResult" in candidate or "avgLogprobs" in candidate:
            return False  # never learned: a template's records would be taken without them
        return not any(key in candidate for key, _name in _METADATA) and not candidate.get("finishReason")

    def frame(self, event: str | None, obj: dict[str, Any]) -> bool:
        if obj.get("error") is not None:
            symbol = M.SY_ERROR
        else:
            candidates = obj.get("candidates")
            first = candidates[0] if type(candidates) is list and candidates else None
            if "createTime" in obj:
                self.vertex = True
            if type(first) is dict:
                reason = enum_name(first.get("finishReason"), _VERTEX_FINISH if self.vertex else _GEMINI_API_FINISH)
                symbol = M.SY_FINISH_RECORD if reason is not None else M.SY_RECORD
            else:
                feedback = obj.get("promptFeedback")
                blocked = enum_name(feedback.get("blockReason"), _VERTEX_BLOCKED) if type(feedback) is dict else None
                symbol = M.SY_BLOCKED if blocked is not None else M.SY_RECORD
        state = self.state
        dest = _NEXT[state][symbol]
        if dest < 0:
            self.session.note("ignored_frame", f"{M.SYMBOLS[symbol]} in state {M.STATES[state]} ignored")
            return state in _TERMINAL
        self.state = dest
        for action in _DO[state][symbol]:
            _ACTIONS[action](self, obj)
        return dest in _TERMINAL

    def done_sentinel(self) -> bool:
        dest = _NEXT[self.state][M.SY_DONE_SENTINEL]
        if dest >= 0:
            self.state = dest
        return False

    def finish_reason(self) -> FinishReason:
        return normalize_gemini_finish(self.session.native_finish_reason, self.made_calls)

    def at_end(self) -> None:
        """What waits for the open text is attached.  A streamed call still open at the
        end is left open (no client runs a cut call), unless the stream finished: then
        its arguments are closed as they stand."""
        if self.waits:
            self._flush_text()
        if self.streamed is not None and self.state == M.ST_FINISHED:
            self._close_streamed("the response finished with a streamed call open")

    # --- one record -----------------------------------------------------------------

    def _apply_record(self, obj: dict[str, Any]) -> None:
        session = self.session
        model = obj.get("modelVersion")
        if model and type(model) is str:
            session.model = model
        response_id = obj.get("responseId")
        if response_id and type(response_id) is str:
            session.take_response_id(response_id)
            session.extras["response_id"] = response_id  # read there before Outcome.response_id
        candidates = obj.get("candidates")
        if type(candidates) is list and candidates:
            if len(candidates) > 1:
                session.note("other_candidates", f"{len(candidates) - 1} candidate(s) besides the first not decoded")
            first = candidates[0]
            if type(first) is dict:
                content = first.get("content")
                parts = content.get("parts") if type(content) is dict else None
                if "logprobsResult" in first or "avgLogprobs" in first:
                    self.marks = _marks(first)
                if type(parts) is list:
                    self._parts(parts)
                    self.learnable = self.learn_tries > 0 and self._learnable(obj, first, parts)
                if self.marks is not None:  # no text part took them
                    self._take_marks()
                for key, name in _METADATA:
                    metadata = first.get(key)
                    if metadata and type(metadata) is dict:
                        session.extras[name] = metadata
                        session.side_event(name, "info", None, metadata)
        feedback = obj.get("promptFeedback")
        if feedback and type(feedback) is dict:
            session.extras["prompt_feedback"] = feedback
        usage = obj.get("usageMetadata")
        if type(usage) is dict:
            self._usage(usage)

    def _usage(self, usage: dict[str, Any]) -> bool:
        """Take a usage object with counts as the usage; whether it had any."""
        counts = usage_counts(_USAGE_PLAN, usage)
        if not counts:  # Vertex's usage objects without counts change nothing
            return False
        self.usage_raw = counts
        self._usage_to_session()
        return True

    def _usage_to_session(self) -> None:
        """The session's usage from the last usage object with counts, as a whole: every
        record carries its whole usage (with grounding the counts of later records
        restart), so a count it omits is None, never a count of an earlier record."""
        raw = self.usage_raw
        mmsp = self.session.raw_usage
        mmsp.clear()
        cached = raw.get("cached")
        for name in ("cached", "thoughts", "response"):
            if name in raw:
                mmsp[name] = raw[name]
        if "prompt_raw" in raw:
            mmsp["prompt"] = max(raw["prompt_raw"] - (cached or 0), 0)

    def _record_finish(self, obj: dict[str, Any]) -> None:
        names = _VERTEX_FINISH if self.vertex else _GEMINI_API_FINISH
        self.session.native_finish_reason = enum_name(obj["candidates"][0]["finishReason"], names)

    def _record_blocked(self, obj: dict[str, Any]) -> None:
        feedback = obj["promptFeedback"]
        reason = enum_name(feedback.get("blockReason"), _VERTEX_BLOCKED if self.vertex else _GEMINI_API_BLOCKED)
        message = feedback.get("blockReasonMessage")
        text = message if type(message) is str and message else f"the prompt was blocked ({shown(reason)})"
        self.session.fail(ProviderError(text, "prompt_blocked", str_or_none(reason), feedback))
        self.session.native_finish_reason = reason if type(reason) is str else None

    def _record_error(self, obj: dict[str, Any]) -> None:
        error = obj.get("error")
        if type(error) is dict:
            message = error.get("message")
            text = message if type(message) is str and message else json_text(error)
            kind = str_or_none(error.get("status"))
            self.session.fail(ProviderError(text, kind, code_of(error.get("code")), error))
        else:
            text = error if type(error) is str else json_text(error)
            self.session.fail(ProviderError(text, None, None, error))

    # --- parts ----------------------------------------------------------------------

    def _parts(self, parts: list[Any]) -> None:
        asm = self.asm
        for part in parts:
            if type(part) is not dict:
                continue
            signature = part.get("thoughtSignature")
            fidelity = {"signature": signature} if signature and type(signature) is str else None
            call = part.get("functionCall")
            if call is not None:
                if self.waits:
                    self._flush_text()
                self._function_call(call, fidelity, part)
                continue
            if self.streamed is not None:
                self._close_streamed("a part of another kind came while a streamed call was open")
            thought = part.get("thought") is True
            text = part.get("text")
            if type(text) is str:
                if thought:
                    if self.waits:
                        self._flush_text()
                    asm.thinking(text, fidelity)
                elif self.waits or self.marks is not None:
                    self._marked_text(text, fidelity)
                else:
                    asm.text(text, fidelity)
                continue
            inline = part.get("inlineData")
            if type(inline) is dict:
                if self.waits:
                    self._flush_text()
                self._inline(inline, thought, fidelity, part)
                continue
            kinds = [key for key in part if key not in _MODIFIERS]
            if not kinds:
                if fidelity is not None:
                    self._signature_alone(fidelity, thought)
                continue
            kind = kinds[0]
            body = part.get(kind)
            item_id = body.get("id") if type(body) is dict else None
            self.session.side_event(kind, "info", item_id if type(item_id) is str else None, part)

    def _marked_text(self, text: str, fidelity: dict[str, Any] | None) -> None:
        """Text of a record with logprobs, or of an item gathering them: its signature
        waits to ride with them, and the record's logprobs go to its item."""
        asm = self.asm
        signature = fidelity["signature"] if fidelity is not None else None
        if signature is not None and self.signature is not None and signature != self.signature:
            self._flush_text()  # another signature: another item
            asm.close()
        if signature is not None and not text and asm.open_kind != "text":
            asm.text(text, fidelity)  # an empty text item of its own: nothing to wait in
        else:
            asm.text(text)
            if signature is not None:
                self.signature = signature
                self.waits = True
        if self.marks is not None:
            self._take_marks()

    def _take_marks(self) -> None:
        """The record's logprobs join the open text item's."""
        marks = self.marks
        assert marks is not None
        self.marks = None
        if self.asm.open_kind != "text":
            count = len(marks.chosen) or len(marks.top)
            self.session.note("logprobs_without_text", f"logprobs of {count} tokens of a record with no text item open")
            return
        self.logprobs.extend(marks.chosen)
        self.top_logprobs.extend(marks.top)
        if marks.avg is not None:
            self.avg_logprobs = marks.avg
        self.waits = True

    def _flush_text(self) -> None:
        """What waits for the open text item goes out on one empty delta before it closes."""
        fidelity: dict[str, Any] = {}
        if self.signature is not None:
            fidelity["signature"] = self.signature
        if self.logprobs:
            fidelity["logprobs"] = self.logprobs
        if self.top_logprobs:
            fidelity["top_logprobs"] = self.top_logprobs
        if self.avg_logprobs is not None:
            fidelity["avg_logprobs"] = self.avg_logprobs
        if fidelity and self.asm.open_kind == "text":
            self.asm.text("", fidelity)
        self.waits = False
        self.logprobs = []
        self.top_logprobs = []
        self.avg_logprobs = None
        self.signature = None

    def _signature_alone(self, fidelity: dict[str, Any], thought: bool) -> None:
        """A part with nothing but a signature: it belongs to the open item."""
        open_kind = self.asm.open_kind
        if open_kind == "text" and (self.waits or self.marks is not None):
            self._marked_text("", fidelity)
            return
        if open_kind == "thinking" or (open_kind is None and thought):
            self.asm.thinking("", fidelity)
        elif open_kind in (None, "text"):
            self.asm.text("", fidelity)
        else:
            self.asm.fidelity(fidelity)

    def _inline(self, inline: dict[str, Any], thought: bool, fidelity: dict[str, Any] | None, part: Any) -> None:
        data = inline.get("data")
        mime = inline.get("mimeType")
        mime = mime if mime and type(mime) is str else "application/octet-stream"
        raw = wire_bytes(data) if type(data) is str else None
        if raw is None:
            self.session.note("inline_data_not_base64", f"inlineData of type {shown(mime)} could not be decoded")
            self.session.side_event("inlineData", "info", None, part)
            return
        if thought:
            self.asm.inline_thinking(raw, mime, fidelity)
        else:
            self.asm.inline_data(raw, mime, fidelity=fidelity)

    # --- function calls ---------------------------------------------------------------

    def _function_call(self, call: Any, fidelity: dict[str, Any] | None, part: dict[str, Any]) -> None:
        if type(call) is not dict:
            return
        name = call.get("name")
        continues = call.get("willContinue") is True
        partial = call.get("partialArgs")
        if self.streamed is not None:
            if not name:
                self._continue_streamed(partial, continues)
                return
            self._close_streamed("a new call began while a streamed call was open")
        if not name or type(name) is not str:
            if partial is not None or continues or call:
                self.session.note("stray_call_part", "a functionCall part with no call open and no name")
                self.session.side_event("functionCall", "info", None, part)
            return
        self.calls += 1
        call_id = call.get("id")
        if not call_id or type(call_id) is not str:
            call_id = f"call_{self.session.stream_id}_{self.calls}"
        self.made_calls = True
        if partial is None and not continues:
            args = call.get("args")
            self.asm.tool_call(name, call_id, json_text(args) if type(args) is dict else "{}", fidelity)
            self.asm.close()
            return
        self.asm.tool_call(name, call_id, "", fidelity)
        self.streamed = _ArgsText()
        self._continue_streamed(partial, continues)

    def _continue_streamed(self, partial: Any, continues: bool) -> None:
        streamed = self.streamed
        assert streamed is not None
        if type(partial) is list:
            for arg in partial:
                if type(arg) is not dict:
                    continue
                path = _path(arg["jsonPath"]) if type(arg.get("jsonPath")) is str else None
                value = _partial_value(arg)
                text = streamed.add(path, *value) if path is not None and value is not None else None
                if text is None:
                    self.session.note("partial_arg_not_read", "a partialArgs fragment that cannot follow the others")
                elif text:
                    self.asm.tool_arguments(text)
        if not continues:
            self._finish_streamed()

    def _finish_streamed(self) -> None:
        streamed = self.streamed
        assert streamed is not None
        self.streamed = None
        self.asm.tool_arguments(streamed.finish())
        if self.asm.open_kind == "tool_call":
            self.asm.close()

    def _close_streamed(self, why: str) -> None:
        self.session.note("streamed_call_left_open", why)
        self._finish_streamed()


_ACTIONS: Final = tuple(getattr(Gemini, "_" + name) for name in M.ACTIONS)
