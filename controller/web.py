"""The dashboard: a web page of the live table, served by the daemon on its own threads.

The server never touches the session. Each request becomes a control request handed to the
daemon's loop (`submit`, as the Unix socket does) and waits for its reply; the loop `publish`es
every new snapshot, pushed to the open pages with server-sent events.

  GET  /                  the page (static files under /static/)
  GET  /api/snapshot      the table as JSON
  GET  /api/events        the snapshots, pushed as they change (text/event-stream)
  GET  /api/record.json   the game record, replayable with `smartboard replay FILE`
  GET  /api/camera.jpg    the latest camera frame with the readers' overlay
  POST /api/<op>          a changing control request, its JSON body the request's arguments
                          (the ops of controller/operations.py that the dashboard may POST)

A GET never changes the game. Off loopback every request needs the token: `?token=` (which sets
an HttpOnly, SameSite=Strict cookie), the cookie or an `X-Smartboard-Token` header. A POST must
also be JSON: a cross-site form cannot send that without a preflight, which is never granted.
"""

from __future__ import annotations

import contextlib
import hmac
import json
import logging
import os
import queue
import secrets
import socket
import threading
from collections.abc import Callable
from http import HTTPStatus
from http.cookies import CookieError, SimpleCookie
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from importlib import resources
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

from controller.operations import dashboard_ops
from controller.rules.api import JSON
from controller.web_access import check_token, is_loopback, parse_listen

log = logging.getLogger(__name__)

Submit = Callable[[JSON, "queue.Queue[JSON]"], None]
CameraView = Callable[[], bytes | None]

# The control ops a page may send with POST: each may change the game.
POST_OPS = dashboard_ops("post")
TOKEN_FILE = "web_token"
COOKIE = "smartboard_token"
COOKIE_AGE_S = 365 * 24 * 3600  # a phone by the table stays signed in
MAX_BODY = 64 * 1024
REPLY_TIMEOUT_S = 10.0
# A comment line on an idle event stream, so that a page whose connection died finds out.
KEEPALIVE_S = 15.0
STATIC_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
}


class WebError(RuntimeError):
    """The dashboard cannot start: a bad address, a port in use, an unreadable token file."""


def load_token(state_dir: Path) -> tuple[str, bool]:
    """The token saved in the state directory, else a new one saved there (0600); and whether it
    is new."""
    path = state_dir / TOKEN_FILE
    try:
        token = path.read_text(encoding="ascii").strip()
        check_token(token)
        return token, False
    except FileNotFoundError:
        pass
    except (OSError, ValueError) as error:
        raise WebError(f"{path}: {error}; delete it for a new token") from error
    token = secrets.token_urlsafe(24)
    try:
        state_dir.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
        with os.fdopen(fd, "w", encoding="ascii") as out:
            out.write(token + "\n")
    except OSError as error:
        raise WebError(f"cannot save the dashboard token in {path}: {error}") from error
    return token, True


def _static_files() -> dict[str, tuple[bytes, str]]:
    folder = resources.files("controller") / "web_static"
    files = {}
    for entry in folder.iterdir():
        kind = STATIC_TYPES.get(Path(entry.name).suffix)
        if kind is not None:
            files[entry.name] = (entry.read_bytes(), kind)
    return files


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, address: tuple[str, int], dashboard: Dashboard) -> None:
        if ":" in address[0]:
            self.address_family = socket.AF_INET6
        self.dashboard = dashboard
        super().__init__(address, _Handler)


