"""The local control interface: JSON lines over a Unix socket.

Each request is one JSON object with an "op"; each reply one JSON object with "ok". The ops, their
arguments and replies are declared in `controller/operations.py`. Requests are handed to the
daemon's loop, which alone touches the session.
"""

from __future__ import annotations

import json
import os
import queue
import socket
import socketserver
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

from controller.rules.api import JSON

Handler = Callable[[JSON], JSON]
MAX_LINE = 64 * 1024


class ControlError(RuntimeError):
    """The daemon cannot be reached or refused the request."""


class ControlServer:
    """Serves the socket on its own threads; `submit` queues each request for the main loop."""

    def __init__(self, path: Path, submit: Callable[[JSON, queue.Queue[JSON]], None]) -> None:
        self.path = path
        if path.exists() or path.is_symlink():
            path.unlink()  # left by a killed daemon; the journal, not the socket, holds the game
        outer = self

        class Connection(socketserver.StreamRequestHandler):
            def handle(self) -> None:
                for line in self.rfile:
                    reply = outer._answer(line)
                    self.wfile.write(json.dumps(reply).encode() + b"\n")

        self._submit = submit
        self._server = socketserver.ThreadingUnixStreamServer(str(path), Connection)
        self._server.daemon_threads = True
        os.chmod(path, 0o660)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()

    def _answer(self, line: bytes) -> JSON:
        if len(line) > MAX_LINE:
            return {"ok": False, "error": "request too long"}
        try:
            request = json.loads(line)
        except ValueError as error:
            return {"ok": False, "error": f"not JSON: {error}"}
        if not isinstance(request, dict) or not isinstance(request.get("op"), str):
            return {"ok": False, "error": 'a request is an object with an "op"'}
        reply: queue.Queue[JSON] = queue.Queue(maxsize=1)
        self._submit(request, reply)
        try:
            return reply.get(timeout=10)
        except queue.Empty:
            return {"ok": False, "error": "the daemon did not answer in 10 s"}

    def close(self) -> None:
        self._server.shutdown()
        self._server.server_close()
        self.path.unlink(missing_ok=True)


def request(path: Path, message: JSON, timeout: float = 15.0) -> JSON:
    """Send one request to a running daemon and return its reply."""
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
            sock.settimeout(timeout)
            sock.connect(str(path))
            sock.sendall(json.dumps(message).encode() + b"\n")
            data = b""
            while not data.endswith(b"\n"):
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
    except FileNotFoundError:
        raise ControlError(
            f"no daemon is listening at {path}: is `smartboard run` running?"
        ) from None
    except OSError as error:
        raise ControlError(f"cannot talk to the daemon at {path}: {error}") from error
    try:
        reply: Any = json.loads(data)
    except ValueError as error:
        raise ControlError(f"the daemon sent an unreadable reply: {data[:200]!r}") from error
    if not isinstance(reply, dict):
        raise ControlError(f"the daemon sent an unexpected reply: {reply!r}")
    return reply
