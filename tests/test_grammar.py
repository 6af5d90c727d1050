"""The UniEvent group grammar, rule by rule (issue 2, "The group grammar as a machine").

    stream := delta_event* stop_event
    group  := K.delta+ K.done

Each rule has a stream that breaks it and the exact GrammarError it earns: the index of
the offending event, the state it arrived in, what arrived, what was allowed and why.
The assembler half proves that what protocols build with `Assembler` always validates.
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from machines.group_grammar import GUARDS as RULES
from unievent import (
    DeltaEvent,
    EmbeddingDelta,
    EmbeddingDone,
    GrammarError,
    ImageUrlDone,
    InlineDataDelta,
    InlineDataDone,
    InlineThinkingDelta,
    InlineThinkingDone,
    StopEvent,
    TextDelta,
    TextDone,
    ThinkingDelta,
    ThinkingDone,
    ToolCallDelta,
    ToolCallDone,
    ToolResultDone,
    Usage,
    validate,
)
from unievent._grammar import ArgumentsError, Assembler

BETWEEN = (
    "text.delta",
    "thinking.delta",
    "tool_call.delta",
    "inline_data.delta",
    "inline_thinking.delta",
    "embedding.delta",
    "stop",
)
USAGE = Usage(cached_tokens=0, prompt_tokens=12, thoughts_tokens=3, response_tokens=20)


def ev(item: Any) -> DeltaEvent:
    return DeltaEvent(item=item, created_at=1694502400000)


def stop(finish_reason: Any = "stop", usage: Any = USAGE) -> StopEvent:
    return StopEvent(usage=usage, finish_reason=finish_reason, created_at=1694502400000)


def broken(rule: str) -> str:
    """The reason a guard failure reports: the rule as the declaration words it."""
    return f"rule broken: {RULES[rule]}"


def rejects(
    events: list[Any],
    *,
    index: int,
    state: str,
    arrived: str,
    reason: str,
    allowed: tuple[str, ...] | None = None,
    partial: bool = False,
) -> GrammarError:
    with pytest.raises(GrammarError) as info:
        validate(events, partial=partial)
    err = info.value
    assert (err.index, err.state, err.arrived, err.reason) == (index, state, arrived, reason)
    if allowed is not None:
        assert err.allowed == allowed
    assert str(err) == (
        f"event {index}: {arrived} in state {state!r}: {reason} (allowed: {', '.join(err.allowed) or 'nothing'})"
    )
    return err


# --- the seed example --------------------------------------------------------------------

SIGNATURE = {"signature": "EqQBCgIYAhIM1gbcDa9GJwZA2b3hGgxDYVeBm0n"}


def seed_stream() -> list[Any]:
    """MMSP's example: a Claude turn that thinks, then calls a tool."""
    return [
        ev(ThinkingDelta("Let me")),
        ev(ThinkingDelta(" check")),
        ev(ThinkingDelta("", fidelity=SIGNATURE)),
        ev(ThinkingDone("Let me check", fidelity=SIGNATURE)),
        ev(ToolCallDelta(name="get_weather", arguments="", tool_call_id="toolu_1")),
        ev(ToolCallDelta(name="", arguments='{"location": ', tool_call_id="")),
        ev(ToolCallDelta(name="", arguments='"Paris"}', tool_call_id="")),
        ev(ToolCallDone(name="get_weather", arguments={"location": "Paris"}, tool_call_id="toolu_1")),
        stop("tool_call"),
    ]


def test_the_mmsp_seed_example_validates() -> None:
    summary = validate(seed_stream())
    assert summary.events == 9
    assert summary.stopped is True
    assert summary.groups == {
        "text": 0,
        "thinking": 1,
        "tool_call": 1,
        "inline_data": 0,
        "inline_thinking": 0,
        "embedding": 0,
    }


