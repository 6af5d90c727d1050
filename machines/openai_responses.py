"""OpenAI Responses (and every server that speaks it): the lifecycle of one streamed response.

Inputs are frames classified by the decoder from `data.type` (else the `event:` line):

- `created` (`response.created`), `progress` (`response.queued`, `response.in_progress`);
- `reasoning_added`, `message_added`, `call_added`, `client_call_added`,
  `builtin_added`: a `response.output_item.added` by item type (`reasoning`, `message`,
  `function_call`; the other items the client answers with an item of its own:
  `custom_tool_call`, `computer_call`, `local_shell_call`, `shell_call` unless its
  `environment` names a hosted container, `apply_patch_call`, `mcp_approval_request`;
  anything else: tools the server runs itself, such as `web_search_call`, `mcp_call`, a
  hosted `shell_call`, and unknown types);
- inside an item: `part` (`content_part.*`, `reasoning_summary_part.*`), `text_delta`
  (`output_text.delta`, `refusal.delta`), `text_done` (`output_text.done`,
  `refusal.done`), `annotation` (`output_text.annotation.added`), `thinking_delta` and
  `thinking_done` (`reasoning_summary_text.*`, `reasoning_text.*`), `args_delta` and
  `args_done` (`function_call_arguments.*`), `input_delta` and `input_done` (the text a
  client call streams: `custom_tool_call_input.*`, `apply_patch_call_operation_diff.*`),
  `builtin_event` (the tools' own events: `web_search_call.*`,
  `code_interpreter_call_code.delta`, `shell_call_command.*`, ...) and `item_done`
  (`response.output_item.done`);
- `late_reasoning` / `late_reasoning_done`: events of a reasoning item that was left
  open when the next item started (OpenRouter closes its reasoning item after the
  message); the decoder gives these symbols only to events whose `output_index` names
  such an item;
- `new_index`: an item event whose `output_index` is above the open item's: the open
  item was left open (its `output_item.done` never came);
- `late_event`: an event that names an earlier item (its `output_index` below the open
  or last item's) and changes no content already done: progress and completion of
  built-in items (`response.*_call.*`, `response.mcp_*`, `*.completed`,
  `*.in_progress`, `*.searching`), content parts, annotations, a repeated
  `output_item.done`; a delta or a done of text, reasoning or arguments for an earlier
  item would change what is done, and stays a contradiction;
- `item_info`: an unknown event type that names an item (`output_index` / `item_id`):
  kept on the side channel; `mirobody_call` / `mirobody_result`: Mirobody's
  `response.mirobody_tool_call` / `response.mirobody_tool_result`;
- `completed`, `incomplete`, `failed` (`response.failed`), `error` (the `error` event),
  `done_sentinel` (`data: [DONE]`) and `eof`.

Items stream one at a time: an item's events are legal only in its state.  Strict
semantics, lenient lifecycle: lifecycle events that are missing but certain are
recovered by declared transitions, each an aggregated anomaly: an item's deltas with
no `output_item.added` imply the item (`imply_*`; this is also how a resumed stream,
`starting_after`, begins), a new item while one is open closes the open one
(`close_left_open`; a reasoning item left open is deferred instead, since OpenRouter
closes it late), and a stream may lack `response.created`.  Only a contradiction ends
the stream `failed` with a `protocol_error` naming state and symbol: any pair not
declared here, an event for an item that already closed, an `output_index` that goes
back (an earlier item's event that changes nothing done is `late_event`, a side event
and an aggregated anomaly).  Unknown event types that name no item (keepalives, gateway frames) never reach
the machine.  `completed` / `incomplete` make the stream complete; `failed` or an
`error` event make it failed (an `error` is normally followed by `response.failed`,
which is read: `errored` waits for it); `[DONE]` before either, or no terminal event
at all, leaves it truncated.
"""

