"""What the daemon offers the dashboard: its snapshot, pause, another game, clicks on the simulated
table, and the game record that `smartboard replay` shows again."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from conftest import fast_sim_config
from daemon_run import call, serving

from controller.cli import main
from controller.daemon import EX_TEMPFAIL, Daemon, RunOptions
from controller.journal import Journal
from controller.operations import OPERATIONS
from controller.rules.api import JSON
from controller.startup import StartupError


class Page:
    """Stands in for the dashboard: keeps what the daemon publishes."""

    def __init__(self) -> None:
        self.seen: list[JSON] = []

    def publish(self, snapshot: JSON) -> None:
        self.seen.append(snapshot)

    def url(self, with_token: bool = False) -> str:
        return "http://127.0.0.1:8080/" + ("?token=secret-secret-secret" if with_token else "")

    def wait_for(self, test: Any, timeout: float = 5.0) -> JSON:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for snapshot in reversed(self.seen):
                if test(snapshot):
                    return snapshot
            time.sleep(0.01)
        raise AssertionError(f"no snapshot passed in {timeout} s; last: {self.seen[-1:]}")


@pytest.fixture
def page() -> Page:
    return Page()


@pytest.fixture
def running(tmp_path: Path, page: Page) -> Iterator[Daemon]:
    options = RunOptions(state_dir=tmp_path, socket_path=tmp_path / "control.sock", seed=3)
    with serving(fast_sim_config(), options, page) as daemon:
        yield daemon


def test_the_snapshot_shows_the_akuma_table(running: Daemon, page: Page) -> None:
    first = page.wait_for(lambda s: s["game"] == "akuma")
    assert first["title"] == "Capture the Akuma"
    assert first["players"] == ["hawkmoth", "ladybug"] and first["to_move"] == "hawkmoth"
    assert first["board_rows"] == [["1", "2", "3"], ["4", "5", "6"], ["7", "8", "9"]]
    assert len(first["spots"]) == 9 + 9 * 5
    square = first["spots"]["5"]
    assert square["sensor"] == "camera" and square["role"] == "civilian"
    assert square["sensed"] == square["expected"] == "civilian-5"  # AK-10: its card
    assert square["light"].startswith("#") and len(square["light"]) == 7
    assert first["spots"]["5.trap"]["sensor"] == "reed"
    assert first["actions"] == [
        {"id": "choose_dice:1", "at": None, "to": None},
        {"id": "choose_dice:2", "at": None, "to": None},
    ]
    assert first["sim"] is True and first["paused"] is False and first["log"] == []
    assert set(first["games"]) == {"akuma", "voodoo", "takeover", "potions", "mightymania"}
    assert call(running, op="act", id="choose_dice:2")["ok"]
    after = page.wait_for(lambda s: s["log"] == ["choose_dice:2"])
    assert after["version"] > first["version"]
    assert after["dice_wanted"] == {
        "kind": "d6",
        "count": 2,
        "faces": [1, 2, 3, 4, 5, 6],
        "roller": "hawkmoth",  # whose dice (AK-3): the page says so for a seat the table plays
    }
    assert after["actions"] == []  # a chance node: the dice decide
    assert first["log_by"] == [] and after["log_by"] == ["hawkmoth"]  # whose move, for the log
    asked = call(running, op="snapshot")
    assert asked["ok"] and asked["log"] == after["log"] and asked["version"] == after["version"]


def test_a_click_rolls_the_wanted_dice_on_the_simulated_table(running: Daemon) -> None:
    refused = call(running, op="roll")
    assert not refused["ok"] and refused["error"] == "no dice are wanted now"
    call(running, op="act", id="choose_dice:1")
    rolled = call(running, op="roll")
    assert rolled["ok"], rolled
    (applied,) = rolled["applied"]
    assert applied.startswith("roll:") and 1 <= int(applied.split(":")[1]) <= 6  # AK-3: one die


def test_a_click_lays_and_lifts_a_piece_on_the_simulated_table(running: Daemon) -> None:
    placed = call(running, op="place", spot="5.trap")
    assert placed == {"ok": True, "spot": "5.trap", "occupied": True}
    wait(lambda: "5.trap" in running.session.sensed)
    assert call(running, op="place", spot="5.trap")["occupied"] is False
    wait(lambda: "5.trap" not in running.session.sensed)
    unknown = call(running, op="place", spot="5.dragon")
    assert not unknown["ok"] and "no spot '5.dragon'" in unknown["error"]
    # The camera's spots: a card taken off, the card the game expects put back, or another.
    assert call(running, op="place", spot="5") == {"ok": True, "spot": "5", "token": None}
    wait(lambda: "5" not in running.session.sensed)
    assert call(running, op="place", spot="5")["token"] == "civilian-5"
    laid = call(running, op="place", spot="5", token="akumatized-5")
    assert laid["token"] == "akumatized-5"
    wait(lambda: running.session.sensed.get("5") == "akumatized-5")
    assert call(running, op="place", spot="5")["token"] == "civilian-5"  # put right


def test_clicks_alone_de_evilize_on_the_simulated_table(running: Daemon) -> None:
    """After an 11 (AK-4) Ladybug takes the akuma off, and the akumatized card off the civilian's
    (rulebook, AK-5): a click on the card shows the civilian's, as that legal move would."""
    call(running, op="roll", values=[3])  # AK-5: Hawk Moth akumatizes square 3
    for spot in ("3.hawkmoth", "3.akuma"):
        call(running, op="place", spot=spot)
    wait(lambda: running.session.sensed == running.session.expected)
    assert running.session.sensed["3"] == "akumatized-3"  # laid by the simulated hands
    call(running, op="roll", values=[5, 6])  # an 11: Ladybug de-evilizes
    assert call(running, op="place", spot="3.akuma")["occupied"] is False
    assert call(running, op="place", spot="3")["token"] == "civilian-3"
    wait(lambda: running.session.state.history()[-1] == {"type": "DeEvilize", "square": 3})


