"""Conformance cases for unievent: the rule definitions, and the JSON they generate.

Every case is one rule: a stream (the bytes of a response body, in the pieces the
network delivered), the decoder options it runs with, and one sentence saying what it
shows.  `python tests/conformance/build.py` decodes each case with StreamDecoder
(clock 0) and writes `tests/conformance/<protocol>__<slug>.json` with what came out;
`--check` rewrites nothing and exits 1 when a file differs from what it would write,
is missing, or is left over from a case that no longer exists.  The format is in
tests/conformance/README.md.

Before anything is written, each case's `facts` (what its rule states: the end, the
text, the calls, the anomalies, ...) are checked against the decoder's output, and
every event list is checked against the UniEvent grammar; a case whose output
contradicts its rule stops the build.

    python tests/conformance/build.py           # (re)write every case file
    python tests/conformance/build.py --check   # exit 1 if any file is not up to date
"""

from __future__ import annotations

import argparse
import base64
import importlib.util
import itertools
import json
import struct
import sys
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
if importlib.util.find_spec("unievent") is None:  # not installed: use the source tree
    sys.path.insert(0, str(HERE.parent.parent / "decoder"))

import unievent  # noqa: E402
from unievent import (  # noqa: E402
    DeltaEvent,
    Outcome,
    SideEvent,
    StopEvent,
    TextDelta,
    TextDone,
    ThinkingDelta,
    ThinkingDone,
    ToolCallDelta,
    ToolCallDone,
    Usage,
)
from unievent._decoder import StreamDecoder as RuntimeStreamDecoder  # noqa: E402  (takes any protocol name)

ENCODING = "latin-1"
OPTION_DEFAULTS: dict[str, Any] = {
    "stream_id": "s1",
    "strict_arguments": True,
    "side_events": False,
    "max_frame": 16 * 1024 * 1024,
    "max_retained": 10_000,
}

CHAT = "openai_chat"
ANTHROPIC = "anthropic"
RESPONSES = "openai_responses"


# --- cases ------------------------------------------------------------------------------


@dataclass(frozen=True)
class Case:
    protocol: str
    slug: str
    rule: str
    chunks: tuple[bytes, ...]
    options: dict[str, Any]
    facts: dict[str, Any] = field(default_factory=dict)

    @property
    def name(self) -> str:
        return f"{self.protocol}__{self.slug}"


CASES: list[Case] = []


def case(
    protocol: str,
    slug: str,
    rule: str,
    chunks: bytes | list[bytes],
    options: dict[str, Any] | None = None,
    **facts: Any,
) -> None:
    """Define one case.  `chunks`: the body whole, or the pieces it arrives in.
    `facts`: what the rule states about the output (see FACTS), checked at build."""
    unknown = set(options or {}) - set(OPTION_DEFAULTS)
    if unknown:
        raise ValueError(f"{slug}: unknown options {sorted(unknown)}")
    unknown = set(facts) - set(FACTS)
    if unknown:
        raise ValueError(f"{slug}: unknown facts {sorted(unknown)}")
    pieces = (chunks,) if isinstance(chunks, bytes) else tuple(chunks)
    if b"".join(pieces) == b"" and pieces != (b"",):
        raise ValueError(f"{slug}: no input")
    CASES.append(Case(protocol, slug, rule, pieces, {**OPTION_DEFAULTS, **(options or {})}, facts))


def split_at(data: bytes, *cuts: int) -> list[bytes]:
    """`data` cut at the given offsets."""
    points = sorted({min(max(c, 0), len(data)) for c in cuts} | {0, len(data)})
    return [data[a:b] for a, b in itertools.pairwise(points)]


def cut_after(data: bytes, *marks: tuple[bytes, int]) -> list[bytes]:
    """`data` cut `offset` bytes into the first occurrence of each marker."""
    return split_at(data, *(data.index(mark) + offset for mark, offset in marks))


def bytewise(data: bytes) -> list[bytes]:
    return [data[i : i + 1] for i in range(len(data))]


def dumps(obj: Any) -> str:
    return json.dumps(obj, separators=(",", ":"), ensure_ascii=False)


# --- decoding and what a case file holds ------------------------------------------------


@dataclass
class Observed:
    events: list[Any]
    outcome: Outcome
    raises: str | None


def decode(case_: Case) -> Observed:
    """Feed the chunks (clock 0); feeding stops at the first push that raises."""
    decoder = RuntimeStreamDecoder(case_.protocol, clock=lambda: 0, **case_.options)
    events: list[Any] = []
    raises: str | None = None
    for piece in case_.chunks:
        try:
            events += decoder.push(piece)
        except unievent.UniEventError as error:
            raises = type(error).__name__
            events += getattr(error, "events", [])
            break
    last, outcome = decoder.finish()
    events += last
    return Observed(events, outcome, raises)


def _jsonable(value: Any) -> Any:
    try:
        return json.loads(json.dumps(value))
    except (TypeError, ValueError):
        return {"unserializable": type(value).__name__}


def side_json(event: SideEvent) -> dict[str, Any]:
    return {
        "protocol": event.protocol,
        "kind": event.kind,
        "phase": event.phase,
        "item_id": event.item_id,
        "data": event.data,
    }


def event_json(event: Any) -> dict[str, Any]:
    if isinstance(event, SideEvent):
        return {"side_event": side_json(event)}
    return unievent.to_json(event)


def expected_json(seen: Observed) -> dict[str, Any]:
    outcome = seen.outcome
    error = outcome.error
    doc: dict[str, Any] = _jsonable(
        {
            "events": [event_json(e) for e in seen.events],
            "raises": seen.raises,
            "outcome": {
                "end": outcome.end,
                "finish_reason": outcome.finish_reason,
                "native_finish_reason": outcome.native_finish_reason,
                "model": outcome.model,
                "response_id": outcome.response_id,
                "usage": unievent.to_json(outcome.usage),
                "skipped_frames": outcome.skipped_frames,
                "error": None if error is None else {"message": error.message, "type": error.type, "code": error.code},
                "anomalies": [{"kind": a.kind, "count": a.count} for a in outcome.anomalies],
                "extras": {key: _jsonable(value) for key, value in outcome.extras.items()},
                "message": unievent.to_json(outcome.message),
                "side_events": [side_json(e) for e in outcome.side_events],
                "body": outcome.body,
            },
        }
    )
    return doc


def case_json(case_: Case) -> dict[str, Any]:
    seen = decode(case_)
    problems = check(case_, seen)
    if problems:
        raise CaseError(case_.name, problems)
    return {
        "name": case_.name,
        "rule": case_.rule,
        "protocol": case_.protocol,
        "options": case_.options,
        "encoding": ENCODING,
        "chunks": [piece.decode(ENCODING) for piece in case_.chunks],
        "expected": expected_json(seen),
    }


def render(doc: dict[str, Any]) -> str:
    return json.dumps(doc, indent=2, sort_keys=True, ensure_ascii=True) + "\n"


# --- facts: what each rule states, checked before anything is written ------------------


class CaseError(Exception):
    def __init__(self, name: str, problems: list[str]) -> None:
        super().__init__(f"{name}: " + "; ".join(problems))
        self.name = name
        self.problems = problems


def _items(seen: Observed) -> list[Any]:
    return [e.item for e in seen.events if isinstance(e, DeltaEvent)]


def _shape(seen: Observed) -> list[Any]:
    out: list[Any] = []
    for e in seen.events:
        if isinstance(e, SideEvent):
            out.append((e.kind, e.phase, e.item_id))
        elif isinstance(e, StopEvent):
            out.append("stop")
        else:
            out.append(e.item.type)
    return out


def _dones(seen: Observed) -> list[Any]:
    return list(seen.outcome.message.items)


Fact = Callable[[Observed], Any]

FACTS: dict[str, Fact] = {
    "end": lambda s: s.outcome.end,
    "finish_reason": lambda s: s.outcome.finish_reason,
    "native": lambda s: s.outcome.native_finish_reason,
    "model": lambda s: s.outcome.model,
    "response_id": lambda s: s.outcome.response_id,
    "raises": lambda s: s.raises,
    "skipped": lambda s: s.outcome.skipped_frames,
    "usage": lambda s: s.outcome.usage,
    "body": lambda s: s.outcome.body,
    "error": lambda s: None if s.outcome.error is None else (s.outcome.error.message, s.outcome.error.type, s.outcome.error.code),
    "error_type": lambda s: s.outcome.error and s.outcome.error.type,
    "error_in": lambda s: s.outcome.error.message if s.outcome.error else "",  # substring(s) of the message
    "text": lambda s: "".join(i.text for i in _dones(s) if isinstance(i, TextDone)),
    "thinking": lambda s: "".join(i.thinking for i in _dones(s) if isinstance(i, ThinkingDone)),
    "calls": lambda s: [(i.name, i.tool_call_id, i.arguments) for i in _dones(s) if isinstance(i, ToolCallDone)],
    "dones": _dones,
    "items": _items,
    "items_head": _items,  # the first len(expected) items
    "shape": _shape,
    "sides": lambda s: [(e.kind, e.phase, e.item_id) for e in s.events if isinstance(e, SideEvent)],
    "kept_sides": lambda s: [(e.kind, e.phase, e.item_id) for e in s.outcome.side_events],
    "kept_done_data": lambda s: [e.data for e in s.outcome.side_events if e.phase == "done"],
    "anomalies": lambda s: {a.kind: a.count for a in s.outcome.anomalies},
    "extras": lambda s: s.outcome.extras,  # the expected keys only
}


def check(case_: Case, seen: Observed) -> list[str]:
    problems: list[str] = []
    outcome = seen.outcome
    try:
        unievent.validate(seen.events, partial=outcome.end != "complete")
    except unievent.GrammarError as error:
        problems.append(f"events break the grammar: {error}")
    stops = [i for i, e in enumerate(seen.events) if isinstance(e, StopEvent)]
    if (outcome.end == "complete") != (stops == [len(seen.events) - 1]):
        problems.append(f"end {outcome.end!r} but stop events at {stops} of {len(seen.events)}")
    elif stops:
        last = seen.events[-1]
        if (last.usage, last.finish_reason) != (outcome.usage, outcome.finish_reason):
            problems.append("the stop event's usage or finish reason differs from the outcome's")
    for key, want in case_.facts.items():
        got = FACTS[key](seen)
        if key == "items_head":
            got = got[: len(want)]
        elif key == "extras":
            got = {k: got.get(k, "<missing>") for k in want}
        elif key == "error_in":
            for part in (want,) if isinstance(want, str) else want:
                if part not in got:
                    problems.append(f"error message {got!r} does not contain {part!r}")
            continue
        if got != want:
            problems.append(f"{key}: expected {want!r}, got {got!r}")
    return problems


# =========================================================================================
# OpenAI-compatible Chat Completions
# =========================================================================================


def chunk(delta: dict[str, Any] | None = None, finish: str | None = None, **top: Any) -> dict[str, Any]:
    """A chat.completion.chunk with one choice (or the given top-level fields only)."""
    body: dict[str, Any] = {"id": "chatcmpl-1", "object": "chat.completion.chunk", "model": "gpt-test"}
    if delta is not None or finish is not None:
        body["choices"] = [{"index": 0, "delta": delta or {}, "finish_reason": finish}]
    body.update(top)
    return body


def sse(*frames: dict[str, Any] | str, done: bool = True) -> bytes:
    """`data: <json>` frames, each followed by a blank line, then `data: [DONE]`."""
    out = ""
    for frame in frames:
        out += "data: " + (frame if isinstance(frame, str) else dumps(frame)) + "\n\n"
    if done:
        out += "data: [DONE]\n\n"
    return out.encode()


def call(index: int | None = None, id: str | None = None, name: str | None = None, arguments: Any = None) -> dict[str, Any]:
    fragment: dict[str, Any] = {"type": "function", "function": {}}
    if index is not None:
        fragment["index"] = index
    if id is not None:
        fragment["id"] = id
    if name is not None:
        fragment["function"]["name"] = name
    if arguments is not None:
        fragment["function"]["arguments"] = arguments
    return fragment


def tools(*fragments: dict[str, Any]) -> dict[str, Any]:
    return chunk({"tool_calls": list(fragments)})


def deep(levels: int) -> bytes:
    return b"[" * levels + b"]" * levels


HELLO = sse(chunk({"content": "Hel"}), chunk({"content": "lo"}), chunk({}, finish="stop"))


