# Every protocol unievent decodes, by name: its handler (a module here of the same
# name, driven by machines/<name>.py) and the framings its wire may use.
from __future__ import annotations

from collections.abc import Callable

import attrs

from unievent._protocols import (
    anthropic,
    bedrock_converse,
    bedrock_invoke,
    cohere,
    gemini,
    gemini_embeddings,
    gemini_interactions,
    mmsp,
    ollama,
    openai_chat,
    openai_embeddings,
    openai_responses,
)
from unievent._session import Handler, Session

__all__ = ["PROTOCOLS", "ProtocolSpec"]


@attrs.frozen
class ProtocolSpec:
    """One protocol: `name`, the `handler` class built for each stream from its
    session, and the `framings` its body may come in (the first is the default)."""

    name: str
    handler: Callable[[Session], Handler]
    framings: tuple[str, ...]
    description: str


#: every protocol, by name
PROTOCOLS: dict[str, ProtocolSpec] = {
    spec.name: spec
    for spec in (
        ProtocolSpec("openai_chat", openai_chat.OpenAIChat, ("sse",), "OpenAI-compatible Chat Completions"),
        ProtocolSpec("anthropic", anthropic.Anthropic, ("sse",), "Anthropic Messages"),
        ProtocolSpec("openai_responses", openai_responses.OpenAIResponses, ("sse",), "OpenAI Responses (and Mirobody)"),
        ProtocolSpec("gemini", gemini.Gemini, ("sse", "json_array"), "Google Gemini generateContent"),
        ProtocolSpec(
            "gemini_interactions", gemini_interactions.GeminiInteractions, ("sse",), "Google Gemini Interactions API"
        ),
        ProtocolSpec("mmsp", mmsp.MMSPWire, ("sse",), "MMSP's own wire: an MMSP server's POST /v1/stream"),
        ProtocolSpec(
            "openai_embeddings", openai_embeddings.OpenAIEmbeddings, ("json_body",), "OpenAI-compatible embeddings"
        ),
        ProtocolSpec(
            "gemini_embeddings",
            gemini_embeddings.GeminiEmbeddings,
            ("json_body",),
            "Google Gemini embedContent and batchEmbedContents",
        ),
        ProtocolSpec("ollama", ollama.Ollama, ("ndjson",), "Ollama's native /api/chat and /api/generate"),
        ProtocolSpec("cohere", cohere.Cohere, ("sse",), "Cohere v2 chat"),
        ProtocolSpec(
            "bedrock_converse",
            bedrock_converse.BedrockConverse,
            ("aws_eventstream",),
            "Amazon Bedrock ConverseStream",
        ),
        ProtocolSpec(
            "bedrock_invoke",
            bedrock_invoke.BedrockInvoke,
            ("aws_eventstream",),
            "Amazon Bedrock InvokeModelWithResponseStream (Claude, OpenAI and Nova models' own events)",
        ),
    )
}
