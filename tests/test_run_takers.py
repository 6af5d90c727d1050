"""The run takers' contract: linear whatever the frames, and equal to the slow path.

A run taker (a handler's `raw_run`, see `_ondemand.Runs`) recognizes hot frames by
their bytes and parses their strings together.  A frame whose bytes match the
template but whose hole holds no string (`null`, a number, half of a UTF-8 character)
must cost the taker no more than a constant: `Runs.examined` counts the frames each
taker collects, and for every protocol with a taker, bodies of hot frames mixed with
such frames must keep that count within a small multiple of the frames.  Each body
also decodes exactly as with the fast paths off, whole and in random pieces.

The four inputs of the fast-path defects found by fuzzing are written out here too,
each in every split.
"""

from __future__ import annotations

import base64
import random
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import unievent
from tests.helpers import decoder_on_path
from unievent._decoder import StreamDecoder as RuntimeStreamDecoder  # takes any protocol name
from unievent._framing.aws_eventstream import encode_frame
from unievent._ondemand import RUN_MOST, Runs

# --- bodies: each protocol's text answer, its deltas' JSON strings given as bytes -------------

Holes = list[bytes]


def _sse(objs: list[bytes], names: list[str] | None = None) -> bytes:
    if names is None:
        return b"".join(b"data: " + obj + b"\n\n" for obj in objs)
    return b"".join(b"event: " + name.encode() + b"\ndata: " + obj + b"\n\n" for name, obj in zip(names, objs, strict=True))


def chat(holes: Holes) -> bytes:
    head = b'{"id":"c1","object":"chat.completion.chunk","created":1,"model":"m","choices":[{"index":0,"delta":'
    frames = [head + b'{"role":"assistant","content":""}}]}']
    frames += [head + b'{"content":' + hole + b"}}]}" for hole in holes]
    frames.append(head + b'{},"finish_reason":"stop"}]}')
    return _sse(frames) + b"data: [DONE]\n\n"


def _anthropic_objs(holes: Holes) -> tuple[list[bytes], list[str]]:
    objs = [
        b'{"type":"message_start","message":{"id":"m","type":"message","role":"assistant","content":[],'
        b'"model":"claude","usage":{"input_tokens":3,"output_tokens":1}}}',
        b'{"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}',
    ]
    objs += [b'{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":' + h + b"}}" for h in holes]
    objs += [
        b'{"type":"content_block_stop","index":0}',
        b'{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":9}}',
        b'{"type":"message_stop"}',
    ]
    return objs, [_type_of(obj) for obj in objs]


def _type_of(obj: bytes) -> str:
    start = obj.index(b'"type":"') + 8
    return obj[start : obj.index(b'"', start)].decode()


def anthropic(holes: Holes) -> bytes:
    objs, names = _anthropic_objs(holes)
    return _sse(objs, names)


def responses(holes: Holes) -> bytes:
    objs: list[bytes] = []
    seq = 0

    def ev(body: bytes) -> None:  # body: `TYPE",` and the other fields
        nonlocal seq
        kind, _sep, rest = body.partition(b'",')
        objs.append(b'{"type":"' + kind + b'","sequence_number":%d,' % seq + rest)
        seq += 1

    response = b'"response":{"id":"resp_1","object":"response","status":"in_progress","output":[]}}'
    ev(b'response.created",' + response)
    ev(b'response.output_item.added","output_index":0,"item":{"id":"msg_1","type":"message","role":"assistant","status":"in_progress","content":[]}}')
    ev(b'response.content_part.added","item_id":"msg_1","output_index":0,"content_index":0,"part":{"type":"output_text","text":""}}')
    for k, hole in enumerate(holes):
        ev(
            b'response.output_text.delta","item_id":"msg_1","output_index":0,"content_index":0,"delta":'
            + hole
            + b',"logprobs":[],"obfuscation":"%s"}' % b"abcdefghij"[: 1 + k % 9]
        )
    ev(b'response.output_item.done","output_index":0,"item":{"id":"msg_1","type":"message","role":"assistant","status":"completed","content":[]}}')
    ev(
        b'response.completed","response":{"id":"resp_1","object":"response","status":"completed","output":[],'
        b'"usage":{"input_tokens":3,"output_tokens":9,"total_tokens":12}}}'
    )
    return _sse(objs, [_type_of(obj) for obj in objs])


def gemini(holes: Holes) -> bytes:
    records = [
        b'{"candidates":[{"content":{"parts":[{"text":' + hole + b'}],"role":"model"},"index":0}],'
        b'"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":%d,"totalTokenCount":%d},'
        b'"modelVersion":"gemini-2.5-pro","responseId":"r1"}' % (k + 1, k + 4)
        for k, hole in enumerate(holes)
    ]
    records.append(
        b'{"candidates":[{"content":{"parts":[{"text":""}],"role":"model"},"finishReason":"STOP","index":0}],'
        b'"usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":9,"totalTokenCount":12},'
        b'"modelVersion":"gemini-2.5-pro","responseId":"r1"}'
    )
    return b"".join(b"data: " + record + b"\r\n\r\n" for record in records)


