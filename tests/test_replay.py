"""Replay: the assembled message as each provider's next-turn input.

Every recorded stream (../shared/corpus and ../shared/corpus-open-world, when present) of
a protocol with a request format is decoded, turned into that protocol's assistant turn,
and checked against the provider SDK's own request types (tests/request_types.py, where
installed), every item kind included; every signature, redacted block and encrypted
reasoning that arrived is in the turn byte for byte, on its block.  Fidelity of another
provider is left out and said; a cut stream refuses to replay its calls.  The targets
added later (Bedrock Converse, Cohere, Ollama, the Interactions API) have their own
spec in tests/test_replay_sdks.py.
"""

from __future__ import annotations

import ast
import base64
import inspect
import json
import warnings
from pathlib import Path
from typing import Any, cast

import pytest

import unievent
import unievent._events
from tests.request_types import check_tool_result, check_turn
from unievent import DeltaEvent, Message, StopEvent, TextDone, ThinkingDone, ToolCallDone, Usage
from unievent._decoder import StreamDecoder as RuntimeStreamDecoder  # takes any protocol name
from unievent._replay import REPLAYS

SHARED = Path(__file__).resolve().parent.parent.parent / "shared"
CORPORA = (SHARED / "corpus", SHARED / "corpus-open-world")
#: the manifests' protocol names that are not unievent's, and streams filed under `other/`
#: that unievent reads
PROTOCOL_NAMES = {"bedrock": "bedrock_converse"}
FILED_AS_OTHER = {"other/vercel-ai__gemini_interactions_api_tool_call.sse": "gemini_interactions"}

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


def decode(protocol: str, data: bytes, content_type: str | None = None) -> unievent.Outcome:
    decoder = RuntimeStreamDecoder(protocol, stream_id="s", clock=lambda: 0, content_type=content_type)
    decoder.push(data)
    return decoder.finish()[1]


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
    check_turn("anthropic", turn)


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
    check_turn("openai_chat", turn)


def test_a_chat_audio_answer_goes_back_by_its_audio_id() -> None:
    pcm = bytes(range(16))
    chunks = [
        {"role": "assistant", "content": None, "audio": {"id": "audio_1", "transcript": "Hi"}},
        {"audio": {"transcript": " there."}},
        {"audio": {"id": "audio_1", "data": base64.b64encode(pcm).decode()}},
        {"audio": {"expires_at": 1730000000}},
    ]
    body = b"".join(
        b"data: "
        + json.dumps({"id": "c", "choices": [{"index": 0, "delta": delta, "finish_reason": None}]}).encode()
        + b"\n\n"
        for delta in chunks
    )
    body += b'data: {"id":"c","choices":[{"index":0,"delta":{},"finish_reason":"stop"}]}\n\ndata: [DONE]\n\n'
    message = decode("openai_chat", body).message
    done = message.replay("openai_chat", source="openai_chat")
    # the audio carries its transcript: the API takes the answer back by the audio's id
    assert (done.json, done.left_out) == ({"role": "assistant", "audio": {"id": "audio_1"}}, ())
    check_turn("openai_chat", done.json)
    # from another provider there is no audio id: the transcript is the text, the audio is said
    foreign = message.replay("openai_chat", source="gemini")
    assert foreign.json == {"role": "assistant", "content": "Hi there."}
    assert "inline_data audio/pcm; encoding=s16le; rate=24000; channels=1 without its audio id" in foreign.left_out[-1]
    check_turn("openai_chat", foreign.json)


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
        {"type": "message", "role": "assistant", "content": "Checking.", "phase": "final_answer"},
        {"type": "function_call", "call_id": "call_1", "name": "get_weather", "arguments": '{"city":"Paris"}'},
    ]
    check_turn("openai_responses", turn)


def test_responses_text_with_its_message_id_goes_back_as_the_output_message_it_came_as() -> None:
    """The SDK's types take `output_text` only in an output message, with its `id` and
    `status`; parts of one message go back as one item, its id sent once."""
    message = Message(
        "assistant",
        (
            TextDone("First part. ", {"message_id": "msg_1", "phase": "commentary"}),
            TextDone("Second part.", {"message_id": "msg_1"}),
            TextDone("Another message.", {"message_id": "msg_2"}),
        ),
        Usage(),
        "stop",
        None,
    )
    turn = message.to_request("openai_responses", source="openai_responses")
    assert turn == [
        {
            "type": "message",
            "role": "assistant",
            "id": "msg_1",
            "status": "completed",
            "content": [
                {"type": "output_text", "text": "First part. ", "annotations": []},
                {"type": "output_text", "text": "Second part.", "annotations": []},
            ],
            "phase": "commentary",
        },
        {
            "type": "message",
            "role": "assistant",
            "id": "msg_2",
            "status": "completed",
            "content": [{"type": "output_text", "text": "Another message.", "annotations": []}],
        },
    ]
    check_turn("openai_responses", turn)


def test_responses_text_without_a_message_id_is_an_easy_input_message() -> None:
    """Text of another provider has no item id, and one made up would name an item the
    API never made: it goes back as assistant text, which needs none."""
    turn = SIGNED.replay("openai_responses", source="anthropic").json
    assert turn[0] == {"type": "message", "role": "assistant", "content": "Checking."}
    check_turn("openai_responses", turn)