NAME = "openai_responses"
INITIAL = "waiting"
STATES = [
    "waiting",
    "between",
    "reasoning",
    "message",
    "function_call",
    "client_call",
    "builtin",
    "errored",
    "finished",
    "ended_early",
    "failed",
    "complete",
    "truncated",
]
FINAL = ["complete", "truncated", "failed"]
SYMBOLS = [
    "created",
    "progress",
    "reasoning_added",
    "message_added",
    "call_added",
    "client_call_added",
    "builtin_added",
    "part",
    "text_delta",
    "text_done",
    "annotation",
    "thinking_delta",
    "thinking_done",
    "args_delta",
    "args_done",
    "input_delta",
    "input_done",
    "builtin_event",
    "item_done",
    "late_reasoning",
    "late_reasoning_done",
    "new_index",
    "late_event",
    "item_info",
    "mirobody_call",
    "mirobody_result",
    "completed",
    "incomplete",
    "failed",
    "error",
    "done_sentinel",
    "eof",
]

GUARDS: dict[str, str] = {}

ACTIONS = {
    "take_response": "take the response object's model and id (response.created marks a fresh stream)",
    "open_reasoning": "start a reasoning item (its thinking opens with the first text)",
    "open_message": "start a message item; its phase, if any, opens the text item as fidelity",
    "open_call": "start a function call: tool_call.delta with the name and call_id",
    "open_client_call": "start an item the client answers: tool_call.delta with its name, call id and fidelity "
    "(the item type)",
    "open_builtin": "start a built-in tool item: a side event (start)",
    "defer_reasoning": "close the open reasoning item's thinking; its late events are expected",
    "imply_message": "recovery: a message item's events with no output_item.added imply it (or a resumed stream)",
    "imply_reasoning": "recovery: a reasoning item's events with no output_item.added imply it (or a resumed stream)",
    "imply_call": "recovery: arguments with no output_item.added imply a function call, named when its done comes",
    "imply_client_call": "recovery: input with no output_item.added implies a client call, named when its done comes",
    "close_left_open": "recovery: the open item was left open when the next began; close it as its done would",
    "text": "a text.delta (output_text or refusal)",
    "text_done": "the part's full text, emitted only if none of it arrived as deltas",
    "annotation": "an output_text annotation: a side event (info)",
    "thinking": "a thinking.delta (reasoning summary or reasoning text)",
    "thinking_done": "the part's full reasoning text, emitted only if none arrived as deltas",
    "arguments": "a function call's arguments fragment",
    "arguments_done": "the full arguments, emitted only if no fragment arrived",
    "input": "a client call's streamed text, as a fragment of its JSON arguments",
    "input_done": "the whole streamed text, taken as one fragment only if none arrived",
    "builtin_progress": "a tool item's own event: a side event (delta)",
    "close_reasoning": "attach the reasoning item's fidelity (encrypted_content) and close it",
    "close_message": "close the message's text item (its content is used if no text arrived)",
    "close_call": "close the function call (the item's arguments are used if none arrived)",
    "close_client_call": "close the client call: its arguments from the item where none streamed",
    "close_builtin": "a side event (done) with the finished built-in item; a generated image's result is an inline_data item instead",
    "adopt_item": "a resumed stream's first event is an item's done: the whole item",
    "late_reasoning": "an event of a reasoning item left open: its text is kept for its done",
    "finish_late_reasoning": "the late reasoning item's done: its text and fidelity, kept",
    "item_info": "an unknown event about an item: a side event (info)",
    "late_event": "an event for an earlier item that changes nothing done: a side event (info) of that item, "
    "noted as late_event",
    "mirobody_call": "a Mirobody tool step starts: a side event, remembered by id",
    "mirobody_result": "a Mirobody tool step's result: matched to its call, a side event",
    "close_open_item": "the terminal event arrived with an item open: close it from the final output",
    "record_completed": "finish, usage, model and Mirobody's final records from the response",
    "record_incomplete": "finish from incomplete_details.reason, usage and model",
    "record_failed": "the response's error (message, type, code), its status as the native finish; usage, model",
    "record_error": "the error event's message, type and code (response.failed may follow)",
}

