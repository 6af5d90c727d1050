"""Logprobs are fidelity of the text item they describe: Chat `choices[].logprobs`
(`content`, and `refusal` on a refusal), Responses `logprobs` of `output_text` events,
Gemini `logprobsResult` and `avgLogprobs`.  Joined in order, they ride on one empty
delta before the text's done, and on the done; a frame carrying them is never taken by
an on-demand path; each protocol's writer writes them back where its wire has a place,
and the provider's SDK reads them there.  Also here: the Responses writer's reasoning
summary in the done item."""

from __future__ import annotations

import json
from typing import Any

import orjson
import pytest

import unievent
from tests.helpers import chunk, decode_stream, decoder_on_path, items_of, split_everywhere, sse
from unievent import DeltaEvent, Event, StopEvent, TextDelta, TextDone, ThinkingDelta, ThinkingDone, Usage


def token(text: str, logprob: float, top: list[tuple[str, float]] | None = None) -> dict[str, Any]:
    """A Chat Completions token entry (ChatCompletionTokenLogprob)."""
    alternatives = [{"token": t, "logprob": p, "bytes": list(t.encode())} for t, p in top or []]
    return {"token": text, "logprob": logprob, "bytes": list(text.encode()), "top_logprobs": alternatives}


def with_logprobs(frame: dict[str, Any], content: list[Any] | None = None, refusal: list[Any] | None = None) -> Any:
    frame["choices"][0]["logprobs"] = {"content": content, "refusal": refusal}
    return frame


def both_paths(protocol: str, body: bytes) -> tuple[list[Any], unievent.Outcome, int]:
    """The body decoded whole with the on-demand paths on and off: the same events and
    outcome; also how many frames the on-demand path took."""
    results = []
    for slow in (False, True):
        decoder = decoder_on_path(protocol, slow, stream_id="s", clock=lambda: 0)
        events = decoder.push(body)
        last, outcome = decoder.finish()
        results.append((events + last, outcome, decoder.fast_frames))
    (fast_events, fast_outcome, taken), (slow_events, slow_outcome, _) = results
    assert (fast_events, fast_outcome) == (slow_events, slow_outcome)
    unievent.validate(fast_events, partial=fast_outcome.end != "complete")
    return fast_events, fast_outcome, taken


def round_trip(protocol: str, events: list[Any]) -> bytes:
    """The events written back by `protocol`'s writer: decoded, the same items, no anomaly."""
    body = unievent.encode(events, protocol)
    again = decode_stream(protocol, body)[1]
    source = [e.item for e in events if isinstance(e, DeltaEvent) and e.item.type.endswith(".done")]
    assert list(again.message.items) == source
    assert again.anomalies == ()
    return body


def frames(body: bytes) -> list[Any]:
    return [orjson.loads(line[6:]) for line in body.split(b"\n") if line.startswith(b"data: {")]


# --- Chat Completions -------------------------------------------------------------------------

HEL = token("Hel", -0.25, [("Hel", -0.25), ("Hi", -1.5)])
LO = token("lo", -0.01, [("lo", -0.01)])
CHAT_TEXT = sse(
    with_logprobs(chunk({"role": "assistant", "content": ""}), [], None),
    with_logprobs(chunk({"content": "Hel"}), [HEL]),
    with_logprobs(chunk({"content": "lo"}), [LO]),
    chunk({}, finish="stop"),
)


def test_chat_logprobs_ride_on_the_text_item_joined_in_order() -> None:
    events, outcome = split_everywhere("openai_chat", CHAT_TEXT)
    fidelity = {"logprobs": [HEL, LO]}
    assert items_of(events) == [TextDelta("Hel"), TextDelta("lo"), TextDelta("", fidelity), TextDone("Hello", fidelity)]
    assert outcome.anomalies == ()


