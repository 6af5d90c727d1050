"""OpenAI-compatible Chat Completions: the lifecycle of one streamed response.

Inputs are frames, classified by the decoder: a `chunk` (anything the provider
streams: content, reasoning, tool-call fragments, usage, heartbeats with no
choices), a `finish_chunk` (a chunk whose `finish_reason` is a non-empty string),
`done_sentinel` (`data: [DONE]`), `error` (a non-null top-level `error`,
`"object": "error"`, or an `event: error` frame) and `eof`.  The final state is the
outcome's end: a finish reason or `[DONE]` makes the stream complete; neither means
it was cut short.  After `[DONE]` or an error nothing more is read.
"""

NAME = "openai_chat"
INITIAL = "waiting"
STATES = ["waiting", "streaming", "finished", "done", "failed", "complete", "truncated"]
FINAL = ["complete", "truncated", "failed"]
SYMBOLS = ["chunk", "finish_chunk", "done_sentinel", "error", "eof"]

GUARDS: dict[str, str] = {}

ACTIONS = {
    "apply_chunk": "route the chunk's reasoning, text and tool-call fragments; take model and usage",
    "record_finish": "remember the provider's finish_reason (the last non-empty one wins)",
    "record_error": "remember the provider's error; text already received is kept",
}

#: typical complete streams, drawn bold in the diagrams and walked by the tests
HAPPY_PATHS = {
    "text answer": ["chunk", "chunk", "chunk", "finish_chunk", "done_sentinel", "eof"],
    "tool call, no [DONE]": ["chunk", "chunk", "finish_chunk", "chunk", "eof"],
}

_OPEN = ["waiting", "streaming", "finished"]

TRANSITIONS = [
    {"trigger": "chunk", "source": ["waiting", "streaming"], "dest": "streaming", "after": ["apply_chunk"]},
    {"trigger": "chunk", "source": "finished", "dest": "finished", "after": ["apply_chunk"]},
    {"trigger": "finish_chunk", "source": _OPEN, "dest": "finished", "after": ["apply_chunk", "record_finish"]},
    {"trigger": "done_sentinel", "source": _OPEN, "dest": "done"},
    {"trigger": "error", "source": _OPEN, "dest": "failed", "after": ["record_error"]},
    {"trigger": "eof", "source": ["finished", "done"], "dest": "complete"},
    {"trigger": "eof", "source": ["waiting", "streaming"], "dest": "truncated"},
    {"trigger": "eof", "source": "failed", "dest": "failed"},
]
