# Google Gemini embeddings: the `:embedContent` body (`{"embedding": {"values"}}`) and
# the `:batchEmbedContents` body (`{"embeddings": [{"values"}, ...]}`), one JSON object
# (machine: machines/gemini_embeddings.py; the handler in embedding_vectors.py).
#
# Each vector is one item, in order.  `prompt_tokens` is
# `usageMetadata.promptTokenCount` when the body has it; the other counts are null.
from __future__ import annotations

from typing import Any, ClassVar

from unievent._generated import gemini_embeddings as M
from unievent._protocols.embedding_vectors import EmbeddingsHandler, VectorError, vector_of
from unievent._shared import as_dict, as_int

__all__ = ["GeminiEmbeddings"]


class GeminiEmbeddings(EmbeddingsHandler):
    """Protocol handler for `gemini_embeddings` (see StreamDecoder)."""

    machine: ClassVar[Any] = M

    def vectors(self, obj: dict[str, Any]) -> list[list[float]] | None:
        one = obj.get("embedding")
        if type(one) is dict:
            return [_values(one, "embedding")]
        batch = obj.get("embeddings")
        if type(batch) is not list:
            return None
        vectors = []
        for position, entry in enumerate(batch):
            if type(entry) is not dict:
                raise VectorError(f"embeddings[{position}] is a {type(entry).__name__}, not an object")
            vectors.append(_values(entry, f"embeddings[{position}]"))
        return vectors

    def take_usage(self, obj: dict[str, Any]) -> None:
        self.session.set_usage(prompt=as_int(as_dict(obj.get("usageMetadata")).get("promptTokenCount")))


def _values(entry: dict[str, Any], where: str) -> list[float]:
    try:
        return vector_of(entry.get("values", []), base64_allowed=False)
    except VectorError as error:
        raise VectorError(f"{where}.values is {error}") from None
