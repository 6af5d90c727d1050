"""The on-demand path is exact: with it and without it (UNIEVENT_SLOW_PATH=1) every
stream decodes to the same events, outcome and anomalies, and it is really taken on
the frames long answers are made of.
"""

from __future__ import annotations

import base64
import importlib
import itertools
import json
import random
import sys
import zlib
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import unievent
from tests import fuzzing
from tests.helpers import decoder_on_path, stand_in, text_of
from unievent._decoder import StreamDecoder as RuntimeStreamDecoder  # takes any protocol name
from unievent._framing.aws_eventstream import encode_frame
from unievent._ondemand import one_string, strings

REPO = Path(__file__).resolve().parent.parent
CONFORMANCE = REPO / "tests" / "conformance"
sys.path.insert(0, str(REPO / "tests" / "bench"))
gen: Any = importlib.import_module("gen")  # the benchmark's stream generator
HOLES = stand_in("_holes")


def decode(protocol: str, pieces: list[bytes], slow: bool, **options: Any) -> tuple[Any, ...]:
    """Events, outcome and the exception raised (if any), one path forced."""
    decoder = decoder_on_path(protocol, slow, stream_id="s", clock=lambda: 0, **options)
    events: list[Any] = []
    raised = None
    try:
        for piece in pieces:
            events += decoder.push(piece)
    except unievent.UniEventError as error:
        raised = type(error).__name__
        events += getattr(error, "events", [])
    last, outcome = decoder.finish()
    return events + last, outcome, raised, decoder.fast_frames


def same_both_ways(protocol: str, pieces: list[bytes], **options: Any) -> int:
    fast = decode(protocol, pieces, slow=False, **options)
    slow = decode(protocol, pieces, slow=True, **options)
    assert fast[:3] == slow[:3]
    assert slow[3] == 0
    return int(fast[3])


def test_corpus_streams_decode_the_same_both_ways() -> None:
    seeds = fuzzing.corpus_seeds()
    if not seeds:
        pytest.skip("../shared/corpus is not here")
    taken = 0
    rng = random.Random(7)
    for protocol, _label, body in seeds:
        taken += same_both_ways(protocol, [body])
        cuts = sorted(rng.sample(range(1, len(body)), min(20, len(body) - 1)))
        same_both_ways(protocol, [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)])
    assert taken > 1000  # the recorded streams' text deltas take the path


@pytest.mark.parametrize("path", sorted(CONFORMANCE.glob("*.json")), ids=lambda p: p.stem)
def test_conformance_streams_decode_the_same_both_ways(path: Path) -> None:
    case = json.loads(path.read_text())
    pieces = [chunk.encode("latin-1") for chunk in case["chunks"]]
    options = {k: v for k, v in case["options"].items() if k != "stream_id"}
    same_both_ways(case["protocol"], pieces, **options)


@pytest.mark.parametrize("protocol", fuzzing.PROTOCOLS)
def test_mutated_streams_decode_the_same_both_ways(protocol: str) -> None:
    seeds = [s for s in fuzzing.suite_seeds() + fuzzing.corpus_seeds() if s[0] == protocol]
    for n in range(150):
        rng = random.Random(n)
        body = fuzzing.mutate(rng, seeds[n % len(seeds)][2])
        same_both_ways(protocol, [body], max_frame=fuzzing.MAX_FRAME)


@pytest.mark.parametrize("protocol", ["openai_chat", "anthropic", "openai_responses", "gemini"])
def test_the_benchmark_streams_take_the_path(protocol: str) -> None:
    stream = getattr(gen, protocol)(400)
    frames = stream.data.count(b"data: ")
    fast = decode(protocol, [stream.data], slow=False)
    assert fast[1].end == "complete"
    assert fast[3] >= 0.85 * frames, (fast[3], frames)


@pytest.mark.parametrize(
    ("protocol", "literal"), [("openai_responses", b'"item_id":"msg_'), ("openai_chat", b'"id":"chatcmpl-')]
)
def test_a_percent_sign_beside_the_hole_is_a_percent_sign(protocol: str, literal: bytes) -> None:
    """The literals around a counter are matched through a `%` format of them and the
    counter: a `%` written in them is matched as itself."""
    stream = getattr(gen, protocol)(200).data.replace(literal, literal + b"%d%s%%")
    assert same_both_ways(protocol, [stream]) >= 0.85 * stream.count(b"data: ")


# --- single-byte changes to the frames the path takes ------------------------------------

HOT = {
    "openai_chat": gen.openai_chat(60).data,
    "anthropic": gen.anthropic(60).data,
    "openai_responses": gen.openai_responses(60).data,
    "gemini": gen.gemini(60).data,  # records end in CRLF CRLF
}


def hot_frames(protocol: str) -> tuple[list[bytes], bytes]:
    """The frames of a hot stream and the blank line between them."""
    separator = gen.SEPARATORS.get(protocol, b"\n\n")
    return HOT[protocol].split(separator), separator
# bytes that change a JSON text's meaning or validity in every way that matters here:
# structure, quotes, escapes, whitespace, digits, letters, raw newlines, bad UTF-8
EDITS = [b" ", b"\t", b'"', b"\\", b"{", b"}", b",", b":", b"0", b"9", b"a", b"Z", b"\n", b"\xff", b"\xc3", b"\x00", b""]


