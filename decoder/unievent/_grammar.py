# The group grammar at run time: `validate` checks a finished event stream and
# `Assembler` builds one from provider fragments.
#
# Neither holds a rule about which symbol may follow which: `validate` fires the
# generated `step` (guards evaluated by the functions in `_Guards`), and the assembler
# follows the generated plans (which done to emit before a new item, which before
# stop).  What lives here is content: joining a group's deltas into its done item and
# checking a done against its deltas.
from __future__ import annotations

from collections.abc import Callable, Iterable
from itertools import repeat
from typing import TYPE_CHECKING, Any, Final

import orjson

from unievent._deltas import deltas
from unievent._errors import GrammarError
from unievent._events import (
    ATOMIC_KINDS,
    FINISH_REASONS,
    UNTRACK_FROM,
    ContentItem,
    DeltaEvent,
    DoneItem,
    EmbeddingDelta,
    EmbeddingDone,
    Event,
    Fidelity,
    InlineDataDelta,
    InlineDataDone,
    InlineThinkingDelta,
    InlineThinkingDone,
    StopEvent,
    TextDelta,
    TextDone,
    ThinkingDelta,
    ThinkingDone,
    ToolCallDelta,
    ToolCallDone,
    Usage,
    fast_delta_event,
    slot_setter,
)
from unievent._gcfree import untrack
from unievent._generated import group_grammar as G
from unievent._ondemand import interpreted
from unievent._outcome import Anomalies
from unievent._shared import too_deep
from unievent._side import SideEvent

if TYPE_CHECKING:
    from unievent._deltas import Layout

__all__ = ["ArgumentsError", "Assembler", "GrammarChecker", "ValidationSummary", "release", "validate"]

# symbol of each item class, for the validator
_SYMBOL_OF_TYPE: dict[str, int] = {}
for _kind, _delta, _done in zip(G.KINDS, G.DELTA_OF_KIND, G.DONE_OF_KIND, strict=True):
    _SYMBOL_OF_TYPE[f"{_kind}.delta"] = _delta
    _SYMBOL_OF_TYPE[f"{_kind}.done"] = _done


def _symbol_name(symbol: int) -> str:
    name = G.SYMBOLS[symbol]
    return name.replace("_delta", ".delta").replace("_done", ".done")


def _allowed(state: int) -> tuple[str, ...]:
    return tuple(_symbol_name(G.SYMBOLS.index(name)) for name in G.ALLOWED[state])


def parse_arguments(text: str) -> dict[str, Any] | None:
    """Parse joined tool-call arguments: blank is `{}`, a JSON object is itself,
    anything else (bad JSON, an array, a number, an object nested deeper than the
    decoder accepts) is None."""
    if not text or text.isspace():
        return {}
    try:
        value = orjson.loads(text)
    except orjson.JSONDecodeError:
        return None
    if type(value) is not dict or too_deep(text, value):
        return None
    return value


class _Group:
    """What the validator remembers about the open group."""

    __slots__ = ("deltas", "fidelity", "header")

    def __init__(self) -> None:
        self.deltas: list[ContentItem] = []
        self.fidelity: Fidelity | None = None
        self.header: tuple[str, str] = ("", "")


class _Context:
    __slots__ = ("event", "group", "item")

    def __init__(self) -> None:
        self.group = _Group()
        self.event: Event | None = None
        self.item: Any = None


class _Guards:
    """The group grammar's guards, by the names declared in machines/group_grammar.py."""

    @staticmethod
    def opens_call(ctx: _Context) -> bool:
        return bool(ctx.item.name) and bool(ctx.item.tool_call_id)

    @staticmethod
    def continues_call(ctx: _Context) -> bool:
        return not ctx.item.name and not ctx.item.tool_call_id

    @staticmethod
    def fidelity_once(ctx: _Context) -> bool:
        return getattr(ctx.item, "fidelity", None) is None or ctx.group.fidelity is None

    @staticmethod
    def done_matches(ctx: _Context) -> bool:
        return _done_matches(ctx.group, ctx.item)

    @staticmethod
    def stop_complete(ctx: _Context) -> bool:
        event = ctx.event
        return isinstance(event, StopEvent) and isinstance(event.usage, Usage) and event.finish_reason in FINISH_REASONS


