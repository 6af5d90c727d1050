"""Gemini generateContent streams decoded by StreamDecoder("gemini").

Streams are written as Google sends them: `data: <json>` records ended by CRLF CRLF
(`alt=sse`), or one pretty-printed JSON array whose elements are separated by
`\\n,\\r\\n` (no `alt=sse`).  Each test states one rule; the corpus test at the end
replays every recorded `gemini` stream of ../shared/corpus.
"""

from __future__ import annotations

import base64
import json
import re
from pathlib import Path
from typing import Any

import orjson
import pytest

import unievent
from tests.helpers import split_at
from unievent import (
    DeltaEvent,
    InlineDataDone,
    InlineThinkingDone,
    Outcome,
    TextDone,
    ThinkingDone,
    ToolCallDelta,
    ToolCallDone,
    Usage,
)

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"


def record(parts: list[dict[str, Any]] | None = None, finish: str | None = None, **top: Any) -> dict[str, Any]:
    candidate: dict[str, Any] = {"content": {"parts": parts or [], "role": "model"}, "index": 0}
    if finish:
        candidate["finishReason"] = finish
    return {"candidates": [candidate], "modelVersion": "gemini-3-pro", "responseId": "r1", **top}


def usage(prompt: int, out: int, thoughts: int | None = None, cached: int | None = None) -> dict[str, Any]:
    found: dict[str, Any] = {"promptTokenCount": prompt, "candidatesTokenCount": out, "totalTokenCount": prompt + out}
    if thoughts is not None:
        found["thoughtsTokenCount"] = thoughts
    if cached is not None:
        found["cachedContentTokenCount"] = cached
    return found


def sse(*records: dict[str, Any]) -> bytes:
    return b"".join(b"data: " + orjson.dumps(r) + b"\r\n\r\n" for r in records)


def array(*records: dict[str, Any]) -> bytes:
    return b"[" + b"\n,\r\n".join(orjson.dumps(r, option=orjson.OPT_INDENT_2) for r in records) + b"\n]"


def run(body: bytes | list[bytes], **options: Any) -> tuple[list[Any], Outcome]:
    decoder = unievent.StreamDecoder("gemini", stream_id="s", clock=lambda: 0, **options)
    events: list[Any] = []
    for piece in [body] if isinstance(body, bytes) else body:
        events += decoder.push(piece)
    last, outcome = decoder.finish()
    events += last
    unievent.validate(events, partial=outcome.end != "complete")
    return events, outcome


def every_split(body: bytes, **options: Any) -> tuple[list[Any], Outcome]:
    whole = run(body, **options)
    for cut in range(1, len(body)):
        assert run(split_at(body, [cut]), **options) == whole, f"cut at {cut}"
    assert run([body[i : i + 1] for i in range(len(body))], **options) == whole
    return whole


def items(events: list[Any]) -> list[Any]:
    return [e.item for e in events if isinstance(e, DeltaEvent)]


def kinds(outcome: Outcome) -> dict[str, int]:
    return {a.kind: a.count for a in outcome.anomalies}


# --- text, thinking and signatures ---------------------------------------------------------


def test_text_and_thought_parts_over_sse_with_crlf() -> None:
    body = sse(
        record([{"text": "Let me think", "thought": True}]),
        record([{"text": "The answer", "thoughtSignature": "c2lnLTE="}]),
        record([{"text": " is 4."}], "STOP", usageMetadata=usage(10, 5, thoughts=7)),
    )
    _events, outcome = every_split(body)
    assert outcome.end == "complete" and outcome.finish_reason == "stop" and outcome.native_finish_reason == "STOP"
    assert outcome.message.items == (
        ThinkingDone("Let me think"),
        TextDone("The answer is 4.", {"signature": "c2lnLTE="}),
    )
    assert outcome.usage == Usage(cached_tokens=None, prompt_tokens=10, thoughts_tokens=7, response_tokens=5)
    assert (outcome.model, outcome.extras["response_id"]) == ("gemini-3-pro", "r1")


