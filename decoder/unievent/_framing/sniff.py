# Choosing the framing of a body that may come in more than one (Gemini: SSE or one
# streamed JSON array; `protocol="auto"`: any).  The body's first bytes decide among
# the candidates, each by a fact of its wire that no other shares:
#
# - the first byte that is not whitespace (nor a BOM): `[` a JSON array;
# - `{`: one JSON value, or NDJSON when both are candidates and the body is several
#   JSON lines: its first line (up to the first `\n`) is a whole JSON value and a byte
#   that is not whitespace follows it.  A pretty-printed body fails the first test at
#   its first line (`{` alone), a one-line body the second at its end;
# - a control byte as the body's very first byte: an AWS event stream when its first 12
#   bytes are a prelude whose CRC holds (the high byte of a frame's length is 0 for any
#   frame under 16 MiB);
# - anything else: SSE.
#
# Bytes seen before the decision are held and fed to the chosen framer, so any split
# gives the same result: the decision is a function of the bytes alone, taken once
# enough of them arrived (at the end of input, with what there is).  No byte is
# searched twice while deciding.
from __future__ import annotations

import re
import struct
import zlib
from collections.abc import Callable
from typing import Final

import orjson

from unievent._framing import Framer, FrameSink
from unievent._framing.aws_eventstream import AWSEventStreamFramer
from unievent._framing.json_array import JSONArrayFramer
from unievent._framing.json_body import JSONBodyFramer
from unievent._framing.ndjson import NDJSONFramer
from unievent._framing.sse import SSEFramer

__all__ = ["FRAMERS", "FramingSniffer", "make_framer"]

#: every framer, by the name a protocol lists it under
FRAMERS: Final[dict[str, Callable[[FrameSink, str, int], Framer]]] = {
    "sse": SSEFramer,
    "json_array": JSONArrayFramer,
    "json_body": JSONBodyFramer,
    "ndjson": NDJSONFramer,
    "aws_eventstream": AWSEventStreamFramer,
}

_BLANK: Final = b" \t\r\n\xef\xbb\xbf"  # whitespace, and the bytes of a BOM
_NON_BLANK: Final = re.compile(rb"[^ \t\r\n]")
_PRELUDE: Final = 12  # an event-stream frame's lengths and their CRC

# what the sniffer waits for
_FIRST_BYTE: Final = 0
_FIRST_LINE: Final = 1
_AFTER_LINE: Final = 2
_PRELUDE_BYTES: Final = 3


def make_framer(name: str, sink: FrameSink, protocol: str, max_frame: int) -> Framer:
    return FRAMERS[name](sink, protocol, max_frame)


def is_prelude(head: bytes) -> bool:
    """Whether the 12 bytes `head` are an AWS event-stream prelude: total length,
    headers length and the CRC32 of those 8 bytes, the lengths consistent."""
    total, headers, crc = struct.unpack_from(">III", head)
    return bool(zlib.crc32(head[:8]) == crc and total >= 16 and headers <= total - 16)


def _chose_nothing(framer: Framer) -> None:
    """The callback of a sniffer whose decoder has ended."""


