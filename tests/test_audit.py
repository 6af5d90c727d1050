"""Audits of every declared machine against the code generated from it (issue 2,
"Codegen, diagrams, audits").

The `transitions` Machine built from a declaration is the reference: for every state,
input symbol and guard outcome, the generated `step` and tables must do what it does.
Then the declared graphs themselves are checked (reachable, can finish, no ambiguity,
names declared), the runtime is checked to stay free of `transitions`, and the test
streams here must take every declared transition of the machines the runtime fires.
"""

from __future__ import annotations

import importlib
import itertools
import os
import subprocess
import sys
from collections import deque
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from transitions import MachineError

from codegen.model import build_transitions_machine, load_declaration
from machines import MACHINES

ROOT = Path(__file__).resolve().parent.parent
CORPUS = ROOT.parent / "shared" / "corpus"


def generated(name: str) -> ModuleType:
    return importlib.import_module(f"unievent._generated.{name}")


def valuations(decl: ModuleType) -> list[dict[str, bool]]:
    names = list(decl.GUARDS)
    return [dict(zip(names, values, strict=True)) for values in itertools.product((False, True), repeat=len(names))]


class Reference:
    """The `transitions` machine for a declaration, driven one symbol at a time.

    Guards and actions are attached to a plain model by their declared names: a guard
    returns the valuation under test, an action records its name.
    """

    def __init__(self, decl: ModuleType, state: str) -> None:
        self.decl = decl
        self.machine = build_transitions_machine(decl, initial=state)
        self.model: Any = type("Model", (), {})()
        self.valuation: dict[str, bool] = {}
        self.fired: list[str] = []
        for guard in decl.GUARDS:
            setattr(self.model, guard, lambda guard=guard: self.valuation[guard])
        for action in decl.ACTIONS:
            setattr(self.model, action, lambda action=action: self.fired.append(action))
        self.machine.add_model(self.model, initial=state)

    def fire(self, state: str, symbol: str, valuation: dict[str, bool]) -> tuple[str, str | None, list[str]]:
        """('moved', dest, actions) | ('undeclared', None, []) | ('rejected', None, [])."""
        self.machine.set_state(state, model=self.model)
        self.valuation = valuation
        self.fired = []
        if symbol not in self.machine.events:
            return "undeclared", None, []
        try:
            moved = self.model.trigger(symbol)
        except MachineError:
            return "undeclared", None, []
        if not moved:
            assert self.model.state == state
            return "rejected", None, []
        return "moved", self.model.state, list(self.fired)


class Guards:
    """Guards for the generated `step`: the valuation under test, called with our ctx."""

    def __init__(self, valuation: dict[str, bool], ctx: object) -> None:
        for name, value in valuation.items():
            setattr(self, name, self._guard(name, value, ctx))

    @staticmethod
    def _guard(name: str, value: bool, ctx: object) -> Any:
        def check(got: object) -> bool:
            assert got is ctx, f"guard {name} called without the step's ctx"
            return value

        return check


class NoGuards:
    """For table cells that need no guard: calling one is a failure."""

    def __getattr__(self, name: str) -> Any:
        raise AssertionError(f"guard {name} called for an unguarded transition")


def generated_fire(
    gen: ModuleType, state: str, symbol: str, valuation: dict[str, bool]
) -> tuple[str, str | None, list[str]]:
    ctx = object()
    dest, actions = gen.step(gen.STATES.index(state), gen.SYMBOLS.index(symbol), ctx, Guards(valuation, ctx))
    if dest == gen.UNDECLARED:
        assert actions == ()
        return "undeclared", None, []
    if dest == gen.REJECTED:
        assert actions == ()
        return "rejected", None, []
    assert dest >= 0, (state, symbol, dest)
    return "moved", gen.STATES[dest], [gen.ACTIONS[a] for a in actions]


# --- (a) exhaustive agreement ------------------------------------------------------------------


@pytest.mark.parametrize("name", MACHINES)
def test_generated_names_match_the_declaration(name: str) -> None:
    decl, gen = load_declaration(name), generated(name)
    assert gen.NAME == decl.NAME == name
    assert tuple(decl.STATES) == gen.STATES
    assert tuple(decl.SYMBOLS) == gen.SYMBOLS
    assert tuple(decl.GUARDS) == gen.GUARDS
    assert tuple(decl.ACTIONS) == gen.ACTIONS
    assert tuple(decl.GUARDS.values()) == gen.GUARD_DOCS
    assert gen.STATES[gen.INITIAL] == decl.INITIAL
    assert {gen.STATES[s] for s in gen.FINAL} == set(decl.FINAL)
    for prefix, names in (("ST_", decl.STATES), ("SY_", decl.SYMBOLS), ("A_", decl.ACTIONS), ("G_", decl.GUARDS)):
        for i, n in enumerate(names):
            assert getattr(gen, f"{prefix}{n.upper()}") == i


