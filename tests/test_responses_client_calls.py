"""Calls the client must answer (OpenAI Responses): whoever must act next decides.

A custom tool's call, a computer call, a local shell call, a shell call in the client's
own environment, an apply_patch call and an MCP approval request each wait for the
client's answer, so each is a tool call: a name, the id its answer names, its arguments
as a JSON object, fidelity naming the item type, and the finish `tool_call`.  Tools the
server runs itself (web and file search, code interpreter, image generation, MCP calls
and tool lists, a shell in a hosted container) stay on the side channel.

Each stream is written the way OpenAI sends it (`event:` and `data:` lines, sequence
numbers; CRLF line ends for one) and decoded whole, byte by byte and in random pieces,
with the fast paths on and off, every result checked against the UniEvent grammar.  The
writer writes each call back as the item it came as, replay sends it back as that
item, and a tool result is the item that answers it, all checked against the OpenAI
SDK's own types.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest

import unievent
from tests.helpers import decode_stream, decoder_on_path
from unievent import (
    DeltaEvent,
    Message,
    Outcome,
    SideEvent,
    StopEvent,
    TextDone,
    ToolCallDelta,
    ToolCallDone,
    Usage,
)

OPEN_WORLD = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus-open-world"

# --- the wire ------------------------------------------------------------------------------

MODEL = "gpt-5.1-codex"
USAGE = {
    "input_tokens": 120,
    "input_tokens_details": {"cached_tokens": 0},
    "output_tokens": 30,
    "output_tokens_details": {"reasoning_tokens": 0},
    "total_tokens": 150,
}


def wire(*frames: dict[str, Any], crlf: bool = False) -> bytes:
    """Events as OpenAI sends them: an `event:` line, a `data:` line whose JSON carries
    the next sequence number, a blank line."""
    out = []
    for seq, frame in enumerate(frames):
        data = json.dumps({**frame, "sequence_number": seq}, ensure_ascii=False)
        out.append(f"event: {frame['type']}\ndata: {data}\n\n")
    text = "".join(out)
    return (text.replace("\n", "\r\n") if crlf else text).encode()


def response(status: str, output: list[dict[str, Any]] | None = None, **fields: Any) -> dict[str, Any]:
    return {"id": "resp_1", "object": "response", "status": status, "model": MODEL, "output": output or [], **fields}


def created() -> dict[str, Any]:
    return {"type": "response.created", "response": response("in_progress")}


def completed(output: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {"type": "response.completed", "response": response("completed", output, usage=USAGE)}


def added(index: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.added", "output_index": index, "item": item}


def done(index: int, item: dict[str, Any]) -> dict[str, Any]:
    return {"type": "response.output_item.done", "output_index": index, "item": item}


def message(index: int, text: str) -> list[dict[str, Any]]:
    start = {"id": f"msg_{index}", "type": "message", "status": "in_progress", "role": "assistant", "content": []}
    where = {"item_id": f"msg_{index}", "output_index": index, "content_index": 0}
    part = {"type": "output_text", "text": text, "annotations": []}
    return [
        added(index, start),
        {"type": "response.output_text.delta", **where, "delta": text},
        done(index, {**start, "status": "completed", "content": [part]}),
    ]


# --- the items the client answers, in the SDK's shapes ---------------------------------------

PATCH = '*** Begin Patch\n*** Update File: app.py\n@@\n-print("hi")\n+print("héllo 🌍\\t")\n*** End Patch\n'
CUSTOM: dict[str, Any] = {
    "id": "ctc_1",
    "type": "custom_tool_call",
    "status": "completed",
    "call_id": "call_ctc",
    "name": "apply_patch",
    "input": PATCH,
}
COMPUTER: dict[str, Any] = {
    "id": "cu_1",
    "type": "computer_call",
    "call_id": "call_cu",
    "status": "completed",
    "action": {"type": "click", "button": "left", "x": 120, "y": 48},
    "pending_safety_checks": [{"id": "sc_1", "code": "malicious_instructions", "message": "Check the page."}],
}
LOCAL_SHELL: dict[str, Any] = {
    "id": "lsh_1",
    "type": "local_shell_call",
    "call_id": "call_lsh",
    "status": "completed",
    "action": {"type": "exec", "command": ["ls", "-la"], "env": {}, "timeout_ms": 1000, "working_directory": "/tmp"},
}
SHELL: dict[str, Any] = {
    "id": "sh_1",
    "type": "shell_call",
    "call_id": "call_sh",
    "status": "completed",
    "action": {"commands": ["pwd", "ls"], "max_output_length": 4096, "timeout_ms": None},
}
APPLY_PATCH: dict[str, Any] = {
    "id": "apc_1",
    "type": "apply_patch_call",
    "call_id": "call_apc",
    "status": "completed",
    "operation": {"type": "update_file", "path": "app.py", "diff": '@@\n-print("hi")\n+print("bye")\n'},
}
APPROVAL: dict[str, Any] = {
    "id": "mcpr_1",
    "type": "mcp_approval_request",
    "server_label": "deepwiki",
    "name": "ask_question",
    "arguments": '{"repoName":"openai/codex","question":"What is apply_patch?"}',
}

#: what each item becomes: its name, the id its answer names, its arguments, its fidelity
AS_CALL: dict[str, tuple[str, str, dict[str, Any], dict[str, Any]]] = {
    "custom_tool_call": ("apply_patch", "call_ctc", {"input": PATCH}, {"item_type": "custom_tool_call"}),
    "computer_call": (
        "computer_call",
        "call_cu",
        {"action": COMPUTER["action"], "pending_safety_checks": COMPUTER["pending_safety_checks"]},
        {"item_type": "computer_call", "call_item_id": "cu_1"},
    ),
    "local_shell_call": (
        "local_shell_call",
        "call_lsh",
        {"action": LOCAL_SHELL["action"]},
        {"item_type": "local_shell_call", "call_item_id": "lsh_1"},
    ),
    "shell_call": ("shell_call", "call_sh", {"action": SHELL["action"]}, {"item_type": "shell_call"}),
    "apply_patch_call": (
        "apply_patch_call",
        "call_apc",
        {"operation": APPLY_PATCH["operation"]},
        {"item_type": "apply_patch_call"},
    ),
    "mcp_approval_request": (
        "mcp_approval_request",
        "mcpr_1",
        {"server_label": "deepwiki", "name": "ask_question", "arguments": APPROVAL["arguments"]},
        {"item_type": "mcp_approval_request"},
    ),
}
ITEMS = {item["type"]: item for item in (CUSTOM, COMPUTER, LOCAL_SHELL, SHELL, APPLY_PATCH, APPROVAL)}


def call_of(kind: str) -> ToolCallDone:
    """The tool call an item of `kind` (as ITEMS has it) becomes."""
    name, call_id, arguments, fidelity = AS_CALL[kind]
    return ToolCallDone(name, arguments, call_id, fidelity)


def opening(item: dict[str, Any]) -> dict[str, Any]:
    """The item as output_item.added shows it: in progress, its streamed text empty."""
    start = {**item}
    if "status" in start:
        start["status"] = "in_progress"
    if item["type"] == "custom_tool_call":
        start["input"] = ""
    if item["type"] == "apply_patch_call":
        start["operation"] = {**item["operation"], "diff": ""}
    return start


def pieces_of(text: str, size: int) -> list[str]:
    return [text[i : i + size] for i in range(0, len(text), size)]


def custom_call(index: int, item: dict[str, Any] = CUSTOM, size: int = 9) -> list[dict[str, Any]]:
    """A custom tool's call: its input in deltas, the input's done, the item's done."""
    where = {"item_id": item["id"], "output_index": index}
    deltas = [
        {"type": "response.custom_tool_call_input.delta", **where, "delta": p} for p in pieces_of(item["input"], size)
    ]
    finish = {"type": "response.custom_tool_call_input.done", **where, "input": item["input"]}
    return [added(index, opening(item)), *deltas, finish, done(index, item)]