def test_a_signature_on_a_trailing_empty_text_part_belongs_to_the_text_before_it() -> None:
    body = sse(record([{"text": "Hello"}]), record([{"text": " there"}]), record([{"text": "", "thoughtSignature": "ZW5k"}], "STOP"))
    events, outcome = run(body)
    assert outcome.message.items == (TextDone("Hello there", {"signature": "ZW5k"}),)
    assert items(events)[2] == unievent.TextDelta("", {"signature": "ZW5k"})  # the signature rides on one delta


def test_a_signature_with_no_text_open_is_an_empty_text_item_of_its_own() -> None:
    call = {"functionCall": {"name": "f", "args": {}}}
    _, outcome = run(sse(record([call]), record([{"text": "", "thoughtSignature": "bGFzdA=="}], "STOP")))
    assert outcome.message.items[1] == TextDone("", {"signature": "bGFzdA=="})


def test_an_empty_text_part_without_a_signature_is_nothing() -> None:
    _, outcome = run(sse(record([{"text": "a"}, {"text": ""}]), record([{"text": ""}], "STOP")))
    assert outcome.message.items == (TextDone("a"),)


def test_a_part_with_only_a_signature_goes_to_the_open_item() -> None:
    _, outcome = run(sse(record([{"text": "think", "thought": True}, {"thoughtSignature": "dGg="}]), record([], "STOP")))
    assert outcome.message.items == (ThinkingDone("think", {"signature": "dGg="}),)


def test_two_text_runs_with_different_signatures_are_two_items() -> None:
    _, outcome = run(sse(record([{"text": "a", "thoughtSignature": "MQ=="}, {"text": "b", "thoughtSignature": "Mg=="}], "STOP")))
    assert outcome.message.items == (TextDone("a", {"signature": "MQ=="}), TextDone("b", {"signature": "Mg=="}))


# --- function calls --------------------------------------------------------------------


def test_a_whole_function_call_with_a_made_up_id_and_stop_is_a_tool_call_turn() -> None:
    events, outcome = every_split(sse(record([{"functionCall": {"name": "get_capital", "args": {"country": "France"}}}], "STOP")))
    assert outcome.message.items == (ToolCallDone("get_capital", {"country": "France"}, "call_s_1"),)
    assert items(events)[0] == ToolCallDelta("get_capital", '{"country":"France"}', "call_s_1")
    assert outcome.finish_reason == "tool_call" and outcome.native_finish_reason == "STOP"


def test_parallel_calls_keep_their_one_signature_on_the_first() -> None:
    parts: list[dict[str, Any]] = [
        {"functionCall": {"name": "weather", "args": {"city": "Paris"}, "id": "c1"}, "thoughtSignature": "QQ=="},
        {"functionCall": {"name": "weather", "args": {"city": "London"}, "id": "c2"}},
        {"functionCall": {"name": "clock"}},
    ]
    _, outcome = run(sse(record(parts, "STOP")))
    assert outcome.message.items == (
        ToolCallDone("weather", {"city": "Paris"}, "c1", {"signature": "QQ=="}),
        ToolCallDone("weather", {"city": "London"}, "c2"),
        ToolCallDone("clock", {}, "call_s_3"),
    )


