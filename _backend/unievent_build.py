"""In-tree build backend: setuptools, plus mypyc for the hot modules when it can.

The backend is setuptools' own (`setuptools.build_meta`), with two changes:

- a wheel or editable build asks for mypy (which ships mypyc) and the packages the hot
  modules import (for their types), when compiling is wanted and a C compiler works;
- setup.py takes its extension modules from `extensions()`: mypyc's, or none.

Environment, read at build time:
  UNIEVENT_PURE=1     never compile: a pure-Python build (a py3-none-any wheel)
  UNIEVENT_COMPILE=1  compile or fail (wheel builders: cibuildwheel sets it)
  neither             compile when a C compiler works and mypyc imports, else pure

Metadata, requirements and sdist hooks never compile; an editable build compiles in
place (the .so files land beside the .py files) and records the hashes of what it
compiled, so that `unievent._purity` can tell when a source was edited since.
"""

from __future__ import annotations

import hashlib
import os
import sys
import tempfile
import tomllib
import warnings
from pathlib import Path
from typing import Any

from setuptools import build_meta as _orig
from setuptools.build_meta import *  # noqa: F403  (every hook not overridden below)

ROOT = Path(__file__).resolve().parent.parent
SRC = "decoder"
#: the modules compiled with mypyc, relative to SRC.  None may define an attrs class
#: or an async generator; every module they import stays interpreted.
_CORE = (
    "unievent/_grammar.py",
    "unievent/_decoder.py",
    "unievent/_session.py",
    "unievent/_shared.py",
    "unievent/_ondemand.py",
    "unievent/_jsonscan.py",
)
#: every framer, protocol handler and generated table is compiled as well
_FOLDERS = ("unievent/_framing", "unievent/_protocols", "unievent/_generated")
HOT = _CORE + tuple(
    sorted(
        f"{folder}/{path.name}"
        for folder in _FOLDERS
        for path in (ROOT / SRC / folder).glob("*.py")
        if path.name != "__init__.py"
    )
)
#: hand-written C extension modules, built beside mypyc's (each has a pure-Python
#: stand-in of the same name, which `unievent._purity` hands out under UNIEVENT_PURE=1)
C_MODULES = {
    "unievent._gcfree": "unievent/_gcfree.c",
    "unievent._awsframes": "unievent/_awsframes.c",
    "unievent._deltas": "unievent/_deltas.c",
    "unievent._search": "unievent/_search.c",
    "unievent._holes": "unievent/_holes.c",
}
#: the C libraries they link with (zlib: its crc32 is the one `zlib.crc32` calls)
C_LIBRARIES = {"unievent._awsframes": ["z"]}
#: the header they share (the searches of _search.c and _holes.c)
C_HEADERS = ("unievent/_bytesearch.h",)
#: mypyc's C output depends on its version: one pin for every compiled build
MYPYC = "mypy==2.4.1"
#: mypy checks the whole package (a module's parent package is always checked, and
#: unievent/__init__.py imports every module): all runtime dependencies must be there
#: for their types, or strict mode fails on the missing imports
TYPE_DEPS = tuple(tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"])
#: the hashes of the compiled sources, beside them, in an editable checkout only
HASHES = "unievent/_compiled_sources.txt"

# what setup.py is being run for: "build" (a wheel), "editable", or "metadata"
_PHASE = {"now": "build"}


def _flag(name: str) -> bool:
    return os.environ.get(name, "").strip().lower() not in ("", "0", "false", "no")


def _say(text: str) -> None:
    print(f"unievent build: {text}", file=sys.stderr, flush=True)


def compiler_works() -> bool:
    """Whether the C compiler Python was built with compiles a file including Python.h
    and zlib.h (the C modules' headers)."""
    # distutils: setuptools' copy (imported above), also on Python 3.12+
    from distutils.ccompiler import new_compiler  # noqa: PLC0415
    from distutils.errors import CCompilerError, DistutilsError  # noqa: PLC0415
    from distutils.sysconfig import customize_compiler, get_python_inc  # noqa: PLC0415

    with tempfile.TemporaryDirectory() as tmp:
        source = Path(tmp, "probe.c")
        source.write_text("#include <Python.h>\n#include <zlib.h>\nint unievent_probe(void) { return 0; }\n")
        try:
            cc = new_compiler()
            customize_compiler(cc)
            cc.compile([str(source)], output_dir=tmp, include_dirs=[get_python_inc()])
        except (CCompilerError, DistutilsError, OSError) as exc:
            _say(f"no working C compiler ({exc.__class__.__name__}: {str(exc).strip()[:200]})")
            return False
    return True


def _want_compiled() -> bool:
    if _flag("UNIEVENT_PURE"):
        return False
    if compiler_works():
        return True
    if _flag("UNIEVENT_COMPILE"):
        raise RuntimeError("UNIEVENT_COMPILE=1 but no C compiler works")
    return False


def _in_phase(phase: str, hook: Any, *args: Any) -> Any:
    _PHASE["now"] = phase
    try:
        return hook(*args)
    finally:
        _PHASE["now"] = "build"


def _compile_requires() -> list[str]:
    return [MYPYC, *TYPE_DEPS] if _want_compiled() else []


def get_requires_for_build_wheel(config_settings: Any = None) -> list[str]:
    return [*_in_phase("metadata", _orig.get_requires_for_build_wheel, config_settings), *_compile_requires()]


def get_requires_for_build_editable(config_settings: Any = None) -> list[str]:
    return [*_in_phase("metadata", _orig.get_requires_for_build_editable, config_settings), *_compile_requires()]


def get_requires_for_build_sdist(config_settings: Any = None) -> list[str]:
    return list(_in_phase("metadata", _orig.get_requires_for_build_sdist, config_settings))


def prepare_metadata_for_build_wheel(metadata_directory: str, config_settings: Any = None) -> str:
    return str(_in_phase("metadata", _orig.prepare_metadata_for_build_wheel, metadata_directory, config_settings))


def prepare_metadata_for_build_editable(metadata_directory: str, config_settings: Any = None) -> str:
    hook = _orig.prepare_metadata_for_build_editable
    return str(_in_phase("metadata", hook, metadata_directory, config_settings))


def build_sdist(sdist_directory: str, config_settings: Any = None) -> str:
    return str(_in_phase("metadata", _orig.build_sdist, sdist_directory, config_settings))


def build_editable(wheel_directory: str, config_settings: Any = None, metadata_directory: str | None = None) -> str:
    return str(_in_phase("editable", _orig.build_editable, wheel_directory, config_settings, metadata_directory))


# --- called by setup.py -------------------------------------------------------------


def _artifacts() -> list[Path]:
    """What an earlier compiled editable build left in the source tree."""
    src = ROOT / SRC
    found = list(src.glob("unievent__mypyc.*"))
    for rel in (*HOT, *C_MODULES.values()):
        path = src / rel
        found += path.parent.glob(f"{path.stem}.*.so")
        found += path.parent.glob(f"{path.stem}.*.pyd")
    return [*found, src / HASHES]


def _clean_in_place() -> None:
    for path in _artifacts():
        if path.exists():
            _say(f"removing {path.relative_to(ROOT)} (left by an earlier compiled build)")
            path.unlink()


def _write_hashes() -> None:
    compiled = (*HOT, *C_MODULES.values(), *C_HEADERS)
    lines = [f"{hashlib.sha256((ROOT / SRC / rel).read_bytes()).hexdigest()}  {rel}\n" for rel in compiled]
    (ROOT / SRC / HASHES).write_text("".join(lines))


def extensions() -> list[Any]:
    """The mypyc extension modules to build, or [] for the pure-Python package."""
    phase = _PHASE["now"]
    if phase == "metadata":  # metadata, requirements, sdist: nothing is compiled
        return []
    required = _flag("UNIEVENT_COMPILE")
    if not _want_compiled():
        _say("pure-Python build (" + ("UNIEVENT_PURE is set" if _flag("UNIEVENT_PURE") else "no C compiler") + ")")
        if phase == "editable":
            _clean_in_place()  # else the old .so files would still shadow the sources
        return []
    try:
        from mypyc.build import mypycify  # noqa: PLC0415  (there only when compiling)
    except ImportError:
        if required:
            raise
        warnings.warn("unievent: mypyc is not installed: pure-Python build", stacklevel=1)
        return []
    _say(f"compiling {len(HOT)} modules with mypyc")
    cwd = os.getcwd()
    os.chdir(ROOT)  # mypy reads [tool.mypy] (mypy_path = "decoder") from pyproject.toml here
    try:
        # UNIEVENT_MYPYC_OPT: the C optimization level (3; 0 builds in a fraction of the time)
        opt = os.environ.get("UNIEVENT_MYPYC_OPT", "3")
        exts = mypycify([f"{SRC}/{rel}" for rel in HOT], opt_level=opt, debug_level="1", group_name="unievent")
    except (Exception, SystemExit) as exc:  # a type error ends mypycify in SystemExit
        if required:
            raise
        warnings.warn(f"unievent: mypyc failed ({exc!r}): pure-Python build", stacklevel=1)
        return []
    finally:
        os.chdir(cwd)
    if phase == "editable":
        _write_hashes()
    from setuptools import Extension  # noqa: PLC0415

    return [*exts, *(
        Extension(
            name,
            [f"{SRC}/{rel}"],
            libraries=C_LIBRARIES.get(name, []),
            depends=[f"{SRC}/{header}" for header in C_HEADERS],
        )
        for name, rel in C_MODULES.items()
    )]