def test_every_kind_of_group_validates() -> None:
    events: list[Any] = [
        ev(TextDelta("Hel")),
        ev(TextDelta("lo")),
        ev(TextDone("Hello")),
        ev(InlineDataDelta(b"\x89P", "image/png")),
        ev(InlineDataDelta(b"NG", "image/png")),
        ev(InlineDataDone(b"\x89PNG", "image/png")),
        ev(InlineThinkingDelta(b"ab", "image/png")),
        ev(InlineThinkingDone(b"ab", "image/png")),
        ev(EmbeddingDelta([0.5, 1.5])),
        ev(EmbeddingDelta([2.5])),
        ev(EmbeddingDone([0.5, 1.5, 2.5])),
        stop(),
    ]
    assert validate(events).groups == {
        "text": 1,
        "thinking": 0,
        "tool_call": 0,
        "inline_data": 1,
        "inline_thinking": 1,
        "embedding": 1,
    }


# --- one item per delta event --------------------------------------------------------------


def test_a_delta_event_holds_exactly_one_item() -> None:
    # the Python type has one `item` field: two items cannot be written down
    assert [f.name for f in attrs.fields(DeltaEvent)] == ["item", "created_at"]
    with pytest.raises(TypeError):
        DeltaEvent(items=[TextDelta("a"), TextDelta("b")], created_at=0)  # type: ignore[call-arg]
    # and smuggling a list into `item` is not an item a model streams
    two = [TextDelta("a"), TextDelta("b")]
    rejects(
        [ev(two), stop()],
        index=0,
        state="between",
        arrived=repr(two),
        reason="not an item a model streams",
        allowed=BETWEEN,
    )


def test_only_unievents_are_accepted() -> None:
    rejects(
        [ev(TextDelta("a")), {"event_type": "delta"}],
        index=1,
        state="text",
        arrived="dict",
        reason="not a UniEvent",
        allowed=("text.delta", "text.done"),
    )


# --- groups ----------------------------------------------------------------------------------


def test_groups_never_interleave() -> None:
    rejects(
        [ev(TextDelta("Hi")), ev(ThinkingDelta("hmm")), ev(TextDelta("!")), ev(TextDone("Hi!")), stop()],
        index=1,
        state="text",
        arrived="thinking.delta",
        reason="the open text group must end with its done first",
        allowed=("text.delta", "text.done"),
    )


def test_a_groups_deltas_are_one_kind() -> None:
    rejects(
        [ev(InlineDataDelta(b"a", "image/png")), ev(InlineThinkingDelta(b"b", "image/png"))],
        index=1,
        state="inline_data",
        arrived="inline_thinking.delta",
        reason="the open inline_data group must end with its done first",
        allowed=("inline_data.delta", "inline_data.done"),
    )


def test_a_group_closes_with_the_done_of_its_own_kind() -> None:
    rejects(
        [ev(ThinkingDelta("a")), ev(TextDone("a")), stop()],
        index=1,
        state="thinking",
        arrived="text.done",
        reason="the open thinking group must end with its done first",
        allowed=("thinking.delta", "thinking.done"),
    )


def test_a_done_needs_deltas_before_it() -> None:
    rejects(
        [ev(TextDelta("a")), ev(TextDone("a")), ev(TextDone("a")), stop()],
        index=2,
        state="between",
        arrived="text.done",
        reason="no group is open",
        allowed=BETWEEN,
    )


# --- tool calls --------------------------------------------------------------------------------


@pytest.mark.parametrize(("name", "call_id"), [("", "call_1"), ("get_weather", ""), ("", "")])
def test_the_first_tool_call_delta_names_the_call(name: str, call_id: str) -> None:
    rejects(
        [ev(ToolCallDelta(name, "{}", call_id))],
        index=0,
        state="between",
        arrived="tool_call.delta",
        reason=broken("opens_call"),
        allowed=BETWEEN,
    )


@pytest.mark.parametrize(("name", "call_id"), [("get_weather", ""), ("", "call_1"), ("get_weather", "call_1")])
def test_later_tool_call_deltas_carry_no_name_or_id(name: str, call_id: str) -> None:
    rejects(
        [ev(ToolCallDelta("get_weather", '{"a":', "call_1")), ev(ToolCallDelta(name, "1}", call_id))],
        index=1,
        state="tool_call",
        arrived="tool_call.delta",
        reason=broken("continues_call"),
        allowed=("tool_call.delta", "tool_call.done"),
    )