def test_vertex_streamed_arguments_are_assembled_by_path_and_stream_as_json_text() -> None:
    def fc(**call: Any) -> dict[str, Any]:
        return {"functionCall": call}

    def arg(path: str, **value: Any) -> dict[str, Any]:
        return {"jsonPath": path, **value}

    parts: list[dict[str, Any]] = [
        fc(name="plan", willContinue=True),
        fc(partialArgs=[arg("$.recipe.name", stringValue="Lasa", willContinue=True)], willContinue=True),
        fc(partialArgs=[arg("$.recipe.name", stringValue="gna"), arg("$.recipe.steps[0]", stringValue="Boil")], willContinue=True),
        fc(partialArgs=[arg("$.recipe.steps[0]", stringValue="")], willContinue=True),
        fc(willContinue=True),
        fc(partialArgs=[arg("$.recipe.steps[1]", stringValue='Bake "well"')], willContinue=True),
        fc(partialArgs=[arg("$.servings", numberValue=4.0), arg("$.vegan", boolValue=False), arg("$.note", nullValue="NULL_VALUE")], willContinue=True),
        fc(),
    ]
    body = sse(*(record([p]) for p in parts), record([{"text": ""}], "STOP"))
    events, outcome = every_split(body)
    final = {"recipe": {"name": "Lasagna", "steps": ["Boil", 'Bake "well"']}, "servings": 4, "vegan": False, "note": None}
    assert outcome.message.items == (ToolCallDone("plan", final, "call_s_1"),)
    fragments = [i.arguments for i in items(events) if isinstance(i, ToolCallDelta)]
    assert len(fragments) > 5  # streamed as it arrives
    assert json.loads("".join(fragments)) == final
    assert outcome.anomalies == ()


def test_a_streamed_call_ends_with_a_part_without_will_continue() -> None:
    parts: list[dict[str, Any]] = [
        {"functionCall": {"name": "buy", "willContinue": True}},
        {"functionCall": {"partialArgs": [{"jsonPath": "$.items[0].price", "numberValue": 0.5}], "willContinue": True}},
        {"functionCall": {"partialArgs": [{"jsonPath": "$.items[1].price", "numberValue": 0.3}]}},
    ]
    _, outcome = run(sse(record(parts), record([{"text": ""}], "STOP")))
    assert outcome.message.items == (ToolCallDone("buy", {"items": [{"price": 0.5}, {"price": 0.3}]}, "call_s_1"),)


def test_a_streamed_call_cut_short_is_no_tool_call() -> None:
    parts = [{"functionCall": {"name": "buy", "willContinue": True}}, {"functionCall": {"partialArgs": [{"jsonPath": "$.a", "stringValue": "x", "willContinue": True}], "willContinue": True}}]
    _, outcome = run(sse(record(parts)))
    assert outcome.end == "truncated" and outcome.message.items == ()


def test_a_fragment_that_goes_back_is_noted_and_not_written() -> None:
    parts: list[dict[str, Any]] = [
        {"functionCall": {"name": "f", "willContinue": True}},
        {"functionCall": {"partialArgs": [{"jsonPath": "$.a", "numberValue": 1}, {"jsonPath": "$.b", "numberValue": 2}], "willContinue": True}},
        {"functionCall": {"partialArgs": [{"jsonPath": "$.a", "numberValue": 3}]}},
    ]
    _, outcome = run(sse(record(parts, "STOP")))
    assert outcome.message.items == (ToolCallDone("f", {"a": 1, "b": 2}, "call_s_1"),)
    assert kinds(outcome) == {"partial_arg_not_read": 1}


# --- inline data and the side channel ------------------------------------------------------


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


def test_audio_chunks_join_images_stay_apart_thought_images_are_inline_thinking() -> None:
    audio = "audio/L16;codec=pcm;rate=24000"
    parts: list[dict[str, Any]] = [
        {"inlineData": {"mimeType": audio, "data": b64(b"\x00\x01")}},
        {"inlineData": {"mimeType": audio, "data": b64(b"\x02")}},
        {"inlineData": {"mimeType": "image/png", "data": b64(b"png1")}},
        {"inlineData": {"mimeType": "image/png", "data": b64(b"png2")}},
        {"inlineData": {"mimeType": "image/png", "data": b64(b"idea")}, "thought": True},
    ]
    _, outcome = every_split(sse(record(parts, "STOP")))
    assert outcome.message.items == (
        InlineDataDone(b"\x00\x01\x02", audio),
        InlineDataDone(b"png1", "image/png"),
        InlineDataDone(b"png2", "image/png"),
        InlineThinkingDone(b"idea", "image/png"),
    )


