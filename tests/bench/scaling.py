"""Scaling of unievent with input size: linear time, bounded memory; prints Markdown.

    python tests/bench/scaling.py                   # every shape at 1, 4 and 16 MB
    python tests/bench/scaling.py --quick           # 0.25, 1 and 4 MB, 2 repetitions
    python tests/bench/scaling.py --shape 2,long_line --reps 9

Each shape is a body built by repeating one unit (a frame, a data line, a run of
characters, a pair of fragments) up to 1, 4 and 16 MB (10**6 bytes), fed to
`unievent.StreamDecoder` (default options) whole or in pieces of a fixed size.  The
bodies and their pieces are built first, untimed.  For every size:

* time: CPU seconds of this process per decode (push every piece, then finish; the
  events each push returns are dropped at once), looping decodes for at least
  MIN_SECONDS after a gc.collect().  `--reps` repetitions go round the sizes in turn
  and the fastest of each size is kept.  The floor (join the pieces, split frames on
  blank lines, strip `data: `, orjson.loads each payload) is timed the same way, for
  the ratio the machine itself gives that shape.
* memory: one more decode under tracemalloc, started once the body and its pieces
  exist (so they are not counted), events dropped as they come.  `peak` is the highest
  traced memory during the decode, `outcome` what is still traced after it once the
  decoder is gone (the returned Outcome alone), and the table shows `retained` =
  peak - outcome: what the decoder held beyond what it returned, orjson's transient
  parse buffers included (orjson allocates through Python's allocator); `peak / body`
  is the peak over the body's size, the amplification a shape costs.

The ratios are the largest size over the smallest (16 MB / 1 MB, or 4 / 0.25 with
--quick): about 16 for linear time, about 1 for memory that does not grow with the
input.  Shapes 8 to 11 are measured for memory only.  Every decode under tracemalloc
is also checked (end, items, side events, anomalies), so that each shape measures the
path it is named for; a failed check is listed under the table and makes the exit
status 1.
"""

from __future__ import annotations

import argparse
import gc
import importlib
import platform
import random
import sys
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from functools import partial
from pathlib import Path
from typing import Any

import orjson
from gen import cut, prose

_DECODER_ROOT = str(Path(__file__).resolve().parents[2] / "decoder")

MB = 1_000_000
SIZES = (1 * MB, 4 * MB, 16 * MB)
QUICK_SIZES = (MB // 4, 1 * MB, 4 * MB)
REPS = 5
QUICK_REPS = 2
MIN_SECONDS = 0.2  # each timing loops decodes for at least this much CPU time

JsonObj = dict[str, Any]
Check = Callable[[Any, int], list[str]]  # (outcome, units) -> problems


@dataclass(frozen=True)
class Body:
    data: bytes
    units: int  # how many times the shape's unit is in the body
    label: str = ""  # what the body holds, in words, for the table


@dataclass(frozen=True)
class Shape:
    number: int
    key: str  # the --shape name
    title: str  # the table's label
    protocol: str
    piece: int | None  # bytes per push; None: the body in one push
    build: Callable[[int], Body]  # target size in bytes -> body
    check: Check


@dataclass
class Row:
    shape: Shape
    labels: list[str] = field(default_factory=list)
    seconds: list[float] = field(default_factory=list)  # CPU seconds per decode
    floor: list[float] = field(default_factory=list)  # the same for the floor
    retained: list[int] = field(default_factory=list)  # peak - outcome, bytes
    peak_per_byte: list[float] = field(default_factory=list)  # peak over the body's size
    outcome: list[int] = field(default_factory=list)  # bytes
    problems: list[str] = field(default_factory=list)


# --------------------------------------------------------------------------- wire helpers


def sse(obj: JsonObj, event: str | None = None) -> bytes:
    head = b"event: " + event.encode() + b"\n" if event else b""
    return head + b"data: " + orjson.dumps(obj) + b"\n\n"


def typed(obj: JsonObj) -> bytes:
    """An `event: <type>` + `data:` frame, as Anthropic and Responses send them."""
    return sse(obj, str(obj["type"]))


_CHAT_HEAD: JsonObj = {
    "id": "chatcmpl-BnCh0q8Yx2Lw4Rk7Ez1Vt5Ua9Sm3Qp",
    "object": "chat.completion.chunk",
    "created": 1_750_000_000,
    "model": "gpt-4.1-2025-04-14",
    "service_tier": "default",
    "system_fingerprint": "fp_51e1070cf2",
}


def chat(delta: JsonObj, finish: str | None = None) -> bytes:
    """A chat.completion.chunk with the fields and order OpenAI sends (see gen.py)."""
    choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish}
    return sse({**_CHAT_HEAD, "choices": [choice], "usage": None, "obfuscation": "k3"})


