# OpenAI Responses (`event: response.*` + `data: {"type": ..., "sequence_number": n}`),
# as sent by OpenAI, Azure, OpenRouter (no `event:` lines, trailing `[DONE]`), DeepSeek
# and LM Studio (raw `reasoning_text`), xAI, Bedrock, and Mirobody (tool steps).
#
# Frame lifecycle: the generated machine from machines/openai_responses.py decides
# which event is legal where.  This module classifies each frame into a symbol (one
# dict lookup on `type`), checks `sequence_number` and `output_index`, and owns what
# each action does with the frame's content:
#
# - text: `output_text.delta` and `refusal.delta` (a refusal is visible text; its full
#   text is also kept in `extras["refusals"]`).  A message's `phase` is the text item's
#   fidelity, on an empty delta before its first text (the item's done names it when
#   `output_item.added` did not).  Each message item is its own text item.
# - logprobs: the `logprobs` of `output_text.delta` events, joined in order (else those
#   of `output_text.done`, else of the done item's output_text parts, for gateways that
#   send them only there), ride on the text item as fidelity `{"logprobs": [...]}` on
#   one empty delta before its done, with the phase: a message whose first text carries
#   logprobs keeps its phase for that delta (an item carries one fidelity).
# - thinking: `reasoning_summary_text.delta` and `reasoning_text.delta`.  At the
#   reasoning item's `output_item.done`, when it carries `encrypted_content` (or a
#   `signature`), the fidelity {encrypted_content, reasoning_id (the item id, which
#   replay needs), format, signature, channel ("summary" or "content": the done item's
#   list that holds the text; "none" when text streamed and the done item lists it in
#   neither)} rides once on an empty thinking.delta before the done; a reasoning item
#   with no text but with encrypted content is an empty thinking item carrying it.
# - function calls: `tool_call.delta` with the name and the `call_id` (not the item id)
#   at `output_item.added`, then argument fragments; when no fragment arrived the
#   `.done` arguments, else the item at `output_item.done`, are sent as one fragment.
# - the other items the client answers with an item of its own (CLIENT_CALLS: a custom
#   tool's call, a computer, local shell, shell or apply_patch call, an MCP approval
#   request) are tool calls too: whoever must act next decides, and here it is the
#   client.  The call is named by the custom tool's `name`, else by the item type; its
#   id is the `call_id` (an approval request's `id`); its arguments are the item's own
#   fields as a JSON object (a custom tool's free text as `{"input": text}`); and its
#   fidelity names the item type (`item_type`), with what writing the item back needs
#   that the call does not hold: a computer or local shell call's item id
#   (`call_item_id`), and the item's `namespace`, `caller` and `environment`.  Text
#   the item streams (a custom tool's input, a patch's diff) goes out as fragments of
#   that JSON text, escaped, as it arrives; the rest of the arguments at
#   `output_item.done`, from the whole item.  A `shell_call` whose `environment` names
#   a hosted container runs on the server and stays on the side channel.
# - `.done` events and `output_item.done` items are authoritative only for content
#   that arrived in no delta (gateways that send whole parts): nothing is sent twice.
# - built-in tools (any other item type), their events, annotations, unknown events
#   about an item and Mirobody's tool steps: the side channel (`dec.side_event`).
#   Mirobody results are matched to their call by `id`, else `call_id`;
#   `extras["tool_steps"]` holds one record per step, and the full result from
#   `response.completed` `tool_steps[].result` replaces a streamed one that was cut
#   (`truncated` true), with a side event (phase "info") carrying the final step.
#   `health_records` and `citations` from the final object go to `extras` and to one
#   side event of kind "mirobody_response".
# - a generated image: an `image_generation_call`'s events (partial images included:
#   previews, not the answer) are side events like any built-in tool's, but the final
#   image its done item holds (`result`, base64) is what the turn produced: one
#   inline_data item in place of the side event of its done, its type from
#   `output_format` (else read from its first bytes), its fidelity the item's id and
#   settings (IMAGE_FIELDS).  A failed call, one without a result, or a result that is
#   no base64 (noted) stays on the side channel.  Some servers close the item with
#   `status: generating` and the whole result: the image counts all the same.
# - sequence numbers: a gap or a repeat is an anomaly; the frame is still read.
#
# Gateway quirks absorbed here: OpenRouter leaves its reasoning item open while the
# message streams and closes it afterwards (the thinking item is closed when the next
# item starts; fidelity that only arrives at the late done is kept in
# `extras["late_reasoning_fidelity"]` with an anomaly); frames without
# `sequence_number` (older recordings) are not checked.
from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Final

from unievent._events import FinishReason
from unievent._framing import FRAME_OK, FRAME_OVER
from unievent._generated import openai_responses as M
from unievent._ondemand import Runs, Template
from unievent._outcome import ProviderError
from unievent._protocols.ollama import image_type
from unievent._session import MachineHandler, Session
from unievent._shared import (
    CUSTOM_INPUT_CLOSE,
    CUSTOM_INPUT_OPEN,
    as_dict,
    as_int,
    as_list,
    as_str,
    base64_bytes,
    code_of,
    error_of,
    json_string_body,
    json_text,
    shown,
)
from unievent._usage_wire import UsageWire

__all__ = ["OpenAIResponses"]

_NEXT: Final = M.NEXT
_DO: Final = M.DO
_STATES: Final = M.STATES
_ALLOWED: Final = M.ALLOWED
_ST_FAILED: Final = M.ST_FAILED
# states in which nothing but eof is declared: the decoder stops feeding frames.  They
# are declared last, so "terminal" is one comparison.
_TERMINAL: Final = frozenset(s for s in range(len(M.STATES)) if M.ALLOWED[s] in ((), ("eof",)))
_FIRST_TERMINAL: Final = min(_TERMINAL)
assert set(range(_FIRST_TERMINAL, len(M.STATES))) == _TERMINAL, "terminal states must be declared last"

#: the usage object's counts (written back by _writers/openai_responses.py)
USAGE: Final = UsageWire(
    (
        (("input_tokens",), "input_raw"),
        (("input_tokens_details", "cached_tokens"), "cached"),
        (("output_tokens",), "output_raw"),
        (("output_tokens_details", "reasoning_tokens"), "thoughts"),
    ),
    {"input_raw": ("prompt", "cached"), "output_raw": ("response", "thoughts")},
    ("total_tokens", ("input_tokens", "output_tokens")),
)

