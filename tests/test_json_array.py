"""JSON-array framing (machines/json_array.py): Gemini's `streamGenerateContent` body
without `alt=sse`, one array whose pretty-printed elements arrive as they are made.

Elements are records of the `gemini` protocol, whose decoder picks this framing when
the body's first byte that is not whitespace is `[`.
"""

from __future__ import annotations

import orjson
import pytest

import unievent
from tests.test_gemini import array, every_split, record, run, sse, usage
from unievent import TextDone, ToolCallDone


def test_the_json_array_body_split_everywhere_decodes_like_sse() -> None:
    records = [
        record([{"text": "thinking", "thought": True}]),
        record([{"functionCall": {"name": "multiply", "args": {"y": 3, "x": 5}}, "thoughtSignature": "c2ln"}]),
        record([{"text": ""}], "STOP", usageMetadata=usage(60, 16, thoughts=32)),
    ]
    events, outcome = every_split(array(*records))
    assert (events, outcome) == run(sse(*records))
    assert outcome.message.items[1] == ToolCallDone("multiply", {"y": 3, "x": 5}, "call_s_1", {"signature": "c2ln"})


def test_a_compact_array_with_strings_holding_brackets_is_read_by_structure() -> None:
    records = [record([{"text": 'a "}" ] { [\\'}]), record([{"text": "b"}], "STOP")]
    body = b"[" + b",".join(orjson.dumps(r) for r in records) + b"]"
    _, outcome = every_split(body)
    assert outcome.message.items == (TextDone('a "}" ] { [\\b'),)


def test_an_array_cut_before_its_end_is_truncated_even_after_a_finish_reason() -> None:
    body = array(record([{"text": "a"}], "STOP"))
    assert run(body)[1].end == "complete"
    _, outcome = run(body[:-2])
    assert outcome.end == "truncated" and {a.kind for a in outcome.anomalies} == {"cut_frame"}


def test_junk_between_elements_is_skipped_and_counted() -> None:
    body = array(record([{"text": "a"}]), record([{"text": "b"}], "STOP"))
    body = body.replace(b"\n,\r\n", b"\n, oops ,\r\n")
    _, outcome = every_split(body)
    assert outcome.end == "complete" and outcome.skipped_frames == 1
    assert outcome.message.items == (TextDone("ab"),)


def test_a_body_that_is_not_an_array_nor_sse_is_not_an_event_stream() -> None:
    _, outcome = run(b"<html><body>502 Bad Gateway</body></html>")
    assert outcome.end == "not_event_stream" and outcome.body and "502" in outcome.body


def test_the_framing_option_forces_one_and_rejects_what_gemini_does_not_use() -> None:
    body = array(record([{"text": "a"}], "STOP"))
    _, outcome = run(body, framing="sse")
    assert outcome.end == "not_event_stream"  # read as SSE, an array is no event stream
    assert run(body, framing="json_array")[1].end == "complete"
    with pytest.raises(unievent.DecoderUsageError, match="gemini comes as sse or json_array, not 'ndjson'"):
        unievent.StreamDecoder("gemini", framing="ndjson")



def test_a_string_element_and_numbers_are_elements_too() -> None:
    # what is no object is nothing a provider streams: read, then ignored
    _, outcome = every_split(b'[1, "a ]", true, ' + orjson.dumps(record([{"text": "x"}], "STOP")) + b"]")
    assert (outcome.end, outcome.skipped_frames, outcome.message.items) == ("complete", 0, (TextDone("x"),))


def test_what_follows_the_array_is_counted_not_read() -> None:
    body = array(record([{"text": "x"}], "STOP")) + b" trailing junk"
    _, outcome = every_split(body)
    assert outcome.end == "complete" and {a.kind: a.count for a in outcome.anomalies} == {"frames_after_end": 2}


def test_an_element_over_the_cap_raises() -> None:
    decoder = unievent.StreamDecoder("gemini", max_frame=100)
    with pytest.raises(unievent.FrameTooLargeError):
        decoder.push(b"[" + orjson.dumps(record([{"text": "x" * 200}])))
