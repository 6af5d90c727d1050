"""Throughput of unievent against the floor and the optional peers; prints Markdown.

    python tests/bench/run.py                       # the whole matrix (several minutes)
    python tests/bench/run.py --quick               # small streams, 3 repetitions
    python tests/bench/run.py --protocol anthropic --size small --only unievent
    python tests/bench/run.py --after-work          # also: the work a program does next
    python tests/bench/run.py --json out.json       # also keep the raw timings

For every (protocol, size, feed, contender) the contender decodes the stream once
untimed (warm-up, and the decode that is checked against the generator's ground truth),
then each repetition times the floor and then the contender on the same pieces, with
gc.collect() before each, each looping until at least 0.1 s have passed.  Cells give
the median over the repetitions as MB/s of wire bytes and ratio = median(contender
time) / median(floor time).

A contender with an `interpreter` (unievent_pure, which must import unievent with
UNIEVENT_PURE=1, or a peer in its own environment) has each of its cells measured
whole in a child process of that Python (`run.py --worker`, the job on stdin): the
child builds the floor and the contender, checks, times both interleaved, and prints
the cell as JSON.  Every ratio is of two times taken in the same process.

Exit status 1 when some cell failed its check ([diff]) or raised (error).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import pickle
import platform
import statistics
import subprocess
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from importlib import metadata
from pathlib import Path
from typing import Any

import gen
import peers
from contenders import BUILTIN, Contender, Pieces, Run, Unavailable, check, floor

CONTENDERS: dict[str, Contender] = {c.name: c for c in (*BUILTIN, *peers.PEERS)}
MIN_SECONDS = 0.1  # each timed loop runs at least this long, to dwarf timer noise
REPS = 5
QUICK_REPS = 3
VERSIONED = (
    "orjson",
    "msgspec",
    "openai",
    "anthropic",
    "httpx",
    "httpx-sse",
    "google-genai",
    "mmsp",
    "litellm",
    "pydantic",
)
# --after-work: the contenders whose factory can keep what a decode returns (keep=True)
AFTER_WORK = ("unievent", "unievent_pure")
WORK_ITEMS = 200_000  # the unrelated work: this many small dicts, tuples and lists
RUN_PY = Path(__file__).resolve()


@dataclass
class Cell:
    """One (contender, protocol, size, feed) measurement."""

    contender: str
    protocol: str
    size: str
    feed: str
    n_bytes: int
    n_events: int
    status: str = "ok"  # ok | diff | error | unavailable
    detail: str = ""
    # seconds per decode, (contender, floor), one pair per repetition; for an
    # after_work cell, seconds of the decode and the work after it
    reps: list[tuple[float, float]] = field(default_factory=list)
    mode: str = "decode"  # decode | after_work
    # after_work: seconds of the work alone, (after the contender, after the floor)
    work: list[tuple[float, float]] = field(default_factory=list)
    python: str = ""  # the interpreter of the child process that measured it, if any

    def medians(self) -> tuple[float, float]:
        return _medians(self.reps)

    def work_medians(self) -> tuple[float, float]:
        return _medians(self.work)


def _medians(pairs: list[tuple[float, float]]) -> tuple[float, float]:
    return statistics.median(p[0] for p in pairs), statistics.median(p[1] for p in pairs)


@dataclass(frozen=True)
class Options:
    protocols: tuple[str, ...]
    sizes: tuple[str, ...]
    feeds: tuple[str, ...]
    contenders: tuple[str, ...]
    reps: int
    json_path: str | None
    after_work: bool = False


# --------------------------------------------------------------------------- timing


def per_decode(run: Run, pieces: Pieces, min_seconds: float) -> float:
    """Seconds per decode, looping until at least min_seconds have passed."""
    n = 0
    start = time.perf_counter()
    while True:
        run(pieces)
        n += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            return elapsed / n


def measure(cell: Cell, run: Run, floor_run: Run, stream: gen.Stream, reps: int) -> None:
    """Verify one decode, then time floor and contender interleaved, in place."""
    pieces = gen.feed(stream, cell.feed)
    try:
        problems = check(run(pieces), stream)  # also the contender's warm-up
        if problems:
            cell.status, cell.detail = "diff", "; ".join(problems)
            return
        floor_run(pieces)
        if cell.mode == "after_work":
            work()  # its warm-up
        for _ in range(reps):
            # Floor and contender back to back on the same bytes: machine noise
            # (other processes, frequency changes) hits both, so the ratio holds.
            if cell.mode == "after_work":
                gc.collect()
                floor_total, floor_work = then_work(floor_run, pieces, MIN_SECONDS)
                gc.collect()
                total, work_alone = then_work(run, pieces, MIN_SECONDS)
                cell.reps.append((total, floor_total))
                cell.work.append((work_alone, floor_work))
                continue
            gc.collect()
            t_floor = per_decode(floor_run, pieces, MIN_SECONDS)
            gc.collect()
            t_contender = per_decode(run, pieces, MIN_SECONDS)
            cell.reps.append((t_contender, t_floor))
    except Exception as e:
        cell.status, cell.detail = "error", f"{type(e).__name__}: {e}"[:300]


def work() -> int:
    """What the program does next, unrelated to the stream: build WORK_ITEMS small
    containers (a dict, a tuple and a list each), all held in one list until the end."""
    items = []
    for i in range(WORK_ITEMS):
        items.append({"n": i, "pair": (i, i + 1), "tags": [i]})
    return len(items)


def then_work(run: Run, pieces: Pieces, min_seconds: float) -> tuple[float, float]:
    """Seconds of (decode + work, work alone), the decode's result held during the work
    and dropped after the clock stops; looping until at least min_seconds have passed."""
    n = 0
    total = work_alone = 0.0
    while total < min_seconds:
        start = time.perf_counter()
        result = run(pieces)
        decoded = time.perf_counter()
        work()
        end = time.perf_counter()
        del result
        total += end - start
        work_alone += end - decoded
        n += 1
    return total / n, work_alone / n


# --------------------------------------------------------------------------- cells


def bench_protocol(protocol: str, opts: Options, log: list[str]) -> list[Cell]:
    """All cells of one protocol; unavailable peers leave a line in log, no row."""
    streams = {size: gen.build(protocol, gen.SIZES[size]) for size in opts.sizes}
    floor_run = floor(protocol)
    plan = [(size, feed, "decode") for size in opts.sizes for feed in opts.feeds]
    cells: list[Cell] = []
    for name in opts.contenders:
        contender = CONTENDERS[name]
        if protocol not in contender.protocols:
            continue
        mine = list(plan)
        if opts.after_work and name in AFTER_WORK:
            mine.append((opts.sizes[-1], "whole", "after_work"))  # the largest size
        cells += contender_cells(contender, protocol, streams, mine, floor_run, opts.reps, log)
    return cells


def contender_cells(
    contender: Contender,
    protocol: str,
    streams: dict[str, gen.Stream],
    plan: list[tuple[str, str, str]],
    floor_run: Run,
    reps: int,
    log: list[str],
) -> list[Cell]:
    """The contender's cells of one protocol, measured here or each in a child process."""
    name = contender.name
    runs: dict[str, Run] = {}
    python = ""
    unavailable = ""
    try:
        if contender.interpreter is not None:
            python = contender.interpreter()
        else:
            runs["decode"] = contender.make(protocol)
    except Unavailable as e:
        if contender.optional:
            log.append(f"- {name} skipped ({protocol}): {e}")
            return []
        unavailable = str(e)  # a row of "unavailable" cells: the decoder is expected
    cells: list[Cell] = []
    for size, feed, mode in plan:
        stream = streams[size]
        cell = Cell(name, protocol, size, feed, len(stream.data), stream.n_events, mode=mode)
        if unavailable:
            cell.status, cell.detail = "unavailable", unavailable
        elif python:
            in_child(cell, python, stream, reps)
            if cell.status == "unavailable":  # `make` raised in the child
                if contender.optional:
                    log.append(f"- {name} skipped ({protocol}): {cell.detail}")
                    return []
                unavailable = cell.detail
        else:
            if mode not in runs:  # after_work: a run that keeps what it decoded
                runs[mode] = contender.make(protocol, keep=True)  # type: ignore[call-arg]
            measure(cell, runs[mode], floor_run, stream, reps)
        _progress(cell)
        cells.append(cell)
    return cells


