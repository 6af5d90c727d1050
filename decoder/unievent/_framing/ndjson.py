# NDJSON framing: bytes in, one frame per line (machine: machines/ndjson.py).
#
# Line ends are `\n` (a `\r` before one is JSON whitespace: it stays on the line, and
# the parser skips it).  No byte is searched twice: an incomplete line waits as a list
# of pieces (no `\n` in any of them) and is joined once, when its end arrives; a push
# of whole lines is split in C.  Every leading BOM of the body is removed, however the
# pushes split them.
#
# Each complete line is classified into a symbol of machines/ndjson.py (an object line
# by its first byte that is not whitespace) and fed to the generated table, whose
# actions run in `_fire`; nothing here decides which line kind is allowed where.  Where
# the table waits for the protocol's verdict on a line it handed over (the first object
# line, and the tail), the verdict is fed next: `read`, else `broken`, or for the tail
# `cut` when its brackets never closed.  The tail is the last line of a body that does
# not end with `\n`.
#
# Caps: a line longer than `max_frame` raises FrameTooLargeError whether it arrived
# whole or in pieces (its length before the `\n`, counted as it arrives).
#
# A line goes to `sink(None, payload)` (see _framing/__init__.py); where the table loops
# on object lines, the lines of a push from there on are first offered, as a run, to
# `run`, when the sink has one (a handler's on-demand path for its hot lines).  Once
# the sink says the stream is over, lines are still split, only to be counted
# (`ignored`).
from __future__ import annotations

from typing import Final

from unievent._errors import FrameTooLargeError
from unievent._framing import BOM, FRAME_JUNK, FRAME_OK, FRAME_OVER, FrameSink, RunSink, past_boms
from unievent._generated import ndjson as M
from unievent._jsonscan import Nesting
from unievent._search import find

__all__ = ["NDJSONFramer"]

BODY_CAP: Final = 1024 * 1024

_SPACE: Final = b" \t\r"  # JSON whitespace but the line end
_NEXT: Final = M.NEXT
_DO: Final = M.DO
_SY_OBJECT: Final = M.SY_OBJECT
_SY_BLANK: Final = M.SY_BLANK
_SY_OTHER: Final = M.SY_OTHER
_SY_TAIL: Final = M.SY_TAIL
_SY_EOF: Final = M.SY_EOF
_ST_ENDED: Final = M.ST_ENDED
_ST_LINES: Final = M.ST_LINES
_DISPATCH: Final = M.A_DISPATCH
_NO_STATUS: Final = -1  # no dispatch yet (a FRAME_* status otherwise)
# states that wait for the protocol's verdict on the line just handed over
_VERDICT: Final = frozenset(s for s in range(len(M.STATES)) if _NEXT[s][M.SY_READ] >= 0)
# the framer feeds the verdict after the other actions of a transition have run
assert all(acts.index(_DISPATCH) == len(acts) - 1 for row in _DO for acts in row if _DISPATCH in acts)
# an object line inside the stream stays there and is dispatched: feed() takes it so
assert _NEXT[_ST_LINES][_SY_OBJECT] == _ST_LINES and _DO[_ST_LINES][_SY_OBJECT] == (_DISPATCH,)


def _symbol(line: bytes) -> int:
    """The kind of one line (without its `\\n`)."""
    if line[:1] == b"{":  # nearly every line of a stream
        return _SY_OBJECT
    stripped = line.lstrip(_SPACE)
    if not stripped:
        return _SY_BLANK
    return _SY_OBJECT if stripped[0] == 123 else _SY_OTHER


