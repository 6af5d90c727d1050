"""Review views of the machines: what a change did (`--diff REV`) and what the tests took (`--audit`).

`--diff REV` loads every declaration at a git revision (`git show REV:machines/<name>.py`,
imported from a temporary folder: declarations import nothing but pathlib) and compares
it with the working tree, machine by machine: states and symbols added, removed or
renamed, the initial and final states, and every transition (one row per source state,
symbol and guard) added, removed or changed in its target or actions.  A state is
taken as renamed when one state went and one came and at least half of their
transitions match once the name is substituted; transitions that only follow the
rename are not listed.  `--draw` also writes a diagram per changed machine.

`--audit` counts each machine's states, symbols and transitions and says which
transitions the last whole test run took, from `.transition-coverage.json` (written
at the repository root by tests/transition_coverage.py).
"""

from __future__ import annotations

import importlib.util
import json
import subprocess
import tempfile
import textwrap
from dataclasses import dataclass, field
from pathlib import Path

from codegen import diagrams
from codegen.model import Machine, Row, flatten_module, rows

COVERAGE_FILE = ".transition-coverage.json"

Key = tuple[str, str, str]  # source, symbol, guard


class DiffError(Exception):
    """The revision or a declaration at it could not be read."""


# --- loading declarations ------------------------------------------------------------------------


def _git(root: Path, *args: str) -> str:
    done = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise DiffError(done.stderr.strip() or f"git {' '.join(args)} failed")
    return done.stdout


def _load_file(path: Path, module_name: str) -> Machine:
    spec = importlib.util.spec_from_file_location(module_name, path)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return flatten_module(module)


def machines_at(root: Path, rev: str) -> tuple[dict[str, Machine], dict[str, str]]:
    """Every declaration at `rev`, flattened; and the ones that failed to load, with the reason."""
    commit = _git(root, "rev-parse", "--verify", "--quiet", f"{rev}^{{commit}}").strip()
    listing = _git(root, "ls-tree", "--name-only", commit, "--", "machines/").split()
    names = sorted(Path(p).stem for p in listing if p.endswith(".py") and not Path(p).name.startswith("_"))
    out: dict[str, Machine] = {}
    failed: dict[str, str] = {}
    with tempfile.TemporaryDirectory(prefix="unievent-machines-") as tmp:
        for name in names:
            path = Path(tmp) / f"{name}.py"
            path.write_text(_git(root, "show", f"{commit}:machines/{name}.py"))
            try:
                out[name] = _load_file(path, f"_machines_at_{commit[:12]}_{name}")
            except Exception as error:
                failed[name] = f"{type(error).__name__}: {error}"
    return out, failed


def machines_now(root: Path) -> tuple[dict[str, Machine], dict[str, str]]:
    """Every declaration in the working tree, flattened; and the ones that failed to load."""
    out: dict[str, Machine] = {}
    failed: dict[str, str] = {}
    for path in sorted((root / "machines").glob("*.py")):
        if path.name.startswith("_"):
            continue
        try:
            out[path.stem] = _load_file(path, f"_machines_now_{path.stem}")
        except Exception as error:
            failed[path.stem] = f"{type(error).__name__}: {error}"
    return out, failed


# --- comparing two declarations ------------------------------------------------------------------


@dataclass
class Change:
    """One row of the transitions table."""

    change: str  # added | removed | changed
    source: str
    symbol: str
    guard: str
    target: str
    actions: str


@dataclass
class MachineDiff:
    name: str
    old: Machine | None
    new: Machine | None
    states_added: list[str] = field(default_factory=list)
    states_removed: list[str] = field(default_factory=list)
    renamed: dict[str, str] = field(default_factory=dict)  # old name -> new name
    symbols_added: list[str] = field(default_factory=list)
    symbols_removed: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)  # initial, final, guards, actions
    changes: list[Change] = field(default_factory=list)
    added_rows: list[Row] = field(default_factory=list)
    removed_rows: list[Row] = field(default_factory=list)  # named as in the old machine, renames applied

    @property
    def changed(self) -> bool:
        return bool(
            self.states_added
            or self.states_removed
            or self.renamed
            or self.symbols_added
            or self.symbols_removed
            or self.notes
            or self.changes
        )