def test_tool_call_done_arguments_are_the_parsed_join() -> None:
    deltas = [ev(ToolCallDelta("f", '{"a": ', "c1")), ev(ToolCallDelta("", '[1, {"b": null}]}', ""))]
    validate([*deltas, ev(ToolCallDone("f", {"a": [1, {"b": None}]}, "c1")), stop("tool_call")])
    rejects(
        [*deltas, ev(ToolCallDone("f", {"a": [1]}, "c1")), stop("tool_call")],
        index=2,
        state="tool_call",
        arrived="tool_call.done",
        reason=broken("done_matches"),
    )
    # the text itself is not the arguments: they are parsed
    rejects(
        [*deltas, ev(ToolCallDone("f", '{"a": [1, {"b": null}]}', "c1")), stop("tool_call")],  # type: ignore[arg-type]
        index=2,
        state="tool_call",
        arrived="tool_call.done",
        reason=broken("done_matches"),
    )


def test_tool_call_done_repeats_the_name_and_id() -> None:
    deltas = [ev(ToolCallDelta("f", "{}", "c1"))]
    for done in (ToolCallDone("g", {}, "c1"), ToolCallDone("f", {}, "c2")):
        rejects(
            [*deltas, ev(done), stop()],
            index=1,
            state="tool_call",
            arrived="tool_call.done",
            reason=broken("done_matches"),
        )


def test_blank_arguments_are_the_empty_object() -> None:
    validate([ev(ToolCallDelta("ping", "", "c1")), ev(ToolCallDone("ping", {}, "c1")), stop("tool_call")])


def test_unparsable_arguments_close_as_empty_object_with_the_raw_text() -> None:
    deltas = [ev(ToolCallDelta("f", '{"a": ', "c1")), ev(ToolCallDelta("", "1", ""))]
    validate([*deltas, ev(ToolCallDone("f", {}, "c1", {"raw_arguments": '{"a": 1'})), stop()])
    rejects(
        [*deltas, ev(ToolCallDone("f", {}, "c1")), stop()],
        index=2,
        state="tool_call",
        arrived="tool_call.done",
        reason=broken("done_matches"),
    )


# --- fidelity -------------------------------------------------------------------------------------


def test_at_most_one_delta_of_a_group_carries_fidelity() -> None:
    rejects(
        [ev(ThinkingDelta("a", {"signature": "x"})), ev(ThinkingDelta("b")), ev(ThinkingDelta("", {"signature": "x"}))],
        index=2,
        state="thinking",
        arrived="thinking.delta",
        reason=broken("fidelity_once"),
        allowed=("thinking.delta", "thinking.done"),
    )


def test_the_done_carries_the_groups_fidelity() -> None:
    deltas = [ev(ThinkingDelta("a")), ev(ThinkingDelta("", {"signature": "x"}))]
    validate([*deltas, ev(ThinkingDone("a", {"signature": "x"})), stop()])
    for fidelity in ({"signature": "y"}, None, {"signature": "x", "extra": 1}):
        rejects(
            [*deltas, ev(ThinkingDone("a", fidelity)), stop()],
            index=2,
            state="thinking",
            arrived="thinking.done",
            reason=broken("done_matches"),
        )
    # a done may not bring fidelity its deltas never carried
    rejects(
        [ev(TextDelta("a")), ev(TextDone("a", {"phase": "final"})), stop()],
        index=1,
        state="text",
        arrived="text.done",
        reason=broken("done_matches"),
    )


