"""Embedding responses decoded by StreamDecoder("openai_embeddings") and ("gemini_embeddings").

Neither is streamed: the whole JSON body arrives, split however the network split it.
Each vector becomes one `embedding.delta` then its `embedding.done`, in order, then the
stop.  Each test states one rule with a body in the provider's real format; every body
is decoded whole, cut everywhere and byte by byte, and what comes out passes `validate`.
"""

from __future__ import annotations

import base64
import json
import random
import struct
from array import array
from typing import Any

import pytest

import unievent
from tests.helpers import decode_stream, split_at, split_everywhere
from unievent import DeltaEvent, EmbeddingDelta, EmbeddingDone, Outcome, StopEvent, Usage


def run(protocol: str, body: bytes | list[bytes], **options: Any) -> tuple[list[Any], Outcome]:
    return decode_stream(protocol, body, **options)


def every_split(protocol: str, body: bytes) -> tuple[list[Any], Outcome]:
    return split_everywhere(protocol, body)


def vectors_of(outcome: Outcome) -> list[list[float]]:
    return [item.embedding for item in outcome.message.items if isinstance(item, EmbeddingDone)]


def float32_base64(values: list[float]) -> str:
    return base64.b64encode(struct.pack(f"<{len(values)}f", *values)).decode()


def openai_body(*embeddings: Any, usage: dict[str, Any] | None = None, indexes: list[int] | None = None) -> bytes:
    """An OpenAI `/v1/embeddings` response, as the API writes it."""
    data = [
        {"object": "embedding", "index": i if indexes is None else indexes[i], "embedding": e} for i, e in enumerate(embeddings)
    ]
    body: dict[str, Any] = {"object": "list", "data": data, "model": "text-embedding-3-small"}
    body["usage"] = {"prompt_tokens": 8, "total_tokens": 8} if usage is None else usage
    return json.dumps(body, indent=2).encode()


# --- openai_embeddings --------------------------------------------------------------


def test_each_vector_is_one_delta_then_its_done_then_the_stop() -> None:
    events, outcome = every_split("openai_embeddings", openai_body([0.25, -1], [3.5]))
    assert events == [
        DeltaEvent(EmbeddingDelta([0.25, -1.0]), 0),
        DeltaEvent(EmbeddingDone([0.25, -1.0]), 0),
        DeltaEvent(EmbeddingDelta([3.5]), 0),
        DeltaEvent(EmbeddingDone([3.5]), 0),
        StopEvent(Usage(prompt_tokens=8), "stop", 0),
    ]
    assert outcome.end == "complete"
    assert outcome.model == "text-embedding-3-small"
    assert outcome.finish_reason == "stop"


def test_integers_in_a_vector_become_floats() -> None:
    _, outcome = run("openai_embeddings", openai_body([1, 0, -2]))
    [vector] = vectors_of(outcome)
    assert vector == [1.0, 0.0, -2.0]
    assert all(type(x) is float for x in vector)


def test_base64_vectors_are_little_endian_float32_decoded_exactly() -> None:
    values = [0.1, -0.0, 1e-38, 3.4e38, -123.456, 2.0**-149]
    exact = list(struct.unpack("<6f", struct.pack("<6f", *values)))  # what float32 holds
    _, outcome = every_split("openai_embeddings", openai_body(float32_base64(values)))
    assert vectors_of(outcome) == [exact]
    assert [struct.pack("<f", x) for x in vectors_of(outcome)[0]] == [struct.pack("<f", x) for x in values]


def test_base64_and_float_vectors_may_share_a_body() -> None:
    _, outcome = run("openai_embeddings", openai_body(float32_base64([0.5]), [0.5]))
    assert vectors_of(outcome) == [[0.5], [0.5]]


def test_items_come_in_index_order_whatever_the_order_of_data() -> None:
    body = openai_body([2.0], [0.0], [1.0], indexes=[2, 0, 1])
    _, outcome = every_split("openai_embeddings", body)
    assert vectors_of(outcome) == [[0.0], [1.0], [2.0]]


def test_an_empty_vector_is_still_an_item() -> None:
    events, outcome = every_split("openai_embeddings", openai_body([], float32_base64([])))
    assert vectors_of(outcome) == [[], []]
    assert [type(e.item) for e in events if isinstance(e, DeltaEvent)] == [EmbeddingDelta, EmbeddingDone] * 2


