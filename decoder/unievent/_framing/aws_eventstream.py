# AWS event-stream framing: binary frames in, frames out (machine:
# machines/aws_eventstream.py).
#
# A frame is read by its lengths, never byte by byte: the 12 prelude bytes with
# `struct.unpack_from` (total length, headers length, prelude CRC), then, once its
# `total` bytes are there, one slice.  The pieces of a frame split across pushes wait
# in a list and are joined once, when the frame is whole; a push of whole frames is
# read in place.  Both CRC32s are checked with `zlib.crc32` (the message CRC continues
# the prelude's, which it covers), over a slice of the frame: a copy of a frame's few
# hundred bytes costs less than a memoryview of it, made and then sliced.  A prelude
# whose CRC holds but whose length is over `max_frame` raises FrameTooLargeError before
# anything is gathered, whatever the split.
#
# Headers (`name length:1, name, type:1, value`, types 0-9) are parsed from their
# block; the few header blocks a stream repeats are parsed once and remembered.  Only
# the naming headers matter here.  Each frame goes to `sink(event, payload)` with the
# event name the protocol dispatches on:
#
#   :message-type event (or none)   the `:event-type` value, e.g. `contentBlockDelta`, `chunk`
#   :message-type exception         `exception:<:exception-type>`, e.g. `exception:throttlingException`
#   :message-type error             `error:<:error-code>`, the payload `{"message": <:error-message>}`
#
# so a handler learns of an exception frame from its name alone, and an exception or
# error frame is never mistaken for an event of the same type.  Where the sink has a
# run taker (`run`: a handler's on-demand path for its hot frames), the whole frames of
# a push that follow a frame of the same header block, each checked as any frame is, are
# offered to it together, with their event names; the frames it leaves go to the sink.
# Such a run is read by `unievent._awsframes.same_block_frames` (in C in the compiled
# build: the frames are checked in place, only their payloads copied out), its header
# block compared to the run's instead of looked up.  When a frame fails its
# checks after the stream began (a CRC, lengths that do not fit, headers that do not
# parse), the framer hands over one frame of its own, `error:corrupt_frame` with
# `{"message": ...}` saying which check failed, and reads nothing after it: the stream
# ends failed, keeping what arrived.  When the very first 12 bytes are no prelude, the
# body is no event stream (an HTML or JSON error page): it is kept, capped, as the body
# of a `not_event_stream` outcome.  A body that ends inside a frame was cut.
from __future__ import annotations

import struct
import zlib
from typing import Final

import orjson

from unievent._awsframes import same_block_frames
from unievent._errors import FrameTooLargeError
from unievent._framing import FRAME_JUNK, FRAME_OVER, FrameSink, RunSink
from unievent._generated import aws_eventstream as M

__all__ = ["CORRUPT_FRAME", "AWSEventStreamFramer", "encode_frame", "frame_with_block", "header_block"]

BODY_CAP: Final = 1024 * 1024
#: the event name of the frame the framer hands over for a frame that failed its checks
CORRUPT_FRAME: Final = "error:corrupt_frame"

_PRELUDE: Final = 12
_OVERHEAD: Final = 16  # prelude and message CRC
_NEXT: Final = M.NEXT
_DO: Final = M.DO
_ST_START: Final = M.ST_START
_ST_BETWEEN: Final = M.ST_BETWEEN
_ST_MESSAGE: Final = M.ST_MESSAGE
_ST_ENDED: Final = M.ST_ENDED
_SY_PRELUDE: Final = M.SY_PRELUDE
_SY_FRAME: Final = M.SY_FRAME
_READING: Final = frozenset((M.ST_START, M.ST_BETWEEN, M.ST_MESSAGE))
_unpack_prelude: Final = struct.Struct(">III").unpack_from
_unpack_u32: Final = struct.Struct(">I").unpack_from
_unpack_u16: Final = struct.Struct(">H").unpack_from
_pack_lengths: Final = struct.Struct(">II").pack
_pack_u32: Final = struct.Struct(">I").pack
_crc32: Final = zlib.crc32
# value bytes of header types 0-9 of a fixed size (-1: a 2-byte length first)
_VALUE_SIZE: Final = (0, 0, 1, 2, 4, 8, -1, -1, 8, 16)
_NAMING: Final = frozenset((b":message-type", b":event-type", b":exception-type", b":error-code", b":error-message"))
_CACHED_BLOCKS: Final = 64