# the versions of VERSIONED packages seen in children run by another Python
CHILD_VERSIONS: dict[str, str] = {}


def in_child(cell: Cell, python: str, stream: gen.Stream, reps: int) -> None:
    """Measure the cell whole in a child process of `python`, in place."""
    cell.python = python
    job = pickle.dumps({"cell": asdict(cell), "stream": stream, "reps": reps}, protocol=4)
    command = [python, str(RUN_PY), "--worker"]
    try:
        done = subprocess.run(command, input=job, capture_output=True, check=False)
        result = json.loads(done.stdout) if done.returncode == 0 else None
    except (OSError, ValueError) as e:
        cell.status, cell.detail = "error", f"worker: {type(e).__name__}: {e}"[:300]
        return
    if result is None:
        tail = done.stderr.decode(errors="replace").strip().splitlines()[-3:]
        cell.status = "error"
        cell.detail = f"worker exited {done.returncode}: {' / '.join(tail)}"[:300]
        return
    got = result["cell"]
    cell.status, cell.detail = got["status"], got["detail"]
    cell.reps = [(a, b) for a, b in got["reps"]]
    cell.work = [(a, b) for a, b in got["work"]]
    if python != sys.executable:  # another environment: its versions may differ
        own = versions()
        for pkg, version in result["versions"].items():
            if own.get(pkg) != version:
                CHILD_VERSIONS[f"{pkg} ({cell.contender})"] = version