def compact_chat(delta: JsonObj) -> bytes:
    """A chunk with only the core fields, as OpenAI-compatible servers send them."""
    choice = {"index": 0, "delta": delta, "finish_reason": None}
    return sse({"id": "chatcmpl-7", "object": "chat.completion.chunk", "model": "gpt-4.1", "choices": [choice]})


def chat_end(finish: str) -> bytes:
    usage = {"prompt_tokens": 1200, "completion_tokens": 900, "total_tokens": 2100}
    tail = sse({**_CHAT_HEAD, "choices": [], "usage": usage, "obfuscation": "q"})
    return chat({}, finish) + tail + b"data: [DONE]\n\n"


def repeat(target: int, head: bytes, unit: bytes, tail: bytes) -> Body:
    """head + unit * n + tail, with n the smallest count reaching the target size."""
    n = max(1, -(-(target - len(head) - len(tail)) // len(unit)))
    return Body(head + unit * n + tail, n)


def labelled(body: Body, label: str) -> Body:
    return Body(body.data, body.units, label)


def fill(target: int, head: bytes, make: Callable[[int], bytes], tail: bytes) -> Body:
    """head + make(0) + make(1) + ... + tail, up to the target size."""
    parts = [head]
    size = len(head) + len(tail)
    n = 0
    while size < target or n == 0:
        part = make(n)
        parts.append(part)
        size += len(part)
        n += 1
    parts.append(tail)
    return Body(b"".join(parts), n)


def escaped(text: str) -> str:
    """`text` as it appears inside a JSON string."""
    return orjson.dumps(text).decode()[1:-1]


def _text(seed: str, n_chars: int) -> str:
    return prose(random.Random(seed), n_chars)


# One block of prose cut into model-sized deltas: the repeated unit of the text shapes.
_DELTAS = cut(random.Random("scaling/deltas"), _text("scaling/text", 1024), 3, 5)
_DELTA_TEXT = "".join(_DELTAS)


# --------------------------------------------------------------------------- outcome reading
# By class name, as contenders.py does: the decoder is imported at run time.


def _items(outcome: Any, kind: str) -> list[Any]:
    return [i for i in outcome.message.items if type(i).__name__ == kind]


def _text_of(outcome: Any) -> str:
    return "".join(i.text for i in _items(outcome, "TextDone"))


def _end(outcome: Any, want: str = "complete") -> list[str]:
    return [] if outcome.end == want else [f"end {outcome.end!r}, expected {want!r}"]


def _anomaly(outcome: Any, kind: str) -> int:
    found = outcome.anomaly(kind)
    return 0 if found is None else int(found.count)


def _side(outcome: Any, kind: str, phase: str) -> list[Any]:
    return [e for e in outcome.side_events if e.kind == kind and e.phase == phase]


# --------------------------------------------------------------------------- 1-7: time and memory


def plain_text(target: int) -> Body:
    head = chat({"role": "assistant", "content": "", "refusal": None})
    unit = b"".join(chat({"content": piece}) for piece in _DELTAS)
    body = repeat(target, head, unit, chat_end("stop"))
    return labelled(body, f"{body.units * len(_DELTAS):,} content deltas")


def check_plain_text(outcome: Any, units: int) -> list[str]:
    problems = _end(outcome)
    if _text_of(outcome) != _DELTA_TEXT * units:
        problems.append("text differs")
    return problems


def data_lines(target: int) -> Body:
    """One chunk whose JSON is spread over many `data:` lines (one number a line)."""
    chunk = {
        **_CHAT_HEAD,
        "choices": [{"index": 0, "delta": {"role": "assistant", "content": "Hello"}}],
    }
    opening = orjson.dumps(chunk)[:-1] + b',"x_trace":['  # an extension field
    head = b"data: " + opening + b"\ndata: 0\n"
    tail = b"data: ]}\n\n" + chat_end("stop")
    body = repeat(target, head, b"data: ,1\n", tail)
    return labelled(body, f"1 frame of {body.units + 2:,} data: lines")


def check_data_lines(outcome: Any, units: int) -> list[str]:
    problems = _end(outcome)
    if _text_of(outcome) != "Hello":
        problems.append(f"text {_text_of(outcome)[:40]!r}, expected 'Hello'")
    if outcome.skipped_frames:
        problems.append(f"{outcome.skipped_frames} skipped frames")
    return problems


_LINE_BLOCK = _text("scaling/line", 65_536)


def long_line(target: int) -> Body:
    """One `data:` line: a single chunk whose content is one huge string."""
    head = chat({"role": "assistant", "content": "", "refusal": None})
    tail = chat_end("stop")
    overhead = len(head) + len(tail) + len(chat({"content": ""}))
    per_block = len(escaped(_LINE_BLOCK).encode())
    n = max(1, -(-(target - overhead) // per_block))
    line = chat({"content": _LINE_BLOCK * n})
    return Body(head + line + tail, n, f"1 line of {len(line) / MB:.1f} MB")


def check_long_line(outcome: Any, units: int) -> list[str]:
    problems = _end(outcome)
    if _text_of(outcome) != _LINE_BLOCK * units:
        problems.append("text differs")
    return problems


def _message_start() -> bytes:
    usage = {"input_tokens": 2048, "cache_read_input_tokens": 0, "output_tokens": 1}
    message: JsonObj = {
        "model": "claude-sonnet-4-5-20250929",
        "id": "msg_01XFDUDYJgAACzvnptvVoYEL",
        "type": "message",
        "role": "assistant",
        "content": [],
        "stop_reason": None,
        "stop_sequence": None,
        "usage": usage,
    }
    return typed({"type": "message_start", "message": message})


def _message_end(stop_reason: str = "end_turn") -> bytes:
    delta = {"stop_reason": stop_reason, "stop_sequence": None}
    usage = {"input_tokens": 2048, "output_tokens": 900}
    message_delta = {"type": "message_delta", "delta": delta, "usage": usage}
    return typed(message_delta) + typed({"type": "message_stop"})


def _block(index: int, block: JsonObj, unit: bytes, target: int) -> Body:
    """message_start, one content block whose deltas are `unit` repeated, the end."""
    start = {"type": "content_block_start", "index": index, "content_block": block}
    head = _message_start() + typed(start)
    stop = typed({"type": "content_block_stop", "index": index})
    return repeat(target, head, unit, stop + _message_end())


def _block_delta(delta: JsonObj) -> bytes:
    return typed({"type": "content_block_delta", "index": 0, "delta": delta})


def side_block(target: int) -> Body:
    """An Anthropic compaction block: many compaction_delta `content` pieces."""
    unit = b"".join(_block_delta({"type": "compaction_delta", "content": p}) for p in _DELTAS)
    body = _block(0, {"type": "compaction", "content": ""}, unit, target)
    return labelled(body, f"{body.units * len(_DELTAS):,} compaction deltas")


def check_side_block(outcome: Any, units: int) -> list[str]:
    problems = _end(outcome)
    done = _side(outcome, "compaction", "done")
    if [e.data.get("content") for e in done] != [_DELTA_TEXT * units]:
        problems.append("the compaction block's done does not carry its content")
    return problems


def id_no_index(target: int) -> Body:
    """Chat tool calls named by `id` only (no `index`), one fragment each."""
    head = chat({"role": "assistant", "content": None, "refusal": None})

    def call(i: int) -> bytes:
        fn = {"name": "get_weather", "arguments": '{"city":"Paris","unit":"c"}'}
        return chat({"tool_calls": [{"id": f"call_{i:024d}", "type": "function", "function": fn}]})

    body = fill(target, head, call, chat_end("tool_calls"))
    return labelled(body, f"{body.units:,} calls")


def check_id_no_index(outcome: Any, units: int) -> list[str]:
    problems = _end(outcome)
    calls = _items(outcome, "ToolCallDone")
    if len(calls) != units or len({c.tool_call_id for c in calls}) != units:
        problems.append(f"{len(calls)} tool calls, expected {units}")
    return problems


_RESPONSE: JsonObj = {
    "id": "resp_68af4030592c81938ec0a5fbab4a3e9f",
    "object": "response",
    "created_at": 1_750_000_000,
    "status": "in_progress",
    "model": "gpt-5-2025-08-07",
    "output": [],
}


class _Numbered:
    """Responses frames with their sequence_number (every `step`-th number)."""

    def __init__(self, step: int = 1) -> None:
        self.seq = 0
        self.step = step

    def __call__(self, etype: str, **fields: Any) -> bytes:
        frame = typed({"type": etype, "sequence_number": self.seq, **fields})
        self.seq += self.step
        return frame


def _responses(
    target: int,
    head: Callable[[_Numbered], bytes],
    unit: Callable[[_Numbered, int], bytes],
    tail: Callable[[_Numbered], bytes],
    step: int = 1,
) -> Body:
    """response.created, head, unit(0), unit(1), ... up to the target, tail, completed."""
    ev = _Numbered(step)
    start = ev("response.created", response=_RESPONSE) + head(ev)
    end_size = 600  # about what the tail and response.completed take: fill() stops early
    body = fill(target - end_size, start, lambda i: unit(ev, i), b"")
    done = {**_RESPONSE, "status": "completed"}
    end = tail(ev) + ev("response.completed", response=done)
    return Body(body.data + end, body.units)


def mirobody(target: int) -> Body:
    """Mirobody tool steps: a tool_call frame and its tool_result frame per step."""

    def step(ev: _Numbered, i: int) -> bytes:
        tool_step = {
            "id": f"step_{i:08d}",
            "call_id": f"call_{i:024d}",
            "name": "query_health_records",
            "arguments": '{"metric":"heart_rate","days":7}',
        }
        result = {**tool_step, "result": '{"count":7,"mean":62.4}'}
        return ev("response.mirobody_tool_call", tool_step=tool_step) + ev(
            "response.mirobody_tool_result", tool_step=result
        )

    body = _responses(target, lambda ev: b"", step, lambda ev: b"")
    return labelled(body, f"{body.units:,} steps, {2 * body.units:,} frames")


def check_mirobody(outcome: Any, units: int) -> list[str]:
    problems = _end(outcome)
    steps = outcome.extras.get("tool_steps", [])
    if len(steps) != units or any(s.get("result") is None for s in steps):
        problems.append(f"{len(steps)} tool steps with results, expected {units}")
    return problems


_ARGS_BLOCK = escaped(_text("scaling/args", 4096))
_ARGS_FRAGMENTS = cut(random.Random("scaling/fragments"), _ARGS_BLOCK, 18, 22)


def interleaved(target: int) -> Body:
    """Two parallel Chat tool calls, their argument fragments (compact chunks of about
    20 characters) alternating by index."""

    def fragment(index: int, text: str) -> bytes:
        return compact_chat({"tool_calls": [{"index": index, "function": {"arguments": text}}]})

    head = chat({"role": "assistant", "content": None, "refusal": None})
    for index, name in enumerate(("write_file", "append_file")):
        fn = {"name": name, "arguments": ""}
        first = {"index": index, "id": f"call_{index:024d}", "type": "function", "function": fn}
        head += chat({"tool_calls": [first]})
        head += fragment(index, f'{{"path":"src/out_{index}.md","content":"')
    unit = b"".join(fragment(0, f) + fragment(1, f) for f in _ARGS_FRAGMENTS)
    tail = fragment(0, '"}') + fragment(1, '"}') + chat_end("tool_calls")
    body = repeat(target, head, unit, tail)
    n = body.units * len(_ARGS_FRAGMENTS)
    size = body.units * len(_ARGS_BLOCK.encode()) / MB
    return labelled(body, f"2 x {n:,} fragments, {size:.2f} MB each")


def check_interleaved(outcome: Any, units: int) -> list[str]:
    problems = _end(outcome)
    want = orjson.loads(f'"{_ARGS_BLOCK}"') * units
    got = [c.arguments.get("content") for c in _items(outcome, "ToolCallDone")]
    if got != [want, want]:
        problems.append("the two calls' arguments differ from what was sent")
    return problems


# --------------------------------------------------------------------------- 8-11: memory


def unknown_frames(target: int) -> Body:
    """Frames of a type no Anthropic version sends yet, inside a message."""
    unit = b'event: x\ndata: {"type":"future_thing","n":1}\n\n'
    body = repeat(target, _message_start(), unit, _message_end())
    return labelled(body, f"{body.units:,} frames")


def check_unknown_frames(outcome: Any, units: int) -> list[str]:
    problems = _end(outcome)
    if _anomaly(outcome, "unknown_frame") != units:
        problems.append(f"{_anomaly(outcome, 'unknown_frame')} unknown frames, expected {units}")
    return problems


_QUERY_BLOCK = escaped(_text("scaling/query", 4096))
_QUERY_FRAGMENTS = cut(random.Random("scaling/query-fragments"), _QUERY_BLOCK, 8, 16)


def server_tool(target: int) -> Body:
    """A server_tool_use block whose input arrives in many input_json_delta pieces."""
    block = {"type": "server_tool_use", "id": "srvtoolu_01WYG3ziw53XMcoyKL4XcZmE", "name": "web_search", "input": {}}
    start = {"type": "content_block_start", "index": 0, "content_block": block}
    head = _message_start() + typed(start) + _block_delta({"type": "input_json_delta", "partial_json": '{"query":"'})
    unit = b"".join(_block_delta({"type": "input_json_delta", "partial_json": p}) for p in _QUERY_FRAGMENTS)
    tail = _block_delta({"type": "input_json_delta", "partial_json": '"}'})
    tail += typed({"type": "content_block_stop", "index": 0}) + _message_end()
    body = repeat(target, head, unit, tail)
    size = body.units * len(_QUERY_BLOCK.encode()) / MB
    return labelled(body, f"{body.units * len(_QUERY_FRAGMENTS):,} deltas, {size:.2f} MB input")


def check_server_tool(outcome: Any, units: int) -> list[str]:
    problems = _end(outcome)
    done = _side(outcome, "server_tool_use", "done")
    want = orjson.loads(f'"{_QUERY_BLOCK}"') * units
    if [e.data.get("input", {}).get("query") for e in done] != [want]:
        problems.append("the server_tool_use done does not carry its input")
    return problems


def builtin_tool(target: int) -> Body:
    """A web_search_call output item with many of its own progress events."""
    item_id = "ws_68af4030592c81938ec0a5fbab4a3e9f0d9b7c6a5e4f3d2c"
    item = {"id": item_id, "type": "web_search_call", "status": "in_progress"}
    at = {"output_index": 0, "item_id": item_id}

    def head(ev: _Numbered) -> bytes:
        return ev("response.output_item.added", output_index=0, item=item) + ev(
            "response.web_search_call.in_progress", **at
        )

    def tail(ev: _Numbered) -> bytes:
        action = {"type": "search", "query": "weather in Paris"}
        done = {**item, "status": "completed", "action": action}
        return ev("response.web_search_call.completed", **at) + ev(
            "response.output_item.done", output_index=0, item=done
        )

    body = _responses(target, head, lambda ev, i: ev("response.web_search_call.searching", **at), tail)
    return labelled(body, f"{body.units:,} frames")


def check_builtin_tool(outcome: Any, units: int) -> list[str]:
    problems = _end(outcome)
    if len(_side(outcome, "web_search_call", "start")) != 1 or len(_side(outcome, "web_search_call", "done")) != 1:
        problems.append("the web_search_call item was not opened and closed once")
    if outcome.anomalies:
        problems.append("anomalies: " + ", ".join(str(a) for a in outcome.anomalies))
    return problems


def sequence_gaps(target: int) -> Body:
    """Responses frames whose sequence_number skips one number every time."""
    progress = {**_RESPONSE}
    body = _responses(
        target, lambda ev: b"", lambda ev, i: ev("response.in_progress", response=progress), lambda ev: b"", step=2
    )
    return labelled(body, f"{body.units:,} frames")


def check_sequence_gaps(outcome: Any, units: int) -> list[str]:
    problems = _end(outcome)
    if _anomaly(outcome, "sequence_gap") < units:
        problems.append(f"{_anomaly(outcome, 'sequence_gap')} sequence gaps, expected at least {units}")
    return problems


KIB = 1024
PIECE = 4 * KIB  # the feed of every shape that does not say otherwise
SHAPES: tuple[Shape, ...] = (
    Shape(1, "plain_text", "plain text", "openai_chat", PIECE, plain_text, check_plain_text),
    Shape(2, "data_lines", "one frame of many data: lines", "openai_chat", None, data_lines, check_data_lines),
    Shape(3, "long_line", "one long line", "openai_chat", KIB, long_line, check_long_line),
    Shape(4, "side_block", "Anthropic side block (compaction)", "anthropic", PIECE, side_block, check_side_block),
    Shape(5, "id_no_index", "tool calls with an id, no index", "openai_chat", PIECE, id_no_index, check_id_no_index),
    Shape(6, "mirobody", "Mirobody tool steps", "openai_responses", PIECE, mirobody, check_mirobody),
    Shape(7, "interleaved", "two interleaved tool calls", "openai_chat", PIECE, interleaved, check_interleaved),
    # memory only
    Shape(8, "unknown_frames", "unknown Anthropic frames", "anthropic", PIECE, unknown_frames, check_unknown_frames),
    Shape(9, "server_tool", "server_tool_use input_json_delta", "anthropic", PIECE, server_tool, check_server_tool),
    Shape(10, "builtin_tool", "Responses built-in tool", "openai_responses", PIECE, builtin_tool, check_builtin_tool),
    Shape(11, "sequence_gaps", "sequence_number gaps", "openai_responses", PIECE, sequence_gaps, check_sequence_gaps),
)
MEMORY_ONLY = frozenset((8, 9, 10, 11))  # measured for memory only


# --------------------------------------------------------------------------- measuring


def load_decoder() -> Any:
    """unievent.StreamDecoder from the source tree (as Any: imported at run time)."""
    if _DECODER_ROOT not in sys.path:
        sys.path.insert(0, _DECODER_ROOT)
    return importlib.import_module("unievent").StreamDecoder


def pieces_of(data: bytes, size: int | None) -> list[bytes]:
    if size is None:
        return [data]
    return [data[i : i + size] for i in range(0, len(data), size)]


def decode(decoder_cls: Any, protocol: str, pieces: list[bytes]) -> Any:
    """Push every piece and finish, dropping the events as they come; the Outcome."""
    dec = decoder_cls(protocol, stream_id="bench", side_events=False)
    push = dec.push
    for piece in pieces:
        push(piece)
    _events, outcome = dec.finish()
    return outcome


def floor(pieces: list[bytes]) -> None:
    """The least work any decoder does: join the pieces, split frames on blank lines,
    strip `data: `, orjson.loads each payload.  Its ratio is the machine's own
    (caches, allocator) for that shape."""
    loads = orjson.loads
    for block in b"".join(pieces).split(b"\n\n"):
        if block.count(b"\n") == block.startswith(b"event:"):  # one data line
            payload = block[block.find(b"data: ") + 6 :]
        else:
            payload = b"\n".join(line[6:] for line in block.split(b"\n") if line.startswith(b"data: "))
        if payload and payload != b"[DONE]":
            loads(payload)


def cpu_seconds(run: Callable[[], object]) -> float:
    """CPU seconds of this process per call of `run`, looping for at least MIN_SECONDS."""
    gc.collect()
    n = 0
    t0 = time.process_time()
    while True:
        run()
        n += 1
        took = time.process_time() - t0
        if took >= MIN_SECONDS:
            return took / n


def timings(
    decoder_cls: Any, protocol: str, feeds: Sequence[list[bytes]], reps: int
) -> tuple[list[float], list[float]]:
    """The fastest of `reps` per size for unievent and for the floor.  Repetitions go
    round all sizes in turn, so that a busy moment of the machine hits every size."""
    best = [float("inf")] * len(feeds)
    best_floor = [float("inf")] * len(feeds)
    for _ in range(reps):
        for k, pieces in enumerate(feeds):
            best[k] = min(best[k], cpu_seconds(partial(decode, decoder_cls, protocol, pieces)))
            best_floor[k] = min(best_floor[k], cpu_seconds(partial(floor, pieces)))
    return best, best_floor


def memory(decoder_cls: Any, protocol: str, pieces: list[bytes]) -> tuple[int, int, Any]:
    """(peak traced bytes during the decode, bytes the outcome holds, the outcome)."""
    gc.collect()
    tracemalloc.start()
    try:
        base = tracemalloc.get_traced_memory()[0]
        outcome = decode(decoder_cls, protocol, pieces)
        peak = tracemalloc.get_traced_memory()[1] - base
        gc.collect()  # the decoder is gone: what is left is the outcome
        held = tracemalloc.get_traced_memory()[0] - base
    finally:
        tracemalloc.stop()
    return peak, held, outcome


def measure(shape: Shape, sizes: Sequence[int], reps: int, decoder_cls: Any) -> Row:
    row = Row(shape)
    bodies = [shape.build(size) for size in sizes]
    feeds = [pieces_of(body.data, shape.piece) for body in bodies]
    if shape.number not in MEMORY_ONLY:
        row.seconds, row.floor = timings(decoder_cls, shape.protocol, feeds, reps)
    for k, (size, body, pieces) in enumerate(zip(sizes, bodies, feeds, strict=True)):
        peak, held, outcome = memory(decoder_cls, shape.protocol, pieces)
        row.problems += [f"{_mb(size)} MB: {p}" for p in shape.check(outcome, body.units)]
        del outcome
        row.labels.append(body.label)
        row.retained.append(peak - held)
        row.peak_per_byte.append(peak / len(body.data))
        row.outcome.append(held)
        took = f"{row.seconds[k]:.4f} s (floor {row.floor[k]:.4f} s), " if row.seconds else ""
        print(
            f"[{shape.number}] {shape.key} {_mb(size)} MB ({len(body.data):,} B, {body.label}): "
            f"{took}peak-outcome {(peak - held) / MB:.2f} MB, outcome {held / MB:.2f} MB",
            file=sys.stderr,
            flush=True,
        )
    return row


# --------------------------------------------------------------------------- table


def _mb(size: int) -> str:
    return f"{size / MB:g}"


def _ratio(values: Sequence[float]) -> str:
    if not values or values[0] <= 0:
        return "—"
    return f"{values[-1] / values[0]:.1f}"


def _ms(seconds: float) -> str:
    ms = seconds * 1000
    return f"{ms:.1f} ms" if ms < 100 else f"{ms:,.0f} ms"


def table(rows: Sequence[Row], sizes: Sequence[int]) -> str:
    small, large = _mb(sizes[0]), _mb(sizes[-1])
    at = [f"{_mb(s)} MB" for s in sizes]
    head = [
        "#",
        "shape",
        "protocol · feed",
        f"body @ {large} MB",
        *(f"time @ {a}" for a in at),
        f"time {large}/{small}",
        f"floor {large}/{small}",
        *(f"retained @ {a}" for a in at),
        f"mem {large}/{small}",
        f"peak / body @ {large} MB",
        f"outcome @ {large} MB",
    ]
    lines = ["| " + " | ".join(head) + " |", "|" + "---|" * len(head)]
    for row in rows:
        s = row.shape
        feed = "whole" if s.piece is None else f"{s.piece // KIB} KiB pieces"
        times = [_ms(t) for t in row.seconds] or ["—"] * len(sizes)
        cells = [
            str(s.number),
            s.title,
            f"{s.protocol} · {feed}",
            row.labels[-1],
            *times,
            _ratio(row.seconds),
            _ratio(row.floor),
            *(f"{m / MB:.2f} MB" for m in row.retained),
            _ratio([float(m) for m in row.retained]),
            f"{row.peak_per_byte[-1]:.1f}x",
            f"{row.outcome[-1] / MB:.2f} MB",
        ]
        lines.append("| " + " | ".join(cells) + " |")
    return "\n".join(lines)


def select(spec: str | None) -> list[Shape]:
    if not spec:
        return list(SHAPES)
    by_name = {s.key: s for s in SHAPES} | {str(s.number): s for s in SHAPES}
    chosen: list[Shape] = []
    for name in (n.strip() for n in spec.split(",")):
        if name not in by_name:
            known = ", ".join(f"{s.number}/{s.key}" for s in SHAPES)
            raise SystemExit(f"unknown shape {name!r}; known: {known}")
        if by_name[name] not in chosen:
            chosen.append(by_name[name])
    return sorted(chosen, key=lambda s: s.number)


def main(argv: list[str]) -> int:
    ap = argparse.ArgumentParser(description="Time and memory of unievent against input size.")
    ap.add_argument("--quick", action="store_true", help=f"0.25, 1 and 4 MB, {QUICK_REPS} repetitions")
    ap.add_argument("--shape", help="shapes to run, by number or name, comma-separated")
    ap.add_argument("--reps", type=int, help=f"repetitions per size, the fastest kept (default {REPS})")
    args = ap.parse_args(argv)
    sizes = QUICK_SIZES if args.quick else SIZES
    reps = args.reps or (QUICK_REPS if args.quick else REPS)
    shapes = select(args.shape)
    decoder_cls = load_decoder()
    warm = SHAPES[0]
    decode(decoder_cls, warm.protocol, pieces_of(warm.build(MB // 10).data, warm.piece))
    rows = [measure(shape, sizes, reps, decoder_cls) for shape in shapes]
    print(table(rows, sizes))
    failed = [f"- {r.shape.number} {r.shape.key}: {p}" for r in rows for p in r.problems]
    if failed:
        print("\nChecks that failed (the shape does not measure what it is named for):")
        print("\n".join(failed))
    shown = ", ".join(_mb(s) for s in sizes)
    print(
        f"\nsizes {shown} MB (10**6 bytes); CPU time per decode, fastest of {reps}; python {platform.python_version()}"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
