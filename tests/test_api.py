"""The public API as users see it: every name exported and documented, the types a
type checker reads equal to what runs, and a user script of every public name.

`tests/typing_user.py` is that script: `mypy --strict` checks it with the suite's own
configuration (CI runs it), `assert_type` pinning what a user's checker infers; here it
also runs.
"""

from __future__ import annotations

import ast
import inspect
import os
import runpy
import sys
import typing
from pathlib import Path

import pytest

import unievent
import unievent._decoder
from unievent import _api

API_SOURCE = Path(_api.__file__).read_text()


DECODER_SOURCE = ast.parse((Path(_api.__file__).parent / "_decoder.py").read_text())
[RUNTIME_DECODER] = [n for n in ast.walk(DECODER_SOURCE) if isinstance(n, ast.ClassDef) and n.name == "StreamDecoder"]


def _documented(value: object) -> bool:
    """A docstring, read from the source where a compiled build dropped it."""
    if inspect.getdoc(value):
        return True
    module = sys.modules[getattr(value, "__module__", "")]
    compiled = Path(module.__file__ or "")
    tree = ast.parse(compiled.with_name(compiled.name.split(".")[0] + ".py").read_text())
    name = getattr(value, "__name__", "")
    return any(
        isinstance(node, ast.ClassDef | ast.FunctionDef) and node.name == name and ast.get_docstring(node)
        for node in ast.walk(tree)
    )


def test_every_public_name_is_exported_and_documented() -> None:
    assert sorted(unievent.__all__) == sorted(set(unievent.__all__))
    for name in unievent.__all__:
        value = getattr(unievent, name)
        if inspect.isclass(value) or inspect.isfunction(value):
            assert _documented(value), f"{name} has no docstring"


def test_the_version_is_the_installed_distributions() -> None:
    from importlib.metadata import version

    assert unievent.__version__ == version("unievent")


def test_the_protocol_literal_names_every_protocol_and_auto() -> None:
    assert set(typing.get_args(unievent.ProtocolName)) == {"auto", *unievent.PROTOCOLS}


def test_the_framing_literal_names_every_framing() -> None:
    from unievent._framing.sniff import FRAMERS

    assert set(typing.get_args(unievent.Framing)) == set(FRAMERS)


def _declared_options() -> set[str]:
    """The keyword options the typed StreamDecoder declares in Options."""
    tree = ast.parse(API_SOURCE)
    keys: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.ClassDef) and node.name == "Options":
            keys |= {s.target.id for s in node.body if isinstance(s, ast.AnnAssign) and isinstance(s.target, ast.Name)}
    return keys


def test_the_typed_decoder_takes_exactly_the_options_the_running_one_takes() -> None:
    # read from the source: a compiled class has no signature to inspect
    [init] = [n for n in RUNTIME_DECODER.body if isinstance(n, ast.FunctionDef) and n.name == "__init__"]
    assert [a.arg for a in init.args.args] == ["self", "protocol"]
    assert {a.arg for a in init.args.kwonlyargs} == _declared_options() | {"side_events"}


def test_the_typed_decoder_declares_the_running_ones_public_methods() -> None:
    tree = ast.parse(API_SOURCE)
    [facade] = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == "StreamDecoder"]
    declared = {n.name for n in facade.body if isinstance(n, ast.FunctionDef)} - {"__init__"}
    public = {n.name for n in RUNTIME_DECODER.body if isinstance(n, ast.FunctionDef) and not n.name.startswith("_")}
    assert declared == public - {"argument_failure"}  # internal, for the typed errors


def test_an_option_that_does_not_exist_fails_at_run_time_too() -> None:
    with pytest.raises(TypeError):
        unievent.StreamDecoder("openai_chat", strict_argument=False)  # type: ignore[call-overload]


def test_a_user_script_of_every_public_name_runs() -> None:
    runpy.run_path(str(Path(__file__).with_name("typing_user.py")), run_name="typing_user")


def test_a_stream_id_is_16_hex_digits_and_unique_also_in_a_forked_child() -> None:
    # it names made-up tool-call ids (`call_<stream_id>_<n>`): unique, not secret
    ids = {unievent.StreamDecoder("openai_chat").stream_id for _ in range(2000)}
    assert len(ids) == 2000
    assert all(len(i) == 16 and int(i, 16) >= 0 and i == i.lower() for i in ids)
    if not hasattr(os, "fork"):
        return
    read, write = os.pipe()
    child = os.fork()
    if child == 0:  # the child writes its first id and leaves at once
        os.write(write, unievent.StreamDecoder("openai_chat").stream_id.encode())
        os._exit(0)
    os.close(write)
    os.waitpid(child, 0)
    theirs = os.read(read, 64).decode()
    os.close(read)
    assert theirs != unievent.StreamDecoder("openai_chat").stream_id
    assert len(theirs) == 16
