"""A run of AWS event-stream frames of one header block (unievent._awsframes): the
compiled build reads it in C, the pure build with the Python stand-in, and the two
take the same frames, copy out the same payloads and stop at the same position, for
every buffer: whole frames, frames cut anywhere, frames of another block, frames over
`max_frame`, and any byte of any frame changed (a CRC that no longer holds, lengths
that no longer fit).  The stand-in is the definition; it is loaded from its source in
either build, so the compiled build tests the C module against it.
"""

from __future__ import annotations

import zlib
from types import ModuleType

import pytest
from hypothesis import given
from hypothesis import strategies as st

import unievent
from tests.helpers import stand_in
from unievent import _awsframes
from unievent._framing.aws_eventstream import frame_with_block, header_block

compiled_only = pytest.mark.skipif(not unievent.COMPILED, reason="the compiled build is not installed")

BLOCK = header_block([(":event-type", "contentBlockDelta"), (":content-type", "application/json"),
                      (":message-type", "event")])
OTHER = header_block([(":event-type", "metadata"), (":content-type", "application/json"),
                      (":message-type", "event")])


STAND_IN = stand_in("_awsframes")


def _both(buf: bytes, pos: int, block: bytes, max_frame: int) -> tuple[int, list[bytes]]:
    """What the installed module and the stand-in take: the same, or the test fails."""
    got: list[bytes] = [b"first"]
    want: list[bytes] = [b"first"]
    at = _awsframes.same_block_frames(buf, pos, block, max_frame, got)
    expected = STAND_IN.same_block_frames(buf, pos, block, max_frame, want)
    assert (at, got) == (expected, want)
    return at, got[1:]


def _frames(payloads: list[bytes], block: bytes = BLOCK) -> bytes:
    return b"".join(frame_with_block(block, p) for p in payloads)


def test_a_run_of_whole_frames_is_read_to_its_end() -> None:
    payloads = [b'{"delta":{"text":"%d"}}' % i for i in range(5)]
    buf = _frames(payloads)
    assert _both(buf, 0, BLOCK, 1 << 20) == (len(buf), payloads)


def test_the_run_ends_at_a_frame_of_another_block() -> None:
    head = _frames([b"{}", b"[]"])
    buf = head + frame_with_block(OTHER, b"{}") + _frames([b"{}"])
    assert _both(buf, 0, BLOCK, 1 << 20) == (len(head), [b"{}", b"[]"])


def test_the_run_ends_before_a_frame_not_all_here() -> None:
    whole = _frames([b"{}"])
    cut = frame_with_block(BLOCK, b'{"a":1}')
    for keep in range(len(cut)):
        assert _both(whole + cut[:keep], 0, BLOCK, 1 << 20) == (len(whole), [b"{}"])


def test_the_run_ends_before_a_frame_over_max_frame() -> None:
    small, large = frame_with_block(BLOCK, b"{}"), frame_with_block(BLOCK, b"x" * 100)
    assert _both(small + large, 0, BLOCK, len(large) - 1) == (len(small), [b"{}"])
    assert _both(small + large, 0, BLOCK, len(large)) == (len(small + large), [b"{}", b"x" * 100])
    # a cap no C integer holds is more than any frame
    assert _both(small, 0, BLOCK, 1 << 100) == (len(small), [b"{}"])


def test_a_prelude_crc_that_fails_ends_the_run_there() -> None:
    good = _frames([b"{}"])
    bad = bytearray(frame_with_block(BLOCK, b"{}"))
    bad[8] ^= 1
    assert _both(good + bytes(bad), 0, BLOCK, 1 << 20) == (len(good), [b"{}"])


def _with_prelude_crc(frame: bytes, prelude_crc: int) -> bytes:
    """`frame` with another prelude CRC, and a message CRC that holds over it as the
    decoder computes it (continuing from the prelude CRC the frame states): only the
    prelude CRC check can tell."""
    body = frame[:8] + prelude_crc.to_bytes(4, "big") + frame[12:-4]
    return body + zlib.crc32(body[8:], prelude_crc).to_bytes(4, "big")


def test_a_wrong_prelude_crc_ends_the_run_even_where_the_message_crc_holds() -> None:
    good = _frames([b"{}"])
    frame = frame_with_block(BLOCK, b"[]")
    wrong = _with_prelude_crc(frame, int.from_bytes(frame[8:12], "big") ^ 1)
    assert _both(wrong, 0, BLOCK, 1 << 20) == (0, [])
    assert _both(good + wrong, 0, BLOCK, 1 << 20) == (len(good), [b"{}"])