def interesting(payload: bytes) -> list[int]:
    """Where a changed byte matters most: at and beside every quote, bracket, colon,
    comma and digit, and throughout the end of the frame (its padding and suffix)."""
    marks = {i for i, byte in enumerate(payload) if byte in b'"{}[]:,0123456789\\'}
    near = {j for i in marks for j in (i - 1, i, i + 1) if 0 <= j < len(payload)}
    return sorted(near | set(range(max(0, len(payload) - 40), len(payload))))


@settings(max_examples=1500, deadline=None)
@given(st.sampled_from(sorted(HOT)), st.data(), st.sampled_from(EDITS), st.booleans())
def test_any_byte_of_a_hot_frame_changed_decodes_the_same_both_ways(
    protocol: str, data: st.DataObject, edit: bytes, insert: bool
) -> None:
    frames, separator = hot_frames(protocol)
    index = data.draw(st.integers(0, len(frames) - 1))
    head, found, payload = frames[index].partition(b"data: ")
    if not found:
        return
    at = data.draw(st.sampled_from(interesting(payload)))
    payload = payload[:at] + edit + payload[at + (0 if insert else 1) :]
    frames[index] = head + found + payload
    same_both_ways(protocol, [separator.join(frames)])


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(sorted(HOT)), st.data())
def test_reordered_keys_and_duplicate_keys_decode_the_same_both_ways(protocol: str, data: st.DataObject) -> None:
    frames, separator = hot_frames(protocol)
    index = data.draw(st.integers(0, len(frames) - 1))
    head, found, payload = frames[index].partition(b"data: ")
    try:
        obj = orjson.loads(payload)
    except orjson.JSONDecodeError:
        return
    if type(obj) is not dict:
        return
    keys = list(obj)
    order = data.draw(st.permutations(keys))
    text = "{" + ",".join(f"{json.dumps(k)}:{orjson.dumps(obj[k]).decode()}" for k in order)
    if data.draw(st.booleans()) and keys:
        key = data.draw(st.sampled_from(keys))
        text += f',{json.dumps(key)}:{json.dumps("dup")}'  # a duplicate key: the last one wins
    frames[index] = head + found + (text + "}").encode()
    same_both_ways(protocol, [separator.join(frames)])


VALUES = ["5", "-0.5e3", "null", "true", "[]", '["x"]', "{}", '{"a":"b"}', '""', '"\\u00e9\\"q\\\\"', '"a\\\\"', '"\\ud83d\\ude00"']


@settings(max_examples=300, deadline=None)
@given(st.sampled_from(sorted(HOT)), st.data(), st.sampled_from(VALUES))
def test_another_json_value_in_the_hole_decodes_the_same_both_ways(protocol: str, data: st.DataObject, value: str) -> None:
    frames, separator = hot_frames(protocol)
    index = data.draw(st.integers(0, len(frames) - 1))
    for key in (b'"text":', b'"thinking":', b'"partial_json":', b'"content":', b'"delta":', b'"arguments":'):
        at = frames[index].find(key + b'"')
        if at >= 0:
            start = at + len(key)
            end = frames[index].find(b'"', start + 1) + 1
            frames[index] = frames[index][:start] + value.encode() + frames[index][end:]
            break
    same_both_ways(protocol, [separator.join(frames)])


def count_runs(decoder: RuntimeStreamDecoder) -> list[int]:
    """How many frames each run its framer offers from now on is taken for."""
    framer: Any = decoder.framer
    run = framer.run
    assert run is not None
    taken: list[int] = []

    def counting(names: list[str | None], payloads: list[bytes], start: int) -> int:
        n = int(run(names, payloads, start))
        taken.append(n - start)
        return n

    framer.run = counting
    return taken


@pytest.mark.parametrize("protocol", ["openai_chat", "anthropic", "openai_responses", "gemini"])
def test_a_run_of_hot_frames_is_taken_in_a_few_calls(protocol: str) -> None:
    data = getattr(gen, protocol)(400).data
    separator = gen.SEPARATORS.get(protocol, b"\n\n")
    cut = data.find(separator, 8000) + len(separator)  # past the first frames, which the decoder watches
    decoder = RuntimeStreamDecoder(protocol, stream_id="s", clock=lambda: 0)
    events = decoder.push(data[:cut])
    taken = count_runs(decoder)
    events += decoder.push(data[cut:])
    last, outcome = decoder.finish()
    frames = data[cut:].count(b"data: ")
    # (Chat's tool-call fragments are left to the frame-by-frame sink)
    assert sum(taken) >= 0.75 * frames and max(taken) >= 30, (sum(taken), max(taken), frames)
    slow = decode(protocol, [data[:cut], data[cut:]], slow=True)
    assert (events + last, outcome) == slow[:2]


# --- a run's holes parsed together --------------------------------------------------------


def one_by_one(holes: list[bytes]) -> list[str | None]:
    """What `strings` must equal: each hole parsed alone, up to the first non-string."""
    return list(itertools.takewhile(lambda value: value is not None, map(one_string, holes)))


# holes that are not one string, but could pass for one when joined with their
# neighbours: a string cut in two, two strings, a string and a bracket
STRAYS = [b'"a', b'b"', b'","', b'"a","b"', b'"a"]', b'["a"', b"", b" ", b"1", b'"\\"', b'\\""', b'"x",', b',"x"']


