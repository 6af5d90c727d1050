"""The public API as users see it: every name exported and documented, the types a
type checker reads equal to what runs, and a user script of every public name.

`tests/typing_user.py` is that script: `mypy --strict` checks it with the suite's own
configuration (CI runs it), `assert_type` pinning what a user's checker infers; here it
also runs.
"""

from __future__ import annotations

import ast
import inspect
import runpy
import typing
from pathlib import Path

import pytest

import unievent
import unievent._decoder
from unievent import _api

API_SOURCE = Path(_api.__file__).read_text()


def test_every_public_name_is_exported_and_documented() -> None:
    assert sorted(unievent.__all__) == sorted(set(unievent.__all__))
    for name in unievent.__all__:
        value = getattr(unievent, name)
        if inspect.isclass(value) or inspect.isfunction(value):
            assert inspect.getdoc(value), f"{name} has no docstring"


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
    runtime = inspect.signature(unievent._decoder.StreamDecoder.__init__).parameters
    keyword_only = {name for name, p in runtime.items() if p.kind is inspect.Parameter.KEYWORD_ONLY}
    assert list(runtime)[:2] == ["self", "protocol"]
    assert keyword_only == _declared_options() | {"side_events"}


def test_the_typed_decoder_declares_the_running_ones_public_methods() -> None:
    tree = ast.parse(API_SOURCE)
    [facade] = [n for n in ast.walk(tree) if isinstance(n, ast.ClassDef) and n.name == "StreamDecoder"]
    declared = {n.name for n in facade.body if isinstance(n, ast.FunctionDef)} - {"__init__"}
    public = {name for name in dir(unievent._decoder.StreamDecoder) if not name.startswith("_")}
    assert declared == public - {"argument_failure"}  # internal, for the typed errors


def test_an_option_that_does_not_exist_fails_at_run_time_too() -> None:
    with pytest.raises(TypeError):
        unievent.StreamDecoder("openai_chat", strict_argument=False)  # type: ignore[call-overload]


def test_a_user_script_of_every_public_name_runs() -> None:
    runpy.run_path(str(Path(__file__).with_name("typing_user.py")), run_name="typing_user")
