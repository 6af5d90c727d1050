# The `unievent` command line: `validate` checks a JSONL UniEvent stream, `decode`
# turns a raw provider response body into UniEvents (and, with no file, decodes the
# sample capture shipped in the package).  Standard library and the public API only.
from __future__ import annotations

import argparse
import io
import json
import os
import sys
from collections.abc import Iterator, Sequence
from importlib import resources
from importlib.metadata import PackageNotFoundError, version
from typing import IO, Any

import orjson

import unievent
from unievent import (
    DeltaEvent,
    Event,
    GrammarError,
    Outcome,
    SideEvent,
    StopEvent,
    StreamDecoder,
    TextDelta,
    TextDone,
    ThinkingDelta,
    ThinkingDone,
    ToolCallDelta,
    ToolCallDone,
    UniEventError,
    Usage,
)
from unievent._writers import WRITERS

__all__ = ["build_parser", "main"]

DEFAULT_PROTOCOL = "auto"
SAMPLE_FOR_AUTO = "openai_chat"  # the capture `decode` shows when given no FILE and no protocol
DEFAULT_CHUNK_SIZE = 4096

_DESCRIPTION = """\
unievent: LLM provider streaming bytes in, MMSP UniEvents and an honest outcome out.

  unievent decode                      decode the sample capture shipped in the package
  unievent decode body.sse             decode a saved response body (SSE bytes)
  curl -N ... | unievent decode -      decode a live response from stdin
  unievent decode body.sse | unievent validate -
                                       check the decoder's output against the grammar
"""

_DECODE_EPILOG = """\
exit status: 0 when the stream is complete; 1 when it is not (truncated, failed,
not an event stream, cancelled) or the input could not be decoded; 2 on usage errors.
In jsonl mode events go to stdout, one MMSP JSON object a line, and the outcome
summary goes to stderr.
"""

_VALIDATE_EPILOG = """\
exit status: 0 when the stream follows the UniEvent grammar (a one-line summary is
printed); 1 at the first violation, bad JSON line or non-event line (printed with its
line number); 2 on usage errors.  Blank lines and `{"side_event": ...}` lines (from
`unievent decode --side-events`) are skipped.
"""


class _UsageError(Exception):
    """A bad command line discovered after parsing (exit status 2)."""

    def __init__(self, prog: str, message: str) -> None:
        super().__init__(message)
        self.prog = prog
        self.message = message