@pytest.mark.parametrize(
    ("holes", "expected"),
    [
        ([b'"a', b'b","c"'], []),  # joined with a bare comma, these would read as ["a,b", "c"]
        ([b'"a","b"', b'"c'], []),
        ([b'"a"', b'"b"]', b'["c"'], ["a"]),
        ([b'"\\"', b'"'], []),
        ([b' "a"', b'"b"\t', b'"c"'], ["a", "b", "c"]),
    ],
)
def test_holes_that_only_joined_read_as_strings_are_read_one_by_one(holes: list[bytes], expected: list[str]) -> None:
    assert strings(holes) == one_by_one(holes) == expected


@settings(max_examples=500, deadline=None)
@given(
    st.lists(
        st.one_of(
            st.text().map(orjson.dumps),
            st.tuples(st.sampled_from([b"", b" ", b"\t", b"\r"]), st.text(max_size=5)).map(
                lambda p: p[0] + orjson.dumps(p[1]) + p[0]
            ),
            st.sampled_from(STRAYS),
        ),
        max_size=12,
    )
)
def test_a_run_of_holes_reads_as_each_hole_alone(holes: list[bytes]) -> None:
    assert strings(holes) == one_by_one(holes)


# --- Gemini: a record's template has a second hole, its usage -----------------------------


def gemini_records(texts: list[str], usages: list[bytes], google_style: bool = True) -> bytes:
    """Records as Google writes them (`"key": value`, CRLF CRLF), one text each, the
    usage given as raw bytes, and a finishing record."""
    out = []
    for text, usage in zip(texts, usages, strict=True):
        if google_style:
            head = b'{"candidates": [{"content": {"parts": [{"text": ' + orjson.dumps(text) + b'}],"role": "model"}}],'
            out.append(b"data: " + head + b'"usageMetadata": ' + usage + b',"modelVersion": "gemini-2.5-flash"}\r\n\r\n')
        else:
            head = b'{"candidates":[{"content":{"parts":[{"text":' + orjson.dumps(text) + b'}],"role":"model"}}],'
            out.append(b"data: " + head + b'"usageMetadata":' + usage + b',"modelVersion":"gemini-2.5-flash"}\r\n\r\n')
    finish = {"candidates": [{"content": {"parts": [{"text": "."}], "role": "model"}, "finishReason": "STOP"}]}
    return b"".join(out) + b"data: " + orjson.dumps(finish) + b"\r\n\r\n"


def usage_of(n: int) -> bytes:
    return b'{"promptTokenCount": 9,"candidatesTokenCount": %d,"totalTokenCount": %d}' % (n, n + 9)


@pytest.mark.parametrize("google_style", [True, False])
def test_gemini_records_as_google_writes_them_take_the_path(google_style: bool) -> None:
    texts = [f"word {n} " for n in range(40)]
    body = gemini_records(texts, [usage_of(n) for n in range(40)], google_style)
    assert same_both_ways("gemini", [body]) >= 35
    _, outcome, _, _ = decode("gemini", [body], slow=False)
    assert outcome.usage.response_tokens == 39


# what may stand where a record's usage is: values of every kind, objects holding the
# bytes that follow the usage or precede it, one nested too deep to be read
USAGE_HOLES = [
    *(value.encode() for value in VALUES),
    b'{"candidatesTokenCount": 3},"modelVersion": "x"',
    b'{"a": "\\"}],\\"role\\": \\"model\\"}}],\\"usageMetadata\\": "}',
    b'{"promptTokenCount": 1}  ',
    b'{"promptTokenCount": 1',
    b"[" * 300 + b"]" * 300,
    b'{"x": ' + b"[" * 250 + b"]" * 250 + b"}",
    b"",
]
# texts whose JSON holds what follows the text in the record
MID_TEXTS = ['"}],"role": "model"}}],"usageMetadata": ', "}],", "a\\", '\\"}]', "\u2028"]


@pytest.mark.parametrize("usage", USAGE_HOLES, ids=range(len(USAGE_HOLES)))
def test_any_value_in_the_usage_hole_decodes_the_same_both_ways(usage: bytes) -> None:
    usages = [usage_of(n) for n in range(12)]
    for at in (3, 11):
        usages[at] = usage
    body = gemini_records([f"t{n}" for n in range(12)], usages)
    same_both_ways("gemini", [body])
    same_both_ways("gemini", [body[i : i + 7] for i in range(0, len(body), 7)])


def test_a_text_holding_the_bytes_after_it_decodes_the_same_both_ways() -> None:
    texts = [f"t{n}" for n in range(10)] + MID_TEXTS + ["end"]
    body = gemini_records(texts, [usage_of(n) for n in range(len(texts))])
    assert same_both_ways("gemini", [body]) >= len(texts) - 2
    _, outcome, _, _ = decode("gemini", [body], slow=False)
    assert text_of(outcome) == "".join(texts) + "."