def _rename(r: Row, names: dict[str, str]) -> Row:
    return Row(names.get(r.source, r.source), r.symbol, r.guard, names.get(r.dest, r.dest), r.actions)


def _renames(old: Machine, new: Machine) -> dict[str, str]:
    """Removed -> added state pairs whose transitions mostly match once renamed (best pairs first)."""
    gone = [s for s in old.states if s not in new.states]
    came = [s for s in new.states if s not in old.states]
    old_rows, new_rows = rows(old), rows(new)
    scored = []
    for a in gone:
        for b in came:
            mine = {_rename(r, {a: b}) for r in old_rows if a in (r.source, r.dest)}
            theirs = {r for r in new_rows if b in (r.source, r.dest)}
            if mine or theirs:
                score = len(mine & theirs) / len(mine | theirs)
                if score >= 0.5:
                    scored.append((-score, old.states.index(a), new.states.index(b), a, b))
    out: dict[str, str] = {}
    for _, _, _, a, b in sorted(scored):
        if a not in out and b not in out.values():
            out[a] = b
    return out


def _names(items: tuple[str, ...]) -> str:
    return ", ".join(items) if items else "-"


def compare(name: str, old: Machine | None, new: Machine | None) -> MachineDiff:
    d = MachineDiff(name, old, new)
    old_states = old.states if old else []
    new_states = new.states if new else []
    d.renamed = _renames(old, new) if old and new else {}
    d.states_added = [s for s in new_states if s not in old_states and s not in d.renamed.values()]
    d.states_removed = [s for s in old_states if s not in new_states and s not in d.renamed]
    old_symbols = old.symbols if old else []
    new_symbols = new.symbols if new else []
    d.symbols_added = [y for y in new_symbols if y not in old_symbols]
    d.symbols_removed = [y for y in old_symbols if y not in new_symbols]
    if old and new:
        old_initial = d.renamed.get(old.states[old.initial], old.states[old.initial])
        if old_initial != new.states[new.initial]:
            d.notes.append(f"initial: {old.states[old.initial]} -> {new.states[new.initial]}")
        old_final = {d.renamed.get(old.states[f], old.states[f]) for f in old.final}
        new_final = {new.states[f] for f in new.final}
        if new_final - old_final:
            d.notes.append(f"final added: {', '.join(s for s in new_states if s in new_final - old_final)}")
        if old_final - new_final:
            d.notes.append(f"final removed: {', '.join(sorted(old_final - new_final))}")
        for kind, names_then, names_now in (("guards", old.guards, new.guards), ("actions", old.actions, new.actions)):
            if added := [x for x in names_now if x not in names_then]:
                d.notes.append(f"{kind} added: {', '.join(added)}")
            if removed := [x for x in names_then if x not in names_now]:
                d.notes.append(f"{kind} removed: {', '.join(removed)}")

    before: dict[tuple[str, str], list[Row]] = {}
    after: dict[tuple[str, str], list[Row]] = {}
    for declared in rows(old) if old else []:
        r = _rename(declared, d.renamed)
        before.setdefault((r.source, r.symbol), []).append(r)
    for r in rows(new) if new else []:
        after.setdefault((r.source, r.symbol), []).append(r)
    s_order = {s: i for i, s in enumerate([*new_states, *d.states_removed])}
    y_order = {y: i for i, y in enumerate([*new_symbols, *d.symbols_removed])}
    for pair in sorted(set(before) | set(after), key=lambda p: (s_order[p[0]], y_order[p[1]])):
        was, now = before.get(pair, []), after.get(pair, [])
        matches: list[tuple[Row | None, Row | None]]
        if len(was) == 1 and len(now) == 1:
            matches = [(was[0], now[0])]
        else:
            by_guard = {r.guard: r for r in was}
            matches = [(by_guard.pop(r.guard, None), r) for r in now]
            matches += [(r, None) for r in by_guard.values()]
        for a, b in matches:
            if a is None and b is not None:
                d.added_rows.append(b)
                d.changes.append(Change("added", b.source, b.symbol, b.guard or "-", b.dest, _names(b.actions)))
            elif b is None and a is not None:
                d.removed_rows.append(a)
                d.changes.append(Change("removed", a.source, a.symbol, a.guard or "-", a.dest, _names(a.actions)))
            elif a is not None and b is not None and a != b:
                d.removed_rows.append(a)
                d.added_rows.append(b)

                def field_of(x: str, y: str) -> str:
                    return x if x == y else f"{x} -> {y}"

                d.changes.append(
                    Change(
                        "changed",
                        b.source,
                        b.symbol,
                        field_of(a.guard or "-", b.guard or "-"),
                        field_of(a.dest, b.dest),
                        field_of(_names(a.actions), _names(b.actions)),
                    )
                )
    return d


