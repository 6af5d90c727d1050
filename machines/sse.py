"""Server-sent-events framing, one line at a time.

Inputs are line kinds, never bytes: the runtime finds line ends with `bytes.find`
(`\\n`, `\\r\\n` or a lone `\\r`), strips a leading BOM from the first line, and
classifies each complete line into one of SYMBOLS.  This module owns what each kind
of line does in each state: which lines gather data, which dispatch a frame, which
mark the body as an event stream, and which are kept as a non-SSE body (an HTML
error page or a JSON error returned with status 200).

States:
  start    nothing but blank lines and comments so far
  body     lines that are not SSE arrived before any SSE line: kept, capped, as the
           body a `not_event_stream` outcome reports
  idle     inside an event stream, between frames
  gather   `data:` lines are being gathered for the next frame
  ended    end of input (the decoder also stops feeding lines after `[DONE]`)

`id:` and `retry:` are ignored everywhere (a resumable stream's bookkeeping, not
content) and, like comments, do not mark the body as SSE.
"""

NAME = "sse"
INITIAL = "start"
STATES = ["start", "body", "idle", "gather", "ended"]
FINAL = ["ended"]

SYMBOLS = ["blank", "comment", "data", "event", "id", "retry", "other", "eof"]

GUARDS: dict[str, str] = {}

ACTIONS = {
    "keep_body_line": "add the line to the non-SSE body while the body is under its cap",
    "drop_body": "forget the non-SSE body: this is an event stream after all",
    "append_data": "append the field value to the frame's data lines",
    "set_event": "remember the event name for the next frame",
    "dispatch": "hand the gathered frame (event name, data lines) to the protocol; reset both",
    "clear_event": "forget a pending event name that no data followed",
}

_ANY_OPEN = ["start", "body", "idle", "gather"]

TRANSITIONS = [
    # Lines that never change anything.
    {"trigger": "comment", "source": _ANY_OPEN, "dest": "="},
    {"trigger": "id", "source": _ANY_OPEN, "dest": "="},
    {"trigger": "retry", "source": _ANY_OPEN, "dest": "="},
    # Before the first SSE line.
    {"trigger": "blank", "source": "start", "dest": "start"},
    {"trigger": "blank", "source": "body", "dest": "body"},
    {"trigger": "other", "source": "start", "dest": "body", "after": ["keep_body_line"]},
    {"trigger": "other", "source": "body", "dest": "body", "after": ["keep_body_line"]},
    {"trigger": "data", "source": "start", "dest": "gather", "after": ["append_data"]},
    {"trigger": "data", "source": "body", "dest": "gather", "after": ["drop_body", "append_data"]},
    {"trigger": "event", "source": "start", "dest": "idle", "after": ["set_event"]},
    {"trigger": "event", "source": "body", "dest": "idle", "after": ["drop_body", "set_event"]},
    # Inside the event stream.
    {"trigger": "data", "source": "idle", "dest": "gather", "after": ["append_data"]},
    {"trigger": "data", "source": "gather", "dest": "gather", "after": ["append_data"]},
    {"trigger": "event", "source": "idle", "dest": "idle", "after": ["set_event"]},
    {"trigger": "event", "source": "gather", "dest": "gather", "after": ["set_event"]},
    {"trigger": "other", "source": "idle", "dest": "idle"},
    {"trigger": "other", "source": "gather", "dest": "gather"},
    {"trigger": "blank", "source": "idle", "dest": "idle", "after": ["clear_event"]},
    {"trigger": "blank", "source": "gather", "dest": "idle", "after": ["dispatch"]},
    # End of input: a frame still gathering is dispatched without its blank line.
    {"trigger": "eof", "source": ["start", "body", "idle"], "dest": "ended"},
    {"trigger": "eof", "source": "gather", "dest": "ended", "after": ["dispatch"]},
]
