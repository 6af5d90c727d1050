"""Instruction counts: unievent against the floor, independent of machine load.

    python tests/bench/count.py [--protocol P,...] [--events N] [--feed whole,split] [--layouts K] [--no-gate]

Protocols: the generated streams of gen.py (openai_chat, anthropic, openai_responses,
gemini) and those of beyond_sse.py (ollama, cohere, bedrock_converse, bedrock_invoke),
each against its own floor.

Runs each contender (and an empty run, for the set-up cost) in its own process under
`valgrind --tool=callgrind`, decoding the same generated stream three times, fed whole
or in the benchmark's network-sized pieces, and prints the ratio of instructions over
the floor's, for the compiled build (when it is installed) and the pure-Python one
(UNIEVENT_PURE=1).  Instructions are not seconds, but they repeat exactly, so a change
in the decoder shows as a change in the count.  Needs valgrind on PATH.  A compiled row
stops the run when the compiled build is not what imports (a hot source edited since
the build runs as source, with a warning): rebuild first.

A pure-Python decode's count moves with where the process's memory lies (the
allocator's work: up to 5% of a cell, with the size of the environment alone);
`--layouts K` counts every run in K environments of other sizes and takes the median.

Gates (a benchmark command, not a test): every ratio at most 1.2 compiled and 2.0 pure;
the exit status is 1 when one is above its gate (unless --no-gate).
"""

from __future__ import annotations

import argparse
import os
import random
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROTOCOL_NAMES = ("openai_chat", "anthropic", "openai_responses", "gemini")
# generated and floored by beyond_sse.py (its text answers and framing floors)
BEYOND_SSE = ("ollama", "cohere", "bedrock_converse", "bedrock_invoke")
GATES = {"compiled": 1.2, "pure": 2.0}


def pieces_of(data: bytes, feed: str) -> list[bytes]:
    if feed == "whole":
        return [data]
    rng = random.Random(7)  # the benchmark's `split` feed: 1 to 4096 bytes
    out, i = [], 0
    while i < len(data):
        n = rng.randint(1, 4096)
        out.append(data[i : i + n])
        i += n
    return out


def run_one(protocol: str, contender: str, events: int, feed: str) -> None:
    """The measured process: set up both contenders, then decode with one of them."""
    sys.path.insert(0, str(HERE))
    if os.environ.get("UNIEVENT_PURE") != "1":
        import unievent

        if not unievent.COMPILED:  # e.g. a hot module edited since the build: it runs as source
            raise SystemExit("the compiled build is not what imports; rebuild: UNIEVENT_COMPILE=1 pip install -e .")
    if protocol in BEYOND_SSE:
        run_beyond_sse(protocol, contender, events, feed)
        return
    import contenders
    import gen

    stream = getattr(gen, protocol)(events)
    pieces = pieces_of(stream.data, feed)
    floor = contenders.floor(protocol)
    uni = contenders.unievent(protocol)
    floor([stream.data[:3000]])  # warm both paths the same way in every run
    uni([stream.data[:3000]])
    chosen = {"floor": floor, "unievent": uni}.get(contender)
    if chosen is not None:
        for _ in range(3):
            chosen(pieces)


def run_beyond_sse(protocol: str, contender: str, events: int, feed: str) -> None:
    """run_one for a protocol of beyond_sse.py: its stream, its floor, its decode."""
    import beyond_sse

    make, floor = next((make, floor) for name, make, floor in beyond_sse.STREAMS if name == protocol)
    pieces = pieces_of(make(random.Random(7), events), feed)
    warm = [make(random.Random(1), 20)]
    floor(warm)  # warm both paths the same way in every run
    beyond_sse.decode(protocol, warm)
    def ours(p: list[bytes]) -> None:
        beyond_sse.decode(protocol, p)

    chosen = {"floor": floor, "unievent": ours}.get(contender)
    if chosen is not None:
        for _ in range(3):
            chosen(pieces)


