"""Every Python example in the README runs, and prints what the README says it prints."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

README = (Path(__file__).resolve().parent.parent / "README.md").read_text()
BLOCKS = re.findall(r"```python\n(.*?)```(?:\n\nprints\n\n```\n(.*?)```)?", README, flags=re.S)
# examples that talk to a live endpoint over HTTP say so
RUNNABLE = [(code, shown) for code, shown in BLOCKS if "httpx.stream" not in code and "needs a live upstream" not in code]


def test_the_readme_has_examples() -> None:
    assert len(RUNNABLE) >= 6


@pytest.mark.parametrize(("code", "shown"), RUNNABLE, ids=[f"example{i}" for i in range(len(RUNNABLE))])
def test_readme_example_runs(code: str, shown: str) -> None:
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(compile(code, "README.md", "exec"), {"__name__": "readme"})
    if shown:
        assert out.getvalue() == shown
