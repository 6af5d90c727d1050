# The assembled message as the next request's assistant turn, in each protocol's
# request format, with every piece of fidelity where that provider wants it back; and
# the tool result that answers a call.
#
# Fidelity has no provider tag, so the caller names where the message came from
# (`source`, e.g. Outcome.protocol): fidelity of another provider means nothing to this
# one (a Gemini signature to Anthropic) and is left out.  Whatever is left out, a
# wire without a place for it or fidelity of another provider, is listed in
# `Replay.left_out`, and `Message.to_request` warns with ReplayWarning: never silently.
from __future__ import annotations

import base64
import json
import warnings
from collections.abc import Callable
from typing import Any

import attrs
import orjson

from unievent._errors import UniEventError
from unievent._events import (
    Fidelity,
    InlineDataDone,
    InlineThinkingDone,
    Message,
    TextDone,
    ThinkingDone,
    ToolCallDone,
    ToolResultDone,
)
from unievent._protocols.openai_responses import CLIENT_CALLS, client_call_item
from unievent._shared import as_dict

__all__ = ["REPLAYS", "Replay", "ReplayError", "ReplayWarning", "replay", "tool_result"]

_REDACTED_THINKING = "_REDACTED_THINKING"  # MMSP's convention (see _protocols/anthropic.py)


class ReplayError(UniEventError):
    """A message that cannot be replayed: from a stream that did not complete (its tool
    calls were never offered; pass ``text_only=True`` for its text), or for a protocol
    with no request format here."""


class ReplayWarning(UserWarning):
    """`Message.to_request` left something out (see `Replay.left_out`)."""


@attrs.frozen
class Replay:
    """The assistant turn in one protocol's request format: `json` to append to the
    conversation (a list of input items for ``openai_responses``), and `left_out`, what
    the message held that this request has no place for."""

    json: Any
    left_out: tuple[str, ...] = ()


class _Turn:
    """What one replay builds: the fidelity it keeps, and what it leaves out."""

    def __init__(self, protocol: str, source: str | None, carries: frozenset[str]) -> None:
        self.protocol = protocol
        self.foreign = source is not None and protocol not in (source, "mmsp")
        self.source = source
        self.carries = carries
        self.left_out: list[str] = []

    def keep(self, fidelity: Fidelity | None, where: str) -> dict[str, Any]:
        if not fidelity:
            return {}
        if self.foreign:
            self.left_out.extend(f"{where} {key} (from {self.source})" for key in fidelity)
            return {}
        self.left_out.extend(f"{where} {key}" for key in fidelity if key not in self.carries)
        return {key: value for key, value in fidelity.items() if key in self.carries}

    def leave(self, what: str) -> None:
        self.left_out.append(what)


def _arguments_text(call: ToolCallDone) -> str:
    try:
        return orjson.dumps(call.arguments).decode()
    except TypeError:  # a value orjson does not write (an integer over 64 bits a caller built)
        return json.dumps(call.arguments, ensure_ascii=False, separators=(",", ":"))


# --- each protocol ----------------------------------------------------------------------


def _anthropic(items: tuple[Any, ...], turn: _Turn) -> Any:
    content: list[dict[str, Any]] = []
    for item in items:
        if type(item) is ThinkingDone:
            kept = turn.keep(item.fidelity, "thinking")
            signature = kept.get("signature")
            if item.thinking == _REDACTED_THINKING and type(signature) is str:
                content.append({"type": "redacted_thinking", "data": signature})
            elif type(signature) is str:
                content.append({"type": "thinking", "thinking": item.thinking, "signature": signature})
            else:
                turn.leave("thinking without a signature (Anthropic refuses it)")
        elif type(item) is TextDone:
            kept = turn.keep(item.fidelity, "text")
            if not item.text and not kept:
                continue
            block: dict[str, Any] = {"type": "text", "text": item.text}
            if kept.get("citations"):
                block["citations"] = kept["citations"]
            content.append(block)
        elif type(item) is ToolCallDone:
            turn.keep(item.fidelity, "tool_call")
            content.append({"type": "tool_use", "id": item.tool_call_id, "name": item.name, "input": item.arguments})
        else:
            turn.leave(f"{item.type} (no place in an Anthropic assistant turn)")
    return {"role": "assistant", "content": content}


