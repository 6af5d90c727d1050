"""Throughput of unievent against the floor and the optional peers; prints Markdown.

    python tests/bench/run.py                       # the whole matrix (a few minutes)
    python tests/bench/run.py --quick               # small streams, 3 repetitions
    python tests/bench/run.py --protocol anthropic --size small --only unievent
    python tests/bench/run.py --json out.json       # also keep the raw timings

Everything runs in this one process.  For every (protocol, size, feed, contender) the
contender decodes the stream once untimed (warm-up, and the decode that is checked
against the generator's ground truth), then each repetition times the floor and then
the contender on the same pieces, with gc.collect() before each, each looping until at
least 0.1 s have passed.  Cells give the median over the repetitions as MB/s of wire
bytes and ratio = median(contender time) / median(floor time).

Exit status 1 when some cell failed its check ([diff]) or raised (error).
"""

from __future__ import annotations

import argparse
import contextlib
import gc
import json
import platform
import statistics
import sys
import time
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from importlib import metadata

import gen
import peers
from contenders import BUILTIN, Contender, Pieces, Run, Unavailable, check, floor

CONTENDERS: dict[str, Contender] = {c.name: c for c in (*BUILTIN, *peers.PEERS)}
MIN_SECONDS = 0.1  # each timed loop runs at least this long, to dwarf timer noise
REPS = 5
QUICK_REPS = 3
VERSIONED = ("orjson", "openai", "anthropic", "httpx", "httpx-sse", "pydantic")


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
    # seconds per decode, (contender, floor), one pair per repetition
    reps: list[tuple[float, float]] = field(default_factory=list)

    def medians(self) -> tuple[float, float]:
        return (
            statistics.median(r[0] for r in self.reps),
            statistics.median(r[1] for r in self.reps),
        )


@dataclass(frozen=True)
class Options:
    protocols: tuple[str, ...]
    sizes: tuple[str, ...]
    feeds: tuple[str, ...]
    contenders: tuple[str, ...]
    reps: int
    json_path: str | None


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


def measure(
    cell: Cell, run: Run, floor_run: Run, stream: gen.Stream, reps: int
) -> None:
    """Verify one decode, then time floor and contender interleaved, in place."""
    pieces = gen.feed(stream, cell.feed)
    try:
        problems = check(run(pieces), stream)  # also the contender's warm-up
        if problems:
            cell.status, cell.detail = "diff", "; ".join(problems)
            return
        floor_run(pieces)
        for _ in range(reps):
            # Floor and contender back to back on the same bytes: machine noise
            # (other processes, frequency changes) hits both, so the ratio holds.
            gc.collect()
            t_floor = per_decode(floor_run, pieces, MIN_SECONDS)
            gc.collect()
            t_contender = per_decode(run, pieces, MIN_SECONDS)
            cell.reps.append((t_contender, t_floor))
    except Exception as e:
        cell.status, cell.detail = "error", f"{type(e).__name__}: {e}"[:300]


def bench_protocol(protocol: str, opts: Options, log: list[str]) -> list[Cell]:
    """All cells of one protocol; unavailable peers leave a line in log, no row."""
    streams = {size: gen.build(protocol, gen.SIZES[size]) for size in opts.sizes}
    floor_run = floor(protocol)
    cells: list[Cell] = []
    for name in opts.contenders:
        contender = CONTENDERS[name]
        if protocol not in contender.protocols:
            continue
        try:
            run: Run | str = contender.make(protocol)
        except Unavailable as e:
            if contender.optional:
                log.append(f"- {name} skipped ({protocol}): {e}")
                continue
            run = str(e)  # a row of "unavailable" cells: the decoder is expected
        for size, stream in streams.items():
            for feed in opts.feeds:
                cell = Cell(
                    name, protocol, size, feed, len(stream.data), stream.n_events
                )
                if isinstance(run, str):
                    cell.status, cell.detail = "unavailable", run
                else:
                    measure(cell, run, floor_run, stream, opts.reps)
                _progress(cell)
                cells.append(cell)
    return cells


