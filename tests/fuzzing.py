"""Mutation fuzzing of real and suite streams, and the invariants every input keeps.

Seeds are the recorded streams of ../shared/corpus (when present) and streams built
here for every protocol.  A mutation is drawn from a seeded random generator, so a
failing input is reproduced from its (seed, mutation) pair alone:

- cuts: at a frame boundary or at any byte;
- frames: dropped, duplicated, swapped;
- bytes: flipped, inserted, deleted;
- framing: comments, BOMs, CR / LF variants, an overlong line;
- JSON values of one frame: another type, a huge number, a lone surrogate, nesting 255
  or 100,000 deep, a type string, index or id changed.

Invariants, for each input (`check`): only unievent errors escape; every output passes
`validate` (`partial=True` unless complete); the result of a whole push equals that of
a random split, that of byte-at-a-time feeding and that of the full path alone (the
on-demand path off); the text in the outcome equals the text deltas emitted; no tool
call of a stream that did not complete is in its message.

    python -m tests.fuzzing --examples 100000          # a long campaign, prints a summary
    python tests/fuzz_atheris.py                      # coverage-guided, when atheris installs
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import itertools
import json
import os
import random
import struct
import sys
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
import orjson

import unievent
from unievent._decoder import StreamDecoder as RuntimeStreamDecoder  # takes any protocol name
from unievent._framing.aws_eventstream import encode_frame
from unievent._framing.sniff import is_prelude

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"
PROTOCOLS = (
    "openai_chat",
    "anthropic",
    "openai_responses",
    "gemini",
    "gemini_interactions",
    "mmsp",
    "openai_embeddings",
    "gemini_embeddings",
    "ollama",
    "cohere",
    "bedrock_converse",
    "bedrock_invoke",
)
MAX_FRAME = 64 * 1024  # small enough that an overlong line is cheap to build
BYTEWISE_LIMIT = 12_000  # inputs up to this size are also fed byte by byte

Seed = tuple[str, str, bytes]  # protocol, label, body


def _frame(obj: dict[str, Any], event: bool = True) -> bytes:
    head = f"event: {obj['type']}\n".encode() if event and "type" in obj else b""
    return head + b"data: " + orjson.dumps(obj) + b"\n\n"


def suite_seeds() -> list[Seed]:
    """A stream of each protocol's main shapes, built here (no corpus needed)."""
    chat: list[dict[str, Any]] = [
        {"choices": [{"delta": {"role": "assistant", "content": ""}}], "model": "m"},
        {"choices": [{"delta": {"reasoning_content": "think"}}]},
        {"choices": [{"delta": {"content": "Hé"}}]},
        {"choices": [{"delta": {"content": "llo 😀"}}]},
        {"choices": [{"delta": {"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "f", "arguments": '{"a"'}}]}}]},
        {"choices": [{"delta": {"tool_calls": [{"index": 0, "function": {"arguments": ": 1}"}}]}}]},
        {"choices": [{"delta": {}, "finish_reason": "tool_calls"}]},
        {"choices": [], "usage": {"prompt_tokens": 5, "completion_tokens": 3}},
    ]
    anthropic: list[dict[str, Any]] = [
        {"type": "message_start", "message": {"model": "c", "usage": {"input_tokens": 3, "output_tokens": 1}}},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": "hm"}},
        {"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "c2ln"}},
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        {"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": "Hi ✓"}},
        {"type": "content_block_stop", "index": 1},
        {"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "t", "name": "f", "input": {}}},
        {"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": '{"q": 1}'}},
        {"type": "content_block_stop", "index": 2},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}},
        {"type": "message_stop"},
    ]
    responses: list[dict[str, Any]] = [
        {"type": "response.created", "sequence_number": 0, "response": {"id": "r", "model": "m"}},
        {"type": "response.output_item.added", "sequence_number": 1, "output_index": 0, "item": {"id": "rs", "type": "reasoning"}},
        {"type": "response.reasoning_summary_text.delta", "sequence_number": 2, "output_index": 0, "item_id": "rs", "delta": "t"},
        {"type": "response.output_item.done", "sequence_number": 3, "output_index": 0, "item": {"id": "rs", "type": "reasoning", "encrypted_content": "e"}},
        {"type": "response.output_item.added", "sequence_number": 4, "output_index": 1, "item": {"id": "m", "type": "message"}},
        {"type": "response.output_text.delta", "sequence_number": 5, "output_index": 1, "item_id": "m", "delta": "Hey"},
        {"type": "response.output_item.done", "sequence_number": 6, "output_index": 1, "item": {"id": "m", "type": "message"}},
        {"type": "response.output_item.added", "sequence_number": 7, "output_index": 2, "item": {"id": "fc", "type": "function_call", "call_id": "c", "name": "f"}},
        {"type": "response.function_call_arguments.delta", "sequence_number": 8, "output_index": 2, "item_id": "fc", "delta": "{}"},
        {"type": "response.output_item.done", "sequence_number": 9, "output_index": 2, "item": {"id": "fc", "type": "function_call"}},
        {"type": "response.completed", "sequence_number": 10, "response": {"id": "r", "status": "completed", "usage": {"input_tokens": 4, "output_tokens": 2}}},
    ]
    gemini: list[dict[str, Any]] = [
        {"candidates": [{"content": {"parts": [{"text": "hm", "thought": True}], "role": "model"}}], "modelVersion": "g"},
        {"candidates": [{"content": {"parts": [{"text": "Hi ✓", "thoughtSignature": "c2ln"}], "role": "model"}, "index": 0}]},
        {"candidates": [{"content": {"parts": [{"functionCall": {"name": "f", "args": {"a": [1, {"b": None}]}}}]}}]},
        {"candidates": [{"content": {"parts": [{"functionCall": {"name": "g", "willContinue": True}}]}}]},
        {"candidates": [{"content": {"parts": [{"functionCall": {"partialArgs": [{"jsonPath": "$.q[0].x", "stringValue": "ab", "willContinue": True}], "willContinue": True}}]}}]},
        {"candidates": [{"content": {"parts": [{"functionCall": {"partialArgs": [{"jsonPath": "$.q[1]", "numberValue": 2.0}]}}]}}]},
        {"candidates": [{"content": {"parts": [{"inlineData": {"mimeType": "image/png", "data": "aGk="}}, {"executableCode": {"code": "1"}}]}}]},
        {"candidates": [{"content": {"parts": [{"text": "", "thoughtSignature": "ZW5k"}]}, "finishReason": "STOP"}],
         "usageMetadata": {"promptTokenCount": 9, "candidatesTokenCount": 3, "thoughtsTokenCount": 2}},
    ]
    interactions: list[dict[str, Any]] = [
        {"event_type": "interaction.created", "interaction": {"id": "i", "model": "g", "status": "in_progress"}},
        {"event_type": "step.start", "index": 0, "step": {"type": "thought"}},
        {"event_type": "step.delta", "index": 0, "delta": {"type": "thought_summary", "content": {"type": "text", "text": "hm"}}},
        {"event_type": "step.delta", "index": 0, "delta": {"type": "thought_signature", "signature": "c2ln"}},
        {"event_type": "step.stop", "index": 0},
        {"event_type": "step.start", "index": 1, "step": {"type": "model_output"}},
        {"event_type": "step.delta", "index": 1, "delta": {"type": "text", "text": "Hi"}},
        {"event_type": "step.stop", "index": 1},
        {"event_type": "step.start", "index": 2, "step": {"type": "function_call", "id": "c", "name": "f", "arguments": {}}},
        {"event_type": "step.delta", "index": 2, "delta": {"type": "arguments_delta", "arguments": '{"q": 1}'}},
        {"event_type": "step.stop", "index": 2},
        {"event_type": "interaction.completed", "interaction": {"status": "requires_action", "usage": {"total_input_tokens": 5}}},
    ]
    mmsp: list[unievent.DeltaEvent | unievent.StopEvent] = [
        unievent.DeltaEvent(unievent.ThinkingDelta("hm", {"signature": "c2ln"}), 1),
        unievent.DeltaEvent(unievent.ThinkingDone("hm", {"signature": "c2ln"}), 1),
        unievent.DeltaEvent(unievent.TextDelta("Hi "), 2),
        unievent.DeltaEvent(unievent.TextDelta("✓"), 2),
        unievent.DeltaEvent(unievent.TextDone("Hi ✓"), 2),
        unievent.DeltaEvent(unievent.InlineDataDelta(b"\x00\x01", "image/png"), 3),
        unievent.DeltaEvent(unievent.InlineDataDone(b"\x00\x01", "image/png"), 3),
        unievent.DeltaEvent(unievent.ToolCallDelta("f", '{"a": ', "c1"), 4),
        unievent.DeltaEvent(unievent.ToolCallDelta("", "1}", ""), 4),
        unievent.DeltaEvent(unievent.ToolCallDone("f", {"a": 1}, "c1"), 4),
        unievent.StopEvent(unievent.Usage(1, 2, 3, 4), "tool_call", 5),
    ]
    mmsp_body = b"".join(
        b"data: " + json.dumps(unievent.to_json(e), ensure_ascii=False).encode() + b"\n\n: keep-alive\n\n" for e in mmsp
    )
    array = b"[" + b",\r\n".join(orjson.dumps(o, option=orjson.OPT_INDENT_2) for o in gemini) + b"\n]"
    floats = [0.25, -1.5, 3e-8, 1]
    openai_embeddings = {
        "object": "list",
        "data": [
            {"object": "embedding", "index": 1, "embedding": base64.b64encode(struct.pack("<4f", *floats)).decode()},
            {"object": "embedding", "index": 0, "embedding": floats},
            {"object": "embedding", "index": 2, "embedding": []},
        ],
        "model": "text-embedding-3-small",
        "usage": {"prompt_tokens": 6, "total_tokens": 6},
    }
    gemini_embeddings = {"embeddings": [{"values": floats}, {"values": [0.5]}], "usageMetadata": {"promptTokenCount": 2}}
    converse: list[tuple[str, dict[str, Any]]] = [
        ("messageStart", {"p": "abcdefgh", "role": "assistant"}),
        ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": "hm"}}, "p": "ab"}),
        ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": "c2ln"}}, "p": "abc"}),
        ("contentBlockStop", {"contentBlockIndex": 0, "p": "abcdefghijk"}),
        ("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"text": "Hi ✓"}, "p": "a"}),
        ("contentBlockStop", {"contentBlockIndex": 1, "p": "abcdef"}),
        ("contentBlockStart", {"contentBlockIndex": 2, "start": {"toolUse": {"name": "f", "toolUseId": "tooluse_1"}}, "p": "ab"}),
        ("contentBlockDelta", {"contentBlockIndex": 2, "delta": {"toolUse": {"input": '{"q": 1}'}}, "p": "abc"}),
        ("contentBlockStop", {"contentBlockIndex": 2, "p": "abcd"}),
        ("messageStop", {"p": "abcdefghijklm", "stopReason": "tool_use"}),
        ("metadata", {"metrics": {"latencyMs": 522}, "p": "ab", "usage": {"inputTokens": 13, "outputTokens": 82, "totalTokens": 95}}),
    ]
    cohere: list[dict[str, Any]] = [
        {"id": "3ec845ed", "type": "message-start", "delta": {"message": {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": [], "citations": []}}},
        {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "plan"}}},
        {"type": "content-start", "index": 0, "delta": {"message": {"content": {"type": "thinking", "thinking": ""}}}},
        {"type": "content-delta", "index": 0, "delta": {"message": {"content": {"thinking": "hm"}}}},
        {"type": "content-end", "index": 0},
        {"type": "content-start", "index": 1, "delta": {"message": {"content": {"type": "text", "text": ""}}}},
        {"type": "content-delta", "index": 1, "delta": {"message": {"content": {"text": "Hi ✓"}}}},
        {"type": "citation-start", "index": 0, "delta": {"message": {"citations": {"start": 0, "end": 2, "text": "Hi", "sources": []}}}},
        {"type": "citation-end", "index": 0},
        {"type": "content-end", "index": 1},
        {"type": "tool-call-start", "index": 0, "delta": {"message": {"tool_calls": {"id": "f_1", "type": "function", "function": {"name": "f", "arguments": ""}}}}},
        {"type": "tool-call-delta", "index": 0, "delta": {"message": {"tool_calls": {"function": {"arguments": '{"q": 1}'}}}}},
        {"type": "tool-call-end", "index": 0},
        {"type": "message-end", "delta": {"finish_reason": "TOOL_CALL", "usage": {"billed_units": {"input_tokens": 4, "output_tokens": 9},
                                                                             "tokens": {"input_tokens": 70, "output_tokens": 9}, "cached_tokens": 20}}},
    ]
    at = {"model": "qwen3", "created_at": "2025-10-26T17:15:24.097767Z"}
    ollama: list[dict[str, Any]] = [
        {**at, "message": {"role": "assistant", "content": "", "thinking": "hm"}, "done": False},
        {**at, "message": {"role": "assistant", "content": "Hi ✓"}, "done": False},
        {**at, "message": {"role": "assistant", "content": "", "tool_calls": [
            {"id": "call_k3j9x2ab", "function": {"index": 0, "name": "f", "arguments": {"q": [1, {"b": None}]}}},
            {"function": {"index": 1, "name": "g", "arguments": {}}},
        ]}, "done": False},
        {**at, "message": {"role": "assistant", "content": "", "images": ["iVBORw0KGgo="]}, "done": False},
        {**at, "message": {"role": "assistant", "content": "!"}, "done": True, "done_reason": "stop",
         "total_duration": 1822, "prompt_eval_count": 26, "eval_count": 15, "eval_duration": 1159},
    ]
    return [
        ("openai_chat", "suite/chat", b"".join(_frame(o, event=False) for o in chat) + b"data: [DONE]\n\n"),
        ("anthropic", "suite/anthropic", b"".join(_frame(o) for o in anthropic)),
        ("openai_responses", "suite/responses", b"".join(_frame(o) for o in responses)),
        ("gemini", "suite/gemini", b"".join(_frame(o, event=False).replace(b"\n", b"\r\n") for o in gemini)),
        ("gemini", "suite/gemini-array", array),
        ("gemini_interactions", "suite/interactions", b"".join(_frame(o, event=False) for o in interactions) + b"event: done\ndata: [DONE]\n\n"),
        ("mmsp", "suite/mmsp", mmsp_body + b"data: [DONE]\n\n"),
        ("openai_embeddings", "suite/openai-embeddings", orjson.dumps(openai_embeddings, option=orjson.OPT_INDENT_2)),
        ("gemini_embeddings", "suite/gemini-embeddings", orjson.dumps(gemini_embeddings)),
        ("ollama", "suite/ollama", b"".join(orjson.dumps(o) + b"\n" for o in ollama)),
        ("cohere", "suite/cohere", b"".join(_frame(o) for o in cohere) + b"data: [DONE]\n\n"),
        ("bedrock_converse", "suite/bedrock-converse", b"".join(_aws(name, o) for name, o in converse)),
        ("bedrock_invoke", "suite/bedrock-invoke", b"".join(_aws("chunk", {"bytes": base64.b64encode(orjson.dumps(o)).decode(), "p": "abcd"}) for o in anthropic)),
    ]


def _aws(name: str, payload: dict[str, Any]) -> bytes:
    """An AWS event-stream frame as Bedrock writes it (`exception:<type>` names an exception frame)."""
    if name.startswith("exception:"):
        headers = [(":exception-type", name[10:]), (":content-type", "application/json"), (":message-type", "exception")]
    else:
        headers = [(":event-type", name), (":content-type", "application/json"), (":message-type", "event")]
    return encode_frame(headers, orjson.dumps(payload, option=orjson.OPT_SORT_KEYS))


def corpus_seeds() -> list[Seed]:
    """The recorded streams of the protocols unievent decodes (empty without the corpus)."""
    manifest = CORPUS / "manifest.json"
    if not manifest.is_file():
        return []
    seeds = []
    for entry in json.loads(manifest.read_text()):
        protocol = _CORPUS_PROTOCOLS.get(entry["protocol"], entry["protocol"])
        if protocol in unievent.PROTOCOLS:
            seeds.append((protocol, entry["file"], (CORPUS / entry["file"]).read_bytes()))
    return seeds


#: the corpus's protocol names that name no protocol here (every recorded bedrock stream is ConverseStream)
_CORPUS_PROTOCOLS = {"bedrock": "bedrock_converse"}


# --- mutations -----------------------------------------------------------------------------


def _separator(body: bytes) -> bytes:
    """What ends a frame: a line end in NDJSON (lines of whole JSON objects), else a
    blank line (SSE; one JSON body is one frame)."""
    first, found, _ = body.partition(b"\n")
    if found and first.startswith(b"{") and b"\n\n" not in body:
        try:
            orjson.loads(first)
        except orjson.JSONDecodeError:
            return b"\n\n"
        return b"\n"
    return b"\n\n"


def _aws_frames(body: bytes) -> list[bytes] | None:
    """The frames of an AWS event stream, by their lengths (None: the body is none; a
    tail that is no whole frame is a last piece of its own)."""
    if len(body) < 12 or not is_prelude(body[:12]):
        return None
    frames, pos = [], 0
    while pos < len(body):
        total = struct.unpack_from(">I", body, pos)[0] if len(body) - pos >= 12 else 0
        if total < 16 or pos + total > len(body):
            frames.append(body[pos:])
            break
        frames.append(body[pos : pos + total])
        pos += total
    return frames


def _reframe(frame: bytes, payload: bytes) -> bytes:
    """An event-stream frame with the same headers and another payload, its CRCs right."""
    headers_length = struct.unpack_from(">I", frame, 4)[0]
    block = frame[12 : 12 + headers_length]
    prelude = struct.pack(">II", 16 + len(block) + len(payload), len(block))
    message = prelude + struct.pack(">I", zlib.crc32(prelude)) + block + payload
    return message + struct.pack(">I", zlib.crc32(message))


def _frames(body: bytes) -> list[bytes]:
    binary = _aws_frames(body)
    if binary is not None:
        return binary
    end = _separator(body)
    parts = body.split(end)
    return [p + end for p in parts[:-1]] + ([parts[-1]] if parts[-1] else [])


def _boundaries(body: bytes) -> list[int]:
    binary = _aws_frames(body)
    if binary is not None:
        ends = list(itertools.accumulate(len(f) for f in binary))
        return ends or [len(body)]
    end = _separator(body)
    found, pos = [], body.find(end)
    while pos >= 0:
        found.append(pos + len(end))
        pos = body.find(end, pos + len(end))
    return found or [len(body)]


def _deep(levels: int) -> str:
    return "[" * levels + "]" * levels


_ODD_VALUES: list[Callable[[random.Random], str]] = [
    lambda r: "null",
    lambda r: "true",
    lambda r: r.choice(["0", "-1", "1e308", "123456789012345678901234567890", "-0.0", "3.5"]),
    lambda r: '"\\ud800"',  # a lone surrogate
    lambda r: '"\\u0000 \\"quoted\\" \\\\"',
    lambda r: "[]",
    lambda r: "{}",
    lambda r: '"x"',
    lambda r: _deep(255),
    lambda r: _deep(100_000),
]
_TYPES = [
    "content_block_start", "content_block_delta", "content_block_stop", "message_start", "message_delta",
    "message_stop", "ping", "error", "text_delta", "input_json_delta", "thinking_delta", "signature_delta",
    "response.created", "response.output_item.added", "response.output_item.done", "response.output_text.delta",
    "response.completed", "response.failed", "response.function_call_arguments.delta", "error", "tool_use", "text",
]
_KEBAB_TYPES = [
    "message-start", "content-start", "content-delta", "content-end", "tool-plan-delta", "tool-call-start",
    "tool-call-delta", "tool-call-end", "citation-start", "citation-end", "message-end", "debug", "text", "thinking",
]


def _mutate_json(rng: random.Random, payload: bytes) -> bytes | None:
    """Change one value deep inside a frame's JSON (None when it is not JSON)."""
    try:
        obj = orjson.loads(payload)
    except orjson.JSONDecodeError:
        return None
    paths: list[list[Any]] = []

    def walk(node: Any, path: list[Any]) -> None:
        if len(paths) > 200:
            return
        paths.append(path)
        if type(node) is dict:
            for key, value in node.items():
                walk(value, [*path, key])
        elif type(node) is list:
            for i, value in enumerate(node):
                walk(value, [*path, i])

    walk(obj, [])
    path = rng.choice(paths)
    key = path[-1] if path else None
    if key in ("type",) and rng.random() < 0.6:
        target = obj
        for step in path[:-1]:
            target = target[step]
        kebab = type(target[key]) is str and "-" in target[key]  # Cohere's types
        replacement = json.dumps(rng.choice(_KEBAB_TYPES if kebab else _TYPES))
    elif key in ("index", "output_index", "sequence_number") and rng.random() < 0.6:
        replacement = rng.choice(["0", "1", "2", "-1", "null", '"1"', "99"])
    elif key in ("id", "call_id", "item_id", "tool_call_id") and rng.random() < 0.6:
        replacement = rng.choice(['"other"', '""', "null", "7"])
    else:
        replacement = rng.choice(_ODD_VALUES)(rng)
    marker = "\x00UNIEVENT-FUZZ\x00"
    if not path:
        return replacement.encode()
    target = obj
    for step in path[:-1]:
        target = target[step]
    target[path[-1]] = marker
    try:
        text = orjson.dumps(obj).decode()
    except orjson.JSONEncodeError:  # a frame an earlier mutation nested too deep to write
        return None
    return text.replace(json.dumps(marker), replacement).encode()


def mutate(rng: random.Random, body: bytes) -> bytes:
    """One mutation of `body` (sometimes two)."""
    for _ in range(2 if rng.random() < 0.2 else 1):
        body = _MUTATIONS[rng.randrange(len(_MUTATIONS))](rng, body)
    return body


def _cut_at_boundary(rng: random.Random, body: bytes) -> bytes:
    return body[: rng.choice(_boundaries(body))]


def _cut_anywhere(rng: random.Random, body: bytes) -> bytes:
    return body[: rng.randrange(len(body) + 1)]


def _drop_frame(rng: random.Random, body: bytes) -> bytes:
    frames = _frames(body)
    if frames:
        del frames[rng.randrange(len(frames))]
    return b"".join(frames)


def _duplicate_frame(rng: random.Random, body: bytes) -> bytes:
    frames = _frames(body)
    if frames:
        i = rng.randrange(len(frames))
        frames.insert(i, frames[i])
    return b"".join(frames)


def _swap_frames(rng: random.Random, body: bytes) -> bytes:
    frames = _frames(body)
    if len(frames) > 1:
        i, j = rng.randrange(len(frames)), rng.randrange(len(frames))
        frames[i], frames[j] = frames[j], frames[i]
    return b"".join(frames)


def _flip_byte(rng: random.Random, body: bytes) -> bytes:
    if not body:
        return body
    i = rng.randrange(len(body))
    return body[:i] + bytes([body[i] ^ (1 << rng.randrange(8))]) + body[i + 1 :]


def _insert_bytes(rng: random.Random, body: bytes) -> bytes:
    i = rng.randrange(len(body) + 1)
    return body[:i] + rng.randbytes(rng.randrange(1, 8)) + body[i:]


def _delete_bytes(rng: random.Random, body: bytes) -> bytes:
    i = rng.randrange(len(body) + 1)
    return body[:i] + body[i + rng.randrange(1, 16) :]


def _inject_framing(rng: random.Random, body: bytes) -> bytes:
    i = rng.choice([0, *_boundaries(body)])
    what = rng.choice(
        [b": keep-alive\n\n", b"\xef\xbb\xbf", b"\r\n", b"\r", b"\n", b"id: 5\nretry: 10\n", b"event: ping\n\n", b"data:\n\n"]
    )
    return body[:i] + what + body[i:]


def _line_endings(rng: random.Random, body: bytes) -> bytes:
    ending = rng.choice([b"\r\n", b"\r"])
    i = rng.randrange(len(body) + 1)
    return body[:i] + body[i:].replace(b"\n", ending)


def _overlong_line(rng: random.Random, body: bytes) -> bytes:
    i = rng.choice([0, *_boundaries(body)])
    return body[:i] + rng.choice([b": ", b"data: ", b""]) + b"x" * (MAX_FRAME + 1) + b"\n\n" + body[i:]


def _json_value(rng: random.Random, body: bytes) -> bytes:
    binary = _aws_frames(body)
    if binary is not None:
        return _aws_json_value(rng, binary) or body
    frames = _frames(body)
    candidates = [i for i, f in enumerate(frames) if b"data: {" in f or f.startswith(b"{")]
    if not candidates:
        return body
    i = rng.choice(candidates)
    if frames[i].startswith(b"{"):  # an NDJSON line
        line, nl, _ = frames[i].partition(b"\n")
        mutated = _mutate_json(rng, line)
        if mutated is None:
            return body
        frames[i] = mutated + nl
        return b"".join(frames)
    head, _, rest = frames[i].partition(b"data: ")
    payload, nl, tail = rest.partition(b"\n")
    mutated = _mutate_json(rng, payload)
    if mutated is None:
        return body
    frames[i] = head + b"data: " + mutated + nl + tail
    return b"".join(frames)


def _aws_json_value(rng: random.Random, frames: list[bytes]) -> bytes | None:
    """Change one value of one event-stream frame's JSON (inside the base64 `bytes` of an
    InvokeModel chunk, mostly), the frame's CRCs written right."""
    whole = [i for i, f in enumerate(frames) if len(f) >= 16 and len(f) == struct.unpack_from(">I", f)[0]]
    if not whole:
        return None
    i = rng.choice(whole)
    frame = frames[i]
    headers_length = struct.unpack_from(">I", frame, 4)[0]
    payload = frame[12 + headers_length : -4]
    try:
        obj = orjson.loads(payload)
    except orjson.JSONDecodeError:
        return None
    if type(obj) is dict and type(obj.get("bytes")) is str and rng.random() < 0.8:
        inner = _mutate_json(rng, base64.b64decode(obj["bytes"]))
        if inner is None:
            return None
        mutated: bytes | None = orjson.dumps({**obj, "bytes": base64.b64encode(inner).decode()})
    else:
        mutated = _mutate_json(rng, payload)
    if mutated is None:
        return None
    frames[i] = _reframe(frame, mutated)
    return b"".join(frames)


_MUTATIONS: list[Callable[[random.Random, bytes], bytes]] = [
    _cut_at_boundary,
    _cut_anywhere,
    _drop_frame,
    _duplicate_frame,
    _swap_frames,
    _flip_byte,
    _insert_bytes,
    _delete_bytes,
    _inject_framing,
    _line_endings,
    _overlong_line,
    _json_value,
    _json_value,
    _json_value,
]


# --- invariants ---------------------------------------------------------------------------


def _decode(protocol: str, pieces: Iterator[bytes] | list[bytes], strict: bool, slow: bool = False) -> Any:
    previous = os.environ.get("UNIEVENT_SLOW_PATH")
    os.environ["UNIEVENT_SLOW_PATH"] = "1" if slow else "0"
    try:
        decoder = RuntimeStreamDecoder(
            protocol, stream_id="f", clock=lambda: 0, strict_arguments=strict, max_frame=MAX_FRAME
        )
    finally:
        if previous is None:
            del os.environ["UNIEVENT_SLOW_PATH"]
        else:
            os.environ["UNIEVENT_SLOW_PATH"] = previous
    events: list[Any] = []
    raised: str | None = None
    try:
        for piece in pieces:
            events += decoder.push(piece)
    except unievent.FrameTooLargeError as error:
        events += error.events
        raised = type(error).__name__
    last, outcome = decoder.finish()
    return events + last, outcome, raised


@contextlib.contextmanager
def _every_line_at_once() -> Iterator[None]:
    """The SSE framer reads a push's lines at once, keeping no unfinished frame for
    the next push: a frame cut by a push goes through the table line by line (as
    frames over the framer's keeping limit always do)."""
    from unievent._framing import sse

    kept = sse._DEFER_MAX
    sse._DEFER_MAX = 0
    try:
        yield
    finally:
        sse._DEFER_MAX = kept


def _pieces(rng: random.Random, body: bytes) -> list[bytes]:
    out, i = [], 0
    while i < len(body):
        n = rng.choice([1, 2, 3, 7, 64, 500, 4096])
        out.append(body[i : i + n])
        i += n
    return out


def check(protocol: str, body: bytes, strict: bool = True, rng: random.Random | None = None) -> str:
    """Every invariant for one input; returns the end it decoded to."""
    rng = rng or random.Random(len(body))
    whole = _decode(protocol, [body], strict)
    events, outcome, _raised = whole
    unievent.validate(events, partial=outcome.end != "complete")
    split = _decode(protocol, _pieces(rng, body), strict)
    assert split == whole, "a random split decodes differently"
    with _every_line_at_once():
        assert _decode(protocol, _pieces(rng, body), strict) == whole, "a split read line by line decodes differently"
    assert _decode(protocol, [body], strict, slow=True) == whole, "the on-demand path decodes differently"
    if len(body) <= BYTEWISE_LIMIT:
        bytewise = _decode(protocol, (body[i : i + 1] for i in range(len(body))), strict)
        assert bytewise == whole, "byte-at-a-time decodes differently"
    auto = _decode("auto", [body], strict)
    unievent.validate(auto[0], partial=auto[1].end != "complete")
    assert _decode("auto", _pieces(rng, body), strict) == auto, "a random split decodes differently with auto"
    if auto[1].protocol == protocol:
        assert (auto[0], attrs.evolve(auto[1], detected_by=None), auto[2]) == whole, "auto decodes differently"
    deltas = "".join(e.item.text for e in events if isinstance(e, unievent.DeltaEvent) and type(e.item) is unievent.TextDelta)
    kept = "".join(i.text for i in outcome.message.items if type(i) is unievent.TextDone)
    assert deltas == kept, "the outcome's text is not the text that was emitted"
    if outcome.end != "complete":
        assert not any(type(i) is unievent.ToolCallDone for i in outcome.message.items), "a cut stream holds a tool call"
    return str(outcome.end)


def campaign(examples: int, seed: int = 0, seeds: list[Seed] | None = None) -> dict[str, int]:
    """Check `examples` mutated inputs; raise on the first broken invariant."""
    pool = seeds if seeds is not None else suite_seeds() + corpus_seeds()
    ends: dict[str, int] = {}
    for n in range(examples):
        rng = random.Random(seed * 1_000_003 + n)
        protocol, label, body = pool[n % len(pool)]
        mutated = mutate(rng, body)
        try:
            end = check(protocol, mutated, strict=rng.random() < 0.7, rng=rng)
        except Exception as failure:
            raise AssertionError(f"input {n} (seed {seed}, from {label}, {len(mutated)} bytes): {failure!r}") from failure
        ends[end] = ends.get(end, 0) + 1
    return ends


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzzing", description=__doc__)
    parser.add_argument("--examples", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    started = time.monotonic()
    ends = campaign(args.examples, args.seed)
    elapsed = time.monotonic() - started
    print(f"{args.examples} inputs (seed {args.seed}) in {elapsed:.0f} s: no invariant broken; ends {ends}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
