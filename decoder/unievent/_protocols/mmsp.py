# MMSP's own wire: what an MMSP server's `POST /v1/stream` sends, one UniEvent per
# `data:` block, then `[DONE]`.
#
# Frame lifecycle: the generated machine from machines/mmsp.py.  Each frame goes
# through the same `from_json` as any MMSP JSON (bytes of `inline_data.*` and
# `inline_thinking.*` items are base64 on the wire, each chunk padded on its own), then
# through the group grammar as it arrives (`GrammarChecker`), which the MMSP client does
# not do: a server that breaks the grammar ends the stream failed with the grammar
# error's index, state and rule, never a silent pass.  Events that pass go out as the
# server sent them, its `created_at` kept.  `{"error": {...}}` (no `role`, no
# `event_type`) is MMSP's error family: its `type`, `message` and the fields of its
# type (a ToolCallArgumentParseError's, `status` of an upstream error) are the
# outcome's error, and the open item is left without a done (its text stays in the
# outcome's message, as a cancelled stream's does).  The stop event's usage
# and finish reason are the outcome's, exactly as the server sent them.
from __future__ import annotations

from typing import Any, ClassVar, Final

from unievent._errors import EventJSONError, GrammarError
from unievent._events import DeltaEvent, FinishReason, StopEvent
from unievent._generated import mmsp as M
from unievent._grammar import GrammarChecker
from unievent._json import from_json
from unievent._outcome import End, ProviderError
from unievent._session import MachineHandler, Session
from unievent._shared import json_text, str_or_none

__all__ = ["MMSPWire"]

_NEXT: Final = M.NEXT
_DO: Final = M.DO
_TERMINAL: Final = frozenset(s for s in range(len(M.STATES)) if M.ALLOWED[s] in ((), ("eof",)))


class MMSPWire(MachineHandler):
    """Protocol handler for `mmsp` (see StreamDecoder)."""

    machine: ClassVar[Any] = M

    def __init__(self, session: Session) -> None:
        self.session = session
        self.asm = session.asm
        self.state = M.INITIAL
        self.checker = GrammarChecker()
        self.finish: FinishReason = "unknown"
        self.event: DeltaEvent | StopEvent | None = None  # the frame's event, checked
        self.violation: dict[str, Any] = {}

    def frame(self, event: str | None, obj: dict[str, Any]) -> bool:
        if "error" in obj and "event_type" not in obj and "role" not in obj:
            symbol = M.SY_ERROR
        else:
            symbol = self._classify(obj)
        state = self.state
        dest = _NEXT[state][symbol]
        if dest < 0:
            self.session.note("ignored_frame", f"{M.SYMBOLS[symbol]} in state {M.STATES[state]} ignored")
            return state in _TERMINAL
        self.state = dest
        for action in _DO[state][symbol]:
            _ACTIONS[action](self, obj)
        return dest in _TERMINAL

    def _classify(self, obj: dict[str, Any]) -> int:
        """delta, stop, or invalid (what was wrong kept in `violation`)."""
        try:
            parsed = from_json(obj)
        except EventJSONError as error:
            self.violation = {"reason": f"not a UniEvent: {error}"}
            return M.SY_INVALID
        if not isinstance(parsed, (DeltaEvent, StopEvent)):
            self.violation = {"reason": f"not an event: a {type(parsed).__name__}"}
            return M.SY_INVALID
        try:
            self.checker.check(parsed)
        except GrammarError as error:
            self.violation = {
                "reason": str(error),
                "index": error.index,
                "state": error.state,
                "arrived": error.arrived,
                "rule": error.reason,
            }
            return M.SY_INVALID
        self.event = parsed
        return M.SY_STOP if isinstance(parsed, StopEvent) else M.SY_DELTA

    def done_sentinel(self) -> bool:
        dest = _NEXT[self.state][M.SY_DONE_SENTINEL]
        if dest >= 0:
            self.state = dest
        return True  # nothing after [DONE] is read

    def finish_reason(self) -> FinishReason:
        return self.finish

    def closes_open_items(self, end: End) -> bool:
        """An error leaves the open item without its done, as the server left it."""
        return end != "failed"

    # --- actions ----------------------------------------------------------------------

    def _forward(self, obj: dict[str, Any]) -> None:
        event = self.event
        assert isinstance(event, DeltaEvent)
        self.asm.adopt(event)

    def _forward_stop(self, obj: dict[str, Any]) -> None:
        event = self.event
        assert isinstance(event, StopEvent)
        usage = event.usage
        self.session.raw_usage.update(
            (name, value)
            for name, value in (
                ("cached", usage.cached_tokens),
                ("prompt", usage.prompt_tokens),
                ("thoughts", usage.thoughts_tokens),
                ("response", usage.response_tokens),
            )
            if value is not None
        )
        self.finish = event.finish_reason
        self.session.native_finish_reason = event.finish_reason
        self.stopped = True
        self.asm.adopt_stop(event)

    def _record_violation(self, obj: dict[str, Any]) -> None:
        reason = self.violation.get("reason", "a frame that breaks the grammar")
        self.session.fail(ProviderError(f"mmsp: the server sent {reason}", "protocol_error", None, self.violation))

    def _record_error(self, obj: dict[str, Any]) -> None:
        error = obj.get("error")
        if type(error) is not dict:
            text = error if type(error) is str else json_text(error)
            self.session.fail(ProviderError(text, None, None, error))
            return
        message = error.get("message")
        status = error.get("status")
        self.session.fail(
            ProviderError(
                message if type(message) is str else json_text(error),
                str_or_none(error.get("type")),
                status if type(status) in (int, str) else None,
                error,
            )
        )


_ACTIONS: Final = tuple(getattr(MMSPWire, "_" + name) for name in M.ACTIONS)
