"""Mutation fuzzing of real and suite streams, and the invariants every input keeps.

Seeds are the recorded streams of ../shared/corpus (when present) and streams built
here for every protocol.  A mutation is drawn from a seeded random generator, so a
failing input is reproduced from its (seed, mutation) pair alone:

- cuts: at a frame boundary or at any byte;
- frames: dropped, duplicated, swapped;
- bytes: flipped, inserted, deleted;
- framing: comments, BOMs, CR / LF variants, an overlong line;
- JSON values of one frame: another type, a huge number, a lone surrogate, nesting 255
  or 100,000 deep, a type string, index or id changed;
- one frame in the middle of a run of hot frames (the frames the fast paths take by
  their bytes; `fast_path_seeds` holds runs of 20 to 40 for each protocol with a fast path),
  changed where a byte-level match could go wrong: whitespace, key order, escapes,
  invalid or cut UTF-8, duplicate keys, a raw newline, the counter, the padding, the
  template's own bytes inside the string, an extra field, another value than one
  string, the event name, line ends, a comment or a BOM, a cut at the hole's edges, a
  size at the cap (`FAST_PATH_MUTATIONS`, each usable alone; AWS frames re-encoded with right CRCs).

Invariants, for each input (`check`): only unievent errors escape; every output passes
`validate` (`partial=True` unless complete); the result of a whole push equals that of
a random split, that of byte-at-a-time feeding and that of the full path alone (the
on-demand path off); the text in the outcome equals the text deltas emitted; no tool
call of a stream that did not complete is in its message.

With `--builds`, each input is decoded in four configurations, {compiled, pure} x
{fast, slow path}: a worker process per build (`--worker`) draws the same inputs from
(seed, index), decodes each whole, in random splits and cut in two at every byte of its
changed frame, compares the fast path with the slow one, and prints a digest per input;
the parent compares the two builds' digests.  One input in LINEAR_EVERY also has its
decoding time checked for linear growth.

    python -m tests.fuzzing --examples 100000          # a long campaign, prints a summary
    python -m tests.fuzzing --examples 3000 --builds   # the four configurations compared
    python -m tests.fuzzing --fast-path-only ...       # only the fast-path mutations
    python -m tests.fuzzing --show 17 --seed 3         # input 17 of the --builds campaign, as bytes
    python tests/fuzz_atheris.py                      # coverage-guided, when atheris installs
"""

from __future__ import annotations

import argparse
import base64
import contextlib
import functools
import hashlib
import itertools
import json
import os
import random
import re
import struct
import subprocess
import sys
import time
import zlib
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
import orjson

import unievent
from tests.helpers import decoder_on_path
from unievent._framing.aws_eventstream import encode_frame
from unievent._framing.sniff import is_prelude

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"
OPEN_WORLD = CORPUS.parent / "corpus-open-world"
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
    png = base64.b64encode(b"\x89PNG\r\n\x1a\n" + bytes(range(12))).decode()
    pcm = [base64.b64encode(bytes(range(k, k + 6))).decode() for k in (0, 6, 12)]
    chat_audio: list[dict[str, Any]] = [
        {"id": "c", "choices": [{"index": 0, "delta": {"role": "assistant", "content": None, "audio": {"id": "audio_1", "transcript": "Hi"}}}]},
        {"id": "c", "choices": [{"index": 0, "delta": {"audio": {"transcript": " there"}}}]},
        {"id": "c", "choices": [{"index": 0, "delta": {"audio": {"id": "audio_1", "data": pcm[0]}}}]},
        {"id": "c", "choices": [{"index": 0, "delta": {"audio": {"transcript": ".", "data": pcm[1]}}}]},
        {"id": "c", "choices": [{"index": 0, "delta": {"audio": {"data": pcm[2]}}}]},
        {"id": "c", "choices": [{"index": 0, "delta": {"audio": {"expires_at": 1730000000}}}]},
        {"id": "c", "choices": [{"index": 0, "delta": {}, "finish_reason": "stop"}]},
    ]
    where = {"item_id": "ig_1", "output_index": 1}
    responses_image: list[dict[str, Any]] = [
        {"type": "response.created", "response": {"id": "resp_2", "status": "in_progress", "output": []}},
        {"type": "response.output_item.added", "output_index": 0, "item": {"id": "msg_1", "type": "message", "role": "assistant", "content": []}},
        {"type": "response.output_text.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": "Here:"},
        {"type": "response.output_item.done", "output_index": 0, "item": {"id": "msg_1", "type": "message", "role": "assistant", "status": "completed", "content": [{"type": "output_text", "text": "Here:", "annotations": []}]}},
        {"type": "response.output_item.added", "output_index": 1, "item": {"id": "ig_1", "type": "image_generation_call", "status": "in_progress"}},
        {"type": "response.image_generation_call.generating", **where},
        {"type": "response.image_generation_call.partial_image", **where, "partial_image_index": 0, "partial_image_b64": png},
        {"type": "response.image_generation_call.completed", **where},
        {"type": "response.output_item.done", "output_index": 1, "item": {"id": "ig_1", "type": "image_generation_call", "status": "completed", "result": png, "output_format": "png", "revised_prompt": "a fox"}},
        {"type": "response.completed", "response": {"id": "resp_2", "status": "completed", "output": [], "usage": {"input_tokens": 5, "output_tokens": 9}}},
    ]
    responses_image = [{**o, "sequence_number": n} for n, o in enumerate(responses_image)]
    gemini_media: list[dict[str, Any]] = [
        {"candidates": [{"content": {"role": "model", "parts": [{"inlineData": {"mimeType": "image/png", "data": png}}]}}]},
        {"candidates": [{"content": {"role": "model", "parts": [{"text": "A fox, and how it sounds:"}]}}]},
        *({"candidates": [{"content": {"role": "model", "parts": [{"inlineData": {"mimeType": "audio/L16;codec=pcm;rate=24000", "data": d}}]}}]} for d in pcm),
        {"candidates": [{"content": {"role": "model", "parts": []}, "finishReason": "STOP"}], "usageMetadata": {"promptTokenCount": 4, "candidatesTokenCount": 7}},
    ]
    interactions_media: list[dict[str, Any]] = [
        {"event_type": "interaction.created", "interaction": {"id": "int_2", "status": "in_progress"}},
        {"event_type": "step.start", "index": 0, "step": {"type": "model_output"}},
        {"event_type": "step.delta", "index": 0, "delta": {"type": "image", "data": png, "mime_type": "image/png"}},
        *({"event_type": "step.delta", "index": 0, "delta": {"type": "audio", "data": d, "mime_type": "audio/l16", "sample_rate": 24000, "channels": 1}} for d in pcm),
        {"event_type": "step.delta", "index": 0, "delta": {"type": "text", "text": "Done."}},
        {"event_type": "step.stop", "index": 0},
        {"event_type": "interaction.completed", "interaction": {"status": "completed", "usage": {"total_input_tokens": 5}}},
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
        ("openai_chat", "suite/chat-audio", b"".join(_frame(o, event=False) for o in chat_audio) + b"data: [DONE]\n\n"),
        ("openai_responses", "suite/responses-image", b"".join(_frame(o) for o in responses_image)),
        ("gemini", "suite/gemini-media", b"".join(_frame(o, event=False) for o in gemini_media)),
        ("gemini_interactions", "suite/interactions-media", b"".join(_frame(o, event=False) for o in interactions_media) + b"event: done\ndata: [DONE]\n\n"),
    ]


def _aws(name: str, payload: dict[str, Any]) -> bytes:
    """An AWS event-stream frame as Bedrock writes it (`exception:<type>` names an exception frame)."""
    if name.startswith("exception:"):
        headers = [(":exception-type", name[10:]), (":content-type", "application/json"), (":message-type", "exception")]
    else:
        headers = [(":event-type", name), (":content-type", "application/json"), (":message-type", "event")]
    return encode_frame(headers, orjson.dumps(payload, option=orjson.OPT_SORT_KEYS))


def corpus_seeds(corpus: Path = CORPUS) -> list[Seed]:
    """The recorded streams of the protocols unievent decodes (empty without the corpus)."""
    manifest = corpus / "manifest.json"
    if not manifest.is_file():
        return []
    seeds = []
    for entry in json.loads(manifest.read_text()):
        protocol = _CORPUS_PROTOCOLS.get(entry["protocol"], entry["protocol"])
        if protocol in unievent.PROTOCOLS:
            seeds.append((protocol, entry["file"], (corpus / entry["file"]).read_bytes()))
    return seeds


def open_world_seeds() -> list[Seed]:
    """The recorded streams of ../shared/corpus-open-world (empty without it)."""
    return corpus_seeds(OPEN_WORLD)


#: the corpus's protocol names that name no protocol here (every recorded bedrock stream is ConverseStream)
_CORPUS_PROTOCOLS = {"bedrock": "bedrock_converse"}


# --- seeds with long runs of hot frames ---------------------------------------------------

#: the run of hot frames each fast-path seed holds (the run takers' window starts at 8)
RUN = 40
# delta texts: plain words and what the JSON of a string escapes or holds as UTF-8
_PIECES = (
    "Hello", ",", " world", " é", ' "quoted"', "\n", " 😀", " a\\b", "\t", " 日本", "</s>", " }}", " 1.0", " ", "\u2028", " x",
)
_ALNUM = "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"