def worker() -> int:
    """The child's side of in_child: the job on stdin, the cell as JSON on stdout."""
    job = pickle.load(sys.stdin.buffer)
    out = sys.stdout
    sys.stdout = sys.stderr  # whatever the contender prints stays out of the result
    cell = Cell(**job["cell"])
    contender = CONTENDERS[cell.contender]
    try:
        if cell.mode == "after_work":
            run = contender.make(cell.protocol, keep=True)  # type: ignore[call-arg]
        else:
            run = contender.make(cell.protocol)
    except Unavailable as e:
        cell.status, cell.detail = "unavailable", str(e)
    else:
        measure(cell, run, floor(cell.protocol), job["stream"], job["reps"])
    json.dump({"cell": asdict(cell), "versions": versions()}, out)
    out.flush()
    return 0


def as_json(cell: Cell) -> dict[str, object]:
    """The cell's fields, plus the numbers its table entry shows (when timed)."""
    out: dict[str, object] = asdict(cell)
    if cell.status == "ok" and cell.reps:
        t_contender, t_floor = cell.medians()
        out["mb_per_s"] = cell.n_bytes / t_contender / 1e6
        out["ratio"] = t_contender / t_floor
        if cell.work:
            w_contender, w_floor = cell.work_medians()
            out["work_ratio"] = w_contender / w_floor
    return out