def chat_cases() -> None:
    p = CHAT
    # --- choices, delta and message
    body = sse(chunk({"role": "assistant", "content": ""}), chunk({"content": "Hel"}), chunk({"content": "lo"}), chunk({}, finish="stop"))
    case(p, "text_streams_as_one_group_and_ends_with_stop",
         "Text deltas form one text group closed by text.done, and a finish_reason of stop ends the stream complete with a stop event; the model comes from the chunks.",
         body,
         items=[TextDelta("Hel"), TextDelta("lo"), TextDone("Hello")], end="complete", finish_reason="stop", native="stop", model="gpt-test")
    case(p, "text_in_pieces_split_inside_lines",
         "A body cut anywhere (inside a field name, inside the JSON, between a line and its blank line) decodes as if it came whole.",
         cut_after(body, (b'"Hel"', 2), (b"data: {", 3), (b'"lo"}', 0), (b"\n\ndata: [DONE]", 1)),
         items=[TextDelta("Hel"), TextDelta("lo"), TextDone("Hello")], end="complete")
    case(p, "only_the_first_choice_is_read",
         "Only the choice of index 0 is read (the option `choice` picks another); the others are never mixed in: counted as the anomaly other_choices, their indexes in extras.",
         sse({"choices": [{"index": 0, "delta": {"content": "a"}}, {"index": 1, "delta": {"content": "b"}}]}),
         text="a", end="complete")
    interleaved = [{"choices": [{"index": i % 2, "delta": {"content": w}, "finish_reason": None}]} for i, w in enumerate(["a", "A", "b", "B"])]
    case(p, "interleaved_choices_are_never_mixed",
         "With n=2 the chunks of choices 0 and 1 interleave, one choice a chunk: choice 0 is decoded alone and its finish_reason ends the stream.",
         sse(*interleaved, {"choices": [{"index": 1, "delta": {}, "finish_reason": "length"}]}, {"choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]}),
         text="ab", end="complete", finish_reason="stop", native="stop")
    case(p, "a_whole_message_instead_of_a_delta_is_read",
         "A choice carrying a whole `message` instead of a `delta` is read like a delta.",
         sse({"choices": [{"index": 0, "message": {"role": "assistant", "content": "whole"}, "finish_reason": "stop"}]}),
         text="whole", end="complete", finish_reason="stop")
    case(p, "a_refusal_is_text_marked_as_a_refusal",
         "A `refusal` delta (structured outputs) is visible text whose item carries fidelity `{\"refusal\": true}`; text after it is an item of its own, and finish_reason stays as sent.",
         sse(chunk({"role": "assistant", "content": None, "refusal": ""}), chunk({"refusal": "No"}), chunk({"refusal": "."}),
             chunk({"content": "But"}), chunk({}, finish="stop")),
         items=[TextDelta("No", {"refusal": True}), TextDelta("."), TextDone("No.", {"refusal": True}),
                TextDelta("But"), TextDone("But")],
         end="complete", finish_reason="stop")
    no_choices: list[tuple[str, dict[str, Any]]] = [
        ("empty_choices", {"choices": []}),
        ("null_choices", {"choices": None}),
        ("missing_choices", {"id": "x"}),
        ("azure_prompt_filter_results", {"prompt_filter_results": [{"prompt_index": 0, "content_filter_results": {}}], "choices": []}),
    ]
    for slug, frame in no_choices:
        case(p, f"a_chunk_with_{slug}_is_fine",
             "A chunk whose `choices` is empty, null or missing (heartbeats, Azure prompt_filter_results, usage-only chunks) is read without error or skip.",
             sse(frame, chunk({"content": "ok"}), chunk({}, finish="stop")),
             end="complete", text="ok", skipped=0)
    case(p, "unknown_fields_are_ignored",
         "Fields the decoder does not know, at the top and in the delta, are ignored.",
         sse(chunk({"content": "a", "token_ids": [1, 2]}, obfuscation="xyz", x_groq={"id": "req"}, logprobs=None)),
         text="a", end="complete")
    case(p, "the_newest_model_name_wins",
         "The outcome's model is the newest non-empty model a chunk named.",
         sse(chunk({"content": "a"}, model="first-model"), chunk({"content": "b"}, model=""), chunk({}, finish="stop", model="second-model")),
         model="second-model", text="ab")

    # --- reasoning
    for fld in ("reasoning_content", "reasoning"):
        fidelity = {"reasoning_field": fld}
        case(p, f"{fld}_becomes_thinking_with_the_field_name_once",
             f"`{fld}` deltas become one thinking group whose first delta and done carry the field name as fidelity; text after it is a separate group.",
             sse(chunk({fld: "think"}), chunk({fld: "ing"}), chunk({"content": "answer"}), chunk({}, finish="stop")),
             items_head=[ThinkingDelta("think", fidelity), ThinkingDelta("ing"), ThinkingDone("thinking", fidelity)], thinking="thinking", text="answer")
    case(p, "both_reasoning_fields_in_one_chunk_are_read_once_without_a_field_name",
         "A chunk carrying both `reasoning_content` and `reasoning` (the same text twice) is read once, with no reasoning_field fidelity.",
         sse(chunk({"reasoning_content": "x", "reasoning": "x"})),
         items=[ThinkingDelta("x"), ThinkingDone("x")])
    case(p, "openrouter_reasoning_details_win_and_keep_the_signature",
         "OpenRouter `reasoning_details` win over `reasoning`; a reasoning.text signature rides as fidelity (signature, format) on one empty thinking delta and the done.",
         sse(
             chunk({"reasoning": "Two", "reasoning_details": [{"type": "reasoning.text", "text": "Two", "format": "anthropic-claude-v1", "index": 0}]}),
             chunk({"reasoning": " plus", "reasoning_details": [{"type": "reasoning.text", "text": " plus", "format": "anthropic-claude-v1", "index": 0}]}),
             chunk({"reasoning_details": [{"type": "reasoning.text", "signature": "sig==", "format": "anthropic-claude-v1", "index": 0}]}),
             chunk({"content": "4"}),
             chunk({}, finish="stop"),
         ),
         items_head=[ThinkingDelta("Two"), ThinkingDelta(" plus"), ThinkingDelta("", {"signature": "sig==", "format": "anthropic-claude-v1"}),
                     ThinkingDone("Two plus", {"signature": "sig==", "format": "anthropic-claude-v1"})],
         text="4")
    block = {"type": "reasoning.encrypted", "data": "gAAAA", "id": "rs_1", "format": "openai-responses-v1", "index": 0}
    fid = {"encrypted_content": "gAAAA", "format": "openai-responses-v1", "reasoning_id": "rs_1"}
    case(p, "openrouter_encrypted_reasoning_is_kept_in_fidelity",
         "A reasoning.summary detail is thinking text and a reasoning.encrypted detail rides as fidelity (encrypted_content, format, reasoning_id).",
         sse(chunk({"reasoning_details": [{"type": "reasoning.summary", "summary": "Plan", "index": 0}]}), chunk({"reasoning_details": [block]})),
         items=[ThinkingDelta("Plan"), ThinkingDelta("", fid), ThinkingDone("Plan", fid)])
    case(p, "mistral_typed_content_parts_carry_thinking_and_text",
         "Mistral's typed content parts are read: `thinking` parts (nesting text parts) are thinking, `text` parts are text.",
         sse(
             chunk({"content": [{"type": "thinking", "thinking": [{"type": "text", "text": "Okay"}]}]}),
             chunk({"content": [{"type": "thinking", "thinking": [{"type": "text", "text": ", so"}]}]}),
             chunk({"content": [{"type": "text", "text": "Look both ways."}]}),
             chunk({}, finish="stop"),
         ),
         thinking="Okay, so", text="Look both ways.")
    case(p, "a_typed_thinking_part_may_hold_a_plain_string",
         "A typed `thinking` content part whose `thinking` is a plain string is thinking text too.",
         sse(chunk({"content": [{"type": "thinking", "thinking": "plain"}]}), chunk({"content": [{"type": "text", "text": "ok"}]}), chunk({}, finish="stop")),
         thinking="plain", text="ok")
    case(p, "text_thinking_text_are_three_items_in_arrival_order",
         "Groups follow arrival order: text, then reasoning, then text again are three items.",
         sse(chunk({"content": "a"}), chunk({"reasoning_content": "r"}), chunk({"content": "b"}, finish="stop")),
         shape=["text.delta", "text.done", "thinking.delta", "thinking.done", "text.delta", "text.done", "stop"])
    case(p, "thinking_then_text_are_two_groups_in_arrival_order",
         "Within one chunk reasoning is read before text: a thinking group, then a text group.",
         sse(chunk({"reasoning_content": "r", "content": "t"})),
         shape=["thinking.delta", "thinking.done", "text.delta", "text.done", "stop"])

    # --- tool calls
    case(p, "a_tool_call_streams_name_and_id_first_then_fragments",
         "A tool call's first delta carries its name and id, later deltas only argument fragments, and its done the parsed arguments; finish_reason tool_calls is tool_call.",
         sse(tools(call(0, "call_1", "get_weather", "")), tools(call(0, arguments='{"city":')), tools(call(0, arguments='"Paris"}')), chunk({}, finish="tool_calls")),
         items=[ToolCallDelta("get_weather", "", "call_1"), ToolCallDelta("", '{"city":', ""), ToolCallDelta("", '"Paris"}', ""),
                ToolCallDone("get_weather", {"city": "Paris"}, "call_1")],
         finish_reason="tool_call", native="tool_calls")
    case(p, "parallel_calls_are_routed_by_index",
         "Tool-call fragments are routed to their call by `index`.",
         sse(tools(call(0, "call_a", "a", "")), tools(call(0, arguments='{"x": 1}')), tools(call(1, "call_b", "b", "")), tools(call(1, arguments='{"y": 2}')), chunk({}, finish="tool_calls")),
         calls=[("a", "call_a", {"x": 1}), ("b", "call_b", {"y": 2})])
    case(p, "interleaved_parallel_calls_wait_for_their_turn",
         "Fragments of a second call wait while the open call's arguments are not yet a complete JSON object, then follow it: calls never interleave and nothing is lost.",
         sse(tools(call(0, "call_a", "a", ""), call(1, "call_b", "b", "")), tools(call(0, arguments='{"x": ')), tools(call(1, arguments='{"y": 2}')), tools(call(0, arguments="1}")), chunk({}, finish="tool_calls")),
         calls=[("a", "call_a", {"x": 1}), ("b", "call_b", {"y": 2})], anomalies={})
    case(p, "calls_without_index_are_routed_by_id",
         "Tool-call fragments without `index` are routed by `id`.",
         sse(tools(call(None, "gSIM", "weather", '{"location": ')), tools(call(None, "gSIM", None, '"SF"}')), chunk({}, finish="tool_calls")),
         calls=[("weather", "gSIM", {"location": "SF"})])
    case(p, "calls_with_distinct_ids_and_no_index_are_distinct_calls",
         "Fragments without `index`, each with a new `id`, are each a new call.",
         sse(*[chunk({"tool_calls": [{"id": f"c{i}", "function": {"name": "f", "arguments": "{}"}}]}) for i in range(3)], chunk({}, finish="tool_calls")),
         calls=[("f", "c0", {}), ("f", "c1", {}), ("f", "c2", {})])
    case(p, "calls_with_neither_index_nor_id_are_routed_by_position_in_the_frame",
         "Fragments with neither `index` nor `id` are routed by their position in the chunk's tool_calls list.",
         sse(tools(call(name="a", id="c1", arguments=""), call(name="b", id="c2", arguments="")), tools(call(arguments="{}"), call(arguments='{"k": 1}')), chunk({}, finish="tool_calls")),
         calls=[("a", "c1", {}), ("b", "c2", {"k": 1})])
    case(p, "an_index_reused_with_another_id_starts_a_new_call",
         "A fragment at a known `index` with a different `id` starts a new call.",
         sse(tools(call(0, "c1", "a", "{}")), tools(call(0, "c2", "b", "{}")), chunk({}, finish="tool_calls")),
         calls=[("a", "c1", {}), ("b", "c2", {})])
    case(p, "an_empty_id_and_a_repeated_name_continue_the_call",
         "A fragment with an empty id and the same name continues the call; the name is never doubled.",
         sse(tools(call(0, "c1", "lookup", '{"q":')), tools(call(0, "", "lookup", '"x"}')), chunk({}, finish="tool_calls")),
         calls=[("lookup", "c1", {"q": "x"})],
         items=[ToolCallDelta("lookup", '{"q":', "c1"), ToolCallDelta("", '"x"}', ""), ToolCallDone("lookup", {"q": "x"}, "c1")])
    case(p, "a_late_name_delays_the_first_delta_until_it_is_known",
         "Arguments that arrive before the call's name wait and go out with the name as the first delta.",
         sse(tools(call(0, "c1", None, '{"a"')), tools(call(0, None, "late", ": 1}")), chunk({}, finish="tool_calls")),
         items_head=[ToolCallDelta("late", '{"a": 1}', "c1")], calls=[("late", "c1", {"a": 1})])
    case(p, "a_missing_id_is_made_up_from_the_block_number",
         "A call without an id gets `call_<stream_id>_<block>`, text being block 0 and the k-th call (from 0) block k + 1.",
         sse(tools(call(0, None, "f", '{"a": 1}')), tools(call(1, None, "g", "{}")), chunk({}, finish="tool_calls")),
         options={"stream_id": "abc"},
         calls=[("f", "call_abc_1", {"a": 1}), ("g", "call_abc_2", {})])
    case(p, "arguments_given_as_an_object_are_taken_whole",
         "Arguments sent as a JSON object instead of a string are taken whole.",
         sse(tools(call(0, "c1", "f", {"city": "Paris", "days": 3})), chunk({}, finish="tool_calls")),
         calls=[("f", "c1", {"city": "Paris", "days": 3})])
    case(p, "empty_arguments_are_an_empty_object",
         "A call whose arguments are empty has the arguments {}.",
         sse(tools(call(0, "c1", "now", "")), chunk({}, finish="tool_calls")),
         calls=[("now", "c1", {})])
    case(p, "invalid_arguments_fail_in_strict_mode_where_the_done_would_go",
         "In strict mode, arguments that are not a JSON object end the stream failed (tool_call_argument_parse_error) where the done would go, keeping the text.",
         sse(chunk({"content": "hi"}), tools(call(0, "c1", "f", '{"a": ')), chunk({}, finish="tool_calls")),
         end="failed", error_type="tool_call_argument_parse_error", text="hi", shape=["text.delta", "text.done", "tool_call.delta"])
    case(p, "invalid_arguments_become_an_empty_object_with_the_raw_text_when_lenient",
         "With strict_arguments false, arguments that are not a JSON object become {} with the raw text under fidelity raw_arguments.",
         sse(tools(call(0, "c1", "f", "[1, 2]")), chunk({}, finish="tool_calls")),
         options={"strict_arguments": False},
         end="complete", items=[ToolCallDelta("f", "[1, 2]", "c1"), ToolCallDone("f", {}, "c1", {"raw_arguments": "[1, 2]"})])
    case(p, "text_after_a_tool_call_closes_the_call_first",
         "Text arriving after a tool call closes the call's group before the text group opens.",
         sse(tools(call(0, "c1", "f", "{}")), chunk({"content": "done"}), chunk({}, finish="tool_calls")),
         shape=["tool_call.delta", "tool_call.done", "text.delta", "text.done", "stop"])
    case(p, "arguments_after_the_call_closed_are_noted_not_sent",
         "Fragments for a call whose group already closed are not sent; they are noted as the anomaly late_arguments.",
         sse(tools(call(0, "c1", "f", "{}")), chunk({"content": "x"}), tools(call(0, arguments='{"more": 1}')), chunk({}, finish="tool_calls")),
         calls=[("f", "c1", {})], text="x", anomalies={"late_arguments": 1})
    case(p, "a_call_that_never_gets_a_name_is_dropped",
         "A tool call that never got a name is never offered: it is dropped with the anomaly unnamed_tool_call.",
         sse(tools(call(0, "c1", None, '{"a": 1}')), chunk({"content": "x"}), chunk({}, finish="stop")),
         calls=[], text="x", anomalies={"unnamed_tool_call": 1}, end="complete")
    case(p, "a_call_waiting_at_the_end_follows_the_open_call",
         "A call still waiting behind an open call when the stream completes is offered after it, in order (lenient mode: the open call's unfinished arguments become {}).",
         sse(tools(call(0, "a", "f", '{"x": ')), tools(call(1, "b", "g", "{}")), chunk({}, finish="tool_calls")),
         options={"strict_arguments": False},
         calls=[("f", "a", {}), ("g", "b", {})], end="complete")
    case(p, "a_call_waiting_at_the_end_behind_broken_arguments_fails_in_strict_mode",
         "In strict mode the open call's unfinished arguments fail the stream when it completes, and the call waiting behind it is never offered.",
         sse(tools(call(0, "a", "f", '{"x": ')), tools(call(1, "b", "g", "{}")), chunk({}, finish="tool_calls")),
         end="failed", error_type="tool_call_argument_parse_error", calls=[])

    # --- finish
    case(p, "empty_and_null_finish_reasons_never_erase_one_recorded",
         "An empty or null finish_reason after a real one changes nothing: the recorded one stays and the stream is complete without [DONE].",
         sse(chunk({"content": "a"}, finish="length"), chunk({}, finish=""), {"choices": [{"delta": {}, "finish_reason": None}]}, done=False),
         end="complete", finish_reason="length", native="length")
    for native, mapped in [("stop", "stop"), ("length", "length"), ("tool_calls", "tool_call"), ("function_call", "tool_call"), ("content_filter", "unknown"), ("sensitive", "unknown")]:
        case(p, f"finish_reason_{native}_is_{mapped}",
             f"finish_reason {native} is normalized to {mapped}; the native value is kept.",
             sse(chunk({"content": "a"}, finish=native)),
             finish_reason=mapped, native=native, end="complete")
    case(p, "a_plain_stop_on_a_turn_that_called_tools_stays_stop",
         "finish_reason stop on a turn that made tool calls stays stop: the reason the wire names is kept, the calls stay in the message.",
         sse(tools(call(0, "c1", "f", "{}")), chunk({}, finish="stop")),
         finish_reason="stop", native="stop")
    case(p, "done_without_finish_reason_is_complete_with_stop",
         "[DONE] without any finish_reason makes the stream complete with finish reason stop.",
         sse(chunk({"content": "a"})),
         end="complete", finish_reason="stop", native=None)
    case(p, "done_without_finish_reason_after_tool_calls_is_tool_call",
         "[DONE] without any finish_reason after tool calls makes the stream complete with finish reason tool_call.",
         sse(tools(call(0, "c1", "f", "{}"))),
         end="complete", finish_reason="tool_call")
    case(p, "neither_finish_reason_nor_done_is_truncated_and_keeps_the_text",
         "A stream with neither a finish_reason nor [DONE] is truncated: thinking and text are kept and closed, a tool call cut short is not offered and stays open.",
         sse(chunk({"reasoning_content": "hmm"}), chunk({"content": "par"}), tools(call(0, "c1", "f", '{"a": 1')), done=False),
         end="truncated", thinking="hmm", text="par", calls=[], finish_reason=None,
         shape=["thinking.delta", "thinking.done", "text.delta", "text.done", "tool_call.delta"])

    # --- usage
    usage = {"prompt_tokens": 100, "completion_tokens": 50, "total_tokens": 150, "prompt_tokens_details": {"cached_tokens": 30}, "completion_tokens_details": {"reasoning_tokens": 20}}
    case(p, "usage_follows_mmsp_meaning",
         "Usage in MMSP meaning: prompt excludes cache reads, response excludes reasoning (total = prompt + completion: the reasoning is inside completion_tokens, as OpenAI counts); the stop event carries it.",
         sse(chunk({"content": "a"}, finish="stop"), {"choices": [], "usage": usage}),
         usage=Usage(cached_tokens=30, prompt_tokens=70, thoughts_tokens=20, response_tokens=30))
    case(p, "usage_overwrites_and_a_zero_never_erases_a_count",
         "A later usage overwrites an earlier one, but a zero never erases a count.",
         sse(chunk({"content": "a"}, usage={"prompt_tokens": 5, "completion_tokens": 1}), chunk({}, finish="stop", usage={"prompt_tokens": 0, "completion_tokens": 9})),
         usage=Usage(None, 5, None, 9))
    case(p, "groq_usage_rides_in_x_groq",
         "Groq's usage inside `x_groq` is read.",
         sse(chunk({}, finish="stop", x_groq={"id": "req", "usage": {"prompt_tokens": 7, "completion_tokens": 3}})),
         usage=Usage(None, 7, None, 3))
    case(p, "the_stop_event_always_carries_a_usage_object",
         "With no usage reported, the stop event still carries a usage object, all counts null.",
         sse(chunk({"content": "a"})),
         usage=Usage(None, None, None, None), end="complete")
    case(p, "usage_that_arrived_is_kept_when_truncated",
         "Usage that arrived is in the outcome of a truncated stream too.",
         sse(chunk({"content": "a"}), {"choices": [], "usage": {"prompt_tokens": 1, "completion_tokens": 1}}, done=False),
         end="truncated", usage=Usage(None, 1, None, 1))
    case(p, "a_completion_count_smaller_than_the_reasoning_is_the_response",
         "A completion_tokens smaller than reasoning_tokens (a gateway that counts them apart) cannot hold the reasoning: it is the response count as given, with no total_tokens needed to tell and no anomaly.",
         sse(chunk({"content": "a"}, finish="stop"), {"choices": [], "usage": {"prompt_tokens": 10, "completion_tokens": 5, "completion_tokens_details": {"reasoning_tokens": 8}}}),
         usage=Usage(None, 10, 8, 5), anomalies={})
    case(p, "the_total_tells_that_reasoning_is_outside_completion_tokens",
         "xAI and some gateways count reasoning apart: total = prompt + completion + reasoning says so, and the response count is completion_tokens as given, even when it is larger than the reasoning.",
         sse(chunk({"content": "a"}, finish="stop"), {"choices": [], "usage": {"prompt_tokens": 288, "completion_tokens": 327, "total_tokens": 928, "completion_tokens_details": {"reasoning_tokens": 313}}}),
         usage=Usage(None, 288, 313, 327), anomalies={})
    case(p, "the_total_tells_that_reasoning_is_inside_completion_tokens",
         "OpenAI counts reasoning inside completion_tokens: total = prompt + completion says so, and the response count is completion - reasoning.",
         sse(chunk({"content": "a"}, finish="stop"), {"choices": [], "usage": {"prompt_tokens": 288, "completion_tokens": 340, "total_tokens": 628, "completion_tokens_details": {"reasoning_tokens": 313}}}),
         usage=Usage(None, 288, 313, 27), anomalies={})

    # --- errors
    errors: list[tuple[str, dict[str, Any], tuple[str, str | None, int | None]]] = [
        ("an_error_object", {"error": {"message": "Token limit reached", "code": 400}}, ("Token limit reached", None, 400)),
        ("an_error_string", {"error": "overloaded"}, ("overloaded", None, None)),
        ("an_object_error_body", {"object": "error", "message": "bad request", "type": "BadRequestError", "code": 400}, ("bad request", "BadRequestError", 400)),
    ]
    for slug, frame, error in errors:
        case(p, f"{slug}_inside_the_stream_fails_it_and_keeps_the_text",
             "An error inside the stream (an `error` object or string, or an `\"object\": \"error\"` body) ends it failed with the provider's message, type and code; text before it is kept, nothing after it is read.",
             sse(chunk({"content": "partial"}), frame, chunk({"content": " ignored"})),
             end="failed", error=error, text="partial")
    case(p, "an_event_error_frame_fails_the_stream",
         "A frame named `event: error` ends the stream failed with its message.",
         b'data: {"choices":[{"delta":{"content":"a"}}]}\n\nevent: error\ndata: {"message":"upstream died"}\n\n',
         end="failed", error=("upstream died", None, None), text="a")
    case(p, "a_null_error_is_not_an_error",
         "A chunk with `\"error\": null` is an ordinary chunk.",
         sse(chunk({"content": "a"}, error=None)),
         end="complete", text="a")
    case(p, "an_error_after_the_finish_reason_still_fails",
         "An error after a finish_reason still ends the stream failed; the native finish reason is kept.",
         sse(chunk({"content": "a"}, finish="stop"), {"error": {"message": "late"}}),
         end="failed", error=("late", None, None), native="stop", finish_reason=None, text="a")
    case(p, "a_failing_gateway_may_still_report_usage",
         "Usage carried by an error frame is kept in the outcome.",
         sse(chunk({"content": "a"}), {"error": {"message": "quota"}, "usage": {"prompt_tokens": 3, "completion_tokens": 1}}),
         end="failed", usage=Usage(None, 3, None, 1), error=("quota", None, None))

    # --- annotations (OpenRouter / Perplexity url_citation)
    cite: dict[str, Any] = {"type": "url_citation", "url_citation": {"url": "https://example.com", "title": "Ex", "start_index": 0, "end_index": 4}}
    cite_b = {**cite, "url_citation": {**cite["url_citation"], "url": "https://b"}}
    body = sse(chunk({"content": "Text"}), chunk({"content": "", "annotations": [cite]}), chunk({"content": "", "annotations": [cite_b]}), chunk({}, finish="stop"))
    case(p, "annotations_ride_on_their_text_item",
         "url_citation annotations are gathered while their text is open and ride as fidelity annotations on one empty text delta and the text's done, in any split.",
         cut_after(body, (b"annotations", 4), (b"https://b", 3)),
         dones=[TextDone("Text", {"annotations": [cite, cite_b]})])
    case(p, "annotations_of_a_text_cut_short_are_kept",
         "Annotations gathered for a text that was cut short ride on its done.",
         sse(chunk({"content": "Text"}), chunk({"content": "", "annotations": [cite]}), done=False),
         end="truncated", dones=[TextDone("Text", {"annotations": [cite]})])
    case(p, "annotations_before_any_text_open_a_text_item",
         "Annotations that arrive while no text is open open a text item carrying them as fidelity.",
         sse(chunk({"content": "", "annotations": [cite]}), chunk({"content": "Hi"}), chunk({}, finish="stop")),
         dones=[TextDone("Hi", {"annotations": [cite]})])

    # --- nesting
    case(p, "a_frame_nested_deeper_than_254_levels_is_skipped",
         "A frame nested deeper than 254 levels is not read: it counts as a skipped frame with the anomaly frame_too_deep.",
         b'data: {"error":' + deep(255) + b"}\n\n",
         skipped=1, anomalies={"frame_too_deep": 1}, end="truncated")
    case(p, "a_frame_nested_deeper_than_the_json_reader_allows_is_skipped",
         "A frame nested deeper than JSON readers allow (over 1024 levels) is not JSON: it counts as a skipped frame.",
         b'data: {"error":' + deep(2000) + b"}\n\n",
         skipped=1, anomalies={}, end="truncated")
    case(p, "tool_arguments_nested_too_deep_in_a_frame_skip_the_frame",
         "A chunk whose tool-call arguments object nests deeper than 254 levels is skipped whole.",
         b'data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c","function":{"name":"f","arguments":{"a":' + deep(255) + b'}}}]},"finish_reason":"tool_calls"}]}\n\n',
         skipped=1, anomalies={"frame_too_deep": 1}, calls=[])
    args = '{"a":' + "[" * 300 + "]" * 300 + "}"
    case(p, "tool_arguments_text_nested_deeper_than_the_cap_is_not_an_object",
         "Argument text nested deeper than 254 levels is not an object the decoder carries: lenient mode gives {} with the raw text.",
         sse(chunk({"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "f", "arguments": args}}]}, finish="tool_calls")),
         options={"strict_arguments": False},
         dones=[ToolCallDone("f", {}, "c1", {"raw_arguments": args})])

    # --- honest ends
    usage_chunk = chunk(usage={"prompt_tokens": 10, "completion_tokens": 2, "total_tokens": 12})
    usage_chunk["choices"] = []
    full = sse(chunk({"content": "hi"}), chunk({}, finish="stop"), usage_chunk, done=False)
    cut = full[: len(full) - 30]
    case(p, "a_body_cut_inside_its_last_frame_is_truncated_even_after_a_finish_reason",
         "A body that stops inside a frame that does not parse is truncated, even after a finish_reason, with the anomaly cut_frame.",
         split_at(cut, len(cut) // 2),
         end="truncated", text="hi", anomalies={"cut_frame": 1})
    case(p, "a_last_frame_without_its_blank_line_that_parses_is_complete",
         "The same body whole but without its final blank line is complete: the last frame parses.",
         full.rstrip(b"\n"),
         end="complete", text="hi", usage=Usage(None, 10, None, 2))
    case(p, "an_event_name_and_its_data_in_different_pushes_stay_one_frame",
         "An `event:` line and its `data:` line stay one frame however the pushes split them, even inside the event name.",
         [b"event: er", b"ror\nda", b'ta: {"message":"overloaded"}\n\n'],
         end="failed", error=("overloaded", None, None))
    case(p, "an_event_name_without_data_is_forgotten_at_its_blank_line",
         "An `event:` line followed by a blank line and no data names nothing: the next frame is unnamed.",
         [b"event: error\n", b"\n" + sse(chunk({"content": "fine"}, finish="stop"))],
         end="complete", text="fine")

    # --- frame caps
    line = b": " + b"x" * 100 + b"\n\n"
    for slug, pieces in [("whole", [line]), ("in_two_pieces", [line[:50], line[50:]]), ("byte_by_byte", bytewise(line))]:
        case(p, f"the_line_cap_holds_for_a_line_{slug}",
             "A line longer than max_frame raises FrameTooLargeError whether it arrives whole or in pieces; the outcome is failed with error type frame_too_large.",
             pieces, options={"max_frame": 64},
             raises="FrameTooLargeError", end="failed", error_type="frame_too_large")
    first = sse(chunk({"content": "before"}), done=False)
    case(p, "after_frame_too_large_what_arrived_is_kept",
         "The push that hits the cap still delivers the events it completed before it; the outcome is failed (frame_too_large) and keeps the text, closed.",
         [first, sse(chunk({"content": " and"}), done=False) + b"data: " + b"x" * 300],
         options={"max_frame": 200},
         raises="FrameTooLargeError", end="failed", error_type="frame_too_large", text="before and",
         items=[TextDelta("before"), TextDelta(" and"), TextDone("before and")])


def sse_cases() -> None:
    """SSE framing, through the openai_chat decoder (its frames are easy to read back)."""
    p = CHAT
    crlf = HELLO.replace(b"\n", b"\r\n")
    cr = HELLO.replace(b"\n", b"\r")
    case(p, "sse_lf_line_endings", "Lines ended by \\n frame the stream.", HELLO, end="complete", text="Hello")
    case(p, "sse_crlf_line_endings", "Lines ended by \\r\\n frame the stream the same.", crlf, end="complete", text="Hello")
    case(p, "sse_lone_cr_line_endings",
         "Lines ended by a lone \\r frame the stream the same, also when a push ends on a \\r.",
         cut_after(cr, (b"\r\r", 1), (b"[DONE]\r", 7)),
         end="complete", text="Hello")
    case(p, "sse_a_cr_at_the_end_of_a_chunk_waits_for_its_lf",
         "A push that ends between \\r and \\n does not end the line twice: the \\r waits for the \\n.",
         cut_after(crlf, (b"\r\n", 1), (b"\r\n\r\n", 3), (b"[DONE]\r", 7)),
         end="complete", text="Hello", items=[TextDelta("Hel"), TextDelta("lo"), TextDone("Hello")])
    case(p, "sse_leading_bom_is_removed",
         "A UTF-8 byte-order mark at the start of the body is removed.",
         b"\xef\xbb\xbf" + HELLO, end="complete", text="Hello")
    case(p, "sse_every_leading_bom_is_stripped_however_the_pushes_split_them",
         "Every leading BOM is stripped, also when the pushes split inside them.",
         split_at(b"\xef\xbb\xbf\xef\xbb\xbf" + sse(chunk({"content": "x"}, finish="stop")), 1, 5),
         end="complete", text="x")
    case(p, "sse_a_bom_after_the_first_line_is_not_stripped",
         "A BOM after the first line is not stripped: that line is a field named \\ufeffdata, not data, and the body is not an event stream.",
         b": hello\n\xef\xbb\xbfdata: " + dumps(chunk({"content": "x"}, finish="stop")).encode() + b"\n\n",
         end="not_event_stream")
    case(p, "sse_comments_are_skipped_and_never_reach_the_json_parser",
         "Comment lines (`: keep-alive`, `: OPENROUTER PROCESSING`) are skipped and never counted as skipped frames.",
         b": keep-alive\n\n: OPENROUTER PROCESSING\n\n" + HELLO,
         end="complete", skipped=0, text="Hello")
    case(p, "sse_data_with_and_without_the_space",
         "`data:` is read with or without the space after the colon.",
         b'data:{"choices":[{"delta":{"content":"a"}}]}\n\ndata: {"choices":[{"delta":{"content":"b"}}]}\n\ndata:[DONE]\n\n',
         text="ab", end="complete")
    case(p, "sse_multi_line_data_is_joined_with_newlines",
         "Several data lines of one frame are joined with newlines into one payload.",
         b'data: {"choices":\ndata: [{"delta":{"content":"x"}}]}\n\ndata: [DONE]\n\n',
         text="x", skipped=0)
    case(p, "sse_events_missing_their_blank_line_become_one_frame_per_line",
         "Data lines that do not parse joined are read as one frame per line (gateways that drop the blank line between events).",
         b'data: {"choices":[{"delta":{"content":"a"}}]}\ndata: {"choices":[{"delta":{"content":"b"}}]}\n\ndata: [DONE]\n\n',
         text="ab", skipped=0)
    case(p, "sse_an_event_line_after_the_data_line_still_names_the_frame",
         "An `event:` line anywhere in a frame, even after its data line, names the frame.",
         b'data: {"message":"late name"}\nevent: error\n\n', end="failed", error=("late name", None, None))
    case(p, "sse_id_and_retry_are_ignored_and_unknown_fields_too",
         "`id:`, `retry:` and unknown fields are ignored.",
         b"id: 7\nretry: 1000\nfoo: bar\n" + HELLO, text="Hello", end="complete")
    case(p, "sse_non_sse_lines_before_the_first_data_line_are_forgotten",
         "Lines that are not SSE before the first SSE line are forgotten once the event stream starts.",
         b"hello there\n" + HELLO, text="Hello", end="complete", body=None)
    case(p, "sse_a_frame_that_does_not_parse_is_skipped_and_counted",
         "A frame that is not JSON is skipped and counted in skipped_frames.",
         sse(chunk({"content": "a"}), "{not json", chunk({"content": "b"})),
         end="complete", skipped=1, text="ab")
    case(p, "sse_json_that_is_not_an_object_is_ignored_without_counting",
         "A frame that is JSON but not an object is ignored and not counted.",
         sse("[1, 2]", "42", chunk({"content": "a"})),
         skipped=0, text="a")
    case(p, "sse_everything_after_done_is_ignored",
         "Nothing after [DONE] is read; frames after the end are counted as the anomaly frames_after_end.",
         HELLO + sse(chunk({"content": " again"}), done=False) + b"garbage\n",
         text="Hello", end="complete", anomalies={"frames_after_end": 1})
    case(p, "sse_the_last_frame_is_dispatched_at_eof_without_its_blank_line",
         "At end of input the last frame is dispatched without its blank line.",
         b'data: {"choices":[{"delta":{"content":"a"},"finish_reason":"stop"}]}',
         end="complete", text="a")
    case(p, "sse_invalid_utf8_is_read_with_replacement_characters",
         "Bytes that are not UTF-8 are read as U+FFFD.",
         b'data: {"choices":[{"delta":{"content":"a\xffb"}}]}\n\ndata: [DONE]\n\n',
         text="a\ufffdb")
    body = b"\xef\xbb\xbf: hi\r\n\r\n" + sse(chunk({"content": "d\u00e9j\u00e0 \u65e5\u672c \U0001f600"}), chunk({}, finish="stop")).replace(b"\n", b"\r\n")
    case(p, "sse_pushes_split_inside_utf8_characters",
         "Pushes that split inside a BOM, inside UTF-8 characters (2-, 3- and 4-byte) and between \\r and \\n decode as the whole body does.",
         cut_after(body, (b"\xbb", 0), (b"\xc3\xa9", 1), (b"\xe6\x97\xa5", 2), (b"\xf0\x9f\x98\x80", 1), (b"\xf0\x9f\x98\x80", 3), (b"\r\n\r\ndata: {", 1)),
         end="complete", text="d\u00e9j\u00e0 \u65e5\u672c \U0001f600")
    case(p, "sse_byte_by_byte_equals_whole",
         "A body fed one byte per push decodes as the whole body does.",
         bytewise(body), end="complete", text="d\u00e9j\u00e0 \u65e5\u672c \U0001f600")
    html = b"<!DOCTYPE html>\n<html><body>Bad gateway</body></html>\n"
    case(p, "sse_an_html_page_is_not_an_event_stream",
         "A body with no SSE line (an HTML page) is not_event_stream, with no events and the page as the body.",
         html, end="not_event_stream", body="<!DOCTYPE html>\n<html><body>Bad gateway</body></html>", shape=[])
    error_body = b'{"error": {"message": "stream not supported", "type": "invalid_request_error"}}'
    case(p, "sse_a_plain_json_error_body_fails_with_its_error",
         "A plain JSON error body (no SSE) is that error: failed, with the JSON kept as the body.",
         error_body, end="failed", error_type="invalid_request_error", body=error_body.decode())
    case(p, "sse_a_json_body_that_is_no_error_is_not_an_event_stream",
         "A JSON body that is no error and no event stream is not_event_stream, kept as the body.",
         b'{"id": "chatcmpl-1", "object": "chat.completion", "choices": []}', end="not_event_stream")
    case(p, "sse_an_empty_body_is_truncated",
         "An empty body is truncated.", b"", end="truncated", shape=[])
    case(p, "sse_a_body_of_comments_is_truncated",
         "A body of nothing but comments is truncated.", b": keep-alive\n\n: keep-alive\n\n", end="truncated")
    case(p, "sse_a_line_over_the_cap_raises_frame_too_large",
         "A line longer than max_frame raises FrameTooLargeError.",
         b"data: " + b"x" * 2000, options={"max_frame": 1000},
         raises="FrameTooLargeError", end="failed", error_type="frame_too_large", error_in="a line")
    case(p, "sse_a_frame_over_the_cap_raises_even_when_its_lines_are_short",
         "A frame whose data lines add up past max_frame raises FrameTooLargeError though each line is short.",
         b"data: xxxxxxxxxx\n" * 200, options={"max_frame": 1000},
         raises="FrameTooLargeError", end="failed", error_type="frame_too_large", error_in="a frame")


# =========================================================================================
# Anthropic Messages
# =========================================================================================


def aframe(obj: dict[str, Any], event: str | None = "", nl: str = "\n") -> str:
    """One SSE event; `event` defaults to the data's type, None leaves the line out."""
    name = obj["type"] if event == "" else event
    head = f"event: {name}{nl}" if name is not None else ""
    return f"{head}data: {dumps(obj)}{nl}{nl}"


def message_start(model: str = "claude-sonnet-4-5", input_tokens: int = 10, **usage: int) -> dict[str, Any]:
    return {
        "type": "message_start",
        "message": {
            "id": "msg_01", "type": "message", "role": "assistant", "model": model, "content": [],
            "stop_reason": None, "stop_sequence": None, "usage": {"input_tokens": input_tokens, "output_tokens": 1, **usage},
        },
    }


def start(index: int, block: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_start", "index": index, "content_block": block}


def delta(index: int, d: dict[str, Any]) -> dict[str, Any]:
    return {"type": "content_block_delta", "index": index, "delta": d}


def text_delta(index: int, text: str) -> dict[str, Any]:
    return delta(index, {"type": "text_delta", "text": text})


def json_delta(index: int, partial: str) -> dict[str, Any]:
    return delta(index, {"type": "input_json_delta", "partial_json": partial})


def stop(index: int) -> dict[str, Any]:
    return {"type": "content_block_stop", "index": index}


def message_delta(reason: str | None = "end_turn", **usage: int) -> dict[str, Any]:
    return {"type": "message_delta", "delta": {"stop_reason": reason, "stop_sequence": None}, "usage": usage or {"output_tokens": 5}}


PING = {"type": "ping"}
MESSAGE_STOP = {"type": "message_stop"}
TEXT = {"type": "text", "text": ""}
THINKING = {"type": "thinking", "thinking": "", "signature": ""}


def tool(index: int, name: str, call_id: str, given: dict[str, Any] | None = None) -> dict[str, Any]:
    return start(index, {"type": "tool_use", "id": call_id, "name": name, "input": given or {}})


def wire(*objs: dict[str, Any], nl: str = "\n", events: bool = True) -> bytes:
    return "".join(aframe(o, "" if events else None, nl) for o in objs).encode()


def simple(*blocks: dict[str, Any], reason: str | None = "end_turn") -> bytes:
    return wire(message_start(), *blocks, message_delta(reason), MESSAGE_STOP)


MINIMAL = (
    b"event: message_start\n"
    b'data: {"type":"message_start","message":{"model":"claude-sonnet-4-5-20250929","id":"msg_1","type":"message",'
    b'"role":"assistant","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":20,'
    b'"cache_creation_input_tokens":0,"cache_read_input_tokens":0,"output_tokens":1}}            }\n\n'
    b"event: content_block_start\n"
    b'data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}        }\n\n'
    b"event: ping\n"
    b'data: {"type": "ping"}\n\n'
    b"event: content_block_delta\n"
    b'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"Hello"}      }\n\n'
    b"event: content_block_delta\n"
    b'data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":", w\xc3\xb6rld"}}\n\n'
    b"event: content_block_stop\n"
    b'data: {"type":"content_block_stop","index":0        }\n\n'
    b"event: message_delta\n"
    b'data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},'
    b'"usage":{"output_tokens":5}       }\n\n'
    b"event: message_stop\n"
    b'data: {"type":"message_stop"    }\n\n'
)

RICH = [
    message_start(input_tokens=12, cache_read_input_tokens=3),
    start(0, THINKING),
    PING,
    delta(0, {"type": "thinking_delta", "thinking": "Hmm\u2026 \U0001f914"}),
    delta(0, {"type": "signature_delta", "signature": "c2ln"}),
    stop(0),
    start(1, TEXT),
    text_delta(1, "Gr\u00fc\u00dfe, "),
    text_delta(1, "\u4e16\u754c"),
    stop(1),
    start(2, {"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {}}),
    json_delta(2, '{"query": "wea'),
    json_delta(2, 'ther"}'),
    stop(2),
    start(3, {"type": "web_search_tool_result", "tool_use_id": "srvtoolu_1", "content": [{"type": "web_search_result", "url": "https://x.example", "title": "X"}]}),
    stop(3),
    start(4, TEXT),
    text_delta(4, "It rains."),
    stop(4),
    tool(5, "get_time", "toolu_t"),
    json_delta(5, '{"tz": "Europe/Berlin"}'),
    stop(5),
    message_delta("tool_use", output_tokens=77),
    MESSAGE_STOP,
]
RICH_DONES = [
    ThinkingDone("Hmm\u2026 \U0001f914", {"signature": "c2ln"}),
    TextDone("Gr\u00fc\u00dfe, \u4e16\u754c"),
    TextDone("It rains."),
    ToolCallDone("get_time", {"tz": "Europe/Berlin"}, "toolu_t"),
]
RICH_KEPT = [
    ("server_tool_use", "start", "srvtoolu_1"), ("server_tool_use", "done", "srvtoolu_1"),
    ("web_search_tool_result", "start", "srvtoolu_1"), ("web_search_tool_result", "done", "srvtoolu_1"),
]


def anthropic_cases() -> None:
    p = ANTHROPIC
    # --- text
    case(p, "text_block_becomes_one_text_group_then_stop",
         "A text block becomes one text group; message_delta's stop_reason end_turn is stop, usage and model come from message_start and message_delta; pings and padded JSON are read.",
         cut_after(MINIMAL, (b"w\xc3\xb6rld", 2), (b"event: ping", 8)),
         items=[TextDelta("Hello"), TextDelta(", w\u00f6rld"), TextDone("Hello, w\u00f6rld")], end="complete", finish_reason="stop", native="end_turn",
         model="claude-sonnet-4-5-20250929", usage=Usage(cached_tokens=0, prompt_tokens=20, thoughts_tokens=None, response_tokens=5), anomalies={})
    case(p, "each_text_block_is_its_own_item",
         "Each text block is its own text item.",
         simple(start(0, TEXT), text_delta(0, "a"), stop(0), start(1, TEXT), text_delta(1, "b"), stop(1)),
         items=[TextDelta("a"), TextDone("a"), TextDelta("b"), TextDone("b")], dones=[TextDone("a"), TextDone("b")])
    case(p, "text_on_the_block_start_is_text",
         "Text carried by content_block_start is the item's first text.",
         simple(start(0, {"type": "text", "text": "Hi"}), text_delta(0, "!"), stop(0)),
         dones=[TextDone("Hi!")])
    case(p, "an_empty_text_block_emits_nothing",
         "A text block with no text emits no events.",
         simple(start(0, TEXT), stop(0)),
         items=[], end="complete")
    c1 = {"type": "web_search_result_location", "cited_text": "x", "url": "https://a.example", "title": "A"}
    c2 = {"type": "web_search_result_location", "cited_text": "y", "url": "https://b.example", "title": "B"}
    case(p, "citations_ride_on_the_text_item_as_fidelity",
         "citations_delta citations are gathered and, at the block's stop, ride as fidelity citations on one empty text delta and the done.",
         simple(start(0, {"type": "text", "text": "", "citations": []}), delta(0, {"type": "citations_delta", "citation": c1}), text_delta(0, "cited"),
                delta(0, {"type": "citations_delta", "citation": c2}), stop(0)),
         items=[TextDelta("cited"), TextDelta("", {"citations": [c1, c2]}), TextDone("cited", {"citations": [c1, c2]})])
    case(p, "citations_of_a_text_block_cut_short_are_kept",
         "A text block cut short keeps the citations that arrived on its done.",
         wire(message_start(), start(0, TEXT), delta(0, {"type": "citations_delta", "citation": c1}), text_delta(0, "cited")),
         end="truncated", dones=[TextDone("cited", {"citations": [c1]})])

    # --- thinking
    sig = {"signature": "EqQBCg=="}
    case(p, "signature_deltas_join_into_one_fidelity_on_one_delta_and_the_done",
         "thinking_delta is thinking; signature_delta parts are joined and ride as fidelity signature on one empty thinking delta and the done.",
         simple(start(0, THINKING), delta(0, {"type": "thinking_delta", "thinking": "Let me "}), delta(0, {"type": "thinking_delta", "thinking": "think."}),
                delta(0, {"type": "signature_delta", "signature": "EqQB"}), delta(0, {"type": "signature_delta", "signature": "Cg=="}), stop(0),
                start(1, TEXT), text_delta(1, "Done."), stop(1)),
         items=[ThinkingDelta("Let me "), ThinkingDelta("think."), ThinkingDelta("", sig), ThinkingDone("Let me think.", sig), TextDelta("Done."), TextDone("Done.")])
    case(p, "a_thinking_block_whose_only_delta_is_a_signature",
         "A thinking block whose only delta is a signature is a thinking item with empty text carrying it.",
         simple(start(0, THINKING), delta(0, {"type": "signature_delta", "signature": "sig1"}), stop(0)),
         items=[ThinkingDelta("", {"signature": "sig1"}), ThinkingDone("", {"signature": "sig1"})])
    case(p, "thinking_and_signature_on_the_block_start_are_kept",
         "Thinking text and a signature carried by content_block_start are the item's first text and part of its signature.",
         simple(start(0, {"type": "thinking", "thinking": "pre ", "signature": "S0"}), delta(0, {"type": "thinking_delta", "thinking": "post"}),
                delta(0, {"type": "signature_delta", "signature": "S1"}), stop(0)),
         dones=[ThinkingDone("pre post", {"signature": "S0S1"})])
    fid = {"signature": "EmwKAhgBEgy3va"}
    case(p, "redacted_thinking_follows_the_mmsp_convention",
         "A redacted_thinking block is a thinking item with text _REDACTED_THINKING and its data as fidelity signature.",
         simple(start(0, {"type": "redacted_thinking", "data": "EmwKAhgBEgy3va"}), stop(0), start(1, TEXT), text_delta(1, "ok"), stop(1)),
         items=[ThinkingDelta("_REDACTED_THINKING", fid), ThinkingDone("_REDACTED_THINKING", fid), TextDelta("ok"), TextDone("ok")])
    case(p, "a_delta_of_another_kind_is_kept_on_the_side_channel",
         "A delta whose type does not belong to the open block's kind is kept as an info side event with the anomaly foreign_delta; the block's item is unchanged.",
         simple(start(0, TEXT), text_delta(0, "a"), delta(0, {"type": "thinking_delta", "thinking": "?"}), text_delta(0, "b"), stop(0)),
         options={"side_events": True},
         dones=[TextDone("ab")], anomalies={"foreign_delta": 1}, sides=[("thinking_delta", "info", None)])

    # --- tool use
    case(p, "tool_use_fragments_are_the_arguments_and_the_first_delta_carries_name_and_id",
         "A tool_use block is a tool call: its first delta carries name and id, input_json_delta fragments are its arguments; stop_reason tool_use is tool_call.",
         simple(tool(0, "get_weather", "toolu_01"), json_delta(0, ""), json_delta(0, '{"city": "Par'), json_delta(0, 'is"}'), stop(0), reason="tool_use"),
         items=[ToolCallDelta("get_weather", "", "toolu_01"), ToolCallDelta("", '{"city": "Par', ""), ToolCallDelta("", 'is"}', ""),
                ToolCallDone("get_weather", {"city": "Paris"}, "toolu_01")],
         finish_reason="tool_call")
    for slug, fragments in [("no_deltas", []), ("one_empty_delta", [""])]:
        case(p, f"a_tool_without_parameters_with_{slug}_has_empty_object_arguments",
             "A tool_use block with no input fragments (none, or one empty) has the arguments {}.",
             simple(tool(0, "now", "toolu_9"), *(json_delta(0, f) for f in fragments), stop(0), reason="tool_use"),
             dones=[ToolCallDone("now", {}, "toolu_9")])
    case(p, "non_empty_input_on_the_start_is_the_whole_arguments",
         "A non-empty `input` on the tool_use start is the whole arguments, sent on the first delta.",
         simple(tool(0, "add", "toolu_2", {"a": 1, "b": 2}), stop(0), reason="tool_use"),
         items=[ToolCallDelta("add", '{"a":1,"b":2}', "toolu_2"), ToolCallDone("add", {"a": 1, "b": 2}, "toolu_2")])
    case(p, "input_fragments_after_a_whole_input_are_noted_not_sent",
         "input_json_delta fragments for a tool_use whose start carried its whole input are not sent; they are noted as late_arguments.",
         simple(tool(0, "add", "toolu_2", {"a": 1}), json_delta(0, '{"a": 2}'), stop(0), reason="tool_use"),
         dones=[ToolCallDone("add", {"a": 1}, "toolu_2")], anomalies={"late_arguments": 1})
    case(p, "two_tool_calls_stay_two_calls",
         "Two tool_use blocks with the same name stay two calls.",
         simple(tool(0, "f", "toolu_a"), json_delta(0, '{"x": 1}'), stop(0), tool(1, "f", "toolu_b"), json_delta(1, '{"x": 2}'), stop(1), reason="tool_use"),
         dones=[ToolCallDone("f", {"x": 1}, "toolu_a"), ToolCallDone("f", {"x": 2}, "toolu_b")])
    case(p, "thinking_then_text_then_tool",
         "Thinking, text and tool blocks become three groups in order, and the stop says tool_call.",
         simple(start(0, THINKING), delta(0, {"type": "thinking_delta", "thinking": "need weather"}), delta(0, {"type": "signature_delta", "signature": "S"}), stop(0),
                start(1, TEXT), text_delta(1, "Checking."), stop(1), tool(2, "get_weather", "toolu_w"), json_delta(2, '{"city":"Oslo"}'), stop(2), reason="tool_use"),
         dones=[ThinkingDone("need weather", {"signature": "S"}), TextDone("Checking."), ToolCallDone("get_weather", {"city": "Oslo"}, "toolu_w")],
         shape=["thinking.delta", "thinking.delta", "thinking.done", "text.delta", "text.done", "tool_call.delta", "tool_call.delta", "tool_call.done", "stop"],
         finish_reason="tool_call")
    case(p, "tool_arguments_that_are_not_json_fail_the_stream",
         "In strict mode, tool_use input that is not a JSON object ends the stream failed (tool_call_argument_parse_error).",
         simple(tool(0, "f", "toolu_x"), json_delta(0, '{"x": '), stop(0), reason="tool_use"),
         end="failed", error_type="tool_call_argument_parse_error")
    case(p, "a_tool_use_without_a_name_is_kept_on_the_side_channel",
         "A tool_use start without a name is never a tool call: the block goes to the side channel with the anomaly unnamed_tool_call.",
         simple(start(0, {"type": "tool_use", "id": "toolu_n", "input": {}}), json_delta(0, '{"a": 1}'), stop(0), reason="tool_use"),
         options={"side_events": True},
         calls=[], anomalies={"unnamed_tool_call": 1}, sides=[("tool_use", "start", "toolu_n"), ("tool_use", "delta", "toolu_n"), ("tool_use", "done", "toolu_n")])
    case(p, "made_up_ids_use_the_block_index",
         "A tool_use without an id gets `call_<stream_id>_<index>`.",
         b"".join(b"data: " + dumps(o).encode() + b"\n\n" for o in [
             {"type": "message_start", "message": {}},
             {"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "name": "f", "input": {}}},
             {"type": "content_block_stop", "index": 2},
             {"type": "message_delta", "delta": {"stop_reason": "tool_use"}},
         ]),
         options={"stream_id": "abc"},
         calls=[("f", "call_abc_2", {})])

    # --- ends
    case(p, "a_stream_cut_mid_tool_input_is_truncated_and_the_call_is_not_offered",
         "A stream cut inside a tool call's input is truncated: the text is kept, the call is not offered and its group stays open.",
         wire(message_start(), start(0, TEXT), text_delta(0, "Let me look."), stop(0), tool(1, "search", "toolu_s"), json_delta(1, '{"q": "ca')),
         end="truncated", finish_reason=None, dones=[TextDone("Let me look.")],
         shape=["text.delta", "text.done", "tool_call.delta", "tool_call.delta"])
    case(p, "an_error_after_text_fails_and_keeps_the_text",
         "An error event ends the stream failed with the provider's error type and message; the text before it is kept and closed.",
         wire(message_start(), start(0, TEXT), text_delta(0, "Partial ans")) + b'event: error\ndata: {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}}\n\n',
         end="failed", error=("Overloaded", "overloaded_error", None), dones=[TextDone("Partial ans")])
    case(p, "an_error_given_as_a_string_has_the_type_error",
         "An error event whose `error` is a string fails the stream with that message and the type error.",
         wire(message_start(), {"type": "error", "error": "boom"}),
         end="failed", error=("boom", "error", None))
    case(p, "nothing_is_read_after_an_error",
         "Nothing after an error event is read.",
         wire(message_start(), {"type": "error", "error": {"type": "api_error", "message": "boom"}}, start(0, TEXT), text_delta(0, "late")),
         end="failed", dones=[], anomalies={"frames_after_end": 2})
    case(p, "a_stop_reason_without_message_stop_is_complete",
         "A stop reason without message_stop makes the stream complete.",
         wire(message_start(), start(0, TEXT), text_delta(0, "x"), stop(0), message_delta("max_tokens")),
         end="complete", finish_reason="length")
    case(p, "message_stop_without_a_stop_reason_is_complete_with_unknown",
         "message_stop without a stop reason makes the stream complete with finish reason unknown.",
         wire(message_start(), start(0, TEXT), text_delta(0, "x"), stop(0), message_delta(None), MESSAGE_STOP),
         end="complete", finish_reason="unknown", native=None)
    case(p, "no_stop_reason_and_no_message_stop_is_truncated",
         "Neither a stop reason nor message_stop: truncated, the text kept.",
         wire(message_start(), start(0, TEXT), text_delta(0, "x"), stop(0), message_delta(None)),
         end="truncated", dones=[TextDone("x")])
    case(p, "a_done_sentinel_after_message_stop_is_fine",
         "A gateway's [DONE] after message_stop changes nothing.",
         simple(start(0, TEXT), text_delta(0, "x"), stop(0)) + b"data: [DONE]\n\n",
         end="complete", anomalies={})
    case(p, "a_done_sentinel_before_the_message_ends_is_truncated",
         "A [DONE] before any stop reason or message_stop ends the stream truncated; nothing after it is read.",
         wire(message_start(), start(0, TEXT), text_delta(0, "x")) + b"data: [DONE]\n\n" + wire(stop(0), message_delta("end_turn"), MESSAGE_STOP),
         end="truncated", dones=[TextDone("x")], anomalies={"frames_after_end": 3})
    case(p, "a_done_sentinel_before_any_message_is_truncated",
         "A ping and a [DONE] with no message at all is truncated.",
         wire(PING) + b"data: [DONE]\n\n", end="truncated", anomalies={})
    for native, mapped in [("end_turn", "stop"), ("stop_sequence", "stop"), ("max_tokens", "length"), ("tool_use", "tool_call"), ("pause_turn", "unknown"),
                           ("refusal", "unknown"), ("model_context_window_exceeded", "unknown"), ("something_new", "unknown")]:
        case(p, f"stop_reason_{native}_is_{mapped}",
             f"stop_reason {native} is normalized to {mapped}; the native value is kept.",
             simple(start(0, TEXT), text_delta(0, "x"), stop(0), reason=native),
             finish_reason=mapped, native=native, end="complete")

    # --- lifecycle: lenient recovery, strict contradictions
    case(p, "a_stream_of_only_text_deltas_keeps_its_text",
         "Text deltas with no message_start and no block start keep their text (implied_message_start, implied_block_start); with no stop it is truncated.",
         wire(text_delta(0, "Hel"), text_delta(0, "lo")),
         end="truncated", dones=[TextDone("Hello")], anomalies={"implied_message_start": 1, "implied_block_start": 1})
    case(p, "no_message_start_is_implied_by_the_first_frame",
         "A stream that starts with a content_block_start implies the message_start (anomaly implied_message_start).",
         wire(start(0, TEXT), text_delta(0, "x"), stop(0), message_delta("end_turn"), MESSAGE_STOP),
         end="complete", finish_reason="stop", dones=[TextDone("x")], anomalies={"implied_message_start": 1})
    case(p, "message_delta_as_the_first_frame_implies_the_message",
         "A message_delta as the first frame implies the message.",
         wire(message_delta("end_turn"), MESSAGE_STOP),
         end="complete", native="end_turn", anomalies={"implied_message_start": 1})
    for slug, first, item in [
        ("text_delta", text_delta(0, "x"), TextDone("x")),
        ("thinking_delta", delta(0, {"type": "thinking_delta", "thinking": "hmm"}), ThinkingDone("hmm")),
        ("signature_delta", delta(0, {"type": "signature_delta", "signature": "c2ln"}), ThinkingDone("", {"signature": "c2ln"})),
    ]:
        case(p, f"a_{slug}_for_a_block_never_started_opens_it_by_its_type",
             "A delta for a block that never started opens it, its kind taken from the delta's type (anomaly implied_block_start).",
             wire(message_start(), first, stop(0), message_delta("end_turn"), MESSAGE_STOP),
             end="complete", dones=[item], anomalies={"implied_block_start": 1})
    case(p, "tool_input_before_its_start_is_named_by_the_late_start",
         "input_json_delta before its tool_use start waits; the late start names the call and the waiting input goes out with it.",
         wire(message_start(), json_delta(0, '{"city":'), tool(0, "weather", "toolu_1"), json_delta(0, ' "Oslo"}'), stop(0), message_delta("tool_use"), MESSAGE_STOP),
         calls=[("weather", "toolu_1", {"city": "Oslo"})], anomalies={"implied_block_start": 1},
         items=[ToolCallDelta("weather", '{"city":', "toolu_1"), ToolCallDelta("", ' "Oslo"}', ""), ToolCallDone("weather", {"city": "Oslo"}, "toolu_1")])
    case(p, "tool_input_never_named_stays_on_the_side_channel",
         "Tool input whose block is never named is never a tool call: it is kept as a side event with the anomaly unnamed_tool_call.",
         wire(message_start(), json_delta(0, '{"a": 1}'), stop(0), message_delta("tool_use"), MESSAGE_STOP),
         calls=[], kept_sides=[("tool_use", "done", None)], anomalies={"implied_block_start": 1, "unnamed_tool_call": 1})
    case(p, "a_start_while_a_block_is_open_closes_it_first",
         "A content_block_start while a block is open closes the open block first (anomaly block_left_open).",
         wire(message_start(), start(0, TEXT), text_delta(0, "a"), start(1, TEXT), text_delta(1, "b"), stop(1), message_delta("end_turn"), MESSAGE_STOP),
         dones=[TextDone("a"), TextDone("b")], anomalies={"block_left_open": 1})
    case(p, "a_delta_for_the_next_block_closes_the_open_one",
         "A delta for a higher block index closes the open block and opens the new one.",
         wire(message_start(), start(0, TEXT), text_delta(0, "a"), text_delta(1, "b"), stop(1), message_delta("end_turn"), MESSAGE_STOP),
         dones=[TextDone("a"), TextDone("b")], anomalies={"block_left_open": 1, "implied_block_start": 1})
    case(p, "a_delta_for_a_later_block_in_pieces_closes_the_open_one",
         "A delta for a higher block index closes the open block, in any split; with no stop the stream is truncated.",
         bytewise(wire(message_start(), start(0, TEXT), text_delta(3, "x"))),
         end="truncated", dones=[TextDone("x")], anomalies={"block_left_open": 1, "implied_block_start": 1})
    for slug, end_frame in [("message_delta", message_delta("end_turn")), ("message_stop", MESSAGE_STOP)]:
        case(p, f"{slug}_closes_an_open_block",
             "The message ending (message_delta with a stop reason, or message_stop) closes a block left open (anomaly block_left_open).",
             wire(message_start(), start(0, TEXT), text_delta(0, "a"), end_frame),
             end="complete", dones=[TextDone("a")], anomalies={"block_left_open": 1})
    case(p, "a_message_start_while_a_block_is_open_closes_it",
         "A message_start while a block is open closes the block first (block_left_open); the new message's usage and model are the newest.",
         wire(message_start(), start(0, TEXT), text_delta(0, "a"), message_start(model="claude-next", input_tokens=2), start(0, TEXT), text_delta(0, "b"), stop(0),
              message_delta("end_turn", output_tokens=3), MESSAGE_STOP),
         end="complete", dones=[TextDone("a"), TextDone("b")], anomalies={"block_left_open": 1}, model="claude-next", usage=Usage(None, 2, None, 3))
    case(p, "a_late_start_of_an_implied_text_block_continues_it",
         "The content_block_start of a text block its deltas already implied continues the same item.",
         wire(message_start(), text_delta(0, "a"), start(0, TEXT), text_delta(0, "b"), stop(0), message_delta("end_turn"), MESSAGE_STOP),
         end="complete", dones=[TextDone("ab")], anomalies={"implied_block_start": 1})
    case(p, "a_stop_for_no_open_block_changes_nothing",
         "A content_block_stop for a block that is not open changes nothing (anomaly stray_block_stop).",
         wire(message_start(), start(0, TEXT), text_delta(0, "a"), stop(1), text_delta(0, "b"), stop(0), stop(0), message_delta("end_turn"), MESSAGE_STOP),
         dones=[TextDone("ab")], anomalies={"stray_block_stop": 2})
    case(p, "an_earlier_block_s_delta_that_changes_nothing_done_is_a_late_event",
         "A delta for a block that already stopped that carries no content (a type not known yet, an empty one) changes nothing done: a side event of that block and the anomaly late_event, never a failure.",
         wire(message_start(), start(0, TEXT), text_delta(0, "a"), stop(0), delta(0, {"type": "search_progress_delta", "status": "done"}),
              start(1, TEXT), text_delta(1, "b"), stop(1), message_delta("end_turn"), MESSAGE_STOP),
         {"side_events": True}, end="complete", dones=[TextDone("a"), TextDone("b")], anomalies={"late_event": 1})
    for slug, objs, state, event in [
        ("a_delta_after_its_stop", [text_delta(0, "a"), stop(0), text_delta(0, "late")], "message", "content_block_delta for block 0, which already stopped"),
        ("a_delta_for_a_closed_block", [start(0, TEXT), text_delta(0, "a"), start(1, TEXT), text_delta(0, "late")], "block", "content_block_delta for block 0, which already stopped"),
        ("a_block_after_the_stop_reason", [start(0, TEXT), text_delta(0, "a"), stop(0), message_delta("end_turn"), start(1, TEXT)], "finished", "content_block_start for block 1 after the stop reason"),
        ("message_delta_after_message_stop", [start(0, TEXT), text_delta(0, "a"), stop(0), MESSAGE_STOP, message_delta("end_turn")], "stopped", "message_delta"),
    ]:
        case(p, f"contradiction_{slug}_fails",
             "A contradiction (a delta for a block that stopped, a block after the stop reason, message_delta after message_stop) ends the stream failed with a protocol_error naming state and event; what arrived is kept.",
             wire(message_start(), *objs, MESSAGE_STOP),
             end="failed", error_type="protocol_error", error_in=(f"out-of-order event: {event}", f"in state '{state}'"), dones=[TextDone("a")])

    # --- usage and model
    case(p, "usage_prompt_includes_cache_writes_and_cached_is_cache_reads",
         "Usage in MMSP meaning: prompt is input plus cache writes, cached is cache reads, response is output_tokens.",
         wire(message_start(input_tokens=100, cache_creation_input_tokens=20, cache_read_input_tokens=300), start(0, TEXT), text_delta(0, "x"), stop(0),
              message_delta("end_turn", output_tokens=42), MESSAGE_STOP),
         usage=Usage(cached_tokens=300, prompt_tokens=120, thoughts_tokens=None, response_tokens=42))
    case(p, "usage_is_cumulative_newest_wins_and_zero_never_erases",
         "Usage counts are cumulative: the newest wins, a zero never erases a count.",
         wire(message_start(input_tokens=0, cache_read_input_tokens=0), start(0, TEXT), text_delta(0, "x"), stop(0),
              {"type": "message_delta", "delta": {"stop_reason": None}, "usage": {"input_tokens": 50, "cache_read_input_tokens": 7, "output_tokens": 3}},
              {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"input_tokens": 0, "output_tokens": 9}}, MESSAGE_STOP),
         usage=Usage(cached_tokens=7, prompt_tokens=50, thoughts_tokens=None, response_tokens=9))
    case(p, "reported_thinking_tokens_are_thoughts_and_leave_the_response_count",
         "output_tokens_details.thinking_tokens are thoughts and are taken out of the response count.",
         wire(message_start(input_tokens=4), {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": 943, "output_tokens_details": {"thinking_tokens": 261}}}, MESSAGE_STOP),
         usage=Usage(cached_tokens=None, prompt_tokens=4, thoughts_tokens=261, response_tokens=682))
    iterations = [
        {"type": "compaction", "input_tokens": 100, "output_tokens": 83, "cache_read_input_tokens": 55096, "cache_creation_input_tokens": 0},
        {"type": "message", "input_tokens": 181, "output_tokens": 8, "cache_read_input_tokens": 0, "cache_creation_input_tokens": 0},
    ]
    case(p, "iterations_usage_is_their_sum",
         "When message_delta usage lists iterations (compaction), usage is their sum and the list is kept in extras usage_iterations.",
         b"".join(b"data: " + dumps(o).encode() + b"\n\n" for o in [
             {"type": "message_start", "message": {"usage": {"input_tokens": 100, "cache_read_input_tokens": 55096, "output_tokens": 7}}},
             {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"input_tokens": 181, "cache_read_input_tokens": 0, "output_tokens": 8, "iterations": iterations}},
         ]),
         usage=Usage(cached_tokens=55096, prompt_tokens=281, thoughts_tokens=None, response_tokens=91), extras={"usage_iterations": iterations})
    case(p, "several_message_starts_in_one_response",
         "A second message_start in one response (programmatic tool calling) continues the stream; its items follow and its usage is the newest.",
         wire(message_start(model="claude-sonnet-4-6", input_tokens=10), start(0, TEXT), text_delta(0, "one"), stop(0),
              message_start(model="claude-sonnet-4-6", input_tokens=30), start(0, TEXT), text_delta(0, "two"), stop(0), message_delta("end_turn", output_tokens=8), MESSAGE_STOP),
         end="complete", dones=[TextDone("one"), TextDone("two")], usage=Usage(cached_tokens=None, prompt_tokens=30, thoughts_tokens=None, response_tokens=8))
    case(p, "a_message_may_follow_message_stop",
         "A message may follow message_stop; the newest stop reason wins.",
         simple(start(0, TEXT), text_delta(0, "one"), stop(0), reason="pause_turn") + simple(start(0, TEXT), text_delta(0, "two"), stop(0)),
         end="complete", dones=[TextDone("one"), TextDone("two")], native="end_turn")

    # --- wire variations and the side channel
    reference: dict[str, Any] = {"end": "complete", "dones": RICH_DONES, "finish_reason": "tool_call", "kept_sides": RICH_KEPT,
                 "usage": Usage(cached_tokens=3, prompt_tokens=12, thoughts_tokens=None, response_tokens=77)}
    case(p, "side_events_stay_out_of_events_unless_asked_but_are_in_the_outcome",
         "Server-side tool blocks never become tool calls; without side_events they are not among the events, but the outcome keeps each side block's start and done.",
         wire(*RICH), sides=[], **reference)
    case(p, "server_tools_are_side_events_in_order_never_tool_calls",
         "With side_events, server tool blocks are side events (start, each delta, done with the assembled input) interleaved in arrival order; the outcome keeps starts and dones, never deltas.",
         wire(*RICH), options={"side_events": True},
         kept_done_data=[{"type": "server_tool_use", "id": "srvtoolu_1", "name": "web_search", "input": {"query": "weather"}}, RICH[14]["content_block"]],
         shape=["thinking.delta", "thinking.delta", "thinking.done", "text.delta", "text.delta", "text.done",
                ("server_tool_use", "start", "srvtoolu_1"), ("server_tool_use", "delta", "srvtoolu_1"), ("server_tool_use", "delta", "srvtoolu_1"), ("server_tool_use", "done", "srvtoolu_1"),
                ("web_search_tool_result", "start", "srvtoolu_1"), ("web_search_tool_result", "done", "srvtoolu_1"),
                "text.delta", "text.done", "tool_call.delta", "tool_call.delta", "tool_call.done", "stop"],
         **reference)
    case(p, "wire_variant_without_event_lines",
         "Frames without `event:` lines decode the same (the kind comes from the data's type).",
         wire(*RICH, events=False), **reference)
    crlf = wire(*RICH, nl="\r\n")
    case(p, "wire_variant_crlf_split_between_cr_and_lf",
         "\\r\\n line ends decode the same, also when pushes split between \\r and \\n and inside UTF-8 characters.",
         cut_after(crlf, (b"\r\n", 1), (b"\xf0\x9f\xa4\x94", 2), (b"\xe4\xb8\x96", 1), (b"\r\n\r\nevent: content_block_stop", 3)),
         **reference)
    case(p, "wire_variant_without_pings",
         "A stream without pings decodes the same.",
         wire(*[o for o in RICH if o is not PING]), **reference)
    padded = "".join(
        f"event: {o['type']}\ndata: {json.dumps(o, indent=1)}    \n\n".replace("\n ", " ").replace("\n}", " }") for o in RICH
    ).encode()
    case(p, "wire_variant_padded_json",
         "JSON padded with spaces, and trailing spaces after the data, decode the same.",
         padded, **reference)
    case(p, "wire_variant_spaced_ping",
         "A ping written with spaces in its JSON decodes the same.",
         wire(*RICH).replace(b'"type":"ping"', b'"type": "ping"'), **reference)
    untyped = [{k: v for k, v in o.items() if k != "type"} | {"_": 0} for o in RICH]
    case(p, "the_event_name_is_used_when_the_data_has_no_type",
         "A frame whose data has no `type` is classified by its `event:` line.",
         "".join(f"event: {o['type']}\ndata: {json.dumps(s)}\n\n" for o, s in zip(RICH, untyped, strict=True)).encode(),
         **reference)
    case(p, "frames_typed_only_by_their_event_line_keep_their_text_in_any_split",
         "A frame typed only by its `event:` line keeps its kind when pushes split the event name.",
         cut_after(b'event: content_block_delta\ndata: {"index":0,"delta":{"type":"text_delta","text":"kept"}}\n\n', (b"content_block", 7), (b"\ndata", 1)),
         text="kept", end="truncated")
    case(p, "mcp_and_unknown_block_types_go_to_the_side_channel",
         "MCP blocks and block types not known yet go to the side channel; their done carries the assembled input, or string fields their deltas grew.",
         simple(start(0, {"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "ask", "server_name": "gh", "input": {}}), json_delta(0, '{"q": 1}'), stop(0),
                start(1, {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_1", "is_error": False, "content": []}), stop(1),
                start(2, {"type": "compaction", "content": None}), delta(2, {"type": "compaction_delta", "content": "Summary "}), delta(2, {"type": "compaction_delta", "content": "so far."}), stop(2)),
         kept_done_data=[{"type": "mcp_tool_use", "id": "mcptoolu_1", "name": "ask", "server_name": "gh", "input": {"q": 1}},
                         {"type": "mcp_tool_result", "tool_use_id": "mcptoolu_1", "is_error": False, "content": []},
                         {"type": "compaction", "content": "Summary so far."}],
         dones=[], kept_sides=[("mcp_tool_use", "start", "mcptoolu_1"), ("mcp_tool_use", "done", "mcptoolu_1"), ("mcp_tool_result", "start", "mcptoolu_1"),
                               ("mcp_tool_result", "done", "mcptoolu_1"), ("compaction", "start", None), ("compaction", "done", None)])
    case(p, "a_side_block_input_that_is_not_json_is_kept_as_text",
         "A server tool block whose input fragments are not JSON keeps them as partial_json on its done, with the anomaly side_input_not_json.",
         simple(start(0, {"type": "server_tool_use", "id": "srvtoolu_2", "name": "web_search", "input": {}}), json_delta(0, '{"query": '), stop(0)),
         kept_sides=[("server_tool_use", "start", "srvtoolu_2"), ("server_tool_use", "done", "srvtoolu_2")], anomalies={"side_input_not_json": 1}, end="complete",
         kept_done_data=[{"type": "server_tool_use", "id": "srvtoolu_2", "name": "web_search", "input": {}, "partial_json": '{"query": '}])
    data = simple(start(0, TEXT), text_delta(0, "x"), stop(0))
    data = data.replace(b"event: message_delta", b'event: future_thing\ndata: {"type":"future_thing","n":1}\n\nevent: message_delta', 1)
    case(p, "unknown_frame_types_are_kept_not_fatal",
         "A frame type nobody knows yet is kept as an info side event with the anomaly unknown_frame, never fatal.",
         data, end="complete", kept_sides=[("future_thing", "info", None)], anomalies={"unknown_frame": 1})
    case(p, "unknown_frames_past_the_retention_cap_are_counted_not_kept",
         "The outcome keeps at most max_retained side events; later ones are counted (retention_cap), and anomalies are aggregated by kind.",
         b'event: x\ndata: {"type":"future_frame","n":1}\n\n' * 10, options={"max_retained": 3},
         anomalies={"unknown_frame": 10, "retention_cap": 7}, kept_sides=[("future_frame", "info", None)] * 3)
    side = b"data: " + dumps({"type": "message_start", "message": {}}).encode() + b"\n\n"
    side += b"data: " + dumps(start(0, {"type": "compaction", "content": ""})).encode() + b"\n\n"
    side += (b"data: " + dumps(delta(0, {"type": "compaction_delta", "content": "ab"})).encode() + b"\n\n") * 5
    side += b"data: " + dumps(stop(0)).encode() + b"\n\n"
    case(p, "side_channel_deltas_are_emitted_but_not_retained",
         "Side-channel deltas are emitted inline but not kept in the outcome: the block's done carries what they assembled.",
         side, options={"side_events": True},
         sides=[("compaction", "start", None)] + [("compaction", "delta", None)] * 5 + [("compaction", "done", None)],
         kept_sides=[("compaction", "start", None), ("compaction", "done", None)], end="truncated")

    # --- split invariance on hostile streams
    case(p, "a_cut_tool_call_with_utf8_in_its_input_byte_by_byte",
         "A stream cut inside a tool call's input, fed byte by byte through UTF-8 characters, keeps its text and offers no call.",
         bytewise(wire(message_start(), start(0, TEXT), text_delta(0, "Gr\u00fc\u00dfe"), stop(0), tool(1, "f", "toolu_f"), json_delta(1, '{"a": "\u00e9'))),
         end="truncated", dones=[TextDone("Gr\u00fc\u00dfe")], calls=[])
    case(p, "an_error_mid_text_byte_by_byte",
         "An error event mid text, fed byte by byte, fails the stream and keeps the text.",
         bytewise(wire(message_start(), start(0, TEXT), text_delta(0, "ab"), {"type": "error", "error": {"type": "overloaded_error", "message": "Overloaded"}})),
         end="failed", error=("Overloaded", "overloaded_error", None), dones=[TextDone("ab")])

    # --- a body cut inside a frame
    whole = b'data: {"type":"message_start","message":{}}\n\ndata: {"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":1}}\n\n'
    case(p, "a_stop_reason_with_no_block_is_complete", "A message with a stop reason and no blocks is complete.", whole, end="complete", anomalies={})
    for slug, tail in [("an_event_line_only", b"event: message_stop\n"), ("cut_data", b'event: message_stop\ndata: {"type":"mess'),
                       ("cut_json", b"data: {"), ("a_cut_field_name", b"dat")]:
        case(p, f"a_body_cut_inside_a_frame_at_{slug}_is_truncated",
             "A body that stops inside a frame (after its event line, inside its data or JSON, inside a field name) is truncated with the anomaly cut_frame, even after a stop reason.",
             whole + tail, end="truncated", anomalies={"cut_frame": 1})

    # --- nesting
    case(p, "tool_input_nested_too_deep_skips_the_frame",
         "A content_block_start nested deeper than 254 levels is skipped (frame_too_deep).",
         b'data: {"type":"content_block_start","index":0,"content_block":{"type":"tool_use","id":"t","name":"f","input":{"a":' + deep(255) + b"}}}\n\n",
         skipped=1, anomalies={"frame_too_deep": 1}, calls=[])
    case(p, "an_error_nested_deeper_than_the_json_reader_allows_is_skipped",
         "An error frame nested deeper than JSON readers allow is skipped, not read as an error.",
         b'data: {"type":"error","error":{"message":' + deep(2000) + b"}}\n\n",
         skipped=1, anomalies={}, end="truncated")


# =========================================================================================
# OpenAI Responses
# =========================================================================================

MODEL = "gpt-5-2025-08-07"
USAGE = {"input_tokens": 100, "input_tokens_details": {"cached_tokens": 40}, "output_tokens": 50, "output_tokens_details": {"reasoning_tokens": 20}, "total_tokens": 150}


def rsse(*frames: dict[str, Any] | bytes, event_lines: bool = True, first_seq: int | None = 0) -> bytes:
    """Frames as a server sends them; dicts get the next sequence_number unless
    `first_seq` is None or the frame has one; bytes are written as they are."""
    out: list[bytes] = []
    seq = first_seq
    for given in frames:
        if isinstance(given, bytes):
            out.append(given)
            continue
        frame = dict(given)
        if seq is not None and "sequence_number" not in frame:
            frame["sequence_number"] = seq
            seq += 1
        head = f"event: {frame['type']}\n" if event_lines else ""
        out.append(f"{head}data: {json.dumps(frame, ensure_ascii=False)}\n\n".encode())
    return b"".join(out)


def response(status: str = "in_progress", **fields: Any) -> dict[str, Any]:
    return {"id": "resp_1", "object": "response", "status": status, "model": MODEL, "output": [], **fields}


def created() -> dict[str, Any]:
    return {"type": "response.created", "response": response()}


def in_progress() -> dict[str, Any]:
    return {"type": "response.in_progress", "response": response()}


def completed(usage: dict[str, Any] | None = None, **fields: Any) -> dict[str, Any]:
    return {"type": "response.completed", "response": response("completed", usage=usage or USAGE, **fields)}


def added(index: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.added", "output_index": index, "item": item}


def item_done(index: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.done", "output_index": index, "item": item}


def message(index: int, text: str, item_id: str = "msg_1", phase: str | None = None) -> list[dict[str, Any]]:
    """A message item streamed in the usual events, its text in two deltas."""
    begin: dict[str, Any] = {"id": item_id, "type": "message", "status": "in_progress", "content": [], "role": "assistant"}
    if phase:
        begin["phase"] = phase
    part = {"type": "output_text", "annotations": [], "text": ""}
    cut = len(text) // 2
    final = {**begin, "status": "completed", "content": [{**part, "text": text}]}
    where = {"item_id": item_id, "output_index": index, "content_index": 0}
    return [
        added(index, begin),
        {"type": "response.content_part.added", **where, "part": part},
        {"type": "response.output_text.delta", **where, "delta": text[:cut]},
        {"type": "response.output_text.delta", **where, "delta": text[cut:]},
        {"type": "response.output_text.done", **where, "text": text},
        {"type": "response.content_part.done", **where, "part": {**part, "text": text}},
        item_done(index, final),
    ]


def reasoning(index: int, summary: list[str], item_id: str = "rs_1", encrypted: str | None = "gAAA-secret") -> list[dict[str, Any]]:
    """A reasoning item with summary parts (each in two deltas) and encrypted content."""
    begin: dict[str, Any] = {"id": item_id, "type": "reasoning", "summary": []}
    events = [added(index, begin)]
    for n, text in enumerate(summary):
        where = {"item_id": item_id, "output_index": index, "summary_index": n}
        cut = len(text) // 2
        events += [
            {"type": "response.reasoning_summary_part.added", **where, "part": {"type": "summary_text", "text": ""}},
            {"type": "response.reasoning_summary_text.delta", **where, "delta": text[:cut]},
            {"type": "response.reasoning_summary_text.delta", **where, "delta": text[cut:]},
            {"type": "response.reasoning_summary_text.done", **where, "text": text},
            {"type": "response.reasoning_summary_part.done", **where, "part": {"type": "summary_text", "text": text}},
        ]
    final: dict[str, Any] = {**begin, "summary": [{"type": "summary_text", "text": t} for t in summary]}
    if encrypted is not None:
        final["encrypted_content"] = encrypted
    events.append(item_done(index, final))
    return events


def function_call(index: int, name: str, call_id: str, fragments: list[str], item_id: str = "fc_1", done_arguments: bool = True) -> list[dict[str, Any]]:
    arguments = "".join(fragments)
    begin = {"id": item_id, "type": "function_call", "status": "in_progress", "name": name, "call_id": call_id, "arguments": ""}
    where = {"item_id": item_id, "output_index": index}
    events = [added(index, begin)]
    events += [{"type": "response.function_call_arguments.delta", **where, "delta": f} for f in fragments]
    if done_arguments:
        events.append({"type": "response.function_call_arguments.done", **where, "arguments": arguments})
    events.append(item_done(index, {**begin, "status": "completed", "arguments": arguments}))
    return events


FULL_RESULT = "r" * 5000


def mirobody_stream() -> bytes:
    first = {"id": "step_1", "call_id": "call_m1", "name": "fetch_health_data", "arguments": '{"indicator":"LDL"}'}
    second = {"id": "step_2", "call_id": "call_m2", "name": "search_docs", "arguments": '{"q":"LDL"}'}
    return rsse(
        created(), in_progress(),
        {"type": "response.mirobody_tool_call", "tool_step": first},
        {"type": "response.mirobody_tool_call", "tool_step": second},
        {"type": "response.mirobody_tool_result", "tool_step": {**second, "result": "two docs", "truncated": False}},
        {"type": "response.mirobody_tool_result", "tool_step": {**first, "result": FULL_RESULT[:4096], "truncated": True}},
        *message(0, "Your LDL fell."),
        completed(tool_steps=[{**first, "result": FULL_RESULT}, {**second, "result": "two docs"}],
                  health_records=[{"indicator": "LDL", "value": 96, "unit": "mg/dL"}], citations=[{"id": 1, "source": "lab_2024.pdf"}]),
    )


def responses_cases() -> None:
    p = RESPONSES
    side = {"side_events": True}
    mcp = [{"id": f"mcpl_{i}", "type": "mcp_list_tools", "server_label": f"s{i}", "tools": []} for i in range(2)]
    case(p, "an_earlier_built_in_item_s_completion_is_a_late_event",
         "A built-in item's completion that arrives after a later item began (MCP list-tools items stream so) changes nothing done: a side event of that item and the anomaly late_event, never a failure.",
         rsse(created(), added(0, mcp[0]), added(1, mcp[1]),
              {"type": "response.mcp_list_tools.completed", "output_index": 0, "item_id": "mcpl_0"},
              item_done(1, mcp[1]), *message(2, "ok", "msg_2"), completed()),
         side, end="complete", text="ok", anomalies={"item_left_open": 1, "late_event": 1})
    late_text = {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "!"}
    case(p, "more_text_for_a_closed_text_item_is_a_contradiction",
         "A text delta for an item that already closed would change done content: the stream fails with a protocol error, and what was assembled is kept.",
         rsse(created(), *message(0, "done"), added(1, mcp[0]), late_text, completed()),
         end="failed", text="done")
    # --- text, usage, model
    case(p, "a_text_stream_maps_to_text_items_usage_and_stop",
         "A message item's output_text deltas are one text group; response.completed makes it complete (native completed) with usage in MMSP meaning, the model and extras response_id.",
         rsse(created(), in_progress(), *message(0, "Hello there"), completed()),
         items=[TextDelta("Hello"), TextDelta(" there"), TextDone("Hello there")], end="complete", finish_reason="stop", native="completed", model=MODEL,
         usage=Usage(cached_tokens=40, prompt_tokens=60, thoughts_tokens=20, response_tokens=30), anomalies={}, extras={"response_id": "resp_1"})
    case(p, "usage_without_detail_blocks",
         "Usage without detail blocks leaves cached and thoughts null.",
         rsse(created(), *message(0, "ok"), completed({"input_tokens": 12, "output_tokens": 7})),
         usage=Usage(cached_tokens=None, prompt_tokens=12, thoughts_tokens=None, response_tokens=7))
    case(p, "every_message_item_is_its_own_text_item_with_its_phase_as_fidelity",
         "Each message item is its own text item, and a message's phase rides as fidelity on an empty delta at output_item.added and on the done.",
         rsse(created(), *message(0, "Let me check.", "msg_a", phase="commentary"), *message(1, "Done.", "msg_b", phase="final_answer"), completed()),
         items=[TextDelta("", {"phase": "commentary"}), TextDelta("Let me"), TextDelta(" check."), TextDone("Let me check.", {"phase": "commentary"}),
                TextDelta("", {"phase": "final_answer"}), TextDelta("Do"), TextDelta("ne."), TextDone("Done.", {"phase": "final_answer"})],
         end="complete")
    where = {"item_id": "msg_1", "output_index": 0, "content_index": 0}
    case(p, "a_refusal_is_visible_text_and_kept_in_extras",
         "A refusal is visible text; its full text is also kept in extras refusals.",
         rsse(created(), added(0, {"id": "msg_1", "type": "message", "content": [], "role": "assistant"}),
              {"type": "response.content_part.added", **where, "part": {"type": "refusal", "refusal": ""}},
              {"type": "response.refusal.delta", **where, "delta": "I can't "}, {"type": "response.refusal.delta", **where, "delta": "help with that."},
              {"type": "response.refusal.done", **where, "refusal": "I can't help with that."},
              item_done(0, {"id": "msg_1", "type": "message", "content": [{"type": "refusal", "refusal": "I can't help with that."}]}), completed()),
         items=[TextDelta("I can't "), TextDelta("help with that."), TextDone("I can't help with that.")], extras={"refusals": ["I can't help with that."]}, finish_reason="stop")
    case(p, "done_texts_are_used_only_when_no_delta_arrived",
         "A part's .done text, or a message's content at output_item.done, is sent only when none of it arrived as deltas.",
         rsse(created(), added(0, {"id": "msg_1", "type": "message", "content": []}),
              {"type": "response.content_part.added", **where, "part": {"type": "output_text", "text": ""}},
              {"type": "response.output_text.done", **where, "text": "whole part"},
              item_done(0, {"id": "msg_1", "type": "message", "content": [{"type": "output_text", "text": "whole part"}]}),
              added(1, {"id": "msg_2", "type": "message", "content": []}),
              item_done(1, {"id": "msg_2", "type": "message", "content": [{"type": "output_text", "text": "whole item"}]}), completed()),
         items=[TextDelta("whole part"), TextDone("whole part"), TextDelta("whole item"), TextDone("whole item")])
    case(p, "annotations_go_to_the_side_channel",
         "An output_text annotation is an info side event named by the annotation's type; the text is unchanged.",
         rsse(created(), *message(0, "Cited")[:4],
              {"type": "response.output_text.annotation.added", **where, "annotation_index": 0, "annotation": {"type": "url_citation", "url": "https://a.example", "start_index": 0, "end_index": 5}},
              *message(0, "Cited")[4:], completed()),
         options=side, sides=[("url_citation", "info", "msg_1")], text="Cited", end="complete")

    # --- reasoning
    fidelity = {"encrypted_content": "gAAA-secret", "reasoning_id": "rs_1", "channel": "summary"}
    case(p, "reasoning_summary_is_thinking_with_encrypted_content_as_fidelity_once",
         "Reasoning summary text is thinking; the item's encrypted_content rides once as fidelity (encrypted_content, reasoning_id, channel) on an empty delta before the done.",
         rsse(created(), *reasoning(0, ["**Plan** A", "**Check** B"]), *message(1, "Answer"), completed()),
         items=[ThinkingDelta("**Pla"), ThinkingDelta("n** A"), ThinkingDelta("**Che"), ThinkingDelta("ck** B"), ThinkingDelta("", fidelity),
                ThinkingDone("**Plan** A**Check** B", fidelity), TextDelta("Ans"), TextDelta("wer"), TextDone("Answer")],
         dones=[ThinkingDone("**Plan** A**Check** B", fidelity), TextDone("Answer")])
    only = {"encrypted_content": "gAAA-only", "reasoning_id": "rs_1"}
    case(p, "reasoning_with_only_encrypted_content_is_an_empty_thinking_item_carrying_it",
         "A reasoning item with no text but encrypted content is an empty thinking item carrying it.",
         rsse(created(), *reasoning(0, [], encrypted="gAAA-only"), *message(1, "Hi"), completed()),
         items_head=[ThinkingDelta("", only), ThinkingDone("", only)])
    case(p, "reasoning_with_nothing_to_keep_emits_nothing",
         "A reasoning item with neither text nor encrypted content emits nothing.",
         rsse(created(), *reasoning(0, [], encrypted=None), *message(1, "Hi"), completed()),
         items=[TextDelta("H"), TextDelta("i"), TextDone("Hi")])
    rs = {"item_id": "rs_1", "output_index": 0, "content_index": 0}
    case(p, "raw_reasoning_text_is_thinking",
         "Raw reasoning_text deltas (DeepSeek, LM Studio) are thinking.",
         rsse(created(), added(0, {"id": "rs_1", "type": "reasoning", "summary": []}),
              {"type": "response.content_part.added", **rs, "part": {"type": "reasoning_text", "text": ""}},
              {"type": "response.reasoning_text.delta", **rs, "delta": "We need "}, {"type": "response.reasoning_text.delta", **rs, "delta": "Paris."},
              {"type": "response.reasoning_text.done", **rs, "text": "We need Paris."},
              {"type": "response.content_part.done", **rs, "part": {"type": "reasoning_text", "text": "We need Paris."}},
              item_done(0, {"id": "rs_1", "type": "reasoning", "summary": [], "content": [{"type": "reasoning_text", "text": "We need Paris."}]}),
              *message(1, "Paris"), completed()),
         items_head=[ThinkingDelta("We need "), ThinkingDelta("Paris."), ThinkingDone("We need Paris.")])
    case(p, "a_reasoning_signature_rides_as_fidelity",
         "A reasoning item's `signature` rides as fidelity signature, with its format and channel.",
         rsse(created(), added(0, {"id": "rs_1", "type": "reasoning", "summary": []}),
              {"type": "response.reasoning_text.delta", **rs, "delta": "Hmm."},
              item_done(0, {"id": "rs_1", "type": "reasoning", "summary": [], "content": [{"type": "reasoning_text", "text": "Hmm."}], "signature": "sig-1", "format": "bedrock"}),
              *message(1, "ok"), completed()),
         items_head=[ThinkingDelta("Hmm."), ThinkingDelta("", {"format": "bedrock", "signature": "sig-1", "channel": "content"}),
                     ThinkingDone("Hmm.", {"format": "bedrock", "signature": "sig-1", "channel": "content"})])
    left_open = rsse(
        created(), added(0, {"type": "reasoning", "id": "rs_1", "summary": []}),
        {"type": "response.content_part.added", **rs, "part": {"type": "reasoning_text", "text": ""}},
        {"type": "response.reasoning_text.delta", **rs, "delta": "Easy: "}, {"type": "response.reasoning_text.delta", **rs, "delta": "4."},
        *message(1, "4!"),
        {"type": "response.reasoning_text.done", **rs, "text": "Easy: 4."},
        {"type": "response.content_part.done", **rs, "part": {"type": "reasoning_text", "text": "Easy: 4."}},
        item_done(0, {"type": "reasoning", "id": "rs_1", "summary": [], "content": [{"type": "reasoning_text", "text": "Easy: 4."}]}),
        completed(), b"data: [DONE]\n\n", event_lines=False,
    )
    case(p, "openrouter_reasoning_item_left_open_while_the_message_streams",
         "A reasoning item left open while the message streams (OpenRouter) is closed when the message starts; its late done changes nothing.",
         left_open,
         items=[ThinkingDelta("Easy: "), ThinkingDelta("4."), ThinkingDone("Easy: 4."), TextDelta("4"), TextDelta("!"), TextDone("4!")], end="complete", anomalies={})
    case(p, "fidelity_of_a_reasoning_item_finished_late_is_kept_in_extras",
         "Encrypted content that only arrives at the late done of a reasoning item left open is kept in extras late_reasoning_fidelity, with the anomaly late_reasoning.",
         rsse(created(), added(0, {"type": "reasoning", "id": "rs_1", "summary": []}),
              {"type": "response.reasoning_text.delta", **rs, "delta": "Easy."},
              *message(1, "4!"),
              item_done(0, {"type": "reasoning", "id": "rs_1", "summary": [], "content": [{"type": "reasoning_text", "text": "Easy."}], "encrypted_content": "gAAA-late"}),
              completed(), event_lines=False),
         dones=[ThinkingDone("Easy."), TextDone("4!")], anomalies={"late_reasoning": 1},
         extras={"late_reasoning_fidelity": [{"output_index": 0, "fidelity": {"encrypted_content": "gAAA-late", "reasoning_id": "rs_1", "channel": "content"}, "text": ""}]})

    # --- function calls
    case(p, "a_function_call_opens_with_name_and_call_id_then_argument_fragments",
         "A function_call item is a tool call: its first delta carries the name and the call_id (not the item id), then argument fragments; the finish reason is tool_call.",
         rsse(created(), *function_call(0, "get_weather", "call_abc", ['{"city":', '"Paris"}']), completed()),
         items=[ToolCallDelta("get_weather", "", "call_abc"), ToolCallDelta("", '{"city":', ""), ToolCallDelta("", '"Paris"}', ""), ToolCallDone("get_weather", {"city": "Paris"}, "call_abc")],
         finish_reason="tool_call", native="completed")
    case(p, "two_parallel_function_calls_are_two_tool_calls_in_order",
         "Two function_call items are two tool calls, in order.",
         rsse(created(), *function_call(0, "get_weather", "call_1", ['{"city":"Paris"}'], item_id="fc_1"), *function_call(1, "get_time", "call_2", ['{"tz":', '"CET"}'], item_id="fc_2"), completed()),
         dones=[ToolCallDone("get_weather", {"city": "Paris"}, "call_1"), ToolCallDone("get_time", {"tz": "CET"}, "call_2")], finish_reason="tool_call")
    case(p, "arguments_without_deltas_come_from_done_then_from_the_item",
         "Arguments that arrived in no delta come from function_call_arguments.done, else from the item at output_item.done, as one fragment.",
         rsse(created(), *function_call(0, "a", "call_1", [], item_id="fc_1")[:1],
              {"type": "response.function_call_arguments.done", "item_id": "fc_1", "output_index": 0, "arguments": '{"x":1}'},
              item_done(0, {"id": "fc_1", "type": "function_call", "name": "a", "call_id": "call_1", "arguments": '{"x":1}'}),
              added(1, {"id": "fc_2", "type": "function_call", "name": "b", "call_id": "call_2", "arguments": ""}),
              item_done(1, {"id": "fc_2", "type": "function_call", "name": "b", "call_id": "call_2", "arguments": '{"y":2}'}), completed()),
         items=[ToolCallDelta("a", "", "call_1"), ToolCallDelta("", '{"x":1}', ""), ToolCallDone("a", {"x": 1}, "call_1"),
                ToolCallDelta("b", "", "call_2"), ToolCallDelta("", '{"y":2}', ""), ToolCallDone("b", {"y": 2}, "call_2")])
    case(p, "arguments_given_as_an_object_are_taken_whole",
         "A function_call item whose arguments are a JSON object is taken whole.",
         rsse(created(), added(0, {"id": "fc_1", "type": "function_call", "name": "f", "call_id": "call_1", "arguments": {"a": 1}}),
              item_done(0, {"id": "fc_1", "type": "function_call", "name": "f", "call_id": "call_1", "arguments": {"a": 1}}), completed()),
         calls=[("f", "call_1", {"a": 1})])
    case(p, "a_function_call_without_ids_gets_a_made_up_id",
         "A function call with neither call_id nor id gets `call_<stream_id>_<output_index>`.",
         rsse(created(), added(0, {"type": "function_call", "name": "f", "arguments": ""}),
              {"type": "response.function_call_arguments.delta", "output_index": 0, "delta": "{}"},
              item_done(0, {"type": "function_call", "name": "f", "arguments": "{}"}), completed()),
         options={"stream_id": "abc"}, calls=[("f", "call_abc_0", {})])
    case(p, "a_function_call_never_named_is_kept_on_the_side_channel",
         "A function call that never gets a name is never a tool call: its done is a side event, with the anomaly unnamed_tool_call.",
         rsse(created(), {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 0, "delta": "{}"},
              item_done(0, {"id": "fc_1", "type": "function_call", "call_id": "call_1", "arguments": "{}"}), completed()),
         calls=[], kept_sides=[("function_call", "done", "call_1")], anomalies={"implied_output_item": 1, "unnamed_tool_call": 1}, end="complete")

    # --- built-in tools and the side channel
    ws = {"id": "ws_1", "type": "web_search_call", "status": "in_progress"}
    wsw = {"item_id": "ws_1", "output_index": 0}
    case(p, "builtin_tool_items_go_to_the_side_channel_never_tool_calls",
         "Built-in tool items (web_search_call, ...) are side events (start, each of their events as a delta, done) in arrival order, never tool calls; the outcome keeps start and done.",
         rsse(created(), added(0, ws), {"type": "response.web_search_call.in_progress", **wsw}, {"type": "response.web_search_call.searching", **wsw},
              {"type": "response.web_search_call.completed", **wsw}, item_done(0, {**ws, "status": "completed", "action": {"type": "search", "query": "weather"}}),
              *message(1, "Sunny"), completed()),
         options=side,
         shape=[("web_search_call", "start", "ws_1"), ("web_search_call", "delta", "ws_1"), ("web_search_call", "delta", "ws_1"), ("web_search_call", "delta", "ws_1"),
                ("web_search_call", "done", "ws_1"), "text.delta", "text.delta", "text.done", "stop"],
         kept_sides=[("web_search_call", "start", "ws_1"), ("web_search_call", "done", "ws_1")], calls=[], finish_reason="stop")
    case(p, "a_builtin_event_for_another_output_index_fails",
         "A built-in tool's event naming another output_index than the open item's is a contradiction: protocol_error.",
         rsse(created(), added(0, ws), {"type": "response.web_search_call.searching", "item_id": "ws_9", "output_index": 3}, completed()),
         end="failed", error_type="protocol_error", error_in="output_index 3 while output item 0 is open")
    case(p, "unknown_item_types_and_their_events_are_kept_on_the_side_channel",
         "An unknown item type is a side-channel item, and an unknown event that names an item is an info side event.",
         rsse(created(), added(0, {"id": "x_1", "type": "future_tool_call"}), {"type": "response.future_tool_call.progress", "item_id": "x_1", "output_index": 0, "detail": 1},
              item_done(0, {"id": "x_1", "type": "future_tool_call", "result": "ok"}), *message(1, "ok"), completed()),
         options=side, sides=[("future_tool_call", "start", "x_1"), ("future_tool_call.progress", "info", "x_1"), ("future_tool_call", "done", "x_1")], end="complete")
    case(p, "keepalives_and_gateway_frames_are_skipped",
         "Unknown events that name no item (keepalives, gateway frames) are skipped: no side event, no anomaly.",
         rsse(created(), {"type": "keepalive"}, *message(0, "hi"), {"type": "gateway.status", "ok": True}, completed()),
         options=side, sides=[], text="hi", end="complete", anomalies={})
    case(p, "response_queued_is_progress",
         "response.queued is read like response.in_progress.",
         rsse({"type": "response.queued", "response": response("queued")}, *message(0, "hi"), completed()),
         end="complete", text="hi", model=MODEL)

    # --- Mirobody
    first = {"id": "step_1", "call_id": "call_m1", "name": "fetch_health_data", "arguments": '{"indicator":"LDL"}'}
    second = {"id": "step_2", "call_id": "call_m2", "name": "search_docs", "arguments": '{"q":"LDL"}'}
    case(p, "mirobody_tool_steps_are_side_events_matched_and_completed_by_the_final_object",
         "Mirobody tool steps are side events; results match their call by id; the full result in response.completed replaces one cut at 4096 characters; health_records and citations go to extras and one side event.",
         mirobody_stream(), options=side,
         sides=[("mirobody_tool_call", "start", "step_1"), ("mirobody_tool_call", "start", "step_2"), ("mirobody_tool_result", "done", "step_2"),
                ("mirobody_tool_result", "done", "step_1"), ("mirobody_tool_result", "info", "step_1"), ("mirobody_response", "info", "resp_1")],
         dones=[TextDone("Your LDL fell.")], finish_reason="stop", anomalies={},
         extras={"tool_steps": [{**first, "result": FULL_RESULT, "truncated": False, "replaced_truncated": True}, {**second, "result": "two docs", "truncated": False}],
                 "health_records": [{"indicator": "LDL", "value": 96, "unit": "mg/dL"}], "citations": [{"id": 1, "source": "lab_2024.pdf"}]})
    case(p, "mirobody_result_is_matched_by_call_id_when_the_id_differs",
         "A Mirobody result without the step's id is matched to its call by call_id.",
         rsse(created(), {"type": "response.mirobody_tool_call", "tool_step": {"id": "a", "call_id": "c1", "name": "t", "arguments": "{}"}},
              {"type": "response.mirobody_tool_result", "tool_step": {"call_id": "c1", "name": "t", "result": "ok", "truncated": False}}, *message(0, "ok"), completed()),
         extras={"tool_steps": [{"id": "a", "call_id": "c1", "name": "t", "arguments": "{}", "result": "ok", "truncated": False}]})
    case(p, "a_mirobody_result_that_matches_no_call_is_its_own_step",
         "A Mirobody result that matches no call is recorded as its own step, with the anomaly unmatched_tool_result.",
         rsse(created(), {"type": "response.mirobody_tool_result", "tool_step": {"id": "z", "call_id": "cz", "name": "t", "result": "ok"}}, *message(0, "ok"), completed()),
         anomalies={"unmatched_tool_result": 1}, extras={"tool_steps": [{"id": "z", "call_id": "cz", "name": "t", "arguments": None, "result": "ok", "truncated": False}]})
    case(p, "a_final_tool_step_never_streamed_is_added",
         "A tool step listed only in response.completed is added to the steps, with an info side event.",
         rsse(created(), *message(0, "ok"), completed(tool_steps=[{"id": "s9", "call_id": "c9", "name": "t", "arguments": "{}", "result": "late"}])),
         options=side, sides=[("mirobody_tool_result", "info", "s9")],
         extras={"tool_steps": [{"id": "s9", "call_id": "c9", "name": "t", "arguments": "{}", "result": "late", "truncated": False}]})
    steps = []
    for i in range(3):
        step = {"id": f"s{i}", "call_id": f"c{i}", "name": "f", "arguments": "{}"}
        steps += [{"type": "response.mirobody_tool_call", "tool_step": step}, {"type": "response.mirobody_tool_result", "tool_step": {**step, "result": "ok"}}]
    case(p, "mirobody_steps_without_sequence_numbers_match_their_results",
         "Interleaved Mirobody calls and results, bare data lines without sequence numbers, each match their own step.",
         rsse(*steps, event_lines=False, first_seq=None),
         extras={"tool_steps": [{"id": f"s{i}", "call_id": f"c{i}", "name": "f", "arguments": "{}", "result": "ok", "truncated": False} for i in range(3)]}, end="truncated")
    case(p, "mirobody_upstream_error_fails_the_stream_keeping_the_text",
         "An error event mid message fails the stream with the provider's message, type and code; the text is kept and nothing after it is read.",
         rsse(created(), {"type": "response.mirobody_tool_call", "tool_step": {"id": "s1", "call_id": "c1", "name": "t", "arguments": "{}"}}, *message(0, "Checking")[:3],
              {"type": "error", "error": {"type": "upstream_error", "code": "upstream_error", "message": "model provider timed out"}}, completed()),
         options=side, end="failed", error=("model provider timed out", "upstream_error", "upstream_error"), dones=[TextDone("Chec")], finish_reason=None,
         sides=[("mirobody_tool_call", "start", "s1")])

    # --- the end
    error = {"code": "server_error", "message": "The model failed."}
    case(p, "response_failed_carries_the_error_message_and_code",
         "response.failed ends the stream failed with the response's error message and code (the code is the type when there is none).",
         rsse(created(), {"type": "response.failed", "response": response("failed", error=error)}),
         end="failed", error=("The model failed.", "server_error", "server_error"), native="failed")
    case(p, "response_failed_without_an_error_object_says_so",
         "response.failed without an error object still fails the stream, with a message naming the status.",
         rsse(created(), {"type": "response.failed", "response": response("failed")}),
         end="failed", error_in="no error object")
    case(p, "a_flat_error_event_gives_message_and_code",
         "An `error` event with message and code at its top level fails the stream with them.",
         rsse(created(), {"type": "error", "code": "rate_limit_exceeded", "message": "Slow down", "param": None}),
         end="failed", error=("Slow down", "rate_limit_exceeded", "rate_limit_exceeded"))
    case(p, "an_error_then_response_failed_reads_both_and_the_first_error_wins",
         "After an error event, a response.failed is still read (its status is the native finish reason), but the first error wins.",
         rsse(created(), {"type": "error", "code": "server_error", "message": "The server had an error", "param": None},
              {"type": "response.failed", "response": {"id": "r", "status": "failed", "error": {"code": "server_error", "message": "other words"}}}),
         end="failed", native="failed", error=("The server had an error", "server_error", "server_error"))
    case(p, "an_error_then_done_is_failed",
         "An error event followed by [DONE] is failed.",
         rsse(created(), {"type": "error", "message": "gone"}, b"data: [DONE]\n\n"),
         end="failed", error_in="gone")
    for reason, finish in [("max_output_tokens", "length"), ("content_filter", "unknown")]:
        case(p, f"incomplete_for_{reason}_is_complete_with_{finish}",
             "response.incomplete makes the stream complete; incomplete_details.reason max_output_tokens is length, any other reason unknown; usage is read.",
             rsse(created(), *message(0, "Once upon a time"), {"type": "response.incomplete", "response": response("incomplete", incomplete_details={"reason": reason}, usage=USAGE)}),
             end="complete", finish_reason=finish, native=reason, usage=Usage(40, 60, 20, 30))
    case(p, "incomplete_without_a_reason_is_unknown",
         "response.incomplete without a reason is complete with finish unknown and native incomplete.",
         rsse(created(), *message(0, "Once"), {"type": "response.incomplete", "response": response("incomplete")}),
         end="complete", finish_reason="unknown", native="incomplete")
    case(p, "no_terminal_event_is_truncated_with_what_arrived",
         "A stream without a terminal event is truncated, keeping the text that arrived.",
         rsse(created(), *message(0, "cut sho")[:3]),
         end="truncated", dones=[TextDone("cut")])
    case(p, "a_done_sentinel_before_a_terminal_event_is_truncated",
         "[DONE] before response.completed leaves the stream truncated.",
         rsse(created(), *message(0, "hi"), b"data: [DONE]\n\n", event_lines=False),
         end="truncated", text="hi")
    case(p, "a_function_call_cut_short_is_not_in_the_outcome",
         "A function call cut short is not in the outcome.",
         rsse(created(), *function_call(0, "f", "call_1", ['{"a":'])[:2]),
         end="truncated", dones=[])
    one = b"".join(b"data: " + dumps(o).encode() + b"\n\n" for o in [{"type": "response.created", "response": {"id": "r1"}}, {"type": "response.completed", "response": {"id": "r1", "status": "completed"}}])
    case(p, "frames_after_the_end_are_counted",
         "Frames after response.completed are not read; they are counted as frames_after_end (a trailing [DONE] is not counted).",
         one + one + b"data: [DONE]\n\n",
         end="complete", anomalies={"frames_after_end": 2})

    # --- framing variants
    frames = [created(), *reasoning(0, ["think"]), *message(1, "text"), completed()]
    reference: dict[str, Any] = {"end": "complete", "dones": [ThinkingDone("think", {"encrypted_content": "gAAA-secret", "reasoning_id": "rs_1", "channel": "summary"}), TextDone("text")]}
    case(p, "a_stream_with_event_lines",
         "A reasoning item then a message, framed with `event:` lines: thinking with its fidelity, then text.",
         rsse(*frames), **reference)
    case(p, "a_stream_without_event_lines_decodes_the_same",
         "A stream without `event:` lines and with a trailing [DONE] (OpenRouter) decodes the same.",
         rsse(*frames, b"data: [DONE]\n\n", event_lines=False), **reference)
    case(p, "frames_typed_only_by_their_event_line_keep_their_text_in_any_split",
         "A frame typed only by its `event:` line keeps its kind when pushes split the event name.",
         cut_after(b'event: response.output_text.delta\ndata: {"output_index":0,"item_id":"m","delta":"kept"}\n\n', (b"output_text", 4), (b"\ndata", 1)),
         text="kept", end="truncated")
    mw = {"item_id": "msg_1", "output_index": 1, "content_index": 0}
    case(p, "a_resumed_stream_starts_mid_sequence_inside_an_item",
         "A resumed stream (starting_after) may begin inside an item: its deltas continue it, its .done texts are not sent again (anomaly resumed_output_item).",
         rsse({"type": "response.output_text.delta", **mw, "delta": "rest of "}, {"type": "response.output_text.delta", **mw, "delta": "the answer"},
              {"type": "response.output_text.done", **mw, "text": "Start of the rest of the answer"},
              item_done(1, {"id": "msg_1", "type": "message", "content": [{"type": "output_text", "text": "Start of the rest of the answer"}]}),
              *function_call(2, "f", "call_9", ["{}"]), completed(), first_seq=7),
         items_head=[TextDelta("rest of "), TextDelta("the answer"), TextDone("rest of the answer")], end="complete", finish_reason="tool_call", anomalies={"resumed_output_item": 1})
    case(p, "a_resumed_stream_starting_at_an_item_boundary",
         "A resumed stream may begin at an item boundary, with any output_index and sequence_number.",
         rsse(in_progress(), *message(3, "later item"), completed(), first_seq=40),
         end="complete", dones=[TextDone("later item")], anomalies={})

    # --- lifecycle: recovery, contradictions, sequence numbers
    case(p, "item_events_without_output_item_added_imply_the_item",
         "Item events without output_item.added imply the item (implied_output_item); one still open at response.completed is closed (item_left_open).",
         rsse(created(), {"type": "response.output_text.delta", **where, "delta": "no added"}, completed()),
         end="complete", dones=[TextDone("no added")], anomalies={"implied_output_item": 1, "item_left_open": 1})
    case(p, "a_done_text_without_added_or_deltas_is_kept",
         "An output_text.done with no output_item.added and no deltas is kept as the text.",
         rsse(created(), {"type": "response.output_text.done", **where, "text": "whole"}, item_done(0, {"id": "msg_1", "type": "message", "content": []}), completed()),
         end="complete", dones=[TextDone("whole")])
    fw = {"item_id": "fc_1", "output_index": 0}
    case(p, "arguments_without_output_item_added_are_named_by_the_item_done",
         "Function-call arguments without output_item.added wait and are named by the item's done.",
         rsse(created(), {"type": "response.function_call_arguments.delta", **fw, "delta": '{"q": '}, {"type": "response.function_call_arguments.delta", **fw, "delta": "1}"},
              item_done(0, {"id": "fc_1", "type": "function_call", "call_id": "call_7", "name": "lookup", "arguments": '{"q": 1}'}), completed()),
         dones=[ToolCallDone("lookup", {"q": 1}, "call_7")], items_head=[ToolCallDelta("lookup", '{"q": 1}', "call_7")], anomalies={"implied_output_item": 1})
    case(p, "a_new_item_while_one_is_open_closes_the_open_one",
         "An output_item.added while a message is open closes it (item_left_open).",
         rsse(created(), *message(0, "first")[:3], *message(1, "second", item_id="msg_2"), completed()),
         end="complete", dones=[TextDone("fi"), TextDone("second")], anomalies={"item_left_open": 1})
    case(p, "an_event_of_the_next_item_closes_the_open_one",
         "An event for the next output_index closes the open item and implies the new one.",
         rsse(created(), *message(0, "ab")[:3], {"type": "response.output_text.delta", "item_id": "msg_9", "output_index": 1, "content_index": 0, "delta": "x"}, completed()),
         end="complete", dones=[TextDone("a"), TextDone("x")], anomalies={"item_left_open": 2, "implied_output_item": 1})
    fc = {"id": "fc_1", "type": "function_call", "name": "f", "call_id": "call_1", "arguments": ""}
    case(p, "a_function_call_left_open_is_closed_when_the_next_item_starts",
         "A function call whose output_item.done never came is closed, and offered, when the next item starts (item_left_open).",
         rsse(created(), added(0, fc), {"type": "response.function_call_arguments.delta", "item_id": "fc_1", "output_index": 0, "delta": '{"a": 1}'},
              *message(1, "hi"), completed()),
         end="complete", dones=[ToolCallDone("f", {"a": 1}, "call_1"), TextDone("hi")], anomalies={"item_left_open": 1}, finish_reason="tool_call")
    case(p, "a_builtin_item_open_at_completed_is_closed_from_the_final_output",
         "A built-in tool item still open at response.completed gets its done side event from the final response's output.",
         rsse(created(), added(0, ws), completed(output=[{**ws, "status": "completed"}])),
         kept_sides=[("web_search_call", "start", "ws_1"), ("web_search_call", "done", "ws_1")], kept_done_data=[{"item": {**ws, "status": "completed"}}],
         anomalies={"item_left_open": 1}, end="complete")
    case(p, "a_builtin_item_after_an_open_reasoning_item_defers_it",
         "A built-in tool item that starts while a reasoning item is open closes the reasoning's thinking; the reasoning's late done changes nothing.",
         rsse(created(), added(0, {"id": "rs_1", "type": "reasoning", "summary": []}),
              {"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "output_index": 0, "summary_index": 0, "delta": "t"},
              added(1, ws), item_done(1, {**ws, "status": "completed"}),
              item_done(0, {"id": "rs_1", "type": "reasoning", "summary": [{"type": "summary_text", "text": "t"}]}), completed()),
         options=side, shape=["thinking.delta", "thinking.done", ("web_search_call", "start", "ws_1"), ("web_search_call", "done", "ws_1"), "stop"], anomalies={})
    case(p, "a_second_response_created_is_a_contradiction",
         "A second response.created is a contradiction: protocol_error.",
         rsse(created(), *message(0, "a"), created(), completed()),
         end="failed", error_type="protocol_error", error_in="response.created in state 'between'", dones=[TextDone("a")])
    case(p, "an_output_index_gap_is_recorded_not_fatal",
         "An output_index that skips one is the anomaly output_index_gap, not fatal.",
         rsse(created(), *message(0, "a"), *message(2, "b", item_id="msg_2"), completed()),
         end="complete", dones=[TextDone("a"), TextDone("b")], anomalies={"output_index_gap": 1})
    case(p, "a_fresh_stream_starts_at_output_index_0",
         "After response.created the first item is expected at output_index 0; another index is an output_index_gap.",
         rsse(created(), *message(1, "a"), completed()),
         end="complete", anomalies={"output_index_gap": 1})
    for slug, late, why in [
        ("an_event_of_a_closed_item", {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "late"},
         "response.output_text.delta in state 'between': output_index 0 names an item that already closed"),
        ("an_index_that_goes_back", added(0, {"id": "msg_3", "type": "message", "content": []}), "response.output_item.added in state 'between': output_index 0 after 1: it goes back"),
    ]:
        case(p, f"contradiction_{slug}_fails",
             "A contradiction (an event of an item that already closed, an output_index that goes back) ends the stream failed with a protocol_error naming state and event; what arrived is kept.",
             rsse(created(), *message(0, "a"), *message(1, "b", item_id="msg_2"), late, completed()),
             end="failed", error_type="protocol_error", error_in=why, dones=[TextDone("a"), TextDone("b")])
    frames = [created(), *message(0, "hello"), completed()]
    numbered = [{**f, "sequence_number": n} for f, n in zip(frames, [0, 1, 2, 3, 7, 8, 9, 9, 10], strict=True)]
    case(p, "a_sequence_gap_and_repeat_are_recorded_not_fatal",
         "A sequence_number gap or repeat is an anomaly (sequence_gap, sequence_repeat); the frame is still read.",
         rsse(*numbered), end="complete", dones=[TextDone("hello")], anomalies={"sequence_gap": 1, "sequence_repeat": 1})
    gaps = [{"type": "response.created", "sequence_number": 0, "response": {}}] + [{"type": "response.in_progress", "sequence_number": 2 * i + 2, "response": {}} for i in range(10)]
    case(p, "sequence_gaps_are_aggregated",
         "Sequence gaps are aggregated into one anomaly with a count.",
         b"".join(b"data: " + dumps(f).encode() + b"\n\n" for f in gaps), anomalies={"sequence_gap": 10}, end="truncated")

    # --- split invariance
    case(p, "reasoning_and_text_split_inside_utf8_characters",
         "Pushes split inside UTF-8 characters and event names decode as the whole stream does.",
         cut_after(rsse(created(), *reasoning(0, ["Pens\u00e9 \u2713 ", "deux"]), *message(1, "R\u00e9ponse: 42 \U0001f389"), completed()),
                   (b"\xc3\xa9", 1), (b"\xe2\x9c\x93", 2), (b"\xf0\x9f\x8e\x89", 3), (b"response.output_text", 12)),
         end="complete", thinking="Pens\u00e9 \u2713 deux", text="R\u00e9ponse: 42 \U0001f389")
    case(p, "function_calls_byte_by_byte",
         "Two function calls fed byte by byte decode as the whole stream does.",
         bytewise(rsse(created(), *function_call(0, "f", "c1", ['{"a":', "1}"]), *function_call(1, "g", "c2", ["{}"], item_id="fc_2"), completed())),
         calls=[("f", "c1", {"a": 1}), ("g", "c2", {})], end="complete")

    # --- nesting
    case(p, "an_error_nested_too_deep_is_skipped",
         "An error frame nested deeper than 254 levels is skipped (frame_too_deep), not read as an error.",
         b'data: {"type":"error","error":{"message":' + deep(255) + b"}}\n\n",
         skipped=1, anomalies={"frame_too_deep": 1}, end="truncated")
    case(p, "a_failed_response_nested_deeper_than_the_json_reader_allows_is_skipped",
         "A response.failed frame nested deeper than JSON readers allow is skipped.",
         b'data: {"type":"response.failed","response":{"error":' + deep(2000) + b"}}\n\n",
         skipped=1, anomalies={}, end="truncated")


def responses_client_call_cases() -> None:
    p = RESPONSES
    side = {"side_events": True}
    patch = '*** Begin Patch\n+print("h\u00e9llo")\n*** End Patch\n'
    custom: dict[str, Any] = {"id": "ctc_1", "type": "custom_tool_call", "status": "in_progress", "call_id": "call_ctc", "name": "apply_patch", "input": ""}
    where = {"item_id": "ctc_1", "output_index": 0}
    custom_stream = rsse(
        created(), added(0, custom),
        {"type": "response.custom_tool_call_input.delta", **where, "delta": patch[:16]},
        {"type": "response.custom_tool_call_input.delta", **where, "delta": patch[16:]},
        {"type": "response.custom_tool_call_input.done", **where, "input": patch},
        item_done(0, {**custom, "status": "completed", "input": patch}), completed())
    fidelity = {"item_type": "custom_tool_call"}
    case(p, "a_custom_tool_call_is_a_tool_call_whose_input_streams_as_json_text",
         "A custom tool's call waits for the client's answer, so it is a tool call named by the tool, with its call_id, fidelity naming the item type, and finish tool_call; its free-text input streams, escaped, as fragments of the JSON text {\"input\": text}.",
         custom_stream, side,
         items=[ToolCallDelta("apply_patch", "", "call_ctc", fidelity), ToolCallDelta("", '{"input":"*** Begin Patch\\n', ""),
                ToolCallDelta("", '+print(\\"h\u00e9llo\\")\\n*** End Patch\\n', ""), ToolCallDelta("", '"}', ""),
                ToolCallDone("apply_patch", {"input": patch}, "call_ctc", fidelity)],
         sides=[], end="complete", finish_reason="tool_call", native="completed")
    case(p, "a_custom_tool_call_byte_by_byte",
         "A custom tool's call fed byte by byte decodes as the whole stream does.",
         bytewise(custom_stream), calls=[("apply_patch", "call_ctc", {"input": patch})], finish_reason="tool_call")
    patch_call: dict[str, Any] = {"id": "apc_1", "type": "apply_patch_call", "status": "in_progress", "call_id": "call_apc",
                  "operation": {"type": "create_file", "path": "notes.md", "diff": ""}}
    whole_patch: dict[str, Any] = {**patch_call, "status": "completed", "operation": {"type": "create_file", "path": "notes.md", "diff": "+# Notes\n"}}
    pwhere = {"item_id": "apc_1", "output_index": 0}
    case(p, "an_apply_patch_call_streams_its_diff_inside_its_operation",
         "An apply_patch call is a tool call named apply_patch_call whose arguments are {\"operation\": ...}; its diff deltas stream inside that JSON text.",
         rsse(created(), added(0, patch_call),
              {"type": "response.apply_patch_call_operation_diff.delta", **pwhere, "delta": "+# Notes\n"},
              {"type": "response.apply_patch_call_operation_diff.done", **pwhere, "diff": "+# Notes\n"},
              item_done(0, whole_patch), completed()),
         side,
         items=[ToolCallDelta("apply_patch_call", "", "call_apc", {"item_type": "apply_patch_call"}),
                ToolCallDelta("", '{"operation":{"type":"create_file","path":"notes.md","diff":"+# Notes\\n', ""), ToolCallDelta("", '"}}', ""),
                ToolCallDone("apply_patch_call", {"operation": whole_patch["operation"]}, "call_apc", {"item_type": "apply_patch_call"})],
         sides=[], finish_reason="tool_call")
    approval: dict[str, Any] = {"id": "mcpr_1", "type": "mcp_approval_request", "server_label": "deepwiki", "name": "ask_question", "arguments": '{"question":"?"}'}
    computer: dict[str, Any] = {"id": "cu_1", "type": "computer_call", "call_id": "call_cu", "status": "completed",
                "action": {"type": "screenshot"}, "pending_safety_checks": []}
    local_shell: dict[str, Any] = {"id": "lsh_1", "type": "local_shell_call", "call_id": "call_lsh", "status": "completed",
                   "action": {"type": "exec", "command": ["ls"], "env": {}}}
    shell: dict[str, Any] = {"id": "sh_1", "type": "shell_call", "call_id": "call_sh", "status": "completed", "action": {"commands": ["pwd"]}}
    case(p, "every_item_the_client_answers_is_a_tool_call_named_by_its_item_type",
         "A computer call, a local shell call, a shell call in the client's environment and an MCP approval request each wait for the client: tool calls named by their item type, the approval request by its id, arguments the item's own fields, fidelity the item type (and the id a computer or local shell call is sent back with).",
         rsse(created(), *[frame for n, item in enumerate([computer, local_shell, shell, approval]) for frame in (added(n, item), item_done(n, item))], completed()),
         side,
         dones=[ToolCallDone("computer_call", {"action": {"type": "screenshot"}, "pending_safety_checks": []}, "call_cu", {"item_type": "computer_call", "call_item_id": "cu_1"}),
                ToolCallDone("local_shell_call", {"action": local_shell["action"]}, "call_lsh", {"item_type": "local_shell_call", "call_item_id": "lsh_1"}),
                ToolCallDone("shell_call", {"action": {"commands": ["pwd"]}}, "call_sh", {"item_type": "shell_call"}),
                ToolCallDone("mcp_approval_request", {"server_label": "deepwiki", "name": "ask_question", "arguments": '{"question":"?"}'}, "mcpr_1", {"item_type": "mcp_approval_request"})],
         sides=[], finish_reason="tool_call")
    hosted: dict[str, Any] = {**shell, "environment": {"type": "container_reference", "container_id": "cntr_1"}}
    output: dict[str, Any] = {"id": "sho_1", "type": "shell_call_output", "call_id": "call_sh", "status": "completed",
              "output": [{"stdout": "/mnt/data\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}]}
    case(p, "a_shell_call_in_a_hosted_container_stays_on_the_side_channel",
         "A shell call whose environment names a hosted container runs on the server (its output item follows in the same response): side events, no tool call, finish stop.",
         rsse(created(), added(0, hosted), item_done(0, hosted), added(1, output), item_done(1, output), *message(2, "In /mnt/data.", "msg_2"), completed()),
         side, sides=[("shell_call", "start", "sh_1"), ("shell_call", "done", "sh_1"), ("shell_call_output", "start", "sho_1"), ("shell_call_output", "done", "sho_1")],
         text="In /mnt/data.", calls=[], finish_reason="stop")


chat_cases()
sse_cases()
anthropic_cases()
responses_cases()
responses_client_call_cases()

# =========================================================================================
# Google Gemini generateContent (SSE and the streamed JSON array) and the Interactions API
# =========================================================================================

GEMINI = "gemini"
INTERACTIONS = "gemini_interactions"


def grecord(parts: list[dict[str, Any]] | None = None, finish: str | None = None, **top: Any) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"parts": parts or [], "role": "model"}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], "modelVersion": "gemini-3-pro", "responseId": "r1", **top}


def gsse(*records: dict[str, Any]) -> bytes:
    return b"".join(b"data: " + dumps(r).encode() + b"\r\n\r\n" for r in records)


def garray(*records: dict[str, Any]) -> bytes:
    return b"[" + b"\n,\r\n".join(json.dumps(r, indent=2, ensure_ascii=False).encode() for r in records) + b"\n]"


def gusage(prompt: int, out: int, **more: int) -> dict[str, Any]:
    return {"promptTokenCount": prompt, "candidatesTokenCount": out, "totalTokenCount": prompt + out, **more}


def gemini_cases() -> None:
    p = GEMINI
    text_answer = gsse(
        grecord([{"text": "Let me think", "thought": True}]),
        grecord([{"text": "The answer", "thoughtSignature": "c2lnLTE="}]),
        grecord([{"text": " is 4."}], "STOP", usageMetadata=gusage(10, 5, thoughtsTokenCount=7)),
    )
    case(p, "text_and_thought_parts_over_sse",
         "Text parts are text, thought parts thinking; usage maps to MMSP's meaning; STOP is stop.",
         text_answer, end="complete", text="The answer is 4.", thinking="Let me think", finish_reason="stop",
         native="STOP", usage=Usage(None, 10, 7, 5), model="gemini-3-pro")
    vertex_int = {"candidates": [{"content": {"parts": [{"text": "ok"}], "role": "model"}, "finishReason": 6, "index": 0}],
                  "createTime": "2026-01-05T10:00:00Z", "modelVersion": "gemini-2.5-flash"}
    case(p, "enums_written_as_numbers_are_read_by_their_protobuf_values",
         "With enum-encoding=int a finishReason is its protobuf number: a record with createTime is Vertex's (6 is BLOCKLIST there, LANGUAGE in the Gemini API); the stream ends complete with the name kept as the native reason.",
         garray(vertex_int), end="complete", text="ok", finish_reason="unknown", native="BLOCKLIST")
    case(p, "a_signature_on_the_first_text_part_is_that_items_fidelity",
         "A thoughtSignature on a text part is fidelity {signature} of that text item.",
         text_answer, dones=[ThinkingDone("Let me think"), TextDone("The answer is 4.", {"signature": "c2lnLTE="})])
    case(p, "crlf_records_split_everywhere",
         "Records ended by CRLF CRLF decode the same cut between CR and LF and inside UTF-8.",
         split_at(gsse(grecord([{"text": "é"}], "STOP")), 10, 41, 42, 43, 44), text="é", end="complete")
    case(p, "a_signature_on_a_trailing_empty_text_part_belongs_to_the_open_text",
         "Gemini 3 ends a text answer with an empty text part carrying the signature: it goes on the open text item.",
         gsse(grecord([{"text": "Hello"}]), grecord([{"text": " there"}]), grecord([{"text": "", "thoughtSignature": "ZW5k"}], "STOP")),
         dones=[TextDone("Hello there", {"signature": "ZW5k"})])
    case(p, "a_signature_with_nothing_open_is_an_empty_text_item",
         "A signature on an empty text part after a function call is an empty text item of its own, never dropped.",
         gsse(grecord([{"functionCall": {"name": "f", "args": {}}}]), grecord([{"text": "", "thoughtSignature": "bGFzdA=="}], "STOP")),
         dones=[ToolCallDone("f", {}, "call_s1_1"), TextDone("", {"signature": "bGFzdA=="})])
    case(p, "an_empty_text_part_without_a_signature_is_nothing",
         "An empty text part with no signature adds nothing.",
         gsse(grecord([{"text": "a"}, {"text": ""}]), grecord([{"text": ""}], "STOP")), dones=[TextDone("a")])
    case(p, "a_part_with_only_a_signature_goes_to_the_open_item",
         "A part that is nothing but a thoughtSignature attaches to the open item.",
         gsse(grecord([{"text": "think", "thought": True}, {"thoughtSignature": "dGg="}]), grecord([], "STOP")),
         dones=[ThinkingDone("think", {"signature": "dGg="})])
    case(p, "text_runs_with_different_signatures_are_two_items",
         "Two text parts with different signatures are two text items, each with its own.",
         gsse(grecord([{"text": "a", "thoughtSignature": "MQ=="}, {"text": "b", "thoughtSignature": "Mg=="}], "STOP")),
         dones=[TextDone("a", {"signature": "MQ=="}), TextDone("b", {"signature": "Mg=="})])
    case(p, "a_whole_function_call_is_one_delta_and_its_done",
         "A functionCall arrives whole: one tool_call.delta with the arguments, a made-up id, and STOP means tool_call.",
         gsse(grecord([{"functionCall": {"name": "get_capital", "args": {"country": "France"}}}], "STOP")),
         items=[ToolCallDelta("get_capital", '{"country":"France"}', "call_s1_1"), ToolCallDone("get_capital", {"country": "France"}, "call_s1_1")],
         finish_reason="tool_call", native="STOP")
    case(p, "parallel_calls_keep_the_one_signature_on_the_first",
         "Only the first of parallel calls carries a signature; it stays on that call.",
         gsse(grecord([
             {"functionCall": {"name": "weather", "args": {"city": "Paris"}, "id": "c1"}, "thoughtSignature": "QQ=="},
             {"functionCall": {"name": "weather", "args": {"city": "London"}, "id": "c2"}},
             {"functionCall": {"name": "clock"}},
         ], "STOP")),
         dones=[ToolCallDone("weather", {"city": "Paris"}, "c1", {"signature": "QQ=="}), ToolCallDone("weather", {"city": "London"}, "c2"), ToolCallDone("clock", {}, "call_s1_3")])
    streamed: list[dict[str, Any]] = [
        {"functionCall": {"name": "plan", "willContinue": True}},
        {"functionCall": {"partialArgs": [{"jsonPath": "$.recipe.name", "stringValue": "Lasa", "willContinue": True}], "willContinue": True}},
        {"functionCall": {"partialArgs": [{"jsonPath": "$.recipe.name", "stringValue": "gna"}, {"jsonPath": "$.recipe.steps[0]", "stringValue": "Boil"}], "willContinue": True}},
        {"functionCall": {"willContinue": True}},
        {"functionCall": {"partialArgs": [{"jsonPath": "$.servings", "numberValue": 4.0}, {"jsonPath": "$.vegan", "boolValue": False}], "willContinue": True}},
        {"functionCall": {}},
    ]
    case(p, "vertex_streamed_arguments_are_assembled_by_path",
         "Vertex partialArgs fill the call by JSON path, streamed as arguments text that joins to the final JSON.",
         gsse(*(grecord([part]) for part in streamed), grecord([{"text": ""}], "STOP")),
         calls=[("plan", "call_s1_1", {"recipe": {"name": "Lasagna", "steps": ["Boil"]}, "servings": 4, "vegan": False})], anomalies={})
    case(p, "a_streamed_call_ends_with_a_part_without_will_continue",
         "A partialArgs part without willContinue closes the streamed call.",
         gsse(grecord([{"functionCall": {"name": "buy", "willContinue": True}}, {"functionCall": {"partialArgs": [{"jsonPath": "$.items[1].price", "numberValue": 0.3}]}}], "STOP")),
         calls=[("buy", "call_s1_1", {"items": [None, {"price": 0.3}]})])
    case(p, "a_streamed_call_cut_short_is_no_tool_call",
         "A streamed call still open when the body ends is no tool call.",
         gsse(grecord([{"functionCall": {"name": "buy", "willContinue": True}}])), end="truncated", calls=[])
    case(p, "inline_audio_joins_images_stay_apart",
         "Audio chunks of one type join into one inline_data item; every image is an item; thought images are inline_thinking.",
         gsse(grecord([
             {"inlineData": {"mimeType": "audio/L16;rate=24000", "data": "AAE="}},
             {"inlineData": {"mimeType": "audio/L16;rate=24000", "data": "Ag=="}},
             {"inlineData": {"mimeType": "image/png", "data": "cG5n"}},
             {"inlineData": {"mimeType": "image/png", "data": "aWRlYQ=="}, "thought": True},
         ], "STOP")),
         dones=[unievent.InlineDataDone(b"\x00\x01\x02", "audio/L16;rate=24000"), unievent.InlineDataDone(b"png", "image/png"), unievent.InlineThinkingDone(b"idea", "image/png")])
    case(p, "code_execution_parts_go_to_the_side_channel",
         "executableCode and codeExecutionResult parts are side events, in order, never tool calls.",
         gsse(grecord([{"executableCode": {"language": "PYTHON", "code": "print(1)", "id": "x1"}}]), grecord([{"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1", "id": "x1"}}]), grecord([{"text": "1"}], "STOP")),
         {"side_events": True}, sides=[("executableCode", "info", "x1"), ("codeExecutionResult", "info", "x1")], calls=[])
    case(p, "usage_is_a_snapshot_the_last_value_wins",
         "usageMetadata on many records: the last value of each field wins; count-less Vertex usage changes nothing.",
         gsse(grecord([{"text": "a"}], usageMetadata={"promptTokenCount": 15}), grecord([{"text": "b"}], usageMetadata={"trafficType": "ON_DEMAND"}),
              grecord([{"text": "c"}], "STOP", usageMetadata=gusage(13, 8, cachedContentTokenCount=4))),
         usage=Usage(4, 9, None, 8))
    for native, mapped in (("MAX_TOKENS", "length"), ("SAFETY", "unknown"), ("MALFORMED_FUNCTION_CALL", "unknown")):
        case(p, f"finish_{native.lower()}", f"finishReason {native} is {mapped}, the native value kept.",
             gsse(grecord([{"text": "x"}], native)), finish_reason=mapped, native=native, end="complete")
    case(p, "a_blocked_prompt_fails", "promptFeedback.blockReason with no candidate fails the stream (prompt_blocked).",
         gsse({"promptFeedback": {"blockReason": "SAFETY"}}), end="failed", error_type="prompt_blocked")
    case(p, "an_error_record_fails_and_keeps_the_text", "An {error: {code, message, status}} record fails the stream; text is kept.",
         gsse(grecord([{"text": "partial"}]), {"error": {"code": 503, "message": "overloaded", "status": "UNAVAILABLE"}}),
         end="failed", error=("overloaded", "UNAVAILABLE", 503), text="partial")
    case(p, "no_finish_reason_is_truncated", "A body that ends before any finishReason is truncated.",
         gsse(grecord([{"text": "cut"}])), end="truncated", text="cut")
    two = grecord([{"text": "first"}], "STOP")
    two["candidates"].append({"content": {"parts": [{"text": "second"}]}, "index": 1})
    case(p, "only_candidate_zero_is_decoded", "Only candidate 0 is decoded; the others are noted.",
         gsse(two), text="first", anomalies={"other_candidates": 1})
    array = garray(grecord([{"functionCall": {"name": "multiply", "args": {"y": 3, "x": 5}}, "thoughtSignature": "c2ln"}]), grecord([{"text": ""}], "STOP"))
    case(p, "json_array_pretty_printed", "Without alt=sse the body is one pretty-printed JSON array; each element is a record.",
         array, calls=[("multiply", "call_s1_1", {"y": 3, "x": 5})], end="complete")
    case(p, "json_array_split_everywhere", "The JSON array decodes the same fed byte by byte.",
         bytewise(array), calls=[("multiply", "call_s1_1", {"y": 3, "x": 5})], end="complete")
    compact = b"[" + b",".join(dumps(r).encode() for r in (grecord([{"text": 'a "}" ] {'}]), grecord([{"text": "b"}], "STOP"))) + b"]"
    case(p, "json_array_compact_with_brackets_in_strings", "A compact array is read by its structure: brackets inside strings do not count.",
         split_at(compact, 20, 60), text='a "}" ] {b')
    case(p, "json_array_cut_before_its_end_is_truncated", "An array body that ends before its ] is truncated, even after a finish reason.",
         garray(grecord([{"text": "a"}], "STOP"))[:-2], end="truncated", anomalies={"cut_frame": 1})
    case(p, "json_array_junk_between_elements_is_skipped", "Junk between elements is skipped and counted.",
         garray(grecord([{"text": "a"}]), grecord([{"text": "b"}], "STOP")).replace(b"\n,\r\n", b"\n, oops ,\r\n"), skipped=1, text="ab", end="complete")
    case(p, "a_body_that_is_neither_array_nor_sse", "A body that is neither an array nor SSE is not an event stream.",
         b"<html><body>502 Bad Gateway</body></html>", end="not_event_stream")


def iframe(event_type: str, **fields: Any) -> bytes:
    return f"event: {event_type}\ndata: {dumps({**fields, 'event_type': event_type})}\n\n".encode()


I_DONE = b"event: done\ndata: [DONE]\n\n"


def interactions_cases() -> None:
    p = INTERACTIONS
    created = iframe("interaction.created", interaction={"id": "v1_x", "status": "in_progress", "model": "gemini-3-flash"})
    thought = iframe("step.start", index=0, step={"type": "thought"}) + iframe(
        "step.delta", index=0, delta={"type": "thought_summary", "content": {"type": "text", "text": "Weighing it"}}
    ) + iframe("step.delta", index=0, delta={"type": "thought_signature", "signature": "c2ln"}) + iframe("step.stop", index=0)
    output = iframe("step.start", index=1, step={"type": "model_output"}) + iframe("step.delta", index=1, delta={"type": "text", "text": "Paris."}) + iframe("step.stop", index=1)

    def completed(status: str = "completed", **usage: int) -> bytes:
        return iframe("interaction.completed", interaction={"id": "v1_x", "status": status, "usage": usage})

    case(p, "thought_text_and_usage", "Thought steps are thinking (their signature fidelity at the stop), model_output steps text.",
         created + thought + output + completed(total_input_tokens=20, total_cached_tokens=5, total_output_tokens=3, total_thought_tokens=9) + I_DONE,
         dones=[ThinkingDone("Weighing it", {"signature": "c2ln"}), TextDone("Paris.")], usage=Usage(5, 15, 9, 3), finish_reason="stop", end="complete")
    case(p, "a_signature_only_thought", "A thought with nothing but a signature is an empty thinking item carrying it.",
         created + iframe("step.start", index=0, step={"type": "thought"}) + iframe("step.delta", index=0, delta={"type": "thought_signature", "signature": "QQ=="}) + iframe("step.stop", index=0) + completed() + I_DONE,
         dones=[ThinkingDone("", {"signature": "QQ=="})])
    call = iframe("step.start", index=0, step={"type": "function_call", "id": "61nz", "name": "getWeather", "arguments": {}, "signature": ""}) + iframe(
        "step.delta", index=0, delta={"type": "arguments_delta", "arguments": '{"city": "Oslo"}'}
    ) + iframe("step.stop", index=0)
    case(p, "a_function_call_step_is_a_tool_call", "A function_call step is a tool call; requires_action is tool_call.",
         created + call + completed("requires_action") + I_DONE, calls=[("getWeather", "61nz", {"city": "Oslo"})], finish_reason="tool_call", native="requires_action")
    case(p, "split_byte_by_byte", "Any split gives the same result.",
         bytewise(created + call + completed("requires_action") + I_DONE), calls=[("getWeather", "61nz", {"city": "Oslo"})])
    case(p, "builtin_tool_steps_are_side_events", "Built-in tool steps go to the side channel: start, deltas, done.",
         created + iframe("step.start", index=0, step={"type": "google_search_call", "id": "g1"}) + iframe("step.delta", index=0, delta={"type": "google_search_call", "arguments": {"queries": ["q"]}}) + iframe("step.stop", index=0) + completed() + I_DONE,
         {"side_events": True}, sides=[("google_search_call", "start", "g1"), ("google_search_call", "delta", "g1"), ("google_search_call", "done", "g1")])
    case(p, "an_error_event_fails", "An error event with an error object fails the stream; its code is a string.",
         created + iframe("error", error={"message": "Deadline expired", "code": "gateway_timeout"}), end="failed", error=("Deadline expired", "gateway_timeout", "gateway_timeout"))
    case(p, "an_empty_error_event_is_a_heartbeat", "An error event without an error object changes nothing.",
         created + iframe("error") + output + completed() + I_DONE, end="complete", anomalies={"empty_error_event": 1})
    case(p, "done_before_completed_is_truncated", "[DONE] before interaction.completed leaves the stream truncated.",
         created + output + I_DONE, end="truncated", text="Paris.")
    case(p, "no_created_and_no_step_start_are_recovered", "A stream without interaction.created and a delta for a step never started are recovered.",
         iframe("step.delta", index=0, delta={"type": "text", "text": "Hi"}) + iframe("step.stop", index=0) + completed() + I_DONE,
         text="Hi", anomalies={"implied_interaction_start": 1, "implied_step_start": 1}, end="complete")
    case(p, "an_earlier_step_s_delta_that_changes_nothing_done_is_a_late_event",
         "A delta for a step that already stopped that carries no content (a type not known yet, an empty one) changes nothing done: a side event of that step and the anomaly late_event.",
         created + output + iframe("step.delta", index=1, delta={"type": "search_progress", "status": "done"}) + completed() + I_DONE,
         end="complete", text="Paris.", anomalies={"late_event": 1})
    case(p, "a_delta_for_a_stopped_step_fails", "A delta for a step that already stopped is ambiguous: the stream fails, keeping the text.",
         created + output + iframe("step.delta", index=1, delta={"type": "text", "text": "late"}), end="failed", error_type="protocol_error", text="Paris.")


MMSP = "mmsp"


def uframe(obj: dict[str, Any]) -> bytes:
    """One UniEvent block as an MMSP server writes it (Python's default separators)."""
    return b"data: " + json.dumps(obj, ensure_ascii=False).encode() + b"\n\n"


def udelta(item: dict[str, Any], created_at: int = 1700000000) -> bytes:
    return uframe({"role": "assistant", "event_type": "delta", "content_items": [item], "usage_metadata": None, "finish_reason": None, "created_at": created_at})


def ustop(finish: str = "stop", **usage: int | None) -> bytes:
    counts = {"cached_tokens": None, "prompt_tokens": None, "thoughts_tokens": None, "response_tokens": None, **usage}
    return uframe({"role": "assistant", "event_type": "stop", "content_items": [], "usage_metadata": counts, "finish_reason": finish, "created_at": 1700000009})


U_DONE = b"data: [DONE]\n\n"


def mmsp_cases() -> None:
    p = MMSP
    hello = udelta({"type": "text.delta", "text": "Hel"}) + udelta({"type": "text.delta", "text": "lo"}) + udelta({"type": "text.done", "text": "Hello"})
    case(p, "a_text_answer_passes_through_with_usage_as_sent", "The server's events come out as sent; usage and finish reason are the stop event's.",
         hello + ustop("length", prompt_tokens=9, response_tokens=2) + U_DONE, text="Hello", usage=Usage(None, 9, None, 2), finish_reason="length", end="complete")
    case(p, "keep_alives_between_a_delta_and_its_done", "Keep-alive comments anywhere lose nothing, in any split.",
         bytewise(b": keep-alive\n\n" + hello.replace(b"\n\ndata", b"\n\n: keep-alive\n\ndata") + ustop() + U_DONE), text="Hello", end="complete", anomalies={})
    signed = udelta({"type": "thinking.delta", "thinking": "Hmm", "fidelity": {"signature": "c2ln"}}) + udelta({"type": "thinking.done", "thinking": "Hmm", "fidelity": {"signature": "c2ln"}})
    case(p, "thinking_keeps_its_signature", "A thinking item's fidelity rides on its delta and its done.",
         signed + ustop() + U_DONE, dones=[ThinkingDone("Hmm", {"signature": "c2ln"})])
    call = udelta({"type": "tool_call.delta", "name": "f", "arguments": '{"a": ', "tool_call_id": "c1"}) + udelta(
        {"type": "tool_call.delta", "name": "", "arguments": "1}", "tool_call_id": ""}
    ) + udelta({"type": "tool_call.done", "name": "f", "arguments": {"a": 1}, "tool_call_id": "c1"})
    case(p, "tool_calls_pass_through", "A tool call's deltas and done pass through; the stop says tool_call.",
         call + ustop("tool_call") + U_DONE, calls=[("f", "c1", {"a": 1})], finish_reason="tool_call")
    image = udelta({"type": "inline_data.delta", "data": "AAE=", "mime_type": "image/png"}) + udelta(
        {"type": "inline_data.delta", "data": "Ag==", "mime_type": "image/png"}
    ) + udelta({"type": "inline_data.done", "data": "AAEC", "mime_type": "image/png"})
    case(p, "inline_bytes_in_chunks_padded_each", "Bytes are base64 on the wire, each chunk padded on its own; the done holds the joined bytes.",
         split_at(image + ustop() + U_DONE, 50, 130), dones=[unievent.InlineDataDone(b"\x00\x01\x02", "image/png")])
    case(p, "an_error_event_fails_keeping_its_fields", "{error: {type, message, ...}} fails the stream with that type and the status as code.",
         udelta({"type": "text.delta", "text": "Hel"}) + uframe({"error": {"type": "UpstreamError", "message": "upstream said no", "status": 502}}) + U_DONE,
         end="failed", error=("upstream said no", "UpstreamError", 502), dones=[TextDone("Hel")])
    case(p, "done_without_a_stop_is_a_cancel", "[DONE] without a stop event is a server-side cancel: truncated.",
         hello + U_DONE, end="truncated", text="Hello")
    case(p, "a_grammar_violation_fails_naming_the_rule", "A server that interleaves groups ends the stream failed with a protocol_error; what came before is kept.",
         udelta({"type": "text.delta", "text": "Hel"}) + udelta({"type": "thinking.delta", "thinking": "x"}) + U_DONE,
         end="failed", error_type="protocol_error", error_in=["event 1", "thinking.delta"])


OPENAI_EMBEDDINGS = "openai_embeddings"
GEMINI_EMBEDDINGS = "gemini_embeddings"


def embeddings_body(*entries: Any, **top: Any) -> bytes:
    """An OpenAI `/v1/embeddings` response: `entries` are (index, embedding) pairs."""
    data = [{"object": "embedding", "index": i, "embedding": e} for i, e in entries]
    return json.dumps({"object": "list", "data": data, "model": "text-embedding-3-small", **top}, indent=2).encode()


def float32_base64(*values: float) -> str:
    return base64.b64encode(struct.pack(f"<{len(values)}f", *values)).decode()


def embeddings_cases() -> None:
    p = OPENAI_EMBEDDINGS
    Done = unievent.EmbeddingDone
    usage = {"usage": {"prompt_tokens": 5, "total_tokens": 5}}
    case(p, "each_vector_is_one_item_in_index_order", "data[] entries become items in index order, whatever order they came in.",
         bytewise(embeddings_body((1, [0.5, 1]), (0, [-2.25]), **usage)), dones=[Done([-2.25]), Done([0.5, 1.0])],
         usage=Usage(None, 5, None, None), finish_reason="stop", end="complete")
    case(p, "base64_is_little_endian_float32", "A base64 embedding is little-endian float32, decoded exactly.",
         embeddings_body((0, float32_base64(0.1, -3.0)), **usage), dones=[Done([0.10000000149011612, -3.0])])
    case(p, "an_empty_vector_is_an_item", "An empty vector, as a list or as base64, is still an item.",
         embeddings_body((0, []), (1, "")), dones=[Done([]), Done([])], end="complete")
    case(p, "only_total_tokens_leaves_prompt_tokens_null", "prompt_tokens is usage.prompt_tokens; a total alone is no prompt count.",
         embeddings_body((0, [1]), usage={"total_tokens": 5}), usage=Usage(None, None, None, None))
    case(p, "an_error_body_fails", "An {error: ...} body ends the stream failed with the provider's type and code.",
         b'{"error": {"message": "bad key", "type": "invalid_request_error", "code": "invalid_api_key"}}',
         end="failed", error=("bad key", "invalid_request_error", "invalid_api_key"))
    case(p, "a_vector_that_is_not_numbers_fails", "A vector that is neither numbers nor base64 ends the stream failed naming it.",
         embeddings_body((0, ["x"])), end="failed", error_type="protocol_error", error_in="data[0].embedding is a list that is not all numbers")
    case(p, "a_cut_body_is_truncated", "A body cut short is truncated, with no half vector.",
         embeddings_body((0, [0.5, 0.25]))[:-20], end="truncated", dones=[])
    case(p, "a_body_that_is_not_json_is_kept", "A body that is no JSON is not an event stream, and kept.",
         b"upstream connect error", end="not_event_stream", body="upstream connect error")
    p = GEMINI_EMBEDDINGS
    case(p, "embed_content_is_one_item", "An embedContent body is one item; usage from usageMetadata.",
         split_at(b'{"embedding": {"values": [0.25, -1]}, "usageMetadata": {"promptTokenCount": 3}}', 20),
         dones=[Done([0.25, -1.0])], usage=Usage(None, 3, None, None), end="complete")
    case(p, "batch_embed_contents_is_an_item_per_embedding", "A batchEmbedContents body is one item per embedding, in order.",
         bytewise(b'{"embeddings": [{"values": [1]}, {"values": []}, {"values": [2, 3]}]}'),
         dones=[Done([1.0]), Done([]), Done([2.0, 3.0])], end="complete")
    case(p, "an_error_body_fails_with_its_status", "An error body fails with the status as type and the HTTP code.",
         b'{"error": {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED"}}', end="failed", error=("quota", "RESOURCE_EXHAUSTED", 429))
    case(p, "an_openai_body_is_named", "An OpenAI embeddings body given as Gemini fails saying what it looks like.",
         embeddings_body((0, [1])), end="failed", error_type="wrong_protocol",
         error_in="gemini_embeddings: the body looks like openai_embeddings, not gemini_embeddings")


# =========================================================================================
# Ollama (NDJSON)
# =========================================================================================

OLLAMA = "ollama"
O_AT = {"model": "qwen3:8b", "created_at": "2025-10-26T17:15:24.097767Z"}
O_COUNTS = {"total_duration": 182242375, "load_duration": 41295167, "prompt_eval_count": 26,
            "prompt_eval_duration": 24573166, "eval_count": 15, "eval_duration": 115959084}


def oline(obj: dict[str, Any]) -> bytes:
    """One line as Ollama's Go server writes it (`<`, `>`, `&` escaped)."""
    text = dumps(obj).encode()
    return text.replace(b"<", b"\\u003c").replace(b">", b"\\u003e").replace(b"&", b"\\u0026") + b"\n"


def ochat(content: str = "", done: bool = False, reason: str = "stop", **message: Any) -> bytes:
    line: dict[str, Any] = {**O_AT, "message": {"role": "assistant", "content": content, **message}, "done": done}
    if done:
        line.update({"done_reason": reason, **O_COUNTS})
    return oline(line)


def ogenerate(response: str = "", done: bool = False, **fields: Any) -> bytes:
    line: dict[str, Any] = {**O_AT, "response": response, **fields, "done": done}
    if done:
        line.update({"done_reason": "stop", "context": [1, 2, 3], **O_COUNTS})
    return oline(line)


def ollama_cases() -> None:
    p = OLLAMA
    answer = ochat(thinking="Let me") + ochat(thinking=" think.") + ochat("Gr\u00fc\u00dfe <b>") + ochat(" all.") + ochat(done=True)
    usage = Usage(None, 26, None, 15)
    case(p, "a_chat_stream_is_thinking_then_text_then_the_stop", "message.thinking is thinking, message.content text; the done line's counts are the usage.",
         cut_after(answer, (b"\xc3", 1), (b'"done":true', 4)), dones=[ThinkingDone("Let me think."), TextDone("Gr\u00fc\u00dfe <b> all.")],
         usage=usage, finish_reason="stop", native="stop", model="qwen3:8b", end="complete")
    calls = ochat("Checking.", tool_calls=[{"function": {"index": 0, "name": "get_weather", "arguments": {"city": "Tokyo", "days": 2}}},
                                          {"id": "call_k3j9x2ab", "function": {"index": 1, "name": "get_time", "arguments": {}}}])
    case(p, "tool_calls_arrive_whole_and_the_turn_is_a_tool_call", "Each call of message.tool_calls is one item, its arguments whole; a call without an id gets a made-up one; done_reason stop after calls is tool_call.",
         calls + ochat(done=True), calls=[("get_weather", "call_s1_1", {"city": "Tokyo", "days": 2}), ("get_time", "call_k3j9x2ab", {})],
         text="Checking.", finish_reason="tool_call", native="stop")
    case(p, "generate_lines_are_response_and_thinking", "A generate line's thinking is thinking, its response text.",
         bytewise(ogenerate(thinking="hm") + ogenerate("That") + ogenerate(" is it.", done=True)), thinking="hm", text="That is it.", end="complete")
    case(p, "done_reason_length_is_length", "done_reason length is the finish reason length.",
         ochat("a") + ochat(done=True, reason="length"), finish_reason="length", native="length")
    case(p, "an_error_line_fails_keeping_the_text", "A line {\"error\": ...} ends the stream failed with its message; the text that arrived is kept.",
         ogenerate("can") + oline({"error": "an error was encountered while running the model"}), end="failed",
         error=("an error was encountered while running the model", "error", None), text="can")
    case(p, "no_done_line_is_truncated", "A body without its done line was cut short.",
         ochat("Hel") + ochat("lo"), end="truncated", text="Hello", finish_reason=None)
    case(p, "ndjson_a_body_cut_inside_a_line_is_truncated", "A body that ends inside a line was cut: truncated, and no half call is offered.",
         ochat("a") + ochat(tool_calls=[{"function": {"index": 0, "name": "f", "arguments": {"q": 1}}}])[:-12], end="truncated", text="a", calls=[],
         anomalies={"cut_frame": 1})
    case(p, "ndjson_one_object_without_a_line_end", "A body that is one object without a line end (\"stream\": false) is a stream of one line.",
         ochat("Hello!", done=True)[:-1], text="Hello!", end="complete")
    case(p, "ndjson_crlf_and_blank_lines", "A \\r before the line end is whitespace; blank lines are nothing.",
         split_at((ochat("a") + b"\n" + ochat(done=True)).replace(b"\n", b"\r\n"), 60, 61), text="a", end="complete", skipped=0)
    case(p, "ndjson_a_line_that_is_no_object_is_skipped", "Inside the stream a line that is no JSON object is a junk frame, skipped and counted.",
         ochat("a") + b"data: [DONE]\n" + b'{"broken": \n' + ochat(done=True), text="a", end="complete", skipped=2)
    case(p, "ndjson_a_body_of_no_json_lines_is_kept", "A body whose lines are no JSON is not an event stream; its lines are kept.",
         b"<html>\n<body>502 Bad Gateway</body>\n</html>\n", end="not_event_stream", body="<html>\n<body>502 Bad Gateway</body>\n</html>")
    case(p, "ndjson_a_line_over_the_cap_raises", "A line longer than max_frame raises FrameTooLargeError, whole or in pieces; the lines before it are decoded.",
         split_at(ochat("a") + ochat("x" * 300), 150), {"max_frame": 200}, raises="FrameTooLargeError", end="failed", error_type="frame_too_large", text="a")


# =========================================================================================
# Cohere v2 chat
# =========================================================================================

COHERE = "cohere"
C_DONE = b"data: [DONE]\n\n"


def cframe(obj: dict[str, Any]) -> bytes:
    return f"event: {obj['type']}\ndata: {dumps(obj)}\n\n".encode()


def cstart() -> dict[str, Any]:
    empty = {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": [], "citations": []}
    return {"id": "3ec845ed-ebb1-4223-9648-4e5632d5c6b5", "type": "message-start", "delta": {"message": empty}}


def ccontent(index: int, text: str, kind: str = "text") -> list[dict[str, Any]]:
    return [
        {"type": "content-start", "index": index, "delta": {"message": {"content": {"type": kind, kind: ""}}}},
        {"type": "content-delta", "index": index, "delta": {"message": {"content": {kind: text}}}},
        {"type": "content-end", "index": index},
    ]


def cend(reason: str = "COMPLETE", **delta: Any) -> dict[str, Any]:
    usage = {"billed_units": {"input_tokens": 12, "output_tokens": 7}, "tokens": {"input_tokens": 507, "output_tokens": 10}, "cached_tokens": 448}
    return {"type": "message-end", "delta": {"finish_reason": reason, "usage": delta.pop("usage", usage), **delta}}


def cwire(*objs: dict[str, Any], done: bool = True) -> bytes:
    return b"".join(cframe(o) for o in objs) + (C_DONE if done else b"")


def cohere_cases() -> None:
    p = COHERE
    hello = cwire(cstart(), *ccontent(0, "Hi, w\u00f6rld"), cend())
    case(p, "a_text_block_is_one_text_item_then_the_stop", "content-delta text is text; message-end COMPLETE is stop; prompt_tokens are the input tokens not served from the cache.",
         cut_after(hello, (b"\xc3", 1), (b"[DONE]", 3)), dones=[TextDone("Hi, w\u00f6rld")], usage=Usage(448, 59, None, 10), finish_reason="stop",
         native="COMPLETE", extras={"billed_units": {"input_tokens": 12, "output_tokens": 7}, "response_id": "3ec845ed-ebb1-4223-9648-4e5632d5c6b5"}, end="complete")
    plan = [{"type": "tool-plan-delta", "delta": {"message": {"tool_plan": t}}} for t in ("I will", " check.")]
    call = [
        {"type": "tool-call-start", "index": 0, "delta": {"message": {"tool_calls": {"id": "get_weather_y46ar19t5gvw", "type": "function", "function": {"name": "get_weather", "arguments": ""}}}}},
        {"type": "tool-call-delta", "index": 0, "delta": {"message": {"tool_calls": {"function": {"arguments": '{"city": '}}}}},
        {"type": "tool-call-delta", "index": 0, "delta": {"message": {"tool_calls": {"function": {"arguments": '"Tokyo"}'}}}}},
        {"type": "tool-call-end", "index": 0},
    ]
    case(p, "the_tool_plan_is_thinking_and_a_call_streams_its_arguments", "tool-plan-delta is thinking, closed by the next frame of another kind; tool-call-delta fragments are the arguments; TOOL_CALL is tool_call.",
         bytewise(cwire(cstart(), *plan, *call, cend("TOOL_CALL"))), dones=[ThinkingDone("I will check."), ToolCallDone("get_weather", {"city": "Tokyo"}, "get_weather_y46ar19t5gvw")],
         finish_reason="tool_call", anomalies={})
    case(p, "thinking_then_text_are_two_items", "A thinking content block is thinking, the text block after it text.",
         cwire(cstart(), *ccontent(0, "2 + 2 = 4", "thinking"), *ccontent(1, "4."), cend(), done=False), dones=[ThinkingDone("2 + 2 = 4"), TextDone("4.")], end="complete")
    cited = {"start": 0, "end": 16, "text": "Emperor penguins", "sources": [{"type": "document", "id": "doc:0", "document": {"id": "doc:0", "title": "Tall penguins"}}], "type": "TEXT_CONTENT"}
    text = ccontent(0, "Emperor penguins are the tallest.")
    case(p, "citations_ride_on_their_text_item", "citation-start inside a text block is gathered and attached to its item as fidelity citations at content-end.",
         cwire(cstart(), *text[:2], {"type": "citation-start", "index": 0, "delta": {"message": {"citations": cited}}}, {"type": "citation-end", "index": 0}, text[2], cend()),
         dones=[TextDone("Emperor penguins are the tallest.", {"citations": [cited]})])
    case(p, "finish_reason_error_fails_with_its_error", "message-end with finish_reason ERROR ends the stream failed with its error string; the text that arrived is kept.",
         cwire(cstart(), *ccontent(0, "partial")[:2], cend("ERROR", usage={}, error="your request resulted in an invalid tool generation", error_type="INVALID_TOOL_GENERATION")),
         end="failed", error=("your request resulted in an invalid tool generation", "INVALID_TOOL_GENERATION", None), text="partial")
    case(p, "max_tokens_is_length", "MAX_TOKENS is the finish reason length.", cwire(cstart(), *ccontent(0, "a"), cend("MAX_TOKENS")), finish_reason="length", native="MAX_TOKENS")
    case(p, "done_before_message_end_is_truncated", "[DONE] (or the end of the body) before message-end: the stream was cut short.",
         cwire(cstart(), *ccontent(0, "a")), end="truncated", text="a")
    case(p, "a_stream_without_message_start_or_content_start_is_recovered", "A missing message-start and content-start are implied by the first delta, each noted once.",
         cwire({"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": "a"}}}}, {"type": "content-end", "index": 0}, cend()),
         text="a", end="complete", anomalies={"implied_message_start": 1, "implied_block_start": 1})
    case(p, "an_earlier_block_s_empty_delta_is_a_late_event",
         "An empty delta for a block that already ended changes nothing done: a side event of that block and the anomaly late_event.",
         cwire(cstart(), *ccontent(0, "a"), {"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": ""}}}}, *ccontent(1, "b"), cend()),
         end="complete", dones=[TextDone("a"), TextDone("b")], anomalies={"late_event": 1})
    case(p, "a_delta_for_a_block_that_ended_fails", "A delta for a block that already ended cannot be attributed: a protocol error naming the state and the event.",
         cwire(cstart(), *ccontent(0, "a"), {"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": "b"}}}}),
         end="failed", error_type="protocol_error", error_in=["content-delta for block 0, which already ended", "'message'"], text="a")


# =========================================================================================
# Amazon Bedrock (AWS event-stream framing)
# =========================================================================================

CONVERSE = "bedrock_converse"
INVOKE = "bedrock_invoke"


def aws_frame(headers: list[tuple[str, str]], payload: bytes) -> bytes:
    """One AWS event-stream frame with string headers, both CRC32s computed."""
    block = b"".join(bytes((len(n),)) + n.encode() + b"\x07" + struct.pack(">H", len(v.encode())) + v.encode() for n, v in headers)
    prelude = struct.pack(">II", 16 + len(block) + len(payload), len(block))
    message = prelude + struct.pack(">I", zlib.crc32(prelude)) + block + payload
    return message + struct.pack(">I", zlib.crc32(message))


def bevent(name: str, payload: dict[str, Any], pad: str = "abcdefgh") -> bytes:
    """A ConverseStream event as Bedrock writes it (keys sorted, the `p` padding)."""
    body = json.dumps({**payload, "p": pad}, separators=(",", ":"), sort_keys=True, ensure_ascii=False).encode()
    return aws_frame([(":event-type", name), (":content-type", "application/json"), (":message-type", "event")], body)


def bexception(kind: str, message: str) -> bytes:
    return aws_frame([(":exception-type", kind), (":content-type", "application/json"), (":message-type", "exception")], dumps({"message": message}).encode())


def btext(index: int, value: str) -> bytes:
    return bevent("contentBlockDelta", {"contentBlockIndex": index, "delta": {"text": value}})


def bstop(index: int) -> bytes:
    return bevent("contentBlockStop", {"contentBlockIndex": index})


B_START = bevent("messageStart", {"role": "assistant"})


def bend(reason: str = "end_turn", **usage: int) -> bytes:
    counts = {"inputTokens": 13, "outputTokens": 82, "totalTokens": 95, **usage}
    return bevent("messageStop", {"stopReason": reason}) + bevent("metadata", {"metrics": {"latencyMs": 522}, "usage": counts})


def bedrock_cases() -> None:
    p = CONVERSE
    hello = B_START + btext(0, "Hello, w\u00f6rld") + bstop(0) + bend()
    case(p, "a_text_block_without_a_start_then_the_stop_and_usage", "Text blocks begin with their first delta; the stop waits for metadata, whose usage it carries.",
         split_at(hello, 5, 150, 151, 300), dones=[TextDone("Hello, w\u00f6rld")], usage=Usage(None, 13, None, 82), finish_reason="stop", native="end_turn",
         extras={"metrics": {"latencyMs": 522}}, end="complete")
    case(p, "frames_split_at_every_byte", "Frames split anywhere decode the same.", bytewise(hello), text="Hello, w\u00f6rld", end="complete")
    reasoning = [bevent("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": m}}) for m in ({"text": "Hmm."}, {"signature": "Eu0CCkgIBxAB"})]
    tool = [
        bevent("contentBlockStart", {"contentBlockIndex": 1, "start": {"toolUse": {"name": "get_weather", "toolUseId": "tooluse_1"}}}),
        bevent("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"toolUse": {"input": '{"city":'}}}),
        bevent("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"toolUse": {"input": '"Tokyo"}'}}}),
        bstop(1),
    ]
    case(p, "reasoning_keeps_its_signature_and_a_tool_use_streams_its_input", "A reasoning signature is fidelity on its thinking item; toolUse input fragments are the call's arguments; tool_use is tool_call.",
         B_START + b"".join(reasoning) + bstop(0) + b"".join(tool) + bend("tool_use", cacheReadInputTokens=100, cacheWriteInputTokens=20),
         dones=[ThinkingDone("Hmm.", {"signature": "Eu0CCkgIBxAB"}), ToolCallDone("get_weather", {"city": "Tokyo"}, "tooluse_1")],
         usage=Usage(100, 33, None, 82), finish_reason="tool_call")
    case(p, "an_exception_fails_with_its_type_and_message", "An exception frame ends the stream failed with its exception type and message; the text that arrived is kept.",
         B_START + btext(0, "partial") + bexception("throttlingException", "Too many requests, please wait before trying again."),
         end="failed", error=("Too many requests, please wait before trying again.", "throttlingException", None), text="partial")
    bad = btext(0, "lost")
    bad = bad[:-1] + bytes((bad[-1] ^ 1,))
    case(p, "a_frame_whose_crc_fails_is_corrupt", "A frame whose message CRC does not match ends the stream failed (corrupt_frame); nothing after it is read.",
         B_START + btext(0, "kept") + bad + btext(0, "never") + bend(), end="failed",
         error=("corrupt event-stream frame: the message CRC does not match", "corrupt_frame", None), text="kept")
    case(p, "a_frame_cut_at_the_end_is_truncated", "A body that ends inside a frame was cut: truncated.",
         (B_START + btext(0, "a") + bstop(0) + bend())[:-40], end="truncated", text="a", anomalies={"no_metadata": 1, "cut_frame": 1})
    case(p, "the_end_without_metadata_is_complete_without_usage", "A body that ends after messageStop without its metadata is complete, without usage; noted.",
         B_START + btext(0, "a") + bstop(0) + bevent("messageStop", {"stopReason": "end_turn"}), end="complete", usage=Usage(None, None, None, None), anomalies={"no_metadata": 1})
    case(p, "no_message_stop_is_truncated", "No messageStop: the stream was cut short.", B_START + btext(0, "a"), end="truncated", text="a")
    case(p, "an_earlier_block_s_delta_that_changes_nothing_done_is_a_late_event",
         "A contentBlockDelta for a block that already stopped that carries no content (a kind not known yet, an empty one) changes nothing done: a side event of that block and the anomaly late_event.",
         B_START + btext(0, "a") + bstop(0) + bevent("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"text": ""}}) + btext(1, "b") + bstop(1) + bend(),
         end="complete", dones=[TextDone("a"), TextDone("b")], anomalies={"late_event": 1})
    case(p, "a_body_that_is_no_event_stream_is_kept", "A body whose first 12 bytes are no prelude is not an event stream, and kept.",
         b"<html>502 Bad Gateway</html>", end="not_event_stream", body="<html>502 Bad Gateway</html>")
    case(p, "a_length_over_the_cap_raises", "A prelude whose length is over max_frame raises FrameTooLargeError before the frame is gathered; the frames before it are decoded.",
         split_at(B_START + btext(0, "a") + btext(0, "x" * 300), 200), {"max_frame": 250}, raises="FrameTooLargeError", end="failed", error_type="frame_too_large", text="a")
    p = INVOKE
    claude = [
        {"type": "message_start", "message": {"model": "claude-sonnet-4-5-20250929", "id": "msg_bdrk_01", "type": "message", "role": "assistant", "content": [], "usage": {"input_tokens": 10, "output_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": "Hi"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 15}},
        {"type": "message_stop", "amazon-bedrock-invocationMetrics": {"inputTokenCount": 10, "outputTokenCount": 15, "invocationLatency": 1798, "firstByteLatency": 1507}},
    ]
    frames = [
        aws_frame([(":event-type", "chunk"), (":content-type", "application/json"), (":message-type", "event")],
                  dumps({"bytes": base64.b64encode(dumps(o).encode()).decode(), "p": "abcdefghijklmnopqr"}).encode())
        for o in claude
    ]
    chunks = b"".join(frames)
    case(p, "claude_events_inside_chunks_decode_as_anthropic", "Each chunk's base64 bytes are an Anthropic event, decoded as Anthropic's stream; the invocation metrics are kept.",
         split_at(chunks, 100, 400), text="Hi", usage=Usage(None, 10, None, 15), finish_reason="stop", model="claude-sonnet-4-5-20250929",
         extras={"invocation_metrics": {"inputTokenCount": 10, "outputTokenCount": 15, "invocationLatency": 1798, "firstByteLatency": 1507}}, end="complete")
    case(p, "an_exception_fails_the_stream", "An exception frame (modelTimeoutException here) ends the stream failed with its type and message.",
         b"".join(frames[:3]) + bexception("modelTimeoutException", "Model has timed out"), end="failed",
         error=("Model has timed out", "modelTimeoutException", None), text="Hi")


gemini_cases()
interactions_cases()
mmsp_cases()
embeddings_cases()
ollama_cases()
cohere_cases()
bedrock_cases()


# =========================================================================================
# Logprobs (fidelity of the text item) and Chat custom tool calls
# =========================================================================================


def ctoken(text: str, logprob: float) -> dict[str, Any]:
    """A Chat Completions (and Responses) token entry, as OpenAI writes it."""
    return {"token": text, "logprob": logprob, "bytes": list(text.encode()), "top_logprobs": []}


def scored(frame: dict[str, Any], content: list[Any] | None = None, refusal: list[Any] | None = None) -> dict[str, Any]:
    frame["choices"][0]["logprobs"] = {"content": content, "refusal": refusal}
    return frame


def fidelity_cases() -> None:
    p = CHAT
    hel, lo = ctoken("Hel", -0.25), ctoken("lo", -0.01)
    case(p, "logprobs_ride_on_the_text_item_joined_in_order",
         "choices[].logprobs.content entries of the text's chunks are joined in order and ride on the text item as fidelity {logprobs} on one empty delta before its done.",
         sse(scored(chunk({"role": "assistant", "content": ""}), []), scored(chunk({"content": "Hel"}), [hel]), scored(chunk({"content": "lo"}), [lo]), chunk({}, finish="stop")),
         items=[TextDelta("Hel"), TextDelta("lo"), TextDelta("", {"logprobs": [hel, lo]}), TextDone("Hello", {"logprobs": [hel, lo]})], anomalies={})
    no = ctoken("No.", -0.1)
    case(p, "a_refusal_with_logprobs_is_held_and_carries_them",
         "A refusal whose chunks carry logprobs.refusal is held whole: one delta with its text and {refusal: true, logprobs}, then its done.",
         sse(scored(chunk({"refusal": "No"}), None, [ctoken("No", -0.1)]), scored(chunk({"refusal": "."}), None, [ctoken(".", -0.2)]), chunk({}, finish="stop")),
         items=[TextDelta("No.", {"refusal": True, "logprobs": [ctoken("No", -0.1), ctoken(".", -0.2)]}), TextDone("No.", {"refusal": True, "logprobs": [ctoken("No", -0.1), ctoken(".", -0.2)]})])
    case(p, "logprobs_of_reasoning_tokens_have_no_text_item",
         "Logprobs on a chunk that feeds no text item (reasoning tokens here) have nothing to ride on: the anomaly logprobs_without_text counts them.",
         sse(scored(chunk({"reasoning_content": "hm"}), [ctoken("hm", -1.0)]), scored(chunk({"content": "ok"}), [no]), chunk({}, finish="stop")),
         dones=[ThinkingDone("hm", {"reasoning_field": "reasoning_content"}), TextDone("ok", {"logprobs": [no]})], anomalies={"logprobs_without_text": 1})
    shell = {"index": 0, "id": "call_c1", "type": "custom", "custom": {"name": "shell", "input": ""}}
    case(p, "a_custom_tool_call_is_a_tool_call_with_its_input_as_arguments",
         "A custom tool's tool-call delta (type custom, custom.name, custom.input) is a tool call: its arguments {input: text}, the input streamed escaped inside that JSON text, fidelity {item_type: custom}; the finish is tool_call.",
         sse(tools(shell), tools({"index": 0, "custom": {"input": 'echo "hi"'}}), chunk({}, finish="tool_calls")),
         items=[ToolCallDelta("shell", '{"input":"', "call_c1", {"item_type": "custom"}), ToolCallDelta("", 'echo \\"hi\\"', ""), ToolCallDelta("", '"}', ""),
                ToolCallDone("shell", {"input": 'echo "hi"'}, "call_c1", {"item_type": "custom"})],
         finish_reason="tool_call", anomalies={})
    case(p, "an_empty_custom_beside_a_function_is_a_function_call",
         "A gateway that echoes an empty `custom` on a function call's fragments still streams a function call.",
         sse(tools({**call(0, "call_f1", "f", "{}"), "custom": {}}), tools({"index": 0, "custom": {}}), chunk({}, finish="tool_calls")),
         dones=[ToolCallDone("f", {}, "call_f1")], anomalies={})
    case(p, "a_reasoning_count_larger_than_the_completion_is_outside_it_whatever_the_total_says",
         "reasoning_tokens 84 cannot be inside completion_tokens 9, even though total_tokens 37 = prompt 28 + completion 9: the response count is 9, never negative, and no anomaly.",
         sse(chunk({"content": "a"}, finish="stop"), {"choices": [], "usage": {"prompt_tokens": 28, "completion_tokens": 9, "total_tokens": 37, "prompt_tokens_details": {"cached_tokens": 0}, "completion_tokens_details": {"reasoning_tokens": 84}}}),
         usage=Usage(0, 28, 84, 9), anomalies={})

    p = RESPONSES
    the, capital = ctoken("The", -1.9e-07), ctoken(" capital", 0.0)
    where = {"item_id": "msg_1", "output_index": 0, "content_index": 0}
    begin = {"id": "msg_1", "type": "message", "status": "in_progress", "content": [], "role": "assistant", "phase": "final_answer"}
    final = {**begin, "status": "completed", "content": [{"type": "output_text", "annotations": [], "logprobs": [ctoken("The", -0.0), capital], "text": "The capital"}]}
    scored_message = [
        added(0, begin),
        {"type": "response.output_text.delta", **where, "delta": "The", "logprobs": [the]},
        {"type": "response.output_text.delta", **where, "delta": " capital", "logprobs": [capital]},
        {"type": "response.output_text.done", **where, "text": "The capital", "logprobs": [the, capital]},
        item_done(0, final),
    ]
    case(p, "logprobs_of_the_text_deltas_ride_with_the_phase_on_the_text_item",
         "output_text.delta logprobs are joined in order (the done item's rounded copies are not read) and ride on the text item with the message's phase, which waits for them: one empty delta before the done.",
         rsse(created(), *scored_message, completed()),
         items=[TextDelta("The"), TextDelta(" capital"), TextDelta("", {"phase": "final_answer", "logprobs": [the, capital]}),
                TextDone("The capital", {"phase": "final_answer", "logprobs": [the, capital]})], anomalies={})
    case(p, "reasoning_text_the_done_item_lists_nowhere_has_channel_none",
         "A reasoning item whose text streamed while its done item lists it in neither summary nor content has fidelity channel none (written back, its done lists none either).",
         rsse(created(), added(0, {"id": "rs_1", "type": "reasoning", "summary": []}),
              {"type": "response.reasoning_summary_text.delta", "item_id": "rs_1", "output_index": 0, "summary_index": 0, "delta": "hm"},
              item_done(0, {"id": "rs_1", "type": "reasoning", "summary": [], "encrypted_content": "gA"}), *message(1, "ok", "msg_1"), completed()),
         dones=[ThinkingDone("hm", {"encrypted_content": "gA", "reasoning_id": "rs_1", "channel": "none"}), TextDone("ok")])

    p = GEMINI
    hel_g, lo_g = {"token": "Hel", "logProbability": -0.1}, {"token": "lo", "logProbability": -0.01}
    tops = [{"candidates": [hel_g, {"token": "Hi", "logProbability": -2.5}]}, {"candidates": [lo_g]}]

    def marked(parts: list[Any], chosen: list[Any], top: list[Any], finish: str | None = None) -> dict[str, Any]:
        record = grecord(parts, finish)
        record["candidates"][0]["logprobsResult"] = {"topCandidates": top, "chosenCandidates": chosen}
        return record

    last = grecord([{"text": "", "thoughtSignature": "ZW5k"}], "STOP")
    last["candidates"][0]["avgLogprobs"] = -0.055
    fidelity = {"signature": "ZW5k", "logprobs": [hel_g, lo_g], "top_logprobs": tops, "avg_logprobs": -0.055}
    records = (marked([{"text": "Hel"}], [hel_g], tops[:1]), marked([{"text": "lo"}], [lo_g], tops[1:]), last)
    case(p, "logprobs_and_their_average_ride_on_the_text_item",
         "logprobsResult chosenCandidates and topCandidates are joined in order and ride with the last avgLogprobs on the text item as {logprobs, top_logprobs, avg_logprobs}; the signature of that item waits to ride with them.",
         gsse(*records), items=[TextDelta("Hel"), TextDelta("lo"), TextDelta("", fidelity), TextDone("Hello", fidelity)], anomalies={})
    case(p, "logprobs_in_a_pretty_printed_json_array",
         "The same in the streamed JSON array, pretty-printed, cut byte by byte.",
         bytewise(garray(*records)), dones=[TextDone("Hello", fidelity)], anomalies={})
    case(p, "a_records_logprobs_stay_with_its_text_when_a_call_follows",
         "A record with a text part then a function call: its logprobs ride on the text item, closed before the call.",
         gsse(marked([{"text": "ok"}, {"functionCall": {"name": "f", "args": {}, "id": "c1"}}], [hel_g, lo_g], [], "STOP")),
         dones=[TextDone("ok", {"logprobs": [hel_g, lo_g]}), ToolCallDone("f", {}, "c1")], finish_reason="tool_call")


fidelity_cases()


# =========================================================================================
# The provider's response id
# =========================================================================================


def response_id_cases() -> None:
    case(CHAT, "the_response_id_is_the_first_chunk_s_non_empty_id",
         "Outcome.response_id is the first non-empty chunk id: Azure's first chunk has an empty one, and a gateway that varies it per chunk keeps the first.",
         sse(chunk(id="", choices=[], prompt_filter_results=[]), chunk({"role": "assistant", "content": "Hi"}, id="chatcmpl-A"),
             chunk({"content": "!"}, id="chatcmpl-B"), chunk({}, finish="stop", id="chatcmpl-C")),
         response_id="chatcmpl-A", text="Hi!", end="complete")
    case(CHAT, "a_chunk_id_that_is_no_string_is_ignored", "A chunk id that is no string is no response id; a later string one is.",
         sse(chunk({"role": "assistant", "content": "Hi"}, id=7), chunk({}, finish="stop", id="chatcmpl-1")),
         response_id="chatcmpl-1", end="complete")
    first = message_start()
    second = message_start()
    second["message"]["id"] = "msg_02"
    case(ANTHROPIC, "several_messages_keep_the_first_message_s_id",
         "Outcome.response_id is message_start's message.id; of several messages in one response, the first's.",
         wire(first, start(0, TEXT), text_delta(0, "a"), stop(0), message_delta(None), second, start(0, TEXT), text_delta(0, "b"), stop(0), message_delta(), MESSAGE_STOP),
         response_id="msg_01", end="complete")
    unnamed = message_start()
    unnamed["message"]["id"] = {"id": "msg_01"}
    case(ANTHROPIC, "a_message_id_that_is_no_string_is_ignored", "A message.id that is no string leaves the response id null.",
         wire(unnamed, start(0, TEXT), text_delta(0, "a"), stop(0), message_delta(), MESSAGE_STOP), response_id=None, end="complete")
    case(RESPONSES, "the_response_id_is_response_created_s",
         "Outcome.response_id is the response's id as response.created names it (extras response_id keeps it too).",
         rsse(created(), *message(0, "Hi"), completed()), response_id="resp_1", extras={"response_id": "resp_1"}, end="complete")
    case(GEMINI, "the_response_id_is_the_first_record_s_response_id", "Outcome.response_id is the first record's responseId.",
         gsse(grecord([{"text": "Hi"}]), grecord([{"text": "!"}], "STOP", responseId="r2")), response_id="r1", text="Hi!", end="complete")
    case(INTERACTIONS, "the_response_id_is_the_interaction_s_id", "Outcome.response_id is the interaction's id (extras interaction_id keeps it too).",
         iframe("interaction.created", interaction={"id": "v1_x", "status": "in_progress", "model": "gemini-3-flash"})
         + iframe("interaction.completed", interaction={"id": "v1_x", "status": "completed"}) + I_DONE,
         response_id="v1_x", extras={"interaction_id": "v1_x"}, end="complete")
    case(COHERE, "the_response_id_is_message_start_s_id", "Outcome.response_id is message-start's id.",
         cwire(cstart(), *ccontent(0, "Hi"), cend()), response_id="3ec845ed-ebb1-4223-9648-4e5632d5c6b5", end="complete")
    case(OLLAMA, "ollama_names_no_response_id", "Ollama's lines carry no id: Outcome.response_id is null.",
         ochat("Hi") + ochat(done=True), response_id=None, end="complete")


response_id_cases()


# --- the command ------------------------------------------------------------------------


def build() -> dict[str, str]:
    """Every case file's name and text; raises CaseError when a case breaks its rule."""
    names = [c.name for c in CASES]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    if duplicates:
        raise ValueError(f"duplicate case names: {duplicates}")
    files: dict[str, str] = {}
    errors: list[str] = []
    for case_ in CASES:
        try:
            files[case_.name + ".json"] = render(case_json(case_))
        except CaseError as error:
            errors.append(str(error))
    if errors:
        raise SystemExit("cases whose output contradicts their rule:\n  " + "\n  ".join(errors))
    return files


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--check", action="store_true", help="write nothing; exit 1 if any case file is not up to date")
    args = parser.parse_args(argv)
    files = build()
    present = {path.name for path in HERE.glob("*__*.json")}
    stale = sorted(present - set(files))
    changed = sorted(name for name, text in files.items() if name not in present or (HERE / name).read_bytes() != text.encode())
    if args.check:
        for name in changed:
            print(f"out of date: {name}" if name in present else f"missing: {name}")
        for name in stale:
            print(f"no such case: {name}")
        if changed or stale:
            print("run: python tests/conformance/build.py", file=sys.stderr)
            return 1
        print(f"{len(files)} case files up to date")
        return 0
    for name in changed:
        (HERE / name).write_bytes(files[name].encode())
    for name in stale:
        (HERE / name).unlink()
    print(f"{len(files)} cases: {len(changed)} written, {len(stale)} removed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