def patch_call(index: int, item: dict[str, Any] = APPLY_PATCH, size: int = 7) -> list[dict[str, Any]]:
    """An apply_patch call as OpenAI streams it: the diff in deltas, then whole."""
    where = {"item_id": item["id"], "output_index": index}
    diff = item["operation"]["diff"]
    deltas = [
        {"type": "response.apply_patch_call_operation_diff.delta", **where, "delta": p} for p in pieces_of(diff, size)
    ]
    finish = {"type": "response.apply_patch_call_operation_diff.done", **where, "diff": diff}
    return [added(index, opening(item)), *deltas, finish, done(index, item)]


def whole_call(index: int, item: dict[str, Any]) -> list[dict[str, Any]]:
    """An item that streams nothing of its own: added, then done with the whole item."""
    return [added(index, opening(item)), done(index, item)]


def stream_of(item: dict[str, Any], crlf: bool = False) -> bytes:
    kind = item["type"]
    frames = (
        custom_call(0, item)
        if kind == "custom_tool_call"
        else patch_call(0, item)
        if kind == "apply_patch_call"
        else whole_call(0, item)
    )
    return wire(created(), *frames, completed([item]), crlf=crlf)


# --- decoding ----------------------------------------------------------------------------------


def decode(body: bytes, pieces: list[bytes] | None = None, slow: bool = False) -> tuple[list[Any], Outcome]:
    """Events (side events inline) and outcome, the events checked against the grammar."""
    decoder = decoder_on_path("openai_responses", slow, stream_id="s", clock=lambda: 0, side_events=True)
    events: list[Any] = []
    for piece in pieces if pieces is not None else [body]:
        events += decoder.push(piece)
    last, outcome = decoder.finish()
    events += last
    unievent.validate(events, partial=outcome.end != "complete")
    return events, outcome


def decode_every_way(body: bytes) -> tuple[list[Any], Outcome]:
    """The body whole, byte by byte and in random pieces, on both paths: one result."""
    whole = decode(body)
    rng = random.Random(len(body))
    for slow in (False, True):
        assert decode(body, slow=slow) == whole
        assert decode(body, [body[i : i + 1] for i in range(len(body))], slow) == whole
        for _ in range(12):
            cuts = sorted(rng.sample(range(1, len(body)), k=rng.randint(1, 30)))
            pieces = [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]
            assert decode(body, pieces, slow) == whole, cuts
    return whole


def items(events: list[Any]) -> list[Any]:
    return [e.item for e in events if isinstance(e, DeltaEvent)]


def calls(outcome: Outcome) -> list[ToolCallDone]:
    return [i for i in outcome.message.items if isinstance(i, ToolCallDone)]


