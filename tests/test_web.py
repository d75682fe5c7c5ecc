"""The dashboard's server: routes, errors, pushed snapshots and the token (no browser)."""

from __future__ import annotations

import http.client
import json
import socket
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import wait_for
from hypothesis import given
from hypothesis import strategies as st
from web_daemon import Fetched, dashboard, fetch, first_event

from controller import requests
from controller.config import ConfigError, load_config
from controller.operations import dashboard_ops
from controller.rules.api import JSON
from controller.web import CameraView, Dashboard, WebError, load_token
from controller.web_access import parse_listen, reachable_hosts

SNAPSHOT: JSON = {"version": 3, "game": "akuma", "log": ["choose_dice:2"]}
RECORD: JSON = {"game": "akuma", "options": {"traps": 5}, "history": [{"type": "ChooseDice"}]}


TOKEN = "test-token-0123456789"
KEY = {"X-Smartboard-Token": TOKEN}


class FakeTable:
    """Answers control requests as the daemon's loop would, and keeps them."""

    def __init__(self) -> None:
        self.requests: list[JSON] = []

    def submit(self, request: JSON, reply: requests.Reply) -> None:
        self.requests.append(request)
        op = request["op"]
        if op == "snapshot":
            reply.put({"ok": True, **SNAPSHOT})
        elif op == "record":
            reply.put({"ok": True, "record": RECORD})
        elif op == "act" and request.get("id") == "choose_dice:2":
            reply.put({"ok": True, "applied": ["choose_dice:2"]})
        else:
            reply.put({"ok": False, "error": f"no action {request.get('id')!r}"})


@pytest.fixture
def table() -> FakeTable:
    return FakeTable()


def serve(table: FakeTable, camera: CameraView = lambda: None, **limits: Any) -> Dashboard:
    return Dashboard("127.0.0.1:0", table.submit, camera, TOKEN, **limits)


@pytest.fixture
def served(table: FakeTable) -> Iterator[Dashboard]:
    dash = serve(table)
    yield dash
    dash.close()


def get(url: str, body: object = None, headers: dict[str, str] | None = None) -> Fetched:
    """`fetch` with the token."""
    return fetch(url, body, KEY | (headers or {}))


def test_listen_addresses() -> None:
    assert parse_listen("0.0.0.0:8080") == ("0.0.0.0", 8080)
    assert parse_listen("[::1]:81") == ("::1", 81)
    assert parse_listen("8080") == ("127.0.0.1", 8080)
    for bad in ("", "host:", "host:http", "1.2.3.4:70000", ":80"):
        with pytest.raises(ValueError, match="HOST:PORT"):
            parse_listen(bad)


def test_a_dashboard_on_a_wildcard_address_gives_addresses_that_reach_it(
    table: FakeTable,
) -> None:
    """0.0.0.0 (or ::) is where to listen, not where a phone can go: the machine's own addresses
    are given instead, each of which serves the page."""
    wildcards = ["0.0.0.0"] + (["::"] if socket.has_ipv6 else [])
    for wildcard in wildcards:
        dash = Dashboard(f"[{wildcard}]:0", table.submit, lambda: None, TOKEN)
        try:
            hosts = reachable_hosts(wildcard, by_name=True)
            assert hosts and wildcard not in hosts
            assert dash.url() == dash.url_at(hosts[0])
            for host in hosts:
                assert get(dash.url_at(host)).status == 200, host
        finally:
            dash.close()
    assert reachable_hosts("127.0.0.1") == ["127.0.0.1"]
    assert reachable_hosts("table.local", by_name=True) == ["table.local"]


