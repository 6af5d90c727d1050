# Server-sent-events framing: bytes in, frames out (machine: machines/sse.py).
#
# Line ends (`\n`, `\r\n`, a lone `\r`) are found with `bytes.find` (a C function in the
# compiled build, unievent._search), and no byte is searched twice: an incomplete line
# waits as a list of pieces (no line end in any of them) and is joined once, when its
# end arrives, so a long line fed in small pieces costs linear time.  Pushes that
# contain a `\r` are first rewritten to `\n` endings (C-speed `replace`); a `\r` that
# ends a push is held back, since it may be half of `\r\n`.  Whole `data:` frames with
# CRLF ends, before that, are split as they are (`_crlf_frames`): the rewrite would only
# copy them.  Every leading BOM of the body is removed, however the pushes split them.
#
# Each complete line is classified into a symbol of machines/sse.py and fed to the
# generated table, whose actions run in `_line_by_line`; nothing here decides which
# line kind is allowed where.  Whole frames (`data: X` or `event: E` + `data: X`) take
# a shortcut, split on blank lines in C, but only in states where the table composes
# those lines into exactly one dispatch and nothing (no data, no event name) is pending
# (`_SHORTCUT_DEST`, derived from the table at import).
#
# Caps: a line (its bytes without the line end, `data: ` included) longer than
# `max_frame` raises FrameTooLargeError whether it arrived whole or in pieces; so does a
# frame whose data (its data lines' values joined by LF) adds up past it, counted as
# they arrive, never recounted.  A shortcut takes only bytes within the cap as a whole,
# so it never reads what the table would refuse.
#
# A dispatched frame goes to `sink(event, payload)` (see _framing/__init__.py); a run of
# whole frames is first offered to `run`, when the sink has one.  A
# frame of several data lines that is not JSON as a whole is retried line by line
# (gateways that drop the blank line between events).  Once the sink says the stream
# is over, frames are still split, only to be counted (`ignored`).  At end of input a
# frame left open is dispatched; if the body stopped inside a frame that does not
# parse (or inside an `event:` frame, or a line), `cut` is set.
from __future__ import annotations

from typing import Final

from unievent._errors import FrameTooLargeError
from unievent._framing import BOM, FRAME_JUNK, FRAME_OK, FRAME_OVER, FrameSink, RunSink, past_boms
from unievent._generated import sse as M
from unievent._search import find, rfind

__all__ = ["BODY_CAP", "DEFAULT_MAX_FRAME", "SSEFramer"]

DEFAULT_MAX_FRAME: Final = 16 * 1024 * 1024
# the most a push may leave of an unfinished frame for the next push, unread (more
# goes through the table line by line); not Final: tests set it to 0, so that every
# line goes through the table at the push that completes it
_DEFER_MAX: int = 64 * 1024
BODY_CAP: Final = 1024 * 1024

# Final: where this module is compiled (mypyc), these are C statics read without a
# dictionary lookup; read as globals they would be looked up and type-checked per use.
_FIELDS: Final = {b"data": M.SY_DATA, b"event": M.SY_EVENT, b"id": M.SY_ID, b"retry": M.SY_RETRY}
_SY_DATA: Final = M.SY_DATA
_SY_BLANK: Final = M.SY_BLANK
_SY_COMMENT: Final = M.SY_COMMENT
_SY_OTHER: Final = M.SY_OTHER
_SY_EOF: Final = M.SY_EOF
_SY_EVENT: Final = M.SY_EVENT
_ST_GATHER: Final = M.ST_GATHER
_ST_ENDED: Final = M.ST_ENDED
_NEXT: Final = M.NEXT
_DO: Final = M.DO
_APPEND: Final = M.A_APPEND_DATA
_DISPATCH: Final = M.A_DISPATCH
_SET_EVENT: Final = M.A_SET_EVENT
_CLEAR_EVENT: Final = M.A_CLEAR_EVENT
_HOLDING: Final = (_APPEND, _SET_EVENT)  # actions after which something waits for a dispatch
_RELEASING: Final = (_DISPATCH, _CLEAR_EVENT)  # actions that let it go
_NO_STATUS: Final = -1  # no dispatch yet (a FRAME_* status otherwise)


def _compose(state: int, symbols: tuple[int, ...]) -> tuple[int, tuple[int, ...]]:
    """Where a sequence of line symbols leads from `state`, and the actions it runs."""
    actions: tuple[int, ...] = ()
    for symbol in symbols:
        if state < 0:
            return -1, ()
        actions += _DO[state][symbol]
        state = _NEXT[state][symbol]
    return state, actions


