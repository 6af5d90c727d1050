"""Decoding time of the protocols beyond SSE's big three against their floor; prints Markdown.

    python tests/bench/beyond_sse.py             # 300 and 20,000 events, whole and split
    python tests/bench/beyond_sse.py --reps 3

For each of ollama (NDJSON), cohere (SSE), bedrock_converse and bedrock_invoke (the AWS
event stream) and, for reference, anthropic, a text answer of N deltas is generated,
then decoded whole and in 1 to 4,096-byte pieces.  The floor is the least any decoder
does: the framing split (lines, blank-line frames, or each event-stream frame by its
prelude) plus `orjson.loads` of each payload (and of each Bedrock chunk's base64
bytes).  Wall-clock seconds, the median of `--reps`; the ratio is unievent over the
floor.
"""

from __future__ import annotations

import argparse
import base64
import gc
import random
import struct
import time
from collections.abc import Callable
from typing import Any

import orjson

# unievent is imported where it is used: run.py's floors import this module in a
# Python that may not have unievent (a peer's own environment)

WORDS = ["the", " capital", " of", " France", " is", " Paris", ",", " and", " it", " has", " é", " 世界", " ✓"]
Pieces = list[bytes]


def deltas(rng: random.Random, n: int) -> list[str]:
    return [rng.choice(WORDS) + rng.choice(WORDS) for _ in range(n)]


def _ollama_stamp(rng: random.Random, k: int) -> str:
    """A line's `created_at` as Ollama writes it: Go's RFC 3339 with nanoseconds, their
    trailing zeros dropped (so its length changes now and then)."""
    nanos = str(rng.randrange(10**9)).rjust(9, "0").rstrip("0")
    return f"2025-10-26T17:{15 + k // 600 % 40:02d}:{k // 10 % 60:02d}" + (f".{nanos}Z" if nanos else "Z")


def ollama(rng: random.Random, n: int) -> bytes:
    lines = [
        orjson.dumps(
            {
                "model": "qwen3:8b",
                "created_at": _ollama_stamp(rng, k),
                "message": {"role": "assistant", "content": t},
                "done": False,
            }
        )
        for k, t in enumerate(deltas(rng, n))
    ]
    end = {"message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop", "eval_count": n}
    lines.append(orjson.dumps({"model": "qwen3:8b", "created_at": _ollama_stamp(rng, n), **end, "prompt_eval_count": 26}))
    return b"".join(line + b"\n" for line in lines)


def _sse(objs: list[dict[str, Any]]) -> bytes:
    return b"".join(f"event: {o['type']}\ndata: ".encode() + orjson.dumps(o) + b"\n\n" for o in objs)