def test_config_checks_the_web_section(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[web]\nlisten = "0.0.0.0:8080"\ntoken = "abcdefghijklmnopqrstu"\n')
    config = load_config(path)
    assert (config.web_listen, config.web_token) == ("0.0.0.0:8080", "abcdefghijklmnopqrstu")
    assert config.web_max_connections == 256
    for line, fault in (
        ('listen = "nowhere"', "HOST:PORT"),
        ('token = "short"', "16"),
        ("max_connections = 5000", "8..512 connections"),
    ):
        path.write_text(f"[web]\n{line}\n")
        with pytest.raises(ConfigError, match=rf"\[?web[].].*{fault}"):
            load_config(path)


def test_changing_requests_reach_the_table_and_refusals_come_back(
    served: Dashboard, table: FakeTable
) -> None:
    api = served.url() + "api/"
    reply = get(api + "act", {"id": "choose_dice:2", "request_id": "r1"})
    assert (reply.status, reply.json()["applied"]) == (200, ["choose_dice:2"])
    assert table.requests == [{"id": "choose_dice:2", "request_id": "r1", "op": "act"}]
    refused = get(api + "act", {"id": "fly"})
    assert (refused.status, refused.json()["error"]) == (409, "no action 'fly'")
    table.requests.clear()
    json_type = {"Content-Type": "application/json"}
    bad = {
        "bad JSON": (400, get(api + "act", b"{not json", json_type)),
        "not an object": (400, get(api + "act", [1, 2])),
        "nested too deep": (400, get(api + "act", b"[" * 60_000, json_type)),
        "an object too deep": (400, get(api + "act", {"id": {"a": [[[[[[[[1]]]]]]]]}})),
        "a bad request id": (400, get(api + "act", {"request_id": "a b"})),
        "too big": (413, get(api + "act", {"id": "x" * 70_000})),
        "unknown op": (404, get(api + "fly", {})),
        "a GET op": (404, get(api + "snapshot", {})),
        "a form's post": (415, get(api + "act", b"id=x", {"Content-Type": "text/plain"})),
        "another site": (403, get(api + "act", {"id": "x"}, {"Origin": "http://evil.example"})),
    }
    for name, (status, reply) in bad.items():
        assert reply.status == status, name
        assert reply.json()["error"], name
    assert "nested" in bad["nested too deep"][1].json()["error"]
    assert table.requests == []


def test_a_get_only_reads(served: Dashboard, table: FakeTable) -> None:
    base = served.url()
    page = get(base)
    assert page.status == 200 and b'src="/static/app.js"' in page.body
    assert get(base + "static/app.js").headers["Content-Type"].startswith("text/javascript")
    assert get(base + "static/../web.py").status == 404
    assert get(base + "api/snapshot").json() == SNAPSHOT
    record = get(base + "api/record.json")
    assert record.json() == RECORD
    assert record.headers["Content-Disposition"] == 'attachment; filename="akuma-record.json"'
    assert get(base + "api/camera.jpg").status == 404  # no camera
    assert get(base + "api/act?id=choose_dice:2").status == 405
    assert get(base + "api/nowhere").status == 404
    # The other reading ops take their arguments from the query; its "op" is not obeyed.
    assert get(base + "api/games").status == 409  # the fake table knows no past games
    assert get(base + "api/dice_stats").status == 409  # nor any dice record
    assert get(base + "api/replay?id=past&step=1&op=act").status == 409
    assert table.requests[-1] == {"op": "replay", "id": "past", "step": "1"}
    # How to play: the query's game and language go to the op (the fake table knows no guide).
    assert get(base + "api/guide?game=voodoo&lang=fr").status == 409
    assert table.requests[-1] == {"op": "guide", "game": "voodoo", "lang": "fr"}
    # The camera tools' state (the fake table has no camera).
    assert get(base + "api/camera_state").status == 409
    assert [r["op"] for r in table.requests] == [
        "snapshot", "record", "games", "dice_stats", "replay", "guide", "camera_state",
    ]  # fmt: skip
    assert tuple(r["op"] for r in table.requests) == dashboard_ops("get")


def test_a_games_words_are_served_once_for_the_page_to_keep(served: Dashboard) -> None:
    words = get(served.url() + "api/words.json?game=akuma")
    assert words.json()["fr"]["players"]["hawkmoth"] == "Papillombre"
    assert words.json()["fields"]["place_trap"] == ["square"]
    assert "max-age" in words.headers["Cache-Control"]
    assert get(served.url() + "api/words.json?game=chess").status == 404


def test_the_camera_picture(table: FakeTable) -> None:
    dash = serve(table, lambda: b"\xff\xd8jpeg")
    try:
        reply = get(dash.url() + "api/camera.jpg")
    finally:
        dash.close()
    assert (reply.status, reply.headers["Content-Type"], reply.body) == (
        200,
        "image/jpeg",
        b"\xff\xd8jpeg",
    )


def test_on_loopback_too_every_request_needs_the_token(served: Dashboard) -> None:
    """Any local user can reach 127.0.0.1: the address proves nothing (issue 19)."""
    base = served.url()
    for path in ("", "static/app.js", "api/snapshot", "api/record.json", "api/events", "nowhere"):
        assert fetch(base + path).status == 401, path
        assert fetch(base + path, headers={"Cookie": "smartboard_token=wrong"}).status == 401
    assert fetch(base + "api/act", {"id": "choose_dice:2"}).status == 401
    assert first_event(base + "api/events")[0] == 401
    assert fetch(base + "api/snapshot", headers={"X-Smartboard-Token": TOKEN[:-1]}).status == 401
    # Bytes that are no text, in the header or the cookie: refused like any wrong token.
    for header in (b"X-Smartboard-Token: \xff", b"Cookie: smartboard_token=\xff"):
        with socket.create_connection(("127.0.0.1", served.port), timeout=10) as sock:
            sock.sendall(b"GET /api/snapshot HTTP/1.1\r\nHost: x\r\n" + header + b"\r\n\r\n")
            assert sock.recv(100).startswith(b"HTTP/1.1 401 ")
    # The token in the address becomes a cookie the page's own requests carry.
    entry = fetch(served.url(with_token=True))
    assert (entry.status, entry.headers["Location"]) == (303, "/")
    cookie = entry.headers["Set-Cookie"]
    assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
    carried = {"Cookie": cookie.split(";")[0]}
    assert fetch(base, headers=carried).status == 200
    served.publish(SNAPSHOT)
    assert first_event(base + "api/events", carried) == (200, SNAPSHOT)


def test_a_table_that_does_not_answer_gives_503(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(requests, "REPLY_TIMEOUT_S", 0.05)
    dash = Dashboard("127.0.0.1:0", lambda request, reply: None, lambda: None, TOKEN)
    try:
        reply = get(dash.url() + "api/act", {"id": "x"})
    finally:
        dash.close()
    answer = reply.json()
    assert reply.status == 503 and answer["unknown"] is True
    assert "did not answer" in answer["error"] and "same id" in answer["error"]


def test_published_snapshots_are_pushed_to_open_pages(served: Dashboard) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=5)
    connection.request("GET", "/api/events", headers=KEY)
    stream = connection.getresponse()
    assert stream.headers["Content-Type"] == "text/event-stream"
    assert stream.readline() == b"retry: 1000\n"
    for version in (1, 2):
        served.publish({**SNAPSHOT, "version": version})
        line = b"\n"
        while line == b"\n":
            line = stream.readline()
        assert json.loads(line.removeprefix(b"data: "))["version"] == version
    connection.close()
    # A page that opens later gets the latest at once.
    assert first_event(served.url() + "api/events", KEY)[1]["version"] == 2


def test_a_port_in_use_is_a_clear_error(served: Dashboard, table: FakeTable) -> None:
    with pytest.raises(WebError, match=f"cannot listen on 127.0.0.1:{served.port}"):
        Dashboard(f"127.0.0.1:{served.port}", table.submit, lambda: None, TOKEN)


def test_idle_connections_make_way_and_the_page_still_answers(table: FakeTable) -> None:
    """Issue 19: 1,100 idle connections took every file and every thread. Now the oldest idle
    connection makes way for a new one, so the connections stay within the cap."""
    dash = serve(table, max_connections=20)
    idle = [socket.create_connection(("127.0.0.1", dash.port)) for _ in range(60)]
    try:
        for _ in range(3):
            assert get(dash.url() + "api/snapshot").json() == SNAPSHOT
        assert dash.connections() <= 20
        # The oldest of the idle connections were closed by the server.
        idle[0].settimeout(5)
        assert idle[0].recv(1) == b""
    finally:
        for sock in idle:
            sock.close()
        dash.close()


def test_a_connection_that_sends_nothing_is_closed(table: FakeTable) -> None:
    dash = serve(table, idle_timeout_s=0.1)
    try:
        with socket.create_connection(("127.0.0.1", dash.port)) as silent:
            silent.sendall(b"GET / HTTP/1.1\r\nHost: x\r\n")  # and never the end of it
            silent.settimeout(10)
            assert silent.recv(100) == b""
    finally:
        dash.close()


@given(st.binary(max_size=300))
def test_any_bytes_get_an_answer_and_the_server_goes_on(served: Dashboard, data: bytes) -> None:
    """Raw bytes on the socket, as a broken or hostile client sends them: an HTTP error or a
    closed connection, never a server that stops serving."""
    with socket.create_connection(("127.0.0.1", served.port), timeout=10) as sock:
        sock.sendall(data + b"\r\n\r\n")
        sock.shutdown(socket.SHUT_WR)
        answer = b"".join(iter(lambda: sock.recv(65536), b""))
    assert answer == b"" or answer.startswith(b"HTTP/1.")
    assert get(served.url() + "api/snapshot").status == 200


@given(
    st.one_of(
        st.binary(max_size=200),
        st.recursive(
            st.none() | st.booleans() | st.integers() | st.text(max_size=10),
            lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(), inner),
            max_leaves=20,
        ).map(lambda value: json.dumps(value).encode()),
    )
)
def test_any_posted_body_gets_a_clear_reply(served: Dashboard, body: bytes) -> None:
    reply = get(served.url() + "api/act", body, {"Content-Type": "application/json"})
    assert reply.status in (200, 400, 409)
    assert isinstance(reply.json()["error" if reply.status != 200 else "ok"], str | bool)


