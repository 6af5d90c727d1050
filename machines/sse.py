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
  named    an `event:` line named the next frame; no data yet
  gather   `data:` lines are being gathered for the next frame
  ended    end of input

A frame is dispatched at its blank line, or at end of input without one.  A body that
ends while a frame is open (`named`, or `gather` when the last frame does not parse)
was cut inside that frame: `mark_cut` makes the stream truncated whatever came before.

`id:` and `retry:` are ignored everywhere (a resumable stream's bookkeeping, not
content) and, like comments, do not mark the body as SSE.
"""

NAME = "sse"
INITIAL = "start"
STATES = ["start", "body", "idle", "named", "gather", "ended"]
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
    "mark_cut": "the body ended inside a frame: the stream was cut",
}

#: typical complete streams, drawn bold in the diagrams and walked by the tests
HAPPY_PATHS = {
    "named frames": ["event", "data", "blank", "event", "data", "data", "blank", "eof"],
    "data-only frames": ["data", "blank", "data", "blank", "eof"],
}

_ANY_OPEN = ["start", "body", "idle", "named", "gather"]

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
    {"trigger": "event", "source": "start", "dest": "named", "after": ["set_event"]},
    {"trigger": "event", "source": "body", "dest": "named", "after": ["drop_body", "set_event"]},
    # Inside the event stream.
    {"trigger": "data", "source": ["idle", "named", "gather"], "dest": "gather", "after": ["append_data"]},
    {"trigger": "event", "source": ["idle", "named"], "dest": "named", "after": ["set_event"]},
    {"trigger": "event", "source": "gather", "dest": "gather", "after": ["set_event"]},
    {"trigger": "other", "source": ["idle", "named", "gather"], "dest": "="},
    {"trigger": "blank", "source": "idle", "dest": "idle"},
    {"trigger": "blank", "source": "named", "dest": "idle", "after": ["clear_event"]},
    {"trigger": "blank", "source": "gather", "dest": "idle", "after": ["dispatch"]},
    # End of input: a frame still gathering is dispatched without its blank line.
    {"trigger": "eof", "source": ["start", "body", "idle"], "dest": "ended"},
    {"trigger": "eof", "source": "named", "dest": "ended", "after": ["mark_cut"]},
    {"trigger": "eof", "source": "gather", "dest": "ended", "after": ["dispatch"]},
]
