"""Whatever arrives, every decoder either decodes it or raises its own typed error.

Frames are drawn from each protocol's vocabulary (real type names and field names with
values of every JSON shape), so the fuzzing reaches deep into the handlers instead of
stopping at the JSON parser; the events that come out must always follow the grammar.
"""

from __future__ import annotations

import os
import random
from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import unievent
from tests import fuzzing
from unievent._decoder import StreamDecoder as RuntimeStreamDecoder  # takes any protocol name

SCALARS = st.one_of(st.none(), st.booleans(), st.integers(-3, 3), st.text(max_size=4), st.floats(allow_nan=False))


def values(names: list[str]) -> st.SearchStrategy[Any]:
    """JSON values whose dicts use the protocol's own keys."""
    return st.recursive(
        SCALARS | st.sampled_from(names),
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from(names), inner, max_size=4),
        max_leaves=12,
    )


CHAT_KEYS = [
    "choices", "delta", "message", "content", "reasoning_content", "reasoning", "reasoning_details",
    "tool_calls", "index", "id", "function", "name", "arguments", "finish_reason", "usage", "prompt_tokens",
    "completion_tokens", "error", "object", "model", "type", "text", "thinking", "x_groq", "data", "signature",
]
ANTHROPIC_KEYS = [
    "type", "message", "model", "usage", "index", "content_block", "delta", "text", "thinking", "signature",
    "partial_json", "input", "name", "id", "stop_reason", "input_tokens", "output_tokens", "error", "citation",
    "data", "tool_use_id", "content_block_start", "content_block_delta", "content_block_stop", "message_start",
    "message_delta", "message_stop", "text_delta", "thinking_delta", "input_json_delta", "signature_delta",
    "tool_use", "server_tool_use", "redacted_thinking",
]
RESPONSES_KEYS = [
    "type", "sequence_number", "response", "item", "output_index", "item_id", "content_index", "delta", "text",
    "arguments", "call_id", "name", "id", "status", "usage", "output", "error", "code", "message", "summary",
    "encrypted_content", "phase", "tool_step", "result", "truncated", "incomplete_details", "reason",
    "response.created", "response.output_item.added", "response.output_item.done", "response.output_text.delta",
    "response.function_call_arguments.delta", "response.reasoning_summary_text.delta", "response.completed",
    "response.failed", "response.incomplete", "message", "function_call", "reasoning", "web_search_call",
    "response.mirobody_tool_call", "response.mirobody_tool_result", "error",
]


def frames(keys: list[str]) -> st.SearchStrategy[bytes]:
    frame = st.dictionaries(st.sampled_from(keys), values(keys), max_size=6)
    event = st.one_of(st.none(), st.sampled_from(keys))

    def wire(parts: list[tuple[str | None, dict[str, Any]]], done: bool) -> bytes:
        out = b""
        for name, obj in parts:
            if name is not None:
                out += b"event: " + name.encode() + b"\n"
            out += b"data: " + orjson.dumps(obj) + b"\n\n"
        return out + (b"data: [DONE]\n\n" if done else b"")

    return st.builds(wire, st.lists(st.tuples(event, frame), max_size=8), st.booleans())


def check(protocol: str, body: bytes, strict: bool) -> None:
    decoder = RuntimeStreamDecoder(protocol, stream_id="f", clock=lambda: 0, strict_arguments=strict)
    try:
        events = decoder.push(body)
        last, outcome = decoder.finish()
    except unievent.UniEventError:
        return
    unievent.validate(events + last, partial=outcome.end != "complete")
    assert outcome.end in ("complete", "truncated", "failed", "not_event_stream")


# FUZZ_EXAMPLES=4000 for a longer hunt
FUZZ = settings(max_examples=int(os.environ.get("FUZZ_EXAMPLES", "200")), deadline=None, suppress_health_check=[HealthCheck.too_slow])


@FUZZ
@given(frames(CHAT_KEYS), st.booleans())
def test_openai_chat_survives_any_frames(body: bytes, strict: bool) -> None:
    check("openai_chat", body, strict)


