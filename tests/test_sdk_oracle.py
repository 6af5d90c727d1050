"""Each provider's own SDK, used as an oracle for unievent.

Every recorded stream of ../shared/corpus and ../shared/corpus-open-world (when
present), and the streams unievent's writers make of one event list, is decoded by
unievent and read by the provider's SDK the way its stream reader does it: the SDK's
client, served the recorded body (status and content type as recorded) by a mock
transport, splits the frames and builds its models; the SDK's own accumulator
assembles them (OpenAI's `ChatCompletionStreamState` and `ResponseStreamState`,
Anthropic's `accumulate_event`); where an SDK has none (google-genai, Cohere, Ollama,
botocore) its typed records are joined as its documentation describes.

Both readings must agree on the text, the thinking, the tool calls (name, id where the
provider sent one, parsed arguments), the provider's finish reason and unievent's
normalized one, the usage (the SDK's counts carried into MMSP's meaning: prompt tokens
exclude those read from a cache, response tokens exclude the reasoning ones), how the
stream ended and the provider's error message.

Where they differ by design (an SDK helper that fails on a real stream, a count the SDK
reports in another meaning, a content kind the SDK keeps apart), the difference is
listed in oracle_differences.json with the reason. The test fails on a difference not
listed there, and on a listed one that no longer occurs, so the list stays true.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

import pytest

import unievent
from tests.test_encode_sdks import EVENTS
from unievent import Outcome, TextDone, ThinkingDone, ToolCallDone
from unievent._protocols.anthropic import normalize_anthropic_finish
from unievent._protocols.bedrock_converse import normalize_bedrock_finish
from unievent._protocols.cohere import normalize_cohere_finish
from unievent._protocols.gemini import normalize_gemini_finish
from unievent._protocols.ollama import normalize_ollama_finish
from unievent._protocols.openai_chat import normalize_openai_finish

TESTS = Path(__file__).resolve().parent
SHARED = TESTS.parent.parent / "shared"
CORPORA = (SHARED / "corpus", SHARED / "corpus-open-world")
SAMPLES = TESTS.parent / "decoder" / "unievent" / "samples"
DIFFERENCES = TESTS / "oracle_differences.json"
BASE_URL = "http://oracle.invalid"

#: an SDK serializing content its models do not describe (Mistral's typed content) warns
pytestmark = pytest.mark.filterwarnings("ignore:Pydantic serializer warnings:UserWarning")

#: the corpus's protocol names that are not unievent's
CORPUS_PROTOCOLS = {"bedrock": "bedrock_converse"}
#: the SDK that reads each protocol
SDK_OF_PROTOCOL = {
    "openai_chat": "openai",
    "openai_responses": "openai",
    "anthropic": "anthropic",
    "gemini": "google-genai",
    "cohere": "cohere",
    "ollama": "ollama",
    "bedrock_converse": "botocore",
    "bedrock_invoke": "botocore",
}
#: the module that must import for each SDK
SDK_MODULE = {
    "openai": "openai",
    "anthropic": "anthropic",
    "google-genai": "google.genai",
    "cohere": "cohere",
    "ollama": "ollama",
    "botocore": "botocore",
}
#: the protocols unievent's writers write, and the SDKs read back
ENCODED_PROTOCOLS = ("openai_chat", "openai_responses", "anthropic", "gemini", "cohere", "ollama")


# --- the streams --------------------------------------------------------------------------


@dataclass(frozen=True)
class Recording:
    """One stream: its name (how failures and the differences file name it), the
    unievent protocol, where its body is (or the body), and the exchange it came from."""

    name: str
    protocol: str
    path: Path | None = None
    data: bytes = b""
    status: int = 200
    content_type: str = "text/event-stream"
    url: str = ""

    def body(self) -> bytes:
        return self.path.read_bytes() if self.path is not None else self.data

    @property
    def sdk(self) -> str:
        return SDK_OF_PROTOCOL[self.protocol]


def recorded_streams() -> list[Recording]:
    """Every manifest entry of the corpora present whose protocol an SDK here reads."""
    streams = []
    for corpus in CORPORA:
        manifest = corpus / "manifest.json"
        if not manifest.is_file():
            continue
        for entry in json.loads(manifest.read_text()):
            protocol = CORPUS_PROTOCOLS.get(entry["protocol"], entry["protocol"])
            if protocol not in SDK_OF_PROTOCOL:
                continue
            streams.append(
                Recording(
                    name=f"{corpus.name}/{entry['file']}",
                    protocol=protocol,
                    path=corpus / entry["file"],
                    status=entry.get("recorded_http_status") or 200,
                    content_type=entry.get("recorded_content_type") or "text/event-stream",
                    url=entry.get("recorded_request_uri") or "",
                )
            )
    return streams


def suite_streams() -> list[Recording]:
    """The package's sample capture, and the event list of test_encode_sdks as each writer writes it."""
    streams = [Recording(f"samples/{p.name}", p.stem, path=p) for p in sorted(SAMPLES.glob("*.sse"))]
    for protocol in ENCODED_PROTOCOLS:
        body = unievent.encode(EVENTS, protocol, model="m")
        content_type = "application/x-ndjson" if protocol == "ollama" else "text/event-stream"
        streams.append(Recording(f"encoded/{protocol}", protocol, data=body, content_type=content_type))
    return streams


