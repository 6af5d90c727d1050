"""Ollama's native API (`/api/chat`, `/api/generate`): the lifecycle of one stream.

Every frame is one NDJSON line, a whole object, classified by the decoder:

- `line`: a line with `done: false` (or no `done`): content of a chat line's
  `message` (`content`, `thinking`, `tool_calls`, `images`) or of a generate line
  (`response`, `thinking`);
- `done_line`: the line with `done: true`, which may carry the last content too, and
  `done_reason` and the counts;
- `error`: a line `{"error": "..."}` (the server's failure once the status 200 was
  sent; there is no done line after it);
- `eof`.

Nothing is read after the done line or an error (the server ends the body there).  The
stream is complete once the done line arrived; without one it was cut short.  A body
that is one object with `done: true` (`"stream": false`) is a stream of one line.
"""

NAME = "ollama"
INITIAL = "waiting"
STATES = ["waiting", "streaming", "done", "failed", "complete", "truncated"]
FINAL = ["complete", "truncated", "failed"]
SYMBOLS = ["line", "done_line", "error", "eof"]

GUARDS: dict[str, str] = {}

ACTIONS = {
    "apply_line": "route the line's thinking, text, whole tool calls (each its own item, an id made up when it "
    "has none) and images; take the model",
    "record_done": "remember done_reason; take prompt_eval_count and eval_count, keep the durations in extras",
    "record_error": "the error line's message; what arrived is kept",
}

#: typical complete streams, drawn bold in the diagrams and walked by the tests
HAPPY_PATHS = {
    "chat answer": ["line", "line", "line", "done_line", "eof"],
    "one object (stream: false)": ["done_line", "eof"],
}

_OPEN = ["waiting", "streaming"]

TRANSITIONS = [
    {"trigger": "line", "source": _OPEN, "dest": "streaming", "after": ["apply_line"]},
    {"trigger": "done_line", "source": _OPEN, "dest": "done", "after": ["apply_line", "record_done"]},
    {"trigger": "error", "source": _OPEN, "dest": "failed", "after": ["record_error"]},
    {"trigger": "eof", "source": "done", "dest": "complete"},
    {"trigger": "eof", "source": _OPEN, "dest": "truncated"},
    {"trigger": "eof", "source": "failed", "dest": "failed"},
]