def diff(root: Path, rev: str) -> tuple[list[MachineDiff], dict[str, str]]:
    """Every machine's difference from `rev` to the working tree; and declarations that failed to load."""
    old, old_failed = machines_at(root, rev)
    new, new_failed = machines_now(root)
    failed = {f"{name} at {rev}": why for name, why in old_failed.items()}
    failed.update({f"{name} in the working tree": why for name, why in new_failed.items()})
    names = sorted((set(old) | set(new)) - set(old_failed) - set(new_failed))
    return [compare(name, old.get(name), new.get(name)) for name in names], failed


# --- the report -----------------------------------------------------------------------------------


def table(header: list[str], body: list[list[str]], indent: str = "  ") -> list[str]:
    widths = [max(len(row[i]) for row in [header, *body]) for i in range(len(header))]
    return [
        indent + "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in [header, *body]
    ]


def _wrapped(text: str) -> list[str]:
    return textwrap.wrap(text, width=100, initial_indent="  ", subsequent_indent="      ", break_on_hyphens=False)


def _count(m: Machine | None) -> str:
    if m is None:
        return "-"
    return f"{len(m.states)} states, {len(m.symbols)} symbols, {len(rows(m))} transitions"


def report(diffs: list[MachineDiff], failed: dict[str, str], rev: str) -> str:
    out = [f"Machines: {rev} -> working tree", ""]
    summary = []
    for d in diffs:
        if d.old is None:
            what = "new machine"
        elif d.new is None:
            what = "machine removed"
        elif d.changed:
            kinds = {c.change for c in d.changes}
            parts = [
                f"{sum(c.change == k for c in d.changes)} {k}" for k in ("added", "removed", "changed") if k in kinds
            ]
            what = "transitions " + ", ".join(parts) if parts else "declarations changed"
        else:
            what = "unchanged"
        summary.append([d.name, what, _count(d.old), _count(d.new)])
    out += table(["machine", "change", "before", "after"], summary, indent="")
    for name, why in failed.items():
        out.append(f"could not load {name}: {why}")
    for d in diffs:
        if not d.changed:
            continue
        out += ["", f"{d.name}"]
        if d.renamed:
            out.append("  states renamed: " + ", ".join(f"{a} -> {b}" for a, b in d.renamed.items()))
        for label, items in (
            ("states added", d.states_added),
            ("states removed", d.states_removed),
            ("symbols added", d.symbols_added),
            ("symbols removed", d.symbols_removed),
        ):
            if items:
                out += _wrapped(f"{label}: {', '.join(items)}")
        for note in d.notes:
            out += _wrapped(note)
        if d.changes:
            body = [[c.change, c.source, c.symbol, c.guard, c.target, c.actions] for c in d.changes]
            out += table(["change", "source", "symbol", "guard", "target", "actions"], body)
    return "\n".join(out) + "\n"


