"""Load a declaration through `transitions` and flatten it to integer tables.

The `transitions` MarkupMachine is the reader of record: it expands source lists,
`"="` reflexive targets and keeps declaration order per (source, trigger), which is
the order in which guarded alternatives are tried (first passing wins).  Everything
the generator and the diagrams need comes from its markup, so the runtime tables
cannot disagree with what `transitions` itself would do.
"""

from __future__ import annotations

import hashlib
import importlib
import json
from dataclasses import dataclass, field
from types import ModuleType
from typing import Any

from transitions.extensions.markup import MarkupMachine


@dataclass(frozen=True)
class Alternative:
    """One declared transition for a (state, symbol) pair."""

    dest: int
    conditions: tuple[int, ...]
    unless: tuple[int, ...]
    actions: tuple[int, ...]


@dataclass
class Machine:
    """A declaration flattened to integers, in declaration order."""

    name: str
    doc: str
    states: list[str]
    symbols: list[str]
    guards: list[str]
    actions: list[str]
    guard_docs: dict[str, str]
    action_docs: dict[str, str]
    initial: int
    final: list[int]
    # table[state][symbol] -> alternatives, first passing wins; empty means error
    table: list[list[list[Alternative]]] = field(default_factory=list)
    digest: str = ""
    markup: dict[str, Any] = field(default_factory=dict)
    module: ModuleType | None = None
    # HAPPY_PATHS: named walks of a typical complete stream, symbol names from INITIAL
    happy_paths: dict[str, tuple[str, ...]] = field(default_factory=dict)

    @property
    def guarded(self) -> bool:
        return bool(self.guards)


def load_declaration(name: str) -> ModuleType:
    return importlib.import_module(f"machines.{name}")


def build_transitions_machine(decl: ModuleType, initial: str | None = None) -> MarkupMachine:
    """The reference `transitions` machine for a declaration (audits and markup)."""
    return MarkupMachine(
        states=list(decl.STATES),
        transitions=list(decl.TRANSITIONS),
        initial=initial or decl.INITIAL,
        auto_transitions=False,
        name=decl.NAME,
    )


def _as_list(value: Any) -> list[str]:
    if value is None:
        return []
    if isinstance(value, str):
        return [value]
    return list(value)


def canonical_markup(markup: dict[str, Any], decl: ModuleType) -> str:
    """Stable text of everything that defines the machine; hashed into the digest."""
    keep = {
        "name": decl.NAME,
        "initial": markup["initial"],
        "states": [s["name"] for s in markup["states"]],
        "final": list(decl.FINAL),
        "symbols": list(decl.SYMBOLS),
        "transitions": markup["transitions"],
        "guards": dict(sorted(decl.GUARDS.items())),
        "actions": dict(sorted(decl.ACTIONS.items())),
    }
    return json.dumps(keep, sort_keys=True, separators=(",", ":"))


def flatten(name: str) -> Machine:
    return flatten_module(load_declaration(name))


def flatten_module(decl: ModuleType) -> Machine:
    """A declaration module (imported from machines/ or from any file) as a Machine."""
    name = decl.NAME
    markup: dict[str, Any] = dict(build_transitions_machine(decl).markup)
    states = [s["name"] for s in markup["states"]]
    symbols = list(decl.SYMBOLS)
    guards = list(decl.GUARDS)
    actions = list(decl.ACTIONS)
    s_index = {s: i for i, s in enumerate(states)}
    y_index = {y: i for i, y in enumerate(symbols)}
    g_index = {g: i for i, g in enumerate(guards)}
    a_index = {a: i for i, a in enumerate(actions)}
    table: list[list[list[Alternative]]] = [[[] for _ in symbols] for _ in states]
    for t in markup["transitions"]:
        trigger = t["trigger"]
        if trigger not in y_index:
            raise ValueError(f"{name}: trigger {trigger!r} is not in SYMBOLS")
        for source in _as_list(t["source"]):
            dest = t["dest"]
            alt = Alternative(
                dest=s_index[source if dest in ("=", None) else dest],
                conditions=tuple(g_index[g] for g in _as_list(t.get("conditions"))),
                unless=tuple(g_index[g] for g in _as_list(t.get("unless"))),
                actions=tuple(a_index[a] for a in _as_list(t.get("after"))),
            )
            table[s_index[source]][y_index[trigger]].append(alt)
    digest = hashlib.sha256(canonical_markup(markup, decl).encode()).hexdigest()
    m = Machine(
        name=decl.NAME,
        doc=(decl.__doc__ or "").strip(),
        states=states,
        symbols=symbols,
        guards=guards,
        actions=actions,
        guard_docs=dict(decl.GUARDS),
        action_docs=dict(decl.ACTIONS),
        initial=s_index[decl.INITIAL],
        final=[s_index[s] for s in decl.FINAL],
        table=table,
        digest=digest,
        markup=markup,
        module=decl,
    )
    m.happy_paths = {str(k): tuple(v) for k, v in getattr(decl, "HAPPY_PATHS", {}).items()}
    for title, path in m.happy_paths.items():
        walk(m, path, title)
    return m


@dataclass(frozen=True)
class Row:
    """One declared transition by name: `source` on `symbol` (when `guard` holds) to `dest`, doing `actions`."""

    source: str
    symbol: str
    guard: str  # "" for none; "a & !b" for conditions a and unless b
    dest: str
    actions: tuple[str, ...]

    def label(self) -> str:
        text = self.symbol + (f" [{self.guard}]" if self.guard else "")
        return text + (" / " + ", ".join(self.actions) if self.actions else "")


def rows(m: Machine) -> list[Row]:
    """Every declared alternative, by state, then symbol, then declaration order."""
    out = []
    for s, row in enumerate(m.table):
        for y, alts in enumerate(row):
            for alt in alts:
                guard = [m.guards[g] for g in alt.conditions] + [f"!{m.guards[g]}" for g in alt.unless]
                actions = tuple(m.actions[a] for a in alt.actions)
                out.append(Row(m.states[s], m.symbols[y], " & ".join(guard), m.states[alt.dest], actions))
    return out


def walk(m: Machine, symbols: tuple[str, ...] | list[str], title: str = "walk") -> list[tuple[int, int]]:
    """The (state, symbol) steps of a walk from INITIAL; raises ValueError unless it is a complete stream.

    A guarded step takes the first declared alternative, as the assembly planner does
    (guards are content rules, not part of the walk).  A walk ends in a FINAL state,
    by `eof` when the machine has that symbol.
    """
    y_index = {y: i for i, y in enumerate(m.symbols)}
    state, steps = m.initial, []
    if not symbols:
        raise ValueError(f"{m.name}: happy path {title!r} is empty")
    for position, symbol in enumerate(symbols):
        if symbol not in y_index:
            raise ValueError(f"{m.name}: happy path {title!r}: {symbol!r} is not in SYMBOLS")
        alts = m.table[state][y_index[symbol]]
        if not alts:
            raise ValueError(
                f"{m.name}: happy path {title!r}: symbol {position} ({symbol}) is not declared in {m.states[state]!r}"
            )
        steps.append((state, y_index[symbol]))
        state = alts[0].dest
    if state not in m.final:
        raise ValueError(f"{m.name}: happy path {title!r} ends in {m.states[state]!r}, not in a final state")
    if "eof" in y_index and symbols[-1] != "eof":
        raise ValueError(f"{m.name}: happy path {title!r} does not end with eof")
    return steps
