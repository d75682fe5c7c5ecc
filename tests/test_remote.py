"""Linked tables (issue 25) through a real Mosquitto (the `mosquitto` fixture): two simulated
tables play a game to its end, each with bots on its own seats carrying out the other's moves as
hands, and both journals end alike; a message seen twice is applied once; one that does not
follow the table's history stops the exchange ("tables disagree"); a stranger's message (a wrong
secret, garbage) is ignored; a broker out of reach, or refusing the table, stops the start-up;
over TLS, a table joins with the CA of the broker's certificate and stops with another."""

from __future__ import annotations

import json
import socket
import ssl
import subprocess
import sys
import threading
from dataclasses import replace
from pathlib import Path
from typing import Any

import paho.mqtt.client as mqtt
import pytest
from conftest import (
    REPO,
    Mosquitto,
    fast_sim_config,
    free_port,
    listening,
    options_in,
    wait_for,
)
from daemon_run import call, serving
from paho.mqtt.enums import CallbackAPIVersion

from controller.cli import main
from controller.journal import Journal
from controller.room import chain, sign, verify
from controller.rules import get_game
from controller.rules.api import JSON

SECRET = "room secret"
FAST = "[reeds]\ndebounce_ms = 5\n[session]\nsettle_s = 0.2\n"


def _table(tmp: Path, broker: Mosquitto, room: str, seat: int, seed: int) -> subprocess.Popen[str]:
    folder = tmp / f"table{seat}"
    folder.mkdir()
    config = folder / "config.toml"
    config.write_text(FAST)
    args = ["run", "--sim", "--bots", "--pace", "0", "--until-end", "--no-show", "--game"]
    args += ["akuma", "--seed", str(seed), "--config", str(config), "--state-dir", str(folder)]
    args += ["--link", broker.url(room), "--seats", str(seat), "--link-secret", SECRET]
    return subprocess.Popen(
        [sys.executable, "-m", "controller", *args],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )


