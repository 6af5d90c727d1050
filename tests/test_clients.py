"""`unievent.stream()` / `astream()` driven by real HTTP clients against a local server.

Each client (httpx sync and async, requests, aiohttp, urllib, http.client, the OpenAI
and Anthropic SDKs, sync and async) opens a response from tests/replay_server.py,
which writes every body in irregular chunked pieces; the tests check what a caller
sees on each end: complete, truncated by a dropped connection, failed in the stream,
cancelled with close(), a status that is not 2xx, and bodies that are no event stream.

A client is an adapter: a context manager that opens the response for a URL and yields
it.  A reader is what the caller does with the Stream (iterate, text_stream,
final_message, snapshot, close), in a sync and an async form; `read()` runs one reader
over one client and returns what it collected, the error it raised and the Stream.
Clients that are not installed skip.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from contextlib import AbstractAsyncContextManager, AbstractContextManager
from dataclasses import dataclass, field
from typing import Any

import pytest

import unievent
from tests import replay_server
from tests.replay_server import (
    CHAT_BODY,
    CHAT_DROPPED,
    CHAT_ERROR_BODY,
    CORPUS,
    HTML_PAGE,
    JSON_ERROR_BODY,
    MESSAGES_BODY,
    MESSAGES_DROPPED,
    MESSAGES_ERROR_BODY,
    STATUS_400_STREAM_OPTIONS_BODY,
    STATUS_401_BODY,
    pieces,
)
from unievent import (
    DeltaEvent,
    Message,
    StopEvent,
    TextDelta,
    TextDone,
    ToolCallDelta,
    ToolCallDone,
    Usage,
)

TIMEOUT = 5.0  # seconds: every client gets it, so a test never hangs


def clock() -> int:
    """One arrival time for every event, so streams and iter_events compare equal."""
    return 1700000000000


@pytest.fixture(scope="module")
def server() -> Iterator[str]:
    with replay_server.serve() as base:
        yield base


# --- the two APIs the server replays ----------------------------------------------------


@dataclass(frozen=True)
class Api:
    name: str
    path: str
    protocol: str
    marker: str  # the path fragment auto detection names
    model: str
    call_id: str
    usage: Usage
    body: bytes
    dropped: bytes
    error_body: bytes
    error_message: str
    error_type: str


CHAT = Api(
    "chat",
    "/v1/chat/completions",
    "openai_chat",
    "/chat/completions",
    replay_server.CHAT_MODEL,
    "call_weather_1",
    Usage(prompt_tokens=21, response_tokens=17),
    CHAT_BODY,
    CHAT_DROPPED,
    CHAT_ERROR_BODY,
    "overloaded",
    "server_error",
)
MESSAGES = Api(
    "messages",
    "/v1/messages",
    "anthropic",
    "/messages",
    replay_server.MESSAGES_MODEL,
    "toolu_weather_1",
    Usage(prompt_tokens=25, response_tokens=30),
    MESSAGES_BODY,
    MESSAGES_DROPPED,
    MESSAGES_ERROR_BODY,
    "Overloaded",
    "overloaded_error",
)


def complete_items(api: Api) -> tuple[TextDone, ToolCallDone]:
    return TextDone("Hello, world"), ToolCallDone("get_weather", {"city": "Paris"}, api.call_id)


# --- clients: open a response for a URL and yield it ------------------------------------

REQUEST = {"model": "test-model", "stream": True, "messages": [{"role": "user", "content": "Weather in Paris?"}]}
MESSAGES_PARAM: list[Any] = [{"role": "user", "content": "Weather in Paris?"}]


@contextlib.contextmanager
def open_httpx(url: str) -> Iterator[Any]:
    httpx = pytest.importorskip("httpx")
    with httpx.Client(timeout=TIMEOUT) as client, client.stream("POST", url, json=REQUEST) as response:
        yield response


@contextlib.asynccontextmanager
async def open_httpx_async(url: str) -> AsyncIterator[Any]:
    httpx = pytest.importorskip("httpx")
    async with httpx.AsyncClient(timeout=TIMEOUT) as client, client.stream("POST", url, json=REQUEST) as response:
        yield response


@contextlib.contextmanager
def open_requests(url: str) -> Iterator[Any]:
    requests = pytest.importorskip("requests")
    with requests.Session() as session, session.post(url, json=REQUEST, stream=True, timeout=TIMEOUT) as response:
        yield response


@contextlib.asynccontextmanager
async def open_aiohttp(url: str) -> AsyncIterator[Any]:
    aiohttp = pytest.importorskip("aiohttp")
    timeout = aiohttp.ClientTimeout(total=2 * TIMEOUT, sock_read=TIMEOUT)
    async with aiohttp.ClientSession(timeout=timeout) as session, session.post(url, json=REQUEST) as response:
        yield response


@contextlib.contextmanager
def open_urllib(url: str) -> Iterator[Any]:
    import urllib.error
    import urllib.request

    request = urllib.request.Request(
        url, data=json.dumps(REQUEST).encode(), headers={"Content-Type": "application/json"}
    )
    try:
        response = urllib.request.urlopen(request, timeout=TIMEOUT)
    except urllib.error.HTTPError as error:  # urlopen raises a status that is not 2xx: the error is the response
        response = error
    with response:
        yield response


@contextlib.contextmanager
def open_http_client(url: str) -> Iterator[Any]:
    import http.client
    from urllib.parse import urlsplit

    parts = urlsplit(url)
    connection = http.client.HTTPConnection(parts.hostname or "", parts.port, timeout=TIMEOUT)
    try:
        target = parts.path + (f"?{parts.query}" if parts.query else "")
        connection.request("POST", target, json.dumps(REQUEST), {"Content-Type": "application/json"})
        response = connection.getresponse()
        # an http.client response does not know its URL (test_a_bare_http_client_response_is_streamed
        # streams one that way): give it the one urllib would, so the URL names the protocol
        response.url = url
        yield response
    finally:
        connection.close()


def sdk_base(url: str, suffix: str) -> str:
    """The base_url that makes an SDK request `url` (it appends its own `suffix`)."""
    assert url.endswith(suffix), f"{url} is not a {suffix} URL"
    return url.removesuffix(suffix)


@contextlib.contextmanager
def open_openai(url: str) -> Iterator[Any]:
    openai = pytest.importorskip("openai")
    base = sdk_base(url, "/chat/completions")
    with (
        openai.OpenAI(base_url=base, api_key="x", max_retries=0, timeout=TIMEOUT) as client,
        client.chat.completions.with_streaming_response.create(
            model="gpt-4o-mini", messages=MESSAGES_PARAM, stream=True
        ) as response,
    ):
        yield response


@contextlib.asynccontextmanager
async def open_openai_async(url: str) -> AsyncIterator[Any]:
    openai = pytest.importorskip("openai")
    base = sdk_base(url, "/chat/completions")
    async with (
        openai.AsyncOpenAI(base_url=base, api_key="x", max_retries=0, timeout=TIMEOUT) as client,
        client.chat.completions.with_streaming_response.create(
            model="gpt-4o-mini", messages=MESSAGES_PARAM, stream=True
        ) as response,
    ):
        yield response


@contextlib.contextmanager
def open_anthropic(url: str) -> Iterator[Any]:
    anthropic = pytest.importorskip("anthropic")
    base = sdk_base(url, "/v1/messages")
    with (
        anthropic.Anthropic(base_url=base, api_key="x", max_retries=0, timeout=TIMEOUT) as client,
        client.messages.with_streaming_response.create(
            model="claude-sonnet-4-5", max_tokens=64, messages=MESSAGES_PARAM, stream=True
        ) as response,
    ):
        yield response


@contextlib.asynccontextmanager
async def open_anthropic_async(url: str) -> AsyncIterator[Any]:
    anthropic = pytest.importorskip("anthropic")
    base = sdk_base(url, "/v1/messages")
    async with (
        anthropic.AsyncAnthropic(base_url=base, api_key="x", max_retries=0, timeout=TIMEOUT) as client,
        client.messages.with_streaming_response.create(
            model="claude-sonnet-4-5", max_tokens=64, messages=MESSAGES_PARAM, stream=True
        ) as response,
    ):
        yield response


def is_closed_httpx(response: Any) -> bool:
    return bool(response.is_closed)


def is_closed_sdk(response: Any) -> bool:
    return bool(response.http_response.is_closed)


def is_closed_requests(response: Any) -> bool:
    return bool(response.raw.closed)


def is_closed_aiohttp(response: Any) -> bool:
    return bool(response.closed)


def is_closed_http_client(response: Any) -> bool:
    return bool(response.isclosed())


def is_closed_urllib(response: Any) -> bool:
    import urllib.error

    if isinstance(response, urllib.error.HTTPError):  # it wraps the http.client response
        response = response.fp
    return bool(response.isclosed())


@dataclass(frozen=True)
class Client:
    """An HTTP client as the tests drive it."""

    name: str
    open: Callable[[str], AbstractContextManager[Any]] | None
    aopen: Callable[[str], AbstractAsyncContextManager[Any]] | None
    is_closed: Callable[[Any], bool]
    #: the class name of the client's exception for a body cut short
    cause: str
    #: the API an SDK speaks (None: any URL)
    api: Api | None = None

    def __str__(self) -> str:
        return self.name

    @property
    def sees_status(self) -> bool:
        """A response that is not 2xx reaches unievent (an SDK raises its own error)."""
        return self.api is None

    def url(self, base: str, route: str) -> str:
        """The URL of a route that names no API (/html): an SDK appends its API's path."""
        return base + route + (self.api.path if self.api is not None else "")


