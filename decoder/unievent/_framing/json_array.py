# JSON-array framing: one array written as it is produced, each element a frame
# (machine: machines/json_array.py).
#
# Only new bytes are scanned, never the same byte twice.  Between elements the framer
# looks for the next byte that is not whitespace (a compiled pattern).  Inside an
# element it follows the structure across pushes: outside strings only brackets,
# braces and quotes are visited, inside strings only quotes and backslashes, each found
# in C; a backslash that ends a push escapes the first byte of the next.  Gemini writes
# its elements pretty-printed, each closed by a `}` at the start of a line: when an
# element's first bytes and such a `}` arrive in one push, the bytes up to it are tried
# whole first (one parse confirms they are the element: no prefix of one JSON value is
# another); otherwise, or when that fails, the element is scanned from its start.
#
# Each complete element goes to `sink(None, payload)` like an SSE `data:` frame.  A
# body that is not an array at all is kept (capped) as the body of a not_event_stream
# outcome; junk between elements is skipped and counted; a body that ends before the
# array's `]` was cut.
from __future__ import annotations

import re
from typing import Final

import orjson

from unievent._errors import FrameTooLargeError
from unievent._framing import FRAME_JUNK, FRAME_OVER, FrameSink, past_boms
from unievent._generated import json_array as M

__all__ = ["JSONArrayFramer"]

BODY_CAP: Final = 1024 * 1024

_loads: Final = orjson.loads
_JSONDecodeError: Final = orjson.JSONDecodeError
_NON_SPACE: Final = re.compile(rb"[^ \t\r\n]")
_OUTSIDE: Final = re.compile(rb'["{}\[\]]')
_INSIDE: Final = re.compile(rb'["\\]')
_SCALAR_END: Final = re.compile(rb"[ \t\r\n,\]]")
_JUNK_END: Final = re.compile(rb'[ \t\r\n,\]{\["]')  # what ends junk between elements
_SPACE: Final = re.compile(rb"[ \t\r\n]")  # ... and junk after the array
_JUNK_ENDS: Final = frozenset(b' \t\r\n,]{["')
_VALUE_START: Final = frozenset(b'{["-0123456789tfn')
_NEXT: Final = M.NEXT
_DO: Final = M.DO
_ST_BEFORE: Final = M.ST_BEFORE
_ST_NOT_ARRAY: Final = M.ST_NOT_ARRAY
_ST_BETWEEN: Final = M.ST_BETWEEN
_ST_ELEMENT: Final = M.ST_ELEMENT
_ST_AFTER: Final = M.ST_AFTER
_ST_ENDED: Final = M.ST_ENDED
# how an element is being read
_WHOLE: Final = 0
_SCAN: Final = 1
_STRING: Final = 2
_SCALAR: Final = 3


