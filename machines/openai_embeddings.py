"""OpenAI-compatible embeddings (`POST /v1/embeddings`): one JSON body, not a stream.

The body is the one frame (JSON-body framing).  Inputs are that frame, classified by
the decoder:

- `embeddings`: an object with a `data` list, each entry an `embedding` (a list of
  numbers, or with `encoding_format: "base64"` the base64 of little-endian float32)
  and its `index`;
- `invalid`: such an object with a vector that is neither (or entries that are no
  objects, or an index that is no integer);
- `error`: `{"error": {...}}`;
- `other`: any other object (the error names what it looks like);
- `eof`.

Each entry becomes its own item, `embedding.delta` then `embedding.done`, in `index`
order; the finish reason is always `stop` and `prompt_tokens` is `usage.prompt_tokens`
(null when absent, or when only `total_tokens` is given).  A vector that is neither
numbers nor whole float32 base64 is ambiguous: the stream fails, naming the entry.
"""

NAME = "openai_embeddings"
INITIAL = "waiting"
STATES = ["waiting", "answered", "failed", "complete", "truncated"]
FINAL = ["complete", "truncated", "failed"]
SYMBOLS = ["embeddings", "invalid", "error", "other", "eof"]

GUARDS: dict[str, str] = {}

ACTIONS = {
    "emit_vectors": "each data[] entry in index order becomes one embedding item; usage and model taken",
    "record_invalid": "a protocol_error naming the vector that is not numbers (the body is ambiguous)",
    "record_error": "the error object's message, type and code",
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
