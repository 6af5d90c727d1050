"""Where a stream's time goes, frame by frame: each frame pushed alone, and timed.

    python tests/bench/perframe.py [--protocol P] [--events N] [--decodes K] [--top T]

Builds gen.py's stream of N events (default 30) and cuts it into its frames, then
decodes it K times (default 300) with one frame a push, `time.perf_counter` around the
decoder's construction, each push and `finish()`; after each decode, each frame's
payload is parsed by `orjson.loads`, timed the same way (for Bedrock, the event-stream
frame's payload, the outer JSON). Prints one row a step, in stream order (or the T
dearest with --top): the mean microseconds of the push, of the parse, and their
difference, which is what the decoder does beyond the floor's parse. A stream pays
once for some of it (the construction, the first frame of each hot shape, whose
template is learned and proved, the lifecycle frames, `finish()`) and each push pays
for the rest; the timer's own cost is printed too.

The steps are timed one by one, between other work, so each runs with the caches the
decode before it left: the first pass, each stream, through code touched once a stream.
A wall-clock measure on a shared machine: compare rows of one run, not of two.
"""

from __future__ import annotations

import argparse
import struct
import sys
import time
from typing import cast

import gen
import orjson

from unievent import ProtocolName, StreamDecoder


def frames_of(stream: gen.Stream) -> list[tuple[bytes, bytes]]:
    """Each frame of the stream as it is on the wire, with the payload the floor parses."""
    data = stream.data
    framing = gen.FRAMING.get(stream.protocol, "sse")
    if framing == "lines":
        return [(line + b"\n", line) for line in data.split(b"\n")[:-1]]
    if framing == "aws":
        out = []
        pos = 0
        while pos < len(data):  # prelude: total length, headers length, CRC
            total, headers = struct.unpack_from(">II", data, pos)
            out.append((data[pos : pos + total], data[pos + 12 + headers : pos + total - 4]))
            pos += total
        return out
    separator = gen.SEPARATORS.get(stream.protocol, b"\n\n")
    out = []
    for frame in data.split(separator)[:-1]:
        payload = frame[frame.index(b"data: ") + 6 :]
        out.append((frame + separator, payload))
    return out


def label(frame: bytes) -> str:
    """A frame's first line (its `event:` name, or the start of its JSON), or an event-stream
    frame's `:event-type`, shortened."""
    at = frame.find(b":event-type\x07")  # a string header: type 7, a 2-byte length, the value
    if at >= 0:
        (length,) = struct.unpack_from(">H", frame, at + 12)
        text = frame[at + 14 : at + 14 + length].decode("utf-8", "replace")
    else:
        text = frame.split(b"\n", 1)[0].decode("utf-8", "replace")
    return text if len(text) <= 60 else text[:57] + "..."


def measure(protocol: ProtocolName, frames: list[tuple[bytes, bytes]], decodes: int) -> tuple[list[float], list[float]]:
    """Seconds summed over the decodes: [construction, each push, finish], and each parse."""
    clock = time.perf_counter
    steps = [0.0] * (len(frames) + 2)
    parses = [0.0] * len(frames)
    for _ in range(decodes):
        start = clock()
        decoder = StreamDecoder(protocol)
        steps[0] += clock() - start
        for i, (frame, _payload) in enumerate(frames):
            start = clock()
            decoder.push(frame)
            steps[i + 1] += clock() - start
        start = clock()
        _events, outcome = decoder.finish()
        steps[-1] += clock() - start
        if outcome.end != "complete":
            raise SystemExit(f"{protocol}: the decode ended {outcome.end}, not complete")
        for i, (_frame, payload) in enumerate(frames):
            if payload == b"[DONE]":
                continue  # no JSON: the floor skips it too
            start = clock()
            orjson.loads(payload)
            parses[i] += clock() - start
    return steps, parses


def timer_cost() -> float:
    clock = time.perf_counter
    start = clock()
    for _ in range(10_000):
        clock()
    return (clock() - start) / 10_000


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--protocol", default="openai_responses", choices=gen.PROTOCOLS)
    parser.add_argument("--events", type=int, default=30)
    parser.add_argument("--decodes", type=int, default=300)
    parser.add_argument("--top", type=int, default=0, help="only the T steps that cost the most beyond their parse")
    args = parser.parse_args(argv)
    if args.events < 1 or args.decodes < 1:
        parser.error("--events and --decodes take a count of at least 1")
    frames = frames_of(gen.build(args.protocol, args.events))
    steps, parses = measure(cast(ProtocolName, args.protocol), frames, args.decodes)
    n = args.decodes
    rows = [("construction", steps[0] / n, 0.0)]
    rows += [(label(frame), steps[i + 1] / n, parses[i] / n) for i, (frame, _payload) in enumerate(frames)]
    rows.append(("finish()", steps[-1] / n, 0.0))
    shown = sorted(rows, key=lambda r: r[2] - r[1])[: args.top] if args.top else rows
    print("| step | push (µs) | parse (µs) | beyond the parse (µs) |")
    print("|---|---|---|---|")
    for name, push, parse in shown:
        print(f"| {name} | {push * 1e6:.1f} | {parse * 1e6:.1f} | {(push - parse) * 1e6:.1f} |")
    total = sum(r[1] for r in rows)
    floor = sum(r[2] for r in rows)
    print(
        f"\n{args.protocol}, {len(frames)} frames, {n} decodes: decode {total * 1e6:.1f} µs, "
        f"parses {floor * 1e6:.1f} µs, beyond them {(total - floor) * 1e6:.1f} µs; "
        f"the timer costs {timer_cost() * 1e6:.2f} µs a call"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