# --- the done equals the join -----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("deltas", "good", "bad"),
    [
        ([TextDelta("Hel"), TextDelta("lo")], TextDone("Hello"), TextDone("Hell")),
        ([ThinkingDelta("a"), ThinkingDelta("b")], ThinkingDone("ab"), ThinkingDone("ba")),
        (
            [InlineDataDelta(b"ab", "audio/wav"), InlineDataDelta(b"cd", "audio/wav")],
            InlineDataDone(b"abcd", "audio/wav"),
            InlineDataDone(b"abdc", "audio/wav"),
        ),
        (
            [InlineDataDelta(b"ab", "image/png")],
            InlineDataDone(b"ab", "image/png"),
            InlineDataDone(b"ab", "image/jpeg"),
        ),
        (
            [InlineThinkingDelta(b"a", "image/png"), InlineThinkingDelta(b"b", "image/png")],
            InlineThinkingDone(b"ab", "image/png"),
            InlineThinkingDone(b"a", "image/png"),
        ),
        (
            [InlineThinkingDelta(b"a", "image/png")],
            InlineThinkingDone(b"a", "image/png"),
            InlineThinkingDone(b"a", "image/webp"),
        ),
        (
            [EmbeddingDelta([1.0, 2.0]), EmbeddingDelta([3.0])],
            EmbeddingDone([1.0, 2.0, 3.0]),
            EmbeddingDone([[1.0, 2.0], [3.0]]),  # type: ignore[list-item]
        ),
        (
            [EmbeddingDelta([1.0, 2.0]), EmbeddingDelta([3.0])],
            EmbeddingDone([1.0, 2.0, 3.0]),
            EmbeddingDone([1.0, 2.0]),
        ),
    ],
    ids=[
        "text",
        "thinking",
        "bytes",
        "mime",
        "inline_thinking_bytes",
        "inline_thinking_mime",
        "embedding_flattened",
        "embedding_short",
    ],
)
def test_a_done_equals_the_join_of_its_deltas(deltas: list[Any], good: Any, bad: Any) -> None:
    events = [ev(d) for d in deltas]
    validate([*events, ev(good), stop()])
    kind = good.kind
    rejects(
        [*events, ev(bad), stop()],
        index=len(deltas),
        state=kind,
        arrived=f"{kind}.done",
        reason=broken("done_matches"),
        allowed=(f"{kind}.delta", f"{kind}.done"),
    )


# --- stop -------------------------------------------------------------------------------------------


def test_stop_comes_exactly_once() -> None:
    rejects(
        [ev(TextDelta("a")), ev(TextDone("a")), stop(), stop()],
        index=3,
        state="stopped",
        arrived="stop",
        reason="nothing may follow the stop event",
        allowed=(),
    )


def test_nothing_follows_stop() -> None:
    rejects(
        [stop(), ev(TextDelta("late"))],
        index=1,
        state="stopped",
        arrived="text.delta",
        reason="nothing may follow the stop event",
        allowed=(),
    )


def test_stop_waits_for_the_open_group() -> None:
    rejects(
        [ev(ToolCallDelta("f", "{}", "c1")), stop("tool_call")],
        index=1,
        state="tool_call",
        arrived="stop",
        reason="the open tool_call group must end with its done first",
        allowed=("tool_call.delta", "tool_call.done"),
    )


@pytest.mark.parametrize(("usage", "finish_reason"), [(USAGE, "end_turn"), (None, "stop"), ({}, "stop")])
def test_stop_carries_usage_and_an_mmsp_finish_reason(usage: Any, finish_reason: Any) -> None:
    rejects(
        [stop(finish_reason, usage)],
        index=0,
        state="between",
        arrived="stop",
        reason=broken("stop_complete"),
        allowed=BETWEEN,
    )


def test_a_stream_ends_with_stop() -> None:
    events = [ev(TextDelta("a")), ev(TextDone("a"))]
    rejects(
        events,
        index=2,
        state="between",
        arrived="end of stream",
        reason="the stream ended without a stop event",
        allowed=BETWEEN,
    )
    rejects([], index=0, state="between", arrived="end of stream", reason="the stream ended without a stop event")


def test_a_stream_cut_short_is_accepted_as_partial() -> None:
    summary = validate([ev(TextDelta("a")), ev(TextDone("a"))], partial=True)
    assert (summary.events, summary.stopped, summary.groups["text"]) == (2, False, 1)
    # cut inside a tool call: the group stays open, still a valid prefix
    summary = validate([ev(ToolCallDelta("f", '{"a":', "c1"))], partial=True)
    assert (summary.events, summary.stopped, summary.groups["tool_call"]) == (1, False, 1)
    # partial does not excuse a broken rule
    rejects(
        [ev(TextDelta("a")), ev(ThinkingDelta("b"))],
        index=1,
        state="text",
        arrived="thinking.delta",
        reason="the open text group must end with its done first",
        partial=True,
    )


