"""The delta events of a run of text fragments (unievent._deltas): the compiled build
builds them in C, in place, and the Python stand-in is the definition: the same events
(equal, hashing alike, of the same classes), the same fragments kept, the same values
skipped, for every run.  What C adds, and only where it is safe: the events and items it
makes of atomic values leave the collector's lists, and reference counting still frees
them.  A layout that is not a plain slotted class's is refused before anything is made.
"""

from __future__ import annotations

import gc
import sys
import weakref
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import unievent
from tests.helpers import stand_in
from unievent import DeltaEvent, TextDelta, ThinkingDelta, ToolCallDelta
from unievent._deltas import deltas
from unievent._grammar import _ARGUMENTS_LAYOUT, _TEXT_LAYOUT, _THINKING_LAYOUT

compiled_only = pytest.mark.skipif(not unievent.COMPILED, reason="the compiled build is not installed")

STAND_IN = stand_in("_deltas")


def _both(values: list[Any], start: int, layout: Any, created_at: Any) -> tuple[list[Any], list[Any]]:
    """What the installed module and the stand-in make: the same, or the test fails."""
    got: tuple[list[Any], list[Any]] = (["before"], ["kept"])
    want: tuple[list[Any], list[Any]] = (["before"], ["kept"])
    deltas(values, start, layout, created_at, *got)
    STAND_IN.deltas(values, start, layout, created_at, *want)
    assert got == want
    assert [type(e) for e in got[0]] == [type(e) for e in want[0]]
    assert [type(e.item) for e in got[0][1:]] == [type(e.item) for e in want[0][1:]]
    assert [hash(e) for e in got[0][1:]] == [hash(e) for e in want[0][1:]]
    return got[0][1:], got[1][1:]


def test_a_run_of_text_fragments_is_one_text_delta_each() -> None:
    events, parts = _both(["Hel", "lo", " world"], 0, _TEXT_LAYOUT, 17)
    assert events == [DeltaEvent(item=TextDelta(text=t), created_at=17) for t in ("Hel", "lo", " world")]
    assert parts == ["Hel", "lo", " world"]


def test_empty_fragments_add_nothing_and_start_skips_the_first() -> None:
    events, parts = _both(["a", "", "b", "", "c"], 1, _THINKING_LAYOUT, 0)
    assert events == [DeltaEvent(item=ThinkingDelta(thinking=t), created_at=0) for t in ("b", "c")]
    assert parts == ["b", "c"]
    assert _both(["x"], 1, _TEXT_LAYOUT, 0) == ([], [])
    assert _both(["x"], 5, _TEXT_LAYOUT, 0) == ([], [])


def test_fixed_slots_are_set_on_every_item() -> None:
    # the assembler's layout of a tool call's later deltas: no name, no id, no fidelity
    events, _ = _both(['{"a"', ": 1}"], 0, _ARGUMENTS_LAYOUT, 3)
    assert [e.item for e in events] == [ToolCallDelta(name="", arguments=a, tool_call_id="") for a in ('{"a"', ": 1}")]


@given(st.lists(st.text(max_size=4), max_size=12), st.integers(min_value=0, max_value=14),
       st.integers(min_value=0, max_value=2**70))
def test_every_run_is_built_as_the_stand_in_builds_it(values: list[str], start: int, created_at: int) -> None:
    _both(values, start, _TEXT_LAYOUT, created_at)


def test_values_that_are_not_strings_are_taken_by_their_truth() -> None:
    # (the assembler passes strings only; the contract holds for any value)
    events, parts = _both([0, 1, "", b"x", None, (), (2,)], 0, _TEXT_LAYOUT, 0)
    assert parts == [1, b"x", (2,)]
    assert [e.item.text for e in events] == [1, b"x", (2,)]


@compiled_only
def test_events_of_atomic_values_are_untracked_and_the_rest_are_not() -> None:
    out: list[Any] = []
    cycle: list[Any] = ["a list is true when it holds something"]
    deltas(["a", "b"], 0, _TEXT_LAYOUT, 5, out, [])
    deltas([cycle], 0, _TEXT_LAYOUT, 5, out, [])
    deltas(["c"], 0, _TEXT_LAYOUT, [5], out, [])  # a created_at that is a container
    assert [gc.is_tracked(e) for e in out] == [False, False, True, True]
    assert [gc.is_tracked(e.item) for e in out] == [False, False, True, False]
    # a cycle through a tracked item is still found by the collector
    cycle.append(out[2])
    probe = weakref.ref(out[2])
    del out, cycle
    gc.collect()
    assert probe() is None


def test_the_events_are_freed_by_reference_counting() -> None:
    out: list[Any] = []
    deltas(["gone"], 0, _TEXT_LAYOUT, 0, out, [])
    item = weakref.ref(out[0].item)
    event = weakref.ref(out[0])
    value = "".join(["go", "ne!"])
    refs = sys.getrefcount(value)
    parts: list[Any] = []
    deltas([value], 0, _TEXT_LAYOUT, 0, out, parts)
    assert sys.getrefcount(value) == refs + 2  # the item's slot and `parts`
    del out
    assert sys.getrefcount(value) == refs + 1
    assert item() is None
    assert event() is None


@compiled_only
@pytest.mark.parametrize(
    "layout",
    [
        (TextDelta, TextDelta.__dict__["text"], (), DeltaEvent, DeltaEvent.__dict__["item"]),  # too short
        (dict, TextDelta.__dict__["text"], (), DeltaEvent, DeltaEvent.__dict__["item"], DeltaEvent.__dict__["created_at"]),
        (TextDelta, ThinkingDelta.__dict__["thinking"], (), DeltaEvent, DeltaEvent.__dict__["item"],
         DeltaEvent.__dict__["created_at"]),  # a slot of another class
        (TextDelta, TextDelta.__dict__["text"], ((TextDelta.__dict__["fidelity"],),), DeltaEvent,
         DeltaEvent.__dict__["item"], DeltaEvent.__dict__["created_at"]),  # no pair
        (TextDelta, TextDelta.__dict__["text"], (), DeltaEvent, DeltaEvent.__dict__["item"], property()),
        (TextDelta, TextDelta.__dict__["text"], (), TextDelta, DeltaEvent.__dict__["item"],
         DeltaEvent.__dict__["created_at"]),  # the event's slots on another class
    ],
)
def test_a_layout_that_is_not_a_plain_slotted_classs_is_refused(layout: Any) -> None:
    out: list[Any] = []
    parts: list[Any] = []
    with pytest.raises(TypeError):
        deltas(["x"], 0, layout, 0, out, parts)
    assert out == [] and parts == []


@compiled_only
def test_the_arguments_are_checked() -> None:
    with pytest.raises(TypeError):
        deltas(("x",), 0, _TEXT_LAYOUT, 0, [], [])  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        deltas(["x"], 0, _TEXT_LAYOUT, 0, [])  # type: ignore[call-arg]
    with pytest.raises(ValueError, match="negative"):
        deltas(["x"], -1, _TEXT_LAYOUT, 0, [], [])
    with pytest.raises(ValueError, match="negative"):
        STAND_IN.deltas(["x"], -1, _TEXT_LAYOUT, 0, [], [])
