"""Replay to Bedrock Converse, Cohere v2, Ollama and the Gemini Interactions API, and
every protocol's turn checked against every provider SDK's own request types.

For each of these targets a hand-written stream of its own wire is decoded and the
message replayed to that protocol: the turn is what the provider's request takes, checked
against its SDK's types (tests/request_types.py: botocore's service model, the cohere
SDK's `ChatMessageV2`, the ollama client's `Message`, google-genai's interaction steps),
every signature and redacted block on its block.  A tool result answers its call by id
(Ollama, whose messages carry none: by the tool's name).  What a target has no place
for is left out and said.  Then every recorded stream (../shared/corpus and
../shared/corpus-open-world, when present) is replayed to every target, each turn checked
against that target's SDK, no item kind skipped.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any

import attrs
import orjson
import pytest

import unievent
from tests.request_types import CHECKED, check_tool_result, check_turn
from tests.test_replay import protocol_of, recorded
from unievent import (
    InlineDataDone,
    InlineThinkingDone,
    Message,
    TextDone,
    ThinkingDone,
    ToolCallDone,
    ToolResultDone,
    Usage,
)
from unievent._decoder import StreamDecoder as RuntimeStreamDecoder  # takes any protocol name
from unievent._framing.aws_eventstream import encode_frame


def decode(protocol: str, data: bytes) -> Message:
    decoder = RuntimeStreamDecoder(protocol, stream_id="s", clock=lambda: 0)
    decoder.push(data)
    outcome = decoder.finish()[1]
    assert outcome.end == "complete", outcome.error
    return outcome.message


def replayed(message: Message, protocol: str) -> Any:
    """The message's turn for its own protocol, which leaves nothing out."""
    turn = message.replay(protocol, source=protocol)
    assert turn.left_out == ()
    check_turn(protocol, turn.json)
    return turn.json


# --- Bedrock Converse ----------------------------------------------------------------------


def converse_event(name: str, payload: dict[str, Any]) -> bytes:
    headers = [(":event-type", name), (":content-type", "application/json"), (":message-type", "event")]
    return encode_frame(headers, orjson.dumps(payload))


def converse_delta(index: int, delta: dict[str, Any]) -> bytes:
    return converse_event("contentBlockDelta", {"contentBlockIndex": index, "delta": delta})


def converse_stop(index: int) -> bytes:
    return converse_event("contentBlockStop", {"contentBlockIndex": index})


def converse(*blocks: bytes, reason: str = "end_turn") -> bytes:
    return b"".join(
        [
            converse_event("messageStart", {"role": "assistant"}),
            *blocks,
            converse_event("messageStop", {"stopReason": reason}),
            converse_event("metadata", {"usage": {"inputTokens": 9, "outputTokens": 30}, "metrics": {"latencyMs": 1}}),
        ]
    )


REDACTED = base64.b64encode(b"\x00opaque reasoning\xff").decode()
CONVERSE_TOOL_TURN = converse(
    converse_delta(0, {"reasoningContent": {"text": "Weather needs a tool."}}),
    converse_delta(0, {"reasoningContent": {"signature": "EqQBCkYIBxgC"}}),
    converse_stop(0),
    converse_delta(1, {"reasoningContent": {"redactedContent": REDACTED}}),
    converse_stop(1),
    converse_delta(2, {"text": "Checking."}),
    converse_stop(2),
    converse_event(
        "contentBlockStart",
        {"contentBlockIndex": 3, "start": {"toolUse": {"toolUseId": "tooluse_1", "name": "get_weather"}}},
    ),
    converse_delta(3, {"toolUse": {"input": '{"city": '}}),
    converse_delta(3, {"toolUse": {"input": '"Paris"}'}}),
    converse_stop(3),
    reason="tool_use",
)


def test_converse_gets_signed_reasoning_redacted_content_text_and_tool_use_in_stream_order() -> None:
    turn = replayed(decode("bedrock_converse", CONVERSE_TOOL_TURN), "bedrock_converse")
    assert turn == {
        "role": "assistant",
        "content": [
            {"reasoningContent": {"reasoningText": {"text": "Weather needs a tool.", "signature": "EqQBCkYIBxgC"}}},
            {"reasoningContent": {"redactedContent": b"\x00opaque reasoning\xff"}},
            {"text": "Checking."},
            {"toolUse": {"toolUseId": "tooluse_1", "name": "get_weather", "input": {"city": "Paris"}}},
        ],
    }


