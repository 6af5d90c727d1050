"""What the writers write is accepted by the providers' own SDKs: the OpenAI SDK's Chat
Completions and Responses stream helpers and the Anthropic SDK's message stream,
served from a local server, accumulate the same text, thinking and tool calls.
Skipped when an SDK is not installed."""

from __future__ import annotations

from typing import Any

import pytest

import unievent
from unievent import (
    DeltaEvent,
    Event,
    StopEvent,
    TextDelta,
    TextDone,
    ThinkingDelta,
    ThinkingDone,
    ToolCallDelta,
    ToolCallDone,
    Usage,
)

EVENTS: list[Event] = [
    DeltaEvent(ThinkingDelta("Let me "), 0),
    DeltaEvent(ThinkingDelta("think."), 0),
    DeltaEvent(ThinkingDelta("", {"signature": "EqQBCkYIBxgC"}), 0),
    DeltaEvent(ThinkingDone("Let me think.", {"signature": "EqQBCkYIBxgC"}), 0),
    DeltaEvent(TextDelta("Checking "), 0),
    DeltaEvent(TextDelta("the weather."), 0),
    DeltaEvent(TextDone("Checking the weather."), 0),
    DeltaEvent(ToolCallDelta("get_weather", '{"city": ', "call_1"), 0),
    DeltaEvent(ToolCallDelta("", '"Paris"}', ""), 0),
    DeltaEvent(ToolCallDone("get_weather", {"city": "Paris"}, "call_1"), 0),
    StopEvent(Usage(cached_tokens=4, prompt_tokens=20, thoughts_tokens=5, response_tokens=12), "tool_call", 0),
]
CONTENT_TYPE = {"gemini": "text/event-stream"}


def test_the_openai_sdk_accumulates_what_the_chat_writer_wrote(serving: Any) -> None:
    openai = pytest.importorskip("openai")
    base = serving(unievent.encode(EVENTS, "openai_chat", model="gpt-4o"))
    client = openai.OpenAI(base_url=base + "/v1", api_key="x", max_retries=0)
    with client.chat.completions.stream(model="gpt-4o", messages=[{"role": "user", "content": "hi"}]) as stream:
        completion = stream.get_final_completion()
    message = completion.choices[0].message
    assert message.content == "Checking the weather."
    [call] = message.tool_calls or []
    assert (call.id, call.function.name, call.function.arguments) == ("call_1", "get_weather", '{"city": "Paris"}')
    assert completion.choices[0].finish_reason == "tool_calls"
    assert completion.usage is not None
    assert (completion.usage.prompt_tokens, completion.usage.completion_tokens) == (24, 17)


def test_the_openai_sdk_accumulates_what_the_responses_writer_wrote(serving: Any) -> None:
    openai = pytest.importorskip("openai")
    base = serving(unievent.encode(EVENTS, "openai_responses", model="gpt-5"))
    client = openai.OpenAI(base_url=base + "/v1", api_key="x", max_retries=0)
    with client.responses.stream(model="gpt-5", input="hi") as stream:
        response = stream.get_final_response()
    kinds = [item.type for item in response.output]
    assert kinds == ["reasoning", "message", "function_call"]
    assert response.output_text == "Checking the weather."
    call = response.output[2]
    assert (call.call_id, call.name, call.arguments) == ("call_1", "get_weather", '{"city": "Paris"}')
    assert response.usage is not None and response.usage.input_tokens == 24


def test_the_anthropic_sdk_accumulates_what_the_anthropic_writer_wrote(serving: Any) -> None:
    anthropic = pytest.importorskip("anthropic")
    base = serving(unievent.encode(EVENTS, "anthropic", model="claude-sonnet-4"))
    client = anthropic.Anthropic(base_url=base, api_key="x", max_retries=0)
    with client.messages.stream(
        model="claude-sonnet-4", max_tokens=100, messages=[{"role": "user", "content": "hi"}]
    ) as stream:
        message = stream.get_final_message()
    thinking, text, tool = message.content
    assert (thinking.type, thinking.thinking, thinking.signature) == ("thinking", "Let me think.", "EqQBCkYIBxgC")
    assert (text.type, text.text) == ("text", "Checking the weather.")
    assert (tool.type, tool.id, tool.name, tool.input) == ("tool_use", "call_1", "get_weather", {"city": "Paris"})
    assert message.stop_reason == "tool_use"
    assert (message.usage.input_tokens, message.usage.output_tokens, message.usage.cache_read_input_tokens) == (
        20,
        17,
        4,
    )