#: typical complete streams, drawn bold in the diagrams and walked by the tests
HAPPY_PATHS = {
    "text answer": [
        "created", "progress", "message_added", "part", "text_delta", "text_delta", "text_done", "part",
        "item_done", "completed", "eof",
    ],
    "reasoning, then a tool call": [
        "created", "progress", "reasoning_added", "part", "thinking_delta", "thinking_done", "part",
        "item_done", "call_added", "args_delta", "args_delta", "args_done", "item_done", "completed", "eof",
    ],
    "a custom tool call": [
        "created", "progress", "client_call_added", "input_delta", "input_delta", "input_done", "item_done",
        "completed", "eof",
    ],
}

_OPEN = ["waiting", "between", "reasoning", "message", "function_call", "client_call", "builtin"]
_ITEMS = ["reasoning", "message", "function_call", "client_call", "builtin"]
_IDLE = ["waiting", "between"]
_DEFER_MESSAGE = ["defer_reasoning", "open_message"]
_DEFER_CALL = ["defer_reasoning", "open_call"]
_DEFER_CLIENT_CALL = ["defer_reasoning", "open_client_call"]
_DEFER_BUILTIN = ["defer_reasoning", "open_builtin"]
_DEFER_REASONING = ["defer_reasoning", "open_reasoning"]
# items that close when the next one starts without their done
_LEFT_OPEN = ["message", "function_call", "client_call", "builtin"]

