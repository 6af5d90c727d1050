# What `unievent.stream()` / `astream()` read from a response: the HTTP status, the
# content type and the URL before the first byte, then the raw body, as it arrives, and
# how to close it.
#
# No client is a dependency: each is recognized by what it has.  httpx (sync and async),
# requests, aiohttp, http.client / urllib, the OpenAI and Anthropic SDKs' raw streaming
# responses (they wrap an httpx response), and any iterable of bytes.  Each is read the
# way that gives bytes as soon as they arrive: httpx's iter_bytes(), requests'
# iter_content(None) (its default is one byte at a time), aiohttp's iter_any(),
# http.client's read1().
from __future__ import annotations

import inspect
from collections.abc import AsyncIterable, AsyncIterator, Awaitable, Callable, Iterable, Iterator
from typing import Any

import attrs

from unievent._errors import DecoderUsageError

__all__ = ["READ_SIZE", "AsyncSource", "Source", "async_source_of", "source_of"]

#: the most bytes asked of a client that reads a size (http.client, urllib)
READ_SIZE = 64 * 1024


@attrs.define
class Source:
    """A response's metadata and its body bytes (sync)."""

    status: int | None
    content_type: str | None
    url: str | None
    chunks: Iterator[bytes]
    close: Callable[[], None]


@attrs.define
class AsyncSource:
    """A response's metadata and its body bytes (async)."""

    status: int | None
    content_type: str | None
    url: str | None
    chunks: AsyncIterator[bytes]
    close: Callable[[], Awaitable[None]]


def _unwrap(response: Any) -> Any:
    """The HTTP response inside an SDK's raw response or stream object."""
    inner = getattr(response, "http_response", None)  # OpenAI / Anthropic APIResponse
    if inner is not None:
        return inner
    inner = getattr(response, "response", None)  # their Stream / AsyncStream
    if inner is not None and (hasattr(inner, "iter_bytes") or hasattr(inner, "aiter_bytes")):
        return inner
    return response


def _header(headers: Any, name: str) -> str | None:
    if headers is None:
        return None
    try:
        value = headers.get(name)
    except (AttributeError, TypeError):
        return None
    return value if isinstance(value, str) else None


def _url(response: Any) -> str | None:
    try:
        url = response.url
    except (AttributeError, RuntimeError):  # httpx: a response without its request
        url = None
    if url is None and callable(getattr(response, "geturl", None)):
        try:
            url = response.geturl()
        except AttributeError:  # http.client: only urllib sets the URL it reports
            url = None
    return None if url is None else str(url)


def _status(response: Any) -> int | None:
    for name in ("status_code", "status"):
        value = getattr(response, name, None)
        if isinstance(value, int):
            return value
    return None


def _noop() -> None:
    pass


def _closer(response: Any) -> Callable[[], None]:
    close = getattr(response, "close", None)
    return close if callable(close) else _noop


def _read1_chunks(response: Any) -> Iterator[bytes]:
    read = getattr(response, "read1", None) or response.read
    while True:
        data: bytes = read(READ_SIZE)
        if not data:
            return
        yield data


def source_of(response: Any) -> Source:
    """The Source of a response object (or of an iterable of bytes)."""
    response = _unwrap(response)
    if hasattr(response, "iter_bytes") and hasattr(response, "status_code"):  # httpx
        chunks: Iterator[bytes] = iter(response.iter_bytes())
    elif hasattr(response, "iter_content") and hasattr(response, "status_code"):  # requests
        chunks = iter(response.iter_content(chunk_size=None))
    elif hasattr(response, "read") and hasattr(response, "getheader"):  # http.client, urllib
        chunks = _read1_chunks(response)
    elif isinstance(response, Iterable) and not isinstance(response, str | bytes | bytearray | memoryview):
        return Source(None, None, None, iter(response), _closer(response))
    else:
        raise DecoderUsageError(
            f"cannot read a {type(response).__name__}: give a response of httpx, requests, aiohttp, "
            "urllib or an SDK's with_streaming_response, or an iterable of bytes"
        )
    headers = getattr(response, "headers", None)
    return Source(_status(response), _header(headers, "content-type"), _url(response), chunks, _closer(response))


async def _as_async(chunks: Iterable[bytes]) -> AsyncIterator[bytes]:
    for chunk in chunks:
        yield chunk


def _async_closer(response: Any) -> Callable[[], Awaitable[None]]:
    close = getattr(response, "aclose", None) or getattr(response, "release", None) or getattr(response, "close", None)

    async def closing() -> None:
        if callable(close):
            result = close()
            if inspect.isawaitable(result):
                await result

    return closing


def async_source_of(response: Any) -> AsyncSource:
    """The AsyncSource of a response object (or of an async or sync iterable of bytes)."""
    response = _unwrap(response)
    if hasattr(response, "aiter_bytes") and hasattr(response, "status_code"):  # httpx
        chunks: AsyncIterator[bytes] = aiter(response.aiter_bytes())
    elif hasattr(getattr(response, "content", None), "iter_any"):  # aiohttp (httpx's raises: read first)
        chunks = aiter(response.content.iter_any())
    elif isinstance(response, AsyncIterable):
        return AsyncSource(None, None, None, aiter(response), _async_closer(response))
    elif isinstance(response, Iterable) and not isinstance(response, str | bytes | bytearray | memoryview):
        return AsyncSource(None, None, None, _as_async(response), _async_closer(response))
    else:
        raise DecoderUsageError(
            f"cannot read a {type(response).__name__} asynchronously: give a response of httpx.AsyncClient, "
            "aiohttp or an SDK's async with_streaming_response, or an async iterable of bytes"
        )
    headers = getattr(response, "headers", None)
    return AsyncSource(
        _status(response), _header(headers, "content-type"), _url(response), chunks, _async_closer(response)
    )
