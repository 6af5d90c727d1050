"""AWS event-stream framing (machines/aws_eventstream.py): Amazon Bedrock's binary
frames (prelude with its CRC, headers, payload, message CRC), split anywhere.

Frames are ConverseStream events, decoded by the `bedrock_converse` protocol; the
recorded Bedrock streams of ../shared/corpus are read frame by frame.
"""

from __future__ import annotations

import struct
import zlib
from pathlib import Path
from typing import Any

import orjson
import pytest

import unievent
from tests.test_bedrock_converse import (
    CORPUS,
    HELLO,
    MESSAGE_START,
    every_split,
    frames_of,
    kinds,
    message_stop,
    metadata,
    run,
    stop,
    text,
)
from unievent import TextDone
from unievent._framing.aws_eventstream import CORRUPT_FRAME, AWSEventStreamFramer, encode_frame

# test vectors computed independently (research notes): CRCs computed, not captured
MESSAGE_STOP = bytes.fromhex(
    "0000007a00000051ca2c46650b3a6576656e742d7479706507000b6d65737361676553746f700d3a636f6e74656e742d7479706507"
    "00106170706c69636174696f6e2f6a736f6e0d3a6d6573736167652d747970650700056576656e747b2273746f70526561736f6e22"
    "3a22656e645f7475726e227d5fbf09fc"
)
THROTTLING = bytes.fromhex(
    "000000b2000000613590d5d30f3a657863657074696f6e2d747970650700137468726f74746c696e67457863657074696f6e0d3a63"
    "6f6e74656e742d747970650700106170706c69636174696f6e2f6a736f6e0d3a6d6573736167652d74797065070009657863657074"
    "696f6e7b226d657373616765223a22546f6f206d616e792072657175657374732c20706c656173652077616974206265666f726520"
    "747279696e6720616761696e2e227de8ffb26a"
)
HEADERS = [(":event-type", "messageStop"), (":content-type", "application/json"), (":message-type", "event")]


def frames(body: bytes, max_frame: int = 16 * 1024 * 1024) -> list[tuple[str | None, bytes]]:
    """What the framer hands its sink, fed at once."""
    seen: list[tuple[str | None, bytes]] = []

    def sink(event: str | None, payload: bytes) -> int:
        seen.append((event, payload))
        return 0

    framer = AWSEventStreamFramer(sink, "test", max_frame)
    framer.feed(body)
    framer.eof()
    return seen


def corrupt(body: bytes, at: int) -> bytes:
    return body[:at] + bytes((body[at] ^ 0x20,)) + body[at + 1 :]


# --- the layout ---------------------------------------------------------------------------


def test_frames_are_written_byte_for_byte_as_the_layout_says() -> None:
    assert encode_frame(HEADERS, b'{"stopReason":"end_turn"}') == MESSAGE_STOP
    assert encode_frame([(":exception-type", "throttlingException"), (":content-type", "application/json"), (":message-type", "exception")], b'{"message":"Too many requests, please wait before trying again."}') == THROTTLING
    total, headers_length, crc = struct.unpack_from(">III", MESSAGE_STOP)
    assert (total, headers_length, crc) == (len(MESSAGE_STOP), 81, zlib.crc32(MESSAGE_STOP[:8]))
    assert struct.unpack_from(">I", MESSAGE_STOP, total - 4)[0] == zlib.crc32(MESSAGE_STOP[:-4])


def test_event_exception_and_error_frames_are_named_for_the_protocol() -> None:
    error = encode_frame([(":message-type", "error"), (":error-code", "InternalFailure"), (":error-message", "oops")], b"")
    assert frames(MESSAGE_STOP + THROTTLING + error) == [
        ("messageStop", b'{"stopReason":"end_turn"}'),
        ("exception:throttlingException", b'{"message":"Too many requests, please wait before trying again."}'),
        ("error:InternalFailure", b'{"message":"oops"}'),
    ]


def test_headers_of_every_value_type_are_read_by_their_sizes() -> None:
    def header(name: bytes, kind: int, value: bytes) -> bytes:
        return bytes((len(name),)) + name + bytes((kind,)) + value

    block = b"".join(
        [
            header(b"t", 0, b""),
            header(b"f", 1, b""),
            header(b"byte", 2, b"\xff"),
            header(b"short", 3, b"\x00\x01"),
            header(b"int", 4, b"\x00\x00\x00\x01"),
            header(b"long", 5, b"\x00" * 8),
            header(b"bytes", 6, b"\x00\x03abc"),
            header(b":event-type", 7, b"\x00\x0bmessageStop"),
            header(b"timestamp", 8, b"\x00\x00\x01\x8b\xcf\xe5\x68\x00"),
            header(b"uuid", 9, bytes(range(16))),
        ]
    )
    payload = b'{"stopReason":"end_turn"}'
    prelude = struct.pack(">II", 16 + len(block) + len(payload), len(block))
    message = prelude + struct.pack(">I", zlib.crc32(prelude)) + block + payload
    frame = message + struct.pack(">I", zlib.crc32(message))
    assert frames(frame) == [("messageStop", payload)]