def _states_holding() -> frozenset[int]:
    """States in which data lines or an event name may wait for their dispatch."""
    holding: set[int] = set()
    changed = True
    while changed:
        changed = False
        for s, row in enumerate(_DO):
            for y, actions in enumerate(row):
                dest = _NEXT[s][y]
                if dest < 0 or dest in holding:
                    continue
                held = s in holding
                for action in actions:
                    if action in _HOLDING:
                        held = True
                    elif action in _RELEASING:
                        held = False
                if held:
                    holding.add(dest)
                    changed = True
    return frozenset(holding)


_HOLDING_STATES: Final = _states_holding()


def _shortcut_dest(state: int) -> int:
    """Where a whole `data:` frame, or `event:` + `data:` frame, leads from `state`
    when the table makes each exactly "(remember the name,) gather, dispatch" and
    nothing is pending; -1 otherwise (the framer then goes line by line)."""
    if state in _HOLDING_STATES:
        return -1
    dest, actions = _compose(state, (_SY_DATA, _SY_BLANK))
    named = _compose(state, (_SY_EVENT, _SY_DATA, _SY_BLANK))
    if actions == (_APPEND, _DISPATCH) and named == (dest, (_SET_EVENT, _APPEND, _DISPATCH)):
        return dest
    return -1


# not Final: tests swap it (a compiled framer reads Final names from C statics)
_SHORTCUT_DEST: tuple[int, ...] = tuple(_shortcut_dest(s) for s in range(len(M.STATES)))
# the framer dispatches after the other actions of a transition have run
assert all(acts.index(_DISPATCH) == len(acts) - 1 for row in _DO for acts in row if _DISPATCH in acts)


def _one_shape_payloads(run: bytes, skip: int, starts: bytes) -> list[bytes] | None:
    """The payloads of `run`, whole frames all of one shape: the first from `skip` on,
    each next after one of `starts` (the blank line, then all that comes before every
    payload).  None when a payload holds a newline: then a blank line lies elsewhere, or
    a frame has more lines, and the run is not of that shape.  Split in one call and
    checked with one memchr over the payloads joined; `run` itself is not copied (its
    first frame's head cannot hold `starts`, which begins with a blank line)."""
    payloads = run.split(starts)
    payloads[0] = payloads[0][skip:]
    return None if find(b"".join(payloads), b"\n") >= 0 else payloads


