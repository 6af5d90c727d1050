# JSON-body framing: a response that is one JSON value (machine: machines/json_body.py).
#
# The pieces are kept as they arrive and joined once at the end of input, so the work
# is linear whatever the split; the one frame goes to `sink(None, body)` like an SSE
# `data:` frame, and is parsed there once.  Its verdict tells a body cut short (its
# brackets never closed: `truncated`) from one that is no JSON after all (kept as the
# body of a `not_event_stream` outcome); only that rare path scans the structure.  The
# cap on one frame is the cap on the body.
from __future__ import annotations

import re
from typing import Final

from unievent._errors import FrameTooLargeError
from unievent._framing import FRAME_JUNK, FRAME_OVER, FrameSink, past_boms
from unievent._generated import json_body as M
from unievent._jsonscan import Nesting

__all__ = ["JSONBodyFramer"]

BODY_CAP: Final = 1024 * 1024

_NON_SPACE: Final = re.compile(rb"[^ \t\r\n]")
_NEXT: Final = M.NEXT
_DO: Final = M.DO
_ST_BEFORE: Final = M.ST_BEFORE
_ST_VALUE: Final = M.ST_VALUE
_ST_NOT_JSON: Final = M.ST_NOT_JSON
_ST_ENDED: Final = M.ST_ENDED


class JSONBodyFramer:
    """A body that is one JSON value: `feed(bytes)` as bytes arrive, `eof()` at the end."""

    __slots__ = (
        "_bom",
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
        self._parts: list[bytes] = []
        self._size = 0

    @property
    def state_name(self) -> str:
        return M.STATES[self.state]

    def close(self) -> None:
        self.closed = True

    def body_text(self) -> str:
        return b"".join(self.body).decode("utf-8", "replace").strip()

    def feed(self, data: bytes) -> None:
        if not data or self.state == _ST_ENDED:
            return
        if self._bom is not None:
            self._bom, data = past_boms(self._bom, data)
            if self._bom is not None:
                return
        if self.state == _ST_BEFORE:
            found = _NON_SPACE.search(data)
            if found is None:
                return
            data = data[found.start() :]
            self._fire(M.SY_OPEN if data[0] in (123, 91) else M.SY_TEXT, data)  # { [
        else:
            self._fire(M.SY_MORE, data)

    def eof(self) -> None:
        if self.state == _ST_ENDED:
            return
        if self.state == _ST_VALUE:
            self._fire(M.SY_END, b"")  # the value goes to the protocol, its verdict follows
        self._fire(M.SY_EOF, b"")

    def _fire(self, symbol: int, data: bytes) -> None:
        state = self.state
        self.state = _NEXT[state][symbol]
        for action in _DO[state][symbol]:
            if action == M.A_GATHER:
                self._size += len(data)
                if self._size > self.max_frame:
                    raise FrameTooLargeError(self.protocol, self.state_name, "frame", self._size, self.max_frame)
                self._parts.append(data)
            elif action == M.A_KEEP_BODY:
                self._keep(data)
            elif action == M.A_DISPATCH:
                self._dispatch()
            elif action == M.A_MARK_CUT and not self.closed:
                self.cut = True

    def _keep(self, data: bytes) -> None:
        if self.body_size < BODY_CAP:
            self.body.append(data)
            self.body_size += len(data)

    def _dispatch(self) -> None:
        body = b"".join(self._parts)
        self._parts = []
        if self.closed:
            self.ignored += 1
            self._fire(M.SY_READ, b"")
            return
        status = self.sink(None, body)
        if status != FRAME_JUNK:
            if status == FRAME_OVER:
                self.closed = True
            self._fire(M.SY_READ, b"")
            return
        nesting = Nesting()
        nesting.feed(body.decode("utf-8", "replace"))
        if nesting.complete:
            self.skipped += 1
            self._fire(M.SY_BROKEN, body)
        else:
            self._fire(M.SY_CUT, b"")
