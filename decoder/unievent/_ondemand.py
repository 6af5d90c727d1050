# On-demand parsing of the hot frames: recognize the frame a long answer is made of
# without parsing all of its JSON.
#
# Most frames of a long answer are one shape per protocol (an Anthropic text delta, an
# OpenAI chunk whose only delta is `content`, a Responses `output_text.delta`): the
# same bytes every time but for one JSON string.  A template holds those bytes; a frame
# matches when its bytes equal them wherever they are fixed and what lies in the hole
# parses (orjson) as exactly one JSON string.  Then the whole frame parses to the
# template's object with that string in place, so the handler may apply it as the
# full path would.  Any difference, however small, leaves the frame to the full path.
#
# Besides the string, two fields may change from frame to frame: a counter (Responses
# `sequence_number`), compared byte for byte with the digits of the number the handler
# expects, and a padding string (OpenAI's `obfuscation`, Ollama's `created_at`), which
# no handler reads, accepted when it is ASCII letters, digits and `+-.:` only (so it
# holds no quote, no escape and no control character: the quote that opens or closes
# it is the one nearest the string, and it reads as itself).  Every comparison is one C
# call; a pure-Python loop over a frame's parts would cost more than parsing it.
#
# Templates are learned from a frame the full path parsed (`Template.learn`) and
# trusted only after a frame rebuilt from them, with another string, counter and
# padding, parses back to the learned object with exactly those changed.  Anthropic's
# delta frames are fixed by the protocol and matched in its handler directly.
#
# A Gemini record repeats its usage, which changes from record to record, after the
# text: its template (`ValueTemplate`) has a second hole, a JSON value parsed whole.
#
# A handler's run taker (see RunSink in _framing) takes a run of hot frames in one go,
# under one contract kept by `Runs`: it collects at most a window of frames (their
# holes, by their bytes), parses the holes together, and takes the frames up to the
# first whose hole held no string.  A batch it could not take whole shrinks the window
# to one frame and each batch taken whole doubles it again, so the frames collected
# and not taken cost at most a constant per frame taken: every frame is looked at a
# bounded number of times, however the hot and the odd frames alternate.
#
# `UNIEVENT_SLOW_PATH=1` in the environment turns the fast paths off (the differential
# tests decode everything both ways and require the same result).
from __future__ import annotations

import os
import re
from typing import TYPE_CHECKING, Any, Final

import orjson

from unievent._holes import PAD_FIRST, PAD_LAST
from unievent._holes import holes as matched_holes
from unievent._holes import value_holes as matched_value_holes
from unievent._search import find

if TYPE_CHECKING:
    from unievent._holes import Shape

__all__ = [
    "LETTERS_AND_DIGITS",
    "RUN_MOST",
    "Runs",
    "Template",
    "ValueTemplate",
    "fast_paths_enabled",
    "interpreted",
    "keeping",
    "one_string",
    "scan_back",
    "strings",
]

_loads: Final = orjson.loads
_JSONDecodeError: Final = orjson.JSONDecodeError

_COUNTER_KEY: Final = b'"sequence_number":'
_PAD_NAME: Final = "obfuscation"
_PROBE: Final = 'é \\ x\t\n'  # JSON escapes of several kinds, none before the closing quote
_PROBE_JSON: Final = orjson.dumps(_PROBE)
_PROBE_PAD: Final = "Zz9-:.+"
_PROBE_PAD_BYTES: Final = _PROBE_PAD.encode()
#: ASCII letters and digits
LETTERS_AND_DIGITS: Final = b"0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ"
# what a padding may hold: letters, digits and a timestamp's punctuation
_PLAIN: Final = LETTERS_AND_DIGITS + b"+-.:"


def keeping(allowed: bytes) -> bytes:
    """A `bytes.translate` table that maps each byte of `allowed` to itself and every
    other byte to another: `text.translate(table) == text` says that `text` holds only
    `allowed` bytes, in one call (a table alone is read byte by byte in C; a table of
    bytes to delete is built anew on every call)."""
    return bytes(c if c in allowed else (c + 1) & 0xFF for c in range(256))


# a padding is plain when this table leaves it as it is
_PLAIN_TABLE: Final = keeping(_PLAIN)
_PROBE_VALUE: Final = b'{"probe": [7, "x"]}'
# a JSON value's structure, for finding where one ends (only when learning)
_OUTSIDE: Final = re.compile(rb'["{}\[\],]')
_INSIDE: Final = re.compile(rb'["\\]')
_SPACES: Final = re.compile(rb"[ \t\r\n]*")

