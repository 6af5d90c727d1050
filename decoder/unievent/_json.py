# MMSP JSON for the UniEvent vocabulary: `to_json` turns any typed object from
# `_events` (content item, delta/stop event, usage, message) into the exact dict MMSP
# puts on the wire, and `from_json` reads such a dict back, checking every field and
# raising `EventJSONError` (with the dotted path of the offending field) on bad input.
#
# This module owns the wire shape only: key names and order, the `type` / `role` /
# `event_type` tags, base64 for bytes, which keys are left out, and the input checks.
# The classes themselves live in `_events.py`.
#
# Wire rules (both directions):
# * Keys come out in MMSP's order, tags first: `{"type": "text.delta", "text": ...}`,
#   `{"role", "event_type", "content_items", "usage_metadata", "finish_reason",
#   "created_at"}`.
# * `fidelity` and `images` are left out when None (never written as null);
#   `Message.created_at` is likewise left out when None.  On input those keys may
#   be absent or null; both read as None.  Every other key `to_json` writes is
#   required on input, and a key `to_json` never writes is rejected.
# * bytes (`data` of inline_data / inline_thinking items) travel as standard,
#   padded base64 text.
# * Provider data (`fidelity`, `ToolCallDone.arguments`) is never looked into: the same
#   dict object goes out and comes in.  `to_json` does not copy nested containers
#   (fidelity, arguments, embedding, images): its result shares them with the object
#   it was given, so serialize it rather than mutate it.
# * `to_json` trusts its argument (the classes are typed and built by the decoder or
#   by typed user code); it checks nothing and raises TypeError only for an object
#   that is not one of the UniEvent classes (dispatch is on the exact class).
#
# Performance: `to_json` on events is the hot direction.  It is one dict lookup on
# `obj.__class__` to a prefetched function; item bodies are cattrs-generated functions
# built once at import, which write the `type` tag first themselves (no merge copy).
# Structuring (`from_json`) also runs cattrs-generated per-class functions, fetched once
# and selected by the `type` tag, with strict primitive hooks (cattrs' defaults would
# quietly turn `5` into `"5"`).
#
# Requires cattrs >= 24.1 (`make_dict_*_fn_from_attrs`, `get_*_hook`).
from __future__ import annotations

import binascii
from collections.abc import Callable
from typing import Any, TypeAlias, cast

import attrs
import cattrs
from cattrs.errors import ClassValidationError, IterableValidationError
from cattrs.fns import identity
from cattrs.gen import (
    make_dict_structure_fn,
    make_dict_unstructure_fn,
    make_dict_unstructure_fn_from_attrs,
    override,
)

from unievent._errors import EventJSONError
from unievent._events import (
    FINISH_REASONS,
    ITEM_CLASSES,
    ContentItem,
    DeltaEvent,
    DoneItem,
    Event,
    Message,
    StopEvent,
    ToolResultDone,
    Usage,
)

__all__ = ["Decoded", "EventJSONError", "from_json", "to_json"]

#: What `from_json` can return (and `to_json` accepts).
Decoded: TypeAlias = ContentItem | DeltaEvent | StopEvent | Message | Usage


# --- describing bad values -------------------------------------------------------------

_JSON_TYPE_NAMES: dict[type, str] = {
    type(None): "null",
    bool: "boolean",
    int: "integer",
    float: "number",
    str: "string",
    list: "array",
    dict: "object",
}
_REPR_LIMIT = 60


def _describe(value: object) -> str:
    """`"integer 5"`, `"null"`, `"string 'abc'"`: what arrived, kept short."""
    if value is None:
        return "null"
    name = _JSON_TYPE_NAMES.get(type(value), type(value).__name__)
    text = repr(value)
    if len(text) > _REPR_LIMIT:
        text = text[: _REPR_LIMIT - 3] + "..."
    return f"{name} {text}"


def _join(path: str, key: str) -> str:
    return f"{path}.{key}" if path else key


class _Invalid(ValueError):
    """Raised by the strict structure hooks; `at` is a path suffix such as "[3]"."""

    def __init__(self, reason: str, at: str = "") -> None:
        super().__init__(reason)
        self.reason = reason
        self.at = at


def _expected(what: str, value: object) -> _Invalid:
    return _Invalid(f"expected {what}, got {_describe(value)}")


# --- strict primitive hooks ---------------------------------------------------------------