# --- entry point -----------------------------------------------------------------------


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line with `argv` (default: ``sys.argv[1:]``); return the exit status."""
    parser = build_parser()
    arguments = sys.argv[1:] if argv is None else list(argv)
    if not arguments:  # `unievent` alone: what it can do
        parser.print_help()
        return 0
    try:
        args = parser.parse_args(arguments)
    except SystemExit as exc:  # --help (0) or a usage error (2)
        return exc.code if isinstance(exc.code, int) else (0 if exc.code is None else 2)
    try:
        status: int = args.run(args)
    except _UsageError as exc:
        print(f"{exc.prog}: error: {exc.message}", file=sys.stderr)
        return 2
    except BrokenPipeError:  # `unievent decode | head`: stop quietly
        _silence_stdout()
        return 1
    return status


def build_parser() -> argparse.ArgumentParser:
    """The argparse parser of the `unievent` command."""
    parser = argparse.ArgumentParser(
        prog="unievent",
        description=_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {_version()}")
    commands = parser.add_subparsers(dest="command", metavar="COMMAND", required=True)

    validate = commands.add_parser(
        "validate",
        help="check a JSONL UniEvent stream against the grammar",
        description="Check a JSONL UniEvent stream (one MMSP event JSON object a line) against the UniEvent grammar.",
        epilog=_VALIDATE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    validate.add_argument("file", metavar="FILE", help="the JSONL file, or - for stdin")
    validate.add_argument(
        "--partial",
        action="store_true",
        help="accept a stream that ended early (no stop event): truncated, failed or cancelled",
    )
    validate.set_defaults(run=_run_validate)

    decode = commands.add_parser(
        "decode",
        help="decode a raw provider response body into UniEvents",
        description=(
            "Decode a raw provider response body (the streamed HTTP body, e.g. SSE) into MMSP UniEvents, "
            "feeding the decoder piece by piece as a network client would."
        ),
        epilog=_DECODE_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    decode.add_argument(
        "file",
        metavar="FILE",
        nargs="?",
        help="the response body, or - for stdin (default: the sample shipped for --protocol; auto: openai_chat's)",
    )
    decode.add_argument(
        "--protocol",
        "-p",
        default=DEFAULT_PROTOCOL,
        choices=("auto", *unievent.PROTOCOLS),
        metavar="P",
        help=f"the provider wire protocol, or auto to find it (default: {DEFAULT_PROTOCOL}); "
        f"one of: {', '.join(('auto', *unievent.PROTOCOLS))}",
    )
    decode.add_argument(
        "--url",
        metavar="URL",
        help="the request's URL: with --protocol auto its path names the protocol",
    )
    decode.add_argument(
        "--content-type",
        metavar="TYPE",
        help="the response's Content-Type: it names the framing (e.g. application/json)",
    )
    decode.add_argument(
        "--format",
        "-f",
        choices=("jsonl", "pretty", "text", "outcome"),
        default="jsonl",
        help="jsonl: one MMSP event JSON a line (default); pretty: a human view; "
        "text: only the text as it streams; outcome: the outcome as one JSON object",
    )
    decode.add_argument(
        "--side-events",
        action="store_true",
        help='also print provider-side activity (jsonl: {"side_event": {...}} lines)',
    )
    decode.add_argument(
        "--choice",
        type=int,
        default=0,
        metavar="N",
        help="with n > 1 Chat Completions choices: decode the choice of index N (default: 0)",
    )
    decode.add_argument(
        "--chunk-size",
        type=_positive_int,
        default=DEFAULT_CHUNK_SIZE,
        metavar="N",
        help=f"feed the decoder N bytes at a time (default: {DEFAULT_CHUNK_SIZE})",
    )
    decode.set_defaults(run=_run_decode)

    transcode = commands.add_parser(
        "transcode",
        help="serve a response body in another protocol's wire format",
        description="Decode a response body as one protocol and write it as another's, as the bytes come.",
    )
    transcode.add_argument("file", metavar="FILE", help="the response body, or - for stdin")
    transcode.add_argument(
        "--from",
        dest="source",
        default="auto",
        choices=("auto", *unievent.PROTOCOLS),
        metavar="P",
        help="the body's protocol (default: auto)",
    )
    transcode.add_argument(
        "--to",
        dest="target",
        required=True,
        choices=sorted(WRITERS),
        metavar="P",
        help=f"the protocol to write: one of {', '.join(sorted(WRITERS))}",
    )
    transcode.add_argument("--model", help="the model the output names (default: the source's)")
    transcode.add_argument(
        "--response-id", dest="response_id", help="the response id the output names (default: the source's)"
    )
    transcode.add_argument(
        "--framing", choices=("sse", "json_array"), default="sse", help="gemini: SSE records or one JSON array"
    )
    transcode.set_defaults(run=_run_transcode)
    return parser


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not an integer: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, got {value}")
    return value


def _version() -> str:
    try:
        return version("unievent")
    except PackageNotFoundError:
        return "(source tree)"


def _silence_stdout() -> None:
    # Python would report the broken pipe again when it flushes stdout at exit.
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
    except (OSError, ValueError, io.UnsupportedOperation):
        pass


# --- input ---------------------------------------------------------------------------


def _stdin_bytes() -> IO[bytes]:
    buffer = getattr(sys.stdin, "buffer", None)
    if buffer is not None:
        return buffer  # type: ignore[no-any-return]
    return io.BytesIO(sys.stdin.read().encode("utf-8"))  # a text-only stand-in (tests, IDEs)


def _open_input(prog: str, path: str) -> tuple[str, IO[bytes]]:
    if path == "-":
        return "<stdin>", _stdin_bytes()
    try:
        return path, open(path, "rb")  # the caller closes it
    except OSError as exc:
        raise _UsageError(prog, f"cannot read {path}: {exc.strerror or exc}") from None


def _sample(prog: str, protocol: str) -> tuple[str, IO[bytes]]:
    name = f"{protocol}.sse"
    sample = resources.files("unievent") / "samples" / name
    if not sample.is_file():
        raise _UsageError(prog, f"no sample capture is shipped for protocol {protocol!r}; give a FILE or -")
    return f"sample {name}", io.BytesIO(sample.read_bytes())


def _pieces(stream: IO[bytes], size: int) -> Iterator[bytes]:
    # read1 returns what is available (up to `size`), so a live pipe is decoded as it
    # arrives instead of waiting for full pieces.
    read = getattr(stream, "read1", None) or stream.read
    while True:
        piece: bytes = read(size)
        if not piece:
            return
        yield piece


# --- validate ------------------------------------------------------------------------


def _run_validate(args: argparse.Namespace) -> int:
    prog = "unievent validate"
    name, stream = _open_input(prog, args.file)
    try:
        data = stream.read()
    finally:
        if args.file != "-":
            stream.close()
    out = sys.stdout

    events: list[Event] = []
    line_of: list[int] = []  # line number of each event
    last_line = 0
    for number, raw in enumerate(data.split(b"\n"), start=1):
        line = raw.strip()
        if not line:
            continue
        last_line = number
        try:
            obj = orjson.loads(line)
        except orjson.JSONDecodeError as exc:
            print(f"{name}: line {number}: invalid JSON: {exc}", file=out)
            return 1
        if isinstance(obj, dict) and len(obj) == 1 and "side_event" in obj:
            continue  # `decode --side-events` output: not part of the grammar
        try:
            decoded = unievent.from_json(obj)
        except UniEventError as exc:
            print(f"{name}: line {number}: not a UniEvent: {exc}", file=out)
            return 1
        if not isinstance(decoded, (DeltaEvent, StopEvent)):
            print(
                f"{name}: line {number}: not a UniEvent: expected an event (event_type), "
                f"got a {type(decoded).__name__}",
                file=out,
            )
            return 1
        events.append(decoded)
        line_of.append(number)

    try:
        summary = unievent.validate(events, partial=args.partial)
    except GrammarError as exc:
        where = f"line {line_of[exc.index]}" if exc.index < len(line_of) else f"end of input (after line {last_line})"
        print(f"{name}: {where}: {exc.message}", file=out)
        return 1

    groups = sum(summary.groups.values())
    kinds = ", ".join(f"{n} {kind}" for kind, n in summary.groups.items() if n)
    stop = events[-1] if events and isinstance(events[-1], StopEvent) else None
    finish = f"finish_reason {stop.finish_reason}" if stop is not None else "no stop event (partial)"
    print(
        f"{name}: ok: {summary.events} events, {groups} group{'' if groups == 1 else 's'}"
        f"{f' ({kinds})' if kinds else ''}, {finish}",
        file=out,
    )
    return 0


# --- decode --------------------------------------------------------------------------


def _run_decode(args: argparse.Namespace) -> int:
    prog = "unievent decode"
    try:
        decoder = StreamDecoder(
            args.protocol,
            side_events=args.side_events,
            content_type=args.content_type,
            url=args.url,
            choice=args.choice,
        )
    except ValueError as exc:
        raise _UsageError(prog, str(exc)) from None
    if args.file is None:
        name, stream = _sample(prog, SAMPLE_FOR_AUTO if args.protocol == "auto" else args.protocol)
    else:
        name, stream = _open_input(prog, args.file)

    out = sys.stdout
    pretty = args.format == "pretty"
    view: _Pretty | _Jsonl | _Text | _Quiet
    if pretty:
        view = _Pretty(out, _use_color(out))
    elif args.format == "text":
        view = _Text(out)
    elif args.format == "outcome":
        view = _Quiet()
    else:
        view = _Jsonl(out, args.side_events)
    try:
        try:
            for piece in _pieces(stream, args.chunk_size):
                view.show(decoder.push(piece))
            events, outcome = decoder.finish()
        except KeyboardInterrupt:
            events, outcome = [], decoder.abort()
        except UniEventError as exc:  # e.g. FrameTooLargeError
            view.close()
            print(f"{prog}: {name}: {type(exc).__name__}: {exc}", file=sys.stderr)
            return 1
    finally:
        if args.file not in (None, "-"):
            stream.close()
    view.show(events)
    view.close()

    summary = _outcome_lines(outcome)
    if args.format == "outcome":
        print(json.dumps(_outcome_json(outcome), ensure_ascii=False), file=out)
        out.flush()
    elif pretty:
        print(file=out)
        for line in summary:
            print(line, file=out)
        out.flush()
    else:
        for line in summary:
            print(line, file=sys.stderr)
    return 0 if outcome.end == "complete" else 1


def _outcome_json(outcome: Outcome) -> dict[str, Any]:
    error = outcome.error
    return {
        "end": outcome.end,
        "protocol": outcome.protocol,
        "detected_by": outcome.detected_by,
        "finish_reason": outcome.finish_reason,
        "native_finish_reason": outcome.native_finish_reason,
        "model": outcome.model,
        "response_id": outcome.response_id,
        "usage": unievent.to_json(outcome.usage),
        "skipped_frames": outcome.skipped_frames,
        "error": None if error is None else {"message": error.message, "type": error.type, "code": error.code},
        "body": outcome.body,
        "anomalies": {anomaly.kind: anomaly.count for anomaly in outcome.anomalies},
        "side_events": len(outcome.side_events),
        "message": unievent.to_json(outcome.message),
    }


class _Text:
    """Only the text, as it streams."""

    def __init__(self, out: IO[str]) -> None:
        self.out = out

    def show(self, events: Sequence[object]) -> None:
        for event in events:
            if isinstance(event, DeltaEvent) and isinstance(event.item, unievent.TextDelta):
                self.out.write(event.item.text)
        self.out.flush()

    def close(self) -> None:
        self.out.write("\n")
        self.out.flush()


class _Quiet:
    """No events (the outcome is all that is shown)."""

    def show(self, events: Sequence[object]) -> None:
        pass

    def close(self) -> None:
        pass


def _run_transcode(args: argparse.Namespace) -> int:
    prog = "unievent transcode"
    name, stream = _open_input(prog, args.file)
    out = getattr(sys.stdout, "buffer", None)
    try:
        pieces = _pieces(stream, DEFAULT_CHUNK_SIZE)
        named = {key: value for key in ("model", "response_id") if (value := getattr(args, key))}
        for data in unievent.transcode(pieces, args.source, args.target, framing=args.framing, **named):
            if out is not None:
                out.write(data)
                out.flush()
            else:
                sys.stdout.write(data.decode("utf-8", "replace"))
    except UniEventError as exc:
        print(f"{prog}: {name}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 1
    finally:
        if args.file != "-":
            stream.close()
    return 0


def _side_event_json(event: SideEvent) -> dict[str, Any]:
    return {
        "side_event": {
            "protocol": event.protocol,
            "kind": event.kind,
            "phase": event.phase,
            "item_id": event.item_id,
            "data": event.data,
            "created_at": event.created_at,
        }
    }


class _Jsonl:
    """One MMSP JSON object a line; side events as ``{"side_event": {...}}`` lines."""

    def __init__(self, out: IO[str], side_events: bool) -> None:
        self.out = out
        self.side_events = side_events

    def show(self, events: Sequence[object]) -> None:
        write = self.out.write
        for event in events:
            if isinstance(event, SideEvent):
                if self.side_events:
                    write(orjson.dumps(_side_event_json(event)).decode() + "\n")
            elif isinstance(event, (DeltaEvent, StopEvent)):
                write(orjson.dumps(unievent.to_json(event)).decode() + "\n")
        if events:
            self.out.flush()

    def close(self) -> None:
        self.out.flush()


def _use_color(stream: IO[str]) -> bool:
    if os.environ.get("NO_COLOR") or os.environ.get("TERM") == "dumb":
        return False
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty())


_DIM = "\x1b[2m"
_BOLD = "\x1b[1m"
_RESET = "\x1b[0m"
_THINKING = "[thinking] "
_TOOL_CALL = "[tool call] "


class _Pretty:
    """A human view: text streamed inline, thinking prefixed (and dimmed on a
    terminal), tool calls with their parsed arguments."""

    def __init__(self, out: IO[str], color: bool) -> None:
        self.out = out
        self.color = color
        self.open: str | None = None  # kind of the group being printed
        self.at_line_start = True

    def _write(self, text: str, style: str = "") -> None:
        if not text:
            return
        self.out.write(f"{style}{text}{_RESET}" if style and self.color else text)
        self.at_line_start = text.endswith("\n")

    def _newline(self) -> None:
        if not self.at_line_start:
            self._write("\n")

    def _end_group(self) -> None:
        self._newline()
        self.open = None

    def show(self, events: Sequence[object]) -> None:
        for event in events:
            if isinstance(event, SideEvent):
                self._newline()
                if self.open == "thinking":
                    self.open = None  # print the prefix again when thinking resumes
                item = f" {event.item_id}" if event.item_id else ""
                self._write(f"[side event] {event.kind} {event.phase}{item}\n", _DIM)
            elif isinstance(event, DeltaEvent):
                self._item(event.item)
        if events:
            self.out.flush()

    def _item(self, item: object) -> None:
        if isinstance(item, TextDelta):
            self.open = "text"
            self._write(item.text)
        elif isinstance(item, ThinkingDelta):
            if self.open != "thinking":
                self.open = "thinking"
                self._write(_THINKING, _DIM)
            self._write(item.thinking.replace("\n", "\n" + " " * len(_THINKING)), _DIM)
        elif isinstance(item, ToolCallDelta):
            if self.open != "tool_call":
                self.open = "tool_call"
                self._write(_TOOL_CALL, _BOLD)
                self._write(f"{item.name} ({item.tool_call_id})")
        elif isinstance(item, (TextDone, ThinkingDone)):
            self._end_group()
        elif isinstance(item, ToolCallDone):
            self._newline()
            self._write("    " + json.dumps(item.arguments, ensure_ascii=False) + "\n")
            self.open = None
        else:
            kind = str(getattr(item, "kind", type(item).__name__))
            if str(getattr(item, "type", "")).endswith(".done"):
                self._newline()
                self._write(f"[{kind}] {_describe_item(item)}\n", _DIM)
                self.open = None
            else:
                self.open = kind

    def close(self) -> None:
        if self.open == "tool_call":
            self._write(" (cut short: its arguments never completed)", _DIM)
        self._end_group()
        self.out.flush()


def _describe_item(item: object) -> str:
    data = getattr(item, "data", None)
    if isinstance(data, bytes):
        return f"{getattr(item, 'mime_type', '?')}, {len(data)} bytes"
    embedding = getattr(item, "embedding", None)
    if isinstance(embedding, list):
        return f"{len(embedding)} values"
    return repr(item)


def _outcome_lines(outcome: Outcome) -> list[str]:
    lines = [f"outcome: {outcome.end}"]
    detected = f" (auto: {outcome.detected_by})" if outcome.detected_by else ""
    if outcome.protocol == "auto":
        detected = " (no frame said which protocol it is)"
    lines.append(f"  protocol: {outcome.protocol}{detected}")
    if outcome.finish_reason is not None or outcome.native_finish_reason is not None:
        native = f" (native {outcome.native_finish_reason!r})" if outcome.native_finish_reason is not None else ""
        lines.append(f"  finish reason: {outcome.finish_reason or '-'}{native}")
    lines.append(f"  usage: {_usage_text(outcome.usage)}")
    lines.append(f"  model: {outcome.model or '-'}")
    if outcome.response_id is not None:
        lines.append(f"  response id: {outcome.response_id}")
    lines.append(f"  skipped frames: {outcome.skipped_frames}")
    if outcome.error is not None:
        error = outcome.error
        parts = (f"type {error.type}" if error.type else "", f"code {error.code}" if error.code else "")
        details = ", ".join(part for part in parts if part)
        lines.append(f"  error: {error.message}{f' ({details})' if details else ''}")
    if outcome.body is not None:
        html = " (looks like HTML)" if unievent.looks_like_html(outcome.body) else ""
        lines.append(f"  body{html}: {outcome.body[:200]!r}")
    if outcome.side_events:
        lines.append(f"  side events: {len(outcome.side_events)}")
    lines.extend(f"  anomaly: {anomaly}" for anomaly in outcome.anomalies)
    return lines


def _usage_text(usage: Usage) -> str:
    fields = (
        ("prompt", usage.prompt_tokens),
        ("cached", usage.cached_tokens),
        ("thoughts", usage.thoughts_tokens),
        ("response", usage.response_tokens),
    )
    if all(value is None for _, value in fields):
        return "none reported"
    return ", ".join(f"{label} {'-' if value is None else value}" for label, value in fields)