HTTPX = Client("httpx", open_httpx, None, is_closed_httpx, "RemoteProtocolError")
HTTPX_ASYNC = Client("httpx_async", None, open_httpx_async, is_closed_httpx, "RemoteProtocolError")
REQUESTS = Client("requests", open_requests, None, is_closed_requests, "ChunkedEncodingError")
AIOHTTP = Client("aiohttp", None, open_aiohttp, is_closed_aiohttp, "ClientPayloadError")
URLLIB = Client("urllib", open_urllib, None, is_closed_urllib, "IncompleteRead")
HTTP_CLIENT = Client("http_client", open_http_client, None, is_closed_http_client, "IncompleteRead")
OPENAI = Client("openai", open_openai, None, is_closed_sdk, "RemoteProtocolError", CHAT)
OPENAI_ASYNC = Client("openai_async", None, open_openai_async, is_closed_sdk, "RemoteProtocolError", CHAT)
ANTHROPIC = Client("anthropic", open_anthropic, None, is_closed_sdk, "RemoteProtocolError", MESSAGES)
ANTHROPIC_ASYNC = Client("anthropic_async", None, open_anthropic_async, is_closed_sdk, "RemoteProtocolError", MESSAGES)

CLIENTS = [HTTPX, HTTPX_ASYNC, REQUESTS, AIOHTTP, URLLIB, HTTP_CLIENT, OPENAI, OPENAI_ASYNC, ANTHROPIC, ANTHROPIC_ASYNC]
#: the clients that hand a non-2xx response over (the SDKs raise their own status errors)
STATUS_CLIENTS = [pytest.param(client, id=client.name) for client in CLIENTS if client.sees_status]
ANY_CLIENT = [pytest.param(client, id=client.name) for client in CLIENTS]
#: every client with every API it speaks
CLIENT_APIS = [
    pytest.param(client, api, id=f"{client.name}-{api.name}")
    for client in CLIENTS
    for api in (CHAT, MESSAGES)
    if client.api in (None, api)
]


