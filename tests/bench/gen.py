"""Deterministic generator of provider streaming bodies with ground truth.

Four SSE protocols written here, each shaped like what the provider actually sends
(compact JSON with raw UTF-8, the providers' field order and their per-event
bookkeeping fields):

* ``openai_chat``: ``data: {chat.completion.chunk}`` events; a role chunk, content
  deltas of 3-5 characters, 2 or 4 parallel tool calls streamed by index, a finish
  chunk, a usage-only chunk with ``choices: []``, then ``data: [DONE]``.
* ``anthropic``: ``event: <type>`` + ``data: <json>``; message_start, a thinking block
  (thinking_delta + one signature_delta), a text block, a tool_use block
  (input_json_delta), message_delta with usage, message_stop, and pings.
* ``openai_responses``: ``event: <type>`` + ``data: <json>`` with a sequence_number;
  a reasoning item (summary deltas, encrypted_content), a message item (output_text
  deltas), 2 or 4 function_call items, and response.completed with output and usage.
* ``gemini``: ``data: <record>`` + CRLF CRLF, a thought part or a text part per record
  with usage on every record, and a functionCall record with the finish reason.

and four whose bodies are beyond_sse.py's text answers (imported from there when first
built), their ground truth read back from the generated payloads:

* ``ollama`` (NDJSON lines), ``cohere`` (SSE, ``event:`` + ``data:``, then
  ``data: [DONE]``), ``bedrock_converse`` and ``bedrock_invoke`` (the AWS binary event
  stream; invoke's frames carry Anthropic's events as base64 in ``{"bytes": ...}``).

The same (protocol, n_events, seed) always gives the same bytes, so runs compare.

    python tests/bench/gen.py               # sizes of the benchmark streams
    python tests/bench/gen.py --write DIR   # also write them as DIR/<protocol>_<size>.<ext>
"""

from __future__ import annotations

import argparse
import base64
import random
import string
import struct
import sys
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path
from typing import Any

import orjson

#: the protocols whose bodies beyond_sse.py generates (text answers) and floors
BEYOND_SSE = ("ollama", "cohere", "bedrock_converse", "bedrock_invoke")
PROTOCOLS = ("openai_chat", "anthropic", "openai_responses", "gemini", *BEYOND_SSE)
#: what separates two records on each protocol's wire (Gemini's SSE: CRLF CRLF)
SEPARATORS = {"gemini": b"\r\n\r\n"}
#: how each protocol's records are framed: SSE unless named here
FRAMING = {"ollama": "lines", "bedrock_converse": "aws", "bedrock_invoke": "aws"}
SIZES = {"small": 300, "large": 20_000}  # target number of events (records) per stream
FEEDS = ("whole", "split")

JsonObj = dict[str, Any]

_ALNUM = string.ascii_letters + string.digits
_HEX = "0123456789abcdef"
_VOCABULARY = (
    "the of and to in is that for it as with was on be by this are from or an which "
    "stream token model event parser buffer delta chunk byte line field value request "
    "response function call argument result output input message content server client "
    "latency decode encode json schema object array string number first then next "
    "because however example index offset length we you they should would could can "
    "will must may not only also more python async await yield return class import"
)
_WORDS = _VOCABULARY.split()
# About 2% of the words: multi-byte UTF-8 (2, 3 and 4 bytes) so that split feeds cut
# through code points and decoders must not decode piece by piece.
_NON_ASCII = (
    "café",
    "naïve",
    "—",
    "→",
    "€5",
    "日本語",
    "Ünïcödé",
    "😀",
    "über",
    "±0.5",
)
_TOOL_NAMES = ("write_file", "get_weather", "search_docs", "run_tests", "read_file")


@dataclass(frozen=True)
class ToolCall:
    call_id: str
    name: str
    arguments: str  # JSON text, as streamed


@dataclass(frozen=True)
class Stream:
    """One generated body and what a correct decoder must reproduce from it."""

    protocol: str
    data: bytes
    n_events: int  # records: SSE events (pings and [DONE] included), lines or frames
    n_payloads: int  # records whose data is JSON (all but [DONE])
    text: str
    thinking: str
    tool_calls: tuple[ToolCall, ...]


