"""Real recorded OpenAI-compatible streams (../shared/corpus), when present.

Each stream must decode to the text, thinking, tool calls, finish reason and usage
its manifest records, pass `validate`, and give the same result however it is split.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import orjson
import pytest

from tests.helpers import calls_of, decode, text_of, thinking_of
from unievent import Usage

CORPUS = Path(__file__).resolve().parent.parent.parent / "shared" / "corpus"


def _entries() -> list[dict[str, Any]]:
    manifest = CORPUS / "manifest.json"
    if not manifest.exists():
        return []
    entries: list[dict[str, Any]] = json.loads(manifest.read_text())
    return [e for e in entries if e["protocol"] == "openai_chat" and e["wire_format"] == "sse"]


ENTRIES = _entries()
pytestmark = pytest.mark.skipif(not ENTRIES, reason="../shared/corpus is not here")


def _expected_usage(raw: dict[str, Any]) -> Usage:
    cached = (raw.get("prompt_tokens_details") or {}).get("cached_tokens")
    reasoning = (raw.get("completion_tokens_details") or {}).get("reasoning_tokens")
    prompt = raw.get("prompt_tokens")
    completion = raw.get("completion_tokens")
    response = None if completion is None else completion - (reasoning or 0)
    if response is not None and response < 0:
        response = completion
    return Usage(cached, None if prompt is None else prompt - (cached or 0), reasoning, response)


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["file"].split("/")[-1] for e in ENTRIES])
def test_recorded_stream_decodes_as_recorded(entry: dict[str, Any]) -> None:
    data = (CORPUS / entry["file"]).read_bytes()
    expected = entry["expected"]
    _, outcome = decode(data)
    assert text_of(outcome) == (expected.get("text") or "")
    if "thinking" in expected:
        assert thinking_of(outcome) == expected["thinking"]
    if "error" in expected:
        assert outcome.end == "failed"
        assert outcome.error is not None and outcome.error.message == expected["error"]["message"]
        return
    assert outcome.end == "complete"
    calls = [(name, args) for name, _, args in calls_of(outcome)]
    assert calls == [(c["name"], orjson.loads(c["arguments"] or "{}")) for c in expected.get("tool_calls", [])]
    ids = [call_id for _, call_id, _ in calls_of(outcome)]
    assert ids == [c["id"] for c in expected.get("tool_calls", []) if "id" in c]
    if "finish_reason" in expected:
        assert outcome.native_finish_reason == expected["finish_reason"]
    if "usage" in expected:
        assert outcome.usage == _expected_usage(expected["usage"])


@pytest.mark.parametrize("entry", ENTRIES, ids=[e["file"].split("/")[-1] for e in ENTRIES])
def test_recorded_stream_is_split_invariant(entry: dict[str, Any]) -> None:
    data = (CORPUS / entry["file"]).read_bytes()
    whole = decode(data)
    rng = random.Random(entry["file"])
    for _ in range(5):
        cuts = sorted(rng.sample(range(1, len(data)), min(len(data) - 1, rng.randint(1, 40))))
        pieces = [data[a:b] for a, b in zip([0, *cuts], [*cuts, len(data)], strict=True)]
        assert decode(data, pieces=pieces) == whole
    assert decode(data, pieces=[data[i : i + 1] for i in range(len(data))]) == whole
