"""Google Gemini embeddings (`:embedContent`, `:batchEmbedContents`): one JSON body.

The body is the one frame (JSON-body framing).  Inputs are that frame, classified by
the decoder:

- `embeddings`: `{"embedding": {"values": [...]}}` (embedContent) or
  `{"embeddings": [{"values": [...]}, ...]}` (batchEmbedContents);
- `invalid`: such an object whose values are not all numbers;
- `error`: `{"error": {"code", "message", "status"}}`;
- `other`: any other object (the error names what it looks like);
- `eof`.

Each vector becomes its own item, `embedding.delta` then `embedding.done`, in order;
the finish reason is always `stop`, `prompt_tokens` is `usageMetadata.promptTokenCount`
when present.  Values that are not numbers are ambiguous: the stream fails, naming the
vector.
"""

NAME = "gemini_embeddings"
INITIAL = "waiting"
STATES = ["waiting", "answered", "failed", "complete", "truncated"]
FINAL = ["complete", "truncated", "failed"]
SYMBOLS = ["embeddings", "invalid", "error", "other", "eof"]

GUARDS: dict[str, str] = {}

ACTIONS = {
    "emit_vectors": "the one embedding, or each of the batch in order, becomes one embedding item; usage taken",
    "record_invalid": "a protocol_error naming the vector that is not numbers (the body is ambiguous)",
    "record_error": "the error object's message, status (as type) and code",
    "record_not_embeddings": "a protocol_error: the body is no embeddings response (and what it looks like)",
}

TRANSITIONS = [
    {"trigger": "embeddings", "source": "waiting", "dest": "answered", "after": ["emit_vectors"]},
    {"trigger": "invalid", "source": "waiting", "dest": "failed", "after": ["record_invalid"]},
    {"trigger": "error", "source": "waiting", "dest": "failed", "after": ["record_error"]},
    {"trigger": "other", "source": "waiting", "dest": "failed", "after": ["record_not_embeddings"]},
    {"trigger": "eof", "source": "answered", "dest": "complete"},
    {"trigger": "eof", "source": "waiting", "dest": "truncated"},
    {"trigger": "eof", "source": "failed", "dest": "failed"},
]

HAPPY_PATHS = {
    "vectors": ["embeddings", "eof"],
}