def test_code_execution_and_metadata_go_to_the_side_channel_in_order_never_tool_calls() -> None:
    code = {"executableCode": {"language": "PYTHON", "code": "print(1)", "id": "x1"}, "thoughtSignature": "Yw=="}
    result = {"codeExecutionResult": {"outcome": "OUTCOME_OK", "output": "1\n", "id": "x1"}}
    grounding = {"webSearchQueries": ["q"], "groundingChunks": [{"web": {"uri": "https://e.x", "title": "E"}}]}
    body = sse(record([code]), record([result]))
    final = record([{"text": "1"}], "STOP")
    final["candidates"][0]["groundingMetadata"] = grounding
    events, outcome = run(body + sse(final), side_events=True)
    side = [(e.kind, e.phase, e.item_id) for e in events if isinstance(e, unievent.SideEvent)]
    assert side == [("executableCode", "info", "x1"), ("codeExecutionResult", "info", "x1"), ("grounding_metadata", "info", None)]
    assert outcome.side_events[0].data == code  # the signature stays with its part
    assert outcome.message.items == (TextDone("1"),)
    assert outcome.extras["grounding_metadata"] == grounding


def test_an_empty_grounding_object_on_every_record_is_nothing() -> None:
    first = record([{"text": "a"}])
    first["candidates"][0]["groundingMetadata"] = {}
    _, outcome = run(sse(first, record([], "STOP")))
    assert outcome.side_events == ()


# --- usage, finish, errors, candidates -----------------------------------------------------


def test_usage_is_a_running_snapshot_the_last_value_of_each_field_wins() -> None:
    body = sse(
        record([{"text": "a"}], usageMetadata={"promptTokenCount": 15, "totalTokenCount": 15}),
        record([{"text": "b"}], usageMetadata={"trafficType": "ON_DEMAND"}),  # Vertex: no counts
        record([{"text": "c"}], "STOP", usageMetadata=usage(13, 8, cached=4)),
    )
    _, outcome = run(body)
    assert outcome.usage == Usage(cached_tokens=4, prompt_tokens=9, thoughts_tokens=None, response_tokens=8)


@pytest.mark.parametrize(
    ("native", "mapped"),
    [("STOP", "stop"), ("MAX_TOKENS", "length"), ("SAFETY", "unknown"), ("RECITATION", "unknown"), ("MALFORMED_FUNCTION_CALL", "unknown"), ("IMAGE_OTHER", "unknown"), ("SOMETHING_NEW", "unknown")],
)
def test_finish_reasons_map_and_keep_the_native_value(native: str, mapped: str) -> None:
    _, outcome = run(sse(record([{"text": "x"}], native)))
    assert (outcome.end, outcome.finish_reason, outcome.native_finish_reason) == ("complete", mapped, native)


def test_a_blocked_prompt_fails_with_its_reason() -> None:
    blocked = {"promptFeedback": {"blockReason": "SAFETY", "safetyRatings": []}, "usageMetadata": {"promptTokenCount": 5}}
    _, outcome = run(sse(blocked))
    assert outcome.end == "failed"
    assert outcome.error is not None and (outcome.error.type, outcome.error.code) == ("prompt_blocked", "SAFETY")


def test_an_error_record_mid_stream_fails_and_keeps_the_text() -> None:
    error = {"error": {"code": 503, "message": "The model is overloaded.", "status": "UNAVAILABLE"}}
    for body in (sse(record([{"text": "partial"}]), error), array(record([{"text": "partial"}]), error)):
        _, outcome = run(body)
        assert outcome.end == "failed"
        assert outcome.error is not None
        assert (outcome.error.message, outcome.error.type, outcome.error.code) == ("The model is overloaded.", "UNAVAILABLE", 503)
        assert outcome.message.items == (TextDone("partial"),)