def _joined(group: _Group) -> Any:
    first = group.deltas[0]
    if isinstance(first, TextDelta):
        return "".join(d.text for d in group.deltas if isinstance(d, TextDelta))
    if isinstance(first, ThinkingDelta):
        return "".join(d.thinking for d in group.deltas if isinstance(d, ThinkingDelta))
    if isinstance(first, ToolCallDelta):
        return "".join(d.arguments for d in group.deltas if isinstance(d, ToolCallDelta))
    if isinstance(first, (InlineDataDelta, InlineThinkingDelta)):
        return b"".join(d.data for d in group.deltas)  # type: ignore[union-attr]
    return [x for d in group.deltas for x in d.embedding]  # type: ignore[union-attr]


def _done_matches(group: _Group, done: Any) -> bool:
    # `done` is whatever the caller passed: its fields are read untyped (`d`, `head`),
    # so a field of the wrong type compares unequal instead of raising TypeError
    # where this module is compiled (mypyc checks every typed attribute read).
    joined = _joined(group)
    first = group.deltas[0]
    d: Any = done
    head: Any = first
    fidelity = getattr(done, "fidelity", None)
    if isinstance(done, TextDone):
        return bool(d.text == joined and fidelity == group.fidelity)
    if isinstance(done, ThinkingDone):
        return bool(d.thinking == joined and fidelity == group.fidelity)
    if isinstance(done, ToolCallDone):
        if not isinstance(first, ToolCallDelta) or (d.name, d.tool_call_id) != (head.name, head.tool_call_id):
            return False
        parsed = parse_arguments(joined)
        if parsed is not None:
            return bool(d.arguments == parsed and fidelity == group.fidelity)
        # lenient decoding: unparsable arguments become {} with the raw text kept
        expected = {**(group.fidelity or {}), "raw_arguments": joined}
        return bool(d.arguments == {} and fidelity == expected)
    if isinstance(done, (InlineDataDone, InlineThinkingDone)):
        mime = getattr(head, "mime_type", None)
        return bool(d.data == joined and d.mime_type == mime and fidelity == group.fidelity)
    if isinstance(done, EmbeddingDone):
        return bool(d.embedding == joined)
    return False


class ValidationSummary:
    """What `validate` saw: event count, groups per kind, and whether stop arrived."""

    __slots__ = ("events", "groups", "stopped")

    def __init__(self, events: int, groups: dict[str, int], stopped: bool) -> None:
        self.events = events
        self.groups = groups
        self.stopped = stopped

    def __reduce__(self) -> tuple[type[ValidationSummary], tuple[int, dict[str, int], bool]]:
        # pickle and copy: a compiled (mypyc) class has no __dict__ to restore from
        return ValidationSummary, (self.events, self.groups, self.stopped)

    def __repr__(self) -> str:
        groups = ", ".join(f"{n} {k}" for k, n in self.groups.items() if n)
        return f"ValidationSummary(events={self.events}, groups=[{groups}], stopped={self.stopped})"


def validate(events: Iterable[Event | SideEvent], *, partial: bool = False) -> ValidationSummary:
    """Check that `events` follow the UniEvent grammar; raise GrammarError otherwise.

    The stream must end with the stop event unless `partial` is true (a stream that
    ended early: truncated, failed or cancelled).  SideEvent objects are skipped.
    """
    checker = GrammarChecker()
    for event in events:
        checker.check(event)
    return checker.end(partial)