def _structure_str(value: object, _: object) -> str:
    if not isinstance(value, str):
        raise _expected("a string", value)
    return value


def _structure_int(value: object, _: object) -> int:
    if not isinstance(value, int) or isinstance(value, bool):
        raise _expected("an integer", value)
    return value


def _structure_bytes(value: object, _: object) -> bytes:
    if not isinstance(value, str):
        raise _expected("base64 text", value)
    try:
        return binascii.a2b_base64(value, strict_mode=True)
    except ValueError as exc:  # binascii.Error, or non-ASCII text
        raise _Invalid(f"invalid base64 ({exc}), got {_describe(value)}") from None


def _unstructure_bytes(value: bytes) -> str:
    return binascii.b2a_base64(value, newline=False).decode("ascii")


def _structure_object(value: object, _: object) -> dict[str, Any]:
    """A JSON object passed through untouched (fidelity, tool-call arguments)."""
    if not isinstance(value, dict):
        raise _expected("an object", value)
    for key in value:
        if not isinstance(key, str):
            raise _Invalid(f"object keys must be strings, got {_describe(key)}")
    return value


def _structure_str_list(value: object, _: object) -> list[str]:
    if not isinstance(value, list):
        raise _expected("an array of strings", value)
    for index, element in enumerate(value):
        if not isinstance(element, str):
            raise _Invalid(f"expected a string, got {_describe(element)}", f"[{index}]")
    return value


def _structure_float_list(value: object, _: object) -> list[float]:
    if not isinstance(value, list):
        raise _expected("an array of numbers", value)
    out: list[float] = []
    for index, element in enumerate(value):
        if isinstance(element, float):
            out.append(element)
        elif isinstance(element, int) and not isinstance(element, bool):
            try:
                out.append(float(element))
            except OverflowError:
                raise _Invalid(
                    f"number out of range, got {_describe(element)}", f"[{index}]"
                ) from None
        else:
            raise _Invalid(f"expected a number, got {_describe(element)}", f"[{index}]")
    return out


# --- the converter -------------------------------------------------------------------

_converter = cattrs.Converter()
_converter.register_structure_hook(str, _structure_str)
_converter.register_structure_hook(int, _structure_int)
_converter.register_structure_hook(bytes, _structure_bytes)
_converter.register_unstructure_hook(bytes, _unstructure_bytes)
_converter.register_structure_hook_func(
    lambda t: t == dict[str, Any], _structure_object
)
_converter.register_structure_hook_func(lambda t: t == list[str], _structure_str_list)
_converter.register_structure_hook_func(
    lambda t: t == list[float], _structure_float_list
)

_ToJSON: TypeAlias = Callable[[Any], dict[str, Any]]
_FromJSON: TypeAlias = Callable[[Any, Any], Any]

_ITEM_CLASSES = ITEM_CLASSES

#: Fields whose value travels as-is (no copy, no per-element work).
_PASS_THROUGH = frozenset({"arguments", "embedding", "images", "fidelity"})
#: Fields left out of the dict when None.
_OMIT_IF_NONE = frozenset({"images", "fidelity"})


@attrs.frozen
class _TypeTag:
    """Only its attribute is used: a `type: str` field for the generated item
    unstructurers, read from the item's `type` class constant and written first."""

    type: str


def _make_item_unstructurer(cls: type[Any]) -> _ToJSON:
    overrides: dict[str, Any] = {}
    for field in attrs.fields(cls):
        if field.name in _PASS_THROUGH:
            overrides[field.name] = override(
                omit_if_default=field.name in _OMIT_IF_NONE, unstruct_hook=identity
            )
    # The attribute list is handed over raw, so its string annotations (from
    # `from __future__ import annotations`) must be resolved first.
    tag = attrs.fields(attrs.resolve_types(_TypeTag)).type
    fields = attrs.fields(attrs.resolve_types(cls))
    return make_dict_unstructure_fn_from_attrs(
        [tag, *fields], cls, _converter, **overrides
    )


class _ItemReader:
    """What `from_json` needs for one item class: its cattrs structure hook and keys."""

    __slots__ = ("allowed", "cls", "hook", "required")

    def __init__(self, cls: type[Any]) -> None:
        self.cls = cls
        self.hook: _FromJSON = make_dict_structure_fn(
            cls,
            _converter,
            _cattrs_detailed_validation=True,
            _cattrs_forbid_extra_keys=False,
        )
        fields = attrs.fields(cls)
        self.required: tuple[str, ...] = ("type", *tuple(f.name for f in fields if f.default is attrs.NOTHING))
        self.allowed: frozenset[str] = frozenset(("type", *(f.name for f in fields)))


