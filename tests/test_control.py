"""The control socket and its requests: bounded lines, bursts of clients, hostile bytes, and
requests applied at most once (issue 19)."""

from __future__ import annotations

import json
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest
from daemon_run import call, serving
from hypothesis import given
from hypothesis import strategies as st

from controller import control, paths
from controller.config import Config
from controller.control import ControlError, ControlServer, request
from controller.daemon import Daemon
from controller.operations import answer
from controller.requests import MAX_REQUEST, Reply, RequestError, parse_request
from controller.rules.api import JSON
from controller.startup import RunOptions


class Echo:
    """A loop that answers each request at once with what it was asked."""

    def __init__(self) -> None:
        self.seen: list[JSON] = []

    def submit(self, message: JSON, reply: Reply) -> None:
        self.seen.append(message)
        reply.put({"ok": True, "op": message["op"]})


@pytest.fixture
def echo() -> Echo:
    return Echo()


@pytest.fixture
def server(tmp_path: Path, echo: Echo) -> Iterator[ControlServer]:
    served = ControlServer(tmp_path / "control.sock", echo.submit)
    yield served
    served.close()


def exchange(path: Path, data: bytes) -> list[JSON]:
    """Send `data`, close the sending side, and read every reply line until the server closes."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(str(path))
        sock.sendall(data)
        sock.shutdown(socket.SHUT_WR)
        received = b"".join(iter(lambda: sock.recv(65536), b""))
    return [json.loads(line) for line in received.splitlines()]


def test_a_line_longer_than_the_limit_is_refused_without_waiting_for_its_end(
    server: ControlServer,
) -> None:
    """Issue 19: a 300 MiB line was read whole before the limit was checked. Now the server
    answers once the limit is passed, while the client is still sending, and hangs up."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(10)
        sock.connect(str(server.path))
        sock.sendall(b'{"op": "' + b"x" * (MAX_REQUEST * 3))  # no newline, and more to come
        reply = json.loads(sock.recv(65536))
    assert reply["ok"] is False and f"at most {MAX_REQUEST} bytes" in reply["error"]