# the holes of a template, and where a padding lies
_STRING: Final = 0
_COUNTER: Final = 1
_PAD: Final = 2
_PAD_LAST: Final = PAD_LAST
_PAD_FIRST: Final = PAD_FIRST


def interpreted() -> bool:
    """Whether this build runs as Python source (a compiled module's functions are
    built-in functions; the hot modules are compiled together or not at all)."""
    return type(interpreted).__name__ == "function"


# A counter's digits and the literals around them: compiled, `b"%d" % n` is built
# natively and joined to them; run as Python source, one `%` format of all three costs
# less than the format and two joins
_COMPILED: Final = not interpreted()


def scan_back(payload: bytes, begin: int, end: int, table: bytes) -> int:
    """Where the bytes before `end` that `table` maps to themselves begin (not before
    `begin`).  Only compiled code calls it: there the loop is native and costs less than
    one method call; run as Python source, a loop over bytes is not what to run."""
    at = end - 1
    while at >= begin:
        byte = payload[at]
        if table[byte] != byte:
            break
        at -= 1
    return at + 1


def fast_paths_enabled() -> bool:
    """False when UNIEVENT_SLOW_PATH is set to anything but "" or "0"."""
    return os.environ.get("UNIEVENT_SLOW_PATH", "") in ("", "0")


