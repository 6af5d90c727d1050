"""Streams recorded by other projects' test suites (../shared/corpus-open-world), when present.

Every stream of a protocol unievent reads is decoded with the protocol and the content
type its manifest records: whole, in random pieces and, when small, byte by byte, with
the same events and outcome every time and every output valid in the UniEvent grammar.
What it decodes is then compared with the manifest's expectations:

- how the stream ended: `complete`, or `failed` with the provider's own error message
  where the body is an error;
- the text, the thinking, the tool calls (names and parsed arguments, and ids where the
  manifest names them) and the provider-side tools, which never become tool calls;
- the provider's native finish reason;
- the usage, carried into MMSP's meaning (prompt tokens exclude those read from a
  cache, response tokens exclude the reasoning ones), where the manifest has it;
- for a Chat Completions response with several choices, each other choice decoded on
  its own (`choice=`) against what the manifest's notes record for it.

The manifest's expectations were derived mechanically, so where unievent reads a stream
differently by design, the difference (field, unievent's value, the manifest's value)
is listed in open_world_expectations.json with the reason. A difference not listed
fails, and so does a listed one that no longer occurs: the list stays true.

Streams of protocols unievent does not read (`other/`) are decoded with `"auto"`: they
must never end `complete`, and their end is one of unievent's typed errors.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, cast

import pytest

import unievent
from unievent import Event, Outcome, ProtocolName, TextDone, ThinkingDone, ToolCallDone

TESTS = Path(__file__).resolve().parent
CORPUS = TESTS.parent.parent / "shared" / "corpus-open-world"
EXPECTATIONS = TESTS / "open_world_expectations.json"

#: the manifest's protocol names that are not unievent's
PROTOCOL_NAMES = {"bedrock": "bedrock_converse"}
#: bodies under this size are also pushed one byte at a time
BYTE_BY_BYTE_BELOW = 20_000
#: where the manifest's notes give the expectations of the choices other than 0
OTHER_CHOICES = "(expected.* describes index 0 only): "


def _entries() -> list[dict[str, Any]]:
    manifest = CORPUS / "manifest.json"
    if not manifest.is_file():
        return []
    entries: list[dict[str, Any]] = json.loads(manifest.read_text())
    return entries


ENTRIES = _entries()
pytestmark = pytest.mark.skipif(not ENTRIES, reason="../shared/corpus-open-world is not here")


def _protocol(entry: dict[str, Any]) -> str | None:
    """unievent's name for the entry's protocol, or None when unievent does not read it."""
    name = PROTOCOL_NAMES.get(entry["protocol"], entry["protocol"])
    return name if name in unievent.PROTOCOLS else None


READ = [e for e in ENTRIES if _protocol(e) is not None]
UNREAD = [e for e in ENTRIES if _protocol(e) is None]


def _ids(entries: list[dict[str, Any]]) -> list[str]:
    return [e["file"] for e in entries]


def _listed() -> dict[str, dict[str, dict[str, Any]]]:
    """The listed differences: stream -> field -> {unievent, manifest, why}."""
    listed: dict[str, dict[str, dict[str, Any]]] = {}
    for row in json.loads(EXPECTATIONS.read_text()):
        fields = listed.setdefault(row["stream"], {})
        assert row["field"] not in fields, f"{row['stream']}: {row['field']} is listed twice"
        assert row["why"].strip(), f"{row['stream']}: {row['field']} says not why"
        fields[row["field"]] = row
    return listed


# --- decoding ----------------------------------------------------------------------------


def _decode(entry: dict[str, Any], pieces: list[bytes] | None = None, choice: int = 0) -> tuple[list[Event], Outcome]:
    """All events and the outcome of the entry's body (whole, or in the given pieces),
    the events checked against the grammar."""
    data = (CORPUS / entry["file"]).read_bytes()
    protocol = cast(ProtocolName, _protocol(entry) or "auto")
    decoder = unievent.StreamDecoder(
        protocol,
        stream_id="open-world",
        clock=lambda: 0,
        content_type=entry.get("recorded_content_type"),
        choice=choice,
    )
    events: list[Event] = []
    for piece in [data] if pieces is None else pieces:
        events += decoder.push(piece)
    last, outcome = decoder.finish()
    events += last
    unievent.validate(events, partial=outcome.end != "complete")
    return events, outcome


def _random_pieces(data: bytes, seed: str) -> list[bytes]:
    rng = random.Random(seed)
    cuts = sorted(rng.sample(range(1, len(data)), min(len(data) - 1, rng.randint(1, 64))))
    return [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]


# --- the manifest's expectations, in unievent's terms ----------------------------------------


def _count(raw: dict[str, Any], *path: str) -> int | None:
    value: Any = raw
    for key in path:
        value = value.get(key) if isinstance(value, dict) else None
    return value if type(value) is int else None


def _usage(prompt: int | None, cached: int | None, thoughts: int | None, response: int | None) -> dict[str, int | None]:
    return {"cached_tokens": cached, "prompt_tokens": prompt, "thoughts_tokens": thoughts, "response_tokens": response}


def _chat_usage(raw: dict[str, Any]) -> dict[str, int | None]:
    """Chat Completions (and Groq's `x_groq.usage`): `completion_tokens` holds the
    reasoning tokens, as OpenAI counts, unless the total says it does not (xAI, some
    gateways: total = prompt + completion + reasoning) or that would leave less than
    nothing; only `prompt_tokens_details.cached_tokens` counts as cached."""
    prompt, completion, total = (
        _count(raw, "prompt_tokens"),
        _count(raw, "completion_tokens"),
        _count(raw, "total_tokens"),
    )
    cached = _count(raw, "prompt_tokens_details", "cached_tokens")
    reasoning = _count(raw, "completion_tokens_details", "reasoning_tokens")
    response = completion
    if completion is not None and reasoning:
        excluded = prompt is not None and total == prompt + completion + reasoning
        if not excluded and completion >= reasoning:
            response = completion - reasoning
    return _usage(None if prompt is None else prompt - (cached or 0), cached, reasoning, response)


def _anthropic_usage(raw: dict[str, Any]) -> dict[str, int | None]:
    """Anthropic: tokens written to the cache are prompt tokens not read from it."""
    prompt = _count(raw, "input_tokens")
    thinking = _count(raw, "output_tokens_details", "thinking_tokens")
    output = _count(raw, "output_tokens")
    return _usage(
        None if prompt is None else prompt + (_count(raw, "cache_creation_input_tokens") or 0),
        _count(raw, "cache_read_input_tokens"),
        thinking,
        None if output is None else output - (thinking or 0),
    )


def _responses_usage(raw: dict[str, Any]) -> dict[str, int | None]:
    prompt, output = _count(raw, "input_tokens"), _count(raw, "output_tokens")
    cached = _count(raw, "input_tokens_details", "cached_tokens")
    reasoning = _count(raw, "output_tokens_details", "reasoning_tokens")
    return _usage(
        None if prompt is None else prompt - (cached or 0),
        cached,
        reasoning,
        None if output is None else output - (reasoning or 0),
    )


def _gemini_usage(raw: dict[str, Any]) -> dict[str, int | None]:
    """Gemini, as MMSP's reference client reads it (toolUsePromptTokenCount is not a
    count MMSP has)."""
    prompt = _count(raw, "promptTokenCount")
    cached = _count(raw, "cachedContentTokenCount")
    return _usage(
        None if prompt is None else prompt - (cached or 0),
        cached,
        _count(raw, "thoughtsTokenCount"),
        _count(raw, "candidatesTokenCount"),
    )


def _converse_usage(raw: dict[str, Any]) -> dict[str, int | None]:
    """Bedrock's Converse counts (Nova's InvokeModel events name the cache counts
    `...TokenCount`)."""
    prompt = _count(raw, "inputTokens")
    written = _count(raw, "cacheWriteInputTokens")
    if written is None:
        written = _count(raw, "cacheWriteInputTokenCount")
    cached = _count(raw, "cacheReadInputTokens")
    if cached is None:
        cached = _count(raw, "cacheReadInputTokenCount")
    return _usage(None if prompt is None else prompt + (written or 0), cached, None, _count(raw, "outputTokens"))


def _cohere_usage(raw: dict[str, Any]) -> dict[str, int | None]:
    prompt = _count(raw, "tokens", "input_tokens")
    cached = _count(raw, "cached_tokens")
    return _usage(
        None if prompt is None else prompt - (cached or 0), cached, None, _count(raw, "tokens", "output_tokens")
    )


def _expected_usage(protocol: str, raw: dict[str, Any] | None) -> dict[str, int | None]:
    if raw is None:  # the provider reported no usage
        return _usage(None, None, None, None)
    if protocol == "openai_chat":
        return _chat_usage(raw)
    if protocol == "openai_responses":
        return _responses_usage(raw)
    if protocol == "gemini":
        return _gemini_usage(raw)
    if protocol == "cohere":
        return _cohere_usage(raw)
    if protocol == "bedrock_converse" or "inputTokens" in raw:  # Nova's events inside InvokeModel too
        return _converse_usage(raw)
    return _anthropic_usage(raw)  # Anthropic, and Claude's events inside InvokeModel


def _expected_calls(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{"name": c["name"], "arguments": json.loads(c["arguments"] or "{}")} for c in calls]


def _expected(entry: dict[str, Any], protocol: str) -> dict[str, Any]:
    """The manifest's expectations, field by field, as unievent states them."""
    expected = entry["expected"]
    fields: dict[str, Any] = {
        "end": "failed" if "error" in expected else "complete",
        "text": expected.get("text", ""),
        "thinking": expected.get("thinking", ""),
        "tool_calls": _expected_calls(expected.get("tool_calls", [])),
    }
    ids = [c["id"] for c in expected.get("tool_calls", []) if "id" in c]
    if ids:
        fields["tool_call_ids"] = ids
    if "server_tools" in expected:
        fields["server_tools"] = [s["name"] for s in expected["server_tools"]]
    if "error" in expected:
        fields["error"] = expected["error"]["message"]
    if "finish_reason" in expected:
        fields["finish_reason"] = expected["finish_reason"]
    if "usage" in expected:
        fields["usage"] = _expected_usage(protocol, expected["usage"])
    return fields


