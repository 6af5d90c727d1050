"""``python -m unievent`` and the ``unievent`` console script (see `unievent._cli`)."""

from __future__ import annotations

from unievent._cli import main

__all__ = ["main"]

if __name__ == "__main__":
    raise SystemExit(main())