class Template:
    """A hot frame's bytes: literals around holes.

    `payload == literals[0] + hole[0] + literals[1] + ... + hole[-1] + literals[-1]`,
    each hole the string, the counter or the padding (the string always; the others
    at most once each, the counter not between the other two).  For matching, the
    literals (and the counter's digits) before the string and the padding form `head`,
    those after them `tail`: two comparisons; a padding next to the string ends at the
    quote nearest to the string (a padding holds no quote), and `between` must lie
    between the two.
    """

    __slots__ = (
        "between",
        "between_size",
        "counted_head",
        "counter_in_head",
        "counter_in_tail",
        "head",
        "head2",
        "holes",
        "literals",
        "pad",
        "pad_size",
        "shape",
        "tail",
        "tail2",
        "tail_size",
    )

    def __init__(self, literals: tuple[bytes, ...], holes: tuple[int, ...], pad_size: int = 0) -> None:
        self.literals = literals
        self.holes = holes
        self.pad_size = pad_size  # the learned padding's length (looked at first, before the string)
        self.counter_in_head = bool(holes) and holes[0] == _COUNTER
        self.counter_in_tail = bool(holes) and holes[-1] == _COUNTER
        # head [+ digits + head2]
        #   + (padding + between + string | string [+ between + padding])
        #   + [tail2 + digits +] tail
        self.head = literals[0]
        self.head2 = literals[1] if self.counter_in_head else b""
        self.tail = literals[-1]
        self.tail2 = literals[-2] if self.counter_in_tail else b""
        inner = tuple(h for h in holes if h != _COUNTER)
        self.pad = 0 if len(inner) == 1 else (_PAD_LAST if inner[1] == _PAD else _PAD_FIRST)
        first = 1 if self.counter_in_head else 0
        self.between = literals[first + 1] if self.pad else b""
        self.between_size = len(self.between)
        self.tail_size = len(self.tail)
        # the literals around a counter with its digits, one `%` format per frame
        self.counted_head = _escaped(self.head) + b"%d" + _escaped(self.head2)
        # what unievent._holes reads (compiled: its C module, which compares in place)
        self.shape: Shape = (
            self.head,
            self.head2,
            self.counter_in_head,
            self.tail,
            self.tail2,
            self.counter_in_tail,
            self.pad,
            self.between,
            pad_size,
            _PLAIN_TABLE,
        )

    def match(self, payload: bytes, counter: int = 0) -> str | None:
        """The frame's string when `payload` is this template's frame, else None."""
        hole = self.hole(payload, counter)
        return None if hole is None else one_string(hole)

    def hole(self, payload: bytes, counter: int = 0) -> bytes | None:
        """The bytes in the string's hole when `payload` has this template's bytes
        everywhere else, else None; the frame is this template's when the hole holds
        exactly one JSON string (`one_string`, or `strings` for a run of holes)."""
        holes = self.holes_of_run([payload], 0, 1, counter, 0)
        return holes[0] if holes else None

    def holes_of_run(
        self, payloads: list[bytes], start: int, stop: int, counter: int = 0, step: int = 0
    ) -> list[bytes]:
        """`hole` of each payload from `start` to `stop` (or the end), up to the first
        that has none; the first's counter is `counter`, each next one's `step` more
        (see unievent._holes, the definition).  Compiled, the C module compares the
        bytes in place; run as Python source, a template with a tail and no counter after
        its string runs its own loops (`_interpreted_run`)."""
        if _COMPILED:
            return matched_holes(payloads, start, stop, counter, step, self.shape)
        # a run taker is offered every frame the table takes alone: a frame of another
        # shape is turned away before the template is unpacked for it (and before the
        # payloads are sliced)
        if start >= len(payloads) or payloads[start][: len(self.head)] != self.head:
            return []
        if self.tail_size and not self.counter_in_tail:
            return self._interpreted_run(payloads, start, stop, counter, step)
        return matched_holes(payloads, start, stop, counter, step, self.shape)

    def _interpreted_run(self, payloads: list[bytes], start: int, stop: int, counter: int, step: int) -> list[bytes]:
        """`holes_of_run` run as Python source, for a template with a tail and no counter
        after its string: the same frames, the same holes, in about half the steps a
        frame (each step there costs as much as a slice): one loop per place of the
        padding, the literals' places bound before it, the counter's prefix made only
        where there is one.  A padding after the string is found by its `between`: the
        last one before the tail is the one that ends at the last quote, since `between`
        ends with the padding's opening quote and a padding holds no quote.  A padding
        before the string (a timestamp, which `isalnum` cannot pass) is checked with the
        others of the run at once, after the loop (`_plain_up_to`)."""
        holes: list[bytes] = []
        counted = self.counter_in_head
        counted_head = self.counted_head
        prefix = self.head
        last = -self.tail_size  # (the tail is not empty)
        tail = self.tail
        between = self.between
        size = self.between_size
        first = len(prefix)
        if self.pad == _PAD_FIRST:
            quote = first + self.pad_size
            begin = quote + size
            paddings: list[bytes] = []
            for payload in payloads[start:stop]:
                if counted:
                    prefix = counted_head % counter
                    counter += step
                    first = len(prefix)
                    quote = first + self.pad_size
                    begin = quote + size
                if payload[:first] != prefix or payload[last:] != tail:
                    break
                if payload[quote:begin] == between:
                    paddings.append(payload[first:quote])
                    holes.append(payload[begin:last])
                else:  # a padding of another length: its closing quote is the first
                    at = payload.find(b'"', first, len(payload) + last)
                    if at < 0 or payload[at : at + size] != between:
                        break
                    paddings.append(payload[first:at])
                    holes.append(payload[at + size : last])
            return _plain_up_to(holes, paddings)
        elif self.pad == _PAD_LAST:
            for payload in payloads[start:stop]:
                if counted:
                    prefix = counted_head % counter
                    counter += step
                    first = len(prefix)
                if payload[:first] != prefix or payload[last:] != tail:
                    break
                end = len(payload) + last
                cut = payload.rfind(between, first, end)
                if cut <= first:  # none, or nothing before it
                    break
                padding = payload[cut + size : end]
                # (an obfuscation is letters and digits: one method call says so)
                if padding and not padding.isalnum() and padding.translate(_PLAIN_TABLE) != padding:
                    break
                holes.append(payload[first:cut])
        else:
            for payload in payloads[start:stop]:
                if counted:
                    prefix = counted_head % counter
                    counter += step
                    first = len(prefix)
                if payload[:first] != prefix or payload[last:] != tail:
                    break
                hole = payload[first:last]
                if not hole:
                    break
                holes.append(hole)
        return holes

    # --- learning -----------------------------------------------------------------------

    @classmethod
    def learn(
        cls,
        payload: bytes,
        obj: dict[str, Any],
        path: tuple[str | int, ...],
        counter: int | None,
        pad: str = _PAD_NAME,
    ) -> Template | None:
        """A template from a frame the full path parsed: `path` leads to the string in
        `obj`; `counter` is the frame's sequence number when it has one; `pad` names
        the padding of `obj`, a field no handler reads.  None when the frame's bytes
        do not show its fields unambiguously."""
        value: Any = obj
        for step in path:
            value = value[step]
        name = path[-1]
        if type(value) is not str or type(name) is not str:
            return None
        string = _span(payload, b'"' + name.encode() + b'":', orjson.dumps(value), b"", _STRING)
        if string is None:
            return None
        spans = [string]
        if counter is not None:
            count = _span(payload, _COUNTER_KEY, b"%d" % counter, b"", _COUNTER)
            if count is None:
                return None
            spans.append(count)
        padding = obj.get(pad)
        if type(padding) is str:
            plain = padding.encode()
            if _is_padding(plain):
                padded = _span(payload, b'"' + pad.encode() + b'":"', plain, b'"', _PAD)
                if padded is None:
                    return None
                spans.append(padded)
        spans.sort()
        literals = [payload[: spans[0][0]]]
        literals += [payload[spans[i][1] : spans[i + 1][0]] for i in range(len(spans) - 1)]
        literals.append(payload[spans[-1][1] :])
        pad_size = next((end - start for start, end, kind in spans if kind == _PAD), 0)
        template = cls(tuple(literals), tuple(kind for _start, _end, kind in spans), pad_size)
        return template if template._rebuilds(obj, path, counter, pad) else None

    def _rebuilds(self, obj: dict[str, Any], path: tuple[str | int, ...], counter: int | None, pad: str) -> bool:
        """A frame built from the template with another string (counter, padding)
        parses to `obj` with exactly those changed, and matches the template."""
        probe_counter = (counter or 0) + 7
        filling = (_PROBE_JSON, b"%d" % probe_counter, _PROBE_PAD_BYTES)  # by hole: _STRING, _COUNTER, _PAD
        literals = self.literals
        parts = [literals[0]]
        for at, hole in enumerate(self.holes):
            parts.append(filling[hole])
            parts.append(literals[at + 1])
        frame = b"".join(parts)
        expected = _replaced(obj, path, _PROBE)
        if _COUNTER in self.holes:
            expected["sequence_number"] = probe_counter
        if _PAD in self.holes:
            expected[pad] = _PROBE_PAD
        try:
            rebuilt = _loads(frame)
        except _JSONDecodeError:
            return False
        return bool(rebuilt == expected and self.match(frame, probe_counter) == _PROBE)


