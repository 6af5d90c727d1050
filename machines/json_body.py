"""JSON-body framing: a response that is one JSON value, not a stream.

Embedding endpoints (`/v1/embeddings`, `:embedContent`, `:batchEmbedContents`) answer
`application/json` with one object, split by the network anyhow.  The whole value is
the one frame.  Inputs are what the framer finds:

  open      the `{` or `[` that starts the body (whitespace and a BOM before it skipped)
  text      any other first byte: the body is not JSON
  more      the bytes of a later push
  end       the input ended while gathering the value
  read      the protocol read the value
  cut       the value did not parse and its brackets never closed: the body was cut
  broken    the value did not parse though its brackets closed (or something follows
            it): not JSON after all
  eof       end of input, last

States: `before` (nothing but whitespace yet), `value` (gathering the body),
`not_json` (a body that is no JSON: kept, capped, for a `not_event_stream` outcome),
`handed` (the body went to the protocol, waiting for its verdict), `over` and `ended`.
"""

NAME = "json_body"
INITIAL = "before"
STATES = ["before", "value", "not_json", "handed", "over", "ended"]
FINAL = ["ended"]
SYMBOLS = ["open", "text", "more", "end", "read", "cut", "broken", "eof"]

GUARDS: dict[str, str] = {}

ACTIONS = {
    "gather": "keep the bytes: the value is read once it is whole",
    "keep_body": "keep the bytes as the body a not_event_stream outcome reports (capped)",
    "dispatch": "hand the whole body to the protocol as its one frame",
    "mark_cut": "the body ended inside the value: the response was cut",
}

TRANSITIONS = [
    {"trigger": "open", "source": "before", "dest": "value", "after": ["gather"]},
    {"trigger": "text", "source": "before", "dest": "not_json", "after": ["keep_body"]},
    {"trigger": "more", "source": "value", "dest": "value", "after": ["gather"]},
    {"trigger": "more", "source": "not_json", "dest": "not_json", "after": ["keep_body"]},
    {"trigger": "end", "source": "value", "dest": "handed", "after": ["dispatch"]},
    {"trigger": "read", "source": "handed", "dest": "over"},
    {"trigger": "cut", "source": "handed", "dest": "over", "after": ["mark_cut"]},
    {"trigger": "broken", "source": "handed", "dest": "over", "after": ["keep_body"]},
    {"trigger": "eof", "source": ["before", "not_json", "over"], "dest": "ended"},
]

HAPPY_PATHS = {
    "one body in pieces": ["open", "more", "more", "end", "read", "eof"],
}
