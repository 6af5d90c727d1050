"""A run of hot frames matched against a template's bytes (unievent._holes): the compiled
build cuts the holes in C, and gives what the stand-in gives, for every run: frames of
learned templates with any byte changed, any start and stop, any counter (a machine
integer or not) and step; and templates of any bytes, their frames made from those
bytes, then changed.  The stand-in is the definition; it is loaded from its source in
either build, so the compiled build tests the C module against it.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import unievent
from tests.helpers import stand_in
from tests.test_ondemand import EDITS, TEMPLATES, gen, interesting
from unievent import _holes
from unievent._decoder import StreamDecoder as RuntimeStreamDecoder  # its handler and template
from unievent._ondemand import _PLAIN_TABLE  # a padding's bytes, as every template reads them

compiled_only = pytest.mark.skipif(not unievent.COMPILED, reason="the compiled build is not installed")

STAND_IN = stand_in("_holes")
BIG = 1 << 64  # a counter no machine integer holds


def both(payloads: list[bytes], start: int, stop: int, counter: int, step: int, shape: _holes.Shape) -> list[bytes]:
    """The holes the C module cuts, which must be the stand-in's."""
    expected: list[bytes] = STAND_IN.holes(payloads, start, stop, counter, step, shape)
    got = _holes.holes(payloads, start, stop, counter, step, shape)
    assert got == expected
    return expected


def run_start(name: str) -> int:
    """Where the template's first run starts in its payloads (its counter: the index)."""
    template, payloads = TEMPLATES[name]
    step = 1 if template.counter_in_head else 0
    return next(i for i in range(len(payloads)) if STAND_IN.holes(payloads, i, i + 1, i * step, step, template.shape))


@compiled_only
@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_a_learned_templates_run_is_cut_as_the_stand_in_cuts_it(name: str) -> None:
    template, payloads = TEMPLATES[name]
    first = run_start(name)
    step = 1 if template.counter_in_head else 0
    holes = both(list(payloads), first, len(payloads), first * step, step, template.shape)
    assert len(holes) >= 20


@compiled_only
@settings(max_examples=2000, deadline=None)
@given(st.sampled_from(sorted(TEMPLATES)), st.data(), st.sampled_from(EDITS), st.booleans())
def test_a_changed_frame_is_cut_as_the_stand_in_cuts_it(
    name: str, data: st.DataObject, edit: bytes, insert: bool
) -> None:
    template, payloads = TEMPLATES[name]
    payloads = list(payloads)
    index = data.draw(st.integers(0, len(payloads) - 1))
    at = data.draw(st.sampled_from(interesting(payloads[index]) or [0]))
    payloads[index] = payloads[index][:at] + edit + payloads[index][at + (0 if insert else 1) :]
    first = run_start(name)
    start = data.draw(st.one_of(st.just(first), st.integers(-3, len(payloads) + 1)))
    stop = data.draw(st.integers(start - 2, len(payloads) + 3))
    counter, step = 0, 0
    if template.counter_in_head:
        counter = data.draw(st.one_of(st.just(start), st.integers(-130, 130), st.integers(BIG - 50, BIG + 50)))
        step = data.draw(st.sampled_from([1, 1, 0, 2, -1, BIG]))
    both(payloads, start, stop, counter, step, template.shape)


# templates of any bytes: literals from a few bytes that matter (a quote, a padding's
# bytes, JSON's punctuation, a digit, and NUL, which ends every bytes object's buffer:
# a comparison that reads one byte too far finds it there), so that literals, holes
# and paddings run into each other
LITERALS = st.binary(max_size=5).map(lambda b: bytes(b'"a9:{-\x00'[c % 7] for c in b))
PIECES = st.binary(max_size=6).map(lambda b: bytes(b'"a9:{- \xff\x00'[c % 9] for c in b))


@st.composite
def shapes(draw: st.DrawFn) -> _holes.Shape:
    counter = draw(st.sampled_from(["none", "head", "tail"]))
    return (
        draw(LITERALS),
        draw(LITERALS) if counter == "head" else b"",
        counter == "head",
        draw(LITERALS),
        draw(LITERALS) if counter == "tail" else b"",
        counter == "tail",
        draw(st.sampled_from([_holes.PAD_NONE, _holes.PAD_LAST, _holes.PAD_FIRST])),
        draw(LITERALS),
        draw(st.integers(0, 6)),
        _PLAIN_TABLE,
    )