class SSEFramer:
    """Incremental SSE framer: `feed(bytes)` as bytes arrive, `eof()` at the end.

    `body` holds the non-SSE lines seen before any SSE line (about 1 MiB at most);
    the first `data:` or `event:` line empties it for good, so a non-empty body at
    the end means the response was not an event stream.
    """

    __slots__ = (
        "_bom",
        "_cr",
        "_data",
        "_data_size",
        "_deferred",
        "_event",
        "_heads",
        "_lines_of_data",
        "_more",
        "_names",
        "_names_of_lines",
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

    def __init__(self, sink: FrameSink, protocol: str, max_frame: int = DEFAULT_MAX_FRAME) -> None:
        self.sink = sink
        # the sink's run taker (the decoder sets it when the sink has one): a run of
        # whole frames is offered to it before each frame goes to `sink`
        self.run: RunSink | None = None
        self.protocol = protocol
        self.max_frame = max_frame
        self.state = M.INITIAL
        self.closed = False  # the stream is over: frames are counted, not read
        self.skipped = 0  # frames that were not JSON
        self.ignored = 0  # frames after the end
        self.cut = False  # the body stopped inside a frame
        self.body: list[str] = []
        self.body_size = 0
        self._bom: bytes | None = b""  # the start of the body while BOMs may still come
        self._cr = False  # the last byte fed was a `\r` (its `\n` may follow)
        # the incomplete last line: one buffer, not a piece per push (pushed a byte at a
        # time, a list of pieces would hold some 40 bytes for each byte of the line)
        self._pending = bytearray()
        self._pending_size = 0
        # the complete lines of a frame that has not ended, kept for the next push
        # (with what follows them) instead of going through the table now: once its
        # blank line arrives, the frame takes the shortcut with the frames after it
        self._deferred = b""
        # the open frame's data: its first line as it is, and once a second arrives all
        # of them joined by LF in one buffer, so that a frame of many short lines is
        # held in about its own size (a list would hold some 40 bytes a line more)
        self._data = b""
        self._more = bytearray()
        self._lines_of_data = 0
        self._data_size = 0
        self._event: str | None = None
        self._names: dict[bytes, str] = {}  # event: value -> name
        self._heads: dict[bytes, str] = {}  # `event: NAME\n` -> NAME
        self._names_of_lines: dict[bytes, str] = {}  # `event: NAME` -> NAME
        self._status = _NO_STATUS  # what the last dispatch came to

    @property
    def state_name(self) -> str:
        return M.STATES[self.state]

    def close(self) -> None:
        """The stream ended for reasons of the decoder's own: count frames from now on."""
        self.closed = True

    def body_text(self) -> str:
        """The non-SSE body: its lines without blanks and comments."""
        return "\n".join(line for line in self.body if line.strip() and not line.startswith(":")).strip()

    # --- bytes in ----------------------------------------------------------------------

    def feed(self, data: bytes) -> None:
        """Consume bytes; complete lines are framed now, an incomplete line waits."""
        if not data or self.state == _ST_ENDED:
            return
        if self._bom is not None:
            data = self._past_boms(data)
            if not data:
                return
        if self._cr:
            data = b"\r" + data
            self._cr = False
        if find(data, b"\r") >= 0:
            if data[-1] == 13:
                self._cr = True
                data = data[:-1]
            data = self._crlf_frames(data)
            data = data.replace(b"\r\n", b"\n").replace(b"\r", b"\n")
        nl = find(data, b"\n")
        if nl < 0:
            self._hold(data)
            return
        if self._pending or self._deferred:
            deferred = self._deferred
            head = deferred + self._pending
            self._deferred = b""
            self._pending.clear()  # (its bytes were copied into `head`)
            self._pending_size = 0
            nl = find(deferred, b"\n") if deferred else nl + len(head)
            data = head + data
        self._lines(data, nl)

    def _crlf_frames(self, data: bytes) -> bytes:
        """Whole `data:` frames written with CRLF line ends (Gemini's records), taken
        as they are: the rest of `data`, or all of it when they are not there.

        Where the held line and `data` start a run of such frames, and the table is at
        a frame's start, the bytes up to the last CRLF CRLF are split where each frame
        starts; when no payload holds a CR or an LF, rewriting them to LF ends would
        give exactly the run of `data:` frames `_uniform` takes, with these payloads.
        So they are taken as if the push had ended after that blank line, and only
        what follows it is rewritten: one copy of a few bytes instead of the push."""
        if self._deferred or self.closed:
            return data
        dest = _SHORTCUT_DEST[self.state]
        if dest < 0:
            return data
        pending = self._pending
        buf = b"".join((pending, data)) if pending else data
        last = rfind(buf, b"\r\n\r\n")
        if last < 0 or last > self.max_frame or buf[:6] != b"data: ":
            return data
        payloads = buf[:last].split(b"\r\n\r\ndata: ")
        payloads[0] = payloads[0][6:]
        joined = b"".join(payloads)
        if find(joined, b"\n") >= 0 or find(joined, b"\r") >= 0:
            return data
        self._pending = bytearray()
        self._pending_size = 0
        self._take_run(payloads, None, dest)
        return buf[last + 4 :]

    def eof(self) -> None:
        """End of input: the last line and the last frame are handled without their
        terminators, and `cut` says whether the body stopped inside a frame."""
        if self.state == _ST_ENDED:
            return
        deferred = self._deferred
        if deferred:  # its complete lines go through the table as a push would have
            self._deferred = b""
            cut = rfind(deferred, b"\n") + 1
            if cut < len(deferred):
                self._pending[0:0] = deferred[cut:]
            self._line_by_line(deferred[:cut], 0, find(deferred, b"\n"))
        tail = bytes(self._pending)
        self._pending = bytearray()
        if self._bom is not None:
            tail = self._bom + tail
            while tail.startswith(BOM):
                tail = tail[3:]
            self._bom = None
        unterminated = bool(tail) and not self._cr and tail[:1] != b":"
        # not None: mypy would narrow the attribute to None past the calls below
        # that set it, and a compiled (mypyc) framer checks that narrowed type
        self._status = _NO_STATUS
        if tail or self._cr:
            self._cr = False
            self._line_by_line(tail + b"\n", 0, -1)
        open_frame = self.state == _ST_GATHER
        closed = self.closed
        state = self.state
        self.state = _NEXT[state][_SY_EOF]
        for action in _DO[state][_SY_EOF]:
            if action == _DISPATCH:
                self._dispatch()
            else:
                self._run_action(action, b"")
        if (unterminated or open_frame) and not closed and self._status not in (FRAME_OK, FRAME_OVER):
            self.cut = True

    def _past_boms(self, data: bytes) -> bytes:
        """`data` without the body's leading BOMs; a partial BOM waits for its rest."""
        self._bom, data = past_boms(self._bom or b"", data)
        return data

    def _hold(self, piece: bytes) -> None:
        """Keep the start of an incomplete line; it may not grow past the cap."""
        if piece:
            self._pending += piece
            self._pending_size += len(piece)
            if self._pending_size > self.max_frame:
                raise FrameTooLargeError(self.protocol, self.state_name, "line", self._pending_size, self.max_frame)

    # --- lines and frames ------------------------------------------------------------

    def _lines(self, buf: bytes, nl: int) -> None:
        """Frame every complete line of `buf` (which starts a line, has a line end at
        `nl` and none before it); keep the incomplete rest.

        Where a frame is open (a push that ends inside a frame leaves one), its lines
        go through the table one by one up to its blank line; the whole frames after
        it take the shortcut again."""
        pos = 0
        if _SHORTCUT_DEST[self.state] < 0 and not self.closed:
            # the blank line that ends the open frame: at `pos` itself, or after a line
            end = 1 if nl == 0 else find(buf, b"\n\n", nl) + 2
            if end < 2 and nl != 0:
                self._line_by_line(buf, 0, nl)  # no blank line: the frame stays open
                return
            self._line_by_line(buf[:end], 0, nl)
            if end == len(buf):
                return
            pos = end
            nl = find(buf, b"\n", pos)
            if nl < 0:
                self._hold(buf[pos:])
                return
        if _SHORTCUT_DEST[self.state] >= 0 and not self.closed:
            last = rfind(buf, b"\n\n", nl)
            if last >= 0 and last >= pos:
                self._frames(buf[pos:last])
                pos = last + 2
                if pos < len(buf):
                    nl = find(buf, b"\n", pos)
                    if nl < 0:
                        self._hold(buf[pos:])
                        return
                else:
                    return
            # kept only while it holds less than the frame cap, so that the cap is
            # crossed at the same push as when its lines are read at once
            rest = len(buf) - pos
            if rest <= _DEFER_MAX and rest <= self.max_frame and _SHORTCUT_DEST[self.state] >= 0 and not self.closed:
                self._defer(buf[pos:])
                return
        self._line_by_line(buf, pos, nl)

    def _defer(self, rest: bytes) -> None:
        """Keep `rest` (a frame's complete lines, then maybe the start of a line) for
        the next push; its incomplete line counts toward the line cap as if held."""
        self._deferred = rest
        self._pending_size = len(rest) - rfind(rest, b"\n") - 1

    def _frames(self, complete: bytes) -> None:
        """Whole frames, split on blank lines in C.  A frame `data: X` or `event: E` +
        `data: X` in a state where the table composes its lines into exactly one
        dispatch (_SHORTCUT_DEST) is dispatched at once; any other frame goes through
        the table line by line."""
        blocks: list[bytes] | None = None
        if _SHORTCUT_DEST[self.state] >= 0 and not self.closed and len(complete) <= self.max_frame:
            blocks = self._uniform(complete, _SHORTCUT_DEST[self.state])
            if blocks is None:
                return
        state = self.state
        heads = self._heads
        max_frame = self.max_frame
        for block in complete.split(b"\n\n") if blocks is None else blocks:
            dest = _SHORTCUT_DEST[state]
            payload = None
            if dest >= 0 and not self.closed:
                # one C call splits `data: X` and `event: NAME\ndata: X`; the few
                # `event: NAME\n` heads of a stream are checked once, then looked up
                # a block within the cap holds no line and no data over it; a longer
                # one goes line by line, where each line and the data are measured
                head, found, rest = block.partition(b"data: ")
                if found and find(rest, b"\n") < 0 and len(block) <= max_frame:
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
                self.state = state
                self._line_by_line(block + b"\n\n", 0, find(block, b"\n"))
                state = self.state
                continue
            state = dest
            status = self.sink(event, payload)  # read each time: a sink may hand over to another
            self._status = status
            if status == FRAME_OVER:
                self.closed = True
            elif status == FRAME_JUNK:
                self.skipped += 1
        self.state = state

    def _uniform(self, complete: bytes, dest: int) -> list[bytes] | None:
        """Frames all of one shape, recognized in C instead of one by one: every frame
        `data: X`, or every frame `event: E` + `data: X`.  A run of `data:` frames is
        split where each frame starts (a blank line, then `data: `), and is such a run
        exactly when no payload holds a newline: one memchr over them joined, where a
        split at every newline would look at each byte in turn.  A run of `event:`
        frames of one name is split the same way (`_one_name_run`); any other is split
        on blank lines, each frame once at its `\ndata: `, and is such
        a run when no payload holds a newline and every head is one `event:` line; the
        frames up to the first with no `\ndata: ` (a stream's last `data: [DONE]`)
        may form the run.  Returns the frames it did not take (all of them, split on
        blank lines, when it took none; None: it took them all)."""
        rest: list[bytes] = []
        if complete.startswith(b"data: "):
            data_run = _one_shape_payloads(complete, 6, b"\n\ndata: ")
            if data_run is None:
                return complete.split(b"\n\n")
            payloads = data_run
            names: list[bytes] | None = None
        elif complete.startswith(b"event: "):
            if self._one_name_run(complete, dest):
                return None
            heads: list[bytes] = []
            payloads = []
            blocks = complete.split(b"\n\n")
            for block in blocks:
                head, found, payload = block.partition(b"\ndata: ")
                if not found:
                    rest = blocks[len(heads) :]  # the frames from this one on go through the table
                    break
                heads.append(head)
                payloads.append(payload)
            if not heads or find(b"".join(payloads), b"\n") >= 0:
                return blocks  # a frame of more lines
            # every head one `event:` line (their names are read only for the sink):
            # the first checked alone when all are equal, as in a run of deltas;
            # otherwise none holds a newline, so each `\nevent: ` of them joined
            # starts one
            first = heads[0]
            k = len(heads) - 1
            if heads.count(first) == k + 1:
                if find(first, b"\n") >= 0:  # (it starts `event: `, as `complete` does)
                    return blocks
            elif find(b"".join(heads), b"\n") >= 0 or b"\n".join(heads).count(b"\nevent: ") != k:
                return blocks
            names = heads
        else:
            return complete.split(b"\n\n")
        self._take_run(payloads, names, dest)
        return rest or None

    def _one_name_run(self, complete: bytes, dest: int) -> bool:
        """`_uniform` for a run of `event:` frames all of one name, which is most runs of
        a push: split in one call where each frame after the first starts (a blank
        line, the first frame's `event:` line, `\ndata: `).  When no payload holds a
        newline, every blank line of the run is one of those starts, so the run is
        exactly those frames and payloads, as a split at each blank line would find
        them.  Tried only when the last frame starts as the first does (a run of
        several names costs one slice then); False: it took nothing."""
        line_end = find(complete, b"\n")
        if line_end < 0 or complete[line_end : line_end + 7] != b"\ndata: ":
            return False
        head = complete[:line_end]
        starts = b"\n\n" + head + b"\ndata: "
        last = rfind(complete, b"\n\n")
        if last >= 0 and complete[last : last + len(starts)] != starts:
            return False
        payloads = _one_shape_payloads(complete, line_end + 7, starts)
        if payloads is None:
            return False
        self._take_run(payloads, [head] * len(payloads), dest)
        return True

    def _take_run(self, payloads: list[bytes], names: list[bytes] | None, dest: int) -> None:
        """Dispatch a run of whole frames (their payloads, and their `event:` lines or
        None), offering it to the run taker first; `dest` is the state after each."""
        self.state = dest
        status = FRAME_OK
        n = 0
        count = len(payloads)
        while n < count:
            run = self.run  # read each time, as the sink: a sink may hand over to another
            if run is not None:
                taken = run(names, payloads, n)
                if taken > n:  # every frame it took was FRAME_OK
                    n = taken
                    status = FRAME_OK
                    continue
            status = self.sink(None if names is None else self._line_name(names[n]), payloads[n])
            if status:
                if status == FRAME_JUNK:
                    self.skipped += 1
                else:  # the stream is over: the frames after it are only counted
                    self.closed = True
                    for later in payloads[n + 1 :]:
                        self._ignore(later)
                    break
            n += 1
        self._status = status

    def _line_by_line(self, buf: bytes, pos: int, nl: int) -> None:
        """The table, one line at a time: the one place where its actions run.
        `nl` is the first line end at or after `pos` (or -1)."""
        if nl < pos:
            nl = find(buf, b"\n", pos)
        max_frame = self.max_frame
        while nl >= 0:
            if nl - pos > max_frame:
                raise FrameTooLargeError(self.protocol, self.state_name, "line", nl - pos, max_frame)
            line = buf[pos:nl]
            pos = nl + 1
            nl = find(buf, b"\n", pos)
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
            state = self.state
            self.state = _NEXT[state][symbol]
            for action in _DO[state][symbol]:
                if action == _APPEND:
                    lines = self._lines_of_data
                    size = self._data_size + len(value) + (1 if lines else 0)
                    if size > max_frame:
                        raise FrameTooLargeError(self.protocol, M.STATES[state], "frame", size, max_frame)
                    self._data_size = size
                    if not lines:
                        self._data = value
                    else:
                        more = self._more
                        if lines == 1:
                            more += self._data
                            self._data = b""
                        more += b"\n"
                        more += value
                    self._lines_of_data = lines + 1
                elif action == _DISPATCH:  # always the last action (checked at import)
                    self._dispatch()
                elif action == _SET_EVENT:
                    name = self._names.get(value)
                    self._event = name if name is not None else self._name_of(value)
                else:
                    self._run_action(action, value)
        if pos < len(buf):
            self._hold(buf[pos:])

    def _dispatch(self) -> None:
        lines = self._lines_of_data
        payload = self._data if lines < 2 else bytes(self._more)
        event = self._event
        self._data = b""
        if lines > 1:
            self._more = bytearray()
        self._lines_of_data = 0
        self._data_size = 0
        self._event = None
        if self.closed:
            self._ignore(payload)
            return
        status = self.sink(event, payload)
        if status == FRAME_JUNK:
            if lines > 1:
                # events that lost their blank line: each line is a frame of its own
                status = self._each_line(event, payload.split(b"\n"))
            else:
                self.skipped += 1
        elif status == FRAME_OVER:
            self.closed = True
        self._status = status

    def _each_line(self, event: str | None, lines: list[bytes]) -> int:
        status = FRAME_OK
        for line in lines:
            if self.closed:
                self._ignore(line)
                continue
            status = self.sink(event, line)
            if status == FRAME_JUNK:
                self.skipped += 1
            elif status == FRAME_OVER:
                self.closed = True
        return status

    def _ignore(self, payload: bytes) -> None:
        """Count a frame after the end (a trailing `[DONE]` is no frame of content)."""
        stripped = payload.strip()
        if stripped and stripped != b"[DONE]":
            self.ignored += 1

    def _name_of(self, value: bytes) -> str:
        """Decode an event name, remembering the few a stream uses (bounded)."""
        name = value.decode("utf-8", "replace").strip()
        if len(self._names) < 64:
            self._names[value] = name
        return name

    def _line_name(self, line: bytes) -> str:
        """The event name of a whole `event: NAME` line, remembering the few a stream uses."""
        known = self._names_of_lines
        name = known.get(line)
        if name is None:
            name = line[7:].decode("utf-8", "replace").strip()
            if len(known) < 64:
                known[line] = name
        return name

    def _frame_head(self, head: bytes) -> str | None:
        """The event name of a frame head `event: NAME\\n` (the line before a single
        `data:` line), or None when the head is anything else (the frame then goes
        line by line)."""
        if not (head.startswith(b"event: ") and find(head, b"\n") == len(head) - 1 and len(head) <= self.max_frame):
            return None
        name = head[7:-1].decode("utf-8", "replace").strip()
        if len(self._heads) < 64:
            self._heads[head] = name
        return name

    # --- the other actions, by the names in machines/sse.py ------------------------------

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
        elif action == M.A_MARK_CUT:
            if not self.closed:
                self.cut = True
        else:
            raise AssertionError(f"sse: no code for action {M.ACTIONS[action]}")


def _field(line: bytes) -> tuple[int, bytes]:
    """Symbol and value of a line that is not data, blank or a comment."""
    colon = find(line, b":")
    if colon < 0:
        return _FIELDS.get(line, _SY_OTHER), b"" if line in _FIELDS else line
    symbol = _FIELDS.get(line[:colon], _SY_OTHER)
    if symbol == _SY_OTHER:
        return symbol, line
    return symbol, line[colon + 2 :] if line[colon + 1 : colon + 2] == b" " else line[colon + 1 :]