STREAMS = recorded_streams() + suite_streams()


# --- what a reader made of a stream -------------------------------------------------------


@dataclass
class Reading:
    """A stream as one reader understood it, in the terms both readers share."""

    text: str = ""
    thinking: str = ""
    tool_calls: list[list[Any]] = field(default_factory=list)  # [name, id or None, parsed arguments]
    native_finish_reason: str | None = None
    finish_reason: str | None = None
    usage: dict[str, int | None] = field(default_factory=dict)
    end: str = "complete"
    error: str | None = None
    reader_failure: str | None = None  # the SDK helper's exception, when its fallback was read


def usage_counts(
    prompt: int | None = None, cached: int | None = None, thoughts: int | None = None, response: int | None = None
) -> dict[str, int | None]:
    """Counts in MMSP's meaning, named as unievent's `Usage` names them."""
    return {"prompt_tokens": prompt, "cached_tokens": cached, "thoughts_tokens": thoughts, "response_tokens": response}


def minus(total: int | None, part: int | None) -> int | None:
    """`total` without `part` (a count not reported stays not reported)."""
    return None if total is None else total - (part or 0)


def plus(total: int | None, part: int | None) -> int | None:
    """`total` with `part` (a count not reported stays not reported)."""
    return None if total is None else total + (part or 0)


def answer_tokens(completion: int | None, reasoning: int | None) -> int | None:
    """The visible answer's tokens of an OpenAI-style count: the reasoning is counted in the
    completion, as OpenAI counts it, unless it is larger (xAI counts it apart): a count is
    never negative."""
    if completion is None or reasoning is None or reasoning > completion:
        return completion
    return completion - reasoning


def count(value: object) -> int | None:
    """A token count as an int (Cohere's SDK types its counts as floats)."""
    if isinstance(value, bool) or value is None:
        return None
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value if isinstance(value, int) else None


def arguments(raw: str | None) -> Any:
    """Tool-call arguments as the caller runs them: the JSON parsed, no arguments as {}."""
    return json.loads(raw) if raw else {}


def unievent_reading(recording: Recording, sdk: Reading) -> Reading:
    """unievent's outcome of the whole body; ids of calls the provider did not name are left out,
    as the SDK has none to compare."""
    decoder = unievent.StreamDecoder(cast(unievent.ProtocolName, recording.protocol), stream_id="oracle")
    decoder.push(recording.body())
    _, outcome = decoder.finish()
    sdk_ids = [call[1] for call in sdk.tool_calls]
    calls: list[list[Any]] = [
        [i.name, i.tool_call_id, i.arguments] for i in outcome.message.items if isinstance(i, ToolCallDone)
    ]
    for call, sdk_id in zip(calls, sdk_ids, strict=False):
        if sdk_id is None:
            call[1] = None
    usage = outcome.usage
    return Reading(
        text="".join(i.text for i in outcome.message.items if isinstance(i, TextDone)),
        thinking="".join(i.thinking for i in outcome.message.items if isinstance(i, ThinkingDone)),
        tool_calls=calls,
        native_finish_reason=outcome.native_finish_reason,
        finish_reason=outcome.finish_reason,
        usage=usage_counts(usage.prompt_tokens, usage.cached_tokens, usage.thoughts_tokens, usage.response_tokens),
        end=outcome.end,
        error=error_of(outcome),
    )


def error_of(outcome: Outcome) -> str | None:
    return outcome.error.message if outcome.end == "failed" and outcome.error is not None else None