@pytest.mark.parametrize("name", MACHINES)
def test_step_agrees_with_transitions_for_every_state_symbol_and_guard_outcome(name: str) -> None:
    decl, gen = load_declaration(name), generated(name)
    checked = 0
    outcomes = set()
    for state in decl.STATES:
        ref = Reference(decl, state)
        for symbol in decl.SYMBOLS:
            for valuation in valuations(decl):
                expected = ref.fire(state, symbol, valuation)
                got = generated_fire(gen, state, symbol, valuation)
                assert got == expected, f"{name}: {symbol} in {state} with guards {valuation}"
                outcomes.add(got[0])
                checked += 1
    assert checked == len(decl.STATES) * len(decl.SYMBOLS) * 2 ** len(decl.GUARDS)
    assert "moved" in outcomes and "undeclared" in outcomes
    assert ("rejected" in outcomes) == bool(decl.GUARDS)


@pytest.mark.parametrize("name", MACHINES)
def test_tables_agree_with_step_where_no_guard_decides(name: str) -> None:
    gen = generated(name)
    every_guard_passes = type("AllPass", (), {g: staticmethod(lambda _ctx: True) for g in gen.GUARDS})
    for s, state in enumerate(gen.STATES):
        allowed = []
        for y, symbol in enumerate(gen.SYMBOLS):
            nxt, do = gen.NEXT[s][y], gen.DO[s][y]
            if nxt == gen.GUARDED:
                assert do == (), f"{name}: DO holds actions for a guarded cell ({state}, {symbol})"
                assert gen.step(s, y, None, every_guard_passes)[0] >= 0
            else:
                assert gen.step(s, y, None, NoGuards()) == ((nxt, do) if nxt >= 0 else (gen.UNDECLARED, ()))
            if gen.step(s, y, None, every_guard_passes)[0] != gen.UNDECLARED:
                allowed.append(symbol)
        assert gen.ALLOWED[s] == tuple(allowed), f"{name}: ALLOWED[{state}]"


# --- (b) random walks -------------------------------------------------------------------------------


@pytest.mark.parametrize("name", MACHINES)
def test_random_walks_give_identical_traces(name: str) -> None:
    decl, gen = load_declaration(name), generated(name)
    refs: dict[str, Reference] = {}
    # guards mostly pass, so walks go deep; symbols are mostly ones the state declares
    guard_values = st.fixed_dictionaries({g: st.sampled_from([True, True, True, False]) for g in decl.GUARDS})
    any_symbol = st.sampled_from(list(decl.SYMBOLS))

    @settings(max_examples=150)
    @given(data=st.data(), start=st.sampled_from([decl.INITIAL, decl.INITIAL, *decl.STATES]))
    def walk_both(data: st.DataObject, start: str) -> None:
        ref = refs.setdefault(start, Reference(decl, start))
        ours: list[Any] = [start]
        theirs: list[Any] = [start]
        ref_state = gen_state = start
        for _ in range(data.draw(st.integers(0, 40), label="length")):
            declared_here = sorted(ref.machine.get_triggers(ref_state))
            use_declared = declared_here and data.draw(st.integers(0, 9), label="declared?") < 9
            symbol = data.draw(st.sampled_from(declared_here) if use_declared else any_symbol, label="symbol")
            valuation = data.draw(guard_values, label="guards")
            r = ref.fire(ref_state, symbol, valuation)
            g = generated_fire(gen, gen_state, symbol, valuation)
            theirs.append(r)
            ours.append(g)
            if r[0] != "moved" or g[0] != "moved":
                break
            ref_state, gen_state = r[1], g[1]  # type: ignore[assignment]
        assert ours == theirs

    walk_both()


# --- (c) the declared graphs -----------------------------------------------------------------------------


def edges(decl: ModuleType) -> Iterator[tuple[str, str, str, Any]]:
    """(source, trigger, dest, transition) as the reference machine reads the declaration."""
    machine = build_transitions_machine(decl)
    for trigger, event in machine.events.items():
        for source, alternatives in event.transitions.items():
            for t in alternatives:
                yield source, trigger, t.dest if t.dest is not None else source, t