@st.composite
def frames_of(draw: st.DrawFn, shape: _holes.Shape, counter: int, step: int) -> list[bytes]:
    """Frames made from the shape's bytes, each counted, then some bytes changed."""
    head, head2, in_head, tail, tail2, in_tail, pad, between, _pad_size, _plain = shape
    frames = []
    for n in range(draw(st.integers(0, 5))):
        digits = b"%d" % (counter + n * step)
        hole, padding = draw(PIECES), draw(PIECES)
        middle = {
            _holes.PAD_NONE: hole,
            _holes.PAD_LAST: hole + between + padding,
            _holes.PAD_FIRST: padding + between + hole,
        }
        frame = head + (digits + head2 if in_head else b"") + middle[pad] + (tail2 + digits if in_tail else b"") + tail
        if draw(st.booleans()):
            at = draw(st.integers(0, len(frame)))
            frame = frame[:at] + draw(PIECES) + frame[at + draw(st.integers(0, 2)) :]
        frames.append(frame)
    return frames


@compiled_only
@settings(max_examples=3000, deadline=None)
@given(st.data())
def test_any_template_is_cut_as_the_stand_in_cuts_it(data: st.DataObject) -> None:
    shape = data.draw(shapes())
    counter = data.draw(st.one_of(st.integers(-20, 20), st.integers(BIG - 5, BIG + 5), st.integers(-BIG - 5, -BIG + 5)))
    step = data.draw(st.sampled_from([0, 1, 1, 2, -3]))
    payloads = data.draw(frames_of(shape, counter, step))
    start = data.draw(st.integers(-2, len(payloads) + 1))
    both(payloads, start, data.draw(st.integers(start - 1, len(payloads) + 2)), counter, step, shape)


def test_the_holes_of_a_templates_frames_are_their_strings() -> None:
    # the definition read on one frame: the bytes in the string's place, and nothing
    # for a frame whose counter or padding is not the template's
    shape = (b'{"n":', b',"s":', True, b'"}', b"", False, _holes.PAD_LAST, b',"p":"', 0, _PLAIN_TABLE)
    frames = [b'{"n":7,"s":"a","p":"Zz9"}', b'{"n":8,"s":"b\\"","p":""}', b'{"n":8,"s":"c","p":"x"}']
    assert _holes.holes(frames, 0, 3, 7, 1, shape) == [b'"a"', b'"b\\""']
    assert _holes.holes([b'{"n":7,"s":"a","p":"Z z"}'], 0, 1, 7, 1, shape) == []  # a space is no padding
    assert _holes.holes([b'{"n":7,"s":"a","p":"Zz9"}'], 0, 1, BIG, 1, shape) == []


def test_a_payload_that_is_not_bytes_ends_the_run() -> None:
    shape = (b"<", b"", False, b">", b"", False, _holes.PAD_NONE, b"", 0, _PLAIN_TABLE)
    payloads: list[object] = [b"<a>", bytearray(b"<b>"), b"<c>"]
    assert _holes.holes(payloads, 0, 3, 0, 0, shape) == [b"a"]  # type: ignore[arg-type]
    assert STAND_IN.holes(payloads, 0, 3, 0, 0, shape) == [b"a"]


# --- a template with a value after its string (Gemini: the text, then the usage) ---------


