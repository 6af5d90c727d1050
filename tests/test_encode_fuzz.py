"""The writers under hostile input: every mutated stream of the fuzzing campaign
(tests/fuzzing.py) that its decoder reads as complete is written back by its own
protocol's writer, and the output decodes to the very same items, finish reason and
usage, with no anomaly; whatever the decoder read, writing it never raises anything
but EncodeError, and MMSP carries every stream exactly.

    python -m tests.test_encode_fuzz --examples 20000   # a longer campaign
"""

from __future__ import annotations

import argparse
import itertools
import random
import sys
import time
from typing import Any

import attrs
import pytest

import unievent
from tests import fuzzing
from tests.test_encode import content
from unievent._decoder import StreamDecoder as RuntimeStreamDecoder  # takes any protocol name
from unievent._framing.sse import DEFAULT_MAX_FRAME
from unievent._writers import WRITERS


def decode(protocol: str, body: bytes, max_frame: int = fuzzing.MAX_FRAME) -> tuple[list[Any], unievent.Outcome]:
    decoder = RuntimeStreamDecoder(protocol, stream_id="f", clock=lambda: 0, max_frame=max_frame)
    try:
        events = decoder.push(body)
    except unievent.FrameTooLargeError as error:
        events = error.events
    last, outcome = decoder.finish()
    return events + last, outcome


#: wires with no block boundaries: items of one kind in a row come back as one
UNSEPARATED = ("openai_chat", "gemini")


def adjacent_groups_of_one_kind(items: tuple[Any, ...]) -> bool:
    kinds = [item.kind for item in items]
    return any(a == b and a in ("text", "thinking") for a, b in itertools.pairwise(kinds))


def said_dropped(item: Any, dropped: list[str]) -> bool:
    """Whether the encoder listed `item` as one its wire has no place for: a media item
    of a type the wire does not take (a mutated `mime_type` on the Interactions API,
    whose steps take images and audio only)."""
    mime = getattr(item, "mime_type", None)
    return mime is not None and any(entry.startswith(item.kind) and f" {mime} (" in entry for entry in dropped)


def written_usage(protocol: str, usage: unievent.Usage) -> unievent.Usage:
    """The usage a wire gives back: Anthropic's message_start carries zero counts (its
    SDK reads them), so a count the source never reported comes back as 0."""
    if protocol not in ("anthropic", "bedrock_invoke"):  # bedrock_invoke: Claude's own events
        return usage
    return attrs.evolve(usage, prompt_tokens=usage.prompt_tokens or 0, response_tokens=usage.response_tokens or 0)


def check(protocol: str, body: bytes) -> str:
    events, outcome = decode(protocol, body)
    if protocol not in WRITERS:
        return "no writer"
    if outcome.end == "complete":
        # the default cap: a wire's closing frames repeat the whole text (Responses'
        # `response.completed`), longer than any frame the fuzzer's cap let through
        encoder = unievent.StreamEncoder(protocol)
        written = b"".join(encoder.push(event) for event in events) + encoder.finish()
        again = decode(protocol, written, DEFAULT_MAX_FRAME)[1]
        expected = tuple(item for item in outcome.message.items if not said_dropped(item, encoder.dropped))
        if protocol in UNSEPARATED and adjacent_groups_of_one_kind(outcome.message.items):
            # two text (or thinking) items in a row are one on a wire without blocks
            assert content(again) == content(outcome), "the content differs after writing"
        else:
            assert again.message.items == expected, "the items differ after writing"
        assert (again.finish_reason, again.usage) == (outcome.finish_reason, written_usage(protocol, outcome.usage))
        assert again.anomalies == (), f"the writer needed its decoder's recoveries: {again.anomalies}"
    else:
        encoder = unievent.StreamEncoder(protocol)
        try:
            for event in events:
                encoder.push(event)
        except unievent.EncodeError:
            pass  # a cut stream's events need not be a writable prefix
    if outcome.end == "complete":
        assert decode("mmsp", unievent.encode(events, "mmsp"), DEFAULT_MAX_FRAME)[0] == events, "MMSP changed the events"
    return str(outcome.end)


def campaign(examples: int, seed: int = 0) -> dict[str, int]:
    pool = [s for s in fuzzing.suite_seeds() + fuzzing.corpus_seeds() if s[0] in WRITERS]
    ends: dict[str, int] = {}
    for n in range(examples):
        rng = random.Random(seed * 1_000_003 + n)
        protocol, label, body = pool[n % len(pool)]
        mutated = fuzzing.mutate(rng, body)
        try:
            end = check(protocol, mutated)
        except Exception as failure:
            raise AssertionError(f"input {n} (seed {seed}, from {label}): {failure!r}") from failure
        ends[end] = ends.get(end, 0) + 1
    return ends


@pytest.mark.parametrize("seed", range(3))
def test_mutated_streams_are_written_back_exactly(seed: int) -> None:
    ends = campaign(150, seed)
    assert ends.get("complete", 0) > 20  # the mutations leave many streams complete


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("--examples", type=int, default=5000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    start = time.monotonic()
    ends = campaign(args.examples, args.seed)
    print(f"{args.examples} inputs in {time.monotonic() - start:.0f} s: {ends}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