@FUZZ
@given(frames(ANTHROPIC_KEYS), st.booleans())
def test_anthropic_survives_any_frames(body: bytes, strict: bool) -> None:
    check("anthropic", body, strict)


@FUZZ
@given(frames(RESPONSES_KEYS), st.booleans())
def test_openai_responses_survives_any_frames(body: bytes, strict: bool) -> None:
    check("openai_responses", body, strict)


# --- mutation fuzzing of recorded and suite streams (tests/fuzzing.py) --------------------

MUTATIONS = int(os.environ.get("FUZZ_EXAMPLES", "1500"))


@pytest.mark.parametrize("seed", range(3))
def test_mutated_streams_keep_every_invariant(seed: int) -> None:
    ends = fuzzing.campaign(MUTATIONS // 3, seed)
    assert sum(ends.values()) == MUTATIONS // 3
    assert ends.get("complete") and ends.get("truncated") and ends.get("failed")  # the mutations reach every end


def test_the_invariants_catch_a_decoder_that_depends_on_the_split(monkeypatch: pytest.MonkeyPatch) -> None:
    # a framer that takes its whole-frame shortcut while an event name is pending
    # (the bug the shortcut's derivation from the table rules out)
    from unievent._framing import sse as framer
    from unievent._generated import sse as machine

    body = b'event: error\ndata: {"message":"overloaded"}\n\n'
    fuzzing.check("openai_chat", body)
    broken = list(framer._SHORTCUT_DEST)
    broken[machine.ST_NAMED] = machine.ST_IDLE
    monkeypatch.setattr(framer, "_SHORTCUT_DEST", tuple(broken))
    # a push that ends inside a frame leaves it in the table (not kept for the next
    # push), where the broken shortcut can see the pending event name
    monkeypatch.setattr(framer, "_DEFER_MAX", 0)
    with pytest.raises(AssertionError, match="decodes differently"):
        fuzzing.check("openai_chat", body)


def test_the_seeds_cover_every_protocol() -> None:
    assert {protocol for protocol, _label, _body in fuzzing.suite_seeds()} == set(unievent.PROTOCOLS)


# --- the fast paths: mutations of one frame inside a run of hot frames --------------------

FAST_MUTATIONS = int(os.environ.get("FUZZ_EXAMPLES", "600"))


@pytest.mark.parametrize("seed", range(3))
def test_fast_path_mutations_keep_every_invariant(seed: int) -> None:
    # check() decodes each input with and without the fast paths, whole and split
    ends = fuzzing.campaign(FAST_MUTATIONS // 3, 100 + seed, fast_path_only=True)
    assert sum(ends.values()) == FAST_MUTATIONS // 3
    assert ends.get("complete") and ends.get("truncated")


def test_the_fast_path_seeds_hold_long_runs_the_fast_paths_take() -> None:
    seeds = fuzzing.fast_path_seeds()
    assert {protocol for protocol, _label, _body in seeds} == {
        "openai_chat", "anthropic", "openai_responses", "gemini", "ollama", "cohere", "bedrock_converse", "bedrock_invoke",
    }
    for protocol, label, body in seeds:
        longest = max(stop - start for start, stop in fuzzing._layout(body).runs)
        assert longest >= fuzzing.RUN // 2, label
        decoder = RuntimeStreamDecoder(protocol, stream_id="f", clock=lambda: 0)
        decoder.push(body)
        _last, outcome = decoder.finish()
        assert outcome.end == "complete" and not outcome.anomalies, label
        if os.environ.get("UNIEVENT_SLOW_PATH", "") in ("", "0"):
            assert decoder.fast_frames >= longest - 2, label  # the runs go the fast way (but the frames that teach)


@pytest.mark.parametrize("mutation", fuzzing.FAST_PATH_MUTATIONS, ids=lambda m: m.__name__)
def test_each_fast_path_mutation_changes_a_hot_frame(mutation: Any) -> None:
    changed = 0
    for protocol, _label, body in fuzzing.fast_path_seeds():
        for n in range(6):
            mutated = mutation(random.Random(n), body)
            changed += mutated != body
            fuzzing.check(protocol, mutated, rng=random.Random(n))
    assert changed >= 3  # (base64 applies to InvokeModel chunks only)


def test_a_cut_at_every_byte_of_the_changed_frame() -> None:
    pool = fuzzing.builds_pool(fast_path_only=True)
    item = next(i for n in range(50) if (i := fuzzing.draw_input(0, n, pool, True)).mutated is not None)
    assert item.mutated is not None
    offsets = fuzzing._cut_offsets(random.Random(0), item)
    assert offsets == list(range(item.mutated.start, item.mutated.end + 1))


@pytest.mark.skipif(unievent.COMPILED, reason="patches a class of the pure build")
def test_the_fast_path_checks_catch_a_fast_path_that_differs(monkeypatch: pytest.MonkeyPatch) -> None:
    from unievent._protocols.openai_chat import OpenAIChat

    protocol, label, body = fuzzing.fast_path_seeds()[0]
    assert label == "fast/chat-text"
    # a padding holding a quote: the frame is left to the full path, the run stops before it
    mutated = fuzzing.mutate_hot_frame(random.Random(0), body, ["padding"])
    assert mutated is not None
    item = fuzzing.Input(0, protocol, label, mutated.body, True, mutated, 0)
    assert fuzzing.examine(item)[2] == ""
    taker = OpenAIChat.raw_run

    def losing(self: Any, heads: list[bytes] | None, payloads: list[bytes], start: int) -> int:
        # a run taker that loses the frame after each run it takes: only the fast path is wrong
        taken: int = taker(self, heads, payloads, start)
        return taken + 1 if start < taken < len(payloads) else taken

    monkeypatch.setattr(OpenAIChat, "raw_run", losing)
    _digest, _end, problem = fuzzing.examine(item)
    assert problem.startswith("slow path: decodes differently")
    with pytest.raises(AssertionError, match="decodes differently"):
        fuzzing.campaign(5, 0, fast_path_only=True)


def test_the_builds_comparison_names_each_difference() -> None:
    pure = ["# compiled=False seeds=3", "0\ts:a\tdigest0\tcomplete\t", "1\ts:b\tdigest1\tfailed\t", "2\ts:c\tdigest2\tcomplete\t"]
    same = list(pure)
    assert fuzzing.compare_workers(pure, same, 7) == ({"complete": 2, "failed": 1}, [])
    other = [pure[0], pure[1], "1\ts:b\tother\tfailed\t", "2\ts:c\tdigest2\tcomplete\tslow path: decodes differently"]
    _ends, differences = fuzzing.compare_workers(pure, other, 7)
    assert differences == [
        "seed 7, index 1, s:b: the pure and the default build decode differently (failed vs failed)",
        "seed 7, index 2, s:c: default build: slow path: decodes differently",
    ]
    assert fuzzing.compare_workers(pure, pure[:2], 7)[1] == ["seed 7: the workers decoded 3 and 1 inputs"]


def test_a_digest_tells_apart_what_equality_would_not() -> None:
    # 1 == 1.0 == True for ==, and a dict's order is no part of it; a digest keeps the
    # types (a build that makes a float of an int differs) and ignores the order
    assert fuzzing.digest(([], {"a": 1, "b": 2}, ())) == fuzzing.digest(([], {"b": 2, "a": 1}, ()))
    assert fuzzing.digest(([], 1, ())) != fuzzing.digest(([], 1.0, ()))
    assert fuzzing.digest(([], 1, ())) != fuzzing.digest(([], True, ()))
    assert fuzzing.digest(([unievent.TextDelta("a")], None, ())) != fuzzing.digest(([unievent.ThinkingDelta("a")], None, ()))


@pytest.mark.skipif(not unievent.COMPILED, reason="the compiled build is not running: both workers would run pure")
def test_the_four_configurations_decode_alike() -> None:
    # a pure worker and a compiled one, each comparing its fast and slow path
    report = fuzzing.builds_campaign(30, seed=11, timing=False)
    assert report.builds == ("pure", "compiled")
    assert report.differences == []
    assert sum(report.ends.values()) == 30
