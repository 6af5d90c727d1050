"""Cohere v2 chat (`POST /v2/chat`, `"stream": true`): the lifecycle of one streamed response.

Inputs are SSE frames, classified by the decoder from the data's kebab-case `type`
(else the `event:` name):

- `message_start`; `plan_delta` (a `tool-plan-delta`: the model's plan for a tool turn,
  which has no start or end of its own); `citation_start`, `citation_end`;
  `message_end` (a `message-end` whose finish_reason is not ERROR); `error` (a
  `message-end` with finish_reason ERROR or an `error`, or an error frame); `other` (a
  `debug` frame, or a type nobody knows yet: kept, never fatal); `done_sentinel`
  (`data: [DONE]`, Cohere's last frame) and `eof`;
- `block_start`: a `content-start` (a text or thinking block) or `tool-call-start`;
- `block_delta`: a `content-delta` or `tool-call-delta` for the open block (its family
  and `index`, or no index); `new_delta`: one for a block never started (an index above
  every index of its family); `stale_delta`: one for a block that already ended that
  carries content (more text, thinking or arguments: done content would change);
  `late_event`: one for a block that already ended that changes nothing done (an
  empty one);
- `block_end`: a `content-end` or `tool-call-end` for the open block; `stray_end`: any other.

Blocks never overlap, and a plan is open from its first delta to the next frame of
another kind.  Strict semantics, lenient lifecycle, as for Anthropic: a lifecycle frame
that is missing but certain is recovered by a declared transition, each recorded as one
aggregated anomaly: a stream without `message-start` (`imply_message`), a delta for a
block never started (`imply_block`, its kind from the delta), a block left open when the
next starts or the message ends (`close_open_block`), an end for no open block
(`note_stray_end`), an event for a block that already ended that changes nothing done
(`note_late_event`, a side event of that block).  Only a contradiction ends the stream
`failed` (content for a block that already ended, a block after `message-end`): anything undeclared is a protocol
error naming the state and the event, and what was assembled is kept.  The stream is
complete once `message-end` arrived (with or without the `[DONE]` after it); otherwise
it was cut short.
"""

NAME = "cohere"
INITIAL = "waiting"
STATES = [
    "waiting",
    "message",
    "plan",
    "block",
    "ended",
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
    "block_delta",
    "new_delta",
    "stale_delta",
    "late_event",
    "block_end",
    "stray_end",
    "plan_delta",
    "citation_start",
    "citation_end",
    "message_end",
    "error",
    "other",
    "done_sentinel",
    "eof",
]

GUARDS: dict[str, str] = {}

ACTIONS = {
    "imply_message": "recovery: the first frame implies the missing message-start",
    "take_message": "keep the response id of message-start",
    "open_block": "open the block: a text or thinking content block, or a tool call (named, with its id); "
    "a call without a name goes to the side channel",
    "close_open_block": "recovery: the open block was left open; close it as its end would",
    "close_plan": "the plan ends where a frame of another kind begins: close its thinking item",
    "imply_block": "recovery: open the block a delta names, its kind from the delta (text, thinking, or a call "
    "with no name: the side channel)",
    "apply_delta": "add the delta to the open block: text, thinking, or an arguments fragment",
    "apply_plan": "the plan's text is thinking",
    "close_block": "close the block's item, with the citations gathered while a text block was open as its fidelity",
    "note_stray_end": "recovery: an end for no open block changes nothing; noted",
    "note_late_event": "an event for a block that already ended that changes nothing done: "
    "a side event (info) of that block, noted as late_event",
    "take_citation": "keep the citation for the open text block (the side channel when no text block is open)",
    "take_end": "remember finish_reason; take usage (tokens, cached_tokens; billed_units in extras)",
    "record_error": "the error string of message-end (or the error frame's message); content already received is kept",
    "note_other": "keep the frame on the side channel (a type nobody knows yet is also an anomaly)",
}

