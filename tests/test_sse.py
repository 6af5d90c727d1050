"""SSE framing: line ends, fields, dispatch, caps and bodies that are not SSE.

Each test feeds real wire bytes through the public decoder (protocol openai_chat,
whose frames are easy to read back) and checks what came out.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import unievent
from tests.helpers import chunk, decode, split_at, sse, text_of

HELLO = sse(chunk({"content": "Hel"}), chunk({"content": "lo"}), chunk({}, finish="stop"))


@pytest.mark.parametrize("ending", [b"\n", b"\r\n", b"\r"])
def test_every_line_ending_frames_the_same(ending: bytes) -> None:
    _events, outcome = decode(HELLO.replace(b"\n", ending))
    assert outcome.end == "complete"
    assert text_of(outcome) == "Hello"


def test_a_cr_at_the_end_of_a_chunk_waits_for_its_lf() -> None:
    data = HELLO.replace(b"\n", b"\r\n")
    cut = data.index(b"\r\n") + 1  # between \r and \n
    assert decode(data, pieces=[data[:cut], data[cut:]]) == decode(data)


def test_leading_bom_is_removed_only_from_the_first_line() -> None:
    _events, outcome = decode(b"\xef\xbb\xbf" + HELLO)
    assert text_of(outcome) == "Hello"


def test_comments_are_skipped_and_never_reach_the_json_parser() -> None:
    data = b": keep-alive\n\n: OPENROUTER PROCESSING\n\n" + HELLO
    _, outcome = decode(data)
    assert (outcome.end, outcome.skipped_frames, text_of(outcome)) == ("complete", 0, "Hello")


def test_data_with_and_without_the_space() -> None:
    data = b'data:{"choices":[{"delta":{"content":"a"}}]}\n\ndata: {"choices":[{"delta":{"content":"b"}}]}\n\ndata:[DONE]\n\n'
    assert text_of(decode(data)[1]) == "ab"


def test_multi_line_data_is_joined_with_newlines() -> None:
    data = b'data: {"choices":\ndata: [{"delta":{"content":"x"}}]}\n\ndata: [DONE]\n\n'
    _, outcome = decode(data)
    assert (text_of(outcome), outcome.skipped_frames) == ("x", 0)


def test_events_missing_their_blank_line_become_one_frame_per_line() -> None:
    data = b'data: {"choices":[{"delta":{"content":"a"}}]}\ndata: {"choices":[{"delta":{"content":"b"}}]}\n\ndata: [DONE]\n\n'
    _, outcome = decode(data)
    assert (text_of(outcome), outcome.skipped_frames) == ("ab", 0)


def test_id_and_retry_are_ignored_and_unknown_fields_too() -> None:
    data = b"id: 7\nretry: 1000\nfoo: bar\n" + HELLO
    assert text_of(decode(data)[1]) == "Hello"


def test_a_frame_that_does_not_parse_is_skipped_and_counted() -> None:
    data = sse(chunk({"content": "a"}), "{not json", chunk({"content": "b"}))
    _, outcome = decode(data)
    assert (outcome.end, outcome.skipped_frames, text_of(outcome)) == ("complete", 1, "ab")


def test_json_that_is_not_an_object_is_ignored_without_counting() -> None:
    _, outcome = decode(sse("[1, 2]", "42", chunk({"content": "a"})))
    assert (outcome.skipped_frames, text_of(outcome)) == (0, "a")


def test_everything_after_done_is_ignored() -> None:
    data = HELLO + sse(chunk({"content": " again"}), done=False) + b"garbage\n"
    _, outcome = decode(data)
    assert text_of(outcome) == "Hello"


def test_the_last_frame_is_dispatched_at_eof_without_its_blank_line() -> None:
    data = b'data: {"choices":[{"delta":{"content":"a"},"finish_reason":"stop"}]}'
    _, outcome = decode(data)
    assert (outcome.end, text_of(outcome)) == ("complete", "a")


def test_invalid_utf8_is_read_with_replacement_characters() -> None:
    data = b'data: {"choices":[{"delta":{"content":"a\xffb"}}]}\n\ndata: [DONE]\n\n'
    assert text_of(decode(data)[1]) == "a\ufffdb"


def test_an_html_page_is_not_an_event_stream() -> None:
    body = b"<!DOCTYPE html>\n<html><body>Bad gateway</body></html>\n"
    events, outcome = decode(body)
    assert events == []
    assert outcome.end == "not_event_stream"
    assert outcome.body == "<!DOCTYPE html>\n<html><body>Bad gateway</body></html>"
    with pytest.raises(unievent.NotEventStreamError) as caught:
        list(unievent.iter_events([body], "openai_chat"))
    assert caught.value.looks_like_html


def test_a_plain_json_error_body_is_that_error_with_the_body_kept() -> None:
    body = b'{"error": {"message": "stream not supported", "type": "invalid_request_error"}}'
    _, outcome = decode(body)
    assert (outcome.end, outcome.body) == ("failed", body.decode())
    assert outcome.error is not None
    assert (outcome.error.message, outcome.error.type) == ("stream not supported", "invalid_request_error")
    with pytest.raises(unievent.ProviderStreamError) as caught:
        list(unievent.iter_events([body], "openai_chat"))
    assert caught.value.error_type == "invalid_request_error"


def test_a_gemini_error_array_body_is_that_error() -> None:
    body = b'[{\n  "error": {"code": 429, "message": "quota", "status": "RESOURCE_EXHAUSTED"}\n}\n]'
    _, outcome = decode(body, "gemini")
    assert outcome.end == "failed"
    assert outcome.error is not None
    assert (outcome.error.message, outcome.error.type, outcome.error.code) == ("quota", "RESOURCE_EXHAUSTED", 429)


def test_a_json_body_that_is_no_error_is_not_an_event_stream() -> None:
    body = b'{"object": "chat.completion", "choices": [{"message": {"content": "Hi"}}]}'  # stream=false
    assert decode(body)[1].end == "not_event_stream"
    assert decode(body, "auto")[1].end == "not_event_stream"


def test_the_non_sse_body_is_capped_at_about_one_mebibyte() -> None:
    line = b"x" * 1000 + b"\n"
    _, outcome = decode(line * 3000)
    assert outcome.end == "not_event_stream"
    assert outcome.body is not None and 1024 * 1024 <= len(outcome.body) <= 1024 * 1024 + 1001


def test_an_empty_body_and_a_body_of_comments_are_truncated() -> None:
    assert decode(b"")[1].end == "truncated"
    assert decode(b": keep-alive\n\n: keep-alive\n\n")[1].end == "truncated"


def test_a_line_over_the_cap_raises_frame_too_large() -> None:
    decoder = unievent.StreamDecoder("openai_chat", max_frame=1000)
    with pytest.raises(unievent.FrameTooLargeError) as caught:
        decoder.push(b"data: " + b"x" * 2000)
    assert (caught.value.what, caught.value.limit, caught.value.protocol) == ("line", 1000, "openai_chat")


def test_a_frame_over_the_cap_raises_even_when_its_lines_are_short() -> None:
    decoder = unievent.StreamDecoder("openai_chat", max_frame=1000)
    with pytest.raises(unievent.FrameTooLargeError) as caught:
        decoder.push(b"data: xxxxxxxxxx\n" * 200)
    assert caught.value.what == "frame"
    assert "state 'gather'" in str(caught.value)


BODIES = [
    HELLO,
    HELLO.replace(b"\n", b"\r\n"),
    HELLO.replace(b"\n", b"\r"),
    b"\xef\xbb\xbf: hi\r\n\r\n"
    + sse(chunk({"content": "d\u00e9j\u00e0 \u65e5\u672c \U0001f600"}), chunk({}, finish="stop")),
]


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(BODIES), st.lists(st.integers(min_value=0, max_value=400), max_size=12))
def test_any_split_gives_the_same_events_and_outcome(body: bytes, cuts: list[int]) -> None:
    assert decode(body, pieces=split_at(body, cuts)) == decode(body)


@pytest.mark.parametrize("body", BODIES)
def test_byte_by_byte_gives_the_same_events_and_outcome(body: bytes) -> None:
    assert decode(body, pieces=[body[i : i + 1] for i in range(len(body))]) == decode(body)


@settings(max_examples=200, deadline=None)
@given(st.binary(max_size=300))
def test_arbitrary_bytes_decode_or_raise_a_unievent_error(data: bytes) -> None:
    try:
        _events, outcome = decode(data)
    except unievent.UniEventError:
        return
    assert outcome.end in ("complete", "truncated", "failed", "not_event_stream")


# --- the whole-run shortcut against the table ------------------------------------------
# A run of whole `event: E` + `data: X` frames is recognized in C (SSEFramer._uniform);
# one frame of any other shape in the run must send the run through the table, which
# reads the same frames as it does byte by byte.


def frames_read(body: bytes, pieces: list[bytes]) -> list[tuple[str | None, bytes]]:
    """The (event, payload) pairs an SSE framer dispatches for `body` fed as `pieces`."""
    from unievent._framing import FRAME_OK
    from unievent._framing.sse import SSEFramer

    seen: list[tuple[str | None, bytes]] = []

    def sink(event: str | None, payload: bytes) -> int:
        seen.append((event, payload))
        return FRAME_OK

    framer = SSEFramer(sink, "anthropic")
    for piece in pieces:
        framer.feed(piece)
    framer.eof()
    assert b"".join(pieces) == body
    return seen


GOOD = b"event: a\ndata: {}\n\n"
ODD_FRAMES = [
    b"event: a\nid: 7\ndata: {}\n\n",  # a head of two lines
    b"event: a\ndata: {}\ndata: {}\n\n",  # two data lines
    b"event: a\n\ndata: {}\n\n",  # a head with no data, then a data-only frame
    b"event:a\ndata: {}\n\n",  # no space after the colon
    b"event: a\ndata: {}\n\n\n",  # an extra blank line
    b"event: a\ndata:{}\n\n",  # a data line with no space
    b"event: a\ndata: \n\n",  # an empty data line
    b"event: b\nevent: a\ndata: {}\n\n",  # a name given twice
    b"event: \xff\ndata: {}\n\n",  # a name that is not UTF-8
    b": ping\n\n",  # a comment
    b"data: {}\n\n",  # a frame with no name
    b"event: a\n\n",  # a name with no data
    b"event: a\ndata: {}\n\n\n\n",  # two extra blank lines
    b"event: a\ndata: {}\nevent: b\n\n",  # a name after the data
    b"event: a\ndata: {}\n\ndata: {}\n\n",  # a frame of a name and its data, then one of data alone
    b"event: a\ndata: {}\nid: 7\nevent: a\ndata: {}\n\n",  # two names and two data lines, an id between
    # frames of the run's shape, another name: a run of one name is split on its own
    # name, so these must end it as any other frame does
    b"event: b\ndata: {}\n\n",
    b"event: aa\ndata: {}\n\n",  # a name that starts with the run's
    b"event: a \ndata: {}\n\n",
]


def with_one_odd(good: bytes, odd: bytes, where: int) -> bytes:
    """Five good frames with `odd` put at `where`, or five odd frames (where < 0)."""
    frames = [odd] * 5 if where < 0 else [good] * 5
    if where >= 0:
        frames.insert(where, odd)
    return b"".join(frames)


def assert_framed_as_the_table_does(body: bytes, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whole, and in two pieces cut anywhere, `body` frames as byte by byte with every
    line through the table as it ends."""
    from unievent._framing import sse as framing

    with monkeypatch.context() as patch:
        patch.setattr(framing, "_DEFER_MAX", 0)
        one_by_one = frames_read(body, [body[i : i + 1] for i in range(len(body))])
    assert frames_read(body, [body]) == one_by_one
    for cut in range(1, len(body)):
        assert frames_read(body, [body[:cut], body[cut:]]) == one_by_one, cut


