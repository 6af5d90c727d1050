"""CI: build the API reference with pdoc; fail on any warning and on broken cross-references.

    python .ci/smoke_docs.py OUTPUT_DIR

pdoc reports what it cannot document (a module that fails to import, an annotation it
cannot evaluate, a bad `__all__`, a `repr()` that raises, ...) as Python warnings, which
its command line prints to stderr as `Warn: ...`: any output from it fails this check.

pdoc does not warn about a cross-reference it cannot resolve: it leaves the text as it
is, unlinked.  So the rendered HTML is read back, and every `` `name` `` of a docstring
left unlinked whose first dotted part is a class, function or constant defined at the
top of a module of the package counts as broken (typically the name of a private
helper, which the reference does not document).  The package is documented from its
Python sources (UNIEVENT_PURE=1), whichever build is installed.
"""

from __future__ import annotations

import ast
import html
import os
import re
import subprocess
import sys
from pathlib import Path

PACKAGE = "unievent"
_CODE = re.compile(r"<code>(.*?)</code>", re.S)
_TAG = re.compile(r"<[^>]+>")
_NAME = re.compile(r"[A-Za-z_]\w*(?:\.\w+)*(?:\(\))?")
_TITLE = re.compile(r'<section id="([^"]+)">')


def package_dir() -> Path:
    """Where the installed package's sources are, without importing it here."""
    code = f"import importlib.util as u; print(u.find_spec({PACKAGE!r}).submodule_search_locations[0])"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return Path(done.stdout.strip())


def defined_names(root: Path) -> set[str]:
    """Top-level classes, functions and assigned names of every module of the package."""
    names: set[str] = set()
    for path in root.rglob("*.py"):
        for node in ast.parse(path.read_text(encoding="utf-8"), str(path)).body:
            if isinstance(node, ast.ClassDef | ast.FunctionDef | ast.AsyncFunctionDef):
                names.add(node.name)
            elif isinstance(node, ast.Assign):
                names.update(t.id for t in node.targets if isinstance(t, ast.Name))
            elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name):
                names.add(node.target.id)
    return names - {"__all__"}


def run_pdoc(out: Path) -> list[str]:
    env = {**os.environ, "UNIEVENT_PURE": "1"}
    done = subprocess.run(
        [sys.executable, "-m", "pdoc", PACKAGE, "-o", str(out)], env=env, capture_output=True, text=True, check=False
    )
    problems = [line for line in (done.stdout + done.stderr).splitlines() if line.strip()]
    if done.returncode != 0:
        problems.append(f"pdoc exited {done.returncode}")
    return problems


def broken_references(out: Path, defined: set[str]) -> list[str]:
    broken = []
    for page in sorted(out.rglob("*.html")):
        text = page.read_text(encoding="utf-8")
        for found in _CODE.finditer(text):
            inner = found.group(1)
            if "<a " in inner:
                continue
            name = html.unescape(_TAG.sub("", inner)).strip()
            if not _NAME.fullmatch(name) or name.split(".")[0].removesuffix("()") not in defined:
                continue
            # the documented object whose docstring says it: the last section opened before it
            sections = _TITLE.findall(text, 0, found.start())
            where = sections[-1] if sections else page.stem
            broken.append(f"{page.relative_to(out)}: `{name}` in the docstring of {where} links nowhere")
    return broken


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    out = Path(argv[0])
    problems = run_pdoc(out)
    if out.is_dir():
        problems += broken_references(out, defined_names(package_dir()))
    for line in problems:
        print(f"pdoc: {line}", file=sys.stderr)
    if problems:
        print(f"the API reference has {len(problems)} problem(s): fix the docstrings", file=sys.stderr)
        return 1
    pages = sorted(p.name for p in out.rglob("*.html"))
    print(f"API reference: {len(pages)} pages in {out}, no warnings, every cross-reference resolved")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