def api_error_message(error: Any) -> str:
    """The provider's own message of an SDK's API error (its body's `error.message` when the
    body is the provider's JSON)."""
    body = getattr(error, "body", None)
    if isinstance(body, dict):
        inner = body.get("error", body)
        if isinstance(inner, dict) and isinstance(inner.get("message"), str):
            return cast(str, inner["message"])
    message = getattr(error, "message", None)
    return message if isinstance(message, str) else str(error)


# --- serving a body to an SDK client ------------------------------------------------------


def sdk(module: str) -> Any:
    """An SDK module, or the test skipped where it is not installed (its types are not
    needed here: the readers take its models as it builds them)."""
    return pytest.importorskip(module)


def mock_transport(httpx_module: Any, recording: Recording) -> Any:
    """A transport of `httpx_module` (httpx, or the httpx2 the OpenAI and Anthropic SDKs use)
    answering every request with the recorded status, content type and body."""
    body = recording.body()

    def answer(request: Any) -> Any:
        return httpx_module.Response(recording.status, headers={"content-type": recording.content_type}, content=body)

    return httpx_module.MockTransport(answer)


# --- OpenAI Chat Completions --------------------------------------------------------------


def read_openai_chat(recording: Recording) -> Reading:
    """The chunks the OpenAI client parses, accumulated by `ChatCompletionStreamState` (after
    the helper's own filter of non-chunk objects); when that helper raises on a stream,
    the chunks as the client yields them, accumulated per choice 0 and tool-call index."""
    openai, httpx2 = sdk("openai"), sdk("httpx2")
    ChatCompletionStreamState = sdk("openai.lib.streaming.chat").ChatCompletionStreamState

    client = openai.OpenAI(
        api_key="x",
        base_url=BASE_URL + "/v1",
        http_client=httpx2.Client(transport=mock_transport(httpx2, recording)),
        max_retries=0,
    )
    chunks: list[Any] = []
    error: str | None = None
    try:
        chunks.extend(client.chat.completions.create(model="m", messages=[], stream=True))
    except openai.APIError as exc:
        error = api_error_message(exc)
    state = ChatCompletionStreamState()
    try:
        for chunk in chunks:
            if chunk.object == "chat.completion.chunk":
                state.handle_chunk(chunk)
        reading = chat_reading(state.get_final_completion().model_dump(warnings=False) if chunks else {})
    except Exception as exc:
        reading = plain_chat_reading(chunks)
        reading.reader_failure = f"ChatCompletionStreamState: {type(exc).__name__}: {exc}"
    if error is not None:
        reading.end, reading.error, reading.finish_reason = "failed", error, None
    return reading


def chat_reading(completion: dict[str, Any]) -> Reading:
    """The first choice (index 0) of an accumulated chat completion, with its usage."""
    choice: dict[str, Any] = next((c for c in completion.get("choices") or [] if c.get("index") == 0), {})
    message = choice.get("message") or {}
    calls = [
        [(c.get("function") or {}).get("name"), c.get("id"), arguments((c.get("function") or {}).get("arguments"))]
        for c in message.get("tool_calls") or []
    ]
    native = choice.get("finish_reason")
    return Reading(
        text=message.get("content") or "",
        thinking=chat_thinking(message),
        tool_calls=calls,
        native_finish_reason=native,
        finish_reason=normalize_openai_finish(native, bool(calls)),
        usage=chat_usage(completion.get("usage")),
    )


def plain_chat_reading(chunks: list[Any]) -> Reading:
    """Chunks joined as a client of the SDK's `create(stream=True)` joins them: choice 0's
    content and reasoning concatenated, tool calls by index (id and name from the fragment
    that names them, arguments concatenated), the last finish reason and usage."""
    text, thinking, native, usage = "", "", None, None
    calls: dict[int, list[str]] = {}
    for chunk in chunks:
        usage = chunk.usage.model_dump(warnings=False) if chunk.usage is not None else usage
        for choice in chunk.choices or []:
            if choice.index != 0:
                continue
            delta = choice.delta.model_dump(warnings=False) if choice.delta is not None else {}
            text += delta.get("content") or ""
            thinking += chat_thinking(delta)
            for n, fragment in enumerate(delta.get("tool_calls") or []):
                index = fragment.get("index")
                call = calls.setdefault(n if index is None else index, ["", "", ""])
                function = fragment.get("function") or {}
                call[0] = call[0] or function.get("name") or ""
                call[1] = call[1] or fragment.get("id") or ""
                call[2] += function.get("arguments") or ""
            native = choice.finish_reason or native
    tool_calls = [[name, call_id or None, arguments(args)] for name, call_id, args in calls.values()]
    return Reading(
        text=text,
        thinking=thinking,
        tool_calls=tool_calls,
        native_finish_reason=native,
        finish_reason=normalize_openai_finish(native, bool(tool_calls)),
        usage=chat_usage(usage),
    )