@pytest.mark.skipif(not CORPUS.exists(), reason="../shared/corpus is not here")
def test_every_recorded_frame_checks_and_is_written_again_byte_for_byte() -> None:
    paths = sorted((CORPUS / "bedrock").glob("*.sse"))
    assert paths
    for path in paths:
        data = path.read_bytes()
        recorded = frames_of(data)
        assert frames(data) == [(h[":event-type"], p) for h, p in recorded]
        assert b"".join(encode_frame(list(h.items()), p) for h, p in recorded) == data


# --- any split, caps, the end ---------------------------------------------------------


def test_frames_split_at_every_byte_and_several_per_push_decode_the_same() -> None:
    _, outcome = every_split(HELLO)
    assert (outcome.end, outcome.message.items, outcome.skipped_frames) == ("complete", (TextDone("Hello, wörld"),), 0)


def test_a_frame_cut_at_the_end_is_truncated_whether_in_its_prelude_or_after() -> None:
    body = MESSAGE_START + text(0, "ab")
    for cut in (5, 20, len(text(0, "cd")) - 1):
        _, outcome = run(body + text(0, "cd")[:cut])
        assert outcome.end == "truncated" and outcome.message.items == (TextDone("ab"),)
        assert kinds(outcome) == {"cut_frame": 1}
    _, done = run(HELLO + b"\x00\x00\x00")  # after metadata the stream was over: what follows is not read
    assert done.end == "complete" and kinds(done) == {}


@pytest.mark.parametrize(
    ("offset", "what"),
    [(-1, "the message CRC does not match"), (-30, "the message CRC does not match"), (9, "the prelude CRC does not match"), (2, "the prelude CRC does not match")],
    ids=["message crc", "payload", "prelude crc", "length"],
)
def test_a_corrupted_frame_fails_with_corrupt_frame_keeping_what_arrived(offset: int, what: str) -> None:
    bad = text(0, "lost")
    at = offset if offset >= 0 else len(bad) + offset
    body = MESSAGE_START + text(0, "kept") + corrupt(bad, at) + text(0, "never read") + message_stop() + metadata()
    _, outcome = every_split(body)
    assert outcome.end == "failed" and outcome.message.items == (TextDone("kept"),)
    assert outcome.error == unievent.ProviderError(f"corrupt event-stream frame: {what}", "corrupt_frame", None, {"message": f"corrupt event-stream frame: {what}"})


@pytest.mark.parametrize(
    ("offset", "what"),
    [(-1, "the message CRC does not match"), (-30, "the message CRC does not match"), (9, "the prelude CRC does not match"), (2, "the prelude CRC does not match")],
    ids=["message crc", "payload", "prelude crc", "length"],
)
def test_a_corrupted_frame_after_a_run_of_its_block_fails_after_the_run(offset: int, what: str) -> None:
    # whole, the frames before it are one run of one header block, read together: the
    # run stops at the corrupt frame, which the framer then reports as any other
    bad = text(0, "lost")
    at = offset if offset >= 0 else len(bad) + offset
    run_of = b"".join(text(0, t) for t in ("a", "b", "c", "d"))
    body = MESSAGE_START + run_of + corrupt(bad, at) + text(0, "never read") + message_stop() + metadata()
    _, outcome = every_split(body)
    assert outcome.end == "failed" and outcome.message.items == (TextDone("abcd"),)
    assert outcome.error is not None and outcome.error.message == f"corrupt event-stream frame: {what}"


def test_a_wrong_prelude_crc_is_corrupt_even_where_the_message_crc_holds_over_it() -> None:
    # the message CRC continues from the prelude CRC the frame states, so it cannot
    # tell a wrong one: the prelude check must, inside a run of the block too
    bad = text(0, "lost")
    stated = int.from_bytes(bad[8:12], "big") ^ 1
    head = bad[:8] + stated.to_bytes(4, "big") + bad[12:-4]
    bad = head + zlib.crc32(head[8:], stated).to_bytes(4, "big")
    body = MESSAGE_START + text(0, "a") + text(0, "b") + bad + message_stop() + metadata()
    _, outcome = every_split(body)
    assert outcome.end == "failed" and outcome.message.items == (TextDone("ab"),)
    assert outcome.error is not None and outcome.error.message == "corrupt event-stream frame: the prelude CRC does not match"


def test_lengths_that_do_not_fit_are_corrupt() -> None:
    prelude = struct.pack(">II", 20, 10)  # 10 header bytes cannot fit in a 20-byte frame
    bad = prelude + struct.pack(">I", zlib.crc32(prelude)) + b"\x00" * 8
    _, outcome = run(MESSAGE_START + bad)
    assert outcome.error is not None and outcome.error.message == "corrupt event-stream frame: the lengths do not fit"


