# Every protocol unievent writes, by name: its writer (a module here of the same name,
# beside the reader in _protocols/, both driven by machines/<name>.py).
from __future__ import annotations

from unievent._writers.anthropic import AnthropicWriter
from unievent._writers.base import EncodeOptions, Writer
from unievent._writers.bedrock_converse import BedrockConverseWriter
from unievent._writers.bedrock_invoke import BedrockInvokeWriter
from unievent._writers.cohere import CohereWriter
from unievent._writers.gemini import GeminiWriter
from unievent._writers.gemini_interactions import GeminiInteractionsWriter
from unievent._writers.mmsp import MMSPWriter
from unievent._writers.ollama import OllamaWriter
from unievent._writers.openai_chat import OpenAIChatWriter
from unievent._writers.openai_embeddings import OpenAIEmbeddingsWriter
from unievent._writers.openai_responses import OpenAIResponsesWriter

__all__ = ["WRITERS"]

#: every writer, by protocol name
WRITERS: dict[str, type[Writer]] = {
    writer.protocol: writer
    for writer in (
        OpenAIChatWriter,
        AnthropicWriter,
        OpenAIResponsesWriter,
        GeminiWriter,
        GeminiInteractionsWriter,
        MMSPWriter,
        OpenAIEmbeddingsWriter,
        CohereWriter,
        OllamaWriter,
        BedrockConverseWriter,
        BedrockInvokeWriter,
    )
}

del EncodeOptions
