"""Diagram sources for every machine: Graphviz DOT (sorted, stable) and Mermaid.

What a reviewer should see first is the protocol, not its bookkeeping, so a drawing
has three kinds of edge:

* **happy path** (bold, blue): the steps of the machine's `HAPPY_PATHS`, the walks of
  a typical complete stream; the tests walk them through the tables, so the highlight
  cannot drift from what the machine accepts;
* **shared** (dashed, grey): a transition that three or more states declare alike
  (same symbol, guard, actions and target, or each back to itself: `error /
  record_error`, `eof`, `done_sentinel`, side-channel and ping self-loops) is drawn
  once, from a note naming those states; a shared step the happy path takes is also
  drawn bold from its own state, and a state on the way out (every transition from it
  ends the stream, such as `ended_early`) keeps its own edges;
* every other declared transition, plain.

Edges are merged per (source, dest, kind) and sorted by name, so a diff of a `.dot`
file shows exactly the transitions that changed.  Guards show on the edge as
`[guard]` (`[!guard]` for `unless`), actions as `/ action`.  Final states (double
border) share the last rank; a legend names the styles and the happy paths.  SVGs are
rendered from the DOT text with pygraphviz when it is installed (the `diagrams`
extra), else with Graphviz's `dot` program when it is on PATH.  `--check` compares
the text sources only, never an SVG, because rendered SVG depends on the Graphviz
version (and a checkout need not have any renderer).

The same drawing code colours a change (`python -m codegen --diff REV --draw`):
added transitions and states green, removed ones red.
"""

from __future__ import annotations

import shutil
import subprocess
import textwrap
from dataclasses import dataclass, field

from codegen.model import Machine, Row, rows, walk

#: a transition declared alike by at least this many states is drawn once, from a note
SHARED_MIN = 3

HAPPY = "happy"
PLAIN = "plain"
ADDED = "added"
REMOVED = "removed"

BLUE = "#1f5fbf"
GREY = "#8c8c8c"
GREEN = "#1a8f3c"
RED = "#c8322d"

_EDGE_STYLE = {
    HAPPY: f'color="{BLUE}", fontcolor="{BLUE}", penwidth=2.6, weight=8',
    PLAIN: 'color="#404040", fontcolor="#404040"',
    ADDED: f'color="{GREEN}", fontcolor="{GREEN}", penwidth=2.2',
    REMOVED: f'color="{RED}", fontcolor="{RED}", penwidth=2.2, style=dashed',
}
_NOTE_EDGE = f'color="{GREY}", fontcolor="{GREY}", style=dashed, fontsize=9, arrowsize=0.7'
_KIND_ORDER = {HAPPY: 0, PLAIN: 1, ADDED: 2, REMOVED: 3}


@dataclass
class Note:
    """Transitions that every state in `sources` declares alike, drawn once."""

    sources: tuple[str, ...]
    stays: list[str] = field(default_factory=list)  # labels of self-loops
    exits: dict[str, list[str]] = field(default_factory=dict)  # dest -> labels


@dataclass
class Drawing:
    """A machine as it is drawn: states, explicit edges and notes."""

    name: str
    states: list[str]
    initial: str
    final: list[str]
    edges: dict[tuple[str, str, str], list[str]]  # (source, dest, kind) -> labels
    notes: list[Note]
    happy_paths: dict[str, tuple[str, ...]] = field(default_factory=dict)
    state_kind: dict[str, str] = field(default_factory=dict)  # state -> happy | added | removed
    state_label: dict[str, str] = field(default_factory=dict)


def happy_rows(m: Machine) -> set[Row]:
    """The declared transitions some happy path takes (a guarded step: the first alternative)."""
    first: dict[tuple[str, str], Row] = {}
    for r in rows(m):
        first.setdefault((r.source, r.symbol), r)
    taken: set[Row] = set()
    for title, symbols in m.happy_paths.items():
        for s, y in walk(m, symbols, title):
            taken.add(first[(m.states[s], m.symbols[y])])
    return taken