def test_chat_text_chunks_with_logprobs_are_never_taken_on_demand() -> None:
    plain = [chunk({"content": f"w{n} "}) for n in range(12)]
    marked = [with_logprobs(chunk({"content": f"w{n} "}), [token(f"w{n} ", -0.5)]) for n in range(12)]
    body = sse(*plain, *marked, *plain, chunk({}, finish="stop"))
    _, outcome, taken = both_paths("openai_chat", body)
    words = "".join(f"w{n} " for n in range(12))
    fidelity = {"logprobs": [token(f"w{n} ", -0.5) for n in range(12)]}
    assert outcome.message.items == (TextDone(words * 3, fidelity),)
    assert 0 < taken <= 2 * len(plain)  # the plain chunks only


def test_chat_repeated_chunks_with_the_same_logprobs_are_each_kept() -> None:
    same = with_logprobs(chunk({"content": "ha"}), [token("ha", -0.1)])
    _, outcome, taken = both_paths("openai_chat", sse(*[same] * 10, chunk({}, finish="stop")))
    assert outcome.message.items == (TextDone("ha" * 10, {"logprobs": [token("ha", -0.1)] * 10}),)
    assert taken == 0


def test_chat_annotations_and_logprobs_ride_together() -> None:
    citation = {"type": "url_citation", "url_citation": {"url": "https://example.com", "title": "Example"}}
    body = sse(
        with_logprobs(chunk({"content": "See"}), [token("See", -0.2)]),
        with_logprobs(chunk({"content": " this", "annotations": [citation]}), [token(" this", -0.3)]),
        chunk({}, finish="stop"),
    )
    _, outcome = split_everywhere("openai_chat", body)
    fidelity = {"annotations": [citation], "logprobs": [token("See", -0.2), token(" this", -0.3)]}
    assert outcome.message.items == (TextDone("See this", fidelity),)


def test_a_refusal_with_logprobs_is_one_refusal_item_carrying_them() -> None:
    no, help_ = token("I can't", -0.1), token(" help.", -0.2)
    body = sse(
        with_logprobs(chunk({"content": "Well"}), [token("Well", -0.3)]),
        with_logprobs(chunk({"refusal": "I can't"}), None, [no]),
        with_logprobs(chunk({"refusal": " help."}), None, [help_]),
        chunk({}, finish="stop"),
    )
    events, outcome = split_everywhere("openai_chat", body)
    refusal = {"refusal": True, "logprobs": [no, help_]}
    assert items_of(events)[-2:] == [TextDelta("I can't help.", refusal), TextDone("I can't help.", refusal)]
    assert outcome.message.items == (
        TextDone("Well", {"logprobs": [token("Well", -0.3)]}),
        TextDone("I can't help.", refusal),
    )
    body = round_trip("openai_chat", events)
    refused = [f for f in frames(body) if f.get("choices") and "refusal" in f["choices"][0]["delta"]]
    assert refused[0]["choices"][0]["logprobs"] == {"content": None, "refusal": [no, help_]}


def test_chat_logprobs_of_reasoning_tokens_have_no_text_to_ride_on() -> None:
    body = sse(
        with_logprobs(chunk({"reasoning_content": "hm"}), [token("hm", -1.0)]),
        with_logprobs(chunk({"content": "ok"}), [token("ok", -0.1)]),
        chunk({}, finish="stop"),
    )
    _, outcome = split_everywhere("openai_chat", body)
    assert outcome.message.items[1] == TextDone("ok", {"logprobs": [token("ok", -0.1)]})
    assert outcome.anomalies[0].kind == "logprobs_without_text" and outcome.anomalies[0].count == 1