def successors(decl: ModuleType) -> dict[str, set[str]]:
    out: dict[str, set[str]] = {s: set() for s in decl.STATES}
    for source, _, dest, _ in edges(decl):
        out[source].add(dest)
    return out


def reach(graph: dict[str, set[str]], start: str) -> set[str]:
    seen, queue = {start}, deque([start])
    while queue:
        for nxt in graph[queue.popleft()]:
            if nxt not in seen:
                seen.add(nxt)
                queue.append(nxt)
    return seen


@pytest.mark.parametrize("name", MACHINES)
def test_states_and_symbols_are_well_formed(name: str) -> None:
    decl = load_declaration(name)
    assert len(set(decl.STATES)) == len(decl.STATES)
    assert len(set(decl.SYMBOLS)) == len(decl.SYMBOLS)
    assert decl.INITIAL in decl.STATES
    assert decl.FINAL and set(decl.FINAL) <= set(decl.STATES)
    # a symbol may have no transition at all (always undeclared), but no trigger is unknown
    assert {t["trigger"] for t in decl.TRANSITIONS} <= set(decl.SYMBOLS)
    for t in decl.TRANSITIONS:
        assert set(t) <= {"trigger", "source", "dest", "conditions", "unless", "after"}, t


@pytest.mark.parametrize("name", MACHINES)
def test_every_state_is_reachable_from_the_initial_state(name: str) -> None:
    decl = load_declaration(name)
    assert reach(successors(decl), decl.INITIAL) == set(decl.STATES)


@pytest.mark.parametrize("name", MACHINES)
def test_every_state_can_still_reach_a_final_state(name: str) -> None:
    decl = load_declaration(name)
    graph = successors(decl)
    stuck = [s for s in decl.STATES if not reach(graph, s) & set(decl.FINAL)]
    assert stuck == []


@pytest.mark.parametrize("name", MACHINES)
def test_final_states_are_absorbing(name: str) -> None:
    # a final state has no way out: at most a declared self-loop (the end reported again)
    decl = load_declaration(name)
    leaving = [(s, trig, d) for s, trig, d, _ in edges(decl) if s in decl.FINAL and d != s]
    assert leaving == []


@pytest.mark.parametrize("name", MACHINES)
def test_no_two_unguarded_transitions_share_source_and_trigger(name: str) -> None:
    decl = load_declaration(name)
    by_pair: dict[tuple[str, str], list[Any]] = {}
    for source, trigger, _, t in edges(decl):
        by_pair.setdefault((source, trigger), []).append(t)
    for pair, alternatives in by_pair.items():
        unguarded = [i for i, t in enumerate(alternatives) if not t.conditions]
        assert len(unguarded) <= 1, f"{name}: two unguarded transitions for {pair}"
        # an unguarded alternative before others would make the later ones dead
        assert unguarded in ([], [len(alternatives) - 1]), f"{name}: dead alternative after {pair}"


def _names(value: Any) -> list[str]:
    if value is None:
        return []
    return [value] if isinstance(value, str) else list(value)


@pytest.mark.parametrize("name", MACHINES)
def test_guard_and_action_names_are_declared_and_used(name: str) -> None:
    decl = load_declaration(name)
    guards = {g for t in decl.TRANSITIONS for key in ("conditions", "unless") for g in _names(t.get(key))}
    actions = {a for t in decl.TRANSITIONS for a in _names(t.get("after"))}
    assert guards == set(decl.GUARDS)
    assert actions == set(decl.ACTIONS)
    assert all(isinstance(doc, str) and doc for doc in [*decl.GUARDS.values(), *decl.ACTIONS.values()])


