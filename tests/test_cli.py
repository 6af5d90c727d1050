"""The `unievent` command line: `validate` and `decode`, in process and as `python -m unievent`."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import orjson
import pytest

import unievent
from unievent import (
    DeltaEvent,
    Event,
    StopEvent,
    TextDelta,
    TextDone,
    ThinkingDelta,
    ThinkingDone,
    ToolCallDelta,
    ToolCallDone,
    Usage,
)
from unievent.__main__ import main

DECODER_ROOT = Path(__file__).resolve().parent.parent / "decoder"


def sample_bytes() -> bytes:
    return (resources.files("unievent") / "samples" / "openai_chat.sse").read_bytes()


def run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def feed_stdin(monkeypatch: pytest.MonkeyPatch, data: bytes) -> None:
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(data), encoding="utf-8"))


def parse_events(jsonl: str) -> list[Event]:
    events: list[Event] = []
    for line in jsonl.splitlines():
        decoded = unievent.from_json(orjson.loads(line))
        assert isinstance(decoded, (DeltaEvent, StopEvent))
        events.append(decoded)
    return events


def jsonl(*events: Event | None) -> str:
    """Events as JSONL; None leaves a blank line (so line numbers differ from indexes)."""
    return "".join("\n" if e is None else orjson.dumps(unievent.to_json(e)).decode() + "\n" for e in events)


def delta(item: Any) -> DeltaEvent:
    return DeltaEvent(item=item, created_at=1694502400000)


STOP = StopEvent(usage=Usage(None, 3, None, 5), finish_reason="stop", created_at=1694502400001)

CLAUDE_TURN = (
    delta(ThinkingDelta("Let me")),
    delta(ThinkingDelta(" check")),
    delta(ThinkingDone("Let me check")),
    delta(ToolCallDelta("get_weather", "", "toolu_1")),
    delta(ToolCallDelta("", '{"location": ', "")),
    delta(ToolCallDelta("", '"Paris"}', "")),
    delta(ToolCallDone("get_weather", {"location": "Paris"}, "toolu_1")),
    StopEvent(usage=Usage(0, 12, 4, 9), finish_reason="tool_call", created_at=1694502400001),
)


# --- the sample capture ----------------------------------------------------------------


def test_sample_is_real_openai_chat_wire_format() -> None:
    text = sample_bytes().decode("utf-8")
    assert text.startswith(": keep-alive\n\n")
    assert text.endswith("data: [DONE]\n\n")
    frames = [orjson.loads(line[len("data: ") :]) for line in text.splitlines() if line.startswith("data: {")]
    assert all(f["object"] == "chat.completion.chunk" for f in frames)
    deltas = [f["choices"][0]["delta"] for f in frames if f["choices"]]
    assert deltas[0]["role"] == "assistant"
    assert sum(bool(d.get("reasoning_content")) for d in deltas) >= 2
    assert sum(bool(d.get("content")) for d in deltas) >= 2
    assert sum("tool_calls" in d for d in deltas) >= 3
    assert [f["choices"][0]["finish_reason"] for f in frames if f["choices"]][-1] == "tool_calls"
    assert frames[-1]["choices"] == [] and frames[-1]["usage"]["prompt_tokens"] > 0


# --- decode ----------------------------------------------------------------------------


def test_decode_without_file_decodes_the_sample(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "decode")
    assert status == 0
    events = parse_events(out)
    assert isinstance(events[-1], StopEvent)
    assert events[-1].finish_reason == "tool_call"
    assert unievent.validate(events).stopped
    done = [e.item for e in events if isinstance(e, DeltaEvent) and e.item.type.endswith(".done")]
    assert [type(i) for i in done] == [ThinkingDone, TextDone, ToolCallDone]
    assert done[1] == TextDone("Let me check the weather in Lisbon — one moment.")
    assert isinstance(done[2], ToolCallDone)
    assert done[2].name == "get_weather"
    assert done[2].arguments == {"city": "Lisbon", "unit": "celsius"}
    # the outcome goes to stderr, never into the JSONL
    assert "outcome: complete" in err
    assert "finish reason: tool_call (native 'tool_calls')" in err
    assert "usage: prompt 20, cached 128, thoughts 22, response 35" in err
    assert "model: qwen3-32b" in err


@pytest.mark.parametrize("size", ["1", "7", "100", "65536"])
def test_decode_chunk_size_does_not_change_the_events(capsys: pytest.CaptureFixture[str], size: str) -> None:
    _, whole, _ = run(capsys, "decode")
    status, pieces, _ = run(capsys, "decode", "--chunk-size", size)
    assert status == 0

    def without_time(text: str) -> list[dict[str, Any]]:
        rows = [orjson.loads(line) for line in text.splitlines()]
        for row in rows:
            row.pop("created_at")
        return rows

    assert without_time(pieces) == without_time(whole)


def test_decode_file_and_stdin(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    body = tmp_path / "body.sse"
    body.write_bytes(sample_bytes())
    status, from_file, _ = run(capsys, "decode", str(body), "--protocol", "openai_chat")
    assert status == 0
    feed_stdin(monkeypatch, sample_bytes())
    status, from_stdin, _ = run(capsys, "decode", "-", "--chunk-size", "64")
    assert status == 0
    assert len(from_file.splitlines()) == len(from_stdin.splitlines()) == 16
    for events in (parse_events(from_file), parse_events(from_stdin)):
        stop = events[-1]
        assert isinstance(stop, StopEvent)
        assert (stop.usage, stop.finish_reason) == (Usage(128, 20, 22, 35), "tool_call")


def test_decode_truncated_body_exits_1(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = sample_bytes()
    cut = data.index(b'"arguments":"bon')  # inside the tool call
    body = tmp_path / "cut.sse"
    body.write_bytes(data[:cut])
    status, out, err = run(capsys, "decode", str(body))
    assert status == 1
    assert "outcome: truncated" in err
    events = parse_events(out)
    assert not any(isinstance(e, StopEvent) for e in events)
    assert not any(isinstance(e, DeltaEvent) and isinstance(e.item, ToolCallDone) for e in events)
    unievent.validate(events, partial=True)


def test_decode_provider_error_exits_1(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    body = tmp_path / "error.sse"
    body.write_bytes(
        b'data: {"choices":[{"index":0,"delta":{"content":"Hel"}}]}\n\n'
        b'data: {"error":{"message":"Rate limit reached","type":"rate_limit_error","code":"rate_limited"}}\n\n'
    )
    status, out, err = run(capsys, "decode", str(body))
    assert status == 1
    assert "outcome: failed" in err
    assert "error: Rate limit reached (type rate_limit_error, code rate_limited)" in err
    assert [e.item for e in parse_events(out) if isinstance(e, DeltaEvent)][-1] == TextDone("Hel")


def test_decode_html_page_is_not_an_event_stream(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    feed_stdin(monkeypatch, b"<!DOCTYPE html><html><body>502 Bad Gateway</body></html>\n")
    status, out, err = run(capsys, "decode", "-")
    assert status == 1
    assert out == ""
    assert "outcome: not_event_stream" in err
    assert "body (looks like HTML): '<!DOCTYPE html>" in err


def test_decode_pretty(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run(capsys, "decode", "--format", "pretty", "--chunk-size", "5")
    assert status == 0
    assert err == ""
    assert "\x1b[" not in out  # no colour when stdout is not a terminal
    lines = out.splitlines()
    assert lines[0] == "[thinking] The user wants the weather in Lisbon. I have a get_weather tool; I'll call it in celsius."
    assert lines[1] == "Let me check the weather in Lisbon — one moment."
    assert lines[2] == "[tool call] get_weather (call_7QvR2mXk9sLpA3)"
    assert lines[3] == '    {"city": "Lisbon", "unit": "celsius"}'
    assert "outcome: complete" in lines
    assert "  finish reason: tool_call (native 'tool_calls')" in lines
    assert "  model: qwen3-32b" in lines
    assert "  skipped frames: 0" in lines


def test_decode_pretty_truncated_tool_call(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    data = sample_bytes()
    body = tmp_path / "cut.sse"
    body.write_bytes(data[: data.index(b'"arguments":"bon')])
    status, out, _ = run(capsys, "decode", str(body), "-f", "pretty")
    assert status == 1
    assert "[tool call] get_weather (call_7QvR2mXk9sLpA3) (cut short: its arguments never completed)" in out
    assert "outcome: truncated" in out


def test_decode_side_events_flag_is_accepted(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "decode", "--side-events")
    assert status == 0
    assert all("side_event" not in orjson.loads(line) for line in out.splitlines())  # openai_chat has none


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["decode", "--protocol", "nope"], "invalid choice: 'nope'"),
        (["decode", "does/not/exist.sse"], "cannot read does/not/exist.sse"),
        (["decode", "--protocol", "anthropic"], "no sample capture is shipped for protocol 'anthropic'"),
        (["decode", "--chunk-size", "0"], "must be at least 1"),
        (["decode", "--format", "xml"], "invalid choice"),
        (["validate"], "required"),
        (["validate", "does/not/exist.jsonl"], "cannot read"),
    ],
)
def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str], argv: list[str], message: str) -> None:
    status, out, err = run(capsys, *argv)
    assert status == 2
    assert out == ""
    assert message in err


def test_help_exits_0(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run(capsys, "--help")
    assert status == 0
    assert "unievent decode" in out and "validate" in out


# --- validate --------------------------------------------------------------------------


def test_validate_ok(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "turn.jsonl"
    path.write_text(jsonl(*CLAUDE_TURN[:3], None, *CLAUDE_TURN[3:]), encoding="utf-8")
    status, out, err = run(capsys, "validate", str(path))
    assert (status, err) == (0, "")
    assert out == f"{path}: ok: 8 events, 2 groups (1 thinking, 1 tool_call), finish_reason tool_call\n"


def test_validate_decode_output(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    _, decoded, _ = run(capsys, "decode")
    path = tmp_path / "decoded.jsonl"
    path.write_text(decoded, encoding="utf-8")
    status, out, _ = run(capsys, "validate", str(path))
    assert status == 0
    assert "ok: 16 events, 3 groups (1 text, 1 thinking, 1 tool_call), finish_reason tool_call" in out


def test_validate_violation_names_its_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    # line 1 text.delta, line 2 blank, line 3 text.delta, line 4 blank,
    # line 5 tool_call.delta while the text group is still open (event index 2)
    path = tmp_path / "bad.jsonl"
    path.write_text(
        jsonl(delta(TextDelta("Hel")), None, delta(TextDelta("lo")), None, *CLAUDE_TURN[3:]),
        encoding="utf-8",
    )
    status, out, _ = run(capsys, "validate", str(path))
    assert status == 1
    assert out.startswith(f"{path}: line 5: event 2: tool_call.delta in state ")
    assert "the open text group must end with its done first" in out
    assert len(out.splitlines()) == 1  # only the first violation


def test_validate_done_mismatch_names_its_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(jsonl(delta(TextDelta("Hel")), delta(TextDone("Help")), STOP), encoding="utf-8")
    status, out, _ = run(capsys, "validate", str(path))
    assert status == 1
    assert ": line 2: event 1: text.done " in out
    assert "rule broken" in out


def test_validate_missing_stop(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "partial.jsonl"
    path.write_text(jsonl(delta(TextDelta("Hi")), delta(TextDone("Hi")), None), encoding="utf-8")
    status, out, _ = run(capsys, "validate", str(path))
    assert status == 1
    assert "end of input (after line 2): event 2: end of stream" in out
    status, out, _ = run(capsys, "validate", "--partial", str(path))
    assert status == 0
    assert out.endswith("ok: 2 events, 1 group (1 text), no stop event (partial)\n")


def test_validate_nothing_after_stop(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "after.jsonl"
    path.write_text(jsonl(STOP, delta(TextDelta("late"))), encoding="utf-8")
    status, out, _ = run(capsys, "validate", str(path))
    assert status == 1
    assert ": line 2: event 1: text.delta" in out and "nothing may follow the stop event" in out


def test_validate_bad_json_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "broken.jsonl"
    path.write_text(jsonl(delta(TextDelta("Hi")), None) + '{"role": "assistant", \n' + jsonl(STOP), encoding="utf-8")
    status, out, _ = run(capsys, "validate", str(path))
    assert status == 1
    assert out.startswith(f"{path}: line 3: invalid JSON: ")


def test_validate_bad_shape_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    row = unievent.to_json(delta(TextDelta("Hi")))
    del row["created_at"]
    path = tmp_path / "shape.jsonl"
    path.write_text(jsonl(delta(TextDelta("Hi"))) + orjson.dumps(row).decode() + "\n", encoding="utf-8")
    status, out, _ = run(capsys, "validate", str(path))
    assert status == 1
    assert out.startswith(f"{path}: line 2: not a UniEvent: ")
    assert "created_at" in out


def test_validate_rejects_a_non_event_line(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    path = tmp_path / "item.jsonl"
    path.write_text('{"type": "text.done", "text": "Hi"}\n', encoding="utf-8")
    status, out, _ = run(capsys, "validate", str(path))
    assert status == 1
    assert "line 1: not a UniEvent: expected an event (event_type), got a TextDone" in out


def test_validate_stdin_and_side_event_lines(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    side = '{"side_event": {"protocol": "anthropic", "kind": "server_tool_use", "phase": "start"}}\n'
    feed_stdin(monkeypatch, (jsonl(delta(TextDelta("Hi"))) + side + jsonl(delta(TextDone("Hi")), STOP)).encode())
    status, out, _ = run(capsys, "validate", "-")
    assert status == 0
    assert out == "<stdin>: ok: 3 events, 1 group (1 text), finish_reason stop\n"


def test_validate_empty_input(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    feed_stdin(monkeypatch, b"\n\n")
    status, out, _ = run(capsys, "validate", "-")
    assert status == 1
    assert "the stream ended without a stop event" in out


# --- as a program ----------------------------------------------------------------------


def test_python_m_unievent_decode_then_validate() -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [str(DECODER_ROOT), os.environ.get("PYTHONPATH")]))}
    env.pop("NO_COLOR", None)
    decode = subprocess.run(
        [sys.executable, "-m", "unievent", "decode"], capture_output=True, env=env, timeout=60, check=False
    )
    assert decode.returncode == 0, decode.stderr
    lines = decode.stdout.decode("utf-8").splitlines()
    assert len(lines) == 16
    assert orjson.loads(lines[-1])["event_type"] == "stop"
    assert b"outcome: complete" in decode.stderr

    validate = subprocess.run(
        [sys.executable, "-m", "unievent", "validate", "-"],
        input=decode.stdout,
        capture_output=True,
        env=env,
        timeout=60,
        check=False,
    )
    assert validate.returncode == 0, validate.stdout
    assert validate.stdout.decode().startswith("<stdin>: ok: 16 events")


def test_unievent_alone_prints_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    assert main([]) == 0
    assert "usage: unievent" in capsys.readouterr().out


def test_protocol_lists_its_choices(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["decode", "--help"]) == 0
    assert "auto, openai_chat, anthropic" in " ".join(capsys.readouterr().out.split())


def test_format_text_prints_only_the_text(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["decode", "--format", "text"]) == 0
    assert capsys.readouterr().out == "Let me check the weather in Lisbon — one moment.\n"


def test_format_outcome_prints_the_outcome_as_json(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["decode", "--format", "outcome"]) == 0
    outcome = orjson.loads(capsys.readouterr().out)
    assert (outcome["end"], outcome["protocol"], outcome["finish_reason"]) == ("complete", "openai_chat", "tool_call")
    assert outcome["usage"] == {"cached_tokens": 128, "prompt_tokens": 20, "thoughts_tokens": 22, "response_tokens": 35}
    assert outcome["detected_by"] == "frame 1: object chat.completion.chunk"


def test_a_body_of_no_protocol_says_so(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = tmp_path / "body"
    body.write_bytes(b'data: {"hello": 1}\n\n')
    assert main(["decode", str(body)]) == 1
    assert "protocol: auto (no frame said which protocol it is)" in capsys.readouterr().err


def test_transcode_writes_another_protocols_wire(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    body = tmp_path / "body.sse"
    body.write_bytes(sample_bytes())
    out = tmp_path / "out.sse"
    done = subprocess.run(
        [sys.executable, "-m", "unievent", "transcode", str(body), "--from", "auto", "--to", "anthropic"],
        capture_output=True, check=True, timeout=60,
    )
    out.write_bytes(done.stdout)
    assert done.stdout.startswith(b"event: message_start\n")
    events = list(unievent.iter_events([done.stdout], "anthropic"))
    assert "".join(e.item.text for e in events if isinstance(e, DeltaEvent) and isinstance(e.item, TextDelta)) == (
        "Let me check the weather in Lisbon — one moment."
    )


def test_decode_choice_picks_one_of_n_choices(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    body = tmp_path / "n2.sse"
    both = [{"index": 0, "delta": {"content": "a"}}, {"index": 1, "delta": {"content": "b"}}]
    body.write_bytes(
        b"data: " + json.dumps({"choices": both}).encode() + b"\n\n"
        b'data: {"choices":[{"index":0,"delta":{},"finish_reason":"stop"},{"index":1,"delta":{},"finish_reason":"stop"}]}\n\n'
        b"data: [DONE]\n\n"
    )
    for choice, text in (("0", "a"), ("1", "b")):
        status, out, _err = run(capsys, "decode", str(body), "-p", "openai_chat", "--choice", choice, "-f", "text")
        assert status == 0 and out.strip() == text
    status, _out, err = run(capsys, "decode", str(body), "--choice", "-1")
    assert status == 2 and "choice" in err
