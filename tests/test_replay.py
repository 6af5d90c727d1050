"""Replay: the assembled message as each provider's next-turn input.

Every recorded stream of a protocol with a request format is decoded, turned into that
protocol's assistant turn, and checked against the provider SDK's own request types
(where installed); every signature, redacted block and encrypted reasoning that arrived
is in the turn byte for byte, on its block.  Fidelity of another provider is left out
and said; a cut stream refuses to replay its calls.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any

import pytest

import unievent
from unievent import DeltaEvent, Message, StopEvent, TextDone, ThinkingDone, ToolCallDone, Usage
from unievent._decoder import StreamDecoder as RuntimeStreamDecoder  # takes any protocol name

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"
REPLAYED = ("anthropic", "openai_chat", "openai_responses", "gemini")

SIGNED = Message(
    "assistant",
    (
        ThinkingDone("Let me think.", {"signature": "EqQBCkYIBxgC"}),
        ThinkingDone("_REDACTED_THINKING", {"signature": "ErUBCkYIAxgCIkB"}),
        TextDone("Checking.", {"citations": [{"type": "char_location", "cited_text": "x"}]}),
        ToolCallDone("get_weather", {"city": "Paris"}, "toolu_1"),
    ),
    Usage(),
    "tool_call",
    None,
)


def decode(protocol: str, data: bytes) -> unievent.Outcome:
    decoder = RuntimeStreamDecoder(protocol, stream_id="s", clock=lambda: 0)
    decoder.push(data)
    return decoder.finish()[1]


def sdk_check(protocol: str, turn: Any) -> None:
    """Validate `turn` against the provider SDK's request param types (skip without)."""
    pydantic = pytest.importorskip("pydantic")
    if protocol == "anthropic":
        types = pytest.importorskip("anthropic.types")
        pydantic.TypeAdapter(types.MessageParam).validate_python(turn, strict=False)
    elif protocol == "openai_chat":
        chat = pytest.importorskip("openai.types.chat")
        pydantic.TypeAdapter(chat.ChatCompletionAssistantMessageParam).validate_python(turn)
    elif protocol == "openai_responses":
        responses = pytest.importorskip("openai.types.responses")
        for item in turn:
            pydantic.TypeAdapter(responses.ResponseInputItemParam).validate_python(item)


# --- each protocol's turn ----------------------------------------------------------------


def test_anthropic_gets_thinking_with_its_signature_redacted_blocks_citations_and_tool_use() -> None:
    turn = SIGNED.to_request("anthropic", source="anthropic")
    assert turn == {
        "role": "assistant",
        "content": [
            {"type": "thinking", "thinking": "Let me think.", "signature": "EqQBCkYIBxgC"},
            {"type": "redacted_thinking", "data": "ErUBCkYIAxgCIkB"},
            {"type": "text", "text": "Checking.", "citations": [{"type": "char_location", "cited_text": "x"}]},
            {"type": "tool_use", "id": "toolu_1", "name": "get_weather", "input": {"city": "Paris"}},
        ],
    }
    sdk_check("anthropic", turn)


def test_openai_chat_gets_content_tool_calls_and_the_reasoning_field_it_came_in() -> None:
    message = Message(
        "assistant",
        (
            ThinkingDone("hmm", {"reasoning_field": "reasoning_content"}),
            TextDone("Checking."),
            ToolCallDone(
                "get_weather", {"city": "Paris"}, "call_1", {"extra_content": {"google": {"thought_signature": "c2ln"}}}
            ),
        ),
        Usage(),
        "tool_call",
        None,
    )
    turn = message.to_request("openai_chat", source="openai_chat")
    assert turn == {
        "role": "assistant",
        "reasoning_content": "hmm",
        "content": "Checking.",
        "tool_calls": [
            {
                "id": "call_1",
                "type": "function",
                "function": {"name": "get_weather", "arguments": '{"city":"Paris"}'},
                "extra_content": {"google": {"thought_signature": "c2ln"}},
            }
        ],
    }
    sdk_check("openai_chat", turn)


def test_openrouter_signatures_go_back_in_reasoning_details() -> None:
    message = Message(
        "assistant",
        (ThinkingDone("2+2=4", {"signature": "Et0B", "format": "anthropic-claude-v1"}), TextDone("4")),
        Usage(),
        "stop",
        None,
    )
    turn = message.to_request("openai_chat", source="openai_chat")
    assert turn["reasoning_details"] == [
        {"type": "reasoning.text", "text": "2+2=4", "signature": "Et0B", "format": "anthropic-claude-v1"}
    ]


