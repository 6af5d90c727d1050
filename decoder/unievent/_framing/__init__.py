# The framing layer: bytes in, frames out.  One module per wire, each driven by its
# declared machine in machines/ (same name).
#
# A framer knows nothing about providers.  It hands each complete frame to a sink,
# `sink(event, payload) -> status`, where `event` is the frame's name when the wire
# has one (SSE `event:`) and `payload` the frame's bytes (one JSON text, or
# `[DONE]`).  The status says what became of it: FRAME_OK (read), FRAME_JUNK (not
# JSON: the framer counts it, or tries its own fallback) or FRAME_OVER (the protocol
# ended the stream: the framer goes on splitting frames only to count them).
#
# Every framer has the same surface: `feed(bytes)`, `eof()`, and what the decoder
# reads at the end: `skipped` (junk frames), `ignored` (frames after the end), `cut`
# (the body stopped inside a frame), `body` (the non-stream body kept, for a
# `not_event_stream` outcome) and `state_name`.
from __future__ import annotations

from collections.abc import Callable
from typing import Final, Protocol

__all__ = ["BOM", "FRAME_JUNK", "FRAME_OK", "FRAME_OVER", "FrameSink", "Framer", "RunSink", "ended", "past_boms"]

# Final: a compiled framer (mypyc) inlines the values
FRAME_OK: Final = 0
FRAME_JUNK: Final = 1
FRAME_OVER: Final = 2

FrameSink = Callable[[str | None, bytes], int]


def ended(event: str | None, payload: bytes) -> int:
    """The sink (and a handler's parser) once the decoder has ended: it stands in for the
    callbacks that referred back to the decoder, and nothing reaches it, since push()
    refuses first."""
    return FRAME_OVER
#: a handler's sink for a run of whole frames (their `event: NAME` lines, or for AWS
#: event-stream frames their event names, None when the frames have no name; and their
#: payloads, from an index on): it takes the frames
#: it can take on demand, exactly as its FrameSink would one by one, and returns the
#: index of the first frame it did not take
RunSink = Callable[[list[bytes] | None, list[bytes], int], int]

BOM: Final = b"\xef\xbb\xbf"


def past_boms(pending: bytes, data: bytes) -> tuple[bytes | None, bytes]:
    """The body's leading BOMs (any number: every split strips the same) taken off
    `data`, with the bytes held from the last push before it (`pending`).  Returns what
    to hold now (None once the body is past its start; a partial BOM waits for its
    rest) and the bytes to frame."""
    data = pending + data if pending else data
    while data.startswith(BOM):
        data = data[3:]
    if len(data) < 3 and BOM.startswith(data):
        return data, b""
    return None, data


class Framer(Protocol):
    """What the decoder needs of a framer (see the module header)."""

    skipped: int
    ignored: int
    cut: bool
    closed: bool

    def feed(self, data: bytes) -> None: ...
    def eof(self) -> None: ...
    def close(self) -> None: ...
    @property
    def state_name(self) -> str: ...
    def body_text(self) -> str: ...