class NDJSONFramer:
    """Incremental NDJSON framer: `feed(bytes)` as bytes arrive, `eof()` at the end.

    `body` holds the lines that are no JSON object seen before any object line (about
    1 MiB at most); the first object line empties it for good, so a non-empty body at
    the end means the response was no stream of JSON lines.
    """

    __slots__ = (
        "_bom",
        "_pending",
        "_pending_size",
        "_status",
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
        # the sink's run taker (the decoder sets it when the sink has one): the lines
        # of a push are offered to it before each goes to `sink`
        self.run: RunSink | None = None
        self.protocol = protocol
        self.max_frame = max_frame
        self.state = M.INITIAL
        self.closed = False  # the stream is over: lines are counted, not read
        self.skipped = 0  # junk lines
        self.ignored = 0  # lines after the end
        self.cut = False  # the body stopped inside a line
        self.body: list[str] = []
        self.body_size = 0
        self._bom: bytes | None = b""  # the start of the body while BOMs may still come
        self._pending = bytearray()  # the incomplete last line (one buffer: see sse.py)
        self._pending_size = 0
        self._status = _NO_STATUS  # what the last dispatch came to

    @property
    def state_name(self) -> str:
        return M.STATES[self.state]

    def close(self) -> None:
        """The stream ended for reasons of the decoder's own: count lines from now on."""
        self.closed = True

    def body_text(self) -> str:
        """The body that was no stream of JSON lines: its lines, blank ones left out."""
        return "\n".join(line for line in self.body if line.strip()).strip()

    # --- bytes in ----------------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        """Consume bytes; complete lines are framed now, an incomplete line waits."""
        if not data or self.state == _ST_ENDED:
            return
        if self._bom is not None:
            data = self._past_boms(data)
            if not data:
                return
        if find(data, b"\n") < 0:
            self._hold(data)
            return
        if self._pending:
            data = b"".join((self._pending, data))
            self._pending = bytearray()
            self._pending_size = 0
        lines = data.split(b"\n")
        rest = lines.pop()  # what follows the last line end: an incomplete line, or nothing
        max_frame = self.max_frame
        # no line of a push within the cap is over it: a run of them needs no check
        runs = len(data) <= max_frame
        n = 0
        count = len(lines)
        while n < count:
            line = lines[n]
            if len(line) > max_frame:
                raise FrameTooLargeError(self.protocol, self.state_name, "line", len(line), max_frame)
            symbol = _symbol(line)
            if symbol == _SY_OBJECT and self.state == _ST_LINES:  # nearly every line: the table's loop
                run = self.run  # read each time, as the sink: a sink may hand over to another
                if run is not None and runs and not self.closed:
                    taken = run(None, lines, n)
                    if taken > n:  # each line it took was an object line, FRAME_OK
                        self._status = FRAME_OK
                        n = taken
                        continue
                self.state = _NEXT[_ST_LINES][_SY_OBJECT]
                self._dispatch(line)
            else:
                self._fire(symbol, line)
            n += 1
        if rest:
            self._hold(rest)

    def eof(self) -> None:
        """End of input: the last line is handled without its `\\n`, and `cut` says
        whether the body stopped inside it."""
        if self.state == _ST_ENDED:
            return
        tail = bytes(self._pending)
        self._pending = bytearray()
        if self._bom is not None:
            tail = self._bom + tail
            while tail.startswith(BOM):
                tail = tail[3:]
            self._bom = None
        if tail:
            symbol = _symbol(tail)
            self._fire(_SY_TAIL if symbol == _SY_OBJECT else symbol, tail)
        self._fire(_SY_EOF, b"")

    def _verdict(self, symbol: int, line: bytes) -> int:
        """read, broken or cut: what the protocol made of the line (or tail) handed over."""
        if self._status != FRAME_JUNK:
            return M.SY_READ
        if symbol != _SY_TAIL:
            return M.SY_BROKEN  # a whole line that does not parse
        nesting = Nesting()
        nesting.feed(line.decode("utf-8", "replace"))
        return M.SY_BROKEN if nesting.complete else M.SY_CUT

    def _past_boms(self, data: bytes) -> bytes:
        """`data` without the body's leading BOMs; a partial BOM waits for its rest."""
        self._bom, data = past_boms(self._bom or b"", data)
        return data

    def _hold(self, piece: bytes) -> None:
        """Keep the start of an incomplete line; it may not grow past the cap."""
        self._pending += piece
        self._pending_size += len(piece)
        if self._pending_size > self.max_frame:
            raise FrameTooLargeError(self.protocol, self.state_name, "line", self._pending_size, self.max_frame)

    # --- the table ---------------------------------------------------------------------

    def _fire(self, symbol: int, line: bytes) -> None:
        state = self.state
        self.state = _NEXT[state][symbol]
        for action in _DO[state][symbol]:
            if action == _DISPATCH:
                self._dispatch(line)
                if self.state in _VERDICT:  # the protocol's verdict is the next symbol
                    self._fire(self._verdict(symbol, line), line)
            elif action == M.A_SKIP_LINE:
                if self.closed:
                    self.ignored += 1
                else:
                    self.skipped += 1
            elif action == M.A_KEEP_BODY_LINE:
                if self.body_size < BODY_CAP:
                    self.body.append(line.decode("utf-8", "replace").rstrip("\r"))
                    self.body_size += len(line) + 1
            elif action == M.A_DROP_BODY:
                self.body = []
                self.body_size = 0
            elif action == M.A_MARK_CUT:
                if not self.closed:
                    self.cut = True
            else:
                raise AssertionError(f"ndjson: no code for action {M.ACTIONS[action]}")

    def _dispatch(self, line: bytes) -> None:
        if self.closed:
            self.ignored += 1
            self._status = FRAME_OVER
            return
        status = self.sink(None, line)
        self._status = status
        if status == FRAME_JUNK:
            if self.state not in _VERDICT:  # the verdict decides what the line was
                self.skipped += 1
        elif status == FRAME_OVER:
            self.closed = True
