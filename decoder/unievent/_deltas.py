# The delta events of a run of text fragments: the pure-Python build's stand-in for the
# compiled build's `_deltas` extension module (_deltas.c), and the definition that
# module is tested against (tests/test_deltas.py).  The assembler (unievent._grammar)
# calls it only where it runs compiled; run as Python source it builds a run's events
# itself, by columns where the run is long (Assembler._run).
from __future__ import annotations

from typing import Any

__all__ = ["Layout", "deltas"]

#: (item class, value slot, ((slot, value), ...) fixed for every item, event class,
#: item slot, created_at slot), each slot a member descriptor of its class
Layout = tuple[type, Any, tuple[tuple[Any, Any], ...], type, Any, Any]


def deltas(values: list[Any], start: int, layout: Layout, created_at: Any, out: list[Any], parts: list[Any]) -> None:
    """For each true value of values[start:]: append it to `parts`, and append to `out`
    an event whose item holds it (object.__new__, then each slot set)."""
    if start < 0:
        raise ValueError("deltas: start is negative")
    item_class, value_slot, fixed, event_class, item_slot, created_at_slot = layout
    for value in values[start:]:
        if not value:
            continue
        parts.append(value)
        item: Any = object.__new__(item_class)
        value_slot.__set__(item, value)
        for slot, fixed_value in fixed:
            slot.__set__(item, fixed_value)
        event: Any = object.__new__(event_class)
        item_slot.__set__(event, item)
        created_at_slot.__set__(event, created_at)
        out.append(event)