# --- readers: what the caller does with the stream -----------------------------------------


@dataclass(frozen=True)
class Reader:
    name: str
    sync: Callable[[unievent.Stream[Any], list[Any]], None]
    async_: Callable[[unievent.AsyncStream[Any], list[Any]], Awaitable[None]]

    def __str__(self) -> str:
        return self.name


def events_sync(stream: unievent.Stream[Any], got: list[Any]) -> None:
    for event in stream:
        got.append(event)


async def events_async(stream: unievent.AsyncStream[Any], got: list[Any]) -> None:
    async for event in stream:
        got.append(event)


def entered_sync(stream: unievent.Stream[Any], got: list[Any]) -> None:
    with stream:
        events_sync(stream, got)


async def entered_async(stream: unievent.AsyncStream[Any], got: list[Any]) -> None:
    async with stream:
        await events_async(stream, got)


def texts_sync(stream: unievent.Stream[Any], got: list[Any]) -> None:
    for text in stream.text_stream:
        got.append(text)


async def texts_async(stream: unievent.AsyncStream[Any], got: list[Any]) -> None:
    async for text in stream.text_stream:
        got.append(text)


def final_sync(stream: unievent.Stream[Any], got: list[Any]) -> None:
    got.append(stream.final_message())


async def final_async(stream: unievent.AsyncStream[Any], got: list[Any]) -> None:
    got.append(await stream.final_message())


