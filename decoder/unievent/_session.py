# What a protocol handler writes to while it reads one stream, and the base every
# handler shares.
#
# A `Session` is the handler's whole view of the decoder: the assembler it feeds
# fragments to, and the records an outcome is built from (model, response id, usage in
# MMSP's meaning, the provider's error, the side channel, anomalies, extras).  Handlers
# never see bytes, framing or the public decoder; the decoder never sees a provider's
# JSON.
#
# Retention: everything a session keeps beyond the events it returns grows with items
# and blocks, never with frames.  Side-channel deltas are emitted (when side events are
# inline) but never kept; other side events are kept up to `max_retained`, and anomalies
# are counted by kind (`Anomalies`).  Reaching the cap is itself an anomaly.
from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar, Final, Protocol, cast

from unievent._events import FinishReason, Usage
from unievent._framing import ended
from unievent._grammar import Assembler
from unievent._outcome import Anomalies, End, ProviderError
from unievent._side import SideEvent

__all__ = ["DEFAULT_MAX_RETAINED", "Handler", "MachineHandler", "Session"]

#: default cap on the side events an outcome keeps (deltas are never kept)
DEFAULT_MAX_RETAINED = 10_000

_ENDS: Final = ("complete", "truncated", "failed")


class Session:
    """The records one stream's handler writes (see the module header)."""

    __slots__ = (
        "anomalies",
        "asm",
        "choice",
        "error",
        "extras",
        "max_retained",
        "model",
        "native_finish_reason",
        "protocol",
        "raw_usage",
        "response_id",
        "side",
        "side_dropped",
        "side_events_inline",
        "stream_id",
    )

    def __init__(
        self,
        protocol: str,
        stream_id: str,
        strict_arguments: bool = True,
        side_events_inline: bool = False,
        max_retained: int = DEFAULT_MAX_RETAINED,
        choice: int = 0,
    ) -> None:
        self.protocol = protocol
        self.choice = choice  # the choice (`choices[].index`) decoded where a response has several
        self.stream_id = stream_id
        self.anomalies = Anomalies()
        self.asm = Assembler([], strict_arguments, self.anomalies)
        self.side_events_inline = side_events_inline
        self.max_retained = max_retained
        self.model: str | None = None
        self.response_id: str | None = None
        self.native_finish_reason: str | None = None
        self.error: ProviderError | None = None
        self.side: list[SideEvent] = []
        self.side_dropped = 0
        self.extras: dict[str, Any] = {}
        self.raw_usage: dict[str, int] = {}

    def take_response_id(self, value: Any) -> None:
        """The provider's id of the response: the first non-empty string wins.  Where a
        stream names several (Anthropic's messages of one response, a gateway that
        varies its chunk ids), the first is the one the response opened with, which a
        writer re-serving the stream writes at its start."""
        if self.response_id is None and value and type(value) is str:
            self.response_id = value

    # --- usage ------------------------------------------------------------------------

    def usage(self) -> Usage:
        """The MMSP usage object from what the handler recorded."""
        raw = self.raw_usage
        return Usage(raw.get("cached"), raw.get("prompt"), raw.get("thoughts"), raw.get("response"))

    def set_usage(self, **fields: int | None) -> None:
        """Record usage fields in MMSP's meaning: the newest value wins, but a zero
        never erases a non-zero and a missing (None) value erases nothing."""
        raw = self.raw_usage
        for name, value in fields.items():
            if type(value) is int and value >= 0 and not (value == 0 and raw.get(name)):
                raw[name] = value

    # --- errors, side channel, anomalies ------------------------------------------------

    def fail(self, error: ProviderError) -> None:
        """Record the provider's error (the first one wins)."""
        if self.error is None:
            self.error = error

    def note(self, kind: str, example: str = "", times: int = 1) -> None:
        """Record an anomaly of `kind` (counted; the first few examples kept)."""
        self.anomalies.note(kind, example, times)

    def side_event(self, kind: str, phase: str, item_id: str | None, data: dict[str, Any]) -> None:
        """Provider-side activity: emitted when side events are inline; kept in the
        outcome unless it is a delta (a side block's done carries what its deltas
        assembled) or the retention cap is reached."""
        inline = self.side_events_inline
        if phase == "delta" and not inline:
            return
        event = SideEvent(self.protocol, kind, phase, item_id, data, self.asm.now)
        if inline:
            self.asm.out.append(event)
        if phase == "delta":
            return
        if len(self.side) < self.max_retained:
            self.side.append(event)
        else:
            self.side_dropped += 1
            self.note("retention_cap", f"{self.max_retained} side events kept; later ones are not")


