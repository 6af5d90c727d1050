"""Google Gemini Interactions API (`POST /v1beta/interactions`, `stream: true`): the
lifecycle of one interaction.

Every SSE data object carries `event_type` (the `event:` name, when there is one, is
only a fallback).  Inputs are frames classified by the decoder:

- `created` (`interaction.created`) and `status` (`interaction.status_update`,
  `interaction.in_progress`, `interaction.requires_action`);
- `step_start` (`step.start` while no step is open), `step_delta` / `step_stop` (for
  the open step's `index`), and their recoveries: `new_delta` (a delta for a step never
  started, its index above every index so far), `stale_delta` (one for a step that
  already stopped that carries content: done content would change), `late_event` (one
  for a step that already stopped that changes nothing done: a delta type nobody knows
  yet, or an empty one) and `stray_stop` (a stop for no open step);
- `completed` (`interaction.completed`), `error` (an `error` event with an error
  object; one without is a gateway heartbeat and changes nothing), `done_sentinel`
  (`event: done` / `data: [DONE]`) and `eof`.

Steps stream one at a time by index.  Strict semantics, lenient lifecycle, each
recovery one aggregated anomaly: a stream without `interaction.created` is implied by
its first frame; a delta for a step never started opens it (its kind from the delta
type); a start while a step is open closes the open one first; an event for a step
that already stopped that changes nothing done is a side event of that step.  The stream is complete
once `interaction.completed` arrived; `[DONE]` or the end of the body before it leaves
it truncated; an error fails it.
"""

NAME = "gemini_interactions"
INITIAL = "waiting"
STATES = ["waiting", "between", "step", "finished", "done", "failed", "complete", "truncated"]
FINAL = ["complete", "truncated", "failed"]
SYMBOLS = [
    "created",
    "status",
    "step_start",
    "step_delta",
    "new_delta",
    "stale_delta",
    "late_event",
    "step_stop",
    "stray_stop",
    "completed",
    "error",
    "done_sentinel",
    "eof",
]

GUARDS: dict[str, str] = {}

ACTIONS = {
    "take_interaction": "take the interaction's id, model and status",
    "imply_interaction": "recovery: the first frame implies the missing interaction.created",
    "open_step": "open the step by its type: thought (thinking), model_output (text), function_call (a tool "
    "call: id, name, arguments when whole); built-in tool steps and unknown types go to the side channel",
    "apply_delta": "route the delta by its type within the open step (text, thought_summary, thought_signature, "
    "arguments_delta, image, audio, annotations, built-in tool deltas)",
    "close_step": "attach the thought's signature or the text's annotations, close the step's item",
    "close_open_step": "recovery: the open step was left open; close it as its stop would",
    "imply_step": "recovery: open the step a delta names, its kind from the delta type",
    "note_stray_stop": "recovery: a stop for no open step changes nothing; noted",
    "note_late_event": "an event for a step that already stopped that changes nothing done: "
    "a side event (info) of that step, noted as late_event",
    "record_completed": "finish from the interaction's status, usage, model",
    "record_error": "the error's code and message",
}

_LIVE = ["waiting", "between", "step", "finished"]
_IDLE = ["waiting", "between"]
_IMPLY_STEP = ["imply_step", "apply_delta"]

TRANSITIONS = [
    {"trigger": "created", "source": "waiting", "dest": "between", "after": ["take_interaction"]},
    {"trigger": "status", "source": _LIVE, "dest": "=", "after": ["take_interaction"]},
    # steps, one at a time
    {"trigger": "step_start", "source": "between", "dest": "step", "after": ["open_step"]},
    {"trigger": "step_delta", "source": "step", "dest": "step", "after": ["apply_delta"]},
    {"trigger": "step_stop", "source": "step", "dest": "between", "after": ["close_step"]},
    # recovery: no interaction.created, a step never started, a step left open
    {"trigger": "step_start", "source": "waiting", "dest": "step", "after": ["imply_interaction", "open_step"]},
    {"trigger": "new_delta", "source": "waiting", "dest": "step", "after": ["imply_interaction", *_IMPLY_STEP]},
    {"trigger": "new_delta", "source": "between", "dest": "step", "after": _IMPLY_STEP},
    {"trigger": "new_delta", "source": "step", "dest": "step", "after": ["close_open_step", *_IMPLY_STEP]},
    {"trigger": "step_start", "source": "step", "dest": "step", "after": ["close_open_step", "open_step"]},
    {"trigger": "stray_stop", "source": _IDLE, "dest": "=", "after": ["note_stray_stop"]},
    # lenient: an earlier step's event that changes nothing done (content would be a contradiction)
    {"trigger": "late_event", "source": ["between", "step", "finished"], "dest": "=", "after": ["note_late_event"]},
    # the end
    {"trigger": "completed", "source": _IDLE, "dest": "finished", "after": ["record_completed"]},
    {"trigger": "completed", "source": "step", "dest": "finished", "after": ["close_open_step", "record_completed"]},
    {"trigger": "error", "source": _LIVE, "dest": "failed", "after": ["record_error"]},
    {"trigger": "done_sentinel", "source": "finished", "dest": "done"},
    {"trigger": "eof", "source": ["finished", "done"], "dest": "complete"},
    {"trigger": "eof", "source": ["waiting", "between", "step"], "dest": "truncated"},
    {"trigger": "eof", "source": "failed", "dest": "failed"},
]

HAPPY_PATHS = {
    "text answer": ["created", "step_start", "step_delta", "step_stop", "completed", "done_sentinel", "eof"],
    "function call": [
        "created", "step_start", "step_delta", "step_stop", "step_start", "step_delta", "step_stop",
        "completed", "done_sentinel", "eof",
    ],
}