def gemini_template() -> tuple[tuple[bytes, bytes, bytes], list[bytes]]:
    """The (head, mid, tail) Gemini's decoder learns from the benchmark's stream, and the
    payloads of its records."""
    decoder = RuntimeStreamDecoder("gemini")
    body = gen.build("gemini", 120).data
    decoder.push(body[: len(body) // 2])  # (at its end a stream lets go of its template)
    template = getattr(decoder.handler, "hot", None)
    assert template is not None
    payloads = [frame.partition(b"data: ")[2] for frame in body.split(b"\r\n\r\n") if b"data: " in frame]
    return (template.head, template.mid, template.tail), payloads


GEMINI_TEMPLATE, GEMINI_PAYLOADS = gemini_template()


def both_values(
    payloads: list[bytes], start: int, stop: int, head: bytes, mid: bytes, tail: bytes
) -> tuple[list[bytes], list[bytes]]:
    """The two holes the C module cuts, which must be the stand-in's."""
    expected: tuple[list[bytes], list[bytes]] = ([], [])
    STAND_IN.value_holes(payloads, start, stop, head, mid, tail, *expected)
    got: tuple[list[bytes], list[bytes]] = ([], [])
    _holes.value_holes(payloads, start, stop, head, mid, tail, *got)
    assert got == expected
    return expected


@compiled_only
def test_a_learned_value_templates_run_is_cut_as_the_stand_in_cuts_it() -> None:
    first = next(i for i in range(len(GEMINI_PAYLOADS)) if both_values(GEMINI_PAYLOADS, i, i + 1, *GEMINI_TEMPLATE)[0])
    strings, values = both_values(GEMINI_PAYLOADS, first, len(GEMINI_PAYLOADS), *GEMINI_TEMPLATE)
    assert len(strings) >= 20 and len(values) == len(strings)


@compiled_only
@settings(max_examples=2000, deadline=None)
@given(st.data(), st.sampled_from(EDITS), st.booleans())
def test_a_changed_record_is_cut_as_the_stand_in_cuts_it(data: st.DataObject, edit: bytes, insert: bool) -> None:
    payloads = list(GEMINI_PAYLOADS)
    index = data.draw(st.integers(0, len(payloads) - 1))
    at = data.draw(st.sampled_from(interesting(payloads[index]) or [0]))
    payloads[index] = payloads[index][:at] + edit + payloads[index][at + (0 if insert else 1) :]
    start = data.draw(st.integers(-3, len(payloads) + 1))
    both_values(payloads, start, data.draw(st.integers(start - 2, len(payloads) + 3)), *GEMINI_TEMPLATE)


@compiled_only
@settings(max_examples=3000, deadline=None)
@given(st.data())
def test_any_value_template_is_cut_as_the_stand_in_cuts_it(data: st.DataObject) -> None:
    head, mid, tail = data.draw(LITERALS), data.draw(LITERALS), data.draw(LITERALS)
    payloads = []
    for _ in range(data.draw(st.integers(0, 5))):
        frame = head + data.draw(PIECES) + mid + data.draw(PIECES) + tail
        if data.draw(st.booleans()):
            at = data.draw(st.integers(0, len(frame)))
            frame = frame[:at] + data.draw(PIECES) + frame[at + data.draw(st.integers(0, 2)) :]
        payloads.append(frame)
    start = data.draw(st.integers(-2, len(payloads) + 1))
    both_values(payloads, start, data.draw(st.integers(start - 1, len(payloads) + 2)), head, mid, tail)


def test_the_value_holes_of_records_are_their_text_and_their_usage() -> None:
    # the string's hole ends at the first `mid` after the head; a record that does not
    # end with the tail ends the run, and neither hole is parsed here
    head, mid, tail = b'{"t":', b',"u":', b"}"
    strings: list[bytes] = []
    values: list[bytes] = []
    payloads = [b'{"t":"a","u":{"n":1}}', b'{"t":"b","u":1,"u":2}', b'{"t":"c","u":3]', b'{"t":"d","u":4}']
    _holes.value_holes(payloads, 0, 4, head, mid, tail, strings, values)
    assert (strings, values) == ([b'"a"', b'"b"'], [b'{"n":1}', b'1,"u":2'])


@pytest.mark.parametrize("payload", [b"{x,u}", b"{,u}", b"{xu}"])
def test_a_mid_that_runs_into_the_tail_is_no_templates(payload: bytes) -> None:
    # (the last has no `mid` at all)
    strings: list[bytes] = []
    values: list[bytes] = []
    _holes.value_holes([payload], 0, 1, b"{", b",u", b"u}", strings, values)
    assert (strings, values) == ([], [])
    STAND_IN.value_holes([payload], 0, 1, b"{", b",u", b"u}", strings, values)
    assert (strings, values) == ([], [])