def _openai_chat(items: tuple[Any, ...], turn: _Turn) -> Any:
    texts: list[str] = []
    calls: list[dict[str, Any]] = []
    message: dict[str, Any] = {"role": "assistant"}
    details: list[dict[str, Any]] = []
    for item in items:
        if type(item) is ThinkingDone:
            kept = turn.keep(item.fidelity, "thinking")
            field = kept.get("reasoning_field")
            if field in ("reasoning_content", "reasoning"):
                message[field] = message.get(field, "") + item.thinking
            elif "encrypted_content" in kept:
                block = {"type": "reasoning.encrypted", "data": kept["encrypted_content"]}
                block.update({k: kept[v] for k, v in (("format", "format"), ("id", "reasoning_id")) if v in kept})
                details.append(block)
            elif "signature" in kept or item.thinking:
                block = {"type": "reasoning.text", "text": item.thinking}
                block.update({k: kept[k] for k in ("signature", "format") if k in kept})
                details.append(block)
        elif type(item) is TextDone:
            if turn.keep(item.fidelity, "text").get("refusal") is True:
                message["refusal"] = message.get("refusal", "") + item.text
            else:
                texts.append(item.text)
        elif type(item) is ToolCallDone:
            kept = turn.keep(item.fidelity, "tool_call")
            call = _chat_call(item, kept)
            if "extra_content" in kept:
                call["extra_content"] = kept["extra_content"]
            calls.append(call)
        else:
            turn.leave(f"{item.type} (no place in a Chat Completions assistant message)")
    message["content"] = "".join(texts) if texts else None
    if details:
        message["reasoning_details"] = details
    if calls:
        message["tool_calls"] = calls
    return message


def _chat_call(call: ToolCallDone, kept: dict[str, Any]) -> dict[str, Any]:
    """A call as the assistant message's tool call it came as: a custom tool's call
    (fidelity `item_type` "custom") sends its input text back, any other a function's."""
    text = call.arguments.get("input")
    if kept.get("item_type") == "custom" and type(text) is str:
        return {"id": call.tool_call_id, "type": "custom", "custom": {"name": call.name, "input": text}}
    return {
        "id": call.tool_call_id,
        "type": "function",
        "function": {"name": call.name, "arguments": _arguments_text(call)},
    }


def _openai_responses(items: tuple[Any, ...], turn: _Turn) -> Any:
    out: list[dict[str, Any]] = []
    for item in items:
        if type(item) is ThinkingDone:
            kept = turn.keep(item.fidelity, "thinking")
            if "reasoning_id" not in kept:
                turn.leave("thinking without its reasoning item id (Responses needs the id)")
                continue
            reasoning: dict[str, Any] = {"type": "reasoning", "id": kept["reasoning_id"], "summary": []}
            if item.thinking:
                if kept.get("channel") == "content":
                    reasoning["content"] = [{"type": "reasoning_text", "text": item.thinking}]
                else:
                    reasoning["summary"] = [{"type": "summary_text", "text": item.thinking}]
            if "encrypted_content" in kept:
                reasoning["encrypted_content"] = kept["encrypted_content"]
            out.append(reasoning)
        elif type(item) is TextDone:
            kept = turn.keep(item.fidelity, "text")
            if not item.text:
                continue
            message: dict[str, Any] = {
                "type": "message",
                "role": "assistant",
                "content": [{"type": "output_text", "text": item.text, "annotations": []}],
            }
            if "phase" in kept:
                message["phase"] = kept["phase"]
            out.append(message)
        elif type(item) is ToolCallDone:
            out.append(_responses_call(item, turn.keep(item.fidelity, "tool_call")))
        else:
            turn.leave(f"{item.type} (no place in Responses input items)")
    return out


def _responses_call(call: ToolCallDone, kept: dict[str, Any]) -> dict[str, Any]:
    """A call as the item it came as: a function call, or the item its fidelity names."""
    kind = kept.get("item_type")
    if kind in CLIENT_CALLS:
        item_id = kept.get("call_item_id")
        item_id = item_id if type(item_id) is str else None
        return client_call_item(kind, call.name, call.tool_call_id, call.arguments, kept, "completed", item_id)
    return {
        "type": "function_call",
        "call_id": call.tool_call_id,
        "name": call.name,
        "arguments": _arguments_text(call),
    }


