"""Optional third-party peers, driven offline on the same byte pieces.

Each factory imports its package lazily (as Any, through `contenders.load`) and raises
`Unavailable` when it is not installed, so none of these packages is ever required:
run.py then leaves the row out.  The SDK peers run the path the SDK's own stream
helpers take for every event, minus HTTP: the SDK's SSE decoder, `sse.json()`,
`construct_type` into the event model (what `Stream.__stream__` yields), then the
accumulator up to the final assembled object.  google-genai reads the body through its
public `generate_content_stream` on an in-process transport, mmsp runs its clients'
per-event transform over those SDK models, and litellm runs in a venv of its own, made
on first use (`litellm_python`), so that its dependency tree stays out of the project's.

Nothing beyond the standard library, orjson, gen and contenders is imported at module
level: run.py imports this file in the litellm venv too.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable, Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import gen
from contenders import Contender, Decoded, Pieces, Run, Unavailable, load


def _sse_events(sdk: str, pieces: Pieces, decoder_cls: Any) -> Iterator[Any]:
    """The SDK's SSE events, filtered as its `Stream.__stream__` filters them."""
    for sse in decoder_cls().iter_bytes(iter(pieces)):
        if sdk == "openai" and sse.data.startswith("[DONE]"):
            break
        if sdk == "anthropic" and (sse.event in ("ping", None) or not sse.data):
            continue
        yield sse


# --------------------------------------------------------------------------- httpx-sse


def httpx_sse(protocol: str) -> Run:
    """httpx.Response over the pieces, httpx_sse.EventSource, json.loads: no types."""
    httpx = load("httpx")
    event_source = load("httpx_sse").EventSource
    headers = {"content-type": "text/event-stream"}

    def run(pieces: Pieces) -> Decoded:
        response = httpx.Response(200, headers=headers, content=iter(pieces))
        n = 0
        for sse in event_source(response).iter_sse():
            if sse.data != "[DONE]":
                json.loads(sse.data)
                n += 1
        return Decoded(events=n)

    return run


# --------------------------------------------------------------------------- OpenAI SDK


def openai_sdk(protocol: str) -> Run:
    decoder_cls = load("openai._streaming").SSEDecoder
    construct_type = load("openai._models").construct_type
    if protocol == "openai_chat":
        return _openai_chat(decoder_cls, construct_type)
    if protocol == "openai_responses":
        return _openai_responses(decoder_cls, construct_type)
    raise Unavailable(f"openai_sdk has no {protocol}")


def _openai_chat(decoder_cls: Any, construct_type: Any) -> Run:
    """ChatCompletionStreamState: what client.chat.completions.stream() runs."""
    chunk_type = load("openai.types.chat").ChatCompletionChunk
    state_cls = load("openai.lib.streaming.chat").ChatCompletionStreamState

    def run(pieces: Pieces) -> Decoded:
        state = state_cls()
        for sse in _sse_events("openai", pieces, decoder_cls):
            chunk = construct_type(type_=chunk_type, value=sse.json())
            for _ in state.handle_chunk(chunk):  # the high-level events are built here
                pass
        final = state.get_final_completion()
        choice = final.choices[0]
        tools = [
            (tc.function.name, json.loads(tc.function.arguments))
            for tc in choice.message.tool_calls or ()
        ]
        end = "complete" if choice.finish_reason else "no finish_reason"
        return Decoded(text=choice.message.content or "", tools=tools, end=end)

    return run


def _openai_responses(decoder_cls: Any, construct_type: Any) -> Run:
    """ResponseStreamState: what client.responses.stream() runs."""
    omit = load("openai").omit
    event_type = load("openai.types.responses").ResponseStreamEvent
    state_cls = load("openai.lib.streaming.responses").ResponseStreamState

    def run(pieces: Pieces) -> Decoded:
        state = state_cls(input_tools=omit, text_format=omit)
        for sse in _sse_events("openai", pieces, decoder_cls):
            event = construct_type(type_=event_type, value=sse.json())
            for _ in state.handle_event(event):
                pass
        # what ResponseStream.get_final_response() returns
        return _from_response(state._completed_response)

    return run