def chat_thinking(message: dict[str, Any]) -> str:
    """The reasoning a message (or delta) carries beside its content, in the field the
    gateway writes it: `reasoning_content`, `reasoning`, or the texts of `reasoning_details`."""
    details = "".join(d.get("text") or "" for d in message.get("reasoning_details") or [] if isinstance(d, dict))
    return cast(str, message.get("reasoning_content") or message.get("reasoning") or details)


def chat_usage(usage: dict[str, Any] | None) -> dict[str, int | None]:
    usage = usage or {}
    cached = (usage.get("prompt_tokens_details") or {}).get("cached_tokens")
    reasoning = (usage.get("completion_tokens_details") or {}).get("reasoning_tokens")
    return usage_counts(
        minus(usage.get("prompt_tokens"), cached),
        cached,
        reasoning,
        answer_tokens(usage.get("completion_tokens"), reasoning),
    )


# --- OpenAI Responses ---------------------------------------------------------------------


def read_openai_responses(recording: Recording) -> Reading:
    """The events of the OpenAI client's `responses.stream` helper (`ResponseStreamState`): the
    response of the last lifecycle event (completed, incomplete or failed) with the output
    the helper assembled, and any `error` event's message."""
    openai, httpx2 = sdk("openai"), sdk("httpx2")

    client = openai.OpenAI(
        api_key="x",
        base_url=BASE_URL + "/v1",
        http_client=httpx2.Client(transport=mock_transport(httpx2, recording)),
        max_retries=0,
    )
    final: dict[str, Any] = {}
    error: str | None = None
    failure: str | None = None
    try:
        with client.responses.stream(model="m", input="hi") as stream:
            for event in stream:
                if event.type in ("response.completed", "response.incomplete", "response.failed"):
                    final = event.response.model_dump(warnings=False)
                elif event.type == "error":
                    error = event.message
    except openai.APIError as exc:
        error = api_error_message(exc)
    except Exception as exc:
        failure = f"ResponseStreamState: {type(exc).__name__}: {exc}"
    reading = responses_reading(final)
    reading.reader_failure = failure
    failed = final.get("error") or {}
    if error is not None or final.get("status") == "failed":
        reading.end, reading.error = "failed", error or failed.get("message")
        reading.finish_reason = None
    return reading


def responses_reading(response: dict[str, Any]) -> Reading:
    """Text of the output messages, thinking of the reasoning items (summary and raw text),
    the function calls, and the status (or why it is incomplete) as the finish."""
    text, thinking, calls = "", "", []
    for item in response.get("output") or []:
        if item.get("type") == "message":
            text += "".join(c.get("text") or "" for c in item.get("content") or [] if c.get("type") == "output_text")
        elif item.get("type") == "reasoning":
            thinking += "".join(s.get("text") or "" for s in item.get("summary") or [])
            thinking += "".join(c.get("text") or "" for c in item.get("content") or [])
        elif item.get("type") == "function_call":
            calls.append([item.get("name"), item.get("call_id"), arguments(item.get("arguments"))])
    status = response.get("status")
    native = (response.get("incomplete_details") or {}).get("reason") if status == "incomplete" else status
    usage = response.get("usage") or {}
    cached = (usage.get("input_tokens_details") or {}).get("cached_tokens")
    reasoning = (usage.get("output_tokens_details") or {}).get("reasoning_tokens")
    return Reading(
        text=text,
        thinking=thinking,
        tool_calls=calls,
        native_finish_reason=native,
        finish_reason=responses_finish(native, bool(calls)),
        usage=usage_counts(
            minus(usage.get("input_tokens"), cached),
            cached,
            reasoning,
            answer_tokens(usage.get("output_tokens"), reasoning),
        ),
    )


def responses_finish(native: str | None, made_calls: bool) -> str | None:
    """MMSP's finish for a Responses status: completed is stop (tool_call with calls), an
    incomplete max_output_tokens is length, any other incomplete reason unknown."""
    if native is None:
        return None
    if native == "completed":
        return "tool_call" if made_calls else "stop"
    return "length" if native == "max_output_tokens" else "unknown"


