"""Amazon Bedrock ConverseStream (`POST /model/{id}/converse-stream`): the lifecycle of one stream.

Inputs are AWS event-stream frames, classified by the decoder from the frame's event
name (the `:event-type` header; `exception:<type>` and `error:<code>` for the other
message types, see the framing):

- `message_start` (`messageStart`); `message_stop` (`messageStop`, its `stopReason`);
  `metadata` (`metadata`: usage and metrics, which Bedrock sends after messageStop);
  `error` (an exception or error frame, or the framer's `error:corrupt_frame`); `other`
  (an event nobody knows yet: kept, never fatal) and `eof`;
- `block_start`: a `contentBlockStart` (a tool use, a tool result, an image);
- `block_delta`: a `contentBlockDelta` for the open block (its `contentBlockIndex`, or
  none while a block is open); `new_delta`: one for a block not open yet, an index above
  every index of the message: that is how text and reasoning blocks begin, without a
  start of their own; `stale_delta`: one for a block that already stopped that carries
  content (text, reasoning, a signature, tool input or a citation: done content would
  change); `late_event`: one for a block that already stopped that changes nothing done
  (a delta of a kind nobody knows yet, or an empty one);
- `block_stop`: a `contentBlockStop` for the open block; `stray_stop`: any other.

Blocks never overlap.  The stop reason arrives before the usage, so the stream waits in
`stopped` for `metadata`; a body that ends there is complete without usage (noted), and
`metadata` before `messageStop` is taken too.  Lenient lifecycle, as for Anthropic: a
stream without `messageStart` (`imply_message`), a block left open when the next begins
or the message stops (`close_open_block`), a stop for no open block (`note_stray_stop`)
are recovered and noted, and an event for a block that already stopped that changes
nothing done is a side event of that block (`note_late_event`); a contradiction
(content for a block that already stopped, a block after `messageStop`) is a protocol error naming the state and the event, and
what was assembled is kept.  Nothing is read after `metadata` that follows the stop, an
exception or an error.  No `messageStop` means the stream was cut short.
"""

NAME = "bedrock_converse"
INITIAL = "waiting"
STATES = ["waiting", "message", "block", "metered", "stopped", "done", "failed", "complete", "truncated"]
FINAL = ["complete", "truncated", "failed"]
SYMBOLS = [
    "message_start",
    "block_start",
    "block_delta",
    "new_delta",
    "stale_delta",
    "late_event",
    "block_stop",
    "stray_stop",
    "message_stop",
    "metadata",
    "error",
    "other",
    "eof",
]

GUARDS: dict[str, str] = {}

ACTIONS = {
    "imply_message": "recovery: the first frame implies the missing messageStart",
    "take_message": "a new message: forget the block indexes of the last",
    "open_block": "open the block its start names: a client tool use opens a call (its toolUseId and name); "
    "a server tool use, a tool result and anything else go to the side channel; an image is inline data",
    "open_by_delta": "a block that begins with its first delta: text, reasoning, or what the delta names",
    "apply_delta": "route the delta by its member: text, reasoningContent (text, signature, redactedContent), "
    "toolUse input fragments, citation, toolResult and image",
    "close_block": "attach the gathered signature or citations, close the block's item or emit the side channel's done",
    "close_open_block": "recovery: the open block was left open; close it as its stop would",
    "note_stray_stop": "recovery: a stop for no open block changes nothing; noted",
    "note_late_event": "an event for a block that already stopped that changes nothing done: "
    "a side event (info) of that block, noted as late_event",
    "record_stop": "remember stopReason; keep additionalModelResponseFields in extras",
    "take_metadata": "take usage (inputTokens with cache writes, cacheReadInputTokens, outputTokens); "
    "keep metrics, trace and the rest in extras",
    "note_no_metadata": "the body ended after messageStop without metadata: complete, without usage (noted)",
    "record_error": "the exception's type and message (or the error frame's code); content already received is kept",
    "note_other": "keep an unknown event on the side channel and note it as an anomaly",
}

#: typical complete streams, drawn bold in the diagrams and walked by the tests
HAPPY_PATHS = {
    "text answer": ["message_start", "new_delta", "block_delta", "block_delta", "block_stop", "message_stop", "metadata", "eof"],
    "reasoning, then a tool use": [
        "message_start", "new_delta", "block_delta", "block_stop", "block_start", "block_delta", "block_stop",
        "message_stop", "metadata", "eof",
    ],
}

_LIVE = ["waiting", "message", "block", "metered", "stopped"]
_OPENING = ["waiting", "message", "block"]

TRANSITIONS = [
    # the message
    {"trigger": "message_start", "source": "waiting", "dest": "message", "after": ["take_message"]},
    {"trigger": "message_stop", "source": "message", "dest": "stopped", "after": ["record_stop"]},
    {"trigger": "metadata", "source": "stopped", "dest": "done", "after": ["take_metadata"]},
    # metadata before messageStop
    {"trigger": "metadata", "source": "message", "dest": "metered", "after": ["take_metadata"]},
    {"trigger": "message_stop", "source": "metered", "dest": "done", "after": ["record_stop"]},
    # blocks, one at a time; text and reasoning blocks begin with their first delta
    {"trigger": "block_start", "source": "message", "dest": "block", "after": ["open_block"]},
    {"trigger": "new_delta", "source": "message", "dest": "block", "after": ["open_by_delta", "apply_delta"]},
    {"trigger": "block_delta", "source": "block", "dest": "block", "after": ["apply_delta"]},
    {"trigger": "block_stop", "source": "block", "dest": "message", "after": ["close_block"]},
    # recovery: the message never started
    {"trigger": "block_start", "source": "waiting", "dest": "block", "after": ["imply_message", "open_block"]},
    {"trigger": "new_delta", "source": "waiting", "dest": "block", "after": ["imply_message", "open_by_delta", "apply_delta"]},
    {"trigger": "message_stop", "source": "waiting", "dest": "stopped", "after": ["imply_message", "record_stop"]},
    # recovery: a block left open
    {"trigger": "block_start", "source": "block", "dest": "block", "after": ["close_open_block", "open_block"]},
    {"trigger": "new_delta", "source": "block", "dest": "block", "after": ["close_open_block", "open_by_delta", "apply_delta"]},
    {"trigger": "message_stop", "source": "block", "dest": "stopped", "after": ["close_open_block", "record_stop"]},
    {"trigger": "metadata", "source": "block", "dest": "metered", "after": ["close_open_block", "take_metadata"]},
    {"trigger": "stray_stop", "source": _OPENING, "dest": "=", "after": ["note_stray_stop"]},
    # lenient: an earlier block's event that changes nothing done (content would be a contradiction)
    {"trigger": "late_event", "source": ["message", "block", "metered", "stopped"], "dest": "=", "after": ["note_late_event"]},
    # anywhere before the end
    {"trigger": "other", "source": _LIVE, "dest": "=", "after": ["note_other"]},
    {"trigger": "error", "source": _LIVE, "dest": "failed", "after": ["record_error"]},
    # the end
    {"trigger": "eof", "source": "done", "dest": "complete"},
    {"trigger": "eof", "source": "stopped", "dest": "complete", "after": ["note_no_metadata"]},
    {"trigger": "eof", "source": ["waiting", "message", "block", "metered"], "dest": "truncated"},
    {"trigger": "eof", "source": "failed", "dest": "failed"},
]