def _from_response(final: Any) -> Decoded:
    if final is None:
        return Decoded(end="no response.completed")
    out = Decoded(end="complete" if final.status == "completed" else final.status)
    for item in final.output:
        if item.type == "reasoning":
            out.thinking += "".join(s.text for s in item.summary)
        elif item.type == "message":
            out.text += "".join(c.text for c in item.content)
        elif item.type == "function_call":
            out.tools.append((item.name, json.loads(item.arguments)))
    return out


# --------------------------------------------------------------------------- Anthropic SDK


def anthropic_sdk(protocol: str) -> Run:
    """accumulate_event + build_events per event: what MessageStream runs."""
    decoder_cls = load("anthropic._streaming").SSEDecoder
    construct_type = load("anthropic._models").construct_type
    event_type = load("anthropic.types").RawMessageStreamEvent
    messages = load("anthropic.lib.streaming._messages")
    accumulate_event, build_events = messages.accumulate_event, messages.build_events

    def run(pieces: Pieces) -> Decoded:
        snapshot = None
        json_bufs: dict[int, bytes] = {}
        for sse in _sse_events("anthropic", pieces, decoder_cls):
            event = construct_type(type_=event_type, value=sse.json())
            snapshot = accumulate_event(
                event=event, current_snapshot=snapshot, json_bufs=json_bufs
            )
            for _ in build_events(event=event, message_snapshot=snapshot):
                pass
        return _from_message(snapshot)

    return run


def _from_message(snapshot: Any) -> Decoded:
    if snapshot is None:
        return Decoded(end="no message_start")
    out = Decoded(end="complete" if snapshot.stop_reason else "no stop_reason")
    for block in snapshot.content:
        if block.type == "thinking":
            out.thinking += block.thinking
        elif block.type == "text":
            out.text += block.text
        elif block.type == "tool_use":
            out.tools.append((block.name, block.input))
    return out


# --------------------------------------------------------------------------- google-genai


def _genai_chunks(model: str = "gemini-2.5-pro") -> Callable[[Pieces], Iterator[Any]]:
    """`client.models.generate_content_stream` over the pieces, on an in-process transport.

    Per record, that is the SDK's SSE line decoder and `json.loads`, the `json.dumps` and
    `json.loads` round trip of `request_streamed`, the field renaming of
    `_GenerateContentResponse_from_mldev`, `GenerateContentResponse._from_response`
    (pydantic validation) and the continuation and AFC bookkeeping around each chunk.
    The request it builds once per stream costs about 1% of the small stream.
    """
    httpx2 = load("httpx2")
    genai = load("google.genai")
    types = load("google.genai.types")
    body: list[Pieces] = [[]]

    def respond(request: Any) -> Any:
        headers = {"content-type": "text/event-stream"}
        return httpx2.Response(200, headers=headers, content=iter(body[0]))

    http = httpx2.Client(transport=httpx2.MockTransport(respond))
    client = genai.Client(
        api_key="bench", http_options=types.HttpOptions(httpx_client=http)
    )

    def chunks(pieces: Pieces) -> Iterator[Any]:
        body[0] = pieces
        return iter(client.models.generate_content_stream(model=model, contents="hi"))

    return chunks


def google_genai(protocol: str) -> Run:
    """The SDK's GenerateContentResponse chunks; candidate 0's parts joined by kind."""
    if protocol != "gemini":
        raise Unavailable(f"google_genai has no {protocol}")
    chunks = _genai_chunks()

    def run(pieces: Pieces) -> Decoded:
        out = Decoded(end="no finish_reason")
        text: list[str] = []
        thinking: list[str] = []
        for chunk in chunks(pieces):
            if not chunk.candidates:
                continue
            candidate = chunk.candidates[0]
            if candidate.finish_reason:
                out.end = "complete"
            content = candidate.content
            for part in (content.parts if content else None) or ():
                if part.function_call is not None:
                    out.tools.append((part.function_call.name, part.function_call.args))
                elif part.text is not None:
                    (thinking if part.thought else text).append(part.text)
        out.text = "".join(text)
        out.thinking = "".join(thinking)
        return out

    return run