def _tool_result_to_json(item: ToolResultDone) -> dict[str, Any]:
    """MMSP puts the optional `images` before `tool_call_id`.  cattrs writes optional
    keys after required ones, and attrs cannot put `images` (it has a default) before
    `tool_call_id` in the class, so this one item is written by hand.  It is a
    user-side item, never streamed, so it is off the hot path."""
    out: dict[str, Any] = {"type": item.type, "text": item.text}
    if item.images is not None:
        out["images"] = item.images
    out["tool_call_id"] = item.tool_call_id
    if item.fidelity is not None:
        out["fidelity"] = item.fidelity
    return out


_converter.register_unstructure_hook(ToolResultDone, _tool_result_to_json)

_ITEM_TO_JSON: dict[type[Any], _ToJSON] = {
    cls: _make_item_unstructurer(cls)
    for cls in _ITEM_CLASSES
    if cls is not ToolResultDone
}
_ITEM_TO_JSON[ToolResultDone] = _converter.get_unstructure_hook(ToolResultDone)
_ITEM_READERS: dict[str, _ItemReader] = {
    cls.type: _ItemReader(cls) for cls in _ITEM_CLASSES
}

_usage_to_json: _ToJSON = make_dict_unstructure_fn(Usage, _converter)
_usage_from_json: _FromJSON = make_dict_structure_fn(
    Usage, _converter, _cattrs_detailed_validation=True, _cattrs_forbid_extra_keys=False
)
_USAGE_KEYS: tuple[str, ...] = tuple(f.name for f in attrs.fields(Usage))

# The envelopes below write the tags as literals (cheapest); keep them honest.
if (DeltaEvent.role, DeltaEvent.event_type, StopEvent.role, StopEvent.event_type) != (
    "assistant",
    "delta",
    "assistant",
    "stop",
):  # pragma: no cover - guards against _events.py changing under us
    raise RuntimeError("unievent._json: event tags no longer match _events.py")


# --- to_json -------------------------------------------------------------------------


def _unknown_item(item: object) -> TypeError:
    return TypeError(
        f"to_json: {type(item).__qualname__} is not a UniEvent content item"
    )


def _item_to_json(item: ContentItem) -> dict[str, Any]:
    try:
        fn = _ITEM_TO_JSON[item.__class__]
    except KeyError:
        raise _unknown_item(item) from None
    return fn(item)


def _delta_event_to_json(event: DeltaEvent) -> dict[str, Any]:
    item = event.item
    try:
        fn = _ITEM_TO_JSON[item.__class__]
    except KeyError:
        raise _unknown_item(item) from None
    return {
        "role": "assistant",
        "event_type": "delta",
        "content_items": [fn(item)],
        "usage_metadata": None,
        "finish_reason": None,
        "created_at": event.created_at,
    }


def _stop_event_to_json(event: StopEvent) -> dict[str, Any]:
    return {
        "role": "assistant",
        "event_type": "stop",
        "content_items": [],
        "usage_metadata": _usage_to_json(event.usage),
        "finish_reason": event.finish_reason,
        "created_at": event.created_at,
    }


def _message_to_json(message: Message) -> dict[str, Any]:
    usage = message.usage
    out: dict[str, Any] = {
        "role": message.role,
        "content_items": [_item_to_json(item) for item in message.items],
        "usage_metadata": None if usage is None else _usage_to_json(usage),
        "finish_reason": message.finish_reason,
    }
    if message.created_at is not None:
        out["created_at"] = message.created_at
    return out


_TO_JSON: dict[type[Any], _ToJSON] = {
    DeltaEvent: _delta_event_to_json,
    StopEvent: _stop_event_to_json,
    Message: _message_to_json,
    Usage: _usage_to_json,
    **_ITEM_TO_JSON,
}