_SYMBOL_OF_TYPE: Final[dict[str, int]] = {
    "response.created": M.SY_CREATED,
    "response.queued": M.SY_PROGRESS,
    "response.in_progress": M.SY_PROGRESS,
    "response.content_part.added": M.SY_PART,
    "response.content_part.done": M.SY_PART,
    "response.reasoning_summary_part.added": M.SY_PART,
    "response.reasoning_summary_part.done": M.SY_PART,
    "response.output_text.delta": M.SY_TEXT_DELTA,
    "response.refusal.delta": M.SY_TEXT_DELTA,
    "response.output_text.done": M.SY_TEXT_DONE,
    "response.refusal.done": M.SY_TEXT_DONE,
    "response.output_text.annotation.added": M.SY_ANNOTATION,
    "response.reasoning_summary_text.delta": M.SY_THINKING_DELTA,
    "response.reasoning_text.delta": M.SY_THINKING_DELTA,
    "response.reasoning_summary_text.done": M.SY_THINKING_DONE,
    "response.reasoning_text.done": M.SY_THINKING_DONE,
    "response.function_call_arguments.delta": M.SY_ARGS_DELTA,
    "response.function_call_arguments.done": M.SY_ARGS_DONE,
    "response.custom_tool_call_input.delta": M.SY_INPUT_DELTA,
    "response.custom_tool_call_input.done": M.SY_INPUT_DONE,
    "response.apply_patch_call_operation_diff.delta": M.SY_INPUT_DELTA,
    "response.apply_patch_call_operation_diff.done": M.SY_INPUT_DONE,
    "response.output_item.done": M.SY_ITEM_DONE,
    "response.mirobody_tool_call": M.SY_MIROBODY_CALL,
    "response.mirobody_tool_result": M.SY_MIROBODY_RESULT,
    "response.completed": M.SY_COMPLETED,
    "response.incomplete": M.SY_INCOMPLETE,
    "response.failed": M.SY_FAILED,
    "error": M.SY_ERROR,
}
_SY_ADDED: Final = -1  # response.output_item.added: the symbol depends on the item's type
_SYMBOL_OF_TYPE["response.output_item.added"] = _SY_ADDED
#: Responses items the client answers, each with the item fields its call's arguments
#: hold (a field the item lacks or leaves null is left out)
CLIENT_CALLS: Final[dict[str, tuple[str, ...]]] = {
    "custom_tool_call": ("input",),
    "computer_call": ("action", "actions", "pending_safety_checks"),
    "local_shell_call": ("action",),
    "shell_call": ("action",),
    "apply_patch_call": ("operation",),
    "mcp_approval_request": ("server_label", "name", "arguments"),
}
_SYMBOL_OF_ITEM: Final = {
    "reasoning": M.SY_REASONING_ADDED,
    "message": M.SY_MESSAGE_ADDED,
    "function_call": M.SY_CALL_ADDED,
    **dict.fromkeys(CLIENT_CALLS, M.SY_CLIENT_CALL_ADDED),
}
# fields of a client call's item kept as its fidelity, so that it is written back as it came
_KEPT_FIELDS: Final = ("namespace", "caller", "environment")
#: client calls whose id their request form requires (kept as fidelity `call_item_id`)
ITEM_ID_KEPT: Final = frozenset(("computer_call", "local_shell_call"))
# items with no `status` field
_NO_STATUS: Final = frozenset(("custom_tool_call", "mcp_approval_request"))
# the text an item streams: the streaming events' field (the event's, at its done) and
# where that text sits in the call's arguments
_STREAMED: Final = {
    "custom_tool_call": ("input", ("input",)),
    "apply_patch_call": ("diff", ("operation", "diff")),
}
_KIND_OF_INPUT: Final = {
    "response.custom_tool_call_input.delta": "custom_tool_call",
    "response.apply_patch_call_operation_diff.delta": "apply_patch_call",
}
# the built-in tools' own events are `response.<prefix>.<what>` (or `<prefix>_code.`,
# `<prefix>_arguments.`): all of them go to the open built-in item
_BUILTIN_PREFIXES: Final = (
    "response.web_search_call",
    "response.file_search_call",
    "response.code_interpreter_call",
    "response.mcp_call",
    "response.mcp_list_tools",
    "response.mcp_approval_request",
    "response.image_generation_call",
    "response.custom_tool_call",
    "response.computer_call",
    "response.local_shell_call",
    "response.shell_call",
    "response.apply_patch_call",
)
# symbols whose events belong to one output item (their output_index is checked)
_ITEM_LEVEL: Final = tuple(
    s
    in (
        M.SY_PART,
        M.SY_TEXT_DELTA,
        M.SY_TEXT_DONE,
        M.SY_ANNOTATION,
        M.SY_THINKING_DELTA,
        M.SY_THINKING_DONE,
        M.SY_ARGS_DELTA,
        M.SY_ARGS_DONE,
        M.SY_INPUT_DELTA,
        M.SY_INPUT_DONE,
        M.SY_BUILTIN_EVENT,
        M.SY_ITEM_DONE,
    )
    for s in range(len(M.SYMBOLS))
)
# events of a reasoning item left open, by their ordinary symbol
_LATE: Final = {
    M.SY_PART: M.SY_LATE_REASONING,
    M.SY_THINKING_DELTA: M.SY_LATE_REASONING,
    M.SY_THINKING_DONE: M.SY_LATE_REASONING,
    M.SY_ITEM_DONE: M.SY_LATE_REASONING_DONE,
}
# events that change nothing done when they name an earlier item: late, not contradictory
_LATE_OK: Final = frozenset((M.SY_PART, M.SY_ANNOTATION, M.SY_BUILTIN_EVENT, M.SY_ITEM_DONE))
_DELTA_PATH: Final = ("delta",)
#: an image generation call's done item fields kept as its image's fidelity (beside its
#: id, `image_generation_call_id`), and written back into the item by its writer
IMAGE_FIELDS: Final = ("revised_prompt", "output_format", "size", "quality", "background", "action")
#: the MIME type of each `output_format` the image generation tool offers
IMAGE_FORMATS: Final = {
    "png": "image/png",
    "jpeg": "image/jpeg",
    "jpg": "image/jpeg",
    "webp": "image/webp",
    "gif": "image/gif",
    "svg": "image/svg+xml",
}
_FORMAT_CHARS: Final = frozenset("abcdefghijklmnopqrstuvwxyz0123456789.+-")
_LEARN_TRIES: Final = 4  # failed attempts to learn a template, per item, before giving up
_MIROBODY_CUT: Final = 4096  # Mirobody cuts streamed tool results at this many characters


class _Item:
    """The open output item: what the handler needs to know about it."""

    __slots__ = (
        "added",
        "announced",
        "any_text",
        "args_seen",
        "call_id",
        "id",
        "index",
        "kind",
        "logprobs",
        "marked",
        "name",
        "part_text",
        "pending",
        "phase",
        "phase_waits",
        "refusal",
        "refusal_done",
        "suffix",
    )

    def __init__(self, kind: str, index: int | None, item_id: str | None) -> None:
        self.kind = kind
        self.index = index
        self.id = item_id
        self.any_text = False  # some text or thinking of this item arrived
        self.part_text = False  # ... of its current part
        # function calls
        self.call_id = ""
        self.name = ""
        self.announced = False
        self.args_seen = False
        self.pending: list[str] = []  # fragments before the call could be announced
        # client calls: the item as output_item.added gave it, and what closes the
        # arguments' JSON text once its streamed text began going out ("" before)
        self.added: dict[str, Any] = {}
        self.suffix = ""
        # messages: refusal deltas, and whether a refusal.done recorded them
        self.refusal: list[str] = []
        self.refusal_done = False
        # messages: the phase before its first text decides where it rides, the phase
        # waiting for the close with the logprobs, whether the phase went out, and the
        # logprobs gathered
        self.phase: Any = None
        self.phase_waits: Any = None
        self.marked = False
        self.logprobs: list[Any] = []


# what a hot delta's string is (and _LEARN_NOTHING: the frame teaches no template)
_LEARN_NOTHING: Final = -1
_HOT_TEXT: Final = 0
_HOT_THINKING: Final = 1
_HOT_ARGUMENTS: Final = 2
_str: Final = as_str
_int: Final = as_int
_dict: Final = as_dict
_list: Final = as_list