def _responses_answer(call: ToolCallDone, output: str | dict[str, Any], text: str, is_error: bool) -> dict[str, Any]:
    """The input item that answers `call`: the output item of the call's own item type
    (an approval response for an MCP approval request), else a function call's output."""
    fidelity = call.fidelity or {}
    answer_of = _ANSWERS.get(fidelity.get("item_type"))
    if answer_of is None:
        return {"type": "function_call_output", "call_id": call.tool_call_id, "output": text}
    answer = answer_of(call, output, text, is_error)
    if fidelity.get("caller") is not None:
        answer["caller"] = fidelity["caller"]  # a call a program made is answered to that program
    return answer


def _custom_tool_answer(call: ToolCallDone, output: str | dict[str, Any], text: str, is_error: bool) -> dict[str, Any]:
    return {"type": "custom_tool_call_output", "call_id": call.tool_call_id, "output": text}


def _computer_answer(call: ToolCallDone, output: str | dict[str, Any], text: str, is_error: bool) -> dict[str, Any]:
    """A screenshot: a dict output is the screenshot object, text its image URL.  The
    call's pending safety checks are acknowledged by the caller, never here."""
    screenshot = output if isinstance(output, dict) else {"type": "computer_screenshot", "image_url": output}
    return {"type": "computer_call_output", "call_id": call.tool_call_id, "output": screenshot}


def _local_shell_answer(call: ToolCallDone, output: str | dict[str, Any], text: str, is_error: bool) -> dict[str, Any]:
    # the SDK's request type names the call it answers `id`, not `call_id`
    return {"type": "local_shell_call_output", "id": call.tool_call_id, "output": text}


def _shell_answer(call: ToolCallDone, output: str | dict[str, Any], text: str, is_error: bool) -> dict[str, Any]:
    """One chunk of output: a dict with `stdout`, `stderr` and `outcome` as it is; text
    as stdout with exit code 0, or with an error as stderr with exit code 1."""
    if isinstance(output, dict) and "outcome" in output:
        chunk = output
    elif is_error:
        chunk = {"stdout": "", "stderr": text, "outcome": {"type": "exit", "exit_code": 1}}
    else:
        chunk = {"stdout": text, "stderr": "", "outcome": {"type": "exit", "exit_code": 0}}
    answer: dict[str, Any] = {"type": "shell_call_output", "call_id": call.tool_call_id, "output": [chunk]}
    limit = as_dict(call.arguments.get("action")).get("max_output_length")
    if type(limit) is int:
        answer["max_output_length"] = limit  # the model asks for it back with the output
    return answer


def _apply_patch_answer(call: ToolCallDone, output: str | dict[str, Any], text: str, is_error: bool) -> dict[str, Any]:
    answer = {"type": "apply_patch_call_output", "call_id": call.tool_call_id}
    answer["status"] = "failed" if is_error else "completed"
    if text:
        answer["output"] = text
    return answer


def _approval_answer(call: ToolCallDone, output: str | dict[str, Any], text: str, is_error: bool) -> dict[str, Any]:
    """A dict output says `approve` (and a `reason`); text is the reason, and an error
    result denies."""
    if isinstance(output, dict):
        approve = output.get("approve")
        if type(approve) is not bool:
            raise ReplayError("an MCP approval request is answered with {'approve': True or False}")
        reason = output.get("reason")
    else:
        approve, reason = not is_error, output
    answer: dict[str, Any] = {"type": "mcp_approval_response", "approval_request_id": call.tool_call_id}
    answer["approve"] = approve
    if type(reason) is str and reason:
        answer["reason"] = reason
    return answer


_ANSWERS: dict[Any, Callable[[ToolCallDone, str | dict[str, Any], str, bool], dict[str, Any]]] = {
    "custom_tool_call": _custom_tool_answer,
    "computer_call": _computer_answer,
    "local_shell_call": _local_shell_answer,
    "shell_call": _shell_answer,
    "apply_patch_call": _apply_patch_answer,
    "mcp_approval_request": _approval_answer,
}


