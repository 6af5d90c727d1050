# Helpers more than one protocol handler uses: reading loosely typed provider JSON,
# provider error objects, and JSON text of received values.
#
# Depth: the decoder refuses frames nested deeper than MAX_DEPTH (the core checks
# each parsed frame, `too_deep`), and tool arguments likewise.  So every value a
# handler holds can be written back by orjson (whose writer stops at 254 levels while
# its reader goes to 1,024) and compared or printed without a RecursionError; `json_text`
# of a received value therefore cannot raise.
from __future__ import annotations

import binascii
from typing import Any, Final

import orjson

from unievent._outcome import ProviderError

__all__ = [
    "CUSTOM_INPUT_CLOSE",
    "CUSTOM_INPUT_OPEN",
    "MAX_DEPTH",
    "as_dict",
    "as_int",
    "as_list",
    "as_str",
    "base64_bytes",
    "carries_content",
    "code_of",
    "error_of",
    "json_string_body",
    "json_text",
    "parse_json",
    "shown",
    "str_or_none",
    "too_deep",
    "usage_counts",
]

#: the deepest nesting of a frame (and of tool arguments) the decoder accepts
MAX_DEPTH = 254
# a value nested MAX_DEPTH + 1 levels needs that many opening and closing brackets
_SHORTEST_TOO_DEEP: Final = 2 * (MAX_DEPTH + 1)


def as_str(value: Any) -> str:
    return value if type(value) is str else ""


def str_or_none(value: Any) -> str | None:
    return value if type(value) is str else None


def as_int(value: Any) -> int | None:
    return value if type(value) is int else None


def as_dict(value: Any) -> dict[str, Any]:
    return value if type(value) is dict else {}


def as_list(value: Any) -> list[Any]:
    return value if type(value) is list else []


def shown(value: Any) -> str:
    """A received value as words in a message: short scalars as themselves, anything
    else by its type (never a whole provider object)."""
    if value is None or type(value) in (bool, int, float):
        return repr(value)
    if type(value) is str:
        return repr(value[:60])
    return type(value).__name__


def code_of(value: Any) -> str | int | None:
    """An error code as providers send it: a string or an integer (never a bool)."""
    return value if type(value) in (str, int) else None


def too_deep(text: bytes | str, value: Any) -> bool:
    """True when `value` (parsed from `text`) is nested deeper than MAX_DEPTH.

    The text's length rules out nearly every frame at once; only a long text with
    many brackets is walked (iteratively: the walk itself cannot overflow)."""
    if len(text) < _SHORTEST_TOO_DEEP or type(value) not in (dict, list):
        return False
    opening = (b"[", b"{") if type(text) is bytes else ("[", "{")
    if text.count(opening[0]) + text.count(opening[1]) <= MAX_DEPTH:  # type: ignore[arg-type]
        return False
    stack: list[tuple[Any, int]] = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_DEPTH:
            return True
        children = node.values() if type(node) is dict else node
        stack.extend((child, depth + 1) for child in children if type(child) in (dict, list))
    return False


def parse_json(text: str | bytes) -> Any:
    """A JSON value the decoder received as text (ValueError when it is not JSON or is
    nested deeper than MAX_DEPTH)."""
    value = orjson.loads(text)
    if too_deep(text, value):
        raise ValueError(f"nested deeper than {MAX_DEPTH} levels")
    return value


def json_text(value: Any) -> str:
    """Compact JSON text of a value the decoder received (see the module header)."""
    return orjson.dumps(value).decode()


def json_string_body(text: str) -> str:
    """`text` as it reads inside a JSON string, without the quotes: escaping goes
    character by character, so the escaped pieces of a text join to the escaped text
    (a string streamed into JSON text a fragment at a time)."""
    return orjson.dumps(text).decode()[1:-1]


#: the JSON text a custom tool's arguments, `{"input": text}`, open and close with around
#: its input, escaped as it streams (Chat's `custom` calls, Responses' `custom_tool_call`)
CUSTOM_INPUT_OPEN: Final = '{"input":"'
CUSTOM_INPUT_CLOSE: Final = '"}'


def carries_content(delta: Any, content_of: dict[str, str], nothing: tuple[Any, ...] = (None, "")) -> bool:
    """Whether a typed delta adds to its block's content: its type is one of
    `content_of` (delta type -> the field its content is in) and that field holds
    something other than `nothing` (the values its reader adds nothing for).  For a
    block that already stopped that is a contradiction; any other delta (a type nobody
    knows yet, an empty one) changes nothing done: a late event."""
    if type(delta) is not dict:
        return False
    kind = delta.get("type")
    field = content_of.get(kind) if type(kind) is str else None
    return field is not None and delta.get(field) not in nothing


def _message_of(value: Any, whole: dict[str, Any]) -> str:
    if type(value) is dict:
        message = value.get("message")
        if type(message) is str:
            return message
    if type(value) is str:
        return value
    return json_text(value if value is not None else whole)


def error_of(event: str | None, obj: dict[str, Any]) -> ProviderError | None:
    """The provider error a frame reports, if any: a non-null top-level `error`
    (object or string), an `"object": "error"` body, or an `event: error` frame."""
    error = obj.get("error")
    if error is not None:
        if type(error) is dict:
            kind = str_or_none(error.get("type")) or str_or_none(error.get("status"))  # Gemini: status
            return ProviderError(_message_of(error, obj), kind, code_of(error.get("code")), error)
        return ProviderError(_message_of(error, obj), None, None, error)
    if obj.get("object") == "error" or event == "error":
        return ProviderError(_message_of(obj, obj), str_or_none(obj.get("type")), code_of(obj.get("code")), obj)
    return None


def usage_counts(plan: tuple[tuple[str, str, str], ...], usage: dict[str, Any]) -> dict[str, int]:
    """A usage object's counts by name, read by a UsageWire's plan (non-negative
    integers only; see _usage_wire.py)."""
    out: dict[str, int] = {}
    for key, inner, name in plan:
        value = usage.get(key)
        if inner:
            value = value.get(inner) if type(value) is dict else None
        if type(value) is int and value >= 0:
            out[name] = value
    return out


_URL_SAFE: Final = str.maketrans("-_", "+/")


def base64_bytes(text: str, url_safe: bool = False) -> bytes | None:
    """The bytes a base64 string holds, or None when it is no base64.  Line breaks (a
    MIME encoder's) and missing padding are forgiven, and with `url_safe` the URL-safe
    alphabet too; any other character refuses the text, where a lenient reader would
    skip it and make other bytes (junk into an empty image) without a word."""
    if url_safe and ("-" in text or "_" in text):
        text = text.translate(_URL_SAFE)
    if "\n" in text or "\r" in text or " " in text or "\t" in text:
        text = "".join(text.split())
    short = len(text) % 4
    if short:
        text += "=" * (4 - short)  # a length one past a group is no base64: refused below
    try:
        return binascii.a2b_base64(text, strict_mode=True)
    except (binascii.Error, ValueError):  # not base64, or not ASCII
        return None