def ollama(holes: Holes) -> bytes:
    lines = [
        b'{"model":"qwen3:8b","created_at":"2025-10-26T17:15:%02d.%dZ","message":{"role":"assistant","content":'
        % (k % 60, 1 + k % 7)
        + hole
        + b'},"done":false}'
        for k, hole in enumerate(holes)
    ]
    lines.append(b'{"model":"qwen3:8b","created_at":"2025-10-26T17:16:00Z","done":true,"done_reason":"stop","eval_count":9}')
    return b"".join(line + b"\n" for line in lines)


def cohere(holes: Holes) -> bytes:
    objs = [
        b'{"id":"3ec8","type":"message-start","delta":{"message":{"role":"assistant","content":[]}}}',
        b'{"type":"content-start","index":0,"delta":{"message":{"content":{"type":"text","text":""}}}}',
    ]
    objs += [b'{"type":"content-delta","index":0,"delta":{"message":{"content":{"text":' + h + b"}}}}" for h in holes]
    objs += [
        b'{"type":"content-end","index":0}',
        b'{"type":"message-end","delta":{"finish_reason":"COMPLETE","usage":{"tokens":{"input_tokens":3,"output_tokens":9}}}}',
    ]
    return _sse(objs, [_type_of(obj) for obj in objs]) + b"data: [DONE]\n\n"


def _aws(name: str, payload: bytes) -> bytes:
    headers = [(":event-type", name), (":content-type", "application/json"), (":message-type", "event")]
    return encode_frame(headers, payload)


def converse(holes: Holes) -> bytes:
    frames = [_aws("messageStart", b'{"p":"abc","role":"assistant"}')]
    frames += [
        _aws("contentBlockDelta", b'{"contentBlockIndex":0,"delta":{"text":' + hole + b'},"p":"%s"}' % b"abcdef"[: 1 + k % 5])
        for k, hole in enumerate(holes)
    ]
    frames += [
        _aws("contentBlockStop", b'{"contentBlockIndex":0,"p":"ab"}'),
        _aws("messageStop", b'{"p":"abcd","stopReason":"end_turn"}'),
        _aws("metadata", b'{"metrics":{"latencyMs":5},"p":"a","usage":{"inputTokens":3,"outputTokens":9,"totalTokens":12}}'),
    ]
    return b"".join(frames)


def invoke(holes: Holes) -> bytes:
    objs, _names = _anthropic_objs(holes)
    return b"".join(
        _aws("chunk", b'{"bytes":"' + base64.b64encode(obj) + b'","p":"%s"}' % b"abcdefgh"[: 1 + k % 7])
        for k, obj in enumerate(objs)
    )


BODIES: dict[str, Callable[[Holes], bytes]] = {
    "openai_chat": chat,
    "anthropic": anthropic,
    "openai_responses": responses,
    "gemini": gemini,
    "ollama": ollama,
    "cohere": cohere,
    "bedrock_converse": converse,
    "bedrock_invoke": invoke,
}


# --- the mixes of hot frames and frames that only look hot ------------------------------------


def alternating(n: int) -> Holes:
    """A string, then `null`, in turn: every other frame matches but holds no string."""
    return [b'"w%d "' % k if k % 2 == 0 else b"null" for k in range(n)]


def mostly_null(n: int) -> Holes:
    """Runs of strings broken by holes of other JSON values, each at its own distance."""
    others = [b"null", b"7", b"{}", b'["x"]', b'"a" "b"', b"true"]
    return [others[k % len(others)] if k % (2 + k % 5) == 0 else b'"s%d"' % k for k in range(n)]


