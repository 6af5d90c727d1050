# Server-sent-events framing: bytes in, frames (event name, data) out.
#
# Line ends are found with `bytes.find` on a buffer that is never rescanned: the
# carried remainder holds no line end, so each search starts where new bytes begin.
# A `\r` that ends the buffer is held back (it may be half of `\r\n`).  Each complete
# line is classified into a symbol of machines/sse.py and fed to the generated table;
# the actions it names are the small methods at the bottom.  Nothing here decides
# which line kind is allowed where.
from __future__ import annotations

from collections.abc import Callable

from unievent._errors import FrameTooLargeError
from unievent._generated import sse as M

__all__ = ["DEFAULT_MAX_FRAME", "BODY_CAP", "SSEFramer"]

DEFAULT_MAX_FRAME = 16 * 1024 * 1024
BODY_CAP = 1024 * 1024

_BOM = b"\xef\xbb\xbf"
_FIELDS = {b"data": M.SY_DATA, b"event": M.SY_EVENT, b"id": M.SY_ID, b"retry": M.SY_RETRY}
_NEXT = M.NEXT
_DO = M.DO
_APPEND = M.A_APPEND_DATA
_DISPATCH = M.A_DISPATCH
_SET_EVENT = M.A_SET_EVENT
_CLEAR_EVENT = M.A_CLEAR_EVENT
_KEEP_BODY = M.A_KEEP_BODY_LINE
_DROP_BODY = M.A_DROP_BODY

#: receives (event name or None, data lines); returns True when the stream is over
FrameSink = Callable[[str | None, list[bytes]], bool]


class SSEFramer:
    """Incremental SSE framer.  `feed(bytes)` and `eof()` call `sink` once per frame.

    Once `sink` returns True (a terminal frame such as `[DONE]`), every later byte is
    ignored.  `body` holds the non-SSE lines seen before any SSE line (capped at
    1 MiB); `seen_sse` tells whether any `data:` or `event:` line arrived.
    """

    __slots__ = (
        "_bom_pending",
        "_data",
        "_data_size",
        "_event",
        "_rest",
        "body",
        "body_size",
        "closed",
        "max_frame",
        "protocol",
        "sink",
        "state",
    )

    def __init__(self, sink: FrameSink, protocol: str, max_frame: int = DEFAULT_MAX_FRAME) -> None:
        self.sink = sink
        self.protocol = protocol
        self.max_frame = max_frame
        self.state = M.INITIAL
        self.closed = False
        self.body: list[str] = []
        self.body_size = 0
        self._rest = b""
        self._data: list[bytes] = []
        self._data_size = 0
        self._event: str | None = None
        self._bom_pending = True

    @property
    def seen_sse(self) -> bool:
        return self.state in (M.ST_IDLE, M.ST_GATHER) or (self.state == M.ST_ENDED and not self.body)

    @property
    def state_name(self) -> str:
        return M.STATES[self.state]

    def feed(self, data: bytes) -> None:
        """Consume bytes; complete lines are framed now, a partial line waits."""
        if self.closed or not data:
            return
        buf = self._rest + data if self._rest else data
        if self._bom_pending:
            if len(buf) < 3 and _BOM.startswith(buf):
                self._rest = buf
                return
            while buf.startswith(_BOM):
                buf = buf[3:]
            self._bom_pending = False
        if b"\r" in buf:
            self._lines_any_ending(buf, final=False)
        else:
            self._lines_lf(buf, len(self._rest))

    def eof(self) -> None:
        """End of input: the last line and the last frame are handled without terminators."""
        if self.closed:
            return
        buf = self._rest
        self._rest = b""
        if buf:
            if self._bom_pending:
                while buf.startswith(_BOM):
                    buf = buf[3:]
            self._lines_any_ending(buf, final=True)
            if self._rest and not self.closed:
                self._line(self._rest)
            self._rest = b""
        if not self.closed:
            self._fire(M.SY_EOF, b"")
        self.closed = True

    # --- line splitting --------------------------------------------------------------

    def _lines_lf(self, buf: bytes, scan_from: int) -> None:
        pos = 0
        find = buf.find
        line_of = self._line
        nl = find(b"\n", scan_from)
        while nl >= 0:
            line_of(buf[pos:nl])
            if self.closed:
                return
            pos = nl + 1
            nl = find(b"\n", pos)
        self._keep_rest(buf, pos)

    def _lines_any_ending(self, buf: bytes, final: bool) -> None:
        pos = 0
        size = len(buf)
        find = buf.find
        while pos < size:
            nl = find(b"\n", pos)
            cr = find(b"\r", pos, nl if nl >= 0 else size)
            if cr >= 0:
                if cr == size - 1 and not final:
                    break  # maybe the first half of \r\n: wait for the next bytes
                end, after = cr, cr + 2 if buf[cr + 1 : cr + 2] == b"\n" else cr + 1
            elif nl >= 0:
                end, after = nl, nl + 1
            else:
                break
            self._line(buf[pos:end])
            if self.closed:
                return
            pos = after
        self._keep_rest(buf, pos)

    def _keep_rest(self, buf: bytes, pos: int) -> None:
        rest = buf[pos:] if pos else buf
        if len(rest) > self.max_frame:
            raise FrameTooLargeError(self.protocol, self.state_name, "line", len(rest), self.max_frame)
        self._rest = rest

    # --- one line ---------------------------------------------------------------------

    def _line(self, line: bytes) -> None:
        if line[:5] == b"data:":
            symbol = M.SY_DATA
            value = line[6:] if line[5:6] == b" " else line[5:]
        elif not line:
            symbol = M.SY_BLANK
            value = line
        elif line[0] == 58:  # ":"
            symbol = M.SY_COMMENT
            value = line
        else:
            colon = line.find(b":")
            if colon < 0:
                symbol = _FIELDS.get(line, M.SY_OTHER)
                value = b""
            else:
                symbol = _FIELDS.get(line[:colon], M.SY_OTHER)
                value = line[colon + 2 :] if line[colon + 1 : colon + 2] == b" " else line[colon + 1 :]
            if symbol == M.SY_OTHER:
                value = line
        self._fire(symbol, value)

    def _fire(self, symbol: int, value: bytes) -> None:
        state = self.state
        self.state = _NEXT[state][symbol]
        for action in _DO[state][symbol]:
            if action == _APPEND:
                self._append_data(value)
            elif action == _DISPATCH:
                self._dispatch()
            elif action == _SET_EVENT:
                self._event = value.decode("utf-8", "replace").strip()
            elif action == _CLEAR_EVENT:
                self._event = None
            elif action == _KEEP_BODY:
                self._keep_body_line(value)
            elif action == _DROP_BODY:
                self.body = []
                self.body_size = 0

    # --- actions ----------------------------------------------------------------------

    def _append_data(self, value: bytes) -> None:
        self._data_size += len(value) + 1
        if self._data_size > self.max_frame:
            raise FrameTooLargeError(self.protocol, self.state_name, "frame", self._data_size, self.max_frame)
        self._data.append(value)

    def _dispatch(self) -> None:
        data = self._data
        event = self._event
        self._data = []
        self._data_size = 0
        self._event = None
        if self.sink(event, data):
            self.closed = True

    def _keep_body_line(self, line: bytes) -> None:
        if self.body_size < BODY_CAP:
            self.body.append(line.decode("utf-8", "replace"))
            self.body_size += len(line) + 1