def _snapshot_after(event: Any, stream: unievent.Stream[Any] | unievent.AsyncStream[Any], got: list[Any]) -> None:
    """After each tool-call fragment: the message so far."""
    if type(event) is DeltaEvent and type(event.item) is ToolCallDelta:
        got.append(stream.snapshot())


def snapshots_sync(stream: unievent.Stream[Any], got: list[Any]) -> None:
    for event in stream:
        _snapshot_after(event, stream, got)


async def snapshots_async(stream: unievent.AsyncStream[Any], got: list[Any]) -> None:
    async for event in stream:
        _snapshot_after(event, stream, got)


def close_after_two_sync(stream: unievent.Stream[Any], got: list[Any]) -> None:
    """Take two events, close, and go on iterating (nothing more comes)."""
    for event in stream:
        got.append(event)
        if len(got) == 2:
            stream.close()


async def close_after_two_async(stream: unievent.AsyncStream[Any], got: list[Any]) -> None:
    async for event in stream:
        got.append(event)
        if len(got) == 2:
            await stream.close()


EVENTS = Reader("events", events_sync, events_async)
ENTERED = Reader("entered", entered_sync, entered_async)  # `with stream:` first
TEXTS = Reader("text_stream", texts_sync, texts_async)
FINAL = Reader("final_message", final_sync, final_async)
SNAPSHOTS = Reader("snapshots", snapshots_sync, snapshots_async)
CLOSE_AFTER_TWO = Reader("close_after_two", close_after_two_sync, close_after_two_async)


@dataclass
class Read:
    """What one reader collected from one response, and how it ended."""

    stream: Any = None  # the unievent.Stream / AsyncStream
    got: list[Any] = field(default_factory=list)
    error: unievent.UniEventError | None = None
    closed: bool = False  # the response was closed when the reader returned


def read(client: Client, url: str, reader: Reader) -> Read:
    """Open `url` with `client`, run `reader` over unievent's stream of the response."""
    result = Read()
    if client.open is not None:
        with client.open(url) as response:
            result.stream = unievent.stream(response, clock=clock)
            try:
                reader.sync(result.stream, result.got)
            except unievent.UniEventError as error:
                result.error = error
            result.closed = client.is_closed(response)
        return result

    async def main() -> None:
        assert client.aopen is not None
        async with client.aopen(url) as response:
            result.stream = unievent.astream(response, clock=clock)
            try:
                await reader.async_(result.stream, result.got)
            except unievent.UniEventError as error:
                result.error = error
            result.closed = client.is_closed(response)

    asyncio.run(asyncio.wait_for(main(), 2 * TIMEOUT))
    return result