class GrammarChecker:
    """The grammar, one event at a time (what `validate` runs): `check(event)` raises
    GrammarError at the first event that breaks it; `end(partial)` checks the end."""

    __slots__ = ("ctx", "groups", "index", "state")

    def __init__(self) -> None:
        self.ctx = _Context()
        self.state = G.INITIAL
        self.groups = dict.fromkeys(G.KINDS, 0)
        self.index = -1

    @property
    def state_name(self) -> str:
        return str(G.STATES[self.state])

    def check(self, event: object) -> None:
        self.index += 1
        index, state, ctx = self.index, self.state, self.ctx
        if isinstance(event, SideEvent):
            return
        if isinstance(event, StopEvent):
            symbol = G.SY_STOP
            ctx.item = None
        elif isinstance(event, DeltaEvent):
            item: Any = event.item
            symbol = _SYMBOL_OF_TYPE.get(getattr(item, "type", ""), -1)
            if symbol < 0:
                raise GrammarError(
                    index,
                    G.STATES[state],
                    getattr(item, "type", repr(item)),
                    _allowed(state),
                    "not an item a model streams",
                )
            ctx.item = item
        else:
            raise GrammarError(index, G.STATES[state], type(event).__name__, _allowed(state), "not a UniEvent")
        ctx.event = event
        dest, actions = G.step(state, symbol, ctx, _Guards)
        if dest < 0:
            raise GrammarError(
                index, G.STATES[state], _symbol_name(symbol), _allowed(state), _why(state, symbol, ctx, dest)
            )
        for action in actions:
            if action == G.A_OPEN_GROUP:
                ctx.group = _Group()
                self.groups[G.KINDS[G.KIND_OF_STATE[dest]]] += 1
            if action in (G.A_OPEN_GROUP, G.A_APPEND):
                ctx.group.deltas.append(ctx.item)
                fidelity = getattr(ctx.item, "fidelity", None)
                if fidelity is not None:
                    ctx.group.fidelity = fidelity
            elif action == G.A_CLOSE_GROUP:
                ctx.group = _Group()
        self.state = dest

    def end(self, partial: bool = False) -> ValidationSummary:
        state = self.state
        if not partial and state not in G.FINAL:
            raise GrammarError(
                self.index + 1,
                G.STATES[state],
                "end of stream",
                _allowed(state),
                "the stream ended without a stop event",
            )
        return ValidationSummary(self.index + 1, self.groups, state in G.FINAL)


def _why(state: int, symbol: int, ctx: _Context, dest: int) -> str:
    if dest == G.UNDECLARED:
        if state in G.FINAL:
            return "nothing may follow the stop event"
        open_kind = G.KIND_OF_STATE[state]
        if open_kind >= 0:
            return f"the open {G.KINDS[open_kind]} group must end with its done first"
        return "no group is open"
    failed = [
        G.GUARD_DOCS[g]
        for g, name in enumerate(G.GUARDS)
        if _guard_applies(state, symbol, g) and not getattr(_Guards, name)(ctx)
    ]
    return "rule broken: " + "; ".join(failed or ["guard"])


def _guard_applies(state: int, symbol: int, guard: int) -> bool:
    name = G.GUARDS[guard]
    probe = type("_Probe", (), {n: staticmethod(lambda _c, n=n: n != name) for n in G.GUARDS})
    return G.step(state, symbol, None, probe)[0] == G.REJECTED and G.step(state, symbol, None, _ALL_PASS)[0] >= 0


class _AllPass:
    def __getattr__(self, name: str) -> Callable[[Any], bool]:
        return lambda _ctx: True


_ALL_PASS = _AllPass()

# Where each symbol leads when its guards hold: the assembler satisfies the guards by
# construction, so this is the table it walks.
_DEST: tuple[tuple[int, ...], ...] = tuple(
    tuple(G.step(s, y, None, _ALL_PASS)[0] for y in range(len(G.SYMBOLS))) for s in range(len(G.STATES))
)


class ArgumentsError(Exception):
    """Internal: a tool call closed with arguments that are not a JSON object (strict)."""

    def __init__(self, name: str, tool_call_id: str, raw: str) -> None:
        super().__init__(name)
        self.name = name
        self.tool_call_id = tool_call_id
        self.raw = raw