def cohere(rng: random.Random, n: int) -> bytes:
    start = {"message": {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": [], "citations": []}}
    objs: list[dict[str, Any]] = [
        {"id": "3ec8", "type": "message-start", "delta": start},
        {"type": "content-start", "index": 0, "delta": {"message": {"content": {"type": "text", "text": ""}}}},
    ]
    objs += [{"type": "content-delta", "index": 0, "delta": {"message": {"content": {"text": t}}}} for t in deltas(rng, n)]
    usage = {"billed_units": {"input_tokens": 4, "output_tokens": n}, "tokens": {"input_tokens": 70, "output_tokens": n}}
    objs += [{"type": "content-end", "index": 0}, {"type": "message-end", "delta": {"finish_reason": "COMPLETE", "usage": usage}}]
    return _sse(objs) + b"data: [DONE]\n\n"


def _headers(name: str) -> list[tuple[str, str]]:
    return [(":event-type", name), (":content-type", "application/json"), (":message-type", "event")]


def _padded(rng: random.Random, obj: dict[str, Any]) -> bytes:
    return orjson.dumps({**obj, "p": "abcdefghijklmnopqrstuvwxyz"[: rng.randrange(2, 26)]}, option=orjson.OPT_SORT_KEYS)


def bedrock_converse(rng: random.Random, n: int) -> bytes:
    from unievent._framing.aws_eventstream import encode_frame

    out = [encode_frame(_headers("messageStart"), _padded(rng, {"role": "assistant"}))]
    out += [
        encode_frame(_headers("contentBlockDelta"), _padded(rng, {"contentBlockIndex": 0, "delta": {"text": t}}))
        for t in deltas(rng, n)
    ]
    usage = {"inputTokens": 3, "outputTokens": n, "totalTokens": n + 3}
    out += [
        encode_frame(_headers("contentBlockStop"), _padded(rng, {"contentBlockIndex": 0})),
        encode_frame(_headers("messageStop"), _padded(rng, {"stopReason": "end_turn"})),
        encode_frame(_headers("metadata"), _padded(rng, {"metrics": {"latencyMs": 5}, "usage": usage})),
    ]
    return b"".join(out)


def _anthropic_events(rng: random.Random, n: int) -> list[dict[str, Any]]:
    message = {"model": "claude", "id": "m", "usage": {"input_tokens": 3, "output_tokens": 1}}
    objs: list[dict[str, Any]] = [
        {"type": "message_start", "message": message},
        {"type": "content_block_start", "index": 0, "content_block": {"type": "text", "text": ""}},
    ]
    objs += [{"type": "content_block_delta", "index": 0, "delta": {"type": "text_delta", "text": t}} for t in deltas(rng, n)]
    end = {"type": "message_delta", "delta": {"stop_reason": "end_turn"}, "usage": {"output_tokens": n}}
    return [*objs, {"type": "content_block_stop", "index": 0}, end, {"type": "message_stop"}]


def bedrock_invoke(rng: random.Random, n: int) -> bytes:
    from unievent._framing.aws_eventstream import encode_frame

    frames = []
    for obj in _anthropic_events(rng, n):
        chunk = {"bytes": base64.b64encode(orjson.dumps(obj)).decode()}
        frames.append(encode_frame(_headers("chunk"), _padded(rng, chunk)))
    return b"".join(frames)


def anthropic(rng: random.Random, n: int) -> bytes:
    return _sse(_anthropic_events(rng, n))


# The floors return how many payloads they parsed (run.py checks the count).


def floor_lines(pieces: Pieces) -> int:
    loads = orjson.loads
    n = 0
    for line in b"".join(pieces).split(b"\n"):
        if line:
            loads(line)
            n += 1
    return n


def floor_sse(pieces: Pieces) -> int:
    loads = orjson.loads
    n = 0
    for frame in b"".join(pieces).split(b"\n\n"):
        i = frame.find(b"data: ")
        if i >= 0 and frame[i + 6 : i + 7] == b"{":
            loads(frame[i + 6 :])
            n += 1
    return n


def floor_aws(pieces: Pieces, inner: bool = False) -> int:
    data = b"".join(pieces)
    loads = orjson.loads
    pos = n = 0
    while pos < len(data):
        total, headers = struct.unpack_from(">II", data, pos)
        obj = loads(data[pos + 12 + headers : pos + total - 4])
        if inner:
            loads(base64.b64decode(obj["bytes"]))
        n += 1
        pos += total
    return n


def floor_aws_inner(pieces: Pieces) -> int:
    return floor_aws(pieces, inner=True)


def decode(protocol: str, pieces: Pieces) -> None:
    import unievent

    decoder = unievent.StreamDecoder(protocol)  # type: ignore[call-overload]
    for piece in pieces:
        decoder.push(piece)
    outcome = decoder.finish()[1]
    assert outcome.end == "complete", (protocol, outcome.end, outcome.error)


def median_seconds(run: Callable[[], object], reps: int) -> float:
    times = []
    for _ in range(reps):
        gc.collect()
        count, start = 0, time.perf_counter()
        while True:
            run()
            count += 1
            elapsed = time.perf_counter() - start
            if elapsed > 0.2:
                break
        times.append(elapsed / count)
    times.sort()
    return times[len(times) // 2]


def split(data: bytes) -> Pieces:
    rng, out, i = random.Random(1), [], 0
    while i < len(data):
        k = rng.randint(1, 4096)
        out.append(data[i : i + k])
        i += k
    return out


STREAMS: list[tuple[str, Callable[[random.Random, int], bytes], Callable[[Pieces], int]]] = [
    ("anthropic", anthropic, floor_sse),
    ("ollama", ollama, floor_lines),
    ("cohere", cohere, floor_sse),
    ("bedrock_converse", bedrock_converse, floor_aws),
    ("bedrock_invoke", bedrock_invoke, floor_aws_inner),
]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    import unievent

    print(f"unievent {'compiled' if unievent.COMPILED else 'pure'}\n")
    print("| protocol | events | MB | feed | unievent ms | floor ms | ratio |")
    print("|---|---:|---:|---|---:|---:|---:|")
    for name, make, floor in STREAMS:
        for n in (300, 20_000):
            data = make(random.Random(7), n)
            for feed, pieces in (("whole", [data]), ("split", split(data))):
                ours = median_seconds(lambda: decode(name, pieces), args.reps)  # noqa: B023
                least = median_seconds(lambda: floor(pieces), args.reps)  # noqa: B023
                print(f"| {name} | {n} | {len(data) / 1e6:.2f} | {feed} | {ours * 1e3:.2f} | {least * 1e3:.2f} | {ours / least:.2f}x |")


if __name__ == "__main__":
    main()