def _u32(buf: bytes, at: int) -> int:
    """The big-endian u32 at `at` (an int, not Any: see `_read`)."""
    value: int = _unpack_u32(buf, at)[0]
    return value


class _BadHeaders(Exception):
    """A header block that does not parse."""


def _naming_headers(block: bytes) -> dict[bytes, bytes]:
    """The string values of the headers that name a frame (the others are skipped by
    their sizes); _BadHeaders when the block does not parse."""
    found: dict[bytes, bytes] = {}
    seen: set[bytes] = set()
    end = len(block)
    i = 0
    while i < end:
        n = block[i]
        name = block[i + 1 : i + 1 + n]
        i += 1 + n
        if n == 0 or i >= end:
            raise _BadHeaders("a header name runs past the header block")
        kind = block[i]
        i += 1
        if kind >= len(_VALUE_SIZE):
            raise _BadHeaders(f"header {name.decode('utf-8', 'replace')!r} has unknown value type {kind}")
        size = _VALUE_SIZE[kind]
        if size < 0:
            if i + 2 > end:
                raise _BadHeaders("a header value runs past the header block")
            (size,) = _unpack_u16(block, i)
            i += 2
            if kind == 7 and name in _NAMING:
                found[name] = block[i : i + size]
        i += size
        if i > end:
            raise _BadHeaders("a header value runs past the header block")
        if name in seen:
            raise _BadHeaders(f"header {name.decode('utf-8', 'replace')!r} is given twice")
        seen.add(name)
    return found


def _name_of(headers: dict[bytes, bytes]) -> tuple[str | None, bytes | None]:
    """The event name of a frame by its headers, and the payload to use instead of its
    own (an `error` frame's message), if any."""
    kind = headers.get(b":message-type", b"event")
    if kind == b"exception":
        return "exception:" + headers.get(b":exception-type", b"").decode("utf-8", "replace"), None
    if kind == b"error":
        message = headers.get(b":error-message", b"").decode("utf-8", "replace")
        code = headers.get(b":error-code", b"").decode("utf-8", "replace")
        return "error:" + code, orjson.dumps({"message": message})
    name = headers.get(b":event-type")
    return (name.decode("utf-8", "replace") if name is not None else None), None


def header_block(headers: list[tuple[str, str]]) -> bytes:
    """String headers (value type 7) as a frame's header block: a writer builds the
    few blocks of its wire once and frames every payload with one of them."""
    return b"".join(
        bytes((len(name),)) + name + b"\x07" + struct.pack(">H", len(value)) + value
        for name, value in ((n.encode(), v.encode()) for n, v in headers)
    )


def frame_with_block(block: bytes, payload: bytes) -> bytes:
    """One frame of a header block and a payload, its two CRCs computed."""
    prelude = _pack_lengths(_OVERHEAD + len(block) + len(payload), len(block))
    body = prelude + _pack_u32(_crc32(prelude)) + block + payload
    return body + _pack_u32(_crc32(body))


def encode_frame(headers: list[tuple[str, str]], payload: bytes) -> bytes:
    """One frame with string headers (value type 7), its two CRCs computed: what a
    server writes (tests, and the writers of protocols on this framing)."""
    return frame_with_block(header_block(headers), payload)