def instructions(protocol: str, contender: str, events: int, feed: str, pure: bool, layouts: int = 1) -> int:
    """The instructions of one run, or the median over `layouts` runs (the upper of the
    two middle ones for an even count), each with the environment a few hundred bytes
    longer: that moves where the process's memory lies, and the allocator's work with it
    (pure-Python decodes move by up to 5%)."""
    counts = sorted(_instructions(protocol, contender, events, feed, pure, 300 * k) for k in range(layouts))
    return counts[len(counts) // 2]


def _instructions(protocol: str, contender: str, events: int, feed: str, pure: bool, pad: int) -> int:
    command = [
        "valgrind",
        "--tool=callgrind",
        "--callgrind-out-file=/dev/null",
        sys.executable,
        str(Path(__file__).resolve()),
        "--run",
        protocol,
        contender,
        str(events),
        feed,
    ]
    # one hash seed for every run: str hashes decide dict and set layouts (orjson's
    # key cache among them), which otherwise move the floor's count by about 2%
    env = {**os.environ, "UNIEVENT_PURE": "1" if pure else "", "PYTHONHASHSEED": "0"}
    if pad:
        env["UNIEVENT_BENCH_LAYOUT"] = "x" * pad
    done = subprocess.run(command, capture_output=True, text=True, check=False, env=env)
    if done.returncode != 0:
        raise RuntimeError(f"{' '.join(command[5:])} failed:\n{done.stderr[-2000:]}")
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count in valgrind's output:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def compiled_installed() -> bool:
    probe = [sys.executable, "-c", "import sys, unievent; sys.exit(0 if unievent.COMPILED else 1)"]
    return subprocess.run(probe, env={**os.environ, "UNIEVENT_PURE": ""}, check=False).returncode == 0


def main(argv: list[str]) -> int:
    if argv[:1] == ["--run"]:
        run_one(argv[1], argv[2], int(argv[3]), argv[4])
        return 0
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--protocol", default=",".join(PROTOCOL_NAMES + BEYOND_SSE))
    parser.add_argument("--events", type=int, default=4000)
    parser.add_argument("--feed", default="whole,split")
    parser.add_argument("--no-gate", action="store_true", help="report only; exit 0 whatever the ratios")
    parser.add_argument(
        "--layouts",
        type=int,
        default=1,
        help="count each run in this many memory layouts (environments of other sizes) and take the median",
    )
    args = parser.parse_args(argv)
    if args.layouts < 1:
        parser.error("--layouts takes a count of at least 1")
    if shutil.which("valgrind") is None:
        print("valgrind is not on PATH", file=sys.stderr)
        return 2
    builds = ["compiled", "pure"] if compiled_installed() else ["pure"]
    if builds == ["pure"]:
        print("(the compiled build is not installed: pure-Python rows only)\n")
    print("| protocol | feed | floor (instructions/event) | " + " | ".join(f"unievent {b}" for b in builds) + " |")
    print("|---|---|---|" + "---|" * len(builds))
    over = []
    per = 3 * args.events
    layouts = args.layouts
    for protocol in args.protocol.split(","):
        for feed in args.feed.split(","):
            cells = []
            base = instructions(protocol, "none", args.events, feed, True, layouts)
            floor = instructions(protocol, "floor", args.events, feed, True, layouts) - base
            for build in builds:
                pure = build == "pure"
                own_base = base if pure else instructions(protocol, "none", args.events, feed, False, layouts)
                uni = instructions(protocol, "unievent", args.events, feed, pure, layouts) - own_base
                ratio = uni / floor
                if ratio > GATES[build]:
                    over.append(f"{protocol} {feed} {build}: {ratio:.3f}x > {GATES[build]}x")
                cells.append(f"{uni / per:,.0f} ({ratio:.2f}x)")
            print(f"| {protocol} | {feed} | {floor / per:,.0f} | " + " | ".join(cells) + " |")
    if over:
        print("\nabove the gate: " + "; ".join(over))
        return 0 if args.no_gate else 1
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
