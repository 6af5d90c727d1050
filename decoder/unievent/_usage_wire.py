# How a wire writes token usage, declared once per protocol (beside its reader, in
# _protocols/<name>.py) and read by both directions: the reader takes a wire's counts
# by these paths before turning them into MMSP's meaning, the writer turns MMSP's
# counts back into them.
#
# A wire count is either one MMSP count or the sum of several (Chat Completions'
# `prompt_tokens` counts the cache reads MMSP keeps apart): `sums` says which.
from __future__ import annotations

from typing import Any

import attrs

from unievent._events import Usage
from unievent._shared import usage_counts

__all__ = ["UsageWire"]


@attrs.frozen
class UsageWire:
    """One wire's usage fields: `fields` maps each count's path in the usage object to
    its name; a name in `sums` is the sum of those MMSP counts (the first must be
    known), any other name is the MMSP count of that name."""

    fields: tuple[tuple[tuple[str, ...], str], ...]
    sums: dict[str, tuple[str, ...]] = attrs.field(factory=dict)
    #: a top-level total the wire writes (its key, the top-level counts it adds up);
    #: the reader does not need it
    total: tuple[str, tuple[str, ...]] | None = None
    #: (key, key within it or "", name) per field: usage objects nest two deep at most;
    #: a hot reader passes it to `usage_counts` itself (a compiled function)
    plan: tuple[tuple[str, str, str], ...] = attrs.field(init=False, repr=False, eq=False)

    def __attrs_post_init__(self) -> None:
        assert all(1 <= len(path) <= 2 for path, _ in self.fields), "a usage path is one or two keys"
        plan = tuple((path[0], path[1] if len(path) == 2 else "", name) for path, name in self.fields)
        object.__setattr__(self, "plan", plan)

    def read(self, usage: dict[str, Any]) -> dict[str, int]:
        """The wire's counts by name (non-negative integers only)."""
        return usage_counts(self.plan, usage)

    def write(self, usage: Usage) -> dict[str, Any]:
        """MMSP usage as this wire's usage object (counts it cannot know are left out)."""
        counts = {
            "cached": usage.cached_tokens,
            "prompt": usage.prompt_tokens,
            "thoughts": usage.thoughts_tokens,
            "response": usage.response_tokens,
        }
        out: dict[str, Any] = {}
        for path, name in self.fields:
            parts = self.sums.get(name, (name,))
            if counts.get(parts[0]) is None:
                continue
            value = sum(counts.get(part) or 0 for part in parts)
            target = out
            for key in path[:-1]:
                target = target.setdefault(key, {})
            target[path[-1]] = value
        if self.total is not None:
            key, parts = self.total
            if all(part in out for part in parts):
                out[key] = sum(out[part] for part in parts)
        return out