def decoded(body: bytes, protocol: Any) -> tuple[list[Any], unievent.UniEventError | None]:
    """The events (and the end's error) of iter_events over `body` in the server's pieces."""
    events: list[Any] = []
    try:
        for event in unievent.iter_events(pieces(body), protocol, clock=clock):
            events.append(event)
    except unievent.UniEventError as error:
        return events, error
    return events, None


# --- a complete stream ------------------------------------------------------------------------


def check_complete(result: Read, api: Api) -> None:
    assert result.error is None
    outcome = result.stream.outcome
    assert outcome.end == "complete"
    assert outcome.message.items == complete_items(api)
    assert outcome.finish_reason == "tool_call"
    assert outcome.usage == api.usage
    assert result.stream.message == outcome.message
    assert result.stream.model == api.model
    assert outcome.protocol == api.protocol
    assert outcome.detected_by == f"the URL path has {api.marker}"
    assert result.got[-1] == StopEvent(api.usage, "tool_call", clock())


@pytest.mark.parametrize(("client", "api"), CLIENT_APIS)
def test_a_complete_stream_ends_complete_with_the_text_the_tool_call_and_the_model(
    server: str, client: Client, api: Api
) -> None:
    check_complete(read(client, server + api.path, EVENTS), api)


@pytest.mark.parametrize(("client", "api"), CLIENT_APIS)
def test_the_events_equal_those_of_iter_events_on_the_same_bytes(server: str, client: Client, api: Api) -> None:
    result = read(client, server + api.path, EVENTS)
    expected, error = decoded(api.body, api.protocol)
    assert error is None
    assert len(result.got) == 10
    assert result.got == expected


@pytest.mark.parametrize(("client", "api"), CLIENT_APIS)
def test_text_stream_yields_only_the_text_pieces(server: str, client: Client, api: Api) -> None:
    result = read(client, server + api.path, TEXTS)
    assert result.error is None
    assert result.got == ["Hello", ",", " world"]
    assert result.stream.outcome.end == "complete"


@pytest.mark.parametrize(("client", "api"), CLIENT_APIS)
def test_final_message_reads_to_the_end_and_returns_the_message(server: str, client: Client, api: Api) -> None:
    result = read(client, server + api.path, FINAL)
    assert result.error is None
    assert result.got == [Message("assistant", complete_items(api), api.usage, "tool_call", clock())]
    assert result.stream.outcome.end == "complete"


@pytest.mark.parametrize(("client", "api"), CLIENT_APIS)
def test_a_snapshot_mid_tool_call_holds_the_arguments_parsed_so_far(server: str, client: Client, api: Api) -> None:
    result = read(client, server + api.path, SNAPSHOTS)
    assert result.error is None
    text = TextDone("Hello, world")
    # after the fragments "", '{"ci', 'ty": "Pa' and 'ris"}'
    assert [snapshot.items for snapshot in result.got] == [
        (text, ToolCallDone("get_weather", {}, api.call_id)),
        (text, ToolCallDone("get_weather", {}, api.call_id)),
        (text, ToolCallDone("get_weather", {"city": "Pa"}, api.call_id)),
        (text, ToolCallDone("get_weather", {"city": "Paris"}, api.call_id)),
    ]
    assert [snapshot.finish_reason for snapshot in result.got] == [None] * 4
    assert result.stream.snapshot() == result.stream.outcome.message


# --- ends that are not complete -----------------------------------------------------------------


