# OpenAI-compatible embeddings: the `/v1/embeddings` response body, one JSON object
# (machine: machines/openai_embeddings.py; the handler in embedding_vectors.py).
#
# `data[]` entries become items in `index` order (an entry without one keeps its
# place); each `embedding` is a list of numbers or the base64 of little-endian float32
# (what the official SDK asks for by default).  `prompt_tokens` is `usage.prompt_tokens`,
# null when absent or when only `total_tokens` is given; the other counts are null.
from __future__ import annotations

from typing import Any, ClassVar

from unievent._generated import openai_embeddings as M
from unievent._protocols.embedding_vectors import EmbeddingsHandler, VectorError, vector_of
from unievent._shared import as_dict, as_int

__all__ = ["OpenAIEmbeddings"]


class OpenAIEmbeddings(EmbeddingsHandler):
    """Protocol handler for `openai_embeddings` (see StreamDecoder)."""

    machine: ClassVar[Any] = M

    def vectors(self, obj: dict[str, Any]) -> list[list[float]] | None:
        data = obj.get("data")
        if type(data) is not list:
            return None
        order: list[tuple[int, int, Any]] = []
        for position, entry in enumerate(data):
            if type(entry) is not dict:
                raise VectorError(f"data[{position}] is a {type(entry).__name__}, not an object")
            index = entry.get("index", position)
            if type(index) is not int:
                raise VectorError(f"data[{position}].index is not an integer")
            order.append((index, position, entry.get("embedding")))
        order.sort(key=_by_index)
        vectors = []
        for _, position, value in order:
            try:
                vectors.append(vector_of(value, base64_allowed=True))
            except VectorError as error:
                raise VectorError(f"data[{position}].embedding is {error}") from None
        return vectors

    def take_usage(self, obj: dict[str, Any]) -> None:
        self.session.set_usage(prompt=as_int(as_dict(obj.get("usage")).get("prompt_tokens")))


def _by_index(entry: tuple[int, int, Any]) -> tuple[int, int]:
    return entry[0], entry[1]
