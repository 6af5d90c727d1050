"""Anthropic Messages: the lifecycle of one streamed response.

Inputs are frames, classified by the decoder from the data's `type` (else the
`event:` name):

- `message_start`; `message_delta` (no stop reason) and `finish_delta` (a non-empty
  `stop_reason`); `message_stop`; `ping`; `error` (an error frame, `event: error`, or
  a non-null top-level `error`); `other` (a frame type nobody knows yet: kept, never
  fatal); `done_sentinel` (`data: [DONE]` from gateways) and `eof`;
- `block_start`: a `content_block_start`; `late_start`: one for the open block when
  that block was implied by its deltas (its name and id arrive late);
- `block_delta`: a `content_block_delta` for the open block (its `index`, or no index
  while a block is open); `new_delta`: one for a block never started (an index above
  every index of this message, or no index while no block is open); `stale_delta`:
  one for a block that already stopped that carries content (more text, thinking,
  signature, input or a citation: done content would change); `late_event`: one for a
  block that already stopped that changes nothing done (a delta type nobody knows yet,
  or an empty one);
- `block_stop`: a `content_block_stop` for the open block; `stray_stop`: any other.

Blocks never overlap.  Strict semantics, lenient lifecycle: a lifecycle frame that is
missing but certain is recovered by a declared transition, each recorded as one
aggregated anomaly: a stream without `message_start` (`imply_message`), a delta for a
block never started (`imply_block`, its kind from the delta's type), a block left open
when the next starts or the message ends (`close_open_block`), a stop for no open block
(`note_stray_stop`), an event for a block that already stopped that changes nothing
done (`note_late_event`, a side event of that block).  Only a contradiction ends the
stream `failed` (content for a block that already stopped, a block after the stop reason): anything undeclared is a protocol
error naming the state and the event, and what was assembled is kept.  A new
`message_start` may come whenever no block is open (programmatic tool calling streams
several messages in one response).  The stream is complete once `message_stop`
arrived or a stop reason was recorded; otherwise it was cut short.  Reading goes on
after `message_stop` (another message may follow), but not after `[DONE]` or an error.
"""

NAME = "anthropic"
INITIAL = "waiting"
STATES = [
    "waiting",
    "message",
    "block",
    "finished",
    "stopped",
    "done",
    "ended_early",
    "failed",
    "complete",
    "truncated",
]
FINAL = ["complete", "truncated", "failed"]
SYMBOLS = [
    "message_start",
    "block_start",
    "late_start",
    "block_delta",
    "new_delta",
    "stale_delta",
    "late_event",
    "block_stop",
    "stray_stop",
    "message_delta",
    "finish_delta",
    "message_stop",
    "ping",
    "error",
    "other",
    "done_sentinel",
    "eof",
]

GUARDS: dict[str, str] = {}

ACTIONS = {
    "imply_message": "recovery: the first frame implies the missing message_start",
    "take_message": "take the model and usage of message_start; a new message forgets the old block indexes",
    "open_block": "open the block: text, thinking, redacted_thinking and tool_use open an item; "
    "any other type goes to the side channel",
    "close_open_block": "recovery: the open block was left open; close it as its stop would",
    "imply_block": "recovery: open the block a delta names, its kind from the delta type (text_delta text, "
    "thinking_delta / signature_delta thinking, input_json_delta a tool call named when its start comes)",
    "adopt_start": "the late start of an implied block: take its type, name and id",
    "apply_delta": "route the delta by its type within the open block "
    "(text, thinking, signature, input JSON, citations, server-block deltas)",
    "close_block": "attach the gathered signature / citations, close the block's item or emit the side channel's done",
    "note_stray_stop": "recovery: a stop for no open block changes nothing; noted",
    "note_late_event": "an event for a block that already stopped that changes nothing done: "
    "a side event (info) of that block, noted as late_event",
    "take_usage": "take message_delta's cumulative usage (overwrite; a zero never erases a count)",
    "record_finish": "remember stop_reason (the newest wins)",
    "note_other": "keep an unknown frame on the side channel (phase info) and note it as an anomaly",
    "record_error": "remember the provider's error type and message; content already received is kept",
}