class AWSEventStreamFramer:
    """Incremental AWS event-stream framer: `feed(bytes)` as bytes arrive, `eof()` at the end."""

    __slots__ = (
        "_blocks",
        "_have",
        "_headers_length",
        "_need",
        "_parts",
        "_prelude_crc",
        "_total",
        "body",
        "body_size",
        "closed",
        "cut",
        "ignored",
        "max_frame",
        "protocol",
        "run",
        "sink",
        "skipped",
        "state",
    )

    def __init__(self, sink: FrameSink, protocol: str, max_frame: int) -> None:
        self.sink = sink
        # the sink's run taker (the decoder sets it when the sink has one)
        self.run: RunSink | None = None
        self.protocol = protocol
        self.max_frame = max_frame
        self.state = M.INITIAL
        self.closed = False
        self.skipped = 0
        self.ignored = 0
        self.cut = False
        self.body: list[bytes] = []
        self.body_size = 0
        self._parts: list[bytes] = []  # the bytes of the frame being read, in pieces
        self._have = 0  # how many
        self._need = _PRELUDE  # how many it takes to go on: a prelude, or the whole frame
        self._total = 0
        self._headers_length = 0
        self._prelude_crc = 0
        self._blocks: dict[bytes, tuple[str | None, bytes | None]] = {}  # header block -> name, payload

    @property
    def state_name(self) -> str:
        return M.STATES[self.state]

    def close(self) -> None:
        self.closed = True

    def body_text(self) -> str:
        return b"".join(self.body).decode("utf-8", "replace").strip()

    # --- bytes in ----------------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        if not data or self.state == _ST_ENDED:
            return
        if self.state not in _READING:
            self._fire(M.SY_MORE, data)
            return
        if self._parts:
            if self._have + len(data) < self._need:
                self._parts.append(data)
                self._have += len(data)
                return
            self._parts.append(data)
            data = b"".join(self._parts)
            self._parts = []
            self._have = 0
        self._read(data)

    def eof(self) -> None:
        if self.state == _ST_ENDED:
            return
        if self._have:
            held = b"".join(self._parts)
            self._parts = []
            self._have = 0
            self._fire(M.SY_CUT, held)
        self._fire(M.SY_EOF, b"")

    def _read(self, buf: bytes) -> None:
        """Read every whole frame of `buf` (which starts at a frame, or at the prelude
        already read when the state is `message`); keep the incomplete rest."""
        pos = 0
        end = len(buf)
        max_frame = self.max_frame
        blocks = self._blocks
        # declared: struct gives Any, and a compiled framer would box every sum and
        # comparison of them; as ints they are native
        total: int
        headers_length: int
        crc: int
        while True:
            state = self.state
            if state == _ST_MESSAGE:
                total = self._total
                if end - pos < total:
                    self._hold(buf, pos, total)
                    return
                pos = self._frame(buf, pos, total)
                continue
            if state != _ST_BETWEEN and state != _ST_START:  # noqa: PLR1714  (corrupt: nothing more is read)
                return
            if end - pos < _PRELUDE:
                if pos < end:
                    self._hold(buf, pos, _PRELUDE)
                return
            total, headers_length, crc = _unpack_prelude(buf, pos)
            checks = _crc32(buf[pos : pos + 8]) == crc
            if not checks or total < _OVERHEAD or headers_length > total - _OVERHEAD:
                what = b"the lengths do not fit" if checks else b"the prelude CRC does not match"
                self._fire(M.SY_BAD_PRELUDE, buf[pos:] if state == _ST_START else what)
                return
            if total > max_frame:
                raise FrameTooLargeError(self.protocol, self.state_name, "frame", total, max_frame)
            self.state = _NEXT[state][_SY_PRELUDE]  # prelude: no action (checked at import)
            crc_at = pos + total - 4
            start = pos + _PRELUDE
            payload_at = start + headers_length
            block = buf[start:payload_at]
            named = blocks.get(block) if pos + total <= end else None
            if named is None or _crc32(buf[pos + 8 : crc_at], crc) != _u32(buf, crc_at):
                # not all here, a header block not seen yet, or a CRC that fails: the slow way
                self._total = total
                self._headers_length = headers_length
                self._prelude_crc = crc
                continue
            # the whole frame, its CRC right and its headers known: frame, dispatch
            self.state = _NEXT[self.state][_SY_FRAME]
            event, replaced = named
            if replaced is None and self.run is not None and not self.closed:
                pos = self._run_from(buf, pos + total, event, block, buf[payload_at:crc_at])
                continue
            self._dispatch(event, replaced if replaced is not None else buf[payload_at:crc_at])
            pos += total

    def _run_from(self, buf: bytes, pos: int, event: str | None, block: bytes, first: bytes) -> int:
        """Dispatch the frame just read (its payload `first`, its header block `block`)
        and each whole frame at `pos` on with that same block, whose checks all hold, as
        one run; the position of the first frame not in it, which `_read` reads as usual
        (a frame of another block, one not all here, or one that fails a check).

        Each frame of the run is checked exactly as `_read` checks a whole frame whose
        block it knows (its prelude CRC and lengths, its message CRC), by
        `same_block_frames`, which compares its block to the run's instead of looking it
        up; each takes the same two transitions, from `between` back to `between`."""
        payloads = [first]
        pos = same_block_frames(buf, pos, block, self.max_frame, payloads)
        if len(payloads) > 1:
            self.state = _NEXT[_NEXT[self.state][_SY_PRELUDE]][_SY_FRAME]
        self._dispatch_run(event, payloads)
        return pos

    def _dispatch_run(self, event: str | None, payloads: list[bytes]) -> None:
        """`_dispatch` of each payload in turn, all named `event`; the run taker takes
        what it can first, each frame as the sink would have."""
        names = [b"" if event is None else event.encode()] * len(payloads)
        n = 0
        count = len(payloads)
        while n < count:
            run = self.run  # read each time, as the sink: a sink may hand over to another
            if run is not None and not self.closed:
                taken = run(names, payloads, n)
                if taken > n:  # every frame it took was FRAME_OK
                    n = taken
                    continue
            self._dispatch(event, payloads[n])
            n += 1

    def _hold(self, buf: bytes, pos: int, need: int) -> None:
        piece = buf[pos:] if pos else buf
        self._parts = [piece]
        self._have = len(piece)
        self._need = need

    def _frame(self, buf: bytes, pos: int, total: int) -> int:
        """The whole frame at `buf[pos:pos + total]`, its prelude read; the position
        after it, or after the run it starts."""
        crc_at = pos + total - 4
        if _crc32(buf[pos + 8 : crc_at], self._prelude_crc) != _u32(buf, crc_at):
            self._fire(M.SY_BAD_CRC, b"the message CRC does not match")
            return pos + total
        start = pos + _PRELUDE
        payload_at = start + self._headers_length
        block = buf[start:payload_at]
        named = self._blocks.get(block)
        if named is None:
            try:
                named = _name_of(_naming_headers(block))
            except _BadHeaders as error:
                self._fire(M.SY_BAD_HEADERS, str(error).encode())
                return pos + total
            if len(self._blocks) < _CACHED_BLOCKS:
                self._blocks[block] = named
        event, replaced = named
        self.state = _NEXT[self.state][_SY_FRAME]  # frame: its one action, dispatch
        if replaced is None and self.run is not None and not self.closed:
            return self._run_from(buf, pos + total, event, block, buf[payload_at:crc_at])
        self._dispatch(event, replaced if replaced is not None else buf[payload_at:crc_at])
        return pos + total

    # --- the table ---------------------------------------------------------------------

    def _fire(self, symbol: int, data: bytes) -> None:
        state = self.state
        self.state = _NEXT[state][symbol]
        for action in _DO[state][symbol]:
            if action == M.A_KEEP_BODY:
                if self.body_size < BODY_CAP:
                    self.body.append(data)
                    self.body_size += len(data)
            elif action == M.A_REPORT_CORRUPT:
                what = data.decode("utf-8", "replace")
                self._dispatch(CORRUPT_FRAME, orjson.dumps({"message": f"corrupt event-stream frame: {what}"}))
            elif action == M.A_MARK_CUT:
                if not self.closed:
                    self.cut = True
            else:  # dispatch runs in _frame, where the frame's bytes are at hand
                raise AssertionError(f"aws_eventstream: no code for action {M.ACTIONS[action]}")

    def _dispatch(self, event: str | None, payload: bytes) -> None:
        if self.closed:
            self.ignored += 1
            return
        status = self.sink(event, payload)
        if status == FRAME_JUNK:
            self.skipped += 1
        elif status == FRAME_OVER:
            self.closed = True


# the frame transition's one action is dispatch (run in _frame); the prelude's, none
assert all(_DO[s][M.SY_FRAME] in ((), (M.A_DISPATCH,)) for s in range(len(M.STATES)))
assert all(_DO[s][_SY_PRELUDE] == () for s in range(len(M.STATES)))
# a run of frames (`_run_from`) starts where one whole frame leaves the table, and stays
# there however many frames it has: one prelude and frame transition stand for them all
assert _NEXT[_ST_MESSAGE][_SY_FRAME] == _ST_BETWEEN
assert _NEXT[_NEXT[_ST_BETWEEN][_SY_PRELUDE]][_SY_FRAME] == _ST_BETWEEN
