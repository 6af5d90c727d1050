"""Diagrams a reviewer can read, and review views of a change to the machines.

Every declaration names the happy paths of typical complete streams (`HAPPY_PATHS`);
each walk is accepted by the flattened table, the generated tables and a `transitions`
Machine alike, and is what the diagrams draw bold.  Transitions several states share
are drawn once; nothing declared is left out of a drawing and nothing is invented.
`python -m codegen --diff REV` is checked on a temporary repository, and against the
first commit that declared the machines; `--audit` on a recorded test run.
"""

from __future__ import annotations

import importlib
import json
import os
import re
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

from codegen import diagrams, review
from codegen.model import Machine, build_transitions_machine, flatten, flatten_module, load_declaration, rows, walk
from machines import MACHINES

ROOT = Path(__file__).resolve().parent.parent
ARCHITECTURE = ROOT / "docs" / "architecture.md"  # where the review commands are documented


def generated(name: str) -> ModuleType:
    return importlib.import_module(f"unievent._generated.{name}")


class _Pass:
    def __getattr__(self, name: str) -> Any:
        return lambda _ctx: True


# --- happy paths ---------------------------------------------------------------------------------


@pytest.mark.parametrize("name", MACHINES)
def test_every_machine_declares_its_happy_paths(name: str) -> None:
    decl = load_declaration(name)
    assert hasattr(decl, "HAPPY_PATHS"), f"machines/{name}.py declares no HAPPY_PATHS"
    paths = decl.HAPPY_PATHS
    assert isinstance(paths, dict) and paths
    for title, symbols in paths.items():
        assert isinstance(title, str) and title
        assert isinstance(symbols, list) and symbols, title
        assert set(symbols) <= set(decl.SYMBOLS), (title, sorted(set(symbols) - set(decl.SYMBOLS)))
    assert flatten(name).happy_paths == {t: tuple(s) for t, s in paths.items()}


def _states_by_model(m: Machine, symbols: list[str]) -> list[str]:
    steps = walk(m, symbols)
    return [m.states[s] for s, _ in steps] + [m.states[m.table[steps[-1][0]][steps[-1][1]][0].dest]]


def _states_by_generated(gen: ModuleType, symbols: list[str]) -> list[str]:
    state, seen = gen.INITIAL, [gen.STATES[gen.INITIAL]]
    for symbol in symbols:
        y = gen.SYMBOLS.index(symbol)
        dest = gen.NEXT[state][y]
        if dest == gen.GUARDED:  # guards are content rules: any passing alternative is the walk's
            dest, _ = gen.step(state, y, None, _Pass())
        else:
            assert (dest, gen.DO[state][y]) == gen.step(state, y, None, _Pass())
        assert dest >= 0, f"{symbol} is not declared in {gen.STATES[state]}"
        state = dest
        seen.append(gen.STATES[state])
    return seen


def _states_by_transitions(decl: ModuleType, symbols: list[str]) -> list[str]:
    machine = build_transitions_machine(decl)
    model: Any = type("Model", (), {})()
    for guard in decl.GUARDS:
        setattr(model, guard, lambda: True)
    for action in decl.ACTIONS:
        setattr(model, action, lambda: None)
    machine.add_model(model, initial=decl.INITIAL)
    seen = [model.state]
    for symbol in symbols:
        assert model.trigger(symbol), f"{symbol} rejected in {seen[-1]}"
        seen.append(model.state)
    return seen


def _walks() -> list[tuple[str, str]]:
    out = []
    for name in MACHINES:
        out += [(name, title) for title in getattr(load_declaration(name), "HAPPY_PATHS", {})]
    return out


@pytest.mark.parametrize(("name", "title"), _walks())
def test_happy_path_is_a_complete_stream_the_tables_accept(name: str, title: str) -> None:
    decl, m = load_declaration(name), flatten(name)
    symbols = list(decl.HAPPY_PATHS[title])
    by_model = _states_by_model(m, symbols)
    assert by_model == _states_by_generated(generated(name), symbols)
    assert by_model == _states_by_transitions(decl, symbols)
    assert by_model[0] == decl.INITIAL
    assert by_model[-1] in decl.FINAL
    assert all(s not in decl.FINAL for s in by_model[:-1]), "the walk ends only at its last symbol"
    if "eof" in decl.SYMBOLS:
        assert symbols[-1] == "eof"
    if "complete" in decl.STATES:
        assert by_model[-1] == "complete"


