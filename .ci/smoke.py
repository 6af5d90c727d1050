"""Smoke test of an installed unievent: a wheel or an sdist, in a fresh venv.

    python smoke.py [--pure | --compiled]

Run it with the venv's Python from outside the checkout: the package must come from
site-packages, with its sample capture and py.typed.  It decodes a small OpenAI Chat
body split at every byte, then runs `unievent decode` (the shipped sample, exit 0).
Standard library and the public API only.
"""

from __future__ import annotations

import argparse
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path
from typing import NoReturn

BODY = (
    b'data: {"choices":[{"index":0,"delta":{"role":"assistant","content":"Hel"},"finish_reason":null}]}\n\n'
    b'data: {"choices":[{"index":0,"delta":{"content":"lo"},"finish_reason":null}]}\n\n'
    b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"}],'
    b'"usage":{"prompt_tokens":3,"completion_tokens":2,"total_tokens":5}}\n\n'
    b"data: [DONE]\n\n"
)


def fail(message: str) -> NoReturn:
    sys.exit(f"smoke: FAILED: {message}")


def check_installed(expect: str | None) -> None:
    import unievent  # noqa: PLC0415

    here = Path(unievent.__file__).resolve().parent
    site = Path(sysconfig.get_paths()["purelib"]).resolve()
    platsite = Path(sysconfig.get_paths()["platlib"]).resolve()
    if not (here.is_relative_to(site) or here.is_relative_to(platsite)):
        fail(f"unievent imported from {here}, not from this venv's site-packages ({site})")
    for shipped in ("py.typed", "samples/openai_chat.sse"):
        if not (here / shipped).is_file():
            fail(f"{shipped} is not in the installed package")
    if expect == "pure" and unievent.COMPILED:
        fail("expected the pure-Python build, got the compiled one")
    if expect == "compiled" and not unievent.COMPILED:
        fail("expected the compiled build, got the pure-Python one")
    print(f"smoke: unievent from {here} (COMPILED={unievent.COMPILED})")


def check_decode() -> None:
    import unievent  # noqa: PLC0415

    results = []
    for size in (len(BODY), 1):  # whole, then split at every byte
        decoder = unievent.StreamDecoder("openai_chat", clock=lambda: 0, stream_id="smoke")
        events = []
        for start in range(0, len(BODY), size):
            events += decoder.push(BODY[start : start + size])
        last, outcome = decoder.finish()
        events += last
        results.append((events, outcome))
    (events, outcome), (split_events, split_outcome) = results
    if (events, outcome) != (split_events, split_outcome):
        fail("decoding the body whole and split at every byte gave different results")
    deltas = [e.item for e in events if isinstance(e, unievent.DeltaEvent)]
    text = "".join(item.text for item in deltas if isinstance(item, unievent.TextDelta))
    if text != "Hello":
        fail(f"decoded text {text!r}, expected 'Hello'")
    if not isinstance(events[-1], unievent.StopEvent) or events[-1].finish_reason != "stop":
        fail(f"the last event is {events[-1]!r}, expected a stop event with finish reason 'stop'")
    if outcome.end != "complete" or (outcome.usage.prompt_tokens, outcome.usage.response_tokens) != (3, 2):
        fail(f"outcome {outcome!r}: expected complete, 3 prompt and 2 response tokens")
    print(f"smoke: StreamDecoder('openai_chat'): {len(events)} events, {outcome.end}, text {text!r}")


def check_cli() -> None:
    # the console script of this venv, beside its Python
    script = shutil.which("unievent", path=str(Path(sys.executable).parent))
    if script is None:
        fail(f"no `unievent` console script in {Path(sys.executable).parent}")
    done = subprocess.run([script, "decode"], capture_output=True, text=True, check=False, timeout=60)
    if done.returncode != 0:
        fail(f"`unievent decode` exited {done.returncode}:\n{done.stdout}{done.stderr}")
    if not done.stdout.strip():
        fail("`unievent decode` printed nothing")
    lines = done.stdout.count("\n")
    print(f"smoke: `unievent decode` exit 0, {lines} lines")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    build = parser.add_mutually_exclusive_group()
    build.add_argument("--pure", action="store_const", const="pure", dest="expect", help="the pure-Python build")
    build.add_argument("--compiled", action="store_const", const="compiled", dest="expect", help="the mypyc build")
    args = parser.parse_args(argv)
    check_installed(args.expect)
    check_decode()
    check_cli()
    print("smoke: ok")
    return 0


if __name__ == "__main__":
    sys.exit(main())