def _step_key(step: dict[str, Any]) -> str | None:
    return _str(step.get("id")) or _str(step.get("call_id")) or None


def _texts(parts: list[Any], kinds: tuple[str, ...], field: str) -> str:
    return "".join(p[field] for p in parts if type(p) is dict and p.get("type") in kinds and type(p.get(field)) is str)


def _entries(value: Any) -> list[Any]:
    """A `logprobs` field's entries (none unless it is a list)."""
    return value if type(value) is list else []


def _parts_logprobs(parts: list[Any]) -> list[Any]:
    """The logprobs of a message's output_text parts, joined in order."""
    return [e for p in parts if type(p) is dict and p.get("type") == "output_text" for e in _entries(p.get("logprobs"))]


def image_mime(output_format: Any, data: bytes) -> str:
    """An image's MIME type: by its `output_format`, else by its first bytes; a format
    no one listed yet, when the bytes do not say, is taken as `image/<format>`."""
    fmt: str = output_format.lower() if type(output_format) is str else ""
    known = IMAGE_FORMATS.get(fmt)
    if known is not None:
        return known
    sniffed = image_type(data)
    if sniffed == "application/octet-stream" and fmt and _FORMAT_CHARS.issuperset(fmt):
        return "image/" + fmt
    return sniffed


def _image_fidelity(done: dict[str, Any], image_id: str | None) -> dict[str, Any] | None:
    fidelity: dict[str, Any] = {}
    if image_id:
        fidelity["image_generation_call_id"] = image_id
    for key in IMAGE_FIELDS:
        value = done.get(key)
        if value is not None:
            fidelity[key] = value
    return fidelity or None


def _provider_error(error: dict[str, Any], whole: dict[str, Any], fallback: str) -> ProviderError:
    """An error object as a ProviderError: its type, else its code, is the type."""
    message = error.get("message")
    if type(message) is not str or not message:
        message = json_text(error or whole) if (error or whole) else fallback
    code = code_of(error.get("code"))
    kind = error.get("type")
    kind = kind if type(kind) is str and kind != "error" else (code if type(code) is str else None)
    return ProviderError(message, kind, code, error or whole)


# --- items the client answers ------------------------------------------------------------


def added_symbol(item: dict[str, Any]) -> int:
    """The symbol of an `output_item.added` of `item`: by its type, and for a shell call
    by who runs it (a hosted container's call is the server's own)."""
    kind = _str(item.get("type"))
    if kind == "shell_call" and _runs_hosted(item):
        return M.SY_BUILTIN_ADDED
    return _SYMBOL_OF_ITEM.get(kind, M.SY_BUILTIN_ADDED)


def _runs_hosted(item: dict[str, Any]) -> bool:
    # a container (`container_reference`, `container_auto`) is OpenAI's; `local` or none
    # is the client's own machine
    environment = item.get("environment")
    return type(environment) is dict and _str(environment.get("type")) not in ("", "local")


def client_call_name(kind: str, item: dict[str, Any]) -> str:
    """A custom tool's call is named by the tool; any other by its item type, which no
    function shares by accident (the fidelity's `item_type` settles it anyway)."""
    return _str(item.get("name")) if kind == "custom_tool_call" else kind


def client_call_id(kind: str, item: dict[str, Any]) -> str:
    """What the answer names: an approval request's `id`, else the `call_id`."""
    if kind == "mcp_approval_request":
        return _str(item.get("id"))
    return _str(item.get("call_id")) or _str(item.get("id"))


def client_call_arguments(kind: str, item: dict[str, Any]) -> dict[str, Any]:
    return {key: item[key] for key in CLIENT_CALLS[kind] if item.get(key) is not None}


def client_call_fidelity(kind: str, item: dict[str, Any]) -> dict[str, Any]:
    fidelity: dict[str, Any] = {"item_type": kind}
    item_id = item.get("id")
    if kind in ITEM_ID_KEPT and item_id and type(item_id) is str:
        fidelity["call_item_id"] = item_id
    for key in _KEPT_FIELDS:
        if item.get(key) is not None:
            fidelity[key] = item[key]
    return fidelity


def client_call_item(
    kind: str,
    name: str,
    call_id: str,
    arguments: dict[str, Any],
    fidelity: dict[str, Any],
    status: str | None = None,
    item_id: str | None = None,
) -> dict[str, Any]:
    """The Responses item of a client call, as it came: the reverse of the decoding
    (its writer and replay build their items with it)."""
    item: dict[str, Any] = {"type": kind}
    if kind == "mcp_approval_request":
        item["id"] = call_id
    else:
        if item_id:
            item["id"] = item_id
        item["call_id"] = call_id
    if kind == "custom_tool_call":
        item["name"] = name
    if status is not None and kind not in _NO_STATUS:
        item["status"] = status
    # fields the item cannot be without, when the arguments lack them
    if kind == "custom_tool_call":
        item["input"] = ""
    elif kind == "computer_call":
        item["pending_safety_checks"] = []
    item.update(client_call_arguments(kind, arguments))
    item.update({key: fidelity[key] for key in _KEPT_FIELDS if key in fidelity})
    return item


def _streamed_prefix(kind: str, added: dict[str, Any]) -> tuple[str, str] | None:
    """The JSON text the arguments open with before an item's streamed text, and what
    closes them after it; None when the item does not say enough to write them (its
    arguments then come whole from its done)."""
    if kind == "custom_tool_call":
        return CUSTOM_INPUT_OPEN, CUSTOM_INPUT_CLOSE
    operation = added.get("operation")
    if kind == "apply_patch_call" and type(operation) is dict:
        rest = json_text({key: value for key, value in operation.items() if key != "diff"})
        head = rest[:-1] + ("," if rest != "{}" else "")
        return '{"operation":' + head + '"diff":"', '"}}'
    return None


