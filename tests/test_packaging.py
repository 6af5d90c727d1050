"""Packaging: what `pip install -e '.[dev]'` asks for, and the CI scripts that check a
built wheel and sdist (.ci/smoke.py) and the API reference (.ci/smoke_docs.py).

CI (.ci/run) builds both artifacts with `python -m build`, installs each into a fresh
venv and runs .ci/smoke.py there; these tests keep that script and the pdoc check in
step with the package, in the checkout, in a second or two.
"""

from __future__ import annotations

import importlib.util
import re
import tomllib
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parent.parent
PYPROJECT = tomllib.loads((ROOT / "pyproject.toml").read_text())


def _names(requirements: list[str]) -> set[str]:
    return {re.split(r"[<>=!~;\[ ]", r, maxsplit=1)[0].lower() for r in requirements}


def _load(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(f"ci_{name}", ROOT / ".ci" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_runtime_dependencies() -> None:
    assert _names(PYPROJECT["project"]["dependencies"]) == {"attrs", "cattrs", "orjson", "jiter"}


def test_the_dev_extra_installs_everywhere_pygraphviz_is_its_own_extra() -> None:
    extras = PYPROJECT["project"]["optional-dependencies"]
    dev = _names(extras["dev"])
    # no wheel on musl, old glibc or Intel macOS: never part of `pip install -e '.[dev]'`
    assert "pygraphviz" not in dev
    assert _names(extras["diagrams"]) == {"pygraphviz"}
    assert {"graphviz", "transitions"} <= dev
    assert {"httpx", "aiohttp", "requests", "openai", "anthropic", "pdoc", "build"} <= dev
    assert {"pytest", "hypothesis", "mypy", "ruff"} <= dev


def test_ci_installs_and_tests_as_the_readme_says() -> None:
    run = (ROOT / ".ci" / "run").read_text()
    readme = (ROOT / "README.md").read_text()
    # the README's two commands, each maybe with a comment after it
    assert re.search(r"^pip install -e '\.\[dev\]'(  +#.*)?\npytest(  +#.*)?$", readme, re.M)
    # and CI runs that pytest, with no arguments (once per build)
    assert len(re.findall(r"^(UNIEVENT_\w+=1 )?pytest( +#.*)?$", run, re.M)) == 2
    assert re.search(r"^UNIEVENT_COMPILE=1 python -m pip install --quiet -e '\.\[dev\]'$", run, re.M)
    for step in ("python -m codegen --check", "ruff check .", "mypy --strict", "python .ci/smoke_docs.py"):
        assert re.search(rf"^{re.escape(step)}", run, re.M), step
    assert "python -m build" in run and ".ci/smoke.py" in run


def test_the_smoke_decode_holds_for_the_build_in_use(capsys: pytest.CaptureFixture[str]) -> None:
    smoke = _load("smoke")
    smoke.check_decode()
    smoke.check_cli()
    out = capsys.readouterr().out
    assert "complete, text 'Hello'" in out and "`unievent decode` exit 0" in out


def test_the_smoke_test_refuses_a_package_outside_site_packages() -> None:
    smoke = _load("smoke")
    import unievent

    site = Path(unievent.__file__).resolve().parent
    if site.is_relative_to(ROOT):  # an editable install or the source tree: what CI must not smoke-test
        with pytest.raises(SystemExit, match="not from this venv's site-packages"):
            smoke.check_installed(None)
    else:
        smoke.check_installed(None)


def test_the_docs_check_finds_an_unlinked_name_of_the_package(tmp_path: Path) -> None:
    docs = _load("smoke_docs")
    page = tmp_path / "unievent.html"
    page.write_text(
        '<section id="StreamDecoder"><p>see <code><a href="#Outcome">Outcome</a></code>, '
        "<code>_Helper.LIMIT</code>, <code>data:</code>, <code>orjson.loads</code> and <code>_helper()</code>"
        "</p></section>"
    )
    found = docs.broken_references(tmp_path, {"_Helper", "_helper", "Outcome"})
    assert found == [
        "unievent.html: `_Helper.LIMIT` in the docstring of StreamDecoder links nowhere",
        "unievent.html: `_helper()` in the docstring of StreamDecoder links nowhere",
    ]


def test_the_docs_check_knows_the_names_the_package_defines() -> None:
    docs = _load("smoke_docs")
    names = docs.defined_names(ROOT / "decoder" / "unievent")
    assert {"StreamDecoder", "Outcome", "iter_events"} <= names
    assert "__all__" not in names
