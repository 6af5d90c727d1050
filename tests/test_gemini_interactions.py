"""Gemini Interactions API streams decoded by StreamDecoder("gemini_interactions").

Written as the API sends them: `event: <type>` + `data: <json with event_type>`, a
blank line, and `event: done` / `data: [DONE]` at the end.  Each test states one rule;
the recorded Interactions stream of ../shared/corpus is replayed at the end.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import orjson
import pytest

import unievent
from tests.helpers import decoder_on_path, split_at
from unievent import DeltaEvent, InlineDataDone, Outcome, TextDone, ThinkingDone, ToolCallDone, Usage

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"
DONE = b"event: done\ndata: [DONE]\n\n"


def ev(event_type: str, **fields: Any) -> dict[str, Any]:
    return {**fields, "event_type": event_type}


def created() -> dict[str, Any]:
    return ev("interaction.created", interaction={"id": "v1_x", "status": "in_progress", "model": "gemini-3-flash"})


def start(index: int, step: dict[str, Any]) -> dict[str, Any]:
    return ev("step.start", index=index, step=step)


def delta(index: int, **d: Any) -> dict[str, Any]:
    return ev("step.delta", index=index, delta=d)


def stop(index: int) -> dict[str, Any]:
    return ev("step.stop", index=index)


def completed(status: str = "completed", **usage: int) -> dict[str, Any]:
    return ev("interaction.completed", interaction={"id": "v1_x", "status": status, "usage": usage, "model": "gemini-3-flash"})


def wire(*frames: dict[str, Any], done: bool = True, names: bool = True) -> bytes:
    out = b""
    for frame in frames:
        if names:
            out += b"event: " + frame["event_type"].encode() + b"\n"
        out += b"data: " + orjson.dumps(frame) + b"\n\n"
    return out + (DONE if done else b"")


def run(body: bytes | list[bytes], **options: Any) -> tuple[list[Any], Outcome]:
    decoder = unievent.StreamDecoder("gemini_interactions", stream_id="s", clock=lambda: 0, **options)
    events: list[Any] = []
    for piece in [body] if isinstance(body, bytes) else body:
        events += decoder.push(piece)
    last, outcome = decoder.finish()
    events += last
    unievent.validate(events, partial=outcome.end != "complete")
    return events, outcome


def every_split(body: bytes) -> tuple[list[Any], Outcome]:
    whole = run(body)
    for cut in range(1, len(body), 3):
        assert run(split_at(body, [cut])) == whole, f"cut at {cut}"
    assert run([body[i : i + 1] for i in range(len(body))]) == whole
    return whole


def kinds(outcome: Outcome) -> dict[str, int]:
    return {a.kind: a.count for a in outcome.anomalies}


TEXT_ANSWER = [
    created(),
    start(0, {"type": "thought"}),
    delta(0, type="thought_summary", content={"type": "text", "text": "Weighing it"}),
    delta(0, type="thought_signature", signature="c2ln"),
    stop(0),
    start(1, {"type": "model_output"}),
    delta(1, type="text", text="Paris"),
    delta(1, type="text", text="."),
    stop(1),
    completed(total_input_tokens=20, total_cached_tokens=5, total_output_tokens=3, total_thought_tokens=9),
]


def test_thoughts_text_usage_and_a_signature_on_its_thought() -> None:
    _, outcome = every_split(wire(*TEXT_ANSWER))
    assert outcome.end == "complete" and outcome.finish_reason == "stop" and outcome.native_finish_reason == "completed"
    assert outcome.message.items == (ThinkingDone("Weighing it", {"signature": "c2ln"}), TextDone("Paris."))
    assert outcome.usage == Usage(cached_tokens=5, prompt_tokens=15, thoughts_tokens=9, response_tokens=3)
    assert outcome.model == "gemini-3-flash" and outcome.extras["interaction_id"] == "v1_x"


def test_event_type_decides_without_event_lines() -> None:
    assert run(wire(*TEXT_ANSWER, names=False)) == run(wire(*TEXT_ANSWER))


def test_a_thought_with_only_a_signature_is_an_empty_thinking_item_carrying_it() -> None:
    events, outcome = run(wire(created(), start(0, {"type": "thought"}), delta(0, type="thought_signature", signature="QQ=="), stop(0), completed()))
    assert outcome.message.items == (ThinkingDone("", {"signature": "QQ=="}),)
    assert next(e.item for e in events if isinstance(e, DeltaEvent)) == unievent.ThinkingDelta("", {"signature": "QQ=="})


def test_content_on_the_step_start_is_read() -> None:
    frames = [created(), start(0, {"type": "thought", "summary": [{"type": "text", "text": "So"}]}), stop(0)]
    frames += [start(1, {"type": "model_output", "content": [{"type": "text", "text": "Based"}]}), delta(1, type="text", text=" on it"), stop(1), completed()]
    _, outcome = run(wire(*frames))
    assert outcome.message.items == (ThinkingDone("So"), TextDone("Based on it"))


@pytest.mark.parametrize("whole", [True, False], ids=["arguments on the start", "arguments in deltas"])
def test_function_call_steps_are_tool_calls(whole: bool) -> None:
    step = {"type": "function_call", "id": "61nz", "name": "getWeather", "arguments": {"city": "Oslo"} if whole else {}, "signature": ""}
    frames = [created(), start(0, step)]
    if not whole:
        frames += [delta(0, type="arguments_delta", arguments='{"city":'), delta(0, type="arguments_delta", arguments=' "Oslo"}')]
    frames += [stop(0), completed("requires_action")]
    _, outcome = every_split(wire(*frames))
    assert outcome.message.items == (ToolCallDone("getWeather", {"city": "Oslo"}, "61nz"),)
    assert outcome.finish_reason == "tool_call" and outcome.native_finish_reason == "requires_action"


def test_a_call_without_an_id_gets_one_from_its_index() -> None:
    _, outcome = run(wire(created(), start(3, {"type": "function_call", "name": "f", "arguments": {}}), stop(3), completed("requires_action")))
    assert outcome.message.items == (ToolCallDone("f", {}, "call_s_3"),)


def test_builtin_tool_steps_go_to_the_side_channel() -> None:
    frames = [
        created(),
        start(0, {"type": "google_search_call", "id": "g1", "arguments": {"queries": ["oslo"]}, "signature": ""}),
        delta(0, type="google_search_call", arguments={"queries": ["oslo"]}, signature="Zw=="),
        stop(0),
        start(1, {"type": "model_output"}),
        delta(1, type="text", text="Rain."),
        delta(1, type="text_annotation_delta", annotations=[{"type": "url_citation", "url": "https://e.x", "start_index": 0, "end_index": 5}]),
        stop(1),
        completed(),
    ]
    events, outcome = run(wire(*frames), side_events=True)
    side = [(e.kind, e.phase, e.item_id) for e in events if isinstance(e, unievent.SideEvent)]
    assert side == [("google_search_call", "start", "g1"), ("google_search_call", "delta", "g1"), ("google_search_call", "done", "g1")]
    assert outcome.message.items == (TextDone("Rain.", {"annotations": [{"type": "url_citation", "url": "https://e.x", "start_index": 0, "end_index": 5}]}),)


def test_images_and_audio_are_inline_data() -> None:
    png, pcm = base64.b64encode(b"png").decode(), base64.b64encode(b"\x00\x01").decode()
    frames = [
        created(),
        start(0, {"type": "model_output"}),
        delta(0, type="image", data=png, mime_type="image/png"),
        delta(0, type="audio", data=pcm, mime_type="audio/pcm", sample_rate=24000, channels=1),
        delta(0, type="audio", data=pcm, mime_type="audio/pcm", sample_rate=24000, channels=1),
        stop(0),
        completed(),
    ]
    _, outcome = run(wire(*frames))
    assert outcome.message.items == (
        InlineDataDone(b"png", "image/png"),
        InlineDataDone(b"\x00\x01\x00\x01", "audio/pcm; rate=24000; channels=1"),
    )


@pytest.mark.parametrize(("status", "mapped"), [("completed", "stop"), ("requires_action", "tool_call"), ("incomplete", "length"), ("cancelled", "unknown"), ("budget_exceeded", "unknown")])
def test_final_status_maps_to_the_finish_reason(status: str, mapped: str) -> None:
    _, outcome = run(wire(created(), start(0, {"type": "model_output"}), delta(0, type="text", text="x"), stop(0), completed(status)))
    assert (outcome.finish_reason, outcome.native_finish_reason) == (mapped, status)


def test_an_error_event_fails_and_keeps_the_text() -> None:
    error = ev("error", error={"message": "Deadline expired before operation could complete.", "code": "gateway_timeout"})
    _, outcome = run(wire(created(), start(0, {"type": "model_output"}), delta(0, type="text", text="half"), error))
    assert outcome.end == "failed"
    assert outcome.error is not None and (outcome.error.type, outcome.error.code) == ("gateway_timeout", "gateway_timeout")
    assert outcome.message.items == (TextDone("half"),)


def test_an_error_event_with_no_error_object_is_a_heartbeat() -> None:
    frames = [*TEXT_ANSWER[:6], ev("error"), *TEXT_ANSWER[6:]]
    _, outcome = run(wire(*frames))
    assert outcome.end == "complete" and kinds(outcome) == {"empty_error_event": 1}


def test_done_before_completed_is_truncated_and_nothing_after_it_is_read() -> None:
    _, outcome = run(wire(*TEXT_ANSWER[:7]) + wire(*TEXT_ANSWER[7:], done=False))
    assert outcome.end == "truncated"
    assert outcome.message.items == (ThinkingDone("Weighing it", {"signature": "c2ln"}), TextDone("Paris"))
    assert kinds(outcome)["frames_after_end"] == 3


def test_no_completed_at_all_is_truncated() -> None:
    _, outcome = run(wire(*TEXT_ANSWER[:-1], done=False))
    assert outcome.end == "truncated"


# --- lenient lifecycle ----------------------------------------------------------------


def test_no_created_and_a_step_never_started_are_recovered() -> None:
    frames = [delta(0, type="text", text="Hi"), stop(0), completed()]
    _, outcome = run(wire(*frames))
    assert outcome.end == "complete" and outcome.message.items == (TextDone("Hi"),)
    assert kinds(outcome) == {"implied_interaction_start": 1, "implied_step_start": 1}


def test_a_start_while_a_step_is_open_closes_it_first() -> None:
    frames = [created(), start(0, {"type": "model_output"}), delta(0, type="text", text="a"), start(1, {"type": "model_output"}), delta(1, type="text", text="b"), stop(1), completed()]
    _, outcome = run(wire(*frames))
    assert outcome.message.items == (TextDone("a"), TextDone("b"))
    assert kinds(outcome) == {"step_left_open": 1}


def test_a_delta_for_a_step_that_stopped_fails_naming_it() -> None:
    frames = [created(), start(0, {"type": "model_output"}), delta(0, type="text", text="a"), stop(0), delta(0, type="text", text="late")]
    _, outcome = run(wire(*frames))
    assert outcome.end == "failed"
    assert outcome.error is not None and "step 0, which already stopped" in outcome.error.message
    assert outcome.message.items == (TextDone("a"),)


# An event that names a step that already stopped and changes nothing done (a delta type
# nobody knows yet, an empty one) is late, not a contradiction: a side event of that step
# and one `late_event` anomaly, wherever it comes.
OUTPUT_0 = [start(0, {"type": "model_output"}), delta(0, type="text", text="a"), stop(0)]
OUTPUT_1 = [start(1, {"type": "model_output"}), delta(1, type="text", text="b"), stop(1)]


@pytest.mark.parametrize(
    "late", [delta(0, type="search_progress", status="done"), delta(0, type="text", text="")], ids=["new type", "empty text"]
)
@pytest.mark.parametrize(
    "frames",
    [
        [created(), *OUTPUT_0, "late", *OUTPUT_1, completed()],
        [created(), *OUTPUT_0, OUTPUT_1[0], "late", *OUTPUT_1[1:], completed()],
        [created(), *OUTPUT_0, *OUTPUT_1, completed(), "late"],
    ],
    ids=["between steps", "in the next step", "after completed"],
)
def test_an_earlier_steps_event_that_changes_nothing_done_is_late_not_a_contradiction(
    frames: list[Any], late: dict[str, Any]
) -> None:
    body = wire(*[late if f == "late" else f for f in frames]).replace(b"\n", b"\r\n")
    _events, outcome = every_split(body)
    assert outcome.end == "complete"
    assert outcome.message.items == (TextDone("a"), TextDone("b"))
    assert kinds(outcome) == {"late_event": 1}
    assert [e.data for e in outcome.side_events] == [late]
    assert run(body) == on_the_slow_path(body)


def on_the_slow_path(body: bytes) -> tuple[list[Any], Outcome]:
    decoder = decoder_on_path("gemini_interactions", True, stream_id="s", clock=lambda: 0)
    events = decoder.push(body)
    last, outcome = decoder.finish()
    return events + last, outcome


# --- the recorded stream --------------------------------------------------------------


def test_recorded_stream() -> None:
    path = CORPUS / "other" / "vercel-ai__gemini_interactions_api_tool_call.sse"
    if not path.is_file():
        pytest.skip("../shared/corpus is not here")
    entry = next(e for e in json.loads((CORPUS / "manifest.json").read_text()) if e["file"].endswith(path.name))
    data = path.read_bytes()
    events, outcome = run(data)
    assert run([data[i : i + 5] for i in range(0, len(data), 5)]) == (events, outcome)
    expected = entry["expected"]
    calls = [(i.name, i.arguments) for i in outcome.message.items if isinstance(i, ToolCallDone)]
    assert calls == [(c["name"], json.loads(c["arguments"])) for c in expected["tool_calls"]]
    assert outcome.native_finish_reason == expected["finish_reason"] and outcome.finish_reason == "tool_call"
    usage = expected["usage"]
    assert outcome.usage == Usage(
        cached_tokens=usage["total_cached_tokens"],
        prompt_tokens=usage["total_input_tokens"] - usage["total_cached_tokens"],
        thoughts_tokens=usage["total_thought_tokens"],
        response_tokens=usage["total_output_tokens"],
    )
    thought = outcome.message.items[0]
    assert isinstance(thought, ThinkingDone) and thought.fidelity and thought.fidelity["signature"].startswith("CiQBDDnW")
