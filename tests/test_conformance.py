"""The conformance cases in tests/conformance/: every JSON file is decoded here and
must give exactly the events and outcome it records (tests/conformance/README.md).

This runner reads only the JSON files; it is also the reference for running the
cases elsewhere.  The files themselves are generated from tests/conformance/build.py,
and the last test checks that they are up to date with it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import unievent
from unievent import SideEvent, StreamDecoder

CASES = Path(__file__).resolve().parent / "conformance"
FILES = sorted(CASES.glob("*__*.json"))
OPTIONS = {"stream_id", "strict_arguments", "side_events", "max_frame", "max_retained"}
KEYS = {"name", "rule", "protocol", "options", "encoding", "chunks", "expected"}


def load(path: Path) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(path.read_bytes())
    return doc


def as_json(value: Any) -> Any:
    """What `value` reads back as from a JSON file (tuples become lists, ...)."""
    return json.loads(json.dumps(value))


def side(event: SideEvent) -> dict[str, Any]:
    return {"protocol": event.protocol, "kind": event.kind, "phase": event.phase, "item_id": event.item_id, "data": event.data}


def kept(value: Any) -> Any:
    try:
        return as_json(value)
    except (TypeError, ValueError):
        return {"unserializable": type(value).__name__}


def run(case: dict[str, Any]) -> dict[str, Any]:
    """Decode a case's chunks with its options (clock 0) as the README says."""
    decoder = StreamDecoder(case["protocol"], clock=lambda: 0, **case["options"])
    events: list[Any] = []
    raises = None
    for text in case["chunks"]:
        try:
            events += decoder.push(text.encode(case["encoding"]))
        except unievent.UniEventError as error:
            raises = type(error).__name__
            events += getattr(error, "events", [])
            break  # no chunk is fed after a push raised
    last, outcome = decoder.finish()
    events += last
    failure = outcome.error
    result: dict[str, Any] = as_json(
        {
            "events": [{"side_event": side(e)} if isinstance(e, SideEvent) else unievent.to_json(e) for e in events],
            "raises": raises,
            "outcome": {
                "end": outcome.end,
                "finish_reason": outcome.finish_reason,
                "native_finish_reason": outcome.native_finish_reason,
                "model": outcome.model,
                "response_id": outcome.response_id,
                "usage": unievent.to_json(outcome.usage),
                "skipped_frames": outcome.skipped_frames,
                "error": None if failure is None else {"message": failure.message, "type": failure.type, "code": failure.code},
                "anomalies": [{"kind": a.kind, "count": a.count} for a in outcome.anomalies],
                "extras": {key: kept(value) for key, value in outcome.extras.items()},
                "message": unievent.to_json(outcome.message),
                "side_events": [side(e) for e in outcome.side_events],
                "body": outcome.body,
            },
        }
    )
    return result


def test_there_are_cases_for_every_protocol() -> None:
    protocols = {load(path)["protocol"] for path in FILES}
    assert len(FILES) >= 150
    assert protocols == set(unievent.PROTOCOLS)


@pytest.mark.parametrize("path", FILES, ids=[path.stem for path in FILES])
def test_case(path: Path) -> None:
    case = load(path)
    assert set(case) == KEYS
    assert case["name"] == path.stem
    assert case["name"].startswith(case["protocol"] + "__")
    assert set(case["options"]) == OPTIONS
    assert case["encoding"] == "latin-1"
    got = run(case)
    want = case["expected"]
    assert got["raises"] == want["raises"]
    assert got["events"] == want["events"]
    for key in want["outcome"]:
        assert got["outcome"][key] == want["outcome"][key], key
    assert got == want


def test_the_case_files_are_up_to_date_with_build_py() -> None:
    done = subprocess.run(
        [sys.executable, str(CASES / "build.py"), "--check"], capture_output=True, text=True, check=False, timeout=600
    )
    assert done.returncode == 0, done.stdout + done.stderr