def test_an_empty_data_list_is_a_complete_answer_with_no_items() -> None:
    events, outcome = run("openai_embeddings", openai_body())
    assert outcome.end == "complete"
    assert events == [StopEvent(Usage(prompt_tokens=8), "stop", 0)]


@pytest.mark.parametrize(
    ("usage", "prompt_tokens"),
    [
        ({"prompt_tokens": 8, "total_tokens": 8}, 8),
        ({"total_tokens": 8}, None),  # a total is not a prompt count
        (None, 8),
        ({}, None),
    ],
)
def test_prompt_tokens_are_usage_prompt_tokens_or_null(usage: dict[str, Any] | None, prompt_tokens: int | None) -> None:
    body = openai_body([1.0], usage=usage) if usage is not None else openai_body([1.0])
    _, outcome = run("openai_embeddings", body)
    assert outcome.usage == Usage(prompt_tokens=prompt_tokens)


def test_a_body_without_usage_has_null_counts() -> None:
    body = json.dumps({"object": "list", "data": [{"index": 0, "embedding": [1]}], "model": "m"}).encode()
    _, outcome = run("openai_embeddings", body)
    assert outcome.usage == Usage()
    assert outcome.end == "complete"


def test_an_error_body_fails_with_its_type_and_code() -> None:
    body = b'{"error": {"message": "Invalid model", "type": "invalid_request_error", "param": "model", "code": "model_not_found"}}'
    events, outcome = every_split("openai_embeddings", body)
    assert events == []
    assert outcome.end == "failed"
    assert outcome.error is not None
    assert (outcome.error.message, outcome.error.type, outcome.error.code) == ("Invalid model", "invalid_request_error", "model_not_found")


@pytest.mark.parametrize(
    ("embedding", "says"),
    [
        (["a", "b"], "data[0].embedding is a list that is not all numbers"),
        ("not base64!", "data[0].embedding is a string that is not base64"),
        ("AAAAAA==é", "data[0].embedding is a string that is not base64"),
        (base64.b64encode(b"\x00\x00\x80").decode(), "base64 of 3 bytes, not a whole number of float32"),
        ({"values": [1]}, "data[0].embedding is a dict, not a list of numbers"),
        (None, "data[0].embedding is a NoneType"),
    ],
)
def test_a_vector_that_cannot_be_read_fails_saying_what_it_is(embedding: Any, says: str) -> None:
    _, outcome = run("openai_embeddings", openai_body(embedding))
    assert outcome.end == "failed"
    assert outcome.error is not None
    assert outcome.error.type == "protocol_error"
    assert outcome.error.message.startswith("openai_embeddings: ")
    assert says in outcome.error.message


def test_a_cut_body_is_truncated() -> None:
    body = openai_body([0.5, 0.25], [1.0])
    for cut in range(1, len(body) - 1):
        events, outcome = run("openai_embeddings", body[:cut])
        assert outcome.end == "truncated", cut
        assert events == []  # half a vector is no vector


def test_a_body_that_is_not_json_is_not_an_event_stream_and_kept() -> None:
    body = b"<html><body>502 Bad Gateway</body></html>"
    _, outcome = run("openai_embeddings", body)
    assert outcome.end == "not_event_stream"
    assert outcome.body == body.decode()


def test_json_that_is_broken_not_cut_is_not_an_event_stream() -> None:
    _, outcome = run("openai_embeddings", b'{"data": [1,, 2]}')
    assert outcome.end == "not_event_stream"


def test_a_chat_body_given_as_embeddings_names_what_it_looks_like() -> None:
    body = json.dumps({"id": "c", "object": "chat.completion.chunk", "choices": [{"index": 0, "delta": {"content": "hi"}}]})
    _, outcome = run("openai_embeddings", body.encode())
    assert outcome.end == "failed"
    assert outcome.error is not None
    assert outcome.error.type == "wrong_protocol"
    assert outcome.error.message == "openai_embeddings: the body looks like openai_chat, not openai_embeddings"


def test_a_body_of_no_known_protocol_names_its_keys() -> None:
    _, outcome = run("openai_embeddings", b'{"hello": "world"}')
    assert outcome.end == "failed"
    assert outcome.error is not None
    assert outcome.error.message == "openai_embeddings: the body is no openai_embeddings response (keys: hello)"


def test_a_body_larger_than_max_frame_raises_a_frame_error() -> None:
    body = openai_body([0.5] * 100)
    with pytest.raises(unievent.FrameTooLargeError):
        run("openai_embeddings", body, max_frame=64)


