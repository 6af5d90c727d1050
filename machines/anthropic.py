"""Anthropic Messages: the lifecycle of one streamed response.

Inputs are frames, classified by the decoder from the data's `type` (else the
`event:` name): `message_start`; `block_start` (a `content_block_start` while no
block is open); `block_delta` / `block_stop` (a `content_block_delta` /
`content_block_stop` whose `index` is the open block's) and their strays
`stray_delta` / `stray_stop` (any other index: a block never started, already
stopped, or a frame with no usable index); `message_delta` (no stop reason) and
`finish_delta` (a non-empty `stop_reason`); `message_stop`; `ping`; `error` (an
error frame, `event: error`, or a non-null top-level `error`); `other` (a frame type
nobody knows yet: kept, never fatal); `done_sentinel` (`data: [DONE]` from
gateways) and `eof`.

Blocks never overlap: a start while one is open, a delta or stop for another index,
a block left open across `message_delta` / `message_stop` is undeclared, and
anything undeclared ends the stream `failed` (a protocol error naming the state and
the event).  A new `message_start` may come whenever no block is open (programmatic
tool calling streams several messages in one response).  The stream is complete
once `message_stop` arrived or a stop reason was recorded; otherwise it was cut
short.  Reading goes on after `message_stop` (another message may follow), but not
after `[DONE]` or an error.
"""

NAME = "anthropic"
INITIAL = "waiting"
STATES = ["waiting", "message", "block", "finished", "stopped", "done", "failed", "complete", "truncated"]
FINAL = ["complete", "truncated", "failed"]
SYMBOLS = [
    "message_start",
    "block_start",
    "block_delta",
    "block_stop",
    "stray_delta",
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
    "take_message": "take the model and usage of message_start; a new message forgets the old block index",
    "open_block": "open the block: text, thinking, redacted_thinking and tool_use open an item; "
    "any other type goes to the side channel",
    "apply_delta": "route the delta by its type within the open block "
    "(text, thinking, signature, input JSON, citations, server-block deltas)",
    "close_block": "attach the gathered signature / citations, close the block's item or emit the side channel's done",
    "take_usage": "take message_delta's cumulative usage (overwrite; a zero never erases a count)",
    "record_finish": "remember stop_reason (the newest wins)",
    "note_other": "keep an unknown frame on the side channel (phase info) and note it as an anomaly",
    "record_error": "remember the provider's error type and message; content already received is kept",
}

_LIVE = ["waiting", "message", "block", "finished", "stopped"]
# no block open: a (new) message may start
_BETWEEN_MESSAGES = ["waiting", "message", "finished", "stopped"]
# no block open, the message started: message_delta / message_stop may come
_ENDING = ["message", "finished"]

TRANSITIONS = [
    {"trigger": "message_start", "source": _BETWEEN_MESSAGES, "dest": "message", "after": ["take_message"]},
    {"trigger": "block_start", "source": "message", "dest": "block", "after": ["open_block"]},
    {"trigger": "block_delta", "source": "block", "dest": "block", "after": ["apply_delta"]},
    {"trigger": "block_stop", "source": "block", "dest": "message", "after": ["close_block"]},
    {"trigger": "message_delta", "source": _ENDING, "dest": "=", "after": ["take_usage"]},
    {"trigger": "finish_delta", "source": _ENDING, "dest": "finished", "after": ["take_usage", "record_finish"]},
    {"trigger": "message_stop", "source": _ENDING, "dest": "stopped"},
    {"trigger": "ping", "source": _LIVE, "dest": "="},
    {"trigger": "other", "source": _LIVE, "dest": "=", "after": ["note_other"]},
    {"trigger": "error", "source": _LIVE, "dest": "failed", "after": ["record_error"]},
    {"trigger": "done_sentinel", "source": ["finished", "stopped"], "dest": "done"},
    {"trigger": "eof", "source": ["finished", "stopped", "done"], "dest": "complete"},
    {"trigger": "eof", "source": ["waiting", "message", "block"], "dest": "truncated"},
    {"trigger": "eof", "source": "failed", "dest": "failed"},
]
