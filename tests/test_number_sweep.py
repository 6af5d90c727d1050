"""Every number a handler reads, written every other way, reads alike in both builds.

A number on the wire reaches attributes typed `int` (an index, a sequence number, a
token count).  Run as Python source a float or a bool that equals the expected int
slips through a comparison unnoticed; compiled, the same value raises a foreign
TypeError where it is stored.  So each number of each protocol's suite stream is
replaced, one at a time, by a float, a bool, `1e400`, a huge int, a negative number and
a string; each body (each protocol's suite stream, and its stream of hot deltas, where the fast
paths read numbers too) is decoded whole and in pieces, and only unievent errors may escape.
The compiled build's results must equal the pure build's (computed in a process of
its own, since the build is chosen at import).

    python -m tests.test_number_sweep      # prints the digest of every variant's result
"""

from __future__ import annotations

import base64
import hashlib
import os
import random
import re
import struct
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import orjson
import pytest

import unievent
from tests import fuzzing
from tests.test_run_takers import BODIES

REPO = Path(__file__).resolve().parent.parent
# a JSON number in a value's place (after `:`, `[` or `,`; before `,`, `}` or `]`)
_NUMBER = re.compile(rb"(?<=[:\[,])(-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?)(?=[,}\]])")
PER_STREAM = 60  # numbers swept in each stream, at most


def replacements(number: bytes) -> list[bytes]:
    """The other ways a number may come: a float, bools, overflow, huge, negative, string."""
    as_float = number if b"." in number or b"e" in number.lower() else number + b".0"
    return [as_float, b"true", b"false", b"1e400", b"123456789012345678901234567890", b"-7", b'"' + number + b'"']


def _swept(document: bytes) -> Iterator[tuple[str, bytes]]:
    for k, found in enumerate(_NUMBER.finditer(document)):
        if k >= PER_STREAM:
            return
        for other in replacements(found.group()):
            label = f"number {k} ({found.group().decode()}) as {other.decode()}"
            yield label, document[: found.start()] + other + document[found.end() :]


def variants(body: bytes) -> Iterator[tuple[str, bytes]]:
    """Each body with one number replaced (in an AWS frame's payload, and in the event
    a Bedrock chunk carries, the frame re-encoded with its CRCs)."""
    frames = fuzzing._aws_frames(body)
    if frames is None:
        yield from _swept(body)
        return
    for i, frame in enumerate(frames):
        headers_length = struct.unpack_from(">I", frame, 4)[0]
        payload = frame[12 + headers_length : -4]
        documents = [(f"frame {i}", payload, False)]
        try:
            chunk = orjson.loads(payload)
            inner = base64.b64decode(chunk["bytes"]) if type(chunk) is dict and type(chunk.get("bytes")) is str else None
        except (orjson.JSONDecodeError, ValueError):
            inner = None
        if inner is not None:
            documents.append((f"frame {i} chunk", inner, True))
        for where, document, wrapped in documents:
            for label, changed in _swept(document):
                payload = orjson.dumps({**chunk, "bytes": base64.b64encode(changed).decode()}) if wrapped else changed
                rebuilt = [*frames[:i], fuzzing._reframe(frame, payload), *frames[i + 1 :]]
                yield f"{where}: {label}", b"".join(rebuilt)


def results() -> Iterator[tuple[str, str]]:
    """(label, digest of the result) of every variant of every suite stream, whole and
    in pieces (they must agree); raises when anything but a unievent error escapes."""
    hot = [(protocol, "hot", build([b'"a"', b'"b\\u00e9"', b'"c"', b'"d"'])) for protocol, build in BODIES.items()]
    for protocol, name, body in fuzzing.suite_seeds() + hot:
        for label, changed in variants(body):
            whole = fuzzing._decode(protocol, [changed], strict=True)
            pieces = fuzzing._decode(protocol, fuzzing._pieces(random.Random(len(changed)), changed), True)
            where = f"{protocol} {name} {label}"
            assert pieces == whole, f"{where}: pieces decode differently"
            unievent.validate(whole[0], partial=whole[1].end != "complete")
            yield where, hashlib.sha256(repr(whole).encode()).hexdigest()[:16]


def test_every_number_written_another_way_raises_nothing_foreign() -> None:
    assert sum(1 for _ in results()) > 1400  # every stream's numbers were swept


@pytest.mark.skipif(not unievent.COMPILED, reason="the compiled build is compared with the pure one")
def test_every_number_written_another_way_reads_alike_compiled_and_pure() -> None:
    env = {**os.environ, "UNIEVENT_PURE": "1"}
    pure = subprocess.run(
        [sys.executable, "-m", "tests.test_number_sweep"], cwd=REPO, env=env, capture_output=True, text=True, check=True
    )
    theirs = dict(line.rsplit(" ", 1) for line in pure.stdout.splitlines())
    ours = dict(results())
    assert ours.keys() == theirs.keys()
    differ = [label for label in ours if ours[label] != theirs[label]]
    assert not differ, differ[:5]


if __name__ == "__main__":
    for label, digest in results():
        print(label, digest)
