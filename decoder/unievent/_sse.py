# Server-sent-events framing: bytes in, frames out.
#
# Line ends (`\n`, `\r\n`, a lone `\r`) are found with `bytes.find` on a buffer that
# is never rescanned: the carried remainder holds no line end, so each search starts
# where the new bytes begin.  Buffers that contain a `\r` are first rewritten to `\n`
# endings (C-speed `replace`); a `\r` that ends the buffer is held back, since it may
# be half of `\r\n`.  Each complete line is classified into a symbol of machines/sse.py
# and fed to the generated table; the actions it names run inline (the common ones)
# or in `_rare_action`.  Nothing here decides which line kind is allowed where.
#
# A dispatched frame's data is parsed as JSON here, once, with orjson: objects go to
# `on_object(event, obj)`; everything else (`[DONE]`, junk, lines that lost their
# blank line) to `on_other(event, lines, payload)`.  Either returns True when the
# stream is over; every later byte is then ignored.
from __future__ import annotations

from collections.abc import Callable
from typing import Any

import orjson

from unievent._errors import FrameTooLargeError
from unievent._generated import sse as M

__all__ = ["BODY_CAP", "DEFAULT_MAX_FRAME", "SSEFramer"]

DEFAULT_MAX_FRAME = 16 * 1024 * 1024
BODY_CAP = 1024 * 1024

_BOM = b"\xef\xbb\xbf"
_FIELDS = {b"data": M.SY_DATA, b"event": M.SY_EVENT, b"id": M.SY_ID, b"retry": M.SY_RETRY}
_SY_DATA = M.SY_DATA
_SY_BLANK = M.SY_BLANK
_SY_COMMENT = M.SY_COMMENT
_SY_OTHER = M.SY_OTHER
_SY_EOF = M.SY_EOF
_SY_EVENT = M.SY_EVENT
_SET_EVENT = M.A_SET_EVENT
_NEXT = M.NEXT
_DO = M.DO
_APPEND = M.A_APPEND_DATA
_DISPATCH = M.A_DISPATCH
_loads = orjson.loads
_JSONDecodeError = orjson.JSONDecodeError


def _compose(state: int, symbols: tuple[int, ...]) -> tuple[int, tuple[int, ...]]:
    """Where a sequence of line symbols leads from `state`, and the actions it runs."""
    actions: tuple[int, ...] = ()
    for symbol in symbols:
        if state < 0:
            return -1, ()
        actions += _DO[state][symbol]
        state = _NEXT[state][symbol]
    return state, actions


def _states_holding_data() -> frozenset[int]:
    """States in which gathered data lines may be waiting for their dispatch."""
    holding: set[int] = set()
    changed = True
    while changed:
        changed = False
        for s, row in enumerate(_DO):
            for y, actions in enumerate(row):
                dest = _NEXT[s][y]
                if dest < 0 or dest in holding or _DISPATCH in actions:
                    continue
                if _APPEND in actions or s in holding:
                    holding.add(dest)
                    changed = True
    return frozenset(holding)


def _block_dest(state: int) -> int:
    """Where a whole `data:` frame, or `event:` + `data:` frame, leads from `state`
    when the table makes each exactly "(remember the name,) gather, dispatch" and no
    earlier data is waiting; -1 otherwise (the framer then goes line by line)."""
    if state in _states_holding_data():
        return -1
    dest, actions = _compose(state, (_SY_DATA, _SY_BLANK))
    named = _compose(state, (M.SY_EVENT, _SY_DATA, _SY_BLANK))
    if actions == (_APPEND, _DISPATCH) and named == (dest, (M.A_SET_EVENT, _APPEND, _DISPATCH)):
        return dest
    return -1


_BLOCK_DEST = tuple(_block_dest(s) for s in range(len(M.STATES)))
# the framer dispatches after the other actions of a transition have run
assert all(acts.index(_DISPATCH) == len(acts) - 1 for row in _DO for acts in row if _DISPATCH in acts)

ObjectSink = Callable[[str | None, dict[str, Any]], bool]
OtherSink = Callable[[str | None, list[bytes], bytes], bool]


