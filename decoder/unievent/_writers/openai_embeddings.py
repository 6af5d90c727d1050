# An OpenAI-compatible `/v1/embeddings` response body written from UniEvents (the reader
# is _protocols/openai_embeddings.py; both run machines/openai_embeddings.py).
#
# Not streamed: the whole body is written at the stop, one `data[]` entry per
# embedding item in order, the vectors as float lists, `usage.prompt_tokens` (and
# `total_tokens`, the same count).  An error is `{"error": {...}}`.
from __future__ import annotations

from typing import Any, ClassVar

import orjson

from unievent._events import DeltaItem, DoneItem, EmbeddingDone, StopEvent
from unievent._generated import openai_embeddings as M
from unievent._outcome import ProviderError
from unievent._writers.base import Writer

__all__ = ["OpenAIEmbeddingsWriter"]


class OpenAIEmbeddingsWriter(Writer):
    protocol: ClassVar[str] = "openai_embeddings"
    #: one JSON body, not an event stream
    media_type: ClassVar[str] = "application/json"
    machine: ClassVar[Any] = M

    def __init__(self, *args: Any) -> None:
        super().__init__(*args)
        self.vectors: list[list[float]] = []

    def delta(self, item: DeltaItem) -> None:
        if item.kind != "embedding":
            self.dropped.append(f"{item.type} (an embeddings body holds vectors only)")

    def close(self, done: DoneItem) -> None:
        if type(done) is EmbeddingDone:
            self.vectors.append(done.embedding)

    def stop(self, event: StopEvent) -> None:
        data = [{"object": "embedding", "index": i, "embedding": v} for i, v in enumerate(self.vectors)]
        body: dict[str, Any] = {"object": "list", "data": data, "model": self.options.model}
        prompt = event.usage.prompt_tokens
        if prompt is not None:
            body["usage"] = {"prompt_tokens": prompt, "total_tokens": prompt}
        self.step(M.SY_EMBEDDINGS)
        self.write(orjson.dumps(body))

    def fail(self, error: ProviderError) -> None:
        self.step(M.SY_ERROR)
        self.write(orjson.dumps({"error": {"message": error.message, "type": error.type, "code": error.code}}))

    def keep_alive(self) -> bytes:
        return b" "  # whitespace before a JSON body
