"""A user's script of unievent's public names, checked by `mypy --strict` (with the
suite's configuration) and run by tests/test_api.py.  `assert_type` pins what a type
checker infers for a user: SideEvents appear only with side_events=True."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator
from typing import assert_type

import unievent
from unievent import (
    AnyEvent,
    DeltaEvent,
    Event,
    Message,
    Outcome,
    SideEvent,
    StopEvent,
    StreamDecoder,
    TextDelta,
    ToolCallDone,
)

BODY = [
    b'data: {"choices":[{"delta":{"content":"Hi"}}],"model":"m"}\n\n',
    b'data: {"choices":[{"delta":{"tool_calls":[{"index":0,"id":"c1","function":{"name":"f","arguments":"{}"}}]},'
    b'"finish_reason":"tool_calls"}]}\n\ndata: [DONE]\n\n',
]


def plain() -> None:
    decoder = StreamDecoder("openai_chat", stream_id="s", clock=lambda: 0, strict_arguments=True)
    assert_type(decoder, StreamDecoder[Event])
    events = decoder.push(BODY[0]) + decoder.push(BODY[1])
    assert_type(events, list[Event])
    last, outcome = decoder.finish()
    assert_type(last, list[Event])
    assert_type(outcome, Outcome)
    outcome.raise_for_end()
    assert outcome.end == "complete" and outcome.model == "m"
    assert_type(outcome.response_id, str | None)
    for event in events + last:
        if isinstance(event, DeltaEvent):
            assert event.item.type
        else:
            assert_type(event, StopEvent)


def with_side_events() -> None:
    decoder = StreamDecoder("anthropic", side_events=True)
    assert_type(decoder, StreamDecoder[AnyEvent])
    events = decoder.push(b"")
    assert_type(events, list[AnyEvent])
    for event in events:
        if isinstance(event, SideEvent):
            assert event.kind


def iterators() -> None:
    chunks: Iterator[Event] = unievent.iter_events(BODY, "auto", url="https://api.openai.com/v1/chat/completions")
    assert [e for e in chunks if isinstance(e, StopEvent)]
    sides = unievent.iter_events(BODY, "openai_chat", side_events=True)
    assert_type(sides, Iterator[AnyEvent])

    async def pieces() -> AsyncIterator[bytes]:
        for piece in BODY:
            yield piece

    async def consume() -> list[Event]:
        return [e async for e in unievent.aiter_events(pieces(), "openai_chat")]

    assert asyncio.run(consume())


def streams() -> None:
    with unievent.stream(BODY, "openai_chat") as response:
        assert_type(response, unievent.Stream[Event])
        text = "".join(response.text_stream)
        assert text == "Hi"
        assert response.outcome is not None and response.model == "m"
    message = unievent.stream(BODY).final_message()
    assert_type(message, Message)
    assert [i for i in message.items if isinstance(i, ToolCallDone)]
    snapshot = unievent.stream(BODY, "openai_chat").snapshot()
    assert_type(snapshot, Message)

    async def consume() -> str:
        async with unievent.astream(BODY, "openai_chat") as response:
            assert_type(response, unievent.AsyncStream[Event])
            return "".join([t async for t in response.text_stream])

    assert asyncio.run(consume()) == "Hi"


def errors() -> None:
    try:
        list(unievent.iter_events([BODY[0]], "openai_chat"))
    except unievent.IncompleteStreamError as error:
        assert_type(error.outcome, Outcome)
        assert error.outcome.end == "truncated"
    failures: tuple[type[unievent.UniEventError], ...] = (
        unievent.HTTPStatusError,
        unievent.TransportError,
        unievent.ProviderStreamError,
        unievent.NotEventStreamError,
        unievent.ToolCallArgumentParseError,
        unievent.FrameTooLargeError,
        unievent.DecoderUsageError,
        unievent.DecoderStateError,
        unievent.GrammarError,
        unievent.EventJSONError,
        unievent.StreamEndError,
    )
    assert all(issubclass(kind, unievent.UniEventError) for kind in failures)


def helpers() -> None:
    events = list(unievent.iter_events(BODY, "openai_chat", stream_id="s", clock=lambda: 0))
    summary = unievent.validate(events)
    assert summary is not None
    round_trip = [unievent.from_json(unievent.to_json(e)) for e in events]
    assert round_trip == events
    assert isinstance(events[0], DeltaEvent) and isinstance(events[0].item, TextDelta)
    assert unievent.looks_like_html("<html>")
    assert unievent.is_stream_options_rejected(400, "Unrecognized request argument supplied: stream_options")
    assert unievent.stop_reason_from_openai("stop") == "end_turn"
    assert isinstance(unievent.__version__, str) and isinstance(unievent.COMPILED, bool)
    assert "openai_chat" in unievent.PROTOCOLS


plain()
with_side_events()
iterators()
streams()
errors()
helpers()
