# Which build runs: the mypyc-compiled hot modules or their pure-Python sources.
#
# A compiled build installs `<module>.cpython-3XX-<platform>.so` beside `<module>.py`;
# Python's path finder prefers the extension module.  With UNIEVENT_PURE=1 in the
# environment, a finder placed first on sys.meta_path hands out the `.py` beside each
# unievent extension module instead, so one install (or one editable checkout) runs
# either build.  An editable checkout also keeps the hashes of the sources it compiled
# (_compiled_sources.txt): when a source was edited since, the compiled modules are
# stale and the pure ones run, with a warning.  This module must stay pure Python and
# be imported before any hot module (unievent/__init__.py imports it first).
from __future__ import annotations

import os
import sys
from importlib.machinery import EXTENSION_SUFFIXES, ExtensionFileLoader, ModuleSpec, PathFinder
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from collections.abc import Sequence
    from types import ModuleType

__all__ = ["PureFinder", "compiled", "pure_requested"]

# realpath: in a strict editable install this file is a link into the checkout
_SRC = os.path.dirname(os.path.dirname(os.path.realpath(__file__)))  # the folder holding unievent/
_HASHES = os.path.join(_SRC, "unievent", "_compiled_sources.txt")


def pure_requested() -> bool:
    return os.environ.get("UNIEVENT_PURE", "").strip().lower() not in ("", "0", "false", "no")


class PureFinder:
    """Finds `unievent.*` modules as usual, but gives the source beside an extension."""

    @classmethod
    def find_spec(
        cls, name: str, path: Sequence[str] | None = None, target: ModuleType | None = None
    ) -> ModuleSpec | None:
        if not name.startswith("unievent.") or path is None:
            return None
        spec = PathFinder.find_spec(name, path, target)
        if spec is None or not isinstance(spec.loader, ExtensionFileLoader) or spec.origin is None:
            return spec
        origin = spec.origin
        for suffix in EXTENSION_SUFFIXES:
            if origin.endswith(suffix):
                source = origin[: -len(suffix)] + ".py"
                if os.path.isfile(source):
                    from importlib.util import spec_from_file_location  # noqa: PLC0415

                    return spec_from_file_location(name, source)
        return spec


def _stale() -> list[str]:
    """Compiled sources edited since they were compiled (editable checkouts only)."""
    if not os.path.isfile(_HASHES):  # a wheel install: nothing to check
        return []
    import hashlib  # noqa: PLC0415

    stale = []
    with open(_HASHES, encoding="utf-8") as lines:
        for line in lines:
            digest, _, rel = line.rstrip("\n").partition("  ")
            try:
                with open(os.path.join(_SRC, rel), "rb") as source:
                    if hashlib.sha256(source.read()).hexdigest() != digest:
                        stale.append(rel)
            except OSError:
                stale.append(rel)
    return stale


def _install() -> None:
    if PureFinder in sys.meta_path:
        return
    if not pure_requested():
        stale = _stale()
        if not stale:
            return
        import warnings  # noqa: PLC0415

        warnings.warn(
            f"unievent: {', '.join(stale)} changed since compiled: running the pure-Python modules "
            "(rebuild with `pip install -e .`, or set UNIEVENT_PURE=1 to silence this)",
            RuntimeWarning,
            stacklevel=3,
        )
    sys.meta_path.insert(0, PureFinder)


def compiled() -> bool:
    """Whether the framer runs compiled (call after the hot modules are imported)."""
    module = sys.modules.get("unievent._framing.sse")
    return module is not None and isinstance(getattr(module.__spec__, "loader", None), ExtensionFileLoader)


_install()