def to_json(obj: Decoded) -> dict[str, Any]:
    """Return the MMSP JSON dict for a UniEvent object, ready for `orjson.dumps`.

    `obj` is a content item, a `DeltaEvent`, a `StopEvent`, a `Usage` or a `Message`
    (exact classes; subclasses are not recognized).  Keys come out in MMSP's order;
    `fidelity`/`images` (and `Message.created_at`) are left out when None; bytes
    become base64 text.  Nested containers (fidelity, arguments, embedding, images)
    are shared with `obj`, not copied.  The object is not validated.

    Raises TypeError if `obj` (or an item inside it) is not a UniEvent class.
    """
    try:
        fn = _TO_JSON[obj.__class__]
    except KeyError:
        raise TypeError(
            f"to_json: {type(obj).__qualname__} is not a UniEvent object"
        ) from None
    return fn(obj)


# --- from_json -----------------------------------------------------------------------

_MISSING: Any = object()

_EVENT_KEYS = (
    "role",
    "event_type",
    "content_items",
    "usage_metadata",
    "finish_reason",
    "created_at",
)
_MESSAGE_REQUIRED = ("role", "content_items", "usage_metadata", "finish_reason")
_MESSAGE_ALLOWED = frozenset((*_MESSAGE_REQUIRED, "created_at"))


def _check_keys(
    d: dict[Any, Any],
    required: tuple[str, ...],
    allowed: frozenset[str] | tuple[str, ...],
    path: str,
) -> None:
    for key in required:
        if key not in d:
            raise EventJSONError(_join(path, key), "missing field")
    if len(d) > len(required):
        for key, value in d.items():
            if key not in allowed:
                field = _join(path, key) if isinstance(key, str) else path
                what = f"key {key!r}" if field == path else _describe(value)
                raise EventJSONError(field, f"unexpected field, got {what}")


def _from_cattrs(exc: BaseException, path: str) -> EventJSONError:
    """Turn a (nested) cattrs validation error into an EventJSONError for its first leaf."""
    while True:
        if isinstance(exc, ClassValidationError):
            with_notes, others = exc.group_exceptions()
            if with_notes:
                exc, note = with_notes[0]
                path = _join(path, note.name)
                continue
            if others:
                exc = others[0]
                continue
        elif isinstance(exc, IterableValidationError):
            iter_notes, iter_others = exc.group_exceptions()
            if iter_notes:
                exc, iter_note = iter_notes[0]
                path = f"{path}[{iter_note.index}]"
                continue
            if iter_others:
                exc = iter_others[0]
                continue
        break
    if isinstance(exc, _Invalid):
        return EventJSONError(path + exc.at, exc.reason)
    if isinstance(exc, KeyError):
        return EventJSONError(path, "missing field")
    return EventJSONError(path, f"invalid value ({type(exc).__name__}: {exc})")


def _run_hook(hook: _FromJSON, d: dict[str, Any], cls: type[Any], path: str) -> Any:
    try:
        return hook(d, cls)
    except EventJSONError:
        raise
    except Exception as exc:  # cattrs wraps every field error; map it to a path
        raise _from_cattrs(exc, path) from exc


def _require_dict(value: object, path: str, what: str) -> dict[str, Any]:
    if not isinstance(value, dict):
        raise EventJSONError(path, f"expected {what}, got {_describe(value)}")
    return value


def _item_from_json(value: object, path: str, done_only: bool) -> ContentItem:
    d = _require_dict(value, path, "an item object")
    tag_field = _join(path, "type")
    tag = d.get("type", _MISSING)
    if tag is _MISSING:
        raise EventJSONError(tag_field, "missing field")
    reader = _ITEM_READERS.get(tag) if isinstance(tag, str) else None
    if reader is None:
        raise EventJSONError(tag_field, f"unknown item type, got {_describe(tag)}")
    if done_only and not tag.endswith(".done"):
        raise EventJSONError(
            tag_field, f"a message holds only done items, got {_describe(tag)}"
        )
    _check_keys(d, reader.required, reader.allowed, path)
    item: ContentItem = _run_hook(reader.hook, d, reader.cls, path)
    return item


def _usage_from_dict(value: object, path: str) -> Usage:
    d = _require_dict(value, path, "a usage object")
    _check_keys(d, _USAGE_KEYS, _USAGE_KEYS, path)
    usage: Usage = _run_hook(_usage_from_json, d, Usage, path)
    return usage


def _items_list(d: dict[str, Any]) -> list[Any]:
    items = d["content_items"]
    if not isinstance(items, list):
        raise EventJSONError(
            "content_items", f"expected an array, got {_describe(items)}"
        )
    return items