def test_a_record_with_more_than_text_and_usage_teaches_no_template() -> None:
    signed = {"candidates": [{"content": {"parts": [{"text": "a", "thoughtSignature": "c2ln"}]}}], "usageMetadata": {}}
    grounded = {"candidates": [{"content": {"parts": [{"text": "a"}]}, "groundingMetadata": {"q": 1}}], "usageMetadata": {}}
    for record in (signed, grounded):
        body = b"".join(b"data: " + orjson.dumps(record) + b"\r\n\r\n" for _ in range(20))
        assert same_both_ways("gemini", [body]) == 0


COUNT_VALUES: st.SearchStrategy[Any] = st.one_of(st.integers(-2, 5), st.sampled_from([None, "3", 2.0, True, [], {}]))


@settings(max_examples=400, deadline=None)
# --- Ollama: a timestamp on every line ------------------------------------------------------


def ollama_lines(rng: random.Random, n: int, kind: str = "content", generate: bool = False) -> bytes:
    """Lines as Ollama writes them: a new `created_at` on each, Go's RFC 3339 with the
    nanoseconds' trailing zeros dropped (so its length changes from line to line)."""
    lines = []
    for k in range(n):
        nanos = str(rng.randrange(10**9)).rjust(9, "0").rstrip("0")
        stamp = f"2025-10-26T17:15:{k % 60:02d}{'.' + nanos if nanos else ''}Z"
        text = rng.choice([" Paris", " of", ", é", "\\n", ' "q"', "\u2028", "the"])
        line: dict[str, Any] = {"model": "qwen3:8b", "created_at": stamp}
        if generate:
            line |= {kind if kind == "thinking" else "response": text, "done": False}
        else:
            line |= {"message": {"role": "assistant", kind: text}, "done": False}
        lines.append(json.dumps(line, ensure_ascii=False, separators=(",", ":")))
    done = {"model": "qwen3:8b", "created_at": "2025-10-26T17:16:00Z", "done": True, "done_reason": "stop"}
    return ("\n".join(lines) + "\n" + json.dumps(done) + "\n").encode()


OLLAMA = {
    "chat": ollama_lines(random.Random(1), 60),
    "chat thinking": ollama_lines(random.Random(2), 30, "thinking"),
    "generate": ollama_lines(random.Random(3), 60, generate=True),
    "generate thinking": ollama_lines(random.Random(4), 60, "thinking", generate=True),
}


@pytest.mark.parametrize("name", sorted(OLLAMA))
def test_ollama_lines_take_the_path_whatever_their_timestamps(name: str) -> None:
    body = OLLAMA[name]
    lines = body.count(b"\n")
    assert same_both_ways("ollama", [body]) >= lines - 3
    pieces = [body[i : i + 97] for i in range(0, len(body), 97)]
    assert same_both_ways("ollama", pieces) >= 0.8 * lines


def test_ollama_thinking_then_text_learns_each_in_turn() -> None:
    body = ollama_lines(random.Random(5), 40, "thinking").rsplit(b"\n", 2)[0] + b"\n"
    body += ollama_lines(random.Random(6), 40, "content")
    assert same_both_ways("ollama", [body]) >= 70


def test_an_ollama_line_naming_another_model_is_read_as_it_is() -> None:
    """The template holds the model it was learned with: after a line of another
    model (one that teaches no template: it has text and thinking), a line matching
    it names its model again, as the full path reads it."""
    lines = OLLAMA["chat"].split(b"\n")
    lines[20] = lines[20].replace(b'"qwen3:8b"', b'"llama3.2"').replace(b'"role"', b'"thinking":"t","role"')
    lines[-2] = lines[-2].replace(b'"model": "qwen3:8b", ', b"")  # a done line naming no model
    body = b"\n".join(lines)
    assert same_both_ways("ollama", [body]) > 50
    assert decode("ollama", [body], slow=False)[1].model == "qwen3:8b"


STAMPS = [
    b"2025-10-26T17:15:24Z",
    b"2025-10-26T17:15:24.1-07:00",
    b"2025-10-26T17:15:24.123456789+05:30",
    b"2025-10-26 17:15:24",  # a space: not plain, read whole
    b"\\u0032025-10-26",  # an escape: not plain, read whole
    b'2025\\"x',
    b"2025\\\\",
    "é2025".encode(),
    b"2025\x01",  # a raw control character: no JSON
    b"2025\xff",  # no UTF-8
    b"2025\xc3",
    b"",
]


@pytest.mark.parametrize("stamp", STAMPS, ids=range(len(STAMPS)))
def test_any_timestamp_decodes_the_same_both_ways(stamp: bytes) -> None:
    lines = OLLAMA["chat"].split(b"\n")
    for k in (10, 11, 30):
        head, _, rest = lines[k].partition(b'"created_at":"')
        lines[k] = head + b'"created_at":"' + stamp + b'"' + rest.partition(b'"')[2]
    body = b"\n".join(lines)
    assert same_both_ways("ollama", [body]) > 40


@settings(max_examples=600, deadline=None)
@given(st.sampled_from(sorted(OLLAMA)), st.data(), st.sampled_from(EDITS), st.booleans())
def test_any_byte_of_an_ollama_line_changed_decodes_the_same_both_ways(
    name: str, data: st.DataObject, edit: bytes, insert: bool
) -> None:
    lines = OLLAMA[name].split(b"\n")
    index = data.draw(st.integers(0, len(lines) - 2))
    at = data.draw(st.sampled_from(interesting(lines[index])))
    lines[index] = lines[index][:at] + edit + lines[index][at + (0 if insert else 1) :]
    same_both_ways("ollama", [b"\n".join(lines)])


