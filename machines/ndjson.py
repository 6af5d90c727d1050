"""NDJSON framing (`application/x-ndjson`): one JSON object per `\\n`-terminated line.

Ollama's `/api/chat` and `/api/generate` stream this way: each line is one object,
lines split anywhere by the network.  Inputs are line kinds, never bytes: the runtime
finds line ends with `bytes.find` (a `\\r` before the `\\n` is JSON whitespace and
stays), strips the body's leading BOMs, and classifies each complete line:

  object    a line whose first byte that is not whitespace is `{`: a frame
  blank     a line of whitespace only
  other     any other line (an HTML error page, SSE, plain text)
  tail      at end of input, an object line with no `\\n` after it
  read      the protocol read the line just handed to it
  broken    it did not parse (a whole line, or a tail whose brackets closed)
  cut       a tail that did not parse and whose brackets never closed: the body was cut
  eof       end of input, last

States: `start` (nothing but blank lines yet), `body` (lines that are no JSON object
came before any object was read: kept, capped, as the body a `not_event_stream`
outcome reports), `first` (an object line before any was read went to the protocol:
its verdict says whether this is a stream of JSON lines after all), `lines` (inside
the stream), `handed` (the tail went to the protocol, waiting for its verdict) and
`ended`.  Inside the stream a line that is no JSON object is a junk frame (skipped,
counted), and so is an object line the protocol cannot parse; before it, such lines
are the body (a pretty-printed JSON document has lines that start with `{`).
"""

NAME = "ndjson"
INITIAL = "start"
STATES = ["start", "body", "first", "lines", "handed", "ended"]
FINAL = ["ended"]
SYMBOLS = ["object", "blank", "other", "tail", "read", "broken", "cut", "eof"]

GUARDS: dict[str, str] = {}

ACTIONS = {
    "dispatch": "hand the line to the protocol as a frame",
    "keep_body_line": "add the line to the non-NDJSON body while the body is under its cap",
    "drop_body": "forget the body kept so far: this is a stream of JSON lines after all",
    "skip_line": "a line that is no JSON object inside the stream: a junk frame, counted",
    "mark_cut": "the body ended inside its last line: the stream was cut",
}

#: typical complete streams, drawn bold in the diagrams and walked by the tests
HAPPY_PATHS = {
    "lines": ["object", "read", "object", "object", "eof"],
    "one object without its line end": ["tail", "read", "eof"],
}

_OPEN = ["start", "body", "lines"]
_BEFORE = ["start", "body"]

TRANSITIONS = [
    # before the first object the protocol read
    {"trigger": "object", "source": _BEFORE, "dest": "first", "after": ["dispatch"]},
    {"trigger": "tail", "source": _BEFORE, "dest": "first", "after": ["dispatch"]},
    {"trigger": "read", "source": "first", "dest": "lines", "after": ["drop_body"]},
    {"trigger": "broken", "source": "first", "dest": "body", "after": ["keep_body_line"]},
    {"trigger": "cut", "source": "first", "dest": "lines", "after": ["drop_body", "mark_cut"]},
    {"trigger": "other", "source": _BEFORE, "dest": "body", "after": ["keep_body_line"]},
    {"trigger": "blank", "source": _OPEN, "dest": "="},
    # inside the stream
    {"trigger": "object", "source": "lines", "dest": "lines", "after": ["dispatch"]},
    {"trigger": "other", "source": "lines", "dest": "lines", "after": ["skip_line"]},
    {"trigger": "tail", "source": "lines", "dest": "handed", "after": ["dispatch"]},
    {"trigger": "read", "source": "handed", "dest": "lines"},
    {"trigger": "broken", "source": "handed", "dest": "lines", "after": ["skip_line"]},
    {"trigger": "cut", "source": "handed", "dest": "lines", "after": ["mark_cut"]},
    {"trigger": "eof", "source": _OPEN, "dest": "ended"},
]