class Dashboard:
    """The web server: started at once on its own threads, stopped by `close`."""

    def __init__(
        self,
        listen: str,
        submit: Submit,
        camera: CameraView,
        token: str | None = None,
    ) -> None:
        self.host, port = parse_listen(listen)
        self.token = token
        self._submit = submit
        self._camera = camera
        self.static = _static_files()
        self._lock = threading.Lock()
        self._latest: bytes | None = None
        self._streams: set[queue.Queue[bytes | None]] = set()
        try:
            self._server = _Server((self.host, port), self)
        except OSError as error:
            raise WebError(f"the dashboard cannot listen on {listen}: {error.strerror}") from error
        self.port = self._server.server_address[1]
        # Shutting down waits for the loop to look up: soon, so that closing is quick.
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.1,), name="dashboard", daemon=True
        )
        self._thread.start()

    @classmethod
    def open(
        cls, listen: str, config_token: str, state_dir: Path, submit: Submit, camera: CameraView
    ) -> Dashboard:
        """The dashboard of `smartboard run`: off loopback with a token, the configured one or
        one kept in the state directory, whose URL is printed once, when it is made."""
        host, _ = parse_listen(listen)
        token: str | None = config_token or None
        new = False
        if token is None and not is_loopback(host):
            token, new = load_token(state_dir)
        dashboard = cls(listen, submit, camera, token)
        log.info("dashboard: %s", dashboard.url())
        print(f"dashboard: {dashboard.url()}", flush=True)
        if new:
            shown = dashboard.url(with_token=True)
            log.info("dashboard token made, kept in %s: %s", state_dir / TOKEN_FILE, shown)
            print(f"dashboard token (shown once, kept in {state_dir / TOKEN_FILE}): {shown}")
        elif token is not None:
            print("dashboard: open it with ?token=... (the token of the config or the state dir)")
        return dashboard

    def url(self, with_token: bool = False) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        query = f"?token={self.token}" if with_token and self.token else ""
        return f"http://{host}:{self.port}/{query}"

    # -- the daemon's side ----------------------------------------------------------------

    def publish(self, snapshot: JSON) -> None:
        """A new snapshot, pushed to every open page; any thread."""
        data = json.dumps(snapshot, separators=(",", ":")).encode()
        with self._lock:
            self._latest = data
            for stream in self._streams:
                _replace(stream, data)

    def close(self) -> None:
        with self._lock:
            for stream in self._streams:
                _replace(stream, None)
        self._server.shutdown()
        self._server.server_close()

    # -- the handlers' side ---------------------------------------------------------------

    def ask(self, request: JSON) -> tuple[HTTPStatus, JSON]:
        """A control request answered by the daemon's loop, with the HTTP status to send."""
        reply: queue.Queue[JSON] = queue.Queue(maxsize=1)
        self._submit(request, reply)
        try:
            answer = reply.get(timeout=REPLY_TIMEOUT_S)
        except queue.Empty:
            error = f"the table did not answer in {REPLY_TIMEOUT_S:g} s: is its loop stuck?"
            return HTTPStatus.SERVICE_UNAVAILABLE, {"ok": False, "error": error}
        return (HTTPStatus.OK if answer.get("ok") else HTTPStatus.CONFLICT), answer

    def subscribe(self) -> queue.Queue[bytes | None]:
        stream: queue.Queue[bytes | None] = queue.Queue(maxsize=1)
        with self._lock:
            if self._latest is not None:
                stream.put(self._latest)
            self._streams.add(stream)
        return stream

    def unsubscribe(self, stream: queue.Queue[bytes | None]) -> None:
        with self._lock:
            self._streams.discard(stream)

    def camera_view(self) -> bytes | None:
        return self._camera()