@settings(max_examples=100, deadline=None)
@given(st.sampled_from(sorted(OLLAMA)), st.data())
def test_reordered_and_duplicate_keys_of_an_ollama_line_decode_the_same_both_ways(name: str, data: st.DataObject) -> None:
    lines = OLLAMA[name].split(b"\n")
    index = data.draw(st.integers(0, len(lines) - 2))
    obj = orjson.loads(lines[index])
    order = data.draw(st.permutations(list(obj)))
    text = ",".join(f"{json.dumps(k)}:{orjson.dumps(obj[k]).decode()}" for k in order)
    if data.draw(st.booleans()):
        text += f',{json.dumps(data.draw(st.sampled_from(list(obj))))}:"dup"'
    lines[index] = ("{" + text + "}").encode()
    same_both_ways("ollama", [b"\n".join(lines)])


def few_calls(taken: list[int], frames: int) -> bool:
    """Whether a push's `frames` hot frames were taken by the run taker in a few calls:
    its window follows the last batch it took, and doubles while batches fill it."""
    calls = [n for n in taken if n]
    return sum(calls) >= 0.9 * frames and len(calls) <= frames.bit_length() + 2


def test_a_push_of_ollama_lines_is_taken_in_a_few_calls() -> None:
    body = ollama_lines(random.Random(8), 300)
    cut = body.find(b"\n", 4000) + 1  # past the first lines, which the decoder watches
    decoder = RuntimeStreamDecoder("ollama", stream_id="s", clock=lambda: 0)
    events = decoder.push(body[:cut])
    taken = count_runs(decoder)
    events += decoder.push(body[cut:])
    last, outcome = decoder.finish()
    assert few_calls(taken, body[cut:].count(b"\n")), taken
    slow = decode("ollama", [body[:cut], body[cut:]], slow=True)
    assert (events + last, outcome) == slow[:2]


def test_an_ollama_line_over_the_cap_in_a_run_is_over_the_cap() -> None:
    """A push longer than the cap is not offered as a run: a hot line over the cap
    raises as it does without the path, at the same push."""
    lines = OLLAMA["chat"].split(b"\n")
    lines[30] = lines[30].replace(b'"content":"', b'"content":"' + b"x" * 3000)
    body = b"\n".join(lines)
    fast = decode("ollama", [body[:2500], body[2500:]], slow=False, max_frame=2048)
    slow = decode("ollama", [body[:2500], body[2500:]], slow=True, max_frame=2048)
    assert fast[2] == slow[2] == "FrameTooLargeError"
    assert fast[:3] == slow[:3]


# --- Bedrock Converse: runs of event-stream frames ----------------------------------------

beyond_sse: Any = importlib.import_module("beyond_sse")  # the benchmark's event-stream bodies
DELTA_HEADERS = [(":event-type", "contentBlockDelta"), (":content-type", "application/json"), (":message-type", "event")]


def converse_frames(n: int, seed: int = 7) -> list[bytes]:
    """The frames of the benchmark's Converse stream, each whole (its two CRCs right)."""
    return frames_of(beyond_sse.bedrock_converse(random.Random(seed), n))


def payload_of(frame: bytes) -> bytes:
    headers = int.from_bytes(frame[4:8], "big")
    return frame[12 + headers : -4]


def wrong_prelude_crc(frame: bytes) -> bytes:
    """The frame with a prelude CRC that does not match, and a message CRC that does
    (computed on from the wrong one): only the prelude's check finds it."""
    wrong = (int.from_bytes(frame[8:12], "big") ^ 1).to_bytes(4, "big")
    body = frame[:8] + wrong + frame[12:-4]
    return body + zlib.crc32(body[8:], int.from_bytes(wrong, "big")).to_bytes(4, "big")


def random_pieces(body: bytes, rng: random.Random) -> list[bytes]:
    cuts = sorted(rng.sample(range(1, len(body)), min(12, len(body) - 1)))
    return [body[a:b] for a, b in zip([0, *cuts], [*cuts, len(body)], strict=True)]


