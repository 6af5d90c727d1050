"""Optional third-party peers, driven offline on the same byte pieces.

Each factory imports its package lazily (as Any, through `contenders.load`) and raises
`Unavailable` when it is not installed, so none of these packages is ever required:
run.py then leaves the row out.  The SDK peers run the path the SDK's own stream
helpers take for every event, minus HTTP: the SDK's SSE decoder, `sse.json()`,
`construct_type` into the event model (what `Stream.__stream__` yields), then the
accumulator up to the final assembled object.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from typing import Any

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


PEERS: tuple[Contender, ...] = (
    Contender(
        "httpx_sse", ("openai_chat", "anthropic", "openai_responses"), httpx_sse, True
    ),
    Contender("openai_sdk", ("openai_chat", "openai_responses"), openai_sdk, True),
    Contender("anthropic_sdk", ("anthropic",), anthropic_sdk, True),
)
