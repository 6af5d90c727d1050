"""NDJSON framing (machines/ndjson.py): one JSON object per `\\n`-terminated line, as
Ollama streams `application/x-ndjson`; and how `auto` tells such a body from one JSON
body when nothing names the framing.

Lines are Ollama chat lines, decoded by the `ollama` protocol.
"""

from __future__ import annotations

import orjson
import pytest

import unievent
from tests.test_ollama import THINK_THEN_ANSWER, chat, every_split, run, wire
from unievent import TextDone, ThinkingDone

ANSWER = (ThinkingDone("Let me think."), TextDone("The <answer> is 4."))


@pytest.mark.parametrize("ending", [b"\r\n", b"\n\n", b"\n \t\n"], ids=["crlf", "blank lines", "whitespace lines"])
def test_crlf_and_blank_lines_frame_the_same(ending: bytes) -> None:
    _, outcome = every_split(THINK_THEN_ANSWER.replace(b"\n", ending))
    assert (outcome.end, outcome.message.items, outcome.skipped_frames) == ("complete", ANSWER, 0)


def test_leading_boms_are_removed_however_the_pushes_split_them() -> None:
    _, outcome = every_split(b"\xef\xbb\xbf\xef\xbb\xbf" + THINK_THEN_ANSWER)
    assert outcome.message.items == ANSWER


def test_whitespace_before_a_line_is_still_an_object_line() -> None:
    _, outcome = run(THINK_THEN_ANSWER.replace(b'{"model"', b'  \t{"model"'))
    assert (outcome.end, outcome.message.items) == ("complete", ANSWER)


def test_a_line_that_does_not_parse_inside_the_stream_is_skipped_and_counted() -> None:
    body = wire(chat("a")) + b'{"model": oops\nplain words\n' + wire(chat(done=True))
    _, outcome = every_split(body)
    assert (outcome.end, outcome.skipped_frames, outcome.message.items) == ("complete", 2, (TextDone("a"),))


def test_a_body_of_no_json_lines_is_not_an_event_stream_and_kept() -> None:
    _, outcome = every_split(b"<html>\r\n<body>502 Bad Gateway</body>\r\n\r\n</html>\r\n")
    assert outcome.end == "not_event_stream"
    assert outcome.body == "<html>\n<body>502 Bad Gateway</body>\n</html>"


def test_lines_before_the_first_object_are_forgotten_once_it_comes() -> None:
    _, outcome = run(b"event: hello\n" + THINK_THEN_ANSWER)
    assert (outcome.end, outcome.message.items, outcome.body) == ("complete", ANSWER, None)


def test_a_tail_object_after_text_lines_is_read_too() -> None:
    _, outcome = run(b"preamble\n" + orjson.dumps(chat("x", done=True)))
    assert (outcome.end, outcome.message.items) == ("complete", (TextDone("x"),))


def test_a_body_cut_inside_its_last_line_is_truncated() -> None:
    _, outcome = every_split(THINK_THEN_ANSWER[:-30])
    assert outcome.end == "truncated" and outcome.message.items == ANSWER
    assert {a.kind for a in outcome.anomalies} == {"cut_frame"}


def test_a_junk_last_line_whose_brackets_close_is_skipped_not_cut() -> None:
    _, outcome = every_split(THINK_THEN_ANSWER + b'{"done": tru}')
    assert (outcome.end, outcome.skipped_frames) == ("complete", 0)
    assert {a.kind for a in outcome.anomalies} == {"frames_after_end"}  # after the done line: counted, not read
    _, early = run(wire(chat("a")) + b'{"done": tru}')
    assert (early.end, early.skipped_frames, early.anomalies) == ("truncated", 1, ())