def test_no_finish_reason_before_the_end_is_truncated() -> None:
    _, outcome = run(sse(record([{"text": "cut"}])))
    assert outcome.end == "truncated" and outcome.message.items == (TextDone("cut"),)


def test_only_candidate_zero_is_decoded_and_the_others_are_noted() -> None:
    two = record([{"text": "first"}], "STOP")
    two["candidates"].append({"content": {"parts": [{"text": "second"}]}, "index": 1})
    _, outcome = run(sse(two))
    assert outcome.message.items == (TextDone("first"),)
    assert kinds(outcome) == {"other_candidates": 1}


# --- the recorded streams ------------------------------------------------------------------


def _entries() -> list[dict[str, Any]]:
    if not (CORPUS / "manifest.json").is_file():
        return []
    return [e for e in json.loads((CORPUS / "manifest.json").read_text()) if e["protocol"] == "gemini"]


@pytest.mark.parametrize("entry", _entries(), ids=lambda e: Path(e["file"]).stem)
def test_recorded_stream(entry: dict[str, Any]) -> None:
    data = (CORPUS / entry["file"]).read_bytes()
    events, outcome = run(data)
    assert run([data[i : i + 7] for i in range(0, len(data), 7)]) == (events, outcome)
    expected = entry["expected"]
    assert outcome.end == "complete"
    got = outcome.message.items
    assert "".join(i.text for i in got if isinstance(i, TextDone)) == expected.get("text", "")
    assert "".join(i.thinking for i in got if isinstance(i, ThinkingDone)) == expected.get("thinking", "")
    calls = [(i.name, i.arguments) for i in got if isinstance(i, ToolCallDone)]
    assert calls == [(c["name"], json.loads(c["arguments"])) for c in expected.get("tool_calls") or []]
    assert outcome.native_finish_reason == expected["finish_reason"]
    meta = expected["usage"]
    cached = meta.get("cachedContentTokenCount")
    assert outcome.usage == Usage(
        cached_tokens=cached,
        prompt_tokens=meta["promptTokenCount"] - (cached or 0),
        thoughts_tokens=meta.get("thoughtsTokenCount"),
        response_tokens=meta.get("candidatesTokenCount"),
    )
    # every signature that arrived is kept, exactly, on some item or side event
    signatures = {m.decode() for m in re.findall(rb'"thoughtSignature": ?"([^"]+)"', data)}
    kept = {(getattr(i, "fidelity", None) or {}).get("signature") for i in got} | {
        e.data.get("thoughtSignature") for e in outcome.side_events
    }
    assert signatures <= kept


# --- enums written as numbers ($alt=json;enum-encoding=int) --------------------------------------

VERTEX = {"createTime": "2026-01-05T10:00:00.123456Z", "modelVersion": "gemini-2.5-flash"}


@pytest.mark.parametrize(
    ("number", "vertex", "native", "finish"),
    [
        (1, True, "STOP", "stop"),
        (1, False, "STOP", "stop"),
        (2, True, "MAX_TOKENS", "length"),
        (3, False, "SAFETY", "unknown"),
        (6, True, "BLOCKLIST", "unknown"),
        (6, False, "LANGUAGE", "unknown"),
        (9, True, "MALFORMED_FUNCTION_CALL", "unknown"),
        (10, False, "MALFORMED_FUNCTION_CALL", "unknown"),
        (10, True, "MODEL_ARMOR", "unknown"),
        (17, False, "IMAGE_RECITATION", "unknown"),
        (99, True, "99", "unknown"),
    ],
)
def test_a_finish_reason_written_as_its_number_ends_the_stream(number: int, vertex: bool, native: str, finish: str) -> None:
    top = VERTEX if vertex else {}
    body = array(record([{"text": "Hi"}], **top), {**record([{"text": "!"}], **top), "usageMetadata": usage(3, 2)})
    body = body[:-2] + b",\n" + orjson.dumps(record([], **top) | {"candidates": [{"content": {"parts": [], "role": "model"}, "finishReason": number, "index": 0}]}, option=orjson.OPT_INDENT_2) + b"\n]"
    _events, outcome = every_split(body)
    assert outcome.end == "complete" and outcome.message.items == (TextDone("Hi!"),)
    assert (outcome.native_finish_reason, outcome.finish_reason) == (native, finish)