@pytest.mark.parametrize(("name", "title"), _walks())
def test_happy_path_is_drawn_bold(name: str, title: str) -> None:
    m = flatten(name)
    text = diagrams.dot(m)
    first: dict[tuple[str, str], Any] = {}
    for r in rows(m):
        first.setdefault((r.source, r.symbol), r)
    bold = {}
    for line in text.splitlines():
        found = re.match(r'^    "([^"]+)" -> "([^"]+)" \[label="((?:[^"\\]|\\.)*)", (.*)\];$', line)
        if found and f'color="{diagrams.BLUE}"' in found.group(4):
            bold[(found.group(1), found.group(2))] = found.group(3).split("\\n")
    for s, y in walk(m, m.happy_paths[title]):
        r = first[(m.states[s], m.symbols[y])]
        assert r.label() in bold.get((r.source, r.dest), []), f"{r} is not drawn bold"
    assert title in text, "the legend names every happy path"


def test_a_broken_happy_path_stops_codegen(monkeypatch: pytest.MonkeyPatch) -> None:
    decl = load_declaration("openai_chat")
    monkeypatch.setattr(decl, "HAPPY_PATHS", {"cut": ["chunk", "eof"]})  # truncated is final
    assert flatten_module(decl).happy_paths == {"cut": ("chunk", "eof")}
    for paths, error in (
        ({"x": ["chunk", "bogus", "eof"]}, "'bogus' is not in SYMBOLS"),
        ({"x": ["chunk", "finish_chunk"]}, "ends in 'finished', not in a final state"),
        ({"x": ["error", "chunk", "eof"]}, "symbol 1 (chunk) is not declared in 'failed'"),
        ({"x": ["error"]}, "does not end with eof"),
        ({"x": []}, "is empty"),
    ):
        monkeypatch.setattr(decl, "HAPPY_PATHS", paths)
        with pytest.raises(ValueError, match=re.escape(error)):
            flatten_module(decl)


# --- what is drawn ---------------------------------------------------------------------------------


def _drawn(d: diagrams.Drawing) -> list[tuple[str, str, str]]:
    """(source, label, dest) of every transition a drawing shows, counting a note once per state it names."""
    out = []
    for (src, dst, kind), labels in d.edges.items():
        if kind == diagrams.HAPPY:
            continue  # also drawn plainly or in a note; checked by the happy-path test
        out += [(src, label, dst) for label in labels]
    for note in d.notes:
        for s in note.sources:
            out += [(s, label, s) for label in note.stays]
            out += [(s, label, dest) for dest, labels in note.exits.items() for label in labels]
    happy_only = [
        (src, label, dst) for (src, dst, kind), ls in d.edges.items() if kind == diagrams.HAPPY for label in ls
    ]
    return out + [t for t in happy_only if t not in out]


@pytest.mark.parametrize("name", MACHINES)
def test_every_declared_transition_is_drawn_once_and_nothing_else(name: str) -> None:
    m = flatten(name)
    declared = sorted((r.source, r.label(), r.dest) for r in rows(m))
    assert sorted(_drawn(diagrams.drawing(m))) == declared


@pytest.mark.parametrize("name", MACHINES)
def test_final_states_sit_together_and_a_legend_explains_the_styles(name: str) -> None:
    m = flatten(name)
    text = diagrams.dot(m)
    cluster = next(line for line in text.splitlines() if "subgraph cluster_final" in line)
    members = cluster.split('label="";', 1)[1]
    assert sorted(re.findall(r'"([^"]+)";', members)) == sorted(m.states[f] for f in m.final)
    legend = next(line for line in text.splitlines() if line.startswith("    __legend "))
    for words in ("happy path", "other declared transition", "shared by the states a note names", "final state"):
        assert words in legend


def test_responses_draws_the_shared_edges_once() -> None:
    m = flatten("openai_responses")
    text = diagrams.dot(m)
    # before: one `error / record_error` edge from each of six states, each with its own label
    assert text.count('"error / record_error"') == 1
    assert text.count("item_info / item_info") == 1
    note = next(n for n in diagrams.drawing(m).notes if "error / record_error" in n.exits.get("errored", []))
    assert note.sources == ("waiting", "between", "reasoning", "message", "function_call", "client_call", "builtin")
    assert {"item_info / item_info", "mirobody_call / mirobody_call"} <= set(note.stays)
    # the ordinary answer: created, message, its text, its done, completed, all bold
    bold = [line for line in text.splitlines() if f'color="{diagrams.BLUE}", fontcolor' in line]
    for src, dst in (("waiting", "between"), ("between", "message"), ("message", "between"), ("between", "finished")):
        assert any(line.startswith(f'    "{src}" -> "{dst}"') for line in bold), (src, dst)
    # far fewer edges than declared transitions
    assert text.count(" -> ") < len(rows(m)) / 2


