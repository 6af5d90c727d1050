"""Encoding and transcoding against decoding the same stream; prints Markdown.

    python tests/bench/encode.py             # 20,000-event streams, 5 repetitions
    python tests/bench/encode.py --events 2000 --reps 3

For each of the three big protocols a stream is generated (gen.py) and decoded once,
untimed, for its UniEvents.  Then, in CPU seconds of this process (the fastest of
`--reps`): decoding the body, encoding its events back to the same protocol
(`unievent.encode`), and transcoding the body to each other protocol
(`unievent.transcode`, decode and encode together).  The ratios are to decoding alone:
encoding at most 1x means it costs no more than decoding.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import gen

import unievent

PROTOCOLS = ("openai_chat", "anthropic", "openai_responses")


def best(run: Callable[[], object], reps: int) -> float:
    times = []
    for _ in range(reps):
        gc.collect()
        start = time.process_time()
        run()
        times.append(time.process_time() - start)
    return min(times)


def decode(protocol: str, data: bytes) -> list[object]:
    decoder = unievent.StreamDecoder(protocol)  # type: ignore[call-overload]
    events: list[object] = list(decoder.push(data))
    events += decoder.finish()[0]
    return events


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--events", type=int, default=20_000, help="events per generated stream")
    parser.add_argument("--reps", type=int, default=5)
    args = parser.parse_args()
    print(f"unievent compiled: {unievent.COMPILED}; {args.events} events a stream\n")
    print("| stream | decode s | encode s (x decode) | events/s encoded | " + " | ".join(f"to {t}" for t in PROTOCOLS) + " |")
    print("| --- | ---: | ---: | ---: | " + " | ".join("---:" for _ in PROTOCOLS) + " |")
    for protocol in PROTOCOLS:
        data = getattr(gen, protocol)(args.events).data
        events = decode(protocol, data)
        decoding = best(lambda: decode(protocol, data), args.reps)  # noqa: B023
        encoding = best(lambda: unievent.encode(events, protocol), args.reps)  # type: ignore[arg-type]  # noqa: B023
        cells = []
        for target in PROTOCOLS:
            seconds = best(lambda: b"".join(unievent.transcode([data], protocol, target)), args.reps)  # noqa: B023
            cells.append(f"{seconds / decoding:.2f}x")
        print(
            f"| {protocol} | {decoding:.3f} | {encoding:.3f} ({encoding / decoding:.2f}x) | "
            f"{len(events) / encoding:,.0f} | " + " | ".join(cells) + " |"
        )


if __name__ == "__main__":
    main()