def test_a_finish_reason_written_as_stop_s_number_after_a_call_is_a_tool_call() -> None:
    call = {"functionCall": {"name": "weather", "args": {"city": "Oslo"}}}
    body = array({**record([call], **VERTEX), "candidates": [{"content": {"parts": [call], "role": "model"}, "finishReason": 1, "index": 0}]})
    _events, outcome = every_split(body)
    assert (outcome.end, outcome.finish_reason, outcome.native_finish_reason) == ("complete", "tool_call", "STOP")


@pytest.mark.parametrize(
    ("number", "vertex", "name"),
    [(1, True, "SAFETY"), (4, False, "PROHIBITED_CONTENT"), (5, True, "MODEL_ARMOR"), (5, False, "IMAGE_SAFETY"), (6, True, "JAILBREAK")],
)
def test_a_block_reason_written_as_its_number_fails_the_prompt(number: int, vertex: bool, name: str) -> None:
    blocked = {"promptFeedback": {"blockReason": number}, **(VERTEX if vertex else {"modelVersion": "gemini-2.5-flash"})}
    _events, outcome = every_split(array(blocked))
    assert outcome.end == "failed" and outcome.error is not None
    assert (outcome.error.type, outcome.error.code, outcome.native_finish_reason) == ("prompt_blocked", name, name)


def test_a_bool_is_no_enum_number() -> None:
    body = array({**record([{"text": "Hi"}]), "candidates": [{"content": {"parts": [{"text": "Hi"}], "role": "model"}, "finishReason": True, "index": 0}]})
    assert run(body)[1].end == "truncated"


# --- usage: the last usage object, as a whole -----------------------------------------------------


def test_the_last_usage_object_replaces_the_earlier_ones_as_a_whole() -> None:
    # with grounding the counts restart, and the last record omits candidatesTokenCount
    first = {**record([{"text": "Searching"}]), "usageMetadata": usage(9, 4, thoughts=30)}
    last = {**record([{"text": " done."}], "STOP"), "usageMetadata": {"promptTokenCount": 87, "totalTokenCount": 87}}
    _events, outcome = every_split(sse(first, last))
    assert outcome.usage == Usage(cached_tokens=None, prompt_tokens=87, thoughts_tokens=None, response_tokens=None)


def test_a_usage_object_without_counts_changes_nothing() -> None:
    first = {**record([{"text": "Hi"}]), "usageMetadata": usage(9, 4)}
    last = {**record([{"text": "!"}], "STOP"), "usageMetadata": {"trafficType": "ON_DEMAND"}}
    _events, outcome = every_split(sse(first, last))
    assert outcome.usage == Usage(cached_tokens=None, prompt_tokens=9, thoughts_tokens=None, response_tokens=4)


def test_a_run_of_records_taken_on_demand_keeps_the_last_usage_as_a_whole(monkeypatch: pytest.MonkeyPatch) -> None:
    records = [{**record([{"text": f"w{n} "}]), "usageMetadata": usage(9, n + 1, thoughts=5)} for n in range(20)]
    records.append({**record([{"text": "end"}]), "usageMetadata": {"promptTokenCount": 12, "totalTokenCount": 12}})
    records += [{**record([{"text": f"v{n} "}]), "usageMetadata": {"promptTokenCount": 12}} for n in range(20)]
    records.append(record([], "STOP"))
    fast = every_split(sse(*records))
    assert fast[1].usage == Usage(cached_tokens=None, prompt_tokens=12, thoughts_tokens=None, response_tokens=None)
    monkeypatch.setenv("UNIEVENT_SLOW_PATH", "1")
    assert every_split(sse(*records)) == fast