# --------------------------------------------------------------------------- mmsp


def _models(
    sdk: str, decoder_cls: Any, cast_to: Any
) -> Callable[[Pieces], Iterator[Any]]:
    """The SDK's event models, as its `Stream` yields them to the client iterating it."""
    construct_type = load(f"{sdk}._models").construct_type

    def models(pieces: Pieces) -> Iterator[Any]:
        for sse in _sse_events(sdk, pieces, decoder_cls):
            yield construct_type(type_=cast_to, value=sse.json())

    return models


def _mmsp_source(protocol: str) -> tuple[Any, Callable[[Pieces], Iterator[Any]]]:
    """The mmsp client that speaks the protocol, and the SDK models it iterates."""
    if protocol in ("openai_chat", "openai_responses"):
        decoder_cls = load("openai._streaming").SSEDecoder
        if protocol == "openai_chat":
            cast_to = load("openai.types.chat").ChatCompletionChunk
            client = load("mmsp.openai_chat.client").OpenaiChatClient
        else:
            cast_to = load("openai.types.responses").ResponseStreamEvent
            client = load("mmsp.openai_responses.client").OpenaiResponsesClient
        models = _models("openai", decoder_cls, cast_to)
        return client(model="gpt-5", api_key="sk-bench"), models
    if protocol in ("anthropic", "bedrock_invoke"):
        # the client streams beta.messages: the beta event union
        cast_to = load("anthropic.types.beta").BetaRawMessageStreamEvent
        client_cls = load("mmsp.anthropic_official.client").AnthropicOfficialClient
        if protocol == "anthropic":
            decoder_cls = load("anthropic._streaming").SSEDecoder
            client = client_cls(model="claude-sonnet-4-5", api_key="sk-ant-bench")
        else:  # the client on Bedrock: the SDK's AWS event-stream decoder (botocore)
            bedrock = load("anthropic.lib.bedrock._stream_decoder")
            decoder_cls = bedrock.AWSEventStreamDecoder
            load("botocore")
            client = client_cls(
                model="anthropic.claude-sonnet-4-5",
                api_key="AKIABENCH,bench",
                base_url="bedrock://us-east-1",
            )
        return client, _models("anthropic", decoder_cls, cast_to)
    if protocol == "gemini":
        client_cls = load("mmsp.google_genai.client").GoogleGenaiClient
        return client_cls(model="gemini-2.5-pro", api_key="bench"), _genai_chunks()
    raise Unavailable(f"mmsp has no client for {protocol}")


def _gemini_events(
    transform: Callable[[Any], Any],
) -> Callable[[Iterable[Any]], Iterator[Any]]:
    """GoogleGenaiClient's loop over the chunks: STOP after a function call is tool_call."""

    def events(chunks: Iterable[Any]) -> Iterator[Any]:
        called = False
        for chunk in chunks:
            event = transform(chunk)
            called = called or any(
                i["type"] == "tool_call.delta" for i in event["content_items"]
            )
            finish = event["finish_reason"]
            yield {
                **event,
                "finish_reason": "tool_call" if finish == "stop" and called else finish,
            }

    return events


def mmsp(protocol: str) -> Run:
    """mmsp's per-event path, synchronously: the SDK models its client iterates, the
    client's `transform_model_output_to_uni_event`, then `_PublicStream` (StreamItems),
    which emits every delta, the done items and the one stop event.  No asyncio, no
    HTTP: the SDK decodes the body as the SDK peers do (Gemini: as google_genai does)."""
    public_stream = load("mmsp.base_client")._PublicStream
    try:
        client, models = _mmsp_source(protocol)
    except Unavailable:
        raise
    except Exception as e:  # a client that cannot be built here (credentials, extras)
        raise Unavailable(f"{type(e).__name__}: {e}") from e
    name = type(client).__name__
    transform = client.transform_model_output_to_uni_event
    events = (
        _gemini_events(transform)
        if protocol == "gemini"
        else lambda chunks: map(transform, chunks)
    )

    def run(pieces: Pieces) -> Decoded:
        output = public_stream(name)
        for event in events(models(pieces)):
            for _ in output.push(event):
                pass
        for _ in output.end():
            pass
        return _from_mmsp(output.done_items, output.stop())

    return run


