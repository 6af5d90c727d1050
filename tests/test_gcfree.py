"""The compiled build takes the decoder's atomic events off the cyclic garbage
collector's lists (unievent._gcfree): an event that refers only to strings, numbers,
None or untracked containers cannot be part of a reference cycle, so the collector has
nothing to find there and is spared walking tens of thousands of them after a
whole-body push.  The events themselves do not change, the pure-Python build leaves
them tracked, reference counting still frees them, anything that could hold a cycle
stays tracked, and the collector's own settings are never touched.
"""

from __future__ import annotations

import gc
import importlib.util
import weakref
from typing import Any

import orjson
import pytest

import unievent
from tests.helpers import decode_stream, split_at, stand_in
from unievent import DeltaEvent, TextDelta, ThinkingDelta, ToolCallDelta
from unievent._events import ATOMIC_KINDS, UNTRACK_FROM

compiled_only = pytest.mark.skipif(not unievent.COMPILED, reason="the compiled build is not installed")


def _sse(*events: dict[str, Any]) -> bytes:
    return b"".join(b"event: " + e["type"].encode() + b"\ndata: " + orjson.dumps(e) + b"\n\n" for e in events)


def _anthropic(deltas: int, citation: bool = False) -> bytes:
    """A message with a thinking block, a long text block and a tool call."""
    start: dict[str, Any] = {"type": "message_start", "message": {"id": "msg_1", "type": "message", "role": "assistant",
             "model": "claude-test", "content": [], "usage": {"input_tokens": 3, "output_tokens": 1}}}
    body: list[dict[str, Any]] = [start, {"type": "content_block_start", "index": 0, "content_block": {"type": "thinking", "thinking": ""}}]
    body += [{"type": "content_block_delta", "index": 0, "delta": {"type": "thinking_delta", "thinking": f"t{i} "}}
             for i in range(3)]
    body += [{"type": "content_block_delta", "index": 0, "delta": {"type": "signature_delta", "signature": "c2ln"}},
             {"type": "content_block_stop", "index": 0},
             {"type": "content_block_start", "index": 1, "content_block": {"type": "text", "text": ""}}]
    body += [{"type": "content_block_delta", "index": 1, "delta": {"type": "text_delta", "text": f"w{i} "}}
             for i in range(deltas)]
    if citation:
        cite = {"type": "char_location", "cited_text": "x", "document_index": 0, "start_char_index": 0,
                "end_char_index": 1}
        body.append({"type": "content_block_delta", "index": 1, "delta": {"type": "citations_delta", "citation": cite}})
    body += [{"type": "content_block_stop", "index": 1},
             {"type": "content_block_start", "index": 2,
              "content_block": {"type": "tool_use", "id": "toolu_1", "name": "f", "input": {}}},
             {"type": "content_block_delta", "index": 2, "delta": {"type": "input_json_delta", "partial_json": '{"a": 1}'}},
             {"type": "content_block_stop", "index": 2},
             {"type": "message_delta", "delta": {"stop_reason": "tool_use"}, "usage": {"output_tokens": 9}},
             {"type": "message_stop"}]
    return _sse(*body)


def _untracked(event: Any) -> bool:
    item = event.item if isinstance(event, DeltaEvent) else None
    return not gc.is_tracked(event) and (item is None or not gc.is_tracked(item))


# --- the compiled build: what it untracks -------------------------------------------------------