@pytest.mark.parametrize("name", MACHINES)
def test_mermaid_draws_shared_transitions_as_notes(name: str) -> None:
    m = flatten(name)
    text = diagrams.mermaid(m)
    d = diagrams.drawing(m)
    assert text.count("note right of") == len(
        {*(dest for n in d.notes for dest in n.exits), *(n.sources[0] for n in d.notes if n.stays)}
    )
    for note in d.notes:
        for labels in note.exits.values():
            for label in labels:
                assert f"{label.replace(':', '#58;')}, from {', '.join(note.sources)}" in text
    if d.state_kind:
        assert re.search(r"^    class .* happy$", text, re.M)


# --- a temporary repository ---------------------------------------------------------------------------

TOY = '''\
"""A toy machine for the review tests."""

NAME = "toy"
INITIAL = "idle"
STATES = ["idle", "running", "paused", "done", "failed"]
FINAL = ["done", "failed"]
SYMBOLS = ["start", "pause", "resume", "stop", "error", "eof"]
GUARDS: dict[str, str] = {}
ACTIONS = {"go": "go", "hold": "hold", "record_error": "keep the error"}
HAPPY_PATHS = {"run": ["start", "stop", "eof"]}
TRANSITIONS = [
    {"trigger": "start", "source": "idle", "dest": "running", "after": ["go"]},
    {"trigger": "pause", "source": "running", "dest": "paused", "after": ["hold"]},
    {"trigger": "resume", "source": "paused", "dest": "running", "after": ["go"]},
    {"trigger": "stop", "source": ["running", "paused"], "dest": "done"},
    {"trigger": "error", "source": ["idle", "running", "paused"], "dest": "failed", "after": ["record_error"]},
    {"trigger": "eof", "source": ["done", "failed"], "dest": "="},
]
'''

INIT = '"""Toy declarations."""\n\nfrom pathlib import Path\n\nMACHINES = tuple(sorted(p.stem for p in Path(__file__).parent.glob("*.py") if not p.stem.startswith("_")))\n'