def test_boto3_writes_the_redacted_content_back_as_the_base64_it_came_as() -> None:
    """Blobs are bytes, as boto3 takes them: its serializer puts the very text that
    arrived on the wire."""
    serialize = pytest.importorskip("botocore.serialize")
    session = pytest.importorskip("botocore.session")
    model = session.get_session().get_service_model("bedrock-runtime")
    turn = decode("bedrock_converse", CONVERSE_TOOL_TURN).to_request("bedrock_converse", source="bedrock_converse")
    request = serialize.create_serializer(model.metadata["protocol"]).serialize_to_request(
        {"modelId": "model", "messages": [turn]}, model.operation_model("Converse")
    )
    [_, redacted, *_] = json.loads(request["body"])["messages"][0]["content"]
    assert redacted == {"reasoningContent": {"redactedContent": REDACTED}}


def test_converse_text_with_citations_goes_back_as_the_citations_block() -> None:
    citation = {
        "title": "company_policy",
        "sourceContent": [{"text": "Employees get 20 days annual leave."}],
        "location": {"documentChar": {"documentIndex": 0, "start": 0, "end": 35}},
    }
    body = converse(
        converse_delta(0, {"text": "You get 20 days."}),
        converse_delta(0, {"citation": citation}),
        converse_stop(0),
    )
    turn = replayed(decode("bedrock_converse", body), "bedrock_converse")
    assert turn["content"] == [
        {"citationsContent": {"content": [{"text": "You get 20 days."}], "citations": [citation]}}
    ]


def test_converse_gets_an_image_as_its_format_and_bytes() -> None:
    message = Message("assistant", (InlineDataDone(b"\x89PNG\r\n\x1a\n", "image/png"),), Usage(), "stop", None)
    turn = replayed(message, "bedrock_converse")
    assert turn["content"] == [{"image": {"format": "png", "source": {"bytes": b"\x89PNG\r\n\x1a\n"}}}]


def test_converse_leaves_out_what_it_has_no_place_for_and_says_so() -> None:
    message = Message(
        "assistant",
        (
            InlineThinkingDone(b"\x89PNG", "image/png"),
            InlineDataDone(b"RIFF", "audio/wav"),
            ThinkingDone("_REDACTED_THINKING", {"signature": "not base64!"}),
            TextDone("Done."),
        ),
        Usage(),
        "stop",
        None,
    )
    turn = message.replay("bedrock_converse", source="bedrock_converse")
    assert turn.json == {"role": "assistant", "content": [{"text": "Done."}]}
    assert turn.left_out == (
        "inline_thinking.done (no place in a Converse assistant message)",
        "inline_data audio/wav (Converse takes png, jpeg, gif and webp images)",
        "redacted thinking without its data (Converse needs it)",
    )
    with pytest.warns(unievent.ReplayWarning, match="bedrock_converse: left out inline_thinking.done"):
        message.to_request("bedrock_converse", source="bedrock_converse")


# --- Cohere v2 -----------------------------------------------------------------------------


def cohere(*frames: dict[str, Any], reason: str = "COMPLETE") -> bytes:
    empty = {"role": "assistant", "content": [], "tool_plan": "", "tool_calls": [], "citations": []}
    start = {"id": "3ec845ed", "type": "message-start", "delta": {"message": empty}}
    end = {"type": "message-end", "delta": {"finish_reason": reason, "usage": {"tokens": {"input_tokens": 9}}}}
    return b"".join(f"event: {f['type']}\ndata: ".encode() + orjson.dumps(f) + b"\n\n" for f in (start, *frames, end))


def cohere_content(index: int, kind: str, text: str) -> list[dict[str, Any]]:
    return [
        {"type": "content-start", "index": index, "delta": {"message": {"content": {"type": kind, kind: ""}}}},
        {"type": "content-delta", "index": index, "delta": {"message": {"content": {kind: text}}}},
    ]


def cohere_end(index: int) -> dict[str, Any]:
    return {"type": "content-end", "index": index}