@compiled_only
@pytest.mark.parametrize("feed", ["whole", "halves"])
def test_every_event_of_atomic_values_a_long_push_returns_leaves_the_collectors_lists(feed: str) -> None:
    body = _anthropic(300)
    pieces = [body] if feed == "whole" else split_at(body, [len(body) // 2])
    events, outcome = decode_stream("anthropic", pieces)
    assert outcome.end == "complete"
    deltas = [e for e in events if isinstance(e, DeltaEvent)]
    assert {type(e.item) for e in deltas} >= {TextDelta, ThinkingDelta, ToolCallDelta}
    # the signature's fidelity is a dict of strings, which CPython does not track
    # either, so every delta event is untracked
    assert [e for e in deltas if not _untracked(e)] == []
    assert gc.is_tracked(events[-1])  # the stop event (with its usage) is left as it is


@compiled_only
def test_a_short_push_untracks_only_the_deltas_built_in_c() -> None:
    # text and thinking deltas, and a tool call's deltas after its first, are untracked
    # as they are made (unievent._deltas, a few instructions each); any other event of a
    # short push stays tracked, since a streaming consumer mostly drops it before any
    # collection meets it, and walking the push's events to untrack them would cost more
    # than the collector spends
    body = _anthropic(300)
    decoder = unievent.StreamDecoder("anthropic")
    pieces = split_at(body, list(range(0, len(body), 97)))
    built_in_c = arguments = others = 0
    for piece in pieces:
        events = decoder.push(piece)
        assert len(events) < UNTRACK_FROM
        for event in events:
            item = event.item if isinstance(event, DeltaEvent) else None
            later_arguments = type(item) is ToolCallDelta and item.name == ""
            if (type(item) in (TextDelta, ThinkingDelta) or later_arguments) and not gc.is_tracked(event):
                assert not gc.is_tracked(item)
                built_in_c += 1
                arguments += later_arguments
            else:
                assert gc.is_tracked(event)
                others += 1
    assert built_in_c > 250 and arguments > 0 and others > 5
    long_push = unievent.StreamDecoder("anthropic").push(body)
    assert len(long_push) >= UNTRACK_FROM
    assert not any(gc.is_tracked(e) for e in long_push if isinstance(e, DeltaEvent))


@compiled_only
def test_an_event_whose_fidelity_holds_a_list_stays_tracked() -> None:
    events, _ = decode_stream("anthropic", _anthropic(200, citation=True))
    cited = [e for e in events if isinstance(e, DeltaEvent) and "citations" in (getattr(e.item, "fidelity", None) or {})]
    assert cited, "the citation rides on a text item's fidelity"
    assert all(gc.is_tracked(e) and gc.is_tracked(e.item) for e in cited)
    assert sum(not _untracked(e) for e in events if isinstance(e, DeltaEvent)) == len(cited)


@compiled_only
def test_a_whole_push_leaves_no_tracked_object_per_event() -> None:
    body = _anthropic(5000)
    decoder = unievent.StreamDecoder("anthropic")
    gc.collect()
    before = len(gc.get_objects())
    events = decoder.push(body)
    grown = len(gc.get_objects()) - before
    assert len(events) > 5000
    assert grown < 100, f"{grown} more tracked objects for {len(events)} events"


# --- both builds: the events are the same, freed as before, settings untouched -------------------


def test_the_collectors_settings_are_left_as_they_were() -> None:
    settings = (gc.isenabled(), gc.get_threshold(), gc.get_freeze_count(), list(gc.callbacks))
    decode_stream("anthropic", _anthropic(2000))
    gc.disable()
    try:
        decode_stream("anthropic", _anthropic(2000))
        assert not gc.isenabled()
    finally:
        gc.enable()
    assert (gc.isenabled(), gc.get_threshold(), gc.get_freeze_count(), list(gc.callbacks)) == settings


def test_untracked_events_are_equal_to_built_ones_and_freed_by_reference_counting() -> None:
    events, _ = decode_stream("anthropic", _anthropic(50))
    first_text = next(e for e in events if isinstance(e, DeltaEvent) and isinstance(e.item, TextDelta))
    assert first_text == DeltaEvent(item=TextDelta(text="w0 "), created_at=0)
    assert hash(first_text) == hash(DeltaEvent(item=TextDelta(text="w0 "), created_at=0))
    gone = weakref.ref(first_text)
    del events, first_text
    assert gone() is None  # no collection needed


# --- the module itself (compiled: the C extension; pure: its stand-in, which does nothing) ---------


def _gcfree() -> Any:
    import unievent._gcfree as module

    return module


def _extension() -> bool:
    spec = importlib.util.find_spec("unievent._gcfree")
    return spec is not None and spec.origin is not None and not spec.origin.endswith(".py")


extension_only = pytest.mark.skipif(not _extension(), reason="the compiled build is not installed")


@extension_only
def test_untrack_takes_only_the_given_classes_from_start_on() -> None:
    untrack = _gcfree().untrack
    made = [DeltaEvent(item=TextDelta(text=str(i)), created_at=0) for i in range(4)]
    other = [[1], [2]]  # lists: not a given class
    objects: list[Any] = [*made, *other]
    untrack(objects, 2, ATOMIC_KINDS)
    assert [gc.is_tracked(e) for e in made] == [True, True, False, False]
    assert [gc.is_tracked(e.item) for e in made] == [True, True, False, False]
    assert all(gc.is_tracked(o) for o in other)
    untrack(objects, 0, (TextDelta,))  # the events are not of the given class: kept, items and all
    assert [gc.is_tracked(e) for e in made[:2]] == [True, True]
    assert [gc.is_tracked(e.item) for e in made[:2]] == [True, True]
    untrack([e.item for e in made], 0, (TextDelta,))
    assert not any(gc.is_tracked(e.item) for e in made)


@extension_only
def test_untrack_leaves_an_event_that_could_hold_a_cycle_and_the_cycle_is_still_collected() -> None:
    untrack = _gcfree().untrack

    class Node:
        pass

    node = Node()
    loop: list[Any] = [node]
    loop.append(loop)  # a cycle, reachable from the event's fidelity only
    event = DeltaEvent(item=TextDelta(text="x", fidelity={"loop": loop}), created_at=0)
    untrack([event], 0, ATOMIC_KINDS)
    assert gc.is_tracked(event) and gc.is_tracked(event.item)
    gone = weakref.ref(node)
    del node, loop, event
    gc.collect()
    assert gone() is None


@extension_only
def test_untrack_refuses_what_is_not_a_list_and_a_tuple() -> None:
    untrack = _gcfree().untrack
    with pytest.raises(TypeError):
        untrack((), 0, ATOMIC_KINDS)
    with pytest.raises(TypeError):
        untrack([], 0, list(ATOMIC_KINDS))
    with pytest.raises(TypeError):
        untrack([])


def test_the_pure_stand_in_does_nothing() -> None:
    event = DeltaEvent(item=TextDelta(text="x"), created_at=0)
    stand_in("_gcfree").untrack([event], 0, ATOMIC_KINDS)
    assert gc.is_tracked(event) and gc.is_tracked(event.item)


# --- an ended decoder is freed at once ------------------------------------------------
#
# A decoder's framer calls back into it and its handler parses through it: cycles while
# it runs.  finish() and abort() cut them, so that a decoder nobody holds any longer is
# freed by reference counting, with everything it assembled, instead of waiting for the
# collector (after a long decode, for a full collection).


def _conformance_cases() -> list[Any]:
    from tests.test_conformance import FILES

    return FILES


def _cyclic_garbage_after(case: dict[str, Any], end: str) -> int:
    """Decode a case, end it with `end` (finish or abort), drop the decoder: how many
    objects the collector then finds unreachable.  Everything the decode made is in
    the youngest generation (the collector is off meanwhile), so collecting that one
    alone finds it, in a moment however large the test session's heap."""
    was_enabled = gc.isenabled()
    gc.collect(0)
    gc.disable()
    try:
        decoder = unievent.StreamDecoder(case["protocol"], **case["options"])
        for text in case["chunks"]:
            try:
                decoder.push(text.encode(case["encoding"]))
            except unievent.UniEventError:
                break
        if end == "finish":
            decoder.finish()
        else:
            decoder.abort()
        del decoder
        return gc.collect(0)
    finally:
        if was_enabled:
            gc.enable()


@pytest.mark.parametrize("path", _conformance_cases(), ids=lambda p: p.stem)
def test_an_ended_decoder_leaves_no_cycle_for_the_collector(path: Any) -> None:
    from tests.test_conformance import load

    case = load(path)
    assert _cyclic_garbage_after(case, "finish") == 0
    assert _cyclic_garbage_after(case, "abort") == 0


@pytest.mark.parametrize(("protocol", "body"), [("gemini", " "), ("auto", "  "), ("gemini", "")])
def test_a_decoder_still_choosing_its_framing_leaves_no_cycle(protocol: str, body: str) -> None:
    # blank bytes name no framing: the sniffer never chose, and still holds the
    # decoder's callback when the stream ends
    from unievent._decoder import StreamDecoder as RuntimeStreamDecoder  # takes any protocol name
    from unievent._framing.sniff import FramingSniffer

    decoder = RuntimeStreamDecoder(protocol)
    decoder.push(body.encode())
    assert isinstance(decoder.framer, FramingSniffer)  # what this test is about
    case = {"protocol": protocol, "options": {}, "chunks": [body], "encoding": "utf-8"}
    assert _cyclic_garbage_after(case, "finish") == 0
    assert _cyclic_garbage_after(case, "abort") == 0
