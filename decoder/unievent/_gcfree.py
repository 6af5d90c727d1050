# The pure-Python build's stand-in for the compiled build's `_gcfree` extension module
# (_gcfree.c), which takes the decoder's atomic events off the cyclic garbage
# collector's lists.  Python code cannot untrack an object, so here nothing is done:
# the events are the same, only the collector walks them (see tests/bench/README.md,
# "The whole-body cost").  The hot modules call it only where they run compiled.
from __future__ import annotations

from typing import Any

__all__ = ["untrack"]


def untrack(objects: list[Any], start: int, kinds: tuple[type, ...]) -> None:
    """Untrack objects[start:] of the classes `kinds` whose referents are atomic (the
    compiled build); here, nothing."""
