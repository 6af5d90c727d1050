"""Transition coverage across the whole test suite.

Every generated NEXT table the runtime reads (and the group grammar's `step`, which
`validate` fires) is swapped, for the session, for a recorder of the transitions
taken.  When the whole suite ran and passed, every declared transition of every
machine must have been taken, except those in ALLOWED (each with its reason); the
session fails otherwise, listing what no test reached.

Compiled modules (mypyc) read their tables from C statics and call `step` directly,
past any swap: under a compiled build the check is skipped (run the suite with
UNIEVENT_PURE=1 for it).  The suite's coverage does not depend on the build.

Whenever the whole suite ran on the pure build, what was recorded is written to
`.transition-coverage.json` at the repository root (ignored by git), for
`python -m codegen --audit`: per machine, its declaration digest, the (state, symbol)
pairs declared and the ones taken.
"""

from __future__ import annotations

import importlib
import json
import sys
import time
from pathlib import Path
from typing import Any

import pytest

Transition = tuple[str, str, str]  # machine, state, symbol

#: where the last whole run's record goes (read by `python -m codegen --audit`)
RECORD = Path(__file__).resolve().parent.parent / ".transition-coverage.json"

#: declared transitions no test needs to take, with the reason
ALLOWED: dict[Transition, str] = {}

_TAKEN: set[Transition] = set()
_RECORDING: list[bool] = []  # [True] once the tables are swapped (pure build)


class _Row:
    __slots__ = ("machine", "row", "state")

    def __init__(self, machine: Any, row: tuple[int, ...], state: int) -> None:
        self.machine = machine
        self.state = state
        self.row = row

    def __getitem__(self, symbol: int) -> int:
        dest: int = self.row[symbol]
        if dest >= 0:
            m = self.machine
            _TAKEN.add((m.NAME, m.STATES[self.state], m.SYMBOLS[symbol]))
        return dest


class _Table:
    """Stands in for a generated NEXT table; reads go through and are recorded."""

    def __init__(self, machine: Any, real: tuple[tuple[int, ...], ...]) -> None:
        self.machine = machine
        self.real = real

    def __getitem__(self, state: int) -> _Row:
        return _Row(self.machine, self.real[state], state)

    def __len__(self) -> int:
        return len(self.real)


def _record_step(machine: Any) -> None:
    step = machine.step

    def recording_step(state: int, symbol: int, ctx: Any = None, guards: Any = None) -> tuple[int, tuple[int, ...]]:
        result: tuple[int, tuple[int, ...]] = step(state, symbol, ctx, guards)
        from unievent import _grammar

        if result[0] >= 0 and guards is _grammar._Guards:  # validate(), not an error-message probe
            _TAKEN.add((machine.NAME, machine.STATES[state], machine.SYMBOLS[symbol]))
        return result

    machine.step = recording_step


def declared() -> set[Transition]:
    from machines import MACHINES

    found: set[Transition] = set()
    for name in MACHINES:
        gen = importlib.import_module(f"unievent._generated.{name}")
        found |= {
            (name, gen.STATES[s], gen.SYMBOLS[y])
            for s in range(len(gen.STATES))
            for y in range(len(gen.SYMBOLS))
            if gen.step(s, y, None, _ALL_GUARDS_HOLD)[0] >= 0
        }
    return found


class _AllGuardsHold:
    def __getattr__(self, name: str) -> Any:
        return lambda _ctx: True


_ALL_GUARDS_HOLD = _AllGuardsHold()


def pytest_configure(config: pytest.Config) -> None:
    import unievent
    from machines import MACHINES

    if unievent.COMPILED:
        return
    _RECORDING.append(True)

    unievent.StreamDecoder("openai_chat")  # imports every protocol module
    for name in MACHINES:
        gen = importlib.import_module(f"unievent._generated.{name}")
        real = gen.NEXT
        table = _Table(gen, real)
        for module in [m for n, m in list(sys.modules.items()) if n.startswith("unievent") and m is not None]:
            for attr, value in list(vars(module).items()):
                if value is real:
                    setattr(module, attr, table)
        if name == "group_grammar":
            _record_step(gen)


def _whole_suite(session: pytest.Session) -> bool:
    option = session.config.option
    return (
        not option.keyword
        and not option.markexpr
        and not getattr(option, "deselect", None)
        and not getattr(option, "lf", False)
        and all(arg.rstrip("/").endswith("tests") for arg in session.config.args)
    )


def write_record(path: Path, taken: set[Transition], declared_now: set[Transition], exitstatus: int) -> None:
    """The record `codegen --audit` reads: per machine, its digest and the pairs declared and taken."""
    machines: dict[str, dict[str, Any]] = {}
    for name in sorted({t[0] for t in declared_now}):
        gen = importlib.import_module(f"unievent._generated.{name}")
        machines[name] = {
            "digest": gen.DIGEST,
            "declared": sorted([s, y] for m, s, y in declared_now if m == name),
            "taken": sorted([s, y] for m, s, y in taken if m == name),
        }
    record = {
        "finished": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
        "exitstatus": int(exitstatus),
        "machines": machines,
    }
    path.write_text(json.dumps(record, indent=1) + "\n")


def pytest_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    if not _whole_suite(session):
        return
    if _RECORDING and not session.shouldstop and not session.shouldfail:  # not cut short by -x / --maxfail
        write_record(RECORD, _TAKEN, declared(), exitstatus)
    if exitstatus != 0:
        return
    reporter = session.config.pluginmanager.get_plugin("terminalreporter")
    if not _RECORDING:
        if reporter is not None:
            reporter.write_line("")
            reporter.write_line("transition coverage: not checked under the compiled build (UNIEVENT_PURE=1 checks it)")
        return
    expected = declared()
    stale = sorted(set(ALLOWED) - expected)
    missing = sorted(expected - _TAKEN - set(ALLOWED))
    if not stale and not missing:
        if reporter is not None:
            taken = len(expected & _TAKEN)
            reporter.write_line("")
            reporter.write_line(f"transition coverage: {taken} of {len(expected)} declared transitions taken")
        return
    lines = [f"  allow-listed but not declared: {t}" for t in stale]
    lines += [f"  never taken: {t}" for t in missing]
    text = "\ntransition coverage: the suite left declared transitions untaken\n" + "\n".join(lines)
    if reporter is not None:
        reporter.write_line(text, red=True)
    else:
        print(text)
    session.exitstatus = pytest.ExitCode.TESTS_FAILED