def test_an_unknown_op_is_answered_with_the_ops_there_are(running: Daemon) -> None:
    refused = call(running, op="fly")
    assert refused == {"ok": False, "error": f"unknown op 'fly'; known: {', '.join(OPERATIONS)}"}


def test_smartboard_dashboard_prints_the_address_with_its_token(
    running: Daemon, capsys: pytest.CaptureFixture[str]
) -> None:
    """The token is needed on loopback too: a member of the socket's group gets it this way."""
    assert main(["dashboard", "--state-dir", str(running.options.state_dir)]) == 0
    assert capsys.readouterr().out == "http://127.0.0.1:8080/?token=secret-secret-secret\n"
    running.web = None
    assert main(["dashboard", "--state-dir", str(running.options.state_dir)]) == 1
    assert "serves no dashboard" in capsys.readouterr().err


def test_a_paused_game_ignores_the_table_and_refuses_moves(running: Daemon, page: Page) -> None:
    lit = running.strip.last  # type: ignore[attr-defined]
    assert call(running, op="pause") == {"ok": True, "paused": True}
    assert page.wait_for(lambda s: s["paused"])["message"].startswith("paused")
    refused = call(running, op="act", id="choose_dice:2")
    assert not refused["ok"] and "paused" in refused["error"]
    assert not call(running, op="pause")["ok"]
    assert call(running, op="status")["paused"] is True
    dimmed = running.strip.last  # type: ignore[attr-defined]
    assert max(map(max, dimmed)) <= max(map(max, lit)) * 0.25 + 1
    # The hands may tidy the table while paused: nothing is applied, nothing is lost.
    running.reeds.drive("5.trap", True)  # type: ignore[attr-defined]
    time.sleep(0.1)
    assert running.session.state.history() == []
    assert call(running, op="resume") == {"ok": True, "paused": False}
    wait(lambda: "5.trap" in running.session.sensed)
    assert call(running, op="act", id="choose_dice:2")["ok"]


def test_another_game_starts_on_its_own_profile(running: Daemon, tmp_path: Path) -> None:
    call(running, op="act", id="choose_dice:2")
    busy = call(running, op="new", game="voodoo")
    assert not busy["ok"] and "abandon" in busy["error"]
    bad = call(running, op="new", game="voodoo", options={"players": "two"}, abandon=True)
    assert not bad["ok"] and "must be int" in bad["error"]
    unknown = call(running, op="new", game="chess", abandon=True)
    assert not unknown["ok"] and "unknown game 'chess'" in unknown["error"]
    assert running.game.name == "akuma" and len(running.session.state.history()) == 1
    started = call(running, op="new", game="voodoo", options={"players": 3}, abandon=True)
    assert started == {"ok": True, "game": "voodoo"}
    snapshot = call(running, op="snapshot")
    assert snapshot["game"] == "voodoo" and len(snapshot["players"]) == 3
    assert len(snapshot["spots"]) == 49 and snapshot["board_rows"][3][3] == "r3c3"
    assert Journal(tmp_path).read().game == "voodoo"
    kept = [p for p in tmp_path.glob("journal-*.jsonl")]
    assert len(kept) == 1  # the abandoned Akuma game, under a dated name
    assert call(running, op="new", game="akuma", abandon=True)["ok"]
    assert call(running, op="snapshot")["game"] == "akuma"