def _plain_up_to(holes: list[bytes], paddings: list[bytes]) -> list[bytes]:
    """`holes` up to the first that is empty or whose padding (`paddings[i]` is hole
    i's) is not plain: for a run whose frames all pass, one join, one translate and one
    `all`, where a check a frame costs a method call and a comparison each."""
    joined = b"".join(paddings)
    if joined.translate(_PLAIN_TABLE) == joined and all(holes):
        return holes
    for index, padding in enumerate(paddings):
        if not holes[index] or padding.translate(_PLAIN_TABLE) != padding:
            return holes[:index]
    return holes  # (not reached: one of them failed)


class ValueTemplate:
    """A hot frame's bytes with two holes: `head + string + mid + value + tail`, the
    string one JSON string, the value any one JSON value (Gemini: a record's text and,
    after it, its usageMetadata).

    A frame is this template's when its bytes start with `head` and end with `tail`,
    the first `mid` after the head ends the string's hole, and each hole parses as one
    value of its kind.  The first `mid` is the right one, or the string's hole fails:
    were `mid` inside the string, the hole would be a proper prefix of one JSON string,
    which ends inside it (in an escape or before the closing quote) and parses as none.
    """

    __slots__ = ("head", "mid", "tail")

    def __init__(self, head: bytes, mid: bytes, tail: bytes) -> None:
        self.head = head
        self.mid = mid
        self.tail = tail

    def holes(self, payload: bytes) -> tuple[bytes, bytes] | None:
        """The bytes of the string's hole and of the value's when `payload` has this
        template's bytes everywhere else, else None (neither is parsed here)."""
        strings: list[bytes] = []
        values: list[bytes] = []
        self.holes_of_run([payload], 0, 1, strings, values)
        return (strings[0], values[0]) if strings else None

    def holes_of_run(
        self, payloads: list[bytes], start: int, stop: int, strings: list[bytes], values: list[bytes]
    ) -> None:
        """`holes` of each payload from `start` to `stop` (or the end), up to the first
        that has none: the string holes appended to `strings`, the value holes to
        `values` (unievent._holes.value_holes: compiled, in C)."""
        matched_value_holes(payloads, start, stop, self.head, self.mid, self.tail, strings, values)

    @classmethod
    def learn(cls, payload: bytes, obj: dict[str, Any], path: tuple[str | int, ...], key: str) -> ValueTemplate | None:
        """A template from a frame the full path parsed: `path` leads to the string in
        `obj`, `key` names a value of `obj` itself that comes after it.  None when the
        frame's bytes do not show them unambiguously."""
        value: Any = obj
        for step in path:
            value = value[step]
        name = path[-1]
        if type(value) is not str or type(name) is not str or key not in obj:
            return None
        string = _value_span(payload, b'"' + name.encode() + b'":')
        other = _value_span(payload, b'"' + key.encode() + b'":')
        if string is None or other is None or string[1] > other[0]:
            return None
        template = cls(payload[: string[0]], payload[string[1] : other[0]], payload[other[1] :])
        probe = orjson.dumps(_PROBE)
        frame = template.head + probe + template.mid + _PROBE_VALUE + template.tail
        expected = _replaced(obj, path, _PROBE)
        expected[key] = _loads(_PROBE_VALUE)
        try:
            rebuilt = _loads(frame)
        except _JSONDecodeError:
            return None
        if rebuilt != expected or template.holes(frame) != (probe, _PROBE_VALUE):
            return None
        return template