@pytest.mark.parametrize("odd", ODD_FRAMES)
@pytest.mark.parametrize("where", [0, 1, 3, -1])
def test_a_run_with_one_frame_of_another_shape_frames_as_the_table_does(
    odd: bytes, where: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    assert_framed_as_the_table_does(with_one_odd(GOOD, odd, where), monkeypatch)


@pytest.mark.parametrize(
    ("run", "taken"),
    [
        (GOOD * 5, True),  # one name: one split
        (b"event: b\ndata: {}\n\n" + GOOD * 3 + b"event: b\ndata: {}\n\n", False),  # two names
        (GOOD * 2 + b"event: a\ndata: {}\ndata: {}\n\n" + GOOD * 2, False),  # a frame of more lines
        (GOOD * 2 + b"event: a\ndata: {}\n\n\n" + GOOD * 2, False),  # a blank line more
    ],
)
def test_a_run_of_one_name_is_split_at_once_and_only_then(run: bytes, taken: bool) -> None:
    from unievent._framing import FRAME_OK
    from unievent._framing.sse import SSEFramer

    seen: list[tuple[str | None, bytes]] = []

    def sink(event: str | None, payload: bytes) -> int:
        seen.append((event, payload))
        return FRAME_OK

    framer = SSEFramer(sink, "anthropic")
    complete = run[: run.rfind(b"\n\n")]  # the run as _lines hands it over
    assert framer._one_name_run(complete, framer.state) is taken
    # taken: every frame reached the sink; not taken: none did (the table frames them)
    assert seen == ([("a", b"{}")] * 5 if taken else [])


# Gemini writes its records with CRLF line ends: a run of such `data:` frames is split
# as it is, and must frame as the rewrite to LF ends does
GOOD_CRLF = b"data: {}\r\n\r\n"
ODD_CRLF_FRAMES = [
    b"data: {\r}\r\n\r\n",  # a lone CR in the payload ends its line
    b"data: {\n}\r\n\r\n",  # so does a lone LF
    b"data: {}\r\n\n",  # the blank line an LF
    b"data: {}\n\r\n",
    b"data: {}\r\r",  # CR line ends only
    b"data: {}\r\n\r\n\r\n",  # an extra blank line
    b"event: a\r\ndata: {}\r\n\r\n",  # a named frame
    b"data:{}\r\n\r\n",  # no space after the colon
    b"data: \r\n\r\n",  # an empty payload
    b"data: {}\r\ndata: {}\r\n\r\n",  # two data lines
    b": ping\r\n\r\n",  # a comment
    b"\xef\xbb\xbfdata: {}\r\n\r\n",  # a BOM, not at the start of the body
]


@pytest.mark.parametrize("odd", ODD_CRLF_FRAMES)
@pytest.mark.parametrize("where", [0, 1, 3, -1])
def test_a_run_of_crlf_frames_with_one_of_another_shape_frames_as_the_table_does(
    odd: bytes, where: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    body = with_one_odd(GOOD_CRLF, odd, where) + b'data: {"last"'  # the body ends inside a frame
    assert_framed_as_the_table_does(body, monkeypatch)