class Handler(Protocol):
    """What a protocol module provides (protocols/openai_chat.py is the reference one)."""

    #: the stream carried its own stop event (a wire of UniEvents): the decoder makes none
    stopped: bool

    def frame(self, event: str | None, obj: dict[str, Any]) -> bool: ...
    def done_sentinel(self) -> bool: ...
    def end(self) -> End: ...
    def state_name(self) -> str: ...
    def at_end(self) -> None: ...
    def before_stop(self) -> None: ...
    def closes_open_items(self, end: End) -> bool: ...
    def finish_reason(self) -> FinishReason: ...
    def let_go(self) -> None: ...


class MachineHandler:
    """What every protocol handler shares: its generated machine (`machine`, a module
    from unievent._generated) and the current state; at end of input the machine's
    `eof` transition names the end."""

    machine: ClassVar[Any]
    session: Session
    state: int
    #: the stream's own stop event went out (a wire that carries UniEvents): the decoder
    #: does not make one
    stopped: bool = False
    #: the decoder's full path for a frame's bytes (set when the handler has a `raw`
    #: sink of its own): the parsed object, or the FRAME_* status of a frame that is none
    parse: Callable[[str | None, bytes], dict[str, Any] | int]

    def let_go(self) -> None:
        """After the end: no callback of the handler's refers back to the decoder or to
        the handler itself any more, so that a decoder nobody holds is freed by
        reference counting (a handler that keeps a bound method of its own drops it
        here too)."""
        self.parse = ended

    def end(self) -> End:
        machine = self.machine
        self.state = machine.NEXT[self.state][machine.SY_EOF]
        name = machine.STATES[self.state]
        if name not in _ENDS:
            raise AssertionError(f"{machine.NAME}: eof leads to {name!r}, which is not an end")
        return cast(End, name)

    def state_name(self) -> str:
        return str(self.machine.STATES[self.state])

    def out_of_order(self, state: int, symbol: int, what: str, obj: dict[str, Any]) -> bool:
        """A frame the table does not declare in `state`: the stream fails with a
        protocol error naming what arrived, its symbol, the state and what the table
        allows there.  True: the stream is over."""
        machine = self.machine
        allowed = ", ".join(machine.ALLOWED[state])
        message = f"out-of-order event: {what} ({machine.SYMBOLS[symbol]}) in state {machine.STATES[state]!r}"
        self.session.fail(ProviderError(f"{message}; allowed: {allowed}", "protocol_error", None, obj))
        self.state = machine.ST_FAILED
        return True

    def done_sentinel(self) -> bool:
        """`data: [DONE]`: fire the machine's `done_sentinel` where it is declared;
        elsewhere it changes nothing.  True when the stream is over."""
        machine = self.machine
        dest = machine.NEXT[self.state][machine.SY_DONE_SENTINEL]
        if dest >= 0:
            self.state = dest
        return bool(machine.ALLOWED[self.state] in ((), ("eof",)))

    def at_end(self) -> None:
        """End of input, whatever the end: attach what waits for its item's close."""

    def before_stop(self) -> None:
        """Called before the stop event of a complete stream (nothing waits by default)."""

    def closes_open_items(self, end: End) -> bool:
        """Whether an open text or thinking item gets its done when the stream ends
        this way without completing (by default it does: text that arrived is kept)."""
        return True
