"""JSON-array framing: one array written as it is produced, each element a frame.

Gemini's `streamGenerateContent` without `alt=sse` answers `application/json` with one
array whose elements arrive one by one (`[{...}` then `,\\r\\n{...}` ... `]`).  Inputs
are what the framer finds scanning the bytes (whitespace is skipped and no symbol):

  open     the `[` that starts the body
  text     anything else before it: the body is not an array
  value    the first byte of an element
  done     the element's last byte (its brackets and quotes balanced)
  comma    a `,` between elements
  close    the `]` that ends the array
  junk     any other byte between elements, or after the array
  eof      end of input

States: `before` (nothing but whitespace yet), `not_array` (a body that is not an
array: kept, capped, for a `not_event_stream` outcome), `between` (inside the array,
between elements), `element`, `after` (the array ended) and `ended`.  A body that ends
before its `]` was cut (`mark_cut`): the stream is truncated whatever came before.
"""

NAME = "json_array"
INITIAL = "before"
STATES = ["before", "not_array", "between", "element", "after", "ended"]
FINAL = ["ended"]
SYMBOLS = ["open", "text", "value", "done", "comma", "close", "junk", "eof"]

GUARDS: dict[str, str] = {}

ACTIONS = {
    "keep_body": "keep the bytes as the body a not_event_stream outcome reports (capped)",
    "start_element": "an element begins here: its bytes are gathered as they arrive",
    "dispatch": "hand the complete element to the protocol as a frame",
    "skip_junk": "skip a byte that belongs to no element, and count it",
    "ignore_after": "count what follows the array's end: it is not read",
    "mark_cut": "the body ended inside the array: the stream was cut",
}

TRANSITIONS = [
    {"trigger": "open", "source": "before", "dest": "between"},
    {"trigger": "text", "source": ["before", "not_array"], "dest": "not_array", "after": ["keep_body"]},
    {"trigger": "value", "source": "between", "dest": "element", "after": ["start_element"]},
    {"trigger": "done", "source": "element", "dest": "between", "after": ["dispatch"]},
    {"trigger": "comma", "source": "between", "dest": "between"},
    {"trigger": "junk", "source": "between", "dest": "between", "after": ["skip_junk"]},
    {"trigger": "close", "source": "between", "dest": "after"},
    {"trigger": "junk", "source": "after", "dest": "after", "after": ["ignore_after"]},
    {"trigger": "eof", "source": ["before", "not_array", "after"], "dest": "ended"},
    {"trigger": "eof", "source": ["between", "element"], "dest": "ended", "after": ["mark_cut"]},
]

HAPPY_PATHS = {
    "two elements": ["open", "value", "done", "comma", "value", "done", "close", "eof"],
}
