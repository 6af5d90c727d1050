"""Google Gemini generateContent (`streamGenerateContent`): the lifecycle of one stream.

Every frame is a whole `GenerateContentResponse` (an SSE `data:` record with
`alt=sse`, or an element of the streamed JSON array without it), classified by the
decoder:

- `record`: a response with candidate content and no `finishReason`;
- `finish_record`: one whose candidate 0 carries a `finishReason`;
- `blocked`: `promptFeedback.blockReason` with no candidate: the prompt was refused;
- `error`: an `{"error": {code, message, status}}` record;
- `done_sentinel` (`data: [DONE]`, which Google never sends but gateways do) and `eof`.

Records after the finish are read (usage-only records, late metadata).  The stream is
complete when a finish reason arrived and the body ended cleanly (at a frame boundary
for SSE, after the `]` of an array: the framer reports a cut otherwise); truncated
when the body ended first; failed on an error record or a blocked prompt.
"""

NAME = "gemini"
INITIAL = "waiting"
STATES = ["waiting", "streaming", "finished", "failed", "complete", "truncated"]
FINAL = ["complete", "truncated", "failed"]
SYMBOLS = ["record", "finish_record", "blocked", "error", "done_sentinel", "eof"]

GUARDS: dict[str, str] = {}

ACTIONS = {
    "apply_record": "route the parts of candidate 0 in order (text, thoughts, calls, inline data, the side "
    "channel), attach signatures to their items; take usage (last value per field), model, metadata",
    "record_finish": "remember finishReason (the last one wins)",
    "record_blocked": "the prompt was blocked: promptFeedback.blockReason is the error (prompt_blocked)",
    "record_error": "the error record's message, status and code",
}

_LIVE = ["waiting", "streaming", "finished"]

TRANSITIONS = [
    {"trigger": "record", "source": ["waiting", "streaming"], "dest": "streaming", "after": ["apply_record"]},
    {"trigger": "record", "source": "finished", "dest": "finished", "after": ["apply_record"]},
    {"trigger": "finish_record", "source": _LIVE, "dest": "finished", "after": ["apply_record", "record_finish"]},
    {"trigger": "blocked", "source": _LIVE, "dest": "failed", "after": ["record_blocked"]},
    {"trigger": "error", "source": _LIVE, "dest": "failed", "after": ["record_error"]},
    {"trigger": "done_sentinel", "source": _LIVE, "dest": "="},
    {"trigger": "eof", "source": "finished", "dest": "complete"},
    {"trigger": "eof", "source": ["waiting", "streaming"], "dest": "truncated"},
    {"trigger": "eof", "source": "failed", "dest": "failed"},
]

HAPPY_PATHS = {
    "text answer": ["record", "record", "finish_record", "eof"],
    "function call": ["finish_record", "eof"],
}