@pytest.mark.parametrize(("client", "api"), CLIENT_APIS)
def test_a_dropped_connection_raises_transport_error_keeping_the_text_that_arrived(
    server: str, client: Client, api: Api
) -> None:
    result = read(client, server + "/drop" + api.path, EVENTS)
    error = result.error
    assert type(error) is unievent.TransportError
    assert isinstance(error, unievent.IncompleteStreamError)
    assert type(error.__cause__).__name__ == client.cause
    assert error.outcome.end == "truncated"
    assert error.outcome.message.items == (TextDone("Hello,"),)
    assert result.stream.outcome is error.outcome
    assert result.stream.message == error.outcome.message
    assert result.stream.model == api.model
    expected, end_error = decoded(api.dropped, api.protocol)
    assert type(end_error) is unievent.IncompleteStreamError
    assert [event.item for event in result.got] == [TextDelta("Hello"), TextDelta(","), TextDone("Hello,")]
    assert result.got == expected


@pytest.mark.parametrize(("client", "api"), CLIENT_APIS)
def test_text_stream_raises_transport_error_after_the_text_that_arrived(server: str, client: Client, api: Api) -> None:
    result = read(client, server + "/drop" + api.path, TEXTS)
    assert type(result.error) is unievent.TransportError
    assert result.got == ["Hello", ","]


@pytest.mark.parametrize(("client", "api"), CLIENT_APIS)
def test_final_message_raises_transport_error_for_a_dropped_connection(server: str, client: Client, api: Api) -> None:
    result = read(client, server + "/drop" + api.path, FINAL)
    assert type(result.error) is unievent.TransportError
    assert result.got == []
    assert result.error.outcome.message.items == (TextDone("Hello,"),)


@pytest.mark.parametrize(("client", "api"), CLIENT_APIS)
def test_an_error_inside_the_stream_raises_provider_stream_error(server: str, client: Client, api: Api) -> None:
    result = read(client, server + "/error" + api.path, EVENTS)
    error = result.error
    assert type(error) is unievent.ProviderStreamError
    assert error.provider_message == api.error_message
    assert error.error_type == api.error_type
    assert error.outcome.end == "failed"
    assert error.outcome.message.items == (TextDone("Hello"),)
    assert result.stream.outcome is error.outcome
    assert [event.item for event in result.got] == [TextDelta("Hello"), TextDone("Hello")]
    assert result.got == decoded(api.error_body, api.protocol)[0]


@pytest.mark.parametrize(("client", "api"), CLIENT_APIS)
def test_final_message_raises_the_error_inside_the_stream(server: str, client: Client, api: Api) -> None:
    result = read(client, server + "/error" + api.path, FINAL)
    assert type(result.error) is unievent.ProviderStreamError
    assert result.error.provider_message == api.error_message
    assert result.got == []


@pytest.mark.parametrize(("client", "api"), CLIENT_APIS)
def test_close_mid_stream_ends_cancelled_and_closes_the_response(server: str, client: Client, api: Api) -> None:
    result = read(client, server + "/slow" + api.path, CLOSE_AFTER_TWO)
    assert result.error is None
    assert [event.item for event in result.got] == [TextDelta("Hello"), TextDelta(",")]
    assert result.stream.outcome.end == "cancelled"
    assert result.stream.outcome.message.items == (TextDone("Hello,"),)
    assert result.closed is True


# --- statuses that are not 2xx, bodies that are no event stream --------------------------------


@pytest.mark.parametrize("reader", [ENTERED, EVENTS], ids=str)
@pytest.mark.parametrize("client", STATUS_CLIENTS)
def test_a_401_raises_http_status_error_with_the_provider_error(server: str, client: Client, reader: Reader) -> None:
    result = read(client, server + "/401", reader)
    error = result.error
    assert type(error) is unievent.HTTPStatusError
    assert error.status == 401
    assert error.error is not None
    assert (error.error.message, error.error.type, error.error.code) == (
        "Incorrect API key provided",
        "invalid_request_error",
        "invalid_api_key",
    )
    assert error.body == STATUS_401_BODY.decode()
    assert error.content_type == "application/json"
    assert error.stream_options_rejected is False
    assert str(error) == "HTTP 401: Incorrect API key provided"
    assert result.got == []
    assert result.closed is True