def test_a_game_that_cannot_open_leaves_the_old_one_going(
    running: Daemon, monkeypatch: pytest.MonkeyPatch
) -> None:
    call(running, op="act", id="choose_dice:2")
    opened = running._open_hardware

    def voodoo_fails() -> None:
        if running.game.name == "voodoo":
            raise StartupError("no calibration for the Voodoo board")
        opened()

    monkeypatch.setattr(running, "_open_hardware", voodoo_fails)
    refused = call(running, op="new", game="voodoo", abandon=True)
    assert refused == {"ok": False, "error": "no calibration for the Voodoo board"}
    assert call(running, op="snapshot")["game"] == "akuma"
    assert len(running.session.state.history()) == 1
    assert call(running, op="roll", values=[3, 4])["ok"]


def test_a_table_that_cannot_reopen_stops_the_daemon_for_a_restart(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Nothing is lost: the journal keeps the old game, and the service's restart resumes it."""
    options = RunOptions(state_dir=tmp_path, socket_path=tmp_path / "control.sock", seed=3)
    daemon = Daemon(fast_sim_config(), options)
    daemon.open()
    finished: list[int] = []
    thread = threading.Thread(target=lambda: finished.append(daemon.run()))
    thread.start()
    try:
        call(daemon, op="act", id="choose_dice:2")

        def unplugged() -> None:
            raise StartupError("the table's microcontroller: /dev/ttyACM0 is gone")

        monkeypatch.setattr(daemon, "_open_hardware", unplugged)
        reply = call(daemon, op="new", game="voodoo", abandon=True)
        assert not reply["ok"]
        assert "reopening the table for akuma failed too" in reply["error"]
        assert "restart" in reply["error"]
        thread.join(timeout=5)
        assert finished == [EX_TEMPFAIL]
    finally:
        daemon.stop()
        thread.join(timeout=5)
        daemon.close()
    record = Journal(tmp_path).read()
    assert record.game == "akuma" and len(record.history()) == 1
    assert not list(tmp_path.glob("journal-*.jsonl"))  # the Akuma game was not set aside


def test_the_record_replays_with_smartboard_replay(
    running: Daemon, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    call(running, op="roll", values=[6, 6])  # choose_dice:2 then roll:12 (AK-3)
    call(running, op="act", id="place_trap:4")
    reply = call(running, op="record")
    assert reply["ok"] and reply["record"]["game"] == "akuma"
    path = tmp_path / "game.json"
    path.write_text(json.dumps(reply["record"]))
    assert main(["replay", str(path), "--json"]) == 0
    lines = [json.loads(line) for line in capsys.readouterr().out.splitlines()]
    assert [line["action"] and line["action"]["type"] for line in lines] == [
        None,
        "ChooseDice",
        "Roll",
        "PlaceTrap",
    ]
    assert lines[-1]["details"]["traps"] == [4]
    assert main(["replay", str(tmp_path / "journal.jsonl")]) == 0
    shown = capsys.readouterr().out
    assert "3. Lay a trap on square 4 (place_trap:4)" in shown
    assert "to move: Ladybug" in shown and "the game was not finished" in shown
    # The seats by the names chosen for them, as the page showed them.
    path.write_text(json.dumps(reply["record"] | {"names": ["Ana", "Bob"]}))
    assert main(["replay", str(path)]) == 0
    assert "to move: Bob" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("{}", 'a game record is an object with "game", "options", "history"'),
        (
            '{"game": "akuma", "history": [{"type": "Voyage", "square": 2}]}',
            "step 0 does not replay",
        ),
        ("not json at all\n", "neither a game record nor a journal"),
        ('{"game": "chess", "options": {}, "history": []}', "unknown game 'chess'"),
        ('{"game": "akuma", "history": [], "names": "Ana"}', '"names" must be a list of names'),
    ],
)
def test_replay_names_what_is_wrong_with_a_file(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], content: str, message: str
) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content)
    assert main(["replay", str(path)]) == 65
    assert message in capsys.readouterr().err


def wait(test: Any, timeout: float = 5.0) -> None:
    deadline = time.monotonic() + timeout
    while not test():
        assert time.monotonic() < deadline, "timed out"
        time.sleep(0.01)
