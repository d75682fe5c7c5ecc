"""The local control interface: JSON lines over a Unix socket.

Each request is one JSON object with an "op" (and a "request_id": controller/requests.py); each
reply one JSON object with "ok". The ops, their arguments and replies are declared in
`controller/operations/`. Requests are handed to the daemon's loop, which alone touches the
session. The socket is served by one asyncio thread: a line is read within its limit (a longer
one is refused without being held), connections are capped and closed when idle.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import secrets
import socket
from pathlib import Path
from typing import Any

from controller.loop_thread import LoopThread
from controller.requests import (
    MAX_REQUEST,
    REPLY_TIMEOUT_S,
    RequestError,
    Submit,
    ask,
    parse_request,
)
from controller.rules.api import JSON

log = logging.getLogger(__name__)

MAX_CONNECTIONS = 64
"""Commands open one connection each and close it: more at once is a runaway script."""
IDLE_TIMEOUT_S = 60.0
BACKLOG = 128
"""Connections the kernel holds until they are accepted: a burst of commands is not refused."""
ATTEMPTS = 3
"""How often a command sends its request before it says it does not know what happened."""


class ControlError(RuntimeError):
    """The daemon cannot be reached or refused the request. `unknown`: the request was sent but
    no answer came, so it may have been applied."""

    def __init__(self, message: str, unknown: bool = False) -> None:
        super().__init__(message)
        self.unknown = unknown


class ControlServer:
    """Serves the socket on its own asyncio thread; each request goes to the loop by `submit`."""

    def __init__(self, path: Path, submit: Submit) -> None:
        self.path = path
        if path.exists() or path.is_symlink():
            path.unlink()  # left by a killed daemon; the journal, not the socket, holds the game
        self._submit = submit
        self._connections = 0
        self._thread = LoopThread("control")
        try:
            self._server = self._thread.run(self._start())
        except BaseException:
            self._thread.stop()
            raise
        os.chmod(path, 0o660)

    async def _start(self) -> asyncio.Server:
        # The limit bounds what a connection may buffer: one request and its newline.
        return await asyncio.start_unix_server(
            self._serve, str(self.path), limit=MAX_REQUEST + 1, backlog=BACKLOG
        )

    async def _serve(self, reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
        self._connections += 1
        try:
            if self._connections > MAX_CONNECTIONS:
                busy = {"ok": False, "busy": True, "error": "too many connections: try again"}
                await _send(writer, busy)
                return
            while True:
                try:
                    line = await asyncio.wait_for(reader.readline(), IDLE_TIMEOUT_S)
                except (ValueError, asyncio.LimitOverrunError):
                    too_long = f"a request is one line of at most {MAX_REQUEST} bytes"
                    await _send(writer, {"ok": False, "error": too_long})
                    return  # the rest of that line cannot be told from the next request
                if not line:
                    return
                await _send(writer, await self._answer(line))
        except (TimeoutError, ConnectionError):
            pass  # an idle client, or one that went away: nothing to answer
        finally:
            self._connections -= 1
            writer.close()

    async def _answer(self, line: bytes) -> JSON:
        try:
            request = parse_request(line)
        except RequestError as error:
            return {"ok": False, "error": str(error)}
        return await ask(self._submit, request)

    def close(self) -> None:
        async def stop() -> None:
            self._server.close()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(self._server.wait_closed(), 1.0)

        self._thread.run(stop())
        self._thread.stop()
        self.path.unlink(missing_ok=True)


async def _send(writer: asyncio.StreamWriter, reply: JSON) -> None:
    writer.write(json.dumps(reply).encode() + b"\n")
    await writer.drain()


def request(
    path: Path, message: JSON, timeout: float = REPLY_TIMEOUT_S + 5.0, attempts: int = ATTEMPTS
) -> JSON:
    """Send one request to a running daemon and return its reply. The request carries an id:
    when no answer comes, it is sent again with the same id, which the daemon answers with its
    first reply rather than applying it twice."""
    message = {"request_id": secrets.token_hex(8)} | message
    line = json.dumps(message).encode() + b"\n"
    maybe_applied = False  # once a try got no sure answer, no later failure is sure either
    for _ in range(attempts):
        try:
            reply = _exchange(path, line, timeout)
        except ControlError as error:
            if maybe_applied:
                raise ControlError(f"{error}; {_CHECK}", unknown=True) from None
            raise
        if reply is not None and not reply.get("unknown") and not reply.get("busy"):
            return reply
        maybe_applied = maybe_applied or reply is None or bool(reply.get("unknown"))
    if not maybe_applied:
        raise ControlError(f"the daemon at {path} is too busy: nothing was applied; try again")
    raise ControlError(f"the daemon at {path} did not answer: {_CHECK}", unknown=True)


_CHECK = "the request may still be applied; check `smartboard status`"


def _exchange(path: Path, line: bytes, timeout: float) -> JSON | None:
    """The reply to `line`; None when it was sent (or may have been) but no reply came."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(timeout)
        try:
            sock.connect(str(path))
        except (FileNotFoundError, ConnectionRefusedError):
            # Refused: the socket of a daemon killed (kill -9, a power cut) is left behind.
            raise ControlError(
                f"no daemon is listening at {path}: is `smartboard run` running?"
            ) from None
        except PermissionError:
            raise ControlError(
                f"not allowed to talk to the daemon at {path}: the service lets in the members "
                "of group smartboard (`sudo usermod -aG smartboard $USER`, then log in again)"
            ) from None
        except OSError as error:  # nothing was sent: nothing happened
            raise ControlError(f"cannot talk to the daemon at {path}: {error}") from error
        data = b""
        try:
            sock.sendall(line)
            while not data.endswith(b"\n"):
                chunk = sock.recv(65536)
                if not chunk:
                    break
                data += chunk
        except OSError as error:
            log.info("no answer from the daemon at %s: %s", path, error)
            return None
    if not data:
        return None
    try:
        reply: Any = json.loads(data)
    except ValueError as error:
        raise ControlError(f"the daemon sent an unreadable reply: {data[:200]!r}") from error
    if not isinstance(reply, dict):
        raise ControlError(f"the daemon sent an unexpected reply: {reply!r}")
    return reply
