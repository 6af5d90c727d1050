"""The documentation under docs/: every example runs and prints what its page says it
prints, and the site covers what it must (every protocol and framing its page and its
drawing, every public name its reference entry, a README that fits on a few screens).

An example is a ```python block, optionally followed by "prints" and a ``` block with
the exact output (the convention of tests/test_readme.py).  An example that needs a
live endpoint says so in its first lines ("needs a live endpoint", "needs a live
upstream"), and a template says "a template, not run": those are compiled, not run.
An example that imports a package unievent does not depend on (an SDK, a web
framework) is skipped when that package is not installed.  Examples run from the
repository's root, each in a namespace of its own.

The site itself is built by `python -m sphinx -W --keep-going -b html docs OUT`, which
fails on a broken reference or a missing drawing.
"""

from __future__ import annotations

import contextlib
import io
import re
import typing
from pathlib import Path

import pytest

import unievent

ROOT = Path(__file__).resolve().parent.parent
DOCS = ROOT / "docs"
DIAGRAMS = ROOT / "diagrams"
LANDING = ROOT / "README.md"  # the landing page: what unievent is, and links into the docs
PAGES = sorted(p for p in DOCS.rglob("*.md") if "_build" not in p.relative_to(DOCS).parts)

EXAMPLE = re.compile(r"```python\n(.*?)```(?:\n\nprints\n\n```\n(.*?)```)?", flags=re.S)
NOT_RUN = ("needs a live endpoint", "needs a live upstream", "a template, not run")
#: packages an example may import that unievent does not depend on
OPTIONAL = frozenset({"openai", "anthropic", "httpx", "starlette", "fastapi", "uvicorn", "requests", "aiohttp"})
#: each framing's page and machine (the framings of `unievent.Framing`)
FRAMINGS = typing.get_args(unievent.Framing)
#: protocols documented together on one page
SHARED_PAGES = {"openai_embeddings": "embeddings", "gemini_embeddings": "embeddings"}
#: the longest the landing README may be, in lines
LANDING_LINES = 250


class Example(typing.NamedTuple):
    page: str
    line: int
    code: str
    shown: str | None


def examples() -> list[Example]:
    found = []
    for page in PAGES:
        text = page.read_text(encoding="utf-8")
        for match in EXAMPLE.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append(Example(str(page.relative_to(ROOT)), line, match.group(1), match.group(2)))
    return found


EXAMPLES = examples()


def runs(example: Example) -> bool:
    head = "\n".join(example.code.splitlines()[:3])
    return not any(marker in head for marker in NOT_RUN)


@pytest.mark.parametrize("example", EXAMPLES, ids=[f"{e.page}:{e.line}" for e in EXAMPLES])
def test_example_runs_and_prints_what_the_page_shows(example: Example, monkeypatch: pytest.MonkeyPatch) -> None:
    code = compile(example.code, f"{example.page}:{example.line}", "exec")
    if not runs(example):
        assert example.shown is None, "an example that is not run shows no output"
        pytest.skip("needs a live endpoint, or a template: compiled only")
    monkeypatch.chdir(ROOT)
    out = io.StringIO()
    try:
        with contextlib.redirect_stdout(out):
            exec(code, {"__name__": "docs"})
    except ModuleNotFoundError as missing:
        if missing.name is None or missing.name.split(".")[0] not in OPTIONAL:
            raise
        pytest.skip(f"{missing.name} is not installed")
    if example.shown is not None:
        assert out.getvalue() == example.shown


def test_the_pages_have_examples_and_most_of_them_run() -> None:
    running = [e for e in EXAMPLES if runs(e)]
    assert len(running) >= 40
    assert {e.page for e in running} >= {
        "docs/getting-started.md",
        "docs/outcomes.md",
        "docs/encoding.md",
        "docs/replay.md",
        "docs/auto.md",
    }


def embedded(page: Path) -> set[Path]:
    """The drawings a page shows: its figure and image paths under diagrams/."""
    text = re.sub(r"````.*?````", "", page.read_text(encoding="utf-8"), flags=re.S)  # a page's source shown as such
    paths = re.findall(r"```\{(?:figure|image)\} (\S+\.svg)", text) + re.findall(r"!\[[^\]]*\]\((\S+\.svg)\)", text)
    return {(page.parent / path).resolve() for path in paths}


@pytest.mark.parametrize("name", sorted(unievent.PROTOCOLS))
def test_every_protocol_has_its_page_and_drawing(name: str) -> None:
    page = DOCS / "protocols" / f"{SHARED_PAGES.get(name, name)}.md"
    assert page.is_file(), f"{name} has no page: add {page.relative_to(ROOT)}"
    assert (DIAGRAMS / f"{name}.svg").resolve() in embedded(page), f"{page.name} does not show diagrams/{name}.svg"
    assert f"`{name}`" in (DOCS / "protocols" / "index.md").read_text(encoding="utf-8")


@pytest.mark.parametrize("name", FRAMINGS)
def test_every_framing_has_its_page_and_drawing(name: str) -> None:
    page = DOCS / "framings" / f"{name}.md"
    assert page.is_file(), f"the {name} framing has no page"
    assert (DIAGRAMS / f"{name}.svg").resolve() in embedded(page)


def test_every_drawing_is_shown_and_every_shown_drawing_is_committed() -> None:
    shown = set().union(*(embedded(page) for page in PAGES))
    committed = {path.resolve() for path in DIAGRAMS.glob("*.svg")}
    assert committed - shown == set(), "drawings no page shows"
    assert shown - committed == set(), "drawings that are not in diagrams/"


def test_the_reference_documents_every_public_name_once() -> None:
    text = (DOCS / "api.md").read_text(encoding="utf-8")
    documented = re.findall(r"^\.\. auto(?:function|class|exception|data):: (\w+)$", text, flags=re.M)
    assert sorted(documented) == sorted(set(documented)), "a name documented twice"
    assert set(documented) == set(unievent.__all__)


def test_the_landing_readme_is_short_and_its_links_resolve_from_the_root() -> None:
    text = LANDING.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= LANDING_LINES
    for target in re.findall(r"\]\(([^)#\s]+)(?:#[^)]*)?\)", text):
        if not target.startswith(("http://", "https://")):
            assert (ROOT / target).exists(), f"README link to {target} leads nowhere from the repository's root"
    # what tests/test_readme.py asks of it: at least 6 examples it runs (all but those with
    # `httpx.stream` or "needs a live upstream"), none of them live
    landing = [Example("README.md", 0, match.group(1), match.group(2)) for match in EXAMPLE.finditer(text)]
    readme_runs = [e for e in landing if "httpx.stream" not in e.code and "needs a live upstream" not in e.code]
    assert len(readme_runs) >= 6
    assert all(runs(e) for e in readme_runs), "tests/test_readme.py would run an example that needs a live endpoint"
