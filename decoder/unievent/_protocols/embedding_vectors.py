# What the two embeddings protocols share (openai_embeddings.py, gemini_embeddings.py):
# the handler that runs their machines, whose symbols and actions have the same names,
# and the reading of one vector.
#
# A vector is a JSON list of numbers or, from OpenAI's `encoding_format: "base64"`,
# the base64 of little-endian float32.  Both become a list of Python floats in C
# (`array`), never a loop in Python; float32 widens to a float exactly.  The delta and
# the done of a vector share one list, so a vector costs the decoder no more than the
# list of floats it is.
from __future__ import annotations

import binascii
import sys
from array import array
from typing import Any, Final

from unievent._events import FinishReason
from unievent._outcome import ProviderError
from unievent._session import MachineHandler, Session
from unievent._shared import code_of, str_or_none

__all__ = ["EmbeddingsHandler", "VectorError", "vector_of"]

_BIG_ENDIAN: Final = sys.byteorder == "big"


class VectorError(Exception):
    """A body whose vectors cannot be read (what is wrong, in words)."""


def vector_of(value: Any, base64_allowed: bool) -> list[float]:
    """The floats of one received vector (VectorError when it is none)."""
    if type(value) is list:
        try:
            return array("d", value).tolist()
        except (TypeError, OverflowError):
            raise VectorError("a list that is not all numbers") from None
    if type(value) is str and base64_allowed:
        try:
            raw = binascii.a2b_base64(value, strict_mode=True)
        except ValueError:  # binascii.Error, or a str that is not ASCII
            raise VectorError("a string that is not base64") from None
        if len(raw) % 4:
            raise VectorError(f"base64 of {len(raw)} bytes, not a whole number of float32")
        floats = array("f")
        floats.frombytes(raw)
        if _BIG_ENDIAN:
            floats.byteswap()
        return floats.tolist()
    raise VectorError(f"a {type(value).__name__}, not a list of numbers")


class EmbeddingsHandler(MachineHandler):
    """Runs an embeddings machine on its one frame.  A protocol says which bodies are
    its own (`vectors()`: None for any other object)."""

    def __init__(self, session: Session) -> None:
        self.session = session
        self.asm = session.asm
        self.state = self.machine.INITIAL
        self.found: list[list[float]] = []
        self.problem = ""

    def vectors(self, obj: dict[str, Any]) -> list[list[float]] | None:
        """The body's vectors in item order; None when it is no body of this protocol;
        VectorError when it is one whose vectors cannot be read."""
        raise NotImplementedError

    def take_usage(self, obj: dict[str, Any]) -> None:
        """Record the body's usage, in MMSP's meaning."""
        raise NotImplementedError

    def frame(self, event: str | None, obj: dict[str, Any]) -> bool:
        M = self.machine
        if obj.get("error") is not None:
            symbol = M.SY_ERROR
        else:
            try:
                found = self.vectors(obj)
            except VectorError as error:
                self.problem = str(error)
                symbol = M.SY_INVALID
            else:
                if found is None:
                    symbol = M.SY_OTHER
                else:
                    self.found = found
                    symbol = M.SY_EMBEDDINGS
        state = self.state
        dest = M.NEXT[state][symbol]
        if dest < 0:
            self.session.note("ignored_frame", f"{M.SYMBOLS[symbol]} in state {M.STATES[state]} ignored")
            return True
        self.state = dest
        for action in M.DO[state][symbol]:
            getattr(self, "_" + M.ACTIONS[action])(obj)
        return True  # one body, one frame

    def done_sentinel(self) -> bool:
        return True

    def finish_reason(self) -> FinishReason:
        return "stop"

    # --- actions -------------------------------------------------------------------------

    def _emit_vectors(self, obj: dict[str, Any]) -> None:
        model = obj.get("model")
        if type(model) is str:
            self.session.model = model
        for vector in self.found:
            self.asm.embedding(vector)
            self.asm.close()
        self.found = []
        self.take_usage(obj)

    def _record_invalid(self, obj: dict[str, Any]) -> None:
        name = self.session.protocol
        self.session.fail(ProviderError(f"{name}: {self.problem}", "protocol_error"))

    def _record_error(self, obj: dict[str, Any]) -> None:
        error = obj.get("error")
        if type(error) is dict:
            message = error.get("message")
            self.session.fail(
                ProviderError(
                    message if type(message) is str else "an error without a message",
                    str_or_none(error.get("type")) or str_or_none(error.get("status")),
                    code_of(error.get("code")),
                    error,
                )
            )
        else:
            self.session.fail(ProviderError(error if type(error) is str else "an error", None, None, error))

    def _record_not_embeddings(self, obj: dict[str, Any]) -> None:
        from unievent._detect import from_frame  # noqa: PLC0415  (detection knows every protocol)

        name = self.session.protocol
        other, _ = from_frame(None, obj)
        if other is not None and other != name:
            self.session.fail(ProviderError(f"{name}: the body looks like {other}, not {name}", "wrong_protocol"))
        else:
            keys = ", ".join(sorted(obj)[:8]) or "no keys"
            self.session.fail(ProviderError(f"{name}: the body is no {name} response (keys: {keys})", "protocol_error"))