@pytest.mark.parametrize("client", STATUS_CLIENTS)
def test_a_400_rejecting_stream_options_says_so(server: str, client: Client) -> None:
    result = read(client, server + "/400-stream-options", EVENTS)
    error = result.error
    assert type(error) is unievent.HTTPStatusError
    assert error.status == 400
    assert error.stream_options_rejected is True
    assert error.error is not None
    assert error.error.message == "Unrecognized request argument supplied: stream_options"
    assert error.body == STATUS_400_STREAM_OPTIONS_BODY.decode()


@pytest.mark.parametrize("client", ANY_CLIENT)
def test_an_html_page_with_status_200_raises_not_event_stream_error(server: str, client: Client) -> None:
    result = read(client, client.url(server, "/html"), EVENTS)
    error = result.error
    assert type(error) is unievent.NotEventStreamError
    assert error.looks_like_html is True
    assert error.outcome.end == "not_event_stream"
    assert error.outcome.body == HTML_PAGE.decode().removesuffix("\n")  # kept without its last newline
    assert result.got == []


@pytest.mark.parametrize("client", ANY_CLIENT)
def test_a_json_error_body_with_status_200_raises_provider_stream_error(server: str, client: Client) -> None:
    result = read(client, client.url(server, "/json-error"), EVENTS)
    error = result.error
    assert type(error) is unievent.ProviderStreamError
    assert error.provider_message == "quota exceeded"
    assert error.error_type == "insufficient_quota"
    assert error.outcome.end == "failed"
    assert error.outcome.body == JSON_ERROR_BODY.decode()
    assert result.got == []


# --- a bare http.client response ---------------------------------------------------------------


def test_a_bare_http_client_response_is_streamed(server: str) -> None:
    import http.client
    from urllib.parse import urlsplit

    connection = http.client.HTTPConnection("127.0.0.1", urlsplit(server).port, timeout=TIMEOUT)
    try:
        connection.request("POST", CHAT.path, json.dumps(REQUEST), {"Content-Type": "application/json"})
        stream = unievent.stream(connection.getresponse(), clock=clock)
        events = list(stream)
    finally:
        connection.close()
    assert stream.outcome is not None
    assert stream.outcome.end == "complete"
    assert events == decoded(CHAT_BODY, "openai_chat")[0]


# --- recorded streams ---------------------------------------------------------------------------

RECORDINGS = [
    ("openai_chat/pydantic-ai__openai_gpt4o_text_include_usage.sse", CHAT),
    ("anthropic/pydantic-ai__anthropic_tool_search_then_tool_use.sse", MESSAGES),
]


def recording(name: str) -> dict[str, Any]:
    if not (CORPUS / "manifest.json").is_file():
        pytest.skip(f"no recorded streams at {CORPUS}")
    for entry in json.loads((CORPUS / "manifest.json").read_text()):
        if entry["file"] == name:
            return dict(entry)
    pytest.skip(f"{name} is not in the corpus")


@pytest.mark.parametrize(("name", "api"), [pytest.param(name, api, id=api.name) for name, api in RECORDINGS])
@pytest.mark.parametrize("client", STATUS_CLIENTS)
def test_a_recorded_stream_replayed_through_the_client_gives_its_expected_text_and_events(
    server: str, client: Client, name: str, api: Api
) -> None:
    entry = recording(name)
    result = read(client, f"{server}/corpus{api.path}?file={name}", EVENTS)
    assert result.error is None
    outcome = result.stream.outcome
    assert outcome.end == "complete"
    assert outcome.protocol == api.protocol
    assert "".join(item.text for item in outcome.message.items if type(item) is TextDone) == entry["expected"]["text"]
    calls = [(item.name, item.arguments) for item in outcome.message.items if type(item) is ToolCallDone]
    expected_calls = entry["expected"].get("tool_calls", [])
    assert calls == [(call["name"], json.loads(call["arguments"] or "{}")) for call in expected_calls]
    assert result.got == decoded((CORPUS / name).read_bytes(), api.protocol)[0]
