# The nesting of JSON text that arrives in pieces, tracked without rescanning.
#
# Only the characters that change the structure are visited: outside a string the
# brackets, braces and quotes; inside one the quote and the backslash (each found by
# a compiled pattern, in C).  A backslash that ends a piece escapes the first character
# of the next, so pieces may split anywhere.  Each piece is scanned once.
from __future__ import annotations

import re
from typing import Final

__all__ = ["Nesting"]

_OUTSIDE: Final = re.compile(r'["{}\[\]]')
_INSIDE: Final = re.compile(r'["\\]')


class Nesting:
    """Feed JSON text in pieces; `complete` says whether one top-level object or
    array has opened and closed (whatever follows it)."""

    __slots__ = ("_depth", "_escaped", "_in_string", "_opened", "complete")

    def __init__(self) -> None:
        self._depth = 0
        self._in_string = False
        self._escaped = False
        self._opened = False
        self.complete = False

    def feed(self, text: str) -> None:
        """Scan one more piece."""
        if self.complete:
            return
        pos = 0
        if self._escaped:
            self._escaped = False
            pos = 1
        end = len(text)
        depth = self._depth
        in_string = self._in_string
        while pos < end:
            if in_string:
                found = _INSIDE.search(text, pos)
                if found is None:
                    break
                pos = found.end()
                if found.group() == "\\":
                    if pos >= end:
                        self._escaped = True
                        break
                    pos += 1
                else:
                    in_string = False
                continue
            found = _OUTSIDE.search(text, pos)
            if found is None:
                break
            pos = found.end()
            char = found.group()
            if char == '"':
                in_string = True
            elif char in "{[":
                depth += 1
                self._opened = True
            else:
                depth -= 1
                if depth <= 0 and self._opened:
                    self.complete = True
                    break
        self._depth = depth
        self._in_string = in_string