def test_the_chat_writer_writes_logprobs_on_one_chunk_and_the_sdk_accumulates_them() -> None:
    openai = pytest.importorskip("openai")
    from openai.lib.streaming.chat import ChatCompletionStreamState
    from openai.types.chat import ChatCompletionChunk

    events, _ = decode_stream("openai_chat", CHAT_TEXT)
    body = round_trip("openai_chat", events)
    carrying = [f for f in frames(body) if f.get("choices") and f["choices"][0].get("logprobs")]
    assert [f["choices"][0]["logprobs"] for f in carrying] == [{"content": [HEL, LO], "refusal": None}]
    state: Any = ChatCompletionStreamState()
    for frame in frames(body):
        state.handle_chunk(ChatCompletionChunk.model_validate(frame))
    choice = state.get_final_completion().choices[0]
    assert choice.message.content == "Hello"
    assert choice.logprobs is not None and choice.logprobs.content is not None
    assert [(t.token, t.logprob, t.bytes) for t in choice.logprobs.content] == [
        ("Hel", -0.25, list(b"Hel")),
        ("lo", -0.01, list(b"lo")),
    ]
    assert [t.token for t in choice.logprobs.content[0].top_logprobs] == ["Hel", "Hi"]
    assert openai is not None


# --- OpenAI Responses -------------------------------------------------------------------------


def rtoken(text: str, logprob: float) -> dict[str, Any]:
    """A Responses token entry (Logprob), as OpenAI sends it."""
    return {"bytes": list(text.encode()), "logprob": logprob, "token": text, "top_logprobs": []}


def responses(*events: dict[str, Any]) -> bytes:
    out = b""
    for n, event in enumerate(events):
        body = {"type": event["type"], "sequence_number": n, **{k: v for k, v in event.items() if k != "type"}}
        out += b"event: " + event["type"].encode() + b"\ndata: " + orjson.dumps(body) + b"\n\n"
    return out


def message_events(
    deltas: list[tuple[str, list[Any]]], phase: str | None = None, done_logprobs: Any = None
) -> list[Any]:
    """A message item whose output_text deltas carry the given logprobs."""
    added: dict[str, Any] = {
        "id": "msg_1",
        "type": "message",
        "status": "in_progress",
        "content": [],
        "role": "assistant",
    }
    if phase:
        added["phase"] = phase
    text = "".join(d for d, _ in deltas)
    joined = [e for _, entries in deltas for e in entries]
    part = {"type": "output_text", "annotations": [], "logprobs": done_logprobs or [], "text": text}
    where = {"item_id": "msg_1", "output_index": 0, "content_index": 0}
    return [
        {"type": "response.created", "response": {"id": "resp_1", "model": "gpt-4o-mini", "output": []}},
        {"type": "response.output_item.added", "output_index": 0, "item": added},
        {"type": "response.content_part.added", **where, "part": {**part, "text": "", "logprobs": []}},
        *({"type": "response.output_text.delta", **where, "delta": d, "logprobs": e} for d, e in deltas),
        {"type": "response.output_text.done", **where, "text": text, "logprobs": joined},
        {"type": "response.content_part.done", **where, "part": {**part, "logprobs": []}},
        {
            "type": "response.output_item.done",
            "output_index": 0,
            "item": {**added, "status": "completed", "content": [part]},
        },
        {"type": "response.completed", "response": {"id": "resp_1", "model": "gpt-4o-mini", "status": "completed"}},
    ]


THE, CAPITAL = rtoken("The", -1.9e-07), rtoken(" capital", 0.0)


def test_responses_logprobs_of_the_deltas_ride_on_the_text_item() -> None:
    # the done item's copies are rounded (as OpenAI sends them): the deltas' are kept
    rounded = [rtoken("The", -0.0), rtoken(" capital", 0.0)]
    body = responses(*message_events([("The", [THE]), (" capital", [CAPITAL])], done_logprobs=rounded))
    events, outcome = split_everywhere("openai_responses", body)
    fidelity = {"logprobs": [THE, CAPITAL]}
    assert items_of(events) == [
        TextDelta("The"),
        TextDelta(" capital"),
        TextDelta("", fidelity),
        TextDone("The capital", fidelity),
    ]
    assert outcome.anomalies == ()