TRANSITIONS = [
    # lifecycle
    {"trigger": "created", "source": "waiting", "dest": "between", "after": ["take_response"]},
    {"trigger": "progress", "source": _IDLE, "dest": "between", "after": ["take_response"]},
    # one item at a time (a reasoning item may be left open by the next one)
    {"trigger": "reasoning_added", "source": _IDLE, "dest": "reasoning", "after": ["open_reasoning"]},
    {"trigger": "message_added", "source": _IDLE, "dest": "message", "after": ["open_message"]},
    {"trigger": "message_added", "source": "reasoning", "dest": "message", "after": _DEFER_MESSAGE},
    {"trigger": "call_added", "source": _IDLE, "dest": "function_call", "after": ["open_call"]},
    {"trigger": "call_added", "source": "reasoning", "dest": "function_call", "after": _DEFER_CALL},
    {"trigger": "client_call_added", "source": _IDLE, "dest": "client_call", "after": ["open_client_call"]},
    {"trigger": "client_call_added", "source": "reasoning", "dest": "client_call", "after": _DEFER_CLIENT_CALL},
    {"trigger": "builtin_added", "source": _IDLE, "dest": "builtin", "after": ["open_builtin"]},
    {"trigger": "builtin_added", "source": "reasoning", "dest": "builtin", "after": _DEFER_BUILTIN},
    {"trigger": "reasoning_added", "source": "reasoning", "dest": "reasoning", "after": _DEFER_REASONING},
    # inside a reasoning item
    {"trigger": "part", "source": "reasoning", "dest": "="},
    {"trigger": "thinking_delta", "source": "reasoning", "dest": "=", "after": ["thinking"]},
    {"trigger": "thinking_done", "source": "reasoning", "dest": "=", "after": ["thinking_done"]},
    {"trigger": "item_done", "source": "reasoning", "dest": "between", "after": ["close_reasoning"]},
    # inside a message item
    {"trigger": "part", "source": "message", "dest": "="},
    {"trigger": "text_delta", "source": "message", "dest": "=", "after": ["text"]},
    {"trigger": "text_done", "source": "message", "dest": "=", "after": ["text_done"]},
    {"trigger": "annotation", "source": "message", "dest": "=", "after": ["annotation"]},
    {"trigger": "item_done", "source": "message", "dest": "between", "after": ["close_message"]},
    # inside a function call
    {"trigger": "args_delta", "source": "function_call", "dest": "=", "after": ["arguments"]},
    {"trigger": "args_done", "source": "function_call", "dest": "=", "after": ["arguments_done"]},
    {"trigger": "item_done", "source": "function_call", "dest": "between", "after": ["close_call"]},
    # inside an item the client answers (a custom tool call, a computer call, ...)
    {"trigger": "input_delta", "source": "client_call", "dest": "=", "after": ["input"]},
    {"trigger": "input_done", "source": "client_call", "dest": "=", "after": ["input_done"]},
    {"trigger": "builtin_event", "source": "client_call", "dest": "=", "after": ["builtin_progress"]},
    {"trigger": "item_done", "source": "client_call", "dest": "between", "after": ["close_client_call"]},
    # inside a built-in tool item
    {"trigger": "builtin_event", "source": "builtin", "dest": "=", "after": ["builtin_progress"]},
    {"trigger": "item_done", "source": "builtin", "dest": "between", "after": ["close_builtin"]},
    # recovery: an item's events without its output_item.added (also a resumed stream)
    {"trigger": "part", "source": _IDLE, "dest": "="},
    {"trigger": "text_delta", "source": _IDLE, "dest": "message", "after": ["imply_message", "text"]},
    {"trigger": "text_done", "source": _IDLE, "dest": "message", "after": ["imply_message", "text_done"]},
    {"trigger": "thinking_delta", "source": _IDLE, "dest": "reasoning", "after": ["imply_reasoning", "thinking"]},
    {"trigger": "args_delta", "source": _IDLE, "dest": "function_call", "after": ["imply_call", "arguments"]},
    {"trigger": "input_delta", "source": _IDLE, "dest": "client_call", "after": ["imply_client_call", "input"]},
    {"trigger": "item_done", "source": _IDLE, "dest": "between", "after": ["adopt_item"]},
    # recovery: the open item was left open when the next one began
    {"trigger": "new_index", "source": _ITEMS, "dest": "between", "after": ["close_left_open"]},
    {"trigger": "message_added", "source": _LEFT_OPEN, "dest": "message", "after": ["close_left_open", "open_message"]},
    {"trigger": "call_added", "source": _LEFT_OPEN, "dest": "function_call", "after": ["close_left_open", "open_call"]},
    {
        "trigger": "client_call_added",
        "source": _LEFT_OPEN,
        "dest": "client_call",
        "after": ["close_left_open", "open_client_call"],
    },
    {"trigger": "builtin_added", "source": _LEFT_OPEN, "dest": "builtin", "after": ["close_left_open", "open_builtin"]},
    {"trigger": "reasoning_added", "source": _LEFT_OPEN, "dest": "reasoning", "after": ["close_left_open", "open_reasoning"]},
    # a reasoning item left open, finishing late
    {"trigger": "late_reasoning", "source": ["between", *_ITEMS], "dest": "=", "after": ["late_reasoning"]},
    {"trigger": "late_reasoning_done", "source": ["between", *_ITEMS], "dest": "=", "after": ["finish_late_reasoning"]},
    # side channel, anywhere before the end
    {"trigger": "item_info", "source": _OPEN, "dest": "=", "after": ["item_info"]},
    # lenient: built-in items report progress and completion after later items began
    {"trigger": "late_event", "source": ["between", *_ITEMS], "dest": "=", "after": ["late_event"]},
    {"trigger": "mirobody_call", "source": _OPEN, "dest": "=", "after": ["mirobody_call"]},
    {"trigger": "mirobody_result", "source": _OPEN, "dest": "=", "after": ["mirobody_result"]},
    # the end
    {"trigger": "completed", "source": _OPEN, "dest": "finished", "after": ["close_open_item", "record_completed"]},
    {"trigger": "incomplete", "source": _OPEN, "dest": "finished", "after": ["close_open_item", "record_incomplete"]},
    {"trigger": "failed", "source": [*_OPEN, "errored"], "dest": "failed", "after": ["record_failed"]},
    {"trigger": "error", "source": _OPEN, "dest": "errored", "after": ["record_error"]},
    {"trigger": "done_sentinel", "source": _OPEN, "dest": "ended_early"},
    {"trigger": "done_sentinel", "source": "errored", "dest": "failed"},
    {"trigger": "eof", "source": "finished", "dest": "complete"},
    {"trigger": "eof", "source": [*_OPEN, "ended_early"], "dest": "truncated"},
    {"trigger": "eof", "source": ["errored", "failed"], "dest": "failed"},
]
