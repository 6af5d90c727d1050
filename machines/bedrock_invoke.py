"""Amazon Bedrock InvokeModelWithResponseStream (`POST /model/{id}/invoke-with-response-stream`).

The body is AWS event-stream frames (see the framing); each `chunk` frame's payload is
`{"bytes": "<base64>"}` whose bytes are one event of the model's own stream format as a
JSON object (for Claude, an Anthropic Messages event without its SSE framing).  The
decoder classifies each frame:

- `chunk`: a `chunk` frame whose bytes decode to a JSON object: handed to the handler
  of its model family (chosen by the first one, see the handler);
- `bad_chunk`: a `chunk` frame without base64 bytes, or whose bytes are no JSON object;
- `error`: an exception or error frame (or the framer's `error:corrupt_frame`);
- `other`: any other event (kept, never fatal);
- `eof`.

This machine owns the frames; the model family's own machine owns its events, and so
the end: at `eof` a stream that carried chunks ends as the inner handler says
(`delegated`), one that carried none was cut short, and an exception fails it.
"""

NAME = "bedrock_invoke"
INITIAL = "waiting"
STATES = ["waiting", "streaming", "failed", "delegated", "truncated"]
FINAL = ["delegated", "truncated", "failed"]
SYMBOLS = ["chunk", "bad_chunk", "error", "other", "eof"]

GUARDS: dict[str, str] = {}

ACTIONS = {
    "hand_over": "decode the bytes and hand the event to its model family's handler (the first chunk picks the "
    "family); keep amazon-bedrock-invocationMetrics as extras and as the usage the family did not give",
    "note_bad_chunk": "a chunk that is no JSON object is skipped, and noted",
    "record_error": "the exception's type and message (or the error frame's code); content already received is kept",
    "note_other": "keep an unknown event on the side channel and note it as an anomaly",
}

#: typical complete streams, drawn bold in the diagrams and walked by the tests
HAPPY_PATHS = {
    "model events": ["chunk", "chunk", "chunk", "chunk", "eof"],
}

_LIVE = ["waiting", "streaming"]

TRANSITIONS = [
    {"trigger": "chunk", "source": _LIVE, "dest": "streaming", "after": ["hand_over"]},
    {"trigger": "bad_chunk", "source": _LIVE, "dest": "=", "after": ["note_bad_chunk"]},
    {"trigger": "other", "source": _LIVE, "dest": "=", "after": ["note_other"]},
    {"trigger": "error", "source": _LIVE, "dest": "failed", "after": ["record_error"]},
    {"trigger": "eof", "source": "streaming", "dest": "delegated"},
    {"trigger": "eof", "source": "waiting", "dest": "truncated"},
    {"trigger": "eof", "source": "failed", "dest": "failed"},
]