@pytest.mark.parametrize("name", [n for n in MACHINES if hasattr(load_declaration(n), "KINDS")])
def test_assembly_plans_are_walks_of_the_declared_graph(name: str) -> None:
    gen = generated(name)
    passes = type("AllPass", (), {g: staticmethod(lambda _ctx: True) for g in gen.GUARDS})

    def walk(state: int, plan: tuple[int, ...]) -> list[int]:
        states = [state]
        for symbol in plan:
            state = gen.step(state, symbol, None, passes)[0]
            assert state >= 0, (gen.STATES[states[-1]], gen.SYMBOLS[symbol])
            states.append(state)
        return states

    for s, state in enumerate(gen.STATES):
        final = s in gen.FINAL
        for k in range(len(gen.KINDS)):
            for plans, must_close in ((gen.OPEN_PLAN, True), (gen.CONTINUE_PLAN, False)):
                plan = plans[s][k] if plans[s] else None
                if final:
                    assert plan is None, f"{state}: content after the end"
                    continue
                assert plan is not None and plan[-1] == gen.DELTA_OF_KIND[k]
                states = walk(s, plan)
                assert states[-1] == gen.STATE_OF_KIND[k]
                assert all(gen.SYMBOLS[y].endswith("_done") for y in plan[:-1]), "plans invent no content"
                if must_close:
                    assert gen.INITIAL in states[:-1], f"OPEN_PLAN from {state} keeps the old item open"
                elif gen.KIND_OF_STATE[s] == k:
                    assert plan == (gen.DELTA_OF_KIND[k],), "continuing adds to the open item"
        if final:
            assert gen.STOP_PLAN[s] is None and gen.CLOSING[s] == gen.UNDECLARED
            continue
        assert walk(s, gen.STOP_PLAN[s])[-1] in gen.FINAL
        if gen.KIND_OF_STATE[s] >= 0:
            assert gen.CLOSING[s] == gen.DONE_OF_KIND[gen.KIND_OF_STATE[s]]
            assert walk(s, (gen.CLOSING[s],))[-1] == gen.INITIAL
        else:
            assert gen.CLOSING[s] == gen.UNDECLARED


# --- (d) the runtime never imports transitions -----------------------------------------------------------


@pytest.mark.parametrize(
    "code",
    [
        "import unievent",
        "import unievent; d = unievent.StreamDecoder('openai_chat'); "
        'd.push(b\'data: {"choices":[{"delta":{"content":"hi"},"finish_reason":"stop"}]}\\n\\n\'); d.finish()',
    ],
    ids=["import", "decode"],
)
def test_the_runtime_does_not_import_transitions(code: str, tmp_path: Path) -> None:
    check = (
        code + "; import sys; bad = sorted(m for m in sys.modules if m.split('.')[0] in "
        "('transitions', 'machines', 'codegen', 'graphviz', 'pygraphviz')); assert not bad, bad"
    )
    env = {**os.environ, "PYTHONPATH": str(ROOT / "decoder")}
    done = subprocess.run(
        [sys.executable, "-c", check], cwd=tmp_path, env=env, capture_output=True, text=True, check=False
    )
    assert done.returncode == 0, done.stderr


# --- streams for transition coverage ------------------------------------------------------------------------
# (the coverage itself is checked over the whole session: tests/transition_coverage.py)


def sse(*frames: bytes) -> bytes:
    return b"".join(frames)


def chunk(delta: dict[str, Any] | None = None, finish: str | None = None, **top: Any) -> bytes:
    import orjson

    obj: dict[str, Any] = {"object": "chat.completion.chunk", "model": "m", **top}
    if delta is not None or finish is not None:
        obj["choices"] = [{"index": 0, "delta": delta or {}, "finish_reason": finish}]
    return b"data: " + orjson.dumps(obj) + b"\n\n"


DONE = b"data: [DONE]\n\n"
ERROR = b'data: {"error": {"message": "overloaded", "type": "server_error", "code": 529}}\n\n'
TOOL = {
    "tool_calls": [
        {"index": 0, "id": "call_1", "type": "function", "function": {"name": "get_weather", "arguments": '{"city": '}}
    ]
}
TOOL_MORE = {"tool_calls": [{"index": 0, "function": {"arguments": '"Paris"}'}}]}
USAGE_ONLY: dict[str, Any] = {"usage": {"prompt_tokens": 5, "completion_tokens": 7}, "choices": []}