class _Sse:
    """Collects SSE events as wire bytes and counts them."""

    def __init__(self) -> None:
        self.parts: list[bytes] = []
        self.n_json = 0
        self.n_events = 0

    def data(self, obj: object) -> None:
        self.parts.append(b"data: " + orjson.dumps(obj) + b"\n\n")
        self.n_json += 1
        self.n_events += 1

    def event(self, name: str, obj: object) -> None:
        head = b"event: " + name.encode() + b"\ndata: "
        self.parts.append(head + orjson.dumps(obj) + b"\n\n")
        self.n_json += 1
        self.n_events += 1

    def done(self) -> None:
        self.parts.append(b"data: [DONE]\n\n")
        self.n_events += 1

    def stream(
        self, protocol: str, text: str, thinking: str, tools: list[ToolCall]
    ) -> Stream:
        body = b"".join(self.parts)
        return Stream(
            protocol, body, self.n_events, self.n_json, text, thinking, tuple(tools)
        )


# --------------------------------------------------------------------------- content


def _rand_id(rng: random.Random, n: int, alphabet: str = _ALNUM) -> str:
    return "".join(rng.choices(alphabet, k=n))


def _word(rng: random.Random) -> str:
    r = rng.random()
    word = rng.choice(_WORDS)
    if r < 0.02:
        return rng.choice(_NON_ASCII)
    if r < 0.03:
        return f'"{word}"'  # JSON escapes
    if r < 0.035:
        return f"`{word}()`"
    if r < 0.037:
        return "C:\\src\\" + word  # backslashes, escaped on the wire
    return word


def prose(rng: random.Random, n_chars: int) -> str:
    """Markdown-ish text: sentences, paragraphs, list items, quotes, non-ASCII."""
    out: list[str] = []
    total = 0
    capital = True
    while total < n_chars:
        w = _word(rng)
        if capital:
            w = w[:1].upper() + w[1:]
            capital = False
        r = rng.random()
        if r < 0.08:
            capital = True
            w += "\n\n- " if rng.random() < 0.1 else ". "
        else:
            w += ", " if r < 0.13 else " "
        out.append(w)
        total += len(w)
    return "".join(out)[:n_chars]


def cut(rng: random.Random, s: str, lo: int, hi: int) -> list[str]:
    """Consecutive pieces of lo..hi code points: how models stream tokens."""
    pieces: list[str] = []
    i = 0
    while i < len(s):
        n = rng.randint(lo, hi)
        pieces.append(s[i : i + n])
        i += n
    return pieces


def _tool_arguments(rng: random.Random, n_chars: int) -> str:
    """A code-editing tool's arguments: a JSON object of about n_chars characters."""
    path = f"src/{rng.choice(_WORDS)}_{rng.randint(1, 99)}.py"
    content = prose(rng, max(0, n_chars - 60))
    obj = {"path": path, "mode": "overwrite", "content": content}
    return orjson.dumps(obj).decode()


def _n_tools(n_events: int) -> int:
    return 2 if n_events < 1000 else 4


# --------------------------------------------------------------------------- OpenAI Chat