@pytest.mark.parametrize("pieces", [1, 3, 1000], ids=["whole", "in 3 pieces", "in many pieces"])
def test_a_line_over_the_cap_raises_however_it_arrives(pieces: int) -> None:
    body = wire(chat("a")) + wire(chat("x" * 300))
    decoder = unievent.StreamDecoder("ollama", max_frame=200)
    size = -(-len(body) // pieces)
    events: list[unievent.Event] = []
    with pytest.raises(unievent.FrameTooLargeError) as raised:
        for start in range(0, len(body), size):
            events += decoder.push(body[start : start + size])
    events += raised.value.events
    assert [e.item for e in events if isinstance(e, unievent.DeltaEvent)] == [unievent.TextDelta("a")]
    _, outcome = decoder.finish()
    assert outcome.end == "failed" and outcome.error is not None and outcome.error.type == "frame_too_large"


def test_a_line_of_exactly_the_cap_is_read() -> None:
    line = wire(chat(done=True))
    _, outcome = run(line, max_frame=len(line) - 1)
    assert outcome.end == "complete"


# --- auto: NDJSON or one JSON body ----------------------------------------------------------


def test_auto_reads_several_json_lines_as_ndjson_in_any_split() -> None:
    _, outcome = every_split(THINK_THEN_ANSWER, protocol="auto")
    assert (outcome.protocol, outcome.end, outcome.message.items) == ("ollama", "complete", ANSWER)


@pytest.mark.parametrize(
    "body",
    [
        orjson.dumps(chat("x", done=True)),
        orjson.dumps(chat("x", done=True)) + b"\r\n \n",
        orjson.dumps(chat("x", done=True), option=orjson.OPT_INDENT_2) + b"\n",
    ],
    ids=["one line", "one line and whitespace", "pretty-printed"],
)
def test_auto_reads_one_json_object_as_one_json_body_in_any_split(body: bytes) -> None:
    # one whole object is no stream: like a whole chat.completion, it names no protocol
    _, outcome = every_split(body, protocol="auto")
    assert (outcome.protocol, outcome.end) == ("auto", "not_event_stream")


def test_auto_reads_embeddings_bodies_as_before() -> None:
    body = orjson.dumps({"object": "list", "data": [{"object": "embedding", "index": 0, "embedding": [0.5]}], "model": "m"}) + b"\n"
    _, outcome = every_split(body, protocol="auto")
    assert (outcome.protocol, outcome.end) == ("openai_embeddings", "complete")


def test_auto_with_the_ndjson_content_type_reads_lines_at_once() -> None:
    decoder = unievent.StreamDecoder("auto", content_type="application/x-ndjson; charset=utf-8")
    assert decoder.push(wire(chat("Hi"))) != []  # no line is held back to choose the framing
    _, outcome = decoder.finish()
    assert (outcome.protocol, outcome.end, outcome.message.items) == ("ollama", "truncated", (TextDone("Hi"),))


def test_a_first_line_over_the_cap_is_one_json_body_under_auto() -> None:
    decoder = unievent.StreamDecoder("auto", max_frame=100)
    with pytest.raises(unievent.FrameTooLargeError):
        decoder.push(b'{"x": "' + b"a" * 200)


def test_an_empty_body_or_blank_lines_only_is_truncated() -> None:
    assert run(b"")[1].end == "truncated"
    assert run(b"\n\r\n  \n")[1].end == "truncated"
    _, outcome = run(b"\n\n" + THINK_THEN_ANSWER)
    assert (outcome.end, outcome.message.items) == ("complete", ANSWER)


def test_object_lines_that_do_not_parse_before_any_that_does_are_the_body() -> None:
    pretty = orjson.dumps({"error": {"code": 500, "message": "boom"}, "detail": [{"a": 1}]}, option=orjson.OPT_INDENT_2)
    _, outcome = every_split(pretty)
    assert outcome.end == "failed" and outcome.error is not None and outcome.error.message == "boom"  # the JSON error body
    _, later = run(b'{"not json\n' + THINK_THEN_ANSWER)
    assert (later.end, later.message.items, later.skipped_frames, later.body) == ("complete", ANSWER, 0, None)
