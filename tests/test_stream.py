"""`unievent.stream()` and `astream()` on any iterable of bytes, and on duck-typed
responses: the outcome on every end, transport failures, status errors, text_stream,
final_message(), snapshot() (linear however often it is asked), close().  The real
clients against a local server are in tests/test_clients.py."""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator, Iterator
from typing import Any

import jiter
import pytest

import unievent
from tests.helpers import chunk, sse
from unievent import DeltaEvent, StopEvent, TextDelta, TextDone, ToolCallDone

ARGUMENTS = json.dumps({"city": "Paris", "days": [1, 2, 3], "note": "x" * 4000})
CALL = sse(
    chunk({"role": "assistant", "content": "Hi"}),
    chunk({"tool_calls": [{"index": 0, "id": "c1", "type": "function", "function": {"name": "f", "arguments": ""}}]}),
    *[chunk({"tool_calls": [{"index": 0, "function": {"arguments": ARGUMENTS[i]}}]}) for i in range(len(ARGUMENTS))],
    chunk({}, "tool_calls"),
)
TEXT = sse(chunk({"role": "assistant", "content": "Hel"}), chunk({"content": "lo"}), chunk({}, "stop"))


def pieces(body: bytes, size: int = 7) -> list[bytes]:
    return [body[i : i + size] for i in range(0, len(body), size)]


class Response:
    """A response as clients shape it: status, headers, url, iter_bytes(), close()."""

    def __init__(self, body: bytes, status_code: int = 200, content_type: str = "text/event-stream") -> None:
        self.status_code = status_code
        self.headers = {"content-type": content_type}
        self.url = "https://api.example/v1/chat/completions"
        self.body = body
        self.closed = False

    def iter_bytes(self) -> Iterator[bytes]:
        yield from pieces(self.body)

    def close(self) -> None:
        self.closed = True


def failing(body: bytes, error: Exception) -> Iterator[bytes]:
    yield from pieces(body)
    raise error


# --- every end has an outcome ------------------------------------------------------


def test_a_complete_stream_keeps_its_outcome_message_and_model() -> None:
    s = unievent.stream(Response(TEXT))
    events = list(s)
    assert isinstance(events[-1], StopEvent)
    assert s.outcome is not None and s.outcome.end == "complete"
    assert s.message is not None and s.message.items == (TextDone("Hello"),)
    assert s.model == "gpt-test"
    assert s.protocol == "openai_chat"
    assert s.outcome.detected_by == "the URL path has /chat/completions"


def test_a_truncated_stream_raises_after_its_events_and_keeps_the_outcome() -> None:
    s = unievent.stream(pieces(TEXT[:-40]), "openai_chat")
    seen: list[Any] = []
    with pytest.raises(unievent.IncompleteStreamError) as caught:
        for event in s:
            seen.append(event)
    assert [e.item.text for e in seen if isinstance(e, DeltaEvent) and isinstance(e.item, TextDelta)] == ["Hel", "lo"]
    assert s.outcome is caught.value.outcome and s.outcome.end == "truncated"


def test_a_client_failure_while_reading_is_a_transport_error_with_what_arrived() -> None:
    reset = ConnectionResetError(104, "Connection reset by peer")
    s = unievent.stream(failing(TEXT[:-40], reset), "openai_chat")
    with pytest.raises(unievent.TransportError) as caught:
        list(s)
    assert caught.value.__cause__ is reset
    assert caught.value.outcome.end == "truncated"
    assert caught.value.outcome.message.items == (TextDone("Hello"),)
    assert "ConnectionResetError" in str(caught.value)


def test_a_failure_after_the_stream_completed_is_no_failure() -> None:
    s = unievent.stream(failing(TEXT, ConnectionResetError()), "openai_chat")
    assert isinstance(list(s)[-1], StopEvent)
    assert s.outcome is not None and s.outcome.end == "complete"


def test_a_provider_error_before_a_reset_stays_the_providers() -> None:
    body = sse(chunk({"content": "Hi"}), {"error": {"message": "overloaded", "type": "server_error"}}, done=False)
    with pytest.raises(unievent.ProviderStreamError) as caught:
        list(unievent.stream(failing(body, ConnectionResetError()), "openai_chat"))
    assert caught.value.provider_message == "overloaded"


def test_close_cancels_and_closes_the_response() -> None:
    response = Response(TEXT)
    with unievent.stream(response) as s:
        next(s)
    assert s.outcome is not None and s.outcome.end == "cancelled"
    assert response.closed


def test_a_str_chunk_names_the_fix() -> None:
    with pytest.raises(unievent.DecoderUsageError, match=r"not str; read them with iter_bytes\(\)"):
        list(unievent.stream(["data: {}\n\n"], "openai_chat"))


def test_something_that_is_no_response_is_refused_saying_what_it_takes() -> None:
    with pytest.raises(unievent.DecoderUsageError, match="cannot read a int"):
        unievent.stream(42)


# --- the status -----------------------------------------------------------------------


def test_a_status_that_is_not_2xx_raises_before_any_event_with_the_parsed_error() -> None:
    body = b'{"error": {"message": "Incorrect API key", "type": "invalid_request_error", "code": "invalid_api_key"}}'
    response = Response(body, 401, "application/json")
    with pytest.raises(unievent.HTTPStatusError) as caught:
        next(unievent.stream(response))
    error = caught.value
    assert (error.status, error.content_type, error.body) == (401, "application/json", body.decode())
    assert error.error is not None
    assert (error.error.message, error.error.type, error.error.code) == ("Incorrect API key", "invalid_request_error", "invalid_api_key")
    assert not error.stream_options_rejected
    assert str(error) == "HTTP 401: Incorrect API key"
    assert response.closed