# --- Anthropic ----------------------------------------------------------------------------


def read_anthropic(recording: Recording) -> Reading:
    """The events the Anthropic client parses (the beta client for a beta request),
    accumulated by the SDK's `accumulate_event` into the message."""
    anthropic, httpx2 = sdk("anthropic"), sdk("httpx2")

    client = anthropic.Anthropic(
        api_key="x",
        base_url=BASE_URL,
        http_client=httpx2.Client(transport=mock_transport(httpx2, recording)),
        max_retries=0,
    )
    request: dict[str, Any] = {"model": "m", "max_tokens": 1, "messages": [], "stream": True}
    events: list[Any] = []
    error: str | None = None
    try:
        if "beta=true" in recording.url:
            events.extend(client.beta.messages.create(**request))
        else:
            events.extend(client.messages.create(**request))
    except anthropic.APIError as exc:
        error = api_error_message(exc)
    reading = anthropic_reading(accumulate_anthropic(events, beta="beta=true" in recording.url))
    if error is not None:
        reading.end, reading.error, reading.finish_reason = "failed", error, None
    return reading


def accumulate_anthropic(events: list[Any], beta: bool = False) -> dict[str, Any]:
    """The message the SDK's accumulator makes of the events ({} before message_start)."""
    httpx2 = sdk("httpx2")
    messages, beta_messages = sdk("anthropic.lib.streaming._messages"), sdk("anthropic.lib.streaming._beta_messages")

    snapshot: Any = None
    buffers: dict[int, bytes] = {}
    for event in events:
        if beta:
            snapshot = beta_messages.accumulate_event(
                event=event, current_snapshot=snapshot, json_bufs=buffers, request_headers=httpx2.Headers()
            )
        else:
            snapshot = messages.accumulate_event(event=event, current_snapshot=snapshot, json_bufs=buffers)
    return cast(dict[str, Any], snapshot.model_dump(warnings=False)) if snapshot is not None else {}


def anthropic_reading(message: dict[str, Any]) -> Reading:
    """Text and thinking blocks joined, the client tool calls (`tool_use` blocks: the tools
    the provider runs itself are not the caller's to run), stop reason and usage."""
    blocks = message.get("content") or []
    calls = [[b["name"], b["id"], b.get("input") or {}] for b in blocks if b.get("type") == "tool_use"]
    native = message.get("stop_reason")
    usage = message.get("usage") or {}
    thoughts = (usage.get("output_tokens_details") or {}).get("thinking_tokens")
    prompt = plus(usage.get("input_tokens"), usage.get("cache_creation_input_tokens"))
    return Reading(
        text="".join(b.get("text") or "" for b in blocks if b.get("type") == "text"),
        thinking="".join(b.get("thinking") or "" for b in blocks if b.get("type") == "thinking"),
        tool_calls=calls,
        native_finish_reason=native,
        finish_reason=normalize_anthropic_finish(native) if message else None,
        usage=usage_counts(
            prompt, usage.get("cache_read_input_tokens"), thoughts, minus(usage.get("output_tokens"), thoughts)
        ),
    )


# --- Gemini -------------------------------------------------------------------------------


def read_gemini(recording: Recording) -> Reading:
    """The `GenerateContentResponse` records google-genai's client yields for the stream
    (a JSON-array body, which its client does not request, is read record by record with
    the same model)."""
    httpx, genai, types = sdk("httpx"), sdk("google.genai"), sdk("google.genai.types")

    records: list[Any] = []
    error: str | None = None
    body = recording.body()
    if body.lstrip().startswith(b"[") and recording.status == 200:
        records = [types.GenerateContentResponse.model_validate(r) for r in json.loads(body)]
    else:
        options = types.HttpOptions(
            base_url=BASE_URL, httpx_client=httpx.Client(transport=mock_transport(httpx, recording))
        )
        client = genai.Client(api_key="x", http_options=options)
        try:
            records.extend(client.models.generate_content_stream(model="m", contents="hi"))
        except genai.errors.APIError as exc:
            error = exc.message
    reading = gemini_reading(records)
    if error is not None:
        reading.end, reading.error, reading.finish_reason = "failed", error, None
    return reading