class SSEFramer:
    """Incremental SSE framer: `feed(bytes)` as bytes arrive, `eof()` at the end.

    `body` holds the non-SSE lines seen before any SSE line (about 1 MiB at most);
    the first `data:` or `event:` line empties it for good, so a non-empty body at
    the end means the response was not an event stream.
    """

    __slots__ = (
        "_bom_pending",
        "_data",
        "_event",
        "_heads",
        "_names",
        "_rest",
        "body",
        "body_size",
        "closed",
        "max_frame",
        "on_object",
        "on_other",
        "protocol",
        "state",
    )

    def __init__(
        self, on_object: ObjectSink, on_other: OtherSink, protocol: str, max_frame: int = DEFAULT_MAX_FRAME
    ) -> None:
        self.on_object = on_object
        self.on_other = on_other
        self.protocol = protocol
        self.max_frame = max_frame
        self.state = M.INITIAL
        self.closed = False
        self.body: list[str] = []
        self.body_size = 0
        self._rest = b""
        self._data: list[bytes] = []
        self._event: str | None = None
        self._names: dict[bytes, str] = {}  # event: value -> name
        self._heads: dict[bytes, str] = {}  # `event: NAME\n` -> NAME
        self._bom_pending = True

    @property
    def state_name(self) -> str:
        return M.STATES[self.state]

    def feed(self, data: bytes) -> None:
        """Consume bytes; complete lines are framed now, a partial line waits."""
        if self.closed or not data:
            return
        rest = self._rest
        buf = rest + data if rest else data
        scan_from = len(rest)
        if self._bom_pending:
            if len(buf) < 3 and _BOM.startswith(buf):
                self._rest = buf
                return
            while buf.startswith(_BOM):
                buf = buf[3:]
            self._bom_pending = False
            scan_from = 0
        if b"\r" in buf:
            held = buf[-1:] == b"\r"
            if held:
                buf = buf[:-1]
            buf = buf.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
            self._lines(buf, 0)
            if held and not self.closed:
                self._rest += b"\r"
        else:
            self._lines(buf, scan_from)

    def eof(self) -> None:
        """End of input: the last line and the last frame are handled without terminators."""
        if self.closed:
            return
        rest = self._rest
        self._rest = b""
        while rest.startswith(_BOM):
            rest = rest[3:]
        tail = rest.replace(b"\r\n", b"\n").replace(b"\r", b"\n") + b"\n" if rest else b""
        self._lines(tail, 0, eof=True)
        self.closed = True

    def _lines(self, buf: bytes, scan_from: int, eof: bool = False) -> None:
        """Frame every complete line of `buf` (whose line ends are all `\\n`), then
        fire `eof` if asked."""
        pos = 0
        if _BLOCK_DEST[self.state] >= 0:
            # the carried remainder holds no line end: a blank line starts at or
            # after the byte before the new bytes
            last = buf.rfind(b"\n\n", max(scan_from - 1, 0))
            if last >= 0:
                self._frames(buf[:last])
                if self.closed:
                    return
                pos = last + 2
                scan_from = pos
        self._line_by_line(buf, pos, scan_from, eof)

    def _frames(self, complete: bytes) -> None:
        """Whole frames, split on blank lines in C.  A frame `data: X` or `event: E` +
        `data: X` in a state where the table composes its lines into exactly one
        dispatch (_BLOCK_DEST, derived from the table at import) is dispatched at
        once; any other frame goes through the table line by line."""
        heads = self._heads
        max_frame = self.max_frame
        on_object = self.on_object
        state = self.state
        for block in complete.split(b"\n\n"):
            dest = _BLOCK_DEST[state]
            payload = None
            if dest >= 0:
                # one C call splits `data: X` and `event: NAME\ndata: X`; the few
                # `event: NAME\n` heads of a stream are checked once, then looked up
                head, found, rest = block.partition(b"data: ")
                if found and b"\n" not in rest and len(rest) <= max_frame:
                    if not head:
                        event = None
                        payload = rest
                    else:
                        event = heads.get(head)
                        if event is None:
                            event = self._frame_head(head)
                        if event is not None:
                            payload = rest
            if payload is None:
                self._line_by_line(block + b"\n\n", 0, 0, False)
                if self.closed:
                    return
                state = self.state
                continue
            if state != dest:
                self.state = state = dest
            try:
                obj = _loads(payload)
            except _JSONDecodeError:
                over = self.on_other(event, [payload], payload)
            else:
                over = on_object(event, obj) if type(obj) is dict else False
            if over:
                self.closed = True
                return

    def _line_by_line(self, buf: bytes, pos: int, scan_from: int, eof: bool) -> None:
        """The table, one line at a time: the one place where its actions run."""
        find = buf.find
        nl = find(b"\n", max(scan_from, pos))
        max_frame = self.max_frame
        while True:
            if nl >= 0:
                line = buf[pos:nl]
                pos = nl + 1
                # `data:` lines come first: they are nearly every line of a stream
                if line[:5] == b"data:":
                    symbol = _SY_DATA
                    value = line[6:] if line[5:6] == b" " else line[5:]
                elif not line:
                    symbol = _SY_BLANK
                    value = line
                elif line[:6] == b"event:":  # every frame of Anthropic and Responses
                    symbol = _SY_EVENT
                    value = line[7:] if line[6:7] == b" " else line[6:]
                elif line[0] == 58:  # ":"
                    symbol = _SY_COMMENT
                    value = line
                else:
                    symbol, value = _field(line)
                nl = find(b"\n", pos)
            elif eof:
                symbol = _SY_EOF
                value = b""
                eof = False
            else:
                break
            state = self.state
            self.state = _NEXT[state][symbol]
            for action in _DO[state][symbol]:
                if action == _APPEND:
                    data = self._data
                    if data or len(value) > max_frame:
                        self._count_frame(data, value)
                    data.append(value)
                elif action == _DISPATCH:  # always the last action (checked at import)
                    data = self._data
                    event = self._event
                    self._data = []
                    self._event = None
                    payload = data[0] if len(data) == 1 else b"\n".join(data)
                    try:
                        obj = _loads(payload)
                    except _JSONDecodeError:
                        over = self.on_other(event, data, payload)
                    else:
                        over = self.on_object(event, obj) if type(obj) is dict else False
                    if over:
                        self.closed = True
                        return
                elif action == _SET_EVENT:
                    name = self._names.get(value)
                    self._event = name if name is not None else self._name_of(value)
                else:
                    self._run_action(action, value)
        rest = buf[pos:] if pos else buf
        if len(rest) > max_frame:
            raise FrameTooLargeError(self.protocol, self.state_name, "line", len(rest), max_frame)
        self._rest = rest

    def _name_of(self, value: bytes) -> str:
        """Decode an event name, remembering the few a stream uses (bounded)."""
        name = value.decode("utf-8", "replace").strip()
        if len(self._names) < 64:
            self._names[value] = name
        return name

    def _frame_head(self, head: bytes) -> str | None:
        """The event name of a frame head `event: NAME\\n` (the line before a single
        `data:` line), or None when the head is anything else (the frame then goes
        line by line)."""
        if not (head.startswith(b"event: ") and head.find(b"\n") == len(head) - 1):
            return None
        name = head[7:-1].decode("utf-8", "replace").strip()
        if len(self._heads) < 64:
            self._heads[head] = name
        return name

    def _count_frame(self, data: list[bytes], value: bytes) -> None:
        """Raise when a frame's data lines (joined with newlines) pass the cap."""
        size = sum(map(len, data)) + len(data) + len(value)
        if size > self.max_frame:
            raise FrameTooLargeError(self.protocol, self.state_name, "frame", size, self.max_frame)

    # --- actions, by the names in machines/sse.py -------------------------------------

    def _run_action(self, action: int, value: bytes) -> None:
        if action == M.A_CLEAR_EVENT:
            self._event = None
        elif action == M.A_KEEP_BODY_LINE:
            if self.body_size < BODY_CAP:
                self.body.append(value.decode("utf-8", "replace"))
                self.body_size += len(value) + 1
        elif action == M.A_DROP_BODY:
            self.body = []
            self.body_size = 0
        else:
            raise AssertionError(f"sse: no code for action {M.ACTIONS[action]}")


def _field(line: bytes) -> tuple[int, bytes]:
    """Symbol and value of a line that is not data, blank or a comment."""
    colon = line.find(b":")
    if colon < 0:
        return _FIELDS.get(line, _SY_OTHER), b"" if line in _FIELDS else line
    symbol = _FIELDS.get(line[:colon], _SY_OTHER)
    if symbol == _SY_OTHER:
        return symbol, line
    return symbol, line[colon + 2 :] if line[colon + 1 : colon + 2] == b" " else line[colon + 1 :]
