"""What one delta event costs to build, in instructions (callgrind), against the floor.

    python tests/bench/events.py [--n N]

A text delta is two frozen, slotted attrs objects: the item (`TextDelta`) and its
`DeltaEvent`.  The decoder builds them as cheaply as CPython allows from outside the
class (`object.__new__` and the slots' setters, no `__init__`); this measures that,
and for comparison attrs' own `__init__`, a plain slotted class, and the floor's one
`orjson.loads` of an Anthropic text-delta frame.  Each variant runs N times in a loop
that keeps what it builds (as a decoder's event list does, so the cyclic GC runs as it
would), in its own process under `valgrind --tool=callgrind`; an empty loop is
subtracted.  Needs valgrind on PATH.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve()
FRAME = b'{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"some words here"}}'
VARIANTS = {
    "empty loop": "nothing",
    "decoder's way: __new__ + 4 slot setters": "decoder",
    "attrs __init__: DeltaEvent(TextDelta(text), t)": "attrs_init",
    "two objects of a plain slotted class, no __init__": "plain",
    "floor: orjson.loads of one Anthropic text-delta frame": "floor",
}


def build(variant: str, n: int) -> None:
    """The measured process: build n of one variant, keeping them."""
    import orjson

    from unievent._events import DeltaEvent, TextDelta, slot_setter

    new = object.__new__
    set_text = slot_setter(TextDelta, "text")
    set_fidelity = slot_setter(TextDelta, "fidelity")
    set_item = slot_setter(DeltaEvent, "item")
    set_created = slot_setter(DeltaEvent, "created_at")

    class Plain:
        __slots__ = ("a", "b")

    kept: list[Any] = []
    keep = kept.append
    text = "some words here"
    if variant == "decoder":
        for _ in range(n):
            item = new(TextDelta)
            set_text(item, text)
            set_fidelity(item, None)
            event = new(DeltaEvent)
            set_item(event, item)
            set_created(event, 5)
            keep(event)
    elif variant == "attrs_init":
        for _ in range(n):
            keep(DeltaEvent(TextDelta(text, None), 5))
    elif variant == "plain":
        for _ in range(n):
            keep(Plain())
            keep(Plain())
    elif variant == "floor":
        loads = orjson.loads
        for _ in range(n):
            keep(loads(FRAME))
    else:
        for _ in range(n):
            keep(text)


def instructions(variant: str, n: int) -> int:
    command = ["valgrind", "--tool=callgrind", "--callgrind-out-file=/dev/null", sys.executable, str(HERE)]
    command += ["--run", variant, str(n)]
    done = subprocess.run(command, capture_output=True, text=True, check=True, env={**os.environ})
    found = re.search(r"Collected : (\d+)", done.stderr)
    if found is None:
        raise RuntimeError(f"no instruction count in valgrind's output:\n{done.stderr[-2000:]}")
    return int(found.group(1))


def main(argv: list[str]) -> int:
    if argv[:1] == ["--run"]:
        build(argv[1], int(argv[2]))
        return 0
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--n", type=int, default=20_000)
    args = parser.parse_args(argv)
    counts = {label: instructions(variant, args.n) - instructions(variant, 0) for label, variant in VARIANTS.items()}
    empty = counts.pop("empty loop")
    print("| what is built, per iteration | instructions |")
    print("|---|---:|")
    for label, count in counts.items():
        print(f"| {label} | {(count - empty) / args.n:,.0f} |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
