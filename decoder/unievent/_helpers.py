# Small helpers callers need around a streamed request.
from __future__ import annotations

__all__ = ["is_stream_options_rejected", "looks_like_html", "stop_reason_from_openai"]

_OPENAI_TO_ANTHROPIC = {
    "stop": "end_turn",
    "tool_calls": "tool_use",
    "function_call": "tool_use",
    "length": "max_tokens",
}
# Unicode White_Space plus the BOM; str.isspace() would also take U+001C..U+001F
_LEADING = (
    "\t\n\x0b\x0c\r \x85\xa0\u1680\u2000\u2001\u2002\u2003\u2004\u2005"
    "\u2006\u2007\u2008\u2009\u200a\u2028\u2029\u202f\u205f\u3000\ufeff"
)


def is_stream_options_rejected(status: int, body: str | bytes) -> bool:
    """True when a 400/422 response says the server does not accept `stream_options`
    (retry once without it and remember the endpoint)."""
    if status not in (400, 422):
        return False
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    lowered = text.translate(_ASCII_LOWER)
    return "stream_options" in lowered or "include_usage" in lowered


_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def looks_like_html(body: str | bytes) -> bool:
    """True when a body is an HTML page (a gateway's error page sent with status 200)."""
    text = body.decode("utf-8", "replace") if isinstance(body, bytes) else body
    head = text.lstrip(_LEADING)[:512].lower()
    return head.startswith(("<!doctype html", "<html")) or (head.startswith("<") and "<html" in head)


def stop_reason_from_openai(reason: str) -> str:
    """An OpenAI finish_reason in Anthropic's stop_reason vocabulary (stop->end_turn,
    tool_calls/function_call->tool_use, length->max_tokens, anything else unchanged)."""
    return _OPENAI_TO_ANTHROPIC.get(reason, reason)