def test_the_token_is_made_once_and_kept_private(tmp_path: Path) -> None:
    token, new = load_token(tmp_path)
    assert new and len(token) >= 16
    assert stat.S_IMODE((tmp_path / "web_token").stat().st_mode) == 0o600
    assert load_token(tmp_path) == (token, False)
    (tmp_path / "web_token").write_text("?\n")
    with pytest.raises(WebError, match="delete it"):
        load_token(tmp_path)


def test_the_daemon_keeps_its_token_out_of_the_log_and_a_post_with_it_plays(
    tmp_path: Path,
) -> None:
    """Not at a terminal (a service, whose output goes to the system's log that other users may
    read), the daemon says how to get the address with the token, never the token itself."""
    with dashboard(tmp_path, "--game", "akuma", listen="0.0.0.0:0") as table:
        # With this table's state directory: without it, the command asks another (the walk).
        asked = f"`smartboard dashboard --state-dir {tmp_path}`"
        hint = f"dashboard: {asked} prints its address with the token"
        assert table.printed[1].strip() == hint
        # The machine's addresses, where a phone can go, not the 0.0.0.0 listened on.
        urls = table.printed[0].removeprefix("dashboard: ").split()
        assert urls and not any("0.0.0.0" in url for url in urls)
        for url in urls:
            assert fetch(url + "api/snapshot", headers=table.key).status == 200, url
        assert stat.S_IMODE((tmp_path / "web_token").stat().st_mode) == 0o600
        base = table.url
        # A GET never changes the game, whatever it asks for; a POST with the token does.
        # (Once the simulated camera has settled on the cards: that changes the snapshot.)
        snapshot = base + "api/snapshot"
        wait_for(lambda: not fetch(snapshot, headers=table.key).json()["settling"], what="settled")
        # (The snapshot's version may count a snapshot made again with nothing changed.)
        before = fetch(base + "api/snapshot", headers=table.key).json() | {"version": None}
        for path in ("", "api/record.json", "api/camera.jpg", "api/act?id=choose_dice:2"):
            fetch(base + path, headers=table.key)
        again = fetch(base + "api/snapshot", headers=table.key).json()
        assert again | {"version": None} == before
        assert fetch(base + "api/act", {"id": "choose_dice:2"}, table.key).status == 200
        after = fetch(base + "api/snapshot", headers=table.key).json()
        assert after["log"] == [*before["log"], "choose_dice:2"]
    # Started again, it keeps the same token.
    with dashboard(tmp_path, "--game", "akuma") as again:
        assert again.printed[1].strip() == hint and again.token == table.token