# frames a run must stop before and leave to the frame-by-frame reading, each a case of
# its own: a CRC that fails (the prelude's alone, too), an exception (one with a delta's
# payload, too), the same event with its headers in another
# order, another event whose header block is as long, one with no `p`, a reasoning
# delta in a text block, a delta of another block, a frame of another message type
BREAKS: dict[str, Callable[[bytes], bytes]] = {
    "message CRC": lambda frame: frame[:-1] + bytes([frame[-1] ^ 1]),
    "prelude CRC": lambda frame: frame[:11] + bytes([frame[11] ^ 1]) + frame[12:],
    "prelude CRC alone": wrong_prelude_crc,
    "an exception with a delta's payload": lambda frame: encode_frame(
        [(":exception-type", "throttlingException"), (":content-type", "application/json"), (":message-type", "exception")],
        payload_of(frame),
    ),
    "exception": lambda frame: encode_frame(
        [(":exception-type", "throttlingException"), (":content-type", "application/json"), (":message-type", "exception")],
        b'{"message":"slow down"}',
    ),
    "other header order": lambda frame: encode_frame(DELTA_HEADERS[::-1], payload_of(frame)),
    "unpadded": lambda frame: encode_frame(DELTA_HEADERS, b'{"contentBlockIndex":0,"delta":{"text":"x"}}'),
    "reasoning": lambda frame: encode_frame(
        DELTA_HEADERS, b'{"contentBlockIndex":0,"delta":{"reasoningContent":{"text":"hm"}},"p":"ab"}'
    ),
    "a padding with no closing quote": lambda frame: encode_frame(
        DELTA_HEADERS, b'{"contentBlockIndex":0,"delta":{"text":"x"},"p":"}'
    ),
    "a padding of a quote": lambda frame: encode_frame(DELTA_HEADERS, b'{"contentBlockIndex":0,"delta":{"text":"x"},"p":"""}'),
    "other block": lambda frame: encode_frame(DELTA_HEADERS, b'{"contentBlockIndex":1,"delta":{"text":"y"},"p":"ab"}'),
    "another event of the same length, with a delta's payload": lambda frame: encode_frame(
        [(":event-type", "contentBlockDeltb"), (":content-type", "application/json"), (":message-type", "event")],
        payload_of(frame),
    ),
    "not an event": lambda frame: encode_frame(
        [(":event-type", "contentBlockDelta"), (":message-type", "other")], payload_of(frame)
    ),
}


@pytest.mark.parametrize("name", sorted(BREAKS))
def test_a_frame_that_breaks_a_converse_run_decodes_the_same_both_ways(name: str) -> None:
    broken_runs_decode_the_same_both_ways("bedrock_converse", converse_frames(120), BREAKS[name], len(name))


def broken_runs_decode_the_same_both_ways(
    protocol: str, frames: list[bytes], breaking: Callable[[bytes], bytes], seed: int
) -> None:
    for at in (60, 70):  # twice: a header block seen before may start a run
        frames[at] = breaking(frames[at])
    body = b"".join(frames)
    assert same_both_ways(protocol, [body]) > 50
    rng = random.Random(seed)
    for _ in range(10):
        same_both_ways(protocol, random_pieces(body, rng))


def test_a_converse_frame_over_the_cap_in_a_run_is_over_the_cap() -> None:
    frames = converse_frames(120)
    frames[60] = encode_frame(DELTA_HEADERS, b'{"contentBlockIndex":0,"delta":{"text":"' + b"x" * 3000 + b'"},"p":"ab"}')
    body = b"".join(frames)
    fast = decode("bedrock_converse", [body], slow=False, max_frame=2048)
    slow = decode("bedrock_converse", [body], slow=True, max_frame=2048)
    assert fast[2] == slow[2] == "FrameTooLargeError"
    assert fast[:3] == slow[:3]


@settings(max_examples=600, deadline=None)
@given(st.data(), st.sampled_from(EDITS), st.booleans(), st.booleans())
def test_any_byte_of_a_converse_delta_changed_decodes_the_same_both_ways(
    data: st.DataObject, edit: bytes, insert: bool, split: bool
) -> None:
    """The payload edited and the frame written again with its CRCs right: what the
    run taker reads is the payload alone."""
    frames = converse_frames(40)
    index = data.draw(st.integers(1, len(frames) - 4))
    payload = payload_of(frames[index])
    at = data.draw(st.sampled_from(interesting(payload)))
    frames[index] = encode_frame(DELTA_HEADERS, payload[:at] + edit + payload[at + (0 if insert else 1) :])
    body = b"".join(frames)
    same_both_ways("bedrock_converse", random_pieces(body, random.Random(at)) if split else [body])


PAD_PIECES = [b"}", b"}}", b',"p":"', b'"', b"a", b"Z", b"9", b"-", b" ", b"\\", b"\xc3\xa9", b'"x"']


@pytest.mark.skipif(unievent.COMPILED, reason="compiled, the switch is a constant: both calls would scan")
@settings(max_examples=800, deadline=None)
@given(st.lists(st.sampled_from(PAD_PIECES), max_size=8), st.booleans())
def test_a_scan_back_over_the_padding_finds_what_rfind_finds(pieces: list[bytes], thinking: bool) -> None:
    """Compiled, the padding's start is found by a scan back over it, and run as Python
    source by `rfind`: both give the same hole (run as Python source, both are run here)."""
    from unievent._protocols import bedrock_converse as converse

    head = b'{"contentBlockIndex":0,"delta":{"text":'
    closing, padded = (b"}}", b'}},"p":"') if thinking else (b"}", b'},"p":"')
    payload = head + b'"x"' + b"".join(pieces) + b'"}'
    found = {}
    for scan in (False, True):
        before = converse._SCAN
        # a Final, changed for this test only
        converse._SCAN = scan  # type: ignore[misc]
        try:
            found[scan] = converse.hot_hole(payload, head, closing, padded)
        finally:
            converse._SCAN = before  # type: ignore[misc]
    assert found[False] == found[True]


# --- Bedrock InvokeModel: Anthropic's events inside event-stream chunks -------------------

CHUNK_HEADERS = [(":event-type", "chunk"), (":content-type", "application/json"), (":message-type", "event")]