def _observed(outcome: Outcome, expected: dict[str, Any]) -> dict[str, Any]:
    """What unievent decoded, in the fields the manifest has."""
    items = outcome.message.items
    calls = [i for i in items if isinstance(i, ToolCallDone)]
    usage = outcome.usage
    fields: dict[str, Any] = {
        "end": outcome.end,
        "text": "".join(i.text for i in items if isinstance(i, TextDone)),
        "thinking": "".join(i.thinking for i in items if isinstance(i, ThinkingDone)),
        "tool_calls": [{"name": c.name, "arguments": c.arguments} for c in calls],
        "tool_call_ids": [c.tool_call_id for c in calls],
        # provider-side blocks that name their tool, as they closed
        "server_tools": [e.data["name"] for e in outcome.side_events if e.phase == "done" and "name" in e.data],
        "error": None if outcome.error is None else outcome.error.message,
        "finish_reason": outcome.native_finish_reason,
        "usage": _usage(usage.prompt_tokens, usage.cached_tokens, usage.thoughts_tokens, usage.response_tokens),
    }
    return {field: fields[field] for field in expected}


def _differences(observed: dict[str, Any], expected: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {
        field: {"unievent": observed[field], "manifest": expected[field]}
        for field in expected
        if observed[field] != expected[field]
    }


def _assert_listed(stream: str, found: dict[str, dict[str, Any]]) -> None:
    """The differences found are exactly those listed for the stream, with the same values."""
    listed = {
        field: {"unievent": row["unievent"], "manifest": row["manifest"]}
        for field, row in _listed().get(stream, {}).items()
    }
    unlisted = [{"stream": stream, "field": f, **v, "why": "?"} for f, v in found.items() if listed.get(f) != v]
    stale = [{"stream": stream, "field": f, **v} for f, v in listed.items() if found.get(f) != v]
    assert not unlisted and not stale, (
        f"differences not listed in {EXPECTATIONS.name}:\n{json.dumps(unlisted, indent=1, ensure_ascii=False)}\n"
        f"listed differences that no longer occur:\n{json.dumps(stale, indent=1, ensure_ascii=False)}"
    )


def _other_choices(entry: dict[str, Any]) -> dict[int, dict[str, Any]]:
    """The expectations the manifest's notes record for choices other than 0."""
    notes: str = entry["notes"]
    at = notes.find(OTHER_CHOICES)
    if at < 0:
        return {}
    choices, _ = json.JSONDecoder().raw_decode(notes, at + len(OTHER_CHOICES))
    return {int(index): expected for index, expected in choices.items()}


OTHER_CHOICE_CASES = [(e, index) for e in READ for index in _other_choices(e)]


# --- the tests ----------------------------------------------------------------------------


@pytest.mark.parametrize("entry", ENTRIES, ids=_ids(ENTRIES))
def test_a_recorded_stream_decodes_the_same_however_it_is_split(entry: dict[str, Any]) -> None:
    data = (CORPUS / entry["file"]).read_bytes()
    whole = _decode(entry)
    for seed in range(3):
        assert _decode(entry, _random_pieces(data, f"{entry['file']}:{seed}")) == whole, f"seed {seed}"
    if len(data) < BYTE_BY_BYTE_BELOW:
        assert _decode(entry, [data[i : i + 1] for i in range(len(data))]) == whole, "byte by byte"


@pytest.mark.parametrize("entry", READ, ids=_ids(READ))
def test_a_recorded_stream_decodes_to_what_its_manifest_records(entry: dict[str, Any]) -> None:
    protocol = _protocol(entry)
    assert protocol is not None
    _, outcome = _decode(entry)
    assert outcome.protocol == protocol
    if outcome.end == "complete":
        assert outcome.finish_reason is not None
    if outcome.end == "failed":
        assert outcome.error is not None
    expected = _expected(entry, protocol)
    _assert_listed(entry["file"], _differences(_observed(outcome, expected), expected))


@pytest.mark.parametrize(
    ("entry", "index"), OTHER_CHOICE_CASES, ids=[f"{e['file']}:choice{i}" for e, i in OTHER_CHOICE_CASES]
)
def test_each_other_choice_decodes_on_its_own_to_what_the_notes_record(entry: dict[str, Any], index: int) -> None:
    _, outcome = _decode(entry, choice=index)
    assert outcome.end == "complete"
    recorded = _other_choices(entry)[index]
    expected: dict[str, Any] = {
        "text": recorded.get("text", ""),
        "tool_calls": _expected_calls(recorded.get("tool_calls", [])),
        "finish_reason": recorded["finish_reason"],
    }
    found = _differences(_observed(outcome, expected), expected)
    _assert_listed(f"{entry['file']}:choice{index}", found)


@pytest.mark.parametrize("entry", UNREAD, ids=_ids(UNREAD))
def test_a_stream_of_a_protocol_unievent_does_not_read_is_refused(entry: dict[str, Any]) -> None:
    """Never `complete`, never text made up: the end is one of unievent's typed errors
    (the manifest's `complete` is listed as the difference, with the reason)."""
    _, outcome = _decode(entry)
    assert outcome.end != "complete"
    assert not outcome.message.items
    with pytest.raises(unievent.StreamEndError) as raised:
        outcome.raise_for_end()
    assert raised.value.outcome is outcome
    expected = {"end": "failed" if "error" in entry["expected"] else "complete"}
    _assert_listed(entry["file"], _differences({"end": outcome.end}, expected))


def test_every_listed_difference_names_a_recorded_stream() -> None:
    streams = set(_ids(READ)) | set(_ids(UNREAD)) | {f"{e['file']}:choice{i}" for e, i in OTHER_CHOICE_CASES}
    assert set(_listed()) <= streams
