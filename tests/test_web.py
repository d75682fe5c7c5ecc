"""The dashboard's server: routes, errors, pushed snapshots and the token (no browser)."""

from __future__ import annotations

import http.client
import json
import queue
import stat
from collections.abc import Iterator
from pathlib import Path

import pytest
from web_daemon import dashboard, fetch, first_event

from controller import web
from controller.config import ConfigError, load_config
from controller.operations import dashboard_ops
from controller.rules.api import JSON
from controller.web import Dashboard, WebError, load_token
from controller.web_access import parse_listen

SNAPSHOT: JSON = {"version": 3, "game": "akuma", "log": ["choose dice: 2"]}
RECORD: JSON = {"game": "akuma", "options": {"traps": 5}, "history": [{"type": "ChooseDice"}]}


class FakeTable:
    """Answers control requests as the daemon's loop would, and keeps them."""

    def __init__(self) -> None:
        self.requests: list[JSON] = []

    def submit(self, request: JSON, reply: queue.Queue[JSON]) -> None:
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


@pytest.fixture
def served(table: FakeTable) -> Iterator[Dashboard]:
    dash = Dashboard("127.0.0.1:0", table.submit, lambda: None)
    yield dash
    dash.close()


def test_listen_addresses() -> None:
    assert parse_listen("0.0.0.0:8080") == ("0.0.0.0", 8080)
    assert parse_listen("[::1]:81") == ("::1", 81)
    assert parse_listen("8080") == ("127.0.0.1", 8080)
    for bad in ("", "host:", "host:http", "1.2.3.4:70000", ":80"):
        with pytest.raises(ValueError, match="HOST:PORT"):
            parse_listen(bad)


def test_config_checks_the_web_section(tmp_path: Path) -> None:
    path = tmp_path / "config.toml"
    path.write_text('[web]\nlisten = "0.0.0.0:8080"\ntoken = "abcdefghijklmnopqrstu"\n')
    config = load_config(path)
    assert (config.web_listen, config.web_token) == ("0.0.0.0:8080", "abcdefghijklmnopqrstu")
    for line, fault in (('listen = "nowhere"', "HOST:PORT"), ('token = "short"', "16")):
        path.write_text(f"[web]\n{line}\n")
        with pytest.raises(ConfigError, match=rf"\[web\].*{fault}"):
            load_config(path)


def test_changing_requests_reach_the_table_and_refusals_come_back(
    served: Dashboard, table: FakeTable
) -> None:
    api = served.url() + "api/"
    reply = fetch(api + "act", {"id": "choose_dice:2"})
    assert (reply.status, reply.json()["applied"]) == (200, ["choose_dice:2"])
    assert table.requests == [{"id": "choose_dice:2", "op": "act"}]
    refused = fetch(api + "act", {"id": "fly"})
    assert (refused.status, refused.json()["error"]) == (409, "no action 'fly'")
    table.requests.clear()
    json_type = {"Content-Type": "application/json"}
    bad = {
        "bad JSON": (400, fetch(api + "act", b"{not json", json_type)),
        "not an object": (400, fetch(api + "act", [1, 2])),
        "unknown op": (404, fetch(api + "fly", {})),
        "a GET op": (404, fetch(api + "snapshot", {})),
        "a form's post": (415, fetch(api + "act", b"id=x", {"Content-Type": "text/plain"})),
        "another site": (403, fetch(api + "act", {"id": "x"}, {"Origin": "http://evil.example"})),
    }
    for name, (status, reply) in bad.items():
        assert reply.status == status, name
        assert reply.json()["error"], name
    assert table.requests == []


def test_a_get_only_reads(served: Dashboard, table: FakeTable) -> None:
    base = served.url()
    page = fetch(base)
    assert page.status == 200 and b'src="/static/app.js"' in page.body
    assert fetch(base + "static/app.js").headers["Content-Type"].startswith("text/javascript")
    assert fetch(base + "static/../web.py").status == 404
    assert fetch(base + "api/snapshot").json() == SNAPSHOT
    record = fetch(base + "api/record.json")
    assert record.json() == RECORD
    assert record.headers["Content-Disposition"] == 'attachment; filename="akuma-record.json"'
    assert fetch(base + "api/camera.jpg").status == 404  # no camera
    assert fetch(base + "api/act?id=choose_dice:2").status == 404
    assert [r["op"] for r in table.requests] == ["snapshot", "record"]
    assert tuple(r["op"] for r in table.requests) == dashboard_ops("get")