def gemini_reading(records: list[Any]) -> Reading:
    """The first candidate's parts joined in order (text, `thought` text, function calls,
    a call streamed as partial arguments assembled by their JSON paths), its last finish
    reason, and the last record's usage metadata (each record carries its whole usage)."""
    text, thinking, native, metadata = "", "", None, None
    calls: list[list[Any]] = []
    streaming: list[Any] | None = None  # the call whose arguments are arriving
    for record in records:
        metadata = record.usage_metadata or metadata
        candidate = (record.candidates or [None])[0]
        if candidate is None:
            continue
        native = candidate.finish_reason.value if candidate.finish_reason is not None else native
        for part in (candidate.content.parts if candidate.content else None) or []:
            call = part.function_call
            if call is not None and streaming is not None:
                apply_partial_args(streaming[2], call.partial_args or [])
                streaming = streaming if call.will_continue or call.partial_args else None
            elif call is not None:
                calls.append([call.name, call.id, dict(call.args or {})])
                streaming = calls[-1] if call.will_continue else None
            elif part.text is not None and part.thought:
                thinking += part.text
            elif part.text is not None:
                text += part.text
    usage = metadata.model_dump(warnings=False) if metadata is not None else {}
    cached = usage.get("cached_content_token_count")
    return Reading(
        text=text,
        thinking=thinking,
        tool_calls=calls,
        native_finish_reason=native,
        finish_reason=normalize_gemini_finish(native, bool(calls)) if records else None,
        usage=usage_counts(
            minus(usage.get("prompt_token_count"), cached),
            cached,
            usage.get("thoughts_token_count"),
            usage.get("candidates_token_count"),
        ),
    )


def apply_partial_args(args: dict[str, Any], partial_args: list[Any]) -> None:
    """Streamed argument fragments: a string value continues the string at its path, any
    other value sets it (top-level paths, `$.name`)."""
    for arg in partial_args:
        key = (arg.json_path or "").removeprefix("$.")
        if arg.string_value is not None:
            args[key] = args.get(key, "") + arg.string_value
        elif arg.number_value is not None:
            args[key] = int(arg.number_value) if arg.number_value.is_integer() else arg.number_value
        elif arg.bool_value is not None:
            args[key] = arg.bool_value
        elif arg.null_value is not None:
            args[key] = None


# --- Cohere -------------------------------------------------------------------------------


def read_cohere(recording: Recording) -> Reading:
    """The v2 stream events cohere's `ClientV2.chat_stream` yields, joined: text and thinking
    content, the tool plan (the model's reasoning before its calls) as thinking, tool calls
    from their start and argument deltas, the finish reason and usage of message-end."""
    cohere, httpx = sdk("cohere"), sdk("httpx")

    client = cohere.ClientV2(
        api_key="x", base_url=BASE_URL, httpx_client=httpx.Client(transport=mock_transport(httpx, recording))
    )
    reading = Reading()
    calls: dict[int, list[Any]] = {}
    error: str | None = None
    try:
        for event in client.chat_stream(model="m", messages=[]):
            apply_cohere_event(reading, calls, event.model_dump(warnings=False))
    except cohere.core.api_error.ApiError as exc:
        error = api_error_message(exc)
    reading.tool_calls = [[name, call_id, arguments(args)] for name, call_id, args in calls.values()]
    reading.finish_reason = normalize_cohere_finish(reading.native_finish_reason)
    if error is not None:
        reading.end, reading.error, reading.finish_reason = "failed", error, None
    return reading


def apply_cohere_event(reading: Reading, calls: dict[int, list[Any]], event: dict[str, Any]) -> None:
    message = (event.get("delta") or {}).get("message") or {}
    kind = event.get("type")
    if kind == "content-delta":
        content = message.get("content") or {}
        reading.text += content.get("text") or ""
        reading.thinking += content.get("thinking") or ""
    elif kind == "tool-plan-delta":
        reading.thinking += message.get("tool_plan") or ""
    elif kind in ("tool-call-start", "tool-call-delta"):
        fragment = message.get("tool_calls") or {}
        function = fragment.get("function") or {}
        call = calls.setdefault(event.get("index") or 0, ["", None, ""])
        call[0] = call[0] or function.get("name") or ""
        call[1] = call[1] or fragment.get("id")
        call[2] += function.get("arguments") or ""
    elif kind == "message-end":
        delta = event.get("delta") or {}
        reading.native_finish_reason = delta.get("finish_reason")
        usage = delta.get("usage") or {}
        tokens = usage.get("tokens") or {}
        cached = count(usage.get("cached_tokens"))
        reading.usage = usage_counts(
            minus(count(tokens.get("input_tokens")), cached), cached, None, count(tokens.get("output_tokens"))
        )