# --- user-side items ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "item",
    [ImageUrlDone("https://example.com/cat.png"), ToolResultDone("18C and sunny", "toolu_1")],
    ids=["image_url.done", "tool_result.done"],
)
def test_user_side_items_are_not_in_a_model_stream(item: Any) -> None:
    rejects(
        [ev(item), stop()],
        index=0,
        state="between",
        arrived=item.type,
        reason="not an item a model streams",
        allowed=BETWEEN,
    )
    rejects(
        [ev(TextDelta("a")), ev(item)],
        index=1,
        state="text",
        arrived=item.type,
        reason="not an item a model streams",
        allowed=("text.delta", "text.done"),
    )


# --- the assembler ---------------------------------------------------------------------------------------


def items(events: list[Any]) -> list[Any]:
    return [e.item if isinstance(e, DeltaEvent) else ("stop", e.finish_reason) for e in events]


def test_assembler_builds_the_seed_example() -> None:
    out: list[Any] = []
    asm = Assembler(out)
    asm.now = 1694502400000
    asm.thinking("Let me")
    asm.thinking(" check")
    asm.fidelity(SIGNATURE)
    asm.tool_call("get_weather", "toolu_1")
    asm.tool_arguments('{"location": ')
    asm.tool_arguments('"Paris"}')
    asm.stop(USAGE, "tool_call")
    assert out == seed_stream()
    assert asm.done_items == [
        ThinkingDone("Let me check", SIGNATURE),
        ToolCallDone("get_weather", {"location": "Paris"}, "toolu_1"),
    ]


def test_assembler_puts_fidelity_on_one_delta_per_item() -> None:
    out: list[Any] = []
    asm = Assembler(out)
    asm.text("a", {"phase": "final"})
    asm.text("b", {"phase": "final"})
    asm.fidelity({"phase": "final"})
    asm.stop(USAGE, "stop")
    assert items(out) == [
        TextDelta("a", {"phase": "final"}),
        TextDelta("b"),
        TextDone("ab", {"phase": "final"}),
        ("stop", "stop"),
    ]
    validate(out)


def test_assembler_opens_a_new_item_for_a_different_fidelity() -> None:
    out: list[Any] = []
    asm = Assembler(out)
    asm.thinking("one", {"signature": "s1"})
    asm.thinking("two", {"signature": "s2"})
    asm.text("x", {"phase": "a"})
    asm.fidelity({"phase": "b"})
    asm.stop(USAGE, "stop")
    assert items(out) == [
        ThinkingDelta("one", {"signature": "s1"}),
        ThinkingDone("one", {"signature": "s1"}),
        ThinkingDelta("two", {"signature": "s2"}),
        ThinkingDone("two", {"signature": "s2"}),
        TextDelta("x", {"phase": "a"}),
        TextDone("x", {"phase": "a"}),
        TextDelta("", {"phase": "b"}),
        TextDone("", {"phase": "b"}),
        ("stop", "stop"),
    ]
    validate(out)


def test_assembler_emits_nothing_for_empty_fragments() -> None:
    out: list[Any] = []
    asm = Assembler(out)
    asm.text("")
    asm.thinking("")
    assert out == []
    asm.text("a")
    asm.text("")
    asm.thinking("")  # an empty fragment of another kind does not close the open item
    asm.tool_call("f", "c1")
    asm.tool_arguments("")
    asm.stop(USAGE, "tool_call")
    assert items(out) == [
        TextDelta("a"),
        TextDone("a"),
        ToolCallDelta("f", "", "c1"),
        ToolCallDone("f", {}, "c1"),
        ("stop", "tool_call"),
    ]


def test_assembler_strict_arguments_raise() -> None:
    asm = Assembler([])
    asm.tool_call("get_weather", "toolu_1", '{"location": ')
    asm.tool_arguments('"Par')
    with pytest.raises(ArgumentsError) as info:
        asm.stop(USAGE, "tool_call")
    assert (info.value.name, info.value.tool_call_id, info.value.raw) == ("get_weather", "toolu_1", '{"location": "Par')


@pytest.mark.parametrize("raw", ['{"location": "Par', "[1, 2]", "42", "null"])
def test_assembler_lenient_arguments_keep_the_raw_text(raw: str) -> None:
    out: list[Any] = []
    asm = Assembler(out, strict_arguments=False)
    asm.tool_call("get_weather", "toolu_1", raw, {"signature": "s"})
    asm.stop(USAGE, "tool_call")
    assert out[1].item == ToolCallDone("get_weather", {}, "toolu_1", {"signature": "s", "raw_arguments": raw})
    validate(out)