def as_json(cell: Cell) -> dict[str, object]:
    """The cell's fields, plus the numbers its table entry shows (when timed)."""
    out: dict[str, object] = asdict(cell)
    if cell.status == "ok" and cell.reps:
        t_contender, t_floor = cell.medians()
        out["mb_per_s"] = cell.n_bytes / t_contender / 1e6
        out["ratio"] = t_contender / t_floor
    return out


def _progress(cell: Cell) -> None:
    where = f"{cell.protocol}/{cell.size}/{cell.feed} {cell.contender}"
    print(f"  {where}: {format_cell(cell)}", file=sys.stderr, flush=True)


# --------------------------------------------------------------------------- output


def _num(x: float) -> str:
    return f"{x:.0f}" if x >= 100 else f"{x:.1f}" if x >= 1 else f"{x:.2f}"


def format_cell(cell: Cell) -> str:
    if cell.status == "diff":
        return "[diff]"
    if cell.status != "ok" or not cell.reps:
        return cell.status if cell.status != "ok" else "n/a"
    t_contender, t_floor = cell.medians()
    ratio = t_contender / t_floor
    ratio_s = f"{ratio:.2f}" if ratio < 10 else _num(ratio)
    return f"{_num(cell.n_bytes / t_contender / 1e6)} MB/s · {ratio_s}x"


def table(protocol: str, cells: list[Cell], opts: Options) -> list[str]:
    mine = [c for c in cells if c.protocol == protocol]
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


def notes(cells: list[Cell]) -> list[str]:
    """One line per failed cell, and one per unavailable row (same reason everywhere)."""
    lines: list[str] = []
    seen: set[tuple[str, str]] = set()
    for c in cells:
        if c.status == "unavailable" and (c.contender, c.protocol) not in seen:
            seen.add((c.contender, c.protocol))
            lines.append(f"- {c.contender} unavailable ({c.protocol}): {c.detail}")
        elif c.status in ("diff", "error"):
            where = f"{c.protocol}/{c.size}/{c.feed}"
            lines.append(f"- {c.contender} {c.status} ({where}): {c.detail}")
    return lines


def machine() -> dict[str, str]:
    info = {"date": time.strftime("%Y-%m-%d"), "cpu": _cpu_name()}
    info["python"] = platform.python_version()
    for pkg in VERSIONED:
        with contextlib.suppress(metadata.PackageNotFoundError):  # an optional peer
            info[pkg] = metadata.version(pkg)
    return info


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
    ap.add_argument("--protocol", help="comma-separated; default: all three")
    ap.add_argument("--size", help="comma-separated: small,large (default both)")
    ap.add_argument("--feed", help="comma-separated: whole,split (default both)")
    ap.add_argument(
        "--only", help="comma-separated contenders (the floor is always timed)"
    )
    ap.add_argument("--reps", type=int, help=f"repetitions per cell (default {REPS})")
    ap.add_argument("--json", metavar="FILE", help="also write the raw timings there")
    ap.add_argument(
        "--quick", action="store_true", help=f"smoke run: small only, {QUICK_REPS} reps"
    )
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
    )


def main(argv: list[str]) -> int:
    opts = parse(argv)
    info = machine()
    cells: list[Cell] = []
    skipped: list[str] = []
    for protocol in opts.protocols:
        cells += bench_protocol(protocol, opts, skipped)
    lines: list[str] = []
    for protocol in opts.protocols:
        lines += table(protocol, cells, opts)
    lines += notes(cells) + list(dict.fromkeys(skipped))
    versions = ", ".join(
        f"{k} {v}" for k, v in info.items() if k not in ("date", "cpu")
    )
    lines.append("")
    lines.append(
        f"Measured {info['date']} on {info['cpu']}; {versions}; reps {opts.reps}."
    )
    print("\n".join(lines))
    if opts.json_path:
        with open(opts.json_path, "w") as f:
            json.dump(
                {"machine": info, "cells": [as_json(c) for c in cells]}, f, indent=1
            )
    return 1 if any(c.status in ("diff", "error") for c in cells) else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
