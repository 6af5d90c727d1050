"""What `Stream.snapshot()` costs when a UI asks after every delta; prints Markdown.

    python tests/bench/snapshot.py              # arguments of 1, 4, 16 and 64 KB
    python tests/bench/snapshot.py --piece 16   # 16 characters per delta

An OpenAI Chat Completions stream whose one tool call has arguments of N bytes,
streamed `--piece` characters per delta, is read with `unievent.stream()`; after
every tool_call delta the loop takes a snapshot (the arguments parsed as far as they
go).  For each size: the characters handed to jiter over the whole stream (re-parsing
every prefix would be N**2 / (2 * piece)), their ratio to N (linear: a constant), and
CPU seconds with and without the snapshots.
"""

from __future__ import annotations

import argparse
import json
import time
from typing import Any

import jiter
import orjson

import unievent


def body(size: int, piece: int) -> bytes:
    arguments = json.dumps({"query": "x" * max(size - 14, 0)})
    chunks = [{"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "id": "c1", "function": {"name": "f", "arguments": ""}}]}}]}]
    for i in range(0, len(arguments), piece):
        fragment = arguments[i : i + piece]
        chunks.append({"choices": [{"index": 0, "delta": {"tool_calls": [{"index": 0, "function": {"arguments": fragment}}]}}]})
    chunks.append({"choices": [{"index": 0, "delta": {}, "finish_reason": "tool_calls"}]})
    return b"".join(b"data: " + orjson.dumps(c) + b"\n\n" for c in chunks) + b"data: [DONE]\n\n"


def run(data: bytes, snapshots: bool) -> float:
    start = time.process_time()
    s = unievent.stream([data], "openai_chat")
    for event in s:
        if snapshots and isinstance(event, unievent.DeltaEvent) and event.item.type == "tool_call.delta":
            s.snapshot()
    return time.process_time() - start


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--piece", type=int, default=1, help="characters per delta (default 1)")
    args = parser.parse_args()
    parsed: list[int] = []
    real = jiter.from_json

    def counting(data: bytes, **options: Any) -> Any:
        parsed.append(len(data))
        return real(data, **options)

    jiter.from_json = counting
    print("| arguments | deltas | chars parsed | / arguments | prefix re-parse would be | s with snapshots | s without |")
    print("| ---: | ---: | ---: | ---: | ---: | ---: | ---: |")
    for kb in (1, 4, 16, 64):
        size = kb * 1024
        data = body(size, args.piece)
        parsed.clear()
        with_snapshots = run(data, True)
        total = sum(parsed)
        without = run(data, False)
        quadratic = size * size // (2 * args.piece)
        print(f"| {kb} KB | {size // args.piece} | {total:,} | {total / size:.2f} | {quadratic:,} | {with_snapshots:.3f} | {without:.3f} |")


if __name__ == "__main__":
    main()