def invoke_frames(n: int, seed: int = 7) -> list[bytes]:
    """The frames of the benchmark's InvokeModel stream (Anthropic's events), each whole."""
    return frames_of(beyond_sse.bedrock_invoke(random.Random(seed), n))


def frames_of(body: bytes) -> list[bytes]:
    frames, pos = [], 0
    while pos < len(body):
        total = int.from_bytes(body[pos : pos + 4], "big")
        frames.append(body[pos : pos + total])
        pos += total
    return frames


def chunk(inner: bytes, pad: bytes = b',"p":"abc"') -> bytes:
    return encode_frame(CHUNK_HEADERS, b'{"bytes":"' + base64.b64encode(inner) + b'"' + pad + b"}")


DELTA = b'{"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"x"}}'
# a hot delta whose base64 has a `/`, which JSON may write `\/`
SLASHED = next(d for d in (DELTA.replace(b'"x"', b'"?' + b"~" * i + b'"') for i in range(10)) if b"/" in base64.b64encode(d))
# chunks a run must stop before: base64 written with a JSON escape, base64 that does not
# decode, none of it, no padding, a padding that is not letters and digits, an inner
# event that is no hot delta, one that carries the invocation metrics, and no chunk
CHUNK_BREAKS: dict[str, Callable[[bytes], bytes]] = {
    "escaped slash": lambda frame: encode_frame(
        CHUNK_HEADERS, b'{"bytes":"' + base64.b64encode(SLASHED).replace(b"/", b"\\/") + b'","p":"ab"}'
    ),
    "bad base64": lambda frame: encode_frame(CHUNK_HEADERS, b'{"bytes":"QUJD=","p":"ab"}'),
    "empty base64": lambda frame: encode_frame(CHUNK_HEADERS, b'{"bytes":"","p":"ab"}'),
    "unpadded": lambda frame: chunk(DELTA, b""),
    "odd padding": lambda frame: chunk(DELTA, b',"p":"a-b"'),
    "another inner event": lambda frame: chunk(b'{"type":"ping"}'),
    "metrics": lambda frame: chunk(DELTA[:-1] + b',"amazon-bedrock-invocationMetrics":{"inputTokenCount":5}}'),
    "not an object": lambda frame: chunk(b'"x"'),
    "an exception": lambda frame: encode_frame(
        [(":exception-type", "throttlingException"), (":content-type", "application/json"), (":message-type", "exception")],
        payload_of(frame),
    ),
}


@pytest.mark.parametrize("name", sorted(CHUNK_BREAKS))
def test_a_chunk_that_breaks_an_invoke_run_decodes_the_same_both_ways(name: str) -> None:
    broken_runs_decode_the_same_both_ways("bedrock_invoke", invoke_frames(120), CHUNK_BREAKS[name], len(name))


@pytest.mark.parametrize("protocol", ["bedrock_converse", "bedrock_invoke"])
def test_a_push_of_bedrock_frames_is_taken_in_a_few_calls(protocol: str) -> None:
    frames = converse_frames(300) if protocol == "bedrock_converse" else invoke_frames(300)
    decoder = RuntimeStreamDecoder(protocol, stream_id="s", clock=lambda: 0)
    events = decoder.push(b"".join(frames[:20]))  # past the first frames, which the decoder watches
    taken = count_runs(decoder)
    events += decoder.push(b"".join(frames[20:]))
    last, outcome = decoder.finish()
    assert outcome.end == "complete"
    assert few_calls(taken, len(frames) - 25), taken
    slow = decode(protocol, [b"".join(frames[:20]), b"".join(frames[20:])], slow=True)
    assert (events + last, outcome) == slow[:2]


@settings(max_examples=600, deadline=None)
@given(st.data(), st.sampled_from(EDITS), st.booleans(), st.booleans(), st.booleans())
def test_any_byte_of_an_invoke_chunk_changed_decodes_the_same_both_ways(
    data: st.DataObject, edit: bytes, insert: bool, inside: bool, split: bool
) -> None:
    """A byte of the inner event (base64 written again) or of the chunk itself changed,
    the frame written again with its CRCs right."""
    frames = invoke_frames(40)
    index = data.draw(st.integers(3, len(frames) - 4))
    payload = payload_of(frames[index])
    if inside:
        inner = base64.b64decode(orjson.loads(payload)["bytes"])
        at = data.draw(st.sampled_from(interesting(inner)))
        frames[index] = chunk(inner[:at] + edit + inner[at + (0 if insert else 1) :])
    else:
        at = data.draw(st.sampled_from(interesting(payload)))
        frames[index] = encode_frame(CHUNK_HEADERS, payload[:at] + edit + payload[at + (0 if insert else 1) :])
    body = b"".join(frames)
    same_both_ways("bedrock_invoke", random_pieces(body, random.Random(at)) if split else [body])