def test_responses_logprobs_only_at_the_done_are_read_there() -> None:
    events = [e for e in message_events([("Hi", [])]) if e["type"] != "response.output_text.done"]
    done = {"type": "response.output_text.done", "item_id": "msg_1", "output_index": 0, "content_index": 0}
    events.insert(4, {**done, "text": "Hi", "logprobs": [rtoken("Hi", -0.5)]})
    _, outcome = split_everywhere("openai_responses", responses(*events))
    assert outcome.message.items == (TextDone("Hi", {"logprobs": [rtoken("Hi", -0.5)]}),)


def test_a_phase_waits_to_ride_with_the_logprobs_and_comes_back_from_the_done_item() -> None:
    body = responses(*message_events([("The", [THE])], phase="final_answer"))
    events, _outcome = split_everywhere("openai_responses", body)
    fidelity = {"phase": "final_answer", "logprobs": [THE]}
    assert items_of(events) == [TextDelta("The"), TextDelta("", fidelity), TextDone("The", fidelity)]
    written = round_trip("openai_responses", events)
    [added] = [f for f in frames(written) if f["type"] == "response.output_item.added"]
    [item_done] = [f for f in frames(written) if f["type"] == "response.output_item.done"]
    assert "phase" not in added["item"] and item_done["item"]["phase"] == "final_answer"


def test_responses_text_deltas_with_logprobs_are_never_taken_on_demand() -> None:
    same = [(" w", [rtoken(" w", -0.1)])] * 12
    _, outcome, taken = both_paths("openai_responses", responses(*message_events([(" a", [])] * 12 + same)))
    assert outcome.message.items == (TextDone(" a" * 12 + " w" * 12, {"logprobs": [rtoken(" w", -0.1)] * 12}),)
    assert 0 < taken < 12


def test_the_responses_writer_writes_logprobs_at_the_text_done_and_the_sdk_reads_them(serving: Any) -> None:
    openai = pytest.importorskip("openai")
    events, _ = decode_stream("openai_responses", responses(*message_events([("The", [THE]), (" capital", [CAPITAL])])))
    body = round_trip("openai_responses", events)
    [text_done] = [f for f in frames(body) if f["type"] == "response.output_text.done"]
    assert text_done["logprobs"] == [THE, CAPITAL]
    client = openai.OpenAI(base_url=serving(body) + "/v1", api_key="x", max_retries=0)
    with client.responses.stream(model="gpt-4o-mini", input="hi") as stream:
        response = stream.get_final_response()
    [part] = response.output[0].content
    assert [(t.token, t.logprob) for t in part.logprobs] == [("The", -1.9e-07), (" capital", 0.0)]


# --- the Responses writer's reasoning summary -----------------------------------------------------

SIGNED: list[Event] = [
    DeltaEvent(ThinkingDelta("Let me "), 0),
    DeltaEvent(ThinkingDelta("think."), 0),
    DeltaEvent(ThinkingDelta("", {"signature": "EqQB"}), 0),
    DeltaEvent(ThinkingDone("Let me think.", {"signature": "EqQB"}), 0),
    DeltaEvent(TextDelta("Hi"), 0),
    DeltaEvent(TextDone("Hi"), 0),
    StopEvent(Usage(), "stop", 0),
]


def reasoning_items(body: bytes) -> list[Any]:
    """The reasoning item of output_item.done and of response.completed."""
    done = [f["item"] for f in frames(body) if f["type"] == "response.output_item.done"]
    completed = [f["response"]["output"] for f in frames(body) if f["type"] == "response.completed"]
    return [done[0], completed[0][0]]