def layout(
    name: str,
    states: list[str],
    initial: str,
    final: list[str],
    styled: list[tuple[Row, str]],
    happy_paths: dict[str, tuple[str, ...]] | None = None,
) -> Drawing:
    """Sort transitions into explicit edges and notes (see the module docstring)."""
    order = {s: i for i, s in enumerate(states)}
    # a state on the way out (every transition from it ends the stream) keeps its own edges
    leaving: dict[str, set[str]] = {}
    for r, _ in styled:
        leaving.setdefault(r.source, set()).add(r.dest)
    ending = {s for s, dests in leaving.items() if s not in final and dests <= set(final)}
    candidates = [i for i, (r, kind) in enumerate(styled) if kind in (HAPPY, PLAIN) and r.source not in ending]
    groups: list[tuple[list[int], str | None]] = []  # (members, dest or None for self-loops)
    fixed: dict[tuple[str, str, tuple[str, ...], str], list[int]] = {}
    for i in candidates:
        r = styled[i][0]
        fixed.setdefault((r.symbol, r.guard, r.actions, r.dest), []).append(i)
    in_group: set[int] = set()
    for (_, _, _, dest), members in fixed.items():
        if len({styled[i][0].source for i in members}) >= SHARED_MIN:
            groups.append((members, dest))
            in_group.update(members)
    loops: dict[tuple[str, str, tuple[str, ...]], list[int]] = {}
    for i in candidates:
        r = styled[i][0]
        if i not in in_group and r.dest == r.source:
            loops.setdefault((r.symbol, r.guard, r.actions), []).append(i)
    for members in loops.values():
        if len({styled[i][0].source for i in members}) >= SHARED_MIN:
            groups.append((members, None))
            in_group.update(members)

    notes: dict[tuple[str, ...], Note] = {}
    noted: set[int] = set()
    for members, target in groups:
        if all(styled[i][1] == HAPPY for i in members):
            continue  # every one of them is drawn bold anyway
        sources = tuple(sorted({styled[i][0].source for i in members}, key=order.__getitem__))
        note = notes.setdefault(sources, Note(sources))
        label = styled[members[0]][0].label()
        if target is None:
            note.stays.append(label)
        else:
            note.exits.setdefault(target, []).append(label)
        noted.update(members)

    edges: dict[tuple[str, str, str], list[str]] = {}
    for i, (r, kind) in enumerate(styled):
        if i in noted and kind != HAPPY:
            continue
        edges.setdefault((r.source, r.dest, kind), []).append(r.label())
    for labels in edges.values():
        labels.sort()
    for note in notes.values():
        note.stays.sort()
        for labels in note.exits.values():
            labels.sort()
    ordered = sorted(notes.values(), key=lambda n: [order[s] for s in n.sources])
    return Drawing(name, states, initial, final, edges, ordered, dict(happy_paths or {}))


def drawing(m: Machine) -> Drawing:
    happy = happy_rows(m)
    styled = [(r, HAPPY if r in happy else PLAIN) for r in rows(m)]
    d = layout(m.name, m.states, m.states[m.initial], [m.states[f] for f in m.final], styled, m.happy_paths)
    for r in happy:
        d.state_kind[r.source] = d.state_kind[r.dest] = HAPPY
    return d


def _dot_quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _dot_lines(labels: list[str]) -> str:
    """A quoted label of several centred lines (`\\n`), one edge per line of DOT text."""
    return '"' + "\\n".join(label.replace("\\", "\\\\").replace('"', '\\"') for label in labels) + '"'


def _wrap(words: list[str], width: int, sep: str = ", ") -> list[str]:
    return textwrap.wrap(sep.join(words), width=width, break_long_words=False, break_on_hyphens=False)


def _note_label(note: Note) -> str:
    lines = ["shared by", *_wrap(list(note.sources), 34)]
    if note.stays:
        lines.append("each stays where it is on")
        lines += [f"  {label}" for label in note.stays]
    # left-justified lines: "\l" ends each one
    return "".join(line.replace("\\", "\\\\").replace('"', '\\"') + "\\l" for line in lines)