def _value_span(payload: bytes, key: bytes) -> tuple[int, int] | None:
    """Where the value after `key` lies in `payload`, when `key` occurs exactly once
    (a key's bytes never occur inside a string: its quotes would be escaped there)."""
    at = find(payload, key)
    if at < 0 or find(payload, key, at + 1) >= 0:
        return None
    start = _SPACES.match(payload, at + len(key)).end()  # type: ignore[union-attr]
    end = _value_end(payload, start)
    return None if end < 0 else (start, end)


def _value_end(payload: bytes, start: int) -> int:
    """The end of the JSON value that starts at `start` (-1: none that ends), found by
    its quotes, brackets and commas alone; the rebuilt frame checks the rest."""
    depth = 0
    pos = start
    in_string = False
    while True:
        found = (_INSIDE if in_string else _OUTSIDE).search(payload, pos)
        if found is None:
            return -1 if depth or in_string or pos == start else len(payload)
        char = found.group()
        if in_string:
            if char == b"\\":
                pos = found.end() + 1
                continue
            in_string = False
            pos = found.end()
            if not depth:
                return pos
            continue
        if char == b'"':
            in_string = True
        elif char in (b"{", b"["):
            depth += 1
        elif not depth:
            return found.start()  # a scalar's end: `,`, or the `}` or `]` of its container
        elif char != b",":
            depth -= 1
            if not depth:
                return found.end()
        pos = found.end()


# --- run taking -------------------------------------------------------------------------

#: frames a run taker collects at most in one go, and at first: a run that goes on is
#: taken in more calls, and a slice of the payloads is never longer (copied however
#: soon the run ends, it costs a few instructions a frame)
RUN_MOST: Final = 1 << 9


