# A run of AWS event-stream frames that share one header block: the pure-Python
# build's stand-in for the compiled build's `_awsframes` extension module
# (_awsframes.c), and the definition that module is tested against
# (tests/test_awsframes.py).  The framer (unievent._framing.aws_eventstream) calls it
# after a whole frame of a header block it knows, for the frames of that block that
# follow in the same push.
from __future__ import annotations

import struct
import zlib
from typing import Final

__all__ = ["same_block_frames"]

_PRELUDE: Final = 12
_OVERHEAD: Final = 16  # prelude and message CRC
_unpack_prelude: Final = struct.Struct(">III").unpack_from
_unpack_u32: Final = struct.Struct(">I").unpack_from
_unpack_crc_prelude: Final = struct.Struct(">IIII").unpack_from  # a message CRC, then the next prelude
_crc32: Final = zlib.crc32


def same_block_frames(buf: bytes, pos: int, block: bytes, max_frame: int, payloads: list[bytes]) -> int:
    """Append to `payloads` the payload of each whole frame of `buf` from `pos` on whose
    header block is `block`, whose length is at most `max_frame` and whose two CRCs
    hold; the position of the first frame that is not so (or of the end), which the
    framer reads as it reads any frame."""
    if pos < 0 or pos > len(buf):
        raise ValueError("same_block_frames: pos is outside buf")
    end = len(buf)
    size = len(block)
    least = _OVERHEAD + size
    if end - pos >= _PRELUDE:
        total, headers_length, crc = _unpack_prelude(buf, pos)
    else:
        total = headers_length = crc = 0
    # a frame's message CRC and the next frame's prelude are read by one unpack
    while total >= least and headers_length == size and total <= max_frame and end - pos >= total:
        crc_at = pos + total - 4
        payload_at = pos + _PRELUDE + size
        if _crc32(buf[pos : pos + 8]) != crc or not buf.startswith(block, pos + _PRELUDE):
            break
        if end - crc_at >= 4 + _PRELUDE:
            message_crc, next_total, next_headers_length, next_crc = _unpack_crc_prelude(buf, crc_at)
        else:
            (message_crc,) = _unpack_u32(buf, crc_at)
            next_total = next_headers_length = next_crc = 0  # no whole prelude after this frame
        # the message CRC continues the prelude's, which it covers
        if _crc32(buf[pos + 8 : crc_at], crc) != message_crc:
            break
        payloads.append(buf[payload_at:crc_at])
        pos += total
        total, headers_length, crc = next_total, next_headers_length, next_crc
    return pos