def _replace(stream: queue.Queue[bytes | None], item: bytes | None) -> None:
    """Only the newest snapshot matters to a slow page."""
    with contextlib.suppress(queue.Empty):
        stream.get_nowait()
    stream.put_nowait(item)


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"
    server_version = "smartboard"

    def log_message(self, format: str, *args: Any) -> None:
        log.debug("%s %s", self.address_string(), format % args)

    @property
    def dashboard(self) -> Dashboard:
        return self.server.dashboard

    # -- checks ---------------------------------------------------------------------------

    def _given_token(self) -> str | None:
        query = parse_qs(urlsplit(self.path).query).get("token")
        if query:
            return query[0]
        header = self.headers.get("X-Smartboard-Token")
        if header:
            return header
        try:
            morsel = SimpleCookie(self.headers.get("Cookie", "")).get(COOKIE)
        except CookieError:
            return None
        return None if morsel is None else morsel.value

    def _allowed(self) -> bool:
        """The token checked; on loopback without one, the Host checked instead, so that a
        web site cannot reach the table through a name rebound to 127.0.0.1."""
        token = self.dashboard.token
        if token is None:
            host = urlsplit(f"//{self.headers.get('Host', '')}").hostname or ""
            if not is_loopback(host):
                self._fail(HTTPStatus.FORBIDDEN, "unknown Host: open the page by its address")
                return False
            return True
        given = self._given_token()
        if given is None or not hmac.compare_digest(given.encode(), token.encode()):
            self._fail(HTTPStatus.UNAUTHORIZED, "this dashboard needs its token: ?token=...")
            return False
        return True

    # -- replies --------------------------------------------------------------------------

    def _send(
        self, status: HTTPStatus, body: bytes, kind: str, headers: dict[str, str] | None = None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", kind)
        self.send_header("Content-Length", str(len(body)))
        self.send_header("Cache-Control", "no-store")
        self.send_header("X-Content-Type-Options", "nosniff")
        for key, value in (headers or {}).items():
            self.send_header(key, value)
        self.end_headers()
        self.wfile.write(body)

    def _json(self, status: HTTPStatus, data: JSON, headers: dict[str, str] | None = None) -> None:
        self._send(status, json.dumps(data).encode(), "application/json", headers)

    def _fail(self, status: HTTPStatus, error: str) -> None:
        self._json(status, {"ok": False, "error": error})

    # -- GET ------------------------------------------------------------------------------

    def do_GET(self) -> None:
        if not self._allowed():
            return
        url = urlsplit(self.path)
        path = url.path
        token = self.dashboard.token
        if path == "/" and token is not None and "token=" in url.query:
            # The token goes into a cookie and out of the address bar (and its history).
            cookie = f"{COOKIE}={token}; HttpOnly; SameSite=Strict; Path=/; Max-Age={COOKIE_AGE_S}"
            headers = {"Location": "/", "Set-Cookie": cookie}
            self._send(HTTPStatus.SEE_OTHER, b"", "text/plain", headers)
        elif path == "/":
            self._static("index.html")
        elif path.startswith("/static/"):
            self._static(path.removeprefix("/static/"))
        elif path == "/api/snapshot":
            status, reply = self.dashboard.ask({"op": "snapshot"})
            if status == HTTPStatus.OK:
                del reply["ok"]
            self._json(status, reply)
        elif path == "/api/record.json":
            self._record()
        elif path == "/api/camera.jpg":
            frame = self.dashboard.camera_view()
            if frame is None:
                self._fail(HTTPStatus.NOT_FOUND, "no camera picture on this table")
            else:
                self._send(HTTPStatus.OK, frame, "image/jpeg")
        elif path == "/api/events":
            self._events()
        else:
            self._fail(HTTPStatus.NOT_FOUND, f"no such page: {path}")

    def _static(self, name: str) -> None:
        found = self.dashboard.static.get(name)
        if found is None:
            self._fail(HTTPStatus.NOT_FOUND, f"no such file: {name}")
        else:
            self._send(HTTPStatus.OK, *found)

    def _record(self) -> None:
        status, reply = self.dashboard.ask({"op": "record"})
        if status != HTTPStatus.OK:
            self._json(status, reply)
            return
        record = reply["record"]
        name = f"{record.get('game', 'game')}-record.json"
        self._send(
            HTTPStatus.OK,
            json.dumps(record, indent=1).encode(),
            "application/json",
            {"Content-Disposition": f'attachment; filename="{name}"'},
        )

    def _events(self) -> None:
        self.send_response(HTTPStatus.OK)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-store")
        self.end_headers()
        self.close_connection = True
        stream = self.dashboard.subscribe()
        try:
            self.wfile.write(b"retry: 1000\n\n")
            self.wfile.flush()
            while True:
                try:
                    data = stream.get(timeout=KEEPALIVE_S)
                except queue.Empty:
                    self.wfile.write(b": keep-alive\n\n")
                else:
                    if data is None:
                        return  # the dashboard is closing
                    self.wfile.write(b"data: " + data + b"\n\n")
                self.wfile.flush()
        except OSError:
            pass  # the page went away
        finally:
            self.dashboard.unsubscribe(stream)

    # -- POST -----------------------------------------------------------------------------

    def do_POST(self) -> None:
        if not self._allowed():
            return
        path = urlsplit(self.path).path
        op = path.removeprefix("/api/")
        length_text = self.headers.get("Content-Length") or "0"
        length = int(length_text) if length_text.isdigit() else MAX_BODY + 1
        if length > MAX_BODY:
            self.close_connection = True
            self._fail(
                HTTPStatus.REQUEST_ENTITY_TOO_LARGE, f"a request is at most {MAX_BODY} bytes"
            )
            return
        body = self.rfile.read(length)
        origin = self.headers.get("Origin")
        kind = self.headers.get("Content-Type", "").split(";")[0].strip()
        if not path.startswith("/api/") or op not in POST_OPS:
            known = ", ".join(POST_OPS)
            self._fail(
                HTTPStatus.NOT_FOUND, f"unknown request {path}: POST /api/<op>, op one of {known}"
            )
        elif origin is not None and urlsplit(origin).netloc != self.headers.get("Host"):
            self._fail(HTTPStatus.FORBIDDEN, "a request from another site's page is refused")
        elif kind != "application/json":
            self._fail(
                HTTPStatus.UNSUPPORTED_MEDIA_TYPE,
                "a request that changes the game must be sent as application/json",
            )
        else:
            try:
                request = json.loads(body or b"{}")
            except ValueError as error:
                self._fail(HTTPStatus.BAD_REQUEST, f"not JSON: {error}")
                return
            if isinstance(request, dict):
                self._json(*self.dashboard.ask({**request, "op": op}))
            else:
                self._fail(HTTPStatus.BAD_REQUEST, "the body must be a JSON object")

    def do_PUT(self) -> None:
        self._fail(HTTPStatus.METHOD_NOT_ALLOWED, "GET or POST only")

    do_DELETE = do_PATCH = do_PUT