def test_cohere_gets_its_tool_plan_and_tool_calls() -> None:
    call = {"id": "get_weather_y46a", "type": "function", "function": {"name": "get_weather", "arguments": ""}}
    body = cohere(
        {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "I will look up "}}},
        {"type": "tool-plan-delta", "delta": {"message": {"tool_plan": "the weather."}}},
        {"type": "tool-call-start", "index": 0, "delta": {"message": {"tool_calls": call}}},
        {
            "type": "tool-call-delta",
            "index": 0,
            "delta": {"message": {"tool_calls": {"function": {"arguments": '{"city":'}}}},
        },
        {
            "type": "tool-call-delta",
            "index": 0,
            "delta": {"message": {"tool_calls": {"function": {"arguments": '"Paris"}'}}}},
        },
        {"type": "tool-call-end", "index": 0},
        reason="TOOL_CALL",
    )
    assert replayed(decode("cohere", body), "cohere") == {
        "role": "assistant",
        "tool_plan": "I will look up the weather.",
        "tool_calls": [
            {
                "id": "get_weather_y46a",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
            }
        ],
    }


def test_cohere_gets_thinking_and_text_blocks_in_order_and_the_citations() -> None:
    cited = {
        "start": 0,
        "end": 16,
        "text": "Emperor penguins",
        "sources": [{"type": "document", "id": "doc:0", "document": {"id": "doc:0", "title": "Tall penguins"}}],
        "content_index": 1,
        "type": "TEXT_CONTENT",
    }
    body = cohere(
        *cohere_content(0, "thinking", "Which penguin is tallest?"),
        cohere_end(0),
        *cohere_content(1, "text", "Emperor penguins are the tallest."),
        {"type": "citation-start", "index": 0, "delta": {"message": {"citations": cited}}},
        {"type": "citation-end", "index": 0},
        cohere_end(1),
    )
    assert replayed(decode("cohere", body), "cohere") == {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "Which penguin is tallest?"},
            {"type": "text", "text": "Emperor penguins are the tallest."},
        ],
        "citations": [cited],
    }


def test_text_beside_tool_calls_joins_the_tool_plan_as_cohere_takes_no_text_content_there() -> None:
    message = Message(
        "assistant",
        (
            ThinkingDone("The user wants "),
            ThinkingDone("the weather."),
            TextDone("Let me check."),
            ToolCallDone("get_weather", {"city": "Paris"}, "toolu_1"),
        ),
        Usage(),
        "tool_call",
        None,
    )
    turn = message.to_request("cohere", source="anthropic")
    assert turn["tool_plan"] == "The user wants the weather.\n\nLet me check."
    assert "content" not in turn
    check_turn("cohere", turn)


def test_cohere_leaves_out_what_it_has_no_place_for_and_says_so() -> None:
    message = Message(
        "assistant",
        (
            ThinkingDone("_REDACTED_THINKING", {"signature": "ErUB"}),
            InlineDataDone(b"\x89PNG", "image/png"),
            TextDone("Hi."),
        ),
        Usage(),
        "stop",
        None,
    )
    turn = message.replay("cohere", source="anthropic")
    assert turn.json == {"role": "assistant", "content": [{"type": "text", "text": "Hi."}]}
    assert turn.left_out == (
        "thinking signature (from anthropic)",
        "redacted thinking (no place in a Cohere assistant message)",
        "inline_data.done (no place in a Cohere assistant message)",
    )
    check_turn("cohere", turn.json)


# --- Ollama ----------------------------------------------------------------------------------


def ollama(*messages: dict[str, Any]) -> bytes:
    lines = [
        {"model": "qwen3:8b", "message": {"role": "assistant", "content": "", **m}, "done": False} for m in messages
    ]
    lines.append(
        {"model": "qwen3:8b", "message": {"role": "assistant", "content": ""}, "done": True, "done_reason": "stop"}
    )
    return b"".join(orjson.dumps(line) + b"\n" for line in lines)


PNG = b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"


def test_ollama_gets_its_thinking_content_tool_calls_and_images() -> None:
    body = ollama(
        {"thinking": "The user wants "},
        {"thinking": "the weather."},
        {"content": "Let me "},
        {"content": "check."},
        {"images": [base64.b64encode(PNG).decode()]},
        {
            "tool_calls": [
                {"id": "call_1", "function": {"index": 0, "name": "get_weather", "arguments": {"city": "Paris"}}}
            ]
        },
    )
    assert replayed(decode("ollama", body), "ollama") == {
        "role": "assistant",
        "content": "Let me check.",
        "thinking": "The user wants the weather.",
        "images": [base64.b64encode(PNG).decode()],
        "tool_calls": [{"function": {"name": "get_weather", "arguments": {"city": "Paris"}}}],
    }