def test_assembler_rejects_a_tool_call_without_name_or_id() -> None:
    asm = Assembler([])
    with pytest.raises(ValueError, match="non-empty name and tool_call_id"):
        asm.tool_call("", "c1")
    with pytest.raises(RuntimeError, match="no tool call open"):
        asm.tool_arguments("{}")


def test_assembler_refuses_content_after_stop() -> None:
    asm = Assembler([])
    asm.stop(USAGE, "stop")
    with pytest.raises(RuntimeError, match="after the stop event"):
        asm.text("late")


@pytest.mark.parametrize("kind", ["tool_call", "inline_data_fidelity"])
def test_a_second_fidelity_on_a_group_that_cannot_split_is_dropped_and_noted(kind: str) -> None:
    out: list[Any] = []
    asm = Assembler(out)
    if kind == "tool_call":
        asm.tool_call("f", "c1", "{}", {"signature": "s1"})
        asm.fidelity({"signature": "s2"})
    else:
        asm.inline_data(b"ab", "audio/wav", fidelity={"id": "a1"})
        asm.fidelity({"id": "a2"})
    asm.stop(USAGE, "stop")
    validate(out)
    (noted,) = asm.anomalies.freeze()
    assert (noted.kind, noted.count) == ("second_fidelity", 1) and "second fidelity" in noted.examples[0]


def test_a_binary_chunk_with_another_fidelity_starts_a_new_item() -> None:
    out: list[Any] = []
    asm = Assembler(out)
    asm.inline_data(b"ab", "audio/wav", fidelity={"id": "a1"})
    asm.inline_data(b"cd", "audio/wav", fidelity={"id": "a2"})
    asm.stop(USAGE, "stop")
    validate(out)
    assert asm.done_items == [InlineDataDone(b"ab", "audio/wav", {"id": "a1"}), InlineDataDone(b"cd", "audio/wav", {"id": "a2"})]


# A random session of assembler calls, as a protocol handler would make them.
FIDELITIES = st.sampled_from([None, None, None, {"signature": "s1"}, {"signature": "s2"}])
SHORT = st.text(alphabet='ab{}":, ', max_size=4)
OPS = st.one_of(
    st.tuples(st.just("text"), SHORT, FIDELITIES),
    st.tuples(st.just("thinking"), SHORT, FIDELITIES),
    st.tuples(st.just("tool_call"), st.sampled_from(["f", "g"]), st.sampled_from(["c1", "c2"]), SHORT, FIDELITIES),
    st.tuples(st.just("tool_arguments"), SHORT),
    st.tuples(st.just("fidelity"), FIDELITIES.filter(lambda f: f is not None)),
    st.tuples(st.just("close")),
    st.tuples(
        st.just("inline_data"),
        st.binary(max_size=3),
        st.sampled_from(["audio/wav", "image/png"]),
        st.booleans(),
        FIDELITIES,
    ),
    st.tuples(st.just("inline_thinking"), st.binary(max_size=3), st.just("image/png"), FIDELITIES),
    st.tuples(st.just("embedding"), st.lists(st.floats(allow_nan=False, width=32), max_size=3)),
)