# Decoder-built deltas skip attrs' __init__: the slots are set directly.  Final, and the
# classes bound to Final names too: where this module is compiled (mypyc) they are C
# statics, not a dictionary lookup per delta.
_new: Final = object.__new__
_TextDelta: Final = TextDelta
_ThinkingDelta: Final = ThinkingDelta
_ToolCallDelta: Final = ToolCallDelta
_DeltaEvent: Final = DeltaEvent
_set_text: Final = slot_setter(TextDelta, "text")
_set_text_fidelity: Final = slot_setter(TextDelta, "fidelity")
_set_thinking: Final = slot_setter(ThinkingDelta, "thinking")
_set_event_item: Final = slot_setter(DeltaEvent, "item")
_set_event_created: Final = slot_setter(DeltaEvent, "created_at")
_set_args_name: Final = slot_setter(ToolCallDelta, "name")
_set_args: Final = slot_setter(ToolCallDelta, "arguments")
_set_args_id: Final = slot_setter(ToolCallDelta, "tool_call_id")
_set_args_fidelity: Final = slot_setter(ToolCallDelta, "fidelity")
_set_thinking_fidelity: Final = slot_setter(ThinkingDelta, "fidelity")


def _layout(cls: type, field: str, empty: tuple[str, ...] = ()) -> Layout:
    """How unievent._deltas builds a delta of `cls` with `field` the fragment, the
    fields `empty` "" and no fidelity, from the same slots the setters above write."""
    slots = cls.__dict__
    event_slots = DeltaEvent.__dict__
    fixed = (*((slots[name], "") for name in empty), (slots["fidelity"], None))
    return (cls, slots[field], fixed, DeltaEvent, event_slots["item"], event_slots["created_at"])


_TEXT_LAYOUT: Final = _layout(TextDelta, "text")
_THINKING_LAYOUT: Final = _layout(ThinkingDelta, "thinking")
# a later delta of a tool call: only the first carries the name and id
_ARGUMENTS_LAYOUT: Final = _layout(ToolCallDelta, "arguments", ("name", "tool_call_id"))

# Compiled, a run's deltas are built in C (unievent._deltas: each event as
# object.__new__ and the slots' setters make it, in place), where each call to
# object.__new__ or a setter from native code goes through a Python wrapper and an
# argument tuple; and they leave the cyclic collector's lists as they are made, so that
# a collection during a long push meets none of them.  The other events of a long push
# leave those lists at its end (`release`, unievent._gcfree).  Run as Python source,
# nothing can untrack them, and a long run's deltas are built column by column:
# object.__new__ and each slot setter mapped over the whole run, the loop in C; that
# costs a dozen loop steps to set up and saves about a third of each step after.
_COMPILED: Final = not interpreted()
_ATOMIC_KINDS: Final = ATOMIC_KINDS
_UNTRACK_EVERY: Final = UNTRACK_FROM


def release(out: list[Any]) -> None:
    """The end of a push or of `finish`: a long list of events leaves the cyclic
    collector's lists (compiled; see above); a few events are mostly dropped before any
    collection meets them, and untracking them would cost more than the collector
    spends on them."""
    if _COMPILED and len(out) >= _UNTRACK_EVERY:
        untrack(out, 0, _ATOMIC_KINDS)


_COLUMN_RUN: Final = 16  # values in a run, at least, for building it by columns

_STATE_TEXT: Final = G.STATE_OF_KIND[G.K_TEXT]
_STATE_THINKING: Final = G.STATE_OF_KIND[G.K_THINKING]
_STATE_TOOL: Final = G.STATE_OF_KIND[G.K_TOOL_CALL]