def _int_field(d: dict[str, Any], key: str) -> int:
    value = d[key]
    if not isinstance(value, int) or isinstance(value, bool):
        raise EventJSONError(key, f"expected an integer, got {_describe(value)}")
    return value


def _finish_reason(value: object) -> Any:
    if not isinstance(value, str) or value not in FINISH_REASONS:
        raise EventJSONError(
            "finish_reason",
            f"expected one of {', '.join(FINISH_REASONS)}, got {_describe(value)}",
        )
    return value


def _event_from_json(d: dict[str, Any]) -> Event:
    event_type = d["event_type"]
    if not isinstance(event_type, str) or event_type not in ("delta", "stop"):
        raise EventJSONError(
            "event_type", f"expected 'delta' or 'stop', got {_describe(event_type)}"
        )
    _check_keys(d, _EVENT_KEYS, _EVENT_KEYS, "")
    if not isinstance(d["role"], str) or d["role"] != "assistant":
        raise EventJSONError(
            "role", f"expected 'assistant', got {_describe(d['role'])}"
        )
    items = _items_list(d)
    created_at = _int_field(d, "created_at")
    if event_type == "delta":
        if len(items) != 1:
            raise EventJSONError(
                "content_items",
                f"a delta event carries exactly one item, got {len(items)}",
            )
        for key in ("usage_metadata", "finish_reason"):
            if d[key] is not None:
                raise EventJSONError(
                    key, f"must be null in a delta event, got {_describe(d[key])}"
                )
        return DeltaEvent(
            item=_item_from_json(items[0], "content_items[0]", False),
            created_at=created_at,
        )
    if items:
        raise EventJSONError(
            "content_items", f"a stop event carries no items, got {len(items)}"
        )
    usage_value = d["usage_metadata"]
    if usage_value is None:
        raise EventJSONError(
            "usage_metadata", "a stop event needs a usage object, got null"
        )
    usage = _usage_from_dict(usage_value, "usage_metadata")
    return StopEvent(
        usage=usage,
        finish_reason=_finish_reason(d["finish_reason"]),
        created_at=created_at,
    )


def _message_from_json(d: dict[str, Any]) -> Message:
    _check_keys(d, _MESSAGE_REQUIRED, _MESSAGE_ALLOWED, "")
    role = d["role"]
    if not isinstance(role, str):
        raise EventJSONError("role", f"expected a string, got {_describe(role)}")
    items = tuple(
        cast(DoneItem, _item_from_json(value, f"content_items[{index}]", True))
        for index, value in enumerate(_items_list(d))
    )
    usage_value = d["usage_metadata"]
    usage = (
        None if usage_value is None else _usage_from_dict(usage_value, "usage_metadata")
    )
    reason = d["finish_reason"]
    created_at = d.get("created_at")
    if created_at is not None:
        created_at = _int_field(d, "created_at")
    return Message(
        role=role,
        items=items,
        usage=usage,
        finish_reason=None if reason is None else _finish_reason(reason),
        created_at=created_at,
    )


def from_json(d: object) -> Decoded:
    """Read an MMSP JSON dict (as from `orjson.loads`) back into its typed object.

    What `d` is gets decided by its keys: ``event_type`` makes it an event
    (`DeltaEvent` or `StopEvent`); else ``type`` makes it a content item; else
    ``role``/``content_items`` make it a `Message`; else usage keys make it a `Usage`.
    A delta event must hold exactly one item with null usage and finish reason; a
    stop event no items, a usage object and a finish reason that is a `FinishReason`;
    a message only done items.  Every key `to_json` writes is required, unknown keys
    are rejected, and optional keys (`fidelity`, `images`, message `created_at`) may
    be absent or null.  `to_json(from_json(d)) == d` for every dict `to_json` writes.

    Raises EventJSONError, whose `field` is the dotted path of the first bad field.
    """
    doc = _require_dict(d, "", "a JSON object")
    if "event_type" in doc:
        return _event_from_json(doc)
    if "type" in doc:
        return _item_from_json(doc, "", False)
    if "content_items" in doc or "role" in doc:
        return _message_from_json(doc)
    if any(key in doc for key in _USAGE_KEYS):
        return _usage_from_dict(doc, "")
    raise EventJSONError(
        "",
        "not a UniEvent object: expected an event (event_type), an item (type), a message "
        f"(role, content_items) or a usage object, got keys {sorted(map(str, doc))[:8]}",
    )
