"""Sphinx configuration of the unievent documentation.

Build it from the repository root (CI runs exactly this, warnings as errors):

    python -m sphinx -W --keep-going -b html docs docs/_build/html

The pages are MyST Markdown; the API reference is autodoc, read from the docstrings of
the pure-Python sources.  The state-machine drawings are the committed SVGs of
``diagrams/``, embedded by relative path (Sphinx copies them; a missing one fails the
build).
"""

from __future__ import annotations

import os
import sys
import types
from collections.abc import Callable
from pathlib import Path
from typing import Any

import sphinx.util.typing
from sphinx.application import Sphinx
from sphinx.environment import BuildEnvironment
from sphinx.pycode import ModuleAnalyzer

DOCS = Path(__file__).resolve().parent
ROOT = DOCS.parent

# the pure-Python sources: the compiled modules carry the same docstrings but fewer signatures
os.environ.setdefault("UNIEVENT_PURE", "1")
if str(ROOT / "decoder") not in sys.path:  # a source checkout without an install
    sys.path.insert(0, str(ROOT / "decoder"))

import unievent  # noqa: E402

project = "unievent"
author = "the unievent authors"
project_copyright = "the unievent authors"
release = unievent.__version__
version = release

extensions = ["myst_parser", "sphinx.ext.autodoc"]
source_suffix = {".md": "markdown"}
root_doc = "index"
exclude_patterns = ["_build"]

myst_enable_extensions = ["colon_fence", "deflist"]
myst_heading_anchors = 3

# a docstring's `name` links to that name when it is documented, and is code otherwise
default_role = "py:obj"
# outputs shown under "prints" are plain text; python blocks say so
highlight_language = "none"
# docstrings quote code with straight quotes ("auto"): keep them straight
smartquotes = False

# every explicit reference (a page, a heading, {py:func}`...`) must resolve; the `name`s of
# the docstrings (default role, py:obj) may name a parameter or a field: those stay code
nitpicky = True
nitpick_ignore_regex = [
    ("py:obj", r".*"),
    # annotations naming the standard library and the two runtime dependencies' types
    ("py:class", r"(typing|collections\.abc|types|enum|asyncio|contextlib)\..*"),
    ("py:class", r"(Any|Callable|Iterable|Iterator|AsyncIterable|AsyncIterator|Awaitable|Literal|NoReturn)"),
    ("py:class", r"(Unpack|Self|TypeAlias|Mapping|Sequence|ReplayWarning\b.*)"),
    ("py:class", r"(attr|attrs|orjson)\..*"),
    ("py:class", r"NOTHING"),
    # private types a signature names (a source adapter, a writer's options, an internal error)
    ("py:class", r"(unievent\._[\w.]+|Source|ArgumentsError|EncodeOptions|ProtocolSpec)"),
]

autodoc_member_order = "bysource"
autodoc_typehints = "signature"

python_use_unqualified_type_names = True
python_maximum_signature_line_length = 100

html_theme = "furo"
html_title = f"unievent {release}"
html_static_path: list[str] = []
html_theme_options = {"navigation_with_keys": True}


# --- public names in signatures ----------------------------------------------------------------
#
# Every public class is defined in a private module (`unievent._events.TextDone`) and
# imported into `unievent`; every alias (`FinishReason`, `ProtocolName`, ...) is a value
# that annotations expand.  So that a signature reads `finish_reason: FinishReason | None`
# and links to the reference, annotations are written under their public names.

#: aliases written by name in signatures, the longest expansions first; `Fidelity`
#: (``dict[str, Any]``) is left out: other fields have that type too
_ALIASES = (
    "ContentItem",
    "DoneItem",
    "DeltaItem",
    "AnyEvent",
    "Event",
    "ProtocolName",
    "Framing",
    "End",
    "FinishReason",
)


def _public_name(annotation: Any) -> str | None:
    """`annotation`'s name in `unievent.__all__`, if it is a public alias or class."""
    for name in _ALIASES:
        value = getattr(unievent, name)
        try:
            if type(annotation) is type(value) and annotation == value:
                return name
        except TypeError:  # an annotation that cannot be compared
            continue
    if isinstance(annotation, type) and annotation.__module__.startswith("unievent."):
        name = annotation.__qualname__
        if name in unievent.__all__ and getattr(unievent, name) is annotation:
            return name
    return None


def _stringify_by_public_name(original: Callable[..., str]) -> Callable[..., str]:
    def stringify(annotation: Any, /, mode: str = "fully-qualified-except-typing", **kwargs: Any) -> str:
        name = _public_name(annotation)
        if name is not None:
            return ("~" if mode == "smart" else "") + f"unievent.{name}"
        return original(annotation, mode, **kwargs)

    return stringify


def _install_public_names(app: Sphinx) -> None:
    original = sphinx.util.typing.stringify_annotation
    patched = _stringify_by_public_name(original)
    for module in list(sys.modules.values()):
        if isinstance(module, types.ModuleType) and getattr(module, "stringify_annotation", None) is original:
            module.stringify_annotation = patched  # type: ignore[attr-defined]


def _resolve_public_name(app: Sphinx, env: BuildEnvironment, node: Any, contnode: Any) -> Any:
    """`unievent._events.TextDone` (how a docstring or an annotation may name it) is
    `unievent.TextDone`; an annotation's alias (`unievent.FinishReason`, a py:class
    reference) is the documented data of that name."""
    target: str = node.get("reftarget", "")
    if node.get("refdomain") != "py" or not target.startswith("unievent."):
        return None
    name = target.rsplit(".", 1)[-1]
    if name not in unievent.__all__:
        return None
    domain = env.domains["py"]
    return domain.resolve_xref(env, node["refdoc"], app.builder, "obj", f"unievent.{name}", node, contnode)


# --- doc comments of public aliases and constants ----------------------------------------------


def _attribute_docs() -> dict[str, list[str]]:
    """The `#:` doc comment of each public module-level name, from the module defining it.

    A public alias or constant (`End`, `FinishReason`, `PROTOCOLS`, ...) is defined in a
    private module and imported into `unievent`; autodoc looks for its doc comment in
    `unievent/__init__.py` only, and would otherwise show the docstring of its type.
    """
    docs: dict[str, list[str]] = {}
    for module in sorted(name for name in sys.modules if name == "unievent" or name.startswith("unievent.")):
        try:
            found = ModuleAnalyzer.for_module(module).find_attr_docs()
        except Exception:  # a module without Python source to read
            continue
        for (scope, name), lines in found.items():
            if scope == "" and name in unievent.__all__:
                docs.setdefault(name, list(lines))
    return docs


_ATTRIBUTE_DOCS: dict[str, list[str]] = {}


def _alias_docstring(app: Sphinx, what: str, name: str, obj: Any, options: Any, lines: list[str]) -> None:
    if what == "data" and name.startswith("unievent."):
        if not _ATTRIBUTE_DOCS:
            _ATTRIBUTE_DOCS.update(_attribute_docs())
        lines[:] = _ATTRIBUTE_DOCS.get(name.removeprefix("unievent."), [])
        if isinstance(obj, types.UnionType):  # an alias of several classes: name each
            members = " | ".join(f":py:class:`~unievent.{member.__qualname__}`" for member in obj.__args__)
            lines[:0] = [f"One of {members}.", ""]


def setup(app: Sphinx) -> None:
    app.connect("builder-inited", _install_public_names)
    app.connect("missing-reference", _resolve_public_name)
    app.connect("autodoc-process-docstring", _alias_docstring)