def test_ollama_leaves_out_what_it_has_no_place_for_and_says_so() -> None:
    message = Message(
        "assistant",
        (
            ThinkingDone("_REDACTED_THINKING"),
            InlineDataDone(b"RIFF", "audio/wav"),
            InlineThinkingDone(PNG, "image/png"),
        ),
        Usage(),
        "stop",
        None,
    )
    turn = message.replay("ollama", source="ollama")
    assert turn.json == {"role": "assistant", "content": ""}
    assert turn.left_out == (
        "redacted thinking (no place in an Ollama message)",
        "inline_data.done audio/wav (no place in an Ollama message)",
        "inline_thinking.done image/png (no place in an Ollama message)",
    )


# --- Gemini Interactions API -------------------------------------------------------------------


def interactions(*frames: dict[str, Any], status: str = "completed") -> bytes:
    created = {"event_type": "interaction.created", "interaction": {"id": "v1_x", "status": "in_progress"}}
    completed = {"event_type": "interaction.completed", "interaction": {"id": "v1_x", "status": status, "usage": {}}}
    wire = b"".join(b"data: " + orjson.dumps(f) + b"\n\n" for f in (created, *frames, completed))
    return wire + b"data: [DONE]\n\n"


def step(index: int, start: dict[str, Any], *deltas: dict[str, Any]) -> list[dict[str, Any]]:
    return [
        {"event_type": "step.start", "index": index, "step": start},
        *({"event_type": "step.delta", "index": index, "delta": d} for d in deltas),
        {"event_type": "step.stop", "index": index},
    ]


def test_interactions_gets_thought_model_output_and_function_call_steps_in_order() -> None:
    annotation = {
        "type": "url_citation",
        "url": "https://weather.example",
        "title": "Weather",
        "start_index": 0,
        "end_index": 9,
    }
    body = interactions(
        *step(
            0,
            {"type": "thought"},
            {"type": "thought_summary", "content": {"type": "text", "text": "Weather needs a tool."}},
            {"type": "thought_signature", "signature": "CiQBDDnW"},
        ),
        *step(
            1,
            {"type": "model_output"},
            {"type": "text", "text": "Checking."},
            {"type": "text_annotation_delta", "annotations": [annotation]},
        ),
        *step(2, {"type": "function_call", "id": "fc_1", "name": "get_weather", "arguments": {"city": "Paris"}}),
        status="requires_action",
    )
    assert replayed(decode("gemini_interactions", body), "gemini_interactions") == [
        {"type": "thought", "signature": "CiQBDDnW", "summary": [{"type": "text", "text": "Weather needs a tool."}]},
        {"type": "model_output", "content": [{"type": "text", "text": "Checking.", "annotations": [annotation]}]},
        {"type": "function_call", "id": "fc_1", "name": "get_weather", "arguments": {"city": "Paris"}},
    ]


def test_interactions_audio_gets_its_rate_and_channels_back_in_their_own_fields() -> None:
    message = Message(
        "assistant", (InlineDataDone(b"\x00\x01", "audio/l16; rate=24000; channels=1"),), Usage(), "stop", None
    )
    assert replayed(message, "gemini_interactions") == [
        {
            "type": "model_output",
            "content": [
                {"type": "audio", "data": "AAE=", "mime_type": "audio/l16", "sample_rate": 24000, "channels": 1}
            ],
        }
    ]


def test_interactions_leaves_out_a_function_call_s_signature_and_says_so() -> None:
    """The SDK's function_call step has no signature: Interactions signs the thought."""
    message = Message("assistant", (ToolCallDone("f", {}, "fc_1", {"signature": "CiQB"}),), Usage(), "tool_call", None)
    turn = message.replay("gemini_interactions", source="gemini_interactions")
    assert turn.json == [{"type": "function_call", "id": "fc_1", "name": "f", "arguments": {}}]
    assert turn.left_out == ("tool_call signature (an Interactions function_call step has none)",)