#: typical complete streams, drawn bold in the diagrams and walked by the tests
HAPPY_PATHS = {
    "text answer": [
        "message_start", "block_start", "block_delta", "block_delta", "block_stop",
        "message_delta", "finish_delta", "message_stop", "eof",
    ],
    "thinking, then a tool call": [
        "message_start", "block_start", "block_delta", "block_delta", "block_stop",
        "block_start", "block_delta", "block_stop", "finish_delta", "message_stop", "eof",
    ],
}

_LIVE = ["waiting", "message", "block", "finished", "stopped"]
# no block open: a (new) message may start
_BETWEEN_MESSAGES = ["waiting", "message", "finished", "stopped"]
# no block open, the message started: message_delta / message_stop may come
_ENDING = ["message", "finished"]
_IMPLY_BLOCK = ["imply_block", "apply_delta"]

TRANSITIONS = [
    # the message
    {"trigger": "message_start", "source": _BETWEEN_MESSAGES, "dest": "message", "after": ["take_message"]},
    {"trigger": "message_start", "source": "block", "dest": "message", "after": ["close_open_block", "take_message"]},
    # blocks, one at a time
    {"trigger": "block_start", "source": "message", "dest": "block", "after": ["open_block"]},
    {"trigger": "block_delta", "source": "block", "dest": "block", "after": ["apply_delta"]},
    {"trigger": "block_stop", "source": "block", "dest": "message", "after": ["close_block"]},
    {"trigger": "message_delta", "source": _ENDING, "dest": "=", "after": ["take_usage"]},
    {"trigger": "finish_delta", "source": _ENDING, "dest": "finished", "after": ["take_usage", "record_finish"]},
    {"trigger": "message_stop", "source": _ENDING, "dest": "stopped"},
    # recovery: the message never started
    {"trigger": "block_start", "source": ["waiting", "stopped"], "dest": "block", "after": ["imply_message", "open_block"]},
    {"trigger": "new_delta", "source": ["waiting", "stopped"], "dest": "block", "after": ["imply_message", *_IMPLY_BLOCK]},
    {"trigger": "message_delta", "source": "waiting", "dest": "message", "after": ["imply_message", "take_usage"]},
    {"trigger": "finish_delta", "source": "waiting", "dest": "finished", "after": ["imply_message", "take_usage", "record_finish"]},
    {"trigger": "message_stop", "source": "waiting", "dest": "stopped", "after": ["imply_message"]},
    # recovery: a block never started, or left open
    {"trigger": "new_delta", "source": "message", "dest": "block", "after": _IMPLY_BLOCK},
    {"trigger": "new_delta", "source": "block", "dest": "block", "after": ["close_open_block", *_IMPLY_BLOCK]},
    {"trigger": "late_start", "source": "block", "dest": "block", "after": ["adopt_start"]},
    {"trigger": "block_start", "source": "block", "dest": "block", "after": ["close_open_block", "open_block"]},
    {"trigger": "message_delta", "source": "block", "dest": "message", "after": ["close_open_block", "take_usage"]},
    {"trigger": "finish_delta", "source": "block", "dest": "finished", "after": ["close_open_block", "take_usage", "record_finish"]},
    {"trigger": "message_stop", "source": "block", "dest": "stopped", "after": ["close_open_block"]},
    {"trigger": "stray_stop", "source": ["waiting", "message", "block"], "dest": "=", "after": ["note_stray_stop"]},
    # lenient: an earlier block's event that changes nothing done (content would be a contradiction)
    {"trigger": "late_event", "source": ["message", "block", "finished", "stopped"], "dest": "=", "after": ["note_late_event"]},
    # anywhere before the end
    {"trigger": "ping", "source": _LIVE, "dest": "="},
    {"trigger": "other", "source": _LIVE, "dest": "=", "after": ["note_other"]},
    {"trigger": "error", "source": _LIVE, "dest": "failed", "after": ["record_error"]},
    # the end
    {"trigger": "done_sentinel", "source": ["finished", "stopped"], "dest": "done"},
    {"trigger": "done_sentinel", "source": ["waiting", "message", "block"], "dest": "ended_early"},
    {"trigger": "eof", "source": ["finished", "stopped", "done"], "dest": "complete"},
    {"trigger": "eof", "source": ["waiting", "message", "block", "ended_early"], "dest": "truncated"},
    {"trigger": "eof", "source": "failed", "dest": "failed"},
]