def _gemini(items: tuple[Any, ...], turn: _Turn) -> Any:
    parts: list[dict[str, Any]] = []
    for item in items:
        if type(item) in (TextDone, ThinkingDone):
            kept = turn.keep(item.fidelity, item.kind)
            text = item.text if type(item) is TextDone else item.thinking
            part: dict[str, Any] = {"text": text}
            if type(item) is ThinkingDone:
                part["thought"] = True
        elif type(item) is ToolCallDone:
            kept = turn.keep(item.fidelity, "tool_call")
            part = {"functionCall": {"name": item.name, "args": item.arguments, "id": item.tool_call_id}}
        elif type(item) in (InlineDataDone, InlineThinkingDone):
            kept = turn.keep(item.fidelity, item.kind)
            part = {"inlineData": {"mimeType": item.mime_type, "data": base64.b64encode(item.data).decode()}}
            if type(item) is InlineThinkingDone:
                part["thought"] = True
        else:
            turn.leave(f"{item.type} (no place in a Gemini model turn)")
            continue
        if type(kept.get("signature")) is str:
            part["thoughtSignature"] = kept["signature"]  # on exactly the part it came on
        parts.append(part)
    return {"role": "model", "parts": parts}


def _mmsp(message: Message) -> Any:
    from unievent._json import to_json  # noqa: PLC0415  (the JSON layer imports the events)

    return to_json(message)


#: per protocol: how the turn is built, and the fidelity keys its request takes back
REPLAYS: dict[str, tuple[Any, frozenset[str]]] = {
    "anthropic": (_anthropic, frozenset({"signature", "citations"})),
    "openai_chat": (
        _openai_chat,
        frozenset(
            {"reasoning_field", "signature", "format", "encrypted_content", "reasoning_id", "extra_content", "refusal"}
            | {"item_type"}
        ),
    ),
    "openai_responses": (
        _openai_responses,
        frozenset(
            {"encrypted_content", "reasoning_id", "channel", "phase"}
            | {"item_type", "call_item_id", "namespace", "caller", "environment"}
        ),
    ),
    "gemini": (_gemini, frozenset({"signature"})),
}


def replay(message: Message, protocol: str, *, source: str | None = None, text_only: bool = False) -> Replay:
    """`message` as `protocol`'s assistant turn (see Message.to_request)."""
    items = message.items
    if message.finish_reason is None:
        if not text_only:
            raise ReplayError(
                f"{protocol}: the message is from a stream that did not complete: "
                "its tool calls were never offered (text_only=True replays its text and thinking)"
            )
        items = tuple(i for i in items if type(i) in (TextDone, ThinkingDone))
    if protocol == "mmsp":
        return Replay(_mmsp(message if not text_only else attrs.evolve(message, items=items)))
    made = REPLAYS.get(protocol)
    if made is None:
        known = ", ".join(sorted([*REPLAYS, "mmsp"]))
        raise ReplayError(f"no request format for {protocol!r}; there are: {known}")
    build, carries = made
    turn = _Turn(protocol, source, carries)
    return Replay(build(items, turn), tuple(turn.left_out))


def to_request(message: Message, protocol: str, *, source: str | None = None, text_only: bool = False) -> Any:
    """The JSON of `replay`, warning (ReplayWarning) when something was left out."""
    done = replay(message, protocol, source=source, text_only=text_only)
    if done.left_out:
        warnings.warn(ReplayWarning(f"{protocol}: left out " + "; ".join(done.left_out)), stacklevel=3)
    return done.json


def tool_result(call: ToolCallDone, output: str | dict[str, Any], protocol: str, *, is_error: bool = False) -> Any:
    """The message (the input item for ``openai_responses``) that answers `call` with
    `output` in `protocol`'s request format, linked to the call by its id (Gemini: by
    its name and id)."""
    text = output if isinstance(output, str) else orjson.dumps(output).decode()
    if protocol == "anthropic":
        block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call.tool_call_id, "content": text}
        if is_error:
            block["is_error"] = True
        return {"role": "user", "content": [block]}
    if protocol == "openai_chat":
        return {"role": "tool", "tool_call_id": call.tool_call_id, "content": text}
    if protocol == "openai_responses":
        return _responses_answer(call, output, text, is_error)
    if protocol == "gemini":
        response = {"error": output} if is_error else (output if isinstance(output, dict) else {"result": output})
        answer = {"name": call.name, "id": call.tool_call_id, "response": response}
        return {"role": "user", "parts": [{"functionResponse": answer}]}
    if protocol == "mmsp":
        from unievent._json import to_json  # noqa: PLC0415

        return to_json(Message("user", (ToolResultDone(text, call.tool_call_id),), None, None, None))
    raise ReplayError(f"no tool result format for {protocol!r}")