class FramingSniffer:
    """A framer until the framing is known: `chosen(framer)` is called with the real one
    (which has been fed everything so far) as soon as it is."""

    __slots__ = (
        "_chosen",
        "_framings",
        "_held",
        "_held_size",
        "_line",
        "_line_size",
        "_max_frame",
        "_protocol",
        "_waiting",
        "closed",
        "cut",
        "ignored",
        "sink",
        "skipped",
    )

    def __init__(
        self,
        sink: FrameSink,
        protocol: str,
        max_frame: int,
        chosen: Callable[[Framer], None],
        framings: tuple[str, ...] = ("sse", "json_array"),
    ) -> None:
        self.sink = sink
        self._framings = framings
        self._protocol = protocol
        self._max_frame = max_frame
        self._chosen = chosen
        self._held: list[bytes] = []
        self._held_size = 0
        self._waiting = _FIRST_BYTE
        self._line: list[bytes] = []  # the first line of a `{` body, from the `{`
        self._line_size = 0
        self.closed = False
        self.cut = False
        self.ignored = 0
        self.skipped = 0

    @property
    def state_name(self) -> str:
        return "choosing the framing"

    def close(self) -> None:
        self.closed = True

    def body_text(self) -> str:
        return ""

    def feed(self, data: bytes) -> None:
        if not data:
            return
        waiting = self._waiting
        if waiting == _FIRST_BYTE:
            self._first_byte(data)
            return
        self._held.append(data)
        self._held_size += len(data)
        if waiting == _FIRST_LINE:
            self._first_line(data)
        elif waiting == _AFTER_LINE:
            self._after_line(data)
        elif self._held_size >= _PRELUDE:
            head = b"".join(self._held)[:_PRELUDE]
            self._release("aws_eventstream" if is_prelude(head) else self._default())

    def eof(self) -> None:
        waiting = self._waiting
        if waiting == _FIRST_BYTE:  # only whitespace came: an empty body, read by the default framing
            self._decide(self._default()).eof()
        elif waiting in (_FIRST_LINE, _AFTER_LINE):  # one line, or none ended: one JSON value
            self._release("json_body").eof()
        else:  # too short for a prelude
            self._release(self._default()).eof()

    # --- the decision ----------------------------------------------------------------

    def _first_byte(self, data: bytes) -> None:
        framings = self._framings
        if not self._held and data[0] < 0x20 and data[0] not in _BLANK and "aws_eventstream" in framings:
            self._waiting = _PRELUDE_BYTES
            self.feed(data)
            return
        stripped = data.lstrip(_BLANK)
        if not stripped:
            self._held.append(data)
            self._held_size += len(data)
            return
        first = stripped[0]
        if first == 123 and "json_body" in framings and "ndjson" in framings:  # {
            self._held.append(data)
            self._held_size += len(data)
            self._waiting = _FIRST_LINE
            self._first_line(stripped)
            return
        self._decide(self._framing_for(first)).feed(b"".join(self._held) + data)

    def _first_line(self, piece: bytes) -> None:
        """More of a `{` body's first line: once it ends, is it one JSON value?"""
        nl = piece.find(b"\n")
        if nl < 0:
            self._line.append(piece)
            self._line_size += len(piece)
            if self._line_size > self._max_frame:  # no NDJSON line is this long
                self._release("json_body")
            return
        self._line.append(piece[:nl])
        line = b"".join(self._line)
        self._line = []
        try:
            orjson.loads(line)
        except orjson.JSONDecodeError:
            self._release("json_body")  # e.g. a pretty-printed body's `{`
            return
        self._waiting = _AFTER_LINE
        self._after_line(piece[nl + 1 :])

    def _after_line(self, piece: bytes) -> None:
        """What follows a first line that is one JSON value: more than whitespace is NDJSON."""
        if _NON_BLANK.search(piece) is not None:
            self._release("ndjson")

    def _framing_for(self, first: int) -> str:
        framings = self._framings
        if first == 91 and "json_array" in framings:  # [
            return "json_array"
        if first in (123, 91) and "json_body" in framings:  # { or [
            return "json_body"
        if first == 123 and "ndjson" in framings:
            return "ndjson"
        return self._default()

    def let_go(self) -> None:
        """After the end: the decoder's callback for the framing replaced, so that
        nothing here refers back to it (the decoder replaces the sink itself)."""
        self._chosen = _chose_nothing

    def _default(self) -> str:
        return "sse" if "sse" in self._framings else self._framings[0]

    def _release(self, name: str) -> Framer:
        """Decide for `name` and feed it everything held."""
        held, self._held = self._held, []
        framer = self._decide(name)
        framer.feed(b"".join(held))
        return framer

    def _decide(self, name: str) -> Framer:
        framer = make_framer(name, self.sink, self._protocol, self._max_frame)
        if self.closed:
            framer.close()
        self._chosen(framer)
        return framer