def _from_mmsp(done_items: list[Any], stop: Any) -> Decoded:
    out = Decoded(end="complete" if stop["finish_reason"] else "no finish_reason")
    text: list[str] = []
    thinking: list[str] = []
    for item in done_items:
        kind = item["type"]
        if kind == "text.done":
            text.append(item["text"])
        elif kind == "thinking.done":
            thinking.append(item["thinking"])
        elif kind == "tool_call.done":
            out.tools.append((item["name"], item["arguments"]))  # parsed by StreamItems
    out.text = "".join(text)
    out.thinking = "".join(thinking)
    return out


# --------------------------------------------------------------------------- litellm

LITELLM_VENV = Path(tempfile.gettempdir()) / "unievent-bench-litellm"
LITELLM_PACKAGES = ("litellm", "orjson")
INSTALL_SECONDS = 300  # venv and pip together
_litellm_failure: list[str] = []  # why the venv could not be made, once per process


def litellm_python() -> str:
    """The Python of a venv holding litellm and orjson, made on first use.

    The venv lives under the temp dir, apart from the project's environment, whose
    versions litellm's dependencies would move.  Raises `Unavailable` with the reason
    when the venv cannot be made, or pip fails or runs out of time (remembered for
    this process).
    """
    python = LITELLM_VENV / "bin" / "python"
    if _has_packages(python):
        return str(python)
    if _litellm_failure:
        raise Unavailable(_litellm_failure[0])
    deadline = time.monotonic() + INSTALL_SECONDS
    pip = [str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check"]
    try:
        venv = [sys.executable, "-m", "venv", "--clear", str(LITELLM_VENV)]
        _step("python -m venv", venv, deadline)
        _step("pip install", [*pip, *LITELLM_PACKAGES], deadline)
    except Unavailable as e:
        _litellm_failure.append(str(e))
        raise
    return str(python)


def _has_packages(python: Path) -> bool:
    if not python.exists():
        return False
    probe = "import importlib.util as u, sys; sys.exit(not all(map(u.find_spec, sys.argv[1:])))"
    try:
        done = subprocess.run(
            [str(python), "-c", probe, *LITELLM_PACKAGES],
            check=False,
            capture_output=True,
            timeout=60,
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return done.returncode == 0


def _step(what: str, command: list[str], deadline: float) -> None:
    """Run one set-up command in what is left of the time limit, or raise Unavailable."""
    left = deadline - time.monotonic()
    try:
        done = subprocess.run(
            command, check=False, capture_output=True, text=True, timeout=max(1.0, left)
        )
    except subprocess.TimeoutExpired:
        raise Unavailable(f"{what} did not finish within {INSTALL_SECONDS} s") from None
    except OSError as e:
        raise Unavailable(f"{what}: {e}") from e
    if done.returncode:
        lines = [line for line in done.stderr.splitlines() if line.strip()]
        errors = [line for line in lines if "ERROR" in line] or lines or ["no output"]
        raise Unavailable(
            f"{what} failed (exit {done.returncode}): {errors[-1].strip()[:200]}"
        )


def _sse_json(pieces: Pieces, sep: bytes) -> Iterator[Any]:
    """json.loads of every event's `data:` payload but `[DONE]` (the floor's framing)."""
    loads = json.loads
    width = len(sep)
    tail = b""
    for piece in pieces:
        buf = tail + piece if tail else piece
        end = buf.rfind(sep)
        if end < 0:
            tail = buf
            continue
        for block in buf[:end].split(sep):
            payload = block[block.find(b"data: ") + 6 :]
            if payload != b"[DONE]":
                yield loads(payload)
        tail = buf[end + width :]


def litellm(protocol: str) -> Run:
    """The chunks as litellm's streams hand them over, then `stream_chunk_builder`.

    Each event's JSON becomes a `ModelResponseStream`: directly for Chat Completions,
    through litellm's own chunk parser (`ModelResponseIterator.chunk_parser`) for
    Anthropic and Gemini.  Leaves out HTTP and the `CustomStreamWrapper` that
    `litellm.completion` wraps around those chunks.
    """
    # the bundled price list, not a download at import
    os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
    os.environ.setdefault("LITELLM_TELEMETRY", "False")
    lib = load("litellm")
    lib.suppress_debug_info = True
    parser = _litellm_parser(lib, protocol)
    build = lib.stream_chunk_builder
    sep = gen.SEPARATORS.get(protocol, b"\n\n")
    messages = [{"role": "user", "content": "hi"}]

    def run(pieces: Pieces) -> Decoded:
        parse = parser()  # the provider parsers keep per-stream state
        chunks = [c for c in map(parse, _sse_json(pieces, sep)) if c is not None]
        final = build(chunks, messages=messages)
        choice = final.choices[0]
        message = choice.message
        tools = [
            (tc.function.name, json.loads(tc.function.arguments))
            for tc in message.tool_calls or ()
        ]
        return Decoded(
            text=message.content or "",
            thinking=getattr(message, "reasoning_content", None) or "",
            tools=tools,
            end="complete" if choice.finish_reason else "no finish_reason",
        )

    return run


def _litellm_parser(lib: Any, protocol: str) -> Callable[[], Callable[[Any], Any]]:
    """Makes, per stream, the function turning one event's JSON into litellm's chunk."""
    if protocol == "openai_chat":
        chunk_cls = lib.ModelResponseStream
        return lambda: lambda obj: chunk_cls(**obj)
    if protocol == "anthropic":
        handler = load("litellm.llms.anthropic.chat.handler")
        anthropic_cls = handler.ModelResponseIterator
        return lambda: anthropic_cls(None, sync_stream=True).chunk_parser
    if protocol == "gemini":
        gemini = load("litellm.llms.vertex_ai.gemini.vertex_and_google_ai_studio_gemini")
        logging_cls = load("litellm.litellm_core_utils.litellm_logging").Logging
        model = "gemini-2.5-pro"
        log = logging_cls(
            model=model,
            messages=[{"role": "user", "content": "hi"}],
            stream=True,
            call_type="completion",
            start_time=datetime.now(),
            litellm_call_id="bench",
            function_id="bench",
        )
        # what its parser reads of the request: no tools, no options
        log.update_environment_variables(litellm_params={}, optional_params={}, model=model)
        gemini_cls = gemini.ModelResponseIterator
        return lambda: gemini_cls(None, sync_stream=True, logging_obj=log).chunk_parser
    raise Unavailable(f"litellm's stream_chunk_builder does not apply to {protocol}")


# --------------------------------------------------------------------------- registry


def _known(*protocols: str) -> tuple[str, ...]:
    """The protocols the generator has (it may not have them all yet)."""
    return tuple(p for p in protocols if p in gen.PROTOCOLS)


def _peer(
    name: str,
    protocols: tuple[str, ...],
    make: Callable[[str], Run],
    interpreter: Callable[[], str] | None = None,
) -> Contender:
    """An optional contender; `interpreter` is passed where Contender has that field."""
    extra: dict[str, Any] = {}
    if interpreter is not None and "interpreter" in Contender.__dataclass_fields__:
        extra["interpreter"] = interpreter
    return Contender(name, protocols, make, True, **extra)


PEERS: tuple[Contender, ...] = (
    _peer("httpx_sse", ("openai_chat", "anthropic", "openai_responses"), httpx_sse),
    _peer("openai_sdk", ("openai_chat", "openai_responses"), openai_sdk),
    _peer("anthropic_sdk", ("anthropic",), anthropic_sdk),
    _peer("google_genai", _known("gemini"), google_genai),
    _peer(
        "mmsp",
        _known("openai_chat", "anthropic", "openai_responses", "gemini", "bedrock_invoke"),
        mmsp,
    ),
    _peer("litellm", _known("openai_chat", "anthropic", "gemini"), litellm, litellm_python),
)