def side_kinds(events: list[Any]) -> list[str]:
    return [e.kind for e in events if isinstance(e, SideEvent)]


def arguments_text(events: list[Any]) -> str:
    return "".join(i.arguments for i in items(events) if isinstance(i, ToolCallDelta))


def sdk(name: str) -> Any:
    """A TypeAdapter of one of the OpenAI SDK's Responses types (skip without it)."""
    pydantic = pytest.importorskip("pydantic")
    responses = pytest.importorskip("openai.types.responses")
    return pydantic.TypeAdapter(getattr(responses, name))


# --- each item the client answers is a tool call ---------------------------------------------------


def test_a_custom_tool_call_is_a_tool_call_whose_input_streams_as_json_text() -> None:
    events, outcome = decode_every_way(stream_of(CUSTOM, crlf=True))
    first, *fragments = [i for i in items(events) if isinstance(i, ToolCallDelta)]
    # announced at output_item.added, with the item type as fidelity
    assert first == ToolCallDelta("apply_patch", "", "call_ctc", {"item_type": "custom_tool_call"})
    # each input delta goes out as it arrives, escaped inside the JSON text `{"input": ...}`
    assert fragments[0].arguments.startswith('{"input":"*** Begin')
    assert [f.arguments for f in fragments[1:-1]] == [
        json.dumps(p, ensure_ascii=False)[1:-1] for p in pieces_of(PATCH, 9)[1:]
    ]
    assert fragments[-1].arguments == '"}'
    assert json.loads(arguments_text(events)) == {"input": PATCH}
    assert calls(outcome) == [call_of("custom_tool_call")]
    assert outcome.end == "complete" and outcome.finish_reason == "tool_call"
    assert outcome.native_finish_reason == "completed"
    assert side_kinds(events) == []  # a call is never also a side event


@pytest.mark.parametrize("kind", sorted(AS_CALL))
def test_each_item_the_client_answers_is_a_tool_call_named_by_its_item_type(kind: str) -> None:
    events, outcome = decode_every_way(stream_of(ITEMS[kind]))
    name, call_id, _arguments, fidelity = AS_CALL[kind]
    assert calls(outcome) == [call_of(kind)]
    assert items(events)[0] == ToolCallDelta(name, "", call_id, fidelity)  # as soon as the item is added
    assert outcome.finish_reason == "tool_call"
    assert side_kinds(events) == []


def test_an_apply_patch_diff_streams_inside_its_operation() -> None:
    events, _ = decode_every_way(stream_of(APPLY_PATCH))
    fragments = [i.arguments for i in items(events) if isinstance(i, ToolCallDelta)]
    assert fragments[1] == '{"operation":{"type":"update_file","path":"app.py","diff":"@@\\n-pri'
    assert fragments[-1] == '"}}'
    assert json.loads("".join(fragments)) == {"operation": APPLY_PATCH["operation"]}


@pytest.mark.parametrize("how", ["input done only", "item done only"])
def test_a_custom_input_that_arrives_whole_goes_out_as_one_fragment(how: str) -> None:
    where = {"item_id": "ctc_1", "output_index": 0}
    frames = [added(0, opening(CUSTOM))]
    if how == "input done only":
        frames.append({"type": "response.custom_tool_call_input.done", **where, "input": PATCH})
    frames.append(done(0, CUSTOM))
    events, outcome = decode_every_way(wire(created(), *frames, completed()))
    assert json.loads(arguments_text(events)) == {"input": PATCH}
    assert len([i for i in items(events) if isinstance(i, ToolCallDelta)]) == (3 if how == "input done only" else 2)
    assert calls(outcome)[0].arguments == {"input": PATCH}


def test_the_fidelity_keeps_what_writing_the_item_back_needs() -> None:
    program = {"type": "program", "caller_id": "prog_1"}
    custom = {**CUSTOM, "namespace": "editor", "caller": program}
    local = {**SHELL, "environment": {"type": "local"}}
    _events, outcome = decode_every_way(wire(created(), *custom_call(0, custom), *whole_call(1, local), completed()))
    assert [c.fidelity for c in calls(outcome)] == [
        {"item_type": "custom_tool_call", "namespace": "editor", "caller": program},
        {"item_type": "shell_call", "environment": {"type": "local"}},
    ]
    assert outcome.finish_reason == "tool_call"


def test_a_call_among_server_tools_reasoning_and_text_still_finishes_tool_call() -> None:
    search = {
        "id": "ws_1",
        "type": "web_search_call",
        "status": "completed",
        "action": {"type": "search", "query": "x"},
    }
    reasoning = {"id": "rs_1", "type": "reasoning", "summary": []}
    body = wire(
        created(),
        added(0, reasoning),
        done(0, {**reasoning, "encrypted_content": "gAAA"}),
        *whole_call(1, search),
        *message(2, "Let me fix that."),
        *custom_call(3),
        completed(),
    )
    events, outcome = decode_every_way(body)
    assert [type(i).__name__ for i in outcome.message.items] == ["ThinkingDone", "TextDone", "ToolCallDone"]
    assert side_kinds(events) == ["web_search_call", "web_search_call"]
    assert outcome.finish_reason == "tool_call"


# --- tools the server runs stay on the side channel --------------------------------------------------