# --- Ollama -------------------------------------------------------------------------------


def read_ollama(recording: Recording) -> Reading:
    """The `ChatResponse` records ollama's client yields for each NDJSON line, joined: content,
    thinking, tool calls, and the done record's reason and counts."""
    ollama, httpx = sdk("ollama"), sdk("httpx")

    client = ollama.Client(host=BASE_URL, transport=mock_transport(httpx, recording))
    reading = Reading()
    error: str | None = None
    try:
        for record in client.chat(model="m", messages=[], stream=True):
            message = record.message
            reading.text += message.content or ""
            reading.thinking += message.thinking or ""
            for call in message.tool_calls or []:
                reading.tool_calls.append(
                    [call.function.name, getattr(call, "id", None), dict(call.function.arguments)]
                )
            if record.done:
                reading.native_finish_reason = record.done_reason
                reading.usage = usage_counts(prompt=record.prompt_eval_count, response=record.eval_count)
    except ollama.ResponseError as exc:
        error = exc.error
    reading.finish_reason = normalize_ollama_finish(reading.native_finish_reason, bool(reading.tool_calls))
    if error is not None:
        reading.end, reading.error, reading.finish_reason = "failed", error, None
    return reading


# --- Amazon Bedrock -----------------------------------------------------------------------


class _RawBody:
    """A body as botocore's `EventStream` reads it from the HTTP response."""

    def __init__(self, data: bytes) -> None:
        self.data = data

    def stream(self) -> Iterator[bytes]:
        yield self.data

    def close(self) -> None:
        pass


def bedrock_events(recording: Recording, operation: str) -> tuple[list[dict[str, Any]], str | None]:
    """The events botocore's `EventStream` parses from the body with the bedrock-runtime
    service model (as boto3 yields them), and the message of an exception frame."""
    session, eventstream = sdk("botocore.session"), sdk("botocore.eventstream")
    EventStream, EventStreamError = eventstream.EventStream, eventstream.EventStreamError
    EventStreamJSONParser = sdk("botocore.parsers").EventStreamJSONParser

    model = session.get_session().get_service_model("bedrock-runtime").operation_model(operation)
    shape = model.output_shape.members[model.output_shape.serialization["payload"]]
    events: list[dict[str, Any]] = []
    try:
        events.extend(EventStream(_RawBody(recording.body()), shape, EventStreamJSONParser(), operation))
    except EventStreamError as exc:
        return events, str(exc.response.get("Error", {}).get("Message") or exc)
    return events, None


def read_bedrock_converse(recording: Recording) -> Reading:
    """ConverseStream events: text, reasoning text and tool-use input deltas by content
    block (a `server_tool_use` the provider runs itself is not the caller's to run),
    messageStop's stopReason, metadata's usage."""
    events, error = bedrock_events(recording, "ConverseStream")
    reading = converse_reading(events, cache_read="cacheReadInputTokens", cache_write="cacheWriteInputTokens")
    if error is not None:
        reading.end, reading.error, reading.finish_reason = "failed", error, None
    return reading


def converse_reading(events: list[dict[str, Any]], *, cache_read: str, cache_write: str) -> Reading:
    reading = Reading()
    calls: dict[int, list[Any]] = {}
    for event in events:
        if "contentBlockStart" in event:
            start = event["contentBlockStart"]
            tool = (start.get("start") or {}).get("toolUse")
            if tool is not None and tool.get("type") != "server_tool_use":
                calls[start.get("contentBlockIndex", 0)] = [tool.get("name"), tool.get("toolUseId"), ""]
        elif "contentBlockDelta" in event:
            block = event["contentBlockDelta"]
            delta = block.get("delta") or {}
            reading.text += delta.get("text") or ""
            reading.thinking += (delta.get("reasoningContent") or {}).get("text") or ""
            if "toolUse" in delta and block.get("contentBlockIndex", 0) in calls:
                calls[block.get("contentBlockIndex", 0)][2] += delta["toolUse"].get("input") or ""
        elif "messageStop" in event:
            reading.native_finish_reason = event["messageStop"].get("stopReason")
        elif "metadata" in event:
            usage = event["metadata"].get("usage") or {}
            reading.usage = usage_counts(
                plus(usage.get("inputTokens"), usage.get(cache_write)),
                usage.get(cache_read),
                None,
                usage.get("outputTokens"),
            )
    reading.tool_calls = [[name, call_id, arguments(args)] for name, call_id, args in calls.values()]
    reading.finish_reason = normalize_bedrock_finish(reading.native_finish_reason)
    return reading