def test_two_tables_play_a_game_to_its_end_and_their_journals_agree(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """Seat 1 on one table, seat 2 on the other: each senses its own seat's dice and moves and
    carries out the other's, lit; both finish, with the same history, each action once."""
    tables = [_table(tmp_path, mosquitto, "game1", seat, seed) for seat, seed in ((1, 5), (2, 6))]
    outputs = [table.communicate(timeout=90) for table in tables]
    for table, (out, err) in zip(tables, outputs, strict=True):
        assert table.returncode == 0, err
        assert "result:" in out
    first, second = (Journal(tmp_path / f"table{seat}").read() for seat in (1, 2))
    assert first.history() == second.history()
    assert len(first.history()) > 4
    assert outputs[0][0] == outputs[1][0]  # the same result


class Stranger:
    """A client of the broker's in the test: plays the other table by hand, or a stranger."""

    def __init__(self, broker: Mosquitto, room: str) -> None:
        self.root = f"smartboard/{room}"
        self.seen: dict[str, bytes] = {}
        self.lock = threading.Lock()
        self.client = mqtt.Client(CallbackAPIVersion.VERSION2)
        self.client.on_message = self._message
        self.client.connect("127.0.0.1", broker.port)
        self.client.subscribe(f"{self.root}/#", qos=1)
        self.client.loop_start()

    def _message(self, client: object, userdata: object, message: Any) -> None:
        with self.lock:
            self.seen[message.topic] = bytes(message.payload)

    def send(self, topic: str, body: JSON, secret: str = SECRET, retain: bool = False) -> None:
        topic = f"{self.root}/{topic}"
        self.client.publish(topic, sign(secret.encode(), topic, body), qos=1, retain=retain)

    def raw(self, topic: str, payload: bytes) -> None:
        self.client.publish(f"{self.root}/{topic}", payload, qos=1)

    def close(self) -> None:
        self.client.disconnect()
        self.client.loop_stop()


def _actions(game_name: str, ids: list[str]) -> list[JSON]:
    """The actions of `ids` played in turn from a new game, as JSON."""
    game = get_game(game_name)
    state = game.new_initial_state({})
    played = []
    for wanted in ids:
        choices = (
            [o for o, _ in state.chance_outcomes()]
            if state.is_chance_node()
            else state.legal_actions()
        )
        action = next(a for a in choices if a.id == wanted)
        played.append(action.to_json())
        state.apply(action)
    return played


def test_a_table_follows_the_room_once_and_refuses_what_does_not_follow(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """The table plays seat 2; the test is the table of seat 1, opening the room's game. Its
    roll is caught up with, and the table's own roll published, signed; the same message again
    is a duplicate; a wrong secret and garbage are ignored; a different roll in place of one
    applied: the tables disagree, naming the last action both have."""
    game_id, room = "feedc0de0001", "follow"
    other = Stranger(mosquitto, room)
    history = _actions("akuma", ["choose_dice:1", "roll:3"])
    digests = [""]
    for action in history:
        digests.append(chain(digests[-1], action))
    options = dict(get_game("akuma").new_initial_state({}).options)
    body = {"game_id": game_id, "game": "akuma", "options": options}
    other.send("state", body | {"length": 0, "digest": ""}, retain=True)
    # The table of seat 1 is in the room, playing that game: a table joins only such a game.
    presence = {"online": True, "seats": [0], "game_id": game_id, "dice": "table"}
    other.send("table/other", presence, retain=True)
    for seq, action in enumerate(history):
        sent = {"game_id": game_id, "seq": seq, "action": action, "prev": digests[seq]}
        other.send(f"game/{game_id}/{seq}", sent | {"by": "other"}, retain=True)
    config = fast_sim_config(
        link_url=mosquitto.url(room), link_seats=(2,), link_secret=SECRET, game="akuma"
    )
    try:
        with serving(config, options_in(tmp_path)) as daemon:
            wait_for(lambda: call(daemon, op="status")["history"] == history, what="catch-up")
            status = call(daemon, op="status")
            assert status["room"]["state"] == "playing"
            assert status["room"]["game_id"] == game_id
            # Seat 1's roll is not this table's to read.
            assert call(daemon, op="roll", values=[4])["ok"]  # ladybug's (seat 2) own roll
            ours = f"{other.root}/game/{game_id}/3"
            wait_for(lambda: ours in other.seen, what="the table's roll published")
            published = verify(SECRET.encode(), ours, other.seen[ours])
            assert published["seq"] == 3 and published["action"] == {"type": "Roll", "total": 4}
            # The same message again: applied once.
            sent = {"game_id": game_id, "seq": 1, "action": history[1], "prev": digests[1]}
            other.send(f"game/{game_id}/1", sent | {"by": "other"})
            wait_for(lambda: call(daemon, op="status")["room"]["duplicates"] >= 1)
            # A stranger's, and garbage: ignored.
            played = call(daemon, op="status")["history"]
            bad = {"game_id": game_id, "seq": 4, "action": history[0], "prev": digests[0]}
            other.send(f"game/{game_id}/4", bad, secret="not the secret")
            other.raw(f"game/{game_id}/4", b"\xff{not json")
            wait_for(lambda: call(daemon, op="status")["room"]["refused"] == 2)
            status = call(daemon, op="status")
            assert status["history"] == played and status["room"]["state"] == "playing"
            # Another roll in place of the one applied: the tables disagree, and say where.
            other_roll = _actions("akuma", ["choose_dice:1", "roll:5"])[1]
            forked = {"game_id": game_id, "seq": 1, "action": other_roll, "prev": digests[1]}
            other.send(f"game/{game_id}/1", forked | {"by": "other"})
            wait_for(lambda: call(daemon, op="status")["room"]["state"] == "disagree")
            status = call(daemon, op="status")
            assert status["room"]["disagree"]["last_common"] == "choose_dice:1"
            assert any("tables disagree" in alert and "choose_dice:1" in alert
                       for alert in status["alerts"])  # fmt: skip
            assert status["history"] == played  # nothing forked
    finally:
        other.close()


def test_a_table_started_afresh_joins_the_game_seat_1_plays_not_one_left_on_the_broker(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """The broker still holds last evening's game, its table of seat 1 gone: a table started
    afresh waits; seat 1's table comes back with a new game, and that one is joined."""
    room, old, new = "evening", "0ld0ld0ld0ld", "feedc0de0002"
    other = Stranger(mosquitto, room)
    options = dict(get_game("akuma").new_initial_state({}).options)
    body = {"game": "akuma", "options": options, "length": 0, "digest": ""}
    other.send("state", body | {"game_id": old}, retain=True)
    presence = {"online": False, "seats": [0], "game_id": old, "dice": "table"}
    other.send("table/other", presence, retain=True)
    config = fast_sim_config(
        link_url=mosquitto.url(room), link_seats=(2,), link_secret=SECRET, game="akuma"
    )
    try:
        with serving(config, options_in(tmp_path)) as daemon:
            wait_for(lambda: daemon.room is not None and "other" in daemon.room.peers)
            assert call(daemon, op="status")["room"]["state"] == "waiting"
            other.send("table/other", presence | {"online": True, "game_id": new}, retain=True)
            other.send("state", body | {"game_id": new}, retain=True)
            wait_for(lambda: call(daemon, op="status")["room"]["game_id"] == new, what="joined")
    finally:
        other.close()


def test_the_table_of_seat_1_is_not_refused_by_a_game_left_on_the_broker(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """The two tables' walk: the broker held last evening's Multipli Potion; seat 1's table,
    started afresh on Capture the Akuma, heard another table's presence before its own game was
    open, weighed joining the old game, and said in red that it "cannot join the room's game".
    The table of seat 1 opens the room's game: it joins none."""
    room, old = "switched", "0ld0ld0ld0ld"
    other = Stranger(mosquitto, room)
    body = {"game": "potions", "options": {}, "length": 0, "digest": "", "game_id": old}
    other.send("state", body, retain=True)
    presence = {"online": True, "seats": [1], "game_id": old, "dice": "table", "n": 1}
    other.send("table/other", presence, retain=True)
    config = fast_sim_config(
        link_url=mosquitto.url(room), link_seats=(1,), link_secret=SECRET, game="akuma"
    )
    try:
        with serving(config, options_in(tmp_path)) as daemon:
            wait_for(lambda: call(daemon, op="status")["room"]["state"] == "playing")
            room_now = call(daemon, op="status")["room"]
            assert room_now["refusal"] is None and room_now["game_id"] != old
            keys = [alert["key"] for alert in call(daemon, op="snapshot")["alerts"]]
            assert keys == ["peer_behind"]  # seat 2's table still plays the old game: so said
    finally:
        other.close()


def test_a_table_given_another_secret_keeps_off_the_room_s_game_on_the_broker(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """The two tables' walk: seat 1's table, started with a wrong secret while seat 2's table
    was in the room, opened a game of its own over the room's, and the broker kept that: a
    table joining later found no game it could read. It now says the secret is wrong and
    writes nothing over the room's, until the table keyed otherwise has gone."""
    room, game_id = "keyed", "feedc0de0003"
    other = Stranger(mosquitto, room)
    options = dict(get_game("akuma").new_initial_state({}).options)
    body = {"game": "akuma", "options": options, "length": 0, "digest": "", "game_id": game_id}
    other.send("state", body, retain=True)
    presence = {"online": True, "seats": [1], "game_id": game_id, "dice": "table", "n": 1}
    other.send("table/other", presence, retain=True)
    config = fast_sim_config(
        link_url=mosquitto.url(room), link_seats=(1,), link_secret="not ours", game="akuma"
    )
    try:
        with serving(config, options_in(tmp_path)) as daemon:
            wait_for(lambda: "room_foreign_secret" in _alerts(daemon), what="told")
            assert daemon.room is not None
            # Past the point where it opened a game: its marker back, then a message after it.
            wait_for(lambda: f"{other.root}/sync/{daemon.room.table}" in other.seen)
            other.raw("table/junk", b"not a message")
            wait_for(lambda: call(daemon, op="status")["room"]["refused"] >= 3, what="junk")
            assert call(daemon, op="status")["room"]["state"] == "waiting"
            kept = other.seen[f"{other.root}/state"]
            assert verify(SECRET.encode(), f"{other.root}/state", kept)["game_id"] == game_id
            # The table keyed otherwise gone (its last will), this one opens the room's game.
            other.send("table/other", {"online": False}, retain=True)
            wait_for(lambda: call(daemon, op="status")["room"]["state"] == "playing", what="open")
            assert "room_foreign_secret" not in _alerts(daemon)
    finally:
        other.close()


def test_a_disagreement_found_at_one_table_is_said_at_the_other(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """The two tables' walk: the table that found the disagreement stopped and said so; the
    other went on saying "playing", its players waiting for moves that would never come."""
    room = "split"
    config = fast_sim_config(
        link_url=mosquitto.url(room), link_seats=(1,), link_secret=SECRET, game="akuma"
    )
    other = Stranger(mosquitto, room)
    try:
        with serving(config, options_in(tmp_path)) as daemon:
            wait_for(lambda: call(daemon, op="status")["room"]["game_id"] is not None)
            game_id = call(daemon, op="status")["room"]["game_id"]
            presence = {"online": True, "seats": [1], "game_id": game_id, "dice": "table"}
            other.send("table/other", presence | {"n": 1}, retain=True)
            wait_for(lambda: call(daemon, op="status")["room"]["tables"] != [])
            assert "peer_disagrees" not in _alerts(daemon)
            other.send("table/other", presence | {"n": 2, "disagrees": True}, retain=True)
            wait_for(lambda: "peer_disagrees" in _alerts(daemon), what="told")
    finally:
        other.close()


def _alerts(daemon: Any) -> list[str]:
    return [alert["key"] for alert in call(daemon, op="snapshot")["alerts"]]


def test_a_new_game_of_more_seats_counts_them_at_other_tables(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """The two tables' walk: seat 1's table, started on a game of 2, kept taking seat 3 of a
    new game of 3 for its own and offered its decisions there. A table whose seat a new game
    lacks refuses it."""
    config = fast_sim_config(
        link_url=mosquitto.url("grown"), link_seats=(1,), link_secret=SECRET, game="voodoo"
    )
    with serving(config, options_in(tmp_path, options={"players": 2})) as daemon:
        wait_for(lambda: call(daemon, op="status")["room"]["state"] == "playing")
        assert call(daemon, op="status")["room"]["elsewhere"] == [2]
        started = call(daemon, op="new", abandon=True, options={"players": 3})
        assert started["ok"], started
        assert call(daemon, op="status")["room"]["elsewhere"] == [2, 3]
        assert daemon.session.elsewhere == {1, 2}
    third = replace(config, link_seats=(3,))
    with serving(third, options_in(tmp_path / "third", options={"players": 3})) as daemon:
        refused = call(daemon, op="new", abandon=True, options={"players": 2})
        assert refused == {
            "ok": False,
            "error": "this table plays seat 3 of the room: a game of 2 players has no such seat",
        }


def test_a_broker_out_of_reach_or_refusing_stops_the_start_up(
    mosquitto: Mosquitto, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    port = free_port()
    args = ["run", "--sim", "--no-show", "--state-dir", str(tmp_path), "--seats", "1"]
    args += ["--link-secret", SECRET]
    assert main([*args, "--link", f"mqtt://127.0.0.1:{port}/room"]) == 2
    err = capsys.readouterr().err
    assert f"cannot reach the MQTT broker at 127.0.0.1:{port}" in err
    wrong = f"mqtt://{mosquitto.user}:wrong@127.0.0.1:{mosquitto.auth_port}/room"
    assert main([*args, "--link", wrong]) == 2
    assert f"the MQTT broker at 127.0.0.1:{mosquitto.auth_port} refused" in capsys.readouterr().err
    # No secret: refused before anything starts.
    assert main([*args[:-2], "--link", mosquitto.url("room")]) == 2
    assert "room's secret" in capsys.readouterr().err


def test_over_tls_a_table_joins_with_its_ca_and_stops_with_another(
    mosquitto: Mosquitto, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`mqtts://` to the broker's TLS listener: with `[link] tls_ca` the CA that signed the
    broker's certificate, the table plays in the room over an encrypted connection; with
    another CA, or a file that is none, it stops at start-up, exit 2, saying which broker and
    why."""
    url = f"mqtts://127.0.0.1:{mosquitto.tls_port}/secure"
    config = fast_sim_config(
        link_url=url, link_seats=(1,), link_secret=SECRET, link_tls_ca=mosquitto.ca
    )
    with serving(config, options_in(tmp_path / "table")) as daemon:
        wait_for(lambda: call(daemon, op="status")["room"]["state"] == "playing")
        assert daemon.room is not None
        assert isinstance(daemon.room.broker.client.socket(), ssl.SSLSocket)
        assert call(daemon, op="roll", values=[3])["ok"]
    where = f"the MQTT broker at 127.0.0.1:{mosquitto.tls_port}"
    args = ["run", "--sim", "--no-show", "--state-dir", str(tmp_path), "--seats", "1"]
    args += ["--link-secret", SECRET, "--link", url, "--config", str(tmp_path / "config.toml")]
    for ca, said in (
        (mosquitto.stranger_ca, f"{where} is not trusted: its certificate was not signed by "),
        (tmp_path / "config.toml", "holds no PEM certificate"),
    ):
        (tmp_path / "config.toml").write_text(f'[link]\ntls_ca = "{ca}"\n')
        assert main(args) == 2
        err = capsys.readouterr().err
        assert said in err and f"[link] tls_ca {ca}" in err


def test_a_broker_lost_mid_game_is_said_and_the_game_kept(
    mosquitto: Mosquitto, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A broker of the test's own, stopped under a table playing: "reconnecting" in its status
    and alerts, its game kept; started again, the table is back in the room."""
    binary = mosquitto.binary
    port = free_port()
    conf = tmp_path / "mosquitto.conf"
    conf.write_text(mosquitto.conf_head + f"listener {port} 127.0.0.1\nallow_anonymous true\n")

    def start() -> subprocess.Popen[bytes]:
        broker = subprocess.Popen([binary, "-c", str(conf)], stderr=subprocess.DEVNULL)
        wait_for(lambda: listening(port), what="the broker")
        return broker

    broker = start()
    config = fast_sim_config(
        link_url=f"mqtt://127.0.0.1:{port}/lost", link_seats=(1,), link_secret=SECRET
    )
    try:
        with serving(config, options_in(tmp_path / "table")) as daemon:
            wait_for(lambda: call(daemon, op="status")["room"]["state"] == "playing")
            assert call(daemon, op="roll", values=[3])["ok"]
            played = call(daemon, op="status")["history"]
            broker.terminate()
            broker.wait(timeout=10)
            wait_for(lambda: call(daemon, op="status")["room"]["state"] == "reconnecting")
            status = call(daemon, op="status")
            assert any("reconnecting" in alert for alert in status["alerts"])
            assert status["history"] == played
            capsys.readouterr()
            assert main(["status", "--state-dir", str(tmp_path / "table")]) == 0
            said = capsys.readouterr().out
            assert f"room lost on 127.0.0.1:{port}: reconnecting; seats here 1, at other" in said
            broker = start()
            wait_for(lambda: call(daemon, op="status")["room"]["state"] == "playing")
    finally:
        broker.terminate()
        broker.wait(timeout=10)


def test_a_spectator_reads_the_table_s_snapshot_and_the_broker_refuses_what_it_sends(
    mosquitto: Mosquitto, tmp_path: Path
) -> None:
    """The table publishes the dashboard's snapshot, retained, for the room's spectators, and
    again when it changes; the broker's `spectator` user (read-only in its ACL) reads it, and
    what it publishes, on the room's actions or on the snapshot, is refused by the broker.
    Home Assistant's sensors, turned on, have their state beside the snapshot."""
    room = "watched"
    user = f"{mosquitto.user}:{mosquitto.password}"
    url = f"mqtt://{user}@127.0.0.1:{mosquitto.auth_port}/{room}"
    config = replace(
        fast_sim_config(link_url=url, link_seats=(1,), link_secret=SECRET),
        link_home_assistant=True,
    )
    seen: dict[str, bytes] = {}
    acks: list[Any] = []
    spectator = mqtt.Client(CallbackAPIVersion.VERSION2, protocol=mqtt.MQTTv5)
    spectator.username_pw_set(mosquitto.spectator, mosquitto.spectator_password)
    spectator.on_message = lambda client, data, message: seen.update(
        {message.topic: bytes(message.payload)}
    )
    spectator.on_publish = lambda client, data, mid, reason, props: acks.append(reason)
    topic = f"smartboard/{room}/snapshot/1"
    with serving(config, options_in(tmp_path)) as daemon:
        wait_for(lambda: call(daemon, op="status")["room"]["state"] == "playing")
        assert daemon.room is not None  # small messages sent at once (no Nagle's algorithm)
        sock = daemon.room.broker.client.socket()
        assert isinstance(sock, socket.socket)
        assert sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY)
        spectator.connect("127.0.0.1", mosquitto.auth_port)
        spectator.subscribe(f"smartboard/{room}/#", qos=1)
        spectator.loop_start()
        try:
            wait_for(lambda: topic in seen, what="the retained snapshot")
            snapshot = json.loads(seen[topic])
            assert snapshot["room"]["room"] == room and snapshot["game"] == "akuma"
            # Home Assistant's sensors, turned on: their state beside the snapshot.
            sensors = f"smartboard/{room}/home_assistant/1"
            wait_for(
                lambda: sensors in seen and json.loads(seen[sensors])["table"] == "playing",
                what="the sensors' state",
            )
            assert call(daemon, op="roll", values=[3])["ok"]
            played = call(daemon, op="status")["history"]
            wait_for(lambda: len(json.loads(seen[topic])["log"]) == len(played))
            game_id = call(daemon, op="status")["room"]["game_id"]
            forged = {"game_id": game_id, "seq": len(played), "action": played[0], "prev": ""}
            action_topic = f"smartboard/{room}/game/{game_id}/{len(played)}"
            spectator.publish(action_topic, sign(b"guessed", action_topic, forged), qos=1)
            spectator.publish(topic, b"{}", qos=1, retain=True)
            wait_for(lambda: len(acks) == 2, what="the broker's answers")
            assert all(reason.is_failure and "authori" in str(reason).lower() for reason in acks)
            status = call(daemon, op="status")
            assert status["history"] == played and status["room"]["refused"] == 0
            assert json.loads(seen[topic])["game"] == "akuma"  # not the spectator's {}
        finally:
            spectator.disconnect()
            spectator.loop_stop()
