# MMSP's own wire written from UniEvents (the reader is _protocols/mmsp.py; both run
# machines/mmsp.py): exactly what an MMSP server's POST /v1/stream sends.
#
# One `data: <UniEvent JSON>` block per event (Python's default separators, raw UTF-8,
# bytes as base64), the events' own `created_at`, `: keep-alive` while the model is
# silent, then `data: [DONE]`; an error is `{"error": {"type", "message", ...}}` then
# `[DONE]`.  MMSP carries every fidelity, whichever provider it came from.
from __future__ import annotations

import json
from typing import Any, ClassVar

from unievent._events import DeltaEvent, DeltaItem, DoneItem, Fidelity, StopEvent
from unievent._generated import mmsp as M
from unievent._json import to_json
from unievent._outcome import ProviderError
from unievent._writers.base import Writer

__all__ = ["MMSPWriter"]


def _block(obj: Any) -> bytes:
    return b"data: " + json.dumps(obj, ensure_ascii=False).encode() + b"\n\n"


class MMSPWriter(Writer):
    protocol: ClassVar[str] = "mmsp"
    machine: ClassVar[Any] = M
    whole_events: ClassVar[bool] = True

    def fidelity(self, fidelity: Fidelity | None) -> dict[str, Any]:
        return dict(fidelity or {})

    def event(self, event: DeltaEvent | StopEvent) -> None:
        self.step(M.SY_STOP if isinstance(event, StopEvent) else M.SY_DELTA)
        self.write(_block(to_json(event)))

    def delta(self, item: DeltaItem) -> None:
        pass  # MMSP writes whole events: see StreamEncoder

    def close(self, done: DoneItem) -> None:
        pass

    def stop(self, event: StopEvent) -> None:
        pass

    def end(self) -> None:
        self.step(M.SY_DONE_SENTINEL)
        self.write(b"data: [DONE]\n\n")

    def fail(self, error: ProviderError) -> None:
        raw = error.raw if isinstance(error.raw, dict) else {}
        body = {**raw, "type": error.type or "UpstreamError", "message": error.message}
        self.step(M.SY_ERROR)
        self.write(_block({"error": body}))
        self.write(b"data: [DONE]\n\n")
