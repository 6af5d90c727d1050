"""AWS event-stream framing (`application/vnd.amazon.eventstream`): binary frames.

Amazon Bedrock's ConverseStream and InvokeModelWithResponseStream answer with frames
back to back, split anywhere by the network.  A frame, integers big-endian: total
length (4 bytes), headers length (4), the CRC32 of those 8 bytes (4): the prelude; then
the headers, the payload, and the CRC32 of everything before it (4).  Inputs are what
the framer finds, never single bytes (it reads lengths and slices):

  prelude      a frame's 12 prelude bytes: their CRC holds and the lengths fit
  bad_prelude  12 prelude bytes whose CRC fails or whose lengths do not fit together
  frame        the whole frame: its message CRC holds and its headers parse
  bad_crc      the whole frame, whose message CRC fails
  bad_headers  the whole frame, whose headers do not parse (a type over 9, a header
               running past the block, a name given twice)
  more         bytes of a later push, after the reading stopped
  cut          the input ended inside a frame (or, before any frame, inside 12 bytes)
  eof          end of input, last

States: `start` (no frame yet), `not_stream` (the first 12 bytes are no prelude: the
body is no event stream, an HTML or JSON error page; kept, capped, for a
`not_event_stream` outcome), `between` (between frames), `message` (a prelude was read:
gathering the rest of its frame), `corrupt` (a frame failed its checks after the stream
began: reported once as a `corrupt_frame` error, nothing after it is read) and `ended`.
A length over the frame cap raises FrameTooLargeError at the prelude, before anything
is gathered.
"""

NAME = "aws_eventstream"
INITIAL = "start"
STATES = ["start", "not_stream", "between", "message", "corrupt", "ended"]
FINAL = ["ended"]
SYMBOLS = ["prelude", "bad_prelude", "frame", "bad_crc", "bad_headers", "more", "cut", "eof"]

GUARDS: dict[str, str] = {}

ACTIONS = {
    "keep_body": "keep the bytes as the body a not_event_stream outcome reports (capped)",
    "dispatch": "hand the frame to the protocol: its name from the :event-type header (exception:<type> "
    "and error:<code> for the other message types), its payload",
    "report_corrupt": "hand the protocol one error:corrupt_frame frame saying which check failed",
    "mark_cut": "the body ended inside a frame: the stream was cut",
}

#: typical complete streams, drawn bold in the diagrams and walked by the tests
HAPPY_PATHS = {
    "frames": ["prelude", "frame", "prelude", "frame", "prelude", "frame", "eof"],
}

TRANSITIONS = [
    {"trigger": "prelude", "source": ["start", "between"], "dest": "message"},
    {"trigger": "frame", "source": "message", "dest": "between", "after": ["dispatch"]},
    # the first 12 bytes are no prelude: no event stream at all
    {"trigger": "bad_prelude", "source": "start", "dest": "not_stream", "after": ["keep_body"]},
    {"trigger": "cut", "source": "start", "dest": "not_stream", "after": ["keep_body"]},
    {"trigger": "more", "source": "not_stream", "dest": "not_stream", "after": ["keep_body"]},
    # a frame that fails its checks once the stream began
    {"trigger": "bad_prelude", "source": "between", "dest": "corrupt", "after": ["report_corrupt"]},
    {"trigger": "bad_crc", "source": "message", "dest": "corrupt", "after": ["report_corrupt"]},
    {"trigger": "bad_headers", "source": "message", "dest": "corrupt", "after": ["report_corrupt"]},
    {"trigger": "more", "source": "corrupt", "dest": "corrupt"},
    # the end
    {"trigger": "cut", "source": ["between", "message"], "dest": "between", "after": ["mark_cut"]},
    {"trigger": "eof", "source": ["start", "not_stream", "between", "corrupt"], "dest": "ended"},
]