class OpenAIResponses(MachineHandler):
    """Protocol handler for `openai_responses` (see StreamDecoder)."""

    machine: ClassVar[Any] = M

    def __init__(self, session: Session) -> None:
        self.session = session
        self.asm = session.asm
        self.state = M.INITIAL
        self.item: _Item | None = None
        self.deferred: dict[int, _Item] = {}
        self.late_text: dict[int, list[str]] = {}
        self.last_index: int | None = None
        self.fresh = False  # response.created seen: the first item is output_index 0
        self.next_seq = -1  # the sequence_number expected next; -1 before the first
        self.etype = ""
        self.made_calls = False
        self.calls = 0
        self.finish: FinishReason = "stop"
        self.steps: list[dict[str, Any]] = []
        self.step_by_id: dict[str, dict[str, Any]] = {}
        self.step_by_call: dict[str, dict[str, Any]] = {}
        self.from_state = M.INITIAL  # the state the current transition left
        # on-demand parsing (see _ondemand.py): the open item's hot delta template, the
        # item and state it holds for, and what its string is given to
        self.hot: Template | None = None
        self.hot_item: _Item | None = None
        self.hot_state = -1
        self.hot_counted = False
        self.hot_kind = _HOT_TEXT
        self.learn = _LEARN_NOTHING  # what the frame just read could teach a template for
        self.learn_tries = _LEARN_TRIES
        self.fast_frames = 0
        self.runs = Runs()  # the run taker's window (see _ondemand.Runs)

    # --- frames ---------------------------------------------------------------------

    def raw(self, event: str | None, payload: bytes) -> int:
        """The framer's sink: the open item's hot delta is taken on demand when it
        matches the template learned from that item's earlier deltas, its sequence
        number the one expected; every other frame is parsed whole."""
        hot = self.hot
        if hot is not None:
            value = hot.match(payload, self.next_seq)
            if value is not None and self.state == self.hot_state and self.item is self.hot_item:
                if self.hot_counted:
                    self.next_seq += 1
                self._take_hot([value])
                return FRAME_OK
        obj = self.parse(event, payload)
        if isinstance(obj, int):
            return obj
        over = self.frame(event, obj)
        if self.item is not self.hot_item:
            self.hot = None
        # what frame() found it could learn from: None again before the next frame
        learn = self.learn
        self.learn = _LEARN_NOTHING
        if learn != _LEARN_NOTHING and self.learn_tries and not over:
            seq = obj.get("sequence_number")
            template = Template.learn(payload, obj, _DELTA_PATH, seq if type(seq) is int else None)
            if template is None:
                self.learn_tries -= 1
            else:
                self.hot, self.hot_item, self.hot_state = template, self.item, self.state
                self.hot_counted, self.hot_kind = type(seq) is int, learn
        return FRAME_OVER if over else FRAME_OK

    def raw_run(self, heads: list[bytes] | None, payloads: list[bytes], start: int) -> int:
        """The framer's run taker: the open item's hot deltas from `start` on, each
        exactly as `raw` takes it (its sequence number the next expected); the index
        of the first frame not taken."""
        hot = self.hot
        if hot is None or self.state != self.hot_state or self.item is not self.hot_item:
            return start
        step = 1 if self.hot_counted else 0
        runs = self.runs
        holes = hot.holes_of_run(payloads, start, start + runs.window, self.next_seq, step)
        if not holes:  # a frame of another shape: no call to parse nothing
            return start
        values = runs.strings(holes)
        if values:
            self.next_seq += step * len(values)
            self._take_hot(values)
        return start + len(values)

    def _take_hot(self, values: list[str]) -> None:
        """The strings of hot deltas taken on demand, each as the full path takes its
        delta (direct calls: a compiled handler makes them without a lookup)."""
        kind = self.hot_kind
        if kind == _HOT_TEXT:
            self._hot_texts(values)
        elif kind == _HOT_THINKING:
            self._hot_thinkings(values)
        else:
            self._hot_arguments(values)
        self.fast_frames += len(values)

    def frame(self, event: str | None, obj: dict[str, Any]) -> bool:
        get = obj.get
        etype: Any = get("type")
        symbol = _SYMBOL_OF_TYPE.get(etype) if type(etype) is str else None
        if symbol is None or symbol < 0:
            return self._other(event, etype, obj, symbol)
        seq = get("sequence_number")
        if seq == self.next_seq and type(seq) is int:  # 1.0 and True equal 1, and are no counter
            self.next_seq = seq + 1
        else:
            self._sequence(seq, etype)
        if _ITEM_LEVEL[symbol]:
            index = get("output_index")
            if type(index) is int:
                item = self.item
                if item is None or index != item.index:
                    refined = self._item_symbol(symbol, index, item)
                    if refined < 0:
                        return self._violation(etype, self._why_index(index, item))
                    if refined == M.SY_NEW_INDEX:
                        # the open item was left open: close it, then this event in `between`
                        if self._fire(refined, etype, obj):
                            return True
                    else:
                        symbol = refined
        return self._fire(symbol, etype, obj)

    def _fire(self, symbol: int, etype: str, obj: dict[str, Any]) -> bool:
        """Fire `symbol` in the table; undeclared ends the stream failed."""
        state = self.state
        dest = _NEXT[state][symbol]
        if dest < 0:
            return self._violation(etype, "not allowed here")
        self.etype = etype
        self.from_state = state
        self.state = dest
        for action in _DO_FN[state][symbol]:
            action(self, obj)
        return dest >= _FIRST_TERMINAL

    def _item_symbol(self, symbol: int, index: int, item: _Item | None) -> int:
        """The symbol of an item event whose output_index is not the open item's:
        an event of a deferred reasoning item, the first event of an item whose
        output_item.added never came (the open item was left open), or -1 for an
        event of an item that already closed."""
        if index in self.deferred and symbol in _LATE:
            return _LATE[symbol]
        last = self.last_index
        if last is not None and index <= last:
            return M.SY_LATE_EVENT if symbol in _LATE_OK else -1
        if item is not None and item.index is not None:
            return M.SY_NEW_INDEX
        return symbol

    @staticmethod
    def _why_index(index: int, item: _Item | None) -> str:
        if item is not None and item.index is not None:
            return f"output_index {index} while output item {item.index} is open"
        return f"output_index {index} names an item that already closed"

    def _other(self, event: str | None, etype: Any, obj: dict[str, Any], symbol: int | None) -> bool:
        """Frames off the hot path: output_item.added, a type only on the `event:` line,
        and unknown types."""
        if type(etype) is not str:
            if event is None:
                return False
            etype = event
            symbol = _SYMBOL_OF_TYPE.get(etype)
        if symbol is not None and symbol >= 0:
            obj = {**obj, "type": etype}  # the kind came from the event line
            return self.frame(None, obj)
        seq = obj.get("sequence_number")
        if seq == self.next_seq and type(seq) is int:  # 1.0 and True equal 1, and are no counter
            self.next_seq = seq + 1
        else:
            self._sequence(seq, etype)
        if symbol == _SY_ADDED:
            return self._added(etype, obj)
        if etype.startswith(_BUILTIN_PREFIXES):
            symbol = M.SY_BUILTIN_EVENT
            index = obj.get("output_index")
            item = self.item
            last = self.last_index
            if type(index) is int and last is not None and index <= last and (item is None or index != item.index):
                symbol = M.SY_LATE_EVENT  # progress or completion of an earlier built-in item
            elif type(index) is int and item is not None and item.index is not None and index != item.index:
                return self._violation(etype, f"output_index {index} while output item {item.index} is open")
        elif "output_index" in obj or "item_id" in obj:
            symbol = M.SY_ITEM_INFO
        else:
            return False  # keepalives, gateway frames: nothing about the response
        return self._fire(symbol, etype, obj)

    def _added(self, etype: str, obj: dict[str, Any]) -> bool:
        item = _dict(obj.get("item"))
        symbol = added_symbol(item)
        if _NEXT[self.state][symbol] < 0:
            return self._violation(etype, f"not allowed here (item type {shown(item.get('type'))})")
        index = obj.get("output_index")
        if type(index) is int and not self._next_index(index, etype):
            return self._violation(etype, f"output_index {index} after {self.last_index}: it goes back")
        return self._fire(symbol, etype, obj)

    def _next_index(self, index: int, etype: str) -> bool:
        """Take the output_index of a new item: one past the last is expected; a gap is
        an anomaly; going back is a contradiction (False)."""
        last = self.last_index
        expected = (last + 1) if last is not None else (0 if self.fresh else index)
        if index < expected:
            return False
        if index > expected:
            self.session.note("output_index_gap", f"{etype} with output_index {index}, expected {expected}")
        self.last_index = index
        return True

    def _sequence(self, seq: Any, etype: str) -> None:
        if type(seq) is not int:
            return
        last = self.next_seq - 1
        if self.next_seq < 0:
            self.next_seq = seq + 1  # the first number: a resumed stream starts anywhere
        elif seq > last:
            self.session.note("sequence_gap", f"sequence_number {seq} after {last} ({etype})")
            self.next_seq = seq + 1
        else:
            self.session.note("sequence_repeat", f"sequence_number {seq} after {last} ({etype})")

    def _violation(self, etype: str, why: str) -> bool:
        state = self.state
        allowed = ", ".join(_ALLOWED[state]) or "nothing"
        message = f"openai_responses: {etype} in state {_STATES[state]!r}: {why} (allowed: {allowed})"
        self.session.fail(ProviderError(message, "protocol_error", None, None))
        self.state = _ST_FAILED
        return True

    def done_sentinel(self) -> bool:
        state = self.state
        dest = _NEXT[state][M.SY_DONE_SENTINEL]
        if dest < 0:
            return state in _TERMINAL
        self.state = dest
        return dest in _TERMINAL

    def before_stop(self) -> None:
        """Nothing waits: every item closed at its done or at the terminal event."""

    def finish_reason(self) -> FinishReason:
        return self.finish

    # --- lifecycle ------------------------------------------------------------------

    def _a_take_response(self, obj: dict[str, Any]) -> None:
        if self.etype == "response.created":
            self.fresh = True
        self._response(_dict(obj.get("response")))

    def _response(self, response: dict[str, Any]) -> None:
        model = response.get("model")
        if model and type(model) is str:
            self.session.model = model
        rid = response.get("id")
        self.session.take_response_id(rid)
        if rid and type(rid) is str:
            self.session.extras["response_id"] = rid  # read there before Outcome.response_id

    # --- opening items ----------------------------------------------------------------

    def _a_open_reasoning(self, obj: dict[str, Any]) -> None:
        item = _dict(obj.get("item"))
        self.item = _Item("reasoning", _int(obj.get("output_index")), _str(item.get("id")) or None)

    def _a_open_message(self, obj: dict[str, Any]) -> None:
        item = _dict(obj.get("item"))
        message = _Item("message", _int(obj.get("output_index")), _str(item.get("id")) or None)
        self.item = message
        phase = item.get("phase")
        if phase:
            message.phase = phase  # out before its first text, or with its logprobs at the close

    def _phase_before_text(self, message: _Item, logprobs: bool) -> None:
        """The message's first text is here: its phase goes out first, or, when the text
        carries logprobs, waits to ride with them."""
        phase = message.phase
        if phase is None:
            return
        message.phase = None
        if logprobs:
            message.phase_waits = phase
        else:
            message.marked = True
            self.asm.text("", {"phase": phase})

    def _message_text(self, text: str) -> None:
        """Text of the open message that no delta brought (a `.done`'s)."""
        message = self.item
        assert message is not None
        self._phase_before_text(message, bool(message.logprobs))
        self.asm.text(text)

    def _a_open_call(self, obj: dict[str, Any]) -> None:
        item = _dict(obj.get("item"))
        call = _Item("function_call", _int(obj.get("output_index")), _str(item.get("id")) or None)
        self.item = call
        self.calls += 1
        call.call_id = _str(item.get("call_id")) or call.id or ""
        call.name = _str(item.get("name"))
        arguments = self._arguments_of(item.get("arguments"))
        if arguments:
            call.args_seen = True
            call.pending.append(arguments)
        if call.name:
            self._announce(call)

    def _announce(self, call: _Item) -> None:
        if not call.call_id:
            block = call.index if call.index is not None else self.calls - 1
            call.call_id = f"call_{self.session.stream_id}_{block}"
        self.asm.tool_call(call.name, call.call_id, "".join(call.pending))
        call.pending = []
        call.announced = True
        self.made_calls = True

    @staticmethod
    def _arguments_of(value: Any) -> str:
        if type(value) is str:
            return value
        if type(value) in (dict, list):
            return json_text(value)  # some gateways send an object
        return ""

    def _a_open_client_call(self, obj: dict[str, Any]) -> None:
        item = _dict(obj.get("item"))
        kind = _str(item.get("type"))
        call = _Item(kind, _int(obj.get("output_index")), _str(item.get("id")) or None)
        self.item = call
        self.calls += 1
        call.added = item
        call.call_id = client_call_id(kind, item)
        call.name = client_call_name(kind, item)
        if call.name:
            self._announce_client_call(call, item)

    def _announce_client_call(self, call: _Item, item: dict[str, Any]) -> None:
        if not call.call_id:
            block = call.index if call.index is not None else self.calls - 1
            call.call_id = f"call_{self.session.stream_id}_{block}"
        self.asm.tool_call(call.name, call.call_id, "", client_call_fidelity(call.kind, item))
        call.announced = True
        self.made_calls = True

    def _a_open_builtin(self, obj: dict[str, Any]) -> None:
        item = _dict(obj.get("item"))
        kind = _str(item.get("type")) or "unknown_item"
        builtin = _Item(kind, _int(obj.get("output_index")), _str(item.get("id")) or None)
        self.item = builtin
        self.session.side_event(kind, "start", builtin.id, obj)

    def _a_defer_reasoning(self, obj: dict[str, Any]) -> None:
        item = self.item
        assert item is not None
        if item.index is not None:
            self.deferred[item.index] = item
        if self.asm.open_kind == "thinking":
            self.asm.close()
        self.item = None

    def _a_imply_message(self, obj: dict[str, Any]) -> None:
        self.item = self._implied("message", obj)

    def _a_imply_reasoning(self, obj: dict[str, Any]) -> None:
        self.item = self._implied("reasoning", obj)

    def _a_imply_call(self, obj: dict[str, Any]) -> None:
        call = self._implied("function_call", obj)
        self.calls += 1
        self.item = call  # named (and announced) by its arguments' done or its item's done

    def _a_imply_client_call(self, obj: dict[str, Any]) -> None:
        call = self._implied(_KIND_OF_INPUT[self.etype], obj)
        self.calls += 1
        self.item = call  # named (and announced) by its item's done

    def _implied(self, kind: str, obj: dict[str, Any]) -> _Item:
        index = _int(obj.get("output_index"))
        item = _Item(kind, index, _str(obj.get("item_id")) or None)
        if index is not None:
            self._next_index(index, self.etype)
        if self.from_state == M.ST_WAITING:
            # a stream that starts inside an item resumes it (`starting_after`): the
            # item began on an earlier connection, so its .done texts repeat what that
            # connection delivered and are never used as fallbacks here
            item.any_text = item.part_text = True
            self.session.note("resumed_output_item", f"the stream began inside output item {shown(index)} ({kind})")
        else:
            what = f"{self.etype} for output item {index}"
            self.session.note("implied_output_item", f"{what} with no output_item.added")
        return item

    def _a_close_left_open(self, obj: dict[str, Any]) -> None:
        item = self.item
        assert item is not None
        self.item = None
        self.session.note("item_left_open", f"output item {item.index} ({item.kind}) was open at {self.etype}")
        self._close_item(item, {}, {"item": {}})  # its done never came: nothing more is known of it

    # --- content ------------------------------------------------------------------------

    def _a_text(self, obj: dict[str, Any]) -> None:
        delta = obj.get("delta")
        item = self.item
        assert item is not None  # the message is open
        if self.etype == "response.refusal.delta":
            if delta and type(delta) is str:
                self._phase_before_text(item, False)
                self.asm.text(delta)
                item.part_text = True
                item.refusal.append(delta)
        elif type(delta) is str:
            logprobs = obj.get("logprobs")
            if logprobs and type(logprobs) is list:
                # never learned: a template's frames would be taken without theirs
                self._phase_before_text(item, True)
                item.logprobs.extend(logprobs)
                self._hot_texts([delta])
                return
            if delta and item.phase is not None:
                self._phase_before_text(item, False)
            self._hot_texts([delta])
            self.learn = _HOT_TEXT

    def _hot_texts(self, deltas: list[str]) -> None:
        self.asm.texts(deltas)
        if any(deltas):
            self.item.part_text = True  # type: ignore[union-attr]  # the message is open

    def _a_text_done(self, obj: dict[str, Any]) -> None:
        text = obj.get("text")
        item = self.item
        assert item is not None  # the message is open
        if type(text) is not str:
            text = obj.get("refusal")
            if type(text) is str:
                self._refused(text)
        elif not item.logprobs:  # no delta carried them: a gateway that sends them here
            item.logprobs = list(_entries(obj.get("logprobs")))
        self._part_done(text, self._message_text)

    def _refused(self, text: str) -> None:
        """A refusal is visible text, and kept in extras["refusals"] (once per message)."""
        item = self.item
        if item is not None:
            item.refusal_done = True
        self.session.extras.setdefault("refusals", []).append(text)

    def _part_done(self, text: Any, emit: Callable[[str], None]) -> None:
        """A part's `.done`: its text counts only when no delta of the part came
        (gateways that send no deltas), so nothing goes out twice."""
        item = self.item
        assert item is not None
        if item.part_text:
            item.any_text = True
        elif text and type(text) is str:
            emit(text)
            item.any_text = True
        item.part_text = False

    def _a_annotation(self, obj: dict[str, Any]) -> None:
        annotation = _dict(obj.get("annotation"))
        kind = _str(annotation.get("type")) or "annotation"
        self.session.side_event(kind, "info", _str(obj.get("item_id")) or None, obj)

    def _a_thinking(self, obj: dict[str, Any]) -> None:
        delta = obj.get("delta")
        if type(delta) is str:
            self._hot_thinkings([delta])
            self.learn = _HOT_THINKING

    def _hot_thinkings(self, deltas: list[str]) -> None:
        self.asm.thinkings(deltas)
        if any(deltas):
            self.item.part_text = True  # type: ignore[union-attr]  # the reasoning item is open

    def _a_thinking_done(self, obj: dict[str, Any]) -> None:
        self._part_done(obj.get("text"), self.asm.thinking)

    def _a_arguments(self, obj: dict[str, Any]) -> None:
        delta = obj.get("delta")
        if type(delta) is str:
            self._hot_arguments([delta])
            self.learn = _HOT_ARGUMENTS

    def _hot_arguments(self, deltas: list[str]) -> None:
        if not any(deltas):
            return
        call = self.item
        assert call is not None
        call.args_seen = True
        if call.announced:
            self.asm.tool_arguments_run(deltas)
        else:
            call.pending.extend(delta for delta in deltas if delta)

    def _a_arguments_done(self, obj: dict[str, Any]) -> None:
        call = self.item
        assert call is not None
        if not call.name:
            call.name = _str(obj.get("name"))
        if not call.args_seen:
            arguments = self._arguments_of(obj.get("arguments"))
            if arguments:
                call.args_seen = True
                call.pending.append(arguments)
        if call.announced:
            if call.pending:
                self.asm.tool_arguments("".join(call.pending))
                call.pending = []
        elif call.name:
            self._announce(call)

    def _a_input(self, obj: dict[str, Any]) -> None:
        call = self.item
        assert call is not None
        if call.kind not in _STREAMED:  # an item that streams no text: the event is its progress
            self._a_builtin_progress(obj)
            return
        delta = obj.get("delta")
        if delta and type(delta) is str:
            self._stream_input(call, delta)

    def _stream_input(self, call: _Item, text: str) -> None:
        """Text the call streams: a fragment of its arguments' JSON text while its
        item says how that text opens, else kept for its done."""
        call.args_seen = True
        if call.suffix:
            self.asm.tool_arguments(json_string_body(text))
            return
        around = _streamed_prefix(call.kind, call.added) if call.announced else None
        if around is None:
            call.pending.append(text)
            return
        head, call.suffix = around
        self.asm.tool_arguments(head + json_string_body(text))

    def _a_input_done(self, obj: dict[str, Any]) -> None:
        call = self.item
        assert call is not None
        if call.kind not in _STREAMED:
            self._a_builtin_progress(obj)
            return
        text = obj.get(_STREAMED[call.kind][0])
        if not call.args_seen and text and type(text) is str:
            self._stream_input(call, text)

    def _a_builtin_progress(self, obj: dict[str, Any]) -> None:
        item = self.item
        assert item is not None
        self.session.side_event(item.kind, "delta", item.id, obj)

    def _a_late_event(self, obj: dict[str, Any]) -> None:
        index = obj.get("output_index")
        self.session.note("late_event", f"{self.etype} for output item {index}, after a later item began")
        kind = self.etype.removeprefix("response.")
        self.session.side_event(kind, "info", _str(obj.get("item_id")) or None, obj)

    def _a_item_info(self, obj: dict[str, Any]) -> None:
        self.session.side_event(self.etype.removeprefix("response."), "info", _str(obj.get("item_id")) or None, obj)

    # --- closing items ------------------------------------------------------------------

    def _a_close_reasoning(self, obj: dict[str, Any]) -> None:
        item = self.item
        assert item is not None
        self.item = None
        self._finish_reasoning(item, _dict(obj.get("item")))

    def _finish_reasoning(self, item: _Item, done: dict[str, Any]) -> None:
        asm = self.asm
        summary = _list(done.get("summary"))
        content = _list(done.get("content"))
        if not (item.any_text or item.part_text):
            text = _texts(summary, ("summary_text",), "text") or _texts(content, ("reasoning_text", "text"), "text")
            if text:
                asm.thinking(text)
        fidelity = self._reasoning_fidelity(done, summary, content, item.any_text or item.part_text)
        if fidelity is not None:
            if asm.open_kind == "thinking":
                asm.fidelity(fidelity)
            else:
                asm.thinking("", fidelity)  # encrypted reasoning with no text: its own item
        if asm.open_kind == "thinking":
            asm.close()

    @staticmethod
    def _reasoning_fidelity(
        done: dict[str, Any], summary: list[Any], content: list[Any], streamed: bool = False
    ) -> dict[str, Any] | None:
        encrypted = done.get("encrypted_content")
        signature = done.get("signature")
        if not encrypted and not signature:
            return None
        fidelity: dict[str, Any] = {}
        if encrypted:
            fidelity["encrypted_content"] = encrypted
            if done.get("id"):
                fidelity["reasoning_id"] = done["id"]  # replaying a reasoning item needs its id
        if done.get("format"):
            fidelity["format"] = done["format"]
        if signature:
            fidelity["signature"] = signature
        if summary:
            fidelity["channel"] = "summary"
        elif content:
            fidelity["channel"] = "content"
        elif streamed:
            fidelity["channel"] = "none"  # its text streamed, and the done item has no place for it
        return fidelity

    def _a_close_message(self, obj: dict[str, Any]) -> None:
        item = self.item
        assert item is not None
        self.item = None
        self._finish_message(item, _dict(obj.get("item")))

    def _finish_message(self, item: _Item, done: dict[str, Any]) -> None:
        refusal = "".join(item.refusal)
        content = _list(done.get("content"))
        if not item.logprobs:  # no event before carried them
            item.logprobs = _parts_logprobs(content)
        if not (item.any_text or item.part_text):
            refusal = _texts(content, ("refusal",), "refusal")
            text = _texts(content, ("output_text",), "text") + refusal
            if text:
                self._phase_before_text(item, bool(item.logprobs))
                self.asm.text(text)
        if refusal and not item.refusal_done:
            self.session.extras.setdefault("refusals", []).append(refusal)
        fidelity = self._closing_fidelity(item, done)
        if fidelity:
            self.asm.text("", fidelity)
        if self.asm.open_kind == "text":
            self.asm.close()

    def _closing_fidelity(self, item: _Item, done: dict[str, Any]) -> dict[str, Any]:
        """What rides on a message's text item at its close: the phase that waited (or
        that only the done item names) and the logprobs."""
        fidelity: dict[str, Any] = {}
        phase = item.phase if item.phase is not None else item.phase_waits
        if phase is None and not item.marked:
            phase = done.get("phase") or None
        if phase is not None:
            fidelity["phase"] = phase
        if item.logprobs:
            if item.marked:  # the item's fidelity went out with its first text
                count = len(item.logprobs)
                self.session.note("logprobs_without_text", f"{count} logprobs entries came after the message's phase")
            else:
                fidelity["logprobs"] = item.logprobs
        return fidelity

    def _a_close_call(self, obj: dict[str, Any]) -> None:
        call = self.item
        assert call is not None
        self.item = None
        self._finish_call(call, _dict(obj.get("item")), obj)

    def _finish_call(self, call: _Item, done: dict[str, Any], obj: dict[str, Any]) -> None:
        if not call.name:
            call.name = _str(done.get("name"))
        if not call.call_id:
            call.call_id = _str(done.get("call_id")) or _str(done.get("id"))
        if not call.args_seen:
            arguments = self._arguments_of(done.get("arguments"))
            if arguments:
                call.args_seen = True
                call.pending.append(arguments)
        if not call.announced:
            if not call.name:
                # never a nameless tool call: kept on the side channel instead
                what = f"function call {call.call_id}"
                self.session.note("unnamed_tool_call", f"{what} never got a name; kept as a side event")
                self.session.side_event("function_call", "done", call.call_id, obj)
                return
            self._announce(call)
        elif call.pending:
            self.asm.tool_arguments("".join(call.pending))
            call.pending = []
        if self.asm.open_kind == "tool_call":
            self.asm.close()

    def _a_close_client_call(self, obj: dict[str, Any]) -> None:
        call = self.item
        assert call is not None
        self.item = None
        self._finish_client_call(call, _dict(obj.get("item")), obj)

    def _finish_client_call(self, call: _Item, done: dict[str, Any], obj: dict[str, Any]) -> None:
        if call.suffix:  # its streamed text went out: close the JSON text around it
            self.asm.tool_arguments(call.suffix)
            self.asm.close()
            return
        item = {**call.added, **done}
        if not call.announced:
            call.name = call.name or client_call_name(call.kind, item)
            call.call_id = call.call_id or client_call_id(call.kind, item)
            if not call.name:
                # never a nameless tool call: kept on the side channel instead
                what = f"{call.kind} {call.call_id}"
                self.session.note("unnamed_tool_call", f"{what} never got a name; kept as a side event")
                self.session.side_event(call.kind, "done", call.call_id or call.id, obj)
                return
            self._announce_client_call(call, item)
        arguments = client_call_arguments(call.kind, item)
        if call.pending:
            self._put_streamed(call.kind, arguments, "".join(call.pending))
        self.asm.tool_arguments(json_text(arguments))
        self.asm.close()

    @staticmethod
    def _put_streamed(kind: str, arguments: dict[str, Any], text: str) -> None:
        """The streamed text in its place in the arguments, where the item left it empty."""
        path = _STREAMED[kind][1]
        where = arguments
        for key in path[:-1]:
            inner = where.get(key)
            if type(inner) is not dict:
                inner = {}
            where[key] = inner = dict(inner)
            where = inner
        if not where.get(path[-1]):
            where[path[-1]] = text

    def _a_close_builtin(self, obj: dict[str, Any]) -> None:
        item = self.item
        assert item is not None
        self.item = None
        if item.kind == "image_generation_call" and self._image(_dict(obj.get("item")), item.id):
            return
        self.session.side_event(item.kind, "done", item.id, obj)

    def _image(self, done: dict[str, Any], item_id: str | None) -> bool:
        """An image generation call's final image as one inline_data item; False when
        the call gave none (failed, no result, a result that is no base64)."""
        result = done.get("result")
        if done.get("status") == "failed" or result is None or result == "":
            return False
        image_id = _str(done.get("id")) or item_id
        data = base64_bytes(result) if type(result) is str else None
        if not data:
            what = f"the result of image_generation_call {image_id or '(no id)'}"
            self.session.note("inline_data_not_base64", f"{what} could not be decoded: {shown(result)}")
            return False
        self.asm.inline_data(data, image_mime(done.get("output_format"), data), True, _image_fidelity(done, image_id))
        self.asm.close()
        return True

    def _a_adopt_item(self, obj: dict[str, Any]) -> None:
        # a resumed stream whose first event is an item's done: the item is whole
        done = _dict(obj.get("item"))
        kind = _str(done.get("type"))
        index = _int(obj.get("output_index"))
        if index is not None:
            self.last_index = index
        if kind == "message":
            self._a_open_message(obj)
            self._a_close_message(obj)
        elif kind == "reasoning":
            self._a_open_reasoning(obj)
            self._a_close_reasoning(obj)
        elif kind == "function_call":
            self._a_open_call(obj)
            self._a_close_call(obj)
        elif added_symbol(done) == M.SY_CLIENT_CALL_ADDED:
            self._a_open_client_call(obj)
            self._a_close_client_call(obj)
        elif not (kind == "image_generation_call" and self._image(done, None)):
            self.session.side_event(kind or "unknown_item", "done", _str(done.get("id")) or None, obj)

    def _a_close_open_item(self, obj: dict[str, Any]) -> None:
        # the terminal event came while an item was open: close it from the final
        # response's output, which holds the whole item
        item = self.item
        if item is None:
            return
        self.item = None
        output = _list(_dict(obj.get("response")).get("output"))
        done: dict[str, Any] = {}
        if item.index is not None and 0 <= item.index < len(output) and type(output[item.index]) is dict:
            done = output[item.index]
        what = f"output item {item.index} ({item.kind})"
        self.session.note("item_left_open", f"{self.etype} arrived while {what} was open")
        self._close_item(item, done, {"item": done} if done else obj)

    def _close_item(self, item: _Item, done: dict[str, Any], obj: dict[str, Any]) -> None:
        """Close an item whose output_item.done never came, from what is known of it."""
        if item.kind == "reasoning":
            self._finish_reasoning(item, done)
        elif item.kind == "message":
            self._finish_message(item, done)
        elif item.kind == "function_call":
            self._finish_call(item, done, {"item": done})
        elif item.kind in CLIENT_CALLS:
            self._finish_client_call(item, done, {"item": done})
        elif not (item.kind == "image_generation_call" and self._image(done, item.id)):
            self.session.side_event(item.kind, "done", item.id, obj)

    # --- a reasoning item left open (OpenRouter) ------------------------------------------

    def _a_late_reasoning(self, obj: dict[str, Any]) -> None:
        index = obj["output_index"]
        delta = obj.get("delta")
        if delta and type(delta) is str and self.etype.endswith(".delta"):
            self.late_text.setdefault(index, []).append(delta)

    def _a_finish_late_reasoning(self, obj: dict[str, Any]) -> None:
        message = self.item
        if message is not None and message.phase is not None:
            self._phase_before_text(message, False)  # the message began before this: its phase is out
        index = obj["output_index"]
        item = self.deferred.pop(index)
        late = "".join(self.late_text.pop(index, []))
        done = _dict(obj.get("item"))
        sent = item.any_text or item.part_text  # its thinking item was closed when the next item began
        if self.asm.open_kind is None and (late or not sent):
            if late:
                self.asm.thinking(late)  # a thinking item of its own, with the fidelity
                item.any_text = True
            self._finish_reasoning(item, done)
            return
        fidelity = self._reasoning_fidelity(done, _list(done.get("summary")), _list(done.get("content")))
        if fidelity is not None or late:
            self.session.extras.setdefault("late_reasoning_fidelity", []).append(
                {"output_index": index, "fidelity": fidelity, "text": late}
            )
            self.session.note(
                "late_reasoning",
                f"reasoning item {item.id} (output_index {index}) finished after its thinking item closed; "
                "its late content is in extras['late_reasoning_fidelity']",
            )

    # --- Mirobody tool steps ----------------------------------------------------------------

    def _step_record(self, step: dict[str, Any]) -> dict[str, Any] | None:
        sid = step.get("id")
        if sid and type(sid) is str:
            record = self.step_by_id.get(sid)
            if record is not None:
                return record
        call_id = step.get("call_id")
        if call_id and type(call_id) is str:
            return self.step_by_call.get(call_id)
        return None

    def _new_step(self, step: dict[str, Any]) -> dict[str, Any]:
        record = {
            "id": step.get("id"),
            "call_id": step.get("call_id"),
            "name": step.get("name"),
            "arguments": step.get("arguments"),
            "result": None,
            "truncated": False,
        }
        self.steps.append(record)
        sid = record["id"]
        if sid and type(sid) is str:
            self.step_by_id.setdefault(sid, record)
        call_id = record["call_id"]
        if call_id and type(call_id) is str:
            self.step_by_call.setdefault(call_id, record)
        self.session.extras["tool_steps"] = self.steps
        return record

    def _a_mirobody_call(self, obj: dict[str, Any]) -> None:
        step = _dict(obj.get("tool_step"))
        record = self._step_record(step) or self._new_step(step)
        if record["arguments"] is None:
            record["arguments"] = step.get("arguments")
        self.session.side_event("mirobody_tool_call", "start", _step_key(step), obj)

    def _a_mirobody_result(self, obj: dict[str, Any]) -> None:
        step = _dict(obj.get("tool_step"))
        record = self._step_record(step)
        if record is None:
            self.session.note("unmatched_tool_result", "a Mirobody tool result matches no tool call")
            record = self._new_step(step)
        record["result"] = step.get("result")
        record["truncated"] = step.get("truncated") is True
        # the step's key as its call gave it, so the call's and the result's side events pair up
        self.session.side_event("mirobody_tool_result", "done", _step_key(record) or _step_key(step), obj)

    def _final_steps(self, response: dict[str, Any], obj: dict[str, Any]) -> None:
        for step in _list(response.get("tool_steps") or obj.get("tool_steps")):
            if type(step) is not dict:
                continue
            record = self._step_record(step)
            full = step.get("result")
            if record is None:
                record = self._new_step(step)
                record["result"] = full
                self.session.side_event("mirobody_tool_result", "info", _step_key(step), step)
                continue
            streamed = record["result"]
            cut = record["truncated"] or (type(streamed) is str and len(streamed) >= _MIROBODY_CUT)
            if cut and type(full) is str and full != streamed:
                record["result"] = full
                record["truncated"] = False
                record["replaced_truncated"] = True
                self.session.side_event("mirobody_tool_result", "info", _step_key(step), step)
        found = {}
        for key in ("health_records", "citations"):
            value = response.get(key, obj.get(key))
            if value is not None:
                self.session.extras[key] = value
                found[key] = value
        if found:
            self.session.side_event("mirobody_response", "info", _str(response.get("id")) or None, found)

    # --- the end ------------------------------------------------------------------------

    def _usage(self, response: dict[str, Any]) -> None:
        usage = response.get("usage")
        if type(usage) is not dict:
            return
        counts = USAGE.read(usage)
        input_tokens = counts.get("input_raw")
        output_tokens = counts.get("output_raw")
        cached = counts.get("cached")
        reasoning = counts.get("thoughts")
        prompt = input_tokens - (cached or 0) if input_tokens is not None else None
        response_tokens = output_tokens - (reasoning or 0) if output_tokens is not None else None
        if response_tokens is not None and response_tokens < 0:
            response_tokens = output_tokens  # a gateway that counts output without reasoning
        self.session.set_usage(cached=cached, prompt=prompt, thoughts=reasoning, response=response_tokens)

    def _a_record_completed(self, obj: dict[str, Any]) -> None:
        response = _dict(obj.get("response"))
        self._response(response)
        self._usage(response)
        status = response.get("status")
        self.session.native_finish_reason = status if status and type(status) is str else "completed"
        self.finish = "tool_call" if self.made_calls else "stop"
        self._final_steps(response, obj)

    def _a_record_incomplete(self, obj: dict[str, Any]) -> None:
        response = _dict(obj.get("response"))
        self._response(response)
        self._usage(response)
        reason = _dict(response.get("incomplete_details")).get("reason")
        self.session.native_finish_reason = reason if reason and type(reason) is str else "incomplete"
        self.finish = "length" if reason == "max_output_tokens" else "unknown"
        self._final_steps(response, obj)

    def _a_record_failed(self, obj: dict[str, Any]) -> None:
        response = _dict(obj.get("response"))
        self._response(response)
        self._usage(response)
        status = response.get("status")
        self.session.native_finish_reason = status if status and type(status) is str else "failed"
        # an `error` event before it already recorded the error: the first one wins
        error = response.get("error")
        if type(error) is dict:
            self.session.fail(_provider_error(error, obj, "response failed"))
        elif error is not None:
            self.session.fail(error_of("error", response) or ProviderError("response failed", None, None, obj))
        else:
            message = f"response failed (status {shown(status)}) with no error object"
            self.session.fail(ProviderError(message, None, None, obj))

    def _a_record_error(self, obj: dict[str, Any]) -> None:
        error = obj.get("error")
        if type(error) is dict:
            self.session.fail(_provider_error(error, obj, "error event"))
        elif error is not None:
            self.session.fail(error_of("error", obj) or ProviderError("error event", None, None, obj))
        else:
            self.session.fail(_provider_error(obj, obj, "error event"))


#: DO_FN[state][symbol]: the action functions of the transition, in order
_DO_FN: Final[tuple[tuple[tuple[Callable[[OpenAIResponses, dict[str, Any]], None], ...], ...], ...]] = tuple(
    tuple(tuple(getattr(OpenAIResponses, f"_a_{M.ACTIONS[a]}") for a in actions) for actions in row) for row in _DO
)