@pytest.mark.parametrize(
    ("block", "what"),
    [
        (b"\x01x\x0a", "header 'x' has unknown value type 10"),
        (b"\x01x\x07\x00\x09ab", "a header value runs past the header block"),
        (b"\x05x", "a header name runs past the header block"),
        (b"\x01x\x00\x01x\x01", "header 'x' is given twice"),
        (b"\x01x\x07\x00", "a header value runs past the header block"),
    ],
    ids=["unknown type", "value too long", "name too long", "twice", "cut length"],
)
def test_headers_that_do_not_parse_are_corrupt(block: bytes, what: str) -> None:
    prelude = struct.pack(">II", 16 + len(block) + 2, len(block))
    message = prelude + struct.pack(">I", zlib.crc32(prelude)) + block + b"{}"
    _, outcome = run(MESSAGE_START + message + struct.pack(">I", zlib.crc32(message)))
    assert outcome.error is not None and (outcome.error.type, outcome.error.message) == ("corrupt_frame", f"corrupt event-stream frame: {what}")


@pytest.mark.parametrize("pieces", [1, 7, 1000], ids=["whole", "in 7 pieces", "in many pieces"])
def test_a_length_over_the_cap_raises_at_its_prelude_however_it_arrives(pieces: int) -> None:
    big = text(0, "x" * 500)
    body = MESSAGE_START + text(0, "a") + text(0, "b") + big  # whole, `big` ends a run of its block
    decoder = unievent.StreamDecoder("bedrock_converse", max_frame=400)
    size = -(-len(body) // pieces)
    events: list[Any] = []
    with pytest.raises(unievent.FrameTooLargeError) as raised:
        for start in range(0, len(body), size):
            events += decoder.push(body[start : start + size])
    assert raised.value.size == len(big) and raised.value.limit == 400  # the prelude's length: nothing gathered
    events += raised.value.events
    assert [e.item for e in events if isinstance(e, unievent.DeltaEvent)] == [unievent.TextDelta("a"), unievent.TextDelta("b")]
    _, outcome = decoder.finish()
    assert outcome.error is not None and outcome.error.type == "frame_too_large"


def test_a_frame_of_exactly_the_cap_is_read() -> None:
    parts = [MESSAGE_START, text(0, "a"), stop(0), message_stop(), metadata()]
    longest = max(len(p) for p in parts)
    assert run(b"".join(parts), max_frame=longest)[1].end == "complete"
    with pytest.raises(unievent.FrameTooLargeError):
        run(b"".join(parts), max_frame=longest - 1)


def test_a_body_that_is_no_event_stream_is_kept() -> None:
    html = b"<html><body><h1>502 Bad Gateway</h1></body></html>"
    _, outcome = every_split(html)
    assert (outcome.end, outcome.body) == ("not_event_stream", html.decode())
    _, short = run(b"oops")  # shorter than a prelude
    assert (short.end, short.body) == ("not_event_stream", "oops")
    _, empty = run(b"")
    assert empty.end == "truncated"


def test_a_json_error_body_fails_with_its_error() -> None:
    _, outcome = run(b'{"error": {"message": "The security token included in the request is invalid.", "type": "UnrecognizedClientException"}}')
    assert outcome.end == "failed" and outcome.error is not None and outcome.error.type == "UnrecognizedClientException"


def test_a_payload_that_is_no_json_is_skipped() -> None:
    junk = encode_frame([(":event-type", "contentBlockDelta"), (":message-type", "event")], b"not json")
    _, outcome = run(MESSAGE_START + junk + text(0, "a") + stop(0) + message_stop() + metadata())
    assert (outcome.end, outcome.skipped_frames) == ("complete", 1)


def test_frames_after_the_end_are_counted_and_a_corrupt_one_too() -> None:
    _, outcome = run(HELLO + text(1, "late") + corrupt(text(2, "bad"), 40))
    assert outcome.end == "complete" and kinds(outcome) == {"frames_after_end": 2}


def test_the_framer_reports_a_corrupt_frame_once_and_reads_nothing_after() -> None:
    seen = frames(MESSAGE_START + corrupt(MESSAGE_START, 20) + MESSAGE_START + b"more")
    assert [name for name, _ in seen] == ["messageStart", CORRUPT_FRAME]
    assert orjson.loads(seen[1][1]) == {"message": "corrupt event-stream frame: the message CRC does not match"}


def test_auto_picks_the_framing_by_the_prelude_crc_in_any_split() -> None:
    _, outcome = every_split(HELLO, "auto")
    assert (outcome.protocol, outcome.end) == ("bedrock_converse", "complete")
    # a body whose first byte is a control byte but whose first 12 bytes are no prelude is read as SSE
    _, other = run(b"\x00\x00\x00\x20 not a frame at all\n\n", "auto")
    assert other.end == "not_event_stream"
    _, tiny = run(b"\x00\x01", "auto")
    assert tiny.end == "not_event_stream"


def test_another_protocol_given_event_stream_frames_does_not_read_them() -> None:
    assert run(HELLO, "gemini")[1].end == "not_event_stream"
    assert run(HELLO, "openai_embeddings")[1].end in ("not_event_stream", "failed")
    assert run(Path(__file__).read_bytes()[:200], "bedrock_converse")[1].end == "not_event_stream"