def test_a_burst_of_clients_is_answered_in_full(server: ControlServer) -> None:
    """Issue 19: 10 threads sending 200 requests lost 63 to a listen backlog of 5."""
    replies: list[JSON] = []
    errors: list[Exception] = []

    def client() -> None:
        for _ in range(20):
            try:
                replies.append(request(server.path, {"op": "status"}, timeout=30))
            except ControlError as error:
                errors.append(error)

    threads = [threading.Thread(target=client) for _ in range(10)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == []
    assert len(replies) == 200 and all(r == {"ok": True, "op": "status"} for r in replies)


def test_deep_nesting_is_refused_and_the_connection_goes_on(server: ControlServer) -> None:
    """Issue 19: deeply nested JSON under the size limit raised RecursionError."""
    replies = exchange(server.path, b"[" * 60_000 + b"\n" + b'{"op": "status"}\n')
    assert replies[0]["ok"] is False and "nested" in replies[0]["error"]
    assert replies[1] == {"ok": True, "op": "status"}


def test_every_request_gets_an_id_that_a_retry_keeps(
    server: ControlServer, echo: Echo, monkeypatch: pytest.MonkeyPatch
) -> None:
    request(server.path, {"op": "act", "id": "a"})
    request(server.path, {"op": "act", "id": "a"})
    first, second = (seen["request_id"] for seen in echo.seen)
    assert first != second  # two commands are two requests
    # A reply that says "unknown" is asked for again, with the same id.
    unknown = {"ok": False, "unknown": True, "error": "slow"}
    answers = iter([unknown, {"ok": True}])
    sent: list[bytes] = []

    def exchange_once(path: Path, line: bytes, timeout: float) -> JSON | None:
        sent.append(line)
        return next(answers)

    monkeypatch.setattr(control, "_exchange", exchange_once)
    assert request(server.path, {"op": "act"}) == {"ok": True}
    assert len(sent) == 2 and sent[0] == sent[1]


def test_no_answer_at_all_is_said_to_be_unknown(
    server: ControlServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(control, "_exchange", lambda path, line, timeout: None)
    with pytest.raises(ControlError, match="may still be applied") as raised:
        request(server.path, {"op": "act"})
    assert raised.value.unknown


def test_a_failure_after_a_try_with_no_answer_is_unknown(
    server: ControlServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The first try may have been applied: a daemon gone by the second does not make it sure."""
    tries: list[JSON | None] = [None]

    def exchange_once(path: Path, line: bytes, timeout: float) -> JSON | None:
        if tries:
            return tries.pop()
        raise ControlError("no daemon is listening")

    monkeypatch.setattr(control, "_exchange", exchange_once)
    with pytest.raises(ControlError, match="may still be applied") as raised:
        request(server.path, {"op": "act"})
    assert raised.value.unknown
    # Refused for being busy every time: nothing was applied, and the command says so.
    busy = {"ok": False, "busy": True, "error": "too many connections: try again"}
    monkeypatch.setattr(control, "_exchange", lambda path, line, timeout: busy)
    with pytest.raises(ControlError, match="too busy: nothing was applied") as raised:
        request(server.path, {"op": "act"})
    assert not raised.value.unknown


def test_no_daemon_is_a_certain_failure(tmp_path: Path) -> None:
    with pytest.raises(ControlError, match="no daemon is listening") as raised:
        request(tmp_path / "none.sock", {"op": "act"})
    assert not raised.value.unknown
    # The walk: a daemon killed with -9 leaves its socket behind, nobody listening on it.
    left = tmp_path / "left.sock"
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as gone:
        gone.bind(str(left))
    with pytest.raises(ControlError, match=r"no daemon is listening .*smartboard run") as raised:
        request(left, {"op": "act"})
    assert not raised.value.unknown


def test_a_user_outside_the_services_group_is_told_how_to_join(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The builder's walk: right after installing, /run/smartboard (0750) is closed to the
    login user, and `smartboard actions` died with a PermissionError's traceback."""

    def closed(self: Path) -> bool:
        raise PermissionError(13, "Permission denied", str(self))

    monkeypatch.setattr(paths, "SERVICE_SOCKET", tmp_path / "run" / "control.sock")
    monkeypatch.setattr(Path, "exists", closed)
    assert paths.client_socket_path(None) == tmp_path / "run" / "control.sock"
    monkeypatch.undo()

    def refused(self: socket.socket, address: str) -> None:
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(socket.socket, "connect", refused)
    with pytest.raises(ControlError, match=r"group smartboard \(`sudo usermod") as raised:
        request(tmp_path / "control.sock", {"op": "status"})
    assert not raised.value.unknown


def test_the_services_state_directory_finds_the_services_socket(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The builder's walk: `status --state-dir /var/lib/smartboard` (the README's) read the
    journal alone, as the service listens in /run/smartboard."""
    state, run = tmp_path / "lib", tmp_path / "run"
    state.mkdir(mode=0o700), run.mkdir()  # the service's own: its group cannot look inside
    (run / "control.sock").touch()
    monkeypatch.setattr(paths, "SERVICE_STATE_DIR", state)
    monkeypatch.setattr(paths, "SERVICE_SOCKET", run / "control.sock")
    assert paths.client_socket_path(state) == run / "control.sock"
    other = tmp_path / "mine"
    assert paths.client_socket_path(other) == other / "control.sock"


@given(st.binary(max_size=400))
def test_any_bytes_get_replies_and_the_server_goes_on(server: ControlServer, data: bytes) -> None:
    for reply in exchange(server.path, data):
        assert isinstance(reply["ok"], bool)
        assert reply["ok"] or isinstance(reply["error"], str)
    assert request(server.path, {"op": "status"})["ok"]


@given(st.binary(max_size=400) | st.text(max_size=100).map(str.encode))
def test_parse_request_reads_a_request_or_says_why_not(data: bytes) -> None:
    try:
        parsed = parse_request(data)
    except RequestError as error:
        assert str(error)
    else:
        assert isinstance(parsed["op"], str)


# -- through the daemon's loop ------------------------------------------------------------


@pytest.fixture
def running(sim_config: Config, run_options: RunOptions) -> Iterator[Daemon]:
    with serving(sim_config, run_options(game="akuma", seed=3)) as daemon:
        yield daemon


def test_a_retried_request_is_applied_once_and_gets_its_first_reply(running: Daemon) -> None:
    """Issue 19: a roll retried after a time-out was applied twice."""
    first = call(running, op="act", id="choose_dice:1", request_id="retry-1")
    again = call(running, op="act", id="choose_dice:1", request_id="retry-1")
    assert first["ok"] and first["applied"] == ["choose_dice:1"]
    assert again == first | {"repeated": True}
    assert call(running, op="status")["history"] == [{"type": "ChooseDice", "count": 1}]
    # Another id is another request: refused, as the dice are chosen already.
    assert not call(running, op="act", id="choose_dice:1", request_id="retry-2")["ok"]


def test_a_request_that_waited_too_long_is_not_applied(running: Daemon) -> None:
    """A server gives up after REPLY_TIMEOUT_S; the loop refuses what waited longer than
    ANSWER_WITHIN_S, so a client told "failed" can trust that nothing happened."""
    late = answer(running, {"op": "act", "id": "choose_dice:1"}, 0.0, waited=9.0)
    assert not late["ok"] and "not applied" in late["error"]
    assert call(running, op="status")["history"] == []


def test_a_request_applied_before_a_restart_is_not_applied_again(
    sim_config: Config, run_options: RunOptions
) -> None:
    """The ids go into the journal with what they applied: a command that retries across a
    restart of the daemon (killed, or restarted by its service) gets the reply it missed."""
    options = run_options(game="akuma", seed=3)
    with serving(sim_config, options) as daemon:
        first = call(daemon, op="act", id="choose_dice:1", request_id="before-restart")
        started = call(daemon, op="new", abandon=True, request_id="new-game")
        again = call(daemon, op="act", id="choose_dice:1", request_id="after-new")
    assert first["applied"] == ["choose_dice:1"] and started["ok"] and again["ok"]
    with serving(sim_config, options) as daemon:
        assert call(daemon, op="act", id="choose_dice:1", request_id="after-new") == {
            "ok": True,
            "applied": ["choose_dice:1"],
            "repeated": True,
        }
        assert call(daemon, op="new", abandon=True, request_id="new-game") == {
            "ok": True,
            "game": "akuma",
            "repeated": True,
        }
        assert call(daemon, op="status")["history"] == [{"type": "ChooseDice", "count": 1}]


def test_status_says_whose_roll_the_table_waits_for_by_the_name_chosen(running: Daemon) -> None:
    """A terminal player reads what the table waits for, the seat named as at the table."""
    assert call(running, op="new", abandon=True, names=["Ana", "Bob"])["ok"]
    assert call(running, op="act", id="choose_dice:1")["ok"]
    waiting = call(running, op="status")["waiting"]
    assert waiting.startswith("a roll for Ana: one die (d6, faces 1-6)")
    assert "`smartboard roll " in waiting
