"""Events nobody has seen yet never cost an answer.

Providers add event types all the time.  Hypothesis inserts a plausible one (a new
`type` string naming an earlier, the current or a later item by its index or id, or
naming none) anywhere in each protocol's suite stream and in every recorded stream of
../shared/corpus/ and ../shared/corpus-open-world/ (when present), for every protocol
whose events are typed and name their items: the text, thinking and tool calls that
arrived are unchanged, and so is the end.
"""

from __future__ import annotations

from typing import Any

import orjson
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import unievent
from tests import fuzzing
from unievent._decoder import StreamDecoder as RuntimeStreamDecoder  # takes any protocol name

#: protocols whose frames carry a type naming the event: the key of that type, the key
#: that names an item, and a type nobody has seen yet
NAMED = {
    "anthropic": ("type", "index", "future_block_event"),
    "openai_responses": ("type", "output_index", "response.future_tool_call.progress"),
    "cohere": ("type", "index", "future-event"),
    "gemini_interactions": ("event_type", "index", "step.future_event"),
    "bedrock_converse": (":event-type", "contentBlockIndex", "futureEvent"),  # the frame's header
}
SEEDS = [
    seed
    for seed in fuzzing.suite_seeds() + fuzzing.corpus_seeds() + fuzzing.open_world_seeds()
    if seed[0] in NAMED
]


def decode(protocol: str, body: bytes) -> unievent.Outcome:
    decoder = RuntimeStreamDecoder(protocol, stream_id="s", clock=lambda: 0)
    decoder.push(body)
    return decoder.finish()[1]


def answer(outcome: unievent.Outcome) -> tuple[Any, ...]:
    """What the stream said: its items (text, thinking, tool calls) and its end."""
    return outcome.message.items, outcome.end, outcome.finish_reason


def new_event(protocol: str, where: int | None, item_id: str | None) -> bytes:
    type_key, key, kind = NAMED[protocol]
    obj: dict[str, Any] = {"note": "an event this decoder has never seen"}
    if where is not None:
        obj[key] = where
    if item_id is not None:
        obj["item_id"] = item_id
    if type_key == ":event-type":  # an AWS event-stream frame, its type in a header
        return fuzzing._aws(kind, obj)
    obj[type_key] = kind
    return b"event: " + kind.encode() + b"\ndata: " + orjson.dumps(obj) + b"\n\n"


@pytest.mark.parametrize("seed", SEEDS, ids=[label for _protocol, label, _body in SEEDS])
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_an_event_never_seen_changes_nothing_that_arrived(seed: fuzzing.Seed, data: st.DataObject) -> None:
    protocol, _label, body = seed
    frames = fuzzing._frames(body)
    expected = answer(decode(protocol, body))
    at = data.draw(st.integers(0, len(frames)), label="before frame")
    where = data.draw(st.one_of(st.none(), st.integers(0, 8)), label="index")
    item_id = data.draw(st.one_of(st.none(), st.sampled_from(["msg_1", "rs_1", "fc_1", "unknown_item"])), label="id")
    changed = b"".join(frames[:at]) + new_event(protocol, where, item_id) + b"".join(frames[at:])
    assert answer(decode(protocol, changed)) == expected