# --- tool results ------------------------------------------------------------------------------

CALL = ToolCallDone("get_weather", {"city": "Paris"}, "call_1")


@pytest.mark.parametrize(
    ("protocol", "output", "is_error", "expected"),
    [
        (
            "bedrock_converse",
            {"temp": 21},
            False,
            {"role": "user", "content": [{"toolResult": {"toolUseId": "call_1", "content": [{"json": {"temp": 21}}]}}]},
        ),
        (
            "bedrock_converse",
            "no such city",
            True,
            {
                "role": "user",
                "content": [
                    {"toolResult": {"toolUseId": "call_1", "content": [{"text": "no such city"}], "status": "error"}}
                ],
            },
        ),
        ("cohere", {"temp": 21}, False, {"role": "tool", "tool_call_id": "call_1", "content": '{"temp":21}'}),
        ("ollama", {"temp": 21}, False, {"role": "tool", "content": '{"temp":21}', "tool_name": "get_weather"}),
        (
            "gemini_interactions",
            {"temp": 21},
            False,
            {"type": "function_result", "call_id": "call_1", "name": "get_weather", "result": {"temp": 21}},
        ),
        (
            "gemini_interactions",
            "no such city",
            True,
            {
                "type": "function_result",
                "call_id": "call_1",
                "name": "get_weather",
                "result": "no such city",
                "is_error": True,
            },
        ),
    ],
)
def test_a_tool_result_answers_its_call(protocol: str, output: Any, is_error: bool, expected: Any) -> None:
    answer = unievent.tool_result(CALL, output, protocol, is_error=is_error)
    assert answer == expected
    check_tool_result(protocol, answer)


@pytest.mark.parametrize("protocol", CHECKED)
def test_every_tool_result_is_what_the_sdk_takes(protocol: str) -> None:
    for output, is_error in (("sunny", False), ({"temp": 21}, False), ("no such city", True)):
        check_tool_result(protocol, unievent.tool_result(CALL, output, protocol, is_error=is_error))


# --- every turn, every target ------------------------------------------------------------------

EVERY_KIND = Message(
    "assistant",
    (
        ThinkingDone("Weather needs a tool.", {"signature": "EqQBCkYIBxgC"}),
        ThinkingDone("_REDACTED_THINKING", {"signature": "ErUBCkYIAxgCIkB"}),
        InlineThinkingDone(PNG, "image/png"),
        TextDone("Checking.", {"citations": [{"type": "char_location", "cited_text": "x"}]}),
        InlineDataDone(PNG, "image/png"),
        InlineDataDone(b"\x00\x01", "audio/l16; rate=24000"),
        ToolCallDone("get_weather", {"city": "Paris"}, "toolu_1"),
        ToolResultDone("21", "toolu_0"),
    ),
    Usage(),
    "tool_call",
    None,
)


@pytest.mark.parametrize("protocol", CHECKED)
def test_a_message_of_every_item_kind_replays_to_what_each_sdk_takes(protocol: str) -> None:
    check_turn(protocol, EVERY_KIND.replay(protocol, source="anthropic").json)
    unsourced = attrs.evolve(EVERY_KIND, items=tuple(map(without_fidelity, EVERY_KIND.items)))
    check_turn(protocol, unsourced.replay(protocol).json)


def without_fidelity(item: Any) -> Any:
    return attrs.evolve(item, fidelity=None)


RECORDED = recorded()


@pytest.mark.skipif(not RECORDED, reason="no recorded corpus at ../shared")
@pytest.mark.parametrize(("corpus", "entry"), RECORDED, ids=[f"{c.name}/{e['file']}" for c, e in RECORDED])
def test_a_recorded_message_replays_to_what_every_sdk_takes(corpus: Path, entry: dict[str, Any]) -> None:
    source = protocol_of(entry)
    assert source is not None
    decoder = RuntimeStreamDecoder(
        source, stream_id="s", clock=lambda: 0, content_type=entry.get("recorded_content_type")
    )
    decoder.push((corpus / entry["file"]).read_bytes())
    outcome = decoder.finish()[1]
    if outcome.end != "complete":
        pytest.skip(f"the recording ends {outcome.end}")
    for protocol in CHECKED:
        check_turn(protocol, outcome.message.replay(protocol, source=source).json)