def test_a_header_block_of_the_same_length_but_other_bytes_ends_the_run() -> None:
    same_length = BLOCK.replace(b"contentBlockDelta", b"contentBlockDeltb")
    assert len(same_length) == len(BLOCK)
    good = _frames([b"{}"])
    assert _both(good + frame_with_block(same_length, b"{}"), 0, BLOCK, 1 << 20) == (len(good), [b"{}"])


def test_a_message_crc_that_fails_ends_the_run_there() -> None:
    good = _frames([b"{}"])
    bad = bytearray(frame_with_block(BLOCK, b"{}"))
    bad[-5] ^= 0x20  # a byte of the payload: the message CRC no longer holds
    assert _both(good + bytes(bad), 0, BLOCK, 1 << 20) == (len(good), [b"{}"])


def test_the_message_crc_continues_the_prelude_crc() -> None:
    frame = frame_with_block(BLOCK, b"{}")
    prelude_crc = int.from_bytes(frame[8:12], "big")
    assert zlib.crc32(frame[8:-4], prelude_crc) == int.from_bytes(frame[-4:], "big")
    assert _both(frame, 0, BLOCK, 1 << 20) == (len(frame), [b"{}"])


def test_a_position_at_the_end_or_inside_reads_from_there() -> None:
    buf = _frames([b"{}", b"[]"])
    first = len(frame_with_block(BLOCK, b"{}"))
    assert _both(buf, len(buf), BLOCK, 1 << 20) == (len(buf), [])
    assert _both(buf, first, BLOCK, 1 << 20) == (len(buf), [b"[]"])
    assert _both(buf, 1, BLOCK, 1 << 20) == (1, [])  # no prelude there


@pytest.mark.parametrize("module", [_awsframes, STAND_IN], ids=["installed", "stand-in"])
def test_a_position_outside_the_buffer_is_a_usage_error(module: ModuleType) -> None:
    for pos in (-1, 3):
        with pytest.raises(ValueError, match="outside"):
            module.same_block_frames(b"ab", pos, BLOCK, 100, [])


@compiled_only
def test_the_compiled_build_reads_runs_in_c() -> None:
    assert _awsframes.__file__ is not None and not _awsframes.__file__.endswith(".py")


payload_lists = st.lists(st.binary(max_size=40), min_size=1, max_size=6)


@given(payload_lists, st.data())
def test_any_changed_byte_ends_the_run_at_its_frame(payloads: list[bytes], data: st.DataObject) -> None:
    buf = bytearray(_frames(payloads))
    at = data.draw(st.integers(0, len(buf) - 1))
    buf[at] ^= data.draw(st.integers(1, 255))
    max_frame = data.draw(st.integers(16, 1 << 12))
    got_at, got = _both(bytes(buf), 0, BLOCK, max_frame)
    # a changed byte fails a CRC or the block of the frame it is in (its lengths are
    # covered by the prelude CRC): the run is the frames before it, or before the
    # first one over the cap
    taken: list[bytes] = []
    start = 0
    for p in payloads:
        size = len(frame_with_block(BLOCK, p))
        if start + size > at or size > max_frame:
            break
        taken.append(p)
        start += size
    assert (got_at, got) == (start, taken)


@given(payload_lists, st.lists(st.booleans(), min_size=6, max_size=6), st.data())
def test_any_mix_of_blocks_cut_anywhere_gives_the_same_frames_and_position(
    payloads: list[bytes], other: list[bool], data: st.DataObject
) -> None:
    buf = b"".join(frame_with_block(OTHER if o else BLOCK, p) for p, o in zip(payloads, other, strict=False))
    buf = buf[: data.draw(st.integers(0, len(buf)))]
    at, got = _both(buf, 0, BLOCK, 1 << 20)
    # what a run takes is exactly the leading whole frames of the block
    leading: list[bytes] = []
    for p, o in zip(payloads, other, strict=False):
        if o or sum(len(frame_with_block(BLOCK, q)) for q in [*leading, p]) > len(buf):
            break
        leading.append(p)
    assert got == leading
    assert at == len(_frames(leading))