@settings(max_examples=300)
@given(ops=st.lists(OPS, max_size=25), finish=st.sampled_from(["stop", "length", "tool_call", "unknown"]))
def test_assembler_output_always_validates(ops: list[tuple[Any, ...]], finish: str) -> None:
    out: list[Any] = []
    asm = Assembler(out, strict_arguments=False)
    sent: dict[str, list[Any]] = {"text": [], "thinking": [], "inline": [], "embedding": []}
    for op in ops:
        name, args = op[0], op[1:]
        if name == "tool_arguments" and asm.open_kind != "tool_call":
            continue
        getattr(asm, name)(*args)
        if name in ("text", "thinking"):
            sent[name].append(args[0])
        elif name in ("inline_data", "inline_thinking"):
            sent["inline"].append(args[0])
        elif name == "embedding":
            sent["embedding"].extend(args[0])
    asm.stop(USAGE, finish)
    summary = validate(out)
    assert summary.stopped and summary.events == len(out)
    assert out[-1] == StopEvent(USAGE, finish, 0)  # type: ignore[arg-type]
    dones = [e.item for e in out[:-1] if e.item.type.endswith(".done")]
    assert dones == asm.done_items
    # nothing is lost or invented: the done items join exactly what was sent, in order
    assert "".join(d.text for d in dones if isinstance(d, TextDone)) == "".join(sent["text"])
    assert "".join(d.thinking for d in dones if isinstance(d, ThinkingDone)) == "".join(sent["thinking"])
    binary = b"".join(d.data for d in dones if isinstance(d, (InlineDataDone, InlineThinkingDone)))
    assert binary == b"".join(sent["inline"])
    assert [x for d in dones if isinstance(d, EmbeddingDone) for x in d.embedding] == sent["embedding"]
    # empty fragments emit nothing: every delta carries content or fidelity
    for e in out[:-1]:
        item = e.item
        if item.type in ("text.delta", "thinking.delta"):
            assert getattr(item, item.kind) or item.fidelity is not None


@settings(max_examples=200, deadline=None)
@given(
    st.sampled_from(["texts", "thinkings"]),
    st.sampled_from([None, "text", "thinking"]),
    st.one_of(
        st.lists(st.sampled_from(["a", "bc", "", " "]), max_size=80),
        st.lists(st.sampled_from(["a", "bc", " "]), min_size=30, max_size=80),  # long runs, nothing empty
        st.lists(st.sampled_from(["a", "bc", ""]), min_size=30, max_size=80),
    ),
)
def test_a_run_of_fragments_is_each_fragment_in_turn(method: str, before: str | None, values: list[str]) -> None:
    """texts() and thinkings() build what text() and thinking() build one by one (runs
    of 32 and more are built otherwise where this module runs as Python source)."""
    runs: list[Any] = []
    one_by_one: list[Any] = []
    for out, whole in ((runs, True), (one_by_one, False)):
        asm = Assembler(out)
        asm.now = 7
        if before is not None:
            getattr(asm, before)("x")
        if whole:
            getattr(asm, method)(values)
        else:
            for value in values:
                getattr(asm, method[:-1])(value)
        asm.stop(USAGE, "stop")
        out.append(asm.done_items)
    assert runs == one_by_one
    assert [type(e) for e in runs] == [type(e) for e in one_by_one]


@settings(max_examples=200, deadline=None)
@given(
    st.one_of(
        st.lists(st.sampled_from(['{"a', '": ', "1}", "", " "]), max_size=80),
        st.lists(st.sampled_from(['{"a', '": ', "1}", " "]), min_size=30, max_size=80),  # long runs, nothing empty
    ),
    st.sampled_from(["", '{"b": 2}']),
)
def test_a_run_of_arguments_is_each_fragment_in_turn(values: list[str], first: str) -> None:
    """tool_arguments_run() builds what tool_arguments() builds one by one (long runs
    are built column by column where this module runs as Python source)."""
    runs: list[Any] = []
    one_by_one: list[Any] = []
    for out, whole in ((runs, True), (one_by_one, False)):
        asm = Assembler(out, strict_arguments=False)
        asm.now = 7
        asm.tool_call("f", "c1", first)
        if whole:
            asm.tool_arguments_run(values)
        else:
            for value in values:
                asm.tool_arguments(value)
        asm.stop(USAGE, "tool_call")
        out.append(asm.done_items)
    assert runs == one_by_one
    assert [type(e) for e in runs] == [type(e) for e in one_by_one]
    later = [e for e in runs[1:] if isinstance(e, DeltaEvent) and isinstance(e.item, ToolCallDelta)]
    assert [e.item for e in later] == [ToolCallDelta("", v, "") for v in values if v]
    assert [hash(e) for e in later] == [hash(e) for e in one_by_one[1 : 1 + len(later)]]


def test_a_run_of_arguments_needs_an_open_tool_call() -> None:
    asm = Assembler([])
    asm.text("a")
    with pytest.raises(RuntimeError, match="no tool call open"):
        asm.tool_arguments_run(["{}"])
