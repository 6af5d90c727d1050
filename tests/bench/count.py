"""Instruction counts: unievent against the floor, independent of machine load.

    python tests/bench/count.py [--protocol P,...] [--events N]

Runs each contender (and an empty run, for the set-up cost) in its own process under
`valgrind --tool=callgrind`, decoding the same generated stream fed whole three times,
and prints the ratio of instructions over the floor's.  Instructions are not seconds,
but they repeat exactly, so a change in the decoder shows as a change in the count.
Needs valgrind on PATH.
"""

from __future__ import annotations

import argparse
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
PROTOCOL_NAMES = ("openai_chat", "anthropic", "openai_responses")


def run_one(protocol: str, contender: str, events: int) -> None:
    """The measured process: set up both contenders, then decode with one of them."""
    sys.path.insert(0, str(HERE))
    import contenders
    import gen

    stream = getattr(gen, protocol)(events)
    floor = contenders.floor(protocol)
    uni = contenders.unievent(protocol)
    floor([stream.data[:3000]])  # warm both paths the same way in every run
    uni([stream.data[:3000]])
    chosen = {"floor": floor, "unievent": uni}.get(contender)
    if chosen is not None:
        for _ in range(3):
            chosen([stream.data])


def instructions(protocol: str, contender: str, events: int) -> int:
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
    ]
    done = subprocess.run(command, capture_output=True, text=True, check=True)
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count in valgrind's output:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def main(argv: list[str]) -> int:
    if argv[:1] == ["--run"]:
        run_one(argv[1], argv[2], int(argv[3]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--protocol", default=",".join(PROTOCOL_NAMES))
    parser.add_argument("--events", type=int, default=4000)
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        print("valgrind is not on PATH", file=sys.stderr)
        return 2
    print("| protocol | floor (instructions/event) | unievent (instructions/event) | ratio |")
    print("|---|---|---|---|")
    for protocol in args.protocol.split(","):
        base = instructions(protocol, "none", args.events)
        floor = instructions(protocol, "floor", args.events) - base
        uni = instructions(protocol, "unievent", args.events) - base
        per = 3 * args.events
        print(f"| {protocol} | {floor / per:,.0f} | {uni / per:,.0f} | {uni / floor:.2f}x |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