def _html(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _legend(d: Drawing, diff: bool) -> list[str]:
    """One HTML-table node: a swatch and a line for each style, then the happy paths."""

    def swatch(color: str, height: int) -> str:
        line = f'<TD FIXEDSIZE="TRUE" WIDTH="28" HEIGHT="{height}" CELLPADDING="0" BGCOLOR="{color}"></TD>'
        return f'<TD><TABLE BORDER="0" CELLPADDING="0" CELLSPACING="0"><TR>{line}</TR></TABLE></TD>'

    def dashes(color: str) -> str:
        return f'<TD><FONT COLOR="{color}">- - -</FONT></TD>'

    if diff:
        styles = [
            (swatch(GREEN, 3), "added"),
            (dashes(RED), "removed"),
            (swatch("#404040", 1), "unchanged"),
            (dashes(GREY), "unchanged, shared by the states a note names"),
        ]
    else:
        styles = [
            (swatch(BLUE, 3), "happy path: a walk below"),
            (swatch("#404040", 1), "other declared transition"),
            (dashes(GREY), "shared by the states a note names"),
        ]
    box = '<TD BORDER="1" STYLE="rounded" FIXEDSIZE="TRUE" WIDTH="20" HEIGHT="7"></TD>'
    double = f'<TD><TABLE BORDER="1" STYLE="rounded" CELLPADDING="1" CELLSPACING="0"><TR>{box}</TR></TABLE></TD>'
    styles.append((double, "double border: final state (the stream's end)"))
    cells = [f'<TR>{cell}<TD ALIGN="LEFT">{_html(text)}</TD></TR>' for cell, text in styles]
    for title, symbols in d.happy_paths.items():
        cells.append(f'<TR><TD COLSPAN="2" ALIGN="LEFT"><B>{_html(title)}</B></TD></TR>')
        for line in _wrap(list(symbols), 56, sep=" "):
            cells.append(f'<TR><TD COLSPAN="2" ALIGN="LEFT">  {_html(line)}</TD></TR>')
    table = '<TABLE BORDER="1" COLOR="#c0c0c0" CELLBORDER="0" CELLSPACING="2" CELLPADDING="2">' + "".join(cells)
    return [f'    __legend [shape=plaintext, fontsize=9, fontcolor="#404040", label=<{table}</TABLE>>];']


def render_dot(d: Drawing, diff: bool = False, header: str = "") -> str:
    lines = [
        header or f"// Generated by `python -m codegen` from machines/{d.name}.py: do not edit.",
        f"digraph {d.name} {{",
        "    rankdir=LR;",
        "    newrank=true;",
        '    node [shape=rectangle, style="rounded", fontname="Helvetica"];',
        '    edge [fontname="Helvetica", fontsize=10];',
        '    __start [shape=point, label=""];',
        f"    __start -> {_dot_quote(d.initial)} [weight=8];",
    ]
    for s in sorted(d.states):
        attrs = [f"label={_dot_lines(d.state_label.get(s, s).splitlines())}"]
        if s in d.final:
            attrs.append("peripheries=2")
        kind = d.state_kind.get(s)
        if kind == HAPPY:
            attrs.append(f'penwidth=2, color="{BLUE}"')
        elif kind == ADDED:
            attrs.append(f'penwidth=2, color="{GREEN}", fontcolor="{GREEN}"')
        elif kind == REMOVED:
            attrs.append(f'penwidth=2, color="{RED}", fontcolor="{RED}", style="rounded,dashed"')
        lines.append(f"    {_dot_quote(s)} [{', '.join(attrs)}];")
    finals = " ".join(f"{_dot_quote(s)};" for s in sorted(d.final))
    lines.append(
        f'    subgraph cluster_final {{ rank=same; style="rounded,dashed"; color="#c0c0c0"; label=""; {finals} }}'
    )
    for (src, dst, kind), labels in sorted(d.edges.items(), key=lambda e: (e[0][0], e[0][1], _KIND_ORDER[e[0][2]])):
        edge = f"{_dot_quote(src)} -> {_dot_quote(dst)}"
        lines.append(f"    {edge} [label={_dot_lines(labels)}, {_EDGE_STYLE[kind]}];")
    for n, note in enumerate(d.notes):
        lines.append(
            f'    __note_{n} [shape=note, style=filled, fillcolor="#f4f4f4", color="{GREY}", fontcolor="#606060", '
            f'fontsize=9, label="{_note_label(note)}"];'
        )
        if not note.exits:  # self-loops only: keep the note beside the first state it names
            lines.append(f"    {_dot_quote(note.sources[0])} -> __note_{n} [style=invis];")
        for dest, labels in sorted(note.exits.items()):
            lines.append(f"    __note_{n} -> {_dot_quote(dest)} [label={_dot_lines(labels)}, {_NOTE_EDGE}];")
    lines += _legend(d, diff)
    lines.append("}")
    return "\n".join(lines) + "\n"


def dot(m: Machine) -> str:
    return render_dot(drawing(m))


def _mermaid_id(state: str) -> str:
    return state.replace(".", "_")


def _mermaid_text(label: str) -> str:
    return label.replace(":", "#58;")


def mermaid(m: Machine) -> str:
    """Mermaid state diagram: the same edges and notes as the DOT source; happy-path states in bold."""
    d = drawing(m)
    lines = ["stateDiagram-v2", f"    classDef happy font-weight:bold,stroke-width:3px,stroke:{BLUE}"]
    lines.append(f"    [*] --> {_mermaid_id(d.initial)}")
    merged: dict[tuple[str, str], list[str]] = {}
    for (src, dst, _), labels in d.edges.items():
        merged.setdefault((src, dst), []).extend(labels)
    for (src, dst), labels in sorted(merged.items()):
        text = "<br/>".join(_mermaid_text(label) for label in sorted(set(labels)))
        lines.append(f"    {_mermaid_id(src)} --> {_mermaid_id(dst)}: {text}")
    # a note per state it is attached to: shared exits on their target, shared self-loops on the first source
    attached: dict[str, list[str]] = {}
    for note in d.notes:
        names = ", ".join(note.sources)
        for dest, labels in sorted(note.exits.items()):
            attached.setdefault(dest, []).extend(f"{_mermaid_text(label)}, from {names}" for label in labels)
        if note.stays:
            stays = "; ".join(_mermaid_text(label) for label in note.stays)
            attached.setdefault(note.sources[0], []).append(f"{names}: each stays on {stays}")
    for state in sorted(attached):
        lines.append(f"    note right of {_mermaid_id(state)}")
        lines += [f"        {text}" for text in attached[state]]
        lines.append("    end note")
    for f in sorted(m.final):
        lines.append(f"    {_mermaid_id(m.states[f])} --> [*]")
    happy = sorted(s for s, kind in d.state_kind.items() if kind == HAPPY)
    if happy:
        lines.append(f"    class {', '.join(_mermaid_id(s) for s in happy)} happy")
    return "\n".join(lines) + "\n"


def readme(machines: list[Machine]) -> str:
    out = [
        "<!-- Generated by `python -m codegen`: do not edit. -->",
        "# State machines",
        "",
        "Every machine unievent runs, drawn from its declaration in `machines/`.",
        "Each has a Graphviz source (`<name>.dot`), a rendering (`<name>.svg`) and the",
        "Mermaid block below. Regenerate with `python -m codegen`.",
        "",
        "In the renderings, bold blue edges are the happy paths (the walks of typical",
        "complete streams each declaration names in `HAPPY_PATHS`, checked by the tests",
        "against the tables); a transition three or more states declare alike (errors,",
        "end of input, side-channel and ping self-loops) is drawn once, dashed grey, from",
        "a note naming those states; final states have a double border. In the Mermaid",
        "blocks, happy-path states are bold and shared transitions are notes.",
        "",
    ]
    for m in machines:
        out += [f"## {m.name}", "", m.doc.splitlines()[0] if m.doc else "", ""]
        out += [f"![{m.name}]({m.name}.svg)", "", "```mermaid", mermaid(m).rstrip("\n"), "```", ""]
        if m.happy_paths:
            out += ["Happy paths:", ""]
            out += [f"- {title}: `{' '.join(symbols)}`" for title, symbols in m.happy_paths.items()]
            out.append("")
        if m.guards:
            out += ["Guards:", ""]
            out += [f"- `{g}`: {m.guard_docs[g]}" for g in m.guards]
            out.append("")
        if m.actions:
            out += ["Actions:", ""]
            out += [f"- `{a}`: {m.action_docs[a]}" for a in m.actions]
            out.append("")
    return "\n".join(out)


def render_svg(dot_text: str) -> bytes | None:
    """SVG from DOT text, or None when neither pygraphviz nor the `dot` program is there."""
    return render(dot_text, "svg")


def render(dot_text: str, fmt: str) -> bytes | None:
    """A rendering (svg, png, ...) of DOT text: with pygraphviz when it imports, else with
    `dot -T<fmt>` when the program is on PATH, else None."""
    try:
        import pygraphviz  # noqa: PLC0415
    except ImportError:
        return _render_with_program(dot_text, fmt)
    graph = pygraphviz.AGraph(string=dot_text)
    data: bytes = graph.draw(format=fmt, prog="dot")
    return data


def _render_with_program(dot_text: str, fmt: str) -> bytes | None:
    program = shutil.which("dot")
    if program is None:
        return None
    done = subprocess.run([program, f"-T{fmt}"], input=dot_text.encode(), capture_output=True, check=False, timeout=120)
    if done.returncode != 0:
        message = done.stderr.decode(errors="replace").strip()
        raise RuntimeError(f"{program} -T{fmt} failed (exit {done.returncode}): {message}")
    return done.stdout
