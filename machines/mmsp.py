"""MMSP's own wire (`POST /v1/stream`): the lifecycle of a stream an MMSP server sends.

Each SSE `data:` block is one UniEvent as MMSP's JSON (`: keep-alive` comments while
the model is silent), then `data: [DONE]`.  Inputs are frames classified by the decoder:

- `delta`: a delta event that parses as a UniEvent and keeps the group grammar;
- `stop`: the stop event, likewise;
- `invalid`: a frame that is no UniEvent, or one that breaks the grammar (a group that
  interleaves, a done that does not match its deltas, anything after the stop): the
  server is at fault, and the stream fails naming the event, state and rule;
- `error`: `{"error": {"type", "message", ...}}`, MMSP's error family on the wire;
- `done_sentinel` (`data: [DONE]`) and `eof`.

A stop event then `[DONE]` (or the end) is complete; `[DONE]` or the end without a stop
is a server-side cancel or a cut: truncated.
"""

NAME = "mmsp"
INITIAL = "waiting"
STATES = ["waiting", "streaming", "stopped", "done", "ended_early", "failed", "complete", "truncated"]
FINAL = ["complete", "truncated", "failed"]
SYMBOLS = ["delta", "stop", "invalid", "error", "done_sentinel", "eof"]

GUARDS: dict[str, str] = {}

ACTIONS = {
    "forward": "the event goes out as the server sent it (its created_at kept)",
    "forward_stop": "the stop event goes out; its usage and finish reason are the outcome's",
    "record_violation": "the server broke the grammar or sent no UniEvent: a protocol_error naming it",
    "record_error": "the error's type, message and the fields of its type",
}

_OPEN = ["waiting", "streaming"]

TRANSITIONS = [
    {"trigger": "delta", "source": _OPEN, "dest": "streaming", "after": ["forward"]},
    {"trigger": "stop", "source": _OPEN, "dest": "stopped", "after": ["forward_stop"]},
    {"trigger": "invalid", "source": [*_OPEN, "stopped"], "dest": "failed", "after": ["record_violation"]},
    {"trigger": "error", "source": [*_OPEN, "stopped"], "dest": "failed", "after": ["record_error"]},
    {"trigger": "done_sentinel", "source": "stopped", "dest": "done"},
    {"trigger": "done_sentinel", "source": _OPEN, "dest": "ended_early"},
    {"trigger": "eof", "source": ["stopped", "done"], "dest": "complete"},
    {"trigger": "eof", "source": [*_OPEN, "ended_early"], "dest": "truncated"},
    {"trigger": "eof", "source": "failed", "dest": "failed"},
]

HAPPY_PATHS = {
    "text answer": ["delta", "delta", "stop", "done_sentinel", "eof"],
    "tool call": ["delta", "delta", "delta", "stop", "done_sentinel", "eof"],
}