def test_the_responses_writer_lists_the_summary_it_streamed_in_the_done_item(serving: Any) -> None:
    body = unievent.encode(SIGNED, "openai_responses")
    summary = [{"type": "summary_text", "text": "Let me think."}]
    assert [item["summary"] for item in reasoning_items(body)] == [summary, summary]
    openai = pytest.importorskip("openai")
    client = openai.OpenAI(base_url=serving(body) + "/v1", api_key="x", max_retries=0)
    with client.responses.stream(model="gpt-5", input="hi") as stream:
        response = stream.get_final_response()
    assert [s.text for s in response.output[0].summary] == ["Let me think."]


def test_a_reasoning_item_whose_done_listed_no_text_is_written_back_without_one() -> None:
    added = {"type": "reasoning", "id": "rs_1", "summary": []}
    where = {"item_id": "rs_1", "output_index": 0, "summary_index": 0}
    body = responses(
        {"type": "response.created", "response": {"id": "r", "model": "m", "output": []}},
        {"type": "response.output_item.added", "output_index": 0, "item": added},
        {"type": "response.reasoning_summary_text.delta", **where, "delta": "hm"},
        {"type": "response.output_item.done", "output_index": 0, "item": {**added, "encrypted_content": "gA"}},
        {"type": "response.completed", "response": {"id": "r", "model": "m", "status": "completed"}},
    )
    events, outcome = split_everywhere("openai_responses", body)
    fidelity = {"encrypted_content": "gA", "reasoning_id": "rs_1", "channel": "none"}
    assert outcome.message.items == (ThinkingDone("hm", fidelity),)
    written = round_trip("openai_responses", events)
    assert [item["summary"] for item in reasoning_items(written)] == [[], []]


def test_reasoning_text_streamed_as_content_is_written_back_as_content() -> None:
    added = {"type": "reasoning", "id": "rs_1", "summary": []}
    done = {**added, "content": [{"type": "reasoning_text", "text": "hm"}], "encrypted_content": "gA"}
    body = responses(
        {"type": "response.created", "response": {"id": "r", "model": "m", "output": []}},
        {"type": "response.output_item.added", "output_index": 0, "item": added},
        {
            "type": "response.reasoning_text.delta",
            "item_id": "rs_1",
            "output_index": 0,
            "content_index": 0,
            "delta": "hm",
        },
        {"type": "response.output_item.done", "output_index": 0, "item": done},
        {"type": "response.completed", "response": {"id": "r", "model": "m", "status": "completed"}},
    )
    events, outcome = split_everywhere("openai_responses", body)
    assert getattr(outcome.message.items[0], "fidelity", None) == {
        "encrypted_content": "gA",
        "reasoning_id": "rs_1",
        "channel": "content",
    }
    written = round_trip("openai_responses", events)
    assert b"response.reasoning_text.delta" in written
    assert [item["content"] for item in reasoning_items(written)] == [done["content"]] * 2


# --- Gemini ---------------------------------------------------------------------------------------


def gtoken(text: str, logprob: float) -> dict[str, Any]:
    return {"token": text, "logProbability": logprob}


def record(parts: list[Any], chosen: list[Any] | None = None, top: list[Any] | None = None, **candidate: Any) -> Any:
    body: dict[str, Any] = {"content": {"role": "model", "parts": parts}, "index": 0, **candidate}
    if chosen is not None or top is not None:
        body["logprobsResult"] = {
            **({"topCandidates": top} if top is not None else {}),
            **({"chosenCandidates": chosen} if chosen is not None else {}),
        }
    return {"candidates": [body], "usageMetadata": {"promptTokenCount": 3}, "modelVersion": "gemini-2.5-flash"}


