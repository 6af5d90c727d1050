"""Coverage-guided fuzzing with atheris (optional: `pip install atheris`).

    python tests/fuzz_atheris.py [libFuzzer options, e.g. -runs=100000 -max_len=65536]

The first byte of each input picks the protocol and the arguments mode; the rest is
the body.  Every input must keep the invariants of `tests.fuzzing.check`.  The seed
streams are written to a temporary corpus folder first, so the fuzzer starts from
real bodies.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import atheris

with atheris.instrument_imports():
    import unievent  # noqa: F401

from tests import fuzzing


def one_input(data: bytes) -> None:
    if not data:
        return
    protocol = fuzzing.PROTOCOLS[data[0] % len(fuzzing.PROTOCOLS)]
    fuzzing.check(protocol, data[1:], strict=data[0] & 0x80 == 0)


def main() -> None:
    seeds = Path(tempfile.mkdtemp(prefix="unievent-fuzz-"))
    for n, (protocol, _label, body) in enumerate(fuzzing.suite_seeds() + fuzzing.corpus_seeds()):
        (seeds / f"seed{n}").write_bytes(bytes([fuzzing.PROTOCOLS.index(protocol)]) + body[:65536])
    atheris.Setup([*sys.argv, str(seeds)], one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()