def test_openai_responses_gets_reasoning_items_with_their_id_and_encrypted_content() -> None:
    message = Message(
        "assistant",
        (
            ThinkingDone("summary", {"encrypted_content": "gAAAAB", "reasoning_id": "rs_1", "channel": "summary"}),
            TextDone("Checking.", {"phase": "final_answer"}),
            ToolCallDone("get_weather", {"city": "Paris"}, "call_1"),
        ),
        Usage(),
        "tool_call",
        None,
    )
    turn = message.to_request("openai_responses", source="openai_responses")
    assert turn == [
        {
            "type": "reasoning",
            "id": "rs_1",
            "summary": [{"type": "summary_text", "text": "summary"}],
            "encrypted_content": "gAAAAB",
        },
        {
            "type": "message",
            "role": "assistant",
            "content": [{"type": "output_text", "text": "Checking.", "annotations": []}],
            "phase": "final_answer",
        },
        {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": '{"city":"Paris"}'},
    ]
    sdk_check("openai_responses", [item for item in turn if item["type"] != "message"])


def test_gemini_gets_each_signature_on_exactly_the_part_it_came_on() -> None:
    message = Message(
        "assistant",
        (
            ToolCallDone("get_weather", {"city": "Oslo"}, "call_s_1", {"signature": "CiQB"}),
            ToolCallDone("get_weather", {"city": "Bergen"}, "call_s_2"),
            TextDone("", {"signature": "trailing"}),
        ),
        Usage(),
        "tool_call",
        None,
    )
    assert message.to_request("gemini", source="gemini") == {
        "role": "model",
        "parts": [
            {
                "functionCall": {"name": "get_weather", "args": {"city": "Oslo"}, "id": "call_s_1"},
                "thoughtSignature": "CiQB",
            },
            {"functionCall": {"name": "get_weather", "args": {"city": "Bergen"}, "id": "call_s_2"}},
            {"text": "", "thoughtSignature": "trailing"},
        ],
    }


def test_mmsp_gets_the_unimessage_json() -> None:
    assert SIGNED.to_request("mmsp") == unievent.to_json(SIGNED)


# --- what is left out, and said ------------------------------------------------------------


def test_another_providers_fidelity_is_left_out_and_said() -> None:
    replayed = SIGNED.replay("gemini", source="anthropic")
    assert "thoughtSignature" not in json.dumps(replayed.json)
    assert replayed.left_out == (
        "thinking signature (from anthropic)",
        "thinking signature (from anthropic)",
        "text citations (from anthropic)",
    )
    with pytest.warns(unievent.ReplayWarning, match="gemini: left out thinking signature"):
        SIGNED.to_request("gemini", source="anthropic")


def test_a_turn_with_nothing_left_out_warns_nothing() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        SIGNED.to_request("anthropic", source="anthropic")


def test_a_cut_stream_refuses_to_replay_unless_asked_for_its_text() -> None:
    cut = Message("assistant", (TextDone("partial"),), None, None, None)
    with pytest.raises(unievent.ReplayError, match="did not complete"):
        cut.to_request("anthropic")
    assert cut.to_request("anthropic", text_only=True) == {
        "role": "assistant",
        "content": [{"type": "text", "text": "partial"}],
    }


def test_an_unknown_protocol_names_those_there_are() -> None:
    with pytest.raises(unievent.ReplayError, match="there are: anthropic, gemini, mmsp, openai_chat, openai_responses"):
        SIGNED.to_request("carrier_pigeon")


# --- tool results ----------------------------------------------------------------------------

CALL = ToolCallDone("get_weather", {"city": "Paris"}, "call_1")


@pytest.mark.parametrize(
    ("protocol", "expected"),
    [
        (
            "anthropic",
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": "call_1", "content": '{"temp":21}'}]},
        ),
        ("openai_chat", {"role": "tool", "tool_call_id": "call_1", "content": '{"temp":21}'}),
        ("openai_responses", {"type": "function_call_output", "call_id": "call_1", "output": '{"temp":21}'}),
        (
            "gemini",
            {
                "role": "user",
                "parts": [{"functionResponse": {"name": "get_weather", "id": "call_1", "response": {"temp": 21}}}],
            },
        ),
    ],
)
def test_a_tool_result_answers_its_call_by_id(protocol: str, expected: Any) -> None:
    assert unievent.tool_result(CALL, {"temp": 21}, protocol) == expected


def test_an_error_result_says_so() -> None:
    assert unievent.tool_result(CALL, "no such city", "anthropic", is_error=True)["content"][0]["is_error"] is True
    assert unievent.tool_result(CALL, "no such city", "gemini", is_error=True)["parts"][0]["functionResponse"][
        "response"
    ] == {"error": "no such city"}


def test_tool_results_match_the_sdks_request_types() -> None:
    pydantic = pytest.importorskip("pydantic")
    anthropic_types = pytest.importorskip("anthropic.types")
    chat = pytest.importorskip("openai.types.chat")
    responses = pytest.importorskip("openai.types.responses")
    pydantic.TypeAdapter(anthropic_types.MessageParam).validate_python(unievent.tool_result(CALL, "ok", "anthropic"))
    pydantic.TypeAdapter(chat.ChatCompletionToolMessageParam).validate_python(
        unievent.tool_result(CALL, "ok", "openai_chat")
    )
    pydantic.TypeAdapter(responses.ResponseInputItemParam).validate_python(
        unievent.tool_result(CALL, "ok", "openai_responses")
    )


# --- recorded streams ------------------------------------------------------------------------


def _entries() -> list[dict[str, Any]]:
    manifest = CORPUS / "manifest.json"
    if not manifest.exists():
        return []
    return [e for e in json.loads(manifest.read_text()) if e["protocol"] in REPLAYED]


ENTRIES = _entries()


@pytest.mark.skipif(not ENTRIES, reason="no recorded corpus at ../shared/corpus")
@pytest.mark.parametrize("entry", ENTRIES, ids=lambda e: e["file"])
def test_a_recorded_stream_replays_with_every_piece_of_fidelity_on_its_block(entry: dict[str, Any]) -> None:
    protocol = entry["protocol"]
    data = (CORPUS / entry["file"]).read_bytes()
    outcome = decode(protocol, data)
    if outcome.end != "complete":
        pytest.skip(f"the recording ends {outcome.end}")
    turn = outcome.message.replay(protocol, source=protocol).json
    sdk_check(protocol, turn if protocol != "openai_responses" else [i for i in turn if i["type"] != "message"])
    text = json.dumps(turn)
    for item in outcome.message.items:
        for key in ("signature", "encrypted_content"):
            value = (getattr(item, "fidelity", None) or {}).get(key)
            if type(value) is str and value:
                assert json.dumps(value) in text, f"{item.type} {key} missing"
    # the round trip through the encoder gives the same turn
    events = list(unievent.iter_events([data], protocol, stream_id="s", clock=lambda: 0))
    again = decode(protocol, unievent.encode(events, protocol))
    assert again.message.replay(protocol, source=protocol) == outcome.message.replay(protocol, source=protocol)


def test_a_two_turn_exchange_sends_the_signature_back_with_the_result() -> None:
    body = unievent.encode(
        [
            DeltaEvent(unievent.ThinkingDelta("Weather needs a tool."), 0),
            DeltaEvent(unievent.ThinkingDelta("", {"signature": "EqQB"}), 0),
            DeltaEvent(ThinkingDone("Weather needs a tool.", {"signature": "EqQB"}), 0),
            DeltaEvent(unievent.ToolCallDelta("get_weather", '{"city": "Paris"}', "toolu_1"), 0),
            DeltaEvent(ToolCallDone("get_weather", {"city": "Paris"}, "toolu_1"), 0),
            StopEvent(Usage(), "tool_call", 0),
        ],
        "anthropic",
    )
    stream = unievent.stream([body], "anthropic")
    message = stream.final_message()
    [call] = [i for i in message.items if isinstance(i, ToolCallDone)]
    history = [
        {"role": "user", "content": "Weather in Paris?"},
        message.to_request("anthropic", source=stream.protocol),
        unievent.tool_result(call, {"temp_c": 21}, "anthropic"),
    ]
    assert history[1]["content"][0] == {"type": "thinking", "thinking": "Weather needs a tool.", "signature": "EqQB"}
    assert history[2]["content"][0]["tool_use_id"] == "toolu_1"