class Assembler:
    """Turns provider fragments into grammar-correct events, appended to `out`.

    One item is open at a time.  `text()` / `thinking()` add to the open item of their
    kind or open one; `tool_call()` always opens a new call; `fidelity` rides on the
    first delta that brings it (a different fidelity opens a new item).  `close()`
    emits the open item's done, `stop()` closes and emits the stop event.  Every done
    item is also kept in `done_items` for the outcome's message.
    """

    __slots__ = (
        "_fidelity",
        "_header",
        "_mime",
        "_parts",
        "anomalies",
        "done_items",
        "now",
        "out",
        "state",
        "strict_arguments",
    )

    def __init__(self, out: list[Any], strict_arguments: bool = True, anomalies: Anomalies | None = None) -> None:
        self.out = out
        self.now = 0
        self.state = G.INITIAL
        self.strict_arguments = strict_arguments
        self.done_items: list[DoneItem] = []
        self.anomalies = anomalies if anomalies is not None else Anomalies()
        self._parts: list[Any] = []
        self._fidelity: Fidelity | None = None
        self._header: tuple[str, str] = ("", "")
        self._mime = ""

    # --- transitions, by plan ---------------------------------------------------------

    def _follow(self, plan: tuple[int, ...] | None, what: str) -> None:
        """Emit every closing symbol of `plan` (all but its last symbol)."""
        if plan is None:
            raise RuntimeError(f"{what} after the stop event")
        for symbol in plan[:-1]:
            self._emit_done(symbol)

    def _emit_done(self, symbol: int) -> None:
        kind = G.KIND_OF_STATE[self.state]
        parts = self._parts
        fidelity = self._fidelity
        done: DoneItem
        if kind == G.K_TEXT:
            done = TextDone("".join(parts), fidelity)
        elif kind == G.K_THINKING:
            done = ThinkingDone("".join(parts), fidelity)
        elif kind == G.K_TOOL_CALL:
            done = self._tool_call_done("".join(parts), fidelity)
        elif kind == G.K_INLINE_DATA:
            done = InlineDataDone(b"".join(parts), self._mime, fidelity)
        elif kind == G.K_INLINE_THINKING:
            done = InlineThinkingDone(b"".join(parts), self._mime, fidelity)
        else:
            # one part (how vectors arrive) is shared with its delta, not copied
            done = EmbeddingDone(parts[0] if len(parts) == 1 else [x for part in parts for x in part])
        self.state = _DEST[self.state][symbol]
        self._parts = []
        self._fidelity = None
        self.done_items.append(done)
        self.out.append(fast_delta_event(done, self.now))

    def _tool_call_done(self, raw: str, fidelity: Fidelity | None) -> ToolCallDone:
        name, call_id = self._header
        arguments = parse_arguments(raw)
        if arguments is None:
            if self.strict_arguments:
                raise ArgumentsError(name, call_id, raw)
            return ToolCallDone(name, {}, call_id, {**(fidelity or {}), "raw_arguments": raw})
        return ToolCallDone(name, arguments, call_id, fidelity)

    def _take_fidelity(self, fidelity: Fidelity | None) -> Fidelity | None:
        """The fidelity to put on the next delta of the open item (once per item)."""
        if fidelity is None or fidelity == self._fidelity:
            return None
        fidelity = dict(fidelity)  # the item owns its copy
        self._fidelity = fidelity
        return fidelity

    # --- fragments ----------------------------------------------------------------------

    def text(self, text: str, fidelity: Fidelity | None = None) -> None:
        """Add visible text to the open text item, or open one."""
        if self.state == _STATE_TEXT and text and fidelity is None:  # most calls
            if _COMPILED:  # one call into C, where the setters below would be six calls
                deltas([text], 0, _TEXT_LAYOUT, self.now, self.out, self._parts)
                return
            self._parts.append(text)
            item = _new(_TextDelta)
            _set_text(item, text)
            _set_text_fidelity(item, None)
            event = _new(_DeltaEvent)
            _set_event_item(event, item)
            _set_event_created(event, self.now)
            self.out.append(event)
        else:
            self._add_text(G.K_TEXT, text, fidelity)

    def thinking(self, thinking: str, fidelity: Fidelity | None = None) -> None:
        """Add reasoning text to the open thinking item, or open one."""
        if self.state == _STATE_THINKING and thinking and fidelity is None:  # most calls
            if _COMPILED:  # one call into C, where the setters below would be six calls
                deltas([thinking], 0, _THINKING_LAYOUT, self.now, self.out, self._parts)
                return
            self._parts.append(thinking)
            item = _new(_ThinkingDelta)
            _set_thinking(item, thinking)
            _set_thinking_fidelity(item, None)
            event = _new(_DeltaEvent)
            _set_event_item(event, item)
            _set_event_created(event, self.now)
            self.out.append(event)
        else:
            self._add_text(G.K_THINKING, thinking, fidelity)

    def texts(self, values: list[str]) -> None:
        """text() of each value in turn (a run of hot deltas)."""
        self._run(values, _STATE_TEXT, self.text, _TEXT_LAYOUT, _TextDelta, _set_text, _set_text_fidelity)

    def thinkings(self, values: list[str]) -> None:
        """thinking() of each value in turn (a run of hot deltas)."""
        layout = _THINKING_LAYOUT
        self._run(values, _STATE_THINKING, self.thinking, layout, _ThinkingDelta, _set_thinking, _set_thinking_fidelity)

    def _run(
        self,
        values: list[str],
        state: int,
        one: Callable[[str], None],
        layout: Layout,
        cls: type[TextDelta] | type[ThinkingDelta],
        set_value: Callable[[Any, str], None],
        set_fidelity: Callable[[Any, None], None],
    ) -> None:
        """`one` (text or thinking) of each value in turn: until its item is open, by
        calling it; then each non-empty value is one delta built as `one` builds it,
        and an empty one adds nothing, as in `one`."""
        n = 0
        count = len(values)
        while n < count and self.state != state:
            one(values[n])
            n += 1
        if n == count:
            return
        if _COMPILED:
            deltas(values, n, layout, self.now, self.out, self._parts)
            return
        rest = values[n:] if n else values
        if len(rest) >= _COLUMN_RUN and all(rest):
            self._by_columns(rest, layout)
            return
        now = self.now
        out = self.out
        parts = self._parts
        for value in rest:
            if value:
                parts.append(value)
                item = _new(cls)
                set_value(item, value)
                set_fidelity(item, None)
                event = _new(_DeltaEvent)
                _set_event_item(event, item)
                _set_event_created(event, now)
                out.append(event)

    def _by_columns(self, values: list[str], layout: Layout) -> None:
        """The deltas of non-empty `values`, each as unievent._deltas builds it from
        `layout`, made field by field over all of them (the setters return None, so
        `any` runs every one)."""
        cls, value_slot, fixed, event_cls, item_slot, created_slot = layout
        count = len(values)
        items: list[Any] = list(map(_new, repeat(cls, count)))
        any(map(value_slot.__set__, items, values))
        for slot, value in fixed:
            any(map(slot.__set__, items, repeat(value, count)))
        events: list[Any] = list(map(_new, repeat(event_cls, count)))
        any(map(item_slot.__set__, events, items))
        any(map(created_slot.__set__, events, repeat(self.now, count)))
        self._parts.extend(values)
        self.out.extend(events)

    def _add_text(self, kind: int, value: str, fidelity: Fidelity | None) -> None:
        """text() and thinking() when an item opens, closes or takes fidelity."""
        state = G.STATE_OF_KIND[kind]
        if self.state != state:
            if not value and fidelity is None:
                return  # an empty fragment opens nothing
            self._follow(G.CONTINUE_PLAN[self.state][kind] if G.CONTINUE_PLAN[self.state] else None, G.KINDS[kind])
            self.state = state
        elif fidelity is not None and self._fidelity is not None and fidelity != self._fidelity:
            self.close()  # another fidelity is another item
            self._follow(G.CONTINUE_PLAN[self.state][kind], G.KINDS[kind])
            self.state = state
        elif not value and (fidelity is None or fidelity == self._fidelity):
            return
        self._parts.append(value)
        taken = self._take_fidelity(fidelity)
        item = TextDelta(value, taken) if kind == G.K_TEXT else ThinkingDelta(value, taken)
        self.out.append(fast_delta_event(item, self.now))

    def tool_call(self, name: str, tool_call_id: str, arguments: str = "", fidelity: Fidelity | None = None) -> None:
        """Open a new tool call; its first delta carries the name and id."""
        if not name or not tool_call_id:
            raise ValueError("a tool call opens with a non-empty name and tool_call_id")
        self._follow(G.OPEN_PLAN[self.state][G.K_TOOL_CALL], "tool_call")
        self.state = _STATE_TOOL
        self._header = (name, tool_call_id)
        self._parts.append(arguments)
        self.out.append(
            fast_delta_event(ToolCallDelta(name, arguments, tool_call_id, self._take_fidelity(fidelity)), self.now)
        )

    def tool_arguments(self, fragment: str) -> None:
        """Add an arguments fragment to the open tool call."""
        if self.state != _STATE_TOOL:
            raise RuntimeError("tool-call arguments with no tool call open")
        if not fragment:
            return
        if _COMPILED:  # one call into C, where the setters below would be eight calls
            deltas([fragment], 0, _ARGUMENTS_LAYOUT, self.now, self.out, self._parts)
            return
        self._parts.append(fragment)
        item = _new(_ToolCallDelta)
        _set_args_name(item, "")
        _set_args(item, fragment)
        _set_args_id(item, "")
        _set_args_fidelity(item, None)
        event = _new(_DeltaEvent)
        _set_event_item(event, item)
        _set_event_created(event, self.now)
        self.out.append(event)

    def tool_arguments_run(self, fragments: list[str]) -> None:
        """tool_arguments() of each fragment in turn (a run of hot deltas)."""
        if self.state != _STATE_TOOL:
            raise RuntimeError("tool-call arguments with no tool call open")
        if _COMPILED:
            deltas(fragments, 0, _ARGUMENTS_LAYOUT, self.now, self.out, self._parts)
        elif len(fragments) >= _COLUMN_RUN and all(fragments):
            self._by_columns(fragments, _ARGUMENTS_LAYOUT)
        else:
            for fragment in fragments:
                self.tool_arguments(fragment)

    def fidelity(self, fidelity: Fidelity) -> None:
        """Attach fidelity to the open item (an empty delta carries it), if it has none."""
        kind = G.KIND_OF_STATE[self.state]
        if kind == G.K_TEXT:
            self.text("", fidelity)
        elif kind == G.K_THINKING:
            self.thinking("", fidelity)
        elif self._fidelity is not None and fidelity != self._fidelity:
            # a tool call or a binary chunk cannot be split in two: the first wins
            self.anomalies.note("second_fidelity", f"a second fidelity for the open {G.KINDS[kind]} item was dropped")
        elif kind == G.K_TOOL_CALL:
            taken = self._take_fidelity(fidelity)
            if taken is not None:
                self.out.append(fast_delta_event(ToolCallDelta("", "", "", taken), self.now))
        elif kind in (G.K_INLINE_DATA, G.K_INLINE_THINKING):
            taken = self._take_fidelity(fidelity)
            if taken is not None:
                cls = InlineDataDelta if kind == G.K_INLINE_DATA else InlineThinkingDelta
                self.out.append(fast_delta_event(cls(b"", self._mime, taken), self.now))

    def inline_data(
        self, data: bytes, mime_type: str, new_item: bool = False, fidelity: Fidelity | None = None
    ) -> None:
        """Add binary output; every image is its own item, audio chunks of one type continue."""
        self._binary(G.K_INLINE_DATA, InlineDataDelta, data, mime_type, new_item, fidelity)

    def inline_thinking(self, data: bytes, mime_type: str, fidelity: Fidelity | None = None) -> None:
        """Add a thought image: always its own item."""
        self._binary(G.K_INLINE_THINKING, InlineThinkingDelta, data, mime_type, True, fidelity)

    def _binary(self, kind: int, cls: Any, data: bytes, mime: str, new_item: bool, fidelity: Fidelity | None) -> None:
        opening = (
            new_item
            or self.state != G.STATE_OF_KIND[kind]
            or mime.startswith("image/")  # every image is an item of its own
            or mime != self._mime  # and so is a chunk of another type
            or (fidelity is not None and self._fidelity is not None and fidelity != self._fidelity)
        )
        plans = G.OPEN_PLAN if opening else G.CONTINUE_PLAN
        plan = plans[self.state]
        self._follow(plan[kind] if plan else None, G.KINDS[kind])
        if opening:
            self._mime = mime
        self.state = G.STATE_OF_KIND[kind]
        self._parts.append(data)
        self.out.append(fast_delta_event(cls(data, self._mime, self._take_fidelity(fidelity)), self.now))

    def embedding(self, vector: list[float]) -> None:
        """One embedding vector: its own item."""
        plan = G.OPEN_PLAN[self.state]
        self._follow(plan[G.K_EMBEDDING] if plan else None, "embedding")
        self.state = G.STATE_OF_KIND[G.K_EMBEDDING]
        self._parts.append(vector)
        self.out.append(fast_delta_event(EmbeddingDelta(vector), self.now))

    def adopt(self, event: DeltaEvent) -> None:
        """Take an event built elsewhere (an MMSP server's, checked against the grammar
        already) as it is: it goes out unchanged, and the open item is followed so that
        `close()` and `pending_done()` know what it holds."""
        item: Any = event.item
        kind = G.KINDS.index(item.kind)
        if item.type.endswith(".done"):
            self.state = _DEST[self.state][G.DONE_OF_KIND[kind]]
            self._parts = []
            self._fidelity = None
            self.done_items.append(item)
        else:
            if self.state != G.STATE_OF_KIND[kind]:
                self._parts = []
                self._fidelity = None
                if kind == G.K_TOOL_CALL:
                    self._header = (item.name, item.tool_call_id)
                elif kind in (G.K_INLINE_DATA, G.K_INLINE_THINKING):
                    self._mime = item.mime_type
            self.state = _DEST[self.state][G.DELTA_OF_KIND[kind]]
            if kind in (G.K_TEXT, G.K_THINKING):
                self._parts.append(item.text if kind == G.K_TEXT else item.thinking)
            elif kind == G.K_TOOL_CALL:
                self._parts.append(item.arguments)
            elif kind == G.K_EMBEDDING:
                self._parts.append(item.embedding)
            else:
                self._parts.append(item.data)
            if getattr(item, "fidelity", None) is not None:
                self._fidelity = item.fidelity
        self.out.append(event)

    def adopt_stop(self, event: StopEvent) -> None:
        """Take a stop event built elsewhere (see `adopt`)."""
        self.state = _DEST[self.state][G.SY_STOP]
        self.out.append(event)

    # --- ending -----------------------------------------------------------------------

    @property
    def open_kind(self) -> str | None:
        """The kind of the open item, or None."""
        kind = G.KIND_OF_STATE[self.state]
        return G.KINDS[kind] if kind >= 0 else None

    def pending_done(self) -> DoneItem | None:
        """The done item the open text or thinking item would close with (not emitted)."""
        kind = G.KIND_OF_STATE[self.state]
        if kind == G.K_TEXT:
            return TextDone("".join(self._parts), self._fidelity)
        if kind == G.K_THINKING:
            return ThinkingDone("".join(self._parts), self._fidelity)
        return None

    def close(self) -> None:
        """Emit the open item's done (if an item is open)."""
        closing = G.CLOSING[self.state]
        if closing >= 0:
            self._emit_done(closing)

    def stop(self, usage: Usage, finish_reason: Any) -> StopEvent:
        """Close the open item and emit the stop event."""
        self._follow(G.STOP_PLAN[self.state], "stop")
        self.state = _DEST[self.state][G.SY_STOP]
        event = StopEvent(usage, finish_reason, self.now)
        self.out.append(event)
        return event