class Runs:
    """A run taker's window: how many frames it may collect from where it starts.

    The taker collects the holes of at most `window` frames from where it starts, by
    their bytes, parses them (`strings`) and takes the frames up to the first whose
    hole held no string.  What was collected and not taken is wasted work, so a batch
    not taken whole brings the window down to one frame, and a batch as long as the
    window taken whole doubles it (up to `RUN_MOST`, where it starts: a stream that
    never wastes takes each push's run in one go).  A window of w frames is reached
    again only after w - 1 frames were taken whole since the waste that shrank it, so
    the frames collected and not taken never exceed the first window plus twice the
    frames taken, and a frame is collected again only by a window that starts at least
    halfway nearer to it than the last waste: about log2(RUN_MOST) times at most.  Time
    is linear for every mix of hot and odd frames.  `examined` counts the frames
    collected (an instrument for the tests).

    `strings` is one call on the hot path, as the parse it took the place of was: run
    as Python source, a call costs about what a frame's slices do.
    """

    __slots__ = ("examined", "window")

    def __init__(self) -> None:
        self.window = RUN_MOST
        self.examined = 0

    def took(self, collected: int, taken: int) -> None:
        """Of `collected` frames, the first `taken` were taken: the window follows
        (for a taker whose frames need more than `strings`)."""
        self.examined += collected
        window = self.window
        if taken < collected:
            self.window = 1
        elif collected >= window and window < RUN_MOST:
            self.window = window + window

    def wasted(self) -> None:
        """Frames `strings` took were then refused by the taker's own check (Gemini's
        usage holes): the window shrinks as after any waste."""
        self.window = 1

    def strings(self, holes: list[bytes]) -> list[str]:
        """`one_string` of each hole in turn, up to the first that holds no string; the
        window follows (`took`).

        The holes of a run are parsed by one `orjson.loads` of the array they form,
        `[hole\n,hole\n,...]`, which costs half as much as a call per hole.  That array
        is k strings, for k holes, only when each hole is exactly one string: a raw
        newline is never inside a JSON string, so each separator's comma lies between
        elements, and k strings have no other comma between them.  A hole holding no
        string, or two, fails the array, and then the holes are read one by one.
        """
        count = len(holes)
        window = self.window
        if count > 1:
            try:
                values = _loads(b"[" + b"\n,".join(holes) + b"]")
            except _JSONDecodeError:
                values = None
            if type(values) is list and len(values) == count and _all_str(values):
                self.examined += count
                if count >= window and window < RUN_MOST:
                    self.window = window + window
                return values
        elif not count:  # a frame of another shape: nothing was collected
            return []
        return self._one_by_one(holes)

    def _one_by_one(self, holes: list[bytes]) -> list[str]:
        """`one_string` of each hole, up to the first that holds no string; the window
        follows (`took`, written out: run as Python source a call costs more than its
        body)."""
        count = len(holes)
        window = self.window
        self.examined += count
        out: list[str] = []
        for hole in holes:
            value = one_string(hole)
            if value is None:
                self.window = 1
                return out
            out.append(value)
        if count >= window and window < RUN_MOST:
            self.window = window + window
        return out

    def fixed(self, payloads: list[bytes], start: int, head: bytes, tail: bytes) -> list[str]:
        """The strings of the frames from `start` on (at most a window of them) that are
        `head`, a hole and `tail`, up to the first that is not or whose hole holds no
        string (a protocol whose hot frame is fixed by the protocol, with no template to
        learn): `strings` of their holes, in the one call a push's run costs."""
        skip = len(head)
        if start >= len(payloads) or payloads[start][:skip] != head:  # before any slice
            return []
        end = -len(tail)  # (negated once, not twice a frame)
        holes: list[bytes] = []
        for payload in payloads[start : start + self.window]:
            if payload[:skip] != head or payload[end:] != tail:
                break
            holes.append(payload[skip:end])
        count = len(holes)
        if count > 1:  # `strings`, written out
            try:
                values = _loads(b"[" + b"\n,".join(holes) + b"]")
            except _JSONDecodeError:
                values = None
            if type(values) is list and len(values) == count and _all_str(values):
                self.examined += count
                window = self.window
                if count >= window and window < RUN_MOST:
                    self.window = window + window
                return values
        return self._one_by_one(holes)


def strings(holes: list[bytes]) -> list[str]:
    """`one_string` of each hole in turn, up to the first that holds no string (see
    `Runs.strings`, which parses a run's holes at once)."""
    return Runs().strings(holes)


def one_string(hole: bytes) -> str | None:
    """The JSON string `hole` holds (whitespace around it allowed, as orjson reads a
    document), or None when it holds anything else."""
    try:
        value = _loads(hole)
    except _JSONDecodeError:
        return None
    return value if type(value) is str else None


def _all_str(values: list[Any]) -> bool:
    """Whether every value is a str: str.join takes nothing else, and costs a copy of
    the text where a set of the values' types would cost a hash and an insert each."""
    try:
        "".join(values)
    except TypeError:
        return False
    return True


def _escaped(literal: bytes) -> bytes:
    """`literal` as a `%` format that writes it as it is."""
    return literal.replace(b"%", b"%%")


def _is_padding(text: bytes) -> bool:
    return text.translate(_PLAIN_TABLE) == text


def _span(payload: bytes, key: bytes, value: bytes, after: bytes, kind: int) -> tuple[int, int, int] | None:
    """Where `value` (written right after `key`, followed by `after`) is in `payload`,
    when it occurs exactly once."""
    needle = key + value + after
    at = find(payload, needle)
    if at < 0 or find(payload, needle, at + 1) >= 0:
        return None
    start = at + len(key)
    return start, start + len(value), kind


def _replaced(obj: Any, path: tuple[str | int, ...], value: str) -> Any:
    """A copy of `obj` with the value at `path` replaced (containers on the path copied)."""
    if not path:
        return value
    copy: Any = dict(obj) if type(obj) is dict else list(obj)
    copy[path[0]] = _replaced(obj[path[0]], path[1:], value)
    return copy