def _progress(cell: Cell) -> None:
    where = f"{cell.protocol}/{cell.size}/{cell.feed} {cell.contender}"
    if cell.mode != "decode":
        where += f" {cell.mode}"
    shown = format_after(cell) if cell.mode == "after_work" else format_cell(cell)
    print(f"  {where}: {shown}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- output


def _num(x: float) -> str:
    return f"{x:.0f}" if x >= 100 else f"{x:.1f}" if x >= 1 else f"{x:.2f}"


def _ratio(x: float) -> str:
    return f"{x:.2f}x" if x < 10 else f"{_num(x)}x"


def format_cell(cell: Cell) -> str:
    if cell.status == "diff":
        return "[diff]"
    if cell.status != "ok" or not cell.reps:
        return cell.status if cell.status != "ok" else "n/a"
    t_contender, t_floor = cell.medians()
    return f"{_num(cell.n_bytes / t_contender / 1e6)} MB/s · {_ratio(t_contender / t_floor)}"


def format_after(cell: Cell) -> str:
    if cell.status != "ok" or not cell.reps:
        return format_cell(cell)
    (total, floor_total), (alone, floor_alone) = cell.medians(), cell.work_medians()
    return f"work {_ratio(alone / floor_alone)}, total {_ratio(total / floor_total)}"


def table(protocol: str, cells: list[Cell], opts: Options) -> list[str]:
    mine = [c for c in cells if c.protocol == protocol and c.mode == "decode"]
    if not mine:
        return []
    sizes = [s for s in opts.sizes if any(c.size == s for c in mine)]
    shape = []
    for size in sizes:
        c = next(c for c in mine if c.size == size)
        shape.append(f"{size}: {c.n_events:,} events, {c.n_bytes / 1e3:,.0f} kB")
    cols = [(s, f) for s in sizes for f in opts.feeds]
    lines = [f"### {protocol} ({'; '.join(shape)})", ""]
    lines.append("| contender | " + " | ".join(f"{s} · {f}" for s, f in cols) + " |")
    lines.append("|---|" + "---|" * len(cols))
    by_key = {(c.contender, c.size, c.feed): c for c in mine}
    for name in dict.fromkeys(c.contender for c in mine):  # first-seen order
        row = [format_cell(by_key[name, s, f]) for s, f in cols]
        lines.append(f"| {name} | " + " | ".join(row) + " |")
    lines.append("")
    return lines


def after_table(cells: list[Cell]) -> list[str]:
    """--after-work: one row per (protocol, contender), times in ms."""
    mine = [c for c in cells if c.mode == "after_work"]
    if not mine:
        return []
    lines = [
        f"### After-work ({mine[0].size} · whole, then {WORK_ITEMS:,} dicts, tuples and lists built)",
        "",
        "| protocol | contender | floor + work | contender + work | work after floor "
        "| work after contender | work ratio | total ratio |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for c in mine:
        if c.status != "ok" or not c.reps:
            lines.append(f"| {c.protocol} | {c.contender} | {format_cell(c)} |  |  |  |  |  |")
            continue
        (total, floor_total), (alone, floor_alone) = c.medians(), c.work_medians()
        ms = [f"{x * 1e3:.1f} ms" for x in (floor_total, total, floor_alone, alone)]
        ratios = f"{_ratio(alone / floor_alone)} | {_ratio(total / floor_total)}"
        lines.append(f"| {c.protocol} | {c.contender} | " + " | ".join(ms) + f" | {ratios} |")
    lines.append("")
    return lines


def notes(cells: list[Cell]) -> list[str]:
    """One line per failed cell, and one per unavailable row (same reason everywhere)."""
    lines: list[str] = []
    seen: set[tuple[str, str]] = set()
    for c in cells:
        if c.status == "unavailable" and (c.contender, c.protocol) not in seen:
            seen.add((c.contender, c.protocol))
            lines.append(f"- {c.contender} unavailable ({c.protocol}): {c.detail}")
        elif c.status in ("diff", "error"):
            where = f"{c.protocol}/{c.size}/{c.feed}" + ("" if c.mode == "decode" else f" {c.mode}")
            lines.append(f"- {c.contender} {c.status} ({where}): {c.detail}")
    return lines


def versions() -> dict[str, str]:
    """The versions of the VERSIONED packages this Python has."""
    out = {}
    for pkg in VERSIONED:
        with contextlib.suppress(metadata.PackageNotFoundError):  # an optional peer
            out[pkg] = metadata.version(pkg)
    return out


def machine() -> dict[str, str]:
    info = {"date": time.strftime("%Y-%m-%d"), "cpu": _cpu_name()}
    info["python"] = platform.python_version()
    uni: Any = sys.modules.get("unievent")  # imported by the unievent row, if it ran
    if uni is not None:
        info["unievent"] = "compiled" if uni.COMPILED else "pure"
    return {**info, **versions(), **CHILD_VERSIONS}


def _cpu_name() -> str:
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()


# --------------------------------------------------------------------------- CLI


def _choice(value: str | None, allowed: Sequence[str], what: str) -> tuple[str, ...]:
    """A comma-separated subset of allowed (all of it when value is None), in order."""
    if value is None:
        return tuple(allowed)
    wanted = [v.strip() for v in value.split(",") if v.strip()]
    unknown = [v for v in wanted if v not in allowed]
    if unknown:
        raise SystemExit(f"unknown {what}: {', '.join(unknown)} (one of {allowed})")
    return tuple(a for a in allowed if a in wanted)


def parse(argv: list[str]) -> Options:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0] if __doc__ else "")
    ap.add_argument("--protocol", help="comma-separated; default: all eight")
    ap.add_argument("--size", help="comma-separated: small,large (default both)")
    ap.add_argument("--feed", help="comma-separated: whole,split (default both)")
    ap.add_argument("--only", help="comma-separated contenders (the floor is always timed)")
    ap.add_argument("--reps", type=int, help=f"repetitions per cell (default {REPS})")
    ap.add_argument("--json", metavar="FILE", help="also write the raw timings there")
    ap.add_argument(
        "--after-work",
        action="store_true",
        help=f"also time a whole decode then {WORK_ITEMS:,} small allocations, against the floor's",
    )
    ap.add_argument("--quick", action="store_true", help=f"smoke run: small only, {QUICK_REPS} reps")
    args = ap.parse_args(argv)
    size = args.size if args.size or not args.quick else "small"
    reps = args.reps or (QUICK_REPS if args.quick else REPS)
    return Options(
        protocols=_choice(args.protocol, gen.PROTOCOLS, "protocol"),
        sizes=_choice(size, tuple(gen.SIZES), "size"),
        feeds=_choice(args.feed, gen.FEEDS, "feed"),
        contenders=_choice(args.only, tuple(CONTENDERS), "contender"),
        reps=max(1, reps),
        json_path=args.json,
        after_work=args.after_work,
    )


def main(argv: list[str]) -> int:
    if argv[:1] == ["--worker"]:
        return worker()
    opts = parse(argv)
    cells: list[Cell] = []
    skipped: list[str] = []
    for protocol in opts.protocols:
        cells += bench_protocol(protocol, opts, skipped)
    info = machine()
    lines: list[str] = []
    for protocol in opts.protocols:
        lines += table(protocol, cells, opts)
    lines += after_table(cells)
    lines += notes(cells) + list(dict.fromkeys(skipped))
    shown = ", ".join(f"{k} {v}" for k, v in info.items() if k not in ("date", "cpu"))
    lines.append("")
    lines.append(f"Measured {info['date']} on {info['cpu']}; {shown}; reps {opts.reps}.")
    print("\n".join(lines))
    if opts.json_path:
        options = {**asdict(opts), "min_seconds": MIN_SECONDS, "work_items": WORK_ITEMS}
        with open(opts.json_path, "w") as f:
            json.dump({"machine": info, "options": options, "cells": [as_json(c) for c in cells]}, f, indent=1)
    return 1 if any(c.status in ("diff", "error") for c in cells) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