def test_a_rejected_stream_options_says_so() -> None:
    body = b'{"error": {"message": "Unrecognized request argument supplied: stream_options"}}'
    with pytest.raises(unievent.HTTPStatusError) as caught, unievent.stream(Response(body, 400)):
        pass
    assert caught.value.stream_options_rejected


def test_a_gemini_error_array_body_is_parsed() -> None:
    body = b'[{"error": {"code": 429, "message": "Resource exhausted", "status": "RESOURCE_EXHAUSTED"}}]'
    with pytest.raises(unievent.HTTPStatusError) as caught:
        list(unievent.stream(Response(body, 429, "application/json")))
    assert caught.value.error is not None
    assert (caught.value.error.type, caught.value.error.code) == ("RESOURCE_EXHAUSTED", 429)


def test_an_error_body_that_is_no_json_is_kept_as_text_capped() -> None:
    body = b"<html>" + b"x" * 100_000
    with pytest.raises(unievent.HTTPStatusError) as caught:
        list(unievent.stream(Response(body, 502, "text/html")))
    assert caught.value.error is None
    assert len(caught.value.body) == unievent.HTTPStatusError.BODY_LIMIT


# --- text, the final message, the snapshot --------------------------------------------


def test_text_stream_yields_only_the_text() -> None:
    assert list(unievent.stream(pieces(CALL), "openai_chat").text_stream) == ["Hi"]


def test_final_message_reads_to_the_end() -> None:
    message = unievent.stream(pieces(CALL), "openai_chat").final_message()
    assert message.items[1] == ToolCallDone("f", json.loads(ARGUMENTS), "c1")


def test_final_message_of_a_cut_stream_raises_its_end() -> None:
    with pytest.raises(unievent.IncompleteStreamError):
        unievent.stream(pieces(CALL[:-200]), "openai_chat").final_message()


def test_a_snapshot_mid_call_holds_the_arguments_parsed_so_far() -> None:
    s = unievent.stream(pieces(CALL, 64), "openai_chat")
    snapshots = []
    for event in s:
        if isinstance(event, DeltaEvent) and event.item.type == "tool_call.delta":
            snapshots.append(s.snapshot())
    middle = snapshots[len(snapshots) // 2].items
    assert middle[0] == TextDone("Hi")
    call = middle[1]
    assert isinstance(call, ToolCallDone) and (call.name, call.tool_call_id) == ("f", "c1")
    assert call.arguments["city"] == "Paris" and call.arguments["note"].startswith("xxx")
    assert s.snapshot().items[1] == ToolCallDone("f", json.loads(ARGUMENTS), "c1")  # the end: exact


def test_a_snapshot_after_every_delta_parses_linearly(monkeypatch: pytest.MonkeyPatch) -> None:
    parsed: list[int] = []
    real = jiter.from_json

    def counting(data: bytes, **options: Any) -> Any:
        parsed.append(len(data))
        return real(data, **options)

    monkeypatch.setattr(jiter, "from_json", counting)
    s = unievent.stream([CALL], "openai_chat")
    for event in s:
        if isinstance(event, DeltaEvent) and event.item.type == "tool_call.delta":
            s.snapshot()
    # one character per delta: re-parsing every prefix would be len**2 / 2 (8 million)
    assert len(ARGUMENTS) > 4000
    assert sum(parsed) < 10 * len(ARGUMENTS)


def test_the_snapshot_after_the_end_is_the_message() -> None:
    s = unievent.stream([TEXT], "openai_chat")
    list(s)
    assert s.snapshot() is s.message


# --- async ------------------------------------------------------------------------------


class AsyncResponse(Response):
    async def aiter_bytes(self) -> AsyncIterator[bytes]:
        for piece in pieces(self.body):
            yield piece

    async def aclose(self) -> None:
        self.closed = True


def test_astream_keeps_the_outcome_and_text() -> None:
    async def main() -> tuple[list[str], Any]:
        async with unievent.astream(AsyncResponse(TEXT)) as s:
            return [t async for t in s.text_stream], s.outcome

    text, outcome = asyncio.run(main())
    assert text == ["Hel", "lo"] and outcome.end == "complete"


def test_astream_status_error_and_close() -> None:
    async def status() -> int:
        try:
            async with unievent.astream(AsyncResponse(b'{"error": {"message": "no"}}', 403)):
                pass
        except unievent.HTTPStatusError as error:
            return error.status
        return 0

    assert asyncio.run(status()) == 403

    async def cancel() -> tuple[str, bool]:
        response = AsyncResponse(TEXT)
        s = unievent.astream(response)
        await anext(s)
        await s.close()
        assert s.outcome is not None
        return s.outcome.end, response.closed

    assert asyncio.run(cancel()) == ("cancelled", True)


def test_astream_final_message_and_transport_error() -> None:
    async def chunks() -> AsyncIterator[bytes]:
        yield TEXT[:-40]
        raise TimeoutError("read timed out")

    async def main() -> Any:
        with pytest.raises(unievent.TransportError) as caught:
            await unievent.astream(chunks(), "openai_chat").final_message()
        return caught.value

    error = asyncio.run(main())
    assert isinstance(error.__cause__, TimeoutError)
    assert error.outcome.message.items == (TextDone("Hello"),)
