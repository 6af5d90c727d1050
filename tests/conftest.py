"""Test set-up: find the package in a source checkout and register Hypothesis profiles."""

from __future__ import annotations

import importlib.util
import os
import sys
import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

pytest_plugins = ["tests.transition_coverage"]

if importlib.util.find_spec("unievent") is None:  # not installed: use the source tree
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "decoder"))

# `unievent` (default): no deadline (CI machines vary), the usual example count.
# `ci`: the same examples on every run.  Pick with HYPOTHESIS_PROFILE=<name>.
settings.register_profile("unievent", deadline=None, suppress_health_check=[HealthCheck.too_slow])
settings.register_profile("ci", deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "unievent"))


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    body = b""

    def log_message(self, format: str, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("content-length") or 0))
        self.send_response(200)
        self.send_header("content-type", "text/event-stream")
        self.send_header("content-length", str(len(self.body)))
        self.end_headers()
        self.wfile.write(self.body)


@pytest.fixture
def serving() -> Iterator[Callable[[bytes], str]]:
    """A local server that answers every POST with the body given: `serving(body)` is
    its base URL, for pointing a provider's SDK at what a writer wrote."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True)
    thread.start()

    def serve(body: bytes) -> str:
        _Handler.body = body
        return f"http://127.0.0.1:{server.server_address[1]}"

    try:
        yield serve
    finally:
        server.shutdown()
        server.server_close()