class JSONArrayFramer:
    """Incremental JSON-array framer: `feed(bytes)` as bytes arrive, `eof()` at the end."""

    __slots__ = (
        "_bom",
        "_depth",
        "_escaped",
        "_in_string",
        "_junk_run",
        "_mode",
        "_parts",
        "_size",
        "body",
        "body_size",
        "closed",
        "cut",
        "ignored",
        "max_frame",
        "protocol",
        "sink",
        "skipped",
        "state",
    )

    def __init__(self, sink: FrameSink, protocol: str, max_frame: int) -> None:
        self.sink = sink
        self.protocol = protocol
        self.max_frame = max_frame
        self.state = M.INITIAL
        self.closed = False
        self.skipped = 0
        self.ignored = 0
        self.cut = False
        self.body: list[bytes] = []
        self.body_size = 0
        self._bom: bytes | None = b""
        self._parts: list[bytes] = []  # the open element's bytes so far
        self._size = 0
        self._mode = _WHOLE
        self._depth = 0
        self._in_string = False
        self._escaped = False
        self._junk_run = False  # the last byte fed was junk: a run of it may go on

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
        if self._bom is not None:
            self._bom, data = past_boms(self._bom, data)
            if self._bom is not None:
                return
        pos = 0
        end = len(data)
        while pos < end:
            state = self.state
            if state == _ST_ELEMENT:
                pos = self._element(data, pos)
                continue
            if state == _ST_NOT_ARRAY:
                self._fire(M.SY_TEXT)
                self._keep(data[pos:])
                return
            found = _NON_SPACE.search(data, pos)
            if found is None:
                self._junk_run = False
                return
            if found.start() != pos:
                self._junk_run = False
            pos = found.start()
            byte = data[pos]
            if state == _ST_BEFORE:
                if byte == 91:  # [
                    self._fire(M.SY_OPEN)
                    pos += 1
                else:
                    self._fire(M.SY_TEXT)
                    self._keep(data[pos:])
                    return
            elif state == _ST_BETWEEN:
                if pos == 0 and self._junk_run and byte not in _JUNK_ENDS:
                    pos = self._junk(data, pos, _JUNK_END)  # the junk the last push ended in goes on
                elif byte == 44:  # ,
                    self._fire(M.SY_COMMA)
                    pos += 1
                elif byte == 93:  # ]
                    self._fire(M.SY_CLOSE)
                    pos += 1
                elif byte in _VALUE_START:
                    self._fire(M.SY_VALUE)
                    self._start(byte)
                else:
                    pos = self._junk(data, pos, _JUNK_END)
            else:  # after the array: nothing more is read
                pos = self._junk(data, pos, _SPACE)

    def eof(self) -> None:
        if self.state == _ST_ENDED:
            return
        if self.state == _ST_ELEMENT and self._mode == _SCALAR and self._parts:
            self._finish(b"")  # a number or literal ends with the body (the array is still cut)
        self._fire(M.SY_EOF)

    # --- the table ---------------------------------------------------------------------

    def _fire(self, symbol: int) -> None:
        if symbol != M.SY_JUNK:
            self._junk_run = False
        state = self.state
        self.state = _NEXT[state][symbol]
        for action in _DO[state][symbol]:
            if action == M.A_SKIP_JUNK:
                self.skipped += 1
            elif action == M.A_IGNORE_AFTER:
                self.ignored += 1
            elif action == M.A_MARK_CUT and not self.closed:
                self.cut = True
            # keep_body, start_element and dispatch run where the bytes are at hand

    def _keep(self, data: bytes) -> None:
        if self.body_size < BODY_CAP:
            self.body.append(data)
            self.body_size += len(data)

    def _junk(self, data: bytes, pos: int, ends: re.Pattern[bytes]) -> int:
        """Skip a run of junk that starts at `pos`, up to a byte `ends` finds (counted
        once, however the pushes split it)."""
        if not (self._junk_run and pos == 0):
            self._fire(M.SY_JUNK)
        found = ends.search(data, pos + 1)
        if found is None:
            self._junk_run = True
            return len(data)
        self._junk_run = False
        return found.start()

    # --- one element -------------------------------------------------------------------

    def _start(self, first: int) -> None:
        self._parts = []
        self._size = 0
        self._depth = 0
        self._in_string = False
        self._escaped = False
        if first == 123:  # {: tried whole at a line-start `}` first
            self._mode = _WHOLE
        elif first == 91:  # [
            self._mode = _SCAN
        elif first == 34:  # "
            self._mode = _STRING
        else:
            self._mode = _SCALAR

    def _element(self, data: bytes, pos: int) -> int:
        """Read the open element from `data[pos:]`; the position after it (or the end)."""
        mode = self._mode
        if mode == _WHOLE:
            return self._whole(data, pos)
        if mode == _SCALAR:
            found = _SCALAR_END.search(data, pos)
            if found is None:
                self._hold(data[pos:])
                return len(data)
            return self._finish(data[pos : found.start()], found.start())
        return self._scan(data, pos, pos)

    def _whole(self, data: bytes, pos: int) -> int:
        """An object element whose first byte is in this push: when the push also holds
        a `}` at a line start, the element up to it is tried whole; anything else (no
        such `}`, or not one element up to it) is scanned, from the element's start."""
        self._mode = _SCAN
        at = data.find(b"\n}", pos)
        if at >= 0:
            end = at + 2
            element = data[pos:end]
            try:
                _loads(element)
            except _JSONDecodeError:
                pass
            else:
                self._dispatch(element)
                return end
        return self._scan(data, pos, pos)

    def _scan(self, data: bytes, pos: int, start: int) -> int:
        """Follow brackets, braces and strings from `pos`; `start` is where this push's
        part of the element begins."""
        depth = self._depth
        in_string = self._in_string
        end = len(data)
        if self._escaped and pos < end:
            self._escaped = False
            pos += 1
        if self._mode == _STRING and depth == 0 and not in_string and pos == start and not self._parts:
            in_string = True  # the element is a string: its opening quote
            pos += 1
        while pos < end:
            if in_string:
                found = _INSIDE.search(data, pos)
                if found is None:
                    break
                pos = found.end()
                if data[pos - 1] == 92:  # a backslash escapes the next byte
                    if pos >= end:
                        self._escaped = True
                        break
                    pos += 1
                    continue
                in_string = False
                if depth == 0:  # a string element closed
                    self._depth, self._in_string = depth, in_string
                    return self._finish(data[start:pos], pos)
                continue
            found = _OUTSIDE.search(data, pos)
            if found is None:
                break
            pos = found.end()
            byte = data[pos - 1]
            if byte == 34:
                in_string = True
            elif byte in (123, 91):
                depth += 1
            else:
                depth -= 1
                if depth == 0:
                    self._depth, self._in_string = depth, in_string
                    return self._finish(data[start:pos], pos)
        self._depth, self._in_string = depth, in_string
        self._hold(data[start:])
        return end

    def _hold(self, piece: bytes) -> None:
        if piece:
            self._parts.append(piece)
            self._size += len(piece)
            if self._size > self.max_frame:
                raise FrameTooLargeError(self.protocol, self.state_name, "frame", self._size, self.max_frame)

    def _finish(self, last: bytes, after: int = 0) -> int:
        element = b"".join(self._parts) + last if self._parts else last
        self._parts = []
        self._size = 0
        self._dispatch(element)
        return after

    def _dispatch(self, element: bytes) -> None:
        if len(element) > self.max_frame:
            raise FrameTooLargeError(self.protocol, self.state_name, "frame", len(element), self.max_frame)
        self._fire(M.SY_DONE)
        if self.closed:
            self.ignored += 1
            return
        status = self.sink(None, element)
        if status == FRAME_JUNK:
            self.skipped += 1
        elif status == FRAME_OVER:
            self.closed = True