def test_a_generated_image_goes_back_to_responses_as_the_call_it_came_as() -> None:
    png = b"\x89PNG\r\n\x1a\n" + bytes(range(8))
    body = b"".join(
        b"data: " + json.dumps(event).encode() + b"\n\n"
        for event in [
            {
                "type": "response.created",
                "sequence_number": 0,
                "response": {"id": "resp_1", "status": "in_progress", "output": []},
            },
            {
                "type": "response.output_item.done",
                "sequence_number": 1,
                "output_index": 0,
                "item": {
                    "type": "image_generation_call",
                    "id": "ig_1",
                    "status": "completed",
                    "result": base64.b64encode(png).decode(),
                    "revised_prompt": "a red fox",
                    "output_format": "png",
                    "size": "1024x1024",
                },
            },
            {
                "type": "response.completed",
                "sequence_number": 2,
                "response": {"id": "resp_1", "status": "completed", "output": []},
            },
        ]
    )
    outcome = decode("openai_responses", body)
    done = outcome.message.replay("openai_responses", source="openai_responses")
    assert done.left_out == ()
    assert done.json == [
        {
            "type": "image_generation_call",
            "id": "ig_1",
            "status": "completed",
            "result": base64.b64encode(png).decode(),
            "revised_prompt": "a red fox",
            "output_format": "png",
            "size": "1024x1024",
        }
    ]
    check_turn("openai_responses", done.json)
    # an image of another provider names no call: left out, and said
    foreign = outcome.message.replay("openai_responses", source="gemini")
    assert (foreign.json, foreign.left_out[-1]) == (
        [],
        "inline_data image/png without its image_generation_call id (Responses needs it)",
    )


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
    check_turn("gemini", message.to_request("gemini", source="gemini"))


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


def test_the_message_type_knows_no_request_format() -> None:
    """The events module imports nothing of unievent: replay binds Message.to_request and
    Message.replay to its writers, so the dependency runs one way."""
    tree = ast.parse(Path(unievent._events.__file__).read_text())
    imported = [node.module or "" for node in ast.walk(tree) if isinstance(node, ast.ImportFrom)]
    imported += [alias.name for node in ast.walk(tree) if isinstance(node, ast.Import) for alias in node.names]
    assert not [name for name in imported if name.startswith("unievent")]
    for method in (Message.to_request, Message.replay):
        assert str(inspect.signature(method)) == (
            "(self, protocol: 'str', *, source: 'str | None' = None, text_only: 'bool' = False) -> 'Any'"
        )


def test_an_unknown_protocol_names_those_there_are() -> None:
    known = "bedrock_converse, cohere, gemini, gemini_interactions, mmsp, ollama, openai_chat, openai_responses"
    with pytest.raises(unievent.ReplayError, match=f"there are: anthropic, {known}$"):
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


@pytest.mark.parametrize("protocol", ["anthropic", "openai_chat", "openai_responses", "gemini"])
def test_tool_results_match_the_sdks_request_types(protocol: str) -> None:
    for output, is_error in (("ok", False), ({"temp": 21}, False), ("no such city", True)):
        check_tool_result(protocol, unievent.tool_result(CALL, output, protocol, is_error=is_error))


# --- recorded streams ------------------------------------------------------------------------


def protocol_of(entry: dict[str, Any]) -> str | None:
    """unievent's name for a recorded stream's protocol, or None when unievent reads none."""
    name = FILED_AS_OTHER.get(entry["file"]) or PROTOCOL_NAMES.get(entry["protocol"], entry["protocol"])
    return name if name in unievent.PROTOCOLS else None


def recorded() -> list[tuple[Path, dict[str, Any]]]:
    """Every recorded stream of both corpora that unievent reads (none when absent)."""
    found = []
    for corpus in CORPORA:
        manifest = corpus / "manifest.json"
        if manifest.is_file():
            found += [(corpus, e) for e in json.loads(manifest.read_text()) if protocol_of(e) is not None]
    return found


def on_the_wire(turn: Any) -> str:
    """The turn as JSON; bytes (Converse's blobs, as boto3 takes them) as base64, as boto3
    writes them."""
    return json.dumps(turn, default=lambda blob: base64.b64encode(blob).decode())


RECORDED = [(corpus, entry) for corpus, entry in recorded() if protocol_of(entry) in REPLAYS]


@pytest.mark.skipif(not RECORDED, reason="no recorded corpus at ../shared")
@pytest.mark.parametrize(("corpus", "entry"), RECORDED, ids=[f"{c.name}/{e['file']}" for c, e in RECORDED])
def test_a_recorded_stream_replays_with_every_piece_of_fidelity_on_its_block(
    corpus: Path, entry: dict[str, Any]
) -> None:
    protocol = protocol_of(entry)
    assert protocol is not None
    data = (corpus / entry["file"]).read_bytes()
    outcome = decode(protocol, data, entry.get("recorded_content_type"))
    if outcome.end != "complete":
        pytest.skip(f"the recording ends {outcome.end}")
    turn = outcome.message.replay(protocol, source=protocol).json
    check_turn(protocol, turn)
    text = on_the_wire(turn)
    for item in outcome.message.items:
        for key in ("signature", "encrypted_content"):
            value = (getattr(item, "fidelity", None) or {}).get(key)
            if type(value) is str and value:
                assert json.dumps(value) in text, f"{item.type} {key} missing"
    # the round trip through the encoder gives the same turn
    events = list(unievent.iter_events([data], cast(unievent.ProtocolName, protocol), stream_id="s", clock=lambda: 0))
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
