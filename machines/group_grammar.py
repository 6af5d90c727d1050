"""The UniEvent group grammar.

    stream := delta_event* stop_event
    group  := K.delta+ K.done      K in text, thinking, tool_call, inline_data,
                                   inline_thinking, embedding

This module owns every rule about how items follow one another: one group open at a
time, a group's deltas all of its kind, the done closing it, stop once and last.
Content rules that hold inside a transition (the first tool_call.delta names the call,
fidelity rides on one delta and on the done, the done equals the join of its deltas)
are guards, named here and described in GUARDS; the generated validator evaluates
them and the generated assembler satisfies them by construction.

The state is the open group (or `between` when none is open).  `stopped` is final:
nothing may follow the stop event.
"""

NAME = "group_grammar"
INITIAL = "between"

KINDS = ["text", "thinking", "tool_call", "inline_data", "inline_thinking", "embedding"]

STATES = ["between", *KINDS, "stopped"]
FINAL = ["stopped"]

SYMBOLS = [sym for kind in KINDS for sym in (f"{kind}_delta", f"{kind}_done")] + ["stop"]

GUARDS = {
    "opens_call": "the first tool_call.delta carries a non-empty name and tool_call_id",
    "continues_call": "a later tool_call.delta carries an empty name and tool_call_id",
    "fidelity_once": "no earlier delta of this group carried fidelity (or this one carries none)",
    "done_matches": "the done equals the join of the group's deltas and carries the group's fidelity",
    "stop_complete": "the stop event carries no item, a usage object and an MMSP finish reason",
}

ACTIONS = {
    "open_group": "start collecting a new group of the delta's kind",
    "append": "add the delta's content (and fidelity) to the open group",
    "close_group": "forget the closed group",
}


#: typical complete streams, drawn bold in the diagrams and walked by the tests
HAPPY_PATHS = {
    "text answer": ["text_delta", "text_delta", "text_done", "stop"],
    "thinking, then a tool call": [
        "thinking_delta", "thinking_delta", "thinking_done", "tool_call_delta", "tool_call_delta", "tool_call_done",
        "stop",
    ],
}


def _group(kind: str) -> list[dict[str, object]]:
    opening: dict[str, object] = {
        "trigger": f"{kind}_delta",
        "source": "between",
        "dest": kind,
        "conditions": ["fidelity_once"],
        "after": ["open_group"],
    }
    continuing: dict[str, object] = {
        "trigger": f"{kind}_delta",
        "source": kind,
        "dest": kind,
        "conditions": ["fidelity_once"],
        "after": ["append"],
    }
    if kind == "tool_call":
        opening["conditions"] = ["opens_call", "fidelity_once"]
        continuing["conditions"] = ["continues_call", "fidelity_once"]
    closing: dict[str, object] = {
        "trigger": f"{kind}_done",
        "source": kind,
        "dest": "between",
        "conditions": ["done_matches"],
        "after": ["close_group"],
    }
    return [opening, continuing, closing]


TRANSITIONS = [t for kind in KINDS for t in _group(kind)] + [
    {"trigger": "stop", "source": "between", "dest": "stopped", "conditions": ["stop_complete"]},
]
