# The assembled message as the next request's assistant turn, in each protocol's
# request format, with every piece of fidelity where that provider wants it back; and
# the tool result that answers a call.
#
# Fidelity has no provider tag, so the caller names where the message came from
# (`source`, e.g. Outcome.protocol): fidelity of another provider means nothing to this
# one (a Gemini signature to Anthropic) and is left out.  Whatever is left out, a
# wire without a place for it or fidelity of another provider, is listed in
# `Replay.left_out`, and `Message.to_request` warns with ReplayWarning: never silently.
#
# Message.to_request and Message.replay are bound here (REQUEST_WRITERS): the events
# module imports nothing of this one.
from __future__ import annotations

import base64
import binascii
import json
import warnings
from collections.abc import Callable
from typing import Any, Final

import attrs
import orjson

from unievent._errors import UniEventError
from unievent._events import (
    REQUEST_WRITERS,
    Fidelity,
    InlineDataDone,
    InlineThinkingDone,
    Message,
    TextDone,
    ThinkingDone,
    ToolCallDone,
    ToolResultDone,
)
from unievent._json import to_json
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
    conversation (a list of input items for ``openai_responses``, of steps for
    ``gemini_interactions``; for ``bedrock_converse`` the message as boto3 takes it,
    blobs as bytes), and `left_out`, what the message held that this request has no
    place for."""

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
    transcripts: list[str] = []
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
            kept = turn.keep(item.fidelity, "text")
            if kept.get("refusal") is True:
                message["refusal"] = message.get("refusal", "") + item.text
            elif kept.get("audio_transcript") is True:
                transcripts.append(item.text)
            else:
                texts.append(item.text)
        elif type(item) is ToolCallDone:
            kept = turn.keep(item.fidelity, "tool_call")
            call = _chat_call(item, kept)
            if "extra_content" in kept:
                call["extra_content"] = kept["extra_content"]
            calls.append(call)
        elif type(item) is InlineDataDone and item.mime_type.startswith("audio/"):
            # the model's own audio goes back by its id (the API keeps it until its
            # expires_at); its bytes are never sent
            audio_id = turn.keep(item.fidelity, "inline_data").get("audio_id")
            if type(audio_id) is str and audio_id:
                message["audio"] = {"id": audio_id}
            else:
                turn.leave(
                    f"inline_data {item.mime_type} without its audio id (Chat Completions takes audio back by id)"
                )
        else:
            turn.leave(f"{item.type} (no place in a Chat Completions assistant message)")
    if "audio" not in message:
        texts += transcripts  # no audio to say it: the transcript is the answer's text
    if texts or "audio" not in message:  # as the API's own example: audio by id, no content
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
            if item.text and not _continues_message(out, item.text, kept):
                out.append(_responses_message(item.text, kept))
        elif type(item) is ToolCallDone:
            out.append(_responses_call(item, turn.keep(item.fidelity, "tool_call")))
        elif type(item) is InlineDataDone and item.mime_type.startswith("image/"):
            image = _responses_image(item, turn.keep(item.fidelity, "inline_data"))
            if image is None:
                turn.leave(f"inline_data {item.mime_type} without its image_generation_call id (Responses needs it)")
            else:
                out.append(image)
        else:
            turn.leave(f"{item.type} (no place in Responses input items)")
    return out


#: what an image generation call's input item takes back besides its id and result
_IMAGE_CALL_FIELDS: Final = ("revised_prompt", "output_format", "size", "quality", "background", "action")


def _responses_image(item: InlineDataDone, kept: dict[str, Any]) -> dict[str, Any] | None:
    """A generated image as the `image_generation_call` item it came as (for a turn that
    edits it next); one of another provider has no call id to name and is left out."""
    call_id = kept.get("image_generation_call_id")
    if type(call_id) is not str or not call_id:
        return None
    call: dict[str, Any] = {"type": "image_generation_call", "id": call_id, "status": "completed"}
    call["result"] = base64.b64encode(item.data).decode()
    call.update({key: kept[key] for key in _IMAGE_CALL_FIELDS if key in kept})
    return call


def _responses_message(text: str, kept: dict[str, Any]) -> dict[str, Any]:
    """Assistant text as an input item the SDK's types take.  With the message's item id
    (fidelity `message_id`) it is the output message it came as, which the types accept
    only with its `id` and `status`; without one, an easy input message: assistant text
    needs no id there, and an id made up here would name an item the API never made."""
    item_id = kept.get("message_id")
    message: dict[str, Any]
    if type(item_id) is str and item_id:
        message = {"type": "message", "role": "assistant", "id": item_id, "status": "completed"}
        message["content"] = [{"type": "output_text", "text": text, "annotations": []}]
    else:
        message = {"type": "message", "role": "assistant", "content": text}
    if "phase" in kept:
        message["phase"] = kept["phase"]
    return message


def _continues_message(out: list[dict[str, Any]], text: str, kept: dict[str, Any]) -> bool:
    """Text of the message the last item is (the same item id) joins it as another
    output_text part: an item id is sent once."""
    item_id = kept.get("message_id")
    last = out[-1] if out else {}
    if type(item_id) is not str or not item_id or last.get("type") != "message" or last.get("id") != item_id:
        return False
    last["content"].append({"type": "output_text", "text": text, "annotations": []})
    return True


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


def _is_redacted(item: Any) -> bool:
    return type(item) is ThinkingDone and item.thinking == _REDACTED_THINKING


def _bedrock_converse(items: tuple[Any, ...], turn: _Turn) -> Any:
    """The assistant message as boto3's `converse(messages=...)` takes it: blobs (redacted
    reasoning, image bytes) as bytes, which boto3 writes as base64 on the wire."""
    content: list[dict[str, Any]] = []
    for item in items:
        if type(item) is ThinkingDone:
            block = _converse_reasoning(item, turn.keep(item.fidelity, "thinking"), turn)
        elif type(item) is TextDone:
            block = _converse_text(item, turn.keep(item.fidelity, "text"))
        elif type(item) is ToolCallDone:
            turn.keep(item.fidelity, "tool_call")
            block = {"toolUse": {"toolUseId": item.tool_call_id, "name": item.name, "input": item.arguments}}
        elif type(item) is InlineDataDone:
            turn.keep(item.fidelity, "inline_data")
            block = _converse_image(item, turn)
        else:
            turn.leave(f"{item.type} (no place in a Converse assistant message)")
            continue
        if block is not None:
            content.append(block)
    return {"role": "assistant", "content": content}


def _converse_reasoning(item: ThinkingDone, kept: dict[str, Any], turn: _Turn) -> dict[str, Any] | None:
    signature = kept.get("signature")
    if _is_redacted(item):
        data = _base64_bytes(signature)
        if data is None:
            turn.leave("redacted thinking without its data (Converse needs it)")
            return None
        return {"reasoningContent": {"redactedContent": data}}
    reasoning: dict[str, Any] = {"text": item.thinking}
    if type(signature) is str and signature:
        reasoning["signature"] = signature
    return {"reasoningContent": {"reasoningText": reasoning}}


def _base64_bytes(text: Any) -> bytes | None:
    if type(text) is not str or not text:
        return None
    try:
        return base64.b64decode(text, validate=True)
    except (binascii.Error, ValueError):
        return None


def _converse_text(item: TextDone, kept: dict[str, Any]) -> dict[str, Any] | None:
    """Text, or with its citations the citations block it came as; empty text is no
    block (Converse refuses a blank one)."""
    citations = kept.get("citations")
    if citations and type(citations) is list:
        return {"citationsContent": {"content": [{"text": item.text}], "citations": citations}}
    return {"text": item.text} if item.text else None


_CONVERSE_IMAGE_FORMATS = frozenset({"png", "jpeg", "gif", "webp"})


def _converse_image(item: InlineDataDone, turn: _Turn) -> dict[str, Any] | None:
    kind, _, fmt = item.mime_type.partition("/")
    if kind != "image" or fmt not in _CONVERSE_IMAGE_FORMATS:
        turn.leave(f"inline_data {item.mime_type} (Converse takes png, jpeg, gif and webp images)")
        return None
    return {"image": {"format": fmt, "source": {"bytes": item.data}}}


def _cohere(items: tuple[Any, ...], turn: _Turn) -> Any:
    """Cohere v2's assistant message.  Beside tool calls Cohere takes no text content:
    the turn's thinking and text are then its `tool_plan`, as Cohere streams its plan
    (the decoder reads a tool plan as thinking); without calls, thinking and text are
    content blocks in stream order."""
    calls = [item for item in items if type(item) is ToolCallDone]
    words: list[dict[str, Any]] = []
    citations: list[Any] = []
    for item in items:
        if type(item) is ThinkingDone:
            turn.keep(item.fidelity, "thinking")
            if _is_redacted(item):
                turn.leave("redacted thinking (no place in a Cohere assistant message)")
            elif item.thinking:
                words.append({"type": "thinking", "thinking": item.thinking})
        elif type(item) is TextDone:
            found = turn.keep(item.fidelity, "text").get("citations")
            citations.extend(found if type(found) is list else ())
            if item.text:
                words.append({"type": "text", "text": item.text})
        elif type(item) is ToolCallDone:
            turn.keep(item.fidelity, "tool_call")
        else:
            turn.leave(f"{item.type} (no place in a Cohere assistant message)")
    message: dict[str, Any] = {"role": "assistant"}
    if calls:
        if words:
            message["tool_plan"] = _plan(words)
        message["tool_calls"] = [_cohere_call(call) for call in calls]
    else:
        message["content"] = words
    if citations:
        message["citations"] = citations
    return message


def _plan(blocks: list[dict[str, Any]]) -> str:
    """Thinking and text as one plan: each run of one kind as it streamed, a blank line
    where the kind changes (the thinking, then what was said)."""
    runs: list[tuple[str, str]] = []
    for block in blocks:
        kind = block["type"]
        if runs and runs[-1][0] == kind:
            runs[-1] = (kind, runs[-1][1] + block[kind])
        else:
            runs.append((kind, block[kind]))
    return "\n\n".join(text for _, text in runs)


def _cohere_call(call: ToolCallDone) -> dict[str, Any]:
    return {
        "id": call.tool_call_id,
        "type": "function",
        "function": {"name": call.name, "arguments": _arguments_text(call)},
    }


def _ollama(items: tuple[Any, ...], turn: _Turn) -> Any:
    """The chat message as the ollama client's `Message` takes it: one `content`, one
    `thinking`, `tool_calls` by name and arguments (the client's message has no call id:
    results are linked by `tool_name`), `images` as base64."""
    texts: list[str] = []
    thinking: list[str] = []
    calls: list[dict[str, Any]] = []
    images: list[str] = []
    for item in items:
        turn.keep(getattr(item, "fidelity", None), item.kind)
        if _is_redacted(item):
            turn.leave("redacted thinking (no place in an Ollama message)")
        elif type(item) is ThinkingDone:
            thinking.append(item.thinking)
        elif type(item) is TextDone:
            texts.append(item.text)
        elif type(item) is ToolCallDone:
            calls.append({"function": {"name": item.name, "arguments": item.arguments}})
        elif type(item) is InlineDataDone and item.mime_type.startswith("image/"):
            images.append(base64.b64encode(item.data).decode())
        else:
            turn.leave(f"{_described(item)} (no place in an Ollama message)")
    message: dict[str, Any] = {"role": "assistant", "content": "".join(texts)}
    if any(thinking):
        message["thinking"] = "".join(thinking)
    if images:
        message["images"] = images
    if calls:
        message["tool_calls"] = calls
    return message


def _described(item: Any) -> str:
    mime = getattr(item, "mime_type", None)
    return f"{item.type} {mime}" if mime else str(item.type)


def _gemini_interactions(items: tuple[Any, ...], turn: _Turn) -> Any:
    """The turn as Interactions input steps, one per item, in stream order: `thought`
    (its summary, its signature), `model_output` (text with its annotations, images,
    audio) and `function_call`; a list, as `input` takes the history when the request
    keeps no state (`store=False`)."""
    steps: list[dict[str, Any]] = []
    for item in items:
        kept = turn.keep(getattr(item, "fidelity", None), item.kind)
        if _is_redacted(item):
            turn.leave("redacted thinking (no place in an Interactions thought)")
            continue
        if type(item) is ToolCallDone:
            if "signature" in kept:
                turn.leave("tool_call signature (an Interactions function_call step has none)")
            steps.append(_interactions_call(item))
            continue
        step: dict[str, Any] | None
        if type(item) in (ThinkingDone, InlineThinkingDone):
            step = _interactions_thought(item, kept)
        elif type(item) in (TextDone, InlineDataDone):
            step = _interactions_output(item, kept, turn)
        else:
            turn.leave(f"{item.type} (no place in Interactions steps)")
            continue
        if step is not None:
            steps.append(step)
    return steps


def _interactions_call(call: ToolCallDone) -> dict[str, Any]:
    return {"type": "function_call", "id": call.tool_call_id, "name": call.name, "arguments": call.arguments}


def _interactions_thought(item: ThinkingDone | InlineThinkingDone, kept: dict[str, Any]) -> dict[str, Any]:
    step: dict[str, Any] = {"type": "thought"}
    if type(kept.get("signature")) is str:
        step["signature"] = kept["signature"]
    if isinstance(item, InlineThinkingDone):
        step["summary"] = [_interactions_media(item.data, item.mime_type)]
    elif item.thinking:
        step["summary"] = [{"type": "text", "text": item.thinking}]
    return step


def _interactions_output(item: TextDone | InlineDataDone, kept: dict[str, Any], turn: _Turn) -> dict[str, Any] | None:
    if isinstance(item, TextDone):
        if not item.text and not kept.get("annotations"):
            return None
        content: dict[str, Any] = {"type": "text", "text": item.text}
        if kept.get("annotations"):
            content["annotations"] = kept["annotations"]
    elif item.mime_type.startswith(("image/", "audio/")):
        content = _interactions_media(item.data, item.mime_type)
    else:
        turn.leave(f"inline_data {item.mime_type} (Interactions output takes images and audio)")
        return None
    return {"type": "model_output", "content": [content]}


def _interactions_media(data: bytes, mime: str) -> dict[str, Any]:
    """An image or audio content; audio's `; rate=...; channels=...` (as the decoder
    writes them into the mime type) back in their own fields."""
    kind, *params = (part.strip() for part in mime.split(";"))
    content: dict[str, Any] = {"type": kind.partition("/")[0], "data": base64.b64encode(data).decode()}
    content["mime_type"] = kind
    for param in params:
        name, _, value = param.partition("=")
        field = {"rate": "sample_rate", "channels": "channels"}.get(name)
        if field and value.isdigit():
            content[field] = int(value)
    return content


def _mmsp(message: Message) -> Any:
    return to_json(message)


#: per protocol: how the turn is built, and the fidelity keys its request takes back
REPLAYS: dict[str, tuple[Any, frozenset[str]]] = {
    "anthropic": (_anthropic, frozenset({"signature", "citations"})),
    "openai_chat": (
        _openai_chat,
        frozenset(
            {"reasoning_field", "signature", "format", "encrypted_content", "reasoning_id", "extra_content", "refusal"}
            | {"item_type", "audio_transcript", "audio_id", "expires_at"}
        ),
    ),
    "openai_responses": (
        _openai_responses,
        frozenset(
            {"encrypted_content", "reasoning_id", "channel", "phase", "message_id"}
            | {"item_type", "call_item_id", "namespace", "caller", "environment"}
            | {"image_generation_call_id", *_IMAGE_CALL_FIELDS}
        ),
    ),
    "gemini": (_gemini, frozenset({"signature"})),
    "gemini_interactions": (_gemini_interactions, frozenset({"signature", "annotations"})),
    "bedrock_converse": (_bedrock_converse, frozenset({"signature", "citations"})),
    "cohere": (_cohere, frozenset({"citations"})),
    "ollama": (_ollama, frozenset()),
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
    """The message (the input item for ``openai_responses``, the step for
    ``gemini_interactions``) that answers `call` with `output` in `protocol`'s request
    format, linked to the call by its id (Gemini: by its name and id; Ollama, whose
    messages carry no call id: by the tool's name).  Where the format has no error flag
    (Chat Completions, Cohere, Ollama) the output itself says what went wrong."""
    text = output if isinstance(output, str) else orjson.dumps(output).decode()
    answer = _TOOL_RESULTS.get(protocol)
    if answer is None:
        raise ReplayError(f"no tool result format for {protocol!r}")
    return answer(call, output, text, is_error)


def _anthropic_result(call: ToolCallDone, output: str | dict[str, Any], text: str, is_error: bool) -> Any:
    block: dict[str, Any] = {"type": "tool_result", "tool_use_id": call.tool_call_id, "content": text}
    if is_error:
        block["is_error"] = True
    return {"role": "user", "content": [block]}


def _chat_result(call: ToolCallDone, output: str | dict[str, Any], text: str, is_error: bool) -> Any:
    # Cohere v2's tool message has the same three fields
    return {"role": "tool", "tool_call_id": call.tool_call_id, "content": text}


def _gemini_result(call: ToolCallDone, output: str | dict[str, Any], text: str, is_error: bool) -> Any:
    response = {"error": output} if is_error else (output if isinstance(output, dict) else {"result": output})
    answer = {"name": call.name, "id": call.tool_call_id, "response": response}
    return {"role": "user", "parts": [{"functionResponse": answer}]}


def _interactions_result(call: ToolCallDone, output: str | dict[str, Any], text: str, is_error: bool) -> Any:
    step: dict[str, Any] = {"type": "function_result", "call_id": call.tool_call_id, "name": call.name}
    step["result"] = output
    if is_error:
        step["is_error"] = True
    return step


def _converse_result(call: ToolCallDone, output: str | dict[str, Any], text: str, is_error: bool) -> Any:
    """A dict output as the result's `json` block, text as its `text` block."""
    content = {"json": output} if isinstance(output, dict) else {"text": output}
    result: dict[str, Any] = {"toolUseId": call.tool_call_id, "content": [content]}
    if is_error:
        result["status"] = "error"
    return {"role": "user", "content": [{"toolResult": result}]}


def _ollama_result(call: ToolCallDone, output: str | dict[str, Any], text: str, is_error: bool) -> Any:
    return {"role": "tool", "content": text, "tool_name": call.name}


def _mmsp_result(call: ToolCallDone, output: str | dict[str, Any], text: str, is_error: bool) -> Any:
    return to_json(Message("user", (ToolResultDone(text, call.tool_call_id),), None, None, None))


def _responses_result(call: ToolCallDone, output: str | dict[str, Any], text: str, is_error: bool) -> Any:
    return _responses_answer(call, output, text, is_error)


_TOOL_RESULTS: dict[str, Callable[[ToolCallDone, str | dict[str, Any], str, bool], Any]] = {
    "anthropic": _anthropic_result,
    "openai_chat": _chat_result,
    "openai_responses": _responses_result,
    "gemini": _gemini_result,
    "gemini_interactions": _interactions_result,
    "bedrock_converse": _converse_result,
    "cohere": _chat_result,
    "ollama": _ollama_result,
    "mmsp": _mmsp_result,
}

REQUEST_WRITERS.to_request = to_request
REQUEST_WRITERS.replay = replay
