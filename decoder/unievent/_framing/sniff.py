# Choosing the framing of a body that may come in more than one (Gemini: SSE or one
# streamed JSON array; `protocol="auto"`: any): the first byte that is not whitespace
# (nor a BOM) decides among the candidates, `[` an array, `{` one JSON value, anything
# else SSE.  Bytes seen before the decision are held and fed to the chosen framer, so
# any split gives the same result.
from __future__ import annotations

from collections.abc import Callable
from typing import Final

from unievent._framing import Framer, FrameSink
from unievent._framing.json_array import JSONArrayFramer
from unievent._framing.json_body import JSONBodyFramer
from unievent._framing.sse import SSEFramer

__all__ = ["FRAMERS", "FramingSniffer", "make_framer"]

#: every framer, by the name a protocol lists it under
FRAMERS: Final[dict[str, Callable[[FrameSink, str, int], Framer]]] = {
    "sse": SSEFramer,
    "json_array": JSONArrayFramer,
    "json_body": JSONBodyFramer,
}

_BLANK: Final = b" \t\r\n\xef\xbb\xbf"  # whitespace, and the bytes of a BOM


def make_framer(name: str, sink: FrameSink, protocol: str, max_frame: int) -> Framer:
    return FRAMERS[name](sink, protocol, max_frame)


class FramingSniffer:
    """A framer until the framing is known: `chosen(framer)` is called with the real one
    (which has been fed everything so far) as soon as it is."""

    __slots__ = (
        "_chosen",
        "_framings",
        "_held",
        "_max_frame",
        "_protocol",
        "closed",
        "cut",
        "ignored",
        "sink",
        "skipped",
    )

    def __init__(
        self,
        sink: FrameSink,
        protocol: str,
        max_frame: int,
        chosen: Callable[[Framer], None],
        framings: tuple[str, ...] = ("sse", "json_array"),
    ) -> None:
        self.sink = sink
        self._framings = framings
        self._protocol = protocol
        self._max_frame = max_frame
        self._chosen = chosen
        self._held: list[bytes] = []
        self.closed = False
        self.cut = False
        self.ignored = 0
        self.skipped = 0

    @property
    def state_name(self) -> str:
        return "choosing the framing"

    def close(self) -> None:
        self.closed = True

    def body_text(self) -> str:
        return ""

    def feed(self, data: bytes) -> None:
        stripped = data.lstrip(_BLANK)
        if not stripped:
            self._held.append(data)
            return
        self._decide(self._framing_for(stripped[0])).feed(b"".join(self._held) + data)

    def eof(self) -> None:
        # only whitespace came: an empty body, read by the default framing
        self._decide("sse" if "sse" in self._framings else self._framings[0]).eof()

    def _framing_for(self, first: int) -> str:
        framings = self._framings
        if first == 91 and "json_array" in framings:  # [
            return "json_array"
        if first in (123, 91) and "json_body" in framings:  # { or [
            return "json_body"
        return "sse" if "sse" in framings else framings[0]

    def _decide(self, name: str) -> Framer:
        framer = make_framer(name, self.sink, self._protocol, self._max_frame)
        if self.closed:
            framer.close()
        self._chosen(framer)
        return framer