def read_bedrock_invoke(recording: Recording) -> Reading:
    """InvokeModelWithResponseStream: botocore's `chunk` events, whose bytes are the model
    family's own events: Anthropic's (accumulated by the Anthropic SDK's `accumulate_event`)
    or Nova's (the Converse event shapes, its cache counts named `...TokenCount`)."""
    events, error = bedrock_events(recording, "InvokeModelWithResponseStream")
    payloads = [json.loads(e["chunk"]["bytes"]) for e in events if "chunk" in e]
    if payloads and "type" in payloads[0]:
        reading = anthropic_reading(accumulate_anthropic(payloads))
    else:
        reading = converse_reading(
            payloads, cache_read="cacheReadInputTokenCount", cache_write="cacheWriteInputTokenCount"
        )
    if error is not None:
        reading.end, reading.error, reading.finish_reason = "failed", error, None
    return reading


READERS: dict[str, Callable[[Recording], Reading]] = {
    "openai_chat": read_openai_chat,
    "openai_responses": read_openai_responses,
    "anthropic": read_anthropic,
    "gemini": read_gemini,
    "cohere": read_cohere,
    "ollama": read_ollama,
    "bedrock_converse": read_bedrock_converse,
    "bedrock_invoke": read_bedrock_invoke,
}


# --- comparing the readings ---------------------------------------------------------------

COMPARED = ("text", "thinking", "tool_calls", "native_finish_reason", "finish_reason", "usage", "end", "error")


def plain(value: Any) -> Any:
    """A value as the differences file holds it (JSON's lists, numbers and strings)."""
    return json.loads(json.dumps(value))


def differences(unievent_side: Reading, sdk_side: Reading) -> dict[str, tuple[Any, Any]]:
    """Each compared field where the two readings disagree: (unievent's value, the SDK's)."""
    found = {
        name: (plain(getattr(unievent_side, name)), plain(getattr(sdk_side, name)))
        for name in COMPARED
        if plain(getattr(unievent_side, name)) != plain(getattr(sdk_side, name))
    }
    if sdk_side.reader_failure is not None:
        found["reader"] = (None, sdk_side.reader_failure)
    return found


def listed_differences() -> list[dict[str, Any]]:
    return cast(list[dict[str, Any]], json.loads(DIFFERENCES.read_text())) if DIFFERENCES.is_file() else []


def listed_for(recording: Recording) -> dict[str, tuple[Any, Any]]:
    return {
        d["field"]: (d["unievent"], d["sdk_value"])
        for d in listed_differences()
        if d["stream"] == recording.name and d["sdk"] == recording.sdk
    }


# --- the tests ----------------------------------------------------------------------------


@pytest.mark.parametrize("recording", STREAMS, ids=[f"{r.sdk}:{r.name}" for r in STREAMS])
def test_unievent_reads_the_stream_as_the_provider_sdk_does(recording: Recording) -> None:
    pytest.importorskip(SDK_MODULE[recording.sdk])
    sdk_side = READERS[recording.protocol](recording)
    found = differences(unievent_reading(recording, sdk_side), sdk_side)
    assert found == listed_for(recording), "differences not as listed in oracle_differences.json"


@pytest.mark.parametrize("corpus", CORPORA, ids=[c.name for c in CORPORA])
def test_each_corpus_here_gives_streams_to_compare(corpus: Path) -> None:
    if not (corpus / "manifest.json").is_file():
        pytest.skip(f"../shared/{corpus.name} is not here")
    assert any(r.name.startswith(f"{corpus.name}/") for r in STREAMS)


def test_every_listed_difference_names_a_stream_here_and_why() -> None:
    if not any((corpus / "manifest.json").is_file() for corpus in CORPORA):
        pytest.skip("../shared/corpus is not here")
    names = {(r.name, r.sdk) for r in STREAMS}
    fields = {*COMPARED, "reader"}
    for listed in listed_differences():
        assert (listed["stream"], listed["sdk"]) in names, listed
        assert listed["field"] in fields, listed
        assert listed.get("why"), listed
