"""A simulated daemon serving its dashboard, run as `smartboard run` is, for the web tests."""

from __future__ import annotations

import http.client
import json
import signal
import subprocess
import sys
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any


@dataclass(frozen=True)
class Served:
    url: str  # http://127.0.0.1:PORT/, whatever address it listens on
    printed: list[str]  # what the daemon printed when it started
    state_dir: Path

    @property
    def token(self) -> str:
        return (self.state_dir / "web_token").read_text().strip()

    @property
    def page(self) -> str:
        """The address a person opens: the token goes into a cookie."""
        return f"{self.url}?token={self.token}"

    @property
    def key(self) -> dict[str, str]:
        """The header with the token, for the tests' own requests."""
        return {"X-Smartboard-Token": self.token}


@contextmanager
def dashboard(state_dir: Path, *args: str, listen: str = "127.0.0.1:0") -> Iterator[Served]:
    """`smartboard run --sim ... --web LISTEN` on a port the system chooses, read from the URL
    it prints."""
    command = [sys.executable, "-m", "controller", "run", "--sim", "--no-show"]
    proc = subprocess.Popen(
        [*command, "--state-dir", str(state_dir), "--web", listen, *args],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert proc.stdout is not None and proc.stderr is not None
        printed = [proc.stdout.readline()]
        if not printed[0].startswith("dashboard: "):
            proc.kill()
            raise AssertionError(f"no dashboard: {printed[0]!r} {proc.stderr.read()}")
        port = printed[0].rstrip().rstrip("/").rpartition(":")[2]
        printed.append(proc.stdout.readline())  # where the token is
        yield Served(f"http://127.0.0.1:{port}/", printed, state_dir)
    finally:
        proc.send_signal(signal.SIGTERM)
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    def redirect_request(self, *args: Any) -> None:
        return None  # the test sees the redirect itself


_OPENER = urllib.request.build_opener(_NoRedirect)


@dataclass(frozen=True)
class Fetched:
    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        return json.loads(self.body)


def fetch(url: str, body: object = None, headers: dict[str, str] | None = None) -> Fetched:
    """One HTTP request: a GET, or a POST of `body`, as JSON unless it is bytes already."""
    sent: dict[str, str] = {}
    if body is None or isinstance(body, bytes):
        data = body
    else:
        data = json.dumps(body).encode()
        sent["Content-Type"] = "application/json"
    request = urllib.request.Request(url, data, {**sent, **(headers or {})})
    try:
        with _OPENER.open(request, timeout=15) as response:
            return Fetched(response.status, dict(response.headers), response.read())
    except urllib.error.HTTPError as error:
        return Fetched(error.code, dict(error.headers), error.read())


def first_event(url: str, headers: dict[str, str] | None = None) -> tuple[int, Any]:
    """The status of an event stream, and its first snapshot if it is open."""
    parts = urllib.parse.urlsplit(url)
    connection = http.client.HTTPConnection(parts.netloc, timeout=10)
    try:
        connection.request("GET", f"{parts.path}?{parts.query}", headers=headers or {})
        response = connection.getresponse()
        if response.status != 200:
            return response.status, None
        for line in response:
            if line.startswith(b"data: "):
                return response.status, json.loads(line[6:])
        raise AssertionError("the event stream ended without an event")
    finally:
        connection.close()