@settings(max_examples=400, deadline=None)
@given(st.sampled_from(["openai_responses", "openai_chat"]), st.data(), st.sampled_from(EDITS), st.booleans())
def test_the_loop_for_every_template_reads_a_last_padding_as_the_full_path_does(
    protocol: str, data: st.DataObject, edit: bytes, insert: bool
) -> None:
    """Compiled, every template's run goes to unievent._holes; run as Python source, a
    template with a tail runs its own loop.  With the switch set, run as Python source,
    the stand-in of unievent._holes is run here on frames changed near their end (where
    a padding after the string lies), and they must decode as the full path does."""
    from unievent import _ondemand

    frames, separator = hot_frames(protocol)
    index = data.draw(st.integers(0, len(frames) - 1))
    head, found, payload = frames[index].partition(b"data: ")
    if not found:
        return
    at = data.draw(st.integers(max(0, len(payload) - 40), len(payload) - 1))
    frames[index] = head + found + payload[:at] + edit + payload[at + (0 if insert else 1) :]
    before = _ondemand._COMPILED
    # a Final, changed for this test only
    _ondemand._COMPILED = True  # type: ignore[misc]
    try:
        same_both_ways(protocol, [separator.join(frames)])
    finally:
        _ondemand._COMPILED = before  # type: ignore[misc]


# --- run as Python source, one loop per place of the padding ---------------------------------


def learned(protocol: str, body: bytes) -> Any:
    """The template a decoder learns from `body`, and the payloads of its frames."""
    decoder = RuntimeStreamDecoder(protocol)
    decoder.push(body[: len(body) // 2])  # (at its end a stream lets go of its template)
    template = getattr(decoder.handler, "hot", None)
    assert template is not None
    if protocol == "ollama":
        return template, body.split(b"\n")[:-2]
    return template, [frame.partition(b"data: ")[2] for frame in body.split(b"\n\n") if b"data: " in frame]


TEMPLATES = {
    "chat, padding after the string": learned("openai_chat", gen.openai_chat(60).data),
    "responses, counter and padding after": learned("openai_responses", gen.openai_responses(60).data),
    "ollama, padding before, its length changing": learned("ollama", OLLAMA["chat"]),
    "ollama generate": learned("ollama", OLLAMA["generate"]),
}


@settings(max_examples=1500, deadline=None)
@given(st.sampled_from(sorted(TEMPLATES)), st.data(), st.sampled_from(EDITS), st.booleans())
def test_the_interpreted_loops_take_what_the_loop_for_every_template_takes(
    name: str, data: st.DataObject, edit: bytes, insert: bool
) -> None:
    """`Template._interpreted_run` (what the pure build runs for a template with a tail)
    takes the same frames, with the same holes, as unievent._holes, the loop for every
    template: any byte of any frame changed, from any frame (mostly where a run starts),
    with any counter (mostly the frame's own: in the benchmark's stream, its index)."""
    template, payloads = TEMPLATES[name]
    assert template.tail_size and not template.counter_in_tail
    payloads = list(payloads)
    index = data.draw(st.integers(0, len(payloads) - 1))
    at = data.draw(st.sampled_from(interesting(payloads[index]) or [0]))
    payloads[index] = payloads[index][:at] + edit + payloads[index][at + (0 if insert else 1) :]
    start = data.draw(st.one_of(st.sampled_from(run_starts(name)), st.integers(0, len(payloads))))
    stop = data.draw(st.integers(start, len(payloads) + 2))
    counter, step = 0, 0
    if template.counter_in_head:
        counter = data.draw(st.one_of(st.just(start), st.integers(0, 130)))
        step = data.draw(st.sampled_from([1, 1, 0, 2]))
    expected = every_template(template, payloads, start, stop, counter, step)
    assert template._interpreted_run(payloads, start, stop, counter, step) == expected


def every_template(template: Any, payloads: list[bytes], start: int, stop: int, counter: int, step: int) -> list[bytes]:
    """The holes the loop for every template cuts (unievent._holes' stand-in, the
    definition, in either build)."""
    return list(HOLES.holes(payloads, start, stop, counter, step, template.shape))


def run_starts(name: str) -> list[int]:
    """Where a run of the template's frames starts (a counter: the frame's index)."""
    template, payloads = TEMPLATES[name]
    step = 1 if template.counter_in_head else 0
    return [i for i in range(len(payloads)) if every_template(template, payloads, i, i + 1, i * step, step)]


@pytest.mark.parametrize("name", sorted(TEMPLATES))
def test_the_interpreted_loops_take_a_whole_run(name: str) -> None:
    template, payloads = TEMPLATES[name]
    first = run_starts(name)[0]
    step = 1 if template.counter_in_head else 0
    run = every_template(template, payloads, first, len(payloads), first * step, step)
    assert len(run) >= 20
    assert template._interpreted_run(payloads, first, len(payloads), first * step, step) == run


@pytest.mark.parametrize("name", sorted(TEMPLATES))
@pytest.mark.parametrize("hole", [b"", b'""', b" ", b'"', b'"a","b"'])
def test_the_interpreted_loops_take_what_the_loop_takes_whatever_the_hole(name: str, hole: bytes) -> None:
    template, payloads = TEMPLATES[name]
    first = run_starts(name)[0]
    step = 1 if template.counter_in_head else 0
    old = every_template(template, payloads, first, first + 1, first * step, step)[0]
    payloads = list(payloads)
    payloads[first + 1] = payloads[first + 1].replace(old, hole, 1) if old in payloads[first + 1] else payloads[first + 1]
    payloads[first] = payloads[first].replace(old, hole, 1)
    expected = every_template(template, payloads, first, len(payloads), first * step, step)
    assert template._interpreted_run(payloads, first, len(payloads), first * step, step) == expected
