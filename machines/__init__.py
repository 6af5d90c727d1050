"""Declarations of every state machine unievent runs.

Each module here is pure data and the single source of truth for one machine:
`NAME`, `INITIAL`, `STATES`, `FINAL`, `SYMBOLS` (the ordered input alphabet),
`TRANSITIONS` (dicts in the `transitions` library's format: `trigger`, `source`,
`dest`, optional `conditions` / `unless` naming guards and `after` naming actions),
and `GUARDS` / `ACTIONS` describing each name in words; and `HAPPY_PATHS`, named
walks of typical complete streams (symbols from `INITIAL` to a `FINAL` state, by `eof`
where the machine has it), which the diagrams draw bold and the tests walk through the
tables.  `codegen` turns them into the modules under `decoder/unievent/_generated/`
and the drawings in `diagrams/`; nothing at run time imports this package.
"""

from pathlib import Path

#: every declaration module in this folder, in a stable order
MACHINES = tuple(sorted(p.stem for p in Path(__file__).parent.glob("*.py") if not p.stem.startswith("_")))