def openai_chat(n_events: int, seed: int = 0) -> Stream:
    rng = random.Random(f"openai_chat/{n_events}/{seed}")
    n_tools = _n_tools(n_events)
    budget = max(20, n_events - 4 - n_tools)  # role, finish, usage, [DONE], headers
    n_frags = budget // 5  # ~20% argument fragments
    text = prose(rng, (budget - n_frags) * 4)  # 3..5 chars per delta
    tools = [
        ToolCall(
            "call_" + _rand_id(rng, 24),
            _TOOL_NAMES[i],
            _tool_arguments(rng, n_frags // n_tools * 5),  # 3..7 chars per fragment
        )
        for i in range(n_tools)
    ]
    head: JsonObj = {
        "id": "chatcmpl-" + _rand_id(rng, 29),
        "object": "chat.completion.chunk",
        "created": 1_750_000_000 + rng.randint(0, 10_000_000),
        "model": "gpt-4.1-2025-04-14",
        "service_tier": "default",
        "system_fingerprint": "fp_" + _rand_id(rng, 10, _HEX),
    }
    sse = _Sse()

    def chunk(delta: JsonObj, finish: str | None = None) -> None:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
        obf = _rand_id(rng, rng.randint(1, 12))
        sse.data({**head, "choices": [choice], "usage": None, "obfuscation": obf})

    chunk({"role": "assistant", "content": "", "refusal": None})
    for piece in cut(rng, text, 3, 5):
        chunk({"content": piece})
    for index, tool in enumerate(tools):
        fn = {"name": tool.name, "arguments": ""}
        first = {"index": index, "id": tool.call_id, "type": "function", "function": fn}
        chunk({"tool_calls": [first]})
        for frag in cut(rng, tool.arguments, 3, 7):
            chunk({"tool_calls": [{"index": index, "function": {"arguments": frag}}]})
    chunk({}, "tool_calls")
    usage = _chat_usage(1000 + rng.randint(0, 500), sse.n_events)
    sse.data({**head, "choices": [], "usage": usage, "obfuscation": _rand_id(rng, 6)})
    sse.done()
    return sse.stream("openai_chat", text, "", tools)


def _chat_usage(prompt: int, completion: int) -> JsonObj:
    return {
        "prompt_tokens": prompt,
        "completion_tokens": completion,
        "total_tokens": prompt + completion,
        "prompt_tokens_details": {"cached_tokens": 0, "audio_tokens": 0},
        "completion_tokens_details": {
            "reasoning_tokens": 0,
            "audio_tokens": 0,
            "accepted_prediction_tokens": 0,
            "rejected_prediction_tokens": 0,
        },
    }


# --------------------------------------------------------------------------- Anthropic


def anthropic(n_events: int, seed: int = 0) -> Stream:
    rng = random.Random(f"anthropic/{n_events}/{seed}")
    budget = max(20, n_events - 12 - n_events // 400)  # fixed events and pings
    thinking = prose(rng, budget * 30 // 100 * 4)  # 3..5 chars per delta
    text = prose(rng, budget * 55 // 100 * 4)
    tool = ToolCall(
        "toolu_01" + _rand_id(rng, 22),
        "write_file",
        _tool_arguments(rng, budget * 15 // 100 * 12),  # 8..16 chars per fragment
    )
    signature = _rand_id(rng, 344, _ALNUM + "+/") + "=="
    prompt = 2000 + rng.randint(0, 500)
    sse = _Sse()
    count = 0

    def ev(obj: JsonObj) -> None:
        nonlocal count
        sse.event(obj["type"], obj)
        count += 1
        if count % 400 == 0:  # the API interleaves keep-alive pings
            sse.event("ping", {"type": "ping"})

    ev(_message_start(rng, prompt))
    sse.event("ping", {"type": "ping"})
    blocks: list[tuple[JsonObj, list[JsonObj]]] = [
        (
            {"type": "thinking", "thinking": "", "signature": ""},
            [
                {"type": "thinking_delta", "thinking": p}
                for p in cut(rng, thinking, 3, 5)
            ]
            + [{"type": "signature_delta", "signature": signature}],
        ),
        (
            {"type": "text", "text": ""},
            [{"type": "text_delta", "text": p} for p in cut(rng, text, 3, 5)],
        ),
        (
            {"type": "tool_use", "id": tool.call_id, "name": tool.name, "input": {}},
            [{"type": "input_json_delta", "partial_json": ""}]
            + [
                {"type": "input_json_delta", "partial_json": p}
                for p in cut(rng, tool.arguments, 8, 16)
            ],
        ),
    ]
    for index, (start, deltas) in enumerate(blocks):
        ev({"type": "content_block_start", "index": index, "content_block": start})
        for delta in deltas:
            ev({"type": "content_block_delta", "index": index, "delta": delta})
        ev({"type": "content_block_stop", "index": index})
    ev(
        {
            "type": "message_delta",
            "delta": {"stop_reason": "tool_use", "stop_sequence": None},
            "usage": {
                "input_tokens": prompt,
                "cache_creation_input_tokens": 0,
                "cache_read_input_tokens": 0,
                "output_tokens": count,
            },
        }
    )
    ev({"type": "message_stop"})
    return sse.stream("anthropic", text, thinking, [tool])


def _message_start(rng: random.Random, prompt: int) -> JsonObj:
    usage = {
        "input_tokens": prompt,
        "cache_creation_input_tokens": 0,
        "cache_read_input_tokens": 0,
        "cache_creation": {
            "ephemeral_5m_input_tokens": 0,
            "ephemeral_1h_input_tokens": 0,
        },
        "output_tokens": 1,
        "service_tier": "standard",
    }
    message: JsonObj = {
        "model": "claude-sonnet-4-5-20250929",
        "id": "msg_01" + _rand_id(rng, 22),
        "type": "message",
        "role": "assistant",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    return {"type": "message_start", "message": message}


# --------------------------------------------------------------------------- OpenAI Responses


class _ResponsesWriter:
    """Numbers every event (sequence_number) and keeps the finished output items."""

    def __init__(self, rng: random.Random) -> None:
        self.rng = rng
        self.sse = _Sse()
        self.seq = 0
        self.items: list[JsonObj] = []

    def ev(self, etype: str, **fields: Any) -> None:
        self.sse.event(etype, {"type": etype, "sequence_number": self.seq, **fields})
        self.seq += 1

    def obfuscation(self) -> str:
        return _rand_id(self.rng, self.rng.randint(1, 14))

    def item(self, index: int, added: JsonObj, done: JsonObj) -> None:
        """Open an output item; the caller streams its body, then close_item()."""
        self.ev("response.output_item.added", output_index=index, item=added)
        self.items.append(done)

    def close_item(self, index: int) -> None:
        self.ev("response.output_item.done", output_index=index, item=self.items[index])


def openai_responses(n_events: int, seed: int = 0) -> Stream:
    rng = random.Random(f"openai_responses/{n_events}/{seed}")
    n_tools = _n_tools(n_events)
    budget = max(20, n_events - 13 - 3 * n_tools)  # fixed events per item and response
    summary = prose(rng, budget * 30 // 100 * 4)
    text = prose(rng, budget * 55 // 100 * 4)
    tools = [
        ToolCall(
            "call_" + _rand_id(rng, 24),
            _TOOL_NAMES[i],
            _tool_arguments(rng, budget * 15 // 100 // n_tools * 5),
        )
        for i in range(n_tools)
    ]
    w = _ResponsesWriter(rng)
    resp_id = "resp_" + _rand_id(rng, 48, _HEX)
    created = 1_750_000_000 + rng.randint(0, 10_000_000)
    names = sorted({t.name for t in tools})
    w.ev("response.created", response=_response(resp_id, created, names, [], None))
    w.ev("response.in_progress", response=_response(resp_id, created, names, [], None))
    _reasoning_item(w, 0, summary)
    _message_item(w, 1, text)
    for index, tool in enumerate(tools, start=2):
        _function_call_item(w, index, tool)
    prompt = 1500 + rng.randint(0, 500)
    usage = {
        "input_tokens": prompt,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": w.seq,
        "output_tokens_details": {"reasoning_tokens": budget * 30 // 100},
        "total_tokens": prompt + w.seq,
    }
    final = _response(resp_id, created, names, w.items, usage, "completed")
    w.ev("response.completed", response=final)
    return w.sse.stream("openai_responses", text, summary, tools)


def _reasoning_item(w: _ResponsesWriter, index: int, summary: str) -> None:
    item_id = "rs_" + _rand_id(w.rng, 48, _HEX)
    encrypted = _rand_id(w.rng, 600, _ALNUM + "+/_-")  # replayed, never shown
    part = {"type": "summary_text", "text": summary}
    added = {"id": item_id, "type": "reasoning", "encrypted_content": encrypted}
    w.item(index, {**added, "summary": []}, {**added, "summary": [part]})
    at = {"item_id": item_id, "output_index": index, "summary_index": 0}
    empty = {"type": "summary_text", "text": ""}
    w.ev("response.reasoning_summary_part.added", **at, part=empty)
    for piece in cut(w.rng, summary, 3, 5):
        obf = w.obfuscation()
        w.ev(
            "response.reasoning_summary_text.delta", **at, delta=piece, obfuscation=obf
        )
    w.ev("response.reasoning_summary_text.done", **at, text=summary)
    w.ev("response.reasoning_summary_part.done", **at, part=part)
    w.close_item(index)


def _message_item(w: _ResponsesWriter, index: int, text: str) -> None:
    item_id = "msg_" + _rand_id(w.rng, 48, _HEX)
    part = {"type": "output_text", "annotations": [], "logprobs": [], "text": text}
    base = {"id": item_id, "type": "message", "role": "assistant"}
    added = {**base, "status": "in_progress", "content": []}
    w.item(index, added, {**base, "status": "completed", "content": [part]})
    at = {"item_id": item_id, "output_index": index, "content_index": 0}
    w.ev("response.content_part.added", **at, part={**part, "text": ""})
    for piece in cut(w.rng, text, 3, 5):
        obf = w.obfuscation()
        w.ev(
            "response.output_text.delta",
            **at,
            delta=piece,
            logprobs=[],
            obfuscation=obf,
        )
    w.ev("response.output_text.done", **at, text=text, logprobs=[])
    w.ev("response.content_part.done", **at, part=part)
    w.close_item(index)


def _function_call_item(w: _ResponsesWriter, index: int, tool: ToolCall) -> None:
    item_id = "fc_" + _rand_id(w.rng, 48, _HEX)
    base = {"id": item_id, "type": "function_call", "call_id": tool.call_id}
    added = {**base, "status": "in_progress", "arguments": "", "name": tool.name}
    done = {
        **base,
        "status": "completed",
        "arguments": tool.arguments,
        "name": tool.name,
    }
    w.item(index, added, done)
    at = {"item_id": item_id, "output_index": index}
    for frag in cut(w.rng, tool.arguments, 3, 7):
        obf = w.obfuscation()
        w.ev(
            "response.function_call_arguments.delta", **at, delta=frag, obfuscation=obf
        )
    w.ev("response.function_call_arguments.done", **at, arguments=tool.arguments)
    w.close_item(index)


def _response(
    resp_id: str,
    created: int,
    tool_names: list[str],
    output: list[JsonObj],
    usage: JsonObj | None,
    status: str = "in_progress",
) -> JsonObj:
    """The full response object the API repeats in created/in_progress/completed."""
    params = {
        "type": "object",
        "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
        "required": ["path"],
    }
    tools = [
        {
            "type": "function",
            "description": f"Tool {name}",
            "name": name,
            "parameters": params,
            "strict": False,
        }
        for name in tool_names
    ]
    return {
        "id": resp_id,
        "object": "response",
        "created_at": created,
        "status": status,
        "background": False,
        "error": None,
        "incomplete_details": None,
        "instructions": None,
        "max_output_tokens": None,
        "max_tool_calls": None,
        "model": "gpt-5-2025-08-07",
        "output": output,
        "parallel_tool_calls": True,
        "previous_response_id": None,
        "prompt_cache_key": None,
        "reasoning": {"effort": "medium", "summary": "auto"},
        "safety_identifier": None,
        "service_tier": "default",
        "store": True,
        "temperature": 1.0,
        "text": {"format": {"type": "text"}, "verbosity": "medium"},
        "tool_choice": "auto",
        "tools": tools,
        "top_logprobs": 0,
        "top_p": 1.0,
        "truncation": "disabled",
        "usage": usage,
        "user": None,
        "metadata": {},
    }


# --------------------------------------------------------------------------- feeds

_BUILDERS: dict[str, Callable[[int, int], Stream]] = {
    "openai_chat": openai_chat,
    "anthropic": anthropic,
    "openai_responses": openai_responses,
}


def gemini(n_events: int, seed: int = 0) -> Stream:
    """streamGenerateContent?alt=sse: `data: <record>` + CRLF CRLF, usage on every record."""
    rng = random.Random(f"gemini/{n_events}/{seed}")
    budget = max(10, n_events - 2)
    thinking = prose(rng, budget * 30 // 100 * 12)  # records carry more text than chat deltas
    text = prose(rng, budget * 65 // 100 * 12)
    tool = ToolCall("call_s_1", "get_weather", '{"city":"Oslo","days":3}')
    signature = _rand_id(rng, 344, _ALNUM + "+/")  # base64 of 258 bytes: the SDK decodes it
    prompt = 800 + rng.randint(0, 200)
    response_id = _rand_id(rng, 22)
    parts: list[bytes] = []
    out_tokens = 0

    def record(part: JsonObj, finish: str | None = None) -> None:
        nonlocal out_tokens
        out_tokens += 3
        candidate: JsonObj = {"content": {"parts": [part], "role": "model"}, "index": 0}
        if finish:
            candidate["finishReason"] = finish
        usage = {"promptTokenCount": prompt, "candidatesTokenCount": out_tokens, "totalTokenCount": prompt + out_tokens}
        obj = {"candidates": [candidate], "usageMetadata": usage, "modelVersion": "gemini-2.5-pro", "responseId": response_id}
        parts.append(b"data: " + orjson.dumps(obj) + b"\r\n\r\n")

    for piece in cut(rng, thinking, 10, 14):
        record({"text": piece, "thought": True})
    pieces = cut(rng, text, 10, 14)
    record({"text": pieces[0], "thoughtSignature": signature})
    for piece in pieces[1:]:
        record({"text": piece})
    record({"functionCall": {"name": tool.name, "args": orjson.loads(tool.arguments)}}, "STOP")
    n = len(parts)
    return Stream("gemini", b"".join(parts), n, n, text, thinking, (tool,))


_BUILDERS["gemini"] = gemini


# --------------------------------------------------------------------------- beyond SSE


def beyond_sse_stream(protocol: str, n_events: int, seed: int = 0) -> Stream:
    """beyond_sse.py's body of n_events text deltas, with its ground truth read back."""
    import beyond_sse as bodies  # imports unievent (its event-stream frame writer)

    rng = random.Random(f"{protocol}/{n_events}/{seed}")
    data = getattr(bodies, protocol)(rng, n_events)
    records = _records(protocol, data)
    payloads = [orjson.loads(r) for r in records if r != b"[DONE]"]
    if protocol == "bedrock_invoke":  # Anthropic's events, base64 in each frame
        payloads = [orjson.loads(base64.b64decode(p["bytes"])) for p in payloads]
    text = "".join(_text_of(protocol, p) for p in payloads)
    return Stream(protocol, data, len(records), len(payloads), text, "", ())


def _records(protocol: str, data: bytes) -> list[bytes]:
    """The payload of every record on the wire, in order (``[DONE]`` included)."""
    framing = FRAMING.get(protocol, "sse")
    if framing == "lines":
        return data.split(b"\n")[:-1]
    if framing == "sse":
        return [f[f.index(b"data: ") + 6 :] for f in data.split(b"\n\n")[:-1]]
    out = []
    pos = 0
    while pos < len(data):  # prelude: total length, headers length, CRC
        total, headers = struct.unpack_from(">II", data, pos)
        out.append(data[pos + 12 + headers : pos + total - 4])
        pos += total
    return out


def _text_of(protocol: str, obj: JsonObj) -> str:
    """The answer text one payload of beyond_sse.py's shapes carries."""
    if protocol == "ollama":
        return str(obj["message"]["content"])
    if protocol == "cohere":
        if obj["type"] != "content-delta":
            return ""
        return str(obj["delta"]["message"]["content"]["text"])
    if protocol == "bedrock_converse":
        return str(obj.get("delta", {}).get("text", ""))
    delta = obj.get("delta", {})  # bedrock_invoke: an Anthropic event
    return str(delta["text"]) if delta.get("type") == "text_delta" else ""


_BUILDERS.update({p: partial(beyond_sse_stream, p) for p in BEYOND_SSE})

#: the file extension of each framing (gen.py --write)
_EXTENSIONS = {"sse": "sse", "lines": "ndjson", "aws": "eventstream"}


def build(protocol: str, n_events: int, seed: int = 0) -> Stream:
    return _BUILDERS[protocol](n_events, seed)


def split(data: bytes, seed: int = 0, lo: int = 1, hi: int = 4096) -> list[bytes]:
    """Pieces of lo..hi bytes, blind to event, line and UTF-8 boundaries (a socket)."""
    rng = random.Random(f"split/{len(data)}/{seed}")
    pieces: list[bytes] = []
    i = 0
    while i < len(data):
        n = rng.randint(lo, hi)
        pieces.append(data[i : i + n])
        i += n
    return pieces


def feed(stream: Stream, how: str) -> list[bytes]:
    """'whole': the body as one bytes object; 'split': network-sized pieces."""
    if how == "whole":
        return [stream.data]
    if how == "split":
        return split(stream.data)
    raise ValueError(f"unknown feed {how!r}")


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description="Print (and write) the benchmark streams.")
    ap.add_argument("--write", metavar="DIR", help="write <protocol>_<size>.sse files")
    ap.add_argument("--seed", type=int, default=0)
    args = ap.parse_args(argv)
    print("| protocol | size | events | bytes | B/event | pieces (split) |")
    print("|---|---|---|---|---|---|")
    for protocol in PROTOCOLS:
        for size, n in SIZES.items():
            s = build(protocol, n, args.seed)
            n_pieces = len(split(s.data, args.seed))
            per_event = len(s.data) // s.n_events
            print(
                f"| {protocol} | {size} | {s.n_events:,} | {len(s.data):,} "
                f"| {per_event} | {n_pieces:,} |"
            )
            if args.write:
                out = Path(args.write)
                out.mkdir(parents=True, exist_ok=True)
                ext = _EXTENSIONS[FRAMING.get(protocol, "sse")]
                (out / f"{protocol}_{size}.{ext}").write_bytes(s.data)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