def cut_characters(n: int) -> Holes:
    """Every chunk cuts a UTF-8 character in two, so that no hole is UTF-8 alone."""
    text = "é世✓" * n
    data = text.encode()
    step = max(1, len(data) // n)
    cuts = [data[i : i + step] for i in range(0, len(data), step)][:n]
    return [b'"' + piece + b'"' for piece in cuts]


MIXES = {"alternating": alternating, "mostly_null": mostly_null, "cut_characters": cut_characters}


# --- decoding --------------------------------------------------------------------------------


def _decoder(protocol: str, slow: bool, **options: Any) -> RuntimeStreamDecoder:
    return decoder_on_path(protocol, slow, stream_id="s", clock=lambda: 0, **options)


def decode(protocol: str, pieces: list[bytes], slow: bool = False, **options: Any) -> tuple[Any, ...]:
    """Events, outcome and the type of the unievent error raised, if any (its message may
    say how much of an overlong line had arrived, which depends on the split)."""
    decoder = _decoder(protocol, slow, **options)
    events: list[Any] = []
    raised: str | None = None
    try:
        for piece in pieces:
            events += decoder.push(piece)
    except unievent.UniEventError as error:
        events += getattr(error, "events", [])
        raised = type(error).__name__
    last, outcome = decoder.finish()
    return events + last, outcome, raised


def pieces(body: bytes, seed: int) -> list[bytes]:
    rng = random.Random(seed)
    out, at = [], 0
    while at < len(body):
        size = rng.choice([1, 3, 17, 200, 1500, 9000])
        out.append(body[at : at + size])
        at += size
    return out


def run_windows(decoder: RuntimeStreamDecoder) -> Iterator[Runs]:
    """The run windows of the decoder's handler and of any handler it hands over to."""
    handler: Any = decoder.handler
    while handler is not None:
        runs = getattr(handler, "runs", None)
        if isinstance(runs, Runs):
            yield runs
        handler = getattr(handler, "inner", None)


def frames_examined(protocol: str, body: bytes) -> tuple[int, int]:
    """The frames the run takers collected, and how many takers (handlers) there were."""
    decoder = _decoder(protocol, slow=False)
    decoder.push(body)
    decoder.finish()
    windows = list(run_windows(decoder))
    return sum(runs.examined for runs in windows), len(windows)


# --- the contract ----------------------------------------------------------------------------


@pytest.mark.parametrize("protocol", sorted(BODIES))
def test_a_run_taker_examines_each_frame_a_bounded_number_of_times(protocol: str) -> None:
    for name, mix in MIXES.items():
        for n in (400, 1600):
            examined, layers = frames_examined(protocol, BODIES[protocol](mix(n)))  # InvokeModel: 2 layers
            assert examined <= 3 * n * layers, (name, n, examined)


@pytest.mark.parametrize("protocol", sorted(BODIES))
def test_a_hot_stream_is_examined_once_and_taken_on_demand(protocol: str) -> None:
    n = 1000
    body = BODIES[protocol]([b'"w%d "' % k for k in range(n)])
    decoder = _decoder(protocol, slow=False)
    decoder.push(body)
    _last, outcome = decoder.finish()
    assert outcome.end == "complete"
    layers = len(list(run_windows(decoder)))  # Bedrock InvokeModel: its own and Anthropic's
    assert sum(runs.examined for runs in run_windows(decoder)) <= (n + 2) * layers
    assert getattr(decoder.handler, "fast_frames", 0) >= n - 10


@pytest.mark.parametrize("mix", sorted(MIXES))
@pytest.mark.parametrize("protocol", sorted(BODIES))
def test_mixed_frames_decode_as_the_slow_path_does_in_every_split(protocol: str, mix: str) -> None:
    body = BODIES[protocol](MIXES[mix](120))
    slow = decode(protocol, [body], slow=True)
    assert decode(protocol, [body]) == slow
    for seed in range(3):
        assert decode(protocol, pieces(body, seed)) == slow
    unievent.validate(slow[0], partial=slow[1].end != "complete")


def test_the_window_shrinks_after_waste_and_grows_back() -> None:
    runs = Runs()
    assert runs.window == RUN_MOST  # a stream that never wastes takes a push's run in one go
    assert runs.strings([b'"a"', b'"b"', b"null", b'"c"']) == ["a", "b"]
    assert runs.window == 1  # collected and not taken: one frame next
    for expected in (2, 4, 8):
        batch = runs.window
        assert runs.strings([b'"x"'] * batch) == ["x"] * batch
        assert runs.window == expected  # a batch as long as the window doubles it
    assert runs.strings([b'"x"'] * 3) == ["x"] * 3
    assert runs.window == 8  # a shorter batch taken whole (the run or the push ended): as it was
    assert runs.strings([]) == [] and runs.window == 8  # nothing collected: no change
    runs.took(5, 4)  # a handler's own parse that took less than it collected
    assert runs.window == 1
    assert runs.examined == 4 + 1 + 2 + 4 + 3 + 5
    assert runs.fixed([b'H"1"T', b'H"2"T', b"X"], 0, b"H", b"T") == ["1"]  # as far as the window
    runs.window = 8
    assert runs.fixed([b'H"1"T', b'H"2"T', b"X"], 0, b"H", b"T") == ["1", "2"]
    assert runs.fixed([b"X", b'H"2"T'], 0, b"H", b"T") == []
    assert runs.fixed([b'H"1"T', b"HnullT", b'H"3"T'], 0, b"H", b"T") == ["1"]  # up to a hole with no string
    assert runs.window == 1
    runs.window = RUN_MOST
    for _ in range(3):
        runs.strings([b'"x"'] * RUN_MOST)
    assert runs.window == RUN_MOST  # never more


# --- the four inputs the fuzzer found --------------------------------------------------------


def every_split(body: bytes) -> Iterator[list[bytes]]:
    yield [body]
    yield [body[i : i + 1] for i in range(len(body))]
    for seed in range(4):
        yield pieces(body, seed)


def test_a_block_opened_by_a_tool_use_delta_takes_its_text_deltas_as_the_table_says() -> None:
    frames = [
        _aws("messageStart", b'{"role":"assistant"}'),
        _aws("contentBlockDelta", b'{"contentBlockIndex":0,"delta":{"toolUse":{"input":"{\\"a\\":"}}}'),
    ]
    frames += [_aws("contentBlockDelta", b'{"contentBlockIndex":0,"delta":{"text":"hi%d"}}' % k) for k in range(6)]
    frames += [
        _aws("contentBlockStop", b'{"contentBlockIndex":0}'),
        _aws("messageStop", b'{"stopReason":"end_turn"}'),
        _aws("metadata", b'{"usage":{"inputTokens":1,"outputTokens":2}}'),
    ]
    body = b"".join(frames)
    slow = decode("bedrock_converse", [body], slow=True, side_events=True)
    events, outcome, raised = slow
    # the block is the unnamed tool use its first delta opened: its deltas are that
    # block's, kept on the side channel, never text of the answer
    assert raised is None and outcome.end == "complete"
    assert not any(isinstance(e, unievent.DeltaEvent) and type(e.item) is unievent.TextDelta for e in events)
    assert {a.kind for a in outcome.anomalies} >= {"unnamed_tool_call", "foreign_delta"}
    for split in every_split(body):
        assert decode("bedrock_converse", split, side_events=True) == slow


@pytest.mark.parametrize("number", [b"1.0", b"true", b"1e400", b"-1", b"99999999999999999999999999", b'"1"'])
def test_a_sequence_number_that_is_no_int_is_read_alike_in_every_build(number: bytes) -> None:
    body = responses([b'"a"', b'"b"', b'"c"'])
    # the second event's number, written another way
    body = body.replace(b'"sequence_number":1,', b'"sequence_number":' + number + b",", 1)
    slow = decode("openai_responses", [body], slow=True)
    assert slow[1].end == "complete" and slow[2] is None
    assert "".join(i.text for i in slow[1].message.items if type(i) is unievent.TextDone) == "abc"
    for split in every_split(body):
        assert decode("openai_responses", split) == slow


def test_the_frame_cap_measures_the_same_bytes_in_every_split() -> None:
    payload = b'{"choices":[{"index":0,"delta":{"content":"' + b"x" * 250 + b'"}}]}'
    assert len(payload) == 298 and len(b"data: " + payload) == 304
    body = b"data: " + payload + b'\n\ndata: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
    for cap, refused in ((300, True), (303, True), (304, False)):
        results = {repr(decode("openai_chat", split, max_frame=cap)) for split in every_split(body)}
        results.add(repr(decode("openai_chat", [body], slow=True, max_frame=cap)))
        assert len(results) == 1, cap
        _events, outcome, raised = decode("openai_chat", [body], max_frame=cap)
        assert (raised == "FrameTooLargeError") is refused
        assert outcome.end == ("failed" if refused else "complete")


@pytest.mark.parametrize("protocol", sorted(BODIES))
def test_the_frame_cap_measures_the_same_bytes_in_every_split_for_every_protocol(protocol: str) -> None:
    body = BODIES[protocol]([b'"%s"' % (b"y" * (k * 7 % 90)) for k in range(12)])
    sizes = sorted({len(line) for line in body.split(b"\n")})
    for cap in range(sizes[-1] - 12, sizes[-1] + 12, 3):
        expected = decode(protocol, [body], max_frame=cap)
        assert decode(protocol, [body], slow=True, max_frame=cap) == expected, cap
        for seed in range(3):
            assert decode(protocol, pieces(body, seed), max_frame=cap) == expected, (cap, seed)


def test_a_frame_of_many_short_lines_is_held_in_about_its_size() -> None:
    import tracemalloc

    lines = [b'data: {"choices":[{"index":0,"delta":{"content":"'] + [b"data: xy"] * 40_000 + [b'data: "}}]}']
    frame = b"\n".join(lines) + b"\n"  # its blank line has not arrived
    decoder = _decoder("openai_chat", slow=False)
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        for at in range(0, len(frame), 4096):
            decoder.push(frame[at : at + 4096])
        held = tracemalloc.get_traced_memory()[0] - before
    finally:
        tracemalloc.stop()
    assert held <= 2 * len(frame), (held, len(frame))