SERVER_ITEMS: list[dict[str, Any]] = [
    {"id": "ws_1", "type": "web_search_call", "status": "completed", "action": {"type": "search", "query": "q"}},
    {"id": "fs_1", "type": "file_search_call", "status": "completed", "queries": ["q"], "results": None},
    {
        "id": "ci_1",
        "type": "code_interpreter_call",
        "status": "completed",
        "code": "1+1",
        "container_id": "cntr_1",
        "outputs": None,
    },
    {"id": "ig_1", "type": "image_generation_call", "status": "failed", "result": None},  # a made image: inline_data
    {
        "id": "mcp_1",
        "type": "mcp_call",
        "server_label": "deepwiki",
        "name": "ask_question",
        "arguments": "{}",
        "output": "ok",
    },
    {"id": "mcpl_1", "type": "mcp_list_tools", "server_label": "deepwiki", "tools": []},
    {**SHELL, "environment": {"type": "container_reference", "container_id": "cntr_1"}},
    {
        "id": "sho_1",
        "type": "shell_call_output",
        "call_id": "call_sh",
        "status": "completed",
        "output": [{"stdout": "/mnt/data\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}],
    },
]


def test_tools_the_server_runs_stay_on_the_side_channel() -> None:
    frames = [frame for n, item in enumerate(SERVER_ITEMS) for frame in whole_call(n, item)]
    events, outcome = decode_every_way(wire(created(), *frames, *message(len(SERVER_ITEMS), "Done."), completed()))
    assert outcome.message.items == (TextDone("Done."),)
    assert outcome.finish_reason == "stop"
    assert side_kinds(events) == [kind for item in SERVER_ITEMS for kind in (item["type"],) * 2]


def test_a_hosted_shell_s_own_events_are_its_progress_on_the_side_channel() -> None:
    hosted = {**SHELL, "environment": {"type": "container_reference", "container_id": "cntr_1"}}
    where = {"output_index": 0, "item_id": "sh_1"}
    command = {"type": "response.shell_call_command.delta", **where, "command_index": 0, "delta": "pwd"}
    events, outcome = decode_every_way(
        wire(created(), added(0, opening(hosted)), command, done(0, hosted), completed())
    )
    assert [(e.kind, e.phase) for e in events if isinstance(e, SideEvent)] == [
        ("shell_call", "start"),
        ("shell_call", "delta"),
        ("shell_call", "done"),
    ]
    assert calls(outcome) == [] and outcome.finish_reason == "stop"


def test_a_client_call_s_own_progress_events_go_to_the_side_channel() -> None:
    where = {"output_index": 0, "item_id": "sh_1"}
    command = {"type": "response.shell_call_command.delta", **where, "command_index": 0, "delta": "pwd"}
    stray = {"type": "response.custom_tool_call_input.delta", **where, "delta": "text"}
    stray_done = {"type": "response.custom_tool_call_input.done", **where, "input": "text"}
    body = wire(created(), added(0, opening(SHELL)), command, stray, stray_done, done(0, SHELL), completed())
    events, outcome = decode_every_way(body)
    assert [(e.kind, e.phase) for e in events if isinstance(e, SideEvent)] == [("shell_call", "delta")] * 3
    assert calls(outcome) == [call_of("shell_call")]


def test_a_custom_tool_call_without_a_name_is_kept_on_the_side_channel() -> None:
    nameless = {key: value for key, value in CUSTOM.items() if key != "name"}
    events, outcome = decode_every_way(wire(created(), *custom_call(0, nameless), completed()))
    assert calls(outcome) == [] and outcome.finish_reason == "stop"
    assert side_kinds(events) == ["custom_tool_call"]
    assert {a.kind for a in outcome.anomalies} == {"unnamed_tool_call"}


# --- lenient lifecycle: what the machine recovers ------------------------------------------------


def test_input_with_no_output_item_added_implies_the_call_its_done_names() -> None:
    where = {"item_id": "ctc_1", "output_index": 1}
    delta = {"type": "response.custom_tool_call_input.delta", **where, "delta": PATCH}
    body = wire(created(), *message(0, "Patching."), delta, done(1, CUSTOM), completed())
    _events, outcome = decode_every_way(body)
    assert calls(outcome) == [call_of("custom_tool_call")]
    assert {a.kind for a in outcome.anomalies} == {"implied_output_item"}
    assert outcome.finish_reason == "tool_call"


def test_a_resumed_stream_that_begins_inside_a_patch_call_takes_its_whole_item() -> None:
    # `starting_after`: the diff began on an earlier connection, so the item's done has it whole
    where = {"item_id": "apc_1", "output_index": 0}
    tail = {"type": "response.apply_patch_call_operation_diff.delta", **where, "delta": 'bye")\n'}
    body = wire(tail, done(0, APPLY_PATCH), completed())
    _events, outcome = decode_every_way(body)
    assert calls(outcome) == [call_of("apply_patch_call")]
    assert {a.kind for a in outcome.anomalies} == {"resumed_output_item"}


def test_a_diff_its_item_s_done_leaves_out_is_the_diff_that_streamed() -> None:
    where = {"item_id": "apc_1", "output_index": 0}
    delta = {"type": "response.apply_patch_call_operation_diff.delta", **where, "delta": "+new line\n"}
    item = {"type": "apply_patch_call", "call_id": "call_apc", "operation": {"type": "create_file", "path": "new.txt"}}
    _events, outcome = decode_every_way(wire(delta, done(0, item), completed()))
    [call] = calls(outcome)
    assert call.arguments == {"operation": {"type": "create_file", "path": "new.txt", "diff": "+new line\n"}}


def test_a_stream_without_response_created_may_begin_with_a_call() -> None:
    _events, outcome = decode_every_way(wire(*whole_call(0, APPROVAL), completed()))
    assert calls(outcome) == [call_of("mcp_approval_request")] and outcome.finish_reason == "tool_call"


def test_a_resumed_stream_whose_first_event_is_a_call_s_done_takes_the_whole_call() -> None:
    _events, outcome = decode_every_way(wire(done(0, COMPUTER), completed()))
    assert calls(outcome) == [call_of("computer_call")]


#: the item that begins while a call is open
NEXT_ITEMS: dict[str, list[dict[str, Any]]] = {
    "message": message(1, "Next."),
    "function_call": [
        added(1, {"id": "fc_1", "type": "function_call", "call_id": "call_f", "name": "f", "arguments": "{}"}),
        done(1, {"id": "fc_1", "type": "function_call", "call_id": "call_f", "name": "f", "arguments": "{}"}),
    ],
    "client_call": whole_call(1, {**APPROVAL, "id": "mcpr_2"}),
    "builtin": whole_call(1, SERVER_ITEMS[0]),
    "reasoning": [
        added(1, {"id": "rs_1", "type": "reasoning", "summary": []}),
        done(1, {"id": "rs_1", "type": "reasoning", "summary": [{"type": "summary_text", "text": "Hm."}]}),
    ],
}


NEXT_ADDS = {
    "message": ["TextDone"],
    "function_call": ["ToolCallDone"],
    "client_call": ["ToolCallDone"],
    "builtin": [],
    "reasoning": ["ThinkingDone"],
}


@pytest.mark.parametrize("next_kind", sorted(NEXT_ITEMS))
def test_a_client_call_left_open_closes_when_the_next_item_begins(next_kind: str) -> None:
    # its output_item.done never came: the item as added is all that is known of it
    body = wire(created(), added(0, COMPUTER), *NEXT_ITEMS[next_kind], completed())
    _events, outcome = decode_every_way(body)
    assert outcome.message.items[0] == call_of("computer_call")
    assert [type(i).__name__ for i in outcome.message.items[1:]] == NEXT_ADDS[next_kind]
    assert {a.kind for a in outcome.anomalies} == {"item_left_open"}


LEFT_OPEN: dict[str, dict[str, Any]] = {
    "message": {"id": "msg_0", "type": "message", "role": "assistant", "status": "in_progress", "content": []},
    "function_call": {"id": "fc_0", "type": "function_call", "call_id": "call_f", "name": "f", "arguments": "{}"},
    "client_call": {**APPROVAL, "id": "mcpr_0"},
    "builtin": {"id": "ws_0", "type": "web_search_call", "status": "in_progress"},
}


@pytest.mark.parametrize("open_kind", sorted(LEFT_OPEN))
def test_a_client_call_closes_the_item_left_open_before_it(open_kind: str) -> None:
    body = wire(created(), added(0, LEFT_OPEN[open_kind]), *custom_call(1), completed())
    _events, outcome = decode_every_way(body)
    assert outcome.message.items[-1] == call_of("custom_tool_call")
    assert {a.kind for a in outcome.anomalies} == {"item_left_open"}


def test_an_event_of_the_next_item_closes_an_open_client_call() -> None:
    text = {
        "type": "response.output_text.delta",
        "item_id": "msg_1",
        "output_index": 1,
        "content_index": 0,
        "delta": "Hi",
    }
    _events, outcome = decode_every_way(wire(created(), added(0, LOCAL_SHELL), text, completed()))
    assert [type(i).__name__ for i in outcome.message.items] == ["ToolCallDone", "TextDone"]
    assert {a.kind for a in outcome.anomalies} == {"item_left_open", "implied_output_item"}


def test_a_reasoning_item_left_open_finishes_late_while_a_client_call_streams() -> None:
    # OpenRouter closes its reasoning item after the next item began
    where = {"item_id": "rs_1", "output_index": 0, "summary_index": 0}
    reasoning = {"id": "rs_1", "type": "reasoning", "summary": []}
    body = wire(
        created(),
        added(0, reasoning),
        {"type": "response.reasoning_summary_text.delta", **where, "delta": "Edit app.py."},
        added(1, opening(CUSTOM)),
        {"type": "response.reasoning_summary_text.delta", **where, "delta": " Then test."},
        done(0, {**reasoning, "summary": [{"type": "summary_text", "text": "Edit app.py. Then test."}]}),
        {"type": "response.custom_tool_call_input.delta", "item_id": "ctc_1", "output_index": 1, "delta": PATCH},
        done(1, CUSTOM),
        completed(),
    )
    _events, outcome = decode_every_way(body)
    assert [type(i).__name__ for i in outcome.message.items] == ["ThinkingDone", "ToolCallDone"]
    assert calls(outcome)[0].arguments == {"input": PATCH}
    assert outcome.extras["late_reasoning_fidelity"][0]["text"] == " Then test."


def test_side_events_arrive_in_order_while_a_client_call_is_open() -> None:
    step = {"id": "step_1", "call_id": "call_m", "name": "lookup", "arguments": "{}"}
    body = wire(
        created(),
        *whole_call(0, SERVER_ITEMS[5]),
        added(1, opening(CUSTOM)),
        {"type": "response.mcp_list_tools.completed", "output_index": 0, "item_id": "mcpl_1"},
        {"type": "response.gateway.note", "output_index": 1, "item_id": "ctc_1", "note": "slow"},
        {"type": "response.mirobody_tool_call", "tool_step": step},
        {"type": "response.mirobody_tool_result", "tool_step": {**step, "result": "ok", "truncated": False}},
        {"type": "response.custom_tool_call_input.delta", "item_id": "ctc_1", "output_index": 1, "delta": PATCH},
        done(1, CUSTOM),
        completed(),
    )
    events, outcome = decode_every_way(body)
    assert side_kinds(events) == [
        "mcp_list_tools",
        "mcp_list_tools",
        "mcp_list_tools.completed",
        "gateway.note",
        "mirobody_tool_call",
        "mirobody_tool_result",
    ]
    assert calls(outcome)[0].arguments == {"input": PATCH}
    assert outcome.finish_reason == "tool_call"


def test_a_response_that_completes_with_a_call_open_closes_it_from_the_final_output() -> None:
    body = wire(created(), added(0, opening(SHELL)), completed([SHELL]))
    _events, outcome = decode_every_way(body)
    assert calls(outcome) == [call_of("shell_call")]
    assert outcome.finish_reason == "tool_call"


def test_a_response_cut_by_its_output_limit_inside_a_custom_call_finishes_length() -> None:
    # the call holds the input that arrived, and the finish says it was cut: no tool
    # loop runs it
    where = {"item_id": "ctc_1", "output_index": 0}
    incomplete = {
        "type": "response.incomplete",
        "response": response("incomplete", usage=USAGE, incomplete_details={"reason": "max_output_tokens"}),
    }
    delta = {"type": "response.custom_tool_call_input.delta", **where, "delta": "*** Begin"}
    _events, outcome = decode_every_way(wire(created(), added(0, opening(CUSTOM)), delta, incomplete))
    assert outcome.end == "complete" and outcome.finish_reason == "length"
    assert calls(outcome)[0].arguments == {"input": "*** Begin"}


ENDINGS: dict[str, tuple[list[dict[str, Any]], str]] = {
    "response.failed": (
        [
            {
                "type": "response.failed",
                "response": response("failed", error={"code": "server_error", "message": "boom"}),
            }
        ],
        "failed",
    ),
    "error": ([{"type": "error", "code": "server_error", "message": "boom", "param": None}], "failed"),
    "no terminal event": ([], "truncated"),
}


@pytest.mark.parametrize("ending", sorted(ENDINGS))
def test_a_stream_that_ends_badly_inside_a_client_call_never_offers_it(ending: str) -> None:
    frames, end = ENDINGS[ending]
    events, outcome = decode_every_way(wire(created(), added(0, opening(CUSTOM)), *frames))
    assert outcome.end == end
    assert not any(isinstance(i, ToolCallDone) for i in items(events))
    assert calls(outcome) == []


def test_a_done_sentinel_inside_a_client_call_is_a_truncated_stream() -> None:
    body = wire(created(), added(0, opening(COMPUTER))) + b"data: [DONE]\n\n"
    _events, outcome = decode_every_way(body)
    assert outcome.end == "truncated" and calls(outcome) == []


# --- the writer writes each call back as the item it came as ---------------------------------------


ALL_STREAMS: dict[str, bytes] = {
    **{kind: stream_of(item) for kind, item in ITEMS.items()},
    "all six, with text": wire(
        created(),
        *message(0, "Working."),
        *custom_call(1),
        *whole_call(2, COMPUTER),
        *whole_call(3, LOCAL_SHELL),
        *whole_call(4, {**SHELL, "environment": {"type": "local"}, "caller": {"type": "direct"}}),
        *patch_call(5),
        *whole_call(6, APPROVAL),
        completed(),
    ),
}


def written_items(body: bytes) -> list[dict[str, Any]]:
    frames = [json.loads(line[6:]) for line in body.decode().splitlines() if line.startswith("data: {")]
    return [f["item"] for f in frames if f["type"] == "response.output_item.done"]


@pytest.mark.parametrize("name", sorted(ALL_STREAMS))
def test_the_writer_writes_each_call_back_as_the_item_it_came_as(name: str) -> None:
    events, outcome = decode(ALL_STREAMS[name])
    body = unievent.encode(events, "openai_responses", model=MODEL)
    _again_events, again = decode_every_way(body)
    assert again.message.items == outcome.message.items  # names, ids, arguments and fidelity
    assert again.finish_reason == "tool_call"
    written = written_items(body)
    kinds = [
        c.fidelity["item_type"] if isinstance(c, ToolCallDone) and c.fidelity else "message"
        for c in outcome.message.items
    ]
    assert [item["type"] for item in written] == kinds
    output_item = sdk("ResponseOutputItem")
    for item in written:
        output_item.validate_python(item)


def test_the_openai_sdk_shows_each_written_call_as_the_output_item_it_came_as(serving: Any) -> None:
    openai = pytest.importorskip("openai")
    events, _ = decode(ALL_STREAMS["all six, with text"])
    base = serving(unievent.encode(events, "openai_responses", model=MODEL))
    client = openai.OpenAI(base_url=base + "/v1", api_key="x", max_retries=0)
    with client.responses.stream(model=MODEL, input="Fix app.py") as stream:
        response = stream.get_final_response()
    assert [item.type for item in response.output] == ["message", *AS_CALL]
    custom, computer, local_shell, shell, patch, approval = response.output[1:]
    assert (custom.call_id, custom.name, custom.input) == ("call_ctc", "apply_patch", PATCH)
    assert (computer.id, computer.call_id, computer.action.type) == ("cu_1", "call_cu", "click")
    assert (local_shell.id, local_shell.action.command) == ("lsh_1", ["ls", "-la"])
    assert (shell.call_id, shell.action.commands, shell.environment.type) == ("call_sh", ["pwd", "ls"], "local")
    assert (patch.call_id, patch.operation.diff) == ("call_apc", APPLY_PATCH["operation"]["diff"])
    assert (approval.id, approval.name, approval.arguments) == ("mcpr_1", "ask_question", APPROVAL["arguments"])


def test_the_writer_writes_a_custom_tool_s_input_as_its_input_events() -> None:
    events, _ = decode(stream_of(CUSTOM))
    body = unievent.encode(events, "openai_responses").decode()
    assert '"type":"response.custom_tool_call_input.delta"' in body
    assert '"type":"response.custom_tool_call_input.done"' in body
    assert "function_call" not in body
    [item] = written_items(body.encode())
    assert item == {
        "type": "custom_tool_call",
        "id": "custom_tool_call_0",
        "call_id": "call_ctc",
        "name": "apply_patch",
        "input": PATCH,
    }


def test_other_protocols_see_an_ordinary_tool_call() -> None:
    events, _ = decode(stream_of(CUSTOM))
    encoder = unievent.StreamEncoder("anthropic", model="claude-sonnet-4-5")
    body = b"".join(encoder.push(e) for e in events) + encoder.finish()
    _, outcome = decode_stream("anthropic", body)
    assert calls(outcome) == [ToolCallDone("apply_patch", {"input": PATCH}, "call_ctc")]
    assert outcome.finish_reason == "tool_call"
    assert "item_type" in encoder.dropped


# --- replay: each call goes back as its own item, and its answer is the matching item -------------------


REPLAYED: dict[str, dict[str, Any]] = {
    "custom_tool_call": {"type": "custom_tool_call", "call_id": "call_ctc", "name": "apply_patch", "input": PATCH},
    "computer_call": {
        "type": "computer_call",
        "id": "cu_1",
        "call_id": "call_cu",
        "status": "completed",
        "pending_safety_checks": COMPUTER["pending_safety_checks"],
        "action": COMPUTER["action"],
    },
    "local_shell_call": {
        "type": "local_shell_call",
        "id": "lsh_1",
        "call_id": "call_lsh",
        "status": "completed",
        "action": LOCAL_SHELL["action"],
    },
    "shell_call": {"type": "shell_call", "call_id": "call_sh", "status": "completed", "action": SHELL["action"]},
    "apply_patch_call": {
        "type": "apply_patch_call",
        "call_id": "call_apc",
        "status": "completed",
        "operation": APPLY_PATCH["operation"],
    },
    "mcp_approval_request": {
        "type": "mcp_approval_request",
        "id": "mcpr_1",
        "server_label": "deepwiki",
        "name": "ask_question",
        "arguments": APPROVAL["arguments"],
    },
}


def the_call(kind: str) -> ToolCallDone:
    _events, outcome = decode(stream_of(ITEMS[kind]))
    [call] = calls(outcome)
    return call


@pytest.mark.parametrize("kind", sorted(REPLAYED))
def test_replay_sends_each_call_back_as_the_item_it_came_as(kind: str) -> None:
    _events, outcome = decode(stream_of(ITEMS[kind]))
    replayed = outcome.message.replay("openai_responses", source="openai_responses")
    assert replayed.json == [REPLAYED[kind]]
    assert replayed.left_out == ()
    sdk("ResponseInputItemParam").validate_python(replayed.json[0])


def test_replay_writes_back_a_custom_tool_s_namespace_and_its_program_caller() -> None:
    program = {"type": "program", "caller_id": "prog_1"}
    _events, outcome = decode(
        wire(created(), *custom_call(0, {**CUSTOM, "namespace": "editor", "caller": program}), completed())
    )
    [item] = outcome.message.to_request("openai_responses", source="openai_responses")
    assert item == {**REPLAYED["custom_tool_call"], "namespace": "editor", "caller": program}
    sdk("ResponseInputItemParam").validate_python(item)
    answer = unievent.tool_result(calls(outcome)[0], "Done!", "openai_responses")
    assert answer == {"type": "custom_tool_call_output", "call_id": "call_ctc", "output": "Done!", "caller": program}


ANSWERS: dict[str, tuple[Any, dict[str, Any]]] = {
    "custom_tool_call": ("Done!", {"type": "custom_tool_call_output", "call_id": "call_ctc", "output": "Done!"}),
    "computer_call": (
        "data:image/png;base64,iVBORw0KGgo=",
        {
            "type": "computer_call_output",
            "call_id": "call_cu",
            "output": {"type": "computer_screenshot", "image_url": "data:image/png;base64,iVBORw0KGgo="},
        },
    ),
    "local_shell_call": ("total 0\n", {"type": "local_shell_call_output", "id": "call_lsh", "output": "total 0\n"}),
    "shell_call": (
        "/tmp\n",
        {
            "type": "shell_call_output",
            "call_id": "call_sh",
            "output": [{"stdout": "/tmp\n", "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}],
            "max_output_length": 4096,
        },
    ),
    "apply_patch_call": (
        "Updated app.py",
        {"type": "apply_patch_call_output", "call_id": "call_apc", "status": "completed", "output": "Updated app.py"},
    ),
    "mcp_approval_request": (
        {"approve": True},
        {"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": True},
    ),
}


@pytest.mark.parametrize("kind", sorted(ANSWERS))
def test_a_tool_result_is_the_item_that_answers_the_call_s_own_item_type(kind: str) -> None:
    output, expected = ANSWERS[kind]
    answer = unievent.tool_result(the_call(kind), output, "openai_responses")
    assert answer == expected
    sdk("ResponseInputItemParam").validate_python(answer)


def test_an_error_result_fails_a_patch_and_a_shell_call_with_its_stderr() -> None:
    patch = unievent.tool_result(the_call("apply_patch_call"), "no such file", "openai_responses", is_error=True)
    assert patch == {
        "type": "apply_patch_call_output",
        "call_id": "call_apc",
        "status": "failed",
        "output": "no such file",
    }
    shell = unievent.tool_result(the_call("shell_call"), "ls: denied", "openai_responses", is_error=True)
    assert shell["output"] == [{"stdout": "", "stderr": "ls: denied", "outcome": {"type": "exit", "exit_code": 1}}]
    chunk = {"stdout": "", "stderr": "", "outcome": {"type": "timeout"}}
    assert unievent.tool_result(the_call("shell_call"), chunk, "openai_responses")["output"] == [chunk]
    for answer in (patch, shell):
        sdk("ResponseInputItemParam").validate_python(answer)


def test_a_screenshot_object_is_the_computer_call_s_output_as_it_is() -> None:
    screenshot = {"type": "computer_screenshot", "file_id": "file_1"}
    answer = unievent.tool_result(the_call("computer_call"), screenshot, "openai_responses")
    assert answer["output"] == screenshot and "acknowledged_safety_checks" not in answer


def test_an_approval_request_is_approved_or_denied_with_a_reason() -> None:
    call = the_call("mcp_approval_request")
    denied = {"type": "mcp_approval_response", "approval_request_id": "mcpr_1", "approve": False, "reason": "Not now."}
    assert unievent.tool_result(call, {"approve": False, "reason": "Not now."}, "openai_responses") == denied
    assert unievent.tool_result(call, "Not now.", "openai_responses", is_error=True) == denied
    assert unievent.tool_result(call, "", "openai_responses")["approve"] is True
    with pytest.raises(unievent.ReplayError, match="approve"):
        unievent.tool_result(call, {"ok": True}, "openai_responses")
    sdk("ResponseInputItemParam").validate_python(denied)


def test_a_call_replayed_to_another_protocol_is_an_ordinary_tool_call() -> None:
    call = the_call("custom_tool_call")
    message = Message("assistant", (call,), Usage(), "tool_call", None)
    turn = message.replay("anthropic", source="openai_responses")
    assert turn.json["content"] == [
        {"type": "tool_use", "id": "call_ctc", "name": "apply_patch", "input": {"input": PATCH}}
    ]
    assert turn.left_out == ("tool_call item_type (from openai_responses)",)
    assert unievent.tool_result(call, "Done!", "anthropic")["content"][0]["tool_use_id"] == "call_ctc"


def test_a_function_call_still_replays_and_is_answered_as_one() -> None:
    call = ToolCallDone("get_weather", {"city": "Oslo"}, "call_1")
    message = Message("assistant", (call,), Usage(), "tool_call", None)
    assert message.to_request("openai_responses", source="openai_responses") == [
        {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": '{"city":"Oslo"}'}
    ]
    assert unievent.tool_result(call, "sunny", "openai_responses") == {
        "type": "function_call_output",
        "call_id": "call_1",
        "output": "sunny",
    }


# --- recorded streams ------------------------------------------------------------------------------


RECORDED = {
    "vercel__responses_apply_patch_call.sse": ("apply_patch_call", "call_kA46f91ZwocQyMCKyyZqRyC5"),
    "vercel__responses_mcp_approval_request.sse": (
        "mcp_approval_request",
        "mcpr_04a97b4fce127879006949a83ac9308195a7f7b69ea82e91fe",
    ),
}


@pytest.mark.parametrize("name", sorted(RECORDED))
def test_a_recorded_call_the_client_must_answer_is_offered_as_a_tool_call(name: str) -> None:
    path = OPEN_WORLD / "openai_responses" / name
    if not path.exists():
        pytest.skip("no recorded streams at ../shared/corpus-open-world")
    events, outcome = decode(path.read_bytes())
    [call] = calls(outcome)
    assert (call.name, call.tool_call_id) == RECORDED[name]
    assert outcome.finish_reason == "tool_call"
    turn = outcome.message.to_request("openai_responses", source="openai_responses")
    item_param = sdk("ResponseInputItemParam")
    for item in turn:
        if item["type"] != "message":
            item_param.validate_python(item)
    assert isinstance(events[-1], StopEvent)