GEMINI_RECORDS = [
    record([{"text": "Hel"}], [gtoken("Hel", -0.1)], [{"candidates": [gtoken("Hel", -0.1), gtoken("Hi", -2.5)]}]),
    record([{"text": "lo"}], [gtoken("lo", -0.01)], [{"candidates": [gtoken("lo", -0.01)]}]),
    {
        **record([{"text": "", "thoughtSignature": "c2ln"}], finishReason="STOP", avgLogprobs=-0.055),
        "usageMetadata": {"promptTokenCount": 3, "candidatesTokenCount": 2},
    },
]
GEMINI_FIDELITY = {
    "logprobs": [gtoken("Hel", -0.1), gtoken("lo", -0.01)],
    "top_logprobs": [{"candidates": [gtoken("Hel", -0.1), gtoken("Hi", -2.5)]}, {"candidates": [gtoken("lo", -0.01)]}],
    "avg_logprobs": -0.055,
    "signature": "c2ln",
}


def gemini_sse(records: list[Any]) -> bytes:
    return b"".join(b"data: " + orjson.dumps(r) + b"\r\n\r\n" for r in records)


@pytest.mark.parametrize("framing", ["sse", "json_array"])
def test_gemini_logprobs_and_the_average_ride_on_the_text_item(framing: str) -> None:
    body = gemini_sse(GEMINI_RECORDS) if framing == "sse" else json.dumps(GEMINI_RECORDS, indent=2).encode()
    events, outcome = split_everywhere("gemini", body)
    assert items_of(events) == [
        TextDelta("Hel"),
        TextDelta("lo"),
        TextDelta("", GEMINI_FIDELITY),
        TextDone("Hello", GEMINI_FIDELITY),
    ]
    assert outcome.anomalies == ()


def test_gemini_records_with_logprobs_are_never_taken_on_demand() -> None:
    plain = [record([{"text": "a"}])] * 8
    same = [record([{"text": "b"}], [gtoken("b", -0.2)])] * 8
    _, outcome, taken = both_paths("gemini", gemini_sse([*plain, *same, *plain]))
    assert outcome.message.items == (TextDone("a" * 8 + "b" * 8 + "a" * 8, {"logprobs": [gtoken("b", -0.2)] * 8}),)
    assert 0 < taken <= 16


def test_a_thought_taken_on_demand_after_text_with_logprobs_closes_it_as_the_full_path_does() -> None:
    thoughts = [record([{"text": "t", "thought": True}])] * 8
    marked = record([{"text": "x"}], [gtoken("x", -0.3)])
    _, outcome, taken = both_paths("gemini", gemini_sse([*thoughts, marked, *thoughts]))
    assert [getattr(i, "fidelity", None) for i in outcome.message.items] == [
        None,
        {"logprobs": [gtoken("x", -0.3)]},
        None,
    ]
    assert taken > 0


def test_gemini_logprobs_of_a_record_stay_with_its_text_when_a_call_follows() -> None:
    call = {"functionCall": {"name": "f", "args": {}, "id": "c1"}}
    body = gemini_sse([record([{"text": "ok"}, call], [gtoken("ok", -0.1), gtoken("f", -0.2)], finishReason="STOP")])
    _, outcome = split_everywhere("gemini", body)
    assert outcome.message.items[0] == TextDone("ok", {"logprobs": [gtoken("ok", -0.1), gtoken("f", -0.2)]})


def test_the_gemini_writer_writes_them_on_a_candidate_and_google_genai_reads_them() -> None:
    types = pytest.importorskip("google.genai.types")
    events, _ = decode_stream("gemini", gemini_sse(GEMINI_RECORDS))
    body = round_trip("gemini", events)
    [carrying] = [r for r in frames(body.replace(b"\r\n", b"\n")) if "logprobsResult" in r["candidates"][0]]
    candidate = types.GenerateContentResponse.model_validate(carrying).candidates[0]
    assert [(c.token, c.log_probability) for c in candidate.logprobs_result.chosen_candidates] == [
        ("Hel", -0.1),
        ("lo", -0.01),
    ]
    assert [len(t.candidates) for t in candidate.logprobs_result.top_candidates] == [2, 1]
    assert candidate.avg_logprobs == -0.055
    assert candidate.content.parts[0].thought_signature == b"sig"