# Hand-written openai_chat streams: every state of the chat lifecycle and of SSE framing.
STREAMS: dict[str, bytes] = {
    "text_finish_done": sse(
        chunk({"role": "assistant", "content": ""}),
        chunk({"content": "Hel"}),
        chunk({"content": "lo"}),
        chunk({}, "stop"),
        chunk(**USAGE_ONLY),
        DONE,
    ),
    "reasoning_tool_call": sse(
        chunk({"reasoning_content": "think"}), chunk(TOOL), chunk(TOOL_MORE), chunk({}, "tool_calls"), DONE
    ),
    "finish_first_then_finish_again": sse(chunk({"content": "a"}, "stop"), chunk({}, "length"), DONE),
    "finish_then_eof": sse(chunk({"content": "a"}), chunk({}, "stop")),
    "finish_then_error": sse(chunk({"content": "a"}, "stop"), ERROR),
    "streaming_then_eof": sse(chunk({"content": "cut"})),
    "streaming_then_error": sse(chunk({"content": "a"}), ERROR),
    "streaming_then_done": sse(chunk({"content": "a"}), DONE),
    "only_done": DONE,
    "only_error": ERROR,
    "empty": b"",
    # SSE framing: comments, id/retry, blank lines, unknown fields, CRLF, BOM
    "framing_idle": b"\xef\xbb\xbf: keep-alive\n\nretry: 100\nid: 7\nevent: message\n: c\nid: 8\nretry: 9\n"
    b'foo: bar\n\nevent: x\nevent: message\ndata: {"choices": []}\n: c\nid: 9\nretry: 1\n'
    b"event: message\nfoo\n" + chunk({"content": "x"}, "stop").replace(b"\n", b"\r\n") + DONE,
    "framing_body_then_sse": b"<html>\n\n: c\nid: 1\nretry: 2\n<p>oops</p>\ndata: "
    + chunk({"content": "a"}, "stop")[6:]
    + DONE,
    "framing_body_then_event": b"garbage\nevent: message\n" + chunk({"content": "a"}, "stop") + DONE,
    "framing_body_only": b"<html><body>Bad gateway</body></html>\n\n",
    "framing_start_event": b"event: ping\n\n" + chunk({}, "stop") + DONE,
    "framing_start_id_retry_eof": b"\n: c\nid: 1\nretry: 5\n",
    "framing_gather_eof": b'data: {"choices": [{"delta": {"content": "a"}, "finish_reason": "stop"}]}',
    "framing_idle_eof": chunk({"content": "a"}, "stop") + b"foo: bar\n",
}


def _corpus() -> dict[str, bytes]:
    if not (CORPUS / "openai_chat").is_dir():
        return {}
    return {f"corpus/{p.name}": p.read_bytes() for p in sorted((CORPUS / "openai_chat").glob("*.sse"))}


def test_coverage_streams_end_as_declared() -> None:
    """Streams that drive every transition of sse, openai_chat and the group grammar."""
    import unievent
    from unievent import _grammar
    from unievent._framing import sse  # noqa: F401
    from unievent._protocols import openai_chat  # noqa: F401


    ends: dict[str, str] = {}
    for label, body in {**STREAMS, **_corpus()}.items():
        decoder = unievent.StreamDecoder("openai_chat", stream_id="s", clock=lambda: 1)
        events: list[Any] = []
        for i in range(0, len(body), 7):  # small reads: line ends and frames split across pushes
            events += decoder.push(body[i : i + 7])
        tail, outcome = decoder.finish()
        events += tail
        ends[label] = outcome.end
        unievent.validate(events, partial=outcome.end != "complete")

    assert {k: v for k, v in ends.items() if k in STREAMS} == {
        "text_finish_done": "complete",
        "reasoning_tool_call": "complete",
        "finish_first_then_finish_again": "complete",
        "finish_then_eof": "complete",
        "finish_then_error": "failed",
        "streaming_then_eof": "truncated",
        "streaming_then_error": "failed",
        "streaming_then_done": "complete",
        "only_done": "complete",
        "only_error": "failed",
        "empty": "truncated",
        "framing_idle": "complete",
        "framing_body_then_sse": "complete",
        "framing_body_then_event": "complete",
        "framing_body_only": "not_event_stream",
        "framing_start_event": "complete",
        "framing_start_id_retry_eof": "truncated",
        "framing_gather_eof": "complete",
        "framing_idle_eof": "complete",
    }

    # the group grammar: assembler output with every kind, validated
    out: list[Any] = []
    asm = _grammar.Assembler(out)
    asm.text("a")
    asm.thinking("b")
    asm.tool_call("f", "c1", '{"x":')
    asm.tool_arguments("1}")
    asm.inline_data(b"\x00", "audio/wav")
    asm.inline_data(b"\x01", "audio/wav")
    asm.inline_thinking(b"\x02", "image/png")
    asm.fidelity({"signature": "s"})
    asm.embedding([1.0])
    asm.stop(unievent.Usage(), "stop")
    unievent.validate(out)
    # an embedding in parts (the assembler always sends a vector whole)
    e = unievent.DeltaEvent
    unievent.validate(
        [
            e(unievent.EmbeddingDelta([1.0]), 0),
            e(unievent.EmbeddingDelta([2.0]), 0),
            e(unievent.EmbeddingDone([1.0, 2.0]), 0),
            unievent.StopEvent(unievent.Usage(), "stop", 0),
        ]
    )

    # whether these (with every other test) took every declared transition is checked
    # for the whole session: tests/transition_coverage.py