# --- drawing a change ---------------------------------------------------------------------------------


def diff_dot(d: MachineDiff, rev: str) -> str:
    """The union of both machines: added transitions and states green, removed red, the rest as usual."""
    new_rows = rows(d.new) if d.new else []
    added = set(d.added_rows)
    styled = [(r, diagrams.ADDED if r in added else diagrams.PLAIN) for r in new_rows]
    styled += [(r, diagrams.REMOVED) for r in d.removed_rows]
    states = list(d.new.states if d.new else []) + d.states_removed
    old_final = [d.renamed.get(d.old.states[f], d.old.states[f]) for f in d.old.final] if d.old else []
    new_final = [d.new.states[f] for f in d.new.final] if d.new else []
    final = [s for s in states if s in new_final or s in old_final]
    source = d.new or d.old
    assert source is not None
    initial = source.states[source.initial]
    drawing = diagrams.layout(d.name, states, initial, final, styled)
    for s in d.states_added:
        drawing.state_kind[s] = diagrams.ADDED
    for s in d.states_removed:
        drawing.state_kind[s] = diagrams.REMOVED
    for a, b in d.renamed.items():
        drawing.state_label[b] = f"{b}\n(was {a})"
    if d.new is None:  # the whole machine went: every transition is removed
        drawing.state_kind.update(dict.fromkeys(states, diagrams.REMOVED))
    header = f"// {d.name}: machines at {rev} -> working tree (python -m codegen --diff {rev} --draw)"
    return diagrams.render_dot(drawing, diff=True, header=header)


def draw(diffs: list[MachineDiff], rev: str, out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    written = []
    for d in diffs:
        if not d.changed:
            continue
        text = diff_dot(d, rev)
        path = out_dir / f"{d.name}.dot"
        path.write_text(text)
        written.append(path)
        svg = diagrams.render_svg(text)
        if svg is not None:
            (out_dir / f"{d.name}.svg").write_bytes(svg)
            written.append(out_dir / f"{d.name}.svg")
    return written


# --- the audit --------------------------------------------------------------------------------------


def audit(root: Path, machines: list[Machine]) -> str:
    path = root / COVERAGE_FILE
    record: dict[str, object] = json.loads(path.read_text()) if path.is_file() else {}
    recorded = record.get("machines", {})
    assert isinstance(recorded, dict)
    summary = []
    details: list[str] = []
    for m in machines:
        declared = rows(m)
        entry = recorded.get(m.name)
        if not isinstance(entry, dict):
            taken_text = "not recorded"
            taken: set[tuple[str, str]] | None = None
        else:
            taken = {(s, y) for s, y in entry.get("taken", [])}
            hits = sum((r.source, r.symbol) in taken for r in declared)
            taken_text = f"{hits} of {len(declared)}"
            if entry.get("digest") != m.digest:
                taken_text += " (declaration changed since)"
        summary.append([m.name, str(len(m.states)), str(len(m.symbols)), str(len(declared)), taken_text])
        details += ["", m.name]
        body = []
        for r in declared:
            mark = "-" if taken is None else ("yes" if (r.source, r.symbol) in taken else "NO")
            body.append([mark, r.source, r.symbol, r.guard or "-", r.dest, _names(r.actions)])
        details += table(["taken", "source", "symbol", "guard", "target", "actions"], body)
    out = table(["machine", "states", "symbols", "transitions", "taken by the last test run"], summary, indent="")
    if record:
        out.append("")
        out.append(f"last test run: {record.get('finished', '?')}, pytest exit status {record.get('exitstatus', '?')}")
        out.append(f"(from {COVERAGE_FILE}; a transition counts as taken when its state and symbol were)")
    else:
        out.append("")
        out.append(f"no test run recorded: run the whole suite (UNIEVENT_PURE=1 pytest) to write {COVERAGE_FILE}")
    return "\n".join(out + details) + "\n"