def test_the_camera_picture(table: FakeTable) -> None:
    dash = Dashboard("127.0.0.1:0", table.submit, lambda: b"\xff\xd8jpeg")
    try:
        reply = fetch(dash.url() + "api/camera.jpg")
    finally:
        dash.close()
    assert (reply.status, reply.headers["Content-Type"], reply.body) == (
        200,
        "image/jpeg",
        b"\xff\xd8jpeg",
    )


def test_on_loopback_another_host_name_is_refused(served: Dashboard) -> None:
    """A web site whose name is rebound to 127.0.0.1 must not reach the table."""
    reply = fetch(served.url() + "api/snapshot", headers={"Host": f"evil.example:{served.port}"})
    assert reply.status == 403
    assert fetch(served.url().replace("127.0.0.1", "localhost") + "api/snapshot").status == 200


def test_a_table_that_does_not_answer_gives_503(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(web, "REPLY_TIMEOUT_S", 0.05)
    dash = Dashboard("127.0.0.1:0", lambda request, reply: None, lambda: None)
    try:
        reply = fetch(dash.url() + "api/act", {"id": "x"})
    finally:
        dash.close()
    assert reply.status == 503 and "did not answer" in reply.json()["error"]


def test_published_snapshots_are_pushed_to_open_pages(served: Dashboard) -> None:
    connection = http.client.HTTPConnection("127.0.0.1", served.port, timeout=5)
    connection.request("GET", "/api/events")
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
    assert first_event(served.url() + "api/events")[1]["version"] == 2


def test_a_port_in_use_is_a_clear_error(served: Dashboard, table: FakeTable) -> None:
    with pytest.raises(WebError, match=f"cannot listen on 127.0.0.1:{served.port}"):
        Dashboard(f"127.0.0.1:{served.port}", table.submit, lambda: None)


def test_the_token_is_made_once_and_kept_private(tmp_path: Path) -> None:
    token, new = load_token(tmp_path)
    assert new and len(token) >= 16
    assert stat.S_IMODE((tmp_path / "web_token").stat().st_mode) == 0o600
    assert load_token(tmp_path) == (token, False)
    (tmp_path / "web_token").write_text("?\n")
    with pytest.raises(WebError, match="delete it"):
        load_token(tmp_path)


def test_off_loopback_every_request_needs_the_token(tmp_path: Path) -> None:
    with dashboard(tmp_path, "--game", "akuma", listen="0.0.0.0:0") as table:
        shown = table.printed[1]
        assert "shown once" in shown and str(tmp_path / "web_token") in shown
        token = (tmp_path / "web_token").read_text().strip()
        assert shown.rstrip().endswith(f"/?token={token}")
        base = table.url
        for path in ("", "static/app.js", "api/snapshot", "api/record.json", "api/events"):
            assert fetch(base + path).status == 401, path
            assert fetch(base + path, headers={"Cookie": "smartboard_token=wrong"}).status == 401
        assert fetch(base + "api/act", {"id": "choose_dice:2"}).status == 401
        assert first_event(base + "api/events")[0] == 401

        # The token in the address becomes a cookie the page's own requests carry.
        entry = fetch(f"{base}?token={token}")
        assert (entry.status, entry.headers["Location"]) == (303, "/")
        cookie = entry.headers["Set-Cookie"]
        assert "HttpOnly" in cookie and "SameSite=Strict" in cookie
        carried = {"Cookie": cookie.split(";")[0]}
        assert fetch(base, headers=carried).status == 200
        status, snapshot = first_event(base + "api/events", carried)
        assert (status, snapshot["game"], snapshot["to_move"]) == (200, "akuma", "hawkmoth")

        # A GET never changes the game, whatever it asks for; a POST with the token does.
        before = fetch(base + "api/snapshot", headers=carried).json()
        for path in ("", "api/record.json", "api/camera.jpg", "api/act?id=choose_dice:2"):
            fetch(base + path, headers=carried)
        assert fetch(base + "api/snapshot", headers=carried).json() == before
        header = {"X-Smartboard-Token": token}
        assert fetch(base + "api/act", {"id": "choose_dice:2"}, header).status == 200
        after = fetch(base + "api/snapshot", headers=header).json()
        assert after["log"] == [*before["log"], "choose dice: 2"]
