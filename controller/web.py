"""The dashboard: a web page of the live table, served by aiohttp on an asyncio thread of its own.

The server never touches the session. Each request becomes a control request handed to the
daemon's loop (`submit`, as the Unix socket does) and waits for its reply; the loop `publish`es
every new snapshot, pushed to the open pages with server-sent events.

  GET  /                  the page (static files under /static/)
  GET  /api/snapshot      the table as JSON
  GET  /api/events        the snapshots, pushed as they change (text/event-stream)
  GET  /api/record.json   the game record, replayable with `smartboard replay FILE`; ?id=ID a
                          past game's
  GET  /api/camera.jpg    the latest camera frame with the readers' overlay
  GET  /api/unsure.jpg?roll=N  the tray as roll N, held unsure, was read in, its dice numbered
  GET  /api/words.json?game=NAME  a game's words in English and French (rules/words.py)
  GET  /api/card/GAME/CARD.png, /api/card/back.png
                          a card side as printed (small), for the page's card spots
  GET  /api/<op>?ARG=...  a reading control request (the ops of controller/operations/ that
                          the dashboard may GET: past games, a past game's position, how to
                          play: /api/guide?game=NAME&lang=fr)
  POST /api/<op>          a changing control request, its JSON body the request's arguments
                          (the ops of controller/operations/ that the dashboard may POST)

A GET never changes the game. Every request needs the token, on loopback too (any local user can
reach 127.0.0.1): `?token=` (which sets an HttpOnly, SameSite=Strict cookie), the cookie or an
`X-Smartboard-Token` header; `smartboard dashboard` prints the page's address with it. A POST
must also be JSON: a cross-site form cannot send that without a preflight, which is never
granted. Connections are capped, closed when idle, and bodies bounded, so that a flood of idle
connections can neither starve the table of files nor keep the page from answering.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac
import html
import json
import logging
import os
import secrets
import shlex
import sys
from collections import OrderedDict
from collections.abc import Awaitable, Callable
from importlib import resources
from pathlib import Path

from aiohttp import web
from aiohttp.web_protocol import RequestHandler

from controller.game_vision import card_png
from controller.loop_thread import LoopThread
from controller.operations import dashboard_ops
from controller.paths import default_state_dir
from controller.requests import MAX_REQUEST, RequestError, Submit, ask, parse_request
from controller.rules import GAMES
from controller.rules.api import JSON
from controller.snapshot import words
from controller.web_access import check_token, parse_listen, reachable_hosts

log = logging.getLogger(__name__)

CameraView = Callable[[], bytes | None]
HeldPicture = Callable[[int], bytes | None]
"""The picture of held roll N (`Daemon.held_picture`)."""
Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]

# The control ops a page may send with POST: each may change the game; with GET, each reads.
POST_OPS = dashboard_ops("post")
GET_OPS = dashboard_ops("get")
TOKEN_FILE = "web_token"
COOKIE = "smartboard_token"
COOKIE_AGE_S = 365 * 24 * 3600  # a phone by the table stays signed in
MAX_CONNECTIONS = 256
"""Open connections at most (`[web] max_connections`): the oldest idle one makes way."""
MAX_STREAMS = 32
"""Pages following the events at once: the oldest stream makes way (its page reconnects)."""
IDLE_TIMEOUT_S = 5.0
"""A connection that sends no request (or no complete one) for this long is closed."""
MAX_HEADER = 8190
BACKLOG = 128
# A comment line on an idle event stream, so that a page whose connection died finds out.
KEEPALIVE_S = 15.0
STATIC_TYPES = {
    ".html": "text/html; charset=utf-8",
    ".js": "text/javascript; charset=utf-8",
    ".css": "text/css; charset=utf-8",
    ".svg": "image/svg+xml",
}
HEADERS = {"Cache-Control": "no-store", "X-Content-Type-Options": "nosniff"}
# A card's picture changes only with the program: a page loads each once.
CARD_HEADERS = HEADERS | {"Cache-Control": "private, max-age=86400", "Content-Type": "image/png"}


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


def _reply(status: int, data: JSON, headers: dict[str, str] | None = None) -> web.Response:
    return web.json_response(data, status=status, headers=HEADERS | (headers or {}))


_TOKEN_PAGE = """<!doctype html><html lang="en"><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1"><title>smartboard</title>
<body style="font-family: sans-serif; background: #1b1d24; color: #eee; padding: 1rem">
<h1 style="font-size: 1.2rem">smartboard</h1><p>{said}.</p></body></html>
"""


def _fail(status: int, error: str) -> web.Response:
    return _reply(status, {"ok": False, "error": error})


class _Refused(asyncio.Protocol):
    """A connection beyond the cap while every other one is busy: closed at once."""

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        transport.close()


class Dashboard:
    """The web server: started at once on its own thread, stopped by `close`."""

    def __init__(
        self,
        listen: str,
        submit: Submit,
        camera: CameraView,
        token: str,
        max_connections: int = MAX_CONNECTIONS,
        idle_timeout_s: float = IDLE_TIMEOUT_S,
        held: HeldPicture | None = None,
    ) -> None:
        """`held`: the pictures of rolls held unsure, on a table whose camera reads dice."""
        self.host, port = parse_listen(listen)
        self.token = token
        self.asking = "smartboard dashboard"  # the command that prints the address with the token
        self.max_connections = max_connections
        self._submit = submit
        self._camera = camera
        self._held = held
        self.static = _static_files()
        self._latest: bytes | None = None
        self._streams: OrderedDict[asyncio.Queue[bytes | None], None] = OrderedDict()
        self._busy: dict[RequestHandler, int] = {}
        app = web.Application(client_max_size=MAX_REQUEST, middlewares=[self._guard])
        app.add_routes(
            [
                web.get("/", self._index),
                web.get("/static/{name}", self._static),
                web.get("/api/snapshot", self._snapshot),
                web.get("/api/record.json", self._record),
                web.get("/api/camera.jpg", self._camera_jpg),
                web.get("/api/unsure.jpg", self._unsure_jpg),
                web.get("/api/words.json", self._words),
                web.get("/api/card/back.png", self._card),
                web.get("/api/card/{game}/{card}.png", self._card),
                web.get("/api/events", self._events),
                web.get("/api/{op}", self._get),
                web.post("/api/{op}", self._post),
            ]
        )
        self._runner = web.AppRunner(
            app,
            handle_signals=False,
            shutdown_timeout=1.0,
            access_log=None,
            keepalive_timeout=idle_timeout_s,
            max_line_size=MAX_HEADER,
            max_field_size=MAX_HEADER,
        )
        self._thread = LoopThread("dashboard")
        try:
            self._server = self._thread.run(self._start(port))
        except OSError as error:
            self._thread.stop()
            raise WebError(f"the dashboard cannot listen on {listen}: {error.strerror}") from error
        self.port: int = self._server.sockets[0].getsockname()[1]

    async def _start(self, port: int) -> asyncio.Server:
        await self._runner.setup()
        return await asyncio.get_running_loop().create_server(
            self._connection, self.host, port, backlog=BACKLOG, reuse_address=True
        )

    @classmethod
    def open(
        cls,
        listen: str,
        config_token: str,
        max_connections: int,
        state_dir: Path,
        submit: Submit,
        camera: CameraView,
        held: HeldPicture,
    ) -> Dashboard:
        """The dashboard of `smartboard run`, with the configured token or one kept in the state
        directory. Its address with the token is printed to a person at a terminal; else
        `smartboard dashboard` prints it."""
        token, new = (config_token, False) if config_token else load_token(state_dir)
        dashboard = cls(listen, submit, camera, token, max_connections, held=held)
        if state_dir.resolve() != default_state_dir().resolve():
            dashboard.asking += f" --state-dir {shlex.quote(str(state_dir))}"
        # Every address of the machine for a wildcard, the port last: a test reads it there.
        urls = " ".join(
            dashboard.url_at(host) for host in reachable_hosts(dashboard.host, by_name=True)
        )
        log.info("dashboard: %s", urls)
        print(f"dashboard: {urls}", flush=True)
        if new:
            log.info("dashboard token made, kept in %s", state_dir / TOKEN_FILE)
        # Only to a person at a terminal: a service's output goes to the system's log, which
        # other users may read.
        if sys.stdout.isatty():
            print(f"dashboard, open: {dashboard.url(with_token=True)}")
        else:
            print(f"dashboard: `{dashboard.asking}` prints its address with the token")
        sys.stdout.flush()
        return dashboard

    def url(self, with_token: bool = False) -> str:
        """Where a browser reaches the page: the machine's way out for a wildcard address."""
        return self.url_at(reachable_hosts(self.host)[0], with_token)

    def url_at(self, host: str, with_token: bool = False) -> str:
        """The page's address on `host`, one of the machine's."""
        host = f"[{host}]" if ":" in host else host
        query = f"?token={self.token}" if with_token else ""
        return f"http://{host}:{self.port}/{query}"

    def connections(self) -> int:
        """The connections open now."""
        server = self._runner.server
        return 0 if server is None else len(server.connections)

    # -- the daemon's side ----------------------------------------------------------------

    def publish(self, snapshot: JSON) -> None:
        """A new snapshot, pushed to every open page; any thread."""
        data = json.dumps(snapshot, separators=(",", ":")).encode()
        self._thread.call(self._deliver, data)

    def close(self) -> None:
        async def stop() -> None:
            self._deliver(None)
            self._server.close()
            await self._runner.cleanup()

        with contextlib.suppress(TimeoutError):
            self._thread.run(stop(), timeout=5.0)
        self._thread.stop()

    # -- on the server's loop -------------------------------------------------------------

    def _deliver(self, data: bytes | None) -> None:
        """Only the newest snapshot matters to a slow page; None closes every stream."""
        if data is not None:
            self._latest = data
        for stream in self._streams:
            _replace(stream, data)

    def _connection(self) -> asyncio.Protocol:
        """A new connection, after the oldest idle ones if the cap is reached. A burst of new
        connections is accepted before any is listed, so the cap holds from the next one on."""
        server = self._runner.server
        assert server is not None
        # Closed ones stay listed until their loss is handled.
        live = [c for c in server.connections if c.transport is not None]
        idle = (c for c in live if c not in self._busy)
        for _ in range(len(live) - self.max_connections + 1):
            oldest = next(idle, None)
            if oldest is None:
                return _Refused()
            oldest.force_close()
        return server()

    @web.middleware
    async def _guard(self, request: web.Request, handler: Handler) -> web.StreamResponse:
        """Every request: the token checked, marked busy while answered, errors as JSON."""
        protocol = request.protocol
        self._busy[protocol] = self._busy.get(protocol, 0) + 1
        try:
            if not self._allowed(request):
                said = f"this dashboard needs its token: `{self.asking}` on the table's machine "
                said += "prints its address with it"
                if request.path.startswith("/api/"):
                    return _fail(401, said)
                # A person who opened the address without its token reads a page, not JSON.
                return web.Response(
                    status=401,
                    text=_TOKEN_PAGE.format(said=html.escape(said)),
                    content_type="text/html",
                )
            response = await handler(request)
            if not response.prepared:
                # Sent here, so that the connection counts as busy until its reply is out.
                await response.prepare(request)
                await response.write_eof()
            return response
        except web.HTTPException as error:
            if error.status < 400:
                raise
            why = {404: f"no such page: {request.path}", 405: "GET or POST only"}
            return _fail(error.status, why.get(error.status, error.reason))
        finally:
            self._busy[protocol] -= 1
            if not self._busy[protocol]:
                del self._busy[protocol]

    def _allowed(self, request: web.Request) -> bool:
        given = (
            request.query.get("token")
            or request.headers.get("X-Smartboard-Token")
            or request.cookies.get(COOKIE)
        )
        try:
            given_bytes = None if given is None else given.encode()
        except UnicodeEncodeError:  # bytes that are no text, kept by aiohttp as surrogates
            return False
        return given_bytes is not None and hmac.compare_digest(given_bytes, self.token.encode())

    # -- GET ------------------------------------------------------------------------------

    async def _index(self, request: web.Request) -> web.StreamResponse:
        if "token" in request.query:
            # The token goes into a cookie and out of the address bar (and its history).
            cookie = (
                f"{COOKIE}={self.token}; HttpOnly; SameSite=Strict; Path=/; Max-Age={COOKIE_AGE_S}"
            )
            return web.Response(
                status=303, headers=HEADERS | {"Location": "/", "Set-Cookie": cookie}
            )
        return self._file("index.html")

    async def _static(self, request: web.Request) -> web.StreamResponse:
        return self._file(request.match_info["name"])

    def _file(self, name: str) -> web.StreamResponse:
        found = self.static.get(name)
        if found is None:
            return _fail(404, f"no such file: {name}")
        body, kind = found
        return web.Response(body=body, headers=HEADERS | {"Content-Type": kind})

    async def _ask(self, request: JSON) -> web.Response:
        """A control request answered by the daemon's loop, with its HTTP status."""
        answer = await ask(self._submit, request)
        status = 200 if answer.get("ok") else 503 if answer.get("unknown") else 409
        return _reply(status, answer)

    async def _snapshot(self, request: web.Request) -> web.StreamResponse:
        answer = await ask(self._submit, {"op": "snapshot"})
        if not answer.pop("ok", False):
            return _reply(503, {"ok": False, **answer})
        return _reply(200, answer)

    async def _record(self, request: web.Request) -> web.StreamResponse:
        past = request.query.get("id")
        answer = await ask(self._submit, {"op": "record", "id": past})
        if not answer.get("ok"):
            return _reply(503 if past is None else 404, answer)
        record = answer["record"]
        # A past game's id is its dated journal's name: the date names the download.
        when = "record" if past is None else past.removeprefix("journal-").removesuffix(".jsonl")
        name = f"{record.get('game', 'game')}-{when}.json"
        return web.Response(
            body=json.dumps(record, indent=1).encode(),
            headers=HEADERS
            | {
                "Content-Type": "application/json",
                "Content-Disposition": f'attachment; filename="{name}"',
            },
        )

    async def _get(self, request: web.Request) -> web.StreamResponse:
        op = request.match_info["op"]
        if op in POST_OPS:
            return _fail(405, f"{op} changes the game: POST it")
        if op not in GET_OPS:
            return _fail(404, f"no such page: {request.path}")
        # The op is the path's: a query's own "op" never turns a GET into another request.
        return await self._ask({**request.query, "op": op})

    async def _words(self, request: web.Request) -> web.StreamResponse:
        # Fixed for as long as the daemon runs: asked once a game, not pushed with each snapshot.
        game = GAMES.get(request.query.get("game", ""))
        if game is None:
            return _fail(404, f"no such game: {request.query.get('game', '')!r}")
        return _reply(200, words(game), {"Cache-Control": "private, max-age=3600"})

    async def _camera_jpg(self, request: web.Request) -> web.StreamResponse:
        # Encoding a frame takes milliseconds: off the loop, which serves every other page.
        frame = await asyncio.get_running_loop().run_in_executor(None, self._camera)
        if frame is None:
            return _fail(404, "no camera picture on this table")
        return web.Response(body=frame, headers=HEADERS | {"Content-Type": "image/jpeg"})

    async def _unsure_jpg(self, request: web.Request) -> web.StreamResponse:
        number = request.query.get("roll", "")
        picture = None
        if self._held is not None and number.isdigit() and len(number) < 10:
            picture = await asyncio.get_running_loop().run_in_executor(
                None, self._held, int(number)
            )
        if picture is None:
            # The roll settled since, or its frame is gone (the daemon restarted).
            return _fail(404, f"no picture of held roll {number!r}: not held, or no frame kept")
        return web.Response(body=picture, headers=HEADERS | {"Content-Type": "image/jpeg"})

    async def _card(self, request: web.Request) -> web.StreamResponse:
        game, card = request.match_info.get("game", ""), request.match_info.get("card")
        # Drawn off the loop the first time; cached after.
        png = await asyncio.get_running_loop().run_in_executor(None, card_png, game, card)
        if png is None:
            return _fail(404, f"{game or 'this table'} prints no card {card!r}")
        return web.Response(body=png, headers=CARD_HEADERS)

    async def _events(self, request: web.Request) -> web.StreamResponse:
        response = web.StreamResponse(headers=HEADERS | {"Content-Type": "text/event-stream"})
        await response.prepare(request)
        stream: asyncio.Queue[bytes | None] = asyncio.Queue(maxsize=1)
        if self._latest is not None:
            stream.put_nowait(self._latest)
        self._streams[stream] = None
        if len(self._streams) > MAX_STREAMS:
            # Out of the list at once, so that no snapshot published meanwhile replaces its end.
            oldest = next(iter(self._streams))
            del self._streams[oldest]
            _replace(oldest, None)
        try:
            await response.write(b"retry: 1000\n\n")
            while True:
                try:
                    data = await asyncio.wait_for(stream.get(), KEEPALIVE_S)
                except TimeoutError:
                    await response.write(b": keep-alive\n\n")
                    continue
                if data is None:
                    break  # the dashboard is closing, or the stream made way
                await response.write(b"data: " + data + b"\n\n")
        except (ConnectionError, RuntimeError):
            pass  # the page went away (aiohttp says so with either)
        finally:
            self._streams.pop(stream, None)
        return response

    # -- POST -----------------------------------------------------------------------------

    async def _post(self, request: web.Request) -> web.StreamResponse:
        op = request.match_info["op"]
        origin = request.headers.get("Origin")
        if op not in POST_OPS:
            known = ", ".join(POST_OPS)
            return _fail(404, f"unknown request {request.path}: POST /api/<op>, op one of {known}")
        if origin is not None and origin.partition("://")[2] != request.headers.get("Host"):
            return _fail(403, "a request from another site's page is refused")
        if request.content_type != "application/json":
            return _fail(415, "a request that changes the game must be sent as application/json")
        try:
            control = parse_request(await request.read(), op)
        except RequestError as error:
            return _fail(400, str(error))
        return await self._ask(control)


def _replace(stream: asyncio.Queue[bytes | None], item: bytes | None) -> None:
    with contextlib.suppress(asyncio.QueueEmpty):
        stream.get_nowait()
    stream.put_nowait(item)
