"""Which build runs: the mypyc-compiled hot modules or their pure-Python sources.

CI runs the suite twice, once with UNIEVENT_EXPECT_COMPILED=1 (the compiled build must
be the one imported) and once with UNIEVENT_PURE=1 (the pure-Python one must be).
"""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

import unievent
from unievent import _decoder


def flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no")


def test_the_build_asked_for_is_the_one_imported() -> None:
    loaded_from = _decoder.__file__ or ""
    if flag("UNIEVENT_PURE"):
        assert unievent.COMPILED is False
        assert loaded_from.endswith(".py")
    if flag("UNIEVENT_EXPECT_COMPILED"):
        assert unievent.COMPILED is True
        assert not loaded_from.endswith(".py")


def test_unievent_pure_switches_an_installed_compiled_build_to_the_sources() -> None:
    code = "import unievent, unievent._decoder as d; print(unievent.COMPILED, d.__file__.endswith('.py'))"
    env = {**os.environ, "UNIEVENT_PURE": "1"}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.split() == ["False", "True"]


@pytest.mark.skipif(not unievent.COMPILED, reason="the compiled build is not installed")
def test_both_builds_decode_alike() -> None:
    code = (
        "import unievent; d = unievent.StreamDecoder('anthropic', clock=lambda: 0, stream_id='s');"
        "e = d.push(b'data: {\"type\":\"content_block_delta\",\"index\":0,\"delta\":{\"type\":\"text_delta\",\"text\":\"hi\"}}\\n\\n');"
        "l, o = d.finish(); print(repr((e + l, o)))"
    )
    runs = [
        subprocess.run([sys.executable, "-c", code], env={**os.environ, "UNIEVENT_PURE": pure}, capture_output=True, text=True, check=True).stdout
        for pure in ("", "1")
    ]
    assert runs[0] == runs[1] and "hi" in runs[0]