def run_codegen(root: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    return subprocess.run(
        [sys.executable, "-m", "codegen", *args], cwd=root, env=env, capture_output=True, text=True, check=False
    )


def git(root: Path, *args: str) -> str:
    config = ["-c", "user.name=review test", "-c", "user.email=review@example.invalid", "-c", "commit.gpgsign=false"]
    done = subprocess.run(["git", *config, *args], cwd=root, capture_output=True, text=True, check=True)
    return done.stdout


@pytest.fixture
def repo(tmp_path: Path) -> Path:
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    shutil.copytree(ROOT / "codegen", tmp_path / "codegen", ignore=shutil.ignore_patterns("__pycache__"))
    (tmp_path / "machines").mkdir()
    (tmp_path / "machines" / "__init__.py").write_text(INIT)
    (tmp_path / "machines" / "toy.py").write_text(TOY)
    git(tmp_path, "init", "-q")
    git(tmp_path, "add", "machines")
    git(tmp_path, "commit", "-q", "-m", "toy")
    return tmp_path


def _rows_of(output: str, machine: str) -> list[list[str]]:
    """The transitions table of one machine in a --diff report, split on runs of two spaces."""
    block = output.split(f"\n{machine}\n", 1)[1].split("\n\n", 1)[0]
    lines = [line for line in block.splitlines() if re.match(r"^  (added|removed|changed) ", line)]
    return [re.split(r"\s{2,}", line.strip()) for line in lines]


def test_diff_lists_added_removed_retargeted_and_renamed(repo: Path) -> None:
    decl = repo / "machines" / "toy.py"
    text = decl.read_text()
    edits = [
        # added: a paused stream may end
        (
            '{"trigger": "stop", "source": ["running", "paused"], "dest": "done"},',
            '{"trigger": "stop", "source": ["running", "paused"], "dest": "done"},\n'
            '    {"trigger": "eof", "source": "paused", "dest": "failed"},',
        ),
        # removed: no resume
        ('    {"trigger": "resume", "source": "paused", "dest": "running", "after": ["go"]},\n', ""),
        # retargeted: an error while idle ends done
        (
            '{"trigger": "error", "source": ["idle", "running", "paused"], "dest": "failed", "after": ["record_error"]},',
            '{"trigger": "error", "source": ["running", "paused"], "dest": "failed", "after": ["record_error"]},\n'
            '    {"trigger": "error", "source": "idle", "dest": "done", "after": ["record_error"]},',
        ),
    ]
    for old, new in edits:
        assert old in text
        text = text.replace(old, new)
    # renamed: running is now busy
    text = text.replace('"running"', '"busy"')
    decl.write_text(text)

    done = run_codegen(repo, "--diff", "HEAD")
    assert done.returncode == 0, done.stderr
    out = done.stdout
    assert out.startswith("Machines: HEAD -> working tree\n")
    assert re.search(r"^toy +transitions 1 added, 1 removed, 1 changed +5 states", out, re.M), out
    assert "  states renamed: running -> busy\n" in out
    assert "states added" not in out and "states removed" not in out
    assert _rows_of(out, "toy") == [
        ["changed", "idle", "error", "-", "failed -> done", "record_error"],
        ["removed", "paused", "resume", "-", "busy", "go"],
        ["added", "paused", "eof", "-", "failed", "-"],
    ]
    # the transitions that only follow the rename are not listed
    assert "start" not in "\n".join(" ".join(r) for r in _rows_of(out, "toy"))
    # the architecture page shows this very report
    page = ARCHITECTURE.read_text().split("## Reviewing a change to a machine\n", 1)[1]
    assert "```\n" + out + "```\n" in page


def test_diff_of_a_new_machine_lists_everything_as_added_and_draws_outside_diagrams(repo: Path) -> None:
    new = TOY.replace('NAME = "toy"', 'NAME = "toy2"')
    (repo / "machines" / "toy2.py").write_text(new)
    done = run_codegen(repo, "--diff", "HEAD", "--draw")
    assert done.returncode == 0, done.stderr
    assert re.search(r"^toy +unchanged ", done.stdout, re.M)
    assert re.search(r"^toy2 +new machine +- +5 states, 6 symbols, 10 transitions$", done.stdout, re.M)
    table = _rows_of(done.stdout, "toy2")
    assert len(table) == 10 and {r[0] for r in table} == {"added"}
    assert "  states added: idle, running, paused, done, failed\n" in done.stdout
    assert "wrote build/machine-diff/toy2.dot" in done.stdout
    assert not (repo / "build" / "machine-diff" / "toy.dot").exists(), "an unchanged machine is not drawn"
    dot = (repo / "build" / "machine-diff" / "toy2.dot").read_text()
    assert dot.count(f'color="{diagrams.GREEN}", fontcolor="{diagrams.GREEN}", penwidth=2.2]') >= 5
    assert not (repo / "diagrams").exists()


def test_diff_draws_added_green_and_removed_red(repo: Path) -> None:
    decl = repo / "machines" / "toy.py"
    decl.write_text(
        decl.read_text().replace('"dest": "paused", "after": ["hold"]', '"dest": "done", "after": ["hold"]')
    )
    out = repo / "review"
    done = run_codegen(repo, "--diff", "HEAD", "--draw", "--out", str(out))
    assert done.returncode == 0, done.stderr
    assert _rows_of(done.stdout, "toy") == [["changed", "running", "pause", "-", "paused -> done", "hold"]]
    dot = (out / "toy.dot").read_text()
    assert re.search(rf'"running" -> "done" \[label="pause / hold", color="{diagrams.GREEN}"', dot)
    assert re.search(rf'"running" -> "paused" \[label="pause / hold", color="{diagrams.RED}".*style=dashed', dot)
    assert "legend" in dot and "removed" in dot


def test_diff_reports_an_unknown_revision(repo: Path) -> None:
    done = run_codegen(repo, "--diff", "no-such-rev")
    assert done.returncode == 2
    assert "cannot compare with 'no-such-rev'" in done.stderr
    assert run_codegen(repo, "--draw").returncode == 2  # --draw needs --diff


def _first_machines_commit() -> str:
    if shutil.which("git") is None or not (ROOT / ".git").exists():
        pytest.skip("not a git checkout")
    done = subprocess.run(
        ["git", "log", "--diff-filter=A", "--format=%H", "--", "machines/"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
    )
    commits = done.stdout.split()
    if done.returncode != 0 or not commits:
        pytest.skip("no history of machines/ in this checkout")
    return commits[-1]


def test_diff_against_the_first_machines_commit_lists_every_later_transition_as_added() -> None:
    rev = _first_machines_commit()
    diffs, failed = review.diff(ROOT, rev)
    assert failed == {}
    then, _ = review.machines_at(ROOT, rev)
    for d in diffs:
        assert d.new is not None
        before = {(r.source, r.symbol, r.guard) for r in rows(d.old)} if d.old else set()
        since = [r for r in rows(d.new) if (r.source, r.symbol, r.guard) not in before]
        added = [(c.source, c.symbol, c.guard) for c in d.changes if c.change == "added"]
        assert sorted(added) == sorted((r.source, r.symbol, r.guard or "-") for r in since), d.name
        if d.name not in then:
            assert len(added) == len(rows(d.new)), d.name
    assert {d.name for d in diffs} == set(MACHINES)
    done = run_codegen(ROOT, "--diff", rev)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith(f"Machines: {rev} -> working tree\n")


# --- the audit ---------------------------------------------------------------------------------------------


def test_audit_counts_and_says_which_transitions_the_last_run_took(repo: Path) -> None:
    done = run_codegen(repo, "--audit")
    assert done.returncode == 0, done.stderr
    assert re.search(r"^toy +5 +6 +10 +not recorded$", done.stdout, re.M), done.stdout
    assert "no test run recorded" in done.stdout

    toy = review._load_file(repo / "machines" / "toy.py", "_audit_toy")
    record = {
        "finished": "2030-01-01T00:00:00Z",
        "exitstatus": 0,
        "machines": {"toy": {"digest": toy.digest, "declared": [], "taken": [["idle", "start"], ["running", "stop"]]}},
    }
    (repo / review.COVERAGE_FILE).write_text(json.dumps(record))
    done = run_codegen(repo, "--audit")
    assert re.search(r"^toy +5 +6 +10 +2 of 10$", done.stdout, re.M), done.stdout
    assert "last test run: 2030-01-01T00:00:00Z, pytest exit status 0" in done.stdout
    table = [re.split(r"\s{2,}", line.strip()) for line in done.stdout.split("\ntoy\n", 1)[1].splitlines()[1:]]
    assert ["yes", "idle", "start", "-", "running", "go"] in table
    assert ["NO", "paused", "resume", "-", "running", "go"] in table
    assert sum(row[0] == "yes" for row in table) == 2

    (repo / "machines" / "toy.py").write_text(TOY.replace('"dest": "done"}', '"dest": "failed"}'))
    done = run_codegen(repo, "--audit")
    assert re.search(r"^toy .*\(declaration changed since\)$", done.stdout, re.M), done.stdout


def test_the_coverage_plugin_writes_what_the_audit_reads(tmp_path: Path) -> None:
    from tests import transition_coverage

    assert transition_coverage.RECORD == ROOT / review.COVERAGE_FILE
    taken = {("openai_chat", "waiting", "chunk"), ("openai_chat", "streaming", "eof")}
    declared_now = {("openai_chat", s, y) for s, y in [("waiting", "chunk"), ("streaming", "eof"), ("done", "eof")]}
    transition_coverage.write_record(tmp_path / review.COVERAGE_FILE, taken, declared_now, 0)
    record = json.loads((tmp_path / review.COVERAGE_FILE).read_text())
    assert record["machines"]["openai_chat"]["taken"] == [["streaming", "eof"], ["waiting", "chunk"]]
    assert record["machines"]["openai_chat"]["digest"] == generated("openai_chat").DIGEST
    m = flatten("openai_chat")
    out = review.audit(tmp_path, [m])
    line = next(line for line in out.splitlines() if line.startswith("openai_chat "))
    assert line.split() == [
        "openai_chat",
        str(len(m.states)),
        str(len(m.symbols)),
        str(len(rows(m))),
        "2",
        "of",
        str(len(rows(m))),
    ]


def test_the_docs_document_the_review_commands() -> None:
    text = ARCHITECTURE.read_text()
    section = text.split("## Reviewing a change to a machine\n", 1)[1].split("\n## ", 1)[0]
    for command in ("python -m codegen --diff", "--draw", "python -m codegen --audit", review.COVERAGE_FILE):
        assert command in section
    assert text.index("## Regenerating code and diagrams") < text.index("## Reviewing a change to a machine")
    assert textwrap.dedent(section).strip()
