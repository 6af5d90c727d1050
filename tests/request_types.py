"""Each provider's own request types, as checks: a replayed turn, or a tool result, is
what that provider's SDK takes, and names no field the SDK does not know.

- anthropic: `anthropic.types.MessageParam`;
- openai_chat: `ChatCompletionAssistantMessageParam` (a tool result:
  `ChatCompletionToolMessageParam`);
- openai_responses: every item a `ResponseInputItemParam`;
- gemini: google-genai's `types.Content`, read from JSON as the API sends it (its
  models forbid unknown fields);
- gemini_interactions: every step a google-genai `interactions.StepParam`, and the same
  steps as `interactions.Step` models, none unknown and none with a field of its own;
- bedrock_converse: botocore's `ParamValidator` on the `Converse` input shape of the
  bedrock-runtime service model (it names any unknown parameter);
- cohere: the SDK's `ChatMessageV2`, the role's own class, no field of its own;
- ollama: the client's `Message`, which must give back exactly the dict it read (the
  client drops what it does not know), images as the client wraps them.

A check skips when the SDK is not installed (the `sdks` extra).
"""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest

#: the protocols with request types to check against
CHECKED = (
    "anthropic",
    "openai_chat",
    "openai_responses",
    "gemini",
    "gemini_interactions",
    "bedrock_converse",
    "cohere",
    "ollama",
)


def check_turn(protocol: str, turn: Any) -> None:
    """`turn`, an assistant turn `to_request` wrote, is what `protocol`'s SDK takes."""
    _TURN_CHECKS[protocol](turn)


def check_tool_result(protocol: str, answer: Any) -> None:
    """`answer`, what `tool_result` wrote, is what `protocol`'s SDK takes."""
    _RESULT_CHECKS[protocol](answer)


# --- the SDKs ------------------------------------------------------------------------------


@functools.cache
def _adapter(name: str) -> Any:
    pydantic = pytest.importorskip("pydantic")
    if name.startswith("anthropic."):
        module = pytest.importorskip("anthropic.types")
    elif name.startswith("chat."):
        module = pytest.importorskip("openai.types.chat")
    elif name.startswith("responses."):
        module = pytest.importorskip("openai.types.responses")
    else:
        module = pytest.importorskip("google.genai.interactions")
        # a list of steps, whose params admit file objects for base64 fields
        steps: Any = list
        config = pydantic.ConfigDict(arbitrary_types_allowed=True)
        return pydantic.TypeAdapter(steps[getattr(module, name.partition(".")[2])], config=config)
    return pydantic.TypeAdapter(getattr(module, name.partition(".")[2]))


def _anthropic(turn: Any) -> None:
    _adapter("anthropic.MessageParam").validate_python(turn, strict=False)


def _openai_chat(turn: Any) -> None:
    _adapter("chat.ChatCompletionAssistantMessageParam").validate_python(turn)


def _openai_chat_result(answer: Any) -> None:
    _adapter("chat.ChatCompletionToolMessageParam").validate_python(answer)


def _openai_responses(items: Any) -> None:
    assert isinstance(items, list)
    for item in items:
        _adapter("responses.ResponseInputItemParam").validate_python(item)


def _openai_responses_result(item: Any) -> None:
    _openai_responses([item])


def _gemini(content: Any) -> None:
    types = pytest.importorskip("google.genai.types")
    types.Content.model_validate_json(json.dumps(content))


def _gemini_interactions(steps: Any) -> None:
    assert isinstance(steps, list)
    _adapter("interactions.StepParam").validate_python(steps)
    for step in _adapter("interactions.Step").validate_python(steps):
        assert not getattr(step, "is_unknown", False), f"a step the SDK does not know: {step}"
        _assert_no_fields_of_its_own(step, step.type)


def _gemini_interactions_result(step: Any) -> None:
    _gemini_interactions([step])


@functools.cache
def _converse_input() -> tuple[Any, Any]:
    session = pytest.importorskip("botocore.session")
    validate = pytest.importorskip("botocore.validate")
    model = session.get_session().get_service_model("bedrock-runtime")
    return validate.ParamValidator(), model.operation_model("Converse").input_shape


def _bedrock_converse(message: Any) -> None:
    validator, shape = _converse_input()
    report = validator.validate({"modelId": "model", "messages": [message]}, shape)
    assert not report.has_errors(), report.generate_report()


def _cohere(message: Any) -> None:
    _cohere_message(message, "AssistantChatMessageV2")


def _cohere_result(message: Any) -> None:
    _cohere_message(message, "ToolChatMessageV2")


def _cohere_message(message: Any, kind: str) -> None:
    pydantic = pytest.importorskip("pydantic")
    cohere = pytest.importorskip("cohere")
    read = pydantic.TypeAdapter(cohere.ChatMessageV2).validate_python(message)
    assert type(read).__name__ == kind, f"read as {type(read).__name__}"
    _assert_no_fields_of_its_own(read, kind)


def _ollama(message: Any) -> None:
    """As the client reads a message given as a dict: its images wrapped as `Image`s."""
    ollama = pytest.importorskip("ollama")
    read = dict(message)
    if "images" in read:
        read["images"] = [ollama.Image(value=image) for image in read["images"]]
    assert ollama.Message.model_validate(read).model_dump(exclude_none=True) == message


def _assert_no_fields_of_its_own(value: Any, path: str) -> None:
    """Models that allow unknown fields keep them apart (`model_extra`): there must be
    none, except in free-form objects (a model with no fields, as a function result)."""
    pydantic = pytest.importorskip("pydantic")
    if isinstance(value, pydantic.BaseModel):
        fields = type(value).model_fields
        if not fields:
            return
        assert not value.model_extra, f"{path}: {sorted(value.model_extra)} unknown to the SDK"
        for name in fields:
            _assert_no_fields_of_its_own(getattr(value, name), f"{path}.{name}")
    elif isinstance(value, list | tuple):
        for index, each in enumerate(value):
            _assert_no_fields_of_its_own(each, f"{path}[{index}]")
    elif isinstance(value, dict):
        for key, each in value.items():
            _assert_no_fields_of_its_own(each, f"{path}.{key}")


_TURN_CHECKS = {
    "anthropic": _anthropic,
    "openai_chat": _openai_chat,
    "openai_responses": _openai_responses,
    "gemini": _gemini,
    "gemini_interactions": _gemini_interactions,
    "bedrock_converse": _bedrock_converse,
    "cohere": _cohere,
    "ollama": _ollama,
}
_RESULT_CHECKS = {
    **_TURN_CHECKS,
    "openai_chat": _openai_chat_result,
    "openai_responses": _openai_responses_result,
    "gemini_interactions": _gemini_interactions_result,
    "cohere": _cohere_result,
}
