# bytes.find and bytes.rfind as functions: the pure-Python build's stand-in for the
# compiled build's `_search` extension module (_search.c), and the definition that
# module is tested against (tests/test_search.py).  The framers call them where they
# look for line ends and blank lines in a push.  Compiled, a call to a bytes method
# costs about 1,000 instructions of argument parsing; the extension's functions are
# called as C functions.  Run as source, these are the methods themselves, called as
# the framers called them before.
from __future__ import annotations

__all__ = ["find", "rfind"]

find = bytes.find
rfind = bytes.rfind