def test_a_body_just_within_max_frame_decodes() -> None:
    body = openai_body([0.5] * 100)
    _, outcome = run("openai_embeddings", body, max_frame=len(body))
    assert outcome.end == "complete"


def test_a_utf8_bom_before_the_body_is_dropped() -> None:
    _, outcome = every_split("openai_embeddings", b"\xef\xbb\xbf" + openai_body([1.0]))
    assert vectors_of(outcome) == [[1.0]]


def test_a_large_base64_body_is_the_same_in_random_pieces() -> None:
    rng = random.Random(1536)
    values = [rng.uniform(-1, 1) for _ in range(1536)]
    body = openai_body(float32_base64(values), values)
    whole = run("openai_embeddings", body)
    for _ in range(30):
        cuts = sorted(rng.sample(range(1, len(body)), rng.randint(1, 40)))
        assert run("openai_embeddings", split_at(body, cuts)) == whole
    exact = array("f", values).tolist()
    assert vectors_of(whole[1]) == [exact, values]


def test_a_vector_costs_no_more_than_its_list_of_floats() -> None:
    values = [0.001 * i for i in range(1536)]
    events, outcome = run("openai_embeddings", openai_body(float32_base64(values)))
    delta, done = (e.item for e in events if isinstance(e, DeltaEvent))
    assert isinstance(delta, EmbeddingDelta) and isinstance(done, EmbeddingDone)
    assert delta.embedding is done.embedding is vectors_of(outcome)[0]  # one list, shared
    floats = done.embedding
    assert type(floats) is list and all(type(x) is float for x in floats)  # no array or bytes kept beside


# --- gemini_embeddings --------------------------------------------------------------


def gemini_one(values: list[float], usage: bool = False) -> bytes:
    body: dict[str, Any] = {"embedding": {"values": values}}
    if usage:
        body["usageMetadata"] = {"promptTokenCount": 4, "totalTokenCount": 4}
    return json.dumps(body, indent=2).encode()


def gemini_batch(*vectors: list[float]) -> bytes:
    return json.dumps({"embeddings": [{"values": v} for v in vectors]}, indent=2).encode()


def test_embed_content_is_one_item() -> None:
    events, outcome = every_split("gemini_embeddings", gemini_one([0.013, -0.008]))
    assert events == [
        DeltaEvent(EmbeddingDelta([0.013, -0.008]), 0),
        DeltaEvent(EmbeddingDone([0.013, -0.008]), 0),
        StopEvent(Usage(), "stop", 0),
    ]
    assert outcome.end == "complete"


def test_batch_embed_contents_is_one_item_per_embedding_in_order() -> None:
    _, outcome = every_split("gemini_embeddings", gemini_batch([1.0], [], [2, 3]))
    assert vectors_of(outcome) == [[1.0], [], [2.0, 3.0]]


def test_gemini_usage_comes_from_usage_metadata_when_present() -> None:
    _, outcome = run("gemini_embeddings", gemini_one([1.0], usage=True))
    assert outcome.usage == Usage(prompt_tokens=4)


def test_a_gemini_error_body_fails_with_its_status() -> None:
    body = b'{"error": {"code": 400, "message": "API key not valid.", "status": "INVALID_ARGUMENT"}}'
    _, outcome = every_split("gemini_embeddings", body)
    assert outcome.end == "failed"
    assert outcome.error is not None
    assert (outcome.error.message, outcome.error.type, outcome.error.code) == ("API key not valid.", "INVALID_ARGUMENT", 400)


def test_gemini_values_that_are_not_numbers_fail() -> None:
    _, outcome = run("gemini_embeddings", b'{"embeddings": [{"values": [1]}, {"values": "AAAA"}]}')
    assert outcome.end == "failed"
    assert outcome.error is not None
    assert "embeddings[1].values is a str, not a list of numbers" in outcome.error.message


def test_an_openai_body_given_as_gemini_names_what_it_looks_like() -> None:
    _, outcome = run("gemini_embeddings", openai_body([1.0]))
    assert outcome.error is not None
    assert outcome.error.message == "gemini_embeddings: the body looks like openai_embeddings, not gemini_embeddings"


def test_a_cut_gemini_body_is_truncated() -> None:
    body = gemini_batch([1.0, 2.0])
    for cut in range(1, len(body) - 1):
        assert run("gemini_embeddings", body[:cut])[1].end == "truncated", cut