def _texts(count: int, offset: int = 0) -> list[str]:
    return [_PIECES[(i + offset) % len(_PIECES)] for i in range(count)]


def _pad(i: int) -> str:
    """A padding as the providers write it: ASCII letters and digits, its length varying."""
    return "".join(_ALNUM[(i * 7 + j * 13) % len(_ALNUM)] for j in range(3 + i % 11))


def _fragments(count: int) -> list[str]:
    """A tool call's arguments, cut into `count` fragments."""
    text = json.dumps({"city": "Paris é", "days": [1, 2, 3], "note": 'a "b" \\ c', "deep": {"k": [None, True]}}, ensure_ascii=False)
    size = len(text) // count
    return [text[i * size : (i + 1) * size] for i in range(count - 1)] + [text[(count - 1) * size :]]


def fast_path_seeds() -> list[Seed]:
    """A stream of each protocol that has fast paths, with runs of RUN // 2 to RUN hot
    frames written as each provider writes them (key order, spacing, paddings,
    counters, line ends): the fast-path mutations change one frame of such a run."""
    texts = _texts(RUN)
    args = _fragments(RUN // 2)
    seeds: list[Seed] = []

    # OpenAI Chat Completions: every chunk the same but for its delta and its padding
    base = {"id": "chatcmpl-C2P2HtMJhPkWjQ2a", "object": "chat.completion.chunk", "created": 1754688929,
            "model": "gpt-4o-2024-08-06", "service_tier": "default", "system_fingerprint": "fp_07871e2ad8"}

    def chunk(i: int, delta: dict[str, Any], finish: str | None = None) -> dict[str, Any]:
        return {**base, "choices": [{"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}],
                "usage": None, "obfuscation": _pad(i)}

    usage = {"prompt_tokens": 14, "completion_tokens": 48, "total_tokens": 62}
    chat = [chunk(0, {"role": "assistant", "content": "", "refusal": None})]
    chat += [chunk(i, {"content": t}) for i, t in enumerate(texts)]
    chat += [chunk(1, {}, "stop"), {**base, "choices": [], "usage": usage, "obfuscation": _pad(2)}]
    seeds.append(("openai_chat", "fast/chat-text", b"".join(_frame(o, event=False) for o in chat) + b"data: [DONE]\n\n"))
    call = {"index": 0, "id": "call_k3j9", "type": "function", "function": {"name": "get_weather", "arguments": ""}}
    calls = [chunk(0, {"role": "assistant", "content": None, "tool_calls": [call]})]
    calls += [chunk(i, {"tool_calls": [{"index": 0, "function": {"arguments": a}}]}) for i, a in enumerate(args)]
    calls += [chunk(1, {}, "tool_calls"), {**base, "choices": [], "usage": usage, "obfuscation": _pad(3)}]
    seeds.append(("openai_chat", "fast/chat-arguments", b"".join(_frame(o, event=False) for o in calls) + b"data: [DONE]\n\n"))

    # Anthropic Messages: a thinking block, a text block, a tool_use block
    def delta(index: int, kind: str, key: str, value: str) -> dict[str, Any]:
        return {"type": "content_block_delta", "index": index, "delta": {"type": kind, key: value}}

    anthropic: list[dict[str, Any]] = [
        {"type": "message_start", "message": {"id": "msg_01", "type": "message", "role": "assistant", "model": "claude-sonnet-4-5",
                                              "content": [], "stop_reason": None, "usage": {"input_tokens": 12, "output_tokens": 1}}},
        {"type": "ping"},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": "", "signature": ""}},
        *(delta(0, "thinking_delta", "thinking", t) for t in _texts(RUN // 2, 5)),
        delta(0, "signature_delta", "signature", "RXVnZW5lIHdhcyBoZXJl"),
        {"type": "content_block_stop", "index": 0},
        {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}},
        *(delta(1, "text_delta", "text", t) for t in texts),
        {"type": "content_block_stop", "index": 1},
        {"type": "content_block_start", "index": 2, "content_block": {"type": "tool_use", "id": "toolu_01", "name": "get_weather", "input": {}}},
        *(delta(2, "input_json_delta", "partial_json", a) for a in args),
        {"type": "content_block_stop", "index": 2},
        {"type": "message_delta", "delta": {"stop_reason": "tool_use", "stop_sequence": None}, "usage": {"output_tokens": 80}},
        {"type": "message_stop"},
    ]
    seeds.append(("anthropic", "fast/anthropic", b"".join(_frame(o) for o in anthropic)))

    # OpenAI Responses: sequence numbers counting up, an `obfuscation` padding on the deltas
    seq = itertools.count()
    msg = "msg_68c350a75ddc819ea5406470460be785"

    def ev(kind: str, **fields: Any) -> dict[str, Any]:
        return {"type": kind, "sequence_number": next(seq), **fields}

    full = "".join(texts)
    text_part = {"type": "output_text", "annotations": [], "logprobs": [], "text": ""}
    responses = [
        ev("response.created", response={"id": "resp_1", "object": "response", "status": "in_progress", "model": "gpt-4.1", "output": []}),
        ev("response.in_progress", response={"id": "resp_1", "object": "response", "status": "in_progress", "model": "gpt-4.1", "output": []}),
        ev("response.output_item.added", output_index=0, item={"id": msg, "type": "message", "status": "in_progress", "content": [], "role": "assistant"}),
        ev("response.content_part.added", item_id=msg, output_index=0, content_index=0, part=text_part),
    ]
    responses += [
        ev("response.output_text.delta", item_id=msg, output_index=0, content_index=0, delta=t, logprobs=[], obfuscation=_pad(i))
        for i, t in enumerate(texts)
    ]
    done_item = {"id": msg, "type": "message", "status": "completed", "content": [{**text_part, "text": full}], "role": "assistant"}
    responses += [
        ev("response.output_text.done", item_id=msg, output_index=0, content_index=0, text=full, logprobs=[]),
        ev("response.content_part.done", item_id=msg, output_index=0, content_index=0, part={**text_part, "text": full}),
        ev("response.output_item.done", output_index=0, item=done_item),
        ev("response.output_item.added", output_index=1,
           item={"id": "fc_1", "type": "function_call", "status": "in_progress", "arguments": "", "call_id": "call_1", "name": "get_weather"}),
    ]
    responses += [
        ev("response.function_call_arguments.delta", item_id="fc_1", output_index=1, delta=a, obfuscation=_pad(i))
        for i, a in enumerate(args)
    ]
    responses += [
        ev("response.function_call_arguments.done", item_id="fc_1", output_index=1, arguments="".join(args)),
        ev("response.output_item.done", output_index=1,
           item={"id": "fc_1", "type": "function_call", "status": "completed", "arguments": "".join(args), "call_id": "call_1", "name": "get_weather"}),
        ev("response.completed", response={"id": "resp_1", "object": "response", "status": "completed", "model": "gpt-4.1",
                                           "usage": {"input_tokens": 12, "output_tokens": 60, "total_tokens": 72}}),
    ]
    seeds.append(("openai_responses", "fast/responses", b"".join(_frame(o) for o in responses)))

    # Gemini (alt=sse): `": "` after each key, CRLF line ends; every record repeats the usage
    def record(i: int, text: str, thought: bool = False, finish: str | None = None) -> dict[str, Any]:
        part: dict[str, Any] = {"text": text, "thought": True} if thought else {"text": text}
        candidate: dict[str, Any] = {"content": {"parts": [part], "role": "model"}}
        if finish:
            candidate["finishReason"] = finish
        candidate["index"] = 0
        used = {"promptTokenCount": 9, "candidatesTokenCount": i, "totalTokenCount": 9 + i,
                "promptTokensDetails": [{"modality": "TEXT", "tokenCount": 9}]}
        return {"candidates": [candidate], "usageMetadata": used, "modelVersion": "gemini-2.5-flash", "responseId": "w1peaMz6INOvnvgP"}

    gemini = [record(i, t, thought=True) for i, t in enumerate(_texts(RUN // 2, 3))]
    gemini += [record(RUN // 2 + i, t) for i, t in enumerate(texts)]
    gemini.append(record(2 * RUN, "", finish="STOP"))
    seeds.append(("gemini", "fast/gemini", b"".join(
        b"data: " + json.dumps(o, ensure_ascii=False, separators=(",", ": ")).encode() + b"\r\n\r\n" for o in gemini
    )))

    # Ollama (NDJSON): each line's created_at its own, with as many digits as it has
    def line(i: int, message: dict[str, Any], **more: Any) -> dict[str, Any]:
        stamp = f"2025-10-26T17:15:{24 + i // 10:02d}.{(97767 * (i + 1)) % 10**6:06d}".rstrip("0") + "Z"
        return {"model": "qwen3", "created_at": stamp, "message": {"role": "assistant", **message}, "done": False, **more}

    ollama = [line(i, {"content": "", "thinking": t}) for i, t in enumerate(_texts(RUN // 2, 7))]
    ollama += [line(RUN // 2 + i, {"content": t}) for i, t in enumerate(texts)]
    ollama.append({**line(2 * RUN, {"content": ""}), "done": True, "done_reason": "stop", "total_duration": 1822,
                   "prompt_eval_count": 26, "eval_count": 60, "eval_duration": 1159})
    seeds.append(("ollama", "fast/ollama", b"".join(orjson.dumps(o) + b"\n" for o in ollama)))

    # Cohere v2: a thinking block, then a text block
    def content(index: int, key: str, value: str) -> dict[str, Any]:
        return {"type": "content-delta", "index": index, "delta": {"message": {"content": {key: value}}}}

    cohere: list[dict[str, Any]] = [
        {"id": "3ec845ed", "type": "message-start", "delta": {"message": {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": [], "citations": []}}},
        {"type": "content-start", "index": 0, "delta": {"message": {"content": {"type": "thinking", "thinking": ""}}}},
        *(content(0, "thinking", t) for t in _texts(RUN // 2, 9)),
        {"type": "content-end", "index": 0},
        {"type": "content-start", "index": 1, "delta": {"message": {"content": {"type": "text", "text": ""}}}},
        *(content(1, "text", t) for t in texts),
        {"type": "content-end", "index": 1},
        {"type": "message-end", "delta": {"finish_reason": "COMPLETE", "usage": {"billed_units": {"input_tokens": 4, "output_tokens": 60},
                                                                               "tokens": {"input_tokens": 70, "output_tokens": 60}}}},
    ]
    seeds.append(("cohere", "fast/cohere", b"".join(_frame(o) for o in cohere) + b"data: [DONE]\n\n"))

    # Bedrock ConverseStream: keys sorted, a `p` padding on most frames
    converse: list[tuple[str, dict[str, Any]]] = [
        ("messageStart", {"p": _pad(1), "role": "assistant"}),
        *(("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"text": t}}, "p": _pad(i)})
          for i, t in enumerate(_texts(RUN // 2, 11))),
        ("contentBlockDelta", {"contentBlockIndex": 0, "delta": {"reasoningContent": {"signature": "c2lnbmF0dXJl"}}, "p": _pad(4)}),
        ("contentBlockStop", {"contentBlockIndex": 0, "p": _pad(5)}),
        *(("contentBlockDelta", {"contentBlockIndex": 1, "delta": {"text": t}, **({"p": _pad(i)} if i % 9 else {})})
          for i, t in enumerate(texts)),
        ("contentBlockStop", {"contentBlockIndex": 1, "p": _pad(6)}),
        ("messageStop", {"p": _pad(7), "stopReason": "end_turn"}),
        ("metadata", {"metrics": {"latencyMs": 522}, "p": _pad(8), "usage": {"inputTokens": 13, "outputTokens": 60, "totalTokens": 73}}),
    ]
    seeds.append(("bedrock_converse", "fast/bedrock-converse", b"".join(_aws(name, o) for name, o in converse)))

    # Bedrock InvokeModel: Anthropic's events, base64 in `{"bytes": ..., "p": ...}` chunks
    invoke: list[dict[str, Any]] = [
        anthropic[0],
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
        *(delta(0, "text_delta", "text", t) for t in texts),
        {"type": "content_block_stop", "index": 0},
        {"type": "message_delta", "delta": {"stop_reason": "end_turn", "stop_sequence": None}, "usage": {"output_tokens": 60}},
        {"type": "message_stop", "amazon-bedrock-invocationMetrics": {"inputTokenCount": 12, "outputTokenCount": 60,
                                                                      "invocationLatency": 900, "firstByteLatency": 300}},
    ]
    seeds.append(("bedrock_invoke", "fast/bedrock-invoke", b"".join(
        _aws("chunk", {"bytes": base64.b64encode(orjson.dumps(o)).decode(), "p": _pad(i)}) for i, o in enumerate(invoke)
    )))
    return seeds


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


def mutate(rng: random.Random, body: bytes, mutations: list[Callable[[random.Random, bytes], bytes]] | None = None) -> bytes:
    """One mutation of `body` (sometimes two), drawn from `mutations` (all by default)."""
    drawn = _MUTATIONS if mutations is None else mutations
    for _ in range(2 if rng.random() < 0.2 else 1):
        body = drawn[rng.randrange(len(drawn))](rng, body)
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


# --- mutations aimed at the fast paths ----------------------------------------------------
#
# The fast paths take a hot frame by its bytes: fixed bytes around a hole that must hold
# one JSON string (and a counter and a padding compared apart).  These mutations pick
# one frame inside a run of frames of one shape (the run the fast paths take in one go)
# and change it where a byte-level match could go wrong: around and inside the hole, in
# the counter and the padding, in the framing around the payload.  The full path must
# read every such frame as before (the slow path decides; the fast path only agrees).

#: the keys whose string a fast path takes (the hole)
_HOT_KEYS = frozenset(("text", "content", "delta", "thinking", "partial_json", "arguments"))
#: a frame's padding fields (no handler reads them) and counters
_PADDING_KEYS = ("obfuscation", "created_at", "p")
_COUNTER_KEYS = ("sequence_number", "index", "contentBlockIndex")
# kept as they are in a frame's shape: the values that tell frames apart
_SHAPE_KEYS = frozenset(("type", "event_type", "object", "role"))
# a blank line ends an SSE frame: two line ends, each CRLF, CR or LF (atomic: CRLF is one)
_SSE_FRAME_END = re.compile(rb"(?>\r\n|\r|\n)(?>\r\n|\r|\n)")
_JSON_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.S)
_JSON_SCALAR = re.compile(rb'[^ \t\r\n,:\[\]{}"]+')
_JSON_SPACE = re.compile(rb"[ \t\r\n]*")
_LINE_END = re.compile(rb"\r\n|\r|\n")
_BOM = b"\xef\xbb\xbf"


@attrs.frozen
class _Member:
    """One `"key": value` of a JSON object, by its offsets in the payload."""

    key: str
    start: int  # the key's opening quote
    value: int  # the value's first byte
    end: int  # after the value
    parent: int  # the object holding it (its index in _Scan.objects)


@attrs.define
class _Scan:
    """Where a JSON text's objects, members and token gaps are."""

    objects: list[tuple[int, int]] = attrs.Factory(list)  # from `{` to after `}`
    members: list[_Member] = attrs.Factory(list)
    gaps: list[int] = attrs.Factory(list)  # offsets between two tokens


def _scan(payload: bytes) -> _Scan | None:
    """The structure of `payload` when it is one JSON value (None otherwise)."""
    try:
        orjson.loads(payload)
    except orjson.JSONDecodeError:
        return None
    scan = _Scan()
    try:
        _scan_value(payload, _JSON_SPACE.match(payload).end(), scan, 0)  # type: ignore[union-attr]
    except (IndexError, ValueError, AttributeError):
        return None
    return scan


def _skip(data: bytes, at: int) -> int:
    return _JSON_SPACE.match(data, at).end()  # type: ignore[union-attr]


def _scan_value(data: bytes, at: int, scan: _Scan, depth: int) -> int:
    """Scan the value at `at`; returns where it ends."""
    if depth > 64:
        raise ValueError("too deep to mutate")
    first = data[at]
    if first == 0x22:  # a string
        return _JSON_STRING.match(data, at).end()  # type: ignore[union-attr]
    if first not in b"{[":
        return _JSON_SCALAR.match(data, at).end()  # type: ignore[union-attr]
    closing = 0x7D if first == 0x7B else 0x5D
    index = len(scan.objects)
    if first == 0x7B:
        scan.objects.append((at, -1))
    start = at
    at += 1
    scan.gaps.append(at)
    at = _skip(data, at)
    while data[at] != closing:
        if first == 0x7B:
            key_start = at
            key = orjson.loads(_JSON_STRING.match(data, at).group())  # type: ignore[union-attr]
            at = _JSON_STRING.match(data, at).end()  # type: ignore[union-attr]
            scan.gaps.append(at)
            at = _skip(data, at)
            if data[at] != 0x3A:
                raise ValueError("no colon")
            at += 1
            scan.gaps.append(at)
            at = _skip(data, at)
            value = at
            at = _scan_value(data, at, scan, depth + 1)
            scan.members.append(_Member(key, key_start, value, at, index))
        else:
            at = _scan_value(data, at, scan, depth + 1)
        scan.gaps.append(at)
        at = _skip(data, at)
        if data[at] == 0x2C:
            at += 1
            scan.gaps.append(at)
            at = _skip(data, at)
    if first == 0x7B:
        scan.objects[index] = (start, at + 1)
    return at + 1


@attrs.frozen
class _View:
    """One frame split around its JSON payload (`frame == head + payload + tail`; for
    AWS frames, `payload` is the frame's payload, or an InvokeModel chunk's event)."""

    head: bytes
    payload: bytes
    tail: bytes
    event: str | None  # the `event:` name or `:event-type` header
    headers: tuple[tuple[str, str], ...] | None = None  # an AWS frame's
    outer: tuple[bytes, bytes] | None = None  # an InvokeModel chunk's JSON around the base64


@attrs.frozen
class _Layout:
    wire: str  # "sse", "ndjson" or "aws"
    frames: tuple[bytes, ...]
    views: tuple[_View | None, ...]
    runs: tuple[tuple[int, int], ...]  # [start, stop) of each run of hot frames of one shape


def _sse_split(body: bytes) -> list[bytes]:
    frames, pos = [], 0
    for found in _SSE_FRAME_END.finditer(body):
        frames.append(body[pos : found.end()])
        pos = found.end()
    if pos < len(body):
        frames.append(body[pos:])
    return frames


def _aws_headers(frame: bytes) -> tuple[tuple[str, str], ...] | None:
    """An event-stream frame's headers, when all are strings (value type 7)."""
    size = struct.unpack_from(">I", frame, 4)[0]
    block, at, out = frame[12 : 12 + size], 0, []
    try:
        while at < len(block):
            name_size = block[at]
            name = block[at + 1 : at + 1 + name_size].decode()
            at += 1 + name_size
            if block[at] != 7:
                return None
            value_size = struct.unpack_from(">H", block, at + 1)[0]
            out.append((name, block[at + 3 : at + 3 + value_size].decode()))
            at += 3 + value_size
    except (IndexError, UnicodeDecodeError, struct.error):
        return None
    return tuple(out)


def _view(wire: str, frame: bytes) -> _View | None:
    if wire == "aws":
        if len(frame) < 16 or struct.unpack_from(">I", frame)[0] != len(frame):
            return None
        headers = _aws_headers(frame)
        if headers is None:
            return None
        payload = frame[12 + struct.unpack_from(">I", frame, 4)[0] : -4]
        event = dict(headers).get(":event-type")
        if event == "chunk":
            try:
                data = orjson.loads(payload).get("bytes")
                inner = base64.b64decode(data, validate=True)
            except (orjson.JSONDecodeError, AttributeError, TypeError, ValueError):
                return None
            at = payload.find(data.encode())
            if at < 0:
                return None
            outer = (payload[:at], payload[at + len(data) :])
            return _View(b"", inner, b"", event, headers, outer)
        return _View(b"", payload, b"", event, headers)
    if wire == "ndjson":
        payload = frame.rstrip(b"\r\n")
        return _View(b"", payload, frame[len(payload) :], None)
    lines = _LINE_END.split(frame)
    data = [line for line in lines if line.startswith(b"data:")]
    if len(data) != 1:
        return None
    event = next((line[6:].strip().decode(errors="replace") for line in lines if line.startswith(b"event:")), None)
    start = frame.find(data[0]) + 5
    start += frame[start : start + 1] == b" "
    end = frame.find(data[0]) + len(data[0])
    return _View(frame[:start], frame[start:end], frame[end:], event)


def _shape(node: Any) -> Any:
    """What frames of one kind share: keys, structure, and the values naming the kind."""
    if type(node) is dict:  # a padding may come and go
        return tuple(
            (k, v if k in _SHAPE_KEYS and type(v) is str else _shape(v)) for k, v in node.items() if k not in _PADDING_KEYS
        )
    if type(node) is list:
        return tuple(_shape(v) for v in node)
    if type(node) in (int, float):
        return 0
    return "s" if type(node) is str else node


def _has_hot_string(node: Any) -> bool:
    if type(node) is dict:
        return any((k in _HOT_KEYS and type(v) is str) or _has_hot_string(v) for k, v in node.items())
    return type(node) is list and any(_has_hot_string(v) for v in node)


@functools.lru_cache(maxsize=64)
def _layout(body: bytes) -> _Layout:
    """The frames of `body`, and its runs of hot frames (cached: a seed is mutated often)."""
    binary = _aws_frames(body)
    if binary is not None:
        wire, frames = "aws", binary
    elif _separator(body) == b"\n":
        wire, frames = "ndjson", body.splitlines(keepends=True)
    else:
        wire, frames = "sse", _sse_split(body)
    views = [_view(wire, f) for f in frames]
    shapes: list[Any] = []
    for view in views:
        try:
            obj = orjson.loads(view.payload) if view is not None else None
        except orjson.JSONDecodeError:
            obj = None
        shapes.append((view.event, _shape(obj)) if view is not None and type(obj) is dict and _has_hot_string(obj) else None)
    runs, start = [], 0
    for i in range(1, len(shapes) + 1):
        if i == len(shapes) or shapes[i] is None or shapes[i] != shapes[start]:
            if shapes[start] is not None and i - start >= 3:
                runs.append((start, i))
            start = i
    return _Layout(wire, tuple(frames), tuple(views), tuple(runs))


@attrs.define
class _Site:
    """The hot frame a fast-path mutation changes: its payload and where the hole is."""

    wire: str
    view: _View
    scan: _Scan
    hole: _Member  # the member whose string a fast path takes
    outer: _Site | None = None  # an InvokeModel chunk: the chunk's own JSON
    after: bytes = b""  # the frames that follow in the body

    @property
    def payload(self) -> bytes:
        return self.view.payload

    def build(
        self, payload: bytes | None = None, head: bytes | None = None, tail: bytes | None = None,
        headers: list[tuple[str, str]] | None = None, aws_payload: bytes | None = None,
    ) -> bytes:
        """The frame with a part replaced (an AWS frame is written anew, its CRCs right)."""
        view = self.view
        body = view.payload if payload is None else payload
        if self.wire != "aws":
            return (view.head if head is None else head) + body + (view.tail if tail is None else tail)
        if aws_payload is None:
            aws_payload = body if view.outer is None else view.outer[0] + base64.b64encode(body) + view.outer[1]
        return encode_frame(list(view.headers or ()) if headers is None else headers, aws_payload)


def _site_of(wire: str, view: _View) -> _Site | None:
    scan = _scan(view.payload)
    if scan is None:
        return None
    holes = [m for m in scan.members if m.key in _HOT_KEYS and view.payload[m.value] == 0x22]
    if not holes:
        return None
    site = _Site(wire, view, scan, max(holes, key=lambda m: m.start))
    if view.outer is not None:  # the chunk around the event: its `bytes` is the hole
        chunk = view.outer[0] + base64.b64encode(view.payload) + view.outer[1]
        outer_scan = _scan(chunk)
        found = [m for m in outer_scan.members if m.key == "bytes"] if outer_scan is not None else []
        if outer_scan is not None and found:
            site.outer = _Site(wire, _View(b"", chunk, b"", view.event, view.headers), outer_scan, found[0])
    return site


@attrs.frozen
class Mutated:
    """A body with one hot frame changed: where that frame lies in it, as it was and as
    it is now, and the name of the change."""

    body: bytes
    start: int
    end: int
    hot: bytes
    frame: bytes
    edit: str


# An edit of the hot frame: the frame's new bytes, and what follows it (None: the rest
# of the body as it was; b"": nothing, the body ends there), or None when it does not apply.
_Edit = Callable[[random.Random, _Site], tuple[bytes, bytes | None] | None]


def mutate_hot_frame(rng: random.Random, body: bytes, edits: list[str] | None = None) -> Mutated | None:
    """Change one frame in the middle of a run of hot frames of `body` by one of
    `edits` (names of _EDITS; all of them by default).  None: `body` has no such run."""
    layout = _layout(body)
    if not layout.runs:
        return None
    start, stop = rng.choice(layout.runs)
    # inside the run, away from its first frames (which may teach the template)
    index = rng.randrange(start + 1, stop - 1) if stop - start > 2 else start
    if stop - start >= 8:
        index = rng.randrange(start + 2, stop - 2)
    view = layout.views[index]
    site = _site_of(layout.wire, view) if view is not None else None
    if site is None:
        return None
    site.after = b"".join(layout.frames[index + 1 :])
    names = edits if edits is not None else list(_EDITS)
    frame, rest, applied = layout.frames[index], site.after, []
    current: _Site | None = site
    # sometimes a second edit of the same frame, while it still is one JSON payload
    for _ in range(2 if rng.random() < 0.25 else 1):
        done = None
        for _ in range(8):
            name = rng.choice(names)
            done = _EDITS[name](rng, current) if current is not None else None
            if done is not None:
                applied.append(name)
                break
        if done is None:
            break
        frame, more = done
        rest = rest if more is None else more
        view = _view(layout.wire, frame) if rest else None
        current = _site_of(layout.wire, view) if view is not None else None
        if current is None:
            break
        current.after = rest
    if not applied:
        return None
    before = b"".join(layout.frames[:index])
    return Mutated(before + frame + rest, len(before), len(before) + len(frame), layout.frames[index], frame, "+".join(applied))


def _splice(data: bytes, start: int, end: int, new: bytes) -> bytes:
    return data[:start] + new + data[end:]


def _outer_or(rng: random.Random, site: _Site, share: float) -> _Site:
    """The chunk around an InvokeModel event `share` of the time, else the frame itself."""
    return site.outer if site.outer is not None and rng.random() < share else site


def _edit_whitespace(rng: random.Random, site: _Site) -> tuple[bytes, bytes | None]:
    site = _outer_or(rng, site, 0.25)
    payload, hole = site.payload, site.hole
    if rng.random() < 0.5:  # the hole's edges, and where the template's tail begins
        spots = [hole.value, hole.end, hole.start, len(payload.rstrip()) - 1]
    else:
        spots = [0, len(payload), *site.scan.gaps]
    at = rng.choice(spots)
    space = rng.choice([b" ", b"\t", b"  ", b" \t ", b"    "])
    return site.build(_splice(payload, at, at, space)), None


def _edit_key_order(rng: random.Random, site: _Site) -> tuple[bytes, bytes | None] | None:
    site = _outer_or(rng, site, 0.25)
    groups: dict[int, list[_Member]] = {}
    for member in site.scan.members:
        groups.setdefault(member.parent, []).append(member)
    choices = [sorted(g, key=lambda m: m.start) for g in groups.values() if len(g) > 1]
    if not choices:
        return None
    own = groups.get(site.hole.parent, [])
    group = sorted(own, key=lambda m: m.start) if len(own) > 1 and rng.random() < 0.5 else rng.choice(choices)
    i, j = sorted(rng.sample(range(len(group)), 2))
    a, b, payload = group[i], group[j], site.payload
    swapped = payload[: a.start] + payload[b.start : b.end] + payload[a.end : b.start] + payload[a.start : a.end] + payload[b.end :]
    return site.build(swapped), None


def _u_escape(char: str, upper: bool) -> str:
    code = ord(char)
    units = [code] if code < 0x10000 else [0xD800 + ((code - 0x10000) >> 10), 0xDC00 + ((code - 0x10000) & 0x3FF)]
    return "".join(("\\u%04X" if upper else "\\u%04x") % unit for unit in units)


def _hole_text(site: _Site) -> str:
    value = orjson.loads(site.payload[site.hole.value : site.hole.end])
    return value if type(value) is str else ""


def _edit_escapes(rng: random.Random, site: _Site) -> tuple[bytes, bytes | None]:
    text = _hole_text(site)
    if not text or rng.random() < 0.3:
        text += rng.choice(["é", "😀", "/", '"', "\\", "\x00", "\x1f", "\u2028", "\x7f", "日", "\ud7ff", "\ufeff"])
    out, escaped = [], False
    for char in text:
        draw = rng.random()
        if draw < 0.4:
            out.append(_u_escape(char, rng.random() < 0.5))
            escaped = True
        elif char == "/" and draw < 0.8:
            out.append("\\/")
            escaped = True
        else:
            out.append(json.dumps(char, ensure_ascii=False)[1:-1])
    if not escaped:
        out[0] = _u_escape(text[0], False)
    literal = ('"' + "".join(out) + '"').encode()
    return site.build(_splice(site.payload, site.hole.value, site.hole.end, literal)), None


def _inside(rng: random.Random, hole: _Member) -> int:
    """An offset inside the hole's string: after its opening quote, before its closing one, or between."""
    return rng.choice([hole.value + 1, hole.end - 1, rng.randrange(hole.value + 1, hole.end)])


def _edit_invalid_utf8(rng: random.Random, site: _Site) -> tuple[bytes, bytes | None]:
    bad = rng.choice([
        b"\xff", b"\xfe", b"\x80", b"\xbf", b"\xc3", b"\xe2\x82", b"\xf0\x9f\x98", b"\xc0\xaf", b"\xe0\x80\xaf",
        b"\xed\xa0\x80", b"\xf4\x90\x80\x80", b"\xf8\x88\x80\x80\x80", b"\\ud800", b"\\udc00x", b"\\ud83dx",
    ])
    at = _inside(rng, site.hole)
    return site.build(_splice(site.payload, at, at, bad)), None


def _edit_cut_utf8(rng: random.Random, site: _Site) -> tuple[bytes, bytes | None]:
    """The string ends (or holds) a multibyte character cut short."""
    char = rng.choice(["é", "€", "😀", "日", "\u2028"]).encode()
    cut = char[: rng.randrange(1, len(char))]
    hole = site.hole
    at = hole.end - 1 if rng.random() < 0.7 else _inside(rng, hole)
    return site.build(_splice(site.payload, at, at, cut)), None


def _edit_duplicate_key(rng: random.Random, site: _Site) -> tuple[bytes, bytes | None]:
    site = _outer_or(rng, site, 0.2)
    payload = site.payload
    member = site.hole if rng.random() < 0.5 else rng.choice(site.scan.members)
    value = payload[member.value : member.end]
    if rng.random() < 0.5:
        if value.startswith(b'"'):
            value = rng.choice([b'"dup"', b'""', b'"\\u0064up"'])
        else:
            value = str(int(value) + 1).encode() if value.lstrip(b"-").isdigit() else b"null"
    duplicate = payload[member.start : member.value] + value
    if rng.random() < 0.5:
        return site.build(_splice(payload, member.start, member.start, duplicate + b",")), None
    return site.build(_splice(payload, member.end, member.end, b"," + duplicate)), None


def _edit_raw_newline(rng: random.Random, site: _Site) -> tuple[bytes, bytes | None]:
    newline = rng.choice([b"\n", b"\r", b"\r\n", b"\n\n"])
    at = _inside(rng, site.hole) if rng.random() < 0.6 else rng.choice(site.scan.gaps)
    return site.build(_splice(site.payload, at, at, newline)), None


def _edit_counter(rng: random.Random, site: _Site) -> tuple[bytes, bytes | None] | None:
    """The sequence number (else the block index the template holds) one more, one
    less, a float (`5.0`), a string, ..."""
    payload = site.payload
    counters = [m for m in site.scan.members if m.key in _COUNTER_KEYS and payload[m.value : m.end].isdigit()]
    if not counters:
        return None
    counted = [m for m in counters if m.key == "sequence_number"]
    member = counted[0] if counted and rng.random() < 0.8 else rng.choice(counters)
    n = int(payload[member.value : member.end])
    new = rng.choice([
        str(n + 1), str(n - 1), f"{n}.0", f"{n}.0", f"{n}e0", f"{n}.5", f"{n}E+0", f'"{n}"', "null", "true",
        f"0{n}", f"-{n}" if n else "-0", f"{n + 2**64}", f" {n}", str(n + 10),
    ]).encode()
    return site.build(_splice(payload, member.value, member.end, new)), None


def _edit_padding(rng: random.Random, site: _Site) -> tuple[bytes, bytes | None]:
    """The padding holding a quote, a backslash, non-ASCII or punctuation (or another
    type); a padding added where there was none."""
    site = _outer_or(rng, site, 0.9)
    payload = site.payload
    value = rng.choice([
        b'"ab\\"cd"', b'"\\""', b'"\xc3\xa9t\xc3\xa9"', b'"\\u00e9"', b'"a_b"', b'"a/b"', b'"a b"', b'""',
        b'"' + b"x" * 300 + b'"', b'"\\u0041bc"', b'"\\\\"', b'"a\\nb"', b'"2025-10-26T17:15:24Z\\""', b'"}}"',
        b'"\\"}"', b'"a\\"},\\"p\\":\\"b"', b"123", b"null", b'"\xff"', b'"+-.:"', b'"\\/"', b'"\t"',
    ])
    pads = [m for m in site.scan.members if m.key in _PADDING_KEYS and m.parent == 0]  # the root's
    if pads:
        member = rng.choice(pads)
        return site.build(_splice(payload, member.value, member.end, value)), None
    end = site.scan.objects[0][1] - 1  # before the root's closing brace
    name = rng.choice([b'"obfuscation":', b'"p":', b'"created_at":'])
    return site.build(_splice(payload, end, end, b"," + name + value)), None


def _edit_tail_in_text(rng: random.Random, site: _Site) -> tuple[bytes, bytes | None]:
    """The bytes the template expects after (or before) the hole, inside the string."""
    payload, hole = site.payload, site.hole
    tail, head = payload[hole.end :], payload[: hole.value]
    piece = rng.choice([
        tail, tail[:2], tail[:4], tail[:8], head[-12:], head, b'"}}', b"}}", b"}]}", b'"},"p":"', b"}}}}", b'"}],"role": "model"}',
        b',"obfuscation":"', b',"usageMetadata": ', b'"}\n\ndata: {"', b"\\", b'"', b"\\u0022}}",
    ])
    text = piece.decode("utf-8", "replace")
    if rng.random() < 0.3 and b'"' not in piece and b"\\" not in piece and not any(c < 0x20 for c in piece):
        escaped = piece  # as it is: no escape needed
    else:
        escaped = json.dumps(text, ensure_ascii=rng.random() < 0.3)[1:-1].encode()
    at = rng.choice([hole.end - 1, hole.end - 1, hole.value + 1, _inside(rng, hole)])
    if rng.random() < 0.2:  # the string is nothing but that
        return site.build(_splice(payload, hole.value, hole.end, b'"' + escaped + b'"')), None
    return site.build(_splice(payload, at, at, escaped)), None


def _edit_extra_field(rng: random.Random, site: _Site) -> tuple[bytes, bytes | None]:
    site = _outer_or(rng, site, 0.25)
    payload, objects = site.payload, site.scan.objects
    draw = rng.random()
    start, end = objects[site.hole.parent] if draw < 0.5 else objects[0] if draw < 0.8 else rng.choice(objects)
    field = rng.choice([
        b'"extra":1', b'"logprobs":null', b'"x":"y"', b'"index":0', b'"type":"text_delta"', b'"citations":[]',
        b'"text":""', b'"":0', b'"thought":true', b'"role":"assistant"', b'"done":false', b'"sequence_number":1',
    ])
    if end - start == 2:  # an empty object
        return site.build(_splice(payload, start + 1, start + 1, field)), None
    if rng.random() < 0.5:
        return site.build(_splice(payload, start + 1, start + 1, field + b",")), None
    return site.build(_splice(payload, end - 1, end - 1, b"," + field)), None


def _edit_other_value(rng: random.Random, site: _Site) -> tuple[bytes, bytes | None]:
    """The hole holding another value than one string."""
    value = rng.choice([
        b"null", b"0", b"-1.5", b"true", b"{}", b'{"text":"x"}', b"[]", b'["x"]', b'"a" "b"', b'"a","b"', b'"a"]', b'"a"}',
        b'"a', b"", b'"a"\t', b'""""', b'"a":"b"', b'"a"//', b"1e999", b'"\\"', b'"a"\n,"b"', b'"a"\r\n,\n"b"', b'"a" ,"b"',
    ])
    hole = site.hole
    return site.build(_splice(site.payload, hole.value, hole.end, value)), None


_EVENT_NAMES = [
    "error", "ping", "message", "", "content_block_start", "content_block_stop", "message_stop", "response.completed",
    "response.output_text.done", "content-end", "content-delta", "message-end", "done", "x", "response.failed",
]
_AWS_EVENT_NAMES = [
    "contentBlockStart", "contentBlockStop", "messageStop", "metadata", "chunk", "messageStart", "", "ContentBlockDelta",
    "contentBlockDelta ", "contentblockdelta", "x",
]


def _edit_event_name(rng: random.Random, site: _Site) -> tuple[bytes, bytes | None] | None:
    """Another `event:` name (or one where there was none); for AWS frames another
    `:event-type`, an exception frame, headers reordered or added."""
    view = site.view
    if site.wire == "ndjson":
        return None
    if site.wire == "aws":
        headers = list(view.headers or ())
        draw = rng.random()
        if draw < 0.5:
            name = rng.choice(_AWS_EVENT_NAMES)
            headers = [(k, name if k == ":event-type" else v) for k, v in headers]
        elif draw < 0.65:
            headers = [(k, "exception" if k == ":message-type" else v) for k, v in headers]
            headers.append((":exception-type", rng.choice(["throttlingException", "modelStreamErrorException"])))
        elif draw < 0.75:
            headers = [(k, v) for k, v in headers if k != ":event-type"]
        elif draw < 0.85:
            rng.shuffle(headers)
        elif draw < 0.93:
            headers.insert(rng.randrange(len(headers) + 1), (":event-type", rng.choice(_AWS_EVENT_NAMES)))
        else:
            headers.append(("x-amzn-extra", "1"))
        return site.build(headers=headers), None
    name = rng.choice([*_EVENT_NAMES, *(v.upper() for v in [view.event or "x"]), (view.event or "") + " "])
    line = rng.choice([b"event: ", b"event:", b"event:  "]) + name.encode(errors="replace") + b"\n"
    head = view.head
    lines = head.splitlines(keepends=True)
    named = [i for i, ln in enumerate(lines) if ln.startswith(b"event:")]
    if named and rng.random() < 0.8:
        lines[named[0]] = line
        return site.build(head=b"".join(lines)), None
    if rng.random() < 0.5:  # after the data line, in the same frame
        newline = view.tail[:2] if view.tail.startswith(b"\r\n") else view.tail[:1]
        return site.build(tail=newline + line + view.tail[len(newline) :]), None
    return site.build(head=line + head), None


def _edit_line_ends(rng: random.Random, site: _Site) -> tuple[bytes, bytes | None] | None:
    """The frame's line ends (and sometimes those of all frames after it) another kind."""
    if site.wire == "aws":
        return None
    frame = site.build()
    ending = rng.choice([e for e in (b"\r\n", b"\r", b"\n") if e not in _LINE_END.findall(frame)] or [b"\r"])
    if rng.random() < 0.7:
        return _LINE_END.sub(ending, frame), None
    return _LINE_END.sub(ending, frame), _LINE_END.sub(ending, site.after)


def _edit_comment_or_bom(rng: random.Random, site: _Site) -> tuple[bytes, bytes | None] | None:
    """A comment line, a BOM or another field line inside the run (inside the frame or
    between it and the previous one)."""
    view = site.view
    if site.wire == "aws":
        return None
    if site.wire == "ndjson":
        what = rng.choice([_BOM, b"\n", b"   \n", b"\r\n", _BOM + b"\n", b" "])
        return what + site.build(), None
    data_at = view.head.rfind(b"data:")
    draw = rng.random()
    if draw < 0.6:
        what = rng.choice([b": x\n", b":\n", b": keep-alive\n\n", _BOM, _BOM + b": x\n", b"id: 7\n", b"retry: 10\n", b"data:\n", b"data\n"])
        at = rng.choice([0, data_at])
        return site.build(head=_splice(view.head, at, at, what)), None
    if draw < 0.8:  # a BOM (or a space) where the payload starts
        return site.build(head=view.head + rng.choice([_BOM, b" " + _BOM, b"\t"])), None
    newline = view.tail[:2] if view.tail.startswith(b"\r\n") else view.tail[:1]
    comment = rng.choice([b": x", b":", b": " + _BOM]) + newline
    return site.build(tail=newline + comment + view.tail[len(newline) :]), None


def _edit_boundary_cut(rng: random.Random, site: _Site) -> tuple[bytes, bytes | None]:
    """The payload (or the whole body) ending exactly where the template's parts meet:
    before or after the hole, its quotes, its key."""
    payload, hole = site.payload, site.hole
    at = rng.choice([hole.value, hole.value + 1, hole.end - 1, hole.end, hole.start, len(payload), len(payload) - 1])
    if rng.random() < 0.5:  # the frame ends there, the run goes on
        return site.build(payload[:at]), None
    if site.wire != "aws":
        tail = site.view.tail
        return site.view.head + payload[:at] + (tail[: rng.randrange(len(tail))] if at == len(payload) and tail else b""), b""
    whole = site.build()
    if site.view.outer is None:
        offset = len(whole) - 4 - len(payload) + at
    else:  # where the base64 of those bytes ends
        offset = len(whole) - 4 - len(site.view.outer[1]) - len(base64.b64encode(payload)) + at // 3 * 4
    return whole[:offset], b""


def _edit_base64(rng: random.Random, site: _Site) -> tuple[bytes, bytes | None] | None:
    """An InvokeModel chunk's base64 written otherwise: escaped, unpadded, in two padded
    pieces, URL-safe, with a line break."""
    outer = site.view.outer
    if outer is None:
        return None
    data = base64.b64encode(site.payload)
    half = len(site.payload) // 2
    k = rng.randrange(len(data) + 1)
    variant = rng.choice([
        data.replace(b"/", b"\\/"), data[:k] + b"\\n" + data[k:], data.rstrip(b"="), base64.urlsafe_b64encode(site.payload),
        base64.b64encode(site.payload[:half]) + base64.b64encode(site.payload[half:]), data + b"=", b" " + data,
        data[:k] + b"\\u0041" + data[k:], data.replace(b"A", b"\\u0041", 1), data[:k] + data[k + 1 :],
    ])
    return site.build(aws_payload=outer[0] + variant + outer[1]), None


def _edit_near_cap(rng: random.Random, site: _Site) -> tuple[bytes, bytes | None] | None:
    """The string grown until the frame, its line or its payload is a byte or two
    under, at or over the decoder's cap (MAX_FRAME)."""
    target = MAX_FRAME + rng.choice([-2, -1, 0, 0, 1, 2])
    measure = rng.choice(["frame", "line", "payload"])
    payload, hole = site.payload, site.hole
    line_head = len(site.view.head) - site.view.head.rfind(b"\n") - 1

    def grown(k: int) -> bytes:
        return _splice(payload, hole.end - 1, hole.end - 1, b"x" * k)

    def size(k: int) -> int:
        if measure == "frame":
            return len(site.build(grown(k)))
        return len(payload) + k + (line_head if measure == "line" and site.wire == "sse" else 0)

    scale = 0.75 if site.view.outer is not None and measure == "frame" else 1.0  # base64: 4 bytes for 3
    k = 0
    for _ in range(5):
        k = max(0, k + int((target - size(k)) * scale))
    return site.build(grown(k)), None


_EDITS: dict[str, _Edit] = {
    "whitespace": _edit_whitespace,
    "key_order": _edit_key_order,
    "escapes": _edit_escapes,
    "invalid_utf8": _edit_invalid_utf8,
    "cut_utf8": _edit_cut_utf8,
    "duplicate_key": _edit_duplicate_key,
    "raw_newline": _edit_raw_newline,
    "counter": _edit_counter,
    "padding": _edit_padding,
    "tail_in_text": _edit_tail_in_text,
    "extra_field": _edit_extra_field,
    "other_value": _edit_other_value,
    "event_name": _edit_event_name,
    "line_ends": _edit_line_ends,
    "comment_or_bom": _edit_comment_or_bom,
    "boundary_cut": _edit_boundary_cut,
    "base64": _edit_base64,
    "near_cap": _edit_near_cap,
}


def _fast_mutator(name: str) -> Callable[[random.Random, bytes], bytes]:
    def mutator(rng: random.Random, body: bytes) -> bytes:
        done = mutate_hot_frame(rng, body, [name])
        return body if done is None else done.body

    mutator.__name__ = mutator.__qualname__ = f"fast_{name}"
    return mutator


#: each fast-path mutation alone: `(rng, body) -> body` (the body as it was when it has no run of hot frames)
FAST_PATH_MUTATIONS: list[Callable[[random.Random, bytes], bytes]] = [_fast_mutator(name) for name in _EDITS]


def _fast_path(rng: random.Random, body: bytes) -> bytes:
    """Any of the fast-path mutations."""
    done = mutate_hot_frame(rng, body)
    return body if done is None else done.body


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
    _fast_path,
    _fast_path,
    _fast_path,
]


# --- invariants ---------------------------------------------------------------------------


def _decode(protocol: str, pieces: Iterator[bytes] | list[bytes], strict: bool, slow: bool = False) -> Any:
    decoder = decoder_on_path(
        protocol, slow, stream_id="f", clock=lambda: 0, strict_arguments=strict, max_frame=MAX_FRAME
    )
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


def campaign(examples: int, seed: int = 0, seeds: list[Seed] | None = None, fast_path_only: bool = False) -> dict[str, int]:
    """Check `examples` mutated inputs; raise on the first broken invariant.  With
    `fast_path_only`, only the fast-path mutations are drawn, of the seeds that have a
    run of hot frames."""
    pool = seeds if seeds is not None else suite_seeds() + fast_path_seeds() + corpus_seeds()
    if fast_path_only:
        pool = [seed for seed in pool if _layout(seed[2]).runs]
    mutations = FAST_PATH_MUTATIONS if fast_path_only else None
    ends: dict[str, int] = {}
    for n in range(examples):
        rng = random.Random(seed * 1_000_003 + n)
        protocol, label, body = pool[n % len(pool)]
        mutated = mutate(rng, body, mutations)
        try:
            end = check(protocol, mutated, strict=rng.random() < 0.7, rng=rng)
        except Exception as failure:
            raise AssertionError(f"input {n} (seed {seed}, from {label}, {len(mutated)} bytes): {failure!r}") from failure
        ends[end] = ends.get(end, 0) + 1
    return ends


# --- four configurations: {compiled, pure} x {fast, slow} ---------------------------------
#
# Which build runs is fixed when unievent is imported, so each build runs in a worker
# process of its own (`--worker`): it draws the same inputs from (seed, index), decodes
# each in many ways, compares the fast and the slow path itself, and prints one line per
# input with a digest of the result.  The parent runs the pure worker (UNIEVENT_PURE=1)
# and the default one (compiled when it is built) and compares their lines.

ROOT = Path(__file__).resolve().parent.parent
#: one in this many inputs also has its decoding time checked for linear growth
LINEAR_EVERY = 50
#: decodes of a cut body allowed per input, times its size (the cuts of a long body are sampled)
CUT_BUDGET = 8_000_000


def _decode_any(protocol: str, pieces: Iterator[bytes] | list[bytes], strict: bool, slow: bool = False) -> Any:
    """`_decode`, with any unievent error kept by its name (the events before it kept):
    only an error of another kind escapes."""
    decoder = decoder_on_path(
        protocol, slow, stream_id="f", clock=lambda: 0, strict_arguments=strict, max_frame=MAX_FRAME
    )
    events: list[Any] = []
    raised: list[str] = []
    outcome: Any = None
    try:
        for piece in pieces:
            events += decoder.push(piece)
    except unievent.UniEventError as error:
        events += getattr(error, "events", None) or []
        raised.append(type(error).__name__)
    try:
        last, outcome = decoder.finish()
        events += last
    except unievent.UniEventError as error:
        raised.append(type(error).__name__)
        outcome = getattr(error, "outcome", None)
    return events, outcome, tuple(raised)


def _plain(value: Any) -> Any:
    """`value` as JSON-able data that names every class (for a digest: equal data, equal text)."""
    kind = type(value)
    if attrs.has(kind):
        fields = {f.name: _plain(getattr(value, f.name)) for f in attrs.fields(kind) if f.eq}
        return {"@": kind.__name__, **fields}
    if kind is dict:
        return {"@dict": sorted(([_plain(k), _plain(v)] for k, v in value.items()), key=repr)}
    if kind in (list, tuple):
        return [_plain(v) for v in value]
    if kind in (set, frozenset):
        return sorted((_plain(v) for v in value), key=repr)
    if kind in (bytes, bytearray):
        return {"@bytes": bytes(value).hex()}
    if kind is int and not -(2**63) <= value < 2**64:
        return {"@int": str(value)}
    if kind is float:
        return {"@float": repr(value)}
    if value is None or kind in (str, int, bool):
        return value
    return {"@" + kind.__name__: repr(value)}


def serialize(result: Any) -> bytes:
    """A stable text of a decode result (events, outcome, unievent errors raised)."""
    return orjson.dumps(_plain(result), option=orjson.OPT_SORT_KEYS)


def digest(result: Any) -> str:
    return hashlib.sha256(serialize(result)).hexdigest()[:24]


@attrs.frozen
class Input:
    """One input of the four-configuration campaign, drawn from (seed, index)."""

    index: int
    protocol: str
    label: str  # the seed's, and the mutation's name
    body: bytes
    strict: bool
    mutated: Mutated | None  # when a fast-path mutation made it: the frame it changed
    split_seed: int


def builds_pool(fast_path_only: bool) -> list[Seed]:
    pool = suite_seeds() + fast_path_seeds() + corpus_seeds()
    if fast_path_only:
        pool = [seed for seed in pool if _layout(seed[2]).runs]
    return pool


def draw_input(seed: int, index: int, pool: list[Seed], fast_path_only: bool) -> Input:
    """The input `index` of the campaign `seed`: the same in every process."""
    rng = random.Random(seed * 1_000_003 + index)
    protocol, label, body = pool[index % len(pool)]
    mutated = mutate_hot_frame(rng, body) if fast_path_only or rng.random() < 0.6 else None
    if mutated is not None:
        body, what = mutated.body, f"fast_{mutated.edit}"
    else:
        generic = [m for m in _MUTATIONS if m is not _fast_path]
        mutation = generic[rng.randrange(len(generic))]
        body, what = mutation(rng, body), mutation.__name__
    return Input(index, protocol, f"{label}:{what}", body, rng.random() < 0.7, mutated, rng.randrange(2**32))


def _cut_offsets(rng: random.Random, item: Input) -> list[int]:
    """Where to cut the body in two: at every byte of the changed frame (else at bytes
    drawn at random), as many as the budget allows for the body's size."""
    body = item.body
    allowed = max(32, CUT_BUDGET // max(len(body), 1))
    if item.mutated is not None:
        offsets = list(range(item.mutated.start, min(item.mutated.end, len(body)) + 1))
    else:
        offsets = sorted({rng.randrange(len(body) + 1) for _ in range(64)})
    if len(offsets) > allowed:
        offsets = sorted(rng.sample(offsets, allowed))
    return offsets


def examine(item: Input, linear: bool = False) -> tuple[str, str, str]:
    """Decode one input whole (fast and slow path), in random splits (fast and slow),
    and cut in two at every byte of its changed frame; returns the digest of the
    whole decode, its end, and what went wrong ("" when nothing did)."""
    rng = random.Random(item.split_seed)
    protocol, body, strict = item.protocol, item.body, item.strict
    try:
        whole = _decode_any(protocol, [body], strict)
    except Exception as error:  # only unievent errors may escape (_decode_any keeps them)
        return f"raised:{type(error).__name__}", "-", f"whole: raised {type(error).__name__}: {error}"
    events, outcome, _raised = whole
    end = str(outcome.end) if outcome is not None else "-"
    try:
        unievent.validate(events, partial=end != "complete")
    except unievent.UniEventError as error:
        return digest(whole), end, f"whole: the events break the grammar: {error}"
    variants: list[tuple[str, list[bytes], bool, bool]] = [
        ("slow path", [body], True, False),
        ("random split", _pieces(rng, body), False, False),
        ("random split, read line by line", _pieces(rng, body), False, True),
        ("random split, slow path", _pieces(rng, body), True, False),
    ]
    cuts = _cut_offsets(rng, item)
    variants += [(f"cut at {k}", [body[:k], body[k:]], False, False) for k in cuts]
    variants += [(f"cut at {k}, slow path", [body[:k], body[k:]], True, False) for k in rng.sample(cuts, min(8, len(cuts)))]
    for name, pieces, slow, lines in variants:
        try:
            with _every_line_at_once() if lines else contextlib.nullcontext():
                other = _decode_any(protocol, pieces, strict, slow)
        except Exception as error:  # only unievent errors may escape (_decode_any keeps them)
            return digest(whole), end, f"{name}: raised {type(error).__name__}: {error}"
        if other != whole:
            return digest(whole), end, f"{name}: decodes differently ({_first_difference(whole, other)})"
    if linear and item.mutated is not None:
        problem = _linear_problem(protocol, item.mutated, strict)
        if problem:
            return digest(whole), end, problem
    return digest(whole), end, ""


def _first_difference(one: Any, other: Any) -> str:
    return _first_difference_of(serialize(one), serialize(other))


def _first_difference_of(a: bytes, b: bytes) -> str:
    """Where two serialized results part, with some bytes of each around it."""
    if a == b:
        return "the same now: the difference did not come back"
    at = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    lo = max(0, at - 60)
    return f"at {at}: {a[lo : at + 60]!r} vs {b[lo : at + 60]!r}"


def _linear_problem(protocol: str, mutated: Mutated, strict: bool) -> str:
    """Time to decode N hot frames alternating with the changed one, and 4N: a ratio
    over 10 (quadratic time would give 16) is a problem."""
    before, after = mutated.body[: mutated.start], mutated.body[mutated.end :]
    pair = mutated.hot + mutated.frame
    count = max(8, 60_000 // max(len(pair), 1))

    def timed(n: int) -> float:
        body = before + pair * n + after
        best = float("inf")
        for _ in range(3):
            started = time.perf_counter()
            _decode_any(protocol, [body], strict)
            best = min(best, time.perf_counter() - started)
        return best

    try:
        small, large = timed(count), timed(4 * count)
    except Exception as error:  # only unievent errors may escape
        return f"linear time: raised {type(error).__name__}: {error}"
    if large > 0.05 and large > 10 * small:
        return f"linear time: {count} frames in {small * 1e3:.1f} ms, {4 * count} in {large * 1e3:.1f} ms"
    return ""


def worker(examples: int, seed: int, fast_path_only: bool, first: int = 0, timing: bool = True) -> None:
    """Print a header naming the build, then one line per input: index, label, digest,
    end, problem (tab-separated; the problem empty when there is none)."""
    pool = builds_pool(fast_path_only)
    print(f"# compiled={unievent.COMPILED} sources={_sources_digest()} seeds={len(pool)}", flush=True)
    for index in range(first, first + examples):
        item = draw_input(seed, index, pool, fast_path_only)
        found, end, problem = examine(item, linear=timing and index % LINEAR_EVERY == 0)
        clean = problem.replace("\t", " ").replace("\n", " ").replace("\r", " ")
        print(f"{index}\t{item.label}\t{found}\t{end}\t{clean}", flush=True)


def _sources_digest() -> str:
    """A digest of the decoder's Python sources: the two workers must decode with the same."""
    package = Path(unievent.__file__).resolve().parent
    hashed = hashlib.sha256()
    for path in sorted(package.rglob("*.py")):
        hashed.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    return hashed.hexdigest()[:16]


@attrs.define
class BuildsReport:
    inputs: int
    seeds: int
    builds: tuple[str, str]  # what the two workers ran: "compiled" or "pure"
    ends: dict[str, int]
    differences: list[str]
    seconds: tuple[float, float]


def _run_worker(
    pure: bool, examples: int, seed: int, fast_path_only: bool, extra: tuple[str, ...] = ()
) -> tuple[list[str], str]:
    """The lines a worker printed, and why it stopped early ("" when it did not)."""
    env = dict(os.environ)
    env.pop("UNIEVENT_SLOW_PATH", None)
    if pure:
        env["UNIEVENT_PURE"] = "1"
    else:
        env.pop("UNIEVENT_PURE", None)
    command = [sys.executable, "-m", "tests.fuzzing", "--worker", "--examples", str(examples), "--seed", str(seed)]
    command += ["--fast-path-only"] if fast_path_only else []
    limit = 60 + 5 * examples  # a decoder that hangs stops its worker
    try:
        done = subprocess.run(
            [*command, *extra], env=env, cwd=ROOT, capture_output=True, text=True, check=False, timeout=limit
        )
    except subprocess.TimeoutExpired as stopped:
        output = stopped.stdout.decode() if isinstance(stopped.stdout, bytes) else stopped.stdout or ""
        return output.splitlines(), f"no answer within {limit} s"
    if done.returncode != 0:
        return done.stdout.splitlines(), f"exit status {done.returncode}: {done.stderr[-1500:]}"
    return done.stdout.splitlines(), ""


def compare_workers(pure: list[str], default: list[str], seed: int) -> tuple[dict[str, int], list[str]]:
    """The ends counted, and every difference: a problem a worker found in its own build
    (fast against slow path, whole against split), or the two builds' digests differing;
    each named by seed, index and label."""
    ends: dict[str, int] = {}
    differences: list[str] = []
    rows_pure = [line.split("\t") for line in pure if line and not line.startswith("#")]
    rows_default = [line.split("\t") for line in default if line and not line.startswith("#")]
    if len(rows_pure) != len(rows_default):
        differences.append(f"seed {seed}: the workers decoded {len(rows_pure)} and {len(rows_default)} inputs")
    for a, b in zip(rows_pure, rows_default, strict=False):
        if len(a) != 5 or len(b) != 5:
            differences.append(f"seed {seed}: a worker printed a line of another form: {a!r} / {b!r}")
            continue
        where = f"seed {seed}, index {a[0]}, {a[1]}"
        ends[a[3]] = ends.get(a[3], 0) + 1
        if a[:2] != b[:2]:
            differences.append(f"{where}: the workers drew different inputs (the default worker: {b[0]}, {b[1]})")
        elif a[4]:
            differences.append(f"{where}: pure build: {a[4]}")
        elif b[4]:
            differences.append(f"{where}: default build: {b[4]}")
        elif a[2] != b[2]:
            differences.append(f"{where}: the pure and the default build decode differently ({a[3]} vs {b[3]})")
    return ends, differences


def builds_campaign(examples: int, seed: int = 0, fast_path_only: bool = False, timing: bool = True) -> BuildsReport:
    """Decode `examples` inputs in the four configurations (two workers, one after the
    other); the differences are returned, not raised.  `timing` adds the linear-time
    check (never in pytest: a busy machine would fail it)."""
    extra = () if timing else ("--no-timing",)
    started = time.monotonic()
    pure, pure_stop = _run_worker(True, examples, seed, fast_path_only, extra)
    middle = time.monotonic()
    default, default_stop = _run_worker(False, examples, seed, fast_path_only, extra)
    ended = time.monotonic()
    ends, differences = compare_workers(pure, default, seed)
    for name, lines, stop in (("pure", pure, pure_stop), ("default", default, default_stop)):
        if stop:
            last = next((line.split("\t")[0] for line in reversed(lines) if line and not line.startswith("#")), "none")
            differences.insert(0, f"seed {seed}: the {name} worker stopped after input {last}: {stop}")
    headers = [lines[0] if lines and lines[0].startswith("#") else "" for lines in (pure, default)]
    builds = tuple("compiled" if "compiled=True" in header else "pure" for header in headers)
    sources = {header.partition("sources=")[2].partition(" ")[0] for header in headers}
    if len(sources) > 1:  # edited while the workers ran: their digests may differ for that alone
        differences.insert(0, f"seed {seed}: the decoder's sources changed between the two workers")
    seeds = int(headers[0].rpartition("seeds=")[2]) if headers[0] else 0
    return BuildsReport(examples, seeds, (builds[0], builds[1]), ends, differences, (middle - started, ended - middle))


def _dump_one(index: int, seed: int, fast_path_only: bool) -> bytes:
    """The serialized whole decode of one input (to show where two builds differ)."""
    item = draw_input(seed, index, builds_pool(fast_path_only), fast_path_only)
    try:
        return serialize(_decode_any(item.protocol, [item.body], item.strict))
    except Exception as error:  # only unievent errors may escape
        return f"raised {type(error).__name__}: {error}".encode()


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m tests.fuzzing", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--examples", type=int, default=10_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--fast-path-only", action="store_true", help="draw only the fast-path mutations")
    parser.add_argument("--builds", action="store_true",
                        help="decode each input in the four configurations {compiled, pure} x {fast, slow} and compare")
    parser.add_argument("--worker", action="store_true", help="(of --builds) print the digests of this build")
    parser.add_argument("--first", type=int, default=0, help="(of --worker) the first input's index")
    parser.add_argument("--no-timing", action="store_true", help="(of --builds, --worker) no linear-time check")
    parser.add_argument("--show", type=int, metavar="INDEX", help="print input INDEX of the --builds campaign")
    parser.add_argument("--dump", type=int, metavar="INDEX", help="print the decode of input INDEX of the --builds campaign")
    args = parser.parse_args(argv)
    if args.show is not None:
        item = draw_input(args.seed, args.show, builds_pool(args.fast_path_only), args.fast_path_only)
        print(f"{item.protocol} {item.label} strict={item.strict}")
        print(repr(item.body))
        if item.mutated is not None:
            print(f"changed frame, bytes {item.mutated.start}-{item.mutated.end}: {item.mutated.frame!r}")
        return 0
    if args.dump is not None:
        sys.stdout.buffer.write(_dump_one(args.dump, args.seed, args.fast_path_only) + b"\n")
        return 0
    if args.worker:
        worker(args.examples, args.seed, args.fast_path_only, args.first, timing=not args.no_timing)
        return 0
    started = time.monotonic()
    if not args.builds:
        ends = campaign(args.examples, args.seed, fast_path_only=args.fast_path_only)
        elapsed = time.monotonic() - started
        print(f"{args.examples} inputs (seed {args.seed}) in {elapsed:.0f} s: no invariant broken; ends {ends}")
        return 0
    report = builds_campaign(args.examples, args.seed, args.fast_path_only, timing=not args.no_timing)
    for line in report.differences[:20]:
        print(line)
    first = next((d for d in report.differences if "build decode differently" in d), None)
    if first is not None:  # where the two builds' decodes part
        index = first.split("index ")[1].split(",")[0]
        pure, default = (
            "\n".join(_run_worker(pure, 1, args.seed, args.fast_path_only, ("--dump", index))[0]).encode()
            for pure in (True, False)
        )
        print(f"index {index}, pure vs default build: {_first_difference_of(pure, default)}")
    pure_time, default_time = report.seconds
    note = "" if report.builds[1] == "compiled" else " (the compiled modules are missing or stale: both ran pure)"
    print(
        f"{report.inputs} inputs ({report.seeds} seeds, seed {args.seed}) x 4 configurations "
        f"(pure and {report.builds[1]}, fast and slow path) in {pure_time + default_time:.0f} s "
        f"({pure_time:.0f} s + {default_time:.0f} s): ends {report.ends}; differences {len(report.differences)}{note}"
    )
    return 1 if report.differences else 0


if __name__ == "__main__":
    sys.exit(main())
