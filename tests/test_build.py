"""Which build runs: the mypyc-compiled hot modules or their pure-Python sources; and
what building the repository's other outputs (the diagrams) needs.

CI runs the suite twice, once with UNIEVENT_EXPECT_COMPILED=1 (the compiled build must
be the one imported) and once with UNIEVENT_PURE=1 (the pure-Python one must be).
The SVG diagrams render with pygraphviz (the `diagrams` extra), else Graphviz's `dot`
program, else not at all; `python -m codegen --check` needs neither.
"""

from __future__ import annotations

import importlib
import os
import shutil
import subprocess
import sys
from pathlib import Path

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


@pytest.mark.skipif(not flag("UNIEVENT_EXPECT_COMPILED"), reason="only where the compiled build is required")
def test_every_c_module_of_the_sources_is_its_extension_in_the_compiled_build() -> None:
    # each C module is tested against its stand-in (`tests/test_<module>.py`): were the
    # stand-in imported in its place, those tests would compare it with itself
    sources = sorted((Path(__file__).resolve().parent.parent / "decoder" / "unievent").glob("_*.c"))
    assert len(sources) >= 5
    for source in sources:
        module = importlib.import_module(f"unievent.{source.stem}")
        assert not (module.__file__ or "").endswith(".py"), source.name


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


# --- rendering the diagrams: pygraphviz, else the dot program, else nothing ------------------------


def _without_pygraphviz(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "pygraphviz", None)  # `import pygraphviz` raises ImportError


def _fake_dot(folder: Path) -> Path:
    """A `dot` on PATH that records its arguments and answers with a fixed SVG."""
    script = folder / "dot"
    script.write_text(
        f"#!{sys.executable}\n"
        "import sys\n"
        "from pathlib import Path\n"
        "Path(__file__).with_name('args').write_text(' '.join(sys.argv[1:]))\n"
        "Path(__file__).with_name('stdin').write_bytes(sys.stdin.buffer.read())\n"
        "sys.stdout.buffer.write(b'<svg>fake</svg>')\n"
    )
    script.chmod(0o755)
    return script


@pytest.mark.skipif(sys.platform == "win32", reason="a #! script stands in for dot")
def test_without_pygraphviz_the_dot_program_renders(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from codegen import diagrams

    _without_pygraphviz(monkeypatch)
    _fake_dot(tmp_path)
    monkeypatch.setenv("PATH", str(tmp_path))
    assert diagrams.render_svg("digraph g { a -> b }") == b"<svg>fake</svg>"
    assert (tmp_path / "args").read_text() == "-Tsvg"
    assert (tmp_path / "stdin").read_bytes() == b"digraph g { a -> b }"
    assert diagrams.render("digraph g { a }", "png") == b"<svg>fake</svg>"
    assert (tmp_path / "args").read_text() == "-Tpng"


@pytest.mark.skipif(sys.platform == "win32", reason="a #! script stands in for dot")
def test_a_failing_dot_program_is_an_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from codegen import diagrams

    _without_pygraphviz(monkeypatch)
    script = tmp_path / "dot"
    script.write_text(f"#!{sys.executable}\nimport sys\nsys.stderr.write('syntax error in line 1')\nsys.exit(1)\n")
    script.chmod(0o755)
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(RuntimeError, match="syntax error in line 1"):
        diagrams.render_svg("digraph {")


def test_with_no_renderer_nothing_is_rendered(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from codegen import diagrams

    _without_pygraphviz(monkeypatch)
    monkeypatch.setenv("PATH", str(tmp_path))  # an empty folder: no dot
    assert diagrams.render_svg("digraph g { a -> b }") is None


def _codegen_checkout(tmp_path: Path) -> Path:
    """The parts of the checkout `python -m codegen` reads and writes."""
    root = Path(__file__).resolve().parent.parent
    ignore = shutil.ignore_patterns("__pycache__", "*.so", "*.pyd")
    for folder in ("codegen", "machines", "diagrams", "decoder/unievent/_generated"):
        shutil.copytree(root / folder, tmp_path / folder, ignore=ignore)
    return tmp_path


def _run_codegen_without_renderer(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    # pygraphviz hidden and no dot on PATH: what a machine without Graphviz sees
    code = (
        "import sys; sys.modules['pygraphviz'] = None; from codegen.__main__ import main; sys.exit(main(sys.argv[1:]))"
    )
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    env["PATH"] = str(root / "no-such-folder")
    return subprocess.run(
        [sys.executable, "-c", code, *args], cwd=root, env=env, capture_output=True, text=True, check=False
    )


def test_codegen_check_compares_text_sources_only_and_needs_no_renderer(tmp_path: Path) -> None:
    root = _codegen_checkout(tmp_path)
    done = _run_codegen_without_renderer(root, "--check")
    assert done.returncode == 0, done.stdout + done.stderr
    # an SVG rendered by another Graphviz, or none at all: still no drift
    (root / "diagrams" / "sse.svg").write_text("<svg>another graphviz</svg>")
    (root / "diagrams" / "anthropic.svg").unlink()
    done = _run_codegen_without_renderer(root, "--check")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "svg" not in done.stdout
    # a .dot file is a text source: drift
    dot = root / "diagrams" / "sse.dot"
    dot.write_text(dot.read_text() + "// edited\n")
    done = _run_codegen_without_renderer(root, "--check")
    assert done.returncode == 1
    assert "out of date: diagrams/sse.dot" in done.stdout


def test_codegen_without_renderer_leaves_the_svgs_as_they_are(tmp_path: Path) -> None:
    root = _codegen_checkout(tmp_path)
    svg = root / "diagrams" / "sse.svg"
    svg.write_text("<svg>kept</svg>")
    done = _run_codegen_without_renderer(root)
    assert done.returncode == 0, done.stdout + done.stderr
    assert "neither pygraphviz nor Graphviz's dot program is installed: diagrams/sse.svg left as it is" in done.stdout
    assert svg.read_text() == "<svg>kept</svg>"