#: typical complete streams, drawn bold in the diagrams and walked by the tests
HAPPY_PATHS = {
    "text answer": [
        "message_start", "block_start", "block_delta", "block_delta", "block_end", "message_end",
        "done_sentinel", "eof",
    ],
    "thinking, then text": [
        "message_start", "block_start", "block_delta", "block_end", "block_start", "block_delta",
        "block_end", "message_end", "eof",
    ],
    "tool plan, then a tool call": [
        "message_start", "plan_delta", "plan_delta", "block_start", "block_delta", "block_end",
        "message_end", "done_sentinel", "eof",
    ],
}

# before message-end
_LIVE = ["waiting", "message", "plan", "block"]
_IMPLY_BLOCK = ["imply_block", "apply_delta"]

TRANSITIONS = [
    # the message
    {"trigger": "message_start", "source": "waiting", "dest": "message", "after": ["take_message"]},
    {"trigger": "message_end", "source": "message", "dest": "ended", "after": ["take_end"]},
    # blocks, one at a time, and the plan
    {"trigger": "block_start", "source": "message", "dest": "block", "after": ["open_block"]},
    {"trigger": "block_delta", "source": "block", "dest": "block", "after": ["apply_delta"]},
    {"trigger": "block_end", "source": "block", "dest": "message", "after": ["close_block"]},
    {"trigger": "plan_delta", "source": ["message", "plan"], "dest": "plan", "after": ["apply_plan"]},
    {"trigger": "block_start", "source": "plan", "dest": "block", "after": ["close_plan", "open_block"]},
    {"trigger": "message_end", "source": "plan", "dest": "ended", "after": ["close_plan", "take_end"]},
    {"trigger": "citation_start", "source": _LIVE, "dest": "=", "after": ["take_citation"]},
    {"trigger": "citation_end", "source": _LIVE, "dest": "="},
    # recovery: the message never started
    {"trigger": "block_start", "source": "waiting", "dest": "block", "after": ["imply_message", "open_block"]},
    {"trigger": "new_delta", "source": "waiting", "dest": "block", "after": ["imply_message", *_IMPLY_BLOCK]},
    {"trigger": "plan_delta", "source": "waiting", "dest": "plan", "after": ["imply_message", "apply_plan"]},
    {"trigger": "message_end", "source": "waiting", "dest": "ended", "after": ["imply_message", "take_end"]},
    # recovery: a block never started, or left open
    {"trigger": "new_delta", "source": "message", "dest": "block", "after": _IMPLY_BLOCK},
    {"trigger": "new_delta", "source": "plan", "dest": "block", "after": ["close_plan", *_IMPLY_BLOCK]},
    {"trigger": "new_delta", "source": "block", "dest": "block", "after": ["close_open_block", *_IMPLY_BLOCK]},
    {"trigger": "block_start", "source": "block", "dest": "block", "after": ["close_open_block", "open_block"]},
    {"trigger": "plan_delta", "source": "block", "dest": "plan", "after": ["close_open_block", "apply_plan"]},
    {"trigger": "message_end", "source": "block", "dest": "ended", "after": ["close_open_block", "take_end"]},
    {"trigger": "stray_end", "source": _LIVE, "dest": "=", "after": ["note_stray_end"]},
    # lenient: an earlier block's event that changes nothing done (content would be a contradiction)
    {"trigger": "late_event", "source": ["message", "plan", "block", "ended"], "dest": "=", "after": ["note_late_event"]},
    # anywhere before the end
    {"trigger": "other", "source": [*_LIVE, "ended"], "dest": "=", "after": ["note_other"]},
    {"trigger": "error", "source": _LIVE, "dest": "failed", "after": ["record_error"]},
    # the end
    {"trigger": "done_sentinel", "source": "ended", "dest": "done"},
    {"trigger": "done_sentinel", "source": _LIVE, "dest": "ended_early"},
    {"trigger": "eof", "source": ["ended", "done"], "dest": "complete"},
    {"trigger": "eof", "source": [*_LIVE, "ended_early"], "dest": "truncated"},
    {"trigger": "eof", "source": "failed", "dest": "failed"},
]
